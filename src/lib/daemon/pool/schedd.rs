//! The schedd: the idle jobs, recovery at start, the queue changed by other processes, the
//! periodic user policy, holds and requeues.

use super::*;

/// The schedd's state: the idle jobs, its own (scheduler-universe) jobs, the job policy.
pub(super) struct ScheddState {
    /// The store's `data_version` when the pool last read the queue's changes.
    pub(super) data_version: i64,
    /// The idle jobs must be read again (a change of this pool's was dropped).
    pub(super) reload_next: bool,
    pub(super) policy: UserPolicy,
    pub(super) run_config: RunConfig,
    /// `ACCOUNTING_DOMAIN` (else `UID_DOMAIN`), in the submitters' names.
    pub(super) accounting_domain: String,
    /// The idle jobs the negotiator is offered.
    pub(super) idle: IdleIndex,
    /// The scheduler-universe jobs, which the schedd runs itself.
    pub(super) local: LocalJobs,
    /// The clusters an embedded pool runs (`None`: every job, as a master does).
    pub(super) scope: Option<BTreeSet<i32>>,
    /// The autoclusters the job ads are numbered by.
    pub(super) autoclusters: super::autoclusters::ScheddAutoclusters,
}

impl ScheddState {
    /// Whether this pool runs job `id`.
    pub(super) fn in_scope(&self, id: JobId) -> bool {
        self.scope
            .as_ref()
            .is_none_or(|s| s.contains(&id.cluster.0))
    }
}

/// Where a job stands in its submitter's order: higher priorities first, then older ids.
pub(super) type SubmitterOrder = (std::cmp::Reverse<[i64; 5]>, JobId);

/// The idle jobs, by id and in each submitter's order.
#[derive(Default)]
pub(super) struct IdleIndex {
    pub(super) jobs: BTreeMap<JobId, IdleJob>,
    pub(super) by_submitter: HashMap<Arc<str>, BTreeSet<SubmitterOrder>>,
    /// The store's change stamps of the jobs as read from it; a job the pool changed in
    /// memory has none (it is read again at the next reload).
    pub(super) stamps: HashMap<JobId, Stamp>,
}

impl IdleIndex {
    pub(super) fn insert(&mut self, id: JobId, job: IdleJob) {
        if let Some(old) = self.jobs.remove(&id) {
            self.unlink(id, &old);
        }
        self.stamps.remove(&id);
        let key = (std::cmp::Reverse(job.prio.0), id);
        self.by_submitter
            .entry(job.submitter.clone())
            .or_default()
            .insert(key);
        self.jobs.insert(id, job);
    }

    pub(super) fn unlink(&mut self, id: JobId, job: &IdleJob) {
        if let Some(set) = self.by_submitter.get_mut(&job.submitter) {
            set.remove(&(std::cmp::Reverse(job.prio.0), id));
            if set.is_empty() {
                self.by_submitter.remove(&job.submitter);
            }
        }
    }

    pub(super) fn remove(&mut self, id: JobId) -> Option<IdleJob> {
        let job = self.jobs.remove(&id)?;
        self.unlink(id, &job);
        self.stamps.remove(&id);
        Some(job)
    }

    /// Inserts a job read from the store with its stamps.
    pub(super) fn insert_read(&mut self, id: JobId, job: IdleJob, stamp: Stamp) {
        self.insert(id, job);
        self.stamps.insert(id, stamp);
    }

    /// The submitter's idle jobs, best first.
    pub(super) fn of(&self, submitter: &str) -> impl Iterator<Item = &IdleJob> + '_ {
        self.by_submitter
            .get(submitter)
            .into_iter()
            .flatten()
            .filter_map(|(_, id)| self.jobs.get(id))
    }
}

/// The 012 event of a hold.
pub(super) fn held_event(reason: &str, code: i64, subcode: i64) -> EventBody {
    EventBody::JobHeld(JobHeld {
        reason: Some(reason.to_owned()),
        code: code as i32,
        subcode: subcode as i32,
    })
}

