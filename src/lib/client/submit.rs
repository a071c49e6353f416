//! Queueing the jobs of parsed submit descriptions as the schedd takes them from
//! condor_submit (or DAGMan's direct submit): one queue transaction for all of them, the
//! schedd's own attributes (`Owner`, `User`, a spooled job's stage-in), and the submit event
//! (000) of every proc in its job event logs once the transaction has committed.

use std::path::PathBuf;

use super::userlog::{JobLogs, LogBatch};
use super::Session;
use crate::classad::{ClassAd, Expr, Value};
use crate::eventlog::{self, EventBody};
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
    /// The store's error, as the master serving the submit reported it.
    Remote(String),
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
            SubmitFailure::Remote(e) => {
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
    if session.backend() == super::schedd::Backend::Master {
        return super::schedd::submit(session, files, remote, on_job);
    }
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
    let mut events = EventPlan::new();
    let mut at = 0;
    let mut made: Vec<Clusters> = Vec::new();
    let result = queue.transaction(|tx| {
        made.clear();
        let mut schedd = ScheddSubmit::begin(tx, session, remote)?;
        for (i, file) in files.iter().enumerate() {
            at = i;
            let first = schedd.new_file(tx)?;
            for job in file.jobs(first.0 as i64) {
                let job = job?;
                schedd.check_limits(tx)?;
                on_job(i, &job)?;
                events.add(session, &job);
                schedd.store(tx, StagedJob::of(&job)?)?;
            }
            made.push(std::mem::take(&mut schedd.clusters));
        }
        Ok(())
    });
    match result {
        Ok(()) => Ok((made, events)),
        Err(e) => Err((at, e)),
    }
}

/// One job as condor_submit made it, for the schedd to store: its own attributes, and its
/// cluster's when it is the first of a cluster.
#[derive(Clone, Debug)]
pub struct StagedJob {
    pub cluster_id: i64,
    pub proc_id: i64,
    pub own: ClassAd,
    /// The cluster ad, given with the cluster's first job only.
    pub cluster_ad: Option<ClassAd>,
}

impl StagedJob {
    pub fn of(job: &Job) -> Result<StagedJob, SubmitFailure> {
        let mut own = job.ad.clone();
        let Some(cluster_ad) = own.unchain() else {
            return Err(SubmitFailure::Text(
                "\nERROR: Failed to queue job.\n".into(),
            ));
        };
        Ok(StagedJob {
            cluster_id: job.cluster_id,
            proc_id: job.proc_id,
            own,
            cluster_ad: job.new_cluster.then_some(cluster_ad),
        })
    }
}

/// The schedd's side of a submit, job by job, in the submit's transaction: the bounds on how
/// many jobs may be queued, and what it adds to each job as it stores it (`Owner`, `User`,
/// `GlobalJobId`, a spooled job's stage-in). Both the direct path and the master serving a
/// system pool's tools store jobs through it.
pub struct ScheddSubmit {
    owner: String,
    user: String,
    global_id: GlobalJobId,
    limits: JobLimits,
    remote: bool,
    now: i64,
    spool: PathBuf,
    /// The jobs in the queue when the submit began, the owner's among them (counted when
    /// first needed), and how many this submit added.
    existing: i64,
    owned: Option<i64>,
    added: i64,
    /// The id the description's first cluster takes, until it does.
    next_id: Option<ClusterId>,
    current: Option<(ClusterId, ClassAd)>,
    /// The clusters made since the last [`ScheddSubmit::new_file`].
    pub clusters: Clusters,
}

impl ScheddSubmit {
    pub fn begin(
        tx: &mut crate::queue::Transaction<'_>,
        session: &Session,
        remote: bool,
    ) -> Result<ScheddSubmit, SubmitFailure> {
        Ok(ScheddSubmit {
            owner: session.user.clone(),
            user: submitter_name(session),
            global_id: GlobalJobId::of(session),
            limits: JobLimits::of(session),
            remote,
            now: session.now,
            spool: session.spool().to_owned(),
            existing: tx.job_count()?,
            owned: None,
            added: 0,
            next_id: None,
            current: None,
            clusters: Vec::new(),
        })
    }

    /// A description begins: the id its first cluster takes.
    pub fn new_file(
        &mut self,
        tx: &mut crate::queue::Transaction<'_>,
    ) -> Result<ClusterId, SubmitFailure> {
        let id = tx.new_cluster_id()?;
        self.next_id = Some(id);
        self.clusters.clear();
        Ok(id)
    }

    /// How many more jobs this submit may add, and the bound that stops the next one
    /// (what [`ScheddSubmit::check_limits`] would say after that many).
    pub fn allowance(
        &mut self,
        tx: &crate::queue::Transaction<'_>,
    ) -> Result<(i64, &'static str), SubmitFailure> {
        let owned = self.owned(tx)?;
        let l = &self.limits;
        let until = [
            l.submitted - self.existing,
            (l.per_owner - self.existing).max(l.per_owner - owned),
            l.per_submission,
        ]
        .into_iter()
        .min()
        .unwrap_or(0)
        .max(self.added);
        let knob = l
            .exceeded(self.existing, until, || Ok(owned))?
            .unwrap_or("MAX_JOBS_PER_SUBMISSION");
        Ok((until - self.added, knob))
    }

