//! Macro expansion: `$(NAME)`, `$(NAME:default)`, the macro functions (`$ENV()`, `$INT()`,
//! `$EVAL()`, `$Fpn()`, ...) and `$(DOLLAR)`, as HTCondor's `expand_macro` and
//! `evaluate_macro_func` (src/condor_utils/config.cpp) do them.
//!
//! HTCondor expands by rescanning: it finds the leftmost macro, replaces it with its value (the
//! raw value of the named knob, or the function's result) and starts over from the beginning,
//! until no macro is left; `$(DOLLAR)` is turned into `$` only at the end. Which text counts as
//! a macro is decided by [`find_macro`]: `$(` then identifier characters (letters, digits,
//! `_ . /`), optionally `:` and a default (which may hold `$`, spaces, `,`, `\`, `:` and one
//! parenthesised macro), then `)`; a function's body is anything up to the first `)`.
//!
//! Unlike HTCondor, which loops forever on `A = $(B)` / `B = $(A)`, expansion keeps track of
//! which knob's value each stretch of text came from and reports a macro that appears inside
//! its own expansion ([`ExpandError`]).

use std::fmt;

use super::defaults::Defaults;
use super::load::Environment;
use super::printf::{self, ArgType};
use super::table::MacroSet;
use crate::classad::parser::parse_old_expr;
use crate::classad::{eval_expr, ClassAd, Value};

/// Why a value could not be expanded. HTCondor aborts the program for these.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExpandError(pub String);

fn err<T>(message: impl Into<String>) -> Result<T, ExpandError> {
    Err(ExpandError(message.into()))
}

/// The subsystem and local name a lookup is made for: `NEGOTIATOR.X` and `<local>.X` win over
/// `X` (HTCondor's `MACRO_EVAL_CONTEXT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Context<'a> {
    pub subsys: Option<&'a str>,
    pub localname: Option<&'a str>,
}

/// A macro kind: a plain `$(NAME)` or one of the functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Normal,
    Env,
    RandomChoice,
    RandomInteger,
    Choice,
    Substr,
    Int,
    Real,
    Str,
    Eval,
    Basename,
    Dirname,
    Filename,
}

/// What may stand between the parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    /// Anything up to the first `)`.
    Anything,
    /// Identifier characters, then optionally `:` and a default.
    IdColon,
    /// Digits with `?`, `#` or `+`, then optionally `:` and anything (metaknob arguments).
    MetaArg,
}

/// A macro found in a string: `s[start..end]` is `$func(body)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    pub func: Func,
    pub start: usize,
    /// The text between `$` and `(` (`""`, `ENV`, `Fpq`, ...).
    pub name_end: usize,
    pub body_start: usize,
    pub body_end: usize,
    pub end: usize,
}

impl Found {
    pub fn body<'s>(&self, s: &'s str) -> &'s str {
        &s[self.body_start..self.body_end]
    }

    fn func_name<'s>(&self, s: &'s str) -> &'s str {
        &s[self.start + 1..self.name_end]
    }
}

/// HTCondor's identifier characters (`condor_isidchar`).
pub fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/')
}

/// A valid knob name: one or more identifier characters.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(is_id_char)
}

/// The characters allowed after the `:` of `$(NAME:default)` besides identifier characters.
const COLON_DEFAULT_EXTRA: &[u8] = b"$ ,\\:";

type PrefixFn = fn(&[u8]) -> Option<(Func, Body)>;

/// `$`, `$ENV`, `$INT`, ... as the configuration language knows them (`is_config_macro`).
fn config_prefix(prefix: &[u8]) -> Option<(Func, Body)> {
    match prefix {
        b"$" => return Some((Func::Normal, Body::IdColon)),
        [b'$', b'$', ..] => return None,
        _ => {}
    }
    if prefix.get(1) == Some(&b'F')
        && prefix[2..]
            .iter()
            .all(|c| b"pnxdqabfwu".contains(&(c | 0x20)))
    {
        return Some((Func::Filename, Body::Anything));
    }
    let func = match &prefix[1..] {
        b"ENV" => return Some((Func::Env, Body::IdColon)),
        b"RANDOM_CHOICE" => Func::RandomChoice,
        b"RANDOM_INTEGER" => Func::RandomInteger,
        b"CHOICE" => Func::Choice,
        b"SUBSTR" => Func::Substr,
        b"INT" => Func::Int,
        b"REAL" => Func::Real,
        b"STRING" => Func::Str,
        b"EVAL" => Func::Eval,
        b"BASENAME" => Func::Basename,
        b"DIRNAME" => Func::Dirname,
        _ => return None,
    };
    Some((func, Body::Anything))
}

/// Only `$(<digits>...)`: the arguments of a metaknob.
fn meta_arg_prefix(prefix: &[u8]) -> Option<(Func, Body)> {
    (prefix == b"$").then_some((Func::Normal, Body::MetaArg))
}

