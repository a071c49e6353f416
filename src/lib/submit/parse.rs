//! Reading a submit description: HTCondor's `Parse_macros` with submit syntax, driven the way
//! condor_submit drives it (src/condor_submit.V6/submit.cpp `submit_jobs`).
//!
//! The file is read up to each queue statement; the statement's arguments are expanded with
//! the definitions made so far (plus the `-append` lines, which are parsed again before every
//! statement) and its items are loaded (inline lines, a file, a command's output or globs).
//! Each statement keeps a snapshot of the table, so that the jobs of an earlier statement do
//! not see later definitions. Everything that can fail is checked here, before any job is
//! made, so that a submit either queues every job or none.
//!
//! Lines are `NAME = value`, `+Attr = value` / `MY.Attr = value` (stored as `MY.Attr`),
//! `NAME @=tag` ... `@tag` here-documents, `include [command] : source`, `use CAT : TEMPLATE`,
//! `if`/`elif`/`else`/`endif`, `error : text`, `warning : text` and queue statements
//! (`queue`, or `iterate`). A value is stored raw: only references to the name being defined
//! are expanded at once (`list = $(list) y`).

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use super::error::{StackEntry, SubmitError};
use super::hash::{Live, Origin, Predefined, Scope, SourceId, SubmitHash, SOURCE_ARGUMENT};
use super::queue::{self, ForeachArgs, ForeachMode, GlobOptions};
use super::SubmitContext;
use crate::config::cond::{IfLine, IfStack};
use crate::config::expand::{self, ExpandError, Expander};
use crate::config::parse::{is_op, split_template_line, TemplateLine};
use crate::config::reader::{is_space, LineReader};

/// How deeply includes may nest (`CONFIG_MAX_NESTING_DEPTH`).
const MAX_NESTING: u32 = 20;

/// The options of condor_submit's command line that feed the submit description.
#[derive(Clone, Debug, Default)]
pub struct CommandLine {
    /// `name=value` arguments, defined before the file is read.
    pub assignments: Vec<(String, String)>,
    /// `-append` lines, parsed before each queue statement.
    pub append: Vec<String>,
    /// The `-queue` statement (`queue ...`), used when the file has none.
    pub queue: Option<String>,
    /// `-batch-name`, which becomes the last appended line `MY.JobBatchName = "name"`.
    pub batch_name: Option<String>,
}

impl CommandLine {
    /// Adds a `name=value` argument as condor_submit reads it (`+Attr=value` is `MY.Attr`).
    pub fn add_assignment(&mut self, arg: &str) -> Result<(), SubmitError> {
        let (name, value) = arg.split_once('=').unwrap_or((arg, ""));
        let mut name = name.trim_matches(is_space).to_owned();
        let value = value.trim_matches(is_space).to_owned();
        // condor_submit tests the second character here (submit.cpp), so only a name such as
        // `++x` is rewritten; `+x` is then refused as an invalid name. Kept as HTCondor has it.
        if name.as_bytes().get(1) == Some(&b'+') {
            name = format!("MY.{}", &name[1..]);
        }
        if name.is_empty() || !expand::is_valid_name(&name) {
            return Err(SubmitError::CommandLine(format!(
                "invalid attribute name '{name}' for attrib=value assigment"
            )));
        }
        self.assignments.push((name, value));
        Ok(())
    }

    /// Adds an `-append` line; a line that is a queue statement becomes the `-queue`
    /// statement.
    pub fn add_append(&mut self, line: &str) -> Result<(), SubmitError> {
        if is_queue_statement(line).is_some() {
            if self.queue.is_some() {
                return Err(SubmitError::CommandLine(
                    "only one -queue command allowed".into(),
                ));
            }
            self.queue = Some(line.to_owned());
        } else {
            self.append.push(line.to_owned());
        }
        Ok(())
    }

    /// Sets the `-queue` arguments (the words after `-queue`).
    pub fn set_queue_args(&mut self, args: &str) -> Result<(), SubmitError> {
        if self.queue.is_some() {
            return Err(SubmitError::CommandLine(
                "only one -queue command allowed".into(),
            ));
        }
        self.queue = Some(format!("queue {args}"));
        Ok(())
    }
}

/// If `line` is a queue statement (`queue`, or `iter`/`iterate`), its arguments
/// (`SubmitHash::is_queue_statement`).
pub fn is_queue_statement(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let args = if b.len() >= 5
        && b[..5].eq_ignore_ascii_case(b"queue")
        && b.get(5).is_none_or(|&c| is_space(c as char))
    {
        &line[5..]
    } else {
        let t = line.trim_start_matches([' ', '\t', '\r', '\n']);
        let end = t.find([' ', '\t', '\r', '\n']).unwrap_or(t.len());
        let word = &t[..end];
        let n = word.len().max(4);
        if word.len() >= 4 && word.len() <= 7 && "iterate"[..n.min(7)].eq_ignore_ascii_case(word) {
            &t[end..]
        } else {
            return None;
        }
    };
    Some(args.trim_start_matches(is_space))
}

