//! The `PRINTAS` functions of HTCondor's print formats: the global table every tool searches
//! (`GlobalPrintFormats[]`, src/condor_utils/print_format_tables.cpp) and the renderers behind
//! it. A tool may put its own table first (condor_q's and condor_status's local ones);
//! [`lookup`] searches the tables in order.
//!
//! Most functions render the value of the column's own attribute or expression
//! ([`Render::Value`]), as HTCondor's do; those that read fixed attributes of the job ad
//! (`JOB_DESCRIPTION`, `OWNER`, `JOB_STATUS`, ...) are the job tools' shared renderers from
//! [`super::render`]. Not provided (a format naming them gets `Unknown argument ... for
//! PRINTAS`, and the README says so): the standard-universe and grid functions
//! `BUFFER_IO_MISC`, `CPU_UTIL`, `STDU_GOODPUT`, `STDU_MPBS`, `GRID_JOB_ID`, `GRID_RESOURCE`,
//! `GRID_STATUS`.

use crate::classad::unparse::expr_to_old_string;
use crate::classad::{ClassAd, Expr, Value};

use super::mask::{Cell, FloatRender, IntFormat, Render, RenderEnv, StrRender, ValueRender};
use super::render::{
    lookup_int, lookup_str, render_job_description, render_job_id, render_job_status,
    render_memory_usage, render_owner, universe_name,
};
use super::time::{format_date, format_time};

/// A `PRINTAS` function: its name, its default printf format and how it renders.
#[derive(Clone, Copy, Debug)]
pub struct PrintAs {
    pub name: &'static str,
    pub printf: Option<&'static str>,
    pub render: Render,
}

/// A function that renders text from the ad.
pub const fn text(name: &'static str, render: StrRender) -> PrintAs {
    PrintAs {
        name,
        printf: None,
        render: Render::Str(render),
    }
}

/// A function that renders a number of seconds from the ad, shown as `days+hh:mm:ss`.
pub const fn duration(name: &'static str, render: FloatRender) -> PrintAs {
    PrintAs {
        name,
        printf: Some("%T"),
        render: Render::Float(render),
    }
}

/// A function that formats the column's number.
pub const fn number(name: &'static str, format: IntFormat) -> PrintAs {
    PrintAs {
        name,
        printf: None,
        render: Render::IntFormat(format),
    }
}

/// A function of the column's value, shown through `printf` (`None`: as the text it makes).
pub const fn of_value(
    name: &'static str,
    printf: Option<&'static str>,
    render: ValueRender,
) -> PrintAs {
    PrintAs {
        name,
        printf,
        render: Render::Value(render),
    }
}

/// The function named `name` (case-sensitive, as the tokener's table compares): in the
/// tool's own table first, then in the global one.
pub fn lookup(local: &[PrintAs], name: &str) -> Option<PrintAs> {
    local.iter().chain(GLOBAL).find(|f| f.name == name).copied()
}

pub const ACTIVITY_CODE: PrintAs = of_value("ACTIVITY_CODE", None, render_activity_code);
/// `ACTIVITY_TIME`: how long the slot has been in its activity, by the ad's own clock.
pub const ACTIVITY_TIME: PrintAs = of_value("ACTIVITY_TIME", Some("%T"), |v, ad, _| {
    let now = lookup_int(ad, "MyCurrentTime").or_else(|| lookup_int(ad, "LastHeardFrom"));
    match now {
        Some(now) => Cell::Int((now - v.as_number_int().unwrap_or(0)).max(0)),
        None => Cell::Invalid,
    }
});
/// `CONDOR_VERSION`: `24.0.24.<build id>`.
pub const CONDOR_VERSION: PrintAs = of_value("CONDOR_VERSION", None, |v, _, _| match v {
    Value::Str(s) if !s.is_empty() => Cell::Str(format_version(s)),
    _ => Cell::Invalid,
});
/// `DATE`: a time as `month/day hour:minute`.
pub const DATE: PrintAs = number("DATE", format_date);
/// `ELAPSED_TIME`: `LastHeardFrom` minus the value.
pub const ELAPSED_TIME: PrintAs =
    of_value("ELAPSED_TIME", Some("%T"), |v, ad, _| {
        match lookup_int(ad, "LastHeardFrom") {
            Some(now) => Cell::Int(now - v.as_number_int().unwrap_or(0)),
            None => Cell::Invalid,
        }
    });
