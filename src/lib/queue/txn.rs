//! Changing the queue: [`Transaction`], the one way to write, so that every change a tool
//! makes (a whole submit, a hold of a thousand jobs, a job's move to the history) lands
//! completely or not at all.
//!
//! The rules are the schedd's (src/condor_schedd.V6/qmgmt.cpp):
//! - `NewCluster`: cluster ids come from a counter that only grows, never reused.
//! - `NewProcFromAd`: a proc ad keeps only what differs from its cluster ad; `Owner`, `User`,
//!   `ClusterId`, `JobUniverse`, `NTDomain`, `JobSetId`/`JobSetName` belong to the cluster ad,
//!   `ProcId` and `JobStatus` to the proc ad (`aForcedSetAttrs`).
//! - `SetAttribute`: `ClusterId`/`ProcId` cannot change; `Owner`/`User` set on proc 0 go to
//!   the cluster ad and on other procs are ignored; a removed job's `JobStatus` may only
//!   become held or removed again, `LastJobStatus` and `JobStatusOnRelease` are kept.
//! - `DeleteAttribute` on a proc ad masks the cluster's value with `undefined`, as a chained
//!   ClassAd's delete does.
//! - `DestroyProc`: only completed or removed jobs leave the queue, `CompletionDate` is filled
//!   in for completed ones, `LeaveJobInQueue` keeps them, and a cluster goes with its last job.
//! - `AutoCluster::preSetAttribute`: setting an attribute a job's `AutoClusterAttrs` lists drops
//!   its `AutoClusterId` and `AutoClusterAttrs` (the master numbers it again).
//! - `SetSubmitTotalProcs`: a committed submit records `TotalSubmitProcs` in its cluster ad.
//!
//! Beyond the schedd, the store insists that the attributes it indexes hold literals of their
//! kind (`JobStatus`, `QDate`, `EnteredCurrentStatus`: integers; `Owner`: a string; the two
//! times may also be `undefined`), which keeps its columns exact (see `pushdown.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use rusqlite::{params, OptionalExtension};

use crate::classad::ast::Expr;
use crate::classad::intern::intern;
use crate::classad::{ClassAd, Value};

use super::codec::{self, int_literal, str_literal};
use super::error::QueueError;
use super::id::{AdKey, ClusterId, JobId};
use super::query::{self, damaged, sql_err, Job, JobIter, JobQuery};
use super::schema::{self, OWN_ENTERED_CURRENT_STATUS, OWN_QDATE};
use super::status::JobStatus;

type Result<T, E = QueueError> = std::result::Result<T, E>;

/// A job factory's next proc id and next item row, in its cluster ad.
pub const NEXT_PROC_ID: &str = "JobMaterializeNextProcId";
/// Where a factory's digest is: the queue store's path.
pub const DIGEST_FILE: &str = "JobMaterializeDigestFile";
pub const NEXT_ROW: &str = "JobMaterializeNextRow";

/// What [`Transaction::move_to_history`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeftQueue {
    /// The job is in the history and no longer in the queue.
    Moved,
    /// The job's `LeaveJobInQueue` is true: it stays (with its `CompletionDate` set).
    LeftInQueue,
}

/// A cluster submitted in this transaction, or a job factory's cluster getting procs.
struct NewCluster {
    ad: ClassAd,
    next_proc: i32,
    /// Procs made by a job factory: the cluster is not new, the commit adds nothing to it.
    materialized: bool,
}

/// One write transaction on the queue (`BEGIN IMMEDIATE`: it holds the write lock from the
/// start, so two writers never deadlock upgrading a read lock). Made by
/// [`super::Queue::transaction`], which commits it when the closure succeeds and rolls it
/// back otherwise.
pub struct Transaction<'q> {
    tx: rusqlite::Transaction<'q>,
    path: &'q Path,
    now: i64,
    reserved: BTreeSet<ClusterId>,
    new_clusters: BTreeMap<ClusterId, NewCluster>,
    /// The last cluster ad read or written, parsed: edits to many jobs of one cluster parse
    /// it once.
    cluster_cache: Option<(ClusterId, Arc<ClassAd>)>,
    /// The change stamp of this transaction's row updates, taken at the first one.
    stamp: Option<i64>,
    /// The jobs this transaction moved to the history: their spool directories go once it
    /// commits.
    pub(crate) left: Vec<JobId>,
}

impl<'q> Transaction<'q> {
    pub(crate) fn new(tx: rusqlite::Transaction<'q>, path: &'q Path, now: i64) -> Self {
        Transaction {
            tx,
            path,
            now,
            reserved: BTreeSet::new(),
            new_clusters: BTreeMap::new(),
            cluster_cache: None,
            stamp: None,
            left: Vec::new(),
        }
    }

    /// The time of this transaction (seconds since the epoch): every change it makes is
    /// stamped with the same time.
    pub fn now(&self) -> i64 {
        self.now
    }

