//! `condor_check_userlogs`: whether the events in one or more job event logs make sense, as
//! HTCondor 24.0's src/condor_userlog/condor_check_userlogs.cpp checks them.
//!
//! - The logs are read together as `ReadMultipleUserLogs` reads them: each next event is the
//!   oldest (by its time, in whole seconds; the log named first wins a tie) of the next events
//!   of all logs; a log named twice (the same file) is read once. A log that does not exist
//!   is created, empty, as HTCondor's monitor does (`MultiLogFiles::InitializeFile`); one that
//!   cannot be is `Error monitoring log file F: ...` with HTCondor's error stack, on standard
//!   error.
//! - Each event is printed (`Log event: ULOG_SUBMIT (1.0.0) ("notes")`, with the counts of
//!   submitted and not yet ended jobs after submits and ends, the hold code after holds) and
//!   checked with HTCondor's `CheckEvents` ([`crate::eventlog::check`]), its `BAD EVENT`
//!   messages on standard error; at the end every job is checked (one submit, one end).
//! - A log that cannot be read further (a malformed event) ends the reading: `Log outcome:
//!   ULOG_RD_ERROR`, and the verdict is `Log(s) may be okay` / `Some logs cannot be read`
//!   when nothing else was wrong. Otherwise `Log outcome: ULOG_NO_EVENT` and `Log(s) are okay`
//!   (exit 0) or `Log(s) have error(s)` (exit 1).
//! - No words, or `-usage`: the usage, exit 0. condorlite takes `-help` for the usage too,
//!   where HTCondor would take it for a log's name (and create the file).

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::PathBuf;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::error::CommandError;
use crate::eventlog::check::{allow, CheckEvents, CheckResult};
use crate::eventlog::{ulog_name, Event, EventBody, LogFollower};

pub const TOOL: Tool = Tool {
    name: "condor_check_userlogs",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // condor_check_userlogs.cpp reads its words itself.
        unknown: Unknown::Verbatim,
    },
    usage_status: 0,
    run,
};

const NAME: &str = "condor_check_userlogs";

/// `UTIL_ERR_OPEN_FILE` and `UTIL_ERR_LOG_FILE`, the codes of HTCondor's error stack.
const ERR_OPEN_FILE: i32 = 9001;
const ERR_LOG_FILE: i32 = 9004;

