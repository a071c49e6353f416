//! `if`/`elif`/`else`/`endif`: the conditions HTCondor's configuration language accepts
//! (`Test_config_if_expression` in src/condor_utils/config.cpp) and the stack of nested blocks.
//!
//! A condition is `[!]` followed by one of: a number (true when non-zero), `true`/`false`
//! (also `yes`/`no`/`t`/`f`), `defined NAME` (true when NAME has a non-empty value),
//! `defined use CATEGORY[:TEMPLATE]`, or `version OP X.Y[.Z]` with OP one of `==`, `>=`, `<=`,
//! `>`, `<` (no OP means `==`). Macros are expanded first; a condition that expands to nothing is
//! false. Anything else, `&&` and `||` included, is an error.

use super::expand::{ExpandError, Expander, MacroSource};
use super::metaknobs;
use super::reader::is_space;

/// The HTCondor version condorlite's configuration language claims for `if version`.
pub const VERSION: (u32, u32, u32) = (24, 0, 24);

/// The shape of a condition's text (`expr_character_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Empty,
    Number,
    Bool,
    Identifier,
    Macro,
    Version,
    Defined,
    Complex,
}

/// Whether `text` (after leading whitespace) is the case-insensitive word `lit`, followed by
/// nothing but whitespace (`whole`) or by something other than a letter or digit.
fn is_word(text: &str, lit: &str, whole: bool) -> bool {
    let t = text.trim_start_matches(is_space);
    if t.len() < lit.len() || !t.as_bytes()[..lit.len()].eq_ignore_ascii_case(lit.as_bytes()) {
        return false;
    }
    let rest = &t[lit.len()..];
    if whole {
        rest.chars().all(is_space)
    } else {
        !rest.starts_with(|c: char| c.is_ascii_alphanumeric())
    }
}

