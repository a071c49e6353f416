//! Starting the job: the scratch directory, the standard files, the command line, the spawn
//! (`Starter::createTempExecuteDir`, `JICShadow::initWithFileTransfer`, `OsProc::StartJob`,
//! `UserProc::openStdFile`), and signals to the job's process group.

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use nix::errno::Errno;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

use crate::classad::unparse::ad_to_old;
use crate::classad::{ClassAd, Expr};
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::submit::argenv::{append_arg, split_args};

use super::checkpoint::{self, CheckpointPlan};
use super::chirp;
use super::container;
use super::env::{self, EnvContext, JOB_AD_FILE, MACHINE_AD_FILE};
use super::finish::{FinishPlan, Previous};
use super::hold_codes::*;
use super::identity::{self, Account, AccountError};
use super::rights::Rights;
use super::scratch::write_file;
use super::transfer::{self, Direction, Endpoints, OutputPlan};
use super::waiter::{self, Spawned, WaiterId};
use super::{RunningJob, StartFailure, StartRequest};

/// The sandbox name of the job's standard output with file transfer (`StdoutRemapName`).
pub const STDOUT_NAME: &str = "_condor_stdout";
/// The sandbox name of the job's standard error with file transfer (`StderrRemapName`).
pub const STDERR_NAME: &str = "_condor_stderr";

/// HTCondor's signal names (src/condor_utils/sig_name.cpp).
const SIGNALS: &[(i32, &str)] = &[
    (libc::SIGKILL, "SIGKILL"),
    (libc::SIGCONT, "SIGCONT"),
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGQUIT, "SIGQUIT"),
    (libc::SIGHUP, "SIGHUP"),
    (libc::SIGSTOP, "SIGSTOP"),
    (libc::SIGTSTP, "SIGTSTP"),
    (libc::SIGUSR1, "SIGUSR1"),
    (libc::SIGUSR2, "SIGUSR2"),
    (libc::SIGCHLD, "SIGCHLD"),
    (libc::SIGABRT, "SIGABRT"),
    (libc::SIGALRM, "SIGALRM"),
    (libc::SIGFPE, "SIGFPE"),
    (libc::SIGILL, "SIGILL"),
    (libc::SIGINT, "SIGINT"),
    (libc::SIGPIPE, "SIGPIPE"),
    (libc::SIGSEGV, "SIGSEGV"),
    (libc::SIGTRAP, "SIGTRAP"),
    (libc::SIGTTIN, "SIGTTIN"),
    (libc::SIGTTOU, "SIGTTOU"),
    (libc::SIGIO, "SIGIO"),
    (libc::SIGBUS, "SIGBUS"),
    (libc::SIGURG, "SIGURG"),
    (libc::SIGPROF, "SIGPROF"),
    (libc::SIGWINCH, "SIGWINCH"),
    (libc::SIGSYS, "SIGSYS"),
    (libc::SIGXCPU, "SIGXCPU"),
    (libc::SIGXFSZ, "SIGXFSZ"),
];

/// `signalNumber`: a signal's number from its name (`SIGTERM`, any case).
pub fn signal_number(name: &str) -> Option<i32> {
    SIGNALS
        .iter()
        .find(|(_, n)| n.eq_ignore_ascii_case(name))
        .map(|&(s, _)| s)
}

/// `signalName`: a signal's name, when HTCondor knows it.
pub fn signal_name(sig: i32) -> Option<&'static str> {
    SIGNALS.iter().find(|&&(s, _)| s == sig).map(|&(_, n)| n)
}

/// `findSignal`: a number (`KillSig = 2`) or a name (`KillSig = "SIGINT"`); `None` when the
/// attribute is missing or names no signal (a number that is not a signal counts as none).
pub(super) fn find_signal(job: &ClassAd, attr: &str) -> Option<i32> {
    if let Some(n) = lookup_int(job, attr) {
        return i32::try_from(n).ok().filter(|&s| s > 0);
    }
    lookup_str(job, attr).and_then(|s| signal_number(&s))
}

