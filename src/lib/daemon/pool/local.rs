//! The schedd's own jobs: scheduler-universe jobs (`JobUniverse` 7; DAGMan is one), which
//! HTCondor's schedd runs itself, as its children (src/condor_schedd.V6/schedd.cpp:
//! `AddRunnableLocalJobs`, `IsLocalJobEligibleToRun`, `start_sched_universe_job`,
//! `scheduler_univ_job_exit`, `abort_job_myself`, `preempt`; qmgmt.cpp: `mark_idle`).
//!
//! This module owns them from idle to gone:
//!
//! - They are never negotiated for: they take no slot and charge no accountant. The pool's
//!   idle index never holds them; [`LocalJobs`] does, in the schedd's order (`JobPrio` first,
//!   then the oldest job).
//! - An idle one starts as soon as the master sees it (a submit's wake-up), when the schedd's
//!   `START_SCHEDULER_UNIVERSE` (default `TotalSchedulerJobsRunning < 500`, evaluated in the
//!   schedd's ad against the job) and the job's `Requirements` (against the schedd's ad) are
//!   true and its owner runs fewer than `MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER` (200; applied
//!   when it is below `MAX_JOBS_PER_OWNER`, 100000; 0 runs none) of them. The process is
//!   started by [`starter::start_local`]; the job becomes Running with the schedd's
//!   `mark_job_running` and `add_shadow_birthdate` attributes ([`start_updates`]) and its
//!   logs get the execute event (001) naming the schedd's address.
//! - Its exit is the schedd's `scheduler_univ_job_exit` ([`exited`]): `ExitCode` (and
//!   `ExitStatus`) or `ExitSignal`, `ExitBySignal`, then the job's policy at exit
//!   (`OnExitRemove`, `OnExitHold`, the periodic expressions, through [`UserPolicy::at_exit`]):
//!   it completes (005, then the history), goes back to idle to run again (004, "terminated
//!   and was requeued": DAGMan exits 3 when told to stop gracefully, and its
//!   `on_exit_remove` keeps it to run again), or is held (012).
//! - The schedd stops it ([`stopped`]): `condor_rm` sends its `RemoveKillSig`, `condor_hold`
//!   its `HoldKillSig` (each defaulting to its `KillSig`, default SIGTERM), a shutdown of the
//!   schedd or `condor_vacate_job` its `KillSig` (`-fast` and a fast shutdown: SIGKILL);
//!   SIGKILL follows after the removal bound or the vacate time. Once the process is gone the
//!   job's logs get the eviction (004), and it leaves the queue (009), stays held, or goes back
//!   to idle (a shutdown: the next master runs it again).
//! - A master that died left its process running: the next one kills it
//!   ([`starter::kill_local_orphans`], by `_CONDOR_JOB_AD` under `$(LOCAL_UNIV_EXECUTE)`) and
//!   puts the job back to idle without an event, as `mark_idle` does ([`recovered`]).
//!
//! The pure parts (the knobs, eligibility, the attribute changes and events of each end) are
//! functions of their inputs and the time; the `impl Pool` block at the end is the glue to
//! the pool's queue changes, events, reaper and main loop.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr};
use crate::client::master::{JobSignal, Shutdown};
use crate::client::userlog::JobLogs;
use crate::config::Config;
use crate::eventlog::{
    EventBody, Eviction, Execute, ExitStatus, JobAborted, JobEvicted, JobTerminated,
};
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::queue::universe;
use crate::queue::{JobId, JobStatus, Stamp};
use crate::schedd::exit::{self as run, AdUpdate, Outcome, RunConfig};
use crate::schedd::policy::{hold_codes, PolicyAction, UserPolicy};
use crate::starter::{self, JobExit, LocalStartError, LocalStartRequest, RawExit, RunningJob};

use super::{held_event, Action, Now, PendingEvent, Pool, Stop};
use crate::daemon::{DaemonError, Msg};

/// Whether the schedd runs this job itself (the scheduler universe).
pub fn is_scheduler_universe(ad: &ClassAd) -> bool {
    lookup_int(ad, "JobUniverse") == Some(universe::SCHEDULER)
}

/// `START_SCHEDULER_UNIVERSE`'s default (param_info.in), also used when the knob does not
/// parse (`Scheduler::Init`).
const DEFAULT_START_SCHEDULER: &str = "TotalSchedulerJobsRunning < 500";
/// `START_LOCAL_UNIVERSE`'s default (param_info.in): published in the schedd's ad only.
const DEFAULT_START_LOCAL: &str = "TotalLocalJobsRunning < 200";

