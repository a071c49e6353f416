//! What DAGMan writes besides dagman.out, in HTCondor 24.0's formats: rescue DAGs and save
//! files (`Dag::WriteRescue`), the node status file (`Dag::DumpNodeStatus`), the DOT file
//! (`Dag::DumpDotFile`), the metrics file (`DagmanMetrics::WriteMetricsFile`) and the jobstate
//! log (jobstate_log.cpp). The texts are made from the engine's state; the runner writes them.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use super::dag::{NodeKind, ScriptKind};
use super::engine::{DagStatus, Engine, Status};
use crate::classad::unparse::value_to_string;
use crate::classad::Value;

/// `RESCUE_DAG_VERSION`.
const RESCUE_DAG_VERSION: &str = "2.0.1";

/// dprintf's time: `MM/DD/YY HH:MM:SS` in local time (`time_to_str`).
pub fn local_time(t: i64) -> String {
    use chrono::TimeZone;
    chrono::Local
        .timestamp_opt(t, 0)
        .single()
        .map(|d| d.format("%m/%d/%y %H:%M:%S").to_string())
        .unwrap_or_default()
}

/// C's `ctime` without its newline: `Thu Jun 13 17:02:11 2024`, local time.
pub fn ctime(t: i64) -> String {
    use chrono::TimeZone;
    chrono::Local
        .timestamp_opt(t, 0)
        .single()
        .map(|d| d.format("%a %b %e %H:%M:%S %Y").to_string())
        .unwrap_or_default()
}

/// A string as a ClassAd literal (`EscapeClassadString`).
fn quoted(s: &str) -> String {
    value_to_string(&Value::Str(s.into()))
}

