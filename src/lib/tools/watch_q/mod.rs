//! `condor_watch_q`: a live table of the user's jobs, grouped by batch, drawn from their job event
//! logs, as HTCondor 24.0's src/condor_scripts/condor_watch_q.in (Python) draws it.
//!
//! - The logs are found once, from the queue (the `UserLog`, or `DAGManNodesLog`, of the jobs of
//!   `-users`, `-clusters` or `-batches`, by default the user's own; a relative log is taken
//!   from the job's `Iwd`; a DAGMan job adds its `.nodes.log`), or named with `-files`. After that
//!   the job states come from the logs alone, read incrementally (`LogFollower`): the queue is
//!   queried again only for `DAG_NodesTotal`, once a minute, while a DAGMan job lacks it.
//! - Every 2 seconds a frame is drawn: the table (`tracker`, `view`), the progress bar, the
//!   summary and `Updated at`. On a terminal (`-refresh`) the last frame is erased with
//!   HTCondor's escapes (`ESC[nA\r`, blanks, `ESC[nA\r`) and drawn again in place; otherwise
//!   each frame is appended, followed by `...`. Colours (`-color`) only on a terminal, as
//!   HTCondor's `colorize` checks the terminal itself.
//! - `-exit GROUPER,STATUS[,CODE]` ends the watch after a frame where the condition holds over
//!   all tracked jobs: `Exiting with code CODE because of condition "GROUPER STATUS" at TIME`,
//!   exit CODE. Ctrl-C exits 0. No log to follow: `WARNING: No jobs found, exiting...`, exit 0.
//!
//! Differences from HTCondor's (see the README): `-collector` and `-schedd` name this host's
//! pool only; the help text is argparse's at 80 columns whatever the terminal's width; a
//! `-groupby log` path whose directory cannot be listed is not abbreviated (HTCondor's stops
//! with an error).

mod args;
mod paths;
mod tracker;
mod view;

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::classad::parser::parse_expr;
use crate::classad::unparse::value_to_string;
use crate::classad::Value;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::client::Session;
use crate::error::CommandError;
use crate::eventlog::{EventLogError, LogFollower};
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::JobQuery;

use args::{ArgError, ExitCondition, ExitStatusCheck, Grouper, Parsed, Request};
use tracker::{Filter, JobState, Tracker};
use view::{Dags, Layout};

pub const TOOL: Tool = Tool {
    name: "condor_watch_q",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // Read as argparse reads them (args.rs).
        unknown: Unknown::Verbatim,
    },
    usage_status: 2,
    run,
};

const NAME: &str = "condor_watch_q";

/// The time between frames.
const INTERVAL: Duration = Duration::from_secs(2);
/// How often `DAG_NodesTotal` is looked for again while a DAGMan job lacks it.
const NODES_TOTAL_INTERVAL: Duration = Duration::from_secs(60);