/// The schedd's knobs for its own jobs, as `Scheduler::Init` reads them.
#[derive(Clone, Debug)]
pub struct LocalConfig {
    /// `START_SCHEDULER_UNIVERSE`.
    pub start_scheduler: Expr,
    /// `START_LOCAL_UNIVERSE` (no local universe here: published for the tools).
    pub start_local: Expr,
    /// `MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER` (200).
    pub max_running_per_owner: i64,
    /// `MAX_JOBS_PER_OWNER` (100000).
    pub max_jobs_per_owner: i64,
    /// `$(LOCAL_UNIV_EXECUTE)` (`$(SPOOL)/local_univ_execute`): the jobs' directories.
    pub dir: PathBuf,
    /// How long a job that did not start (a standard file that does not open, ...) waits
    /// before it is tried again, unless a tool wakes the master first: `SCHEDD_INTERVAL`
    /// (300 s), the schedd's pass over its local jobs.
    pub retry: Duration,
}

impl LocalConfig {
    pub fn from_config(config: &Config) -> LocalConfig {
        let expr = |knob: &str, default: &str| {
            config
                .string(knob)
                .ok()
                .flatten()
                .and_then(|text| parse_old_expr(&text).ok())
                .unwrap_or_else(|| parse_old_expr(default).expect("a constant expression"))
        };
        let int = |knob: &str, default: i64| config.int(knob).ok().flatten().unwrap_or(default);
        let spool = config.string("SPOOL").ok().flatten().unwrap_or_default();
        let dir = config
            .string("LOCAL_UNIV_EXECUTE")
            .ok()
            .flatten()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| format!("{spool}/local_univ_execute"));
        LocalConfig {
            start_scheduler: expr("START_SCHEDULER_UNIVERSE", DEFAULT_START_SCHEDULER),
            start_local: expr("START_LOCAL_UNIVERSE", DEFAULT_START_LOCAL),
            max_running_per_owner: int("MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER", 200),
            max_jobs_per_owner: int("MAX_JOBS_PER_OWNER", 100_000),
            dir: PathBuf::from(dir),
            retry: Duration::from_secs(int("SCHEDD_INTERVAL", 300).max(1) as u64),
        }
    }

    /// The per-owner limit on running scheduler-universe jobs, when there is one: the knob
    /// applies when it is positive and below `MAX_JOBS_PER_OWNER`; 0 runs none
    /// (`AddRunnableLocalJobs`).
    pub fn owner_limit(&self) -> Option<i64> {
        let max = self.max_running_per_owner;
        if max > 0 && max < self.max_jobs_per_owner {
            Some(max)
        } else if max == 0 {
            Some(0)
        } else {
            None
        }
    }

    /// What the schedd's ad publishes about its own jobs (`Scheduler::publish`,
    /// `count_jobs`), with `running` and `idle` scheduler-universe jobs.
    pub fn publish(&self, ad: &mut ClassAd, running: usize, idle: usize) {
        ad.insert("StartSchedulerUniverse", self.start_scheduler.clone());
        ad.insert("StartLocalUniverse", self.start_local.clone());
        ad.insert("TotalSchedulerJobsRunning", Expr::lit(running as i64));
        ad.insert("TotalSchedulerJobsIdle", Expr::lit(idle as i64));
        ad.insert("TotalLocalJobsRunning", Expr::lit(0));
        ad.insert("TotalLocalJobsIdle", Expr::lit(0));
        ad.insert("MaxJobsPerOwner", Expr::lit(self.max_jobs_per_owner));
        let max = self.max_running_per_owner;
        if max >= 0 && max < self.max_jobs_per_owner {
            ad.insert("MaxRunningSchedulerJobsPerOwner", Expr::lit(max));
        }
    }

    /// The schedd's ad as `IsLocalJobEligibleToRun` evaluates against a job: what
    /// [`LocalConfig::publish`] gives, and the host's basic attributes (`Arch`, `OpSys`,
    /// `OpSysVer`, `OpSysAndVer`, `Memory` in MiB, `Disk` free under
    /// `$(LOCAL_UNIV_EXECUTE)` in KiB, `Cpus` 1), which the `Requirements` condor_submit
    /// writes for every job refer to.
    pub fn schedd_ad(&self, config: &Config, running: usize, idle: usize) -> ClassAd {
        let mut ad = ClassAd::new();
        ad.insert("MyType", Expr::lit("Scheduler"));
        for (attr, knob) in [
            ("Arch", "ARCH"),
            ("OpSys", "OPSYS"),
            ("OpSysVer", "OPSYSVER"),
            ("OpSysAndVer", "OPSYSANDVER"),
        ] {
            if let Some(v) = config.string(knob).ok().flatten() {
                if let Ok(n) = v.parse::<i64>() {
                    ad.insert(attr, Expr::lit(n));
                } else {
                    ad.insert(attr, Expr::lit(v.as_str()));
                }
            }
        }
        let memory = config.int("DETECTED_MEMORY").ok().flatten().unwrap_or(0);
        ad.insert("Memory", Expr::lit(memory));
        let disk = crate::startd::machine::free_disk(&self.dir).map_or(0, |(kib, _)| kib);
        ad.insert("Disk", Expr::lit(disk));
        ad.insert("Cpus", Expr::lit(1));
        self.publish(&mut ad, running, idle);
        ad
    }
}

