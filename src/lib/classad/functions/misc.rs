//! `ifThenElse`, the type predicates, the conversions, and the functions
//! that work on expressions rather than values: `eval`, `unparse`,
//! `unresolved`, `debug`; also `random`.

use super::super::ast::{Expr, ScopeKw};
use super::super::eval::{root_of, Eval, Frame, MAX_RECURSION};
use super::super::parser::parse_expr;
use super::super::unparse::{expr_to_pretty_string, expr_to_string};
use super::super::value::Value;
use super::{cnum, regex, stringified_value, stringify_opt, to_int_value, to_real_value};

pub fn if_then_else(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 3 {
        return Value::Error;
    }
    let c = cx.eval(&args[0], f);
    let b = match c {
        Value::Bool(b) => b,
        Value::Int(i) => i != 0,
        Value::Real(r) => r != 0.0,
        Value::Undefined => return Value::Undefined,
        _ => return Value::Error,
    };
    cx.eval(if b { &args[1] } else { &args[2] }, f)
}

/// The common shape of the type predicates: one argument, any value.
fn predicate(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, test: fn(&Value) -> bool) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    let v = cx.eval(&args[0], f);
    Value::Bool(test(&v))
}

pub fn is_undefined(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::Undefined))
}

pub fn is_error(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::Error))
}

pub fn is_string(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::Str(_)))
}

pub fn is_integer(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::Int(_)))
}

pub fn is_real(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::Real(_)))
}

pub fn is_list(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::List(_)))
}

pub fn is_classad(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::Ad(_)))
}

pub fn is_boolean(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::Bool(_)))
}

pub fn is_abstime(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::AbsTime(_)))
}

pub fn is_reltime(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    predicate(a, cx, f, |v| matches!(v, Value::RelTime(_)))
}

/// One argument, evaluated, converted.
fn convert(
    args: &[Expr],
    cx: &mut Eval<'_>,
    f: &Frame,
    conv: fn(&Eval<'_>, &Value) -> Value,
) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    let v = cx.eval(&args[0], f);
    conv(cx, &v)
}

pub fn conv_int(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    convert(a, cx, f, |_, v| to_int_value(v))
}

pub fn conv_real(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    convert(a, cx, f, |_, v| to_real_value(v))
}

pub fn conv_string(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    convert(a, cx, f, stringified_value)
}

pub fn conv_bool(a: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    convert(a, cx, f, |_, v| match v {
        Value::Undefined => Value::Undefined,
        Value::Bool(b) => Value::Bool(*b),
        Value::Int(i) => Value::Bool(*i != 0),
        Value::Real(r) => Value::Bool(*r != 0.0),
        Value::Str(s) => {
            if s.eq_ignore_ascii_case("false") {
                Value::Bool(false)
            } else if s.eq_ignore_ascii_case("true") {
                Value::Bool(true)
            } else {
                Value::Undefined
            }
        }
        Value::RelTime(r) => Value::Bool(cnum::reltime_secs(*r) != 0),
        Value::Error | Value::List(_) | Value::Ad(_) | Value::AbsTime(_) => Value::Error,
    })
}

/// `eval(s)`: parses the string form of the argument as an expression and
/// evaluates it in the current scope.
pub fn eval(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    let v = cx.eval(&args[0], f);
    let Some(text) = stringify_opt(cx, &v) else {
        return Value::Error;
    };
    match parse_expr(&text) {
        Ok(e) => cx.eval(&e, f),
        Err(_) => Value::Error,
    }
}

/// `debug(e)`: the value of `e` (libclassad also logs it and its timing).
pub fn debug(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    cx.eval(&args[0], f)
}

/// `random([max])`: an integer in `[0, max)` for an integer max, a real in
/// `[0, max]` for a real one (1.0 without argument). A non-positive max
/// makes the whole evaluation fail, as in the reference.
pub fn random(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    let arg = match args.len() {
        0 => Value::Real(1.0),
        1 => cx.eval(&args[0], f),
        _ => return Value::Error,
    };
    match arg {
        Value::Int(i) => {
            // `IsIntegerValue(int&)`: the bound is truncated to a C int.
            let max = i as i32;
            if max <= 0 {
                return cx.fail();
            }
            Value::Int((random_c_int() % max) as i64)
        }
        Value::Real(r) => {
            if r <= 0.0 {
                return cx.fail();
            }
            Value::Real(r * (random_c_int() as f64 / i32::MAX as f64))
        }
        _ => Value::Error,
    }
}

/// `lrand48() & INT_MAX`: a non-negative 31-bit integer.
fn random_c_int() -> i32 {
    (rand::random::<u32>() >> 1) as i32
}

/// Whether an argument is an attribute reference (libclassad's ATTRREF_NODE).
fn is_attr_ref(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Attr(_) | Expr::Absolute(_) | Expr::Scoped { .. } | Expr::Select(..)
    )
}

/// `unparse(attr)`: the attribute's expression as text, pretty-printed
/// (lists and ads on indented lines). The reference looks the unparsed
/// reference text up in the current ad only, so `unparse(MY.x)` is `""`.
pub fn unparse(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 1 || !is_attr_ref(&args[0]) {
        return Value::Error;
    }
    let name = expr_to_string(&args[0]);
    let mut out = String::new();
    if let Some(e) = cx.frame_ad(f).lookup(&name) {
        out = expr_to_pretty_string(e);
    }
    Value::string(out)
}

