//! The state and activity of a slot, and every transition between them, in one place.
//!
//! HTCondor's startd keeps a (state, activity) pair per slot (src/condor_startd.V6/ResState.cpp)
//! and publishes it as `State`/`Activity` with the times it was entered
//! (`EnteredCurrentState`/`EnteredCurrentActivity`) and the accumulated time spent in each pair
//! (`TotalTimeClaimedBusy`, ...). What moves a slot is an [`Event`]: something the policy
//! decided (IS_OWNER became true, SUSPEND became true, the retirement ran out, ...) or a
//! request (a claim, an activation, a drain). [`transition`] is the one table saying where
//! each event takes each pair; the policy (which events fire when, and what each transition
//! asks done to the job) lives in `policy.rs`, and the requests in `mod.rs`.
//!
//! The comments give the numbers of the manual's figure of states and activities
//! ("Machine States and Activities", transitions 1-37; HTCondor's source marks them
//! `TLM: STATE TRANSITION #n`). Backfill (7, 26-32) and benchmarking (3, 4) are not
//! implemented; neither are the transitions to the preempting claim (23, 24): condorlite's
//! master claims the slot again once the preempted job is gone.

use std::fmt;

use crate::classad::{ClassAd, Expr};

/// A slot's state, named as HTCondor prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum State {
    Owner,
    Unclaimed,
    Matched,
    Claimed,
    Preempting,
    Backfill,
    Drained,
}

impl State {
    pub const ALL: [State; 7] = [
        State::Owner,
        State::Unclaimed,
        State::Matched,
        State::Claimed,
        State::Preempting,
        State::Backfill,
        State::Drained,
    ];

    /// The name HTCondor prints (`state_to_string`).
    pub fn name(self) -> &'static str {
        match self {
            State::Owner => "Owner",
            State::Unclaimed => "Unclaimed",
            State::Matched => "Matched",
            State::Claimed => "Claimed",
            State::Preempting => "Preempting",
            State::Backfill => "Backfill",
            State::Drained => "Drained",
        }
    }

    /// The state a name denotes (case-insensitive).
    pub fn from_name(name: &str) -> Option<State> {
        State::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A slot's activity, named as HTCondor prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Activity {
    Idle,
    Busy,
    Retiring,
    Suspended,
    Vacating,
    Killing,
    Benchmarking,
}

impl Activity {
    pub const ALL: [Activity; 7] = [
        Activity::Idle,
        Activity::Busy,
        Activity::Retiring,
        Activity::Suspended,
        Activity::Vacating,
        Activity::Killing,
        Activity::Benchmarking,
    ];

    /// The name HTCondor prints (`activity_to_string`).
    pub fn name(self) -> &'static str {
        match self {
            Activity::Idle => "Idle",
            Activity::Busy => "Busy",
            Activity::Retiring => "Retiring",
            Activity::Suspended => "Suspended",
            Activity::Vacating => "Vacating",
            Activity::Killing => "Killing",
            Activity::Benchmarking => "Benchmarking",
        }
    }

    /// The activity a name denotes (case-insensitive).
    pub fn from_name(name: &str) -> Option<Activity> {
        Activity::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(name))
    }

    /// Whether the activity puts load on the machine (HTCondor's `act_to_load`).
    pub fn is_loaded(self) -> bool {
        !matches!(self, Activity::Idle | Activity::Suspended)
    }
}

