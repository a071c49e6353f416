//! The pool's state and its main loop: the schedd's job lifecycle, the negotiator's cycles and
//! the startd's slots, in one thread that owns them all.
//!
//! Everything that happens arrives as a [`Msg`] on one channel: a tool's wake-up or command
//! from the socket thread, a job's exit from its waiter thread, a signal from the signal
//! thread. The loop takes every message waiting, acts on them, and then does one step:
//!
//! 1. If another process changed the queue (SQLite's `data_version`), re-read the idle jobs
//!    and look at the running ones (a `condor_rm` or `condor_hold` of a running job kills
//!    it).
//! 2. Claims whose job ended run the same submitter's next job that fits (HTCondor's claim
//!    reuse, no negotiation needed); others are released.
//! 3. With idle jobs and free slots, a negotiation cycle, at once after a wake-up, else every
//!    `NEGOTIATOR_INTERVAL`; matches claim slots and start jobs.
//! 4. Every queue change of the step is one transaction; the events are logged after it
//!    commits, so a log never shows what the queue does not hold.
//! 5. Every `UPDATE_INTERVAL` (at most 5 s), the startd re-evaluates its slots' policy.
//!
//! Queries for ads (`condor_status`) are answered between steps, from the state as it is.
//!
//! # Durability
//!
//! The tools' commits are durable before they are acknowledged (`synchronous = FULL`: a
//! submitted job survives even a power loss the moment `condor_submit` says so). The master's
//! own commits (a job started, ended, went back to idle) use `synchronous = NORMAL`: each is
//! written to the queue's write-ahead log before the step goes on, and the log is synced
//! right after, by the background thread ([`super::cleanup`]), rather than in the main loop,
//! where an `fsync` per step held up every job start behind the disk. Why this loses and
//! duplicates nothing:
//!
//! - A crash of the master (SIGKILL, a panic) loses nothing: a commit in the log is in the
//!   operating system's hands, and the next open of the store recovers it.
//! - A crash of the whole system can lose only a suffix of the log that was not synced yet,
//!   and only the master's own commits can be in it: every tool's commit syncs the log up to
//!   and including itself, so an acknowledged submit (or `condor_rm`, `condor_hold`, ...)
//!   is never behind an unsynced frame. SQLite applies the log only up to the last intact
//!   commit, so the store is as it was at one of the master's commits: never half a step.
//! - What such a loss undoes is a step's bookkeeping, exactly what a master crash just before
//!   that step's commit undoes with full syncs: a started job is found idle (or running, and
//!   adopted: [`Pool::recover`]) and runs again; an ended job is found running and its
//!   recorded exit is taken again. A job is never lost, and never in the queue twice (each commit moves a job
//!   between the queue and the history in one transaction). The window is the time until the
//!   background sync, about one `fsync`, instead of zero; HTCondor's schedd makes the same
//!   trade for the shadow's updates (non-durable transactions).
//!
//! Scheduler-universe jobs (DAGMan) are not negotiated for: the schedd runs them itself, as
//! soon as they are idle ([`local`]). Jobs that leave the queue removed or completed
//! take the jobs their `OtherJobRemoveRequirements` match with them, in the same transaction
//! ([`crate::client::actions::remove_other_jobs`]).
//!
//! A running job runs under its waiter, a child process (see [`crate::starter`]); one thread
//! watches them all and reports their exits ([`super::reaper`]), and another removes finished
//! jobs' scratch directories ([`super::cleanup`]). If the master dies, the waiters live on:
//! the next master records the exits of the jobs that ended meanwhile and adopts those that
//! still run, so a job runs exactly once ([`recovery`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::accountant::{resource_name, Accountant, SlotClaim};
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr, Value};
use crate::client::actions::{remove_other_jobs, OtherJobRemoval};
use crate::client::master::{AdKind, Command, DrainArgs, JobSignal, Shutdown, Subsystem};
use crate::client::userlog::{JobLogs, LogBatch};
use crate::client::Session;
use crate::config::Config;
use crate::defrag::{Defrag, DefragAction, DefragConfig};
use crate::eventlog::{
    usage_from_job_ad, EventBody, Eviction, Execute, ExitStatus, ImageSize, JobAborted, JobEvicted,
    JobHeld, JobReconnectFailed, JobSuspended, JobTerminated, RemoteError, Rusage,
};
use crate::negotiator::{self, CycleInput, IdleJob, Negotiator};
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::queue::{JobId, JobQuery, JobStatus, Queue, Stamp};
use crate::schedd::exit::{self as run, AdUpdate, ExitInfo, Outcome, RunConfig};
use crate::schedd::policy::{hold_codes, PolicyAction, UserPolicy};
use crate::startd::{
    Activity, Decision, DrainRequest, DrainSchedule, JobAction, OnCompletion, Startd, State,
};
use crate::starter::{self, JobExit, RawExit, RunningJob, StartRequest};

use super::{DaemonError, Msg};

