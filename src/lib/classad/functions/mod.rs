//! The built-in function library: libclassad's (fnCall.cpp) and the ones
//! HTCondor registers on top (compat_classad.cpp).
//!
//! A builtin receives its argument *expressions* and evaluates what it needs,
//! so that lazy functions (`ifThenElse`, `evalInEachContext`) can be lazy.
//! Names are looked up case-insensitively at parse time; the few functions
//! whose behaviour depends on the spelling (libclassad's `versionLT` and
//! friends compare their own name case-sensitively) get a different
//! implementation per spelling.
//!
//! When libclassad's function "fails" (returns false, aborting the whole
//! evaluation) because an argument's evaluation failed, nothing needs doing
//! here: the evaluator already remembers the failure. Only the functions that
//! fail on their own (`random(0)`, `userHome()`) call [`Eval::fail`].
//!
//! The modules:
//! - [`misc`]: `ifThenElse`, the type predicates, conversions, `eval`,
//!   `unparse`, `unresolved`, `debug`, `random`.
//! - [`strings`]: `strcat`/`join`, case, `substr`, `strcmp`, `split*`.
//! - [`math`]: rounding, `pow`, `quantize`.
//! - [`lists`]: membership, `size`, aggregates, `anycompare`/`allcompare`,
//!   `evalInEachContext`/`countMatches`.
//! - [`regex`]: the PCRE-style pattern functions (on the `regex` crate).
//! - [`stringlist`]: HTCondor's `stringList*` family.
//! - [`version`]: `versioncmp` and friends (natural ordering).
//! - [`environment`]: environment/argument strings, `userHome`, `userMap`.
//! - [`time`]: time literals and their printing, the time functions.
//! - [`strftime`]: a C-locale `strftime` for `formatTime`.
//! - [`cnum`]: C's numeric conversions (`strtod`, casts) as the reference
//!   compiles them on x86-64.

pub use super::cnum;
pub mod environment;
pub mod lists;
pub mod math;
pub mod misc;
pub mod regex;
pub mod strftime;
pub mod stringlist;
pub mod strings;
pub mod time;
pub mod version;

use std::borrow::Cow;
use std::sync::Arc;

use super::ad::ClassAd;
use super::ast::Expr;
use super::eval::{Eval, Frame};
use super::value::{ListValue, Value};

