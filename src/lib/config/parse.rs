//! Reading configuration text into the macro set: assignments, `@=` multi-line values,
//! `include`, `use` (metaknobs), `if`/`elif`/`else`/`endif`, `error` and `warning`, as
//! HTCondor's `Parse_macros` and `Parse_config_string` (src/condor_utils/config.cpp) read them.
//!
//! A value is stored raw: only references to the knob being defined (`X = $(X) more`) are
//! expanded when it is read; everything else is expanded when the knob is looked up. Names on
//! the left are expanded (`$(PREFIX)_X = 1`). `NAME : value` is accepted with a warning, as in
//! HTCondor (an error after `#opt:strict`). `include command` (and a file name ending in `|`)
//! runs a program, which condorlite only does when `ALLOW_INCLUDE_COMMAND` is true.

use std::path::Path;
use std::process::Command;

use super::cond::{IfLine, IfStack};
use super::defaults::Defaults;
use super::expand::{self, Context, ExpandError, Scope};
use super::load::Environment;
use super::metaknobs;
use super::reader::{is_space, CommentRules, LineReader};
use super::table::{MacroSet, MetaOrigin, Origin, SourceId};
use super::ConfigError;

/// How deeply includes and metaknobs may nest (`CONFIG_MAX_NESTING_DEPTH`).
pub const MAX_NESTING: u32 = 20;

/// The knob that lets configuration run programs (`include command`, `|` sources).
pub const ALLOW_COMMAND_KNOB: &str = "ALLOW_INCLUDE_COMMAND";

/// What the parser writes into and what it reads from.
pub struct Parser<'p> {
    pub set: &'p mut MacroSet,
    pub defaults: &'p Defaults,
    pub env: &'p Environment,
    pub ctx: Context<'p>,
    /// Keep definitions whose value is the default (`-writeconfig`/`-summary` show them).
    pub keep_defaults: bool,
    /// Files read because something included them, in order.
    pub included: Vec<String>,
    pub warnings: Vec<String>,
}

/// A failure inside a metaknob, before the `use` line's location is known.
enum TemplateError {
    Invalid(String),
    TooDeep,
    Error(String),
    Expand(ExpandError),
}

impl From<ExpandError> for TemplateError {
    fn from(e: ExpandError) -> Self {
        TemplateError::Expand(e)
    }
}

pub(crate) fn is_op(c: u8) -> bool {
    c == b'=' || c == b':'
}

/// One line of a metaknob template or an `-append` line, split as
/// `Parse_config_string` splits it: an optional `use `, the name, the
/// operator (`=`, `:` or `@` for `@=`, 0 when none) and the value.
pub(crate) struct TemplateLine<'a> {
    pub is_use: bool,
    pub name: &'a str,
    pub op: u8,
    pub rhs: &'a str,
}

/// Splits a template line; `None` when it has no operator.
pub(crate) fn split_template_line(line: &str) -> Option<TemplateLine<'_>> {
    let mut l = line;
    let is_use = l.len() >= 4 && l[..4].eq_ignore_ascii_case("use ");
    if is_use {
        l = l[4..].trim_start_matches(is_space);
    }
    let b = l.as_bytes();
    let name_end = b
        .iter()
        .position(|&c| is_space(c as char) || is_op(c))
        .unwrap_or(b.len());
    let name = &l[..name_end];
    let mut p = name_end;
    let mut op = 0u8;
    if p < b.len() {
        if is_op(b[p]) {
            op = b[p];
        }
        p += 1;
    }
    while p < b.len() {
        let c = b[p];
        if c == b'@' {
            if b.get(p + 1) != Some(&b'=') {
                op = 0;
                break;
            }
            op = b'@';
            p += 1;
        } else if is_op(c) {
            if is_op(op) {
                op = 0;
                break;
            }
            op = c;
        } else if !is_space(c as char) {
            break;
        }
        p += 1;
    }
    if p >= b.len() && !is_op(op) && op != b'@' {
        return None;
    }
    let rhs = l[p.min(l.len())..].trim_start_matches(is_space);
    Some(TemplateLine {
        is_use,
        name,
        op,
        rhs,
    })
}

