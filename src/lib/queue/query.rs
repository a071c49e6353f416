//! Reading the queue and the history: which jobs a query selects ([`JobQuery`],
//! [`HistoryQuery`]), and the streams of jobs it yields ([`JobIter`], [`HistoryIter`]).
//!
//! Streams read in pages (keyset pagination on the job id, or on the history's order), so
//! memory stays flat however many jobs match; all pages of one stream come from one read
//! snapshot, so a concurrent writer never makes a job appear twice or a count disagree with
//! itself. Ads are parsed lazily: a job's proc ad when [`Job::ad`] is first called (or when a
//! constraint needs it), its cluster ad once per cluster, shared by every job of that cluster.

use std::collections::{BTreeMap, VecDeque};
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

    /// Whether the query selects a job read from elsewhere than the store (a file of job
    /// ads, an event log): the ids as the store's SQL reads them, then the constraint.
    pub fn selects(&self, job: &Job) -> bool {
        let id = job.id();
        let ad = job.ad().ok();
        let named = self.ids.is_empty()
            || self.ids.iter().any(|s| match s {
                JobIdSpec::Cluster(c) => id.cluster == *c,
                JobIdSpec::Job(j) => id == *j,
                JobIdSpec::Owner(o) => ad
                    .and_then(|ad| crate::output::render::lookup_str(ad, "Owner"))
                    .is_some_and(|owner| *owner == **o),
            });
        named
            && self
                .constraint
                .as_ref()
                .is_none_or(|c| ad.is_some_and(|ad| constraint_holds(c, ad)))
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

    /// A job whose whole ad was read from elsewhere than the store (a file of job ads, an
    /// event log): its id and status are the ad's (`ClusterId`, `ProcId`, `JobStatus`; 0
    /// when absent, as HTCondor reads them), and its cluster ad is the job ad itself.
    pub fn from_ad(ad: ClassAd) -> Job {
        let int = |name: &str| crate::output::render::lookup_int(&ad, name).unwrap_or(0);
        let id = JobId {
            cluster: ClusterId(int("ClusterId") as i32),
            proc: int("ProcId") as i32,
        };
        let status = int("JobStatus");
        let cluster = ClusterEntry::new(id.cluster, String::new());
        let _ = cluster.ad.set(ad.clone());
        let job = Job::new(id, status, Arc::new(cluster), String::new());
        let _ = job.ad.set(ad);
        job
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
    read_job(conn, path, id, &mut BTreeMap::new())
}

/// The jobs of `ids` that are in the queue, in the order given, read by key from one
/// snapshot; the jobs of one cluster share its ad.
pub(crate) fn jobs_by_id(
    conn: &Connection,
    path: &Path,
    ids: impl IntoIterator<Item = JobId>,
) -> Result<Vec<Job>, QueueError> {
    let tx = conn.unchecked_transaction().map_err(sql_err(path))?;
    let mut clusters = BTreeMap::new();
    let mut jobs = Vec::new();
    for id in ids {
        jobs.extend(read_job(&tx, path, id, &mut clusters)?);
    }
    Ok(jobs)
}

/// One job by key, its cluster's entry taken from (or added to) `clusters`.
fn read_job(
    conn: &Connection,
    path: &Path,
    id: JobId,
    clusters: &mut BTreeMap<ClusterId, Arc<ClusterEntry>>,
) -> Result<Option<Job>, QueueError> {
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
    let entry = match clusters.get(&id.cluster) {
        Some(entry) => entry.clone(),
        None => {
            let cluster =
                cluster_text(conn, path, id.cluster)?.ok_or_else(|| missing_cluster(id.cluster))?;
            let entry = Arc::new(ClusterEntry::new(id.cluster, cluster));
            clusters.insert(id.cluster, entry.clone());
            entry
        }
    };
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
///
/// Every page is one seek in the store's key order, so reading a whole selection costs its
/// size, not its square: a query without ids reads the procs table from the last key read
/// (`(cluster_id, proc_id) > (?, ?)`); a query with ids walks the clusters they name
/// ([`Candidates`]) in ascending order, a batch of them per statement (`cluster_id IN (...)`,
/// each named cluster seeked once), and finishes a cluster that a page ended in with a seek on
/// its proc ids (`cluster_id = ? AND proc_id > ?`). Memory stays at one page of rows plus a
/// page of cluster ids per owner named, however large the queue.
pub struct JobIter<'c> {
    conn: &'c Connection,
    path: &'c Path,
    paging: Paging,
    constraint: Option<Expr>,
    page: std::vec::IntoIter<ProcRow>,
    exhausted: bool,
    cluster: Option<Arc<ClusterEntry>>,
    snapshot: bool,
}

/// How a [`JobIter`] reads its pages.
enum Paging {
    /// No ids: the whole table, after the last key read.
    Table {
        sql: String,
        params: Vec<SqlValue>,
        after: (i64, i64),
    },
    /// Ids: the clusters they name, in order.
    Clusters(ClusterWalk),
}

/// What of a named cluster is selected.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Selected {
    /// Every job (the cluster was named, or one of the owners named owns it).
    Whole,
    /// These procs only (jobs named `C.P`), ascending.
    Procs(Vec<i32>),
}

