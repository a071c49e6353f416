//! `condor_ssh_to_job`: a shell, or a command, in a running job's sandbox, as HTCondor
//! 24.0's src/condor_tools/ssh_to_job.cpp asks the schedd (`GET_JOB_CONNECT_INFO`) and the
//! starter (`START_SSHD`) for one. The job runs on this host, so there is no ssh: the schedd's
//! checks are [`crate::client::connect`]'s and the session is [`crate::starter::session`]'s,
//! run on this terminal. This module reads the command line, tries, retries, and exits as
//! ssh_to_job.cpp does:
//!
//! - Command-line errors (`Unrecognized argument: X`, `X requires an argument`, `ERROR: You
//!   must specify a job!`, `Invalid job id: X`) exit 2; the words after the job are the
//!   command, joined with spaces as ssh joins them.
//! - A job not in the queue is `Unable to fetch job ad; is it still in the queue?`, a held
//!   one `The job is on hold: "<reason>".`, one of another user the schedd's refusal; each
//!   exits 1. A job that is not running yet is tried again only with `-auto-retry`
//!   (`Waiting for job to start...` once), else `(Use -auto-retry to keep trying
//!   periodically.)`, exit 1. The wait ends when the job runs, is held, leaves the queue, or
//!   has completed or been removed (it cannot run any more); meanwhile the queue is looked
//!   at with a growing pause of at most half a second (HTCondor: every 5 seconds, then 30).
//! - `-remove-on-interrupt`: SIGINT, SIGHUP, SIGTERM or SIGQUIT remove the job (`Interrupted
//!   by signal N (NAME), removing job C.P...`), exit 1.
//! - The exit status is the session's: its shell's or command's exit status, 255 when a
//!   signal ended it (what ssh returns then).

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use clap::{Arg, ArgAction, Command};

use super::argv::match_prefix;
use super::Tool;
use crate::classad::cnum::strtol;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::client::connect::{job_connect_info, locate};
use crate::client::Session;
use crate::error::CommandError;
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::{JobId, JobStatus};
use crate::starter::session::{job_process, SessionDir, SessionRequest};

pub const TOOL: Tool = Tool {
    name: "condor_ssh_to_job",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // ssh_to_job.cpp reads its words itself (`match_prefix`), and every word after the
        // job is the command's, whatever it looks like.
        unknown: Unknown::Verbatim,
    },
    usage_status: 2,
    run,
};

const NAME: &str = "condor_ssh_to_job";

/// The longest pause between two looks at a job that is not running yet.
const MAX_PAUSE: Duration = Duration::from_millis(500);

pub fn command() -> Command {
    let flag = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    let value = |name: &'static str, value: &'static str, help: &'static str| {
        Arg::new(name).long(name).value_name(value).help(help)
    };
    Command::new(NAME)
        .about("Run a shell or a command in a running job's sandbox")
        .long_about(
            "Run a shell (or the command given after the job id) in a running job's \
             directory, with the job's environment and as the job's user. On this host \
             there is no ssh: the session runs directly on this terminal.",
        )
        .after_help(
            "Exit status: the shell's or the command's (255 when a signal ended it); 1 when \
             the job cannot be reached; 2 for a command line that is not understood.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("help", "Display brief usage information and exit"))
        .arg(flag("debug", "Show why a session is retried"))
        .arg(value("name", "SCHEDD", "The schedd holding the job"))
        .arg(value("pool", "POOL", "The pool's central manager"))
        .arg(value(
            "ssh",
            "SSH_COMMAND",
            "An alternate ssh program (only ssh itself: there is no ssh here)",
        ))
        .arg(value(
            "keygen-options",
            "OPTIONS",
            "Options for ssh-keygen (no keys are made here)",
        ))
        .arg(value(
            "shells",
            "SHELL1,SHELL2,...",
            "Shells to try, the first that can be run (default: SHELL)",
        ))
        .arg(flag(
            "auto-retry",
            "Keep trying while the job is not running yet",
        ))
        .arg(flag(
            "remove-on-interrupt",
            "Remove the job on SIGINT, SIGHUP, SIGTERM or SIGQUIT",
        ))
        .arg(
            Arg::new("X")
                .short('X')
                .action(ArgAction::SetTrue)
                .help("Enable X11 forwarding (the session gets this DISPLAY and XAUTHORITY)"),
        )
        .arg(
            Arg::new("x")
                .short('x')
                .action(ArgAction::SetTrue)
                .help("Disable X11 forwarding"),
        )
        .arg(
            Arg::new("job")
                .value_name("JOB")
                .help("cluster, cluster.proc or cluster.proc.node"),
        )
        .arg(
            Arg::new("command")
                .value_name("COMMAND")
                .action(ArgAction::Append)
                .help("The command to run instead of a shell"),
        )
}

