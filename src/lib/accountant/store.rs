//! Where the accountant's records live: a small trait ([`AccountantStore`]) with two
//! implementations, SQLite in the spool directory ([`SqliteStore`]) and memory
//! ([`MemoryStore`], for tests and simulations).
//!
//! A change reaches the store as a [`Batch`]: the records and fields that differ between two
//! states, applied as one transaction. Only the fields that changed are written, so that a
//! `condor_userprio -setfactor` committed by another process between two negotiation cycles is
//! not overwritten by the daemon's next priority update (which changes `Priority`, not
//! `PriorityFactor`).
//!
//! The SQLite schema: `customer` (one row per customer, one column per record field),
//! `resource` (one row per match), `group_quota` (the groups' quotas as the last negotiation
//! cycle computed them) and `meta` (`last_update_time`, `schema_version`). WAL mode and
//! a busy timeout let the daemon and the tools use the file at once.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::{AccountantState, CustomerRecord, GroupQuota, ResourceRecord};

/// The schema this code writes.
pub const SCHEMA_VERSION: i64 = 1;

/// A store that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("accountant database {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("accountant database {path}: schema version {found} is newer than this program's ({SCHEMA_VERSION})")]
    Version { path: PathBuf, found: i64 },
}

/// Somewhere to keep the accountant's records.
pub trait AccountantStore: Send {
    /// Reads every record.
    fn load(&mut self) -> Result<AccountantState, StoreError>;
    /// Applies `batch` as one transaction.
    fn apply(&mut self, batch: &Batch) -> Result<(), StoreError>;
    /// Whether another writer (`condor_userprio`) may have changed the records since the
    /// last successful [`AccountantStore::load`]: `false` only when it certainly has not.
    fn changed_elsewhere(&mut self) -> Result<bool, StoreError> {
        Ok(true)
    }
}

/// One field of a customer record, with its new value.
#[derive(Clone, Debug, PartialEq)]
pub enum CustomerField {
    Priority(f64),
    PriorityFactor(Option<f64>),
    ResourcesUsed(i64),
    WeightedResourcesUsed(f64),
    HierWeightedResourcesUsed(f64),
    UnchargedTime(i64),
    WeightedUnchargedTime(f64),
    AccumulatedUsage(f64),
    WeightedAccumulatedUsage(f64),
    BeginUsageTime(i64),
    LastUsageTime(i64),
    Ceiling(i64),
    Floor(i64),
}

impl CustomerField {
    /// The fields of `new` that differ from `old` (all of them when there was no `old`).
    fn changes(old: Option<&CustomerRecord>, new: &CustomerRecord) -> Vec<CustomerField> {
        let base = CustomerRecord::default();
        let old = old.unwrap_or(&base);
        let mut out = Vec::new();
        macro_rules! field {
            ($f:ident, $v:ident) => {
                if old.$f != new.$f {
                    out.push(CustomerField::$v(new.$f));
                }
            };
        }
        field!(priority, Priority);
        field!(priority_factor, PriorityFactor);
        field!(resources_used, ResourcesUsed);
        field!(weighted_resources_used, WeightedResourcesUsed);
        field!(hier_weighted_resources_used, HierWeightedResourcesUsed);
        field!(uncharged_time, UnchargedTime);
        field!(weighted_uncharged_time, WeightedUnchargedTime);
        field!(accumulated_usage, AccumulatedUsage);
        field!(weighted_accumulated_usage, WeightedAccumulatedUsage);
        field!(begin_usage_time, BeginUsageTime);
        field!(last_usage_time, LastUsageTime);
        field!(ceiling, Ceiling);
        field!(floor, Floor);
        out
    }

    fn apply(&self, r: &mut CustomerRecord) {
        match *self {
            CustomerField::Priority(v) => r.priority = v,
            CustomerField::PriorityFactor(v) => r.priority_factor = v,
            CustomerField::ResourcesUsed(v) => r.resources_used = v,
            CustomerField::WeightedResourcesUsed(v) => r.weighted_resources_used = v,
            CustomerField::HierWeightedResourcesUsed(v) => r.hier_weighted_resources_used = v,
            CustomerField::UnchargedTime(v) => r.uncharged_time = v,
            CustomerField::WeightedUnchargedTime(v) => r.weighted_uncharged_time = v,
            CustomerField::AccumulatedUsage(v) => r.accumulated_usage = v,
            CustomerField::WeightedAccumulatedUsage(v) => r.weighted_accumulated_usage = v,
            CustomerField::BeginUsageTime(v) => r.begin_usage_time = v,
            CustomerField::LastUsageTime(v) => r.last_usage_time = v,
            CustomerField::Ceiling(v) => r.ceiling = v,
            CustomerField::Floor(v) => r.floor = v,
        }
    }

