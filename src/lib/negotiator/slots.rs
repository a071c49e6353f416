//! Slots during a cycle: what kind each is, who holds it, what it weighs, and, for a
//! partitionable slot, how a job consumes it (HTCondor's consumption policies,
//! src/condor_utils/consumption_policy.cpp, as the negotiator applies them).
//!
//! Every partitionable slot is consumed negotiator-side: a job takes, of each resource the slot
//! has (`MachineResources`, by default `Cpus Memory Disk`), what the slot's
//! `Consumption<Resource>` expression says (the slot is MY, the job TARGET), or where the slot has
//! none, what `MODIFY_REQUEST_EXPR_REQUESTCPUS`/`...MEMORY`/`...DISK` say, or for another resource
//! (GPUs, ...) its `Request<Resource>`. The match costs `SlotWeight` before minus after.

use std::sync::Arc;

use super::config::NegotiatorConfig;
use crate::accountant::{resource_name, slot_weight, string_attr};
use crate::classad::ast::Expr;
use crate::classad::eval::{Eval, Frame};
use crate::classad::{ClassAd, Value};

/// What kind of slot an ad describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    Static,
    Partitionable,
    Dynamic,
}

/// A slot as the cycle works on it.
#[derive(Clone, Debug)]
pub struct Slot {
    /// Its index in the cycle's input.
    pub index: usize,
    /// The ad, with the negotiator's additions and, for a partitionable slot, what this
    /// cycle's matches consumed.
    pub ad: ClassAd,
    pub name: String,
    /// The accountant's name for it.
    pub resource: String,
    pub kind: SlotKind,
    /// `Claimed` or `Preempting`.
    pub claimed: bool,
    /// The customer a preemption would displace: `PreemptingAccountingGroup`,
    /// `PreemptingUser`, `AccountingGroup`, else `RemoteUser`.
    pub remote_user: Option<String>,
    /// What the accountant charges for the whole slot.
    pub weight: f64,
    /// Still offered in this cycle.
    pub available: bool,
    /// For a partitionable slot: its resources and how they are consumed.
    pub consumption: Option<Arc<[Consumable]>>,
    /// The slot advertises a consumption policy (HTCondor's `cp_supports_policy`): it is
    /// partitionable, has `MachineResources` and a `Consumption<Resource>` for each of them
    /// but `Swap`. HTCondor charges a match to such a slot what the job consumes; a match to
    /// any other slot costs its whole `SlotWeight`.
    pub consumption_policy: bool,
}

/// One resource of a partitionable slot.
#[derive(Clone, Debug)]
pub struct Consumable {
    /// The slot attribute holding what is left (`Cpus`, `Memory`, `GPUs`).
    pub resource: String,
    /// The job attribute requesting it (`RequestCpus`).
    pub request: String,
    /// How much a job consumes (MY = slot, TARGET = job).
    pub expr: Expr,
}

fn is_true(ad: &ClassAd, name: &str) -> bool {
    matches!(ad.eval_attr(name), Value::Bool(true))
}

impl Slot {
    pub fn new(index: usize, ad: ClassAd, cfg: &NegotiatorConfig) -> Slot {
        let kind = if is_true(&ad, "PartitionableSlot") {
            SlotKind::Partitionable
        } else if is_true(&ad, "DynamicSlot") {
            SlotKind::Dynamic
        } else {
            SlotKind::Static
        };
        let state = string_attr(&ad, "State").unwrap_or_default();
        let claimed =
            state.eq_ignore_ascii_case("Claimed") || state.eq_ignore_ascii_case("Preempting");
        let remote_user = [
            "PreemptingAccountingGroup",
            "PreemptingUser",
            "AccountingGroup",
            "RemoteUser",
        ]
        .iter()
        .find_map(|a| string_attr(&ad, a));
        let consumption = (kind == SlotKind::Partitionable).then(|| consumables(&ad, cfg));
        let consumption_policy = kind == SlotKind::Partitionable && supports_policy(&ad);
        Slot {
            index,
            name: string_attr(&ad, "Name").unwrap_or_default(),
            resource: resource_name(&ad),
            weight: slot_weight(&ad, cfg.use_slot_weights),
            kind,
            claimed,
            remote_user,
            available: true,
            consumption,
            consumption_policy,
            ad,
        }
    }

