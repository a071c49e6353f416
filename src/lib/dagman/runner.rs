//! The condor_dagman process: the [`Engine`] driven by the pool, as dagman_main.cpp drives
//! HTCondor's `Dag`.
//!
//! - dagman.out: every line with dprintf's `MM/DD/YY HH:MM:SS ` header, filtered by
//!   `DAGMAN_VERBOSITY`/`-Debug`, opened where `_CONDOR_DAGMAN_LOG` says (condor_submit_dag
//!   sets it).
//! - Start (`main_init`): the configuration with `DAGMAN_CONFIG_FILE`, the DAG files, a
//!   rescue DAG or save file on top, the lock file (its presence means recovery mode), the
//!   nodes log (truncated unless recovering), the DAGMan job's ad.
//! - Then the event loop (`condor_event_timer`), run when something happens rather than on a
//!   5-second timer: the nodes log changed (inotify), a script exited, a signal came, or a
//!   deferred script, a submit retry or a periodic duty is due.
//! - Node jobs are submitted through the submit library, several nodes in one queue
//!   transaction ([`crate::client::submit::queue_jobs`]), and the master is woken once.
//! - SIGUSR1 (condor_rm of the DAGMan job) aborts with a rescue DAG and exit code 2; SIGTERM
//!   (condor_hold, a graceful shutdown) exits 3 keeping the lock file, so that the next run
//!   recovers; SIGQUIT exits 3 at once.
//!
//! Run by hand (no `CONDOR_ID` in the environment) with no condor_master for the pool, it
//! brings up the pool inside its own process for the DAG's duration, as condor_run does.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

use super::dag::{DebugStreams, Node, ScriptKind};
use super::engine::{
    Engine, Exit, Host, Options, ScriptRun, Shutdown, SubmitNode, Submitted, EXIT_ABORT,
    EXIT_ERROR, EXIT_OKAY, EXIT_RESTART,
};
use super::files::{self, JobstateLog};
use super::options::{find_last_rescue_dag_num, rename_rescue_dags_after, rescue_dag_name};
use super::parse::{ParseError, ParseOptions, Parser};
use super::Level;
use crate::classad::parser::parse_old_expr;
use crate::classad::Expr;
use crate::client::actions::{act_on_jobs, Action, Request, Target};
use crate::client::submit::{queue_jobs_in, SubmitFailure};
use crate::client::{os_user, Session};
use crate::config::{Config, Environment, LoadOptions};
use crate::eventlog::{append_event, Event, LogFollower, LogFormat};
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::{ClusterId, HistoryOrder, HistoryQuery, JobId, JobIdSpec, JobQuery, Queue};
use crate::submit::{CommandLine, SubmitContext, SubmitFile};

/// What condor_dagman was asked to do (its command line, resolved).
#[derive(Clone, Debug, Default)]
pub struct RunArgs {
    /// The command line as given (for the `argv[i] == ` lines).
    pub argv: Vec<String>,
    pub dag_files: Vec<String>,
    pub lock_file: Option<String>,
    pub debug: Option<i32>,
    pub max_idle: Option<i32>,
    pub max_jobs: Option<i32>,
    pub max_pre: Option<i32>,
    pub max_post: Option<i32>,
    pub max_hold: Option<i32>,
    pub always_run_post: Option<bool>,
    pub do_recovery: bool,
    pub dump_rescue: bool,
    pub only_dump_dot: bool,
    pub dry_run: bool,
    pub priority: i32,
    pub save_file: Option<String>,
    pub do_rescue_from: i32,
    pub auto_rescue: Option<bool>,
    pub use_dag_dir: bool,
    pub allow_version_mismatch: bool,
    pub csd_version: Option<String>,
    pub suppress_notification: Option<bool>,
    pub submit_method: Option<i32>,
    /// The arguments a SUBDAG's condor_submit_dag run gets (`addDeepArgs`).
    pub deep_args: Vec<String>,
    pub force: bool,
}

/// What the main loop is told.
enum Msg {
    /// The nodes log changed (or might have).
    LogChanged,
    /// A script exited (not yet reaped); its captured output for `SCRIPT DEBUG`.
    ScriptExited {
        pid: u32,
        output: Vec<u8>,
    },
    Signal(i32),
}

/// dagman.out.
struct Out {
    file: Option<std::io::BufWriter<std::fs::File>>,
    level: Level,
    /// A line written through [`Write`] and not yet ended.
    partial: String,
    /// The last second stamped, and its stamp.
    stamp: (i64, String),
}

/// Lines written to dagman.out through `Write` are dprintf's `D_ALWAYS` lines.
impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.push_str(&String::from_utf8_lossy(buf));
        while let Some(i) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=i).collect();
            self.line(Level::Silent, line.trim_end_matches('\n'));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Out::flush(self);
        Ok(())
    }
}

impl Out {
    fn line(&mut self, level: Level, text: &str) {
        if level > self.level {
            return;
        }
        let now = crate::daemon::now();
        if self.stamp.0 != now || self.stamp.1.is_empty() {
            self.stamp = (now, files::local_time(now));
        }
        let stamp = &self.stamp.1;
        for line in text.split('\n') {
            match &mut self.file {
                Some(f) => {
                    let _ = writeln!(f, "{stamp} {line}");
                }
                None => eprintln!("{stamp} {line}"),
            }
        }
    }

    fn flush(&mut self) {
        if let Some(f) = &mut self.file {
            let _ = f.flush();
        }
    }
}

/// A running script's bookkeeping.
struct RunningScript {
    node: String,
    kind: ScriptKind,
    cmd: String,
    dir: PathBuf,
    debug: Option<(String, DebugStreams)>,
}

/// The engine's world: the pool's queue, the nodes log, the scripts, the files.
struct PoolHost {
    out: Out,
    session: Session,
    /// DAGMan's working directory (relative names in the DAG are relative to it).
    cwd: PathBuf,
    nodes_log: PathBuf,
    jobstate: Option<JobstateLog>,
    tx: Sender<Msg>,
    scripts: HashMap<u32, RunningScript>,
    primary_dag: String,
    multi: bool,
    max_rescue: i32,
    dagman_id: i32,
    /// `JobSubmitMethod` of the node jobs (1: DAGMan's direct submit).
    submit_method: i64,
    deep_args: Vec<String>,
    force: bool,
    /// Node jobs were submitted or removed: the master is woken once at the end of the step.
    wake: bool,
    /// The queue, kept open from one use to the next.
    queue: Option<Queue>,
    /// The pool run in this process, which runs only the clusters DAGMan hands it.
    adopter: Option<crate::daemon::Adopter>,
}

/// The queue kept in `slot` (opened when it is not), its clock at the session's time.
fn open_queue<'q>(slot: &'q mut Option<Queue>, session: &Session) -> Result<&'q mut Queue, String> {
    let queue = match slot {
        Some(q) => q,
        None => slot.insert(session.open_queue().map_err(|e| e.to_string())?),
    };
    let now = session.now;
    queue.set_clock(move || now);
    Ok(queue)
}

fn cmd_line(argv: &[String]) -> String {
    argv.join(" ")
}

impl PoolHost {
    fn dir_of(&self, node_dir: &str) -> PathBuf {
        if node_dir.is_empty() {
            self.cwd.clone()
        } else {
            self.cwd.join(node_dir)
        }
    }

    /// A SUBDAG's `.condor.sub`, made by `condor_submit_dag -no_submit -update_submit`
    /// (`runSubmitDag`), in the node's directory.
    fn make_subdag_submit(&mut self, n: &SubmitNode) -> bool {
        let Some(dag_file) = &n.dag_file else {
            return true;
        };
        let exe = sibling_tool("condor_submit_dag");
        let mut args: Vec<String> = vec!["-no_submit".into(), "-update_submit".into()];
        if self.force && n.retry == 0 {
            args.push("-force".into());
        }
        if n.priority != 0 {
            args.push("-Priority".into());
            args.push(n.priority.to_string());
        }
        args.extend(self.deep_args.iter().cloned());
        args.push(dag_file.clone());
        let shown = format!("condor_submit_dag {}", cmd_line(&args));
        self.out.line(
            Level::Silent,
            &format!("Recursive submit command: <{shown}>"),
        );
        let status = std::process::Command::new(&exe)
            .args(&args)
            .current_dir(self.dir_of(&n.dir))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        if !status.is_ok_and(|s| s.success()) {
            self.out.line(
                Level::Silent,
                &format!("ERROR: condor_submit_dag -no_submit failed on DAG file {dag_file}."),
            );
            self.out.line(
                Level::Quiet,
                &format!(
                    "ERROR: condor_submit_dag -no_submit failed for node {}.",
                    n.name
                ),
            );
            return false;
        }
        true
    }

