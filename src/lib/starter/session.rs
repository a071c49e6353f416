//! The starter's half of `condor_ssh_to_job` on this host: a shell, or a command, in a
//! running job's sandbox, as HTCondor 24.0's starter (`Starter::startSSHD`), its
//! `condor_ssh_to_job_sshd_setup` and `condor_ssh_to_job_shell_setup` make one, without
//! sshd in between:
//!
//! - The job is found by its waiter's record in its scratch directory: the job's process,
//!   taken only while its waiter runs and when its environment says it is this job's
//!   (`_CONDOR_SCRATCH_DIR`). Its environment is the session's (the job environment
//!   `GetJobEnv` gives sshd), with what the starter adds for a session: `_CONDOR_SLOT_NAME`,
//!   `_CONDOR_JOB_PIDS` (the job's pid; cleared for an `InteractiveJob`, whose placeholder
//!   command the shell setup kills), `_CONDOR_SHELL` (the first of the requested shells that
//!   can be run), without the job's `DISPLAY` (sshd_setup unsets it); sshd's own variables
//!   (`USER`, `LOGNAME`, `HOME` the scratch directory and `SHELL` `/bin/sh`, as the fake
//!   password entry gives them, a standard `PATH`) come first, the job's over them, and the
//!   shell setup appends `/bin:/usr/bin` to `PATH`.
//! - Each session has its directory `.condor_ssh_to_job_<n>` (the first free `n`) in the
//!   scratch directory while it lasts, as sshd_setup makes one.
//! - The session runs in `_CONDOR_JOB_IWD`, else the scratch directory (the first that is a
//!   directory); with no command it greets (`Welcome to <slot>!`, the job's pids, the idle
//!   timeout `TMOUT`) and runs `_CONDOR_SHELL`, else `SHELL`, as a login shell; a command is
//!   `eval`ed by `/bin/bash` (the shell setup's interpreter; `/bin/sh` where there is no
//!   bash), as `SSH_ORIGINAL_COMMAND`.
//! - It runs as the job's user: the owner of the job's process. Today every job runs as the
//!   master's user, so that is the caller; a caller who is root switches to the job's uid and
//!   gid first, and any other caller is refused.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use super::env::JOB_AD_FILE;
use super::waiter::WaiterId;
use crate::classad::parser::parse_old_ad;
use crate::output::render::lookup_bool;

/// The variable the starter sets to the job's scratch directory.
const SCRATCH_VAR: &str = "_CONDOR_SCRATCH_DIR";

/// sshd's `PATH` for a user (OpenSSH's `_PATH_STDPATH`).
const SSHD_PATH: &str = "/usr/bin:/bin:/usr/sbin:/sbin";

/// The bound on a job process's environment as read from `/proc`.
const ENVIRON_LIMIT: u64 = 4 << 20;

/// A running job's process, as a session sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobProcess {
    pub pid: i32,
    /// Whom it runs as.
    pub uid: u32,
    pub gid: u32,
    /// Its environment, in order.
    pub env: Vec<(String, String)>,
}

/// The job that runs in scratch directory `scratch` (see the module documentation); `None`
/// while there is none (not started yet, or ended).
pub fn job_process(scratch: &Path) -> Option<JobProcess> {
    let waiter = WaiterId::read(scratch).filter(WaiterId::is_alive)?;
    let pid = waiter.job_pid;
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    let meta = std::fs::metadata(&proc_dir).ok()?;
    let environ = std::fs::File::open(proc_dir.join("environ"))
        .and_then(|f| crate::bounded::read_to_end(f, ENVIRON_LIMIT))
        .ok()?;
    let env: Vec<(String, String)> = environ
        .split(|&b| b == 0)
        .filter_map(|v| {
            let v = String::from_utf8_lossy(v);
            v.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned()))
        })
        .collect();
    let scratch = scratch.to_string_lossy();
    // Before its exec, the process is the waiter's child with the daemon's environment.
    env.iter()
        .any(|(k, v)| k == SCRATCH_VAR && *v == scratch)
        .then_some(JobProcess {
            pid,
            uid: meta.uid(),
            gid: meta.gid(),
            env,
        })
}

