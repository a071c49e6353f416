//! The schedd's autoclusters (src/condor_schedd.V6/autocluster.cpp): jobs grouped by the values
//! of the significant attributes, each group numbered. The schedd puts the number in the job
//! ad (`AutoClusterId`) with the attributes that made it (`AutoClusterAttrs`); `condor_q
//! -autocluster` lists the groups, and `condor_q -group-by` groups the jobs the same way by the
//! attributes it shows ([`JobClusters`] serves both, as HTCondor's `JobCluster` does).
//!
//! The significant attributes come from the negotiator ([`negotiator_significant`]: what the
//! slot ads and its policy expressions read from a job), merged with the ones the schedd always
//! needs ([`MINIMAL_SIGNIFICANT`]) and `ADD_SIGNIFICANT_ATTRIBUTES`, less
//! `REMOVE_SIGNIFICANT_ATTRIBUTES`; `SIGNIFICANT_ATTRIBUTES` replaces them all
//! ([`configured_significant`]). A job's signature is the value of each of them, then of every
//! attribute of the job those values read (in `strcasecmp` order), as `getClusterid` makes it.

use std::collections::HashMap;

use crate::classad::analysis::{external_references, Names};
use crate::classad::ast::{Expr, ScopeKw};
use crate::classad::unparse::expr_to_string;
use crate::classad::ClassAd;

/// The job attribute holding a job's autocluster.
pub const AUTO_CLUSTER_ID: &str = "AutoClusterId";
/// The job attribute listing the attributes its autocluster was made from.
pub const AUTO_CLUSTER_ATTRS: &str = "AutoClusterAttrs";

/// The schedd's `MinimalSigAttrs` (schedd.cpp `Scheduler::Init`), as `classad::References`
/// orders them.
pub const MINIMAL_SIGNIFICANT: &[&str] = &[
    "ConcurrencyLimits",
    "FlockTo",
    "NiceUser",
    "Rank",
    "Requirements",
];

/// What the negotiator never counts as significant (matchmaker.cpp
/// `compute_significant_attrs`): it sets them on the request itself.
const NEVER_SIGNIFICANT: &[&str] = &[
    "CurrentTime",
    "RemoteUserPrio",
    "RemoteUserResourcesInUse",
    "RemoteGroupResourcesInUse",
    "SubmittorPrio",
    "SubmitterUserPrio",
    "SubmitterUserResourcesInUse",
    "SubmitterGroupResourcesInUse",
];

/// How deep a signature follows a job's attributes into one another (libclassad's limit).
const MAX_DEPTH: u32 = 400;

/// The negotiator's significant attributes (`compute_significant_attrs`): the external
/// references of every slot ad's attributes but lists, and of the policy expressions
/// (`PREEMPTION_REQUIREMENTS`, `PREEMPTION_RANK`, `NEGOTIATOR_PRE_JOB_RANK`,
/// `NEGOTIATOR_POST_JOB_RANK`) in the first slot's ad, and every name of
/// `NEGOTIATOR_JOB_CONSTRAINT`; in `strcasecmp` order. None without slots.
pub fn negotiator_significant<'a>(
    slots: impl IntoIterator<Item = &'a ClassAd>,
    policy: &[&Expr],
    job_constraint: Option<&Expr>,
) -> Option<Vec<String>> {
    let mut names = Names::default();
    let mut sample: Option<&ClassAd> = None;
    for slot in slots {
        sample.get_or_insert(slot);
        for (_, e) in slot.iter() {
            if !matches!(e, Expr::List(_)) {
                external_references(slot, e, &mut names);
            }
        }
    }
    let sample = sample?;
    for e in policy {
        external_references(sample, e, &mut names);
    }
    if let Some(c) = job_constraint {
        external_references(&ClassAd::new(), c, &mut names);
    }
    let mut out: Vec<String> = names
        .iter()
        .filter(|n| !n.is_empty() && !NEVER_SIGNIFICANT.iter().any(|x| x.eq_ignore_ascii_case(n)))
        .map(str::to_owned)
        .collect();
    out.dedup();
    Some(out)
}

