//! Job counts by state, as the schedd keeps them for `condor_q`'s summary lines
//! (`LiveJobCounters`, src/condor_schedd.V6/schedd.cpp): scheduler-universe jobs (DAGMan)
//! are counted apart from the others, transferring output counts as running and failed as
//! completed.

use std::collections::HashMap;
use std::sync::Arc;

use crate::classad::{ClassAd, Expr};
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::universe;
use crate::queue::{ClusterId, JobIdSpec, JobQuery, Queue, QueueError};

/// Counts of jobs in each state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobCounters {
    pub idle: i64,
    pub running: i64,
    pub removed: i64,
    pub completed: i64,
    pub held: i64,
    pub suspended: i64,
    pub blocked: i64,
    pub preparing: i64,
    pub sched_idle: i64,
    pub sched_running: i64,
    pub sched_removed: i64,
    pub sched_completed: i64,
    pub sched_held: i64,
    pub sched_blocked: i64,
    pub sched_preparing: i64,
}

impl JobCounters {
    /// Counts one job (`IncrementLiveJobCounter`).
    pub fn count(&mut self, universe: i64, status: i64) {
        self.add(universe, status, 1);
    }

    /// Counts `n` jobs in one universe and state (negative `n` takes them out).
    pub fn add(&mut self, universe: i64, status: i64, n: i64) {
        let status = match status {
            6 => 2,
            8 => 4,
            s => s,
        };
        if universe == universe::SCHEDULER {
            match status {
                1 => self.sched_idle += n,
                2 => self.sched_running += n,
                3 => self.sched_removed += n,
                4 => self.sched_completed += n,
                5 => self.sched_held += n,
                9 => self.sched_blocked += n,
                10 => self.sched_preparing += n,
                _ => {}
            }
        } else {
            match status {
                1 => self.idle += n,
                2 => self.running += n,
                3 => self.removed += n,
                4 => self.completed += n,
                5 => self.held += n,
                7 => self.suspended += n,
                9 => self.blocked += n,
                10 => self.preparing += n,
                _ => {}
            }
        }
    }

    /// The `Jobs` total (scheduler-universe jobs and blocked or preparing ones left out).
    pub fn jobs(&self) -> i64 {
        self.idle + self.running + self.held + self.removed + self.completed + self.suspended
    }

    pub fn scheduler_jobs(&self) -> i64 {
        self.sched_idle
            + self.sched_running
            + self.sched_held
            + self.sched_removed
            + self.sched_completed
    }

    /// Adds the counts to a summary ad with a name prefix (`LiveJobCounters::publish`).
    pub fn publish(&self, ad: &mut ClassAd, prefix: &str) {
        let mut put = |name: &str, v: i64| ad.insert(&format!("{prefix}{name}"), Expr::lit(v));
        put("Jobs", self.jobs());
        put("Idle", self.idle);
        put("Running", self.running);
        put("Removed", self.removed);
        put("Completed", self.completed);
        if self.blocked != 0 {
            put("Blocked", self.blocked);
        }
        if self.preparing != 0 {
            put("Preparing", self.preparing);
        }
        put("Held", self.held);
        put("Suspended", self.suspended);
        put("SchedulerJobs", self.scheduler_jobs());
        put("SchedulerIdle", self.sched_idle);
        put("SchedulerRunning", self.sched_running);
        put("SchedulerRemoved", self.sched_removed);
        put("SchedulerCompleted", self.sched_completed);
        put("SchedulerHeld", self.sched_held);
        if self.sched_blocked != 0 {
            put("SchedulerBlocked", self.sched_blocked);
        }
        if self.sched_preparing != 0 {
            put("SchedulerPreparing", self.sched_preparing);
        }
    }

    /// `N jobs; C completed, R removed, I idle, U running, H held, S suspended`, the words
    /// of a summary line.
    pub fn summary_words(&self) -> String {
        format!(
            "{} jobs; {} completed, {} removed, {} idle, {} running, {} held, {} suspended",
            self.jobs(),
            self.completed,
            self.removed,
            self.idle,
            self.running,
            self.held,
            self.suspended
        )
    }
}

/// What the counts need of each cluster (its universe and owner), learned once per
/// cluster, so that counting several sets of jobs parses each cluster ad at most once.
#[derive(Debug, Default)]
pub struct Census {
    clusters: HashMap<ClusterId, (i64, Option<Arc<str>>)>,
    complete: bool,
}

impl Census {
    /// Records a cluster from its ad; returns its universe.
    pub fn note(&mut self, cluster: ClusterId, ad: &ClassAd) -> i64 {
        self.clusters
            .entry(cluster)
            .or_insert_with(|| {
                (
                    lookup_int(ad, "JobUniverse").unwrap_or(5),
                    lookup_str(ad, "Owner"),
                )
            })
            .0
    }