    /// What a job consumes of each resource (negative: the policy failed), the job as `job`.
    pub fn consumption_of(&self, job: &ClassAd) -> Vec<f64> {
        let Some(cons) = &self.consumption else {
            return Vec::new();
        };
        // A job without a RequestXxx consumes as though it asked for 0 (HTCondor inserts the
        // attribute for the evaluation).
        let mut zeroed: Option<ClassAd> = None;
        for c in cons.iter() {
            if job.lookup(&c.request).is_none() {
                zeroed
                    .get_or_insert_with(|| job.clone())
                    .insert(&c.request, Expr::lit(0i64));
            }
        }
        let job = zeroed.as_ref().unwrap_or(job);
        cons.iter()
            .map(|c| {
                let mut cx = Eval::new(Some(&self.ad), Some(job));
                let v = cx.eval(&c.expr, &Frame::My);
                match v.as_number_real() {
                    Some(x) if !cx.failed() && x >= 0.0 => x,
                    Some(x) if x < 0.0 => x,
                    _ => -999.0,
                }
            })
            .collect()
    }

    /// Whether the slot has enough of every resource for `amounts` (HTCondor's
    /// `cp_sufficient_assets`): nothing negative, something positive.
    pub fn sufficient(&self, amounts: &[f64]) -> bool {
        let Some(cons) = &self.consumption else {
            return true;
        };
        let mut positive = false;
        for (c, &want) in cons.iter().zip(amounts) {
            let Some(have) = self.ad.eval_attr(&c.resource).as_number_real() else {
                return false;
            };
            if have < want || want < 0.0 {
                return false;
            }
            positive |= want > 0.0;
        }
        positive
    }

    /// The job's ad with its `Request<Resource>` attributes replaced by what it would consume
    /// (HTCondor's `cp_override_requested`), for evaluating the match.
    pub fn overridden(&self, job: &ClassAd, amounts: &[f64]) -> ClassAd {
        let mut ad = job.clone();
        if let Some(cons) = &self.consumption {
            for (c, &x) in cons.iter().zip(amounts) {
                if ad.lookup(&c.request).is_some() {
                    ad.insert(&c.request, number(x));
                }
            }
        }
        ad
    }

    /// The weight a match's cost is measured in: `SlotWeight`, else `Cpus`.
    fn cost_weight(ad: &ClassAd) -> f64 {
        let v = match ad.lookup("SlotWeight") {
            Some(_) => ad.eval_attr("SlotWeight"),
            None => ad.eval_attr("Cpus"),
        };
        v.as_number_real().unwrap_or(0.0)
    }

    /// What consuming `amounts` costs: the weight before minus after.
    pub fn cost_of(&self, amounts: &[f64]) -> f64 {
        let before = Self::cost_weight(&self.ad);
        let after = if self.ad.chained().is_none() {
            // The resources left, over the slot's ad: nothing else is copied.
            let mut left = ClassAd::new();
            if let Some(cons) = &self.consumption {
                for (c, &x) in cons.iter().zip(amounts) {
                    let have = self
                        .ad
                        .eval_attr(&c.resource)
                        .as_number_real()
                        .unwrap_or(0.0);
                    left.insert(&c.resource, number(have - x));
                }
            }
            left.chain_to(self.ad.clone());
            left
        } else {
            let mut after = self.ad.clone();
            self.deduct_into(&mut after, amounts);
            after
        };
        before - Self::cost_weight(&after)
    }

    /// Takes `amounts` from the slot; returns the match cost.
    pub fn consume(&mut self, amounts: &[f64]) -> f64 {
        let before = Self::cost_weight(&self.ad);
        let mut ad = std::mem::take(&mut self.ad);
        self.deduct_into(&mut ad, amounts);
        self.ad = ad;
        before - Self::cost_weight(&self.ad)
    }

    fn deduct_into(&self, ad: &mut ClassAd, amounts: &[f64]) {
        if let Some(cons) = &self.consumption {
            for (c, &x) in cons.iter().zip(amounts) {
                let have = ad.eval_attr(&c.resource).as_number_real().unwrap_or(0.0);
                ad.insert(&c.resource, number(have - x));
            }
        }
    }
}