pub fn command() -> Command {
    let list = |name: &'static str, value: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .value_name(value)
            .num_args(1..)
            .help(help)
    };
    let one = |name: &'static str, value: &'static str, help: &'static str| {
        Arg::new(name).long(name).value_name(value).help(help)
    };
    let toggle = |name: &'static str, help: &'static str| {
        let negated: &'static str = Box::leak(format!("no-{name}").into_boxed_str());
        Arg::new(name)
            .long(name)
            .alias(negated)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    Command::new(NAME)
        .about("Track the status of jobs over time without repeatedly querying the condor_schedd")
        .long_about(
            "Follow the job event logs of the user's jobs (or of -users, -clusters, -batches, \
             or the logs named by -files) and draw a table of their jobs, grouped by batch, \
             with IDLE, RUN, HOLD, DONE and TOTAL counts and the active job ids, a progress \
             bar and a summary line, every 2 seconds: redrawn in place on a terminal, \
             appended otherwise. -exit conditions end the watch when the jobs reach a state.",
        )
        .after_help(
            "Exit status: 0 on Ctrl-C or when no jobs are found; the status an -exit \
             condition names when it holds; 1 for an error or a condor_q-style argument; 2 \
             for a bad command line.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(crate::cli::args::help_flag(
            "Show this help message and exit.",
        ))
        .arg(
            Arg::new("debug")
                .long("debug")
                .action(ArgAction::SetTrue)
                .help("Turn on HTCondor debug printing."),
        )
        .arg(list("users", "USER", "Which users to track."))
        .arg(list(
            "clusters",
            "CLUSTER_ID",
            "Which cluster IDs to track.",
        ))
        .arg(one(
            "larger-than",
            "CLUSTER_ID",
            "Track all jobs with cluster IDs greater than or equal to the specified CLUSTER_ID.",
        ))
        .arg(
            list("files", "FILE", "Which event logs to track.")
                .value_hint(clap::ValueHint::FilePath),
        )
        .arg(list("batches", "BATCH_NAME", "Which batch names to track."))
        .arg(one(
            "collector",
            "COLLECTOR",
            "Which collector to contact to find the schedd, if needed.",
        ))
        .arg(one(
            "schedd",
            "SCHEDD",
            "Which schedd to contact for queries, if needed.",
        ))
        .arg(
            one(
                "exit",
                "GROUPER,JOB_STATUS[,EXIT_STATUS]",
                "Exit when a condition holds: GROUPER is one of {all, any, none}, JOB_STATUS \
                 one of {active, done, idle, held}; may be given several times.",
            )
            .action(ArgAction::Append),
        )
        .arg(
            one(
                "groupby",
                "GROUPBY",
                "Select what attribute to group jobs by.",
            )
            .value_parser(["batch", "log", "cluster"]),
        )
        .arg(toggle(
            "table",
            "Enable/disable the table. Enabled by default.",
        ))
        .arg(toggle(
            "progress",
            "Enable/disable the progress bar. Enabled by default.",
        ))
        .arg(toggle(
            "row-progress",
            "Enable/disable the progress bar for each row. Enabled by default.",
        ))
        .arg(toggle(
            "summary",
            "Enable/disable the summary line. Enabled by default.",
        ))
        .arg(
            one(
                "summary-type",
                "SUMMARY_TYPE",
                "Choose what to display on the summary line. By default, show totals.",
            )
            .value_parser(["totals", "percentages"]),
        )
        .arg(toggle(
            "updated-at",
            "Enable/disable the \"updated at\" line. Enabled by default.",
        ))
        .arg(toggle(
            "abbreviate",
            "Enable/disable abbreviating path components to the shortest somewhat-unique prefix.",
        ))
        .arg(toggle(
            "color",
            "Enable/disable colored output. Enabled by default if connected to a tty.",
        ))
        .arg(toggle(
            "refresh",
            "Enable/disable refreshing output (instead of appending). Enabled by default if \
             connected to a tty.",
        ))
}

/// argparse's usage, at 80 columns.
const USAGE: &str = "\
usage: condor_watch_q [-help] [-debug] [-users USER [USER ...]]
                      [-clusters CLUSTER_ID [CLUSTER_ID ...]]
                      [-larger-than CLUSTER_ID] [-files FILE [FILE ...]]
                      [-batches BATCH_NAME [BATCH_NAME ...]]
                      [-collector COLLECTOR] [-schedd SCHEDD]
                      [-exit GROUPER,JOB_STATUS[,EXIT_STATUS]]
                      [-groupby {batch,log,cluster}] [-table] [-progress]
                      [-row-progress] [-summary]
                      [-summary-type {totals,percentages}] [-updated-at]
                      [-abbreviate] [-color] [-refresh]
";

/// argparse's help, at 80 columns, after [`USAGE`].
const HELP: &str = include_str!("help.txt");

/// Set by SIGINT: Ctrl-C ends the watch with status 0 (`KeyboardInterrupt`).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

fn warning(err: &mut dyn Write, msg: &str) {
    let _ = writeln!(err, "WARNING: {msg}");
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let words = inv.raw_strings();
    let parsed = if words.iter().any(|w| w == "--help") {
        Ok(Parsed::Help)
    } else {
        args::parse(&words)
    };
    let request = match parsed {
        Ok(Parsed::Help) => {
            write!(out, "{USAGE}{HELP}")?;
            return Ok(());
        }
        Ok(Parsed::Run(r)) => r,
        Err(ArgError::Argparse(message)) => {
            let _ = writeln!(err, "{USAGE}{NAME}: error: {message}");
            return Err(CommandError::Exit(2));
        }
        Err(ArgError::Hint { arg, hint }) => {
            write!(out, "{USAGE}")?;
            out.flush()?;
            let _ = writeln!(err, "{NAME}: error: argument {arg}: {hint}");
            return Err(CommandError::Exit(1));
        }
    };
    if request.clusters.is_some() && request.since.is_some() {
        let _ = writeln!(
            err,
            "ERROR: Use of both -clusters and -larger-than flag is prohibited."
        );
        return Err(CommandError::Exit(1));
    }
    if request.debug {
        warning(err, "Debug mode enabled...");
    }
    match watch(&request, out, err) {
        Err(Failure::Unhandled(e)) => {
            let _ = writeln!(
                err,
                "ERROR: Unhandled error: {e}. Re-run with -debug for a full stack trace."
            );
            Err(CommandError::Exit(1))
        }
        Err(Failure::Exit(status)) => Err(CommandError::Exit(status)),
        Err(Failure::Io(e)) => Err(e.into()),
        Ok(()) => Ok(()),
    }
}

