//! The little of C's `printf` that `$INT(x, fmt)`, `$REAL(x, fmt)` and `$STRING(x, fmt)` need:
//! a format with text around one conversion (`Area=%04d`), validated as HTCondor's
//! `parsePrintfFormat` validates it (only the first conversion is looked at).

use crate::classad::unparse::{fmt_e, fmt_g};

/// What kind of argument a conversion takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgType {
    Int,
    Float,
    Char,
    Str,
    /// `%p`, `%v`, `%r`, `%T` and letters printf does not know.
    Other,
}

/// One parsed conversion: `%[flags][width][.precision][length]letter`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Spec {
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
    long: bool,
    letter: char,
}

/// Parses the conversion starting at `s[0] == '%'`; returns it and its length, or `None` when
/// the text ends first.
fn parse_spec(s: &str) -> Option<(Spec, usize)> {
    let b = s.as_bytes();
    let mut i = 1;
    let mut spec = Spec::default();
    while let Some(&c) = b.get(i) {
        match c {
            b'#' => spec.alt = true,
            b'0' => spec.zero = true,
            b'-' => spec.left = true,
            b' ' => spec.space = true,
            b'+' => spec.plus = true,
            b'\'' => {}
            _ => break,
        }
        i += 1;
    }
    if b.get(i) == Some(&b'*') {
        i += 1;
    } else {
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        spec.width = s[start..i].parse().unwrap_or(0);
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if b.get(i) == Some(&b'*') {
            i += 1;
        } else {
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            spec.precision = Some(s[start..i].parse().unwrap_or(0));
        }
    }
    while let Some(&c) = b.get(i) {
        match c {
            b'l' | b'q' | b'j' | b'z' | b't' => spec.long = true,
            b'h' | b'L' => {}
            _ => break,
        }
        i += 1;
    }
    let letter = s[i..].chars().next()?;
    spec.letter = letter;
    Some((spec, i + letter.len_utf8()))
}

fn arg_type(letter: char) -> ArgType {
    match letter {
        'd' | 'i' | 'o' | 'u' | 'x' | 'X' | 'n' => ArgType::Int,
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => ArgType::Float,
        'c' | 'C' => ArgType::Char,
        's' | 'S' => ArgType::Str,
        _ => ArgType::Other,
    }
}

/// The argument type of the first conversion of `fmt`, or `None` if it has none.
pub fn first_conversion(fmt: &str) -> Option<ArgType> {
    let start = fmt.find('%')?;
    parse_spec(&fmt[start..]).map(|(spec, _)| arg_type(spec.letter))
}

/// An argument to format.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    Int(i64),
    Float(f64),
    Str(&'a str),
}

