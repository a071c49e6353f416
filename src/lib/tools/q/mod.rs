//! `condor_q`: the jobs in the queue, as HTCondor's src/condor_q.V6/queue.cpp shows them.
//!
//! Selection: job ids and owners (ORed), `-constraint` (ANDed), `-allusers`; by default only
//! the user's own jobs (`CONDOR_Q_ONLY_MY_JOBS`), unless an id or owner is given or the
//! user is a queue superuser. `-run`, `-hold` and `-idle` select by state. `-limit N` stops
//! after N jobs. `-jobads FILE` reads the jobs from a file of job ads instead, `-userlog FILE`
//! makes them up from a job event log (see [`source`]); neither opens the queue store.
//!
//! Views: the batch view (the default, one line per batch, see [`batch`]), `-nobatch` (one
//! line per job), `-run`, `-hold`, `-idle`, `-io`, `-factory` (the job factories' cluster ads),
//! `-totals` (the per-job ones are HTCondor 24.0's print formats, see [`views`]), or a user's
//! `-print-format FILE`; each starts with the schedd's title line and ends with the `Total for
//! query:` summary (not `-run`, `-idle` and `-factory`). `-af`,
//! `-format`, `-long`, `-json`, `-jsonl` and `-xml` print bare: no title, header or summary
//! (with `-totals` they format the summary ad instead). Lines are cut to the terminal width
//! unless the output is not a terminal or `-wide` is given. When no master runs for the pool,
//! the tables end with a note saying so (condorlite's; `CONDORLITE_WARN_NO_MASTER`), the
//! machine-readable forms never.
//!
//! `-dag`: in the batch view a DAG node job without its DAGMan job listed shows its node name
//! as owner; without the batch view (`-nobatch`, `-run`, `-idle`) the DAG view lists each
//! node job under its DAGMan job, ` |-` and its node name in the `OWNER/NODENAME` column
//! (`-hold -dag` floats nodes the same way, marking their owners); a cluster id also selects
//! its DAG's node jobs. `-name` names the schedd: the local one, found as condor_rm finds it.
//!
//! `-autocluster` and `-group-by` (a print format's `FROM AUTOCLUSTER`, `UNIQUE`) list groups
//! of jobs instead of jobs: the master's autoclusters, or the jobs grouped by what is shown
//! (see [`aggregate`]).
//!
//! `-analyze`, `-better-analyze` and `-reverse-analyze` print, instead of a table, why the
//! selected jobs do (not) match the pool's slots (see [`analyze`]).

mod aggregate;
mod analyze;
mod batch;
mod source;
mod views;

use std::collections::HashMap;
use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::options::{self, flag, OutputOptions};
use super::Tool;
use crate::classad::cnum::strtol;
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr};
use crate::cli::args::{ordered_flag, ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::counts::{count_jobs, Census, JobCounters};
use crate::client::locate::{
    is_valid_sinful, no_collector_contact, report_unknown_pool_host, PoolLocation,
};
use crate::client::{ScheddLocation, Session};
use crate::error::CommandError;
use crate::output::ads::{AdFormat, AdListWriter, Selection};
use crate::output::autoformat::add_format_args;
use crate::output::mask::{Cell, PrintMask, RenderEnv, AUTO_WIDTH};
use crate::output::printformat::{self, read_format_arg, FormatArgError, PrintFormat};
use crate::output::render::lookup_str;
use crate::output::time::title_time;
use crate::output::wrapped_text;
use crate::queue::{constraint_holds, ClusterId, JobIdSpec, JobQuery, Queue};
use aggregate::Aggregation;
use source::Source;

pub const TOOL: Tool = Tool {
    name: "condor_q",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        // Unknown options reach run(), which reports them as condor_q does.
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

/// The options in the order queue.cpp tests them, with its minimum prefix lengths.
const PREFIXES: &[Prefix] = &[
    Prefix::min("wide", 1).qualified(),
    Prefix::min("long", 1).qualified(),
    Prefix::min("xml", 3),
    Prefix::min("json", 2),
    Prefix::exact("jsonl"),
    Prefix::min("limit", 3),
    Prefix::min("name", 1),
    Prefix::min("pool", 1),
    Prefix::min("submitter", 1),
    Prefix::min("address", 1),
    Prefix::min("autocluster", 2).qualified(),
    Prefix::min("group-by", 2).qualified(),
    Prefix::min("global", 1),
    Prefix::min("constraint", 1),
    Prefix::min("slotconstraint", 5),
    Prefix::min("mconstraint", 2),
    Prefix::min("machine", 2),
    Prefix::min("attributes", 2),
    Prefix::min("format", 1),
    Prefix::min("autoformat", 5).qualified(),
    Prefix::min("af", 2).qualified(),
    Prefix::min("print-format", 2),
    Prefix::min("allusers", 2),
    Prefix::min("all-users", 2),
    Prefix::min("help", 1),
    Prefix::min("better-analyze", 2).qualified(),
    Prefix::min("better-analyse", 2).qualified(),
    Prefix::min("analyze", 2).qualified(),
    Prefix::min("analyse", 2).qualified(),
    Prefix::min("reverse-analyze", 3).qualified(),
    Prefix::min("verbose", 4),
    Prefix::min("run", 1),
    Prefix::min("hold", 2).qualified(),
    Prefix::min("held", 2).qualified(),
    Prefix::min("idle", 3),
    Prefix::min("cputime", 2),
    Prefix::min("currentrun", 3),
    Prefix::min("cumulative-time", 3),
    Prefix::min("debug", 3).qualified(),
    Prefix::min("io", 2),
    Prefix::min("dag", 2),
    Prefix::min("batch", 2).qualified(),
    Prefix::min("progress", 3).qualified(),
    Prefix::min("nobatch", 3),
    Prefix::min("totals", 3),
    Prefix::min("factory", 4).qualified(),
    Prefix::min("expert", 1),
    Prefix::min("jobads", 1),
    Prefix::min("userlog", 1),
    Prefix::min("slotads", 2).qualified(),
    Prefix::min("version", 1),
];

pub fn command() -> Command {
    let cmd = Command::new("condor_q")
        .about("Show the jobs in the queue")
        .long_about(
            "Show the jobs in the queue. By default only your own jobs are shown, one line \
             per batch; name jobs (CLUSTER or CLUSTER.PROC) or owners, or use -allusers, to \
             see others'.",
        )
        .after_help("Exit status: 0 on success (also when no job matches), 1 on failure.")
        .disable_help_flag(true)
        .disable_version_flag(true);
    let cmd = options::job_selection(cmd, "Job ids (CLUSTER, CLUSTER.PROC) or owners to show");
    options::output_formats(cmd)
        .arg(
            Arg::new("limit")
                .long("limit")
                .value_name("N")
                .action(ArgAction::Set)
                .help("Show at most N jobs"),
        )
        .arg(
            Arg::new("name")
                .long("name")
                .value_name("SCHEDD")
                .action(ArgAction::Append)
                .help("The schedd to query (the local one, by its name or its host's)"),
        )
        .arg(
            Arg::new("pool")
                .long("pool")
                .value_name("HOST")
                .action(ArgAction::Set)
                .help("The central manager to query (this host's pool)"),
        )
        .arg(
            Arg::new("submitter")
                .long("submitter")
                .value_name("USER")
                .action(ArgAction::Append)
                .help("Show this submitter's jobs in every schedd of the pool"),
        )
        .arg(flag(
            "global",
            "Show the queues of every schedd in the pool",
        ))
        .arg(
            Arg::new("address")
                .long("address")
                .visible_alias("addr")
                .value_name("<IP:PORT>")
                .action(ArgAction::Append)
                .help("The schedd at this address (this pool's, <127.0.0.1:9618>)"),
        )
        .arg(options::print_format(
            "Show the jobs as the print-format FILE says (- for standard input)",
        ))
        .arg(flag(
            "autocluster",
            "Show the schedd's autoclusters (the jobs grouped by their significant attributes), \
             one line each with its id and job count",
        ))
        .arg(flag(
            "group-by",
            "Group the jobs by the attributes shown (-af, -format, -print-format): one line \
             per group, with its Id, JobCount and JobIds",
        ))
        .arg(flag("allusers", "Show all users' jobs").visible_alias("all-users"))
        .arg(flag("run", "Show running jobs, with the hosts they run on"))
        .arg(flag("hold", "Show held jobs, with their hold reasons").visible_alias("held"))
        .arg(flag("idle", "Show idle jobs"))
        .arg(flag("cputime", "Show CPU time rather than wall-clock time"))
        .arg(flag("currentrun", "Show the time of the current run only"))
        .arg(flag(
            "cumulative-time",
            "Show the time of all runs (the default)",
        ))
        .arg(flag("debug", "Print debugging output on stderr"))
        .arg(flag("batch", "One line per batch of jobs (the default)").visible_alias("progress"))
        .arg(flag("nobatch", "One line per job"))
        .arg(flag(
            "dag",
            "Show DAG node jobs under their DAGMan job (with -nobatch: one line per job, \
             node names in the owner column); a cluster id also selects its DAG's nodes",
        ))
        .arg(flag("totals", "Show only the totals"))
        .arg(flag(
            "io",
            "Show the jobs transferring files: runs, bytes in and out (24.0's -io view)",
        ))
        .arg(flag(
            "factory",
            "Show the job factories (late materialization): their clusters' counts \
             (-factory:clusters_only,late_materialize)",
        ))
        .arg(flag("expert", "Shorter error messages"))
        .arg(
            ordered_flag("analyze")
                .visible_alias("analyse")
                .help("Why the jobs do not run (-analyze:summary,reverse,noprune,...)"),
        )
        .arg(
            ordered_flag("better-analyze")
                .visible_alias("better-analyse")
                .help("Analyze the jobs' requirements clause by clause, whatever their state"),
        )
        .arg(
            ordered_flag("reverse-analyze")
                .help("Analyze the slots' requirements against the jobs"),
        )
        .arg(flag(
            "verbose",
            "With -analyze: show progress, and the names of the slots in each category",
        ))
        .arg(
            Arg::new("machine")
                .long("machine")
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("With -analyze: only the slots of this machine (or this slot)"),
        )
        .arg(
            Arg::new("mconstraint")
                .long("mconstraint")
                .visible_alias("slotconstraint")
                .value_name("EXPR")
                .action(ArgAction::Append)
                .help("With -analyze: only the slots for which the expression is true"),
        )
        .arg(
            Arg::new("jobads")
                .long("jobads")
                .value_name("FILE")
                .action(ArgAction::Append)
                .help("Read the jobs from this file of job ads (long form, as -long writes them; - is standard input) instead of the queue"),
        )
        .arg(
            Arg::new("userlog")
                .long("userlog")
                .value_name("FILE")
                .action(ArgAction::Append)
                .help("Show the jobs of this job event log (- is standard input) instead of the queue, as far as its events tell"),
        )
        .arg(
            Arg::new("slotads")
                .long("slotads")
                .value_name("FILE")
                .action(ArgAction::Append)
                .help("With -analyze: the slot ads of this file (long form) instead of the pool's"),
        )
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print help and exit"),
        )
        .arg(flag("version", "Print the version and exit"))
}

/// Which table to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Batch,
    Jobs,
    /// `-dag` without the batch view (`jobDAG_PrintFormat`).
    Dag,
    Run,
    Hold,
    Idle,
    /// `-factory` (`jobFactory_PrintFormat`): the cluster ads of job factories.
    Factory,
    /// `-io` (`jobIO_PrintFormat`): the jobs transferring files.
    Io,
    /// `-autocluster` (`autoclusterNormal_PrintFormat`): the schedd's autoclusters.
    AutoCluster,
}

