//! `condor_prio`: change the priority (`JobPrio`) of queued jobs, as HTCondor's
//! src/condor_prio/prio.cpp does.
//!
//! `condor_prio (-p N | +N | -N) [-n schedd [-pool host]] (C | C.P | owner | -a)...`: `-p N` sets
//! the priority (`atoi`: `-p x` sets 0), `+N`/`-N` (a sign followed by a digit) adjust each job's
//! current priority, `-p` winning when both are given and the last of each counting. There is no
//! range: any int goes, and adjustments wrap as C ints do. Options are read first, then every
//! other word selects jobs, in order: a word starting with a digit is a cluster (`ClusterId ==
//! C`) or one job (`C.P`, strtol's reading: `5.` is 5.0), a word starting with `-a` is every job
//! in the queue, a word starting with a letter is an owner (`Owner == "word"`, the constraint
//! cut at 99 bytes as prio.cpp's buffer cuts it). Anything else is
//! `Warning: unrecognized "x" skipped`.
//!
//! The tool is silent when it succeeds, and exits 0 once it has reached the queue whatever
//! happened to each job: a job it cannot read (`Couldn't retrieve current priority for 5.1.`:
//! no such job, or no numeric `JobPrio`) or set (`Couldn't set new priority for 5.1.`: another
//! user's job for a user who is not a queue superuser, `JobPrio` immutable, or protected for
//! such a user) is reported on stderr and skipped. Each change is the schedd's
//! `SetAttributeInt(..., SHOULDLOG)`: it logs the attribute-update event (033, `Changing job
//! attribute JobPrio from 0 to 5`) in the job's event logs. The master is woken so that it
//! negotiates with the new order.
//!
//! Exit status 1: no arguments (usage), `-pool` without `-n`, a schedd that cannot be found
//! (`-n` naming another schedd: `No such schedd named X in local pool`, or `in pool P` when
//! `-pool` names a central manager other than this host), no priority or adjustment (`You must
//! specify a new priority or priority adjustment.` and usage), a queue that cannot be opened
//! (`Failed to connect to queue manager <addr>`).
//!
//! Where condorlite differs: the tool names itself `condor_prio` (prio.cpp prints its
//! `argv[0]`); an option missing its value is reported by the shared argument parser
//! (`condor_prio: -n requires an argument`; prio.cpp says "another argument", and crashes for
//! `-p`); `-help` describes the options and exits 0 (prio.cpp takes it for a job selection).
//! As in prio.cpp, `-n` and `-pool` must be spelled out (`-name` is an unrecognized word, and
//! the word after it an owner); one transaction changes the jobs of one selection (prio.cpp
//! makes one `SetAttribute` call per job).

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::classad::cnum::{atoi, strtol};
use crate::classad::parser::parse_old_expr;
use crate::classad::ClassAd;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::edit::JOB_PRIO;
use crate::client::locate::PoolLocation;
use crate::client::schedd::Schedd;
use crate::client::{ScheddLocation, Session};
use crate::error::CommandError;
use crate::queue::{ClusterId, JobId, JobIdSpec, JobQuery, Queue, QueueError};

pub const TOOL: Tool = Tool {
    name: NAME,
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

const NAME: &str = "condor_prio";

/// prio.cpp compares its options with `strcmp`: no abbreviations.
const PREFIXES: &[Prefix] = &[
    Prefix::exact("p"),
    Prefix::exact("pool"),
    Prefix::exact("n"),
    Prefix::exact("help"),
];

/// The positional argument: adjustments and job selections, in command-line order.
const WORDS: &str = "words";

pub fn command() -> Command {
    Command::new(NAME)
        .about("Change the priority of jobs in the queue")
        .after_help(
            "Give a new priority with -p, or an adjustment: +N raises each job's priority by N, \
             -N lowers it. Jobs are CLUSTER, CLUSTER.PROC, an owner's name, or -a for all jobs. \
             Exit status: 0 once the queue was reached (jobs that could not be changed are \
             reported), 1 for a bad command line or an unreachable schedd.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Display this screen"),
        )
        .arg(
            Arg::new("p")
                .long("p")
                .value_name("PRIORITY")
                .action(ArgAction::Append)
                .help("Set the priority to PRIORITY"),
        )
        .arg(
            Arg::new("n")
                .long("n")
                .value_name("SCHEDD")
                .action(ArgAction::Append)
                .help("Change jobs queued at this condor_schedd"),
        )
        .arg(
            Arg::new("pool")
                .long("pool")
                .value_name("HOST")
                .action(ArgAction::Append)
                .help("Find the schedd through this central manager (needs -n)"),
        )
        .arg(
            Arg::new(WORDS)
                .value_name("ARG")
                .action(ArgAction::Append)
                .help("+N or -N, then CLUSTER, CLUSTER.PROC, OWNER or -a"),
        )
}