/// The clusters a query's ids name, handed out in ascending order from three sources: the
/// clusters named whole, the clusters of the jobs named, and the clusters of the owners
/// named (read from the store a page at a time, through the owner index).
struct Candidates {
    whole: Vec<i32>,
    jobs: BTreeMap<i32, Vec<i32>>,
    owners: Vec<OwnerClusters>,
    /// Every cluster at or below this one has been read.
    after: i64,
}

/// The clusters of one owner above [`Candidates::after`], read ahead a page at a time.
struct OwnerClusters {
    owner: String,
    ahead: VecDeque<i32>,
    /// The last cluster id read from the store (the next read starts above it).
    read_to: i64,
    done: bool,
}

impl Candidates {
    fn new(ids: &[JobIdSpec]) -> Candidates {
        let mut whole = Vec::new();
        let mut jobs: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
        let mut owners: Vec<OwnerClusters> = Vec::new();
        for id in ids {
            match id {
                JobIdSpec::Cluster(c) => whole.push(c.0),
                JobIdSpec::Job(j) => jobs.entry(j.cluster.0).or_default().push(j.proc),
                JobIdSpec::Owner(o) => {
                    // The owner column compares without case, as `Owner == "x"` does.
                    if !owners.iter().any(|x| x.owner.eq_ignore_ascii_case(o)) {
                        owners.push(OwnerClusters {
                            owner: o.clone(),
                            ahead: VecDeque::new(),
                            read_to: i64::MIN,
                            done: false,
                        });
                    }
                }
            }
        }
        whole.sort_unstable();
        whole.dedup();
        for procs in jobs.values_mut() {
            procs.sort_unstable();
            procs.dedup();
        }
        Candidates {
            whole,
            jobs,
            owners,
            after: i64::MIN,
        }
    }

    /// Up to `n` of the next clusters (above [`Candidates::after`]), ascending, without
    /// handing them out.
    fn peek(
        &mut self,
        conn: &Connection,
        path: &Path,
        n: usize,
    ) -> Result<Vec<(i32, Selected)>, QueueError> {
        let after = self.after;
        let mut next: BTreeMap<i32, Selected> = BTreeMap::new();
        let from = self.whole.partition_point(|&c| i64::from(c) <= after);
        for &c in self.whole[from..].iter().take(n) {
            next.insert(c, Selected::Whole);
        }
        let lower = after
            .saturating_add(1)
            .clamp(i64::from(i32::MIN), i64::from(i32::MAX));
        if after < i64::from(i32::MAX) {
            for (&c, procs) in self.jobs.range(lower as i32..).take(n) {
                next.entry(c)
                    .or_insert_with(|| Selected::Procs(procs.clone()));
            }
        }
        for o in &mut self.owners {
            while o.ahead.front().is_some_and(|&c| i64::from(c) <= after) {
                o.ahead.pop_front();
            }
            while o.ahead.len() < n && !o.done {
                o.read_ahead(conn, path, after)?;
            }
            for &c in o.ahead.iter().take(n) {
                next.insert(c, Selected::Whole);
            }
        }
        Ok(next.into_iter().take(n).collect())
    }
}

