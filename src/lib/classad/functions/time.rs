//! Time: absolute and relative time literals and their printing, the clock,
//! and the time functions (`time`, `currentTime`, `timeZoneOffset`,
//! `dayTime`, `absTime`, `relTime`, `get*`, `splitTime`, `formatTime`,
//! `interval`).
//!
//! "Local time" is the process's zone (`TZ`, else /etc/localtime), as the
//! reference's `localtime_r`; the offsets come from chrono, the calendar
//! arithmetic is our own so that any 64-bit time works.
//!
//! A quirk worth knowing: libclassad keeps relative times as doubles but
//! reads them back through a C `int` almost everywhere (printing a value,
//! `int()`, `real()`, `getSeconds()`, ...), so `relTime(1.5)` prints as
//! `relTime("01")`. [`reltime_to_string`] does that truncation;
//! [`reltime_to_string_exact`] is the printer of a parsed `relTime("1.5")`
//! literal. Such a literal also *evaluates to a real* in the reference;
//! [`reltime_literal`] builds the node the parser should use for it.

use chrono::{Offset, TimeZone};

use super::super::ad::ClassAd;
use super::super::ast::{Expr, FnCall};
use super::super::eval::{Eval, Frame};
use super::super::unparse::fmt_g;
use super::super::value::{AbsTime, Value};
use super::cnum::{self, double_to_int, reltime_secs};
use super::strftime::{strftime, Tm};
use super::{as_c_int, to_int_value};

/// Seconds since the epoch, now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The local zone's offset east of UTC at `secs` (libclassad's
/// `timezone_offset(secs, false)`); 0 where the zone cannot say.
pub fn local_offset(secs: i64) -> i32 {
    chrono::Local
        .timestamp_opt(secs, 0)
        .single()
        .map_or(0, |dt| dt.offset().fix().local_minus_utc())
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month 1-12, day 1-31) of a day number.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// `gmtime_r`.
pub fn gmtime(secs: i64) -> Tm {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let yday = days - days_from_civil(y, 1, 1);
    Tm {
        sec: (rem % 60) as i32,
        min: (rem / 60 % 60) as i32,
        hour: (rem / 3600) as i32,
        mday: d as i32,
        mon: (m - 1) as i32,
        year: (y - 1900) as i32,
        wday: (days + 4).rem_euclid(7) as i32,
        yday: yday as i32,
        gmtoff: 0,
        zone: None,
    }
}

/// `localtime_r`, with the zone's offset (but no name: strftime's `%Z`
/// falls back to the zone's standard name).
pub fn localtime(secs: i64) -> Tm {
    let off = local_offset(secs);
    let mut tm = gmtime(secs.wrapping_add(off as i64));
    tm.gmtoff = off as i64;
    tm
}

/// `timegm` of broken-down fields, normalizing out-of-range ones as
/// `mktime` does (month 13 is January of the next year, day 0 the last day
/// of the previous month).
pub fn timegm(year: i64, mon0: i64, mday: i64, hour: i64, min: i64, sec: i64) -> i64 {
    let y = year + mon0.div_euclid(12);
    let m = mon0.rem_euclid(12) + 1;
    let days = days_from_civil(y, m, 1) + mday - 1;
    days * 86_400 + hour * 3600 + min * 60 + sec
}

/// libclassad's `fixed_from_gregorian` (C `int` arithmetic).
fn fixed_from_gregorian(year: i32, month: i32, day: i32) -> i32 {
    let adj = if month <= 2 {
        0
    } else if is_leap(year as i64) {
        -1
    } else {
        -2
    };
    let y1 = year.wrapping_sub(1);
    365i32
        .wrapping_mul(y1)
        .wrapping_add(y1 / 4)
        .wrapping_sub(y1 / 100)
        .wrapping_add(y1 / 400)
        .wrapping_add(367i32.wrapping_mul(month).wrapping_sub(362) / 12)
        .wrapping_add(adj)
        .wrapping_add(day)
}

/// libclassad's `day_numbers`: (weekday, day of year) of a date.
fn day_numbers(year: i32, month: i32, day: i32) -> (i32, i32) {
    let fixed = fixed_from_gregorian(year, month, day);
    let jan1 = fixed_from_gregorian(year, 1, 1);
    (fixed % 7, fixed.wrapping_sub(jan1))
}