/// How a watch ends other than by Ctrl-C.
enum Failure {
    /// What HTCondor's catch-all reports.
    Unhandled(String),
    /// `sys.exit(status)`.
    Exit(u8),
    Io(std::io::Error),
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Io(e)
    }
}

/// The attributes read from the queue's jobs (HTCondor's `PROJECTION`).
struct JobInfo {
    cluster: i32,
    owner_batch: Option<String>,
    user_log: Option<String>,
    nodes_log: Option<String>,
    iwd: String,
    nodes_total: Option<i64>,
    dagman: bool,
}

/// The jobs the constraint selects; a failure is a warning and no jobs, as `get_ads` has it.
fn get_ads(constraint: &str, schedd: Option<&str>, err: &mut dyn Write) -> Vec<JobInfo> {
    if constraint.is_empty() {
        return Vec::new();
    }
    let result = (|| -> Result<Vec<JobInfo>, String> {
        let session = Session::from_process().map_err(|e| e.to_string())?;
        if let Some(name) = schedd {
            if !session.is_local_schedd(name) {
                return Err(format!("Unable to locate schedd {name}"));
            }
        }
        let expr = parse_expr(constraint).map_err(|e| e.to_string())?;
        let queue = session.open_queue().map_err(|e| e.to_string())?;
        let mut infos = Vec::new();
        for job in queue
            .jobs(&JobQuery::all().with_constraint(expr))
            .map_err(|e| e.to_string())?
        {
            let job = job.map_err(|e| e.to_string())?;
            let ad = job.ad().map_err(|e| e.to_string())?;
            let s = |name: &str| lookup_str(ad, name).map(|v| v.to_string());
            infos.push(JobInfo {
                cluster: job.id().cluster.0,
                owner_batch: s("JobBatchName"),
                user_log: s("UserLog"),
                nodes_log: s("DAGManNodesLog"),
                iwd: s("Iwd").unwrap_or_default(),
                nodes_total: lookup_int(ad, "DAG_NodesTotal"),
                dagman: ad.lookup("OtherJobRemoveRequirements").is_some(),
            });
        }
        Ok(infos)
    })();
    result.unwrap_or_else(|e| {
        warning(
            err,
            &format!("Was not able to query to discover job event logs due to: {e}"),
        );
        Vec::new()
    })
}

/// `find_nodes_total`: `DAG_NodesTotal` by batch name, and the clusters that have one.
fn nodes_total(infos: &[JobInfo]) -> (HashMap<String, u64>, HashSet<i32>) {
    let mut totals = HashMap::new();
    let mut clusters = HashSet::new();
    for info in infos {
        let (Some(batch), Some(n)) = (&info.owner_batch, info.nodes_total) else {
            continue;
        };
        if n != 0 {
            totals.insert(batch.clone(), n.max(0) as u64);
            clusters.insert(info.cluster);
        }
    }
    (totals, clusters)
}

/// What `find_job_event_logs` finds.
struct Found {
    constraint: String,
    /// Each log, and whether it may appear later (a DAG's nodes log).
    logs: Vec<(String, bool)>,
    batch_names: HashMap<i32, String>,
    batch_filter_ids: Vec<i32>,
    dags: Dags,
    infos: Vec<JobInfo>,
}

