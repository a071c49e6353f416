//! Starting a job the schedd runs itself: a scheduler-universe job (`JobUniverse` 7, DAGMan),
//! as HTCondor's schedd starts one (`Scheduler::start_sched_universe_job` in
//! src/condor_schedd.V6/schedd.cpp). There is no slot, no scratch directory to run in and no
//! file transfer:
//!
//! - the executable is `Cmd` (relative to `Iwd`), which must exist and be executable, run
//!   with `argv[0]` = `condor_scheduniv_exec.<cluster>.<proc>` and the job's `Arguments`
//!   (or `Args`), in `Iwd` (`/tmp` when the job has none), in its own process group;
//! - its standard files are `In`, `Out` and `Err`, relative to `Iwd`, `/dev/null` when unset
//!   (output opened `O_WRONLY|O_CREAT|O_TRUNC|O_APPEND`, mode 0600, as the schedd opens it);
//! - its environment is the job's `Environment` (or `Env`) and nothing of the daemon's
//!   (`DCJOBOPT_NO_ENV_INHERIT`), plus what the schedd sets: `CONDOR_ID=<cluster>.<proc>`,
//!   `X509_USER_PROXY` (from `X509UserProxy`), `_condor_SEC_CREDENTIAL_PRODUCER` (for a job
//!   with `SendCredential`), `_CONDOR_JOB_AD` (the job's ad, written to
//!   `$(LOCAL_UNIV_EXECUTE)/dir_<cluster>_<proc>/.job.ad`), and, with
//!   `USE_LOCAL_SCHEDD_FOR_SCHEDULER_UNIVERSE` (default true), `_condor_SCHEDD_DAEMON_AD_FILE`
//!   and `_condor_SCHEDD_ADDRESS_FILE`;
//! - its nice increment is `SCHED_UNIV_RENICE_INCREMENT`, its hard core-size limit the job's
//!   `CoreSize` (0 when unset, as the schedd passes it).
//!
//! `_CONDOR_JOB_AD` is also how a daemon finds such a job's processes after it died: they
//! are the processes whose `_CONDOR_JOB_AD` lies under `$(LOCAL_UNIV_EXECUTE)`
//! ([`super::kill_local_orphans`]). So where the schedd starts the job without its ad when
//! the directory cannot be made, condorlite leaves the job idle.
//!
//! What cannot start the job ends one of two ways, as in the schedd: a hold (no executable,
//! not executable) or nothing at all, the job staying idle to be tried again (a standard file
//! that does not open, a malformed environment or argument string, a failed spawn).

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::classad::unparse::ad_to_old;
use crate::classad::ClassAd;
use crate::config::Config;
use crate::output::render::{lookup_bool, lookup_int, lookup_str};

use super::env::{JobEnv, JOB_AD_FILE};
use super::exec::{errno_of, find_signal, is_null_file, job_arguments, strerror};
use super::finish::{FinishPlan, Previous};
use super::hold_codes::FAILED_TO_CREATE_PROCESS;
use super::waiter::{self, Spec};
use super::{RunningJob, StartFailure};

/// What the daemon hands over to start one scheduler-universe job.
pub struct LocalStartRequest<'a> {
    /// The job's full ad, as it is before it runs (it is written to `.job.ad` as it is).
    pub job: &'a ClassAd,
    /// `$(LOCAL_UNIV_EXECUTE)`: where the job's directory is made.
    pub local_dir: &'a Path,
    pub config: &'a Config,
}

/// Why a scheduler-universe job did not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LocalStartError {
    /// The schedd holds the job (`holdJob`), with this reason, code and subcode.
    #[error("{0}")]
    Hold(StartFailure),
    /// The job was not started and stays idle, to be tried again (the schedd's
    /// `goto wrapup`, which only logs why).
    #[error("{0}")]
    NotStarted(String),
}

/// The job's directory under `$(LOCAL_UNIV_EXECUTE)`: `dir_<cluster>_<proc>`.
pub fn local_job_dir(local_dir: &Path, cluster: i64, proc: i64) -> PathBuf {
    local_dir.join(format!("dir_{cluster}_{proc}"))
}

/// `StatInfo::IsExecutable`: a regular file with an execute bit this user may use.
fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    meta.is_file()
        && meta.permissions().mode() & 0o111 != 0
        && nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).is_ok()
}