/// An `@=tag` value being read.
struct HereDoc {
    name: String,
    tag: String,
    data: String,
}

impl<'p> Parser<'p> {
    pub fn new(
        set: &'p mut MacroSet,
        defaults: &'p Defaults,
        env: &'p Environment,
        ctx: Context<'p>,
    ) -> Parser<'p> {
        Parser {
            set,
            defaults,
            env,
            ctx,
            keep_defaults: false,
            included: Vec::new(),
            warnings: Vec::new(),
        }
    }

    pub fn scope(&self) -> Scope<'_> {
        Scope {
            set: self.set,
            defaults: self.defaults,
            env: self.env,
            ctx: self.ctx,
        }
    }

    /// Whether configuration may run programs.
    pub fn commands_allowed(&self) -> bool {
        let setting = match self.scope().expand_knob(ALLOW_COMMAND_KNOB) {
            Ok(Some(v)) if !v.is_empty() => Some(v),
            _ => self
                .env
                .iter()
                .find(|(k, _)| {
                    k.len() > 8
                        && k[..8].eq_ignore_ascii_case("_condor_")
                        && k[8..].eq_ignore_ascii_case(ALLOW_COMMAND_KNOB)
                })
                .map(|(_, v)| v.to_owned()),
        };
        setting.is_some_and(|v| expand::bool_value(&v) == Some(true))
    }

    /// Defines `name`, as HTCondor's `insert_macro` does: a redefinition expands
    /// self-references once more; a new knob whose value is its default is not stored.
    pub fn insert(
        &mut self,
        name: &str,
        value: String,
        origin: Origin,
        here_doc: bool,
    ) -> Result<(), ExpandError> {
        let default = self
            .defaults
            .global_or_base(name)
            .map(|d| self.defaults.value(d))
            .filter(|d| !d.is_empty());
        let value = if self.set.get(name).is_some() {
            self.scope().expand_self(&value, name)?
        } else {
            value
        };
        let matches_default = default.is_some_and(|d| same_value(d, &value));
        if matches_default
            && !name.contains('.')
            && !self.keep_defaults
            && self.set.get(name).is_none()
        {
            return Ok(());
        }
        self.set
            .insert(name, value, origin, here_doc, matches_default);
        Ok(())
    }

    fn command_output(&mut self, command: &str) -> Result<String, String> {
        if !self.commands_allowed() {
            return Err(format!(
                "running a command for configuration is not enabled (set {ALLOW_COMMAND_KNOB} = true): {command}"
            ));
        }
        let args = split_command(command);
        let Some((program, rest)) = args.split_first() else {
            return Err("not a valid command, | must be at the end".into());
        };
        let (status, stdout) = crate::bounded::command_output(Command::new(program).args(rest))
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::InvalidData {
                    format!("the output of {command} was not read: {e}")
                } else {
                    format!("not a valid command {program}: {e}")
                }
            })?;
        if !status.success() {
            return Err(format!(
                "command terminated with exit code {}",
                status.code().unwrap_or(-1)
            ));
        }
        Ok(String::from_utf8_lossy(&stdout).into_owned())
    }

    /// Reads a source: a file, or a command when it ends with `|` (or `command` is set).
    /// Returns `Ok(None)` when the file does not exist.
    pub fn read_source(
        &mut self,
        name: &str,
        command: bool,
    ) -> Result<Option<(String, String)>, String> {
        let trimmed = name.trim_end_matches([' ', '|']);
        if command || name.contains('|') {
            if !name.trim_end().ends_with('|') && !command {
                return Err("not a valid command, | must be at the end".into());
            }
            let text = self.command_output(trimmed)?;
            return Ok(Some((format!("{trimmed} |"), text)));
        }
        match crate::bounded::read_file(name) {
            Ok(bytes) => Ok(Some((
                name.to_owned(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{} file {name}: {}", cant(&e), io_reason(&e))),
        }
    }

    /// Parses one source's text. `label` names it in messages.
    pub fn parse_text(
        &mut self,
        text: &str,
        source: SourceId,
        label: &str,
        depth: u32,
    ) -> Result<(), ConfigError> {
        let at = |line: u32, message: String| ConfigError::at(label, line, message);
        let mut reader = LineReader::new(text);
        let mut ifs = IfStack::default();
        let mut here: Option<HereDoc> = None;
        let mut colon_warns = true;
        let mut colon_strict = false;
        while let Some(line) = reader.next_line() {
            let lineno = reader.line();
            let origin = Origin {
                source,
                line: Some(lineno),
                meta: None,
            };
            if line.starts_with('#') || line.chars().all(is_space) {
                if line.eq_ignore_ascii_case("#opt:oldcomment") {
                    reader.rules = CommentRules::Old;
                } else if line.eq_ignore_ascii_case("#opt:newcomment") {
                    reader.rules = CommentRules::New;
                } else if line.eq_ignore_ascii_case("#opt:strict") {
                    colon_strict = true;
                }
                continue;
            }
            if let Some(h) = &mut here {
                if line.strip_prefix('@') == Some(h.tag.as_str()) {
                    let h = here.take().expect("inside a multi-line value");
                    let value = self
                        .scope()
                        .expand_self(&h.data, &h.name)
                        .map_err(|e| at(lineno, e.0))?;
                    self.insert(&h.name, value, origin, true)
                        .map_err(|e| at(lineno, e.0))?;
                } else {
                    if !h.data.is_empty() {
                        h.data.push('\n');
                    }
                    h.data.push_str(&line);
                }
                continue;
            }
            let mut l = line.as_str();
            if let Some(rest) = l.strip_prefix(':') {
                let is_if = rest.len() >= 2
                    && rest.as_bytes()[..2] == *b"if"
                    && rest.as_bytes().get(2).is_none_or(|&c| is_space(c as char));
                if ifs.inside_if() || is_if {
                    l = rest;
                }
            }
            match ifs.line(l, &self.scope()).map_err(|e| at(lineno, e.0))? {
                IfLine::Handled => continue,
                IfLine::Error(msg) => return Err(at(lineno, msg)),
                IfLine::Other => {}
            }
            if !ifs.enabled() {
                continue;
            }

            // NAME, then the operator: = or : or @=.
            let b = l.as_bytes();
            let name_end = b
                .iter()
                .position(|&c| is_space(c as char) || is_op(c))
                .unwrap_or(b.len());
            if name_end == b.len() {
                if l.starts_with('[') {
                    continue; // a Windows .ini section header
                }
                return Err(at(
                    lineno,
                    format!("syntax error, expected NAME = value: {l}"),
                ));
            }
            let mut op = b[name_end];
            let mut pop = name_end;
            let mut p = name_end + 1;
            let mut word_before_op = None;
            if !is_op(op) {
                while p < b.len() && is_space(b[p] as char) {
                    p += 1;
                }
                if p < b.len() && !is_op(b[p]) && b[p] != b'@' {
                    word_before_op = Some(p);
                }
                while p < b.len() && !is_op(b[p]) && b[p] != b'@' {
                    p += 1;
                }
                pop = p;
                op = b.get(p).copied().unwrap_or(0);
                if op != 0 {
                    p += 1;
                    if op == b'@' {
                        if b.get(p) == Some(&b'=') {
                            p += 1;
                        } else {
                            op = 0;
                        }
                    }
                }
            }
            if !is_op(op) && op != b'@' {
                return Err(at(
                    lineno,
                    format!("syntax error, expected NAME = value: {l}"),
                ));
            }
            while p < b.len() && is_space(b[p] as char) {
                p += 1;
            }
            let rhs = &l[p..];
            let raw_name = &l[..name_end];
            let keyword = raw_name.strip_prefix('@').unwrap_or(raw_name);
            let has_at = keyword.len() != raw_name.len();
            let between = l[name_end..pop].trim_matches(is_space);

            if op == b':' && keyword.eq_ignore_ascii_case("use") {
                let category = self.scope().expand(between).map_err(|e| at(lineno, e.0))?;
                if category.is_empty() {
                    return Err(at(lineno, format!("use needs a keyword before : {rhs}")));
                }
                self.use_templates(&category, rhs, origin, depth + 1)
                    .map_err(|msg| at(lineno, msg))?;
                continue;
            }
            let is_error = keyword.eq_ignore_ascii_case("error");
            if op == b':' && (is_error || keyword.eq_ignore_ascii_case("warning")) {
                let msg = self.scope().expand(rhs).map_err(|e| at(lineno, e.0))?;
                if is_error {
                    return Err(at(lineno, msg));
                }
                self.warnings
                    .push(format!("{label}, line {lineno}: warning: {msg}"));
                continue;
            }
            if op == b':' && keyword.eq_ignore_ascii_case("include") {
                self.include(between, rhs, depth)
                    .map_err(|e| e.unwrap_or_else(|msg| at(lineno, msg)))?;
                continue;
            }
            if has_at {
                return Err(at(lineno, format!("Illegal Identifier: <{raw_name}>")));
            }
            if op == b':' {
                if keyword.eq_ignore_ascii_case("RunBenchmarks") {
                    colon_warns = false;
                } else if colon_strict {
                    return Err(at(
                        lineno,
                        format!(
                            "obsolete use of ':' for parameter assignment at {raw_name} : {rhs}"
                        ),
                    ));
                } else if colon_warns {
                    self.warnings.push(format!(
                        "{label}, line {lineno}: warning: obsolete use of ':' for parameter assignment at {raw_name} : {rhs}"
                    ));
                }
            }
            if let Some(w) = word_before_op {
                self.warnings.push(format!(
                    "{label}, line {lineno}: warning: ignoring '{}' between {raw_name} and '{}'",
                    l[w..pop].trim_end_matches(is_space),
                    op as char
                ));
            }
            let name = self.scope().expand(raw_name).map_err(|e| at(lineno, e.0))?;
            if !expand::is_valid_name(&name) {
                return Err(at(lineno, format!("Illegal Identifier: <{name}>")));
            }
            if op == b'@' {
                here = Some(HereDoc {
                    name,
                    tag: rhs.to_owned(),
                    data: String::new(),
                });
                continue;
            }
            let value = self
                .scope()
                .expand_self(rhs, &name)
                .map_err(|e| at(lineno, e.0))?;
            self.insert(&name, value, origin, false)
                .map_err(|e| at(lineno, e.0))?;
        }
        let last = reader.line();
        if let Some(h) = here {
            return Err(at(
                last,
                format!("Found end-of-file while scanning for '@{}'", h.tag),
            ));
        }
        if ifs.inside_if() {
            return Err(at(last, "endif(s) not found before end-of-file".into()));
        }
        Ok(())
    }

    /// `include [ifexist] [command [into FILE]] : SOURCE`. An error that belongs to the
    /// included file comes back whole (`Err(Ok(..))`); one about the include line as a message.
    fn include(
        &mut self,
        options: &str,
        target: &str,
        depth: u32,
    ) -> Result<(), Result<ConfigError, String>> {
        let mut must_exist = true;
        let mut command = false;
        let mut into: Option<&str> = None;
        let words: Vec<&str> = options
            .split([' ', '\t'])
            .filter(|w| !w.is_empty())
            .collect();
        let mut i = 0;
        if matches!(words.first(), Some(&"ifexist") | Some(&"ifexists")) {
            must_exist = false;
            i += 1;
        }
        if matches!(words.get(i), Some(&"command") | Some(&"output")) {
            command = true;
            i += 1;
            if words.get(i) == Some(&"into") {
                match words.get(i + 1) {
                    Some(file) => into = Some(file),
                    None => return Err(Err(format!(
                        "unexpected keyword(s) '{options}' after include expected filename after keyword 'into'"
                    ))),
                }
                i += 2;
            }
        }
        if i < words.len() {
            return Err(Err(format!(
                "unexpected keyword(s) '{options}' after include"
            )));
        }
        let scope = self.scope();
        let target = scope.expand(target).map_err(|e| Err(e.0))?;
        let read = match into {
            Some(into) => {
                if into.ends_with('|') {
                    return Err(Err(
                        "destination for 'include into' may not be a script".into()
                    ));
                }
                let cache = scope.expand(into).map_err(|e| Err(e.0))?;
                if cache.is_empty() {
                    return Err(Err("destination for 'include into' expanded to ''".into()));
                }
                match self.read_source(&cache, false) {
                    Ok(Some(found)) => Ok(Some(found)),
                    Ok(None) => match self.command_output(target.trim_end_matches([' ', '|'])) {
                        Ok(text) => std::fs::write(&cache, &text)
                            .map(|_| Some((cache.clone(), text)))
                            .map_err(|e| format!("can't write {cache}: {}", io_reason(&e))),
                        Err(e) => Err(e),
                    },
                    Err(e) => Err(e),
                }
            }
            None => self.read_source(&target, command),
        };
        let (label, text) = match read {
            Ok(Some(found)) => found,
            Ok(None) if !must_exist => return Ok(()),
            Ok(None) => {
                return Err(Err(format!(
                    "can't open file {target}: No such file or directory"
                )))
            }
            Err(_) if !must_exist => return Ok(()),
            Err(e) => return Err(Err(e)),
        };
        if depth + 1 >= MAX_NESTING {
            return Err(Err("includes nested too deep".into()));
        }
        self.included.push(label.clone());
        let source = self.set.add_source(&label);
        self.parse_text(&text, source, &label, depth + 1)
            .map_err(Ok)
    }

    /// `use CATEGORY : TEMPLATE[(args)] [TEMPLATE ...]`.
    pub fn use_templates(
        &mut self,
        category: &str,
        rhs: &str,
        origin: Origin,
        depth: u32,
    ) -> Result<(), String> {
        let shown = category.split(':').next().unwrap_or(category);
        let Some(cat) = metaknobs::category(category) else {
            return Err(format!("use {shown}: is not a valid use category"));
        };
        let mut rest = rhs;
        while let Some((knob, args, after)) = next_template(rest) {
            rest = after;
            let Some(template) = metaknobs::lookup(cat, knob) else {
                return Err(format!("use {shown}: does not recognise {knob}"));
            };
            let text = expand::expand_meta_args(template.text, args);
            match self.parse_template(&text, &origin, template, depth) {
                Ok(()) => {}
                Err(TemplateError::Invalid(detail)) => {
                    return Err(format!("use {shown}: {knob} is invalid: {detail}"))
                }
                Err(TemplateError::TooDeep) => {
                    return Err(format!("use {shown}: {knob} nesting too deep"))
                }
                Err(TemplateError::Error(msg)) => return Err(msg),
                Err(TemplateError::Expand(e)) => return Err(e.0),
            }
        }
        Ok(())
    }

    /// Parses a template's text (HTCondor's `Parse_config_string`).
    fn parse_template(
        &mut self,
        text: &str,
        origin: &Origin,
        template: &'static metaknobs::Template,
        depth: u32,
    ) -> Result<(), TemplateError> {
        let mut ifs = IfStack::default();
        let mut here: Option<HereDoc> = None;
        let lines = text
            .split('\n')
            .map(|l| l.trim_matches(is_space))
            .filter(|l| !l.is_empty());
        for (offset, line) in lines.enumerate() {
            let origin = Origin {
                meta: Some(MetaOrigin {
                    category: template.category,
                    template: template.name,
                    offset: offset as u32,
                }),
                ..origin.clone()
            };
            if line.starts_with('#') {
                continue;
            }
            if let Some(h) = &mut here {
                if line.strip_prefix('@') == Some(h.tag.as_str()) {
                    let h = here.take().expect("inside a multi-line value");
                    let value = self.scope().expand_self(&h.data, &h.name)?;
                    self.insert(&h.name, value, origin, true)?;
                } else {
                    if !h.data.is_empty() {
                        h.data.push('\n');
                    }
                    h.data.push_str(line);
                }
                continue;
            }
            match ifs.line(line, &self.scope())? {
                IfLine::Handled => continue,
                IfLine::Error(msg) => return Err(TemplateError::Invalid(msg)),
                IfLine::Other => {}
            }
            if !ifs.enabled() {
                continue;
            }
            let Some(TemplateLine {
                is_use,
                name,
                op,
                rhs,
            }) = split_template_line(line)
            else {
                return Err(TemplateError::Invalid(format!("no operator in: {line}")));
            };
            if op == b':'
                && (name.eq_ignore_ascii_case("error") || name.eq_ignore_ascii_case("warning"))
            {
                let msg = self.scope().expand(rhs)?;
                if name.eq_ignore_ascii_case("error") {
                    return Err(TemplateError::Error(msg));
                }
                self.warnings.push(format!("warning: {msg}"));
                continue;
            }
            if is_use {
                if depth >= MAX_NESTING {
                    return Err(TemplateError::TooDeep);
                }
                self.use_templates(name, rhs, origin, depth + 1)
                    .map_err(TemplateError::Error)?;
                continue;
            }
            if !expand::is_valid_name(name) {
                return Err(TemplateError::Invalid(format!(
                    "Illegal Identifier: <{name}>"
                )));
            }
            if op == b'@' {
                here = Some(HereDoc {
                    name: name.to_owned(),
                    tag: rhs.to_owned(),
                    data: String::new(),
                });
                continue;
            }
            let value = self.scope().expand_self(rhs, name)?;
            self.insert(name, value, origin, false)?;
        }
        Ok(())
    }
}

/// The next `KNOB` or `KNOB(args)` of a `use` line: the knob, its arguments and the rest
/// (HTCondor's `MetaKnobAndArgs::init_from_string`).
fn next_template(s: &str) -> Option<(&str, &str, &str)> {
    let s = s.trim_start_matches(|c: char| is_space(c) || c == ',');
    let end = s
        .find(|c: char| is_space(c) || c == ',' || c == '(')
        .unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    let knob = &s[..end];
    let mut rest = s[end..].trim_start_matches(is_space);
    let mut args = "";
    if rest.starts_with('(') {
        match close_brace(rest.as_bytes(), 0, 25) {
            Some(close) if rest.as_bytes()[close] == b')' => {
                args = &rest[1..close];
                rest = &rest[close + 1..];
            }
            _ => rest = &rest[1..],
        }
        rest = rest.trim_start_matches(is_space);
    }
    Some((knob, args, rest))
}

/// The index of the bracket closing the one at `s[open]`, nesting `(` and `[`.
fn close_brace(s: &[u8], open: usize, depth: i32) -> Option<usize> {
    if depth < 0 {
        return None;
    }
    let open_ch = *s.get(open)?;
    let close_ch = match open_ch {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        b'<' => b'>',
        c => c,
    };
    let mut p = open + 1;
    loop {
        let c = *s.get(p)?;
        if c == close_ch {
            return Some(p);
        }
        if c == open_ch || c == b'(' || c == b'[' {
            p = close_brace(s, p, depth - 1)?;
        }
        p += 1;
    }
}

/// HTCondor's comparison for "this value is the default": equal, or `true`/`false` in any case.
fn same_value(default: &str, value: &str) -> bool {
    default == value
        || (default.eq_ignore_ascii_case(value)
            && (value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("false")))
}

/// A command line split into words; double quotes group words.
fn split_command(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            c if is_space(c) && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// An I/O error's reason as C's `strerror` words it.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => {
            let s = e.to_string();
            s.split(" (os error").next().unwrap_or(&s).to_owned()
        }
    }
}

/// "can't open", or for a file too large to read ([`crate::bounded`]) "can't read".
pub fn cant(e: &std::io::Error) -> &'static str {
    if e.kind() == std::io::ErrorKind::InvalidData {
        "can't read"
    } else {
        "can't open"
    }
}

