//! `condor_submit`: turns a submit description into jobs in the local queue, as HTCondor's
//! src/condor_submit.V6/submit.cpp does, with condorlite's queue store standing in for the
//! schedd.
//!
//! The command line is resolved into a [`SubmitArgs`] first (file or standard input, `key=value`
//! assignments, `-append`, `-queue`, `-batch-name`, `-terse`, `-verbose`, `-dry-run`,
//! `-maxjobs`, `-name`/`-remote`). The submit library ([`crate::submit`]) makes the job ads;
//! this module adds what condor_submit and the schedd add around it:
//! - one queue transaction for the whole submit: every proc of every cluster lands, or none
//!   does (an error anywhere, `-maxjobs` exceeded, or the process killed);
//! - what the schedd fills in: `Owner` (the submitting user) and `User` (`owner@UID_DOMAIN`)
//!   in each cluster ad, `TotalSubmitProcs` (the queue store);
//! - condor_submit's executable checks (`Can't access executable file`, zero length, a `#!`
//!   script with CRLF line endings unless `-allow-crlf-script`);
//! - stdout and stderr texts as submit.cpp prints them, and exit status 1 on any error;
//! - the submit event (000) for each proc in its job event log, written after the commit;
//! - waking the daemon afterwards ([`crate::client::master::wake`]), or, when none runs for
//!   the pool, saying so on stderr (once, unless `CONDORLITE_WARN_NO_MASTER` is false): the
//!   jobs wait in the queue for a `condor_master`. A pool running inside this process
//!   (`condor_run`'s) listens on the socket as a master does, so nothing is said there.
//!
//! `-dry-run FILE` runs HTCondor's simulated schedd (submit_simulate.cpp): clusters from 1 (or
//! `-dry-run:cluster=N`), a blank line per proc then its attributes as `Name=value`, the
//! cluster ad before proc 0; nothing touches the queue. `-dump FILE` writes the same to FILE
//! as `Storing job ClassAd(s)` (`-dump -`: to stdout, and nothing else there), without the
//! executable checks.
//!
//! After the jobs, the definitions that nothing used are warned about as condor_submit warns
//! (`WARNING: the line 'x = y' was unused by condor_submit. Is it a typo?`,
//! [`SubmitFile::unused_warnings`]), unless `WARN_ON_UNUSED_SUBMIT_FILE_MACROS` is false;
//! each `-unused` turns that around.
//!
//! `-spool` (and `-remote`) make the ads HTCondor makes for a job whose input files are
//! sent to the schedd: held with `HoldReasonCode` 16 (`SpoolingInput`, "Spooling input data
//! files"), `Owner` left to the schedd, output paths remapped, `LeaveJobInQueue` for ten days
//! after completion. HTCondor's condor_submit then sends the files and the schedd, once they
//! are in, releases the jobs ("Data files spooled", `StageInStart`, `StageInFinish`). The
//! schedd here is on this host and reads the files where they are, so there is nothing to
//! send: the jobs are queued already released, as the schedd leaves them after the transfer,
//! in the same transaction (they are never seen held). Their input is read when they run,
//! not copied at submit time. The schedd's rewrite of a spooled job's ad follows
//! ([`crate::client::submit::rewrite_spooled`]): it runs in its spool directory, where its
//! output stays until `condor_transfer_data` fetches it.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::classad::cnum::atoi;
use crate::classad::unparse::{ad_to_old, expr_to_old_string};
use crate::classad::{ClassAd, Expr, Value};
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::locate::{is_valid_sinful, PoolLocation};
use crate::client::submit::{
    queue_factory, queue_jobs, write_cluster_submit, EventPlan, SubmitFailure,
};
use crate::client::{os_user, Session, USER_ENV};
use crate::config::{Config, LoadOptions};
use crate::error::CommandError;
use crate::submit::factory::Digest;
use crate::submit::{CommandLine, Job, SubmitContext, SubmitError, SubmitFile};

pub const TOOL: Tool = Tool {
    name: "condor_submit",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run,
};

/// The options in the order submit.cpp tests them, with its minimum prefix lengths.
const PREFIXES: &[Prefix] = &[
    Prefix::min("verbose", 1),
    Prefix::min("terse", 3),
    Prefix::min("disable", 3),
    Prefix::min("debug", 2).qualified(),
    Prefix::min("dry-run", 3).qualified(),
    Prefix::min("spool", 1),
    Prefix::min("file", 2),
    Prefix::min("address", 2),
    Prefix::min("remote", 1),
    Prefix::min("name", 1),
    Prefix::min("append", 1),
    Prefix::min("batch-name", 1),
    Prefix::min("batch-id", 1),
    Prefix::min("queue", 1),
    Prefix::min("maxjobs", 3),
    Prefix::min("single-cluster", 3),
    Prefix::min("pool", 2),
    Prefix::min("unused", 1),
    Prefix::min("dump", 2),
    Prefix::min("factory", 2),
    Prefix::min("generator", 1),
    Prefix::min("allow-crlf-script", 8),
    Prefix::min("help", 1),
    Prefix::min("interactive", 1),
];

fn flag(id: &'static str, help: &'static str) -> Arg {
    Arg::new(id).long(id).action(ArgAction::SetTrue).help(help)
}

fn value(id: &'static str, name: &'static str, help: &'static str) -> Arg {
    Arg::new(id)
        .long(id)
        .value_name(name)
        .action(ArgAction::Append)
        .help(help)
}