    /// The node's submit description, parsed with DAGMan's variables around it.
    fn prepare(&mut self, n: &SubmitNode) -> Result<SubmitFile, String> {
        let mut command_line = CommandLine::default();
        for (key, value, append) in &n.vars {
            if *append {
                command_line.append.push(format!("{key} = {value}"));
            } else {
                command_line.assignments.push((key.clone(), value.clone()));
            }
        }
        let ctx = SubmitContext {
            config: &self.session.config,
            cwd: self.dir_of(&n.dir),
            env: Environment::from_process(),
            owner: self.session.user.clone(),
            qdate: crate::daemon::now(),
            utc_offset: None,
            submit_method: self.submit_method,
            remote: false,
            command_line,
            preset_items: None,
            run_commands: true,
        };
        match &n.inline {
            Some(text) => {
                self.out.line(
                    Level::Normal,
                    &format!(
                        "Submitting node {} from inline description using direct job submission",
                        n.name
                    ),
                );
                let mut ctx = ctx;
                ctx.command_line.queue = Some("queue".into());
                SubmitFile::parse(text, &n.submit_file, &ctx)
                    .map_err(|e| e.condor_submit_text().trim().to_owned())
            }
            None => {
                self.out.line(
                    Level::Normal,
                    &format!(
                        "Submitting node {} from file {} using direct job submission",
                        n.name, n.submit_file
                    ),
                );
                let path = ctx.cwd.join(&n.submit_file);
                if let Err(e) = std::fs::metadata(&path) {
                    self.out.line(
                        Level::Quiet,
                        &format!(
                            "ERROR: submit attempt failed, errno={} {}",
                            e.raw_os_error().unwrap_or(0),
                            crate::config::parse::io_reason(&e)
                        ),
                    );
                    return Err(format!(
                        "could not open submit file : {} - {}",
                        n.submit_file,
                        crate::config::parse::io_reason(&e)
                    ));
                }
                SubmitFile::read(&n.submit_file, &ctx)
                    .map_err(|e| e.condor_submit_text().trim().to_owned())
            }
        }
    }
}

impl Host for PoolHost {
    fn log(&mut self, level: Level, text: &str) {
        self.out.line(level, text);
    }

    fn submit(&mut self, nodes: &[SubmitNode]) -> Vec<Result<Submitted, String>> {
        self.session.now = crate::daemon::now();
        let mut files: Vec<SubmitFile> = Vec::new();
        let mut failure: Option<String> = None;
        for n in nodes {
            if !self.make_subdag_submit(n) {
                failure = Some("condor_submit_dag -no_submit failed".into());
                break;
            }
            match self.prepare(n) {
                Ok(f) => files.push(f),
                Err(e) => {
                    self.out.line(
                        Level::Quiet,
                        &format!("ERROR: on Line 0 of submit file: {e}"),
                    );
                    failure = Some(e);
                    break;
                }
            }
        }
        let mut results: Vec<Result<Submitted, String>> = Vec::new();
        let mut count = files.len();
        while count > 0 {
            let refs: Vec<&SubmitFile> = files[..count].iter().collect();
            let queued = match open_queue(&mut self.queue, &self.session) {
                Ok(queue) => queue_jobs_in(queue, &self.session, &refs, false, &mut |_, _| Ok(())),
                Err(e) => Err((0, SubmitFailure::Text(e))),
            };
            if queued.is_err() {
                // Opened again for the next try.
                self.queue = None;
            }
            match queued {
                Ok((made, events)) => {
                    events.write(&self.session);
                    for clusters in made {
                        if let Some(adopter) = &self.adopter {
                            for (c, _) in &clusters {
                                adopter.adopt(c.0);
                            }
                        }
                        let (cluster, procs) =
                            clusters.first().map_or((-1, 0), |(c, p)| (c.0, *p as i32));
                        results.push(Ok(Submitted { cluster, procs }));
                    }
                    // At once: the pool starts these while DAGMan goes on.
                    crate::client::master::wake(&self.session.config);
                    break;
                }
                Err((at, e)) => {
                    let text = e.to_string();
                    self.out.line(
                        Level::Quiet,
                        &format!("ERROR: on Line 0 of submit file: {text}"),
                    );
                    self.out
                        .line(Level::Quiet, &format!("submit error: {text}"));
                    // The descriptions before the one that failed go in again on their own.
                    failure = Some(text);
                    count = at.min(count - 1);
                    files.truncate(count);
                }
            }
        }
        if let Some(f) = failure {
            results.push(Err(f));
        }
        results
    }

    fn start_script(&mut self, run: &ScriptRun) -> Result<u32, String> {
        let dir = self.dir_of(&run.dir);
        let Some(program) = run.argv.first() else {
            return Err("no command".into());
        };
        // As DaemonCore runs it: no search of PATH, relative to the node's directory.
        let exe = if Path::new(program).is_absolute() {
            PathBuf::from(program)
        } else {
            dir.join(program)
        };
        let (want_out, want_err) = match run.debug.as_ref().map(|d| d.1) {
            Some(DebugStreams::Stdout) => (true, false),
            Some(DebugStreams::Stderr) => (false, true),
            Some(DebugStreams::All) => (true, true),
            None => (false, false),
        };
        let pipe = |want: bool| {
            if want {
                std::process::Stdio::piped()
            } else {
                std::process::Stdio::null()
            }
        };
        let mut child = std::process::Command::new(&exe)
            .arg0(program)
            .args(&run.argv[1..])
            .current_dir(&dir)
            .stdin(std::process::Stdio::null())
            .stdout(pipe(want_out))
            .stderr(pipe(want_err))
            .process_group(0)
            .spawn()
            .map_err(|e| e.to_string())?;
        let pid = child.id();
        let (mut stdout, mut stderr) = (child.stdout.take(), child.stderr.take());
        let tx = self.tx.clone();
        // The child is reaped by the main loop once it has forgotten the script.
        std::mem::forget(child);
        std::thread::Builder::new()
            .name("script".into())
            .stack_size(128 * 1024)
            .spawn(move || {
                let mut output = Vec::new();
                if let Some(o) = stdout.as_mut() {
                    let _ = o.read_to_end(&mut output);
                }
                if let Some(e) = stderr.as_mut() {
                    let _ = e.read_to_end(&mut output);
                }
                let _ = crate::starter::wait_exited(pid as i32);
                let _ = tx.send(Msg::ScriptExited { pid, output });
            })
            .map_err(|e| e.to_string())?;
        self.scripts.insert(
            pid,
            RunningScript {
                node: run.node_name.clone(),
                kind: run.kind,
                cmd: cmd_line(&run.argv),
                dir,
                debug: run.debug.clone(),
            },
        );
        Ok(pid)
    }

    fn kill_script(&mut self, pid: u32) {
        if self.scripts.contains_key(&pid) {
            // The script and whatever it started.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }

    fn write_event(&mut self, event: &Event) -> Result<(), String> {
        append_event(&self.nodes_log, &LogFormat::default(), event).map_err(|e| e.to_string())
    }

    fn remove_jobs(&mut self, cluster: Option<i32>, reason: &str) {
        if self.dagman_id < 0 {
            return;
        }
        let mut constraint = format!("DAGManJobId=={}", self.dagman_id);
        if let Some(c) = cluster {
            constraint = format!("(ClusterId == {c}) && ({constraint})");
        }
        let shown = match cluster {
            Some(c) => format!(
                "condor_rm {c} -const DAGManJobId=={} -reason {reason}",
                self.dagman_id
            ),
            None => format!(
                "condor_rm -const DAGManJobId=={} -reason {reason}",
                self.dagman_id
            ),
        };
        self.out
            .line(Level::Verbose, &format!("Executing: {shown}"));
        let request = Request {
            action: Action::Remove,
            target: Target::Constraint(constraint),
            reason: reason.to_owned(),
            subcode: 0,
        };
        self.session.now = crate::daemon::now();
        let done = open_queue(&mut self.queue, &self.session)
            .and_then(|q| act_on_jobs(&self.session, q, &request).map_err(|e| e.to_string()));
        match done {
            Ok(_) => self.wake = true,
            Err(_) => self.out.line(Level::Normal, "Error removing DAGMan jobs"),
        }
    }

    fn jobstate(&mut self, time: Option<i64>, info: &str) {
        if let Some(j) = &mut self.jobstate {
            j.write(time.unwrap_or_else(crate::daemon::now), info);
        }
    }

    fn job_tag(&mut self, node: &Node) -> String {
        let path = self.dir_of(&node.dir).join(&node.submit);
        let tag_name = submit_file_value(&path, "+job_tag_name")
            .map(|v| v.trim_matches('"').to_owned())
            .unwrap_or_else(|| "+pegasus_site".to_owned());
        submit_file_value(&path, &tag_name)
            .map(|v| v.trim_matches('"').to_owned())
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "-".into())
    }

    fn save_point(&mut self, node: &str, file: &str, contents: &str) {
        let path = resolve_save_file(&self.cwd, &self.primary_dag, file, true);
        if path.exists() {
            let old = PathBuf::from(format!("{}.old", path.display()));
            let _ = std::fs::remove_file(&old);
            if std::fs::rename(&path, &old).is_err() {
                self.out.line(
                    Level::Quiet,
                    &format!(
                        "Warning: Unable to rename save file: {} to {}",
                        path.display(),
                        old.display()
                    ),
                );
            }
        }
        self.out.line(
            Level::Normal,
            &format!("Writing Save File to {}...", path.display()),
        );
        if std::fs::write(&path, contents).is_err() {
            self.out.line(
                Level::Quiet,
                &format!("Could not open {} for writing.", path.display()),
            );
        }
        let _ = node;
    }

    fn queued_jobs(&mut self) -> Option<HashMap<i32, Vec<i32>>> {
        let queue = open_queue(&mut self.queue, &self.session).ok()?;
        let constraint = parse_old_expr(&format!("DAGManJobId == {}", self.dagman_id)).ok()?;
        let mut out: HashMap<i32, Vec<i32>> = HashMap::new();
        for job in queue
            .jobs(&JobQuery::all().with_constraint(constraint))
            .ok()?
        {
            let id = job.ok()?.id();
            out.entry(id.cluster.0).or_default().push(id.proc);
        }
        Some(out)
    }

    fn node_log_size(&mut self) -> u64 {
        std::fs::metadata(&self.nodes_log).map_or(0, |m| m.len())
    }

    fn left_queue(&mut self, cluster: i32) -> bool {
        let Ok(queue) = open_queue(&mut self.queue, &self.session) else {
            return false;
        };
        let query = JobQuery::all().with_ids([JobIdSpec::Cluster(ClusterId(cluster))]);
        queue
            .history(&HistoryQuery::new(query, HistoryOrder::NewestFirst))
            .is_ok_and(|mut entries| entries.next().is_some())
    }

    fn provisioner_state(&mut self, cluster: i32, proc: i32) -> Option<i64> {
        let queue = open_queue(&mut self.queue, &self.session).ok()?;
        let job = queue.job(JobId::new(cluster, proc)).ok()??;
        lookup_int(&job.into_ad().ok()?, "ProvisionerState")
    }

    fn write_rescue(&mut self, contents: &str, overwrite: bool) {
        let max = self.max_rescue.max(1) as u32;
        let mut next =
            find_last_rescue_dag_num(&self.primary_dag, self.multi, max, &mut self.out) + 1;
        if overwrite && next > 1 {
            next -= 1;
        }
        next = next.min(max);
        let name = rescue_dag_name(&self.primary_dag, self.multi, next);
        self.out
            .line(Level::Normal, &format!("Writing Rescue DAG to {name}..."));
        if std::fs::write(self.cwd.join(&name), contents).is_err() {
            self.out
                .line(Level::Quiet, &format!("Could not open {name} for writing."));
        }
    }
}

/// The first value a submit file gives `name` (`MultiLogFiles::loadValueFromSubFile`).
fn submit_file_value(path: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut reader = crate::config::reader::LineReader::new(&text);
    while let Some(line) = reader.next_line() {
        if let Some((k, v)) = line.split_once('=') {
            if k.trim().eq_ignore_ascii_case(name) {
                return Some(v.trim().to_owned());
            }
        }
    }
    None
}

/// `ResolveSaveFile`: a plain name goes into `save_files/` beside the primary DAG.
fn resolve_save_file(cwd: &Path, primary: &str, file: &str, make_dir: bool) -> PathBuf {
    if file.contains('/') {
        return cwd.join(file);
    }
    let dag_dir = Path::new(primary)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| cwd.to_owned(), |p| cwd.join(p));
    let dir = dag_dir.join("save_files");
    if make_dir {
        let _ = std::fs::create_dir_all(&dir);
    }
    dir.join(file)
}

