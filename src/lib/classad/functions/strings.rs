//! String functions: `strcat`, `join`, `toUpper`/`toLower`, `substr`,
//! `strcmp`/`stricmp`, and HTCondor's `split`, `splitUserName`,
//! `splitSlotName`.
//!
//! Strings are byte strings in the reference; ours are UTF-8, so a
//! `substr` that cuts through a multi-byte character yields U+FFFD where the
//! reference would keep the stray byte.

use std::cmp::Ordering;

use super::super::ast::Expr;
use super::super::eval::{Eval, Frame};
use super::super::value::Value;
use super::{as_c_int, string_from_bytes, string_list, stringify, Stringified};

/// `strcat(a, b, ...)`: the string forms concatenated; undefined at the
/// first undefined argument, error at the first error.
pub fn strcat(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    let mut buf = String::new();
    for a in args {
        let v = cx.eval(a, f);
        match stringify(cx, &v) {
            Stringified::Str(s) => buf.push_str(&s),
            Stringified::Undefined => return Value::Undefined,
            Stringified::Error => return Value::Error,
        }
    }
    Value::string(buf)
}

/// `join(sep, a, b, ...)`, `join(sep, list)`, `join(list)`: the defined
/// items' string forms with the separator between them.
pub fn join(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    // With one or two arguments and a list last, the list's elements are
    // the items (and the separator is the first argument, or "").
    if !args.is_empty() && args.len() <= 2 {
        if let Value::List(list) = cx.eval(&args[args.len() - 1], f) {
            let sep = if args.len() == 2 {
                Some(cx.eval(&args[0], f))
            } else {
                Some(Value::str(""))
            };
            let items = list.items.iter().map(|e| (e, &list.frame));
            return join_values(cx, sep, items);
        }
    }
    let mut it = args.iter();
    let sep = it.next().map(|a| cx.eval(a, f));
    join_values(cx, sep, it.map(|e| (e, f)))
}

fn join_values<'e>(
    cx: &mut Eval<'_>,
    sep: Option<Value>,
    items: impl Iterator<Item = (&'e Expr, &'e Frame)>,
) -> Value {
    let Some(sep) = sep else {
        return Value::str("");
    };
    let mut undefined = false;
    let mut defined = false;
    let sep = match stringify(cx, &sep) {
        Stringified::Str(s) => s.into_owned(),
        Stringified::Undefined => {
            undefined = true;
            String::new()
        }
        Stringified::Error => return Value::Error,
    };
    let mut buf = String::new();
    for (e, fr) in items {
        let v = cx.eval(e, fr);
        match stringify(cx, &v) {
            Stringified::Str(s) => {
                if !buf.is_empty() {
                    buf.push_str(&sep);
                }
                buf.push_str(&s);
                defined = true;
            }
            Stringified::Undefined => undefined = true,
            Stringified::Error => return Value::Error,
        }
    }
    if undefined && !defined {
        Value::Undefined
    } else {
        Value::string(buf)
    }
}

fn change_case(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, upper: bool) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    let v = cx.eval(&args[0], f);
    match stringify(cx, &v) {
        Stringified::Str(s) => {
            // C's toupper/tolower in the C locale: ASCII only.
            Value::string(if upper {
                s.to_ascii_uppercase()
            } else {
                s.to_ascii_lowercase()
            })
        }
        Stringified::Undefined => Value::Undefined,
        Stringified::Error => Value::Error,
    }
}

pub fn to_upper(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    change_case(args, cx, f, true)
}

pub fn to_lower(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    change_case(args, cx, f, false)
}

/// `substr(s, offset [, length])`, Perl-style: negative offsets and lengths
/// count from the end.
pub fn substr(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() < 2 || args.len() > 3 {
        return Value::Error;
    }
    let s = cx.eval(&args[0], f);
    let o = cx.eval(&args[1], f);
    let l = if args.len() > 2 {
        Some(cx.eval(&args[2], f))
    } else {
        None
    };
    if s.is_undefined() || o.is_undefined() || l.as_ref().is_some_and(Value::is_undefined) {
        return Value::Undefined;
    }
    let (Value::Str(s), Some(offset)) = (&s, as_c_int(&o)) else {
        return Value::Error;
    };
    let len = match &l {
        None => 0,
        Some(v) => match as_c_int(v) {
            Some(n) => n,
            None => return Value::Error,
        },
    };
    let bytes = s.as_bytes();
    let alen = bytes.len().min(i32::MAX as usize) as i64;
    let mut offset = offset as i64;
    let mut len = len as i64;
    if offset < 0 {
        offset = (alen + offset).max(0);
    } else if offset >= alen {
        offset = alen;
    }
    if len <= 0 {
        len = (alen - offset + len).max(0);
    } else if len > alen - offset {
        len = alen - offset;
    }
    // An explicit length of 0 means an empty result.
    if l.is_some() && as_c_int(l.as_ref().expect("checked")) == Some(0) {
        len = 0;
    }
    let (start, end) = (offset as usize, (offset + len) as usize);
    match std::str::from_utf8(&bytes[start..end]) {
        Ok(sub) if sub.len() == bytes.len() => Value::Str(s.clone()),
        Ok(sub) => Value::str(sub),
        Err(_) => string_from_bytes(bytes[start..end].to_vec()),
    }
}

