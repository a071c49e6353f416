//! Event times as the log writes and reads them: the header's date (`ULogEvent::formatHeader`,
//! `readHeader`) and the ISO 8601 `EventTime` of the ClassAd forms (`time_to_iso8601`,
//! `iso8601_to_time`).
//!
//! Times without a `Z` are local time, as the reference's `localtime`/`mktime` make them; a
//! legacy date has no year and takes the current one, as the reference does.

use chrono::{
    DateTime, Datelike, Duration, Local, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc,
};

use super::writer::LogFormat;

/// The broken-down time the event is written with: UTC, or local time.
fn broken_down(t: &DateTime<Utc>, utc: bool) -> NaiveDateTime {
    if utc {
        t.naive_utc()
    } else {
        t.with_timezone(&Local).naive_local()
    }
}

fn millis(t: &DateTime<Utc>) -> u32 {
    t.timestamp_subsec_micros() / 1000
}

/// The date of an event's header line, without the space that follows it.
pub(crate) fn format_header_time(out: &mut String, t: &DateTime<Utc>, fmt: &LogFormat) {
    use std::fmt::Write;
    let b = broken_down(t, fmt.utc);
    if fmt.iso_date {
        let _ = write!(
            out,
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            b.year(),
            b.month(),
            b.day(),
            b.hour(),
            b.minute(),
            b.second()
        );
    } else {
        let _ = write!(
            out,
            "{:02}/{:02} {:02}:{:02}:{:02}",
            b.month(),
            b.day(),
            b.hour(),
            b.minute(),
            b.second()
        );
    }
    if fmt.sub_second {
        let _ = write!(out, ".{:03}", millis(t));
    }
    if fmt.utc {
        out.push('Z');
    }
}

/// The `EventTime` of the ClassAd forms: `2024-01-31T12:00:00`, with `.mmm` when the time
/// has a fraction of a second and `Z` when written in UTC.
pub(crate) fn format_event_time(t: &DateTime<Utc>, utc: bool) -> String {
    let b = broken_down(t, utc);
    let mut s = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        b.year().clamp(0, 9999),
        b.month(),
        b.day(),
        b.hour(),
        b.minute(),
        b.second()
    );
    if t.timestamp_subsec_micros() != 0 {
        s.push_str(&format!(".{:03}", millis(t)));
    }
    if utc {
        s.push('Z');
    }
    s
}

/// Turns broken-down fields into a time, normalising out-of-range days and hours forward as
/// `mktime` does (`02/29` of a year without one is March 1st).
fn from_fields(
    year: i32,
    month: u32,
    day: i64,
    hms: (i64, i64, i64),
    micros: i64,
    utc: bool,
) -> Option<DateTime<Utc>> {
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let naive = first.and_hms_opt(0, 0, 0)?
        + Duration::days(day - 1)
        + Duration::hours(hms.0)
        + Duration::minutes(hms.1)
        + Duration::seconds(hms.2)
        + Duration::microseconds(micros);
    if utc {
        return Some(naive.and_utc());
    }
    // A local time that a daylight-saving change skips is taken an hour later; one that
    // happens twice is the earlier.
    Local
        .from_local_datetime(&naive)
        .earliest()
        .or_else(|| {
            Local
                .from_local_datetime(&(naive + Duration::hours(1)))
                .earliest()
        })
        .map(|t| t.with_timezone(&Utc))
}

/// Reads exactly `n` ASCII digits.
fn digits(s: &str, n: usize) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if b.len() < n || !b[..n].iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}

fn expect(s: &str, c: char) -> Option<&str> {
    s.strip_prefix(c)
}

/// `HH:MM:SS[.fraction][Z]`: hours, minutes, seconds, microseconds, UTC, and what follows.
type TimeOfDay<'a> = ((i64, i64, i64), i64, bool, &'a str);

fn time_of_day(s: &str) -> Option<TimeOfDay<'_>> {
    let (h, s) = digits(s, 2)?;
    let (m, s) = digits(expect(s, ':')?, 2)?;
    let (sec, mut s) = digits(expect(s, ':')?, 2)?;
    let mut micros = 0;
    if let Some(rest) = s.strip_prefix('.') {
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        let frac = &rest[..n];
        // More than six digits is more than the reference reads: it takes none of them.
        if n <= 6 {
            micros = frac.parse::<i64>().unwrap_or(0) * 10_i64.pow(6 - n as u32);
        }
        s = &rest[n..];
    }
    let utc = s.starts_with(['Z', 'z']);
    if utc {
        s = &s[1..];
    }
    Some(((h, m, sec), micros, utc, s))
}

/// The reference rejects months past 12, days past 32 and hours past 24; it normalises the
/// rest.
fn plausible(month: i64, day: i64, hour: i64) -> bool {
    (1..=12).contains(&month) && (0..=32).contains(&day) && (0..=24).contains(&hour)
}