fn shape(expr: &str, keywords: bool) -> Shape {
    const SPACE: u32 = 0x01;
    const DIGIT: u32 = 0x02;
    const ALPHA: u32 = 0x04;
    const IDENT: u32 = 0x08;
    const CMP: u32 = 0x10;
    const SUM: u32 = 0x20;
    const LOGIC: u32 = 0x40;
    const GROUP: u32 = 0x80;
    const MONEY: u32 = 0x100;
    const COLON: u32 = 0x200;
    const OTHER: u32 = 0x400;
    const FLOAT: u32 = 0x1000;
    const MACRO: u32 = 0x2000;

    let begin = expr.trim_start_matches(is_space);
    if begin.is_empty() {
        return Shape::Empty;
    }
    let b = begin.as_bytes();
    let mut i = usize::from(b[0] == b'-');
    let mut set = 0u32;
    while i < b.len() {
        let ch = b[i];
        let next = b.get(i + 1).copied();
        i += 1;
        set |= match ch {
            b'0'..=b'9' => DIGIT,
            b'.' => {
                if set == DIGIT || next.is_none_or(|n| n.is_ascii_digit()) {
                    FLOAT
                } else {
                    IDENT
                }
            }
            b'e' | b'E' => {
                if set & !FLOAT == DIGIT {
                    FLOAT
                } else {
                    ALPHA
                }
            }
            b'-' | b'+' => {
                if set != DIGIT | FLOAT {
                    SUM
                } else {
                    0
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' => ALPHA,
            b'_' | b'/' => IDENT,
            b'<'..=b'>' => CMP,
            b'!' if next == Some(b'=') => CMP,
            b'$' => {
                if next == Some(b'(') {
                    MONEY | MACRO
                } else {
                    MONEY
                }
            }
            c if is_space(c as char) => {
                if next.is_some_and(|n| !is_space(n as char)) {
                    SPACE
                } else {
                    0
                }
            }
            b'&' | b'|' => LOGIC,
            b'{'..=b'}' | b'(' | b')' | b'[' | b']' => GROUP,
            b':' => COLON,
            _ => OTHER,
        };
    }
    let simple = match set {
        0 => Some(Shape::Empty),
        DIGIT | 0x1002 => Some(Shape::Number),
        ALPHA => {
            if is_word(expr, "false", true) || is_word(expr, "true", true) {
                Some(Shape::Bool)
            } else if keywords && is_word(begin, "version", true) {
                Some(Shape::Version)
            } else if keywords && is_word(begin, "defined", true) {
                Some(Shape::Defined)
            } else {
                Some(Shape::Identifier)
            }
        }
        0x06 | 0x1006 | 0x0c | 0x0e | 0x100e => Some(Shape::Identifier),
        0x17 | 0x1017 => Some(if keywords && is_word(begin, "version", false) {
            Shape::Version
        } else {
            Shape::Complex
        }),
        0x05 | 0x205 | 0x0d | 0x20d | 0x07 | 0x0f | 0x1007 | 0x100f => {
            Some(if keywords && is_word(begin, "defined", false) {
                Shape::Defined
            } else {
                Shape::Complex
            })
        }
        _ => None,
    };
    if let Some(shape) = simple {
        return shape;
    }
    if set & MACRO != 0 && set & !(MONEY | IDENT | ALPHA | DIGIT | MACRO | COLON) == 0 {
        return Shape::Macro;
    }
    let _ = (SUM, LOGIC, GROUP, OTHER, CMP, SPACE);
    Shape::Complex
}

/// `yes`/`t` and `no`/`f`, which look like identifiers.
fn crufty_bool(expr: &str) -> Option<bool> {
    if is_word(expr, "yes", true) || is_word(expr, "t", true) {
        Some(true)
    } else if is_word(expr, "no", true) || is_word(expr, "f", true) {
        Some(false)
    } else {
        None
    }
}

/// Compares `version` with the version written in `text` (`X.Y[.Z]`, optionally prefixed with
/// `v`); `None` when `text` is not a version.
fn compare_version(text: &str) -> Option<std::cmp::Ordering> {
    let t = text.strip_prefix(['v', 'V']).unwrap_or(text);
    let mut fields = Vec::new();
    let mut rest = t;
    for _ in 0..3 {
        let sign_len = usize::from(rest.starts_with(['-', '+']));
        let n = rest[sign_len..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if n == 0 {
            break;
        }
        let v: i64 = rest[..sign_len + n].parse().ok()?;
        fields.push(v);
        rest = &rest[sign_len + n..];
        match rest.strip_prefix('.') {
            Some(r) => rest = r,
            None => break,
        }
    }
    if fields.len() < 2 || fields[0] < 6 {
        return None;
    }
    let (major, minor, sub) = VERSION;
    let theirs = (
        fields[0],
        fields[1],
        fields.get(2).copied().unwrap_or(i64::from(sub)),
    );
    Some((i64::from(major), i64::from(minor), i64::from(sub)).cmp(&theirs))
}

/// Evaluates one condition: `Ok(value)`, or `Err(reason)` when it is not a valid condition.
pub fn evaluate<S: MacroSource + ?Sized>(
    expr: &str,
    scope: &S,
) -> Result<Result<bool, String>, ExpandError> {
    let mut text = expr.to_owned();
    let expanded = expr.contains('$');
    if expanded {
        text = Expander::new(scope).expand(expr)?;
        let len = text.trim_end_matches(is_space).len();
        text.truncate(len);
    }
    let mut t = text.trim_start_matches(is_space);
    let mut inverted = false;
    if let Some(rest) = t.strip_prefix('!') {
        inverted = true;
        t = rest.trim_start_matches(is_space);
    }
    let value = if expanded && t.is_empty() {
        Ok(false)
    } else {
        evaluate_simple(t, scope)
    };
    Ok(value.map(|v| v != inverted))
}

fn evaluate_simple<S: MacroSource + ?Sized>(expr: &str, scope: &S) -> Result<bool, String> {
    let shape = shape(expr, true);
    match shape {
        Shape::Number => return Ok(crate::classad::cnum::atof(expr) != 0.0),
        Shape::Bool => return Ok(is_word(expr, "true", true)),
        Shape::Identifier => {
            if let Some(b) = crufty_bool(expr) {
                return Ok(b);
            }
        }
        Shape::Version => {
            let mut p = expr[7..].trim_start_matches(is_space);
            let negated = p.starts_with('!');
            if negated {
                p = &p[1..];
            }
            let mut op = 0i32;
            if let Some(c) = p.bytes().next().filter(|c| (b'<'..=b'>').contains(c)) {
                op = i32::from(c) - i32::from(b'=');
                p = &p[1..];
            }
            let mut or_equal = false;
            if let Some(rest) = p.strip_prefix('=') {
                or_equal = true;
                p = rest;
            }
            let p = p.trim_start_matches(is_space);
            let Some(ordering) = compare_version(p) else {
                return Err("the version literal is invalid".into());
            };
            let diff = ordering as i32;
            let result = diff == op || (or_equal && diff == 0);
            return Ok(result != negated);
        }
        Shape::Defined => {
            let p = expr.trim_start_matches(is_space)[7..].trim_start_matches(is_space);
            if p.is_empty() {
                return Ok(false);
            }
            return match shape_of_argument(p) {
                Shape::Identifier => {
                    let value = scope.lookup(p);
                    if value.is_none() && crufty_bool(p).is_some() {
                        return Ok(true);
                    }
                    Ok(value.is_some_and(|v| !v.is_empty()))
                }
                Shape::Number | Shape::Bool => Ok(true),
                _ if p.len() >= 4 && p[..4].eq_ignore_ascii_case("use ") => {
                    let p = p[4..].trim_start_matches(is_space);
                    if p.contains([' ', '\t', '\r']) {
                        return Err(
                            "defined use meta argument with internal spaces will never match"
                                .into(),
                        );
                    }
                    Ok(match metaknobs::category(p) {
                        None => false,
                        Some(category) => match p.split_once(':') {
                            None => true,
                            Some((_, "")) => true,
                            Some((_, name)) => metaknobs::lookup(category, name).is_some(),
                        },
                    })
                }
                _ => Err("defined argument must be param name, boolean, or number".into()),
            };
        }
        _ => {}
    }
    Err(if shape == Shape::Complex {
        "complex conditionals are not supported".into()
    } else {
        "expression is not a conditional".into()
    })
}

fn shape_of_argument(p: &str) -> Shape {
    shape(p, false)
}

/// The state of nested `if` blocks: HTCondor's `ConfigIfStack`, with the same limit of 63
/// levels and the same messages.
#[derive(Clone, Debug)]
pub struct IfStack {
    state: u64,
    estate: u64,
    istate: u64,
    top: u64,
}

impl Default for IfStack {
    fn default() -> Self {
        IfStack {
            state: 1,
            estate: 0,
            istate: 0,
            top: 1,
        }
    }
}

/// What a line was, for the `if` machinery.
pub enum IfLine {
    /// Not an `if`/`elif`/`else`/`endif` line.
    Other,
    /// One of them, handled.
    Handled,
    /// One of them, in error.
    Error(String),
}

fn keyword<'l>(line: &'l str, word: &str) -> Option<&'l str> {
    let b = line.as_bytes();
    if b.len() >= word.len()
        && b[..word.len()].eq_ignore_ascii_case(word.as_bytes())
        && b.get(word.len()).is_none_or(|&c| is_space(c as char))
    {
        Some(line[word.len()..].trim_start_matches(is_space))
    } else {
        None
    }
}

impl IfStack {
    /// Lines outside every false block are enabled.
    pub fn enabled(&self) -> bool {
        let mask = self.top | (self.top - 1);
        self.state & mask == mask
    }

    pub fn inside_if(&self) -> bool {
        self.top > 1
    }

    fn inside_else(&self) -> bool {
        self.top > 1 && self.istate & self.top == 0
    }

    fn begin_if(&mut self, b: bool) -> bool {
        self.top <<= 1;
        self.istate |= self.top;
        if b {
            self.state |= self.top;
            self.estate |= self.top;
        } else {
            self.state &= !self.top;
            self.estate &= !self.top;
        }
        self.top != 0
    }

    fn begin_else(&mut self) -> bool {
        if self.istate & self.top == 0 {
            return false;
        }
        self.istate &= !self.top;
        if (self.estate | self.state) & self.top != 0 {
            self.state &= !self.top;
        } else {
            self.state |= self.top;
        }
        self.top > 1
    }

    fn begin_elif(&mut self, b: bool) -> bool {
        if self.istate & self.top == 0 {
            return false;
        }
        if self.estate & self.top != 0 {
            self.state &= !self.top;
        } else if b {
            self.estate |= self.top;
            self.state |= self.top;
        } else {
            self.state &= !self.top;
        }
        self.top > 1
    }

    fn end_if(&mut self) -> bool {
        self.istate &= !self.top;
        self.top >>= 1;
        if self.top == 0 {
            *self = IfStack::default();
            return false;
        }
        true
    }

    /// Handles `line` if it is an `if`, `elif`, `else` or `endif`.
    pub fn line<S: MacroSource + ?Sized>(
        &mut self,
        line: &str,
        scope: &S,
    ) -> Result<IfLine, ExpandError> {
        if let Some(expr) = keyword(line, "if") {
            let mut b = self.enabled();
            if b {
                match evaluate(expr, scope)? {
                    Ok(v) => b = v,
                    Err(reason) => {
                        return Ok(IfLine::Error(format!(
                            "{expr} is not a valid if condition because {reason}"
                        )))
                    }
                }
            }
            if self.top >= 1 << 63 {
                return Ok(IfLine::Error("if nesting too deep!".into()));
            }
            self.begin_if(b);
            return Ok(IfLine::Handled);
        }
        if keyword(line, "else").is_some() {
            if !self.begin_else() {
                let msg = if self.inside_else() {
                    "else is not allowed after else"
                } else {
                    "else without matching if"
                };
                return Ok(IfLine::Error(msg.into()));
            }
            return Ok(IfLine::Handled);
        }
        if let Some(expr) = keyword(line, "elif") {
            let mut b = self.estate & self.top == 0 && self.state & (self.top - 1) == self.top - 1;
            if b {
                match evaluate(expr, scope)? {
                    Ok(v) => b = v,
                    Err(reason) => {
                        return Ok(IfLine::Error(format!(
                            "{expr} is not a valid elif condition because {reason}"
                        )))
                    }
                }
            }
            if !self.begin_elif(b) {
                let msg = if self.inside_else() {
                    "elif is not allowed after else"
                } else {
                    "elif without matching if"
                };
                return Ok(IfLine::Error(msg.into()));
            }
            return Ok(IfLine::Handled);
        }
        if keyword(line, "endif").is_some() {
            if !self.end_if() {
                return Ok(IfLine::Error("endif without matching if".into()));
            }
            return Ok(IfLine::Handled);
        }
        Ok(IfLine::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::defaults::Defaults;
    use crate::config::expand::{Context, Scope};
    use crate::config::load::Environment;
    use crate::config::table::{MacroSet, Origin, SourceId};

    fn cond(expr: &str) -> Result<bool, String> {
        let mut set = MacroSet::new();
        for (k, v) in [("DEF", "x"), ("EMPTY", ""), ("YES", "true"), ("NUM", "7")] {
            set.insert(k, v.into(), Origin::special(SourceId::OVER), false, false);
        }
        let defaults = Defaults::with_local_dir("/pool");
        let env = Environment::default();
        let scope = Scope {
            set: &set,
            defaults: &defaults,
            env: &env,
            ctx: Context::default(),
        };
        evaluate(expr, &scope).unwrap()
    }

    #[test]
    fn simple_conditions() {
        for (expr, want) in [
            ("true", true),
            ("FALSE", false),
            ("1", true),
            ("0", false),
            ("-2.5", true),
            ("0.0", false),
            ("yes", true),
            ("f", false),
            ("! true", false),
            ("defined DEF", true),
            ("defined EMPTY", false),
            ("defined NOPE", false),
            ("defined PRIORITY_HALFLIFE", true),
            ("! defined NOPE", true),
            ("defined 3", true),
            ("defined", false),
            ("defined use POLICY", true),
            ("defined use POLICY:Desktop", true),
            ("defined use POLICY:Nope", false),
            ("$(YES)", true),
            ("$(NOPE)", false),
            ("!$(NOPE)", true),
            ("$(NUM)", true),
            ("version >= 8.1.6", true),
            ("version > 24.0", false),
            ("version == 24.0", true),
            ("version < 25.0.0", true),
            ("version != 24.0.1", true),
        ] {
            assert_eq!(cond(expr), Ok(want), "{expr}");
        }
    }

    #[test]
    fn invalid_conditions() {
        assert_eq!(
            cond("a && b"),
            Err("complex conditionals are not supported".into())
        );
        assert_eq!(cond("maybe"), Err("expression is not a conditional".into()));
        assert_eq!(
            cond("version >= 8"),
            Err("the version literal is invalid".into())
        );
        assert_eq!(
            cond("version"),
            Err("the version literal is invalid".into())
        );
        assert_eq!(
            cond("$(DEF)"),
            Err("expression is not a conditional".into())
        );
        // Without an operator a version is not a condition.
        assert_eq!(
            cond("version 24.0.24"),
            Err("complex conditionals are not supported".into())
        );
    }
}
