//! Recovery at start: putting right what a master that died left, so that every job runs
//! exactly once.
//!
//! A job runs under its waiter ([`starter::waiter`]), which outlives the master and records
//! the job's exit in its scratch directory. So a master finds, for each job the queue says
//! was running, one of three things ([`starter::survivors`]):
//!
//! - the job **finished** while no master ran: its recorded exit is taken as if the job had
//!   just exited (exit attributes, output transfer, 005, history): it never runs again;
//! - its waiter **still runs**: the job is adopted (HTCondor's shadow reconnecting to its
//!   starter): its slot is claimed for it again and it is watched as if this master had
//!   started it;
//! - **nothing**: its waiter is gone without a record (or the job had not started): what is
//!   left of it is killed, and it goes back to idle (022, as HTCondor's failed reconnect).
//!
//! A job that was running at more than `MAX_SHADOW_EXCEPTIONS` (default 2) unclean shutdowns
//! of the master (counted in `NumShadowExceptions`) is put on hold instead, so that a job
//! that kills its master cannot make the pool a crash loop.
//!
//! Scheduler-universe jobs (DAGMan) and self-checkpointing jobs are not adopted: their
//! processes are killed and they go back to idle ([`local::recovered`]; a self-checkpointing
//! job then starts from its last stored checkpoint). The recorded final exit of a
//! self-checkpointing job is taken as its end.

use std::path::Path;

use super::*;

use crate::starter::waiter::{self, WaiterId};
use crate::starter::{Left, Survivor};

use super::shadow::Running;

/// Which start of its job the run in `dir` was (`NumShadowStarts` in the `.job.ad` it was
/// given): a later run has a larger one; 0 when it cannot be read.
fn run_number(dir: &Path) -> i64 {
    std::fs::read_to_string(dir.join(starter::env::JOB_AD_FILE))
        .ok()
        .and_then(|text| crate::classad::parse_old_ad(&text).ok())
        .and_then(|ad| lookup_int(&ad, "NumShadowStarts"))
        .unwrap_or(0)
}