/// A session's directory in the job's scratch directory, removed when dropped.
#[derive(Debug)]
pub struct SessionDir(PathBuf);

impl SessionDir {
    /// `.condor_ssh_to_job_<n>`, the first `n` not taken (sshd_setup's loop), at most a
    /// thousand tries.
    pub fn create(scratch: &Path) -> io::Result<SessionDir> {
        for n in 1..=1000 {
            let dir = scratch.join(format!(".condor_ssh_to_job_{n}"));
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    // The session may outlive the job: its directory is not used again.
                    if let Err(e) = super::waiter::mark_session(scratch) {
                        let _ = std::fs::remove_dir(&dir);
                        return Err(io::Error::new(
                            e.kind(),
                            format!("Failed to mark {}: {e}", scratch.display()),
                        ));
                    }
                    return Ok(SessionDir(dir));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("Failed to create {}: {e}", dir.display()),
                    ))
                }
            }
        }
        Err(io::Error::other(format!(
            "Failed to create a session directory in {}",
            scratch.display()
        )))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for SessionDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the session is asked for.
#[derive(Debug, Clone)]
pub struct SessionRequest<'a> {
    pub scratch: &'a Path,
    pub job: &'a JobProcess,
    /// The job's slot (`RemoteHost`), for `_CONDOR_SLOT_NAME`.
    pub slot_name: Option<&'a str>,
    /// The shells to try, comma-separated (`-shells`, else the caller's `SHELL`).
    pub shells: &'a str,
    /// The command's words, joined as ssh joins them; `None` for a shell.
    pub command: Option<String>,
    /// The caller's variables the connection carries (`TERM` for a terminal, `DISPLAY` and
    /// `XAUTHORITY` for `-X`), set before the job's.
    pub forwarded: Vec<(String, String)>,
}

/// Whether the job is an interactive job (`InteractiveJob = true` in its `.job.ad`).
fn is_interactive_job(scratch: &Path) -> bool {
    crate::bounded::read_file(scratch.join(JOB_AD_FILE))
        .ok()
        .and_then(|text| parse_old_ad(&String::from_utf8_lossy(&text)).ok())
        .is_some_and(|ad| lookup_bool(&ad, "InteractiveJob") == Some(true))
}

/// Whether `path` is a file this process may execute (`access(X_OK)`).
fn executable(path: &str) -> bool {
    nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).is_ok()
}

/// The user name of `uid`, if it has one.
fn user_name(uid: u32) -> Option<String> {
    nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
        .ok()
        .flatten()
        .map(|u| u.name)
}

fn set(env: &mut Vec<(String, String)>, name: &str, value: &str) {
    env.retain(|(k, _)| k != name);
    env.push((name.to_owned(), value.to_owned()));
}

/// The session's environment (see the module documentation).
pub fn environment(req: &SessionRequest<'_>) -> Vec<(String, String)> {
    let scratch = req.scratch.to_string_lossy();
    let mut env: Vec<(String, String)> = Vec::new();
    if let Some(name) = user_name(req.job.uid) {
        set(&mut env, "USER", &name);
        set(&mut env, "LOGNAME", &name);
    }
    set(&mut env, "HOME", &scratch);
    set(&mut env, "SHELL", "/bin/sh");
    set(&mut env, "PATH", SSHD_PATH);
    for (k, v) in &req.forwarded {
        set(&mut env, k, v);
    }
    if let Some(command) = &req.command {
        set(&mut env, "SSH_ORIGINAL_COMMAND", command);
    }
    for (k, v) in req.job.env.iter().filter(|(k, _)| k != "DISPLAY") {
        set(&mut env, k, v);
    }
    if let Some(slot) = req.slot_name.filter(|s| !s.is_empty()) {
        set(&mut env, "_CONDOR_SLOT_NAME", slot);
    }
    let pids = if is_interactive_job(req.scratch) {
        String::new()
    } else {
        req.job.pid.to_string()
    };
    set(&mut env, "_CONDOR_JOB_PIDS", &pids);
    if let Some(shell) = req
        .shells
        .split(',')
        .map(str::trim)
        .find(|s| !s.is_empty() && executable(s))
    {
        set(&mut env, "_CONDOR_SHELL", shell);
    }
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    set(&mut env, "PATH", &format!("{path}:/bin:/usr/bin"));
    env
}

