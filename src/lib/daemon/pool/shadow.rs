//! The shadow: starting a job on a slot, its exit and completion, stopping, suspending,
//! continuing and signalling it.

use super::*;

/// The most a removed or held job's process gets between its kill signal and SIGKILL
/// (condorlite's bound: a removal is meant to be prompt).
pub(super) const REMOVE_KILL_TIME: i64 = 10;

/// The shadows: the jobs running on slots, and what watches and cleans up after them.
pub(super) struct Shadows {
    /// Where the jobs' scratch directories are (`EXECUTE`).
    pub(super) execute: PathBuf,
    pub(super) running: HashMap<JobId, Running>,
    /// Reports the running jobs' exits.
    pub(super) reaper: super::super::reaper::Reaper,
    /// Removes finished jobs' scratch directories.
    pub(super) cleaner: super::super::cleanup::Cleaner,
}

/// A job whose process runs.
pub(super) struct Running {
    pub(super) job: RunningJob,
    pub(super) slot: String,
    /// The job's ad as it started (with the start attributes).
    pub(super) ad: ClassAd,
    pub(super) logs: JobLogs,
    pub(super) submitter: Arc<str>,
    pub(super) stop: Option<Stop>,
    /// When the soft kill turns into a hard one.
    pub(super) hard_kill_at: Option<Instant>,
    /// The job's processes are stopped (`condor_suspend`, or the startd's SUSPEND).
    pub(super) suspended: Option<Suspender>,
}

/// Who suspended a job: only the same side continues it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Suspender {
    /// `condor_suspend`: `condor_continue` continues it.
    User,
    /// The startd's policy (`SUSPEND`): its `CONTINUE` does.
    Startd,
}

impl Running {
    /// The status the queue holds for the job while it runs.
    pub(super) fn status(&self) -> JobStatus {
        if self.suspended.is_some() {
            JobStatus::Suspended
        } else {
            JobStatus::Running
        }
    }
}

/// The 004 event of a run that ended without the job leaving the queue.
pub(super) fn evicted_event(
    kind: Eviction,
    usage: Rusage,
    reason: String,
    ad: &ClassAd,
) -> EventBody {
    EventBody::JobEvicted(JobEvicted {
        kind,
        run_remote_usage: usage,
        run_local_usage: Rusage::default(),
        sent_bytes: 0.0,
        received_bytes: 0.0,
        reason: Some(reason),
        reason_code: 0,
        reason_subcode: 0,
        usage: usage_from_job_ad(ad),
    })
}

pub(super) fn run_usage(result: &starter::JobResult) -> Rusage {
    Rusage {
        user_secs: result.usage.user_cpu as i64,
        sys_secs: result.usage.sys_cpu as i64,
    }
}

/// The execute event: the startd's address, the slot, the scratch directory and the slot's
/// resources.
pub(super) fn execute_event(slot_ad: &ClassAd, slot: &str, job: &RunningJob) -> Execute {
    let mut props = ClassAd::new();
    props.insert(
        "CondorScratchDir",
        Expr::lit(job.scratch_dir.to_string_lossy().as_ref()),
    );
    for attr in ["Cpus", "Disk", "Memory", "GPUs"] {
        if let Some(e) = slot_ad.lookup(attr) {
            if !matches!(slot_ad.eval_attr(attr), Value::Undefined) {
                props.insert(attr, e.clone());
            }
        }
    }
    let host = lookup_str(slot_ad, "Machine")
        .map(|s| s.to_string())
        .unwrap_or_default();
    Execute {
        execute_host: format!("<127.0.0.1:0?addrs=127.0.0.1-0&alias={host}&noUDP&sock=startd>"),
        slot_name: Some(slot.to_owned()),
        props,
    }
}

