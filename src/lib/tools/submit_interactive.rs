//! `condor_submit -interactive`: the job HTCondor's `-interactive` queues (submit.cpp:
//! `MY.InteractiveJob = True`, the default description `$(LIBEXEC)/interactive.sub`, or the
//! user's with its command replaced by `INTERACTIVE_SUBMIT_CMD_OVERRIDE` and
//! `INTERACTIVE_SUBMIT_ARGS_OVERRIDE`), then what `condor_ssh_to_job -auto-retry
//! -remove-on-interrupt` and the starter's `condor_ssh_to_job_shell_setup` do for it, on
//! this host: wait for the job to run, then run the user's shell on this terminal in the
//! job's directory (`_CONDOR_JOB_IWD`: its scratch directory with file transfer, else its
//! `Iwd`, as the shell setup script chooses) with the job's environment (read from the job's
//! process). While the
//! shell runs, the job's own command stays alive (the session directory
//! `.condor_ssh_to_job_1` it waits on is there); when the shell exits, the job is removed
//! and condor_submit exits with the shell's status.

use std::io::{IsTerminal, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use crate::client::Session;
use crate::error::CommandError;
use crate::queue::JobId;

/// HTCondor's `src/condor_examples/interactive.sub`, the job `-interactive` queues when no
/// submit file is given and `INTERACTIVE_SUBMIT_FILE` names no file (condorlite installs
/// none).
pub const INTERACTIVE_SUB: &str = "\
universe = vanilla
executable = /bin/sh
arguments = \"-c 'sleep 180 && while test -d ${_CONDOR_SCRATCH_DIR}/.condor_ssh_to_job_1; do /bin/sleep 3; done'\"
environment = \"TMOUT=7200\"
transfer_executable = false
notification = never
priority = 1000
request_memory = 512m
queue
";

/// The session directory the interactive job's command waits on.
const SESSION_DIR: &str = ".condor_ssh_to_job_1";

/// How often `Waiting for job to start...` is said (ssh_to_job's retry delay).
const RETRY_DELAY: Duration = Duration::from_secs(5);

/// The signal that interrupted the wait (0 for none).
static CAUGHT: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    CAUGHT.store(sig, Ordering::Relaxed);
}

/// `-remove-on-interrupt`: SIGINT, SIGHUP, SIGTERM and SIGQUIT remove the job.
fn catch_signals(handler: nix::sys::signal::SigHandler) {
    super::set_wait_signals(handler);
}

fn remove_job(id: JobId) {
    let _ = super::rm::RM.execute(
        ["condor_rm".to_owned(), id.to_string()],
        &mut Vec::new(),
        &mut Vec::new(),
    );
}

/// The running job as the session finds it: its scratch directory, its process's
/// environment, and its slot (`RemoteHost`).
struct Found {
    scratch: PathBuf,
    env: Vec<(String, String)>,
    slot: Option<String>,
}

/// The job's process: its scratch directory (`$(EXECUTE)/dir_<C>_<P>_*`) and environment.
fn job_process(execute: &Path, id: JobId) -> Option<(PathBuf, Vec<(String, String)>)> {
    let prefix = format!(
        "_CONDOR_SCRATCH_DIR={}/dir_{}_{}_",
        execute.display(),
        id.cluster.0,
        id.proc
    );
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        if entry.file_name().to_string_lossy().parse::<i32>().is_err() {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let vars: Vec<&[u8]> = environ.split(|&b| b == 0).collect();
        let Some(scratch) = vars.iter().find_map(|v| {
            let v = String::from_utf8_lossy(v);
            v.starts_with(&prefix)
                .then(|| v["_CONDOR_SCRATCH_DIR=".len()..].to_owned())
        }) else {
            continue;
        };
        let env = vars
            .iter()
            .filter_map(|v| {
                let v = String::from_utf8_lossy(v);
                v.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned()))
            })
            .collect();
        return Some((PathBuf::from(scratch), env));
    }
    None
}