fn get<'e>(env: &'e [(String, String)], name: &str) -> Option<&'e str> {
    env.iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

/// Where the session starts: `_CONDOR_JOB_IWD`, else `_CONDOR_SCRATCH_DIR`, the first that is
/// a directory (the shell setup's `cd` loop).
pub fn working_dir(env: &[(String, String)], scratch: &Path) -> PathBuf {
    [get(env, "_CONDOR_JOB_IWD"), get(env, SCRATCH_VAR)]
        .into_iter()
        .flatten()
        .map(PathBuf::from)
        .find(|d| d.is_dir())
        .unwrap_or_else(|| scratch.to_path_buf())
}

/// The shell setup's greeting for a session without a command.
pub fn greeting(env: &[(String, String)]) -> String {
    let mut text = String::new();
    if let Some(slot) = get(env, "_CONDOR_SLOT_NAME") {
        text.push_str(&format!("Welcome to {slot}!\n"));
    }
    if let Some(pids) = get(env, "_CONDOR_JOB_PIDS") {
        text.push_str(&format!("Your condor job is running with pid(s) {pids}.\n"));
    }
    if let Some(t) = get(env, "TMOUT") {
        text.push_str(&format!(
            "You will be logged out after {t} seconds of inactivity.\n"
        ));
    }
    text
}

/// Makes `command` run as the job's user (see the module documentation).
fn as_job_user(command: &mut Command, job: &JobProcess) -> io::Result<()> {
    let me = nix::unistd::geteuid().as_raw();
    if job.uid == me {
        return Ok(());
    }
    if me == 0 {
        command.uid(job.uid).gid(job.gid);
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "the job runs as uid {}, and this user (uid {me}) cannot switch to it",
            job.uid
        ),
    ))
}

/// The session's program: the command `eval`ed by the shell setup's shell, or the login shell.
fn program(env: &[(String, String)], has_command: bool) -> (String, Vec<String>, Option<String>) {
    if has_command {
        let bash = if executable("/bin/bash") {
            "/bin/bash"
        } else {
            "/bin/sh"
        };
        let args = vec!["-c".to_owned(), "eval ${SSH_ORIGINAL_COMMAND}".to_owned()];
        return (bash.to_owned(), args, None);
    }
    let shell = get(env, "_CONDOR_SHELL")
        .or_else(|| get(env, "SHELL"))
        .unwrap_or("/bin/sh")
        .to_owned();
    // `exec -l`: a login shell is told so by a `-` before its name.
    let login = format!(
        "-{}",
        Path::new(&shell)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sh".into())
    );
    (shell, Vec::new(), Some(login))
}

