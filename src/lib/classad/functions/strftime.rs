//! A `strftime` for `formatTime`: glibc's conversions in the C locale,
//! with its flags (`_`, `-`, `0`, `^`, `#`), field widths and the `E`/`O`
//! modifiers (accepted, ignored). An unknown conversion is copied as
//! written. Like the reference's 1024-byte buffer, a result of 1024 bytes
//! or more comes out empty.

use super::time::{local_offset, timegm};

/// Broken-down time (C's `struct tm`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tm {
    pub sec: i32,
    pub min: i32,
    pub hour: i32,
    pub mday: i32,
    /// Month, 0-11.
    pub mon: i32,
    /// Years since 1900.
    pub year: i32,
    /// Day of the week, 0 = Sunday.
    pub wday: i32,
    /// Day of the year, 0-365.
    pub yday: i32,
    /// Offset east of UTC, seconds (`%z`).
    pub gmtoff: i64,
    /// The zone's name (`%Z`); `None`: the local zone's standard name.
    pub zone: Option<String>,
}

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The reference formats into `char[1024]` with a limit of 1023.
const MAX_OUTPUT: usize = 1023;

/// Formats `tm` per `format`.
pub fn strftime(format: &str, tm: &Tm) -> String {
    let mut out = String::new();
    format_into(&mut out, format, tm);
    if out.len() >= MAX_OUTPUT {
        out.clear();
    }
    out
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// glibc's `iso_week_days`: days since the start of the ISO week-based year
/// containing `yday`, negative if it starts the next calendar year.
fn iso_week_days(yday: i64, wday: i64) -> i64 {
    const BIG_ENOUGH_MULTIPLE_OF_7: i64 = (366 / 7 + 2) * 7;
    yday - (yday - wday + 4 + BIG_ENOUGH_MULTIPLE_OF_7).rem_euclid(7) + 4 - 1
}

/// The ISO 8601 week-based year and the days into it.
fn iso_year_days(tm: &Tm) -> (i64, i64) {
    let mut year = tm.year as i64 + 1900;
    let yday = tm.yday as i64;
    let wday = tm.wday as i64;
    let mut days = iso_week_days(yday, wday);
    if days < 0 {
        year -= 1;
        days = iso_week_days(yday + 365 + is_leap(year) as i64, wday);
    } else {
        let d = iso_week_days(yday - (365 + is_leap(year) as i64), wday);
        if d >= 0 {
            year += 1;
            days = d;
        }
    }
    (year, days)
}

/// How a conversion pads.
#[derive(Clone, Copy, PartialEq)]
enum Pad {
    Default,
    Zero,
    Space,
    None,
}

#[derive(Clone, Copy)]
struct Spec {
    pad: Pad,
    upper: bool,
    swap_case: bool,
    width: usize,
}

impl Spec {
    /// A number with `digits` minimum digits, zero-padded unless told
    /// otherwise (`space_default`: space-padded by default, as `%e`).
    fn number(&self, out: &mut String, value: i64, digits: usize, space_default: bool) {
        let neg = value < 0;
        let text = value.unsigned_abs().to_string();
        let pad = match self.pad {
            Pad::Default if space_default => Pad::Space,
            Pad::Default => Pad::Zero,
            p => p,
        };
        let mut width = self.width.max(digits);
        if pad == Pad::None {
            width = 0;
        }
        let len = text.len() + neg as usize;
        let fill = width.saturating_sub(len);
        if pad == Pad::Space {
            out.extend(std::iter::repeat_n(' ', fill));
            if neg {
                out.push('-');
            }
        } else {
            if neg {
                out.push('-');
            }
            out.extend(std::iter::repeat_n('0', fill));
        }
        out.push_str(&text);
    }

    /// A string, right-aligned in the width (spaces, or zeros with `0`).
    fn text(&self, out: &mut String, s: &str, case_swap_lowers: bool) {
        let fill = self.width.saturating_sub(s.len());
        let c = if self.pad == Pad::Zero { '0' } else { ' ' };
        if self.pad != Pad::None {
            out.extend(std::iter::repeat_n(c, fill));
        }
        if self.upper || (self.swap_case && !case_swap_lowers) {
            out.push_str(&s.to_ascii_uppercase());
        } else if self.swap_case {
            out.push_str(&s.to_ascii_lowercase());
        } else {
            out.push_str(s);
        }
    }
}

fn name(list: &[&'static str], i: i32) -> &'static str {
    usize::try_from(i)
        .ok()
        .and_then(|i| list.get(i))
        .copied()
        .unwrap_or("?")
}

fn abbrev(list: &[&'static str], i: i32) -> &'static str {
    let n = name(list, i);
    if n == "?" {
        n
    } else {
        &n[..3]
    }
}

fn format_into(out: &mut String, format: &str, tm: &Tm) {
    let bytes = format.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let pct = match format[i..].find('%') {
            Some(p) => i + p,
            None => {
                out.push_str(&format[i..]);
                return;
            }
        };
        out.push_str(&format[i..pct]);
        let start = pct;
        let mut j = pct + 1;
        let mut spec = Spec {
            pad: Pad::Default,
            upper: false,
            swap_case: false,
            width: 0,
        };
        while j < bytes.len() {
            match bytes[j] {
                b'_' => spec.pad = Pad::Space,
                b'-' => spec.pad = Pad::None,
                b'0' => spec.pad = Pad::Zero,
                b'^' => spec.upper = true,
                b'#' => spec.swap_case = true,
                _ => break,
            }
            j += 1;
        }
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            spec.width = spec
                .width
                .saturating_mul(10)
                .saturating_add((bytes[j] - b'0') as usize)
                .min(4096);
            j += 1;
        }
        if j < bytes.len() && (bytes[j] == b'E' || bytes[j] == b'O') {
            j += 1;
        }
        let Some(conv) = format[j..].chars().next() else {
            // A lone '%' at the end is copied.
            out.push_str(&format[start..]);
            return;
        };
        i = j + conv.len_utf8();
        if !conversion(out, conv, &spec, tm) {
            out.push_str(&format[start..i]);
        }
    }
}

/// A composite conversion (`%c`, `%D`, ...), padded as a whole.
fn composite(out: &mut String, spec: &Spec, sub: &str, tm: &Tm) {
    let mut s = String::new();
    format_into(&mut s, sub, tm);
    spec.text(out, &s, false);
}

/// One conversion; false when it is not one strftime knows.
fn conversion(out: &mut String, conv: char, spec: &Spec, tm: &Tm) -> bool {
    let year = tm.year as i64 + 1900;
    match conv {
        '%' => spec.text(out, "%", false),
        'n' => spec.text(out, "\n", false),
        't' => spec.text(out, "\t", false),
        'a' => spec.text(out, abbrev(&DAYS, tm.wday), false),
        'A' => spec.text(out, name(&DAYS, tm.wday), false),
        'b' | 'h' => spec.text(out, abbrev(&MONTHS, tm.mon), false),
        'B' => spec.text(out, name(&MONTHS, tm.mon), false),
        'p' => spec.text(out, if tm.hour > 11 { "PM" } else { "AM" }, true),
        'P' => spec.text(out, if tm.hour > 11 { "pm" } else { "am" }, false),
        'c' => composite(out, spec, "%a %b %e %H:%M:%S %Y", tm),
        'D' | 'x' => composite(out, spec, "%m/%d/%y", tm),
        'F' => composite(out, spec, "%Y-%m-%d", tm),
        'r' => composite(out, spec, "%I:%M:%S %p", tm),
        'R' => composite(out, spec, "%H:%M", tm),
        'T' | 'X' => composite(out, spec, "%H:%M:%S", tm),
        'C' => spec.number(out, year.div_euclid(100), 2, false),
        'y' => spec.number(out, year.rem_euclid(100), 2, false),
        'Y' => spec.number(out, year, 4, false),
        'd' => spec.number(out, tm.mday as i64, 2, false),
        'e' => spec.number(out, tm.mday as i64, 2, true),
        'H' => spec.number(out, tm.hour as i64, 2, false),
        'k' => spec.number(out, tm.hour as i64, 2, true),
        'I' | 'l' => {
            let h = (tm.hour as i64).rem_euclid(12);
            spec.number(out, if h == 0 { 12 } else { h }, 2, conv == 'l');
        }
        'j' => spec.number(out, tm.yday as i64 + 1, 3, false),
        'm' => spec.number(out, tm.mon as i64 + 1, 2, false),
        'M' => spec.number(out, tm.min as i64, 2, false),
        'S' => spec.number(out, tm.sec as i64, 2, false),
        'u' => spec.number(out, (tm.wday as i64 - 1).rem_euclid(7) + 1, 1, false),
        'w' => spec.number(out, tm.wday as i64, 1, false),
        'U' => spec.number(out, (tm.yday as i64 - tm.wday as i64 + 7) / 7, 2, false),
        'W' => spec.number(
            out,
            (tm.yday as i64 - (tm.wday as i64 - 1 + 7) % 7 + 7) / 7,
            2,
            false,
        ),
        'V' => spec.number(out, iso_year_days(tm).1 / 7 + 1, 2, false),
        'G' => spec.number(out, iso_year_days(tm).0, 4, false),
        'g' => spec.number(out, iso_year_days(tm).0.rem_euclid(100), 2, false),
        's' => {
            // mktime(): the fields as local time.
            let t = timegm(
                year,
                tm.mon as i64,
                tm.mday as i64,
                tm.hour as i64,
                tm.min as i64,
                tm.sec as i64,
            );
            spec.number(out, t - local_offset(t) as i64, 1, false);
        }
        'z' => {
            let off = tm.gmtoff;
            let sign = if off < 0 { '-' } else { '+' };
            let a = off.unsigned_abs();
            let hhmm = (a / 3600 * 100 + a / 60 % 60) as i64;
            out.push(sign);
            let inner = Spec {
                width: spec.width.saturating_sub(1),
                ..*spec
            };
            inner.number(out, hhmm, 4, false);
        }
        'Z' => {
            let zone = tm.zone.clone().unwrap_or_else(local_zone_name);
            spec.text(out, &zone, true);
        }
        _ => return false,
    }
    true
}

/// The local zone's standard abbreviation (C's `tzname[0]`): from a POSIX
/// `TZ` value, else from the footer of the zone file `TZ` or
/// /etc/localtime names, else "UTC".
pub fn local_zone_name() -> String {
    let tz = std::env::var("TZ").ok();
    let spec = match tz.as_deref() {
        Some("") => return "UTC".into(),
        Some(v) => v.strip_prefix(':').unwrap_or(v).to_string(),
        None => return zone_file_name("/etc/localtime").unwrap_or_else(|| "UTC".into()),
    };
    if let Some(n) = posix_std_name(&spec) {
        return n;
    }
    let path = if spec.starts_with('/') {
        spec.clone()
    } else {
        format!("/usr/share/zoneinfo/{spec}")
    };
    zone_file_name(&path).unwrap_or_else(|| "UTC".into())
}

/// The standard-time name at the start of a POSIX TZ string (`EST5EDT`,
/// `<+03>-3`, `UTC0`); `None` unless an offset follows it.
fn posix_std_name(s: &str) -> Option<String> {
    let (name, rest) = if let Some(r) = s.strip_prefix('<') {
        let end = r.find('>')?;
        (&r[..end], &r[end + 1..])
    } else {
        let end = s
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(s.len());
        (&s[..end], &s[end..])
    };
    let offset_follows = rest.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
    (name.len() >= 3 && offset_follows).then(|| name.to_string())
}

/// The standard-time name in a TZif file's POSIX footer.
fn zone_file_name(path: &str) -> Option<String> {
    let data = std::fs::read(path).ok()?;
    if !data.starts_with(b"TZif") || !data.ends_with(b"\n") {
        return None;
    }
    let body = &data[..data.len() - 1];
    let start = body.iter().rposition(|&b| b == b'\n')? + 1;
    let footer = std::str::from_utf8(&body[start..]).ok()?;
    posix_std_name(footer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::functions::time::gmtime;

    fn fmt(f: &str, secs: i64) -> String {
        strftime(f, &gmtime(secs))
    }

    #[test]
    fn c_locale_conversions() {
        let t = 1_700_000_000; // Tue Nov 14 22:13:20 2023 UTC
        assert_eq!(fmt("%Y-%m-%d %H:%M:%S", t), "2023-11-14 22:13:20");
        assert_eq!(
            fmt("%a %A %b %B %e %j %y %%", t),
            "Tue Tuesday Nov November 14 318 23 %"
        );
        assert_eq!(fmt("%c", t), "Tue Nov 14 22:13:20 2023");
        assert_eq!(fmt("%D %T %R %F", t), "11/14/23 22:13:20 22:13 2023-11-14");
        assert_eq!(fmt("%I %l %p %P %r", t), "10 10 PM pm 10:13:20 PM");
        assert_eq!(fmt("%u %w %U %W %V %G %g %C", t), "2 2 46 46 46 2023 23 20");
        assert_eq!(
            fmt("%e|%-d|%_m|%5Y|%^a|%#b|%z", 0),
            " 1|1| 1|01970|THU|JAN|+0000"
        );
        assert_eq!(fmt("%Q %", 0), "%Q %");
        assert_eq!(fmt("", 0), "");
        // 2021-01-01 is a Friday in ISO week 53 of 2020.
        assert_eq!(fmt("%G-W%V-%u", 1_609_459_200), "2020-W53-5");
        assert_eq!(fmt(&"x".repeat(1023), 0), "");
    }

    #[test]
    fn posix_zone_names() {
        assert_eq!(posix_std_name("EST5EDT").as_deref(), Some("EST"));
        assert_eq!(posix_std_name("<+03>-3").as_deref(), Some("+03"));
        assert_eq!(posix_std_name("UTC0").as_deref(), Some("UTC"));
        assert_eq!(posix_std_name("America/Chicago"), None);
    }
}
