//! The schedd's autoclusters in the job ads: before each negotiation cycle, as the schedd's
//! `BuildPrioRecArray` does, every job gets `AutoClusterId` and `AutoClusterAttrs` (see
//! [`crate::schedd::autocluster`]), kept until an edit of one of those attributes clears them
//! (the queue's `SetAttribute` rule). When the significant attributes change (and at the first
//! cycle of a master: ids a previous master gave mean nothing to this one) every job of the
//! queue is numbered again; otherwise only the idle jobs without an id are. An embedded pool
//! (`condor_run` without a master) leaves the queue's other jobs alone and numbers none.

use super::*;
use crate::schedd::autocluster::{
    configured_significant, negotiator_significant, JobClusters, AUTO_CLUSTER_ATTRS,
    AUTO_CLUSTER_ID,
};

/// Above this many signatures more than the jobs could use, the ids start over.
const SPARE_SIGNATURES: usize = 4096;

/// The schedd's autocluster state.
#[derive(Debug, Default)]
pub(super) struct ScheddAutoclusters {
    clusters: JobClusters,
    /// The ids in the job ads are this master's (a first full numbering was done).
    primed: bool,
}

impl Pool {
    /// Numbers the jobs (see the module documentation), the slots being `slots`.
    pub(super) fn assign_autoclusters(&mut self, slots: &[ClassAd]) -> Result<(), DaemonError> {
        if self.schedd.scope.is_some() {
            return Ok(());
        }
        let cfg = self.matchmaker.negotiator.config();
        let policy: Vec<&Expr> = cfg.job_policy_exprs().collect();
        let Some(from_negotiator) =
            negotiator_significant(slots, &policy, cfg.job_constraint.as_ref())
        else {
            return Ok(());
        };
        let (attrs, replace) = configured_significant(&self.config, &from_negotiator);
        let acs = &mut self.schedd.autoclusters;
        let mut all = acs.clusters.set_significant(&attrs, replace) || !acs.primed;
        if acs.clusters.len() > 4 * self.schedd.idle.jobs.len() + SPARE_SIGNATURES {
            acs.clusters.clear();
            all = true;
        }
        acs.primed = true;
        if all {
            acs.clusters.clear();
            let jobs: Vec<(JobId, JobStatus, ClassAd)> = self
                .queue
                .jobs(&JobQuery::all())?
                .filter_map(|job| {
                    let job = job.ok()?;
                    let status = job.status()?;
                    Some((job.id(), status, job.into_ad().ok()?))
                })
                .collect();
            for (id, status, ad) in jobs {
                self.number_job(id, status, &ad);
            }
        } else {
            let unnumbered: Vec<(JobId, ClassAd)> = self
                .schedd
                .idle
                .jobs
                .iter()
                .filter(|(_, j)| lookup_int(&j.ad, AUTO_CLUSTER_ID).is_none())
                .map(|(id, j)| (*id, j.ad.clone()))
                .collect();
            for (id, ad) in unnumbered {
                self.number_job(id, JobStatus::Idle, &ad);
            }
        }
        Ok(())
    }

    /// Gives job `id` (found in `status`, its ad `ad`) its autocluster, in the queue and in
    /// the idle jobs; nothing is written when the ad has it already.
    fn number_job(&mut self, id: JobId, status: JobStatus, ad: &ClassAd) {
        let (ac, attrs) = self.schedd.autoclusters.clusters.cluster_id(ad);
        let attrs = attrs.join(",");
        if lookup_int(ad, AUTO_CLUSTER_ID) == Some(ac)
            && lookup_str(ad, AUTO_CLUSTER_ATTRS).as_deref() == Some(attrs.as_str())
        {
            return;
        }
        let update = &mut self.journal.changes.expecting(id, status).update;
        update.set(AUTO_CLUSTER_ID, Expr::lit(ac));
        update.set(AUTO_CLUSTER_ATTRS, Expr::lit(attrs.as_str()));
        if let Some(job) = self.schedd.idle.jobs.get_mut(&id) {
            job.ad.insert(AUTO_CLUSTER_ID, Expr::lit(ac));
            job.ad.insert(AUTO_CLUSTER_ATTRS, Expr::lit(attrs.as_str()));
            self.schedd.idle.stamps.remove(&id);
        }
    }
}
