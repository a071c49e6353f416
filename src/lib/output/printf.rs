//! The C `printf` that HTCondor's print masks hand their formats to (`-format`, `PRINTF` in
//! print formats): the first conversion of a format is found and classified as HTCondor's
//! `parsePrintfFormat` does (src/condor_utils/printf_format.cpp), and a whole format string
//! is rendered around one argument as glibc's `printf` would.
//!
//! HTCondor's own letters are classified too (`%v`/`%V` a value, `%r`/`%R` raw, `%T` a
//! duration, `%Y` a date); the callers render those themselves and use [`sprintf_str`] on the
//! format with the letter replaced by `s`.

use crate::classad::unparse::{fmt_e, fmt_g};

/// What kind of argument a conversion takes (HTCondor's `printf_fmt_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A letter printf does not know (`%%` included).
    None,
    Int,
    Float,
    Char,
    Str,
    /// `%v`, `%V`: a ClassAd value.
    Value,
    /// `%r`, `%R`: an unevaluated expression.
    Raw,
    /// `%T`: seconds as `days+hh:mm:ss`.
    Time,
    /// `%Y`: a date.
    Date,
    Pointer,
    /// `%n`.
    Crash,
}

/// One conversion: `%[flags][width][.precision][length]letter`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    pub left: bool,
    pub zero: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    /// `None` when absent; `Some(usize::MAX)` for `*`.
    pub width: Option<usize>,
    /// `None` when absent; `Some(usize::MAX)` for `*`.
    pub precision: Option<usize>,
    /// An `l`, `ll`, `q`, `j`, `z` or `t` length: the argument is 64 bits wide.
    pub wide: bool,
    pub letter: char,
    pub kind: Kind,
    /// Byte offsets of the `%` and just past the letter.
    pub start: usize,
    pub end: usize,
}

const STAR: usize = usize::MAX;

impl Conversion {
    /// HTCondor's `printf_fmt_info::unsafe()`: `%n`, or a `*` width or precision.
    pub fn is_unsafe(&self) -> bool {
        self.kind == Kind::Crash || self.width == Some(STAR) || self.precision == Some(STAR)
    }

    /// The width as a number (0 when absent or `*`).
    pub fn width_value(&self) -> usize {
        match self.width {
            Some(STAR) | None => 0,
            Some(w) => w,
        }
    }
}

/// The first conversion of `fmt`, parsed as `parsePrintfFormat` parses it (a `%%` is
/// skipped); `None` when there is none or the text ends inside it. A letter printf does not
/// know is a conversion of [`Kind::None`]: `parsePrintfFormat` fails on it.
pub fn first_conversion(fmt: &str) -> Option<Conversion> {
    let mut from = 0;
    loop {
        let start = from + fmt[from..].find('%')?;
        let conv = parse_at(fmt, start)?;
        if conv.letter != '%' {
            return Some(conv);
        }
        from = conv.end;
    }
}

fn parse_at(fmt: &str, start: usize) -> Option<Conversion> {
    let b = fmt.as_bytes();
    let mut i = start + 1;
    let mut c = Conversion {
        left: false,
        zero: false,
        plus: false,
        space: false,
        alt: false,
        width: None,
        precision: None,
        wide: false,
        letter: '\0',
        kind: Kind::None,
        start,
        end: 0,
    };
    b.get(i)?;
    while let Some(&ch) = b.get(i) {
        match ch {
            b'#' => c.alt = true,
            b'0' => c.zero = true,
            b'-' => c.left = true,
            b' ' => c.space = true,
            b'+' => c.plus = true,
            b'\'' => {}
            _ => break,
        }
        i += 1;
    }
    match b.get(i)? {
        b'*' => {
            c.width = Some(STAR);
            i += 1;
        }
        d if d.is_ascii_digit() => {
            let s = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            c.width = fmt[s..i].parse().ok();
        }
        _ => {}
    }
    if b.get(i)? == &b'.' {
        i += 1;
        match b.get(i)? {
            b'*' => {
                c.precision = Some(STAR);
                i += 1;
            }
            d if d.is_ascii_digit() => {
                let s = i;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                c.precision = fmt[s..i].parse().ok();
            }
            // `%.d`: a precision of zero.
            _ => c.precision = Some(0),
        }
    }
    while let Some(&ch) = b.get(i) {
        match ch {
            b'l' | b'q' | b'j' | b'z' | b't' => c.wide = true,
            b'h' | b'L' => {}
            _ => break,
        }
        i += 1;
    }
    let letter = fmt[i..].chars().next()?;
    c.letter = letter;
    c.end = i + letter.len_utf8();
    c.kind = match letter {
        'd' | 'i' | 'o' | 'u' | 'x' | 'X' => Kind::Int,
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => Kind::Float,
        'c' | 'C' => Kind::Char,
        's' | 'S' => Kind::Str,
        'p' => Kind::Pointer,
        'n' => Kind::Crash,
        'v' | 'V' => Kind::Value,
        'r' | 'R' => Kind::Raw,
        'T' => Kind::Time,
        'Y' => Kind::Date,
        _ => Kind::None,
    };
    Some(c)
}