/// Finds the leftmost macro at or after `from` that `skip` does not reject (HTCondor's
/// `next_config_macro`).
fn find_macro(
    s: &str,
    from: usize,
    prefix: PrefixFn,
    skip: &dyn Fn(Func, &str) -> bool,
) -> Option<Found> {
    let b = s.as_bytes();
    let mut t = from;
    'scan: loop {
        // The next `$word(` that names a macro.
        let (start, paren, func, body_kind) = loop {
            let dollar = t + memchr(b'$', &b[t..])?;
            let mut p = dollar + 1;
            if b.get(p) == Some(&b'$') {
                p += 1;
            }
            while p < b.len() && (b[p].is_ascii_alphanumeric() || b[p] == b'_') {
                p += 1;
            }
            if b.get(p) == Some(&b'(') {
                if let Some((func, body)) = prefix(&b[dollar..p]) {
                    break (dollar, p, func, body);
                }
            }
            t = p;
        };
        let body_start = paren + 1;
        let mut v = body_start;
        match body_kind {
            Body::Anything => {
                while v < b.len() && b[v] != b')' {
                    v += 1;
                }
            }
            Body::IdColon | Body::MetaArg => {
                let meta = body_kind == Body::MetaArg;
                let mut after_colon = false;
                while v < b.len() && b[v] != b')' {
                    let c = b[v];
                    v += 1;
                    if c == b':' && !after_colon {
                        after_colon = true;
                        continue;
                    }
                    if after_colon {
                        if c == b'(' {
                            if let Some(close) = memchr(b')', &b[v..]) {
                                v += close + 1;
                                continue;
                            }
                        } else if meta || COLON_DEFAULT_EXTRA.contains(&c) {
                            continue;
                        }
                    }
                    let ok = if meta {
                        c.is_ascii_digit() || matches!(c, b'?' | b'#' | b'+')
                    } else {
                        is_id_char(c)
                    };
                    if !ok {
                        t = body_start;
                        continue 'scan;
                    }
                }
            }
        }
        if b.get(v) != Some(&b')') {
            t = body_start;
            continue;
        }
        if skip(func, &s[body_start..v]) {
            t = v;
            continue;
        }
        return Some(Found {
            func,
            start,
            name_end: paren,
            body_start,
            body_end: v,
            end: v + 1,
        });
    }
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&c| c == needle)
}

fn is_dollar(func: Func, body: &str) -> bool {
    func == Func::Normal && body.eq_ignore_ascii_case("DOLLAR")
}

/// Whether `s` holds anything [`Scope::expand`] would change.
pub fn has_macro(s: &str) -> bool {
    s.contains('$') && find_macro(s, 0, config_prefix, &|_, _| false).is_some()
}

/// How many substitutions one expansion may make before it is taken for runaway.
const MAX_STEPS: usize = 100_000;
/// How long an expanded value may grow.
const MAX_LEN: usize = 64 * 1024 * 1024;
/// How deeply macro functions may expand their arguments within one another.
const MAX_DEPTH: u32 = 64;

/// Everything a lookup or an expansion needs: the knobs, the defaults, the environment (for
/// `$ENV()`) and the subsystem.
#[derive(Clone, Copy)]
pub struct Scope<'a> {
    pub set: &'a MacroSet,
    pub defaults: &'a Defaults,
    pub env: &'a Environment,
    pub ctx: Context<'a>,
}

impl fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope").field("ctx", &self.ctx).finish()
    }
}

/// A stretch of partly expanded text that came from a knob's value.
struct Span {
    name: String,
    start: usize,
    end: usize,
}

/// Where expansion finds the values of names: HTCondor's `MACRO_SET` and `MACRO_EVAL_CONTEXT`
/// as `lookup_macro` and `expand_macro` see them. The configuration ([`Scope`]) and the
/// submit language (`crate::submit`) each provide one.
pub trait MacroSource {
    /// The raw (unexpanded) value of `name`, as `lookup_macro` finds it.
    fn lookup(&self, name: &str) -> Option<&str>;

    /// An environment variable, for `$ENV()`.
    fn env_var(&self, name: &str) -> Option<&str>;

    /// The directory that `$Ff()` makes relative paths absolute against (the context's `cwd`).
    fn cwd(&self) -> Option<&str> {
        None
    }

    /// The name a self-reference may also be written as: `X` inside `SUBSYS.X = $(X) more`.
    fn self_alias<'n>(&self, _name: &'n str) -> Option<&'n str> {
        None
    }
}

impl<'a> Scope<'a> {
    /// The raw value of `name` as HTCondor's `lookup_macro` finds it: `<local>.NAME`, then
    /// `<subsys>.NAME`, then `NAME`, each in the configuration and then in the defaults.
    pub fn lookup(&self, name: &str) -> Option<&'a str> {
        for prefix in [self.ctx.localname, self.ctx.subsys].into_iter().flatten() {
            if let Some(e) = self.set.get_prefixed(prefix, name) {
                return Some(&e.raw);
            }
            if let Some(v) = self.defaults.get_prefixed(prefix, name) {
                return Some(v);
            }
        }
        if let Some(e) = self.set.get(name) {
            return Some(&e.raw);
        }
        self.defaults.get(name)
    }

    /// Expands every macro of `text`.
    pub fn expand(&self, text: &str) -> Result<String, ExpandError> {
        Expander::new(self).expand(text)
    }

    /// The expanded value of knob `name` (`None` when it is not defined anywhere).
    pub fn expand_knob(&self, name: &str) -> Result<Option<String>, ExpandError> {
        Expander::new(self).expand_knob(name)
    }

    /// Expands only references to `name` itself (`X = $(X) more`); see [`Expander::expand_self`].
    pub fn expand_self(&self, text: &str, name: &str) -> Result<String, ExpandError> {
        Expander::new(self).expand_self(text, name)
    }
}

impl MacroSource for Scope<'_> {
    fn lookup(&self, name: &str) -> Option<&str> {
        Scope::lookup(self, name)
    }

    fn env_var(&self, name: &str) -> Option<&str> {
        self.env.get(name)
    }

    fn self_alias<'n>(&self, name: &'n str) -> Option<&'n str> {
        for prefix in [self.ctx.localname, self.ctx.subsys].into_iter().flatten() {
            if name.len() > prefix.len() + 1
                && name.as_bytes()[prefix.len()] == b'.'
                && name[..prefix.len()].eq_ignore_ascii_case(prefix)
            {
                return Some(&name[prefix.len() + 1..]);
            }
        }
        None
    }
}

