//! Where the schedd logs a job's events, and logging them: the job's `UserLog` (relative to
//! its `Iwd`), its `DAGManNodesLog`, and the pool's `EVENT_LOG`, in the format
//! `DEFAULT_USERLOG_FORMAT_OPTIONS` names (XML when the job sets `UserLogUseXML`), as
//! HTCondor's `WriteUserLog::initialize` picks them.
//!
//! A log that cannot be written is skipped: the schedd notes it in its own log and goes on,
//! and the tool's result does not change.

use std::path::{Path, PathBuf};

use chrono::DateTime;

use crate::classad::ClassAd;
use crate::eventlog::{append_event, Event, EventBody, LogFormat};
use crate::output::render::{lookup_bool, lookup_str};

use super::Session;

/// The logs one job's events go to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobLogs {
    pub logs: Vec<(PathBuf, LogFormat)>,
}

impl JobLogs {
    /// The logs of the job whose ad this is.
    pub fn of(session: &Session, ad: &ClassAd) -> JobLogs {
        let options = session
            .config
            .string("DEFAULT_USERLOG_FORMAT_OPTIONS")
            .ok()
            .flatten()
            .unwrap_or_default();
        let mut format = LogFormat::from_options(&options);
        if lookup_bool(ad, "UserLogUseXML") == Some(true) {
            format.xml = true;
        }
        let iwd = lookup_str(ad, "Iwd");
        let mut logs = Vec::new();
        for attr in ["UserLog", "DAGManNodesLog"] {
            if let Some(name) = lookup_str(ad, attr).filter(|n| !n.is_empty()) {
                let path = Path::new(&*name);
                let path = match &iwd {
                    Some(iwd) if path.is_relative() => Path::new(&**iwd).join(path),
                    _ => path.to_owned(),
                };
                if !logs.iter().any(|(p, _)| *p == path) {
                    logs.push((path, format));
                }
            }
        }
        if let Some(global) = session.config.string("EVENT_LOG").ok().flatten() {
            if !global.is_empty() {
                let global_format = session
                    .config
                    .string("EVENT_LOG_FORMAT_OPTIONS")
                    .ok()
                    .flatten()
                    .map_or(format, |o| LogFormat::from_options(&o));
                logs.push((PathBuf::from(global), global_format));
            }
        }
        JobLogs { logs }
    }

    pub fn is_empty(&self) -> bool {
        self.logs.is_empty()
    }

    /// Logs one event of job `cluster.proc` at time `now` to every log.
    pub fn write(&self, cluster: i32, proc: i32, now: i64, body: EventBody) {
        if self.logs.is_empty() {
            return;
        }
        let mut event = Event::new(cluster, proc, body);
        if let Some(t) = DateTime::from_timestamp(now, 0) {
            event = event.at(t);
        }
        for (path, format) in &self.logs {
            let _ = append_event(path, format, &event);
        }
    }
}