impl Pool {
    /// Kills a running job: its KillSig now and SIGKILL after the vacate time, or SIGKILL
    /// at once.
    pub(super) fn stop_job(&mut self, id: JobId, stop: Stop, fast: bool, now: Now) {
        let vacate = self.vacate_time(id, &stop);
        let t = now.t;
        // A stopped process takes its signal once it runs again: the job is continued first
        // (the starter continues a suspended job it kills), its suspension ended.
        if let Some(by) = self.shadow.running.get(&id).and_then(|r| r.suspended) {
            let slot = self.shadow.running.get(&id).map(|r| r.slot.clone());
            self.continue_job(id, None, t);
            if let (Suspender::User, Some(slot)) = (by, slot) {
                if let Err(e) = self.startd.continue_claim(&slot, t) {
                    tracing::warn!("continuing the claim on {slot}: {e}");
                }
            }
        }
        let Some(r) = self.shadow.running.get_mut(&id) else {
            return;
        };
        if r.stop.is_none() || stop == Stop::Remove {
            r.stop = Some(stop);
        }
        let deadline = now.after(vacate);
        if fast {
            let _ = r.job.hard_kill();
            r.hard_kill_at = None;
        } else if r.hard_kill_at.is_none() {
            // condor_rm and condor_hold send the job's RemoveKillSig and HoldKillSig (each
            // KillSig's default when unset), a vacate its KillSig.
            let _ = match r.stop {
                Some(Stop::Remove) => r.job.send_signal(r.job.remove_kill_sig()),
                Some(Stop::Hold) => r.job.send_signal(r.job.hold_kill_sig()),
                _ => r.job.soft_kill(),
            };
            r.hard_kill_at = Some(deadline);
        } else if matches!(r.stop, Some(Stop::Remove | Stop::Hold)) {
            // A removal or hold after a vacate: its shorter bound holds.
            r.hard_kill_at = r.hard_kill_at.map(|k| k.min(deadline));
        }
    }

    /// `condor_vacate_job`, `condor_suspend` or `condor_continue` of a job running on a slot;
    /// whether it was acted on (false when it does not run here, is already stopping, or is
    /// not in the state the signal needs).
    pub(super) fn signal_job(&mut self, id: JobId, signal: JobSignal, now: Now) -> bool {
        let t = now.t;
        match signal {
            JobSignal::Vacate | JobSignal::VacateFast => {
                let stoppable = self
                    .shadow
                    .running
                    .get(&id)
                    .is_some_and(|r| r.stop.is_none());
                if stoppable {
                    self.stop_job(
                        id,
                        Stop::Vacate {
                            reason: "Job vacated by schedd".to_owned(),
                            code: hold_codes::SCHEDD_VACATE,
                            subcode: 0,
                        },
                        signal == JobSignal::VacateFast,
                        now,
                    );
                }
                stoppable
            }
            JobSignal::Suspend => {
                // The startd first: a claim it cannot suspend (retiring to be vacated, ...)
                // leaves the job running.
                let slot = self
                    .shadow
                    .running
                    .get(&id)
                    .filter(|r| r.stop.is_none() && r.suspended.is_none())
                    .map(|r| r.slot.clone());
                match slot {
                    Some(slot) => match self.startd.suspend_claim(&slot, t) {
                        Ok(()) => self.suspend_job(id, Suspender::User, t),
                        Err(e) => {
                            tracing::warn!("suspending the claim on {slot}: {e}");
                            false
                        }
                    },
                    None => false,
                }
            }
            JobSignal::Continue => {
                let done = self.continue_job(id, Some(Suspender::User), t);
                if let Some(slot) = self.shadow.running.get(&id).map(|r| r.slot.clone()) {
                    if done {
                        if let Err(e) = self.startd.continue_claim(&slot, t) {
                            tracing::warn!("continuing the claim on {slot}: {e}");
                        }
                    }
                }
                done
            }
        }
    }

    /// Stops a running job's processes: the job is `Suspended` (7), its suspension counted
    /// (`TotalSuspensions`, `LastSuspensionTime`) and logged (010), as the shadow's
    /// `recordSuspendEvent` has it.
    pub(super) fn suspend_job(&mut self, id: JobId, by: Suspender, t: i64) -> bool {
        let Some(r) = self.shadow.running.get_mut(&id) else {
            return false;
        };
        if r.stop.is_some() || r.suspended.is_some() || r.job.suspend().is_err() {
            return false;
        }
        let expect = r.status();
        r.suspended = Some(by);
        let mut update = AdUpdate::default();
        let total = lookup_int(&r.ad, "TotalSuspensions").unwrap_or(0) + 1;
        update.set("TotalSuspensions", Expr::lit(total));
        update.set("LastSuspensionTime", Expr::lit(t));
        update.apply(&mut r.ad);
        r.ad.insert("JobStatus", Expr::lit(JobStatus::Suspended.code()));
        let body = EventBody::JobSuspended(JobSuspended {
            num_pids: starter::group_size(r.job.job_pid) as i32,
        });
        let logs = r.logs.clone();
        let change = self.journal.changes.expecting(id, expect);
        change.update.extend(update);
        change.status = Some(JobStatus::Suspended);
        self.journal.events.push(PendingEvent { logs, id, body });
        true
    }

