//! The slots a job is analyzed against (`startdAds`, `setupAnalysis` in 24.0's jobmatch.cpp):
//! fetched from the master or read from a `-slotads` file, every slot (dynamic ones too),
//! kept in 24.0's order (by machine, slot id, name, then as fetched); and the drained view of
//! a partitionable slot the run analysis matches a job against when it does not fit what is
//! left of the slot.

use std::io::Write;

use super::Options;
use crate::classad::analysis::Names;
use crate::classad::parser::{parse_old_ads, parse_old_expr};
use crate::classad::ClassAd;
use crate::client::master::{self, AdKind, MasterError};
use crate::config::Config;
use crate::error::CommandError;
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::constraint_holds;

/// Which slots the run analysis matches a job against (`anaMatchMode*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum MatchMode {
    /// Every slot, dynamic ones included, each as it is.
    Always = 1,
    /// Static and partitionable slots, a partitionable one drained when the job does not fit
    /// what is left of it.
    Pslot = 2,
}

/// The slots analysis runs against (`startdAds`).
pub(in crate::tools::q) struct Slots {
    /// By machine, slot id and name, then in the order fetched (the keys of 24.0's map).
    pub(super) ads: Vec<ClassAd>,
    /// The longest `Machine` and `Name` among them (`longest_slot_machine_name`,
    /// `longest_slot_name`).
    pub(super) longest_machine: usize,
    pub(super) longest_name: usize,
    /// The slot constraint was a name (`single_machine_label`).
    pub(super) single_machine: Option<String>,
}

impl Slots {
    /// `AddSlotToClassAdCollection` for each ad, in order.
    pub(super) fn new(ads: Vec<ClassAd>) -> Slots {
        let (mut longest_machine, mut longest_name) = (0, 0);
        let mut keyed: Vec<(String, ClassAd)> = ads
            .into_iter()
            .enumerate()
            .map(|(n, ad)| {
                let mut key = lookup_str(&ad, "Machine")
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                longest_machine = longest_machine.max(key.len());
                key.push_str(&format!("/{:03}", lookup_int(&ad, "SlotID").unwrap_or(0)));
                if let Some(name) = lookup_str(&ad, "Name") {
                    longest_name = longest_name.max(name.len());
                    key.push('/');
                    key.push_str(&name);
                }
                key.push_str(&format!("/{:010}", n + 1));
                (key, ad)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        Slots {
            ads: keyed.into_iter().map(|(_, ad)| ad).collect(),
            longest_machine,
            longest_name,
            single_machine: None,
        }
    }
}

/// `is_slot_name` (24.0): nothing but the characters of a host or slot name.
fn is_slot_name(s: &str) -> bool {
    s.chars()
        .all(|c| c == '-' || c == '.' || c == '@' || c == '_' || c.is_ascii_alphanumeric())
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

/// `setupAnalysis`: the slot ads to analyze against. The slot constraint (`-machine`,
/// `-mconstraint`, whichever is last) may be a slot or machine name; then it selects the
/// slots of that name or machine, and the analysis names it.
pub(in crate::tools::q) fn fetch_slots(
    config: &Config,
    o: &Options,
    err: &mut dyn Write,
) -> Result<Slots, CommandError> {
    if o.verbose {
        let _ = write!(err, "Fetching Machine ads...");
    }
    let mut constraint = o.slot_constraint.clone();
    let mut single_machine = None;
    if let Some(c) = &o.slot_constraint {
        if is_slot_name(c) {
            constraint = Some(format!("(Name==\"{c}\") || (Machine==\"{c}\")"));
            single_machine = Some(c.clone());
        }
    }
    let ads: Vec<ClassAd> = match &o.slotads {
        Some(file) => {
            // A constraint that does not parse selects every ad (`ConstraintHolder`).
            let constraint = constraint.as_deref().and_then(|c| parse_old_expr(c).ok());
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
                .filter(|ad| constraint.as_ref().is_none_or(|c| constraint_holds(c, ad)))
                .collect()
        }
        None => {
            let constraint = match constraint.as_deref().map(parse_old_expr) {
                Some(Ok(c)) => Some(c),
                Some(Err(_)) => return Err(fetch_failed(err)),
                None => None,
            };
            let ads = master::query(config, AdKind::Slots).map_err(|e| match e {
                MasterError::NotRunning(_) => no_master(config, err),
                _ => fetch_failed(err),
            })?;
            ads.into_iter()
                .filter(|ad| constraint.as_ref().is_none_or(|c| constraint_holds(c, ad)))
                .collect()
        }
    };
    if o.verbose {
        let _ = writeln!(err, " {} ads.", ads.len());
    }
    check_preemption_requirements(config, err)?;
    let mut slots = Slots::new(ads);
    slots.single_machine = single_machine;
    Ok(slots)
}

/// `setupAnalysis` sets up the preemption conditions: without `PREEMPTION_REQUIREMENTS` it
/// warns and takes it as false, and it stops when the expression does not parse.
fn check_preemption_requirements(config: &Config, err: &mut dyn Write) -> Result<(), CommandError> {
    match config
        .string("PREEMPTION_REQUIREMENTS")
        .ok()
        .flatten()
        .filter(|s| !s.is_empty())
    {
        None => {
            let _ = write!(
                err,
                "\nWarning:  No PREEMPTION_REQUIREMENTS expression in config file --- assuming FALSE\n\n"
            );
            Ok(())
        }
        Some(text) if parse_old_expr(&text).is_err() => {
            let _ = write!(
                err,
                "\nError:  Failed parse of PREEMPTION_REQUIREMENTS expression: \n\t{text}\n"
            );
            Err(CommandError::Exit(1))
        }
        Some(_) => Ok(()),
    }
}

/// `make_pslot_overlay_ad`: a partitionable slot as if drained, each of its resources
/// (`MachineResources`) at the slot's total, chained to the slot.
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
        if let Ok(e) = parse_old_expr(&format!("TotalSlot{tag}")) {
            over.insert(tag, e);
        }
    }
    if over.own_len() == 0 {
        return None;
    }
    over.chain_to(slot.clone());
    Some(over)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::analysis::test_ads::{ad, pslot};

    #[test]
    fn a_slot_name_is_made_of_name_characters() {
        assert!(is_slot_name("slot1@a.b.c"));
        assert!(is_slot_name("vm"));
        assert!(!is_slot_name("Memory > 3000"));
    }

    #[test]
    fn slots_are_kept_by_machine_slot_id_and_name() {
        let slots = Slots::new(vec![
            ad("Name = \"slot1_1@b\"\nMachine = \"b\"\nSlotID = 1"),
            ad("Name = \"slot2@a\"\nMachine = \"a\"\nSlotID = 2"),
            ad("Name = \"slot1@b\"\nMachine = \"b\"\nSlotID = 1"),
            ad("Name = \"slot10@a\"\nMachine = \"a\"\nSlotID = 10"),
        ]);
        let names: Vec<String> = slots
            .ads
            .iter()
            .map(|a| lookup_str(a, "Name").unwrap().to_string())
            .collect();
        assert_eq!(names, ["slot2@a", "slot10@a", "slot1@b", "slot1_1@b"]);
        assert_eq!((slots.longest_machine, slots.longest_name), (1, 9));
    }

    #[test]
    fn a_drained_slot_has_its_totals() {
        let over = make_pslot_overlay(&pslot(512)).unwrap();
        assert_eq!(lookup_int(&over, "Memory"), Some(2048));
        assert_eq!(lookup_int(&over, "Cpus"), Some(2));
        assert_eq!(lookup_str(&over, "Name").as_deref(), Some("slot1@vm"));
    }
}
