//! Evaluating autoclusters against slots, each distinct question once.
//!
//! For each kind of evaluation the negotiator makes (does the job match the slot, the job's
//! `Rank` of it, `NEGOTIATOR_PRE_JOB_RANK`, `NEGOTIATOR_POST_JOB_RANK`), the names the evaluation
//! can possibly read are the closure of the names its root expressions mention, through the
//! definitions of those names in every slot ad and every autocluster's representative job
//! ([`super::refs`]). Slots that agree on the values of all those names are in the same *class*
//! for that kind, and a question is asked once per (autocluster, class): in a pool of identical
//! slots that differ only in `Name` and `SlotID`, one evaluation answers for all of them.
//! A kind that reads nothing of the job (the default `NEGOTIATOR_POST_JOB_RANK`) is evaluated
//! once per class for every autocluster. A kind whose closure does something names cannot account
//! for (`eval()`, ...) gets one class per slot, which is plain per-pair evaluation.
//!
//! Partitionable slots are evaluated as their consumption policy has it: the job matches when
//! the slot has enough for what it would consume and both Requirements hold with the job's
//! `Request<Resource>` replaced by those amounts.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::config::NegotiatorConfig;
use super::refs::{self, hash_opt_expr, FxHasher, FxMap, Refs};
use super::slots::Slot;
use crate::accountant::{AccountantConfig, SlotClaim};
use crate::classad::ast::Expr;
use crate::classad::eval::{Eval, Frame};
use crate::classad::{ClassAd, Value};

pub const MATCH: usize = 0;
pub const JOB_RANK: usize = 1;
pub const PRE_RANK: usize = 2;
pub const POST_RANK: usize = 3;
const KINDS: usize = 4;

/// Names of request attributes that change while one submitter negotiates.
const SESSION_ATTRS: &[&str] = &[
    "submittorprio",
    "submitteruserprio",
    "submitteruserresourcesinuse",
    "submittergroupresourcesinuse",
    "submittergroup",
    "submittergroupquota",
    "submitternegotiatinggroup",
    "submitterautoregroup",
];

/// What the negotiator learns from a slot ad by itself, kept across cycles by the
/// [`Negotiator`](super::Negotiator): a slot whose ad is the same ad (shared, not merely equal)
/// is not read again.
#[derive(Default)]
pub struct SlotCache {
    entries: Vec<Option<SlotEntry>>,
    shapes: Vec<Shape>,
    index: FxMap<u64, Vec<u32>>,
    keys: Vec<KeyCache>,
}

struct SlotEntry {
    ad: ClassAd,
    shape: u32,
    slot: Slot,
    claim: SlotClaim,
}

/// A slot's class keys (by the signature of the names each was computed over), valid for one
/// version of its ad.
#[derive(Clone, Default)]
pub struct KeyCache {
    ad: Option<ClassAd>,
    keys: Vec<(u64, u128)>,
}

/// The references of each attribute of a slot ad, by lower-cased name. Slots whose attributes
/// have the same names and mention the same names share a shape.
#[derive(PartialEq)]
pub struct Shape {
    pub attrs: FxMap<String, Refs>,
}

impl SlotCache {
    /// Brings the cache up to date with the cycle's slot ads.
    pub fn refresh(&mut self, ads: &[ClassAd], cfg: &NegotiatorConfig, acfg: &AccountantConfig) {
        self.entries.resize_with(ads.len(), || None);
        self.keys.resize_with(ads.len(), KeyCache::default);
        for (i, ad) in ads.iter().enumerate() {
            if self.entries[i].as_ref().is_some_and(|e| e.ad.ptr_eq(ad)) {
                continue;
            }
            let shape = self.intern(ad);
            self.entries[i] = Some(SlotEntry {
                ad: ad.clone(),
                shape,
                slot: Slot::new(i, ad.clone(), cfg),
                claim: SlotClaim::from_ad(ad, acfg),
            });
        }
    }

