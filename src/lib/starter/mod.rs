//! The starter: running one job on this host, as HTCondor's `condor_starter` runs a vanilla
//! universe job (src/condor_starter.V6.1/: starter.cpp, jic_shadow.cpp, os_proc.cpp,
//! vanilla_proc.cpp, user_proc.cpp; src/condor_utils/file_transfer.cpp).
//!
//! condorlite's starter is a small process per job, the job's [`waiter`]: the daemon forks
//! it (no exec), it starts the job, forwards the daemon's signals to it, kills whatever the job
//! left when it ends (it is a child subreaper, so daemonized children cannot escape), and
//! records the job's exit durably in the job's directory before it exits. It outlives the
//! daemon: a job's end is never lost, and a restarted daemon adopts the jobs that still run
//! ([`reattach`], [`survivors`]). The lifecycle is
//!
//! 1. [`start`]: make the job's scratch directory `$(EXECUTE)/dir_<cluster>_<proc>_<n>`, write
//!    `.job.ad` and `.machine.ad` into it, transfer the input files when the job uses file
//!    transfer ([`transfer`]), open its standard files, build its environment ([`env`]) and
//!    spawn the executable directly (never through a shell) under its waiter, in a process
//!    group of its own. Anything that stops the job from starting is a [`StartFailure`]
//!    carrying the hold (or vacate) reason and code HTCondor would give.
//! 2. [`RunningJob::wait`] (blocking; the daemon instead watches every waiter from one thread,
//!    then calls [`RunningJob::collect`]) reaps the waiter and reads the job's exit (status
//!    and resource usage) from its record. [`RunningJob::soft_kill`] /
//!    [`RunningJob::hard_kill`] signal the job meanwhile, through its waiter.
//! 3. [`RunningJob::finish`] turns the exit into the job-ad updates the shadow would make
//!    (`ExitCode`, `RemoteUserCpu`, `ImageSize`, `BytesSent`, ...), transfers the output back
//!    to the job's `Iwd`, and removes the scratch directory.
//!
//! The schedd's own jobs, scheduler-universe jobs (DAGMan), start without a slot, a scratch
//! directory or file transfer ([`start_local`], `Scheduler::start_sched_universe_job`); they
//! are then signalled, waited for and reaped as the others are.
//!
//! After a crash of the daemon, [`survivors`] tells what each job's waiter left (an exit, a
//! waiter still running, or nothing); [`kill_orphans_except`] kills the processes of the jobs
//! that are not taken over (by `_CONDOR_SCRATCH_DIR` in their environment);
//! [`find_local_orphans`] and [`kill_local_orphans`] do the same for scheduler-universe jobs
//! (by `_CONDOR_JOB_AD`).
//!
//! This module is the only one that forks or signals processes.

pub mod checkpoint;
pub mod chirp;
mod confine;
pub mod container;
pub mod env;
mod exec;
mod finish;
pub mod identity;
pub mod launcher;
mod local;
mod orphans;
pub mod rights;
mod scratch;
pub mod session;
mod sys;
pub mod transfer;
pub mod waiter;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::classad::{ClassAd, Expr};
use crate::config::Config;

pub use exec::{signal_name, signal_number};
pub use finish::signal_description;
pub use local::{local_env, local_job_dir, start_local, LocalStartError, LocalStartRequest};
pub use orphans::{
    end_survivor, find_local_orphans, group_size, kill_job_processes, kill_local_orphans,
    kill_orphans_except, survivors, Left, Survivor,
};
#[cfg(test)]
pub use orphans::{find_orphans, kill_orphans};
pub use scratch::{recycle, remove_parked, remove_scratch};

/// HTCondor's hold reason codes (src/condor_utils/condor_holdcodes.h) that the starter gives.
/// Codes from 1000 up are vacate codes: the job goes back to idle rather than on hold.
pub mod hold_codes {
    /// The executable could not be run; the subcode is the errno.
    pub const FAILED_TO_CREATE_PROCESS: i64 = 6;
    /// The standard output or error file could not be opened; the subcode is the errno.
    pub const UNABLE_TO_OPEN_OUTPUT: i64 = 7;
    /// The standard input file could not be opened; the subcode is the errno.
    pub const UNABLE_TO_OPEN_INPUT: i64 = 8;
    /// A streamed standard output or error could not be opened.
    pub const UNABLE_TO_OPEN_OUTPUT_STREAM: i64 = 9;
    /// A streamed standard input could not be opened.
    pub const UNABLE_TO_OPEN_INPUT_STREAM: i64 = 10;
    /// Output transfer failed; the subcode is the errno.
    pub const TRANSFER_OUTPUT_ERROR: i64 = 12;
    /// Input transfer failed; the subcode is the errno.
    pub const TRANSFER_INPUT_ERROR: i64 = 13;
    /// The job's `Iwd` cannot be accessed; the subcode is the errno.
    pub const IWD_ERROR: i64 = 14;
    /// The job's owner has no account to run it as (`FailedToAccessUserAccount`).
    pub const FAILED_TO_ACCESS_USER_ACCOUNT: i64 = 23;
    /// The starter could not store a self-checkpointing job's checkpoint.
    pub const FAILED_TO_CHECKPOINT: i64 = 36;
    /// The job could not be started for a reason that is not its own (vacate).
    pub const JOB_NOT_STARTED: i64 = 1003;
    /// The scratch directory could not be made (vacate).
    pub const SCRATCH_DIR_ERROR: i64 = 1024;
}