/// Macro expansion over a [`MacroSource`].
pub struct Expander<'s, S: MacroSource + ?Sized> {
    src: &'s S,
}

impl<'s, S: MacroSource + ?Sized> Expander<'s, S> {
    pub fn new(src: &'s S) -> Self {
        Expander { src }
    }

    /// Expands every macro of `text`.
    pub fn expand(&self, text: &str) -> Result<String, ExpandError> {
        self.expand_within(text, None, 0)
    }

    /// The expanded value of macro `name` (`None` when it is not defined anywhere).
    pub fn expand_knob(&self, name: &str) -> Result<Option<String>, ExpandError> {
        match self.src.lookup(name) {
            None => Ok(None),
            Some(raw) => self.expand_within(raw, Some(name), 0).map(Some),
        }
    }

    fn expand_within(
        &self,
        text: &str,
        owner: Option<&str>,
        depth: u32,
    ) -> Result<String, ExpandError> {
        if !text.contains('$') {
            return Ok(text.to_owned());
        }
        if depth > MAX_DEPTH {
            return err(format!(
                "macro functions nested too deeply while expanding {text}"
            ));
        }
        let mut s = text.to_owned();
        let mut spans: Vec<Span> = owner
            .map(|name| Span {
                name: name.to_ascii_lowercase(),
                start: 0,
                end: usize::MAX,
            })
            .into_iter()
            .collect();
        let mut steps = 0;
        while let Some(found) = find_macro(&s, 0, config_prefix, &|f, body| is_dollar(f, body)) {
            steps += 1;
            if steps > MAX_STEPS {
                return err(format!("macro expansion does not end: {text}"));
            }
            spans.retain(|sp| sp.end > found.start || sp.start > found.start);
            let (value, from_knob) = self.evaluate(&s, &found, depth)?;
            // The knob a plain `$(NAME)` took its value from (to catch a value that uses itself).
            let knob = from_knob.then(|| {
                let body = found.body(&s);
                body.split_once(':').map_or(body, |(n, _)| n)
            });
            if let Some(name) = knob {
                if spans.iter().any(|sp| {
                    sp.start <= found.start
                        && found.start < sp.end
                        && sp.name.eq_ignore_ascii_case(name)
                }) {
                    return err(format!(
                        "macro expansion loop: $({name}) is used in its own value"
                    ));
                }
            }
            // Only a value holding `$` can hold a later macro: track where the others came
            // from only then.
            let knob = knob
                .filter(|_| value.contains('$'))
                .map(|n| n.to_ascii_lowercase());
            let old_len = found.end - found.start;
            let delta = value.len() as isize - old_len as isize;
            for sp in &mut spans {
                if sp.end == usize::MAX {
                    continue;
                }
                if sp.start > found.start {
                    sp.start = sp.start.saturating_add_signed(delta);
                    sp.end = sp.end.saturating_add_signed(delta);
                } else if found.end <= sp.end {
                    sp.end = sp.end.saturating_add_signed(delta);
                } else {
                    sp.end = found.start + value.len();
                }
            }
            if let Some(name) = knob {
                if !value.is_empty() {
                    spans.push(Span {
                        name,
                        start: found.start,
                        end: found.start + value.len(),
                    });
                }
            }
            s.replace_range(found.start..found.end, &value);
            if s.len() > MAX_LEN {
                return err(format!("macro expansion of {text} grows without bound"));
            }
        }
        // $(DOLLAR) last, rescanning from the start each time as HTCondor does.
        while let Some(found) = find_macro(&s, 0, config_prefix, &|f, body| !is_dollar(f, body)) {
            s.replace_range(found.start..found.end, "$");
        }
        Ok(s)
    }

    /// Expands only references to `name` itself (`X = $(X) more`), as HTCondor does when a
    /// definition is read (`expand_self_macro`). With a subsystem or local name, `PREFIX.X` also
    /// counts `$(X)` as a self-reference.
    pub fn expand_self(&self, text: &str, name: &str) -> Result<String, ExpandError> {
        if !text.contains('$') {
            return Ok(text.to_owned());
        }
        let selfless = self.src.self_alias(name);
        let is_self = |func: Func, body: &str| -> bool {
            if func != Func::Normal && func != Func::Filename {
                return false;
            }
            [Some(name), selfless].into_iter().flatten().any(|n| {
                body.len() >= n.len()
                    && body.is_char_boundary(n.len())
                    && body[..n.len()].eq_ignore_ascii_case(n)
                    && (body.len() == n.len() || body.as_bytes()[n.len()] == b':')
            })
        };
        let mut s = text.to_owned();
        let mut steps = 0;
        while let Some(found) = find_macro(&s, 0, config_prefix, &|f, body| !is_self(f, body)) {
            steps += 1;
            if steps > MAX_STEPS {
                return err(format!("macro expansion does not end: {text}"));
            }
            let (value, _) = self.evaluate(&s, &found, 0)?;
            s.replace_range(found.start..found.end, &value);
            if s.len() > MAX_LEN {
                return err(format!("macro expansion of {text} grows without bound"));
            }
        }
        Ok(s)
    }

    /// Looks `arg` up as a knob, falling back to the text itself, and expands the result (how
    /// the functions read their arguments).
    fn knob_or_text(&self, arg: &str, depth: u32) -> Result<String, ExpandError> {
        let value = self.src.lookup(arg).unwrap_or(arg);
        self.expand_within(value, None, depth + 1)
    }

