//! The simulated machines: one real startd each ([`crate::startd::Startd`], built from the
//! configuration: `NUM_CPUS`, `SLOT_TYPE_<N>`, partitionable slots, custom resources,
//! `SlotWeight`, `START`, `Rank`, the whole policy), driven as the master drives its own.
//! Its claims carve dynamic slots from partitionable ones and give them back when they end,
//! its `START` and `WithinResourceLimits` accept or refuse each job, `CLAIM_WORKLIFE` bounds
//! claim reuse, a preempted job retires for `MAXJOBRETIREMENTTIME` and is vacated when the
//! startd says so, and `PREEMPT`, `KILL` and `WANT_VACATE` act as on a real machine.
//!
//! The negotiator reads the startd's own ads. Building them is what costs: a machine's ads
//! are rebuilt only when one of its slots changed since they were last read.
//!
//! A slot is known by its machine, `SlotID` and `DSlotId` ([`SlotKey`]); the startd knows it
//! by name. A suspended job (`SUSPEND`) is not simulated: it keeps running.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::accountant::{string_attr, AccountantConfig, SlotClaim};
use crate::classad::ClassAd;
use crate::startd::{Decision, JobAction, Startd, State};

/// A slot's place: machine, `SlotID`, dynamic slot number (0 for the others).
pub type SlotKey = (usize, i64, i64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    Static,
    Partitionable,
    Dynamic,
}

/// One slot as the negotiator last saw it.
#[derive(Clone, Debug)]
struct Slot {
    ad: ClassAd,
    /// What the accountant reads from `ad` (kept with it: reading it from every ad at every
    /// cycle would cost more than the rest of the simulation).
    claim: SlotClaim,
    kind: SlotKind,
}

#[derive(Clone, Debug)]
struct Machine {
    startd: Startd,
    /// Its slots by (`SlotID`, `DSlotId`), as of the last build.
    slots: BTreeMap<(i64, i64), Slot>,
    /// A slot changed since `slots` was built.
    stale: bool,
    /// Every slot name ever seen, with its (`SlotID`, `DSlotId`) (a decision may name a
    /// dynamic slot that is gone), and the other way round.
    known: HashMap<String, (i64, i64)>,
    names: HashMap<(i64, i64), String>,
    /// Decisions of the policy not yet taken by [`Slots::decisions`].
    decided: Vec<Decision>,
}

/// What the startd's policy asks of the simulation, for one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotDecision {
    /// The job on the slot is vacated (or killed): it leaves now.
    Evict(SlotKey),
    /// The claim on the slot ended while no job ran on it.
    ClaimEnded(SlotKey),
}

/// Every slot of every machine, in the startd's order (machine, slot, dynamic slot).
#[derive(Clone, Debug)]
pub struct Slots {
    machines: Vec<Machine>,
    /// For [`SlotClaim`]s (slot weights).
    accountant: AccountantConfig,
    /// Machines whose startd was called since [`Slots::touched`] was last asked: only their
    /// policy timers can have moved.
    touched: BTreeSet<usize>,
}

fn int_attr(ad: &ClassAd, name: &str) -> Option<i64> {
    ad.eval_attr(name).as_number_int()
}

impl Machine {
    /// Builds the slots from the startd's ads, if they changed.
    fn sync(&mut self, cfg: &AccountantConfig) {
        if !self.stale {
            return;
        }
        self.stale = false;
        self.slots.clear();
        for ad in self.startd.slot_ads() {
            let id = int_attr(&ad, "SlotID").unwrap_or(0);
            let sub = int_attr(&ad, "DSlotId").unwrap_or(0);
            let kind = if ad.eval_attr("PartitionableSlot").as_bool() == Some(true) {
                SlotKind::Partitionable
            } else if ad.eval_attr("DynamicSlot").as_bool() == Some(true) {
                SlotKind::Dynamic
            } else {
                SlotKind::Static
            };
            let name = string_attr(&ad, "Name").unwrap_or_default();
            let claim = SlotClaim::from_ad(&ad, cfg);
            let place = (id, if kind == SlotKind::Dynamic { sub } else { 0 });
            self.learn(place, &name);
            self.slots.insert(place, Slot { ad, claim, kind });
        }
    }

    fn learn(&mut self, place: (i64, i64), name: &str) {
        self.known.insert(name.to_ascii_lowercase(), place);
        self.names.insert(place, name.to_owned());
    }

