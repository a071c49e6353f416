//! Queueing the jobs of parsed submit descriptions as the schedd takes them from
//! condor_submit (or DAGMan's direct submit): one queue transaction for all of them, the
//! schedd's own attributes (`Owner`, `User`, a spooled job's stage-in), and the submit event
//! (000) of every proc in its job event logs once the transaction has committed.

use std::collections::HashMap;
use std::path::PathBuf;

use super::userlog::JobLogs;
use super::Session;
use crate::classad::{ClassAd, Expr, Value};
use crate::eventlog::{self, Event, EventBody, EventLogWriter};
use crate::queue::spool::job_spool_dir;
use crate::queue::{ClusterId, JobId, Queue, QueueError};
use crate::submit::{Job, SubmitError, SubmitFile};

fn literal(ad: &ClassAd, name: &str) -> Option<Value> {
    match ad.lookup(name)? {
        Expr::Lit(v) => Some(v.clone()),
        _ => None,
    }
}

/// Why a submit stopped.
#[derive(Debug)]
pub enum SubmitFailure {
    /// Text for stderr, exactly as condor_submit prints it.
    Text(String),
    Queue(QueueError),
}

impl From<QueueError> for SubmitFailure {
    fn from(e: QueueError) -> Self {
        SubmitFailure::Queue(e)
    }
}

impl From<SubmitError> for SubmitFailure {
    fn from(e: SubmitError) -> Self {
        SubmitFailure::Text(e.condor_submit_text())
    }
}

impl std::fmt::Display for SubmitFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SubmitFailure::Text(t) => f.write_str(t.trim()),
            SubmitFailure::Queue(e) => {
                write!(f, "Failed to commit job submission into the queue: {e}")
            }
        }
    }
}

/// The clusters one submit description made: each cluster's id and number of procs.
pub type Clusters = Vec<(ClusterId, u32)>;

/// Queues the jobs of several submit descriptions in one transaction: every proc of every
/// cluster lands, or none does. `on_job(i, job)` sees each job of description `i` before it
/// is stored and may refuse it. Returns each description's clusters and the submit events to
/// write once the caller is done ([`EventPlan::write`]); on failure, the index of the
/// description that failed.
pub fn queue_jobs(
    session: &Session,
    files: &[&SubmitFile],
    remote: bool,
    on_job: &mut dyn FnMut(usize, &Job) -> Result<(), SubmitFailure>,
) -> Result<(Vec<Clusters>, EventPlan), (usize, SubmitFailure)> {
    let mut queue = session.open_queue().map_err(|e| (0, e.into()))?;
    let (made, mut events) = queue_jobs_in(&mut queue, session, files, remote, on_job)?;
    events.queue = Some(queue);
    Ok((made, events))
}