/// Opens one standard file as the schedd does (`safe_open_wrapper_follow`).
fn open_std(path: &Path, input: bool) -> io::Result<OwnedFd> {
    if input {
        return File::open(path).map(OwnedFd::from);
    }
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_APPEND)
        .mode(0o600)
        .open(path)
        .map(OwnedFd::from)
}

/// A knob's value, errors read as "not set" (the daemon checked its configuration).
fn knob(config: &Config, name: &str) -> Option<String> {
    config.string(name).ok().flatten().filter(|v| !v.is_empty())
}

/// The job's environment: its own, then what the schedd adds (see the module
/// documentation). `job_ad` is the path of the `.job.ad` written for it.
pub fn local_env(job: &ClassAd, job_ad: &Path, config: &Config) -> Result<JobEnv, LocalStartError> {
    let mut env = JobEnv::default();
    env.merge_job_ad(job)
        .map_err(|e| LocalStartError::NotStarted(format!("Failed to read job environment: {e}")))?;
    let cluster = lookup_int(job, "ClusterId").unwrap_or(0);
    let proc = lookup_int(job, "ProcId").unwrap_or(0);
    env.set("CONDOR_ID", &format!("{cluster}.{proc}"));
    if let Some(proxy) = lookup_str(job, "X509UserProxy") {
        env.set("X509_USER_PROXY", &proxy);
    }
    if lookup_bool(job, "SendCredential") == Some(true) {
        env.set(
            "_condor_SEC_CREDENTIAL_PRODUCER",
            "CREDENTIAL_ALREADY_STORED",
        );
    }
    env.set("_CONDOR_JOB_AD", &job_ad.to_string_lossy());
    let use_local_schedd = config
        .bool("USE_LOCAL_SCHEDD_FOR_SCHEDULER_UNIVERSE")
        .ok()
        .flatten()
        .unwrap_or(true);
    if use_local_schedd {
        for (var, name) in [
            ("_condor_SCHEDD_DAEMON_AD_FILE", "SCHEDD_DAEMON_AD_FILE"),
            ("_condor_SCHEDD_ADDRESS_FILE", "SCHEDD_ADDRESS_FILE"),
        ] {
            if let Some(file) = knob(config, name) {
                env.set(var, &file);
            }
        }
    }
    Ok(env)
}

