//! The simulated machines' slots: built by the real startd from the configuration
//! ([`crate::startd::Startd`]: `NUM_CPUS`, `SLOT_TYPE_<N>`, partitionable slots, custom
//! resources, `SlotWeight`, `START`, `Rank`), then claimed, carved and released here, on the
//! slot ads themselves, the way the startd changes them for the negotiator.
//!
//! The startd is not driven through a simulation: it re-evaluates every slot's policy and
//! rebuilds every ad at each request, which a run of thousands of cycles cannot afford. What a
//! claim changes in an ad is what the negotiator and the accountant read: `State`, `Activity`,
//! `RemoteUser`, `RemoteOwner`, `AccountingGroup`, `CurrentRank`, `JobId`, `JobStart`,
//! `ConcurrencyLimits`, `EnteredCurrentState`, `RetirementTimeRemaining`; a partitionable
//! slot's resources go down by what each dynamic slot takes (`slot1_1@host`, a copy of the
//! partitionable slot's ad with those resources) and come back when it is released.
//!
//! The startd's policy beyond `START` (`PREEMPT`, `SUSPEND`, `KILL`) is not evaluated;
//! `CLAIM_WORKLIFE` (how long a claim may take new jobs) and `MAXJOBRETIREMENTTIME` (how long a
//! preempted job may still run) are.

use std::collections::BTreeMap;

use crate::accountant::{string_attr, AccountantConfig, SlotClaim};
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr, Value};

/// A slot's place: machine, `SlotID`, dynamic slot number (0 for the others).
pub type SlotKey = (usize, i64, i64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    Static,
    Partitionable,
    Dynamic,
}

#[derive(Clone, Debug)]
struct Slot {
    /// The ad as the negotiator sees it now.
    ad: ClassAd,
    /// What the accountant reads from `ad` (kept with it: reading it from every ad at every
    /// cycle would cost more than the rest of the simulation).
    claim: SlotClaim,
    /// The ad of the slot unclaimed (static slots), or of a new dynamic slot's parent.
    template: ClassAd,
    kind: SlotKind,
    name: String,
    /// When the claim began.
    claimed_at: Option<i64>,
}

/// The per-machine policy knobs the simulation honours.
#[derive(Clone, Debug)]
pub struct MachinePolicy {
    /// `CLAIM_WORKLIFE`: seconds a claim takes new jobs for (-1: forever).
    pub claim_worklife: i64,
    /// `MAXJOBRETIREMENTTIME`, an expression of the slot and the job.
    pub max_job_retirement_time: Option<Expr>,
}

impl MachinePolicy {
    pub fn from_config(
        config: &crate::config::Config,
    ) -> Result<MachinePolicy, crate::config::ConfigError> {
        let cfg = config.subsystem("STARTD");
        let retirement = match cfg.string("MAXJOBRETIREMENTTIME")? {
            Some(v) if !v.trim().is_empty() => Some(parse_old_expr(&v).map_err(|e| {
                crate::config::ConfigError::new(format!(
                    "MAXJOBRETIREMENTTIME ({v}) is not an expression: {e}"
                ))
            })?),
            _ => None,
        };
        Ok(MachinePolicy {
            claim_worklife: cfg.int("CLAIM_WORKLIFE")?.unwrap_or(1200),
            max_job_retirement_time: retirement,
        })
    }
}

/// Every slot of every machine, in the startd's order (machine, slot, dynamic slot).
#[derive(Clone, Debug)]
pub struct Slots {
    slots: BTreeMap<SlotKey, Slot>,
    policies: Vec<MachinePolicy>,
    /// For [`SlotClaim`]s (slot weights).
    accountant: AccountantConfig,
}

fn int_attr(ad: &ClassAd, name: &str) -> Option<i64> {
    ad.eval_attr(name).as_number_int()
}

fn real_attr(ad: &ClassAd, name: &str) -> f64 {
    ad.eval_attr(name).as_number_real().unwrap_or(0.0)
}

/// A number as the startd publishes it: an integer when it has no fraction.
fn number(x: f64) -> Expr {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Expr::lit(x as i64)
    } else {
        Expr::lit(x)
    }
}

impl Slot {
    fn new(
        ad: ClassAd,
        template: ClassAd,
        kind: SlotKind,
        name: String,
        cfg: &AccountantConfig,
    ) -> Slot {
        Slot {
            claim: SlotClaim::from_ad(&ad, cfg),
            ad,
            template,
            kind,
            name,
            claimed_at: None,
        }
    }

    fn set_ad(&mut self, ad: ClassAd, cfg: &AccountantConfig) {
        self.claim = SlotClaim::from_ad(&ad, cfg);
        self.ad = ad;
    }
}

