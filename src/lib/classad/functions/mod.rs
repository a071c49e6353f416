//! The built-in function library: libclassad's (fnCall.cpp) and the ones
//! HTCondor registers on top (compat_classad.cpp).
//!
//! A builtin receives its argument *expressions* and evaluates what it needs,
//! so that lazy functions (`ifThenElse`, `evalInEachContext`) can be lazy.
//! Names are looked up case-insensitively at parse time.

pub mod time;

use super::ast::Expr;
use super::eval::{Eval, Frame};
use super::value::Value;

/// A builtin function.
pub type Builtin = fn(args: &[Expr], cx: &mut Eval<'_>, frame: &Frame) -> Value;

/// The implementation of a function name, if the library has one.
pub fn lookup(name: &str) -> Option<Builtin> {
    let lower = name.to_ascii_lowercase();
    let f: Builtin = match lower.as_str() {
        "ifthenelse" => if_then_else,
        "isundefined" => |a, cx, f| is_type(a, cx, f, |v| v.is_undefined()),
        "iserror" => |a, cx, f| is_type(a, cx, f, |v| v.is_error()),
        "time" => |a, _, _| {
            if a.is_empty() {
                Value::Int(time::now())
            } else {
                Value::Error
            }
        },
        _ => return None,
    };
    Some(f)
}

fn if_then_else(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 3 {
        return Value::Error;
    }
    let c = cx.eval(&args[0], f);
    match c {
        Value::Undefined => Value::Undefined,
        Value::Error => Value::Error,
        ref v => match v.as_bool_equiv() {
            Some(true) => cx.eval(&args[1], f),
            Some(false) => cx.eval(&args[2], f),
            None => Value::Error,
        },
    }
}

fn is_type(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, pred: fn(&Value) -> bool) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    let v = cx.eval(&args[0], f);
    Value::Bool(pred(&v))
}
