//! `condor_q -autocluster` and `-group-by`: instead of jobs, one ad per group of jobs, as the
//! schedd answers such a query (autocluster.cpp, `JobAggregationResults::next`): the values of
//! the attributes that make the group, `AutoClusterId` (the schedd's autoclusters) or `Id`
//! (groups made for the query), `JobCount`, and `JobIds`, the first and last job of the group
//! with ` ...` between when there are more (condor_q asks for at most 2 ids). Groups come in
//! the order of their ids.
//!
//! `-autocluster` reads the autoclusters the master put in the job ads (`AutoClusterId`,
//! `AutoClusterAttrs`): all the queue's jobs, whoever owns them, as the schedd's query does
//! (it has no "my jobs" part); the query's constraint (job ids and owners included) then
//! selects among the groups' ads. `-group-by` groups the jobs the query selects by the
//! attributes the output reads (the projection), with the schedd's `JobCluster`; its
//! constraint selects the jobs, then the groups' ads as well.

use std::collections::BTreeMap;

use crate::classad::{ClassAd, Expr};
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::{Job, JobId, QueueError};
use crate::schedd::autocluster::{JobClusters, AUTO_CLUSTER_ATTRS, AUTO_CLUSTER_ID};

/// Which aggregation a query asks for (queue.cpp's `dash_autocluster`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Aggregation {
    /// `-autocluster`, `SELECT FROM AUTOCLUSTER` (`fetch_DefaultAutoCluster`).
    AutoCluster,
    /// `-group-by`, `SELECT UNIQUE` (`fetch_GroupBy`).
    GroupBy,
}

/// How many job ids an ad names (queue.cpp's `MaxReturnedJobIds`).
const RETURNED_JOB_IDS: usize = 2;

/// One group: its ad so far (the attributes that make it) and its jobs, in id order.
struct Group {
    ad: ClassAd,
    jobs: Vec<JobId>,
}

/// `JobIds`: the first job, then (when the limit allows) the ones after it, ` ...` when some
/// are left out, and the last.
fn job_ids_text(jobs: &[JobId]) -> String {
    let mut text = jobs[0].to_string();
    if jobs.len() > 1 {
        let between = &jobs[1..jobs.len() - 1];
        let shown = RETURNED_JOB_IDS.saturating_sub(2);
        for id in between.iter().take(shown) {
            text.push_str(&format!(" {id}"));
        }
        if between.len() > shown {
            text.push_str(" ...");
        }
        text.push_str(&format!(" {}", jobs[jobs.len() - 1]));
    }
    text
}

/// The groups' ads, by id, the id in attribute `id_attr`.
fn finish(groups: BTreeMap<i64, Group>, id_attr: &str) -> Vec<Job> {
    groups
        .into_iter()
        .map(|(id, mut g)| {
            g.jobs.sort();
            g.ad.insert(id_attr, Expr::lit(id));
            g.ad.insert("JobIds", Expr::lit(job_ids_text(&g.jobs).as_str()));
            g.ad.insert("JobCount", Expr::lit(g.jobs.len() as i64));
            Job::from_ad(g.ad)
        })
        .collect()
}

/// The ad a group starts with: the job's values of `attrs` (those it has).
fn group_ad<'a>(job: &ClassAd, attrs: impl IntoIterator<Item = &'a str>) -> ClassAd {
    let mut ad = ClassAd::new();
    for name in attrs {
        if let Some(e) = job.lookup(name) {
            ad.insert(name, e.clone());
        }
    }
    ad
}

/// The schedd's autoclusters, from the `AutoClusterId` and `AutoClusterAttrs` of `jobs`
/// (jobs without them are in none).
pub(super) fn autoclusters(
    jobs: impl Iterator<Item = Result<Job, QueueError>>,
) -> Result<Vec<Job>, QueueError> {
    let mut groups: BTreeMap<i64, Group> = BTreeMap::new();
    for job in jobs {
        let job = job?;
        let ad = job.ad()?;
        let Some(ac) = lookup_int(ad, AUTO_CLUSTER_ID) else {
            continue;
        };
        let group = groups.entry(ac).or_insert_with(|| {
            let attrs = lookup_str(ad, AUTO_CLUSTER_ATTRS).unwrap_or_default();
            Group {
                ad: group_ad(ad, attrs.split([',', ' ']).filter(|a| !a.is_empty())),
                jobs: Vec::new(),
            }
        });
        group.jobs.push(job.id());
    }
    Ok(finish(groups, AUTO_CLUSTER_ID))
}