impl fmt::Display for Activity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What can move a slot. The comments give HTCondor's transition numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// IS_OWNER evaluated true while the slot is not in use (#2).
    IsOwnerTrue,
    /// IS_OWNER evaluated false in the Owner state (#1).
    IsOwnerFalse,
    /// The negotiator matched the slot to a job (#6).
    Matched,
    /// The match was not claimed within MATCH_TIMEOUT (#8).
    MatchTimedOut,
    /// A schedd claimed the slot (#5, #9; from Drained, a claim the draining `-start`
    /// expression let in).
    Claimed,
    /// A job started on the claim (#11).
    Activated,
    /// The job's starter exited: a running or suspended job's claim goes idle (#12); a
    /// retiring job's claim ends (#18); a preempted claim is gone (#22 from Vacating, #25
    /// from Killing).
    Deactivated,
    /// The claim ended by request (the schedd released it: #10 then #22/#25, collapsed, as
    /// the slot has no starter to wait for).
    Released,
    /// The claim retires: PREEMPT became true or a preempting claim arrived (#13 from Busy,
    /// #16 from Suspended), or the startd drains gracefully (an idle claim then ends at once,
    /// #18).
    Retire,
    /// The preempting claim that retired the job went away (#19).
    Unretire,
    /// WANT_SUSPEND and SUSPEND are true (#14 from Busy, #20 from Retiring).
    Suspend,
    /// CONTINUE is true and the claim is not retiring (#15).
    Continue,
    /// CONTINUE is true and the claim is retiring (#16).
    ContinueRetiring,
    /// The claim is to end, its job soft-killed: an idle claim's START became false, its
    /// CLAIM_WORKLIFE ran out, it is drained or preempted (#10); the retirement time is used
    /// up (#17 from Suspended, #18 from Retiring); a quick drain (unnumbered).
    Vacate,
    /// The job is hard-killed: KILL became true while vacating (#21); the claim was
    /// preempted by PREEMPT with WANT_VACATE false (#10, #17, #18 into Killing); a fast drain
    /// (unnumbered).
    Kill,
    /// The startd began draining (#36 from Owner, #37 from Unclaimed).
    Drain,
    /// Every slot is drained (#33).
    DrainComplete,
    /// Draining was cancelled or finished with `-resume-on-completion` (#34 from Retiring,
    /// #35 from Idle).
    DrainStopped,
}

impl Event {
    /// Why the transition happened, as the startd logs it.
    pub fn reason(self) -> &'static str {
        match self {
            Event::IsOwnerTrue => "IS_OWNER is TRUE",
            Event::IsOwnerFalse => "IS_OWNER is false",
            Event::Matched => "matched by the negotiator",
            Event::MatchTimedOut => "match timed out",
            Event::Claimed => "claimed",
            Event::Activated => "claim activated",
            Event::Deactivated => "starter exited",
            Event::Released => "claim released",
            Event::Retire => "claim retiring",
            Event::Unretire => "unretiring because no preempting claim exists",
            Event::Suspend => "SUSPEND is TRUE",
            Event::Continue | Event::ContinueRetiring => "CONTINUE is TRUE",
            Event::Vacate => "claim preempted, vacating the job",
            Event::Kill => "claim preempted, killing the job",
            Event::Drain => "entering Drained state",
            Event::DrainComplete => "draining is complete",
            Event::DrainStopped => "slot is no longer draining",
        }
    }
}

/// Where `event` takes a slot in `(state, activity)`; `None` when the event does not apply
/// there. This is the whole transition table.
pub fn transition(state: State, activity: Activity, event: Event) -> Option<(State, Activity)> {
    use Activity::*;
    use State::*;
    match (state, activity, event) {
        // #2, #1
        (Unclaimed, _, Event::IsOwnerTrue) => Some((Owner, Idle)),
        (Owner, _, Event::IsOwnerFalse) => Some((Unclaimed, Idle)),
        // #6, #8
        (Owner | Unclaimed, _, Event::Matched) => Some((Matched, Idle)),
        (Matched, _, Event::MatchTimedOut) => Some((Owner, Idle)),
        // #5, #9
        (Owner | Unclaimed | Matched | Drained, _, Event::Claimed) => Some((Claimed, Idle)),
        // #11
        (Claimed, Idle, Event::Activated) => Some((Claimed, Busy)),
        // #12, #18, #22, #25
        (Claimed, Busy | Suspended, Event::Deactivated) => Some((Claimed, Idle)),
        (Claimed, Retiring, Event::Deactivated) => Some((Preempting, Vacating)),
        (Preempting, _, Event::Deactivated) => Some((Owner, Idle)),
        (Claimed | Matched | Preempting, _, Event::Released) => Some((Owner, Idle)),
        // #13, #16
        (Claimed, Idle | Busy | Suspended, Event::Retire) => Some((Claimed, Retiring)),
        // #19
        (Claimed, Retiring, Event::Unretire) => Some((Claimed, Busy)),
        // #14, #20
        (Claimed, Busy | Retiring, Event::Suspend) => Some((Claimed, Suspended)),
        // #15, #16
        (Claimed, Suspended, Event::Continue) => Some((Claimed, Busy)),
        (Claimed, Suspended, Event::ContinueRetiring) => Some((Claimed, Retiring)),
        // #10, #17, #18
        (Claimed, _, Event::Vacate) => Some((Preempting, Vacating)),
        // #21, and #10/#17/#18 straight into Killing
        (Claimed, _, Event::Kill) | (Preempting, Vacating, Event::Kill) => {
            Some((Preempting, Killing))
        }
        // #36, #37
        (Owner | Unclaimed, _, Event::Drain) => Some((Drained, Retiring)),
        // #33
        (Drained, Retiring, Event::DrainComplete) => Some((Drained, Idle)),
        // #34, #35
        (Drained, _, Event::DrainStopped) => Some((Owner, Idle)),
        _ => None,
    }
}

