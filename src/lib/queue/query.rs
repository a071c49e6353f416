//! Reading the queue and the history: which jobs a query selects ([`JobQuery`],
//! [`HistoryQuery`]), and the streams of jobs it yields ([`JobIter`], [`HistoryIter`]).
//!
//! Streams read in pages (keyset pagination on the job id, or on the history's order), so
//! memory stays flat however many jobs match; all pages of one stream come from one read
//! snapshot, so a concurrent writer never makes a job appear twice or a count disagree with
//! itself. Ads are parsed lazily: a job's proc ad when [`Job::ad`] is first called (or when a
//! constraint needs it), its cluster ad once per cluster, shared by every job of that cluster.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use rusqlite::types::Value as SqlValue;
use rusqlite::{params_from_iter, Connection, OptionalExtension};

use crate::classad::{eval_expr, ClassAd, Expr, ParseError};

use super::codec;
use super::error::QueueError;
use super::id::{AdKey, ClusterId, JobId, JobIdSpec};
use super::pushdown::{self, SqlCond, Table};
use super::status::JobStatus;

/// Rows read per page of a stream.
const PAGE: usize = 1024;

/// Which jobs to read: those any of `ids` names (all jobs when there are none), and for which
/// the constraint, if any, evaluates to true with the job's ad as MY (as HTCondor's
/// `EvalExprBool`: booleans, or numbers other than 0).
///
/// HTCondor's tools combine their arguments differently (`condor_q` ORs job ids and owners
/// and ANDs `-constraint`); a tool that needs another combination writes it as a constraint.
#[derive(Clone, Debug, Default)]
pub struct JobQuery {
    ids: Vec<JobIdSpec>,
    constraint: Option<Expr>,
}

impl JobQuery {
    /// Every job.
    pub fn all() -> JobQuery {
        JobQuery::default()
    }

    /// The jobs these ids name (a job is selected when any id names it).
    pub fn ids(ids: impl IntoIterator<Item = JobIdSpec>) -> JobQuery {
        JobQuery::all().with_ids(ids)
    }

    /// Adds ids (ORed with those already given).
    pub fn with_ids(mut self, ids: impl IntoIterator<Item = JobIdSpec>) -> JobQuery {
        self.ids.extend(ids);
        self
    }

    /// Adds a constraint, ANDed with any given before.
    pub fn with_constraint(mut self, constraint: Expr) -> JobQuery {
        self.constraint = Some(match self.constraint.take() {
            None => constraint,
            Some(prev) => and(prev, constraint),
        });
        self
    }

    pub fn id_specs(&self) -> &[JobIdSpec] {
        &self.ids
    }

    pub fn constraint(&self) -> Option<&Expr> {
        self.constraint.as_ref()
    }