/// `Dag::WriteRescue`: a rescue DAG (partial: only DONE and RETRY lines; full: the whole
/// DAG), or a save-point file.
pub fn rescue_text(
    e: &Engine,
    header: &str,
    partial: bool,
    save_point: bool,
    parse_failed: bool,
) -> String {
    use chrono::{Datelike, Timelike};
    let reset_retries = save_point || e.opts.reset_retries_upon_rescue;
    let mut out = String::from(header);
    let t = chrono::DateTime::from_timestamp(e.now(), 0).unwrap_or_default();
    let _ = writeln!(
        out,
        "# Created {}/{}/{} {:02}:{:02}:{:02} UTC",
        t.month(),
        t.day(),
        t.year(),
        t.hour(),
        t.minute(),
        t.second()
    );
    let _ = writeln!(
        out,
        "# Rescue DAG version: {RESCUE_DAG_VERSION} ({})",
        if partial { "partial" } else { "full" }
    );
    out.push_str("#\n");
    let _ = writeln!(out, "# Total number of Nodes: {}", e.num_nodes(true));
    let _ = writeln!(out, "# Nodes premarked DONE: {}", e.num_done(true));
    let _ = writeln!(out, "# Nodes that failed: {}", e.num_failed());
    out.push_str("#   ");
    for (id, node) in e.dag.graph_nodes() {
        if e.status(id) == Status::Error {
            let _ = write!(out, "{},", node.name);
        }
    }
    out.push_str("<ENDLIST>\n\n");
    let dag = &e.dag;
    if !partial {
        if parse_failed {
            out.push_str("REJECT\n\n");
        }
        if let Some(c) = &dag.config {
            let _ = writeln!(out, "CONFIG {c}\n");
        }
        if let Some(s) = &dag.node_status {
            let _ = writeln!(out, "NODE_STATUS_FILE {}\n", s.file);
        }
        if let Some(j) = &dag.jobstate_log {
            let _ = writeln!(out, "JOBSTATE_LOG {j}\n");
        }
    }
    for (id, node) in dag.graph_nodes() {
        if !partial {
            let keyword = match (node.kind, &node.dag_file) {
                (NodeKind::Final, _) => "FINAL",
                (_, Some(_)) => "SUBDAG EXTERNAL",
                _ => "JOB",
            };
            let file = node.dag_file.as_deref().unwrap_or(&node.submit);
            let _ = write!(out, "\n{keyword} {} {file} ", node.name);
            if !node.dir.is_empty() {
                let _ = write!(out, "DIR {} ", node.dir);
            }
            if node.noop {
                out.push_str("NOOP ");
            }
            out.push('\n');
            if let Some(s) = &node.pre {
                script_line(&mut out, ScriptKind::Pre, &node.name, s);
            }
            if let Some(code) = node.pre_skip {
                let _ = writeln!(out, "PRE_SKIP {} {code}", node.name);
            }
            if let Some(s) = &node.post {
                script_line(&mut out, ScriptKind::Post, &node.name, s);
            }
            if !node.vars.is_empty() {
                let _ = write!(out, "VARS {}", node.name);
                for v in &node.vars {
                    let value = v.value.replace('\\', "\\\\").replace('"', "\\\"");
                    let _ = write!(out, " {}=\"{value}\"", v.name);
                }
                out.push('\n');
            }
            if let Some(a) = node.abort_dag_on {
                let _ = write!(out, "ABORT-DAG-ON {} {}", node.name, a.value);
                if let Some(r) = a.ret {
                    let _ = write!(out, " RETURN {r}");
                }
                out.push('\n');
            }
            if node.priority != 0 {
                let _ = writeln!(out, "PRIORITY {} {}", node.name, node.priority);
            }
            if let Some(c) = &node.category {
                let _ = writeln!(out, "CATEGORY {} {c}", node.name);
            }
        }
        if e.status(id) == Status::Done && node.kind != NodeKind::Final {
            let _ = writeln!(out, "DONE {}", node.name);
        }
        let (retries, retry_max) = (e.retries(id), e.retry_max(id));
        if retry_max > 0 {
            let left = retry_max - retries;
            let unless = node.retry_unless_exit;
            if e.status(id) == Status::Error && retries < retry_max && unless == Some(e.retval(id))
            {
                let _ = writeln!(
                    out,
                    "# {retries} of {retry_max} retries performed; remaining attempts aborted after node returned {}",
                    e.retval(id)
                );
            } else if !reset_retries {
                let _ = writeln!(
                    out,
                    "# {retries} of {retry_max} retries already performed; {left} remaining"
                );
            }
            let n = if reset_retries { retry_max } else { left };
            let _ = write!(out, "RETRY {} {n}", node.name);
            if let Some(u) = unless {
                let _ = write!(out, " UNLESS-EXIT {u}");
            }
            out.push('\n');
        }
    }
    if !partial {
        out.push('\n');
        for (_, node) in dag.graph_nodes() {
            if node.children.is_empty() {
                continue;
            }
            let _ = write!(out, "PARENT {} CHILD ", node.name);
            for &c in &node.children {
                let _ = write!(out, " {}", dag.nodes[c].name);
            }
            out.push('\n');
        }
        for (cat, max) in &dag.categories {
            if let Some(m) = max {
                let _ = writeln!(out, "MAXJOBS {cat} {m}");
            }
        }
    }
    out
}

fn script_line(out: &mut String, kind: ScriptKind, node: &str, s: &super::dag::Script) {
    out.push_str("SCRIPT ");
    if let Some((status, time)) = s.defer {
        let _ = write!(out, "DEFER {status} {time} ");
    }
    let _ = writeln!(out, "{} {node} {}", kind.name(), s.cmd);
}