impl Slots {
    /// No slots yet; `accountant` says how the accountant weighs them.
    pub fn new(accountant: AccountantConfig) -> Slots {
        Slots {
            slots: BTreeMap::new(),
            policies: Vec::new(),
            accountant,
        }
    }

    /// The slots of machine `machine`'s ads (as [`crate::startd::Startd::slot_ads`] gives
    /// them, all unclaimed), with its policy.
    pub fn add_machine(&mut self, ads: Vec<ClassAd>, policy: MachinePolicy) {
        let machine = self.policies.len();
        self.policies.push(policy);
        for ad in ads {
            let id = int_attr(&ad, "SlotID").unwrap_or(self.slots.len() as i64 + 1);
            let kind = if ad.eval_attr("PartitionableSlot").as_bool() == Some(true) {
                SlotKind::Partitionable
            } else {
                SlotKind::Static
            };
            let name = string_attr(&ad, "Name").unwrap_or_default();
            let slot = Slot::new(ad.clone(), ad, kind, name, &self.accountant);
            self.slots.insert((machine, id, 0), slot);
        }
    }

    /// Every ad, and each one's key, in order.
    pub fn ads(&self) -> (Vec<ClassAd>, Vec<SlotKey>) {
        let mut ads = Vec::with_capacity(self.slots.len());
        let mut keys = Vec::with_capacity(self.slots.len());
        for (k, s) in &self.slots {
            ads.push(s.ad.clone());
            keys.push(*k);
        }
        (ads, keys)
    }

    /// What the accountant reads from every ad, in order.
    pub fn claims(&self) -> Vec<SlotClaim> {
        self.slots.values().map(|s| s.claim.clone()).collect()
    }

    /// Whether a job could be matched without preempting: an unclaimed static slot, or a
    /// partitionable slot with CPUs left.
    pub fn has_free(&self) -> bool {
        self.slots.values().any(|s| match s.kind {
            SlotKind::Static => {
                s.claimed_at.is_none()
                    && string_attr(&s.ad, "State").is_some_and(|st| st == "Unclaimed")
            }
            SlotKind::Partitionable => real_attr(&s.ad, "Cpus") > 0.0,
            SlotKind::Dynamic => false,
        })
    }

    /// Whether every slot's `Rank` is a constant: no job is ever preferred to the one running
    /// (no RANK preemption).
    pub fn constant_ranks(&self) -> bool {
        self.slots
            .values()
            .all(|s| s.ad.lookup("Rank").is_none_or(|r| r.as_literal().is_some()))
    }

    pub fn ad(&self, key: SlotKey) -> Option<&ClassAd> {
        self.slots.get(&key).map(|s| &s.ad)
    }

    pub fn name(&self, key: SlotKey) -> &str {
        self.slots.get(&key).map_or("", |s| s.name.as_str())
    }

    pub fn kind(&self, key: SlotKey) -> Option<SlotKind> {
        self.slots.get(&key).map(|s| s.kind)
    }

    /// Claims slot `key` for `job`: a static slot itself, or a dynamic slot carved from a
    /// partitionable one with `consumption` (a resource it does not list takes the job's
    /// `Request<Resource>`). Returns the claimed slot's key; `None` when the slot cannot be
    /// claimed (already claimed, or not enough left).
    pub fn claim(
        &mut self,
        key: SlotKey,
        job: &ClassAd,
        consumption: &[(String, f64)],
        now: i64,
    ) -> Option<SlotKey> {
        let slot = self.slots.get(&key)?;
        match slot.kind {
            SlotKind::Static => {
                if slot.claimed_at.is_some() {
                    return None;
                }
                let slot = self.slots.get_mut(&key)?;
                slot.claimed_at = Some(now);
                Some(key)
            }
            SlotKind::Dynamic => None,
            SlotKind::Partitionable => self.carve(key, job, consumption, now),
        }
    }

