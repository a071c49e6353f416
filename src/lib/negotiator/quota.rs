//! Hierarchical group quotas, as HTCondor's `GroupEntry` computes them
//! (src/condor_negotiator.V6/GroupEntry.cpp).
//!
//! 1. Quotas: the pool (weighted, or counted in CPUs) is the root's subtree quota. Each group
//!    gives its children their quotas: static ones first, scaled down in proportion when they
//!    add up to more than the group has (unless `NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION`), then
//!    dynamic ones (fractions, scaled down when they add up to more than 1) out of what is left.
//!    A group keeps what its children did not take; `<none>` gets the pool minus all of it.
//! 2. Allocation ("fair share"): each group is allocated the smaller of its quota and its
//!    demand. Unused quota is surplus, shared bottom-up: among the children of a group (and the
//!    group itself) that accept surplus and still want more, in proportion to their quotas, then
//!    equally; what is left goes up a level. A group that does not accept surplus caps its
//!    subtree. With unweighted slots, fractional allocations are rounded down and the remainders
//!    handed out round-robin.
//! 3. Negotiation: groups negotiate in `GROUP_SORT_EXPR` order (by default the most starved
//!    first, `<none>` last), each up to its allocation (its quota, when no group accepts
//!    surplus), capped by `NEGOTIATOR_STRICT_ENFORCE_QUOTA`; rounds repeat (up to
//!    `GROUP_QUOTA_MAX_ALLOCATION_ROUNDS`) while allocations went unused.

use crate::accountant::groups::{GroupTree, ROOT_GROUP};

/// One group's numbers during a cycle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupState {
    /// The quota computed this cycle.
    pub quota: f64,
    /// Demand not yet allocated.
    pub requested: f64,
    /// Demand as submitted (weighted running plus idle jobs).
    pub currently_requested: f64,
    /// What the group is allowed this allocation round.
    pub allocated: f64,
    pub subtree_quota: f64,
    pub subtree_requested: f64,
    /// Weighted resources the group uses.
    pub usage: f64,
    pub subtree_usage: f64,
    rr: bool,
    rr_time: f64,
    subtree_rr_time: f64,
    /// `GROUP_SORT_EXPR`'s value.
    pub sort_key: f64,
}

/// The quota computation over a group tree.
#[derive(Clone, Debug)]
pub struct Hgq<'t> {
    pub tree: &'t GroupTree,
    pub g: Vec<GroupState>,
    pub allow_oversubscription: bool,
}