impl Pool {
    /// Reads the idle jobs again after another process changed the queue: only the ads of
    /// jobs that are new or whose change stamps moved (a 10,000-job idle queue costs a scan
    /// of its status index, not 10,000 ads decoded).
    pub(super) fn reload_idle(&mut self) -> Result<(), DaemonError> {
        let mut scanned = self.queue.stamps(JobStatus::Idle)?;
        if self.schedd.scope.is_some() {
            scanned.retain(|(id, _)| self.schedd.in_scope(*id));
        }
        // Jobs no longer idle (or gone) leave the index: a walk of both sorted lists.
        let mut gone = Vec::new();
        let mut next = scanned.iter().map(|(id, _)| *id).peekable();
        for &id in self.schedd.idle.jobs.keys() {
            while next.next_if(|s| *s < id).is_some() {}
            if next.peek() != Some(&id) || self.shadow.running.contains_key(&id) {
                gone.push(id);
            }
        }
        for id in gone {
            self.schedd.idle.remove(id);
        }
        self.schedd.local.retain_idle(&scanned);
        // New, changed by another process, or changed in memory by the pool: read again by
        // key (the jobs of one cluster then share its ad).
        let mut stale: BTreeMap<JobId, Stamp> = scanned
            .into_iter()
            .filter(|(id, stamp)| {
                !self.shadow.running.contains_key(id)
                    && !self.schedd.local.is_running(*id)
                    && self.schedd.idle.stamps.get(id) != Some(stamp)
                    && !self.schedd.local.has_stamp(*id, stamp)
            })
            .collect();
        if stale.is_empty() {
            return Ok(());
        }
        let mut read = Vec::new();
        for job in self.queue.jobs_by_id(stale.keys().copied())? {
            if job.status_code() != JobStatus::Idle.code() {
                continue;
            }
            let id = job.id();
            if let Some(stamp) = stale.remove(&id) {
                match job.into_ad() {
                    Ok(ad) => read.push((id, ad, stamp)),
                    // One job that cannot be read must not stop the others: it is left out
                    // of the idle jobs until it changes.
                    Err(e) => {
                        tracing::warn!("job {id} cannot be read, so it is not run: {e}");
                        self.schedd.idle.remove(id);
                        self.schedd.local.forget_idle(id);
                    }
                }
            }
        }
        // What is left was gone or no longer idle by the read (a commit after the scan):
        // the next reload sees where it went.
        for id in stale.into_keys() {
            self.schedd.idle.remove(id);
            self.schedd.local.forget_idle(id);
        }
        for (id, ad, stamp) in read {
            if local::is_scheduler_universe(&ad) {
                // Never negotiated for: the schedd starts it itself.
                self.schedd.idle.remove(id);
                self.schedd.local.insert_idle(id, ad, Some(stamp));
                continue;
            }
            self.schedd.local.forget_idle(id);
            self.schedd.idle.insert_read(
                id,
                IdleJob::new(job_key(id), ad, &self.schedd.accounting_domain),
                stamp,
            );
        }
        Ok(())
    }

    /// Another process changed the queue: new or released jobs, and running jobs removed or
    /// held (the stops of those on slots, for the shadow).
    pub(super) fn queue_changed(&mut self, now: Now) -> Result<Vec<Action>, DaemonError> {
        self.reload_idle()?;
        let mut running: Vec<JobId> = self.shadow.running.keys().copied().collect();
        running.sort();
        let mut stops = Vec::new();
        for id in running {
            let job = self.queue.job(id)?;
            let status = job.as_ref().map(|j| j.status_code());
            let stop = match status.and_then(JobStatus::from_code) {
                None | Some(JobStatus::Removed) => Stop::Remove,
                Some(JobStatus::Held) => Stop::Hold,
                _ => continue,
            };
            // The tool's reasons, for the events and the history.
            if let (Some(job), Some(r)) = (job, self.shadow.running.get_mut(&id)) {
                for (attr, e) in stop_reasons(job) {
                    r.ad.insert(attr, e);
                }
            }
            stops.push(Action::Stop {
                job: id,
                stop,
                fast: false,
            });
        }
        self.local_queue_changed(now)?;
        self.timers.negotiate_now = true;
        Ok(stops)
    }

