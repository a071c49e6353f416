//! Autoclusters: jobs that the negotiator cannot tell apart, so that one evaluation against the
//! slots serves them all (the schedd's `AutoCluster`, src/condor_schedd.V6/autocluster.cpp).
//!
//! Two jobs are in the same autocluster when they agree on every significant attribute and on
//! every attribute those refer to, recursively (the schedd's "expanded references"). The
//! significant attributes are `SIGNIFICANT_ATTRIBUTES` when configured, else every name the slot
//! ads' expressions and the negotiator's policy expressions mention; `Requirements`, `Rank`,
//! `NiceUser` and `ConcurrencyLimits` always count. Since the job attributes any evaluation can
//! read are among these, every job of an autocluster evaluates exactly as its representative.
//!
//! The index lives across cycles: a job keeps its autocluster as long as its ad is the same
//! ad (shared, not merely equal: ads are copy-on-write, so any change to a job's ad makes a new
//! one), and the whole index starts over when the significant attributes change.

use std::hash::{Hash, Hasher};

use super::job::JobId;
use super::refs::{self, hash_opt_expr, opt_expr_eq, FxHasher, FxMap};
use crate::classad::{ClassAd, Expr};

/// The attributes that are significant whatever the slots say (the schedd's
/// `MinimalSigAttrs`).
pub const MINIMAL_SIGNIFICANT: &[&str] = &["requirements", "rank", "niceuser", "concurrencylimits"];

/// Attributes the negotiator sets on the request itself, never significant.
pub const EPHEMERAL_REQUEST_ATTRS: &[&str] = &[
    "currenttime",
    "remoteuserprio",
    "remoteuserresourcesinuse",
    "remotegroupresourcesinuse",
    "submittorprio",
    "submitteruserprio",
    "submitteruserresourcesinuse",
    "submittergroupresourcesinuse",
    "submittergroup",
    "submittergroupquota",
    "submitternegotiatinggroup",
    "submitterautoregroup",
];

struct Cluster {
    rep: ClassAd,
    key: Vec<(String, Option<Expr>)>,
    /// How many of the last cycle's jobs are in it.
    jobs: usize,
}

/// The autocluster index.
#[derive(Default)]
pub struct Autoclusters {
    basis: Vec<String>,
    /// The last cycle's jobs, in the order they came: a daemon offers its jobs in much the same
    /// order every cycle, so most jobs are found at their old position without hashing.
    prev: Vec<(JobId, ClassAd, u32)>,
    next: Vec<(JobId, ClassAd, u32)>,
    /// `prev` by job id, built only when a job is not at its old position.
    by_id: Option<FxMap<JobId, usize>>,
    index: FxMap<u64, Vec<u32>>,
    clusters: Vec<Cluster>,
}

impl std::fmt::Debug for Autoclusters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Autoclusters")
            .field("basis", &self.basis)
            .field("jobs", &self.prev.len())
            .field("clusters", &self.clusters.len())
            .finish()
    }
}

impl Autoclusters {
    pub fn new() -> Autoclusters {
        Autoclusters::default()
    }

    /// Sets the significant attributes (lower-cased names); the index starts over when they
    /// change.
    pub fn set_significant(&mut self, names: impl IntoIterator<Item = String>) {
        let mut basis: Vec<String> = names
            .into_iter()
            .map(|n| n.to_ascii_lowercase())
            .chain(MINIMAL_SIGNIFICANT.iter().map(|s| s.to_string()))
            .filter(|n| !EPHEMERAL_REQUEST_ATTRS.contains(&n.as_str()))
            .collect();
        basis.sort();
        basis.dedup();
        if basis != self.basis {
            self.basis = basis;
            self.clear();
        }
    }

    fn clear(&mut self) {
        self.prev.clear();
        self.next.clear();
        self.by_id = None;
        self.index.clear();
        self.clusters.clear();
    }

    pub fn significant(&self) -> &[String] {
        &self.basis
    }

    /// Starts a cycle: the jobs assigned until [`end_cycle`](Self::end_cycle) are the ones
    /// remembered for the next.
    pub fn begin_cycle(&mut self) {
        self.next.clear();
        self.by_id = None;
    }

    /// Ends a cycle. When most autoclusters have no jobs left, the index starts over
    /// (autocluster numbers are only meaningful within one cycle).
    pub fn end_cycle(&mut self) {
        std::mem::swap(&mut self.prev, &mut self.next);
        self.next.clear();
        self.by_id = None;
        for c in &mut self.clusters {
            c.jobs = 0;
        }
        for (_, _, ac) in &self.prev {
            self.clusters[*ac as usize].jobs += 1;
        }
        let live = self.clusters.iter().filter(|c| c.jobs > 0).count();
        if self.clusters.len() > 1024 && live * 2 < self.clusters.len() {
            self.clear();
        }
    }