fn usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "Usage: {NAME} [OPTIONS] {{ cluster | cluster.proc }} [command]

OPTIONS:
 -debug
 -name schedd-name
 -pool pool-name
 -auto-retry               (if job not running yet)
 -remove-on-interrupt      (rm job on ctrl-c)
 -shells shell1,shell2,... (shells to try)
 -ssh <alt ssh command>    (e.g. sftp or scp)
 -keygen-options <keygen options>
 -X                        (enable X11 forwarding)
 -x                        (disable X11 forwarding)
"
    );
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub cluster: i64,
    pub proc: i64,
    /// A parallel job's node (`cluster.proc.node`).
    pub subproc: Option<i64>,
    pub name: Option<String>,
    pub pool: Option<String>,
    /// `-ssh`: the program and its options.
    pub ssh: String,
    /// The shells to try, comma-separated.
    pub shells: String,
    pub auto_retry: bool,
    pub remove_on_interrupt: bool,
    pub x11: bool,
    pub debug: bool,
    /// The command's words; empty for a shell.
    pub command: Vec<String>,
}

impl Request {
    /// A shell in job `id` (the caller's `SHELL` first), trying once.
    pub fn shell(id: JobId) -> Request {
        Request {
            cluster: id.cluster.0.into(),
            proc: id.proc.into(),
            subproc: None,
            name: None,
            pool: None,
            ssh: "ssh".to_owned(),
            shells: std::env::var("SHELL").unwrap_or_default(),
            auto_retry: false,
            remove_on_interrupt: false,
            x11: false,
            debug: false,
            command: Vec::new(),
        }
    }

    /// The job, as the schedd is asked for it (`None`: no job can have that id).
    fn job_id(&self) -> Option<JobId> {
        Some(JobId::new(
            i32::try_from(self.cluster).ok()?,
            i32::try_from(self.proc).ok()?,
        ))
    }

    fn id_text(&self) -> String {
        format!("{}.{}", self.cluster, self.proc)
    }
}

/// What the words come to.
#[derive(Debug, PartialEq, Eq)]
enum Parsed {
    Help,
    Run(Request),
}

