//! The main loop and its timers: messages in, one step out, the deadlines it sleeps to.

use super::*;

impl Pool {
    /// Runs the main loop until the pool stops; true when it should restart.
    pub fn run(mut self, rx: Receiver<Msg>) -> bool {
        tracing::info!(
            "condor_master running: {} slots",
            self.startd.slot_ads().len()
        );
        loop {
            let timeout = self
                .next_deadline()
                .saturating_duration_since(Instant::now());
            let mut msgs = Vec::new();
            match rx.recv_timeout(timeout) {
                Ok(m) => msgs.push(m),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return false,
            }
            msgs.extend(rx.try_iter());
            if msgs.is_empty() && self.trim_at.is_some_and(|t| t <= Instant::now()) {
                self.trim_at = None;
                self.release_memory();
            } else if !msgs.is_empty() {
                self.trim_at = Some(Instant::now() + IDLE_TRIM_DELAY);
            }
            for m in msgs {
                self.handle(m);
            }
            if let Err(e) = self.step() {
                tracing::error!("{e}");
            }
            if let Lifecycle::Stopping { restart, .. } = self.lifecycle {
                if self.running.is_empty() && self.local.running.is_empty() {
                    self.release_all_claims();
                    let _ = self.commit();
                    self.cleaner.finish();
                    tracing::info!("condor_master stopping");
                    return restart;
                }
            }
        }
    }

    pub(super) fn next_deadline(&self) -> Instant {
        let mut t = self
            .next_negotiation
            .min(self.next_periodic)
            .min(self.next_update);
        if let Some(timer) = self.startd.next_timer(now()) {
            t = t.min(instant_at(timer));
        }
        if self.defrag.is_some() {
            t = t.min(self.next_defrag);
        }
        for r in self.running.values() {
            if let Some(k) = r.hard_kill_at {
                t = t.min(k);
            }
        }
        if let Some(k) = self.local.next_deadline() {
            t = t.min(k);
        }
        if let Some(trim) = self.trim_at {
            t = t.min(trim);
        }
        if self.negotiate_now {
            t = Instant::now();
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

    pub(super) fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Wake => {
                self.negotiate_now = true;
                self.local.woken();
            }
            Msg::Exited { job } => {
                if !self.local_exited(job) {
                    self.job_exited(job);
                }
            }
            Msg::Command(cmd, peer, reply) => {
                tracing::debug!(
                    "request {cmd:?} from uid {} gid {} pid {}",
                    peer.uid,
                    peer.gid,
                    peer.pid
                );
                let r = self.command(cmd);
                let _ = reply.send(r);
            }
            Msg::Signal(sig) => self.signal(sig),
            Msg::Query(kind, peer, reply) => {
                tracing::debug!("query {kind:?} from uid {} pid {}", peer.uid, peer.pid);
                let _ = reply.send(self.ads(kind));
            }
        }
    }

    /// One step of the loop (see the module documentation).
    pub(super) fn step(&mut self) -> Result<(), DaemonError> {
        let t = now();
        self.session.now = t;
        let version = self.queue.data_version()?;
        if version != self.data_version || self.reload_next {
            // What the messages changed is committed before the queue is read again.
            self.commit()?;
            self.reload_next = false;
            self.data_version = version;
            // A failed read is tried again at the next step; this one goes on (a step never
            // stops halfway: the pool would wedge on one bad job).
            if let Err(e) = self.queue_changed() {
                tracing::error!("reading the queue's changes: {e}");
                self.reload_next = true;
            }
        }
        let instant = Instant::now();
        let kills: Vec<JobId> = self
            .running
            .iter()
            .filter(|(_, r)| r.hard_kill_at.is_some_and(|k| k <= instant))
            .map(|(id, _)| *id)
            .collect();
        for id in kills {
            if let Some(r) = self.running.get_mut(&id) {
                let _ = r.job.hard_kill();
                r.hard_kill_at = None;
            }
        }
        self.local_hard_kills(instant);
        if instant >= self.next_periodic {
            self.next_periodic = instant + knob_secs(&self.config, "PERIODIC_EXPR_INTERVAL", 60);
            if let Err(e) = self.periodic(t) {
                tracing::error!("the periodic policy pass: {e}");
            }
        }
        self.start_local_jobs(t, instant >= self.next_negotiation);
        if self.accepting() {
            self.reuse_claims(t);
            let due = self.negotiate_now || instant >= self.next_negotiation;
            if due && !self.negotiator_off {
                if let Err(e) = self.negotiate(t) {
                    tracing::error!("a negotiation cycle: {e}");
                }
            }
        } else {
            self.release_idle_claims(t);
        }
        self.negotiate_now = false;
        if instant >= self.next_negotiation {
            self.next_negotiation = instant + knob_secs(&self.config, "NEGOTIATOR_INTERVAL", 60);
        }
        let timer_due = self.startd.next_timer(t).is_some_and(|at| at <= t);
        if timer_due || instant >= self.next_update {
            self.apply_startd(t);
            self.next_update = instant + knob_secs(&self.config, "POLLING_INTERVAL", 5);
        }
        if self.defrag.is_some() && instant >= self.next_defrag && self.accepting() {
            self.defrag(t);
        }
        self.commit()?;
        Ok(())
    }
}