    /// The periodic policy pass over every job (`PERIODIC_EXPR_INTERVAL`): the running jobs
    /// it stops, for the shadow (or the schedd itself, for its own jobs).
    pub(super) fn periodic(&mut self, now: Now) -> Result<Vec<Action>, DaemonError> {
        let t = now.t;
        // The pass reads the queue: what this step changed is committed first.
        let mut stops = self.commit()?;
        for (id, status, mut ad) in self.readable_jobs(&JobQuery::all(), "the periodic policy")? {
            let Some(status) = JobStatus::from_code(status) else {
                continue;
            };
            if !self.schedd.in_scope(id) {
                continue;
            }
            if let Some(r) = self.shadow.running.get(&id) {
                if r.stop.is_some() {
                    continue;
                }
                ad = r.ad.clone();
            }
            if let Some(l) = self.schedd.local.running.get(&id) {
                if l.stop.is_some() {
                    continue;
                }
                ad = l.ad.clone();
            }
            if self.leaves_queue_now(id, status, &ad) {
                continue;
            }
            let firing = self.schedd.policy.periodic(&ad, status.code(), t);
            if !firing.fired() {
                continue;
            }
            self.journal.changes.expecting(id, status);
            let logs = JobLogs::of(&self.session, &ad);
            let reason = firing.reason_or_unknown().to_owned();
            if self.shadow.running.contains_key(&id) || self.schedd.local.is_running(id) {
                match firing.action {
                    PolicyAction::HoldInQueue | PolicyAction::UndefinedEval => {
                        self.hold(id, &ad, &reason, firing.code, firing.subcode, logs);
                        stops.push(Action::Stop {
                            job: id,
                            stop: Stop::Hold,
                            fast: false,
                        });
                    }
                    PolicyAction::RemoveFromQueue => {
                        self.journal
                            .changes
                            .of(id)
                            .update
                            .set("RemoveReason", Expr::lit(reason.as_str()));
                        if let Some(r) = self.shadow.running.get_mut(&id) {
                            r.ad.insert("RemoveReason", Expr::lit(reason.as_str()));
                        }
                        if let Some(l) = self.schedd.local.running.get_mut(&id) {
                            l.ad.insert("RemoveReason", Expr::lit(reason.as_str()));
                        }
                        self.journal.changes.of(id).status = Some(JobStatus::Removed);
                        self.finishing(id, &ad);
                        stops.push(Action::Stop {
                            job: id,
                            stop: Stop::Remove,
                            fast: false,
                        });
                    }
                    PolicyAction::VacateFromRunning => stops.push(Action::Stop {
                        job: id,
                        stop: Stop::Vacate {
                            reason,
                            code: firing.vacate_code(),
                            subcode: firing.subcode,
                        },
                        fast: false,
                    }),
                    PolicyAction::StaysInQueue | PolicyAction::ReleaseFromHold => {}
                }
                continue;
            }
            let Some(outcome) =
                run::periodic_outcome(&self.schedd.run_config, &ad, status, &firing, t)
            else {
                continue;
            };
            let body = match outcome.status {
                Some(JobStatus::Held) => held_event(&reason, firing.code, firing.subcode),
                Some(JobStatus::Removed) => EventBody::JobAborted(JobAborted {
                    reason: Some(reason.clone()),
                }),
                _ => EventBody::JobReleased(crate::eventlog::JobReleased {
                    reason: Some(reason.clone()),
                }),
            };
            let new_status = outcome.status;
            let mut updated = ad.clone();
            outcome.updates.apply(&mut updated);
            self.schedd.idle.remove(id);
            self.schedd.local.forget_idle(id);
            self.push_outcome(id, outcome);
            match new_status {
                Some(JobStatus::Removed) => {
                    self.journal.changes.of(id).to_history = true;
                    self.finishing(id, &updated);
                }
                Some(JobStatus::Idle) => {
                    self.requeue(id, updated, now);
                    self.timers.negotiate_now = true;
                }
                _ => {}
            }
            self.journal.events.push(PendingEvent { logs, id, body });
        }
        Ok(stops)
    }