/// Parses the date of a header line (what follows `(cluster.proc.subproc) `): ISO
/// `2024-01-31 12:00:00`, legacy `01/31 12:00:00`, or `2024-01-31T12:00:00`, each with an
/// optional fraction and `Z`. Returns the time and the text after the space that ends the date.
pub(crate) fn parse_header_time(
    s: &str,
    legacy_year: Option<i32>,
) -> Result<(DateTime<Utc>, &str), String> {
    let bad = || format!("expected a date like 2024-01-31 12:00:00 or 01/31 12:00:00, found {s:?}");
    let (year, month, day, rest) = if s.as_bytes().get(2) == Some(&b'/') {
        let (month, r) = digits(s, 2).ok_or_else(bad)?;
        let (day, r) = digits(expect(r, '/').ok_or_else(bad)?, 2).ok_or_else(bad)?;
        let year = legacy_year.unwrap_or_else(|| Local::now().year());
        (year, month, day, expect(r, ' ').ok_or_else(bad)?)
    } else {
        let (year, r) = digits(s, 4).ok_or_else(bad)?;
        let (month, r) = digits(expect(r, '-').ok_or_else(bad)?, 2).ok_or_else(bad)?;
        let (day, r) = digits(expect(r, '-').ok_or_else(bad)?, 2).ok_or_else(bad)?;
        let r = r.strip_prefix([' ', 'T']).ok_or_else(bad)?;
        (year as i32, month, day, r)
    };
    let (hms, micros, utc, rest) = time_of_day(rest).ok_or_else(bad)?;
    let rest = rest
        .strip_prefix(' ')
        .ok_or_else(|| format!("expected a space after the date, found {rest:?}"))?;
    if !plausible(month, day, hms.0) {
        return Err(format!("impossible date in {s:?}"));
    }
    let t = from_fields(year, month as u32, day, hms, micros, utc)
        .ok_or_else(|| format!("impossible date in {s:?}"))?;
    Ok((t, rest))
}

/// Parses an `EventTime`: `2024-01-31T12:00:00[.mmm][Z]`.
pub(crate) fn parse_event_time(s: &str) -> Result<DateTime<Utc>, String> {
    let bad = || format!("expected an ISO 8601 time like 2024-01-31T12:00:00, found {s:?}");
    let (year, r) = digits(s, 4).ok_or_else(bad)?;
    let (month, r) = digits(expect(r, '-').ok_or_else(bad)?, 2).ok_or_else(bad)?;
    let (day, r) = digits(expect(r, '-').ok_or_else(bad)?, 2).ok_or_else(bad)?;
    let r = r.strip_prefix(['T', ' ']).ok_or_else(bad)?;
    let (hms, micros, utc, rest) = time_of_day(r).ok_or_else(bad)?;
    if !rest.is_empty() || !plausible(month, day, hms.0) {
        return Err(bad());
    }
    from_fields(year as i32, month as u32, day, hms, micros, utc).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn header(t: &DateTime<Utc>, opts: &str) -> String {
        let mut s = String::new();
        format_header_time(&mut s, t, &LogFormat::from_options(opts));
        s
    }

    #[test]
    fn header_dates_in_every_option() {
        let t = utc("2024-01-31T12:34:56.789Z");
        assert_eq!(header(&t, "ISO_DATE UTC"), "2024-01-31 12:34:56Z");
        assert_eq!(header(&t, "UTC SUB_SECOND"), "2024-01-31 12:34:56.789Z");
        assert_eq!(header(&t, "LEGACY,UTC"), "01/31 12:34:56Z");
        assert_eq!(
            header(&t, "!ISO_DATE,UTC,SUB_SECOND"),
            "01/31 12:34:56.789Z"
        );
        let local = t.with_timezone(&Local).naive_local();
        assert_eq!(
            header(&t, ""),
            local.format("%Y-%m-%d %H:%M:%S").to_string()
        );
    }

    #[test]
    fn header_dates_read_back() {
        let (t, rest) = parse_header_time("2024-01-31 12:34:56.789Z Job", None).unwrap();
        assert_eq!(t, utc("2024-01-31T12:34:56.789Z"));
        assert_eq!(rest, "Job");
        let (t, _) = parse_header_time("01/31 12:34:56Z x", Some(2023)).unwrap();
        assert_eq!(t, utc("2023-01-31T12:34:56Z"));
        let (t, rest) = parse_header_time("2024-01-31T12:34:56Z ", None).unwrap();
        assert_eq!((t, rest), (utc("2024-01-31T12:34:56Z"), ""));
        // Seven digits of fraction are more than the reference reads.
        let (t, _) = parse_header_time("2024-01-31 12:34:56.1234567Z x", None).unwrap();
        assert_eq!(t, utc("2024-01-31T12:34:56Z"));
        // Leap day in a year without one rolls over, as mktime does.
        let (t, _) = parse_header_time("02/29 00:00:00Z x", Some(2023)).unwrap();
        assert_eq!(t, utc("2023-03-01T00:00:00Z"));
        let local = parse_header_time("2024-07-01 08:00:00 x", None).unwrap().0;
        assert_eq!(
            local.with_timezone(&Local).naive_local().to_string(),
            "2024-07-01 08:00:00"
        );
        for bad in [
            "2024-01-31",
            "13/01 00:00:00 x",
            "2024-01-31 12:34:56",
            "garbage here",
        ] {
            assert!(parse_header_time(bad, None).is_err(), "{bad}");
        }
    }

    #[test]
    fn event_times_as_iso_8601() {
        let t = utc("2024-01-31T12:34:56.789Z");
        assert_eq!(format_event_time(&t, true), "2024-01-31T12:34:56.789Z");
        assert_eq!(
            format_event_time(&utc("2024-01-31T12:34:56Z"), true),
            "2024-01-31T12:34:56Z"
        );
        assert_eq!(parse_event_time("2024-01-31T12:34:56.789Z").unwrap(), t);
        let local = parse_event_time("2024-01-31T12:34:56").unwrap();
        assert_eq!(format_event_time(&local, false), "2024-01-31T12:34:56");
        assert!(parse_event_time("2024-01-31T12:34").is_err());
    }
}
