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
//!   recovered to idle: [`Pool::recover`]) and runs again; an ended job is found running and
//!   runs again. A job is never lost, and never in the queue twice (each commit moves a job
//!   between the queue and the history in one transaction). The window is the time until the
//!   background sync, about one `fsync`, instead of zero; HTCondor's schedd makes the same
//!   trade for the shadow's updates (non-durable transactions).
//!
//! Scheduler-universe jobs (DAGMan) are not negotiated for: the schedd runs them itself, as
//! soon as they are idle ([`super::local`]). Jobs that leave the queue removed or completed
//! take the jobs their `OtherJobRemoveRequirements` match with them, in the same transaction
//! ([`crate::client::actions::remove_other_jobs`]).
//!
//! A running job is a child process (see [`crate::starter`]); one thread watches them all
//! and reports their exits ([`super::reaper`]), and another removes finished jobs' scratch
//! directories ([`super::cleanup`]). If the master dies, the jobs' processes are found and killed at the
//! next start, and their jobs go back to idle ([`Pool::recover`]).

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
use crate::client::userlog::JobLogs;
use crate::client::Session;
use crate::config::Config;
use crate::defrag::{Defrag, DefragAction, DefragConfig};
use crate::eventlog::{
    usage_from_job_ad, EventBody, Eviction, Execute, ExitStatus, ImageSize, JobAborted, JobEvicted,
    JobHeld, JobReconnectFailed, JobSuspended, JobTerminated, Rusage,
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

use super::local::{self, LocalConfig, LocalJobs};
use super::{DaemonError, Msg};

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

/// The most a removed or held job's process gets between its kill signal and SIGKILL
/// (condorlite's bound: a removal is meant to be prompt).
const REMOVE_KILL_TIME: i64 = 10;

/// How long the pool is quiet before it gives back the memory its work used.
const IDLE_TRIM_DELAY: Duration = Duration::from_secs(1);

/// A job whose process runs.
struct Running {
    job: RunningJob,
    slot: String,
    /// The job's ad as it started (with the start attributes).
    ad: ClassAd,
    logs: JobLogs,
    submitter: Arc<str>,
    stop: Option<Stop>,
    /// When the soft kill turns into a hard one.
    hard_kill_at: Option<Instant>,
    /// The job's processes are stopped (`condor_suspend`, or the startd's SUSPEND).
    suspended: Option<Suspender>,
}

/// Who suspended a job: only the same side continues it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Suspender {
    /// `condor_suspend`: `condor_continue` continues it.
    User,
    /// The startd's policy (`SUSPEND`): its `CONTINUE` does.
    Startd,
}

impl Running {
    /// The status the queue holds for the job while it runs.
    fn status(&self) -> JobStatus {
        if self.suspended.is_some() {
            JobStatus::Suspended
        } else {
            JobStatus::Running
        }
    }
}

/// A claim on a slot: a submitter holds it between jobs.
#[derive(Clone, Debug)]
struct Claim {
    submitter: Arc<str>,
    /// The accountant's resource name.
    resource: String,
    job: Option<JobId>,
}

/// Where a job stands in its submitter's order: higher priorities first, then older ids.
type SubmitterOrder = (std::cmp::Reverse<[i64; 5]>, JobId);

/// The idle jobs, by id and in each submitter's order.
#[derive(Default)]
struct IdleIndex {
    jobs: BTreeMap<JobId, IdleJob>,
    by_submitter: HashMap<Arc<str>, BTreeSet<SubmitterOrder>>,
    /// The store's change stamps of the jobs as read from it; a job the pool changed in
    /// memory has none (it is read again at the next reload).
    stamps: HashMap<JobId, Stamp>,
}

impl IdleIndex {
    fn insert(&mut self, id: JobId, job: IdleJob) {
        if let Some(old) = self.jobs.remove(&id) {
            self.unlink(id, &old);
        }
        self.stamps.remove(&id);
        let key = (std::cmp::Reverse(job.prio.0), id);
        self.by_submitter
            .entry(job.submitter.clone())
            .or_default()
            .insert(key);
        self.jobs.insert(id, job);
    }

    fn unlink(&mut self, id: JobId, job: &IdleJob) {
        if let Some(set) = self.by_submitter.get_mut(&job.submitter) {
            set.remove(&(std::cmp::Reverse(job.prio.0), id));
            if set.is_empty() {
                self.by_submitter.remove(&job.submitter);
            }
        }
    }

    fn remove(&mut self, id: JobId) -> Option<IdleJob> {
        let job = self.jobs.remove(&id)?;
        self.unlink(id, &job);
        self.stamps.remove(&id);
        Some(job)
    }

    /// Inserts a job read from the store with its stamps.
    fn insert_read(&mut self, id: JobId, job: IdleJob, stamp: Stamp) {
        self.insert(id, job);
        self.stamps.insert(id, stamp);
    }

    /// The submitter's idle jobs, best first.
    fn of(&self, submitter: &str) -> impl Iterator<Item = &IdleJob> + '_ {
        self.by_submitter
            .get(submitter)
            .into_iter()
            .flatten()
            .filter_map(|(_, id)| self.jobs.get(id))
    }
}

/// What the step changes in one job, made in one read and one write of it.
#[derive(Clone, Default)]
pub(super) struct JobChange {
    /// The status the job had when the step decided the change: if another process
    /// changed it meanwhile (a `condor_rm` or `condor_hold` racing the job's end), that
    /// process wins and this change is dropped.
    expect: Option<JobStatus>,
    pub(super) update: AdUpdate,
    pub(super) status: Option<JobStatus>,
    pub(super) to_history: bool,
    /// The job is removed or completes with an `OtherJobRemoveRequirements`: the jobs it
    /// matches are removed in the same transaction.
    others: Option<OtherJobRemoval>,
}

/// The step's queue changes, job by job, in the order the jobs were first changed.
#[derive(Clone, Default)]
pub(super) struct Changes {
    order: Vec<JobId>,
    jobs: HashMap<JobId, JobChange>,
}

impl Changes {
    pub(super) fn of(&mut self, id: JobId) -> &mut JobChange {
        let order = &mut self.order;
        self.jobs.entry(id).or_insert_with(|| {
            order.push(id);
            JobChange::default()
        })
    }

    /// The changes of a job the step found in `status`.
    pub(super) fn expecting(&mut self, id: JobId, status: JobStatus) -> &mut JobChange {
        let c = self.of(id);
        c.expect.get_or_insert(status);
        c
    }

    fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// An event to log once the step's transaction has committed.
pub(super) struct PendingEvent {
    pub(super) logs: JobLogs,
    pub(super) id: JobId,
    pub(super) body: EventBody,
}

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

/// The pool: every daemon's state, owned by the main loop.
pub struct Pool {
    pub(super) config: Config,
    pub(super) session: Session,
    execute: PathBuf,
    pub(super) queue: Queue,
    data_version: i64,
    startd: Startd,
    /// The defrag daemon's policy, when `DAEMON_LIST` names `DEFRAG`.
    defrag: Option<Defrag>,
    next_defrag: Instant,
    negotiator: Negotiator,
    accountant: Accountant,
    /// A negotiation cycle's accounting, not yet written (see [`Pool::flush_accountant`]).
    pending_accountant: Option<crate::accountant::AccountantState>,
    /// The claims the last [`Pool::check_matches`] set, and the accountant's generation
    /// after it: the same claims on an unchanged accountant need no second pass.
    checked_claims: Option<(Vec<SlotClaim>, u64)>,
    pub(super) policy: UserPolicy,
    pub(super) run_config: RunConfig,
    accounting_domain: String,
    idle: IdleIndex,
    running: HashMap<JobId, Running>,
    /// The scheduler-universe jobs, which the schedd runs itself.
    pub(super) local: LocalJobs,
    claims: HashMap<String, Claim>,
    /// Idle jobs that preempted running ones, with the slots they wait for: they are not
    /// negotiated for again until those claims end.
    preempting: HashMap<JobId, Vec<String>>,
    pub(super) to_main: Sender<Msg>,
    /// Reports the running jobs' exits.
    pub(super) reaper: super::reaper::Reaper,
    /// Removes finished jobs' scratch directories.
    cleaner: super::cleanup::Cleaner,
    pub(super) changes: Changes,
    pub(super) events: Vec<PendingEvent>,
    /// A wake-up or a change asks for a cycle now.
    negotiate_now: bool,
    /// When the pool, quiet since, gives back the memory its work used
    /// ([`Pool::release_memory`]).
    trim_at: Option<Instant>,
    /// The idle jobs must be read again (a change of this pool's was dropped).
    pub(super) reload_next: bool,
    next_negotiation: Instant,
    next_periodic: Instant,
    next_update: Instant,
    lifecycle: Lifecycle,
    pub(super) schedd_off: bool,
    startd_off: bool,
    /// The startd exited when a drain completed (`-exit-on-completion`): `condor_on` starts
    /// a new one.
    startd_exited: bool,
    negotiator_off: bool,
    started_at: i64,
    cycles: u64,
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

fn job_key(id: JobId) -> negotiator::JobId {
    negotiator::JobId::new(id.cluster.0, id.proc)
}

fn from_key(id: negotiator::JobId) -> JobId {
    JobId::new(id.cluster, id.proc)
}

impl Pool {
    /// Opens the pool's state, recovers from an earlier master's death, and reads the queue.
    pub fn open(config: Config, to_main: Sender<Msg>) -> Result<Pool, DaemonError> {
        let t = now();
        let user = crate::client::os_user().unwrap_or_else(|| "condor".to_owned());
        let session = Session::new(config.clone(), user, t)?;
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
        let instant = Instant::now();
        let mut pool = Pool {
            data_version: queue.data_version()?,
            session,
            execute,
            queue,
            startd,
            defrag,
            next_defrag: instant,
            negotiator,
            accountant,
            pending_accountant: None,
            checked_claims: None,
            policy,
            run_config: RunConfig::from_config(&config),
            accounting_domain,
            idle: IdleIndex::default(),
            running: HashMap::new(),
            local: LocalJobs::new(LocalConfig::from_config(&config)),
            claims: HashMap::new(),
            preempting: HashMap::new(),
            reaper: super::reaper::Reaper::new(to_main.clone()),
            cleaner: super::cleanup::Cleaner::new(),
            to_main,
            changes: Changes::default(),
            events: Vec::new(),
            negotiate_now: true,
            trim_at: Some(instant + IDLE_TRIM_DELAY),
            reload_next: false,
            next_negotiation: instant,
            next_periodic: instant + knob_secs(&config, "PERIODIC_EXPR_INTERVAL", 60),
            next_update: instant,
            lifecycle: Lifecycle::Running,
            schedd_off: false,
            startd_off: false,
            startd_exited: false,
            negotiator_off: false,
            started_at: t,
            cycles: 0,
            config,
        };
        pool.recover(t)?;
        pool.reload_idle()?;
        Ok(pool)
    }

