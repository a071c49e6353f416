//! Math: `floor`, `ceiling`/`ceil`, `round`, `pow`, `quantize`.
//!
//! Real-to-integer results go through C's `(long long)` cast, so NaN,
//! infinities and out-of-range values give the minimum integer, as the
//! reference does on x86-64.

use super::super::ast::Expr;
use super::super::eval::{Eval, Frame};
use super::super::value::Value;
use super::cnum::double_to_ll;
use super::to_real;

fn rounding(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, op: fn(f64) -> f64) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    match cx.eval(&args[0], f) {
        Value::Int(i) => Value::Int(i),
        v => match to_real(&v) {
            Some(r) => Value::Int(double_to_ll(op(r))),
            None => Value::Error,
        },
    }
}

pub fn floor(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    rounding(args, cx, f, f64::floor)
}

pub fn ceiling(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    rounding(args, cx, f, f64::ceil)
}

/// C's `rint` in the default rounding mode: halves go to even.
pub fn round(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    rounding(args, cx, f, f64::round_ties_even)
}

/// `pow(base, exp)`: an integer for integer arguments and a non-negative
/// exponent (computed in doubles and rounded by adding 0.5 and truncating,
/// which is why `pow(-2, 3)` is -7 in the reference too), a real otherwise.
pub fn pow(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 2 {
        return Value::Error;
    }
    let a = cx.eval(&args[0], f);
    let b = cx.eval(&args[1], f);
    if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
        if *y >= 0 {
            return Value::Int(double_to_ll((*x as f64).powf(*y as f64) + 0.5));
        }
    }
    match (to_real(&a), to_real(&b)) {
        (Some(x), Some(y)) => Value::Real(x.powf(y)),
        _ => Value::Error,
    }
}

/// `quantize(x, q)`: `x` rounded up to a multiple of `q`; with a list,
/// the first element at least `x`, or else a multiple of the last one.
/// An integer `q` keeps an integer `x` integral.
pub fn quantize(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 2 {
        return Value::Error;
    }
    let a = cx.eval(&args[0], f);
    let mut b = cx.eval(&args[1], f);
    let Some(rval) = to_real(&a) else {
        return Value::Error;
    };
    let rbase;
    if let Value::List(list) = &b {
        let mut base = Value::Real(0.0);
        let mut last = 0.0;
        for item in list.items.iter() {
            base = cx.eval(item, &list.frame);
            match to_real(&base) {
                Some(r) => {
                    last = r;
                    if r >= rval {
                        return cx.make_self_contained(base);
                    }
                }
                None => return Value::Error,
            }
        }
        rbase = last;
        b = base;
    } else {
        match to_real(&b) {
            Some(r) => rbase = r,
            None => return Value::Error,
        }
    }
    if let Value::Int(ibase) = b {
        if ibase == 0 {
            a
        } else if let Value::Int(ival) = a {
            Value::Int(
                ival.wrapping_add(ibase.wrapping_sub(1))
                    .wrapping_div(ibase)
                    .wrapping_mul(ibase),
            )
        } else {
            Value::Real((rval / ibase as f64).ceil() * ibase as f64)
        }
    } else if (-1e-8..=1e-8).contains(&rbase) {
        a
    } else {
        Value::Real((rval / rbase).ceil() * rbase)
    }
}