/// As [`queue_jobs`], in a queue the caller keeps open (DAGMan submits batch after batch).
pub fn queue_jobs_in(
    queue: &mut Queue,
    session: &Session,
    files: &[&SubmitFile],
    remote: bool,
    on_job: &mut dyn FnMut(usize, &Job) -> Result<(), SubmitFailure>,
) -> Result<(Vec<Clusters>, EventPlan), (usize, SubmitFailure)> {
    let owner = session.user.clone();
    let user = submitter_name(session);
    let global_id = GlobalJobId::of(session);
    let limits = JobLimits::of(session);
    let mut events = EventPlan::new();
    let mut at = 0;
    let mut made: Vec<Clusters> = Vec::new();
    let result = queue.transaction(|tx| {
        made.clear();
        let existing = tx.job_count()?;
        let mut owned: Option<i64> = None;
        let mut added: i64 = 0;
        for (i, file) in files.iter().enumerate() {
            at = i;
            let mut clusters: Clusters = Vec::new();
            let mut next_id: Option<ClusterId> = Some(tx.new_cluster_id()?);
            let first = next_id.expect("just set").0 as i64;
            let mut current: Option<ClusterId> = None;
            for job in file.jobs(first) {
                let job = job?;
                limits.check(existing, added, || {
                    // Counted only when it could matter: the owner's jobs are among all.
                    Ok(*match &mut owned {
                        Some(n) => n,
                        slot => slot.insert(tx.owner_job_count(&owner)?),
                    })
                })?;
                added += 1;
                on_job(i, &job)?;
                events.add(session, &job);
                let mut own = job.ad.clone();
                let Some(mut cluster_ad) = own.unchain() else {
                    return Err(SubmitFailure::Text(
                        "\nERROR: Failed to queue job.\n".into(),
                    ));
                };
                own.insert(
                    "GlobalJobId",
                    Expr::lit(global_id.of_job(job.cluster_id, job.proc_id).as_str()),
                );
                if remote {
                    // The schedd's stage-in, done at once (see condor_submit's docs).
                    spooled(&mut own, session.now);
                    if job.new_cluster {
                        spooled(&mut cluster_ad, session.now);
                    }
                    let id = JobId {
                        cluster: ClusterId(job.cluster_id as i32),
                        proc: job.proc_id as i32,
                    };
                    rewrite_spooled(&mut own, &cluster_ad, &job_spool_dir(session.spool(), id));
                }
                if job.new_cluster {
                    let id = match next_id.take() {
                        Some(id) => id,
                        None => tx.new_cluster_id()?,
                    };
                    if id.0 as i64 != job.cluster_id {
                        return Err(SubmitFailure::Text(
                            "\nERROR: Failed to create cluster\n".into(),
                        ));
                    }
                    // The schedd's part: who owns the cluster.
                    cluster_ad.insert("Owner", Expr::lit(owner.as_str()));
                    cluster_ad.insert("User", Expr::lit(user.as_str()));
                    tx.submit_cluster(id, cluster_ad, std::iter::once(own))?;
                    current = Some(id);
                    clusters.push((id, 1));
                } else {
                    let id = current.expect("a cluster's first job comes first");
                    tx.add_procs(id, std::iter::once(own))?;
                    if let Some(last) = clusters.last_mut() {
                        last.1 += 1;
                    }
                }
            }
            made.push(clusters);
        }
        Ok(())
    });
    match result {
        Ok(()) => Ok((made, events)),
        Err(e) => Err((at, e)),
    }
}

/// The schedd's bounds on a submit (qmgmt.cpp `NewProc`): `MAX_JOBS_SUBMITTED` jobs in the
/// queue, `MAX_JOBS_PER_OWNER` of one owner, `MAX_JOBS_PER_SUBMISSION` in one transaction.
/// They also bound what a submit file can ask for: `queue 1e9` stops at the first limit.
struct JobLimits {
    submitted: i64,
    per_owner: i64,
    per_submission: i64,
}

impl JobLimits {
    fn of(session: &Session) -> JobLimits {
        let knob =
            |name: &str, default: i64| session.config.int(name).ok().flatten().unwrap_or(default);
        JobLimits {
            submitted: knob("MAX_JOBS_SUBMITTED", i32::MAX as i64),
            per_owner: knob("MAX_JOBS_PER_OWNER", 100_000),
            per_submission: knob("MAX_JOBS_PER_SUBMISSION", 20_000),
        }
    }

    /// Whether one more job may be added, with `added` already added by this submit to a
    /// queue that held `existing` jobs, `owned()` of them the submitter's (asked only when
    /// `existing` does not settle it); condor_submit's words when not.
    fn check(
        &self,
        existing: i64,
        added: i64,
        owned: impl FnOnce() -> Result<i64, QueueError>,
    ) -> Result<(), SubmitFailure> {
        let exceeded = if existing + added >= self.submitted {
            "MAX_JOBS_SUBMITTED"
        } else if existing + added >= self.per_owner && owned()? + added >= self.per_owner {
            "MAX_JOBS_PER_OWNER"
        } else if added >= self.per_submission {
            "MAX_JOBS_PER_SUBMISSION"
        } else {
            return Ok(());
        };
        Err(SubmitFailure::Text(format!(
            "\nERROR: Failed to create proc\nNumber of submitted jobs would exceed {exceeded}\n"
        )))
    }
}

/// `GlobalJobId`, which the schedd gives each job as it creates it (qmgmt.cpp
/// `NewProcInternal`): `<schedd name>#<cluster>.<proc>`, followed by `#<the schedd's time>`
/// unless `GLOBAL_JOB_ID_WITH_TIME` is false. The schedd's name is the one condor_q and
/// condor_status show ([`Session::schedd_name`]); its time is the submit's
/// ([`Session::now`], the time condor_submit also gives `QDate`).
pub(crate) struct GlobalJobId {
    schedd: String,
    time: Option<i64>,
}