    /// Puts right what a master that died left: its jobs' processes are killed, running
    /// jobs go back to idle (their start counts kept), removed jobs leave the queue.
    fn recover(&mut self, now: i64) -> Result<(), DaemonError> {
        let killed = starter::kill_orphans(&self.execute);
        if killed > 0 {
            tracing::info!("killed {killed} processes of jobs an earlier master started");
        }
        self.kill_local_orphans();
        // Scheduler-universe jobs with hosts left are `mark_idle`'s too (held while running).
        let constraint = parse_old_expr(
            "JobStatus == 2 || JobStatus == 3 || JobStatus == 6 || JobStatus == 7 \
             || (JobUniverse == 7 && CurrentHosts > 0)",
        )
        .expect("constant expression");
        let jobs: Vec<_> = self
            .queue
            .jobs(&JobQuery::all().with_constraint(constraint))?
            .collect::<Result<Vec<_>, _>>()?;
        for job in jobs {
            let id = job.id();
            let status = job.status_code();
            let ad = job.into_ad()?;
            let logs = JobLogs::of(&self.session, &ad);
            if let Some(st) = JobStatus::from_code(status) {
                self.changes.expecting(id, st);
            }
            if status == JobStatus::Removed.code() {
                self.changes.of(id).to_history = true;
                self.finishing(id, &ad);
                self.events.push(PendingEvent {
                    logs,
                    id,
                    body: EventBody::JobAborted(JobAborted {
                        reason: lookup_str(&ad, "RemoveReason").map(|s| s.to_string()),
                    }),
                });
                continue;
            }
            if local::is_scheduler_universe(&ad) {
                // No reconnection in the scheduler universe: idle again, no event.
                tracing::info!("scheduler universe job {id} found running: stopped");
                self.push_outcome(id, local::recovered(&ad));
                continue;
            }
            tracing::info!("job {id} was running when the last master stopped: back to idle");
            let host = lookup_str(&ad, "RemoteHost").map(|s| s.to_string());
            let outcome = run::evict_updates(
                &self.run_config,
                &ad,
                "Job not found at execution machine",
                hold_codes::RECONNECT_FAILED,
                0,
                now,
            );
            self.push_outcome(id, outcome);
            self.events.push(PendingEvent {
                logs,
                id,
                body: EventBody::JobReconnectFailed(JobReconnectFailed {
                    reason: "Job not found at execution machine".to_owned(),
                    startd_name: host.unwrap_or_default(),
                }),
            });
        }
        self.commit()?;
        Ok(())
    }

    /// Reads the idle jobs again after another process changed the queue: only the ads of
    /// jobs that are new or whose change stamps moved (a 10,000-job idle queue costs a scan
    /// of its status index, not 10,000 ads decoded).
    fn reload_idle(&mut self) -> Result<(), DaemonError> {
        let scanned = self.queue.stamps(JobStatus::Idle)?;
        // Jobs no longer idle (or gone) leave the index: a walk of both sorted lists.
        let mut gone = Vec::new();
        let mut next = scanned.iter().map(|(id, _)| *id).peekable();
        for &id in self.idle.jobs.keys() {
            while next.next_if(|s| *s < id).is_some() {}
            if next.peek() != Some(&id) || self.running.contains_key(&id) {
                gone.push(id);
            }
        }
        for id in gone {
            self.idle.remove(id);
        }
        self.local.retain_idle(&scanned);
        // New, changed by another process, or changed in memory by the pool: read again by
        // key (the jobs of one cluster then share its ad).
        let mut stale: BTreeMap<JobId, Stamp> = scanned
            .into_iter()
            .filter(|(id, stamp)| {
                !self.running.contains_key(id)
                    && !self.local.is_running(*id)
                    && self.idle.stamps.get(id) != Some(stamp)
                    && !self.local.has_stamp(*id, stamp)
            })
            .collect();
        if stale.is_empty() {
            return Ok(());
        }
        let mut read = Vec::new();
        for job in self.queue.jobs_by_id(stale.keys().copied())? {
            if job.status_code() != JobStatus::Idle.code() {
                continue;
            }
            if let Some(stamp) = stale.remove(&job.id()) {
                read.push((job.id(), job.into_ad()?, stamp));
            }
        }
        // What is left was gone or no longer idle by the read (a commit after the scan):
        // the next reload sees where it went.
        for id in stale.into_keys() {
            self.idle.remove(id);
            self.local.forget_idle(id);
        }
        for (id, ad, stamp) in read {
            if local::is_scheduler_universe(&ad) {
                // Never negotiated for: the schedd starts it itself.
                self.idle.remove(id);
                self.local.insert_idle(id, ad, Some(stamp));
                continue;
            }
            self.local.forget_idle(id);
            self.idle.insert_read(
                id,
                IdleJob::new(job_key(id), ad, &self.accounting_domain),
                stamp,
            );
        }
        Ok(())
    }

    /// Runs the main loop until the pool stops; true when it should restart.
    pub fn run(mut self, rx: Receiver<Msg>) -> bool {
        tracing::info!(
            "condor_master running: {} slots",
            self.startd.slot_ads().len()
        );
        loop {
            let timeout = self
                .next_deadline()
                .saturating_duration_since(Instant::now());
            let mut msgs = Vec::new();
            match rx.recv_timeout(timeout) {
                Ok(m) => msgs.push(m),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return false,
            }
            msgs.extend(rx.try_iter());
            if msgs.is_empty() && self.trim_at.is_some_and(|t| t <= Instant::now()) {
                self.trim_at = None;
                self.release_memory();
            } else if !msgs.is_empty() {
                self.trim_at = Some(Instant::now() + IDLE_TRIM_DELAY);
            }
            for m in msgs {
                self.handle(m);
            }
            if let Err(e) = self.step() {
                tracing::error!("{e}");
            }
            if let Lifecycle::Stopping { restart, .. } = self.lifecycle {
                if self.running.is_empty() && self.local.running.is_empty() {
                    self.release_all_claims();
                    let _ = self.commit();
                    self.cleaner.finish();
                    tracing::info!("condor_master stopping");
                    return restart;
                }
            }
        }
    }

    fn next_deadline(&self) -> Instant {
        let mut t = self
            .next_negotiation
            .min(self.next_periodic)
            .min(self.next_update);
        if let Some(timer) = self.startd.next_timer(now()) {
            t = t.min(instant_at(timer));
        }
        if self.defrag.is_some() {
            t = t.min(self.next_defrag);
        }
        for r in self.running.values() {
            if let Some(k) = r.hard_kill_at {
                t = t.min(k);
            }
        }
        if let Some(k) = self.local.next_deadline() {
            t = t.min(k);
        }
        if let Some(trim) = self.trim_at {
            t = t.min(trim);
        }
        if self.negotiate_now {
            t = Instant::now();
        }
        t
    }

    /// After a burst of work, gives back the memory it used: the queue connection's page
    /// cache, and the allocator's free pages (glibc keeps freed memory for reuse otherwise).
    fn release_memory(&mut self) {
        if let Err(e) = self.queue.release_memory() {
            tracing::warn!("{e}");
        }
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: malloc_trim only returns free memory of the allocator to the system.
        unsafe {
            libc::malloc_trim(0);
        }
    }

    fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Wake => {
                self.negotiate_now = true;
                self.local.woken();
            }
            Msg::Exited { job } => {
                if !self.local_exited(job) {
                    self.job_exited(job);
                }
            }
            Msg::Command(cmd, reply) => {
                let r = self.command(cmd);
                let _ = reply.send(r);
            }
            Msg::Signal(sig) => self.signal(sig),
            Msg::Query(kind, reply) => {
                let _ = reply.send(super::server::render(&self.ads(kind)));
            }
        }
    }

    fn signal(&mut self, sig: i32) {
        use nix::sys::signal::Signal;
        match Signal::try_from(sig) {
            Ok(Signal::SIGHUP) => {
                if let Err(e) = self.reconfig() {
                    tracing::error!("reconfig failed: {e}");
                }
            }
            Ok(Signal::SIGQUIT) => self.stop(Shutdown::Fast, false),
            Ok(_) => self.stop(Shutdown::Graceful, false),
            Err(_) => {}
        }
    }

