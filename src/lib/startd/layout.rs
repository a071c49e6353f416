//! The slot layout: how the machine's processors, memory, swap, disk and custom resources
//! are divided into slots, from `NUM_SLOTS`, `SLOT_TYPE_<N>`, `NUM_SLOTS_TYPE_<N>` and
//! `SLOT_TYPE_<N>_PARTITIONABLE`, as src/condor_startd.V6/slot_builder.cpp divides them.
//!
//! A slot type is a list of shares, `cpus=2, memory=25%, disk=1/4, gpus=1` (any
//! case-insensitive prefix of `cpus`, `ram`/`memory`, `swap`/`virtualmemory`, `disk`, or a
//! custom resource's name), each an absolute amount (memory may carry a `K`/`M`/`G`/`T` unit),
//! a percentage, a fraction or `auto`; a bare share (`25%`, `1/4`) is the default for what the
//! list does not name, and what nothing names is `auto`. Swap and disk are shares of what the
//! file system has (a percentage, a fraction or `auto`, as in HTCondor 24). A custom resource's
//! share may carry a constraint on the instances it takes, `gpus=1 : DeviceName == "T4"`.
//!
//! Slots are built in type order (type 0, the even split used when no `NUM_SLOTS_TYPE_<N>`
//! is set, then types 1 to `MAX_SLOT_TYPES`), numbered from 1; explicit amounts are taken from
//! what the machine has, then `auto` shares split what is left evenly among the slots asking
//! for it (custom resources in whole units, the first slots getting any remainder). Without
//! slot types the machine is one partitionable slot (`SLOT_TYPE_0_PARTITIONABLE`, true by
//! default as in HTCondor 23 and later), or `NUM_SLOTS` static slots (one per CPU) when it is
//! false.
//!
//! Everything the layout cannot satisfy is a [`StartdError`] naming the knob and its value:
//! HTCondor's startd refuses to start on those.

use std::path::PathBuf;

use super::machine::{Machine, Probe};
use super::resources::MachineResources;
use super::StartdError;
use crate::classad::ad::cmp_ignore_case;
use crate::config::{Config, View};

/// The slot types the configuration defines: each type's share list and its
/// `SLOT_TYPE_<N>_<NAME>` settings.
#[derive(Clone, Debug)]
pub struct SlotTypes {
    /// `MAX_SLOT_TYPES` + 1 (type 0 is the even split).
    pub max_types: usize,
    /// `SLOT_TYPE_<N>`, by type (type 0: `auto`).
    pub shares: Vec<String>,
    /// `SLOT_TYPE_<N>_<NAME>` values, by type, as (NAME, value).
    params: Vec<Vec<(String, String)>>,
}

impl SlotTypes {
    /// Collects every `SLOT_TYPE_<N>...` knob.
    pub fn from_config(config: &Config, cfg: View<'_>) -> Result<SlotTypes, StartdError> {
        for bad in ["SLOT_TYPE_0", "NUM_SLOTS_TYPE_0"] {
            if let Some(v) = cfg.string(bad)? {
                return Err(StartdError::SlotConfig {
                    knob: bad.into(),
                    value: v,
                    reason: "can't be defined in the config file (type 0 is the even split)".into(),
                });
            }
        }
        let max_types = (cfg.int("MAX_SLOT_TYPES")?.unwrap_or(10).max(0) as usize) + 1;
        let mut types = SlotTypes {
            max_types,
            shares: vec![String::new(); max_types],
            params: vec![Vec::new(); max_types],
        };
        types.shares[0] = "auto".into();
        types.params[0].push(("PARTITIONABLE".into(), "true".into()));
        let mut names: Vec<&str> = config.entries().iter().map(|e| e.name.as_str()).collect();
        names.sort_by(|a, b| cmp_ignore_case(a, b));
        names.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        for name in names {
            if name.len() <= 10 || !name[..10].eq_ignore_ascii_case("SLOT_TYPE_") {
                continue;
            }
            let rest = &name[10..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                continue;
            }
            let Ok(type_id) = rest[..digits].parse::<usize>() else {
                continue;
            };
            if type_id >= max_types {
                continue;
            }
            let tail = &rest[digits..];
            let value = cfg.string(name)?.unwrap_or_default();
            if tail.is_empty() {
                if type_id > 0 {
                    types.shares[type_id] = value;
                }
            } else if let Some(param) = tail.strip_prefix('_') {
                let param = param.to_ascii_uppercase();
                let list = &mut types.params[type_id];
                list.retain(|(n, _)| *n != param);
                list.push((param, value));
            }
        }
        Ok(types)
    }

