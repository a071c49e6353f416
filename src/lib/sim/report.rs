//! A [`Report`] as text: the allocation over time as a table or CSV, and the summary.
//!
//! The table has one line per reporting time and submitter or group: the idle and running
//! jobs, the weight of the claims held (`InUse`, CPUs with the default `SlotWeight`), that
//! weight as a share of the pool, and the real and effective user priorities at that time.
//! Times are `days+hh:mm:ss` from time 0, as HTCondor prints durations.

use std::io::{self, Write};

use super::{Report, SummaryRow};
use crate::output::time::format_time;

/// A duration as `d+hh:mm:ss` without leading blanks.
fn duration(secs: i64) -> String {
    format_time(secs).trim_start().to_owned()
}

fn name_width(report: &Report) -> usize {
    report
        .series
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(0)
        .max(4)
}

/// The allocation over time, as a table.
pub fn write_table(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let w = name_width(report);
    writeln!(
        out,
        "{:>11}  {:<w$} {:>7} {:>7} {:>8} {:>7} {:>10} {:>13}",
        "Time", "Name", "Idle", "Running", "InUse", "Share%", "RealPrio", "EffPrio"
    )?;
    for sample in &report.samples {
        let time = duration(sample.time);
        for (series, row) in report.series.iter().zip(&sample.rows) {
            writeln!(
                out,
                "{:>11}  {:<w$} {:>7} {:>7} {:>8.2} {:>7.2} {:>10.2} {:>13.2}",
                time,
                series.name,
                row.idle,
                row.running,
                row.in_use,
                row.share,
                row.real_priority,
                row.effective_priority
            )?;
        }
    }
    Ok(())
}

/// The allocation over time, as CSV (times in seconds from time 0).
pub fn write_csv(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "time,name,kind,idle,running,in_use,share_percent,real_priority,effective_priority"
    )?;
    for sample in &report.samples {
        for (series, row) in report.series.iter().zip(&sample.rows) {
            writeln!(
                out,
                "{},{},{},{},{},{:.4},{:.4},{:.6},{:.6}",
                sample.time,
                series.name,
                series.kind.name(),
                row.idle,
                row.running,
                row.in_use,
                row.share,
                row.real_priority,
                row.effective_priority
            )?;
        }
    }
    Ok(())
}

fn wait(w: Option<f64>) -> String {
    w.map_or_else(|| "-".to_owned(), |w| duration(w.round() as i64))
}

/// The summary: per submitter and group, the jobs, the use and share of the pool, the waits.
pub fn write_summary(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let w = name_width(report);
    writeln!(
        out,
        "Summary from 0+00:00:00 to {}: {} slot{}{} on {} machine{}, pool weight {}",
        duration(report.end),
        report.slots,
        if report.slots == 1 { "" } else { "s" },
        match report.partitionable {
            0 => String::new(),
            p if p == report.slots => " (partitionable)".to_owned(),
            p => format!(" ({p} partitionable)"),
        },
        report.machines,
        if report.machines == 1 { "" } else { "s" },
        trim_number(report.pool_weight)
    )?;
    writeln!(
        out,
        "{:<w$} {:>9} {:>7} {:>9} {:>6} {:>9} {:>10} {:>10} {:>11} {:>11}",
        "Name",
        "Submitted",
        "Started",
        "Completed",
        "Idle",
        "Preempted",
        "Usage(h)",
        "MeanShare%",
        "MeanWait",
        "MaxWait"
    )?;
    for r in &report.summary {
        writeln!(
            out,
            "{:<w$} {:>9} {:>7} {:>9} {:>6} {:>9} {:>10.2} {:>10.2} {:>11} {:>11}",
            r.name,
            r.submitted,
            r.started,
            r.completed,
            r.idle,
            r.preempted,
            r.usage / 3600.0,
            r.mean_share,
            wait(r.mean_wait),
            wait(r.max_wait.map(|m| m as f64)),
        )?;
    }
    Ok(())
}

/// The summary as CSV (usage in hours, waits in seconds, empty when no job started).
pub fn write_summary_csv(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "name,kind,submitted,started,completed,idle,running,preempted,usage_hours,\
         mean_share_percent,mean_wait_seconds,max_wait_seconds"
    )?;
    for r in &report.summary {
        let SummaryRow {
            name,
            kind,
            submitted,
            started,
            completed,
            idle,
            running,
            preempted,
            usage,
            mean_share,
            mean_wait,
            max_wait,
        } = r;
        writeln!(
            out,
            "{name},{},{submitted},{started},{completed},{idle},{running},{preempted},{:.4},{:.4},{},{}",
            kind.name(),
            usage / 3600.0,
            mean_share,
            mean_wait.map_or(String::new(), |w| format!("{w:.1}")),
            max_wait.map_or(String::new(), |w| w.to_string()),
        )?;
    }
    Ok(())
}

/// A number without a fraction when it has none (`28`, `27.5`).
pub fn trim_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        format!("{}", x as i64)
    } else {
        format!("{x:.2}")
    }
}
