//! One negotiation cycle, as HTCondor's `Matchmaker::negotiationTime` runs it
//! (src/condor_negotiator.V6/matchmaker.cpp), with the schedd's side of the protocol (handing
//! out jobs in priority order, one request per run of jobs of the same autocluster, skipping an
//! autocluster once it was rejected) played in-process.
//!
//! Phase 2: the accountant ages priorities and reconciles its matches with the slots; slots
//! that cannot be matched are trimmed; claimed slots get `RemoteUserPrio` and friends. Then,
//! without accounting groups, one "pie" is negotiated; with them, each group's pie in turn
//! (see [`super::quota`]). A pie is spun until it stops giving anything out: each spin computes
//! every submitter's limit (its share `1/EUP` over the sum, times the pie, minus what it uses),
//! then lets each submitter, in order of priority, match jobs up to its limit.
//!
//! `USE_GLOBAL_JOB_PRIOS` (gittrac #3218): the schedd advertises each submitter's distinct job
//! priorities (`JobPrioArray`, the highest `MAX_GLOBAL_JOB_PRIOS` of its idle jobs'), and the
//! negotiator makes one copy of the submitter per priority. Copies sort by user priority, then
//! job priority (higher first), then starvation; after the sort, consecutive copies of one
//! submitter merge into one priority range (`JOBPRIO_MIN`..`JOBPRIO_MAX`), and each turn asks
//! the schedd only for the jobs in its range. So submitters of equal user priority take turns
//! by job priority (alice's priority-10 jobs, then bob's priority-5 jobs, then alice's
//! priority-1 jobs), a submitter whose user priority is better than everyone's gets all its
//! jobs in one turn as before, and jobs below the advertised priorities wait. Every copy counts
//! in the pie (`calculatePieLeft` sums over submitter ads).
//!
//! Time limits: each submitter turn is skipped once its submitter has used
//! `NEGOTIATOR_MAX_TIME_PER_SUBMITTER`, the schedd `NEGOTIATOR_MAX_TIME_PER_SCHEDD` or the cycle
//! `NEGOTIATOR_MAX_TIME_PER_CYCLE`, and a turn stops (to resume in the next spin) at the first of
//! those deadlines and `NEGOTIATOR_MAX_TIME_PER_PIESPIN`. Time is a [`CycleClock`]'s, read when a
//! turn starts, before each request and when the turn ends, in seconds with fractions
//! (HTCondor's `time()` has whole seconds).
//!
//! `ALLOW_PSLOT_PREEMPTION`: a partitionable slot that does not match a job may still match it
//! with the resources of some of its dynamic slots (HTCondor's `pslotMultiMatch`): the dynamic
//! slots, from the partitionable slot's `Child*` lists, in order of their `CurrentRank` (lowest
//! first), those retiring, preempting or already given away this cycle left out, are added one at
//! a time while the slot's `Rank` of the job is at least theirs (an equal rank only for user
//! priority preemption: another submitter's job, `PREEMPTION_REQUIREMENTS` true with the dynamic
//! slot's ad), until the enlarged slot matches. Dynamic slots are then not matched by themselves
//! (those that publish `PslotRollupInformation`). See [`super::Match::preempted_dslots`] for
//! what such a match says.

use std::sync::Arc;
use std::time::Instant;

use super::autocluster::Autoclusters;
use super::eval::{
    evaluate_match, job_rank, negotiator_rank, slot_expr_true, Evaluator, KeyCache, PairMatch,
    Request, SlotCache, JOB_RANK, POST_RANK, PRE_RANK,
};
use super::quota::Hgq;
use super::refs::{self, FxMap};
use super::slots::{Slot, SlotKind};
use super::stats::CycleStats;
use super::{
    CycleClock, CycleInput, CycleOutcome, GroupReport, Match, PreemptReason, Preemption,
    RejectReason, Rejection, SubmitterReport,
};
use crate::accountant::groups::ROOT_GROUP;
use crate::accountant::{AccountantConfig, AccountantState, SlotClaim};
use crate::classad::ast::Expr;
use crate::classad::{parse_expr, ClassAd, Value};
use crate::negotiator::config::NegotiatorConfig;

/// What a cycle may keep from the previous one (only to go faster: the results are the same).
pub struct Caches<'a> {
    pub autoclusters: &'a mut Autoclusters,
    pub slots: &'a mut SlotCache,
    /// Evaluate per class of slots (see [`super::eval`]); off evaluates every pair.
    pub classing: bool,
}

/// HTCondor's `PreemptState`, better states larger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PreemptState {
    Prio = 0,
    Rank = 1,
    No = 2,
}

#[derive(Clone, Debug)]
struct Candidate {
    slot: usize,
    pre: f64,
    rank: f64,
    post: f64,
    state: PreemptState,
    preempt_rank: f64,
    pm: PairMatch,
    /// A partitionable slot matched with the resources of some of its dynamic slots.
    pslot: Option<Arc<PslotPlan>>,
}

/// What `pslotMultiMatch` found: the dynamic slots to preempt and the slot as it matched.
#[derive(Debug)]
struct PslotPlan {
    /// The dynamic slots (indices in the input), each with why it is preempted.
    dslots: Vec<(usize, PreemptReason)>,
    /// The partitionable slot's ad with their resources added and `RemoteUser` set to
    /// `various_dSlot_users` (so that rank expressions see a preempting match).
    ad: ClassAd,
    /// The resources of the slot with theirs added (what the job consumes from).
    resources: Vec<(String, Expr)>,
}

/// The comparison of `MatchListType::sort_compare`: better candidates first; ties go to the
/// slot that comes first in the input.
fn better(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    b.pre
        .total_cmp(&a.pre)
        .then(b.rank.total_cmp(&a.rank))
        .then(b.post.total_cmp(&a.post))
        .then(b.state.cmp(&a.state))
        .then(b.preempt_rank.total_cmp(&a.preempt_rank))
        .then(a.slot.cmp(&b.slot))
}

/// The sorted candidates for one autocluster (HTCondor's `MatchList`). Sorted lazily: a run of
/// jobs usually takes the first few of thousands of candidates, so the list is put in order a
/// growing chunk at a time (the order is total, so the result is that of a full sort).
struct MatchList {
    ac: u32,
    only_for_startd_rank: bool,
    list: Vec<Candidate>,
    next: usize,
    /// `list[..sorted]` is in order, and before everything after it.
    sorted: usize,
    diagnostics: Diagnostics,
}

impl MatchList {
    fn ensure_sorted(&mut self, i: usize) {
        if i < self.sorted || self.sorted == self.list.len() {
            return;
        }
        let chunk = self.sorted.max(64);
        let end = self.list.len().min((i + 1).max(self.sorted + chunk));
        let rest = &mut self.list[self.sorted..];
        let k = end - self.sorted;
        if k < rest.len() {
            rest.select_nth_unstable_by(k - 1, better);
        }
        rest[..k].sort_unstable_by(better);
        self.sorted = end;
    }

    /// The best candidate not yet handed out.
    fn pop(&mut self) -> Option<Candidate> {
        self.ensure_sorted(self.next);
        let c = self.list.get(self.next)?.clone();
        self.next += 1;
        Some(c)
    }