/// Why an idle scheduler-universe job does not start now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotEligible {
    /// `JobNoop` is true.
    Noop,
    /// `CurrentHosts` is not below `MaxHosts`.
    Hosts,
    /// `START_SCHEDULER_UNIVERSE` is not true for the job.
    StartExpression,
    /// The job's `Requirements` are not true against the schedd's ad.
    Requirements,
    /// Its owner already runs as many as `MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER` allows.
    OwnerLimit(i64),
}

/// Whether an idle scheduler-universe job may start now (`AddRunnableLocalJobs`,
/// `IsLocalJobEligibleToRun`): `schedd` is the schedd's ad ([`LocalConfig::schedd_ad`]),
/// `owner_running` how many of them the job's owner runs. An expression that is not true
/// (false, undefined, an error) keeps the job idle.
pub fn eligible(
    cfg: &LocalConfig,
    schedd: &ClassAd,
    job: &ClassAd,
    owner_running: i64,
) -> Result<(), NotEligible> {
    if lookup_bool(job, "JobNoop") == Some(true) {
        return Err(NotEligible::Noop);
    }
    let current = lookup_int(job, "CurrentHosts").unwrap_or(0);
    let max = lookup_int(job, "MaxHosts").unwrap_or(1);
    if max <= current {
        return Err(NotEligible::Hosts);
    }
    let start = schedd.eval_expr(&cfg.start_scheduler, Some(job));
    if start.as_bool_equiv() != Some(true) {
        return Err(NotEligible::StartExpression);
    }
    if job.lookup("Requirements").is_some()
        && job
            .eval_attr_against("Requirements", Some(schedd))
            .as_bool_equiv()
            != Some(true)
    {
        return Err(NotEligible::Requirements);
    }
    if let Some(limit) = cfg.owner_limit() {
        if owner_running >= limit {
            return Err(NotEligible::OwnerLimit(limit));
        }
    }
    Ok(())
}

/// What a start sets (the status, Running, is the caller's): `mark_job_running`
/// (`OrigMaxHosts`, `LastSuspensionTime` 0, `NumJobStarts` + 1), `CurrentHosts` 1, and
/// `add_shadow_birthdate` (`ShadowBday`, `JobStartDate` the first time, `JobLastStartDate`,
/// `JobCurrentStartDate`, `JobRunCount` + 1). No `RemoteHost`: there is no slot.
pub fn start_updates(job: &ClassAd, t: i64) -> AdUpdate {
    let mut u = AdUpdate::new();
    let int = |name: &str| lookup_int(job, name);
    u.set("OrigMaxHosts", Expr::lit(int("MaxHosts").unwrap_or(1)));
    u.set("LastSuspensionTime", Expr::lit(0));
    u.set(
        "NumJobStarts",
        Expr::lit(int("NumJobStarts").unwrap_or(0) + 1),
    );
    u.set("CurrentHosts", Expr::lit(1));
    u.set("ShadowBday", Expr::lit(t));
    if int("JobStartDate").is_none() {
        u.set("JobStartDate", Expr::lit(t));
    }
    if let Some(current) = int("JobCurrentStartDate") {
        u.set("JobLastStartDate", Expr::lit(current));
    }
    u.set("JobCurrentStartDate", Expr::lit(t));
    u.set(
        "JobRunCount",
        Expr::lit(int("JobRunCount").unwrap_or(0) + 1),
    );
    u
}

/// The scheduler-universe jobs with a directory under `local_dir` (`dir_<cluster>_<proc>`)
/// that lacks the mark of its execute event.
pub(super) fn unlogged_starts(local_dir: &std::path::Path) -> std::collections::HashSet<JobId> {
    let Ok(entries) = std::fs::read_dir(local_dir) else {
        return Default::default();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let (cluster, proc) = name.to_str()?.strip_prefix("dir_")?.split_once('_')?;
            let id = JobId::new(cluster.parse().ok()?, proc.parse().ok()?);
            let marked = starter::waiter::executed(&e.path());
            (!marked).then_some(id)
        })
        .collect()
}

/// The execute event (001) of a scheduler-universe job: the schedd's own address, the one
/// its submit event gives (`WriteExecuteToUserLog` with `daemonCore->privateNetworkIpAddr()`),
/// no slot, no resources.
pub fn execute_event(config: &Config) -> EventBody {
    EventBody::Execute(Execute {
        execute_host: crate::client::schedd_sinful(config),
        slot_name: None,
        props: ClassAd::new(),
    })
}

