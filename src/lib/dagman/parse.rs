//! The DAG file language, read as HTCondor 24.0's src/condor_dagman/parse.cpp reads it.
//!
//! A file is read in two passes over its logical lines (config-style: leading and trailing
//! blanks trimmed, a trailing `\` continues the line, `#` starts a comment): the first
//! declares the nodes (JOB, FINAL, SUBDAG, SPLICE, PROVISIONER, SERVICE, SUBMIT-DESCRIPTION),
//! the second applies everything else in file order, so that a PARENT line may come before
//! the JOB lines it names. Keywords are case-insensitive, node names are not. Splices are
//! parsed as DAGs of their own, their node and category names prefixed with `splice+`, and
//! lifted into the DAG that spliced them when that file is done. Several DAG files at once
//! prefix node names with the file's number (`0.A`).
//!
//! The first error stops the parse, reported with HTCondor's words: `ERROR: <file> (line N):
//! <what>` and usually `Example syntax is: <syntax>`. Warnings that `DAGMAN_USE_STRICT`
//! makes fatal stop it too.
//!
//! Files are opened relative to the directory the parse runs in (DAGMan's working directory,
//! or a splice's `DIR`); nothing here changes the process's working directory.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::dag::{
    AbortDagOn, Dag, DebugStreams, Description, DotSpec, Node, NodeId, NodeKind, Script,
    ScriptKind, StatusFileSpec, Var,
};
use super::Level;
use crate::config::reader::LineReader;

/// Blanks that separate tokens (`DELIMITERS`).
const DELIMITERS: &[char] = &[' ', '\t'];
/// The suffix of a nested DAG's submit file.
pub const DAG_SUBMIT_FILE_SUFFIX: &str = ".condor.sub";
/// The largest file the parser reads: a DAG file is text a person or a tool wrote; a bigger
/// one is a mistake (a binary, `/dev/zero`), not a workflow.
pub const MAX_DAG_FILE_BYTES: u64 = 1 << 30;
/// How deep INCLUDE and SPLICE may nest.
const MAX_NESTING: usize = 64;

/// `DAGMAN_USE_STRICT` levels: how many warnings are fatal.
pub type Strictness = u8;

/// What the parse takes from the configuration and the command line.
#[derive(Clone, Debug)]
pub struct ParseOptions {
    /// `DAGMAN_USE_STRICT` (0-3).
    pub strict: Strictness,
    /// `-UseDagDir`: each DAG file is parsed in its own directory.
    pub use_dag_dir: bool,
    /// `DAGMAN_USE_DIRECT_SUBMIT` (inline descriptions need it).
    pub direct_submit: bool,
    /// `DAGMAN_DEFAULT_APPEND_VARS`.
    pub append_vars: bool,
    /// `DAGMAN_ALLOW_ANY_NODE_NAME_CHARACTERS`.
    pub allow_illegal_chars: bool,
    /// `DAGMAN_USE_JOIN_NODES`.
    pub join_nodes: bool,
    /// Several DAG files: node names get the file's number.
    pub munge: bool,
    /// The directory relative names are relative to (DAGMan's working directory).
    pub cwd: PathBuf,
    /// Go on after an error, collecting every one in [`Parser::errors`] (condor_dag_checker);
    /// DAGMan stops at the first.
    pub keep_going: bool,
}

impl ParseOptions {
    /// HTCondor's defaults, parsing in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> ParseOptions {
        ParseOptions {
            strict: 1,
            use_dag_dir: false,
            direct_submit: true,
            append_vars: false,
            allow_illegal_chars: false,
            join_nodes: true,
            munge: false,
            cwd: cwd.into(),
            keep_going: false,
        }
    }
}

/// Why a parse stopped: the lines DAGMan logs about it, the last of which names the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct ParseError {
    /// The file and line the error is about (line 0: the file as a whole).
    pub file: String,
    pub line: usize,
    /// What was logged, in order (`ERROR: ...`, then `Example syntax is: ...`).
    pub lines: Vec<String>,
    /// DAGMan exits at once (`debug_error`), without its `Failed to parse <file>` line.
    pub immediate: bool,
}

impl ParseError {
    /// The line that says what is wrong (the first `ERROR` line, or the first line).
    pub fn message(&self) -> &str {
        self.lines
            .iter()
            .find(|l| l.contains("ERROR") || l.contains("Error"))
            .or(self.lines.first())
            .map_or("", |s| s.as_str())
    }
}

/// A DAG under construction: the main DAG, or a splice before it is lifted.
#[derive(Default)]
struct Builder {
    dag: Dag,
    /// `SUBMIT-DESCRIPTION`s (and inline JOB descriptions) by name.
    descriptions: HashMap<String, Arc<str>>,
    /// This file's splices by (munged) name. Their nodes are already in `dag.nodes`, so that
    /// PARENT lines can link to them, but not yet in its name index: HTCondor lifts them into
    /// the DAG, behind its own nodes and in name order, when the file is done.
    splices: BTreeMap<String, SpliceEnds>,
    /// For each node of `dag.nodes`, the splice it came from (`None`: the DAG's own).
    group: Vec<Option<String>>,
    /// The splice's `DIR` (`.` for none).
    directory: String,
    pin_ins: Vec<Vec<NodeId>>,
    pin_outs: Vec<Vec<NodeId>>,
    /// Which line declared each edge, by the nodes' creation numbers (for messages about
    /// cycles).
    edge_lines: HashMap<(u32, u32), (String, usize)>,
}

/// What the DAG that spliced a splice needs of it.
struct SpliceEnds {
    /// Its nodes without parents, and without children, when its file was done.
    initial: Vec<NodeId>,
    terminal: Vec<NodeId>,
    /// All its nodes.
    members: Vec<NodeId>,
    pin_ins: Vec<Vec<NodeId>>,
    pin_outs: Vec<Vec<NodeId>>,
}

/// The parser's state across files (node ids, join node numbers and the splice scope are
/// shared by every file of one DAGMan run).
pub struct Parser {
    opts: ParseOptions,
    /// The number of the DAG file being parsed (`_thisDagNum`).
    dag_num: i32,
    /// The munged names of the splices being parsed, innermost last.
    splice_scope: Vec<String>,
    join_nodes: u32,
    created: u32,
    /// The files being parsed (to refuse recursive INCLUDE and SPLICE).
    open_files: Vec<PathBuf>,
    /// What was logged.
    pub log: Vec<(Level, String)>,
    /// With [`ParseOptions::keep_going`], the errors the parse went on after, in order.
    pub errors: Vec<ParseError>,
    main: Option<Builder>,
}

type Result<T> = std::result::Result<T, ParseError>;

/// A line cut into tokens as C's `strtok` cuts it.
struct Tokens<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Tokens<'a> {
    fn new(s: &'a str) -> Tokens<'a> {
        Tokens { s, pos: 0 }
    }

    /// `strtok(NULL, delims)`.
    fn next_with(&mut self, delims: &[char]) -> Option<&'a str> {
        let rest = &self.s[self.pos..];
        let start = rest.len() - rest.trim_start_matches(delims).len();
        if start == rest.len() {
            self.pos = self.s.len();
            return None;
        }
        let rest = &rest[start..];
        match rest.find(delims) {
            Some(end) => {
                let c = rest[end..].chars().next().map_or(1, char::len_utf8);
                self.pos += start + end + c;
                Some(&rest[..end])
            }
            None => {
                self.pos = self.s.len();
                Some(rest)
            }
        }
    }

    fn next(&mut self) -> Option<&'a str> {
        self.next_with(DELIMITERS)
    }

    /// `strtok(NULL, "")`: everything left, if anything is.
    fn rest(&mut self) -> Option<&'a str> {
        let rest = &self.s[self.pos..];
        self.pos = self.s.len();
        (!rest.is_empty()).then_some(rest)
    }

    /// `next_possibly_quoted_token`: a double-quoted token (to the next quote) or a plain one.
    fn next_possibly_quoted(&mut self) -> Option<&'a str> {
        let rest = &self.s[self.pos..];
        if rest.is_empty() {
            return None;
        }
        let trimmed = rest.trim_start_matches(DELIMITERS);
        self.pos += rest.len() - trimmed.len();
        if let Some(inner) = trimmed.strip_prefix('"') {
            self.pos += 1;
            let _ = inner;
            self.next_with(&['"'])
        } else {
            self.next()
        }
    }
}

/// C's `strtol` over a whole token's start: the value, whether any digit was read, and the
/// rest of the token.
fn strtol(s: &str) -> (i64, bool, &str) {
    let (v, used) = crate::classad::cnum::strtol(s.as_bytes());
    (v, used > 0, &s[used..])
}

/// `(int)strtol(...)`: C truncates the long to an int.
fn to_int(v: i64) -> i32 {
    v as i32
}

/// Reserved words (`isReservedWord`).
fn is_reserved(token: &str) -> bool {
    ["PARENT", "CHILD", "ALL_NODES"]
        .iter()
        .any(|k| k.eq_ignore_ascii_case(token))
}

fn is_all_nodes(name: &str) -> bool {
    name.eq_ignore_ascii_case("ALL_NODES")
}

/// Where a command is: for messages.
#[derive(Clone, Copy)]
struct At<'a> {
    file: &'a str,
    line: usize,
}