// ----- literals -----

/// C's `atoi` of a few ASCII bytes.
fn digits(s: &[u8]) -> i32 {
    cnum::strtol(s).0 as i32
}

/// libclassad's `extractTimeZone`: a trailing `+hhmm`/`-hhmm`, removed.
fn extract_time_zone(t: &mut Vec<u8>) -> Option<(i32, i32)> {
    let len = t.len();
    if len < 5 {
        return None;
    }
    let off = &t[len - 5..];
    if (off[0] == b'+' || off[0] == b'-') && off[1..].iter().all(u8::is_ascii_digit) {
        let sign = if off[0] == b'+' { 1 } else { -1 };
        let (h, m) = (sign * digits(&off[1..3]), sign * digits(&off[3..5]));
        t.truncate(len - 5);
        Some((h, m))
    } else {
        None
    }
}

/// Parses an `absTime("...")` literal's text (libclassad's `MakeAbsTime`):
/// digits picked out as `YYYY[MM[DD[hh[mm[ss]]]]]` with any non-digits
/// between them, then an optional `Z`, `+hh:mm`, `-hhmm`... zone; without a
/// zone, the local one. `None` when it is not one.
pub fn parse_abstime(s: &str) -> Option<AbsTime> {
    let mut t = s.as_bytes().to_vec();
    let len = t.len();
    let mut zone = None;
    let last = t.iter().rposition(|&b| !cnum::is_c_space(b));
    match last {
        Some(i) if i > 0 && (t[i] == b'z' || t[i] == b'Z') => {
            t.remove(i);
            zone = Some((0, 0));
        }
        _ if len > 5 && (t[len - 5] == b'+' || t[len - 5] == b'-') => {
            zone = extract_time_zone(&mut t)
        }
        _ if len > 6 && (t[len - 6] == b'+' || t[len - 6] == b'-') && t[len - 3] == b':' => {
            t.remove(len - 3);
            zone = extract_time_zone(&mut t);
        }
        _ => {}
    }
    let len = t.len();
    let mut i = 0;
    let next_digit = |i: &mut usize| {
        while *i < len && !t[*i].is_ascii_digit() {
            *i += 1;
        }
    };
    next_digit(&mut i);
    if i + 4 > len {
        return None;
    }
    let year = digits(&t[i..i + 4]) as i64;
    i += 4;
    // Month, day, hour, minute, second; an absent month is January (tm_mon
    // 0) and an absent day is day 0.
    let mut fields = [1i64, 0, 0, 0, 0];
    for field in fields.iter_mut() {
        next_digit(&mut i);
        if i + 2 <= len {
            *field = digits(&t[i..i + 2]) as i64;
            i += 2;
        }
    }
    next_digit(&mut i);
    if i < len && t[i].is_ascii_digit() {
        return None;
    }
    let [mon, mday, hour, min, sec] = fields;
    // mktime() of the fields as local time, then shifted back by the zone's
    // offset: the fields as UTC. The reference treats mktime's -1 as failure.
    let secs = timegm(year, mon - 1, mday, hour, min, sec);
    let mk = secs - local_offset(secs) as i64;
    if mk == -1 {
        return None;
    }
    let offset = match zone {
        Some((h, m)) => h.wrapping_mul(3600).wrapping_add(m.wrapping_mul(60)),
        None => local_offset(mk),
    };
    if offset == -1 {
        return None;
    }
    Some(AbsTime {
        secs: secs - offset as i64,
        offset,
    })
}