    fn owned(&mut self, tx: &crate::queue::Transaction<'_>) -> Result<i64, QueueError> {
        Ok(*match &mut self.owned {
            Some(n) => n,
            slot => slot.insert(tx.owner_job_count(&self.owner)?),
        })
    }

    /// Whether one more job may be added (condor_submit's words when not); counts it.
    pub fn check_limits(
        &mut self,
        tx: &crate::queue::Transaction<'_>,
    ) -> Result<(), SubmitFailure> {
        let (existing, added) = (self.existing, self.added);
        let mut owned = self.owned;
        let exceeded = self.limits.exceeded(existing, added, || {
            // Counted only when it could matter: the owner's jobs are among all.
            Ok(*match &mut owned {
                Some(n) => n,
                slot => slot.insert(tx.owner_job_count(&self.owner)?),
            })
        })?;
        self.owned = owned;
        if let Some(knob) = exceeded {
            return Err(limit_failure(knob));
        }
        self.added += 1;
        Ok(())
    }

    /// Stores one job (checked by [`ScheddSubmit::check_limits`]).
    pub fn store(
        &mut self,
        tx: &mut crate::queue::Transaction<'_>,
        job: StagedJob,
    ) -> Result<(), SubmitFailure> {
        let StagedJob {
            cluster_id,
            proc_id,
            mut own,
            cluster_ad,
        } = job;
        // A job of another cluster than the current one must start a cluster.
        let current = self
            .current
            .as_ref()
            .filter(|(id, _)| i64::from(id.0) == cluster_id);
        let failed = || SubmitFailure::Text("\nERROR: Failed to queue job.\n".into());
        if cluster_ad.is_none() && current.is_none() {
            return Err(failed());
        }
        own.insert(
            "GlobalJobId",
            Expr::lit(self.global_id.of_job(cluster_id, proc_id).as_str()),
        );
        // Who owns the job is the schedd's to say, for the cluster: a proc's own claim (which
        // condor_submit never makes, but a request sent to the master could) is dropped.
        own.remove("Owner");
        own.remove("User");
        let mut cluster_ad = cluster_ad;
        if self.remote {
            // The schedd's stage-in, done at once (see condor_submit's docs).
            spooled(&mut own, self.now);
            let id = JobId {
                cluster: ClusterId(cluster_id as i32),
                proc: proc_id as i32,
            };
            let dir = job_spool_dir(&self.spool, id);
            match (&mut cluster_ad, current) {
                (Some(ad), _) => {
                    rewrite_spooled(&mut own, ad, &dir);
                    spooled(ad, self.now);
                }
                (None, Some((_, ad))) => rewrite_spooled(&mut own, ad, &dir),
                (None, None) => return Err(failed()),
            }
        }
        match cluster_ad {
            Some(mut cluster_ad) => {
                let id = match self.next_id.take() {
                    Some(id) => id,
                    None => tx.new_cluster_id()?,
                };
                if i64::from(id.0) != cluster_id || proc_id != 0 {
                    return Err(SubmitFailure::Text(
                        "\nERROR: Failed to create cluster\n".into(),
                    ));
                }
                // The schedd's part: who owns the cluster.
                cluster_ad.insert("Owner", Expr::lit(self.owner.as_str()));
                cluster_ad.insert("User", Expr::lit(self.user.as_str()));
                // Kept for the stage-in of the cluster's other procs only.
                let kept = if self.remote {
                    cluster_ad.clone()
                } else {
                    ClassAd::new()
                };
                tx.submit_cluster(id, cluster_ad, std::iter::once(own))?;
                self.current = Some((id, kept));
                self.clusters.push((id, 1));
            }
            None => {
                let id = ClusterId(cluster_id as i32);
                // Procs come in order, as the store numbers them.
                let next = self.clusters.last().map_or(0, |(_, n)| i64::from(*n));
                if proc_id != next {
                    return Err(failed());
                }
                tx.add_procs(id, std::iter::once(own))?;
                if let Some(last) = self.clusters.last_mut() {
                    last.1 += 1;
                }
            }
        }
        Ok(())
    }
}

