//! Job actions: what the schedd does when `condor_rm`, `condor_hold` or `condor_release`
//! asks it to act on jobs (`Scheduler::actOnJobs` in src/condor_schedd.V6/schedd.cpp).
//!
//! A request names its jobs by id or by constraint. Each job gets a result: acted on, not
//! found, permission denied (another user's job, for a user who is not a queue superuser),
//! bad status (releasing a job that is not held, ...), already done. All the changes of one
//! request are one transaction, and when no job could be acted on nothing is changed. A
//! constraint is narrowed to the jobs the action makes sense for, as the schedd narrows it
//! (removing skips removed jobs, holding skips removed and completed ones, releasing takes
//! held ones only).
//!
//! What each action changes is the schedd's: the new `JobStatus` and
//! `EnteredCurrentStatus`, the reason (`HoldReason`, `ReleaseReason`, `RemoveReason`, with
//! `(by user <name>)` appended), `HoldReasonCode` 1 and its subcode, the hold counters
//! (`NumHolds`, `NumHoldsByReason`), and the reasons of the previous state moved to their
//! `Last*` attributes. A removed job then leaves the queue for the history (unless its
//! `LeaveJobInQueue` is true), and each job's event logs get the abort (009), hold (012) or
//! release (013) event, after the transaction has committed.
//!
//! A job with an `OtherJobRemoveRequirements` that leaves the queue removed or completed takes
//! other jobs with it ([`remove_other_jobs`], the schedd's `removeOtherJobs`): DAGMan's job carries
//! `DAGManJobId =?= <its cluster>`, so removing it removes its node jobs. The same function
//! serves the tools here and the master's own removals and completions.
//!
//! Vacating, suspending and continuing (`condor_vacate_job`, `condor_suspend`,
//! `condor_continue`) change nothing in the queue here: the jobs are checked (running, or
//! suspended to be continued) and the running master signals their processes
//! ([`super::master::Command::Jobs`]); it records the new state, the events and the
//! counters itself.

use std::sync::Arc;

use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr, Value};
use crate::eventlog::{EventBody, FactoryPaused, FactoryResumed, JobAborted, JobHeld, JobReleased};
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::{JobId, JobQuery, JobStatus, Queue, QueueError, Transaction};

use super::master::{JobSignal, MasterError};
use super::userlog::JobLogs;
use super::Session;

/// What to do (HTCondor's `JobAction`, with its numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Action {
    Hold = 1,
    Release = 2,
    Remove = 3,
    /// `condor_rm -forcex`: remove jobs already being removed, at once.
    RemoveX = 4,
    Vacate = 5,
    /// `condor_vacate_job -fast`: a hard kill.
    VacateFast = 6,
    Suspend = 8,
    Continue = 9,
}

impl Action {
    pub fn code(self) -> i64 {
        self as i64
    }

    fn reason_attr(self) -> &'static str {
        match self {
            Action::Hold => "HoldReason",
            Action::Release => "ReleaseReason",
            Action::Remove | Action::RemoveX => "RemoveReason",
            Action::Vacate | Action::VacateFast | Action::Suspend | Action::Continue => "",
        }
    }

    /// What the master does for an action that only signals running jobs.
    fn signal(self) -> Option<JobSignal> {
        match self {
            Action::Vacate => Some(JobSignal::Vacate),
            Action::VacateFast => Some(JobSignal::VacateFast),
            Action::Suspend => Some(JobSignal::Suspend),
            Action::Continue => Some(JobSignal::Continue),
            _ => None,
        }
    }

    /// The clause the schedd ANDs with a constraint: only jobs this action applies to.
    fn narrowing(self) -> &'static str {
        match self {
            Action::Remove => "JobStatus != 3",
            Action::RemoveX => "(JobStatus == 3) || (JobStatus == 5 && JobStatusOnRelease =?= 3)",
            Action::Hold => "JobStatus != 3 && JobStatus != 4",
            Action::Release => "JobStatus == 5 && HoldReasonCode =!= 16",
            Action::Suspend => {
                "(JobStatus == 2 || JobStatus == 6) && (JobUniverse =!= 12 && JobUniverse =!= 7)"
            }
            Action::Vacate | Action::VacateFast => "JobStatus == 2 || JobStatus == 6",
            Action::Continue => "JobStatus == 7",
        }
    }
}