/// Sends `sig` to process group `pgid`; a group that no longer exists is not an error.
pub(super) fn signal_group(pgid: i32, sig: i32) -> io::Result<()> {
    if pgid <= 1 {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let signal = Signal::try_from(sig).map_err(io::Error::from)?;
    match killpg(Pid::from_raw(pgid), signal) {
        Ok(()) | Err(Errno::ESRCH) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// `strerror`, as glibc words it.
pub(super) fn strerror(errno: i32) -> &'static str {
    Errno::from_raw(errno).desc()
}

/// The errno of an I/O error (0 when it has none).
pub(super) fn errno_of(e: &io::Error) -> i32 {
    e.raw_os_error().unwrap_or(0)
}

/// `nullFile`: the file that means "none".
pub(super) fn is_null_file(name: &str) -> bool {
    name.is_empty() || name == "/dev/null"
}

/// `condor_basename`.
pub(super) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Removes the scratch directory of a job that did not start.
struct ScratchGuard<'a> {
    dir: Option<&'a Path>,
}

impl Drop for ScratchGuard<'_> {
    fn drop(&mut self) {
        if let Some(dir) = self.dir {
            super::scratch::remove_scratch(dir);
        }
    }
}

/// What a standard file of the job is opened from.
#[derive(Debug)]
enum StdFile {
    Null,
    /// A file opened as HTCondor's starter opens it (hold codes 7/8).
    Path(PathBuf),
    /// A streamed file (hold codes 9/10).
    Stream(PathBuf),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    In,
    Out,
    Err,
}

impl Which {
    fn phrase(self) -> &'static str {
        match self {
            Which::In => "standard input",
            Which::Out => "standard output",
            Which::Err => "standard error",
        }
    }
}

/// `UserProc::openStdFile`. `append_only` is `VanillaProc::outputOpenFlags` without
/// `O_TRUNC`: a job that checkpoints keeps what it wrote before its restart.
fn open_std(
    which: Which,
    file: &StdFile,
    append_only: bool,
    err_from: &dyn Fn(&str) -> String,
) -> Result<OwnedFd, StartFailure> {
    let (path, stream) = match file {
        StdFile::Null => return open_null(which == Which::In, err_from),
        StdFile::Path(p) => (p, false),
        StdFile::Stream(p) => (p, true),
    };
    // Opened without blocking (a FIFO with no one at its other end must not stall the
    // daemon), then made blocking again for the job.
    let opened = if which == Which::In {
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
    } else {
        // O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0666; again without O_TRUNC on failure.
        let open = |truncate: bool| {
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(truncate)
                .custom_flags(libc::O_APPEND | libc::O_NONBLOCK)
                .mode(0o666)
                .open(path)
        };
        if append_only {
            open(false)
        } else {
            open(true).or_else(|_| open(false))
        }
    };
    let opened = opened.and_then(|f| {
        let flags = nix::fcntl::fcntl(f.as_raw_fd(), nix::fcntl::FcntlArg::F_GETFL)?;
        let blocking = nix::fcntl::OFlag::from_bits_truncate(flags) - nix::fcntl::OFlag::O_NONBLOCK;
        nix::fcntl::fcntl(f.as_raw_fd(), nix::fcntl::FcntlArg::F_SETFL(blocking))?;
        Ok(f)
    });
    match opened {
        Ok(f) => Ok(OwnedFd::from(f)),
        Err(_) if stream => {
            let code = if which == Which::In {
                UNABLE_TO_OPEN_INPUT_STREAM
            } else {
                UNABLE_TO_OPEN_OUTPUT_STREAM
            };
            Err(StartFailure::new(
                err_from(&format!("unable to establish {} stream", which.phrase())),
                code,
                0,
            ))
        }
        Err(e) => {
            let errno = errno_of(&e);
            let code = if which == Which::In {
                UNABLE_TO_OPEN_INPUT
            } else {
                UNABLE_TO_OPEN_OUTPUT
            };
            Err(StartFailure::new(
                err_from(&format!(
                    "Failed to open '{}' as {}: {} (errno {errno})",
                    path.display(),
                    which.phrase(),
                    strerror(errno)
                )),
                code,
                errno as i64,
            ))
        }
    }
}

