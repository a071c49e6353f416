//! The tables `condor_status` prints, one per display mode, as the print formats of HTCondor's
//! src/condor_status.V6/prettyPrint.cpp declare them, and the custom renderers they use
//! (src/condor_utils/print_format_tables.cpp and status.cpp's local ones).
//!
//! A column is declared as a print format's `SELECT` line is ([`Sel`]: an expression, `AS`
//! heading, `WIDTH`, `PRINTF` or `PRINTAS`, `TRUNCATE`, `FIT`, `NOPREFIX`, `OR`), and
//! registered in the mask as HTCondor's `AddAttrListRow` does with condor_status's settings
//! (a fixed width does not make a printf format, nor truncate by itself).

use crate::classad::unparse::{expr_to_old_string, write_value, Syntax};
use crate::classad::{ClassAd, Expr, Value};
use crate::output::mask::{
    Alt, Column, FloatRender, IntFormat, PrintMask, Render, RenderEnv, StrRender, AUTO_WIDTH,
    NO_PREFIX, NO_TRUNCATE,
};
use crate::output::render::{lookup_bool, lookup_int, lookup_str, lookup_value};
use crate::output::time::{format_date, format_time};

/// A `PRINTAS` function: its default printf format and how it renders.
#[derive(Clone, Copy, Debug)]
pub struct PrintAs {
    printf: Option<&'static str>,
    render: Render,
}

/// `WIDTH`.
#[derive(Clone, Copy, Debug)]
enum Width {
    /// None given: the heading's width, left-aligned, growing to fit.
    Label,
    Auto,
    Fixed(i32),
}

/// One `SELECT` line.
#[derive(Clone, Copy, Debug)]
pub struct Sel {
    expr: &'static str,
    label: Option<&'static str>,
    width: Width,
    printf: Option<&'static str>,
    print_as: Option<PrintAs>,
    truncate: bool,
    fit: bool,
    noprefix: bool,
    alt: &'static str,
}

/// A column showing `expr`.
pub const fn sel(expr: &'static str) -> Sel {
    Sel {
        expr,
        label: None,
        width: Width::Label,
        printf: None,
        print_as: None,
        truncate: false,
        fit: false,
        noprefix: false,
        alt: "",
    }
}

impl Sel {
    /// `AS label`.
    pub const fn label(mut self, label: &'static str) -> Sel {
        self.label = Some(label);
        self
    }
    /// `WIDTH n` (negative: left-aligned).
    pub const fn width(mut self, width: i32) -> Sel {
        self.width = Width::Fixed(width);
        self
    }
    /// `WIDTH AUTO`.
    pub const fn auto(mut self) -> Sel {
        self.width = Width::Auto;
        self
    }
    /// `PRINTF fmt`.
    pub const fn printf(mut self, fmt: &'static str) -> Sel {
        self.printf = Some(fmt);
        self
    }
    /// `PRINTAS function`.
    pub const fn print_as(mut self, f: PrintAs) -> Sel {
        self.print_as = Some(f);
        self
    }
    /// `TRUNCATE`.
    pub const fn truncate(mut self) -> Sel {
        self.truncate = true;
        self
    }
    /// `FIT`.
    pub const fn fit(mut self) -> Sel {
        self.fit = true;
        self
    }
    /// `NOPREFIX`.
    pub const fn noprefix(mut self) -> Sel {
        self.noprefix = true;
        self
    }
    /// `OR alt`.
    pub const fn or(mut self, alt: &'static str) -> Sel {
        self.alt = alt;
        self
    }

    /// Adds the column and its heading to `mask` (`AddAttrListRow`).
    pub fn register(&self, mask: &mut PrintMask) {
        let mut opts = 0;
        let mut defaults = AUTO_WIDTH | NO_TRUNCATE;
        if self.fit {
            opts |= NO_TRUNCATE;
        }
        match self.width {
            Width::Auto => opts |= AUTO_WIDTH,
            Width::Fixed(_) => defaults &= !AUTO_WIDTH,
            Width::Label => {}
        }
        if self.truncate {
            opts &= !NO_TRUNCATE;
            defaults &= !NO_TRUNCATE;
        }
        if self.noprefix {
            opts |= NO_PREFIX;
        }
        opts |= defaults;
        let heading = self.label.unwrap_or(self.expr);
        let width = match self.width {
            Width::Fixed(w) => w,
            _ => -(heading.len() as i32),
        };
        let (printf, render) = match (self.print_as, self.printf, self.width) {
            (Some(f), _, _) => (f.printf, f.render),
            (None, Some(p), _) => (Some(p), Render::Printf),
            (None, None, Width::Fixed(_)) => (None, Render::Printf),
            (None, None, _) => (Some("%v"), Render::Printf),
        };
        let col =
            Column::new(self.expr, printf, width, opts, render).with_alt(Alt::from_text(self.alt));
        mask.push_headed(heading, col);
    }
}