    /// The SQL condition: the ids, exactly, and what of the constraint translates.
    fn filter(&self, table: Table) -> SqlCond {
        let ids = ids_condition(&self.ids, table);
        let pushed = self
            .constraint
            .as_ref()
            .and_then(|c| pushdown::translate(c, table));
        match (ids, pushed) {
            (Some(a), Some(b)) => a.and(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => SqlCond::new("1", vec![]),
        }
    }
}

/// `(a) && (b)`, as the parser would read it.
fn and(a: Expr, b: Expr) -> Expr {
    Expr::binary(
        crate::classad::ast::BinOp::And,
        Expr::Paren(Box::new(a)),
        Expr::Paren(Box::new(b)),
    )
}

/// Job ids as SQL: clusters, jobs and owners each as one `IN` list, so that a thousand ids
/// do not make a thousand-deep expression.
fn ids_condition(ids: &[JobIdSpec], table: Table) -> Option<SqlCond> {
    if ids.is_empty() {
        return None;
    }
    let t = match table {
        Table::Queue => "p",
        Table::History => "h",
    };
    let (mut clusters, mut jobs, mut owners) = (vec![], vec![], vec![]);
    for id in ids {
        match id {
            JobIdSpec::Cluster(c) => clusters.push(SqlValue::Integer(c.0.into())),
            JobIdSpec::Job(j) => {
                jobs.push(SqlValue::Integer(j.cluster.0.into()));
                jobs.push(SqlValue::Integer(j.proc.into()));
            }
            JobIdSpec::Owner(o) => owners.push(SqlValue::Text(o.clone())),
        }
    }
    let marks = |n: usize| vec!["?"; n].join(", ");
    let mut parts: Vec<SqlCond> = vec![];
    if !clusters.is_empty() {
        let text = format!("{t}.cluster_id IN ({})", marks(clusters.len()));
        parts.push(SqlCond::new(text, clusters));
    }
    if !jobs.is_empty() {
        let values = vec!["(?, ?)"; jobs.len() / 2].join(", ");
        let text = format!("({t}.cluster_id, {t}.proc_id) IN (VALUES {values})");
        parts.push(SqlCond::new(text, jobs));
    }
    if !owners.is_empty() {
        let list = marks(owners.len());
        let text = match table {
            Table::Queue => {
                format!("p.cluster_id IN (SELECT cluster_id FROM clusters WHERE owner IN ({list}))")
            }
            Table::History => format!("h.owner IN ({list})"),
        };
        parts.push(SqlCond::new(text, owners));
    }
    parts.into_iter().reduce(SqlCond::or)
}

/// Whether a constraint holds for an ad (HTCondor's `EvalExprBool`).
pub fn constraint_holds(constraint: &Expr, ad: &ClassAd) -> bool {
    eval_expr(constraint, Some(ad), None).is_ok_and(|v| v.as_bool_equiv() == Some(true))
}

pub(crate) fn damaged(key: AdKey, e: ParseError) -> QueueError {
    QueueError::DamagedAd {
        key,
        message: e.to_string(),
    }
}

pub(crate) fn sql_err(path: &Path) -> impl Fn(rusqlite::Error) -> QueueError + '_ {
    move |e| QueueError::store(path, e)
}

/// A cluster's stored ad, parsed at most once and shared by its jobs.
#[derive(Debug)]
pub struct ClusterEntry {
    id: ClusterId,
    text: String,
    ad: OnceLock<ClassAd>,
}

impl ClusterEntry {
    pub(crate) fn new(id: ClusterId, text: String) -> ClusterEntry {
        ClusterEntry {
            id,
            text,
            ad: OnceLock::new(),
        }
    }

    pub fn id(&self) -> ClusterId {
        self.id
    }

    /// The cluster ad (with its `ClusterId`).
    pub fn ad(&self) -> Result<&ClassAd, QueueError> {
        if let Some(ad) = self.ad.get() {
            return Ok(ad);
        }
        let ad = codec::decode_cluster(&self.text, self.id.0)
            .map_err(|e| damaged(AdKey::Cluster(self.id), e))?;
        Ok(self.ad.get_or_init(|| ad))
    }
}

/// One job of the queue, as a stream yields it.
#[derive(Clone, Debug)]
pub struct Job {
    id: JobId,
    status: i64,
    cluster: Arc<ClusterEntry>,
    text: String,
    ad: OnceLock<ClassAd>,
}

impl Job {
    pub(crate) fn new(id: JobId, status: i64, cluster: Arc<ClusterEntry>, text: String) -> Job {
        Job {
            id,
            status,
            cluster,
            text,
            ad: OnceLock::new(),
        }
    }

    pub fn id(&self) -> JobId {
        self.id
    }

    /// The `JobStatus` number (read without parsing the ad).
    pub fn status_code(&self) -> i64 {
        self.status
    }

    /// The `JobStatus`, when it is one HTCondor defines.
    pub fn status(&self) -> Option<JobStatus> {
        JobStatus::from_code(self.status)
    }

    /// The job's cluster, shared by every job of the cluster that the same stream yields
    /// (compare with `Arc::ptr_eq` to notice a new cluster).
    pub fn cluster(&self) -> &Arc<ClusterEntry> {
        &self.cluster
    }

    /// The cluster ad.
    pub fn cluster_ad(&self) -> Result<&ClassAd, QueueError> {
        self.cluster.ad()
    }

