//! The run analysis of a job, as 24.0's src/condor_q.V6/jobmatch.cpp has it: the job matched
//! against every slot both ways (`doJobRunAnalysis`), its requirements clause by clause
//! (`doJobMatchAnalysisToBuffer`), what its own ad says of its state, and the summary of what
//! the slots make of it (`appendJobRunAnalysisToBuffer`).

use std::collections::BTreeMap;
use std::io::Write;

use super::job_id;
use super::slots::{make_pslot_overlay, MatchMode, Slots};
use crate::classad::analysis::{
    analyze_requirements_for_each_target, pretty_print, referenced_attribs, target_attribs, Fmt,
    Names, ALWAYS_ANALYZE_REQ, ANALYZE_EACH_SUB_EXPR, DONT_SHOW_JOB_ATTRS,
};
use crate::classad::functions::strftime::strftime;
use crate::classad::functions::time::localtime;
use crate::classad::unparse::expr_to_string;
use crate::classad::{eval_expr, requirements_met, ClassAd};
use crate::error::CommandError;
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::queue::universe::{GRID, JAVA, LOCAL, MPI, PARALLEL, SCHEDULER, VANILLA, VM};
use crate::queue::JobStatus;

/// Slot counts of one job's run analysis (`anaCounters`, without the counts only user
/// priorities fill).
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    /// Rejected by the job's requirements.
    req_constraint: i32,
    /// Matching the job's requirements, rejecting the job by their own.
    off_constraint: i32,
    /// Matching, but running work that outranks the job (never known: user priorities are
    /// not consulted).
    rank_cond: i32,
    /// Matching, but offline.
    offline: i32,
    /// Matching and idle.
    available: i32,
    job_matches_slot: i32,
    both_match: i32,
    total_machines: i32,
    machines_running_jobs: i32,
    machines_running_users_jobs: i32,
}

/// A list of slot names for `-verbose` (`anaMachines::append_to_fail_list`): names are
/// added while the list is shorter than 100 characters; past that it is cut to 97 and
/// `...`.
#[derive(Default)]
struct FailList(String);

impl FailList {
    const LIMIT: usize = 100;

    fn append(&mut self, name: &str) {
        let list = &mut self.0;
        if list.len() < Self::LIMIT {
            if list.len() > 1 {
                list.push_str(", ");
            }
            list.push_str(name);
        } else if list.len() > Self::LIMIT {
            let mut cut = Self::LIMIT - 3;
            while !list.is_char_boundary(cut) {
                cut -= 1;
            }
            list.truncate(cut);
            list.push_str("...");
        }
    }

    /// `print_fail_list`: ` [names]`, when there are any.
    fn print(&self, out: &mut String) {
        if !self.0.is_empty() {
            out.push_str(" [");
            out.push_str(&self.0);
            out.push(']');
        }
    }
}