    fn command(&mut self, cmd: Command) -> Result<String, String> {
        tracing::info!("command: {}", cmd.line());
        match cmd {
            Command::Jobs(signal, ids) => return Ok(self.signal_jobs(signal, &ids)),
            Command::Drain(args) => {
                let request = drain_request(args)?;
                let id = self
                    .startd
                    .drain(request, now())
                    .map_err(|e| e.to_string())?;
                self.apply_startd(now());
                return Ok(id);
            }
            Command::CancelDrain(id) => {
                self.startd
                    .cancel_drain(id.as_deref(), now())
                    .map_err(|e| e.to_string())?;
                self.apply_startd(now());
                self.negotiate_now = true;
            }
            Command::Reschedule => {
                self.negotiate_now = true;
                self.local.woken();
            }
            Command::Reconfig => self.reconfig().map_err(|e| e.to_string())?,
            Command::Off(Subsystem::Master, how) => self.stop(how, false),
            Command::Restart(Subsystem::Master, how) => self.stop(how, true),
            Command::Off(daemon, how) => {
                self.set_off(daemon, true);
                if matches!(
                    daemon,
                    Subsystem::Daemons | Subsystem::Schedd | Subsystem::Startd
                ) {
                    self.vacate_all(how, "the daemon was turned off");
                }
                if matches!(daemon, Subsystem::Daemons | Subsystem::Schedd) {
                    self.vacate_local(how);
                }
            }
            Command::Restart(daemon, how) => {
                if matches!(
                    daemon,
                    Subsystem::Daemons | Subsystem::Schedd | Subsystem::Startd
                ) {
                    self.vacate_all(how, "the daemon was restarted");
                }
                if matches!(daemon, Subsystem::Daemons | Subsystem::Schedd) {
                    self.vacate_local(how);
                }
                self.reconfig().map_err(|e| e.to_string())?;
            }
            Command::On(daemon) => {
                self.set_off(daemon, false);
                if self.startd_exited && !self.startd_off {
                    // The startd that exited on a drain's completion starts afresh.
                    self.restart_startd();
                }
                self.negotiate_now = true;
                self.local.woken();
            }
            // The socket sends queries as `Msg::Query`; one arriving here changes nothing.
            Command::Query(_) => {}
        }
        Ok(String::new())
    }

    /// Turns daemons off (`condor_off -schedd`, ...) or back on; the master stands for all.
    fn set_off(&mut self, daemon: Subsystem, off: bool) {
        match daemon {
            Subsystem::Master | Subsystem::Daemons => {
                self.schedd_off = off;
                self.startd_off = off;
                self.negotiator_off = off;
            }
            Subsystem::Schedd => self.schedd_off = off,
            Subsystem::Startd => self.startd_off = off,
            Subsystem::Negotiator | Subsystem::Collector => self.negotiator_off = off,
        }
    }

    /// Reads the configuration again (`condor_reconfig`, SIGHUP).
    fn reconfig(&mut self) -> Result<(), DaemonError> {
        let config = Config::load()?;
        let t = now();
        self.flush_accountant();
        self.startd.reconfigure(&config, t)?;
        self.defrag = defrag_of(&config, self.startd.name())?;
        let neg = Negotiator::from_config(&config)?;
        self.negotiator
            .reconfigure(neg.config().clone(), neg.accountant_config().clone());
        self.policy = UserPolicy::from_config(&config);
        self.run_config = RunConfig::from_config(&config);
        self.local.config = LocalConfig::from_config(&config);
        self.local.woken();
        self.accountant = Accountant::open(
            self.negotiator.accountant_config().clone(),
            self.session.spool(),
        )?;
        self.checked_claims = None;
        self.accounting_domain = config
            .string("ACCOUNTING_DOMAIN")?
            .or(config.string("UID_DOMAIN")?)
            .unwrap_or_default();
        self.session = Session::new(config.clone(), self.session.user.clone(), t)?;
        self.config = config;
        // The idle jobs' submitter names carry the accounting domain: read them all again.
        self.idle = IdleIndex::default();
        self.reload_next = true;
        self.negotiate_now = true;
        tracing::info!("reconfigured");
        Ok(())
    }

    /// Begins stopping: no new job starts; running jobs are vacated as `how` says.
    fn stop(&mut self, how: Shutdown, restart: bool) {
        tracing::info!("shutting down ({})", how.word());
        self.lifecycle = Lifecycle::Stopping { how, restart };
        self.vacate_all(how, "the condor_master is shutting down");
        // The schedd's shutdown: its own jobs get their KillSig and go back to idle.
        self.vacate_local(how);
    }

    fn vacate_all(&mut self, how: Shutdown, why: &str) {
        if how == Shutdown::Peaceful {
            return;
        }
        let ids: Vec<JobId> = self.running.keys().copied().collect();
        for id in ids {
            self.stop_job(
                id,
                Stop::Vacate {
                    reason: why.to_owned(),
                    code: hold_codes::JOB_SHOULD_REQUEUE,
                    subcode: 0,
                },
                how == Shutdown::Fast,
            );
        }
    }

    /// Kills a running job: its KillSig now and SIGKILL after the vacate time, or SIGKILL
    /// at once.
    fn stop_job(&mut self, id: JobId, stop: Stop, fast: bool) {
        let vacate = self.vacate_time(id, &stop);
        let t = now();
        // A stopped process takes its signal once it runs again: the job is continued first
        // (the starter continues a suspended job it kills), its suspension ended.
        if let Some(by) = self.running.get(&id).and_then(|r| r.suspended) {
            let slot = self.running.get(&id).map(|r| r.slot.clone());
            self.continue_job(id, None, t);
            if let (Suspender::User, Some(slot)) = (by, slot) {
                if let Err(e) = self.startd.continue_claim(&slot, t) {
                    tracing::warn!("continuing the claim on {slot}: {e}");
                }
            }
        }
        let Some(r) = self.running.get_mut(&id) else {
            return;
        };
        if r.stop.is_none() || stop == Stop::Remove {
            r.stop = Some(stop);
        }
        let deadline = Instant::now() + vacate;
        if fast {
            let _ = r.job.hard_kill();
            r.hard_kill_at = None;
        } else if r.hard_kill_at.is_none() {
            // condor_rm and condor_hold send the job's RemoveKillSig and HoldKillSig (each
            // KillSig's default when unset), a vacate its KillSig.
            let _ = match r.stop {
                Some(Stop::Remove) => r.job.send_signal(r.job.remove_kill_sig()),
                Some(Stop::Hold) => r.job.send_signal(r.job.hold_kill_sig()),
                _ => r.job.soft_kill(),
            };
            r.hard_kill_at = Some(deadline);
        } else if matches!(r.stop, Some(Stop::Remove | Stop::Hold)) {
            // A removal or hold after a vacate: its shorter bound holds.
            r.hard_kill_at = r.hard_kill_at.map(|k| k.min(deadline));
        }
    }

    /// `condor_vacate_job`, `condor_suspend` and `condor_continue` on running jobs; the ids
    /// not acted on (not running here, already stopping, or not in the state the signal
    /// needs), as a space-separated list.
    fn signal_jobs(&mut self, signal: JobSignal, ids: &[JobId]) -> String {
        let t = now();
        let mut missed = Vec::new();
        for &id in ids {
            if let Some(done) = self.signal_local(id, signal) {
                if !done {
                    missed.push(id.to_string());
                }
                continue;
            }
            let done = match signal {
                JobSignal::Vacate | JobSignal::VacateFast => {
                    let stoppable = self.running.get(&id).is_some_and(|r| r.stop.is_none());
                    if stoppable {
                        self.stop_job(
                            id,
                            Stop::Vacate {
                                reason: "Job vacated by schedd".to_owned(),
                                code: hold_codes::SCHEDD_VACATE,
                                subcode: 0,
                            },
                            signal == JobSignal::VacateFast,
                        );
                    }
                    stoppable
                }
                JobSignal::Suspend => {
                    // The startd first: a claim it cannot suspend (retiring to be vacated,
                    // ...) leaves the job running.
                    let slot = self
                        .running
                        .get(&id)
                        .filter(|r| r.stop.is_none() && r.suspended.is_none())
                        .map(|r| r.slot.clone());
                    match slot {
                        Some(slot) => match self.startd.suspend_claim(&slot, t) {
                            Ok(()) => self.suspend_job(id, Suspender::User, t),
                            Err(e) => {
                                tracing::warn!("suspending the claim on {slot}: {e}");
                                false
                            }
                        },
                        None => false,
                    }
                }
                JobSignal::Continue => {
                    let done = self.continue_job(id, Some(Suspender::User), t);
                    if let Some(slot) = self.running.get(&id).map(|r| r.slot.clone()) {
                        if done {
                            if let Err(e) = self.startd.continue_claim(&slot, t) {
                                tracing::warn!("continuing the claim on {slot}: {e}");
                            }
                        }
                    }
                    done
                }
            };
            if !done {
                missed.push(id.to_string());
            }
        }
        missed.join(" ")
    }

    /// Stops a running job's processes: the job is `Suspended` (7), its suspension counted
    /// (`TotalSuspensions`, `LastSuspensionTime`) and logged (010), as the shadow's
    /// `recordSuspendEvent` has it.
    fn suspend_job(&mut self, id: JobId, by: Suspender, t: i64) -> bool {
        let Some(r) = self.running.get_mut(&id) else {
            return false;
        };
        if r.stop.is_some() || r.suspended.is_some() || r.job.suspend().is_err() {
            return false;
        }
        let expect = r.status();
        r.suspended = Some(by);
        let mut update = AdUpdate::default();
        let total = lookup_int(&r.ad, "TotalSuspensions").unwrap_or(0) + 1;
        update.set("TotalSuspensions", Expr::lit(total));
        update.set("LastSuspensionTime", Expr::lit(t));
        update.apply(&mut r.ad);
        r.ad.insert("JobStatus", Expr::lit(JobStatus::Suspended.code()));
        let body = EventBody::JobSuspended(JobSuspended {
            num_pids: starter::group_size(r.job.pid) as i32,
        });
        let logs = r.logs.clone();
        let change = self.changes.expecting(id, expect);
        change.update.extend(update);
        change.status = Some(JobStatus::Suspended);
        self.events.push(PendingEvent { logs, id, body });
        true
    }

    /// Continues a suspended job (one `by` suspended, or any for `None`): `Running` again,
    /// the time it spent suspended added to `CumulativeSuspensionTime` (the shadow's
    /// `recordResumeEvent`), event 011.
    fn continue_job(&mut self, id: JobId, by: Option<Suspender>, t: i64) -> bool {
        let Some(r) = self.running.get_mut(&id) else {
            return false;
        };
        let matches = r.suspended.is_some() && (by.is_none() || r.suspended == by);
        if !matches || r.job.resume().is_err() {
            return false;
        }
        r.suspended = None;
        let update = resume_updates(&r.ad, t);
        update.apply(&mut r.ad);
        r.ad.insert("JobStatus", Expr::lit(JobStatus::Running.code()));
        let logs = r.logs.clone();
        let change = self.changes.expecting(id, JobStatus::Suspended);
        change.update.extend(update);
        change.status = Some(JobStatus::Running);
        self.events.push(PendingEvent {
            logs,
            id,
            body: EventBody::JobUnsuspended,
        });
        true
    }

