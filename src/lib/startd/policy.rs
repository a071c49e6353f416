//! The policy: which [`Event`]s the configuration's expressions fire, evaluated with the
//! slot's ad as MY and the claim's job as TARGET (HTCondor's `ResState::eval_policy` and the
//! `Resource::eval_*`/`wants_*` functions, HTCondor 24.0), what each transition asks done to
//! the job ([`Decision`]s), the timers that escalate an eviction, and the machine-wide values
//! the expressions read (load and idle times, as `ResMgr::assign_load_to_slots` and
//! `assign_idle_to_slots` share them out).
//!
//! # The expressions
//!
//! Each is looked up in the slot's internal ad (the published attributes over the
//! configuration's expressions, `SLOT_TYPE_<N>_` overrides included). While a job runs, the
//! `_VANILLA` form (`SUSPEND_VANILLA`, ...) is used instead when the job is vanilla and the
//! form evaluates to a boolean. A value that is not boolean-equivalent counts as undefined:
//! not true.
//!
//! - `IS_OWNER` (locally, no job): Unclaimed -> Owner (#2), Owner -> Unclaimed (#1).
//! - `START` against the claim's job: an idle claim ends when it is false (#10).
//! - `CLAIM_WORKLIFE` (seconds; -1 forever): an idle claim that ran a job ends once older
//!   (#10); [`Startd::may_reuse`] refuses it too.
//! - `WANT_SUSPEND` (undefined: false) chooses between `SUSPEND` (Busy/Retiring ->
//!   Suspended, #14/#20) and `PREEMPT`; `CONTINUE` resumes (#15, or #16 into Retiring).
//! - `PREEMPT`: checked while Busy and not wanting suspension, Retiring the same way until
//!   it first fires, or Suspended: the claim retires for good (#13/#16, vacate reason
//!   "PREEMPT expression evaluated to True", code 1011).
//! - `MaxJobRetirementTime` (the slot's, against the job; the job's own `MaxJobRetirementTime`,
//!   against the slot, when smaller): how long a retiring job may run on, counted in run time
//!   since it started, suspensions excluded (`RetirementTimeRemaining`).
//! - `MachineMaxVacateTime` (evaluated against the job when it starts) and the job's
//!   `JobMaxVacateTime` (else `KillSigTimeout`): the vacate time. The job's wins when smaller;
//!   when larger, the job gets it out of its remaining retirement, or as much of that as
//!   exceeds the machine's (`Resource::evalMaxVacateTime`). A retiring job is vacated that
//!   long before its retirement ends, so that it is gone by then (#17/#18).
//! - `WANT_VACATE` (with no job: true): on entering Preempting because PREEMPT fired, false
//!   means Killing rather than Vacating.
//! - `KILL`: Vacating -> Killing (#21).
//! - `KILLING_TIMEOUT`: a hard kill not done after this long is repeated (the startd's
//!   kill of the starter's family), every `KILLING_TIMEOUT`.
//! - `MATCH_TIMEOUT`: a match never claimed lapses (#8).
//!
//! The default policy (HTCondor 24's: `START = True`, `SUSPEND = False`, `PREEMPT = False`,
//! `KILL = False`, `WANT_SUSPEND = False`, `WANT_VACATE = True`, `CONTINUE = True`,
//! `MaxJobRetirementTime` 0, `MachineMaxVacateTime = $(MaxVacateTime)` (600 s),
//! `CLAIM_WORKLIFE = 1200`, `IS_OWNER = False`) never evicts a job on its own.
//!
//! # Time
//!
//! Every decision is a function of the configuration, the slots and claims, the machine
//! inputs and the `now` the caller passes. `time()` in any expression the policy evaluates
//! (`StateTimer = (time() - EnteredCurrentState)`, `ActivityTimer`, `ActivationTimer`,
//! `CurrentTime`, a job's own expressions) is that `now`, not the clock.

use super::slot::SlotKind;
use super::state::{Activity, Event, State};
use super::{Decision, JobAction, Startd};
use crate::classad::ast::FnCall;
use crate::classad::{ClassAd, Expr, Value};
use crate::schedd::policy::hold_codes;

/// At most this many transitions per slot per pass. As in HTCondor, a slot makes one
/// transition per evaluation, and is evaluated again at once only when it enters an Idle or
/// Retiring activity (`ResState::change`): Claimed/Idle -> Preempting -> Owner -> Unclaimed
/// -> Drained/Retiring -> Drained/Idle is one pass, a job suspended and continued is two.
const MAX_STEPS: usize = 12;