    /// `SLOT_TYPE_<type_id>_<name>`, when the configuration sets it.
    pub fn param(&self, type_id: u32, name: &str) -> Option<&str> {
        self.params
            .get(type_id as usize)?
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A boolean `SLOT_TYPE_<type_id>_<name>`, `default` when unset or not a boolean.
    pub fn bool_param(&self, type_id: u32, name: &str, default: bool) -> bool {
        self.param(type_id, name)
            .and_then(crate::config::expand::bool_value)
            .unwrap_or(default)
    }

    /// What a slot of type `type_id` reads for knob `name`: `SLOT_TYPE_<N>_<name>`, else
    /// `name` (HTCondor's `SlotType::param`).
    pub fn lookup(
        &self,
        cfg: View<'_>,
        type_id: u32,
        name: &str,
    ) -> Result<Option<String>, StartdError> {
        match self.param(type_id, name) {
            Some(v) => Ok(Some(v.to_owned())),
            None => Ok(cfg.string(name)?),
        }
    }
}

/// An amount still to be decided (`auto`) or decided.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Amount {
    Auto,
    Is(f64),
}

/// A share as written.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Share {
    Auto,
    /// `min`/`minimal`: 1/128 of the machine, with fractional CPUs allowed.
    Minimal,
    /// A fraction of the machine's total (a percentage or a fraction).
    Fraction(f64),
    /// An absolute amount, with the power of 1024 its unit suffix gives (K=1, M=2, ...).
    Absolute(f64, u32),
}

/// C's `atof`: the longest numeric prefix (after blanks), 0 when there is none, and the rest.
fn atof(s: &str) -> (f64, &str) {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i == digits_start || (i == digits_start + 1 && b[digits_start] == b'.') {
        return (0.0, s);
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    (t[..i].parse().unwrap_or(0.0), &t[i..])
}

/// HTCondor's `parse_share_value`, refusing what it would silently read as 0.
fn parse_share(text: &str, bad: &dyn Fn(String) -> StartdError) -> Result<Share, StartdError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("auto") || t.eq_ignore_ascii_case("automatic") {
        return Ok(Share::Auto);
    }
    if t.eq_ignore_ascii_case("min") || t.eq_ignore_ascii_case("minimal") {
        return Ok(Share::Minimal);
    }
    if let Some(pct) = t.find('%') {
        let (n, rest) = atof(&t[..pct]);
        if !rest.trim().is_empty() || t[pct + 1..].trim() != "" || t[..pct].trim().is_empty() {
            return Err(bad(format!("\"{t}\" is not a percentage")));
        }
        return Ok(Share::Fraction(n / 100.0));
    }
    if let Some(slash) = t.find('/') {
        let (num, rest) = atof(&t[..slash]);
        let (denom, rest2) = atof(&t[slash + 1..]);
        if denom <= 0.0 || !rest.trim().is_empty() || !rest2.trim().is_empty() {
            return Err(bad(format!("can't parse \"{t}\" as a fraction")));
        }
        return Ok(Share::Fraction(num / denom));
    }
    let (n, rest) = atof(t);
    let scale = match rest.trim() {
        "" => 0,
        r => match r.as_bytes()[0].to_ascii_lowercase() {
            b'k' if r.len() <= 2 => 1,
            b'm' if r.len() <= 2 => 2,
            b'g' if r.len() <= 2 => 3,
            b't' if r.len() <= 2 => 4,
            b'p' if r.len() <= 2 => 5,
            _ => return Err(bad(format!("\"{t}\" is not a number"))),
        },
    };
    if rest.len() == t.len() {
        return Err(bad(format!("\"{t}\" is not a number")));
    }
    Ok(Share::Absolute(n, scale))
}