    /// How long a job gets between its soft and hard kill: the smaller of the job's
    /// `JobMaxVacateTime` and the machine's `MachineMaxVacateTime` (600 s by default); a
    /// removal or a hold gets at most [`REMOVE_KILL_TIME`].
    fn vacate_time(&self, id: JobId, stop: &Stop) -> Duration {
        self.vacate_time_of(self.running.get(&id).map(|r| &r.ad), stop)
    }

    /// [`Pool::vacate_time`] of a job whose ad this is.
    pub(super) fn vacate_time_of(&self, ad: Option<&ClassAd>, stop: &Stop) -> Duration {
        let machine = self
            .config
            .int("MachineMaxVacateTime")
            .ok()
            .flatten()
            .unwrap_or(600);
        let job = ad
            .and_then(|ad| lookup_int(ad, "JobMaxVacateTime"))
            .unwrap_or(machine);
        let mut secs = job.min(machine).max(0);
        if matches!(stop, Stop::Remove | Stop::Hold) {
            secs = secs.min(REMOVE_KILL_TIME);
        }
        Duration::from_secs(secs as u64)
    }

    /// One step of the loop (see the module documentation).
    fn step(&mut self) -> Result<(), DaemonError> {
        let t = now();
        self.session.now = t;
        let version = self.queue.data_version()?;
        if version != self.data_version || self.reload_next {
            // What the messages changed is committed before the queue is read again.
            self.commit()?;
            self.reload_next = false;
            self.queue_changed()?;
            self.data_version = version;
        }
        let instant = Instant::now();
        let kills: Vec<JobId> = self
            .running
            .iter()
            .filter(|(_, r)| r.hard_kill_at.is_some_and(|k| k <= instant))
            .map(|(id, _)| *id)
            .collect();
        for id in kills {
            if let Some(r) = self.running.get_mut(&id) {
                let _ = r.job.hard_kill();
                r.hard_kill_at = None;
            }
        }
        self.local_hard_kills(instant);
        if instant >= self.next_periodic {
            self.periodic(t)?;
            self.next_periodic = instant + knob_secs(&self.config, "PERIODIC_EXPR_INTERVAL", 60);
        }
        self.start_local_jobs(t, instant >= self.next_negotiation);
        if self.accepting() {
            self.reuse_claims(t);
            let due = self.negotiate_now || instant >= self.next_negotiation;
            if due && !self.negotiator_off {
                self.negotiate(t)?;
            }
        } else {
            self.release_idle_claims(t);
        }
        self.negotiate_now = false;
        if instant >= self.next_negotiation {
            self.next_negotiation = instant + knob_secs(&self.config, "NEGOTIATOR_INTERVAL", 60);
        }
        let timer_due = self.startd.next_timer(t).is_some_and(|at| at <= t);
        if timer_due || instant >= self.next_update {
            self.apply_startd(t);
            self.next_update = instant + knob_secs(&self.config, "POLLING_INTERVAL", 5);
        }
        if self.defrag.is_some() && instant >= self.next_defrag && self.accepting() {
            self.defrag(t);
        }
        self.commit()?;
        Ok(())
    }

    /// A defrag poll (`DEFRAG_INTERVAL`): its drains and cancels go to the startd.
    fn defrag(&mut self, t: i64) {
        let Some(defrag) = self.defrag.as_mut() else {
            return;
        };
        let interval = defrag.config.interval;
        if interval <= 0 {
            self.next_defrag = Instant::now() + Duration::from_secs(3600);
            return;
        }
        self.next_defrag = Instant::now() + Duration::from_secs(interval as u64);
        self.startd.refresh(t);
        let slots = self.startd.slot_ads();
        // On one host, draining is for a job that waits: one that the whole machine could
        // run but the partitionable slots, as fragmented, cannot. Without one the poll is
        // skipped (a pool's defrag drains at its rate whatever the queue holds).
        let pslots = || {
            slots
                .iter()
                .filter(|a| lookup_bool(a, "PartitionableSlot") == Some(true))
        };
        let free = pslots()
            .filter_map(|a| lookup_int(a, "Cpus"))
            .max()
            .unwrap_or(0);
        let whole = pslots()
            .filter_map(|a| lookup_int(a, "TotalSlotCpus"))
            .max()
            .unwrap_or(0);
        let waiting = self.idle.jobs.values().any(|j| {
            let cpus = lookup_int(&j.ad, "RequestCpus").unwrap_or(1);
            cpus > free && cpus <= whole && !cooling_down(&j.ad, t)
        });
        let actions = if waiting {
            defrag.poll(&slots, t)
        } else {
            Vec::new()
        };
        for action in actions {
            match action {
                DefragAction::Drain { machine, request } => match self.startd.drain(request, t) {
                    Ok(id) => tracing::info!("defrag: draining {machine} (request {id})"),
                    Err(e) => tracing::info!("defrag: failed to drain {machine}: {e}"),
                },
                DefragAction::Cancel { machine } => {
                    tracing::info!("defrag: cancelling the draining of {machine}");
                    if let Err(e) = self.startd.cancel_drain(None, t) {
                        tracing::info!("defrag: failed to cancel draining on {machine}: {e}");
                    }
                    self.negotiate_now = true;
                }
            }
        }
        self.apply_startd(t);
    }

    /// Runs the startd's policy and carries out what it decided: suspending, continuing,
    /// vacating and killing jobs, forgetting the claims it ended, and what a finished drain
    /// asks of the daemons.
    fn apply_startd(&mut self, t: i64) {
        for decision in self.startd.evaluate(t) {
            match decision {
                Decision::Job { slot, action } => {
                    let Some(id) = self.claims.get(&slot).and_then(|c| c.job) else {
                        continue;
                    };
                    // A decision may wait a step (a query's refresh made it) while its job
                    // ends and another starts on the slot: it stands only if the slot is
                    // still where the decision put it.
                    let now_in = self.startd.state(&slot);
                    let current = match action {
                        JobAction::Suspend => now_in == Some((State::Claimed, Activity::Suspended)),
                        JobAction::Continue => self.running.get(&id).is_some_and(|r| {
                            r.suspended.is_some()
                                && now_in != Some((State::Claimed, Activity::Suspended))
                        }),
                        JobAction::Vacate { .. } | JobAction::Kill { .. } => {
                            now_in.is_some_and(|(s, _)| s == State::Preempting)
                        }
                    };
                    if !current {
                        tracing::debug!("stale startd decision on {slot} dropped: {action:?}");
                        continue;
                    }
                    tracing::info!("startd policy on {slot} (job {id}): {action:?}");
                    match action {
                        JobAction::Suspend => {
                            self.suspend_job(id, Suspender::Startd, t);
                        }
                        // The startd continues any suspended job before it evicts it, whoever
                        // suspended it.
                        JobAction::Continue => {
                            self.continue_job(id, None, t);
                        }
                        JobAction::Vacate { reason, code } => self.evict(id, reason, code, false),
                        JobAction::Kill { reason, code } => self.evict(id, reason, code, true),
                    }
                }
                Decision::ClaimEnded { slot, reason } => {
                    if self
                        .startd
                        .state(&slot)
                        .is_some_and(|(s, _)| s == State::Claimed)
                    {
                        // Claimed again since (a stale decision): the new claim stands.
                        continue;
                    }
                    tracing::info!("startd ended the claim on {slot}: {reason}");
                    self.forget_claim(&slot, t);
                }
                Decision::Daemon(what) => self.drain_completed(what),
            }
        }
    }

    /// The startd's eviction of a job: back to idle with the startd's reason and code. The
    /// startd times the vacate itself (a `Kill` follows when the vacate time is over).
    fn evict(&mut self, id: JobId, reason: String, code: i64, hard: bool) {
        let own_stop = self.running.get(&id).is_some_and(|r| r.stop.is_some());
        self.stop_job(
            id,
            Stop::Vacate {
                reason,
                code,
                subcode: 0,
            },
            hard,
        );
        if !own_stop {
            if let Some(r) = self.running.get_mut(&id) {
                r.hard_kill_at = None;
            }
        }
    }

    /// A new startd from the configuration, as when the master restarts one: its slots are
    /// fresh (not draining), and no claim survives.
    fn restart_startd(&mut self) {
        match Startd::from_config(&self.config, now()) {
            Ok(startd) => {
                self.release_all_claims();
                self.startd = startd;
                self.startd_exited = false;
                self.negotiate_now = true;
            }
            Err(e) => tracing::error!("restarting the startd: {e}"),
        }
    }

    /// A drain finished with an `-on-completion` request: `-exit-on-completion` turns the
    /// startd off (as the master does not restart an exited startd), `-restart-on-completion`
    /// starts it afresh from the configuration, `-reconfig-on-completion` reconfigures.
    fn drain_completed(&mut self, what: OnCompletion) {
        tracing::info!("draining completed: {what:?}");
        match what {
            OnCompletion::Exit => {
                self.set_off(Subsystem::Startd, true);
                self.startd_exited = true;
            }
            OnCompletion::Restart => self.restart_startd(),
            OnCompletion::Reconfig => {
                if let Err(e) = self.reconfig() {
                    tracing::error!("reconfig failed: {e}");
                }
            }
            OnCompletion::Resume | OnCompletion::Nothing => self.negotiate_now = true,
        }
    }

    fn accepting(&self) -> bool {
        self.lifecycle == Lifecycle::Running && !self.schedd_off && !self.startd_off
    }

    /// Whether the master runs on (it is not stopping).
    pub(super) fn lifecycle_running(&self) -> bool {
        self.lifecycle == Lifecycle::Running
    }

