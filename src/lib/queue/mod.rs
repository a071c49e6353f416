//! The job queue store: HTCondor's schedd job queue (clusters, procs, their ClassAds and
//! states, the next cluster id) and its history, kept in the spool directory, and the only
//! code that knows how they are stored.
//!
//! The store is one SQLite database (`job_queue.db` in the spool directory) in WAL mode,
//! opened by every tool and by the daemon at once: readers never wait for writers, writers
//! queue behind one another (a busy timeout, not an error), and every change is one
//! transaction, committed durably before it is acknowledged. See `schema.rs` for the tables,
//! `codec.rs` for how ads are stored, `pushdown.rs` for how constraints become SQL, `txn.rs`
//! for the schedd's rules the writes follow, and `query.rs` for reading.
//!
//! Crashes: a process killed anywhere, even inside a commit, leaves the store as it was just
//! before or just after its transaction; the next open recovers the WAL (SQLite's own repair
//! step). Setting a new store up is done under a lock file (`job_queue.lock`), so that
//! processes opening a new spool at once do not trip over each other. [`Queue::repair`] is
//! the fuller check a daemon runs when it starts.
//!
//! ```no_run
//! use condorlite::classad::{parse_ad, parse_expr};
//! use condorlite::queue::{JobIdSpec, JobQuery, JobStatus, Queue};
//!
//! # fn main() -> Result<(), condorlite::queue::QueueError> {
//! let mut queue = Queue::open("/tmp/pool/spool")?;
//! let cluster = parse_ad(r#"[ Owner = "alice"; Cmd = "/bin/sleep"; JobStatus = 1 ]"#).unwrap();
//! let procs = (0..3).map(|i| parse_ad(&format!(r#"[ Args = "{i}" ]"#)).unwrap());
//! let id = queue.submit(cluster, procs)?;
//!
//! queue.transaction(|tx| {
//!     for job in tx.job_ids(&JobQuery::ids([JobIdSpec::Cluster(id)]))? {
//!         tx.set_status(job, JobStatus::Held)?;
//!     }
//!     Ok::<_, condorlite::queue::QueueError>(())
//! })?;
//!
//! let held = JobQuery::all().with_constraint(parse_expr("JobStatus == 5").unwrap());
//! for job in queue.jobs(&held)? {
//!     let job = job?;
//!     println!("{} {:?}", job.id(), job.ad()?.eval_attr("Args"));
//! }
//! # Ok(()) }
//! ```

mod codec;
mod error;
mod factory;
mod id;
mod pushdown;
mod query;
mod schema;
pub mod spool;
mod status;
mod txn;
pub mod universe;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::classad::ClassAd;

pub use codec::{
    decode as decode_ad, encode_flat as encode_ad, FORCED_CLUSTER_ATTRS, TOTAL_SUBMIT_PROCS,
};
pub use error::{JobIdError, QueueError};
pub use factory::{Factory, ProcCounts};
pub use id::{job_id_key, str_is_proc_id, AdKey, ClusterId, JobId, JobIdSpec};
pub use query::{
    constraint_holds, ClusterEntry, HistoryEntry, HistoryIter, HistoryOrder, HistoryQuery, Job,
    JobIter, JobQuery,
};
pub use schema::{RepairReport, CURRENT as SCHEMA_VERSION};
pub use status::JobStatus;
pub use txn::{LeftQueue, Transaction, NEXT_PROC_ID, NEXT_ROW};

use query::sql_err;

/// The store's file in the spool directory.
pub const QUEUE_FILE: &str = "job_queue.db";

/// The file `open` locks while it sets the store up.
pub const LOCK_FILE: &str = "job_queue.lock";

/// The file that records that this spool has had a queue: a store that is then missing or
/// empty was lost, not never made ([`QueueError::Lost`]).
pub const MARKER_FILE: &str = "job_queue.created";

