//! `condor_q -analyze`, `-better-analyze` and `-reverse-analyze`: why jobs do not run, worked
//! out and printed as HTCondor 24.0's condor_q does (src/condor_q.V6/jobmatch.cpp,
//! `print_jobs_analysis` in queue.cpp, src/condor_utils/expr_analyze.cpp).
//!
//! The slots ([`slots`]) come from the running master ([`AdKind::Slots`]), or from a file with
//! `-slotads`: every slot, dynamic ones too, unless `-machine` or `-mconstraint` selects some.
//! Without a master, analysis stops as HTCondor's does when it cannot reach the collector:
//! `Error:  Could not fetch startd ads` (then how to start a master) and exit status 1.
//!
//! For each selected job (in job-id order) the analysis:
//! - matches the job against every static and partitionable slot both ways ([`run`],
//!   `doJobRunAnalysis`), a partitionable slot as if drained when the job does not fit what
//!   is left of it;
//! - when some slot rejects the job because of the job's own requirements (or always, with
//!   `-better-analyze`), prints the `Requirements` expression; with `-better-analyze` also
//!   the attributes it references and how many slots (all of them, as they are) each clause
//!   matches ([`crate::classad::analysis`], `AnalyzeRequirementsForEachTarget`);
//! - prints what the job's own ad says of its state and of the negotiator's last match
//!   attempt (`LastRejMatchReason`), then the run analysis summary (`N are rejected by your
//!   job's requirements`, ...).
//!
//! `-analyze:summary` prints one line per job instead; `-reverse-analyze` (or
//! `-analyze:reverse`, [`reverse`]) analyzes each slot's requirements against the jobs. User
//! priorities are not consulted: the summary is always the one "ignoring user priority".

mod reverse;
mod run;
mod slots;

use std::collections::BTreeMap;
use std::io::Write;

use super::{queue_err, Query};
use crate::classad::analysis::{
    ALWAYS_ANALYZE_REQ, ANALYZE_EACH_SUB_EXPR, BETTER, DIAGNOSTIC, DUMP_INTERMEDIATES,
    INLINE_STD_SLOT_EXPRS, SHOW_ALL_SUBEXPRS, SHOW_IFTHENELSE,
};
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr};
use crate::client::master::{self, AdKind};
use crate::error::CommandError;
use crate::output::render::lookup_int;
use crate::queue::universe::{LOCAL, SCHEDULER};
use crate::queue::JobQuery;
use run::{print_job_run_analysis, schedd_warnings, Context, Widths};
pub(super) use slots::{fetch_slots, Slots};

/// What the analyze options ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Options {
    /// The `detail_*` flags.
    pub(super) details: u32,
    /// `-reverse-analyze`, `-analyze:reverse`: analyze the slots' requirements.
    pub(super) reverse: bool,
    /// `-analyze:summary`: one line per job (or per slot).
    pub(super) summary: bool,
    /// `-verbose`: progress on stderr, slot names in the summary.
    pub(super) verbose: bool,
    /// The last `-machine NAME` or `-mconstraint EXPR`: a slot or machine name, or a
    /// constraint.
    pub(super) slot_constraint: Option<String>,
    /// `-slotads FILE`.
    pub(super) slotads: Option<String>,
}

/// One of the options that ask for an analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Analysis {
    /// `-analyze[:summary,reverse,noprune,...]`.
    Analyze,
    /// `-better-analyze[:...]`: clause by clause, whatever the job's state.
    Better,
    /// `-reverse-analyze[:details]`: the slots' requirements against the jobs.
    Reverse,
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

/// The analysis the analysis options ask for, each given with its qualifier (in
/// command-line order); `None` when none is given. The slot options (`-machine`, ...) are
/// left to the caller.
pub(super) fn options(uses: &[(Analysis, Option<String>)]) -> Option<Options> {
    if uses.is_empty() {
        return None;
    }
    let mut o = Options::default();
    for (analysis, qualifier) in uses {
        if *analysis == Analysis::Reverse {
            o.reverse = true;
            if let Some(q) = qualifier {
                o.details |= parse_detail(q, o.details);
            }
            continue;
        }
        if *analysis == Analysis::Better {
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
    Some(o)
}

/// The job id of a job ad, `(cluster, proc)`.
fn job_id(job: &ClassAd) -> (i64, i64) {
    (
        lookup_int(job, "ClusterId").unwrap_or(0),
        lookup_int(job, "ProcId").unwrap_or(0),
    )
}

/// The schedd's ad, as the analysis of local- and scheduler-universe jobs reads it: the
/// master's, with the start policies and running counts the schedd publishes; `None` when
/// the master has none.
fn schedd_ad(q: &Query<'_>, jobs: &[ClassAd]) -> Result<Option<ClassAd>, CommandError> {
    let config = &q.session.config;
    let Some(mut ad) = master::query(config, AdKind::Schedd)
        .ok()
        .and_then(|ads| ads.into_iter().next())
    else {
        return Ok(None);
    };
    let needs = jobs
        .iter()
        .any(|j| matches!(lookup_int(j, "JobUniverse"), Some(LOCAL) | Some(SCHEDULER)));
    if !needs {
        return Ok(Some(ad));
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
            // The schedd's jobs; with jobs read from a file, the file's.
            let running = q
                .source
                .jobs(&JobQuery::all().with_constraint(c))
                .map_err(queue_err)?
                .count();
            ad.insert(attr, Expr::lit(running as i64));
        }
    }
    Ok(Some(ad))
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
    let cx = Context {
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
        if let Some(schedd) = &cx.schedd {
            text.push_str(&schedd_warnings(schedd));
        }
    }
    out.write_all(text.as_bytes())?;

    if o.reverse {
        return reverse::print(&cx.slots, &jobs, &clusters, o, details, widths.table, out);
    }
    if o.summary {
        return run::print_summary(&cx, &clusters, o.verbose, out);
    }

    for job in &jobs {
        let text = print_job_run_analysis(&cx, job, details);
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detail_qualifiers_are_numbers() {
        assert_eq!(parse_detail("4", 0x100), 0x104);
        assert_eq!(parse_detail("1,2", 0), 3);
        assert_eq!(parse_detail("sh", 0x100), 0);
        assert!(is_arg_prefix("sum", "summary", 1));
        assert!(!is_arg_prefix("summaryx", "summary", 1));
    }
}