/// Parses a `relTime("...")` literal's text (libclassad's `MakeRelTime`):
/// `[-][days+|d][hh:|h][mm:|m]ss[.frac][s]`, read from the right. `None`
/// when it is not one.
pub fn parse_reltime(s: &str) -> Option<f64> {
    let t = s.as_bytes();
    // Positions count from 1 so that 0 means "before the start".
    let mut i = t.len();
    let at = |i: usize| if i > 0 { t[i - 1] } else { 0 };
    let skip_space = |i: &mut usize| {
        while *i > 0 && cnum::is_c_space(t[*i - 1]) {
            *i -= 1;
        }
    };
    // Moves left over the digits ending at `i`; they are `t[i..end]` after.
    let digits_back = |i: &mut usize| {
        while *i > 0 && t[*i - 1].is_ascii_digit() {
            *i -= 1;
        }
    };
    // A field before one of its marks, as `from_chars` reads an int: 0 when
    // empty or out of range.
    let part = |i: &mut usize, marks: &[u8]| -> i32 {
        skip_space(i);
        if *i > 0 && marks.contains(&at(*i)) {
            *i -= 1;
            skip_space(i);
            let end = *i;
            digits_back(i);
            std::str::from_utf8(&t[*i..end])
                .ok()
                .and_then(|d| d.parse().ok())
                .unwrap_or(0)
        } else {
            0
        }
    };

    skip_space(&mut i);
    let mut secs = 0.0;
    let c = at(i);
    if i > 0 && (c == b's' || c == b'S' || c.is_ascii_digit()) {
        if c == b's' || c == b'S' {
            i -= 1;
        }
        skip_space(&mut i);
        let end = i;
        digits_back(&mut i);
        if i > 0 && at(i) == b'.' {
            i -= 1;
            digits_back(&mut i);
        }
        secs = cnum::strtod(&t[i..end]).0;
    }
    let mins = part(&mut i, b"mM:");
    let hrs = part(&mut i, b"hH:");
    let days = part(&mut i, b"dD+");
    skip_space(&mut i);
    let negative = i > 0 && at(i) == b'-';
    if negative {
        i -= 1;
    }
    skip_space(&mut i);
    if i > 0 {
        return None;
    }
    let whole = days
        .wrapping_mul(86_400)
        .wrapping_add(hrs.wrapping_mul(3600))
        .wrapping_add(mins.wrapping_mul(60));
    let r = whole as f64 + secs;
    Some(if negative { -r } else { r })
}

/// What the parser should make of `relTime("...")` with a string literal
/// that [`parse_reltime`] accepted: libclassad folds it into a
/// `ReltimeLiteral`, which prints as `relTime("01:00")` but — a reference
/// quirk — *evaluates to a real*, not a relative time. This node does both:
/// a call of `relTime` on the canonical text, whose implementation reads
/// the text back as a real number of seconds.
pub fn reltime_literal(secs: f64) -> Expr {
    Expr::Call(Box::new(FnCall {
        name: std::sync::Arc::from("relTime"),
        builtin: Some(reltime_literal_value),
        args: vec![Expr::Lit(Value::string(reltime_to_string_exact(secs)))],
    }))
}

fn reltime_literal_value(args: &[Expr], _cx: &mut Eval<'_>, _f: &Frame) -> Value {
    match args.first().and_then(Expr::as_literal) {
        Some(Value::Str(s)) => parse_reltime(s).map_or(Value::Error, Value::Real),
        _ => Value::Error,
    }
}

/// libclassad's `absTimeToString`: `YYYY-MM-DDThh:mm:ss+hh:mm`, in the
/// time's own zone (a zero offset prints as `-00:00`).
pub fn abstime_to_string(t: AbsTime) -> String {
    let tm = gmtime(t.secs.wrapping_add(t.offset as i64));
    let mut out = strftime("%Y-%m-%dT%H:%M:%S", &tm);
    let (sign, off) = if t.offset > 0 {
        ('+', t.offset as i64)
    } else {
        ('-', -(t.offset as i64))
    };
    out.push_str(&format!("{sign}{:02}:{:02}", off / 3600, (off / 60) % 60));
    out
}

/// How a relative-time *value* prints: libclassad's `relTimeToString` of
/// the value read through a C `int` (see the module comment).
pub fn reltime_to_string(r: f64) -> String {
    reltime_to_string_exact(reltime_secs(r) as f64)
}

