//! How the queue store fails: one error type, [`QueueError`], whose variants carry the job,
//! cluster or file they are about, so that a tool can print one clear line.

use std::path::PathBuf;

use super::id::{AdKey, ClusterId, JobId};

/// Why a queue operation failed.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// The spool directory could not be created or used.
    #[error("cannot use the spool directory {path}: {source}")]
    Spool {
        path: PathBuf,
        source: std::io::Error,
    },

    /// The store could not be opened or set up (not a database, permissions, ...).
    #[error("cannot open the job queue {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },

    /// The store was written by a newer condorlite, whose schema this one does not know.
    #[error(
        "the job queue {path} has schema version {found}, newer than this condorlite \
         understands ({supported}); use a newer condorlite"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    /// A store this process may only read is not at this build's schema version (only its
    /// master sets a store up or migrates it).
    #[error(
        "the job queue {path} has schema version {found}, not {supported}: only the pool's \
         condor_master may set it up or migrate it (is it running, and of this condorlite?)"
    )]
    NotReadable {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    /// The store is missing or empty, but the pool had one (its marker file says so): it
    /// was lost or truncated, and is not silently replaced by an empty queue.
    #[error(
        "the job queue {path} is missing or empty, but this pool had one ({marker} records \
         it): the queue was lost or damaged, and nothing will be written to it. The job \
         event logs are kept elsewhere (the history was in this file); restore the file from a \
         backup, or remove {marker} to start a new, empty queue"
    )]
    Lost { path: PathBuf, marker: PathBuf },

    /// SQLite found the store's file damaged (the daemon's check when it starts, or a page
    /// read by any tool): the damage file records it, and nothing is written to the store
    /// until someone has dealt with it.
    #[error(
        "the job queue {path} is damaged ({problem}); nothing will be written to it \
         ({marker} records the damage). The job event logs are kept elsewhere. Stop \
         condor_master, then restore the file from a backup, or move it and its -wal and -shm \
         files aside and remove {marker} and {created} to start a new, empty queue (the old \
         file keeps the jobs and the history for reading)",
        created = path.with_file_name(super::MARKER_FILE).display()
    )]
    Damaged {
        path: PathBuf,
        marker: PathBuf,
        problem: String,
    },

    /// Another process held the store locked for longer than the busy timeout.
    #[error("the job queue {path} stayed locked by another process for too long")]
    Busy { path: PathBuf },

    /// Any other failure of the database underneath.
    #[error("job queue {path}: {source}")]
    Store {
        path: PathBuf,
        source: rusqlite::Error,
    },

    #[error("job {0} not found")]
    JobNotFound(JobId),

    #[error("cluster {0} not found")]
    ClusterNotFound(ClusterId),

    /// A cluster cannot hold more procs: their ids would pass the largest `ProcId`.
    #[error("cluster {0} is full: no proc id is left after {max}", max = i32::MAX)]
    ClusterFull(ClusterId),

    /// A stored ad no longer parses: the store was damaged or written by something else.
    #[error("{key}: the stored ad is damaged: {message}")]
    DamagedAd { key: AdKey, message: String },

    /// An ad whose stored text could not be read back (an expression nested deeper than the
    /// parser reads): refused, so that what the store accepts it can always read.
    #[error("{key}: {attr} cannot be stored: {message}")]
    Unstorable {
        key: AdKey,
        attr: String,
        message: String,
    },

    /// An attribute the store manages itself (`ClusterId`, `ProcId`) was set to another value
    /// or deleted; HTCondor's schedd refuses the same.
    #[error("{key}: setting {attr} to a new value is not permitted")]
    ProtectedAttribute { key: AdKey, attr: &'static str },

    /// An attribute the store indexes was given a value of the wrong kind (`JobStatus` must be
    /// an integer, `Owner` a string, ...).
    #[error("{key}: {attr} must be {expected}")]
    BadAttributeValue {
        key: AdKey,
        attr: &'static str,
        expected: &'static str,
    },

    /// An attribute name that no ClassAd can hold.
    #[error("{key}: invalid attribute name '{name}'")]
    BadAttributeName { key: AdKey, name: String },

    /// The JobStatus change is one HTCondor forbids (a removed job may only be held or
    /// removed again).
    #[error("changing JobStatus of removed job {job} to {to} is invalid")]
    RemovedJobStatus { job: JobId, to: i64 },

    /// Only completed or removed jobs leave the queue for the history.
    #[error("job {job} is neither completed nor removed (JobStatus {status}): it cannot leave the queue")]
    NotFinished { job: JobId, status: i64 },

    /// A submit must queue at least one proc.
    #[error("cluster {0}: a submit must queue at least one job")]
    EmptySubmit(ClusterId),

    /// Procs were added to a cluster that is not being submitted in this transaction.
    #[error("cluster {0} was not created in this transaction")]
    NotNewCluster(ClusterId),

    /// A job factory's procs were made from another `JobMaterializeNextProcId` than the
    /// cluster has (another materialization got there first).
    #[error("cluster {cluster}: the job factory is at proc {found:?}, not {expected}")]
    FactoryMoved {
        cluster: ClusterId,
        expected: i64,
        found: Option<i64>,
    },

    /// Cluster ids are 32-bit, as HTCondor's are.
    #[error("no cluster ids are left (the next would be {0})")]
    ClusterIdsExhausted(i64),
}

