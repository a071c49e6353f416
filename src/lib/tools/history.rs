//! `condor_history`: the jobs that have left the queue, as HTCondor's
//! src/condor_tools/history.cpp shows them, newest first (`-forwards`: oldest first).
//!
//! Selection: job ids (`C`, `C.P`) and owners (ORed), `-constraint` (ANDed), `-limit` (or
//! `-match`) N jobs, `-scanlimit` N records looked at, `-since` a job id or expression (the
//! scan stops at the first record it matches), `-completedsince` a time. Output: the default
//! columns (` ID  OWNER  SUBMITTED  RUN_TIME ST  COMPLETED CMD`, no summary), `-af`,
//! `-format`, `-long`, `-json`, `-jsonl`, `-xml`, `-attributes`. Records are printed as
//! they are read.

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::options::{self, flag, OutputOptions};
use super::Tool;
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr};
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::Session;
use crate::error::CommandError;
use crate::output::ads::{select, write_long, AdFormat, Selection, XML_FOOTER, XML_HEADER};
use crate::output::autoformat::add_format_args;
use crate::output::mask::{Alt, Column, PrintMask, Render, RenderEnv, AUTO_WIDTH, NO_TRUNCATE};
use crate::output::render::{
    format_qdate, render_job_description, render_job_id, render_job_status, render_owner,
};
use crate::queue::{
    constraint_holds, str_is_proc_id, HistoryOrder, HistoryQuery, JobIdSpec, JobQuery,
};

pub const TOOL: Tool = Tool {
    name: "condor_history",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        // Unknown options reach run(), which reports them as condor_history does.
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

/// history.cpp's tests, in order, with its minimum prefix lengths.
const PREFIXES: &[Prefix] = &[
    Prefix::min("long", 1),
    Prefix::min("xml", 3),
    Prefix::min("jsonl", 5),
    Prefix::min("json", 4),
    Prefix::min("backwards", 1),
    Prefix::min("nobackwards", 3),
    Prefix::min("forwards", 4),
    Prefix::min("wide", 1).qualified(),
    Prefix::min("match", 1),
    Prefix::min("limit", 3),
    Prefix::min("scanlimit", 4),
    Prefix::min("local", 2),
    Prefix::min("schedd", 3),
    Prefix::min("attributes", 2),
    Prefix::min("help", 1),
    Prefix::min("format", 1),
    Prefix::min("af", 2).qualified(),
    Prefix::min("autoformat", 5).qualified(),
    Prefix::min("constraint", 1),
    Prefix::min("since", 4),
    Prefix::min("completedsince", 3),
    Prefix::min("debug", 3).qualified(),
];

pub fn command() -> Command {
    let cmd = Command::new("condor_history")
        .about("Show the jobs that have left the queue")
        .after_help("Exit status: 0 on success, 1 on failure.")
        .disable_help_flag(true)
        .disable_version_flag(true);
    let cmd = options::job_selection(cmd, "Job ids (CLUSTER, CLUSTER.PROC) or owners to show");
    options::output_formats(cmd)
        .arg(flag("backwards", "Newest jobs first (the default)"))
        .arg(flag("forwards", "Oldest jobs first").visible_alias("nobackwards"))
        .arg(
            Arg::new("limit")
                .long("limit")
                .visible_alias("match")
                .value_name("N")
                .action(ArgAction::Set)
                .help("Show at most N jobs"),
        )
        .arg(
            Arg::new("scanlimit")
                .long("scanlimit")
                .value_name("N")
                .action(ArgAction::Set)
                .help("Look at no more than N jobs"),
        )
        .arg(
            Arg::new("since")
                .long("since")
                .value_name("JOB|EXPR")
                .action(ArgAction::Set)
                .help("Stop at this job id, or at the first job for which EXPR is true"),
        )
        .arg(
            Arg::new("completedsince")
                .long("completedsince")
                .value_name("TIME")
                .action(ArgAction::Set)
                .help("Stop at the first job that completed before TIME"),
        )
        .arg(flag("local", "Read the local history"))
        .arg(flag("schedd", "Read the schedd's history (the default)"))
        .arg(flag("debug", "Print debugging output on stderr"))
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print help and exit"),
        )
}

/// `atoi`: leading whitespace, a sign, digits; 0 when there are none.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    let v = digits.parse::<i64>().unwrap_or(0) as i32 as i64;
    if neg {
        -v
    } else {
        v
    }
}

/// `sscanf(arg, "%d.%d")` and `sscanf(arg, "%d")`: a job, a cluster, or (no number) an
/// owner.
fn history_id(arg: &str) -> JobIdSpec {
    let t = arg.trim_start();
    let sign = t.starts_with(['-', '+']) as usize;
    let digits = t[sign..].chars().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return JobIdSpec::Owner(arg.to_owned());
    }
    let cluster = atoi(t) as i32;
    let rest = &t[sign + digits..];
    if let Some(p) = rest.strip_prefix('.') {
        let p = p.trim_start();
        let psign = p.starts_with(['-', '+']) as usize;
        if p[psign..].starts_with(|c: char| c.is_ascii_digit()) {
            return JobIdSpec::Job(crate::queue::JobId::new(cluster, atoi(p) as i32));
        }
    }
    JobIdSpec::Cluster(crate::queue::ClusterId(cluster))
}