/// `Dag::DumpNodeStatus`: the node status file's text at `now`. `held`/`removed`: the DAG was
/// just held or removed. `next_update`: when it will be written again.
pub fn node_status_text(
    e: &Engine,
    dag_files: &[String],
    now: i64,
    held: bool,
    removed: bool,
    min_update: i64,
) -> String {
    let mut out = String::from("[\n  Type = \"DagStatus\";\n  DagFiles = {\n");
    let files: Vec<String> = dag_files
        .iter()
        .map(|f| format!("    {}", quoted(f)))
        .collect();
    out.push_str(&files.join(",\n"));
    out.push_str("\n  };\n");
    let _ = writeln!(out, "  Timestamp = {now}; /* {} */", quoted(&ctime(now)));
    let mut mark_error = false;
    let has_final = e.dag.final_node.is_some();
    let (status, note) = if e.done_success(true) {
        mark_error = true;
        (Status::Done, "success")
    } else if e.done_failed(true) {
        mark_error = true;
        if e.dag_status == DagStatus::Abort {
            (Status::Error, "aborted")
        } else {
            (Status::Error, "failed")
        }
    } else if e.done_cycle(true) {
        (Status::Error, "cycle")
    } else if held {
        (Status::Submitted, "held")
    } else if removed || e.is_aborted() {
        let note = if removed { "removed" } else { "aborted" };
        if has_final && !e.finished_running(true) {
            (Status::Submitted, note)
        } else {
            mark_error = true;
            (Status::Error, note)
        }
    } else {
        (Status::Submitted, "")
    };
    let _ = writeln!(
        out,
        "  DagStatus = {}; /* {} */",
        status as i32,
        quoted(&format!("{} ({note})", status.name()))
    );
    let (mut pre, mut queued, mut post, mut failed) =
        (e.pre_run(), e.num_submitted(), e.post_run(), e.num_failed());
    let (mut held_procs, mut idle_procs, _, _) = e.job_proc_states();
    if mark_error {
        failed += pre + queued + post;
        pre = 0;
        queued = 0;
        post = 0;
        held_procs = 0;
        idle_procs = 0;
    }
    let _ = writeln!(out, "  NodesTotal = {};", e.num_nodes(true));
    let _ = writeln!(out, "  NodesDone = {};", e.num_done(true));
    let _ = writeln!(out, "  NodesPre = {pre};");
    let _ = writeln!(out, "  NodesQueued = {queued};");
    let _ = writeln!(out, "  NodesPost = {post};");
    let _ = writeln!(out, "  NodesReady = {};", e.num_ready());
    let _ = writeln!(out, "  NodesUnready = {};", e.num_unready(true));
    let _ = writeln!(out, "  NodesFutile = {};", e.num_futile());
    let _ = writeln!(out, "  NodesFailed = {failed};");
    let _ = writeln!(out, "  JobProcsHeld = {held_procs};");
    let _ = writeln!(out, "  JobProcsIdle = {idle_procs}; /* includes held */");
    out.push_str("]\n");
    for (id, node) in e.dag.graph_nodes() {
        let (mut queued, mut held) = e.procs_queued(id);
        let mut status = e.status(id);
        let mut note = String::new();
        match status {
            Status::Ready if !e.can_submit(id) => status = Status::NotReady,
            Status::Submitted => {
                if mark_error {
                    status = Status::Error;
                    note = "Was STATUS_SUBMITTED".into();
                    queued = 0;
                    held = 0;
                } else {
                    note = if e.proc0_idle(id) { "idle" } else { "not_idle" }.into();
                }
            }
            Status::Error => note = e.error_text(id).to_owned(),
            Status::PreRun if mark_error => {
                status = Status::Error;
                note = "Was STATUS_PRERUN".into();
            }
            Status::PostRun if mark_error => {
                status = Status::Error;
                note = "Was STATUS_POSTRUN".into();
            }
            Status::Futile => note = "Had an ancestor node fail".into(),
            Status::Done if e.is_pre_done(id) => note = "User defined as DONE".into(),
            _ => {}
        }
        out.push_str("[\n  Type = \"NodeStatus\";\n");
        let _ = writeln!(out, "  Node = {};", quoted(&node.name));
        let _ = writeln!(
            out,
            "  NodeStatus = {}; /* {} */",
            status as i32,
            quoted(status.name())
        );
        let _ = writeln!(out, "  StatusDetails = {};", quoted(&note));
        let _ = writeln!(out, "  RetryCount = {};", e.retries(id));
        let _ = writeln!(out, "  JobProcsQueued = {queued};");
        let _ = writeln!(out, "  JobProcsHeld = {held};");
        out.push_str("]\n");
    }
    out.push_str("[\n  Type = \"StatusEnd\";\n");
    let _ = writeln!(out, "  EndTime = {now}; /* {} */", quoted(&ctime(now)));
    if e.finished_running(true) || removed {
        out.push_str("  NextUpdate = 0; /* \"none\" */\n");
    } else {
        let next = now + min_update;
        let _ = writeln!(out, "  NextUpdate = {next}; /* {} */", quoted(&ctime(next)));
    }
    out.push_str("]\n");
    out
}