    fn column(&self) -> &'static str {
        match self {
            CustomerField::Priority(_) => "priority",
            CustomerField::PriorityFactor(_) => "priority_factor",
            CustomerField::ResourcesUsed(_) => "resources_used",
            CustomerField::WeightedResourcesUsed(_) => "weighted_resources_used",
            CustomerField::HierWeightedResourcesUsed(_) => "hier_weighted_resources_used",
            CustomerField::UnchargedTime(_) => "uncharged_time",
            CustomerField::WeightedUnchargedTime(_) => "weighted_uncharged_time",
            CustomerField::AccumulatedUsage(_) => "accumulated_usage",
            CustomerField::WeightedAccumulatedUsage(_) => "weighted_accumulated_usage",
            CustomerField::BeginUsageTime(_) => "begin_usage_time",
            CustomerField::LastUsageTime(_) => "last_usage_time",
            CustomerField::Ceiling(_) => "ceiling",
            CustomerField::Floor(_) => "floor",
        }
    }

    fn sql_value(&self) -> rusqlite::types::Value {
        use rusqlite::types::Value as V;
        match *self {
            CustomerField::PriorityFactor(None) => V::Null,
            CustomerField::PriorityFactor(Some(v))
            | CustomerField::Priority(v)
            | CustomerField::WeightedResourcesUsed(v)
            | CustomerField::HierWeightedResourcesUsed(v)
            | CustomerField::WeightedUnchargedTime(v)
            | CustomerField::AccumulatedUsage(v)
            | CustomerField::WeightedAccumulatedUsage(v) => V::Real(v),
            CustomerField::ResourcesUsed(v)
            | CustomerField::UnchargedTime(v)
            | CustomerField::BeginUsageTime(v)
            | CustomerField::LastUsageTime(v)
            | CustomerField::Ceiling(v)
            | CustomerField::Floor(v) => V::Integer(v),
        }
    }
}

/// A change to a customer record.
#[derive(Clone, Debug, PartialEq)]
pub enum CustomerChange {
    /// Create the record if it does not exist, then set these fields.
    Update(String, Vec<CustomerField>),
    Delete(String),
}

/// A change to a match record.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceChange {
    Put(String, ResourceRecord),
    Delete(String),
}

/// Everything one transaction changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub last_update_time: Option<i64>,
    pub customers: Vec<CustomerChange>,
    pub resources: Vec<ResourceChange>,
    /// The group quotas, replaced as a whole when they changed.
    pub group_quotas: Option<Vec<(String, GroupQuota)>>,
}

impl Batch {
    /// What turns `old` into `new`.
    pub fn diff(old: &AccountantState, new: &AccountantState) -> Batch {
        let mut batch = Batch {
            last_update_time: (old.last_update_time != new.last_update_time)
                .then_some(new.last_update_time),
            ..Batch::default()
        };
        for (name, record) in &new.customers {
            let before = old.customers.get(name);
            let fields = CustomerField::changes(before, record);
            if before.is_none() || !fields.is_empty() {
                batch
                    .customers
                    .push(CustomerChange::Update(name.clone(), fields));
            }
        }
        for name in old.customers.keys() {
            if !new.customers.contains_key(name) {
                batch.customers.push(CustomerChange::Delete(name.clone()));
            }
        }
        for (name, record) in &new.resources {
            if old.resources.get(name) != Some(record) {
                batch
                    .resources
                    .push(ResourceChange::Put(name.clone(), record.clone()));
            }
        }
        for name in old.resources.keys() {
            if !new.resources.contains_key(name) {
                batch.resources.push(ResourceChange::Delete(name.clone()));
            }
        }
        if old.group_quotas != new.group_quotas {
            batch.group_quotas = Some(
                new.group_quotas
                    .iter()
                    .map(|(n, q)| (n.clone(), q.clone()))
                    .collect(),
            );
        }
        batch
    }

    pub fn is_empty(&self) -> bool {
        self.last_update_time.is_none()
            && self.customers.is_empty()
            && self.resources.is_empty()
            && self.group_quotas.is_none()
    }

