//! Draining: `condor_drain` on one machine, as HTCondor's `ResMgr::startDraining`,
//! `cancelDraining`, `checkForDrainCompletion`, `considerResumingAfterDraining` and
//! `compute_draining_attrs`/`publish_draining_attrs` (src/condor_startd.V6/ResMgr.cpp) have it.
//!
//! A drain request ([`DrainRequest`]) is refused unless its `-check` expression is a boolean
//! true in every slot's ad. Then the whole startd drains: every slot ad says `Draining`,
//! `DrainReason` and `DrainingRequestId`; no new claim is taken (the slots advertise
//! `Requirements = False`), unless the request's `-start` expression (else
//! `DEFAULT_DRAINING_START_EXPR`) lets jobs in while a graceful drain waits for its jobs:
//! then that expression is the slots' `START`, and the jobs it lets in
//! (`AcceptedWhileDraining`) run until the last of the original jobs has ended.
//!
//! - graceful: every claim retires; each job runs out its `MaxJobRetirementTime` (the
//!   longest retirement of all sets the end for every job the draining `START` accepts), then
//!   is vacated with its vacate time;
//! - quick: every job is vacated at once, with its vacate time;
//! - fast: every job is hard-killed at once.
//!
//! Jobs evicted by draining get the vacate reason "Startd was draining" (code 1014,
//! `StartdDraining`). Free slots go to Drained/Retiring (#36, #37), and once every slot is
//! Drained, to Drained/Idle (#33). Cancelling, or `-resume-on-completion` once drained,
//! returns them to Owner (#34, #35) and then, as `IS_OWNER` says, Unclaimed;
//! `-reconfig-on-completion` does the same and asks the master to reconfigure;
//! `-exit-on-completion` and `-restart-on-completion` leave the slots drained and ask the
//! master to exit or restart ([`super::Decision::Daemon`]).

use super::slot::SlotKind;
use super::state::{Activity, Event, State};
use super::{Decision, Startd, StartdError};
use crate::classad::parser::parse_old_expr;
use crate::classad::{Expr, Value};
use crate::schedd::policy::hold_codes;

/// HTCondor's error codes for refused drain requests (condor_error_codes.h).
pub const DRAINING_ALREADY_IN_PROGRESS: i64 = 10001;
pub const DRAINING_NO_MATCHING_REQUEST_ID: i64 = 10002;
pub const DRAINING_CHECK_EXPR_FAILED: i64 = 10003;

/// The vacate reason of a job that draining evicts.
pub(super) const DRAINING_REASON: &str = "Startd was draining";

/// How fast to drain (`condor_drain -graceful | -quick | -fast`; HTCondor's `HowFast`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DrainSchedule {
    /// Retirement time and vacate time are honoured.
    #[default]
    Graceful,
    /// Vacate time is honoured, retirement time is not.
    Quick,
    /// Neither: jobs are hard-killed.
    Fast,
}

/// What to do once every slot is drained (`ResumeOnCompletion`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnCompletion {
    /// Stay drained until the drain is cancelled.
    #[default]
    Nothing,
    /// `-resume-on-completion`: stop draining.
    Resume,
    /// `-exit-on-completion`: the startd exits.
    Exit,
    /// `-restart-on-completion`: the startd restarts.
    Restart,
    /// `-reconfig-on-completion`: stop draining and reconfigure.
    Reconfig,
}

/// A `condor_drain` request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrainRequest {
    pub schedule: DrainSchedule,
    /// `DrainReason`; the caller supplies condor_drain's default (`by <user>`).
    pub reason: Option<String>,
    pub on_completion: OnCompletion,
    /// `-check`: must be true in every slot's ad, or the request is refused.
    pub check: Option<String>,
    /// `-start`: the slots' START while a graceful drain waits for its jobs.
    pub start: Option<String>,
    /// The id to give the request; by default the startd's next number (`1`, `2`, ...).
    pub request_id: Option<String>,
}

/// A drain in progress.
#[derive(Clone, Debug)]
pub(super) struct Draining {
    pub request_id: String,
    pub reason: String,
    pub schedule: DrainSchedule,
    pub on_completion: OnCompletion,
    /// The START of slots while the drain waits for its jobs (`globalDrainingStartExpr`).
    pub start_expr: Option<Expr>,
    /// An exit or restart on completion has been asked of the master.
    pub completion_sent: bool,
}