/// condor_q's command line, read once from what clap parsed: every option `run` looks at,
/// typed, before any of them is checked.
#[derive(Debug)]
struct Args {
    /// `-version`.
    version: bool,
    /// `-expert`: shorter error messages.
    expert: bool,
    /// The output options (`-af`, `-format`, `-long`, `-wide`, ...).
    output: OutputOptions,
    /// The words that are not `-af` attributes: job ids, owners, and unknown options.
    words: Vec<String>,
    /// `-constraint`, in order.
    constraints: Vec<String>,
    /// `-limit N`, as given (checked by [`request`]).
    limit: Option<String>,
    /// `-allusers`.
    allusers: bool,
    /// `-run`.
    run: bool,
    /// `-hold` (`-held`).
    hold: bool,
    /// The qualifier of the last `-hold`: `<code>[/<subcode>],...`.
    hold_codes: Option<String>,
    /// `-idle`.
    idle: bool,
    /// `-cputime`.
    cputime: bool,
    /// `-currentrun`.
    current_run: bool,
    /// `-cumulative-time`.
    cumulative_time: bool,
    /// `-batch` (`Some(true)`) or `-nobatch` (`Some(false)`), whichever is given last.
    batch: Option<bool>,
    /// `-dag`.
    dag: bool,
    /// `-totals`.
    totals: bool,
    /// `-factory`, and the qualifiers of each occurrence (`clusters_only,late_materialize`).
    factory: Option<Vec<Option<String>>>,
    /// `-io`.
    io: bool,
    /// `-name`, in order.
    names: Vec<String>,
    /// `-pool HOST` (the last one given).
    pool: Option<String>,
    /// `-address <ip:port>`, in order.
    addresses: Vec<String>,
    /// `-submitter USER`, in order.
    submitters: Vec<String>,
    /// `-global`.
    global: bool,
    /// `-print-format FILE`.
    print_format: Option<String>,
    /// `-jobads FILE`.
    jobads: Option<String>,
    /// `-userlog FILE`.
    userlog: Option<String>,
    /// `-analyze`, `-better-analyze`, `-reverse-analyze` and the options of the analysis.
    analyze: Option<analyze::Options>,
    /// `-autocluster` or `-group-by`, whichever is given last.
    aggregate: Option<Aggregation>,
}

impl Args {
    /// Reads the options from `inv`, by their clap ids (the only place that does).
    fn parse(inv: &Invocation) -> Args {
        let m = &inv.matches;
        let on = |id: &str| m.get_flag(id);
        let all = |id: &str| -> Vec<String> {
            m.get_many::<String>(id)
                .into_iter()
                .flatten()
                .cloned()
                .collect()
        };
        let last = |id: &str| all(id).pop();
        let (output, words) = OutputOptions::from_invocation(inv);
        // -batch and -nobatch: the last one given wins.
        let batch_at = m.index_of("batch").filter(|_| on("batch"));
        let nobatch_at = m.index_of("nobatch").filter(|_| on("nobatch"));
        let batch = match (batch_at, nobatch_at) {
            (Some(b), Some(n)) => Some(b > n),
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        };
        let mut uses: Vec<(usize, analyze::Analysis, Option<String>)> = Vec::new();
        for (id, analysis) in [
            ("analyze", analyze::Analysis::Analyze),
            ("better-analyze", analyze::Analysis::Better),
            ("reverse-analyze", analyze::Analysis::Reverse),
        ] {
            let qualifiers = inv.qualifiers(id);
            for (n, at) in inv.occurrences(id).into_iter().enumerate() {
                let qualifier = qualifiers.get(n).copied().flatten().map(str::to_owned);
                uses.push((at, analysis, qualifier));
            }
        }
        uses.sort_by_key(|u| u.0);
        let uses: Vec<_> = uses.into_iter().map(|(_, a, q)| (a, q)).collect();
        // -machine and -mconstraint set the same slot constraint: the last one given wins.
        let slot_constraint = ["machine", "mconstraint"]
            .into_iter()
            .filter_map(|id| Some((m.indices_of(id)?.max()?, last(id)?)))
            .max_by_key(|(at, _)| *at)
            .map(|(_, value)| value);
        let analyze = analyze::options(&uses).map(|o| analyze::Options {
            verbose: on("verbose"),
            slot_constraint,
            slotads: last("slotads"),
            ..o
        });
        let aggregate = [
            ("autocluster", Aggregation::AutoCluster),
            ("group-by", Aggregation::GroupBy),
        ]
        .into_iter()
        .filter(|(id, _)| on(id))
        .filter_map(|(id, a)| Some((inv.occurrences(id).into_iter().max()?, a)))
        .max_by_key(|(at, _)| *at)
        .map(|(_, a)| a);
        Args {
            aggregate,
            version: on("version"),
            expert: on("expert"),
            output,
            words,
            constraints: options::constraints(inv),
            limit: last("limit"),
            allusers: on("allusers"),
            run: on("run"),
            hold: on("hold"),
            hold_codes: inv.qualifier("hold").map(str::to_owned),
            idle: on("idle"),
            cputime: on("cputime"),
            current_run: on("currentrun"),
            cumulative_time: on("cumulative-time"),
            batch,
            dag: on("dag"),
            totals: on("totals"),
            io: on("io"),
            factory: on("factory").then(|| {
                let qualifiers = inv.qualifiers("factory").into_iter();
                qualifiers.map(|q| q.map(str::to_owned)).collect()
            }),
            names: all("name"),
            pool: last("pool"),
            addresses: all("address"),
            submitters: all("submitter"),
            global: on("global"),
            print_format: last("print-format"),
            jobads: last("jobads"),
            userlog: last("userlog"),
            analyze,
        }
    }
}

/// What one run asks for.
#[derive(Debug)]
struct Request {
    words: Vec<String>,
    constraints: Vec<String>,
    allusers: bool,
    view: View,
    output: OutputOptions,
    limit: Option<u64>,
    totals: bool,
    cputime: bool,
    current_run: bool,
    /// `-hold:<code>[/<subcode>],...`.
    hold_codes: Option<String>,
    /// `-analyze`, `-better-analyze`, `-reverse-analyze` and their options.
    analyze: Option<analyze::Options>,
    /// `-run`, `-hold` or `-idle`: the state the jobs are selected by.
    state: Option<View>,
    /// `-dag`: DAG node jobs float up under their DAGMan job, named by their node names.
    dag: bool,
    /// `-name`, in command-line order.
    names: Vec<String>,
    /// `-pool HOST`.
    pool: Option<String>,
    /// `-address <ip:port>`, in command-line order.
    addresses: Vec<String>,
    /// `-submitter USER`, each qualified with `UID_DOMAIN` unless it has an `@`.
    submitters: Vec<String>,
    /// `-global`: every schedd of the pool (this one), "All queues are empty" when none has a
    /// job.
    global: bool,
    /// `-print-format FILE`, parsed.
    print_format: Option<PrintFormat>,
    /// `-factory`: [`FACTORY_CLUSTERS_ONLY`] and/or [`FACTORY_LATE_MATERIALIZE`].
    factory: Option<u8>,
    /// `-jobads FILE`: the jobs of this file instead of the queue's.
    jobads: Option<String>,
    /// `-userlog FILE`: the jobs of this event log (when there is no `-jobads`).
    userlog: Option<String>,
    /// `-autocluster`, `-group-by` (or a print format's `FROM AUTOCLUSTER`, `UNIQUE`): groups
    /// of jobs instead of jobs.
    aggregate: Option<Aggregation>,
}

/// `-factory:clusters_only`: cluster ads only (`ProcId is undefined`).
const FACTORY_CLUSTERS_ONLY: u8 = 1;
/// `-factory:late_materialize`: job factories only (`JobMaterializeDigestFile isnt undefined`).
const FACTORY_LATE_MATERIALIZE: u8 = 2;

/// `-factory[:clusters_only,late_materialize]`'s options (each a prefix of its name), as
/// queue.cpp reads them: none is both.
fn factory_options(qualifiers: &[Option<String>], err: &mut dyn Write) -> Result<u8, CommandError> {
    let mut bits = 0;
    for q in qualifiers {
        for opt in q
            .iter()
            .flat_map(|q| q.split(','))
            .filter(|o| !o.is_empty())
        {
            if "clusters_only".starts_with(opt) {
                bits |= FACTORY_CLUSTERS_ONLY;
            } else if "late_materialize".starts_with(opt) {
                bits |= FACTORY_LATE_MATERIALIZE;
            } else {
                return Err(usage_error(
                    err,
                    &format!("Error: unknown option {opt} for -factory"),
                ));
            }
        }
        if bits == 0 {
            bits = FACTORY_CLUSTERS_ONLY | FACTORY_LATE_MATERIALIZE;
        }
    }
    Ok(bits)
}

fn usage_error(err: &mut dyn Write, message: &str) -> CommandError {
    let _ = writeln!(err, "{message}");
    CommandError::Exit(1)
}

