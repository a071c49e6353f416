//! The job event log ("user log"): the file a job's `log = ...` names, where HTCondor records
//! each thing that happens to the job (submitted, executing, evicted, held, released,
//! terminated, ...), and that condor_wait, DAGMan and users' scripts follow.
//!
//! - [`event`]: the typed model, one [`EventBody`] variant per event type.
//! - [`writer`]: the formats ([`LogFormat`], `DEFAULT_USERLOG_FORMAT_OPTIONS`) and appending
//!   safely while other processes append too ([`EventLogWriter`], [`append_event`]).
//! - [`reader`]: whole logs ([`read_events`]) and logs that grow ([`LogFollower`]).
//! - `job_ads`: the job ads a log implies ([`read_job_ads`]), for `-userlog`.
//! - `text`, `time`, `usage`: the text form, byte for byte as HTCondor's condor_event.cpp
//!   writes and reads it; `ad` ([`Event::to_classad`], [`Event::from_classad`]) and `xml`:
//!   the ClassAd form that XML and JSON logs hold.
//!
//! The reference is HTCondor's current source (the eviction event's reason code and
//! `Reason:` line are newer than the 24.0 series); tests/fixtures/eventlog/ holds logs that
//! HTCondor's own reader (the `htcondor` Python package) reads as this module does.

mod ad;
pub mod check;
pub mod event;
mod job_ads;
pub mod reader;
mod text;
mod time;
mod usage;
pub mod writer;
mod xml;

#[cfg(test)]
mod tests;

use std::io;
use std::path::{Path, PathBuf};

pub use event::*;
pub use job_ads::{job_ads_from_events, read_job_ads, LogAdContext, LogJobFilter};
pub use reader::{parse_events, read_events, read_events_with, LogFollower, Position, ReadOptions};
pub use text::SYNC_LINE;
pub use usage::usage_from_job_ad;
pub use writer::{append_event, format_event, EventLogWriter, LogFormat, LogSyntax};

/// What can go wrong reading or writing a log.
#[derive(Debug, thiserror::Error)]
pub enum EventLogError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },

    /// An event the reference's reader would not accept either.
    #[error("{}, line {line}: {message}", path.display())]
    Malformed {
        path: PathBuf,
        line: u64,
        message: String,
    },

    /// The file is now shorter than what was already read from it: it was truncated or
    /// replaced.
    #[error("{}: the log is shorter than the {offset} bytes already read (truncated or replaced?)", path.display())]
    Truncated { path: PathBuf, offset: u64 },

    /// An event HTCondor would not write (`formatBody` fails for it).
    #[error("cannot write event {number:03}: {message}")]
    Unwritable { number: u32, message: String },
}

impl EventLogError {
    pub(crate) fn io(path: &Path, source: io::Error) -> EventLogError {
        EventLogError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
