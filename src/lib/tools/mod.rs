//! The tools, one module each, and the one registry ([`TOOLS`]) that lists them.
//!
//! A tool module holds its clap definition, its HTCondor option-matching rules and its `run()`,
//! and exports them as a [`Tool`]. Its binary, `src/bin/<name>.rs`, only calls [`main`]. The man
//! page and completion generator ([`crate::cli::generate`]) and the integration tests iterate
//! over the registry, so a tool added here is documented and tested with the others.

pub mod argv;
pub mod check_userlogs;
pub mod chirp;
pub mod classad_eval;
pub mod config_val;
pub mod daemon_cmd;
pub mod dag_checker;
pub mod dagman;
pub mod drain;
pub mod evicted_files;
pub mod history;
pub mod master;
pub mod now;
pub mod options;
pub mod prio;
pub mod q;
pub mod qedit;
pub mod rm;
pub mod run;
pub mod sim;
pub mod ssh_to_job;
pub mod status;
pub mod store_cred;
pub mod submit;
pub mod submit_dag;
pub mod submit_interactive;
pub mod tail;
pub mod token;
pub mod transfer_data;
pub mod userlog;
pub mod userprio;
pub mod version;
pub mod wait;
pub mod watch_q;
pub mod who;

/// Sets `handler` for the signals a tool waiting on its job handles (SIGHUP, SIGINT,
/// SIGQUIT, SIGTERM), as condor_run's script and condor_ssh_to_job do. A handler must only
/// do what is async-signal-safe (store to an atomic).
pub(crate) fn set_wait_signals(handler: nix::sys::signal::SigHandler) {
    use nix::sys::signal::{sigaction, SaFlags, SigAction, SigSet, Signal};
    let action = SigAction::new(handler, SaFlags::SA_RESTART, SigSet::empty());
    for s in [
        Signal::SIGHUP,
        Signal::SIGINT,
        Signal::SIGQUIT,
        Signal::SIGTERM,
    ] {
        // SAFETY: the handlers given store to an atomic, or are SIG_IGN/SIG_DFL.
        let _ = unsafe { sigaction(s, &action) };
    }
}

use std::ffi::OsString;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use clap::Command;

use crate::cli::args::ArgSpec;
use crate::cli::Invocation;
use crate::error::{self, CommandError};

/// Every tool condorlite provides.
pub static TOOLS: &[Tool] = &[
    classad_eval::TOOL,
    config_val::TOOL,
    q::TOOL,
    rm::RM,
    rm::HOLD,
    rm::RELEASE,
    rm::VACATE_JOB,
    rm::SUSPEND,
    rm::CONTINUE,
    qedit::TOOL,
    prio::TOOL,
    history::TOOL,
    submit::TOOL,
    transfer_data::TOOL,
    tail::TOOL,
    chirp::TOOL,
    who::TOOL,
    ssh_to_job::TOOL,
    evicted_files::TOOL,
    now::TOOL,
    userlog::TOOL,
    check_userlogs::TOOL,
    dagman::TOOL,
    dag_checker::TOOL,
    submit_dag::TOOL,
    userprio::TOOL,
    status::TOOL,
    wait::TOOL,
    watch_q::TOOL,
    master::TOOL,
    daemon_cmd::OFF,
    daemon_cmd::ON,
    daemon_cmd::RESTART,
    daemon_cmd::RECONFIG,
    daemon_cmd::RESCHEDULE,
    drain::TOOL,
    run::TOOL,
    sim::TOOL,
    version::TOOL,
    token::CREATE,
    token::LIST,
    token::FETCH,
    store_cred::TOOL,
];

/// What a tool does with its parsed command line: writes its results to `out` and its
/// diagnostics to `err`.
pub type RunFn =
    fn(&Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError>;

/// One command: its name, its command line, and what it does.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The command's name, as typed (`condor_q`).
    pub name: &'static str,
    /// The clap definition: options, their help and value types.
    pub clap: fn() -> Command,
    /// HTCondor's option-matching rules for the tool (see [`crate::cli::args`]).
    pub args: ArgSpec,
    /// The exit status for a command line the tool rejects (1 for most HTCondor tools).
    pub usage_status: u8,
    pub run: RunFn,
}

impl Tool {
    /// The tool's clap command, named after the tool.
    pub fn command(&self) -> Command {
        (self.clap)().name(self.name).bin_name(self.name)
    }

    /// Parses a command line (`argv[0]` is the program name).
    pub fn parse<I, T>(&self, argv: I) -> Result<Invocation, CommandError>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        Invocation::parse(self.command(), &self.args, argv)
    }

    /// Runs the tool in this process: parses `argv`, runs, reports any error on `err`, and
    /// returns the exit status.
    pub fn execute<I, T>(&self, argv: I, out: &mut dyn Write, err: &mut dyn Write) -> u8
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        let result = self
            .parse(argv)
            .and_then(|invocation| (self.run)(&invocation, out, err));
        // What the tool wrote comes out before any error message about it.
        let flushed = out.flush().map_err(CommandError::from);
        error::report(self.name, self.usage_status, result.and(flushed), out, err)
    }
}

#[cfg(test)]
impl Tool {
    /// Parses the words after the program name (for the tests of the tools' typed arguments).
    pub(crate) fn parse_words(&self, words: &[&str]) -> Result<Invocation, CommandError> {
        self.parse(std::iter::once(self.name).chain(words.iter().copied()))
    }
}

/// The registered tool called `name`.
pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|tool| tool.name == name)
}

/// The `main` of every binary: runs tool `name` on the process's arguments and standard streams.
///
/// # Panics
/// If no tool of that name is registered.
pub fn main(name: &str) -> ExitCode {
    if let Some(code) = crate::starter::launcher::serve_if_asked() {
        return code;
    }
    crate::starter::launcher::enable();
    let tool = find(name).unwrap_or_else(|| panic!("{name} is not in the tool registry"));
    let stdout = io::stdout();
    // Like C stdio: line by line for a person, in blocks for a pipe or a file.
    let mut out: Box<dyn Write> = if stdout.is_terminal() {
        Box::new(stdout.lock())
    } else {
        Box::new(BufWriter::with_capacity(64 * 1024, stdout.lock()))
    };
    let mut err = io::stderr().lock();
    let status = tool.execute(std::env::args_os(), &mut out, &mut err);
    ExitCode::from(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, tool) in TOOLS.iter().enumerate() {
            assert!(
                TOOLS[..i].iter().all(|other| other.name != tool.name),
                "{} is registered twice",
                tool.name
            );
        }
    }

    #[test]
    fn commands_are_valid() {
        for tool in TOOLS {
            let cmd = crate::cli::args::prepare(tool.command(), &tool.args);
            cmd.debug_assert();
        }
    }

    #[test]
    fn find_finds_registered_tools() {
        assert_eq!(find("classad_eval").map(|t| t.name), Some("classad_eval"));
        assert!(find("condor_nonesuch").is_none());
    }
}