/// Checks the command line and works out what it asks for; a usage error is reported on
/// `err`.
fn request(args: Args, session: &Session, err: &mut dyn Write) -> Result<Request, CommandError> {
    let Args {
        output,
        mut words,
        run,
        hold,
        idle,
        dag,
        ..
    } = args;
    if let Some(bad) = words.iter().find(|w| w.starts_with('-')) {
        let _ = writeln!(err, "Error: unrecognized argument {bad}");
        return Err(CommandError::Exit(1));
    }
    let factory = match &args.factory {
        Some(qualifiers) => Some(factory_options(qualifiers, err)?),
        None => None,
    };
    let uid_domain = session.uid_domain().unwrap_or_default();
    let mut submitters = Vec::new();
    for s in &args.submitters {
        // The jobs are the submitter's own (queue.cpp's CQ_SUBMITTER, the owner part).
        let owner = s.split('@').next().unwrap_or(s).to_owned();
        words.push(owner);
        submitters.push(if s.contains('@') {
            s.clone()
        } else {
            format!("{s}@{uid_domain}")
        });
    }
    if output.empty_autoformat {
        return Err(usage_error(
            err,
            "Error: -autoformat requires at least one attribute parameter",
        ));
    }
    if output.xml_and_json {
        return Err(usage_error(err, "Error: Cannot print as both XML and JSON"));
    }
    // queue.cpp reads the limit with strtol into an int: white space and a sign may lead,
    // nothing may follow, and the number is cut to an int before it is checked.
    let limit = match &args.limit {
        None => None,
        Some(text) => match strtol(text.as_bytes()) {
            (_, used) if used < text.len() => {
                return Err(usage_error(
                    err,
                    &format!("Error: Unable to convert ({text}) to a number for -limit."),
                ))
            }
            (n, _) if n as i32 > 0 => Some(n as i32 as u64),
            (n, _) => {
                return Err(usage_error(
                    err,
                    &format!("Error: {} is not a valid for -limit.", n as i32),
                ))
            }
        },
    };
    if [run, hold, idle].iter().filter(|x| **x).count() > 1 {
        return Err(usage_error(
            err,
            "-run and -hold/held or -idle are incompatible",
        ));
    }
    if args.current_run && args.cumulative_time {
        return Err(usage_error(
            err,
            "Error: -cumulative-time can't be used with -currentrun",
        ));
    }
    if args.batch == Some(true) && !output.formats.is_empty() {
        return Err(usage_error(
            err,
            "Error: -batch conflicts with -format and -af",
        ));
    }
    // The batch view is the default (`CONDOR_Q_DASH_BATCH_IS_DEFAULT`) except for -run,
    // -idle and -hold; then the views in initOutputMask's order: -hold, batch, -dag, -run,
    // -idle.
    let batch_is_default = session
        .config
        .bool("CONDOR_Q_DASH_BATCH_IS_DEFAULT")
        .ok()
        .flatten()
        .unwrap_or(true);
    let print_format = match args.print_format.as_deref().map(read_format_arg) {
        // `-pr !` only turns off the configured default print formats.
        None | Some(Ok(None)) => None,
        Some(Err(FormatArgError::NoFileName)) => {
            return Err(usage_error(
                err,
                "Error: -print-format requires a filename argument",
            ))
        }
        Some(Err(FormatArgError::TooLarge)) => {
            let file = args.print_format.as_deref().unwrap_or_default();
            return Err(usage_error(err, &FormatArgError::too_large(file)));
        }
        Some(Err(FormatArgError::CantOpen)) => {
            let file = args.print_format.as_deref().unwrap_or_default();
            return Err(usage_error(
                err,
                &format!("Can't open select file: {file}\nError: invalid select file {file}"),
            ));
        }
        Some(Ok(Some(text))) => {
            let pf = views::parse(&text);
            let _ = err.write_all(pf.messages.as_bytes());
            Some(pf)
        }
    };
    // A print format that aggregates makes the query an aggregation (queue.cpp's
    // set_print_mask_from_stream).
    let aggregate = match print_format.as_ref().map(|pf| pf.aggregate) {
        Some(printformat::Aggregate::Unique) => Some(Aggregation::GroupBy),
        Some(printformat::Aggregate::AutoCluster) => Some(Aggregation::AutoCluster),
        _ => args.aggregate,
    };
    // An aggregation is never shown in batches; asked for both, queue.cpp refuses.
    if let (Some(a), Some(true)) = (aggregate, args.batch) {
        let option = match a {
            Aggregation::AutoCluster => "-autocluster",
            Aggregation::GroupBy => "-group-by",
        };
        return Err(usage_error(
            err,
            &format!("Error: -batch conflicts with {option}"),
        ));
    }
    let batch = args.batch.unwrap_or(
        aggregate.is_none()
            && batch_is_default
            && !run
            && !idle
            && !hold
            && !args.io
            && factory.is_none()
            && print_format.is_none(),
    );
    // -io names its view (`qdo_mode`), which initOutputMask's choice does not override.
    let view = if args.io {
        View::Io
    } else if aggregate == Some(Aggregation::AutoCluster) {
        View::AutoCluster
    } else if hold {
        View::Hold
    } else if batch {
        View::Batch
    } else if dag {
        View::Dag
    } else if run {
        View::Run
    } else if idle {
        View::Idle
    } else if factory.is_some() {
        View::Factory
    } else {
        View::Jobs
    };
    // initOutputMask: a view the pool replaced with a print-format file of its own, unless
    // `-pr !` says not to (the formats and the analysis have no view to replace).
    let print_format = match print_format {
        None if args.print_format.as_deref() != Some("!")
            && output.ads.is_none()
            && output.formats.is_empty()
            && args.analyze.is_none() =>
        {
            default_view_format(&session.config, view, args.totals, err)
        }
        pf => pf,
    };
    Ok(Request {
        words,
        constraints: args.constraints,
        allusers: args.allusers,
        view,
        output,
        limit,
        totals: args.totals,
        cputime: args.cputime,
        current_run: args.current_run,
        hold_codes: args.hold_codes,
        analyze: args.analyze,
        state: if hold {
            Some(View::Hold)
        } else if run {
            Some(View::Run)
        } else if idle {
            Some(View::Idle)
        } else {
            None
        },
        dag,
        names: args.names,
        pool: args.pool,
        addresses: args.addresses,
        submitters,
        global: args.global,
        print_format,
        factory,
        jobads: args.jobads,
        userlog: args.userlog,
        aggregate,
    })
}

/// The print-format file that replaces `view` (`Q_DEFAULT_<TAG>_PRINT_FORMAT_FILE`, the tags
/// of queue.cpp's `initOutputMask`), parsed; none when it is not configured or does not
/// exist, and a warning (then the built-in view) when it cannot be read. The batch view's
/// rows are computed in code from 24.0's own columns (`PROGRESS`), so its knob is not read.
fn default_view_format(
    config: &crate::config::Config,
    view: View,
    totals: bool,
    err: &mut dyn Write,
) -> Option<PrintFormat> {
    let tag = match view {
        _ if totals => "TOTALS_",
        View::Jobs => "",
        View::Run => "RUN_",
        View::Idle => "IDLE_",
        View::Hold => "HOLD_",
        View::Io => "IO_",
        View::AutoCluster => "AUTOCLUSTER_",
        View::Dag => "DAG_",
        View::Factory => "FACTORY_",
        View::Batch => return None,
    };
    let (file, text) =
        printformat::default_format_file(config, &format!("Q_DEFAULT_{tag}PRINT_FORMAT_FILE"))?;
    match text {
        Ok(text) => {
            let pf = views::parse(&text);
            let _ = err.write_all(pf.messages.as_bytes());
            Some(pf)
        }
        Err(_) => {
            let _ = writeln!(
                err,
                "Warning: default {} print-format file '{file}' is invalid",
                tag.trim_end_matches('_')
            );
            None
        }
    }
}

/// `-pool HOST`: this host's pool is queried as without it; a host that does not resolve
/// stops condor_q as DCCollector does (`Error: unknown host H` and queue.cpp's Extra Info),
/// and a central manager elsewhere is one condorlite cannot contact (`printNoCollectorContact`).
fn check_pool(
    req: &Request,
    session: &Session,
    out: &mut dyn Write,
    err: &mut dyn Write,
    expert: bool,
) -> Result<(), CommandError> {
    let Some(pool) = &req.pool else {
        return Ok(());
    };
    match session.locate_pool(pool) {
        PoolLocation::Local => return Ok(()),
        PoolLocation::UnknownHost(host) => report_unknown_pool_host(&host, expert, out, err),
        PoolLocation::Elsewhere(pool) => {
            let _ = err.write_all(no_collector_contact(&pool, !expert).as_bytes());
        }
    }
    Err(CommandError::Exit(1))
}