/// prio.cpp's `usage()` (to stderr).
fn usage(err: &mut dyn Write) {
    let _ = writeln!(
        err,
        "Usage: {NAME} [{{+|-}}priority ] [-p priority] [ -a ] [-n schedd_name] \
         [ -pool pool_name ] [user | cluster | cluster.proc | -a] ..."
    );
}

/// condor_prio's command line, parsed once.
#[derive(Debug, Default, PartialEq, Eq)]
struct PrioArgs {
    /// `-p N` (the last one given), read as C's `atoi`.
    priority: Option<i32>,
    /// `+N`/`-N` (the last one given).
    adjustment: Option<i32>,
    /// The job selections (`CLUSTER`, `CLUSTER.PROC`, an owner, `-a`), in order.
    args: Vec<String>,
    /// `-n SCHEDD` (the last one given).
    schedd: Option<String>,
    /// `-pool HOST` (the last one given).
    pool: Option<String>,
}

impl PrioArgs {
    /// Reads the parsed command line (the only place that looks options up by name).
    fn from_invocation(inv: &Invocation) -> PrioArgs {
        let m = &inv.matches;
        let last = |id: &str| {
            m.get_many::<String>(id)
                .and_then(|mut v| v.next_back().cloned())
        };
        let mut parsed = PrioArgs {
            priority: last("p").as_deref().map(atoi),
            schedd: last("n"),
            pool: last("pool"),
            ..PrioArgs::default()
        };
        for (_, word) in inv.indexed::<String>(WORDS) {
            match adjustment(&word) {
                Some(adj) => parsed.adjustment = Some(adj),
                None => parsed.args.push(word),
            }
        }
        parsed
    }

    /// `calc_prio`: the new priority of a job whose priority is `old`.
    fn new_priority(&self, old: i32) -> i32 {
        match (self.priority, self.adjustment) {
            (None, Some(adj)) => old.wrapping_add(adj),
            (p, _) => p.unwrap_or(0),
        }
    }
}

/// `compute_adj`: `+N` or `-N` as a number.
fn adjustment(word: &str) -> Option<i32> {
    let mut chars = word.chars();
    let sign = chars.next()?;
    let digit = chars.next()?;
    if !matches!(sign, '+' | '-') || !digit.is_ascii_digit() {
        return None;
    }
    let value = atoi(&word[1..]);
    Some(if sign == '-' {
        value.wrapping_neg()
    } else {
        value
    })
}