/// libclassad's `relTimeToString`: `[-][days+]hh:mm:ss`, leading zero
/// fields dropped, fractional seconds as `%g`.
pub fn reltime_to_string_exact(r: f64) -> String {
    let mut out = String::new();
    let mut r = r;
    if r < 0.0 {
        out.push('-');
        r = -r;
    }
    let frac = r - r.floor();
    let total = double_to_int(r);
    let days = total / 86_400;
    let hrs = total % 86_400 / 3600;
    let mins = total % 3600 / 60;
    let secs = (total % 60) as f64 + frac;
    let s = if frac == 0.0 {
        format!("{:02}", secs as i32)
    } else {
        format!("{:0>2}", fmt_g(secs, 6, false))
    };
    if days != 0 {
        out.push_str(&format!("{days}+{hrs:02}:{mins:02}:{s}"));
    } else if hrs != 0 {
        out.push_str(&format!("{hrs:02}:{mins:02}:{s}"));
    } else if mins != 0 {
        out.push_str(&format!("{mins:02}:{s}"));
    } else {
        out.push_str(&s);
    }
    out
}

// ----- the clock -----

pub fn epoch_time(args: &[Expr], _cx: &mut Eval<'_>, _f: &Frame) -> Value {
    if args.is_empty() {
        Value::Int(now())
    } else {
        Value::Error
    }
}

fn current_abstime() -> Value {
    let now = now();
    Value::AbsTime(AbsTime {
        secs: now,
        offset: local_offset(now),
    })
}

pub fn current_time(args: &[Expr], _cx: &mut Eval<'_>, _f: &Frame) -> Value {
    if args.is_empty() {
        current_abstime()
    } else {
        Value::Error
    }
}

pub fn time_zone_offset(args: &[Expr], _cx: &mut Eval<'_>, _f: &Frame) -> Value {
    if args.is_empty() {
        Value::RelTime(local_offset(now()) as f64)
    } else {
        Value::Error
    }
}

/// `dayTime()`: the seconds since local midnight, as a relative time.
pub fn day_time(args: &[Expr], _cx: &mut Eval<'_>, _f: &Frame) -> Value {
    if !args.is_empty() {
        return Value::Error;
    }
    let tm = localtime(now());
    Value::RelTime((tm.hour * 3600 + tm.min * 60 + tm.sec) as f64)
}

// ----- absTime / relTime -----

/// `absTime(x [, offset])` and `relTime(x)` at run time (string literals
/// were already turned into time literals by the parser).
fn conv_time(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, relative: bool) -> Value {
    if args.is_empty() && !relative {
        return current_abstime();
    }
    if args.is_empty() || args.len() > 2 {
        return Value::Error;
    }
    let arg = cx.eval(&args[0], f);
    let offset = if args.len() == 2 {
        let second = cx.eval(&args[1], f);
        if relative {
            return Value::Error;
        }
        match second {
            Value::Int(i) => Some(i as i32),
            Value::Real(r) => Some(double_to_int(r)),
            Value::RelTime(r) => Some(double_to_int(r)),
            _ => return Value::Error,
        }
    } else {
        None
    };
    let abs = |secs: i64| AbsTime {
        secs,
        offset: offset.unwrap_or_else(|| local_offset(secs)),
    };
    match arg {
        Value::Undefined => Value::Undefined,
        Value::Int(i) => {
            let i = i as i32;
            if relative {
                return Value::RelTime(i as f64);
            }
            let t = abs(i as i64);
            if t.offset == -1 {
                return cx.fail();
            }
            Value::AbsTime(t)
        }
        Value::Real(r) => {
            if relative {
                Value::RelTime(r)
            } else {
                Value::AbsTime(abs(double_to_int(r) as i64))
            }
        }
        // A string that was not a literal: the reference falls through to
        // the absolute-time case, which copies it (absTime) or reads 0
        // seconds out of it (relTime).
        Value::Str(_) if relative => Value::RelTime(0.0),
        Value::Str(_) => arg,
        Value::AbsTime(t) => {
            if relative {
                Value::RelTime(t.secs as f64)
            } else {
                arg
            }
        }
        Value::RelTime(r) => {
            if relative {
                arg
            } else {
                Value::AbsTime(abs(reltime_secs(r)))
            }
        }
        _ => Value::Error,
    }
}

pub fn abs_time(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    conv_time(args, cx, f, false)
}

pub fn rel_time(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    conv_time(args, cx, f, true)
}

// ----- fields -----

#[derive(Clone, Copy, PartialEq)]
enum Field {
    Year,
    Month,
    DayOfYear,
    DayOfMonth,
    DayOfWeek,
    Days,
    Hours,
    Minutes,
    Seconds,
}