pub fn command() -> Command {
    Command::new("condor_submit")
        .about("Queue jobs described by a submit description file")
        .long_about(
            "Queue jobs described by a submit description file.\n\n\
             Reads the submit description from FILE, or from standard input when FILE is '-' \
             or absent (unless -queue and a key=value or -append make a file unnecessary). \
             Arguments of the form key=value are submit commands applied before the file is \
             read. Every job of one submit is queued in one transaction: all or none.",
        )
        .after_help(
            "Exit status: 0 when the jobs were queued, 1 on any error (and then nothing was \
             queued).",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("verbose", "Print each job's ClassAd as it is queued"))
        .arg(flag(
            "terse",
            "Print only the job ids queued, as 'C.P - C.P'",
        ))
        .arg(flag(
            "disable",
            "Skip file permission checks (condorlite never makes them)",
        ))
        .arg(flag("debug", "Accepted for compatibility; no debug output"))
        .arg(flag(
            "factory",
            "Submit a late materialization job factory: the master makes the jobs as \
             max_materialize and max_idle allow",
        ))
        .arg(flag("generator", "The same as -factory").hide(true))
        .arg(
            Arg::new("dry-run")
                .long("dry-run")
                .value_name("FILE")
                .action(ArgAction::Set)
                .help(
                    "Queue nothing; write the ClassAds that would be queued to FILE (- for \
                     stdout). -dry-run:full writes full ads, -dry-run:cluster=N numbers from N",
                ),
        )
        .arg(flag(
            "spool",
            "Spool the jobs' input files to the schedd (here on this host: nothing to send)",
        ))
        .arg(
            Arg::new("file")
                .long("file")
                .value_name("FILE")
                .action(ArgAction::Set)
                .help("Read the submit description from FILE"),
        )
        .arg(value(
            "remote",
            "SCHEDD",
            "Submit to the named schedd, spooling input files (only the local schedd exists)",
        ))
        .arg(value(
            "name",
            "SCHEDD",
            "Submit to the named schedd (only the local schedd exists)",
        ))
        .arg(value(
            "address",
            "<IP:PORT>",
            "Submit to the schedd at this address (this pool's, <127.0.0.1:9618>)",
        ))
        .arg(value(
            "pool",
            "HOST",
            "Find the schedd through this central manager (this host's pool)",
        ))
        .arg(flag(
            "single-cluster",
            "Do not submit if more than one ClusterId is needed",
        ))
        .arg(value(
            "append",
            "LINE",
            "A submit command applied before the queue statement (a queue statement replaces \
             the file's)",
        ))
        .arg(
            Arg::new("batch-name")
                .long("batch-name")
                .value_name("NAME")
                .action(ArgAction::Set)
                .help("Set the batch name (JobBatchName), overriding batch_name in the file"),
        )
        .arg(
            Arg::new("batch-id")
                .long("batch-id")
                .value_name("ID")
                .action(ArgAction::Set)
                .help("Set the batch id (JobBatchId)"),
        )
        .arg(value(
            "queue",
            "ARGS",
            "A queue statement's arguments: every following word that does not start with '-'",
        ))
        .arg(
            Arg::new("maxjobs")
                .long("maxjobs")
                .value_name("N")
                .action(ArgAction::Set)
                .allow_negative_numbers(true)
                .help("Fail, queueing nothing, if the submit would make more than N jobs"),
        )
        .arg(
            Arg::new("unused")
                .long("unused")
                .action(ArgAction::Count)
                .help("Turn the warnings about unused definitions off (or back on)"),
        )
        .arg(
            Arg::new("dump")
                .long("dump")
                .value_name("FILE")
                .action(ArgAction::Set)
                .help("Queue nothing; write the job ClassAds to FILE (- for stdout)"),
        )
        .arg(flag(
            "allow-crlf-script",
            "Only warn about a #! executable script with CRLF line endings",
        ))
        .arg(flag(
            "interactive",
            "Submit an interactive session job: once it runs, a shell in its directory with \
             its environment, on this terminal; the job is removed when the shell exits",
        ))
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print help and exit"),
        )
        .arg(
            Arg::new("args")
                .value_name("FILE|key=value")
                .action(ArgAction::Append)
                .value_parser(clap::value_parser!(OsString))
                .help("The submit description file (- for standard input) and key=value commands"),
        )
}

/// Where the submit description comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A file, named as on the command line.
    File(String),
    /// Standard input: `-` (which implies `-verbose`) or no file at all.
    Stdin { dash: bool },
    /// No file needed: `-queue` with `key=value` or `-append` (HTCondor reads /dev/null).
    None,
    /// `-interactive` without a file: `INTERACTIVE_SUBMIT_FILE`, or HTCondor's
    /// `interactive.sub` when that names no file.
    Interactive,
}

/// What `-dry-run` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DryRun {
    /// The file the simulated schedd writes to (`-` for stdout).
    pub out: String,
    /// `-dry-run:full`: the full job ads instead of the attribute stream.
    pub full: bool,
    /// The first cluster id (`-dry-run:cluster=N`; 1 by default).
    pub first_cluster: i64,
}

/// condor_submit's command line, parsed and resolved once.
#[derive(Clone, Debug)]
pub struct SubmitArgs {
    /// `-factory` (or `-generator`): submit a late-materialization job factory.
    pub factory: bool,
    /// The positional `FILE` (`-` for standard input), or `-file FILE`.
    pub source: Source,
    /// The positional `key=value` words, `-append`, `-queue`, `-batch-name`, `-batch-id`.
    pub command_line: CommandLine,
    /// `-verbose` (implied by `-` unless `-terse`; the later of the two wins).
    pub verbose: bool,
    /// `-terse`.
    pub terse: bool,
    /// `-dry-run[:OPTIONS] FILE`.
    pub dry_run: Option<DryRun>,
    /// `-maxjobs N` (0 or -1: no limit).
    pub max_jobs: i64,
    /// `-name`/`-remote`: the schedd asked for.
    pub schedd: Option<String>,
    /// `-pool HOST`: the central manager to find the schedd through.
    pub pool: Option<String>,
    /// `-address <ip:port>`: the schedd's address (checked to be a sinful string).
    pub address: Option<String>,
    /// `-single-cluster`: refuse a submit that needs a second cluster.
    pub single_cluster: bool,
    /// `-remote` or `-spool`: the jobs' files are spooled to the schedd.
    pub remote: bool,
    /// `-allow-crlf-script`: only warn about a `#!` script with CRLF line endings.
    pub allow_crlf_script: bool,
    /// `-dump FILE`: write the job ads to FILE (`-` for stdout) instead of queueing them.
    pub dump: Option<String>,
    /// How many times `-unused` was given (each one turns the unused-definition warnings
    /// around).
    pub unused_toggles: u8,
    /// `-interactive`: a shell in the job once it runs ([`super::submit_interactive`]).
    pub interactive: bool,
}