    /// Another process changed the queue: new or released jobs, and running jobs removed or
    /// held.
    fn queue_changed(&mut self) -> Result<(), DaemonError> {
        self.reload_idle()?;
        let running: Vec<JobId> = self.running.keys().copied().collect();
        for id in running {
            let job = self.queue.job(id)?;
            let status = job.as_ref().map(|j| j.status_code());
            let stop = match status.and_then(JobStatus::from_code) {
                None | Some(JobStatus::Removed) => Stop::Remove,
                Some(JobStatus::Held) => Stop::Hold,
                _ => continue,
            };
            // The tool's reasons, for the events and the history.
            if let (Some(job), Some(r)) = (job, self.running.get_mut(&id)) {
                let ad = job.into_ad()?;
                for attr in [
                    "RemoveReason",
                    "HoldReason",
                    "HoldReasonCode",
                    "HoldReasonSubCode",
                ] {
                    if let Some(e) = ad.lookup(attr) {
                        r.ad.insert(attr, e.clone());
                    }
                }
            }
            self.stop_job(id, stop, false);
        }
        self.local_queue_changed()?;
        self.negotiate_now = true;
        Ok(())
    }

    /// The periodic policy pass over every job (`PERIODIC_EXPR_INTERVAL`).
    fn periodic(&mut self, t: i64) -> Result<(), DaemonError> {
        // The pass reads the queue: what this step changed is committed first.
        self.commit()?;
        let jobs: Vec<_> = self
            .queue
            .jobs(&JobQuery::all())?
            .collect::<Result<Vec<_>, _>>()?;
        for job in jobs {
            let id = job.id();
            let Some(status) = job.status() else {
                continue;
            };
            let mut ad = job.into_ad()?;
            if let Some(r) = self.running.get(&id) {
                if r.stop.is_some() {
                    continue;
                }
                ad = r.ad.clone();
            }
            if let Some(l) = self.local.running.get(&id) {
                if l.stop.is_some() {
                    continue;
                }
                ad = l.ad.clone();
            }
            let firing = self.policy.periodic(&ad, status.code(), t);
            if !firing.fired() {
                continue;
            }
            self.changes.expecting(id, status);
            let logs = JobLogs::of(&self.session, &ad);
            let reason = firing.reason_or_unknown().to_owned();
            if self.running.contains_key(&id) || self.local.is_running(id) {
                match firing.action {
                    PolicyAction::HoldInQueue | PolicyAction::UndefinedEval => {
                        self.hold(id, &ad, &reason, firing.code, firing.subcode, logs);
                        self.stop_running(id, Stop::Hold);
                    }
                    PolicyAction::RemoveFromQueue => {
                        self.changes
                            .of(id)
                            .update
                            .set("RemoveReason", Expr::lit(reason.as_str()));
                        if let Some(r) = self.running.get_mut(&id) {
                            r.ad.insert("RemoveReason", Expr::lit(reason.as_str()));
                        }
                        if let Some(l) = self.local.running.get_mut(&id) {
                            l.ad.insert("RemoveReason", Expr::lit(reason.as_str()));
                        }
                        self.changes.of(id).status = Some(JobStatus::Removed);
                        self.finishing(id, &ad);
                        self.stop_running(id, Stop::Remove);
                    }
                    PolicyAction::VacateFromRunning => self.stop_running(
                        id,
                        Stop::Vacate {
                            reason,
                            code: firing.vacate_code(),
                            subcode: firing.subcode,
                        },
                    ),
                    PolicyAction::StaysInQueue | PolicyAction::ReleaseFromHold => {}
                }
                continue;
            }
            let Some(outcome) = run::periodic_outcome(&self.run_config, &ad, status, &firing, t)
            else {
                continue;
            };
            let body = match outcome.status {
                Some(JobStatus::Held) => held_event(&reason, firing.code, firing.subcode),
                Some(JobStatus::Removed) => EventBody::JobAborted(JobAborted {
                    reason: Some(reason.clone()),
                }),
                _ => EventBody::JobReleased(crate::eventlog::JobReleased {
                    reason: Some(reason.clone()),
                }),
            };
            let new_status = outcome.status;
            let mut updated = ad.clone();
            outcome.updates.apply(&mut updated);
            self.idle.remove(id);
            self.local.forget_idle(id);
            self.push_outcome(id, outcome);
            match new_status {
                Some(JobStatus::Removed) => {
                    self.changes.of(id).to_history = true;
                    self.finishing(id, &updated);
                }
                Some(JobStatus::Idle) => {
                    self.requeue(id, updated);
                    self.negotiate_now = true;
                }
                _ => {}
            }
            self.events.push(PendingEvent { logs, id, body });
        }
        Ok(())
    }

    /// Stops a running job, whether the startd's slot or the schedd itself runs it.
    fn stop_running(&mut self, id: JobId, stop: Stop) {
        if !self.stop_local(id, stop.clone(), false) {
            self.stop_job(id, stop, false);
        }
    }

    /// Job `id` (whose ad this is) is removed or completes in this step: its
    /// `OtherJobRemoveRequirements`, if any, removes the jobs it matches when the step
    /// commits (the schedd does it when such a job leaves the queue: `jobIsFinished`).
    pub(super) fn finishing(&mut self, id: JobId, ad: &ClassAd) {
        if let Some(others) = OtherJobRemoval::of(id, ad) {
            self.changes.of(id).others = Some(others);
        }
    }

    /// Queues an outcome's changes: its attributes, then its status.
    pub(super) fn push_outcome(&mut self, id: JobId, outcome: Outcome) {
        self.changes.of(id).update.extend(outcome.updates);
        if let Some(status) = outcome.status {
            self.changes.of(id).status = Some(status);
        }
    }

    /// Puts a job that is not running on hold, logging the hold.
    pub(super) fn hold(
        &mut self,
        id: JobId,
        ad: &ClassAd,
        reason: &str,
        code: i64,
        subcode: i64,
        logs: JobLogs,
    ) {
        self.idle.remove(id);
        self.local.forget_idle(id);
        self.changes
            .of(id)
            .update
            .extend(run::hold_updates(ad, reason, code, subcode));
        self.changes.of(id).status = Some(JobStatus::Held);
        self.events.push(PendingEvent {
            logs,
            id,
            body: held_event(reason, code, subcode),
        });
    }

    /// Claims without a job take their submitter's next fitting job, or are released.
    fn reuse_claims(&mut self, t: i64) {
        let free: Vec<(String, Arc<str>)> = self
            .claims
            .iter()
            .filter(|(_, c)| c.job.is_none())
            .map(|(s, c)| (s.clone(), c.submitter.clone()))
            .collect();
        for (slot, submitter) in free {
            let next = self
                .idle
                .of(&submitter)
                .find(|j| !cooling_down(&j.ad, t) && self.startd.may_reuse(&slot, &j.ad, t))
                .map(|j| from_key(j.id));
            match next {
                Some(id) => self.start_job(id, &slot, t),
                None => self.release_claim(&slot, t),
            }
        }
    }

    fn release_idle_claims(&mut self, t: i64) {
        let free: Vec<String> = self
            .claims
            .iter()
            .filter(|(_, c)| c.job.is_none())
            .map(|(s, _)| s.clone())
            .collect();
        for slot in free {
            self.release_claim(&slot, t);
        }
    }

    fn release_all_claims(&mut self) {
        let t = now();
        let all: Vec<String> = self.claims.keys().cloned().collect();
        for slot in all {
            self.release_claim(&slot, t);
        }
    }

    fn release_claim(&mut self, slot: &str, t: i64) {
        if self.claims.contains_key(slot) {
            self.startd.release(slot, t);
        }
        self.forget_claim(slot, t);
    }

    /// Drops the schedd's side of a claim the startd no longer has, and the accountant's
    /// match.
    fn forget_claim(&mut self, slot: &str, t: i64) {
        let Some(claim) = self.claims.remove(slot) else {
            return;
        };
        self.flush_accountant();
        let resource = claim.resource;
        if let Err(e) = self
            .accountant
            .update(|s, cfg| s.remove_match(cfg, &resource, t))
        {
            tracing::error!("accountant: {e}");
        }
        // A job waiting for this slot's job to be preempted may be matched again.
        for victims in self.preempting.values_mut() {
            victims.retain(|v| v != slot);
        }
        self.preempting.retain(|_, victims| !victims.is_empty());
        self.negotiate_now = true;
    }

    /// Forgets the preemptions of jobs no longer idle (started elsewhere, removed, held):
    /// their victims stop retiring for them (HTCondor's #19).
    fn prune_preemptions(&mut self, t: i64) {
        let gone: Vec<JobId> = self
            .preempting
            .keys()
            .filter(|id| !self.idle.jobs.contains_key(id))
            .copied()
            .collect();
        for id in gone {
            for victim in self.preempting.remove(&id).unwrap_or_default() {
                if let Err(e) = self.startd.withdraw_preemption(&victim, t) {
                    tracing::debug!("withdrawing the preemption of {victim}: {e}");
                }
            }
        }
    }

    /// Writes a negotiation cycle's accounting, when it waits (see [`Pool::negotiate`]).
    fn flush_accountant(&mut self) {
        if let Some(next) = self.pending_accountant.take() {
            if let Err(e) = self.accountant.commit(next) {
                tracing::error!("accountant: {e}");
            }
        }
    }

    /// Sets the accountant's matches to the claims the slots have (HTCondor's CheckMatches).
    fn check_matches(&mut self, slots: &[ClassAd], t: i64) {
        let claims: Vec<SlotClaim> = slots
            .iter()
            .map(|a| SlotClaim::from_ad(a, self.accountant.config()))
            .collect();
        let generation = self.accountant.generation();
        if self
            .checked_claims
            .as_ref()
            .is_some_and(|(c, g)| *g == generation && *c == claims)
        {
            return;
        }
        match self
            .accountant
            .update(|s, cfg| s.check_matches(cfg, &claims, t))
        {
            Ok(()) => self.checked_claims = Some((claims, self.accountant.generation())),
            Err(e) => tracing::error!("accountant: {e}"),
        }
    }

