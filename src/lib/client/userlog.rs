//! Where the schedd logs a job's events, and logging them: the job's `UserLog` (relative to
//! its `Iwd`), its `DAGManNodesLog`, and the pool's `EVENT_LOG`, in the format
//! `DEFAULT_USERLOG_FORMAT_OPTIONS` names (XML when the job sets `UserLogUseXML`), as
//! HTCondor's `WriteUserLog::initialize` picks them. A DAG's nodes log with a
//! `DAGManNodesMask` takes only the events the mask names, and never as XML (DAGMan reads
//! it), as `WriteUserLog::writeEvent` writes it.
//!
//! A log that cannot be written is skipped: the schedd notes it in its own log and goes on,
//! and the tool's result does not change. (Before a job starts, the shadow's role checks
//! that its logs can be opened, [`JobLogs::check`], and holds it otherwise.)
//!
//! The job's own logs are written with its owner's rights ([`Rights`]): a system pool's
//! master, which runs as root, creates or appends to alice's `log = ...` only where alice
//! could; the pool's `EVENT_LOG` is the daemon's own. Events are written in batches
//! ([`LogBatch`]): each log opened once per batch, and one switch of rights per owner.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::DateTime;

use crate::classad::ClassAd;
use crate::eventlog::{Event, EventBody, EventLogWriter, LogFormat};
use crate::output::render::{lookup_bool, lookup_str};
use crate::starter::rights::Rights;

use super::Session;

/// The logs one job's events go to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobLogs {
    pub logs: Vec<(PathBuf, LogFormat)>,
    /// For each of `logs`, the event numbers it takes, when not all (a DAG's nodes log).
    pub masks: Vec<Option<Vec<u32>>>,
    /// How many of `logs` (the first ones) are the job's own, written with its owner's
    /// rights; the rest (`EVENT_LOG`) are the daemon's.
    pub owner_logs: usize,
    /// The job's `Owner`, when its own logs are written with the owner's rights
    /// ([`Rights::switch_to_owners`]); else they are written with this process's own.
    pub owner: Option<String>,
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
        let dag_mask: Option<Vec<u32>> = lookup_str(ad, "DAGManNodesMask")
            .map(|m| {
                m.split(',')
                    .filter_map(|n| n.trim().parse::<u32>().ok())
                    .collect::<Vec<u32>>()
            })
            .filter(|m| !m.is_empty());
        let mut logs = Vec::new();
        let mut masks = Vec::new();
        for attr in ["UserLog", "DAGManNodesLog"] {
            if let Some(name) = lookup_str(ad, attr).filter(|n| !n.is_empty()) {
                let path = Path::new(&*name);
                let path = match &iwd {
                    Some(iwd) if path.is_relative() => Path::new(&**iwd).join(path),
                    _ => path.to_owned(),
                };
                if !logs.iter().any(|(p, _)| *p == path) {
                    let mask = dag_mask.clone().filter(|_| attr == "DAGManNodesLog");
                    let mut format = format;
                    if mask.is_some() {
                        format.xml = false;
                    }
                    logs.push((path, format));
                    masks.push(mask);
                }
            }
        }
        let owner_logs = logs.len();
        if let Some(global) = session.config.string("EVENT_LOG").ok().flatten() {
            if !global.is_empty() {
                let global_format = session
                    .config
                    .string("EVENT_LOG_FORMAT_OPTIONS")
                    .ok()
                    .flatten()
                    .map_or(format, |o| LogFormat::from_options(&o));
                logs.push((PathBuf::from(global), global_format));
                masks.push(None);
            }
        }
        JobLogs {
            logs,
            masks,
            owner_logs,
            owner: Rights::switch_to_owners(&session.config)
                .then(|| lookup_str(ad, "Owner").map(|o| o.to_string()))
                .flatten(),
        }
    }

    /// The logs that take an event of this number.
    pub fn taking(&self, number: u32) -> impl Iterator<Item = &(PathBuf, LogFormat)> {
        self.logs
            .iter()
            .zip(&self.masks)
            .filter(move |(_, mask)| mask.as_ref().is_none_or(|m| m.contains(&number)))
            .map(|(log, _)| log)
    }

    pub fn is_empty(&self) -> bool {
        self.logs.is_empty()
    }

    /// Logs one event of job `cluster.proc` at time `now` to every log.
    pub fn write(&self, cluster: i32, proc: i32, now: i64, body: EventBody) {
        if self.logs.is_empty() {
            return;
        }
        let mut batch = LogBatch::default();
        batch.push(self, cluster, proc, now, body);
        batch.write();
    }

    /// Whether the job's own logs can be opened for writing by its owner, as the shadow's
    /// `initUserLog` checks before the job starts: the first that cannot, and why.
    pub fn check(&self) -> Result<(), (PathBuf, String)> {
        let own = &self.logs[..self.owner_logs];
        if own.is_empty() {
            return Ok(());
        }
        let rights = owner_rights(self.owner.as_deref()).map_err(|e| (own[0].0.clone(), e))?;
        let opened = rights.run(|| {
            for (path, format) in own {
                EventLogWriter::open(path, *format).map_err(|e| (path.clone(), e.to_string()))?;
            }
            Ok(())
        });
        opened.unwrap_or_else(|e| Err((own[0].0.clone(), e.to_string())))
    }
}

