//! The pattern functions: `regexp`, `regexps`, `replace`, `replaceall`,
//! `regexpMember`.
//!
//! libclassad uses PCRE2 without UTF mode, so patterns and subjects are byte
//! strings: `.` matches one byte and `\w`, `\d`, case folding are ASCII. We
//! use the `regex` crate's byte regexes with Unicode off, which behave the
//! same for everything the crate supports. What PCRE has and the crate does
//! not — backreferences inside the pattern, lookaround, atomic groups,
//! possessive quantifiers, `\Z`, recursion, callouts — makes the pattern
//! fail to compile, which the functions report as an invalid pattern. PCRE's
//! `$` also matches before a final newline; the crate's only at the end.
//!
//! Option letters: `i` caseless, `m` multi-line, `s` dot-all, `x` extended;
//! `regexps` and friends also know `f` (keep the whole subject) and `g`
//! (replace every match). Other letters are ignored, as in the reference.

use std::cell::RefCell;
use std::sync::Arc;

use regex::bytes::{Regex, RegexBuilder};

use super::super::ast::Expr;
use super::super::eval::{Eval, Frame};
use super::super::value::Value;
use super::{eval_upto4, string_from_bytes};

/// How many compiled patterns each thread keeps.
const CACHE_SIZE: usize = 32;

type CacheEntry = (u8, Box<str>, Option<Arc<Regex>>);

thread_local! {
    static CACHE: RefCell<Vec<CacheEntry>> = const { RefCell::new(Vec::new()) };
}

/// The flag letters libclassad's functions understand.
fn flag_bits(options: &str, any_case_letters: bool) -> u8 {
    let mut bits = 0;
    for c in options.bytes() {
        let c = if any_case_letters {
            c.to_ascii_lowercase()
        } else {
            c
        };
        bits |= match c {
            b'i' => 1,
            b'm' => 2,
            b's' => 4,
            b'x' => 8,
            _ => 0,
        };
    }
    bits
}

/// Compiles a pattern with libclassad option letters (lower case only);
/// `None` for a pattern that does not compile. Compiled patterns are cached.
pub fn compile(pattern: &str, options: &str) -> Option<Arc<Regex>> {
    compile_bits(pattern, flag_bits(options, false))
}

/// As [`compile`], with HTCondor's `Regex` option letters (either case).
pub fn compile_any_case(pattern: &str, options: &str) -> Option<Arc<Regex>> {
    compile_bits(pattern, flag_bits(options, true))
}

fn compile_bits(pattern: &str, bits: u8) -> Option<Arc<Regex>> {
    let hit = CACHE.with(|c| {
        c.borrow()
            .iter()
            .find(|(b, p, _)| *b == bits && **p == *pattern)
            .map(|(_, _, r)| r.clone())
    });
    if let Some(r) = hit {
        return r;
    }
    let re = build(pattern, bits).map(Arc::new);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_SIZE {
            c.remove(0);
        }
        c.push((bits, Box::from(pattern), re.clone()));
    });
    re
}

fn build(pattern: &str, bits: u8) -> Option<Regex> {
    // Without Unicode the crate takes bytes only as escapes: spell every
    // non-ASCII character as its UTF-8 bytes, which is what PCRE sees.
    let text: std::borrow::Cow<'_, str> = if pattern.is_ascii() {
        pattern.into()
    } else {
        let mut s = String::with_capacity(pattern.len() * 2);
        for c in pattern.chars() {
            if c.is_ascii() {
                s.push(c);
            } else {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    s.push_str(&format!("\\x{b:02X}"));
                }
            }
        }
        s.into()
    };
    RegexBuilder::new(&text)
        .unicode(false)
        .case_insensitive(bits & 1 != 0)
        .multi_line(bits & 2 != 0)
        .dot_matches_new_line(bits & 4 != 0)
        .ignore_whitespace(bits & 8 != 0)
        .build()
        .ok()
}

/// libclassad's `regexp_helper`: a match test, or (with `replace`) the
/// substitution, per the option letters.
fn helper(pattern: &str, target: &[u8], replace: Option<&[u8]>, options: &str) -> Value {
    let Some(re) = compile(pattern, options) else {
        return Value::Error;
    };
    let Some(rep) = replace else {
        return Value::Bool(re.is_match(target));
    };
    let full = options.contains('f');
    let all = options.contains('g');
    let mut out: Vec<u8> = Vec::new();
    let mut idx = 0;
    let mut empty_match = false;
    loop {
        if empty_match {
            // The reference retries at the same place for a non-empty
            // anchored match; the crate cannot, so we take the common
            // outcome (none) and step over one byte. At the end of the
            // subject the reference steps past it and PCRE reports a bad
            // offset, which is an error.
            if idx >= target.len() {
                return Value::Error;
            }
            out.push(target[idx]);
            idx += 1;
            empty_match = false;
            continue;
        }
        let Some(caps) = re.captures_at(target, idx) else {
            break;
        };
        let whole = caps.get(0).expect("group 0 always participates");
        if full {
            out.extend_from_slice(&target[idx..whole.start()]);
        }
        let ngroups = (0..caps.len())
            .rev()
            .find(|&g| caps.get(g).is_some())
            .map_or(1, |g| g + 1);
        let mut i = 0;
        while i < rep.len() {
            if rep[i] == b'\\' {
                match rep.get(i + 1) {
                    Some(d) if d.is_ascii_digit() => {
                        let g = (d - b'0') as usize;
                        if g >= ngroups {
                            return Value::Error;
                        }
                        if let Some(m) = caps.get(g) {
                            out.extend_from_slice(m.as_bytes());
                        }
                        i += 1;
                    }
                    _ => out.push(b'\\'),
                }
            } else {
                out.push(rep[i]);
            }
            i += 1;
        }
        idx = whole.end();
        if whole.start() == whole.end() {
            empty_match = true;
        }
        if !all {
            break;
        }
    }
    if full {
        out.extend_from_slice(&target[idx.min(target.len())..]);
    }
    string_from_bytes(out)
}