    /// Learns every cluster of the queue not seen yet.
    fn complete(&mut self, queue: &Queue) -> Result<(), QueueError> {
        if self.complete {
            return Ok(());
        }
        for id in queue.cluster_ids()? {
            if !self.clusters.contains_key(&id) {
                match queue.cluster_ad(id) {
                    Ok(Some(ad)) => {
                        self.note(id, &ad);
                    }
                    // A damaged ad counts as a vanilla cluster's (the tools report it).
                    Ok(None) | Err(QueueError::DamagedAd { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        self.complete = true;
        Ok(())
    }

    /// Counts the jobs the ids and owners select (all jobs when there are none) with the
    /// store's counts by state, moving the jobs of scheduler-universe clusters to their own
    /// counters: no job ad is read.
    pub fn count(&mut self, queue: &Queue, specs: &[JobIdSpec]) -> Result<JobCounters, QueueError> {
        let mut counts = JobCounters::default();
        for (status, n) in queue.count_by_status(&JobQuery::ids(specs.iter().cloned()))? {
            counts.add(5, status, n as i64);
        }
        self.complete(queue)?;
        let selects = |c: ClusterId, owner: Option<&str>| {
            specs.is_empty()
                || specs.iter().any(|s| match s {
                    JobIdSpec::Cluster(x) => *x == c,
                    JobIdSpec::Job(j) => j.cluster == c,
                    JobIdSpec::Owner(o) => owner.is_some_and(|w| w.eq_ignore_ascii_case(o)),
                })
        };
        let sched: Vec<ClusterId> = self
            .clusters
            .iter()
            .filter(|(c, (u, owner))| *u == universe::SCHEDULER && selects(**c, owner.as_deref()))
            .map(|(c, _)| *c)
            .collect();
        for c in sched {
            // The jobs of this cluster the ids select.
            let jobs: Vec<JobIdSpec> = specs
                .iter()
                .filter(|s| matches!(s, JobIdSpec::Job(j) if j.cluster == c))
                .cloned()
                .collect();
            let whole = jobs.is_empty() || specs.iter().any(|s| !matches!(s, JobIdSpec::Job(_)));
            let query = if whole {
                JobQuery::ids([JobIdSpec::Cluster(c)])
            } else {
                JobQuery::ids(jobs)
            };
            for (status, n) in queue.count_by_status(&query)? {
                counts.add(5, status, -(n as i64));
                counts.add(universe::SCHEDULER, status, n as i64);
            }
        }
        Ok(counts)
    }
}

/// Counts the jobs a query selects by reading them (for queries with a constraint).
pub fn count_jobs(
    queue: &Queue,
    query: &JobQuery,
    census: &mut Census,
) -> Result<JobCounters, QueueError> {
    if query.constraint().is_none() {
        return census.count(queue, query.id_specs());
    }
    let mut counts = JobCounters::default();
    for job in super::select::jobs(queue, query)? {
        // A job whose ad does not read back is not counted (the tools report it).
        let job = match job {
            Ok(job) => job,
            Err(QueueError::DamagedAd { .. }) => continue,
            Err(e) => return Err(e),
        };
        let cluster_ad = match job.cluster_ad() {
            Ok(ad) => ad,
            Err(QueueError::DamagedAd { .. }) => continue,
            Err(e) => return Err(e),
        };
        let universe = census.note(job.id().cluster, cluster_ad);
        counts.count(universe, job.status_code());
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_fold_as_the_schedd_folds_them() {
        let mut c = JobCounters::default();
        for (u, s) in [(5, 1), (5, 6), (5, 8), (5, 7), (7, 2), (5, 9), (5, 99)] {
            c.count(u, s);
        }
        assert_eq!((c.idle, c.running, c.completed, c.suspended), (1, 1, 1, 1));
        assert_eq!((c.sched_running, c.blocked, c.jobs()), (1, 1, 4));
        assert_eq!(
            c.summary_words(),
            "4 jobs; 1 completed, 0 removed, 1 idle, 1 running, 0 held, 1 suspended"
        );
        let mut ad = ClassAd::new();
        c.publish(&mut ad, "My");
        assert_eq!(ad.eval_attr("MyJobs").as_int(), Some(4));
        assert_eq!(ad.eval_attr("MyBlocked").as_int(), Some(1));
        assert!(!ad.contains("MyPreparing"));
    }

    #[test]
    fn the_census_counts_scheduler_jobs_apart() {
        use crate::classad::parse_ad;
        let dir = tempfile::tempdir().unwrap();
        let mut q = Queue::open(dir.path()).unwrap();
        let ad = |owner: &str, universe: i64| {
            parse_ad(&format!(
                r#"[ Owner = "{owner}"; JobUniverse = {universe}; JobStatus = 1 ]"#
            ))
            .unwrap()
        };
        q.submit(ad("alice", 5), (0..3).map(|_| ClassAd::new()))
            .unwrap();
        let dag = q.submit(ad("alice", 7), [ClassAd::new()]).unwrap();
        q.submit(ad("bob", 5), [ClassAd::new()]).unwrap();
        let mut census = Census::default();
        let all = census.count(&q, &[]).unwrap();
        assert_eq!((all.jobs(), all.idle, all.sched_idle), (4, 4, 1));
        let alice = census
            .count(&q, &[JobIdSpec::Owner("alice".into())])
            .unwrap();
        assert_eq!((alice.jobs(), alice.sched_idle), (3, 1));
        let dag_only = census.count(&q, &[JobIdSpec::Cluster(dag)]).unwrap();
        assert_eq!((dag_only.jobs(), dag_only.sched_idle), (0, 1));
        let mut by_reading = Census::default();
        let query = JobQuery::all().with_constraint(crate::classad::parse_expr("true").unwrap());
        assert_eq!(count_jobs(&q, &query, &mut by_reading).unwrap(), all);
    }
}
