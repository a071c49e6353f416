//! How a tool fails: the one error type every tool's `run()` returns ([`CommandError`]), and the
//! one place ([`report`]) that turns it into HTCondor's exit status and a `<tool>: <message>` line
//! on stderr.
//!
//! Library modules keep their own typed errors (`thiserror`) and convert into [`CommandError`]
//! at the edge, either with a `From` impl or by choosing a variant: [`CommandError::Usage`] for a
//! command line the tool cannot accept, [`CommandError::Failed`] for a failure with a specific
//! exit status, [`CommandError::Exit`] when the tool has already printed its own diagnostics
//! (HTCondor tools often print several lines, or a message without the tool-name prefix).
//! A broken pipe on stdout (`condor_q | head`) is not an error: the tool stops quietly.

use std::io::{self, Write};

/// The exit status of a tool that failed for a reason HTCondor does not give a status of its own.
pub const EXIT_FAILURE: u8 = 1;

/// Why a tool stopped before finishing its work.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The command line is not acceptable (unknown option, missing option value, ...): exits with
    /// the tool's usage status (`Tool::usage_status`, 1 for most HTCondor tools, 255 for
    /// `classad_eval`).
    #[error("{0}")]
    Usage(String),

    /// An error from clap. `--help` arrives here too, as a "display help" error that is printed
    /// on stdout with exit status 0.
    #[error(transparent)]
    Clap(#[from] clap::Error),

    /// A failure with an HTCondor-specified exit status and a one-line message.
    #[error("{message}")]
    Failed { status: u8, message: String },

    /// Exit with this status; the tool has already written everything it had to say.
    #[error("exit status {0}")]
    Exit(u8),

    /// An I/O error, most often writing to stdout.
    #[error(transparent)]
    Io(#[from] io::Error),

    /// Anything else, with the context that the edge added.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl CommandError {
    /// A failure with the given exit status and message.
    pub fn failed(status: u8, message: impl Into<String>) -> Self {
        CommandError::Failed {
            status,
            message: message.into(),
        }
    }

    /// True when the error is, at bottom, a closed stdout (`tool | head`).
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            CommandError::Io(e) => e.kind() == io::ErrorKind::BrokenPipe,
            CommandError::Other(e) => e.chain().any(|cause| {
                cause
                    .downcast_ref::<io::Error>()
                    .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            }),
            _ => false,
        }
    }

    /// The exit status this error ends the tool with.
    pub fn exit_status(&self, usage_status: u8) -> u8 {
        match self {
            _ if self.is_broken_pipe() => 0,
            CommandError::Usage(_) => usage_status,
            CommandError::Clap(e) if is_display(e) => 0,
            CommandError::Clap(_) => usage_status,
            CommandError::Failed { status, .. } | CommandError::Exit(status) => *status,
            CommandError::Io(_) | CommandError::Other(_) => EXIT_FAILURE,
        }
    }
}

/// clap reports `--help` (and `--version`) as errors, though they are successes.
fn is_display(e: &clap::Error) -> bool {
    matches!(
        e.kind(),
        clap::error::ErrorKind::DisplayHelp
            | clap::error::ErrorKind::DisplayVersion
            | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    )
}

/// Prints what `result` has to say and returns the tool's exit status.
///
/// Help goes to `out`; errors go to `err` as `<tool>: <message>`. Failures to write these
/// messages are ignored: there is nowhere left to report them.
pub fn report(
    tool: &str,
    usage_status: u8,
    result: Result<(), CommandError>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let Err(error) = result else {
        return 0;
    };
    let status = error.exit_status(usage_status);
    if error.is_broken_pipe() {
        return status;
    }
    match &error {
        CommandError::Exit(_) => {}
        CommandError::Clap(e) if is_display(e) => {
            let _ = write!(out, "{}", e.render());
            let _ = out.flush();
        }
        CommandError::Clap(e) => {
            let _ = writeln!(err, "{tool}: {}", clap_message(e));
        }
        CommandError::Other(e) => {
            // anyhow's alternate form puts the whole context chain on one line.
            let _ = writeln!(err, "{tool}: {e:#}");
        }
        other => {
            let _ = writeln!(err, "{tool}: {other}");
        }
    }
    let _ = err.flush();
    status
}

/// clap's message without its `error: ` label, usage and tips: the first line is the message.
fn clap_message(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reported(result: Result<(), CommandError>) -> (u8, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = report("condor_x", 255, result, &mut out, &mut err);
        (
            status,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn success_is_silent() {
        assert_eq!(reported(Ok(())), (0, String::new(), String::new()));
    }

    #[test]
    fn usage_error_uses_the_tool_status() {
        let (status, out, err) = reported(Err(CommandError::Usage(
            "-file requires an argument".into(),
        )));
        assert_eq!(status, 255);
        assert_eq!(out, "");
        assert_eq!(err, "condor_x: -file requires an argument\n");
    }

    #[test]
    fn failed_carries_its_status() {
        let (status, _, err) = reported(Err(CommandError::failed(1, "no such job")));
        assert_eq!(status, 1);
        assert_eq!(err, "condor_x: no such job\n");
    }

    #[test]
    fn exit_prints_nothing() {
        assert_eq!(
            reported(Err(CommandError::Exit(3))),
            (3, String::new(), String::new())
        );
    }

    #[test]
    fn broken_pipe_is_quiet_success() {
        let pipe = || io::Error::new(io::ErrorKind::BrokenPipe, "pipe");
        assert_eq!(
            reported(Err(CommandError::Io(pipe()))),
            (0, String::new(), String::new())
        );
        let wrapped = anyhow::Error::new(pipe()).context("writing the job table");
        assert_eq!(
            reported(Err(CommandError::Other(wrapped))),
            (0, String::new(), String::new())
        );
    }

    #[test]
    fn other_errors_print_their_context_chain() {
        let e = anyhow::anyhow!("disk full").context("writing the spool");
        let (status, _, err) = reported(Err(CommandError::Other(e)));
        assert_eq!(status, EXIT_FAILURE);
        assert_eq!(err, "condor_x: writing the spool: disk full\n");
    }

    #[test]
    fn clap_help_goes_to_stdout_with_status_0() {
        let cmd = clap::Command::new("condor_x").about("does x");
        let e = cmd
            .try_get_matches_from(["condor_x", "--help"])
            .unwrap_err();
        let (status, out, err) = reported(Err(e.into()));
        assert_eq!(status, 0);
        assert!(out.contains("does x"), "{out}");
        assert_eq!(err, "");
    }

    #[test]
    fn clap_errors_are_one_line() {
        let cmd = clap::Command::new("condor_x");
        let e = cmd.try_get_matches_from(["condor_x", "extra"]).unwrap_err();
        let (status, _, err) = reported(Err(e.into()));
        assert_eq!(status, 255);
        assert_eq!(err, "condor_x: unexpected argument 'extra' found\n");
    }
}
