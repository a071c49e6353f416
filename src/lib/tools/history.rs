//! `condor_history`: the jobs that have left the queue, as HTCondor's
//! src/condor_tools/history.cpp shows them, newest first (`-forwards`: oldest first).
//!
//! Selection: job ids (`C`, `C.P`) and owners (ORed), `-constraint` (ANDed), `-limit` (or
//! `-match`) N jobs, `-scanlimit` N records looked at, `-since` a job id or expression (the
//! scan stops at the first record it matches), `-completedsince` a time. Output: the default
//! columns (` ID  OWNER  SUBMITTED  RUN_TIME ST  COMPLETED CMD`, no summary), `-af`,
//! `-format`, `-print-format FILE`, `-long`, `-json`, `-jsonl`, `-xml`, `-attributes`.
//! Records are printed as they are read.
//!
//! Sources: the local schedd's history (the queue store's), or with `-file PATH` one history
//! file in HTCondor's format (what a schedd's `HISTORY` file holds: each job's ad as
//! `Name = value` lines, then a `*** ...` banner line), read from its end (newest first) or,
//! with `-forwards`, from its start; `-file` also takes a condorlite spool's `job_queue.db`,
//! to read another pool's history. `-search PATH` reads the history file PATH and its
//! rotated copies (`PATH.<ISO time>` in the same directory), newest file first.
//! `-epochs` reads the job epoch history instead (`JOB_EPOCH_HISTORY` and its rotated
//! copies, the ads the master appends at the end of every run, [`crate::schedd::epoch`]):
//! only the ads whose banners say `EPOCH`.
//! `-userlog FILE` shows the jobs of a job event log instead, as HTCondor's
//! `userlog_to_classads` makes them up ([`crate::eventlog::read_job_ads`]): every job the
//! ids, owners and constraints select, in job-id order (`-limit`, `-scanlimit`, `-since` and
//! `-forwards` do not apply to it, as in history.cpp).

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction, Command};

use super::options::{self, flag, OutputOptions};
use super::Tool;
use crate::classad::cnum::atoi;
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr};
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::locate::PoolLocation;
use crate::client::{ScheddLocation, Session};
use crate::error::CommandError;
use crate::eventlog::{read_job_ads, EventLogError, LogAdContext};
use crate::output::ads::{select, write_long, AdFormat, Selection, XML_FOOTER, XML_HEADER};
use crate::output::autoformat::add_format_args;
use crate::output::mask::{Column, PrintMask, Render, RenderEnv, AUTO_WIDTH, LEFT, NO_TRUNCATE};
use crate::output::printformat::{self, read_format_arg, Aggregate, FormatArgError, PrintFormat};
use crate::output::render::{
    format_qdate, lookup_int, lookup_real, lookup_str, render_job_id, render_owner, status_letter,
};
use crate::output::time::format_time;
use crate::queue::{
    constraint_holds, str_is_proc_id, HistoryOrder, HistoryQuery, JobIdSpec, JobQuery, Queue,
    QUEUE_FILE,
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
    Prefix::min("file", 2),
    Prefix::min("userlog", 1),
    Prefix::min("local", 2),
    Prefix::min("schedd", 3),
    Prefix::min("attributes", 2),
    Prefix::min("help", 1),
    Prefix::min("format", 1),
    Prefix::min("af", 2).qualified(),
    Prefix::min("autoformat", 5).qualified(),
    Prefix::min("print-format", 2),
    Prefix::min("epochs", 1).qualified(),
    Prefix::min("search", 3),
    Prefix::min("constraint", 1),
    Prefix::min("since", 4),
    Prefix::min("completedsince", 3),
    Prefix::min("debug", 3).qualified(),
    Prefix::min("name", 1),
    Prefix::min("pool", 1),
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
        .arg(
            Arg::new("file")
                .long("file")
                .value_name("FILE")
                .action(ArgAction::Set)
                .help(
                    "Read this history file (HTCondor's format: ads ended by '***' lines), or \
                     a condorlite spool's job_queue.db",
                ),
        )
        .arg(
            Arg::new("userlog")
                .long("userlog")
                .value_name("FILE")
                .action(ArgAction::Set)
                .help("Show the jobs of this job event log, as far as its events tell"),
        )
        .arg(
            Arg::new("search")
                .long("search")
                .value_name("FILE")
                .action(ArgAction::Set)
                .help("Read this history file and its rotated copies (FILE.<time>)"),
        )
        .arg(options::print_format(
            "Show the jobs as the print-format FILE says (- for standard input)",
        ))
        .arg(flag(
            "epochs",
            "Show the job epoch history: an ad for every run of a job (JOB_EPOCH_HISTORY)",
        ))
        .arg(flag("local", "Read the local history"))
        .arg(flag("schedd", "Read the schedd's history (the default)"))
        .arg(
            Arg::new("name")
                .long("name")
                .value_name("SCHEDD")
                .action(ArgAction::Set)
                .help("Query this schedd's history (the local schedd, by its name or its host's)"),
        )
        .arg(
            Arg::new("pool")
                .long("pool")
                .value_name("HOST")
                .action(ArgAction::Set)
                .help("Find the schedd through this central manager (this host's pool)"),
        )
        .arg(flag("debug", "Print debugging output on stderr"))
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print help and exit"),
        )
}

