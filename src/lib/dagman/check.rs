//! Checking DAG files before anything runs: condor_submit_dag refuses a DAG that condor_dagman
//! would fail to parse, that has a cycle, or whose nodes' submit files are missing (HTCondor
//! submits such a DAG and lets DAGMan fail later, in its log); condor_dag_checker reports the
//! same problems and the DAG's shape.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::dag::{Dag, Description, NodeId, NodeKind};
use super::parse::{ParseError, ParseOptions, Parser};
use crate::classad::ast::Expr;
use crate::classad::value::Value;
use crate::classad::ClassAd;
use crate::config::Config;

/// The parse options DAGMan takes from the configuration.
pub fn parse_options(config: &Config, cwd: &Path, use_dag_dir: bool) -> ParseOptions {
    let flag = |name: &str, default: bool| config.bool(name).ok().flatten().unwrap_or(default);
    let mut opts = ParseOptions::new(cwd);
    opts.strict = config
        .int("DAGMAN_USE_STRICT")
        .ok()
        .flatten()
        .unwrap_or(1)
        .clamp(0, 3) as u8;
    opts.use_dag_dir = use_dag_dir;
    opts.direct_submit = flag("DAGMAN_USE_DIRECT_SUBMIT", true);
    opts.append_vars = flag("DAGMAN_DEFAULT_APPEND_VARS", false);
    opts.allow_illegal_chars = flag("DAGMAN_ALLOW_ANY_NODE_NAME_CHARACTERS", false);
    opts.join_nodes = flag("DAGMAN_USE_JOIN_NODES", true);
    opts
}

/// Parses the DAG files as condor_dagman will (several files: one DAG, names numbered), and
/// looks for a cycle.
pub fn parse_dags(files: &[String], mut opts: ParseOptions) -> Result<Dag, ParseError> {
    opts.munge = files.len() > 1;
    let mut parser = Parser::new(opts);
    for f in files {
        parser.parse_dag_file(f)?;
    }
    parser.check_cycles()?;
    Ok(parser.finish())
}

/// The first node whose submit file does not exist, as an error naming the line that declared
/// it (see [`missing_submit_files`]).
pub fn missing_submit_file(dag: &Dag, cwd: &Path) -> Option<ParseError> {
    missing_submit_files(dag, cwd).next()
}

/// The nodes whose submit file does not exist, each as an error naming the line that declared
/// it. Nodes with a PRE script are left alone (the script may write the file), as are NOOP
/// nodes, inline descriptions and SUBDAG nodes (whose submit file condor_dagman makes).
pub fn missing_submit_files<'a>(
    dag: &'a Dag,
    cwd: &'a Path,
) -> impl Iterator<Item = ParseError> + 'a {
    dag.nodes.iter().filter_map(move |node| {
        if node.noop
            || node.pre.is_some()
            || node.dag_file.is_some()
            || node.description != Description::File
            || node.kind == NodeKind::Provisioner && node.submit.is_empty()
        {
            return None;
        }
        let dir = if node.dir.is_empty() {
            cwd.to_owned()
        } else {
            cwd.join(&node.dir)
        };
        let e = std::fs::metadata(dir.join(&node.submit)).err()?;
        let (file, line) = &node.declared;
        Some(ParseError {
            file: file.to_string(),
            line: *line,
            lines: vec![format!(
                "ERROR: {file} (line {line}): node {}'s submit file {} cannot be read: {}",
                node.name,
                node.submit,
                crate::config::parse::io_reason(&e)
            )],
            immediate: false,
        })
    })
}

/// One problem condor_dag_checker reports about a DAG file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// The file and line it is about (line 0: the file as a whole).
    pub file: String,
    pub line: usize,
    /// The command that could not be used, when the check knows it.
    pub command: Option<&'static str>,
    pub reason: String,
}

impl Issue {
    fn new(file: &str, line: usize, command: Option<&'static str>, reason: String) -> Issue {
        Issue {
            file: file.to_owned(),
            line,
            command,
            reason,
        }
    }

    /// A parse error as an issue: condor_dagman's message without its `ERROR: <file> (line
    /// N):` frame, which the issue's own layout gives.
    fn from_parse(e: &ParseError) -> Issue {
        let message = e.message();
        let at = format!("{} (line {})", e.file, e.line);
        let frames = [
            format!("ERROR: {at}: "),
            format!("ERROR: {at} "),
            format!("{at}: ERROR: "),
            format!("{at}: "),
            "ERROR: ".to_owned(),
        ];
        let reason = frames
            .iter()
            .find_map(|f| message.strip_prefix(f.as_str()))
            .unwrap_or(message)
            .trim();
        Issue::new(&e.file, e.line, None, reason.to_owned())
    }