    /// A negotiation cycle over the idle jobs and the slots; matches start jobs.
    fn negotiate(&mut self, t: i64) -> Result<(), DaemonError> {
        self.prune_preemptions(t);
        if self.idle.jobs.is_empty() {
            return Ok(());
        }
        // With no slot free, only a periodic cycle may preempt (when preemption is
        // considered at all): a wake-up alone does not cost a cycle.
        let preempt_only = !self.startd.has_free_resources();
        if preempt_only
            && !(self.negotiator.config().consider_preemption
                && Instant::now() >= self.next_negotiation)
        {
            return Ok(());
        }
        self.startd.refresh(t);
        let slots = self.startd.slot_ads();
        // What condor_userprio changed, and the matches as the slots have them now
        // (HTCondor's CheckMatches): claims that ended or were never recorded.
        if let Err(e) = self.accountant.reload() {
            tracing::error!("accountant: {e}");
        }
        self.check_matches(&slots, t);
        let jobs: Vec<IdleJob> = self
            .idle
            .jobs
            .values()
            // A job that preempted a slot waits for it rather than preempting another.
            .filter(|j| !cooling_down(&j.ad, t) && !self.preempting.contains_key(&from_key(j.id)))
            .cloned()
            .collect();
        let input = CycleInput {
            jobs: &jobs,
            slots: &slots,
        };
        let outcome = self.negotiator.cycle(&input, self.accountant.state(), t);
        self.cycles += 1;
        // The cycle's accounting is written once its matches have started their jobs: the
        // write (and its fsync) is off the path from a submit to the job's start. Anything
        // that touches the accountant meanwhile (a claim released because its job could not
        // start) writes it first, so the order of the changes is the same.
        self.pending_accountant = Some(outcome.accountant.clone());
        let mut had_preemption = false;
        for m in outcome.matches {
            if let Some(why) = m.preempting {
                // The running job retires, then is vacated; the slot is matched again once
                // it is free (the startd does not hand it over to this match itself).
                // With ALLOW_PSLOT_PREEMPTION the match names the partitionable slot and
                // the dynamic slots to free on it.
                let by_rank = why == negotiator::PreemptReason::Rank;
                let victims: Vec<String> = if m.preempted_dslots.is_empty() {
                    vec![m.slot_name.clone()]
                } else {
                    m.preempted_dslots
                        .iter()
                        .filter_map(|&i| lookup_str(&slots[i], "Name").map(|n| n.to_string()))
                        .collect()
                };
                let mut preempted = Vec::new();
                for victim in victims {
                    let busy = self.claims.get(&victim).is_some_and(|c| c.job.is_some());
                    if busy {
                        match self.startd.preempt(&victim, by_rank, t) {
                            Ok(()) => preempted.push(victim),
                            Err(e) => tracing::warn!("preempting {victim}: {e}"),
                        }
                    }
                }
                if !preempted.is_empty() {
                    self.preempting.insert(from_key(m.job), preempted);
                    had_preemption = true;
                }
                continue;
            }
            let id = from_key(m.job);
            let Some(job) = self.idle.jobs.get(&id) else {
                continue;
            };
            let ad = job.ad.clone();
            let slot_ad = &slots[m.slot];
            let resource = resource_name(slot_ad);
            match self.startd.claim(&m.slot_name, &ad, &m.consumption, t) {
                Ok(claimed) => {
                    let resource = if claimed == m.slot_name {
                        resource
                    } else {
                        claimed.clone()
                    };
                    self.claims.insert(
                        claimed.clone(),
                        Claim {
                            submitter: m.submitter.clone(),
                            resource,
                            job: None,
                        },
                    );
                    self.changes
                        .expecting(id, JobStatus::Idle)
                        .update
                        .set("LastMatchTime", Expr::lit(t));
                    self.start_job(id, &claimed, t);
                }
                Err(e) => tracing::warn!("claiming {} for job {id}: {e}", m.slot_name),
            }
        }
        self.flush_accountant();
        if had_preemption {
            // The cycle charged each preempting match to its submitter, but the victims
            // keep their slots while they retire: the accountant is set back to the claims
            // as the slots have them (HTCondor's CheckMatches).
            let slots = self.startd.slot_ads();
            self.check_matches(&slots, t);
        }
        for r in outcome.rejections {
            let id = from_key(r.job);
            if self.idle.jobs.contains_key(&id) {
                let update = &mut self.changes.expecting(id, JobStatus::Idle).update;
                update.set(
                    "LastRejMatchReason",
                    Expr::lit(r.reason.to_string().as_str()),
                );
                update.set("LastRejMatchTime", Expr::lit(t));
            }
        }
        Ok(())
    }

    /// Starts idle job `id` on the claimed slot `slot`.
    fn start_job(&mut self, id: JobId, slot: &str, t: i64) {
        let Some(idle) = self.idle.remove(id) else {
            return;
        };
        self.changes.expecting(id, JobStatus::Idle);
        let mut ad = idle.ad.clone();
        let logs = JobLogs::of(&self.session, &ad);
        let env = match self.startd.activate(slot, &ad, t) {
            Ok(env) => env,
            Err(e) => {
                tracing::warn!("activating {slot} for job {id}: {e}");
                self.idle.insert(id, idle);
                self.release_claim(slot, t);
                return;
            }
        };
        let slot_ad = self.startd.slot_ad(slot).unwrap_or_default();
        let updates = run::start_updates_with(&self.run_config, &ad, &slot_ad, slot, t);
        updates.apply(&mut ad);
        ad.insert("JobStatus", Expr::lit(JobStatus::Running.code()));
        let request = StartRequest {
            job: &ad,
            slot: &slot_ad,
            slot_env: &env,
            execute_dir: &self.execute,
            config: &self.config,
        };
        match starter::start(&request) {
            Err(failure) => {
                tracing::info!("job {id} failed to start: {}", failure.reason);
                self.startd.deactivate(slot, t);
                if failure.is_vacate() {
                    // Not the job's fault (HTCondor's codes from 1000): back to idle, tried
                    // again at the next negotiation cycle rather than at once.
                    let outcome = run::evict_updates(
                        &self.run_config,
                        &ad,
                        &failure.reason,
                        failure.code,
                        failure.subcode,
                        t,
                    );
                    let requeued = outcome.status.is_none_or(|s| s == JobStatus::Idle);
                    self.push_outcome(id, outcome);
                    if requeued {
                        self.requeue(id, idle.ad.clone());
                    }
                } else {
                    self.hold(
                        id,
                        &ad,
                        &failure.reason,
                        failure.code,
                        failure.subcode,
                        logs,
                    );
                }
                self.release_claim(slot, t);
                self.negotiate_now = false;
            }
            Ok(job) => {
                tracing::info!("job {id} started on {slot} (pid {})", job.pid);
                let pid = job.pid;
                if let Err(e) = self.reaper.watch(id, pid) {
                    // Without a waiter the job's end would go unseen: stop it now, and let
                    // the exit path put it back.
                    tracing::error!("job {id}: nothing can wait for it ({e}); killing it");
                    let _ = job.hard_kill();
                    let _ = starter::wait_exited(pid);
                    let _ = self.to_main.send(Msg::Exited { job: id });
                }
                self.changes.of(id).update.extend(updates);
                self.changes.of(id).status = Some(JobStatus::Running);
                self.events.push(PendingEvent {
                    logs: logs.clone(),
                    id,
                    body: EventBody::Execute(execute_event(&slot_ad, slot, &job)),
                });
                if let Some(c) = self.claims.get_mut(slot) {
                    c.job = Some(id);
                }
                self.running.insert(
                    id,
                    Running {
                        job,
                        slot: slot.to_owned(),
                        ad,
                        logs,
                        submitter: idle.submitter.clone(),
                        stop: None,
                        hard_kill_at: None,
                        suspended: None,
                    },
                );
            }
        }
    }

    /// A job's process ended: what comes next depends on why it ended (a stop the pool
    /// asked for) or, when it ended by itself, on its exit policy.
    fn job_exited(&mut self, id: JobId) {
        let Some(r) = self.running.remove(&id) else {
            return;
        };
        // Forgotten first, reaped second: nothing signals the pid once it can be reused.
        let exit = starter::reap(r.job.pid).unwrap_or_else(|e| {
            tracing::error!("collecting job {id} (pid {}): {e}", r.job.pid);
            // Lost: reported as killed (a raw wait status of SIGKILL).
            RawExit {
                status: libc::SIGKILL,
                user_cpu: 0.0,
                sys_cpu: 0.0,
                max_rss_kib: 0,
            }
        });
        let t = now();
        self.session.now = t;
        let expect = match r.stop {
            Some(Stop::Remove) => JobStatus::Removed,
            Some(Stop::Hold) => JobStatus::Held,
            _ => r.status(),
        };
        self.changes.expecting(id, expect);
        if matches!(r.stop, Some(Stop::Hold | Stop::Remove)) {
            // A release or a new status may have come meanwhile: read the idle jobs again.
            self.reload_next = true;
        }
        let Running {
            job,
            slot,
            mut ad,
            logs,
            stop,
            suspended,
            ..
        } = r;
        if suspended.is_some() {
            // It ended while suspended: the suspension ends with it.
            let update = resume_updates(&ad, t);
            update.apply(&mut ad);
            self.changes.of(id).update.extend(update);
        }
        let (result, scratch) = job.finish_deferred(exit);
        if let Some(dir) = scratch {
            self.cleaner.remove(dir);
        }
        let kept = self.startd.job_ended(&slot, t);
        if let Some(c) = self.claims.get_mut(&slot) {
            c.job = None;
        }
        if !kept {
            // The startd ended the claim with the job (preempted, draining, its policy).
            self.forget_claim(&slot, t);
        } else if stop.is_some() || !self.accepting() {
            self.release_claim(&slot, t);
        }
        let starter_updates = AdUpdate {
            set: result.updates.clone(),
            delete: Vec::new(),
        };
        starter_updates.apply(&mut ad);
        self.changes.of(id).update.extend(starter_updates);
        let usage = run_usage(&result);
        match stop {
            Some(Stop::Remove) => {
                let update = run::stop_updates(&self.run_config, &ad, JobStatus::Removed, t);
                self.changes.of(id).update.extend(update);
                self.changes.of(id).to_history = true;
                self.finishing(id, &ad);
                self.events.push(PendingEvent {
                    logs,
                    id,
                    body: EventBody::JobAborted(JobAborted {
                        reason: lookup_str(&ad, "RemoveReason").map(|s| s.to_string()),
                    }),
                });
            }
            Some(Stop::Hold) => {
                let update = run::stop_updates(&self.run_config, &ad, JobStatus::Held, t);
                self.changes.of(id).update.extend(update);
            }
            Some(Stop::Vacate {
                reason,
                code,
                subcode,
            }) => {
                let outcome = run::evict_updates(&self.run_config, &ad, &reason, code, subcode, t);
                outcome.updates.apply(&mut ad);
                let status = outcome.status;
                self.push_outcome(id, outcome);
                self.events.push(PendingEvent {
                    logs,
                    id,
                    body: evicted_event(Eviction::Vacated, usage, reason, &ad),
                });
                if status == Some(JobStatus::Idle) {
                    self.requeue(id, ad);
                }
            }
            None => self.job_completed(id, ad, &result, logs, t),
        }
    }