    /// Continues a suspended job (one `by` suspended, or any for `None`): `Running` again,
    /// the time it spent suspended added to `CumulativeSuspensionTime` (the shadow's
    /// `recordResumeEvent`), event 011.
    pub(super) fn continue_job(&mut self, id: JobId, by: Option<Suspender>, t: i64) -> bool {
        let Some(r) = self.shadow.running.get_mut(&id) else {
            return false;
        };
        let matches = r.suspended.is_some() && (by.is_none() || r.suspended == by);
        if !matches || r.job.resume().is_err() {
            return false;
        }
        r.suspended = None;
        let update = resume_updates(&r.ad, t);
        update.apply(&mut r.ad);
        r.ad.insert("JobStatus", Expr::lit(JobStatus::Running.code()));
        let logs = r.logs.clone();
        let change = self.journal.changes.expecting(id, JobStatus::Suspended);
        change.update.extend(update);
        change.status = Some(JobStatus::Running);
        self.journal.events.push(PendingEvent {
            logs,
            id,
            body: EventBody::JobUnsuspended,
        });
        true
    }

    /// How long a job gets between its soft and hard kill: the smaller of the job's
    /// `JobMaxVacateTime` and the machine's `MachineMaxVacateTime` (600 s by default); a
    /// removal or a hold gets at most [`REMOVE_KILL_TIME`].
    pub(super) fn vacate_time(&self, id: JobId, stop: &Stop) -> Duration {
        self.vacate_time_of(self.shadow.running.get(&id).map(|r| &r.ad), stop)
    }

    /// [`Pool::vacate_time`] of a job whose ad this is.
    pub(super) fn vacate_time_of(&self, ad: Option<&ClassAd>, stop: &Stop) -> Duration {
        let machine = self
            .config
            .int("MachineMaxVacateTime")
            .ok()
            .flatten()
            .unwrap_or(600);
        let job = ad
            .and_then(|ad| lookup_int(ad, "JobMaxVacateTime"))
            .unwrap_or(machine);
        let mut secs = job.min(machine).max(0);
        if matches!(stop, Stop::Remove | Stop::Hold) {
            secs = secs.min(REMOVE_KILL_TIME);
        }
        Duration::from_secs(secs as u64)
    }

    /// The startd's eviction of a job: back to idle with the startd's reason and code. The
    /// startd times the vacate itself (a `Kill` follows when the vacate time is over).
    pub(super) fn evict(&mut self, id: JobId, reason: String, code: i64, hard: bool, now: Now) {
        let own_stop = self
            .shadow
            .running
            .get(&id)
            .is_some_and(|r| r.stop.is_some());
        self.stop_job(
            id,
            Stop::Vacate {
                reason,
                code,
                subcode: 0,
            },
            hard,
            now,
        );
        if !own_stop {
            if let Some(r) = self.shadow.running.get_mut(&id) {
                r.hard_kill_at = None;
            }
        }
    }