    /// A dynamic slot of partitionable slot `key` for `job`.
    fn carve(
        &mut self,
        key: SlotKey,
        job: &ClassAd,
        consumption: &[(String, f64)],
        now: i64,
    ) -> Option<SlotKey> {
        let parent = self.slots.get(&key)?;
        let resources: Vec<String> = string_attr(&parent.ad, "MachineResources")
            .unwrap_or_else(|| "Cpus Memory Disk".into())
            .split_whitespace()
            .filter(|r| !r.eq_ignore_ascii_case("Swap"))
            .map(str::to_owned)
            .collect();
        let mut take: Vec<(String, f64)> = Vec::new();
        for r in &resources {
            let amount = consumption
                .iter()
                .find(|(c, _)| c.eq_ignore_ascii_case(r))
                .map(|(_, a)| *a)
                .or_else(|| {
                    job.eval_attr_against(&format!("Request{r}"), Some(&parent.ad))
                        .as_number_real()
                })
                .unwrap_or(0.0)
                .max(0.0);
            if amount > real_attr(&parent.ad, r) + 1e-9 {
                return None;
            }
            take.push((r.clone(), amount));
        }
        let (machine, id, _) = key;
        let sub = (1..)
            .find(|n| !self.slots.contains_key(&(machine, id, *n)))
            .expect("a free number");
        let parent = self.slots.get_mut(&key)?;
        let mut pad = parent.ad.clone();
        for (r, amount) in &take {
            let left = real_attr(&pad, r) - amount;
            pad.insert(r, number(left));
        }
        let children = int_attr(&pad, "NumDynamicSlots").unwrap_or(0) + 1;
        pad.insert("NumDynamicSlots", Expr::lit(children));
        parent.set_ad(pad, &self.accountant);
        let (host_part, host) = parent
            .name
            .split_once('@')
            .map_or((parent.name.as_str(), ""), |(a, b)| (a, b));
        let name = if host.is_empty() {
            format!("{host_part}_{sub}")
        } else {
            format!("{host_part}_{sub}@{host}")
        };
        let mut ad = parent.template.clone();
        for attr in [
            "PartitionableSlot",
            "NumDynamicSlots",
            "ChildAccountingGroup",
            "ChildActivity",
            "ChildCpus",
            "ChildCurrentRank",
            "ChildDisk",
            "ChildDSlotId",
            "ChildEnteredCurrentState",
            "ChildGPUs",
            "ChildMemory",
            "ChildName",
            "ChildRemoteOwner",
            "ChildRemoteUser",
            "ChildRetirementTimeRemaining",
            "ChildState",
        ] {
            ad.remove(attr);
        }
        ad.insert("Name", Expr::lit(name.as_str()));
        ad.insert("SlotType", Expr::lit("Dynamic"));
        ad.insert("DynamicSlot", Expr::lit(true));
        ad.insert("DSlotId", Expr::lit(sub));
        ad.insert("ParentSlotId", Expr::lit(id));
        for (r, amount) in &take {
            ad.insert(r, number(*amount));
            ad.insert(&format!("TotalSlot{r}"), number(*amount));
        }
        let dkey = (machine, id, sub);
        let mut slot = Slot::new(ad.clone(), ad, SlotKind::Dynamic, name, &self.accountant);
        slot.claimed_at = Some(now);
        self.slots.insert(dkey, slot);
        Some(dkey)
    }

    /// A job starts on the claimed slot: Claimed/Busy, charged to the job's submitter.
    pub fn start_job(&mut self, key: SlotKey, job: &ClassAd, now: i64) {
        let Some(slot) = self.slots.get_mut(&key) else {
            return;
        };
        let mut ad = slot.template.clone();
        let rank = match ad.lookup("Rank") {
            Some(_) => ad
                .eval_attr_against("Rank", Some(job))
                .as_number_real()
                .unwrap_or(0.0),
            None => 0.0,
        };
        ad.insert("State", Expr::lit("Claimed"));
        ad.insert("Activity", Expr::lit("Busy"));
        ad.insert(
            "EnteredCurrentState",
            Expr::lit(slot.claimed_at.unwrap_or(now)),
        );
        ad.insert("EnteredCurrentActivity", Expr::lit(now));
        ad.insert("CurrentRank", Expr::lit(rank));
        ad.insert("JobStart", Expr::lit(now));
        let id = format!(
            "{}.{}",
            job.eval_attr("ClusterId").as_int().unwrap_or(0),
            job.eval_attr("ProcId").as_int().unwrap_or(0)
        );
        ad.insert("JobId", Expr::lit(id.as_str()));
        let user = string_attr(job, "User");
        if let Some(u) = &user {
            ad.insert("RemoteUser", Expr::lit(u.as_str()));
        }
        if let Some(o) = string_attr(job, "Owner") {
            ad.insert("RemoteOwner", Expr::lit(o.as_str()));
        }
        if let Some(g) = string_attr(job, "AccountingGroup") {
            // As the startd publishes it: qualified with the user's domain.
            let domain = user
                .as_deref()
                .and_then(|u| u.find('@').map(|i| &u[i..]))
                .unwrap_or("");
            ad.insert("AccountingGroup", Expr::lit(format!("{g}{domain}")));
        }
        if let Some(l) = string_attr(job, "ConcurrencyLimits").filter(|l| !l.is_empty()) {
            ad.insert("ConcurrencyLimits", Expr::lit(l.as_str()));
        }
        ad.insert("RetirementTimeRemaining", Expr::lit(0i64));
        slot.set_ad(ad, &self.accountant);
    }

    /// The claimed slot retires its job for a preempting match: `remaining` seconds.
    pub fn retire(&mut self, key: SlotKey, remaining: i64, now: i64) {
        if let Some(slot) = self.slots.get_mut(&key) {
            let mut ad = slot.ad.clone();
            ad.insert("Activity", Expr::lit("Retiring"));
            ad.insert("EnteredCurrentActivity", Expr::lit(now));
            ad.insert("RetirementTimeRemaining", Expr::lit(remaining.max(0)));
            slot.set_ad(ad, &self.accountant);
        }
    }

