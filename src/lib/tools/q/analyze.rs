//! `condor_q -analyze`, `-better-analyze` and `-reverse-analyze`: why jobs do not run, worked
//! out and printed as HTCondor 24's condor_q does (src/condor_q.V6/jobmatch.cpp,
//! `print_jobs_analysis` in queue.cpp, src/condor_utils/expr_analyze.cpp).
//!
//! The slots come from the running master ([`AdKind::Slots`]), or from a file with `-slotads`;
//! dynamic slots are left out unless `-machine` names one or `-mconstraint` asks for slot
//! types. Without a master, analysis stops as HTCondor's does when it cannot reach the
//! collector: `Error:  Could not fetch startd ads` and exit status 1.
//!
//! For each selected job (in job-id order) the analysis:
//! - matches the job against every slot both ways ([`job_run_analysis`], `doJobRunAnalysis`),
//!   trying a partitionable slot as if drained when the job does not fit what is left of it;
//! - when some slot rejects the job because of the job's own requirements (or always, with
//!   `-better-analyze`), prints the `Requirements` expression, its numbered clauses, the
//!   attributes they reference, and how many slots each remaining clause matches
//!   ([`analyze_requirements_for_each_target`], `AnalyzeRequirementsForEachTarget`);
//! - prints the run analysis summary (`N slots are rejected by your job's requirements`, ...),
//!   and what the job's own ad says of its state and of the negotiator's last match attempt
//!   (`LastRejMatchReason`).
//!
//! `-analyze:summary` prints one line per job instead; `-reverse-analyze` (or
//! `-analyze:reverse`) analyzes each slot's requirements against the jobs. As in HTCondor, the
//! slot collection is shared by the jobs of one run: a drain simulation made for one job stays
//! for the next.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use super::{queue_err, Query};
use crate::classad::ast::{BinOp, Expr, ScopeKw, UnOp};
use crate::classad::functions::strftime::strftime;
use crate::classad::functions::time::localtime;
use crate::classad::parser::{parse_old_ads, parse_old_expr};
use crate::classad::unparse::{expr_to_string, value_to_string, write_expr, write_value, Syntax};
use crate::classad::{eval_expr, requirements_met, ClassAd, Value};
use crate::cli::Invocation;
use crate::client::master::{self, AdKind};
use crate::config::Config;
use crate::error::CommandError;
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::queue::{constraint_holds, JobQuery};

// The `detail_*` flags of expr_analyze.h.
const SMART_UNPARSE_EXPR: u32 = 0x01;
const ALWAYS_UNPARSE_EXPR: u32 = 0x02;
const SHOW_ALL_SUBEXPRS: u32 = 0x04;
const SHOW_IFTHENELSE: u32 = 0x08;
const DIAGNOSTIC: u32 = 0x40;
const DUMP_INTERMEDIATES: u32 = 0x80;
const ANALYZE_EACH_SUB_EXPR: u32 = 0x100;
const ALWAYS_ANALYZE_REQ: u32 = 0x200;
const DONT_SHOW_JOB_ATTRS: u32 = 0x400;
const INLINE_STD_SLOT_EXPRS: u32 = 0x800;
const SUPPRESS_TALL_HEADING: u32 = 0x1000;
const APPEND_TO_BUF: u32 = 0x2000;
const BETTER: u32 = 0x10000;

use crate::queue::universe::{GRID, JAVA, LOCAL, MPI, PARALLEL, SCHEDULER, VANILLA, VM};

/// How deep reference walks follow attributes before giving up (libclassad's limit).
const MAX_DEPTH: u32 = 400;

/// What the analyze options ask for.
#[derive(Clone, Debug, Default)]
pub(super) struct Options {
    /// The `detail_*` flags.
    details: u32,
    /// `-reverse-analyze`, `-analyze:reverse`: analyze the slots' requirements.
    reverse: bool,
    /// `-analyze:summary`: one line per job (or per slot).
    summary: bool,
    /// `-verbose`: progress on stderr, slot names in the summary.
    verbose: bool,
    /// `-machine NAME`.
    machine: Option<String>,
    /// `-mconstraint EXPR`.
    mconstraint: Option<String>,
    /// `-slotads FILE`.
    slotads: Option<String>,
}

/// `is_arg_prefix`: `word` is a prefix of `name`, at least `min` characters long.
fn is_arg_prefix(word: &str, name: &str, min: usize) -> bool {
    !word.is_empty() && name.starts_with(word) && word.len() >= min
}

/// `parse_analyze_detail`: the digits of a qualifier as detail flags (`,` or `+` separating
/// numbers); a qualifier without any clears the flags.
fn parse_detail(word: &str, current: u32) -> u32 {
    let (mut details, mut flag) = (0u32, 0u32);
    for c in word.chars() {
        if let Some(d) = c.to_digit(10) {
            flag = flag.wrapping_mul(10).wrapping_add(d);
        } else if c == ',' || c == '+' {
            details |= flag;
            flag = 0;
        }
    }
    if details | flag == 0 {
        return 0;
    }
    current | details | flag
}

/// The analyze options of a command line, or `None` when it asks for no analysis.
pub(super) fn options(inv: &Invocation) -> Option<Options> {
    let mut uses: Vec<(usize, &str, Option<&str>)> = Vec::new();
    for id in ["analyze", "better-analyze", "reverse-analyze"] {
        let qualifiers = inv.qualifiers(id);
        for (n, at) in inv.occurrences(id).into_iter().enumerate() {
            uses.push((at, id, qualifiers.get(n).copied().flatten()));
        }
    }
    if uses.is_empty() {
        return None;
    }
    uses.sort_by_key(|u| u.0);
    let mut o = Options::default();
    for (_, id, qualifier) in uses {
        if id == "reverse-analyze" {
            o.reverse = true;
            if let Some(q) = qualifier {
                o.details |= parse_detail(q, o.details);
            }
            continue;
        }
        if id == "better-analyze" {
            o.details |= BETTER | ANALYZE_EACH_SUB_EXPR | ALWAYS_ANALYZE_REQ;
        }
        let Some(q) = qualifier else { continue };
        let mut words = q.split([',', ':']).filter(|w| !w.is_empty());
        while let Some(w) = words.next() {
            if is_arg_prefix(w, "summary", 1) {
                o.summary = true;
            } else if is_arg_prefix(w, "reverse", 1) {
                o.reverse = true;
            } else if is_arg_prefix(w, "priority", 2) {
                // User priorities are not consulted: the analysis ignores them.
            } else if is_arg_prefix(w, "noprune", 3) {
                o.details |= SHOW_ALL_SUBEXPRS;
            } else if is_arg_prefix(w, "diagnostic", 4) {
                o.details |= DIAGNOSTIC;
            } else if is_arg_prefix(w, "show-work", 4) {
                o.details |= DUMP_INTERMEDIATES;
            } else if is_arg_prefix(w, "slot-exprs", 4) {
                o.details |= INLINE_STD_SLOT_EXPRS;
            } else if is_arg_prefix(w, "ifthenelse", 2) {
                o.details |= SHOW_IFTHENELSE;
            } else if is_arg_prefix(w, "memory", 3) {
                // Takes the next word (an attribute); HTCondor reports nothing for it.
                words.next();
            } else {
                o.details = parse_detail(w, o.details);
            }
        }
    }
    let m = &inv.matches;
    o.verbose = m.get_flag("verbose");
    let last = |id: &str| {
        m.get_many::<String>(id)
            .and_then(|mut v| v.next_back())
            .map(|s| s.to_owned())
    };
    o.machine = last("machine");
    o.mconstraint = last("mconstraint");
    o.slotads = last("slotads");
    Some(o)
}

/// Which slots the run analysis matches a job against (`anaMatchMode*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum MatchMode {
    /// Every slot, dynamic ones included.
    Always = 1,
    /// Static and partitionable slots, the latter drained when the job does not fit.
    Pslot = 2,
}

/// One slot ad of the collection, or a drain simulation of a partitionable slot.
struct SlotAd {
    ad: ClassAd,
    /// The dynamic slot id of a dynamic slot; for a partitionable slot with a drain
    /// simulation, minus the simulation's index, and for the simulation minus the slot's.
    sub_id: i64,
    /// The machine (its index among the machines seen).
    group: usize,
    /// A drain simulation: chained to the slot it simulates.
    overlay: bool,
}

/// The slots analysis runs against (`startdAds`).
pub(super) struct Slots {
    /// In the order fetched, drain simulations appended.
    ads: Vec<SlotAd>,
    /// The fetched ads by machine, slot id, dynamic slot id and name.
    by_key: Vec<usize>,
    groups: usize,
    num_dynamic: usize,
    num_overlay_candidates: usize,
    num_overlay_ads: usize,
    longest_machine: usize,
    longest_name: usize,
    /// `-machine` named one machine or slot: its name.
    single_machine: Option<String>,
    mode: MatchMode,
}