/// Formats `fmt` with one argument, as C's `snprintf` would for the first conversion. Further
/// conversions (for which C would read garbage) are copied as they are.
pub fn format(fmt: &str, arg: Arg<'_>) -> String {
    let mut out = String::new();
    let mut used = false;
    let mut rest = fmt;
    while let Some(pos) = rest.find('%') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        if rest.starts_with("%%") {
            out.push('%');
            rest = &rest[2..];
            continue;
        }
        match parse_spec(rest) {
            Some((spec, len)) if !used => {
                used = true;
                out.push_str(&convert(&spec, arg));
                rest = &rest[len..];
            }
            _ => {
                out.push('%');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn pad(spec: &Spec, sign: &str, digits: String, numeric: bool) -> String {
    let len = sign.len() + digits.chars().count();
    if len >= spec.width {
        return format!("{sign}{digits}");
    }
    let fill = spec.width - len;
    if spec.left {
        format!("{sign}{digits}{}", " ".repeat(fill))
    } else if spec.zero && numeric {
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{sign}{digits}", " ".repeat(fill))
    }
}

fn convert(spec: &Spec, arg: Arg<'_>) -> String {
    match arg_type(spec.letter) {
        ArgType::Int => {
            let v = match arg {
                Arg::Int(v) => v,
                Arg::Float(f) => f as i64,
                Arg::Str(_) => 0,
            };
            convert_int(spec, v)
        }
        ArgType::Float => {
            let v = match arg {
                Arg::Int(v) => v as f64,
                Arg::Float(f) => f,
                Arg::Str(_) => 0.0,
            };
            convert_float(spec, v)
        }
        ArgType::Str => {
            let s = match arg {
                Arg::Str(s) => s.to_owned(),
                Arg::Int(v) => v.to_string(),
                Arg::Float(f) => f.to_string(),
            };
            let s: String = match spec.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            };
            pad(spec, "", s, false)
        }
        ArgType::Char => {
            let c = match arg {
                Arg::Int(v) => char::from(v as u8).to_string(),
                Arg::Str(s) => s.chars().next().map(String::from).unwrap_or_default(),
                Arg::Float(_) => String::new(),
            };
            pad(spec, "", c, false)
        }
        ArgType::Other => String::new(),
    }
}

fn convert_int(spec: &Spec, v: i64) -> String {
    // Without a length modifier C reads an int, so only the low 32 bits count.
    let signed = if spec.long { v } else { i64::from(v as i32) };
    let unsigned = if spec.long {
        v as u64
    } else {
        u64::from(v as u32)
    };
    let (sign, mut digits) = match spec.letter {
        'd' | 'i' => {
            let sign = if signed < 0 {
                "-"
            } else if spec.plus {
                "+"
            } else if spec.space {
                " "
            } else {
                ""
            };
            (sign, signed.unsigned_abs().to_string())
        }
        'o' => ("", format!("{unsigned:o}")),
        'x' => ("", format!("{unsigned:x}")),
        'X' => ("", format!("{unsigned:X}")),
        _ => ("", unsigned.to_string()),
    };
    if let Some(p) = spec.precision {
        if digits == "0" && p == 0 {
            digits.clear();
        }
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
    let prefix = match spec.letter {
        'x' if spec.alt && unsigned != 0 => "0x",
        'X' if spec.alt && unsigned != 0 => "0X",
        'o' if spec.alt && !digits.starts_with('0') => "0",
        _ => "",
    };
    let sign = format!("{sign}{prefix}");
    let mut spec = spec.clone();
    if spec.precision.is_some() {
        spec.zero = false;
    }
    pad(&spec, &sign, digits, true)
}

fn convert_float(spec: &Spec, v: f64) -> String {
    let upper = spec.letter.is_ascii_uppercase();
    if !v.is_finite() {
        let text = match (v.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        let sign = if v.is_sign_negative() && !v.is_nan() {
            "-"
        } else if spec.plus {
            "+"
        } else if spec.space {
            " "
        } else {
            ""
        };
        return pad(spec, sign, text.to_owned(), false);
    }
    let p = spec.precision.unwrap_or(6);
    let a = v.abs();
    let mut digits = match spec.letter.to_ascii_lowercase() {
        'f' => format!("{a:.p$}"),
        'e' | 'a' => fmt_e(a, p, upper),
        _ => fmt_g(a, p, upper),
    };
    if spec.alt && !digits.contains('.') && !digits.contains(['e', 'E']) {
        digits.push('.');
    }
    let sign = if v.is_sign_negative() {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    pad(spec, sign, digits, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints() {
        assert_eq!(format("%04d", Arg::Int(12)), "0012");
        assert_eq!(format("Area=%d", Arg::Int(12)), "Area=12");
        assert_eq!(format("%lld", Arg::Int(-5_000_000_000)), "-5000000000");
        assert_eq!(format("%-4d|", Arg::Int(7)), "7   |");
        assert_eq!(format("%+d %% %x", Arg::Int(255)), "+255 % %x");
        assert_eq!(format("%#x", Arg::Int(255)), "0xff");
        assert_eq!(format("%.3d", Arg::Int(5)), "005");
    }

    #[test]
    fn floats() {
        assert_eq!(format("%.16G", Arg::Float(12.0)), "12");
        assert_eq!(format("%.16G", Arg::Float(1.0 / 3.0)), "0.3333333333333333");
        assert_eq!(format("%.3f", Arg::Float(12.0)), "12.000");
        assert_eq!(format("%g", Arg::Float(12.0)), "12");
        assert_eq!(format("%e", Arg::Float(-1234.5)), "-1.234500e+03");
        assert_eq!(format("%8.2f|", Arg::Float(1.23456)), "    1.23|");
    }

    #[test]
    fn strings_and_validation() {
        assert_eq!(format("Name: %s", Arg::Str("host")), "Name: host");
        assert_eq!(format("[%5.2s]", Arg::Str("abc")), "[   ab]");
        assert_eq!(first_conversion("x %04d"), Some(ArgType::Int));
        assert_eq!(first_conversion("%.2f"), Some(ArgType::Float));
        assert_eq!(first_conversion("%s"), Some(ArgType::Str));
        assert_eq!(first_conversion("none"), None);
        assert_eq!(first_conversion("%"), None);
    }
}