    /// The value of one macro; for a plain `$(NAME)` whose value came from a knob, also that
    /// knob's name.
    fn evaluate(
        &self,
        s: &str,
        found: &Found,
        depth: u32,
    ) -> Result<(std::borrow::Cow<'s, str>, bool), ExpandError> {
        use std::borrow::Cow;
        let body = found.body(s);
        let value = match found.func {
            Func::Normal => {
                let (name, default) = match body.split_once(':') {
                    Some((name, default)) => (name, Some(default)),
                    None => (body, None),
                };
                return Ok(match (self.src.lookup(name), default) {
                    (Some(v), _) if !v.is_empty() => (Cow::Borrowed(v), true),
                    (_, Some(default)) => (Cow::Owned(default.to_owned()), false),
                    (Some(_), None) | (None, None) => (Cow::Borrowed(""), false),
                });
            }
            Func::Env => {
                let (name, default) = match body.split_once(':') {
                    Some((name, default)) => (name, Some(default)),
                    None => (body, None),
                };
                match self.src.env_var(name) {
                    Some(v) => v.to_owned(),
                    None => default.unwrap_or("UNDEFINED").to_owned(),
                }
            }
            Func::RandomChoice => self.random_choice(body, depth)?,
            Func::RandomInteger => random_integer(body)?,
            Func::Choice => self.choice(body, depth)?,
            Func::Substr => self.substr(body, depth)?,
            Func::Int | Func::Real => self.number(found.func, body, depth)?,
            Func::Str => self.string(body, depth)?,
            Func::Eval => self.eval(body, depth)?,
            Func::Basename | Func::Dirname | Func::Filename => {
                let value = self.src.lookup(body).unwrap_or(body);
                let value = self.expand_within(value, None, depth + 1)?;
                filename_parts(found.func, found.func_name(s), &value, self.src.cwd())
            }
        };
        Ok((Cow::Owned(value), false))
    }

    fn random_choice(&self, body: &str, depth: u32) -> Result<String, ExpandError> {
        let mut entries = tokens(body, ",");
        if entries.len() == 1 {
            if let Some(list) = self.src.lookup(&entries[0]) {
                let list = self.expand_within(list, None, depth + 1)?;
                entries = tokens(&list, DEFAULT_DELIMS);
            }
        }
        if entries.is_empty() {
            return err("$RANDOM_CHOICE() macro in config file empty!");
        }
        let i = rand::random::<u32>() as usize % entries.len();
        Ok(entries.swap_remove(i))
    }

    fn choice(&self, body: &str, depth: u32) -> Result<String, ExpandError> {
        let entries: Vec<String> = tokens_untrimmed(body, ",")
            .into_iter()
            .map(|e| e.trim_matches(super::reader::is_space).to_owned())
            .collect();
        if entries.len() < 2 {
            return err("$CHOICE() config macro: no index!");
        }
        let index_text = self.knob_or_text(&entries[0], depth)?;
        let index = match integer_value(&index_text) {
            Some(i) if (0..i64::from(i32::MAX)).contains(&i) => i as usize,
            _ => return err(format!("$CHOICE() macro: {index_text} is invalid index!")),
        };
        let items = if entries.len() == 2 {
            let Some(list) = self.src.lookup(&entries[1]) else {
                return err(format!(
                    "$CHOICE() macro: no list named \"{}\"!",
                    entries[1]
                ));
            };
            tokens(&self.expand_within(list, None, depth + 1)?, ",")
        } else {
            entries[1..].to_vec()
        };
        match items.get(index) {
            Some(item) => Ok(item.clone()),
            None => err(format!(
                "$CHOICE() config macro: index {index} is out of range!"
            )),
        }
    }

    fn substr(&self, body: &str, depth: u32) -> Result<String, ExpandError> {
        let Some((name, args)) = body.split_once(',') else {
            return err("$SUBSTR() macro: no length specified!");
        };
        let (start_arg, len_arg) = match args.split_once(',') {
            Some((start, len)) => (start, Some(len)),
            None => (args, None),
        };
        let start_text = self.knob_or_text(start_arg, depth)?;
        let start = match integer_value(&start_text) {
            Some(i) if (i64::from(i32::MIN)..i64::from(i32::MAX)).contains(&i) => i,
            _ => {
                return err(format!(
                    "$SUBSTR() macro: {start_text} is invalid start index!"
                ))
            }
        };
        let len = match len_arg {
            None => i64::from(i32::MAX / 2),
            Some(arg) => {
                let text = self.knob_or_text(arg, depth)?;
                match integer_value(&text) {
                    Some(i) if (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&i) => i,
                    _ => return err(format!("$SUBSTR() macro: {text} is invalid length !")),
                }
            }
        };
        let Some(value) = self.src.lookup(name) else {
            return Ok(String::new());
        };
        let value = self.expand_within(value, None, depth + 1)?;
        let bytes = value.as_bytes();
        let total = bytes.len() as i64;
        let mut start = if start < 0 { total + start } else { start };
        start = start.clamp(0, total);
        let rest = total - start;
        let mut len = if len < 0 { rest + len } else { len };
        len = len.clamp(0, rest);
        let (a, b) = (start as usize, (start + len) as usize);
        Ok(String::from_utf8_lossy(&bytes[a..b]).into_owned())
    }