/// A slot's state machine: the current pair, when it was entered, and the time spent in
/// each pair so far.
#[derive(Clone, Debug)]
pub struct StateMachine {
    state: State,
    activity: Activity,
    entered_state: i64,
    entered_activity: i64,
    /// Seconds spent in each pair before the current stay, indexed [state][activity].
    totals: [[i64; 7]; 7],
}

impl StateMachine {
    /// A new slot: Owner/Idle, as HTCondor's slots begin.
    pub fn new(now: i64) -> StateMachine {
        StateMachine {
            state: State::Owner,
            activity: Activity::Idle,
            entered_state: now,
            entered_activity: now,
            totals: [[0; 7]; 7],
        }
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn activity(&self) -> Activity {
        self.activity
    }

    pub fn entered_state(&self) -> i64 {
        self.entered_state
    }

    pub fn entered_activity(&self) -> i64 {
        self.entered_activity
    }

    /// Applies `event`; returns whether it applied. A change of state resets both entry
    /// times; a change of activity alone resets the activity's.
    pub fn apply(&mut self, event: Event, now: i64) -> bool {
        match transition(self.state, self.activity, event) {
            Some((s, a)) => {
                self.change(s, a, now);
                true
            }
            None => false,
        }
    }

    fn change(&mut self, state: State, activity: Activity, now: i64) {
        let state_changed = state != self.state;
        let activity_changed = activity != self.activity;
        if !state_changed && !activity_changed {
            return;
        }
        self.totals[self.state as usize][self.activity as usize] +=
            (now - self.entered_activity).max(0);
        if state_changed {
            self.entered_state = now;
            self.entered_activity = now;
        }
        if activity_changed {
            self.entered_activity = now;
        }
        self.state = state;
        self.activity = activity;
    }

    /// Seconds spent in `(state, activity)` up to `now`.
    pub fn time_in(&self, state: State, activity: Activity, now: i64) -> i64 {
        let mut t = self.totals[state as usize][activity as usize];
        if state == self.state && activity == self.activity {
            t += (now - self.entered_activity).max(0);
        }
        t
    }

    /// Publishes `State`, `Activity`, their entry times and the `TotalTime<State><Activity>`
    /// attributes that are not zero (HTCondor's `ResState::publish`).
    pub fn publish(&self, ad: &mut ClassAd, now: i64) {
        ad.insert("State", Expr::lit(self.state.name()));
        ad.insert("EnteredCurrentState", Expr::lit(self.entered_state));
        ad.insert("Activity", Expr::lit(self.activity.name()));
        ad.insert("EnteredCurrentActivity", Expr::lit(self.entered_activity));
        use Activity::*;
        use State::*;
        for (s, a) in [
            (Owner, Idle),
            (Unclaimed, Idle),
            (Unclaimed, Benchmarking),
            (Matched, Idle),
            (Claimed, Idle),
            (Claimed, Busy),
            (Claimed, Suspended),
            (Claimed, Retiring),
            (Preempting, Vacating),
            (Preempting, Killing),
            (Backfill, Idle),
            (Backfill, Busy),
            (Backfill, Killing),
            (Drained, Idle),
            (Drained, Retiring),
        ] {
            let t = self.time_in(s, a, now);
            if t != 0 {
                ad.insert(&format!("TotalTime{}{}", s.name(), a.name()), Expr::lit(t));
            }
        }
    }
}