/// What a policy transition does besides moving the slot (HTCondor's `xa_*` codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    None,
    /// PREEMPT is true: irreversible retirement (`xa_preempt_and_retire`).
    PreemptRetire,
    /// The retirement is used up; `preempt` says PREEMPT is true too
    /// (`xa_retirement_expired`, `xa_retirement_expired2`).
    RetirementExpired {
        preempt: bool,
    },
    /// Into Preempting: Vacating unless PREEMPT fired and WANT_VACATE is false
    /// (`ResState::_preempting_activity`).
    Preempt,
    /// A preempting claim retires the job (`xa_preclaim_vacate`, `xa_preempt_may_vacate`).
    PreemptingClaim,
    /// Every slot is drained (`xa_drain_complete`).
    DrainComplete,
}

/// `time()` in `e` replaced by `now`, when `e` calls it.
fn pin_time(e: &Expr, now: i64) -> Option<Expr> {
    let b = |x: &Expr| pin_time(x, now);
    match e {
        Expr::Lit(_) | Expr::Attr(_) | Expr::Absolute(_) | Expr::Scoped { .. } | Expr::Ad(_) => {
            None
        }
        Expr::Select(x, name) => b(x).map(|x| Expr::Select(Box::new(x), name.clone())),
        Expr::Unary(op, x) => b(x).map(|x| Expr::Unary(*op, Box::new(x))),
        Expr::Paren(x) => b(x).map(|x| Expr::Paren(Box::new(x))),
        Expr::Binary {
            op,
            lhs,
            rhs,
            spelled,
        } => {
            let (l, r) = (b(lhs), b(rhs));
            if l.is_none() && r.is_none() {
                return None;
            }
            Some(Expr::Binary {
                op: *op,
                lhs: Box::new(l.unwrap_or_else(|| (**lhs).clone())),
                rhs: Box::new(r.unwrap_or_else(|| (**rhs).clone())),
                spelled: *spelled,
            })
        }
        Expr::Ternary(c, t, f) => {
            let (c2, t2, f2) = (b(c), b(t), b(f));
            if c2.is_none() && t2.is_none() && f2.is_none() {
                return None;
            }
            Some(Expr::Ternary(
                Box::new(c2.unwrap_or_else(|| (**c).clone())),
                Box::new(t2.unwrap_or_else(|| (**t).clone())),
                Box::new(f2.unwrap_or_else(|| (**f).clone())),
            ))
        }
        Expr::Call(call) => {
            if call.args.is_empty() && call.name.eq_ignore_ascii_case("time") {
                return Some(Expr::lit(now));
            }
            let args: Vec<Option<Expr>> = call.args.iter().map(b).collect();
            if args.iter().all(Option::is_none) {
                return None;
            }
            Some(Expr::Call(Box::new(FnCall {
                name: call.name.clone(),
                builtin: call.builtin,
                args: args
                    .into_iter()
                    .zip(&call.args)
                    .map(|(n, o)| n.unwrap_or_else(|| o.clone()))
                    .collect(),
            })))
        }
        Expr::List(items) => {
            let new: Vec<Option<Expr>> = items.iter().map(b).collect();
            if new.iter().all(Option::is_none) {
                return None;
            }
            Some(Expr::List(
                new.into_iter()
                    .zip(items.iter())
                    .map(|(n, o)| n.unwrap_or_else(|| o.clone()))
                    .collect(),
            ))
        }
    }
}

/// `ad` with `time()` in its attributes replaced by `now`.
pub(super) fn pin_ad(mut ad: ClassAd, now: i64) -> ClassAd {
    let pinned: Vec<(String, Expr)> = ad
        .iter()
        .filter_map(|(n, e)| pin_time(e, now).map(|p| (n.to_owned(), p)))
        .collect();
    for (n, e) in pinned {
        ad.insert(&n, e);
    }
    ad
}

/// An attribute of `ad` as HTCondor's `EvalBool`: `Some` for a boolean-equivalent value,
/// `None` when missing, undefined or an error.
fn eval_bool(ad: &ClassAd, name: &str, target: Option<&ClassAd>) -> Option<bool> {
    ad.lookup(name)?;
    ad.eval_attr_against(name, target).as_bool_equiv()
}

/// An attribute of `ad` as HTCondor's `EvalInteger` (reals truncated, booleans 0/1).
fn eval_int(ad: &ClassAd, name: &str, target: Option<&ClassAd>) -> Option<i64> {
    ad.lookup(name)?;
    match ad.eval_attr_against(name, target) {
        v @ (Value::Int(_) | Value::Real(_) | Value::Bool(_)) => v.as_number_int(),
        _ => None,
    }
}

impl Startd {
    /// Slot `i`'s internal ad with `time()` pinned to the startd's clock: the MY of every
    /// policy expression.
    pub(super) fn policy_ad(&self, i: usize) -> ClassAd {
        pin_ad(self.internal_ad(i), self.now)
    }

    /// The claim's job ad with `time()` pinned: the TARGET of the policy expressions.
    fn job_ad(&self, i: usize) -> Option<ClassAd> {
        self.slots[i]
            .claim
            .as_ref()
            .map(|c| pin_ad(c.job.clone(), self.now))
    }

