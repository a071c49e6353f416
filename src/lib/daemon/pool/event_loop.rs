//! The main loop and its timers: messages in, one step out, the deadlines it sleeps to, and
//! the one place where the roles' decisions are carried out ([`Pool::apply`]).

use std::collections::VecDeque;

use super::*;

/// The loop's timers, on the monotonic clock.
pub(super) struct Timers {
    /// A wake-up or a change asks for a negotiation cycle now.
    pub(super) negotiate_now: bool,
    /// When the pool, quiet since, gives back the memory its work used
    /// ([`Pool::release_memory`]).
    pub(super) trim_at: Option<Instant>,
    /// The next periodic negotiation cycle (`NEGOTIATOR_INTERVAL`).
    pub(super) next_negotiation: Instant,
    /// The next periodic policy pass (`PERIODIC_EXPR_INTERVAL`).
    pub(super) next_periodic: Instant,
    /// The startd's next policy evaluation (`POLLING_INTERVAL`).
    pub(super) next_update: Instant,
    /// The defrag daemon's next poll (`DEFRAG_INTERVAL`).
    pub(super) next_defrag: Instant,
}

impl Pool {
    /// Runs the main loop until the pool stops; true when it should restart.
    pub fn run(mut self, rx: Receiver<Msg>) -> bool {
        tracing::info!(
            "condor_master running: {} slots",
            self.startd.slot_ads().len()
        );
        loop {
            let before = Now::read();
            let timeout = self
                .next_deadline(before)
                .saturating_duration_since(before.at);
            let mut msgs = Vec::new();
            match rx.recv_timeout(timeout) {
                Ok(m) => msgs.push(m),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return false,
            }
            msgs.extend(rx.try_iter());
            let woke = Now::read();
            if msgs.is_empty() && self.timers.trim_at.is_some_and(|t| t <= woke.at) {
                self.timers.trim_at = None;
                self.release_memory();
            } else if !msgs.is_empty() {
                self.timers.trim_at = Some(woke.after(IDLE_TRIM_DELAY));
            }
            for m in msgs {
                self.handle(m, woke);
            }
            if let Err(e) = self.step(Now::read()) {
                tracing::error!("{e}");
            }
            if let Lifecycle::Stopping { restart, .. } = self.control.lifecycle {
                if self.shadow.running.is_empty() && self.schedd.local.running.is_empty() {
                    let now = Now::read();
                    self.release_all_claims(now);
                    if let Ok(actions) = self.commit() {
                        self.apply(actions, now);
                    }
                    self.shadow.cleaner.finish();
                    tracing::info!("condor_master stopping");
                    return restart;
                }
            }
        }
    }

    /// When the loop must wake at the latest, at time `now`.
    pub(super) fn next_deadline(&self, now: Now) -> Instant {
        let mut t = self
            .timers
            .next_negotiation
            .min(self.timers.next_periodic)
            .min(self.timers.next_update);
        if let Some(timer) = self.startd.next_timer(now.t) {
            t = t.min(now.instant_at(timer));
        }
        if self.matchmaker.defrag.is_some() {
            t = t.min(self.timers.next_defrag);
        }
        for r in self.shadow.running.values() {
            if let Some(k) = r.hard_kill_at {
                t = t.min(k);
            }
        }
        if let Some(k) = self.schedd.local.next_deadline() {
            t = t.min(k);
        }
        if let Some(trim) = self.timers.trim_at {
            t = t.min(trim);
        }
        if self.timers.negotiate_now {
            t = now.at;
        }
        t
    }

    /// After a burst of work, gives back the memory it used: the queue connection's page
    /// cache, and the allocator's free pages (glibc keeps freed memory for reuse otherwise).
    pub(super) fn release_memory(&mut self) {
        if let Err(e) = self.queue.release_memory() {
            tracing::warn!("{e}");
        }
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: malloc_trim only returns free memory of the allocator to the system.
        unsafe {
            libc::malloc_trim(0);
        }
    }

