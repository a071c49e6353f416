//! Checking DAG files before anything runs: condor_submit_dag refuses a DAG that condor_dagman
//! would fail to parse, that has a cycle, or whose nodes' submit files are missing (HTCondor
//! submits such a DAG and lets DAGMan fail later, in its log); condor_dag_checker reports the
//! same problems and the DAG's shape.

use std::path::Path;

use super::dag::{Dag, Description, NodeKind};
use super::parse::{ParseError, ParseOptions, Parser};
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
/// it. Nodes with a PRE script are left alone (the script may write the file), as are NOOP
/// nodes, inline descriptions and SUBDAG nodes (whose submit file condor_dagman makes).
pub fn missing_submit_file(dag: &Dag, cwd: &Path) -> Option<ParseError> {
    for node in &dag.nodes {
        if node.noop
            || node.pre.is_some()
            || node.dag_file.is_some()
            || node.description != Description::File
            || node.kind == NodeKind::Provisioner && node.submit.is_empty()
        {
            continue;
        }
        let dir = if node.dir.is_empty() {
            cwd.to_owned()
        } else {
            cwd.join(&node.dir)
        };
        let path = dir.join(&node.submit);
        if let Err(e) = std::fs::metadata(&path) {
            let (file, line) = &node.declared;
            return Some(ParseError {
                file: file.to_string(),
                line: *line,
                lines: vec![format!(
                    "ERROR: {file} (line {line}): node {}'s submit file {} cannot be read: {}",
                    node.name,
                    node.submit,
                    crate::config::parse::io_reason(&e)
                )],
                immediate: false,
            });
        }
    }
    None
}