impl QueueError {
    /// Whether the error is a rule about one job or cluster (a forbidden change, a missing
    /// job), as opposed to the store failing: a daemon skips that job and goes on.
    pub fn is_job_rule(&self) -> bool {
        matches!(
            self,
            QueueError::JobNotFound(_)
                | QueueError::ClusterNotFound(_)
                | QueueError::DamagedAd { .. }
                | QueueError::ProtectedAttribute { .. }
                | QueueError::BadAttributeValue { .. }
                | QueueError::BadAttributeName { .. }
                | QueueError::RemovedJobStatus { .. }
                | QueueError::NotFinished { .. }
        )
    }

    /// The store at `path` is damaged: records it in the spool's damage file (once: the first
    /// finding is kept), so that every later writer refuses, and says so.
    pub(crate) fn damaged(path: &std::path::Path, problem: &str) -> Self {
        let marker = path.with_file_name(super::DAMAGE_FILE);
        if !marker.exists() {
            // Best effort (the error is reported either way), whole or not at all.
            let tmp = marker.with_extension("damaged.tmp");
            if std::fs::write(&tmp, format!("{problem}\n")).is_ok() {
                let _ = std::fs::rename(&tmp, &marker);
            }
        }
        QueueError::Damaged {
            path: path.to_owned(),
            marker,
            problem: problem.to_owned(),
        }
    }

    /// Wraps a database error, telling a lock timeout apart from other failures.
    pub(crate) fn store(path: &std::path::Path, source: rusqlite::Error) -> Self {
        if let rusqlite::Error::SqliteFailure(e, _) = &source {
            if matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
            ) {
                return QueueError::Busy {
                    path: path.to_owned(),
                };
            }
            if matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase
            ) {
                return QueueError::damaged(path, &source.to_string());
            }
        }
        QueueError::Store {
            path: path.to_owned(),
            source,
        }
    }
}

/// A job-id argument that HTCondor's job-action tools (`condor_rm`, `condor_hold`,
/// `condor_release`, ...) refuse. The messages are theirs, word for word (rm.cpp `procArg`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JobIdError {
    #[error("Invalid cluster # from {0}.")]
    InvalidCluster(String),
    #[error("Invalid proc # from {0}.")]
    InvalidProc(String),
    /// HTCondor prints this as a warning and goes on with the other arguments.
    #[error("Warning: unrecognized \"{0}\" skipped.")]
    Unrecognized(String),
}
