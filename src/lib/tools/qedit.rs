//! `condor_qedit`: set job attributes to ClassAd expressions, as HTCondor's
//! src/condor_tools/qedit.cpp does.
//!
//! `condor_qedit <restrictions> <edits>`: the first bare word names the jobs (job or
//! cluster ids, while words start with a digit, or one owner), `-constraint`, `-owner` and
//! `-jobids` restrict further; every word after that is an edit, `Attr value` or
//! `Attr=value`. With only `-constraint`, only the user's own jobs are edited
//! (`CONDOR_Q_ONLY_MY_JOBS`). All edits are one transaction: one failure (another user's
//! job, no job matching, an immutable attribute) sets nothing. For each attribute, in name
//! order, it prints `Set attribute "Attr" for N matching jobs.`; `-dry-run` says what it
//! could set and sets nothing.

use std::collections::BTreeMap;
use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::options::schedd_and_pool;
use super::Tool;
use crate::classad::parser::parse_old_expr;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::edit::EditRequest;
use crate::client::jobattr::{protection, valid_attr_name};
use crate::client::locate::PoolLocation;
use crate::client::master::{start_hint, MasterError};
use crate::client::schedd::{Schedd, ScheddError};
use crate::client::{ScheddLocation, Session};
use crate::error::CommandError;
use crate::queue::job_id_key;

pub const TOOL: Tool = Tool {
    name: "condor_qedit",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

const NAME: &str = "condor_qedit";

/// qedit.cpp's tests, in order.
const PREFIXES: &[Prefix] = &[
    Prefix::min("help", 1),
    Prefix::min("name", 1),
    Prefix::min("pool", 1),
    Prefix::min("debug", 1).qualified(),
    Prefix::min("dry-run", 3),
    Prefix::min("constraint", 1),
    Prefix::min("owner", 1),
    Prefix::min("jobids", 1),
    Prefix::min("forward", 3),
];

pub fn command() -> Command {
    Command::new(NAME)
        .about("Edit the attributes of queued jobs")
        .after_help(
            "Restrictions come first (job ids, an owner, -constraint, -owner, -jobids), then \
             edits (Attr value, or Attr=value). Exit status: 0 when every edit was made, 1 \
             when none was.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Display this screen"),
        )
        .args(schedd_and_pool())
        .arg(
            Arg::new("debug")
                .long("debug")
                .action(ArgAction::SetTrue)
                .help("Display debugging info to console"),
        )
        .arg(
            Arg::new("dry-run")
                .long("dry-run")
                .action(ArgAction::SetTrue)
                .help("Display whether edit is allowed"),
        )
        .arg(
            Arg::new("constraint")
                .long("constraint")
                .value_name("EXPR")
                .action(ArgAction::Append)
                .help("Edit jobs that match EXPR"),
        )
        .arg(
            Arg::new("owner")
                .long("owner")
                .value_name("OWNER")
                .action(ArgAction::Append)
                .help("Edit jobs owned by OWNER"),
        )
        .arg(
            Arg::new("jobids")
                .long("jobids")
                .value_name("ID-LIST")
                .action(ArgAction::Append)
                .help("Edit jobs in the comma-separated ID-LIST"),
        )
        .arg(
            Arg::new("forward")
                .long("forward")
                .action(ArgAction::SetTrue)
                .help("Forward changes to shadow/gridmanager"),
        )
        .arg(
            Arg::new("words")
                .value_name("ARG")
                .action(ArgAction::Append)
                .help("Job ids or an owner, then Attr value pairs or Attr=value"),
        )
}