/// The `get*` functions: calendar fields of an absolute time (in local
/// time, whatever the time's own zone), duration fields of a relative one.
fn get_field(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, field: Field) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    match cx.eval(&args[0], f) {
        Value::AbsTime(t) => {
            let tm = localtime(t.secs);
            Value::Int(match field {
                Field::Year => tm.year as i64 + 1900,
                Field::Month => tm.mon as i64 + 1,
                Field::DayOfYear => tm.yday as i64,
                Field::DayOfMonth => tm.mday as i64,
                Field::DayOfWeek => tm.wday as i64,
                Field::Hours => tm.hour as i64,
                Field::Minutes => tm.min as i64,
                Field::Seconds => tm.sec as i64,
                Field::Days => return Value::Error,
            })
        }
        Value::RelTime(r) => {
            let s = reltime_secs(r);
            Value::Int(match field {
                Field::Days => s / 86_400,
                Field::Hours => s % 86_400 / 3600,
                Field::Minutes => s % 3600 / 60,
                Field::Seconds => s % 60,
                _ => return Value::Error,
            })
        }
        _ => Value::Error,
    }
}

pub fn get_year(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    get_field(a, cx, f, Field::Year)
}

pub fn get_month(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    get_field(a, cx, f, Field::Month)
}

pub fn get_day_of_year(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    get_field(a, cx, f, Field::DayOfYear)
}

pub fn get_day_of_month(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    get_field(a, cx, f, Field::DayOfMonth)
}

pub fn get_day_of_week(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    get_field(a, cx, f, Field::DayOfWeek)
}

pub fn get_days(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    get_field(a, cx, f, Field::Days)
}

pub fn get_hours(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    get_field(a, cx, f, Field::Hours)
}

pub fn get_minutes(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    get_field(a, cx, f, Field::Minutes)
}

pub fn get_seconds(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    get_field(a, cx, f, Field::Seconds)
}

// ----- splitTime / formatTime -----

fn int_lit(i: i64) -> Expr {
    Expr::Lit(Value::Int(i))
}

/// The ad `splitTime` makes of an absolute time (fields in its own zone).
fn split_abstime(t: AbsTime) -> ClassAd {
    let tm = gmtime(t.secs.wrapping_add(t.offset as i64));
    let mut ad = ClassAd::new();
    ad.insert("Type", Expr::Lit(Value::str("AbsoluteTime")));
    ad.insert("Year", int_lit(tm.year as i64 + 1900));
    ad.insert("Month", int_lit(tm.mon as i64 + 1));
    ad.insert("Day", int_lit(tm.mday as i64));
    ad.insert("Hours", int_lit(tm.hour as i64));
    ad.insert("Minutes", int_lit(tm.min as i64));
    ad.insert("Seconds", int_lit(tm.sec as i64));
    ad.insert("Offset", int_lit(t.offset as i64));
    ad
}

/// The ad `splitTime` makes of a relative time: the sign goes on the first
/// non-zero field; seconds keep their fraction.
fn split_reltime(r: f64) -> ClassAd {
    let neg = r < 0.0;
    let r = r.abs();
    let total = double_to_int(r);
    let mut days = total / 86_400;
    let mut hrs = total % 86_400 / 3600;
    let mut mins = total % 3600 / 60;
    let mut secs = (total % 60) as f64 + (r - r.floor());
    if neg {
        if days > 0 {
            days = -days;
        } else if hrs > 0 {
            hrs = -hrs;
        } else if mins > 0 {
            mins = -mins;
        } else {
            secs = -secs;
        }
    }
    let mut ad = ClassAd::new();
    ad.insert("Type", Expr::Lit(Value::str("RelativeTime")));
    ad.insert("Days", int_lit(days as i64));
    ad.insert("Hours", int_lit(hrs as i64));
    ad.insert("Minutes", int_lit(mins as i64));
    ad.insert("Seconds", Expr::Lit(Value::Real(secs)));
    ad
}

/// libclassad's `doSplitTime` for the non-ad cases: numbers are absolute
/// times (through a C `int`) in the local zone.
fn split_value(v: &Value) -> Option<ClassAd> {
    let local = |secs: i64| AbsTime {
        secs,
        offset: local_offset(secs),
    };
    match v {
        Value::Int(i) => Some(split_abstime(local(*i as i32 as i64))),
        Value::Real(r) => Some(split_abstime(local(double_to_int(*r) as i64))),
        Value::AbsTime(t) => Some(split_abstime(*t)),
        Value::RelTime(r) => Some(split_reltime(*r)),
        _ => None,
    }
}