    fn entry(&self, i: usize) -> &SlotEntry {
        self.entries[i].as_ref().expect("refreshed")
    }

    /// Slot `i` as a cycle starts with it.
    pub fn slot(&self, i: usize) -> &Slot {
        &self.entry(i).slot
    }

    /// What the accountant reads from slot `i`.
    pub fn claim(&self, i: usize) -> &SlotClaim {
        &self.entry(i).claim
    }

    /// The shape of slot `i`.
    pub fn shape_of(&self, i: usize) -> &Shape {
        &self.shapes[self.entry(i).shape as usize]
    }

    pub fn shape_id(&self, i: usize) -> u32 {
        self.entry(i).shape
    }

    pub fn shape(&self, id: u32) -> &Shape {
        &self.shapes[id as usize]
    }

    /// Lends the class keys to a cycle's evaluator.
    pub fn take_keys(&mut self) -> Vec<KeyCache> {
        std::mem::take(&mut self.keys)
    }

    pub fn put_keys(&mut self, keys: Vec<KeyCache>) {
        self.keys = keys;
    }

    fn intern(&mut self, ad: &ClassAd) -> u32 {
        let mut attrs: Vec<(String, Refs)> = ad
            .iter()
            .map(|(n, e)| (n.to_ascii_lowercase(), refs::references(e)))
            .collect();
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut h = FxHasher::default();
        for (n, r) in &attrs {
            n.hash(&mut h);
            r.names.hash(&mut h);
            r.dynamic.hash(&mut h);
        }
        let shape = Shape {
            attrs: attrs.into_iter().collect(),
        };
        let hash = h.finish();
        if let Some(ids) = self.index.get(&hash) {
            if let Some(&id) = ids.iter().find(|&&id| self.shapes[id as usize] == shape) {
                return id;
            }
        }
        let id = self.shapes.len() as u32;
        self.shapes.push(shape);
        self.index.entry(hash).or_default().push(id);
        id
    }
}

/// What the evaluator knows about one kind of evaluation.
#[derive(Clone, Debug, Default)]
struct Kind {
    /// The names the evaluation may read, sorted.
    names: Vec<String>,
    /// Slots can be put in classes (no dynamic construct on the way).
    classing: bool,
    /// The result depends on the job.
    per_job: bool,
    /// The result depends on attributes that change while a submitter negotiates.
    per_session: bool,
    /// A hash of `names`, to recognise class keys computed over the same names.
    signature: u64,
}

#[derive(Default)]
struct Interner {
    index: FxMap<u128, u32>,
    /// Classes handed out so far.
    next: u32,
}

/// A request: an autocluster's representative job with what the negotiator adds to it for a
/// submitter.
#[derive(Clone, Debug)]
pub struct Request {
    pub ac: u32,
    pub ad: ClassAd,
    /// Changes whenever an attribute of [`SESSION_ATTRS`] may have changed.
    pub epoch: u64,
}

/// Whether an autocluster matches a slot, and for a partitionable slot what the job would
/// consume and what that would cost.
#[derive(Clone, Debug, PartialEq)]
pub struct PairMatch {
    pub matched: bool,
    pub amounts: Option<Arc<[f64]>>,
    pub cost: f64,
}

#[derive(Default)]
struct Table {
    matched: Vec<Option<PairMatch>>,
    ranks: [Vec<f64>; KINDS],
}

/// The evaluator of one cycle.
pub struct Evaluator {
    kinds: [Kind; KINDS],
    classes: Vec<[u32; KINDS]>,
    interners: [Interner; KINDS],
    keys: Vec<KeyCache>,
    tables: FxMap<(u32, u64), Table>,
    pre_job_rank: Option<Expr>,
    post_job_rank: Option<Expr>,
    /// Evaluations actually made (for the statistics and the benchmarks).
    pub evaluations: u64,
    /// Answers given from the tables.
    pub lookups: u64,
}