/// `ArgList::AppendArgsFromClassAd`: `Arguments` (V2 raw), else `Args` (V1 raw, split on
/// whitespace).
pub(super) fn job_arguments(job: &ClassAd) -> Result<Vec<String>, String> {
    let mut args = Vec::new();
    if let Some(v2) = lookup_str(job, "Arguments") {
        split_args(&v2, &mut args)?;
    } else if let Some(v1) = lookup_str(job, "Args") {
        args.extend(
            v1.split([' ', '\t', '\n', '\r'])
                .filter(|a| !a.is_empty())
                .map(str::to_owned),
        );
    }
    Ok(args)
}

/// The text after `Failed to execute '...'` for a spawn that failed (`Create_Process`'s
/// error message and `(errno=N: 'text')`).
fn exec_error_text(cmd: &Path, e: &io::Error) -> String {
    let Some(errno) = e.raw_os_error() else {
        return e.to_string();
    };
    let mut text = String::new();
    if errno == libc::ENOENT {
        if let Some(interp) = script_interpreter(cmd) {
            text = format!("invalid interpreter ({interp}) specified on first line of script ");
        }
    }
    text.push_str(&format!("(errno={errno}: '{}')", strerror(errno)));
    text
}

/// The interpreter a `#!` script names, when the script itself is there to read: the reason
/// for an `ENOENT` from exec when the file exists.
fn script_interpreter(cmd: &Path) -> Option<String> {
    let mut buf = [0u8; 1024];
    let n = File::open(cmd).ok()?.read(&mut buf).ok()?;
    let head = buf[..n].strip_prefix(b"#!")?;
    let text = String::from_utf8_lossy(head);
    let interp = text
        .trim_start()
        .split(|c: char| c.is_ascii_whitespace())
        .next()?;
    Some(interp.to_owned())
}

/// `ShouldTransferFiles`: YES, or IF_NEEDED with a `FileSystemDomain` other than this host's
/// (or none).
fn wants_file_transfer(req: &StartRequest<'_>) -> bool {
    let should = lookup_str(req.job, "ShouldTransferFiles").unwrap_or_default();
    if should.eq_ignore_ascii_case("YES") {
        return true;
    }
    if !should.eq_ignore_ascii_case("IF_NEEDED") {
        return false;
    }
    let ours = req
        .config
        .string("FILESYSTEM_DOMAIN")
        .ok()
        .flatten()
        .unwrap_or_default();
    match lookup_str(req.job, "FileSystemDomain") {
        Some(theirs) => !theirs.eq_ignore_ascii_case(&ours),
        None => true,
    }
}

/// The access point's name in transfer messages (`get_local_hostname`).
fn local_hostname(req: &StartRequest<'_>) -> String {
    if let Some(h) = req.config.string("HOSTNAME").ok().flatten() {
        return h;
    }
    nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .map(|h| h.split('.').next().unwrap_or_default().to_owned())
        .unwrap_or_else(|| "localhost".into())
}

/// A path made absolute against the current directory (the daemon's).
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// `/dev/null`, for reading or for writing.
fn open_null(input: bool, err_from: &dyn Fn(&str) -> String) -> Result<OwnedFd, StartFailure> {
    OpenOptions::new()
        .read(input)
        .write(!input)
        .open("/dev/null")
        .map(OwnedFd::from)
        .map_err(|e| {
            StartFailure::new(
                err_from(&format!("Failed to open '/dev/null': {e}")),
                JOB_NOT_STARTED,
                0,
            )
        })
}

/// Opens the job's standard input, output and error, with the rights of the user the job
/// runs as (`account`; the daemon's own when `None`), never the daemon's on its behalf.
fn open_std_files(
    files: &[StdFile; 3],
    append_only: bool,
    account: Option<&Account>,
    err_from: &dyn Fn(&str) -> String,
) -> Result<[OwnedFd; 3], StartFailure> {
    let open = || {
        Ok([
            open_std(Which::In, &files[0], append_only, err_from)?,
            open_std(Which::Out, &files[1], append_only, err_from)?,
            open_std(Which::Err, &files[2], append_only, err_from)?,
        ])
    };
    identity::as_user(account, open).map_err(|e| account_failure(account, &e))?
}

/// The job's owner's rights could not be taken.
fn account_failure(account: Option<&Account>, e: &io::Error) -> StartFailure {
    let name = account.map_or("", |a| a.name.as_str());
    tracing::error!("cannot take the rights of user {name}: {e}");
    unable_to_switch(name)
}