/// What the startd keeps about draining across requests (ResMgr's draining members).
#[derive(Clone, Debug, Default)]
pub(super) struct DrainState {
    pub current: Option<Draining>,
    /// The number of the latest request (`draining_id`).
    pub seq: u64,
    /// The latest request's id, for a cancel that names it after the drain ended.
    pub last_request_id: Option<String>,
    pub last_start: i64,
    pub last_stop: i64,
    /// `MaxJobRetirementTime` forced on every slot during the final draining (the jobs
    /// accepted while draining are evicted).
    pub mjrt_override: Option<i64>,
    /// CPU-seconds of jobs evicted by draining (`TotalMachineDrainingBadput`).
    pub total_badput: i64,
    /// CPU-seconds slots spent Unclaimed or Drained while draining.
    pub total_unclaimed: f64,
    /// When `total_unclaimed` was last brought up to date.
    pub unclaimed_mark: i64,
    pub expected_graceful_completion: i64,
    pub expected_quick_completion: i64,
    pub expected_graceful_badput: i64,
    pub expected_quick_badput: i64,
}

/// HTCondor's `cap_int`: a long long clipped to an int.
fn cap_int(x: i64) -> i64 {
    x.clamp(i32::MIN as i64, i32::MAX as i64)
}

fn drain_error(code: i64, message: String) -> StartdError {
    StartdError::Drain { code, message }
}

impl Startd {
    /// Whether the startd is draining (`ResMgr::isSlotDraining`).
    pub(super) fn is_draining(&self) -> bool {
        self.drain.current.is_some()
    }

    /// The drain's START expression, while a drain has one.
    pub(super) fn draining_start(&self) -> Option<&Expr> {
        self.drain
            .current
            .as_ref()
            .and_then(|d| d.start_expr.as_ref())
    }