impl Evaluator {
    /// Works out what each kind of evaluation can read, from the slots (and their shapes), the
    /// autoclusters' representatives and the configuration. `classing: false` evaluates every
    /// pair (for testing that classing changes nothing).
    pub fn new(
        slots: &[Slot],
        slot_shapes: &[&Shape],
        reps: &[&ClassAd],
        cfg: &NegotiatorConfig,
        classing: bool,
        mut keys: Vec<KeyCache>,
    ) -> Evaluator {
        let mut distinct: Vec<&Shape> = Vec::new();
        for s in slot_shapes {
            if !distinct.iter().any(|d| std::ptr::eq(*d, *s)) {
                distinct.push(s);
            }
        }
        let closure = |roots: Vec<String>, mut dynamic: bool| -> (Vec<String>, bool) {
            let mut names = roots;
            let mut i = 0;
            while i < names.len() {
                let n = names[i].clone();
                let mut found = Refs::default();
                for shape in &distinct {
                    if let Some(r) = shape.attrs.get(&n) {
                        found.dynamic |= r.dynamic;
                        found.names.extend(r.names.iter().cloned());
                    }
                }
                for rep in reps {
                    if let Some(e) = rep.lookup(&n) {
                        refs::collect(e, &mut found);
                    }
                }
                dynamic |= found.dynamic;
                for m in found.names {
                    if !names.contains(&m) {
                        names.push(m);
                    }
                }
                i += 1;
            }
            names.sort();
            (names, dynamic)
        };
        let job_defines = |n: &str| {
            SESSION_ATTRS.contains(&n)
                || n == "currenttime"
                || reps.iter().any(|r| r.lookup(n).is_some())
        };
        let kind = |roots: Vec<String>, dynamic: bool| {
            let (names, dynamic) = closure(roots, dynamic);
            let mut h = FxHasher::default();
            names.hash(&mut h);
            Kind {
                per_job: names.iter().any(|n| job_defines(n)),
                per_session: names.iter().any(|n| SESSION_ATTRS.contains(&n.as_str())),
                classing: classing && !dynamic,
                signature: h.finish(),
                names,
            }
        };
        let mut match_roots: Vec<String> = [
            "requirements",
            "start",
            "partitionableslot",
            "machineresources",
            "slotweight",
            "cpus",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut dynamic = false;
        let mut seen = std::collections::HashSet::new();
        for s in slots {
            for c in s.consumption.iter().flat_map(|c| c.iter()) {
                let mut h = FxHasher::default();
                c.resource.hash(&mut h);
                refs::hash_expr(&c.expr, &mut h);
                if !seen.insert(h.finish()) {
                    continue;
                }
                for n in [
                    c.resource.to_ascii_lowercase(),
                    c.request.to_ascii_lowercase(),
                    format!("consumption{}", c.resource.to_ascii_lowercase()),
                ] {
                    if !match_roots.contains(&n) {
                        match_roots.push(n);
                    }
                }
                let r = refs::references(&c.expr);
                dynamic |= r.dynamic;
                for n in r.names {
                    if !match_roots.contains(&n) {
                        match_roots.push(n);
                    }
                }
            }
        }
        let expr_roots = |e: &Option<Expr>| {
            e.as_ref()
                .map(refs::references)
                .map(|r| (r.names, r.dynamic))
                .unwrap_or_default()
        };
        let (pre, pre_dyn) = expr_roots(&cfg.pre_job_rank);
        let (post, post_dyn) = expr_roots(&cfg.post_job_rank);
        let kinds = [
            kind(match_roots, dynamic),
            kind(vec!["rank".into()], false),
            kind(pre, pre_dyn),
            kind(post, post_dyn),
        ];
        keys.resize_with(slots.len(), KeyCache::default);
        let mut ev = Evaluator {
            kinds,
            classes: vec![[0; KINDS]; slots.len()],
            interners: Default::default(),
            keys,
            tables: FxMap::default(),
            pre_job_rank: cfg.pre_job_rank.clone(),
            post_job_rank: cfg.post_job_rank.clone(),
            evaluations: 0,
            lookups: 0,
        };
        for (i, s) in slots.iter().enumerate() {
            ev.reclassify(i, s);
        }
        ev
    }

    /// Whether any evaluation can read `name` (lower-cased).
    pub fn reads(&self, name: &str) -> bool {
        self.kinds
            .iter()
            .any(|k| k.names.binary_search_by(|n| n.as_str().cmp(name)).is_ok())
    }

    /// Whether the results depend on attributes that change during a submitter's negotiation.
    pub fn session_sensitive(&self) -> bool {
        self.kinds.iter().any(|k| k.per_session)
    }

    /// Recomputes a slot's classes (after its ad changed).
    ///
    /// A class is named by a 128-bit hash (two independent 64-bit hashes) of the values of the
    /// kind's names in the slot's ad; slots with the same key are taken to be equal without
    /// comparing the values again (a false equality needs a 128-bit collision).
    pub fn reclassify(&mut self, pos: usize, slot: &Slot) {
        self.classify(pos, slot, true);
    }

    /// [`reclassify`](Self::reclassify) for an ad that changes during the cycle (a
    /// partitionable slot being consumed): its keys are not kept, nor is the ad (which would
    /// make the next change copy it).
    pub fn reclassify_changing(&mut self, pos: usize, slot: &Slot) {
        self.classify(pos, slot, false);
    }

    fn classify(&mut self, pos: usize, slot: &Slot, keep: bool) {
        let cache = &mut self.keys[pos];
        if !cache.ad.as_ref().is_some_and(|a| a.ptr_eq(&slot.ad)) {
            cache.ad = keep.then(|| slot.ad.clone());
            cache.keys.clear();
        }
        for k in 0..KINDS {
            let kind = &self.kinds[k];
            let interner = &mut self.interners[k];
            self.classes[pos][k] = if kind.classing {
                let key = match cache.keys.iter().find(|(sig, _)| *sig == kind.signature) {
                    Some(&(_, key)) => key,
                    None => {
                        let key = class_key(&slot.ad, &kind.names);
                        if keep {
                            cache.keys.push((kind.signature, key));
                        }
                        key
                    }
                };
                let next = &mut interner.next;
                *interner.index.entry(key).or_insert_with(|| {
                    *next += 1;
                    *next - 1
                })
            } else {
                interner.next += 1;
                interner.next - 1
            };
        }
    }

    /// Gives back the class keys for the next cycle.
    pub fn into_keys(self) -> Vec<KeyCache> {
        self.keys
    }

    fn table_key(&self, k: usize, req: &Request) -> (u32, u64) {
        let kind = &self.kinds[k];
        (
            if kind.per_job { req.ac } else { u32::MAX },
            if kind.per_session { req.epoch } else { 0 },
        )
    }

    /// Whether the request matches the slot (cached per class).
    pub fn pair_match(&mut self, pos: usize, slot: &Slot, req: &Request) -> PairMatch {
        let class = self.classes[pos][MATCH] as usize;
        let key = self.table_key(MATCH, req);
        let table = self.tables.entry(key).or_default();
        if let Some(Some(m)) = table.matched.get(class) {
            self.lookups += 1;
            return m.clone();
        }
        self.evaluations += 1;
        let m = evaluate_match(slot, &req.ad);
        if table.matched.len() <= class {
            table.matched.resize(class + 1, None);
        }
        table.matched[class] = Some(m.clone());
        m
    }

    /// The job's `Rank` of the slot, `NEGOTIATOR_PRE_JOB_RANK` or `NEGOTIATOR_POST_JOB_RANK`
    /// (cached per class).
    pub fn rank(&mut self, k: usize, pos: usize, slot: &Slot, req: &Request) -> f64 {
        let class = self.classes[pos][k] as usize;
        let key = self.table_key(k, req);
        let table = self.tables.entry(key).or_default();
        let v = &mut table.ranks[k];
        if let Some(&x) = v.get(class) {
            if !x.is_nan() {
                self.lookups += 1;
                return x;
            }
        }
        self.evaluations += 1;
        let x = match k {
            JOB_RANK => job_rank(&req.ad, &slot.ad),
            PRE_RANK => negotiator_rank(self.pre_job_rank.as_ref(), &slot.ad, &req.ad),
            _ => negotiator_rank(self.post_job_rank.as_ref(), &slot.ad, &req.ad),
        };
        if v.len() <= class {
            v.resize(class + 1, f64::NAN);
        }
        v[class] = x;
        x
    }
}

/// Both ads' requirements hold against each other.
pub fn symmetric(job: &ClassAd, slot: &ClassAd) -> bool {
    job.eval_bool("Requirements", Some(slot)) && slot_side(slot, job)
}

/// The class key of an ad for a kind reading `names`.
fn class_key(ad: &ClassAd, names: &[String]) -> u128 {
    let mut fx = FxHasher::default();
    let mut sip = std::hash::DefaultHasher::new();
    for n in names {
        let v = ad.lookup(n);
        hash_opt_expr(v, &mut fx);
        hash_opt_expr(v, &mut sip);
    }
    ((fx.finish() as u128) << 64) | sip.finish() as u128
}

/// The slot side of a match: `Requirements`, else `START`, else true.
fn slot_side(slot: &ClassAd, job: &ClassAd) -> bool {
    let name = if slot.lookup("Requirements").is_some() {
        "Requirements"
    } else if slot.lookup("START").is_some() {
        "START"
    } else {
        return true;
    };
    slot.eval_bool(name, Some(job))
}

/// Evaluates a match without the tables.
pub fn evaluate_match(slot: &Slot, job: &ClassAd) -> PairMatch {
    match &slot.consumption {
        None => PairMatch {
            matched: symmetric(job, &slot.ad),
            amounts: None,
            cost: slot.weight,
        },
        Some(_) => {
            let amounts = slot.consumption_of(job);
            if !slot.sufficient(&amounts) {
                return PairMatch {
                    matched: false,
                    amounts: None,
                    cost: 0.0,
                };
            }
            let overridden = slot.overridden(job, &amounts);
            let matched = symmetric(&overridden, &slot.ad);
            let cost = if matched { slot.cost_of(&amounts) } else { 0.0 };
            PairMatch {
                matched,
                amounts: Some(amounts.into()),
                cost,
            }
        }
    }
}

/// The job's `Rank` of a slot (HTCondor's `EvalFloat(ATTR_RANK, ...)`, 0 when not a number).
pub fn job_rank(job: &ClassAd, slot: &ClassAd) -> f64 {
    match job.lookup("Rank") {
        None => 0.0,
        Some(_) => job
            .eval_attr_against("Rank", Some(slot))
            .as_number_real()
            .unwrap_or(0.0),
    }
}

/// A negotiator rank expression (slot as MY, job as TARGET), as HTCondor's
/// `EvalNegotiatorMatchRank`: a single-precision number, or the lowest double when the
/// expression is not set or not a number.
pub fn negotiator_rank(e: Option<&Expr>, slot: &ClassAd, job: &ClassAd) -> f64 {
    let Some(e) = e else {
        return -f64::MAX;
    };
    let mut cx = Eval::new(Some(slot), Some(job));
    let v = cx.eval(e, &Frame::My);
    if cx.failed() {
        return -f64::MAX;
    }
    match v {
        Value::Int(i) => i as f32 as f64,
        Value::Real(r) => r as f32 as f64,
        Value::Bool(b) => b as i64 as f32 as f64,
        _ => -f64::MAX,
    }
}

/// Evaluates an expression (slot as MY, job as TARGET) as a boolean; false unless true.
pub fn slot_expr_true(e: &Expr, slot: &ClassAd, job: &ClassAd) -> bool {
    let mut cx = Eval::new(Some(slot), Some(job));
    let v = cx.eval(e, &Frame::My);
    !cx.failed() && v.as_bool() == Some(true)
}