    /// Starts idle job `id` on the claimed slot `slot`; what the schedd and the matchmaker
    /// are to do when it cannot start (hold or requeue it, release the claim).
    pub(super) fn start_job(&mut self, id: JobId, slot: &str, now: Now) -> Vec<Action> {
        let t = now.t;
        let Some(idle) = self.schedd.idle.remove(id) else {
            return Vec::new();
        };
        self.journal.changes.expecting(id, JobStatus::Idle);
        let mut ad = idle.ad.clone();
        let logs = JobLogs::of(&self.session, &ad);
        // The shadow opens the job's logs, with its owner's rights, before the job starts
        // (`BaseShadow::initUserLog`), and holds the job when it cannot.
        if let Err((path, why)) = logs.check() {
            tracing::warn!(
                "job {id}: cannot open its event log {}: {why}",
                path.display()
            );
            return vec![
                Action::Hold {
                    job: id,
                    ad,
                    reason: "Failed to initialize user log".into(),
                    code: hold_codes::UNABLE_TO_INIT_USER_LOG,
                    subcode: 0,
                    logs,
                },
                Action::ReleaseClaim {
                    slot: slot.to_owned(),
                    renegotiate: false,
                },
            ];
        }
        let env = match self.startd.activate(slot, &ad, t) {
            Ok(env) => env,
            Err(e) => {
                tracing::warn!("activating {slot} for job {id}: {e}");
                self.schedd.idle.insert(id, idle);
                return vec![Action::ReleaseClaim {
                    slot: slot.to_owned(),
                    renegotiate: true,
                }];
            }
        };
        let slot_ad = self.startd.slot_ad(slot).unwrap_or_default();
        let updates = run::start_updates_with(&self.schedd.run_config, &ad, &slot_ad, slot, t);
        updates.apply(&mut ad);
        ad.insert("JobStatus", Expr::lit(JobStatus::Running.code()));
        let request = StartRequest {
            job: &ad,
            slot: &slot_ad,
            slot_env: &env,
            execute_dir: &self.shadow.execute,
            config: &self.config,
        };
        let mut actions = Vec::new();
        match starter::start(&request) {
            Err(failure) => {
                tracing::info!("job {id} failed to start: {}", failure.reason);
                self.startd.deactivate(slot, t);
                if failure.is_vacate() {
                    // Not the job's fault (HTCondor's codes from 1000): back to idle, tried
                    // again at the next negotiation cycle rather than at once.
                    let outcome = run::evict_updates(
                        &self.schedd.run_config,
                        &ad,
                        &failure.reason,
                        failure.code,
                        failure.subcode,
                        t,
                    );
                    let requeued = outcome.status.is_none_or(|s| s == JobStatus::Idle);
                    self.push_outcome(id, outcome);
                    if requeued {
                        actions.push(Action::Requeue {
                            job: id,
                            ad: idle.ad.clone(),
                        });
                    }
                } else {
                    actions.push(Action::Hold {
                        job: id,
                        ad: ad.clone(),
                        reason: failure.reason.clone(),
                        code: failure.code,
                        subcode: failure.subcode,
                        logs,
                    });
                }
                // Tried again at the next cycle, not at once.
                actions.push(Action::ReleaseClaim {
                    slot: slot.to_owned(),
                    renegotiate: false,
                });
            }
            Ok(job) => {
                tracing::info!("job {id} started on {slot} (pid {})", job.pid);
                let pid = job.pid;
                if let Err(e) = self.shadow.reaper.watch(id, pid) {
                    // Without a waiter the job's end would go unseen: stop it now, and let
                    // the exit path put it back.
                    tracing::error!("job {id}: nothing can wait for it ({e}); killing it");
                    let _ = job.hard_kill();
                    let _ = starter::wait_exited(pid);
                    let _ = self.to_main.send(Msg::Exited { job: id, pid });
                }
                self.journal.changes.of(id).update.extend(updates);
                self.journal.changes.of(id).status = Some(JobStatus::Running);
                self.journal.events.push(PendingEvent {
                    logs: logs.clone(),
                    id,
                    body: EventBody::Execute(execute_event(&slot_ad, slot, &job)),
                });
                if let Some(c) = self.matchmaker.claims.get_mut(slot) {
                    c.job = Some(id);
                }
                self.shadow.running.insert(
                    id,
                    Running {
                        job,
                        slot: slot.to_owned(),
                        ad,
                        logs,
                        submitter: idle.submitter.clone(),
                        stop: None,
                        hard_kill_at: None,
                        suspended: None,
                    },
                );
            }
        }
        actions
    }