    /// The job ad: the proc ad's own attributes, chained to the cluster ad
    /// ([`ClassAd::chained`], [`ClassAd::own_iter`]).
    pub fn ad(&self) -> Result<&ClassAd, QueueError> {
        if let Some(ad) = self.ad.get() {
            return Ok(ad);
        }
        let mut ad = codec::decode_proc(&self.text, self.id.proc, self.status)
            .map_err(|e| damaged(AdKey::Job(self.id), e))?;
        ad.chain_to(self.cluster.ad()?.clone());
        Ok(self.ad.get_or_init(|| ad))
    }

    /// The job ad, owned.
    pub fn into_ad(self) -> Result<ClassAd, QueueError> {
        self.ad()?;
        Ok(self.ad.into_inner().expect("parsed above"))
    }
}

/// Raw columns of a proc row.
struct ProcRow {
    cluster: i32,
    proc: i32,
    status: i64,
    text: String,
}

/// Looks a cluster's stored ad up.
pub(crate) fn cluster_text(
    conn: &Connection,
    path: &Path,
    id: ClusterId,
) -> Result<Option<String>, QueueError> {
    conn.prepare_cached("SELECT ad FROM clusters WHERE cluster_id = ?1")
        .and_then(|mut s| s.query_row([id.0], |r| r.get(0)).optional())
        .map_err(sql_err(path))
}

/// One job, if it is in the queue.
pub(crate) fn job(conn: &Connection, path: &Path, id: JobId) -> Result<Option<Job>, QueueError> {
    let row = conn
        .prepare_cached("SELECT job_status, ad FROM procs WHERE cluster_id = ?1 AND proc_id = ?2")
        .and_then(|mut s| {
            s.query_row([id.cluster.0, id.proc], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })
            .optional()
        })
        .map_err(sql_err(path))?;
    let Some((status, text)) = row else {
        return Ok(None);
    };
    let cluster =
        cluster_text(conn, path, id.cluster)?.ok_or_else(|| missing_cluster(id.cluster))?;
    let entry = Arc::new(ClusterEntry::new(id.cluster, cluster));
    Ok(Some(Job::new(id, status, entry, text)))
}

fn missing_cluster(id: ClusterId) -> QueueError {
    QueueError::DamagedAd {
        key: AdKey::Cluster(id),
        message: "the cluster ad is missing".into(),
    }
}

/// Starts a read snapshot on `conn` unless one (or a write transaction) is already open;
/// returns whether this call opened it, and so must close it.
fn begin_snapshot(conn: &Connection, path: &Path) -> Result<bool, QueueError> {
    if !conn.is_autocommit() {
        return Ok(false);
    }
    conn.execute_batch("BEGIN DEFERRED")
        .map_err(sql_err(path))?;
    Ok(true)
}

fn end_snapshot(conn: &Connection) {
    // A read transaction has nothing to lose; failing to end it only delays a checkpoint.
    let _ = conn.execute_batch("COMMIT");
}

/// The jobs a [`JobQuery`] selects, in job-id order.
pub struct JobIter<'c> {
    conn: &'c Connection,
    path: &'c Path,
    sql: String,
    params: Vec<SqlValue>,
    constraint: Option<Expr>,
    after: (i64, i64),
    page: std::vec::IntoIter<ProcRow>,
    exhausted: bool,
    cluster: Option<Arc<ClusterEntry>>,
    snapshot: bool,
}