/// A number as HTCondor's `assign_preserve_integers` writes it.
fn number(x: f64) -> Expr {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Expr::lit(x as i64)
    } else {
        Expr::lit(x)
    }
}

/// HTCondor's `cp_supports_policy` (src/condor_utils/consumption_policy.cpp), for a slot known
/// to be partitionable: `MachineResources`, and `Consumption<Resource>` for each but `Swap`.
fn supports_policy(ad: &ClassAd) -> bool {
    string_attr(ad, "MachineResources").is_some_and(|list| {
        consumed_resources(&list).all(|r| ad.lookup(&format!("Consumption{r}")).is_some())
    })
}

/// The resources of a `MachineResources` list that jobs consume (all but `Swap`).
fn consumed_resources(list: &str) -> impl Iterator<Item = &str> {
    list.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("swap"))
}

/// The resources of a partitionable slot and how each is consumed.
fn consumables(ad: &ClassAd, cfg: &NegotiatorConfig) -> Arc<[Consumable]> {
    let names: Vec<String> = match string_attr(ad, "MachineResources") {
        Some(list) => consumed_resources(&list).map(str::to_owned).collect(),
        None => vec!["Cpus".into(), "Memory".into(), "Disk".into()],
    };
    names
        .into_iter()
        .map(|resource| {
            let request = format!("Request{resource}");
            let expr = match ad.lookup(&format!("Consumption{resource}")) {
                Some(e) => e.clone(),
                None if resource.eq_ignore_ascii_case("Cpus") => cfg.modify_request_cpus.clone(),
                None if resource.eq_ignore_ascii_case("Memory") => {
                    cfg.modify_request_memory.clone()
                }
                None if resource.eq_ignore_ascii_case("Disk") => cfg.modify_request_disk.clone(),
                None => Expr::Attr(request.as_str().into()),
            };
            Consumable {
                resource,
                request,
                expr,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;

    fn pslot(extra: &str) -> Slot {
        let ad = parse_ad(&format!(
            "[Name = \"slot1@h\"; PartitionableSlot = true; Cpus = 10; Memory = 1903; Disk = 100000; SlotWeight = Cpus; {extra}]"
        ))
        .unwrap();
        Slot::new(0, ad, &NegotiatorConfig::default())
    }

    #[test]
    fn default_consumption_quantizes_requests() {
        let s = pslot("");
        let job = parse_ad("[RequestCpus = 1; RequestMemory = 100; RequestDisk = 1500]").unwrap();
        let amounts = s.consumption_of(&job);
        assert_eq!(amounts, [1.0, 128.0, 2048.0]);
        assert!(s.sufficient(&amounts));
        assert_eq!(s.cost_of(&amounts), 1.0);
        let over = s.overridden(&job, &amounts);
        assert_eq!(over.eval_attr("RequestMemory").as_int(), Some(128));
    }

    #[test]
    fn consumption_policy_and_custom_resources() {
        let mut s = pslot(
            "MachineResources = \"Cpus Memory Disk Swap GPUs\"; GPUs = 2; ConsumptionMemory = quantize(target.RequestMemory, {512})",
        );
        let job = parse_ad("[RequestCpus = 1; RequestMemory = 1; RequestGPUs = 1]").unwrap();
        let amounts = s.consumption_of(&job);
        // Disk: no RequestDisk, so quantize(0, {1024}): the first of the list at least 0.
        assert_eq!(amounts, [1.0, 512.0, 1024.0, 1.0]);
        for _ in 0..2 {
            assert!(s.sufficient(&amounts));
            assert_eq!(s.consume(&amounts), 1.0);
        }
        assert!(!s.sufficient(&amounts), "no GPU left");
        // A Consumption<Resource> for Memory only is no consumption policy.
        assert!(!s.consumption_policy);
        let full = pslot(
            "MachineResources = \"Cpus Memory Swap\"; ConsumptionCpus = 1; ConsumptionMemory = 1",
        );
        assert!(full.consumption_policy);
        assert_eq!(s.ad.eval_attr("Memory").as_int(), Some(1903 - 1024));
    }
}