/// The result for one job (HTCondor's `action_result_t`, with its numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ActionResult {
    Error = 0,
    Success = 1,
    NotFound = 2,
    BadStatus = 3,
    AlreadyDone = 4,
    PermissionDenied = 5,
    LimitExceeded = 6,
}

/// The hold reason code of a hold by a user (`CONDOR_HOLD_CODE::UserRequest`).
pub const HOLD_CODE_USER_REQUEST: i64 = 1;
/// Held while input files are spooled (`SpoolingInput`): such jobs cannot be released.
pub const HOLD_CODE_SPOOLING_INPUT: i64 = 16;

/// Which jobs a request is about.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Target {
    Ids(Vec<JobId>),
    /// A constraint, as text (it is narrowed and parsed as the schedd does).
    Constraint(String),
}

impl Target {
    fn constraint(&self) -> Option<&str> {
        match self {
            Target::Constraint(text) => Some(text),
            Target::Ids(_) => None,
        }
    }
}

/// One request.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Request {
    pub action: Action,
    pub target: Target,
    /// The reason the tool gives (`via condor_rm` by default); empty for none.
    pub reason: String,
    /// `HoldReasonSubCode` of a hold.
    pub subcode: i64,
}

/// What a request did.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Each job's result, in the order the jobs were looked at (a job looked at twice is
    /// listed twice).
    pub results: Vec<(JobId, ActionResult)>,
    /// How many jobs were acted on.
    pub success: usize,
    /// How many jobs the queue holds (all users').
    pub total_job_ads: u64,
    pub is_superuser: bool,
}

impl Outcome {
    /// The (last) result recorded for a job, `Error` when none was.
    pub fn result_of(&self, job: JobId) -> ActionResult {
        self.results
            .iter()
            .rev()
            .find(|(j, _)| *j == job)
            .map_or(ActionResult::Error, |(_, r)| *r)
    }

    /// How many jobs got each result, indexed by the result's number.
    pub fn totals(&self) -> [usize; 7] {
        let mut t = [0; 7];
        for (_, r) in &self.results {
            t[*r as usize] += 1;
        }
        t
    }
}

