//! Reading the jobs a query selects, fast whatever its shape.
//!
//! The store pages through a query's jobs by job id. When a query names owners or clusters,
//! each page of the store's SQL re-reads the named clusters from their start (its seek uses
//! the cluster id only), so reading a large selection that way costs the square of its size
//! (100,000 jobs of one owner: a second). Until the store seeks on the whole job id, a
//! selection of more than a few pages is read here as a scan of every job, filtered by id
//! and owner in this process: linear in the queue's size. Small selections (`condor_q bob`
//! among a million jobs) still use the store's indexes.

use std::sync::Arc;

use crate::output::render::lookup_str;
use crate::queue::{ClusterEntry, Job, JobIdSpec, JobQuery, Queue, QueueError};

/// Above this many jobs, a selection by owner or cluster is read by scanning.
const SCAN_ABOVE: u64 = 4 * 1024;

/// The jobs `query` selects, in job-id order.
pub fn jobs<'q>(
    queue: &'q Queue,
    query: &JobQuery,
) -> Result<Box<dyn Iterator<Item = Result<Job, QueueError>> + 'q>, QueueError> {
    let specs = query.id_specs();
    let by_cluster = specs.iter().any(|s| !matches!(s, JobIdSpec::Job(_)));
    if !by_cluster {
        return Ok(Box::new(queue.jobs(query)?));
    }
    let selected: u64 = queue
        .count_by_status(&JobQuery::ids(specs.iter().cloned()))?
        .iter()
        .map(|(_, n)| n)
        .sum();
    if selected <= SCAN_ABOVE {
        return Ok(Box::new(queue.jobs(query)?));
    }
    let mut scan = JobQuery::all();
    if let Some(c) = query.constraint() {
        scan = scan.with_constraint(c.clone());
    }
    let specs: Vec<JobIdSpec> = specs.to_vec();
    let owners: Vec<String> = specs
        .iter()
        .filter_map(|s| match s {
            JobIdSpec::Owner(o) => Some(o.clone()),
            _ => None,
        })
        .collect();
    // Whether the last cluster seen belongs to one of the owners.
    let mut last: Option<(Arc<ClusterEntry>, bool)> = None;
    let iter = queue.jobs(&scan)?.filter(move |job| {
        let Ok(job) = job else {
            return true;
        };
        let id = job.id();
        let by_id = specs.iter().any(|s| match s {
            JobIdSpec::Cluster(c) => id.cluster == *c,
            JobIdSpec::Job(j) => id == *j,
            JobIdSpec::Owner(_) => false,
        });
        if by_id || owners.is_empty() {
            return by_id;
        }
        if !matches!(&last, Some((entry, _)) if Arc::ptr_eq(entry, job.cluster())) {
            let owner = job.cluster_ad().ok().and_then(|ad| lookup_str(ad, "Owner"));
            let hit = owner
                .as_deref()
                .is_some_and(|o| owners.iter().any(|n| n.eq_ignore_ascii_case(o)));
            last = Some((job.cluster().clone(), hit));
        }
        last.as_ref().is_some_and(|(_, hit)| *hit)
    });
    Ok(Box::new(iter))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::{parse_ad, parse_expr, ClassAd};
    use crate::queue::{ClusterId, JobId};

    fn cluster(owner: &str) -> ClassAd {
        parse_ad(&format!(r#"[ Owner = "{owner}"; JobStatus = 1 ]"#)).unwrap()
    }

    fn ids(queue: &Queue, query: &JobQuery) -> Vec<JobId> {
        jobs(queue, query)
            .unwrap()
            .map(|j| j.unwrap().id())
            .collect()
    }

    #[test]
    fn scans_and_store_queries_agree() {
        let dir = tempfile::tempdir().unwrap();
        let mut q = Queue::open(dir.path()).unwrap();
        let n = SCAN_ABOVE as usize + 10;
        q.submit(cluster("alice"), (0..n).map(|_| ClassAd::new()))
            .unwrap();
        q.submit(cluster("Bob"), (0..3).map(|_| ClassAd::new()))
            .unwrap();
        q.submit(cluster("alice"), (0..2).map(|_| ClassAd::new()))
            .unwrap();
        let direct = |query: &JobQuery| q.job_ids(query).unwrap();
        for query in [
            JobQuery::ids([JobIdSpec::Owner("alice".into())]),
            JobQuery::ids([
                JobIdSpec::Owner("bob".into()),
                JobIdSpec::Cluster(ClusterId(1)),
            ]),
            JobQuery::ids([JobIdSpec::Owner("ALICE".into())])
                .with_constraint(parse_expr("ProcId < 2").unwrap()),
            JobQuery::ids([JobIdSpec::Job(JobId::new(2, 1))]),
            JobQuery::all(),
        ] {
            assert_eq!(ids(&q, &query), direct(&query), "{query:?}");
        }
        assert_eq!(
            ids(&q, &JobQuery::ids([JobIdSpec::Owner("alice".into())])).len(),
            n + 2
        );
    }
}