/// A command-line problem, worded as submit.cpp words it (printed as is, exit status 1).
fn usage_failure(text: impl Into<String>) -> CommandError {
    CommandError::failed(1, text)
}

impl SubmitArgs {
    /// Resolves a parsed command line (see the module docs).
    pub fn from_invocation(inv: &Invocation) -> Result<SubmitArgs, CommandError> {
        let m = &inv.matches;
        let mut command_line = CommandLine::default();
        let submit_err = |e: SubmitError| usage_failure(strip_prefix(&e.condor_submit_text()));

        // Positional words in command-line order; those right after -queue's first word are
        // more of its arguments, as submit.cpp gathers every word up to the next dash word.
        let positionals: Vec<(usize, OsString)> = inv.indexed::<OsString>("args");
        let queue: Vec<(usize, String)> = inv.indexed::<String>("queue");
        if queue.len() > 1 {
            return Err(usage_failure("only one -queue command allowed"));
        }
        let mut queue_words: Vec<usize> = Vec::new();
        if let Some((index, first)) = queue.first() {
            if first.is_empty() || (first.starts_with('-') && first != "-") {
                return Err(usage_failure("-queue requires at least one argument"));
            }
            let mut args = first.clone();
            let mut next = index + 1;
            if first != "-" {
                for (i, (at, word)) in positionals.iter().enumerate() {
                    if *at != next {
                        continue;
                    }
                    let word = word.to_string_lossy();
                    args.push(' ');
                    args.push_str(&word);
                    queue_words.push(i);
                    next += 1;
                    if word == "-" {
                        break;
                    }
                }
            }
            command_line.set_queue_args(&args).map_err(submit_err)?;
        }

        let mut file: Option<String> = m.get_one::<String>("file").cloned();
        let mut got_keys = false;
        for (i, (_, word)) in positionals.iter().enumerate() {
            if queue_words.contains(&i) {
                continue;
            }
            let word = word.to_string_lossy();
            if word != "-" && word.contains('=') {
                command_line.add_assignment(&word).map_err(submit_err)?;
                got_keys = true;
            } else {
                file = Some(word.into_owned());
            }
        }
        for line in m.get_many::<String>("append").into_iter().flatten() {
            let was_queue = command_line.queue.is_some();
            command_line.add_append(line).map_err(submit_err)?;
            if was_queue == command_line.queue.is_some() {
                got_keys = true;
            }
        }
        // The library adds it as the last -append line, `MY.JobBatchName = "<name>"`.
        command_line.batch_name = m.get_one::<String>("batch-name").cloned();
        if let Some(id) = m.get_one::<String>("batch-id") {
            let id = if id.starts_with('"') {
                id.clone()
            } else {
                format!("\"{id}\"")
            };
            command_line.append.push(format!("MY.JobBatchId = {id}"));
        }

        let interactive = m.get_flag("interactive");
        if interactive {
            let factory = m.get_flag("factory") || m.get_flag("generator");
            if factory {
                return Err(CommandError::Exit(print_exit(
                    "\nERROR: Interactive jobs cannot be materialized late\n".into(),
                )));
            }
            command_line.append.push("MY.InteractiveJob=True".into());
        }
        let source = match file.as_deref() {
            Some("-") => Source::Stdin { dash: true },
            Some(f) => Source::File(f.to_owned()),
            None if interactive => Source::Interactive,
            None if got_keys && command_line.queue.is_some() => Source::None,
            None => Source::Stdin { dash: false },
        };

        // -verbose and -terse each turn the other off; the last one given wins.
        let last = |id: &str| m.indices_of(id).and_then(|i| i.max());
        let (mut verbose, mut terse) = (m.get_flag("verbose"), m.get_flag("terse"));
        if verbose && terse {
            verbose = last("verbose") > last("terse");
            terse = !verbose;
        }
        if source == (Source::Stdin { dash: true }) && !terse {
            verbose = true;
        }

        let dry_run = match m.get_one::<String>("dry-run") {
            None => None,
            Some(out) => {
                let mut dry = DryRun {
                    out: out.clone(),
                    full: false,
                    first_cluster: 1,
                };
                for opt in inv
                    .qualifier("dry-run")
                    .unwrap_or_default()
                    .split([',', ' '])
                    .filter(|o| !o.is_empty())
                {
                    match opt {
                        "full" => dry.full = true,
                        // Dumps of the submit hash, digest and jobset: accepted, not written.
                        "hash" | "def" | "digest" | "jobset" | "tpl" => {}
                        o if o.starts_with("template") || o.starts_with("oauth=") => {}
                        o if o.starts_with("cluster=") => {
                            dry.first_cluster = i64::from(atoi(&o["cluster=".len()..])).max(1);
                        }
                        o => {
                            return Err(usage_failure(format!(
                                "unknown option {o} for -dry-run:<opts>"
                            )))
                        }
                    }
                }
                if dry.out.starts_with('-') && dry.out != "-" {
                    return Err(usage_failure("-dry-run requires another argument"));
                }
                Some(dry)
            }
        };

        let max_jobs = match m.get_one::<String>("maxjobs") {
            None => 0,
            Some(text) => match text.parse::<i64>() {
                Ok(n) if n < -1 => {
                    return Err(CommandError::Exit(print_exit(format!(
                        "Error: {n} is not a valid for -maxjobs.\n"
                    ))))
                }
                Ok(n) => n,
                Err(_) => {
                    return Err(CommandError::Exit(print_exit(format!(
                        "Error: Unable to convert argument ({text}) to a number for -maxjobs.\n"
                    ))))
                }
            },
        };

        // -dump and -dry-run name their files; whichever comes second is refused.
        let dump = m.get_one::<String>("dump").cloned();
        if dump.is_some() && dry_run.is_some() {
            let dump_at = m.index_of("dump").unwrap_or(0);
            let dry_at = m.index_of("dry-run").unwrap_or(0);
            return Err(usage_failure(if dump_at > dry_at {
                "-dump <file> and -dry-run <file> cannot be used together"
            } else {
                "-dry-run <file> and -dump <file> cannot be used together"
            }));
        }
        let remote = m.get_many::<String>("remote").is_some() || m.get_flag("spool");
        let schedd = last_of(inv, &["name", "remote"]);
        let address = last_of(inv, &["address"]);
        if let Some(a) = address.as_deref().filter(|a| !is_valid_sinful(a)) {
            return Err(usage_failure(format!(
                "\"{a}\" is not a valid address\nShould be of the form <ip:port>\n\
                 For example: <123.456.789.123:6789>"
            )));
        }
        Ok(SubmitArgs {
            source,
            command_line,
            verbose,
            terse,
            dry_run,
            max_jobs,
            schedd,
            pool: last_of(inv, &["pool"]),
            address,
            single_cluster: m.get_flag("single-cluster"),
            remote,
            allow_crlf_script: m.get_flag("allow-crlf-script"),
            dump,
            unused_toggles: m.get_count("unused"),
            factory: m.get_flag("factory") || m.get_flag("generator"),
            interactive,
        })
    }
}