/// What the daemon hands the starter to run one job.
pub struct StartRequest<'a> {
    /// The job's full ad (cluster and proc merged, or the proc ad chained to its cluster's).
    pub job: &'a ClassAd,
    /// The slot (machine) ad the job runs on.
    pub slot: &'a ClassAd,
    /// Extra environment from the startd (assigned resources: `_CONDOR_AssignedGPUs`,
    /// `CUDA_VISIBLE_DEVICES`, ...); set after the job's own environment, so it wins.
    pub slot_env: &'a [(String, String)],
    /// `$(EXECUTE)`: where scratch directories are made.
    pub execute_dir: &'a Path,
    pub config: &'a Config,
}

/// Why a job could not start (or its output could not be brought back): the hold reason as
/// the job ad would get it, with `HoldReasonCode` and `HoldReasonSubCode`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct StartFailure {
    pub reason: String,
    pub code: i64,
    pub subcode: i64,
}

impl StartFailure {
    pub fn new(reason: impl Into<String>, code: i64, subcode: i64) -> StartFailure {
        StartFailure {
            reason: reason.into(),
            code,
            subcode,
        }
    }

    /// Whether HTCondor would put the job back to idle (a vacate code, 1000 and up) rather
    /// than hold it.
    pub fn is_vacate(&self) -> bool {
        self.code >= 1000
    }
}

/// How a process ended, as `wait4` reported it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RawExit {
    /// The raw wait status (`WIFEXITED`, `WTERMSIG`, ... apply).
    pub status: i32,
    /// User and system CPU seconds of the job and the children it waited for.
    pub user_cpu: f64,
    pub sys_cpu: f64,
    /// The peak resident set size, KiB (`ru_maxrss`).
    pub max_rss_kib: i64,
    /// Set when the job's process never became the job: the errno of its failed `execve`
    /// (or of what comes before it), as it recorded it (see [`waiter`]).
    pub exec_error: Option<i32>,
}

/// How the job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobExit {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it; `core` when it dumped core.
    Signal { signal: i32, core: bool },
}

impl JobExit {
    /// Decodes a raw wait status.
    pub fn from_status(status: i32) -> JobExit {
        if libc::WIFSIGNALED(status) {
            JobExit::Signal {
                signal: libc::WTERMSIG(status),
                core: libc::WCOREDUMP(status),
            }
        } else {
            JobExit::Code(libc::WEXITSTATUS(status))
        }
    }
}

/// The figures of one run, for the terminated event (005) and its usage table.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    /// CPU seconds of this run.
    pub user_cpu: f64,
    pub sys_cpu: f64,
    /// Peak resident set size, KiB.
    pub max_rss_kib: i64,
    /// The scratch directory's size at exit, KiB (0 when the job ran in its `Iwd`).
    pub disk_usage_kib: i64,
    /// Bytes of output transferred back (sent by the job).
    pub bytes_sent: f64,
    /// Bytes of input transferred in (received by the job).
    pub bytes_recvd: f64,
    /// Seconds from spawn to `finish`.
    pub wall_secs: f64,
}

impl Usage {
    /// This run's CPU time as the event log records it (whole seconds).
    pub fn remote_rusage(&self) -> crate::eventlog::Rusage {
        crate::eventlog::Rusage {
            user_secs: self.user_cpu as i64,
            sys_secs: self.sys_cpu as i64,
        }
    }
}