/// `LOAD_AVG`: `%.3f`.
pub const LOAD_AVG: PrintAs = PrintAs {
    name: "LOAD_AVG",
    printf: Some("%.3f"),
    render: Render::Printf,
};
/// `MEMBER_COUNT`: the items of a list or string list.
pub const MEMBER_COUNT: PrintAs = of_value("MEMBER_COUNT", Some("%d"), |v, _, _| {
    member_count(v).map_or(Cell::Invalid, |n| Cell::Int(n as i64))
});
pub const PLATFORM: PrintAs = text("PLATFORM", |ad, _| platform_name(ad));
/// `QDATE`.
pub const QDATE: PrintAs = PrintAs {
    name: "QDATE",
    printf: Some("%Y"),
    render: Render::IntFormat(format_date),
};
/// `READABLE_MB`: a number of megabytes as `15.6 GB`.
pub const READABLE_MB: PrintAs = of_value("READABLE_MB", None, |v, _, _| {
    Cell::Str(readable(v, 1024.0 * 1024.0))
});
/// `TIME`: a number of seconds as `days+hh:mm:ss`.
pub const TIME: PrintAs = number("TIME", format_time);
/// `UNIQUE`: the distinct items of a list, sorted (`render_unique_strings`: nothing for
/// another value).
pub const UNIQUE: PrintAs = of_value("UNIQUE", None, |v, _, _| match v {
    Value::List(_) => Cell::Str(unique_strings(v)),
    _ => Cell::Invalid,
});

/// `GlobalPrintFormats[]`.
pub const GLOBAL: &[PrintAs] = &[
    ACTIVITY_CODE,
    ACTIVITY_TIME,
    text("BATCH_NAME", render_batch_name),
    of_value("CONDOR_PLATFORM", None, |v, _, _| match v {
        Value::Str(s) if !s.is_empty() => Cell::Str(condor_platform(s)),
        _ => Cell::Invalid,
    }),
    CONDOR_VERSION,
    text("DAG_OWNER", |ad, env| {
        if ad.lookup("DAGManJobId").is_some() {
            if let Some(name) = lookup_str(ad, "DAGNodeName") {
                return Some(name.to_string());
            }
        }
        render_owner(ad, env)
    }),
    DATE,
    of_value("DUE_DATE", Some("%Y"), |v, ad, _| {
        match lookup_int(ad, "LastHeardFrom") {
            Some(now) => Cell::Int(now + v.as_number_int().unwrap_or(0)),
            None => Cell::Invalid,
        }
    }),
    ELAPSED_TIME,
    text("JOB_COMMAND", render_job_cmd_and_args),
    text("JOB_DESCRIPTION", render_job_description),
    of_value("JOB_FACTORY_MODE", None, |v, _, _| {
        Cell::Str(
            match v {
                Value::Undefined => "",
                _ => match v.as_number_int() {
                    Some(-1) => "Errs",
                    Some(0) => "Norm",
                    Some(1) => "Held",
                    Some(2) => "Done",
                    Some(3) => "Gone",
                    Some(_) => "Unk",
                    None => "????",
                },
            }
            .to_owned(),
        )
    }),
    text("JOB_ID", render_job_id),
    text("JOB_STATUS", render_job_status),
    number("JOB_STATUS_RAW", |status| {
        match status {
            1 => "Idle   ",
            2 => "Running",
            3 => "Removed",
            4 => "Complet",
            5 => "Held   ",
            6 => "XFerOut",
            7 => "Suspend",
            8 => "Failed ",
            9 => "Blocked",
            _ => "Unk    ",
        }
        .to_owned()
    }),
    number("JOB_UNIVERSE", |u| universe_name(u).to_owned()),
    LOAD_AVG,
    MEMBER_COUNT,
    PrintAs {
        name: "MEMORY_USAGE",
        printf: Some("%.1f"),
        render: Render::Float(render_memory_usage),
    },
    text("OWNER", render_owner),
    PLATFORM,
    QDATE,
    of_value("READABLE_BYTES", None, |v, _, _| {
        Cell::Str(readable(v, 1.0))
    }),
    of_value("READABLE_KB", None, |v, _, _| {
        Cell::Str(readable(v, 1024.0))
    }),
    READABLE_MB,
    text("REMOTE_HOST", |ad, _| {
        if lookup_int(ad, "JobUniverse") == Some(9) {
            return lookup_str(ad, "EC2RemoteVirtualMachineName")
                .or_else(|| lookup_str(ad, "GridResource"))
                .map(|s| s.to_string());
        }
        lookup_str(ad, "RemoteHost").map(|s| s.to_string())
    }),
    of_value("RUNTIME", None, |v, _, _| match v.as_number_real() {
        Some(t) => Cell::Str(format_time(t as i64)),
        None => Cell::Invalid,
    }),
    of_value("STRINGS_FROM_LIST", None, |v, _, _| match v {
        Value::List(_) => Cell::Str(strings_from_list(v)),
        _ => Cell::Invalid,
    }),
    TIME,
    UNIQUE,
];