/// How one run of a scheduler-universe job ends, in the queue and in its logs.
#[derive(Clone, Debug)]
pub struct End {
    /// The status it ends in, when it changes.
    pub status: Option<JobStatus>,
    pub updates: AdUpdate,
    /// The events to log, in order.
    pub events: Vec<EventBody>,
    /// It leaves the queue for the history (completed or removed).
    pub leaves_queue: bool,
}

/// The exit status as the events write it.
fn exit_status(exit: JobExit) -> ExitStatus {
    match exit {
        JobExit::Code(c) => ExitStatus::Code(c),
        JobExit::Signal { signal, .. } => ExitStatus::Signal(signal),
    }
}

/// The eviction event the schedd writes for a run it ended (`WriteEvictToUserLog`: not
/// checkpointed, no usage, no reason).
fn evicted() -> EventBody {
    EventBody::JobEvicted(JobEvicted {
        kind: Eviction::Vacated,
        ..JobEvicted::default()
    })
}

/// The process exited by itself: `scheduler_univ_job_exit`. `job` is the job's ad as it ran
/// (`JobStatus` 2); the exit's attributes (`ExitStatus`, `ExitBySignal`, `ExitCode` or
/// `ExitSignal`) are set, the policy at exit decides:
///
/// - `RemoveFromQueue` (or `ReleaseFromHold`: "allowing job to exit queue"): Completed, the
///   terminated event (005) with the exit and no usage, then the history;
/// - `StaysInQueue`: back to idle, the requeue event (004, "Job terminated and was
///   requeued") with the policy's reason;
/// - `HoldInQueue`, `UndefinedEval`: held with the policy's reason and codes (an undefined
///   policy counts in `NumSystemHolds`), the hold event (012);
/// - anything else held as "Unknown action (N) <reason>" with code 5.
///
/// Then the end of every run ([`run::stop_updates`]: wall clock, `CurrentHosts` 0, ...).
pub fn exited(policy: &UserPolicy, cfg: &RunConfig, job: &ClassAd, exit: JobExit, t: i64) -> End {
    let mut u = AdUpdate::new();
    match exit {
        JobExit::Code(code) => {
            u.set("ExitStatus", Expr::lit(code as i64));
            u.set("ExitBySignal", Expr::lit(false));
            u.set("ExitCode", Expr::lit(code as i64));
        }
        JobExit::Signal { signal, .. } => {
            u.set("ExitBySignal", Expr::lit(true));
            u.set("ExitSignal", Expr::lit(signal as i64));
        }
    }
    let mut ad = run::updated(job, &u);
    let firing = policy.at_exit(&ad, t);
    let reason = firing.reason_or_unknown().to_owned();
    let (status, event) = match firing.action {
        PolicyAction::RemoveFromQueue | PolicyAction::ReleaseFromHold => (
            JobStatus::Completed,
            EventBody::JobTerminated(JobTerminated {
                exit: exit_status(exit),
                ..JobTerminated::default()
            }),
        ),
        PolicyAction::StaysInQueue => (
            JobStatus::Idle,
            EventBody::JobEvicted(JobEvicted {
                kind: Eviction::Requeued {
                    exit: exit_status(exit),
                    core_file: None,
                },
                reason: Some(reason),
                ..JobEvicted::default()
            }),
        ),
        PolicyAction::HoldInQueue | PolicyAction::UndefinedEval => {
            let hold = run::hold_updates(&ad, &reason, firing.code, firing.subcode);
            u.extend(hold.clone());
            if firing.action == PolicyAction::UndefinedEval {
                let n = lookup_int(&ad, "NumSystemHolds").unwrap_or(0) + 1;
                u.set("NumSystemHolds", Expr::lit(n));
            }
            hold.apply(&mut ad);
            (
                JobStatus::Held,
                held_event(&reason, firing.code, firing.subcode),
            )
        }
        PolicyAction::VacateFromRunning => {
            let reason = format!("Unknown action ({}) {reason}", firing.action.code());
            let code = hold_codes::JOB_POLICY_UNDEFINED;
            let hold = run::hold_updates(&ad, &reason, code, 0);
            u.extend(hold.clone());
            hold.apply(&mut ad);
            (JobStatus::Held, held_event(&reason, code, 0))
        }
    };
    u.extend(run::stop_updates(cfg, &ad, status, t));
    End {
        status: Some(status),
        updates: u,
        events: vec![event],
        leaves_queue: status == JobStatus::Completed,
    }
}

