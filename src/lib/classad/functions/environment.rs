//! HTCondor's job-environment and argument helpers (`envV1ToV2`,
//! `mergeEnvironment`, `listToArgs`, `argsToList`) and the user functions
//! (`userHome`, `userMap`).
//!
//! The environment and argument syntaxes are HTCondor's (env.cpp,
//! condor_arglist.cpp): V1 environments are `NAME=value` entries separated
//! by `;` (or a leading delimiter character chosen by the string), V2 ones
//! are white-space separated with single quotes, a doubled quote standing
//! for a quote. Variables merge into a name-sorted table, later values
//! winning.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::super::ast::Expr;
use super::super::eval::{Eval, Frame};
use super::super::value::Value;
use super::{as_c_int, list_of_exprs};

/// A variable's value, or `None` for an unexpanded `$$(...)` entry kept
/// verbatim (HTCondor's `NO_ENVIRONMENT_VALUE`).
type EnvTable = BTreeMap<String, Option<String>>;

/// `Env::SetEnvWithErrorMessage`: one `NAME=value` entry.
fn set_env_entry(env: &mut EnvTable, entry: &str) -> bool {
    if entry.is_empty() {
        return false;
    }
    match entry.find('=') {
        None if entry.contains("$$") => {
            env.insert(entry.to_string(), None);
            true
        }
        None | Some(0) => false,
        Some(i) => {
            env.insert(entry[..i].to_string(), Some(entry[i + 1..].to_string()));
            true
        }
    }
}

/// The delimiter characters a V1 string may announce by starting with one.
fn is_permitted_delim(c: char) -> bool {
    "!#$%&*+,-/:;<>?@^`|~\x1f".contains(c)
}

/// `Env::MergeFromV1AutoDelim`.
fn merge_v1(env: &mut EnvTable, s: &str) -> bool {
    let mut delim = ';';
    let mut rest = s;
    if let Some(c) = s.chars().next() {
        if c == delim || is_permitted_delim(c) {
            delim = c;
            rest = &s[c.len_utf8()..];
        }
    }
    // `Env::ReadFromDelimitedString` per entry: leading white space
    // dropped, the entry ends at the delimiter or a newline.
    let mut input = rest;
    while !input.is_empty() {
        input = input.trim_start_matches([' ', '\t', '\n', '\r']);
        let end = input.find(['\n', delim]).unwrap_or(input.len());
        let entry = &input[..end];
        input = input.get(end + 1..).unwrap_or("");
        if !entry.is_empty() && !set_env_entry(env, entry) {
            return false;
        }
    }
    true
}

/// `split_args`: V2 raw arguments; `None` for an unbalanced quote.
pub fn split_args(s: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut buf = String::new();
    let mut token = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                token = true;
                loop {
                    match chars.next() {
                        None => return None,
                        Some('\'') if chars.peek() == Some(&'\'') => {
                            chars.next();
                            buf.push('\'');
                        }
                        Some('\'') => break,
                        Some(c) => buf.push(c),
                    }
                }
            }
            ' ' | '\t' | '\n' | '\r' => {
                if token {
                    token = false;
                    out.push(std::mem::take(&mut buf));
                }
            }
            c => {
                token = true;
                buf.push(c);
            }
        }
    }
    if token {
        out.push(buf);
    }
    Some(out)
}

/// `append_arg`: one argument in V2 raw syntax, quoted where needed.
fn append_arg(out: &mut String, arg: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    if arg.is_empty() {
        out.push_str("''");
    }
    for c in arg.chars() {
        if matches!(c, ' ' | '\t' | '\n' | '\r' | '\'') {
            // Extend a quoted section just closed rather than open another.
            if out.ends_with('\'') {
                out.pop();
            } else {
                out.push('\'');
            }
            if c == '\'' {
                out.push('\'');
            }
            out.push(c);
            out.push('\'');
        } else {
            out.push(c);
        }
    }
}

/// `join_args`.
pub fn join_args<'a>(args: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for a in args {
        append_arg(&mut out, a);
    }
    out
}

/// `Env::getDelimitedStringV2Raw`.
fn env_v2_raw(env: &EnvTable) -> String {
    let entries: Vec<String> = env
        .iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k}={v}"),
            None => k.clone(),
        })
        .collect();
    join_args(entries.iter().map(String::as_str))
}

/// `envV1ToV2(env)`: a V1 environment string in V2 syntax.
pub fn env_v1_to_v2(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() != 1 {
        return Value::Error;
    }
    match cx.eval(&args[0], f) {
        Value::Undefined => Value::Undefined,
        Value::Str(s) => {
            let mut env = EnvTable::new();
            if merge_v1(&mut env, &s) {
                Value::string(env_v2_raw(&env))
            } else {
                Value::Error
            }
        }
        _ => Value::Error,
    }
}

/// `mergeEnvironment(env, ...)`: V2 environments merged left to right;
/// undefined arguments are skipped.
pub fn merge_environment(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    let mut env = EnvTable::new();
    for a in args {
        match cx.eval(a, f) {
            Value::Undefined => {}
            Value::Str(s) => {
                let Some(entries) = split_args(&s) else {
                    return Value::Error;
                };
                for e in &entries {
                    if !set_env_entry(&mut env, e) {
                        return Value::Error;
                    }
                }
            }
            _ => return Value::Error,
        }
    }
    Value::string(env_v2_raw(&env))
}