impl<'c> JobIter<'c> {
    pub(crate) fn new(
        conn: &'c Connection,
        path: &'c Path,
        query: &JobQuery,
    ) -> Result<JobIter<'c>, QueueError> {
        let filter = query.filter(Table::Queue);
        let sql = format!(
            "SELECT p.cluster_id, p.proc_id, p.job_status, p.ad FROM procs p \
             WHERE ({}) AND (p.cluster_id, p.proc_id) > (?, ?) \
             ORDER BY p.cluster_id, p.proc_id LIMIT {PAGE}",
            filter.text
        );
        let snapshot = begin_snapshot(conn, path)?;
        Ok(JobIter {
            conn,
            path,
            sql,
            params: filter.params,
            constraint: query.constraint.clone(),
            after: (i64::MIN, i64::MIN),
            page: Vec::new().into_iter(),
            exhausted: false,
            cluster: None,
            snapshot,
        })
    }

    fn fetch(&mut self) -> Result<(), QueueError> {
        let mut stmt = self
            .conn
            .prepare_cached(&self.sql)
            .map_err(sql_err(self.path))?;
        let params = self.params.iter().cloned().chain([
            SqlValue::Integer(self.after.0),
            SqlValue::Integer(self.after.1),
        ]);
        let rows: Vec<ProcRow> = stmt
            .query_map(params_from_iter(params), |r| {
                Ok(ProcRow {
                    cluster: r.get(0)?,
                    proc: r.get(1)?,
                    status: r.get(2)?,
                    text: r.get(3)?,
                })
            })
            .and_then(|rows| rows.collect())
            .map_err(sql_err(self.path))?;
        self.exhausted = rows.len() < PAGE;
        if let Some(last) = rows.last() {
            self.after = (last.cluster.into(), last.proc.into());
        }
        self.page = rows.into_iter();
        Ok(())
    }

    fn cluster_entry(&mut self, id: ClusterId) -> Result<Arc<ClusterEntry>, QueueError> {
        if let Some(c) = &self.cluster {
            if c.id == id {
                return Ok(c.clone());
            }
        }
        let text = cluster_text(self.conn, self.path, id)?.ok_or_else(|| missing_cluster(id))?;
        let entry = Arc::new(ClusterEntry::new(id, text));
        self.cluster = Some(entry.clone());
        Ok(entry)
    }
}

impl Iterator for JobIter<'_> {
    type Item = Result<Job, QueueError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let Some(row) = self.page.next() else {
                if self.exhausted {
                    return None;
                }
                if let Err(e) = self.fetch() {
                    self.exhausted = true;
                    return Some(Err(e));
                }
                continue;
            };
            let id = JobId::new(row.cluster, row.proc);
            let cluster = match self.cluster_entry(id.cluster) {
                Ok(c) => c,
                Err(e) => return Some(Err(e)),
            };
            let job = Job::new(id, row.status, cluster, row.text);
            let Some(constraint) = &self.constraint else {
                return Some(Ok(job));
            };
            match job.ad() {
                Ok(ad) if constraint_holds(constraint, ad) => return Some(Ok(job)),
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl Drop for JobIter<'_> {
    fn drop(&mut self) {
        if self.snapshot {
            end_snapshot(self.conn);
        }
    }
}

/// Which way to read the history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HistoryOrder {
    /// Most recently finished first (`condor_history`'s default, `-backwards`).
    #[default]
    NewestFirst,
    /// Oldest first (`-forwards`).
    OldestFirst,
}

/// Which history entries to read: as [`JobQuery`], plus the order.
#[derive(Clone, Debug, Default)]
pub struct HistoryQuery {
    pub jobs: JobQuery,
    pub order: HistoryOrder,
}

impl HistoryQuery {
    pub fn all() -> HistoryQuery {
        HistoryQuery::default()
    }

    pub fn new(jobs: JobQuery, order: HistoryOrder) -> HistoryQuery {
        HistoryQuery { jobs, order }
    }
}

/// A job that left the queue: its last ad, flat (cluster and proc attributes merged).
#[derive(Clone, Debug)]
pub struct HistoryEntry {
    seq: i64,
    id: JobId,
    text: String,
    ad: OnceLock<ClassAd>,
}

impl HistoryEntry {
    pub fn id(&self) -> JobId {
        self.id
    }

    /// The position in the history: higher left the queue later.
    pub fn seq(&self) -> i64 {
        self.seq
    }

    pub fn ad(&self) -> Result<&ClassAd, QueueError> {
        if let Some(ad) = self.ad.get() {
            return Ok(ad);
        }
        let ad = codec::decode(&self.text).map_err(|e| damaged(AdKey::Job(self.id), e))?;
        Ok(self.ad.get_or_init(|| ad))
    }

    pub fn into_ad(self) -> Result<ClassAd, QueueError> {
        self.ad()?;
        Ok(self.ad.into_inner().expect("parsed above"))
    }
}