impl GlobalJobId {
    pub(crate) fn of(session: &Session) -> GlobalJobId {
        let with_time = session
            .config
            .bool("GLOBAL_JOB_ID_WITH_TIME")
            .ok()
            .flatten()
            .unwrap_or(true);
        GlobalJobId {
            schedd: session.schedd_name(),
            time: with_time.then_some(session.now),
        }
    }

    pub(crate) fn of_job(&self, cluster: i64, proc: i64) -> String {
        match self.time {
            Some(t) => format!("{}#{cluster}.{proc}#{t}", self.schedd),
            None => format!("{}#{cluster}.{proc}", self.schedd),
        }
    }
}

/// What the schedd makes of a job held for spooling once its input files are in
/// (`spoolJobFilesReaper`, then `releaseJobRaw` with "Data files spooled" and
/// `fixReasonAttrs`): the stage-in times, the hold moved to the `LastHold*` attributes, the
/// job back to `JobStatusOnRelease` (idle). Applied to whichever of a job's attributes this
/// ad (its cluster ad, or its own) holds.
pub fn spooled(ad: &mut ClassAd, now: i64) {
    let held = matches!(literal(ad, "JobStatus"), Some(Value::Int(5)));
    let on_hold_reason = literal(ad, "HoldReasonCode").is_some();
    if !held && !on_hold_reason {
        return;
    }
    ad.insert("StageInStart", Expr::lit(now));
    ad.insert("StageInFinish", Expr::lit(now));
    ad.insert("ReleaseReason", Expr::lit("Data files spooled"));
    for (from, to) in [
        ("HoldReason", "LastHoldReason"),
        ("HoldReasonCode", "LastHoldReasonCode"),
        ("HoldReasonSubCode", "LastHoldReasonSubCode"),
    ] {
        if let Some(e) = ad.lookup(from).cloned() {
            ad.insert(to, e);
            ad.remove(from);
        }
    }
    if held {
        let status = match literal(ad, "JobStatusOnRelease") {
            Some(Value::Int(s)) => s,
            _ => 1,
        };
        ad.remove("JobStatusOnRelease");
        ad.insert("JobStatus", Expr::lit(status));
        ad.insert("EnteredCurrentStatus", Expr::lit(now));
        ad.insert("LastSuspensionTime", Expr::lit(0i64));
    }
}

/// The schedd's `rewriteSpooledJobAd` (qmgmt.cpp) for a job whose files are spooled: its
/// `Iwd` becomes its spool directory (`SUBMIT_Iwd` keeps the submitter's), its non-URL
/// output remaps move to `SUBMIT_TransferOutputRemaps` (applied by `condor_transfer_data`,
/// not when the output comes back into the spool), and the paths of `Cmd`, `In`,
/// `TransferInput`, `UserLog` and `X509UserProxy` that change are kept as `SUBMIT_<attr>`.
/// The schedd makes them base names, for the copies it holds in the spool; condorlite reads
/// a spooled job's input where it is, so a relative path becomes absolute in the
/// submitter's `Iwd` instead. Written into the proc ad `own`; `cluster` is its cluster ad.
pub fn rewrite_spooled(own: &mut ClassAd, cluster: &ClassAd, spool_dir: &std::path::Path) {
    let look = |ad: &ClassAd, name: &str| ad.lookup(name).or_else(|| cluster.lookup(name)).cloned();
    let string = |ad: &ClassAd, name: &str| match look(ad, name) {
        Some(Expr::Lit(Value::Str(s))) => Some(s.to_string()),
        _ => None,
    };
    if look(own, "SUBMIT_Iwd").is_some() {
        return;
    }
    let iwd = string(own, "Iwd");
    match &iwd {
        Some(i) => own.insert("SUBMIT_Iwd", Expr::lit(i.as_str())),
        None => own.insert("SUBMIT_Iwd", Expr::Lit(Value::Undefined)),
    }
    own.insert("Iwd", Expr::lit(spool_dir.to_string_lossy().as_ref()));

    let mut url_remaps = String::new();
    if look(own, "TransferOutputRemaps").is_some() {
        let mut kept = String::new();
        for command in string(own, "TransferOutputRemaps")
            .unwrap_or_default()
            .split(';')
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            let parts: Vec<&str> = command
                .split([' ', '='])
                .filter(|p| !p.is_empty())
                .collect();
            if parts.len() != 2 {
                continue;
            }
            let to = if crate::starter::transfer::is_url(parts[1]) {
                &mut url_remaps
            } else {
                &mut kept
            };
            if !to.is_empty() {
                to.push(';');
            }
            to.push_str(command);
        }
        own.insert("SUBMIT_TransferOutputRemaps", Expr::lit(kept.as_str()));
    } else if look(own, "SUBMIT_TransferOutputRemaps").is_some() {
        own.insert("SUBMIT_TransferOutputRemaps", Expr::Lit(Value::Undefined));
    }
    if url_remaps.is_empty() {
        own.insert("TransferOutputRemaps", Expr::Lit(Value::Undefined));
    } else {
        own.insert("TransferOutputRemaps", Expr::lit(url_remaps.as_str()));
    }

    let base = iwd.map(PathBuf::from);
    for (attr, list, xfer) in [
        ("Cmd", false, Some("TransferExecutable")),
        ("In", false, Some("TransferIn")),
        ("TransferInput", true, None),
        ("UserLog", false, None),
        ("X509UserProxy", false, None),
    ] {
        let Some(old) = string(own, attr) else {
            continue;
        };
        if old.is_empty() || old == "/dev/null" {
            continue;
        }
        if let Some(x) = xfer {
            if matches!(look(own, x), Some(Expr::Lit(Value::Bool(false)))) {
                continue;
            }
        }
        let absolute = |p: &str| -> String {
            match &base {
                Some(b) if !p.starts_with('/') && !crate::starter::transfer::is_url(p) => {
                    b.join(p).to_string_lossy().into_owned()
                }
                _ => p.to_owned(),
            }
        };
        let new = if list {
            crate::config::expand::tokens(&old, ",")
                .iter()
                .map(|p| absolute(p))
                .collect::<Vec<_>>()
                .join(",")
        } else {
            absolute(&old)
        };
        if new != old {
            own.insert(&format!("SUBMIT_{attr}"), Expr::lit(old.as_str()));
            own.insert(attr, Expr::lit(new.as_str()));
        }
    }
}