/// Registers every line of a format.
pub fn register_all(mask: &mut PrintMask, lines: &[Sel]) {
    for line in lines {
        line.register(mask);
    }
}

// ---------------------------------------------------------------------------------------------
// The PRINTAS functions.

/// A function that renders text from the ad.
const fn text(render: StrRender) -> PrintAs {
    PrintAs {
        printf: None,
        render: Render::Str(render),
    }
}

/// A function that renders a number of seconds from the ad, shown as `days+hh:mm:ss`.
const fn duration(render: FloatRender) -> PrintAs {
    PrintAs {
        printf: Some("%T"),
        render: Render::Float(render),
    }
}

/// A function that formats the attribute's number.
const fn number(format: IntFormat) -> PrintAs {
    PrintAs {
        printf: None,
        render: Render::IntFormat(format),
    }
}

pub const ACTIVITY_OR_OCU: PrintAs = text(render_activity_or_ocu);
/// `LOAD_AVG`: `%.3f`.
pub const LOAD_AVG: PrintAs = PrintAs {
    printf: Some("%.3f"),
    render: Render::Printf,
};
pub const ACTIVITY_TIME: PrintAs = duration(render_activity_time);
/// `ELAPSED_TIME` of `EnteredCurrentState`.
pub const ELAPSED_STATE: PrintAs = duration(|ad, _| elapsed(ad, "EnteredCurrentState"));
/// `ELAPSED_TIME` of `EnteredCurrentActivity`.
pub const ELAPSED_ACTIVITY: PrintAs = duration(|ad, _| elapsed(ad, "EnteredCurrentActivity"));
/// `ELAPSED_TIME` of `DaemonStartTime`.
pub const ELAPSED_START: PrintAs = duration(|ad, _| elapsed(ad, "DaemonStartTime"));
/// `TIME`: a number of seconds as `days+hh:mm:ss`.
pub const TIME: PrintAs = number(format_time);
/// `DATE`: a time as `month/day hour:minute`.
pub const DATE: PrintAs = number(format_date);
pub const PLATFORM: PrintAs = text(|ad, _| platform_name(ad));
/// `ACTIVITY_CODE` of `Activity`.
pub const ACTIVITY_CODE: PrintAs = text(render_activity_code);
/// `CONDOR_VERSION` of `CondorVersion`.
pub const CONDOR_VERSION: PrintAs = text(|ad, _| {
    let v = lookup_str(ad, "CondorVersion")?;
    (!v.is_empty()).then(|| format_version(&v))
});
/// `READABLE_MB` of `DetectedMemory`.
pub const READABLE_MB: PrintAs = text(|ad, _| Some(readable_mb(&eval(ad, "DetectedMemory"))));
/// `MEMBER_COUNT` of `DetectedGPUs`.
pub const MEMBER_COUNT: PrintAs = PrintAs {
    printf: Some("%d"),
    render: Render::Float(|ad, _| member_count(&eval(ad, "DetectedGPUs")).map(|n| n as f64)),
};
/// `UNIQUE` of `ChildRemoteUser`.
pub const UNIQUE: PrintAs = text(|ad, _| unique_strings(&eval(ad, "ChildRemoteUser")));
/// condor_status's own `SLOT_COUNT_TAG` of `SlotType`.
pub const SLOT_COUNT_TAG: PrintAs = text(|ad, _| {
    let t = lookup_str(ad, "SlotType")
        .map(|s| s.to_string())
        .unwrap_or_default();
    Some(match t.as_str() {
        "Static" => "S".to_owned(),
        "Partitionable" => " ".to_owned(),
        _ => t.chars().next().map(String::from).unwrap_or_default(),
    })
});