/// A builtin function.
pub type Builtin = fn(args: &[Expr], cx: &mut Eval<'_>, frame: &Frame) -> Value;

/// The longest registered name ("stringlist_regexpmember" and friends fit).
const MAX_NAME: usize = 32;

/// The implementation of a function name, if the library has one.
pub fn lookup(name: &str) -> Option<Builtin> {
    let bytes = name.as_bytes();
    if bytes.len() > MAX_NAME {
        return None;
    }
    let mut buf = [0u8; MAX_NAME];
    for (d, s) in buf.iter_mut().zip(bytes) {
        *d = s.to_ascii_lowercase();
    }
    // Lowering ASCII bytes keeps UTF-8 valid.
    let lower = std::str::from_utf8(&buf[..bytes.len()]).ok()?;
    let f: Builtin = match lower {
        // Type predicates.
        "isundefined" => misc::is_undefined,
        "iserror" => misc::is_error,
        "isstring" => misc::is_string,
        "isinteger" => misc::is_integer,
        "isreal" => misc::is_real,
        "islist" => misc::is_list,
        "isclassad" => misc::is_classad,
        "isboolean" => misc::is_boolean,
        "isabstime" => misc::is_abstime,
        "isreltime" => misc::is_reltime,

        // Lists.
        "member" => lists::member,
        "identicalmember" => lists::identical_member,
        "size" => lists::size,
        "sum" => lists::sum,
        "avg" => lists::avg,
        "min" => lists::min,
        "max" => lists::max,
        "anycompare" => lists::any_compare,
        "allcompare" => lists::all_compare,
        "evalineachcontext" => lists::eval_in_each_context,
        "countmatches" => lists::count_matches,

        // Time.
        "time" => time::epoch_time,
        "currenttime" => time::current_time,
        "timezoneoffset" => time::time_zone_offset,
        "daytime" => time::day_time,
        "getyear" => time::get_year,
        "getmonth" => time::get_month,
        "getdayofyear" => time::get_day_of_year,
        "getdayofmonth" => time::get_day_of_month,
        "getdayofweek" => time::get_day_of_week,
        "getdays" => time::get_days,
        "gethours" => time::get_hours,
        "getminutes" => time::get_minutes,
        "getseconds" => time::get_seconds,
        "splittime" => time::split_time,
        "formattime" => time::format_time,
        "abstime" => time::abs_time,
        "reltime" => time::rel_time,
        "interval" => time::interval,

        // Strings.
        "strcat" => strings::strcat,
        "join" => strings::join,
        "toupper" => strings::to_upper,
        "tolower" => strings::to_lower,
        "substr" => strings::substr,
        "strcmp" => strings::strcmp,
        "stricmp" => strings::stricmp,
        "split" => strings::split,
        "splitusername" => strings::split_user_name,
        "splitslotname" => strings::split_slot_name,

        // Versions: libclassad finds these case-insensitively but then
        // compares its own name case-sensitively, so only the registered
        // spelling works and any other evaluates to error.
        "versioncmp" => version::version_cmp,
        "versionle" => version::pick(name, "versionLE", version::version_le),
        "versionlt" => version::pick(name, "versionLT", version::version_lt),
        "versionge" => version::pick(name, "versionGE", version::version_ge),
        "versiongt" => version::pick(name, "versionGT", version::version_gt),
        "versioneq" => version::pick(name, "versionEQ", version::version_eq),
        "version_in_range" => version::version_in_range,

        // Patterns.
        "regexp" => regex::regexp,
        "regexpmember" => regex::regexp_member,
        "regexps" => regex::regexps,
        "replace" => regex::replace,
        "replaceall" => regex::replace_all,

        // Conversions.
        "int" => misc::conv_int,
        "real" => misc::conv_real,
        "string" => misc::conv_string,
        "bool" => misc::conv_bool,

        // Expressions.
        "unparse" => misc::unparse,
        "unresolved" => misc::unresolved,
        "ifthenelse" => misc::if_then_else,
        "eval" => misc::eval,
        "debug" => misc::debug,

        // Math.
        "floor" => math::floor,
        "ceil" | "ceiling" => math::ceiling,
        "round" => math::round,
        "pow" => math::pow,
        "quantize" => math::quantize,
        "random" => misc::random,

        // String lists.
        "stringlistsintersect" => stringlist::intersect,
        "stringlistsize" => stringlist::size,
        "stringlistsum" => stringlist::sum,
        "stringlistavg" => stringlist::avg,
        "stringlistmin" => stringlist::min,
        "stringlistmax" => stringlist::max,
        "stringlistmember" => stringlist::member,
        "stringlistimember" => stringlist::imember,
        "stringlistsubsetmatch" => stringlist::subset_match,
        "stringlistisubsetmatch" => stringlist::isubset_match,
        "stringlist_regexpmember" => stringlist::regexp_member,

        // HTCondor's environment and user functions.
        "envv1tov2" => environment::env_v1_to_v2,
        "mergeenvironment" => environment::merge_environment,
        "listtoargs" => environment::list_to_args,
        "argstolist" => environment::args_to_list,
        "userhome" => environment::user_home,
        "usermap" => environment::user_map,

        _ => return None,
    };
    Some(f)
}

// ----- helpers shared by the modules -----

/// Evaluates the (at most four) arguments, in order, without allocating;
/// the caller has checked the count.
fn eval_upto4(args: &[Expr], cx: &mut Eval<'_>, f: &Frame) -> [Value; 4] {
    let mut vals: [Value; 4] = Default::default();
    for (v, a) in vals.iter_mut().zip(args) {
        *v = cx.eval(a, f);
    }
    vals
}

/// A list value built from values (made self-contained).
fn list_value(cx: &Eval<'_>, values: Vec<Value>) -> Value {
    let items: Vec<Expr> = values
        .into_iter()
        .map(|v| Expr::from_value(&cx.make_self_contained(v)))
        .collect();
    list_of_exprs(items)
}

/// A list value of element expressions that need no scope (literals).
fn list_of_exprs(items: Vec<Expr>) -> Value {
    Value::List(ListValue {
        items: Arc::from(items),
        frame: Frame::detached(ClassAd::new()),
    })
}

/// A list of string literals.
fn string_list(items: impl IntoIterator<Item = String>) -> Value {
    list_of_exprs(
        items
            .into_iter()
            .map(|s| Expr::Lit(Value::string(s)))
            .collect(),
    )
}

/// A string value from bytes that may have been cut inside a UTF-8
/// sequence (the reference works on bytes; our strings are UTF-8).
fn string_from_bytes(b: Vec<u8>) -> Value {
    match String::from_utf8(b) {
        Ok(s) => Value::string(s),
        Err(e) => Value::string(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// The outcome of libclassad's `convertValueToStringValue`.
enum Stringified<'v> {
    Str(Cow<'v, str>),
    Undefined,
    Error,
}

/// libclassad's `convertValueToStringValue`: strings as they are, other
/// scalars and lists/ads unparsed, times in their literal text form.
fn stringify<'v>(cx: &Eval<'_>, v: &'v Value) -> Stringified<'v> {
    match v {
        Value::Undefined => Stringified::Undefined,
        Value::Error => Stringified::Error,
        Value::Str(s) => Stringified::Str(Cow::Borrowed(s)),
        Value::AbsTime(t) => Stringified::Str(Cow::Owned(time::abstime_to_string(*t))),
        Value::RelTime(r) => Stringified::Str(Cow::Owned(time::reltime_to_string(*r))),
        Value::Bool(b) => Stringified::Str(Cow::Borrowed(if *b { "true" } else { "false" })),
        Value::Int(i) => Stringified::Str(Cow::Owned(i.to_string())),
        Value::List(_) | Value::Ad(_) => {
            let v = cx.make_self_contained(v.clone());
            Stringified::Str(Cow::Owned(super::unparse::value_to_string(&v)))
        }
        Value::Real(_) => Stringified::Str(Cow::Owned(super::unparse::value_to_string(v))),
    }
}

/// `stringify`, keeping only a string result.
fn stringify_opt<'v>(cx: &Eval<'_>, v: &'v Value) -> Option<Cow<'v, str>> {
    match stringify(cx, v) {
        Stringified::Str(s) => Some(s),
        _ => None,
    }
}

/// A value converted back to a Value result (`convertValueToStringValue`'s
/// output value).
fn stringified_value(cx: &Eval<'_>, v: &Value) -> Value {
    match stringify(cx, v) {
        Stringified::Str(Cow::Borrowed(_)) if matches!(v, Value::Str(_)) => v.clone(),
        Stringified::Str(s) => Value::string(s.into_owned()),
        Stringified::Undefined => Value::Undefined,
        Stringified::Error => Value::Error,
    }
}

/// libclassad's `Value::IsIntegerValue(int&)`: an integer truncated to C int.
fn as_c_int(v: &Value) -> Option<i32> {
    match v {
        Value::Int(i) => Some(*i as i32),
        _ => None,
    }
}

/// libclassad's `convertValueToRealValue`; `None` when it "could not
/// convert" (undefined, error, lists, ads, unparsable strings).
fn to_real(v: &Value) -> Option<f64> {
    match v {
        Value::Undefined | Value::Error | Value::List(_) | Value::Ad(_) => None,
        Value::Str(s) => {
            let (r, used) = cnum::strtod(s.as_bytes());
            if used == 0 && r == 0.0 {
                None
            } else {
                Some(r)
            }
        }
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        Value::AbsTime(t) => Some(t.secs as f64),
        Value::RelTime(r) => Some(cnum::reltime_secs(*r) as f64),
    }
}

/// libclassad's `convertValueToIntegerValue` as a result value.
fn to_int_value(v: &Value) -> Value {
    match v {
        Value::Undefined => Value::Undefined,
        Value::Error | Value::List(_) | Value::Ad(_) => Value::Error,
        Value::Str(s) => {
            let (r, used) = cnum::strtod(s.as_bytes());
            let i = cnum::double_to_ll(r);
            if used == 0 && i == 0 {
                Value::Error
            } else {
                Value::Int(i)
            }
        }
        Value::Bool(b) => Value::Int(*b as i64),
        Value::Int(i) => Value::Int(*i),
        Value::Real(r) => Value::Int(cnum::double_to_ll(*r)),
        Value::AbsTime(t) => Value::Int(t.secs),
        Value::RelTime(r) => Value::Int(cnum::reltime_secs(*r)),
    }
}

/// `to_real` as a result value.
fn to_real_value(v: &Value) -> Value {
    match v {
        Value::Undefined => Value::Undefined,
        _ => to_real(v).map(Value::Real).unwrap_or(Value::Error),
    }
}