impl Pool {
    /// Puts right what a master that died left (see the module documentation); removed
    /// jobs leave the queue.
    pub(super) fn recover(&mut self, now: Now) -> Result<(), DaemonError> {
        if self.schedd.scope.is_some() {
            // An embedded pool leaves what an earlier master left to the next master.
            return Ok(());
        }
        let mut found: HashMap<JobId, Survivor> = HashMap::new();
        for s in starter::survivors(&self.shadow.execute) {
            let (Ok(cluster), Ok(proc)) = (i32::try_from(s.cluster), i32::try_from(s.proc)) else {
                continue;
            };
            let id = JobId::new(cluster, proc);
            // One directory per job: the latest run's (an earlier one may wait for its
            // removal); between two of one run, the one with something left.
            let rank = |s: &Survivor| (run_number(&s.dir), !matches!(s.left, Left::Gone));
            match found.get(&id) {
                Some(old) if rank(old) >= rank(&s) => self.end_survivor(&s),
                _ => {
                    if let Some(old) = found.insert(id, s) {
                        self.end_survivor(&old);
                    }
                }
            }
        }
        let keep: Vec<PathBuf> = found
            .values()
            .filter(|s| !matches!(s.left, Left::Gone))
            .map(|s| s.dir.clone())
            .collect();
        let killed = starter::kill_orphans_except(&self.shadow.execute, &keep);
        if killed > 0 {
            tracing::info!("killed {killed} processes of jobs an earlier master started");
        }
        // The scheduler-universe jobs whose start was committed but whose execute event was
        // not logged (the master died in between), known by their directories, which the
        // orphans' removal takes.
        let unlogged = local::unlogged_starts(&self.schedd.local.config.dir);
        self.kill_local_orphans();
        self.record_lost_starts(&found, now)?;
        // Scheduler-universe jobs with hosts left are `mark_idle`'s too (held while running).
        let constraint = parse_old_expr(
            "JobStatus == 2 || JobStatus == 3 || JobStatus == 6 || JobStatus == 7 \
             || (JobUniverse == 7 && CurrentHosts > 0)",
        )
        .expect("constant expression");
        let query = JobQuery::all().with_constraint(constraint);
        let mut actions = Vec::new();
        for (id, status, ad) in self.readable_jobs(&query, "recovery")? {
            let logs = JobLogs::of(&self.session, &ad);
            if let Some(st) = JobStatus::from_code(status) {
                self.journal.changes.expecting(id, st);
            }
            let survivor = found.remove(&id);
            if status == JobStatus::Removed.code() {
                if let Some(s) = &survivor {
                    self.end_survivor(s);
                }
                self.leaves_removed(id, &ad, logs);
                continue;
            }
            if local::is_scheduler_universe(&ad) {
                // No reconnection in the scheduler universe: idle again, no event.
                tracing::info!("scheduler universe job {id} found running: stopped");
                if unlogged.contains(&id) {
                    tracing::info!("job {id}: its execute event was lost: logged now");
                    self.journal.events.push(PendingEvent {
                        logs: logs.clone(),
                        id,
                        body: local::execute_event(&self.config),
                    });
                }
                self.push_outcome(id, local::recovered(&ad));
                continue;
            }
            // A self-checkpointing job is not taken over: its process (or its checkpoint exit,
            // whose checkpoint no master stored) ends, and it starts again from its last
            // stored checkpoint, as after an eviction.
            let checkpointing = starter::checkpoint::wants_checkpoints(&ad);
            let survivor = match survivor {
                Some(s) if checkpointing => {
                    let final_exit = matches!(s.left, Left::Finished(exit)
                        if exit.status != starter::checkpoint::checkpoint_status(&ad));
                    if final_exit {
                        Some(s)
                    } else {
                        self.end_survivor(&s);
                        None
                    }
                }
                s => s,
            };
            match survivor {
                Some(Survivor {
                    dir,
                    left: Left::Finished(exit),
                    ..
                }) => {
                    tracing::info!("job {id} ended while no master ran: recording its exit");
                    actions.extend(self.recover_finished(id, ad, &dir, exit, logs, now));
                    continue;
                }
                Some(s) => {
                    if let Some(held) = self.crash_loop_hold(id, &ad, logs.clone(), now.t) {
                        self.end_survivor(&s);
                        actions.push(held);
                        continue;
                    }
                    if let Left::Running(w) = s.left {
                        match self.adopt(id, &ad, status, &s.dir, w, logs.clone(), now) {
                            Ok(()) => {
                                tracing::info!("job {id} still runs (waiter {}): adopted", w.pid);
                                continue;
                            }
                            Err(e) => tracing::warn!("job {id} cannot be adopted: {e}"),
                        }
                        // Its waiter may have ended since it was found: then with the job's
                        // exit recorded.
                        if let Some(exit) = waiter::read_record(&s.dir) {
                            tracing::info!("job {id} ended meanwhile: recording its exit");
                            actions.extend(self.recover_finished(id, ad, &s.dir, exit, logs, now));
                            continue;
                        }
                    }
                    self.end_survivor(&s);
                }
                None => {
                    if let Some(held) = self.crash_loop_hold(id, &ad, logs.clone(), now.t) {
                        actions.push(held);
                        continue;
                    }
                }
            }
            tracing::info!("job {id} was running when the last master stopped: back to idle");
            let host = lookup_str(&ad, "RemoteHost").map(|s| s.to_string());
            let outcome = run::evict_updates(
                &self.schedd.run_config,
                &ad,
                "Job not found at execution machine",
                hold_codes::RECONNECT_FAILED,
                0,
                now.t,
            );
            self.push_outcome(id, outcome);
            self.journal.events.push(PendingEvent {
                logs,
                id,
                body: EventBody::JobReconnectFailed(JobReconnectFailed {
                    reason: "Job not found at execution machine".to_owned(),
                    startd_name: host.unwrap_or_default(),
                }),
            });
        }
        // Directories of jobs that are not running any more (removed with -forcex, ...).
        for s in found.into_values() {
            self.end_survivor(&s);
        }
        self.apply(actions, now);
        let actions = self.commit()?;
        self.apply(actions, now);
        Ok(())
    }

    /// Jobs an earlier master started but died before it committed the start (the queue
    /// still says idle): their waiters recorded themselves before the jobs could run, so the
    /// start is committed now, as the master would have made it (from the slot ad and the
    /// start time the job was given), and the job is then recovered as any running job:
    /// adopted, or its exit recorded; never started a second time.
    fn record_lost_starts(
        &mut self,
        found: &HashMap<JobId, Survivor>,
        now: Now,
    ) -> Result<(), DaemonError> {
        let mut any = false;
        for (&id, s) in found {
            if matches!(s.left, Left::Gone) {
                continue;
            }
            let Some(job) = self.queue.job(id)? else {
                continue;
            };
            if job.status_code() != JobStatus::Idle.code() {
                continue;
            }
            let Ok(ad) = job.into_ad() else { continue };
            // A run whose start was committed (and which then ended) is not a lost start.
            if run_number(&s.dir) <= lookup_int(&ad, "NumShadowStarts").unwrap_or(0) {
                continue;
            }
            let read_ad = |name: &str| {
                std::fs::read_to_string(s.dir.join(name))
                    .ok()
                    .and_then(|text| crate::classad::parse_old_ad(&text).ok())
            };
            let (Some(started), Some(machine)) = (
                read_ad(starter::env::JOB_AD_FILE),
                read_ad(starter::env::MACHINE_AD_FILE),
            ) else {
                continue;
            };
            let slot = lookup_str(&machine, "Name")
                .map(|s| s.to_string())
                .unwrap_or_default();
            let t = lookup_int(&started, "JobCurrentStartDate").unwrap_or(now.t);
            let updates = run::start_updates_with(&self.schedd.run_config, &ad, &machine, &slot, t);
            tracing::info!("job {id} started just before the last master died: start recorded");
            self.schedd.idle.remove(id);
            self.journal.changes.expecting(id, JobStatus::Idle);
            self.journal.changes.of(id).update.extend(updates);
            self.journal.changes.of(id).status = Some(JobStatus::Running);
            any = true;
        }
        if any {
            let actions = self.commit()?;
            self.apply(actions, now);
        }
        Ok(())
    }