    /// `<file>:<line> <reason>`, or `<file>:<line> Failed to parse <COMMAND> command:
    /// <reason>` (condor_dag_checker's layout).
    pub fn text(&self) -> String {
        match self.command {
            Some(c) => format!(
                "{}:{} Failed to parse {c} command: {}",
                self.file, self.line, self.reason
            ),
            None => format!("{}:{} {}", self.file, self.line, self.reason),
        }
    }
}

/// What condor_dag_checker found in one DAG file: the issues, and the DAG as far as it could
/// be read.
pub struct Report {
    pub issues: Vec<Issue>,
    pub dag: Dag,
}

/// Checks one DAG file as condor_dag_checker does: the whole file is read whatever it finds
/// (condor_dagman stops at the first error), then the DAG's REJECT, CONFIG lines and submit
/// files are looked at. Cycles are the DAG's shape's business ([`statistics`]).
pub fn check_file(file: &str, mut opts: ParseOptions) -> Report {
    opts.keep_going = true;
    opts.munge = false;
    let cwd = opts.cwd.clone();
    let mut parser = Parser::new(opts);
    let mut issues = Vec::new();
    if let Err(e) = std::fs::File::open(cwd.join(file)) {
        let base = Path::new(file)
            .file_name()
            .map_or_else(|| file.into(), |f| f.to_string_lossy());
        issues.push(Issue::new(
            file,
            0,
            None,
            format!(
                "Failed to open DAG {base}: {}",
                crate::config::parse::io_reason(&e)
            ),
        ));
        return Report {
            issues,
            dag: Dag::default(),
        };
    }
    let parsed = parser.parse_dag_file(file);
    issues.extend(parser.errors.iter().map(Issue::from_parse));
    if let Err(e) = parsed {
        issues.push(Issue::from_parse(&e));
    }
    let dag = parser.finish();

    if let Some(at) = &dag.reject {
        // `<file> (line N)`
        let (where_file, line) = at
            .rsplit_once(" (line ")
            .map(|(f, l)| (f, l.trim_end_matches(')').parse().unwrap_or(0)))
            .unwrap_or((file, 0));
        issues.push(Issue::new(
            where_file,
            line,
            None,
            "DAG marked with REJECT command".into(),
        ));
    }
    for (i, (named, (at_file, line))) in dag.config_lines.iter().enumerate() {
        let reason = if i > 0 {
            "DAG configuration file is already defined".to_owned()
        } else if named.is_empty() {
            "No configuration file specified".to_owned()
        } else if !cwd.join(named).exists() {
            format!("Configuration file {named} does not exist")
        } else {
            continue;
        };
        issues.push(Issue::new(at_file, *line, Some("CONFIG"), reason));
    }
    // (With -UseDagDir the nodes' directories already start with the DAG file's.)
    issues.extend(missing_submit_files(&dag, &cwd).map(|e| Issue::from_parse(&e)));
    Report { issues, dag }
}

/// The DAG's shape as condor_dag_checker reports it, in its order: `TotalNodes`, the counts
/// by kind (`NumJoinNodes`, `NumNodes`, `NumServiceNodes`, `NumSubDAGs`; those that are not
/// zero), `NumArcs` and `NumSplices` (when not zero), `FinalNode`, `ProvisionerNode`, then
/// either `IsCyclic` and `DetectedCycle` or `GraphHeight`, `GraphWidth` and `WidthByDepth`.
///
/// Depths are those of condor_dag_checker's depth-first walk from each node without parents
/// in creation order, children in creation order: a node counts at the depth the walk first
/// meets it. A cycle is named by the walk's path to it.
pub fn statistics(dag: &Dag) -> ClassAd {
    let mut ad = ClassAd::new();
    let int = |n: usize| Expr::Lit(Value::Int(n as i64));
    let string = |s: &str| Expr::Lit(Value::Str(Arc::from(s)));
    ad.insert("TotalNodes", int(dag.nodes.len()));
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut graph_nodes = false;
    for node in &dag.nodes {
        let key = match node.kind {
            NodeKind::Job if node.dag_file.is_some() => "NumSubDAGs",
            NodeKind::Job if node.name.starts_with("_condor_join_node") => "NumJoinNodes",
            NodeKind::Job => "NumNodes",
            NodeKind::Service => "NumServiceNodes",
            NodeKind::Final | NodeKind::Provisioner => continue,
        };
        graph_nodes |= node.kind == NodeKind::Job;
        *counts.entry(key).or_default() += 1;
    }
    for (key, count) in counts {
        ad.insert(key, int(count));
    }
    let arcs = dag.num_edges();
    if arcs > 0 {
        ad.insert("NumArcs", int(arcs));
    }
    if dag.num_splices > 0 {
        ad.insert("NumSplices", int(dag.num_splices));
    }
    if let Some(f) = dag.final_node {
        ad.insert("FinalNode", string(&dag.nodes[f].name));
    }
    if let Some(p) = dag.provisioner {
        ad.insert("ProvisionerNode", string(&dag.nodes[p].name));
    }
    if !graph_nodes {
        return ad;
    }
    match walk(dag) {
        Walk::Cycle(what) => {
            ad.insert("IsCyclic", Expr::Lit(Value::Bool(true)));
            ad.insert("DetectedCycle", string(&what));
        }
        Walk::Shape { height, widths } => {
            if let Some(&widest) = widths.iter().max() {
                ad.insert("GraphHeight", int(height));
                ad.insert("GraphWidth", int(widest));
                ad.insert(
                    "WidthByDepth",
                    Expr::List(widths.into_iter().map(int).collect()),
                );
            }
        }
    }
    ad
}