/// The value of an attribute, or of the expression its name is, as the mask evaluates it.
fn eval(ad: &ClassAd, name: &str) -> Value {
    lookup_value(ad, name).unwrap_or(Value::Undefined)
}

fn render_activity_or_ocu(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    let activity = lookup_str(ad, "Activity")
        .map(|s| s.to_string())
        .unwrap_or_default();
    if activity.is_empty() {
        return Some("??".to_owned());
    }
    if lookup_bool(ad, "OCU") == Some(true) && activity == "Idle" {
        return Some("OCU".to_owned());
    }
    Some(activity)
}

/// `ACTIVITY_TIME`: how long the slot has been in its activity, by the ad's own clock.
fn render_activity_time(ad: &ClassAd, _: &RenderEnv) -> Option<f64> {
    let entered = lookup_int(ad, "EnteredCurrentActivity").unwrap_or(0);
    let now = lookup_int(ad, "MyCurrentTime").or_else(|| lookup_int(ad, "LastHeardFrom"))?;
    Some((now - entered).max(0) as f64)
}

/// `ELAPSED_TIME`: `LastHeardFrom` minus the attribute.
fn elapsed(ad: &ClassAd, name: &str) -> Option<f64> {
    let since = lookup_int(ad, name).unwrap_or(0);
    let now = lookup_int(ad, "LastHeardFrom")?;
    Some((now - since) as f64)
}

/// `format_platform_name`: `x64/Debian12` from `Arch` and `OpSysAndVer` (`OpSysShortName` on
/// Windows).
pub fn platform_name(ad: &ClassAd) -> Option<String> {
    let opsys = lookup_str(ad, "OpSys");
    let name = if opsys.as_deref() == Some("WINDOWS") {
        lookup_str(ad, "OpSysShortName")?
    } else {
        lookup_str(ad, "OpSysAndVer")?
    };
    // Without an Arch, the string keeps what it held: the column's own value (OpSys).
    let arch = lookup_str(ad, "Arch")
        .map(|a| a.to_string())
        .or_else(|| opsys.map(|o| o.to_string()))
        .unwrap_or_default();
    let arch = match arch.as_str() {
        "X86_64" => "x64".to_owned(),
        "X86" => "x86".to_owned(),
        _ => arch,
    };
    Some(format!("{arch}/{name}"))
}

/// `format_version`: `24.0.24.<build id>` from a `$CondorVersion: ... $` string.
pub fn format_version(text: &str) -> String {
    const MAX: usize = 21;
    let b = text.as_bytes();
    let mut p = 0;
    let mut out = String::new();
    let skip_word = |p: &mut usize| {
        while *p < b.len() && b[*p] != b' ' {
            *p += 1;
        }
    };
    let skip_spaces = |p: &mut usize| {
        while *p < b.len() && b[*p] == b' ' {
            *p += 1;
        }
    };
    skip_word(&mut p);
    skip_spaces(&mut p);
    while p < b.len() && b[p] != b' ' {
        if out.len() < MAX {
            out.push(b[p] as char);
        }
        p += 1;
    }
    skip_spaces(&mut p);
    let rest = &b[p..];
    let dash_at = |from: usize| {
        rest[from.min(rest.len())..]
            .iter()
            .position(|&c| c == b'-')
            .map(|i| i + from)
    };
    if dash_at(0) == Some(4) && dash_at(5) == Some(7) {
        skip_word(&mut p);
    } else {
        for _ in 0..3 {
            skip_word(&mut p);
            skip_spaces(&mut p);
        }
    }
    skip_spaces(&mut p);
    if b.get(p) == Some(&b'B') {
        skip_word(&mut p);
        skip_spaces(&mut p);
    }
    if p < b.len() && b[p] != b'$' {
        out.push('.');
        while p < b.len() && b[p] != b'-' && b[p] != b' ' {
            if out.len() < MAX {
                out.push(b[p] as char);
            }
            p += 1;
        }
    }
    out
}

/// `metric_units`: a number of bytes as `15.6 GB` (`B ` for bytes).
pub fn metric_units(bytes: f64) -> String {
    const SUFFIX: [&str; 5] = ["B ", "KB", "MB", "GB", "TB"];
    let mut value = bytes;
    let mut power = 0;
    while value > 1024.0 && power < SUFFIX.len() - 1 {
        value /= 1024.0;
        power += 1;
    }
    format!("{value:.1} {}", SUFFIX[power])
}