/// What a finished job did.
#[derive(Clone, Debug)]
pub struct JobResult {
    pub exit: JobExit,
    /// The job-ad updates HTCondor's shadow makes at exit, in order.
    pub updates: Vec<(String, Expr)>,
    /// Set when the output could not be transferred: HTCondor puts the job on hold.
    pub hold: Option<StartFailure>,
    pub usage: Usage,
    /// Whether the job was signalled by [`RunningJob::soft_kill`], [`RunningJob::hard_kill`]
    /// or [`RunningJob::send_signal`] before it exited (its output was then not transferred).
    pub killed: bool,
    /// Set when the job's process never became the job (its `execve` failed): then
    /// [`JobResult::hold`] holds it, and the exit is not the job's.
    pub not_started: Option<NotStarted>,
}

/// The starter's report of a job that could not be started (`notifyStarterError`), which the
/// shadow logs as a remote error event (021) before it holds the job.
#[derive(Clone, Debug, PartialEq)]
pub struct NotStarted {
    /// The slot the job was to run on (the shadow's `ExecuteHost` of the event).
    pub execute_host: String,
    /// `Failed to execute '<cmd>' ...: (errno=N: '...')`.
    pub message: String,
}

/// A job that [`start`] spawned.
#[derive(Debug)]
pub struct RunningJob {
    /// The process id of the job's [`waiter`], the daemon's child: what the daemon waits for
    /// and signals.
    pub pid: i32,
    /// The job's main process id, which is also its process group id (the waiter's child).
    pub job_pid: i32,
    /// Set for a waiter an earlier daemon started ([`reattach`]): not this process's child, so
    /// it is not reaped here, and it is signalled only while its start time still matches.
    adopted: Option<waiter::WaiterId>,
    /// The job's scratch directory (`_CONDOR_SCRATCH_DIR`).
    pub scratch_dir: PathBuf,
    /// Where the job runs: the scratch directory with file transfer, else its `Iwd`.
    pub job_iwd: PathBuf,
    /// A docker job's container, which signals reach through the runtime.
    docker: Option<container::DockerContainer>,
    kill_sig: i32,
    remove_kill_sig: i32,
    hold_kill_sig: i32,
    killed: AtomicBool,
    started: Instant,
    /// When the current process started (a checkpointing job's restarts start new ones).
    run_started: Instant,
    /// What the job runs, named by a failed start.
    program: exec::Program,
    /// How the job was started (none for the schedd's own jobs, which never checkpoint).
    launch: Option<exec::Launch>,
    checkpoint: Option<checkpoint::CheckpointPlan>,
    /// The usage of the processes that ended in a checkpoint (`m_checkpoint_usage`).
    checkpoint_usage: RawExit,
    finish: finish::FinishPlan,
}

/// What a checkpoint exit came to (the starter's update and generic event to the shadow).
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpointed {
    /// `CheckpointNumber`: the checkpoint's number (0 for the first).
    pub number: i64,
    /// Whether the checkpoint was stored (`SuccessfulCheckpoint`), else `FailedCheckpoint`.
    pub stored: bool,
    /// `NewlyCommittedTime`: the whole seconds the ended process ran.
    pub newly_committed_secs: i64,
    /// The job's new process, when it started again; otherwise why not (a hold).
    pub restarted: Result<i32, StartFailure>,
}

impl RunningJob {
    /// Sends the job's `KillSig` (default `SIGTERM`) to its process group: the graceful
    /// shutdown of a vacate.
    pub fn soft_kill(&self) -> std::io::Result<()> {
        self.send_signal(self.kill_sig)
    }

    /// Sends `SIGKILL` to the job's process group.
    pub fn hard_kill(&self) -> std::io::Result<()> {
        self.send_signal(libc::SIGKILL)
    }

    /// The signal of a graceful shutdown: `KillSig`, else `SIGTERM`.
    pub fn kill_sig(&self) -> i32 {
        self.kill_sig
    }

    /// The signal for a removal: `RemoveKillSig`, else `SIGTERM` (HTCondor's
    /// `findRmKillSig`; a scheduler-universe job falls back on its `KillSig` first).
    pub fn remove_kill_sig(&self) -> i32 {
        self.remove_kill_sig
    }

    /// The signal for a hold: `HoldKillSig`, else `SIGTERM`.
    pub fn hold_kill_sig(&self) -> i32 {
        self.hold_kill_sig
    }

    /// Sends `sig` to the job's process group. A group that is already gone is not an error.
    /// Any signal but `SIGSTOP`/`SIGCONT` marks the job as killed (no output transfer).
    pub fn send_signal(&self, sig: i32) -> std::io::Result<()> {
        if sig != libc::SIGSTOP && sig != libc::SIGCONT {
            self.killed.store(true, Ordering::Relaxed);
        }
        if let Some(c) = &self.docker {
            // The container is not in the job's process group: the runtime signals it
            // (`DockerProc::Remove`, `ShutdownFast`, `Suspend`, `Continue`). Only SIGKILL
            // also reaches the CLI attached to it, so that a hung runtime cannot keep the
            // job; the container then goes with `docker rm -f` when the job is finished.
            c.signal(sig);
            if sig != libc::SIGKILL {
                return Ok(());
            }
        }
        if self.adopted.is_some_and(|w| !w.is_alive()) {
            return Ok(());
        }
        waiter::signal(self.pid, sig)
    }