fn find_job_event_logs(r: &Request, users: &[String], err: &mut dyn Write) -> Found {
    let mut terms: Vec<String> = users
        .iter()
        .map(|u| {
            format!(
                "Owner == {}",
                value_to_string(&Value::Str(u.as_str().into()))
            )
        })
        .collect();
    terms.extend(
        r.clusters
            .iter()
            .flatten()
            .map(|c| format!("ClusterId == {c}")),
    );
    terms.extend(
        r.batches
            .iter()
            .flatten()
            .map(|b| format!("JobBatchName == \"{b}\"")),
    );
    let constraint = terms.join(" || ");
    let mut logs: Vec<(String, bool)> = Vec::new();
    let add_log = |logs: &mut Vec<(String, bool)>, path: String, deferred: bool| {
        if !logs.iter().any(|(p, _)| *p == path) {
            logs.push((path, deferred));
        }
    };
    for f in r.files.iter().flatten() {
        add_log(&mut logs, paths::abspath(f), false);
    }
    let infos = get_ads(&constraint, r.schedd.as_deref(), err);
    let mut batch_names: HashMap<i32, Option<String>> = HashMap::new();
    let mut batch_filter_ids = Vec::new();
    let mut nodes_logs: HashMap<String, i32> = HashMap::new();
    let mut dagman_clusters = HashSet::new();
    let mut warned = HashSet::new();
    for info in &infos {
        batch_names.insert(info.cluster, info.owner_batch.clone());
        if r.batches.as_ref().is_some_and(|b| !b.is_empty()) {
            batch_filter_ids.push(info.cluster);
        }
        let log = if let Some(nodes) = &info.nodes_log {
            nodes_logs.insert(nodes.clone(), info.cluster);
            nodes.clone()
        } else if let Some(user_log) = &info.user_log {
            user_log.clone()
        } else {
            if warned.insert(info.cluster) {
                warning(
                    err,
                    &format!(
                        "Cluster {} does not have a job event log file (set log=<path> in the \
                         submit description)",
                        info.cluster
                    ),
                );
            }
            continue;
        };
        let log = if log.starts_with('/') {
            log
        } else {
            paths::abspath(&format!("{}/{log}", info.iwd))
        };
        // Once a log is known, a later job naming it again changes nothing (a dict's update).
        add_log(&mut logs, log.clone(), false);
        if info.dagman {
            dagman_clusters.insert(info.cluster);
            add_log(&mut logs, log.replace(".dagman.log", ".nodes.log"), true);
        }
    }
    let dag_batches = nodes_logs
        .into_iter()
        .filter_map(|(log, cluster)| Some((log, batch_names.get(&cluster)?.clone()?)))
        .collect();
    let (nodes_total, _) = nodes_total(&infos);
    Found {
        constraint,
        logs,
        batch_names: batch_names
            .into_iter()
            .filter_map(|(c, b)| Some((c, b?)))
            .collect(),
        batch_filter_ids,
        dags: Dags {
            nodes_logs: dag_batches,
            dagman_clusters,
            nodes_total,
        },
        infos,
    }
}

/// The logs being read, and those not there yet.
struct Readers {
    open: Vec<(usize, LogFollower)>,
    deferred: Vec<(String, bool)>,
}

impl Readers {
    /// `open_readers`: a log that cannot be opened is a warning, or waited for when it is a
    /// DAG's nodes log.
    fn open(&mut self, tracker: &mut Tracker, logs: Vec<(String, bool)>, err: &mut dyn Write) {
        for (log, deferred) in logs {
            match File::open(&log) {
                Ok(_) => {
                    let index = tracker.log_index(&log);
                    self.open.push((index, LogFollower::new(&log)));
                }
                Err(_) if deferred && log.ends_with(".nodes.log") => {
                    self.deferred.push((log, deferred))
                }
                Err(e) => {
                    let reason = if std::path::Path::new(&log).exists() {
                        e.to_string()
                    } else {
                        "File path does not exist".to_owned()
                    };
                    warning(
                        err,
                        &format!(
                            "Could not open event log at {log} for reading, so it will be \
                             ignored. Reason: {reason}"
                        ),
                    );
                }
            }
        }
    }

    /// `process_events`: every event written since the last call; the messages to show.
    fn process(&mut self, tracker: &mut Tracker, err: &mut dyn Write) -> Vec<String> {
        let mut messages = Vec::new();
        let mut dropped = Vec::new();
        for (n, (log, follower)) in self.open.iter_mut().enumerate() {
            loop {
                match follower.next_event() {
                    Ok(Some(e)) => tracker.apply(*log, e.cluster, e.proc, &e.body),
                    Ok(None) => break,
                    Err(e) => {
                        let path = follower.path().display().to_string();
                        messages.push(format!(
                            "ERROR: Failed to parse event from {path}. Reason: {e}"
                        ));
                        // A log that shrank, or cannot be read, is left.
                        if matches!(
                            e,
                            EventLogError::Truncated { .. } | EventLogError::Io { .. }
                        ) {
                            dropped.push(n);
                            break;
                        }
                    }
                }
            }
        }
        for n in dropped.into_iter().rev() {
            self.open.remove(n);
        }
        if !self.deferred.is_empty() {
            let deferred = std::mem::take(&mut self.deferred);
            self.open(tracker, deferred, err);
        }
        messages
    }
}