/// A run the schedd ended itself (the process exited after its signal: `srec->preempted`):
/// the eviction event (004) whatever the exit, then, by why it was stopped:
///
/// - removed: the abort event (009) with its `RemoveReason`, and the history;
/// - held: it stays held (its hold was logged when it was put on hold);
/// - vacated (a shutdown, `condor_vacate_job`): back to idle (`mark_job_stopped`), to run
///   again.
///
/// Then the end of every run ([`run::stop_updates`]).
pub fn stopped(cfg: &RunConfig, job: &ClassAd, stop: &Stop, t: i64) -> End {
    let mut events = vec![evicted()];
    let (status, new, leaves_queue) = match stop {
        Stop::Remove => {
            events.push(EventBody::JobAborted(JobAborted {
                reason: lookup_str(job, "RemoveReason").map(|s| s.to_string()),
            }));
            (JobStatus::Removed, None, true)
        }
        Stop::Hold => (JobStatus::Held, None, false),
        Stop::Vacate { .. } => (JobStatus::Idle, Some(JobStatus::Idle), false),
    };
    End {
        status: new,
        updates: run::stop_updates(cfg, job, status, t),
        events,
        leaves_queue,
    }
}

/// A job a master finds running (or with `CurrentHosts` left, as a job held while its
/// process ran) when it starts after another died: as `mark_idle` and `_mark_job_stopped` do
/// for a universe that cannot reconnect (no event), `CurrentHosts` 0 and `ShadowBday` deleted;
/// a Running job also goes back to idle, with `LastSuspensionTime` 0, `MaxHosts` restored
/// from `OrigMaxHosts` and `RemotePool` deleted.
pub fn recovered(job: &ClassAd) -> Outcome {
    let mut u = AdUpdate::new();
    u.set("CurrentHosts", Expr::lit(0));
    u.delete("ShadowBday");
    let status = lookup_int(job, "JobStatus").and_then(JobStatus::from_code);
    let running = matches!(
        status,
        Some(JobStatus::Running | JobStatus::TransferringOutput)
    );
    if running {
        u.set("LastSuspensionTime", Expr::lit(0));
        if let Some(orig) = lookup_int(job, "OrigMaxHosts") {
            u.set("MaxHosts", Expr::lit(orig));
        }
        u.delete("RemotePool");
    }
    Outcome {
        status: running.then_some(JobStatus::Idle),
        updates: u,
    }
}

/// A scheduler-universe job whose process runs.
pub struct LocalJob {
    pub job: RunningJob,
    /// The job's ad as it started (with the start attributes).
    pub ad: ClassAd,
    pub logs: JobLogs,
    pub owner: Option<String>,
    /// Why the schedd is stopping it, once it is.
    pub stop: Option<Stop>,
    /// When the soft kill turns into SIGKILL.
    pub hard_kill_at: Option<Instant>,
}

/// An idle scheduler-universe job, as read from the queue.
struct IdleLocal {
    ad: ClassAd,
    order: (Reverse<i64>, JobId),
    /// The store's change stamp when it was read (none when the pool put it back itself).
    stamp: Option<Stamp>,
}

/// The scheduler-universe jobs: the idle ones in the schedd's order, the running ones, and
/// those that failed to start and wait to be tried again.
pub struct LocalJobs {
    pub config: LocalConfig,
    idle: BTreeMap<JobId, IdleLocal>,
    order: BTreeSet<(Reverse<i64>, JobId)>,
    pub running: HashMap<JobId, LocalJob>,
    blocked: HashMap<JobId, Instant>,
    /// Something happened that may let an idle job start: a new idle job, a run's end, a
    /// wake-up, the periodic pass.
    start_due: bool,
}

impl LocalJobs {
    pub fn new(config: LocalConfig) -> LocalJobs {
        LocalJobs {
            config,
            idle: BTreeMap::new(),
            order: BTreeSet::new(),
            running: HashMap::new(),
            blocked: HashMap::new(),
            start_due: true,
        }
    }

    pub fn is_running(&self, id: JobId) -> bool {
        self.running.contains_key(&id)
    }

    pub fn idle_count(&self) -> usize {
        self.idle.len()
    }

    /// Whether the idle job `id` was read from the store with this stamp.
    pub fn has_stamp(&self, id: JobId, stamp: &Stamp) -> bool {
        self.idle.get(&id).and_then(|j| j.stamp.as_ref()) == Some(stamp)
    }

    /// Adds (or replaces) an idle job.
    pub fn insert_idle(&mut self, id: JobId, ad: ClassAd, stamp: Option<Stamp>) {
        self.forget_idle(id);
        let order = (Reverse(lookup_int(&ad, "JobPrio").unwrap_or(0)), id);
        self.order.insert(order);
        self.idle.insert(id, IdleLocal { ad, order, stamp });
        self.start_due = true;
    }

    /// Drops an idle job (started, held, removed, gone).
    pub fn forget_idle(&mut self, id: JobId) {
        if let Some(j) = self.idle.remove(&id) {
            self.order.remove(&j.order);
        }
    }

    /// Keeps only the idle jobs the store still has idle (`idle`, sorted by id).
    pub fn retain_idle(&mut self, idle: &[(JobId, Stamp)]) {
        if self.idle.is_empty() {
            return;
        }
        let mut next = idle.iter().map(|(id, _)| *id).peekable();
        let mut gone = Vec::new();
        for &id in self.idle.keys() {
            while next.next_if(|s| *s < id).is_some() {}
            if next.peek() != Some(&id) {
                gone.push(id);
            }
        }
        for id in gone {
            self.forget_idle(id);
        }
    }