/// Why a request failed outright.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error(transparent)]
    Queue(#[from] QueueError),
    /// The constraint does not parse (the schedd cannot insert it into the request ad).
    #[error("Can't insert constraint into ClassAd")]
    BadConstraint(String),
    /// A vacate, suspend or continue needs the master, which runs the jobs.
    #[error(transparent)]
    Master(#[from] MasterError),
}

/// How a transaction that did nothing is rolled back with its outcome.
enum TxError {
    Queue(QueueError),
    NothingDone(Outcome),
}

impl From<QueueError> for TxError {
    fn from(e: QueueError) -> Self {
        TxError::Queue(e)
    }
}

/// An event to log once the transaction has committed.
struct PendingEvent {
    job: JobId,
    logs: JobLogs,
    body: EventBody,
}

/// Acts on the jobs of a request, in one transaction; then logs the events.
pub fn act_on_jobs(
    session: &Session,
    queue: &mut Queue,
    request: &Request,
) -> Result<Outcome, ActionError> {
    let constraint = match &request.target {
        Target::Constraint(text) => {
            let narrowed = format!("({}) && ({text})", request.action.narrowing());
            Some(parse_old_expr(&narrowed).map_err(|_| ActionError::BadConstraint(text.clone()))?)
        }
        Target::Ids(_) => None,
    };
    let reason = if request.reason.is_empty() {
        String::new()
    } else {
        format!("{} (by user {})", request.reason, session.user)
    };
    let mut events = Vec::new();
    let result = queue.transaction(|tx| {
        let ids = match (&request.target, &constraint) {
            (Target::Ids(ids), _) => ids.clone(),
            (_, Some(c)) => matching_ids(tx, c)?,
            _ => Vec::new(),
        };
        let mut outcome = Outcome {
            is_superuser: session.user_is_superuser(),
            ..Outcome::default()
        };
        let mut others = Vec::new();
        for id in ids {
            let r = act_on_job(session, tx, request, &reason, id, &mut events, &mut others)?;
            if r == ActionResult::Success {
                outcome.success += 1;
            }
            outcome.results.push((id, r));
        }
        // Job factories whose cluster ad the constraint matches (the schedd's narrowing
        // clauses start with `ProcId is undefined ||`, so that a cluster ad matches them).
        if let Some(Ok(user)) = request.target.constraint().map(parse_old_expr) {
            for cluster in tx.factory_ids()? {
                let r = act_on_factory(session, tx, request, &reason, cluster, &user, &mut events)?;
                if let Some(r) = r {
                    if r == ActionResult::Success {
                        outcome.success += 1;
                    }
                    outcome.results.push((JobId::new(cluster.0, -1), r));
                }
            }
        }
        if outcome.success == 0 {
            events.clear();
            return Err(TxError::NothingDone(outcome));
        }
        // The removed jobs' `OtherJobRemoveRequirements`, once the request's own jobs are
        // done (so that `condor_rm -all` does not remove a job twice).
        for other in others {
            for r in remove_other_jobs(tx, &other)? {
                if !r.running {
                    events.push(PendingEvent {
                        job: r.id,
                        logs: JobLogs::of(session, &r.ad),
                        body: EventBody::JobAborted(JobAborted {
                            reason: Some(r.reason),
                        }),
                    });
                }
            }
        }
        Ok(outcome)
    });
    let mut outcome = match result {
        Ok(o) => o,
        Err(TxError::NothingDone(o)) => o,
        Err(TxError::Queue(e)) => return Err(e.into()),
    };
    outcome.total_job_ads = queue
        .count_by_status(&JobQuery::all())?
        .iter()
        .map(|(_, n)| n)
        .sum();
    for e in events {
        e.logs
            .write(e.job.cluster.0, e.job.proc, session.now, e.body);
    }
    if let Some(signal) = request.action.signal() {
        signal_jobs(session, signal, &mut outcome)?;
    } else if outcome.success > 0 {
        super::master::wake(&session.config);
    }
    Ok(outcome)
}

/// `actOnJobs` on a job factory's cluster ad that the request's constraint matches: removing
/// it stops the factory (its cluster leaves the queue with its last proc), holding it pauses
/// materialization (`JobMaterializePaused = 1`, event 037), releasing it resumes it (event
/// 038). `None` when the constraint does not match or the action is not one of those.
fn act_on_factory(
    session: &Session,
    tx: &mut Transaction<'_>,
    request: &Request,
    reason: &str,
    cluster: crate::queue::ClusterId,
    constraint: &Expr,
    events: &mut Vec<PendingEvent>,
) -> Result<Option<ActionResult>, QueueError> {
    if !matches!(
        request.action,
        Action::Remove | Action::RemoveX | Action::Hold | Action::Release
    ) {
        return Ok(None);
    }
    let Some(ad) = tx.cluster_ad(cluster)? else {
        return Ok(None);
    };
    if ad.eval_expr(constraint, None).as_bool_equiv() != Some(true) {
        return Ok(None);
    }
    if !session.may_act_on(lookup_str(&ad, "Owner").as_deref()) {
        return Ok(Some(ActionResult::PermissionDenied));
    }
    let id = JobId::new(cluster.0, -1);
    let logs = JobLogs::of(session, &ad);
    match request.action {
        Action::Hold => {
            tx.set_attr(cluster, FACTORY_PAUSED, Expr::lit(1i64))?;
            tx.set_attr(cluster, FACTORY_PAUSE_REASON, Expr::lit(reason))?;
            events.push(PendingEvent {
                job: id,
                logs,
                body: EventBody::FactoryPaused(FactoryPaused {
                    reason: non_empty(reason),
                    pause_code: 1,
                    hold_code: HOLD_CODE_USER_REQUEST as i32,
                }),
            });
        }
        Action::Release => {
            tx.set_attr(cluster, FACTORY_PAUSED, Expr::lit(0i64))?;
            tx.delete_attr(cluster, FACTORY_PAUSE_REASON)?;
            events.push(PendingEvent {
                job: id,
                logs,
                body: EventBody::FactoryResumed(FactoryResumed {
                    reason: non_empty(reason),
                }),
            });
        }
        _ => {
            tx.remove_factory(cluster)?;
        }
    }
    Ok(Some(ActionResult::Success))
}

/// A job factory's pause state and its reason, in its cluster ad.
pub const FACTORY_PAUSED: &str = "JobMaterializePaused";
pub const FACTORY_PAUSE_REASON: &str = "JobMaterializePauseReason";

/// Has the master signal the jobs a vacate, suspend or continue succeeded for; a job it
/// could not act on (its process ended meanwhile) gets a bad status.
fn signal_jobs(
    session: &Session,
    signal: JobSignal,
    outcome: &mut Outcome,
) -> Result<(), ActionError> {
    let ids: Vec<JobId> = outcome
        .results
        .iter()
        .filter(|(_, r)| *r == ActionResult::Success)
        .map(|(id, _)| *id)
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    let answer = super::master::send(&session.config, &super::master::Command::Jobs(signal, ids))?;
    let missed: Vec<JobId> = answer
        .split_ascii_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    for (id, r) in &mut outcome.results {
        if *r == ActionResult::Success && missed.contains(id) {
            *r = ActionResult::BadStatus;
            outcome.success -= 1;
        }
    }
    Ok(())
}

/// The jobs a constraint selects. A job whose stored ad (or its cluster's) no longer reads
/// back is matched against what its columns still tell (`ClusterId`, `ProcId`, `Owner`,
/// `JobStatus`), so that `condor_rm <cluster>`, `condor_rm <user>` and `condor_rm -all`
/// reach it and a constraint on anything else passes it by.
fn matching_ids(tx: &mut Transaction<'_>, constraint: &Expr) -> Result<Vec<JobId>, QueueError> {
    // The store's query (which narrows by id and owner in SQL) serves unless an ad is damaged.
    match tx.job_ids(&JobQuery::all().with_constraint(constraint.clone())) {
        Err(QueueError::DamagedAd { .. }) => {}
        other => return other,
    }
    let mut ids = Vec::new();
    let mut damaged = Vec::new();
    for job in tx.jobs(&JobQuery::all())? {
        let job = job?;
        match job.ad() {
            Ok(ad) => {
                if crate::queue::constraint_holds(constraint, ad) {
                    ids.push(job.id());
                }
            }
            Err(QueueError::DamagedAd { .. }) => damaged.push((job.id(), job.status_code())),
            Err(e) => return Err(e),
        }
    }
    for (id, status) in damaged {
        let mut columns = ClassAd::new();
        columns.insert("ClusterId", Expr::lit(id.cluster.0 as i64));
        columns.insert("ProcId", Expr::lit(id.proc as i64));
        columns.insert("JobStatus", Expr::lit(status));
        if let Some(owner) = tx.cluster_owner(id.cluster)? {
            columns.insert("Owner", Expr::lit(owner.as_str()));
        }
        if crate::queue::constraint_holds(constraint, &columns) {
            ids.push(id);
        }
    }
    ids.sort();
    Ok(ids)
}

/// Acts on one job inside the transaction; a removed job with an `OtherJobRemoveRequirements`
/// is added to `others`.
fn act_on_job(
    session: &Session,
    tx: &mut Transaction<'_>,
    request: &Request,
    reason: &str,
    id: JobId,
    events: &mut Vec<PendingEvent>,
    others: &mut Vec<OtherJobRemoval>,
) -> Result<ActionResult, QueueError> {
    let Some(job) = tx.job(id)? else {
        return Ok(ActionResult::NotFound);
    };
    let ad = match job.into_ad() {
        Ok(ad) => ad,
        // A job whose stored ad no longer reads back can only be removed: without reading it.
        Err(e @ QueueError::DamagedAd { .. }) => {
            if !matches!(request.action, Action::Remove | Action::RemoveX) {
                return Err(e);
            }
            let owner = tx.cluster_owner(id.cluster)?;
            if !session.may_act_on(owner.as_deref()) {
                return Ok(ActionResult::PermissionDenied);
            }
            tx.purge_damaged(id, &format!("{reason} (its stored ad was damaged: {e})"))?;
            return Ok(ActionResult::Success);
        }
        Err(e) => return Err(e),
    };
    let status = lookup_int(&ad, "JobStatus").unwrap_or(-1);
    let owner = lookup_str(&ad, "Owner");
    if !session.may_act_on(owner.as_deref()) {
        return Ok(ActionResult::PermissionDenied);
    }
    let action = request.action;
    if action.signal().is_some() {
        // Checked here, done by the master (the schedd's checks in `actOnJobs`).
        let wanted = if action == Action::Continue {
            status == JobStatus::Suspended.code()
        } else {
            status == JobStatus::Running.code() || status == JobStatus::TransferringOutput.code()
        };
        return Ok(if wanted {
            ActionResult::Success
        } else {
            ActionResult::BadStatus
        });
    }
    let hold_code = lookup_int(&ad, "HoldReasonCode");
    let mut new_status = JobStatus::Removed;
    match action {
        Action::Release => {
            if status != JobStatus::Held.code() || hold_code == Some(HOLD_CODE_SPOOLING_INPUT) {
                return Ok(ActionResult::BadStatus);
            }
            if !session.user_is_superuser() {
                let max = session
                    .config
                    .int("SYSTEM_MAX_RELEASES")
                    .ok()
                    .flatten()
                    .unwrap_or(-1);
                if max > -1 && lookup_int(&ad, "NumHolds").unwrap_or(0) > max {
                    return Ok(ActionResult::LimitExceeded);
                }
            }
            let on_release = lookup_int(&ad, "JobStatusOnRelease").unwrap_or(1);
            new_status = JobStatus::from_code(on_release).unwrap_or(JobStatus::Idle);
        }
        Action::Remove => {
            if status == JobStatus::Removed.code() {
                return Ok(ActionResult::AlreadyDone);
            }
        }
        Action::RemoveX => {
            let on_release = lookup_int(&ad, "JobStatusOnRelease").unwrap_or(1);
            let removing = status == JobStatus::Removed.code()
                || (status == JobStatus::Held.code() && on_release == JobStatus::Removed.code());
            if !removing {
                return Ok(ActionResult::BadStatus);
            }
            tx.set_attr(id, "LeaveJobInQueue", Expr::lit(false))?;
        }
        Action::Hold => {
            if status == JobStatus::Held.code()
                && matches!(
                    hold_code,
                    Some(HOLD_CODE_USER_REQUEST | HOLD_CODE_SPOOLING_INPUT)
                )
            {
                return Ok(ActionResult::AlreadyDone);
            }
            if status == JobStatus::Removed.code() || status == JobStatus::Completed.code() {
                return Ok(ActionResult::PermissionDenied);
            }
        }
        Action::Vacate | Action::VacateFast | Action::Suspend | Action::Continue => {}
    }
    let applied = match action {
        Action::Hold => hold(tx, id, &ad, reason, request.subcode),
        _ => change_status(tx, id, action, new_status, reason),
    };
    match applied {
        Ok(()) => {}
        // The schedd's SetAttribute refuses the change: it reports permission denied.
        Err(QueueError::RemovedJobStatus { .. } | QueueError::BadAttributeValue { .. }) => {
            return Ok(ActionResult::PermissionDenied)
        }
        Err(e) => return Err(e),
    }
    let logs = JobLogs::of(session, &ad);
    let body = match action {
        Action::Hold => EventBody::JobHeld(JobHeld {
            reason: non_empty(reason),
            code: HOLD_CODE_USER_REQUEST as i32,
            subcode: request.subcode as i32,
        }),
        Action::Release => EventBody::JobReleased(JobReleased {
            reason: non_empty(reason),
        }),
        _ => EventBody::JobAborted(JobAborted {
            reason: non_empty(reason),
        }),
    };
    if matches!(action, Action::Remove | Action::RemoveX) {
        if matches!(
            JobStatus::from_code(status),
            Some(JobStatus::Running | JobStatus::TransferringOutput | JobStatus::Suspended)
        ) && action == Action::Remove
        {
            // A job with a running process stays in the queue, `Removed`, until the
            // master has killed it; the master then logs the abort and retires the job, and
            // applies its `OtherJobRemoveRequirements` (as the schedd does when the job
            // leaves the queue: DAGMan, signalled first, removes its nodes itself, and must
            // not see them aborted before it knows it is being removed).
            return Ok(ActionResult::Success);
        }
        // A removed job with no shadow leaves the queue at once (`DestroyProc`).
        others.extend(OtherJobRemoval::of(id, &ad));
        tx.move_to_history(id)?;
    }
    events.push(PendingEvent {
        job: id,
        logs,
        body,
    });
    Ok(ActionResult::Success)
}

/// What a job's `OtherJobRemoveRequirements` asks for when the job is removed or leaves the
/// queue: the constraint, and whose jobs it may remove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OtherJobRemoval {
    /// The job whose attribute it is.
    pub id: JobId,
    /// Its `Owner`: only that owner's jobs are removed.
    pub owner: Option<String>,
    /// The constraint, as the attribute's string holds it.
    pub requirements: String,
}

