//! The schedd's job factories (late materialization, HTCondor's qmgmt.cpp `MaterializeJobs`
//! and qmgmt_factory.cpp): each factory cluster gets its next procs while it has fewer than
//! `JobMaterializeLimit` procs in the queue (and fewer than `MAX_JOBS_PER_SUBMISSION`) and,
//! with `JobMaterializeMaxIdle`, fewer than that many not running; proc ids and item rows
//! go in order. A factory that is done (every proc made, or `condor_rm` removed it) leaves
//! the queue with its cluster once its last proc has, with the cluster remove event (036).
//!
//! The decision ([`decide`]) is a function of the cluster's counts and attributes; making
//! the procs ([`Pool::materialize`]) is one queue transaction that adds them and moves
//! `JobMaterializeNextProcId`/`JobMaterializeNextRow` on, so a master killed at any point
//! makes no proc twice and skips none. A factory whose jobs cannot be made is paused
//! (`JobMaterializePaused = 1`, with the reason in `JobMaterializePauseReason`), as
//! HTCondor's is held.

use super::*;
use crate::client::actions::{FACTORY_PAUSED, FACTORY_PAUSE_REASON};
use crate::client::submit::{EventPlan, GlobalJobId};
use crate::eventlog::{ClusterRemove, Completion};
use crate::queue::{ClusterId, Factory, ProcCounts, NEXT_PROC_ID, NEXT_ROW};
use crate::submit::factory::Digest;

/// HTCondor's `mmHold`: a factory paused by `condor_hold` or by an error.
pub(super) const PAUSED_HOLD: i64 = 1;

/// What the schedd knows of one factory when it decides.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct FactoryView {
    /// `JobMaterializeLimit` (no limit when absent or not positive).
    pub(super) limit: Option<i64>,
    /// `JobMaterializeMaxIdle` (no limit when absent or negative).
    pub(super) max_idle: Option<i64>,
    /// `MAX_JOBS_PER_SUBMISSION`.
    pub(super) system_limit: i64,
    pub(super) next_proc: i64,
    pub(super) total_procs: i64,
    /// `JobMaterializePaused` is set and not 0.
    pub(super) paused: bool,
    pub(super) removed: bool,
    pub(super) counts: ProcCounts,
}

/// What to do about a factory now.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum FactoryStep {
    /// Make this many procs, from `JobMaterializeNextProcId` on.
    Materialize(i64),
    /// The factory is done and its procs are gone: its cluster leaves the queue.
    Remove(Completion),
    Wait,
}

/// HTCondor's `MaterializeJobs` and `CheckMaterializePolicyExpression`, for one factory.
pub(super) fn decide(f: &FactoryView) -> FactoryStep {
    let complete = f.next_proc >= f.total_procs;
    if complete || f.removed {
        if f.counts.present > 0 {
            return FactoryStep::Wait;
        }
        // `mmClusterRemoved` is not one of the codes the event names: it stays Incomplete.
        return FactoryStep::Remove(if complete {
            Completion::Complete
        } else {
            Completion::Incomplete
        });
    }
    if f.paused {
        return FactoryStep::Wait;
    }
    let limit = f
        .limit
        .filter(|l| *l > 0)
        .unwrap_or(i64::from(i32::MAX))
        .min(f.system_limit);
    let mut room = limit - f.counts.present;
    if let Some(max_idle) = f.max_idle.filter(|m| *m >= 0) {
        room = room.min(max_idle - f.counts.not_running());
    }
    room = room.min(f.total_procs - f.next_proc);
    if room > 0 {
        FactoryStep::Materialize(room)
    } else {
        FactoryStep::Wait
    }
}

impl Pool {
    /// The factories' decisions, as actions for the loop.
    pub(super) fn factory_actions(&self) -> Result<Vec<Action>, DaemonError> {
        let mut actions = Vec::new();
        for factory in self.queue.factories()? {
            let cluster = factory.cluster;
            if !self.schedd.in_scope(JobId::new(cluster.0, 0)) {
                continue;
            }
            let Some(ad) = self.queue.cluster_ad(cluster)? else {
                continue;
            };
            let view = self.factory_view(&factory, &ad)?;
            match decide(&view) {
                FactoryStep::Materialize(count) => actions.push(Action::Materialize {
                    cluster,
                    first: view.next_proc,
                    count,
                }),
                FactoryStep::Remove(completion) => actions.push(Action::RemoveFactory {
                    cluster,
                    completion,
                }),
                FactoryStep::Wait => {}
            }
        }
        Ok(actions)
    }

    fn factory_view(&self, factory: &Factory, ad: &ClassAd) -> Result<FactoryView, DaemonError> {
        let eval = |name: &str| ad.eval_attr(name).as_number_int();
        Ok(FactoryView {
            limit: eval("JobMaterializeLimit"),
            max_idle: eval("JobMaterializeMaxIdle"),
            system_limit: self
                .config
                .int("MAX_JOBS_PER_SUBMISSION")
                .ok()
                .flatten()
                .unwrap_or(20_000)
                .max(1),
            next_proc: lookup_int(ad, NEXT_PROC_ID).unwrap_or(0),
            total_procs: factory.total_procs,
            paused: lookup_int(ad, FACTORY_PAUSED).is_some_and(|p| p != 0),
            removed: factory.removed,
            counts: self.queue.proc_counts(factory.cluster)?,
        })
    }