    /// HTCondor's `Resource::eval_expr`: `name` against the claim's job, trying
    /// `name_VANILLA` first for a running vanilla job when `vanilla`.
    fn eval_policy(
        &self,
        i: usize,
        ad: &ClassAd,
        job: Option<&ClassAd>,
        name: &str,
        vanilla: bool,
    ) -> Option<bool> {
        let universe = self.slots[i].claim.as_ref().and_then(|c| c.universe());
        if vanilla && universe == Some(crate::queue::universe::VANILLA) {
            if let Some(v) = eval_bool(ad, &format!("{name}_VANILLA"), job) {
                return Some(v);
            }
        }
        eval_bool(ad, name, job)
    }

    /// `Resource::wants_suspend`: WANT_SUSPEND (undefined: false).
    fn wants_suspend(&self, i: usize, ad: &ClassAd, job: Option<&ClassAd>) -> bool {
        self.eval_policy(i, ad, job, "WANT_SUSPEND", true) == Some(true)
    }

    /// `Resource::wants_vacate`: WANT_VACATE; true with no job running.
    fn wants_vacate(&self, i: usize, ad: &ClassAd, job: Option<&ClassAd>) -> bool {
        let active = self.slots[i].claim.as_ref().is_some_and(|c| c.is_active());
        if !active {
            return true;
        }
        self.eval_policy(i, ad, job, "WANT_VACATE", true) != Some(false)
    }

    /// The claim's job is retiring: a preempting claim waits, or the retirement cannot be
    /// undone (PREEMPT fired, or the startd drains) (`Resource::inRetirement`).
    pub(super) fn in_retirement(&self, i: usize) -> bool {
        let Some(c) = &self.slots[i].claim else {
            return false;
        };
        c.preempting.is_some() || !self.may_unretire(i)
    }

    /// `Resource::mayUnretire`.
    fn may_unretire(&self, i: usize) -> bool {
        let Some(c) = &self.slots[i].claim else {
            return false;
        };
        !self.is_draining() && c.may_unretire && c.preempting.is_none()
    }

    /// The retirement the running job has left (`Resource::evalRetirementRemaining`,
    /// published as `RetirementTimeRemaining`).
    pub(super) fn retirement_remaining(&self, i: usize) -> i64 {
        let active = self.slots[i].claim.as_ref().is_some_and(|c| c.is_active());
        if !active {
            return 0;
        }
        let ad = self.policy_ad(i);
        self.retirement_remaining_in(i, &ad)
    }

    /// [`Startd::retirement_remaining`] with slot `i`'s ad `ad` as MY.
    pub(super) fn retirement_remaining_in(&self, i: usize, ad: &ClassAd) -> i64 {
        let Some(c) = self.slots[i].claim.as_ref().filter(|c| c.is_active()) else {
            return 0;
        };
        let job = pin_ad(c.job.clone(), self.now);
        let mut max = match self.drain.mjrt_override {
            Some(o) => o,
            None => eval_int(ad, "MaxJobRetirementTime", Some(&job)).unwrap_or(0),
        };
        if let Some(j) = eval_int(&job, "MaxJobRetirementTime", Some(ad)) {
            if j < max {
                max = j;
            }
        }
        (max - c.job_run_time(self.now)).max(0)
    }

    /// The time the running job gets between its soft kill and its hard kill
    /// (`Resource::evalMaxVacateTime`).
    pub(super) fn max_vacate_time(&self, i: usize) -> i64 {
        if !self.slots[i].claim.as_ref().is_some_and(|c| c.is_active()) {
            return 0;
        }
        self.max_vacate_time_in(i, &self.policy_ad(i))
    }

    /// [`Startd::max_vacate_time`] with slot `i`'s ad `ad` (its [`Startd::policy_ad`]).
    pub(super) fn max_vacate_time_in(&self, i: usize, ad: &ClassAd) -> i64 {
        let Some(c) = self.slots[i].claim.as_ref().filter(|c| c.is_active()) else {
            return 0;
        };
        let job = pin_ad(c.job.clone(), self.now);
        let machine = c.pledged_vacate_time;
        let job_wants = if job.lookup("JobMaxVacateTime").is_some() {
            eval_int(&job, "JobMaxVacateTime", Some(ad)).unwrap_or(0)
        } else if job.lookup("KillSigTimeout").is_some() {
            eval_int(&job, "KillSigTimeout", Some(ad)).unwrap_or(0)
        } else {
            machine
        };
        if job_wants <= machine {
            return job_wants;
        }
        // The job wants more than the machine offers: it may take it out of its retirement.
        let retirement = self.retirement_remaining_in(i, ad);
        if retirement >= job_wants {
            job_wants
        } else if retirement > machine {
            retirement
        } else {
            machine
        }
    }