    fn key_of(&self, m: usize, name: &str) -> Option<SlotKey> {
        self.known
            .get(&name.to_ascii_lowercase())
            .map(|&(id, sub)| (m, id, sub))
    }
}

impl Slots {
    /// No machines yet; `accountant` says how the accountant weighs slots.
    pub fn new(accountant: AccountantConfig) -> Slots {
        Slots {
            machines: Vec::new(),
            accountant,
            touched: BTreeSet::new(),
        }
    }

    /// A machine, its slots as `startd` has them.
    pub fn add_machine(&mut self, startd: Startd) {
        let mut machine = Machine {
            startd,
            slots: BTreeMap::new(),
            stale: true,
            known: HashMap::new(),
            names: HashMap::new(),
            decided: Vec::new(),
        };
        machine.sync(&self.accountant);
        self.machines.push(machine);
    }

    fn sync(&mut self) {
        for m in &mut self.machines {
            m.sync(&self.accountant);
        }
    }

    fn slot(&mut self, key: SlotKey) -> Option<&Slot> {
        let m = self.machines.get_mut(key.0)?;
        m.sync(&self.accountant);
        m.slots.get(&(key.1, key.2))
    }

    /// The startd of `key`'s machine and the slot's name there, marked changed.
    fn startd(&mut self, key: SlotKey) -> Option<(&mut Startd, String)> {
        let m = self.machines.get_mut(key.0)?;
        let name = m.names.get(&(key.1, key.2))?.clone();
        m.stale = true;
        self.touched.insert(key.0);
        Some((&mut m.startd, name))
    }

    /// Every ad, and each one's key, in order.
    pub fn ads(&mut self) -> (Vec<ClassAd>, Vec<SlotKey>) {
        self.sync();
        let mut ads = Vec::new();
        let mut keys = Vec::new();
        for (m, machine) in self.machines.iter().enumerate() {
            for (&(id, sub), s) in &machine.slots {
                ads.push(s.ad.clone());
                keys.push((m, id, sub));
            }
        }
        (ads, keys)
    }

    /// What the accountant reads from every ad, in order.
    pub fn claims(&mut self) -> Vec<SlotClaim> {
        self.sync();
        self.machines
            .iter()
            .flat_map(|m| m.slots.values().map(|s| s.claim.clone()))
            .collect()
    }

    /// Whether a job could be matched without preempting: an unclaimed static slot, or a
    /// partitionable slot with CPUs and memory left.
    pub fn has_free(&self) -> bool {
        self.machines.iter().any(|m| m.startd.has_free_resources())
    }

    /// Whether every slot's `Rank` is a constant: no job is ever preferred to the one running
    /// (no RANK preemption).
    pub fn constant_ranks(&mut self) -> bool {
        self.sync();
        self.machines.iter().all(|m| {
            m.slots
                .values()
                .all(|s| s.ad.lookup("Rank").is_none_or(|r| r.as_literal().is_some()))
        })
    }

    /// The ad of the slot `key` as it is now (built alone when its machine changed).
    pub fn ad(&mut self, key: SlotKey) -> Option<ClassAd> {
        let m = self.machines.get(key.0)?;
        if m.stale {
            let name = m.names.get(&(key.1, key.2))?;
            return m.startd.slot_ad(name);
        }
        m.slots.get(&(key.1, key.2)).map(|s| s.ad.clone())
    }

    pub fn kind(&mut self, key: SlotKey) -> Option<SlotKind> {
        self.slot(key).map(|s| s.kind)
    }

    /// Claims slot `key` for `job` (the startd's claim: a static slot itself, or a dynamic
    /// slot carved from a partitionable one with `consumption`; a resource it does not list
    /// takes the job's `Request<Resource>`). Returns the claimed slot's key, or why the
    /// startd refused.
    pub fn claim(
        &mut self,
        key: SlotKey,
        job: &ClassAd,
        consumption: &[(String, f64)],
        now: i64,
    ) -> Result<SlotKey, String> {
        let (startd, name) = self.startd(key).ok_or("no such slot")?;
        let claimed = startd
            .claim(&name, job, consumption, now)
            .map_err(|e| e.to_string())?;
        let m = &mut self.machines[key.0];
        let place = m
            .startd
            .slot_place(&claimed)
            .ok_or_else(|| format!("{claimed} is not a slot"))?;
        m.learn(place, &claimed);
        Ok((key.0, place.0, place.1))
    }