/// `AutoCluster::config`: the significant attributes the schedd uses given the negotiator's,
/// and whether they replace the ones it had (`SIGNIFICANT_ATTRIBUTES` set) or are merged into
/// them.
pub fn configured_significant(
    config: &crate::config::Config,
    from_negotiator: &[String],
) -> (Vec<String>, bool) {
    let list = |knob: &str| -> Option<Vec<String>> {
        config
            .string(knob)
            .ok()
            .flatten()
            .map(|_| config.list(knob).unwrap_or_default())
    };
    if let Some(fixed) = list("SIGNIFICANT_ATTRIBUTES") {
        return (fixed, true);
    }
    let mut required = Names::of(MINIMAL_SIGNIFICANT);
    for a in list("ADD_SIGNIFICANT_ATTRIBUTES").unwrap_or_default() {
        required.insert(&a);
    }
    let mut banned = Names::default();
    for a in list("REMOVE_SIGNIFICANT_ATTRIBUTES").unwrap_or_default() {
        if required.contains(&a) {
            required = required.without(&a);
        } else {
            banned.insert(&a);
        }
    }
    let mut out: Vec<String> = from_negotiator
        .iter()
        .filter(|a| !banned.contains(a))
        .cloned()
        .collect();
    for r in required.iter() {
        if !from_negotiator.iter().any(|a| a.eq_ignore_ascii_case(r)) {
            out.push(r.to_owned());
        }
    }
    (out, false)
}

/// HTCondor's `JobCluster`: signatures numbered as they are first seen.
#[derive(Debug)]
pub struct JobClusters {
    significant: Vec<String>,
    ids: HashMap<String, i64>,
    next_id: i64,
}

impl Default for JobClusters {
    fn default() -> Self {
        JobClusters::new()
    }
}

impl JobClusters {
    pub fn new() -> JobClusters {
        JobClusters {
            significant: Vec::new(),
            ids: HashMap::new(),
            next_id: 1,
        }
    }

    /// `setSigAttrs`: replaces the significant attributes, or adds the new ones after the
    /// ones there are. When they change, or the ids near exhaustion, every signature is
    /// forgotten and numbering starts again at 1; returns whether that happened.
    pub fn set_significant(&mut self, attrs: &[String], replace: bool) -> bool {
        let exhausted = self.next_id > i64::from(i32::MAX / 2);
        let same = self.significant.len() == attrs.len()
            && self
                .significant
                .iter()
                .zip(attrs)
                .all(|(a, b)| a.eq_ignore_ascii_case(b));
        let mut changed = false;
        if replace || self.significant.is_empty() {
            if !same {
                self.significant = attrs.to_vec();
                changed = true;
            }
        } else {
            for a in attrs {
                if !self.significant.iter().any(|s| s.eq_ignore_ascii_case(a)) {
                    self.significant.push(a.clone());
                    changed = true;
                }
            }
        }
        if changed || exhausted {
            self.clear();
        }
        changed || exhausted
    }

    pub fn significant(&self) -> &[String] {
        &self.significant
    }

    /// Forgets every signature; ids start again at 1.
    pub fn clear(&mut self) {
        self.ids.clear();
        self.next_id = 1;
    }

    /// How many signatures are known.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// `getClusterid` with expanded references: the job's autocluster id, and the
    /// attributes its signature was made of (`AutoClusterAttrs`: the significant ones, then
    /// the job's attributes they read).
    pub fn cluster_id(&mut self, ad: &ClassAd) -> (i64, Vec<String>) {
        let (signature, attrs) = signature(&self.significant, ad);
        let next = &mut self.next_id;
        let id = *self.ids.entry(signature).or_insert_with(|| {
            *next += 1;
            *next - 1
        });
        (id, attrs)
    }
}

/// A job's signature (`name = value` lines) and the names in it.
fn signature(significant: &[String], ad: &ClassAd) -> (String, Vec<String>) {
    let mut expanded = Names::default();
    for name in significant {
        if let Some(e) = ad.lookup(name) {
            job_refs(ad, e, &mut expanded, 0);
        }
    }
    let mut names: Vec<String> = significant.to_vec();
    names.extend(
        expanded
            .iter()
            .filter(|n| !significant.iter().any(|s| s.eq_ignore_ascii_case(n)))
            .map(str::to_owned),
    );
    let mut text = String::new();
    for name in &names {
        text.push_str(name);
        text.push_str(" = ");
        if let Some(e) = ad.lookup(name) {
            text.push_str(&expr_to_string(e));
        }
        text.push('\n');
    }
    (text, names)
}

