//! The journal: the step's queue changes and pending events, and the one commit per step
//! that writes them (then the events, then the jobs their `OtherJobRemoveRequirements` take).

use std::path::Path;

use super::*;

/// What the step changes in one job, made in one read and one write of it.
#[derive(Clone, Default)]
pub(super) struct JobChange {
    /// The status the job had when the step decided the change: if another process
    /// changed it meanwhile (a `condor_rm` or `condor_hold` racing the job's end), that
    /// process wins and this change is dropped.
    pub(super) expect: Option<JobStatus>,
    pub(super) update: AdUpdate,
    pub(super) status: Option<JobStatus>,
    pub(super) to_history: bool,
    /// The job is removed or completes with an `OtherJobRemoveRequirements`: the jobs it
    /// matches are removed in the same transaction.
    pub(super) others: Option<OtherJobRemoval>,
}

/// The step's queue changes, job by job, in the order the jobs were first changed.
#[derive(Clone, Default)]
pub(super) struct Changes {
    pub(super) order: Vec<JobId>,
    pub(super) jobs: HashMap<JobId, JobChange>,
}

impl Changes {
    pub(super) fn of(&mut self, id: JobId) -> &mut JobChange {
        let order = &mut self.order;
        self.jobs.entry(id).or_insert_with(|| {
            order.push(id);
            JobChange::default()
        })
    }

    /// The changes of a job the step found in `status`.
    pub(super) fn expecting(&mut self, id: JobId, status: JobStatus) -> &mut JobChange {
        let c = self.of(id);
        c.expect.get_or_insert(status);
        c
    }