/// HTCondor's `compute_local_resource`: a share of `total`, at least `min`. An absolute amount
/// with a unit is brought to the resource's own unit (`native_scale`: 2 for MiB); resources
/// without one (`None`) ignore units.
fn local_amount(
    total: f64,
    share: Share,
    min: f64,
    native_scale: Option<u32>,
    integral: bool,
) -> Amount {
    let res = match share {
        Share::Auto => return Amount::Auto,
        Share::Minimal => total / 128.0,
        Share::Fraction(f) => f * total,
        Share::Absolute(v, scale) => match native_scale {
            Some(native) if scale > 0 => v * 1024f64.powi(scale as i32 - native as i32),
            _ => v,
        },
    };
    let res = if integral { res.trunc() } else { res };
    Amount::Is(res.max(min))
}

/// One slot's request before `auto` shares are decided.
#[derive(Clone, Debug)]
struct Request {
    type_id: u32,
    cpus: Amount,
    fractional_cpus: bool,
    memory: Amount,
    swap: Amount,
    disk: Amount,
    custom: Vec<(String, Amount, Option<String>)>,
    execute_dir: PathBuf,
    partition: String,
    free_disk: Option<i64>,
}

/// A custom resource's share of a slot.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomAmount {
    /// The machine resource's name (`GPUs`).
    pub name: String,
    /// How much the slot has now (`GPUs`); a partitionable slot's shrinks as it lends.
    pub amount: f64,
    /// How much the slot was given (`TotalSlotGPUs`).
    pub total: f64,
    /// The instances bound to the slot (`AssignedGPUs`); a partitionable slot keeps listing
    /// those it lent.
    pub ids: Vec<String>,
    /// The constraint on which instances the slot takes.
    pub constraint: Option<String>,
}

/// A slot's resources (HTCondor's `CpuAttributes`).
#[derive(Clone, Debug, PartialEq)]
pub struct Resources {
    pub cpus: f64,
    pub slot_cpus: f64,
    pub fractional_cpus: bool,
    pub memory: i64,
    pub slot_memory: i64,
    /// Share of the machine's virtual memory.
    pub swap_fraction: f64,
    /// Share of the execute partition's disk.
    pub disk_fraction: f64,
    /// KiB the execute partition offers (`TotalDisk`).
    pub total_disk: i64,
    /// `TotalSlotDisk`: the slot's disk when it was made.
    pub slot_disk: f64,
    pub execute_dir: PathBuf,
    /// An id of the file system holding `execute_dir`.
    pub partition: String,
    pub custom: Vec<CustomAmount>,
}

impl Resources {
    /// The slot's disk in KiB (`Disk`).
    pub fn disk(&self) -> i64 {
        // Rounded to a millionth first, so that fractions lent and returned do not drift.
        let kib = self.total_disk as f64 * self.disk_fraction;
        ((kib * 1e6).round() / 1e6).ceil() as i64
    }

    /// The slot's virtual memory in KiB (`VirtualMemory`).
    pub fn virtual_memory(&self, machine_virt: i64) -> i64 {
        (machine_virt as f64 * self.swap_fraction).floor() as i64
    }

    pub fn custom(&self, name: &str) -> Option<&CustomAmount> {
        self.custom
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
    }

    pub fn custom_mut(&mut self, name: &str) -> Option<&mut CustomAmount> {
        self.custom
            .iter_mut()
            .find(|c| c.name.eq_ignore_ascii_case(name))
    }
}

/// One slot of the layout.
#[derive(Clone, Debug)]
pub struct SlotPlan {
    /// The slot's number (`SlotID`).
    pub id: u32,
    pub type_id: u32,
    pub partitionable: bool,
    pub resources: Resources,
}

fn fmt_amount(a: Amount, pct: bool) -> String {
    match a {
        Amount::Auto => "auto".into(),
        Amount::Is(v) if pct => format!("{:.2}%", 100.0 * v),
        Amount::Is(v) => format!("{v}"),
    }
}