    /// A job's waiter an earlier master started is not taken over: the job is killed and its
    /// directory removed.
    fn end_survivor(&mut self, s: &Survivor) {
        if let Left::Running(w) = &s.left {
            starter::end_survivor(&s.dir, w);
        }
        self.shadow.cleaner.remove(s.dir.clone());
    }

    /// One more unclean shutdown of the master while job `id` ran: the hold that ends it
    /// when that was one too many (the action).
    fn crash_loop_hold(
        &mut self,
        id: JobId,
        ad: &ClassAd,
        logs: JobLogs,
        t: i64,
    ) -> Option<Action> {
        let mut ad = ad.clone();
        let hold = self.shadow_exception(id, &mut ad)?;
        tracing::warn!("job {id}: {}: held", hold.reason);
        let update = run::stop_updates(&self.schedd.run_config, &ad, JobStatus::Held, t);
        self.journal.changes.of(id).update.extend(update);
        Some(Action::Hold {
            job: id,
            ad,
            reason: hold.reason,
            code: hold.code,
            subcode: hold.subcode,
            logs,
        })
    }

    /// One more run of job `id` (whose ad this is, updated) lost to the master's or its
    /// waiter's death (`NumShadowExceptions`); past `MAX_SHADOW_EXCEPTIONS`, the hold that
    /// ends it, so that a job that kills its master or its waiter cannot loop for ever.
    pub(super) fn shadow_exception(
        &mut self,
        id: JobId,
        ad: &mut ClassAd,
    ) -> Option<starter::StartFailure> {
        let count = lookup_int(ad, "NumShadowExceptions").unwrap_or(0) + 1;
        ad.insert("NumShadowExceptions", Expr::lit(count));
        self.journal
            .changes
            .of(id)
            .update
            .set("NumShadowExceptions", Expr::lit(count));
        let max = self
            .config
            .int("MAX_SHADOW_EXCEPTIONS")
            .ok()
            .flatten()
            .unwrap_or(2);
        (count > max).then(|| {
            starter::StartFailure::new(
                format!(
                    "Job's run was lost {count} times to the death of the condor_master or of \
                     its starter (NumShadowExceptions > MAX_SHADOW_EXCEPTIONS = {max})"
                ),
                hold_codes::SYSTEM_POLICY,
                0,
            )
        })
    }

    /// The starter's view of a job an earlier master started in `dir`: its ad as it started
    /// and its slot's (the `.machine.ad` written there).
    fn reattach(&self, ad: &ClassAd, dir: &Path, w: WaiterId, t: i64) -> (RunningJob, ClassAd) {
        let slot_ad = std::fs::read_to_string(dir.join(starter::env::MACHINE_AD_FILE))
            .ok()
            .and_then(|text| crate::classad::parse_old_ad(&text).ok())
            .unwrap_or_default();
        let began = lookup_int(ad, "JobCurrentStartDate").unwrap_or(t);
        let ago = Duration::from_secs((t - began).max(0) as u64);
        let started = Instant::now().checked_sub(ago).unwrap_or_else(Instant::now);
        let request = StartRequest {
            job: ad,
            slot: &slot_ad,
            slot_env: &[],
            execute_dir: &self.shadow.execute,
            config: &self.config,
        };
        (starter::reattach(&request, dir, w, started), slot_ad)
    }

