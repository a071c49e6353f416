//! The totals tables under `condor_status`'s listings, as HTCondor's
//! src/condor_status.V6/totals.cpp counts and prints them: one row per key (`Arch/OpSys` for
//! slots, the activity for `-state`, the submitter for `-submitters`, ...) and a `Total` row.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::classad::{ClassAd, Expr, Value};
use crate::output::printf::{floor_char_boundary, sprintf_float};
use crate::output::render::{lookup_bool, lookup_int, lookup_real, lookup_str, lookup_value};

use super::views::{
    platform_name, state_number, BACKFILL, CLAIMED, DRAINED, MATCHED, OWNER, PREEMPTING, UNCLAIMED,
};
use super::Pp;

/// `TOTALS_OPTION_ROLLUP_PARTITIONABLE`: count a partitionable slot's children's states.
pub const ROLLUP_PARTITIONABLE: u32 = 0x2;
/// `TOTALS_OPTION_IGNORE_DYNAMIC`.
pub const IGNORE_DYNAMIC: u32 = 0x4;
/// `TOTALS_OPTION_BACKFILL_SLOTS`: claimed backfill slots count as Backfill.
pub const BACKFILL_SLOTS: u32 = 0x8;

/// The counts of one key (`ClassTotal`).
#[derive(Clone, Debug)]
enum Counts {
    /// Slots by state (`StartdNormalTotal`, and `StartdStateTotal`, which never counts its
    /// Total column).
    Slots {
        state_view: bool,
        total: i64,
        by_state: [i64; 7],
        backfill_idle: i64,
    },
    Server {
        machines: i64,
        avail: i64,
        memory: u64,
        disk: u64,
        mips: u64,
        kflops: u64,
    },
    Run {
        machines: i64,
        mips: u64,
        kflops: u64,
        loadavg: f32,
    },
    /// Jobs running, idle and held: the schedds' (shown in the Total row only) or the
    /// submitters'.
    Jobs {
        schedd: bool,
        counts: [i64; 3],
    },
    StartDaemon(Daemons),
}

/// The startd daemons' resources (`StartDaemonTotal`).
#[derive(Clone, Debug, Default)]
struct Daemons {
    machines: i64,
    slots: i64,
    cpus: i64,
    gpus: i64,
    busy_cpus: i64,
    busy_gpus: i64,
    bkfill_cpus: i64,
    bkfill_gpus: i64,
    mem_usage: f64,
    bk_mem_usage: f64,
}

/// Indices into `Counts::Slots::by_state`.
const STATE_SLOTS: [usize; 7] = [
    OWNER, UNCLAIMED, CLAIMED, MATCHED, PREEMPTING, DRAINED, BACKFILL,
];