    /// A tool woke the master: jobs that failed to start are tried again (as the schedd's
    /// reschedule runs its pass over local jobs).
    pub fn woken(&mut self) {
        self.blocked.clear();
        self.start_due = true;
    }

    /// Asks for a start pass at the next step.
    pub fn start_soon(&mut self) {
        self.start_due = true;
    }

    /// The earliest time a running job is to be killed hard, or a blocked job tried again.
    pub fn next_deadline(&self) -> Option<Instant> {
        let kills = self.running.values().filter_map(|j| j.hard_kill_at);
        let retries = self
            .blocked
            .iter()
            .filter(|(id, _)| self.idle.contains_key(id))
            .map(|(_, at)| *at);
        kills.chain(retries).min()
    }

    /// The idle jobs to try, in the schedd's order, unless blocked; takes the start pass
    /// that was due.
    fn candidates(&mut self, instant: Instant) -> Vec<JobId> {
        let unblocked = self.blocked.len();
        self.blocked.retain(|_, until| *until > instant);
        if !self.start_due && unblocked == self.blocked.len() {
            return Vec::new();
        }
        self.start_due = false;
        self.order
            .iter()
            .map(|(_, id)| *id)
            .filter(|id| !self.blocked.contains_key(id))
            .collect()
    }

    /// How many scheduler-universe jobs each owner runs.
    fn running_by_owner(&self) -> HashMap<String, i64> {
        let mut n = HashMap::new();
        for j in self.running.values() {
            *n.entry(j.owner.clone().unwrap_or_default()).or_default() += 1;
        }
        n
    }
}

/// The glue between the scheduler-universe jobs and the pool: starts, exits, stops, the
/// queue's changes, recovery.
impl Pool {
    /// Whether the schedd runs its jobs: the master is not stopping and `condor_off -schedd`
    /// did not turn it off (the startd and the negotiator play no part).
    fn local_accepting(&self) -> bool {
        self.lifecycle_running() && !self.control.schedd_off
    }

    /// Starts the idle scheduler-universe jobs that may start (`AddRunnableLocalJobs`),
    /// when something happened since the last pass (`periodic`: the negotiation interval
    /// came, which re-evaluates expressions that depend on time).
    pub(super) fn start_local_jobs(&mut self, now: Now, periodic: bool) {
        if periodic {
            self.schedd.local.start_soon();
        }
        if !self.local_accepting() {
            return;
        }
        let candidates = self.schedd.local.candidates(now.at);
        if candidates.is_empty() {
            return;
        }
        let mut schedd = self.schedd.local.config.schedd_ad(
            &self.config,
            self.schedd.local.running.len(),
            self.schedd.local.idle_count(),
        );
        let mut by_owner = self.schedd.local.running_by_owner();
        for id in candidates {
            let Some(ad) = self.schedd.local.idle.get(&id).map(|j| j.ad.clone()) else {
                continue;
            };
            schedd.insert(
                "TotalSchedulerJobsRunning",
                Expr::lit(self.schedd.local.running.len() as i64),
            );
            schedd.insert(
                "TotalSchedulerJobsIdle",
                Expr::lit(self.schedd.local.idle_count() as i64),
            );
            let owner = lookup_str(&ad, "Owner")
                .map(|o| o.to_string())
                .unwrap_or_default();
            let running = by_owner.get(&owner).copied().unwrap_or(0);
            if let Err(why) = eligible(&self.schedd.local.config, &schedd, &ad, running) {
                tracing::debug!("scheduler universe job {id} does not start: {why:?}");
                continue;
            }
            if self.start_local(id, ad, now) {
                *by_owner.entry(owner).or_default() += 1;
            }
        }
    }

