//! Reading job factories (late materialization): which clusters have one, how far each got,
//! and how many of its procs are in the queue in each state. Writing them is the
//! [`super::Transaction`]'s (`submit_factory`, `materialize`, `remove_factory`,
//! `delete_factory_cluster`).

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use super::error::QueueError;
use super::id::ClusterId;
use super::query::sql_err;
use super::status::JobStatus;
use super::Queue;

/// A job factory as stored: its cluster, how many procs its queue statement selects,
/// whether `condor_rm` removed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Factory {
    pub cluster: ClusterId,
    pub total_procs: i64,
    pub removed: bool,
}

/// How many of a cluster's procs are in the queue, by state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcCounts {
    /// Every proc in the queue (HTCondor's `ClusterSize`).
    pub present: i64,
    pub idle: i64,
    /// Running, transferring output or suspended.
    pub running: i64,
    pub held: i64,
}

impl ProcCounts {
    /// The procs not running (HTCondor's `getNumNotRunning`, what `JobMaterializeMaxIdle`
    /// limits).
    pub fn not_running(&self) -> i64 {
        self.present - self.running
    }
}

pub(crate) fn has_factory(
    conn: &Connection,
    path: &Path,
    id: ClusterId,
) -> Result<bool, QueueError> {
    conn.prepare_cached("SELECT 1 FROM factories WHERE cluster_id = ?1")
        .and_then(|mut s| s.query_row([id.0], |_| Ok(())).optional())
        .map(|r| r.is_some())
        .map_err(sql_err(path))
}

pub(crate) fn proc_counts(
    conn: &Connection,
    path: &Path,
    id: ClusterId,
) -> Result<ProcCounts, QueueError> {
    let mut counts = ProcCounts::default();
    let mut stmt = conn
        .prepare_cached(
            "SELECT job_status, count(*) FROM procs WHERE cluster_id = ?1 GROUP BY job_status",
        )
        .map_err(sql_err(path))?;
    let rows = stmt
        .query_map([id.0], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
        .map_err(sql_err(path))?;
    for row in rows {
        let (status, n) = row.map_err(sql_err(path))?;
        counts.present += n;
        match JobStatus::from_code(status) {
            Some(JobStatus::Idle) => counts.idle += n,
            Some(JobStatus::Running | JobStatus::TransferringOutput | JobStatus::Suspended) => {
                counts.running += n
            }
            Some(JobStatus::Held) => counts.held += n,
            _ => {}
        }
    }
    Ok(counts)
}

impl Queue {
    /// The job factories in the queue, in cluster order.
    pub fn factories(&self) -> Result<Vec<Factory>, QueueError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT cluster_id, total_procs, removed FROM factories ORDER BY cluster_id",
            )
            .map_err(sql_err(&self.path))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(Factory {
                    cluster: ClusterId(r.get(0)?),
                    total_procs: r.get(1)?,
                    removed: r.get::<_, i64>(2)? != 0,
                })
            })
            .and_then(|rows| rows.collect());
        rows.map_err(sql_err(&self.path))
    }

    /// A job factory's submit digest, as [`super::Transaction::submit_factory`] stored it.
    pub fn factory_digest(&self, id: ClusterId) -> Result<Option<String>, QueueError> {
        self.conn
            .prepare_cached("SELECT digest FROM factories WHERE cluster_id = ?1")
            .and_then(|mut s| s.query_row([id.0], |r| r.get(0)).optional())
            .map_err(sql_err(&self.path))
    }

    /// Whether cluster `id` has a job factory.
    pub fn has_factory(&self, id: ClusterId) -> Result<bool, QueueError> {
        has_factory(&self.conn, &self.path, id)
    }

    /// How many of cluster `id`'s procs are in the queue, by state (an index range read).
    pub fn proc_counts(&self, id: ClusterId) -> Result<ProcCounts, QueueError> {
        proc_counts(&self.conn, &self.path, id)
    }
}