impl<'t> Hgq<'t> {
    pub fn new(tree: &'t GroupTree, allow_oversubscription: bool) -> Hgq<'t> {
        Hgq {
            tree,
            g: vec![GroupState::default(); tree.len()],
            allow_oversubscription,
        }
    }

    fn children(&self, i: usize) -> &[usize] {
        &self.tree.group(i).children
    }

    /// Step 1: every group's quota from the pool's size.
    pub fn assign_quotas(&mut self, i: usize, quota: f64) {
        if quota <= 0.0 {
            return;
        }
        self.g[i].subtree_quota = quota;
        let children = self.children(i).to_vec();
        let (mut sqsum, mut dqsum) = (0.0, 0.0);
        for &c in &children {
            let grp = self.tree.group(c);
            if grp.static_quota {
                sqsum += grp.config_quota;
            } else {
                dqsum += grp.config_quota;
            }
        }
        let sqa = if self.allow_oversubscription {
            sqsum
        } else {
            f64::min(sqsum, quota)
        };
        let dqa = f64::max(0.0, quota - sqa);
        let zs = if sqsum > 0.0 { sqsum } else { 1.0 };
        let zd = f64::max(dqsum, 1.0);
        let mut chq = 0.0;
        for &c in &children {
            let grp = self.tree.group(c);
            let q = if grp.static_quota {
                grp.config_quota * (sqa / zs)
            } else {
                grp.config_quota * (dqa / zd)
            };
            let q = q.max(0.0);
            self.assign_quotas(c, q);
            chq += q;
        }
        let mut own = if self.allow_oversubscription {
            quota
        } else {
            quota - chq
        };
        if self.tree.group(i).name == ROOT_GROUP {
            own = quota - chq;
        }
        self.g[i].quota = own.max(0.0);
    }

    fn accepts(&self, i: usize) -> bool {
        self.tree.group(i).accept_surplus
    }

    /// Step 2: allocations within quotas, then surplus; returns the surplus left at the top.
    pub fn fairshare(&mut self, i: usize) -> f64 {
        let s = &mut self.g[i];
        s.allocated = f64::min(s.requested, s.quota);
        s.requested -= s.allocated;
        s.subtree_requested = s.requested;
        let mut surplus = s.quota - s.allocated;
        let children = self.children(i).to_vec();
        if children.is_empty() {
            return surplus;
        }
        for &c in &children {
            surplus += self.fairshare(c);
            if self.accepts(c) {
                self.g[i].subtree_requested += self.g[c].subtree_requested;
            }
        }
        self.allocate_surplus(i, surplus)
    }

    /// The members of a level: the children, then the group itself (which competes for its
    /// own surplus as a child that accepts it).
    fn level(&self, i: usize) -> Vec<usize> {
        let mut v = self.children(i).to_vec();
        v.push(i);
        v
    }

    fn allocate_surplus(&mut self, i: usize, mut surplus: f64) -> f64 {
        if surplus <= 0.0 {
            return 0.0;
        }
        if self.g[i].subtree_requested <= 0.0 {
            return surplus;
        }
        let groups = self.level(i);
        let n = groups.len();
        let me = n - 1;
        let accept: Vec<bool> = (0..n).map(|j| j == me || self.accepts(groups[j])).collect();
        let sub_quota: Vec<f64> = (0..n)
            .map(|j| {
                if j == me {
                    self.g[i].quota
                } else {
                    self.g[groups[j]].subtree_quota
                }
            })
            .collect();
        let sub_req: Vec<f64> = (0..n)
            .map(|j| {
                if j == me {
                    self.g[i].requested
                } else {
                    self.g[groups[j]].subtree_requested
                }
            })
            .collect();
        let mut requested = self.g[i].subtree_requested;
        let mut allocated = vec![0.0; n];
        if surplus >= requested {
            for j in 0..n {
                if accept[j] && sub_req[j] > 0.0 {
                    allocated[j] = sub_req[j];
                }
            }
            surplus -= requested;
            requested = 0.0;
        } else {
            let mut want: Vec<f64> = (0..n)
                .map(|j| {
                    if accept[j] && sub_req[j] > 0.0 {
                        sub_req[j]
                    } else {
                        0.0
                    }
                })
                .collect();
            allocate_surplus_loop(
                true,
                &sub_quota,
                &mut allocated,
                &mut want,
                &mut surplus,
                &mut requested,
            );
            allocate_surplus_loop(
                false,
                &sub_quota,
                &mut allocated,
                &mut want,
                &mut surplus,
                &mut requested,
            );
        }
        for j in 0..me {
            if allocated[j] > 0.0 {
                self.allocate_surplus(groups[j], allocated[j]);
            }
        }
        self.g[i].allocated += allocated[me];
        self.g[i].requested -= allocated[me];
        self.g[i].subtree_requested = requested;
        surplus
    }

    /// Step 2, unweighted slots: rounds allocations down and hands the remainders out
    /// round-robin; returns what is left at the top.
    pub fn recover_remainders(&mut self, i: usize) -> f64 {
        let s = &mut self.g[i];
        let mut surplus = s.allocated - s.allocated.floor();
        s.allocated -= surplus;
        s.requested += surplus;
        s.allocated = (s.allocated + 0.5).floor();
        s.requested = (s.requested + 0.5).floor();
        s.subtree_requested = s.requested;
        s.subtree_rr_time = if s.requested > 0.0 {
            s.rr_time
        } else {
            f64::MAX
        };
        let children = self.children(i).to_vec();
        if children.is_empty() {
            return surplus;
        }
        for &c in &children {
            surplus += self.recover_remainders(c);
            if self.accepts(c) {
                self.g[i].subtree_requested += self.g[c].subtree_requested;
                if self.g[c].subtree_requested > 0.0 {
                    self.g[i].subtree_rr_time =
                        f64::min(self.g[i].subtree_rr_time, self.g[c].subtree_rr_time);
                }
            }
        }
        self.round_robin(i, surplus)
    }

    fn round_robin(&mut self, i: usize, mut surplus: f64) -> f64 {
        let st = self.g[i].subtree_requested;
        if st != st.floor() {
            self.g[i].subtree_requested = st.floor();
        }
        if self.g[i].subtree_requested <= 0.0 || surplus < 1.0 {
            return surplus;
        }
        let groups = self.level(i);
        let n = groups.len();
        let me = n - 1;
        let accept: Vec<bool> = (0..n).map(|j| j == me || self.accepts(groups[j])).collect();
        let sub_quota: Vec<f64> = (0..n)
            .map(|j| {
                if j == me {
                    self.g[i].quota
                } else {
                    self.g[groups[j]].subtree_quota
                }
            })
            .collect();
        let rr_time: Vec<f64> = (0..n)
            .map(|j| {
                if j == me {
                    self.g[i].rr_time
                } else {
                    self.g[groups[j]].subtree_rr_time
                }
            })
            .collect();
        let sub_req: Vec<f64> = (0..n)
            .map(|j| {
                if j == me {
                    self.g[i].requested
                } else {
                    self.g[groups[j]].subtree_requested
                }
            })
            .collect();
        let mut requested = self.g[i].subtree_requested;
        let mut want = vec![0.0; n];
        let mut outstanding = 0.0;
        for j in 0..n {
            if accept[j] && sub_req[j] > 0.0 {
                want[j] = sub_req[j];
                outstanding += 1.0;
            }
        }
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&a, &b| {
            rr_time[a]
                .total_cmp(&rr_time[b])
                .then(sub_quota[b].total_cmp(&sub_quota[a]))
                .then(sub_req[b].total_cmp(&sub_req[a]))
        });
        let mut allocated = vec![0.0; n];
        while surplus >= 1.0 && requested > 0.0 {
            let amax = f64::max(1.0, (surplus / outstanding).floor());
            outstanding = 0.0;
            let mut sumalloc = 0.0;
            for &j in &idx {
                if accept[j] && want[j] > 0.0 {
                    let a = f64::min(want[j], amax);
                    allocated[j] += a;
                    want[j] -= a;
                    sumalloc += a;
                    surplus -= a;
                    requested -= a;
                    if j == me {
                        self.g[i].rr = true;
                    } else {
                        self.g[groups[j]].rr = true;
                    }
                    if want[j] > 0.0 {
                        outstanding += 1.0;
                    }
                    if surplus < amax {
                        break;
                    }
                }
            }
            if sumalloc < 1.0 {
                break;
            }
        }
        for j in 0..me {
            if allocated[j] > 0.0 {
                self.round_robin(groups[j], allocated[j]);
            }
        }
        self.g[i].allocated += allocated[me];
        self.g[i].requested -= allocated[me];
        self.g[i].subtree_requested = requested;
        surplus
    }