/// The value of whichever of the options came last on the command line.
fn last_of(inv: &Invocation, ids: &[&str]) -> Option<String> {
    ids.iter()
        .flat_map(|id| inv.indexed::<String>(id))
        .max_by_key(|(i, _)| *i)
        .map(|(_, v)| v)
}

/// `condor_submit: ` is added by the error reporter.
fn strip_prefix(text: &str) -> String {
    let text = text.trim_end_matches('\n');
    text.strip_prefix("condor_submit: ")
        .unwrap_or(text)
        .to_owned()
}

/// Messages HTCondor prints without the tool-name prefix go straight to stderr.
fn print_exit(text: String) -> u8 {
    let _ = std::io::stderr().write_all(text.as_bytes());
    1
}

/// The configuration as condor_submit reads it (subsystem `SUBMIT`), and the session: the
/// submitting user (`CONDORLITE_USER` or the OS user) and the time (`CONDORLITE_NOW` or now).
pub fn session() -> Result<Session, CommandError> {
    let config = Config::load_with(LoadOptions {
        subsystem: "SUBMIT".into(),
        ..LoadOptions::from_process()
    })
    .map_err(|e| CommandError::failed(1, e.to_string()))?;
    let user = match std::env::var(USER_ENV) {
        Ok(u) if !u.is_empty() => u,
        _ => os_user().unwrap_or_else(|| "unknown".to_owned()),
    };
    let now = crate::client::process_now().map_err(|e| CommandError::failed(1, e.to_string()))?;
    Session::new(config, user, now).map_err(|e| CommandError::failed(1, e.to_string()))
}

/// Why a submit stopped: what to print on stderr has been decided.
type Failure = SubmitFailure;

/// One run of consecutive procs of a cluster, for the summary lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Submitted {
    cluster: i64,
    first: i64,
    last: i64,
}

fn record(submitted: &mut Vec<Submitted>, job: &Job) {
    match submitted.last_mut() {
        Some(s) if s.cluster == job.cluster_id => s.last = job.proc_id,
        _ => submitted.push(Submitted {
            cluster: job.cluster_id,
            first: job.proc_id,
            last: job.proc_id,
        }),
    }
}

/// What the submit makes, job by job, whichever the destination.
struct Progress<'a> {
    request: &'a SubmitArgs,
    out: &'a mut dyn Write,
    /// `-dump -`: the ads go to stdout, and nothing else does.
    quiet: bool,
    checked_cmd: Option<String>,
    warnings: Vec<String>,
    submitted: Vec<Submitted>,
    created: i64,
}

impl Progress<'_> {
    /// The checks and output for one job, before it is stored.
    fn job(&mut self, job: &Job) -> Result<(), Failure> {
        if self.request.single_cluster && job.new_cluster && !self.submitted.is_empty() {
            return Err(Failure::Text(
                "\nERROR: Number of submitted clusters would exceed 1 and -single-cluster was \
                 specified\n"
                    .to_owned(),
            ));
        }
        if self.request.max_jobs > 0 && self.created >= self.request.max_jobs {
            return Err(Failure::Text(format!(
                "\nERROR: Number of submitted jobs would exceed -maxjobs ({})\n",
                self.request.max_jobs
            )));
        }
        self.check_executable(&job.ad)?;
        for w in &job.warnings {
            if !self.warnings.contains(w) {
                self.warnings.push(w.clone());
            }
        }
        self.created += 1;
        record(&mut self.submitted, job);
        // Output errors (a closed stdout) do not stop the submit; they are reported after.
        if self.quiet {
            return Ok(());
        }
        if self.request.verbose {
            let _ = write!(
                self.out,
                "\n** Proc {}.{}:\n{}",
                job.cluster_id,
                job.proc_id,
                ad_to_old(&job.ad, false)
            );
        } else if !self.request.terse {
            let _ = self.out.write_all(b".");
        }
        Ok(())
    }

    /// submit.cpp `check_sub_file` for the executable: once per distinct `Cmd` (not when
    /// only dumping the ads).
    fn check_executable(&mut self, ad: &ClassAd) -> Result<(), Failure> {
        if self.request.dump.is_some() {
            return Ok(());
        }
        let Some(Value::Str(cmd)) = literal(ad, "Cmd") else {
            return Ok(());
        };
        if self.checked_cmd.as_deref() == Some(&*cmd) {
            return Ok(());
        }
        self.checked_cmd = Some(cmd.to_string());
        match executable_to_check(ad) {
            Some(cmd) => {
                check_executable(&cmd, self.request.allow_crlf_script).map_err(Failure::Text)
            }
            None => Ok(()),
        }
    }
}