/// `format_readable_mb`.
fn readable_mb(v: &Value) -> String {
    match v {
        Value::Int(i) => metric_units(*i as f64 * 1024.0 * 1024.0),
        Value::Real(r) => metric_units(r * 1024.0 * 1024.0),
        _ => "        ".to_owned(),
    }
}

/// `StringTokenIterator`'s items: separated by commas and white space.
fn string_items(s: &str) -> impl Iterator<Item = &str> {
    s.split([',', ' ', '\t', '\r', '\n'])
        .filter(|t| !t.is_empty())
}

/// `render_member_count`: the items of a string list or a list.
fn member_count(v: &Value) -> Option<usize> {
    match v {
        Value::Str(s) => Some(string_items(s).count()),
        Value::List(l) => Some(l.items.len()),
        _ => None,
    }
}

/// `render_unique_strings`: the distinct items of a list or string list, sorted, joined by
/// `, `.
fn unique_strings(v: &Value) -> Option<String> {
    let mut items: Vec<String> = match v {
        Value::Str(s) => string_items(s).map(str::to_owned).collect(),
        Value::List(l) => l
            .items
            .iter()
            .map(|e| match e {
                Expr::Lit(Value::Str(s)) => s.to_string(),
                other => expr_to_old_string(other),
            })
            .collect(),
        _ => return None,
    };
    items.sort();
    items.dedup();
    Some(items.join(", "))
}

// ---------------------------------------------------------------------------------------------
// States and activities (src/condor_utils/condor_state.cpp).

const STATES: [&str; 10] = [
    "None",
    "Owner",
    "Unclaimed",
    "Matched",
    "Claimed",
    "Preempting",
    "Shutdown",
    "Delete",
    "Backfill",
    "Drained",
];
const ACTIVITIES: [&str; 9] = [
    "None",
    "Idle",
    "Busy",
    "Retiring",
    "Vacating",
    "Suspended",
    "Benchmarking",
    "Killing",
    "Cleaning",
];

/// The `State` enum's values condor_status counts.
pub const NO_STATE: usize = 0;
pub const OWNER: usize = 1;
pub const UNCLAIMED: usize = 2;
pub const MATCHED: usize = 3;
pub const CLAIMED: usize = 4;
pub const PREEMPTING: usize = 5;
pub const SHUTDOWN: usize = 6;
pub const DELETE: usize = 7;
pub const BACKFILL: usize = 8;
pub const DRAINED: usize = 9;
/// `_state_threshold_`.
pub const STATE_THRESHOLD: usize = 10;
/// `_error_state_`: a name that is no state.
pub const ERROR_STATE: usize = 11;

pub const NO_ACT: usize = 0;
pub const VACATING: usize = 4;
/// `_act_threshold_`.
pub const ACT_THRESHOLD: usize = 9;
pub const ERROR_ACT: usize = 10;

/// `string_to_state`.
pub fn state_number(name: &str) -> usize {
    STATES
        .iter()
        .position(|s| *s == name)
        .unwrap_or(ERROR_STATE)
}

/// `string_to_activity`.
pub fn activity_number(name: &str) -> usize {
    ACTIVITIES
        .iter()
        .position(|a| *a == name)
        .unwrap_or(ERROR_ACT)
}

/// `digest_state_and_activity`: the two letters of `ST` (`Ui` for Unclaimed/Idle).
pub fn state_activity_code(state: usize, activity: usize) -> String {
    const STATE_LETTERS: &[u8] = b"~OUMCPSXFD#?";
    const ACT_LETTERS: &[u8] = b"0ibrvsekc#?";
    let mut code = [b' ', b' '];
    if state > NO_STATE && state <= STATE_THRESHOLD {
        code[0] = STATE_LETTERS[state];
    }
    if activity > NO_ACT && activity <= ACT_THRESHOLD {
        code[1] = ACT_LETTERS[activity];
    }
    String::from_utf8_lossy(&code).into_owned()
}

/// `render_activity_code`: the state and activity letters of a slot.
fn render_activity_code(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    let text = |name| lookup_str(ad, name).map(|s| s.to_string());
    let act = text("Activity").unwrap_or_default();
    let mut ac = activity_number(&act);
    let st;
    let ok;
    if ac > NO_ACT && ac < ACT_THRESHOLD {
        ok = true;
        st = state_number(&text("State").unwrap_or(act));
    } else {
        st = state_number(&act);
        ok = st > NO_STATE && st < STATE_THRESHOLD;
        if ok {
            ac = activity_number(&text("Activity").unwrap_or(act));
        }
    }
    ok.then(|| state_activity_code(st, ac))
}