/// Another condorlite tool, next to this one (they are installed together), else by name.
pub fn sibling_tool(name: &str) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join(name)))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// The DAGMan job's id, from `CONDOR_ID` (`cluster.proc`), as the schedd sets it.
fn dagman_job_id() -> Option<(i32, i32)> {
    let v = std::env::var("CONDOR_ID").ok()?;
    let mut parts = v.trim().split('.');
    let c = parts.next()?.parse().ok()?;
    let p = parts.next().unwrap_or("0").parse().ok()?;
    Some((c, p))
}

/// Whether the nodes log changed: a watch on the file (inotify), with the main loop's timeout
/// as the fallback.
fn watch_log(path: &Path, tx: Sender<Msg>) {
    use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify};
    let Ok(inotify) = Inotify::init(InitFlags::IN_CLOEXEC) else {
        return;
    };
    let flags = AddWatchFlags::IN_MODIFY
        | AddWatchFlags::IN_ATTRIB
        | AddWatchFlags::IN_DELETE_SELF
        | AddWatchFlags::IN_MOVE_SELF;
    if inotify.add_watch(path, flags).is_err() {
        return;
    }
    let pending = Arc::new(AtomicBool::new(false));
    let _ = std::thread::Builder::new()
        .name("nodes-log".into())
        .stack_size(128 * 1024)
        .spawn(move || loop {
            match inotify.read_events() {
                Ok(_) => {
                    if !pending.swap(true, Ordering::AcqRel) {
                        if tx.send(Msg::LogChanged).is_err() {
                            return;
                        }
                        // One message per burst: the loop reads everything at once.
                        pending.store(false, Ordering::Release);
                    }
                }
                Err(_) => return,
            }
        });
}

/// How the run ends.
enum Ending {
    /// Exit with this code (lock removed).
    Exit { code: i32, removed: bool },
    /// condor_hold or a graceful shutdown: exit 3, the lock kept for recovery.
    Graceful,
    /// SIGQUIT.
    Fast,
    /// The nodes log could not be read.
    LogError,
}

/// One condor_dagman run: returns its exit code.
pub fn run(args: RunArgs) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    // The configuration, with the DAGMan config file condor_submit_dag names on top.
    let load = LoadOptions {
        subsystem: "DAGMAN".into(),
        ..LoadOptions::from_process()
    };
    let loaded = Config::load_with(load);
    let dagman_config = loaded
        .as_ref()
        .ok()
        .and_then(|c| c.string("DAGMAN_CONFIG_FILE").ok().flatten())
        .filter(|f| !f.is_empty());
    let log_path = std::env::var("_CONDOR_DAGMAN_LOG")
        .ok()
        .map(|p| cwd.join(p))
        .unwrap_or_else(|| cwd.join("default.dagman.out"));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .ok()
        .map(|f| std::io::BufWriter::with_capacity(64 * 1024, f));
    let mut out = Out {
        file,
        level: Level::Verbose,
        partial: String::new(),
        stamp: (0, String::new()),
    };
    let job_id = dagman_job_id();
    let exec_name = match job_id {
        Some((c, p)) => format!("condor_scheduniv_exec.{c}.{p}"),
        None => args
            .argv
            .first()
            .map(|a| {
                Path::new(a)
                    .file_name()
                    .map_or(a.clone(), |f| f.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "condor_dagman".into()),
    };
    let pid = std::process::id();
    let banner = [
        "******************************************************".to_owned(),
        format!("** {exec_name} (CONDOR_DAGMAN) STARTING UP"),
        format!(
            "** {}",
            std::env::current_exe()
                .map_or_else(|_| "condor_dagman".into(), |p| p.display().to_string())
        ),
        "** SubsystemInfo: name=DAGMAN type=DAGMAN(9) class=CLIENT(2)".to_owned(),
        "** Configuration: subsystem:DAGMAN local:<NONE> class:CLIENT".to_owned(),
        format!("** {}", crate::config::condor_version()),
        "** $CondorPlatform: condorlite $".to_owned(),
        format!("** PID = {pid}"),
        "******************************************************".to_owned(),
    ];
    for l in &banner {
        out.line(Level::Silent, l);
    }
    let config = match loaded {
        Ok(mut c) => {
            if let Some(f) = &dagman_config {
                out.line(Level::Normal, &format!("Using DAGMan config file: {f}"));
                if let Err(e) = c.process_source(f, "DAGMan config") {
                    out.line(Level::Quiet, &e.to_string());
                    out.line(
                        Level::Silent,
                        &format!(
                            "**** {exec_name} (condor_DAGMAN) pid {pid} EXITING WITH STATUS 1"
                        ),
                    );
                    out.flush();
                    return EXIT_ERROR;
                }
            }
            c
        }
        Err(e) => {
            out.line(Level::Silent, &format!("ERROR: {e}"));
            out.line(
                Level::Silent,
                &format!("**** {exec_name} (condor_DAGMAN) pid {pid} EXITING WITH STATUS 1"),
            );
            out.flush();
            return EXIT_ERROR;
        }
    };
    let code = Run::start(args, config, cwd, out, job_id).map_or_else(
        |(mut out, code)| {
            out.line(
                Level::Silent,
                &format!("**** {exec_name} (condor_DAGMAN) pid {pid} EXITING WITH STATUS {code}"),
            );
            out.flush();
            code
        },
        |run| run.main_loop(&exec_name),
    );
    code
}

/// Knobs, as `Dagman::Config` logs them.
struct Knobs<'c> {
    config: &'c Config,
    out: Vec<String>,
}

impl Knobs<'_> {
    fn int(&mut self, name: &str, default: i64, min: i64, max: i64) -> i64 {
        let v = self
            .config
            .int(name)
            .ok()
            .flatten()
            .unwrap_or(default)
            .clamp(min, max);
        self.out.push(format!("{name} setting: {v}"));
        v
    }

    fn bool(&mut self, name: &str, default: bool) -> bool {
        let v = self.config.bool(name).ok().flatten().unwrap_or(default);
        self.out.push(format!(
            "{name} setting: {}",
            if v { "True" } else { "False" }
        ));
        v
    }

    fn string(&mut self, name: &str, default: &str) -> String {
        let v = self
            .config
            .string(name)
            .ok()
            .flatten()
            .unwrap_or_else(|| default.to_owned());
        self.out.push(format!("{name} setting: {v}"));
        v
    }
}

/// The state of a run between its start and its end.
struct Run {
    engine: Engine,
    host: PoolHost,
    rx: Receiver<Msg>,
    follower: LogFollower,
    lock_file: PathBuf,
    _lock: Option<std::fs::File>,
    halt_file: PathBuf,
    dag_files: Vec<String>,
    status_file: Option<(PathBuf, i64, bool)>,
    last_status_write: i64,
    dot: Option<super::dag::DotSpec>,
    dot_suffix: u32,
    metrics_start: f64,
    rescue_number: i32,
    parent_dagman_id: String,
    job_id: Option<(i32, i32)>,
    ad_update_interval: i64,
    last_ad_update: i64,
    /// The DAG changed since the job ad was last updated.
    ad_outdated: bool,
    last_pending_report: i64,
    scan_interval: i64,
    graph_metrics: bool,
    /// The pool run in this process (condor_dagman run by hand with no master).
    _embedded: Option<crate::daemon::EmbeddedPool>,
}

