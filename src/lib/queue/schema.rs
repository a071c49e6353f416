//! The store's schema, its versions and the steps between them, the connection settings, and
//! the repair pass.
//!
//! The schema version is SQLite's `PRAGMA user_version`: 0 for a new file, [`CURRENT`] once
//! set up. Opening runs every migration from the file's version up to [`CURRENT`], in one
//! `BEGIN IMMEDIATE` transaction, so that several processes opening a new spool at once set
//! it up exactly once, and a crash part-way leaves the old version intact. A file from a
//! newer condorlite (a version above [`CURRENT`]) is refused rather than guessed at. To change
//! the schema: append a step to [`MIGRATIONS`] and never edit a published one.

use rusqlite::config::DbConfig;
use rusqlite::Connection;

/// The schema version this build writes.
pub const CURRENT: i64 = 3;

/// `MIGRATIONS[n]` takes a store from version `n` to `n + 1`.
pub const MIGRATIONS: [&str; CURRENT as usize] = [V1, V2, V3];

/// Version 1.
///
/// - `meta`: store-wide counters; `next_cluster_id` is HTCondor's `NextClusterNum` (ids are
///   never reused, not even after their jobs leave the queue).
/// - `clusters`: one row per cluster, its ad stored once (not copied into every proc); the
///   `Owner` attribute is copied to `owner` (NULL when the ad has none), which `Owner == "x"`
///   queries use. `NOCASE`, because ClassAd `==` ignores case in strings.
/// - `procs`: one row per job, holding the proc ad's own attributes only (what differs from
///   the cluster ad). `ProcId` and `JobStatus` live only in their columns. `qdate` and
///   `entered_current_status` are the job's effective values (its own, else its cluster's);
///   `own_mask` says which of them the proc ad sets itself (1: QDate, 2:
///   EnteredCurrentStatus), so that a cluster-level edit updates only the procs that inherit
///   it. Without rowid: the key is the order every query reads in.
/// - `history`: jobs that left the queue, one flat ad each (cluster and proc attributes
///   merged, as HTCondor's history file has them), in the order they left (`seq`).
const V1: &str = "
CREATE TABLE meta (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (name, value) VALUES ('next_cluster_id', 1);

CREATE TABLE clusters (
    cluster_id INTEGER PRIMARY KEY,
    owner      TEXT COLLATE NOCASE,
    ad         TEXT NOT NULL
);
CREATE INDEX clusters_by_owner ON clusters (owner);

CREATE TABLE procs (
    cluster_id             INTEGER NOT NULL REFERENCES clusters (cluster_id),
    proc_id                INTEGER NOT NULL,
    job_status             INTEGER NOT NULL,
    qdate                  INTEGER,
    entered_current_status INTEGER,
    own_mask               INTEGER NOT NULL DEFAULT 0,
    ad                     TEXT NOT NULL,
    PRIMARY KEY (cluster_id, proc_id)
) WITHOUT ROWID;
CREATE INDEX procs_by_status ON procs (job_status);
CREATE INDEX procs_by_entered_current_status ON procs (entered_current_status);

CREATE TABLE history (
    seq                    INTEGER PRIMARY KEY,
    cluster_id             INTEGER NOT NULL,
    proc_id                INTEGER NOT NULL,
    owner                  TEXT COLLATE NOCASE,
    job_status             INTEGER,
    qdate                  INTEGER,
    entered_current_status INTEGER,
    completion_date        INTEGER,
    ad                     TEXT NOT NULL
);
CREATE INDEX history_by_job ON history (cluster_id, proc_id);
CREATE INDEX history_by_owner ON history (owner);
";

/// Version 2: change stamps, so that a daemon can tell which jobs another process changed
/// without reading every ad.
///
/// - `meta.change_seq` counts the transactions that changed a proc or cluster row.
/// - `procs.changed` and `clusters.changed`: the `change_seq` of the transaction that last
///   updated the row (0 for a row as inserted: ids are never reused, so a new row is new by
///   its id). A job's ad is unchanged while both its proc's and its cluster's stamps are.
/// - `procs_by_status` also holds `changed`, after the job id (a status's jobs stay in id
///   order, as paged queries read them), and `clusters_by_changed` holds the clusters'
///   stamps: the daemon's scan of the idle jobs' stamps reads the two indexes alone.
const V2: &str = "
ALTER TABLE procs ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clusters ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
INSERT INTO meta (name, value) VALUES ('change_seq', 0);
DROP INDEX procs_by_status;
CREATE INDEX procs_by_status ON procs (job_status, cluster_id, proc_id, changed);
CREATE INDEX clusters_by_changed ON clusters (changed);
";

/// Version 3: late materialization (job factories).
///
/// - `factories`: one row per cluster submitted as a job factory: how many procs its queue
///   statement selects (`total_procs`), whether `condor_rm` removed it (HTCondor's
///   `mmClusterRemoved`, which its schedd keeps in memory only), and the submit digest (the
///   description and everything needed to make any of its jobs again, JSON). The cluster's
///   progress (`JobMaterializeNextProcId`, `JobMaterializeNextRow`) is in its cluster ad, so
///   that a materialization commits its procs and its progress in one transaction. A cluster
///   with a factory row stays in the queue while it has no procs, until the factory is done.
const V3: &str = "
CREATE TABLE factories (
    cluster_id  INTEGER PRIMARY KEY REFERENCES clusters (cluster_id),
    total_procs INTEGER NOT NULL,
    removed     INTEGER NOT NULL DEFAULT 0,
    digest      TEXT NOT NULL
);
";

/// Moves `change_seq` on and returns it: the stamp of this transaction's row updates.
pub fn next_change_stamp(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "UPDATE meta SET value = value + 1 WHERE name = 'change_seq' RETURNING value",
        [],
        |r| r.get(0),
    )
}