/// The argument one conversion consumes.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    Int(i64),
    Float(f64),
    Str(&'a str),
}

/// `printf(fmt, arg)`: the text around the conversions is copied (`%%` is `%`), the first
/// conversion takes `arg`, and any later one (which C would feed garbage) prints nothing.
pub fn sprintf(fmt: &str, arg: Arg<'_>) -> String {
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut rest = 0;
    let mut used = false;
    while let Some(off) = fmt[rest..].find('%') {
        let at = rest + off;
        out.push_str(&fmt[rest..at]);
        if fmt[at + 1..].starts_with('%') {
            out.push('%');
            rest = at + 2;
            continue;
        }
        let Some(conv) = parse_at(fmt, at) else {
            // A trailing, unfinished conversion: printf prints it as it is.
            out.push_str(&fmt[at..]);
            return out;
        };
        if !used {
            convert(&mut out, &conv, arg);
            used = true;
        }
        rest = conv.end;
    }
    out.push_str(&fmt[rest..]);
    out
}

/// `printf(fmt, (long long) v)`.
pub fn sprintf_int(fmt: &str, v: i64) -> String {
    sprintf(fmt, Arg::Int(v))
}

/// `printf(fmt, (double) v)`.
pub fn sprintf_float(fmt: &str, v: f64) -> String {
    sprintf(fmt, Arg::Float(v))
}

/// `printf(fmt, (const char *) s)`.
pub fn sprintf_str(fmt: &str, s: &str) -> String {
    sprintf(fmt, Arg::Str(s))
}

fn convert(out: &mut String, c: &Conversion, arg: Arg<'_>) {
    let (as_int, as_float) = match arg {
        Arg::Int(i) => (i, i as f64),
        Arg::Float(f) => (f as i64, f),
        Arg::Str(_) => (0, 0.0),
    };
    let width = c.width_value();
    let precision = c.precision.filter(|p| *p != STAR);
    match c.letter {
        'd' | 'i' => {
            // Without a length modifier, C reads an `int`.
            let v = if c.wide { as_int } else { as_int as i32 as i64 };
            let digits = int_digits(v.unsigned_abs() as u128, 10, false, precision);
            let sign = if v < 0 {
                "-"
            } else if c.plus {
                "+"
            } else if c.space {
                " "
            } else {
                ""
            };
            pad_number(out, c, sign, &digits, precision.is_none());
        }
        'o' | 'u' | 'x' | 'X' => {
            let v = if c.wide {
                as_int as u64
            } else {
                as_int as u32 as u64
            };
            let (radix, upper) = match c.letter {
                'o' => (8, false),
                'x' => (16, false),
                'X' => (16, true),
                _ => (10, false),
            };
            let mut digits = int_digits(v as u128, radix, upper, precision);
            let mut prefix = "";
            if c.alt && v != 0 {
                match c.letter {
                    'x' => prefix = "0x",
                    'X' => prefix = "0X",
                    'o' if !digits.starts_with('0') => digits.insert(0, '0'),
                    _ => {}
                }
            }
            pad_number(out, c, prefix, &digits, precision.is_none());
        }
        'c' | 'C' => {
            let ch = char::from_u32(as_int as u32 & 0xff).unwrap_or('?');
            pad_text(out, c, &ch.to_string());
        }
        's' | 'S' => {
            let s = match arg {
                Arg::Str(s) => s,
                _ => "",
            };
            let s = match precision {
                Some(p) if p < s.len() => &s[..floor_char_boundary(s, p)],
                _ => s,
            };
            pad_text(out, c, s);
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => {
            let v = as_float;
            let sign = if v.is_sign_negative() {
                "-"
            } else if c.plus {
                "+"
            } else if c.space {
                " "
            } else {
                ""
            };
            let a = v.abs();
            let upper = c.letter.is_ascii_uppercase();
            let body = if a.is_nan() {
                if upper { "NAN" } else { "nan" }.to_string()
            } else if a.is_infinite() {
                if upper { "INF" } else { "inf" }.to_string()
            } else {
                let p = precision.unwrap_or(6);
                match c.letter {
                    'f' | 'F' => {
                        let mut s = format!("{a:.p$}");
                        if c.alt && p == 0 {
                            s.push('.');
                        }
                        s
                    }
                    'e' | 'E' | 'a' | 'A' => fmt_e(a, p, upper),
                    _ => {
                        let s = fmt_g(a, p, upper);
                        if c.alt && !s.contains('.') {
                            alt_g(a, p, upper)
                        } else {
                            s
                        }
                    }
                }
            };
            pad_number(out, c, sign, &body, a.is_finite());
        }
        'p' => {
            let digits = format!("0x{:x}", as_int as u64);
            pad_text(out, c, &digits);
        }
        _ => {}
    }
    let _ = width;
}

/// `%#g`: trailing zeros kept.
fn alt_g(a: f64, p: usize, upper: bool) -> String {
    let p = p.max(1);
    let e_form = format!("{:.*e}", p - 1, a);
    let x: i32 = e_form
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    if a != 0.0 && (x < -4 || x >= p as i32) {
        fmt_e(a, p - 1, upper)
    } else {
        let decimals = (p as i32 - 1 - x).max(0) as usize;
        let mut s = format!("{a:.decimals$}");
        if !s.contains('.') {
            s.push('.');
        }
        s
    }
}

fn int_digits(v: u128, radix: u32, upper: bool, precision: Option<usize>) -> String {
    let mut s = match radix {
        8 => format!("{v:o}"),
        16 if upper => format!("{v:X}"),
        16 => format!("{v:x}"),
        _ => v.to_string(),
    };
    if let Some(p) = precision {
        if p == 0 && v == 0 {
            s.clear();
        } else if s.len() < p {
            s.insert_str(0, &"0".repeat(p - s.len()));
        }
    }
    s
}

/// A number: sign or prefix, then digits, padded to the width (with zeros after the sign when
/// `0` is given and `zero_ok`).
fn pad_number(out: &mut String, c: &Conversion, sign: &str, digits: &str, zero_ok: bool) {
    let width = c.width_value();
    let len = sign.len() + digits.len();
    if len >= width {
        out.push_str(sign);
        out.push_str(digits);
    } else if c.left {
        out.push_str(sign);
        out.push_str(digits);
        out.extend(std::iter::repeat_n(' ', width - len));
    } else if c.zero && zero_ok {
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', width - len));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', width - len));
        out.push_str(sign);
        out.push_str(digits);
    }
}