    fn number(&self, func: Func, body: &str, depth: u32) -> Result<String, ExpandError> {
        let (name, fmt) = match body.split_once(',') {
            Some((name, fmt)) => (name, Some(fmt)),
            None => (body, None),
        };
        let label = if func == Func::Int {
            "$INT()"
        } else {
            "$REAL()"
        };
        if let Some(fmt) = fmt {
            let bad = match printf::first_conversion(fmt) {
                None | Some(ArgType::Str) | Some(ArgType::Other) => true,
                Some(ArgType::Float) => func == Func::Int,
                Some(ArgType::Int) => func == Func::Real,
                Some(ArgType::Char) => false,
            };
            if bad {
                return err(format!(
                    "{label} macro: '{fmt}' is not a valid format specifier!"
                ));
            }
        }
        let value = self.knob_or_text(name, depth)?;
        let mut out = if func == Func::Int {
            let Some(i) = integer_value(&value) else {
                return err(format!(
                    "$INT() macro: {value} does not evaluate to an integer!"
                ));
            };
            printf::format(fmt.unwrap_or("%lld"), printf::Arg::Int(i))
        } else {
            let Some(r) = real_value(&value) else {
                return err(format!(
                    "$REAL() macro: {value} does not evaluate to an real!"
                ));
            };
            let mut out = printf::format(fmt.unwrap_or("%.16G"), printf::Arg::Float(r));
            if fmt.is_some() && !out.contains('.') {
                out.push_str(".0");
            }
            out
        };
        // HTCondor formats into a 56-byte buffer.
        if out.len() > 55 {
            let mut cut = 55;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
        }
        Ok(out)
    }

    fn string(&self, body: &str, depth: u32) -> Result<String, ExpandError> {
        let (name, fmt) = match body.split_once(',') {
            Some((name, fmt)) => (name, Some(fmt)),
            None => (body, None),
        };
        if let Some(fmt) = fmt {
            if printf::first_conversion(fmt) != Some(ArgType::Str) {
                return err(format!(
                    "$STRING macro: '{fmt}' is not a valid format specifier!"
                ));
            }
        }
        let mut value = self.knob_or_text(name, depth)?;
        if let Some(Value::Str(s)) = evaluate_text(&value) {
            value = s.to_string();
        }
        Ok(match fmt {
            Some(fmt) => printf::format(fmt, printf::Arg::Str(&value)),
            None => value,
        })
    }

    fn eval(&self, body: &str, depth: u32) -> Result<String, ExpandError> {
        let raw = self.src.lookup(body).unwrap_or(body);
        let expanded = raw.contains('$');
        let text = self.expand_within(raw, None, depth + 1)?;
        Ok(match evaluate_text(&text) {
            Some(Value::Str(s)) => s.to_string(),
            Some(v) => crate::classad::unparse::value_to_string(&v),
            None if expanded => text,
            None => String::new(),
        })
    }
}

/// Parses `text` as a ClassAd expression (old-ClassAd rules, as HTCondor's
/// `ParseClassAdRvalExpr`) and evaluates it against an empty ad; `None` if it does not parse.
pub fn evaluate_text(text: &str) -> Option<Value> {
    let expr = parse_old_expr(text).ok()?;
    let ad = ClassAd::new();
    Some(eval_expr(&expr, Some(&ad), None).unwrap_or(Value::Error))
}

/// C's `strtoll(s, &end, 10)` when all of `s` but trailing whitespace is the number.
fn strtoll_whole(s: &str) -> Option<i64> {
    let (v, used) = crate::classad::cnum::strtol(s.as_bytes());
    (used > 0 && s[used..].chars().all(super::reader::is_space)).then_some(v)
}

/// C's `strtod` when all of `s` but trailing whitespace is the number.
fn strtod_whole(s: &str) -> Option<f64> {
    let t = s.trim_matches(super::reader::is_space);
    if t.is_empty() {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "inf" | "infinity" | "nan") || unsigned.starts_with("nan(") {
        return lower.replace("infinity", "inf").parse().ok();
    }
    if !t
        .bytes()
        .all(|c| c.is_ascii_digit() || b"+-.eE".contains(&c))
    {
        return None;
    }
    t.parse().ok()
}

/// HTCondor's `string_is_long_param`: an integer literal, or an expression that evaluates to a
/// number (reals truncate, booleans are 0 or 1).
pub fn integer_value(s: &str) -> Option<i64> {
    if let Some(i) = strtoll_whole(s) {
        return Some(i);
    }
    match evaluate_text(s)? {
        Value::Int(i) => Some(i),
        Value::Real(r) => Some(r as i64),
        Value::Bool(b) => Some(i64::from(b)),
        _ => None,
    }
}

/// HTCondor's `string_is_double_param`.
pub fn real_value(s: &str) -> Option<f64> {
    if let Some(r) = strtod_whole(s) {
        return Some(r);
    }
    match evaluate_text(s)? {
        Value::Int(i) => Some(i as f64),
        Value::Real(r) => Some(r),
        Value::Bool(b) => Some(f64::from(u8::from(b))),
        _ => None,
    }
}

/// HTCondor's `string_is_boolean_param`: `true`/`false`/`1`/`0` (a case-insensitive prefix
/// followed only by whitespace), or an expression that evaluates to a boolean or a number.
pub fn bool_value(s: &str) -> Option<bool> {
    let lower = s.to_ascii_lowercase();
    for (word, value) in [("true", true), ("1", true), ("false", false), ("0", false)] {
        if let Some(rest) = lower.strip_prefix(word) {
            if rest.chars().all(super::reader::is_space) {
                return Some(value);
            }
            break;
        }
    }
    match evaluate_text(s)? {
        Value::Bool(b) => Some(b),
        Value::Int(i) => Some(i != 0),
        Value::Real(r) => Some(r != 0.0),
        _ => None,
    }
}

/// The separators HTCondor's string lists use by default.
pub const DEFAULT_DELIMS: &str = ", \t\r\n";

