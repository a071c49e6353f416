//! The discrete-event simulation: the real negotiator, accountant and startds (one per
//! machine, [`super::slots`]) driven by a virtual clock, with the schedd's part
//! (queueing, starting, claim reuse, completion) played here as the master plays it
//! (`crate::daemon::pool`).
//!
//! Events happen at whole seconds. At each time, in this order: jobs whose run time is over
//! complete (their claim runs the same submitter's next job that fits, as the schedd reuses
//! claims within `CLAIM_WORKLIFE`, else it is released and the accountant forgets the match);
//! the startds whose policy timer runs out evaluate it; the timeline's actions of
//! that time are applied in file order; every `NEGOTIATOR_INTERVAL` from time 0 a negotiation
//! cycle runs over the idle jobs and every slot ad (claimed slots carry their running job's
//! `RemoteUser` and `AccountingGroup`), its matches claim slots and start jobs, and its
//! preemptions retire running jobs until the startd's policy vacates them (a vacated job is
//! idle again and runs its whole duration when it starts again); once they are gone the
//! preempting job takes the slot, as the schedd holding the match claims it. The startds'
//! policy runs at each cycle and at its own deadlines (a retirement's end, a vacate time),
//! and what it decides (vacating a job, ending an idle claim) is carried out at once. After the
//! cycle the accountant is reconciled with the slots (HTCondor's `CheckMatches`), so that a
//! dynamic slot carved for a match is charged from the moment it exists. At each reporting time the allocation is sampled, with
//! priorities aged to that time on a copy of the accountant's state (sampling changes
//! nothing).
//!
//! Everything is ordered (maps, job numbers, file order) and the cycle's time limits are
//! measured on a clock that never advances, so the same input gives the same output.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::sync::Arc;
use std::time::Duration;

use super::setup::{self, Loaded, Sources};
use super::slots::{SlotDecision, SlotKey, SlotKind, Slots};
use super::workload::{ActionKind, Submission, Workload};
use super::{Kind, Report, Row, Sample, Series, SimError, SimOptions, SummaryRow, TracePoint};
use crate::accountant::groups::ROOT_GROUP;
use crate::accountant::{resource_name, slot_weight, AccountantConfig, AccountantState};
use crate::classad::ast::BinOp;
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr};
use crate::negotiator::{
    submitter_name, CycleInput, IdleJob, JobId, Negotiator, PreemptReason, RejectReason,
};
use crate::startd::Startd;

/// How far a simulation without `until` may run before it is stopped: ten years.
pub const SAFETY_LIMIT: i64 = 3650 * 86400;

/// Where a job is.
#[derive(Clone, Debug)]
enum JobState {
    Idle,
    Running { slot: SlotKey },
    Done,
}

#[derive(Clone, Debug)]
struct Job {
    idle: IdleJob,
    duration: i64,
    submitted: i64,
    started: bool,
    state: JobState,
    /// Bumped whenever the job's scheduled events no longer hold.
    run: u32,
}

/// A claim the schedd holds.
#[derive(Clone, Debug)]
struct Claim {
    submitter: Arc<str>,
    /// The accountant's name for the slot.
    resource: String,
    weight: f64,
    since: i64,
    job: Option<usize>,
    /// Preempted: it takes no new job.
    closing: bool,
    /// The preempting match waiting for the slot (an index in `Engine::handovers`).
    successor: Option<usize>,
}

/// A preempting match: the slot (or, for a partitionable slot, the resources of its preempted
/// dynamic slots) goes to the preempting job once the preempted jobs are gone, as the schedd
/// that got the match claims it.
#[derive(Clone, Debug)]
struct Handover {
    job: usize,
    /// The slot the match names (the preempted static slot, or the partitionable slot whose
    /// dynamic slots are preempted) and what the job takes of it.
    slot: SlotKey,
    consumption: Vec<(String, f64)>,
    /// Preempted claims not gone yet.
    waiting: usize,
}

/// What happened to one submitter's jobs.
#[derive(Clone, Debug, Default)]
struct Stats {
    submitted: u64,
    started: u64,
    completed: u64,
    idle: u64,
    running: u64,
    evictions: u64,
    /// Weight of the claims held now.
    in_use: f64,
    /// Weight-seconds of claims that ended.
    usage: f64,
    wait_sum: f64,
    wait_max: i64,
}

/// A scheduled event: a job's run is over (for the job), or a timer of a startd's policy
/// runs out (for the machine: a retirement, a vacate time, a claim's worklife).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    Complete,
    Startd,
}