impl OwnerClusters {
    /// Reads the owner's next page of cluster ids (`owner = ? AND cluster_id > ?`: a seek on
    /// the owner index, whose entries are in cluster order).
    fn read_ahead(&mut self, conn: &Connection, path: &Path, after: i64) -> Result<(), QueueError> {
        let from = self.read_to.max(after);
        let want = PAGE.saturating_sub(self.ahead.len()).max(1);
        let mut stmt = conn
            .prepare_cached(
                "SELECT cluster_id FROM clusters WHERE owner = ?1 AND cluster_id > ?2 \
                 ORDER BY cluster_id LIMIT ?3",
            )
            .map_err(sql_err(path))?;
        let ids: Vec<i32> = stmt
            .query_map(rusqlite::params![self.owner, from, want as i64], |r| {
                r.get(0)
            })
            .and_then(|rows| rows.collect())
            .map_err(sql_err(path))?;
        self.done = ids.len() < want;
        if let Some(&last) = ids.last() {
            self.read_to = i64::from(last);
        }
        self.ahead.extend(ids);
        Ok(())
    }
}

/// Walking the named clusters: the cluster a page ended in (to be finished first), and the
/// rest to come.
struct ClusterWalk {
    candidates: Candidates,
    /// The pushed-down part of the constraint, tested by every statement.
    pushed: Option<SqlCond>,
    /// A cluster the last page ended in: its selection and the last proc read.
    unfinished: Option<(i32, Selected, i32)>,
}

fn proc_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ProcRow> {
    Ok(ProcRow {
        cluster: r.get(0)?,
        proc: r.get(1)?,
        status: r.get(2)?,
        text: r.get(3)?,
    })
}

fn marks(n: usize) -> String {
    vec!["?"; n].join(", ")
}

impl ClusterWalk {
    /// The next page: up to [`PAGE`] rows, and whether they are the last.
    fn fetch(
        &mut self,
        conn: &Connection,
        path: &Path,
    ) -> Result<(Vec<ProcRow>, bool), QueueError> {
        let mut rows: Vec<ProcRow> = Vec::new();
        while rows.len() < PAGE {
            let want = PAGE - rows.len();
            if let Some((cluster, sel, last_proc)) = self.unfinished.take() {
                let got = self.read_cluster(conn, path, cluster, &sel, last_proc, want)?;
                if got.len() == want {
                    let last = got.last().map_or(last_proc, |r| r.proc);
                    self.unfinished = Some((cluster, sel, last));
                }
                rows.extend(got);
                continue;
            }
            let next = self.candidates.peek(conn, path, PAGE)?;
            let Some((first, sel)) = next.first().cloned() else {
                return Ok((rows, true));
            };
            if let Selected::Procs(_) = sel {
                // Jobs named one by one: their cluster alone, from its first proc.
                self.candidates.after = i64::from(first);
                self.unfinished = Some((first, sel, i32::MIN));
                continue;
            }
            let batch: Vec<i32> = next
                .iter()
                .take_while(|(_, s)| *s == Selected::Whole)
                .map(|(c, _)| *c)
                .collect();
            let got = self.read_clusters(conn, path, &batch, want)?;
            match got.last() {
                Some(last) if got.len() == want => {
                    self.candidates.after = i64::from(last.cluster);
                    self.unfinished = Some((last.cluster, Selected::Whole, last.proc));
                }
                _ => self.candidates.after = i64::from(*batch.last().expect("not empty")),
            }
            rows.extend(got);
        }
        Ok((rows, false))
    }