/// `-name`: the schedds to query. Each name is looked up as condor_rm looks it up
/// ([`Session::locate_schedd`]): a host that does not resolve stops condor_q at once
/// (queue.cpp, `Error: unknown host`); a schedd the pool does not have is left out of the
/// collector query's answer, and when no name is the local schedd nothing is left to show
/// (`Error: Collector has no record of schedd/submitter`), unless the jobs are read from a
/// file (`-jobads`, `-userlog`: queue.cpp asks the collector nothing then).
fn check_names(
    req: &Request,
    session: &Session,
    out: &mut dyn Write,
    err: &mut dyn Write,
    expert: bool,
) -> Result<(), CommandError> {
    check_pool(req, session, out, err, expert)?;
    // -submitter asks the collector for submitter ads, -name and -address for schedd ads.
    let by_schedd = !req.names.is_empty() || !req.addresses.is_empty();
    if !req.submitters.is_empty() && by_schedd {
        let _ = writeln!(err, "Cannot query both schedd's and submitters");
        if !expert {
            let _ = writeln!(out);
            let _ = err.write_all(
                wrapped_text(
                    "Extra Info: You cannot specify both -name and -submitter. -name implies \
                     you want to only query the local schedd, while -submitter implies you \
                     want to find everything in the entire pool for a givensubmitter.",
                    78,
                )
                .as_bytes(),
            );
        }
        return Err(CommandError::Exit(1));
    }
    let mut local = false;
    for addr in &req.addresses {
        if !is_valid_sinful(addr) {
            let _ = writeln!(err, "Address must be of the form: \"<ip.address:port>\"");
            return Err(CommandError::Exit(1));
        }
        local |= session.is_local_address(addr);
    }
    for name in &req.names {
        match session.locate_schedd(name) {
            ScheddLocation::Local => local = true,
            ScheddLocation::NotFound(_) => {}
            ScheddLocation::UnknownHost(host) => {
                let _ = writeln!(err, "Error: unknown host {host}");
                if !expert {
                    let _ = writeln!(out);
                    let _ = err.write_all(
                        wrapped_text(
                            "Extra Info: The name given with the -name should be the name of \
                             a condor_schedd process. Normally it is either a hostname, or \
                             \"name@hostname\". In either case, the hostname should be the \
                             Internet host name, but it appears that it wasn't.",
                            78,
                        )
                        .as_bytes(),
                    );
                }
                return Err(CommandError::Exit(1));
            }
        }
    }
    // Jobs read from a file are shown without asking the collector for schedds.
    let from_file = req.jobads.is_some() || req.userlog.is_some();
    if (!req.names.is_empty() || !req.addresses.is_empty()) && !local && !from_file {
        let _ = writeln!(err, "Error: Collector has no record of schedd/submitter");
        return Err(CommandError::Exit(1));
    }
    Ok(())
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let args = Args::parse(inv);
    if args.version {
        writeln!(out, "{}", crate::config::condor_version())?;
        return Ok(());
    }
    let expert = args.expert;
    // queue.cpp reads the configuration before its arguments.
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let req = request(args, &session, err)?;
    check_names(&req, &session, out, err, expert)?;
    // Analysis fetches the slots first, and stops there if it cannot.
    let slots = match &req.analyze {
        Some(o) => Some(analyze::fetch_slots(&session.config, o, err)?),
        None => None,
    };
    // A file of jobs, or an event log, is read without asking the pool about schedds or
    // submitters, and without opening the queue store.
    let from_file = match (&req.jobads, &req.userlog) {
        (Some(path), _) => Some(source::read_jobads(path, err)?),
        (None, Some(path)) => Some(source::read_userlog(path, &req.words, &session, err)?),
        (None, None) => None,
    };
    let queue;
    let source = match from_file {
        Some(source) => source,
        None => {
            queue = session
                .open_queue()
                .map_err(|e| CommandError::failed(1, e.to_string()))?;
            if let Some(problem) = queue.damage() {
                // What can still be read is shown; the user needs it to submit the jobs again.
                let _ = writeln!(
                    err,
                    "Warning: the job queue {} is damaged ({problem}): nothing can be changed \
                     in it, and what is shown may be incomplete",
                    queue.path().display()
                );
            }
            check_pool_has_jobs(&req, &queue, out, err)?;
            Source::Spool(&queue)
        }
    };
    let mut query = Query::new(&session, source, req, err)?;
    let printed = if let Some(slots) = slots {
        let o = query.req.analyze.clone().expect("analysis was asked for");
        analyze::print(&query, &o, slots, out, err)
    } else {
        query.print(out, err)
    };
    out.flush()?;
    query.report_damaged(err);
    printed
}

/// The collector has a submitter ad for a submitter with jobs in a schedd (`-submitter`), and
/// `-global`'s query asks for schedds with jobs: without them, queue.cpp says so and stops.
fn check_pool_has_jobs(
    req: &Request,
    queue: &Queue,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let has_jobs = |specs: Vec<JobIdSpec>| -> Result<bool, CommandError> {
        let counts = queue
            .count_by_status(&JobQuery::ids(specs))
            .map_err(queue_err)?;
        Ok(counts.iter().any(|(_, n)| *n > 0))
    };
    if !req.submitters.is_empty() {
        let owners = req
            .submitters
            .iter()
            .map(|s| JobIdSpec::Owner(s.split('@').next().unwrap_or(s).to_owned()));
        if !has_jobs(owners.collect())? {
            let _ = writeln!(err, "Error: Collector has no record of schedd/submitter");
            return Err(CommandError::Exit(1));
        }
    } else if req.global && !has_jobs(Vec::new())? {
        writeln!(out, "All queues are empty")?;
        return Err(CommandError::Exit(1));
    }
    Ok(())
}

/// One query, resolved.
struct Query<'s> {
    session: &'s Session,
    /// Where the jobs are read from: the queue store, or a file.
    source: Source<'s>,
    req: Request,
    jobs: JobQuery,
    /// The user whose jobs "my jobs" are, when the query is limited to them.
    me: Option<String>,
    /// Whether the query may leave some jobs of a cluster out (the DONE column is then
    /// unknown).
    partial: bool,
    env: RenderEnv,
    /// The jobs whose stored ads do not read back: skipped, and reported once the output
    /// is written (one damaged job must not hide the rest of the queue).
    damaged: std::cell::RefCell<Vec<crate::queue::QueueError>>,
}