/// The default columns (`defaultJob_PrintFormat`).
fn default_mask() -> PrintMask {
    let mut mask = PrintMask::new();
    mask.set_separators(None, Some(" "), None, Some("\n"));
    let auto = AUTO_WIDTH | NO_TRUNCATE;
    let qq = Alt::from_text("??");
    mask.push_headed(
        " ID         ",
        Column::new("ClusterId", None, -12, auto, Render::Str(render_job_id)),
    );
    mask.push_headed(
        "OWNER",
        Column::new("Owner", None, -14, 0, Render::Str(render_owner)).with_alt(qq),
    );
    mask.push_headed(
        "  SUBMITTED",
        Column::new("QDate", Some("%Y"), 11, 0, Render::IntFormat(format_qdate)).with_alt(qq),
    );
    mask.push_headed(
        "  RUN_TIME  ",
        Column::new(
            "RemoteWallClockTime ?:(RemoteUserCpu?:0)",
            Some("%T"),
            12,
            0,
            Render::Printf,
        ),
    );
    mask.push_headed(
        "ST",
        Column::new("JobStatus", None, -2, auto, Render::Str(render_job_status)),
    );
    mask.push_headed(
        "  COMPLETED",
        Column::new(
            "CompletionDate",
            Some("%Y"),
            11,
            0,
            Render::IntFormat(format_qdate),
        ),
    );
    mask.push_headed(
        "CMD",
        Column::new("Cmd", None, 0, 0, Render::Str(render_job_description)),
    );
    mask
}