    /// Puts a candidate back (a partitionable slot that can take another job).
    fn insert(&mut self, c: Candidate) {
        let whole = self.sorted == self.list.len();
        let before_last =
            self.sorted > self.next && better(&c, &self.list[self.sorted - 1]).is_lt();
        if before_last || whole {
            let at = self.next
                + self.list[self.next..self.sorted].partition_point(|x| better(x, &c).is_lt());
            self.list.insert(at, c);
            self.sorted += 1;
        } else {
            self.list.push(c);
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Diagnostics {
    concurrency: Vec<String>,
    preempt_policy: usize,
    preempt_rank: usize,
    submitter_limit: usize,
    /// The cheapest match refused because what it would count is more than the ceiling left.
    ceiling: Option<RejectReason>,
}

impl Diagnostics {
    fn reason(&self) -> RejectReason {
        if !self.concurrency.is_empty() {
            RejectReason::ConcurrencyLimit(self.concurrency.clone())
        } else if self.preempt_policy > 0 {
            RejectReason::PreemptionRequirements
        } else if self.submitter_limit > 0 {
            RejectReason::SubmitterLimit
        } else if let Some(ceiling) = &self.ceiling {
            ceiling.clone()
        } else {
            RejectReason::NoMatch
        }
    }
}

/// A run of consecutive jobs (in the submitter's order) of one autocluster: one request.
#[derive(Clone, Debug)]
struct Run {
    ac: u32,
    /// The jobs' `JobPrio`: with global job priorities, runs also break where it changes, so
    /// that a run is inside or outside a negotiated priority range as a whole.
    prio: i64,
    jobs: Vec<usize>,
    next: usize,
}

#[derive(Clone, Debug)]
struct Submitter {
    name: Arc<str>,
    runs: Vec<Run>,
    /// Idle jobs when the cycle began (HTCondor's submitter ad `IdleJobs`).
    idle_at_start: usize,
    /// Idle jobs, weighted by `RequestCpus` (the demand group quotas share out).
    weighted_idle: f64,
    group: usize,
    starvation: f64,
}

/// A submitter ad as the negotiator negotiates with it: one per submitter, or with
/// `USE_GLOBAL_JOB_PRIOS` one per advertised job priority.
#[derive(Clone, Debug)]
struct Entry {
    sub: usize,
    /// The job priority it sorts by (`i32::MIN` when the schedd advertises none).
    prio: i64,
    /// Made from the schedd's `JobPrioArray`.
    from_array: bool,
    /// The job priorities its turns ask for (`JOBPRIO_MIN`, `JOBPRIO_MAX`); `None`: all.
    range: Option<(i64, i64)>,
    /// Seconds spent negotiating with it (`TotalTimeInCycle`).
    time: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Done,
    Resume,
}

struct Cx<'a> {
    cfg: &'a NegotiatorConfig,
    clock: &'a mut dyn CycleClock,
    entries: Vec<Entry>,
    /// Seconds the schedd's submitters have negotiated (`ScheddsTimeInCycle`).
    schedd_time: f64,
    /// With `ALLOW_PSLOT_PREEMPTION`: slots by name, and the dynamic slots already given
    /// away to a preempting match this cycle (their claim ids handed out).
    by_name: FxMap<String, usize>,
    dslot_taken: Vec<bool>,
    acfg: &'a AccountantConfig,
    now: i64,
    input: &'a CycleInput<'a>,
    slots: Vec<Slot>,
    available: usize,
    ev: Evaluator,
    reps: FxMap<u32, ClassAd>,
    state: AccountantState,
    submitters: Vec<Submitter>,
    /// Group quotas in effect this round (HTCondor's `groupQuotasHash`), by group index.
    group_quotas: Option<Vec<f64>>,
    autoregroup: bool,
    epoch: u64,
    inject_time: bool,
    /// The least a match can count against a submitter's ceiling (see [`Cx::ceiling_charge`]).
    ceiling_least: CeilingLeast,
    out: CycleOutcome,
}

/// The least a match can count against a submitter's ceiling, from the slots at the start of
/// the cycle (where HTCondor's `minSlotWeight` is the smallest `SlotWeight` of all).
#[derive(Clone, Copy, Debug, Default)]
struct CeilingLeast {
    /// The smallest whole weight of the slots without a consumption policy, and whether
    /// that slot is partitionable.
    whole: Option<(f64, bool)>,
    /// Some slot has a consumption policy: a match to it counts what the job consumes,
    /// known only when a job is matched.
    per_match: bool,
}

impl CeilingLeast {
    fn of(slots: &[Slot]) -> CeilingLeast {
        let mut least = CeilingLeast::default();
        for s in slots.iter().filter(|s| s.available) {
            if s.consumption_policy {
                least.per_match = true;
            } else if least.whole.is_none_or(|(w, _)| s.weight < w) {
                least.whole = Some((s.weight, s.kind == SlotKind::Partitionable));
            }
        }
        least
    }

    /// Why a submitter with `left` of its ceiling cannot be charged any match, if it cannot:
    /// nothing is left, or no slot is charged less than the lightest whole slot, which
    /// weighs more than what is left. (HTCondor: `submitterCeiling < minSlotWeight`.)
    fn refuses(&self, left: f64) -> Option<Option<RejectReason>> {
        if left <= 0.0 {
            return Some(None);
        }
        match self.whole {
            Some((weight, partitionable)) if !self.per_match && left < weight => {
                Some(Some(RejectReason::SubmitterCeiling {
                    left,
                    charge: weight,
                    whole_pslot: partitionable,
                }))
            }
            _ => None,
        }
    }
}

/// Runs one cycle; `clock` measures the time limits.
pub fn run(
    input: &CycleInput<'_>,
    state: &AccountantState,
    acfg: &AccountantConfig,
    cfg: &NegotiatorConfig,
    now: i64,
    caches: Caches<'_>,
    clock: &mut dyn CycleClock,
) -> CycleOutcome {
    let t0 = Instant::now();
    let mut stats = CycleStats {
        start_time: now,
        ..CycleStats::default()
    };

    caches.slots.refresh(input.slots, cfg, acfg);
    // The slots the negotiator may see at all (the collector query's constraint).
    let visible: Vec<bool> = input
        .slots
        .iter()
        .map(|ad| {
            cfg.slot_constraint
                .as_ref()
                .is_none_or(|c| constraint_true(c, ad))
        })
        .collect();

    // ----- Phase 2: accounting.
    let mut state = state.clone();
    state.ensure_group_records(acfg);
    state.update_priorities(acfg, now);
    let claims: Vec<SlotClaim> = (0..input.slots.len())
        .filter(|&i| visible[i])
        .map(|i| caches.slots.claim(i).clone())
        .collect();
    state.check_matches(acfg, &claims, now);

    let mut slots: Vec<Slot> = (0..input.slots.len())
        .map(|i| caches.slots.slot(i).clone())
        .collect();
    for (s, v) in slots.iter_mut().zip(&visible) {
        s.available = *v;
    }
    stats.total_slots = slots.iter().filter(|s| s.available).count();
    let mut min_slot_weight = f64::MAX;
    for s in slots.iter().filter(|s| s.available) {
        min_slot_weight = min_slot_weight.min(s.weight);
    }
    if min_slot_weight == f64::MAX {
        min_slot_weight = 0.0;
    }
    // Over the slots as they come, claimed ones too, as `minSlotWeight` is.
    let ceiling_least = CeilingLeast::of(&slots);
    let in_pool = |s: &Slot| {
        s.available
            && cfg
                .slot_poolsize_constraint
                .as_ref()
                .is_none_or(|c| constraint_true(c, &s.ad))
    };
    let pool_count = slots.iter().filter(|s| in_pool(s)).count();
    let weighted_pool = if cfg.use_slot_weights {
        slots.iter().filter(|s| in_pool(s)).map(|s| s.weight).sum()
    } else {
        pool_count as f64
    };
    let effective_pool: f64 = slots
        .iter()
        .filter(|s| in_pool(s))
        .map(|s| match s.kind {
            SlotKind::Partitionable => s.ad.eval_attr("Cpus").as_number_real().unwrap_or(1.0),
            _ => 1.0,
        })
        .sum();
    let untrimmed_count = pool_count;

    // Trim what cannot be matched.
    for s in slots.iter_mut().filter(|s| s.available) {
        let state_attr = crate::accountant::string_attr(&s.ad, "State").unwrap_or_default();
        let trimmed = if state_attr.eq_ignore_ascii_case("Matched") {
            true
        } else if s.kind == SlotKind::Partitionable || !cfg.consider_preemption {
            s.claimed
        } else if !cfg.consider_early_preemption {
            s.ad.eval_attr("RetirementTimeRemaining")
                .as_number_int()
                .is_some_and(|r| r > 0)
        } else {
            false
        };
        if trimmed {
            s.available = false;
        }
    }
    stats.trimmed_slots = slots.iter().filter(|s| s.available).count();
    stats.candidate_slots = stats.trimmed_slots;

    // RemoteUserPrio and friends, for preemption.
    let groups = &acfg.groups;
    if cfg.consider_preemption {
        for s in slots.iter_mut().filter(|s| s.available) {
            let Some(user) = s.remote_user.clone() else {
                continue;
            };
            s.ad.insert("RemoteUserPrio", Expr::lit(state.priority(acfg, &user)));
            s.ad.insert(
                "RemoteUserResourcesInUse",
                Expr::lit(state.weighted_resources_used(&user)),
            );
            if groups.has_groups() {
                let g = groups.assigned_name(&user).to_owned();
                s.ad.insert(
                    "RemoteGroupResourcesInUse",
                    Expr::lit(state.weighted_resources_used(&g)),
                );
                s.ad.insert("RemoteGroup", Expr::lit(g.as_str()));
            }
            if let Some(r) = s.ad.eval_attr("PreemptingRank").as_number_real() {
                s.ad.insert("CurrentRank", Expr::lit(r));
            }
        }
    }

    // ----- The jobs: autoclusters, submitters, runs.
    let significant = match &cfg.significant_attributes {
        Some(list) => list.clone(),
        None => derived_significant(&slots, caches.slots, cfg),
    };
    caches.autoclusters.set_significant(significant);
    caches.autoclusters.begin_cycle();
    let mut job_ac = Vec::with_capacity(input.jobs.len());
    let mut rep_of: Vec<Option<(ClassAd, f64)>> = Vec::new();
    let mut by_submitter: FxMap<&str, usize> = FxMap::default();
    let mut last_submitter: Option<(&str, usize)> = None;
    let mut groups_of_jobs: Vec<Vec<usize>> = Vec::new();
    for (i, job) in input.jobs.iter().enumerate() {
        if let Some(c) = &cfg.job_constraint {
            if !constraint_true(c, &job.ad) {
                job_ac.push(u32::MAX);
                continue;
            }
        }
        let ac = caches.autoclusters.assign(i, job.id, &job.ad);
        job_ac.push(ac);
        if rep_of.len() <= ac as usize {
            rep_of.resize(ac as usize + 1, None);
        }
        if rep_of[ac as usize].is_none() {
            let rep = caches.autoclusters.representative(ac).clone();
            let cpus = rep.eval_attr("RequestCpus").as_number_real().unwrap_or(1.0);
            rep_of[ac as usize] = Some((rep, cpus));
        }
        // Jobs of one submitter usually come together: skip the hashing for them.
        let slot = match last_submitter {
            Some((name, g)) if name == &*job.submitter => g,
            _ => {
                let g = *by_submitter.entry(&job.submitter).or_insert_with(|| {
                    groups_of_jobs.push(Vec::new());
                    groups_of_jobs.len() - 1
                });
                last_submitter = Some((&job.submitter, g));
                g
            }
        };
        groups_of_jobs[slot].push(i);
    }
    caches.autoclusters.end_cycle();
    let mut reps: FxMap<u32, ClassAd> = FxMap::default();
    let mut ac_cpus: FxMap<u32, f64> = FxMap::default();
    for (ac, r) in rep_of.into_iter().enumerate() {
        if let Some((rep, cpus)) = r {
            reps.insert(ac as u32, rep);
            ac_cpus.insert(ac as u32, cpus);
        }
    }
    stats.autoclusters = reps.len();
    let mut by_submitter: Vec<(&str, Vec<usize>)> = by_submitter
        .into_iter()
        .map(|(name, g)| (name, std::mem::take(&mut groups_of_jobs[g])))
        .collect();
    by_submitter.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut submitters = Vec::new();
    let mut entries = Vec::new();
    // Runs break at each change of JobPrio when turns may ask for priority ranges.
    let ranged = cfg.use_global_job_prios && cfg.schedd_global_job_prios;
    for (name, mut jobs) in by_submitter {
        jobs.sort_by(|&a, &b| {
            let (ja, jb) = (&input.jobs[a], &input.jobs[b]);
            super::job::negotiation_order((&ja.prio, ja.id), (&jb.prio, jb.id))
        });
        let mut runs: Vec<Run> = Vec::new();
        let mut weighted_idle = 0.0;
        for &j in &jobs {
            let ac = job_ac[j];
            let prio = if ranged {
                input.jobs[j].prio.job_prio()
            } else {
                0
            };
            weighted_idle += if cfg.use_weighted_demand && cfg.use_slot_weights {
                ac_cpus[&ac]
            } else {
                1.0
            };
            match runs.last_mut() {
                Some(r) if r.ac == ac && r.prio == prio && !cfg.negotiate_all_jobs_in_cluster => {
                    r.jobs.push(j)
                }
                _ => runs.push(Run {
                    ac,
                    prio,
                    jobs: vec![j],
                    next: 0,
                }),
            }
        }
        entries.extend(submitter_entries(
            submitters.len(),
            jobs.iter().map(|&j| input.jobs[j].prio.job_prio()),
            cfg,
        ));
        submitters.push(Submitter {
            name: input.jobs[jobs[0]].submitter.clone(),
            idle_at_start: jobs.len(),
            weighted_idle,
            runs,
            group: groups.assigned(name).0,
            starvation: f64::MAX,
        });
    }

    // ----- The evaluator.
    let keys = caches.slots.take_keys();
    let shape_refs: Vec<&super::eval::Shape> =
        (0..slots.len()).map(|i| caches.slots.shape_of(i)).collect();
    let rep_list: Vec<&ClassAd> = {
        let mut keys: Vec<&u32> = reps.keys().collect();
        keys.sort();
        keys.into_iter().map(|k| &reps[k]).collect()
    };
    let mut ev = Evaluator::new(&slots, &shape_refs, &rep_list, cfg, caches.classing, keys);
    let inject_time = ev.reads("currenttime");
    if inject_time {
        // The cycle's clock, not the wall clock, is `CurrentTime`: laid over the slot's ad
        // rather than written into it, which would copy the whole ad.
        for (i, s) in slots.iter_mut().enumerate() {
            if s.available {
                if s.ad.chained().is_none() {
                    let mut overlay = ClassAd::new();
                    overlay.insert("CurrentTime", Expr::lit(now));
                    overlay.chain_to(std::mem::take(&mut s.ad));
                    s.ad = overlay;
                } else {
                    s.ad.insert("CurrentTime", Expr::lit(now));
                }
                ev.reclassify_changing(i, s);
            }
        }
    }
    let phase2 = t0.elapsed().as_secs_f64();

    let available = slots.iter().filter(|s| s.available).count();
    let by_name: FxMap<String, usize> = if cfg.allow_pslot_preemption {
        slots.iter().map(|s| (s.name.clone(), s.index)).collect()
    } else {
        FxMap::default()
    };
    let dslot_taken = vec![false; slots.len()];
    let mut cx = Cx {
        cfg,
        clock,
        entries,
        schedd_time: 0.0,
        by_name,
        dslot_taken,
        acfg,
        now,
        input,
        slots,
        available,
        ev,
        reps,
        state,
        submitters,
        group_quotas: None,
        autoregroup: groups.group(0).autoregroup,
        epoch: 1,
        inject_time,
        ceiling_least,
        out: CycleOutcome::default(),
    };
    cx.out.stats = stats;
    cx.out.stats.duration_phase2 = phase2;

    let all: Vec<usize> = (0..cx.entries.len()).collect();
    if !groups.has_groups() {
        let below = cx.below_floor(&all);
        if !below.is_empty() {
            cx.negotiate_with_group(
                true,
                untrimmed_count,
                weighted_pool,
                min_slot_weight,
                below,
                i32::MAX as f64,
                None,
            );
        }
        cx.negotiate_with_group(
            false,
            untrimmed_count,
            weighted_pool,
            min_slot_weight,
            all,
            i32::MAX as f64,
            None,
        );
    } else {
        cx.out.stats.candidate_slots = untrimmed_count;
        let total = if cfg.use_slot_weights {
            weighted_pool
        } else {
            effective_pool
        };
        cx.negotiate_groups(total, untrimmed_count, weighted_pool, min_slot_weight);
    }

    let (mut out, keys) = cx.finish();
    caches.slots.put_keys(keys);
    out.stats.end_time = now;
    out.stats.duration = t0.elapsed().as_secs_f64();
    out.stats.duration_phase4 =
        out.stats.duration - out.stats.duration_phase2 - out.stats.duration_phase3;
    out
}

/// The submitter ads of one submitter whose idle jobs have priorities `prios` (in any order):
/// one, or with `USE_GLOBAL_JOB_PRIOS` one per priority of the schedd's `JobPrioArray` (its
/// `MAX_GLOBAL_JOB_PRIOS` highest distinct priorities; none when that is 0), or a single one at
/// the lowest priority when the schedd advertises no array.
fn submitter_entries(
    sub: usize,
    prios: impl Iterator<Item = i64>,
    cfg: &NegotiatorConfig,
) -> Vec<Entry> {
    let entry = |prio: i64, from_array: bool| Entry {
        sub,
        prio,
        from_array,
        range: None,
        time: 0.0,
    };
    if !cfg.use_global_job_prios {
        return vec![entry(0, false)];
    }
    if !cfg.schedd_global_job_prios {
        return vec![entry(i32::MIN as i64, false)];
    }
    let set: std::collections::BTreeSet<i64> = prios.collect();
    set.into_iter()
        .rev()
        .take(cfg.max_global_job_prios)
        .map(|p| entry(p, true))
        .collect()
}

/// HTCondor's `consolidate_globaljobprio_submitter_ads`: in the sorted list, consecutive ads
/// of one submitter (from a `JobPrioArray`) become the first of them, negotiating the range of
/// their priorities.
fn consolidate(entries: &mut [Entry], subs: &mut Vec<usize>) {
    let mut prev: Option<usize> = None;
    subs.retain(|&e| {
        if !entries[e].from_array {
            return true;
        }
        let p = entries[e].prio;
        match prev {
            Some(first) if entries[first].sub == entries[e].sub => {
                let r = entries[first].range.get_or_insert((p, p));
                r.0 = r.0.min(p);
                r.1 = r.1.max(p);
                false
            }
            _ => {
                entries[e].range = Some((p, p));
                prev = Some(e);
                true
            }
        }
    });
}

/// The significant attributes when `SIGNIFICANT_ATTRIBUTES` is not set: every name the slots'
/// expressions mention, and the names in the negotiator's policy expressions.
fn derived_significant(slots: &[Slot], cache: &SlotCache, cfg: &NegotiatorConfig) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..slots.len() {
        let id = cache.shape_id(i);
        if seen.insert(id) {
            for r in cache.shape(id).attrs.values() {
                names.extend(r.names.iter().cloned());
            }
        }
    }
    for e in cfg.job_policy_exprs().chain([
        &cfg.modify_request_cpus,
        &cfg.modify_request_memory,
        &cfg.modify_request_disk,
    ]) {
        names.extend(refs::references(e).names);
    }
    let mut seen = std::collections::HashSet::new();
    for s in slots {
        for c in s.consumption.iter().flat_map(|c| c.iter()) {
            let mut h = refs::FxHasher::default();
            std::hash::Hash::hash(&c.request, &mut h);
            refs::hash_expr(&c.expr, &mut h);
            if seen.insert(std::hash::Hasher::finish(&h)) {
                names.push(c.request.to_ascii_lowercase());
                names.extend(refs::references(&c.expr).names);
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

fn constraint_true(c: &Expr, ad: &ClassAd) -> bool {
    matches!(ad.eval_expr(c, None), Value::Bool(true))
        || matches!(ad.eval_expr(c, None), Value::Int(i) if i != 0)
}

/// `SubmitterStarvation`: usage over usage plus limit.
fn starvation_ratio(usage: f64, allocated: f64) -> f64 {
    if allocated > 0.0 {
        usage / allocated
    } else {
        f32::MAX as f64
    }
}

impl<'a> Cx<'a> {
    fn eup(&self, name: &str) -> f64 {
        self.state.priority(self.acfg, name)
    }

    /// The submitter of entry `e`.
    fn sub_of(&self, e: usize) -> &Submitter {
        &self.submitters[self.entries[e].sub]
    }

    fn below_floor(&self, subs: &[usize]) -> Vec<usize> {
        subs.iter()
            .copied()
            .filter(|&e| {
                let name = &self.sub_of(e).name;
                let floor = self.state.floor(name) as f64;
                floor > 0.0 && self.state.weighted_resources_used(name) < floor
            })
            .collect()
    }

    /// HTCondor's `calculateNormalizationFactor`: the largest EUP, and the sum over distinct
    /// submitters of largest / EUP.
    fn normalization(&self, subs: &[usize]) -> (f64, f64) {
        let mut max = f64::MIN_POSITIVE;
        for &e in subs {
            max = max.max(self.eup(&self.sub_of(e).name));
        }
        let mut seen = std::collections::BTreeSet::new();
        let mut normal = 0.0;
        for &e in subs {
            let name = &self.sub_of(e).name;
            if seen.insert(name.clone()) {
                normal += max / self.eup(name);
            }
        }
        (max, normal)
    }

    /// HTCondor's `calculateSubmitterLimit`: (limit, limit for unclaimed slots, usage, share).
    #[allow(clippy::too_many_arguments)]
    fn submitter_limit(
        &self,
        name: &str,
        group: Option<&str>,
        group_quota: f64,
        group_usage: f64,
        max_prio: f64,
        normal: f64,
        slot_weight_total: f64,
        floor_round: bool,
    ) -> (f64, f64, f64, f64) {
        let prio = self.eup(name);
        let usage = self.state.weighted_resources_used(name);
        let share = max_prio / (prio * normal);
        let mut limit = if self.cfg.ignore_user_priorities {
            f64::MAX
        } else {
            share * slot_weight_total - usage
        };
        if limit < 0.0 {
            limit = 0.0;
        }
        let mut unclaimed = limit;
        if group.is_some() {
            let max_allowed = (group_quota - group_usage).max(0.0);
            unclaimed = unclaimed.min(max_allowed);
        }
        if !self.cfg.consider_preemption {
            limit = unclaimed;
        }
        if floor_round {
            limit = limit.min(self.state.floor(name) as f64);
        }
        (limit, unclaimed, usage, share)
    }

    /// HTCondor's `negotiateWithGroup`: spins the pie among `subs`.
    #[allow(clippy::too_many_arguments)]
    fn negotiate_with_group(
        &mut self,
        floor_round: bool,
        untrimmed_count: usize,
        untrimmed_weight: f64,
        min_slot_weight: f64,
        mut subs: Vec<usize>,
        group_quota: f64,
        group: Option<usize>,
    ) {
        let group_name: Option<String> = group.map(|g| self.acfg.groups.group(g).name.clone());
        self.out.stats.pies += 1;
        // Copies of one submitter (global job priorities) report its share once.
        let mut reported: std::collections::HashSet<Arc<str>> = Default::default();
        let mut spin = 0;
        loop {
            spin += 1;
            self.out.stats.pie_spins += 1;
            let ignore_limit = spin == 1 && self.cfg.consider_preemption;
            let group_usage = group_name
                .as_deref()
                .map_or(0.0, |g| self.state.weighted_resources_used(g));
            if !ignore_limit && group_name.is_some() && group_usage >= group_quota {
                break;
            }
            if !self.cfg.consider_preemption {
                subs.retain(|&e| self.sub_of(e).idle_at_start > 0);
            }
            let (max_prio, normal) = self.normalization(&subs);
            let _ = untrimmed_count;
            let slot_weight_total = untrimmed_weight.min(group_quota);
            let mut pie_left = 0.0;
            for &e in &subs {
                let s = self.entries[e].sub;
                let name = self.submitters[s].name.clone();
                let (limit, _, usage, _) = self.submitter_limit(
                    &name,
                    group_name.as_deref(),
                    group_quota,
                    group_usage,
                    max_prio,
                    normal,
                    slot_weight_total,
                    false,
                );
                self.submitters[s].starvation = starvation_ratio(usage, usage + limit);
                pie_left += limit;
            }
            if !self.cfg.consider_preemption && pie_left <= 0.0 {
                break;
            }
            if spin == 1 {
                let t = Instant::now();
                let global = self.cfg.use_global_job_prios;
                subs.sort_by(|&a, &b| {
                    let (ea, eb) = (&self.entries[a], &self.entries[b]);
                    let (sa, sb) = (&self.submitters[ea.sub], &self.submitters[eb.sub]);
                    let by_prio = if global {
                        eb.prio.cmp(&ea.prio)
                    } else {
                        std::cmp::Ordering::Equal
                    };
                    self.eup(&sa.name)
                        .total_cmp(&self.eup(&sb.name))
                        .then(by_prio)
                        .then(sa.starvation.total_cmp(&sb.starvation))
                        .then(sa.name.cmp(&sb.name))
                        .then(eb.prio.cmp(&ea.prio))
                });
                if global {
                    consolidate(&mut self.entries, &mut subs);
                }
                self.out.stats.duration_phase3 += t.elapsed().as_secs_f64();
            }
            let pie_left_orig = pie_left;
            let count_orig = subs.len();
            let mut i = 0;
            while i < subs.len() {
                let e = subs[i];
                let s = self.entries[e].sub;
                if !ignore_limit {
                    if let Some(g) = group_name.as_deref() {
                        if self.state.weighted_resources_used(g) >= group_quota {
                            break;
                        }
                    }
                }
                let name = self.submitters[s].name.clone();
                let (mut limit, unclaimed, _, share) = self.submitter_limit(
                    &name,
                    group_name.as_deref(),
                    group_quota,
                    group_usage,
                    max_prio,
                    normal,
                    slot_weight_total,
                    floor_round,
                );
                if spin == 1 && reported.insert(name.clone()) {
                    self.out.submitters.push(SubmitterReport {
                        name: name.to_string(),
                        group: group_name.clone().unwrap_or_else(|| ROOT_GROUP.into()),
                        priority: self.eup(&name),
                        share,
                        limit: share * slot_weight_total,
                    });
                }
                if limit > pie_left {
                    limit = pie_left;
                }
                let ceiling = match self.state.ceiling(&name) {
                    c if c < 0 => f64::MAX,
                    c => (c as f64 - self.state.weighted_resources_used(&name).trunc()).max(0.0),
                };
                let idle = self.submitters[s].idle_at_start;
                // The time limits, as the seconds left of each.
                let start = self.clock.elapsed().as_secs_f64();
                let left_cycle = self.cfg.max_time_per_cycle as f64 - start;
                let left_submitter = self.cfg.max_time_per_submitter as f64 - self.entries[e].time;
                let left_schedd = self.cfg.max_time_per_schedd as f64 - self.schedd_time;
                let result = if idle == 0 {
                    Outcome::Done
                } else if left_submitter <= 0.0 {
                    self.out
                        .stats
                        .submitters_out_of_time
                        .insert(name.to_string());
                    Outcome::Done
                } else if left_schedd <= 0.0 {
                    self.out
                        .stats
                        .schedds_out_of_time
                        .insert(self.cfg.schedd_name.clone());
                    Outcome::Done
                } else if left_cycle <= 0.0 {
                    Outcome::Done
                } else if (limit < min_slot_weight || pie_left < min_slot_weight) && spin > 1 {
                    Outcome::Resume
                } else if let Some(why) = self.ceiling_least.refuses(ceiling) {
                    // HTCondor skips the submitter when `submitterCeiling < minSlotWeight`,
                    // the smallest weight of any slot, even one whose matches are charged
                    // only what the job consumes (a consumption policy): a ceiling below a
                    // partitionable slot's weight would starve the submitter for good.
                    if let Some(reason) = why {
                        self.reject_for_ceiling(e, reason);
                    }
                    Outcome::Done
                } else {
                    if self.out.stats.active_submitters.insert(name.to_string()) {
                        self.out.stats.num_idle_jobs += idle;
                    }
                    let deadline = start
                        + left_cycle
                            .min(left_submitter)
                            .min(left_schedd)
                            .min(self.cfg.max_time_per_piespin as f64);
                    let result = self.negotiate(
                        e,
                        group,
                        limit,
                        unclaimed,
                        ceiling,
                        ignore_limit,
                        deadline,
                        &mut pie_left,
                    );
                    // updateNegCycleEndTime
                    let spent = self.clock.elapsed().as_secs_f64() - start;
                    self.entries[e].time += spent;
                    self.schedd_time += spent;
                    result
                };
                match result {
                    Outcome::Resume => {
                        self.out
                            .stats
                            .submitters_share_limit
                            .insert(name.to_string());
                        i += 1;
                    }
                    Outcome::Done => {
                        subs.remove(i);
                    }
                }
            }
            let progressed = pie_left < pie_left_orig || subs.len() < count_orig;
            if !progressed || subs.is_empty() || self.available == 0 || floor_round {
                break;
            }
        }
    }

    /// A submitter skipped for its ceiling: the next job of each of its autoclusters (in its
    /// priority range) is told why. No request goes to the schedd, so the cycle's statistics
    /// count no rejection.
    fn reject_for_ceiling(&mut self, e: usize, reason: RejectReason) {
        let sub = &self.submitters[self.entries[e].sub];
        let range = self.entries[e].range;
        for run in &sub.runs {
            if range.is_some_and(|(lo, hi)| run.prio < lo || run.prio > hi) {
                continue;
            }
            if let Some(&job) = run.jobs.get(run.next) {
                self.out.rejections.push(Rejection {
                    job: self.input.jobs[job].id,
                    submitter: sub.name.to_string(),
                    autocluster: run.ac,
                    reason: reason.clone(),
                });
            }
        }
    }

    /// What a match to candidate `c` counts against the submitter's ceiling: a slot with a
    /// consumption policy, the match cost (its weight before minus after, as group quotas
    /// and submitter limits are charged: HTCondor's `SubmitterLimitPermits` uses
    /// `cp_deduct_assets`); any other slot, its whole weight, as HTCondor's `negotiate`
    /// charges a match without `CP_MATCH_COST` (`GetSlotWeight`).
    fn ceiling_charge(&self, c: &Candidate) -> f64 {
        let slot = &self.slots[c.slot];
        if slot.consumption_policy {
            self.cost_of(c)
        } else {
            slot.weight
        }
    }

    /// The ceiling refuses candidate `c` when what it would count is more than the ceiling
    /// `left` at the start of the turn (HTCondor's per-slot form of `submitterCeiling <
    /// minSlotWeight`); `d` records the cheapest match so refused. As in HTCondor, the turn
    /// itself stops once its matches add up to the ceiling left (`negotiate`: `limitUsed >=
    /// submitterCeiling`), so its last match may go over.
    fn ceiling_refuses(&self, c: &Candidate, left: f64, d: &mut Diagnostics) -> bool {
        let charge = self.ceiling_charge(c);
        if charge <= left {
            return false;
        }
        let lighter = match &d.ceiling {
            Some(RejectReason::SubmitterCeiling { charge: least, .. }) => charge < *least,
            _ => true,
        };
        if lighter {
            let slot = &self.slots[c.slot];
            d.ceiling = Some(RejectReason::SubmitterCeiling {
                left,
                charge,
                whole_pslot: slot.kind == SlotKind::Partitionable && !slot.consumption_policy,
            });
        }
        true
    }

    /// The request for a job of autocluster `ac` from submitter `s`.
    fn request(&self, s: usize, ac: u32, group: Option<usize>) -> Request {
        let name = &self.submitters[s].name;
        let mut ad = self.reps[&ac].clone();
        let groups = &self.acfg.groups;
        let neg_group = group.unwrap_or(0);
        ad.insert(
            "SubmitterNegotiatingGroup",
            Expr::lit(groups.group(neg_group).name.as_str()),
        );
        ad.insert(
            "SubmitterAutoregroup",
            Expr::lit(self.autoregroup && neg_group == 0),
        );
        let prio = self.eup(name);
        ad.insert("SubmittorPrio", Expr::lit(prio));
        ad.insert("SubmitterUserPrio", Expr::lit(prio));
        ad.insert(
            "SubmitterUserResourcesInUse",
            Expr::lit(self.state.weighted_resources_used(name)),
        );
        if let Some(quotas) = &self.group_quotas {
            let g = groups.assigned(name).0;
            let gname = groups.group(g).name.as_str();
            ad.insert("SubmitterGroup", Expr::lit(gname));
            ad.insert(
                "SubmitterGroupResourcesInUse",
                Expr::lit(self.state.weighted_resources_used(gname)),
            );
            ad.insert("SubmitterGroupQuota", Expr::lit(quotas[g]));
        }
        if self.inject_time {
            ad.insert("CurrentTime", Expr::lit(self.now));
        }
        Request {
            ac,
            ad,
            epoch: self.epoch,
        }
    }

    /// HTCondor's `negotiate`: one turn of entry `e`'s submitter, until `deadline` (seconds
    /// on the cycle's clock).
    #[allow(clippy::too_many_arguments)]
    fn negotiate(
        &mut self,
        e: usize,
        group: Option<usize>,
        limit: f64,
        limit_unclaimed: f64,
        ceiling: f64,
        ignore_limit: bool,
        deadline: f64,
        pie_left: &mut f64,
    ) -> Outcome {
        let s = self.entries[e].sub;
        // The schedd hands out only jobs of the priority range it is asked for.
        let range = self.entries[e].range;
        let name = self.submitters[s].name.clone();
        let mut limit_used = 0.0;
        let mut used_unclaimed = 0.0;
        let mut limited = false;
        let mut rejected_acs: Vec<u32> = Vec::new();
        let mut rejected_jobs: Vec<usize> = Vec::new();
        let mut list: Option<MatchList> = None;
        let mut request: Option<Request> = None;
        let mut run_i = 0;
        self.epoch += 1;
        loop {
            if self.clock.elapsed().as_secs_f64() >= deadline {
                // Out of time: resume in the next spin.
                return Outcome::Resume;
            }
            let only_startd_rank = if limit_used >= limit {
                if ignore_limit {
                    true
                } else {
                    return Outcome::Resume;
                }
            } else {
                false
            };
            if limit_used >= ceiling {
                return Outcome::Resume;
            }
            // The schedd's next job: skip what matched and what was rejected.
            let mut next = None;
            while run_i < self.submitters[s].runs.len() {
                let run = &self.submitters[s].runs[run_i];
                if range.is_some_and(|(lo, hi)| run.prio < lo || run.prio > hi) {
                    run_i += 1;
                    continue;
                }
                if self.cfg.negotiate_all_jobs_in_cluster {
                    if let Some(p) =
                        (run.next..run.jobs.len()).find(|&p| !rejected_jobs.contains(&run.jobs[p]))
                    {
                        next = Some((run_i, p));
                        break;
                    }
                } else if run.next < run.jobs.len() && !rejected_acs.contains(&run.ac) {
                    next = Some((run_i, run.next));
                    break;
                }
                run_i += 1;
            }
            let Some((r, p)) = next else {
                return if limit_used >= limit || limited {
                    Outcome::Resume
                } else {
                    Outcome::Done
                };
            };
            let job = self.submitters[s].runs[r].jobs[p];
            let ac = self.submitters[s].runs[r].ac;
            self.out.stats.num_jobs_considered += 1;
            // The request carries the submitter's usage, which each match changes; it is
            // rebuilt when it is about to be evaluated against slots again.
            let needs_list = list
                .as_ref()
                .is_none_or(|ml| ml.ac != ac || ml.only_for_startd_rank != only_startd_rank);
            let req = match request.take() {
                Some(q)
                    if q.ac == ac
                        && (q.epoch == self.epoch
                            || !(needs_list || self.ev.session_sensitive())) =>
                {
                    request.insert(q)
                }
                _ => request.insert(self.request(s, ac, group)),
            };
            let result = self.matchmaking(
                s,
                job,
                req,
                ceiling,
                limit_used,
                used_unclaimed,
                limit,
                limit_unclaimed,
                only_startd_rank,
                &mut list,
            );
            match result {
                Err(reason) => {
                    self.out.stats.rejections += 1;
                    if reason == RejectReason::SubmitterLimit {
                        limited = true;
                        self.out
                            .stats
                            .submitters_share_limit
                            .insert(name.to_string());
                    }
                    self.out.rejections.push(Rejection {
                        job: self.input.jobs[job].id,
                        submitter: name.to_string(),
                        autocluster: ac,
                        reason: reason.clone(),
                    });
                    if self.cfg.negotiate_all_jobs_in_cluster {
                        rejected_jobs.push(job);
                    } else {
                        rejected_acs.push(ac);
                    }
                    if reason == RejectReason::SubmitterLimit
                        && !self.cfg.consider_preemption
                        && !self.cfg.use_slot_weights
                    {
                        return Outcome::Resume;
                    }
                }
                Ok(c) => {
                    let cost = self.make_match(s, job, ac, group, &c, req, &mut list);
                    limit_used += cost;
                    if c.state == PreemptState::No {
                        used_unclaimed += cost;
                    }
                    *pie_left -= cost;
                    self.out.stats.matches += 1;
                    let run = &mut self.submitters[s].runs[r];
                    if p == run.next {
                        run.next += 1;
                    } else {
                        run.jobs.remove(p);
                    }
                    self.epoch += 1;
                }
            }
        }
    }

    /// HTCondor's `SubmitterLimitPermits`.
    fn permits(&self, c: &Candidate, used: f64, allowed: f64) -> bool {
        let cost = self.cost_of(c);
        used + cost <= allowed || (used <= 0.0 && allowed > 0.0)
    }

    fn cost_of(&self, c: &Candidate) -> f64 {
        match &c.pm.amounts {
            Some(_) => c.pm.cost,
            None => self.slots[c.slot].weight,
        }
    }

    /// The job's concurrency limits as a string, and whether they must be evaluated per slot.
    fn limits_of(job: &ClassAd) -> (Option<String>, bool) {
        match job.lookup("ConcurrencyLimits") {
            None => (None, false),
            Some(_) => match job.eval_attr("ConcurrencyLimits") {
                Value::Str(s) => (Some(s.to_string()), false),
                _ => (None, true),
            },
        }
    }

    /// HTCondor's `rejectForConcurrencyLimits`: the limits that would go over.
    fn over_limits(&self, limits: &str) -> Vec<String> {
        let lower = limits.to_ascii_lowercase();
        for item in lower
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
        {
            let Some((name, inc)) = crate::accountant::parse_concurrency_limit(item) else {
                continue;
            };
            let count = self.state.limit_in_use(&name);
            let max = self.cfg.limit_max(&name);
            if count < 0.0 || count + inc > max {
                return vec![name];
            }
        }
        Vec::new()
    }

    fn slot_limits(&self, req: &Request, slot: usize) -> Option<String> {
        match req
            .ad
            .eval_attr_against("ConcurrencyLimits", Some(&self.slots[slot].ad))
        {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        }
    }

    /// HTCondor's `matchmakingAlgorithm`: the best slot for the request, or why there is none.
    #[allow(clippy::too_many_arguments)]
    fn matchmaking(
        &mut self,
        s: usize,
        job: usize,
        req: &Request,
        ceiling: f64,
        limit_used: f64,
        used_unclaimed: f64,
        limit: f64,
        limit_unclaimed: f64,
        only_startd_rank: bool,
        list: &mut Option<MatchList>,
    ) -> Result<Candidate, RejectReason> {
        let _ = job;
        let (limits, limits_per_slot) = Self::limits_of(&req.ad);
        if let Some(l) = &limits {
            let over = self.over_limits(l);
            if !over.is_empty() {
                return Err(RejectReason::ConcurrencyLimit(over));
            }
        }
        if let Some(ml) = list
            .as_mut()
            .filter(|ml| ml.ac == req.ac && ml.only_for_startd_rank == only_startd_rank)
        {
            let mut rej_limit = 0;
            let mut rej_conc = Vec::new();
            while let Some(c) = ml.pop() {
                if !self.slots[c.slot].available {
                    continue;
                }
                if c.pslot
                    .as_ref()
                    .is_some_and(|p| p.dslots.iter().any(|&(d, _)| self.dslot_taken[d]))
                {
                    continue;
                }
                if limits_per_slot {
                    if let Some(l) = self.slot_limits(req, c.slot) {
                        let over = self.over_limits(&l);
                        if !over.is_empty() {
                            rej_conc = over;
                            continue;
                        }
                    }
                }
                if (c.state != PreemptState::No && self.permits(&c, limit_used, limit))
                    || self.permits(&c, used_unclaimed, limit_unclaimed)
                {
                    return Ok(c);
                }
                rej_limit += 1;
            }
            let mut d = ml.diagnostics.clone();
            d.submitter_limit += rej_limit;
            if !rej_conc.is_empty() {
                d.concurrency = rej_conc;
            }
            return Err(d.reason());
        }

        // Build the candidate list.
        let name = self.submitters[s].name.clone();
        let mut d = Diagnostics::default();
        let mut cands = Vec::new();
        let pslot_preemption = self.cfg.allow_pslot_preemption && self.cfg.consider_preemption;
        for pos in 0..self.slots.len() {
            if !self.slots[pos].available {
                continue;
            }
            // With pslot preemption, a dynamic slot that its partitionable slot's Child* lists
            // describe is preempted through the partitionable slot only.
            if self.cfg.allow_pslot_preemption
                && self.slots[pos].kind == SlotKind::Dynamic
                && matches!(
                    self.slots[pos].ad.eval_attr("PslotRollupInformation"),
                    Value::Bool(true)
                )
            {
                continue;
            }
            let claimed = self.cfg.consider_preemption && self.slots[pos].claimed;
            let multi = pslot_preemption && self.slots[pos].kind == SlotKind::Partitionable;
            // Only the startd's rank counts: unclaimed slots cannot qualify, so do not evaluate
            // (unless their dynamic slots might be preempted).
            if only_startd_rank && !claimed && !multi {
                continue;
            }
            let pm = self.ev.pair_match(pos, &self.slots[pos], req);
            if !pm.matched {
                if !multi {
                    continue;
                }
                let Some((state, plan, pm)) =
                    self.pslot_multi_match(pos, req, &name, only_startd_rank)
                else {
                    continue;
                };
                let mut c = Candidate {
                    slot: pos,
                    pre: 0.0,
                    rank: 0.0,
                    post: 0.0,
                    state,
                    preempt_rank: -(f32::MAX as f64),
                    pm,
                    pslot: Some(Arc::new(plan)),
                };
                if state == PreemptState::Prio && !self.permits(&c, limit_used, limit) {
                    d.submitter_limit += 1;
                    continue;
                }
                if self.ceiling_refuses(&c, ceiling, &mut d) {
                    continue;
                }
                if limits_per_slot {
                    if let Some(l) = self.slot_limits(req, pos) {
                        let over = self.over_limits(&l);
                        if !over.is_empty() {
                            d.concurrency = over;
                            continue;
                        }
                    }
                }
                self.ranks(&mut c, req);
                cands.push(c);
                continue;
            }
            if only_startd_rank && !claimed {
                // An unclaimed slot has no job for its rank to prefer the request to.
                continue;
            }
            let slot = &self.slots[pos];
            let remote = if claimed {
                slot.remote_user.clone()
            } else {
                None
            };
            let mut state = PreemptState::No;
            if only_startd_rank {
                let Some(_) = &remote else { continue };
                if !startd_prefers(&slot.ad, &req.ad, false) {
                    continue;
                }
                state = PreemptState::Rank;
            } else if let Some(user) = &remote {
                if startd_prefers(&slot.ad, &req.ad, false) {
                    state = PreemptState::Rank;
                } else if **user != *name {
                    state = PreemptState::Prio;
                    if let Some(pr) = &self.cfg.preemption_requirements {
                        if !slot_expr_true(pr, &slot.ad, &req.ad) {
                            d.preempt_policy += 1;
                            continue;
                        }
                    }
                    if !startd_prefers(&slot.ad, &req.ad, true) {
                        d.preempt_rank += 1;
                        continue;
                    }
                } else {
                    continue;
                }
            }
            let mut c = Candidate {
                slot: pos,
                pre: 0.0,
                rank: 0.0,
                post: 0.0,
                state,
                preempt_rank: -(f32::MAX as f64),
                pm,
                pslot: None,
            };
            let ok = match state {
                PreemptState::Prio => self.permits(&c, limit_used, limit),
                PreemptState::No => self.permits(&c, used_unclaimed, limit_unclaimed),
                PreemptState::Rank => true,
            };
            if !ok {
                d.submitter_limit += 1;
                continue;
            }
            if self.ceiling_refuses(&c, ceiling, &mut d) {
                continue;
            }
            if limits_per_slot {
                if let Some(l) = self.slot_limits(req, pos) {
                    let over = self.over_limits(&l);
                    if !over.is_empty() {
                        d.concurrency = over;
                        continue;
                    }
                }
            }
            self.ranks(&mut c, req);
            cands.push(c);
        }
        let mut ml = MatchList {
            ac: req.ac,
            only_for_startd_rank: only_startd_rank,
            list: cands,
            next: 0,
            sorted: 0,
            diagnostics: d,
        };
        let first = ml.pop();
        let reason = ml.diagnostics.reason();
        *list = Some(ml);
        first.ok_or(reason)
    }

    fn ranks(&mut self, c: &mut Candidate, req: &Request) {
        if let Some(plan) = &c.pslot {
            // The enlarged slot is no class's: evaluated as it is.
            c.pre = negotiator_rank(self.cfg.pre_job_rank.as_ref(), &plan.ad, &req.ad);
            c.rank = job_rank(&req.ad, &plan.ad);
            c.post = negotiator_rank(self.cfg.post_job_rank.as_ref(), &plan.ad, &req.ad);
            c.preempt_rank = negotiator_rank(self.cfg.preemption_rank.as_ref(), &plan.ad, &req.ad);
            return;
        }
        let slot = &self.slots[c.slot];
        c.pre = self.ev.rank(PRE_RANK, c.slot, slot, req);
        c.rank = self.ev.rank(JOB_RANK, c.slot, slot, req);
        c.post = self.ev.rank(POST_RANK, c.slot, slot, req);
        if c.state != PreemptState::No {
            c.preempt_rank = negotiator_rank(self.cfg.preemption_rank.as_ref(), &slot.ad, &req.ad);
        }
    }

    /// HTCondor's `pslotMultiMatch`: whether the partitionable slot `pos`, which does not match
    /// the request as it is, would match it with the resources of some of its dynamic slots;
    /// if so, how (rank or user priority preemption), which dynamic slots, and the match.
    ///
    /// The dynamic slots are the slot's `Child*` lists (`ChildName`, `ChildCurrentRank`,
    /// `ChildState`, `ChildRetirementTimeRemaining`, `Child<Resource>`), each named slot's ad in
    /// the cycle standing for its claim id: a slot with a child that is not in the cycle is not
    /// considered (HTCondor: "Wrong number of dslot claim ids"). Ties of `CurrentRank` keep the
    /// lists' order (HTCondor's `std::sort` leaves them unspecified).
    fn pslot_multi_match(
        &self,
        pos: usize,
        req: &Request,
        submitter: &str,
        only_startd_rank: bool,
    ) -> Option<(PreemptState, PslotPlan, PairMatch)> {
        let slot = &self.slots[pos];
        let new_rank = match slot.ad.lookup("Rank") {
            Some(_) => slot
                .ad
                .eval_attr_against("Rank", Some(&req.ad))
                .as_number_real()
                .unwrap_or(0.0),
            None => 0.0,
        };
        let count = slot.ad.eval_attr("NumDynamicSlots").as_number_int()?;
        if count < 1 {
            return None;
        }
        let count = count as usize;
        let names = child_list(&slot.ad, "Name")?;
        if names.len() != count {
            return None;
        }
        let mut children = Vec::with_capacity(count);
        for name in names {
            match name {
                Expr::Lit(Value::Str(n)) => children.push(*self.by_name.get(&**n)?),
                _ => return None,
            }
        }
        let mut ranks: Vec<(usize, f64)> = Vec::new();
        for (i, &d) in children.iter().enumerate() {
            let current = child_value(&slot.ad, "CurrentRank", i)
                .and_then(|v| v.as_number_real())
                .unwrap_or(0.0);
            let retiring = child_value(&slot.ad, "RetirementTimeRemaining", i)
                .and_then(|v| v.as_number_int())
                .unwrap_or(0);
            let preempting = matches!(
                child_value(&slot.ad, "State", i),
                Some(Value::Str(s)) if &*s == "Preempting"
            );
            if retiring > 0 || preempting || self.dslot_taken[d] {
                continue;
            }
            ranks.push((i, current));
        }
        if ranks.is_empty() {
            return None;
        }
        ranks.sort_by(|a, b| a.1.total_cmp(&b.1));
        let resources: Vec<String> =
            match crate::accountant::string_attr(&slot.ad, "MachineResources") {
                Some(list) => list
                    .split(' ')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
                None => vec!["cpus".into(), "memory".into(), "disk".into()],
            };
        let mut enlarged = slot.clone();
        let mut state = PreemptState::No;
        let mut chosen: Vec<(usize, PreemptReason)> = Vec::new();
        let mut changed: Vec<String> = Vec::new();
        for &(i, rank) in ranks.iter().take_while(|&&(_, r)| r <= new_rank) {
            let d = children[i];
            let reason = if rank == new_rank {
                // Equal ranks: a user priority preemption, on the dynamic slot's own terms.
                if only_startd_rank {
                    continue;
                }
                let dslot = &self.slots[d];
                if dslot.remote_user.as_deref().unwrap_or_default() == submitter {
                    continue;
                }
                let Some(pr) = &self.cfg.preemption_requirements else {
                    continue;
                };
                if !slot_expr_true(pr, &dslot.ad, &req.ad) {
                    continue;
                }
                state = PreemptState::Prio;
                PreemptReason::UserPriority
            } else {
                if state != PreemptState::Prio {
                    state = PreemptState::Rank;
                }
                PreemptReason::Rank
            };
            chosen.push((d, reason));
            for attr in &resources {
                let Some(before) = enlarged.ad.eval_attr(attr).as_number_real() else {
                    continue;
                };
                let before = before.floor();
                let value = match child_value(&slot.ad, attr, i) {
                    Some(Value::Int(v)) => Expr::lit(before as i64 + v),
                    Some(Value::Real(r)) => Expr::lit(before + r),
                    _ => continue,
                };
                enlarged.ad.insert(attr, value);
                if !changed.iter().any(|c| c.eq_ignore_ascii_case(attr)) {
                    changed.push(attr.clone());
                }
            }
            let pm = evaluate_match(&enlarged, &req.ad);
            if pm.matched {
                let resources = changed
                    .iter()
                    .filter_map(|a| enlarged.ad.lookup(a).map(|e| (a.clone(), e.clone())))
                    .collect();
                let mut ad = enlarged.ad;
                ad.insert("RemoteUser", Expr::lit("various_dSlot_users"));
                let plan = PslotPlan {
                    dslots: chosen,
                    ad,
                    resources,
                };
                return Some((state, plan, pm));
            }
        }
        None
    }

    /// Makes the match: the slot is taken (or, partitionable, consumed), the accountant
    /// charged. Returns the cost.
    #[allow(clippy::too_many_arguments)]
    fn make_match(
        &mut self,
        s: usize,
        job: usize,
        ac: u32,
        group: Option<usize>,
        c: &Candidate,
        req: &Request,
        list: &mut Option<MatchList>,
    ) -> f64 {
        let name = self.submitters[s].name.clone();
        let limits = self
            .slot_limits(req, c.slot)
            .map(|l| l.to_ascii_lowercase());
        let pos = c.slot;
        if let Some(plan) = &c.pslot {
            // The dynamic slots' resources go back to the partitionable slot.
            for (attr, value) in &plan.resources {
                self.slots[pos].ad.insert(attr, value.clone());
            }
        }
        let (cost, consumption) = match &c.pm.amounts {
            Some(amounts) => {
                // (Amounts are only planned for a partitionable slot, which has these.)
                let cons = self.slots[pos].consumption.clone().unwrap_or_default();
                let cost = self.slots[pos].consume(amounts);
                let consumption = cons
                    .iter()
                    .zip(amounts.iter())
                    .map(|(r, &x)| (r.resource.clone(), x))
                    .collect();
                (cost, consumption)
            }
            None => {
                self.slots[pos].available = false;
                self.available -= 1;
                (self.slots[pos].weight, Vec::new())
            }
        };
        let slot = &self.slots[pos];
        let preempting = match c.state {
            PreemptState::No => None,
            PreemptState::Rank => Some(PreemptReason::Rank),
            PreemptState::Prio => Some(PreemptReason::UserPriority),
        };
        let mut preempted_dslots = Vec::new();
        match (&c.pslot, preempting) {
            (Some(plan), _) => {
                for &(d, reason) in &plan.dslots {
                    let dslot = &self.slots[d];
                    self.out.preemptions.push(Preemption {
                        slot: d,
                        slot_name: dslot.name.clone(),
                        victim: dslot.remote_user.clone().unwrap_or_default(),
                        by: self.input.jobs[job].id,
                        by_submitter: name.to_string(),
                        reason,
                        pslot: Some(slot.index),
                    });
                    preempted_dslots.push(d);
                }
            }
            (None, Some(reason)) => {
                self.out.preemptions.push(Preemption {
                    slot: slot.index,
                    slot_name: slot.name.clone(),
                    victim: slot.remote_user.clone().unwrap_or_default(),
                    by: self.input.jobs[job].id,
                    by_submitter: name.to_string(),
                    reason,
                    pslot: None,
                });
            }
            (None, None) => {}
        }
        let resource = slot.resource.clone();
        self.state.add_match(
            self.acfg,
            &name,
            &resource,
            slot.weight,
            c.pm.amounts.as_ref().map(|_| cost),
            limits.as_deref(),
            self.now,
        );
        self.out.matches.push(Match {
            job: self.input.jobs[job].id,
            submitter: name.clone(),
            slot: slot.index,
            slot_name: slot.name.clone(),
            cost,
            autocluster: ac,
            consumption,
            preempting,
            concurrency_limits: limits,
            group: self.acfg.groups.group(group.unwrap_or(0)).name.clone(),
            preempted_dslots,
        });
        if let Some(plan) = &c.pslot {
            // The dynamic slots are given away (their claim ids handed out), and the
            // partitionable slot takes nothing more until they are gone: what this match
            // consumes is only there once they have been vacated.
            for &(d, _) in &plan.dslots {
                self.dslot_taken[d] = true;
                if self.slots[d].available {
                    self.slots[d].available = false;
                    self.available -= 1;
                }
            }
            if self.slots[pos].available {
                self.slots[pos].available = false;
                self.available -= 1;
            }
            let slot = self.slots[pos].clone();
            self.ev.reclassify_changing(pos, &slot);
        } else if c.pm.amounts.is_some() {
            // The partitionable slot may take more jobs: back into the list if it still
            // matches (HTCondor's `returnPslotToMatchList`).
            let slot = self.slots[pos].clone();
            self.ev.reclassify_changing(pos, &slot);
            if let Some(ml) = list.as_mut().filter(|ml| ml.ac == ac) {
                let pm = self.ev.pair_match(pos, &slot, req);
                if pm.matched {
                    let mut nc = Candidate {
                        slot: pos,
                        pre: 0.0,
                        rank: 0.0,
                        post: 0.0,
                        state: PreemptState::No,
                        preempt_rank: -(f32::MAX as f64),
                        pm,
                        pslot: None,
                    };
                    self.ranks(&mut nc, req);
                    ml.insert(nc);
                }
            }
        }
        cost
    }

    /// HTCondor's HGQ path: quotas, allocation rounds, each group's pie.
    fn negotiate_groups(
        &mut self,
        total: f64,
        untrimmed_count: usize,
        weighted_pool: f64,
        min_slot_weight: f64,
    ) {
        let tree = &self.acfg.groups;
        let mut h = Hgq::new(tree, self.cfg.allow_quota_oversubscription);
        let mut group_subs: Vec<Vec<usize>> = vec![Vec::new(); tree.len()];
        for (e, entry) in self.entries.iter().enumerate() {
            group_subs[self.submitters[entry.sub].group].push(e);
        }
        for s in &self.submitters {
            let running = self.state.weighted_resources_used(&s.name);
            let demand = if self.cfg.use_weighted_demand {
                running + s.weighted_idle
            } else {
                self.state.resources_used(&s.name) as f64 + s.idle_at_start as f64
            };
            h.g[s.group].requested += demand;
        }
        for (i, gs) in h.g.iter_mut().enumerate() {
            gs.currently_requested = gs.requested;
            gs.usage = self.state.weighted_resources_used(&tree.group(i).name);
        }
        if self.autoregroup {
            for &g in tree.breadth_first() {
                if g != 0 && tree.group(g).autoregroup {
                    let subs = group_subs[g].clone();
                    group_subs[0].extend(subs);
                }
            }
        }
        h.assign_quotas(0, total);
        let global_surplus = tree.any_accept_surplus;
        let mut round = 0;
        while round < self.cfg.group_quota_max_allocation_rounds {
            round += 1;
            self.out.stats.slot_share_iterations += 1;
            for gs in h.g.iter_mut() {
                gs.allocated = 0.0;
                gs.subtree_requested = 0.0;
            }
            h.fairshare(0);
            if !self.cfg.use_slot_weights {
                h.recover_remainders(0);
            }
            if self.autoregroup {
                h.g[0].quota = total;
                h.g[0].allocated = total;
            }
            self.group_quotas = Some(h.g.iter().map(|g| g.quota).collect());
            let mut maxdelta: f64 = 0.0;
            let mut allocated_total = 0.0;
            for gs in &h.g {
                allocated_total += gs.allocated;
                let target = if global_surplus {
                    gs.allocated
                } else {
                    gs.quota
                };
                maxdelta = maxdelta.max((target - gs.usage).max(0.0));
            }
            for &g in tree.breadth_first() {
                let key = self.group_sort_key(
                    &tree.group(g).name,
                    h.g[g].quota,
                    h.g[g].allocated,
                    self.state.weighted_resources_used(&tree.group(g).name),
                );
                h.g[g].sort_key = key;
            }
            let mut order: Vec<usize> = tree.breadth_first().to_vec();
            let autoregroup = self.autoregroup;
            order.sort_by(|&a, &b| {
                if autoregroup && (a == 0 || b == 0) {
                    return (a == 0).cmp(&(b == 0));
                }
                h.g[a].sort_key.total_cmp(&h.g[b].sort_key)
            });
            let ninc = self.cfg.group_quota_round_robin_rate;
            let mut n: f64 = 0.0;
            loop {
                n = (n + ninc).min(maxdelta);
                for &g in &order {
                    let gs = &h.g[g];
                    if gs.allocated <= 0.0 {
                        continue;
                    }
                    if gs.usage >= gs.allocated && !self.cfg.consider_preemption {
                        continue;
                    }
                    if group_subs[g].is_empty() {
                        continue;
                    }
                    let target = gs.allocated.max(gs.quota);
                    let delta = (target - gs.usage).max(0.0);
                    let mut slots = if delta > 0.0 {
                        gs.usage + delta * (n / maxdelta)
                    } else {
                        target
                    };
                    slots = slots.min(target);
                    if !self.cfg.use_slot_weights {
                        slots = slots.floor();
                    }
                    if self.cfg.strict_enforce_quota {
                        let state = &self.state;
                        h.subtree_usage(0, &|i| state.weighted_resources_used(&tree.group(i).name));
                        h.g[g].usage = self.state.weighted_resources_used(&tree.group(g).name);
                        slots = h.strict_enforce(g, slots);
                    }
                    // HTCondor passes the limit to the negotiation as an int.
                    let slots = slots.trunc();
                    let neg_group = if autoregroup && g == 0 { None } else { Some(g) };
                    let below = self.below_floor(&group_subs[g]);
                    if !below.is_empty() {
                        self.negotiate_with_group(
                            true,
                            untrimmed_count,
                            weighted_pool,
                            min_slot_weight,
                            below,
                            slots,
                            neg_group,
                        );
                    }
                    self.negotiate_with_group(
                        false,
                        untrimmed_count,
                        weighted_pool,
                        min_slot_weight,
                        group_subs[g].clone(),
                        slots,
                        neg_group,
                    );
                }
                if n >= maxdelta {
                    break;
                }
            }
            let mut usage_total = 0.0;
            for &g in tree.breadth_first() {
                let usage = self.state.weighted_resources_used(&tree.group(g).name);
                let gs = &mut h.g[g];
                gs.usage = usage;
                usage_total += usage.min(gs.allocated);
                if gs.usage < gs.allocated {
                    gs.requested = gs.usage;
                } else {
                    gs.requested += gs.allocated;
                }
            }
            if usage_total >= allocated_total {
                break;
            }
        }
        h.finish(self.now as f64);
        self.state.group_quotas.clear();
        for &g in tree.breadth_first() {
            let grp = tree.group(g);
            self.state.group_quotas.insert(
                grp.name.clone(),
                crate::accountant::GroupQuota {
                    effective_quota: h.g[g].quota,
                    subtree_quota: h.g[g].subtree_quota,
                    sort_key: h.g[g].sort_key,
                    requested: h.g[g].currently_requested,
                },
            );
            self.out.groups.push(GroupReport {
                name: grp.name.clone(),
                config_quota: grp.config_quota,
                static_quota: grp.static_quota,
                quota: h.g[g].quota,
                subtree_quota: h.g[g].subtree_quota,
                allocated: h.g[g].allocated,
                requested: h.g[g].currently_requested,
                usage: self.state.weighted_resources_used(&grp.name),
                sort_key: h.g[g].sort_key,
                accept_surplus: grp.accept_surplus,
                autoregroup: grp.autoregroup,
            });
        }
    }

    /// `GROUP_SORT_EXPR` over a group's ad.
    fn group_sort_key(&self, name: &str, quota: f64, allocated: f64, in_use: f64) -> f64 {
        let mut ad = ClassAd::new();
        ad.insert("AccountingGroup", Expr::lit(name));
        ad.insert("GroupQuota", Expr::lit(quota));
        ad.insert("GroupResourcesAllocated", Expr::lit(allocated));
        ad.insert("GroupResourcesInUse", Expr::lit(in_use));
        ad.eval_expr(&self.cfg.group_sort_expr, None)
            .as_number_real()
            .unwrap_or(f32::MAX as f64)
    }

    fn finish(self) -> (CycleOutcome, Vec<KeyCache>) {
        let mut out = self.out;
        out.stats.evaluations = self.ev.evaluations;
        out.stats.evaluation_lookups = self.ev.lookups;
        out.stats.num_schedulers = usize::from(!out.stats.active_submitters.is_empty());
        out.accountant = self.state;
        out.slot_ads = self
            .slots
            .into_iter()
            .filter(|s| s.kind == SlotKind::Partitionable)
            .map(|s| (s.index, s.ad))
            .collect();
        (out, self.ev.into_keys())
    }
}

/// The list `Child<name>` of a partitionable slot (not evaluated: the expression as written).
fn child_list<'x>(ad: &'x ClassAd, name: &str) -> Option<&'x [Expr]> {
    match ad.lookup(&format!("Child{name}"))? {
        Expr::List(items) => Some(items),
        _ => None,
    }
}

/// Entry `i` of `Child<name>`, when it is a literal (HTCondor's `dslotLookup`).
fn child_value(ad: &ClassAd, name: &str, i: usize) -> Option<Value> {
    match child_list(ad, name)?.get(i)? {
        Expr::Lit(v) => Some(v.clone()),
        _ => None,
    }
}

/// `MY.Rank > MY.CurrentRank` (or `>=`): the slot prefers the job to the one it runs.
fn startd_prefers(slot: &ClassAd, job: &ClassAd, or_equal: bool) -> bool {
    use std::sync::OnceLock;
    static STRICT: OnceLock<Expr> = OnceLock::new();
    static EQUAL: OnceLock<Expr> = OnceLock::new();
    let e = if or_equal {
        EQUAL.get_or_init(|| parse_expr("MY.Rank >= MY.CurrentRank").expect("parses"))
    } else {
        STRICT.get_or_init(|| parse_expr("MY.Rank > MY.CurrentRank").expect("parses"))
    };
    slot_expr_true(e, slot, job)
}
