//! `condor_rm`, `condor_hold`, `condor_release`, `condor_vacate_job`, `condor_suspend` and
//! `condor_continue`: one tool in six modes, as HTCondor's src/condor_rm.V6/rm.cpp is one
//! program that reads its mode from its name.
//!
//! Targets: `C.P` job ids (acted on as a list, one result line per job: `Job 42.0 held` on
//! stdout, `Job 42.1 not found` on stderr), and clusters, owners, `-constraint` and `-all`
//! (one request by constraint, one line: `All jobs in cluster 42 have been held`, or why
//! nothing was done). `-held` limits any of them to held jobs. `-reason` replaces the
//! default reason (`via condor_rm`, ...), `-subcode` sets `HoldReasonSubCode`, `-forcex`
//! removes jobs already being removed, `-fast` vacates with a hard kill, `-totals` and
//! `-long` print the results. `-name`
//! names the schedd: the local one (by its name or the host's), else the tool fails as
//! HTCondor's does without acting (`unknown host X` when the name does not resolve, `Error:
//! cannot get address of schedd X` when no such schedd is in the pool). The exit status is 1
//! when anything failed.
//!
//! The schedd's side of the work is [`crate::client::actions`].

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::options::{flag, schedd_and_pool, value, WORDS};
use super::Tool;
use crate::cli::args::{ordered_flag, ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::actions::{
    result_ad, Action, ActionError, ActionResult, Outcome, Request, Target,
};
use crate::client::locate::{is_valid_sinful, PoolLocation};
use crate::client::master::{start_hint, MasterError};
use crate::client::schedd::Schedd;
use crate::client::{ScheddLocation, Session};
use crate::error::CommandError;
use crate::queue::{JobId, JobIdError, JobIdSpec};

/// The three tools' modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Remove,
    Hold,
    Release,
    Vacate,
    Suspend,
    Continue,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Remove => "condor_rm",
            Mode::Hold => "condor_hold",
            Mode::Release => "condor_release",
            Mode::Vacate => "condor_vacate_job",
            Mode::Suspend => "condor_suspend",
            Mode::Continue => "condor_continue",
        }
    }

    /// `getJobActionString`, for the usage text.
    fn verb(self) -> &'static str {
        match self {
            Mode::Remove => "remove",
            Mode::Hold => "hold",
            Mode::Release => "release",
            Mode::Vacate => "vacate",
            Mode::Suspend => "suspend",
            Mode::Continue => "continue",
        }
    }

    fn action(self) -> Action {
        match self {
            Mode::Remove => Action::Remove,
            Mode::Hold => Action::Hold,
            Mode::Release => Action::Release,
            Mode::Vacate => Action::Vacate,
            Mode::Suspend => Action::Suspend,
            Mode::Continue => Action::Continue,
        }
    }
}