/// The slots in each category of the run analysis, for `-verbose` (`anaMachines`).
#[derive(Default)]
struct Machines {
    req_constraint: FailList,
    off_constraint: FailList,
    offline: FailList,
    /// Matching, but serving other users.
    preempt_prio: FailList,
    rank_cond: FailList,
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

/// `checkOffer`: whether the job and the slot match both ways, counted.
fn check_offer(
    request: &ClassAd,
    offer: &ClassAd,
    ac: &mut Counters,
    mach: Option<&mut Machines>,
    slot_name: &str,
) -> bool {
    if !requirements_met(request, offer) {
        ac.req_constraint += 1;
        if let Some(m) = mach {
            m.req_constraint.append(slot_name);
        }
        return false;
    }
    ac.job_matches_slot += 1;
    if !requirements_met(offer, request) {
        ac.off_constraint += 1;
        if let Some(m) = mach {
            m.off_constraint.append(slot_name);
        }
        return false;
    }
    ac.both_match += 1;
    if lookup_bool(offer, "Offline") == Some(true) {
        ac.offline += 1;
        if let Some(m) = mach {
            m.offline.append(slot_name);
        }
    }
    true
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

/// `doJobRunAnalysis`: the job's state, and each slot matched against it both ways. The
/// schedd's ad is needed for local and scheduler universe jobs, which the schedd starts
/// itself.
fn job_run_analysis(
    request: &ClassAd,
    slots: &Slots,
    schedd: Option<&ClassAd>,
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
        let text = match schedd {
            None => "WARNING: A schedd ClassAd is needed to do analysis for scheduler or Local \
                     universe jobs.\n"
                .to_owned(),
            Some(schedd) => {
                ac.total_machines += 1;
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
                match result {
                    None => {
                        format!("This schedd's {attr} policy failed to evalute for this job.\n")
                    }
                    Some(can_start) => {
                        if can_start {
                            ac.both_match += 1;
                        } else {
                            ac.off_constraint += 1;
                        }
                        format!("This schedd's {attr} evalutes to {can_start} for this job.\n")
                    }
                }
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

    let mut analysis_needed = 0;
    for slot in &slots.ads {
        let is_pslot = lookup_bool(slot, "PartitionableSlot");
        let is_dslot = is_pslot.is_none() && lookup_bool(slot, "DynamicSlot").unwrap_or(false);
        let is_pslot = is_pslot.unwrap_or(false);
        if is_dslot && mode == MatchMode::Pslot {
            continue;
        }
        let slot_name = lookup_str(slot, "Name")
            .map(|s| s.to_string())
            .unwrap_or_else(|| "undefined".to_owned());

        // A partitionable slot too full for the job is matched as if drained.
        let overlay = (is_pslot && mode >= MatchMode::Pslot && outside_limits(slot, request))
            .then(|| make_pslot_overlay(slot))
            .flatten();
        let offer = overlay.as_ref().unwrap_or(slot);

        ac.total_machines += 1;
        let rejected_before = ac.req_constraint;
        if !check_offer(request, offer, &mut ac, mach.as_deref_mut(), &slot_name) {
            analysis_needed += ac.req_constraint - rejected_before;
            continue;
        }
        let Some(remote_user) = lookup_str(offer, "RemoteUser") else {
            ac.available += 1;
            continue;
        };
        // Without user priorities, a busy slot is only known to be busy.
        ac.machines_running_jobs += 1;
        if *remote_user == *user {
            ac.machines_running_users_jobs += 1;
        } else if let Some(m) = mach.as_deref_mut() {
            m.preempt_prio.append(&slot_name);
        }
    }
    RunAnalysis {
        analyze_req: analysis_needed > 0,
        status,
        counters: ac,
    }
}

/// C's `ctime`, its newline included.
fn ctime(t: i64) -> String {
    strftime("%a %b %e %H:%M:%S %Y\n", &localtime(t))
}

/// `appendJobRunAnalysisToBuffer` of the job's state: the state, and the negotiator's last
/// verdict.
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
        out.push_str(&format!("Last failed match: {}\n", ctime(last_rej)));
        if let Some(reason) = lookup_str(job, "LastRejMatchReason") {
            out.push_str(&format!("Reason for last match failure: {reason}\n"));
        }
    }
}

/// `appendJobRunAnalysisToBuffer` of the counts, ignoring user priority.
fn match_totals(out: &mut String, job: &ClassAd, ac: &Counters, mach: Option<&Machines>) {
    let (cluster, proc) = job_id(job);
    let list = |out: &mut String, which: fn(&Machines) -> &FailList| {
        if let Some(m) = mach {
            which(m).print(out);
        }
    };
    out.push_str(&format!(
        "\n{cluster:03}.{proc:03}:  Run analysis summary ignoring user priority.  Of {} machines,\n",
        ac.total_machines
    ));
    out.push_str(&format!(
        "  {:5} are rejected by your job's requirements",
        ac.req_constraint
    ));
    list(out, |m| &m.req_constraint);
    out.push('\n');
    out.push_str(&format!(
        "  {:5} reject your job because of their own requirements",
        ac.off_constraint
    ));
    list(out, |m| &m.off_constraint);
    out.push('\n');
    out.push_str(&format!(
        "  {:5} match and are already running your jobs\n",
        ac.machines_running_users_jobs
    ));
    out.push_str(&format!(
        "  {:5} match but are serving other users",
        ac.machines_running_jobs - ac.machines_running_users_jobs
    ));
    list(out, |m| &m.preempt_prio);
    out.push('\n');
    if ac.rank_cond != 0 {
        out.push_str(&format!(
            "  {:5} match but current work outranks your job",
            ac.rank_cond
        ));
        list(out, |m| &m.rank_cond);
        out.push('\n');
    }
    if ac.offline > 0 {
        out.push_str(&format!(
            "  {:5} match but are currently offline",
            ac.offline
        ));
        list(out, |m| &m.offline);
        out.push('\n');
    }
    out.push_str(&format!("  {:5} are able to run your job\n", ac.available));
    if ac.job_matches_slot == 0 || ac.both_match == 0 {
        out.push_str("\nWARNING:  Be advised:\n");
        if ac.job_matches_slot == 0 {
            out.push_str("   No machines matched the jobs's constraints\n");
        } else {
            out.push_str(
                "   Job did not match any machines's constraints\n   \
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

/// `doJobMatchAnalysisToBuffer`: the job's `Requirements`, the attributes it reads and, with
/// [`ANALYZE_EACH_SUB_EXPR`], how many slots (all of them) each of its clauses matches.
fn job_match_analysis(request: &ClassAd, slots: &Slots, details: u32, widths: Widths) -> String {
    let each = details & ANALYZE_EACH_SUB_EXPR != 0;
    let show_job_attrs = each && details & DONT_SHOW_JOB_ATTRS == 0;
    let (cluster, proc) = job_id(request);
    let request_id = format!("{cluster}.{proc:03}");
    let mut buf = String::new();
    if let Some(tree) = request.lookup("Requirements") {
        buf.push_str(&format!(
            "The Requirements expression for job {request_id} is\n\n    "
        ));
        buf.push_str(&pretty_print(&expr_to_string(tree), 4, widths.display));
        buf.push_str("\n\n");
    }
    let inline = Names::of(&["Requirements"]);
    if show_job_attrs {
        buf.push_str(&format!(
            "Job {request_id} defines the following attributes:\n\n"
        ));
        let (text, trefs) = referenced_attribs(request, "Requirements", &inline, true);
        buf.push_str(&text);
        if slots.single_machine.is_some() || slots.ads.len() == 1 {
            for slot in &slots.ads {
                if let Some((values, name)) = target_attribs(&trefs, request, slot) {
                    buf.push_str(&format!(
                        "\n{name} has the following attributes:\n\n{values}"
                    ));
                }
            }
        }
        buf.push('\n');
    }
    if each {
        let fmt = Fmt {
            console_width: widths.table,
            details,
            target_type: "Slot",
        };
        let targets: Vec<&ClassAd> = slots.ads.iter().collect();
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

/// Where the analysis runs: the slots, the schedd's ad, the widths.
pub(super) struct Context {
    pub(super) slots: Slots,
    /// The schedd's ad, when the master has one.
    pub(super) schedd: Option<ClassAd>,
    pub(super) now: i64,
    pub(super) widths: Widths,
    pub(super) verbose: bool,
}

/// `printJobRunAnalysis`: everything the analysis says of one job. Dynamic slots are left
/// out of the counts, and a partitionable slot is drained for a job it cannot fit now.
pub(super) fn print_job_run_analysis(cx: &Context, job: &ClassAd, details: u32) -> String {
    let always = details & ALWAYS_ANALYZE_REQ != 0;
    let mut mach = Machines::default();
    let run = job_run_analysis(
        job,
        &cx.slots,
        cx.schedd.as_ref(),
        cx.now,
        MatchMode::Pslot,
        cx.verbose.then_some(&mut mach),
    );
    let mut text = String::new();
    if run.analyze_req || always {
        text.push_str(&job_match_analysis(job, &cx.slots, details, cx.widths));
        text.push('\n');
    }
    basic_job_analysis(&mut text, job, &run.status);
    if run.counters.total_machines > 0 {
        match_totals(&mut text, job, &run.counters, cx.verbose.then_some(&mach));
    }
    text.push('\n');
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
/// every slot as it is, without the schedd's ad.
pub(super) fn print_summary(
    cx: &Context,
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
            let run = job_run_analysis(job, &cx.slots, None, cx.now, MatchMode::Always, None);
            let ac = run.counters;
            let mut running_text = if running > 0 {
                format!("{running}/")
            } else {
                String::new()
            };
            running_text.push_str(&ac.machines_running_users_jobs.to_string());
            text.push_str(&format!(
                "{:<13} {autocluster:<12} {:12} {:11} {running_text:>11} {:10} {:9} {owner}\n",
                format!("{c}.{p}"),
                ac.total_machines - ac.req_constraint,
                ac.off_constraint,
                ac.machines_running_jobs - ac.machines_running_users_jobs,
                ac.available,
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

    #[test]
    fn a_job_too_big_for_every_slot_is_rejected_by_its_own_requirements() {
        let j = job("RequestMemory = 100000");
        let s = Slots::new(vec![pslot(2048)]);
        let run = job_run_analysis(&j, &s, None, 0, MatchMode::Pslot, None);
        assert!(run.analyze_req);
        assert_eq!(run.counters.total_machines, 1);
        assert_eq!(run.counters.req_constraint, 1);
        let mut totals = String::new();
        match_totals(&mut totals, &j, &run.counters, None);
        assert_eq!(
            totals,
            "\n007.000:  Run analysis summary ignoring user priority.  Of 1 machines,\n\
             \x20     1 are rejected by your job's requirements\n\
             \x20     0 reject your job because of their own requirements\n\
             \x20     0 match and are already running your jobs\n\
             \x20     0 match but are serving other users\n\
             \x20     0 are able to run your job\n\
             \n\
             WARNING:  Be advised:\n\
             \x20  No machines matched the jobs's constraints\n"
        );
    }

    #[test]
    fn a_job_that_fits_a_drained_slot_is_able_to_run_there() {
        // 24.0 matches the job against the slot as if drained, and counts it able to run.
        let j = job("RequestMemory = 1024");
        let s = Slots::new(vec![pslot(512)]);
        let run = job_run_analysis(&j, &s, None, 0, MatchMode::Pslot, None);
        assert!(!run.analyze_req);
        assert_eq!(run.counters.available, 1);
        // Matched as it is, the slot has too little memory for the job.
        let run = job_run_analysis(&j, &s, None, 0, MatchMode::Always, None);
        assert_eq!(run.counters.req_constraint, 1);
        assert_eq!(run.counters.available, 0);
    }

    #[test]
    fn a_slot_that_refuses_the_job_is_counted_as_such() {
        let j = job("RequestMemory = 100");
        let mut slot = pslot(2048);
        slot.insert("Start", Expr::lit(false));
        let s = Slots::new(vec![slot]);
        let mut mach = Machines::default();
        let run = job_run_analysis(&j, &s, None, 0, MatchMode::Pslot, Some(&mut mach));
        assert_eq!(run.counters.off_constraint, 1);
        let mut totals = String::new();
        match_totals(&mut totals, &j, &run.counters, Some(&mach));
        assert!(
            totals
                .contains("      1 reject your job because of their own requirements [slot1@vm]\n"),
            "{totals}"
        );
        assert!(totals.ends_with(
            "   Job did not match any machines's constraints\n   To see why, pick a machine \
             that you think should match and add\n     -reverse -machine <name>\n   to your query.\n"
        ));
    }

    #[test]
    fn slot_lists_stop_near_a_hundred_characters() {
        let mut list = FailList::default();
        for n in 0..20 {
            list.append(&format!("slot{n}@host"));
        }
        assert_eq!(list.0.len(), 100);
        assert!(list.0.ends_with("..."), "{}", list.0);
        assert!(list.0.starts_with("slot0@host, slot1@host, "));
    }

    #[test]
    fn the_state_comes_first_then_the_counts() {
        let j = job("RequestMemory = 100\nJobStatus = 5\nHoldReason = \"via condor_hold\"");
        let cx = Context {
            slots: Slots::new(vec![pslot(2048)]),
            schedd: None,
            now: 0,
            widths: Widths {
                display: 80,
                table: 80,
            },
            verbose: false,
        };
        let text = print_job_run_analysis(&cx, &j, 0);
        assert!(
            text.starts_with(
                "\n007.000:  Job is held.\n\nHold reason: via condor_hold\n\n\
                 \n007.000:  Run analysis summary ignoring user priority.  Of 1 machines,\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("      1 are able to run your job\n\n"),
            "{text}"
        );
    }
}