/// The first words of a DAG input file (`SubmitHash::is_dag_command`).
fn is_dag_command(line: &str) -> bool {
    const DAG: [&str; 24] = [
        "JOB",
        "PROVISIONER",
        "FINAL",
        "SERVICE",
        "SPLICE",
        "SUBDAG",
        "PARENT",
        "SUBMIT-DESCRIPTION",
        "DONE",
        "PRE_SKIP",
        "SCRIPT",
        "PRIORITY",
        "VARS",
        "CATEGORY",
        "MAXJOBS",
        "ABORT-DAG-ON",
        "CONFIG",
        "ENV",
        "SET_JOB_ATTR",
        "DOT",
        "JOBSTATE_LOG",
        "NODE_STATUS_FILE",
        "SAVE_POINT_FILE",
        "REJECT",
    ];
    let first = line
        .split([' ', '\t'])
        .find(|w| !w.is_empty())
        .unwrap_or("");
    DAG.iter().any(|d| d.eq_ignore_ascii_case(first))
}

/// One queue statement of a submit description, ready to make jobs from.
#[derive(Clone, Debug)]
pub struct Statement {
    /// The definitions as they stood at the statement (loop variables made live).
    pub hash: Arc<SubmitHash>,
    /// The line of the statement in the submit file (0 for the `-queue` statement, or for the
    /// implicit statement of a file without one).
    pub line: u32,
    /// The statement came from `-queue`.
    pub from_command_line: bool,
    pub args: ForeachArgs,
    /// Slots of the loop variables in the live table, in `args.vars` order.
    pub var_slots: Vec<usize>,
    /// The raw `executable` or `cmd` changed since the previous statement, so its jobs start
    /// a new cluster (`CheckForNewExecutable`).
    pub new_executable: bool,
    /// Warnings from expanding `matching` globs.
    pub warnings: Vec<String>,
}

/// What parsing a stream stopped at.
enum Stop {
    Eof,
    Queue(String),
}

/// A parse failure: HTCondor's return code and `errmsg` (the stack is in the parser).
struct Fail {
    code: i32,
    message: String,
}

fn fail(code: i32, message: impl Into<String>) -> Fail {
    Fail {
        code,
        message: message.into(),
    }
}

/// An `EXCEPT` while parsing (a macro function failed).
struct Except(String);

impl From<ExpandError> for Except {
    fn from(e: ExpandError) -> Self {
        Except(e.0)
    }
}

enum ParseErr {
    Fail(Fail),
    Except(Except),
}

impl From<Fail> for ParseErr {
    fn from(f: Fail) -> Self {
        ParseErr::Fail(f)
    }
}

impl From<ExpandError> for ParseErr {
    fn from(e: ExpandError) -> Self {
        ParseErr::Except(Except(e.0))
    }
}

/// The state of a submit-file parse.
pub(crate) struct Parser<'c> {
    pub hash: SubmitHash,
    pub predefined: &'c Predefined,
    live: Live,
    ctx: &'c SubmitContext<'c>,
    /// HTCondor's error stack (warnings and errors), oldest first.
    pub stack: Vec<StackEntry>,
}

impl<'c> Parser<'c> {
    pub fn new(ctx: &'c SubmitContext<'c>, predefined: &'c Predefined) -> Parser<'c> {
        Parser {
            hash: SubmitHash::new(),
            predefined,
            live: Live::default(),
            ctx,
            stack: Vec::new(),
        }
    }

    fn scope(&self) -> Scope<'_> {
        Scope::new(&self.hash, self.predefined, &self.live, &self.ctx.env, None)
    }

    fn expand(&self, text: &str) -> Result<String, ExpandError> {
        if !text.contains('$') {
            return Ok(text.to_owned());
        }
        Expander::new(&self.scope()).expand(text)
    }

    fn expand_self(&self, text: &str, name: &str) -> Result<String, ExpandError> {
        if !text.contains('$') {
            return Ok(text.to_owned());
        }
        Expander::new(&self.scope()).expand_self(text, name)
    }

    fn push(&mut self, code: i32, message: String) {
        self.stack.push(StackEntry::new(code, message));
    }