/// Where an attribute-reference argument points (libclassad's `Deref`).
pub(super) fn deref(cx: &mut Eval<'_>, e: &Expr, f: &Frame) -> Option<(Expr, Frame)> {
    match e {
        Expr::Attr(name)
        | Expr::Scoped {
            scope: ScopeKw::My,
            name,
            ..
        } => cx
            .lookup_in_chain(name, f)
            .or_else(|| cx.other_side(f).and_then(|o| cx.lookup_in_chain(name, &o))),
        Expr::Scoped {
            scope: ScopeKw::Target,
            name,
            ..
        } => {
            let t = cx.other_side(&root_of(f))?;
            cx.lookup_in_chain(name, &t)
        }
        Expr::Absolute(name) => cx.lookup_in_chain(name, &root_of(f)),
        Expr::Select(base, name) => match cx.eval(base, f) {
            Value::Ad(af) => cx.lookup_in_chain(name, &af),
            _ => None,
        },
        _ => None,
    }
}

/// libclassad's `_GetExternalReferences` with full names: the references in
/// `e` that do not resolve, following the ones that do. False when the walk
/// fails (a selection from a non-ad, or recursion too deep).
fn external_refs(
    cx: &mut Eval<'_>,
    e: &Expr,
    f: &Frame,
    refs: &mut Vec<String>,
    depth: u32,
) -> bool {
    if depth >= MAX_RECURSION {
        return false;
    }
    fn follow(
        cx: &mut Eval<'_>,
        name: &str,
        start: &Frame,
        refs: &mut Vec<String>,
        depth: u32,
    ) -> bool {
        match cx.lookup_in_chain(name, start) {
            Some((inner, ff)) => external_refs(cx, &inner, &ff, refs, depth + 1),
            None => {
                refs.push(name.to_string());
                true
            }
        }
    }
    match e {
        Expr::Lit(_) => true,
        Expr::Attr(name)
        | Expr::Scoped {
            scope: ScopeKw::My,
            name,
            ..
        } => follow(cx, name, f, refs, depth),
        Expr::Absolute(name) => follow(cx, name, &root_of(f), refs, depth),
        Expr::Scoped {
            scope: ScopeKw::Target,
            prefix,
            name,
        } => match cx.other_side(&root_of(f)) {
            Some(t) => follow(cx, name, &t, refs, depth),
            None => {
                refs.push(format!("{prefix}.{name}"));
                true
            }
        },
        Expr::Select(base, name) => match cx.eval(base, f) {
            Value::Undefined => {
                refs.push(format!("{}.{}", expr_to_string(base), name));
                true
            }
            Value::Ad(af) => follow(cx, name, &af, refs, depth),
            _ => false,
        },
        Expr::Unary(_, a) | Expr::Paren(a) => external_refs(cx, a, f, refs, depth + 1),
        Expr::Binary { lhs, rhs, .. } => {
            external_refs(cx, lhs, f, refs, depth + 1) && external_refs(cx, rhs, f, refs, depth + 1)
        }
        Expr::Ternary(a, b, c) => {
            external_refs(cx, a, f, refs, depth + 1)
                && external_refs(cx, b, f, refs, depth + 1)
                && external_refs(cx, c, f, refs, depth + 1)
        }
        Expr::Call(call) => call
            .args
            .iter()
            .all(|a| external_refs(cx, a, f, refs, depth + 1)),
        Expr::List(items) => items
            .iter()
            .all(|a| external_refs(cx, a, f, refs, depth + 1)),
        Expr::Ad(ad) => ad
            .iter()
            .all(|(_, a)| external_refs(cx, a, f, refs, depth + 1)),
    }
}

/// `unresolved(attr [, pattern])`: the references of the attribute's
/// expression that resolve nowhere, comma-separated (sorted, `TARGET.`
/// dropped); with a pattern, whether any of them matches it (caseless).
pub fn unresolved(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.is_empty() || args.len() > 2 || !is_attr_ref(&args[0]) {
        return Value::Error;
    }
    let Some((expr, ef)) = deref(cx, &args[0], f) else {
        return Value::Undefined;
    };
    let pattern = if args.len() == 2 {
        match cx.eval(&args[1], f) {
            Value::Str(p) => match regex::compile(&p, "i") {
                Some(re) => Some(re),
                None => return Value::Error,
            },
            _ => return cx.fail(),
        }
    } else {
        None
    };
    let mut refs = Vec::new();
    let ok = external_refs(cx, &expr, &ef, &mut refs, 0);
    if !ok {
        refs.clear();
    }
    refs.sort_by(|a, b| super::super::eval::cmp_ci(a, b));
    refs.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
    let names = refs.iter().map(|r| match r.get(..7) {
        Some(p) if p.eq_ignore_ascii_case("target.") => &r[7..],
        _ => r.as_str(),
    });
    match pattern {
        Some(re) => {
            let found = names
                .into_iter()
                .any(|n| re.find_iter(n.as_bytes()).any(|m| !m.is_empty()));
            Value::Bool(found)
        }
        None => Value::string(names.collect::<Vec<_>>().join(",")),
    }
}
