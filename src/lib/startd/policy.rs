//! The policy: which [`Event`]s the configuration's expressions fire, evaluated with the
//! slot as MY (HTCondor's `ResState::eval_policy`), and the machine-wide values the
//! expressions read (load and idle times, as `ResMgr::assign_load_to_slots` and
//! `assign_idle_to_slots` share them out).
//!
//! Implemented: `IS_OWNER` between Owner and Unclaimed, and `MATCH_TIMEOUT` for a match
//! never claimed. The claimed states' policy (`SUSPEND`, `CONTINUE`, `PREEMPT`, `KILL`,
//! `WANT_VACATE`, `MaxJobRetirementTime`, `CLAIM_WORKLIFE` on an idle claim, draining) belongs
//! in [`Startd::next_event`]'s Claimed, Preempting and Drained arms, with its transitions in
//! [`super::state::transition`].

use super::slot::SlotKind;
use super::state::{Event, State};
use super::Startd;

/// At most this many transitions per slot per evaluation (Matched -> Owner -> Unclaimed).
const MAX_STEPS: usize = 4;

impl Startd {
    /// Applies the policy to every slot.
    pub(super) fn evaluate_all(&mut self, now: i64) {
        for i in 0..self.slots.len() {
            for _ in 0..MAX_STEPS {
                match self.next_event(i, now) {
                    Some(e) => {
                        self.slots[i].sm.apply(e, now);
                    }
                    None => break,
                }
            }
        }
    }

    /// The event the policy fires for slot `i` now, if any.
    fn next_event(&self, i: usize, now: i64) -> Option<Event> {
        let s = &self.slots[i];
        if s.kind == SlotKind::Dynamic && s.claim.is_none() {
            // HTCondor deletes an unclaimed dynamic slot; condorlite removes it on release.
            return None;
        }
        match s.state() {
            State::Owner => (!self.is_owner(i)).then_some(Event::IsOwnerFalse),
            State::Unclaimed => self.is_owner(i).then_some(Event::IsOwnerTrue),
            State::Matched => (now - s.sm.entered_state() >= self.settings.match_timeout)
                .then_some(Event::MatchTimedOut),
            State::Claimed | State::Preempting | State::Backfill | State::Drained => None,
        }
    }

    /// `IsOwner` evaluated locally (undefined counts as false).
    fn is_owner(&self, i: usize) -> bool {
        self.eval_local(i, "IsOwner").as_bool_equiv() == Some(true)
    }

    /// Keyboard and console idle times: the machine's for the first
    /// `SLOTS_CONNECTED_TO_KEYBOARD`/`..._CONSOLE` slots, the startd's age plus
    /// `DISCONNECTED_KEYBOARD_IDLE_BOOST` for the others.
    pub(super) fn assign_idle(&mut self, now: i64) {
        let m = &self.machine;
        let disconnected = (now - self.start_time).max(0) + m.idle_boost;
        let connected = self
            .slots
            .iter()
            .any(|s| (s.id as i64) <= m.keyboard_slots || (s.id as i64) <= m.console_slots);
        let machine_idle = if connected {
            (self.probe.last_input)(&m.console_devices)
                .map(|t| (now - t).max(0))
                .unwrap_or(disconnected)
        } else {
            disconnected
        };
        for s in &mut self.slots {
            s.keyboard_idle = if (s.id as i64) <= m.keyboard_slots {
                machine_idle
            } else {
                disconnected
            };
            s.console_idle = if (s.id as i64) <= m.console_slots {
                machine_idle
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