/// The optional syntax-version argument of `listToArgs`/`argsToList`
/// (1 or 2, default 2); `None` for anything else.
fn syntax_version(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Option<i32> {
    if args.len() < 2 {
        return Some(2);
    }
    match as_c_int(&cx.eval(&args[1], f)) {
        Some(v @ (1 | 2)) => Some(v),
        _ => None,
    }
}

/// `listToArgs(list [, version])`: a list of strings as an argument string.
pub fn list_to_args(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.is_empty() || args.len() > 2 {
        return Value::Error;
    }
    let Some(version) = syntax_version(args, cx, f) else {
        return Value::Error;
    };
    let Value::List(list) = cx.eval(&args[0], f) else {
        return Value::Error;
    };
    let mut items = Vec::with_capacity(list.items.len());
    for e in list.items.iter() {
        match cx.eval(e, &list.frame) {
            Value::Str(s) => items.push(s),
            _ => return Value::Error,
        }
    }
    if version == 1 {
        if items.iter().any(|s| s.contains([' ', '\t', '\r', '\n'])) {
            return Value::Error;
        }
        Value::string(items.iter().map(|s| &**s).collect::<Vec<_>>().join(" "))
    } else {
        Value::string(join_args(items.iter().map(|s| &**s)))
    }
}

/// `argsToList(args [, version])`: an argument string as a list of strings.
pub fn args_to_list(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.is_empty() || args.len() > 2 {
        return Value::Error;
    }
    let Some(version) = syntax_version(args, cx, f) else {
        return Value::Error;
    };
    let Value::Str(s) = cx.eval(&args[0], f) else {
        return Value::Error;
    };
    let items = if version == 1 {
        // Unix V1 syntax: white-space separated, no quoting.
        s.split([' ', '\t', '\n', '\r'])
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    } else {
        match split_args(&s) {
            Some(items) => items,
            None => return Value::Error,
        }
    };
    list_of_exprs(
        items
            .into_iter()
            .map(|s| Expr::Lit(Value::string(s)))
            .collect(),
    )
}

/// Whether `userHome` may look users up: HTCondor's
/// `CLASSAD_ENABLE_USER_HOME` (default false), here read from the
/// environment as `_CONDOR_CLASSAD_ENABLE_USER_HOME`.
fn user_home_enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| {
        std::env::var("_CONDOR_CLASSAD_ENABLE_USER_HOME")
            .map(|v| {
                matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "true" | "t" | "yes" | "y" | "1"
                )
            })
            .unwrap_or(false)
    })
}

/// `userHome(user [, default])`: the user's home directory, else the
/// default (when a non-empty string), else undefined (error when the user
/// is not a string). Without arguments the evaluation fails.
pub fn user_home(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.is_empty() || args.len() > 2 {
        return cx.fail();
    }
    let default = if args.len() == 2 {
        match cx.eval(&args[1], f) {
            Value::Str(s) if !s.is_empty() => Some(s),
            _ => None,
        }
    } else {
        None
    };
    let or_default = |v: Value| default.clone().map(Value::Str).unwrap_or(v);
    let user = match cx.eval(&args[0], f) {
        Value::Undefined if default.is_none() => return Value::Undefined,
        Value::Str(s) => s,
        _ => return or_default(Value::Error),
    };
    if !user_home_enabled() {
        return or_default(Value::Undefined);
    }
    match nix::unistd::User::from_name(&user) {
        Ok(Some(u)) => Value::string(u.dir.to_string_lossy().into_owned()),
        _ => or_default(Value::Undefined),
    }
}

/// `userMap(map, user [, preferred [, default]])`: HTCondor's user-mapping
/// files. condorlite defines no maps, so every lookup finds no mapping: the
/// result is the default when one is given, undefined otherwise (error for
/// an error map or user).
pub fn user_map(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> Value {
    if args.len() < 2 || args.len() > 4 {
        return Value::Error;
    }
    let map = cx.eval(&args[0], f);
    let user = cx.eval(&args[1], f);
    if args.len() >= 3 {
        cx.eval(&args[2], f);
    }
    let default = if args.len() == 4 {
        Some(cx.eval(&args[3], f))
    } else {
        None
    };
    if !matches!((&map, &user), (Value::Str(_), Value::Str(_)))
        && (map.is_error() || user.is_error())
    {
        return Value::Error;
    }
    match default {
        Some(d) => cx.make_self_contained(d),
        None => Value::Undefined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v1_to_v2(s: &str) -> Option<String> {
        let mut env = EnvTable::new();
        merge_v1(&mut env, s).then(|| env_v2_raw(&env))
    }

    #[test]
    fn environments_convert_as_htcondor_does() {
        assert_eq!(v1_to_v2("A=1;B=2").as_deref(), Some("A=1 B=2"));
        assert_eq!(
            v1_to_v2("A=has space;B=x").as_deref(),
            Some("A=has' 'space B=x")
        );
        assert_eq!(v1_to_v2("A='q'").as_deref(), Some("A=''''q''''"));
        assert_eq!(v1_to_v2("|A=1|B=2").as_deref(), Some("A=1 B=2"));
        assert_eq!(v1_to_v2("bogus"), None);
        assert_eq!(v1_to_v2("").as_deref(), Some(""));
    }

    #[test]
    fn arguments_round_trip() {
        assert_eq!(split_args("a 'b c' d").unwrap(), ["a", "b c", "d"]);
        assert_eq!(split_args("'it''s'").unwrap(), ["it's"]);
        assert!(split_args("'open").is_none());
        assert_eq!(join_args(["a", "b c"]), "a b' 'c");
        assert_eq!(join_args(["it's"]), "it''''s");
        assert_eq!(join_args([""]), "''");
    }
}
