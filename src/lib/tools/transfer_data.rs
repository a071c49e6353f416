//! `condor_transfer_data`: fetches the output of spooled jobs (submitted with
//! `condor_submit -spool` or `-remote`) from the schedd's spool into the places the submit
//! description named, as HTCondor's src/condor_tools/transfer_data.cpp and the schedd's
//! `TRANSFER_DATA` (schedd.cpp `spoolJobFiles`, `transferJobFilesReaper`) and
//! `DCSchedd::receiveJobSandbox` do.
//!
//! - The words are read as transfer_data.cpp's `main` reads them: an option by its second
//!   character (`-c…` takes the next word as a constraint, `-ad…` an address, any other `-a…`
//!   is `-all`, `-n…` a schedd name, `-p…` a pool, `-v…` the version, `-h…` the usage, `-d…`
//!   must be `-debug`); other words are `cluster`, `cluster.proc` or a user (`Owner`), ORed
//!   into one constraint (`-all`: `ClusterId >= 0`, with nothing else).
//! - The schedd sets `StageOutStart` on every job of the user that matches, sends each job's
//!   spool directory (its `Iwd` after `condor_submit -spool`) to the submitter, who restores
//!   the job's `SUBMIT_` attributes and writes the files into `SUBMIT_Iwd`, through
//!   `SUBMIT_TransferOutputRemaps`; then `StageOutFinish`. A job that was not spooled has
//!   nothing in the spool to fetch.
//! - Output: `Fetching data files...`, exit 0; on failure the error, then
//!   `ERROR: Failed to spool job files.`, exit 1. The usage goes to stderr with exit 1 for
//!   a bad command line; `-help` (and `--help`) print it on stdout with exit 0, as every
//!   condorlite tool answers help (HTCondor's prints it on stderr).
//!
//! The files are copied with the starter's confined copy: nothing outside the job's spool
//! directory is read (a symbolic link the job left that leads out is refused), and a file
//! already at the destination is replaced, never written through.
//!
//! The jobs stay in the queue while their `LeaveJobInQueue` holds (ten days after they
//! completed, for `-spool`; the master's periodic pass then moves them to the history);
//! `condor_rm` takes them out sooner.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction, Command};

use super::argv::match_prefix;
use super::Tool;
use crate::classad::cnum::strtol;
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr, Value};
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::client::locate::{is_valid_sinful, PoolLocation};
use crate::client::{ScheddLocation, Session};
use crate::error::CommandError;
use crate::output::render::lookup_str;
use crate::queue::spool::job_spool_dir;
use crate::queue::{JobQuery, QueueError};
use crate::starter::transfer::{copy_confined_to, remap};
use crate::version::{CONDOR_PLATFORM, CONDOR_VERSION};

pub const TOOL: Tool = Tool {
    name: "condor_transfer_data",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // Matched here by their second character, as transfer_data.cpp's main() does.
        unknown: Unknown::Verbatim,
    },
    usage_status: 1,
    run,
};

const NAME: &str = "condor_transfer_data";

