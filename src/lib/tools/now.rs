//! `condor_now`: start an idle job now, on the slot of a running job that is vacated for
//! it, as HTCondor 24.0's src/condor_tools/now.cpp asks the schedd (`REASSIGN_SLOT`). The
//! schedd's checks of the jobs' owners and universes are made here on the queue (as the
//! other job tools make them); the running master checks the jobs' states again, vacates
//! the victims and starts the now-job on the first of their claims to come free
//! (src/lib/daemon/pool/now.rs).
//!
//! Messages and exit statuses are now.cpp's: the usage on standard error and 1 for a
//! command line it does not take, `Unable to locate schedd, aborting.` for a schedd
//! elsewhere, `Unable to reassign slot: <the schedd's reason>.` for a refusal; nothing and
//! 0 when the slot is being reassigned.

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::classad::cnum::strtol;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::client::connect::locate;
use crate::client::master::{self, MasterError};
use crate::client::Session;
use crate::error::CommandError;
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::{universe, JobId, JobStatus};

pub const TOOL: Tool = Tool {
    name: "condor_now",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // now.cpp reads its words itself, with strcmp.
        unknown: Unknown::Verbatim,
    },
    usage_status: 1,
    run,
};

const NAME: &str = "condor_now";

pub fn command() -> Command {
    let value = |name: &'static str, value: &'static str, help: &'static str| {
        Arg::new(name).long(name).value_name(value).help(help)
    };
    Command::new(NAME)
        .about("Start an idle job now, on the slot of a running job vacated for it")
        .long_about(
            "Vacate the running jobs named after the first job and start that idle job \
             on the slot of the first of them to come free, without waiting for the \
             negotiator. The jobs must be yours and in the vanilla universe.",
        )
        .after_help("Exit status: 0 when the slot is being reassigned, 1 otherwise.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(crate::cli::args::help_flag("Print the usage"))
        .arg(value("name", "SCHEDULER", "The schedd holding the jobs"))
        .arg(value(
            "pool",
            "CENTRAL_MANAGER",
            "The pool's central manager",
        ))
        .arg(
            Arg::new("debug")
                .long("debug")
                .action(ArgAction::SetTrue)
                .help("Debugging output (accepted)"),
        )
        .arg(
            Arg::new("now-job")
                .value_name("JOB_TO_RUN_NOW")
                .help("The idle job to start (cluster or cluster.proc)"),
        )
        .arg(
            Arg::new("vacate-jobs")
                .value_name("JOB_TO_VACATE")
                .action(ArgAction::Append)
                .help("The running jobs whose slots it takes"),
        )
}

fn usage(w: &mut dyn Write) {
    let pad = " ".repeat(NAME.len());
    let _ = write!(
        w,
        "Usage: {NAME} [-name <scheduler> [-pool <central-manager]] [-debug]
       {pad} <job-to-run-now> <job-to-vacate> [<another-job-to-vacate>+]
   or: {NAME} -help
"
    );
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    name: Option<String>,
    pool: Option<String>,
    now_job: JobId,
    victims: Vec<JobId>,
}

/// Why the words are not taken.
#[derive(Debug, PartialEq, Eq)]
enum Refusal {
    /// `-help` (on standard output, status 0).
    Help,
    /// The usage on standard error, status 1.
    Usage,
    /// `Do not use the --flags option.`, status 1.
    Flags,
}

/// now.cpp's job ids: `strtol`, then nothing, or a dot and a proc (whatever follows it).
fn job_id(word: &str) -> Option<JobId> {
    let b = word.as_bytes();
    let (cluster, used) = strtol(b);
    if used == 0 {
        return None;
    }
    let proc = match b.get(used) {
        None => 0,
        Some(b'.') => strtol(&b[used + 1..]).0,
        Some(_) => return None,
    };
    // Ids beyond an `int` name no job (`None` here would be the usage).
    Some(JobId::new(
        i32::try_from(cluster).unwrap_or(-1),
        i32::try_from(proc).unwrap_or(-1),
    ))
}