impl<'s> Query<'s> {
    fn new(
        session: &'s Session,
        source: Source<'s>,
        req: Request,
        err: &mut dyn Write,
    ) -> Result<Query<'s>, CommandError> {
        let specs: Vec<JobIdSpec> = req.words.iter().map(|w| JobIdSpec::parse(w)).collect();
        let only_mine = session
            .config
            .bool("CONDOR_Q_ONLY_MY_JOBS")
            .ok()
            .flatten()
            .unwrap_or(true);
        // The schedd keeps to the user's jobs; a file has no schedd to do so.
        // The schedd's aggregations have no "my jobs" part.
        let me = (only_mine
            && req.aggregate.is_none()
            && specs.is_empty()
            && !req.allusers
            && !session.user_is_superuser()
            && source.label().is_none())
        .then(|| session.user.clone());
        let mut jobs = match &me {
            Some(me) => JobQuery::ids([JobIdSpec::Owner(me.clone())]),
            None => JobQuery::ids(specs.iter().cloned()),
        };
        if req.dag {
            jobs = jobs.with_ids(dag_node_clusters(&source, &specs)?);
        }
        let mut partial = specs.iter().any(|s| matches!(s, JobIdSpec::Job(_)));
        for text in &req.constraints {
            match parse_old_expr(text) {
                Ok(e) => jobs = jobs.with_constraint(e),
                Err(_) => {
                    let _ = writeln!(err, "\n-- Parse error in constraint expression \"{text}\"");
                    return Err(CommandError::Exit(1));
                }
            }
            partial = true;
        }
        // -run, -hold and -idle select by state whatever the view (-run -batch, -dag -idle).
        let state = match req.state {
            Some(View::Run) => Some("JobStatus == 2 || JobStatus == 6 || JobStatus == 7"),
            Some(View::Hold) => Some("JobStatus==5"),
            Some(View::Idle) => Some("JobStatus==1"),
            _ => None,
        };
        if let Some(s) = state {
            jobs = jobs.with_constraint(parse_old_expr(s).expect("a valid constraint"));
            partial = true;
        }
        // The -io view's WHERE, as a built-in format's is (`set_print_mask_from_stream`).
        if req.view == View::Io {
            let w = views::parse(views::IO)
                .where_expr
                .expect("the -io view has a WHERE");
            jobs = jobs.with_constraint(parse_old_expr(&w).expect("a valid constraint"));
            partial = true;
        }
        // A print format's WHERE is ANDed into the query (an invalid one is reported and
        // left out, and the query goes on).
        if let Some(w) = req
            .print_format
            .as_ref()
            .and_then(|pf| pf.where_expr.as_ref())
        {
            match parse_old_expr(w) {
                Ok(e) => {
                    jobs = jobs.with_constraint(e);
                    partial = true;
                }
                Err(_) => {
                    let _ = writeln!(err, "WHERE expression is not valid: {w}");
                }
            }
        }
        // -factory with -long, -af, -format or -print-format only narrows the query (the
        // procs listed have a `ProcId`: `-factory:clusters_only` leaves none).
        let custom = req.output.ads.is_some()
            || !req.output.formats.is_empty()
            || req.print_format.is_some();
        if let Some(bits) = req.factory.filter(|_| custom) {
            for (bit, c) in [
                (FACTORY_CLUSTERS_ONLY, "ProcId is undefined"),
                (
                    FACTORY_LATE_MATERIALIZE,
                    "JobMaterializeDigestFile isnt undefined",
                ),
            ] {
                if bits & bit != 0 {
                    jobs = jobs.with_constraint(parse_old_expr(c).expect("a valid constraint"));
                    partial = true;
                }
            }
        }
        if let Some(codes) = req
            .hold_codes
            .as_deref()
            .filter(|_| req.state == Some(View::Hold))
        {
            if let Some(c) = hold_code_constraint(codes, err) {
                jobs = jobs.with_constraint(parse_old_expr(&c).expect("a valid constraint"));
            }
        }
        // An aggregation answers with groups of jobs, which the query then selects from.
        let source = match (req.aggregate, source) {
            (Some(a), Source::Spool(queue)) => {
                let groups = match a {
                    Aggregation::AutoCluster => aggregate::autoclusters(
                        crate::client::select::jobs(queue, &JobQuery::all()).map_err(queue_err)?,
                    ),
                    Aggregation::GroupBy => aggregate::group_by(
                        crate::client::select::jobs(queue, &jobs).map_err(queue_err)?,
                        &group_by_projection(&req),
                    ),
                };
                Source::Ads {
                    label: None,
                    jobs: groups.map_err(queue_err)?,
                }
            }
            (_, source) => source,
        };
        let env = RenderEnv {
            server_time: session.now,
            cputime: req.cputime,
            current_run: req.current_run,
            dag: req.dag,
            schedd_host: session.full_hostname(),
        };
        Ok(Query {
            session,
            source,
            req,
            jobs,
            me,
            partial,
            env,
            damaged: Default::default(),
        })
    }

    /// Says which jobs were skipped because their stored ads are damaged, and how to remove
    /// them.
    fn report_damaged(&self, err: &mut dyn Write) {
        for e in self.damaged.borrow().iter() {
            let how = match e {
                crate::queue::QueueError::DamagedAd {
                    key: crate::queue::AdKey::Job(id),
                    ..
                } => format!("; skipped (condor_rm {id} removes it)"),
                crate::queue::QueueError::DamagedAd {
                    key: crate::queue::AdKey::Cluster(id),
                    ..
                } => format!("; its jobs are skipped (condor_rm {id} removes them)"),
                _ => String::new(),
            };
            let _ = writeln!(err, "condor_q: {e}{how}");
        }
    }

    fn print(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
        if let Some(format) = self.req.output.ads {
            return self.print_ads(out, format);
        }
        if !self.req.output.formats.is_empty() {
            return self.print_custom(out, err);
        }
        if let Some(pf) = self.req.print_format.take() {
            return self.print_with_format(out, pf);
        }
        if self.req.totals {
            // `jobTotals_PrintFormat`: no columns (the jobs are not listed), the title and
            // the standard summary.
            let pf = views::parse(views::TOTALS);
            let summary = self.summary(None)?;
            let mut text = if pf.title() {
                self.title()
            } else {
                String::new()
            };
            if self.legacy_summary() {
                text.push('\n');
            }
            if pf.standard_summary() {
                text.push_str(&self.summary_text(&summary));
            }
            out.write_all(text.as_bytes())?;
        } else {
            match self.req.view {
                View::Batch => self.print_batch(out)?,
                View::AutoCluster => {
                    return self.print_with_format(out, views::parse(views::AUTOCLUSTER))
                }
                View::Factory => self.print_factories(out)?,
                view => self.print_jobs(out, err, view)?,
            }
        }
        let ends_in_totals =
            self.req.totals || !matches!(self.req.view, View::Run | View::Idle | View::Factory);
        self.print_waiting_note(out, ends_in_totals)
    }

    /// The tables' last line when no master runs for the pool: the jobs wait for one. After
    /// the totals and the empty line that ends them; a table without totals (`-run`, `-idle`)
    /// gets an empty line first.
    fn print_waiting_note(
        &self,
        out: &mut dyn Write,
        ends_in_totals: bool,
    ) -> Result<(), CommandError> {
        // Jobs read from a file wait for no one.
        if self.source.label().is_some() {
            return Ok(());
        }
        let config = &self.session.config;
        let Some(note) = crate::client::master::waiting_note(config, || {
            crate::client::master::is_running(config)
        }) else {
            return Ok(());
        };
        if !ends_in_totals {
            out.write_all(b"\n")?;
        }
        writeln!(out, "{note}")?;
        Ok(())
    }

    /// The jobs the query selects, at most `-limit` of them.
    fn each_job(
        &self,
        mut f: impl FnMut(&crate::queue::Job) -> Result<(), CommandError>,
    ) -> Result<(), CommandError> {
        let jobs = self.source.jobs(&self.jobs).map_err(queue_err)?;
        let mut n: u64 = 0;
        let mut damaged_cluster = None;
        for job in jobs {
            if self.req.limit.is_some_and(|l| n >= l) {
                break;
            }
            // A job whose ad (or cluster's ad) does not read back is reported and skipped.
            let readable = job.and_then(|job| job.ad().map(|_| ()).map(|()| job));
            let job = match readable {
                Ok(job) => job,
                Err(e @ crate::queue::QueueError::DamagedAd { key, .. }) => {
                    if let crate::queue::AdKey::Cluster(c) = key {
                        if damaged_cluster == Some(c) {
                            continue;
                        }
                        damaged_cluster = Some(c);
                    }
                    self.damaged.borrow_mut().push(e);
                    continue;
                }
                Err(e) => return Err(queue_err(e)),
            };
            n += 1;
            f(&job)?;
        }
        Ok(())
    }

    /// The ads `-af`, `-format` and `-long` print: with `-factory`, the job factories' cluster
    /// ads first (queue.cpp asks the schedd to include cluster ads, `fetch_IncludeClusterAd`;
    /// the `-factory` options' constraints then keep them or the procs), then the jobs.
    fn each_listed_ad(
        &self,
        mut f: impl FnMut(&ClassAd) -> Result<(), CommandError>,
    ) -> Result<(), CommandError> {
        let mut n: u64 = 0;
        if self.req.factory.is_some() && self.source.store().is_some() {
            for (_, ad) in self.factory_ads()? {
                if self.req.limit.is_some_and(|l| n >= l) {
                    return Ok(());
                }
                n += 1;
                f(&ad)?;
            }
        }
        let limit = self.req.limit.map(|l| l.saturating_sub(n));
        let mut left = limit;
        self.each_job(|job| {
            if left == Some(0) {
                return Ok(());
            }
            left = left.map(|l| l - 1);
            f(job.ad().map_err(queue_err)?)
        })
    }

    fn title(&self) -> String {
        if let Some(label) = self.source.label() {
            return format!("\n\n-- {label} @ {}\n", title_time(self.session.now));
        }
        match self.req.submitters.first() {
            // Submitter ads name the submitter; the queue shown is its schedd's.
            Some(submitter) => format!(
                "\n\n-- Submitter: {submitter} : {} : {} @ {}\n",
                self.session.schedd_address(),
                self.session.full_hostname(),
                title_time(self.session.now)
            ),
            None => format!(
                "\n\n-- Schedd: {} : {} @ {}\n",
                self.session.schedd_name(),
                self.session.schedd_address(),
                title_time(self.session.now)
            ),
        }
    }

    fn legacy_summary(&self) -> bool {
        self.session
            .config
            .bool("CONDOR_Q_SHOW_OLD_SUMMARY")
            .ok()
            .flatten()
            .unwrap_or(false)
    }

    /// The counts of the summary: the query's (counted as the jobs were shown, or counted
    /// now), the user's own, all users'.
    fn summary(&self, counted: Option<(JobCounters, Census)>) -> Result<Summary, CommandError> {
        let (query, mut census) = match counted {
            Some(c) => c,
            None => {
                let mut census = Census::default();
                let counts = match self.source {
                    Source::Spool(queue) if self.req.limit.is_none() => {
                        count_jobs(queue, &self.jobs, &mut census).map_err(queue_err)?
                    }
                    _ => {
                        let mut c = JobCounters::default();
                        self.each_job(|job| {
                            let ad = job.cluster_ad().map_err(queue_err)?;
                            c.count(census.note(job.id().cluster, ad), job.status_code());
                            Ok(())
                        })?;
                        c
                    }
                };
                (counts, census)
            }
        };
        // A file's summary has the query's counts only.
        let all = match self.source {
            Source::Spool(queue) => Some(census.count(queue, &[]).map_err(queue_err)?),
            Source::Ads { .. } => None,
        };
        // Only the queue's jobs are limited to the user's own.
        let mine = match (&self.me, self.source.store()) {
            (Some(me), Some(queue)) => {
                let spec = [JobIdSpec::Owner(me.clone())];
                // The default query is exactly the user's jobs: no need to count them again.
                let same = self.jobs.constraint().is_none()
                    && self.req.limit.is_none()
                    && self.jobs.id_specs() == spec;
                let c = if same {
                    query
                } else {
                    census.count(queue, &spec).map_err(queue_err)?
                };
                Some((me.clone(), c))
            }
            _ => None,
        };
        Ok(Summary {
            query,
            mine,
            all,
            server_time: self.session.now,
        })
    }

    /// The summary lines (`standard_summary2/3`, or the legacy one), and the empty line
    /// that ends them.
    fn summary_text(&self, s: &Summary) -> String {
        if self.legacy_summary() {
            let q = &s.query;
            return format!(
                "{} jobs; {} completed, {} removed, {} idle, {} running, {} held, {} suspended\n\n",
                q.jobs() + q.scheduler_jobs(),
                q.completed + q.sched_completed,
                q.removed + q.sched_removed,
                q.idle + q.sched_idle,
                q.running + q.sched_running,
                q.held + q.sched_held,
                q.suspended
            );
        }
        let mut text = format!("Total for query: {} ", s.query.summary_words());
        if let Some((me, mine)) = &s.mine {
            text.push_str(&format!("\nTotal for {me}: {} ", mine.summary_words()));
        }
        match &s.all {
            Some(all) => text.push_str(&format!(
                "\nTotal for all users: {}\n\n",
                all.summary_words()
            )),
            // standard_summary2's all-users columns, undefined: their separators only.
            None => text.push_str("      \n\n"),
        }
        text
    }

    fn print_batch(&mut self, out: &mut dyn Write) -> Result<(), CommandError> {
        let mut collector = batch::Collector::new(self.req.dag);
        let mut counts = JobCounters::default();
        let mut census = Census::default();
        self.each_job(|job| {
            let universe = census.note(job.id().cluster, job.cluster_ad().map_err(queue_err)?);
            counts.count(universe, job.status_code());
            collector.add(job).map_err(queue_err)
        })?;
        let summary = self.summary(Some((counts, census)))?;
        let lines = collector.lines(self.partial);
        let mut mask = batch::mask();
        let (widescreen, width) = self.widths();
        let cells = batch::layout(&mut mask, &lines, (!widescreen).then_some(width));
        if !widescreen {
            mask.overall_width = width.saturating_sub(1);
        }
        let mut text = self.title();
        text.push_str(&mask.headings_line());
        out.write_all(text.as_bytes())?;
        let mut buf = String::new();
        for row in &cells {
            buf.clear();
            mask.display(&mut buf, row);
            if widescreen {
                trim_before_newline(&mut buf);
            }
            out.write_all(buf.as_bytes())?;
        }
        let mut footer = String::from("\n");
        footer.push_str(&self.summary_text(&summary));
        out.write_all(footer.as_bytes())?;
        Ok(())
    }

    /// Whether rows are shown in full (`widescreen`), and the display width.
    fn widths(&self) -> (bool, usize) {
        match self.req.output.wide {
            Some(Some(n)) if n > 0 => (false, n),
            Some(_) => (true, 80),
            None => match crate::output::console_width() {
                Some(w) => (false, w),
                None => (true, 80),
            },
        }
    }

    fn print_jobs(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
        view: View,
    ) -> Result<(), CommandError> {
        let (widescreen, width) = self.widths();
        let mut mask = job_mask(view);
        // -hold shows its table in full whatever the terminal's width.
        let wide_mode = widescreen || view == View::Hold;
        if !wide_mode {
            mask.overall_width = width.saturating_sub(1);
        }
        // With -dag (the DAG view, or -hold), node jobs float up under their DAGMan job and
        // the owner column shows their place in the DAG (`format_name_column_for_dag_nodes`).
        let dag = self.req.dag;
        let mut rows = Vec::new();
        let mut nodes: Vec<DagNode> = Vec::new();
        let mut counts = JobCounters::default();
        let mut census = Census::default();
        let (mut max_cluster, mut max_proc, mut longest_owner) = (0i64, 0i64, 0usize);
        let mut max_mem = 0.0f64;
        let env = self.env.clone();
        self.each_job(|job| {
            let ad = job.ad().map_err(queue_err)?;
            let universe = census.note(job.id().cluster, job.cluster_ad().map_err(queue_err)?);
            counts.count(universe, job.status_code());
            max_cluster = max_cluster.max(job.id().cluster.0 as i64);
            max_proc = max_proc.max(job.id().proc as i64);
            let row = mask.render(ad, &env);
            // The owner and size columns, as rendered, size their columns; a node name
            // leaves room for the ` |-` before it.
            let named_node = view == View::Dag && ad.lookup("DAGManJobId").is_some();
            if named_node && lookup_str(ad, "DAGNodeName").is_none() {
                let _ = writeln!(err, "DAG node job with no DAGNodeName attribute!");
            }
            if let Some(Cell::Str(o)) = row.get(2) {
                let indent = if named_node && lookup_str(ad, "DAGNodeName").is_some() {
                    3
                } else {
                    0
                };
                longest_owner = longest_owner.max(o.len() + indent);
            }
            if let Some(Cell::Real(m)) = row.iter().rev().nth(1) {
                max_mem = max_mem.max(*m);
            }
            if dag {
                nodes.push(DagNode::new(job.id(), batch::dagman_job_id(ad)));
            }
            rows.push(row);
            Ok(())
        })?;
        let summary = self.summary(Some((counts, census)))?;
        if dag {
            let deepest = link_dag_nodes(&mut nodes, &rows);
            longest_owner = longest_owner.max(deepest);
        }
        let mut name_width = if dag && !wide_mode { 17 } else { 14 };
        if !rows.is_empty() {
            // initOutputMask: the owner column may grow to 14 more than the width beyond 80
            // (3 more for node names), but not for -hold, which is always wide.
            let mut max_name = if wide_mode {
                14
            } else {
                14 + width as i64 - 80
            };
            if dag && !wide_mode {
                max_name += 3;
            }
            if fix_job_columns(
                &mut mask,
                max_cluster,
                max_proc,
                longest_owner,
                max_mem,
                widescreen,
                max_name,
            ) {
                name_width = mask.columns[2].width.unsigned_abs() as usize;
            }
        }
        if dag {
            for (node, row) in nodes.iter().zip(&mut rows) {
                if node.parent.is_none() {
                    continue;
                }
                if let Some(Cell::Str(name)) = row.get_mut(2) {
                    *name = dag_node_label(name, node.generation, name_width);
                }
            }
        }
        let mut text = self.title();
        text.push_str(&mask.headings_line());
        out.write_all(text.as_bytes())?;
        let mut buf = String::new();
        let order: Vec<usize> = if dag {
            dag_print_order(&nodes)
        } else {
            (0..rows.len()).collect()
        };
        for i in order {
            buf.clear();
            mask.display(&mut buf, &rows[i]);
            if widescreen {
                trim_before_newline(&mut buf);
            }
            out.write_all(buf.as_bytes())?;
        }
        if matches!(view, View::Jobs | View::Dag | View::Hold | View::Io) {
            let mut footer = String::from("\n");
            footer.push_str(&self.summary_text(&summary));
            out.write_all(footer.as_bytes())?;
        }
        Ok(())
    }

    /// `-factory` (`jobFactory_PrintFormat`): the cluster ads of the job factories, each with
    /// the counts of its procs the schedd keeps in it (`JobQueueCluster::PopulateInfoAd`:
    /// `JobsPresent`, `JobsIdle`, `JobsRunning`, `JobsHeld`), that the view's WHERE and the
    /// query select; no summary. `JobMaterializeDigestFile` names the queue store, which holds
    /// the digest. Jobs read from a file are shown when their ads pass the view's WHERE.
    fn print_factories(&mut self, out: &mut dyn Write) -> Result<(), CommandError> {
        let pf = views::parse(views::FACTORY);
        let mut mask = pf.mask;
        let view_where = pf
            .where_expr
            .as_deref()
            .map(|w| parse_old_expr(w).expect("the view's WHERE is valid"));
        let (widescreen, width) = self.widths();
        if !widescreen {
            mask.overall_width = width.saturating_sub(1);
        }
        let (mut rows, mut max_cluster, mut longest_owner) = (Vec::new(), 0i64, 0usize);
        for (id, ad) in self.factory_ads()? {
            if self.req.limit.is_some_and(|l| rows.len() as u64 >= l) {
                break;
            }
            if !view_where.as_ref().is_none_or(|c| constraint_holds(c, &ad)) {
                continue;
            }
            let row = mask.render(&ad, &self.env);
            if let Some(Cell::Str(o)) = row.get(2) {
                longest_owner = longest_owner.max(o.len());
            }
            max_cluster = max_cluster.max(id.0 as i64);
            rows.push(row);
        }
        if !rows.is_empty() {
            let max_name = if widescreen {
                14
            } else {
                14 + width as i64 - 80
            };
            fix_job_columns(
                &mut mask,
                max_cluster,
                0,
                longest_owner,
                0.0,
                widescreen,
                max_name,
            );
        }
        let mut text = self.title();
        text.push_str(&mask.headings_line());
        let mut buf = String::new();
        for row in &rows {
            buf.clear();
            mask.display(&mut buf, row);
            if widescreen {
                trim_before_newline(&mut buf);
            }
            text.push_str(&buf);
        }
        out.write_all(text.as_bytes())?;
        Ok(())
    }

    /// The cluster ads of the job factories the query selects, with what the schedd adds to
    /// them; from a file, the ads of the file's jobs the query selects.
    fn factory_ads(&self) -> Result<Vec<(ClusterId, ClassAd)>, CommandError> {
        let Some(queue) = self.source.store() else {
            let mut ads = Vec::new();
            self.each_job(|job| {
                ads.push((job.id().cluster, job.ad().map_err(queue_err)?.clone()));
                Ok(())
            })?;
            return Ok(ads);
        };
        let digest = queue.path().display().to_string();
        let mut ads = Vec::new();
        for factory in queue.factories().map_err(queue_err)? {
            let id = factory.cluster;
            let Some(mut ad) = queue.cluster_ad(id).map_err(queue_err)? else {
                continue;
            };
            let counts = queue.proc_counts(id).map_err(queue_err)?;
            for (name, n) in [
                ("JobsPresent", counts.present),
                ("JobsIdle", counts.idle),
                ("JobsRunning", counts.running),
                ("JobsHeld", counts.held),
            ] {
                ad.insert(name, Expr::lit(n));
            }
            ad.insert("JobFactoryPaused", Expr::lit(factory_mode(&factory, &ad)));
            ad.insert("JobMaterializeDigestFile", Expr::lit(digest.as_str()));
            if self.selects_cluster(id, &ad) {
                ads.push((id, ad));
            }
        }
        Ok(ads)
    }

    /// Whether the query selects a cluster ad: by its id or owner (a job id selects procs
    /// only), and by the query's constraint.
    fn selects_cluster(&self, id: ClusterId, ad: &ClassAd) -> bool {
        let specs = self.jobs.id_specs();
        let named = specs.is_empty()
            || specs.iter().any(|s| match s {
                JobIdSpec::Cluster(c) => *c == id,
                JobIdSpec::Job(_) => false,
                JobIdSpec::Owner(o) => {
                    lookup_str(ad, "Owner").is_some_and(|owner| owner.eq_ignore_ascii_case(o))
                }
            });
        named
            && self
                .jobs
                .constraint()
                .is_none_or(|c| constraint_holds(c, ad))
    }

    /// `-print-format FILE`: the title, headings, rows and summary the format asks for
    /// (`print_full_header`, `print_full_footer`); no column fixups, unlike the built-in
    /// views.
    fn print_with_format(
        &mut self,
        out: &mut dyn Write,
        mut pf: PrintFormat,
    ) -> Result<(), CommandError> {
        let (widescreen, width) = self.widths();
        if !widescreen {
            pf.mask.overall_width = width.saturating_sub(1);
        }
        let env = self.env.clone();
        let mut rows = Vec::new();
        let mut counts = JobCounters::default();
        let mut census = Census::default();
        self.each_job(|job| {
            let universe = census.note(job.id().cluster, job.cluster_ad().map_err(queue_err)?);
            counts.count(universe, job.status_code());
            rows.push(pf.mask.render(job.ad().map_err(queue_err)?, &env));
            Ok(())
        })?;
        let mut text = String::new();
        if pf.title() {
            text.push_str(&self.title());
        }
        if pf.header() && pf.mask.has_headings() {
            text.push_str(&pf.mask.headings_line());
        }
        out.write_all(text.as_bytes())?;
        let mut buf = String::new();
        // `streaming_print_job`: no row without columns, nor with -totals (a pool's
        // `Q_DEFAULT_TOTALS_PRINT_FORMAT_FILE` shapes only the title, headings and summary).
        let listed = if pf.mask.is_empty() || self.req.totals {
            &rows[..0]
        } else {
            &rows[..]
        };
        for row in listed {
            buf.clear();
            pf.mask.display(&mut buf, row);
            if widescreen {
                trim_before_newline(&mut buf);
            }
            out.write_all(buf.as_bytes())?;
        }
        let summary = pf.standard_summary() || pf.custom_summary();
        if summary {
            let s = self.summary(Some((counts, census)))?;
            let mut footer = String::new();
            if pf.standard_summary() {
                footer.push('\n');
                footer.push_str(&self.summary_text(&s));
            } else {
                // `print_full_footer`: the headings go out first, sized before the summary
                // ad is rendered, then the empty line, the summary and a newline.
                if pf.summary_mask.has_headings() {
                    footer.push_str(&pf.summary_mask.headings_line());
                }
                footer.push('\n');
                let row = pf.summary_mask.render(&s.ad(), &env);
                pf.summary_mask.display(&mut footer, &row);
                footer.push('\n');
            }
            out.write_all(footer.as_bytes())?;
        }
        self.print_waiting_note(out, summary)
    }

    /// `-af` and `-format`: bare rows, or the summary ad with `-totals`.
    fn print_custom(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<(), CommandError> {
        let mut mask = PrintMask::new();
        if let Err(bad) = add_format_args(&mut mask, &self.req.output.formats) {
            return Err(usage_error(
                err,
                &format!("Error: invalid expression : {bad}"),
            ));
        }
        let env = self.env.clone();
        if self.req.totals {
            let summary = self.summary(None)?;
            let ad = summary.ad();
            let row = mask.render(&ad, &env);
            let mut text = String::new();
            if mask.has_headings() {
                text.push_str(&mask.headings_line());
            }
            mask.display(&mut text, &row);
            text.push('\n');
            out.write_all(text.as_bytes())?;
            return Ok(());
        }
        if mask.columns.iter().any(|c| c.opts & AUTO_WIDTH != 0) {
            // Auto-width columns: size them to every row before printing.
            let mut rows = Vec::new();
            self.each_listed_ad(|ad| {
                rows.push(mask.render(ad, &env));
                Ok(())
            })?;
            let mut text = if mask.has_headings() {
                mask.headings_line()
            } else {
                String::new()
            };
            for row in &rows {
                mask.display(&mut text, row);
                if text.len() > 1 << 16 {
                    out.write_all(text.as_bytes())?;
                    text.clear();
                }
            }
            out.write_all(text.as_bytes())?;
            return Ok(());
        }
        let mut text = String::new();
        let mut mask_ref = mask;
        // Columns that read only what the store keeps in its columns need no job ad parsed:
        // they are shown from an ad of those values alone.
        let ids_only = mask_ref.attributes_read().is_some_and(|names| {
            names.iter().all(|n| {
                ["ClusterId", "ProcId", "JobStatus"]
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(n))
            })
        });
        let mut emit = |ad: &ClassAd| -> Result<(), CommandError> {
            let row = mask_ref.render(ad, &env);
            mask_ref.display(&mut text, &row);
            if text.len() > 1 << 16 {
                out.write_all(text.as_bytes())?;
                text.clear();
            }
            Ok(())
        };
        if ids_only && self.req.factory.is_none() {
            let mut small = ClassAd::new();
            self.each_job(|job| {
                let id = job.id();
                small.insert("ClusterId", Expr::lit(id.cluster.0 as i64));
                small.insert("ProcId", Expr::lit(id.proc as i64));
                small.insert("JobStatus", Expr::lit(job.status_code()));
                emit(&small)
            })?;
        } else {
            self.each_listed_ad(&mut emit)?;
        }
        out.write_all(text.as_bytes())?;
        Ok(())
    }

    /// `-long`, `-json`, `-jsonl`, `-xml`.
    fn print_ads(&mut self, out: &mut dyn Write, format: AdFormat) -> Result<(), CommandError> {
        let mut writer = AdListWriter::new(format);
        let attributes = std::mem::take(&mut self.req.output.attributes);
        let sel = Selection {
            only: (!attributes.is_empty()).then_some(&attributes[..]),
            sorted: !self.req.output.nosort,
            exclude_private: true,
        };
        let mut text = String::new();
        if self.req.totals {
            let summary = self.summary(None)?;
            writer.append(&mut text, &summary.ad(), &sel);
        } else {
            // The schedd's aggregations leave ServerTime out of their ads.
            let server_time = self
                .req
                .aggregate
                .is_none()
                .then(|| Expr::lit(self.session.now));
            self.each_listed_ad(|ad| {
                let mut ad = ad.clone();
                if let Some(t) = &server_time {
                    ad.insert("ServerTime", t.clone());
                }
                writer.append(&mut text, &ad, &sel);
                if text.len() > 1 << 16 {
                    out.write_all(text.as_bytes())?;
                    text.clear();
                }
                Ok(())
            })?;
        }
        writer.footer(&mut text, true);
        out.write_all(text.as_bytes())?;
        Ok(())
    }
}