/// condor_history's command line, parsed once.
#[derive(Clone, Debug, Default)]
pub struct HistoryArgs {
    /// `-long`, `-json`, `-jsonl`, `-xml`, `-attributes`, `-af`, `-format`, `-wide`.
    pub output: OutputOptions,
    /// The positional words that are not `-af` attributes: job ids, owners, and unknown
    /// dash words (reported by `run`), in order.
    pub words: Vec<String>,
    /// `-constraint EXPR`, in order (ANDed).
    pub constraints: Vec<String>,
    /// `-limit N` (or `-match N`), read as C's `atoi`; absent unless positive.
    pub limit: Option<i64>,
    /// `-scanlimit N`, read as C's `atoi`; absent unless positive.
    pub scan_limit: Option<i64>,
    /// `-forwards` (`-nobackwards`): oldest first, unless a later `-backwards` turns it off.
    pub forwards: bool,
    /// `-since JOB|EXPR`, as given.
    pub since: Option<String>,
    /// `-completedsince TIME`, as given.
    pub completed_since: Option<String>,
    /// `-file PATH`: a history file or a queue store.
    pub file: Option<String>,
    /// `-userlog PATH`: a job event log.
    pub userlog: Option<String>,
    /// `-search PATH`: a history file and its rotated copies.
    pub search: Option<String>,
    /// `-name SCHEDD`: the schedd whose history is asked for.
    pub name: Option<String>,
    /// `-pool HOST`: the central manager to find it through.
    pub pool: Option<String>,
    /// `-local` came before `-name` (history.cpp refuses the pair in that order).
    pub local_then_name: bool,
    /// `-print-format FILE` (the last one given).
    pub print_format: Option<String>,
    /// `-epochs[:d]`: the job epoch history instead of the job history.
    pub epochs: bool,
}