/// prio.cpp prints nothing on stdout.
pub fn run(
    inv: &Invocation,
    _out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    // prio.cpp reads the configuration first.
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let request = PrioArgs::from_invocation(inv);
    let (n, pool) = (&request.schedd, &request.pool);
    if request.priority.is_none()
        && n.is_none()
        && pool.is_none()
        && request.adjustment.is_none()
        && request.args.is_empty()
    {
        usage(err);
        return Err(CommandError::Exit(1));
    }
    if pool.is_some() && n.is_none() {
        let _ = writeln!(err, "{NAME}: -pool also requires -n to be specified");
        return Err(CommandError::Exit(1));
    }

    if let Some(name) = n {
        let found = match pool {
            Some(pool) if session.locate_pool(pool) != PoolLocation::Local => false,
            _ => session.locate_schedd(name) == ScheddLocation::Local,
        };
        if !found {
            match pool {
                None => {
                    let _ = writeln!(err, "{NAME}: No such schedd named {name} in local pool");
                }
                Some(pool) => {
                    let _ = writeln!(err, "{NAME}: No such schedd named {name} in pool {pool}");
                }
            }
            return Err(CommandError::Exit(1));
        }
    }
    if request.priority.is_none() && request.adjustment.is_none() {
        let _ = writeln!(
            err,
            "You must specify a new priority or priority adjustment."
        );
        usage(err);
        return Err(CommandError::Exit(1));
    }
    // prio.cpp connects to the queue before it reads an argument.
    let connected = Schedd::connect(&session).and_then(|mut s| {
        s.reader(&session)?;
        Ok(s)
    });
    let Ok(mut schedd) = connected else {
        let _ = writeln!(
            err,
            "Failed to connect to queue manager {}",
            session.schedd_address()
        );
        return Err(CommandError::Exit(1));
    };
    let mut changed = false;
    for arg in &request.args {
        let queue = schedd
            .reader(&session)
            .map_err(|e| CommandError::failed(1, e.to_string()))?;
        let selected =
            select(queue, arg, err).map_err(|e| CommandError::failed(1, e.to_string()))?;
        if selected.is_empty() {
            continue;
        }
        let changes: Vec<(JobId, i32)> = selected
            .iter()
            .map(|&(id, old)| (id, request.new_priority(old)))
            .collect();
        let refused = schedd
            .set_priorities(&session, &changes)
            .map_err(|e| CommandError::failed(1, e.to_string()))?;
        // prio.cpp reports each failure as it goes; the jobs are in the order selected.
        for &(id, _) in &selected {
            if refused.contains(&id) {
                let _ = writeln!(
                    err,
                    "Couldn't set new priority for {}.{}.",
                    id.cluster.0, id.proc
                );
            }
        }
        changed |= refused.len() < changes.len();
    }
    if changed {
        crate::client::master::wake(&session.config);
    }
    Ok(())
}

/// `ProcArg`'s first half: the jobs one argument selects, with their current priorities.
/// Jobs whose priority cannot be read are reported and left out.
fn select(queue: &Queue, arg: &str, err: &mut dyn Write) -> Result<Vec<(JobId, i32)>, QueueError> {
    let mut selected = Vec::new();
    let first = arg.as_bytes().first().copied().unwrap_or(0);
    if first.is_ascii_digit() {
        let (cluster, used) = strtol(arg.as_bytes());
        let cluster = cluster as i32;
        if cluster <= 0 {
            let _ = writeln!(err, "Invalid cluster # from {arg}");
            return Ok(selected);
        }
        let rest = &arg[used..];
        if rest.is_empty() {
            let query = JobQuery::ids([JobIdSpec::Cluster(ClusterId(cluster))]);
            for job in crate::client::select::jobs(queue, &query)? {
                let job = job?;
                match projected_prio(job.ad()?) {
                    Some(prio) => selected.push((job.id(), prio)),
                    None => {
                        let _ = writeln!(
                            err,
                            "Couldn't retrieve current proc or priority for {cluster}."
                        );
                    }
                }
            }
        } else if let Some(after) = rest.strip_prefix('.') {
            let (proc, used) = strtol(after.as_bytes());
            let proc = proc as i32;
            if proc < 0 {
                let _ = writeln!(err, "Invalid proc # from {arg}");
                return Ok(selected);
            }
            if !after[used..].is_empty() {
                let _ = writeln!(err, "Warning: unrecognized \"{arg}\" skipped");
                return Ok(selected);
            }
            let id = JobId::new(cluster, proc);
            // GetAttributeInt: the job's whole ad.
            let prio = queue
                .job(id)?
                .map(|job| job.into_ad())
                .transpose()?
                .and_then(|ad| ad.eval_attr(JOB_PRIO).as_number_int());
            match prio {
                Some(prio) => selected.push((id, prio as i32)),
                None => {
                    let _ = writeln!(
                        err,
                        "Couldn't retrieve current priority for {cluster}.{proc}."
                    );
                }
            }
        } else {
            let _ = writeln!(err, "Warning: unrecognized \"{arg}\" skipped");
        }
        return Ok(selected);
    }
    let query = if arg.starts_with("-a") {
        JobQuery::all()
    } else if first.is_ascii_alphabetic() {
        match owner_query(arg) {
            Some(query) => query,
            // The cut constraint does not parse: the query fails, nothing is selected.
            None => return Ok(selected),
        }
    } else {
        let _ = writeln!(err, "Warning: unrecognized \"{arg}\" skipped");
        return Ok(selected);
    };
    for job in crate::client::select::jobs(queue, &query)? {
        let job = job?;
        match projected_prio(job.ad()?) {
            Some(prio) => selected.push((job.id(), prio)),
            None => {
                let id = job.id();
                let _ = writeln!(
                    err,
                    "Couldn't retrieve priority for {}.{}.",
                    id.cluster.0, id.proc
                );
            }
        }
    }
    Ok(selected)
}