/// The attributes `-group-by` groups the jobs by: the projection condor_q asks the schedd for
/// (queue.cpp's `app.attrs`), the attributes the output reads, in `classad::References`
/// order. `-af`/`-format` read their expressions' attributes; a print format (or the view)
/// its columns', and, when it does not aggregate itself, `ClusterId`, `ProcId` and (for its
/// summary) `JobStatus` and `JobUniverse`; `-attributes` adds its own. `-long` alone reads
/// none: all the jobs are one group.
fn group_by_projection(req: &Request) -> Vec<String> {
    let mut names = crate::classad::analysis::Names::default();
    let mut add = |list: Vec<String>| {
        for n in list {
            names.insert(&n);
        }
    };
    if !req.output.formats.is_empty() {
        let mut mask = PrintMask::new();
        let _ = add_format_args(&mut mask, &req.output.formats);
        add(mask.projection());
    } else if req.output.ads.is_none() {
        let (mask, aggregates, summary) = match &req.print_format {
            Some(pf) => (
                pf.mask.clone(),
                pf.aggregate != printformat::Aggregate::None,
                pf.standard_summary() || pf.custom_summary(),
            ),
            None => (job_mask(req.view), false, true),
        };
        add(mask.projection());
        if !aggregates {
            add(vec!["ClusterId".into(), "ProcId".into()]);
            if summary {
                add(vec!["JobStatus".into(), "JobUniverse".into()]);
            }
        }
    }
    add(req.output.attributes.clone());
    names.iter().map(str::to_owned).collect()
}