impl OtherJobRemoval {
    /// The removal a job's ad asks for, if its `OtherJobRemoveRequirements` is a non-empty
    /// string (`GetAttributeString`: an expression or another type asks for nothing).
    pub fn of(id: JobId, ad: &ClassAd) -> Option<OtherJobRemoval> {
        let requirements = match ad.lookup(ATTR_OTHER_JOB_REMOVE_REQUIREMENTS)? {
            Expr::Lit(Value::Str(s)) if !s.is_empty() => s.to_string(),
            _ => return None,
        };
        Some(OtherJobRemoval {
            id,
            owner: lookup_str(ad, "Owner").map(|o| o.to_string()),
            requirements,
        })
    }

    /// The `RemoveReason` of the jobs it removes (schedd.cpp, `removeOtherJobs`).
    pub fn reason(&self) -> String {
        format!(
            "removed because <{ATTR_OTHER_JOB_REMOVE_REQUIREMENTS} = {}> fired when job ({}.{}) was removed",
            self.requirements, self.id.cluster.0, self.id.proc
        )
    }
}

/// The attribute (condor_attributes.h, `ATTR_OTHER_JOB_REMOVE_REQUIREMENTS`).
pub const ATTR_OTHER_JOB_REMOVE_REQUIREMENTS: &str = "OtherJobRemoveRequirements";