/// The history entries a [`HistoryQuery`] selects, in its order.
pub struct HistoryIter<'c> {
    conn: &'c Connection,
    path: &'c Path,
    sql: String,
    params: Vec<SqlValue>,
    constraint: Option<Expr>,
    after: i64,
    page: std::vec::IntoIter<HistoryEntry>,
    exhausted: bool,
    snapshot: bool,
}

impl<'c> HistoryIter<'c> {
    pub(crate) fn new(
        conn: &'c Connection,
        path: &'c Path,
        query: &HistoryQuery,
    ) -> Result<HistoryIter<'c>, QueueError> {
        let filter = query.jobs.filter(Table::History);
        let (cmp, dir, start) = match query.order {
            HistoryOrder::NewestFirst => ("<", "DESC", i64::MAX),
            HistoryOrder::OldestFirst => (">", "ASC", i64::MIN),
        };
        let sql = format!(
            "SELECT h.seq, h.cluster_id, h.proc_id, h.ad FROM history h \
             WHERE ({}) AND h.seq {cmp} ? ORDER BY h.seq {dir} LIMIT {PAGE}",
            filter.text
        );
        let snapshot = begin_snapshot(conn, path)?;
        Ok(HistoryIter {
            conn,
            path,
            sql,
            params: filter.params,
            constraint: query.jobs.constraint.clone(),
            after: start,
            page: Vec::new().into_iter(),
            exhausted: false,
            snapshot,
        })
    }

    fn fetch(&mut self) -> Result<(), QueueError> {
        let mut stmt = self
            .conn
            .prepare_cached(&self.sql)
            .map_err(sql_err(self.path))?;
        let params = self
            .params
            .iter()
            .cloned()
            .chain([SqlValue::Integer(self.after)]);
        let rows: Vec<HistoryEntry> = stmt
            .query_map(params_from_iter(params), |r| {
                Ok(HistoryEntry {
                    seq: r.get(0)?,
                    id: JobId::new(r.get(1)?, r.get(2)?),
                    text: r.get(3)?,
                    ad: OnceLock::new(),
                })
            })
            .and_then(|rows| rows.collect())
            .map_err(sql_err(self.path))?;
        self.exhausted = rows.len() < PAGE;
        if let Some(last) = rows.last() {
            self.after = last.seq;
        }
        self.page = rows.into_iter();
        Ok(())
    }
}

impl Iterator for HistoryIter<'_> {
    type Item = Result<HistoryEntry, QueueError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let Some(entry) = self.page.next() else {
                if self.exhausted {
                    return None;
                }
                if let Err(e) = self.fetch() {
                    self.exhausted = true;
                    return Some(Err(e));
                }
                continue;
            };
            let Some(constraint) = &self.constraint else {
                return Some(Ok(entry));
            };
            match entry.ad() {
                Ok(ad) if constraint_holds(constraint, ad) => return Some(Ok(entry)),
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl Drop for HistoryIter<'_> {
    fn drop(&mut self) {
        if self.snapshot {
            end_snapshot(self.conn);
        }
    }
}

/// How many of the selected jobs are in each state, as `(JobStatus number, count)` in
/// number order. Without a constraint this is one SQL aggregate and parses no ad.
pub(crate) fn count_by_status(
    conn: &Connection,
    path: &Path,
    query: &JobQuery,
) -> Result<Vec<(i64, u64)>, QueueError> {
    if query.constraint.is_some() {
        let mut counts = std::collections::BTreeMap::new();
        for job in JobIter::new(conn, path, query)? {
            *counts.entry(job?.status_code()).or_insert(0u64) += 1;
        }
        return Ok(counts.into_iter().collect());
    }
    let filter = query.filter(Table::Queue);
    let sql = format!(
        "SELECT p.job_status, count(*) FROM procs p WHERE {} GROUP BY p.job_status ORDER BY 1",
        filter.text
    );
    let mut stmt = conn.prepare(&sql).map_err(sql_err(path))?;
    let rows = stmt
        .query_map(params_from_iter(filter.params), |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)? as u64))
        })
        .and_then(|rows| rows.collect());
    rows.map_err(sql_err(path))
}