pub fn command() -> Command {
    Command::new(NAME)
        .about("Fetch the output of spooled jobs")
        .long_about(
            "Fetch the output files of jobs submitted with condor_submit -spool (or -remote) \
             from the schedd's spool into the directories their submit descriptions named \
             (SUBMIT_Iwd, through the output remaps). Jobs are chosen by cluster, \
             cluster.proc, owner, -constraint, or -all; only the user's own jobs are \
             fetched. Options are recognised by their second character (-c, -ad, -a, -n, \
             -p, -v, -h, -d).",
        )
        .after_help(
            "Exit status: 0 when the files were fetched, 1 on any error or a bad command \
             line (-help exits 0).",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(crate::cli::args::help_flag("Display this message and exit"))
        .arg(
            Arg::new("version")
                .long("version")
                .action(ArgAction::SetTrue)
                .help("Display version information and exit"),
        )
        .arg(
            Arg::new("debug")
                .long("debug")
                .action(ArgAction::SetTrue)
                .help("Display debugging information while running"),
        )
        .arg(
            Arg::new("name")
                .long("name")
                .value_name("schedd_name")
                .help("Connect to the given schedd"),
        )
        .arg(
            Arg::new("pool")
                .long("pool")
                .value_name("hostname")
                .help("Use the given central manager to find daemons"),
        )
        .arg(
            Arg::new("addr")
                .long("addr")
                .value_name("<ip:port>")
                .help("Connect directly to the given \"sinful string\""),
        )
        .arg(
            Arg::new("constraint")
                .long("constraint")
                .value_name("expr")
                .action(ArgAction::Append)
                .help("Transfer data for all jobs matching the boolean expression"),
        )
        .arg(
            Arg::new("all")
                .long("all")
                .action(ArgAction::SetTrue)
                .help("Transfer data for all jobs (cannot be used with other constraints)"),
        )
        .arg(
            Arg::new("jobs")
                .value_name("cluster|cluster.proc|user")
                .action(ArgAction::Append)
                .help("Transfer data for the given cluster, job, or user's jobs"),
        )
}

fn usage(err: &mut dyn Write) {
    let _ = write!(
        err,
        "Usage: {NAME} [options] [constraints]\n \
         where [options] is zero or more of:\n  \
         -help               Display this message and exit\n  \
         -version            Display version information and exit\n  \
         -name schedd_name   Connect to the given schedd\n  \
         -pool hostname      Use the given central manager to find daemons\n  \
         -addr <ip:port>     Connect directly to the given \"sinful string\"\n \
         and where [constraints] is one or more of:\n  \
         cluster.proc        transfer data for the given job\n  \
         cluster             transfer data for the given cluster of jobs\n  \
         user                transfer data for all jobs owned by user\n  \
         -constraint expr    transfer data for all jobs matching the boolean expression\n  \
         -all                transfer data for all jobs (cannot be used with other constraints)\n"
    );
}

fn usage_exit(err: &mut dyn Write, status: u8) -> CommandError {
    usage(err);
    CommandError::Exit(status)
}

fn fail(err: &mut dyn Write, text: String) -> CommandError {
    let _ = writeln!(err, "{text}");
    CommandError::Exit(1)
}

/// What the command line asks for, as transfer_data.cpp's `main` reads it.
#[derive(Debug, Default, PartialEq)]
struct Request {
    /// The words to make the constraint from, `-c…` and its value kept together.
    args: Vec<String>,
    all: bool,
    name: Option<String>,
    pool: Option<String>,
    addr: Option<String>,
}

/// What reading the command line came to: a request, or the end of the tool.
fn read_args(
    words: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Request, CommandError> {
    let mut r = Request::default();
    let mut it = words.iter();
    while let Some(arg) = it.next() {
        let bytes = arg.as_bytes();
        if bytes.first() != Some(&b'-') {
            if r.all {
                return Err(usage_exit(err, 1));
            }
            r.args.push(arg.clone());
            continue;
        }
        let Some(&second) = bytes.get(1) else {
            return Err(usage_exit(err, 1));
        };
        if arg == "--help" {
            return Err(usage_exit(out, 0));
        }
        let mut value = |what: &str, err: &mut dyn Write| match it.next() {
            Some(v) => Ok(v.clone()),
            None => Err(fail(
                err,
                format!("{NAME}: -{what} requires another argument"),
            )),
        };
        match second {
            b'd' => {
                // `is_dash_arg_colon_prefix(arg, "debug", &pcolon, 1)`.
                let word = arg.trim_start_matches('-');
                let word = word.split(':').next().unwrap_or(word);
                if word.is_empty() || !"debug".starts_with(word) {
                    return Err(fail(err, format!("{NAME}: unknown argument {arg}")));
                }
            }
            b'c' => {
                let v = value("constraint", err)?;
                r.args.push(arg.clone());
                r.args.push(v);
            }
            b'a' if bytes.get(2) == Some(&b'd') => {
                let v = value("addr", err)?;
                if !is_valid_sinful(&v) {
                    return Err(fail(
                        err,
                        format!(
                            "{NAME}: \"{v}\" is not a valid address\nShould be of the form \
                             <ip.address.here:port>\nFor example: <123.456.789.123:6789>"
                        ),
                    ));
                }
                r.addr = Some(v);
            }
            b'a' => r.all = true,
            b'n' => r.name = Some(value("name", err)?),
            b'p' => r.pool = Some(value("pool", err)?),
            b'v' => {
                let _ = write!(out, "{CONDOR_VERSION}\n{CONDOR_PLATFORM}\n");
                return Err(CommandError::Exit(0));
            }
            // HTCondor prints this usage on stderr; condorlite's tools answer -help on
            // stdout, as every tool here does.
            b'h' => return Err(usage_exit(out, 0)),
            _ => {
                let _ = writeln!(err, "Unrecognized option: {arg}");
                return Err(usage_exit(err, 1));
            }
        }
    }
    if !r.all && r.args.is_empty() {
        let _ = writeln!(err, "You did not specify any jobs");
        return Err(usage_exit(err, 1));
    }
    Ok(r)
}

/// `procArg`: the constraint of a job-id or user word, or a warning.
fn proc_arg(arg: &str, err: &mut dyn Write) -> Option<String> {
    let bytes = arg.as_bytes();
    let first = bytes.first().copied().unwrap_or(0);
    if first.is_ascii_digit() {
        let (c, used) = strtol(bytes);
        let c = c as i32;
        if c <= 0 {
            let _ = writeln!(err, "Invalid cluster # from {arg}.");
            return None;
        }
        let rest = &bytes[used..];
        if rest.is_empty() {
            return Some(format!("ClusterId=={c}"));
        }
        if rest[0] == b'.' {
            let (p, used) = strtol(&rest[1..]);
            let p = p as i32;
            if p < 0 {
                let _ = writeln!(err, "Invalid proc # from {arg}.");
                return None;
            }
            if used + 1 == rest.len() {
                return Some(format!("(ClusterId=={c} && ProcId=={p})"));
            }
        }
        let _ = writeln!(err, "Warning: unrecognized \"{arg}\" skipped.");
        None
    } else if first.is_ascii_alphabetic() {
        Some(format!("Owner == \"{arg}\""))
    } else {
        let _ = writeln!(err, "Warning: unrecognized \"{arg}\" skipped");
        None
    }
}

/// The constraint the words make (`addConstraint`: `(a) || (b)`); `None` when none.
fn constraint(r: &Request, err: &mut dyn Write) -> Option<String> {
    let mut parts = Vec::new();
    if r.all {
        parts.push("ClusterId >= 0".to_owned());
    } else {
        let mut i = 0;
        while i < r.args.len() {
            let a = &r.args[i];
            // (Only a `-c…` word is followed by its value here.)
            if a.starts_with('-') && match_prefix(a, "-constraint") && i + 1 < r.args.len() {
                i += 1;
                parts.push(r.args[i].clone());
            } else if let Some(c) = proc_arg(a, err) {
                parts.push(c);
            }
            i += 1;
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(
        parts
            .iter()
            .map(|p| format!("({p})"))
            .collect::<Vec<_>>()
            .join(" || "),
    )
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let words = inv.raw_strings();
    let request = read_args(&words, out, err)?;
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    // `DCSchedd::locate()`.
    let schedd = session.schedd_name();
    let located = match (&request.addr, &request.pool) {
        (Some(_), _) => true,
        (None, Some(pool)) => match session.locate_pool(pool) {
            PoolLocation::Local => true,
            PoolLocation::UnknownHost(host) => {
                return Err(fail(err, format!("{NAME}: unknown host {host}")))
            }
            PoolLocation::Elsewhere(_) => false,
        },
        (None, None) => true,
    };
    let name_ok = match request.name.as_deref().map(|n| session.locate_schedd(n)) {
        None | Some(ScheddLocation::Local) => true,
        Some(ScheddLocation::UnknownHost(host)) => {
            return Err(fail(err, format!("{NAME}: unknown host {host}")))
        }
        Some(ScheddLocation::NotFound(_)) => false,
    };
    if !located || !name_ok {
        let who = request.name.as_deref().unwrap_or(&schedd);
        return Err(fail(
            err,
            format!("{NAME}: Can't find address for schedd {who}"),
        ));
    }
    let Some(text) = constraint(&request, err) else {
        return Err(fail(err, "Unable to create a job constraint!".into()));
    };
    let _ = writeln!(out, "Fetching data files...");
    let _ = out.flush();
    let failed = |err: &mut dyn Write, detail: String| {
        let _ = write!(err, "\n{detail}\nERROR: Failed to spool job files.\n");
        CommandError::Exit(1)
    };
    if let Some(addr) = &request.addr {
        if !session.is_local_address(addr) {
            return Err(failed(
                err,
                format!("CEDAR:6001:Failed to connect to {addr}"),
            ));
        }
    }
    let expr = parse_old_expr(&text)
        .map_err(|e| failed(err, format!("SCHEDD:1:Invalid constraint {text}: {e}")))?;
    fetch(&session, expr).map_err(|detail| failed(err, detail))
}

/// The schedd's and the submitter's halves of `TRANSFER_DATA`, for every job of the user
/// that `expr` matches.
fn fetch(session: &Session, expr: Expr) -> Result<(), String> {
    let mut queue = session.open_queue().map_err(|e| e.to_string())?;
    let now = session.now;
    let superuser = session.user_is_superuser();
    let query = JobQuery::all().with_constraint(expr);
    let jobs = queue
        .transaction(|tx| {
            let mut jobs = Vec::new();
            for id in tx.job_ids(&query)? {
                let Some(job) = tx.job(id)? else { continue };
                let ad = job.into_ad()?;
                let owner = lookup_str(&ad, "Owner").map(|s| s.to_string());
                if !superuser && owner.as_deref() != Some(session.user.as_str()) {
                    continue;
                }
                tx.set_attr(id, "StageOutStart", Expr::lit(now))?;
                jobs.push((id, ad));
            }
            Ok::<_, QueueError>(jobs)
        })
        .map_err(|e| e.to_string())?;
    let mut done = Vec::new();
    for (id, ad) in &jobs {
        receive_sandbox(session.spool(), *id, ad)?;
        done.push(*id);
    }
    queue
        .transaction(|tx| {
            for id in &done {
                if tx.job_status(*id)?.is_some() {
                    tx.set_attr(*id, "StageOutFinish", Expr::lit(now))?;
                }
            }
            Ok::<_, QueueError>(())
        })
        .map_err(|e| e.to_string())
}

fn string(ad: &ClassAd, name: &str) -> Option<String> {
    match ad.lookup(name) {
        Some(Expr::Lit(Value::Str(s))) => Some(s.to_string()),
        _ => None,
    }
}

/// One job's files: every entry of its spool directory, to `SUBMIT_Iwd` (through
/// `SUBMIT_TransferOutputRemaps`). A job that was not spooled has none.
fn receive_sandbox(spool: &Path, id: crate::queue::JobId, ad: &ClassAd) -> Result<(), String> {
    let Some(iwd) = string(ad, "SUBMIT_Iwd") else {
        return Ok(());
    };
    let dir = job_spool_dir(spool, id);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("FILETRANSFER:1:{}: {e}", dir.display())),
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    let remaps = string(ad, "SUBMIT_TransferOutputRemaps").unwrap_or_default();
    let iwd = PathBuf::from(iwd);
    for name in names {
        let target = remap(&remaps, &name, 128)
            .map_err(|cycle| format!("FILETRANSFER:1:remaps resulted in a cycle: {cycle}"))?;
        let dst = match target {
            Some(t) if t.starts_with('/') => PathBuf::from(t),
            Some(t) => iwd.join(t),
            None => iwd.join(&name),
        };
        if let Some(parent) = dst.parent() {
            if !parent.is_dir() {
                return Err(format!(
                    "FILETRANSFER:1:cannot write {}: its directory does not exist",
                    dst.display()
                ));
            }
        }
        copy_confined_to(&dir, &name, &dst).map_err(|e| format!("FILETRANSFER:1:job {id}: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    fn read(w: &[&str]) -> (Result<Request, CommandError>, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let r = read_args(&words(w), &mut out, &mut err);
        (
            r,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn options_go_by_their_second_character() {
        let (r, _, _) = read(&["-cons", "Owner == \"a\"", "-alpha", "-nm", "s", "-px", "p"]);
        let r = r.unwrap();
        assert!(r.all);
        assert_eq!(r.name.as_deref(), Some("s"));
        assert_eq!(r.pool.as_deref(), Some("p"));
        assert_eq!(r.args, ["-cons", "Owner == \"a\""]);
        let (r, _, err) = read(&["-adx", "nowhere"]);
        assert!(matches!(r, Err(CommandError::Exit(1))));
        assert!(err.starts_with(
            "condor_transfer_data: \"nowhere\" is not a valid address\nShould be of the form"
        ));
        let (r, _, err) = read(&["-c"]);
        assert!(matches!(r, Err(CommandError::Exit(1))));
        assert_eq!(
            err,
            "condor_transfer_data: -constraint requires another argument\n"
        );
        let (r, _, err) = read(&["-x"]);
        assert!(matches!(r, Err(CommandError::Exit(1))));
        assert!(err.starts_with("Unrecognized option: -x\nUsage: condor_transfer_data"));
        let (r, _, err) = read(&["-dx"]);
        assert!(matches!(r, Err(CommandError::Exit(1))));
        assert_eq!(err, "condor_transfer_data: unknown argument -dx\n");
        let (r, _, err) = read(&[]);
        assert!(matches!(r, Err(CommandError::Exit(1))));
        assert!(err.starts_with("You did not specify any jobs\nUsage:"));
        let (r, _, _) = read(&["-all", "3"]);
        assert!(matches!(r, Err(CommandError::Exit(1))));
        let (r, out, _) = read(&["-h"]);
        assert!(matches!(r, Err(CommandError::Exit(0))));
        assert!(out.starts_with("Usage: condor_transfer_data [options] [constraints]\n"));
        let (r, out, _) = read(&["-v"]);
        assert!(matches!(r, Err(CommandError::Exit(0))));
        assert_eq!(out.lines().count(), 2);
    }

    #[test]
    fn words_make_one_constraint() {
        let r = Request {
            args: words(&[
                "3",
                "4.1",
                "alice",
                "-c",
                "JobPrio > 1",
                "0",
                "5.-1",
                "6x",
                "+u",
                "",
            ]),
            ..Request::default()
        };
        let mut err = Vec::new();
        assert_eq!(
            constraint(&r, &mut err).unwrap(),
            "(ClusterId==3) || ((ClusterId==4 && ProcId==1)) || (Owner == \"alice\") || \
             (JobPrio > 1)"
        );
        assert_eq!(
            String::from_utf8(std::mem::take(&mut err)).unwrap(),
            "Invalid cluster # from 0.\nInvalid proc # from 5.-1.\n\
             Warning: unrecognized \"6x\" skipped.\nWarning: unrecognized \"+u\" skipped\n\
             Warning: unrecognized \"\" skipped\n"
        );
        let all = Request {
            all: true,
            ..Request::default()
        };
        assert_eq!(constraint(&all, &mut err).unwrap(), "(ClusterId >= 0)");
    }
}
