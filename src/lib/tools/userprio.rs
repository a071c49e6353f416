//! `condor_userprio`: show and edit the accountant's records (user and group priorities, usage,
//! quotas), as HTCondor's src/condor_tools/user_prio.cpp does.
//!
//! condorlite has no negotiator to ask: the tool reads the accountant's database in the spool
//! directly ([`crate::accountant`]), and each edit is one transaction on it, which the daemon
//! picks up at its next cycle. The display is HTCondor's: the same columns, widths, headings,
//! sorting, hierarchical grouping and footer; `-long` prints the records as the negotiator's
//! legacy reply ad (`Name1`, `Priority1`, ...) or, with `-modular`, one ad per record; `-af`
//! prints chosen attributes of each record. `-name` and `-pool` name a negotiator condorlite
//! cannot reach, and fail as HTCondor does when the negotiator cannot be located.

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::accountant::groups::ROOT_GROUP;
use crate::accountant::{
    Accountant, AccountantConfig, AccountantState, AccountantStore, SqliteStore, ACCOUNTANT_FILE,
};
use crate::classad::cnum::{atof, atoi};
use crate::classad::unparse::{ad_to_old, expr_to_old_string};
use crate::classad::{parse_expr, parse_old_ad, ClassAd, Expr, Value};
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::locate::{host_part, is_this_host};
use crate::config::{Config, LoadOptions};
use crate::error::CommandError;
use crate::output::time::format_time_nosecs;

pub const TOOL: Tool = Tool {
    name: "condor_userprio",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run,
};

/// The options in the order user_prio.cpp tests them, with its minimum prefix lengths.
const PREFIXES: &[Prefix] = &[
    Prefix::min("setprio", 0),
    Prefix::min("setfactor", 0),
    Prefix::min("setfloor", 0),
    Prefix::min("setceiling", 0),
    Prefix::min("setbegin", 0),
    Prefix::min("setaccum", 0),
    Prefix::min("setlast", 0),
    Prefix::min("resetusage", 0),
    Prefix::min("delete", 3),
    Prefix::min("resetall", 0),
    Prefix::min("long", 1),
    Prefix::min("constraint", 1),
    Prefix::min("legacy", 3),
    Prefix::min("modular", 3),
    Prefix::min("af", 2).qualified(),
    Prefix::min("autoformat", 5).qualified(),
    Prefix::min("debug", 1).qualified(),
    Prefix::min("hierarchical", 2),
    Prefix::min("heir", 0),
    Prefix::min("flat", 2),
    Prefix::min("grouprollup", 0),
    Prefix::min("grouporder", 0),
    Prefix::min("quotas", 1),
    Prefix::min("surplus", 0),
    Prefix::min("sortkey", 2),
    Prefix::min("all", 0),
    Prefix::min("most", 2),
    Prefix::min("groupid", 0),
    Prefix::min("order", 0),
    Prefix::min("activefrom", 0),
    Prefix::min("allusers", 0),
    Prefix::min("usage", 2),
    Prefix::min("priority", 4),
    Prefix::min("getreslist", 6),
    Prefix::min("inputfile", 2),
    Prefix::min("pool", 1),
    Prefix::min("name", 0),
    Prefix::min("collector", 3),
    Prefix::min("negotiator", 3),
];

fn flag(id: &'static str, help: &'static str) -> Arg {
    Arg::new(id).long(id).action(ArgAction::SetTrue).help(help)
}

fn values(id: &'static str, names: &[&'static str], help: &'static str) -> Arg {
    Arg::new(id)
        .long(id)
        .num_args(names.len())
        .value_names(names.to_vec())
        .action(ArgAction::Set)
        .help(help)
}

pub fn command() -> Command {
    Command::new("condor_userprio")
        .about("Manage user priorities and show the accountant's records")
        .long_about(
            "Show the priorities, usage and quotas the accountant keeps for submitters and \
             accounting groups, or edit them. With USER names, only those users are shown.",
        )
        .after_help("Exit status: 0 on success, 1 on failure.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(values(
            "setprio",
            &["USER", "VALUE"],
            "Set the real priority of USER",
        ))
        .arg(values(
            "setfactor",
            &["USER", "VALUE"],
            "Set the priority factor of USER",
        ))
        .arg(values(
            "setfloor",
            &["USER", "VALUE"],
            "Set the floor of USER",
        ))
        .arg(values(
            "setceiling",
            &["USER", "VALUE"],
            "Set the ceiling of USER (-1: none)",
        ))
        .arg(values(
            "setbegin",
            &["USER", "TIME"],
            "Set the usage start time of USER",
        ))
        .arg(values(
            "setaccum",
            &["USER", "VALUE"],
            "Set the accumulated usage of USER",
        ))
        .arg(values(
            "setlast",
            &["USER", "TIME"],
            "Set the last usage time of USER",
        ))
        .arg(values("resetusage", &["USER"], "Reset the usage of USER"))
        .arg(values("delete", &["USER"], "Remove the record of USER"))
        .arg(flag("resetall", "Reset the usage of every user"))
        .arg(flag("long", "Print whole records (ClassAds)"))
        .arg(values(
            "constraint",
            &["EXPR"],
            "Only records matching EXPR (with -long -modular or -af)",
        ))
        .arg(flag(
            "legacy",
            "With -long, print one ClassAd of numbered attributes",
        ))
        .arg(flag("modular", "With -long, print one ClassAd per record"))
        .arg(
            Arg::new("af")
                .long("af")
                .alias("autoformat")
                .value_name("ATTR")
                .num_args(1)
                .action(ArgAction::Append)
                .help("Print attributes with automatic formatting (-af[:lhVr,tng])"),
        )
        .arg(flag("debug", "Print debugging output on stderr"))
        .arg(flag("hierarchical", "Show users under their groups").alias("heir"))
        .arg(flag("flat", "Do not show users under their groups"))
        .arg(flag(
            "grouprollup",
            "Group values are the sums of their members'",
        ))
        .arg(flag("grouporder", "Show groups first, then users"))
        .arg(flag("quotas", "Show group quota fields"))
        .arg(flag("surplus", "Show group surplus policies"))
        .arg(flag("sortkey", "Show group sort keys"))
        .arg(flag("all", "Show all fields"))
        .arg(flag("most", "Show the most useful fields (the default)"))
        .arg(flag("groupid", "Show group ids"))
        .arg(flag("order", "Show group display order"))
        .arg(values(
            "activefrom",
            &["MONTH", "DAY", "YEAR"],
            "Show users active since this date",
        ))
        .arg(flag("allusers", "Show every user, however long inactive"))
        .arg(flag("usage", "Show usage fields"))
        .arg(flag("priority", "Show priority fields"))
        .arg(values("getreslist", &["USER"], "List the slots USER holds"))
        .arg(values(
            "inputfile",
            &["FILE"],
            "Show the records in FILE (a negotiator reply ad)",
        ))
        .arg(values(
            "pool",
            &["HOST"],
            "Query the negotiator of this pool",
        ))
        .arg(values(
            "name",
            &["NAME"],
            "Query the negotiator of this name",
        ))
        .arg(flag("collector", "Read the records from the collector"))
        .arg(flag("negotiator", "Read the records from the negotiator"))
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print help and exit"),
        )
        .arg(
            Arg::new("users")
                .value_name("USER")
                .action(ArgAction::Append)
                .help("Users (user@domain, or user for every domain) or groups to show"),
        )
}

// ----- which columns (user_prio.cpp's Detail* flags)

const DETAIL_NAME: u32 = 0x0001;
const DETAIL_PRIORITY: u32 = 0x0002;
const DETAIL_FACTOR: u32 = 0x0004;
const DETAIL_GROUP: u32 = 0x0008;
const DETAIL_RES_USED: u32 = 0x0010;
const DETAIL_WT_RES_USED: u32 = 0x0020;
const DETAIL_USE_TIME1: u32 = 0x0040;
const DETAIL_USE_TIME2: u32 = 0x0080;
const DETAIL_EFF_QUOTA: u32 = 0x0100;
const DETAIL_CFG_QUOTA: u32 = 0x0200;
const DETAIL_SURPLUS: u32 = 0x0400;
const DETAIL_TREE_QUOTA: u32 = 0x0800;
const DETAIL_REAL_PRIO: u32 = 0x1000;
const DETAIL_SORT_KEY: u32 = 0x2000;
const DETAIL_USE_DELTA_T: u32 = 0x4000;
const DETAIL_ORDER: u32 = 0x8000;
const DETAIL_REQUESTED: u32 = 0x10000;
const DETAIL_CEILING: u32 = 0x20000;
const DETAIL_FLOOR: u32 = 0x40000;
const DETAIL_PRIOS: u32 = DETAIL_PRIORITY | DETAIL_FACTOR | DETAIL_REAL_PRIO;
const DETAIL_USAGE: u32 = DETAIL_RES_USED | DETAIL_WT_RES_USED;
const DETAIL_QUOTAS: u32 =
    DETAIL_EFF_QUOTA | DETAIL_CFG_QUOTA | DETAIL_TREE_QUOTA | DETAIL_SURPLUS | DETAIL_REQUESTED;