impl HistoryArgs {
    /// Reads the parsed command line (the only place that looks options up by name).
    pub fn from_invocation(inv: &Invocation) -> HistoryArgs {
        let m = &inv.matches;
        let (output, words) = OutputOptions::from_invocation(inv);
        let number = |id: &str| {
            m.get_one::<String>(id)
                .map(|s| i64::from(atoi(s)))
                .filter(|n| *n > 0)
        };
        let forwards_at = m.index_of("forwards").filter(|_| m.get_flag("forwards"));
        let backwards_at = m.index_of("backwards").filter(|_| m.get_flag("backwards"));
        let forwards = match (forwards_at, backwards_at) {
            (Some(f), Some(b)) => f > b,
            (f, _) => f.is_some(),
        };
        let text = |id: &str| m.get_one::<String>(id).cloned();
        HistoryArgs {
            output,
            words,
            constraints: options::constraints(inv),
            limit: number("limit"),
            scan_limit: number("scanlimit"),
            forwards,
            since: text("since"),
            completed_since: text("completedsince"),
            file: text("file"),
            userlog: text("userlog"),
            search: text("search"),
            name: text("name"),
            pool: text("pool"),
            local_then_name: m.get_flag("local")
                && m.index_of("local") < m.index_of("name").filter(|_| m.contains_id("name")),
            print_format: text("print-format"),
            epochs: m.get_flag("epochs"),
        }
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
    let cluster = atoi(t);
    let rest = &t[sign + digits..];
    if let Some(p) = rest.strip_prefix('.') {
        let p = p.trim_start();
        let psign = p.starts_with(['-', '+']) as usize;
        if p[psign..].starts_with(|c: char| c.is_ascii_digit()) {
            return JobIdSpec::Job(crate::queue::JobId::new(cluster, atoi(p)));
        }
    }
    JobIdSpec::Cluster(crate::queue::ClusterId(cluster))
}

/// The default columns, as HTCondor 24.0's `init_default_custom_format` (history.cpp) sets
/// them: hard-coded, one space between, headings left-justified to their widths.
fn default_mask() -> PrintMask {
    let mut mask = PrintMask::new();
    mask.set_separators(None, Some(" "), None, Some("\n"));
    mask.push_headed(
        " ID",
        Column::new(
            "ClusterId",
            None,
            -7,
            AUTO_WIDTH | NO_TRUNCATE,
            Render::Str(render_job_id),
        ),
    );
    mask.push_headed(
        "OWNER",
        Column::new("Owner", None, -14, AUTO_WIDTH, Render::Str(render_owner)),
    );
    mask.push_headed(
        "SUBMITTED",
        Column::new("QDate", None, 11, 0, Render::IntFormat(format_qdate)),
    );
    mask.push_headed(
        "RUN_TIME",
        Column::new("ClusterId", None, 12, 0, Render::Str(render_hist_runtime)),
    );
    mask.push_headed(
        "ST",
        Column::new("JobStatus", None, -2, 0, Render::Str(render_status_char)),
    );
    mask.push_headed(
        "COMPLETED",
        Column::new(
            "CompletionDate",
            None,
            11,
            0,
            Render::IntFormat(format_qdate),
        ),
    );
    mask.push_headed(
        "CMD",
        Column::new(
            "Cmd",
            None,
            -15,
            LEFT | NO_TRUNCATE,
            Render::Str(render_cmd_and_args),
        ),
    );
    mask
}

/// `render_hist_runtime` (print_format_tables.cpp): `RemoteWallClockTime`, else
/// `RemoteUserCpu`, as `format_time`; blank when it is 0.
fn render_hist_runtime(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    let secs = lookup_real(ad, "RemoteWallClockTime")
        .or_else(|| lookup_real(ad, "RemoteUserCpu"))
        .unwrap_or(0.0) as i64;
    (secs != 0).then(|| format_time(secs))
}

/// `format_job_status_char`: the status's one letter.
fn render_status_char(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    lookup_int(ad, "JobStatus").map(|s| status_letter(s).to_string())
}

/// `render_job_cmd_and_args`: the command as the job ad has it (its full path), then its
/// arguments (`Args`, else `Arguments`) after a space.
fn render_cmd_and_args(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    let mut text = lookup_str(ad, "Cmd")?.to_string();
    if let Some(args) = lookup_str(ad, "Args").or_else(|| lookup_str(ad, "Arguments")) {
        text.push(' ');
        text.push_str(&args);
    }
    Some(text)
}

fn fail(err: &mut dyn Write, msg: &str) -> CommandError {
    let _ = writeln!(err, "{msg}");
    CommandError::Exit(1)
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let HistoryArgs {
        output,
        words,
        constraints,
        limit,
        scan_limit,
        forwards,
        since: since_text,
        completed_since,
        file,
        userlog,
        search,
        name,
        pool,
        local_then_name,
        print_format,
        epochs,
    } = HistoryArgs::from_invocation(inv);
    // history.cpp keeps one file name for -file and -userlog, and stops at a second one.
    if file.is_some() && userlog.is_some() {
        return Err(fail(
            err,
            "Error: -file and -userlog each name the one file to read: give one of them",
        ));
    }
    if local_then_name {
        return Err(fail(err, "Error: -local and -name cannot be used together"));
    }
    // history.cpp tries sscanf("%d") on a word before it calls it an unknown option, so
    // `-5` selects cluster -5.
    if let Some(bad) = words
        .iter()
        .find(|w| w.starts_with('-') && matches!(history_id(w), JobIdSpec::Owner(_)))
    {
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
    if forwards && since_text.is_some() {
        return Err(fail(
            err,
            "Error: Argument -forwards cannot be combined with -since.",
        ));
    }
    let mut since: Option<Expr> = None;
    if let Some(text) = since_text.as_deref() {
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
    if let Some(t) = completed_since {
        match parse_old_expr(&format!("CompletionDate <= {t}")) {
            Ok(e) => since = Some(e),
            Err(_) => {
                let _ = write!(err, "Error: '{t}' not valid parameter for -completedsince ");
                return Err(CommandError::Exit(1));
            }
        }
    }
    let mut jobs = JobQuery::ids(words.iter().map(|w| history_id(w)));
    for c in constraints {
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
    let print_format = match print_format.as_deref() {
        Some(file) => load_print_format(file, err)?,
        None => None,
    };
    let print_format_given = print_format.is_some();
    if let Some(pf) = print_format {
        if let Some(w) = pf.where_expr {
            let e = parse_old_expr(&w).expect("checked by load_print_format");
            jobs = jobs.with_constraint(e);
        }
        mask = pf.mask;
        if output.wide.is_none() {
            if let Some(w) = crate::output::console_width() {
                mask.overall_width = w.saturating_sub(1);
            }
        }
    }
    if !output.formats.is_empty() {
        if let Err(bad) = add_format_args(&mut mask, &output.formats) {
            return Err(fail(err, &format!("Error: invalid expression : {bad}")));
        }
    } else if !print_format_given {
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
    // -name and -pool ask a schedd for its history: this pool's answers with its own.
    if name.is_some() || pool.is_some() {
        let located = pool
            .as_deref()
            .is_none_or(|p| session.locate_pool(p) == PoolLocation::Local)
            && name
                .as_deref()
                .is_none_or(|n| session.locate_schedd(n) == ScheddLocation::Local);
        if !located {
            return Err(fail(
                err,
                &format!(
                    "Unable to locate remote schedd (name={}, pool={}).",
                    name.unwrap_or_default(),
                    pool.unwrap_or_default()
                ),
            ));
        }
    }
    let env = RenderEnv {
        server_time: session.now,
        schedd_host: session.full_hostname(),
        ..RenderEnv::default()
    };
    // Where the records come from: a file named with -file (or the files -search finds),
    // else the local schedd's history.
    // -epochs reads JOB_EPOCH_HISTORY and its rotated copies (its per-job files in
    // JOB_EPOCH_HISTORY_DIR, which condorlite does not write, are not read).
    let epoch_file = if epochs {
        let knob = |name: &str| {
            session
                .config
                .string(name)
                .ok()
                .flatten()
                .filter(|v| !v.trim().is_empty())
        };
        let file = knob("JOB_EPOCH_HISTORY");
        if file.is_none() && knob("JOB_EPOCH_HISTORY_DIR").is_none() {
            return Err(fail(err, "Error: No Job Run Instance recordings to read."));
        }
        file
    } else {
        None
    };
    let source = match (file, search, userlog) {
        (_, _, Some(log)) => Source::UserLog(log),
        (Some(file), _, None) => Source::File(PathBuf::from(file)),
        (None, Some(search), None) => Source::Files(find_history_files(Path::new(&search))),
        (None, None, None) if epochs => Source::Files(
            epoch_file
                .map(|f| find_history_files(Path::new(&f)))
                .unwrap_or_default(),
        ),
        (None, None, None) => Source::Store(None),
    };
    let source = match source {
        Source::File(path) if is_queue_store(&path) => {
            let dir = path.parent().unwrap_or(Path::new(".")).to_owned();
            if path.file_name().and_then(|n| n.to_str()) != Some(QUEUE_FILE) {
                return Err(fail(
                    err,
                    &format!(
                        "Error opening history file {}: a condorlite queue store is read \
                         as {QUEUE_FILE}",
                        path.display()
                    ),
                ));
            }
            Source::Store(Some(dir))
        }
        other => other,
    };

    let attributes = output.attributes.clone();
    let sel = Selection {
        only: (!attributes.is_empty()).then_some(&attributes[..]),
        sorted: true,
        exclude_private: false,
    };
    let format = output.ads;
    let mut scan = Scan {
        jobs: &jobs,
        ad_type: if epochs { "EPOCH" } else { "JOB" },
        limit,
        scan_limit,
        since: since.as_ref(),
        format,
        sel: &sel,
        mask: &mut mask,
        env: &env,
        matched: 0,
        scanned: 0,
        stopped: false,
        text: String::new(),
        out,
    };
    // The header.
    match format {
        None if scan.mask.has_headings() => {
            let heading = scan.mask.headings_line();
            scan.text.push_str(&heading);
        }
        Some(AdFormat::Xml) => {
            scan.text.push_str(XML_HEADER);
            scan.text.push('\n');
        }
        Some(AdFormat::Json) => scan.text.push_str("[\n"),
        _ => {}
    }

    let order = if forwards {
        HistoryOrder::OldestFirst
    } else {
        HistoryOrder::NewestFirst
    };
    match source {
        Source::Store(dir) => {
            let queue = match dir {
                None => session.open_queue(),
                Some(dir) => Queue::open(dir),
            }
            .map_err(|e| CommandError::failed(1, e.to_string()))?;
            scan_store(&queue, order, &mut scan)?;
        }
        Source::File(path) => {
            if let Err(e) = scan_file(&path, forwards, &mut scan) {
                scan.flush()?;
                return Err(fail(
                    err,
                    &format!(
                        "Error opening history file {}: {}",
                        path.display(),
                        crate::config::parse::io_reason(&e)
                    ),
                ));
            }
        }
        Source::UserLog(log) => {
            let cx = LogAdContext {
                log_name: &log,
                owner: &session.user,
                now: session.now,
                jobs: &[],
            };
            let ads = match read_job_ads(&log, &cx) {
                Ok(ads) => ads,
                Err(e) => {
                    scan.flush()?;
                    return Err(match e {
                        EventLogError::Io { .. } => {
                            fail(err, &format!("Error: Can't open userlog {log}"))
                        }
                        e => fail(err, &format!("Error reading user log: {e}")),
                    });
                }
            };
            for ad in &ads {
                if scan.selects(ad) {
                    scan.show(ad)?;
                }
            }
        }
        Source::Files(mut paths) => {
            if !forwards {
                paths.reverse();
            }
            for path in paths {
                if scan.done() {
                    break;
                }
                if let Err(e) = scan_file(&path, forwards, &mut scan) {
                    scan.flush()?;
                    return Err(fail(
                        err,
                        &format!(
                            "Error opening history file {}: {}",
                            path.display(),
                            crate::config::parse::io_reason(&e)
                        ),
                    ));
                }
            }
        }
    }
    match format {
        Some(AdFormat::Xml) => {
            scan.text.push_str(XML_FOOTER);
            scan.text.push('\n');
        }
        Some(AdFormat::Json) => scan.text.push_str("]\n"),
        _ => {}
    }
    scan.flush()?;
    Ok(())
}

/// `-print-format FILE` as history.cpp reads it (`set_print_mask_from_stream`): the format,
/// or `None` for `-pr !`. A format with an invalid `WHERE` or an aggregation (`UNIQUE`,
/// `FROM AUTOCLUSTER`) is refused; its other complaints are printed and the rest is used.
fn load_print_format(file: &str, err: &mut dyn Write) -> Result<Option<PrintFormat>, CommandError> {
    let cannot = |err: &mut dyn Write| {
        fail(
            err,
            &format!("Error: cannot execute print-format file {file}"),
        )
    };
    let text = match read_format_arg(file) {
        Ok(None) => return Ok(None),
        Ok(Some(text)) => text,
        Err(FormatArgError::NoFileName) => {
            return Err(fail(
                err,
                "Error: Argument -print-format requires a filename argument",
            ))
        }
        Err(FormatArgError::CantOpen) => {
            let _ = writeln!(err, "Can't open select file: {file}");
            return Err(cannot(err));
        }
        Err(FormatArgError::TooLarge) => {
            return Err(fail(err, &FormatArgError::too_large(file)));
        }
    };
    // history.cpp passes no PRINTAS table of its own: the global one only.
    let pf = printformat::parse(&text, &[]);
    let mut messages = pf.messages.clone();
    let mut ok = true;
    if let Some(w) = &pf.where_expr {
        if parse_old_expr(w).is_err() {
            messages.push_str(&format!("WHERE expression is not valid: {w}\n"));
            ok = false;
        }
    }
    if pf.aggregate != Aggregate::None {
        messages.push_str("UNIQUE aggregation is not supported.\n");
        ok = false;
    }
    let _ = err.write_all(messages.as_bytes());
    if ok {
        Ok(Some(pf))
    } else {
        Err(cannot(err))
    }
}

/// Where condor_history reads.
enum Source {
    /// A queue store's history: the local schedd's, or the one in this spool directory.
    Store(Option<PathBuf>),
    /// One history file (`-file`).
    File(PathBuf),
    /// A history file and its rotated copies, oldest first (`-search`).
    Files(Vec<PathBuf>),
    /// A job event log (`-userlog`).
    UserLog(String),
}

/// The records looked at so far, what they match, and the output: `printJobIfConstraint`'s
/// counters and `-limit`, `-scanlimit`, `-since`.
struct Scan<'a> {
    jobs: &'a JobQuery,
    /// The type of the history files' ads to show: `JOB`, or `EPOCH` (`-epochs`).
    ad_type: &'static str,
    limit: Option<i64>,
    scan_limit: Option<i64>,
    since: Option<&'a Expr>,
    format: Option<AdFormat>,
    sel: &'a Selection<'a>,
    mask: &'a mut PrintMask,
    env: &'a RenderEnv,
    matched: i64,
    scanned: i64,
    /// `-since` was reached.
    stopped: bool,
    text: String,
    out: &'a mut dyn Write,
}

impl Scan<'_> {
    /// Whether no more records are wanted.
    fn done(&self) -> bool {
        self.stopped
            || self.limit.is_some_and(|l| self.matched >= l)
            || self.scan_limit.is_some_and(|l| self.scanned >= l)
    }

    /// Looks at one record: counts it, stops at the `-since` one, prints it if it matches
    /// (`filtered`: the ids and constraint were already applied by the store).
    fn offer(&mut self, ad: &ClassAd, filtered: bool) -> Result<(), CommandError> {
        self.scanned += 1;
        if self.since.is_some_and(|s| constraint_holds(s, ad)) {
            self.stopped = true;
            return Ok(());
        }
        if !filtered && !self.selects(ad) {
            return Ok(());
        }
        self.show(ad)
    }

    /// Prints a record that matches.
    fn show(&mut self, ad: &ClassAd) -> Result<(), CommandError> {
        print_ad(
            &mut self.text,
            ad,
            self.format,
            self.sel,
            self.mask,
            self.env,
            self.matched,
        );
        self.matched += 1;
        if self.text.len() > 1 << 16 {
            self.flush()?;
        }
        Ok(())
    }

    /// Whether the ids and owners name the record and the constraint holds for it.
    fn selects(&self, ad: &ClassAd) -> bool {
        specs_match(self.jobs.id_specs(), ad)
            && self
                .jobs
                .constraint()
                .is_none_or(|c| constraint_holds(c, ad))
    }

    /// `\t*** Warning: Bad history file; skipping malformed ad(s)` (on stdout, in place).
    fn bad_ad(&mut self) {
        self.text
            .push_str("\t*** Warning: Bad history file; skipping malformed ad(s)\n");
    }

    fn flush(&mut self) -> Result<(), CommandError> {
        self.out.write_all(self.text.as_bytes())?;
        self.text.clear();
        Ok(())
    }
}

/// The queue store's history, in the order asked for.
fn scan_store(queue: &Queue, order: HistoryOrder, scan: &mut Scan<'_>) -> Result<(), CommandError> {
    // -since and -scanlimit look at every record in order, so the store may not skip any;
    // otherwise it filters (and uses its indexes).
    let scan_all = scan.since.is_some() || scan.scan_limit.is_some();
    let store_query = if scan_all {
        JobQuery::all()
    } else {
        scan.jobs.clone()
    };
    let failed = |e: crate::queue::QueueError| CommandError::failed(1, e.to_string());
    for entry in queue
        .history(&HistoryQuery::new(store_query, order))
        .map_err(failed)?
    {
        if scan.done() {
            break;
        }
        let entry = entry.map_err(failed)?;
        scan.offer(entry.ad().map_err(failed)?, !scan_all)?;
    }
    Ok(())
}

/// Whether a file is an SQLite database (a condorlite queue store) rather than a history
/// file.
fn is_queue_store(path: &Path) -> bool {
    let mut magic = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"SQLite format 3\0")
}

/// `findHistoryFiles`: the file and its rotated copies in the same directory
/// (`<name>.<ISO 8601 local time>`, as the schedd names them when it rotates), oldest
/// first and the file itself last; none when the directory cannot be read.
fn find_history_files(path: &Path) -> Vec<PathBuf> {
    let Some(base) = path.file_name().and_then(|b| b.to_str()) else {
        return Vec::new();
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut current = false;
    let mut rotated: Vec<(String, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if name == base {
            current = true;
        } else if let Some(time) = name
            .strip_prefix(base)
            .and_then(|rest| rest.strip_prefix('.'))
            .and_then(rotation_time)
        {
            rotated.push((time, dir.join(name)));
        }
    }
    rotated.sort();
    let mut files: Vec<PathBuf> = rotated.into_iter().map(|(_, p)| p).collect();
    if current {
        files.push(path.to_owned());
    }
    files
}

/// The time of a rotated history file's suffix (`iso8601_to_time`, local time: basic
/// `20240131T120000` or extended `2024-01-31T12:00:00`), as a sortable string; `None` for
/// any other suffix (or a UTC one, which the schedd never writes).
fn rotation_time(suffix: &str) -> Option<String> {
    let digits: String = suffix.chars().filter(|c| c.is_ascii_digit()).collect();
    let shape_ok = suffix
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '-' | ':' | 'T'))
        && suffix.matches('T').count() == 1;
    (shape_ok && digits.len() == 14).then_some(digits)
}

/// A history file's `*** ...` banner: the ad's type and the job it names
/// (`getAdTypeFromBanner` and `parseBanner`).
#[derive(Debug, Default, PartialEq)]
struct Banner {
    /// `JOB` unless the banner names another type (`*** EPOCH ClusterId=1 ...`); `None`
    /// when the banner has no `Key=Value` pair at all.
    ad_type: Option<String>,
    cluster: i64,
    owner: String,
}

impl Banner {
    fn parse(line: &str) -> Banner {
        let mut banner = Banner::default();
        let Some(eq) = line.find('=') else {
            return banner;
        };
        let start = line.len() - line.trim_start_matches('*').len();
        let start = start + line[start..].len() - line[start..].trim_start().len();
        let head = line.get(start..eq).unwrap_or("").trim_end();
        // The first word is a type when a second word follows it before the first '='.
        let rest = match head.find(char::is_whitespace) {
            Some(sp) => {
                banner.ad_type = Some(head[..sp].to_ascii_uppercase());
                &line[start + sp..]
            }
            None => {
                banner.ad_type = Some("JOB".into());
                &line[start..]
            }
        };
        let mut chars = rest;
        loop {
            chars = chars.trim_start();
            let Some(eq) = chars.find('=') else {
                break;
            };
            let key = chars[..eq].trim();
            let value_text = chars[eq + 1..].trim_start();
            let end = if let Some(body) = value_text.strip_prefix('"') {
                body.find('"').map_or(value_text.len(), |q| q + 2)
            } else {
                value_text
                    .find(char::is_whitespace)
                    .unwrap_or(value_text.len())
            };
            let value = &value_text[..end];
            if key.eq_ignore_ascii_case("ClusterId") {
                banner.cluster = value.parse::<i64>().ok().filter(|c| *c > 0).unwrap_or(0);
            } else if key.eq_ignore_ascii_case("Owner") {
                banner.owner = value.trim_matches('"').to_owned();
            }
            let after = &value_text[end..];
            match after.find(char::is_whitespace) {
                Some(sp) => chars = &after[sp..],
                None => break,
            }
        }
        banner
    }