fn compare(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, ignore_case: bool) -> Value {
    if args.len() != 2 {
        return Value::Error;
    }
    let a = cx.eval(&args[0], f);
    let b = cx.eval(&args[1], f);
    if a.is_undefined() || b.is_undefined() {
        return Value::Undefined;
    }
    let (Stringified::Str(x), Stringified::Str(y)) = (stringify(cx, &a), stringify(cx, &b)) else {
        return Value::Error;
    };
    let ord = if ignore_case {
        super::super::eval::cmp_ci(&x, &y)
    } else {
        x.as_bytes().cmp(y.as_bytes())
    };
    Value::Int(match ord {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })
}

pub fn strcmp(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    compare(args, cx, f, false)
}

pub fn stricmp(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    compare(args, cx, f, true)
}

/// `split(s [, separators])`: the pieces between separator characters
/// (default: comma and white space). Runs of white space, or a separator
/// with white space around it, count once; a repeated non-space separator
/// gives empty pieces.
pub fn split(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 1 && args.len() != 2 {
        return Value::Error;
    }
    let s = cx.eval(&args[0], f);
    let seps = if args.len() == 2 {
        Some(cx.eval(&args[1], f))
    } else {
        None
    };
    let Value::Str(s) = &s else {
        return Value::Error;
    };
    let seps: &[u8] = match &seps {
        None => b", \t",
        Some(Value::Str(p)) => p.as_bytes(),
        Some(_) => return Value::Error,
    };
    string_list(split_pieces(s, seps))
}

/// The pieces `split` produces.
pub fn split_pieces(s: &str, seps: &[u8]) -> Vec<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut last = 0;
    if !seps.is_empty() {
        // The previous non-space separator seen (C's -1 before any).
        let mut prev: Option<u8> = None;
        let find = |from: usize| (from..bytes.len()).find(|&i| seps.contains(&bytes[i]));
        let mut ix = find(last);
        while let Some(i) = ix {
            if i > last {
                out.push(String::from_utf8_lossy(&bytes[last..i]).into_owned());
            } else if prev.is_some_and(|p| !super::cnum::is_c_space(p) && p == bytes[i]) {
                out.push(String::new());
            }
            if !super::cnum::is_c_space(bytes[i]) {
                prev = Some(bytes[i]);
            }
            last = i + 1;
            ix = find(last);
        }
    }
    if bytes.len() > last {
        out.push(String::from_utf8_lossy(&bytes[last..]).into_owned());
    }
    out
}

/// `splitUserName("user@domain")` / `splitSlotName("slot@machine")`: the
/// two halves around the first `@`; without one, the whole string is the
/// user (or the machine).
fn split_at(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, slot: bool) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    let v = cx.eval(&args[0], f);
    let Value::Str(s) = &v else {
        return Value::Error;
    };
    let (first, second) = match s.find('@') {
        Some(i) => (&s[..i], &s[i + 1..]),
        None if slot => ("", &s[..]),
        None => (&s[..], ""),
    };
    string_list([first.to_string(), second.to_string()])
}

pub fn split_user_name(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    split_at(args, cx, f, false)
}

pub fn split_slot_name(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    split_at(args, cx, f, true)
}

#[cfg(test)]
mod tests {
    use super::split_pieces;

    #[test]
    fn split_treats_white_space_and_repeats_as_the_reference_does() {
        assert_eq!(split_pieces("a,b, c", b", \t"), ["a", "b", "c"]);
        assert_eq!(split_pieces("  a  b  ", b", \t"), ["a", "b"]);
        assert_eq!(split_pieces("a--b", b"-"), ["a", "", "b"]);
        assert_eq!(split_pieces(",a,,b,", b", \t"), ["a", "", "b"]);
        assert_eq!(split_pieces("a b", b""), ["a b"]);
        assert!(split_pieces("", b", \t").is_empty());
    }
}