enum Walk {
    /// What condor_dag_checker says of the cycle.
    Cycle(String),
    /// The deepest depth reached plus one, and the number of nodes met at each depth.
    Shape { height: usize, widths: Vec<usize> },
}

/// condor_dag_checker's depth-first walk (`walkDFS`), without recursion: a chain of 100,000
/// nodes must not overflow the stack.
fn walk(dag: &Dag) -> Walk {
    let mut order: Vec<NodeId> = (0..dag.nodes.len()).collect();
    order.sort_by_key(|&id| dag.nodes[id].created);
    let aside = |id: NodeId| {
        matches!(
            dag.nodes[id].kind,
            NodeKind::Final | NodeKind::Service | NodeKind::Provisioner
        )
    };
    let mut w = Walker {
        dag,
        visited: (0..dag.nodes.len()).map(aside).collect(),
        on_path: vec![false; dag.nodes.len()],
        stack: Vec::new(),
        widths: vec![0],
        height: 1,
    };
    let mut found_start = false;
    for &start in &order {
        if aside(start) || !dag.nodes[start].parents.is_empty() {
            continue;
        }
        found_start = true;
        if let Some(again) = w.from(start) {
            let mut names: Vec<&str> = w
                .stack
                .iter()
                .map(|&(n, _, _)| dag.nodes[n].name.as_str())
                .collect();
            names.push(&dag.nodes[again].name);
            return Walk::Cycle(names.join(" -> "));
        }
    }
    if !found_start {
        return Walk::Cycle("No initial nodes discovered".into());
    }
    let missed: Vec<&str> = order
        .iter()
        .filter(|&&id| !w.visited[id])
        .map(|&id| dag.nodes[id].name.as_str())
        .collect();
    if !missed.is_empty() {
        return Walk::Cycle(format!("Failed to visit nodes {}", missed.join(",")));
    }
    let mut widths = w.widths;
    widths.retain(|&n| n > 0);
    Walk::Shape {
        height: w.height,
        widths,
    }
}

struct Walker<'a> {
    dag: &'a Dag,
    visited: Vec<bool>,
    /// The nodes on the walk's path (those of `stack`).
    on_path: Vec<bool>,
    /// The path: each node with its depth and the next child to walk to.
    stack: Vec<(NodeId, usize, usize)>,
    widths: Vec<usize>,
    height: usize,
}

impl Walker<'_> {
    /// Walks from `start`; on a cycle, the node met again (the path to it is left in `stack`).
    fn from(&mut self, start: NodeId) -> Option<NodeId> {
        if self.enter(start, 0) {
            return Some(start);
        }
        while let Some(frame) = self.stack.last_mut() {
            let (n, depth, next) = *frame;
            match self.dag.nodes[n].children.get(next) {
                Some(&child) => {
                    frame.2 += 1;
                    if self.enter(child, depth + 1) {
                        return Some(child);
                    }
                }
                None => {
                    self.stack.pop();
                    self.on_path[n] = false;
                }
            }
        }
        None
    }

    /// Meets node `n` at `depth`: whether it closes a cycle.
    fn enter(&mut self, n: NodeId, depth: usize) -> bool {
        if self.visited[n] {
            return self.on_path[n];
        }
        self.visited[n] = true;
        if self.widths.len() <= depth {
            self.widths.resize(depth + 1, 0);
        }
        self.widths[depth] += 1;
        self.height = self.height.max(depth + 1);
        if !self.dag.nodes[n].children.is_empty() {
            self.on_path[n] = true;
            self.stack.push((n, depth, 0));
        }
        false
    }
}