/// The executable condor_submit checks for a job: its `Cmd`, when it is transferred and
/// names no `$$()` expansion.
fn executable_to_check(ad: &ClassAd) -> Option<String> {
    let Some(Value::Str(cmd)) = literal(ad, "Cmd") else {
        return None;
    };
    let transferred = !matches!(literal(ad, "TransferExecutable"), Some(Value::Bool(false)));
    (transferred && !cmd.contains("$$")).then(|| cmd.to_string())
}

/// condor_submit's check of a job's executable, for a submit made without the tool (the
/// master's HTTP server).
pub(crate) fn check_job_executable(job: &Job) -> Result<(), Failure> {
    match executable_to_check(&job.ad) {
        Some(cmd) => check_executable(&cmd, false).map_err(Failure::Text),
        None => Ok(()),
    }
}

fn literal(ad: &ClassAd, name: &str) -> Option<Value> {
    match ad.lookup(name)? {
        Expr::Lit(v) => Some(v.clone()),
        _ => None,
    }
}

/// The executable checks condor_submit makes (submit.cpp `check_sub_file`): it exists, is not
/// empty, and is not a `#!` script with CRLF line endings (a warning with
/// `-allow-crlf-script`). Returns the stderr text of a failure; a warning is printed here.
pub fn check_executable(path: &str, allow_crlf_script: bool) -> Result<(), String> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) => {
            return Err(format!(
                "\nERROR: Can't access executable file {path}: {}\n",
                crate::config::parse::io_reason(&e)
            ))
        }
    };
    if meta.len() == 0 {
        return Err(format!("\nERROR: Executable file {path} has zero length\n"));
    }
    if is_crlf_shebang(Path::new(path)) {
        if allow_crlf_script {
            eprint!(
                "\nWARNING: Executable file {path} is a script with CRLF (DOS/Windows) line \
                 endings.\n"
            );
        } else {
            return Err(format!(
                "\nERROR: Executable file {path} is a script with CRLF (DOS/Windows) line \
                 endings.\nThis generally doesn't work, and you should probably run 'dos2unix \
                 {path}' -- or a similar tool -- before you resubmit.\n"
            ));
        }
    }
    Ok(())
}

/// The first line (up to 127 bytes, as execve reads it) starts with `#!` and ends in CRLF.
fn is_crlf_shebang(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut buf = Vec::with_capacity(128);
    if file.take(127).read_to_end(&mut buf).is_err() {
        return false;
    }
    let line = match buf.iter().position(|&b| b == b'\n') {
        Some(end) => &buf[..=end],
        None => return false,
    };
    line.starts_with(b"#!") && line.len() > 2 && line.ends_with(b"\r\n")
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let mut request = SubmitArgs::from_invocation(inv)?;
    let session = session()?;
    if !request.interactive {
        return submit(&request, &session, out, err);
    }
    // submit.cpp: a user's own file has its command replaced by one that waits for the
    // session; HTCondor's interactive.sub already is one.
    if matches!(request.source, Source::Interactive) {
        request
            .command_line
            .append
            .push("MY.JobDescription = \"interactive job\"".into());
    } else {
        let knob = |name: &str| session.config.string(name).ok().flatten();
        if let Some(cmd) = knob("INTERACTIVE_SUBMIT_CMD_OVERRIDE") {
            request
                .command_line
                .append
                .push(format!("executable = {cmd}"));
            request
                .command_line
                .append
                .push("transfer_executable = false".into());
        }
        if let Some(args) = knob("INTERACTIVE_SUBMIT_ARGS_OVERRIDE") {
            request
                .command_line
                .append
                .push(format!("arguments = {args}"));
        }
    }
    let clusters = submit_clusters(&request, &session, out, err)?;
    match clusters.first() {
        Some(&cluster) => super::submit_interactive::session(&session, cluster, out, err),
        None => Ok(()),
    }
}

/// Runs one resolved submit. Errors are written to `err` as condor_submit writes them, and
/// end the tool with exit status 1.
pub fn submit(
    request: &SubmitArgs,
    session: &Session,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    submit_clusters(request, session, out, err).map(|_| ())
}