struct Engine<'w> {
    workload: &'w Workload,
    loaded: Loaded,
    start: i64,
    domain: String,
    negotiator: Negotiator,
    acfg: AccountantConfig,
    acct: AccountantState,
    slots: Slots,
    machines: usize,
    jobs: Vec<Job>,
    /// The first job index of each cluster (cluster `c` at `clusters[c - 1]`).
    clusters: Vec<usize>,
    /// Idle jobs by submitter, in the schedd's order (job priority, then job id).
    idle: BTreeMap<Arc<str>, BTreeSet<(Reverse<i64>, usize)>>,
    claims: BTreeMap<SlotKey, Claim>,
    handovers: Vec<Handover>,
    stats: BTreeMap<Arc<str>, Stats>,
    /// (time, kind, job or machine, the job's run when scheduled).
    events: BinaryHeap<Reverse<(i64, EventKind, usize, u32)>>,
    /// Each machine's policy timer, when one is scheduled in `events`.
    timers: Vec<Option<i64>>,
    /// When each machine's policy timer last ran: a deadline it left in the past is
    /// looked at again a second later, not at once forever.
    fired: Vec<i64>,
    users: Vec<Arc<str>>,
    /// Group rows: name, and the indices in `users` of the submitters in its subtree.
    groups: Vec<(String, Vec<usize>)>,
    pool_weight: f64,
    slot_count: usize,
    partitionable: usize,
    /// Whether a cycle may preempt: `NEGOTIATOR_CONSIDER_PREEMPTION`, and a
    /// `PREEMPTION_REQUIREMENTS` that is not plainly false or a slot `Rank` that is not
    /// constant.
    may_preempt: bool,
    stalled: bool,
    notes: Vec<String>,
}

/// Runs the workload (see the module documentation).
pub fn run(workload: &Workload, opts: &SimOptions) -> Result<Report, SimError> {
    let sources = Sources {
        workload,
        files: &opts.config_files,
        sets: &opts.sets,
    };
    let loaded = setup::load(&sources, workload.settings.machines)?;
    let mut engine = Engine::new(workload, loaded)?;
    let interval = engine.negotiator.config().interval;
    if interval <= 0 {
        let e = crate::config::ConfigError::new(format!(
            "NEGOTIATOR_INTERVAL must be at least 1 second, not {interval}"
        ));
        return Err(engine.loaded.config_error(&engine.loaded.central, &e));
    }
    let until = opts.until.or(workload.settings.until);
    let step = opts.step.or(workload.settings.step).unwrap_or(interval);
    Ok(engine.simulate(interval, until, step))
}