    /// Reads definitions from `reader` up to a queue statement or the end
    /// (`Parse_macros` with the submit callback).
    fn parse_stream(
        &mut self,
        reader: &mut LineReader<'_>,
        source: SourceId,
        label: &str,
        depth: u32,
        is_main: bool,
    ) -> Result<Stop, ParseErr> {
        let mut ifs = IfStack::default();
        let mut here: Option<(String, String, String)> = None; // name, tag, data
        loop {
            let Some(line) = reader.next_line() else {
                let mut result = Ok(Stop::Eof);
                if let Some((_, tag, _)) = &here {
                    self.push(
                        -1,
                        format!("Found end-of-file while scanning for '@{tag}' in {label}\n"),
                    );
                    result = Err(ParseErr::Fail(fail(-1, "")));
                }
                if ifs.inside_if() {
                    self.push(-1, format!("Error \"{label}\", Line {}: \n", reader.line()));
                    return Err(fail(-1, "endif(s) not found before end-of-file").into());
                }
                return result;
            };
            let lineno = reader.line();
            if line.starts_with('#') || line.chars().all(is_space) {
                continue;
            }
            if let Some((name, tag, data)) = &mut here {
                if line.strip_prefix('@') == Some(tag.as_str()) {
                    let value = self.expand_self(data, name)?;
                    let name = name.clone();
                    self.hash.insert(
                        &name,
                        &value,
                        Origin {
                            source,
                            line: lineno,
                        },
                    );
                    here = None;
                } else {
                    if !data.is_empty() {
                        data.push('\n');
                    }
                    data.push_str(&line);
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
            let if_line = ifs.line(l, &self.scope())?;
            match if_line {
                IfLine::Handled => continue,
                IfLine::Error(msg) => return Err(fail(-1, msg).into()),
                IfLine::Other => {}
            }
            if !ifs.enabled() {
                continue;
            }

            let b = l.as_bytes();
            let mut ptr = 0;
            while ptr < b.len() && !is_space(b[ptr] as char) && !is_op(b[ptr]) {
                ptr += 1;
            }
            if ptr == b.len() {
                // A line with no operator may be a queue statement.
                match self.queue_line(l, source, is_main)? {
                    Some(q) => return Ok(Stop::Queue(q)),
                    None => continue,
                }
            }
            let name_end = ptr;
            let mut op = b[ptr];
            let mut pop = ptr;
            ptr += 1;
            let mut word_before_op = false;
            if !is_op(op) {
                while ptr < b.len() && is_space(b[ptr] as char) {
                    ptr += 1;
                }
                if ptr < b.len() && !is_op(b[ptr]) && b[ptr] != b'@' {
                    word_before_op = true;
                }
                while ptr < b.len() && !is_op(b[ptr]) && b[ptr] != b'@' {
                    ptr += 1;
                }
                pop = ptr;
                op = b.get(ptr).copied().unwrap_or(0);
                if op != 0 {
                    ptr += 1;
                    if op == b'@' {
                        if b.get(ptr) == Some(&b'=') {
                            ptr += 1;
                        } else {
                            op = 0;
                        }
                    }
                }
            }
            while ptr < b.len() && is_space(b[ptr] as char) {
                ptr += 1;
            }
            let rhs = &l[ptr.min(l.len())..];
            let name = &l[..name_end];
            let has_at = name.starts_with('@');
            let keyword = &name[usize::from(has_at)..];
            let colon = op == b':';
            let is_include = colon && keyword.eq_ignore_ascii_case("include");
            let is_meta = colon && keyword.eq_ignore_ascii_case("use");
            let is_error = colon && keyword.eq_ignore_ascii_case("error");
            let is_warning = colon && keyword.eq_ignore_ascii_case("warning");

            if is_meta {
                let category = l[name_end..pop].trim_matches(is_space).to_owned();
                let category = self.expand(&category)?;
                self.use_templates(&category, rhs, label, lineno)?;
                continue;
            }
            if is_error || is_warning {
                let msg = self.expand(rhs)?;
                let mut code = 0;
                if is_error {
                    let after = l[name_end..pop].trim_matches(is_space);
                    code = super::util::atoi(after) as i32;
                    if code > 0 {
                        code = -code;
                    }
                    if code == 0 {
                        code = -1;
                    }
                }
                let kind = if is_error { "Error" } else { "Warning" };
                self.push(code, format!("{kind} \"{label}\", Line {lineno}: {msg}\n"));
                if is_error {
                    return Err(fail(code, "").into());
                }
                continue;
            }
            if is_include {
                let options = l[name_end..pop].trim_matches(is_space);
                let target = self.expand(rhs)?;
                self.include(options, &target, label, lineno, depth)?;
                continue;
            }
            if word_before_op {
                // Extra words before the operator: maybe a queue statement.
                match self.queue_line(l, source, is_main)? {
                    Some(q) => return Ok(Stop::Queue(q)),
                    None => continue,
                }
            }
            let name = self.expand(name)?;
            if op == b'=' && (name.starts_with('+') || name.starts_with('-')) {
                let attr = format!("MY.{}", &name[1..]);
                let value = if name.starts_with('+') { rhs } else { "" };
                self.hash.insert(
                    &attr,
                    value,
                    Origin {
                        source,
                        line: lineno,
                    },
                );
                continue;
            }
            if (op != b'=' && op != b'@') || name.eq_ignore_ascii_case("queue") {
                match self.queue_line_checked(l, source, is_main, label, lineno)? {
                    Some(q) => return Ok(Stop::Queue(q)),
                    None => continue,
                }
            }
            if !expand::is_valid_name(&name) {
                self.push(
                    -1,
                    format!("Error \"{label}\", Line {lineno}: Illegal Identifier: <{name}>\n"),
                );
                return Err(fail(-1, "").into());
            }
            if op == b'@' {
                here = Some((name, rhs.to_owned(), String::new()));
                continue;
            }
            let value = self.expand_self(rhs, &name)?;
            self.hash.insert(
                &name,
                &value,
                Origin {
                    source,
                    line: lineno,
                },
            );
        }
    }

    /// The queue-statement callback (`parse_q_callback`).
    fn queue_line(
        &mut self,
        line: &str,
        _source: SourceId,
        is_main: bool,
    ) -> Result<Option<String>, ParseErr> {
        if is_queue_statement(line).is_none() {
            if is_dag_command(line) {
                return Err(fail(-99, "").into());
            }
            return Err(fail(-1, "").into());
        }
        if !is_main {
            return Err(fail(-5, "Queue statement not allowed in include file or command").into());
        }
        Ok(Some(line.to_owned()))
    }

    /// The callback for a `name : value` line, which reports what it could not parse.
    fn queue_line_checked(
        &mut self,
        line: &str,
        source: SourceId,
        is_main: bool,
        label: &str,
        lineno: u32,
    ) -> Result<Option<String>, ParseErr> {
        match self.queue_line(line, source, is_main) {
            Err(ParseErr::Fail(mut f)) if f.code == -1 => {
                if f.message.is_empty() {
                    f.message = "invalid queue statement.".into();
                }
                self.push(
                    -1,
                    format!("Error \"{label}\", Line {lineno}: cannot parse: {line}\n"),
                );
                Err(ParseErr::Fail(f))
            }
            other => other,
        }
    }

    /// `include [ifexist] [command [into FILE]] : SOURCE`.
    fn include(
        &mut self,
        options: &str,
        target: &str,
        label: &str,
        lineno: u32,
        depth: u32,
    ) -> Result<(), ParseErr> {
        let mut must_exist = true;
        let mut command = false;
        let mut into: Option<String> = None;
        let words: Vec<&str> = options
            .split([' ', '\t'])
            .filter(|w| !w.is_empty())
            .collect();
        let mut i = 0;
        if let Some(&w) = words.first() {
            if w == "ifexist" || w == "ifexists" {
                must_exist = false;
                i += 1;
            }
        }
        if let Some(&w) = words.get(i) {
            if w == "output" || w == "command" {
                command = true;
                i += 1;
                if words.get(i) == Some(&"into") {
                    match words.get(i + 1) {
                        Some(f) => into = Some(self.expand(f)?),
                        None => {
                            self.push(-1, format!("Error \"{label}\", Line {lineno}: unexpected keyword(s) '{options}' after include expected filename after keyword 'into'\n"));
                            return Err(fail(-1, "").into());
                        }
                    }
                }
            } else {
                self.push(
                    -1,
                    format!(
                        "Error \"{label}\", Line {lineno}: unexpected keyword(s) '{options}' after include \n"
                    ),
                );
                return Err(fail(-1, "").into());
            }
        }
        let read = match &into {
            Some(cache) => match read_source(self.ctx, cache, false) {
                Ok(found) => Ok(found),
                Err(_) => read_source(self.ctx, target, command).and_then(|(n, text)| {
                    std::fs::write(resolve(self.ctx, cache), &text)
                        .map(|_| (n, text))
                        .map_err(|e| format!("can't write {cache}: {e}"))
                }),
            },
            None => read_source(self.ctx, target, command),
        };
        let (inner_label, text) = match read {
            Ok(found) => found,
            Err(msg) => {
                if !must_exist {
                    return Ok(());
                }
                self.push(
                    -1,
                    format!(
                        "Error \"{target}\", Line 0, Include Depth {}: {msg}\n",
                        depth + 1
                    ),
                );
                return Err(fail(-1, "").into());
            }
        };
        if depth + 1 >= MAX_NESTING {
            self.push(
                -2,
                format!(
                    "Error \"{target}\", Line 0, Include Depth {}: includes nested too deep\n",
                    depth + 1
                ),
            );
            return Err(fail(-2, "").into());
        }
        let source = self.hash.add_source(&inner_label);
        let mut reader = LineReader::new(&text);
        match self.parse_stream(&mut reader, source, &inner_label, depth + 1, false) {
            Ok(_) => Ok(()),
            Err(ParseErr::Fail(f)) => {
                self.push(
                    f.code,
                    format!(
                        "Error \"{target}\", Line {}, Include Depth {}: {}\n",
                        reader.line(),
                        depth + 1,
                        f.message
                    ),
                );
                Err(fail(f.code, "").into())
            }
            Err(e) => Err(e),
        }
    }

    /// `use CATEGORY : TEMPLATE ...` with the submit language's own templates.
    fn use_templates(
        &mut self,
        category: &str,
        rhs: &str,
        label: &str,
        lineno: u32,
    ) -> Result<(), ParseErr> {
        let at_use = |p: &mut Parser<'_>| {
            p.push(
                -1,
                format!("Error \"{label}\", Line {lineno}: at use {category}:{rhs}\n"),
            );
            Err(fail(-1, "").into())
        };
        if category.is_empty() {
            self.push(-1, format!("Error: use needs a keyword before : {rhs}\n"));
            return at_use(self);
        }
        if !category.eq_ignore_ascii_case("STRICT") {
            return at_use(self);
        }
        for name in rhs.split([',', ' ', '\t']).filter(|w| !w.is_empty()) {
            let body: &[(&str, &str)] = if name.eq_ignore_ascii_case("FALSE") {
                &STRICT_FALSE
            } else if name.eq_ignore_ascii_case("TRUE") {
                &STRICT_TRUE
            } else if name.eq_ignore_ascii_case("HARSH") {
                &STRICT_HARSH
            } else {
                self.push(
                    -1,
                    format!("Error: use {category}: does not recognise {name}\n"),
                );
                return at_use(self);
            };
            for (k, v) in body {
                self.hash.insert(
                    k,
                    v,
                    Origin {
                        source: 1,
                        line: lineno,
                    },
                );
            }
        }
        Ok(())
    }

    /// Parses one `-append` line (`Parse_config_string`).
    fn parse_append_line(&mut self, line: &str, index: u32) -> Result<(), ParseErr> {
        let line = line.trim_matches(is_space);
        if line.is_empty() || line.starts_with('#') {
            return Ok(());
        }
        let Some(TemplateLine {
            is_use: is_meta,
            name,
            op,
            rhs,
        }) = split_template_line(line)
        else {
            return Err(fail(-1111, "").into());
        };
        let origin = Origin {
            source: 0,
            line: index,
        };
        if op == b':'
            && (name.eq_ignore_ascii_case("error") || name.eq_ignore_ascii_case("warning"))
        {
            let msg = self.expand(rhs)?;
            let is_error = name.eq_ignore_ascii_case("error");
            let kind = if is_error { "Error" } else { "Warning" };
            self.push(if is_error { -1 } else { 0 }, format!("{kind} : {msg}\n"));
            if is_error {
                return Err(fail(-1, "").into());
            }
            return Ok(());
        }
        if is_meta {
            return self.use_templates(name, rhs, "<append>", index);
        }
        if name.starts_with('+') || name.starts_with('-') {
            let attr = format!("MY.{}", &name[1..]);
            let value = if name.starts_with('+') { rhs } else { "" };
            self.hash.insert(&attr, value, origin);
            return Ok(());
        }
        if !expand::is_valid_name(name) {
            return Err(fail(-1111, "").into());
        }
        let value = self.expand_self(rhs, name)?;
        self.hash.insert(name, &value, origin);
        Ok(())
    }

    /// Loads the items of a queue statement that come from elsewhere: a file, a command, or
    /// globs (`load_external_q_foreach_items`).
    fn load_external_items(
        &mut self,
        o: &mut ForeachArgs,
        warnings: &mut Vec<String>,
    ) -> Result<(), String> {
        if o.vars.is_empty() && o.mode != ForeachMode::Not {
            o.vars.push("Item".into());
        }
        let sub_bool = |p: &Parser<'_>, a: &str, b: &str, def: bool| -> Result<bool, String> {
            let s = p.scope();
            let raw = s.lookup_raw(a).or_else(|| s.lookup_raw(b));
            match raw {
                None => Ok(def),
                Some(raw) => {
                    let v = Expander::new(&s).expand(raw).map_err(|e| e.0)?;
                    if v.is_empty() {
                        return Ok(def);
                    }
                    Ok(expand::bool_value(&v).unwrap_or(def))
                }
            }
        };
        let mut gopts = GlobOptions {
            warn_empty: sub_bool(
                self,
                "SubmitWarnEmptyMatches",
                "submit_warn_empty_matches",
                true,
            )?,
            fail_empty: sub_bool(
                self,
                "SubmitFailEmptyMatches",
                "submit_fail_empty_matches",
                false,
            )?,
            warn_dups: sub_bool(
                self,
                "SubmitWarnDuplicateMatches",
                "submit_warn_duplicate_matches",
                true,
            )?,
            allow_dups: sub_bool(
                self,
                "SubmitAllowDuplicateMatches",
                "submit_allow_duplicate_matches",
                false,
            )?,
            ..GlobOptions::default()
        };
        {
            let s = self.scope();
            let raw = s
                .lookup_raw("SubmitMatchDirectories")
                .or_else(|| s.lookup_raw("submit_match_directories"));
            if let Some(raw) = raw {
                let v = Expander::new(&s).expand(raw).map_err(|e| e.0)?;
                if v.eq_ignore_ascii_case("never")
                    || v.eq_ignore_ascii_case("no")
                    || v.eq_ignore_ascii_case("false")
                {
                    gopts.to_files = true;
                } else if v.eq_ignore_ascii_case("only") {
                    gopts.to_dirs = true;
                } else if v.eq_ignore_ascii_case("yes")
                    || v.eq_ignore_ascii_case("true")
                    || v.is_empty()
                {
                } else {
                    return Err(format!(
                        "{v} is not a valid value for SubmitMatchDirectories"
                    ));
                }
            }
        }
        if !o.items_filename.is_empty() && o.items_filename != "<" {
            if o.items_filename == "-" {
                return Err("QUEUE FROM - (read from stdin) is not allowed in this context".into());
            }
            let (_, text) = read_source(self.ctx, &o.items_filename, false)?;
            for line in queue::item_lines(&text) {
                o.items.push(line);
            }
        }
        match o.mode {
            ForeachMode::Matching
            | ForeachMode::MatchingFiles
            | ForeachMode::MatchingDirs
            | ForeachMode::MatchingAny => {
                match o.mode {
                    ForeachMode::MatchingFiles => {
                        gopts.to_dirs = false;
                        gopts.to_files = true;
                    }
                    ForeachMode::MatchingDirs => {
                        gopts.to_files = false;
                        gopts.to_dirs = true;
                    }
                    ForeachMode::MatchingAny => {
                        gopts.to_files = false;
                        gopts.to_dirs = false;
                    }
                    _ => {}
                }
                let patterns = std::mem::take(&mut o.items);
                match queue::expand_globs(&patterns, gopts, &self.ctx.cwd) {
                    Ok((items, w)) => {
                        o.items = items;
                        warnings.extend(w);
                    }
                    Err(msg) => {
                        self.push(-1, msg);
                        return Err(String::new());
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

const STRICT_FALSE: [(&str, &str); 5] = [
    ("SubmitWarnEmptyMatches", "false"),
    ("SubmitFailEmptyMatches", "false"),
    ("SubmitWarnDuplicateMatches", "false"),
    ("SubmitFailEmptyFields", "false"),
    ("SubmitWarnEmptyFields", "false"),
];
const STRICT_TRUE: [(&str, &str); 5] = [
    ("SubmitWarnEmptyMatches", "true"),
    ("SubmitFailEmptyMatches", "true"),
    ("SubmitWarnDuplicateMatches", "true"),
    ("SubmitFailEmptyFields", "false"),
    ("SubmitWarnEmptyFields", "true"),
];
const STRICT_HARSH: [(&str, &str); 5] = [
    ("SubmitWarnEmptyMatches", "true"),
    ("SubmitFailEmptyMatches", "true"),
    ("SubmitWarnDuplicateMatches", "true"),
    ("SubmitFailEmptyFields", "true"),
    ("SubmitWarnEmptyFields", "true"),
];

/// A path as the submitting process would open it: relative to its working directory.
fn resolve(ctx: &SubmitContext<'_>, name: &str) -> std::path::PathBuf {
    let p = Path::new(name);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        ctx.cwd.join(p)
    }
}

/// Reads a source: a file, or a command's output when it ends with `|` (or `command` is set)
/// (`Open_macro_source`). Returns the source's name and its text, or HTCondor's message.
pub(crate) fn read_source(
    ctx: &SubmitContext<'_>,
    name: &str,
    command: bool,
) -> Result<(String, String), String> {
    let piped = name.trim_end().ends_with('|');
    if command || piped {
        let cmd = name.trim_end_matches([' ', '|']);
        let label = if piped {
            name.to_owned()
        } else {
            format!("{cmd} |")
        };
        let text = run_command(ctx, cmd)?;
        return Ok((label, text));
    }
    match crate::bounded::read_file(resolve(ctx, name)) {
        Ok(bytes) => Ok((
            name.to_owned(),
            String::from_utf8_lossy(&bytes).into_owned(),
        )),
        Err(e) => Err(format!(
            "{} file {name}: {}",
            crate::config::parse::cant(&e),
            crate::config::parse::io_reason(&e)
        )),
    }
}

/// Runs a command for `include command` and `queue ... from cmd |` (`my_popen` of the V1
/// argument list) and returns what it wrote to stdout.
fn run_command(ctx: &SubmitContext<'_>, cmd: &str) -> Result<String, String> {
    if !ctx.run_commands {
        return Err(format!(
            "the command {cmd} is not run: commands are not run for a submit description read \
             by the condor_master\n"
        ));
    }
    let mut args = super::argenv::ArgList::default();
    if super::argenv::is_v2_quoted(cmd) {
        args.append_v1_wacked_or_v2_quoted(cmd)
            .map_err(|e| format!("Can't append args, {e}"))?;
    } else {
        args.args = cmd
            .split([' ', '\t', '\n', '\r'])
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
    }
    let Some((program, rest)) = args.args.split_first() else {
        return Err("not a valid command, | must be at the end\n".into());
    };
    let mut command = Command::new(program);
    command
        .args(rest)
        .current_dir(&ctx.cwd)
        .env_clear()
        .envs(ctx.env.iter());
    let (_, stdout) = crate::bounded::command_output(&mut command).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            format!("the output of {cmd} was not read: {e}")
        } else {
            format!(
                "not a valid command, errno={} : {}",
                e.raw_os_error().unwrap_or(0),
                crate::config::parse::io_reason(&e)
            )
        }
    })?;
    Ok(String::from_utf8_lossy(&stdout).into_owned())
}

/// A parsed submit description.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub statements: Vec<Statement>,
    /// Warnings left on HTCondor's error stack by the parse (`warning :` lines), as
    /// `CondorError::getFullText()` would give them.
    pub warnings: Vec<StackEntry>,
    /// The number of queue statements (those in the file, or the `-queue` statement).
    pub queue_statements: usize,
    /// The definitions as they stand at the end of the description (after the last queue
    /// statement), for condor_submit's unused-definition warnings.
    pub final_hash: SubmitHash,
}

/// The raw `executable`/`cmd` values, to notice a change between statements.
fn executable_key(hash: &SubmitHash) -> (String, String) {
    (
        hash.raw("executable").unwrap_or("").to_owned(),
        hash.raw("cmd").unwrap_or("").to_owned(),
    )
}

/// Parses submit text into statements.
pub(crate) fn parse(
    text: &str,
    file_label: &str,
    ctx: &SubmitContext<'_>,
    cmdline: &CommandLine,
    predefined: &Predefined,
) -> Result<Parsed, SubmitError> {
    let mut p = Parser::new(ctx, predefined);
    for (name, value) in &cmdline.assignments {
        p.hash.insert(
            name,
            value,
            Origin {
                source: SOURCE_ARGUMENT,
                line: 0,
            },
        );
    }
    let main = p.hash.add_source(file_label);
    let mut append: Vec<String> = cmdline.append.clone();
    if let Some(name) = &cmdline.batch_name {
        let quoted = if name.starts_with('"') {
            name.clone()
        } else {
            format!("\"{name}\"")
        };
        append.push(format!("MY.JobBatchName = {quoted}"));
    }
    let parse_error = |p: &Parser<'_>, line: u32, message: String| SubmitError::Parse {
        file: file_label.to_owned(),
        line,
        message,
        stack: p.stack.clone(),
    };