/// The state columns of the slot totals, in their order: heading, width, index into
/// `by_state`. `-state` has its own order.
fn slot_columns(state_view: bool) -> [(&'static str, usize, usize); 7] {
    if state_view {
        [
            ("Owner", 5, 0),
            ("Unclaimed", 9, 1),
            ("Claimed", 7, 2),
            ("Preempting", 10, 4),
            ("Matched", 7, 3),
            ("Drain", 6, 5),
            ("Backfill", 8, 6),
        ]
    } else {
        [
            ("Owner", 5, 0),
            ("Claimed", 7, 2),
            ("Unclaimed", 9, 1),
            ("Matched", 7, 3),
            ("Preempting", 10, 4),
            ("Drain", 6, 5),
            ("Backfill", 8, 6),
        ]
    }
}

fn slot_index(state: usize) -> Option<usize> {
    STATE_SLOTS.iter().position(|s| *s == state)
}

impl Counts {
    /// `makeTotalObject`.
    fn new(style: Pp) -> Option<Counts> {
        Some(match style {
            Pp::SlotsNormal | Pp::SlotsState => Counts::Slots {
                state_view: style == Pp::SlotsState,
                total: 0,
                by_state: [0; 7],
                backfill_idle: 0,
            },
            Pp::SlotsServer => Counts::Server {
                machines: 0,
                avail: 0,
                memory: 0,
                disk: 0,
                mips: 0,
                kflops: 0,
            },
            Pp::SlotsRun => Counts::Run {
                machines: 0,
                mips: 0,
                kflops: 0,
                loadavg: 0.0,
            },
            Pp::ScheddNormal | Pp::SubmitterNormal => Counts::Jobs {
                schedd: style == Pp::ScheddNormal,
                counts: [0; 3],
            },
            Pp::StartDaemon => Counts::StartDaemon(Daemons::default()),
            _ => return None,
        })
    }

    /// Counts one slot in a state; false for a state that is not counted.
    fn count_state(&mut self, state: &str, backfill_slot: bool) -> bool {
        let Counts::Slots {
            state_view,
            total,
            by_state,
            backfill_idle,
        } = self
        else {
            return false;
        };
        let mut st = state_number(state);
        if backfill_slot {
            if st == UNCLAIMED {
                *backfill_idle += 1;
                return true;
            }
            if st == CLAIMED {
                st = BACKFILL;
            }
        }
        match slot_index(st) {
            Some(i) => by_state[i] += 1,
            None => return false,
        }
        if !*state_view {
            *total += 1;
        }
        true
    }

    /// `update`: counts an ad; false for a malformed one.
    fn update(&mut self, ad: &ClassAd, options: u32) -> bool {
        let int = |name| lookup_int(ad, name);
        match self {
            Counts::Slots { .. } => {
                let (mut pslot, mut dslot, mut backfill) = (false, false, false);
                if options != 0 {
                    pslot = lookup_bool(ad, "PartitionableSlot").unwrap_or(false);
                    if !pslot {
                        dslot = lookup_bool(ad, "DynamicSlot").unwrap_or(false);
                    }
                    if options & BACKFILL_SLOTS != 0 {
                        backfill = lookup_bool(ad, "BackfillSlot").unwrap_or(false);
                    }
                }
                if options & IGNORE_DYNAMIC != 0 && dslot {
                    return true;
                }
                if options & ROLLUP_PARTITIONABLE != 0 && pslot {
                    if let Some(Value::List(children)) = lookup_value(ad, "ChildState") {
                        for child in children.items.iter() {
                            if let Expr::Lit(Value::Str(s)) = child {
                                self.count_state(s, backfill);
                            }
                        }
                    }
                    return true;
                }
                match lookup_str(ad, "State") {
                    Some(s) => self.count_state(&s, backfill),
                    None => false,
                }
            }
            Counts::Server {
                machines,
                avail,
                memory,
                disk,
                mips,
                kflops,
            } => {
                let Some(state) = lookup_str(ad, "State") else {
                    return false;
                };
                let values = ["Memory", "Disk", "Mips", "KFlops"].map(int);
                let st = state_number(&state);
                if st == CLAIMED || st == UNCLAIMED {
                    *avail += 1;
                }
                *machines += 1;
                let [m, d, mi, k] = values.map(|v| v.unwrap_or(0) as i32);
                *memory = memory.wrapping_add(m as u64);
                *disk = disk.wrapping_add(d as u64);
                *mips = mips.wrapping_add(mi as u64);
                *kflops = kflops.wrapping_add(k as u64);
                values.iter().all(Option::is_some)
            }
            Counts::Run {
                machines,
                mips,
                kflops,
                loadavg,
            } => {
                let m = int("Mips");
                let k = int("KFlops");
                let l = lookup_real(ad, "LoadAvg");
                *mips = mips.wrapping_add(m.unwrap_or(0) as i32 as u64);
                *kflops = kflops.wrapping_add(k.unwrap_or(0) as i32 as u64);
                *loadavg += l.unwrap_or(0.0) as f32;
                *machines += 1;
                m.is_some() && k.is_some() && l.is_some()
            }
            Counts::Jobs { schedd, counts } => {
                let names = if *schedd {
                    ["TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs"]
                } else {
                    ["RunningJobs", "IdleJobs", "HeldJobs"]
                };
                let mut good = true;
                for (name, n) in names.into_iter().zip(counts.iter_mut()) {
                    match int(name) {
                        Some(v) => *n += v as i32 as i64,
                        None => good = false,
                    }
                }
                good
            }
            Counts::StartDaemon(d) => {
                let mut bad = false;
                let mut need = |v: Option<i64>| {
                    bad |= v.is_none();
                    v.unwrap_or(0)
                };
                let total_slots = match int("TotalSlots").or_else(|| int("NumDynamicSlots")) {
                    Some(n) => n,
                    None => need(None),
                };
                let total_cpus = need(int("TotalCpus"));
                let total_gpus = need(int("TotalGPUs"));
                let total_mem = need(int("TotalMemory"));
                let opt = |name| int(name).unwrap_or(0);
                d.machines += 1;
                d.slots += total_slots;
                d.cpus += total_cpus;
                d.gpus += total_gpus;
                d.busy_cpus += opt("TotalInUseCpus");
                d.busy_gpus += opt("TotalInUseGPUs");
                d.bkfill_cpus += opt("TotalBackfillInUseCpus");
                d.bkfill_gpus += opt("TotalBackfillInUseGPUs");
                if total_mem != 0 {
                    d.mem_usage += opt("TotalInUseMemory") as f64 / total_mem as f64;
                    d.bk_mem_usage += opt("TotalBackfillInUseMemory") as f64 / total_mem as f64;
                } else {
                    bad = true;
                }
                !bad
            }
        }
    }

    /// `displayHeader`.
    fn header(&self, out: &mut String) {
        let line = match self {
            Counts::Slots { state_view, .. } => {
                let mut line = format!("{:>6.6}", "Total");
                for (label, w, _) in slot_columns(*state_view) {
                    let _ = write!(line, " {label:>w$.w$}");
                }
                line + &format!(" {:>6.6}", "BkIdle")
            }
            Counts::Server { .. } => format!(
                "{:>9.9} {:>5.5} {:>7.7} {:>11.11} {:>11.11} {:>11.11}",
                "Slots", "Avail", "Memory", "Disk", "MIPS", "KFLOPS"
            ),
            Counts::Run { .. } => format!(
                "{:>9.9}  {:>11.11}  {:>11.11}  {:>11.11}",
                "Machines", "MIPS", "KFLOPS", "AvgLoadAvg"
            ),
            Counts::Jobs { schedd: true, .. } => format!(
                "{:>18} {:>18} {:>18}",
                "TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs"
            ),
            Counts::Jobs { schedd: false, .. } => {
                format!(
                    "{:>11} {:>10} {:>10}",
                    "RunningJobs", "IdleJobs", "HeldJobs"
                )
            }
            Counts::StartDaemon { .. } => format!(
                "{:>8.8} {:>8.8} {:>8.8} {:>8.8} {:>8.8} {:>8.8} {:>8.8} {:>8.8} {:>8.8} {:>8.8}",
                "Machines",
                "Slots",
                "Cpus",
                "BusyCpus",
                "BkCpus",
                "GPUs",
                "BusyGPUs",
                "BkGPUs",
                "Memory%",
                "BkMem%"
            ),
        };
        out.push_str(&line);
        out.push('\n');
    }

    /// `displayInfo`; `top` for the Total row.
    fn info(&self, out: &mut String, top: bool) {
        let i = |n: i64| n as i32;
        let _ = match self {
            Counts::Slots {
                state_view,
                total,
                by_state,
                backfill_idle,
            } => {
                let _ = write!(out, "{:6}", i(*total));
                for (_, w, ix) in slot_columns(*state_view) {
                    let _ = write!(out, " {:w$}", i(by_state[ix]));
                }
                writeln!(out, " {:6}", i(*backfill_idle))
            }
            Counts::Server {
                machines,
                avail,
                memory,
                disk,
                mips,
                kflops,
            } => writeln!(
                out,
                "{:9} {:5} {:11} {:11} {:11} {:11}",
                i(*machines),
                i(*avail),
                memory,
                disk,
                mips,
                kflops
            ),
            Counts::Run {
                machines,
                mips,
                kflops,
                loadavg,
            } => {
                let avg = if *machines > 0 {
                    loadavg / *machines as f32
                } else {
                    0.0
                };
                writeln!(
                    out,
                    "{:9}  {:11}  {:11}   {}",
                    i(*machines),
                    mips,
                    kflops,
                    sprintf_float("%-.3f", avg as f64)
                )
            }
            Counts::Jobs {
                schedd: true,
                counts: [r, i_, h],
            } => {
                if top {
                    writeln!(out, "{:18} {:18} {:18}", i(*r), i(*i_), i(*h))
                } else {
                    Ok(())
                }
            }
            Counts::Jobs {
                schedd: false,
                counts: [r, i_, h],
            } => writeln!(out, "{:11} {:10} {:10}", i(*r), i(*i_), i(*h)),
            Counts::StartDaemon(d) => {
                let m = d.machines as f64;
                writeln!(
                    out,
                    "{:8} {:8} {:8} {:8} {:8} {:8} {:8} {:8} {}% {}%",
                    i(d.machines),
                    i(d.slots),
                    i(d.cpus),
                    i(d.busy_cpus),
                    i(d.bkfill_cpus),
                    i(d.gpus),
                    i(d.busy_gpus),
                    i(d.bkfill_gpus),
                    sprintf_float("%7.2f", 100.0 * d.mem_usage / m),
                    sprintf_float("%7.2f", 100.0 * d.bk_mem_usage / m)
                )
            }
        };
    }
}

/// `TrackTotals`: the counts of each key and of all.
#[derive(Debug)]
pub struct Totals {
    style: Pp,
    malformed: i64,
    /// The longest key given to [`Totals::update`] (`max_totals_subkey`).
    max_subkey: usize,
    by_key: BTreeMap<String, Counts>,
    top: Option<Counts>,
}

impl Totals {
    pub fn new(style: Pp) -> Totals {
        Totals {
            style,
            malformed: 0,
            max_subkey: 0,
            by_key: BTreeMap::new(),
            top: Counts::new(style),
        }
    }

    /// `haveTotals`: whether this style has a totals table.
    pub fn have_totals(&self) -> bool {
        matches!(
            self.style,
            Pp::SlotsNormal
                | Pp::SlotsServer
                | Pp::SlotsRun
                | Pp::SlotsState
                | Pp::ScheddNormal
                | Pp::SubmitterNormal
                | Pp::StartDaemon
        )
    }

    /// The width of the key column: at least 14, more for longer given keys.
    pub fn key_width(&self) -> usize {
        self.max_subkey.max(14)
    }

    /// Notes the length of a key given to [`Totals::update`].
    pub fn note_subkey(&mut self, len: usize) {
        self.max_subkey = self.max_subkey.max(len);
    }

    /// `makeKey`: the key an ad is counted under.
    fn key_of(&self, ad: &ClassAd) -> Option<String> {
        let text = |name| lookup_str(ad, name).map(|s| s.to_string());
        match self.style {
            Pp::SlotsNormal | Pp::SlotsRun | Pp::SlotsServer => {
                Some(format!("{}/{}", text("Arch")?, text("OpSys")?))
            }
            Pp::StartDaemon => platform_name(ad),
            Pp::SlotsState => text("Activity"),
            Pp::SubmitterNormal => text("Name"),
            Pp::ScheddNormal => Some(" ".to_owned()),
            _ => None,
        }
    }

    /// Counts an ad under `key` (its own key when `None` or empty).
    pub fn update(&mut self, ad: &ClassAd, options: u32, key: Option<&str>) {
        let key = match key.filter(|k| !k.is_empty()) {
            Some(k) => k.to_owned(),
            None => match self.key_of(ad) {
                Some(k) => k,
                None => {
                    self.malformed += 1;
                    return;
                }
            },
        };
        if !self.by_key.contains_key(&key) {
            match Counts::new(self.style) {
                Some(c) => {
                    self.by_key.insert(key.clone(), c);
                }
                None => return,
            }
        }
        let good = self
            .by_key
            .get_mut(&key)
            .is_some_and(|c| c.update(ad, options));
        if let Some(top) = &mut self.top {
            top.update(ad, options);
        }
        if !good {
            self.malformed += 1;
        }
    }

    /// `displayTotals`: keys right-aligned in `key_width` columns (fitted to the longest key
    /// when `None`).
    pub fn display(&self, out: &mut String, key_width: Option<usize>) {
        let Some(top) = &self.top else {
            return;
        };
        if !self.have_totals() {
            return;
        }
        let width = match key_width {
            Some(w) => w,
            None => self.by_key.keys().map(String::len).fold(5, usize::max),
        };
        let key = |k: &str| {
            let cut = floor_char_boundary(k, width);
            format!("{:>width$}", &k[..cut])
        };
        out.push_str(&" ".repeat(width));
        top.header(out);
        out.push('\n');
        for (k, counts) in &self.by_key {
            out.push_str(&key(k));
            counts.info(out, false);
        }
        if !self.by_key.is_empty() {
            out.push('\n');
        }
        out.push_str(&key("Total"));
        top.info(out, true);
        if self.malformed > 0 {
            let _ = write!(
                out,
                "\n{}(Omitted {} malformed ads in computed attribute totals)\n\n",
                " ".repeat(width),
                self.malformed as i32
            );
        }
    }
}