    /// The rest of one cluster: its selected procs above `last_proc`, at most `limit`.
    fn read_cluster(
        &self,
        conn: &Connection,
        path: &Path,
        cluster: i32,
        sel: &Selected,
        last_proc: i32,
        limit: usize,
    ) -> Result<Vec<ProcRow>, QueueError> {
        let mut text = String::from(
            "SELECT p.cluster_id, p.proc_id, p.job_status, p.ad FROM procs p \
             WHERE p.cluster_id = ? AND p.proc_id > ?",
        );
        let mut params = vec![
            SqlValue::Integer(cluster.into()),
            SqlValue::Integer(last_proc.into()),
        ];
        if let Selected::Procs(procs) = sel {
            text.push_str(&format!(" AND p.proc_id IN ({})", marks(procs.len())));
            params.extend(procs.iter().map(|&p| SqlValue::Integer(p.into())));
        }
        self.finish_sql(&mut text, &mut params, "p.proc_id", limit);
        query_rows(conn, path, &text, params)
    }

    /// The first `limit` selected jobs of a batch of clusters named whole.
    fn read_clusters(
        &self,
        conn: &Connection,
        path: &Path,
        clusters: &[i32],
        limit: usize,
    ) -> Result<Vec<ProcRow>, QueueError> {
        let mut text = format!(
            "SELECT p.cluster_id, p.proc_id, p.job_status, p.ad FROM procs p \
             WHERE p.cluster_id IN ({})",
            marks(clusters.len())
        );
        let mut params: Vec<SqlValue> = clusters
            .iter()
            .map(|&c| SqlValue::Integer(c.into()))
            .collect();
        self.finish_sql(&mut text, &mut params, "p.cluster_id, p.proc_id", limit);
        query_rows(conn, path, &text, params)
    }

    fn finish_sql(&self, text: &mut String, params: &mut Vec<SqlValue>, order: &str, limit: usize) {
        if let Some(pushed) = &self.pushed {
            text.push_str(&format!(" AND ({})", pushed.text));
            params.extend(pushed.params.iter().cloned());
        }
        text.push_str(&format!(" ORDER BY {order} LIMIT {limit}"));
    }
}

fn query_rows(
    conn: &Connection,
    path: &Path,
    sql: &str,
    params: Vec<SqlValue>,
) -> Result<Vec<ProcRow>, QueueError> {
    let mut stmt = conn.prepare_cached(sql).map_err(sql_err(path))?;
    let rows = stmt
        .query_map(params_from_iter(params), proc_row)
        .and_then(|rows| rows.collect());
    rows.map_err(sql_err(path))
}