/// Whether `path` names something that exists.
pub fn exists(path: &str) -> bool {
    Path::new(path).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(MacroSet, Vec<String>), ConfigError> {
        let mut set = MacroSet::new();
        let defaults = Defaults::with_local_dir("/pool");
        let env = Environment::default();
        let mut p = Parser::new(&mut set, &defaults, &env, Context::default());
        let source = p.set.add_source("test.conf");
        p.parse_text(text, source, "test.conf", 0)?;
        let warnings = std::mem::take(&mut p.warnings);
        Ok((set, warnings))
    }

    fn raw(set: &MacroSet, name: &str) -> Option<String> {
        set.get(name).map(|e| e.raw.clone())
    }

    #[test]
    fn assignments_and_self_references() {
        let (set, warnings) = parse(
            "A = xxx\nB = $(A)\nA = $(A)yyy\nA = $(A)zzz\nc:2\nX @=end\n  line 1\n# comment\n  line 2\n@end\n[Section]\nP junk = 1\n",
        )
        .unwrap();
        assert_eq!(raw(&set, "a").as_deref(), Some("xxxyyyzzz"));
        assert_eq!(raw(&set, "B").as_deref(), Some("$(A)"));
        assert_eq!(raw(&set, "C").as_deref(), Some("2"));
        assert_eq!(raw(&set, "X").as_deref(), Some("line 1\nline 2"));
        assert!(set.get("X").unwrap().multi_line);
        assert_eq!(set.get("X").unwrap().origin.line, Some(10));
        assert_eq!(raw(&set, "P").as_deref(), Some("1"));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].contains("line 5: warning: obsolete use of ':'"),
            "{}",
            warnings[0]
        );
    }

    #[test]
    fn conditionals() {
        let (set, _) = parse(
            "if defined NOPE\n X = 1\nelif true\n X = 2\n if false\n  Y = 1\n else\n  Y = 2\n endif\nelse\n X = 3\nendif\n",
        )
        .unwrap();
        assert_eq!(raw(&set, "X").as_deref(), Some("2"));
        assert_eq!(raw(&set, "Y").as_deref(), Some("2"));
    }

    #[test]
    fn errors_name_the_line() {
        for (text, want) in [
            ("A = 1\nbad line here\n", "test.conf, line 2: syntax error, expected NAME = value: bad line here"),
            ("A = 1\nif true\nB = 2\n", "test.conf, line 3: endif(s) not found before end-of-file"),
            ("A = 1\nerror : stop $(A)\n", "test.conf, line 2: stop 1"),
            ("else\n", "test.conf, line 1: else without matching if"),
            ("if a && b\nendif\n", "test.conf, line 1: a && b is not a valid if condition because complex conditionals are not supported"),
            ("X @=end\nabc\n", "test.conf, line 2: Found end-of-file while scanning for '@end'"),
            ("A-B = 1\n", "test.conf, line 1: Illegal Identifier: <A-B>"),
            ("include : /nonexistent/file\n", "test.conf, line 1: can't open file /nonexistent/file: No such file or directory"),
            ("use ROLE : Nope\n", "test.conf, line 1: use ROLE: does not recognise Nope"),
            ("use POLICY : PREEMPT_IF\n", "test.conf, line 1: use POLICY : PREEMPT_IF requires an argument. It should be the name of a config variable that has the trigger expression."),
            ("include command : echo A=1\n", "test.conf, line 1: running a command for configuration is not enabled (set ALLOW_INCLUDE_COMMAND = true): echo A=1"),
        ] {
            assert_eq!(parse(text).unwrap_err().to_string(), want, "{text}");
        }
        assert!(parse("include ifexist : /nonexistent/file\n").is_ok());
    }

    #[test]
    fn metaknobs() {
        let (set, _) = parse("use ROLE : Personal\nuse FEATURE:PartitionableSlot(2, 50%)\nMEMORY_EXCEEDED = x\nuse POLICY : PREEMPT_IF(MEMORY_EXCEEDED)\n").unwrap();
        assert_eq!(
            raw(&set, "DAEMON_LIST").as_deref(),
            Some("MASTER COLLECTOR NEGOTIATOR STARTD SCHEDD")
        );
        assert_eq!(raw(&set, "SLOT_TYPE_2").as_deref(), Some("50%"));
        // PREEMPT has a default (False), so the template extends it.
        assert_eq!(
            raw(&set, "PREEMPT").as_deref(),
            Some("$(MEMORY_EXCEEDED) || False")
        );
        let origin = &set.get("SLOT_TYPE_2").unwrap().origin;
        assert_eq!(origin.line, Some(2));
        assert_eq!(origin.meta.as_ref().unwrap().template, "PartitionableSlot");
    }

    #[test]
    fn template_syntax() {
        assert_eq!(
            next_template(" A, B(1, (2)) C"),
            Some(("A", "", ", B(1, (2)) C"))
        );
        assert_eq!(next_template("B(1, (2)) C"), Some(("B", "1, (2)", "C")));
        assert_eq!(next_template(""), None);
        assert_eq!(split_command("echo \"a b\" c"), ["echo", "a b", "c"]);
    }
}