    /// The retirement the job has left as draining coordinates it: an idle claim, and a job
    /// the drain's START accepts or that started while draining, wait as long as the
    /// longest original job (`Resource::retirementExpired`).
    fn effective_retirement(&self, i: usize, ad: &ClassAd, job: Option<&ClassAd>) -> i64 {
        let s = &self.slots[i];
        let mut left = self.retirement_remaining_in(i, ad);
        if self.is_draining() {
            if s.state() == State::Claimed && s.activity() == Activity::Idle {
                left = self.graceful_draining_remaining();
            } else if left > 0 {
                let matches = eval_bool(ad, "START", job) == Some(true);
                if matches || s.accepted_while_draining {
                    left = self.graceful_draining_remaining();
                }
            }
        }
        left
    }

    /// `Resource::retirementExpired`: no retirement left, or no more than the job's vacate
    /// time (it is vacated early so as to be gone when its retirement ends).
    fn retirement_expired(&self, i: usize, ad: &ClassAd, job: Option<&ClassAd>) -> bool {
        let left = self.effective_retirement(i, ad, job);
        left <= 0 || self.max_vacate_time(i) >= left
    }

    /// `Resource::claimWorklifeExpired`.
    pub(super) fn worklife_expired(&self, i: usize, ad: &ClassAd, now: i64) -> bool {
        let Some(c) = &self.slots[i].claim else {
            return false;
        };
        if c.activations == 0 {
            return false;
        }
        let worklife = eval_int(ad, "CLAIM_WORKLIFE", None).unwrap_or(-1);
        if worklife < 0 {
            return false;
        }
        worklife == 0 || (now - c.started) > worklife
    }

    /// `Claim::waitingForActivation`: a claim younger than `MAX_DRAINING_ACTIVATION_DELAY`
    /// is left to start its job when a drain comes.
    fn waiting_for_activation(&self, i: usize, now: i64) -> bool {
        self.slots[i]
            .claim
            .as_ref()
            .is_some_and(|c| now - c.started < self.settings.max_draining_activation_delay)
    }

    /// `IsOwner` evaluated locally (undefined counts as false).
    fn is_owner(&self, ad: &ClassAd) -> bool {
        eval_bool(ad, "IsOwner", None) == Some(true)
    }

    /// The transition the policy makes for slot `i` now, if any (`ResState::eval_policy`,
    /// in its order), with what it does besides and why.
    fn next_transition(&self, i: usize, now: i64) -> Option<(Event, Effect, &'static str)> {
        let s = &self.slots[i];
        if s.kind == SlotKind::Dynamic && s.claim.is_none() {
            // HTCondor deletes an unclaimed dynamic slot: done after the pass.
            return None;
        }
        match s.state() {
            State::Claimed => self.claimed_transition(i, now),
            State::Preempting => {
                if s.activity() == Activity::Vacating {
                    let ad = self.policy_ad(i);
                    let job = self.job_ad(i);
                    if self.eval_policy(i, &ad, job.as_ref(), "KILL", true) == Some(true) {
                        // #21
                        return Some((Event::Kill, Effect::None, "KILL is TRUE"));
                    }
                }
                None
            }
            State::Unclaimed => {
                if self.is_draining() {
                    // #37
                    return Some((Event::Drain, Effect::None, "entering Drained state"));
                }
                let ad = self.policy_ad(i);
                // #2
                self.is_owner(&ad)
                    .then_some((Event::IsOwnerTrue, Effect::None, "IS_OWNER is TRUE"))
            }
            State::Owner => {
                if self.is_draining() {
                    // #36
                    return Some((Event::Drain, Effect::None, "entering Drained state"));
                }
                let ad = self.policy_ad(i);
                // #1
                (!self.is_owner(&ad)).then_some((
                    Event::IsOwnerFalse,
                    Effect::None,
                    "IS_OWNER is false",
                ))
            }
            // #8
            State::Matched => (now - s.sm.entered_state() >= self.settings.match_timeout)
                .then_some((Event::MatchTimedOut, Effect::None, "match timed out")),
            State::Drained => {
                if !self.is_draining() {
                    // #34, #35
                    return Some((
                        Event::DrainStopped,
                        Effect::None,
                        "slot is no longer draining",
                    ));
                }
                if s.activity() == Activity::Retiring && self.draining_is_complete() {
                    // #33
                    return Some((
                        Event::DrainComplete,
                        Effect::DrainComplete,
                        "draining is complete",
                    ));
                }
                None
            }
            State::Backfill => None,
        }
    }