/// The value unparsed as a sort key or message shows it.
pub fn value_text(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v, Syntax::Old);
    s
}

// ---------------------------------------------------------------------------------------------
// The formats.

/// The slots' default table (`startdPFV_Normal`); `narrow` for the `  ActvtyTime` column of
/// displays under 100 columns.
pub fn slots_normal(narrow: bool) -> Vec<Sel> {
    let mut v = vec![
        sel("Name").width(-34).fit().printf("%s").or("??"),
        sel("OpSys").width(-10).or("??"),
        sel("Arch").width(-8).or("??"),
        sel("State").auto().or("??"),
        sel("Activity").width(-8).print_as(ACTIVITY_OR_OCU).or("??"),
        sel("CondorLoadAvg")
            .label("LoadAv")
            .width(6)
            .truncate()
            .print_as(LOAD_AVG)
            .or("??"),
        sel("Memory").label("Mem").width(6).printf("%6d").or("??"),
    ];
    v.push(if narrow {
        sel("EnteredCurrentActivity")
            .label("  ActvtyTime")
            .width(12)
            .noprefix()
            .truncate()
            .print_as(ACTIVITY_TIME)
            .or("-")
    } else {
        sel("EnteredCurrentActivity")
            .label("ActivityTime")
            .auto()
            .truncate()
            .print_as(ACTIVITY_TIME)
            .or("-")
    });
    v
}

/// `-claimed`: the default table without state and activity, with the claim's user and host.
pub fn slots_claimed() -> Vec<Sel> {
    let mut v = slots_normal(true);
    v.truncate(8);
    v.remove(4);
    v.remove(3);
    v[4] = sel("RemoteUser").width(-20).or("??");
    v[5] = sel("ClientMachine").width(-16).or("??");
    v.truncate(6);
    v
}

/// `-server`.
pub fn slots_server() -> Vec<Sel> {
    vec![
        sel("Name").width(-34).fit().printf("%s").or("??"),
        sel("OpSys").width(-10).or("??"),
        sel("Arch").width(-8).or("??"),
        sel("CondorLoadAvg")
            .label("LoadAv")
            .width(6)
            .truncate()
            .print_as(LOAD_AVG)
            .or("??"),
        sel("Memory").width(8).printf("%8d").or("??"),
        sel("Disk").width(9).printf("%9d").or("??"),
        sel("Mips").width(7).printf("%7d").or("??"),
        sel("KFlops").width(9).printf("%9d").or("??"),
    ]
}

/// `-state`.
pub fn slots_state() -> Vec<Sel> {
    vec![
        sel("Name").width(-34).fit().printf("%s").or("??"),
        sel("Cpus").label("Cpu").or("??"),
        sel("Memory").label(" Mem").width(5).or("??"),
        sel("CondorLoadAvg")
            .label("LoadAv")
            .width(6)
            .truncate()
            .print_as(LOAD_AVG)
            .or("??"),
        sel("KeyboardIdle")
            .label("  KbdIdle")
            .width(12)
            .truncate()
            .print_as(TIME)
            .or("??"),
        sel("State").width(-7).or("??"),
        sel("EnteredCurrentState")
            .label("  StateTime")
            .width(12)
            .truncate()
            .print_as(ELAPSED_STATE)
            .or("??"),
        sel("Activity").label("Activ").or("??"),
        sel("EnteredCurrentActivity")
            .label("  ActvtyTime")
            .width(12)
            .truncate()
            .print_as(ELAPSED_ACTIVITY)
            .or("-"),
    ]
}

/// The first columns of every `-compact` table: the machine, its platform, its slot count.
fn compact_lead() -> [Sel; 4] {
    [
        sel("Machine").label("Machine").auto(),
        sel("OpSys").label("Platform").print_as(PLATFORM),
        sel("NumDynamicSlots").label("Slot").printf("%4d").or(" "),
        sel("SlotType")
            .label("s")
            .noprefix()
            .print_as(SLOT_COUNT_TAG),
    ]
}