/// qedit.cpp's usage text (to stderr: it is shown for errors).
fn usage(err: &mut dyn Write) {
    let text = format!(
        "Usage: {NAME} [help-opts] [general-opts] <restriction-list> <edit-list>\n\
         \n    [help-opts] are:\n\
         \t-help\t\t   Display this screen\n\
         \t-debug\t\t   Display debugging info to console\n\
         \t-dry-run\t   Display whether edit is allowed\n\
         \n    [general-opts] are:\n\
         \t-name <name>\t   Name of Scheduler\n\
         \t-pool <pool>\t   Use host as the central manager to query\n\
         \t-forward\t   Forward changes to shadow/gridmanager\n\
         \n    <restriction-list> is one or more of:\n\
         \t<cluster>\t   Edit jobs in a specific cluster\n\
         \t<cluster>.<proc>   Edit a specific job\n\
         \t<owner>\t\t   Edit jobs owned by <owner>\n\
         \t-jobids <id-list>  Edit jobs in <id-list>\n\
         \t-owner <owner>     Edit jobs owned by <owner>\n\
         \t-constraint <expr> Edit jobs that match <expr>\n\
         \n    <edit-list> is a set of <attr> and <value> pairs, in one of two forms\n\
         \t<attr> <value>\t   Two argument form, alternate <attr> and <value>\n\
         \t<attr>=<value>\t   Single argument form, = separates <attr> and <value>\n\
         \t-edits[:<form>] <file> Read edits from <file> in ClassAd format.\n\
         \t           where <form> is one of:\n\
         \t       auto    default, guess the format from reading the input stream\n\
         \t       long    The traditional -long form\n\
         \t       xml     XML form, the same as -xml\n\
         \t       json    JSON classad form, the same as -json\n\
         \t       new     'new' classad form without newlines\n\
         \nAt least one restriction and one edit must be specified, restrictions must be\n\
         first. The restriction-list should be: a list of job and/or cluster ids, a\n\
         single owner name, or one or more of -owner, -jobids, -constraint arguments.\n\
         If both owner and jobids are specified, only jobs that match both will be\n\
         edited. If a -constraint argument is also provided, only jobs that also match\n\
         the constraint will be edited.\n\
         If only a -constraint argument is provided, jobs not owned by the current user\n\
         will be ignored unless the current user is a queue superuser.\n\
         \nOnce a restriction has been specified, all remaining arguments that do not\n\
         start with a - are part of the <edit-list>.  An argument that contains = will\n\
         be treated as an <attr>=<value> pair, otherwise arguments should alternate\n\
         between <attr> and <value>\n"
    );
    let _ = err.write_all(text.as_bytes());
}

/// A restriction or edit argument, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Event {
    /// `-constraint EXPR`.
    Constraint(String),
    /// `-owner OWNER`.
    Owner(String),
    /// `-jobids ID-LIST`.
    JobIds(String),
    /// `-name SCHEDD`.
    Name(String),
    /// `-pool HOST`.
    Pool(String),
    /// A positional word: a job id, an owner, an attribute, a value, or an unknown dash word.
    Word(String),
}

/// condor_qedit's command line, parsed once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct QeditArgs {
    /// `-constraint`, `-owner`, `-jobids` and the positional words, in command-line order.
    events: Vec<Event>,
    /// `-dry-run`: say whether each edit is allowed, change nothing.
    dry_run: bool,
}

impl QeditArgs {
    /// Reads the parsed command line (the only place that looks options up by name).
    fn from_invocation(inv: &Invocation) -> QeditArgs {
        let mut events: Vec<(usize, Event)> = Vec::new();
        for (i, c) in inv.indexed::<String>("constraint") {
            events.push((i, Event::Constraint(c)));
        }
        for (i, o) in inv.indexed::<String>("owner") {
            events.push((i, Event::Owner(o)));
        }
        for (i, j) in inv.indexed::<String>("jobids") {
            events.push((i, Event::JobIds(j)));
        }
        for (i, n) in inv.indexed::<String>("name") {
            events.push((i, Event::Name(n)));
        }
        for (i, p) in inv.indexed::<String>("pool") {
            events.push((i, Event::Pool(p)));
        }
        for (i, w) in inv.indexed::<String>("words") {
            events.push((i, Event::Word(w)));
        }
        events.sort_by_key(|(i, _)| *i);
        QeditArgs {
            events: events.into_iter().map(|(_, e)| e).collect(),
            dry_run: inv.matches.get_flag("dry-run"),
        }
    }
}

/// `makeJobidConstraint`: the ids as a constraint, cluster by cluster.
fn jobid_constraint(ids: &[(i32, i32)]) -> String {
    let mut out = String::new();
    let mut cluster = -1;
    let mut procs: Vec<i32> = Vec::new();
    let append = |out: &mut String, cluster: i32, procs: &[i32]| {
        if cluster <= 0 {
            return;
        }
        if procs.is_empty() {
            out.push_str(&format!("ClusterId == {cluster} "));
        } else {
            out.push_str(&format!("( ClusterId == {cluster} && "));
            if procs.len() > 1 {
                out.push('(');
                let parts: Vec<String> = procs.iter().map(|p| format!("ProcId == {p} ")).collect();
                out.push_str(&parts.join(" || "));
                out.push(')');
            } else {
                out.push_str(&format!("ProcId == {} ", procs[0]));
            }
            out.push(')');
        }
    };
    for &(c, p) in ids {
        if c != cluster {
            if !out.is_empty() {
                out.push_str("|| ");
            }
            append(&mut out, cluster, &procs);
            procs.clear();
            cluster = c;
        }
        if p >= 0 && !procs.contains(&p) {
            procs.push(p);
        }
    }
    if !out.is_empty() {
        out.push_str("|| ");
    }
    append(&mut out, cluster, &procs);
    out
}

