//! The slots a job is analyzed against (`startdAds`): fetched from the master or read from
//! a `-slotads` file, and the drain simulations of partitionable slots (p-slot overlays).

use std::collections::HashMap;
use std::io::Write;

use super::Options;
use crate::classad::analysis::Names;
use crate::classad::parser::{parse_old_ads, parse_old_expr};
use crate::classad::{eval_expr, ClassAd};
use crate::client::master::{self, AdKind, MasterError};
use crate::config::Config;
use crate::error::CommandError;
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::queue::constraint_holds;

/// Which slots the run analysis matches a job against (`anaMatchMode*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum MatchMode {
    /// Every slot, dynamic ones included.
    Always = 1,
    /// Static and partitionable slots, the latter drained when the job does not fit.
    Pslot = 2,
}

/// One slot ad of the collection, or a drain simulation of a partitionable slot.
pub(super) struct SlotAd {
    pub(super) ad: ClassAd,
    /// The dynamic slot id of a dynamic slot; for a partitionable slot with a drain
    /// simulation, minus the simulation's index, and for the simulation minus the slot's.
    pub(super) sub_id: i64,
    /// The machine (its index among the machines seen).
    pub(super) group: usize,
    /// A drain simulation: chained to the slot it simulates.
    pub(super) overlay: bool,
}

/// The slots analysis runs against (`startdAds`).
pub(in crate::tools::q) struct Slots {
    /// In the order fetched, drain simulations appended.
    pub(super) ads: Vec<SlotAd>,
    /// The fetched ads by machine, slot id, dynamic slot id and name.
    pub(super) by_key: Vec<usize>,
    pub(super) groups: usize,
    num_dynamic: usize,
    num_overlay_candidates: usize,
    pub(super) num_overlay_ads: usize,
    pub(super) longest_machine: usize,
    pub(super) longest_name: usize,
    /// `-machine` named one machine or slot: its name.
    pub(super) single_machine: Option<String>,
    pub(super) mode: MatchMode,
}

impl Slots {
    pub(super) fn new(ads: Vec<ClassAd>) -> Slots {
        let mut slots = Slots {
            ads: Vec::with_capacity(ads.len()),
            by_key: Vec::new(),
            groups: 0,
            num_dynamic: 0,
            num_overlay_candidates: 0,
            num_overlay_ads: 0,
            longest_machine: 0,
            longest_name: 0,
            single_machine: None,
            mode: MatchMode::Pslot,
        };
        let mut machines: HashMap<String, usize> = HashMap::new();
        let mut keys = Vec::with_capacity(ads.len());
        for (n, ad) in ads.into_iter().enumerate() {
            let machine = lookup_str(&ad, "Machine")
                .map(|s| s.to_string())
                .unwrap_or_default();
            slots.longest_machine = slots.longest_machine.max(machine.len());
            let slot_id = lookup_int(&ad, "SlotID").unwrap_or(0);
            let mut key = format!("{machine}/{slot_id:03}");
            let mut sub_id = 0;
            if let Some(d) = lookup_int(&ad, "DSlotId") {
                key.push_str(&format!(".{d:03}"));
                slots.num_dynamic += 1;
                sub_id = d;
            } else if let Some(p) = lookup_bool(&ad, "PartitionableSlot") {
                if p {
                    slots.num_overlay_candidates += 1;
                }
            }
            if let Some(name) = lookup_str(&ad, "Name") {
                slots.longest_name = slots.longest_name.max(name.len());
                key.push('/');
                key.push_str(&name);
            }
            key.push_str(&format!("/{:010}", n + 1));
            let next = machines.len();
            let group = *machines.entry(machine).or_insert(next);
            slots.groups = machines.len();
            keys.push((key, slots.ads.len()));
            slots.ads.push(SlotAd {
                ad,
                sub_id,
                group,
                overlay: false,
            });
        }
        keys.sort();
        slots.by_key = keys.into_iter().map(|(_, i)| i).collect();
        slots
    }

