//! `condor_drain`: drain the startd (or stop draining it), as HTCondor's
//! src/condor_tools/drain.cpp asks it.
//!
//! `condor_drain [-graceful|-quick|-fast] [-reason text] [-resume-on-completion |
//! -exit-on-completion | -restart-on-completion | -reconfig-on-completion] [-check expr]
//! [-start expr] [-verbose] machine` drains; `condor_drain -cancel [-request-id id] machine`
//! stops. The options come before the one machine, are matched by HTCondor's minimum
//! prefixes, and are checked as drain.cpp checks them (exit 2, or 1 for `-help` and a missing
//! option value). The machine names the startd: its `Name`, its `Machine`, or the host's short
//! or full name. On success it prints drain.cpp's line (`Sent request to drain the startd
//! <address> with <name>. ...`, and with `-verbose` the request id) and exits 0; a request the
//! startd refuses (a `-check` that is not true for every slot, an unknown `-request-id`) prints
//! `Attempt to send DRAIN_JOBS to startd <address> failed` and why, and exits 1.
//!
//! The startd's side is [`crate::startd::Startd::drain`]; the request travels through the
//! master's socket ([`crate::client::master::Command::Drain`]).

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::client::locate::PoolLocation;
use crate::client::master::{self, AdKind, DrainArgs, MasterError};
use crate::client::{daemon_name, Session};
use crate::error::CommandError;
use crate::output::render::lookup_str;