impl At<'_> {
    /// `ERROR: <file> (line N): <what>` plus `Example syntax is: <example>`.
    fn error(&self, what: impl AsRef<str>, example: Option<&str>) -> ParseError {
        let mut lines = vec![format!(
            "ERROR: {} (line {}): {}",
            self.file,
            self.line,
            what.as_ref()
        )];
        if let Some(e) = example {
            lines.push(format!("Example syntax is: {e}"));
        }
        ParseError {
            file: self.file.to_owned(),
            line: self.line,
            lines,
            immediate: false,
        }
    }

    /// `ERROR: <file> (line N) <what>`: the messages HTCondor writes without the colon.
    fn error_nc(&self, what: impl AsRef<str>, example: Option<&str>) -> ParseError {
        let mut e = self.error("", example);
        e.lines[0] = format!(
            "ERROR: {} (line {}) {}",
            self.file,
            self.line,
            what.as_ref()
        );
        e
    }

    /// `<file> (line N): Unknown Node <name>`, as several commands word it (no `ERROR:`).
    fn unknown_node(&self, name: &str, prefix: &str) -> ParseError {
        self.raw(vec![format!(
            "{prefix}{} (line {}): Unknown Node {name}",
            self.file, self.line
        )])
    }

    /// A message logged exactly as given.
    fn raw(&self, lines: Vec<String>) -> ParseError {
        ParseError {
            file: self.file.to_owned(),
            line: self.line,
            lines,
            immediate: false,
        }
    }
}

impl Parser {
    pub fn new(opts: ParseOptions) -> Parser {
        Parser {
            opts,
            dag_num: -1,
            splice_scope: Vec::new(),
            join_nodes: 0,
            created: 0,
            open_files: Vec::new(),
            log: Vec::new(),
            errors: Vec::new(),
            main: Some(Builder {
                directory: ".".into(),
                ..Builder::default()
            }),
        }
    }

    pub fn options(&self) -> &ParseOptions {
        &self.opts
    }

    /// A command's outcome: an error stops the parse, or with `keep_going` is kept and the
    /// parse goes on with the next line.
    fn recover(&mut self, result: Result<()>) -> Result<()> {
        match result {
            Err(e) if self.opts.keep_going => {
                self.errors.push(e);
                Ok(())
            }
            other => other,
        }
    }

    fn say(&mut self, level: Level, text: impl Into<String>) {
        self.log.push((level, text.into()));
    }

    /// `check_warning_strictness(level, false)`: whether the warning just logged is fatal.
    fn strict(&mut self, level: Strictness) -> bool {
        if self.opts.strict >= level {
            self.say(
                Level::Quiet,
                "ERROR: Warning is fatal error because of DAGMAN_USE_STRICT setting",
            );
            true
        } else {
            false
        }
    }

    /// A fatal warning as a parse error (the warning and the strictness line are logged).
    fn strict_error(&mut self, level: Strictness, at: At<'_>) -> Result<()> {
        if self.strict(level) {
            let lines = self
                .log
                .iter()
                .rev()
                .take(2)
                .rev()
                .map(|(_, l)| l.clone())
                .collect();
            self.log.truncate(self.log.len() - 2);
            return Err(at.raw(lines));
        }
        Ok(())
    }

    /// Parses one of the DAG files given to DAGMan (the next file number).
    pub fn parse_dag_file(&mut self, file: &str) -> Result<()> {
        self.dag_num += 1;
        let mut main = self.main.take().unwrap_or_default();
        let result = self.parse_into(&mut main, file, self.opts.cwd.clone(), true);
        self.main = Some(main);
        result
    }

    /// Parses a rescue DAG or a save file on top of the DAG (node names as written: they
    /// were munged when written).
    pub fn parse_rescue(&mut self, file: &str) -> Result<()> {
        let munge = std::mem::replace(&mut self.opts.munge, false);
        let dag_dir = std::mem::replace(&mut self.opts.use_dag_dir, false);
        let mut main = self.main.take().unwrap_or_default();
        let result = self.parse_into(&mut main, file, self.opts.cwd.clone(), true);
        self.main = Some(main);
        self.opts.munge = munge;
        self.opts.use_dag_dir = dag_dir;
        result
    }

    /// The parsed DAG.
    pub fn finish(mut self) -> Dag {
        self.main.take().unwrap_or_default().dag
    }

    /// The DAG parsed so far.
    pub fn dag(&self) -> &Dag {
        &self.main.as_ref().expect("the main DAG").dag
    }

    /// The first cycle in the parsed DAG as an error naming the PARENT line of one of its
    /// edges and the nodes around it.
    pub fn check_cycles(&self) -> Result<()> {
        let main = self.main.as_ref().expect("the main DAG");
        let dag = &main.dag;
        let Some(cycle) = dag.find_cycle() else {
            return Ok(());
        };
        let names: Vec<&str> = cycle.iter().map(|&n| dag.nodes[n].name.as_str()).collect();
        // The edge closing the cycle (from its last node back to the first).
        let n = cycle.len();
        let (from, to) = (cycle[n - 2], cycle[n - 1]);
        let key = (dag.nodes[from].created, dag.nodes[to].created);
        let (file, line) = main.edge_lines.get(&key).cloned().unwrap_or_default();
        Err(ParseError {
            lines: vec![format!(
                "ERROR: {file} (line {line}): a cycle exists in the dag: {}",
                names.join(" -> ")
            )],
            file,
            line,
            immediate: false,
        })
    }