/// [`submit`], giving the clusters queued.
fn submit_clusters(
    request: &SubmitArgs,
    session: &Session,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Vec<i64>, CommandError> {
    let fail = |err: &mut dyn Write, text: &str| {
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
        CommandError::Exit(1)
    };
    let simulated = request.dry_run.is_some() || request.dump.is_some();
    // submit.cpp locates the schedd (by -address, else by -name through -pool's collector)
    // unless it dumps the ads to a file.
    let located = match (&request.address, &request.pool) {
        (Some(addr), _) => session.is_local_address(addr),
        (None, Some(pool)) => session.locate_pool(pool) == PoolLocation::Local,
        (None, None) => true,
    } && request
        .schedd
        .as_deref()
        .is_none_or(|name| session.is_local_schedd(name));
    if !located && request.dump.is_none() {
        match (&request.address, &request.schedd) {
            (None, Some(name)) => {
                return Err(fail(
                    err,
                    &format!("\nERROR: Can't find address of schedd {name}\n"),
                ))
            }
            (None, None) if !simulated => {
                return Err(fail(err, "\nERROR: Can't find address of local schedd\n"))
            }
            // The schedd at -address was found, but does not answer.
            (Some(addr), _) if !simulated => {
                return Err(fail(
                    err,
                    &format!(
                        "\nERROR: Failed to connect to queue manager {addr}\n\
                         CEDAR:6001:Failed to connect to {addr}\n"
                    ),
                ))
            }
            _ => {}
        }
    }

    // An output file but no submit file: the output file was probably meant as the submit
    // file.
    let out_name = request
        .dump
        .as_deref()
        .or(request.dry_run.as_ref().map(|d| d.out.as_str()));
    if let (Some(name), Source::Stdin { dash: false } | Source::None) = (out_name, &request.source)
    {
        return Err(fail(
            err,
            &format!(
                "\nERROR: No submit filename was provided, and '{name}'\n  was given as the \
                 output filename for -dump or -dry-run. Was this intended?\n  To to avoid \
                 confusing the output file with the submit file when using these\n  \
                 commands, an explicit submit filename argument must be given. You can use -\n  \
                 as the submit filename argument to read from stdin.\n"
            ),
        ));
    }

    // Read the description (submit.cpp opens the file before it prints anything).
    let (text, file_name, stdin) = match &request.source {
        Source::File(name) => match crate::bounded::read_file(name) {
            Ok(bytes) => (
                String::from_utf8_lossy(&bytes).into_owned(),
                name.clone(),
                false,
            ),
            Err(e) => {
                let e = SubmitError::Open {
                    file: name.clone(),
                    reason: crate::config::parse::io_reason(&e),
                };
                return Err(fail(err, &e.condor_submit_text()));
            }
        },
        Source::Stdin { dash } => {
            let text = match crate::bounded::read_stdin() {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    let e = SubmitError::Open {
                        file: "-".into(),
                        reason: crate::config::parse::io_reason(&e),
                    };
                    return Err(fail(err, &e.condor_submit_text()));
                }
            };
            (text, "-".to_owned(), *dash)
        }
        Source::None => (String::new(), "null".to_owned(), false),
        Source::Interactive => {
            let name = session
                .config
                .string("INTERACTIVE_SUBMIT_FILE")
                .ok()
                .flatten()
                .unwrap_or_default();
            match std::fs::read(&name) {
                Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), name, false),
                Err(_) => (
                    super::submit_interactive::INTERACTIVE_SUB.to_owned(),
                    name,
                    false,
                ),
            }
        }
    };

    let mut ctx = SubmitContext::from_process(&session.config, &session.user)?;
    ctx.qdate = session.now;
    ctx.remote = request.remote;
    ctx.command_line = request.command_line.clone();

    let dump_to_stdout = request.dump.as_deref() == Some("-");
    let mut dump_file: Option<File> = None;
    match request.dump.as_deref() {
        None => {
            if !stdin && !request.terse {
                let banner: &[u8] = if request.dry_run.is_some() {
                    b"Dry-Run job(s)"
                } else {
                    b"Submitting job(s)"
                };
                let _ = out.write_all(banner);
            }
        }
        Some("-") => {}
        Some(name) => {
            if !request.terse {
                let _ = out.write_all(b"Storing job ClassAd(s)");
            }
            match File::create(name) {
                Ok(f) => dump_file = Some(f),
                Err(e) => {
                    let _ = out.flush();
                    return Err(fail(
                        err,
                        &format!(
                            "\nERROR: Failed to open file to dump ClassAds into ({})\n",
                            crate::config::parse::io_reason(&e)
                        ),
                    ));
                }
            }
        }
    }

    let file = match SubmitFile::parse(&text, &file_name, &ctx) {
        Ok(file) => file,
        Err(e) => {
            let _ = out.flush();
            return Err(fail(err, &e.condor_submit_text()));
        }
    };

    let mut progress = Progress {
        request,
        out,
        quiet: dump_to_stdout,
        checked_cmd: None,
        warnings: Vec::new(),
        submitted: Vec::new(),
        created: 0,
    };
    let result = match (&request.dry_run, &request.dump) {
        (Some(dry), _) => dry_run(&file, dry, None, &mut progress),
        (None, Some(name)) => {
            let dump = DryRun {
                out: name.clone(),
                full: false,
                first_cluster: 1,
            };
            dry_run(&file, &dump, dump_file.take(), &mut progress)
        }
        (None, None) => match factory_limit(&file, &text, request) {
            Ok(Some(limit)) => {
                let digest = Digest::of(&text, &file_name, &ctx, &file);
                queue_as_factory(&file, &digest, limit, session, &mut progress)
            }
            Ok(None) => queue(&file, session, &mut progress),
            Err(e) => Err(e),
        },
    };
    let Progress {
        out,
        warnings,
        submitted,
        ..
    } = progress;
    let events = match result {
        Ok(events) => events,
        Err(failure) => {
            let _ = out.flush();
            let text = match failure {
                Failure::Text(text) => text,
                // The ad the submit made (its requirements wrapped in the default clauses)
                // is deeper than the store can read back: the file's fault, named as such.
                Failure::Queue(crate::queue::QueueError::Unstorable { attr, message, .. }) => {
                    let name = display_name(stdin, &file_name);
                    format!(
                        "\nERROR: Failed to commit job submission into the queue.\nERROR: \
                         submit file {name}: the job's {attr} is nested too deeply to be \
                         stored ({message}); nothing was queued\n"
                    )
                }
                Failure::Queue(e) => commit_failure(&e.to_string()),
                Failure::Remote(e) => commit_failure(&e),
            };
            return Err(fail(err, &text));
        }
    };

    let display_name = display_name(stdin, &file_name);
    if file.queue_statements() > 1 {
        let _ = err.write_all(MULTI_QUEUE_WARNING.as_bytes());
    }
    if submitted.is_empty() && !request.terse {
        let _ = write!(
            err,
            "\nWARNING: \"{display_name}\" has only empty \"queue\" commands -- no jobs queued\n"
        );
    }
    if !stdin && !request.terse {
        out.write_all(b"\n")?;
    }
    if !request.verbose && !dump_to_stdout {
        let verb = if request.dry_run.is_some() {
            "dry-run"
        } else {
            "submitted"
        };
        for s in summarize(&submitted) {
            if request.terse {
                writeln!(out, "{}.{} - {}.{}", s.cluster, s.first, s.cluster, s.last)?;
            } else {
                writeln!(
                    out,
                    "{} job(s) {verb} to cluster {}.",
                    s.last - s.first + 1,
                    s.cluster
                )?;
            }
        }
    }
    out.flush()?;

    // Whether the jobs wait for a master to start (said last, after the warnings).
    let mut waiting = None;
    if let Some(events) = events {
        events.write(session);
        if !submitted.is_empty() {
            let running = crate::client::master::wake(&session.config);
            waiting = crate::client::master::waiting_note(&session.config, || running);
        }
    }

    for w in file.warnings().iter().chain(&warnings) {
        let w = w.trim_end_matches('\n');
        let _ = writeln!(err, "WARNING: {w}");
    }
    // Definitions nothing used (not when no job was made: everything would be unused).
    let warn_unused = session
        .config
        .bool("WARN_ON_UNUSED_SUBMIT_FILE_MACROS")
        .ok()
        .flatten()
        .unwrap_or(true)
        ^ (request.unused_toggles % 2 == 1);
    if warn_unused && !submitted.is_empty() {
        if request.verbose {
            out.write_all(b"\n")?;
            out.flush()?;
        }
        for w in file.unused_warnings() {
            let _ = writeln!(err, "WARNING: {w}");
        }
    }
    if let Some(note) = waiting {
        let _ = writeln!(err, "{note}");
    }
    Ok(summarize(&submitted).iter().map(|s| s.cluster).collect())
}