    pub(super) fn name(&self, index: usize) -> String {
        lookup_str(&self.ads[index].ad, "Name")
            .map(|s| s.to_string())
            .unwrap_or_default()
    }
}

/// `is_slot_name` (24.x): only name characters, and more than one dot (its test for an `@`
/// looks at the end of the string, so never succeeds).
fn is_slot_name(s: &str) -> bool {
    s.chars()
        .all(|c| c == '-' || c == '.' || c == '@' || c == '_' || c.is_ascii_alphanumeric())
        && s.matches('.').count() > 1
}

fn fetch_failed(err: &mut dyn Write) -> CommandError {
    let _ = writeln!(err, "Error:  Could not fetch startd ads");
    CommandError::Exit(1)
}

/// The slots could not be fetched because no master runs: HTCondor's line, and how to start
/// one.
fn no_master(config: &Config, err: &mut dyn Write) -> CommandError {
    let e = fetch_failed(err);
    let _ = writeln!(err, "{}", master::start_hint(config));
    e
}

/// `setupAnalysis`: the slot ads to analyze against.
pub(in crate::tools::q) fn fetch_slots(
    config: &Config,
    o: &Options,
    err: &mut dyn Write,
) -> Result<Slots, CommandError> {
    if o.verbose {
        let _ = write!(err, "Fetching Slot ads...");
    }
    let mut slot_constraint = o.mconstraint.clone();
    let mut slot_name = o.machine.clone();
    if let Some(c) = &slot_constraint {
        if slot_name.is_none() && is_slot_name(c) {
            slot_name = Some(c.clone());
            slot_constraint = None;
        }
    }
    let mut constraints: Vec<String> = slot_constraint.iter().cloned().collect();
    let mut single_machine = None;
    let mut likely_single_slot = false;
    if let Some(n) = &slot_name {
        if slot_constraint.is_none() {
            single_machine = Some(n.clone());
        }
        likely_single_slot = n.contains('@');
        constraints.push(format!("(Name==\"{n}\" || Machine==\"{n}\")"));
    }
    let ads = match &o.slotads {
        Some(file) => {
            if o.verbose {
                let text = constraints
                    .iter()
                    .map(|c| format!("({c})"))
                    .collect::<Vec<_>>()
                    .join(" && ");
                let _ = writeln!(err, "from file with constraint: {text}");
            }
            let mut parsed = Vec::new();
            for c in &constraints {
                match parse_old_expr(c) {
                    Ok(e) => parsed.push(e),
                    Err(e) => {
                        let _ = writeln!(err, "Error: invalid constraint {c}: {e}");
                        return Err(CommandError::Exit(1));
                    }
                }
            }
            let text = if file == "-" {
                let mut s = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map(|_| s)
            } else {
                std::fs::read_to_string(file)
            };
            let Ok(text) = text else {
                let _ = writeln!(err, "Can't open file of ClassAds: {file}");
                return Err(CommandError::Exit(1));
            };
            let ads = parse_old_ads(&text).map_err(|e| {
                let _ = writeln!(err, "{file}: {e}");
                CommandError::Exit(1)
            })?;
            ads.into_iter()
                .filter(|ad| parsed.iter().all(|c| constraint_holds(c, ad)))
                .collect::<Vec<_>>()
        }
        None => {
            if !likely_single_slot {
                let mut mentioned = Names::default();
                for c in &constraints {
                    if let Ok(e) = parse_old_expr(c) {
                        for n in crate::negotiator::refs::references(&e).names {
                            mentioned.insert(&n);
                        }
                    }
                }
                if !["PartitionableSlot", "DynamicSlot", "SlotType", "DSlotId"]
                    .iter()
                    .any(|n| mentioned.contains(n))
                {
                    constraints.push("!(DynamicSlot?:false)".to_owned());
                    if o.verbose {
                        let _ = write!(err, "(excluding dynamic slots)...");
                    }
                }
            }
            let mut parsed = Vec::new();
            for c in &constraints {
                match parse_old_expr(c) {
                    Ok(e) => parsed.push(e),
                    Err(_) => return Err(fetch_failed(err)),
                }
            }
            let ads = master::query(config, AdKind::Slots).map_err(|e| match e {
                MasterError::NotRunning(_) => no_master(config, err),
                _ => fetch_failed(err),
            })?;
            ads.into_iter()
                .filter(|ad| parsed.iter().all(|c| constraint_holds(c, ad)))
                .collect()
        }
    };
    if o.verbose {
        let _ = writeln!(err, " {} ads.", ads.len());
    }
    let mut slots = Slots::new(ads);
    slots.single_machine = single_machine;
    if slots.num_dynamic > 1 && slots.num_overlay_candidates == 0 {
        if o.verbose {
            let _ = writeln!(
                err,
                "Fetch returned only Static and Dynamic slots, setting match mode to All"
            );
        }
        slots.mode = MatchMode::Always;
    }
    Ok(slots)
}