/// Errors first, then undefined, then the option string's type: the order
/// in which libclassad checks the pattern functions' arguments.
fn exceptional(vals: &[Value]) -> Option<Value> {
    if vals.iter().any(Value::is_error) {
        return Some(Value::Error);
    }
    if vals.iter().any(Value::is_undefined) {
        return Some(Value::Undefined);
    }
    None
}

/// `regexp(pattern, target [, options])`.
pub fn regexp(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 2 && args.len() != 3 {
        return Value::Error;
    }
    let all = eval_upto4(args, cx, f);
    let vals = &all[..args.len()];
    if let Some(v) = exceptional(vals) {
        return v;
    }
    let options = match vals.get(2) {
        None => "",
        Some(Value::Str(o)) => o,
        Some(_) => return Value::Error,
    };
    match (&vals[0], &vals[1]) {
        (Value::Str(p), Value::Str(t)) => helper(p, t.as_bytes(), None, options),
        _ => Value::Error,
    }
}

/// `regexps`, `replace` (`f` added) and `replaceall` (`fg` added).
fn substitute(args: &[Expr], cx: &mut Eval<'_>, f: &Frame, extra: &str) -> Value {
    if args.len() != 3 && args.len() != 4 {
        return Value::Error;
    }
    let all = eval_upto4(args, cx, f);
    let vals = &all[..args.len()];
    if let Some(v) = exceptional(vals) {
        return v;
    }
    let mut options = match vals.get(3) {
        None => String::new(),
        Some(Value::Str(o)) => o.to_string(),
        Some(_) => return Value::Error,
    };
    options.push_str(extra);
    match (&vals[0], &vals[1], &vals[2]) {
        (Value::Str(p), Value::Str(t), Value::Str(r)) => {
            helper(p, t.as_bytes(), Some(r.as_bytes()), &options)
        }
        _ => Value::Error,
    }
}

pub fn regexps(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    substitute(args, cx, f, "")
}

pub fn replace(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    substitute(args, cx, f, "f")
}

pub fn replace_all(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    substitute(args, cx, f, "fg")
}

/// `regexpMember(pattern, list [, options])`: whether any string of the
/// list matches; undefined when none does but some element is undefined.
/// An invalid pattern matches nothing (the reference ignores the error).
pub fn regexp_member(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 2 && args.len() != 3 {
        return Value::Error;
    }
    let all = eval_upto4(args, cx, f);
    let vals = &all[..args.len()];
    if let Some(v) = exceptional(vals) {
        return v;
    }
    let options = match vals.get(2) {
        None => "",
        Some(Value::Str(o)) => o,
        Some(_) => return Value::Error,
    };
    let (Value::Str(pattern), Value::List(list)) = (&vals[0], &vals[1]) else {
        return Value::Error;
    };
    let re = compile(pattern, options);
    let mut could_be_undefined = false;
    for item in list.items.iter() {
        match cx.eval(item, &list.frame) {
            Value::Str(s) => {
                if re.as_ref().is_some_and(|re| re.is_match(s.as_bytes())) {
                    return Value::Bool(true);
                }
            }
            Value::Undefined => could_be_undefined = true,
            _ => return Value::Error,
        }
    }
    if could_be_undefined {
        Value::Undefined
    } else {
        Value::Bool(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(p: &str, t: &str, r: &str, o: &str) -> String {
        match helper(p, t.as_bytes(), Some(r.as_bytes()), o) {
            Value::Str(s) => s.to_string(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn substitution_follows_the_reference() {
        assert_eq!(sub("a(b)c", "xabcx", "[\\1]", ""), "[b]");
        assert_eq!(sub("a", "banana", "o", "fg"), "bonono");
        assert_eq!(sub("(a)(n)", "banana", "\\2\\1", "f"), "bnaana");
        assert_eq!(sub("", "abc", "-", "f"), "-abc");
        assert_eq!(sub("b*", "abc", "-", "fg"), "Error");
        assert_eq!(sub("a", "xax", "\\9", ""), "Error");
        assert_eq!(sub("a", "xax", "\\n", ""), "\\n");
    }

    #[test]
    fn patterns_work_on_bytes() {
        assert!(compile("é", "").unwrap().is_match("café".as_bytes()));
        assert!(!compile("caf.$", "").unwrap().is_match("café".as_bytes()));
        assert!(compile("caf..$", "").unwrap().is_match("café".as_bytes()));
        assert!(compile("(", "").is_none());
        assert!(compile("ABC", "i").unwrap().is_match(b"abc"));
        assert!(!compile("ABC", "I").unwrap().is_match(b"abc"));
        assert!(compile_any_case("ABC", "I").unwrap().is_match(b"abc"));
    }
}