/// condor_submit's words for a store that failed (its error, `e`).
fn commit_failure(e: &str) -> String {
    format!("\nERROR: Failed to commit job submission into the queue.\nERROR: {e}\n")
}

/// Per cluster: its first and last proc (and the count, last - first + 1, as submit.cpp
/// computes it).
fn summarize(submitted: &[Submitted]) -> Vec<Submitted> {
    let mut out: Vec<Submitted> = Vec::new();
    for s in submitted {
        match out.last_mut() {
            Some(last) if last.cluster == s.cluster => last.last = s.last,
            _ => out.push(*s),
        }
    }
    out
}

const MULTI_QUEUE_WARNING: &str = "\nWarning: Use of multiple queue statements in a single submit file is deprecated.\n         This functionality will be removed in the 25.x feature series. To see\n         how multiple queue statements can be converted into one visit:\nhttps://htcondor.readthedocs.io/en/latest/auto-redirect.html?category=example&tag=convert-multi-queue-statements\n";

/// Whether to submit a job factory, and its `max_materialize` (HTCondor's
/// `want_factory_submit`, or `-factory`); a factory's description must end at its queue
/// statement.
fn factory_limit(
    file: &SubmitFile,
    text: &str,
    request: &SubmitArgs,
) -> Result<Option<i64>, Failure> {
    let asked = file.want_factory_submit()?;
    let limit = match (asked, request.factory) {
        (Some(n), _) => n,
        (None, true) => i64::from(i32::MAX),
        (None, false) => return Ok(None),
    };
    if let Some(line) = file.extra_data_line(text) {
        return Err(Failure::Text(format!(
            "\nERROR: on Line {line} of {}: Extra data found after queue statement\n",
            file.name()
        )));
    }
    if file.job_count() == 0 {
        return Ok(None);
    }
    Ok(Some(limit))
}

/// Queues a job factory: its cluster ad and digest, no proc (the master makes them).
fn queue_as_factory(
    file: &SubmitFile,
    digest: &Digest,
    limit: i64,
    session: &Session,
    progress: &mut Progress<'_>,
) -> Result<Option<EventPlan>, Failure> {
    let remote = progress.request.remote;
    let queued = queue_factory(session, file, digest, limit, remote, &mut |job| {
        progress.check_executable(&job.ad)?;
        for w in &job.warnings {
            if !progress.warnings.contains(w) {
                progress.warnings.push(w.clone());
            }
        }
        Ok(())
    })?;
    progress.submitted.push(Submitted {
        cluster: i64::from(queued.cluster.0),
        first: 0,
        last: queued.total_procs - 1,
    });
    write_cluster_submit(session, queued.cluster, &queued.cluster_ad);
    Ok(Some(EventPlan::new()))
}

/// Queues every job in one transaction; returns the submit events to write.
fn queue(
    file: &SubmitFile,
    session: &Session,
    progress: &mut Progress<'_>,
) -> Result<Option<EventPlan>, Failure> {
    let remote = progress.request.remote;
    let (_, events) = queue_jobs(session, &[file], remote, &mut |_, job| progress.job(job))
        .map_err(|(_, e)| e)?;
    Ok(Some(events))
}

/// HTCondor's simulated schedd: nothing is queued. The ads go to `dry.out` (`-` for
/// stdout), or to `opened` (the `-dump` file, opened before the submit file was read).
fn dry_run(
    file: &SubmitFile,
    dry: &DryRun,
    opened: Option<File>,
    progress: &mut Progress<'_>,
) -> Result<Option<EventPlan>, Failure> {
    let mut sink: Box<dyn Write> = if let Some(f) = opened {
        Box::new(std::io::BufWriter::new(f))
    } else if dry.out == "-" {
        Box::new(std::io::sink())
    } else {
        match File::create(&dry.out) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => {
                return Err(Failure::Text(format!(
                    "\nERROR: Failed to open file -dry-run output file ({})\n",
                    crate::config::parse::io_reason(&e)
                )))
            }
        }
    };
    let to_stdout = dry.out == "-";
    let mut full = String::new();
    for job in file.jobs(dry.first_cluster) {
        let job = job?;
        let mut text = String::from("\n");
        if !dry.full {
            if job.new_cluster {
                attr_lines(&mut text, job.cluster_ad().own_iter());
            }
            attr_lines(&mut text, job.ad.own_iter());
        }
        // The simulated schedd writes as the attributes are sent, before the proc's dot.
        if to_stdout {
            if !dry.full {
                let _ = progress.out.write_all(text.as_bytes());
            }
        } else if !dry.full {
            let _ = sink.write_all(text.as_bytes());
        }
        progress.job(&job)?;
        if dry.full {
            if !full.is_empty() {
                full.push('\n');
            }
            full.push_str(&ad_to_old(&job.ad, false));
        }
    }
    if dry.full {
        if to_stdout {
            let _ = progress.out.write_all(b"\n");
            let _ = progress.out.write_all(full.as_bytes());
        } else {
            let _ = sink.write_all(full.as_bytes());
        }
    }
    sink.flush()
        .map_err(|e| Failure::Text(format!("\nERROR: {e}\n")))?;
    Ok(None)
}