/// `make_all_gpus_available_expr`: a list of every GPU property ad the slot has.
fn all_gpus_available(slot: &ClassAd) -> Option<String> {
    let tokens = |s: &str| {
        s.split([',', ' ', '\t', '\r', '\n'])
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let offline = lookup_str(slot, "OfflineGPUs")
        .map(|s| tokens(&s))
        .unwrap_or_default();
    let assigned = lookup_str(slot, "AssignedGPUs")?;
    let mut items = Vec::new();
    for id in tokens(&assigned) {
        if offline.contains(&id) {
            continue;
        }
        let mut attr: String = format!("GPUs_{id}")
            .trim()
            .chars()
            .map(|c| {
                if c == '_' || c.is_ascii_alphanumeric() {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        while attr.contains("__") {
            attr = attr.replace("__", "_");
        }
        if slot.lookup(&attr).is_some() {
            items.push(attr);
        }
    }
    Some(format!("{{{}}}", items.join(", ")))
}

/// `make_pslot_overlay_ad`: a partitionable slot as if drained (each of its resources at the
/// slot's total), chained to the slot.
pub(super) fn make_pslot_overlay(slot: &ClassAd) -> Option<ClassAd> {
    let resources = lookup_str(slot, "MachineResources")
        .map(|s| s.to_string())
        .unwrap_or_else(|| "Cpus Memory Disk".to_owned());
    let mut tags = Names::default();
    for t in resources
        .split([',', ' ', '\t', '\r', '\n'])
        .filter(|t| !t.is_empty())
    {
        tags.insert(t);
    }
    let mut over = ClassAd::new();
    for tag in tags.iter() {
        let total = format!("TotalSlot{tag}");
        if let Ok(e) = parse_old_expr(&total) {
            over.insert(tag, e);
        }
        if tag.eq_ignore_ascii_case("gpus") {
            let avail = parse_old_expr("size(AvailableGpus)")
                .ok()
                .and_then(|e| eval_expr(&e, Some(slot), None).ok())
                .and_then(|v| v.as_number_int());
            if let (Some(total), Some(avail)) = (lookup_int(slot, &total), avail) {
                if avail < total {
                    if let Some(e) = all_gpus_available(slot).and_then(|s| parse_old_expr(&s).ok())
                    {
                        over.insert("AvailableGPUs", e);
                    }
                }
            }
        }
    }
    if over.own_len() == 0 {
        return None;
    }
    over.chain_to(slot.clone());
    Some(over)
}

/// Whether a partitionable slot's `WithinResourceLimits` is false for the job.
pub(super) fn outside_limits(slot: &ClassAd, job: &ClassAd) -> bool {
    slot.lookup("WithinResourceLimits").is_some_and(|wrl| {
        matches!(
            eval_expr(wrl, Some(slot), Some(job)).map(|v| v.as_bool_equiv()),
            Ok(Some(false))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_names_have_more_than_one_dot() {
        assert!(is_slot_name("slot1@a.b.c"));
        assert!(!is_slot_name("slot1@vm"));
    }
}