    /// Acts on one message, arrived at time `now`.
    pub(super) fn handle(&mut self, msg: Msg, now: Now) {
        match msg {
            Msg::Wake => {
                self.timers.negotiate_now = true;
                self.schedd.local.woken();
            }
            Msg::Exited { job, pid } => {
                if !self.local_exited(job, pid, now) {
                    let actions = self.job_exited(job, pid, now);
                    self.apply(actions, now);
                }
            }
            Msg::Command(cmd, peer, reply) => {
                tracing::debug!(
                    "request {cmd:?} from uid {} gid {} pid {}",
                    peer.uid,
                    peer.gid,
                    peer.pid
                );
                tracing::info!("command: {}", cmd.line());
                let r = match cmd {
                    Command::Jobs(signal, ids) => Ok(self.signal_jobs(signal, &ids, now)),
                    cmd => self.command(cmd, now).map(|(answer, actions)| {
                        self.apply(actions, now);
                        answer
                    }),
                };
                let _ = reply.send(r);
            }
            Msg::Signal(sig) => {
                let actions = self.signal(sig, now);
                self.apply(actions, now);
            }
            Msg::Adopt(cluster) => {
                if let Some(scope) = &mut self.schedd.scope {
                    scope.insert(cluster);
                    // Its idle jobs are read at the next step, and tried at once.
                    self.schedd.reload_next = true;
                    self.timers.negotiate_now = true;
                    self.schedd.local.woken();
                }
            }
            Msg::Query(kind, peer, reply) => {
                tracing::debug!("query {kind:?} from uid {} pid {}", peer.uid, peer.pid);
                let _ = reply.send(self.ads(kind, now));
            }
        }
    }

    /// One step of the loop at time `now` (see the module documentation).
    pub(super) fn step(&mut self, now: Now) -> Result<(), DaemonError> {
        let t = now.t;
        self.session.now = t;
        let version = self.queue.data_version()?;
        if version != self.schedd.data_version || self.schedd.reload_next {
            // What the messages changed is committed before the queue is read again.
            let actions = self.commit()?;
            self.apply(actions, now);
            self.schedd.reload_next = false;
            self.schedd.data_version = version;
            // A failed read is tried again at the next step; this one goes on (a step never
            // stops halfway: the pool would wedge on one bad job).
            match self.queue_changed(now) {
                Ok(actions) => self.apply(actions, now),
                Err(e) => {
                    tracing::error!("reading the queue's changes: {e}");
                    self.schedd.reload_next = true;
                }
            }
        }
        let instant = now.at;
        let kills: Vec<JobId> = self
            .shadow
            .running
            .iter()
            .filter(|(_, r)| r.hard_kill_at.is_some_and(|k| k <= instant))
            .map(|(id, _)| *id)
            .collect();
        for id in kills {
            if let Some(r) = self.shadow.running.get_mut(&id) {
                let _ = r.job.hard_kill();
                r.hard_kill_at = None;
            }
        }
        self.local_hard_kills(instant);
        if instant >= self.timers.next_periodic {
            self.timers.next_periodic =
                instant + knob_secs(&self.config, "PERIODIC_EXPR_INTERVAL", 60);
            match self.periodic(now) {
                Ok(actions) => self.apply(actions, now),
                Err(e) => tracing::error!("the periodic policy pass: {e}"),
            }
        }
        self.start_local_jobs(now, instant >= self.timers.next_negotiation);
        if self.accepting() {
            let starts = self.reuse_claims(now);
            self.apply(starts, now);
            let due = self.timers.negotiate_now || instant >= self.timers.next_negotiation;
            if due && !self.control.negotiator_off {
                match self.negotiate(now) {
                    Ok(starts) => self.apply(starts, now),
                    Err(e) => tracing::error!("a negotiation cycle: {e}"),
                }
                // The cycle's accounting is written once its matches have started their
                // jobs: the write (and its fsync) is off the path from a submit to a start.
                self.flush_accountant();
            }
        } else {
            self.release_idle_claims(t);
        }
        self.timers.negotiate_now = false;
        if instant >= self.timers.next_negotiation {
            self.timers.next_negotiation =
                instant + knob_secs(&self.config, "NEGOTIATOR_INTERVAL", 60);
        }
        let timer_due = self.startd.next_timer(t).is_some_and(|at| at <= t);
        if timer_due || instant >= self.timers.next_update {
            let actions = self.startd_policy(now);
            self.apply(actions, now);
            self.timers.next_update = instant + knob_secs(&self.config, "POLLING_INTERVAL", 5);
        }
        if self.matchmaker.defrag.is_some()
            && instant >= self.timers.next_defrag
            && self.accepting()
        {
            let actions = self.defrag(now);
            self.apply(actions, now);
        }
        let actions = self.commit()?;
        self.apply(actions, now);
        // The job factories, once the step's changes (jobs that left, started) are in the
        // queue; new procs are read, and negotiated for, at the next step, which comes at
        // once.
        if !self.control.schedd_off {
            match self.factory_actions() {
                Ok(actions) => self.apply(actions, now),
                Err(e) => tracing::error!("the job factories: {e}"),
            }
        }
        Ok(())
    }

