//! `-reverse-analyze`: each slot's requirements analyzed against the jobs, one line per slot
//! or clause by clause (24.0's `doSlotRunAnalysisToBuffer` and the reverse part of
//! `print_jobs_analysis`). Every slot is analyzed as it is, dynamic ones too.

use std::collections::BTreeMap;
use std::io::Write;

use super::slots::Slots;
use super::{job_id, Options};
use crate::classad::analysis::{
    analyze_requirements_for_each_target, pretty_print_into, referenced_attribs, target_attribs,
    Fmt, Names, DONT_SHOW_JOB_ATTRS, INLINE_STD_SLOT_EXPRS,
};
use crate::classad::unparse::expr_to_string;
use crate::classad::{requirements_met, ClassAd};
use crate::error::CommandError;
use crate::output::render::{lookup_bool, lookup_str};

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
    };
    let slotname = lookup_str(slot, "Name")
        .map(|s| s.to_string())
        .unwrap_or_default();
    if lookup_bool(slot, "Offline") == Some(true) {
        return format!("{}  is offline\n", left_cut(&slotname, 24));
    }
    let slot_type = if lookup_bool(slot, "DynamicSlot") == Some(true) {
        "Dyn"
    } else if lookup_bool(slot, "PartitionableSlot") == Some(true) {
        "Part"
    } else {
        "Stat"
    };
    let (mut total_jobs, mut unique_jobs) = (0usize, 0usize);
    let (mut req_c, mut off_c, mut both) = (0usize, 0usize, 0usize);
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
            let offer_match = requirements_met(slot, job);
            if offer_match {
                off_c += to_inc;
            }
            if requirements_met(job, slot) {
                req_c += to_inc;
                if offer_match {
                    both += to_inc;
                }
            }
        }
    }
    let percent = if total_jobs > 0 {
        100.0 * both as f64 / total_jobs as f64
    } else {
        0.0
    };
    if tabular || !analyze_start {
        return format!(
            "{} {slot_type:<4} {off_c:12} {req_c:12} {percent:10.2}\n",
            left_cut(&slotname, name_width),
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
        if show_slot_attrs {
            out.push_str("This slot defines the following attributes:\n\n");
            let (text, trefs) = referenced_attribs(slot, "Requirements", &inline, true);
            out.push_str(&text);
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
    out.push_str(&analyze_requirements_for_each_target(
        slot,
        "Requirements",
        &inline,
        &jobs,
        &fmt,
    ));
    out.push_str(&format!(
        "\n{slotname}: Run analysis summary of {total_jobs} jobs.\n{both:5} ({percent:.2} %) match both slot and job requirements.\n{off_c:5} match the requirements of this slot.\n{req_c:5} have job requirements that match this slot.\n"
    ));
    out
}

/// `-reverse-analyze`: the table heading (a summary), then each slot's analysis.
pub(super) fn print(
    slots: &Slots,
    jobs: &[ClassAd],
    clusters: &BTreeMap<i64, Vec<&ClassAd>>,
    o: &Options,
    details: u32,
    console_width: i32,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let (n_jobs, n_slots) = (jobs.len(), slots.ads.len());
    if n_slots == 0 {
        return Ok(());
    }
    let summary = o.summary || details == 0;
    let name_width = (slots.longest_machine + 7).max(slots.longest_name).max(16);
    let mut text = String::new();
    if summary {
        if n_jobs <= 1 {
            for job in jobs {
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
    for slot in &slots.ads {
        let text = slot_run_analysis(slot, clusters, console_width, details, summary, name_width);
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::analysis::test_ads::{job, pslot};
    use crate::classad::analysis::ANALYZE_EACH_SUB_EXPR;

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
        // The slot's attributes, and then straight on to the table (24.0 numbers no clauses).
        assert!(
            text.contains(
                "\n\nThis slot defines the following attributes:\n\n    Cpus = 2\n    Disk = 1000000\n    \
                 GPUs = 0\n    Memory = 2048\n\nJob 7.0 has the following attributes:\n\n    \
                 TARGET.RequestCpus = 1\n    TARGET.RequestDisk = 43\n    \
                 TARGET.RequestMemory = 100000\n\nThe Requirements expression for this slot reduces to \
                 these conditions:\n\n       Clusters\nStep    Matched  Condition\n-----  --------  ---------\n"
            ),
            "{text}"
        );
        assert_eq!(
            slot_run_analysis(&slot, &clusters, 80, 0, true, 16),
            "slot1@vm         Part            0            0       0.00\n"
        );
    }
}