pub const RM: Tool = Tool {
    name: "condor_rm",
    clap: command_rm,
    args: ArgSpec {
        prefixes: PREFIXES_RM,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run: run_rm,
};

pub const HOLD: Tool = Tool {
    name: "condor_hold",
    clap: command_hold,
    args: ArgSpec {
        prefixes: PREFIXES_OTHER,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run: run_hold,
};

pub const RELEASE: Tool = Tool {
    name: "condor_release",
    clap: command_release,
    args: ArgSpec {
        prefixes: PREFIXES_OTHER,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run: run_release,
};

pub const VACATE_JOB: Tool = Tool {
    name: "condor_vacate_job",
    clap: command_vacate_job,
    args: ArgSpec {
        prefixes: PREFIXES_VACATE,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run: run_vacate_job,
};

pub const SUSPEND: Tool = Tool {
    name: "condor_suspend",
    clap: command_suspend,
    args: ArgSpec {
        prefixes: PREFIXES_OTHER,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run: run_suspend,
};

pub const CONTINUE: Tool = Tool {
    name: "condor_continue",
    clap: command_continue,
    args: ArgSpec {
        prefixes: PREFIXES_OTHER,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run: run_continue,
};

/// rm.cpp's tests, in order; `-forcex` may be abbreviated to one letter by condor_rm only,
/// `-fast` by condor_vacate_job only.
const fn prefixes(forcex: usize, fast: usize) -> [Prefix; 16] {
    [
        Prefix::min("debug", 1).qualified(),
        Prefix::min("long", 1),
        Prefix::min("totals", 3),
        Prefix::min("constraint", 1),
        Prefix::min("all", 1),
        Prefix::min("held", 3),
        Prefix::min("hold", 3),
        Prefix::min("reason", 1),
        Prefix::min("subcode", 1),
        Prefix::min("forcex", forcex),
        Prefix::min("fast", fast),
        Prefix::min("name", 1),
        Prefix::min("pool", 1),
        Prefix::min("addr", 2),
        Prefix::min("version", 1),
        Prefix::min("help", 1),
    ]
}

const PREFIXES_RM: &[Prefix] = &prefixes(1, 2);
const PREFIXES_VACATE: &[Prefix] = &prefixes(2, 1);
const PREFIXES_OTHER: &[Prefix] = &prefixes(2, 2);

fn command(mode: Mode) -> Command {
    let (about, reason_help) = match mode {
        Mode::Remove => ("Remove jobs from the queue", "Use the given RemoveReason"),
        Mode::Hold => ("Put jobs on hold", "Use the given HoldReason"),
        Mode::Release => ("Release held jobs", "Use the given ReleaseReason"),
        Mode::Vacate => (
            "Vacate running jobs back to idle",
            "Not used by condor_vacate_job",
        ),
        Mode::Suspend => ("Suspend running jobs", "Not used by condor_suspend"),
        Mode::Continue => ("Continue suspended jobs", "Not used by condor_continue"),
    };
    Command::new(mode.name())
        .about(about)
        .after_help(
            "Jobs are CLUSTER.PROC ids, CLUSTERs, owner names, -constraint EXPR or -all. \
             Exit status: 0 when every job could be acted on, 1 otherwise.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("debug", "Display debugging information while running"))
        .arg(flag("long", "Display the full result ad"))
        .arg(flag("totals", "Display success/failure totals"))
        .arg(
            Arg::new("constraint")
                .long("constraint")
                .value_name("EXPR")
                .action(ArgAction::Append)
                .help("Act on all jobs matching the boolean expression"),
        )
        .arg(ordered_flag("all").help("Act on all jobs (cannot be used with other constraints)"))
        .arg(
            flag(
                "held",
                "Act on held jobs only (may be combined with other constraints)",
            )
            .visible_alias("hold"),
        )
        .arg(
            Arg::new("reason")
                .long("reason")
                .value_name("REASON")
                .action(ArgAction::Set)
                .help(reason_help),
        )
        .arg(
            Arg::new("subcode")
                .long("subcode")
                .value_name("N")
                .action(ArgAction::Set)
                .help("Set HoldReasonSubCode (condor_hold)"),
        )
        .arg(flag(
            "forcex",
            "Force the immediate local removal of jobs in the X state (condor_rm)",
        ))
        .arg(flag(
            "fast",
            "Use a fast vacate (hardkill) (condor_vacate_job)",
        ))
        .args(schedd_and_pool())
        .arg(value(
            "addr",
            "<IP:PORT>",
            "Connect directly to the given \"sinful string\" (this pool's schedd)",
        ))
        .arg(flag("version", "Display version information and exit"))
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Display this message and exit"),
        )
        .arg(
            Arg::new(WORDS)
                .value_name("JOB|OWNER")
                .action(ArgAction::Append)
                .help("CLUSTER.PROC, CLUSTER or owner"),
        )
}

pub fn command_rm() -> Command {
    command(Mode::Remove)
}

pub fn command_hold() -> Command {
    command(Mode::Hold)
}

pub fn command_release() -> Command {
    command(Mode::Release)
}

pub fn command_vacate_job() -> Command {
    command(Mode::Vacate)
}

pub fn command_suspend() -> Command {
    command(Mode::Suspend)
}

pub fn command_continue() -> Command {
    command(Mode::Continue)
}

fn run_rm(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    run(Mode::Remove, inv, out, err)
}

fn run_hold(
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    run(Mode::Hold, inv, out, err)
}

fn run_release(
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    run(Mode::Release, inv, out, err)
}

fn run_vacate_job(
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    run(Mode::Vacate, inv, out, err)
}

fn run_suspend(
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    run(Mode::Suspend, inv, out, err)
}

fn run_continue(
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    run(Mode::Continue, inv, out, err)
}

/// The usage text rm.cpp prints (to stderr).
fn usage(mode: Mode, err: &mut dyn Write) {
    let word = mode.verb();
    let mut u = format!("Usage: {} [options] [constraints]\n", mode.name());
    u.push_str(" where [options] is zero or more of:\n");
    u.push_str("  -help               Display this message and exit\n");
    u.push_str("  -version            Display version information and exit\n");
    u.push_str("  -long               Display full result classad\n");
    u.push_str("  -totals             Display success/failure totals\n");
    u.push_str("  -debug              Display debugging information while running\n");
    u.push_str("  -name schedd_name   Connect to the given schedd\n");
    u.push_str("  -pool hostname      Use the given central manager to find daemons\n");
    u.push_str("  -addr <ip:port>     Connect directly to the given \"sinful string\"\n");
    match mode {
        Mode::Remove => u.push_str("  -reason reason      Use the given RemoveReason\n"),
        Mode::Release => u.push_str("  -reason reason      Use the given ReleaseReason\n"),
        Mode::Hold => {
            u.push_str("  -reason reason      Use the given HoldReason\n");
            u.push_str("  -subcode number     Set HoldReasonSubCode\n");
        }
        Mode::Vacate | Mode::Suspend | Mode::Continue => {}
    }
    if mode == Mode::Remove {
        u.push_str(
            "  -forcex             Force the immediate local removal of jobs in the X state\n\
             \x20                     (only affects jobs already being removed)\n",
        );
        u.push_str("  -transfer           Transfer output files before removing\n");
    }
    if mode == Mode::Vacate {
        u.push_str("  -fast               Use a fast vacate (hardkill)\n");
    }
    u.push_str(" and where [constraints] is one of:\n");
    u.push_str(&format!("  cluster.proc        {word} the given job\n"));
    u.push_str(&format!(
        "  cluster             {word} the given cluster of jobs\n"
    ));
    u.push_str(&format!(
        "  user                {word} all jobs owned by user\n"
    ));
    u.push_str(&format!(
        "  -constraint expr    {word} all jobs matching the boolean expression\n"
    ));
    u.push_str(&format!(
        "  -all                {word} all jobs (cannot be used with other constraints)\n"
    ));
    u.push_str(&format!(
        "  -held               {word} only held jobs (may be combined with the above constraints)\n"
    ));
    let _ = err.write_all(u.as_bytes());
}

/// What kind of constraint has been built (rm.cpp's `CONSTRAINT_TYPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    None,
    All,
    Cluster,
    User,
    Simple,
    Complex,
}

/// The constraint being built from the arguments (`addConstraint`).
#[derive(Debug)]
struct Constraint {
    text: String,
    kind: Kind,
}

impl Constraint {
    fn add(&mut self, c: &str, kind: Kind) {
        match self.kind {
            Kind::None | Kind::All => {
                self.text = c.to_owned();
                self.kind = kind;
            }
            Kind::Complex => self.text.push_str(&format!(" && ({c})")),
            _ => {
                self.text = format!("({}) && ({c})", self.text);
                self.kind = Kind::Complex;
            }
        }
    }
}

/// The job ids and owners/clusters of the arguments (`procArg` and its helpers).
#[derive(Debug)]
struct UserCluster {
    text: String,
    kind: Kind,
}

impl UserCluster {
    fn add(&mut self, c: String, kind: Kind) {
        if self.kind == Kind::None {
            self.text = c;
            self.kind = kind;
        } else {
            self.text.push_str(" || ");
            self.text.push_str(&c);
            self.kind = Kind::Complex;
        }
    }
}

/// One job-selecting argument, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `-constraint EXPR`.
    Constraint(String),
    /// `-all`.
    All,
    /// `-name SCHEDD`.
    Name(String),
    /// `-pool HOST`.
    Pool(String),
    /// `-addr <IP:PORT>`.
    Addr(String),
    /// A positional word: `CLUSTER.PROC`, `CLUSTER`, an owner, or an unknown dash word.
    Word(String),
}

/// The command line of `condor_rm` and its five siblings, parsed once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RmArgs {
    /// `-version`: print the version and exit.
    pub version: bool,
    /// `-forcex`: remove jobs already being removed (condor_rm only).
    pub forcex: bool,
    /// `-fast`: vacate with a hard kill (condor_vacate_job only).
    pub fast: bool,
    /// `-subcode N`: the number, or the text when it is not one (`Err`, reported by `run`).
    pub subcode: Option<Result<i64, String>>,
    /// `-constraint`, `-all`, `-name` and the positional words, in command-line order.
    pub events: Vec<Event>,
    /// `-held` (or `-hold`): act on held jobs only.
    pub held: bool,
    /// `-reason REASON`: replaces the default reason.
    pub reason: Option<String>,
    /// `-long`: print the result ad.
    pub long: bool,
    /// `-totals`: print the success/failure counts.
    pub totals: bool,
}

impl RmArgs {
    /// Reads the parsed command line (the only place that looks options up by name).
    pub fn from_invocation(inv: &Invocation) -> RmArgs {
        let m = &inv.matches;
        let mut events: Vec<(usize, Event)> = Vec::new();
        for (i, c) in inv.indexed::<String>("constraint") {
            events.push((i, Event::Constraint(c)));
        }
        for i in inv.occurrences("all") {
            events.push((i, Event::All));
        }
        for (i, n) in inv.indexed::<String>("name") {
            events.push((i, Event::Name(n)));
        }
        for (i, p) in inv.indexed::<String>("pool") {
            events.push((i, Event::Pool(p)));
        }
        for (i, a) in inv.indexed::<String>("addr") {
            events.push((i, Event::Addr(a)));
        }
        for (i, w) in inv.indexed::<String>(WORDS) {
            events.push((i, Event::Word(w)));
        }
        events.sort_by_key(|(i, _)| *i);
        RmArgs {
            version: m.get_flag("version"),
            forcex: m.get_flag("forcex"),
            fast: m.get_flag("fast"),
            subcode: m
                .get_one::<String>("subcode")
                .map(|text| match text.parse::<i64>() {
                    Ok(n) if n != i64::MIN => Ok(n),
                    _ => Err(text.clone()),
                }),
            events: events.into_iter().map(|(_, e)| e).collect(),
            held: m.get_flag("held"),
            reason: m.get_one::<String>("reason").cloned(),
            long: m.get_flag("long"),
            totals: m.get_flag("totals"),
        }
    }
}

fn run(
    mode: Mode,
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let args = RmArgs::from_invocation(inv);
    let name = mode.name();
    if args.version {
        writeln!(out, "{}", crate::config::condor_version())?;
        return Ok(());
    }
    let fail = |err: &mut dyn Write, msg: String| {
        let _ = writeln!(err, "{msg}");
        CommandError::Exit(1)
    };
    let mut action = mode.action();
    if args.forcex {
        if mode != Mode::Remove {
            let _ = writeln!(err, "-forcex is only valid with condor_rm");
            usage(mode, err);
            return Err(CommandError::Exit(1));
        }
        action = Action::RemoveX;
    }
    if args.fast {
        if mode != Mode::Vacate {
            let _ = writeln!(err, "-fast is only valid with condor_vacate_job");
            usage(mode, err);
            return Err(CommandError::Exit(1));
        }
        action = Action::VacateFast;
    }
    let subcode = match args.subcode {
        None => None,
        Some(Ok(n)) => Some(n),
        Some(Err(text)) => return Err(fail(err, format!("Invalid -subcode {text}!"))),
    };
    // rm.cpp reads the configuration before its arguments.
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    // The schedd of the last -name, when it is not this one.
    let mut elsewhere: Option<String> = None;
    // Why the schedd of -pool or -addr, when not this pool's, cannot be reached.
    let mut unreachable: Option<String> = None;

    let mut had_error = false;
    let mut constraint = Constraint {
        text: String::new(),
        kind: Kind::None,
    };
    let mut user_cluster = UserCluster {
        text: String::new(),
        kind: Kind::None,
    };
    let mut job_ids: Vec<JobId> = Vec::new();
    for event in args.events {
        match event {
            Event::Constraint(c) => {
                if c.starts_with('-') {
                    return Err(fail(
                        err,
                        format!("{name}: -constraint requires another argument"),
                    ));
                }
                constraint.add(&c, Kind::Simple);
            }
            Event::Name(n) => match session.locate_schedd(&n) {
                ScheddLocation::Local => elsewhere = None,
                ScheddLocation::UnknownHost(host) => {
                    return Err(fail(err, format!("{name}: unknown host {host}")));
                }
                ScheddLocation::NotFound(host) => elsewhere = Some(host),
            },
            Event::Pool(p) => match session.locate_pool(&p) {
                PoolLocation::Local => {}
                PoolLocation::UnknownHost(host) => {
                    return Err(fail(err, format!("{name}: unknown host {host}")));
                }
                // Its collector cannot be asked for the schedd's address.
                PoolLocation::Elsewhere(_) => {
                    unreachable = Some(format!(
                        "{name}: Can't find address for schedd {}",
                        session.schedd_name()
                    ))
                }
            },
            Event::Addr(a) if a.starts_with('-') => {
                return Err(fail(
                    err,
                    format!("{name}: -addr requires another argument"),
                ));
            }
            Event::Addr(a) if !is_valid_sinful(&a) => {
                return Err(fail(
                    err,
                    format!(
                        "{name}: \"{a}\" is not a valid address\nShould be of the form \
                         <ip.address.here:port>\nFor example: <123.456.789.123:6789>"
                    ),
                ));
            }
            Event::Addr(a) => {
                if !session.is_local_address(&a) {
                    unreachable = Some(format!("{name}: Failed to connect to {a}"));
                }
            }
            Event::All => {
                if constraint.kind != Kind::None || user_cluster.kind != Kind::None {
                    return Err(fail(
                        err,
                        format!("{name}: can't mix -all with other constraints"),
                    ));
                }
                constraint.add("ClusterId >= 0", Kind::All);
            }
            Event::Word(w) if w.starts_with('-') => {
                let _ = writeln!(err, "Unrecognized option: {w}");
                usage(mode, err);
                return Err(CommandError::Exit(1));
            }
            Event::Word(w) => {
                if constraint.kind == Kind::All {
                    usage(mode, err);
                    return Err(CommandError::Exit(1));
                }
                match JobIdSpec::parse_for_action(&w) {
                    Ok(JobIdSpec::Cluster(c)) => {
                        user_cluster.add(format!("ClusterId == {}", c.0), Kind::Cluster)
                    }
                    Ok(JobIdSpec::Job(j)) => job_ids.push(j),
                    Ok(JobIdSpec::Owner(o)) => {
                        user_cluster.add(format!("Owner == \"{o}\""), Kind::User)
                    }
                    Err(e @ JobIdError::Unrecognized(_)) => {
                        let _ = writeln!(err, "{e}");
                    }
                    Err(e) => {
                        let _ = writeln!(err, "{e}");
                        had_error = true;
                    }
                }
            }
        }
    }
    let held = args.held;
    if constraint.kind == Kind::None
        && user_cluster.kind == Kind::None
        && job_ids.is_empty()
        && !held
    {
        let _ = writeln!(err, "You did not specify any jobs");
        usage(mode, err);
        return Err(CommandError::Exit(1));
    }
    if held && !job_ids.is_empty() {
        for j in std::mem::take(&mut job_ids) {
            let one = format!("(ClusterId == {} && ProcId == {})", j.cluster.0, j.proc);
            if user_cluster.kind == Kind::None {
                user_cluster.text = one;
            } else {
                user_cluster.text.push_str(" || ");
                user_cluster.text.push_str(&one);
            }
            user_cluster.kind = Kind::Complex;
        }
    }
    let reason = args.reason.unwrap_or_else(|| default_reason(action));
    if let Some(why) = unreachable {
        return Err(fail(err, why));
    }
    if let Some(host) = elsewhere {
        // No collector knows another schedd: the lookup by name fails, nothing is done.
        return Err(fail(
            err,
            format!("Error: cannot get address of schedd {host}"),
        ));
    }
    let (long, totals) = (args.long, args.totals);
    let mut schedd =
        Schedd::connect(&session).map_err(|e| CommandError::failed(1, e.to_string()))?;
    let mut act = |target: Target| -> Result<Outcome, CommandError> {
        let request = Request {
            action,
            target,
            reason: reason.clone(),
            subcode: subcode.unwrap_or(0),
        };
        schedd.act(&session, &request).map_err(|e| match e {
            ActionError::Queue(q) => CommandError::failed(1, q.to_string()),
            // The schedd (here, the master running the jobs) cannot be reached.
            ActionError::Master(MasterError::NotRunning(_)) => CommandError::failed(
                1,
                format!(
                    "Can't find address for local schedd\nPerhaps you need to query another \
                     pool.\n{}",
                    start_hint(&session.config)
                ),
            ),
            other => CommandError::failed(1, other.to_string()),
        })
    };

    if !job_ids.is_empty() {
        if constraint.kind != Kind::None {
            let _ = writeln!(
                err,
                "Warning, -constraint is ignored for fully qualified job ids"
            );
        }
        let outcome = act(Target::Ids(job_ids.clone()))?;
        print_results(out, &outcome, action, long, totals, true)?;
        if outcome.success == 0 {
            had_error = true;
        }
        if had_error {
            let _ = writeln!(err);
        }
        for id in &job_ids {
            let (ok, msg) = result_message(action, *id, outcome.result_of(*id));
            if ok {
                writeln!(out, "{msg}")?;
            } else {
                out.flush()?;
                let _ = writeln!(err, "{msg}");
            }
        }
    }

    if user_cluster.kind != Kind::None {
        let text = user_cluster.text.clone();
        constraint.add(&text, user_cluster.kind);
    }
    if constraint.kind != Kind::None || held {
        let cmsg = match constraint.kind {
            Kind::None | Kind::All => String::new(),
            Kind::User => format!(
                " of user {}",
                constraint.text.split_once(" == ").map_or("", |(_, u)| u)
            ),
            Kind::Cluster => format!(
                " in cluster {}",
                constraint.text.split_once(" == ").map_or("", |(_, c)| c)
            ),
            _ => format!(" matching constraint ({})", constraint.text),
        };
        let mut text = constraint.text.clone();
        if held {
            if text.is_empty() {
                text = "JobStatus == 5".to_owned();
            } else {
                text.push_str(" && (JobStatus == 5)");
            }
        }
        let jobs_word = if held { "held jobs" } else { "jobs" };
        let outcome = act(Target::Constraint(text))?;
        print_results(out, &outcome, action, long, totals, !totals)?;
        let mut errstack = String::new();
        let worked = outcome.success > 0;
        if !worked {
            if outcome.total_job_ads > 0 {
                had_error = true;
            } else {
                errstack = format!("{name}:0:There are no jobs in the queue");
            }
        }
        if worked {
            writeln!(out, "All {jobs_word}{cmsg} have been {}", past(action))?;
        } else {
            out.flush()?;
            let _ = writeln!(err, "{errstack}");
            if had_error {
                let _ = writeln!(
                    err,
                    "Couldn't find/{} all {jobs_word}{cmsg}",
                    present(action)
                );
            }
        }
    }
    if had_error {
        Err(CommandError::Exit(1))
    } else {
        Ok(())
    }
}

/// `-long` (the result ad) and `-totals` (the counts) of one request.
fn print_results(
    out: &mut dyn Write,
    o: &Outcome,
    action: Action,
    long: bool,
    totals: bool,
    per_job: bool,
) -> std::io::Result<()> {
    if long {
        let ad = result_ad(per_job, action, o);
        let mut attrs: Vec<(&str, &crate::classad::Expr)> = ad.iter().collect();
        attrs.sort_by(|a, b| a.0.cmp(b.0));
        let mut text = String::new();
        crate::output::ads::write_long(&mut text, &attrs);
        text.push('\n');
        out.write_all(text.as_bytes())?;
    } else if totals {
        // A list of job ids asks for per-job results, which carry no totals.
        let t = if per_job { [0; 7] } else { o.totals() };
        writeln!(
            out,
            "{} Succeeded, {} Failed, {} Not Found, {} Bad Status, {} Already Done, {} Permission Denied",
            t[ActionResult::Success as usize],
            t[ActionResult::Error as usize],
            t[ActionResult::NotFound as usize],
            t[ActionResult::BadStatus as usize],
            t[ActionResult::AlreadyDone as usize],
            t[ActionResult::PermissionDenied as usize],
        )?;
    }
    Ok(())
}

/// The reason a tool gives when none is given (`via condor_rm`, ...).
pub(crate) fn default_reason(action: Action) -> String {
    match action {
        Action::Release => "via condor_release",
        Action::RemoveX => "via condor_rm -forcex",
        Action::Remove => "via condor_rm",
        Action::Hold => "via condor_hold",
        Action::Suspend => "via condor_suspend",
        Action::Continue => "via condor_continue",
        Action::Vacate | Action::VacateFast => "",
    }
    .to_owned()
}

/// `actionWord(action, true)`.
pub(crate) fn past(action: Action) -> &'static str {
    match action {
        Action::Release => "released",
        Action::Hold => "held",
        Action::Remove => "marked for removal",
        Action::RemoveX => "removed locally (remote state unknown)",
        Action::Vacate => "vacated",
        Action::VacateFast => "fast-vacated",
        Action::Suspend => "suspended",
        Action::Continue => "continued",
    }
}

/// `actionWord(action, false)`.
pub(crate) fn present(action: Action) -> &'static str {
    match action {
        Action::Release => "release",
        Action::Hold => "hold",
        Action::Remove | Action::RemoveX => "remove",
        Action::Vacate => "vacate",
        Action::VacateFast => "fast-vacate",
        Action::Suspend => "suspend",
        Action::Continue => "continue",
    }
}

/// One job's result line (`JobActionResults::getResultString`), and whether it is a success
/// (stdout) or not (stderr).
pub(crate) fn result_message(action: Action, id: JobId, result: ActionResult) -> (bool, String) {
    let msg = match result {
        ActionResult::Success => return (true, format!("Job {id} {}", past(action))),
        ActionResult::Error => format!("No result found for job {id}"),
        ActionResult::NotFound => format!("Job {id} not found"),
        ActionResult::PermissionDenied => {
            let verb = match action {
                Action::RemoveX => "force removal of",
                other => present(other),
            };
            format!("Permission denied to {verb} job {id}")
        }
        ActionResult::BadStatus => match action {
            Action::Release => format!("Job {id} not held to be released"),
            Action::RemoveX => format!("Job {id} not in `X' state to be forcibly removed"),
            Action::Vacate => format!("Job {id} not running to be vacated"),
            Action::VacateFast => format!("Job {id} not running to be fast-vacated"),
            Action::Suspend => format!("Job {id} not running to be suspended"),
            Action::Continue => format!("Job {id} not running to be continued"),
            _ => format!("Invalid result for job {id}"),
        },
        ActionResult::AlreadyDone => match action {
            Action::Hold => format!("Job {id} already held"),
            Action::Remove => format!("Job {id} already marked for removal"),
            Action::RemoveX => format!("Job {id} already marked for forced removal"),
            Action::Suspend => format!("Job {id} already suspended"),
            Action::Continue => format!("Job {id} already running"),
            _ => format!("Invalid result for job {id}"),
        },
        ActionResult::LimitExceeded => {
            format!("Job {id} cannot be released again, has reached SYSTEM_PERIODIC_RELEASES limit")
        }
    };
    (false, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(tool: &Tool, args: &[&str]) -> RmArgs {
        RmArgs::from_invocation(&tool.parse_words(args).expect("a valid command line"))
    }

    #[test]
    fn nothing_given() {
        assert_eq!(parse(&RM, &[]), RmArgs::default());
    }

    #[test]
    fn flags() {
        assert!(parse(&RM, &["-version"]).version);
        assert!(parse(&RM, &["-f"]).forcex);
        assert!(parse(&VACATE_JOB, &["-f"]).fast);
        assert!(parse(&HOLD, &["-fa"]).fast);
        assert!(parse(&HOLD, &["-fo"]).forcex);
        assert!(parse(&RM, &["-held"]).held);
        assert!(parse(&RM, &["-hold"]).held);
        assert!(parse(&RM, &["-l"]).long);
        assert!(parse(&RM, &["-tot"]).totals);
    }

    #[test]
    fn subcode() {
        assert_eq!(parse(&HOLD, &["-s", "12"]).subcode, Some(Ok(12)));
        assert_eq!(parse(&HOLD, &["-subcode", "-3"]).subcode, Some(Ok(-3)));
        assert_eq!(
            parse(&HOLD, &["-subcode", "x"]).subcode,
            Some(Err("x".to_owned()))
        );
    }

    #[test]
    fn reason() {
        let args = parse(&HOLD, &["-r", "because", "1.0"]);
        assert_eq!(args.reason.as_deref(), Some("because"));
    }

    #[test]
    fn selection_keeps_command_line_order() {
        let args = parse(&RM, &["alice", "-c", "x > 1", "-name", "s", "2.0", "-all"]);
        assert_eq!(
            args.events,
            [
                Event::Word("alice".into()),
                Event::Constraint("x > 1".into()),
                Event::Name("s".into()),
                Event::Word("2.0".into()),
                Event::All,
            ]
        );
    }
}