/// `splitTime(t)`: an ad of the time's fields.
pub fn split_time(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    match cx.eval(&args[0], f) {
        Value::Undefined => Value::Undefined,
        v => match split_value(&v) {
            Some(ad) => Value::Ad(Frame::detached(ad)),
            None => Value::Error,
        },
    }
}

/// `formatTime([t [, format]])`: `strftime` of the time's fields (local
/// time for numbers, the time's own zone for absolute times, or the fields
/// of a `splitTime`-style ad); the format defaults to `%c`.
pub fn format_time(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.is_empty() {
        return Value::string(strftime("%c", &localtime(now())));
    }
    if args.len() > 2 {
        return Value::Error;
    }
    let t = cx.eval(&args[0], f);
    let (ad_frame, ad);
    match &t {
        Value::RelTime(_) => return Value::Error,
        Value::Ad(af) => {
            ad_frame = af.clone();
            ad = None;
        }
        other => match split_value(other) {
            Some(a) => {
                ad_frame = Frame::detached(ClassAd::new());
                ad = Some(a);
            }
            None => return Value::Error,
        },
    }
    // `EvaluateAttrInt`: integer attributes only, missing ones are 0.
    let mut field = |name: &str| -> Option<i32> {
        match &ad {
            Some(a) => a.lookup(name).and_then(|e| as_c_int(e.as_literal()?)),
            None => {
                let e = cx.frame_ad(&ad_frame).lookup(name)?.clone();
                as_c_int(&cx.eval(&e, &ad_frame))
            }
        }
    };
    let sec = field("Seconds").unwrap_or(0);
    let min = field("Minutes").unwrap_or(0);
    let hour = field("Hours").unwrap_or(0);
    let mday = field("Day").unwrap_or(0);
    let mon = field("Month").map_or(0, |m| m.wrapping_sub(1));
    let year = field("Year").map_or(0, |y| y.wrapping_sub(1900));
    let (wday, yday) = day_numbers(year.wrapping_add(1900), mon.wrapping_add(1), mday);
    let tm = Tm {
        sec,
        min,
        hour,
        mday,
        mon,
        year,
        wday,
        yday,
        gmtoff: 0,
        zone: None,
    };
    let format = if args.len() == 2 {
        match cx.eval(&args[1], f) {
            Value::Str(s) => s,
            _ => return Value::Error,
        }
    } else {
        "%c".into()
    };
    Value::string(strftime(&format, &tm))
}