    /// Whether the ad after this banner is worth reading, read backwards: a job ad
    /// (condor_history reads only those from a schedd's history), of a cluster or an owner
    /// asked for when the banner says whose it is.
    fn wanted(&self, specs: &[JobIdSpec], want_type: &str) -> bool {
        let Some(ad_type) = &self.ad_type else {
            return true;
        };
        if ad_type != want_type {
            return false;
        }
        let clusters: Vec<i64> = specs
            .iter()
            .filter_map(|s| match s {
                JobIdSpec::Cluster(c) => Some(i64::from(c.0)),
                JobIdSpec::Job(j) => Some(i64::from(j.cluster.0)),
                JobIdSpec::Owner(_) => None,
            })
            .collect();
        let owners: Vec<&str> = specs
            .iter()
            .filter_map(|s| match s {
                JobIdSpec::Owner(o) => Some(o.as_str()),
                _ => None,
            })
            .collect();
        if clusters.is_empty() && owners.is_empty() {
            return true;
        }
        if self.cluster <= 0 && !clusters.is_empty() {
            return true;
        }
        if self.owner.is_empty() && !owners.is_empty() {
            return true;
        }
        clusters.contains(&self.cluster)
            || owners.iter().any(|o| o.eq_ignore_ascii_case(&self.owner))
    }
}

/// Whether a history file's line ends an ad.
fn is_banner(line: &str) -> bool {
    line.starts_with("***")
}

/// Builds an ad from its `Name = value` lines (in file order); `None` when one does not
/// parse (`InsertLongFormAttrValue` fails).
fn ad_from_lines<'l>(lines: impl Iterator<Item = &'l str>) -> Option<ClassAd> {
    let mut ad = ClassAd::new();
    for line in lines {
        let (name, value) = line.split_once('=')?;
        let name = name.trim();
        if name.is_empty() {
            return None;
        }
        ad.insert(name, parse_old_expr(value).ok()?);
    }
    Some(ad)
}

