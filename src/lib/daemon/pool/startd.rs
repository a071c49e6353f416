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
    /// Runs the startd's policy and turns what it decided into the other roles' work:
    /// suspending, continuing, vacating and killing jobs (the shadow), forgetting the claims
    /// it ended (the matchmaker), and what a finished drain asks of the daemons (control).
    pub(super) fn startd_policy(&mut self, now: Now) -> Vec<Action> {
        let t = now.t;
        let mut actions = Vec::new();
        for decision in self.startd.evaluate(t) {
            match decision {
                Decision::Job { slot, action } => {
                    let Some(id) = self.matchmaker.claims.get(&slot).and_then(|c| c.job) else {
                        continue;
                    };
                    // A decision may wait a step (a query's refresh made it) while its job
                    // ends and another starts on the slot: it stands only if the slot is
                    // still where the decision put it.
                    let now_in = self.startd.state(&slot);
                    let current = match action {
                        JobAction::Suspend => now_in == Some((State::Claimed, Activity::Suspended)),
                        JobAction::Continue => self.shadow.running.get(&id).is_some_and(|r| {
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
                    actions.push(match action {
                        JobAction::Suspend => Action::Suspend {
                            job: id,
                            by: Suspender::Startd,
                        },
                        // The startd continues any suspended job before it evicts it, whoever
                        // suspended it.
                        JobAction::Continue => Action::Continue { job: id, by: None },
                        JobAction::Vacate { reason, code } => Action::Evict {
                            job: id,
                            reason,
                            code,
                            hard: false,
                        },
                        JobAction::Kill { reason, code } => Action::Evict {
                            job: id,
                            reason,
                            code,
                            hard: true,
                        },
                    });
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
                    actions.push(Action::ForgetClaim { slot });
                }
                Decision::Daemon(what) => actions.push(Action::DrainCompleted(what)),
            }
        }
        actions
    }

    /// A new startd in place of the old one, as when the master restarts it: its slots are
    /// fresh (not draining); the claims were released first.
    pub(super) fn replace_startd(&mut self, startd: Startd) {
        self.startd = startd;
        self.control.startd_exited = false;
        self.timers.negotiate_now = true;
    }
}