    /// The execute event (001) of a job whose start an earlier master committed but did not
    /// log (it died in between): logged now, from the slot ad the job started on.
    fn execute_event_if_lost(
        &mut self,
        id: JobId,
        machine: &ClassAd,
        job: &RunningJob,
        logs: &JobLogs,
    ) {
        if waiter::executed(&job.scratch_dir) {
            return;
        }
        tracing::info!("job {id}: its execute event was lost: logged now");
        let slot = lookup_str(machine, "Name")
            .map(|s| s.to_string())
            .unwrap_or_default();
        self.journal.events.push(PendingEvent {
            logs: logs.clone(),
            id,
            body: EventBody::Execute(shadow::execute_event(machine, &slot, job)),
        });
    }

    /// A job that ended while no master ran: its run ends as if it had just exited.
    fn recover_finished(
        &mut self,
        id: JobId,
        mut ad: ClassAd,
        dir: &Path,
        exit: RawExit,
        logs: JobLogs,
        now: Now,
    ) -> Vec<Action> {
        let w = WaiterId::read(dir).unwrap_or(WaiterId {
            pid: 0,
            start_time: 0,
            job_pid: 0,
        });
        let (job, machine) = self.reattach(&ad, dir, w, now.t);
        self.execute_event_if_lost(id, &machine, &job, &logs);
        let (result, scratch) = job.finish_deferred(exit);
        // Removed once the run's end is committed.
        self.journal.scratch_dirs.extend(scratch);
        self.apply_starter_updates(id, &mut ad, &result);
        self.job_completed(id, ad, &result, logs, now)
    }

    /// Takes over job `id`, whose waiter `w` (started by an earlier master) still runs in
    /// `dir`: its slot is claimed and activated for it again, and it is watched.
    #[allow(clippy::too_many_arguments)]
    fn adopt(
        &mut self,
        id: JobId,
        ad: &ClassAd,
        status: i64,
        dir: &Path,
        w: WaiterId,
        logs: JobLogs,
        now: Now,
    ) -> Result<(), String> {
        let t = now.t;
        let (job, machine) = self.reattach(ad, dir, w, t);
        let name = lookup_str(&machine, "Name")
            .map(|s| s.to_string())
            .ok_or("its slot ad has no Name")?;
        // Watched first: an exit from now on is seen (and ignored while it is not running).
        self.shadow
            .reaper
            .watch_adopted(id, w)
            .map_err(|e| format!("cannot watch its waiter: {e}"))?;
        // A static slot is claimed by its name; a dynamic one is carved again from its
        // partitionable slot with the resources it had.
        // (By its type: the name of a dynamic slot may have been given to another job's
        // slot adopted before this one.)
        let dynamic = lookup_str(&machine, "SlotType").is_some_and(|t| &*t == "Dynamic");
        let (slot, consumption) = if !dynamic && self.startd.slot_ad(&name).is_some() {
            (name, Vec::new())
        } else {
            let parent = match name.split_once('@') {
                Some((slot, host)) => format!(
                    "{}@{host}",
                    slot.rsplit_once('_').map_or(slot, |(parent, _)| parent)
                ),
                None => name.clone(),
            };
            let consumption = ["Cpus", "Memory", "Disk", "GPUs"]
                .into_iter()
                .filter_map(|r| {
                    let v = machine.eval_attr(r).as_number_real()?;
                    Some((r.to_owned(), v))
                })
                .collect();
            (parent, consumption)
        };
        let claimed = self
            .startd
            .claim(&slot, ad, &consumption, t)
            .map_err(|e| format!("claiming {slot}: {e}"))?;
        if let Err(e) = self.startd.activate(&claimed, ad, t) {
            self.startd.release(&claimed, t);
            return Err(format!("activating {claimed}: {e}"));
        }
        let slot_ad = self.startd.slot_ad(&claimed).unwrap_or_default();
        let resource = if claimed == slot {
            crate::accountant::resource_name(&slot_ad)
        } else {
            claimed.clone()
        };
        let submitter: Arc<str> =
            negotiator::submitter_name(ad, &self.schedd.accounting_domain).into();
        self.matchmaker.claims.insert(
            claimed.clone(),
            matchmaker::Claim {
                submitter: submitter.clone(),
                resource,
                job: Some(id),
            },
        );
        self.execute_event_if_lost(id, &machine, &job, &logs);
        let mut ad = ad.clone();
        if status != JobStatus::Running.code() {
            // Suspended or transferring when the master died: running again.
            let _ = job.resume();
            let update = resume_updates(&ad, t);
            update.apply(&mut ad);
            let change = self.journal.changes.of(id);
            change.update.extend(update);
            change.status = Some(JobStatus::Running);
        }
        ad.insert("JobStatus", Expr::lit(JobStatus::Running.code()));
        self.shadow.running.insert(
            id,
            Running {
                job,
                slot: claimed,
                ad,
                logs,
                submitter,
                stop: None,
                hard_kill_at: None,
                suspended: None,
            },
        );
        Ok(())
    }
}