/// Starts a scheduler-universe job: see the module documentation.
pub fn start_local(req: &LocalStartRequest<'_>) -> Result<RunningJob, LocalStartError> {
    let job = req.job;
    let cluster = lookup_int(job, "ClusterId").unwrap_or(0);
    let proc = lookup_int(job, "ProcId").unwrap_or(0);
    let iwd = PathBuf::from(
        lookup_str(job, "Iwd")
            .map(|s| s.to_string())
            .unwrap_or_else(|| "/tmp".to_owned()),
    );
    // The user the job runs as (`init_user_ids`): in a pool that runs jobs as their owners,
    // an owner with no local account, or root, is held as the schedd holds it.
    let owner = lookup_str(job, "Owner").unwrap_or_default();
    let account = super::identity::job_account(&owner, req.config).map_err(|e| {
        tracing::warn!("scheduler universe job of {owner}: {e}");
        LocalStartError::Hold(super::exec::unable_to_switch(&owner))
    })?;

    // The executable: `Cmd`, made absolute against `Iwd`.
    let cmd_text = lookup_str(job, "Cmd").unwrap_or_default();
    if cmd_text.is_empty() {
        return Err(LocalStartError::Hold(StartFailure::new(
            "Executable unknown - not specified in job ad!",
            FAILED_TO_CREATE_PROCESS,
            libc::ENOENT as i64,
        )));
    }
    let cmd = if cmd_text.starts_with('/') {
        PathBuf::from(&*cmd_text)
    } else {
        PathBuf::from(format!("{}/{cmd_text}", iwd.display()))
    };
    if !is_executable(&cmd) {
        return Err(LocalStartError::Hold(StartFailure::new(
            format!("File '{}' is missing or not executable", cmd.display()),
            FAILED_TO_CREATE_PROCESS,
            libc::EACCES as i64,
        )));
    }

    // The standard files, relative to `Iwd`.
    let mut std_files = Vec::with_capacity(3);
    for (attr, input) in [("In", true), ("Out", false), ("Err", false)] {
        let name = lookup_str(job, attr).unwrap_or_default();
        if is_null_file(&name) {
            let null = OpenOptions::new()
                .read(input)
                .write(!input)
                .open("/dev/null")
                .map_err(|e| {
                    LocalStartError::NotStarted(format!("Open of /dev/null failed: {e}"))
                })?;
            std_files.push(OwnedFd::from(null));
            continue;
        }
        let path = iwd.join(&*name);
        // With the rights of the job's user, never the daemon's on its behalf.
        let opened = super::identity::as_user(account.as_ref(), || open_std(&path, input));
        let file = opened.and_then(|f| f).map_err(|e| {
            LocalStartError::NotStarted(format!(
                "Open of {} failed, errno {}",
                path.display(),
                errno_of(&e)
            ))
        })?;
        std_files.push(file);
    }
    let mut std_files = std_files.into_iter();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (std_files.next(), std_files.next(), std_files.next())
    else {
        unreachable!("three standard files");
    };

    // The job's directory and its ad.
    let dir = local_job_dir(req.local_dir, cluster, proc);
    let made =
        std::fs::create_dir_all(req.local_dir).and_then(|()| {
            match std::fs::DirBuilder::new().mode(0o755).create(&dir) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
                _ => Ok(()),
            }
        });
    if let Err(e) = made {
        return Err(LocalStartError::NotStarted(format!(
            "couldn't create dir {}: ({}, errno={}).",
            dir.display(),
            strerror(errno_of(&e)),
            errno_of(&e)
        )));
    }
    let job_ad = dir.join(JOB_AD_FILE);
    if let Err(e) = std::fs::write(&job_ad, ad_to_old(job, false)) {
        return Err(LocalStartError::NotStarted(format!(
            "Open of {} failed ({}, errno={}).",
            job_ad.display(),
            strerror(errno_of(&e)),
            errno_of(&e)
        )));
    }

    let env = local_env(job, &job_ad, req.config)?;
    let args = job_arguments(job)
        .map_err(|e| LocalStartError::NotStarted(format!("Failed to read job arguments: {e}")))?;
    let niceness = req
        .config
        .int("SCHED_UNIV_RENICE_INCREMENT")
        .ok()
        .flatten()
        .unwrap_or(0);
    let core_limit = lookup_int(job, "CoreSize").unwrap_or(0).max(0) as libc::rlim_t;

    let argv0 = format!("condor_scheduniv_exec.{cluster}.{proc}");
    let env: Vec<(String, String)> = env.into_pairs().collect();
    let spec = Spec::new(
        &cmd,
        std::iter::once(OsStr::new(&argv0)).chain(args.iter().map(OsStr::new)),
        env.iter()
            .map(|(k, v)| (OsStr::new(k.as_str()), OsStr::new(v.as_str()))),
        &iwd,
        &dir,
    );
    let started = Instant::now();
    let spawned = spec
        .and_then(|mut spec| {
            // The schedd's `coreHardLimit` and `niceInc` (a failure to renice does not stop
            // the job).
            spec.core_limit = Some(core_limit);
            spec.nice = niceness.clamp(-40, 40) as i32;
            spec.run_as = account.as_ref().map(waiter::RunAs::of);
            waiter::spawn(&spec, [stdin, stdout, stderr])
        })
        .map_err(|e| {
            let _ = std::fs::remove_dir_all(&dir);
            LocalStartError::NotStarted(format!("Create_Process problems! {}: {e}", cmd.display()))
        })?;
    let sig = |attr| find_signal(job, attr);
    let kill_sig = sig("KillSig").unwrap_or(libc::SIGTERM);
    Ok(RunningJob {
        pid: spawned.waiter,
        job_pid: spawned.job,
        adopted: None,
        scratch_dir: dir,
        job_iwd: iwd,
        docker: None,
        kill_sig,
        // `findRmKillSig`/`findHoldKillSig`, else the soft kill signal (`abort_job_myself`).
        remove_kill_sig: sig("RemoveKillSig").unwrap_or(kill_sig),
        hold_kill_sig: sig("HoldKillSig").unwrap_or(kill_sig),
        killed: AtomicBool::new(false),
        started,
        run_started: started,
        // (Started only when its exec succeeded: never named by a failed start later.)
        program: super::exec::Program::of(job, "schedd".into(), None),
        launch: None,
        checkpoint: None,
        checkpoint_usage: super::RawExit::default(),
        finish: FinishPlan {
            output: None,
            keep_scratch: false,
            bytes_recvd: 0,
            previous: Previous::default(),
            memory_usage_metric: None,
            slot_usage: false,
            docker: None,
        },
    })
}