    /// Marks the job as one whose output is not to be sent back (as a killed job's is not),
    /// without signalling anything.
    pub fn forgo_output(&self) {
        self.killed.store(true, Ordering::Relaxed);
    }

    /// Stops the job's process group (`condor_suspend`).
    pub fn suspend(&self) -> std::io::Result<()> {
        self.send_signal(libc::SIGSTOP)
    }

    /// Continues a suspended job.
    pub fn resume(&self) -> std::io::Result<()> {
        self.send_signal(libc::SIGCONT)
    }

    /// Reaps the job's waiter, which has exited ([`wait_exited`]): the job's exit as the
    /// waiter recorded it. An error when there is no record (the waiter was killed).
    pub fn collect(&self) -> std::io::Result<RawExit> {
        if self.adopted.is_none() {
            reap(self.pid)?;
        }
        take_record(&self.scratch_dir)
    }

    /// Blocks until the job has ended: [`wait_exited`], then [`RunningJob::collect`].
    pub fn wait(&self) -> std::io::Result<RawExit> {
        wait_exited(self.pid)?;
        self.collect()
    }

    /// After the job's exit (from [`RunningJob::wait`]): the exit's job-ad updates, the output transfer
    /// (unless the job was killed) and the removal of the scratch directory.
    pub fn finish(self, exit: RawExit) -> JobResult {
        let (result, scratch) = self.finish_deferred(exit);
        if let Some(dir) = scratch {
            remove_scratch(&dir);
        }
        result
    }

    /// [`RunningJob::finish`] without the removal of the scratch directory: the directory
    /// to remove (with [`remove_scratch`]) comes back with the result, unless
    /// `STARTER_KEEP_SCRATCH_DIR` keeps it. The caller may remove it later, elsewhere.
    pub fn finish_deferred(self, mut exit: RawExit) -> (JobResult, Option<PathBuf>) {
        if exit.exec_error.is_some() {
            // Never the job: nothing of it to send back.
            self.forgo_output();
        }
        let killed = self.killed.load(Ordering::Relaxed);
        exit.user_cpu += self.checkpoint_usage.user_cpu;
        exit.sys_cpu += self.checkpoint_usage.sys_cpu;
        exit.max_rss_kib = exit.max_rss_kib.max(self.checkpoint_usage.max_rss_kib);
        let wall = self.started.elapsed().as_secs_f64();
        let mut result = self.finish.run(&self.scratch_dir, exit, killed, wall);
        if let Some(errno) = exit.exec_error {
            let e = std::io::Error::from_raw_os_error(errno);
            result.not_started = Some(NotStarted {
                execute_host: self.program.slot_name().to_owned(),
                message: self.program.failed_to_execute(&e),
            });
            result.hold = Some(self.program.failure(&e));
        }
        let scratch = (!self.finish.keep_scratch).then_some(self.scratch_dir);
        (result, scratch)
    }
}

impl RunningJob {
    /// Whether this exit is the job's checkpoint ([`checkpoint`]): it wants them, exited
    /// with exactly its checkpoint status, and was not being killed (a checkpoint exit
    /// during a soft kill ends the run).
    pub fn is_checkpoint(&self, exit: &RawExit) -> bool {
        !self.killed.load(Ordering::Relaxed)
            && self
                .checkpoint
                .as_ref()
                .is_some_and(|c| c.status == exit.status)
    }