/// The submit event of every proc, written to the jobs' logs once the submit is committed.
pub struct EventPlan {
    /// The distinct sets of logs and notes, and which procs use each.
    logs: Vec<(JobLogs, Option<String>, Option<String>)>,
    procs: Vec<(i32, i32, u32)>,
    /// Whether the last cluster's log set is known (its procs add none of the attributes).
    cluster_logs: Option<(i64, Option<u32>)>,
    /// The queue the jobs went into, closed once the events are written and the daemon is
    /// woken: closing may fold the store's log into its file (see `Queue`'s drop), which
    /// should not hold up the jobs' start.
    pub(crate) queue: Option<crate::queue::Queue>,
}

const LOG_ATTRS: [&str; 7] = [
    "UserLog",
    "DAGManNodesLog",
    "DAGManNodesMask",
    "Iwd",
    "UserLogUseXML",
    "SubmitEventNotes",
    "SubmitEventUserNotes",
];

impl Default for EventPlan {
    fn default() -> EventPlan {
        EventPlan::new()
    }
}

impl EventPlan {
    pub fn new() -> EventPlan {
        EventPlan {
            logs: Vec::new(),
            procs: Vec::new(),
            cluster_logs: None,
            queue: None,
        }
    }

    pub fn add(&mut self, session: &Session, job: &Job) {
        let own_logs = job
            .ad
            .own_iter()
            .any(|(n, _)| LOG_ATTRS.iter().any(|a| a.eq_ignore_ascii_case(n)));
        let index = match self.cluster_logs {
            Some((cluster, index)) if cluster == job.cluster_id && !own_logs => index,
            _ => {
                let logs = JobLogs::of(session, &job.ad);
                let index = if logs.is_empty() {
                    None
                } else {
                    let notes = text_attr(&job.ad, "SubmitEventNotes");
                    let user_notes = text_attr(&job.ad, "SubmitEventUserNotes");
                    let entry = (logs, notes, user_notes);
                    Some(match self.logs.iter().position(|l| *l == entry) {
                        Some(i) => i as u32,
                        None => {
                            self.logs.push(entry);
                            (self.logs.len() - 1) as u32
                        }
                    })
                };
                if !own_logs {
                    self.cluster_logs = Some((job.cluster_id, index));
                }
                index
            }
        };
        if let Some(index) = index {
            self.procs
                .push((job.cluster_id as i32, job.proc_id as i32, index));
        }
    }