    /// condor_drain: starts draining the startd (see the module documentation). Returns the
    /// request's id. Refused, changing nothing, when a drain is already in progress, or when
    /// the `-check` expression is not a boolean true in every slot's ad (HTCondor's error
    /// texts and codes, [`StartdError::Drain`]). The evictions it causes come from the next
    /// [`Startd::evaluate`].
    pub fn drain(&mut self, req: DrainRequest, now: i64) -> Result<String, StartdError> {
        self.begin(now);
        if self.is_draining() {
            return Err(drain_error(
                DRAINING_ALREADY_IN_PROGRESS,
                "Draining already in progress.".into(),
            ));
        }
        let parse = |what: &'static str, text: &str| {
            parse_old_expr(text).map_err(|e| StartdError::BadExpression {
                what,
                text: text.to_owned(),
                reason: e.to_string(),
            })
        };
        let check = req
            .check
            .as_deref()
            .map(|t| parse("check", t))
            .transpose()?;
        let start = req
            .start
            .as_deref()
            .map(|t| parse("start", t))
            .transpose()?;
        if let Some(check) = &check {
            for i in 0..self.slots.len() {
                let ad = self.policy_ad(i);
                let name = &self.slots[i].name;
                match ad.eval_expr(check, None) {
                    Value::Bool(true) => {}
                    Value::Bool(false) => {
                        return Err(drain_error(
                            DRAINING_CHECK_EXPR_FAILED,
                            format!("Draining check expression is false on {name}."),
                        ))
                    }
                    _ => {
                        return Err(drain_error(
                            DRAINING_CHECK_EXPR_FAILED,
                            format!(
                                "Draining check expression does not evaluate to a bool on {name}."
                            ),
                        ))
                    }
                }
            }
        }
        self.drain.seq += 1;
        let id = req
            .request_id
            .clone()
            .unwrap_or_else(|| self.drain.seq.to_string());
        let start_expr = match req.schedule {
            DrainSchedule::Graceful => {
                start.or_else(|| self.settings.default_draining_start.clone())
            }
            _ => None,
        };
        self.drain.current = Some(Draining {
            request_id: id.clone(),
            reason: req.reason.clone().unwrap_or_default(),
            schedule: req.schedule,
            on_completion: req.on_completion,
            start_expr,
            completion_sent: false,
        });
        self.drain.last_request_id = Some(id.clone());
        self.drain.last_start = now;
        self.drain.unclaimed_mark = now;
        self.static_ads.invalidate();
        match req.schedule {
            DrainSchedule::Graceful => self.retire_all_claims(now),
            DrainSchedule::Quick => {
                self.mark_draining_badput();
                self.vacate_all_claims(now);
            }
            DrainSchedule::Fast => {
                self.mark_draining_badput();
                self.kill_all_claims(now);
            }
        }
        self.run_policy(now);
        Ok(id)
    }

    /// condor_drain -cancel: stops draining (the request `request_id`, or whichever). The
    /// slots return to Owner and then Unclaimed; retiring jobs go back to running unless
    /// something else retired them. A cancel with no id when nothing drains does nothing;
    /// an id other than the latest request's is refused ("No matching draining request id").
    pub fn cancel_drain(&mut self, request_id: Option<&str>, now: i64) -> Result<(), StartdError> {
        self.begin(now);
        if !self.is_draining() && request_id.is_none() {
            return Ok(());
        }
        if let Some(id) = request_id {
            if self.drain.last_request_id.as_deref() != Some(id) {
                return Err(drain_error(
                    DRAINING_NO_MATCHING_REQUEST_ID,
                    format!("No matching draining request id {id}."),
                ));
            }
        }
        self.stop_draining(now);
        self.run_policy(now);
        Ok(())
    }

    /// `cancelDraining`'s effect.
    fn stop_draining(&mut self, now: i64) {
        self.drain.current = None;
        self.drain.last_stop = now;
        self.drain.mjrt_override = None;
        self.static_ads.invalidate();
    }

    /// Jobs on every claim will count as draining's badput when they are evicted
    /// (`setBadputCausedByDraining`).
    fn mark_draining_badput(&mut self) {
        for s in &mut self.slots {
            if let Some(c) = s.claim.as_mut() {
                c.badput_by_draining = true;
            }
        }
    }

    /// Marks the claim on slot `i` as ended by the drain.
    fn closing_for_drain(&mut self, i: usize) {
        self.set_vacate_reason(i, DRAINING_REASON, hold_codes::STARTD_DRAINING);
        if let Some(c) = self.slots[i].claim.as_mut() {
            c.closing.get_or_insert_with(|| DRAINING_REASON.to_owned());
        }
    }

    /// `releaseAllClaimsReversibly`: every claim retires (`Resource::retire_claim`).
    fn retire_all_claims(&mut self, now: i64) {
        for i in 0..self.slots.len() {
            match self.slots[i].state() {
                State::Claimed => {
                    self.closing_for_drain(i);
                    self.step(i, Event::Retire, now);
                }
                State::Matched => {
                    self.step(i, Event::Released, now);
                }
                _ => {}
            }
        }
    }

    /// `releaseAllClaims`: every claim is preempted, its job vacated
    /// (`Resource::release_claim`).
    fn vacate_all_claims(&mut self, now: i64) {
        for i in 0..self.slots.len() {
            match (self.slots[i].state(), self.slots[i].activity()) {
                (State::Claimed, _) => {
                    self.closing_for_drain(i);
                    self.step(i, Event::Vacate, now);
                }
                (State::Matched, _) => {
                    self.step(i, Event::Released, now);
                }
                _ => {}
            }
        }
    }

    /// `killAllClaims`: every job is hard-killed (`Resource::kill_claim`).
    fn kill_all_claims(&mut self, now: i64) {
        for i in 0..self.slots.len() {
            match (self.slots[i].state(), self.slots[i].activity()) {
                (State::Claimed, _) | (State::Preempting, Activity::Vacating) => {
                    if self.slots[i].state() == State::Claimed {
                        self.closing_for_drain(i);
                    }
                    self.step(i, Event::Kill, now);
                }
                (State::Matched, _) => {
                    self.step(i, Event::Released, now);
                }
                _ => {}
            }
        }
    }

    /// The longest retirement left of the jobs that were running when a graceful drain
    /// began (`gracefulDrainingTimeRemaining`); 0 unless a graceful drain is in progress.
    pub(super) fn graceful_draining_remaining(&self) -> i64 {
        match &self.drain.current {
            Some(d) if d.schedule == DrainSchedule::Graceful => {}
            _ => return 0,
        }
        (0..self.slots.len())
            .filter(|&i| !self.slots[i].accepted_while_draining)
            .map(|i| self.retirement_remaining(i))
            .max()
            .unwrap_or(0)
            .max(0)
    }

    /// Every slot is Drained (`drainingIsComplete`).
    pub(super) fn draining_is_complete(&self) -> bool {
        self.is_draining() && self.slots.iter().all(|s| s.state() == State::Drained)
    }

    /// `checkForDrainCompletion`, after a job that was running when the drain began ended:
    /// once only jobs accepted while draining hold claims, the final draining begins (no
    /// more jobs let in, `MaxJobRetirementTime` 0, every claim retired).
    pub(super) fn check_for_drain_completion(&mut self, now: i64) {
        if self.slots.is_empty() || !self.is_draining() {
            return;
        }
        let waiting = self.slots.iter().any(|s| {
            !s.accepted_while_draining
                && s.kind != SlotKind::Partitionable
                && (s.claim.is_some() || s.state() == State::Preempting)
        });
        if waiting {
            return;
        }
        if let Some(d) = self.drain.current.as_mut() {
            d.start_expr = None;
        }
        self.drain.mjrt_override = Some(0);
        self.static_ads.invalidate();
        self.retire_all_claims(now);
    }

    /// `considerResumingAfterDraining`, once every slot is Drained/Idle: what the request
    /// asked for on completion.
    pub(super) fn consider_resuming_after_draining(&mut self, now: i64) -> bool {
        let Some(d) = &self.drain.current else {
            return false;
        };
        if d.on_completion == OnCompletion::Nothing || d.completion_sent {
            return false;
        }
        if !self
            .slots
            .iter()
            .all(|s| s.state() == State::Drained && s.activity() == Activity::Idle)
        {
            return false;
        }
        let on = d.on_completion;
        self.drain.last_stop = now;
        match on {
            OnCompletion::Exit | OnCompletion::Restart => {
                if let Some(d) = self.drain.current.as_mut() {
                    d.completion_sent = true;
                }
                self.pending.push(Decision::Daemon(on));
            }
            OnCompletion::Reconfig => {
                self.stop_draining(now);
                self.pending.push(Decision::Daemon(on));
            }
            OnCompletion::Resume | OnCompletion::Nothing => self.stop_draining(now),
        }
        true
    }

    /// Brings `TotalMachineDrainingUnclaimedTime` up to `now`: the CPUs of every Unclaimed
    /// or Drained slot count while the startd drains (`ResState::timeDrainingUnclaimed`).
    pub(super) fn account_draining(&mut self, now: i64) {
        let d = (now - self.drain.unclaimed_mark).max(0);
        self.drain.unclaimed_mark = now;
        if d == 0 || !self.is_draining() {
            return;
        }
        let cpus: f64 = self
            .slots
            .iter()
            .filter(|s| matches!(s.state(), State::Unclaimed | State::Drained))
            .map(|s| s.res.cpus.max(0.0))
            .sum();
        self.drain.total_unclaimed += cpus * d as f64;
    }

    /// `compute_draining_attrs`: what draining now would cost, and when it would end.
    pub(super) fn compute_draining_attrs(&mut self, now: i64) {
        let mut graceful_completion = 0i64;
        let mut quick_completion = 0i64;
        let mut graceful_badput = 0i64;
        let mut quick_badput = 0i64;
        let mut drained = true;
        for i in 0..self.slots.len() {
            let s = &self.slots[i];
            let Some(c) = &s.claim else {
                continue;
            };
            let runtime = c.job_run_time(now);
            if c.is_active() {
                drained = false;
            }
            // Both read the slot's ad (when a job runs): built once for the two.
            let (retirement, vacate) = if c.is_active() {
                let ad = self.policy_ad(i);
                (
                    self.retirement_remaining_in(i, &ad),
                    self.max_vacate_time_in(i, &ad),
                )
            } else {
                (0, 0)
            };
            let cpus = (s.res.cpus + 0.1).max(0.0) as i64;
            quick_badput += cpus * (runtime + vacate);
            graceful_badput += cpus * runtime;
            let graceful = retirement.max(vacate);
            graceful_badput += cpus * graceful;
            graceful_completion = graceful_completion.max(graceful);
            quick_completion = quick_completion.max(vacate);
        }
        let st = &mut self.drain;
        if drained {
            if st.expected_graceful_completion == 0 || st.expected_graceful_completion > now {
                st.expected_graceful_completion = now;
            }
            if st.expected_quick_completion == 0 || st.expected_quick_completion > now {
                st.expected_quick_completion = now;
            }
        } else {
            st.expected_graceful_completion = cap_int(graceful_completion + now);
            st.expected_quick_completion = cap_int(quick_completion + now);
        }
        st.expected_graceful_badput = cap_int(graceful_badput);
        st.expected_quick_badput = cap_int(quick_badput);
    }

    /// `publish_draining_attrs`, into a slot ad or the daemon ad.
    pub(super) fn publish_draining(&self, ad: &mut crate::classad::ClassAd) {
        let st = &self.drain;
        if let Some(d) = &st.current {
            ad.insert("Draining", Expr::lit(true));
            ad.insert("DrainReason", Expr::lit(d.reason.as_str()));
            ad.insert("DrainingRequestId", Expr::lit(d.request_id.as_str()));
        }
        ad.insert(
            "ExpectedMachineGracefulDrainingBadput",
            Expr::lit(st.expected_graceful_badput),
        );
        ad.insert(
            "ExpectedMachineQuickDrainingBadput",
            Expr::lit(st.expected_quick_badput),
        );
        ad.insert(
            "ExpectedMachineGracefulDrainingCompletion",
            Expr::lit(st.expected_graceful_completion),
        );
        ad.insert(
            "ExpectedMachineQuickDrainingCompletion",
            Expr::lit(st.expected_quick_completion),
        );
        if st.total_badput != 0 {
            ad.insert("TotalMachineDrainingBadput", Expr::lit(st.total_badput));
        }
        let unclaimed = cap_int(st.total_unclaimed as i64);
        if unclaimed != 0 {
            ad.insert("TotalMachineDrainingUnclaimedTime", Expr::lit(unclaimed));
        }
        if st.last_start != 0 {
            ad.insert("LastDrainStartTime", Expr::lit(st.last_start));
        }
        if st.last_stop != 0 {
            ad.insert("LastDrainStopTime", Expr::lit(st.last_stop));
        }
    }
}