    /// Sums usage up the tree.
    pub fn subtree_usage(&mut self, i: usize, usage: &dyn Fn(usize) -> f64) -> f64 {
        let mut sum = usage(i);
        for c in self.children(i).to_vec() {
            sum += self.subtree_usage(c, usage);
        }
        self.g[i].subtree_usage = sum;
        sum
    }

    /// `NEGOTIATOR_STRICT_ENFORCE_QUOTA`: caps a group's limit so that no ancestor that does
    /// not accept surplus goes over its quota. `slots` and the result are absolute.
    pub fn strict_enforce(&self, i: usize, slots: f64) -> f64 {
        let mut new_allocation = slots - self.g[i].usage;
        let mut at = Some(i);
        while let Some(l) = at {
            let grp = self.tree.group(l);
            if !grp.accept_surplus {
                let available = if grp.static_quota {
                    grp.config_quota - self.g[l].subtree_usage
                } else {
                    self.g[l].subtree_quota - self.g[l].subtree_usage
                };
                let available = available.max(0.0);
                if new_allocation > available {
                    new_allocation = available;
                }
            }
            at = grp.parent;
        }
        new_allocation + self.g[i].usage
    }

    /// Marks round-robin service at the end of the cycle.
    pub fn finish(&mut self, now: f64) {
        for s in &mut self.g {
            if s.rr || s.requested <= 0.0 {
                s.rr_time = now;
            }
        }
    }
}

