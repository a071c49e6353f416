//! `condor_master`: starts the pool's one daemon process ([`crate::daemon`]).
//!
//! As HTCondor's master: it detaches into the background unless `-f` (foreground) is given,
//! `-t` (HTCondor's "log to the terminal") is accepted and ignored, the log being always
//! `$(LOG)/MasterLog`, and `-b`
//! asks for the background explicitly. A second master for the same `LOCAL_DIR` refuses to
//! start, naming the one that runs.

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::daemon::{run_master, MasterOptions};
use crate::error::CommandError;

pub const TOOL: Tool = Tool {
    name: "condor_master",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run,
};

const PREFIXES: &[Prefix] = &[
    Prefix::exact("f"),
    Prefix::exact("t"),
    Prefix::exact("b"),
    Prefix::min("version", 1),
    Prefix::min("help", 1),
];

fn command() -> Command {
    Command::new("condor_master")
        .about("Run the pool: the schedd, the negotiator and the startd in one process")
        .after_help(
            "The master detaches into the background unless -f is given. One master runs per \
             LOCAL_DIR; condor_off -master stops it, condor_restart restarts it.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print this help"),
        )
        .arg(
            Arg::new("f")
                .long("f")
                .action(ArgAction::SetTrue)
                .help("Run in the foreground"),
        )
        .arg(
            Arg::new("b")
                .long("b")
                .action(ArgAction::SetTrue)
                .help("Run in the background (the default)"),
        )
        .arg(
            Arg::new("t")
                .long("t")
                .action(ArgAction::SetTrue)
                .help("Log to the terminal (accepted; the log is always $(LOG)/MasterLog)"),
        )
        .arg(
            Arg::new("version")
                .long("version")
                .action(ArgAction::SetTrue)
                .help("Print the version"),
        )
}

/// condor_master's command line, parsed once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct MasterArgs {
    /// `-version`: print the version and exit.
    version: bool,
    /// `-f`: run in the foreground (unless `-b` is also given).
    foreground: bool,
}

impl MasterArgs {
    /// Reads the parsed command line (the only place that looks options up by name).
    fn from_invocation(inv: &Invocation) -> MasterArgs {
        let m = &inv.matches;
        MasterArgs {
            version: m.get_flag("version"),
            foreground: m.get_flag("f") && !m.get_flag("b"),
        }
    }
}

fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let args = MasterArgs::from_invocation(inv);
    if args.version {
        writeln!(out, "{}", crate::version::CONDOR_VERSION)?;
        writeln!(out, "{}", crate::version::CONDOR_PLATFORM)?;
        return Ok(());
    }
    let options = MasterOptions {
        foreground: args.foreground,
    };
    out.flush()?;
    if let Err(e) = run_master(options) {
        writeln!(err, "ERROR: {e}")?;
        return Err(CommandError::Exit(1));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> MasterArgs {
        MasterArgs::from_invocation(&TOOL.parse_words(args).expect("a valid command line"))
    }

    #[test]
    fn flags() {
        assert_eq!(parse(&[]), MasterArgs::default());
        assert!(parse(&["-v"]).version);
        assert!(parse(&["-f"]).foreground);
        assert!(!parse(&["-f", "-b"]).foreground);
        assert!(!parse(&["-b"]).foreground);
        assert_eq!(parse(&["-t"]), MasterArgs::default());
    }
}