/// The names of the job's own attributes an expression reads (followed into them), and the
/// bare names it does not have (`GetInternalReferences`, and `GetExternalReferences` less the
/// dotted names: `TARGET.x` is the slot's).
fn job_refs(ad: &ClassAd, e: &Expr, out: &mut Names, depth: u32) {
    if depth > MAX_DEPTH {
        return;
    }
    let name = |n: &str, bare: bool, out: &mut Names| match ad.lookup(n) {
        Some(found) => {
            let seen = out.contains(n);
            out.insert(n);
            if !seen {
                job_refs(ad, found, out, depth + 1);
            }
        }
        None if bare => out.insert(n),
        None => {}
    };
    match e {
        Expr::Lit(_)
        | Expr::Scoped {
            scope: ScopeKw::Target,
            ..
        } => {}
        Expr::Attr(n) => name(n, true, out),
        Expr::Absolute(n)
        | Expr::Scoped {
            scope: ScopeKw::My,
            name: n,
            ..
        } => name(n, false, out),
        Expr::Select(base, _) | Expr::Unary(_, base) | Expr::Paren(base) => {
            job_refs(ad, base, out, depth + 1)
        }
        Expr::Binary { lhs, rhs, .. } => {
            job_refs(ad, lhs, out, depth + 1);
            job_refs(ad, rhs, out, depth + 1);
        }
        Expr::Ternary(a, b, c) => {
            for x in [a, b, c] {
                job_refs(ad, x, out, depth + 1);
            }
        }
        Expr::Call(call) => {
            for x in call.args.iter() {
                job_refs(ad, x, out, depth + 1);
            }
        }
        Expr::List(items) => {
            for x in items.iter() {
                job_refs(ad, x, out, depth + 1);
            }
        }
        Expr::Ad(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_old_ad;

    fn ad(text: &str) -> ClassAd {
        parse_old_ad(text).unwrap()
    }

    #[test]
    fn jobs_are_numbered_by_signature_with_the_attributes_their_values_read() {
        let mut jc = JobClusters::new();
        assert!(jc.set_significant(&["RequestMemory".into(), "Requirements".into()], false));
        let a = ad("Requirements = TARGET.Memory >= RequestMemory && Foo\nRequestMemory = 100\nArgs = \"1\"");
        let b = ad("Requirements = TARGET.Memory >= RequestMemory && Foo\nRequestMemory = 100\nArgs = \"2\"");
        let c = ad("Requirements = TARGET.Memory >= RequestMemory && Foo\nRequestMemory = 200");
        let (ia, attrs) = jc.cluster_id(&a);
        assert_eq!(ia, 1);
        // Foo is read but missing: it counts (as an undefined value); TARGET.Memory does not.
        assert_eq!(attrs, ["RequestMemory", "Requirements", "Foo"]);
        assert_eq!(jc.cluster_id(&b).0, 1);
        assert_eq!(jc.cluster_id(&c).0, 2);
        // Adding an attribute starts the numbering again; the same list does not.
        assert!(!jc.set_significant(&["RequestMemory".into()], false));
        assert_eq!(jc.len(), 2);
        assert!(jc.set_significant(&["Args".into()], false));
        assert!(jc.is_empty());
        assert_eq!(jc.cluster_id(&b).0, 1);
        assert_eq!(jc.cluster_id(&a).0, 2);
    }

    #[test]
    fn the_negotiators_list_is_what_slots_read_from_jobs() {
        let slot = ad(
            "Memory = 100\nRequirements = START && TARGET.RequestMemory <= Memory\n\
             START = TARGET.RequestCpus <= 1 && CurrentTime > 0\nChildCpus = { 1, 2 }",
        );
        let prio =
            crate::classad::parser::parse_old_expr("RemoteUserPrio > 1 && TARGET.JobPrio > 0")
                .unwrap();
        let got = negotiator_significant([&slot], &[&prio], None).unwrap();
        assert_eq!(got, ["JobPrio", "RequestCpus", "RequestMemory"]);
        assert_eq!(negotiator_significant([], &[], None), None);
    }
}