    let mut reader = LineReader::new(text);
    let mut statements = Vec::new();
    let mut got_queue = 0usize;
    let mut last_exe: Option<(String, String)> = None;
    loop {
        let stop = match p.parse_stream(&mut reader, main, file_label, 0, true) {
            Ok(stop) => stop,
            Err(ParseErr::Fail(f)) => {
                if f.code == -99 {
                    return Err(SubmitError::DagFile);
                }
                return Err(parse_error(&p, reader.line(), f.message));
            }
            Err(ParseErr::Except(Except(message))) => {
                return Err(SubmitError::Abort {
                    message,
                    place: super::error::AbortPlace::Reading {
                        line: reader.line(),
                    },
                })
            }
        };
        let qline = match stop {
            Stop::Queue(q) => Some(q),
            Stop::Eof if got_queue > 0 => break,
            Stop::Eof => None,
        };
        for (i, line) in append.iter().enumerate() {
            match p.parse_append_line(line, i as u32 + 1) {
                Ok(()) => {}
                Err(ParseErr::Fail(_)) => {
                    return Err(SubmitError::Append {
                        line: i as u32 + 1,
                        stack: p.stack.clone(),
                    })
                }
                Err(ParseErr::Except(Except(message))) => {
                    return Err(SubmitError::Abort {
                        message,
                        place: super::error::AbortPlace::Reading { line: 0 },
                    })
                }
            }
        }
        let exe = executable_key(&p.hash);
        let new_executable = match &last_exe {
            None => true,
            Some(prev) => *prev != exe,
        };
        last_exe = Some(exe);

        let queue_line = reader.line();
        let (args_text, from_command_line) = match (&qline, &cmdline.queue) {
            (Some(q), None) => (is_queue_statement(q).map(str::to_owned), false),
            (Some(_), Some(_)) => {
                return Err(parse_error(
                    &p,
                    queue_line,
                    "-queue argument conflicts with queue statement in submit file".into(),
                ))
            }
            (None, Some(q)) => (is_queue_statement(q).map(str::to_owned), true),
            (None, None) => (None, false),
        };
        got_queue += 1;
        let mut args = match &args_text {
            None => ForeachArgs::default(),
            Some(a) => {
                let expanded = p.expand(a).map_err(|e| SubmitError::Abort {
                    message: e.0,
                    place: super::error::AbortPlace::Reading { line: queue_line },
                })?;
                queue::parse_queue_args(&expanded)
                    .map_err(|e| parse_error(&p, queue_line, e.message().into()))?
            }
        };
        // Inline items: the lines after the statement, up to one that starts with `)`.
        if args.vars.is_empty() && args.mode != ForeachMode::Not {
            args.vars.push("Item".into());
        }
        let mut warnings = Vec::new();
        if args.items_filename == "<" {
            if from_command_line {
                return Err(parse_error(
                    &p,
                    reader.line(),
                    "unexpected error while attempting to read queue items from submit file."
                        .into(),
                ));
            }
            let begin = reader.line();
            let mut closed = false;
            while let Some(line) = reader.next_line() {
                if line.starts_with('#') {
                    continue;
                }
                if line.starts_with(')') {
                    closed = true;
                    break;
                }
                if args.mode == ForeachMode::From {
                    args.items.push(line);
                } else {
                    args.items
                        .extend(expand::tokens(&line, expand::DEFAULT_DELIMS));
                }
            }
            if !closed {
                return Err(parse_error(
                    &p,
                    reader.line(),
                    format!(
                        "Reached end of file without finding closing brace ')' for Queue command on line {begin}"
                    ),
                ));
            }
        }
        match ctx
            .preset_items
            .as_deref()
            .filter(|_| statements.is_empty())
        {
            Some(preset) => {
                args.vars = preset.vars.clone();
                args.items = preset.items.clone();
            }
            None => {
                if (!args.items_filename.is_empty() && args.items_filename != "<")
                    || args.mode.is_matching()
                {
                    if let Err(msg) = p.load_external_items(&mut args, &mut warnings) {
                        return Err(parse_error(&p, reader.line(), msg));
                    }
                }
                let _ = args.load_schema();
            }
        }

        let mut hash = p.hash.clone();
        let var_slots = if args.vars.is_empty() {
            // HTCondor has no `Item` for a plain count (its `$(Item)` expands to nothing):
            // the live slot made here for that is not a definition of the description.
            let defined = hash.find("Item").is_some();
            hash.make_live("Item");
            if !defined {
                if let Some(i) = hash.find("Item") {
                    hash.entry(i).used.set(true);
                }
            }
            Vec::new()
        } else {
            args.vars.iter().map(|v| hash.make_live(v)).collect()
        };
        statements.push(Statement {
            hash: Arc::new(hash),
            line: if from_command_line { 0 } else { queue_line },
            from_command_line,
            args,
            var_slots,
            new_executable,
            warnings,
        });
        if qline.is_none() {
            break;
        }
    }
    let warnings = p.stack.clone();
    Ok(Parsed {
        statements,
        warnings,
        queue_statements: got_queue,
        final_hash: p.hash,
    })
}