/// `own_mask` bits.
pub const OWN_QDATE: i64 = 1;
pub const OWN_ENTERED_CURRENT_STATUS: i64 = 2;

/// The settings every connection needs; they are per connection, not stored in the file
/// (except the journal mode, which sticks once set).
///
/// Durability: `synchronous = FULL`. In WAL mode, `NORMAL` would skip the fsync of the WAL at
/// each commit and sync only at checkpoints: safe against a process crash, but a power loss
/// or kernel panic could then lose the last transactions *after* `condor_submit` printed
/// "submitted". Acknowledged must mean durable, so every commit is synced (one fsync per
/// transaction, which is why a submit of many procs is one transaction).
///
/// Page cache: 32 MiB at most (SQLite's default is 2 MiB). A 100,000-proc submit writes
/// about 12 MiB of table and index pages in one transaction; with the default cache they
/// spill to the WAL and are read back, which measured 40% slower. The cache fills only as
/// pages are used, so a tool that reads little stays small, and a stream over a million jobs
/// stays within the bound.
pub fn configure(conn: &Connection, busy_timeout: std::time::Duration) -> rusqlite::Result<()> {
    conn.busy_timeout(busy_timeout)?;
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            // A file system without shared memory for the WAL index: SQLite keeps the old
            // mode, which is still transactional, only less concurrent.
        }
    }
    conn.execute_batch(
        "PRAGMA synchronous = FULL;
         PRAGMA foreign_keys = ON;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -32768;
         PRAGMA cell_size_check = ON;",
    )?;
    // The log stays between connections (SQLite deletes it only after the checkpoint a last
    // connection makes at close): without this, every tool that is the store's only user (no
    // daemon running) would copy its commit into the file, sync it, delete the log and its
    // index, and the next one would create and sync them again: five `fsync`s for a one-job
    // submit where one makes it durable. [`super::Queue`]'s drop checkpoints instead, after
    // a write, once the log has grown past [`CHECKPOINT_AT`], which bounds what the next
    // process alone on the store reads back to rebuild the log's index.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    Ok(())
}

/// The size of the write-ahead log past which a closing connection folds it into the file
/// (64 pages: about eight one-job submits).
pub const CHECKPOINT_AT: u64 = 64 * 4096;

/// What [`migrate`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Migration {
    UpToDate,
    Migrated { from: i64 },
    TooNew { found: i64 },
}

