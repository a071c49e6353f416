//! List functions: `member`/`identicalMember`, `size`, `sum`/`avg`,
//! `min`/`max`, `anycompare`/`allcompare`, and HTCondor's
//! `evalInEachContext`/`countMatches`.

use super::super::ast::{BinOp, Expr};
use super::super::eval::{operate, Eval, Frame};
use super::super::value::Value;
use super::{list_value, misc};

fn test_member(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, identical: bool) -> Value {
    if args.len() != 2 {
        return Value::Error;
    }
    let item = cx.eval(&args[0], f);
    let list = cx.eval(&args[1], f);
    if list.is_undefined() || (!identical && item.is_undefined()) {
        return Value::Undefined;
    }
    let Value::List(list) = list else {
        return Value::Error;
    };
    if matches!(item, Value::List(_) | Value::Ad(_)) || (!identical && item.is_error()) {
        return Value::Error;
    }
    let op = if identical { BinOp::MetaEq } else { BinOp::Eq };
    for e in list.items.iter() {
        let v = cx.eval(e, &list.frame);
        if let Value::Bool(true) = operate(op, v, item.clone()) {
            return Value::Bool(true);
        }
    }
    Value::Bool(false)
}

/// `member(x, list)`: whether some element `== x`.
pub fn member(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    test_member(args, cx, f, false)
}

/// `identicalMember(x, list)`: whether some element `=?= x`.
pub fn identical_member(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    test_member(args, cx, f, true)
}

/// `size(x)`: the length of a list, the attribute count of an ad, the byte
/// length of a string.
pub fn size(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    match cx.eval(&args[0], f) {
        Value::Undefined => Value::Undefined,
        Value::List(l) => Value::Int(l.items.len() as i64),
        Value::Ad(af) => Value::Int(cx.frame_ad(&af).len() as i64),
        Value::Str(s) => Value::Int(s.len() as i64),
        _ => Value::Error,
    }
}