    /// The Claimed state's part of `ResState::eval_policy`.
    fn claimed_transition(&self, i: usize, now: i64) -> Option<(Event, Effect, &'static str)> {
        let s = &self.slots[i];
        let c = s.claim.as_ref()?;
        let act = s.activity();
        let ad = self.policy_ad(i);
        let job = self.job_ad(i);
        let job = job.as_ref();
        let preempt = || self.eval_policy(i, &ad, job, "PREEMPT", true) == Some(true);
        if self.in_retirement(i) && self.retirement_expired(i, &ad, job) {
            // #17, #18 (from whatever activity the claim is in)
            return Some((
                Event::Vacate,
                Effect::RetirementExpired { preempt: preempt() },
                "claim retirement ended/expired",
            ));
        }
        let want_suspend = self.wants_suspend(i, &ad, job);
        let pwt = c.preempt_was_true;
        if ((act == Activity::Busy && !want_suspend)
            || (act == Activity::Retiring && !pwt && !want_suspend)
            || (act == Activity::Suspended && !pwt))
            && preempt()
        {
            // #13, #16: irreversible retirement
            return Some((Event::Retire, Effect::PreemptRetire, "PREEMPT is TRUE"));
        }
        if act == Activity::Retiring {
            if self.may_unretire(i) {
                // #19
                return Some((
                    Event::Unretire,
                    Effect::None,
                    "unretiring because no preempting claim exists",
                ));
            }
            if self.retirement_expired(i, &ad, job) {
                // #18
                return Some((Event::Vacate, Effect::Preempt, "retirement ended/expired"));
            }
        }
        if matches!(act, Activity::Busy | Activity::Retiring)
            && want_suspend
            && self.eval_policy(i, &ad, job, "SUSPEND", true) == Some(true)
        {
            // #14, #20
            return Some((Event::Suspend, Effect::None, "SUSPEND is TRUE"));
        }
        if act == Activity::Suspended
            && !c.suspended_by_command
            && self.eval_policy(i, &ad, job, "CONTINUE", true) == Some(true)
        {
            return Some(if self.in_retirement(i) {
                // #16
                (
                    Event::ContinueRetiring,
                    Effect::PreemptingClaim,
                    "CONTINUE is TRUE",
                )
            } else {
                // #15
                (Event::Continue, Effect::None, "CONTINUE is TRUE")
            });
        }
        if act == Activity::Busy && c.preempting.is_some() {
            // #13: reversible retirement
            return Some((
                Event::Retire,
                Effect::PreemptingClaim,
                "retiring due to preempting claim",
            ));
        }
        if act == Activity::Idle {
            // #10
            if c.preempting.is_some() {
                return Some((Event::Vacate, Effect::Preempt, "preempting idle claim"));
            }
            if eval_bool(&ad, "START", job) == Some(false) {
                return Some((Event::Vacate, Effect::Preempt, "START is false"));
            }
            if self.worklife_expired(i, &ad, now) {
                return Some((
                    Event::Vacate,
                    Effect::Preempt,
                    "idle claim shutting down due to CLAIM_WORKLIFE",
                ));
            }
            if self.is_draining() && !self.waiting_for_activation(i, now) {
                return Some((
                    Event::Vacate,
                    Effect::Preempt,
                    "idle claim shutting down due to draining of this slot",
                ));
            }
        }
        None
    }

    /// Records why the job on slot `i` is being evicted (`Resource::setVacateReason`: only
    /// while Claimed).
    pub(super) fn set_vacate_reason(&mut self, i: usize, reason: &str, code: i64) {
        let s = &mut self.slots[i];
        if s.state() != State::Claimed {
            return;
        }
        if let Some(c) = s.claim.as_mut() {
            c.vacate_reason = Some((reason.to_owned(), code));
        }
    }

    /// The vacate reason a preempting claim gives (`xa_preclaim_vacate`).
    fn set_preempting_reason(&mut self, i: usize) {
        let by_rank = self.slots[i].claim.as_ref().and_then(|c| c.preempting);
        match by_rank {
            Some(true) => self.set_vacate_reason(
                i,
                "Preempted for a higher Ranked job",
                hold_codes::STARTD_PREEMPTING_CLAIM_RANK,
            ),
            Some(false) => self.set_vacate_reason(
                i,
                "Preempted for a Priority user",
                hold_codes::STARTD_PREEMPTING_CLAIM_USER_PRIO,
            ),
            None => {}
        }
    }