/// HTCondor's `StringTokenIterator` (trimming): tokens between delimiters, leading and trailing
/// whitespace removed, empty tokens skipped.
pub fn tokens(s: &str, delims: &str) -> Vec<String> {
    s.split(|c| delims.contains(c))
        .map(|t| t.trim_matches(super::reader::is_space))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `StringTokenIterator` without trimming: runs of delimiters still separate only once, but
/// whitespace stays part of the tokens.
fn tokens_untrimmed(s: &str, delims: &str) -> Vec<String> {
    s.split(|c| delims.contains(c))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `$RANDOM_INTEGER(min, max [, step])`.
fn random_integer(body: &str) -> Result<String, ExpandError> {
    let entries = tokens(body, ",");
    let parse = |i: usize| entries.get(i).and_then(|e| strtol_prefix(e));
    let Some(min) = parse(0) else {
        return err("$RANDOM_INTEGER() config macro: invalid min!");
    };
    let Some(max) = parse(1) else {
        return err("$RANDOM_INTEGER() config macro: invalid max!");
    };
    let step = match entries.get(2) {
        None => 1,
        Some(_) => match parse(2) {
            Some(step) if step >= 1 => step,
            _ => return err("$RANDOM_INTEGER() config macro: invalid step!"),
        },
    };
    if min > max {
        return err("$RANDOM_INTEGER() config macro: min > max!");
    }
    let choices = (step + max - min) / step;
    let pick = (rand::random::<u64>() % choices as u64) as i64;
    Ok((min + pick * step).to_string())
}

/// C's `strtol`: the leading integer of `s`, `None` if it has no digits.
fn strtol_prefix(s: &str) -> Option<i64> {
    let (v, used) = crate::classad::cnum::strtol(s.as_bytes());
    (used > 0).then_some(v)
}

/// `$Fpnxdqabfwu(path)`, `$BASENAME(path)` and `$DIRNAME(path)`: parts of a file name.
fn filename_parts(func: Func, func_name: &str, value: &str, cwd: Option<&str>) -> String {
    let mut parts = 0u32;
    let mut num_dirs = 0usize;
    let (mut quoted, mut bare, mut arg_quote, mut full_path) = (false, false, false, false);
    let mut to_path_char: Option<u8> = None;
    match func {
        Func::Basename => parts = 1 | 2,
        Func::Dirname => parts = 4,
        _ => {
            for c in func_name.bytes().skip(1) {
                match c | 0x20 {
                    b'x' => parts |= 1,
                    b'n' => parts |= 2,
                    b'p' => parts |= 4,
                    b'd' => {
                        parts |= 8;
                        num_dirs += 1;
                    }
                    b'a' => arg_quote = true,
                    b'b' => bare = true,
                    b'w' => to_path_char = Some(b'\\'),
                    b'u' => to_path_char = Some(b'/'),
                    b'q' => quoted = true,
                    b'f' => full_path = true,
                    _ => {}
                }
            }
        }
    }
    let quote = quoted.then_some(if arg_quote { b'\'' } else { b'"' });

    // Strip one pair of surrounding quotes, then those of the quote style, then add our own.
    let mut v = value.as_bytes();
    if v.len() > 1 && v[0] == v[v.len() - 1] && (v[0] == b'"' || v[0] == b'\'') {
        v = &v[1..v.len() - 1];
    }
    let mut q = 0u8;
    if let Some(&first) = v.first() {
        if first == b'"' || Some(first) == quote {
            q = first;
            v = &v[1..];
        }
    }
    if q != 0 && v.last() == Some(&q) {
        v = &v[..v.len() - 1];
    }
    let mut buf: Vec<u8> = Vec::with_capacity(v.len() + 3);
    if let Some(c) = quote {
        buf.push(c);
    }
    // `f`: a relative path is made absolute against the context's directory
    // (`strdup_full_path_quoted`); configuration has none, so only the submit language does this.
    match cwd.filter(|d| full_path && !d.is_empty() && v.first() != Some(&b'/')) {
        Some(dir) => {
            let dir = dir.as_bytes();
            let delim = to_path_char.unwrap_or(b'/');
            let trim = dir.last() == Some(&b'/') || Some(*dir.last().unwrap_or(&0)) == to_path_char;
            buf.extend_from_slice(if trim { &dir[..dir.len() - 1] } else { dir });
            buf.push(delim);
            let rel = if v.len() > 2 && v[0] == b'.' && (v[1] == b'/' || Some(v[1]) == to_path_char)
            {
                &v[2..]
            } else {
                v
            };
            buf.extend_from_slice(rel);
        }
        None => buf.extend_from_slice(v),
    }
    if let Some(c) = quote {
        buf.push(c);
    }
    if let Some(to) = to_path_char {
        let from = if to == b'/' { b'\\' } else { b'/' };
        for c in &mut buf {
            if *c == from {
                *c = to;
            }
        }
    }

    let mut end = buf.len();
    let name = buf.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1);
    let ext = (name + 1..end)
        .rev()
        .find(|&i| buf[i] == b'.')
        .unwrap_or(end);
    if name == 0 && parts & 3 != 0 {
        parts &= !(4 | 8);
    }
    let mut start = 0;
    match parts & 0xF {
        1 => {
            start = ext;
            if bare && ext < end {
                start += 1;
            }
        }
        3 => start = name,
        2 => {
            start = name;
            end = ext;
        }
        0 | 7 | 5 => {}
        4 => {
            end = name;
            if bare && name > 0 {
                end = name - 1;
            }
        }
        6 => end = ext,
        _ => {
            if name > 0 {
                start = basename_plus_dirs(&buf, num_dirs);
                match parts & 3 {
                    2 => end = ext,
                    0 => {
                        end = name;
                        if bare {
                            end = name - 1;
                        }
                    }
                    _ => {}
                }
            } else {
                start = 1.min(buf.len());
                end = start;
            }
        }
    }
    if let Some(c) = quote {
        if buf.get(start) != Some(&c) {
            if start == 0 {
                buf.insert(0, c);
                end += 1;
            } else {
                start -= 1;
                buf[start] = c;
            }
        }
        if end > 1 && buf.get(end - 1) == Some(&c) {
            end -= 1;
        }
        if end < buf.len() {
            buf[end] = c;
        } else {
            buf.push(c);
        }
        end += 1;
    }
    String::from_utf8_lossy(&buf[start..end.max(start)]).into_owned()
}

/// Where the last `num_dirs` directories and the file name start in `path`
/// (`condor_basename_plus_dirs`).
fn basename_plus_dirs(path: &[u8], num_dirs: usize) -> usize {
    let mut seps: Vec<usize> = Vec::new();
    let mut i = 0;
    if path.starts_with(b"\\\\") {
        if path.get(2) == Some(&b'.') && path.get(3) == Some(&b'\\') {
            seps.push(4);
            i = 4;
        } else {
            seps.push(2);
            i = 2;
        }
    }
    while i < path.len() {
        if path[i] == b'\\' || path[i] == b'/' {
            seps.push(i + 1);
        }
        i += 1;
    }
    for _ in 0..num_dirs {
        seps.pop();
    }
    seps.last().copied().unwrap_or(0)
}

/// Substitutes a metaknob's arguments: `$(0)` all of them, `$(N)` the Nth, `$(N?)` 1 or 0 for
/// whether it is there, `$(0#)` how many there are, `$(N+)` the Nth and everything after it,
/// `$(N:default)` with a default (HTCondor's `expand_meta_args`).
pub fn expand_meta_args(text: &str, args: &str) -> String {
    let has_args = {
        let b = text.as_bytes();
        b.windows(3)
            .any(|w| w[0] == b'$' && w[1] == b'(' && w[2].is_ascii_digit())
    };
    if args.is_empty() && !has_args {
        return text.to_owned();
    }
    let is_meta_arg =
        |_: Func, body: &str| -> bool { !body.starts_with(|c: char| c.is_ascii_digit()) };
    let mut s = text.to_owned();
    while let Some(found) = find_macro(&s, 0, meta_arg_prefix, &is_meta_arg) {
        let body = found.body(&s);
        let digits = body.bytes().take_while(u8::is_ascii_digit).count();
        let index: usize = body[..digits].parse().unwrap_or(usize::MAX);
        let mut rest = &body[digits..];
        let (mut empty_check, mut count) = (false, false);
        if let Some(r) = rest.strip_prefix('?') {
            empty_check = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix(['#', '+']) {
            count = true;
            rest = r;
        }
        let default = rest.strip_prefix(':');
        let list = tokens(args, ",");
        let value: String = if index == 0 {
            if count {
                list.len().to_string()
            } else {
                args.to_owned()
            }
        } else if count {
            // Everything from the index-th argument on: skip the arguments before it.
            let mut remain = args;
            for _ in 1..index {
                match next_token_end(remain) {
                    Some(end) => remain = &remain[end..],
                    None => {
                        remain = "";
                        break;
                    }
                }
            }
            let tail = remain.strip_prefix(',').unwrap_or(remain).to_owned();
            match (tail.is_empty(), default) {
                (true, Some(d)) => d.to_owned(),
                _ => tail,
            }
        } else {
            match (list.get(index - 1), default) {
                (Some(v), _) => v.clone(),
                (None, Some(d)) => d.to_owned(),
                (None, None) => String::new(),
            }
        };
        let trimmed = value.trim_matches(super::reader::is_space);
        let value = if empty_check {
            if trimmed.is_empty() {
                "0"
            } else {
                "1"
            }
        } else {
            trimmed
        };
        s.replace_range(found.start..found.end, value);
    }
    s
}

/// Where the first `,`-separated token of `s` ends (after skipping leading separators and
/// whitespace), or `None` if there is no token.
fn next_token_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i] == b',' || super::reader::is_space(b[i] as char)) {
        i += 1;
    }
    if i == b.len() {
        return None;
    }
    while i < b.len() && b[i] != b',' {
        i += 1;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::table::{Origin, SourceId};

    fn scope_with(knobs: &[(&str, &str)], f: impl FnOnce(Scope<'_>)) {
        let mut set = MacroSet::new();
        for (name, value) in knobs {
            set.insert(
                name,
                value.to_string(),
                Origin::special(SourceId::OVER),
                false,
                false,
            );
        }
        let defaults = Defaults::with_local_dir("/pool");
        let env = Environment::from_pairs([("HOME", "/home/u")]);
        f(Scope {
            set: &set,
            defaults: &defaults,
            env: &env,
            ctx: Context::default(),
        });
    }

    fn expand(knobs: &[(&str, &str)], text: &str) -> Result<String, ExpandError> {
        let mut out = None;
        scope_with(knobs, |scope| out = Some(scope.expand(text)));
        out.unwrap()
    }

    #[test]
    fn plain_macros_and_defaults() {
        let k = [("A", "x"), ("B", "$(A)y"), ("E", "")];
        assert_eq!(expand(&k, "$(B)-$(a)").unwrap(), "xy-x");
        assert_eq!(
            expand(&k, "$(NOPE)|$(NOPE:d1)|$(E:d2)|$(A:d3)").unwrap(),
            "|d1|d2|x"
        );
        assert_eq!(expand(&k, "$(NOPE:$(A))").unwrap(), "x");
        assert_eq!(expand(&k, "$(A B) $(A").unwrap(), "$(A B) $(A");
        assert_eq!(expand(&k, "$(DOLLAR)(A) $$(A)").unwrap(), "$(A) $$(A)");
        assert_eq!(expand(&k, "$(LOCAL_DIR)/x").unwrap(), "/pool/x");
    }

    #[test]
    fn loops_are_reported() {
        let k = [
            ("A", "$(B)"),
            ("B", "x $(A)"),
            ("C", "$(C:)"),
            ("D", "$(NOPE:$(NOPE))"),
        ];
        let e = expand(&k, "$(A)").unwrap_err();
        assert!(e.0.contains("loop"), "{e}");
        assert!(expand(&k, "$(C)").is_err());
        assert_eq!(expand(&k, "$(D)").unwrap(), "");
        let mut out = None;
        scope_with(&k, |s| out = Some(s.expand_knob("B")));
        assert!(out.unwrap().unwrap_err().0.contains("$(B)"));
    }

    #[test]
    fn functions() {
        let k = [
            ("X", "2"),
            ("Y", "6"),
            ("XYArea", "$(X) * $(Y)"),
            ("Name", "abcdef"),
            ("CL", "x, y , z"),
            ("slist", "\"a,B,c\""),
            ("F", "/tmp/dir/simulate.tar.exe"),
        ];
        for (text, want) in [
            ("$INT(XYArea)", "12"),
            ("$INT(XYArea,%04d)", "0012"),
            ("$INT(7.9)", "7"),
            ("$REAL(XYArea)", "12"),
            ("$REAL(XYArea,%g)", "12.0"),
            ("$EVAL(slist)", "a,B,c"),
            ("$EVAL(3.5)", "3.500000000000000E+00"),
            ("$EVAL(x y z)", ""),
            ("$STRING(slist,Name: %s)", "Name: a,B,c"),
            ("$SUBSTR(Name, 0, -2)", "abcd"),
            ("$SUBSTR(Name, -1)", "f"),
            ("$CHOICE(2, CL)", "z"),
            ("$CHOICE(X, a, b, c)", "c"),
            ("$ENV(HOME)|$ENV(NOPE)|$ENV(NOPE:d)", "/home/u|UNDEFINED|d"),
            (
                "$Fn(F)|$Fx(F)|$Fp(F)|$Fd(F)|$Fdb(F)",
                "simulate.tar|.exe|/tmp/dir/|dir/|dir",
            ),
            (
                "$Fqn(F)|$Fnx(F)|$Fpb(F)|$Fxb(F)|$Fdd(F)",
                "\"simulate.tar\"|simulate.tar.exe|/tmp/dir|exe|tmp/dir/",
            ),
            (
                "$BASENAME(F)|$DIRNAME(F)|$F(F)",
                "simulate.tar.exe|/tmp/dir/|/tmp/dir/simulate.tar.exe",
            ),
            ("$Fqa(F)", "'/tmp/dir/simulate.tar.exe'"),
            ("$Fw(F)", "\\tmp\\dir\\simulate.tar.exe"),
            ("$Fn(x.y)|$Fp(x.y)|$Fd(x)", "x||"),
            ("$RANDOM_CHOICE(only)|$RANDOM_INTEGER(4, 4)", "only|4"),
        ] {
            assert_eq!(expand(&k, text).unwrap(), want, "{text}");
        }
        for bad in [
            "$INT(nope)",
            "$CHOICE(9, a, b)",
            "$SUBSTR(Name)",
            "$INT(X,%s)",
            "$RANDOM_INTEGER(5, 1)",
        ] {
            assert!(expand(&k, bad).is_err(), "{bad}");
        }
        for _ in 0..20 {
            let v: i64 = expand(&k, "$RANDOM_INTEGER(0, 8, 2)")
                .unwrap()
                .parse()
                .unwrap();
            assert!((0..=8).contains(&v) && v % 2 == 0, "{v}");
        }
    }

    #[test]
    fn self_references() {
        let mut out = None;
        scope_with(&[("A", "$(B) x")], |s| {
            out = Some(s.expand_self("$(A) y $(B) $(A:z)", "A"))
        });
        assert_eq!(out.unwrap().unwrap(), "$(B) x y $(B) $(B) x");
        let mut out = None;
        scope_with(&[], |s| out = Some(s.expand_self("$(A) y", "A")));
        assert_eq!(out.unwrap().unwrap(), " y");
    }

    #[test]
    fn meta_args() {
        let t = "N=$(1:1) T=$(2+:100%) C=$(0#) Q=$(3?) A=$(0) X=$(2)";
        assert_eq!(expand_meta_args(t, ""), "N=1 T=100% C=0 Q=0 A= X=");
        assert_eq!(
            expand_meta_args(t, "3, , 50%"),
            "N=3 T=, 50% C=2 Q=0 A=3, , 50% X=50%"
        );
        assert_eq!(expand_meta_args("$($(1)) $(1:x)", "ME"), "$(ME) ME");
    }

    #[test]
    fn typed_readings() {
        assert_eq!(integer_value(" 12 "), Some(12));
        assert_eq!(integer_value("3 * 7"), Some(21));
        assert_eq!(integer_value("2.7"), Some(2));
        assert_eq!(integer_value("true"), Some(1));
        assert_eq!(integer_value("x"), None);
        assert_eq!(real_value("2 + 0.5"), Some(2.5));
        assert_eq!(real_value("\"7\""), None);
        assert_eq!(bool_value("TRUE   "), Some(true));
        assert_eq!(bool_value("2"), Some(true));
        assert_eq!(bool_value("1 > 0"), Some(true));
        assert_eq!(bool_value("0.0"), Some(false));
        for bad in ["truex", "yes", "T", "\"true\"", "undefined", "1abc"] {
            assert_eq!(bool_value(bad), None, "{bad}");
        }
    }
}