/// `render_batch_name`: `JobBatchName`, a DAGMan job's `DAG: <cluster>`, a node job's
/// `NODE: <name>`.
fn render_batch_name(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    if let Some(name) = lookup_str(ad, "JobBatchName") {
        return Some(name.to_string());
    }
    if lookup_int(ad, "JobUniverse") == Some(7) {
        return Some(format!("DAG: {}", lookup_int(ad, "ClusterId").unwrap_or(0)));
    }
    if ad.lookup("DAGManJobId").is_some() {
        return lookup_str(ad, "DAGNodeName").map(|n| format!("NODE: {n}"));
    }
    None
}

/// `render_job_cmd_and_args`: the full command path and its arguments.
pub fn render_job_cmd_and_args(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    let mut out = lookup_str(ad, "Cmd")?.to_string();
    if let Some(args) = lookup_str(ad, "Args").or_else(|| lookup_str(ad, "Arguments")) {
        out.push(' ');
        out.push_str(&args);
    }
    Some(out)
}

/// `render_condor_platform`: `x86_64_AlmaLinux9` from a `$CondorPlatform: ... $` string.
fn condor_platform(s: &str) -> String {
    let b = s.as_bytes();
    let ix = b.iter().position(|&c| c == b' ').unwrap_or(b.len());
    let ix = b[ix..]
        .iter()
        .position(|&c| c != b' ')
        .map_or(b.len(), |i| ix + i);
    let end = b[ix..]
        .iter()
        .position(|c| b" .$".contains(c))
        .map_or(b.len(), |i| ix + i);
    let mut out = s[ix..end].replace('-', "_");
    if out.starts_with('X') {
        out.replace_range(..1, "x");
    }
    if let Some(at) = out.find("WINDOWS_") {
        out.truncate(at + 7);
    }
    out
}

/// `extractStringsFromList`: the strings of a list, joined by `, `.
fn strings_from_list(v: &Value) -> String {
    let Value::List(l) = v else {
        return "[Attribute not a list.]".to_owned();
    };
    let items: Vec<String> = l
        .items
        .iter()
        .filter_map(|e| match e {
            Expr::Lit(Value::Str(s)) => Some(s.to_string()),
            _ => None,
        })
        .collect();
    items.join(", ")
}

/// `format_readable_*`: a number of `unit` bytes in metric units; blank when not a number.
fn readable(v: &Value, unit: f64) -> String {
    match v {
        Value::Int(i) => metric_units(*i as f64 * unit),
        Value::Real(r) => metric_units(r * unit),
        _ => "        ".to_owned(),
    }
}

/// `render_activity_code`: the state and activity letters of a slot, from its activity (or
/// its state) and the other one looked up in the ad.
fn render_activity_code(v: &Value, ad: &ClassAd, _: &RenderEnv) -> Cell {
    let text = |name| lookup_str(ad, name).map(|s| s.to_string());
    let act = match v {
        Value::Str(s) => s.to_string(),
        _ => String::new(),
    };
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
    if ok {
        Cell::Str(state_activity_code(st, ac))
    } else {
        Cell::Invalid
    }
}

/// The value unparsed as a sort key or message shows it.
pub fn value_text(v: &Value) -> String {
    super::mask::value_text(v)
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

/// `extractUniqueStrings`: the distinct items of a list or string list, sorted, joined by
/// `, `; another value as it is.
fn unique_strings(v: &Value) -> String {
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
        other => return value_text(other),
    };
    items.sort();
    items.dedup();
    items.join(", ")
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