/// Runs the session on this process's standard streams (the greeting written to `out`
/// first) and waits for it; the terminal's signals are the session's defaults.
pub fn run(req: &SessionRequest<'_>, out: &mut dyn io::Write) -> io::Result<ExitStatus> {
    let env = environment(req);
    let dir = working_dir(&env, req.scratch);
    if req.command.is_none() {
        out.write_all(greeting(&env).as_bytes())?;
    }
    out.flush()?;
    let (program, args, arg0) = program(&env, req.command.is_some());
    let mut command = Command::new(&program);
    command
        .args(&args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(&dir);
    if let Some(arg0) = arg0 {
        command.arg0(arg0);
    }
    as_job_user(&mut command, req.job)?;
    // SAFETY: only `signal`, which is async-signal-safe, runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            for s in [libc::SIGINT, libc::SIGHUP, libc::SIGTERM, libc::SIGQUIT] {
                libc::signal(s, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    command
        .status()
        .map_err(|e| io::Error::new(e.kind(), format!("Failed to run {program}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(env: &[(&str, &str)]) -> JobProcess {
        JobProcess {
            pid: 4242,
            uid: nix::unistd::geteuid().as_raw(),
            gid: nix::unistd::getegid().as_raw(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn the_environment_is_the_jobs_over_sshds_with_the_starters_additions() {
        let tmp = tempfile::tempdir().unwrap();
        let scratch = tmp.path();
        let j = job(&[
            ("_CONDOR_SCRATCH_DIR", &scratch.to_string_lossy()),
            ("PATH", "/opt/job/bin"),
            ("DISPLAY", ":7"),
            ("TMOUT", "60"),
            ("_CONDOR_JOB_PIDS", ""),
        ]);
        let req = SessionRequest {
            scratch,
            job: &j,
            slot_name: Some("slot1_1@host"),
            shells: "/nonexistent/zsh,/bin/sh",
            command: Some("ls -l".into()),
            forwarded: vec![
                ("DISPLAY".into(), ":0".into()),
                ("TERM".into(), "xterm".into()),
            ],
        };
        let env = environment(&req);
        assert_eq!(get(&env, "PATH"), Some("/opt/job/bin:/bin:/usr/bin"));
        assert_eq!(get(&env, "DISPLAY"), Some(":0"));
        assert_eq!(get(&env, "TERM"), Some("xterm"));
        assert_eq!(get(&env, "HOME"), Some(&*scratch.to_string_lossy()));
        assert_eq!(get(&env, "SHELL"), Some("/bin/sh"));
        assert_eq!(get(&env, "_CONDOR_SHELL"), Some("/bin/sh"));
        assert_eq!(get(&env, "_CONDOR_JOB_PIDS"), Some("4242"));
        assert_eq!(get(&env, "_CONDOR_SLOT_NAME"), Some("slot1_1@host"));
        assert_eq!(get(&env, "SSH_ORIGINAL_COMMAND"), Some("ls -l"));
        assert_eq!(
            greeting(&env),
            "Welcome to slot1_1@host!\nYour condor job is running with pid(s) 4242.\n\
             You will be logged out after 60 seconds of inactivity.\n"
        );
        // An interactive job's placeholder is not the user's job.
        std::fs::write(scratch.join(JOB_AD_FILE), "InteractiveJob = true\n").unwrap();
        assert_eq!(get(&environment(&req), "_CONDOR_JOB_PIDS"), None);
    }

    #[test]
    fn the_session_starts_in_the_jobs_iwd_else_its_scratch_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let scratch = tmp.path().join("scratch");
        std::fs::create_dir(&scratch).unwrap();
        let env = |iwd: &str| {
            vec![
                ("_CONDOR_JOB_IWD".to_owned(), iwd.to_owned()),
                (
                    SCRATCH_VAR.to_owned(),
                    scratch.to_string_lossy().into_owned(),
                ),
            ]
        };
        assert_eq!(
            working_dir(&env(&tmp.path().to_string_lossy()), &scratch),
            tmp.path()
        );
        assert_eq!(working_dir(&env("/nonexistent/iwd"), &scratch), scratch);
    }

    #[test]
    fn session_directories_are_numbered_from_one_and_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let first = SessionDir::create(tmp.path()).unwrap();
        let second = SessionDir::create(tmp.path()).unwrap();
        assert!(first.path().ends_with(".condor_ssh_to_job_1"));
        assert!(second.path().ends_with(".condor_ssh_to_job_2"));
        drop(first);
        assert!(!tmp.path().join(".condor_ssh_to_job_1").exists());
        assert!(SessionDir::create(tmp.path())
            .unwrap()
            .path()
            .ends_with(".condor_ssh_to_job_1"));
    }
}