/// HTCondor's `hgq_allocate_surplus_loop`: shares `surplus` among the members still wanting,
/// in proportion to their quotas (`by_quota`) or equally.
fn allocate_surplus_loop(
    by_quota: bool,
    sub_quota: &[f64],
    allocated: &mut [f64],
    want: &mut [f64],
    surplus: &mut f64,
    requested: &mut f64,
) {
    while *surplus > 0.0 {
        let mut z = 0.0;
        for j in 0..want.len() {
            if want[j] > 0.0 {
                z += if by_quota { sub_quota[j] } else { 1.0 };
            }
        }
        if z <= 0.0 {
            break;
        }
        let mut never_gt = true;
        let mut sumalloc = 0.0;
        for j in 0..want.len() {
            if want[j] > 0.0 {
                let share = if by_quota { sub_quota[j] } else { 1.0 };
                let mut a = *surplus * (share / z);
                if a > want[j] {
                    a = want[j];
                    never_gt = false;
                }
                allocated[j] += a;
                want[j] -= a;
                sumalloc += a;
            }
        }
        *surplus -= sumalloc;
        *requested -= sumalloc;
        if never_gt || *surplus < 0.0 {
            *surplus = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accountant::groups::GroupSpec;

    fn quotas(tree: &GroupTree, pool: f64, oversub: bool) -> Vec<(String, f64)> {
        let mut h = Hgq::new(tree, oversub);
        h.assign_quotas(0, pool);
        tree.breadth_first()
            .iter()
            .map(|&i| (tree.group(i).name.clone(), h.g[i].quota))
            .collect()
    }

    fn physics_chemistry(dynamic: bool) -> GroupTree {
        let spec = |n: &str, q: f64, d: f64| {
            if dynamic {
                GroupSpec::new(n).dynamic(d)
            } else {
                GroupSpec::new(n).quota(q)
            }
        };
        GroupTree::build(
            vec![
                spec("group_physics", 20.0, 2.0 / 3.0),
                spec("group_chemistry", 10.0, 1.0 / 3.0),
            ],
            false,
            false,
        )
    }

    #[test]
    fn static_quotas_and_the_power_failure() {
        let t = physics_chemistry(false);
        let q = |pool| quotas(&t, pool, false);
        assert_eq!(
            q(30.0),
            [
                ("<none>".into(), 0.0),
                ("group_chemistry".into(), 10.0),
                ("group_physics".into(), 20.0)
            ]
        );
        // Half the pool gone: scaled in proportion.
        assert_eq!(
            q(15.0)[1..],
            [
                ("group_chemistry".into(), 5.0),
                ("group_physics".into(), 10.0)
            ]
        );
        // Twice the pool: not scaled up; the rest is <none>'s.
        assert_eq!(
            q(60.0),
            [
                ("<none>".into(), 30.0),
                ("group_chemistry".into(), 10.0),
                ("group_physics".into(), 20.0)
            ]
        );
        // With oversubscription allowed nothing is scaled.
        assert_eq!(quotas(&t, 15.0, true)[2].1, 20.0);
    }

    #[test]
    fn dynamic_quotas_follow_the_pool() {
        let t = physics_chemistry(true);
        for pool in [30.0, 15.0, 60.0] {
            let q = quotas(&t, pool, false);
            assert!((q[1].1 - pool / 3.0).abs() < 1e-9 && (q[2].1 - 2.0 * pool / 3.0).abs() < 1e-9);
        }
    }

    #[test]
    fn surplus_is_shared_bottom_up_within_a_capped_parent() {
        // physics (20, no surplus) over hep (15) and lep (5), which accept surplus.
        let t = GroupTree::build(
            vec![
                GroupSpec::new("group_physics")
                    .quota(20.0)
                    .accept_surplus(false),
                GroupSpec::new("group_physics.hep")
                    .quota(15.0)
                    .accept_surplus(true),
                GroupSpec::new("group_physics.lep")
                    .quota(5.0)
                    .accept_surplus(true),
                GroupSpec::new("group_chemistry").quota(10.0),
            ],
            false,
            false,
        );
        let mut h = Hgq::new(&t, false);
        h.assign_quotas(0, 30.0);
        let id = |n| t.find(n).unwrap();
        h.g[id("group_physics.lep")].requested = 60.0;
        h.g[id("group_chemistry")].requested = 60.0;
        let left = h.fairshare(0);
        assert_eq!(h.g[id("group_physics.lep")].allocated, 20.0);
        assert_eq!(h.g[id("group_physics.hep")].allocated, 0.0);
        assert_eq!(h.g[id("group_chemistry")].allocated, 10.0);
        assert_eq!(left, 0.0);
    }
}