mod autoclusters;
mod control;
mod event_loop;
mod factory;
mod journal;
mod local;
mod matchmaker;
mod now;
mod read;
mod recovery;
mod schedd;
mod shadow;
mod startd;
#[cfg(test)]
mod tests;

use control::Control;
use event_loop::Timers;
use journal::{Journal, PendingEvent};
use local::{LocalConfig, LocalJobs};
use matchmaker::{defrag_of, job_key, Matchmaking};
use schedd::{held_event, IdleIndex, ScheddState};
use shadow::{Shadows, Suspender};
use startd::{cooling_down, resume_updates};

/// Why a running job is being stopped.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Stop {
    /// `condor_rm`: it leaves the queue when its process is gone.
    Remove,
    /// `condor_hold`, or a periodic hold: the hold is already recorded.
    Hold,
    /// Vacated (shutdown, periodic vacate): back to idle.
    Vacate {
        reason: String,
        code: i64,
        subcode: i64,
    },
}

/// A role's decision that another role carries out. No role calls another: each returns
/// what it decided (start this job on that slot, stop that one, hold this one, release that
/// claim), and the loop applies the decisions in one place ([`Pool::apply`]), as the
/// negotiator's cycle returns matches instead of starting jobs.
#[derive(Debug)]
enum Action {
    /// The shadow starts idle job `job` on the claimed slot `slot` (a match, a claim reused).
    Start { job: JobId, slot: String },
    /// A running job is stopped, by the shadow or, for its own jobs, the schedd; at once
    /// (SIGKILL) when `fast`.
    Stop { job: JobId, stop: Stop, fast: bool },
    /// The startd's eviction of a job: stopped, with the startd timing the vacate itself.
    Evict {
        job: JobId,
        reason: String,
        code: i64,
        hard: bool,
    },
    /// The shadow stops a running job's processes for the startd's policy.
    Suspend { job: JobId, by: Suspender },
    /// The shadow continues a suspended job (one `by` suspended, or any for `None`).
    Continue { job: JobId, by: Option<Suspender> },
    /// The matchmaker gives its claim on `slot` back to the startd; the next negotiation
    /// cycle comes at once unless not `renegotiate` (a job that failed to start waits for
    /// the next periodic cycle).
    ReleaseClaim { slot: String, renegotiate: bool },
    /// The matchmaker forgets a claim the startd already ended.
    ForgetClaim { slot: String },
    /// The schedd puts a job that is not running on hold (its changes are in the step's
    /// journal already).
    Hold {
        job: JobId,
        ad: ClassAd,
        reason: String,
        code: i64,
        subcode: i64,
        logs: JobLogs,
    },
    /// The schedd puts a job whose run ended back among its idle jobs.
    Requeue { job: JobId, ad: ClassAd },
    /// The startd's policy runs now (a drain, or its cancel, changed the slots).
    EvaluateStartd,
    /// A drain finished with an `-on-completion` request for the daemons.
    DrainCompleted(OnCompletion),
    /// The master starts a new startd from the configuration, no claim surviving.
    RestartStartd,
    /// The schedd makes procs `first..first + count` of a job factory's cluster.
    Materialize {
        cluster: crate::queue::ClusterId,
        first: i64,
        count: i64,
    },
    /// A job factory is done and has no procs left: its cluster leaves the queue.
    RemoveFactory {
        cluster: crate::queue::ClusterId,
        completion: crate::eventlog::Completion,
    },
}

/// How long the pool is quiet before it gives back the memory its work used.
const IDLE_TRIM_DELAY: Duration = Duration::from_secs(1);

/// What the pool is doing about stopping.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lifecycle {
    Running,
    /// Stopping (the master exits, or restarts, when no job runs any more).
    Stopping {
        how: Shutdown,
        restart: bool,
    },
}

/// The pool: every daemon's state, owned by the main loop, one part per role.
pub struct Pool {
    config: Config,
    session: Session,
    queue: Queue,
    /// The startd itself (slots, claims, its policy); [`startd`] adapts its decisions.
    startd: Startd,
    to_main: Sender<Msg>,
    /// The loop's timers.
    timers: Timers,
    /// The step's changes and events, committed once per step.
    journal: Journal,
    /// The idle jobs, the schedd's own jobs, the job policy.
    schedd: ScheddState,
    /// The jobs running on slots.
    shadow: Shadows,
    /// Claims, negotiation, the accountant, defragmentation.
    matchmaker: Matchmaking,
    /// Stopping, and the daemons turned off.
    control: Control,
}

/// The clock, in seconds since the epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn knob_secs(config: &Config, name: &str, default: i64) -> Duration {
    let v = config.int(name).ok().flatten().unwrap_or(default).max(1);
    Duration::from_secs(v as u64)
}