/// The jobs grouped by their values of `projection` (and of what those read), numbered as
/// they are first seen.
pub(super) fn group_by(
    jobs: impl Iterator<Item = Result<Job, QueueError>>,
    projection: &[String],
) -> Result<Vec<Job>, QueueError> {
    let mut clusters = JobClusters::new();
    clusters.set_significant(projection, true);
    let mut groups: BTreeMap<i64, Group> = BTreeMap::new();
    for job in jobs {
        let job = job?;
        let ad = job.ad()?;
        let (id, attrs) = clusters.cluster_id(ad);
        let group = groups.entry(id).or_insert_with(|| Group {
            ad: group_ad(ad, attrs.iter().map(String::as_str)),
            jobs: Vec::new(),
        });
        group.jobs.push(job.id());
    }
    Ok(finish(groups, "Id"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_old_ad;

    fn job(text: &str) -> Result<Job, QueueError> {
        Ok(Job::from_ad(parse_old_ad(text).unwrap()))
    }

    #[test]
    fn job_ids_name_the_first_and_last_job() {
        let ids: Vec<JobId> = (0..4).map(|p| JobId::new(3, p)).collect();
        assert_eq!(job_ids_text(&ids[..1]), "3.0");
        assert_eq!(job_ids_text(&ids[..2]), "3.0 3.1");
        assert_eq!(job_ids_text(&ids), "3.0 ... 3.3");
    }

    #[test]
    fn autoclusters_come_from_the_job_ads() {
        let jobs = vec![
            job("ClusterId = 1\nProcId = 0\nAutoClusterId = 2\nAutoClusterAttrs = \"RequestMemory,Rank\"\nRequestMemory = 10"),
            job("ClusterId = 1\nProcId = 1\nAutoClusterId = 1\nAutoClusterAttrs = \"RequestMemory,Rank\"\nRequestMemory = 20"),
            job("ClusterId = 2\nProcId = 0\nAutoClusterId = 2\nAutoClusterAttrs = \"RequestMemory,Rank\"\nRequestMemory = 10"),
            job("ClusterId = 3\nProcId = 0\nRequestMemory = 10"),
        ];
        let ads: Vec<ClassAd> = autoclusters(jobs.into_iter())
            .unwrap()
            .into_iter()
            .map(|j| j.into_ad().unwrap())
            .collect();
        assert_eq!(ads.len(), 2);
        assert_eq!(lookup_int(&ads[0], "AutoClusterId"), Some(1));
        assert_eq!(lookup_int(&ads[1], "JobCount"), Some(2));
        assert_eq!(lookup_str(&ads[1], "JobIds").as_deref(), Some("1.0 2.0"));
        assert_eq!(lookup_int(&ads[1], "RequestMemory"), Some(10));
        assert!(ads[1].lookup("Rank").is_none());
    }

    #[test]
    fn group_by_numbers_groups_as_first_seen() {
        let jobs = vec![
            job("ClusterId = 1\nProcId = 0\nOwner = \"b\"\nCmd = \"x\""),
            job("ClusterId = 1\nProcId = 1\nOwner = \"a\"\nCmd = \"y\""),
            job("ClusterId = 2\nProcId = 0\nOwner = \"b\"\nCmd = \"z\""),
        ];
        let ads: Vec<ClassAd> = group_by(jobs.into_iter(), &["Owner".into()])
            .unwrap()
            .into_iter()
            .map(|j| j.into_ad().unwrap())
            .collect();
        assert_eq!(ads.len(), 2);
        assert_eq!(lookup_str(&ads[0], "Owner").as_deref(), Some("b"));
        assert_eq!(lookup_int(&ads[0], "Id"), Some(1));
        assert_eq!(lookup_str(&ads[0], "JobIds").as_deref(), Some("1.0 2.0"));
        assert!(ads[0].lookup("Cmd").is_none());
        assert_eq!(lookup_int(&ads[1], "JobCount"), Some(1));
    }
}
