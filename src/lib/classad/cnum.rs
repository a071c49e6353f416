//! C's numeric conversions as HTCondor gets them from glibc and x86-64, the one copy the
//! whole crate uses: `strtol` and `atoi` (saturating at the ends of `long`, then truncated
//! to `int`), `strtod` and `atof` (C locale), and the double-to-integer casts, which give the
//! "integer indefinite" value (the minimum integer) for NaN and for anything out of range
//! instead of saturating as Rust's `as` does.

/// `(long long) r` on x86-64.
pub fn double_to_ll(r: f64) -> i64 {
    // 2^63 is exactly representable; anything at or beyond it (or NaN) is
    // out of range.
    if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&r) {
        i64::MIN
    } else {
        r as i64
    }
}

/// `(int) r` on x86-64.
pub fn double_to_int(r: f64) -> i32 {
    if !(-2_147_483_649.0 < r && r < 2_147_483_648.0) {
        i32::MIN
    } else {
        r as i32
    }
}

/// The seconds libclassad reads out of a relative time almost everywhere
/// (`IsRelativeTimeValue(time_t&)` truncates through a C `int`).
pub fn reltime_secs(r: f64) -> i64 {
    double_to_int(r) as i64
}

/// C's `isspace` in the C locale.
pub fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Where a number starts after C's leading white space and an optional sign, and whether
/// the sign is `-`.
fn sign_prefix(s: &[u8]) -> (usize, bool) {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    match s.get(i) {
        Some(b'-') => (i + 1, true),
        Some(b'+') => (i + 1, false),
        _ => (i, false),
    }
}

