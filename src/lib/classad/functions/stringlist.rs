//! HTCondor's string-list functions: a "string list" is a string of items
//! separated by any of a set of delimiter characters (by default comma and
//! white space), items trimmed of white space, empty items dropped
//! (HTCondor's `StringTokenIterator`). `stringListsIntersect` is
//! libclassad's own and splits without trimming.

use super::super::ast::Expr;
use super::super::eval::{Eval, Frame};
use super::super::value::Value;
use super::{cnum, eval_upto4, regex};

/// `StringTokenIterator` with trimming: the non-empty items of `s`.
pub fn tokens<'a>(s: &'a [u8], delims: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < s.len() && (delims.contains(&s[i]) || cnum::is_c_space(s[i])) {
            i += 1;
        }
        if i >= s.len() {
            return None;
        }
        let start = i;
        let mut end = i;
        while i < s.len() && !delims.contains(&s[i]) {
            if !cnum::is_c_space(s[i]) {
                end = i;
            }
            i += 1;
        }
        Some(&s[start..=end])
    })
}

/// The one or two string arguments of `stringListSize` and the
/// summarizers: `None` when they are not strings (an error).
fn list_and_delims(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Option<(Value, Value)> {
    if args.is_empty() || args.len() > 2 {
        return None;
    }
    let list = cx.eval(&args[0], f);
    let delims = if args.len() == 2 {
        cx.eval(&args[1], f)
    } else {
        Value::str(", ")
    };
    if matches!((&list, &delims), (Value::Str(_), Value::Str(_))) {
        Some((list, delims))
    } else {
        None
    }
}

/// `stringListSize(list [, delimiters])`.
pub fn size(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    match list_and_delims(args, cx, f) {
        Some((Value::Str(l), Value::Str(d))) => {
            Value::Int(tokens(l.as_bytes(), d.as_bytes()).count() as i64)
        }
        _ => Value::Error,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Summary {
    Sum,
    Avg,
    Min,
    Max,
}

/// `stringListSum`/`Avg`/`Min`/`Max`: each item read as a C double; the
/// result is an integer when every item is written with digits and signs
/// only. Like the reference, `Max` starts from `FLT_MIN` (a tiny positive
/// number), so a list of negative numbers has a maximum of 0.
fn summarize(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, kind: Summary) -> Value {
    let Some((Value::Str(list), Value::Str(delims))) = list_and_delims(args, cx, f) else {
        return Value::Error;
    };
    let mut acc: f64 = match kind {
        Summary::Sum | Summary::Avg => 0.0,
        Summary::Min => f32::MAX as f64,
        Summary::Max => f32::MIN_POSITIVE as f64,
    };
    let mut count = 0usize;
    let mut is_real = false;
    for item in tokens(list.as_bytes(), delims.as_bytes()) {
        count += 1;
        let (x, used) = cnum::strtod(item);
        if used == 0 {
            return Value::Error;
        }
        if item.iter().any(|b| !b"+-0123456789".contains(b)) {
            is_real = true;
        }
        acc = match kind {
            Summary::Sum | Summary::Avg => x + acc,
            Summary::Min => {
                if x < acc {
                    x
                } else {
                    acc
                }
            }
            Summary::Max => {
                if x > acc {
                    x
                } else {
                    acc
                }
            }
        };
    }
    if count == 0 {
        return match kind {
            Summary::Sum | Summary::Avg => Value::Real(0.0),
            _ => Value::Undefined,
        };
    }
    if kind == Summary::Avg {
        acc /= count as f64;
    }
    if is_real {
        Value::Real(acc)
    } else {
        Value::Int(cnum::double_to_ll(acc))
    }
}

pub fn sum(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    summarize(args, cx, f, Summary::Sum)
}

pub fn avg(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    summarize(args, cx, f, Summary::Avg)
}

pub fn min(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    summarize(args, cx, f, Summary::Min)
}

pub fn max(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    summarize(args, cx, f, Summary::Max)
}

/// `stringListMember`, `stringListIMember`, `stringListSubsetMatch`,
/// `stringListISubsetMatch`: undefined arguments count as empty strings
/// (both undefined: undefined).
fn member_or_subset(
    args: &[Expr],
    cx: &mut Eval<'_>,
    f: &Frame,
    subset: bool,
    ignore_case: bool,
) -> Value {
    if args.len() < 2 || args.len() > 3 {
        return Value::Error;
    }
    let all = eval_upto4(args, cx, f);
    let vals = &all[..args.len()];
    if vals
        .iter()
        .any(|v| !matches!(v, Value::Undefined | Value::Str(_)))
    {
        return Value::Error;
    }
    if vals[0].is_undefined() && vals[1].is_undefined() {
        return Value::Undefined;
    }
    fn text(v: &Value) -> &[u8] {
        v.as_str().unwrap_or("").as_bytes()
    }
    let (item, list) = (text(&vals[0]), text(&vals[1]));
    let delims: &[u8] = match vals.get(2) {
        Some(Value::Str(d)) => d.as_bytes(),
        _ => b", \t\r\n",
    };
    let same = |a: &[u8], b: &[u8]| {
        if ignore_case {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    };
    if !subset {
        return Value::Bool(tokens(list, delims).any(|t| same(t, item)));
    }
    if item.is_empty() {
        return Value::Bool(true);
    }
    // Every item of the first list in the second (false when the first
    // has no items at all).
    let mut found = false;
    for t in tokens(item, delims) {
        found = tokens(list, delims).any(|l| same(l, t));
        if !found {
            break;
        }
    }
    Value::Bool(found)
}

pub fn member(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    member_or_subset(args, cx, f, false, false)
}

pub fn imember(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    member_or_subset(args, cx, f, false, true)
}

pub fn subset_match(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    member_or_subset(args, cx, f, true, false)
}

pub fn isubset_match(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    member_or_subset(args, cx, f, true, true)
}

/// `stringList_regexpMember(pattern, list [, delimiters [, options]])`:
/// whether some item matches; undefined for an empty list.
pub fn regexp_member(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() < 2 || args.len() > 4 {
        return Value::Error;
    }
    let all = eval_upto4(args, cx, f);
    let vals = &all[..args.len()];
    let strs: Option<Vec<&str>> = vals.iter().map(Value::as_str).collect();
    let Some(strs) = strs else {
        return Value::Error;
    };
    let delims = strs.get(2).copied().unwrap_or(", ");
    let options = strs.get(3).copied().unwrap_or("");
    let Some(re) = regex::compile_any_case(strs[0], options) else {
        return Value::Error;
    };
    let mut empty = true;
    let mut matched = false;
    for t in tokens(strs[1].as_bytes(), delims.as_bytes()) {
        empty = false;
        matched = matched || re.is_match(t);
    }
    if empty {
        Value::Undefined
    } else {
        Value::Bool(matched)
    }
}

/// libclassad's `split_string_list`: the non-empty runs between delimiter
/// characters (default space and comma), not trimmed.
fn plain_items<'a>(s: &'a [u8], delims: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
    let delims: &[u8] = if delims.is_empty() { b" ," } else { delims };
    s.split(move |b| delims.contains(b))
        .filter(|t| !t.is_empty())
}

/// `stringListsIntersect(a, b [, delimiters])`: whether the lists share an
/// item (case-sensitively).
pub fn intersect(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 2 && args.len() != 3 {
        return Value::Error;
    }
    let all = eval_upto4(args, cx, f);
    let vals = &all[..args.len()];
    if vals.iter().any(Value::is_error) {
        return Value::Error;
    }
    if vals.iter().any(Value::is_undefined) {
        return Value::Undefined;
    }
    let delims = match vals.get(2) {
        None => "",
        Some(Value::Str(d)) => d,
        Some(_) => return Value::Error,
    };
    let (Value::Str(a), Value::Str(b)) = (&vals[0], &vals[1]) else {
        return Value::Error;
    };
    let (a, b, d) = (a.as_bytes(), b.as_bytes(), delims.as_bytes());
    let shared = plain_items(a, d).any(|t| plain_items(b, d).any(|u| u == t));
    Value::Bool(shared)
}

#[cfg(test)]
mod tests {
    use super::tokens;

    #[test]
    fn tokens_trim_and_drop_empty_items() {
        let t: Vec<&[u8]> = tokens(b" a, b ,,c d ", b", ").collect();
        assert_eq!(t, [&b"a"[..], b"b", b"c", b"d"]);
        let t: Vec<&[u8]> = tokens(b"a:b:c", b"").collect();
        assert_eq!(t, [&b"a:b:c"[..]]);
        let t: Vec<&[u8]> = tokens(b"x ; y", b";").collect();
        assert_eq!(t, [&b"x"[..], b"y"]);
        assert_eq!(tokens(b" ", b",").count(), 0);
    }
}