/// Events to log, written together ([`LogBatch::write`]) in the order they were pushed,
/// each log opened once: the daemon's logs with its own rights, each owner's logs with that
/// owner's (one switch per owner).
#[derive(Default)]
pub struct LogBatch {
    /// Each event, the logs of the job's own it goes to, and the job's owner.
    own: Vec<(Option<String>, PathBuf, LogFormat, std::sync::Arc<Event>)>,
    /// Each event and the daemon's logs it goes to.
    daemons: Vec<(PathBuf, LogFormat, std::sync::Arc<Event>)>,
}

impl LogBatch {
    /// Adds one event of job `cluster.proc` at time `now`, for every log of `logs` that
    /// takes it.
    pub fn push(&mut self, logs: &JobLogs, cluster: i32, proc: i32, now: i64, body: EventBody) {
        if logs.logs.is_empty() {
            return;
        }
        let mut event = Event::new(cluster, proc, body);
        if let Some(t) = DateTime::from_timestamp(now, 0) {
            event = event.at(t);
        }
        let number = event.number();
        let event = std::sync::Arc::new(event);
        for (i, ((path, format), mask)) in logs.logs.iter().zip(&logs.masks).enumerate() {
            if mask.as_ref().is_some_and(|m| !m.contains(&number)) {
                continue;
            }
            if i < logs.owner_logs {
                self.own
                    .push((logs.owner.clone(), path.clone(), *format, event.clone()));
            } else {
                self.daemons.push((path.clone(), *format, event.clone()));
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.own.is_empty() && self.daemons.is_empty()
    }

    /// Writes every event; a log that cannot be written is skipped.
    pub fn write(self) {
        let mut by_owner: Vec<(Option<String>, Vec<Entry>)> = Vec::new();
        for (owner, path, format, event) in &self.own {
            let entry = (path.clone(), *format, &**event);
            match by_owner.iter_mut().find(|(o, _)| o == owner) {
                Some((_, list)) => list.push(entry),
                None => by_owner.push((owner.clone(), vec![entry])),
            }
        }
        for (owner, entries) in by_owner {
            let written = owner_rights(owner.as_deref()).and_then(|rights| {
                rights
                    .run(|| append_all(&entries))
                    .map_err(|e| e.to_string())
            });
            if let Err(e) = written {
                tracing::warn!("not writing the event logs of {owner:?}'s jobs: {e}");
            }
        }
        let daemons: Vec<Entry> = self
            .daemons
            .iter()
            .map(|(p, f, e)| (p.clone(), *f, &**e))
            .collect();
        append_all(&daemons);
    }
}

/// The rights a job's own logs are written with: this process's own, or its owner's.
fn owner_rights(owner: Option<&str>) -> Result<Rights, String> {
    match owner {
        Some(o) if !o.is_empty() => Rights::of_account(o).map_err(|e| e.to_string()),
        _ => Ok(Rights::Own),
    }
}

/// An event and the log it goes to.
type Entry<'e> = (PathBuf, LogFormat, &'e Event);

/// Appends each event to its log, each log opened once.
fn append_all(entries: &[Entry]) {
    let mut writers: HashMap<(&Path, LogFormat), Option<EventLogWriter>> = HashMap::new();
    for (path, format, event) in entries {
        let writer =
            writers
                .entry((path.as_path(), *format))
                .or_insert_with(|| match EventLogWriter::open(path, *format) {
                    Ok(w) => Some(w),
                    Err(e) => {
                        tracing::debug!("event log {}: {e}", path.display());
                        None
                    }
                });
        if let Some(w) = writer {
            if let Err(e) = w.write(event) {
                tracing::debug!("event log {}: {e}", path.display());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;
    use crate::config::Config;

    #[test]
    fn a_dag_nodes_log_takes_only_its_mask_and_never_xml() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::for_test("", "SCHEDD", None, dir.path());
        let session = Session::new(config, "u".into(), 0).unwrap();
        let ad = parse_ad(
            r#"[ Iwd = "/w"; UserLog = "job.log"; UserLogUseXML = true;
                 DAGManNodesLog = "x.dag.nodes.log"; DAGManNodesMask = "0,1,5" ]"#,
        )
        .unwrap();
        let logs = JobLogs::of(&session, &ad);
        let of = |n: u32| -> Vec<(String, bool)> {
            logs.taking(n)
                .map(|(p, f)| (p.display().to_string(), f.xml))
                .collect()
        };
        let both = [
            ("/w/job.log".into(), true),
            ("/w/x.dag.nodes.log".into(), false),
        ];
        assert_eq!(of(5), both);
        // An image size event (6) is not in the mask: only the job's own log has it.
        assert_eq!(of(6), [("/w/job.log".into(), true)]);
        // Without a mask the nodes log takes everything, in the job's format.
        let ad =
            parse_ad(r#"[ Iwd = "/w"; UserLogUseXML = true; DAGManNodesLog = "n.log" ]"#).unwrap();
        let logs = JobLogs::of(&session, &ad);
        assert_eq!(
            logs.taking(6).map(|(_, f)| f.xml).collect::<Vec<_>>(),
            [true]
        );
    }
}