    /// Makes the transition `next_transition` chose, with its effects.
    fn take(&mut self, i: usize, event: Event, effect: Effect, why: &'static str, now: i64) {
        let mut event = event;
        match effect {
            Effect::None => {}
            Effect::PreemptRetire => {
                if let Some(c) = self.slots[i].claim.as_mut() {
                    c.preempt_was_true = true;
                    c.may_unretire = false;
                }
                self.set_vacate_reason(
                    i,
                    "PREEMPT expression evaluated to True",
                    hold_codes::STARTD_PREEMPT_EXPRESSION,
                );
            }
            Effect::RetirementExpired { preempt } => {
                let draining = self.is_draining();
                let mut unexplained = false;
                if let Some(c) = self.slots[i].claim.as_mut() {
                    if preempt {
                        c.preempt_was_true = true;
                    }
                    if draining {
                        c.badput_by_draining = true;
                    }
                    unexplained = c.vacate_reason.is_none();
                }
                // A job evicted for a preempting claim or a drain without having retired for
                // it first (no retirement time) is evicted for that reason.
                if unexplained {
                    if draining {
                        self.set_vacate_reason(
                            i,
                            super::drain::DRAINING_REASON,
                            hold_codes::STARTD_DRAINING,
                        );
                    } else {
                        self.set_preempting_reason(i);
                    }
                }
            }
            Effect::Preempt => {}
            Effect::PreemptingClaim => self.set_preempting_reason(i),
            Effect::DrainComplete => self.drain.mjrt_override = None,
        }
        if event == Event::Vacate
            && matches!(effect, Effect::Preempt | Effect::RetirementExpired { .. })
        {
            event = self.preempting_event(i);
        }
        if let Some(c) = self.slots[i].claim.as_mut() {
            if matches!(event, Event::Vacate | Event::Kill) && c.closing.is_none() {
                c.closing = Some(why.to_owned());
            }
        }
        tracing::debug!("{}: {why}", self.slots[i].name);
        self.step(i, event, now);
    }

    /// How the claim on slot `i` enters Preempting: Vacating, unless PREEMPT fired and
    /// WANT_VACATE is false (`ResState::_preempting_activity`).
    fn preempting_event(&self, i: usize) -> Event {
        let pwt = self.slots[i]
            .claim
            .as_ref()
            .is_some_and(|c| c.preempt_was_true);
        if !pwt {
            return Event::Vacate;
        }
        let ad = self.policy_ad(i);
        let job = self.job_ad(i);
        if self.wants_vacate(i, &ad, job.as_ref()) {
            Event::Vacate
        } else {
            Event::Kill
        }
    }

    /// Applies `event` to slot `i` with what leaving the old pair and entering the new one
    /// do (`ResState::leave_action`, `enter_action`): the job's suspension and resumption,
    /// its soft and hard kill, the end of the claim. Returns whether the event applied.
    pub(super) fn step(&mut self, i: usize, event: Event, now: i64) -> bool {
        let (from_state, from_act) = (self.slots[i].state(), self.slots[i].activity());
        let Some((to_state, to_act)) = super::state::transition(from_state, from_act, event) else {
            return false;
        };
        let name = self.slots[i].name.clone();
        let active = self.slots[i].claim.as_ref().is_some_and(|c| c.is_active());
        // Leaving Suspended resumes the job.
        if from_state == State::Claimed
            && from_act == Activity::Suspended
            && (to_state, to_act) != (State::Claimed, Activity::Suspended)
        {
            if let Some(c) = self.slots[i].claim.as_mut() {
                c.resume(now);
                c.suspended_by_command = false;
            }
            if active {
                self.job_decision(&name, JobAction::Continue);
            }
        }
        self.slots[i].sm.apply(event, now);
        tracing::debug!(
            "{name}: {from_state}/{from_act} -> {to_state}/{to_act} ({})",
            event.reason()
        );
        match (to_state, to_act) {
            (State::Claimed, Activity::Suspended) => {
                if let Some(c) = self.slots[i].claim.as_mut() {
                    c.suspend(now);
                }
                if active {
                    self.job_decision(&name, JobAction::Suspend);
                }
            }
            (State::Claimed, Activity::Busy) => {
                if let Some(c) = self.slots[i].claim.as_mut() {
                    c.vacate_reason = None;
                }
                if self.in_retirement(i) && !self.slots[i].accepted_while_draining {
                    // Back to busy while retiring: retire.
                    self.set_preempting_reason(i);
                    self.step(i, Event::Retire, now);
                }
            }
            (State::Claimed, Activity::Retiring) if !active => {
                // Nothing to wait for.
                let e = self.preempting_event(i);
                self.step(i, e, now);
            }
            (State::Preempting, Activity::Vacating | Activity::Killing) => {
                if !active || event == Event::Deactivated {
                    // The job is gone already: the claim ends (`leave_preempting_state`).
                    self.step(i, Event::Deactivated, now);
                } else if to_act == Activity::Vacating {
                    let vacate = self.max_vacate_time(i);
                    let reason = self.eviction_reason(i);
                    if let Some(c) = self.slots[i].claim.as_mut() {
                        c.vacate_deadline = Some(now + vacate.max(0));
                    }
                    self.job_decision(
                        &name,
                        JobAction::Vacate {
                            reason: reason.0,
                            code: reason.1,
                        },
                    );
                } else {
                    self.send_kill(i, now);
                }
            }
            (State::Owner, _) => {
                // The claim is over (`enter_action`: a new, empty claim).
                let ended = self.slots[i].claim.take();
                self.slots[i].condor_load = 0.0;
                if let Some(c) = ended {
                    if event != Event::Released {
                        let reason = c.closing.unwrap_or_else(|| event.reason().to_owned());
                        self.pending.push(Decision::ClaimEnded {
                            slot: name.clone(),
                            reason,
                        });
                    }
                }
                // A dynamic slot's end changes its partitionable slot (a static slot's
                // claim is no part of its static ad).
                if self.slots[i].kind != SlotKind::Static {
                    self.static_ads.invalidate();
                }
                // `enter_action`: really Unclaimed when IS_OWNER is false (#1).
                let ad = self.policy_ad(i);
                if !self.is_owner(&ad) {
                    self.step(i, Event::IsOwnerFalse, now);
                }
            }
            _ => {}
        }
        true
    }