/// `is_dash_arg_colon_prefix(word, name, &colon)` with no minimum length.
fn is_dash_arg_colon_prefix(word: &str, name: &str) -> bool {
    let Some(rest) = word.strip_prefix('-') else {
        return false;
    };
    let (rest, full) = match rest.strip_prefix('-') {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let rest = rest.split(':').next().unwrap_or("");
    !rest.is_empty() && name.starts_with(rest) && (!full || rest == name)
}

/// The job id as ssh_to_job.cpp reads it with `strtol`: `cluster[.proc[.node]]`.
fn parse_job_id(word: &str) -> Option<(i64, i64, Option<i64>)> {
    let b = word.as_bytes();
    let (cluster, used) = strtol(b);
    let mut at = used;
    let mut proc = 0;
    let mut subproc = None;
    if b.get(at) == Some(&b'.') {
        let (v, used) = strtol(&b[at + 1..]);
        proc = v;
        at += 1 + used;
    }
    if b.get(at) == Some(&b'.') {
        let (v, used) = strtol(&b[at + 1..]);
        subproc = Some(v);
        at += 1 + used;
    }
    (at == b.len()).then_some((cluster, proc, subproc))
}

/// ssh_to_job.cpp's `parseArgs`; `Err` is the message (exit 2).
fn parse(words: &[String], default_shells: String) -> Result<Parsed, String> {
    let mut r = Request {
        cluster: 0,
        proc: 0,
        subproc: None,
        name: None,
        pool: None,
        ssh: "ssh".to_owned(),
        shells: default_shells,
        auto_retry: false,
        remove_on_interrupt: false,
        x11: false,
        debug: false,
        command: Vec::new(),
    };
    let mut i = 0;
    while i < words.len() {
        let word = words[i].as_str();
        let value = |i: usize| {
            words
                .get(i + 1)
                .cloned()
                .ok_or_else(|| format!("{word} requires an argument\n"))
        };
        if is_dash_arg_colon_prefix(word, "debug") {
            r.debug = true;
        } else if match_prefix(word, "-help") || word == "--help" {
            return Ok(Parsed::Help);
        } else if match_prefix(word, "-name") {
            r.name = Some(value(i)?);
            i += 1;
        } else if match_prefix(word, "-pool") {
            r.pool = Some(value(i)?);
            i += 1;
        } else if match_prefix(word, "-ssh") {
            r.ssh = value(i)?;
            i += 1;
        } else if match_prefix(word, "-keygen-options") {
            value(i)?;
            i += 1;
        } else if match_prefix(word, "-auto-retry") {
            r.auto_retry = true;
        } else if match_prefix(word, "-remove-on-interrupt") {
            r.remove_on_interrupt = true;
        } else if match_prefix(word, "-shells") {
            r.shells = value(i)?;
            i += 1;
        } else if word == "-X" {
            r.x11 = true;
        } else if word == "-x" {
            r.x11 = false;
        } else if word == "--" {
            i += 1;
            break;
        } else if word.starts_with('-') {
            // `-proxy` too: it serves ssh's ProxyCommand, and there is no ssh here.
            return Err(format!("Unrecognized argument: {word}\n"));
        } else {
            break;
        }
        i += 1;
    }
    let Some(job) = words.get(i) else {
        return Err("ERROR: You must specify a job!\n\n".to_owned());
    };
    let (cluster, proc, subproc) =
        parse_job_id(job).ok_or_else(|| format!("Invalid job id: {job}\n"))?;
    r.cluster = cluster;
    r.proc = proc;
    r.subproc = subproc;
    r.command = words[i + 1..].to_vec();
    Ok(Parsed::Run(r))
}

/// The signal that interrupted us (0 for none), with `-remove-on-interrupt`.
static CAUGHT: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    CAUGHT.store(sig, Ordering::Relaxed);
}

/// With `-remove-on-interrupt`, a signal caught: its message, the job removed, exit 1.
fn interrupted(request: &Request, err: &mut dyn Write) -> Option<CommandError> {
    let sig = CAUGHT.swap(0, Ordering::Relaxed);
    if sig == 0 {
        return None;
    }
    let name = crate::starter::signal_name(sig).unwrap_or("UNKNOWN");
    let id = request.id_text();
    let _ = writeln!(
        err,
        "Interrupted by signal {sig} ({name}), removing job {id}..."
    );
    let _ = err.flush();
    let _ = super::rm::RM.execute(
        ["condor_rm".to_owned(), id],
        &mut Vec::new(),
        &mut Vec::new(),
    );
    Some(CommandError::Exit(1))
}