/// C's `strtol(s, &end, 10)`: leading white space, an optional sign, digits; saturating at
/// the ends of `long` (as glibc does, with `ERANGE`). Returns the value and how many bytes
/// were used (0 when there are no digits: `end` is then `s` itself and the value 0).
pub fn strtol(s: &[u8]) -> (i64, usize) {
    let (mut i, negative) = sign_prefix(s);
    let start = i;
    let mut value: i64 = 0;
    let mut overflow = false;
    while i < s.len() && s[i].is_ascii_digit() {
        let d = i64::from(s[i] - b'0');
        let next = value.checked_mul(10).and_then(|v| {
            if negative {
                v.checked_sub(d)
            } else {
                v.checked_add(d)
            }
        });
        match next {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return (0, 0);
    }
    if overflow {
        value = if negative { i64::MIN } else { i64::MAX };
    }
    (value, i)
}

/// C's `atoi`: `(int) strtol(s, NULL, 10)` (a saturated `long` truncated to `int`).
pub fn atoi(s: &str) -> i32 {
    strtol(s.as_bytes()).0 as i32
}

/// C's `atof`: `strtod(s, NULL)`.
pub fn atof(s: &str) -> f64 {
    strtod(s.as_bytes()).0
}

/// glibc's `strtod` in the C locale: the value of the longest prefix of `s`
/// that is a floating-point number (after leading white space), and how
/// many bytes it used (0 when there is no number: the value is then 0).
pub fn strtod(s: &[u8]) -> (f64, usize) {
    let (i, neg) = sign_prefix(s);
    let sign = if neg { -1.0 } else { 1.0 };
    let rest = &s[i..];
    // inf / infinity / nan / nan(chars)
    if starts_with_ci(rest, b"inf") {
        let n = if starts_with_ci(rest, b"infinity") {
            8
        } else {
            3
        };
        return (sign * f64::INFINITY, i + n);
    }
    if starts_with_ci(rest, b"nan") {
        let mut n = 3;
        if rest.get(3) == Some(&b'(') {
            let mut j = 4;
            while j < rest.len() && (rest[j].is_ascii_alphanumeric() || rest[j] == b'_') {
                j += 1;
            }
            if rest.get(j) == Some(&b')') {
                n = j + 1;
            }
        }
        let nan = if neg { -f64::NAN } else { f64::NAN };
        return (nan, i + n);
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] == b'x' || rest[1] == b'X') {
        if let Some((v, n)) = hex_float(&rest[2..]) {
            return (sign * v, i + 2 + n);
        }
        // "0x" without hex digits: just the 0.
        return (sign * 0.0, i + 1);
    }
    // Decimal: digits [. digits] [e [sign] digits], at least one digit.
    let mut j = 0;
    let mut digits = 0;
    while j < rest.len() && rest[j].is_ascii_digit() {
        j += 1;
        digits += 1;
    }
    if j < rest.len() && rest[j] == b'.' {
        j += 1;
        while j < rest.len() && rest[j].is_ascii_digit() {
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return (0.0, 0);
    }
    if j < rest.len() && (rest[j] == b'e' || rest[j] == b'E') {
        let mut k = j + 1;
        if k < rest.len() && (rest[k] == b'+' || rest[k] == b'-') {
            k += 1;
        }
        if k < rest.len() && rest[k].is_ascii_digit() {
            while k < rest.len() && rest[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    // The prefix is ASCII, so this cannot fail; Rust's parser rounds
    // correctly and gives infinity on overflow as strtod does.
    let text = std::str::from_utf8(&rest[..j]).unwrap_or("0");
    let v: f64 = text.parse().unwrap_or(0.0);
    (sign * v, i + j)
}

fn starts_with_ci(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// The part of a hexadecimal float after `0x`: hex digits, an optional
/// point and fraction, an optional binary exponent. `None` without digits.
fn hex_float(s: &[u8]) -> Option<(f64, usize)> {
    let mut j = 0;
    let mut mant: f64 = 0.0;
    let mut digits = 0;
    let mut exp: i64 = 0;
    while j < s.len() && s[j].is_ascii_hexdigit() {
        mant = mant * 16.0 + hex_val(s[j]);
        j += 1;
        digits += 1;
    }
    if j < s.len() && s[j] == b'.' {
        j += 1;
        while j < s.len() && s[j].is_ascii_hexdigit() {
            mant = mant * 16.0 + hex_val(s[j]);
            exp -= 4;
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if j < s.len() && (s[j] == b'p' || s[j] == b'P') {
        let mut k = j + 1;
        let mut eneg = false;
        if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
            eneg = s[k] == b'-';
            k += 1;
        }
        if k < s.len() && s[k].is_ascii_digit() {
            let mut e: i64 = 0;
            while k < s.len() && s[k].is_ascii_digit() {
                e = (e * 10 + (s[k] - b'0') as i64).min(100_000);
                k += 1;
            }
            exp += if eneg { -e } else { e };
            j = k;
        }
    }
    Some((mant * 2f64.powi(exp.clamp(-2000, 2000) as i32), j))
}

fn hex_val(b: u8) -> f64 {
    (b as char).to_digit(16).unwrap_or(0) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtol_and_atoi_read_as_glibc_does() {
        assert_eq!(strtol(b"42"), (42, 2));
        assert_eq!(strtol(b"  -7x"), (-7, 4));
        assert_eq!(strtol(b"+3"), (3, 2));
        assert_eq!(strtol(b"-"), (0, 0));
        assert_eq!(strtol(b"x1"), (0, 0));
        assert_eq!(strtol(b"\t\n12 "), (12, 4));
        assert_eq!(strtol(b"99999999999999999999"), (i64::MAX, 20));
        assert_eq!(strtol(b"-99999999999999999999"), (i64::MIN, 21));
        assert_eq!(strtol(b"-9223372036854775808"), (i64::MIN, 20));
        assert_eq!(atoi("42abc"), 42);
        assert_eq!(atoi(""), 0);
        // (int) of the saturated long: LONG_MAX is -1 as an int, LONG_MIN is 0.
        assert_eq!(atoi("99999999999999999999"), -1);
        assert_eq!(atoi("-99999999999999999999"), 0);
        // A long that fits is truncated: 2^32 + 1 is 1.
        assert_eq!(atoi("4294967297"), 1);
        assert_eq!(atof(" 2.5e1x"), 25.0);
    }

    #[test]
    fn strtod_takes_the_longest_number_prefix() {
        assert_eq!(strtod(b"3.7"), (3.7, 3));
        assert_eq!(strtod(b"  -3.7x"), (-3.7, 6));
        assert_eq!(strtod(b"1e3"), (1000.0, 3));
        assert_eq!(strtod(b"1e"), (1.0, 1));
        assert_eq!(strtod(b"0x10"), (16.0, 4));
        assert_eq!(strtod(b"0xg"), (0.0, 1));
        assert_eq!(strtod(b"abc"), (0.0, 0));
        assert_eq!(strtod(b"  "), (0.0, 0));
        assert_eq!(strtod(b"."), (0.0, 0));
        assert_eq!(strtod(b".5"), (0.5, 2));
        assert_eq!(strtod(b"Infinity"), (f64::INFINITY, 8));
        assert_eq!(strtod(b"-inf"), (f64::NEG_INFINITY, 4));
        assert!(strtod(b"nan").0.is_nan());
        assert_eq!(strtod(b"1e400").0, f64::INFINITY);
        assert_eq!(strtod(b"1,5"), (1.0, 1));
    }

    #[test]
    fn casts_give_the_integer_indefinite_value() {
        assert_eq!(double_to_ll(1e300), i64::MIN);
        assert_eq!(double_to_ll(f64::NAN), i64::MIN);
        assert_eq!(double_to_ll(-1.9), -1);
        assert_eq!(double_to_int(3e9), i32::MIN);
        assert_eq!(double_to_int(-2147483648.5), -2147483648);
    }
}