    /// Why the job on slot `i` is evicted and the vacate code, as the claim has it.
    fn eviction_reason(&self, i: usize) -> (String, i64) {
        self.slots[i]
            .claim
            .as_ref()
            .and_then(|c| c.vacate_reason.clone())
            .unwrap_or_else(|| {
                (
                    "The startd ended the claim".to_owned(),
                    hold_codes::CLAIM_DEACTIVATED,
                )
            })
    }

    /// Asks for the job on slot `i` to be hard-killed, now.
    fn send_kill(&mut self, i: usize, now: i64) {
        let name = self.slots[i].name.clone();
        let (reason, code) = self.eviction_reason(i);
        if let Some(c) = self.slots[i].claim.as_mut() {
            c.kill_sent = Some(now);
        }
        self.job_decision(&name, JobAction::Kill { reason, code });
    }

    fn job_decision(&mut self, slot: &str, action: JobAction) {
        self.pending.push(Decision::Job {
            slot: slot.to_owned(),
            action,
        });
    }

    /// The eviction timers of slot `i`: the vacate time's end turns the soft kill into a
    /// hard one (the starter's `softkillTimeout`), and a hard kill is repeated every
    /// `KILLING_TIMEOUT` until the job is gone (`sigkillStarter`).
    fn eviction_timers(&mut self, i: usize, now: i64) {
        let s = &self.slots[i];
        if s.state() != State::Preempting {
            return;
        }
        let Some(c) = s.claim.as_ref().filter(|c| c.is_active()) else {
            return;
        };
        let due = match (s.activity(), c.kill_sent, c.vacate_deadline) {
            (_, Some(sent), _) => now >= sent + self.settings.killing_timeout,
            (Activity::Vacating, None, Some(deadline)) => now >= deadline,
            _ => false,
        };
        if due {
            self.send_kill(i, now);
        }
    }

    /// When slot `i` needs the policy again because of a timer, if it does.
    pub(super) fn slot_timer(&self, i: usize, now: i64) -> Option<i64> {
        let s = &self.slots[i];
        match (s.state(), s.activity()) {
            (State::Matched, _) => Some(s.sm.entered_state() + self.settings.match_timeout),
            (State::Preempting, act) => {
                let c = s.claim.as_ref().filter(|c| c.is_active())?;
                match (act, c.kill_sent, c.vacate_deadline) {
                    (_, Some(sent), _) => Some(sent + self.settings.killing_timeout),
                    (Activity::Vacating, None, Some(deadline)) => Some(deadline),
                    _ => None,
                }
            }
            (State::Claimed, act) => {
                let c = s.claim.as_ref()?;
                let mut t: Option<i64> = None;
                let mut at = |x: i64| t = Some(t.map_or(x, |t: i64| t.min(x)));
                if c.is_active() && !c.suspended && self.in_retirement(i) {
                    let ad = self.policy_ad(i);
                    let job = self.job_ad(i);
                    let left = self.effective_retirement(i, &ad, job.as_ref());
                    at(now + (left - self.max_vacate_time(i)).max(0));
                }
                if act == Activity::Idle {
                    let ad = self.policy_ad(i);
                    if let Some(w) = eval_int(&ad, "CLAIM_WORKLIFE", None) {
                        if w > 0 && c.activations > 0 {
                            at(c.started + w + 1);
                        }
                    }
                    if self.is_draining() {
                        at(c.started + self.settings.max_draining_activation_delay);
                    }
                }
                t
            }
            _ => None,
        }
    }