    /// Carries out the roles' decisions in order. A decision's own consequences (a start
    /// that fails releases its claim) are carried out before the next decision, as when the
    /// roles called each other.
    pub(super) fn apply(&mut self, actions: Vec<Action>, now: Now) {
        let mut todo: VecDeque<Action> = actions.into();
        while let Some(action) = todo.pop_front() {
            let more = match action {
                Action::Start { job, slot } => self.start_job(job, &slot, now),
                Action::Stop { job, stop, fast } => {
                    if !self.stop_local(job, stop.clone(), fast, now) {
                        self.stop_job(job, stop, fast, now);
                    }
                    Vec::new()
                }
                Action::Evict {
                    job,
                    reason,
                    code,
                    hard,
                } => {
                    self.evict(job, reason, code, hard, now);
                    Vec::new()
                }
                Action::Suspend { job, by } => {
                    self.suspend_job(job, by, now.t);
                    Vec::new()
                }
                Action::Continue { job, by } => {
                    self.continue_job(job, by, now.t);
                    Vec::new()
                }
                Action::ReleaseClaim { slot, renegotiate } => {
                    self.release_claim(&slot, now.t);
                    if !renegotiate {
                        self.timers.negotiate_now = false;
                    }
                    Vec::new()
                }
                Action::ForgetClaim { slot } => {
                    self.forget_claim(&slot, now.t);
                    Vec::new()
                }
                Action::Hold {
                    job,
                    ad,
                    reason,
                    code,
                    subcode,
                    logs,
                } => {
                    self.hold(job, &ad, &reason, code, subcode, logs);
                    Vec::new()
                }
                Action::Requeue { job, ad } => {
                    self.requeue(job, ad, now);
                    Vec::new()
                }
                Action::Materialize {
                    cluster,
                    first,
                    count,
                } => {
                    self.materialize(cluster, first, count);
                    Vec::new()
                }
                Action::RemoveFactory {
                    cluster,
                    completion,
                } => {
                    self.remove_factory(cluster, completion);
                    Vec::new()
                }
                Action::EvaluateStartd => self.startd_policy(now),
                Action::DrainCompleted(what) => self.drain_completed(what, now),
                Action::RestartStartd => {
                    match Startd::from_config(&self.config, now.t) {
                        Ok(startd) => {
                            self.release_all_claims(now);
                            self.replace_startd(startd);
                        }
                        Err(e) => tracing::error!("restarting the startd: {e}"),
                    }
                    Vec::new()
                }
            };
            for a in more.into_iter().rev() {
                todo.push_front(a);
            }
        }
    }

    /// `condor_vacate_job`, `condor_suspend` and `condor_continue` on running jobs, each
    /// to the schedd (its own jobs) or the shadow; the ids not acted on (not running here,
    /// already stopping, or not in the state the signal needs), as a space-separated list.
    pub(super) fn signal_jobs(&mut self, signal: JobSignal, ids: &[JobId], now: Now) -> String {
        let mut missed = Vec::new();
        for &id in ids {
            let done = match self.signal_local(id, signal, now) {
                Some(done) => done,
                None => self.signal_job(id, signal, now),
            };
            if !done {
                missed.push(id.to_string());
            }
        }
        missed.join(" ")
    }
}