/// `MAX_IDLE_DEFAULT` and `MAX_SUBMITS_PER_INT_DEFAULT`.
const MAX_IDLE_DEFAULT: i64 = 1000;
const MAX_SUBMITS_PER_INT_DEFAULT: i64 = 100;

type Failed = (Out, i32);

impl Run {
    /// `main_init`: everything up to the first tick.
    fn start(
        args: RunArgs,
        config: Config,
        cwd: PathBuf,
        mut out: Out,
        job_id: Option<(i32, i32)>,
    ) -> Result<Run, Failed> {
        let mut k = Knobs {
            config: &config,
            out: Vec::new(),
        };
        let strict = k.int("DAGMAN_USE_STRICT", 1, 0, 3) as u8;
        let verbosity = k.int("DAGMAN_VERBOSITY", 3, 0, 7);
        k.int(
            "DAGMAN_DEBUG_CACHE_SIZE",
            5 * 1024 * 1024,
            0,
            i64::from(i32::MAX),
        );
        k.bool("DAGMAN_DEBUG_CACHE_ENABLE", false);
        k.int("DAGMAN_SUBMIT_DELAY", 0, 0, i64::from(i32::MAX));
        let max_submit_attempts = k.int("DAGMAN_MAX_SUBMIT_ATTEMPTS", 6, 1, 16);
        let startup_cycle_detect = k.bool("DAGMAN_STARTUP_CYCLE_DETECT", false);
        let mut max_submits = k.int("DAGMAN_MAX_SUBMITS_PER_INTERVAL", 100, 1, 1000);
        k.bool("DAGMAN_AGGRESSIVE_SUBMIT", false);
        let mut scan_interval = k.int("DAGMAN_USER_LOG_SCAN_INTERVAL", 5, 1, i64::from(i32::MAX));
        let ad_update_interval = k.int("DAGMAN_QUEUE_UPDATE_INTERVAL", 300, 1, i64::from(i32::MAX));
        let default_priority = k.int(
            "DAGMAN_DEFAULT_PRIORITY",
            0,
            i64::from(i32::MIN),
            i64::from(i32::MAX),
        );
        let suppress_notification = k.bool("DAGMAN_SUPPRESS_NOTIFICATION", false);
        let allow_events = config
            .int("DAGMAN_ALLOW_EVENTS")
            .ok()
            .flatten()
            .unwrap_or(114);
        k.out.push(format!(
            "allow_events (DAGMAN_ALLOW_EVENTS) setting: {allow_events}"
        ));
        let retry_submit_first = k.bool("DAGMAN_RETRY_SUBMIT_FIRST", true);
        let retry_node_first = k.bool("DAGMAN_RETRY_NODE_FIRST", false);
        let max_idle = k.int(
            "DAGMAN_MAX_JOBS_IDLE",
            MAX_IDLE_DEFAULT,
            0,
            i64::from(i32::MAX),
        );
        let max_jobs = k.int("DAGMAN_MAX_JOBS_SUBMITTED", 0, 0, i64::from(i32::MAX));
        let max_pre = k.int("DAGMAN_MAX_PRE_SCRIPTS", 20, 0, i64::from(i32::MAX));
        let max_post = k.int("DAGMAN_MAX_POST_SCRIPTS", 20, 0, i64::from(i32::MAX));
        let max_hold = k.int("DAGMAN_MAX_HOLD_SCRIPTS", 20, 0, i64::from(i32::MAX));
        k.bool("DAGMAN_MUNGE_NODE_NAMES", true);
        let prohibit_multi = k.bool("DAGMAN_PROHIBIT_MULTI_JOBS", false);
        let depth_first = k.bool("DAGMAN_SUBMIT_DEPTH_FIRST", false);
        let always_run_post = k.bool("DAGMAN_ALWAYS_RUN_POST", false);
        k.string("DAGMAN_CONDOR_SUBMIT_EXE", "condor_submit");
        k.string("DAGMAN_CONDOR_RM_EXE", "condor_rm");
        let direct_submit = k.bool("DAGMAN_USE_DIRECT_SUBMIT", true);
        k.bool("DAGMAN_PRODUCE_JOB_CREDENTIALS", true);
        let append_vars = k.bool("DAGMAN_DEFAULT_APPEND_VARS", false);
        k.string("DAGMAN_INHERIT_ATTRS_PREFIX", "");
        k.string("DAGMAN_INHERIT_ATTRS", "");
        let mut record_retry = false;
        if let Some(info) = config.string("DAGMAN_NODE_RECORD_INFO").ok().flatten() {
            k.out.push("DAGMAN_NODE_RECORD_INFO recording:".into());
            if info
                .split([',', ' '])
                .any(|w| w.trim().eq_ignore_ascii_case("retry"))
            {
                record_retry = true;
                k.out.push("\t-NODE Retries".into());
            }
        }
        k.bool("DAGMAN_ABORT_DUPLICATES", true);
        let scary = k.bool("DAGMAN_ABORT_ON_SCARY_SUBMIT", true);
        let pending_interval = k.int("DAGMAN_PENDING_REPORT_INTERVAL", 600, i64::MIN, i64::MAX);
        let check_queue_interval = k.int("DAGMAN_CHECK_QUEUE_INTERVAL", 28800, i64::MIN, i64::MAX);
        let auto_rescue_knob = k.bool("DAGMAN_AUTO_RESCUE", true);
        let max_rescue = k.int("DAGMAN_MAX_RESCUE_NUM", 100, 0, 999) as i32;
        let partial_rescue = config
            .bool("DAGMAN_WRITE_PARTIAL_RESCUE")
            .ok()
            .flatten()
            .unwrap_or(true);
        if !partial_rescue {
            k.out.push("\n\nWARNING: DAGMan is configured to write Full Rescue DAG files.\nThis is Deprecated and will be removed during V24 feature series of HTCondor!\n".into());
        }
        k.out.push(format!(
            "DAGMAN_WRITE_PARTIAL_RESCUE setting: {}",
            if partial_rescue { "True" } else { "False" }
        ));
        let default_node_log = k.string(
            "DAGMAN_DEFAULT_NODE_LOG",
            "@(DAG_DIR)/@(DAG_FILE).nodes.log",
        );
        k.bool("DAGMAN_GENERATE_SUBDAG_SUBMITS", true);
        let max_job_holds = k.int("DAGMAN_MAX_JOB_HOLDS", 100, 0, 1_000_000) as i32;
        let claim_hold_time = k.int("DAGMAN_HOLD_CLAIM_TIME", 20, 0, 3600) as i32;
        for knob in ["ALL_DEBUG", "DAGMAN_DEBUG"] {
            if let Some(v) = config.string(knob).ok().flatten() {
                k.out.push(format!("{knob} setting: {v}"));
            }
        }
        let suppress_job_logs = k.bool("DAGMAN_SUPPRESS_JOB_LOGS", false);
        let remove_node_jobs = k.bool("DAGMAN_REMOVE_NODE_JOBS", true);
        k.bool("DAGMAN_REMOVE_JOBS_AFTER_LIMIT_CHANGE", false);
        let reset_retries = config
            .bool("DAGMAN_RESET_RETRIES_UPON_RESCUE")
            .ok()
            .flatten()
            .unwrap_or(true);
        let allow_illegal = config
            .bool("DAGMAN_ALLOW_ANY_NODE_NAME_CHARACTERS")
            .ok()
            .flatten()
            .unwrap_or(false);
        let join_nodes = config
            .bool("DAGMAN_USE_JOIN_NODES")
            .ok()
            .flatten()
            .unwrap_or(true);
        let graph_metrics = config
            .bool("DAGMAN_REPORT_GRAPH_METRICS")
            .ok()
            .flatten()
            .unwrap_or(false);
        k.out.push("DAGMAN will adjust edges after parsing".into());
        out.level = Level::from_number(args.debug.map_or(verbosity, i64::from));
        for line in std::mem::take(&mut k.out) {
            out.line(Level::Normal, &line);
        }
        for (i, a) in args.argv.iter().enumerate() {
            out.line(Level::Normal, &format!("argv[{i}] == \"{a}\""));
        }

        let user = std::env::var(crate::client::USER_ENV)
            .ok()
            .filter(|u| !u.is_empty())
            .or_else(os_user)
            .unwrap_or_else(|| "unknown".into());
        let session = match Session::new(config.clone(), user, crate::daemon::now()) {
            Ok(s) => s,
            Err(e) => {
                out.line(Level::Quiet, &format!("ERROR: {e}"));
                return Err((out, EXIT_ERROR));
            }
        };
        let (dagman_id, dagman_proc) = job_id.unwrap_or((-1, -1));
        if job_id.is_none() {
            out.line(
                Level::Quiet,
                "No HTCondor ID available for DAGMan (running on command line?); DAG status will not be reported to ClassAd",
            );
        }

        // The version of the .condor.sub's condor_submit_dag.
        if let Some(v) = &args.csd_version {
            let ours = crate::config::condor_version();
            if *v != ours {
                let msg = format!("the version ({v}) of this DAG's HTCondor submit file");
                match version_triple(v) {
                    None if !args.allow_version_mismatch => {
                        out.line(Level::Quiet, &format!("Error: {msg} is invalid!"));
                        return Err((out, EXIT_ERROR));
                    }
                    None => out.line(
                        Level::Normal,
                        &format!("Warning: {msg} is invalid; continuing because of -AllowVersionMismatch flag"),
                    ),
                    Some(t) if t < (7, 1, 2) && !args.allow_version_mismatch => {
                        out.line(
                            Level::Quiet,
                            &format!("Error: {msg} is older than oldest permissible version (7.1.2)"),
                        );
                        return Err((out, EXIT_ERROR));
                    }
                    Some(_) => out.line(
                        Level::Normal,
                        &format!("Note: {msg} differs from condor_dagman version ({ours}), but the difference is permissible"),
                    ),
                }
            }
        }

        let Some(primary) = args.dag_files.first().cloned() else {
            out.line(Level::Silent, "No DAG file was specified");
            return Err((out, EXIT_ERROR));
        };
        let multi = args.dag_files.len() > 1;
        let lock_name = args
            .lock_file
            .clone()
            .unwrap_or_else(|| format!("{primary}.lock"));
        for (v, flag) in [
            (args.max_jobs, "-MaxJobs"),
            (args.max_idle, "-MaxIdle"),
            (args.max_pre, "-MaxPre"),
            (args.max_post, "-MaxPost"),
            (args.max_hold, "-MaxHold"),
        ] {
            if v.is_some_and(|v| v < 0) {
                out.line(Level::Silent, &format!("{flag} must be non-negative"));
                return Err((out, EXIT_ERROR));
            }
        }
        if args.do_rescue_from < 0 {
            out.line(Level::Silent, "-DoRescueFrom must be non-negative");
            return Err((out, EXIT_ERROR));
        }
        let max_idle = args.max_idle.map_or(max_idle, i64::from);
        if max_idle != MAX_IDLE_DEFAULT {
            out.line(
                Level::Quiet,
                "Note:  DAGMAN_MAX_JOBS_IDLE has been changed from the default setting; if your submit files create multiple procs, you should probably set DAGMAN_MAX_SUBMITS_PER_INTERVAL to 1",
            );
            let limit = (max_idle / 10).max(1);
            if max_submits > limit && max_submits == MAX_SUBMITS_PER_INT_DEFAULT {
                max_submits = limit;
                out.line(
                    Level::Quiet,
                    &format!("Note:  DAGMAN_MAX_SUBMITS_PER_INTERVAL has been changed to {max_submits} because of your DAGMAN_MAX_JOBS_IDLE setting of {max_idle}"),
                );
            }
            if scan_interval > max_submits && scan_interval == 5 {
                scan_interval = max_submits;
                out.line(
                    Level::Quiet,
                    &format!("Note:  DAGMAN_USER_LOG_SCAN_INTERVAL has been changed to {scan_interval} because of the DAGMAN_MAX_SUBMITS_PER_INTERVAL setting of {max_submits}"),
                );
            }
        }
        out.line(
            Level::Verbose,
            &format!("DAG Lockfile will be written to {lock_name}"),
        );
        if multi {
            out.line(
                Level::Verbose,
                &format!("DAG Input files are {}", args.dag_files.join(" ")),
            );
        } else {
            out.line(Level::Verbose, &format!("DAG Input file is {primary}"));
        }

        // The DAGMan job's ad: limits published, batch name and id, owner.
        let mut batch_name = " ".to_owned();
        let mut batch_id = " ".to_owned();
        let mut acct_group = String::new();
        let mut acct_user = String::new();
        let mut owner = "undef".to_owned();
        let mut node_name = "undef".to_owned();
        let mut parent_dagman_id = String::new();
        if let Some((c, p)) = job_id {
            if let Some(ad) = job_ad(&session, c, p) {
                let s = |n: &str| lookup_str(&ad, n).map(|v| v.to_string());
                batch_id = s("JobBatchId").unwrap_or_else(|| format!("{c}.{p}"));
                batch_name = s("JobBatchName").unwrap_or_else(|| {
                    let base = Path::new(&primary)
                        .file_name()
                        .map_or(primary.clone(), |f| f.to_string_lossy().into_owned());
                    format!("{base}+{c}")
                });
                acct_group = s("AcctGroup").unwrap_or_default();
                acct_user = s("AcctGroupUser").unwrap_or_default();
                owner = s("Owner").unwrap_or_else(|| "undef".into());
                node_name = s("DAGNodeName").unwrap_or_else(|| "undef".into());
                parent_dagman_id = lookup_int(&ad, "DAGManJobId")
                    .map(|v| v.to_string())
                    .unwrap_or_default();
            }
            let limits = [
                (
                    "DAGMan_MaxJobs",
                    i64::from(args.max_jobs.unwrap_or(max_jobs as i32)),
                ),
                ("DAGMan_MaxIdle", max_idle),
                (
                    "DAGMan_MaxPreScripts",
                    i64::from(args.max_pre.unwrap_or(max_pre as i32)),
                ),
                (
                    "DAGMan_MaxPostScripts",
                    i64::from(args.max_post.unwrap_or(max_post as i32)),
                ),
                (
                    "DAGMan_MaxHoldScripts",
                    i64::from(args.max_hold.unwrap_or(max_hold as i32)),
                ),
            ];
            let mut set: Vec<(String, Expr)> = limits
                .iter()
                .map(|(n, v)| ((*n).to_owned(), Expr::lit(*v)))
                .collect();
            set.push(("JobBatchId".into(), Expr::lit(batch_id.as_str())));
            set.push(("JobBatchName".into(), Expr::lit(batch_name.as_str())));
            update_job_ad(&session, c, p, &set);
            out.line(Level::Verbose, &format!("Workflow batch-id: <{batch_id}>"));
            out.line(
                Level::Verbose,
                &format!("Workflow batch-name: <{batch_name}>"),
            );
            out.line(
                Level::Verbose,
                &format!("Workflow accounting_group: <{acct_group}>"),
            );
            out.line(
                Level::Verbose,
                &format!("Workflow accounting_group_user: <{acct_user}>"),
            );
        }

        // The nodes log (`ResolveDefaultLog`).
        let dag_dir = Path::new(&primary)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or(".".to_owned(), |p| p.to_string_lossy().into_owned());
        let dag_file = Path::new(&primary)
            .file_name()
            .map_or(primary.clone(), |f| f.to_string_lossy().into_owned());
        let nodes_log = default_node_log
            .replace("@(DAG_DIR)", &dag_dir)
            .replace("@(DAG_FILE)", &dag_file)
            .replace("@(CLUSTER)", &dagman_id.to_string())
            .replace("@(OWNER)", &owner)
            .replace("@(NODE_NAME)", &node_name);
        if nodes_log.contains("@(") {
            out.line(
                Level::Quiet,
                &format!("Warning: default node log file {nodes_log} contains a '@(' character sequence -- unresolved macro substituion?"),
            );
        }
        let nodes_log = normalize(&cwd.join(&nodes_log));
        out.line(Level::Normal, "DAGMAN_LOG_ON_NFS_IS_ERROR setting: False");
        out.line(
            Level::Normal,
            &format!("Default node log file is: <{}>", nodes_log.display()),
        );

        let (tx, rx) = mpsc::channel();
        let mut host = PoolHost {
            out,
            session,
            cwd: cwd.clone(),
            nodes_log: nodes_log.clone(),
            jobstate: None,
            tx: tx.clone(),
            scripts: HashMap::new(),
            primary_dag: primary.clone(),
            multi,
            max_rescue,
            dagman_id,
            submit_method: if args.submit_method.map_or(direct_submit, |m| m == 1) {
                1
            } else {
                0
            },
            deep_args: args.deep_args.clone(),
            force: args.force,
            queue: None,
            adopter: None,
            wake: false,
        };

        // The rescue DAG to run, if any.
        let max = max_rescue.max(0) as u32;
        let rescue_number = if args.do_rescue_from > 0 {
            let n = args.do_rescue_from as u32;
            if let Err(e) = rename_rescue_dags_after(&primary, multi, n, max, &mut host.out) {
                host.out.line(Level::Quiet, &e);
                return Err((host.out, EXIT_ERROR));
            }
            args.do_rescue_from
        } else if args.auto_rescue.unwrap_or(auto_rescue_knob) {
            find_last_rescue_dag_num(&primary, multi, max, &mut host.out) as i32
        } else {
            0
        };

        // Parse.
        let mut popts = ParseOptions::new(&cwd);
        popts.strict = strict;
        popts.use_dag_dir = args.use_dag_dir;
        popts.direct_submit = direct_submit;
        popts.append_vars = append_vars;
        popts.allow_illegal_chars = allow_illegal;
        popts.join_nodes = join_nodes;
        popts.munge = multi;
        let mut parser = Parser::new(popts);
        host.out.line(
            Level::Verbose,
            &format!("Parsing {} dagfiles", args.dag_files.len()),
        );
        let parse_failed = |host: &mut PoolHost,
                            parser: &mut Parser,
                            file: &str,
                            e: ParseError,
                            what: &str| {
            for (level, line) in parser.log.drain(..) {
                host.out.line(level, &line);
            }
            for line in &e.lines {
                host.out.line(Level::Quiet, line);
            }
            host.remove_jobs(None, &format!("Startup Error: DAGMan failed to parse {what} ({file}). Was likely in recovery mode."));
            let _ = std::fs::remove_file(cwd.join(&lock_name));
            if !e.immediate {
                host.out
                    .line(Level::Quiet, &format!("Failed to parse {file}"));
            }
        };
        for file in &args.dag_files {
            host.out
                .line(Level::Verbose, &format!("Parsing {file} ..."));
            if let Err(e) = parser.parse_dag_file(file) {
                parse_failed(&mut host, &mut parser, file, e, "DAG file");
                return Err((host.out, EXIT_ERROR));
            }
        }
        let jobstate = parser.dag().jobstate_log.clone();
        if let Some(j) = jobstate {
            host.jobstate = Some(JobstateLog::new(cwd.join(j)));
        }
        if let Some(j) = &mut host.jobstate {
            j.write(
                crate::daemon::now(),
                &format!("INTERNAL *** DAGMAN_STARTED {dagman_id}.{dagman_proc} ***"),
            );
            j.flush();
        }
        if let Some(save) = &args.save_file {
            host.out.line(
                Level::Quiet,
                &format!("Loading saved progress from {save} for DAG."),
            );
            host.out.line(
                Level::Quiet,
                "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            );
            let path = resolve_save_file(&cwd, &primary, save, false);
            let name = path.to_string_lossy().into_owned();
            if let Err(e) = parser.parse_rescue(&name) {
                parse_failed(&mut host, &mut parser, &name, e, "save file");
                return Err((host.out, EXIT_ERROR));
            }
        } else if rescue_number > 0 {
            let name = rescue_dag_name(&primary, multi, rescue_number as u32);
            let msg = if args.do_rescue_from > 0 {
                format!("Rescue DAG number {rescue_number} specified")
            } else {
                format!("Found rescue DAG number {rescue_number}")
            };
            host.out.line(
                Level::Quiet,
                &format!(
                    "{msg}; running {name} in combination with normal DAG file{}",
                    if multi { "s" } else { "" }
                ),
            );
            host.out.line(
                Level::Quiet,
                "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            );
            host.out
                .line(Level::Quiet, &format!("USING RESCUE DAG {name}"));
            if let Some(j) = &mut host.jobstate {
                let next = j.max_sequence() + 1;
                let _ = next;
            }
            if let Err(e) = parser.parse_rescue(&name) {
                parse_failed(&mut host, &mut parser, &name, e, "rescue file");
                return Err((host.out, EXIT_ERROR));
            }
        }
        for (level, line) in parser.log.drain(..) {
            host.out.line(level, &line);
        }
        let cycle = if startup_cycle_detect {
            parser.check_cycles().err()
        } else {
            None
        };
        let dag = parser.finish();
        let dag_files = args.dag_files.clone();
        let status_file = dag
            .node_status
            .as_ref()
            .map(|s| (cwd.join(&s.file), s.min_update, s.always_update));
        let dot = dag.dot.clone();
        let reject = dag.reject.clone();

        let opts = Options {
            max_jobs: args.max_jobs.unwrap_or(max_jobs as i32),
            max_idle: max_idle as i32,
            max_pre: args.max_pre.unwrap_or(max_pre as i32),
            max_post: args.max_post.unwrap_or(max_post as i32),
            max_hold: args.max_hold.unwrap_or(max_hold as i32),
            always_run_post: args.always_run_post.unwrap_or(always_run_post),
            max_submits_per_interval: max_submits as i32,
            submit_depth_first: depth_first,
            retry_submit_first,
            retry_node_first,
            max_submit_attempts: max_submit_attempts as i32,
            max_job_holds,
            priority: args.priority + default_priority as i32,
            strict,
            dagman_id,
            dagman_proc,
            remove_node_jobs,
            put_failed_jobs_on_hold: config
                .bool("DAGMAN_PUT_FAILED_JOBS_ON_HOLD")
                .ok()
                .flatten()
                .unwrap_or(false),
            dry_run: args.dry_run,
            batch_name,
            batch_id: if batch_id == " " {
                String::new()
            } else {
                batch_id
            },
            acct_group,
            acct_group_user: acct_user,
            nodes_log: nodes_log.to_string_lossy().into_owned(),
            claim_hold_time,
            suppress_job_logs,
            suppress_notification: args.suppress_notification.unwrap_or(suppress_notification),
            record_retry,
            prohibit_multi_jobs: prohibit_multi,
            pending_report_interval: pending_interval,
            check_queue_interval,
            primary_dag: primary.clone(),
            halt_file: format!("{primary}.halt"),
            max_rescue,
            partial_rescue,
            reset_retries_upon_rescue: reset_retries,
            abort_on_scary_submit: scary,
            verbosity: host.out.level,
        };
        let mut engine = Engine::new(dag, opts);
        if rescue_number > 0 {
            if let Some(j) = &host.jobstate {
                engine.set_jobstate_next_seq(j.max_sequence() + 1);
            }
        }
        // `CheckThrottleCats`.
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for n in &engine.dag.nodes {
            if let Some(c) = &n.category {
                *counts.entry(c.as_str()).or_default() += 1;
            }
        }
        let mut warnings = Vec::new();
        for (cat, max) in &engine.dag.categories {
            if counts.get(cat.as_str()).copied().unwrap_or(0) < 1 {
                warnings.push((2, format!(
                    "Warning: category {cat} has no assigned nodes, so the throttle setting ({}) will have no effect",
                    max.unwrap_or(-1)
                )));
            }
            if max.is_none() {
                warnings.push((
                    2,
                    format!("Warning: category {cat} has no throttle value set"),
                ));
            }
        }
        for (level, w) in warnings {
            host.out.line(Level::Normal, &w);
            if strict >= level {
                host.out.line(
                    Level::Quiet,
                    "ERROR: Warning is fatal error because of DAGMAN_USE_STRICT setting",
                );
                return Err((host.out, EXIT_ERROR));
            }
        }
        if let Some(e) = cycle {
            host.out.line(Level::Quiet, e.message());
            host.out.line(
                Level::Quiet,
                "ERROR: a cycle exists in the dag, please check input",
            );
            return Err((host.out, EXIT_ERROR));
        }
        host.out.line(
            Level::Verbose,
            &format!("Dag contains {} total nodes", engine.num_nodes(true)),
        );
        if let Some(loc) = reject {
            host.out.line(
                Level::Quiet,
                &format!("Exiting because of REJECT specification in {loc}. This most likely means that the DAG file was produced with the -DumpRescue flag when parsing the original DAG failed."),
            );
            return Err((host.out, EXIT_ERROR));
        }

        let metrics_start = now_f64();
        let mut run = Run {
            engine,
            host,
            rx,
            follower: LogFollower::new(&nodes_log),
            lock_file: cwd.join(&lock_name),
            _lock: None,
            halt_file: cwd.join(format!("{primary}.halt")),
            dag_files,
            status_file,
            last_status_write: 0,
            dot,
            dot_suffix: 0,
            metrics_start,
            rescue_number,
            parent_dagman_id,
            job_id,
            ad_update_interval,
            last_ad_update: 0,
            ad_outdated: false,
            last_pending_report: crate::daemon::now(),
            scan_interval,
            graph_metrics,
            _embedded: None,
        };
        run.dump_dot();
        if args.only_dump_dot {
            match &run.dot {
                None => run.host.out.line(
                    Level::Normal,
                    "Unable to write .dot file, no DOT filename specified",
                ),
                Some(d) => run
                    .host
                    .out
                    .line(Level::Normal, &format!("Writing .dot file: {}", d.file)),
            }
            return Err(run.finish_early(EXIT_OKAY));
        }
        if args.dump_rescue {
            run.host.out.line(
                Level::Quiet,
                "Dumping rescue DAG and exiting because of -DumpRescue flag",
            );
            let text = files::rescue_text(
                &run.engine,
                &format!("# Rescue DAG file, created after running\n#   the {primary} DAG file\n"),
                false,
                false,
                false,
            );
            run.host.write_rescue(&text, false);
            return Err(run.finish_early(EXIT_OKAY));
        }

        // The lock file: its presence means the last run did not finish.
        let lock_path = run.lock_file.clone();
        let mut recovery = lock_path.exists();
        if recovery {
            run.host
                .out
                .line(Level::Verbose, &format!("Lock file {lock_name} detected"));
        } else if args.do_recovery {
            run.host.out.line(
                Level::Verbose,
                "Running in recovery mode because -DoRecovery flag was specified",
            );
            recovery = true;
        }
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock_path);
        let lock = match lock {
            Ok(f) => f,
            Err(e) => {
                run.host.out.line(
                    Level::Quiet,
                    &format!(
                        "ERROR: Failed to create lock file {lock_name} ({}): {}",
                        e.raw_os_error().unwrap_or(0),
                        crate::config::parse::io_reason(&e)
                    ),
                );
                run.jobstate_finished(EXIT_ERROR);
                return Err(run.finish_early(EXIT_ERROR));
            }
        };
        // SAFETY: flock on a descriptor this process owns.
        let locked = unsafe {
            libc::flock(
                std::os::fd::AsRawFd::as_raw_fd(&lock),
                libc::LOCK_EX | libc::LOCK_NB,
            )
        } == 0;
        if !locked {
            run.host.out.line(
                Level::Quiet,
                &format!("Aborting because it looks like another instance of DAGMan is currently running on this DAG; if that is not the case, delete the lock file ({lock_name}) and re-submit the DAG."),
            );
            run.jobstate_finished(EXIT_ERROR);
            return Err(run.finish_early(EXIT_ERROR));
        }
        run._lock = Some(lock);

        // The nodes log: a new run starts it afresh; a recovery reads it from the start.
        if !recovery {
            if let Err(e) = std::fs::File::create(&nodes_log) {
                run.host.out.line(
                    Level::Quiet,
                    &format!(
                        "ERROR: Unable to monitor log file <{}>: {}",
                        nodes_log.display(),
                        crate::config::parse::io_reason(&e)
                    ),
                );
                return Err(run.finish_early(EXIT_ERROR));
            }
        } else if let Some(j) = &mut run.host.jobstate {
            j.initialize_recovery();
        }
        watch_log(&nodes_log, tx.clone());
        route_signals(tx);

        // A pool for this run when nothing else runs the DAG's jobs.
        if job_id.is_none() {
            match crate::daemon::EmbeddedPool::start(&config) {
                Ok(pool) => {
                    run.host.adopter = pool.as_ref().map(|p| p.adopter());
                    run._embedded = pool;
                }
                Err(e) => run.host.out.line(
                    Level::Quiet,
                    &format!("Warning: cannot start a pool in this process: {e}"),
                ),
            }
        }

        run.host.out.line(Level::Verbose, "Bootstrapping...");
        let now = crate::daemon::now();
        run.engine.bootstrap(recovery, now, &mut run.host);
        if recovery {
            loop {
                match run.follower.next_event() {
                    Ok(Some(ev)) => run.engine.process_event(&ev, true, now, &mut run.host),
                    Ok(None) => break,
                    Err(e) => {
                        run.host.out.line(Level::Quiet, &format!("ERROR: {e}"));
                        run.host.jobstate(None, "INTERNAL *** RECOVERY_FAILURE ***");
                        run.host.out.line(Level::Quiet, "ERROR while bootstrapping");
                        return Err(run.finish_early(EXIT_ERROR));
                    }
                }
            }
        }
        run.engine.start(now, &mut run.host);
        if let Some(code) = run.engine.exit_code() {
            return Err(run.finish(Ending::Exit {
                code,
                removed: false,
            }));
        }
        run.engine.print_status_if_changed(true, &mut run.host);
        run.update_job_ad(now);
        run.host
            .out
            .line(Level::Verbose, "Registering condor_event_timer...");
        run.host.out.flush();
        Ok(run)
    }
}

impl Run {
    /// The event loop: each message (or timeout) makes one tick of `condor_event_timer`.
    fn main_loop(mut self, exec_name: &str) -> i32 {
        let pid = std::process::id();
        let (mut out, code) = loop {
            let now = crate::daemon::now();
            let timeout = if self.engine.has_ready_nodes() && self.engine.next_submit_time() <= now
            {
                // Nodes became ready in the last tick: submit them now.
                Duration::ZERO
            } else {
                let wait = self.next_wakeup(now).saturating_sub(now).clamp(0, 1);
                Duration::from_secs(wait as u64)
            };
            let mut msgs = Vec::new();
            match self
                .rx
                .recv_timeout(timeout.min(Duration::from_millis(1000)))
            {
                Ok(m) => msgs.push(m),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {}
            }
            msgs.extend(self.rx.try_iter());
            let mut ending = None;
            for m in msgs {
                let now = crate::daemon::now();
                match m {
                    Msg::LogChanged => {}
                    Msg::ScriptExited { pid, output } => self.script_exited(pid, output, now),
                    Msg::Signal(sig) => {
                        use nix::sys::signal::Signal;
                        match Signal::try_from(sig) {
                            Ok(Signal::SIGUSR1) => {
                                if let Shutdown::Exit(code) =
                                    self.engine.removed(now, &mut self.host)
                                {
                                    ending = Some(Ending::Exit {
                                        code,
                                        removed: true,
                                    });
                                }
                            }
                            Ok(Signal::SIGQUIT) => ending = Some(Ending::Fast),
                            Ok(_) => ending = Some(Ending::Graceful),
                            Err(_) => {}
                        }
                    }
                }
                if ending.is_some() {
                    break;
                }
            }
            if let Some(e) = ending {
                break self.finish(e);
            }
            if let Some(e) = self.tick() {
                break self.finish(e);
            }
            self.host.out.flush();
        };
        out.line(
            Level::Silent,
            &format!("**** {exec_name} (condor_DAGMAN) pid {pid} EXITING WITH STATUS {code}"),
        );
        out.flush();
        code
    }