impl Request {
    fn totals(&self) -> String {
        let mut s = format!(
            "Cpus: {}, Memory: {}, Swap: {}, Disk: {}",
            fmt_amount(self.cpus, false),
            fmt_amount(self.memory, false),
            fmt_amount(self.swap, true),
            fmt_amount(self.disk, true)
        );
        for (n, a, _) in &self.custom {
            s.push_str(&format!(", {n}: {}", fmt_amount(*a, false)));
        }
        s
    }
}

/// Parses slot type `type_id`'s share list (HTCondor's `CpuAttributes::buildSlotRequest`).
fn build_request(
    list: &str,
    knob: &str,
    type_id: u32,
    machine: &Machine,
    res: &MachineResources,
) -> Result<Request, StartdError> {
    let bad = |reason: String| StartdError::SlotConfig {
        knob: knob.to_owned(),
        value: list.to_owned(),
        reason,
    };
    let mut req = Request {
        type_id,
        cpus: Amount::Auto,
        fractional_cpus: false,
        memory: Amount::Auto,
        swap: Amount::Auto,
        disk: Amount::Auto,
        custom: res
            .iter()
            .map(|r| (r.name.clone(), Amount::Auto, None))
            .collect(),
        execute_dir: PathBuf::new(),
        partition: String::new(),
        free_disk: None,
    };
    let list = list.trim();
    if list.is_empty() {
        req.cpus = Amount::Auto;
        return Ok(req);
    }
    let mut default_share = Share::Auto;
    let (mut cpus, mut ram, mut swap, mut disk) = (None, None, None, None);
    let mut custom: Vec<Option<Amount>> = vec![None; req.custom.len()];
    let delims: &[char] = if list.contains('\n') {
        &['\n']
    } else if list.contains(',') {
        &[',', '\r', '\n']
    } else {
        &[',', ' ', '\t', '\r', '\n']
    };
    for item in list.split(delims).map(str::trim).filter(|s| !s.is_empty()) {
        let Some((attr, val)) = item.split_once('=') else {
            let share = parse_share(item, &bad)?;
            match share {
                Share::Absolute(v, _) if v != 0.0 => {
                    return Err(bad(format!(
                        "\"{item}\" is invalid: you must specify a percentage (like \"25%\"), a fraction (like \"1/4\"), or list all attributes (like \"c=1, r=25%, s=25%, d=25%\")"
                    )))
                }
                Share::Fraction(f) if !(0.0..=1.0).contains(&f) => {
                    return Err(bad(format!(
                        "\"{item}\" is invalid: a share of the whole machine must be at most 100%"
                    )))
                }
                Share::Minimal => req.fractional_cpus = true,
                _ => {}
            }
            default_share = match share {
                Share::Absolute(..) => Share::Fraction(0.0),
                s => s,
            };
            continue;
        };
        let attr = attr.trim();
        let mut val = val.trim();
        if val.is_empty() {
            return Err(bad(format!("can't parse \"{item}\": no value")));
        }
        let mut constraint = None;
        if let Some((v, c)) = val.split_once(':') {
            constraint = Some(c.trim().to_owned()).filter(|c| !c.is_empty());
            val = v.trim();
        }
        let share = parse_share(val, &bad)?;
        if let Some(i) = req
            .custom
            .iter()
            .position(|(n, _, _)| n.eq_ignore_ascii_case(attr))
        {
            let total = res.get(attr).map_or(0.0, |r| r.quantity);
            custom[i] = Some(local_amount(total, share, 0.0, None, false));
            req.custom[i].2 = constraint;
            continue;
        }
        let prefix_of =
            |word: &str| attr.len() <= word.len() && word[..attr.len()].eq_ignore_ascii_case(attr);
        let fraction_only = |what: &str| -> Result<Amount, StartdError> {
            match share {
                Share::Auto => Ok(Amount::Auto),
                Share::Fraction(f) => Ok(Amount::Is(f.max(0.0))),
                Share::Minimal => Ok(Amount::Is(1.0 / 128.0)),
                Share::Absolute(..) => Err(bad(format!(
                    "you must specify a percent or fraction for {what} in slot type {type_id} (\"{item}\")"
                ))),
            }
        };
        if prefix_of("cpus") {
            let lower = if req.fractional_cpus { 0.0 } else { 1.0 };
            cpus = Some(local_amount(machine.num_cpus, share, lower, None, false));
        } else if prefix_of("ram") || prefix_of("memory") {
            ram = Some(local_amount(
                machine.phys_mem as f64,
                share,
                1.0,
                Some(2),
                true,
            ));
        } else if prefix_of("swap") || prefix_of("virtualmemory") {
            swap = Some(fraction_only("swap")?);
        } else if prefix_of("disk") {
            disk = Some(fraction_only("disk")?);
        } else if matches!(share, Share::Absolute(v, _) if v > 0.0) {
            return Err(bad(format!(
                "unknown attribute \"{attr}\" in slot type {type_id} (not a standard resource, nor one of MACHINE_RESOURCE_NAMES)"
            )));
        }
    }
    let lower = if req.fractional_cpus { 0.0 } else { 1.0 };
    req.cpus =
        cpus.unwrap_or_else(|| local_amount(machine.num_cpus, default_share, lower, None, false));
    req.memory = ram.unwrap_or_else(|| {
        local_amount(machine.phys_mem as f64, default_share, lower, Some(2), true)
    });
    let frac = |s: Share| match s {
        Share::Auto => Amount::Auto,
        Share::Minimal => Amount::Is(1.0 / 128.0),
        Share::Fraction(f) => Amount::Is(f.max(0.0)),
        Share::Absolute(..) => Amount::Is(0.0),
    };
    req.swap = swap.unwrap_or(frac(default_share));
    req.disk = disk.unwrap_or(frac(default_share));
    for (i, c) in custom.into_iter().enumerate() {
        let total = res.get(&req.custom[i].0).map_or(0.0, |r| r.quantity);
        req.custom[i].1 = c.unwrap_or_else(|| local_amount(total, default_share, 0.0, None, false));
    }
    Ok(req)
}

