//! The state and activity of a slot, and every transition between them, in one place.
//!
//! HTCondor's startd keeps a (state, activity) pair per slot (src/condor_startd.V6/ResState.cpp)
//! and publishes it as `State`/`Activity` with the times it was entered
//! (`EnteredCurrentState`/`EnteredCurrentActivity`) and the accumulated time spent in each pair
//! (`TotalTimeClaimedBusy`, ...). What moves a slot is an [`Event`]: something the policy
//! decided (IS_OWNER became true, START became false, ...) or a request (a claim, an activation,
//! a release). [`transition`] is the one table saying where each event takes each pair; the
//! policy (which events fire when) lives in `policy.rs`, and the requests in `mod.rs`.
//!
//! The table holds what this module implements today (the Owner/Unclaimed/Matched/Claimed
//! cycle); the rest of HTCondor's machine (suspension, retirement, preemption, draining)
//! adds events here and evaluations in `policy.rs`.

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

/// What can move a slot. The comments give HTCondor's transition numbers (the manual's
/// figure of states and activities).
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
    /// A schedd claimed the slot (#5, #9).
    Claimed,
    /// A job started on the claim (#11).
    Activated,
    /// The job on the claim ended; the claim stays (#12).
    Deactivated,
    /// The claim ended (#10 then #22/#25, collapsed: the slot has no starter to wait for).
    Released,
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
            Event::Deactivated => "claim deactivated",
            Event::Released => "claim released",
        }
    }
}

/// Where `event` takes a slot in `(state, activity)`; `None` when the event does not apply
/// there. This is the whole transition table.
pub fn transition(state: State, activity: Activity, event: Event) -> Option<(State, Activity)> {
    use Activity::*;
    use State::*;
    match (state, activity, event) {
        (Unclaimed, _, Event::IsOwnerTrue) => Some((Owner, Idle)),
        (Owner, _, Event::IsOwnerFalse) => Some((Unclaimed, Idle)),
        (Owner | Unclaimed, _, Event::Matched) => Some((Matched, Idle)),
        (Matched, _, Event::MatchTimedOut) => Some((Owner, Idle)),
        (Owner | Unclaimed | Matched, _, Event::Claimed) => Some((Claimed, Idle)),
        (Claimed, Idle, Event::Activated) => Some((Claimed, Busy)),
        (Claimed, Busy | Retiring | Suspended, Event::Deactivated) => Some((Claimed, Idle)),
        (Claimed | Matched | Preempting, _, Event::Released) => Some((Owner, Idle)),
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