    pub(super) fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// What the step changed and has to log: written by [`Pool::commit`], once per step.
#[derive(Default)]
pub(super) struct Journal {
    pub(super) changes: Changes,
    pub(super) events: Vec<PendingEvent>,
    /// The ads of the runs that ended, for the job epoch history once the step commits.
    pub(super) epochs: Vec<ClassAd>,
    /// The scratch directories of the runs that ended, removed once the step commits: until
    /// then a master that dies leaves the waiter's record of the exit for the next one.
    pub(super) scratch_dirs: Vec<std::path::PathBuf>,
    /// The directories of scheduler-universe jobs whose execute event this step logs: marked
    /// once it is written (their event names no scratch directory to mark by).
    pub(super) executed_marks: Vec<(JobId, std::path::PathBuf)>,
}

/// An event to log once the step's transaction has committed.
pub(super) struct PendingEvent {
    pub(super) logs: JobLogs,
    pub(super) id: JobId,
    pub(super) body: EventBody,
}

impl Pool {
    /// Commits the step's queue changes in one transaction, then logs its events; the
    /// running jobs that finished jobs' `OtherJobRemoveRequirements` removed, to stop.
    pub(super) fn commit(&mut self) -> Result<Vec<Action>, DaemonError> {
        if self.journal.changes.is_empty()
            && self.journal.events.is_empty()
            && self.journal.epochs.is_empty()
        {
            return Ok(Vec::new());
        }
        let changes = std::mem::take(&mut self.journal.changes);
        let running: std::collections::HashSet<JobId> = self
            .shadow
            .running
            .keys()
            .chain(self.schedd.local.running.keys())
            .copied()
            .collect();
        let result = self.queue.transaction_at(self.session.now, |tx| {
            let mut dropped = Vec::new();
            let mut ended = Vec::new();
            let mut aborted = Vec::new();
            let mut finished = Vec::new();
            for id in &changes.order {
                let Some(c) = changes.jobs.get(id) else {
                    continue;
                };
                let current = tx.job_status(*id)?;
                if let (Some(expect), Some(now)) = (c.expect, current) {
                    if now != expect.code() {
                        // Another process got there first; its change stands.
                        dropped.push(*id);
                        if now == JobStatus::Removed.code() && !running.contains(id) {
                            let reason =
                                tx.job(*id)?.and_then(|j| j.into_ad().ok()).and_then(|ad| {
                                    lookup_str(&ad, "RemoveReason").map(|s| s.to_string())
                                });
                            tx.move_to_history(*id)?;
                            aborted.push((*id, reason));
                        } else if !running.contains(id) {
                            // The run ended all the same (a release racing a held job's
                            // exit): its bookkeeping (no host any more, the run's usage) is
                            // kept, under the status the other process set, and so is
                            // the eviction that ended it.
                            ended.push(*id);
                            let (set, delete) = run_bookkeeping(&c.update);
                            if !set.is_empty() || !delete.is_empty() {
                                if let Err(e) = tx.update_job(*id, &set, &delete, None) {
                                    if !e.is_job_rule() {
                                        return Err(e);
                                    }
                                    tracing::warn!("job {id}: {e}");
                                }
                            }
                        }
                        continue;
                    }
                }
                if current.is_none() {
                    dropped.push(*id);
                    continue;
                }
                let written = if c.to_history {
                    tx.finish_job(*id, &c.update.set, &c.update.delete, c.status)
                        .map(|_| ())
                } else {
                    tx.update_job(*id, &c.update.set, &c.update.delete, c.status)
                        .map(|_| ())
                };
                match written {
                    Ok(()) => finished.extend(c.others.as_ref()),
                    // The changes were written; only the move to the history was refused.
                    Err(e @ crate::queue::QueueError::NotFinished { .. }) => {
                        tracing::warn!("job {id}: {e}");
                        finished.extend(c.others.as_ref());
                    }
                    Err(e) if e.is_job_rule() => {
                        tracing::warn!("job {id}: {e}");
                        dropped.push(*id);
                    }
                    Err(e) => return Err(e),
                }
            }
            // The finished jobs' `OtherJobRemoveRequirements`, once every change is written.
            let mut others = Vec::new();
            for removal in finished {
                others.extend(remove_other_jobs(tx, removal)?);
            }
            Ok::<_, crate::queue::QueueError>((dropped, ended, aborted, others))
        });
        // (`data_version` does not count this connection's own commits.)
        let (dropped, ended, aborted, others) = match result {
            Ok(r) => r,
            Err(e) => {
                // Nothing was written: the changes and their events wait for the next step.
                self.journal.changes = changes;
                return Err(e.into());
            }
        };
        if !dropped.is_empty() {
            self.schedd.reload_next = true;
        }
        self.shadow.cleaner.sync(self.queue.wal_path());
        for dir in std::mem::take(&mut self.journal.scratch_dirs) {
            self.shadow.cleaner.recycle(dir);
        }
        let events = std::mem::take(&mut self.journal.events);
        let logs: HashMap<JobId, JobLogs> = events.iter().map(|e| (e.id, e.logs.clone())).collect();
        let mut batch = LogBatch::default();
        let mut executed = Vec::new();
        for e in events {
            let evicted = matches!(e.body, EventBody::JobEvicted(_)) && ended.contains(&e.id);
            if !dropped.contains(&e.id) || evicted {
                if let EventBody::Execute(x) = &e.body {
                    executed.extend(lookup_str(&x.props, "CondorScratchDir"));
                }
                batch.push(&e.logs, e.id.cluster.0, e.id.proc, self.session.now, e.body);
            }
        }
        batch.write();
        for dir in executed {
            mark_executed(Path::new(&*dir));
        }
        for (id, dir) in std::mem::take(&mut self.journal.executed_marks) {
            if !dropped.contains(&id) {
                mark_executed(&dir);
            }
        }
        let epochs = std::mem::take(&mut self.journal.epochs);
        if let Some(history) = crate::schedd::epoch::EpochHistory::from_config(&self.config) {
            for ad in &epochs {
                if let Err(e) = history.append(ad, self.session.now) {
                    tracing::error!("job epoch history {}: {e}", history.path.display());
                }
            }
        }
        for (id, reason) in aborted {
            if let Some(l) = logs.get(&id) {
                l.write(
                    id.cluster.0,
                    id.proc,
                    self.session.now,
                    EventBody::JobAborted(JobAborted { reason }),
                );
            }
        }
        Ok(others
            .into_iter()
            .filter_map(|other| self.removed_other(other))
            .collect())
    }