/// The hold of a job whose owner's account cannot be used, as HTCondor's schedd words it
/// (`FailedToAccessUserAccount`, schedd.cpp).
pub(super) fn unable_to_switch(owner: &str) -> StartFailure {
    StartFailure::new(
        format!("Unable to switch to user: {owner}"),
        FAILED_TO_ACCESS_USER_ACCOUNT,
        0,
    )
}

/// The account a job runs as ([`identity::job_account`]): an owner with no local account,
/// or root, holds the job as HTCondor's schedd does when it cannot switch to the owner
/// (`FailedToAccessUserAccount`, "Unable to switch to user: <owner>").
fn job_account(req: &StartRequest<'_>) -> Result<Option<Account>, StartFailure> {
    let owner = lookup_str(req.job, "Owner").unwrap_or_default();
    identity::job_account(&owner, req.config).map_err(|e| {
        tracing::warn!("job of {owner}: {e}");
        unable_to_switch(&owner)
    })
}

/// What a job runs, where: what a failed start names.
#[derive(Debug)]
pub(super) struct Program {
    slot_name: String,
    cmd: PathBuf,
    args: Vec<String>,
    /// Whose rights a failed start's program is read with (its `#!` line).
    account: Option<Account>,
}

impl Program {
    /// The program of `job` (a job an earlier daemon started: what its start would have
    /// been named by).
    pub(super) fn of(job: &ClassAd, slot_name: String, account: Option<Account>) -> Program {
        Program {
            slot_name,
            cmd: PathBuf::from(&*lookup_str(job, "Cmd").unwrap_or_default()),
            args: job_arguments(job).unwrap_or_default(),
            account,
        }
    }

    /// `Error from <slot>: <msg>`: the shadow's words for an error from the starter.
    fn err_from(&self, msg: &str) -> String {
        format!("Error from {}: {msg}", self.slot_name)
    }

    /// The starter's words (`OsProc::StartJob`) for a job whose process could not exec
    /// (`e`), without the shadow's `Error from <slot>: `.
    pub(super) fn failed_to_execute(&self, e: &io::Error) -> String {
        let mut msg = format!("Failed to execute '{}'", self.cmd.display());
        if !self.args.is_empty() {
            let mut shown = String::new();
            for a in &self.args {
                append_arg(a, &mut shown);
            }
            msg.push_str(&format!(" with arguments {shown}"));
        }
        // The script's interpreter is read with the job's user's rights.
        let text = identity::as_user(self.account.as_ref(), || exec_error_text(&self.cmd, e))
            .unwrap_or_else(|_| e.to_string());
        msg.push_str(&format!(": {text}"));
        msg
    }

    /// The hold of a job whose process could not exec (`e`).
    pub(super) fn failure(&self, e: &io::Error) -> StartFailure {
        StartFailure::new(
            self.err_from(&self.failed_to_execute(e)),
            FAILED_TO_CREATE_PROCESS,
            errno_of(e) as i64,
        )
    }

    pub(super) fn slot_name(&self) -> &str {
        &self.slot_name
    }
}

/// How the job's [`Program`] is started: kept for the restarts of a self-checkpointing
/// job, which run the same command in the same sandbox.
#[derive(Debug)]
pub(super) struct Launch {
    env: Vec<(String, String)>,
    cwd: PathBuf,
    /// The job's directory, where its waiter records its exit.
    dir: PathBuf,
    std_files: [StdFile; 3],
    append_only: bool,
    /// The account the job runs as when not the daemon's ([`identity::job_account`]):
    /// its standard files are opened, and its process runs, with the account's rights.
    account: Option<Account>,
    /// Whether the process started is a container runtime's client that runs as the daemon
    /// (`docker`), the job inside it as the account.
    client_as_daemon: bool,
}

impl Launch {
    /// Spawns the job under its waiter ([`waiter`]) with its standard files already open;
    /// `until`: whether a failed `execve` is this call's error, or learnt at the job's exit.
    fn spawn(
        &self,
        p: &Program,
        stdio: [OwnedFd; 3],
        until: waiter::Until,
    ) -> Result<Spawned, StartFailure> {
        let argv = std::iter::once(p.cmd.as_os_str()).chain(p.args.iter().map(OsStr::new));
        let env = self
            .env
            .iter()
            .map(|(k, v)| (OsStr::new(k.as_str()), OsStr::new(v.as_str())));
        waiter::Spec::new(&p.cmd, argv, env, &self.cwd, &self.dir)
            .and_then(|mut spec| {
                spec.until = until;
                spec.run_as = (!self.client_as_daemon)
                    .then_some(self.account.as_ref())
                    .flatten()
                    .map(waiter::RunAs::of);
                waiter::spawn(&spec, stdio)
            })
            .map_err(|e| p.failure(&e))
    }