    /// A job's process ended: what comes next depends on why it ended (a stop the pool
    /// asked for) or, when it ended by itself, on its exit policy.
    pub(super) fn job_exited(&mut self, id: JobId, pid: i32, now: Now) -> Vec<Action> {
        if self
            .shadow
            .running
            .get(&id)
            .is_none_or(|r| r.job.pid != pid)
        {
            // Not running, or the end of an earlier waiter's (an adoption given up, a run
            // replaced), reported late: not this run's (reaped if it was this process's).
            starter::reap_if_exited(pid);
            return Vec::new();
        }
        let mut r = self.shadow.running.remove(&id).expect("looked up above");
        // Forgotten first, reaped second: nothing signals the pid once it can be reused.
        let mut lost = false;
        let exit = r.job.collect().unwrap_or_else(|e| {
            tracing::error!("collecting job {id} (waiter {}): {e}", r.job.pid);
            lost = true;
            RawExit {
                status: libc::SIGKILL,
                ..RawExit::default()
            }
        });
        let t = now.t;
        self.session.now = t;
        let mut lost_hold = None;
        if lost {
            lost_hold = self.lost_waiter(id, &mut r);
        }
        if r.stop.is_none() && r.job.is_checkpoint(&exit) {
            match self.checkpointed(id, &mut r, exit, t) {
                Ok(()) => {
                    self.shadow.running.insert(id, r);
                    return Vec::new();
                }
                Err(failure) => {
                    // Not started again: the job is held as a start failure is.
                    let r_ad = r.ad.clone();
                    return self.checkpoint_hold(id, r, r_ad, exit, failure, now);
                }
            }
        }
        let expect = match r.stop {
            Some(Stop::Remove) => JobStatus::Removed,
            Some(Stop::Hold) => JobStatus::Held,
            _ => r.status(),
        };
        self.journal.changes.expecting(id, expect);
        if matches!(r.stop, Some(Stop::Hold | Stop::Remove)) {
            // A release or a new status may have come meanwhile: read the idle jobs again.
            self.schedd.reload_next = true;
        }
        let Running {
            job,
            slot,
            mut ad,
            logs,
            stop,
            suspended,
            ..
        } = r;
        if suspended.is_some() {
            // It ended while suspended: the suspension ends with it.
            let update = resume_updates(&ad, t);
            update.apply(&mut ad);
            self.journal.changes.of(id).update.extend(update);
        }
        let (mut result, scratch) = job.finish_deferred(exit);
        // Removed once the run's end is committed.
        self.journal.scratch_dirs.extend(scratch);
        if lost_hold.is_some() {
            result.hold = lost_hold;
        }
        let kept = self.startd.job_ended(&slot, t);
        if let Some(c) = self.matchmaker.claims.get_mut(&slot) {
            c.job = None;
        }
        let mut actions = Vec::new();
        let now_job = if kept && self.accepting() {
            self.claim_for_now_job(&slot)
        } else {
            None
        };
        if let Some(start) = now_job {
            actions.push(start);
        } else if !kept {
            // The startd ended the claim with the job (preempted, draining, its policy).
            actions.push(Action::ForgetClaim { slot });
        } else if stop.is_some() || !self.accepting() {
            actions.push(Action::ReleaseClaim {
                slot,
                renegotiate: true,
            });
        }
        self.apply_starter_updates(id, &mut ad, &result);
        let usage = run_usage(&result);
        match stop {
            Some(Stop::Remove) => {
                let update = run::stop_updates(&self.schedd.run_config, &ad, JobStatus::Removed, t);
                self.journal.changes.of(id).update.extend(update);
                self.leaves_removed(id, &ad, logs);
            }
            Some(Stop::Hold) => {
                let update = run::stop_updates(&self.schedd.run_config, &ad, JobStatus::Held, t);
                self.journal.changes.of(id).update.extend(update);
            }
            Some(Stop::Vacate {
                reason,
                code,
                subcode,
            }) => {
                let outcome =
                    run::evict_updates(&self.schedd.run_config, &ad, &reason, code, subcode, t);
                outcome.updates.apply(&mut ad);
                let status = outcome.status;
                self.push_outcome(id, outcome);
                self.journal.events.push(PendingEvent {
                    logs,
                    id,
                    body: evicted_event(Eviction::Vacated, usage, reason, &ad),
                });
                if status == Some(JobStatus::Idle) {
                    actions.push(Action::Requeue { job: id, ad });
                }
            }
            None => actions.extend(self.job_completed(id, ad, &result, logs, now)),
        }
        actions
    }

    /// A job's waiter ended without recording the job's exit (something killed it): what is
    /// left of the job is killed; unless the run was being stopped anyway, it counts as a
    /// shadow exception, and the run ends as a vacate (HTCondor's shadow, losing its
    /// starter, requeues the job too) or, past `MAX_SHADOW_EXCEPTIONS`, a hold (returned).
    fn lost_waiter(&mut self, id: JobId, r: &mut Running) -> Option<starter::StartFailure> {
        let killed = starter::kill_job_processes(&r.job.scratch_dir);
        if killed > 0 {
            tracing::info!("job {id}: killed {killed} processes left of it");
        }
        if r.stop.is_some() {
            return None;
        }
        let reason = format!(
            "The job's condor_starter (pid {}) exited without the job's exit status",
            r.job.pid
        );
        let hold = self.shadow_exception(id, &mut r.ad);
        if hold.is_none() {
            r.stop = Some(Stop::Vacate {
                reason,
                code: hold_codes::STARTER_ERROR,
                subcode: 0,
            });
        }
        hold
    }