    /// A job another's `OtherJobRemoveRequirements` removed in a commit of the pool's: its
    /// process to kill (it leaves the queue once gone), or its abort logged now.
    pub(super) fn removed_other(
        &mut self,
        other: crate::client::actions::RemovedOther,
    ) -> Option<Action> {
        let id = other.id;
        tracing::info!("job {id} {}", other.reason);
        let reason = Expr::lit(other.reason.as_str());
        let stop = Action::Stop {
            job: id,
            stop: Stop::Remove,
            fast: false,
        };
        if let Some(r) = self.shadow.running.get_mut(&id) {
            r.ad.insert("RemoveReason", reason);
            return Some(stop);
        } else if let Some(l) = self.schedd.local.running.get_mut(&id) {
            l.ad.insert("RemoveReason", reason);
            return Some(stop);
        } else if other.running {
            // Running as far as the queue knows, but not here: the next recovery or reload
            // sees to it.
            self.schedd.reload_next = true;
        } else {
            self.schedd.idle.remove(id);
            self.schedd.local.forget_idle(id);
            JobLogs::of(&self.session, &other.ad).write(
                id.cluster.0,
                id.proc,
                self.session.now,
                EventBody::JobAborted(JobAborted {
                    reason: Some(other.reason),
                }),
            );
        }
        None
    }

    /// Job `id` (whose ad this is) is removed or completes in this step: its
    /// `OtherJobRemoveRequirements`, if any, removes the jobs it matches when the step
    /// commits (the schedd does it when such a job leaves the queue: `jobIsFinished`).
    pub(super) fn finishing(&mut self, id: JobId, ad: &ClassAd) {
        if let Some(others) = OtherJobRemoval::of(id, ad) {
            self.journal.changes.of(id).others = Some(others);
        }
    }

    /// A removed job (whose ad this is) leaves the queue in this step: to the history, its
    /// `OtherJobRemoveRequirements` applied, its abort (009, with its `RemoveReason`) logged.
    pub(super) fn leaves_removed(&mut self, id: JobId, ad: &ClassAd, logs: JobLogs) {
        self.journal.changes.of(id).to_history = true;
        self.finishing(id, ad);
        self.journal.events.push(PendingEvent {
            logs,
            id,
            body: EventBody::JobAborted(JobAborted {
                reason: lookup_str(ad, "RemoveReason").map(|s| s.to_string()),
            }),
        });
    }

    /// Queues an outcome's changes: its attributes, then its status.
    pub(super) fn push_outcome(&mut self, id: JobId, outcome: Outcome) {
        self.journal.changes.of(id).update.extend(outcome.updates);
        if let Some(status) = outcome.status {
            self.journal.changes.of(id).status = Some(status);
        }
    }
}

/// The attributes a status change decides (the status, when it was entered, the reasons of
/// holds, releases and removals): a change whose status was overtaken leaves them alone.
const STATUS_ATTRS: &[&str] = &[
    "JobStatus",
    "EnteredCurrentStatus",
    "HoldReason",
    "HoldReasonCode",
    "HoldReasonSubCode",
    "LastHoldReason",
    "LastHoldReasonCode",
    "LastHoldReasonSubCode",
    "NumHolds",
    "NumHoldsByReason",
    "ReleaseReason",
    "RemoveReason",
    "JobStatusOnRelease",
    "LastJobStatus",
];

/// What of an overtaken change still holds: everything but what its status decided.
fn run_bookkeeping(update: &AdUpdate) -> (Vec<(String, Expr)>, Vec<String>) {
    let keep = |name: &str| !STATUS_ATTRS.iter().any(|a| a.eq_ignore_ascii_case(name));
    (
        update
            .set
            .iter()
            .filter(|(n, _)| keep(n))
            .cloned()
            .collect(),
        update.delete.iter().filter(|n| keep(n)).cloned().collect(),
    )
}

/// Marks a job's directory: its execute event is in the log (what tells a later master not to
/// log it again).
fn mark_executed(dir: &Path) {
    if let Err(e) = starter::waiter::mark_executed(dir) {
        tracing::warn!("cannot mark {}'s execute event logged: {e}", dir.display());
    }
}