/// The time a message or a step is handled at, read once by the loop and passed in: the
/// roles never read the clock themselves, so their logic runs as well on a made-up time
/// (the unit tests' fake clock) as on the real one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Now {
    /// The wall clock, in seconds since the epoch: what job ads and events record.
    pub(super) t: i64,
    /// The monotonic clock: what the timers and kill deadlines are set on.
    pub(super) at: Instant,
    /// The wall clock's fraction of a second past `t`.
    pub(super) fraction: Duration,
}

impl Now {
    /// The clocks as they read now.
    pub(super) fn read() -> Now {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Now {
            t: wall.as_secs() as i64,
            at: Instant::now(),
            fraction: Duration::from_nanos(u64::from(wall.subsec_nanos())),
        }
    }

    /// A made-up time: the wall clock at `t` exactly, the monotonic clock at `at`.
    #[cfg(test)]
    pub(super) fn fake(t: i64, at: Instant) -> Now {
        Now {
            t,
            at,
            fraction: Duration::ZERO,
        }
    }

    /// `d` from now, on the monotonic clock.
    pub(super) fn after(self, d: Duration) -> Instant {
        self.at + d
    }

    /// The `Instant` at which the wall clock reads `epoch_secs` (now, when that has passed).
    pub(super) fn instant_at(self, epoch_secs: i64) -> Instant {
        let ahead = Duration::from_secs((epoch_secs - self.t).max(0) as u64);
        self.at + ahead.saturating_sub(self.fraction)
    }
}

impl Pool {
    /// Opens the pool's state, recovers from an earlier master's death, and reads the queue.
    pub fn open(config: Config, to_main: Sender<Msg>) -> Result<Pool, DaemonError> {
        Pool::open_at(config, to_main, Now::read(), None)
    }

    /// A pool that runs only the clusters it is handed ([`Msg::Adopt`]), inside a tool's
    /// process: it recovers nothing, and starts, stops and polices no other job.
    pub fn open_scoped(config: Config, to_main: Sender<Msg>) -> Result<Pool, DaemonError> {
        Pool::open_at(config, to_main, Now::read(), Some(BTreeSet::new()))
    }

    /// [`Pool::open`] at time `now`.
    pub(super) fn open_at(
        config: Config,
        to_main: Sender<Msg>,
        now: Now,
        scope: Option<BTreeSet<i32>>,
    ) -> Result<Pool, DaemonError> {
        let t = now.t;
        let user = crate::client::os_user().unwrap_or_else(|| "condor".to_owned());
        let session = Session::new(config.clone(), user, t)?.direct();
        let execute = PathBuf::from(
            config
                .string("EXECUTE")?
                .ok_or_else(|| DaemonError::Config("EXECUTE is not defined".into()))?,
        );
        std::fs::create_dir_all(&execute).map_err(|e| DaemonError::io(&execute, e))?;
        let mut queue = Queue::open(session.spool())?;
        // The master's own commits do not wait for the disk (see the module documentation).
        queue.set_durable_commits(false)?;
        let report = queue.repair()?;
        tracing::info!("job queue opened: {report:?}");
        let startd = Startd::from_config(&config, t)?;
        let defrag = defrag_of(&config, startd.name())?;
        let negotiator = Negotiator::from_config(&config)?;
        let accountant = Accountant::open(negotiator.accountant_config().clone(), session.spool())?;
        let policy = UserPolicy::from_config(&config);
        let accounting_domain = config
            .string("ACCOUNTING_DOMAIN")?
            .or(config.string("UID_DOMAIN")?)
            .unwrap_or_default();
        let instant = now.at;
        let mut pool = Pool {
            timers: Timers {
                next_defrag: instant,
                negotiate_now: true,
                trim_at: Some(instant + IDLE_TRIM_DELAY),
                next_negotiation: instant,
                next_periodic: instant + knob_secs(&config, "PERIODIC_EXPR_INTERVAL", 60),
                next_update: instant,
            },
            journal: Journal::default(),
            schedd: ScheddState {
                data_version: queue.data_version()?,
                policy,
                run_config: RunConfig::from_config(&config),
                accounting_domain,
                idle: IdleIndex::default(),
                local: LocalJobs::new(LocalConfig::from_config(&config)),
                reload_next: false,
                scope,
                autoclusters: Default::default(),
            },
            shadow: Shadows {
                cleaner: super::cleanup::Cleaner::new(execute.clone()),
                execute,
                running: HashMap::new(),
                reaper: super::reaper::Reaper::new(to_main.clone()),
            },
            matchmaker: Matchmaking {
                defrag,
                negotiator,
                accountant,
                pending_accountant: None,
                checked_claims: None,
                claims: HashMap::new(),
                preempting: HashMap::new(),
                now_jobs: HashMap::new(),
                cycles: 0,
            },
            control: Control {
                lifecycle: Lifecycle::Running,
                schedd_off: false,
                startd_off: false,
                startd_exited: false,
                negotiator_off: false,
                started_at: t,
            },
            session,
            queue,
            startd,
            to_main,
            config,
        };
        pool.recover(now)?;
        pool.reload_idle()?;
        Ok(pool)
    }
}