    fn sql(&self) -> impl Fn(rusqlite::Error) -> QueueError + '_ {
        sql_err(self.path)
    }

    // ---- submitting ----

    /// Reserves the next cluster id (HTCondor's `NewCluster`), for a submit that needs its id
    /// before it can build its ads (`$(Cluster)` in a submit file). A reserved id that no
    /// submit uses is simply never used.
    pub fn new_cluster_id(&mut self) -> Result<ClusterId> {
        let id = schema::take_next_cluster_id(&self.tx).map_err(self.sql())?;
        if id > i32::MAX as i64 {
            // The error rolls the transaction back, and the counter's move with it.
            return Err(QueueError::ClusterIdsExhausted(id));
        }
        let id = ClusterId(id as i32);
        self.reserved.insert(id);
        Ok(id)
    }

    /// Submits a cluster: reserves its id, stores `cluster_ad` once as the cluster ad (with
    /// `ClusterId` set) and each of `procs` as a job with ProcIds 0, 1, ... Each proc ad may be
    /// a full job ad or only what differs from the cluster ad: the store keeps only the
    /// difference. Returns the cluster id.
    pub fn submit(
        &mut self,
        cluster_ad: ClassAd,
        procs: impl IntoIterator<Item = ClassAd>,
    ) -> Result<ClusterId> {
        let id = self.new_cluster_id()?;
        self.submit_cluster(id, cluster_ad, procs)?;
        Ok(id)
    }

    /// As [`Transaction::submit`], for an id from [`Transaction::new_cluster_id`]; returns the
    /// ProcIds given.
    pub fn submit_cluster(
        &mut self,
        id: ClusterId,
        cluster_ad: ClassAd,
        procs: impl IntoIterator<Item = ClassAd>,
    ) -> Result<Range<i32>> {
        let ad = self.insert_cluster(id, &cluster_ad, |_| {})?;
        self.new_clusters.insert(
            id,
            NewCluster {
                ad,
                next_proc: 0,
                materialized: false,
            },
        );
        self.add_procs(id, procs)
    }

    /// Stores the ad of a new cluster with a reserved id: its attributes checked, `ClusterId`
    /// set, and whatever `extra` adds. Returns the ad as stored.
    fn insert_cluster(
        &mut self,
        id: ClusterId,
        cluster_ad: &ClassAd,
        extra: impl FnOnce(&mut ClassAd),
    ) -> Result<ClassAd> {
        if !self.reserved.remove(&id) {
            return Err(QueueError::NotNewCluster(id));
        }
        let key = AdKey::Cluster(id);
        let mut ad = ClassAd::new();
        for (name, expr) in cluster_ad.iter() {
            if name.eq_ignore_ascii_case(codec::PROC_ID)
                || name.eq_ignore_ascii_case(codec::CLUSTER_ID)
            {
                continue;
            }
            check_value(key, name, expr)?;
            ad.insert(name, expr.clone());
        }
        ad.insert_named(intern(codec::CLUSTER_ID), Expr::lit(id.0 as i64));
        extra(&mut ad);
        let text = codec::encode_cluster(&ad).map_err(unstorable(AdKey::Cluster(id)))?;
        self.tx
            .prepare_cached("INSERT INTO clusters (cluster_id, owner, ad) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![id.0, owner_of(&ad), text]))
            .map_err(self.sql())?;
        Ok(ad)
    }

    /// Submits a job factory (late materialization): stores the cluster ad (with
    /// `ClusterId`, `JobMaterializeNextProcId = 0`, `JobMaterializeNextRow = 0`,
    /// `TotalSubmitProcs`, and `JobMaterializeDigestFile` naming the store, which holds the
    /// digest where HTCondor's schedd spools a file) and the factory's digest, and no proc:
    /// the daemon makes them ([`Transaction::materialize`]).
    pub fn submit_factory(
        &mut self,
        id: ClusterId,
        cluster_ad: ClassAd,
        total_procs: i64,
        digest: &str,
    ) -> Result<()> {
        if total_procs <= 0 {
            return Err(QueueError::EmptySubmit(id));
        }
        let digest_file = self.path.display().to_string();
        self.insert_cluster(id, &cluster_ad, |ad| {
            ad.insert(DIGEST_FILE, Expr::lit(digest_file.as_str()));
            ad.insert(NEXT_PROC_ID, Expr::lit(0i64));
            ad.insert(NEXT_ROW, Expr::lit(0i64));
            ad.insert_named(intern(codec::TOTAL_SUBMIT_PROCS), Expr::lit(total_procs));
        })?;
        self.tx
            .prepare_cached(
                "INSERT INTO factories (cluster_id, total_procs, digest) VALUES (?1, ?2, ?3)",
            )
            .and_then(|mut s| s.execute(params![id.0, total_procs, digest]))
            .map_err(self.sql())?;
        Ok(())
    }

    /// Adds the procs a job factory made to its cluster, numbered from `first` (which must be
    /// the cluster's `JobMaterializeNextProcId`: a materialization that lost a race with
    /// another changes nothing), and moves `JobMaterializeNextProcId` past them and
    /// `JobMaterializeNextRow` to `next_row`, in this one transaction: a crash can neither
    /// make a proc twice nor skip one.
    pub fn materialize(
        &mut self,
        id: ClusterId,
        first: i32,
        procs: impl IntoIterator<Item = ClassAd>,
        next_row: i64,
    ) -> Result<Range<i32>> {
        let cluster = self.load_cluster(id)?;
        let at = cluster.lookup(NEXT_PROC_ID).and_then(int_literal);
        if at != Some(i64::from(first)) {
            return Err(QueueError::FactoryMoved {
                cluster: id,
                expected: i64::from(first),
                found: at,
            });
        }
        self.new_clusters.insert(
            id,
            NewCluster {
                ad: (*cluster).clone(),
                next_proc: first,
                materialized: true,
            },
        );
        let made = self.add_procs(id, procs);
        self.new_clusters.remove(&id);
        let made = made?;
        let mut ad = (*cluster).clone();
        ad.insert(NEXT_PROC_ID, Expr::lit(i64::from(made.end)));
        ad.insert(NEXT_ROW, Expr::lit(next_row));
        self.write_cluster(id, ad, &cluster)?;
        Ok(made)
    }

    /// Marks a job factory removed (`condor_rm` of its cluster): it makes no more procs, and
    /// its cluster leaves the queue with its last proc. Returns whether `id` has a factory.
    pub fn remove_factory(&mut self, id: ClusterId) -> Result<bool> {
        let n = self
            .tx
            .prepare_cached("UPDATE factories SET removed = 1 WHERE cluster_id = ?1")
            .and_then(|mut s| s.execute([id.0]))
            .map_err(self.sql())?;
        Ok(n > 0)
    }

    /// The clusters with a job factory (done or not), in id order.
    pub fn factory_ids(&self) -> Result<Vec<ClusterId>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT cluster_id FROM factories ORDER BY cluster_id")
            .map_err(self.sql())?;
        let ids = stmt
            .query_map([], |r| r.get(0).map(ClusterId))
            .and_then(|rows| rows.collect());
        ids.map_err(self.sql())
    }

    /// Whether cluster `id` has a job factory (done or not).
    pub fn has_factory(&self, id: ClusterId) -> Result<bool> {
        super::factory::has_factory(&self.tx, self.path, id)
    }

    /// Deletes a job factory's cluster once it has no procs left (the factory done or
    /// removed). Returns false, changing nothing, while it still has procs.
    pub fn delete_factory_cluster(&mut self, id: ClusterId) -> Result<bool> {
        let left: Option<i64> = self
            .tx
            .prepare_cached("SELECT 1 FROM procs WHERE cluster_id = ?1 LIMIT 1")
            .and_then(|mut s| s.query_row([id.0], |r| r.get(0)).optional())
            .map_err(self.sql())?;
        if left.is_some() {
            return Ok(false);
        }
        self.tx
            .execute("DELETE FROM factories WHERE cluster_id = ?1", [id.0])
            .map_err(self.sql())?;
        self.tx
            .execute("DELETE FROM clusters WHERE cluster_id = ?1", [id.0])
            .map_err(self.sql())?;
        self.cluster_cache = None;
        Ok(true)
    }

    /// Adds more jobs to a cluster submitted in this transaction (a submit file with several
    /// queue statements), numbering on from the last; returns the ProcIds given.
    pub fn add_procs(
        &mut self,
        id: ClusterId,
        procs: impl IntoIterator<Item = ClassAd>,
    ) -> Result<Range<i32>> {
        let Some(cluster) = self.new_clusters.get_mut(&id) else {
            return Err(QueueError::NotNewCluster(id));
        };
        let first = cluster.next_proc;
        let cluster_ad = &cluster.ad;
        let inherited_status = cluster_ad
            .lookup(codec::JOB_STATUS)
            .and_then(int_literal)
            .unwrap_or(JobStatus::Idle.code());
        let mut insert = self
            .tx
            .prepare_cached(
                "INSERT INTO procs (cluster_id, proc_id, job_status, qdate,
                     entered_current_status, own_mask, ad)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .map_err(sql_err(self.path))?;
        let mut own: Vec<(Arc<str>, Expr)> = Vec::new();
        for proc_ad in procs {
            let proc = cluster.next_proc;
            let key = AdKey::Job(JobId { cluster: id, proc });
            let mut status = None;
            for (name, expr) in proc_ad.iter() {
                if name.eq_ignore_ascii_case(codec::PROC_ID) || codec::is_forced_cluster_attr(name)
                {
                    continue;
                }
                if name.eq_ignore_ascii_case(codec::JOB_STATUS) {
                    status = Some(int_literal(expr).ok_or(QueueError::BadAttributeValue {
                        key,
                        attr: codec::JOB_STATUS,
                        expected: "an integer",
                    })?);
                    continue;
                }
                if let Some(c) = cluster_ad.lookup(name) {
                    if codec::same_expr(c, expr) {
                        continue;
                    }
                }
                check_value(key, name, expr)?;
                own.push((intern(name), expr.clone()));
            }
            let own_ad = ClassAd::from_attrs(std::mem::take(&mut own));
            let times = Times::of(&own_ad, cluster_ad);
            let text = codec::encode_proc(&own_ad).map_err(unstorable(key))?;
            insert
                .execute(params![
                    id.0,
                    proc,
                    status.unwrap_or(inherited_status),
                    times.qdate,
                    times.entered_current_status,
                    times.own_mask,
                    text,
                ])
                .map_err(sql_err(self.path))?;
            cluster.next_proc = proc.checked_add(1).ok_or(QueueError::ClusterFull(id))?;
        }
        Ok(first..cluster.next_proc)
    }

    /// What a commit adds to each new cluster: refuses empty submits, records
    /// `TotalSubmitProcs`.
    fn finish_submits(&mut self) -> Result<()> {
        for (id, cluster) in std::mem::take(&mut self.new_clusters) {
            if cluster.materialized {
                continue;
            }
            if cluster.next_proc == 0 {
                return Err(QueueError::EmptySubmit(id));
            }
            let mut ad = cluster.ad;
            ad.insert_named(
                intern(codec::TOTAL_SUBMIT_PROCS),
                Expr::lit(cluster.next_proc as i64),
            );
            // A new cluster: its rows are new by their ids, no stamp needed.
            let text = codec::encode_cluster(&ad).map_err(unstorable(AdKey::Cluster(id)))?;
            self.tx
                .execute(
                    "UPDATE clusters SET ad = ?1 WHERE cluster_id = ?2",
                    params![text, id.0],
                )
                .map_err(self.sql())?;
        }
        Ok(())
    }

    /// Commits; the jobs that left the queue, whose spool directories are to go.
    pub(crate) fn commit(mut self) -> Result<Vec<JobId>> {
        self.finish_submits()?;
        let left = std::mem::take(&mut self.left);
        self.tx.commit().map_err(sql_err(self.path))?;
        Ok(left)
    }

    // ---- reading (sees this transaction's own changes) ----

    /// One job, if it is in the queue.
    /// How many jobs the queue holds (the schedd's count behind `MAX_JOBS_SUBMITTED`).
    pub fn job_count(&self) -> Result<i64> {
        self.tx
            .prepare_cached("SELECT COUNT(*) FROM procs")
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(self.sql())
    }

    /// How many jobs of `owner` the queue holds (behind `MAX_JOBS_PER_OWNER`).
    pub fn owner_job_count(&self, owner: &str) -> Result<i64> {
        self.tx
            .prepare_cached(
                "SELECT COUNT(*) FROM clusters c JOIN procs p ON p.cluster_id = c.cluster_id
                 WHERE c.owner = ?1",
            )
            .and_then(|mut s| s.query_row([owner], |r| r.get(0)))
            .map_err(self.sql())
    }

    pub fn job(&self, id: JobId) -> Result<Option<Job>> {
        query::job(&self.tx, self.path, id)
    }

    /// A job's `JobStatus` (read without parsing its ad), if it is in the queue.
    pub fn job_status(&self, id: JobId) -> Result<Option<i64>> {
        self.tx
            .prepare_cached("SELECT job_status FROM procs WHERE cluster_id = ?1 AND proc_id = ?2")
            .and_then(|mut s| {
                s.query_row([id.cluster.0, id.proc], |r| r.get(0))
                    .optional()
            })
            .map_err(self.sql())
    }

    /// The jobs a query selects, in job-id order. Collect what you need before changing
    /// anything: the stream borrows the transaction.
    pub fn jobs(&self, q: &JobQuery) -> Result<JobIter<'_>> {
        JobIter::new(&self.tx, self.path, q)
    }

    /// The ids of the jobs a query selects.
    pub fn job_ids(&self, q: &JobQuery) -> Result<Vec<JobId>> {
        self.jobs(q)?.map(|j| j.map(|j| j.id())).collect()
    }

    /// A cluster ad, if the cluster is in the queue.
    pub fn cluster_ad(&mut self, id: ClusterId) -> Result<Option<ClassAd>> {
        match self.load_cluster(id) {
            Ok(ad) => Ok(Some((*ad).clone())),
            Err(QueueError::ClusterNotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    // ---- editing ----

    /// Sets an attribute of a cluster ad or a proc ad to an expression (`condor_qedit`; the
    /// schedd's `SetAttribute`). Setting `JobStatus` applies the schedd's status rules but
    /// leaves `EnteredCurrentStatus` alone, as the schedd does; [`Transaction::set_status`]
    /// sets both.
    pub fn set_attr(&mut self, key: impl Into<AdKey>, name: &str, value: Expr) -> Result<()> {
        let key = key.into();
        check_name(key, name)?;
        match key {
            AdKey::Cluster(id) => {
                if name.eq_ignore_ascii_case(codec::CLUSTER_ID) {
                    return same_id(key, codec::CLUSTER_ID, &value, id.0);
                }
                if name.eq_ignore_ascii_case(codec::PROC_ID) {
                    return Err(QueueError::ProtectedAttribute {
                        key,
                        attr: codec::PROC_ID,
                    });
                }
                check_value(key, name, &value)?;
                let old = self.load_cluster(id)?;
                let mut ad = (*old).clone();
                ad.insert(name, value);
                self.write_cluster(id, ad, &old)
            }
            AdKey::Job(job) => {
                if name.eq_ignore_ascii_case(codec::PROC_ID) {
                    return same_id(key, codec::PROC_ID, &value, job.proc);
                }
                if name.eq_ignore_ascii_case(codec::CLUSTER_ID) {
                    self.load_proc(job)?;
                    return same_id(key, codec::CLUSTER_ID, &value, job.cluster.0);
                }
                if is_owner_attr(name) {
                    self.load_proc(job)?;
                    return if job.proc == 0 {
                        self.set_attr(job.cluster, name, value)
                    } else {
                        Ok(())
                    };
                }
                if name.eq_ignore_ascii_case(codec::JOB_STATUS) {
                    let new = int_literal(&value).ok_or(QueueError::BadAttributeValue {
                        key,
                        attr: codec::JOB_STATUS,
                        expected: "an integer",
                    })?;
                    let (mut own, cluster) = self.load_proc(job)?;
                    apply_status(job, &mut own, &cluster, new)?;
                    return self.write_proc(job, &own, &cluster);
                }
                check_value(key, name, &value)?;
                let (mut own, cluster) = self.load_proc(job)?;
                leave_autocluster(&mut own, &cluster, name);
                own.insert(name, value);
                self.write_proc(job, &own, &cluster)
            }
        }
    }

    /// Changes one job in one read and one write: sets and deletes attributes (as
    /// [`Transaction::set_attr`] and [`Transaction::delete_attr`] would, one after the other),
    /// then sets its status (as [`Transaction::set_status`]). Returns false, changing nothing,
    /// when the job is not in the queue. This is how a daemon records a job's run.
    pub fn update_job(
        &mut self,
        job: JobId,
        set: &[(String, Expr)],
        delete: &[String],
        status: Option<JobStatus>,
    ) -> Result<bool> {
        let key = AdKey::Job(job);
        let (mut own, cluster) = match self.load_proc(job) {
            Ok(found) => found,
            Err(QueueError::JobNotFound(_)) => return Ok(false),
            Err(e) => return Err(e),
        };
        let special = |name: &str| {
            is_owner_attr(name)
                || [codec::PROC_ID, codec::CLUSTER_ID, codec::JOB_STATUS]
                    .iter()
                    .any(|a| name.eq_ignore_ascii_case(a))
        };
        let mut later: Vec<(&String, &Expr)> = Vec::new();
        for (name, value) in set {
            check_name(key, name)?;
            if special(name) {
                later.push((name, value));
                continue;
            }
            check_value(key, name, value)?;
            leave_autocluster(&mut own, &cluster, name);
            own.insert(name, value.clone());
        }
        let mut later_deletes: Vec<&String> = Vec::new();
        if !delete.is_empty() {
            let mut chained = own;
            chained.chain_to((*cluster).clone());
            for name in delete {
                if special(name) {
                    later_deletes.push(name);
                } else {
                    chained.remove(name);
                }
            }
            chained.unchain();
            own = chained;
        }
        if let Some(status) = status {
            apply_status(job, &mut own, &cluster, status.code())?;
            own.insert_named(intern(codec::ENTERED_CURRENT_STATUS), Expr::lit(self.now));
        }
        self.write_proc(job, &own, &cluster)?;
        for (name, value) in later {
            self.set_attr(job, name, value.clone())?;
        }
        for name in later_deletes {
            self.delete_attr(job, name)?;
        }
        Ok(true)
    }

    /// Deletes an attribute from a cluster ad or a proc ad; returns whether the ad had it.
    /// Deleting from a proc ad what its cluster ad also has sets it to `undefined` in the proc
    /// ad, as HTCondor's chained ads do.
    pub fn delete_attr(&mut self, key: impl Into<AdKey>, name: &str) -> Result<bool> {
        let key = key.into();
        match key {
            AdKey::Cluster(id) => {
                if name.eq_ignore_ascii_case(codec::CLUSTER_ID) {
                    return Err(QueueError::ProtectedAttribute {
                        key,
                        attr: codec::CLUSTER_ID,
                    });
                }
                let old = self.load_cluster(id)?;
                let mut ad = (*old).clone();
                if !ad.remove(name) {
                    return Ok(false);
                }
                self.write_cluster(id, ad, &old)?;
                Ok(true)
            }
            AdKey::Job(job) => {
                for attr in [codec::PROC_ID, codec::CLUSTER_ID, codec::JOB_STATUS] {
                    if name.eq_ignore_ascii_case(attr) {
                        return Err(QueueError::ProtectedAttribute { key, attr });
                    }
                }
                if is_owner_attr(name) {
                    self.load_proc(job)?;
                    return if job.proc == 0 {
                        self.delete_attr(job.cluster, name)
                    } else {
                        Ok(false)
                    };
                }
                let (own, cluster) = self.load_proc(job)?;
                let mut chained = own;
                chained.chain_to((*cluster).clone());
                if !chained.remove(name) {
                    return Ok(false);
                }
                chained.unchain();
                self.write_proc(job, &chained, &cluster)?;
                Ok(true)
            }
        }
    }

    /// Changes a job's status as the schedd does when it holds, releases, removes, runs or
    /// completes a job: the `JobStatus` rules of [`Transaction::set_attr`], and
    /// `EnteredCurrentStatus` set to now.
    pub fn set_status(&mut self, job: JobId, status: JobStatus) -> Result<()> {
        let (mut own, cluster) = self.load_proc(job)?;
        apply_status(job, &mut own, &cluster, status.code())?;
        own.insert_named(intern(codec::ENTERED_CURRENT_STATUS), Expr::lit(self.now));
        self.write_proc(job, &own, &cluster)
    }

    /// Moves a completed or removed job to the history (the schedd's `DestroyProc`): sets
    /// `CompletionDate` of a completed job that has none, keeps the job if its
    /// `LeaveJobInQueue` is true, and otherwise writes its whole ad to the history, deletes it
    /// from the queue, and deletes its cluster with its last job.
    pub fn move_to_history(&mut self, job: JobId) -> Result<LeftQueue> {
        let (own, cluster) = self.load_proc(job)?;
        self.retire(job, own, cluster, false)
    }

    /// [`Transaction::update_job`] then [`Transaction::move_to_history`] in one read of the
    /// job (how a daemon records a job's end). Returns `None`, changing nothing, when the job
    /// is not in the queue.
    pub fn finish_job(
        &mut self,
        job: JobId,
        set: &[(String, Expr)],
        delete: &[String],
        status: Option<JobStatus>,
    ) -> Result<Option<LeftQueue>> {
        let simple = |name: &str| {
            !is_owner_attr(name)
                && ![codec::PROC_ID, codec::CLUSTER_ID, codec::JOB_STATUS]
                    .iter()
                    .any(|a| name.eq_ignore_ascii_case(a))
        };
        if !set.iter().all(|(n, _)| simple(n)) || !delete.iter().all(|n| simple(n)) {
            if !self.update_job(job, set, delete, status)? {
                return Ok(None);
            }
            return self.move_to_history(job).map(Some);
        }
        let key = AdKey::Job(job);
        let (mut own, cluster) = match self.load_proc(job) {
            Ok(found) => found,
            Err(QueueError::JobNotFound(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        for (name, value) in set {
            check_name(key, name)?;
            check_value(key, name, value)?;
            own.insert(name, value.clone());
        }
        if !delete.is_empty() {
            let mut chained = own;
            chained.chain_to((*cluster).clone());
            for name in delete {
                chained.remove(name);
            }
            chained.unchain();
            own = chained;
        }
        if let Some(status) = status {
            apply_status(job, &mut own, &cluster, status.code())?;
            own.insert_named(intern(codec::ENTERED_CURRENT_STATUS), Expr::lit(self.now));
        }
        self.retire(job, own, cluster, true).map(Some)
    }

    /// Moves a loaded job to the history; `dirty` says its proc ad changed since it was read
    /// (and must be written if the job stays in the queue).
    fn retire(
        &mut self,
        job: JobId,
        mut own: ClassAd,
        cluster: Arc<ClassAd>,
        mut dirty: bool,
    ) -> Result<LeftQueue> {
        let status = own
            .lookup(codec::JOB_STATUS)
            .and_then(int_literal)
            .unwrap_or(0);
        let mut ad = own.clone();
        ad.chain_to((*cluster).clone());
        if status == JobStatus::Completed.code() {
            let completion = ad.eval_attr(codec::COMPLETION_DATE).as_number_int();
            if completion.unwrap_or(0) == 0 {
                own.insert_named(intern(codec::COMPLETION_DATE), Expr::lit(self.now));
                ad.insert_named(intern(codec::COMPLETION_DATE), Expr::lit(self.now));
                dirty = true;
            }
        } else if status != JobStatus::Removed.code() {
            if dirty {
                self.write_proc(job, &own, &cluster)?;
            }
            return Err(QueueError::NotFinished { job, status });
        }
        if ad.eval_attr(codec::LEAVE_JOB_IN_QUEUE).as_bool_equiv() == Some(true) {
            if dirty {
                self.write_proc(job, &own, &cluster)?;
            }
            return Ok(LeftQueue::LeftInQueue);
        }
        let flat = ClassAd::from_attrs(ad.iter().map(|(n, e)| (intern(n), e.clone())).collect());
        let int_of = |name: &str| flat.lookup(name).and_then(int_literal);
        let text = codec::encode_flat(&flat).map_err(unstorable(AdKey::Job(job)))?;
        self.tx
            .prepare_cached(
                "INSERT INTO history (cluster_id, proc_id, owner, job_status, qdate,
                     entered_current_status, completion_date, ad)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    job.cluster.0,
                    job.proc,
                    owner_of(&flat),
                    status,
                    int_of(codec::QDATE),
                    int_of(codec::ENTERED_CURRENT_STATUS),
                    int_of(codec::COMPLETION_DATE),
                    text,
                ])
            })
            .map_err(self.sql())?;
        self.delete_proc_row(job)?;
        Ok(LeftQueue::Moved)
    }

    /// The owner of a cluster as its column holds it (read without parsing the ad).
    pub fn cluster_owner(&self, id: ClusterId) -> Result<Option<String>> {
        self.tx
            .prepare_cached("SELECT owner FROM clusters WHERE cluster_id = ?1")
            .and_then(|mut s| {
                s.query_row([id.0], |r| r.get::<_, Option<String>>(0))
                    .optional()
            })
            .map(Option::flatten)
            .map_err(self.sql())
    }

    /// Removes a job whose stored ad (or its cluster's) no longer reads back, without reading
    /// it: its history record holds what the columns still tell (ids, owner, `QDate`), with
    /// `JobStatus` 3 (removed), and a `RemoveReason` that says why. Returns whether the job
    /// was there.
    pub fn purge_damaged(&mut self, job: JobId, reason: &str) -> Result<bool> {
        let qdate: Option<Option<i64>> = self
            .tx
            .prepare_cached("SELECT qdate FROM procs WHERE cluster_id = ?1 AND proc_id = ?2")
            .and_then(|mut s| {
                s.query_row([job.cluster.0, job.proc], |r| r.get(0))
                    .optional()
            })
            .map_err(self.sql())?;
        let Some(qdate) = qdate else {
            return Ok(false);
        };
        let owner = self.cluster_owner(job.cluster)?;
        let mut ad = ClassAd::new();
        ad.insert(codec::CLUSTER_ID, Expr::lit(job.cluster.0 as i64));
        ad.insert(codec::PROC_ID, Expr::lit(job.proc as i64));
        if let Some(owner) = &owner {
            ad.insert(codec::OWNER, Expr::lit(owner.as_str()));
        }
        if let Some(qdate) = qdate {
            ad.insert(codec::QDATE, Expr::lit(qdate));
        }
        ad.insert(codec::JOB_STATUS, Expr::lit(JobStatus::Removed.code()));
        ad.insert(codec::ENTERED_CURRENT_STATUS, Expr::lit(self.now));
        ad.insert("RemoveReason", Expr::lit(reason));
        let text = codec::encode_flat(&ad).map_err(unstorable(AdKey::Job(job)))?;
        self.tx
            .prepare_cached(
                "INSERT INTO history (cluster_id, proc_id, owner, job_status, qdate,
                     entered_current_status, completion_date, ad)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    job.cluster.0,
                    job.proc,
                    owner,
                    JobStatus::Removed.code(),
                    qdate,
                    self.now,
                    text,
                ])
            })
            .map_err(self.sql())?;
        self.delete_proc_row(job)?;
        Ok(true)
    }

    /// Deletes a job's row, and its cluster's once it has no job left (a job factory's
    /// cluster stays until the factory is done: the daemon removes it).
    fn delete_proc_row(&mut self, job: JobId) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM procs WHERE cluster_id = ?1 AND proc_id = ?2")
            .and_then(|mut s| s.execute([job.cluster.0, job.proc]))
            .map_err(self.sql())?;
        self.left.push(job);
        let left: Option<i64> = self
            .tx
            .prepare_cached("SELECT 1 FROM procs WHERE cluster_id = ?1 LIMIT 1")
            .and_then(|mut s| s.query_row([job.cluster.0], |r| r.get(0)).optional())
            .map_err(self.sql())?;
        // A job factory's cluster stays until the factory is done (the daemon removes it).
        if left.is_none() && !super::factory::has_factory(&self.tx, self.path, job.cluster)? {
            self.tx
                .execute(
                    "DELETE FROM clusters WHERE cluster_id = ?1",
                    [job.cluster.0],
                )
                .map_err(self.sql())?;
            self.cluster_cache = None;
        }
        Ok(())
    }

    // ---- rows ----

    /// This transaction's change stamp (schema v2), taken once.
    fn stamp(&mut self) -> Result<i64> {
        if let Some(s) = self.stamp {
            return Ok(s);
        }
        let s = schema::next_change_stamp(&self.tx).map_err(sql_err(self.path))?;
        self.stamp = Some(s);
        Ok(s)
    }

    fn load_cluster(&mut self, id: ClusterId) -> Result<Arc<ClassAd>> {
        if let Some((cached, ad)) = &self.cluster_cache {
            if *cached == id {
                return Ok(ad.clone());
            }
        }
        let text =
            query::cluster_text(&self.tx, self.path, id)?.ok_or(QueueError::ClusterNotFound(id))?;
        let ad = Arc::new(
            codec::decode_cluster(&text, id.0).map_err(|e| damaged(AdKey::Cluster(id), e))?,
        );
        self.cluster_cache = Some((id, ad.clone()));
        Ok(ad)
    }

    /// A proc ad's own attributes (with `ProcId` and `JobStatus`), and its cluster ad.
    fn load_proc(&mut self, job: JobId) -> Result<(ClassAd, Arc<ClassAd>)> {
        let row: Option<(i64, String)> = self
            .tx
            .prepare_cached(
                "SELECT job_status, ad FROM procs WHERE cluster_id = ?1 AND proc_id = ?2",
            )
            .and_then(|mut s| {
                s.query_row([job.cluster.0, job.proc], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(self.sql())?;
        let (status, text) = row.ok_or(QueueError::JobNotFound(job))?;
        let own =
            codec::decode_proc(&text, job.proc, status).map_err(|e| damaged(AdKey::Job(job), e))?;
        let cluster = self.load_cluster(job.cluster)?;
        Ok((own, cluster))
    }

    fn write_proc(&mut self, job: JobId, own: &ClassAd, cluster: &ClassAd) -> Result<()> {
        let status = own.lookup(codec::JOB_STATUS).and_then(int_literal).ok_or(
            QueueError::BadAttributeValue {
                key: AdKey::Job(job),
                attr: codec::JOB_STATUS,
                expected: "an integer",
            },
        )?;
        let times = Times::of(own, cluster);
        let text = codec::encode_proc(own).map_err(unstorable(AdKey::Job(job)))?;
        let stamp = self.stamp()?;
        self.tx
            .prepare_cached(
                "UPDATE procs SET job_status = ?1, qdate = ?2, entered_current_status = ?3,
                     own_mask = ?4, ad = ?5, changed = ?6
                 WHERE cluster_id = ?7 AND proc_id = ?8",
            )
            .and_then(|mut s| {
                s.execute(params![
                    status,
                    times.qdate,
                    times.entered_current_status,
                    times.own_mask,
                    text,
                    stamp,
                    job.cluster.0,
                    job.proc,
                ])
            })
            .map_err(self.sql())?;
        Ok(())
    }

    fn write_cluster(&mut self, id: ClusterId, ad: ClassAd, old: &ClassAd) -> Result<()> {
        let text = codec::encode_cluster(&ad).map_err(unstorable(AdKey::Cluster(id)))?;
        let stamp = self.stamp()?;
        self.tx
            .prepare_cached(
                "UPDATE clusters SET owner = ?1, ad = ?2, changed = ?3 WHERE cluster_id = ?4",
            )
            .and_then(|mut s| s.execute(params![owner_of(&ad), text, stamp, id.0]))
            .map_err(self.sql())?;
        // Procs that inherit a time from the cluster follow it.
        for (attr, column, bit) in [
            (codec::QDATE, "qdate", OWN_QDATE),
            (
                codec::ENTERED_CURRENT_STATUS,
                "entered_current_status",
                OWN_ENTERED_CURRENT_STATUS,
            ),
        ] {
            let new = ad.lookup(attr).and_then(int_literal);
            if new != old.lookup(attr).and_then(int_literal) {
                self.tx
                    .execute(
                        &format!(
                            "UPDATE procs SET {column} = ?1
                             WHERE cluster_id = ?2 AND own_mask & {bit} = 0"
                        ),
                        params![new, id.0],
                    )
                    .map_err(self.sql())?;
            }
        }
        if let Some(new_cluster) = self.new_clusters.get_mut(&id) {
            new_cluster.ad = ad.clone();
        }
        self.cluster_cache = Some((id, Arc::new(ad)));
        Ok(())
    }
}

/// The effective `QDate` and `EnteredCurrentStatus` of a job, and which its proc ad sets.
struct Times {
    qdate: Option<i64>,
    entered_current_status: Option<i64>,
    own_mask: i64,
}

impl Times {
    fn of(own: &ClassAd, cluster: &ClassAd) -> Times {
        let mut own_mask = 0;
        let mut value = |attr: &str, bit: i64| match own.lookup(attr) {
            Some(e) => {
                own_mask |= bit;
                int_literal(e)
            }
            None => cluster.lookup(attr).and_then(int_literal),
        };
        let qdate = value(codec::QDATE, OWN_QDATE);
        let entered_current_status =
            value(codec::ENTERED_CURRENT_STATUS, OWN_ENTERED_CURRENT_STATUS);
        Times {
            qdate,
            entered_current_status,
            own_mask,
        }
    }
}

/// The schedd's `JobStatus` rules for an existing job (qmgmt.cpp `SetAttribute`).
fn apply_status(job: JobId, own: &mut ClassAd, cluster: &ClassAd, new: i64) -> Result<()> {
    const HELD: i64 = JobStatus::Held as i64;
    const REMOVED: i64 = JobStatus::Removed as i64;
    let curr = own
        .lookup(codec::JOB_STATUS)
        .and_then(int_literal)
        .unwrap_or(0);
    let mut chained = own.clone();
    chained.chain_to(cluster.clone());
    let int_attr = |name: &str| chained.eval_attr(name).as_number_int().unwrap_or(0);
    let last = int_attr(codec::LAST_JOB_STATUS);
    let release = int_attr(codec::JOB_STATUS_ON_RELEASE);
    if new != HELD && new != REMOVED && (curr == REMOVED || last == REMOVED || release == REMOVED) {
        return Err(QueueError::RemovedJobStatus { job, to: new });
    }
    if curr == REMOVED && new == HELD && release != REMOVED {
        own.insert_named(intern(codec::JOB_STATUS_ON_RELEASE), Expr::lit(REMOVED));
    }
    if new != curr && curr > 0 {
        own.insert_named(intern(codec::LAST_JOB_STATUS), Expr::lit(curr));
    }
    own.insert_named(intern(codec::JOB_STATUS), Expr::lit(new));
    Ok(())
}

fn is_owner_attr(name: &str) -> bool {
    name.eq_ignore_ascii_case(codec::OWNER) || name.eq_ignore_ascii_case(codec::USER)
}

fn check_name(key: AdKey, name: &str) -> Result<()> {
    if codec::valid_attr_name(name) {
        Ok(())
    } else {
        Err(QueueError::BadAttributeName {
            key,
            name: name.to_owned(),
        })
    }
}

/// Setting an id attribute to its own value is allowed (and changes nothing).
fn same_id(key: AdKey, attr: &'static str, value: &Expr, id: i32) -> Result<()> {
    if int_literal(value) == Some(id as i64) {
        Ok(())
    } else {
        Err(QueueError::ProtectedAttribute { key, attr })
    }
}

/// The kinds of value the indexed attributes may hold.
fn check_value(key: AdKey, name: &str, value: &Expr) -> Result<()> {
    let bad = |attr, expected| {
        Err(QueueError::BadAttributeValue {
            key,
            attr,
            expected,
        })
    };
    if name.eq_ignore_ascii_case(codec::OWNER) {
        if str_literal(value).is_none() {
            return bad(codec::OWNER, "a string");
        }
    } else if name.eq_ignore_ascii_case(codec::JOB_STATUS) {
        if int_literal(value).is_none() {
            return bad(codec::JOB_STATUS, "an integer");
        }
    } else {
        for attr in [codec::QDATE, codec::ENTERED_CURRENT_STATUS] {
            if name.eq_ignore_ascii_case(attr)
                && int_literal(value).is_none()
                && !matches!(value, Expr::Lit(Value::Undefined))
            {
                return bad(attr, "an integer or undefined");
            }
        }
    }
    Ok(())
}

fn owner_of(ad: &ClassAd) -> Option<String> {
    ad.lookup(codec::OWNER)
        .and_then(str_literal)
        .map(|s| s.to_string())
}

/// The error for an ad the store could not read back.
fn unstorable(key: AdKey) -> impl FnOnce(codec::Unstorable) -> QueueError {
    move |u| QueueError::Unstorable {
        key,
        attr: u.attr,
        message: u.message,
    }
}

/// The schedd's `AutoCluster::preSetAttribute`: a job whose autocluster was made from
/// attribute `name` (its `AutoClusterAttrs` lists it) leaves it before `name` changes.
fn leave_autocluster(own: &mut ClassAd, cluster: &ClassAd, name: &str) {
    use crate::schedd::autocluster::{AUTO_CLUSTER_ATTRS, AUTO_CLUSTER_ID};
    let listed = own
        .lookup(AUTO_CLUSTER_ATTRS)
        .or_else(|| cluster.lookup(AUTO_CLUSTER_ATTRS))
        .and_then(str_literal)
        .is_some_and(|list| {
            list.split([',', ' ', '\t'])
                .any(|a| a.eq_ignore_ascii_case(name))
        });
    if listed {
        own.remove(AUTO_CLUSTER_ID);
        own.remove(AUTO_CLUSTER_ATTRS);
    }
}