/// What is left of the machine while slots are carved (HTCondor's `AvailAttributes`).
struct Avail {
    cpus: f64,
    cpus_auto: u32,
    memory: f64,
    memory_auto: u32,
    swap: f64,
    swap_auto: u32,
    /// (partition, fraction left, auto count).
    disk: Vec<(String, f64, u32)>,
    /// (name, amount left, auto count).
    custom: Vec<(String, f64, u32)>,
}

const FLOOR: f64 = -0.000001;

impl Avail {
    fn new(machine: &Machine, res: &MachineResources) -> Avail {
        Avail {
            // HTCondor keeps whole CPUs here.
            cpus: machine.num_cpus.trunc(),
            cpus_auto: 0,
            memory: machine.phys_mem as f64,
            memory_auto: 0,
            swap: 1.0,
            swap_auto: 0,
            disk: Vec::new(),
            custom: res
                .iter()
                .map(|r| (r.name.clone(), r.quantity, 0))
                .collect(),
        }
    }

    fn partition(&mut self, id: &str) -> usize {
        match self.disk.iter().position(|(p, _, _)| p == id) {
            Some(i) => i,
            None => {
                self.disk.push((id.to_owned(), 1.0, 0));
                self.disk.len() - 1
            }
        }
    }

    /// Takes a request's explicit amounts; false (nothing taken) when they do not fit.
    fn decrement(&mut self, r: &Request) -> bool {
        let mut cpus = self.cpus;
        if let Amount::Is(c) = r.cpus {
            if !(r.fractional_cpus && c < 0.5) {
                cpus = (cpus - c).trunc();
            }
        }
        let memory = match r.memory {
            Amount::Is(m) => self.memory - m,
            Amount::Auto => self.memory,
        };
        let swap = match r.swap {
            Amount::Is(s) => self.swap - s,
            Amount::Auto => self.swap,
        };
        let p = self.partition(&r.partition);
        let disk = match r.disk {
            Amount::Is(d) => self.disk[p].1 - d,
            Amount::Auto => self.disk[p].1,
        };
        let custom: Vec<f64> = self
            .custom
            .iter()
            .zip(&r.custom)
            .map(|((_, left, _), (_, a, _))| match a {
                Amount::Is(v) => left - v,
                Amount::Auto => *left,
            })
            .collect();
        if cpus < FLOOR
            || memory < FLOOR
            || swap < FLOOR
            || disk < FLOOR
            || custom.iter().any(|&c| c < FLOOR)
        {
            return false;
        }
        self.cpus = cpus;
        self.cpus_auto += (r.cpus == Amount::Auto) as u32;
        self.memory = memory;
        self.memory_auto += (r.memory == Amount::Auto) as u32;
        self.swap = swap;
        self.swap_auto += (r.swap == Amount::Auto) as u32;
        self.disk[p].1 = disk;
        self.disk[p].2 += (r.disk == Amount::Auto) as u32;
        for (i, c) in custom.into_iter().enumerate() {
            self.custom[i].1 = c;
            self.custom[i].2 += (r.custom[i].1 == Amount::Auto) as u32;
        }
        true
    }