/// The resource columns `-compact` tables share.
fn compact_resources() -> [Sel; 3] {
    [
        sel("TotalSlotCpus").label("Cpus").printf("%4d"),
        sel("TotalSlotGpus").label("Gpus").printf("%4d"),
        sel("TotalSlotMemory/1024.0")
            .label(" TotalGb")
            .printf("%8.2f"),
    ]
}

fn cpu_load() -> Sel {
    sel("TotalLoadAvg*1.0/TotalCpus")
        .label("CpuLoad")
        .printf("%7.2f")
}

fn state_code() -> Sel {
    sel("Activity").label("ST").width(2).print_as(ACTIVITY_CODE)
}

fn job_starts() -> Sel {
    sel("RecentJobStarts/20.0")
        .label("Jobs/Min")
        .printf("%8.2f")
        .or("_")
}

/// `-compact`.
pub fn slots_compact() -> Vec<Sel> {
    let mut v: Vec<Sel> = compact_lead().into();
    v.extend(compact_resources());
    v.extend([
        sel("Cpus").label("FreCpu").printf("%6d"),
        sel("Memory/1024.0").label(" FreeGb ").printf("%8.2f"),
        cpu_load(),
        state_code(),
        job_starts(),
        sel("Max(ChildMemory)/1024.0")
            .label("MaxSlotGb")
            .printf("%9.2f")
            .or("*"),
    ]);
    v
}

/// `-compact -server`.
pub fn server_compact() -> Vec<Sel> {
    let mut v: Vec<Sel> = compact_lead().into();
    v.extend(compact_resources());
    v.extend([
        sel("Mips").label(" Mips  ").printf("%7d").or("-"),
        sel("KFlops").label(" KFlops  ").printf("%9d").or("-"),
        cpu_load(),
        state_code(),
        job_starts(),
    ]);
    v
}

/// `-compact -state`.
pub fn state_compact() -> Vec<Sel> {
    let mut v: Vec<Sel> = compact_lead().into();
    v.extend(compact_resources());
    v.extend([cpu_load(), state_code(), job_starts()]);
    v
}

/// `-compact -claimed`.
pub fn claimed_compact() -> Vec<Sel> {
    let mut v: Vec<Sel> = compact_lead().into();
    v.push(sel("ChildRemoteUser").label("Users").print_as(UNIQUE));
    v
}

/// `-schedd`.
pub fn schedd_normal() -> Vec<Sel> {
    vec![
        sel("Name").label("Name").auto(),
        sel("Machine").label("Machine").auto(),
        sel("TotalRunningJobs").label("RunningJobs").printf("%11d"),
        sel("TotalIdleJobs").label("  IdleJobs").printf("%10d"),
        sel("TotalHeldJobs").label("  HeldJobs").printf("%10d"),
    ]
}

/// `-run` (`-schedd -run`): schedds running jobs.
pub fn schedd_run() -> Vec<Sel> {
    vec![
        sel("Name").label("Name").auto(),
        sel("TotalJobAds").label("TotalJobs").printf("%9d"),
        sel("ShadowsRunning").label("Shadows").printf("%7d"),
        sel("TotalSchedulerJobsRunning")
            .label("ActiveDAGs")
            .printf("%10d"),
        sel("TotalSchedulerJobsIdle")
            .label("IdleDAGs")
            .printf("%8d"),
        sel("RecentJobsCompleted").label("RcntDone").printf("%8d"),
        sel("RecentJobsStarted").label("RcntStart").printf("%9d"),
    ]
}

/// `-submitters`.
pub fn submitters() -> Vec<Sel> {
    vec![
        sel("Name").auto(),
        sel("Machine").auto(),
        sel("RunningJobs").label("RunningJobs").printf("%11d"),
        sel("IdleJobs").label("  IdleJobs").printf("%10d"),
        sel("HeldJobs").label("  HeldJobs").printf("%10d"),
    ]
}

/// `-collector`.
pub fn collector() -> Vec<Sel> {
    vec![
        sel("Name").auto(),
        sel("Machine").auto(),
        sel("RunningJobs").printf("%11d"),
        sel("IdleJobs").label("  IdleJobs").printf("%10d"),
        sel("HostsTotal").printf("%10d"),
    ]
}