    /// Starts the job again (`VanillaProc::restartCheckpointedJob`'s `StartJob`): its
    /// standard files opened anew, appended to.
    pub(super) fn respawn(&self, program: &Program) -> Result<Spawned, StartFailure> {
        let err_from = |msg: &str| program.err_from(msg);
        let stdio = open_std_files(
            &self.std_files,
            self.append_only,
            self.account.as_ref(),
            &err_from,
        )?;
        self.spawn(program, stdio, waiter::Until::Exec)
    }
}

/// [`super::start`].
pub(super) fn start(req: &StartRequest<'_>) -> Result<RunningJob, StartFailure> {
    let job = req.job;
    let slot_name = lookup_str(req.slot, "Name")
        .map(|s| s.to_string())
        .unwrap_or_else(|| "slot1".into());
    let err_from = |msg: &str| format!("Error from {slot_name}: {msg}");
    let cluster = lookup_int(job, "ClusterId").unwrap_or(0);
    let proc = lookup_int(job, "ProcId").unwrap_or(0);

    // The shadow's `cdToIwd`.
    let iwd_text = lookup_str(job, "Iwd").unwrap_or_default();
    let iwd = absolute(Path::new(&*iwd_text));
    let account = job_account(req)?;
    if job.lookup("SUBMIT_Iwd").is_some() && !iwd.exists() {
        // A spooled job runs in its spool directory, which the schedd makes
        // (`SpooledJobFiles::createJobSpoolDirectory`, mode 0700, the job's owner's): that
        // directory only, never one the job's ad names elsewhere (the ad is the user's).
        let spool = req.config.string("SPOOL").ok().flatten();
        let own = spool.map(|s| {
            crate::queue::spool::job_spool_dir(
                Path::new(&s),
                crate::queue::JobId::new(cluster as i32, proc as i32),
            )
        });
        if own.as_deref() == Some(iwd.as_path()) {
            if let Some(parent) = iwd.parent() {
                let _ = std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o755)
                    .create(parent);
            }
            let made = std::fs::DirBuilder::new().mode(0o700).create(&iwd);
            if let (Ok(()), Some(a)) = (made, &account) {
                let _ = std::os::unix::fs::lchown(&iwd, Some(a.uid.as_raw()), Some(a.gid.as_raw()));
            }
        }
    }
    // Looked at with the rights of the user the job runs as (the shadow's `cdToIwd` runs as
    // the job's owner).
    let iwd_meta = identity::as_user(account.as_ref(), || std::fs::metadata(&iwd));
    let iwd_error = match iwd_meta.and_then(|m| m) {
        Ok(m) if m.is_dir() => None,
        Ok(_) => Some(libc::ENOTDIR),
        Err(e) => Some(errno_of(&e)),
    };
    if iwd_text.is_empty() || iwd_error.is_some() {
        let errno = iwd_error.unwrap_or(libc::ENOENT);
        return Err(StartFailure::new(
            format!(
                "Cannot access initial working directory {iwd_text}: {}",
                strerror(errno)
            ),
            IWD_ERROR,
            errno as i64,
        ));
    }

    let transferring = wants_file_transfer(req);
    let execute_dir = absolute(req.execute_dir);
    let scratch =
        super::scratch::make(&execute_dir, cluster, proc, account.as_ref()).map_err(|e| {
            tracing::error!(
                "cannot create a scratch directory in {}: {e}",
                execute_dir.display()
            );
            StartFailure::new(
                err_from("Failed to create scratch dir"),
                SCRATCH_DIR_ERROR,
                0,
            )
        })?;
    let mut guard = ScratchGuard {
        dir: Some(&scratch),
    };
    let job_iwd = if transferring {
        scratch.clone()
    } else {
        iwd.clone()
    };

    // The standard files, and the job ad as the job sees it.
    let mut job_view = job.clone();
    let in_name = lookup_str(job, "In").unwrap_or_default();
    let out_name = lookup_str(job, "Out").unwrap_or_default();
    let err_name = lookup_str(job, "Err").unwrap_or_default();
    let flag = |name: &str| lookup_bool(job, name).unwrap_or(false);
    let (stream_in, stream_out, stream_err) =
        (flag("StreamIn"), flag("StreamOut"), flag("StreamErr"));
    let mut transfer_stdin = None;
    let stdin_file = if is_null_file(&in_name) {
        StdFile::Null
    } else if stream_in {
        StdFile::Stream(iwd.join(&*in_name))
    } else if transferring && lookup_bool(job, "TransferIn").unwrap_or(true) {
        transfer_stdin = Some(in_name.to_string());
        StdFile::Path(scratch.join(basename(&in_name)))
    } else {
        StdFile::Path(iwd.join(&*in_name))
    };
    let stdout_file = if is_null_file(&out_name) {
        StdFile::Null
    } else if stream_out {
        StdFile::Stream(iwd.join(&*out_name))
    } else if transferring {
        job_view.insert("Out", Expr::lit(STDOUT_NAME));
        StdFile::Path(scratch.join(STDOUT_NAME))
    } else {
        StdFile::Path(iwd.join(&*out_name))
    };
    let stderr_file = if is_null_file(&err_name) {
        StdFile::Null
    } else if stream_err {
        StdFile::Stream(iwd.join(&*err_name))
    } else if transferring {
        if err_name == out_name && !stream_out {
            job_view.insert("Err", Expr::lit(STDOUT_NAME));
            StdFile::Path(scratch.join(STDOUT_NAME))
        } else {
            job_view.insert("Err", Expr::lit(STDERR_NAME));
            StdFile::Path(scratch.join(STDERR_NAME))
        }
    } else {
        StdFile::Path(iwd.join(&*err_name))
    };
    if transferring {
        job_view.insert("Iwd", Expr::lit(scratch.to_string_lossy().into_owned()));
    }
    // Chirp (`initIOProxy`): the file that tells condor_chirp where the job's pool is.
    let chirp_config = chirp::Features::of(job, req.config)
        .any()
        .then(|| scratch.join(chirp::CHIRP_CONFIG_FILE));
    let job_text = ad_to_old(&job_view, false);
    let slot_text = ad_to_old(req.slot, false);
    let chirp_text = chirp_config.as_ref().map(|_| {
        let local_dir = req.config.string("LOCAL_DIR").ok().flatten();
        chirp::config_text(req.config.env(), local_dir.as_deref())
    });
    // Written with the rights of the user the job runs as: the directory is theirs.
    let write_ads = identity::as_user(account.as_ref(), || {
        write_file(&scratch.join(JOB_AD_FILE), job_text.as_bytes())?;
        write_file(&scratch.join(MACHINE_AD_FILE), slot_text.as_bytes())?;
        match (&chirp_config, &chirp_text) {
            (Some(path), Some(text)) => std::fs::write(path, text),
            _ => Ok(()),
        }
    })
    .and_then(|written| written);
    if let Err(e) = write_ads {
        tracing::error!("cannot write the job's ads into {}: {e}", scratch.display());
        return Err(StartFailure::new(
            err_from("Failed to create scratch dir"),
            SCRATCH_DIR_ERROR,
            0,
        ));
    }

    // The executable (`OsProc::canonicalizeJobPath`).
    let cmd_text = lookup_str(job, "Cmd").unwrap_or_default();
    let kind = container::kind(job, req.slot, req.config);
    if cmd_text.is_empty() && kind == container::Kind::Plain {
        return Err(StartFailure::new(
            err_from("Cmd not found in JobAd.  Aborting StartJob."),
            JOB_NOT_STARTED,
            0,
        ));
    }
    let transfer_exe = transferring && lookup_bool(job, "TransferExecutable").unwrap_or(true);
    let cmd = if transfer_exe {
        scratch.join(basename(&cmd_text))
    } else {
        job_iwd.join(&*cmd_text)
    };

    let spool = req.config.string("SPOOL").ok().flatten();
    let checkpoint = CheckpointPlan::of(
        job,
        spool.as_deref().filter(|_| transferring).map(Path::new),
    );

    // Input transfer, then the catalog output transfer compares against.
    let ends = Endpoints {
        slot_name: slot_name.clone(),
        ap_host: local_hostname(req),
    };
    let mut bytes_in = 0;
    let mut output = None;
    if transferring {
        let rights = Rights::of_job(job, req.config);
        let owner = rights
            .as_ref()
            .map_err(|e| ends.owner_failure(Direction::Input, e))?;
        let files = transfer::input_files(
            job,
            transfer_stdin.as_deref(),
            transfer_exe.then_some(&*cmd_text),
        );
        bytes_in = transfer::transfer_input(
            &files,
            &iwd,
            &scratch,
            transfer_exe.then_some(&*cmd_text),
            &ends,
            owner,
        )?;
        // The job's last checkpoint, after (so over) the input files, as the shadow adds
        // the spool's entries at the end of the input list.
        if let Some(dir) = checkpoint.as_ref().and_then(|c| c.spool_dir.as_deref()) {
            bytes_in += checkpoint::restore(owner, dir, &scratch)
                .map_err(|e| transfer::checkpoint_input_failure(&ends, &e))?;
        }
        output = Some(output_plan(req, &iwd, &scratch, &cmd_text, ends, rights));
    }

    let append_only = flag("WantCheckpointSignal")
        || flag("WantFTOnCheckpoint")
        || lookup_bool(job, "DontAppend") == Some(false);
    let std_files = [stdin_file, stdout_file, stderr_file];
    let stdio = open_std_files(&std_files, append_only, account.as_ref(), &err_from)?;

    let args = job_arguments(job).map_err(|e| {
        StartFailure::new(
            err_from(&format!("Failed to read job arguments from JobAd: {e}")),
            JOB_NOT_STARTED,
            0,
        )
    })?;
    let ctx = EnvContext {
        scratch_dir: &scratch,
        job_iwd: &job_iwd,
        slot: req.slot,
        slot_env: req.slot_env,
        chirp_config: chirp_config.as_deref(),
        home: account.as_ref().map(|a| a.home.as_path()),
    };
    let job_env = env::build(job, &ctx, req.config).map_err(|e| {
        StartFailure::new(
            err_from(&format!("Failed to read job environment: {e}")),
            JOB_NOT_STARTED,
            0,
        )
    })?;

    let prepared = {
        let l = container::JobLaunch {
            job,
            slot: req.slot,
            config: req.config,
            cmd_text: &cmd_text,
            exe: &cmd,
            transferred_exe: transfer_exe,
            args: &args,
            scratch: &scratch,
            job_iwd: &job_iwd,
            slot_name: &env::slot_short_name(req.slot),
            account: account.as_ref(),
        };
        match kind {
            container::Kind::Plain => Ok(container::Launch {
                program: cmd.clone(),
                args: args.clone(),
                env: job_env.into_pairs().collect(),
                docker: None,
            }),
            container::Kind::Docker => container::docker_launch(&l, job_env),
            container::Kind::Singularity => container::singularity_launch(&l, job_env),
        }
    }
    .map_err(|e| StartFailure::new(err_from(&e), JOB_NOT_STARTED, 0))?;
    let docker = prepared.docker;
    let program = Program {
        slot_name,
        cmd: prepared.program,
        args: prepared.args,
        account: account.clone(),
    };
    let launch = Launch {
        env: prepared.env,
        cwd: job_iwd.clone(),
        dir: scratch.clone(),
        std_files,
        append_only,
        // The `docker` client runs as the daemon, the container as the job's owner
        // (`--user`).
        client_as_daemon: docker.is_some(),
        account,
    };
    let started = Instant::now();
    // The daemon goes on once the job's process is forked: a failed exec comes with its exit.
    let spawned = launch.spawn(&program, stdio, waiter::Until::Forked)?;
    guard.dir = None;
    let sig = |attr| find_signal(job, attr).unwrap_or(libc::SIGTERM);
    Ok(RunningJob {
        pid: spawned.waiter,
        job_pid: spawned.job,
        adopted: None,
        scratch_dir: scratch.clone(),
        job_iwd,
        docker: docker.clone(),
        kill_sig: sig("KillSig"),
        remove_kill_sig: sig("RemoveKillSig"),
        hold_kill_sig: sig("HoldKillSig"),
        killed: AtomicBool::new(false),
        started,
        run_started: started,
        program,
        launch: Some(launch),
        checkpoint,
        checkpoint_usage: super::RawExit::default(),
        finish: finish_plan(req, output, bytes_in, docker),
    })
}