/// `shutil.get_terminal_size()`: `COLUMNS` and `LINES`, else the terminal on stdout, else 80×24.
fn terminal_size() -> (usize, usize) {
    let env = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| args::python_int(&v))
            .filter(|&n| n > 0)
            .map(|n| n as usize)
    };
    let (columns, lines) = (env("COLUMNS"), env("LINES"));
    if let (Some(c), Some(l)) = (columns, lines) {
        return (c, l);
    }
    let (c, l) = crate::output::terminal_size().unwrap_or((80, 24));
    (
        columns.unwrap_or(if c > 0 { c } else { 80 }),
        lines.unwrap_or(if l > 0 { l } else { 24 }),
    )
}

/// The user whose jobs are watched by default: condorlite's (`CONDORLITE_USER`, the `Owner` it
/// gives jobs), else `getpass.getuser()`: the first of `LOGNAME`, `USER`, `LNAME`, `USERNAME`
/// that is set, else the password file's name for the uid.
fn current_user() -> String {
    [
        crate::client::USER_ENV,
        "LOGNAME",
        "USER",
        "LNAME",
        "USERNAME",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty()))
    .or_else(crate::client::os_user)
    .unwrap_or_default()
}

/// Whether a condition holds over every tracked job.
fn holds(c: &ExitCondition, tracker: &Tracker) -> bool {
    let t = tracker.totals();
    let matching = match c.check {
        ExitStatusCheck::Active => JobState::ORDERED
            .iter()
            .filter(|s| s.is_active())
            .map(|&s| t[s as usize])
            .sum(),
        ExitStatusCheck::Done => t[JobState::Completed as usize],
        ExitStatusCheck::Idle => t[JobState::Idle as usize],
        ExitStatusCheck::Held => t[JobState::Held as usize],
    };
    match c.grouper {
        Grouper::All => matching == tracker.jobs(),
        Grouper::Any => matching > 0,
        Grouper::None => matching == 0,
    }
}

/// Sleeps between frames; false when Ctrl-C came.
fn pause(d: Duration) -> bool {
    let end = Instant::now() + d;
    while !INTERRUPTED.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(100)));
    }
    false
}