    /// When the loop must wake even if nothing happens.
    fn next_wakeup(&self, now: i64) -> i64 {
        let mut t = now + self.scan_interval.min(1);
        if let Some(d) = self.engine.next_deferred_script() {
            t = t.min(d);
        }
        let s = self.engine.next_submit_time();
        if s != 0 {
            t = t.min(s);
        }
        t
    }

    fn script_exited(&mut self, pid: u32, output: Vec<u8>, now: i64) {
        let Some(script) = self.host.scripts.remove(&pid) else {
            return;
        };
        let raw = crate::starter::reap(pid as i32)
            .map(|r| r.status)
            .unwrap_or(libc::SIGKILL);
        let exit = if libc::WIFSIGNALED(raw) {
            Exit::Signal(libc::WTERMSIG(raw))
        } else {
            Exit::Code(libc::WEXITSTATUS(raw))
        };
        if let Some((file, _)) = &script.debug {
            // `Script::WriteDebug`.
            let mut text = format!(
                "*** Node={} Type={} Status={raw} Completion={now} Cmd='{}'\n",
                script.node,
                script.kind.name(),
                script.cmd
            )
            .into_bytes();
            text.extend_from_slice(&output);
            let path = script.dir.join(file);
            let written = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .and_then(|mut f| f.write_all(&text));
            if written.is_err() {
                self.host.out.line(
                    Level::Normal,
                    &format!(
                        "ERROR: Failed to open {file} to write {} script output for {}",
                        script.kind.name(),
                        script.node
                    ),
                );
            }
        }
        self.engine.script_exited(pid, exit, now, &mut self.host);
    }