fn attr_lines<'a>(text: &mut String, attrs: impl Iterator<Item = (&'a str, &'a Expr)>) {
    for (name, expr) in attrs {
        let _ = writeln!(text, "{name}={}", expr_to_old_string(expr));
    }
}

/// How the submit file is named in messages.
fn display_name(stdin: bool, file_name: &str) -> &str {
    if stdin {
        "(stdin)"
    } else {
        file_name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(args: &[&str]) -> Result<SubmitArgs, CommandError> {
        SubmitArgs::from_invocation(&TOOL.parse_words(args)?)
    }

    #[test]
    fn queue_gathers_words_up_to_a_dash_word() {
        let r = request(&["-queue", "3", "in", "a", "b", "-terse", "job.sub"]).unwrap();
        assert_eq!(r.command_line.queue.as_deref(), Some("queue 3 in a b"));
        assert_eq!(r.source, Source::File("job.sub".into()));
        assert!(r.terse);
    }

    #[test]
    fn queue_with_keys_needs_no_file() {
        let r = request(&["executable=/bin/true", "-q", "2"]).unwrap();
        assert_eq!(r.source, Source::None);
        assert_eq!(
            r.command_line.assignments,
            [("executable".to_owned(), "/bin/true".to_owned())]
        );
    }

    #[test]
    fn dash_is_stdin_and_verbose() {
        let r = request(&["-"]).unwrap();
        assert_eq!(r.source, Source::Stdin { dash: true });
        assert!(r.verbose);
        let r = request(&["-", "-ter"]).unwrap();
        assert!(!r.verbose && r.terse);
        let r = request(&[]).unwrap();
        assert_eq!(r.source, Source::Stdin { dash: false });
        assert!(!r.verbose);
    }

    #[test]
    fn last_of_verbose_and_terse_wins() {
        let r = request(&["-terse", "-v", "f"]).unwrap();
        assert!(r.verbose && !r.terse);
        let r = request(&["-v", "-terse", "f"]).unwrap();
        assert!(!r.verbose && r.terse);
    }

    #[test]
    fn dry_run_takes_a_file_and_qualifiers() {
        let r = request(&["-dry-run:full,cluster=7", "-", "f"]).unwrap();
        assert_eq!(
            r.dry_run,
            Some(DryRun {
                out: "-".into(),
                full: true,
                first_cluster: 7
            })
        );
        assert!(request(&["-dry:bogus", "x", "f"]).is_err());
    }

    #[test]
    fn append_queue_line_becomes_the_queue() {
        let r = request(&["-a", "queue 4", "-a", "request_cpus = 2", "f"]).unwrap();
        assert_eq!(r.command_line.queue.as_deref(), Some("queue 4"));
        assert_eq!(r.command_line.append, ["request_cpus = 2"]);
        assert!(request(&["-a", "queue 4", "-queue", "2", "f"]).is_err());
    }

    #[test]
    fn maxjobs_and_schedd_names() {
        let r = request(&["-maxjobs", "10", "-name", "other", "f"]).unwrap();
        assert_eq!(r.max_jobs, 10);
        assert_eq!(r.schedd.as_deref(), Some("other"));
        assert!(!r.remote);
        assert!(request(&["-remote", "x", "f"]).unwrap().remote);
    }

    #[test]
    fn batch_name_and_id() {
        let r = request(&["-batch-name", "b", "-batch-id", "7", "f"]).unwrap();
        assert_eq!(r.command_line.batch_name.as_deref(), Some("b"));
        assert_eq!(r.command_line.append, ["MY.JobBatchId = \"7\""]);
        let r = request(&["-batch-id", "\"x\"", "f"]).unwrap();
        assert_eq!(r.command_line.append, ["MY.JobBatchId = \"x\""]);
    }

    #[test]
    fn file_option_and_flags() {
        let r = request(&["-file", "job.sub"]).unwrap();
        assert_eq!(r.source, Source::File("job.sub".into()));
        assert!(request(&["-spool", "f"]).unwrap().remote);
        assert!(
            request(&["-allow-crlf-script", "f"])
                .unwrap()
                .allow_crlf_script
        );
        assert_eq!(request(&["f"]).unwrap().unused_toggles, 0);
        assert_eq!(
            request(&["-unused", "-unused", "f"])
                .unwrap()
                .unused_toggles,
            2
        );
    }

    #[test]
    fn dump_and_dry_run_exclude_each_other() {
        let r = request(&["-dump", "out", "f"]).unwrap();
        assert_eq!(r.dump.as_deref(), Some("out"));
        assert!(r.dry_run.is_none());
        let err = request(&["-dump", "a", "-dry-run", "b", "f"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "-dry-run <file> and -dump <file> cannot be used together"
        );
    }

    #[test]
    fn bad_assignment_names_are_refused() {
        let err = request(&["+x=3", "f"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid attribute name '+x' for attrib=value assigment"
        );
    }

    #[test]
    fn crlf_shebang_detection() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s.sh");
        std::fs::write(&script, "#!/bin/sh\r\necho hi\r\n").unwrap();
        assert!(is_crlf_shebang(&script));
        std::fs::write(&script, "#!/bin/sh\necho hi\r\n").unwrap();
        assert!(!is_crlf_shebang(&script));
        std::fs::write(&script, "echo\r\n").unwrap();
        assert!(!is_crlf_shebang(&script));
    }
}