/// now.cpp's `main` up to the schedd's address.
fn parse(words: &[String]) -> Result<Request, Refusal> {
    // `--help` too, as every condorlite tool takes it (24.0's reads it as a job id, and
    // prints the usage on standard error).
    if matches!(words.first().map(String::as_str), Some("-help" | "--help")) {
        return Err(Refusal::Help);
    }
    if words.len() < 2 {
        return Err(Refusal::Usage);
    }
    let (mut name, mut pool) = (None, None);
    let mut i = 0;
    while i < words.len() {
        match words[i].as_str() {
            "-help" | "--help" => return Err(Refusal::Help),
            "-pool" | "-name" => {
                let value = words.get(i + 1).cloned().ok_or(Refusal::Usage)?;
                if words[i] == "-pool" {
                    pool = Some(value);
                } else {
                    name = Some(value);
                }
                i += 1;
            }
            "-debug" => {}
            // Test modes of the schedd's (`RS_TEST_SMV`, `RS_TEST_PCCC`).
            "--flags" => return Err(Refusal::Flags),
            _ => break,
        }
        i += 1;
    }
    if words.len() - i < 2 {
        return Err(Refusal::Usage);
    }
    let now_job = job_id(&words[i]).ok_or(Refusal::Usage)?;
    let victims = words[i + 1..]
        .iter()
        .map(|w| job_id(w))
        .collect::<Option<Vec<_>>>()
        .ok_or(Refusal::Usage)?;
    Ok(Request {
        name,
        pool,
        now_job,
        victims,
    })
}

/// The schedd's checks of one job (`reassign_slot_handler`): the now-job must be idle, a
/// vacate-job running.
fn check_job(session: &Session, id: JobId, now_job: bool) -> Result<(), String> {
    let queue = session.open_queue().map_err(|e| e.to_string())?;
    let (role, which) = if now_job {
        ("now-job", "the now-job")
    } else {
        ("vacate-job", "vacate-job")
    };
    let job = queue.job(id).map_err(|e| e.to_string())?;
    let Some(ad) = job.and_then(|j| j.into_ad().ok()) else {
        return Err(format!("no such job ({role})"));
    };
    if !session.may_act_on(lookup_str(&ad, "Owner").as_deref()) {
        return Err(format!("you must own the {role}"));
    }
    if lookup_int(&ad, "JobUniverse") != Some(universe::VANILLA) {
        return Err(format!("{which} must be in the vanilla universe"));
    }
    let status = lookup_int(&ad, "JobStatus");
    if now_job && status != Some(JobStatus::Idle as i64) {
        return Err("the now-job must be idle".into());
    }
    if !now_job && status != Some(JobStatus::Running as i64) {
        return Err("vacate-job must be running".into());
    }
    Ok(())
}

/// `DCSchedd::reassignSlot`: the schedd's checks, then the master's.
fn reassign_slot(session: &Session, request: &Request) -> Result<(), String> {
    check_job(session, request.now_job, true)?;
    for &victim in &request.victims {
        check_job(session, victim, false)?;
    }
    let command = master::Command::Now(request.now_job, request.victims.clone());
    match master::send(&session.config, &command) {
        Ok(_) => Ok(()),
        Err(MasterError::NotRunning(_)) => Err("failed to connect to schedd".into()),
        Err(MasterError::Refused(reason)) if reason.is_empty() => {
            Err("unspecified schedd error".into())
        }
        Err(MasterError::Refused(reason)) => Err(reason),
        Err(e) => Err(e.to_string()),
    }
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let request = match parse(&inv.raw_strings()) {
        Ok(r) => r,
        Err(Refusal::Help) => {
            usage(out);
            return Ok(());
        }
        Err(Refusal::Usage) => {
            usage(err);
            return Err(CommandError::Exit(1));
        }
        Err(Refusal::Flags) => {
            let _ = writeln!(err, "Do not use the --flags option.");
            return Err(CommandError::Exit(1));
        }
    };
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    if locate(&session, request.name.as_deref(), request.pool.as_deref()).is_err() {
        let _ = writeln!(err, "Unable to locate schedd, aborting.");
        return Err(CommandError::Exit(1));
    }
    if let Err(reason) = reassign_slot(&session, &request) {
        let _ = writeln!(err, "Unable to reassign slot: {reason}.");
        return Err(CommandError::Exit(1));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_command_line_is_read_as_now_cpp_reads_it() {
        let r = parse(&words(&["-name", "s", "5", "3.1", "4.2x"])).unwrap();
        assert_eq!(r.name.as_deref(), Some("s"));
        assert_eq!(r.now_job, JobId::new(5, 0));
        assert_eq!(r.victims, vec![JobId::new(3, 1), JobId::new(4, 2)]);
        assert_eq!(parse(&words(&["5"])), Err(Refusal::Usage));
        assert_eq!(parse(&words(&["-debug", "5"])), Err(Refusal::Usage));
        assert_eq!(parse(&words(&["5", "x"])), Err(Refusal::Usage));
        assert_eq!(parse(&words(&["5x", "3"])), Err(Refusal::Usage));
        assert_eq!(parse(&words(&["-help"])), Err(Refusal::Help));
        assert_eq!(
            parse(&words(&["--flags", "1", "5", "3"])),
            Err(Refusal::Flags)
        );
        // An unknown option is a job id that does not parse.
        assert_eq!(parse(&words(&["-frob", "5", "3"])), Err(Refusal::Usage));
    }
}
