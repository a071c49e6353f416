//! `condor_version`: the version and platform strings, as HTCondor's
//! src/condor_tools/version.cpp prints them.
//!
//! With no argument it prints `$CondorVersion: ... $` and `$CondorPlatform: ... $`. Each
//! argument is looked at by its second character only, as HTCondor does: `-a...` prints the
//! architecture part of the platform, `-o...` the operating-system part (in the order first
//! asked for), `-h...` (and `--help`) prints the usage and exits 0; anything else is an error
//! (the usage on stderr, exit status 1). Asked for, the usage goes to stdout, where every
//! condorlite tool prints its help (HTCondor prints it on stderr).

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::error::CommandError;
use crate::version::{platform_arch, platform_opsys, CONDOR_PLATFORM, CONDOR_VERSION};

pub const TOOL: Tool = Tool {
    name: "condor_version",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // Every word reaches run(), which reads it as version.cpp does.
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

const ARGS: &str = "args";

pub fn command() -> Command {
    Command::new("condor_version")
        .about("Print the HTCondor version and platform strings")
        .long_about(
            "Print the version and platform strings of this build. Options are recognised \
             by their first letter: -arch prints the ARCH part of the platform string, \
             -opsys the OPSYS part, -help the usage.",
        )
        .after_help("Exit status: 0 on success, 1 for an argument it does not know.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new(ARGS)
                .value_name("-arch|-opsys|-help")
                .action(ArgAction::Append)
                .help("-arch, -opsys or -help"),
        )
}

fn usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "Usage: condor_version [options]\n   If no options are specified, print the version \
         and platform strings\n   where the tool was built.  Valid options are:\n   \
         -help\t(this message)\n   -arch\t(print the ARCH string)\n   -opsys\t(print the \
         OPSYS string)\n"
    );
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let (mut arch, mut opsys, mut opsys_first) = (false, false, false);
    for (_, word) in inv.indexed::<String>(ARGS) {
        if word == "--help" {
            usage(out);
            return Ok(());
        }
        if !word.starts_with('-') {
            let _ = writeln!(err, "ERROR: invalid argument: '{word}'");
            usage(err);
            return Err(CommandError::Exit(1));
        }
        match word.as_bytes().get(1) {
            Some(b'a') => arch = true,
            Some(b'o') => {
                opsys = true;
                opsys_first |= !arch;
            }
            Some(b'h') => {
                usage(out);
                return Ok(());
            }
            _ => {
                let _ = writeln!(err, "ERROR: unrecognized argument: '{word}'");
                usage(err);
                return Err(CommandError::Exit(1));
            }
        }
    }
    if opsys_first {
        writeln!(out, "{}", platform_opsys())?;
    }
    if arch {
        writeln!(out, "{}", platform_arch())?;
    }
    if opsys && !opsys_first {
        writeln!(out, "{}", platform_opsys())?;
    }
    if !arch && !opsys {
        writeln!(out, "{CONDOR_VERSION}\n{CONDOR_PLATFORM}")?;
    }
    Ok(())
}