const DETAIL_MOST: u32 = DETAIL_CFG_QUOTA
    | DETAIL_SURPLUS
    | DETAIL_PRIORITY
    | DETAIL_FACTOR
    | DETAIL_USAGE
    | DETAIL_USE_DELTA_T
    | DETAIL_REQUESTED
    | DETAIL_CEILING
    | DETAIL_FLOOR;
const DETAIL_ALL: u32 =
    DETAIL_MOST | DETAIL_QUOTAS | DETAIL_PRIOS | DETAIL_USE_TIME1 | DETAIL_USE_TIME2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Surplus {
    Unset,
    No,
    Regroup,
    ByQuota,
    Unknown,
}

impl Surplus {
    fn name(self) -> &'static str {
        match self {
            Surplus::Unset => "",
            Surplus::No => "no",
            Surplus::Regroup => "Regroup",
            Surplus::ByQuota => "ByQuota",
            Surplus::Unknown => "n/a",
        }
    }
}

/// One record, as user_prio.cpp's `LineRec`.
#[derive(Clone, Debug)]
struct LineRec {
    name: String,
    priority: f64,
    wt_res: f64,
    acc_usage: f64,
    requested: f64,
    factor: f64,
    begin_usage: i64,
    last_usage: i64,
    acct_group: String,
    is_acct_group: bool,
    has: u32,
    effective_quota: f64,
    config_quota: f64,
    subtree_quota: f64,
    ceiling: f64,
    floor: f64,
    sort_key: f64,
    surplus: Surplus,
    index: usize,
    group_id: i64,
    display_order: f64,
}

/// How the table is to be sorted (user_prio.cpp's `LineRecLT` modes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    ByColumn1,
    GroupsFirstByIndex,
    HierByGroupId,
    HierByDisplay,
    GroupsFirstByName,
}

struct Display {
    detail: u32,
    avail: u32,
    dash_quota: bool,
    hier: bool,
    group_order: bool,
    hide_groups: bool,
    hide_users: bool,
    hide_none_if_possible: bool,
    users_have_quotas: bool,
    global_surplus: Surplus,
    min_last_usage: i64,
    /// Names asked for on the command line are shown whatever their activity.
    named: Vec<String>,
}

fn less(a: &LineRec, b: &LineRec, detail: u32, order: Order, none_last: bool) -> bool {
    use std::cmp::Ordering::*;
    match order {
        Order::HierByGroupId => {
            if a.group_id != b.group_id {
                if none_last {
                    if a.group_id == 0 {
                        return false;
                    }
                    if b.group_id == 0 {
                        return true;
                    }
                }
                return a.group_id < b.group_id;
            }
            if a.is_acct_group != b.is_acct_group {
                return a.is_acct_group && !b.is_acct_group;
            }
        }
        Order::HierByDisplay => {
            if a.group_id != b.group_id {
                if none_last {
                    if a.group_id == 0 {
                        return false;
                    }
                    if b.group_id == 0 {
                        return true;
                    }
                }
                if a.display_order.partial_cmp(&b.display_order) != Some(Equal) {
                    return a.display_order < b.display_order;
                }
                return a.group_id < b.group_id;
            }
            if a.is_acct_group != b.is_acct_group {
                return a.is_acct_group && !b.is_acct_group;
            }
        }
        Order::GroupsFirstByName => {
            if a.is_acct_group != b.is_acct_group {
                return a.is_acct_group && !b.is_acct_group;
            }
            if a.is_acct_group {
                if none_last {
                    if a.group_id == 0 {
                        return false;
                    }
                    if b.group_id == 0 {
                        return true;
                    }
                }
                return a.name < b.name;
            }
        }
        Order::GroupsFirstByIndex => {
            if a.is_acct_group || b.is_acct_group {
                return a.index < b.index;
            }
        }
        Order::ByColumn1 => {}
    }
    if detail & DETAIL_PRIORITY != 0 {
        a.priority < b.priority
    } else if detail & DETAIL_USAGE != 0 {
        a.acc_usage < b.acc_usage
    } else {
        a.name < b.name
    }
}