    fn totals(&self, partition: &str) -> String {
        let disk = self
            .disk
            .iter()
            .find(|(p, _, _)| p == partition)
            .map_or(1.0, |d| d.1);
        let mut s = format!(
            "Cpus: {}, Memory: {}, Swap: {:.2}%, Disk: {:.2}%",
            self.cpus,
            self.memory,
            100.0 * self.swap,
            100.0 * disk
        );
        for (n, v, _) in &self.custom {
            s.push_str(&format!(", {n}: {v}"));
        }
        s
    }

    /// What a request asks for that is not there.
    fn shortfall(&self, r: &Request) -> String {
        let mut what = Vec::new();
        if matches!(r.cpus, Amount::Is(c) if self.cpus - c < FLOOR) {
            what.push("Cpus".to_owned());
        }
        if matches!(r.memory, Amount::Is(m) if self.memory - m < FLOOR) {
            what.push("Memory".to_owned());
        }
        if matches!(r.swap, Amount::Is(s) if self.swap - s < FLOOR) {
            what.push("Swap".to_owned());
        }
        let disk_left = self
            .disk
            .iter()
            .find(|(p, _, _)| *p == r.partition)
            .map_or(1.0, |d| d.1);
        if matches!(r.disk, Amount::Is(d) if disk_left - d < FLOOR) {
            what.push("Disk".to_owned());
        }
        for ((n, left, _), (_, a, _)) in self.custom.iter().zip(&r.custom) {
            if matches!(a, Amount::Is(v) if left - v < FLOOR) {
                what.push(n.clone());
            }
        }
        what.join(", ")
    }
}

