//! The startd adapter: applying the startd's policy decisions, evictions, its restart, drains
//! completing.

use super::*;

/// The end of a suspension in the job's ad: its time added to `CumulativeSuspensionTime` and
/// `UncommittedSuspensionTime`, `LastSuspensionTime` back to 0.
pub(super) fn resume_updates(ad: &ClassAd, t: i64) -> AdUpdate {
    let mut update = AdUpdate::default();
    let last = lookup_int(ad, "LastSuspensionTime").unwrap_or(0);
    let mut cumulative = lookup_int(ad, "CumulativeSuspensionTime").unwrap_or(0);
    if last > 0 {
        cumulative += t - last;
        let uncommitted = lookup_int(ad, "UncommittedSuspensionTime").unwrap_or(0) + t - last;
        update.set("UncommittedSuspensionTime", Expr::lit(uncommitted));
    }
    update.set("CumulativeSuspensionTime", Expr::lit(cumulative));
    update.set("LastSuspensionTime", Expr::lit(0));
    update
}

/// Whether a requeued job still cools down (`JobCoolDownExpiration` in the future), as the
/// schedd keeps such jobs from matching.
pub(super) fn cooling_down(ad: &ClassAd, t: i64) -> bool {
    lookup_int(ad, "JobCoolDownExpiration").is_some_and(|until| until > t)
}

impl Pool {
    /// Runs the startd's policy and carries out what it decided: suspending, continuing,
    /// vacating and killing jobs, forgetting the claims it ended, and what a finished drain
    /// asks of the daemons.
    pub(super) fn apply_startd(&mut self, t: i64) {
        for decision in self.startd.evaluate(t) {
            match decision {
                Decision::Job { slot, action } => {
                    let Some(id) = self.claims.get(&slot).and_then(|c| c.job) else {
                        continue;
                    };
                    // A decision may wait a step (a query's refresh made it) while its job
                    // ends and another starts on the slot: it stands only if the slot is
                    // still where the decision put it.
                    let now_in = self.startd.state(&slot);
                    let current = match action {
                        JobAction::Suspend => now_in == Some((State::Claimed, Activity::Suspended)),
                        JobAction::Continue => self.running.get(&id).is_some_and(|r| {
                            r.suspended.is_some()
                                && now_in != Some((State::Claimed, Activity::Suspended))
                        }),
                        JobAction::Vacate { .. } | JobAction::Kill { .. } => {
                            now_in.is_some_and(|(s, _)| s == State::Preempting)
                        }
                    };
                    if !current {
                        tracing::debug!("stale startd decision on {slot} dropped: {action:?}");
                        continue;
                    }
                    tracing::info!("startd policy on {slot} (job {id}): {action:?}");
                    match action {
                        JobAction::Suspend => {
                            self.suspend_job(id, Suspender::Startd, t);
                        }
                        // The startd continues any suspended job before it evicts it, whoever
                        // suspended it.
                        JobAction::Continue => {
                            self.continue_job(id, None, t);
                        }
                        JobAction::Vacate { reason, code } => self.evict(id, reason, code, false),
                        JobAction::Kill { reason, code } => self.evict(id, reason, code, true),
                    }
                }
                Decision::ClaimEnded { slot, reason } => {
                    if self
                        .startd
                        .state(&slot)
                        .is_some_and(|(s, _)| s == State::Claimed)
                    {
                        // Claimed again since (a stale decision): the new claim stands.
                        continue;
                    }
                    tracing::info!("startd ended the claim on {slot}: {reason}");
                    self.forget_claim(&slot, t);
                }
                Decision::Daemon(what) => self.drain_completed(what),
            }
        }
    }

    /// The startd's eviction of a job: back to idle with the startd's reason and code. The
    /// startd times the vacate itself (a `Kill` follows when the vacate time is over).
    pub(super) fn evict(&mut self, id: JobId, reason: String, code: i64, hard: bool) {
        let own_stop = self.running.get(&id).is_some_and(|r| r.stop.is_some());
        self.stop_job(
            id,
            Stop::Vacate {
                reason,
                code,
                subcode: 0,
            },
            hard,
        );
        if !own_stop {
            if let Some(r) = self.running.get_mut(&id) {
                r.hard_kill_at = None;
            }
        }
    }

    /// A new startd from the configuration, as when the master restarts one: its slots are
    /// fresh (not draining), and no claim survives.
    pub(super) fn restart_startd(&mut self) {
        match Startd::from_config(&self.config, now()) {
            Ok(startd) => {
                self.release_all_claims();
                self.startd = startd;
                self.startd_exited = false;
                self.negotiate_now = true;
            }
            Err(e) => tracing::error!("restarting the startd: {e}"),
        }
    }

    /// A drain finished with an `-on-completion` request: `-exit-on-completion` turns the
    /// startd off (as the master does not restart an exited startd), `-restart-on-completion`
    /// starts it afresh from the configuration, `-reconfig-on-completion` reconfigures.
    pub(super) fn drain_completed(&mut self, what: OnCompletion) {
        tracing::info!("draining completed: {what:?}");
        match what {
            OnCompletion::Exit => {
                self.set_off(Subsystem::Startd, true);
                self.startd_exited = true;
            }
            OnCompletion::Restart => self.restart_startd(),
            OnCompletion::Reconfig => {
                if let Err(e) = self.reconfig() {
                    tracing::error!("reconfig failed: {e}");
                }
            }
            OnCompletion::Resume | OnCompletion::Nothing => self.negotiate_now = true,
        }
    }
}