impl<'w> Engine<'w> {
    fn new(workload: &'w Workload, loaded: Loaded) -> Result<Engine<'w>, SimError> {
        let start = workload.settings.start;
        let central = &loaded.central;
        let negotiator =
            Negotiator::from_config(central).map_err(|e| loaded.config_error(central, &e))?;
        let domain = central
            .string("ACCOUNTING_DOMAIN")
            .and_then(|d| match d {
                Some(d) => Ok(Some(d)),
                None => central.string("UID_DOMAIN"),
            })
            .map_err(|e| loaded.config_error(central, &e))?
            .unwrap_or_default();
        let mut slots = Slots::new(negotiator.accountant_config().clone());
        for config in &loaded.machines {
            let startd = Startd::from_config_with(config, start, setup::probe())
                .map_err(|e| loaded.startd_error(config, &e))?;
            slots.add_machine(startd);
        }
        let acfg = negotiator.accountant_config().clone();
        let machines = loaded.machines.len();
        let mut engine = Engine {
            workload,
            loaded,
            start,
            domain,
            negotiator,
            acfg,
            acct: AccountantState {
                last_update_time: start,
                ..AccountantState::default()
            },
            slots,
            machines,
            jobs: Vec::new(),
            clusters: Vec::new(),
            idle: BTreeMap::new(),
            claims: BTreeMap::new(),
            handovers: Vec::new(),
            stats: BTreeMap::new(),
            events: BinaryHeap::new(),
            timers: vec![None; machines],
            fired: vec![-1; machines],
            users: Vec::new(),
            groups: Vec::new(),
            pool_weight: 0.0,
            slot_count: 0,
            partitionable: 0,
            may_preempt: true,
            stalled: false,
            notes: Vec::new(),
        };
        let (ads, keys) = engine.slots.ads();
        engine.slot_count = ads.len();
        engine.partitionable = keys
            .iter()
            .filter(|k| engine.slots.kind(**k) == Some(SlotKind::Partitionable))
            .count();
        engine.pool_weight = ads
            .iter()
            .map(|a| slot_weight(a, engine.acfg.use_slot_weights))
            .sum();
        let ncfg = engine.negotiator.config();
        let never_by_priority = ncfg.preemption_requirements.as_ref().is_some_and(|e| {
            matches!(
                e.as_literal(),
                Some(crate::classad::Value::Bool(false)) | Some(crate::classad::Value::Int(0))
            )
        });
        engine.may_preempt =
            ncfg.consider_preemption && !(never_by_priority && engine.slots.constant_ranks());
        engine.acct.ensure_group_records(&engine.acfg);
        engine.series();
        for u in &workload.users {
            let name = engine.customer(&u.name);
            if let Some(f) = u.factor {
                engine.acct.set_priority_factor(&name, f);
            }
            if let Some(p) = u.priority {
                engine.acct.set_priority(&name, p);
            }
            if let Some(c) = u.ceiling {
                engine.acct.set_ceiling(&name, c);
            }
            if let Some(f) = u.floor {
                engine.acct.set_floor(&name, f);
            }
        }
        Ok(engine)
    }

    /// The accountant's name for a name in the workload: as it is with a domain or when it
    /// names a configured group, else with the accounting domain.
    fn customer(&self, name: &str) -> String {
        if name.contains('@') || self.acfg.groups.find(name).is_some() {
            name.to_owned()
        } else {
            format!("{name}@{}", self.domain)
        }
    }

    /// The rows to report: every submitter the workload names, then the groups.
    fn series(&mut self) {
        let mut users: BTreeSet<String> = BTreeSet::new();
        for u in &self.workload.users {
            let name = self.customer(&u.name);
            if self.acfg.groups.find(&name).is_none() {
                users.insert(name);
            }
        }
        for a in &self.workload.timeline {
            if let ActionKind::Submit(s) = &a.kind {
                let ad = cluster_ad(s, 1, 0, &self.domain);
                users.insert(submitter_name(&ad, &self.domain));
            }
        }
        self.users = users.into_iter().map(Arc::from).collect();
        for u in &self.users {
            self.stats.insert(u.clone(), Stats::default());
        }
        let tree = &self.acfg.groups;
        if !tree.has_groups() {
            return;
        }
        let assigned: Vec<String> = self
            .users
            .iter()
            .map(|u| tree.assigned_name(u).to_owned())
            .collect();
        for &g in tree.breadth_first() {
            let name = tree.group(g).name.clone();
            let members: Vec<usize> = (0..self.users.len())
                .filter(|&i| {
                    let a = &assigned[i];
                    if name == ROOT_GROUP {
                        return a == ROOT_GROUP;
                    }
                    a.eq_ignore_ascii_case(&name)
                        || (a.len() > name.len()
                            && a.as_bytes()[name.len()] == b'.'
                            && a[..name.len()].eq_ignore_ascii_case(&name))
                })
                .collect();
            if name == ROOT_GROUP && members.is_empty() {
                continue;
            }
            self.groups.push((name, members));
        }
    }

    fn running(&self) -> u64 {
        self.stats.values().map(|s| s.running).sum()
    }

    fn idle_count(&self) -> u64 {
        self.stats.values().map(|s| s.idle).sum()
    }

    fn simulate(&mut self, interval: i64, until: Option<i64>, step: i64) -> Report {
        let mut next_tick = 0i64;
        let mut next_report = 0i64;
        let mut action = 0usize;
        let mut samples = Vec::new();
        let mut trace = Vec::new();
        let workload = self.workload;
        let timeline = &workload.timeline;
        let end = loop {
            let mut t = next_tick.min(next_report);
            if let Some(a) = timeline.get(action) {
                t = t.min(a.time);
            }
            if let Some(Reverse((e, ..))) = self.events.peek() {
                t = t.min(*e);
            }
            match until {
                Some(u) if t > u => break u,
                None if t > SAFETY_LIMIT => {
                    self.notes.push(format!(
                        "stopped at {}, the limit for a simulation without until",
                        crate::output::time::format_time(SAFETY_LIMIT).trim()
                    ));
                    break SAFETY_LIMIT;
                }
                _ => {}
            }
            while let Some(&Reverse((e, kind, i, run))) = self.events.peek() {
                if e != t {
                    break;
                }
                self.events.pop();
                match kind {
                    EventKind::Complete if self.jobs[i].run == run => self.complete(i, t),
                    EventKind::Startd if self.timers[i] == Some(t) => {
                        self.timers[i] = None;
                        self.fired[i] = t;
                        self.slots.evaluate(i, self.start + t);
                    }
                    _ => continue,
                }
                self.settle(t);
            }
            while let Some(a) = timeline.get(action).filter(|a| a.time == t) {
                self.apply(&a.kind, t);
                action += 1;
            }
            if t == next_tick {
                // The startds' policy runs at each cycle (the simulation's POLLING_INTERVAL).
                for m in 0..self.machines {
                    self.slots.evaluate(m, self.start + t);
                }
                self.settle(t);
                self.tick(t);
                self.settle(t);
                trace.push(self.trace_point(t));
                next_tick += interval;
            }
            if t == next_report {
                samples.push(self.sample(t));
                next_report += step;
            }
            let busy = self.running() > 0 || (self.idle_count() > 0 && !self.stalled);
            if until.is_none() && action == timeline.len() && !busy {
                break t;
            }
        };
        if samples.last().map(|s: &Sample| s.time) != Some(end) {
            samples.push(self.sample(end));
        }
        if trace.last().map(|p: &TracePoint| p.time) != Some(end) {
            trace.push(self.trace_point(end));
        }
        if self.stalled && self.idle_count() > 0 {
            let n = self.idle_count();
            self.notes.push(format!(
                "{n} idle job{} could not be matched to any slot",
                if n == 1 { "" } else { "s" }
            ));
        }
        let summary = self.summary(end);
        Report {
            file: self.workload.file.clone(),
            series: self
                .users
                .iter()
                .map(|u| Series {
                    name: u.to_string(),
                    kind: Kind::User,
                })
                .chain(self.groups.iter().map(|(g, _)| Series {
                    name: g.clone(),
                    kind: Kind::Group,
                }))
                .collect(),
            samples,
            trace,
            summary,
            end,
            slots: self.slot_count,
            partitionable: self.partitionable,
            machines: self.machines,
            pool_weight: self.pool_weight,
            interval,
            step,
            notes: std::mem::take(&mut self.notes),
        }
    }

    /// A timeline action.
    fn apply(&mut self, kind: &ActionKind, t: i64) {
        // New jobs, or new priorities: what could not match may now.
        self.stalled = false;
        match kind {
            ActionKind::Submit(s) => self.submit(s, t),
            ActionKind::SetFactor { name, factor } => {
                let n = self.customer(name);
                self.acct.set_priority_factor(&n, *factor);
            }
            ActionKind::SetPriority { name, priority } => {
                let n = self.customer(name);
                self.acct.set_priority(&n, *priority);
            }
            ActionKind::SetCeiling { name, ceiling } => {
                let n = self.customer(name);
                self.acct.set_ceiling(&n, *ceiling);
            }
            ActionKind::SetFloor { name, floor } => {
                let n = self.customer(name);
                self.acct.set_floor(&n, *floor);
            }
        }
    }

    /// Queues a submission's jobs: one cluster.
    fn submit(&mut self, s: &Submission, t: i64) {
        let cluster = self.clusters.len() as i32 + 1;
        self.clusters.push(self.jobs.len());
        let base = cluster_ad(s, cluster, self.start + t, &self.domain);
        let submitter: Arc<str> = submitter_name(&base, &self.domain).into();
        for p in 0..s.count {
            let mut ad = ClassAd::new();
            ad.insert("ProcId", Expr::lit(p as i64));
            ad.chain_to(base.clone());
            let mut idle = IdleJob::new(JobId::new(cluster, p as i32), ad, &self.domain);
            idle.submitter = submitter.clone();
            let j = self.jobs.len();
            self.idle
                .entry(submitter.clone())
                .or_default()
                .insert((Reverse(idle.prio.job_prio()), j));
            self.jobs.push(Job {
                idle,
                duration: s.duration,
                submitted: t,
                started: false,
                state: JobState::Idle,
                run: 0,
            });
        }
        let st = self.stats.entry(submitter).or_default();
        st.submitted += u64::from(s.count);
        st.idle += u64::from(s.count);
    }

    fn job_index(&self, id: JobId) -> Option<usize> {
        let base = *self.clusters.get((id.cluster as usize).checked_sub(1)?)?;
        let j = base + usize::try_from(id.proc).ok()?;
        (self.jobs.get(j)?.idle.id == id).then_some(j)
    }

    /// A negotiation tick: a cycle, or when it could not match anything (no idle job, or no
    /// free slot and no preemption possible) only what its first phase does to the
    /// accountant: the priorities are aged every cycle, as HTCondor's negotiator ages them
    /// whether or not anyone submits.
    fn tick(&mut self, t: i64) {
        let futile = self.idle_count() == 0 || (!self.may_preempt && !self.slots.has_free());
        if futile {
            self.acct.ensure_group_records(&self.acfg);
            self.acct.update_priorities(&self.acfg, self.start + t);
            self.reconcile(t);
            return;
        }
        let matched = self.negotiate(t);
        let closing = self.claims.values().any(|c| c.closing);
        self.stalled = matched == 0 && self.running() == 0 && !closing;
    }

    /// One negotiation cycle; returns how many jobs it matched.
    fn negotiate(&mut self, t: i64) -> usize {
        let abs = self.start + t;
        let (ads, keys) = self.slots.ads();
        let jobs: Vec<IdleJob> = self
            .idle
            .values()
            .flat_map(|set| set.iter().map(|&(_, j)| self.jobs[j].idle.clone()))
            .collect();
        let input = CycleInput {
            jobs: &jobs,
            slots: &ads,
        };
        let mut clock = || Duration::ZERO;
        let outcome = self
            .negotiator
            .cycle_with_clock(&input, &self.acct, abs, &mut clock);
        self.acct = outcome.accountant;
        // A submitter whose ceiling no match fits is skipped (the negotiator says why).
        for r in &outcome.rejections {
            if matches!(r.reason, RejectReason::SubmitterCeiling { .. }) {
                self.note(format!("{}: {}", r.submitter, r.reason));
            }
        }
        let mut matched = 0;
        for m in outcome.matches {
            let Some(j) = self.job_index(m.job) else {
                continue;
            };
            if !matches!(self.jobs[j].state, JobState::Idle) {
                continue;
            }
            matched += 1;
            if let Some(why) = m.preempting {
                let by_rank = why == PreemptReason::Rank;
                let victims: Vec<SlotKey> = if m.preempted_dslots.is_empty() {
                    vec![keys[m.slot]]
                } else {
                    m.preempted_dslots.iter().map(|&v| keys[v]).collect()
                };
                let h = self.handovers.len();
                self.handovers.push(Handover {
                    job: j,
                    slot: keys[m.slot],
                    consumption: m.consumption.clone(),
                    waiting: 0,
                });
                for v in victims {
                    let free = self
                        .claims
                        .get(&v)
                        .is_some_and(|c| !c.closing && c.successor.is_none());
                    if free {
                        self.handovers[h].waiting += 1;
                        if let Some(c) = self.claims.get_mut(&v) {
                            c.successor = Some(h);
                        }
                    }
                }
                if self.handovers[h].waiting == 0 {
                    self.handovers.pop();
                    continue;
                }
                let victims: Vec<SlotKey> = self
                    .claims
                    .iter()
                    .filter(|(_, c)| c.successor == Some(h))
                    .map(|(k, _)| *k)
                    .collect();
                for v in victims {
                    self.preempt(v, by_rank, t);
                }
                continue;
            }
            let ad = self.jobs[j].idle.ad.clone();
            let key = match self.slots.claim(keys[m.slot], &ad, &m.consumption, abs) {
                Ok(key) => key,
                Err(e) => {
                    self.note(format!(
                        "{} could not be claimed for job {}: {e}",
                        m.slot_name, m.job
                    ));
                    continue;
                }
            };
            let submitter = self.jobs[j].idle.submitter.clone();
            self.new_claim(key, submitter, t);
            self.start_job(j, key, t);
        }
        self.reconcile(t);
        matched
    }

    /// The accountant's matches as the slots now have them (HTCondor's CheckMatches): a
    /// dynamic slot carved for a match is charged from now, under its own name.
    fn reconcile(&mut self, t: i64) {
        let claims = self.slots.claims();
        self.acct.check_matches(&self.acfg, &claims, self.start + t);
    }

    /// A claim of `submitter` on the slot `key` (already claimed in [`Slots`]).
    fn new_claim(&mut self, key: SlotKey, submitter: Arc<str>, t: i64) {
        let slot_ad = self.slots.ad(key).unwrap_or_default();
        let claim = Claim {
            submitter,
            resource: resource_name(&slot_ad),
            weight: slot_weight(&slot_ad, self.acfg.use_slot_weights),
            since: t,
            job: None,
            closing: false,
            successor: None,
        };
        if let Some(st) = self.stats.get_mut(&claim.submitter) {
            st.in_use += claim.weight;
        }
        self.claims.insert(key, claim);
    }

    /// A preempting match takes the claim on `key`: the startd retires its job, and vacates
    /// it when its policy says so ([`Engine::settle`]).
    fn preempt(&mut self, key: SlotKey, by_rank: bool, t: i64) {
        let Some(claim) = self.claims.get_mut(&key) else {
            return;
        };
        claim.closing = true;
        if claim.job.is_none() {
            self.claim_free(key, false, t);
            return;
        }
        if let Err(e) = self.slots.preempt(key, by_rank, self.start + t) {
            self.note(format!("preempting a claim: {e}"));
        }
    }

    /// A preempted claim's job is gone: the slot goes to the preempting job (the same slot,
    /// or once every preempted dynamic slot is gone, a new one carved for it), as the
    /// schedd holding the match claims it.
    fn hand_over(&mut self, key: SlotKey, h: usize, t: i64) {
        self.release(key, t);
        self.handovers[h].waiting -= 1;
        let job = self.handovers[h].job;
        if self.handovers[h].waiting > 0 || !matches!(self.jobs[job].state, JobState::Idle) {
            return;
        }
        let ad = self.jobs[job].idle.ad.clone();
        let (slot, consumption) = (
            self.handovers[h].slot,
            self.handovers[h].consumption.clone(),
        );
        match self.slots.claim(slot, &ad, &consumption, self.start + t) {
            Ok(k) => {
                let submitter = self.jobs[job].idle.submitter.clone();
                self.new_claim(k, submitter, t);
                self.start_job(job, k, t);
                self.reconcile(t);
            }
            Err(e) => {
                let id = self.jobs[job].idle.id;
                self.note(format!(
                    "a preempted slot could not be claimed for job {id}: {e}"
                ));
            }
        }
    }

    /// Runs idle job `j` on the claim of `key`.
    fn start_job(&mut self, j: usize, key: SlotKey, t: i64) {
        let abs = self.start + t;
        if let Err(e) = self.slots.start_job(key, &self.jobs[j].idle.ad, abs) {
            let id = self.jobs[j].idle.id;
            self.note(format!("job {id} could not start: {e}"));
            self.release(key, t);
            return;
        }
        let job = &mut self.jobs[j];
        let submitter = job.idle.submitter.clone();
        if let Some(set) = self.idle.get_mut(&submitter) {
            set.remove(&(Reverse(job.idle.prio.job_prio()), j));
        }
        job.run += 1;
        job.state = JobState::Running { slot: key };
        self.events
            .push(Reverse((t + job.duration, EventKind::Complete, j, job.run)));
        let first = !job.started;
        job.started = true;
        let wait = t - job.submitted;
        if let Some(st) = self.stats.get_mut(&submitter) {
            st.idle -= 1;
            st.running += 1;
            if first {
                st.started += 1;
                st.wait_sum += wait as f64;
                st.wait_max = st.wait_max.max(wait);
            }
        }
        if let Some(c) = self.claims.get_mut(&key) {
            c.job = Some(j);
        }
    }

    /// Job `j` ran its whole duration.
    fn complete(&mut self, j: usize, t: i64) {
        let JobState::Running { slot } = std::mem::replace(&mut self.jobs[j].state, JobState::Done)
        else {
            return;
        };
        self.jobs[j].run += 1;
        if let Some(st) = self.stats.get_mut(&self.jobs[j].idle.submitter) {
            st.running -= 1;
            st.completed += 1;
        }
        self.job_left(slot, t);
    }

    /// The job on a claim is gone: the claim runs the submitter's next job that fits, or ends.
    fn job_left(&mut self, key: SlotKey, t: i64) {
        let kept = self.slots.job_ended(key, self.start + t);
        self.claim_free(key, kept, t);
    }

    /// The claim on `key` has no job: it goes to the match that preempted it, or runs its
    /// submitter's next job (when the startd `kept` it and it is not closing), or ends.
    fn claim_free(&mut self, key: SlotKey, kept: bool, t: i64) {
        let abs = self.start + t;
        let Some(claim) = self.claims.get_mut(&key) else {
            return;
        };
        claim.job = None;
        if let Some(h) = claim.successor {
            self.hand_over(key, h, t);
            return;
        }
        if kept && !claim.closing {
            let submitter = claim.submitter.clone();
            let candidates: Vec<usize> = self
                .idle
                .get(&submitter)
                .map(|set| set.iter().map(|&(_, j)| j).collect())
                .unwrap_or_default();
            for j in candidates {
                if self.slots.may_reuse(key, &self.jobs[j].idle.ad, abs) {
                    self.start_job(j, key, t);
                    return;
                }
            }
        }
        self.release(key, t);
    }

    /// Carries out what the startds' policy decided (vacating jobs, ending idle claims) until
    /// nothing is left, then schedules the next policy timer of each machine called since.
    fn settle(&mut self, t: i64) {
        loop {
            let decisions = self.slots.decisions();
            if decisions.is_empty() {
                break;
            }
            for d in decisions {
                match d {
                    SlotDecision::Evict(key) => {
                        if let Some(j) = self.claims.get(&key).and_then(|c| c.job) {
                            self.evict(j, t);
                        }
                    }
                    SlotDecision::ClaimEnded(key) => {
                        if self.claims.get(&key).is_some_and(|c| c.job.is_none()) {
                            self.claim_free(key, false, t);
                        }
                    }
                }
            }
        }
        for m in self.slots.touched() {
            let Some(at) = self.slots.next_deadline(m, self.start + t) else {
                continue;
            };
            let at = (at - self.start).max(t);
            let at = if self.fired[m] == at { at + 1 } else { at };
            if self.timers[m].is_none_or(|s| at < s) {
                self.timers[m] = Some(at);
                self.events.push(Reverse((at, EventKind::Startd, m, 0)));
            }
        }
    }

    /// The claim on `key` ends: the slot is free, its use is counted and the accountant
    /// forgets the match.
    fn release(&mut self, key: SlotKey, t: i64) {
        self.slots.release(key, self.start + t);
        let Some(c) = self.claims.remove(&key) else {
            return;
        };
        if let Some(st) = self.stats.get_mut(&c.submitter) {
            st.usage += c.weight * (t - c.since) as f64;
            st.in_use -= c.weight;
        }
        self.acct
            .remove_match(&self.acfg, &c.resource, self.start + t);
    }

    /// Job `j` is vacated: idle again, to run from its beginning; its claim ends.
    fn evict(&mut self, j: usize, t: i64) {
        let job = &mut self.jobs[j];
        let JobState::Running { slot } = std::mem::replace(&mut job.state, JobState::Idle) else {
            return;
        };
        job.run += 1;
        let submitter = job.idle.submitter.clone();
        self.idle
            .entry(submitter.clone())
            .or_default()
            .insert((Reverse(job.idle.prio.job_prio()), j));
        if let Some(st) = self.stats.get_mut(&submitter) {
            st.running -= 1;
            st.idle += 1;
            st.evictions += 1;
        }
        self.stalled = false;
        if let Some(c) = self.claims.get_mut(&slot) {
            c.closing = true;
        }
        self.job_left(slot, t);
    }

    fn note(&mut self, note: String) {
        if self.notes.len() < 20 && !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The weight-seconds a submitter has used up to `t`, open claims included.
    fn usage(&self, user: &Arc<str>, t: i64) -> f64 {
        let ended = self.stats.get(user).map_or(0.0, |s| s.usage);
        let open: f64 = self
            .claims
            .values()
            .filter(|c| &c.submitter == user)
            .map(|c| c.weight * (t - c.since) as f64)
            .sum();
        ended + open
    }

    /// The weight each submitter holds now.
    fn trace_point(&self, t: i64) -> TracePoint {
        TracePoint {
            time: t,
            in_use: self
                .users
                .iter()
                .map(|u| self.stats.get(u).map_or(0.0, |s| s.in_use))
                .collect(),
        }
    }

    /// The allocation at `t`, priorities aged to `t` on a copy of the accountant's state.
    fn sample(&self, t: i64) -> Sample {
        let mut aged = self.acct.clone();
        aged.update_priorities(&self.acfg, self.start + t);
        let share = |w: f64| {
            if self.pool_weight > 0.0 {
                100.0 * w / self.pool_weight
            } else {
                0.0
            }
        };
        let mut rows: Vec<Row> = self
            .users
            .iter()
            .map(|u| {
                let st = self.stats.get(u).cloned().unwrap_or_default();
                Row {
                    idle: st.idle,
                    running: st.running,
                    in_use: st.in_use,
                    share: share(st.in_use),
                    real_priority: aged.real_priority(u),
                    effective_priority: aged.priority(&self.acfg, u),
                }
            })
            .collect();
        for (g, members) in &self.groups {
            let (mut idle, mut running, mut in_use) = (0, 0, 0.0);
            for &i in members {
                idle += rows[i].idle;
                running += rows[i].running;
                in_use += rows[i].in_use;
            }
            rows.push(Row {
                idle,
                running,
                in_use,
                share: share(in_use),
                real_priority: aged.real_priority(g),
                effective_priority: aged.priority(&self.acfg, g),
            });
        }
        Sample { time: t, rows }
    }

    /// What happened to each submitter and group over `[0, end]`.
    fn summary(&self, end: i64) -> Vec<SummaryRow> {
        let capacity = self.pool_weight * end as f64;
        let row = |name: String, kind: Kind, users: &[usize]| {
            let mut r = SummaryRow {
                name,
                kind,
                submitted: 0,
                started: 0,
                completed: 0,
                idle: 0,
                running: 0,
                preempted: 0,
                usage: 0.0,
                mean_share: 0.0,
                mean_wait: None,
                max_wait: None,
            };
            let mut wait_sum = 0.0;
            for &i in users {
                let u = &self.users[i];
                let st = self.stats.get(u).cloned().unwrap_or_default();
                r.submitted += st.submitted;
                r.started += st.started;
                r.completed += st.completed;
                r.idle += st.idle;
                r.running += st.running;
                r.preempted += st.evictions;
                r.usage += self.usage(u, end);
                wait_sum += st.wait_sum;
                if st.started > 0 {
                    r.max_wait = Some(r.max_wait.unwrap_or(0).max(st.wait_max));
                }
            }
            if r.started > 0 {
                r.mean_wait = Some(wait_sum / r.started as f64);
            }
            if capacity > 0.0 {
                r.mean_share = 100.0 * r.usage / capacity;
            }
            r
        };
        let mut rows: Vec<SummaryRow> = (0..self.users.len())
            .map(|i| row(self.users[i].to_string(), Kind::User, &[i]))
            .collect();
        for (g, members) in &self.groups {
            rows.push(row(g.clone(), Kind::Group, members));
        }
        rows
    }
}

/// The cluster ad of a submission: what condor_submit would queue for a vanilla job of these
/// requests (without the attributes matchmaking does not read).
fn cluster_ad(s: &Submission, cluster: i32, qdate: i64, domain: &str) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.insert("MyType", Expr::lit("Job"));
    ad.insert("TargetType", Expr::lit("Machine"));
    ad.insert("ClusterId", Expr::lit(i64::from(cluster)));
    ad.insert("JobUniverse", Expr::lit(5i64));
    ad.insert("JobStatus", Expr::lit(1i64));
    ad.insert("Owner", Expr::lit(s.user.as_str()));
    ad.insert("User", Expr::lit(format!("{}@{domain}", s.user)));
    if let Some(g) = &s.group {
        ad.insert("AcctGroup", Expr::lit(g.as_str()));
        ad.insert("AcctGroupUser", Expr::lit(s.user.as_str()));
        ad.insert("AccountingGroup", Expr::lit(format!("{g}.{}", s.user)));
    }
    ad.insert("JobPrio", Expr::lit(s.prio));
    ad.insert("QDate", Expr::lit(qdate));
    ad.insert("Cmd", Expr::lit("condor_sim"));
    ad.insert("RequestCpus", number(s.cpus));
    ad.insert("RequestMemory", number(s.memory));
    ad.insert("RequestDisk", number(s.disk));
    let mut req = String::from(
        "(TARGET.Cpus >= RequestCpus) && (TARGET.Memory >= RequestMemory) && \
         (TARGET.Disk >= RequestDisk)",
    );
    for (res, amount) in &s.requests {
        ad.insert(&format!("Request{res}"), number(*amount));
        req.push_str(&format!(" && (TARGET.{res} >= Request{res})"));
    }
    let mut expr = parse_old_expr(&req).expect("built from names checked when read");
    // The workload's own requirements (parsed when read) join as a tree, not as text: a
    // trailing `//` comment in them would swallow a closing parenthesis.
    if let Some(extra) = s
        .requirements
        .as_deref()
        .and_then(|e| parse_old_expr(e).ok())
    {
        expr = Expr::binary(BinOp::And, expr, Expr::Paren(Box::new(extra)));
    }
    ad.insert("Requirements", expr);
    ad
}

/// A number as condor_submit writes it: an integer when it has no fraction.
fn number(x: f64) -> Expr {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Expr::lit(x as i64)
    } else {
        Expr::lit(x)
    }
}