    /// The autocluster of the `pos`-th job of this cycle.
    pub fn assign(&mut self, pos: usize, id: JobId, ad: &ClassAd) -> u32 {
        let known = match self.prev.get(pos) {
            Some((pid, pad, ac)) if *pid == id && pad.ptr_eq(ad) => Some(*ac),
            _ => {
                let prev = &self.prev;
                let by_id = self.by_id.get_or_insert_with(|| {
                    prev.iter()
                        .enumerate()
                        .map(|(i, (id, _, _))| (*id, i))
                        .collect()
                });
                by_id
                    .get(&id)
                    .map(|&i| &self.prev[i])
                    .filter(|(_, pad, _)| pad.ptr_eq(ad))
                    .map(|(_, _, ac)| *ac)
            }
        };
        let ac = match known {
            Some(ac) => ac,
            None => self.classify(ad),
        };
        self.next.push((id, ad.clone(), ac));
        ac
    }

    fn classify(&mut self, ad: &ClassAd) -> u32 {
        let mut names = self.basis.clone();
        let mut h = FxHasher::default();
        let mut i = 0;
        while i < names.len() {
            let value = ad.lookup(&names[i]);
            names[i].hash(&mut h);
            hash_opt_expr(value, &mut h);
            if let Some(e) = value {
                for name in refs::references(e).names {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            i += 1;
        }
        let hash = h.finish();
        let found = self.index.get(&hash).and_then(|candidates| {
            candidates.iter().copied().find(|&c| {
                let key = &self.clusters[c as usize].key;
                key.len() == names.len()
                    && key
                        .iter()
                        .zip(&names)
                        .all(|((kn, kv), sn)| kn == sn && opt_expr_eq(kv.as_ref(), ad.lookup(sn)))
            })
        });
        if let Some(ac) = found {
            return ac;
        }
        let ac = self.clusters.len() as u32;
        let key = names
            .into_iter()
            .map(|n| {
                let v = ad.lookup(&n).cloned();
                (n, v)
            })
            .collect();
        self.clusters.push(Cluster {
            rep: ad.clone(),
            key,
            jobs: 0,
        });
        self.index.entry(hash).or_default().push(ac);
        ac
    }

    /// The job whose ad stands for autocluster `ac`.
    pub fn representative(&self, ac: u32) -> &ClassAd {
        &self.clusters[ac as usize].rep
    }

    /// The attribute names (lower-cased) that define autocluster `ac`.
    pub fn key_names(&self, ac: u32) -> impl Iterator<Item = &str> {
        self.clusters[ac as usize]
            .key
            .iter()
            .map(|(n, _)| n.as_str())
    }

    /// How many autoclusters there are.
    pub fn len(&self) -> usize {
        self.clusters.len()
    }

    pub fn is_empty(&self) -> bool {
        self.clusters.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;

    #[test]
    fn jobs_differing_only_in_insignificant_attributes_share_an_autocluster() {
        let mut acs = Autoclusters::new();
        acs.set_significant(["RequestMemory".to_string()]);
        let a = parse_ad(
            r#"[Requirements = TARGET.Memory >= RequestMemory; RequestMemory = 100; Args = "1"]"#,
        )
        .unwrap();
        let b = parse_ad(
            r#"[Requirements = TARGET.Memory >= RequestMemory; RequestMemory = 100; Args = "2"]"#,
        )
        .unwrap();
        let c = parse_ad(
            r#"[Requirements = TARGET.Memory >= RequestMemory; RequestMemory = 200; Args = "3"]"#,
        )
        .unwrap();
        // The Requirements mention MyMem, which becomes significant through them.
        let d =
            parse_ad(r#"[Requirements = TARGET.Memory >= MyMem; MyMem = 1; RequestMemory = 100]"#)
                .unwrap();
        let e =
            parse_ad(r#"[Requirements = TARGET.Memory >= MyMem; MyMem = 2; RequestMemory = 100]"#)
                .unwrap();
        acs.begin_cycle();
        let ids: Vec<u32> = [&a, &b, &c, &d, &e]
            .iter()
            .enumerate()
            .map(|(i, ad)| acs.assign(i, JobId::new(1, i as i32), ad))
            .collect();
        acs.end_cycle();
        assert_eq!(ids, [0, 0, 1, 2, 3]);
        assert!(acs.key_names(2).any(|n| n == "mymem"));
        // The same ad again (at another position): no work; a changed ad: classified again.
        acs.begin_cycle();
        assert_eq!(acs.assign(3, JobId::new(1, 0), &a), 0);
        let mut a2 = a.clone();
        a2.insert("RequestMemory", Expr::lit(200i64));
        assert_eq!(acs.assign(0, JobId::new(1, 1), &a2), 1);
        acs.end_cycle();
        acs.set_significant(["RequestMemory".to_string(), "Args".to_string()]);
        assert!(acs.is_empty());
    }
}