/// Builds the layout the configuration describes. Slot `n`'s execute directory is
/// `SLOT<n>_EXECUTE`, else `EXECUTE`.
pub fn plan(
    cfg: View<'_>,
    types: &SlotTypes,
    machine: &Machine,
    res: &MachineResources,
    probe: &Probe,
) -> Result<Vec<SlotPlan>, StartdError> {
    // How many slots of each type (HTCondor's countTypes).
    let mut counts = vec![0i64; types.max_types];
    let mut any = false;
    for (t, count) in counts.iter_mut().enumerate().skip(1) {
        let knob = format!("NUM_SLOTS_TYPE_{t}");
        let n = cfg.int(&knob)?.unwrap_or(0);
        if n < 0 {
            return Err(StartdError::SlotConfig {
                knob,
                value: n.to_string(),
                reason: "a number of slots can't be negative".into(),
            });
        }
        *count = n;
        any |= n > 0;
    }
    if !any {
        let pslot = types.bool_param(0, "PARTITIONABLE", true);
        let default = if pslot { 1 } else { machine.num_cpus as i64 };
        let n = cfg.int("NUM_SLOTS")?.unwrap_or(default);
        if n < 0 {
            return Err(StartdError::SlotConfig {
                knob: "NUM_SLOTS".into(),
                value: n.to_string(),
                reason: "a number of slots can't be negative".into(),
            });
        }
        counts[0] = n;
    }

    // Explicit amounts first (HTCondor's buildCpuAttrs).
    let mut avail = Avail::new(machine, res);
    let mut requests: Vec<Request> = Vec::new();
    for (t, &n) in counts.iter().enumerate() {
        for j in 0..n {
            let slot_id = requests.len() as u32 + 1;
            let knob = format!("SLOT_TYPE_{t}");
            let mut req = build_request(&types.shares[t], &knob, t as u32, machine, res)?;
            let exec_knob = format!("SLOT{slot_id}_EXECUTE");
            let exec = match cfg.string(&exec_knob)? {
                Some(e) => e,
                None => cfg
                    .string("EXECUTE")?
                    .ok_or_else(|| StartdError::SlotConfig {
                        knob: "EXECUTE".into(),
                        value: String::new(),
                        reason: format!("EXECUTE (or {exec_knob}) is not defined"),
                    })?,
            };
            req.execute_dir = PathBuf::from(exec);
            match (probe.free_disk)(&req.execute_dir) {
                Some((free, part)) => {
                    req.free_disk = Some(free);
                    req.partition = part;
                }
                None => req.partition = req.execute_dir.to_string_lossy().into_owned(),
            }
            if machine.disk_from_config.is_some() {
                req.partition = "<from-config>".into();
            }
            if !avail.decrement(&req) {
                return Err(StartdError::OutOfResources {
                    slot: format!("slot {slot_id} (the {} of type {t})", ordinal(j + 1)),
                    knob: if t == 0 {
                        "NUM_SLOTS".into()
                    } else {
                        format!("SLOT_TYPE_{t} = {}", types.shares[t])
                    },
                    what: avail.shortfall(&req),
                    requesting: req.totals(),
                    available: avail.totals(&req.partition),
                });
            }
            requests.push(req);
        }
    }

    // Then auto shares split what is left.
    let mut remain: Vec<(f64, u32)> = avail.custom.iter().map(|(_, v, n)| (*v, *n)).collect();
    let mut plans = Vec::with_capacity(requests.len());
    for (i, r) in requests.iter().enumerate() {
        let slot_id = i as u32 + 1;
        let available = avail.totals(&r.partition);
        let fail = |what: &str| StartdError::OutOfResources {
            slot: format!("slot {slot_id} (type {})", r.type_id),
            knob: if r.type_id == 0 {
                "NUM_SLOTS".into()
            } else {
                format!(
                    "SLOT_TYPE_{} = {}",
                    r.type_id, types.shares[r.type_id as usize]
                )
            },
            what: what.to_owned(),
            requesting: r.totals(),
            available: available.clone(),
        };
        let cpus = match r.cpus {
            Amount::Is(c) => c,
            Amount::Auto => {
                let v = avail.cpus / avail.cpus_auto.max(1) as f64;
                if (r.fractional_cpus && v <= 0.0) || (!r.fractional_cpus && v < 1.0) {
                    return Err(fail("Cpus"));
                }
                v
            }
        };
        let memory = match r.memory {
            Amount::Is(m) => m as i64,
            Amount::Auto => {
                let v = avail.memory as i64 / avail.memory_auto.max(1) as i64;
                if v < 1 {
                    return Err(fail("Memory"));
                }
                v
            }
        };
        let swap_fraction = match r.swap {
            Amount::Is(s) => s,
            Amount::Auto => {
                let v = avail.swap / avail.swap_auto.max(1) as f64;
                if v <= 0.0 {
                    return Err(fail("Swap"));
                }
                v
            }
        };
        let disk_fraction = match r.disk {
            Amount::Is(d) => d,
            Amount::Auto => {
                let p = avail.partition(&r.partition);
                let (_, left, n) = avail.disk[p];
                let v = left / n.max(1) as f64;
                if v <= 0.0 {
                    return Err(fail("Disk"));
                }
                v
            }
        };
        let mut custom = Vec::new();
        for (k, (name, a, constraint)) in r.custom.iter().enumerate() {
            let amount = match a {
                Amount::Is(v) => *v,
                Amount::Auto => {
                    let v = if avail.custom[k].1 < 1.0 {
                        0.0
                    } else {
                        let v = (remain[k].0 / remain[k].1.max(1) as f64).ceil();
                        remain[k].0 -= v;
                        v
                    };
                    remain[k].1 = remain[k].1.saturating_sub(1);
                    v
                }
            };
            custom.push(CustomAmount {
                name: name.clone(),
                amount,
                total: amount,
                ids: Vec::new(),
                constraint: constraint.clone(),
            });
        }
        let total_disk = machine.total_disk(r.free_disk);
        let mut resources = Resources {
            cpus,
            slot_cpus: cpus,
            fractional_cpus: r.fractional_cpus,
            memory,
            slot_memory: memory,
            swap_fraction,
            disk_fraction,
            total_disk,
            slot_disk: 0.0,
            execute_dir: r.execute_dir.clone(),
            partition: r.partition.clone(),
            custom,
        };
        resources.slot_disk = resources.disk() as f64;
        plans.push(SlotPlan {
            id: slot_id,
            type_id: r.type_id,
            partitionable: types.bool_param(r.type_id, "PARTITIONABLE", false),
            resources,
        });
    }
    Ok(plans)
}