/// Brings the store to [`CURRENT`].
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<Migration> {
    let version = user_version(conn)?;
    if version == CURRENT {
        return Ok(Migration::UpToDate);
    }
    if !(0..CURRENT).contains(&version) {
        return Ok(Migration::TooNew { found: version });
    }
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    // Another process may have migrated while this one waited for the lock.
    let from = user_version(&tx)?;
    if !(0..=CURRENT).contains(&from) {
        return Ok(Migration::TooNew { found: from });
    }
    for step in &MIGRATIONS[from as usize..] {
        tx.execute_batch(step)?;
    }
    tx.pragma_update(None, "user_version", CURRENT)?;
    tx.commit()?;
    Ok(if from == CURRENT {
        Migration::UpToDate
    } else {
        Migration::Migrated { from }
    })
}

pub fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// What [`repair`] found and fixed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepairReport {
    /// Clusters that had no jobs left and no job factory, removed (HTCondor drops such
    /// clusters too).
    pub empty_clusters_removed: u64,
    /// Whether the next cluster id was behind an id already used, and was moved past it.
    pub next_cluster_id_fixed: bool,
}

impl RepairReport {
    pub fn is_clean(&self) -> bool {
        *self == RepairReport::default()
    }
}

/// SQLite's own check of the file's structure (`PRAGMA quick_check`: every page, every
/// record's format, every index's order, without matching indexes against their tables):
/// what it finds, empty when the file is sound. Its cost grows with the store, which is why
/// the daemon runs it when it starts and `open` does not.
pub fn integrity_problems(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("PRAGMA quick_check")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let mut problems = Vec::new();
    for row in rows {
        let row = row?;
        if row != "ok" {
            problems.push(row);
        }
    }
    Ok(problems)
}

/// The repairs the daemon makes when it starts, after [`integrity_problems`] found the file
/// sound (every tool's `open` already gets SQLite's own crash recovery: a transaction a crash
/// interrupted is rolled back from the WAL, and every change the store makes is one
/// transaction, so there is nothing half-done to find). This pass looks for what only a
/// foreign writer could leave: clusters without jobs, and a next cluster id at or below one
/// already used.
pub fn repair(conn: &mut Connection) -> rusqlite::Result<RepairReport> {
    let mut report = RepairReport::default();
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    report.empty_clusters_removed = tx.execute(
        "DELETE FROM clusters WHERE NOT EXISTS
             (SELECT 1 FROM procs WHERE procs.cluster_id = clusters.cluster_id)
           AND NOT EXISTS
             (SELECT 1 FROM factories WHERE factories.cluster_id = clusters.cluster_id)",
        [],
    )? as u64;
    let stored = next_cluster_id_stored(&tx)?;
    let needed = next_cluster_id_needed(&tx)?;
    if needed > stored {
        set_next_cluster_id(&tx, needed)?;
        report.next_cluster_id_fixed = true;
    }
    tx.commit()?;
    Ok(report)
}

pub fn next_cluster_id_stored(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT value FROM meta WHERE name = 'next_cluster_id'",
        [],
        |r| r.get(0),
    )
}

/// One past the highest cluster id in the queue or the history (two index look-ups).
pub fn next_cluster_id_needed(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT max(coalesce((SELECT max(cluster_id) FROM clusters), 0),
                    coalesce((SELECT max(cluster_id) FROM history), 0)) + 1",
        [],
        |r| r.get(0),
    )
}

/// Takes the next cluster id (the stored counter, moved past any id already in the queue or
/// the history) and moves the counter past it, in one statement.
pub fn take_next_cluster_id(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "UPDATE meta SET value = max(value,
                coalesce((SELECT max(cluster_id) FROM clusters), 0) + 1,
                coalesce((SELECT max(cluster_id) FROM history), 0) + 1) + 1
         WHERE name = 'next_cluster_id'
         RETURNING value - 1",
    )?
    .query_row([], |r| r.get(0))
}

pub fn set_next_cluster_id(conn: &Connection, next: i64) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE name = 'next_cluster_id'",
        [next],
    )?;
    Ok(())
}