/// condor_submit's words for a submit past one of the schedd's bounds.
pub fn limit_failure(knob: &str) -> SubmitFailure {
    SubmitFailure::Text(format!(
        "\nERROR: Failed to create proc\nNumber of submitted jobs would exceed {knob}\n"
    ))
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

    /// Which bound, if any, stops one more job, with `added` already added by this submit to
    /// a queue that held `existing` jobs, `owned()` of them the submitter's (asked only when
    /// `existing` does not settle it).
    fn exceeded(
        &self,
        existing: i64,
        added: i64,
        owned: impl FnOnce() -> Result<i64, QueueError>,
    ) -> Result<Option<&'static str>, QueueError> {
        Ok(Some(if existing + added >= self.submitted {
            "MAX_JOBS_SUBMITTED"
        } else if existing + added >= self.per_owner && owned()? + added >= self.per_owner {
            "MAX_JOBS_PER_OWNER"
        } else if added >= self.per_submission {
            "MAX_JOBS_PER_SUBMISSION"
        } else {
            return Ok(None);
        }))
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
        let mut batch = LogBatch::default();
        for &(cluster, proc, index) in &self.procs {
            let (logs, notes, user_notes) = &self.logs[index as usize];
            let body = EventBody::Submit(eventlog::Submit {
                submit_host: host.clone(),
                log_notes: notes.clone(),
                user_notes: user_notes.clone(),
                warnings: None,
            });
            batch.push(logs, cluster, proc, session.now, body);
        }
        batch.write();
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
    let digest = digest.to_json();
    if session.backend() == super::schedd::Backend::Master {
        let factory = super::schedd::FactoryHeader {
            total_procs,
            max_materialize,
            digest,
        };
        return super::schedd::submit_factory(session, file, remote, factory, on_first);
    }
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
        let first = StagedJob::of(&job)?;
        store_factory(
            tx,
            session,
            id,
            first,
            total_procs,
            max_materialize,
            &digest,
            remote,
        )
    })
}

/// The schedd's side of a job factory's submit: its cluster ad (from its first job, with who
/// owns it and `JobMaterializeLimit`) and digest, stored under the id `id` the submit took.
#[allow(clippy::too_many_arguments)]
pub fn store_factory(
    tx: &mut crate::queue::Transaction<'_>,
    session: &Session,
    id: ClusterId,
    first: StagedJob,
    total_procs: i64,
    max_materialize: i64,
    digest: &str,
    remote: bool,
) -> Result<QueuedFactory, SubmitFailure> {
    let limit = if max_materialize <= 0 {
        i64::from(i32::MAX)
    } else {
        max_materialize
    }
    .min(total_procs)
    .max(1);
    let (Some(mut cluster_ad), true) = (first.cluster_ad, first.cluster_id == i64::from(id.0))
    else {
        return Err(SubmitFailure::Text(
            "\nERROR: Failed to queue job.\n".into(),
        ));
    };
    if remote {
        spooled(&mut cluster_ad, session.now);
    }
    cluster_ad.insert("Owner", Expr::lit(session.user.as_str()));
    cluster_ad.insert("User", Expr::lit(submitter_name(session).as_str()));
    cluster_ad.insert("JobMaterializeLimit", Expr::lit(limit));
    tx.submit_factory(id, cluster_ad.clone(), total_procs, digest)?;
    cluster_ad.insert("ClusterId", Expr::lit(id.0 as i64));
    Ok(QueuedFactory {
        cluster: id,
        total_procs,
        cluster_ad,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;

    /// What a request sent to the master might claim: the schedd still says who owns the
    /// jobs, and takes procs only in order, of the cluster being made.
    #[test]
    fn the_schedd_decides_the_owner_and_the_ids() {
        let dir = tempfile::tempdir().unwrap();
        let config = crate::config::Config::for_test("", "SCHEDD", None, dir.path());
        let session = Session::new(config, "bob".into(), 1000).unwrap();
        let mut queue = session.open_queue().unwrap();
        let job = |proc: i64, own: &str, cluster: Option<&str>| StagedJob {
            cluster_id: 1,
            proc_id: proc,
            own: parse_ad(own).unwrap(),
            cluster_ad: cluster.map(|c| parse_ad(c).unwrap()),
        };
        let stored = queue.transaction(|tx| -> Result<(), SubmitFailure> {
            let mut schedd = ScheddSubmit::begin(tx, &session, false)?;
            assert_eq!(schedd.new_file(tx)?, ClusterId(1));
            schedd.store(
                tx,
                job(
                    0,
                    r#"[ Owner = "root" ]"#,
                    Some(r#"[ Owner = "root"; Cmd = "/x" ]"#),
                ),
            )?;
            schedd.store(tx, job(1, r#"[ User = "root@h"; Owner = "root" ]"#, None))?;
            // Out of order, or of no cluster being made: refused.
            assert!(schedd.store(tx, job(5, "[ A = 1 ]", None)).is_err());
            let mut other = job(0, "[ A = 1 ]", None);
            other.cluster_id = 9;
            assert!(schedd.store(tx, other).is_err());
            Ok(())
        });
        assert!(stored.is_ok());
        for proc in [0, 1] {
            let ad = queue
                .job(JobId::new(1, proc))
                .unwrap()
                .unwrap()
                .into_ad()
                .unwrap();
            assert_eq!(lookup(&ad, "Owner"), "bob");
            assert!(lookup(&ad, "User").starts_with("bob@"));
        }
    }

    fn lookup(ad: &ClassAd, name: &str) -> String {
        match literal(ad, name) {
            Some(Value::Str(s)) => s.to_string(),
            other => format!("{other:?}"),
        }
    }
}