    /// Puts a job back among the idle ones (its status is committed in the same step). A job
    /// cooling down (`SYSTEM_ON_VACATE_COOL_DOWN`) is negotiated for again when it expires.
    /// A scheduler-universe job goes back to the schedd's own idle jobs.
    pub(super) fn requeue(&mut self, id: JobId, mut ad: ClassAd) {
        if local::is_scheduler_universe(&ad) {
            ad.insert("JobStatus", Expr::lit(JobStatus::Idle.code()));
            self.local.insert_idle(id, ad, None);
            return;
        }
        if let Some(until) = lookup_int(&ad, "JobCoolDownExpiration") {
            let wait = Duration::from_secs((until - now()).max(0) as u64);
            self.next_negotiation = self.next_negotiation.min(Instant::now() + wait);
        }
        ad.insert("JobStatus", Expr::lit(JobStatus::Idle.code()));
        self.idle
            .insert(id, IdleJob::new(job_key(id), ad, &self.accounting_domain));
    }

    /// A job's process exited by itself: its exit policy decides what comes next.
    fn job_completed(
        &mut self,
        id: JobId,
        mut ad: ClassAd,
        result: &starter::JobResult,
        logs: JobLogs,
        t: i64,
    ) {
        let usage = run_usage(result);
        if let Some(size) = lookup_int(&ad, "ImageSize") {
            self.events.push(PendingEvent {
                logs: logs.clone(),
                id,
                body: EventBody::ImageSize(ImageSize {
                    image_size_kb: size,
                    memory_usage_mb: lookup_int(&ad, "MemoryUsage"),
                    resident_set_size_kb: lookup_int(&ad, "ResidentSetSize").or(Some(0)),
                    proportional_set_size_kb: None,
                }),
            });
        }
        let (exit, info) = match result.exit {
            JobExit::Code(c) => (ExitStatus::Code(c), ExitInfo::code(c as i64)),
            JobExit::Signal { signal, core } => (
                ExitStatus::Signal(signal),
                ExitInfo::signal(signal as i64, core),
            ),
        };
        let info = info.with_usage(result.usage.user_cpu, result.usage.sys_cpu);
        if let Some(hold) = &result.hold {
            let mut update = run::exit_updates(&ad, &info, t);
            update.apply(&mut ad);
            update.extend(run::stop_updates(&self.run_config, &ad, JobStatus::Held, t));
            self.changes.of(id).update.extend(update);
            self.hold(id, &ad, &hold.reason, hold.code, hold.subcode, logs);
            return;
        }
        let (firing, outcome) = run::job_exited(&self.policy, &self.run_config, &ad, &info, t);
        outcome.updates.apply(&mut ad);
        let status = outcome.status;
        self.push_outcome(id, outcome);
        match firing.action {
            PolicyAction::RemoveFromQueue | PolicyAction::ReleaseFromHold => {
                self.events.push(PendingEvent {
                    logs,
                    id,
                    body: EventBody::JobTerminated(JobTerminated {
                        exit,
                        core_file: None,
                        run_remote_usage: usage,
                        run_local_usage: Rusage::default(),
                        total_remote_usage: Rusage {
                            user_secs: lookup_int(&ad, "RemoteUserCpu").unwrap_or(0),
                            sys_secs: lookup_int(&ad, "RemoteSysCpu").unwrap_or(0),
                        },
                        total_local_usage: Rusage::default(),
                        sent_bytes: 0.0,
                        received_bytes: 0.0,
                        total_sent_bytes: 0.0,
                        total_received_bytes: 0.0,
                        usage: usage_from_job_ad(&ad),
                    }),
                });
                self.finishing(id, &ad);
                if lookup_bool(&ad, "LeaveJobInQueue") != Some(true) {
                    self.changes.of(id).to_history = true;
                }
            }
            PolicyAction::StaysInQueue | PolicyAction::VacateFromRunning => {
                self.events.push(PendingEvent {
                    logs,
                    id,
                    body: evicted_event(
                        Eviction::Requeued {
                            exit,
                            core_file: None,
                        },
                        usage,
                        firing.reason_or_unknown().to_owned(),
                        &ad,
                    ),
                });
                if status == Some(JobStatus::Idle) {
                    self.requeue(id, ad);
                }
            }
            PolicyAction::HoldInQueue | PolicyAction::UndefinedEval => {
                self.events.push(PendingEvent {
                    logs,
                    id,
                    body: held_event(firing.reason_or_unknown(), firing.code, firing.subcode),
                });
            }
        }
    }

    /// Commits the step's queue changes in one transaction, then logs its events.
    fn commit(&mut self) -> Result<(), DaemonError> {
        if self.changes.is_empty() && self.events.is_empty() {
            return Ok(());
        }
        let changes = std::mem::take(&mut self.changes);
        let running: std::collections::HashSet<JobId> = self
            .running
            .keys()
            .chain(self.local.running.keys())
            .copied()
            .collect();
        let result = self.queue.transaction(|tx| {
            let mut dropped = Vec::new();
            let mut aborted = Vec::new();
            let mut finished = Vec::new();
            for id in &changes.order {
                let Some(c) = changes.jobs.get(id) else {
                    continue;
                };
                let current = tx.job_status(*id)?;
                if let (Some(expect), Some(now)) = (c.expect, current) {
                    if now != expect.code() {
                        // Another process got there first; its change stands.
                        dropped.push(*id);
                        if now == JobStatus::Removed.code() && !running.contains(id) {
                            let reason =
                                tx.job(*id)?.and_then(|j| j.into_ad().ok()).and_then(|ad| {
                                    lookup_str(&ad, "RemoveReason").map(|s| s.to_string())
                                });
                            tx.move_to_history(*id)?;
                            aborted.push((*id, reason));
                        }
                        continue;
                    }
                }
                if current.is_none() {
                    dropped.push(*id);
                    continue;
                }
                let written = if c.to_history {
                    tx.finish_job(*id, &c.update.set, &c.update.delete, c.status)
                        .map(|_| ())
                } else {
                    tx.update_job(*id, &c.update.set, &c.update.delete, c.status)
                        .map(|_| ())
                };
                match written {
                    Ok(()) => finished.extend(c.others.as_ref()),
                    // The changes were written; only the move to the history was refused.
                    Err(e @ crate::queue::QueueError::NotFinished { .. }) => {
                        tracing::warn!("job {id}: {e}");
                        finished.extend(c.others.as_ref());
                    }
                    Err(e) if e.is_job_rule() => {
                        tracing::warn!("job {id}: {e}");
                        dropped.push(*id);
                    }
                    Err(e) => return Err(e),
                }
            }
            // The finished jobs' `OtherJobRemoveRequirements`, once every change is written.
            let mut others = Vec::new();
            for removal in finished {
                others.extend(remove_other_jobs(tx, removal)?);
            }
            Ok::<_, crate::queue::QueueError>((dropped, aborted, others))
        });
        // (`data_version` does not count this connection's own commits.)
        let (dropped, aborted, others) = match result {
            Ok(r) => r,
            Err(e) => {
                // Nothing was written: the changes and their events wait for the next step.
                self.changes = changes;
                return Err(e.into());
            }
        };
        if !dropped.is_empty() {
            self.reload_next = true;
        }
        self.cleaner.sync(self.queue.wal_path());
        let events = std::mem::take(&mut self.events);
        let logs: HashMap<JobId, JobLogs> = events.iter().map(|e| (e.id, e.logs.clone())).collect();
        for e in events {
            if !dropped.contains(&e.id) {
                e.logs
                    .write(e.id.cluster.0, e.id.proc, self.session.now, e.body);
            }
        }
        for (id, reason) in aborted {
            if let Some(l) = logs.get(&id) {
                l.write(
                    id.cluster.0,
                    id.proc,
                    self.session.now,
                    EventBody::JobAborted(JobAborted { reason }),
                );
            }
        }
        for other in others {
            self.removed_other(other);
        }
        Ok(())
    }

    /// A job another's `OtherJobRemoveRequirements` removed in a commit of the pool's: its
    /// process is killed (it leaves the queue once gone), or its abort is logged now.
    fn removed_other(&mut self, other: crate::client::actions::RemovedOther) {
        let id = other.id;
        tracing::info!("job {id} {}", other.reason);
        let reason = Expr::lit(other.reason.as_str());
        if let Some(r) = self.running.get_mut(&id) {
            r.ad.insert("RemoveReason", reason);
            self.stop_job(id, Stop::Remove, false);
        } else if let Some(l) = self.local.running.get_mut(&id) {
            l.ad.insert("RemoveReason", reason);
            self.stop_local(id, Stop::Remove, false);
        } else if other.running {
            // Running as far as the queue knows, but not here: the next recovery or reload
            // sees to it.
            self.reload_next = true;
        } else {
            self.idle.remove(id);
            self.local.forget_idle(id);
            JobLogs::of(&self.session, &other.ad).write(
                id.cluster.0,
                id.proc,
                self.session.now,
                EventBody::JobAborted(JobAborted {
                    reason: Some(other.reason),
                }),
            );
        }
    }