    /// The nodes log shrank or could not be read: DAGMan ends.
    fn log_error(&mut self) -> Ending {
        self.host
            .out
            .line(Level::Normal, "DAGMan exiting due to error in log file");
        Ending::LogError
    }

    /// One `condor_event_timer`.
    fn tick(&mut self) -> Option<Ending> {
        let now = crate::daemon::now();
        self.engine.run_waiting_scripts(now, &mut self.host);
        // Before submitting, the log must not have shrunk (`GetCondorLogStatus`): that is
        // fatal.
        let log_len = std::fs::metadata(self.follower.path()).map_or(0, |m| m.len());
        if log_len < self.follower.position().offset {
            return Some(self.log_error());
        }
        let halted = self.halt_file.exists();
        let submitted = self.engine.submit_ready_nodes(now, halted, &mut self.host);
        if submitted > 0 {
            self.host.out.line(
                Level::Verbose,
                &format!(
                    "Just submitted {submitted} job{} this cycle...",
                    if submitted == 1 { "" } else { "s" }
                ),
            );
        }
        if self.host.wake {
            self.host.wake = false;
            crate::client::master::wake(&self.host.session.config);
        }
        // Then the log's new events, this cycle's submits' included, as HTCondor reads them
        // after its submit cycle: the next cycle's throttles (-MaxIdle above all) count them.
        let mut events = Vec::new();
        loop {
            match self.follower.next_event() {
                Ok(Some(ev)) => events.push(ev),
                Ok(None) => break,
                Err(crate::eventlog::EventLogError::Truncated { .. }) => {
                    return Some(self.log_error());
                }
                Err(e) => {
                    self.host.out.line(
                        Level::Normal,
                        &format!("ERROR: failure to read job log\n\tA log event may be corrupt.  DAGMan will skip the event and try to\n\tcontinue, but information may have been lost.  If DAGMan exits\n\tunfinished, but reports no failed nodes, re-submit the rescue file\n\tto complete the DAG. ({e})"),
                    );
                }
            }
        }
        for ev in &events {
            self.engine.process_event(ev, false, now, &mut self.host);
        }
        if !events.is_empty() {
            self.last_pending_report = self.last_pending_report.max(now);
        }
        if self.engine.print_status_if_changed(false, &mut self.host) {
            if self.dot.as_ref().is_some_and(|d| d.update) {
                self.dump_dot();
            }
            self.ad_outdated = true;
        }
        // The job ad follows the DAG's progress (condor_q's batch view counts from it), once a
        // second at most; HTCondor's only every DAGMAN_QUEUE_UPDATE_INTERVAL.
        if self.ad_outdated && now > self.last_ad_update
            || now >= self.last_ad_update + self.ad_update_interval
        {
            self.update_job_ad(now);
        }
        let mut last = self.last_pending_report;
        self.engine.pending_report(now, &mut last, &mut self.host);
        self.last_pending_report = last;
        self.dump_node_status(now, false, false);
        if self.host.wake {
            self.host.wake = false;
            crate::client::master::wake(&self.host.session.config);
        }
        if let Some(j) = &mut self.host.jobstate {
            j.flush();
        }
        self.engine
            .check_end(now, &mut self.host)
            .map(|code| Ending::Exit {
                code,
                removed: false,
            })
    }