/// With `-dag`, a cluster named on the command line (`C`, or `C.0`: a DAGMan job is always
/// proc 0) also names the jobs of its DAG: queue.cpp ORs `DAGManJobId == C` and
/// `int(split(JobBatchId, ".")[0]) == C` into the query. The clusters whose cluster ad says
/// so are found by reading the cluster ads only (one per cluster, not one per job): DAGMan
/// and `-batch-id` set these attributes for a whole cluster.
fn dag_node_clusters(
    source: &Source<'_>,
    specs: &[JobIdSpec],
) -> Result<Vec<JobIdSpec>, CommandError> {
    let dags: Vec<i32> = specs
        .iter()
        .filter_map(|s| match s {
            JobIdSpec::Cluster(c) => Some(c.0),
            JobIdSpec::Job(j) if j.proc < 1 => Some(j.cluster.0),
            _ => None,
        })
        .collect();
    if dags.is_empty() {
        return Ok(Vec::new());
    }
    let tests: Vec<Expr> = dags
        .iter()
        .map(|c| {
            let text = format!("DAGManJobId == {c} || int(split(JobBatchId, \".\")[0]) == {c}");
            parse_old_expr(&text).expect("a valid expression")
        })
        .collect();
    let mut nodes = Vec::new();
    let mut node = |id: ClusterId, ad: &ClassAd| {
        if tests.iter().any(|t| crate::queue::constraint_holds(t, ad)) {
            nodes.push(JobIdSpec::Cluster(id));
        }
    };
    match source.store() {
        Some(queue) => {
            for id in queue.cluster_ids().map_err(queue_err)? {
                if let Some(ad) = queue.cluster_ad(id).map_err(queue_err)? {
                    node(id, &ad);
                }
            }
        }
        // Jobs read from a file: each job's ad is its cluster's.
        None => {
            for job in source.jobs(&JobQuery::all()).map_err(queue_err)? {
                let job = job.map_err(queue_err)?;
                node(job.id().cluster, job.ad().map_err(queue_err)?);
            }
        }
    }
    nodes.dedup();
    Ok(nodes)
}

/// `-hold:1/0,3`: held for these codes (and subcodes) only (`add_hold_code_constraint`).
fn hold_code_constraint(codes: &str, err: &mut dyn Write) -> Option<String> {
    let mut parts = Vec::new();
    for opt in codes.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        let digits = |s: &str| {
            s.chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect::<String>()
        };
        let code = digits(opt);
        let Ok(code) = code.parse::<i64>() else {
            let _ = writeln!(
                err,
                "Warning \"{opt}\" is not a hold code and/or subcode. ignoring"
            );
            continue;
        };
        let rest = &opt[digits(opt).len()..];
        let subcode = rest
            .strip_prefix('/')
            .and_then(|s| digits(s).parse::<i64>().ok())
            .filter(|s| *s >= 0);
        parts.push(match subcode {
            Some(sub) => format!("(HoldReasonCode=={code} && HoldReasonSubCode=={sub})"),
            None => format!("HoldReasonCode=={code}"),
        });
    }
    (!parts.is_empty()).then(|| parts.join(" || "))
}

fn queue_err(e: crate::queue::QueueError) -> CommandError {
    CommandError::failed(1, e.to_string())
}

/// `trim_whitespace_before_newline`.
fn trim_before_newline(buf: &mut String) {
    if !buf.ends_with('\n') {
        return;
    }
    let body = buf[..buf.len() - 1].trim_end_matches([' ', '\t', '\r', '\x0b', '\x0c']);
    let keep = body.len();
    buf.truncate(keep);
    buf.push('\n');
}

/// The summary the schedd sends after the jobs.
struct Summary {
    query: JobCounters,
    mine: Option<(String, JobCounters)>,
    /// All users' counts (none for jobs read from a file).
    all: Option<JobCounters>,
    server_time: i64,
}

impl Summary {
    /// The summary ad (`sendDone`).
    fn ad(&self) -> ClassAd {
        let mut ad = ClassAd::new();
        ad.insert("ErrorCode", Expr::lit(0));
        ad.insert("ServerTime", Expr::lit(self.server_time));
        ad.insert("MyType", Expr::lit("Summary"));
        if let Some(all) = &self.all {
            all.publish(&mut ad, "Allusers");
        }
        self.query.publish(&mut ad, "");
        if let Some((me, mine)) = &self.mine {
            mine.publish(&mut ad, "My");
            ad.insert("MyName", Expr::lit(me.as_str()));
        }
        ad
    }
}

/// A factory's pause mode as the schedd reports it (`JobFactoryPaused`, qmgmt_factory.cpp's
/// `MaterializeMode`): 3 removed by condor_rm, the `JobMaterializePaused` it was paused
/// with, 2 every proc made, else 0 (making procs).
fn factory_mode(factory: &crate::queue::Factory, ad: &ClassAd) -> i64 {
    let paused = crate::output::render::lookup_int(ad, "JobMaterializePaused").unwrap_or(0);
    let next = crate::output::render::lookup_int(ad, "JobMaterializeNextProcId").unwrap_or(0);
    if factory.removed {
        3
    } else if paused != 0 {
        paused
    } else if next >= factory.total_procs {
        2
    } else {
        0
    }
}

/// The columns of a per-job view: its 24.0 print format ([`views`]).
fn job_mask(view: View) -> PrintMask {
    views::mask(match view {
        View::Run => views::RUN,
        View::Hold => views::HOLD,
        View::Idle => views::IDLE,
        View::Dag => views::DAG,
        View::Factory => views::FACTORY,
        View::Io => views::IO,
        View::AutoCluster => views::AUTOCLUSTER,
        View::Jobs | View::Batch => views::NOBATCH,
    })
}

/// `fixup_std_column_widths`: wider id columns for big ids, a wider owner column (on a
/// terminal), a SIZE column as wide as the largest size. Returns whether it changed anything
/// (it leaves the columns alone when the ids are small and the names short).
fn fix_job_columns(
    mask: &mut PrintMask,
    max_cluster: i64,
    max_proc: i64,
    longest_owner: usize,
    max_mem: f64,
    widescreen: bool,
    max_name_width: i64,
) -> bool {
    if max_cluster < 9999 && max_proc < 999 && longest_owner <= 14 {
        return false;
    }
    let cluster_width = max_cluster.to_string().len();
    if (5..=9).contains(&cluster_width) {
        mask.columns[0].set_printf(&format!("%{cluster_width}d."));
        mask.columns[0].width = cluster_width as i32 + 1;
    }
    let proc_width = max_proc.to_string().len();
    if (4..=9).contains(&proc_width) {
        mask.columns[1].set_printf(&format!("%-{proc_width}d"));
        mask.columns[1].width = proc_width as i32;
    }
    let name_width = if !widescreen && longest_owner > 14 {
        (longest_owner as i64).min(max_name_width).max(0) as i32
    } else {
        0
    };
    let owner = &mut mask.columns[2];
    owner.width = owner.width.max(name_width);
    for col in &mut mask.columns {
        if col.attr == "ImageSize" {
            let w = crate::output::printf::sprintf_float("%.1f", max_mem).len() as i32;
            col.width = col.width.max(w);
        }
    }
    true
}