pub fn command() -> Command {
    Command::new(NAME)
        .about("Check job event logs for events that make no sense")
        .long_about(
            "Read one or more job event logs together, oldest event first, print each event, \
             and check that each job proc was submitted once, ran only before it ended, and \
             ended once (HTCondor's CheckEvents).",
        )
        .after_help(
            "Exit status: 0 when the logs are okay (or may be: some could not be read to \
             the end); 1 when an event or a job is wrong, or a log cannot be opened.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(crate::cli::args::help_flag("Print the usage"))
        .arg(
            Arg::new("usage")
                .long("usage")
                .action(ArgAction::SetTrue)
                .help("Print the usage"),
        )
        .arg(
            Arg::new("logs")
                .value_name("LOG")
                .action(ArgAction::Append)
                .help("The job event logs"),
        )
}

fn usage(out: &mut dyn Write) {
    let _ = writeln!(
        out,
        "Usage: {NAME} <log file 1> [log file 2] ... [log file n]"
    );
}

/// HTCondor's `CondorError`: pushed messages, the last pushed first in its text.
#[derive(Default)]
struct ErrorStack(Vec<(&'static str, i32, String)>);

impl ErrorStack {
    fn push(&mut self, subsys: &'static str, code: i32, message: String) {
        self.0.push((subsys, code, message));
    }

    /// `getFullText()`: `SUBSYS:CODE:message`, joined with `|`.
    fn full_text(&self) -> String {
        let parts: Vec<String> = self
            .0
            .iter()
            .rev()
            .map(|(s, c, m)| format!("{s}:{c}:{m}"))
            .collect();
        parts.join("|")
    }
}

/// `GetFileID`: the log's device and inode, the file made first when it does not exist (as
/// `MultiLogFiles::InitializeFile` makes it: never truncated, never through a link it
/// creates).
fn file_id(path: &str, errors: &mut ErrorStack) -> Option<(u64, u64)> {
    if std::fs::symlink_metadata(path).is_err() {
        let made = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(path);
        if let Err(e) = made {
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                errors.push(
                    "MultiLogFiles",
                    ERR_OPEN_FILE,
                    format!(
                        "Error ({errno}, {}) opening file {path} for creation or truncation",
                        nix::errno::Errno::from_raw(errno).desc()
                    ),
                );
                errors.push(
                    "ReadMultipleUserLogs",
                    ERR_LOG_FILE,
                    format!("Error initializing log file {path}"),
                );
                return None;
            }
        }
    }
    match std::fs::metadata(path) {
        Ok(m) => Some((m.dev(), m.ino())),
        Err(_) => {
            errors.push(
                "ReadMultipleUserLogs",
                ERR_LOG_FILE,
                format!("Error getting inode for log file {path}"),
            );
            None
        }
    }
}

/// One log being read: its reader, and its next event when already read.
struct Monitor {
    id: (u64, u64),
    follower: LogFollower,
    next: Option<Event>,
}

/// What reading the logs together came to.
enum Outcome {
    Event(Event),
    NoEvent,
    ReadError,
}

/// `ReadMultipleUserLogs::readEvent`: the oldest of the logs' next events.
fn read_event(monitors: &mut [Monitor]) -> Outcome {
    let mut oldest: Option<usize> = None;
    for i in 0..monitors.len() {
        let m = &mut monitors[i];
        if m.next.is_none() {
            match m.follower.next_event() {
                Ok(e) => m.next = e,
                Err(_) => return Outcome::ReadError,
            }
        }
        if let Some(e) = &m.next {
            let t = e.time.timestamp();
            if oldest.is_none_or(|o| monitors[o].next.as_ref().unwrap().time.timestamp() > t) {
                oldest = Some(i);
            }
        }
    }
    match oldest {
        Some(i) => Outcome::Event(monitors[i].next.take().expect("the oldest event")),
        None => Outcome::NoEvent,
    }
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let logs = inv.raw_strings();
    let first = logs.first().map(String::as_str);
    if matches!(first, None | Some("-usage" | "-help" | "--help")) {
        usage(out);
        return Ok(());
    }
    let mut failed = false;
    let mut monitors: Vec<Monitor> = Vec::new();
    for log in &logs {
        let mut errors = ErrorStack::default();
        match file_id(log, &mut errors) {
            Some(id) => {
                if !monitors.iter().any(|m| m.id == id) {
                    monitors.push(Monitor {
                        id,
                        follower: LogFollower::new(PathBuf::from(log)),
                        next: None,
                    });
                }
            }
            None => {
                errors.push(
                    "ReadMultipleUserLogs",
                    ERR_LOG_FILE,
                    "Error getting file ID in monitorLogFile()".into(),
                );
                let _ = writeln!(
                    err,
                    "Error monitoring log file {log}: {}",
                    errors.full_text()
                );
                failed = true;
            }
        }
    }

    let mut check = CheckEvents::new(allow::NONE);
    let mut logs_missing = false;
    let (mut total, mut net) = (0, 0);
    loop {
        let event = match read_event(&mut monitors) {
            Outcome::Event(e) => e,
            Outcome::NoEvent => {
                let _ = writeln!(out, "Log outcome: ULOG_NO_EVENT ");
                break;
            }
            Outcome::ReadError => {
                logs_missing = true;
                let _ = writeln!(out, "Log outcome: ULOG_RD_ERROR ");
                break;
            }
        };
        let _ = write!(
            out,
            "Log event: {} ({}.{}.{})",
            ulog_name(event.body.number()),
            event.cluster,
            event.proc,
            event.subproc
        );
        let (verdict, message) = check.check(&event);
        if verdict != CheckResult::Okay {
            let _ = writeln!(err, "{message}");
            failed = true;
        }
        let counts = |out: &mut dyn Write, total: i32, net: i32| {
            let _ = write!(out, "\n Total submitted: {total}; net submitted: {net}\n");
        };
        match &event.body {
            EventBody::Submit(s) => {
                let _ = write!(out, " (\"{}\")", s.log_notes.as_deref().unwrap_or(""));
                total += 1;
                net += 1;
                counts(out, total, net);
            }
            EventBody::JobHeld(h) => {
                let _ = write!(out, " (code={} subcode={})", h.code, h.subcode);
            }
            EventBody::JobTerminated(_)
            | EventBody::JobAborted(_)
            | EventBody::ExecutableError(_) => {
                net -= 1;
                counts(out, total, net);
            }
            _ => {}
        }
        let _ = writeln!(out);
    }

    // `unmonitorLogFile`: a log that cannot be found again is an error again.
    for log in &logs {
        let mut errors = ErrorStack::default();
        if file_id(log, &mut errors).is_none() {
            errors.push(
                "ReadMultipleUserLogs",
                ERR_LOG_FILE,
                "Error getting file ID in unmonitorLogFile()".into(),
            );
            let _ = writeln!(
                err,
                "Error unmonitoring log file {log}: {}",
                errors.full_text()
            );
            failed = true;
        }
    }

    let (verdict, message) = check.check_all();
    if verdict != CheckResult::Okay {
        let _ = writeln!(err, "{message}");
        let _ = writeln!(err, "CheckAllJobs() result: {}", verdict.name());
        failed = true;
    }
    if failed {
        let _ = writeln!(out, "Log(s) have error(s)");
        return Err(CommandError::Exit(1));
    }
    if logs_missing {
        let _ = writeln!(out, "Log(s) may be okay");
        let _ = writeln!(out, "Some logs cannot be read");
    } else {
        let _ = writeln!(out, "Log(s) are okay");
    }
    Ok(())
}