fn watch(r: &Request, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Failure> {
    let mut filter_ids: Option<Vec<i32>> = match &r.clusters {
        None => None,
        Some(ids) => Some(
            ids.iter()
                .map(|c| {
                    args::python_int(c).map(|n| n as i32).ok_or_else(|| {
                        Failure::Unhandled(format!("invalid literal for int() with base 10: '{c}'"))
                    })
                })
                .collect::<Result<_, _>>()?,
        ),
    };
    let users: Vec<String> =
        if r.users.is_none() && r.clusters.is_none() && r.files.is_none() && r.batches.is_none() {
            vec![current_user()]
        } else {
            r.users.clone().unwrap_or_default()
        };
    let found = find_job_event_logs(r, &users, err);
    match &mut filter_ids {
        None if !found.batch_filter_ids.is_empty() => {
            filter_ids = Some(found.batch_filter_ids.clone())
        }
        Some(ids) => ids.extend(&found.batch_filter_ids),
        None => {}
    }
    let filter = Filter {
        clusters: filter_ids.map(|ids| ids.into_iter().collect()),
        since: r
            .since
            .map(|s| s.clamp(i32::MIN as i64, i32::MAX as i64) as i32),
    };
    let mut tracker = Tracker::new(filter, found.batch_names.clone());
    let mut readers = Readers {
        open: Vec::new(),
        deferred: Vec::new(),
    };
    let no_logs = found.logs.is_empty();
    readers.open(&mut tracker, found.logs.clone(), err);
    if no_logs {
        warning(err, "No jobs found, exiting...");
        return Ok(());
    }

    let tty = std::io::stdout().is_terminal();
    let refresh = r.refresh.unwrap_or(tty);
    let layout = Layout {
        group_by: r.group_by,
        table: r.table,
        progress: r.progress,
        row_progress: r.row_progress,
        summary: r.summary,
        percentages: r.percentages,
        updated_at: r.updated_at,
        color: r.color.unwrap_or(tty) && tty,
        refresh,
        exit_conditions: !r.exits.is_empty(),
    };
    let home = paths::home_dir();
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "/".to_owned());
    let show_log = |log: &str| {
        let nice = paths::nice_path(log, &home, &cwd);
        if r.abbreviate {
            paths::abbreviate_path(&nice, &home)
        } else {
            nice
        }
    };

    INTERRUPTED.store(false, Ordering::SeqCst);
    let action = nix::sys::signal::SigAction::new(
        nix::sys::signal::SigHandler::Handler(on_interrupt),
        nix::sys::signal::SaFlags::SA_RESTART,
        nix::sys::signal::SigSet::empty(),
    );
    // SAFETY: the handler only stores to an atomic.
    let _ = unsafe { nix::sys::signal::sigaction(nix::sys::signal::Signal::SIGINT, &action) };

    let mut dags = found.dags;
    let mut dagman_with_total = nodes_total(&found.infos).1;
    let mut last_nodes_check = Instant::now();
    let mut previous: Option<String> = None;
    const PROCESSING: &str = "Processing new events...";
    loop {
        if refresh {
            write!(out, "{PROCESSING}")?;
            out.flush()?;
        }
        let messages = readers.process(&mut tracker, err);
        let now = chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string();
        if !dags.dagman_clusters.is_subset(&dagman_with_total)
            && last_nodes_check.elapsed() > NODES_TOTAL_INTERVAL
        {
            last_nodes_check = Instant::now();
            let infos = get_ads(&found.constraint, r.schedd.as_deref(), err);
            (dags.nodes_total, dagman_with_total) = nodes_total(&infos);
        }
        let rows = view::rows(&tracker, r.group_by, &dags, &show_log);
        let frame = view::frame(&layout, &rows, &now, terminal_size());
        if refresh {
            write!(out, "\r{}\r", " ".repeat(PROCESSING.len()))?;
            if let Some(prev) = &previous {
                write!(out, "{}", view::erase(prev))?;
            }
        }
        if !messages.is_empty() {
            let text: Vec<String> = messages.iter().map(|m| format!("{now} | {m}")).collect();
            let _ = writeln!(err, "{}", text.join("\n"));
        }
        writeln!(out, "{frame}")?;
        out.flush()?;
        previous = Some(frame);
        for c in &r.exits {
            if holds(c, &tracker) {
                writeln!(
                    out,
                    "Exiting with code {} because of condition \"{}\" at {now}",
                    c.code, c.text
                )?;
                out.flush()?;
                return match c.code.rem_euclid(256) as u8 {
                    0 => Ok(()),
                    status => Err(Failure::Exit(status)),
                };
            }
        }
        if !pause(INTERVAL) {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracker_with(states: &[JobState]) -> Tracker {
        use crate::eventlog::{EventBody, Execute, JobHeld, JobTerminated, Submit};
        let mut t = Tracker::new(Filter::default(), HashMap::new());
        for (p, s) in states.iter().enumerate() {
            let body = match s {
                JobState::Idle => EventBody::Submit(Submit::default()),
                JobState::Running => EventBody::Execute(Execute::default()),
                JobState::Held => EventBody::JobHeld(JobHeld::default()),
                JobState::Completed => EventBody::JobTerminated(JobTerminated::default()),
                _ => unreachable!(),
            };
            t.apply(0, 1, p as i32, &body);
        }
        t
    }

    fn cond(grouper: Grouper, check: ExitStatusCheck) -> ExitCondition {
        ExitCondition {
            grouper,
            check,
            code: 0,
            text: String::new(),
        }
    }

    #[test]
    fn exit_conditions_hold_over_all_jobs() {
        use ExitStatusCheck::*;
        let done = tracker_with(&[JobState::Completed, JobState::Completed]);
        let mixed = tracker_with(&[JobState::Completed, JobState::Held, JobState::Running]);
        assert!(holds(&cond(Grouper::All, Done), &done));
        assert!(!holds(&cond(Grouper::All, Done), &mixed));
        assert!(holds(&cond(Grouper::Any, Held), &mixed));
        assert!(holds(&cond(Grouper::None, Active), &done));
        assert!(!holds(&cond(Grouper::None, Active), &mixed));
        assert!(!holds(&cond(Grouper::Any, Idle), &mixed));
        // Python's all() of nothing.
        let empty = tracker_with(&[]);
        assert!(holds(&cond(Grouper::All, Done), &empty));
        assert!(!holds(&cond(Grouper::Any, Done), &empty));
    }
}