    /// Applies the batch to a state in memory.
    pub fn apply_to(&self, state: &mut AccountantState) {
        if let Some(t) = self.last_update_time {
            state.last_update_time = t;
        }
        for change in &self.customers {
            match change {
                CustomerChange::Update(name, fields) => {
                    let r = state.customers.entry(name.clone()).or_default();
                    for f in fields {
                        f.apply(r);
                    }
                }
                CustomerChange::Delete(name) => {
                    state.customers.remove(name);
                }
            }
        }
        for change in &self.resources {
            match change {
                ResourceChange::Put(name, r) => {
                    state.resources.insert(name.clone(), r.clone());
                }
                ResourceChange::Delete(name) => {
                    state.resources.remove(name);
                }
            }
        }
        if let Some(q) = &self.group_quotas {
            state.group_quotas = q.iter().cloned().collect();
        }
    }
}

/// Records kept in memory.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    state: AccountantState,
    /// How many transactions were applied (tests check one per update).
    pub transactions: usize,
}

impl MemoryStore {
    pub fn with_state(state: AccountantState) -> MemoryStore {
        MemoryStore {
            state,
            transactions: 0,
        }
    }
}

impl AccountantStore for MemoryStore {
    fn load(&mut self) -> Result<AccountantState, StoreError> {
        let mut s = self.state.clone();
        s.limits.clear();
        Ok(s)
    }

    fn apply(&mut self, batch: &Batch) -> Result<(), StoreError> {
        batch.apply_to(&mut self.state);
        self.transactions += 1;
        Ok(())
    }
}

/// Records kept in an SQLite database.
pub struct SqliteStore {
    path: PathBuf,
    conn: Connection,
    /// SQLite's `data_version` when the last successful load began.
    seen_version: Option<i64>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS customer (
    name TEXT PRIMARY KEY,
    priority REAL NOT NULL DEFAULT 0.5,
    priority_factor REAL,
    resources_used INTEGER NOT NULL DEFAULT 0,
    weighted_resources_used REAL NOT NULL DEFAULT 0,
    hier_weighted_resources_used REAL NOT NULL DEFAULT 0,
    uncharged_time INTEGER NOT NULL DEFAULT 0,
    weighted_uncharged_time REAL NOT NULL DEFAULT 0,
    accumulated_usage REAL NOT NULL DEFAULT 0,
    weighted_accumulated_usage REAL NOT NULL DEFAULT 0,
    begin_usage_time INTEGER NOT NULL DEFAULT 0,
    last_usage_time INTEGER NOT NULL DEFAULT 0,
    ceiling INTEGER NOT NULL DEFAULT -1,
    floor INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS group_quota (
    name TEXT PRIMARY KEY,
    effective_quota REAL NOT NULL,
    subtree_quota REAL NOT NULL,
    sort_key REAL NOT NULL,
    requested REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS resource (
    name TEXT PRIMARY KEY,
    remote_user TEXT NOT NULL,
    slot_weight REAL NOT NULL,
    start_time INTEGER NOT NULL,
    matched_concurrency_limits TEXT,
    num_cp_matches INTEGER
);
";

impl SqliteStore {
    /// Opens the database at `path`, creating it (and its directory) if needed.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let conn = Connection::open(&path).map_err(err)?;
        conn.busy_timeout(Duration::from_secs(60)).map_err(err)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(err)?;
        conn.execute_batch(SCHEMA).map_err(err)?;
        let version: Option<i64> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        match version {
            Some(v) if v > SCHEMA_VERSION => {
                return Err(StoreError::Version { path, found: v });
            }
            Some(_) => {}
            None => {
                conn.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?1)",
                    params![SCHEMA_VERSION],
                )
                .map_err(err)?;
            }
        }
        Ok(SqliteStore {
            path,
            conn,
            seen_version: None,
        })
    }

