//! The state of the jobs condor_watch_q follows, as its `JobStateTracker` keeps it: a pure state
//! machine fed the events of the logs, one job state per job, taken only from the events
//! (`JOB_EVENT_STATUS_TRANSITIONS`), never from the queue.
//!
//! Counts are kept as the events come (per cluster and in all), and each cluster keeps its
//! active procs in order, so that drawing a frame costs a walk over the clusters, not the jobs:
//! watching 100,000 jobs stays cheap.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::eventlog::EventBody;

/// A job's state as condor_watch_q shows it (its `JobStatus` enum).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobState {
    Removed,
    Held,
    Suspended,
    Idle,
    Running,
    TransferringOutput,
    Completed,
}

/// Jobs counted by state, indexed by `JobState as usize`.
pub type Counts = [u64; 7];

impl JobState {
    /// The order of the table's columns (`JobStatus.ordered()`).
    pub const ORDERED: [JobState; 7] = [
        JobState::Removed,
        JobState::Held,
        JobState::Suspended,
        JobState::Idle,
        JobState::Running,
        JobState::TransferringOutput,
        JobState::Completed,
    ];

    /// The column heading (the enum's value).
    pub fn heading(self) -> &'static str {
        match self {
            JobState::Removed => "REMOVED",
            JobState::Held => "HELD",
            JobState::Suspended => "SUSPENDED",
            JobState::Idle => "IDLE",
            JobState::Running => "RUN",
            JobState::TransferringOutput => "TRANSFERRING_OUTPUT",
            JobState::Completed => "DONE",
        }
    }

    /// In the queue (`ACTIVE_STATES`).
    pub fn is_active(self) -> bool {
        !matches!(self, JobState::Removed | JobState::Completed)
    }

    /// The state an event puts its job in; `None` for an event that changes nothing.
    pub fn after(body: &EventBody) -> Option<JobState> {
        Some(match body {
            EventBody::Submit(_)
            | EventBody::JobEvicted(_)
            | EventBody::JobUnsuspended
            | EventBody::JobReleased(_)
            | EventBody::ShadowException(_)
            | EventBody::JobReconnectFailed(_) => JobState::Idle,
            EventBody::JobTerminated(_) => JobState::Completed,
            EventBody::Execute(_) => JobState::Running,
            EventBody::JobHeld(_) => JobState::Held,
            EventBody::JobSuspended(_) => JobState::Suspended,
            EventBody::JobAborted(_) => JobState::Removed,
            _ => return None,
        })
    }
}

/// One cluster's jobs.
#[derive(Debug)]
pub struct ClusterState {
    pub id: i32,
    /// The log its first event was read from (an index into [`Tracker::logs`]).
    pub log: usize,
    /// `JobBatchName`, when the queue gave one.
    pub batch_name: Option<String>,
    procs: HashMap<i32, JobState>,
    pub counts: Counts,
    /// The procs in an active state, in order.
    active: BTreeSet<i32>,
}

impl ClusterState {
    /// `Cluster.batch_name`: the batch name, else `ID: <cluster>`.
    pub fn batch_name(&self) -> String {
        match &self.batch_name {
            Some(b) => b.clone(),
            None => format!("ID: {}", self.id),
        }
    }

    /// The active procs, in order.
    pub fn active_procs(&self) -> &BTreeSet<i32> {
        &self.active
    }
}

/// Which jobs' events count (`filter_ids`, `since`).
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only these clusters, when given.
    pub clusters: Option<HashSet<i32>>,
    /// Only clusters from this one on (`-larger-than`).
    pub since: Option<i32>,
}

impl Filter {
    fn admits(&self, cluster: i32) -> bool {
        self.clusters.as_ref().is_none_or(|c| c.contains(&cluster))
            && self.since.is_none_or(|s| cluster >= s)
    }
}