/// `GenericQuery::makeQuery` with AND constraints only.
fn and_query(parts: &[String]) -> String {
    if parts.is_empty() {
        return String::new();
    }
    let mut q = String::from("(");
    for (i, p) in parts.iter().enumerate() {
        q.push_str(if i == 0 { " " } else { " && " });
        q.push('(');
        q.push_str(p);
        q.push(')');
    }
    q.push_str(" )");
    q
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let QeditArgs { events, dry_run } = QeditArgs::from_invocation(inv);

    let mut and_parts: Vec<String> = Vec::new();
    let mut job_list: Vec<String> = Vec::new();
    let mut only_my_jobs = true;
    let mut bare_identifies_jobs = true;
    let mut arbitrary_constraint = false;
    let mut aborted = false;
    let mut edits: BTreeMap<String, String> = BTreeMap::new();
    let (mut schedd_name, mut pool_name): (Option<String>, Option<String>) = (None, None);
    let mut events = events.into_iter().peekable();
    while let Some(event) = events.next() {
        match event {
            Event::Name(n) if n.starts_with('-') => {
                let _ = writeln!(err, "{NAME}: -name requires a SCHEDD name as an argument");
                return Err(CommandError::Exit(1));
            }
            Event::Pool(p) if p.starts_with('-') => {
                let _ = writeln!(
                    err,
                    "{NAME}: -pool requires a HTCondor collector name or address as an argument"
                );
                return Err(CommandError::Exit(1));
            }
            Event::Name(n) => schedd_name = Some(n),
            Event::Pool(p) => pool_name = Some(p),
            Event::Constraint(c) => {
                if parse_old_expr(&c).is_err() {
                    let _ = writeln!(err, "{NAME}: invalid constraint: {c}");
                    return Err(CommandError::Exit(1));
                }
                and_parts.push(c);
                bare_identifies_jobs = false;
                arbitrary_constraint = true;
            }
            Event::Owner(o) => {
                if o.starts_with('-') {
                    let _ = writeln!(err, "{NAME}: -owner requires a owner name argument");
                    return Err(CommandError::Exit(1));
                }
                and_parts.push(format!("Owner==\"{o}\""));
                bare_identifies_jobs = false;
                only_my_jobs = false;
            }
            Event::JobIds(list) => {
                if list.starts_with('-') {
                    let _ = writeln!(
                        err,
                        "{NAME}: -jobids requires a list of job ids as an argument"
                    );
                    return Err(CommandError::Exit(1));
                }
                job_list.extend(
                    list.split([',', ' ', '\t'])
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned),
                );
                bare_identifies_jobs = false;
                only_my_jobs = false;
            }
            Event::Word(w) if w.starts_with('-') && w.len() > 1 => {
                let _ = writeln!(err, "{NAME}: {w} is not a valid option");
                usage(err);
                return Err(CommandError::Exit(1));
            }
            Event::Word(w) if bare_identifies_jobs => {
                bare_identifies_jobs = false;
                only_my_jobs = false;
                if w.starts_with(|c: char| c.is_ascii_digit()) {
                    job_list.push(w);
                    while let Some(Event::Word(next)) = events.peek() {
                        if !next.starts_with(|c: char| c.is_ascii_digit()) {
                            break;
                        }
                        let Some(Event::Word(next)) = events.next() else {
                            unreachable!()
                        };
                        job_list.push(next);
                    }
                } else {
                    and_parts.push(format!("Owner==\"{w}\""));
                }
            }
            Event::Word(w) => {
                let (attr, value) = match w.split_once('=') {
                    Some((a, v)) => (a.trim().to_owned(), v.trim().to_owned()),
                    None => match events.next() {
                        Some(Event::Word(v)) => (w.clone(), v),
                        _ => {
                            let _ =
                                writeln!(err, "{NAME} : expression required after attribute {w}");
                            usage(err);
                            return Err(CommandError::Exit(1));
                        }
                    },
                };
                if attr.trim().is_empty() || !valid_attr_name(&attr) {
                    let _ = writeln!(
                        err,
                        "Update aborted, illegal attribute-name specified for attribute \"{attr}\"."
                    );
                    aborted = true;
                    break;
                }
                if value.trim().is_empty()
                    || value.contains(['\n', '\r'])
                    || parse_old_expr(&value).is_err()
                {
                    let _ = writeln!(err, "Update aborted, illegal value for : {attr}");
                    aborted = true;
                    break;
                }
                edits.insert(attr, value);
            }
        }
    }

    let mut ids: Vec<(i32, i32)> = job_list.iter().map(|j| job_id_key(j)).collect();
    ids.sort_unstable();
    ids.dedup();
    let have_cluster_id = ids.iter().any(|(_, p)| *p < 0);
    let mut query = and_query(&and_parts);
    if !ids.is_empty() && (have_cluster_id || !query.is_empty()) {
        and_parts.push(jobid_constraint(&ids));
        query = and_query(&and_parts);
        ids.clear();
    }
    let can_do_cluster_edits =
        !arbitrary_constraint && job_list.iter().all(|j| job_id_key(j).1 < 0);

    if !aborted {
        if ids.is_empty() && query.is_empty() {
            if !edits.is_empty() {
                let _ = writeln!(
                    err,
                    "{NAME} : Error - there were no jobs specified.\n\tuse -constraint, jobid or owner argument to indicate which jobs to edit"
                );
            }
            usage(err);
            return Err(CommandError::Exit(1));
        }
        if edits.is_empty() {
            let _ = writeln!(err, "{NAME} : Error - no attributes specifed.");
            usage(err);
            return Err(CommandError::Exit(1));
        }
    }

    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    if !aborted {
        for attr in edits.keys() {
            if let Some(kind) = protection(&session, attr).filter(|k| *k != "protected") {
                let _ = writeln!(err, "Update of {kind} attribute \"{attr}\" is not allowed.");
                aborted = true;
            }
        }
    }
    if aborted {
        let _ = writeln!(err, "Transaction failed.  No attributes were set.");
        return Err(CommandError::Exit(1));
    }
    // qedit.cpp locates the schedd (by -name, through -pool's collector) after the checks.
    let found = pool_name
        .as_deref()
        .is_none_or(|p| session.locate_pool(p) == PoolLocation::Local)
        && schedd_name
            .as_deref()
            .is_none_or(|n| session.locate_schedd(n) == ScheddLocation::Local);
    if !found {
        match &schedd_name {
            None => {
                let _ = writeln!(err, "{NAME}: ERROR: Can't find address of local schedd");
            }
            Some(n) => {
                let pool = pool_name.as_deref().unwrap_or("local");
                let _ = writeln!(err, "{NAME}: No such schedd named {n} in {pool} pool");
            }
        }
        return Err(CommandError::Exit(1));
    }

    let request = EditRequest {
        edits: edits.into_iter().collect(),
        ids,
        query,
        only_my_jobs,
        dry_run,
        cluster_edits: can_do_cluster_edits,
    };
    let edited = Schedd::connect(&session)
        .and_then(|mut schedd| schedd.edit(&session, &request))
        .map_err(|e| match e {
            ScheddError::Master(MasterError::NotRunning(_)) => CommandError::failed(
                1,
                format!(
                    "{NAME}: ERROR: Can't find address of local schedd\n{}",
                    start_hint(&session.config)
                ),
            ),
            e => CommandError::failed(1, e.to_string()),
        })?;
    out.write_all(edited.printed.as_bytes())?;
    match edited.failure {
        None => match edited.error {
            None => Ok(()),
            Some(e) => Err(CommandError::failed(1, e)),
        },
        Some(msg) => {
            out.flush()?;
            let _ = writeln!(err, "{msg}");
            let _ = writeln!(err, "Queue transaction failed.  No attributes were set.");
            Err(CommandError::Exit(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> QeditArgs {
        QeditArgs::from_invocation(&TOOL.parse_words(args).expect("a valid command line"))
    }

    #[test]
    fn command_line() {
        assert_eq!(parse(&[]), QeditArgs::default());
        assert!(parse(&["-dry", "1", "A", "2"]).dry_run);
        let args = parse(&["-j", "1,2", "-o", "bob", "-c", "x", "3.0", "-bogus", "A=1"]);
        assert!(!args.dry_run);
        assert_eq!(
            args.events,
            [
                Event::JobIds("1,2".into()),
                Event::Owner("bob".into()),
                Event::Constraint("x".into()),
                Event::Word("3.0".into()),
                Event::Word("-bogus".into()),
                Event::Word("A=1".into()),
            ]
        );
    }

    #[test]
    fn job_id_constraints() {
        assert_eq!(jobid_constraint(&[(5, -1)]), "ClusterId == 5 ");
        assert_eq!(
            jobid_constraint(&[(5, 0), (5, 1), (6, 2)]),
            "( ClusterId == 5 && (ProcId == 0  || ProcId == 1 ))|| ( ClusterId == 6 && ProcId == 2 )"
        );
        assert_eq!(and_query(&["a".into(), "b".into()]), "( (a) && (b) )");
        assert_eq!(job_id_key("12.3"), (12, 3));
        assert_eq!(job_id_key("12"), (12, -1));
    }
}