/// `interval(secs)`: `[days+]hh:mm:ss` with leading zero fields dropped
/// (and no padding on the first field).
pub fn interval(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    let v = cx.eval(&args[0], f);
    let Value::Int(total) = to_int_value(&v) else {
        return Value::Error;
    };
    let mut t = total as i32;
    let days = t / 86_400;
    t %= 86_400;
    let hours = t / 3600;
    t %= 3600;
    let (min, secs) = (t / 60, t % 60);
    Value::string(if days != 0 {
        format!(
            "{days}+{:02}:{:02}:{:02}",
            hours.abs(),
            min.abs(),
            secs.abs()
        )
    } else if hours != 0 {
        format!("{hours}:{:02}:{:02}", min.abs(), secs.abs())
    } else if min != 0 {
        format!("{min}:{:02}", secs.abs())
    } else {
        format!("{secs}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Option<(i64, i32)> {
        parse_abstime(s).map(|t| (t.secs, t.offset))
    }

    #[test]
    fn absolute_time_literals_parse_as_the_reference_does() {
        // These assume the tests run in UTC, as the fixtures were made.
        if local_offset(0) != 0 || local_offset(1_700_000_000) != 0 {
            return;
        }
        assert_eq!(at("2024-01-02T03:04:05Z"), Some((1_704_164_645, 0)));
        assert_eq!(at("2024-01-02T03:04:05"), Some((1_704_164_645, 0)));
        assert_eq!(
            at("2024-01-02T03:04:05+05:30"),
            Some((1_704_164_645 - 19_800, 19_800))
        );
        assert_eq!(
            at("2024-01-02T03:04:05-0800"),
            Some((1_704_164_645 + 28_800, -28_800))
        );
        assert_eq!(at("2024-01-02"), Some((1_704_153_600, 0)));
        assert_eq!(at("20240102T030405Z"), Some((1_704_164_645, 0)));
        assert_eq!(at("bogus"), None);
        assert_eq!(at(""), None);
        assert_eq!(at("2024-01-02T03:04:05:06:07"), None);
        // Day 0 is the last day of the previous month, as mktime has it.
        assert_eq!(at("2024"), Some((1_703_980_800, 0)));
    }

    #[test]
    fn relative_time_literals_parse_from_the_right() {
        assert_eq!(parse_reltime("1+01:01:01"), Some(90_061.0));
        assert_eq!(parse_reltime("01:01:01"), Some(3661.0));
        assert_eq!(parse_reltime("5"), Some(5.0));
        assert_eq!(parse_reltime("1:2"), Some(62.0));
        assert_eq!(parse_reltime("-1+00:00:01"), Some(-86_401.0));
        assert_eq!(parse_reltime("1d"), Some(86_400.0));
        assert_eq!(parse_reltime("2h 3m 4s"), Some(7384.0));
        assert_eq!(parse_reltime("1+01:01:01.5"), Some(90_061.5));
        assert_eq!(parse_reltime(""), Some(0.0));
        assert_eq!(parse_reltime("bogus"), None);
        assert_eq!(parse_reltime("x5"), None);
    }

    #[test]
    fn times_print_as_the_reference_does() {
        assert_eq!(
            abstime_to_string(AbsTime { secs: 0, offset: 0 }),
            "1970-01-01T00:00:00-00:00"
        );
        assert_eq!(
            abstime_to_string(AbsTime {
                secs: -1,
                offset: 0
            }),
            "1969-12-31T23:59:59-00:00"
        );
        assert_eq!(
            abstime_to_string(AbsTime {
                secs: 1_700_000_000,
                offset: 3600
            }),
            "2023-11-14T23:13:20+01:00"
        );
        assert_eq!(
            abstime_to_string(AbsTime {
                secs: 1_700_000_000,
                offset: -18_000
            }),
            "2023-11-14T17:13:20-05:00"
        );
        assert_eq!(reltime_to_string(0.0), "00");
        assert_eq!(reltime_to_string(60.0), "01:00");
        assert_eq!(reltime_to_string(3661.0), "01:01:01");
        assert_eq!(reltime_to_string(90_061.0), "1+01:01:01");
        assert_eq!(reltime_to_string(-90_061.0), "-1+01:01:01");
        assert_eq!(reltime_to_string(-5.0), "-05");
        assert_eq!(reltime_to_string(61.75), "01:01");
        assert_eq!(reltime_to_string(1e9), "11574+01:46:40");
        assert_eq!(reltime_to_string_exact(1.5), "1.5");
        assert_eq!(reltime_to_string_exact(90_061.5), "1+01:01:1.5");
    }

    #[test]
    fn reltime_literals_print_as_reltimes_and_evaluate_to_reals() {
        let e = reltime_literal(90_061.5);
        assert_eq!(
            crate::classad::unparse::expr_to_string(&e),
            "relTime(\"1+01:01:1.5\")"
        );
        let v = crate::classad::eval::eval_expr(&e, None, None).unwrap();
        assert!(matches!(v, Value::Real(r) if r == 90_061.5));
    }

    #[test]
    fn calendar_arithmetic_round_trips() {
        for days in [-800_000i64, -1, 0, 1, 59, 365, 11_016, 19_675, 2_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        let tm = gmtime(1_700_000_000);
        assert_eq!(
            (tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.sec),
            (123, 10, 14, 22, 13, 20)
        );
        assert_eq!((tm.wday, tm.yday), (2, 317));
        assert_eq!(day_numbers(2023, 11, 14), (2, 317));
        assert_eq!(timegm(2001, 4, 4, 3, 2, 1), 988_945_321);
        assert_eq!(timegm(2024, 12, 0, 0, 0, 0), timegm(2024, 11, 31, 0, 0, 0));
    }
}