/// One job of a `-dag` listing, and its place in the DAG (`JobRowOfData`'s links).
#[derive(Clone, Debug)]
struct DagNode {
    id: crate::queue::JobId,
    /// The cluster of the DAGMan job this job is a node of (`lookup_dagman_job_id`).
    parent: Option<i64>,
    children: Option<usize>,
    next_sib: Option<usize>,
    last_sib: Option<usize>,
    generation: usize,
}

impl DagNode {
    fn new(id: crate::queue::JobId, parent: Option<i64>) -> DagNode {
        DagNode {
            id,
            parent,
            children: None,
            next_sib: None,
            last_sib: None,
            generation: 0,
        }
    }
}

/// `linkup_nodes_by_id` for `-dag`: each node job (after the first row, as queue.cpp walks
/// from the second) is linked under its DAGMan job (proc 0 of its `DAGManJobId`) when that
/// job is listed: as its first child, or (the first proc of another cluster) as the next
/// sibling of its first child; its generation is its parent's plus one. Returns the widest
/// name a nested node needs (its name, `|-`, and one space per generation).
fn link_dag_nodes(nodes: &mut [DagNode], rows: &[Vec<Cell>]) -> usize {
    let index: HashMap<crate::queue::JobId, usize> =
        nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let mut widest = 0;
    for i in 1..nodes.len() {
        let first_proc = nodes[i - 1].id.cluster != nodes[i].id.cluster;
        let Some(parent) = nodes[i].parent else {
            continue;
        };
        let Ok(cluster) = i32::try_from(parent) else {
            continue;
        };
        let Some(&p) = index.get(&crate::queue::JobId::new(cluster, 0)) else {
            continue;
        };
        nodes[i].generation = nodes[p].generation + 1;
        match nodes[p].children {
            None => nodes[p].children = Some(i),
            Some(head) if first_proc => {
                match nodes[head].last_sib {
                    None => nodes[head].next_sib = Some(i),
                    Some(last) => nodes[last].next_sib = Some(i),
                }
                nodes[head].last_sib = Some(i);
            }
            Some(_) => {}
        }
        if nodes[i].generation > 1 {
            if let Some(Cell::Str(name)) = rows[i].get(2) {
                widest = widest.max(name.len() + 2 + nodes[i].generation);
            }
        }
    }
    widest
}

/// A node job's name column: one space per generation, `|-`, and the name, cut to the
/// column's width (`format_name_column_for_dag_nodes`).
fn dag_node_label(name: &str, generation: usize, width: usize) -> String {
    let mut label = " ".repeat(generation);
    label.push_str("|-");
    let room = width.saturating_sub(label.len());
    let cut = crate::output::printf::floor_char_boundary(name, room.min(name.len()));
    label.push_str(&name[..cut]);
    label
}

/// The order `print_results` prints a `-dag` listing in: job-id order, each job followed by
/// its children (and theirs), which are then not printed again in their own place.
fn dag_print_order(nodes: &[DagNode]) -> Vec<usize> {
    let mut printed = vec![false; nodes.len()];
    let mut order = Vec::with_capacity(nodes.len());
    for i in 0..nodes.len() {
        if printed[i] {
            continue;
        }
        printed[i] = true;
        order.push(i);
        let mut stack: Vec<usize> = nodes[i].children.into_iter().collect();
        // `print_children`, without recursion: a node, its children, then its next sibling.
        while let Some(j) = stack.pop() {
            let seen = printed[j];
            printed[j] = true;
            order.push(j);
            if let Some(next) = nodes[j].next_sib {
                stack.push(next);
            }
            // A DAGMan job listed as a node of its own node would loop: once is enough.
            if let (Some(child), false) = (nodes[j].children, seen) {
                stack.push(child);
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::analyze::Options;
    use super::*;
    use crate::classad::analysis::{
        ALWAYS_ANALYZE_REQ, ANALYZE_EACH_SUB_EXPR, BETTER, DIAGNOSTIC, SHOW_ALL_SUBEXPRS,
    };
    use crate::output::autoformat::FormatArg;

    /// The arguments of `condor_q WORDS...`.
    fn args(words: &[&str]) -> Args {
        let argv = std::iter::once("condor_q").chain(words.iter().copied());
        let inv = TOOL
            .parse(argv)
            .unwrap_or_else(|e| panic!("{words:?}: {e:?}"));
        Args::parse(&inv)
    }

    #[test]
    fn no_options_ask_for_nothing() {
        let a = args(&[]);
        assert!(!a.version && !a.expert && !a.allusers && !a.run && !a.hold && !a.idle);
        assert!(!a.cputime && !a.current_run && !a.cumulative_time && !a.dag && !a.totals);
        assert!(a.words.is_empty() && a.constraints.is_empty() && a.names.is_empty());
        assert_eq!((a.limit, a.hold_codes, a.batch), (None, None, None));
        assert!(a.analyze.is_none());
        assert!(a.output.ads.is_none() && a.output.formats.is_empty());
    }

    #[test]
    fn flags_are_read_by_their_prefixes() {
        assert!(args(&["-version"]).version);
        assert!(args(&["-expert"]).expert);
        assert!(args(&["-allusers"]).allusers);
        assert!(args(&["-all-users"]).allusers);
        assert!(args(&["-run"]).run);
        assert!(args(&["-idle"]).idle);
        assert!(args(&["-cputime"]).cputime);
        assert!(args(&["-currentrun"]).current_run);
        assert!(args(&["-cumulative-time"]).cumulative_time);
        assert!(args(&["-dag"]).dag);
        assert!(args(&["-totals"]).totals);
        assert!(args(&["-tot"]).totals);
    }

    #[test]
    fn hold_takes_a_qualifier_of_codes() {
        let a = args(&["-hold"]);
        assert!(a.hold);
        assert_eq!(a.hold_codes, None);
        let a = args(&["-held:3/1,12"]);
        assert!(a.hold);
        assert_eq!(a.hold_codes.as_deref(), Some("3/1,12"));
    }

    #[test]
    fn the_last_of_batch_and_nobatch_wins() {
        assert_eq!(args(&["-batch"]).batch, Some(true));
        assert_eq!(args(&["-nobatch"]).batch, Some(false));
        assert_eq!(args(&["-batch", "-nobatch"]).batch, Some(false));
        assert_eq!(args(&["-nobatch", "-batch"]).batch, Some(true));
    }

    #[test]
    fn values_are_kept_as_given() {
        let a = args(&["-limit", "x"]);
        assert_eq!(a.limit.as_deref(), Some("x"));
        let a = args(&["-name", "a", "-name", "b@h"]);
        assert_eq!(a.names, ["a", "b@h"]);
        let a = args(&["-constraint", "x == 1", "-const", "y"]);
        assert_eq!(a.constraints, ["x == 1", "y"]);
    }

    #[test]
    fn words_are_job_ids_owners_and_unknown_options() {
        let a = args(&["12.0", "alice", "-bogus"]);
        assert_eq!(a.words, ["12.0", "alice", "-bogus"]);
        // -af attributes are not words.
        let a = args(&["-af", "Owner", "JobStatus", "7"]);
        assert!(a.words.is_empty());
        assert_eq!(
            a.output.formats,
            [FormatArg::AutoFormat {
                qualifiers: None,
                attrs: vec!["Owner".into(), "JobStatus".into(), "7".into()],
            }]
        );
        let a = args(&["-long", "-wide:100"]);
        assert_eq!(a.output.ads, Some(crate::output::ads::AdFormat::Long));
        assert_eq!(a.output.wide, Some(Some(100)));
    }

    #[test]
    fn analysis_options_in_command_line_order() {
        let a = args(&["-analyze"]);
        assert_eq!(a.analyze, Some(Options::default()));
        let better = BETTER | ANALYZE_EACH_SUB_EXPR | ALWAYS_ANALYZE_REQ;
        let a = args(&["-better-analyze"]);
        assert_eq!(a.analyze.map(|o| o.details), Some(better));
        let a = args(&["-better-analyze:noprune,diag"]);
        let o = a.analyze.unwrap_or_default();
        assert_eq!(o.details, better | SHOW_ALL_SUBEXPRS | DIAGNOSTIC);
        let a = args(&["-analyze:summary,reverse"]);
        let o = a.analyze.unwrap_or_default();
        assert!(o.summary && o.reverse);
        let a = args(&["-reverse-analyze:4"]);
        let o = a.analyze.unwrap_or_default();
        assert!(o.reverse && !o.summary);
        assert_eq!(o.details, SHOW_ALL_SUBEXPRS);
        // A qualifier without numbers clears the flags given before it.
        let a = args(&["-better-analyze", "-analyze:sh"]);
        assert_eq!(a.analyze.map(|o| o.details), Some(0));
        let a = args(&["-analyze:sh", "-better-analyze"]);
        assert_eq!(a.analyze.map(|o| o.details), Some(better));
    }

    #[test]
    fn slot_options_go_with_the_analysis() {
        let a = args(&[
            "-analyze",
            "-verbose",
            "-machine",
            "a",
            "-machine",
            "slot1@b",
            "-slotconstraint",
            "Cpus > 1",
            "-slotads",
            "slots.txt",
        ]);
        let o = a.analyze.unwrap_or_default();
        assert!(o.verbose);
        // One slot constraint: the last of -machine and -mconstraint.
        assert_eq!(o.slot_constraint.as_deref(), Some("Cpus > 1"));
        assert_eq!(o.slotads.as_deref(), Some("slots.txt"));
        let a = args(&[
            "-analyze",
            "-mconstraint",
            "Cpus > 1",
            "-machine",
            "slot1@b",
        ]);
        let o = a.analyze.unwrap_or_default();
        assert_eq!(o.slot_constraint.as_deref(), Some("slot1@b"));
        // Without an analysis they ask for nothing.
        assert!(args(&["-verbose", "-machine", "a"]).analyze.is_none());
    }
}