    /// How long the job on `key` may still run when its claim is preempted at `now`:
    /// `MAXJOBRETIREMENTTIME` (of the slot, for the job) less what the job has run.
    pub fn retirement(&self, key: SlotKey, job: &ClassAd, now: i64) -> i64 {
        let Some(slot) = self.slots.get(&key) else {
            return 0;
        };
        let Some(expr) = &self.policies[key.0].max_job_retirement_time else {
            return 0;
        };
        let mut ad = slot.ad.clone();
        ad.insert("MaxJobRetirementTime", expr.clone());
        ad.insert("CurrentTime", Expr::lit(now));
        let allowed = match ad.eval_attr_against("MaxJobRetirementTime", Some(job)) {
            Value::Int(i) => i,
            Value::Real(r) => r as i64,
            _ => 0,
        };
        let ran = now - int_attr(&slot.ad, "JobStart").unwrap_or(now);
        (allowed - ran).max(0)
    }

    /// Whether the claim on `key` may run `job` next (claim reuse): within
    /// `CLAIM_WORKLIFE` of the claim's start, the slot's Requirements true for the job, the
    /// job's true for the slot, and for a dynamic slot the job's requests within its
    /// resources.
    pub fn may_reuse(&self, key: SlotKey, job: &ClassAd, now: i64) -> bool {
        let Some(slot) = self.slots.get(&key) else {
            return false;
        };
        let worklife = self.policies[key.0].claim_worklife;
        let age = now - slot.claimed_at.unwrap_or(now);
        if worklife >= 0 && age > worklife {
            return false;
        }
        self.may_take(key, job, now)
    }

    /// Whether the slot `key` may run `job`: its Requirements true for the job, the job's
    /// true for it, and for a dynamic slot the job's requests within its resources.
    pub fn may_take(&self, key: SlotKey, job: &ClassAd, now: i64) -> bool {
        let Some(slot) = self.slots.get(&key) else {
            return false;
        };
        let mut ad = slot.template.clone();
        ad.insert("CurrentTime", Expr::lit(now));
        if !ad.eval_bool("Requirements", Some(job)) || !job.eval_bool("Requirements", Some(&ad)) {
            return false;
        }
        if slot.kind == SlotKind::Dynamic {
            let resources = string_attr(&ad, "MachineResources").unwrap_or_default();
            for r in resources.split_whitespace().filter(|r| *r != "Swap") {
                let want = job
                    .eval_attr_against(&format!("Request{r}"), Some(&ad))
                    .as_number_real();
                if want.is_some_and(|w| w > real_attr(&ad, r) + 1e-9) {
                    return false;
                }
            }
        }
        true
    }

    /// The claim on `key` passes to a new claim (a preempting match), beginning `now`.
    pub fn transfer(&mut self, key: SlotKey, now: i64) {
        if let Some(slot) = self.slots.get_mut(&key) {
            slot.claimed_at = Some(now);
        }
    }

    /// The claim on `key` ends: a static slot is Unclaimed again, a dynamic slot goes and
    /// gives its resources back to its partitionable slot.
    pub fn release(&mut self, key: SlotKey, now: i64) {
        let Some(slot) = self.slots.get(&key) else {
            return;
        };
        match slot.kind {
            SlotKind::Static => {
                let slot = self.slots.get_mut(&key).expect("present");
                let mut ad = slot.template.clone();
                ad.insert("EnteredCurrentState", Expr::lit(now));
                ad.insert("EnteredCurrentActivity", Expr::lit(now));
                slot.template = ad.clone();
                slot.set_ad(ad, &self.accountant);
                slot.claimed_at = None;
            }
            SlotKind::Partitionable => {}
            SlotKind::Dynamic => {
                let slot = self.slots.remove(&key).expect("present");
                let (machine, id, _) = key;
                let Some(parent) = self.slots.get_mut(&(machine, id, 0)) else {
                    return;
                };
                let resources = string_attr(&parent.ad, "MachineResources")
                    .unwrap_or_else(|| "Cpus Memory Disk".into());
                let mut pad = parent.ad.clone();
                for r in resources.split_whitespace().filter(|r| *r != "Swap") {
                    let back = real_attr(&slot.template, r);
                    if back > 0.0 {
                        pad.insert(r, number(real_attr(&pad, r) + back));
                    }
                }
                let children = (int_attr(&pad, "NumDynamicSlots").unwrap_or(1) - 1).max(0);
                pad.insert("NumDynamicSlots", Expr::lit(children));
                parent.set_ad(pad, &self.accountant);
            }
        }
    }
}