    /// A completed or removed job that stayed in the queue (its `LeaveJobInQueue`) and no
    /// longer runs is asked again at each periodic pass, as the schedd's `PeriodicExprEval`
    /// calls `DestroyProc` on it: once the expression is no longer true (a `condor_submit
    /// -spool` job ten days after it completed, its output never fetched), the job goes to
    /// the history in this step's commit, and its spool directory with it. Nothing is logged:
    /// its end (or its abort) was logged when it happened.
    fn leaves_queue_now(&mut self, id: JobId, status: JobStatus, ad: &ClassAd) -> bool {
        let stays = match status {
            JobStatus::Completed => false,
            // A removed job still running as far as the queue knows is the recovery's.
            JobStatus::Removed => ad.lookup("RemoteHost").is_some(),
            _ => true,
        };
        if stays
            || self.shadow.running.contains_key(&id)
            || self.schedd.local.is_running(id)
            || ad.eval_attr("LeaveJobInQueue").as_bool_equiv() == Some(true)
        {
            return false;
        }
        tracing::info!("job {id} leaves the queue: its LeaveJobInQueue is no longer true");
        self.journal.changes.expecting(id, status).to_history = true;
        true
    }

    /// Puts a job that is not running on hold, logging the hold.
    pub(super) fn hold(
        &mut self,
        id: JobId,
        ad: &ClassAd,
        reason: &str,
        code: i64,
        subcode: i64,
        logs: JobLogs,
    ) {
        self.schedd.idle.remove(id);
        self.schedd.local.forget_idle(id);
        self.journal
            .changes
            .of(id)
            .update
            .extend(run::hold_updates(ad, reason, code, subcode));
        self.journal.changes.of(id).status = Some(JobStatus::Held);
        self.journal.events.push(PendingEvent {
            logs,
            id,
            body: held_event(reason, code, subcode),
        });
    }

    /// Puts a job back among the idle ones (its status is committed in the same step). A job
    /// cooling down (`SYSTEM_ON_VACATE_COOL_DOWN`) is negotiated for again when it expires.
    /// A scheduler-universe job goes back to the schedd's own idle jobs.
    pub(super) fn requeue(&mut self, id: JobId, mut ad: ClassAd, now: Now) {
        if local::is_scheduler_universe(&ad) {
            ad.insert("JobStatus", Expr::lit(JobStatus::Idle.code()));
            self.schedd.local.insert_idle(id, ad, None);
            return;
        }
        if let Some(until) = lookup_int(&ad, "JobCoolDownExpiration") {
            self.timers.next_negotiation = self.timers.next_negotiation.min(now.instant_at(until));
        }
        ad.insert("JobStatus", Expr::lit(JobStatus::Idle.code()));
        self.schedd.idle.insert(
            id,
            IdleJob::new(job_key(id), ad, &self.schedd.accounting_domain),
        );
    }
}

impl Pool {
    /// The jobs a query selects, each with its status and ad; a job that cannot be read is
    /// reported (with `what` the pass was for) and left out, so that one bad row does not
    /// stop the pass over the others.
    pub(super) fn readable_jobs(
        &self,
        query: &JobQuery,
        what: &str,
    ) -> Result<Vec<(JobId, i64, ClassAd)>, DaemonError> {
        let mut jobs = Vec::new();
        for job in self.queue.jobs(query)? {
            let job = match job {
                Ok(job) => job,
                Err(e) => {
                    tracing::warn!("a job cannot be read for {what}: {e}");
                    continue;
                }
            };
            let (id, status) = (job.id(), job.status_code());
            match job.into_ad() {
                Ok(ad) => jobs.push((id, status, ad)),
                Err(e) => tracing::warn!("job {id} cannot be read for {what}: {e}"),
            }
        }
        Ok(jobs)
    }
}

/// The reasons a tool recorded in a job it removed or held (`RemoveReason`, `HoldReason`,
/// `HoldReasonCode`, `HoldReasonSubCode`), for the events and the history of the run it
/// stops; none when the job cannot be read.
pub(super) fn stop_reasons(job: crate::queue::Job) -> Vec<(&'static str, Expr)> {
    let id = job.id();
    let ad = match job.into_ad() {
        Ok(ad) => ad,
        Err(e) => {
            tracing::warn!("job {id} cannot be read for its stop reasons: {e}");
            return Vec::new();
        }
    };
    [
        "RemoveReason",
        "HoldReason",
        "HoldReasonCode",
        "HoldReasonSubCode",
    ]
    .into_iter()
    .filter_map(|attr| ad.lookup(attr).map(|e| (attr, e.clone())))
    .collect()
}