/// The columns the master and startd tables share: the machine's CPUs and memory.
fn detected() -> [Sel; 2] {
    [
        sel("DetectedCpus")
            .label("Cpus")
            .width(4)
            .printf("%4d")
            .or("??"),
        sel("DetectedMemory")
            .label("  Memory")
            .width(10)
            .print_as(READABLE_MB)
            .or("??"),
    ]
}

/// How long the daemon has been up.
fn uptime() -> Sel {
    sel("DaemonStartTime")
        .label("   Uptime")
        .width(13)
        .print_as(ELAPSED_START)
}

/// `-master`.
pub fn master() -> Vec<Sel> {
    let mut v = vec![
        sel("Name").label("Name").auto(),
        sel("CondorVersion")
            .label("Version")
            .width(-14)
            .print_as(CONDOR_VERSION),
    ];
    v.extend(detected());
    v.push(uptime());
    v
}

/// `-startd`: the startd daemons.
pub fn start_daemon() -> Vec<Sel> {
    let mut v = vec![
        sel("Name").label("Name").auto(),
        sel("OpSys").label("Platform").auto().print_as(PLATFORM),
        sel("CondorVersion")
            .label("Version")
            .auto()
            .print_as(CONDOR_VERSION),
    ];
    v.extend(detected());
    v.push(
        sel("DetectedGPUs")
            .label("GPUs")
            .width(5)
            .print_as(MEMBER_COUNT)
            .or(" "),
    );
    v.push(uptime());
    v
}

/// `-negotiator`.
pub fn negotiator() -> Vec<Sel> {
    vec![
        sel("Name").label("Name").auto(),
        sel("LastNegotiationCycleEnd0")
            .label("LastCycleEnd")
            .width(12)
            .print_as(DATE),
        sel("LastNegotiationCycleDuration0")
            .label("(Sec)")
            .printf("%5d"),
        sel("LastNegotiationCycleCandidateSlots0")
            .label("  Slots")
            .printf("%7d"),
        sel("LastNegotiationCycleActiveSubmitterCount0")
            .label("Submitrs")
            .printf("%8d"),
        sel("LastNegotiationCycleNumSchedulers0")
            .label("Schedds")
            .printf("%7d"),
        sel("LastNegotiationCycleNumIdleJobs0")
            .label("   Jobs")
            .printf("%7d"),
        sel("LastNegotiationCycleMatches0")
            .label("Matches")
            .printf("%7d"),
        sel("LastNegotiationCycleRejections0")
            .label("Rejections")
            .printf("%10d"),
    ]
}

/// The `WHERE` constraints of the formats that have one.
pub const SCHEDD_RUN_WHERE: &str = "(ShadowsRunning+TotalSchedulerJobsRunning) > 0";
pub const STARTD_COMPACT_WHERE: &str = "PartitionableSlot =?= true || DynamicSlot =!= true";
pub const CLAIMED_COMPACT_WHERE: &str =
    "(State == \"Claimed\" && DynamicSlot =!= true) || (NumDynamicSlots isnt undefined && NumDynamicSlots > 0)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_as_format_version_cuts_them() {
        assert_eq!(
            format_version("$CondorVersion: 24.0.24 2026-11-22 BuildID: condorlite-0.1.0 $"),
            "24.0.24.condorlite"
        );
        assert_eq!(
            format_version(
                "$CondorVersion: 24.0.2 2024-12-01 BuildID: 769530 PackageID: 24.0.2-1 $"
            ),
            "24.0.2.769530"
        );
        assert_eq!(
            format_version("$CondorVersion: 8.8.5 Sep 05 2019 BuildID: 482140 $"),
            "8.8.5.482140"
        );
        assert_eq!(
            format_version("$CondorVersion: 9.0.0 2021-04-01 $"),
            "9.0.0"
        );
    }

    #[test]
    fn sizes_and_codes() {
        assert_eq!(metric_units(16000.0 * 1024.0 * 1024.0), "15.6 GB");
        assert_eq!(metric_units(512.0), "512.0 B ");
        assert_eq!(state_activity_code(UNCLAIMED, 1), "Ui");
        assert_eq!(
            state_activity_code(state_number("Claimed"), activity_number("Busy")),
            "Cb"
        );
        assert_eq!(state_activity_code(ERROR_STATE, ERROR_ACT), "  ");
        assert_eq!(state_activity_code(STATE_THRESHOLD, ACT_THRESHOLD), "##");
    }
}