    /// The ads of one kind, as they are now (for `condor_status` and the other tools).
    fn ads(&mut self, kind: AdKind) -> Vec<ClassAd> {
        let t = now();
        let host = self.session.full_hostname();
        let daemon_ad = |my_type: &str, name: &str| {
            let mut ad = ClassAd::new();
            ad.insert("MyType", Expr::lit(my_type));
            ad.insert("Name", Expr::lit(name));
            common_daemon_attrs(&mut ad, &host, self.started_at, t);
            ad
        };
        match kind {
            AdKind::Slots => {
                self.startd.refresh(t);
                self.startd.slot_ads()
            }
            AdKind::Startd => {
                self.startd.refresh(t);
                vec![self.startd.daemon_ad()]
            }
            AdKind::Schedd => vec![self.schedd_ads(t).0],
            AdKind::Submitters => self.schedd_ads(t).1,
            AdKind::Negotiator => {
                let mut ad = self.negotiator.negotiator_ad(&host);
                common_daemon_attrs(&mut ad, &host, self.started_at, t);
                vec![ad]
            }
            AdKind::Master => {
                let mut ad = daemon_ad("DaemonMaster", &host);
                ad.insert(
                    "MasterIpAddr",
                    Expr::lit(self.session.schedd_address().as_str()),
                );
                ad.insert("RealUid", Expr::lit(nix::unistd::getuid().as_raw() as i64));
                vec![ad]
            }
            AdKind::Collector => {
                let mut ad = daemon_ad("Collector", &format!("My Pool - {host}@{host}"));
                ad.insert("HostsTotal", Expr::lit(1i64));
                ad.insert("RunningJobs", Expr::lit(self.running.len() as i64));
                ad.insert("IdleJobs", Expr::lit(self.idle.jobs.len() as i64));
                vec![ad]
            }
        }
    }

    /// The schedd ad and one submitter ad per user with jobs.
    fn schedd_ads(&self, t: i64) -> (ClassAd, Vec<ClassAd>) {
        let host = self.session.full_hostname();
        let name = self.session.schedd_name();
        let mut per_user: BTreeMap<String, [i64; 3]> = BTreeMap::new();
        let counts = self
            .queue
            .count_by_status(&JobQuery::all())
            .unwrap_or_default();
        let mut totals = [0i64; 3];
        let mut all = 0i64;
        for (status, n) in counts {
            all += n as i64;
            let i = match status {
                2 => 0,
                1 => 1,
                5 => 2,
                _ => continue,
            };
            totals[i] += n as i64;
        }
        for j in self.idle.jobs.values() {
            per_user.entry(j.submitter.to_string()).or_default()[1] += 1;
        }
        for r in self.running.values() {
            per_user.entry(r.submitter.to_string()).or_default()[0] += 1;
        }
        let held = parse_old_expr("JobStatus == 5").expect("constant expression");
        if let Ok(jobs) = self.queue.jobs(&JobQuery::all().with_constraint(held)) {
            for ad in jobs.flatten().filter_map(|j| j.into_ad().ok()) {
                let who = negotiator::submitter_name(&ad, &self.accounting_domain);
                per_user.entry(who).or_default()[2] += 1;
            }
        }
        let mut schedd = ClassAd::new();
        schedd.insert("MyType", Expr::lit("Scheduler"));
        schedd.insert("Name", Expr::lit(name.as_str()));
        schedd.insert(
            "ScheddIpAddr",
            Expr::lit(self.session.schedd_address().as_str()),
        );
        // As `count_jobs`: the scheduler universe's jobs are counted apart.
        let (local_running, local_idle) = (self.local.running.len(), self.local.idle_count());
        schedd.insert(
            "TotalRunningJobs",
            Expr::lit((totals[0] - local_running as i64).max(0)),
        );
        schedd.insert(
            "TotalIdleJobs",
            Expr::lit((totals[1] - local_idle as i64).max(0)),
        );
        self.local
            .config
            .publish(&mut schedd, local_running, local_idle);
        schedd.insert("TotalHeldJobs", Expr::lit(totals[2]));
        schedd.insert("TotalJobAds", Expr::lit(all));
        schedd.insert("NumUsers", Expr::lit(per_user.len() as i64));
        common_daemon_attrs(&mut schedd, &host, self.started_at, t);
        let submitters = per_user
            .into_iter()
            .map(|(user, [running, idle, held])| {
                let mut ad = ClassAd::new();
                ad.insert("MyType", Expr::lit("Submitter"));
                ad.insert("Name", Expr::lit(user.as_str()));
                ad.insert("ScheddName", Expr::lit(name.as_str()));
                ad.insert("RunningJobs", Expr::lit(running));
                ad.insert("IdleJobs", Expr::lit(idle));
                ad.insert("HeldJobs", Expr::lit(held));
                common_daemon_attrs(&mut ad, &host, self.started_at, t);
                ad
            })
            .collect();
        (schedd, submitters)
    }
}

/// The 012 event of a hold.
pub(super) fn held_event(reason: &str, code: i64, subcode: i64) -> EventBody {
    EventBody::JobHeld(JobHeld {
        reason: Some(reason.to_owned()),
        code: code as i32,
        subcode: subcode as i32,
    })
}

/// The 004 event of a run that ended without the job leaving the queue.
fn evicted_event(kind: Eviction, usage: Rusage, reason: String, ad: &ClassAd) -> EventBody {
    EventBody::JobEvicted(JobEvicted {
        kind,
        run_remote_usage: usage,
        run_local_usage: Rusage::default(),
        sent_bytes: 0.0,
        received_bytes: 0.0,
        reason: Some(reason),
        reason_code: 0,
        reason_subcode: 0,
        usage: usage_from_job_ad(ad),
    })
}

/// The defrag daemon's policy, when the configuration runs it.
fn defrag_of(config: &Config, host: &str) -> Result<Option<Defrag>, DaemonError> {
    if !DefragConfig::enabled(config) {
        return Ok(None);
    }
    Ok(Some(Defrag::new(DefragConfig::from_config(config, host)?)))
}

/// The `Instant` at which the clock reads `epoch_secs`.
fn instant_at(epoch_secs: i64) -> Instant {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    Instant::now() + Duration::from_secs_f64((epoch_secs as f64 - now).max(0.0))
}

/// A `condor_drain` request as the startd takes it.
fn drain_request(args: DrainArgs) -> Result<DrainRequest, String> {
    let schedule = match args.schedule.as_str() {
        "graceful" => DrainSchedule::Graceful,
        "quick" => DrainSchedule::Quick,
        "fast" => DrainSchedule::Fast,
        other => return Err(format!("unknown drain schedule {other:?}")),
    };
    let on_completion = match args.on_completion.as_str() {
        "nothing" => OnCompletion::Nothing,
        "resume" => OnCompletion::Resume,
        "exit" => OnCompletion::Exit,
        "restart" => OnCompletion::Restart,
        "reconfig" => OnCompletion::Reconfig,
        other => return Err(format!("unknown drain completion {other:?}")),
    };
    Ok(DrainRequest {
        schedule,
        reason: args.reason,
        on_completion,
        check: args.check,
        start: args.start,
        request_id: args.request_id,
    })
}

/// The end of a suspension in the job's ad: its time added to `CumulativeSuspensionTime` and
/// `UncommittedSuspensionTime`, `LastSuspensionTime` back to 0.
fn resume_updates(ad: &ClassAd, t: i64) -> AdUpdate {
    let mut update = AdUpdate::default();
    let last = lookup_int(ad, "LastSuspensionTime").unwrap_or(0);
    let mut cumulative = lookup_int(ad, "CumulativeSuspensionTime").unwrap_or(0);
    if last > 0 {
        cumulative += t - last;
        let uncommitted = lookup_int(ad, "UncommittedSuspensionTime").unwrap_or(0) + t - last;
        update.set("UncommittedSuspensionTime", Expr::lit(uncommitted));
    }
    update.set("CumulativeSuspensionTime", Expr::lit(cumulative));
    update.set("LastSuspensionTime", Expr::lit(0));
    update
}

/// Whether a requeued job still cools down (`JobCoolDownExpiration` in the future), as the
/// schedd keeps such jobs from matching.
fn cooling_down(ad: &ClassAd, t: i64) -> bool {
    lookup_int(ad, "JobCoolDownExpiration").is_some_and(|until| until > t)
}

fn common_daemon_attrs(ad: &mut ClassAd, host: &str, started: i64, t: i64) {
    ad.insert("Machine", Expr::lit(host));
    ad.insert("DaemonStartTime", Expr::lit(started));
    ad.insert("LastHeardFrom", Expr::lit(t));
    ad.insert("MyCurrentTime", Expr::lit(t));
    ad.insert("CondorVersion", Expr::lit(crate::version::CONDOR_VERSION));
}

fn run_usage(result: &starter::JobResult) -> Rusage {
    Rusage {
        user_secs: result.usage.user_cpu as i64,
        sys_secs: result.usage.sys_cpu as i64,
    }
}

/// The execute event: the startd's address, the slot, the scratch directory and the slot's
/// resources.
fn execute_event(slot_ad: &ClassAd, slot: &str, job: &RunningJob) -> Execute {
    let mut props = ClassAd::new();
    props.insert(
        "CondorScratchDir",
        Expr::lit(job.scratch_dir.to_string_lossy().as_ref()),
    );
    for attr in ["Cpus", "Disk", "Memory", "GPUs"] {
        if let Some(e) = slot_ad.lookup(attr) {
            if !matches!(slot_ad.eval_attr(attr), Value::Undefined) {
                props.insert(attr, e.clone());
            }
        }
    }
    let host = lookup_str(slot_ad, "Machine")
        .map(|s| s.to_string())
        .unwrap_or_default();
    Execute {
        execute_host: format!("<127.0.0.1:0?addrs=127.0.0.1-0&alias={host}&noUDP&sock=startd>"),
        slot_name: Some(slot.to_owned()),
        props,
    }
}