    /// Starts `job` on the claimed slot `key` (Claimed/Busy).
    pub fn start_job(&mut self, key: SlotKey, job: &ClassAd, now: i64) -> Result<(), String> {
        let (startd, name) = self.startd(key).ok_or("no such slot")?;
        startd
            .activate(&name, job, now)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// A preempting match takes the claim on `key` (for the machine's `RANK` when
    /// `by_rank`): its job retires, and is vacated when the startd's policy says so
    /// ([`Slots::decisions`]).
    pub fn preempt(&mut self, key: SlotKey, by_rank: bool, now: i64) -> Result<(), String> {
        let (startd, name) = self.startd(key).ok_or("no such slot")?;
        startd
            .preempt(&name, by_rank, now)
            .map_err(|e| e.to_string())
    }

    /// The job on `key` left (it completed or was vacated). Returns whether the claim
    /// survives, reusable; otherwise the slot is free again (a dynamic slot is gone).
    pub fn job_ended(&mut self, key: SlotKey, now: i64) -> bool {
        match self.startd(key) {
            Some((startd, name)) => startd.job_ended(&name, now),
            None => false,
        }
    }

    /// Whether the claim on `key` may run `job` next (the startd's claim reuse:
    /// `CLAIM_WORKLIFE`, `START`, the job's requirements, a dynamic slot's resources).
    pub fn may_reuse(&self, key: SlotKey, job: &ClassAd, now: i64) -> bool {
        let Some(m) = self.machines.get(key.0) else {
            return false;
        };
        m.names
            .get(&(key.1, key.2))
            .is_some_and(|name| m.startd.may_reuse(name, job, now))
    }

    /// The claim on `key` ends: a static slot is Unclaimed again, a dynamic slot goes and
    /// gives its resources back to its partitionable slot.
    pub fn release(&mut self, key: SlotKey, now: i64) {
        if let Some((startd, name)) = self.startd(key) {
            let claimed = startd
                .state(&name)
                .is_some_and(|(s, _)| matches!(s, State::Claimed | State::Preempting));
            if claimed {
                startd.release(&name, now);
            }
        }
    }

    /// The machines whose startd was called since the last call, in order.
    pub fn touched(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.touched).into_iter().collect()
    }

    /// The earliest time the policy of machine `m` must run again by itself (see
    /// [`Startd::next_deadline`]).
    pub fn next_deadline(&self, m: usize, now: i64) -> Option<i64> {
        self.machines.get(m)?.startd.next_deadline(now)
    }

    /// Runs the policy of machine `m` at `now` (as the startd's timer does).
    pub fn evaluate(&mut self, m: usize, now: i64) {
        if let Some(machine) = self.machines.get_mut(m) {
            let decisions = machine.startd.evaluate(now);
            machine.decided.extend(decisions);
            machine.stale = true;
            self.touched.insert(m);
        }
    }

    /// What the policy of every machine decided since the last call, in machine order:
    /// decisions overtaken by events (the slot claimed again, the job gone) are dropped.
    pub fn decisions(&mut self) -> Vec<SlotDecision> {
        let mut out = Vec::new();
        for m in 0..self.machines.len() {
            let machine = &mut self.machines[m];
            let decisions = machine.startd.take_decisions();
            machine.decided.extend(decisions);
            if machine.decided.is_empty() {
                continue;
            }
            machine.stale = true;
            machine.sync(&self.accountant);
            for d in std::mem::take(&mut machine.decided) {
                match d {
                    Decision::Job {
                        slot,
                        action: JobAction::Vacate { .. } | JobAction::Kill { .. },
                    } => {
                        let preempting = machine
                            .startd
                            .state(&slot)
                            .is_some_and(|(s, _)| s == State::Preempting);
                        if let Some(key) = machine.key_of(m, &slot).filter(|_| preempting) {
                            out.push(SlotDecision::Evict(key));
                        }
                    }
                    Decision::ClaimEnded { slot, .. } => {
                        // Claimed again since: the new claim stands.
                        let free = machine
                            .startd
                            .state(&slot)
                            .is_none_or(|(s, _)| s != State::Claimed);
                        if let Some(key) = machine.key_of(m, &slot).filter(|_| free) {
                            out.push(SlotDecision::ClaimEnded(key));
                        }
                    }
                    // Suspension is not simulated; drains do not happen here.
                    Decision::Job { .. } | Decision::Daemon(_) => {}
                }
            }
        }
        out
    }
}
