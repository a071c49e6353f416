//! Where the schedd logs a job's events, and logging them: the job's `UserLog` (relative to
//! its `Iwd`), its `DAGManNodesLog`, and the pool's `EVENT_LOG`, in the format
//! `DEFAULT_USERLOG_FORMAT_OPTIONS` names (XML when the job sets `UserLogUseXML`), as
//! HTCondor's `WriteUserLog::initialize` picks them. A DAG's nodes log with a
//! `DAGManNodesMask` takes only the events the mask names, and never as XML (DAGMan reads
//! it), as `WriteUserLog::writeEvent` writes it.
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
    /// For each of `logs`, the event numbers it takes, when not all (a DAG's nodes log).
    pub masks: Vec<Option<Vec<u32>>>,
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
        JobLogs { logs, masks }
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
        let mut event = Event::new(cluster, proc, body);
        if let Some(t) = DateTime::from_timestamp(now, 0) {
            event = event.at(t);
        }
        for (path, format) in self.taking(event.number()) {
            let _ = append_event(path, format, &event);
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