    /// Reads a DAG file's text (bounded).
    fn read(&mut self, path: &Path, name: &str) -> Result<String> {
        use std::io::Read;
        let opened = std::fs::File::open(path).and_then(|f| {
            let mut text = Vec::new();
            f.take(MAX_DAG_FILE_BYTES + 1).read_to_end(&mut text)?;
            Ok(text)
        });
        match opened {
            Ok(bytes) if bytes.len() as u64 > MAX_DAG_FILE_BYTES => Err(ParseError {
                file: name.to_owned(),
                line: 0,
                lines: vec![format!(
                    "ERROR: {name} is larger than {} bytes; not a DAG file",
                    MAX_DAG_FILE_BYTES
                )],
                immediate: false,
            }),
            Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) => {
                let cwd = path
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(&self.opts.cwd);
                Err(ParseError {
                    file: name.to_owned(),
                    line: 0,
                    lines: vec![format!(
                        "ERROR: Could not open file {name} for input (cwd {}) (errno {}, {})",
                        cwd.display(),
                        e.raw_os_error().unwrap_or(0),
                        crate::config::parse::io_reason(&e)
                    )],
                    immediate: false,
                })
            }
        }
    }

    /// `parse()`: one file into `b`, in two passes, read in directory `dir`. At the end of
    /// a DAG or splice file (`lift`), its splices are lifted into it.
    fn parse_into(&mut self, b: &mut Builder, file: &str, dir: PathBuf, lift: bool) -> Result<()> {
        // With -UseDagDir the file is read, and its nodes run, in its own directory.
        let (dir, name, node_dir) = if self.opts.use_dag_dir && lift && self.splice_scope.is_empty()
        {
            let p = Path::new(file);
            let parent = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_else(|| ".".into());
            let base = p
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            (dir.join(&parent), base, parent)
        } else {
            (dir, file.to_owned(), String::new())
        };
        let path = dir.join(&name);
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if self.open_files.contains(&canonical) || self.open_files.len() >= MAX_NESTING {
            return Err(ParseError {
                file: file.to_owned(),
                line: 0,
                lines: vec![format!(
                    "ERROR: {file}: recursive INCLUDE or SPLICE of {} (already being parsed)",
                    path.display()
                )],
                immediate: false,
            });
        }
        let text = self.read(&path, file)?;
        self.open_files.push(canonical);
        let result = self.two_passes(b, &text, file, &dir, &node_dir);
        self.open_files.pop();
        result?;
        if lift {
            let lifted = self.lift_splices(b);
            self.recover(lifted)?;
        }
        Ok(())
    }

    fn two_passes(
        &mut self,
        b: &mut Builder,
        text: &str,
        file: &str,
        dir: &Path,
        node_dir: &str,
    ) -> Result<()> {
        // Pass 1: the commands that declare nodes. Pass 2: everything else, in file order.
        for pass in [1, 2] {
            let mut reader = LineReader::new(text);
            while let Some(line) = reader.next_line() {
                let at = At {
                    file,
                    line: reader.line() as usize,
                };
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let result = if pass == 1 {
                    self.declare(b, &mut reader, at, &line, dir, node_dir)
                } else {
                    self.command(b, &mut reader, at, &line)
                };
                self.recover(result)?;
            }
        }
        Ok(())
    }

    /// A line of the first pass: the commands that declare nodes and submit descriptions.
    fn declare(
        &mut self,
        b: &mut Builder,
        reader: &mut LineReader<'_>,
        at: At<'_>,
        line: &str,
        dir: &Path,
        node_dir: &str,
    ) -> Result<()> {
        let file = at.file;
        let mut t = Tokens::new(line);
        let Some(keyword) = t.next() else {
            return Ok(());
        };
        let kw = keyword.to_ascii_uppercase();
        match kw.as_str() {
            "JOB" | "FINAL" => {
                let kind = if kw == "JOB" {
                    NodeKind::Job
                } else {
                    NodeKind::Final
                };
                let (name, submit) = pre_parse_node(&mut t);
                let inline = submit.is_some_and(|s| s.starts_with('{'));
                let submit = if inline { Some("submitDesc") } else { submit };
                self.parse_node(
                    b,
                    at,
                    dir,
                    node_dir,
                    &kw,
                    kind,
                    name,
                    submit,
                    &mut t,
                    "",
                    "submitfile",
                )?;
                if inline {
                    let name = self.munge(name.unwrap_or_default());
                    if !self.opts.direct_submit {
                        self.say(
                            Level::Normal,
                            format!(
                                "ERROR: To use an inline job description for node {name}, \
                                 DAGMAN_USE_DIRECT_SUBMIT must be set to True. Aborting."
                            ),
                        );
                        return Err(at.raw(vec![format!(
                            "ERROR: To use an inline job description for node {name}, \
                             DAGMAN_USE_DIRECT_SUBMIT must be set to True. Aborting."
                        )]));
                    }
                    let desc = read_inline(reader, at, &kw, &name)?;
                    let desc: Arc<str> = match b.descriptions.entry(name.clone()) {
                        std::collections::hash_map::Entry::Occupied(e) => {
                            self.say(
                                Level::Normal,
                                format!(
                                    "Warning: a submit description already exists with name \
                                     {name}, will not be overwritten."
                                ),
                            );
                            e.get().clone()
                        }
                        std::collections::hash_map::Entry::Vacant(v) => v.insert(desc).clone(),
                    };
                    if let Some(id) = b.dag.find(&name) {
                        b.dag.nodes[id].description = Description::Inline(desc);
                    }
                }
            }
            "SUBDAG" => {
                let Some(ext) = t.next() else {
                    return Err(at.raw(vec![format!(
                        "ERROR: {file} (line {}): SUBDAG needs EXTERNAL keyword",
                        at.line
                    )]));
                };
                if !ext.eq_ignore_ascii_case("EXTERNAL") {
                    return Err(at.raw(vec![format!(
                        "ERROR: {file} (line {}): only SUBDAG EXTERNAL is supported at this time",
                        at.line
                    )]));
                }
                let (name, submit) = pre_parse_node(&mut t);
                self.parse_node(
                    b,
                    at,
                    dir,
                    node_dir,
                    "SUBDAG",
                    NodeKind::Job,
                    name,
                    submit,
                    &mut t,
                    " EXTERNAL",
                    "dagfile",
                )?;
            }
            "PROVISIONER" | "SERVICE" => {
                let kind = if kw == "SERVICE" {
                    NodeKind::Service
                } else {
                    NodeKind::Provisioner
                };
                let (name, submit) = pre_parse_node(&mut t);
                self.parse_node(
                    b,
                    at,
                    dir,
                    node_dir,
                    keyword,
                    kind,
                    name,
                    submit,
                    &mut t,
                    "",
                    "submitfile",
                )?;
            }
            "SPLICE" => self.parse_splice(b, at, dir, &mut t)?,
            "SUBMIT-DESCRIPTION" => {
                let (name, desc) = pre_parse_node(&mut t);
                let name = name.unwrap_or_default().to_owned();
                if desc.is_some_and(|d| d.starts_with('{')) {
                    if !self.opts.direct_submit {
                        return Err(at.raw(vec![format!(
                            "ERROR: To use an inline job description for node {name}, \
                             DAGMAN_USE_DIRECT_SUBMIT must be set to True. Aborting."
                        )]));
                    }
                    let text = read_inline(reader, at, "SUBMIT-DESCRIPTION", &name)?;
                    if let std::collections::hash_map::Entry::Vacant(v) =
                        b.descriptions.entry(name.clone())
                    {
                        v.insert(text);
                    } else {
                        self.say(
                            Level::Normal,
                            format!(
                                "Warning: a submit description already exists with name \
                                 {name}, will not be overwritten."
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A line of the second pass: every command but those that declare nodes.
    fn command(
        &mut self,
        b: &mut Builder,
        reader: &mut LineReader<'_>,
        at: At<'_>,
        line: &str,
    ) -> Result<()> {
        let file = at.file;
        let mut t = Tokens::new(line);
        let Some(keyword) = t.next() else {
            return Ok(());
        };
        let kw = keyword.to_ascii_uppercase();
        match kw.as_str() {
            "JOB" | "FINAL" | "SUBMIT-DESCRIPTION" => {
                // Declared in the first pass; an inline description's lines are skipped.
                let (_, submit) = pre_parse_node(&mut t);
                if submit.is_some_and(|s| s.starts_with('{')) {
                    while let Some(l) = reader.next_line() {
                        if l.starts_with('}') {
                            break;
                        }
                    }
                }
            }
            "SUBDAG" | "PROVISIONER" | "SERVICE" | "SPLICE" | "CONFIG" | "SET_JOB_ATTR" | "ENV" => {
                if kw == "CONFIG" {
                    let named = t.next().map(str::to_owned);
                    if b.dag.config.is_none() {
                        b.dag.config.clone_from(&named);
                    }
                    b.dag
                        .config_lines
                        .push((named.unwrap_or_default(), (Arc::from(at.file), at.line)));
                }
            }
            "SCRIPT" => self.parse_script(b, at, &mut t)?,
            "PARENT" => self.parse_parent(b, at, &mut t)?,
            "RETRY" => self.parse_retry(b, at, &mut t)?,
            "ABORT-DAG-ON" => self.parse_abort(b, at, &mut t)?,
            "DOT" => parse_dot(b, at, &mut t)?,
            "VARS" => self.parse_vars(b, at, &mut t)?,
            "PRIORITY" => self.parse_priority(b, at, &mut t)?,
            "CATEGORY" => self.parse_category(b, at, &mut t)?,
            "MAXJOBS" => self.parse_maxjobs(b, at, &mut t)?,
            "NODE_STATUS_FILE" => self.parse_node_status_file(b, at, &mut t)?,
            "SAVE_POINT_FILE" => self.parse_save_point_file(b, at, &mut t)?,
            "REJECT" => self.parse_reject(b, at, &mut t)?,
            "JOBSTATE_LOG" => self.parse_jobstate_log(b, at, &mut t)?,
            "PRE_SKIP" => self.parse_pre_skip(b, at, &mut t)?,
            "DONE" => self.parse_done(b, at, &mut t)?,
            "CONNECT" => self.parse_connect(b, at, &mut t)?,
            "PIN_IN" | "PIN_OUT" => self.parse_pin(b, at, &mut t, kw == "PIN_IN")?,
            "INCLUDE" => {
                let example = "INCLUDE filename";
                let Some(inc) = t.next() else {
                    return Err(at.error("Missing include file name", Some(example)));
                };
                if let Some(extra) = t.next() {
                    return Err(at.error(
                        format!("Extra token ({extra}) on INCLUDE line"),
                        Some(example),
                    ));
                }
                // Relative to the submit directory, always (not the including file's).
                let inc = inc.to_owned();
                let cwd = self.opts.cwd.clone();
                self.parse_into(b, &inc, cwd, false)?;
            }
            _ => {
                return Err(at.raw(vec![format!(
                    "{file} (line {}): ERROR: expected JOB, DATA, SUBDAG, FINAL, SCRIPT, \
                     PARENT, RETRY, ABORT-DAG-ON, DOT, VARS, PRIORITY, CATEGORY, MAXJOBS, \
                     CONFIG, SET_JOB_ATTR, SPLICE, PROVISIONER, SERVICE, NODE_STATUS_FILE, \
                     REJECT, JOBSTATE_LOG, PRE_SKIP, DONE, CONNECT, PIN_IN, PIN_OUT, \
                     INCLUDE, SAVE_POINT_FILE orSUBMIT-DESCRIPTION token (found {keyword})",
                    at.line
                )]))
            }
        }
        Ok(())
    }

    /// `munge_node_name`: with several DAG files, `<file number>.<name>`.
    fn munge(&self, name: &str) -> String {
        if self.opts.munge {
            format!("{}.{name}", self.dag_num)
        } else {
            name.to_owned()
        }
    }

    /// The prefix of names declared in the splice being parsed (`current_splice_scope`).
    fn scope_prefix(&self) -> String {
        self.splice_scope
            .last()
            .map(|s| format!("{s}+"))
            .unwrap_or_default()
    }

    /// `parse_node`: the rest of a JOB, FINAL, SUBDAG, PROVISIONER or SERVICE line.
    #[allow(clippy::too_many_arguments)]
    fn parse_node(
        &mut self,
        b: &mut Builder,
        at: At<'_>,
        dir: &Path,
        node_dir: &str,
        keyword: &str,
        kind: NodeKind,
        name: Option<&str>,
        submit: Option<&str>,
        t: &mut Tokens<'_>,
        inline_or_ext: &str,
        submit_or_dag: &str,
    ) -> Result<()> {
        let example = format!(
            "{keyword}{inline_or_ext} <nodename> {submit_or_dag} [DIR directory] [NOOP] [DONE]"
        );
        let Some(name) = name else {
            return Err(at.error("no node name specified", Some(&example)));
        };
        if is_reserved(name) {
            return Err(at.raw(vec![
                format!("ERROR: token ({name}) is a reserved word"),
                format!(
                    "ERROR: {} (line {}): NodeName cannot be a reserved word",
                    at.file, at.line
                ),
                format!("Example syntax is: {example}"),
            ]));
        }
        if !self.opts.allow_illegal_chars && name.contains('+') {
            let mut e = at.error(
                format!("NodeName {name} contains one or more illegal characters ('+')"),
                None,
            );
            e.immediate = true;
            return Err(e);
        }
        let node_name = self.munge(name);
        let Some(submit) = submit else {
            return Err(at.error(
                "no submit file or submit description specified",
                Some(&example),
            ));
        };

        // DIR, NOOP and DONE, in that order.
        let mut directory = node_dir.to_owned();
        let mut next = t.next();
        if next.is_some_and(|k| k.eq_ignore_ascii_case("DIR")) {
            if !node_dir.is_empty() {
                return Err(at.raw(vec![
                    "ERROR: DIR specification in node lines not allowed with -UseDagDir \
                     command-line argument"
                        .into(),
                ]));
            }
            let Some(d) = t.next_possibly_quoted() else {
                return Err(at.error("no directory specified after DIR keyword", Some(&example)));
            };
            if !dir.join(d).is_dir() {
                let reason = match std::fs::metadata(dir.join(d)) {
                    Ok(_) => "Not a directory".to_owned(),
                    Err(e) => crate::config::parse::io_reason(&e),
                };
                return Err(at.raw(vec![format!(
                    "ERROR: can't change to directory {d}: {reason}"
                )]));
            }
            directory = d.to_owned();
            next = t.next();
        }
        let mut noop = false;
        if next.is_some_and(|k| k.eq_ignore_ascii_case("NOOP")) {
            noop = true;
            next = t.next();
        }
        let mut done = false;
        if let Some(k) = next {
            if k.eq_ignore_ascii_case("DONE") {
                done = true;
            } else {
                return Err(at.error(format!("invalid parameter \"{k}\""), Some(&example)));
            }
            if let Some(k) = t.next() {
                return Err(at.error(format!("invalid parameter \"{k}\""), Some(&example)));
            }
        }
        if b.splices.contains_key(&node_name) {
            return Err(at.error(
                format!("Node name '{node_name}' must not also be a splice name."),
                None,
            ));
        }

        // A SUBDAG's submit file is its DAG file's .condor.sub.
        let mut dag_file = None;
        let mut submit_file = submit.to_owned();
        if keyword.eq_ignore_ascii_case("SUBDAG") {
            dag_file = Some(submit.to_owned());
            submit_file = format!("{submit}{DAG_SUBMIT_FILE_SUFFIX}");
        } else if submit.contains(DAG_SUBMIT_FILE_SUFFIX) {
            if kind == NodeKind::Final {
                dag_file = Some(submit.replacen(DAG_SUBMIT_FILE_SUFFIX, "", 1));
            } else {
                return Err(at.raw(vec![
                    "Error: The use of the JOB keyword for nested DAGs is prohibited.".into(),
                ]));
            }
        }

        // AddNode.
        let why = if node_name.is_empty() {
            Some("empty node name (name == \"\")".to_owned())
        } else if b.dag.find(&node_name).is_some() {
            Some(format!("node name '{node_name}' already exists in DAG"))
        } else if submit_file.is_empty() {
            Some("empty submit file name (name == \"\")".to_owned())
        } else {
            None
        };
        if let Some(why) = why {
            return Err(at.error(why, Some(&example)));
        }
        if done && matches!(kind, NodeKind::Final | NodeKind::Service) {
            let what = if kind == NodeKind::Final {
                "FINAL Node"
            } else {
                "SERVICE node"
            };
            self.say(
                Level::Quiet,
                format!("Warning: {what} {node_name} cannot be set to DONE"),
            );
            self.strict(1);
            done = false;
        }
        if kind == NodeKind::Final && b.dag.final_node.is_some() {
            let existing = &b.dag.nodes[b.dag.final_node.unwrap_or(0)].name;
            return Err(at.raw(vec![
                format!(
                    "Error: DAG already has a final node {existing}; attempting to add final node {node_name}"
                ),
                format!(
                    "ERROR: {} (line {}): unknown failure adding Final node to DAG",
                    at.file, at.line
                ),
                format!("Example syntax is: {example}"),
            ]));
        }
        if kind == NodeKind::Provisioner && b.dag.provisioner.is_some() {
            let existing = &b.dag.nodes[b.dag.provisioner.unwrap_or(0)].name;
            return Err(at.raw(vec![
                format!(
                    "Error: DAG already has a provisioner node {existing}; attempting to add provisioner node {node_name}"
                ),
                format!(
                    "ERROR: {} (line {}): unknown failure adding node to DAG",
                    at.file, at.line
                ),
                format!("Example syntax is: {example}"),
            ]));
        }
        let mut node = Node::new(&node_name, kind, &submit_file, &directory, self.created);
        self.created += 1;
        node.noop = noop;
        node.pre_done = done;
        node.dag_file = dag_file;
        node.declared = (Arc::from(at.file), at.line);
        if let Some(desc) = b.descriptions.get(submit) {
            node.description = Description::Inline(desc.clone());
        }
        add_own(b, node);
        Ok(())
    }

    /// `parse_splice`: parses the splice's file as a DAG of its own, in its directory, and
    /// adds its nodes (named `splice+node`) to `b`.
    fn parse_splice(
        &mut self,
        b: &mut Builder,
        at: At<'_>,
        dir: &Path,
        t: &mut Tokens<'_>,
    ) -> Result<()> {
        let example = "SPLICE SpliceName SpliceFileName [DIR directory]";
        let Some(name) = t.next() else {
            return Err(at.error("Missing SPLICE name", Some(example)));
        };
        if b.dag.find(name).is_some() {
            return Err(at.error(
                format!(" Splice name '{name}' must not also be a node name."),
                None,
            ));
        }
        let Some(splice_file) = t.next() else {
            return Err(at.error("Missing SPLICE file name", Some(example)));
        };
        let mut directory = ".".to_owned();
        if let Some(tok) = t.next() {
            if tok.eq_ignore_ascii_case("DIR") {
                let Some(d) = t.next() else {
                    return Err(at.error("DIR requires a directory specification", Some(example)));
                };
                directory = d.to_owned();
            } else {
                return Err(at.error(
                    format!("illegal token ({tok}) on SPLICE line"),
                    Some(example),
                ));
            }
        }
        if let Some(garbage) = t.next() {
            return Err(at.error(format!("invalid parameter \"{garbage}\""), Some(example)));
        }
        let munged = self.munge(name);
        let splice_dir = dir.join(&directory);
        if !splice_dir.is_dir() {
            let reason = match std::fs::metadata(&splice_dir) {
                Ok(_) => "Not a directory".to_owned(),
                Err(e) => crate::config::parse::io_reason(&e),
            };
            return Err(at.raw(vec![format!(
                "ERROR: can't change to directory {directory}: {reason}"
            )]));
        }
        self.splice_scope.push(munged.clone());
        let mut sb = Builder {
            directory: directory.clone(),
            ..Builder::default()
        };
        let parsed = self.parse_into(&mut sb, splice_file, splice_dir, true);
        self.splice_scope.pop();
        if let Err(mut e) = parsed {
            e.lines.push(format!(
                "ERROR: Failed to parse splice {name} in file {splice_file}"
            ));
            e.immediate = true;
            return Err(e);
        }
        if sb.dag.final_node.is_some() {
            return Err(at.raw(vec![format!(
                "ERROR: splice {name} has a final node; splices cannot have final nodes"
            )]));
        }
        if b.splices.contains_key(&munged) {
            return Err(at.raw(vec![format!(
                "ERROR: Splice name '{munged}' used for multiple splices. Splice names must be \
                 unique per dag file."
            )]));
        }
        // Names inside the splice get its scope; global categories (`+name`) keep theirs.
        let prefix = format!("{munged}+");
        for node in &mut sb.dag.nodes {
            node.name.insert_str(0, &prefix);
            if let Some(cat) = &mut node.category {
                if !cat.starts_with('+') {
                    cat.insert_str(0, &prefix);
                }
            }
        }
        let categories = std::mem::take(&mut sb.dag.categories);
        for (cat, max) in categories {
            let cat = if cat.starts_with('+') {
                cat
            } else {
                format!("{prefix}{cat}")
            };
            sb.dag.categories.insert(cat, max);
        }

        // Its nodes join `b` now (edges can reach them), its categories when it is lifted.
        let offset = b.dag.nodes.len();
        let shift = |v: &[NodeId]| v.iter().map(|&i| i + offset).collect::<Vec<_>>();
        let ends = SpliceEnds {
            initial: shift(
                &sb.dag
                    .graph_nodes()
                    .filter(|(_, n)| n.parents.is_empty())
                    .map(|(id, _)| id)
                    .collect::<Vec<_>>(),
            ),
            terminal: shift(
                &sb.dag
                    .graph_nodes()
                    .filter(|(_, n)| n.children.is_empty())
                    .map(|(id, _)| id)
                    .collect::<Vec<_>>(),
            ),
            members: (offset..offset + sb.dag.nodes.len()).collect(),
            pin_ins: sb.pin_ins.iter().map(|p| shift(p)).collect(),
            pin_outs: sb.pin_outs.iter().map(|p| shift(p)).collect(),
        };
        let Builder {
            dag: sd,
            edge_lines,
            ..
        } = sb;
        b.edge_lines.extend(edge_lines);
        b.dag.num_splices += 1 + sd.num_splices;
        for (cat, max) in sd.categories {
            match b.dag.categories.get(&cat) {
                Some(Some(mine)) if max.is_some_and(|m| m != *mine) => self.say(
                    Level::Normal,
                    format!(
                        "Warning: higher-level ({}) maxjobs value of {mine} for category {cat} \
                         overrides splice {munged} value of {}",
                        self.scope_prefix(),
                        max.unwrap_or(-1)
                    ),
                ),
                Some(Some(_)) => {}
                _ => {
                    b.dag.categories.insert(cat, max);
                }
            }
        }
        if b.dag.reject.is_none() {
            b.dag.reject = sd.reject;
        }
        for mut node in sd.nodes {
            node.parents.iter_mut().for_each(|p| *p += offset);
            node.children.iter_mut().for_each(|c| *c += offset);
            b.dag.nodes.push(node);
            b.group.push(Some(munged.clone()));
        }
        b.splices.insert(munged, ends);
        Ok(())
    }

    /// `LiftSplices`: at the end of a DAG or splice file, its splices' nodes move behind its
    /// own nodes (splices in name order) and become known by name; a splice's `DIR` is put
    /// before its nodes' directories.
    fn lift_splices(&mut self, b: &mut Builder) -> Result<()> {
        if !b.splices.is_empty() {
            // The new order: own nodes, then each splice's in name order.
            let mut order: Vec<NodeId> = (0..b.dag.nodes.len())
                .filter(|&i| b.group[i].is_none())
                .collect();
            for name in b.splices.keys() {
                order.extend((0..b.dag.nodes.len()).filter(|&i| b.group[i].as_ref() == Some(name)));
            }
            let mut new_id = vec![0; b.dag.nodes.len()];
            for (new, &old) in order.iter().enumerate() {
                new_id[old] = new;
            }
            let mut old_nodes: Vec<Option<Node>> = std::mem::take(&mut b.dag.nodes)
                .into_iter()
                .map(Some)
                .collect();
            for &old in &order {
                let mut node = old_nodes[old].take().expect("each node once");
                node.parents.iter_mut().for_each(|p| *p = new_id[*p]);
                node.children.iter_mut().for_each(|c| *c = new_id[*c]);
                b.dag.nodes.push(node);
            }
            let remap = |v: &mut Option<NodeId>| {
                if let Some(id) = v {
                    *id = new_id[*id];
                }
            };
            remap(&mut b.dag.final_node);
            remap(&mut b.dag.provisioner);
            for pins in b.pin_ins.iter_mut().chain(b.pin_outs.iter_mut()) {
                pins.iter_mut().for_each(|p| *p = new_id[*p]);
            }
            b.dag.services.clear();
            b.dag.index.clear();
            for (id, node) in b.dag.nodes.iter().enumerate() {
                if b.dag.index.insert(node.name.clone(), id).is_some() {
                    return Err(ParseError {
                        file: String::new(),
                        line: 0,
                        lines: vec![format!(
                            "Found name collision while taking ownership of node: {}",
                            node.name
                        )],
                        immediate: true,
                    });
                }
                match node.kind {
                    NodeKind::Service => b.dag.services.push(id),
                    NodeKind::Provisioner if b.dag.provisioner.is_none() => {
                        b.dag.provisioner = Some(id)
                    }
                    _ => {}
                }
            }
            b.group = vec![None; b.dag.nodes.len()];
            b.splices.clear();
        }
        if b.directory != "." && !b.directory.is_empty() {
            let prefix = std::mem::replace(&mut b.directory, ".".into());
            for node in &mut b.dag.nodes {
                if !node.dir.starts_with('/') {
                    node.dir = format!("{prefix}/{}", node.dir);
                }
            }
        }
        Ok(())
    }

    /// The nodes a PARENT/CHILD name stands for: the node, or a splice's terminal (as a
    /// parent) or initial (as a child) nodes.
    fn resolve(&self, b: &Builder, name: &str, as_parent: bool) -> Option<Vec<NodeId>> {
        let munged = self.munge(name);
        if let Some(s) = b.splices.get(&munged) {
            return Some(if as_parent {
                s.terminal.clone()
            } else {
                s.initial.clone()
            });
        }
        b.dag.find(&munged).map(|id| vec![id])
    }

    /// `parse_parent`.
    fn parse_parent(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "PARENT p1 [p2 p3 ...] CHILD c1 [c2 c3 ...]";
        let mut parents: Vec<NodeId> = Vec::new();
        let mut saw_child = false;
        while let Some(name) = t.next() {
            if name.eq_ignore_ascii_case("CHILD") {
                saw_child = true;
                break;
            }
            match self.resolve(b, name, true) {
                Some(ids) => parents.extend(ids),
                None => return Err(at.unknown_node(name, "ERROR: ")),
            }
        }
        if parents.is_empty() {
            return Err(at.error("Missing Parent Node names", Some(example)));
        }
        if !saw_child {
            return Err(at.error("Expected CHILD token", Some(example)));
        }
        let mut children: Vec<NodeId> = Vec::new();
        while let Some(name) = t.next() {
            match self.resolve(b, name, false) {
                Some(ids) => children.extend(ids),
                None => return Err(at.unknown_node(name, "ERROR: ")),
            }
        }
        if children.is_empty() {
            return Err(at.error("Missing Child Node names", Some(example)));
        }
        for list in [&mut parents, &mut children] {
            list.sort_by_key(|&i| b.dag.nodes[i].created);
            list.dedup();
        }

        let mut parent_type = "parent";
        if self.opts.join_nodes && parents.len() > 1 && children.len() > 1 {
            self.join_nodes += 1;
            let name = format!("_condor_join_node{}", self.join_nodes);
            let mut join = Node::new(&name, NodeKind::Job, "noop.sub", "", self.created);
            self.created += 1;
            join.noop = true;
            join.declared = (Arc::from(at.file), at.line);
            let join = add_own(b, join);
            for &p in &parents {
                if let Err(why) = add_edges(b, p, &[join], at) {
                    return Err(at.raw(vec![format!(
                        "ERROR: {} (line {}) failed to add dependency between parent node \
                         \"{}\" and join node \"{name}\" ({why})",
                        at.file, at.line, b.dag.nodes[p].name
                    )]));
                }
            }
            parents = vec![join];
            parent_type = "join";
        }
        for &p in &parents {
            if let Err(why) = add_edges(b, p, &children, at) {
                return Err(at.raw(vec![format!(
                    "ERROR: {} (line {}) failed to add dependencies between {parent_type} node \
                     \"{}\" and child nodes : {why}",
                    at.file, at.line, b.dag.nodes[p].name
                )]));
            }
        }
        Ok(())
    }

    /// The nodes a node-modifying command applies to (`FindAllNodesByName`): the named node,
    /// or with `ALL_NODES` every node of this file's DAG but the FINAL node (logging
    /// `skip_msg` for it). `None` when a named node does not exist.
    fn targets(
        &mut self,
        b: &Builder,
        name: &str,
        skip_msg: &str,
        at: At<'_>,
    ) -> Option<Vec<NodeId>> {
        if is_all_nodes(name) {
            let mut ids = Vec::new();
            for (id, node) in b.dag.nodes.iter().enumerate() {
                if b.group[id].is_some() || node.kind == NodeKind::Service {
                    continue;
                }
                if node.kind == NodeKind::Final {
                    let text = skip_msg
                        .replacen("%s", &node.name, 1)
                        .replacen("%s", at.file, 1)
                        .replacen("%d", &at.line.to_string(), 1);
                    self.say(Level::Normal, text);
                    continue;
                }
                ids.push(id);
            }
            return Some(ids);
        }
        b.dag.find(&self.munge(name)).map(|id| vec![id])
    }

    /// `parse_script`.
    fn parse_script(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "SCRIPT [DEFER status time] [DEBUG file (STDOUT|STDERR|ALL)] (PRE|POST|HOLD) NodeName Script Args ...";
        let Some(mut type_name) = t.next() else {
            return Err(at.error("Missing PRE, POST, HOLD, or DEFER", Some(example)));
        };
        let mut defer = None;
        if type_name.eq_ignore_ascii_case("DEFER") {
            let Some(tok) = t.next() else {
                return Err(at.error("Missing DEFER status value", Some(example)));
            };
            let (status, ok, _) = strtol(tok);
            let status = to_int(status);
            if !ok || status <= 0 {
                return Err(at.error(
                    format!("Invalid DEFER status value \"{tok}\""),
                    Some(example),
                ));
            }
            let Some(tok) = t.next() else {
                return Err(at.error("Missing DEFER time value", Some(example)));
            };
            let (time, ok, _) = strtol(tok);
            let time = to_int(time);
            if !ok || time < 0 {
                return Err(at.error(format!("Invalid DEFER time value \"{tok}\""), Some(example)));
            }
            defer = Some((status, i64::from(time)));
            let Some(next) = t.next() else {
                return Err(at.error("Missing PRE, POST, HOLD or optional DEBUG", Some(example)));
            };
            type_name = next;
        }
        let mut debug = None;
        if type_name.eq_ignore_ascii_case("DEBUG") {
            let Some(file) = t.next() else {
                return Err(at.error("Script DEBUG missing filename", Some(example)));
            };
            let Some(stream) = t.next() else {
                return Err(at.error(
                    "Script DEBUG missing output stream type (STDOUT,STDERR,ALL)",
                    Some(example),
                ));
            };
            let streams = match stream.to_ascii_uppercase().as_str() {
                "STDOUT" => DebugStreams::Stdout,
                "STDERR" => DebugStreams::Stderr,
                "ALL" => DebugStreams::All,
                _ => {
                    return Err(at.error(
                        format!(
                            "Unknown Script output stream type ({stream}) expected STDOUT, STDERR, or ALL"
                        ),
                        Some(example),
                    ))
                }
            };
            debug = Some((file.to_owned(), streams));
            let Some(next) = t.next() else {
                return Err(at.error("Missing PRE, POST or HOLD", Some(example)));
            };
            type_name = next;
        }
        let kind = match type_name.to_ascii_uppercase().as_str() {
            "PRE" => ScriptKind::Pre,
            "POST" => ScriptKind::Post,
            "HOLD" => ScriptKind::Hold,
            _ => {
                return Err(at.error(
                    "After specifying \"SCRIPT\", you must indicate if you want \"PRE\", \
                     \"POST\", \"HOLD\" (or DEFER)",
                    Some(example),
                ))
            }
        };
        let Some(node_name) = t.next() else {
            return Err(at.error("Missing job name", Some(example)));
        };
        let cmd = t
            .rest()
            .map(|r| r.trim_start_matches(DELIMITERS))
            .unwrap_or("");
        if cmd.is_empty() {
            return Err(at.error(
                format!(
                    "You named a {type_name} script for node {node_name} but didn't provide a script filename"
                ),
                Some(example),
            ));
        }
        let Some(targets) = self.targets(
            b,
            node_name,
            "In parse_script(): skipping node %s because final nodes must have SCRIPT set explicitly (%s: %d)",
            at,
        ) else {
            return Err(at.unknown_node(node_name, "ERROR: "));
        };
        for id in targets {
            let script = Script {
                kind,
                cmd: cmd.to_owned(),
                defer,
                debug: debug.clone(),
            };
            let node = &mut b.dag.nodes[id];
            let slot = match kind {
                ScriptKind::Pre => &mut node.pre,
                ScriptKind::Post => &mut node.post,
                ScriptKind::Hold => &mut node.hold,
            };
            if let Some(old) = slot.replace(script) {
                let text = format!(
                    "Warning: node {} already has {} script <{}> assigned; changing to <{cmd}>",
                    node.name,
                    kind.name(),
                    old.cmd
                );
                self.say(Level::Normal, text);
            }
        }
        Ok(())
    }

    /// `parse_retry`.
    fn parse_retry(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "Retry NodeName 3 [UNLESS-EXIT 42]";
        let Some(node_name) = t.next() else {
            return Err(at.error("Missing node name", Some(example)));
        };
        let Some(tok) = t.next() else {
            return Err(at.error("Missing Retry value", Some(example)));
        };
        let (retry, ok, _) = strtol(tok);
        let retry = to_int(retry);
        if !ok {
            return Err(at.error(format!("Invalid Retry value \"{tok}\""), Some(example)));
        }
        if retry < 0 {
            return Err(at.error(
                format!("Invalid Retry value \"{retry}\" (cannot be negative)"),
                Some(example),
            ));
        }
        let mut unless_exit = 0;
        if let Some(tok) = t.next() {
            if !tok.eq_ignore_ascii_case("UNLESS-EXIT") {
                return Err(at.error_nc(format!("Invalid retry option: {tok}"), Some(example)));
            }
            let Some(tok) = t.next() else {
                return Err(at.error_nc("Missing parameter for UNLESS-EXIT", Some(example)));
            };
            let (v, _, rest) = strtol(tok);
            if !rest.is_empty() {
                return Err(at.error_nc(
                    format!("Bad parameter for UNLESS-EXIT: {tok}"),
                    Some(example),
                ));
            }
            unless_exit = to_int(v);
        }
        let Some(targets) = self.targets(
            b,
            node_name,
            "In parse_retry(): skipping node %s because final nodes cannot have RETRY specifications (%s: %d)",
            at,
        ) else {
            return Err(at.unknown_node(node_name, ""));
        };
        for id in targets {
            let node = &mut b.dag.nodes[id];
            match node.kind {
                NodeKind::Final => {
                    return Err(at.error(
                        format!("Final Node {} cannot have RETRY specification", node.name),
                        None,
                    ))
                }
                NodeKind::Service => {
                    return Err(at.error(
                        format!("SERVICE node {} cannot have RETRY specification", node.name),
                        None,
                    ))
                }
                _ => {}
            }
            node.retry_max = retry;
            if unless_exit != 0 {
                node.retry_unless_exit = Some(unless_exit);
            }
        }
        Ok(())
    }

    /// `parse_abort`.
    fn parse_abort(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "ABORT-DAG-ON NodeName 3 [RETURN 1]";
        let Some(node_name) = t.next() else {
            return Err(at.error("Missing node name", Some(example)));
        };
        let Some(tok) = t.next() else {
            return Err(at.error("Missing ABORT-ON node value", Some(example)));
        };
        let (value, ok, _) = strtol(tok);
        if !ok {
            return Err(at.error(
                format!("Invalid ABORT-ON node value \"{tok}\""),
                Some(example),
            ));
        }
        let mut ret = None;
        if let Some(word) = t.next() {
            if !word.eq_ignore_ascii_case("RETURN") {
                return Err(at.error_nc(format!("Invalid ABORT-ON option: {word}"), Some(example)));
            }
            let Some(tok) = t.next() else {
                return Err(at.error_nc("Missing parameter for ABORT-ON", Some(example)));
            };
            let (r, ok, _) = strtol(tok);
            if !ok {
                return Err(
                    at.error_nc(format!("Bad parameter for ABORT_ON: {tok}"), Some(example))
                );
            }
            if !(0..=255).contains(&r) {
                return Err(at.error_nc(
                    format!("Bad return value for ABORT_ON (must be between 0 and 255): {tok}"),
                    None,
                ));
            }
            ret = Some(r as i32);
        }
        let Some(targets) = self.targets(
            b,
            node_name,
            "In parse_abort(): skipping node %s because final nodes cannot have ABORT-DAG-ON specification (%s: %d)s",
            at,
        ) else {
            return Err(at.unknown_node(node_name, ""));
        };
        for id in targets {
            let node = &mut b.dag.nodes[id];
            if node.kind == NodeKind::Final {
                return Err(at.error(
                    format!(
                        "Final Node {} cannot have ABORT-DAG-ON specification",
                        node.name
                    ),
                    None,
                ));
            }
            node.abort_dag_on = Some(AbortDagOn {
                value: to_int(value),
                ret,
            });
        }
        Ok(())
    }

    /// `parse_vars`.
    fn parse_vars(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "Vars NodeName [PREPEND | APPEND] VarName1=\"value1\" VarName2=\"value2\"";
        let Some(node_name) = t.next() else {
            return Err(at.error("Missing node name", Some(example)));
        };
        let mut vars = t.next_with(&['\n']).unwrap_or("");
        let prepend = if let Some(rest) = vars.strip_prefix("PREPEND") {
            vars = rest;
            true
        } else if let Some(rest) = vars.strip_prefix("APPEND") {
            vars = rest;
            false
        } else {
            !self.opts.append_vars
        };
        let Some(targets) = self.targets(
            b,
            node_name,
            "In parse_vars(): skipping node %s because final nodes must have VARS set explicitly (%s: %d)",
            at,
        ) else {
            return Err(at.unknown_node(node_name, ""));
        };
        for id in targets {
            let mut rest = vars;
            let mut pairs = 0;
            loop {
                let (name, value) = next_var(at, &mut rest)?;
                if name.is_empty() {
                    break;
                }
                let name = match name.strip_prefix('+') {
                    Some(n) => format!("My.{n}"),
                    None => name,
                };
                pairs += 1;
                self.add_var(b, id, name, value, prepend, at)?;
            }
            if pairs == 0 {
                return Err(at.error("No valid name-value pairs", None));
            }
        }
        Ok(())
    }

    /// `Node::AddVar`: a repeated name replaces the value, with a warning.
    fn add_var(
        &mut self,
        b: &mut Builder,
        id: NodeId,
        name: String,
        value: String,
        prepend: bool,
        at: At<'_>,
    ) -> Result<()> {
        let node_name = b.dag.nodes[id].name.clone();
        if let Some(i) = b.dag.nodes[id].vars.iter().position(|v| v.name == name) {
            self.say(
                Level::Normal,
                format!(
                    "Warning: VAR \"{name}\" is already defined in node \"{node_name}\" \
                     (Discovered at file \"{}\", line {})",
                    at.file, at.line
                ),
            );
            self.strict_error(3, at)?;
            self.say(
                Level::Normal,
                format!("Warning: Setting VAR \"{name}\" = \"{value}\""),
            );
            b.dag.nodes[id].vars[i].value = value;
            return Ok(());
        }
        b.dag.nodes[id].vars.push(Var {
            name,
            value,
            prepend,
        });
        Ok(())
    }

    /// `parse_priority`.
    fn parse_priority(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "PRIORITY NodeName Value";
        let Some(node_name) = t.next() else {
            return Err(at.error("Missing node name", Some(example)));
        };
        let Some(tok) = t.next() else {
            return Err(at.error("Missing PRIORITY value", Some(example)));
        };
        let (prio, ok, _) = strtol(tok);
        let prio = to_int(prio);
        if !ok {
            return Err(at.error(format!("Invalid PRIORITY value \"{tok}\""), Some(example)));
        }
        if let Some(extra) = t.next() {
            return Err(at.error(
                format!("Extra token ({extra}) on PRIORITY line"),
                Some(example),
            ));
        }
        let Some(targets) = self.targets(
            b,
            node_name,
            "In parse_priority(): skipping node %s because final nodes cannot have PRIORITY specifications (%s: %d)",
            at,
        ) else {
            return Err(at.unknown_node(node_name, ""));
        };
        for id in targets {
            let node = &b.dag.nodes[id];
            match node.kind {
                NodeKind::Final => {
                    return Err(at.error(
                        format!(
                            "Final Node {} cannot have PRIORITY specification",
                            node.name
                        ),
                        None,
                    ))
                }
                NodeKind::Service => {
                    return Err(at.error(
                        format!(
                            "SERVICE node {} cannot have PRIORITY specification",
                            node.name
                        ),
                        None,
                    ))
                }
                _ => {}
            }
            if node.priority != 0 && node.priority != prio {
                let text = format!(
                    "Warning: new priority {prio} for node {} overrides old value {}",
                    node.name, node.priority
                );
                self.say(Level::Normal, text);
                self.strict_error(2, at)?;
            }
            b.dag.nodes[id].priority = prio;
        }
        Ok(())
    }

    /// `parse_category`.
    fn parse_category(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "CATEGORY NodeName TypeName";
        let Some(node_name) = t.next() else {
            return Err(at.error("Missing node name", Some(example)));
        };
        let Some(category) = t.next() else {
            return Err(at.error("Missing CATEGORY name", Some(example)));
        };
        if let Some(extra) = t.next() {
            return Err(at.error(
                format!("Extra token ({extra}) on CATEGORY line"),
                Some(example),
            ));
        }
        let Some(targets) = self.targets(
            b,
            node_name,
            "In parse_category(): skipping node %s because final nodes cannot have CATEGORY specifications (%s: %d)",
            at,
        ) else {
            return Err(at.unknown_node(node_name, ""));
        };
        for id in targets {
            let node = &b.dag.nodes[id];
            match node.kind {
                NodeKind::Final => {
                    return Err(at.error(
                        format!(
                            "Final node {} cannot have CATEGORY specification",
                            node.name
                        ),
                        None,
                    ))
                }
                NodeKind::Service => {
                    return Err(at.error(
                        format!(
                            "SERVICE node {} cannot have CATEGORY specification",
                            node.name
                        ),
                        None,
                    ))
                }
                _ => {}
            }
            if let Some(old) = node.category.as_deref().filter(|&old| old != category) {
                let text = format!(
                    "Warning: new category {category} for node {} overrides old value {old}",
                    node.name
                );
                self.say(Level::Normal, text);
                self.strict_error(3, at)?;
            }
            b.dag.nodes[id].category = Some(category.to_owned());
            b.dag.categories.entry(category.to_owned()).or_insert(None);
        }
        Ok(())
    }

    /// `parse_maxjobs`.
    fn parse_maxjobs(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "MAXJOBS TypeName Value";
        let Some(category) = t.next() else {
            return Err(at.error("Missing MAXJOBS category name", Some(example)));
        };
        let Some(tok) = t.next() else {
            return Err(at.error("Missing MAXJOBS value", Some(example)));
        };
        let (max, ok, _) = strtol(tok);
        let max = to_int(max);
        if !ok {
            return Err(at.error(format!("Invalid MAXJOBS value \"{tok}\""), Some(example)));
        }
        if max < 0 {
            return Err(at.error("MAXJOBS value must be non-negative", None));
        }
        if let Some(extra) = t.next() {
            return Err(at.error(
                format!("Extra token ({extra}) on MAXJOBS line"),
                Some(example),
            ));
        }
        let slot = b.dag.categories.entry(category.to_owned()).or_insert(None);
        if let Some(old) = slot.filter(|&old| old != max) {
            *slot = Some(max);
            self.say(
                Level::Normal,
                format!("Warning: new maxjobs value {max} for category {category} overrides old value {old}"),
            );
            self.strict_error(3, at)?;
        }
        *b.dag.categories.entry(category.to_owned()).or_insert(None) = Some(max);
        Ok(())
    }

    /// `parse_node_status_file`.
    fn parse_node_status_file(
        &mut self,
        b: &mut Builder,
        at: At<'_>,
        t: &mut Tokens<'_>,
    ) -> Result<()> {
        let example = "NODE_STATUS_FILE StatusFile [min update time] [ALWAYS-UPDATE]";
        let Some(file) = t.next() else {
            return Err(at.error("Missing node status file name,", Some(example)));
        };
        let mut min_update = 60;
        if let Some(tok) = t.next() {
            let (v, ok, _) = strtol(tok);
            if !ok {
                return Err(at.error(
                    format!("Invalid min update time value \"{tok}\""),
                    Some(example),
                ));
            }
            min_update = i64::from(to_int(v));
        }
        let mut always_update = false;
        if let Some(tok) = t.next() {
            if tok.eq_ignore_ascii_case("ALWAYS-UPDATE") {
                always_update = true;
            } else {
                return Err(at.error(format!("invalid parameter \"{tok}\""), Some(example)));
            }
        }
        if let Some(extra) = t.next() {
            return Err(at.error(
                format!("Extra token ({extra}) on NODE_STATUS_FILE line"),
                Some(example),
            ));
        }
        if let Some(old) = &b.dag.node_status {
            let text = format!(
                "Warning: Attempt to set NODE_STATUS_FILE to {file} does not override existing value of {}",
                old.file
            );
            self.say(Level::Normal, text);
            return self.strict_error(3, at);
        }
        b.dag.node_status = Some(StatusFileSpec {
            file: file.to_owned(),
            min_update,
            always_update,
        });
        Ok(())
    }

    /// `parse_save_point_file`.
    fn parse_save_point_file(
        &mut self,
        b: &mut Builder,
        at: At<'_>,
        t: &mut Tokens<'_>,
    ) -> Result<()> {
        let example = "SAVE_POINT_FILE NodeName [Filename]";
        let Some(node_name) = t.next() else {
            return Err(at.error("No Node specified for SAVE_POINT_FILE.", Some(example)));
        };
        if is_all_nodes(node_name) {
            return Err(at.error(
                "SAVE_POINT_FILE does not allow ALL_NODES option.",
                Some(example),
            ));
        }
        let file = match t.next() {
            Some(f) => {
                if let Some(extra) = t.next() {
                    return Err(at.error(
                        format!("Extra token ({extra}) found in SAVE_POINT_FILE declaration."),
                        Some(example),
                    ));
                }
                f.to_owned()
            }
            None => {
                let base = Path::new(at.file)
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!("{node_name}-{base}.save")
            }
        };
        let Some(id) = b.dag.find(&self.munge(node_name)) else {
            self.say(
                Level::Quiet,
                format!(
                    "Warning: {} (line {}): Unknown Node {node_name}",
                    at.file, at.line
                ),
            );
            return self.strict_error(1, at);
        };
        if matches!(
            b.dag.nodes[id].kind,
            NodeKind::Service | NodeKind::Provisioner
        ) {
            return Err(at.error(
                "SAVE_POINT_FILE can not be declared with neither SERVICE nor PROVISIONER nodes.",
                None,
            ));
        }
        b.dag.nodes[id].save_file = Some(file);
        Ok(())
    }

    /// `parse_reject`.
    fn parse_reject(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        if t.next().is_some() {
            return Err(at.error("REJECT should have no additional tokens.", Some("REJECT")));
        }
        let location = format!("{} (line {})", at.file, at.line);
        self.say(
            Level::Quiet,
            format!("REJECT specification at {location} will cause this DAG to fail"),
        );
        if b.dag.reject.is_none() {
            b.dag.reject = Some(location);
        }
        Ok(())
    }

    /// `parse_jobstate_log`.
    fn parse_jobstate_log(
        &mut self,
        b: &mut Builder,
        at: At<'_>,
        t: &mut Tokens<'_>,
    ) -> Result<()> {
        let example = "JOBSTATE_LOG JobstateLogFile";
        let Some(file) = t.next() else {
            return Err(at.error("Missing jobstate log file name,", Some(example)));
        };
        if let Some(extra) = t.next() {
            return Err(at.error(
                format!("Extra token ({extra}) on JOBSTATE_LOG line"),
                Some(example),
            ));
        }
        if let Some(old) = &b.dag.jobstate_log {
            let text = format!(
                "Warning: Attempt to set JOBSTATE_LOG to {file} does not override existing value of {old}"
            );
            self.say(Level::Normal, text);
            return self.strict_error(3, at);
        }
        b.dag.jobstate_log = Some(file.to_owned());
        Ok(())
    }

    /// `parse_pre_skip`.
    fn parse_pre_skip(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "PRE_SKIP NodeName Exitcode";
        let Some(node_name) = t.next() else {
            return Err(at.error("Missing node name", Some(example)));
        };
        let Some(tok) = t.next() else {
            return Err(at.error("Missing exit code", Some(example)));
        };
        let (code, ok, _) = strtol(tok);
        let code = to_int(code);
        if !ok {
            return Err(at.error(format!("Invalid exit code \"{tok}\""), Some(example)));
        }
        if let Some(extra) = t.next() {
            return Err(at.error(format!("invalid parameter \"{extra}\""), Some(example)));
        }
        let Some(targets) = self.targets(
            b,
            node_name,
            "In parse_pre_skip(): skipping node %s because final nodes must have PRE_SKIP set explicitly (%s: %d)",
            at,
        ) else {
            return Err(at.unknown_node(node_name, "ERROR: "));
        };
        for id in targets {
            let name = b.dag.nodes[id].name.clone();
            if !(0..=0xff).contains(&code) {
                return Err(at.raw(vec![format!(
                    "ERROR: {} (line {}): failed to add PRE_SKIP to node {name}: PRE_SKIP exit \
                     code must be between 0 and 255\n",
                    at.file, at.line
                )]));
            }
            if code == 0 {
                self.say(
                    Level::Normal,
                    "Warning: exit code 0 for a PRE_SKIP value is weird.",
                );
            }
            if let Some(old) = b.dag.nodes[id].pre_skip {
                self.say(
                    Level::Normal,
                    format!("Warning: new PRE_SKIP value  {code} for node {name} overrides old value {old}"),
                );
                self.strict_error(3, at)?;
            }
            b.dag.nodes[id].pre_skip = Some(code);
        }
        Ok(())
    }

    /// `parse_done`.
    fn parse_done(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "Done NodeName";
        let Some(node_name) = t.next() else {
            return Err(at.error("Missing node name", Some(example)));
        };
        if let Some(extra) = t.next() {
            return Err(at.error(format!("Extra token ({extra}) on DONE line"), Some(example)));
        }
        let Some(id) = b.dag.find(&self.munge(node_name)) else {
            self.say(
                Level::Quiet,
                format!(
                    "Warning: {} (line {}): Unknown Node {node_name}",
                    at.file, at.line
                ),
            );
            return self.strict_error(1, at);
        };
        let what = match b.dag.nodes[id].kind {
            NodeKind::Final => Some("FINAL Node"),
            NodeKind::Service => Some("SERVICE node"),
            _ => None,
        };
        if let Some(what) = what {
            self.say(
                Level::Quiet,
                format!(
                    "Warning: {} (line {}): {what} {node_name} cannot be set to DONE",
                    at.file, at.line
                ),
            );
            return self.strict_error(1, at);
        }
        b.dag.nodes[id].done_line = true;
        Ok(())
    }

    /// `parse_connect`: joins one splice's pin-outs to another's pin-ins.
    fn parse_connect(&mut self, b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
        let example = "CONNECT splice1 splice2";
        let Some(s1) = t.next() else {
            return Err(at.error("Missing splice1 name", Some(example)));
        };
        let Some(s2) = t.next() else {
            return Err(at.error("Missing splice2 name", Some(example)));
        };
        if let Some(extra) = t.next() {
            return Err(at.error(
                format!("Extra token ({extra}) on CONNECT line"),
                Some(example),
            ));
        }
        let (s1, s2) = (self.munge(s1), self.munge(s2));
        for s in [&s1, &s2] {
            if !b.splices.contains_key(s) {
                return Err(at.error(format!("Splice {s} not found!"), None));
            }
        }
        let see = |mut lines: Vec<String>| {
            lines.push(format!(
                "ERROR: {} (line {}): (see previous line)",
                at.file, at.line
            ));
            at.raw(lines)
        };
        let outs = b.splices[&s1].pin_outs.clone();
        let ins = b.splices[&s2].pin_ins.clone();
        if outs.is_empty() {
            return Err(see(vec![format!(
                "ERROR: parent splice {s1} has 0 pin_outs"
            )]));
        }
        if ins.is_empty() {
            return Err(see(vec![format!("ERROR: child splice {s2} has 0 pin_ins")]));
        }
        if outs.len() != ins.len() {
            return Err(see(vec![format!(
                "ERROR: pin_in/out mismatch:  parent splice {s1} has {} pin_outs; child splice {s2} has {} pin_ins",
                outs.len(),
                ins.len()
            )]));
        }
        for (i, (parents, children)) in outs.iter().zip(&ins).enumerate() {
            if parents.is_empty() {
                return Err(see(vec![format!(
                    "ERROR: parent splice {s1} has no node for pin_out {}",
                    i + 1
                )]));
            }
            if children.is_empty() {
                return Err(see(vec![format!(
                    "ERROR: child splice {s2} has no node for pin_in {}",
                    i + 1
                )]));
            }
            for &p in parents {
                if let Err(why) = add_edges(b, p, children, at) {
                    return Err(see(vec![
                        format!(
                            "ERROR: unable to add parent/child dependency for pin {}",
                            i + 1
                        ),
                        why,
                    ]));
                }
            }
        }
        for &n in &b.splices[&s2].members {
            if b.dag.nodes[n].parents.is_empty() {
                return Err(see(vec![format!(
                    "ERROR: child splice node {} has no parents after making pin connections; add pin_in or parent",
                    b.dag.nodes[n].name
                )]));
            }
        }
        Ok(())
    }

    /// `parse_pin_in_out`.
    fn parse_pin(
        &mut self,
        b: &mut Builder,
        at: At<'_>,
        t: &mut Tokens<'_>,
        pin_in: bool,
    ) -> Result<()> {
        let example = "PIN_IN|PIN_OUT node pin_number";
        let Some(node_name) = t.next() else {
            return Err(at.error("Missing node name", Some(example)));
        };
        let Some(tok) = t.next() else {
            return Err(at.error("Missing pin_number", Some(example)));
        };
        let (pin, ok, _) = strtol(tok);
        if !ok {
            return Err(at.error(format!("Invalid pin_number value \"{tok}\""), Some(example)));
        }
        if pin < 1 {
            return Err(at.error("pin_number value must be positive", None));
        }
        if let Some(extra) = t.next() {
            return Err(at.error(
                format!("Extra token ({extra}) on PIN_IN/PIN_OUT line"),
                Some(example),
            ));
        }
        let name = self.munge(node_name);
        let Some(id) = b.dag.find(&name) else {
            return Err(at.raw(vec![
                format!("ERROR: node {name} not found!"),
                format!("ERROR: {} (line {}): (see previous line)", at.file, at.line),
            ]));
        };
        let pins = if pin_in {
            &mut b.pin_ins
        } else {
            &mut b.pin_outs
        };
        let pin = pin.min(10_000) as usize - 1;
        if pins.len() <= pin {
            pins.resize(pin + 1, Vec::new());
        }
        pins[pin].push(id);
        Ok(())
    }
}

/// `pre_parse_node`: the node name and the submit file (or `{`), possibly quoted.
fn pre_parse_node<'a>(t: &mut Tokens<'a>) -> (Option<&'a str>, Option<&'a str>) {
    let name = t.next();
    let submit = t.next_possibly_quoted();
    (name, submit)
}

/// An inline submit description's lines, up to the line that starts with `}`.
fn read_inline(
    reader: &mut LineReader<'_>,
    at: At<'_>,
    keyword: &str,
    name: &str,
) -> Result<Arc<str>> {
    let mut text = String::new();
    while let Some(line) = reader.next_line() {
        if line.starts_with('}') {
            return Ok(text.into());
        }
        if crate::submit::is_queue_statement(&line).is_some() {
            return Err(At {
                file: at.file,
                line: reader.line() as usize,
            }
            .error(
                format!(
                    "a queue statement is not allowed in the inline submit description of {name} (DAGMan queues one job)"
                ),
                None,
            ));
        }
        text.push_str(&line);
        text.push('\n');
    }
    let what = if keyword == "SUBMIT-DESCRIPTION" {
        format!(" SUBMIT-DESCRIPTION {name}")
    } else {
        format!("{keyword} {name} submit description")
    };
    Err(at.raw(vec![format!(
        "Error: no closing brace in {what} (starting on line {})",
        at.line
    )]))
}

/// Adds a node declared by this DAG's own file.
fn add_own(b: &mut Builder, node: Node) -> NodeId {
    let id = b.dag.nodes.len();
    b.dag.index.insert(node.name.clone(), id);
    match node.kind {
        NodeKind::Final => b.dag.final_node = Some(id),
        NodeKind::Provisioner => b.dag.provisioner = Some(id),
        NodeKind::Service => b.dag.services.push(id),
        NodeKind::Job => {}
    }
    b.dag.nodes.push(node);
    b.group.push(None);
    id
}

/// `Node::AddChildren`: `parent` -> each child, refused for FINAL, PROVISIONER and SERVICE
/// nodes with HTCondor's reason.
fn add_edges(
    b: &mut Builder,
    parent: NodeId,
    children: &[NodeId],
    at: At<'_>,
) -> std::result::Result<(), String> {
    match b.dag.nodes[parent].kind {
        NodeKind::Final => return Err("Tried to add a child to a Final node".into()),
        NodeKind::Provisioner => return Err("Tried to add child to the PROVISIONER node".into()),
        NodeKind::Service => return Err("Tried to add a child to a SERVICE node".into()),
        NodeKind::Job => {}
    }
    for &c in children {
        match b.dag.nodes[c].kind {
            NodeKind::Final => return Err("Tried to add a parent to a Final node".into()),
            NodeKind::Provisioner => {
                return Err("Tried to add parent to the PROVISIONER node".into())
            }
            NodeKind::Service => return Err("Tried to add a parent to a SERVICE node".into()),
            NodeKind::Job => {}
        }
    }
    for &c in children {
        let key = (b.dag.nodes[parent].created, b.dag.nodes[c].created);
        let created = |b: &Builder, i: NodeId| b.dag.nodes[i].created;
        if !b.dag.nodes[parent].children.contains(&c) {
            let pos = b.dag.nodes[parent]
                .children
                .partition_point(|&x| created(b, x) < created(b, c));
            b.dag.nodes[parent].children.insert(pos, c);
            let pos = b.dag.nodes[c]
                .parents
                .partition_point(|&x| created(b, x) < created(b, parent));
            b.dag.nodes[c].parents.insert(pos, parent);
        }
        b.edge_lines
            .entry(key)
            .or_insert_with(|| (at.file.to_owned(), at.line));
    }
    Ok(())
}

/// `parse_dot`.
fn parse_dot(b: &mut Builder, at: At<'_>, t: &mut Tokens<'_>) -> Result<()> {
    let example = "Dot dotfile [UPDATE | DONT-UPDATE] [OVERWRITE | DONT-OVERWRITE] [INCLUDE <dot-file-header>]";
    let Some(file) = t.next() else {
        return Err(at.error("Missing dot file name,", Some(example)));
    };
    let mut spec = b.dag.dot.take().unwrap_or(DotSpec {
        file: String::new(),
        update: false,
        overwrite: true,
        include: None,
    });
    while let Some(tok) = t.next() {
        match tok.to_ascii_uppercase().as_str() {
            "UPDATE" => spec.update = true,
            "DONT-UPDATE" => spec.update = false,
            "OVERWRITE" => spec.overwrite = true,
            "DONT-OVERWRITE" => spec.overwrite = false,
            "INCLUDE" => match t.next() {
                Some(inc) => spec.include = Some(inc.to_owned()),
                None => {
                    b.dag.dot = Some(spec);
                    return Err(at.error("Missing include file name.", Some(example)));
                }
            },
            _ => {}
        }
    }
    spec.file = file.to_owned();
    b.dag.dot = Some(spec);
    Ok(())
}

/// `get_next_var`: the next `name="value"` of a VARS line (an empty name at its end).
fn next_var(at: At<'_>, s: &mut &str) -> Result<(String, String)> {
    let is_space = |c: char| c == ' ' || ('\t'..='\r').contains(&c);
    *s = s.trim_start_matches(is_space);
    if s.is_empty() {
        return Ok((String::new(), String::new()));
    }
    let mut name = String::new();
    let mut chars = s.char_indices().peekable();
    let mut end = 0;
    while let Some(&(i, c)) = chars.peek() {
        if !(c.is_ascii_alphanumeric() || c == '_' || c == '+' || c == '.') {
            break;
        }
        if c == '+' && !name.is_empty() {
            return Err(at.error(
                format!("'+' can only be first character of macroname ({name})"),
                None,
            ));
        }
        name.push(c);
        end = i + c.len_utf8();
        chars.next();
    }
    let rest = &s[end..];
    if name.is_empty() {
        return Err(at.error(
            format!(
                "Unexpected symbol: \"{}\"",
                rest.chars().next().unwrap_or(' ')
            ),
            None,
        ));
    }
    if name == "+" {
        return Err(at.error(
            format!("macroname ({name}) must contain at least one alphanumeric character"),
            None,
        ));
    }
    let rest = rest.trim_start_matches(is_space);
    let Some(rest) = rest.strip_prefix('=') else {
        let c = rest.chars().next().unwrap_or('\0');
        return Err(if name == "PREPEND" || name == "APPEND" {
            at.error(
                format!("{name} not declared before all passed variables."),
                None,
            )
        } else {
            at.error(
                format!("Illegal character ({c}) in or after macroname {name}"),
                None,
            )
        });
    };
    let rest = rest.trim_start_matches(is_space);
    let Some(rest) = rest.strip_prefix('"') else {
        return Err(at.error(format!("{name}'s value must be quoted"), None));
    };
    let mut value = String::new();
    let mut escaped = false;
    let mut consumed = None;
    for (i, c) in rest.char_indices() {
        if escaped {
            if c != '\\' && c != '"' {
                return Err(at.error(format!("Unknown escape sequence \"\\{c}\""), None));
            }
            value.push(c);
            escaped = false;
        } else if c == '"' {
            consumed = Some(i + 1);
            break;
        } else if c == '\\' {
            escaped = true;
        } else {
            value.push(c);
        }
    }
    let Some(consumed) = consumed else {
        return Err(at.error("Missing end quote", None));
    };
    *s = &rest[consumed..];
    if name.to_ascii_lowercase().starts_with("queue") {
        return Err(at.raw(vec![format!(
            "ERROR: Illegal variable name: {name}; variable names cannot begin with \"queue\""
        )]));
    }
    Ok((name, value))
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