/// Every job seen in the logs.
#[derive(Debug, Default)]
pub struct Tracker {
    logs: Vec<String>,
    filter: Filter,
    /// `JobBatchName` by cluster, from the queue.
    batch_names: HashMap<i32, String>,
    clusters: BTreeMap<i32, ClusterState>,
    totals: Counts,
    jobs: u64,
}

impl Tracker {
    pub fn new(filter: Filter, batch_names: HashMap<i32, String>) -> Tracker {
        Tracker {
            filter,
            batch_names,
            ..Tracker::default()
        }
    }

    /// The index of a log's path, added when new.
    pub fn log_index(&mut self, path: &str) -> usize {
        match self.logs.iter().position(|l| l == path) {
            Some(i) => i,
            None => {
                self.logs.push(path.to_owned());
                self.logs.len() - 1
            }
        }
    }

    pub fn logs(&self) -> &[String] {
        &self.logs
    }

    /// One event of job `cluster.proc`, read from log `log`.
    pub fn apply(&mut self, log: usize, cluster: i32, proc: i32, body: &EventBody) {
        if !self.filter.admits(cluster) {
            return;
        }
        let Some(state) = JobState::after(body) else {
            return;
        };
        let c = self
            .clusters
            .entry(cluster)
            .or_insert_with(|| ClusterState {
                id: cluster,
                log,
                batch_name: self.batch_names.get(&cluster).cloned(),
                procs: HashMap::new(),
                counts: Counts::default(),
                active: BTreeSet::new(),
            });
        match c.procs.insert(proc, state) {
            Some(old) => {
                c.counts[old as usize] -= 1;
                self.totals[old as usize] -= 1;
            }
            None => self.jobs += 1,
        }
        c.counts[state as usize] += 1;
        self.totals[state as usize] += 1;
        if state.is_active() {
            c.active.insert(proc);
        } else {
            c.active.remove(&proc);
        }
    }

    /// The clusters, by id.
    pub fn clusters(&self) -> impl Iterator<Item = &ClusterState> {
        self.clusters.values()
    }

    /// Every job, counted by state.
    pub fn totals(&self) -> &Counts {
        &self.totals
    }

    /// How many jobs were seen.
    pub fn jobs(&self) -> u64 {
        self.jobs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eventlog::{Execute, JobTerminated, Submit};

    fn submit() -> EventBody {
        EventBody::Submit(Submit::default())
    }

    #[test]
    fn events_move_jobs_and_counts_follow() {
        let mut t = Tracker::new(Filter::default(), HashMap::from([(2, "b".to_owned())]));
        let log = t.log_index("/l");
        t.apply(log, 1, 0, &submit());
        t.apply(log, 1, 1, &submit());
        t.apply(log, 2, 0, &submit());
        t.apply(log, 1, 0, &EventBody::Execute(Execute::default()));
        t.apply(
            log,
            1,
            1,
            &EventBody::JobTerminated(JobTerminated::default()),
        );
        // An event that changes no state.
        t.apply(log, 1, 0, &EventBody::JobUnsuspended);
        assert_eq!(t.jobs(), 3);
        let c1 = t.clusters().next().unwrap();
        assert_eq!(c1.counts[JobState::Idle as usize], 1);
        assert_eq!(c1.counts[JobState::Completed as usize], 1);
        assert_eq!(c1.active_procs().iter().copied().collect::<Vec<_>>(), [0]);
        assert_eq!(c1.batch_name(), "ID: 1");
        assert_eq!(t.clusters().nth(1).unwrap().batch_name(), "b");
        assert_eq!(t.totals()[JobState::Idle as usize], 2);
        assert_eq!(t.totals()[JobState::Running as usize], 0);
    }

    #[test]
    fn filters_drop_other_clusters() {
        let filter = Filter {
            clusters: Some(HashSet::from([5, 9])),
            since: Some(6),
        };
        let mut t = Tracker::new(filter, HashMap::new());
        for c in [5, 6, 9] {
            t.apply(0, c, 0, &submit());
        }
        assert_eq!(t.clusters().map(|c| c.id).collect::<Vec<_>>(), [9]);
    }
}