/// Waits for job `id` to run and its process to be there; `Err` with the message when it
/// cannot (it left the queue, was held, or a signal came).
fn wait_for_job(
    session: &Session,
    id: JobId,
    execute: &Path,
    err: &mut dyn Write,
) -> Result<Found, String> {
    let start = Instant::now();
    let mut said = 0;
    let mut pause = Duration::from_millis(5);
    loop {
        let sig = CAUGHT.load(Ordering::Relaxed);
        if sig != 0 {
            let name = crate::starter::signal_name(sig).unwrap_or("UNKNOWN");
            return Err(format!(
                "Interrupted by signal {sig} ({name}), removing job {id}...\n"
            ));
        }
        let queue = session.open_queue().map_err(|e| format!("{e}\n"))?;
        let job = queue.job(id).map_err(|e| format!("{e}\n"))?;
        let slot = job.as_ref().and_then(|j| {
            let ad = j.ad().ok()?;
            crate::output::render::lookup_str(ad, "RemoteHost").map(|s| s.to_string())
        });
        match job.map(|j| j.status_code()) {
            None => return Err(format!("Job {id} is no longer in the queue.\n")),
            Some(5) => return Err(format!("Job {id} is on hold.\n")),
            Some(3) | Some(4) => return Err(format!("Job {id} is not running.\n")),
            Some(2) => {
                if let Some((scratch, env)) = job_process(execute, id) {
                    return Ok(Found { scratch, env, slot });
                }
            }
            _ => {}
        }
        let waited = start.elapsed().as_secs() / RETRY_DELAY.as_secs();
        if waited > said {
            said = waited;
            let _ = writeln!(err, "Waiting for job to start...");
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// The shell to run: the user's `SHELL`, else the login shell, else `/bin/sh`.
fn user_shell() -> String {
    if let Ok(s) = std::env::var("SHELL") {
        if !s.is_empty() {
            return s;
        }
    }
    nix::unistd::User::from_uid(nix::unistd::geteuid())
        .ok()
        .flatten()
        .map(|u| u.shell.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/bin/sh".into())
}

/// After the job of `cluster` was queued: the session (see the module documentation).
pub fn session(session: &Session, cluster: i64, err: &mut dyn Write) -> Result<(), CommandError> {
    let id = JobId::new(cluster as i32, 0);
    let config = &session.config;
    if !crate::client::master::is_running(config) {
        remove_job(id);
        let _ = writeln!(
            err,
            "ERROR: job {id} cannot start: -interactive needs the pool's condor_master (the job was removed)\n{}",
            crate::client::master::start_hint(config)
        );
        return Err(CommandError::Exit(1));
    }
    let execute = config
        .string("EXECUTE")
        .ok()
        .flatten()
        .map(PathBuf::from)
        .unwrap_or_default();
    let execute = std::path::absolute(&execute).unwrap_or(execute);
    catch_signals(nix::sys::signal::SigHandler::Handler(on_signal));
    let Found { scratch, env, slot } = match wait_for_job(session, id, &execute, err) {
        Ok(found) => found,
        Err(msg) => {
            let _ = write!(err, "{msg}");
            remove_job(id);
            return Err(CommandError::Exit(1));
        }
    };
    let session_dir = scratch.join(SESSION_DIR);
    let _ = std::fs::create_dir(&session_dir);
    let get = |name: &str| {
        env.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    // condor_ssh_to_job_shell_setup: into the job's directory, then the greeting.
    let dir = [
        get("_CONDOR_JOB_IWD"),
        Some(scratch.to_string_lossy().into()),
    ]
    .into_iter()
    .flatten()
    .map(PathBuf::from)
    .find(|d| d.is_dir())
    .unwrap_or_else(|| scratch.clone());
    let stdin_tty = std::io::stdin().is_terminal();
    if !stdin_tty {
        // What ssh says (and condor_ssh_to_job passes on) for a session without a terminal.
        let _ = write!(
            err,
            "Pseudo-terminal will not be allocated because stdin is not a terminal.\r\n"
        );
    }
    let mut out = std::io::stdout();
    let _ = err.flush();
    if let Some(slot) = slot.or_else(|| get("_CONDOR_SLOT")) {
        let _ = writeln!(out, "Welcome to {slot}!");
    }
    if let Some(pids) = get("_CONDOR_JOB_PIDS") {
        let _ = writeln!(out, "Your condor job is running with pid(s) {pids}.");
    }
    if let Some(t) = get("TMOUT") {
        let _ = writeln!(
            out,
            "You will be logged out after {t} seconds of inactivity."
        );
    }
    let _ = out.flush();

    let shell = user_shell();
    let login_name = format!(
        "-{}",
        Path::new(&shell)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sh".into())
    );
    let mut command = std::process::Command::new(&shell);
    command
        .arg0(login_name)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("SHELL", &shell)
        .current_dir(&dir);
    if let Ok(term) = std::env::var("TERM") {
        command.env("TERM", term);
    }
    // SAFETY: only `signal`, which is async-signal-safe, runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            for s in [libc::SIGINT, libc::SIGHUP, libc::SIGTERM, libc::SIGQUIT] {
                libc::signal(s, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    // The terminal's signals are the shell's while it runs.
    catch_signals(nix::sys::signal::SigHandler::SigIgn);
    let status = command.status();
    catch_signals(nix::sys::signal::SigHandler::SigDfl);
    let _ = std::fs::remove_dir_all(&session_dir);
    remove_job(id);
    match status {
        Ok(s) => match s.code() {
            Some(0) => Ok(()),
            Some(code) => Err(CommandError::Exit(code.clamp(0, 255) as u8)),
            None => Err(CommandError::Exit(255)),
        },
        Err(e) => {
            let _ = writeln!(err, "ERROR: Failed to run the shell {shell}: {e}");
            Err(CommandError::Exit(1))
        }
    }
}