/// The output transfer of a job that transfers files (its standard output and error among
/// them when they are files in the sandbox, as [`start`] redirects them).
fn output_plan(
    req: &StartRequest<'_>,
    iwd: &Path,
    scratch: &Path,
    cmd_text: &str,
    ends: Endpoints,
    rights: Result<Rights, AccountError>,
) -> OutputPlan {
    let job = req.job;
    let name = |attr| lookup_str(job, attr).unwrap_or_default().to_string();
    let flag = |attr: &str| lookup_bool(job, attr).unwrap_or(false);
    let (out_name, err_name) = (name("Out"), name("Err"));
    let (stream_out, stream_err) = (flag("StreamOut"), flag("StreamErr"));
    let stdout = (!is_null_file(&out_name) && !stream_out).then(|| out_name.clone());
    let stderr = (!is_null_file(&err_name) && !stream_err && (err_name != out_name || stream_out))
        .then_some(err_name);
    OutputPlan::new(
        job,
        req.config,
        iwd,
        scratch,
        basename(cmd_text),
        stdout,
        stderr,
        ends,
        rights,
    )
}

/// What is done when the job has exited ([`RunningJob::finish`]).
fn finish_plan(
    req: &StartRequest<'_>,
    output: Option<OutputPlan>,
    bytes_recvd: u64,
    docker: Option<container::DockerContainer>,
) -> FinishPlan {
    FinishPlan {
        output,
        keep_scratch: req
            .config
            .bool("STARTER_KEEP_SCRATCH_DIR")
            .ok()
            .flatten()
            .unwrap_or(false),
        bytes_recvd,
        previous: Previous::from_job(req.job),
        memory_usage_metric: req
            .config
            .string("MEMORY_USAGE_METRIC")
            .ok()
            .flatten()
            .filter(|m| !m.trim().is_empty())
            .and_then(|m| crate::classad::parser::parse_old_expr(&m).ok()),
        slot_usage: true,
        docker,
    }
}