fn sort_recs(recs: &mut [LineRec], detail: u32, order: Order, none_last: bool) {
    recs.sort_by(|a, b| {
        if less(a, b, detail, order, none_last) {
            std::cmp::Ordering::Less
        } else if less(b, a, detail, order, none_last) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
}

// ----- the records as the negotiator reports them

/// What the accountant knows, as the negotiator's reply would put it: one ad per record, the
/// groups first (breadth first), then the submitters (HTCondor's `ReportState`).
fn report(state: &AccountantState, acfg: &AccountantConfig, rollup: bool) -> Vec<ClassAd> {
    let tree = &acfg.groups;
    let mut ads = Vec::new();
    let num = |ad: &mut ClassAd, n: &str, v: f64| ad.insert(n, Expr::lit(v));
    let int = |ad: &mut ClassAd, n: &str, v: i64| ad.insert(n, Expr::lit(v));
    let mut group_index = vec![0usize; tree.len()];
    for &g in tree.breadth_first() {
        group_index[g] = ads.len();
        let grp = tree.group(g);
        let rec = state.customer(&grp.name).cloned().unwrap_or_default();
        let quota = state
            .group_quotas
            .get(&grp.name)
            .cloned()
            .unwrap_or_default();
        let mut ad = ClassAd::new();
        ad.insert("Name", Expr::lit(grp.name.as_str()));
        ad.insert("IsAccountingGroup", Expr::lit(true));
        let parent = grp
            .parent
            .map_or(grp.name.as_str(), |p| tree.group(p).name.as_str());
        ad.insert("AccountingGroup", Expr::lit(parent));
        num(
            &mut ad,
            "Priority",
            if rollup {
                0.0
            } else {
                state.priority(acfg, &grp.name)
            },
        );
        num(
            &mut ad,
            "PriorityFactor",
            if rollup {
                rec.priority_factor.unwrap_or(0.0)
            } else {
                grp.prio_factor
            },
        );
        num(&mut ad, "EffectiveQuota", quota.effective_quota);
        num(&mut ad, "ConfigQuota", grp.config_quota);
        num(&mut ad, "SubtreeQuota", quota.subtree_quota);
        num(&mut ad, "GroupSortKey", quota.sort_key);
        let policy = if grp.autoregroup {
            "regroup"
        } else if grp.accept_surplus {
            "byquota"
        } else {
            "no"
        };
        ad.insert("SurplusPolicy", Expr::lit(policy));
        num(&mut ad, "Requested", quota.requested);
        int(&mut ad, "ResourcesUsed", rec.resources_used);
        num(
            &mut ad,
            "WeightedResourcesUsed",
            rec.weighted_resources_used,
        );
        num(&mut ad, "AccumulatedUsage", rec.accumulated_usage);
        num(
            &mut ad,
            "HierWeightedResourcesUsed",
            rec.hier_weighted_resources_used,
        );
        num(
            &mut ad,
            "WeightedAccumulatedUsage",
            rec.weighted_accumulated_usage,
        );
        int(&mut ad, "BeginUsageTime", rec.begin_usage_time);
        int(&mut ad, "LastUsageTime", rec.last_usage_time);
        ads.push(ad);
    }
    if rollup {
        // Children into parents, deepest first.
        for &g in tree.breadth_first().iter().rev() {
            let Some(p) = tree.group(g).parent else {
                continue;
            };
            let (c, p) = (group_index[g], group_index[p]);
            for attr in [
                "ResourcesUsed",
                "WeightedResourcesUsed",
                "AccumulatedUsage",
                "WeightedAccumulatedUsage",
            ] {
                let sum = ads[p].eval_attr(attr).as_number_real().unwrap_or(0.0)
                    + ads[c].eval_attr(attr).as_number_real().unwrap_or(0.0);
                if attr == "ResourcesUsed" {
                    ads[p].insert(attr, Expr::lit(sum as i64));
                } else {
                    ads[p].insert(attr, Expr::lit(sum));
                }
            }
            let child_begin = ads[c].eval_attr("BeginUsageTime").as_int().unwrap_or(0);
            let parent_begin = ads[p].eval_attr("BeginUsageTime").as_int().unwrap_or(0);
            ads[p].insert("BeginUsageTime", Expr::lit(child_begin.min(parent_begin)));
            let child_last = ads[c].eval_attr("LastUsageTime").as_int().unwrap_or(0);
            let parent_last = ads[p].eval_attr("LastUsageTime").as_int().unwrap_or(0);
            ads[p].insert("LastUsageTime", Expr::lit(child_last.max(parent_last)));
        }
    }
    for (name, rec) in &state.customers {
        let (g, is_group) = tree.assigned(name);
        if is_group {
            continue;
        }
        let mut ad = ClassAd::new();
        ad.insert("Name", Expr::lit(name.as_str()));
        ad.insert("IsAccountingGroup", Expr::lit(false));
        ad.insert("AccountingGroup", Expr::lit(tree.group(g).name.as_str()));
        num(&mut ad, "Priority", state.priority(acfg, name));
        int(&mut ad, "Ceiling", state.ceiling(name));
        int(&mut ad, "Floor", state.floor(name));
        num(&mut ad, "PriorityFactor", state.priority_factor(acfg, name));
        int(&mut ad, "ResourcesUsed", rec.resources_used);
        num(
            &mut ad,
            "WeightedResourcesUsed",
            rec.weighted_resources_used,
        );
        num(&mut ad, "AccumulatedUsage", rec.accumulated_usage);
        num(
            &mut ad,
            "WeightedAccumulatedUsage",
            rec.weighted_accumulated_usage,
        );
        num(&mut ad, "SubmitterShare", 0.0);
        num(&mut ad, "SubmitterLimit", 0.0);
        int(&mut ad, "BeginUsageTime", rec.begin_usage_time);
        int(&mut ad, "LastUsageTime", rec.last_usage_time);
        ads.push(ad);
    }
    ads
}

/// The records as the legacy reply ad: `Name1`, `Priority1`, ..., `NumSubmittors`, `LastUpdate`.
fn legacy_ad(ads: &[ClassAd], last_update: i64) -> ClassAd {
    let mut out = ClassAd::new();
    out.insert("LastUpdate", Expr::lit(last_update));
    for (i, ad) in ads.iter().enumerate() {
        for (name, e) in ad.iter() {
            out.insert(&format!("{name}{}", i + 1), e.clone());
        }
    }
    out.insert("NumSubmittors", Expr::lit(ads.len() as i64));
    out
}

/// Splits a legacy reply ad into one ad per record (user_prio.cpp's
/// `ConvertLegacyUserprioAdToAdList`).
fn split_legacy(ad: &ClassAd) -> Vec<ClassAd> {
    let mut out: Vec<ClassAd> = Vec::new();
    for (name, e) in ad.iter() {
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || digits == name.len() {
            continue;
        }
        let (attr, id) = name.split_at(name.len() - digits);
        let Ok(id) = id.parse::<usize>() else {
            continue;
        };
        if id == 0 {
            continue;
        }
        if out.len() < id {
            out.resize_with(id, ClassAd::new);
        }
        out[id - 1].insert(attr, e.clone());
        out[id - 1].insert("SubmittorId", Expr::lit(id as i64));
    }
    out
}

fn lookup_real(ad: &ClassAd, name: &str) -> Option<f64> {
    ad.lookup(name)?;
    ad.eval_attr(name).as_number_real()
}

fn lookup_int(ad: &ClassAd, name: &str) -> Option<i64> {
    ad.lookup(name)?;
    match ad.eval_attr(name) {
        Value::Int(i) => Some(i),
        Value::Real(r) => Some(r as i64),
        Value::Bool(b) => Some(b as i64),
        _ => None,
    }
}

fn lookup_str(ad: &ClassAd, name: &str) -> Option<String> {
    match ad.eval_attr(name) {
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

impl Display {
    /// user_prio.cpp's `CollectInfo` over one ad per record.
    fn collect(&mut self, ads: &[ClassAd], rollup: bool) -> Vec<LineRec> {
        let n = ads.len();
        let mut recs = Vec::with_capacity(n);
        let mut need_fixup = false;
        for (i, ad) in ads.iter().enumerate() {
            let mut r = LineRec {
                name: String::new(),
                priority: 0.0,
                wt_res: 0.0,
                acc_usage: -1.0,
                requested: 0.0,
                factor: 0.0,
                begin_usage: 0,
                last_usage: self.min_last_usage,
                acct_group: ROOT_GROUP.into(),
                is_acct_group: false,
                has: 0,
                effective_quota: 0.0,
                config_quota: 0.0,
                subtree_quota: 0.0,
                ceiling: -1.0,
                floor: -1.0,
                sort_key: 0.0,
                surplus: Surplus::Unset,
                index: i + 1,
                group_id: 0,
                display_order: 0.0,
            };
            let (Some(name), Some(priority)) =
                (lookup_str(ad, "Name"), lookup_real(ad, "Priority"))
            else {
                recs.push(r);
                continue;
            };
            r.has |= DETAIL_PRIORITY | DETAIL_NAME;
            if let Some(f) = lookup_real(ad, "PriorityFactor") {
                r.has |= DETAIL_FACTOR;
                if f > 0.0 {
                    r.has |= DETAIL_REAL_PRIO;
                }
                r.factor = f;
            }
            if let Some(u) = lookup_real(ad, "WeightedAccumulatedUsage") {
                r.has |= DETAIL_USAGE;
                r.acc_usage = u;
            }
            if let Some(c) = lookup_real(ad, "Ceiling") {
                r.has |= DETAIL_CEILING;
                r.ceiling = c;
            }
            if let Some(f) = lookup_real(ad, "Floor") {
                r.has |= DETAIL_FLOOR;
                r.floor = f;
            }
            if let Some(q) = lookup_real(ad, "Requested") {
                r.has |= DETAIL_REQUESTED;
                r.requested = q;
            }
            if let Some(t) = lookup_int(ad, "BeginUsageTime") {
                r.has |= DETAIL_USE_TIME1;
                r.begin_usage = t;
            }
            let mut last = 0;
            if let Some(t) = lookup_int(ad, "LastUsageTime") {
                r.has |= DETAIL_USE_TIME2 | DETAIL_USE_DELTA_T;
                last = t;
            }
            let res_used = lookup_int(ad, "ResourcesUsed");
            if res_used.is_some() {
                r.has |= DETAIL_USAGE;
            }
            r.wt_res = match lookup_real(ad, "WeightedResourcesUsed") {
                Some(w) => {
                    r.has |= DETAIL_WT_RES_USED;
                    w
                }
                None => res_used.unwrap_or(0) as f64,
            };
            r.acct_group = lookup_str(ad, "AccountingGroup").unwrap_or_else(|| ROOT_GROUP.into());
            r.is_acct_group = matches!(ad.eval_attr("IsAccountingGroup"), Value::Bool(true));
            if let Some(q) = lookup_real(ad, "EffectiveQuota") {
                r.has |= DETAIL_EFF_QUOTA;
                r.effective_quota = q;
            }
            if let Some(q) = lookup_real(ad, "ConfigQuota") {
                r.has |= DETAIL_CFG_QUOTA;
                r.config_quota = q;
            }
            if r.is_acct_group {
                r.group_id = -(i as i64 + 1);
                if name == ROOT_GROUP || name == "." {
                    r.group_id = 0;
                }
                if let Value::Bool(regroup) = ad.eval_attr("GroupAutoRegroup") {
                    r.has |= DETAIL_SURPLUS;
                    r.surplus = if regroup {
                        Surplus::Regroup
                    } else {
                        Surplus::No
                    };
                    if regroup {
                        self.global_surplus = Surplus::Regroup;
                    }
                }
                if let Some(policy) = lookup_str(ad, "SurplusPolicy") {
                    r.has |= DETAIL_SURPLUS;
                    r.surplus = if policy.eq_ignore_ascii_case("regroup") {
                        self.global_surplus = Surplus::Regroup;
                        Surplus::Regroup
                    } else if policy.eq_ignore_ascii_case("byquota") {
                        self.global_surplus = Surplus::ByQuota;
                        Surplus::ByQuota
                    } else if policy.eq_ignore_ascii_case("no") {
                        Surplus::No
                    } else {
                        Surplus::Unknown
                    };
                }
                if let Some(k) = lookup_real(ad, "GroupSortKey") {
                    r.has |= DETAIL_SORT_KEY;
                    r.sort_key = k;
                }
                if let Some(q) = lookup_real(ad, "SubtreeQuota") {
                    r.has |= DETAIL_TREE_QUOTA;
                    r.subtree_quota = q;
                }
                if rollup && r.has & DETAIL_EFF_QUOTA == 0 {
                    r.has &= !DETAIL_PRIOS;
                }
                // A group's priority means nothing to show.
                r.has &= !DETAIL_PRIORITY;
            } else {
                if r.acct_group == ROOT_GROUP || r.acct_group == "." {
                    r.group_id = 0;
                } else {
                    r.group_id = -(n as i64) * 2;
                    need_fixup = true;
                }
                if r.has & (DETAIL_EFF_QUOTA | DETAIL_CFG_QUOTA) != 0 {
                    self.users_have_quotas = true;
                }
            }
            if r.group_id != 0 {
                r.has |= DETAIL_GROUP;
            }
            if last == 0 {
                last = -1;
            }
            self.avail |= r.has;
            r.name = name;
            r.priority = priority;
            r.last_usage = last;
            recs.push(r);
        }
        if self.avail & DETAIL_USAGE == 0 {
            self.detail &= !DETAIL_USAGE;
        }
        if self.avail & DETAIL_FACTOR == 0 {
            self.detail &= !DETAIL_FACTOR;
        }
        if self.avail & DETAIL_USE_TIME1 == 0 {
            self.detail &= !DETAIL_USE_TIME1;
        }
        if self.avail & DETAIL_USE_TIME2 == 0 {
            self.detail &= !(DETAIL_USE_TIME2 | DETAIL_USE_DELTA_T);
        }
        if !self.dash_quota && self.avail & DETAIL_QUOTAS == 0 {
            self.detail &= !DETAIL_QUOTAS;
        }
        if need_fixup {
            sort_recs(&mut recs, self.detail, Order::GroupsFirstByName, true);
            let mut groups = 0;
            let mut ix_none = 0;
            for (i, r) in recs.iter_mut().enumerate() {
                if !r.is_acct_group {
                    break;
                }
                groups += 1;
                if r.group_id < 0 {
                    r.group_id = groups as i64;
                } else {
                    ix_none = i;
                }
                r.display_order = if self.detail & DETAIL_PRIORITY != 0 {
                    if self.avail & DETAIL_SORT_KEY != 0 {
                        r.sort_key
                    } else if r.group_id != 0 {
                        r.priority
                    } else {
                        f32::MAX as f64
                    }
                } else if self.detail & DETAIL_USAGE != 0 {
                    r.acc_usage / 3600.0
                } else if r.group_id != 0 {
                    r.group_id as f32 as f64
                } else {
                    f32::MAX as f64
                };
                r.has |= DETAIL_ORDER;
                self.avail |= DETAIL_ORDER;
            }
            for i in groups..n {
                if recs[i].group_id >= 0 {
                    recs[i].display_order = recs[ix_none].display_order;
                    let o = recs[ix_none].has & DETAIL_ORDER;
                    recs[i].has |= o;
                    continue;
                }
                if let Some(jj) = (0..groups).find(|&jj| recs[i].acct_group == recs[jj].name) {
                    recs[i].group_id = recs[jj].group_id;
                    recs[i].display_order = recs[jj].display_order;
                    let o = recs[jj].has & DETAIL_ORDER;
                    recs[i].has |= o;
                }
            }
        }
        recs
    }

    /// Whether a record is shown (active recently, or named on the command line).
    fn active(&self, r: &LineRec) -> bool {
        let user = r.name.split('@').next().unwrap_or("");
        r.last_usage >= self.min_last_usage
            || (!r.is_acct_group
                && self
                    .named
                    .iter()
                    .any(|n| *n == r.name || (!n.contains('@') && n == user)))
    }

    /// user_prio.cpp's `ProcessInfo` then `PrintInfo`.
    fn print(
        &mut self,
        out: &mut dyn Write,
        ads: &[ClassAd],
        rollup: bool,
        last_update: i64,
    ) -> std::io::Result<()> {
        if ads.is_empty() {
            return Ok(());
        }
        let mut recs = self.collect(ads, rollup);
        let mut all_in_none = true;
        for r in &recs {
            if !self.active(r) {
                continue;
            }
            if r.group_id > 0 {
                all_in_none = false;
                self.hide_none_if_possible = false;
                break;
            }
        }
        let mut hier = self.hier;
        if self.avail & DETAIL_GROUP == 0 || (self.hide_none_if_possible && all_in_none) {
            hier = false;
        }
        if (self.hide_groups || all_in_none) && !self.dash_quota && !self.users_have_quotas {
            self.detail &= !DETAIL_QUOTAS;
        }
        if self.detail & DETAIL_QUOTAS != 0
            && self.detail & !DETAIL_QUOTAS == 0
            && !self.users_have_quotas
        {
            self.hide_users = true;
        }
        let mut order = Order::ByColumn1;
        let mut none_last = false;
        if hier {
            none_last = self.global_surplus == Surplus::Regroup;
            order = if self.detail & (DETAIL_PRIORITY | DETAIL_USAGE) != 0 {
                Order::HierByDisplay
            } else {
                Order::HierByGroupId
            };
        } else if self.group_order {
            order = Order::GroupsFirstByIndex;
        }
        sort_recs(&mut recs, self.detail, order, none_last);
        self.print_info(out, last_update, &recs, hier)
    }

    fn print_info(
        &mut self,
        out: &mut dyn Write,
        last_update: i64,
        recs: &[LineRec],
        hier: bool,
    ) -> std::io::Result<()> {
        let mut max_name = 10usize;
        for r in recs.iter().filter(|r| self.active(r)) {
            let mut len = r.name.len();
            if hier && !r.is_acct_group {
                len += 2;
                if r.group_id != 0 {
                    len = len.saturating_sub(r.acct_group.len());
                }
            }
            max_name = max_name.max(len);
        }
        writeln!(out, "Last Priority Update: {}", format_date(last_update))?;
        let count_text = format!("Number of users: {}", recs.len());
        max_name = max_name.min(99).max(count_text.len());
        if hier {
            max_name += 2;
        }
        let cols: Vec<&Col> = COLS.iter().filter(|c| c.flag & self.detail != 0).collect();
        let row = |name: String, cells: Vec<String>| {
            let mut line = pad(&name, max_name, ' ', Pad::Right);
            for c in cells {
                line.push(' ');
                line.push_str(&c);
            }
            line
        };
        let heads = |second: bool| {
            cols.iter()
                .map(|c| {
                    let (a, b) = c.head;
                    pad(if second { b } else { a }, c.width, ' ', Pad::Center)
                })
                .collect::<Vec<_>>()
        };
        writeln!(
            out,
            "{}",
            row(
                if hier { "Group".into() } else { String::new() },
                heads(false)
            )
        )?;
        let second = match (self.hide_users, hier) {
            (true, true) => "Name",
            (true, false) => "Group Name",
            (false, true) => "  User Name",
            (false, false) => "User Name",
        };
        writeln!(out, "{}", row(second.into(), heads(true)))?;
        let dashes = || {
            row(
                "-".repeat(max_name),
                cols.iter().map(|c| "-".repeat(c.width)).collect(),
            )
        };
        writeln!(out, "{}", dashes())?;
        let mut users = 0;
        let (mut total_wt, mut total_acc, mut total_begin) = (0.0, 0.0, 0i64);
        for r in recs {
            if !self.active(r) {
                continue;
            }
            if !r.is_acct_group {
                users += 1;
                if self.hide_users {
                    continue;
                }
            } else {
                if self.hide_groups || (!hier && self.hide_none_if_possible && r.group_id == 0) {
                    continue;
                }
                self.hide_none_if_possible = false;
            }
            let name = if !hier || r.is_acct_group {
                r.name.clone()
            } else if r.group_id > 0 {
                format!("  {}", r.name.get(r.acct_group.len() + 1..).unwrap_or(""))
            } else {
                format!("  {}", r.name)
            };
            let cells = cols.iter().map(|c| self.cell(c, r, last_update)).collect();
            writeln!(out, "{}", row(name, cells))?;
            if !r.is_acct_group {
                total_wt += r.wt_res;
                total_acc += r.acc_usage;
                total_begin = total_begin.min(r.begin_usage);
            }
        }
        writeln!(out, "{}", dashes())?;
        let footer = cols
            .iter()
            .map(|c| match c.flag {
                DETAIL_SURPLUS => pad(self.global_surplus.name(), c.width, ' ', Pad::Right),
                DETAIL_RES_USED => float(c.width, 0, total_wt),
                DETAIL_WT_RES_USED => float(c.width, 2, total_acc / 3600.0),
                DETAIL_USE_TIME1 => date_cell(c.width, total_begin),
                DETAIL_USE_TIME2 => date_cell(c.width, self.min_last_usage),
                DETAIL_USE_DELTA_T => {
                    if self.min_last_usage <= 0 {
                        pad("", c.width, ' ', Pad::Left)
                    } else {
                        delta_cell(c.width, last_update - self.min_last_usage)
                    }
                }
                _ => " ".repeat(c.width),
            })
            .collect();
        writeln!(out, "{}", row(format!("Number of users: {users}"), footer))
    }

    fn cell(&self, c: &Col, r: &LineRec, last_update: i64) -> String {
        let w = c.width;
        if r.has & c.flag == 0 {
            if r.is_acct_group && c.flag & (DETAIL_QUOTAS | DETAIL_SORT_KEY) != 0 {
                return pad("n/d", w, ' ', Pad::Left);
            }
            return " ".repeat(w);
        }
        match c.flag {
            DETAIL_GROUP => float(w, 0, r.group_id as f64),
            DETAIL_ORDER => float(w, 2, r.display_order),
            DETAIL_SURPLUS => pad(
                if r.group_id != 0 {
                    r.surplus.name()
                } else {
                    "yes"
                },
                w,
                ' ',
                Pad::Right,
            ),
            DETAIL_EFF_QUOTA => float(w, 2, r.effective_quota),
            DETAIL_CFG_QUOTA => float(w, 2, r.config_quota),
            DETAIL_TREE_QUOTA => float(w, 2, r.subtree_quota),
            DETAIL_SORT_KEY => {
                if r.sort_key < 3.40282001e38 {
                    float(w, 2, r.sort_key)
                } else {
                    pad("<last>", w, ' ', Pad::Left)
                }
            }
            DETAIL_PRIORITY => float(w, 2, r.priority),
            DETAIL_REAL_PRIO => float(
                w,
                2,
                if r.factor > 0.0 {
                    r.priority / r.factor
                } else {
                    0.0
                },
            ),
            DETAIL_FACTOR => {
                if r.factor > 0.0 {
                    float(w, 2, r.factor)
                } else {
                    " ".repeat(w)
                }
            }
            DETAIL_RES_USED => float(w, 0, r.wt_res),
            DETAIL_REQUESTED => float(w, 0, r.requested),
            DETAIL_WT_RES_USED => float(w, 2, r.acc_usage / 3600.0),
            DETAIL_USE_TIME1 => date_cell(w, r.begin_usage),
            DETAIL_USE_TIME2 => date_cell(w, r.last_usage),
            DETAIL_USE_DELTA_T => delta_cell(w, last_update - r.last_usage),
            DETAIL_CEILING => {
                if r.ceiling > -1.0 {
                    float(w, 2, r.ceiling)
                } else {
                    " ".repeat(w)
                }
            }
            DETAIL_FLOOR => {
                if r.floor > 0.0 {
                    float(w, 2, r.floor)
                } else {
                    " ".repeat(w)
                }
            }
            _ => " ".repeat(w),
        }
    }
}

struct Col {
    flag: u32,
    width: usize,
    head: (&'static str, &'static str),
}

const COLS: &[Col] = &[
    Col {
        flag: DETAIL_GROUP,
        width: 5,
        head: ("Group", "Id"),
    },
    Col {
        flag: DETAIL_ORDER,
        width: 9,
        head: ("Group", "Order"),
    },
    Col {
        flag: DETAIL_SORT_KEY,
        width: 9,
        head: ("Group", "Sort Key"),
    },
    Col {
        flag: DETAIL_EFF_QUOTA,
        width: 9,
        head: ("Effective", "Quota"),
    },
    Col {
        flag: DETAIL_CFG_QUOTA,
        width: 9,
        head: ("Config", "Quota"),
    },
    Col {
        flag: DETAIL_SURPLUS,
        width: 7,
        head: ("Use", "Surplus"),
    },
    Col {
        flag: DETAIL_TREE_QUOTA,
        width: 9,
        head: ("Subtree", "Quota"),
    },
    Col {
        flag: DETAIL_PRIORITY,
        width: 12,
        head: ("Effective", "Priority"),
    },
    Col {
        flag: DETAIL_REAL_PRIO,
        width: 8,
        head: ("Real", "Priority"),
    },
    Col {
        flag: DETAIL_FACTOR,
        width: 9,
        head: ("Priority", "Factor"),
    },
    Col {
        flag: DETAIL_RES_USED,
        width: 6,
        head: ("Wghted", "In Use"),
    },
    Col {
        flag: DETAIL_WT_RES_USED,
        width: 12,
        head: ("Total Usage", "(wghted-hrs)"),
    },
    Col {
        flag: DETAIL_USE_TIME1,
        width: 16,
        head: ("Usage", "Start Time"),
    },
    Col {
        flag: DETAIL_USE_TIME2,
        width: 16,
        head: ("Last", "Usage Time"),
    },
    Col {
        flag: DETAIL_USE_DELTA_T,
        width: 10,
        head: ("Time Since", "Last Usage"),
    },
    Col {
        flag: DETAIL_REQUESTED,
        width: 10,
        head: ("Weighted", "Requested"),
    },
    Col {
        flag: DETAIL_FLOOR,
        width: 9,
        head: ("Submitter", "Floor"),
    },
    Col {
        flag: DETAIL_CEILING,
        width: 9,
        head: ("Submitter", "Ceiling"),
    },
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pad {
    Right,
    Left,
    Center,
}

/// `text` in a field `width` wide (user_prio.cpp's `CopyAndPadToWidth` with `width + 1`).
fn pad(text: &str, width: usize, fill: char, how: Pad) -> String {
    let text: String = text.chars().take(width).collect();
    let len = text.chars().count();
    let room = width - len;
    let left = match how {
        Pad::Right => 0,
        Pad::Left => room,
        Pad::Center => room / 2,
    };
    let mut s = String::with_capacity(width);
    s.extend(std::iter::repeat_n(fill, left));
    s.push_str(&text);
    s.extend(std::iter::repeat_n(fill, room - left));
    s
}

/// `%<width>.<decimals>f`, or `%.<width-6>g` when that is too wide, right-justified.
fn float(width: usize, decimals: usize, v: f64) -> String {
    let mut s = format!("{v:width$.decimals$}");
    if s.len() > width {
        s = crate::classad::unparse::fmt_g(v, width.saturating_sub(6), false);
    }
    pad(&s, width, ' ', Pad::Left)
}

fn local(t: i64) -> chrono::DateTime<chrono::Local> {
    use chrono::TimeZone;
    chrono::Local
        .timestamp_opt(t, 0)
        .single()
        .unwrap_or_else(|| chrono::Local.timestamp_opt(0, 0).unwrap())
}

/// HTCondor's `format_date`: `month/day hour:minute`.
fn format_date(t: i64) -> String {
    use chrono::{Datelike, Timelike};
    if t < 0 {
        return "    ???    ".into();
    }
    let d = local(t);
    format!(
        "{:2}/{:<2} {:02}:{:02}",
        d.month(),
        d.day(),
        d.hour(),
        d.minute()
    )
}

/// HTCondor's `format_date_year`: `month/day/year hour:minute`.
fn format_date_year(t: i64) -> String {
    use chrono::{Datelike, Timelike};
    if t < 0 {
        return "    ???    ".into();
    }
    let d = local(t);
    format!(
        "{:2}/{:02}/{:<4} {:02}:{:02}",
        d.month(),
        d.day(),
        d.year(),
        d.hour(),
        d.minute()
    )
}

/// HTCondor's `format_time`: `days+hh:mm:ss`.
fn format_time(secs: i64) -> String {
    format!(
        "{:3}+{:02}:{:02}:{:02}",
        secs / 86400,
        secs % 86400 / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

fn date_cell(width: usize, t: i64) -> String {
    if t <= 0 {
        pad("", width, ' ', Pad::Left)
    } else {
        pad(&format_date_year(t), width, ' ', Pad::Left)
    }
}

fn delta_cell(width: usize, secs: i64) -> String {
    if secs <= 0 {
        pad("<now>", width, ' ', Pad::Left)
    } else {
        pad(&format_time_nosecs(secs), width, ' ', Pad::Left)
    }
}

/// user_prio.cpp's `CalcTime`: midnight local time of month/day/year (two-digit years below 50
/// are 20xx).
fn calc_time(month: i64, day: i64, year: i64) -> i64 {
    use chrono::TimeZone;
    let mut year = year;
    if year < 50 {
        year += 100;
    }
    if year > 1900 {
        year -= 1900;
    }
    chrono::Local
        .with_ymd_and_hms((year + 1900) as i32, month as u32, day as u32, 0, 0, 0)
        .earliest()
        .map_or(-1, |d| d.timestamp())
}

fn exit_with(err: &mut dyn Write, text: &str) -> Result<(), CommandError> {
    write!(err, "{text}")?;
    Err(CommandError::Exit(1))
}

fn need_full_name(err: &mut dyn Write, user: &str, what: &str) -> Result<(), CommandError> {
    if user.contains('@') {
        return Ok(());
    }
    exit_with(
        err,
        &format!(
            "condor_userprio: You must specify the full name of the submittor you wish\n\tto {what} (user@uid.domain or user@full.host.name)\n"
        ),
    )
}

/// An edit of the accountant's records. Given several, the first user_prio.cpp tests wins.
#[derive(Clone, Debug, PartialEq)]
enum Edit {
    /// `-setprio USER VALUE`.
    SetPriority { user: String, value: f64 },
    /// `-setfactor USER VALUE`.
    SetFactor { user: String, value: f64 },
    /// `-setfloor USER VALUE`.
    SetFloor { user: String, value: i64 },
    /// `-setceiling USER VALUE` (-1: none).
    SetCeiling { user: String, value: i64 },
    /// `-setaccum USER VALUE`.
    SetAccumulated { user: String, value: f64 },
    /// `-setbegin USER TIME`.
    SetBegin { user: String, value: i64 },
    /// `-setlast USER TIME`.
    SetLast { user: String, value: i64 },
    /// `-resetusage USER`.
    ResetUsage { user: String },
    /// `-delete USER`.
    Delete { user: String },
    /// `-resetall`.
    ResetAll,
}

/// condor_userprio's command line, parsed once.
#[derive(Clone, Debug, Default, PartialEq)]
struct UserprioArgs {
    /// `-pool HOST`: a negotiator condorlite cannot reach.
    pool: Option<String>,
    /// `-name NAME`: a negotiator condorlite cannot reach.
    name: Option<String>,
    /// The positional words that are not `-af` attributes: users and groups to show.
    names: Vec<String>,
    /// The edit asked for, if any (`-setprio`, ..., `-resetall`).
    edit: Option<Edit>,
    /// `-getreslist USER`: the slots USER holds.
    getreslist: Option<String>,
    /// `-inputfile FILE`: the records of a negotiator reply ad in FILE.
    inputfile: Option<String>,
    /// `-long`: whole records.
    long: bool,
    /// `-legacy`: with `-long`, one ad of numbered attributes.
    legacy: bool,
    /// `-modular`: with `-long`, one ad per record.
    modular: bool,
    /// `-negotiator`: the records as the negotiator sends them.
    negotiator: bool,
    /// `-constraint EXPR`.
    constraint: Option<String>,
    /// `-af[:QUALIFIERS] ATTR...`: the attributes (the option's value and the words after it
    /// up to the next option).
    af: Vec<String>,
    /// The `-af` qualifiers (`lhVr,tng`).
    af_qualifiers: String,
    /// `-hierarchical` (`-heir`).
    hierarchical: bool,
    /// `-flat`.
    flat: bool,
    /// `-grouprollup`.
    grouprollup: bool,
    /// `-grouporder`.
    grouporder: bool,
    /// `-quotas`.
    quotas: bool,
    /// `-surplus`.
    surplus: bool,
    /// `-sortkey`.
    sortkey: bool,
    /// `-all`.
    all: bool,
    /// `-most`.
    most: bool,
    /// `-groupid`.
    groupid: bool,
    /// `-order`.
    order: bool,
    /// `-usage`.
    usage: bool,
    /// `-priority`.
    priority: bool,
    /// `-activefrom MONTH DAY YEAR`, each read as C's `atoi`.
    activefrom: Option<(i64, i64, i64)>,
    /// `-allusers`: every user, however long inactive.
    allusers: bool,
}

impl UserprioArgs {
    /// Reads the parsed command line (the only place that looks options up by name).
    fn from_invocation(inv: &Invocation) -> UserprioArgs {
        let m = &inv.matches;
        let on = |id: &str| m.get_flag(id);
        let values = |id: &str| -> Option<Vec<String>> {
            m.get_many::<String>(id).map(|v| v.cloned().collect())
        };
        let pair = |id: &str| {
            values(id).map(|v| {
                let first = v.first().cloned().unwrap_or_default();
                (first, v.get(1).cloned().unwrap_or_default())
            })
        };
        let af_start = inv.occurrences("af").first().copied();
        let option_indices: Vec<usize> = m
            .ids()
            .filter(|id| id.as_str() != "users")
            .flat_map(|id| m.indices_of(id.as_str()).into_iter().flatten())
            .collect();
        // Attributes after `-af ATTR` up to the next option belong to -af, as HTCondor's
        // `parse_autoformat_args` reads them.
        let mut af = values("af").unwrap_or_default();
        let mut names = Vec::new();
        for (index, user) in inv.indexed::<String>("users") {
            let after_af = af_start.is_some_and(|a| {
                index > a
                    && !option_indices.iter().any(|&o| {
                        o > a
                            && o < index
                            && !m.indices_of("af").into_iter().flatten().any(|x| x == o)
                    })
            });
            if after_af {
                af.push(user);
            } else {
                names.push(user);
            }
        }
        // user_prio.cpp's order of tests.
        let real = |id: &str, edit: fn(String, f64) -> Edit| {
            pair(id).map(|(user, v)| edit(user, atof(&v)))
        };
        let int = |id: &str, edit: fn(String, i64) -> Edit| {
            pair(id).map(|(user, v)| edit(user, i64::from(atoi(&v))))
        };
        let edit = real("setprio", |user, value| Edit::SetPriority { user, value })
            .or_else(|| real("setfactor", |user, value| Edit::SetFactor { user, value }))
            .or_else(|| int("setfloor", |user, value| Edit::SetFloor { user, value }))
            .or_else(|| int("setceiling", |user, value| Edit::SetCeiling { user, value }))
            .or_else(|| {
                real("setaccum", |user, value| Edit::SetAccumulated {
                    user,
                    value,
                })
            })
            .or_else(|| int("setbegin", |user, value| Edit::SetBegin { user, value }))
            .or_else(|| int("setlast", |user, value| Edit::SetLast { user, value }))
            .or_else(|| pair("resetusage").map(|(user, _)| Edit::ResetUsage { user }))
            .or_else(|| pair("delete").map(|(user, _)| Edit::Delete { user }))
            .or_else(|| on("resetall").then_some(Edit::ResetAll));
        let text = |id: &str| m.get_one::<String>(id).cloned();
        UserprioArgs {
            pool: text("pool"),
            name: text("name"),
            names,
            edit,
            getreslist: pair("getreslist").map(|(user, _)| user),
            inputfile: text("inputfile"),
            long: on("long"),
            legacy: on("legacy"),
            modular: on("modular"),
            negotiator: on("negotiator"),
            constraint: text("constraint"),
            af,
            af_qualifiers: inv.qualifier("af").unwrap_or("").to_owned(),
            hierarchical: on("hierarchical"),
            flat: on("flat"),
            grouprollup: on("grouprollup"),
            grouporder: on("grouporder"),
            quotas: on("quotas"),
            surplus: on("surplus"),
            sortkey: on("sortkey"),
            all: on("all"),
            most: on("most"),
            groupid: on("groupid"),
            order: on("order"),
            usage: on("usage"),
            priority: on("priority"),
            activefrom: values("activefrom").map(|v| {
                let n = |i: usize| i64::from(atoi(v.get(i).map_or("", String::as_str)));
                (n(0), n(1), n(2))
            }),
            allusers: on("allusers"),
        }
    }
}

/// The accountant configuration and the database path.
fn setup() -> Result<(AccountantConfig, std::path::PathBuf), CommandError> {
    let config = Config::load_with(LoadOptions::from_process())
        .map_err(|e| CommandError::failed(1, e.to_string()))?;
    let acfg = AccountantConfig::from_config(&config)
        .map_err(|e| CommandError::failed(1, e.to_string()))?;
    let spool = config
        .string("SPOOL")
        .map_err(|e| CommandError::failed(1, e.to_string()))?
        .ok_or_else(|| CommandError::failed(1, "SPOOL is not defined"))?;
    Ok((acfg, std::path::Path::new(&spool).join(ACCOUNTANT_FILE)))
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let args = UserprioArgs::from_invocation(inv);
    // The negotiator of -pool and -name: this host's, or one that cannot be found.
    let config = Config::load().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let here = |target: &str| is_this_host(&config, host_part(target));
    let pool_here = args.pool.as_deref().is_none_or(here);
    if !pool_here || !args.name.as_deref().is_none_or(here) {
        let pool = match &args.pool {
            Some(p) => p.as_str(),
            None => "local pool",
        };
        return exit_with(
            err,
            &format!("condor_userprio: Can't locate negotiator in {pool}\n"),
        );
    }
    for n in &args.names {
        if !(n.starts_with(|c: char| c.is_ascii_alphabetic()) || n == ROOT_GROUP) {
            return Err(CommandError::Usage(format!("unexpected argument '{n}'")));
        }
    }
    if let Some(edit) = &args.edit {
        return run_edit(edit, out, err);
    }
    display(args, out, err)
}

/// One edit, in one transaction on the accountant's database.
fn update(what: &dyn Fn(&mut AccountantState, i64)) -> Result<(), CommandError> {
    let (acfg, path) = setup()?;
    let store = SqliteStore::open(&path).map_err(|e| CommandError::failed(1, e.to_string()))?;
    let mut acct = Accountant::new(acfg, Box::new(store))
        .map_err(|e| CommandError::failed(1, e.to_string()))?;
    let t = now();
    acct.update(|s, _| what(s, t))
        .map_err(|e| CommandError::failed(1, e.to_string()))
}

/// `-setprio`, ..., `-resetall`: checks the request as user_prio.cpp does, edits, reports.
fn run_edit(edit: &Edit, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    match edit {
        Edit::SetPriority { user, value } => {
            let v = *value;
            need_full_name(err, user, "update the priority of")?;
            update(&|s, _| s.set_priority(user, v))?;
            writeln!(out, "The priority of {user} was set to {v:.6}")?;
        }
        Edit::SetFactor { user, value } => {
            let v = *value;
            need_full_name(err, user, "update the priority of")?;
            if v < 1.0 {
                return exit_with(
                    err,
                    "Priority factors must be greater than or equal to 1.\n",
                );
            }
            update(&|s, _| s.set_priority_factor(user, v))?;
            writeln!(out, "The priority factor of {user} was set to {v:.6}")?;
        }
        Edit::SetFloor { user, value } | Edit::SetCeiling { user, value } => {
            let v = *value;
            let floor = matches!(edit, Edit::SetFloor { .. });
            let (name, min) = if floor { ("floor", 0) } else { ("ceiling", -1) };
            if !user.contains('@') {
                return exit_with(
                    err,
                    &format!(
                        "condor_userprio: You must specify the full name of the submittor you wish\n\tto update the {name} of (user@uid.domain or user@full.host.name) (not {user})\n"
                    ),
                );
            }
            if v < min {
                return exit_with(
                    err,
                    &format!("{name} must be greater than or equal to {min}.\n"),
                );
            }
            if floor {
                update(&|s, _| s.set_floor(user, v))?;
            } else {
                update(&|s, _| s.set_ceiling(user, v))?;
            }
            writeln!(out, "The {name} of {user} was set to {v}")?;
        }
        Edit::SetAccumulated { user, value } => {
            let v = *value;
            need_full_name(err, user, "update the Accumulated usage of")?;
            if v < 0.0 {
                return exit_with(err, "Usage must be greater than 0 seconds\n");
            }
            update(&|s, _| s.set_accumulated_usage(user, v))?;
            writeln!(out, "The Accumulated Usage of {user} was set to {v:.6}")?;
        }
        Edit::SetBegin { user, value } | Edit::SetLast { user, value } => {
            let v = *value;
            let begin = matches!(edit, Edit::SetBegin { .. });
            let (what, label) = if begin {
                ("update the begin usage time of", "Begin Usage Time")
            } else {
                ("update the last usage time of", "Last Usage Time")
            };
            need_full_name(err, user, what)?;
            if v < 0 {
                return exit_with(err, "Time must be greater than 0 seconds\n");
            }
            if begin {
                update(&|s, _| s.set_begin_usage_time(user, v))?;
            } else {
                update(&|s, _| s.set_last_usage_time(user, v))?;
            }
            writeln!(out, "The {label} of {user} was set to {v}")?;
        }
        Edit::ResetUsage { user } => {
            need_full_name(err, user, "update the priority of")?;
            update(&|s, t| s.reset_usage(user, t))?;
            writeln!(out, "The accumulated usage of {user} was reset")?;
        }
        Edit::Delete { user } => {
            if !user.contains('@') {
                return exit_with(
                    err,
                    "condor_userprio: You must specify the full name of the record you wish\n\tto delete (user@uid.domain or user@full.host.name)\n",
                );
            }
            update(&|s, _| {
                s.delete(user);
            })?;
            writeln!(out, "The accountant record named {user} was deleted")?;
        }
        Edit::ResetAll => {
            update(&|s, t| s.reset_all_usage(t))?;
            writeln!(out, "The accumulated usage was reset for all users")?;
        }
    }
    Ok(())
}

/// The records, as the options ask.
fn display(
    args: UserprioArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    // ----- display
    let now = now();
    let (acfg, path) = setup()?;
    let state = match SqliteStore::open_existing(&path)
        .map_err(|e| CommandError::failed(1, e.to_string()))?
    {
        Some(mut store) => store
            .load()
            .map_err(|e| CommandError::failed(1, e.to_string()))?,
        None => AccountantState::default(),
    };
    let mut state = state;
    state.ensure_group_records(&acfg);

    if let Some(user) = &args.getreslist {
        need_full_name(err, user, "update the priority of")?;
        let mut ad = ClassAd::new();
        let mut rows = Vec::new();
        for (name, r) in &state.resources {
            if r.remote_user == *user && r.num_cp_matches.is_none() {
                rows.push((name.clone(), r.start_time));
            }
        }
        for (i, (name, start)) in rows.iter().enumerate() {
            ad.insert(&format!("Name{}", i + 1), Expr::lit(name.as_str()));
            ad.insert(&format!("StartTime{}", i + 1), Expr::lit(*start));
        }
        if args.long {
            write!(out, "{}", ad_to_old(&ad, false))?;
            return Ok(());
        }
        let row = |a: &str, b: &str, c: &str| format!("{a:<30} {b:>12} {c:>12}");
        writeln!(
            out,
            "{}",
            row("Resource Name", " Start Time", " Match Time")
        )?;
        writeln!(
            out,
            "{}",
            row("-------------", " ----------", " ----------")
        )?;
        for (name, start) in &rows {
            let short = name.rfind('@').map_or(name.as_str(), |i| &name[..i]);
            writeln!(
                out,
                "{}",
                row(short, &format_date(*start), &format_time(now - start))
            )?;
        }
        writeln!(
            out,
            "{}",
            row("-------------", " ------------", " ------------")
        )?;
        writeln!(out, "Number of Resources Used: {}", rows.len())?;
        return Ok(());
    }

    let rollup = args.grouprollup;
    let (ads, last_update) = match &args.inputfile {
        Some(file) => {
            let text = match std::fs::read_to_string(file) {
                Ok(t) => t,
                Err(_) => {
                    return exit_with(err, &format!("Can't open file of userprio ads: {file}\n"))
                }
            };
            let ad = parse_old_ad(&text)
                .map_err(|e| CommandError::failed(1, format!("Error reading userprio ads: {e}")))?;
            let last = lookup_int(&ad, "LastUpdate").unwrap_or(0);
            (split_legacy(&ad), last)
        }
        None => (report(&state, &acfg, rollup), state.last_update_time),
    };
    // Names on the command line: exact for user@domain, the user part otherwise.
    let names = args.names;
    let ads: Vec<ClassAd> = if names.is_empty() {
        ads
    } else {
        ads.into_iter()
            .filter(|ad| {
                let n = lookup_str(ad, "Name").unwrap_or_default();
                let user = n.split('@').next().unwrap_or("");
                matches!(ad.eval_attr("IsAccountingGroup"), Value::Bool(true))
                    || names
                        .iter()
                        .any(|x| *x == n || (!x.contains('@') && x == user))
            })
            .collect()
    };

    let mut detail = 0u32;
    let mut dash_quota = false;
    let mut dash_hier = false;
    let mut hier = true;
    let mut group_order = false;
    if args.hierarchical {
        dash_hier = true;
    }
    if args.flat {
        hier = false;
        dash_hier = true;
    }
    if args.grouporder {
        group_order = true;
        hier = false;
        dash_hier = true;
    }
    if args.quotas {
        detail |= DETAIL_QUOTAS;
        dash_quota = true;
    }
    if args.surplus {
        detail |= DETAIL_SURPLUS;
        dash_quota = true;
    }
    if args.sortkey {
        detail |= DETAIL_SORT_KEY;
    }
    if args.all {
        detail |= DETAIL_ALL;
    }
    if args.most {
        detail |= DETAIL_MOST;
    }
    if args.groupid {
        detail |= DETAIL_GROUP;
    }
    if args.order {
        detail |= DETAIL_ORDER;
    }
    if args.usage {
        detail |= DETAIL_USAGE | DETAIL_USE_TIME1 | DETAIL_USE_TIME2;
    }
    if args.priority {
        detail |= DETAIL_PRIOS;
    }
    let mut min_last_usage = now - 60 * 60 * 24;
    if let Some((month, day, year)) = args.activefrom {
        min_last_usage = calc_time(month, day, year);
    }
    if args.allusers {
        min_last_usage = -1;
    }
    if detail == 0 {
        detail = DETAIL_MOST;
    }
    let mut hide_groups = false;
    if detail & !DETAIL_PRIOS == 0 {
        if !dash_hier {
            hier = false;
        }
        hide_groups = !hier;
    }

    let constraint = match &args.constraint {
        Some(c) => Some(parse_expr(c).map_err(|_| {
            CommandError::failed(1, format!("Error:  could not parse constraint {c}"))
        })?),
        None => None,
    };
    let selected = |ad: &ClassAd| {
        constraint
            .as_ref()
            .is_none_or(|c| matches!(ad.eval_expr(c, None), Value::Bool(true)))
    };
    let with_ids: Vec<ClassAd> = ads
        .iter()
        .enumerate()
        .map(|(i, ad)| {
            let mut ad = ad.clone();
            ad.insert("SubmittorId", Expr::lit(i as i64 + 1));
            ad
        })
        .collect();
    if !args.af.is_empty() {
        autoformat(out, &with_ids, &args.af, &args.af_qualifiers, &selected)?;
        return Ok(());
    }
    if args.long {
        let from_negotiator = args.allusers || rollup || args.negotiator;
        if args.modular {
            for ad in with_ids.iter().filter(|a| selected(a)) {
                writeln!(out)?;
                write!(out, "{}", ad_to_old(ad, false))?;
            }
        } else if args.legacy || from_negotiator || args.inputfile.is_some() {
            write!(out, "{}", ad_to_old(&legacy_ad(&ads, last_update), false))?;
        } else {
            for ad in &ads {
                let mut ad = ad.clone();
                ad.insert("LastUpdate", Expr::lit(last_update));
                write!(out, "{}", ad_to_old(&ad, false))?;
                writeln!(out)?;
            }
        }
        return Ok(());
    }
    let mut display = Display {
        detail,
        avail: 0,
        dash_quota,
        hier,
        group_order,
        hide_groups,
        hide_users: false,
        hide_none_if_possible: true,
        users_have_quotas: false,
        global_surplus: Surplus::Unset,
        min_last_usage,
        named: names,
    };
    display.print(out, &ads, rollup, last_update)?;
    Ok(())
}

/// `-af`: the attributes of each record, formatted (`:l` labels, `:h` headings, `:V` strings
/// quoted, `:r` unevaluated, `:,` commas, `:t` tabs, `:n` one value per line, `:g` a blank
/// line between records).
fn autoformat(
    out: &mut dyn Write,
    ads: &[ClassAd],
    attrs: &[String],
    opts: &str,
    selected: &dyn Fn(&ClassAd) -> bool,
) -> Result<(), CommandError> {
    let exprs: Vec<Expr> = attrs
        .iter()
        .map(|a| {
            parse_expr(a)
                .map_err(|_| CommandError::failed(1, format!("Error: Invalid expression: {a}")))
        })
        .collect::<Result<_, _>>()?;
    let has = |c: char| opts.contains(c);
    let sep = if has('t') { "\t" } else { " " };
    if has('h') {
        let heads: Vec<&str> = attrs.iter().map(String::as_str).collect();
        writeln!(out, "{}", heads.join(sep))?;
    }
    for ad in ads.iter().filter(|a| selected(a)) {
        let mut line = String::new();
        for (i, (attr, e)) in attrs.iter().zip(&exprs).enumerate() {
            if i > 0 && !has('n') && !has('g') {
                line.push_str(sep);
            } else if i > 0 && has('g') && !has('n') {
                line.push('\n');
            }
            if has('l') {
                line.push_str(attr);
                line.push_str(" = ");
            }
            let text = if has('r') {
                match e {
                    Expr::Attr(name) => ad
                        .lookup(name)
                        .map(expr_to_old_string)
                        .unwrap_or_else(|| "undefined".into()),
                    other => expr_to_old_string(other),
                }
            } else {
                match ad.eval_expr(e, None) {
                    Value::Str(s) if !has('V') => s.to_string(),
                    v => expr_to_old_string(&Expr::from_value(&v)),
                }
            };
            line.push_str(&text);
            if has(',') {
                line.push(',');
            }
            if has('n') {
                line.push('\n');
            }
        }
        if has('n') {
            write!(out, "{line}")?;
        } else {
            writeln!(out, "{line}")?;
        }
        if has('g') {
            writeln!(out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> UserprioArgs {
        UserprioArgs::from_invocation(&TOOL.parse_words(args).expect("a valid command line"))
    }

    fn edit(args: &[&str]) -> Option<Edit> {
        parse(args).edit
    }

    #[test]
    fn nothing_given() {
        assert_eq!(parse(&[]), UserprioArgs::default());
    }

    #[test]
    fn negotiators() {
        assert_eq!(parse(&["-pool", "cm"]).pool.as_deref(), Some("cm"));
        assert_eq!(parse(&["-name", "n"]).name.as_deref(), Some("n"));
    }

    #[test]
    fn edits() {
        let user = || "a@x".to_owned();
        let cases = [
            (
                "-setprio",
                "2.5",
                Edit::SetPriority {
                    user: user(),
                    value: 2.5,
                },
            ),
            (
                "-setfactor",
                "3",
                Edit::SetFactor {
                    user: user(),
                    value: 3.0,
                },
            ),
            (
                "-setfloor",
                "4x",
                Edit::SetFloor {
                    user: user(),
                    value: 4,
                },
            ),
            (
                "-setceiling",
                "-1",
                Edit::SetCeiling {
                    user: user(),
                    value: -1,
                },
            ),
            (
                "-setaccum",
                "10",
                Edit::SetAccumulated {
                    user: user(),
                    value: 10.0,
                },
            ),
            (
                "-setbegin",
                "100",
                Edit::SetBegin {
                    user: user(),
                    value: 100,
                },
            ),
            (
                "-setlast",
                "200",
                Edit::SetLast {
                    user: user(),
                    value: 200,
                },
            ),
        ];
        for (option, value, expected) in cases {
            assert_eq!(edit(&[option, "a@x", value]), Some(expected), "{option}");
        }
        assert_eq!(
            edit(&["-resetusage", "a@x"]),
            Some(Edit::ResetUsage { user: user() })
        );
        assert_eq!(edit(&["-del", "a@x"]), Some(Edit::Delete { user: user() }));
        assert_eq!(edit(&["-resetall"]), Some(Edit::ResetAll));
        // The first in user_prio.cpp's order wins.
        assert_eq!(
            edit(&["-resetall", "-setfactor", "a@x", "2"]),
            Some(Edit::SetFactor {
                user: user(),
                value: 2.0
            })
        );
    }

    #[test]
    fn display_flags() {
        assert_eq!(
            parse(&["-getreslist", "a@x"]).getreslist.as_deref(),
            Some("a@x")
        );
        assert_eq!(parse(&["-in", "f"]).inputfile.as_deref(), Some("f"));
        assert!(parse(&["-l"]).long);
        assert!(parse(&["-leg"]).legacy);
        assert!(parse(&["-mod"]).modular);
        assert!(parse(&["-neg"]).negotiator);
        assert!(parse(&["-hi"]).hierarchical);
        assert!(parse(&["-heir"]).hierarchical);
        assert!(parse(&["-fl"]).flat);
        assert!(parse(&["-grouprollup"]).grouprollup);
        assert!(parse(&["-grouporder"]).grouporder);
        assert!(parse(&["-q"]).quotas);
        assert!(parse(&["-surplus"]).surplus);
        assert!(parse(&["-so"]).sortkey);
        assert!(parse(&["-all"]).all);
        assert!(parse(&["-mo"]).most);
        assert!(parse(&["-groupid"]).groupid);
        assert!(parse(&["-order"]).order);
        assert!(parse(&["-us"]).usage);
        assert!(parse(&["-prio"]).priority);
        assert!(parse(&["-allusers"]).allusers);
        assert_eq!(
            parse(&["-activefrom", "1", "2", "2024"]).activefrom,
            Some((1, 2, 2024))
        );
        assert_eq!(parse(&["-c", "x > 1"]).constraint.as_deref(), Some("x > 1"));
    }

    #[test]
    fn af_takes_the_words_up_to_the_next_option() {
        let args = parse(&["bob", "-af:lh", "Name", "Priority", "-l", "carol"]);
        assert_eq!(args.af, ["Name", "Priority"]);
        assert_eq!(args.af_qualifiers, "lh");
        assert_eq!(args.names, ["bob", "carol"]);
    }

    #[test]
    fn fields_pad_as_user_prio_does() {
        assert_eq!(pad("Effective", 12, ' ', Pad::Center), " Effective  ");
        assert_eq!(pad("Id", 5, ' ', Pad::Center), " Id  ");
        assert_eq!(float(12, 2, 500.0), "      500.00");
        assert_eq!(float(6, 0, 1.0), "     1");
        assert_eq!(format_time_nosecs(86400), "  1+00:00");
        assert_eq!(format_time(3661), "  0+01:01:01");
        assert_eq!(atof("2.5x"), 2.5);
        assert_eq!(atoi(" 12abc"), 12);
    }

    #[test]
    fn legacy_ads_split_into_records() {
        let mut ad = ClassAd::new();
        ad.insert("Name1", Expr::lit("a@x"));
        ad.insert("Priority1", Expr::lit(1.5));
        ad.insert("Name2", Expr::lit("b@x"));
        ad.insert("NumSubmittors", Expr::lit(2i64));
        ad.insert("LastUpdate", Expr::lit(5i64));
        let recs = split_legacy(&ad);
        assert_eq!(recs.len(), 2);
        assert_eq!(lookup_str(&recs[1], "Name").as_deref(), Some("b@x"));
        assert_eq!(lookup_int(&recs[0], "SubmittorId"), Some(1));
    }
}