impl Slots {
    fn new(ads: Vec<ClassAd>) -> Slots {
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

    fn name(&self, index: usize) -> String {
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

/// `setupAnalysis`: the slot ads to analyze against.
pub(super) fn fetch_slots(
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
            let ads = master::query(config, AdKind::Slots).map_err(|_| fetch_failed(err))?;
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

// ------------------------------------------------------------------------------------------
// Attribute names and references.

/// A set of attribute names as `classad::References` keeps them: case-insensitive, sorted as
/// `strcasecmp` sorts, each with the spelling first inserted.
#[derive(Clone, Debug, Default)]
struct Names(BTreeMap<String, String>);

impl Names {
    fn of(names: &[&str]) -> Names {
        let mut n = Names::default();
        for name in names {
            n.insert(name);
        }
        n
    }

    fn insert(&mut self, name: &str) {
        self.0
            .entry(name.to_ascii_lowercase())
            .or_insert_with(|| name.to_owned());
    }

    fn contains(&self, name: &str) -> bool {
        self.0.contains_key(&name.to_ascii_lowercase())
    }

    fn without(&self, name: &str) -> Names {
        let mut n = self.clone();
        n.0.remove(&name.to_ascii_lowercase());
        n
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.values().map(String::as_str)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `TrimReferenceNames` for an external reference: no `TARGET.` (or `other.`, `.left.`,
/// `.right.`, `.`) prefix, and nothing from the first `.` or `[`.
fn trim_external(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let mut rest = name;
    for prefix in ["target.", "other.", ".left.", ".right."] {
        if lower.starts_with(prefix) {
            rest = &name[prefix.len()..];
            break;
        }
    }
    if rest.len() == name.len() {
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    rest[..end].to_owned()
}

/// libclassad's `GetExternalReferences` in an ad with no target: the names an expression
/// reads that the ad does not define, following the ones it does. False when the walk fails
/// (an attribute referring to itself).
fn external_refs(ad: &ClassAd, e: &Expr, out: &mut Names, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let follow = |name: &str, out: &mut Names| match ad.lookup(name) {
        Some(found) => external_refs(ad, found, out, depth + 1),
        None => {
            out.insert(&trim_external(name));
            true
        }
    };
    match e {
        Expr::Lit(_) => true,
        Expr::Attr(n)
        | Expr::Absolute(n)
        | Expr::Scoped {
            scope: ScopeKw::My,
            name: n,
            ..
        } => follow(n, out),
        Expr::Scoped { prefix, name, .. } => {
            out.insert(&trim_external(&format!("{prefix}.{name}")));
            true
        }
        Expr::Select(base, name) => match eval_expr(base, Some(ad), None) {
            Ok(Value::Undefined) => {
                out.insert(&trim_external(&format!("{}.{name}", expr_to_string(base))));
                true
            }
            Ok(Value::Ad(_)) => true,
            _ => false,
        },
        Expr::Unary(_, a) | Expr::Paren(a) => external_refs(ad, a, out, depth + 1),
        Expr::Binary { lhs, rhs, .. } => {
            external_refs(ad, lhs, out, depth + 1) && external_refs(ad, rhs, out, depth + 1)
        }
        Expr::Ternary(a, b, c) => [a, b, c]
            .iter()
            .all(|x| external_refs(ad, x, out, depth + 1)),
        Expr::Call(call) => call
            .args
            .iter()
            .all(|x| external_refs(ad, x, out, depth + 1)),
        Expr::List(items) => items.iter().all(|x| external_refs(ad, x, out, depth + 1)),
        Expr::Ad(inner) => inner
            .iter()
            .all(|(_, x)| external_refs(ad, x, out, depth + 1)),
    }
}

/// libclassad's `GetInternalReferences`: the names an expression reads that the ad
/// defines, following them.
fn internal_refs(ad: &ClassAd, e: &Expr, out: &mut Names, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match e {
        Expr::Lit(_)
        | Expr::Scoped {
            scope: ScopeKw::Target,
            ..
        } => true,
        Expr::Attr(n)
        | Expr::Absolute(n)
        | Expr::Scoped {
            scope: ScopeKw::My,
            name: n,
            ..
        } => match ad.lookup(n) {
            Some(found) => {
                out.insert(n);
                internal_refs(ad, found, out, depth + 1)
            }
            None => true,
        },
        Expr::Select(base, _) => {
            internal_refs(ad, base, out, depth + 1)
                && matches!(
                    eval_expr(base, Some(ad), None),
                    Ok(Value::Undefined | Value::Ad(_))
                )
        }
        Expr::Unary(_, a) | Expr::Paren(a) => internal_refs(ad, a, out, depth + 1),
        Expr::Binary { lhs, rhs, .. } => {
            internal_refs(ad, lhs, out, depth + 1) && internal_refs(ad, rhs, out, depth + 1)
        }
        Expr::Ternary(a, b, c) => [a, b, c]
            .iter()
            .all(|x| internal_refs(ad, x, out, depth + 1)),
        Expr::Call(call) => call
            .args
            .iter()
            .all(|x| internal_refs(ad, x, out, depth + 1)),
        Expr::List(items) => items.iter().all(|x| internal_refs(ad, x, out, depth + 1)),
        Expr::Ad(inner) => inner
            .iter()
            .all(|(_, x)| internal_refs(ad, x, out, depth + 1)),
    }
}

/// `GetExprReferences`: the internal and external references of an expression, both empty
/// when either walk fails.
fn expr_references(ad: &ClassAd, e: &Expr) -> (Names, Names) {
    let (mut internal, mut external) = (Names::default(), Names::default());
    if !internal_refs(ad, e, &mut internal, 0) || !external_refs(ad, e, &mut external, 0) {
        return (Names::default(), Names::default());
    }
    (internal, external)
}

/// A value as `%V` prints it: old syntax, strings quoted.
fn value_text(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v, Syntax::Old);
    s
}

/// `AddReferencedAttribsToBuffer`: one line per attribute of `ad` that its attribute `attr`
/// reads (but those in `hidden`), its expression unparsed (`raw`) or its value, then an
/// empty line; and the names it reads from the target.
fn referenced_attribs(ad: &ClassAd, attr: &str, hidden: &Names, raw: bool) -> (String, Names) {
    let (refs, mut trefs) = expr_references(ad, &Expr::Attr(attr.into()));
    let mut text = String::new();
    if refs.is_empty() && trefs.is_empty() {
        return (text, trefs);
    }
    if trefs.contains("AvailableGPUs") {
        trefs.insert("GPUs");
    }
    for name in refs.iter().filter(|n| !hidden.contains(n)) {
        let value = if raw {
            let mut s = String::new();
            if let Some(e) = ad.lookup(name) {
                write_expr(&mut s, e, Syntax::Old);
            }
            s
        } else {
            value_text(&ad.eval_attr(name))
        };
        text.push_str(&format!("    {name} = {value}"));
        match name {
            "RequestDisk" => text.push_str(" (kb)"),
            "RequestMemory" => text.push_str(" (mb)"),
            _ => {}
        }
        text.push('\n');
    }
    if !text.is_empty() {
        text.push('\n');
    }
    (text, trefs)
}

/// `AddTargetAttribsToBuffer`: the values of the target's attributes named in `trefs` (as
/// `request` sees them), and the target's name; `None` when the target has none of them.
fn target_attribs(trefs: &Names, request: &ClassAd, target: &ClassAd) -> Option<(String, String)> {
    let mut text = String::new();
    let value = |name: &str| {
        value_text(
            &eval_expr(&Expr::Attr(name.into()), Some(request), Some(target))
                .unwrap_or(Value::Error),
        )
    };
    for name in trefs.iter() {
        let Some(tree) = target.lookup(name) else {
            continue;
        };
        text.push_str(&format!("    TARGET.{name} = {}", value(name)));
        match name {
            "Disk" => text.push_str(" (kb)"),
            "Memory" => text.push_str(" (mb)"),
            _ => {}
        }
        text.push('\n');
        // A list of references to nested ads (AvailableGPUs): the ads too.
        if let Expr::List(items) = tree {
            for item in items.iter() {
                if let Expr::Attr(a) = item {
                    if target.lookup(a).is_some() {
                        text.push_str(&format!("       {a} = {}\n", value(a)));
                    }
                }
            }
        }
    }
    if text.is_empty() {
        return None;
    }
    text.push('\n');
    let name = match lookup_str(target, "Name") {
        Some(n) => n.to_string(),
        None => match lookup_int(target, "ClusterId") {
            Some(c) => format!("Job {}.{}", c, lookup_int(target, "ProcId").unwrap_or(0)),
            None => "Target".to_owned(),
        },
    };
    Some((text, name))
}

// ------------------------------------------------------------------------------------------
// Expressions: pretty printing and clause analysis.

/// `PrettyPrintExprTree`: appends `text` to `buf` and breaks the lines of the whole buffer
/// after `&&` and `||` so that they fit in `width` (the first line is taken to start at
/// column `indent`; the lines it makes are indented to the nesting of parentheses). As in
/// HTCondor, the walk covers everything in the buffer, not only what was appended.
fn pretty_print_into(buf: &mut String, text: &str, indent: i32, width: i32) {
    buf.push_str(text);
    let mut b = std::mem::take(buf).into_bytes();
    let mut indent = if indent > width {
        width * 2 / 3
    } else {
        indent
    };
    let (mut it, mut last_and, mut line_start) = (0usize, 0usize, 0usize);
    let mut indent_at_last_and = indent;
    let mut pos = indent;
    let mut was_and = false;
    let mut prev = 0u8;
    while it < b.len() {
        let c = b[it];
        let mut is_and = false;
        if (c == b'&' || c == b'|') && prev == c {
            is_and = true;
        } else if c == b'(' {
            indent += 2;
        } else if c == b')' {
            indent -= 2;
        }
        if pos >= width && last_and != line_start {
            b[last_and] = b'\n';
            line_start = last_and + 1;
            last_and = line_start;
            pos = 0;
            if indent_at_last_and > 0 {
                let n = indent_at_last_and as usize;
                b.splice(line_start..line_start, std::iter::repeat_n(b' ', n));
                it += n;
                last_and = line_start;
                pos = (it - line_start) as i32;
            }
            indent_at_last_and = indent;
        }
        if was_and {
            last_and = it;
            indent_at_last_and = indent;
        }
        prev = c;
        it += 1;
        pos += 1;
        was_and = is_and;
    }
    *buf = String::from_utf8_lossy(&b).into_owned();
}

fn pretty_print(text: &str, indent: i32, width: i32) -> String {
    let mut s = String::new();
    pretty_print_into(&mut s, text, indent, width);
    s
}

/// How an analysis table is laid out.
struct Fmt<'s> {
    console_width: i32,
    details: u32,
    /// What the targets are called (`Slot`, `Cluster`).
    target_type: &'s str,
    /// Count drain simulations in a column of their own.
    drained: bool,
}

impl Fmt<'_> {
    fn header1(&self) -> String {
        if self.drained {
            "  Slots      If    ".to_owned()
        } else {
            format!("{:>5}s", self.target_type)
        }
    }

    fn header2(&self) -> &'static str {
        if self.drained {
            " Matched   Drained "
        } else {
            " Matched "
        }
    }

    fn bar(&self) -> &'static str {
        if self.drained {
            "--------- ---------"
        } else {
            "---------"
        }
    }

    fn add(&self, ary: &mut [i32; 2], overlay: bool) {
        if self.drained && overlay {
            ary[1] += 1;
        } else {
            ary[0] += 1;
        }
    }

    fn count(ary: &[i32; 2]) -> i32 {
        ary[0] + ary[1]
    }

    fn print(&self, ary: &[i32; 2]) -> String {
        if self.drained {
            format!("{:9} {:9}", ary[0], ary[1])
        } else {
            format!("{:9}", ary[0])
        }
    }
}

/// One clause of an expression under analysis (`AnalSubExpr`).
struct Sub<'a> {
    tree: &'a Expr,
    depth: i32,
    /// 0 none, 1 `!`, 2 `||`, 3 `&&`, 4 `?:`, 5 `ifThenElse`.
    logic_op: i32,
    ix_left: i32,
    ix_right: i32,
    ix_grip: i32,
    ix_effective: i32,
    label: String,
    match_ary: [i32; 2],
    hard_value: i32,
    pruned_by: i32,
    constant: bool,
    variable: bool,
    dont_care: bool,
    unparsed: String,
}

impl<'a> Sub<'a> {
    fn new(tree: &'a Expr, label: String, depth: i32, logic_op: i32) -> Sub<'a> {
        Sub {
            tree,
            depth,
            logic_op,
            ix_left: -1,
            ix_right: -1,
            ix_grip: -1,
            ix_effective: -1,
            label,
            match_ary: [0, 0],
            hard_value: -1,
            pruned_by: -1,
            constant: false,
            variable: false,
            dont_care: false,
            unparsed: String::new(),
        }
    }

    /// `CheckIfConstant`: a clause that reads nothing from the target is constant, and its
    /// value against the ad alone is its hard value.
    fn check_if_constant(&mut self, ad: &ClassAd) {
        self.unparsed = expr_to_string(self.tree);
        let mut target = Names::default();
        if !external_refs(ad, self.tree, &mut target, 0) {
            target = Names::default();
        }
        self.constant = target.is_empty();
        if self.constant {
            self.hard_value = i32::from(is_true(eval_expr(self.tree, Some(ad), None)));
        }
    }

    fn make_label(&self) -> Option<String> {
        match self.logic_op {
            0 => None,
            1 => (self.ix_left >= 0).then(|| format!(" ! [{}]", self.ix_left)),
            4 => Some(format!(
                "[{}] ? [{}] : [{}]",
                self.ix_left, self.ix_right, self.ix_grip
            )),
            5 => Some(format!(
                "ifThenElse([{}],[{}],[{}])",
                self.ix_left, self.ix_right, self.ix_grip
            )),
            op => Some(format!(
                "[{}] {} [{}]",
                self.ix_left,
                if op == 2 { "||" } else { "&&" },
                self.ix_right
            )),
        }
    }

    fn label(&mut self) -> String {
        if self.label.is_empty() {
            match self.make_label() {
                Some(l) => self.label = l,
                None if !self.unparsed.is_empty() => return self.unparsed.clone(),
                None => return "empty".to_owned(),
            }
        }
        self.label.clone()
    }
}

/// `StepLabel`: `[n]` padded or cut to `width + 2` characters.
fn step_label(index: usize, width: usize) -> String {
    let mut s = format!("[{index}]      ");
    s.truncate(width + 2);
    s
}

fn is_true(v: Result<Value, crate::classad::EvalFailed>) -> bool {
    matches!(v.map(|v| v.as_bool_equiv()), Ok(Some(true)))
}

fn skip_parens(mut e: &Expr) -> &Expr {
    while let Expr::Paren(inner) = e {
        e = inner;
    }
    e
}

/// `ExprTreeIsScopedRef(e, ad, "MY")`: `MY.x`, or a bare `x` the ad defines.
fn is_my_ref(e: &Expr, ad: &ClassAd) -> bool {
    match skip_parens(e) {
        Expr::Scoped {
            scope: ScopeKw::My, ..
        } => true,
        Expr::Attr(n) => ad.lookup(n).is_some(),
        _ => false,
    }
}

/// `AnalyzeThisSubExpr`: walks an expression, appending to `subs` a clause for each
/// comparison and logical operator (and each sub-expression a logical operator takes as an
/// operand); returns the index of the clause `e` is, or -1.
#[allow(clippy::too_many_arguments)]
fn analyze_sub_expr<'a>(
    ad: &'a ClassAd,
    e: &'a Expr,
    inline: Option<&Names>,
    subs: &mut Vec<Sub<'a>>,
    varres: &mut bool,
    must_store: bool,
    depth: i32,
    details: u32,
) -> i32 {
    let mut evaluate_logical = false;
    let mut child_depth = depth;
    let mut logic_op = 0;
    let mut push_it = must_store;
    let mut label = String::new();
    let mut inline = inline;
    let (mut left, mut right, mut grip): (Option<&'a Expr>, Option<&'a Expr>, Option<&'a Expr>) =
        (None, None, None);
    match e {
        Expr::Lit(v) => label = value_to_string(v),
        Expr::Attr(name) => {
            if name.eq_ignore_ascii_case("CurrentTime") {
                *varres = true;
            }
            if inline.is_some_and(|i| i.contains(name)) {
                // The attribute's expression stands in for the reference.
                left = ad.lookup(name);
                inline = None;
            }
        }
        Expr::Absolute(name) => {
            if name.eq_ignore_ascii_case("CurrentTime") {
                *varres = true;
            }
        }
        Expr::Scoped { .. } | Expr::List(_) | Expr::Ad(_) => {}
        Expr::Select(base, _) => left = Some(base),
        Expr::Unary(op, a) => {
            left = Some(a);
            if *op == UnOp::Not {
                evaluate_logical = true;
                logic_op = 1;
                push_it = true;
            }
        }
        Expr::Binary { op, lhs, rhs, .. } => {
            left = Some(lhs);
            right = Some(rhs);
            if op.is_comparison() {
                push_it = true;
            } else if matches!(op, BinOp::Or | BinOp::And) {
                evaluate_logical = true;
                logic_op = if *op == BinOp::Or { 2 } else { 3 };
                push_it = true;
            } else if *op == BinOp::Elvis {
                // `MY.x ?: literal` is not a clause of its own.
                if is_my_ref(lhs, ad) && matches!(skip_parens(rhs), Expr::Lit(_)) {
                    push_it = false;
                }
                if must_store {
                    push_it = true;
                }
            }
        }
        Expr::Ternary(c, t, f) => {
            left = Some(c);
            right = Some(t);
            grip = Some(f);
        }
        Expr::Paren(a) => {
            left = Some(a);
            push_it = false;
            evaluate_logical = true;
            child_depth += 1;
        }
        Expr::Call(call) => {
            label = call.name.to_string();
            if call.args.is_empty() && call.name.eq_ignore_ascii_case("time") {
                *varres = true;
            } else if details & SHOW_IFTHENELSE != 0
                && call.args.len() == 3
                && call.name.eq_ignore_ascii_case("ifthenelse")
            {
                push_it = true;
                evaluate_logical = true;
                logic_op = 5;
                left = Some(&call.args[0]);
                right = Some(&call.args[1]);
                grip = Some(&call.args[2]);
            }
            label.push_str("()");
            if must_store {
                let s = expr_to_string(e);
                if !s.is_empty() {
                    label = s;
                }
            }
        }
    }

    let (mut vl, mut vr, mut vg) = (false, false, false);
    let child = |x: Option<&'a Expr>, v: &mut bool, subs: &mut Vec<Sub<'a>>| match x {
        Some(x) => analyze_sub_expr(
            ad,
            x,
            inline,
            subs,
            v,
            evaluate_logical,
            child_depth,
            details,
        ),
        None => -1,
    };
    let ix_left = child(left, &mut vl, subs);
    let ix_right = child(right, &mut vr, subs);
    let ix_grip = child(grip, &mut vg, subs);
    *varres = *varres || vl || vr || vg;

    let unary = left.is_some() && right.is_none() && grip.is_none();
    if push_it {
        if unary && ix_left >= 0 {
            // `!x`: the operand's clause becomes the `!`'s.
            if ix_left == subs.len() as i32 - 1 && logic_op == 1 {
                let sub = subs.last_mut().expect("the operand's clause");
                sub.tree = e;
                sub.logic_op = 1;
                sub.depth = depth;
                if !sub.label.is_empty() {
                    sub.label.insert_str(0, "! ");
                }
            }
            ix_left
        } else {
            let mut sub = Sub::new(e, label, depth, logic_op);
            sub.variable = *varres;
            sub.ix_left = ix_left;
            sub.ix_right = ix_right;
            sub.ix_grip = ix_grip;
            subs.push(sub);
            subs.len() as i32 - 1
        }
    } else if unary {
        ix_left
    } else {
        -1
    }
}

/// `PrintNumberedExprTreeClauses`: each clause of `ad`'s attribute `attr` on a line of its
/// own, numbered.
fn numbered_clauses(ad: &ClassAd, attr: &str, inline: &Names, details: u32) -> String {
    let mut out = String::new();
    let Some(tree) = ad.lookup(attr) else {
        return out;
    };
    let inline = inline.without(attr);
    let mut subs = Vec::new();
    let mut varres = false;
    analyze_sub_expr(
        ad,
        tree,
        Some(&inline),
        &mut subs,
        &mut varres,
        true,
        0,
        details,
    );
    for (ix, sub) in subs.iter().enumerate() {
        let clause = match sub.make_label() {
            Some(l) => l,
            None if sub.ix_left < 0 => expr_to_string(sub.tree),
            None => format!("[{}] {}", sub.ix_left, expr_to_string(sub.tree)),
        };
        out.push_str(&format!("    {} : {clause}\n", step_label(ix, 4)));
    }
    out
}

/// `MarkIrrelevant`: a clause and everything under it no longer matter.
fn mark_irrelevant(subs: &mut [Sub<'_>], index: i32, at: i32) {
    if index < 0 {
        return;
    }
    let i = index as usize;
    subs[i].dont_care = true;
    subs[i].pruned_by = at;
    let (l, r, g) = (subs[i].ix_left, subs[i].ix_right, subs[i].ix_grip);
    mark_irrelevant(subs, l, at);
    mark_irrelevant(subs, r, at);
    mark_irrelevant(subs, g, at);
}

/// `AnalyzePropagateConstants`: reduces logical operators over constant clauses, noting which
/// clause each reduces to and which no longer matter.
fn propagate_constants(subs: &mut [Sub<'_>]) {
    const TRUTHY: [&str; 10] = ["?", "F", "T", "", "u", "e", "?", "f", "t", "s"];
    let truthy = |hard: i32, soft: bool| TRUTHY[(hard + 1 + 6 * i32::from(soft)) as usize];
    for ix in 0..subs.len() {
        let mut ix_effective = -1;
        let mut ix_irrelevant = -1;
        let mut soft_irrelevant = false;
        if subs[ix].logic_op != 0 {
            let hard_soft = |i: i32| {
                if i >= 0 && subs[i as usize].constant {
                    (subs[i as usize].hard_value, subs[i as usize].variable)
                } else {
                    (2, false)
                }
            };
            let (l, r, g) = (subs[ix].ix_left, subs[ix].ix_right, subs[ix].ix_grip);
            let (hard_left, soft_left) = hard_soft(l);
            let (hard_right, soft_right) = hard_soft(r);
            let (hard_grip, soft_grip) = hard_soft(g);
            let s = &mut subs[ix];
            match s.logic_op {
                1 => {
                    if s.label.is_empty() && l >= 0 {
                        s.label = format!(" ! [{l}]{}", truthy(hard_left, soft_left));
                    }
                }
                2 => {
                    if hard_left == 1 || hard_right == 1 {
                        s.constant = true;
                        s.hard_value = 1;
                        s.variable = soft_left && soft_right;
                        if hard_left == 1 {
                            ix_effective = l;
                            ix_irrelevant = r;
                            soft_irrelevant = soft_left && (hard_right != 0 || soft_right);
                        } else {
                            ix_effective = r;
                            ix_irrelevant = l;
                            soft_irrelevant = soft_right && (hard_left != 0 || soft_left);
                        }
                        s.ix_effective = ix_effective;
                    } else if hard_left == 0 && hard_right == 0 {
                        s.constant = true;
                        s.variable = soft_left || soft_right;
                        s.hard_value = 0;
                    } else if hard_left == 0 {
                        ix_effective = r;
                        s.ix_effective = r;
                        ix_irrelevant = l;
                        soft_irrelevant = soft_left;
                    } else if hard_right == 0 {
                        ix_effective = l;
                        s.ix_effective = l;
                        ix_irrelevant = r;
                        soft_irrelevant = soft_right;
                    }
                    s.label = format!(
                        "[{l}]{} || [{r}]{}",
                        truthy(hard_left, soft_left),
                        truthy(hard_right, soft_right)
                    );
                }
                3 => {
                    if hard_left == 0 || hard_right == 0 {
                        s.constant = true;
                        s.variable = soft_left || soft_right;
                        s.hard_value = 0;
                        if hard_left == 0 {
                            ix_effective = l;
                            ix_irrelevant = r;
                            soft_irrelevant = soft_left;
                        } else {
                            ix_effective = r;
                            ix_irrelevant = l;
                            soft_irrelevant = soft_right;
                        }
                        s.ix_effective = ix_effective;
                    } else if hard_left == 1 && hard_right == 1 {
                        s.constant = true;
                        s.variable = soft_left || soft_right;
                        s.hard_value = 1;
                    } else if hard_left == 1 {
                        ix_effective = r;
                        s.ix_effective = r;
                    } else if hard_right == 1 {
                        ix_effective = l;
                        s.ix_effective = l;
                    }
                    s.label = format!(
                        "[{l}]{} && [{r}]{}",
                        truthy(hard_left, soft_left),
                        truthy(hard_right, soft_right)
                    );
                }
                op => {
                    if hard_left == 0 || hard_left == 1 {
                        ix_effective = if hard_left == 1 { r } else { g };
                        s.ix_effective = ix_effective;
                        ix_irrelevant = if hard_left == 1 { g } else { r };
                        soft_irrelevant = soft_left;
                    }
                    s.label = if op == 4 {
                        format!(
                            "[{l}]{} ? [{r}]{} : [{g}]{}",
                            truthy(hard_left, soft_left),
                            truthy(hard_right, soft_right),
                            truthy(hard_grip, soft_grip)
                        )
                    } else {
                        format!(
                            "ifThenElse([{l}]{}, [{r}]{}, [{g}]{})",
                            truthy(hard_left, soft_left),
                            truthy(hard_right, soft_right),
                            truthy(hard_grip, soft_grip)
                        )
                    };
                }
            }
            if matches!(subs[ix].logic_op, 4 | 5) && ix_effective >= 0 {
                let eff = ix_effective as usize;
                if subs[eff].constant {
                    let hv = subs[eff].hard_value;
                    let s = &mut subs[ix];
                    s.constant = true;
                    s.variable = soft_left;
                    s.hard_value = hv;
                }
            }
        }

        // Follow the chain of effective clauses.
        if ix_effective >= 0 {
            if ix_irrelevant < 0 {
                if ix_effective == subs[ix].ix_left {
                    ix_irrelevant = subs[ix].ix_right;
                }
                if ix_effective == subs[ix].ix_right {
                    ix_irrelevant = subs[ix].ix_left;
                }
                if subs[ix].variable {
                    soft_irrelevant = true;
                }
            }
            while subs[ix_effective as usize].ix_effective >= 0 {
                ix_effective = subs[ix_effective as usize].ix_effective;
                subs[ix].ix_effective = ix_effective;
            }
        }
        if ix_irrelevant >= 0 && !soft_irrelevant {
            mark_irrelevant(subs, ix_irrelevant, ix as i32);
        }
    }
}

/// `AnalyzeRequirementsForEachTarget`: reduces `request`'s attribute `attr` to the clauses
/// that decide it, counts the targets each matches, and renders the table.
fn analyze_requirements_for_each_target(
    request: &ClassAd,
    attr: &str,
    inline: &Names,
    targets: &[(&ClassAd, bool)],
    fmt: &Fmt<'_>,
) -> String {
    let inline = inline.without(attr);
    let mut out = String::new();
    let Some(tree) = request.lookup(attr) else {
        return out;
    };
    let mut subs = Vec::new();
    let mut varres = false;
    analyze_sub_expr(
        request,
        tree,
        Some(&inline),
        &mut subs,
        &mut varres,
        true,
        0,
        fmt.details,
    );
    for sub in subs.iter_mut() {
        sub.check_if_constant(request);
    }
    propagate_constants(&mut subs);

    // Effective clauses stand in for the ones that reduce to them.
    for ix in 0..subs.len() {
        let mut changed = false;
        for side in 0..3 {
            let j = match side {
                0 => subs[ix].ix_left,
                1 => subs[ix].ix_right,
                _ => subs[ix].ix_grip,
            };
            if j >= 0 && subs[j as usize].ix_effective >= 0 {
                let eff = subs[j as usize].ix_effective;
                match side {
                    0 => subs[ix].ix_left = eff,
                    1 => subs[ix].ix_right = eff,
                    _ => subs[ix].ix_grip = eff,
                }
                changed = true;
            }
        }
        if changed {
            subs[ix].label.clear();
        }
    }

    // Count the targets each clause matches, pruning the clauses that do not decide.
    let matches_all = targets.len() as i32;
    let count = |subs: &[Sub<'_>], i: i32| Fmt::count(&subs[i as usize].match_ary);
    for ix in 0..subs.len() {
        if subs[ix].ix_effective >= 0 || subs[ix].dont_care || subs[ix].constant {
            continue;
        }
        subs[ix].match_ary = [0, 0];
        let (l, r) = (subs[ix].ix_left, subs[ix].ix_right);
        let logic = subs[ix].logic_op;
        if l >= 0 && r >= 0 && logic != 0 {
            let mut ix_effective = -1;
            let mut ix_prune = -1;
            if logic == 3 {
                if count(&subs, l) == 0 {
                    ix_effective = l;
                } else if count(&subs, r) == 0 {
                    ix_effective = r;
                }
            } else if logic == 2 {
                let (cl, cr) = (count(&subs, l), count(&subs, r));
                if cl == matches_all {
                    ix_effective = l;
                    ix_prune = r;
                } else if cr == matches_all || (cl == 0 && cr != 0) {
                    ix_effective = r;
                    ix_prune = l;
                } else if cl != 0 && cr == 0 {
                    ix_effective = l;
                    ix_prune = r;
                }
            }
            if ix_prune >= 0 {
                mark_irrelevant(&mut subs, ix_prune, ix as i32);
            }
            if ix_effective >= 0 {
                while subs[ix_effective as usize].ix_effective >= 0 {
                    ix_effective = subs[ix_effective as usize].ix_effective;
                }
                subs[ix].ix_effective = ix_effective;
            } else {
                relink(&mut subs, ix, l, r);
            }
        }

        let mut ary = [0, 0];
        for (target, overlay) in targets {
            if is_true(eval_expr(subs[ix].tree, Some(request), Some(target))) {
                fmt.add(&mut ary, *overlay);
            }
        }
        subs[ix].match_ary = ary;

        // Did one side of an && decide it?
        if l >= 0 && r >= 0 && logic != 0 {
            let mut ix_effective = -1;
            if logic == 3 {
                let mine = count(&subs, ix as i32);
                if count(&subs, l) == mine {
                    ix_effective = l;
                    if count(&subs, r) > mine {
                        subs[r as usize].dont_care = true;
                        subs[r as usize].pruned_by = l;
                    }
                } else if count(&subs, r) == mine {
                    ix_effective = r;
                    if count(&subs, l) > mine {
                        subs[l as usize].dont_care = true;
                        subs[l as usize].pruned_by = r;
                    }
                }
            }
            if ix_effective >= 0 {
                while subs[ix_effective as usize].ix_effective >= 0 {
                    ix_effective = subs[ix_effective as usize].ix_effective;
                }
                subs[ix].ix_effective = ix_effective;
                subs[ix].label.clear();
            } else {
                relink(&mut subs, ix, l, r);
            }
        }
    }

    // The table.
    if fmt.details & APPEND_TO_BUF == 0 {
        out.clear();
    }
    let all = fmt.details & SHOW_ALL_SUBEXPRS != 0;
    if fmt.details & SUPPRESS_TALL_HEADING == 0 {
        if all {
            out.push_str("   ");
        }
        out.push_str("       ");
        out.push_str(&fmt.header1());
        out.push('\n');
    }
    if all {
        out.push_str("   ");
    }
    out.push_str("Step  ");
    out.push_str(fmt.header2());
    out.push_str(" Condition\n");
    if all {
        out.push_str("   ");
    }
    out.push_str("----- ");
    out.push_str(fmt.bar());
    out.push_str(" ---------\n");
    for (ix, sub) in subs.iter_mut().enumerate() {
        let skip = sub.ix_effective >= 0 || sub.dont_care;
        let prefix = if all {
            if fmt.details & DIAGNOSTIC != 0 && sub.dont_care {
                "n/a"
            } else if skip {
                "   "
            } else {
                " * "
            }
        } else if skip {
            continue;
        } else {
            ""
        };
        let step = step_label(ix, 3);
        if sub.constant {
            let value = if sub.variable {
                if sub.hard_value != 0 {
                    "now"
                } else {
                    "not now"
                }
            } else if sub.hard_value != 0 {
                "always"
            } else {
                "never"
            };
            // (As wide as one count column, even with two.)
            let label = sub.label();
            out.push_str(&format!("{prefix}{step} {value:>9}  {label}\n"));
            continue;
        }
        let label = sub.label();
        let mut line = format!("{step} {}  {label}", fmt.print(&sub.match_ary));
        if sub.logic_op != 0 {
            let mut pretty = fmt.details & SMART_UNPARSE_EXPR != 0;
            if sub.ix_left == ix as i32 - 2 && sub.ix_right == ix as i32 - 1 {
                pretty = false;
            }
            if fmt.details & ALWAYS_UNPARSE_EXPR != 0 {
                pretty = true;
            }
            if pretty {
                line.push_str(" ( ");
                let tree = pretty_print(
                    &expr_to_string(sub.tree),
                    line.len() as i32,
                    fmt.console_width,
                );
                line.push_str(&tree);
                line.push_str(" )");
            }
        }
        out.push_str(prefix);
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Points a clause at the effective clauses of its operands.
fn relink(subs: &mut [Sub<'_>], ix: usize, l: i32, r: i32) {
    let el = subs[l as usize].ix_effective;
    if el >= 0 {
        subs[ix].ix_left = el;
        subs[ix].label.clear();
    }
    let er = subs[r as usize].ix_effective;
    if er >= 0 {
        subs[ix].ix_right = er;
        subs[ix].label.clear();
    }
}

// ------------------------------------------------------------------------------------------
// Jobs against slots.

/// Slot counts of one job's run analysis (`anaCounters`).
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    req_constraint: i32,
    off_constraint: i32,
    rank_cond: i32,
    offline: i32,
    available_now: i32,
    available_if_drained: i32,
    job_matches_slot: i32,
    both_match: i32,
    total_slots: i32,
    slots_running_jobs: i32,
    slots_running_your_jobs: i32,
    total_unique_machines: i32,
}

/// The slots in each category of the run analysis, for `-verbose` (`anaMachines`).
#[derive(Default)]
struct Machines {
    lists: [Vec<usize>; 9],
}

const REQ_CONSTRAINT: usize = 0;
const OFF_CONSTRAINT: usize = 1;
const OFFLINE: usize = 3;
const PREEMPT_PRIO: usize = 4;
const RANK_COND: usize = 6;
const WILLING: usize = 7;
const WILLING_IF_DRAINED: usize = 8;

impl Machines {
    fn add(&mut self, list: usize, slot: usize) {
        self.lists[list].push(slot);
    }

    /// `print_list`: `:` and the names of the first ten slots.
    fn print(&self, out: &mut String, list: usize, slots: &Slots) {
        let list = &self.lists[list];
        if list.is_empty() {
            return;
        }
        out.push(':');
        for (n, &i) in list.iter().enumerate() {
            if n == 10 {
                out.push_str(", ...");
                break;
            }
            out.push_str(if n > 0 { ", " } else { " " });
            out.push_str(&slots.name(i));
        }
    }
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
fn make_pslot_overlay(slot: &ClassAd) -> Option<ClassAd> {
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
fn outside_limits(slot: &ClassAd, job: &ClassAd) -> bool {
    slot.lookup("WithinResourceLimits").is_some_and(|wrl| {
        matches!(
            eval_expr(wrl, Some(slot), Some(job)).map(|v| v.as_bool_equiv()),
            Ok(Some(false))
        )
    })
}

fn job_id(job: &ClassAd) -> (i64, i64) {
    (
        lookup_int(job, "ClusterId").unwrap_or(0),
        lookup_int(job, "ProcId").unwrap_or(0),
    )
}

/// What the run analysis of one job found.
struct RunAnalysis {
    /// Some slot rejects the job because of the job's own requirements.
    analyze_req: bool,
    status: String,
    counters: Counters,
}

/// `doJobRunAnalysis`: the job's state, and each slot matched against it both ways.
fn job_run_analysis(
    request: &ClassAd,
    slots: &mut Slots,
    schedd: &ClassAd,
    now: i64,
    mode: MatchMode,
    mut mach: Option<&mut Machines>,
) -> RunAnalysis {
    let mut ac = Counters::default();
    let mut status = String::new();
    if lookup_str(request, "Owner").is_none() {
        return RunAnalysis {
            analyze_req: false,
            status: "Nothing here.".to_owned(),
            counters: ac,
        };
    }
    let user = lookup_str(request, "User")
        .map(|s| s.to_string())
        .unwrap_or_default();
    let state = lookup_int(request, "JobStatus").unwrap_or(0);
    let cool_down = lookup_int(request, "JobCoolDownExpiration").unwrap_or(0);
    let server_time = lookup_int(request, "ServerTime").unwrap_or(now);
    if matches!(state, 2 | 6 | 7) {
        status = "Job is running.".to_owned();
    }
    if state == 5 {
        status = "Job is held.".to_owned();
        if let Some(reason) = lookup_str(request, "HoldReason").filter(|r| !r.is_empty()) {
            status.push_str("\n\nHold reason: ");
            status.push_str(&reason);
        }
    }
    if state == 3 {
        status = "Job is removed.".to_owned();
    }
    if state == 4 {
        status = "Job is completed.".to_owned();
    }
    if state == 1 && cool_down > server_time {
        status = "Job is in cool down.".to_owned();
    }

    let universe = lookup_int(request, "JobUniverse").unwrap_or(0);
    if universe == LOCAL || universe == SCHEDULER {
        ac.total_slots += 1;
        ac.job_matches_slot += 1;
        let attr = if universe == LOCAL {
            "StartLocalUniverse"
        } else {
            "StartSchedulerUniverse"
        };
        let result = match schedd.lookup(attr) {
            Some(_) => schedd
                .eval_attr_against(attr, Some(request))
                .as_bool_equiv(),
            None => None,
        };
        let text = match result {
            None => format!("This schedd's {attr} policy failed to evalute for this job.\n"),
            Some(can_start) => {
                if can_start {
                    ac.both_match += 1;
                } else {
                    ac.off_constraint += 1;
                }
                format!("This schedd's {attr} evalutes to {can_start} for this job.\n")
            }
        };
        if !status.is_empty() {
            status.push_str("\n\n");
        }
        status.push_str(&text);
        return RunAnalysis {
            analyze_req: false,
            status,
            counters: ac,
        };
    }

    let mut seen = vec![false; slots.groups];
    let mut analysis_needed = 0;
    let keys = slots.by_key.clone();
    for index in keys {
        let is_pslot = lookup_bool(&slots.ads[index].ad, "PartitionableSlot");
        let is_dslot =
            is_pslot.is_none() && lookup_bool(&slots.ads[index].ad, "DynamicSlot").unwrap_or(false);
        let is_pslot = is_pslot.unwrap_or(false);
        let group = slots.ads[index].group;
        if !seen[group] {
            seen[group] = true;
            ac.total_unique_machines += 1;
        }
        if is_dslot && mode == MatchMode::Pslot {
            continue;
        }

        let mut within_limits = true;
        let mut offer_index = index;
        if is_pslot && mode >= MatchMode::Pslot && outside_limits(&slots.ads[index].ad, request) {
            within_limits = false;
            if let Some(overlay) = make_pslot_overlay(&slots.ads[index].ad) {
                // Kept only when the job would fit the drained slot.
                let wrl = slots.ads[index].ad.lookup("WithinResourceLimits");
                let fits = wrl.is_some_and(|wrl| {
                    !matches!(
                        eval_expr(wrl, Some(&overlay), Some(request)).map(|v| v.as_bool_equiv()),
                        Ok(Some(false))
                    )
                });
                if fits {
                    let new = slots.ads.len();
                    slots.ads.push(SlotAd {
                        ad: overlay,
                        sub_id: -(index as i64),
                        group,
                        overlay: true,
                    });
                    slots.ads[index].sub_id = -(new as i64);
                    slots.num_overlay_ads += 1;
                    offer_index = new;
                }
            }
        }

        ac.total_slots += 1;
        let offer = &slots.ads[offer_index].ad;
        if !requirements_met(request, offer) {
            ac.req_constraint += 1;
            analysis_needed += 1;
            if let Some(m) = mach.as_deref_mut() {
                m.add(REQ_CONSTRAINT, index);
            }
            continue;
        }
        ac.job_matches_slot += 1;
        if !requirements_met(offer, request) {
            ac.off_constraint += 1;
            if let Some(m) = mach.as_deref_mut() {
                m.add(OFF_CONSTRAINT, index);
            }
            continue;
        }
        ac.both_match += 1;
        if lookup_bool(offer, "Offline") == Some(true) {
            ac.offline += 1;
            if let Some(m) = mach.as_deref_mut() {
                m.add(OFFLINE, index);
            }
        }
        let Some(remote_user) = lookup_str(offer, "RemoteUser") else {
            if within_limits {
                ac.available_now += 1;
                if let Some(m) = mach.as_deref_mut() {
                    m.add(WILLING, index);
                }
            } else {
                ac.available_if_drained += 1;
                if let Some(m) = mach.as_deref_mut() {
                    m.add(WILLING_IF_DRAINED, index);
                }
            }
            continue;
        };
        // Without user priorities, a busy slot is only known to be busy.
        ac.slots_running_jobs += 1;
        if *remote_user == *user {
            ac.slots_running_your_jobs += 1;
        } else if let Some(m) = mach.as_deref_mut() {
            m.add(PREEMPT_PRIO, index);
        }
    }
    RunAnalysis {
        analyze_req: analysis_needed > 0,
        status,
        counters: ac,
    }
}

/// C's `ctime` without its newline.
fn ctime(t: i64) -> String {
    strftime("%a %b %e %H:%M:%S %Y", &localtime(t))
}

/// `appendBasicJobRunAnalysisToBuffer`: the job's state and the negotiator's last verdict.
fn basic_job_analysis(out: &mut String, job: &ClassAd, status: &str) {
    let (cluster, proc) = job_id(job);
    if !status.is_empty() {
        out.push_str(&format!("\n{cluster:03}.{proc:03}:  {status}\n\n"));
    }
    let last_match = lookup_int(job, "LastMatchTime").unwrap_or(0);
    let last_rej = lookup_int(job, "LastRejMatchTime").unwrap_or(0);
    if last_match != 0 {
        out.push_str(&format!("Last successful match: {}\n", ctime(last_match)));
    } else if last_rej != 0 {
        out.push_str("No successful match recorded.\n");
    }
    if last_rej > last_match {
        out.push_str(&format!("Last failed match: {}", ctime(last_rej)));
        if let Some(n) = lookup_str(job, "LastRejMatchNegotiator").filter(|n| !n.is_empty()) {
            out.push_str(&format!(" from {n}"));
        }
        out.push('\n');
        if let Some(reason) = lookup_str(job, "LastRejMatchReason") {
            out.push_str(&format!("Reason for last match failure: {reason}\n"));
        }
    }
}

/// `appendJobMatchTotalsToBuffer`: the run analysis summary.
fn match_totals(
    out: &mut String,
    job: &ClassAd,
    ac: &Counters,
    mach: Option<&Machines>,
    slots: &Slots,
) {
    let (cluster, proc) = job_id(job);
    let list = |out: &mut String, which: usize| {
        if let Some(m) = mach {
            m.print(out, which, slots);
        }
    };
    out.push_str(&format!(
        "\n{cluster:03}.{proc:03}:  Run analysis summary ignoring user priority.  Of {} slots on {} machines,\n",
        ac.total_slots, ac.total_unique_machines
    ));
    out.push_str(&format!(
        "  {:5} slots are rejected by your job's requirements",
        ac.req_constraint
    ));
    list(out, REQ_CONSTRAINT);
    out.push('\n');
    out.push_str(&format!(
        "  {:5} slots reject your job because of their own requirements",
        ac.off_constraint
    ));
    list(out, OFF_CONSTRAINT);
    out.push('\n');
    if ac.slots_running_your_jobs != 0 {
        out.push_str(&format!(
            "  {:5} slots match and are already running your jobs\n",
            ac.slots_running_your_jobs
        ));
    }
    if ac.slots_running_jobs != 0 {
        out.push_str(&format!(
            "  {:5} slots match but are serving other users",
            ac.slots_running_jobs - ac.slots_running_your_jobs
        ));
        list(out, PREEMPT_PRIO);
        out.push('\n');
    }
    if ac.rank_cond != 0 {
        out.push_str(&format!(
            "  {:5} slots match but current work outranks your job",
            ac.rank_cond
        ));
        list(out, RANK_COND);
        out.push('\n');
    }
    if ac.offline > 0 {
        out.push_str(&format!(
            "  {:5} slots match but are currently offline",
            ac.offline
        ));
        list(out, OFFLINE);
        out.push('\n');
    }
    out.push_str(&format!(
        "  {:5} slots match and are willing to run your job",
        ac.available_now
    ));
    list(out, WILLING);
    out.push('\n');
    if ac.available_if_drained != 0 {
        out.push_str(&format!(
            "  {:5} slots would match if drained",
            ac.available_if_drained
        ));
        list(out, WILLING_IF_DRAINED);
        out.push('\n');
    }
    if ac.job_matches_slot == 0 || ac.both_match == 0 {
        out.push_str("\nWARNING:  Be advised:\n");
        if ac.job_matches_slot == 0 {
            out.push_str("   No machines matched the job's constraints\n");
        } else {
            out.push_str(
                "   Job did not match any machines' constraints\n   \
                 To see why, pick a machine that you think should match and add\n     \
                 -reverse -machine <name>\n   to your query.\n",
            );
        }
    }
}

/// The display widths: for the `Requirements` expression (`getDisplayWidth`), and for the
/// clause tables (80 unless `-wide`).
#[derive(Clone, Copy)]
struct Widths {
    display: i32,
    table: i32,
}

/// `doJobMatchAnalysisToBuffer`: the job's `Requirements`, its clauses, the attributes they
/// read and how many slots each clause matches.
fn job_match_analysis(
    request: &ClassAd,
    slots: &Slots,
    details: u32,
    mode: MatchMode,
    widths: Widths,
) -> String {
    let each = details & ANALYZE_EACH_SUB_EXPR != 0;
    let show_job_attrs = each && details & DONT_SHOW_JOB_ATTRS == 0;
    let n_slots = slots.ads.len();
    let skip_dslots = n_slots > 1 && mode == MatchMode::Pslot;
    let (cluster, proc) = job_id(request);
    let request_id = format!("{cluster}.{proc:03}");
    let mut buf = String::new();
    let requirements = request.lookup("Requirements");
    if let Some(tree) = requirements {
        buf.push_str(&format!(
            "The Requirements expression for job {request_id} is\n\n    "
        ));
        buf.push_str(&pretty_print(&expr_to_string(tree), 4, widths.display));
        buf.push_str("\n\n");
        buf.push_str(&numbered_clauses(
            request,
            "Requirements",
            &Names::default(),
            details,
        ));
        buf.push('\n');
    }
    let inline = Names::of(&["Requirements"]);
    if show_job_attrs {
        buf.push_str(&format!(
            "Job {request_id} defines the following attributes:\n\n"
        ));
        let (text, trefs) = referenced_attribs(request, "Requirements", &inline, true);
        buf.push_str(&text);
        if slots.single_machine.is_some() || n_slots == 1 {
            for &i in &slots.by_key {
                let slot = &slots.ads[i];
                if skip_dslots && slot.sub_id > 0 {
                    continue;
                }
                if let Some((values, name)) = target_attribs(&trefs, request, &slot.ad) {
                    buf.push_str(&format!(
                        "\n{name} has the following attributes:\n\n{values}"
                    ));
                }
                if slot.sub_id < 0 && n_slots as i64 > -slot.sub_id {
                    let drained = &slots.ads[(-slot.sub_id) as usize];
                    if let Some((values, name)) = target_attribs(&trefs, request, &drained.ad) {
                        buf.push_str(&format!(
                            "\n{name} has the following attributes when drained:\n\n{values}"
                        ));
                    }
                }
            }
        }
        buf.push('\n');
    }
    if each {
        let drained = slots.num_overlay_ads > 0;
        let fmt = Fmt {
            console_width: widths.table,
            details,
            target_type: "Slot",
            drained,
        };
        let targets: Vec<(&ClassAd, bool)> = slots
            .ads
            .iter()
            .filter(|s| !(skip_dslots && s.sub_id > 0) && (drained || !s.overlay))
            .map(|s| (&s.ad, s.overlay))
            .collect();
        let table =
            analyze_requirements_for_each_target(request, "Requirements", &inline, &targets, &fmt);
        buf.push_str(&format!(
            "The Requirements expression for job {request_id} reduces to these conditions:\n\n"
        ));
        buf.push_str(&table);
    }
    match lookup_int(request, "JobUniverse").unwrap_or(0) {
        JAVA | VANILLA | PARALLEL | VM => {}
        GRID => {
            let resource = lookup_str(request, "GridResource")
                .map(|s| s.to_string())
                .unwrap_or_default();
            if !resource.contains("$$") {
                buf.push_str(
                    "\nWARNING: Analysis is only meaningful for Grid universe jobs using matchmaking.\n",
                );
            }
        }
        MPI => buf.push_str("\nWARNING: Analysis is meaningless for MPI universe jobs.\n"),
        SCHEDULER => {
            buf.push_str("\nWARNING: Analysis is meaningless for Scheduler universe jobs.\n")
        }
        _ => buf.push_str("\nWARNING: Job universe unknown.  Analysis may not be meaningful.\n"),
    }
    buf
}

/// Where the analysis runs: the slots, the schedd's ad, the clock and the widths.
struct Context {
    slots: Slots,
    schedd: ClassAd,
    now: i64,
    widths: Widths,
    verbose: bool,
}

/// `printJobRunAnalysis`: everything the analysis says of one job.
fn print_job_run_analysis(cx: &mut Context, job: &ClassAd, details: u32) -> String {
    let always = details & ALWAYS_ANALYZE_REQ != 0;
    let mode = if always {
        cx.slots.mode
    } else {
        MatchMode::Pslot
    };
    let mut mach = Machines::default();
    let run = job_run_analysis(
        job,
        &mut cx.slots,
        &cx.schedd,
        cx.now,
        mode,
        cx.verbose.then_some(&mut mach),
    );
    let mut text = String::new();
    if run.analyze_req || always {
        let mut d = details;
        if run.analyze_req && !always {
            d |= ANALYZE_EACH_SUB_EXPR;
        }
        text.push_str(&job_match_analysis(job, &cx.slots, d, mode, cx.widths));
        text.push('\n');
    }
    if run.counters.total_slots > 0 {
        match_totals(
            &mut text,
            job,
            &run.counters,
            cx.verbose.then_some(&mach),
            &cx.slots,
        );
    }
    text.push('\n');
    basic_job_analysis(&mut text, job, &run.status);
    text
}

/// `warnScheddGlobalLimits`.
fn schedd_warnings(schedd: &ClassAd) -> String {
    let mut out = String::new();
    if lookup_bool(schedd, "SwapSpaceExhausted") == Some(true) {
        out.push_str(
            "WARNING -- this schedd is not running jobs because it believes that doing so\n           \
             would exhaust swap space and cause thrashing.\n           \
             Set RESERVED_SWAP to 0 to tell the scheduler to skip this check\n           \
             Or add more swap space.\n           \
             The analysis code does not take this into consideration\n",
        );
    }
    let max = lookup_int(schedd, "MaxJobsRunning").unwrap_or(-1);
    let running = lookup_int(schedd, "TotalRunningJobs").unwrap_or(-1);
    if max > -1 && running > -1 && max == running {
        out.push_str(&format!(
            "WARNING -- this schedd has hit the MAX_JOBS_RUNNING limit of {max}\n       \
             to run more concurrent jobs, raise this limit in the config file\n       \
             NOTE: the matchmaking analysis does not take the limit into consideration\n"
        ));
    }
    out
}

/// `%-N.Ns`.
fn left_cut(s: &str, width: usize) -> String {
    let cut: String = s.chars().take(width).collect();
    format!("{cut:<width$}")
}

/// `%N.Ns`.
fn right_cut(s: &str, width: usize) -> String {
    let cut: String = s.chars().take(width).collect();
    format!("{cut:>width$}")
}

/// `doSlotRunAnalysisToBuffer`: one slot's requirements against the jobs.
fn slot_run_analysis(
    slot: &ClassAd,
    clusters: &BTreeMap<i64, Vec<&ClassAd>>,
    console_width: i32,
    details: u32,
    tabular: bool,
    name_width: usize,
) -> String {
    let analyze_start = details > 0;
    let show_slot_attrs = details & DONT_SHOW_JOB_ATTRS == 0;
    let fmt = Fmt {
        console_width,
        details,
        target_type: "Cluster",
        drained: false,
    };
    let slotname = lookup_str(slot, "Name")
        .map(|s| s.to_string())
        .unwrap_or_default();
    if lookup_bool(slot, "Offline") == Some(true) {
        return format!("{}  is offline\n", left_cut(&slotname, 24));
    }
    let is_dslot = lookup_bool(slot, "DynamicSlot") == Some(true);
    let is_pslot = !is_dslot && lookup_bool(slot, "PartitionableSlot") == Some(true);
    let slot_type = if is_dslot {
        "Dyn"
    } else if is_pslot {
        "Part"
    } else {
        "Stat"
    };
    let (mut total_jobs, mut unique_jobs) = (0usize, 0usize);
    let (mut req_c, mut off_c, mut both) = (0usize, 0usize, 0usize);
    let (mut drain_req, mut drain_off, mut drain_both) = (0usize, 0usize, 0usize);
    let mut overlay: Option<ClassAd> = None;
    let mut jobs: Vec<&ClassAd> = Vec::new();
    for (&acid, members) in clusters {
        if members.is_empty() {
            continue;
        }
        let to_eval = if acid == -1 { members.len() } else { 1 };
        let to_inc = if acid == -1 { 1 } else { members.len() };
        total_jobs += members.len();
        for &job in &members[..to_eval] {
            jobs.push(job);
            unique_jobs += 1;
            let mut offer_match = requirements_met(slot, job);
            if offer_match {
                off_c += to_inc;
            } else if is_pslot && overlay.is_none() && outside_limits(slot, job) {
                overlay = make_pslot_overlay(slot);
            }
            if requirements_met(job, slot) {
                req_c += to_inc;
                if offer_match {
                    both += to_inc;
                }
            }
            if let Some(ov) = &overlay {
                offer_match = requirements_met(ov, job);
                if offer_match {
                    drain_off += to_inc;
                }
                if requirements_met(job, ov) {
                    drain_req += to_inc;
                    if offer_match {
                        drain_both += to_inc;
                    }
                }
            }
        }
    }
    let percent = |n: usize| {
        if total_jobs > 0 {
            100.0 * n as f64 / total_jobs as f64
        } else {
            0.0
        }
    };
    if tabular || !analyze_start {
        return format!(
            "{} {slot_type:<4} {off_c:12} {req_c:12} {:10.2}\n",
            left_cut(&slotname, name_width),
            percent(both)
        );
    }

    let mut out = format!(
        "\n-- Slot: {slotname} : Analyzing matches for {total_jobs} Jobs in {unique_jobs} autoclusters\n"
    );
    let mut inline = Names::default();
    if let Some(req) = slot.lookup("Requirements") {
        let mut pretty = String::new();
        pretty_print_into(&mut pretty, &expr_to_string(req), 4, console_width);
        inline.insert("Requirements");
        if let Some(start) = slot.lookup("Start") {
            pretty.push_str("\n\n  START is\n    ");
            pretty_print_into(&mut pretty, &expr_to_string(start), 4, console_width);
            inline.insert("Start");
        }
        if let Some(wrl) = slot.lookup("WithinResourceLimits") {
            pretty.push_str("\n\n  WithinResourceLimits is\n    ");
            pretty_print_into(&mut pretty, &expr_to_string(wrl), 4, console_width);
            inline.insert("WithinResourceLimits");
        }
        out.push_str("\nThe Requirements expression for this slot is\n\n    ");
        out.push_str(&pretty);
        out.push_str("\n\n");
        out.push_str(&numbered_clauses(slot, "Requirements", &inline, details));
        out.push('\n');
        if show_slot_attrs {
            out.push_str("This slot defines the following attributes:\n\n");
            let (text, trefs) = referenced_attribs(slot, "Requirements", &inline, true);
            out.push_str(&text);
            if let Some(ov) = &overlay {
                out.push_str("When drained, this slot has the following attributes:\n\n");
                out.push_str(&referenced_attribs(ov, "Requirements", &inline, false).0);
            }
            if let [job] = jobs[..] {
                if let Some((values, name)) = target_attribs(&trefs, slot, job) {
                    out.push_str(&format!(
                        "\n{name} has the following attributes:\n\n{values}"
                    ));
                }
            }
            out.push_str(
                "\nThe Requirements expression for this slot reduces to these conditions:\n\n",
            );
        }
    }
    if details & INLINE_STD_SLOT_EXPRS == 0 {
        inline = Names::of(&["Start", "WithinResourceLimits"]);
    }
    let targets: Vec<(&ClassAd, bool)> = jobs.iter().map(|j| (*j, false)).collect();
    out.push_str(&analyze_requirements_for_each_target(
        slot,
        "Requirements",
        &inline,
        &targets,
        &fmt,
    ));
    out.push_str(&format!(
        "\n{slotname}: Run analysis summary of {total_jobs} jobs.\n{both:5} ({:.2} %) match both slot and job requirements.\n{off_c:5} match the requirements of this slot.\n{req_c:5} have job requirements that match this slot.\n",
        percent(both)
    ));
    if overlay.is_some() {
        out.push_str(&format!(
            "{drain_both:5} would match both slot and job requirments if the slot was drained.\n\
             {drain_off:5} would match the requirements of this slot when drained.\n\
             {drain_req:5} would have job requirements that match this slot when drained\n"
        ));
    }
    out
}

/// The schedd's ad, as the analysis of local- and scheduler-universe jobs reads it: the
/// master's, with the start policies and running counts the schedd publishes.
fn schedd_ad(q: &Query<'_>, jobs: &[ClassAd]) -> Result<ClassAd, CommandError> {
    let config = &q.session.config;
    let mut ad = master::query(config, AdKind::Schedd)
        .ok()
        .and_then(|ads| ads.into_iter().next())
        .unwrap_or_default();
    let needs = jobs
        .iter()
        .any(|j| matches!(lookup_int(j, "JobUniverse"), Some(LOCAL) | Some(SCHEDULER)));
    if !needs || ad.is_empty() {
        return Ok(ad);
    }
    for (attr, knob) in [
        ("StartLocalUniverse", "START_LOCAL_UNIVERSE"),
        ("StartSchedulerUniverse", "START_SCHEDULER_UNIVERSE"),
    ] {
        if ad.lookup(attr).is_none() {
            if let Some(e) = config
                .string(knob)
                .ok()
                .flatten()
                .and_then(|text| parse_old_expr(&text).ok())
            {
                ad.insert(attr, e);
            }
        }
    }
    for (attr, universe) in [
        ("TotalLocalJobsRunning", LOCAL),
        ("TotalSchedulerJobsRunning", SCHEDULER),
    ] {
        if ad.lookup(attr).is_none() {
            let c = parse_old_expr(&format!("JobUniverse == {universe} && JobStatus == 2"))
                .expect("a valid constraint");
            let running = crate::client::select::jobs(q.queue, &JobQuery::all().with_constraint(c))
                .map_err(queue_err)?
                .count();
            ad.insert(attr, Expr::lit(running as i64));
        }
    }
    Ok(ad)
}

/// `print_jobs_analysis`: the analysis of every job the query selects.
pub(super) fn print(
    q: &Query<'_>,
    o: &Options,
    slots: Slots,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    if o.verbose {
        let _ = write!(err, "Fetching job ads...");
    }
    let mut jobs: Vec<ClassAd> = Vec::new();
    if !q.req.totals {
        q.each_job(|job| {
            jobs.push(job.ad().map_err(queue_err)?.clone());
            Ok(())
        })?;
    }
    if o.verbose {
        let _ = writeln!(err, " {} ads", jobs.len());
    }
    let display = match q.req.output.wide {
        Some(Some(n)) if n > 0 => n as i32,
        _ => crate::output::console_width().unwrap_or(80) as i32,
    };
    let widescreen = q.req.output.wide == Some(None);
    let widths = Widths {
        display,
        table: if widescreen { display } else { 80 },
    };
    let mut cx = Context {
        schedd: schedd_ad(q, &jobs)?,
        slots,
        now: q.session.now,
        widths,
        verbose: o.verbose,
    };
    let mut details = o.details;
    let n_jobs = jobs.len();
    let n_slots = cx.slots.ads.len();

    // Jobs by autocluster (all jobs here have none: each is analyzed on its own).
    let mut clusters: BTreeMap<i64, Vec<&ClassAd>> = BTreeMap::new();
    if o.reverse || o.summary {
        if o.verbose {
            let _ = write!(err, "\nBuilding autocluster map of {n_jobs} Jobs...");
        }
        clusters.insert(-1, Vec::new());
        for job in &jobs {
            let id = lookup_int(job, "AutoClusterId").unwrap_or(-1);
            clusters.entry(id).or_default().push(job);
        }
        if o.verbose {
            let _ = writeln!(
                err,
                "{} autoclusters and {} Jobs with no autocluster",
                clusters.len() - 1,
                clusters[&-1].len()
            );
        }
    }
    if o.reverse {
        if n_slots == 1 && details == 0 {
            details = ANALYZE_EACH_SUB_EXPR;
        }
    } else if details & BETTER != 0 {
        details |= ANALYZE_EACH_SUB_EXPR | ALWAYS_ANALYZE_REQ;
    }

    let mut text = format!(
        "\n\n-- Schedd: {} : {}\n",
        q.session.schedd_name(),
        q.session.schedd_address()
    );
    if o.summary && !o.reverse {
        text.push_str(&schedd_warnings(&cx.schedd));
    }
    out.write_all(text.as_bytes())?;

    if o.reverse {
        if n_slots == 0 {
            return Ok(());
        }
        let summary = o.summary || details == 0;
        let name_width = (cx.slots.longest_machine + 7)
            .max(cx.slots.longest_name)
            .max(16);
        let mut text = String::new();
        if summary {
            if n_jobs <= 1 {
                for job in &jobs {
                    let (c, p) = job_id(job);
                    text.push_str(&format!("{c}.{p}: Analyzing matches for 1 job\n"));
                }
            } else if o.verbose {
                let no_auto = clusters[&-1].len();
                text.push_str(&format!(
                    "Analyzing {n_jobs} jobs in {} autoclusters\n",
                    clusters.len() - 1 + no_auto
                ));
            } else {
                text.push_str(&format!("Analyzing matches for {n_jobs} jobs\n"));
            }
            let row = |a: &str, b: &str, c: &str, d: &str, e: &str| {
                format!(
                    "{} {b:>4} {} {} {}\n",
                    left_cut(a, name_width),
                    right_cut(c, 12),
                    right_cut(d, 12),
                    right_cut(e, 10),
                )
            };
            text.push_str(&row("", "Slot", "Slot's Req ", "  Job's Req ", "Both   "));
            text.push_str(&row(
                "Name",
                "Type",
                "Matches Job",
                "Matches Slot",
                "Match %",
            ));
            text.push_str(&row(
                "------------------------",
                "----",
                "------------",
                "------------",
                "----------",
            ));
        }
        out.write_all(text.as_bytes())?;
        let console_width = widths.table;
        for slot in &cx.slots.ads {
            let text = slot_run_analysis(
                &slot.ad,
                &clusters,
                console_width,
                details,
                summary,
                name_width,
            );
            out.write_all(text.as_bytes())?;
        }
        return Ok(());
    }

    if o.summary {
        let mut text = match &cx.slots.single_machine {
            Some(m) => format!("{m}: Analyzing matches for {n_slots} slots\n"),
            None => format!("Analyzing matches for {n_slots} slots\n"),
        };
        let head = |a: &str, b: &str, c: &str, d: &str, e: &str, f: &str, g: &str, h: &str| {
            format!("{a:<13} {b:>12} {c:>12} {d:>11} {e:>11} {f:>10} {g:>9} {h}\n")
        };
        text.push_str(&head(
            "",
            " Autocluster",
            "   Matches  ",
            "  Machine  ",
            "  Running  ",
            "  Serving ",
            "",
            "",
        ));
        text.push_str(&head(
            " JobId",
            "Members/Idle",
            "Requirements",
            "Rejects Job",
            " Users Job ",
            "Other User",
            "Available",
            "Owner",
        ));
        text.push_str(&head(
            "-------------",
            "------------",
            "------------",
            "-----------",
            "-----------",
            "----------",
            "---------",
            "-----",
        ));
        for (&acid, members) in &clusters {
            if members.is_empty() {
                continue;
            }
            let to_eval = if acid == -1 { members.len() } else { 1 };
            let to_inc = if acid == -1 { 1 } else { members.len() };
            for &job in &members[..to_eval] {
                let (c, p) = job_id(job);
                let owner = lookup_str(job, "Owner")
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                let (mut idle, mut running) = (0, 0);
                for member in &members[..to_inc] {
                    match lookup_int(member, "JobStatus") {
                        Some(1) => idle += 1,
                        Some(2 | 6 | 7) => running += 1,
                        _ => {}
                    }
                }
                let autocluster = if acid >= 0 {
                    if o.verbose {
                        format!("{acid}:{to_inc}/{idle}")
                    } else {
                        format!("{to_inc}/{idle}")
                    }
                } else {
                    String::new()
                };
                let run = job_run_analysis(
                    job,
                    &mut cx.slots,
                    &cx.schedd,
                    cx.now,
                    MatchMode::Always,
                    None,
                );
                let ac = run.counters;
                let mut running_text = if running > 0 {
                    format!("{running}/")
                } else {
                    String::new()
                };
                running_text.push_str(&ac.slots_running_your_jobs.to_string());
                text.push_str(&format!(
                    "{:<13} {autocluster:<12} {:12} {:11} {running_text:>11} {:10} {:9} {owner}\n",
                    format!("{c}.{p}"),
                    ac.total_slots - ac.req_constraint,
                    ac.off_constraint,
                    ac.slots_running_jobs - ac.slots_running_your_jobs,
                    ac.available_now,
                ));
            }
        }
        out.write_all(text.as_bytes())?;
        return Ok(());
    }

    for job in &jobs {
        let text = print_job_run_analysis(&mut cx, job, details);
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_old_ad;

    fn ad(text: &str) -> ClassAd {
        parse_old_ad(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    const REQUIREMENTS: &str = "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && \
         (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && \
         ((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer))";

    fn job(extra: &str) -> ClassAd {
        ad(&format!(
            "ClusterId = 7\nProcId = 0\nOwner = \"alice\"\nUser = \"alice@vm\"\n\
             JobUniverse = 5\nJobStatus = 1\nDiskUsage = 43\nRequestDisk = DiskUsage\n\
             RequestCpus = 1\nFileSystemDomain = \"vm\"\nRequirements = {REQUIREMENTS}\n{extra}"
        ))
    }

    fn pslot(memory: i64) -> ClassAd {
        ad(&format!(
            "Name = \"slot1@vm\"\nMachine = \"vm\"\nSlotID = 1\nPartitionableSlot = true\n\
             Arch = \"X86_64\"\nOpSys = \"LINUX\"\nFileSystemDomain = \"vm\"\n\
             HasFileTransfer = true\nCpus = 2\nMemory = {memory}\nDisk = 1000000\nGPUs = 0\n\
             TotalSlotCpus = 2\nTotalSlotMemory = 2048\nTotalSlotDisk = 1000000.0\n\
             TotalSlotGPUs = 0\nMachineResources = \"Cpus Memory Disk GPUs\"\nStart = true\n\
             Requirements = START && (WithinResourceLimits)\n\
             WithinResourceLimits = (MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && \
             MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && \
             TARGET.RequestDisk <= MY.Disk && (TARGET.RequestGPUs =?= undefined || \
             MY.GPUs >= TARGET.RequestGPUs))"
        ))
    }

    #[test]
    fn long_requirements_break_after_logical_operators() {
        assert_eq!(
            pretty_print(
                &expr_to_string(&parse_old_expr(REQUIREMENTS).unwrap()),
                4,
                80
            ),
            "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") &&\n    \
             (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) &&\n    \
             ((TARGET.FileSystemDomain == MY.FileSystemDomain) ||\n      \
             (TARGET.HasFileTransfer))"
        );
        assert_eq!(pretty_print("a && b", 4, 80), "a && b");
        // Everything already in the buffer is laid out again.
        let mut buf = String::from("a && b\n\n  X is\n    ");
        pretty_print_into(&mut buf, "ccccccccc || ddddddddd", 4, 20);
        assert_eq!(
            buf,
            "a &&\n    b\n\n  X is\n    ccccccccc ||\n    ddddddddd"
        );
    }

    #[test]
    fn clauses_are_numbered_in_evaluation_order() {
        let j = job("RequestMemory = 100");
        assert_eq!(
            numbered_clauses(&j, "Requirements", &Names::default(), 0),
            "    [0]    : TARGET.Arch == \"X86_64\"\n\
             \x20   [1]    : TARGET.OpSys == \"LINUX\"\n\
             \x20   [2]    : [0] && [1]\n\
             \x20   [3]    : TARGET.Disk >= RequestDisk\n\
             \x20   [4]    : [2] && [3]\n\
             \x20   [5]    : TARGET.Memory >= RequestMemory\n\
             \x20   [6]    : [4] && [5]\n\
             \x20   [7]    : TARGET.FileSystemDomain == MY.FileSystemDomain\n\
             \x20   [8]    : TARGET.HasFileTransfer\n\
             \x20   [9]    : [7] || [8]\n\
             \x20   [10]   : [6] && [9]\n"
        );
    }

    fn table(request: &ClassAd, targets: &[&ClassAd]) -> String {
        let targets: Vec<(&ClassAd, bool)> = targets.iter().map(|t| (*t, false)).collect();
        let fmt = Fmt {
            console_width: 80,
            details: ANALYZE_EACH_SUB_EXPR,
            target_type: "Slot",
            drained: false,
        };
        analyze_requirements_for_each_target(
            request,
            "Requirements",
            &Names::of(&["Requirements"]),
            &targets,
            &fmt,
        )
    }

    #[test]
    fn the_table_keeps_the_clauses_that_decide() {
        let j = job("RequestMemory = 100000");
        let (a, b) = (pslot(2048), pslot(4096));
        assert_eq!(
            table(&j, &[&a, &b]),
            "        Slots\n\
             Step   Matched  Condition\n\
             ----- --------- ---------\n\
             [0]           2  TARGET.Arch == \"X86_64\"\n\
             [1]           2  TARGET.OpSys == \"LINUX\"\n\
             [3]           2  TARGET.Disk >= RequestDisk\n\
             [5]           0  TARGET.Memory >= RequestMemory\n\
             [7]           2  TARGET.FileSystemDomain == MY.FileSystemDomain\n"
        );
    }

    #[test]
    fn constant_clauses_say_always_or_never() {
        // A constant operand decides an || or an &&: the other one no longer matters.
        let j = ad("ClusterId = 1\nProcId = 0\nx = 3\n\
             Requirements = (x > 5) || (TARGET.Memory > 10 && MY.x =?= 3)");
        let s = ad("Memory = 20");
        assert_eq!(
            table(&j, &[&s]),
            "        Slots\n\
             Step   Matched  Condition\n\
             ----- --------- ---------\n\
             [1]           1  TARGET.Memory > 10\n"
        );
        let j = ad("x = 3\nRequirements = (x > 5) && TARGET.Memory > 10");
        assert_eq!(
            table(&j, &[&s]),
            "        Slots\n\
             Step   Matched  Condition\n\
             ----- --------- ---------\n\
             [0]       never  x > 5\n"
        );
        let j = ad("x = 3\nRequirements = (x < 5) && TARGET.Memory > 10 && (time() > 0)");
        assert_eq!(
            table(&j, &[&s]),
            "        Slots\n\
             Step   Matched  Condition\n\
             ----- --------- ---------\n\
             [1]           1  TARGET.Memory > 10\n\
             [3]         now  time() > 0\n"
        );
    }

    #[test]
    fn an_or_matching_some_slots_shows_both_sides() {
        let j = ad("ClusterId = 1\nProcId = 0\n\
             Requirements = TARGET.Memory > 10 && (TARGET.Name == \"a\" || TARGET.Name == \"b\")");
        let (a, b, c) = (
            ad("Name = \"a\"\nMemory = 20"),
            ad("Name = \"b\"\nMemory = 5"),
            ad("Name = \"c\"\nMemory = 20"),
        );
        assert_eq!(
            table(&j, &[&a, &b, &c]),
            "        Slots\n\
             Step   Matched  Condition\n\
             ----- --------- ---------\n\
             [0]           2  TARGET.Memory > 10\n\
             [1]           1  TARGET.Name == \"a\"\n\
             [2]           1  TARGET.Name == \"b\"\n\
             [3]           2  [1] || [2]\n\
             [4]           1  [0] && [3]\n"
        );
    }

    #[test]
    fn referenced_attributes_are_listed_sorted_with_units() {
        let j = job("RequestMemory = 100000");
        let (text, trefs) =
            referenced_attribs(&j, "Requirements", &Names::of(&["Requirements"]), true);
        assert_eq!(
            text,
            "    DiskUsage = 43\n    FileSystemDomain = \"vm\"\n    \
             RequestDisk = DiskUsage (kb)\n    RequestMemory = 100000 (mb)\n\n"
        );
        assert_eq!(
            trefs.iter().collect::<Vec<_>>(),
            [
                "Arch",
                "Disk",
                "FileSystemDomain",
                "HasFileTransfer",
                "Memory",
                "OpSys"
            ]
        );
        let (values, name) = target_attribs(&trefs, &j, &pslot(2048)).unwrap();
        assert_eq!(name, "slot1@vm");
        assert_eq!(
            values,
            "    TARGET.Arch = \"X86_64\"\n    TARGET.Disk = 1000000 (kb)\n    \
             TARGET.FileSystemDomain = \"vm\"\n    TARGET.HasFileTransfer = true\n    \
             TARGET.Memory = 2048 (mb)\n    TARGET.OpSys = \"LINUX\"\n\n"
        );
    }

    fn slots(ads: Vec<ClassAd>) -> Slots {
        Slots::new(ads)
    }

    #[test]
    fn a_job_too_big_for_every_slot_is_rejected_by_its_own_requirements() {
        let j = job("RequestMemory = 100000");
        let mut s = slots(vec![pslot(2048)]);
        let run = job_run_analysis(&j, &mut s, &ClassAd::new(), 0, MatchMode::Pslot, None);
        assert!(run.analyze_req);
        assert_eq!(run.counters.total_slots, 1);
        assert_eq!(run.counters.req_constraint, 1);
        assert_eq!(run.counters.total_unique_machines, 1);
        assert_eq!(s.num_overlay_ads, 0, "the job does not fit even drained");
    }

    #[test]
    fn a_job_that_fits_a_drained_slot_matches_the_simulation() {
        let j = job("RequestMemory = 1024");
        let mut s = slots(vec![pslot(512)]);
        let run = job_run_analysis(&j, &mut s, &ClassAd::new(), 0, MatchMode::Pslot, None);
        assert!(!run.analyze_req);
        assert_eq!(run.counters.available_if_drained, 1);
        assert_eq!(run.counters.available_now, 0);
        assert_eq!(s.num_overlay_ads, 1);
        assert_eq!(s.ads[0].sub_id, -1);
        assert_eq!(s.ads[1].sub_id, 0);
        let mut totals = String::new();
        match_totals(&mut totals, &j, &run.counters, None, &s);
        assert_eq!(
            totals,
            "\n007.000:  Run analysis summary ignoring user priority.  Of 1 slots on 1 machines,\n\
             \x20     0 slots are rejected by your job's requirements\n\
             \x20     0 slots reject your job because of their own requirements\n\
             \x20     0 slots match and are willing to run your job\n\
             \x20     1 slots would match if drained\n"
        );
    }

    #[test]
    fn a_slot_that_refuses_the_job_is_counted_as_such() {
        let j = job("RequestMemory = 100");
        let mut slot = pslot(2048);
        slot.insert("Start", Expr::lit(false));
        let mut s = slots(vec![slot]);
        let mut mach = Machines::default();
        let run = job_run_analysis(
            &j,
            &mut s,
            &ClassAd::new(),
            0,
            MatchMode::Pslot,
            Some(&mut mach),
        );
        assert_eq!(run.counters.off_constraint, 1);
        let mut totals = String::new();
        match_totals(&mut totals, &j, &run.counters, Some(&mach), &s);
        assert!(
            totals.contains(
                "      1 slots reject your job because of their own requirements: slot1@vm\n"
            ),
            "{totals}"
        );
        assert!(totals.ends_with(
            "   Job did not match any machines' constraints\n   To see why, pick a machine \
             that you think should match and add\n     -reverse -machine <name>\n   to your query.\n"
        ));
    }

    #[test]
    fn detail_qualifiers_are_numbers() {
        assert_eq!(parse_detail("4", 0x100), 0x104);
        assert_eq!(parse_detail("1,2", 0), 3);
        assert_eq!(parse_detail("sh", 0x100), 0);
        assert!(is_arg_prefix("sum", "summary", 1));
        assert!(!is_arg_prefix("summaryx", "summary", 1));
        assert!(is_slot_name("slot1@a.b.c"));
        assert!(!is_slot_name("slot1@vm"));
    }

    #[test]
    fn the_negated_clause_takes_the_operand_number() {
        let j = ad("Requirements = !(TARGET.x == 1) && TARGET.y");
        assert_eq!(
            numbered_clauses(&j, "Requirements", &Names::default(), 0),
            "    [0]    :  !(TARGET.x == 1)\n    [1]    : TARGET.y\n    [2]    : [0] && [1]\n"
        );
    }

    #[test]
    fn reverse_analysis_inlines_start_and_resource_limits() {
        let j = job("RequestMemory = 100000");
        let slot = pslot(2048);
        let mut clusters = BTreeMap::new();
        clusters.insert(-1, vec![&j]);
        let text = slot_run_analysis(&slot, &clusters, 80, ANALYZE_EACH_SUB_EXPR, false, 16);
        assert!(
            text.starts_with(
                "\n-- Slot: slot1@vm : Analyzing matches for 1 Jobs in 1 autoclusters\n\n\
                 The Requirements expression for this slot is\n\n    START &&\n    (WithinResourceLimits)\n\n  \
                 START is\n    true\n\n  WithinResourceLimits is\n    (MY.Cpus > 0 &&\n      "
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "\nslot1@vm: Run analysis summary of 1 jobs.\n    0 (0.00 %) match both slot and job requirements.\n    \
                 0 match the requirements of this slot.\n    0 have job requirements that match this slot.\n"
            ),
            "{text}"
        );
        assert!(text.contains("When drained, this slot has the following attributes:"));
        assert_eq!(
            slot_run_analysis(&slot, &clusters, 80, 0, true, 16),
            "slot1@vm         Part            0            0       0.00\n"
        );
    }
}