/// The file that records that SQLite found the store damaged ([`QueueError::Damaged`]): while
/// it exists, the store is read but never written.
pub const DAMAGE_FILE: &str = "job_queue.damaged";

/// How long a writer waits for another process's transaction before giving up. Long enough
/// for a 100,000-job submit by someone else to finish.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// Where the time of a transaction comes from (seconds since the epoch).
pub type Clock = Arc<dyn Fn() -> i64 + Send + Sync>;

fn system_clock() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// An open job queue.
pub struct Queue {
    conn: Connection,
    path: PathBuf,
    clock: Clock,
    /// This connection committed a change (its drop may then fold the log into the file).
    wrote: bool,
    /// What the spool's damage file says, when the store was found damaged.
    damage: Option<String>,
}

/// The change stamps of a job's rows (see [`Queue::stamps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub proc: i64,
    pub cluster: i64,
}

impl Drop for Queue {
    /// After a write, folds a grown write-ahead log into the file and empties it, unless
    /// another connection is using it (the checkpoint does not wait: a daemon's connection
    /// checkpoints on its own as its commits grow the log). A reader leaves it alone.
    fn drop(&mut self) {
        let grown = self.wrote
            && std::fs::metadata(self.wal_path()).is_ok_and(|m| m.len() > schema::CHECKPOINT_AT);
        if grown && self.conn.busy_timeout(Duration::ZERO).is_ok() {
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue").field("path", &self.path).finish()
    }
}

impl Queue {
    /// Opens the queue in `spool_dir` (created if missing), setting the store up or
    /// migrating it to this build's schema as needed.
    pub fn open(spool_dir: impl AsRef<Path>) -> Result<Queue, QueueError> {
        Queue::open_with_timeout(spool_dir, DEFAULT_BUSY_TIMEOUT)
    }

    /// As [`Queue::open`], with another busy timeout.
    pub fn open_with_timeout(
        spool_dir: impl AsRef<Path>,
        busy_timeout: Duration,
    ) -> Result<Queue, QueueError> {
        let dir = spool_dir.as_ref();
        std::fs::create_dir_all(dir).map_err(|source| QueueError::Spool {
            path: dir.to_owned(),
            source,
        })?;
        let path = dir.join(QUEUE_FILE);
        let open_err = |source| QueueError::Open {
            path: path.clone(),
            source,
        };
        // Setting a store up (the switch to WAL, the migrations) is done under a lock file:
        // SQLite answers "database is locked" at once, without waiting, to a process that
        // switches a new file to WAL while another does the same.
        let lock_path = dir.join(LOCK_FILE);
        use std::os::unix::fs::OpenOptionsExt;
        // Only the store's writers open it (mode 0600: in a system pool, a user who could
        // open it could hold the lock and stall the master; readers do not take it).
        let lock = std::fs::File::options()
            .create(true)
            .write(true)
            .truncate(false)
            .mode(0o600)
            .open(&lock_path)
            .and_then(|f| f.lock().map(|()| f))
            .map_err(|source| QueueError::Spool {
                path: lock_path,
                source,
            })?;
        // A store that is missing or empty where the pool had one was lost: opening it would
        // make a new, empty queue of it without a word.
        let marker = dir.join(MARKER_FILE);
        let has_store = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.len() > 0);
        let wal = dir.join(format!("{QUEUE_FILE}-wal"));
        if !has_store(&path) && !has_store(&wal) && marker.exists() {
            return Err(QueueError::Lost { path, marker });
        }
        let mut conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(open_err)?;
        schema::configure(&conn, busy_timeout).map_err(|e| open_error(&path, e))?;
        match schema::migrate(&mut conn).map_err(|e| open_error(&path, e))? {
            schema::Migration::TooNew { found } => {
                return Err(QueueError::TooNew {
                    path,
                    found,
                    supported: schema::CURRENT,
                })
            }
            schema::Migration::UpToDate | schema::Migration::Migrated { .. } => {}
        }
        if !marker.exists() {
            std::fs::write(&marker, b"").map_err(|source| QueueError::Spool {
                path: marker.clone(),
                source,
            })?;
        }
        drop(lock);
        Ok(Queue::opened(conn, path, dir))
    }