    /// Starts one idle scheduler-universe job (`start_sched_universe_job`); whether it runs.
    fn start_local(&mut self, id: JobId, mut ad: ClassAd, now: Now) -> bool {
        let t = now.t;
        self.schedd.local.forget_idle(id);
        let logs = JobLogs::of(&self.session, &ad);
        let request = LocalStartRequest {
            job: &ad,
            local_dir: &self.schedd.local.config.dir,
            config: &self.config,
        };
        let job = match starter::start_local(&request) {
            Ok(job) => job,
            Err(LocalStartError::Hold(f)) => {
                tracing::info!("scheduler universe job {id} put on hold: {}", f.reason);
                self.journal.changes.expecting(id, JobStatus::Idle);
                self.hold(id, &ad, &f.reason, f.code, f.subcode, logs);
                return false;
            }
            Err(LocalStartError::NotStarted(why)) => {
                tracing::warn!("scheduler universe job {id} not started: {why}");
                let retry_at = now.after(self.schedd.local.config.retry);
                self.schedd.local.insert_idle(id, ad, None);
                self.schedd.local.blocked.insert(id, retry_at);
                return false;
            }
        };
        let pid = job.pid;
        tracing::info!("scheduler universe job {id} started (pid {pid})");
        if let Err(e) = self.shadow.reaper.watch(id, pid) {
            tracing::error!("job {id}: nothing can wait for it ({e}); killing it");
            let _ = job.hard_kill();
            let _ = starter::wait_exited(pid);
            let _ = self.to_main.send(Msg::Exited { job: id, pid });
        }
        let updates = start_updates(&ad, t);
        updates.apply(&mut ad);
        ad.insert("JobStatus", Expr::lit(JobStatus::Running.code()));
        let change = self.journal.changes.expecting(id, JobStatus::Idle);
        change.update.extend(updates);
        change.status = Some(JobStatus::Running);
        self.journal.events.push(PendingEvent {
            logs: logs.clone(),
            id,
            body: execute_event(&self.config),
        });
        self.journal
            .executed_marks
            .push((id, job.scratch_dir.clone()));
        let owner = lookup_str(&ad, "Owner").map(|o| o.to_string());
        self.schedd.local.running.insert(
            id,
            LocalJob {
                job,
                ad,
                logs,
                owner,
                stop: None,
                hard_kill_at: None,
            },
        );
        true
    }

    /// A scheduler-universe job's process ended; false when `id` is not one.
    pub(super) fn local_exited(&mut self, id: JobId, pid: i32, now: Now) -> bool {
        match self.schedd.local.running.get(&id) {
            None => return false,
            Some(l) if l.job.pid != pid => {
                // The end of an earlier process of the job's, reported late.
                starter::reap_if_exited(pid);
                return true;
            }
            Some(_) => {}
        }
        let l = self
            .schedd
            .local
            .running
            .remove(&id)
            .expect("looked up above");
        let pid = l.job.pid;
        // Forgotten first, reaped second: nothing signals the pid once it can be reused.
        let exit = l.job.collect().unwrap_or_else(|e| {
            // Its waiter was killed: what is left of the job goes too.
            tracing::error!("collecting job {id} (pid {pid}): {e}");
            starter::kill_job_processes(&l.job.scratch_dir);
            RawExit {
                status: libc::SIGKILL,
                ..RawExit::default()
            }
        });
        let t = now.t;
        self.session.now = t;
        self.schedd.local.start_soon();
        // A hold may have been released while the process was on its way out: the run's end
        // then leaves the job idle, to run again (as `check_zombie` leaves it).
        let released = l.stop == Some(Stop::Hold)
            && self.queue.job(id).ok().flatten().and_then(|j| j.status()) == Some(JobStatus::Idle);
        let expect = match l.stop {
            Some(Stop::Remove) => JobStatus::Removed,
            Some(Stop::Hold) if released => JobStatus::Idle,
            Some(Stop::Hold) => JobStatus::Held,
            _ => JobStatus::Running,
        };
        self.journal.changes.expecting(id, expect);
        if matches!(l.stop, Some(Stop::Hold | Stop::Remove)) {
            // A release or a new status may have come meanwhile: read the idle jobs again.
            self.schedd.reload_next = true;
        }
        let LocalJob {
            job,
            ad,
            logs,
            stop,
            ..
        } = l;
        let (result, dir) = job.finish_deferred(exit);
        if let Some(dir) = dir {
            // At once, not in the background: a requeued job makes the same directory.
            starter::remove_scratch(&dir);
        }
        tracing::info!(
            "scheduler universe job {id} (pid {pid}) exited: {:?}",
            result.exit
        );
        let mut end = match &stop {
            Some(stop) => stopped(&self.schedd.run_config, &ad, stop, t),
            None => exited(
                &self.schedd.policy,
                &self.schedd.run_config,
                &ad,
                result.exit,
                t,
            ),
        };
        if released {
            end.updates = run::stop_updates(&self.schedd.run_config, &ad, JobStatus::Idle, t);
        }
        let mut after = run::updated(&ad, &end.updates);
        if let Some(status) = end.status {
            after.insert("JobStatus", Expr::lit(status.code()));
        }
        if end.leaves_queue {
            self.finishing(id, &after);
        }
        let change = self.journal.changes.of(id);
        change.update.extend(end.updates);
        if let Some(status) = end.status {
            change.status = Some(status);
        }
        change.to_history = end.leaves_queue;
        for body in end.events {
            self.journal.events.push(PendingEvent {
                logs: logs.clone(),
                id,
                body,
            });
        }
        if end.status == Some(JobStatus::Idle) || released {
            self.requeue(id, after, now);
        }
        true
    }