pub const TOOL: Tool = Tool {
    name: "condor_drain",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // Every word reaches run(), which reads it in order as drain.cpp does.
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

const ARGS: &str = "args";

pub fn command() -> Command {
    Command::new("condor_drain")
        .about("Drain the startd of jobs, or stop draining it")
        .long_about(
            "Drain the startd of jobs: no new job starts, running jobs finish (-graceful, \
             honouring MaxJobRetirementTime and the vacate time), are vacated (-quick, \
             honouring the vacate time only) or killed (-fast). With -cancel, stop draining.",
        )
        .after_help(
            "Options: -graceful | -quick | -fast, -reason TEXT, -resume-on-completion | \
             -exit-on-completion | -restart-on-completion | -reconfig-on-completion, \
             -check EXPR, -start EXPR, -cancel, -request-id ID, -verbose, -pool HOST, -debug. \
             Exit status: 0 when the request was sent, 1 when it failed, 2 for bad arguments.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new(ARGS)
                .value_name("OPTIONS... MACHINE")
                .action(ArgAction::Append)
                .allow_hyphen_values(true)
                .help("The options, then the machine to drain"),
        )
}

fn usage(err: &mut dyn Write) {
    let _ = write!(
        err,
        "Usage: condor_drain [OPTIONS] machine\n\
         \n\
         OPTIONS:\n\
         -cancel           Stop draining.\n\
         -debug            Display debugging info to console\n\
         -graceful         (the default) Honor MaxVacateTime and MaxJobRetirementTime.\n\
         -quick            Honor MaxVacateTime but not MaxJobRetirementTime.\n\
         -fast             Honor neither MaxVacateTime nor MaxJobRetirementTime.\n\
         -reason <text>    While draining, advertise <text> as the reason.\n\
         -resume-on-completion    When done draining, resume normal operation.\n\
         -exit-on-completion      When done draining, STARTD should exit and not restart.\n\
         -restart-on-completion   When done draining, STARTD should restart.\n\
         -reconfig-on-completion  When done draining, STARTD should reconfig and resume.\n\
         -request-id <id>  Specific request id to cancel (optional).\n\
         -check <expr>     Must be true for all slots to be drained or request is aborted.\n\
         -start <expr>     Change START expression to this while draining.\n"
    );
}

/// `is_dash_arg_prefix`: `-name` or `--name`, abbreviated to at least `min` characters.
fn is_dash_arg_prefix(arg: &str, name: &str, min: usize) -> bool {
    let Some(rest) = arg.strip_prefix('-') else {
        return false;
    };
    let word = rest.strip_prefix('-').unwrap_or(rest);
    !word.is_empty() && name.starts_with(word) && word.len() >= min.min(name.len())
}

/// What the command line asks for.
#[derive(Debug, Default)]
struct Request {
    cancel: bool,
    verbose: bool,
    args: DrainArgs,
    /// The `-on-completion` option given, by its own name.
    on_completion: Option<&'static str>,
    target: String,
    /// `-pool HOST`: the central manager to find the startd through.
    pool: Option<String>,
}

/// Why parsing stopped: the exit status, with the message printed.
struct Stop(i32);

/// What the command line asks for besides a request.
enum Parsed {
    Request(Box<Request>),
    Help,
    Version,
}

fn parse(words: &[String], err: &mut dyn Write) -> Result<Parsed, Stop> {
    let mut r = Request {
        args: DrainArgs {
            schedule: "graceful".to_owned(),
            on_completion: "nothing".to_owned(),
            ..DrainArgs::default()
        },
        ..Request::default()
    };
    let another = |err: &mut dyn Write, opt: &str| {
        let _ = writeln!(err, "condor_drain: '{opt}' requires another argument");
        usage(err);
        Stop(1)
    };
    let completions: [(&str, usize, &str); 4] = [
        ("resume-on-completion", 1, "resume"),
        ("exit-on-completion", 2, "exit"),
        ("restart-on-completion", 4, "restart"),
        ("reconfig-on-completion", 3, "reconfig"),
    ];
    let mut i = 0;
    while i < words.len() {
        let arg = words[i].as_str();
        let value = |i: &mut usize, err: &mut dyn Write| -> Result<String, Stop> {
            *i += 1;
            words.get(*i).cloned().ok_or_else(|| another(err, arg))
        };
        if is_dash_arg_prefix(arg, "help", 1) {
            // Asked for, the usage goes to stdout with status 0, as for every condorlite
            // tool (drain.cpp prints it on stderr and exits 1).
            return Ok(Parsed::Help);
        } else if is_dash_arg_prefix(arg, "version", 1) {
            return Ok(Parsed::Version);
        } else if is_dash_arg_prefix(arg, "debug", 3)
            || arg.starts_with("-debug:")
            || arg.starts_with("--debug:")
        {
        } else if is_dash_arg_prefix(arg, "verbose", 4) {
            r.verbose = true;
        } else if is_dash_arg_prefix(arg, "pool", 1) {
            r.pool = Some(value(&mut i, err)?);
        } else if is_dash_arg_prefix(arg, "cancel", 1) {
            r.cancel = true;
        } else if is_dash_arg_prefix(arg, "fast", 1) {
            r.args.schedule = "fast".to_owned();
        } else if is_dash_arg_prefix(arg, "quick", 1) {
            r.args.schedule = "quick".to_owned();
        } else if is_dash_arg_prefix(arg, "graceful", 1) {
            r.args.schedule = "graceful".to_owned();
        } else if let Some((name, _, word)) = completions
            .iter()
            .find(|(name, min, _)| is_dash_arg_prefix(arg, name, *min))
        {
            if let Some(previous) = r.on_completion {
                let _ = writeln!(
                    err,
                    "condor_drain: '{arg}' conflicts with previous use of '-{previous}'"
                );
                usage(err);
                return Err(Stop(1));
            }
            r.on_completion = Some(name);
            r.args.on_completion = (*word).to_owned();
        } else if is_dash_arg_prefix(arg, "reason", 3) {
            r.args.reason = Some(value(&mut i, err)?);
        } else if is_dash_arg_prefix(arg, "request-id", 3) {
            r.args.request_id = Some(value(&mut i, err)?);
        } else if is_dash_arg_prefix(arg, "check", 2) {
            r.args.check = Some(value(&mut i, err)?);
        } else if is_dash_arg_prefix(arg, "start", 5) {
            r.args.start = Some(value(&mut i, err)?);
        } else if !arg.starts_with('-') {
            break;
        } else {
            let _ = writeln!(err, "ERROR: unexpected argument: {arg}");
            return Err(Stop(2));
        }
        i += 1;
    }
    if i + 1 != words.len() {
        let _ = writeln!(err, "ERROR: must specify one target machine");
        return Err(Stop(2));
    }
    r.target = words[i].clone();
    let refuse = |err: &mut dyn Write, msg: &str| {
        let _ = writeln!(err, "ERROR: {msg}");
        Stop(2)
    };
    if !r.cancel && r.args.request_id.is_some() {
        return Err(refuse(err, "-request-id may only be used with -cancel"));
    }
    if r.cancel {
        if r.args.check.is_some() {
            return Err(refuse(err, "-check may not be used with -cancel"));
        }
        if r.on_completion.is_some() {
            return Err(refuse(
                err,
                "cannot use an -on-completion option with -cancel",
            ));
        }
        if r.args.reason.is_some() {
            return Err(refuse(err, "cannot use -reason with -cancel"));
        }
    }
    Ok(Parsed::Request(Box::new(r)))
}

/// The startd `target` names, from the master's startd ad: its `Name` and `MyAddress`.
fn locate(session: &Session, pool: Option<&str>, target: &str) -> Result<(String, String), String> {
    let not_found = || format!("Can't find address for startd {target}");
    // Another pool's collector cannot be asked.
    if pool.is_some_and(|p| session.locate_pool(p) != PoolLocation::Local) {
        return Err(not_found());
    }
    let ads = match master::query(&session.config, AdKind::Startd) {
        Ok(ads) => ads,
        Err(MasterError::NotRunning(_)) => {
            return Err(format!(
                "{}\n{}",
                not_found(),
                master::start_hint(&session.config)
            ))
        }
        Err(e) => return Err(e.to_string()),
    };
    let full = daemon_name(target, &session.config);
    for ad in ads {
        let name = lookup_str(&ad, "Name").map(|s| s.to_string());
        let machine = lookup_str(&ad, "Machine").map(|s| s.to_string());
        let Some(name) = name else { continue };
        let host = machine.unwrap_or_else(|| name.clone());
        let short = host.split('.').next().unwrap_or(&host).to_owned();
        let matches = [name.as_str(), host.as_str(), short.as_str()]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(target))
            || full
                .as_deref()
                .is_some_and(|f| f.eq_ignore_ascii_case(&name));
        if matches {
            let address = lookup_str(&ad, "MyAddress")
                .map(|s| s.to_string())
                .unwrap_or_default();
            return Ok((name, address));
        }
    }
    Err(not_found())
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let words: Vec<String> = inv
        .indexed::<String>(ARGS)
        .into_iter()
        .map(|(_, w)| w)
        .collect();
    let request = match parse(&words, err) {
        Ok(Parsed::Request(r)) => *r,
        Ok(Parsed::Help) => {
            usage(out);
            return Ok(());
        }
        Ok(Parsed::Version) => {
            writeln!(out, "{}", crate::config::condor_version())?;
            return Ok(());
        }
        Err(Stop(code)) => return Err(CommandError::Exit(code as u8)),
    };
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let (name, address) = match locate(&session, request.pool.as_deref(), &request.target) {
        Ok(found) => found,
        Err(e) => {
            let _ = writeln!(err, "ERROR: {e}");
            return Err(CommandError::Exit(1));
        }
    };
    let (command, what) = if request.cancel {
        (
            master::Command::CancelDrain(request.args.request_id.clone()),
            "CANCEL_DRAIN_JOBS",
        )
    } else {
        let mut args = request.args.clone();
        // The startd's default reason names who asked.
        args.reason
            .get_or_insert_with(|| format!("by {}", session.user));
        (master::Command::Drain(args), "DRAIN_JOBS")
    };
    match master::send(&session.config, &command) {
        Ok(_) if request.cancel => {
            writeln!(out, "Sent request to cancel draining on {name}")?;
        }
        Ok(id) => {
            writeln!(
                out,
                "Sent request to drain the startd {address} with {name}. This only affects \
                 the single startd; any other startds running on the same host will not be \
                 drained."
            )?;
            if request.verbose && !id.is_empty() {
                writeln!(out, "\tRequest id: {id}")?;
            }
        }
        Err(e) => {
            let why = match e {
                MasterError::Refused(text) => text,
                other => other.to_string(),
            };
            let _ = writeln!(
                err,
                "Attempt to send {what} to startd {address} failed\n{why}"
            );
            return Err(CommandError::Exit(1));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    fn parsed(s: &str) -> Result<Request, (i32, String)> {
        let mut err = Vec::new();
        match parse(&words(s), &mut err) {
            Ok(Parsed::Request(r)) => Ok(*r),
            Ok(_) => Err((0, String::new())),
            Err(Stop(c)) => Err((c, String::from_utf8(err).unwrap())),
        }
    }

    #[test]
    fn options_come_before_one_machine() {
        let r = parsed("-quick -reason x -resume-on-completion -check Cpus>0 host").unwrap();
        assert_eq!(r.args.schedule, "quick");
        assert_eq!(r.args.reason.as_deref(), Some("x"));
        assert_eq!(r.args.on_completion, "resume");
        assert_eq!(r.args.check.as_deref(), Some("Cpus>0"));
        assert_eq!(r.target, "host");
        assert_eq!(parsed("-f -g h").unwrap().args.schedule, "graceful");
        assert_eq!(parsed("-rest h").unwrap().args.on_completion, "restart");
        assert_eq!(parsed("-ex h").unwrap().args.on_completion, "exit");
    }

    #[test]
    fn drain_cpp_errors() {
        let (code, msg) = parsed("").unwrap_err();
        assert_eq!(
            (code, msg.as_str()),
            (2, "ERROR: must specify one target machine\n")
        );
        assert_eq!(parsed("a b").unwrap_err().0, 2);
        let (code, msg) = parsed("-bogus h").unwrap_err();
        assert_eq!(
            (code, msg.as_str()),
            (2, "ERROR: unexpected argument: -bogus\n")
        );
        let (_, msg) = parsed("-request-id 3 h").unwrap_err();
        assert_eq!(msg, "ERROR: -request-id may only be used with -cancel\n");
        let (_, msg) = parsed("-cancel -check true h").unwrap_err();
        assert_eq!(msg, "ERROR: -check may not be used with -cancel\n");
        let (_, msg) = parsed("-cancel -exit-on-completion h").unwrap_err();
        assert_eq!(
            msg,
            "ERROR: cannot use an -on-completion option with -cancel\n"
        );
        let (_, msg) = parsed("-cancel -reason r h").unwrap_err();
        assert_eq!(msg, "ERROR: cannot use -reason with -cancel\n");
        let (code, msg) = parsed("-resume-on-completion -exit-on-completion h").unwrap_err();
        assert_eq!(code, 1);
        assert!(msg.starts_with(
            "condor_drain: '-exit-on-completion' conflicts with previous use of \
             '-resume-on-completion'\n"
        ));
        let (code, msg) = parsed("-reason").unwrap_err();
        assert_eq!(code, 1);
        assert!(msg.starts_with("condor_drain: '-reason' requires another argument\n"));
        assert!(parsed("-cancel -request-id 7 h").is_ok());
    }
}