    /// Opens an existing database for reading only (`condor_userprio` without edits); `None`
    /// when there is no database yet.
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Option<SqliteStore>, StoreError> {
        if !path.as_ref().exists() {
            return Ok(None);
        }
        SqliteStore::open(path).map(Some)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every record, as stored.
    fn read_all(&self) -> Result<AccountantState, StoreError> {
        let err = self.err();
        let mut state = AccountantState {
            last_update_time: self
                .conn
                .query_row(
                    "SELECT value FROM meta WHERE key = 'last_update_time'",
                    [],
                    |r| r.get(0),
                )
                .optional()
                .map_err(&err)?
                .unwrap_or(0),
            ..AccountantState::default()
        };
        let mut stmt = self
            .conn
            .prepare(
                "SELECT name, priority, priority_factor, resources_used, weighted_resources_used,
                        hier_weighted_resources_used, uncharged_time, weighted_uncharged_time,
                        accumulated_usage, weighted_accumulated_usage, begin_usage_time,
                        last_usage_time, ceiling, floor FROM customer",
            )
            .map_err(&err)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    CustomerRecord {
                        priority: r.get(1)?,
                        priority_factor: r.get(2)?,
                        resources_used: r.get(3)?,
                        weighted_resources_used: r.get(4)?,
                        hier_weighted_resources_used: r.get(5)?,
                        uncharged_time: r.get(6)?,
                        weighted_uncharged_time: r.get(7)?,
                        accumulated_usage: r.get(8)?,
                        weighted_accumulated_usage: r.get(9)?,
                        begin_usage_time: r.get(10)?,
                        last_usage_time: r.get(11)?,
                        ceiling: r.get(12)?,
                        floor: r.get(13)?,
                    },
                ))
            })
            .map_err(&err)?;
        for row in rows {
            let (name, record) = row.map_err(&err)?;
            state.customers.insert(name, record);
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT name, remote_user, slot_weight, start_time, matched_concurrency_limits,
                        num_cp_matches FROM resource",
            )
            .map_err(&err)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    ResourceRecord {
                        remote_user: r.get(1)?,
                        slot_weight: r.get(2)?,
                        start_time: r.get(3)?,
                        matched_concurrency_limits: r.get(4)?,
                        num_cp_matches: r.get(5)?,
                    },
                ))
            })
            .map_err(&err)?;
        for row in rows {
            let (name, record) = row.map_err(&err)?;
            state.resources.insert(name, record);
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT name, effective_quota, subtree_quota, sort_key, requested FROM group_quota",
            )
            .map_err(&err)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    GroupQuota {
                        effective_quota: r.get(1)?,
                        subtree_quota: r.get(2)?,
                        sort_key: r.get(3)?,
                        requested: r.get(4)?,
                    },
                ))
            })
            .map_err(&err)?;
        for row in rows {
            let (name, q) = row.map_err(&err)?;
            state.group_quotas.insert(name, q);
        }
        Ok(state)
    }

    /// SQLite's `data_version`: it changes when another connection commits, not with this
    /// one's writes.
    fn data_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(self.err())
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }
}

impl AccountantStore for SqliteStore {
    fn changed_elsewhere(&mut self) -> Result<bool, StoreError> {
        Ok(self.seen_version != Some(self.data_version()?))
    }

    fn load(&mut self) -> Result<AccountantState, StoreError> {
        // Taken first: a write that lands during the read shows at the next check.
        let version = self.data_version()?;
        let state = self.read_all()?;
        self.seen_version = Some(version);
        Ok(state)
    }

    fn apply(&mut self, batch: &Batch) -> Result<(), StoreError> {
        let path = self.path.clone();
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        if let Some(t) = batch.last_update_time {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('last_update_time', ?1)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![t],
            )
            .map_err(err)?;
        }
        for change in &batch.customers {
            match change {
                CustomerChange::Update(name, fields) => {
                    tx.execute(
                        "INSERT OR IGNORE INTO customer (name) VALUES (?1)",
                        params![name],
                    )
                    .map_err(err)?;
                    for f in fields {
                        let sql =
                            format!("UPDATE customer SET {} = ?1 WHERE name = ?2", f.column());
                        tx.prepare_cached(&sql)
                            .and_then(|mut s| s.execute(params![f.sql_value(), name]))
                            .map_err(err)?;
                    }
                }
                CustomerChange::Delete(name) => {
                    tx.execute("DELETE FROM customer WHERE name = ?1", params![name])
                        .map_err(err)?;
                }
            }
        }
        for change in &batch.resources {
            match change {
                ResourceChange::Put(name, r) => {
                    tx.execute(
                        "INSERT INTO resource (name, remote_user, slot_weight, start_time,
                                               matched_concurrency_limits, num_cp_matches)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                         ON CONFLICT (name) DO UPDATE SET remote_user = excluded.remote_user,
                            slot_weight = excluded.slot_weight, start_time = excluded.start_time,
                            matched_concurrency_limits = excluded.matched_concurrency_limits,
                            num_cp_matches = excluded.num_cp_matches",
                        params![
                            name,
                            r.remote_user,
                            r.slot_weight,
                            r.start_time,
                            r.matched_concurrency_limits,
                            r.num_cp_matches
                        ],
                    )
                    .map_err(err)?;
                }
                ResourceChange::Delete(name) => {
                    tx.execute("DELETE FROM resource WHERE name = ?1", params![name])
                        .map_err(err)?;
                }
            }
        }
        if let Some(quotas) = &batch.group_quotas {
            tx.execute("DELETE FROM group_quota", []).map_err(err)?;
            for (name, q) in quotas {
                tx.execute(
                    "INSERT INTO group_quota (name, effective_quota, subtree_quota, sort_key, requested)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![name, q.effective_quota, q.subtree_quota, q.sort_key, q.requested],
                )
                .map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }
}