/// The list argument of the aggregates: `Err` holds the early result.
fn list_arg(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Result<super::ListValue, Value> {
    if args.len() != 1 {
        return Err(Value::Error);
    }
    match cx.eval(&args[0], f) {
        Value::Undefined => Err(Value::Undefined),
        Value::List(l) => Ok(l),
        _ => Err(Value::Error),
    }
}

fn sum_avg(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, avg: bool) -> Value {
    let list = match list_arg(args, cx, f) {
        Ok(l) => l,
        Err(v) => return v,
    };
    // sum({}) is 0; undefined elements are skipped (and not counted).
    let mut result = Value::Int(0);
    let mut first = true;
    let mut len = 0usize;
    for e in list.items.iter() {
        let v = cx.eval(e, &list.frame);
        if v.is_undefined() {
            continue;
        }
        if !v.is_number() {
            return Value::Error;
        }
        len += 1;
        if first {
            result = v;
            first = false;
        } else {
            result = operate(BinOp::Add, result, v);
        }
    }
    if avg && len > 0 {
        result = operate(BinOp::Div, result, Value::Real(len as f64));
    }
    result
}

pub fn sum(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    sum_avg(args, cx, f, false)
}

pub fn avg(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    sum_avg(args, cx, f, true)
}

/// libclassad's `coerceToNumber` on two numbers, which the comparison
/// operators apply to their operands *in place*: booleans become integers
/// and an integer beside a real becomes a real. `min`/`max` keep the
/// coerced values, so a real anywhere in the list makes the result real.
fn promote(a: &mut Value, b: &mut Value) {
    for v in [&mut *a, &mut *b] {
        if let Value::Bool(x) = *v {
            *v = Value::Int(x as i64);
        }
    }
    match (&*a, &*b) {
        (Value::Int(i), Value::Real(_)) => *a = Value::Real(*i as f64),
        (Value::Real(_), Value::Int(i)) => *b = Value::Real(*i as f64),
        _ => {}
    }
}

fn min_max(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, op: BinOp) -> Value {
    let list = match list_arg(args, cx, f) {
        Ok(l) => l,
        Err(v) => return v,
    };
    let mut result = Value::Undefined;
    let mut first = true;
    for e in list.items.iter() {
        let mut v = cx.eval(e, &list.frame);
        if v.is_undefined() {
            continue;
        }
        if !v.is_number() {
            return Value::Error;
        }
        if first {
            result = v;
            first = false;
        } else {
            promote(&mut v, &mut result);
            if let Value::Bool(true) = operate(op, v.clone(), result.clone()) {
                result = v;
            }
        }
    }
    result
}

pub fn min(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    min_max(args, cx, f, BinOp::Lt)
}

pub fn max(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    min_max(args, cx, f, BinOp::Gt)
}

fn list_compare(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, all: bool) -> Value {
    if args.len() != 3 {
        return Value::Error;
    }
    let op = match cx.eval(&args[0], f) {
        Value::Undefined => return Value::Undefined,
        Value::Str(s) => match &*s {
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            "!=" => BinOp::Ne,
            "==" => BinOp::Eq,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "is" => BinOp::MetaEq,
            "isnt" => BinOp::MetaNe,
            _ => return Value::Error,
        },
        _ => return Value::Error,
    };
    let list = match cx.eval(&args[1], f) {
        Value::Undefined => return Value::Undefined,
        Value::List(l) => l,
        _ => return Value::Error,
    };
    let target = cx.eval(&args[2], f);
    for e in list.items.iter() {
        let v = cx.eval(e, &list.frame);
        match operate(op, v, target.clone()) {
            Value::Bool(true) if !all => return Value::Bool(true),
            Value::Bool(false) if all => return Value::Bool(false),
            Value::Bool(_) => {}
            // An undefined comparison ends the walk with false, for both.
            Value::Undefined => return Value::Bool(false),
            _ => return Value::Error,
        }
    }
    Value::Bool(all)
}

/// `anycompare(op, list, x)`: whether some element `op x` holds.
pub fn any_compare(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    list_compare(args, cx, f, false)
}

/// `allcompare(op, list, x)`: whether every element `op x` holds.
pub fn all_compare(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    list_compare(args, cx, f, true)
}

/// The shared part of `evalInEachContext` and `countMatches`: the value of
/// the expression in each ad of the list, or the early result.
fn each_context(
    args: &[Expr],
    cx: &mut Eval<'_>,
    f: &Frame,
    undefined_list: Value,
) -> Result<Vec<Value>, Value> {
    if args.len() != 2 {
        return Err(Value::Error);
    }
    // An attribute reference is looked up first, in the calling scope, and
    // its expression evaluated in each ad; when it does not resolve, the
    // reference itself is evaluated in each ad.
    let resolved = misc::deref(cx, &args[0], f);
    let expr = resolved.as_ref().map_or(&args[0], |(e, _)| e);
    let list = match cx.eval(&args[1], f) {
        Value::List(l) => l,
        Value::Undefined if !matches!(args[1], Expr::List(_)) => return Err(undefined_list),
        _ => return Err(Value::Error),
    };
    let mut out = Vec::with_capacity(list.items.len());
    for item in list.items.iter() {
        let v = match cx.eval(item, &list.frame) {
            Value::Ad(af) => cx.eval(expr, &af),
            Value::Undefined => Value::Undefined,
            _ => Value::Error,
        };
        out.push(v);
    }
    Ok(out)
}

/// `evalInEachContext(expr, ads)`: the list of `expr`'s values in each ad.
pub fn eval_in_each_context(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    match each_context(args, cx, f, Value::Undefined) {
        Ok(values) => list_value(cx, values),
        Err(v) => v,
    }
}

/// `countMatches(expr, ads)`: in how many of the ads `expr` is true (or a
/// non-zero number); undefined and errors simply do not count.
pub fn count_matches(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    match each_context(args, cx, f, Value::Int(0)) {
        Ok(values) => Value::Int(
            values
                .iter()
                .filter(|v| v.as_bool_equiv() == Some(true))
                .count() as i64,
        ),
        Err(v) => v,
    }
}