fn fail(err: &mut dyn Write, msg: &str) -> CommandError {
    let _ = writeln!(err, "{msg}");
    CommandError::Exit(1)
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let m = &inv.matches;
    let (output, words) = OutputOptions::from_invocation(inv);
    if let Some(bad) = words.iter().find(|w| w.starts_with('-')) {
        return Err(fail(err, &format!("Error: Unknown argument {bad}")));
    }
    if output.empty_autoformat {
        return Err(fail(
            err,
            "Error: Argument -af requires at least one attribute parameter\n\t\te.g. condor_history -af ClusterId",
        ));
    }
    if output.xml_and_json {
        return Err(fail(
            err,
            "Error: Cannot use more than one of XML and JSON[L]",
        ));
    }
    let number = |id: &str| m.get_one::<String>(id).map(|s| atoi(s));
    let limit = number("limit").filter(|n| *n > 0);
    let scan_limit = number("scanlimit").filter(|n| *n > 0);
    let forwards_at = m.index_of("forwards").filter(|_| m.get_flag("forwards"));
    let backwards_at = m.index_of("backwards").filter(|_| m.get_flag("backwards"));
    let forwards = match (forwards_at, backwards_at) {
        (Some(f), Some(b)) => f > b,
        (f, _) => f.is_some(),
    };
    let since_text = m.get_one::<String>("since");
    if forwards && since_text.is_some() {
        return Err(fail(
            err,
            "Error: Argument -forwards cannot be combined with -since.",
        ));
    }
    let mut since: Option<Expr> = None;
    if let Some(text) = since_text {
        since = match parse_old_expr(text) {
            Ok(Expr::Lit(_)) | Err(_) => match str_is_proc_id(text) {
                Some((c, p, end)) if end == text.len() => {
                    let e = if p >= 0 {
                        format!("ClusterId == {c} && ProcId == {p}")
                    } else {
                        format!("ClusterId == {c}")
                    };
                    parse_old_expr(&e).ok()
                }
                _ => None,
            },
            Ok(e) => Some(e),
        };
        if since.is_none() {
            let _ = write!(
                err,
                "Error: invalid -since constraint: {text}\n\tconstraint must be a job-id, or expression."
            );
            return Err(CommandError::Exit(1));
        }
    }
    if let Some(t) = m.get_one::<String>("completedsince") {
        match parse_old_expr(&format!("CompletionDate <= {t}")) {
            Ok(e) => since = Some(e),
            Err(_) => {
                let _ = write!(err, "Error: '{t}' not valid parameter for -completedsince ");
                return Err(CommandError::Exit(1));
            }
        }
    }
    let mut jobs = JobQuery::ids(words.iter().map(|w| history_id(w)));
    for c in options::constraints(inv) {
        match parse_old_expr(&c) {
            Ok(e) => jobs = jobs.with_constraint(e),
            Err(_) => {
                let all = format!("( ({c}) )");
                return Err(fail(
                    err,
                    &format!("Error:  could not parse constraint {all}"),
                ));
            }
        }
    }

    let mut mask = PrintMask::new();
    let custom = !output.formats.is_empty();
    if custom {
        if let Err(bad) = add_format_args(&mut mask, &output.formats) {
            return Err(fail(err, &format!("Error: invalid expression : {bad}")));
        }
    } else {
        mask = default_mask();
        match output.wide {
            Some(Some(n)) if n > 0 => mask.overall_width = n,
            Some(None) => {}
            _ => {
                mask.overall_width =
                    crate::output::console_width().map_or(1024, |w| w.saturating_sub(1).max(1));
            }
        }
    }

    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let queue = session
        .open_queue()
        .map_err(|e| CommandError::failed(1, e.to_string()))?;
    let env = RenderEnv {
        server_time: session.now,
        schedd_host: session.full_hostname(),
        ..RenderEnv::default()
    };

    let attributes = output.attributes.clone();
    let sel = Selection {
        only: (!attributes.is_empty()).then_some(&attributes[..]),
        sorted: true,
        exclude_private: false,
    };
    let format = output.ads;
    let mut text = String::new();
    // The header.
    match format {
        None if mask.has_headings() => text.push_str(&mask.headings_line()),
        Some(AdFormat::Xml) => {
            text.push_str(XML_HEADER);
            text.push('\n');
        }
        Some(AdFormat::Json) => text.push_str("[\n"),
        _ => {}
    }

    let order = if forwards {
        HistoryOrder::OldestFirst
    } else {
        HistoryOrder::NewestFirst
    };
    // -since and -scanlimit look at every record in order, so the store may not skip any;
    // otherwise it filters (and uses its indexes).
    let scan_all = since.is_some() || scan_limit.is_some();
    let store_query = if scan_all {
        JobQuery::all()
    } else {
        jobs.clone()
    };
    let (mut matched, mut scanned) = (0i64, 0i64);
    for entry in queue
        .history(&HistoryQuery::new(store_query, order))
        .map_err(|e| CommandError::failed(1, e.to_string()))?
    {
        if limit.is_some_and(|l| matched >= l) || scan_limit.is_some_and(|l| scanned >= l) {
            break;
        }
        let entry = entry.map_err(|e| CommandError::failed(1, e.to_string()))?;
        let ad = entry
            .ad()
            .map_err(|e| CommandError::failed(1, e.to_string()))?;
        scanned += 1;
        if since.as_ref().is_some_and(|s| constraint_holds(s, ad)) {
            break;
        }
        if scan_all
            && !(specs_match(jobs.id_specs(), ad)
                && jobs.constraint().is_none_or(|c| constraint_holds(c, ad)))
        {
            continue;
        }
        print_ad(&mut text, ad, format, &sel, &mut mask, &env, matched);
        matched += 1;
        if text.len() > 1 << 16 {
            out.write_all(text.as_bytes())?;
            text.clear();
        }
    }
    match format {
        Some(AdFormat::Xml) => {
            text.push_str(XML_FOOTER);
            text.push('\n');
        }
        Some(AdFormat::Json) => text.push_str("]\n"),
        _ => {}
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// Whether an ad is one of the jobs the ids and owners name (all jobs when there are none).
fn specs_match(specs: &[JobIdSpec], ad: &ClassAd) -> bool {
    use crate::output::render::{lookup_int, lookup_str};
    if specs.is_empty() {
        return true;
    }
    let cluster = lookup_int(ad, "ClusterId");
    let proc = lookup_int(ad, "ProcId");
    let owner = lookup_str(ad, "Owner");
    specs.iter().any(|s| match s {
        JobIdSpec::Cluster(c) => cluster == Some(c.0 as i64),
        JobIdSpec::Job(j) => cluster == Some(j.cluster.0 as i64) && proc == Some(j.proc as i64),
        JobIdSpec::Owner(o) => owner.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(o)),
    })
}

/// One job, as `printJob` prints it.
fn print_ad(
    text: &mut String,
    ad: &ClassAd,
    format: Option<AdFormat>,
    sel: &Selection<'_>,
    mask: &mut PrintMask,
    env: &RenderEnv,
    printed: i64,
) {
    let Some(format) = format else {
        mask.display_ad(text, ad, env);
        return;
    };
    let attrs = select(ad, sel);
    match format {
        AdFormat::Xml => crate::classad::unparse::xml_ad_attrs(text, attrs.iter().copied()),
        AdFormat::Json => {
            if printed != 0 {
                text.push_str(",\n");
            }
            crate::classad::unparse::json_ad_attrs(text, attrs.iter().copied(), 0, false);
        }
        AdFormat::JsonLines => {
            crate::classad::unparse::json_ad_attrs(text, attrs.iter().copied(), 0, true)
        }
        AdFormat::Long => write_long(text, &attrs),
    }
    text.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{ClusterId, JobId};

    #[test]
    fn ids_as_sscanf_reads_them() {
        assert_eq!(history_id("42"), JobIdSpec::Cluster(ClusterId(42)));
        assert_eq!(history_id("42.3"), JobIdSpec::Job(JobId::new(42, 3)));
        assert_eq!(history_id("42x"), JobIdSpec::Cluster(ClusterId(42)));
        assert_eq!(history_id("42.x"), JobIdSpec::Cluster(ClusterId(42)));
        assert_eq!(history_id("alice"), JobIdSpec::Owner("alice".into()));
    }
}