impl<'c> JobIter<'c> {
    pub(crate) fn new(
        conn: &'c Connection,
        path: &'c Path,
        query: &JobQuery,
    ) -> Result<JobIter<'c>, QueueError> {
        let paging = if query.ids.is_empty() {
            let filter = query.filter(Table::Queue);
            Paging::Table {
                sql: format!(
                    "SELECT p.cluster_id, p.proc_id, p.job_status, p.ad FROM procs p \
                     WHERE ({}) AND (p.cluster_id, p.proc_id) > (?, ?) \
                     ORDER BY p.cluster_id, p.proc_id LIMIT {PAGE}",
                    filter.text
                ),
                params: filter.params,
                after: (i64::MIN, i64::MIN),
            }
        } else {
            Paging::Clusters(ClusterWalk {
                candidates: Candidates::new(&query.ids),
                pushed: query
                    .constraint
                    .as_ref()
                    .and_then(|c| pushdown::translate(c, Table::Queue)),
                unfinished: None,
            })
        };
        let snapshot = begin_snapshot(conn, path)?;
        Ok(JobIter {
            conn,
            path,
            paging,
            constraint: query.constraint.clone(),
            page: Vec::new().into_iter(),
            exhausted: false,
            cluster: None,
            snapshot,
        })
    }

    fn fetch(&mut self) -> Result<(), QueueError> {
        let (rows, last) = match &mut self.paging {
            Paging::Table { sql, params, after } => {
                let params = params
                    .iter()
                    .cloned()
                    .chain([SqlValue::Integer(after.0), SqlValue::Integer(after.1)])
                    .collect();
                let rows = query_rows(self.conn, self.path, sql, params)?;
                if let Some(last) = rows.last() {
                    *after = (last.cluster.into(), last.proc.into());
                }
                let last = rows.len() < PAGE;
                (rows, last)
            }
            Paging::Clusters(walk) => walk.fetch(self.conn, self.path)?,
        };
        self.exhausted = last;
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

#[cfg(test)]
mod paging_tests {
    use super::*;
    use crate::classad::parse_ad;
    use crate::queue::Queue;

    fn cluster(owner: &str) -> ClassAd {
        parse_ad(&format!(r#"[ Owner = "{owner}"; JobStatus = 1 ]"#)).unwrap()
    }

    /// Clusters of alice (big ones, spanning pages), bob and carol, interleaved.
    fn queue() -> (tempfile::TempDir, Queue) {
        let dir = tempfile::tempdir().unwrap();
        let mut q = Queue::open(dir.path()).unwrap();
        for (owner, n) in [
            ("alice", 2 * PAGE + 7),
            ("bob", 3),
            ("alice", 1),
            ("carol", PAGE),
            ("Bob", PAGE + 1),
            ("alice", 5),
        ] {
            q.submit(cluster(owner), (0..n).map(|_| ClassAd::new()))
                .unwrap();
        }
        q.transaction(|tx| {
            for p in (0..2 * PAGE as i32).step_by(3) {
                tx.set_status(JobId::new(1, p), JobStatus::Held)?;
            }
            Ok::<_, QueueError>(())
        })
        .unwrap();
        (dir, q)
    }

    /// What a query selects, worked out job by job from every job in the queue.
    fn expected(q: &Queue, query: &JobQuery) -> Vec<JobId> {
        let mut out = Vec::new();
        for job in q.jobs(&JobQuery::all()).unwrap() {
            let job = job.unwrap();
            let id = job.id();
            let owner = crate::output::render::lookup_str(job.cluster_ad().unwrap(), "Owner");
            let named = query.id_specs().is_empty()
                || query.id_specs().iter().any(|s| match s {
                    JobIdSpec::Cluster(c) => id.cluster == *c,
                    JobIdSpec::Job(j) => id == *j,
                    JobIdSpec::Owner(o) => {
                        owner.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(o))
                    }
                });
            let holds = query
                .constraint()
                .is_none_or(|c| constraint_holds(c, job.ad().unwrap()));
            if named && holds {
                out.push(id);
            }
        }
        out
    }

    #[test]
    fn id_queries_read_every_selected_job_once_in_order() {
        let (_dir, q) = queue();
        let held = || crate::classad::parse_expr("JobStatus == 5").unwrap();
        let odd = || crate::classad::parse_expr("ProcId % 2 == 1").unwrap();
        let owner = |o: &str| JobIdSpec::Owner(o.into());
        let job = |c, p| JobIdSpec::Job(JobId::new(c, p));
        for query in [
            JobQuery::ids([owner("alice")]),
            JobQuery::ids([owner("BOB"), owner("bob")]),
            JobQuery::ids([
                owner("alice"),
                owner("carol"),
                JobIdSpec::Cluster(ClusterId(2)),
            ]),
            JobQuery::ids([
                JobIdSpec::Cluster(ClusterId(5)),
                JobIdSpec::Cluster(ClusterId(1)),
            ]),
            JobQuery::ids([job(1, 2000), job(1, 5), job(4, 0), job(9, 9), job(1, 5)]),
            JobQuery::ids([
                job(1, 3),
                owner("bob"),
                job(6, 4),
                JobIdSpec::Cluster(ClusterId(42)),
            ]),
            JobQuery::ids([owner("alice")]).with_constraint(held()),
            JobQuery::ids([owner("alice"), owner("carol")]).with_constraint(odd()),
            JobQuery::ids([owner("nobody")]),
            JobQuery::all().with_constraint(held()),
        ] {
            let got: Vec<JobId> = q.jobs(&query).unwrap().map(|j| j.unwrap().id()).collect();
            assert_eq!(got, expected(&q, &query), "{query:?}");
            assert!(got.windows(2).all(|w| w[0] < w[1]), "{query:?}");
        }
        assert_eq!(
            q.job_ids(&JobQuery::ids([owner("alice")])).unwrap().len(),
            2 * PAGE + 7 + 1 + 5
        );
    }

    /// The statements a selection by ids runs: each seeks in key order (no re-reading of the
    /// clusters a page has passed, no sorting).
    #[test]
    fn id_query_statements_seek() {
        let (_dir, q) = queue();
        let conn = &q.conn;
        let plan = |sql: &str, params: Vec<SqlValue>| -> String {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows: Vec<String> = stmt
                .query_map(params_from_iter(params), |r| r.get::<_, String>(3))
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            rows.join("; ")
        };
        let walk = ClusterWalk {
            candidates: Candidates::new(&[]),
            pushed: pushdown::translate(
                &crate::classad::parse_expr("JobStatus == 5").unwrap(),
                Table::Queue,
            ),
            unfinished: None,
        };
        let i = |n: i64| SqlValue::Integer(n);
        // The rest of a cluster a page ended in: a seek on the whole key.
        let mut text = String::from(
            "SELECT p.cluster_id, p.proc_id, p.job_status, p.ad FROM procs p \
             WHERE p.cluster_id = ? AND p.proc_id > ?",
        );
        let mut params = vec![i(1), i(700)];
        walk.finish_sql(&mut text, &mut params, "p.proc_id", 10);
        let p = plan(&text, params);
        assert!(p.contains("cluster_id=? AND proc_id>?"), "{p}");
        assert!(!p.contains("TEMP B-TREE"), "{p}");
        // A batch of named clusters: one seek per cluster, already in order.
        let mut text = String::from(
            "SELECT p.cluster_id, p.proc_id, p.job_status, p.ad FROM procs p \
             WHERE p.cluster_id IN (?, ?, ?)",
        );
        let mut params = vec![i(2), i(4), i(6)];
        walk.finish_sql(&mut text, &mut params, "p.cluster_id, p.proc_id", 10);
        let p = plan(&text, params);
        assert!(p.contains("cluster_id=?)"), "{p}");
        assert!(!p.contains("TEMP B-TREE"), "{p}");
        // An owner's clusters: a seek on the owner index, in cluster order.
        let p = plan(
            "SELECT cluster_id FROM clusters WHERE owner = ?1 AND cluster_id > ?2 \
             ORDER BY cluster_id LIMIT 10",
            vec![SqlValue::Text("alice".into()), i(3)],
        );
        assert!(p.contains("owner=? AND rowid>?"), "{p}");
        assert!(!p.contains("TEMP B-TREE"), "{p}");
    }

    /// A page holds at most [`PAGE`] rows, and a walk over an owner's clusters reads at most a
    /// page of their ids ahead.
    #[test]
    fn memory_is_one_page() {
        let (_dir, q) = queue();
        let mut jobs = q
            .jobs(&JobQuery::ids([JobIdSpec::Owner("alice".into())]))
            .unwrap();
        let mut seen = 0;
        while jobs.next().is_some() {
            seen += 1;
            assert!(jobs.page.len() < PAGE);
            if let Paging::Clusters(walk) = &jobs.paging {
                assert!(walk.candidates.owners.iter().all(|o| o.ahead.len() <= PAGE));
            }
        }
        assert_eq!(seen, 2 * PAGE + 13);
    }
}