    /// Opens the queue of a spool this process may read but not write (a system pool's,
    /// whose master is its only writer): no lock file, no set-up or migration, a read-only
    /// connection (SQLite reads a WAL store read-only when its `-wal` and `-shm` files exist
    /// and are readable, as the master leaves them). Any write through it fails.
    pub fn open_read_only(spool_dir: impl AsRef<Path>) -> Result<Queue, QueueError> {
        let dir = spool_dir.as_ref();
        let path = dir.join(QUEUE_FILE);
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| QueueError::Open {
            path: path.clone(),
            source,
        })?;
        conn.busy_timeout(DEFAULT_BUSY_TIMEOUT)
            .map_err(|e| open_error(&path, e))?;
        let version = schema::user_version(&conn).map_err(|e| open_error(&path, e))?;
        if version != schema::CURRENT {
            return Err(QueueError::NotReadable {
                path,
                found: version,
                supported: schema::CURRENT,
            });
        }
        Ok(Queue::opened(conn, path, dir))
    }

    /// The cluster id the next submit would take, without taking it.
    pub fn peek_next_cluster_id(&mut self) -> Result<ClusterId, QueueError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Deferred)
            .map_err(|e| QueueError::store(&path, e))?;
        let id = schema::take_next_cluster_id(&tx).map_err(|e| QueueError::store(&path, e))?;
        // Rolled back on drop: the counter does not move.
        drop(tx);
        Ok(ClusterId(id.min(i64::from(i32::MAX)) as i32))
    }

    /// An opened connection, with what the spool's damage file says.
    fn opened(conn: Connection, path: PathBuf, dir: &Path) -> Queue {
        let damage = std::fs::read(dir.join(DAMAGE_FILE))
            .ok()
            .map(|text| String::from_utf8_lossy(&text).trim().to_owned());
        Queue {
            conn,
            path,
            clock: Arc::new(system_clock),
            wrote: false,
            damage,
        }
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Gives back the memory the connection's page cache holds (`PRAGMA shrink_memory`): for
    /// a long-lived process that has gone idle.
    pub fn release_memory(&self) -> Result<(), QueueError> {
        self.conn
            .execute_batch("PRAGMA shrink_memory")
            .map_err(|e| QueueError::store(&self.path, e))
    }

    /// The store's write-ahead log (`<file>-wal`), which holds the latest commits.
    pub fn wal_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push("-wal");
        PathBuf::from(name)
    }

    /// Whether this connection's commits are synced to disk before they return (the
    /// default, `synchronous = FULL`), or only written to the write-ahead log
    /// (`synchronous = NORMAL`): then a commit survives the process's crash but not the
    /// system's until the log is synced (by any later durable commit, by a checkpoint, or by
    /// an `fsync` of [`Queue::wal_path`]). Only the daemon, whose own changes can be
    /// recovered, turns it off (the reasoning is in the master's pool, `daemon/pool/mod.rs`).
    pub fn set_durable_commits(&mut self, durable: bool) -> Result<(), QueueError> {
        let mode = if durable { "FULL" } else { "NORMAL" };
        self.conn
            .pragma_update(None, "synchronous", mode)
            .map_err(|e| QueueError::store(&self.path, e))
    }

    /// Replaces the clock that stamps transactions (tests pin it).
    pub fn set_clock(&mut self, clock: impl Fn() -> i64 + Send + Sync + 'static) {
        self.clock = Arc::new(clock);
    }

    /// A number that changes whenever another connection (another process, or another
    /// `Queue` of this one) commits a change to the store (SQLite's `data_version`): a daemon
    /// compares it between steps to notice the tools' changes without reading the queue.
    pub fn data_version(&self) -> Result<i64, QueueError> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| QueueError::store(&self.path, e))
    }

    /// Runs `f` in one write transaction: everything it changes is committed (durably) when
    /// it returns `Ok`, and nothing is when it returns `Err` or panics. Waits for other
    /// writers up to the busy timeout.
    pub fn transaction<T, E>(
        &mut self,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<QueueError>,
    {
        let now = (self.clock)();
        self.transaction_at(now, f)
    }

    /// [`Queue::transaction`] stamped with the time `now` (seconds since the epoch) rather
    /// than the queue's clock: the master's commits record the time of the step that made
    /// them.
    pub fn transaction_at<T, E>(
        &mut self,
        now: i64,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<QueueError>,
    {
        self.refuse_if_damaged()?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| E::from(QueueError::store(&self.path, e)))?;
        let mut tx = Transaction::new(tx, &self.path, now);
        let out = f(&mut tx)?;
        let left = tx.commit()?;
        self.wrote = true;
        if let Some(spool) = self.path.parent() {
            for job in left {
                spool::remove_job_spool(spool, job);
            }
        }
        Ok(out)
    }

    /// Submits one cluster in its own transaction (see [`Transaction::submit`]).
    pub fn submit(
        &mut self,
        cluster_ad: ClassAd,
        procs: impl IntoIterator<Item = ClassAd>,
    ) -> Result<ClusterId, QueueError> {
        self.transaction(|tx| tx.submit(cluster_ad, procs))
    }

    /// One job, if it is in the queue.
    pub fn job(&self, id: JobId) -> Result<Option<Job>, QueueError> {
        query::job(&self.conn, &self.path, id)
    }

    /// The jobs of `ids` that are in the queue, in the order given, read by key from one
    /// snapshot (the jobs of one cluster share its ad).
    pub fn jobs_by_id(&self, ids: impl IntoIterator<Item = JobId>) -> Result<Vec<Job>, QueueError> {
        query::jobs_by_id(&self.conn, &self.path, ids)
    }

    /// The change stamps of every job in `status`, in job-id order: a job whose stamps are
    /// the same as when its ad was read has the same ad (a daemon reads again only what
    /// another process changed). Reads two indexes: the jobs' status index, and every
    /// cluster's stamp.
    pub fn stamps(&self, status: JobStatus) -> Result<Vec<(JobId, Stamp)>, QueueError> {
        let err = |e| QueueError::store(&self.path, e);
        // One snapshot for both reads.
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        let clusters: std::collections::HashMap<i32, i64> = tx
            .prepare_cached("SELECT cluster_id, changed FROM clusters")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()
            })
            .map_err(err)?;
        let mut stmt = tx
            .prepare_cached(
                "SELECT cluster_id, proc_id, changed FROM procs WHERE job_status = ?1
                 ORDER BY cluster_id, proc_id",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map([status.code()], |r| {
                let cluster: i32 = r.get(0)?;
                Ok((
                    JobId {
                        cluster: ClusterId(cluster),
                        proc: r.get(1)?,
                    },
                    Stamp {
                        proc: r.get(2)?,
                        cluster: clusters.get(&cluster).copied().unwrap_or(-1),
                    },
                ))
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// The jobs a query selects, in job-id order, streamed from one consistent snapshot.
    pub fn jobs(&self, q: &JobQuery) -> Result<JobIter<'_>, QueueError> {
        JobIter::new(&self.conn, &self.path, q)
    }

    /// The ids of the jobs a query selects.
    pub fn job_ids(&self, q: &JobQuery) -> Result<Vec<JobId>, QueueError> {
        self.jobs(q)?.map(|j| j.map(|j| j.id())).collect()
    }

    /// How many of the selected jobs are in each state: `(JobStatus number, count)`, in
    /// number order (`condor_q -totals`). Without a constraint no ad is parsed.
    pub fn count_by_status(&self, q: &JobQuery) -> Result<Vec<(i64, u64)>, QueueError> {
        query::count_by_status(&self.conn, &self.path, q)
    }

    /// A cluster ad, if the cluster is in the queue.
    pub fn cluster_ad(&self, id: ClusterId) -> Result<Option<ClassAd>, QueueError> {
        let Some(text) = query::cluster_text(&self.conn, &self.path, id)? else {
            return Ok(None);
        };
        let entry = ClusterEntry::new(id, text);
        entry.ad().cloned().map(Some)
    }

    /// The clusters in the queue, in id order.
    pub fn cluster_ids(&self) -> Result<Vec<ClusterId>, QueueError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT cluster_id FROM clusters ORDER BY cluster_id")
            .map_err(sql_err(&self.path))?;
        let ids = stmt
            .query_map([], |r| r.get(0).map(ClusterId))
            .and_then(|rows| rows.collect());
        ids.map_err(sql_err(&self.path))
    }

    /// The history entries a query selects, newest first or oldest first.
    pub fn history(&self, q: &HistoryQuery) -> Result<HistoryIter<'_>, QueueError> {
        HistoryIter::new(&self.conn, &self.path, q)
    }

    /// Keeps only the `keep` most recent history entries (HTCondor rotates its history file
    /// by size; here the limit is a count). Returns how many were dropped.
    pub fn trim_history(&mut self, keep: u64) -> Result<u64, QueueError> {
        let dropped = self
            .conn
            .execute(
                "DELETE FROM history WHERE seq <= (SELECT seq FROM history
                     ORDER BY seq DESC LIMIT 1 OFFSET ?1)",
                [keep as i64],
            )
            .map_err(sql_err(&self.path))?;
        Ok(dropped as u64)
    }

    /// The full consistency check and repair the daemon runs when it starts (see
    /// `schema::repair`); tools need not call it.
    ///
    /// A store SQLite's check finds damaged is marked so ([`QueueError::Damaged`]) and the
    /// repair stops there: nothing is written to it.
    pub fn repair(&mut self) -> Result<RepairReport, QueueError> {
        self.refuse_if_damaged()?;
        let problems = schema::integrity_problems(&self.conn).map_err(sql_err(&self.path))?;
        if !problems.is_empty() {
            let problem = problems.join("; ");
            let err = QueueError::damaged(&self.path, &problem);
            self.damage = Some(problem);
            return Err(err);
        }
        schema::repair(&mut self.conn).map_err(sql_err(&self.path))
    }

    /// What is known to be wrong with the store's file (the spool's damage file), if
    /// anything: such a store is read, never written.
    pub fn damage(&self) -> Option<&str> {
        self.damage.as_deref()
    }

    fn refuse_if_damaged(&mut self) -> Result<(), QueueError> {
        // Another process (or this one's reads) may have found the damage since the open.
        if self.damage.is_none() {
            let marker = self.path.with_file_name(DAMAGE_FILE);
            if let Ok(text) = std::fs::read(marker) {
                self.damage = Some(String::from_utf8_lossy(&text).trim().to_owned());
            }
        }
        match &self.damage {
            Some(problem) => Err(QueueError::Damaged {
                path: self.path.clone(),
                marker: self.path.with_file_name(DAMAGE_FILE),
                problem: problem.clone(),
            }),
            None => Ok(()),
        }
    }

    /// The schema version of the open store.
    pub fn schema_version(&self) -> Result<i64, QueueError> {
        schema::user_version(&self.conn).map_err(sql_err(&self.path))
    }
}

fn open_error(path: &Path, e: rusqlite::Error) -> QueueError {
    match QueueError::store(path, e) {
        QueueError::Store { path, source } => QueueError::Open { path, source },
        other => other,
    }
}

#[cfg(test)]
mod tests;
