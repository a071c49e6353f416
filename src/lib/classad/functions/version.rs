//! Version comparison: `versioncmp`, `versionLT`/`LE`/`EQ`/`GE`/`GT`,
//! `version_in_range`, on libclassad's `natural_cmp` (a `strverscmp`
//! work-alike: digit runs compare as numbers, leading zeros first).

use super::super::ast::Expr;
use super::super::eval::{Eval, Frame};
use super::super::value::Value;
use super::{stringify, Builtin, Stringified};

/// C's `char` is signed on x86-64: bytes above 0x7f compare as negative.
fn c_char(s: &[u8], i: usize) -> i32 {
    s.get(i).map_or(0, |&b| b as i8 as i32)
}

fn is_digit(s: &[u8], i: usize) -> bool {
    s.get(i).is_some_and(u8::is_ascii_digit)
}

/// libclassad's `natural_cmp`: negative, zero or positive like `strcmp`,
/// with the same magnitudes as the reference (callers see them through
/// `versioncmp`).
pub fn natural_cmp(a: &str, b: &str) -> i32 {
    let (s1, s2) = (a.as_bytes(), b.as_bytes());
    // The first mismatch (the terminating NUL counts).
    let mut m = 0;
    while m < s1.len() && m < s2.len() && s1[m] == s2[m] {
        m += 1;
    }
    if c_char(s1, m) == c_char(s2, m) {
        return 0;
    }
    // The digits leading up to the mismatch (shared by both strings).
    let mut n_beg = m;
    while n_beg > 0 && s1[n_beg - 1].is_ascii_digit() {
        n_beg -= 1;
    }
    if n_beg == m && (!is_digit(s1, m) || !is_digit(s2, m)) {
        return c_char(s1, m) - c_char(s2, m);
    }
    // Leading zeros, not counting a final zero of the number.
    let zeros_end = |s: &[u8]| {
        let mut z = n_beg;
        while s.get(z) == Some(&b'0') {
            z += 1;
        }
        if z > n_beg && !is_digit(s, z) {
            z -= 1;
        }
        z
    };
    let (z1, z2) = (zeros_end(s1), zeros_end(s2));
    if z1 - n_beg != z2 - n_beg {
        // Fewer leading zeros sorts first.
        return (z2 - n_beg) as i32 - (z1 - n_beg) as i32;
    }
    if z1 > n_beg {
        return c_char(s1, m) - c_char(s2, m);
    }
    // No leading zeros: the longer number is bigger.
    let num_end = |s: &[u8], mut i: usize| {
        while is_digit(s, i) {
            i += 1;
        }
        i
    };
    let (e1, e2) = (num_end(s1, z1), num_end(s2, z2));
    if e1 - n_beg != e2 - n_beg {
        (e1 - n_beg) as i32 - (e2 - n_beg) as i32
    } else {
        c_char(s1, m) - c_char(s2, m)
    }
}

/// Evaluates the two version arguments: `Err` holds the early result.
fn versions(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Result<i32, Value> {
    if args.len() != 2 {
        return Err(Value::Error);
    }
    let a = cx.eval(&args[0], f);
    let b = cx.eval(&args[1], f);
    if a.is_undefined() || b.is_undefined() {
        return Err(Value::Undefined);
    }
    match (stringify(cx, &a), stringify(cx, &b)) {
        (Stringified::Str(x), Stringified::Str(y)) => Ok(natural_cmp(&x, &y)),
        _ => Err(Value::Error),
    }
}

fn compare(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, test: fn(i32) -> bool) -> Value {
    match versions(args, cx, f) {
        Ok(r) => Value::Bool(test(r)),
        Err(v) => v,
    }
}

/// `versioncmp(a, b)`: the `natural_cmp` result itself.
pub fn version_cmp(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    match versions(args, cx, f) {
        Ok(r) => Value::Int(r as i64),
        Err(v) => v,
    }
}

pub fn version_lt(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    compare(args, cx, f, |r| r < 0)
}

pub fn version_le(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    compare(args, cx, f, |r| r <= 0)
}

pub fn version_eq(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    compare(args, cx, f, |r| r == 0)
}

pub fn version_ge(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    compare(args, cx, f, |r| r >= 0)
}

pub fn version_gt(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    compare(args, cx, f, |r| r > 0)
}

/// A `versionXX` name spelled other than as registered: libclassad finds
/// the function but does not recognize its own name, so the result is error
/// once the arguments are good.
fn version_misspelled(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    match versions(args, cx, f) {
        Ok(_) => Value::Error,
        Err(v) => v,
    }
}

/// The implementation for a `versionXX` spelling.
pub fn pick(name: &str, registered: &str, f: Builtin) -> Builtin {
    if name == registered {
        f
    } else {
        version_misspelled
    }
}

/// `version_in_range(v, min, max)`: `min <= v <= max` in natural order.
/// Only the bounds being undefined makes the result undefined.
pub fn version_in_range(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 3 {
        return Value::Error;
    }
    let v = cx.eval(&args[0], f);
    let lo = cx.eval(&args[1], f);
    let hi = cx.eval(&args[2], f);
    if lo.is_undefined() || hi.is_undefined() {
        return Value::Undefined;
    }
    match (stringify(cx, &v), stringify(cx, &lo), stringify(cx, &hi)) {
        (Stringified::Str(v), Stringified::Str(lo), Stringified::Str(hi)) => {
            Value::Bool(natural_cmp(&lo, &v) <= 0 && natural_cmp(&v, &hi) <= 0)
        }
        _ => Value::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;

    #[test]
    fn natural_order_matches_the_reference() {
        assert_eq!(natural_cmp("1.2.3", "1.2.4"), -1);
        assert_eq!(natural_cmp("1.2.3", "1.2.3"), 0);
        assert!(natural_cmp("1.10", "1.9") > 0);
        assert!(natural_cmp("1.010", "1.10") < 0);
        assert_eq!(natural_cmp("1.2", "1.2.0"), -46);
        assert_eq!(natural_cmp("", "1"), -49);
        assert_eq!(natural_cmp("V1", "v1"), -32);
        assert!(natural_cmp("8.9.1", "10.0.0") < 0);
        assert!(natural_cmp("1.2a", "1.2b") < 0);
        assert!(natural_cmp("a0", "a00") > 0);
    }
}