/// Whether a line of an ad is a comment or blank (skipped).
fn skipped_line(line: &str) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    t.is_empty() || t.starts_with('#')
}

/// Reads one history file into the scan: from its end (`readHistoryFromFileEx`: from the
/// last banner back; the ads whose banners say they are not wanted are not even parsed), or
/// from its start (`readHistoryFromFileOld`: every ad, the last one even without its
/// banner). A malformed ad is reported in place and skipped.
fn scan_file(path: &Path, forwards: bool, scan: &mut Scan<'_>) -> std::io::Result<()> {
    let file = std::fs::File::open(path)?;
    if scan.done() {
        return Ok(());
    }
    if forwards {
        let mut lines: Vec<String> = Vec::new();
        let mut reader = std::io::BufReader::new(file);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let eof = reader.read_until(b'\n', &mut buf)? == 0;
            let line = String::from_utf8_lossy(&buf);
            let line = line.trim_end_matches(['\n', '\r']);
            if eof || is_banner(line) {
                if !lines.is_empty() {
                    match ad_from_lines(lines.iter().map(String::as_str)) {
                        Some(ad) => scan.offer(&ad, false).map_err(to_io)?,
                        None => scan.bad_ad(),
                    }
                }
                lines.clear();
                if eof || scan.done() {
                    break;
                }
                continue;
            }
            if !skipped_line(line) {
                lines.push(line.to_owned());
            }
        }
        return Ok(());
    }
    let mut reader = ReverseLines::new(file)?;
    // Whatever follows the last banner (an ad being written) is not a record yet.
    let mut banner = loop {
        match reader.prev_line()? {
            None => return Ok(()),
            Some(line) if is_banner(&line) => break Banner::parse(&line),
            Some(_) => {}
        }
    };
    let mut wanted = banner.wanted(scan.jobs.id_specs(), scan.ad_type);
    let mut lines: Vec<String> = Vec::new();
    loop {
        let line = reader.prev_line()?;
        let at_banner = line.as_deref().is_none_or(is_banner);
        if at_banner {
            if !lines.is_empty() {
                match ad_from_lines(lines.iter().rev().map(String::as_str)) {
                    Some(ad) => scan.offer(&ad, false).map_err(to_io)?,
                    None => scan.bad_ad(),
                }
                lines.clear();
            }
            let Some(line) = line else {
                break;
            };
            banner = Banner::parse(&line);
            wanted = banner.wanted(scan.jobs.id_specs(), scan.ad_type);
            if scan.done() {
                break;
            }
            continue;
        }
        let line = line.expect("not at the start");
        if wanted && !skipped_line(&line) {
            lines.push(line);
        }
    }
    Ok(())
}

