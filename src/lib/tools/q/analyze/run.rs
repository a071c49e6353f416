//! The run analysis of a job: the job matched against every slot both ways
//! (`doJobRunAnalysis`), its requirements clause by clause (`doJobMatchAnalysisToBuffer`),
//! the summary of what the slots make of it, and what its own ad says of its state.

use std::collections::BTreeMap;
use std::io::Write;

use super::job_id;
use super::slots::{make_pslot_overlay, outside_limits, MatchMode, SlotAd, Slots};
use crate::classad::analysis::{
    analyze_requirements_for_each_target, numbered_clauses, pretty_print, referenced_attribs,
    target_attribs, Fmt, Names, ALWAYS_ANALYZE_REQ, ANALYZE_EACH_SUB_EXPR, DONT_SHOW_JOB_ATTRS,
};
use crate::classad::functions::strftime::strftime;
use crate::classad::functions::time::localtime;
use crate::classad::unparse::expr_to_string;
use crate::classad::{eval_expr, requirements_met, ClassAd};
use crate::error::CommandError;
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::queue::universe::{GRID, JAVA, LOCAL, MPI, PARALLEL, SCHEDULER, VANILLA, VM};
use crate::queue::JobStatus;

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

/// The slots in each category of the run analysis, for `-verbose` (`anaMachines`): indexes
/// into [`Slots::ads`].
#[derive(Default)]
struct Machines {
    /// Rejected by the job's requirements.
    req_constraint: Vec<usize>,
    /// Rejecting the job because of their own requirements.
    off_constraint: Vec<usize>,
    /// Matching, but offline.
    offline: Vec<usize>,
    /// Matching, but serving other users.
    preempt_prio: Vec<usize>,
    /// Matching, but running work that outranks the job (never known: user priorities are
    /// not consulted).
    rank_cond: Vec<usize>,
    /// Matching and willing to run the job.
    willing: Vec<usize>,
    /// Matching if drained.
    willing_if_drained: Vec<usize>,
}

/// `print_list`: `:` and the names of the first ten slots of a category.
fn print_list(out: &mut String, list: &[usize], slots: &Slots) {
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

/// The job's `JobStatus`, when it is one HTCondor defines.
fn job_status(job: &ClassAd) -> Option<JobStatus> {
    lookup_int(job, "JobStatus").and_then(JobStatus::from_code)
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
    let cool_down = lookup_int(request, "JobCoolDownExpiration").unwrap_or(0);
    let server_time = lookup_int(request, "ServerTime").unwrap_or(now);
    let mut status = match job_status(request) {
        Some(JobStatus::Running | JobStatus::TransferringOutput | JobStatus::Suspended) => {
            "Job is running.".to_owned()
        }
        Some(JobStatus::Held) => {
            let mut status = "Job is held.".to_owned();
            if let Some(reason) = lookup_str(request, "HoldReason").filter(|r| !r.is_empty()) {
                status.push_str("\n\nHold reason: ");
                status.push_str(&reason);
            }
            status
        }
        Some(JobStatus::Removed) => "Job is removed.".to_owned(),
        Some(JobStatus::Completed) => "Job is completed.".to_owned(),
        Some(JobStatus::Idle) if cool_down > server_time => "Job is in cool down.".to_owned(),
        _ => String::new(),
    };

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
                m.req_constraint.push(index);
            }
            continue;
        }
        ac.job_matches_slot += 1;
        if !requirements_met(offer, request) {
            ac.off_constraint += 1;
            if let Some(m) = mach.as_deref_mut() {
                m.off_constraint.push(index);
            }
            continue;
        }
        ac.both_match += 1;
        if lookup_bool(offer, "Offline") == Some(true) {
            ac.offline += 1;
            if let Some(m) = mach.as_deref_mut() {
                m.offline.push(index);
            }
        }
        let Some(remote_user) = lookup_str(offer, "RemoteUser") else {
            if within_limits {
                ac.available_now += 1;
                if let Some(m) = mach.as_deref_mut() {
                    m.willing.push(index);
                }
            } else {
                ac.available_if_drained += 1;
                if let Some(m) = mach.as_deref_mut() {
                    m.willing_if_drained.push(index);
                }
            }
            continue;
        };
        // Without user priorities, a busy slot is only known to be busy.
        ac.slots_running_jobs += 1;
        if *remote_user == *user {
            ac.slots_running_your_jobs += 1;
        } else if let Some(m) = mach.as_deref_mut() {
            m.preempt_prio.push(index);
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
    let list = |out: &mut String, which: fn(&Machines) -> &Vec<usize>| {
        if let Some(m) = mach {
            print_list(out, which(m), slots);
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
    list(out, |m| &m.req_constraint);
    out.push('\n');
    out.push_str(&format!(
        "  {:5} slots reject your job because of their own requirements",
        ac.off_constraint
    ));
    list(out, |m| &m.off_constraint);
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
        list(out, |m| &m.preempt_prio);
        out.push('\n');
    }
    if ac.rank_cond != 0 {
        out.push_str(&format!(
            "  {:5} slots match but current work outranks your job",
            ac.rank_cond
        ));
        list(out, |m| &m.rank_cond);
        out.push('\n');
    }
    if ac.offline > 0 {
        out.push_str(&format!(
            "  {:5} slots match but are currently offline",
            ac.offline
        ));
        list(out, |m| &m.offline);
        out.push('\n');
    }
    out.push_str(&format!(
        "  {:5} slots match and are willing to run your job",
        ac.available_now
    ));
    list(out, |m| &m.willing);
    out.push('\n');
    if ac.available_if_drained != 0 {
        out.push_str(&format!(
            "  {:5} slots would match if drained",
            ac.available_if_drained
        ));
        list(out, |m| &m.willing_if_drained);
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
pub(super) struct Widths {
    pub(super) display: i32,
    pub(super) table: i32,
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
pub(super) struct Context {
    pub(super) slots: Slots,
    pub(super) schedd: ClassAd,
    pub(super) now: i64,
    pub(super) widths: Widths,
    pub(super) verbose: bool,
}

/// `printJobRunAnalysis`: everything the analysis says of one job.
pub(super) fn print_job_run_analysis(cx: &mut Context, job: &ClassAd, details: u32) -> String {
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
pub(super) fn schedd_warnings(schedd: &ClassAd) -> String {
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

/// `-analyze:summary`: one line per job (the first of each autocluster), matched against
/// every slot.
pub(super) fn print_summary(
    cx: &mut Context,
    clusters: &BTreeMap<i64, Vec<&ClassAd>>,
    verbose: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let n_slots = cx.slots.ads.len();
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
    for (&acid, members) in clusters {
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
                match job_status(member) {
                    Some(JobStatus::Idle) => idle += 1,
                    Some(
                        JobStatus::Running | JobStatus::TransferringOutput | JobStatus::Suspended,
                    ) => running += 1,
                    _ => {}
                }
            }
            let autocluster = if acid >= 0 {
                if verbose {
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::analysis::test_ads::{job, pslot};
    use crate::classad::Expr;

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
}