    /// A self-checkpointing job's checkpoint exit (see [`starter::checkpoint`]): the
    /// shadow's `updateFromStarter` (`CheckpointNumber`; on success `JobLastCheckpointTime`
    /// and `CommittedTime` + the run's seconds), and the job watched again in its new
    /// process, on the same claim. No event: HTCondor's shadow logs none for a checkpoint
    /// to SPOOL. The claim, the slot and the job's status do not change.
    fn checkpointed(
        &mut self,
        id: JobId,
        r: &mut Running,
        exit: RawExit,
        t: i64,
    ) -> Result<(), starter::StartFailure> {
        let c = r.job.checkpoint_and_restart(exit);
        tracing::info!(
            "job {id} checkpointed (number {}, {})",
            c.number,
            if c.stored { "stored" } else { "failed" }
        );
        let mut update = AdUpdate::default();
        update.set("CheckpointNumber", Expr::lit(c.number));
        if c.stored {
            update.set("JobLastCheckpointTime", Expr::lit(t));
            let committed = lookup_int(&r.ad, "CommittedTime").unwrap_or(0);
            update.set(
                "CommittedTime",
                Expr::lit(committed + c.newly_committed_secs),
            );
        }
        update.apply(&mut r.ad);
        let change = self.journal.changes.expecting(id, r.status());
        change.update.extend(update);
        let pid = c.restarted?;
        if let Err(e) = self.shadow.reaper.watch(id, pid) {
            tracing::error!("job {id}: nothing can wait for it ({e}); killing it");
            let _ = r.job.hard_kill();
            let _ = starter::wait_exited(pid);
            let _ = self.to_main.send(Msg::Exited { job: id, pid });
        }
        Ok(())
    }

    /// A checkpointed job that could not be started again: held (the starter's `holdJob`),
    /// its run ended as for any hold at exit.
    fn checkpoint_hold(
        &mut self,
        id: JobId,
        r: Running,
        ad: ClassAd,
        exit: RawExit,
        failure: starter::StartFailure,
        now: Now,
    ) -> Vec<Action> {
        let t = now.t;
        self.journal.changes.expecting(id, r.status());
        let Running {
            job, slot, logs, ..
        } = r;
        // The ended process's usage is the checkpoints' already; a held job sends no output.
        job.forgo_output();
        let (mut result, scratch) = job.finish_deferred(RawExit {
            status: exit.status,
            ..RawExit::default()
        });
        // Removed once the run's end is committed.
        self.journal.scratch_dirs.extend(scratch);
        result.hold = Some(failure);
        let kept = self.startd.job_ended(&slot, t);
        if let Some(c) = self.matchmaker.claims.get_mut(&slot) {
            c.job = None;
        }
        let mut actions = vec![if kept {
            Action::ReleaseClaim {
                slot,
                renegotiate: true,
            }
        } else {
            Action::ForgetClaim { slot }
        }];
        let mut ad = ad;
        self.apply_starter_updates(id, &mut ad, &result);
        actions.extend(self.job_completed(id, ad, &result, logs, now));
        actions
    }

    /// The job-ad updates of a run's end ([`starter::JobResult::updates`]), to the ad and
    /// the step's changes.
    pub(super) fn apply_starter_updates(
        &mut self,
        id: JobId,
        ad: &mut ClassAd,
        result: &starter::JobResult,
    ) {
        let starter_updates = AdUpdate {
            set: result.updates.clone(),
            delete: Vec::new(),
        };
        starter_updates.apply(ad);
        self.journal.changes.of(id).update.extend(starter_updates);
        // The run's ad as the shadow has it when the run ends (`writeJobEpochFile`).
        self.journal.epochs.push(ad.clone());
    }