/// One try: the session's exit status, or whether trying again is sensible
/// (`execute_ssh`'s `m_retry_sensible`).
fn attempt(
    session: &Session,
    request: &Request,
    first: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<std::process::ExitStatus, bool> {
    let id_text = request.id_text();
    let job_id = request.job_id();
    if first {
        // The first look at the job (ssh_to_job.cpp asks for its ad, for EC2 jobs).
        let queue = session.open_queue().map_err(|e| {
            let _ = writeln!(err, "{e}");
            false
        })?;
        let job = match job_id.map(|id| queue.job(id)) {
            Some(Ok(job)) => job,
            Some(Err(e)) => {
                let _ = writeln!(err, "{e}");
                return Err(false);
            }
            None => None,
        };
        let Some(ad) = job.and_then(|j| j.into_ad().ok()) else {
            let _ = writeln!(err, "Unable to fetch job ad; is it still in the queue?");
            return Err(false);
        };
        if lookup_int(&ad, "JobStatus") == Some(JobStatus::Held as i64) {
            match lookup_str(&ad, "HoldReason") {
                Some(reason) => {
                    let _ = writeln!(err, "The job is on hold: \"{reason}\".");
                }
                None => {
                    let _ = writeln!(err, "The job is on hold for an unknown reason.");
                }
            }
            return Err(false);
        }
    }
    let Some(id) = job_id else {
        let _ = writeln!(err, "No such job: {id_text}");
        return Err(false);
    };
    // The schedd's half.
    let info = match job_connect_info(session, id) {
        Ok(info) => info,
        Err(refusal) => {
            let finished = matches!(
                refusal.status,
                Some(s) if s == JobStatus::Completed as i64 || s == JobStatus::Removed as i64
            );
            if !refusal.retry || finished {
                let _ = writeln!(err, "{}", refusal.message);
            }
            if let Some(reason) = &refusal.hold_reason {
                let _ = writeln!(err, "Job is held: \"{reason}\".");
                return Err(false);
            }
            return Err(refusal.retry && !finished);
        }
    };
    let enabled = |knob: &str| session.config.bool(knob).ok().flatten() != Some(false);
    if !enabled("SCHEDD_ENABLE_SSH_TO_JOB") {
        let _ = writeln!(err, "Job {id} is denied by SCHEDD_ENABLE_SSH_TO_JOB.");
        return Err(false);
    }
    // The starter's half.
    let starter_failed = |err: &mut dyn Write, message: &str, retry: bool| {
        if !retry || !request.auto_retry || request.debug {
            let _ = writeln!(err, "{message}");
        }
        retry
    };
    if !enabled("ENABLE_SSH_TO_JOB") {
        return Err(starter_failed(
            err,
            "Rejecting request, because ENABLE_SSH_TO_JOB=false",
            false,
        ));
    }
    let found = super::tail::scratch_dir(session, id, info.universe)
        .and_then(|dir| job_process(&dir).map(|job| (dir, job)));
    let Some((scratch, job)) = found else {
        return Err(starter_failed(
            err,
            "Retrying request, because job not yet initialized.",
            true,
        ));
    };
    let session_dir =
        SessionDir::create(&scratch).map_err(|e| starter_failed(err, &e.to_string(), false))?;
    let mut forwarded = Vec::new();
    let stdin_tty = std::io::stdin().is_terminal();
    if request.command.is_empty() {
        if let Ok(term) = std::env::var("TERM") {
            forwarded.push(("TERM".to_owned(), term));
        }
        if !stdin_tty {
            // What ssh says (and ssh_to_job passes on) for a shell without a terminal.
            let _ = write!(
                err,
                "Pseudo-terminal will not be allocated because stdin is not a terminal.\r\n"
            );
        }
    }
    if request.x11 {
        for name in ["DISPLAY", "XAUTHORITY"] {
            if let Ok(v) = std::env::var(name) {
                forwarded.push((name.to_owned(), v));
            }
        }
    }
    let _ = err.flush();
    let session_request = SessionRequest {
        scratch: &scratch,
        job: &job,
        slot_name: info.slot_name.as_deref(),
        shells: &request.shells,
        command: (!request.command.is_empty()).then(|| request.command.join(" ")),
        forwarded,
    };
    // On a terminal the keyboard's signals are the session's (ssh's raw mode keeps them
    // from ssh_to_job); without one, `-remove-on-interrupt` still acts on them.
    if stdin_tty {
        for s in [libc::SIGINT, libc::SIGQUIT] {
            // SAFETY: setting a disposition to SIG_IGN.
            unsafe { libc::signal(s, libc::SIG_IGN) };
        }
    }
    let status = crate::starter::session::run(&session_request, out);
    drop(session_dir);
    status.map_err(|e| {
        let _ = writeln!(err, "{e}");
        false
    })
}

/// Tries, and with `-auto-retry` tries again, until a session ran: its exit status.
pub fn connect(
    session: &Session,
    request: &Request,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8, CommandError> {
    if let Err(message) = locate(session, request.name.as_deref(), request.pool.as_deref()) {
        let _ = writeln!(err, "{message}");
        return Err(CommandError::Exit(1));
    }
    let ssh = request.ssh.split_whitespace().next().unwrap_or("");
    if Path::new(ssh).file_name().and_then(|n| n.to_str()) != Some("ssh") {
        let _ = writeln!(
            err,
            "ERROR: -ssh {ssh} is not supported: the session runs on this host without ssh"
        );
        return Err(CommandError::Exit(1));
    }
    if request.remove_on_interrupt {
        super::set_wait_signals(nix::sys::signal::SigHandler::Handler(on_signal));
    }
    let mut pause = Duration::from_millis(10);
    for tries in 0.. {
        if tries == 1 {
            let _ = writeln!(err, "Waiting for job to start...");
        }
        if tries > 0 {
            std::thread::sleep(pause);
            pause = (pause * 2).min(MAX_PAUSE);
        }
        if let Some(e) = interrupted(request, err) {
            return Err(e);
        }
        match attempt(session, request, tries == 0, out, err) {
            Ok(status) => {
                if let Some(e) = interrupted(request, err) {
                    return Err(e);
                }
                return Ok(match status.code() {
                    Some(code) => code.clamp(0, 255) as u8,
                    None => 255,
                });
            }
            Err(true) if request.auto_retry => continue,
            Err(true) => {
                let _ = writeln!(err, "(Use -auto-retry to keep trying periodically.)");
                return Err(CommandError::Exit(1));
            }
            Err(false) => return Err(CommandError::Exit(1)),
        }
    }
    unreachable!("the tries do not end")
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let words = inv.raw_strings();
    let request = match parse(&words, std::env::var("SHELL").unwrap_or_default()) {
        Ok(Parsed::Help) => {
            usage(out);
            return Ok(());
        }
        Ok(Parsed::Run(r)) => r,
        Err(message) => {
            let _ = write!(err, "{message}");
            return Err(CommandError::Exit(2));
        }
    };
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    match connect(&session, &request, out, err)? {
        0 => Ok(()),
        code => Err(CommandError::Exit(code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    fn parsed(w: &[&str]) -> Result<Parsed, String> {
        parse(&words(w), "/bin/zsh".to_owned())
    }

    fn request(w: &[&str]) -> Request {
        match parsed(w) {
            Ok(Parsed::Run(r)) => r,
            other => panic!("{w:?}: {other:?}"),
        }
    }

    #[test]
    fn job_ids_are_read_as_strtol_reads_them() {
        assert_eq!(parse_job_id("12"), Some((12, 0, None)));
        assert_eq!(parse_job_id("12.3"), Some((12, 3, None)));
        assert_eq!(parse_job_id("12.3.1"), Some((12, 3, Some(1))));
        assert_eq!(parse_job_id("12."), Some((12, 0, None)));
        assert_eq!(parse_job_id("12x"), None);
        assert_eq!(parse_job_id("abc"), None);
        assert_eq!(parse_job_id("1.2.3.4"), None);
    }

    #[test]
    fn options_are_matched_as_ssh_to_job_matches_them() {
        let r = request(&["-a", "-r", "-sh", "/bin/bash,/bin/sh", "-d", "-X", "7.1"]);
        assert!(r.auto_retry && r.remove_on_interrupt && r.debug && r.x11);
        assert_eq!((r.cluster, r.proc), (7, 1));
        assert_eq!(r.shells, "/bin/bash,/bin/sh");
        assert_eq!(request(&["3"]).shells, "/bin/zsh");
        // `-s` is `-ssh`, the first of the chain it abbreviates.
        assert_eq!(request(&["-s", "ssh -v", "3"]).ssh, "ssh -v");
        assert!(request(&["-debug:D_FULLDEBUG", "3"]).debug);
        assert_eq!(parsed(&["-h"]), Ok(Parsed::Help));
        assert_eq!(parsed(&["-helpme"]), Ok(Parsed::Help));
        assert_eq!(
            parsed(&["-bogus", "3"]),
            Err("Unrecognized argument: -bogus\n".into())
        );
        assert_eq!(
            parsed(&["-name"]),
            Err("-name requires an argument\n".into())
        );
        assert_eq!(
            parsed(&["-a"]),
            Err("ERROR: You must specify a job!\n\n".into())
        );
        assert_eq!(parsed(&["1.x"]), Err("Invalid job id: 1.x\n".into()));
    }

    #[test]
    fn the_words_after_the_job_are_the_command_whatever_they_look_like() {
        let r = request(&["-x", "5", "ls", "-a", "-l"]);
        assert_eq!(r.command, words(&["ls", "-a", "-l"]));
        assert!(!r.auto_retry && !r.x11);
        let r = request(&["--", "-5"]);
        assert_eq!((r.cluster, r.command.len()), (-5, 0));
    }
}