    /// The DAGMan job's ad: the node counts and states (`DagmanClassad::Update`), and the
    /// limits a user may have changed with condor_qedit read back.
    fn update_job_ad(&mut self, now: i64) {
        self.last_ad_update = now;
        self.ad_outdated = false;
        let Some((c, p)) = self.job_id else {
            return;
        };
        let e = &self.engine;
        let (held, idle, running, _) = e.job_proc_states();
        let ints: [(&str, i64); 17] = [
            ("DAG_AdUpdateTime", now),
            ("DAG_NodesTotal", e.num_nodes(true).into()),
            ("DAG_NodesDone", e.num_done(true).into()),
            ("DAG_NodesPrerun", e.pre_run().into()),
            ("DAG_NodesQueued", e.num_submitted().into()),
            ("DAG_NodesPostrun", e.post_run().into()),
            ("DAG_NodesHoldrun", e.hold_run().into()),
            ("DAG_NodesReady", e.num_ready().into()),
            ("DAG_NodesFailed", e.num_failed().into()),
            ("DAG_NodesUnready", e.num_unready(true).into()),
            ("DAG_NodesFutile", e.num_futile().into()),
            ("DAG_Status", (e.dag_status as i32).into()),
            ("DAG_JobsSubmitted", e.total_jobs_submitted().into()),
            ("DAG_JobsIdle", idle.into()),
            ("DAG_JobsHeld", held.into()),
            ("DAG_JobsRunning", running.into()),
            ("DAG_JobsCompleted", e.total_jobs_completed().into()),
        ];
        let mut set: Vec<(String, Expr)> = ints
            .iter()
            .map(|(n, v)| ((*n).to_owned(), Expr::lit(*v)))
            .collect();
        set.push((
            "DAG_InRecovery".into(),
            Expr::lit(i64::from(e.in_recovery())),
        ));
        let host = &mut self.host;
        host.session.now = now;
        let ad = open_queue(&mut host.queue, &host.session)
            .ok()
            .and_then(|q| {
                let id = JobId::new(c, p);
                let _ = q.transaction(|tx| tx.update_job(id, &set, &[], None));
                q.job(id).ok()??.into_ad().ok()
            });
        if let Some(ad) = ad {
            let o = &mut self.engine.opts;
            let read = |name: &str, v: &mut i32| {
                if let Some(n) = lookup_int(&ad, name) {
                    *v = n as i32;
                }
            };
            read("DAGMan_MaxJobs", &mut o.max_jobs);
            read("DAGMan_MaxIdle", &mut o.max_idle);
            read("DAGMan_MaxPreScripts", &mut o.max_pre);
            read("DAGMan_MaxPostScripts", &mut o.max_post);
            read("DAGMan_MaxHoldScripts", &mut o.max_hold);
        }
    }