    /// A job's process exited by itself: its exit policy decides what comes next (a hold
    /// or a requeue is the schedd's).
    pub(super) fn job_completed(
        &mut self,
        id: JobId,
        mut ad: ClassAd,
        result: &starter::JobResult,
        logs: JobLogs,
        now: Now,
    ) -> Vec<Action> {
        let t = now.t;
        let usage = run_usage(result);
        // (A job that never ran has no size the starter saw.)
        let image_size = lookup_int(&ad, "ImageSize").filter(|_| result.not_started.is_none());
        if let Some(size) = image_size {
            self.journal.events.push(PendingEvent {
                logs: logs.clone(),
                id,
                body: EventBody::ImageSize(ImageSize {
                    image_size_kb: size,
                    memory_usage_mb: lookup_int(&ad, "MemoryUsage"),
                    resident_set_size_kb: lookup_int(&ad, "ResidentSetSize").or(Some(0)),
                    proportional_set_size_kb: None,
                }),
            });
        }
        let (exit, info) = match result.exit {
            JobExit::Code(c) => (ExitStatus::Code(c), ExitInfo::code(c as i64)),
            JobExit::Signal { signal, core } => (
                ExitStatus::Signal(signal),
                ExitInfo::signal(signal as i64, core),
            ),
        };
        let info = info.with_usage(result.usage.user_cpu, result.usage.sys_cpu);
        if let Some(hold) = &result.hold {
            let mut update = AdUpdate::default();
            match &result.not_started {
                // The starter's report of it, before the hold (`pseudo_ulog`).
                Some(n) => self.journal.events.push(PendingEvent {
                    logs: logs.clone(),
                    id,
                    body: EventBody::RemoteError(RemoteError {
                        daemon_name: "starter".into(),
                        execute_host: n.execute_host.clone(),
                        message: n.message.clone(),
                        critical: true,
                        hold_reason_code: hold.code as i32,
                        hold_reason_subcode: hold.subcode as i32,
                    }),
                }),
                None => update = run::exit_updates(&ad, &info, t),
            }
            update.apply(&mut ad);
            update.extend(run::stop_updates(
                &self.schedd.run_config,
                &ad,
                JobStatus::Held,
                t,
            ));
            self.journal.changes.of(id).update.extend(update);
            return vec![Action::Hold {
                job: id,
                ad,
                reason: hold.reason.clone(),
                code: hold.code,
                subcode: hold.subcode,
                logs,
            }];
        }
        let (firing, outcome) =
            run::job_exited(&self.schedd.policy, &self.schedd.run_config, &ad, &info, t);
        outcome.updates.apply(&mut ad);
        let status = outcome.status;
        self.push_outcome(id, outcome);
        match firing.action {
            PolicyAction::RemoveFromQueue | PolicyAction::ReleaseFromHold => {
                self.journal.events.push(PendingEvent {
                    logs,
                    id,
                    body: EventBody::JobTerminated(JobTerminated {
                        exit,
                        core_file: None,
                        run_remote_usage: usage,
                        run_local_usage: Rusage::default(),
                        total_remote_usage: Rusage {
                            user_secs: lookup_int(&ad, "RemoteUserCpu").unwrap_or(0),
                            sys_secs: lookup_int(&ad, "RemoteSysCpu").unwrap_or(0),
                        },
                        total_local_usage: Rusage::default(),
                        sent_bytes: 0.0,
                        received_bytes: 0.0,
                        total_sent_bytes: 0.0,
                        total_received_bytes: 0.0,
                        usage: usage_from_job_ad(&ad),
                    }),
                });
                self.finishing(id, &ad);
                if lookup_bool(&ad, "LeaveJobInQueue") != Some(true) {
                    self.journal.changes.of(id).to_history = true;
                }
            }
            PolicyAction::StaysInQueue | PolicyAction::VacateFromRunning => {
                self.journal.events.push(PendingEvent {
                    logs,
                    id,
                    body: evicted_event(
                        Eviction::Requeued {
                            exit,
                            core_file: None,
                        },
                        usage,
                        firing.reason_or_unknown().to_owned(),
                        &ad,
                    ),
                });
                if status == Some(JobStatus::Idle) {
                    return vec![Action::Requeue { job: id, ad }];
                }
            }
            PolicyAction::HoldInQueue | PolicyAction::UndefinedEval => {
                self.journal.events.push(PendingEvent {
                    logs,
                    id,
                    body: held_event(firing.reason_or_unknown(), firing.code, firing.subcode),
                });
            }
        }
        Vec::new()
    }
}