/// Binds instances of non-fungible resources to each planned slot, in slot order
/// (`bind_DevIds`).
pub fn bind_devices(plans: &mut [SlotPlan], res: &mut MachineResources) -> Result<(), StartdError> {
    for p in plans.iter_mut() {
        for c in &mut p.resources.custom {
            if !res.get(&c.name).is_some_and(|r| r.non_fungible) {
                continue;
            }
            let want = c.amount as usize;
            let constraint = match &c.constraint {
                Some(text) => Some(crate::classad::parser::parse_old_expr(text).map_err(|e| {
                    StartdError::SlotConfig {
                        knob: format!("SLOT_TYPE_{}", p.type_id),
                        value: text.clone(),
                        reason: format!("the constraint on {} is not an expression: {e}", c.name),
                    }
                })?),
                None => None,
            };
            while c.ids.len() < want {
                match res.allocate(&c.name, constraint.as_ref(), p.id, 0) {
                    Some(id) => c.ids.push(id),
                    None => {
                        return Err(StartdError::Bind {
                            resource: c.name.clone(),
                            slot: format!("slot{}", p.id),
                            want,
                            got: c.ids.len(),
                        })
                    }
                }
            }
        }
    }
    Ok(())
}

/// "first", "second", ... as HTCondor's `num_string`.
fn ordinal(n: i64) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        n => format!("{n}th"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(reason: String) -> StartdError {
        StartdError::SlotConfig {
            knob: "K".into(),
            value: "V".into(),
            reason,
        }
    }

    #[test]
    fn shares() {
        assert_eq!(parse_share("auto", &bad).unwrap(), Share::Auto);
        assert_eq!(parse_share("25%", &bad).unwrap(), Share::Fraction(0.25));
        assert_eq!(parse_share("1/4", &bad).unwrap(), Share::Fraction(0.25));
        assert_eq!(parse_share("64", &bad).unwrap(), Share::Absolute(64.0, 0));
        assert_eq!(parse_share("4G", &bad).unwrap(), Share::Absolute(4.0, 3));
        assert_eq!(
            parse_share("1.5 gb", &bad).unwrap(),
            Share::Absolute(1.5, 3)
        );
        assert!(parse_share("1/0", &bad).is_err());
        assert!(parse_share("lots", &bad).is_err());
        assert!(parse_share("5x", &bad).is_err());
        assert_eq!(
            local_amount(1000.0, Share::Absolute(4.0, 3), 1.0, Some(2), true),
            Amount::Is(4096.0)
        );
        assert_eq!(
            local_amount(1000.0, Share::Absolute(2048.0, 1), 1.0, Some(2), true),
            Amount::Is(2.0)
        );
        assert_eq!(
            local_amount(1000.0, Share::Fraction(0.333), 1.0, Some(2), true),
            Amount::Is(333.0)
        );
        assert_eq!(atof(" 12.5e1xyz"), (125.0, "xyz"));
        assert_eq!(atof("x").0, 0.0);
    }
}