    /// Stops a running scheduler-universe job (`abort_job_myself`, `preempt`): its
    /// `RemoveKillSig`, `HoldKillSig` or `KillSig`, or SIGKILL at once when `fast`; SIGKILL
    /// after the removal bound (10 s) for a removal or a hold, after the vacate time
    /// otherwise ([`Pool::vacate_time_of`]).
    /// False when `id` is not one.
    pub(super) fn stop_local(&mut self, id: JobId, stop: Stop, fast: bool, now: Now) -> bool {
        let vacate = self.vacate_time_of(self.schedd.local.running.get(&id).map(|j| &j.ad), &stop);
        let Some(l) = self.schedd.local.running.get_mut(&id) else {
            return false;
        };
        if l.stop.is_none() || stop == Stop::Remove {
            l.stop = Some(stop);
        }
        let deadline = now.after(vacate);
        if fast {
            let _ = l.job.hard_kill();
            l.hard_kill_at = None;
        } else if l.hard_kill_at.is_none() {
            let sig = match l.stop {
                Some(Stop::Remove) => l.job.remove_kill_sig(),
                Some(Stop::Hold) => l.job.hold_kill_sig(),
                _ => l.job.kill_sig(),
            };
            tracing::info!(
                "sending {} to scheduler universe job {id} (pid {})",
                starter::signal_name(sig).unwrap_or("a signal"),
                l.job.pid
            );
            let _ = l.job.send_signal(sig);
            l.hard_kill_at = Some(deadline);
        } else if matches!(l.stop, Some(Stop::Remove | Stop::Hold)) {
            l.hard_kill_at = l.hard_kill_at.map(|k| k.min(deadline));
        }
        true
    }

    /// `condor_vacate_job` (`-fast`) of a running scheduler-universe job: `None` when `id` is
    /// not one, else whether it was acted on (they are vacated, never suspended or
    /// continued: `abort_job_myself`).
    pub(super) fn signal_local(&mut self, id: JobId, signal: JobSignal, now: Now) -> Option<bool> {
        let stopping = self.schedd.local.running.get(&id)?.stop.is_some();
        let vacate = matches!(signal, JobSignal::Vacate | JobSignal::VacateFast);
        if stopping || !vacate {
            return Some(false);
        }
        let stop = Stop::Vacate {
            reason: "Job vacated by schedd".to_owned(),
            code: hold_codes::SCHEDD_VACATE,
            subcode: 0,
        };
        Some(self.stop_local(id, stop, signal == JobSignal::VacateFast, now))
    }

    /// The running scheduler-universe jobs to stop because the schedd stops (the master's
    /// shutdown, `condor_off -schedd`): back to idle once gone. A peaceful stop lets them
    /// run.
    pub(super) fn vacate_local(&self, how: Shutdown) -> Vec<Action> {
        if how == Shutdown::Peaceful {
            return Vec::new();
        }
        let mut ids: Vec<JobId> = self.schedd.local.running.keys().copied().collect();
        ids.sort();
        ids.into_iter()
            .map(|job| Action::Stop {
                job,
                stop: Stop::Vacate {
                    reason: String::new(),
                    code: hold_codes::JOB_SHOULD_REQUEUE,
                    subcode: 0,
                },
                fast: how == Shutdown::Fast,
            })
            .collect()
    }

    /// SIGKILLs the scheduler-universe jobs whose soft kill has had its time.
    pub(super) fn local_hard_kills(&mut self, instant: Instant) {
        for l in self.schedd.local.running.values_mut() {
            if l.hard_kill_at.is_some_and(|k| k <= instant) {
                let _ = l.job.hard_kill();
                l.hard_kill_at = None;
            }
        }
    }

    /// Another process changed the queue: running scheduler-universe jobs that were removed
    /// (or are gone) or held are stopped.
    pub(super) fn local_queue_changed(&mut self, now: Now) -> Result<(), DaemonError> {
        let ids: Vec<JobId> = self.schedd.local.running.keys().copied().collect();
        for id in ids {
            let job = self.queue.job(id)?;
            let stop = match job.as_ref().and_then(|j| j.status()) {
                None | Some(JobStatus::Removed) => Stop::Remove,
                Some(JobStatus::Held) => Stop::Hold,
                _ => continue,
            };
            if let (Some(job), Some(l)) = (job, self.schedd.local.running.get_mut(&id)) {
                for (attr, e) in super::schedd::stop_reasons(job) {
                    l.ad.insert(attr, e);
                }
            }
            self.stop_local(id, stop, false, now);
        }
        Ok(())
    }

    /// Kills what an earlier master's scheduler-universe jobs left running.
    pub(super) fn kill_local_orphans(&self) {
        let killed = starter::kill_local_orphans(&self.schedd.local.config.dir);
        if killed > 0 {
            tracing::info!(
                "killed {killed} processes of scheduler universe jobs an earlier master started"
            );
        }
    }
}

#[cfg(test)]
mod tests;