    /// Writes the events; a log that cannot be written is skipped, as the schedd skips it.
    pub fn write(&self, session: &Session) {
        if self.procs.is_empty() {
            return;
        }
        let host = crate::client::schedd_sinful(&session.config);
        let time = chrono::DateTime::from_timestamp(session.now, 0).unwrap_or_default();
        let mut writers: HashMap<PathBuf, Option<EventLogWriter>> = HashMap::new();
        for &(cluster, proc, index) in &self.procs {
            let (logs, notes, user_notes) = &self.logs[index as usize];
            let body = EventBody::Submit(eventlog::Submit {
                submit_host: host.clone(),
                log_notes: notes.clone(),
                user_notes: user_notes.clone(),
                warnings: None,
            });
            let event = Event::new(cluster, proc, body).at(time);
            for (path, format) in logs.taking(event.number()) {
                let writer = writers
                    .entry(path.clone())
                    .or_insert_with(|| EventLogWriter::open(path, *format).ok());
                if let Some(w) = writer {
                    let _ = w.write(&event);
                }
            }
        }
    }
}

fn text_attr(ad: &ClassAd, name: &str) -> Option<String> {
    match literal(ad, name)? {
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

/// What a job factory's submit made: its cluster, how many procs it will make, and its
/// cluster ad (for the cluster submit event).
pub struct QueuedFactory {
    pub cluster: ClusterId,
    pub total_procs: i64,
    pub cluster_ad: ClassAd,
}

/// Queues a job factory (late materialization, HTCondor's `set_Factory`): the cluster ad
/// (made as a non-factory submit makes it, from the first job) with `JobMaterializeLimit`,
/// and the digest, in one transaction; no proc, the daemon makes them. `max_materialize` is
/// what the description asked for (0 or less: no limit). `on_first` sees the first job.
pub fn queue_factory(
    session: &Session,
    file: &SubmitFile,
    digest: &crate::submit::factory::Digest,
    max_materialize: i64,
    remote: bool,
    on_first: &mut dyn FnMut(&Job) -> Result<(), SubmitFailure>,
) -> Result<QueuedFactory, SubmitFailure> {
    let total_procs = file.job_count() as i64;
    let limit = if max_materialize <= 0 {
        i64::from(i32::MAX)
    } else {
        max_materialize
    }
    .min(total_procs)
    .max(1);
    let owner = session.user.clone();
    let user = submitter_name(session);
    let digest = digest.to_json();
    let mut queue = session.open_queue()?;
    queue.transaction(|tx| {
        let id = tx.new_cluster_id()?;
        let Some(job) = file.jobs(id.0 as i64).next() else {
            return Err(SubmitFailure::Text(
                "\nERROR: Failed to queue job.\n".into(),
            ));
        };
        let job = job?;
        on_first(&job)?;
        let mut own = job.ad.clone();
        let Some(mut cluster_ad) = own.unchain() else {
            return Err(SubmitFailure::Text(
                "\nERROR: Failed to queue job.\n".into(),
            ));
        };
        if remote {
            spooled(&mut cluster_ad, session.now);
        }
        cluster_ad.insert("Owner", Expr::lit(owner.as_str()));
        cluster_ad.insert("User", Expr::lit(user.as_str()));
        cluster_ad.insert("JobMaterializeLimit", Expr::lit(limit));
        tx.submit_factory(id, cluster_ad.clone(), total_procs, &digest)?;
        cluster_ad.insert("ClusterId", Expr::lit(id.0 as i64));
        Ok(QueuedFactory {
            cluster: id,
            total_procs,
            cluster_ad,
        })
    })
}

/// The submitter's `User`: `owner@UID_DOMAIN` (the host's full name without one).
fn submitter_name(session: &Session) -> String {
    format!(
        "{}@{}",
        session.user,
        session
            .uid_domain()
            .unwrap_or_else(|| session.full_hostname())
    )
}

/// Writes the cluster submit event (035) of a job factory to its cluster's logs, as the
/// schedd does when the factory's submit commits (`WriteClusterSubmitToUserLog`).
pub fn write_cluster_submit(session: &Session, cluster: ClusterId, cluster_ad: &ClassAd) {
    let logs = JobLogs::of(session, cluster_ad);
    let body = EventBody::ClusterSubmit(eventlog::ClusterSubmit {
        submit_host: crate::client::schedd_sinful(&session.config),
        log_notes: text_attr(cluster_ad, "SubmitEventNotes"),
        user_notes: text_attr(cluster_ad, "SubmitEventUserNotes"),
    });
    logs.write(cluster.0, -1, session.now, body);
}