    /// After a checkpoint exit ([`RunningJob::is_checkpoint`], the process reaped): stores
    /// the checkpoint in the job's spool directory and starts the job again in the same
    /// sandbox. The job's `pid` is then the new process's.
    pub fn checkpoint_and_restart(&mut self, exit: RawExit) -> Checkpointed {
        self.checkpoint_usage.user_cpu += exit.user_cpu;
        self.checkpoint_usage.sys_cpu += exit.sys_cpu;
        self.checkpoint_usage.max_rss_kib = self.checkpoint_usage.max_rss_kib.max(exit.max_rss_kib);
        let newly_committed_secs = self.run_started.elapsed().as_secs() as i64;
        let plan = self
            .checkpoint
            .as_mut()
            .expect("checkpoint_and_restart after is_checkpoint");
        plan.number += 1;
        let number = plan.number;
        let mut hold = None;
        let stored = match (&plan.spool_dir, &self.finish.output) {
            (Some(dir), Some(output)) => {
                let scratch = &self.scratch_dir;
                let saved = output
                    .rights()
                    .map_err(|e| e.to_string())
                    .and_then(|rights| {
                        let listed = plan.files.as_deref();
                        let names = rights
                            .run(|| output.checkpoint_files(scratch, listed))
                            .map_err(|e| e.to_string())?;
                        Ok(checkpoint::save(rights, scratch, &names, dir))
                    });
                let saved = saved.unwrap_or_else(|e| {
                    Err(checkpoint::SaveError::Source(transfer::ConfineError::io(
                        scratch,
                        &std::io::Error::other(e),
                    )))
                });
                match saved {
                    Ok(_) => true,
                    Err(e @ checkpoint::SaveError::Source(_)) => {
                        tracing::warn!("checkpoint {number} of {}: {e}", self.pid);
                        hold = Some(StartFailure::new(
                            "Starter failed to upload checkpoint",
                            hold_codes::FAILED_TO_CHECKPOINT,
                            -1,
                        ));
                        false
                    }
                    Err(e) => {
                        tracing::warn!("checkpoint {number} of {}: {e}", self.pid);
                        false
                    }
                }
            }
            // No file transfer: nothing to send the checkpoint with.
            _ => false,
        };
        // The checkpoint exit's record is not the restarted run's.
        if let Err(e) = waiter::restart(&self.scratch_dir) {
            tracing::warn!("job {}: cannot restart its record: {e}", self.pid);
        }
        let restarted = match hold {
            Some(h) => Err(h),
            None => match &self.launch {
                Some(l) => l.respawn(&self.program),
                None => Err(StartFailure::new(
                    "Starter failed to restart the job",
                    hold_codes::JOB_NOT_STARTED,
                    0,
                )),
            },
        };
        if let Ok(s) = restarted {
            self.pid = s.waiter;
            self.job_pid = s.job;
            self.run_started = Instant::now();
        }
        Checkpointed {
            number,
            stored,
            newly_committed_secs,
            restarted: restarted.map(|s| s.waiter),
        }
    }
}

/// Runs one job: see the module documentation.
pub fn start(req: &StartRequest<'_>) -> Result<RunningJob, StartFailure> {
    exec::start(req)
}

/// Reattaches to a job an earlier daemon started ([`waiter`]): the job of `req` (its ad as
/// it started, and the slot ad from its `.machine.ad`) whose waiter `waiter` runs (or ran) in
/// `scratch`, started `started`. Nothing is started; the result is signalled, collected and
/// finished as a job [`start`] started, except that a self-checkpointing job is not started
/// again after a checkpoint exit.
pub fn reattach(
    req: &StartRequest<'_>,
    scratch: &Path,
    waiter: waiter::WaiterId,
    started: Instant,
) -> RunningJob {
    exec::reattach(req, scratch, waiter, started)
}

/// The job's exit as its waiter recorded it in `dir`. The record stays until the directory
/// goes, after the daemon has committed the run's end: a daemon that dies before then leaves
/// it to the next, which takes the run as ended while no daemon ran.
fn take_record(dir: &Path) -> std::io::Result<RawExit> {
    waiter::read_record(dir).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("the job's waiter recorded no exit in {}", dir.display()),
        )
    })
}

/// Reaps `pid` if it is a child of this process's that has exited; nothing otherwise (not a
/// child, or still running).
pub fn reap_if_exited(pid: i32) {
    if pid > 0 {
        let mut status = 0;
        // SAFETY: plain system call on a local.
        unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
    }
}

/// The first half of [`RunningJob::wait`]: blocks until process `pid` has exited, without
/// reaping it, and kills the rest of its process group. Until [`reap`], the pid (and so the
/// group id) cannot be reused, so signals sent to it meanwhile reach nobody else.
pub fn wait_exited(pid: i32) -> std::io::Result<()> {
    sys::wait_exited(pid)?;
    let _ = exec::signal_group(pid, libc::SIGKILL);
    Ok(())
}

/// Reaps an exited child: its status and usage.
pub fn reap(pid: i32) -> std::io::Result<RawExit> {
    let (status, usage) = sys::wait4(pid)?;
    Ok(RawExit {
        status,
        user_cpu: usage.user_cpu,
        sys_cpu: usage.sys_cpu,
        max_rss_kib: usage.max_rss_kib,
        exec_error: None,
    })
}

/// The next scratch directory number of this process.
fn next_scratch_number() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