    /// Makes procs `first..first + count` of a factory's cluster, in one transaction, and
    /// logs their submit events once it has committed. A factory whose jobs cannot be made
    /// is paused, with the reason.
    pub(super) fn materialize(&mut self, cluster: ClusterId, first: i64, count: i64) {
        let made = self.make_factory_jobs(cluster, first, count);
        let (jobs, next_row) = match made {
            Ok(made) => made,
            Err(reason) => {
                tracing::error!("job factory {cluster}: {reason}; materialization paused");
                self.pause_factory(cluster, &reason);
                return;
            }
        };
        let global = GlobalJobId::of(&self.session);
        let mut events = EventPlan::new();
        let procs: Vec<ClassAd> = jobs
            .iter()
            .map(|job| {
                events.add(&self.session, job);
                let mut own = job.ad.clone();
                own.unchain();
                own.insert(
                    "GlobalJobId",
                    Expr::lit(global.of_job(job.cluster_id, job.proc_id).as_str()),
                );
                own
            })
            .collect();
        let result = self.queue.transaction_at(self.session.now, |tx| {
            tx.materialize(cluster, first as i32, procs, next_row)
        });
        match result {
            Ok(ids) => {
                tracing::info!(
                    "job factory {cluster}: materialized jobs {cluster}.{} to {cluster}.{}",
                    ids.start,
                    ids.end - 1
                );
                self.shadow.cleaner.sync(self.queue.wal_path());
                events.write(&self.session);
                // Its own commit does not move `data_version`: the new jobs are read now.
                self.schedd.reload_next = true;
                self.timers.negotiate_now = true;
            }
            Err(e) => tracing::error!("job factory {cluster}: {e}"),
        }
    }

    /// The jobs of procs `first..first + count`, and the item row the next proc will use.
    fn make_factory_jobs(
        &self,
        cluster: ClusterId,
        first: i64,
        count: i64,
    ) -> Result<(Vec<crate::submit::Job>, i64), String> {
        let text = self
            .queue
            .factory_digest(cluster)
            .map_err(|e| e.to_string())?
            .ok_or("the factory has no submit digest")?;
        let digest = Digest::from_json(&text)?;
        let file = digest
            .file(&self.config)
            .map_err(|e| e.condor_submit_text().trim().to_owned())?;
        let has_items = !digest.items.items.is_empty();
        let mut jobs = file.jobs(i64::from(cluster.0));
        let mut made = Vec::with_capacity(count.max(0) as usize);
        // The first job makes the cluster ad every other job is made against.
        match jobs.next() {
            Some(Ok(job)) if first == 0 => made.push(job),
            Some(Ok(_)) => jobs.skip_to(first),
            Some(Err(e)) => return Err(e.condor_submit_text().trim().to_owned()),
            None => return Err("the submit digest makes no jobs".into()),
        }
        while (made.len() as i64) < count {
            match jobs.next() {
                Some(Ok(job)) if job.cluster_id == i64::from(cluster.0) => made.push(job),
                Some(Ok(_)) | None => break,
                Some(Err(e)) => return Err(e.condor_submit_text().trim().to_owned()),
            }
        }
        if made.is_empty() {
            return Err(format!("the submit digest makes no job {cluster}.{first}"));
        }
        let step_size = jobs.step_size();
        let next_row = match made.last() {
            Some(last) if has_items && last.step + 1 >= step_size => last.item_index + 1,
            Some(last) if has_items => last.item_index,
            _ => 0,
        };
        Ok((made, next_row))
    }

    /// Pauses a factory whose jobs cannot be made (HTCondor's `mmHold`), with the reason.
    fn pause_factory(&mut self, cluster: ClusterId, reason: &str) {
        let result = self.queue.transaction_at(self.session.now, |tx| {
            tx.set_attr(cluster, FACTORY_PAUSED, Expr::lit(PAUSED_HOLD))?;
            tx.set_attr(cluster, FACTORY_PAUSE_REASON, Expr::lit(reason))
        });
        if let Err(e) = result {
            tracing::error!("job factory {cluster}: pausing it: {e}");
        }
    }

    /// A done factory's cluster leaves the queue, with its cluster remove event (036).
    pub(super) fn remove_factory(&mut self, cluster: ClusterId, completion: Completion) {
        let ad = match self.queue.cluster_ad(cluster) {
            Ok(Some(ad)) => ad,
            Ok(None) => return,
            Err(e) => {
                tracing::error!("job factory {cluster}: {e}");
                return;
            }
        };
        let result = self
            .queue
            .transaction_at(self.session.now, |tx| tx.delete_factory_cluster(cluster));
        match result {
            Ok(true) => {
                tracing::info!("job factory {cluster} is done: its cluster left the queue");
                let logs = JobLogs::of(&self.session, &ad);
                let body = EventBody::ClusterRemove(ClusterRemove {
                    next_proc_id: lookup_int(&ad, NEXT_PROC_ID).unwrap_or(0) as i32,
                    next_row: lookup_int(&ad, NEXT_ROW).unwrap_or(0) as i32,
                    completion,
                    notes: lookup_str(&ad, FACTORY_PAUSE_REASON).map(|s| s.to_string()),
                });
                logs.write(cluster.0, -1, self.session.now, body);
            }
            Ok(false) => {}
            Err(e) => tracing::error!("job factory {cluster}: {e}"),
        }
    }
}