    /// `DumpNodeStatus`: at most every minUpdate seconds, and only when something changed,
    /// unless ALWAYS-UPDATE; always on exit, hold and removal.
    fn dump_node_status(&mut self, now: i64, held: bool, removed: bool) {
        let Some((path, min, always)) = self.status_file.clone() else {
            return;
        };
        let final_write = held || removed || self.engine.exit_code().is_some();
        if !always && !self.engine.status_outdated && !final_write {
            return;
        }
        let too_soon = min > 0 && now - self.last_status_write < min;
        if too_soon
            && !final_write
            && !self.engine.finished_running(true)
            && !self.engine.is_aborted()
        {
            return;
        }
        let text = files::node_status_text(&self.engine, &self.dag_files, now, held, removed, min);
        let tmp = PathBuf::from(format!("{}.tmp", path.display()));
        let ok = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(e) = ok {
            self.host.out.line(
                Level::Normal,
                &format!(
                    "Warning: can't create node status file '{}': {}",
                    tmp.display(),
                    crate::config::parse::io_reason(&e)
                ),
            );
            return;
        }
        self.engine.status_outdated = false;
        self.last_status_write = now;
    }

    /// `DumpDotFile`.
    fn dump_dot(&mut self) {
        let Some(spec) = self.dot.clone() else {
            return;
        };
        let cwd = self.host.cwd.clone();
        let name = if spec.overwrite {
            spec.file.clone()
        } else {
            loop {
                let name = format!("{}.{}", spec.file, self.dot_suffix);
                self.dot_suffix += 1;
                if !cwd.join(&name).exists() {
                    break name;
                }
            }
        };
        let include = spec.include.as_ref().and_then(|f| {
            let text = std::fs::read_to_string(cwd.join(f));
            if text.is_err() {
                self.host
                    .out
                    .line(Level::Normal, &format!("Can't open dot include file {f}"));
            }
            text.ok().map(|t| (f.clone(), t))
        });
        let text = files::dot_text(
            &self.engine,
            crate::daemon::now(),
            include.as_ref().map(|(f, t)| (f.as_str(), t.as_str())),
        );
        let tmp = cwd.join(format!("{name}.temp"));
        if std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, cwd.join(&name)))
            .is_err()
        {
            self.host.out.line(
                Level::Normal,
                &format!("Can't create dot file '{}'", tmp.display()),
            );
        }
    }

    fn jobstate_finished(&mut self, code: i32) {
        if let Some(j) = &mut self.host.jobstate {
            j.write(
                crate::daemon::now(),
                &format!("INTERNAL *** DAGMAN_FINISHED {code} ***"),
            );
            j.flush();
        }
    }

    /// An exit before the DAG ran (`-Dot`, `-DumpRescue`, a lock held elsewhere).
    fn finish_early(mut self, code: i32) -> Failed {
        if code == EXIT_OKAY {
            return self.finish(Ending::Exit {
                code,
                removed: false,
            });
        }
        self.host.out.flush();
        (self.host.out, code)
    }

    /// The end of a run: the files written one last time, the lock removed (but for a hold,
    /// which is resumed in recovery mode).
    fn finish(mut self, ending: Ending) -> Failed {
        let now = crate::daemon::now();
        let code = match ending {
            Ending::Exit { code, removed } => {
                self.engine.print_status(&mut self.host);
                self.update_job_ad(now);
                self.dump_node_status(now, false, removed);
                self.jobstate_finished(code);
                self.write_metrics(code);
                let _ = std::fs::remove_file(&self.lock_file);
                code
            }
            Ending::Graceful => {
                self.engine.print_status(&mut self.host);
                self.update_job_ad(now);
                self.dump_node_status(now, true, false);
                self.jobstate_finished(EXIT_RESTART);
                EXIT_RESTART
            }
            Ending::Fast => {
                self.jobstate_finished(EXIT_RESTART);
                EXIT_RESTART
            }
            Ending::LogError => {
                self.engine.print_status(&mut self.host);
                self.dump_node_status(now, true, false);
                self.jobstate_finished(EXIT_ABORT);
                self.write_metrics(EXIT_ABORT);
                let _ = std::fs::remove_file(&self.lock_file);
                EXIT_ABORT
            }
        };
        // Scripts still running do not outlive DAGMan.
        for pid in self.engine.running_scripts() {
            self.host.kill_script(pid);
        }
        drop(self._embedded.take());
        self.host.out.flush();
        (self.host.out, code)
    }

    /// `DagmanMetrics::Report`.
    fn write_metrics(&mut self, code: i32) {
        let version = crate::version::VERSION_NUMBER;
        let graph = self.graph_metrics.then(|| {
            let (h, w) = self.engine.dag.metrics_height_and_width();
            (
                h,
                w,
                self.engine.dag.num_edges(),
                self.engine.dag.graph_nodes().count(),
            )
        });
        let dagman_id = self.job_id.map_or(-1, |(c, _)| c).to_string();
        let text = files::metrics_text(
            &self.engine,
            &files::MetricsRun {
                version,
                start: self.metrics_start,
                end: now_f64(),
                exit_code: code,
                dagman_id: &dagman_id,
                parent_dagman_id: &self.parent_dagman_id,
                rescue_dag_number: self.rescue_number,
                graph,
            },
        );
        let path = self
            .host
            .cwd
            .join(format!("{}.metrics", self.engine.opts.primary_dag));
        if std::fs::write(&path, text).is_ok() {
            self.host.out.line(
                Level::Normal,
                &format!("Wrote metrics file {}.", path.display()),
            );
        } else {
            self.host.out.line(
                Level::Quiet,
                &format!("Could not open {} for writing.", path.display()),
            );
        }
    }
}

/// Routes the signals condor_dagman handles to the main loop.
fn route_signals(tx: Sender<Msg>) {
    use nix::sys::signal::Signal;
    let signals = [
        Signal::SIGUSR1,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGQUIT,
    ];
    let _ = crate::daemon::on_signals(&signals, move |sig| tx.send(Msg::Signal(sig)).is_ok());
}

/// The DAGMan job's ad, if it is in the queue.
fn job_ad(session: &Session, cluster: i32, proc: i32) -> Option<crate::classad::ClassAd> {
    let queue = session.open_queue().ok()?;
    queue.job(JobId::new(cluster, proc)).ok()??.into_ad().ok()
}

/// Sets attributes of the DAGMan job's ad (a job gone from the queue is left alone).
fn update_job_ad(session: &Session, cluster: i32, proc: i32, set: &[(String, Expr)]) {
    if let Ok(mut queue) = session.open_queue() {
        let _ = queue.transaction(|tx| tx.update_job(JobId::new(cluster, proc), set, &[], None));
    }
}

/// A version string's first three numbers (`CondorVersionInfo`).
fn version_triple(v: &str) -> Option<(u32, u32, u32)> {
    let start = v.find(|c: char| c.is_ascii_digit())?;
    let word: String = v[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut parts = word.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

fn now_f64() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// A path without `.` components (the nodes log is made absolute, as HTCondor does).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