fn to_io(e: CommandError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

/// A file's lines from last to first (`BackwardFileReader`), read a block at a time.
struct ReverseLines {
    file: std::fs::File,
    /// Where the bytes not yet read start.
    pos: u64,
    /// Bytes read but not yet returned (the end of the file's unread part).
    pending: Vec<u8>,
    done: bool,
}

impl ReverseLines {
    const BLOCK: u64 = 64 * 1024;

    fn new(file: std::fs::File) -> std::io::Result<ReverseLines> {
        let len = file.metadata()?.len();
        let mut r = ReverseLines {
            file,
            pos: len,
            pending: Vec::new(),
            done: len == 0,
        };
        // A final newline ends the last line; it does not start an empty one.
        r.fill()?;
        if r.pending.last() == Some(&b'\n') {
            r.pending.pop();
        }
        Ok(r)
    }

    /// Reads the block before the bytes read so far.
    fn fill(&mut self) -> std::io::Result<()> {
        use std::io::Seek;
        let size = self.pos.min(Self::BLOCK);
        if size == 0 {
            return Ok(());
        }
        self.pos -= size;
        self.file.seek(std::io::SeekFrom::Start(self.pos))?;
        let mut block = vec![0u8; size as usize];
        self.file.read_exact(&mut block)?;
        block.extend_from_slice(&self.pending);
        self.pending = block;
        Ok(())
    }

    fn prev_line(&mut self) -> std::io::Result<Option<String>> {
        loop {
            if let Some(nl) = self.pending.iter().rposition(|&b| b == b'\n') {
                let line = self.pending.split_off(nl + 1);
                self.pending.pop();
                return Ok(Some(Self::text(line)));
            }
            if self.pos == 0 {
                if self.done {
                    return Ok(None);
                }
                self.done = true;
                return Ok(Some(Self::text(std::mem::take(&mut self.pending))));
            }
            self.fill()?;
        }
    }

    fn text(bytes: Vec<u8>) -> String {
        let mut s = String::from_utf8_lossy(&bytes).into_owned();
        if s.ends_with('\r') {
            s.pop();
        }
        s
    }
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

    fn parse(args: &[&str]) -> HistoryArgs {
        HistoryArgs::from_invocation(&TOOL.parse_words(args).expect("a valid command line"))
    }

    #[test]
    fn nothing_given() {
        let args = parse(&[]);
        assert!(args.words.is_empty() && args.constraints.is_empty());
        assert_eq!((args.limit, args.scan_limit), (None, None));
        assert!(!args.forwards);
        assert_eq!((args.since, args.completed_since), (None, None));
        assert_eq!((args.file, args.search), (None, None));
        assert!(args.output.ads.is_none() && args.output.formats.is_empty());
    }

    #[test]
    fn words_and_constraints() {
        let args = parse(&["alice", "-c", "x > 1", "3.1", "-bogus", "-const", "y"]);
        assert_eq!(args.words, ["alice", "3.1", "-bogus"]);
        assert_eq!(args.constraints, ["x > 1", "y"]);
    }

    #[test]
    fn limits_read_as_atoi_and_positive_only() {
        assert_eq!(parse(&["-lim", "5x"]).limit, Some(5));
        assert_eq!(parse(&["-match", "7"]).limit, Some(7));
        assert_eq!(parse(&["-limit", "0"]).limit, None);
        assert_eq!(parse(&["-scan", "12"]).scan_limit, Some(12));
        assert_eq!(parse(&["-scanlimit", "-1"]).scan_limit, None);
    }

    #[test]
    fn the_later_of_forwards_and_backwards_wins() {
        assert!(parse(&["-forw"]).forwards);
        assert!(parse(&["-nob"]).forwards);
        assert!(!parse(&["-forwards", "-b"]).forwards);
        assert!(parse(&["-b", "-forwards"]).forwards);
        assert!(!parse(&["-backwards"]).forwards);
    }

    #[test]
    fn since_and_completedsince() {
        assert_eq!(parse(&["-since", "3.0"]).since.as_deref(), Some("3.0"));
        let args = parse(&["-com", "1700000000"]);
        assert_eq!(args.completed_since.as_deref(), Some("1700000000"));
    }

    #[test]
    fn sources() {
        assert_eq!(parse(&["-fi", "h"]).file.as_deref(), Some("h"));
        assert_eq!(parse(&["-sea", "h"]).search.as_deref(), Some("h"));
    }

    #[test]
    fn output_options() {
        let args = parse(&["-af", "Owner", "ClusterId", "-json"]);
        assert_eq!(args.output.ads, Some(AdFormat::Json));
        assert_eq!(args.output.formats.len(), 1);
        assert!(args.words.is_empty());
    }
}