/// `Dag::DumpDotFile`'s text; `include`: the header file's content, if it could be read.
pub fn dot_text(e: &Engine, now: i64, include: Option<(&str, &str)>) -> String {
    let mut out = String::from("digraph DAG {\n");
    let _ = writeln!(out, "    label=\"DAGMan Job status at {}\";\n", ctime(now));
    if let Some((name, text)) = include {
        let _ = writeln!(out, "// Beginning of commands included from {name}.");
        out.push_str(text);
        let _ = writeln!(out, "// End of commands included from {name}.\n");
    }
    for (id, node) in e.dag.graph_nodes() {
        let n = &node.name;
        let _ = match e.status(id) {
            Status::PreRun => writeln!(
                out,
                "    \"{n}\" [shape=ellipse label=\"{n} (Pre)\" style=dotted];"
            ),
            Status::Submitted => writeln!(
                out,
                "    \"{n}\" [shape=ellipse label=\"{n} (R)\" peripheries=2];"
            ),
            Status::PostRun => writeln!(
                out,
                "    \"{n}\" [shape=ellipse label=\"{n} (Post)\" style=dotted];"
            ),
            Status::Done => writeln!(
                out,
                "    \"{n}\" [shape=ellipse label=\"{n} (Done)\" style=bold];"
            ),
            Status::Error => writeln!(out, "    \"{n}\" [shape=box label=\"{n} (E)\"];"),
            _ => writeln!(out, "    \"{n}\" [shape=ellipse label=\"{n} (I)\"];"),
        };
    }
    out.push('\n');
    for (_, node) in e.dag.graph_nodes() {
        for &c in &node.children {
            let _ = writeln!(out, "    \"{}\" -> \"{}\";", node.name, e.dag.nodes[c].name);
        }
    }
    out.push_str("}\n");
    out
}

/// What the metrics file says of the run besides the engine's counts.
pub struct MetricsRun<'a> {
    pub version: &'a str,
    pub start: f64,
    pub end: f64,
    pub exit_code: i32,
    pub dagman_id: &'a str,
    pub parent_dagman_id: &'a str,
    pub rescue_dag_number: i32,
    /// `DAGMAN_REPORT_GRAPH_METRICS`: height, width, edges, vertices.
    pub graph: Option<(usize, usize, usize, usize)>,
}