/// [`super::reattach`]: the job of `req` that runs (or ran) under the waiter `waiter` in its
/// scratch directory `scratch`, as [`start`] would have left it, without starting anything.
pub(super) fn reattach(
    req: &StartRequest<'_>,
    scratch: &Path,
    waiter: WaiterId,
    started: Instant,
) -> RunningJob {
    let job = req.job;
    let slot_name = lookup_str(req.slot, "Name")
        .map(|s| s.to_string())
        .unwrap_or_else(|| "slot1".into());
    let iwd = absolute(Path::new(&*lookup_str(job, "Iwd").unwrap_or_default()));
    let transferring = wants_file_transfer(req);
    let cmd_text = lookup_str(job, "Cmd").unwrap_or_default();
    let program = Program::of(job, slot_name.clone(), job_account(req).ok().flatten());
    let output = transferring.then(|| {
        let ends = Endpoints {
            slot_name,
            ap_host: local_hostname(req),
        };
        output_plan(
            req,
            &iwd,
            scratch,
            &cmd_text,
            ends,
            Rights::of_job(job, req.config),
        )
    });
    let sig = |attr| find_signal(job, attr).unwrap_or(libc::SIGTERM);
    RunningJob {
        pid: waiter.pid,
        job_pid: waiter.job_pid,
        adopted: Some(waiter),
        scratch_dir: scratch.to_path_buf(),
        job_iwd: if transferring {
            scratch.to_path_buf()
        } else {
            iwd
        },
        docker: None,
        kill_sig: sig("KillSig"),
        remove_kill_sig: sig("RemoveKillSig"),
        hold_kill_sig: sig("HoldKillSig"),
        killed: AtomicBool::new(false),
        started,
        run_started: started,
        program,
        // Not started again in this sandbox: a checkpoint exit ends the run.
        launch: None,
        checkpoint: None,
        checkpoint_usage: super::RawExit::default(),
        finish: finish_plan(req, output, 0, None),
    }
}
