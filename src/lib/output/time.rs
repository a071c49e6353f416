//! Dates and durations as HTCondor's tools print them (src/condor_utils/format_time.cpp),
//! in the process's local time zone (`TZ`), as C's `localtime` has it.

use crate::classad::functions::time::localtime;

/// `format_date`: `month/day hour:minute`, 11 characters (` 1/31 12:00`); `    ???    ` for
/// a negative time.
pub fn format_date(t: i64) -> String {
    if t < 0 {
        return "    ???    ".to_owned();
    }
    let tm = localtime(t);
    format!(
        "{:2}/{:<2} {:02}:{:02}",
        tm.mon + 1,
        tm.mday,
        tm.hour,
        tm.min
    )
}

/// `format_time`: `days+hh:mm:ss`, the days right-aligned in 3 (`  0+00:00:13`). Negative
/// durations print as C's truncating division gives them.
pub fn format_time(secs: i64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let hours = rem / 3600;
    let rem = rem % 3600;
    format!("{days:3}+{hours:02}:{:02}:{:02}", rem / 60, rem % 60)
}

/// `format_time_nosecs`: `days+hh:mm`, the days right-aligned in 3 (`  1+00:00`);
/// `[?????]` for a negative duration.
pub fn format_time_nosecs(secs: i64) -> String {
    if secs < 0 {
        return "[?????]".into();
    }
    format!(
        "{:3}+{:02}:{:02}",
        secs / 86400,
        secs % 86400 / 3600,
        secs % 3600 / 60
    )
}

/// `strftime("%m/%d/%y %H:%M:%S", localtime(t))`, as `condor_q`'s title line shows the time.
pub fn title_time(t: i64) -> String {
    let tm = localtime(t);
    format!(
        "{:02}/{:02}/{:02} {:02}:{:02}:{:02}",
        tm.mon + 1,
        tm.mday,
        (tm.year + 1900).rem_euclid(100),
        tm.hour,
        tm.min,
        tm.sec
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(format_time(0), "  0+00:00:00");
        assert_eq!(format_time(13), "  0+00:00:13");
        assert_eq!(format_time(90_061), "  1+01:01:01");
        assert_eq!(format_time(1_000 * 86_400), "1000+00:00:00");
        assert_eq!(format_time(-1), "  0+00:00:-1");
    }

    #[test]
    fn negative_dates() {
        assert_eq!(format_date(-1), "    ???    ");
    }
}