/// `DagmanMetrics::WriteMetricsFile`'s text.
pub fn metrics_text(e: &Engine, run: &MetricsRun<'_>) -> String {
    let m = e.metrics;
    let mut out = String::from("{\n");
    let _ = writeln!(out, "    \"client\":\"condor_dagman\",");
    let _ = writeln!(out, "    \"version\":\"{}\",", run.version);
    let _ = writeln!(out, "    \"type\":\"metrics\",");
    let _ = writeln!(out, "    \"start_time\":{:.3},", run.start);
    let _ = writeln!(out, "    \"end_time\":{:.3},", run.end);
    let _ = writeln!(out, "    \"duration\":{:.3},", run.end - run.start);
    let _ = writeln!(out, "    \"exitcode\":{},", run.exit_code);
    let _ = writeln!(out, "    \"dagman_id\":\"{}\",", run.dagman_id);
    let _ = writeln!(
        out,
        "    \"parent_dagman_id\":\"{}\",",
        run.parent_dagman_id
    );
    let _ = writeln!(out, "    \"rescue_dag_number\":{},", run.rescue_dag_number);
    let _ = writeln!(out, "    \"jobs\":{},", m.simple_nodes);
    let _ = writeln!(out, "    \"jobs_failed\":{},", m.simple_failed);
    let _ = writeln!(out, "    \"jobs_succeeded\":{},", m.simple_succeeded);
    let _ = writeln!(out, "    \"dag_jobs\":{},", m.subdag_nodes);
    let _ = writeln!(out, "    \"dag_jobs_failed\":{},", m.subdag_failed);
    let _ = writeln!(out, "    \"dag_jobs_succeeded\":{},", m.subdag_succeeded);
    let _ = writeln!(
        out,
        "    \"total_jobs\":{},",
        m.simple_nodes + m.subdag_nodes
    );
    let run_count = m.simple_succeeded + m.simple_failed + m.subdag_succeeded + m.subdag_failed;
    let _ = writeln!(out, "    \"total_jobs_run\":{run_count},");
    if let Some((h, w, edges, vertices)) = run.graph {
        let _ = writeln!(out, "    \"graph_height\":{h},");
        let _ = writeln!(out, "    \"graph_width\":{w},");
        let _ = writeln!(out, "    \"graph_num_edges\":{edges},");
        let _ = writeln!(out, "    \"graph_num_vertices\":{vertices},");
    }
    let _ = writeln!(out, "    \"DagStatus\":{}", e.dag_status as i32);
    out.push_str("}\n");
    out
}

/// The jobstate log (jobstate_log.cpp): `<time> <node> <event> <id> <tag> - <seq>` lines.
/// After a restart, lines already in the file (those of its last second) are not written
/// again.
pub struct JobstateLog {
    path: PathBuf,
    file: Option<std::io::BufWriter<std::fs::File>>,
    last_time: i64,
    last_lines: HashSet<String>,
}

impl JobstateLog {
    pub fn new(path: impl Into<PathBuf>) -> JobstateLog {
        JobstateLog {
            path: path.into(),
            file: None,
            last_time: 0,
            last_lines: HashSet::new(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `InitializeRecovery`: remembers the newest second's lines (INTERNAL lines aside).
    pub fn initialize_recovery(&mut self) {
        let Ok(f) = std::fs::File::open(&self.path) else {
            return;
        };
        let mut lines: Vec<(i64, String)> = Vec::new();
        for line in std::io::BufReader::new(f).lines().map_while(Result::ok) {
            let mut words = line.split(' ');
            let (Some(t), Some(node)) = (words.next(), words.next()) else {
                continue;
            };
            if node == "INTERNAL" {
                continue;
            }
            if let Ok(t) = t.parse::<i64>() {
                if t > self.last_time {
                    self.last_time = t;
                }
                lines.push((t, line));
            }
        }
        self.last_lines = lines
            .into_iter()
            .filter(|(t, _)| *t == self.last_time)
            .map(|(_, l)| l)
            .collect();
    }

    /// `InitializeRescue`: the highest sequence number in the file.
    pub fn max_sequence(&self) -> i32 {
        let Ok(text) = std::fs::read_to_string(&self.path) else {
            return 0;
        };
        text.lines()
            .filter_map(|l| l.split(' ').nth(6).and_then(|s| s.parse::<i32>().ok()))
            .max()
            .unwrap_or(0)
    }

    /// `JobstateLog::Write`.
    pub fn write(&mut self, time: i64, info: &str) {
        if time < self.last_time {
            return;
        }
        let line = format!("{time} {info}");
        if time == self.last_time && self.last_lines.contains(&line) {
            return;
        }
        if self.file.is_none() {
            self.file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .ok()
                .map(std::io::BufWriter::new);
        }
        if let Some(f) = &mut self.file {
            let _ = writeln!(f, "{line}");
        }
    }

    pub fn flush(&mut self) {
        if let Some(f) = &mut self.file {
            let _ = f.flush();
        }
    }
}