/// A job that another's `OtherJobRemoveRequirements` removed.
#[derive(Clone, Debug)]
pub struct RemovedOther {
    pub id: JobId,
    /// Its ad before the removal (for its logs).
    pub ad: ClassAd,
    /// Its `RemoveReason`.
    pub reason: String,
    /// It has a running process: it stays `Removed` until the master has killed it (and
    /// logs its abort), as a `condor_rm` leaves it. Otherwise it has left the queue for the
    /// history (unless its `LeaveJobInQueue`), its abort to be logged now.
    pub running: bool,
}

/// The schedd's `removeOtherJobs` and `abortJobsByConstraint` (schedd.cpp): removes every job
/// for which `removal`'s constraint is true, with the reason [`OtherJobRemoval::reason`],
/// inside the caller's transaction. Then the same for the removed jobs' own
/// `OtherJobRemoveRequirements` (a DAG's sub-DAG takes its nodes with it, as the schedd does
/// when the sub-DAG's job leaves the queue in its turn).
///
/// As HTCondor evaluates it, the constraint is evaluated against each job's ad alone (`MY`
/// is the other job; the job being removed is not in scope: `GetNextJobByConstraint`).
/// Unlike HTCondor, which removes whatever the constraint matches, only jobs of the same
/// `Owner` are removed; and jobs already removed or completed are left as they are (the
/// schedd would only write `Removed` and the reason over them again).
pub fn remove_other_jobs(
    tx: &mut Transaction<'_>,
    removal: &OtherJobRemoval,
) -> Result<Vec<RemovedOther>, QueueError> {
    let mut removed = Vec::new();
    let mut seen = std::collections::HashSet::from([removal.id]);
    let mut work = vec![removal.clone()];
    while let Some(removal) = work.pop() {
        let Ok(constraint) = parse_old_expr(&removal.requirements) else {
            tracing::warn!(
                "job {}: {ATTR_OTHER_JOB_REMOVE_REQUIREMENTS} does not parse: {}",
                removal.id,
                removal.requirements
            );
            continue;
        };
        let reason = removal.reason();
        for id in tx.job_ids(&JobQuery::all().with_constraint(constraint))? {
            if !seen.insert(id) {
                continue;
            }
            let Some(ad) = current_ad(tx, id)? else {
                continue;
            };
            if lookup_str(&ad, "Owner").map(|o| o.to_string()) != removal.owner {
                continue;
            }
            let status = lookup_int(&ad, "JobStatus").and_then(JobStatus::from_code);
            let running = match status {
                None | Some(JobStatus::Removed | JobStatus::Completed) => continue,
                Some(s) => matches!(
                    s,
                    JobStatus::Running | JobStatus::TransferringOutput | JobStatus::Suspended
                ),
            };
            change_status(tx, id, Action::Remove, JobStatus::Removed, &reason)?;
            if !running {
                tx.move_to_history(id)?;
            }
            work.extend(OtherJobRemoval::of(id, &ad));
            removed.push(RemovedOther {
                id,
                ad,
                reason: reason.clone(),
                running,
            });
        }
    }
    Ok(removed)
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// Release and remove: the new status, the reason, and the old reasons moved aside
/// (`fixReasonAttrs`).
fn change_status(
    tx: &mut Transaction<'_>,
    id: JobId,
    action: Action,
    status: JobStatus,
    reason: &str,
) -> Result<(), QueueError> {
    tx.set_status(id, status)?;
    if !reason.is_empty() {
        tx.set_attr(id, action.reason_attr(), Expr::lit(reason))?;
    }
    match action {
        Action::Release | Action::Remove => {
            move_str_attr(tx, id, "HoldReason", "LastHoldReason")?;
            move_int_attr(tx, id, "HoldReasonCode", "LastHoldReasonCode")?;
            move_int_attr(tx, id, "HoldReasonSubCode", "LastHoldReasonSubCode")?;
            tx.delete_attr(id, "JobStatusOnRelease")?;
        }
        _ => {}
    }
    Ok(())
}

/// A hold by a user (`holdJobRaw`).
fn hold(
    tx: &mut Transaction<'_>,
    id: JobId,
    ad: &ClassAd,
    reason: &str,
    subcode: i64,
) -> Result<(), QueueError> {
    hold_job(tx, id, ad, reason, HOLD_CODE_USER_REQUEST, subcode)
}

/// Puts a job on hold, as the schedd's `holdJobRaw` records it: the reason, the code and
/// subcode, the hold counted in total and by reason ([`crate::schedd::exit::hold_updates`]).
pub fn hold_job(
    tx: &mut Transaction<'_>,
    id: JobId,
    ad: &ClassAd,
    reason: &str,
    code: i64,
    subcode: i64,
) -> Result<(), QueueError> {
    let update = crate::schedd::exit::hold_updates(ad, reason, code, subcode);
    apply_update(tx, id, &update)?;
    tx.set_status(id, JobStatus::Held)
}

/// Makes the changes of an [`AdUpdate`](crate::schedd::exit::AdUpdate) to a job.
pub fn apply_update(
    tx: &mut Transaction<'_>,
    id: JobId,
    update: &crate::schedd::exit::AdUpdate,
) -> Result<(), QueueError> {
    for (name, e) in &update.set {
        tx.set_attr(id, name, e.clone())?;
    }
    for name in &update.delete {
        tx.delete_attr(id, name)?;
    }
    Ok(())
}

/// The job's ad as the transaction sees it now.
fn current_ad(tx: &Transaction<'_>, id: JobId) -> Result<Option<ClassAd>, QueueError> {
    match tx.job(id)? {
        Some(job) => job.into_ad().map(Some),
        None => Ok(None),
    }
}

/// `moveStrAttr`: a string attribute renamed.
fn move_str_attr(
    tx: &mut Transaction<'_>,
    id: JobId,
    from: &str,
    to: &str,
) -> Result<(), QueueError> {
    let Some(ad) = current_ad(tx, id)? else {
        return Ok(());
    };
    if let Some(v) = lookup_str(&ad, from) {
        tx.set_attr(id, to, Expr::Lit(Value::Str(Arc::clone(&v))))?;
        tx.delete_attr(id, from)?;
    }
    Ok(())
}

/// `moveIntAttr`: a number attribute renamed (as an integer).
fn move_int_attr(
    tx: &mut Transaction<'_>,
    id: JobId,
    from: &str,
    to: &str,
) -> Result<(), QueueError> {
    let Some(ad) = current_ad(tx, id)? else {
        return Ok(());
    };
    if let Some(v) = lookup_int(&ad, from) {
        tx.set_attr(id, to, Expr::lit(v))?;
        tx.delete_attr(id, from)?;
    }
    Ok(())
}

/// The ad `condor_rm -long` prints: the request's results as the schedd reports them, one
/// attribute per job (`job_C_P`) or the count of each result (`result_total_N`).
pub fn result_ad(per_job: bool, action: Action, o: &Outcome) -> ClassAd {
    let mut ad = ClassAd::new();
    if per_job {
        for (id, r) in &o.results {
            ad.insert(
                &format!("job_{}_{}", id.cluster.0, id.proc),
                Expr::lit(*r as i64),
            );
        }
        ad.insert("ActionResultType", Expr::lit(1));
    } else {
        ad.insert("ActionResultType", Expr::lit(2));
        for (code, n) in o.totals().into_iter().enumerate() {
            ad.insert(&format!("result_total_{code}"), Expr::lit(n as i64));
        }
    }
    ad.insert("JobAction", Expr::lit(action.code()));
    ad.insert("ActionResult", Expr::lit(i64::from(o.success > 0)));
    ad.insert("TotalJobAds", Expr::lit(o.total_job_ads as i64));
    ad.insert("IsQueueSuperUser", Expr::lit(o.is_superuser));
    ad
}