    /// One pass of the policy over every slot, at `now`: each slot's transitions until it
    /// settles, the eviction timers, the removal of dynamic slots whose claim ended, and the
    /// drain's completion. Whatever it asks done is queued for [`Startd::evaluate`].
    pub(super) fn run_policy(&mut self, now: i64) {
        self.now = now;
        // Slots that reached a Busy, Suspended, Vacating or Killing activity in this pass:
        // their next evaluation is the next pass's.
        let mut done: Vec<String> = Vec::new();
        for _round in 0..4 {
            let mut changed = false;
            for i in 0..self.slots.len() {
                if done.contains(&self.slots[i].name) {
                    continue;
                }
                for _ in 0..MAX_STEPS {
                    let Some((event, effect, why)) = self.next_transition(i, now) else {
                        break;
                    };
                    changed = true;
                    self.take(i, event, effect, why, now);
                    if !matches!(
                        self.slots[i].activity(),
                        Activity::Idle | Activity::Retiring
                    ) {
                        done.push(self.slots[i].name.clone());
                        break;
                    }
                }
            }
            let removed = self.remove_unclaimed_dynamic();
            let resumed = self.is_draining()
                && self.draining_is_complete()
                && self.consider_resuming_after_draining(now);
            // Another round for what one slot's change means to the others (a partitionable
            // slot whose dynamic slots are gone, every slot drained).
            if !(changed || removed || resumed) {
                break;
            }
        }
        for i in 0..self.slots.len() {
            self.eviction_timers(i, now);
        }
        // What draining would cost is computed on the periodic pass ([`Startd::refresh`]),
        // and at every change while a drain is under way (its completion time is published
        // when it happens).
        if self.is_draining() {
            self.compute_draining_attrs(now);
        }
    }

    /// Removes the dynamic slots whose claim has ended, their resources returning to their
    /// partitionable slot (HTCondor's delete state).
    fn remove_unclaimed_dynamic(&mut self) -> bool {
        let mut removed = false;
        while let Some(d) = self.slots.iter().position(|s| {
            s.kind == SlotKind::Dynamic
                && s.claim.is_none()
                && matches!(s.state(), State::Owner | State::Unclaimed)
        }) {
            self.remove_dynamic(d);
            self.static_ads.invalidate();
            removed = true;
        }
        removed
    }

    /// Keyboard and console idle times: the machine's for the first
    /// `SLOTS_CONNECTED_TO_KEYBOARD`/`..._CONSOLE` slots, the startd's age plus
    /// `DISCONNECTED_KEYBOARD_IDLE_BOOST` for the others. The machine's come from the
    /// `CONDORLITE_MACHINE_INPUTS` file when it gives them, else from the terminals' access
    /// times.
    pub(super) fn assign_idle(&mut self, now: i64) {
        let m = &self.machine;
        let disconnected = (now - self.start_time).max(0) + m.idle_boost;
        let connected = self
            .slots
            .iter()
            .any(|s| (s.id as i64) <= m.keyboard_slots || (s.id as i64) <= m.console_slots);
        let probed = if connected
            && (self.inputs.keyboard_idle.is_none() || self.inputs.console_idle.is_none())
        {
            (self.probe.last_input)(&m.console_devices)
                .map(|t| (now - t).max(0))
                .unwrap_or(disconnected)
        } else {
            disconnected
        };
        let keyboard = self.inputs.keyboard_idle.unwrap_or(probed);
        let console = self.inputs.console_idle.unwrap_or(probed);
        for s in &mut self.slots {
            s.keyboard_idle = if (s.id as i64) <= m.keyboard_slots {
                keyboard
            } else {
                disconnected
            };
            s.console_idle = if (s.id as i64) <= m.console_slots {
                console
            } else {
                disconnected
            };
        }
    }

    /// Shares the load not due to jobs among the slots: Owner slots first, then Unclaimed
    /// ones, then the rest in slot order, each taking up to its CPUs; a dynamic slot takes
    /// what its partitionable slot has beyond its own idle CPUs.
    pub(super) fn assign_load(&mut self) {
        let condor: f64 = self.slots.iter().map(|s| s.condor_load).sum();
        let mut owner = (self.load - condor).max(0.0);
        for s in &mut self.slots {
            s.owner_load = 0.0;
        }
        let give = |s: &mut super::slot::Slot, load: &mut f64| {
            let cpus = s.res.slot_cpus;
            if *load < cpus {
                s.owner_load = *load;
                *load = 0.0;
            } else {
                s.owner_load = cpus;
                *load -= cpus;
            }
        };
        for phase in [State::Owner, State::Unclaimed] {
            for s in &mut self.slots {
                if s.kind != SlotKind::Dynamic && s.state() == phase {
                    give(s, &mut owner);
                }
            }
        }
        for i in 0..self.slots.len() {
            let s = &self.slots[i];
            if s.kind == SlotKind::Dynamic {
                let Some(p) = self
                    .slots
                    .iter()
                    .position(|q| q.id == s.id && q.kind == SlotKind::Partitionable)
                else {
                    continue;
                };
                let parent_load = self.slots[p].owner_load;
                let mut extra = (parent_load - self.slots[p].res.cpus).max(0.0);
                if extra > 0.05 {
                    extra = extra.min(self.slots[i].res.slot_cpus);
                    self.slots[p].owner_load = parent_load - extra;
                } else {
                    extra = 0.0;
                }
                self.slots[i].owner_load = extra;
            } else if s.state() > State::Unclaimed {
                give(&mut self.slots[i], &mut owner);
            }
        }
    }
}