/// The query for `Owner == "<arg>"`, as prio.cpp writes it into a 100-byte buffer: a longer
/// constraint is cut, and one that no longer parses selects nothing (`None`).
fn owner_query(arg: &str) -> Option<JobQuery> {
    let mut text = format!("Owner == \"{arg}\"");
    if text.len() > 99 {
        let mut end = 99;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    let expr = parse_old_expr(&text).ok()?;
    // The constraint as written, when it is the plain comparison the store's owner index
    // answers (`Owner == "x"` compares without case, as the index does).
    let plain = !arg.contains(['"', '\\']) && text.ends_with('"') && text.len() == arg.len() + 11;
    Some(if plain {
        JobQuery::ids([JobIdSpec::Owner(arg.to_owned())])
    } else {
        JobQuery::all().with_constraint(expr)
    })
}

/// `JobPrio` as `GetAllJobsByConstraint` with the projection `ClusterId,ProcId,JobPrio`
/// returns it: evaluated in an ad holding only those three attributes (`LookupInteger`: an
/// int, or a real or boolean converted).
fn projected_prio(job: &ClassAd) -> Option<i32> {
    let mut projected = ClassAd::new();
    for attr in ["ClusterId", "ProcId", JOB_PRIO] {
        if let Some(e) = job.lookup(attr) {
            projected.insert(attr, e.clone());
        }
    }
    projected
        .eval_attr(JOB_PRIO)
        .as_number_int()
        .map(|p| p as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> PrioArgs {
        PrioArgs::from_invocation(&TOOL.parse_words(args).expect("a valid command line"))
    }

    #[test]
    fn command_line() {
        assert_eq!(parse(&[]), PrioArgs::default());
        let args = parse(&["-p", "3x", "-p", "5", "-n", "s1", "-n", "s2", "-pool", "cm"]);
        assert_eq!(args.priority, Some(5));
        assert_eq!(args.schedd.as_deref(), Some("s2"));
        assert_eq!(args.pool.as_deref(), Some("cm"));
        let args = parse(&["+2", "alice", "-3", "4.0", "-a"]);
        assert_eq!(args.adjustment, Some(-3));
        assert_eq!(args.args, ["alice", "4.0", "-a"]);
    }

    #[test]
    fn adjustments_and_priorities() {
        assert_eq!(adjustment("+5"), Some(5));
        assert_eq!(adjustment("-12"), Some(-12));
        assert_eq!(adjustment("-5x"), Some(-5));
        assert_eq!(adjustment("-a"), None);
        assert_eq!(adjustment("+"), None);
        assert_eq!(adjustment("5"), None);
        let set = PrioArgs {
            priority: Some(7),
            adjustment: Some(3),
            ..PrioArgs::default()
        };
        assert_eq!(set.new_priority(100), 7, "-p wins over an adjustment");
        let adjust = PrioArgs {
            adjustment: Some(-3),
            ..PrioArgs::default()
        };
        assert_eq!(adjust.new_priority(1), -2);
        assert_eq!(
            PrioArgs {
                adjustment: Some(1),
                ..PrioArgs::default()
            }
            .new_priority(i32::MAX),
            i32::MIN,
            "an int wraps"
        );
    }

    #[test]
    fn owner_constraints_are_cut_at_99_bytes() {
        assert!(owner_query("alice").is_some());
        // 88 characters fit with the quotes; one more cuts the closing quote off.
        assert!(owner_query(&"a".repeat(88)).is_some());
        assert!(owner_query(&"a".repeat(89)).is_none());
    }

    #[test]
    fn projected_priorities_see_only_the_projection() {
        let ad =
            crate::classad::parse_ad("[ JobPrio = Base + 1; Base = 4; ClusterId = 1 ]").unwrap();
        assert_eq!(projected_prio(&ad), None);
        let ad = crate::classad::parse_ad("[ JobPrio = ClusterId * 2; ClusterId = 3 ]").unwrap();
        assert_eq!(projected_prio(&ad), Some(6));
        let ad = crate::classad::parse_ad("[ JobPrio = 2.9 ]").unwrap();
        assert_eq!(projected_prio(&ad), Some(2));
    }
}