fn pad_text(out: &mut String, c: &Conversion, s: &str) {
    let width = c.width_value();
    if s.len() >= width {
        out.push_str(s);
    } else if c.left {
        out.push_str(s);
        out.extend(std::iter::repeat_n(' ', width - s.len()));
    } else {
        out.extend(std::iter::repeat_n(' ', width - s.len()));
        out.push_str(s);
    }
}

/// The largest character boundary of `s` at or below `i`.
pub fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_the_first_conversion() {
        let c = first_conversion("x=%-10.3lld!").unwrap();
        assert_eq!(
            (c.left, c.width, c.precision, c.wide),
            (true, Some(10), Some(3), true)
        );
        assert_eq!((c.letter, c.kind, c.start, c.end), ('d', Kind::Int, 2, 11));
        assert_eq!(first_conversion("%T").unwrap().kind, Kind::Time);
        assert_eq!(first_conversion("%Y").unwrap().kind, Kind::Date);
        assert_eq!(first_conversion("%V").unwrap().kind, Kind::Value);
        assert_eq!(first_conversion("%r").unwrap().kind, Kind::Raw);
        assert!(first_conversion("%*d").unwrap().is_unsafe());
        assert!(first_conversion("%n").unwrap().is_unsafe());
        assert_eq!(first_conversion("no conversion"), None);
        assert_eq!(first_conversion("ends %-"), None);
        // `%%` is no conversion: the next one is the first.
        let c = first_conversion("100%% %5d").unwrap();
        assert_eq!((c.kind, c.start, c.width), (Kind::Int, 6, Some(5)));
        assert_eq!(first_conversion("100%%"), None);
        assert_eq!(first_conversion("%Q\n").unwrap().kind, Kind::None);
    }

    #[test]
    fn formats_as_c_does() {
        assert_eq!(sprintf_int("%4d.", 42), "  42.");
        assert_eq!(sprintf_int("%-3d", 0), "0  ");
        assert_eq!(sprintf_int("/%-3d", 7), "/7  ");
        assert_eq!(sprintf_int("%6d", 12), "    12");
        assert_eq!(sprintf_int("%05d|", -42), "-0042|");
        assert_eq!(sprintf_int("%+d|% d", 42), "+42|");
        assert_eq!(sprintf_int("% d", 42), " 42");
        assert_eq!(sprintf_int("%x %X %#x %o", 255), "ff   ");
        assert_eq!(sprintf_int("%#x", 255), "0xff");
        assert_eq!(sprintf_int("%d", 5_000_000_000), "705032704");
        assert_eq!(sprintf_int("%lld", 5_000_000_000), "5000000000");
        assert_eq!(sprintf_int("100%% %d", 3), "100% 3");
        assert_eq!(sprintf_int("%.3d", 7), "007");
        assert_eq!(sprintf_float("%.1f", 0.0), "0.0");
        assert_eq!(sprintf_float("%.1f", 1.25), "1.2");
        assert_eq!(sprintf_float("%7.2f%%", 12.345), "  12.35%");
        assert_eq!(sprintf_float("%g", 0.0001), "0.0001");
        assert_eq!(sprintf_float("%e", 1234.5), "1.234500e+03");
        assert_eq!(sprintf_float("%f", 1.0), "1.000000");
        assert_eq!(sprintf_str("[%s]", "abc"), "[abc]");
        assert_eq!(sprintf_str("[%-5s]", "ab"), "[ab   ]");
        assert_eq!(sprintf_str("[%5.2s]", "abcd"), "[   ab]");
        assert_eq!(sprintf_str("%s and %d", "x"), "x and ");
        assert_eq!(sprintf_int("%c", 65), "A");
    }
}
