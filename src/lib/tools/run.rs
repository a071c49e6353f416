//! `condor_run "shell command"`: runs a shell command as a job, waits for it, prints its
//! output and error, and exits with its exit status — HTCondor's src/condor_scripts/condor_run,
//! with its temporary files (`.condor_run.<pid>`, `.condor_submit.<pid>`,
//! `.condor_log.<pid>`, `.condor_out.<pid>`, `.condor_error.<pid>` in the current
//! directory), its submit description and its messages.
//!
//! With no `condor_master` running for the pool, it runs the pool inside its own process for
//! as long as the job takes ([`crate::daemon::EmbeddedPool`]): the command works on a machine
//! where nothing was set up.
//!
//! SIGHUP, SIGINT, SIGQUIT and SIGTERM while it waits remove the job (as the script's
//! handler runs `condor_rm`), remove the temporary files, print `Killed by SIG<NAME>.` and
//! exit 1.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::config::Config;
use crate::daemon::EmbeddedPool;
use crate::error::CommandError;
use crate::eventlog::{EventBody, ExitStatus, LogFollower};

pub const TOOL: Tool = Tool {
    name: "condor_run",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

const PREFIXES: &[Prefix] = &[
    Prefix::min("help", 2),
    Prefix::min("getenv", 2),
    Prefix::exact("u"),
    Prefix::exact("a"),
];

fn command() -> Command {
    Command::new("condor_run")
        .about("Run a shell command as a job and wait for it")
        .after_help(
            "The command's output and error are printed when the job ends, and condor_run \
             exits with the job's exit status. Environment variables CONDOR_ARCH, CONDOR_OPSYS \
             and CONDOR_REQUIREMENTS may add requirements. With no condor_master running, the \
             pool runs inside condor_run for the job's duration.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .trailing_var_arg(true)
        .arg(crate::cli::args::help_flag("Print the usage"))
        .arg(
            Arg::new("getenv")
                .long("getenv")
                .action(ArgAction::SetTrue)
                .help("Give the job this environment (getenv = True)"),
        )
        .arg(
            Arg::new("u")
                .long("u")
                .value_name("UNIVERSE")
                .help("The universe (default vanilla)"),
        )
        .arg(
            Arg::new("a")
                .long("a")
                .value_name("COMMAND")
                .action(ArgAction::Append)
                .help("An extra submit command, e.g. -a request_memory=1024"),
        )
        .arg(
            Arg::new("command")
                .value_name("SHELL-CMD")
                .num_args(0..)
                .allow_hyphen_values(true)
                .help("Any Unix shell statement"),
        )
}

const USAGE: &str = "\twhere shell-cmd is any Unix shell statement.
\t-u lets you set the universe to which the job is submitted.
\t   The default is vanilla.
\t-a lets you add additional submit commands
\t   e.g. -a request_memory=1024
\tEnvironment variables CONDOR_ARCH, CONDOR_OPSYS, and
\tCONDOR_REQUIREMENTS may specify remote machine's Arch,
\tOpSys, and any additional requirements.
";

/// condor_run's command line, parsed once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct RunArgs {
    /// `-help`: print the usage.
    help: bool,
    /// `-getenv`: give the job this environment (`getenv = True`).
    getenv: bool,
    /// `-u UNIVERSE` (vanilla by default).
    universe: Option<String>,
    /// `-a COMMAND`: extra submit commands, in order.
    submit_commands: Vec<String>,
    /// The shell command's words.
    command: Vec<String>,
}

impl RunArgs {
    /// Reads the parsed command line (the only place that looks options up by name).
    fn from_invocation(inv: &Invocation) -> RunArgs {
        let m = &inv.matches;
        let many = |id: &str| -> Vec<String> {
            m.get_many::<String>(id)
                .map(|v| v.cloned().collect())
                .unwrap_or_default()
        };
        RunArgs {
            help: m.get_flag("help"),
            getenv: m.get_flag("getenv"),
            universe: m.get_one::<String>("u").cloned(),
            submit_commands: many("a"),
            command: command_words(inv),
        }
    }
}

/// The shell command's words as given: a dash word among them (`echo -n hi`) is one of the
/// command's, whether clap took it as a value of the command (it carries the normaliser's
/// escape then) or as the escape option itself (before the first word).
fn command_words(inv: &Invocation) -> Vec<String> {
    let escape = format!("--{}=", crate::cli::args::HYPHEN_POSITIONAL);
    inv.indexed::<String>("command")
        .into_iter()
        .map(|(_, word)| match word.strip_prefix(&escape) {
            Some(carried) => carried.to_owned(),
            None => word,
        })
        .collect()
}

/// The temporary files, removed however condor_run ends.
struct TempFiles(Vec<PathBuf>);

impl Drop for TempFiles {
    fn drop(&mut self) {
        for f in &self.0 {
            let _ = std::fs::remove_file(f);
        }
    }
}

fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let args = RunArgs::from_invocation(inv);
    let words = &args.command;
    if args.help || words.is_empty() {
        writeln!(
            out,
            "usage: condor_run [-getenv] [-u <universe>] [-a command]* \"shell-cmd\""
        )?;
        write!(out, "{USAGE}")?;
        // HTCondor's script exits 1 even when asked for help; asked, condorlite exits 0.
        return if words.is_empty() && !args.help {
            Err(CommandError::Exit(1))
        } else {
            Ok(())
        };
    }
    let cwd = std::env::current_dir()?;
    let pid = std::process::id();
    let name = |stem: &str| cwd.join(format!(".condor_{stem}.{pid}"));
    let (script, jdf, log, output, error) = (
        name("run"),
        name("submit"),
        name("log"),
        name("out"),
        name("error"),
    );
    let _cleanup = TempFiles(vec![
        script.clone(),
        jdf.clone(),
        log.clone(),
        output.clone(),
        error.clone(),
    ]);
    let shell = std::env::var("SHELL").unwrap_or_else(|_| "/bin/sh".to_owned());
    let abort = |msg: &str| CommandError::failed(1, msg.to_owned());
    std::fs::write(&script, format!("#!{shell}\n{} \n", words.join(" ")))
        .map_err(|_| abort("Can't create temporary (CMD) file in current directory."))?;
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o700));
    }
    let universe = args.universe.as_deref().unwrap_or("vanilla");
    let mut requirements: Option<String> = std::env::var("CONDOR_REQUIREMENTS").ok();
    for (var, attr) in [("CONDOR_ARCH", "Arch"), ("CONDOR_OPSYS", "OpSys")] {
        if let Ok(v) = std::env::var(var) {
            let clause = format!("{attr} == \"{v}\"");
            requirements = Some(match requirements {
                Some(r) => format!("{r} && {clause}"),
                None => clause,
            });
        }
    }
    let file_name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    let mut text = format!(
        "universe = {universe}\nexecutable = {}\ninitialdir = {}\nnotification = NEVER\nlog = {}\noutput = {}\nerror = {}\n",
        file_name(&script),
        cwd.display(),
        file_name(&log),
        file_name(&output),
        file_name(&error),
    );
    if args.getenv {
        text.push_str("getenv = True\n");
    }
    if let Some(r) = requirements {
        text.push_str(&format!("requirements = {r}\n"));
    }
    for a in &args.submit_commands {
        text.push_str(a);
        text.push('\n');
    }
    text.push_str("queue\n");
    std::fs::write(&jdf, text)
        .map_err(|_| abort("Failed to write temporary (JDF) file in current directory."))?;

    let config = Config::load().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let pool = EmbeddedPool::start(&config).map_err(|e| CommandError::failed(1, e.to_string()))?;

    let mut submit_out = Vec::new();
    let mut submit_err = Vec::new();
    let status = super::submit::TOOL.execute(
        [
            "condor_submit".to_owned(),
            "-terse".to_owned(),
            jdf.to_string_lossy().into_owned(),
        ],
        &mut submit_out,
        &mut submit_err,
    );
    let submitted = String::from_utf8_lossy(&submit_out);
    let cluster = submitted
        .lines()
        .find_map(|l| l.split_once('.').map(|(c, _)| c.trim().to_owned()))
        .filter(|c| c.parse::<i64>().is_ok());
    let Some(cluster) = cluster.filter(|_| status == 0) else {
        err.write_all(&submit_err)?;
        err.write_all(&submit_out)?;
        writeln!(err, "Failed to submit Condor job.")?;
        drop(pool);
        return Err(CommandError::Exit(1));
    };
    // The pool run here runs this job only: the queue's others wait for a master.
    if let (Some(pool), Ok(id)) = (&pool, cluster.parse::<i32>()) {
        pool.adopt(id);
    }

    catch_signals();
    let outcome = wait_for_end(&log, pool.as_ref());
    let code = match outcome {
        Err(Interrupted::Signal(sig)) => {
            let _ = super::rm::RM.execute(
                ["condor_rm".to_owned(), cluster],
                &mut Vec::new(),
                &mut Vec::new(),
            );
            drop(pool);
            // The abort is logged once the job's process is gone: waited for (a little), so
            // that the log is not written again after it is removed.
            wait_for_abort(&log, Duration::from_secs(5));
            let name = crate::starter::signal_name(sig).unwrap_or("UNKNOWN");
            writeln!(err, "Killed by {name}.")?;
            return Err(CommandError::Exit(1));
        }
        Err(Interrupted::Failed(e)) => {
            // Removed before the pool (if it is ours) stops, so that it does not rerun it.
            let _ = super::rm::RM.execute(
                ["condor_rm".to_owned(), cluster],
                &mut Vec::new(),
                &mut Vec::new(),
            );
            drop(pool);
            return Err(abort(&e));
        }
        Ok(End::Exited(code)) => {
            drop(pool);
            code
        }
        Ok(End::Signal(sig)) => {
            drop(pool);
            writeln!(err, "Condor job killed by signal {sig}.")?;
            0
        }
        Ok(End::Aborted) => {
            drop(pool);
            write!(err, "The job was aborted")?;
            0
        }
    };
    let job_out = std::fs::read(&output).map_err(|_| abort("Failed to open job output file."))?;
    out.write_all(&job_out)?;
    let job_err = std::fs::read(&error).map_err(|_| abort("Failed to open job error file."))?;
    err.write_all(&job_err)?;
    if code != 0 {
        out.flush()?;
        return Err(CommandError::Exit(code.clamp(0, 255) as u8));
    }
    Ok(())
}

/// How the job ended.
enum End {
    Exited(i32),
    Signal(i32),
    Aborted,
}

/// Follows the job's log until the job's abort (or end) is in it, for at most `limit`.
fn wait_for_abort(log: &Path, limit: Duration) {
    let deadline = std::time::Instant::now() + limit;
    let mut follower = LogFollower::new(log);
    while std::time::Instant::now() < deadline {
        let Ok(events) = follower.read_available() else {
            return;
        };
        let ended = events.iter().any(|e| {
            matches!(
                e.body,
                EventBody::JobAborted(_) | EventBody::JobTerminated(_)
            )
        });
        if ended {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Why the wait ended before the job did.
enum Interrupted {
    /// A signal condor_run handles arrived.
    Signal(i32),
    /// The log could not be read, or the in-process pool stopped.
    Failed(String),
}

/// The signal that interrupted the wait (0 for none); the handler only stores it.
static CAUGHT: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    CAUGHT.store(sig, Ordering::Relaxed);
}

/// Catches the signals the script's handler catches.
fn catch_signals() {
    super::set_wait_signals(nix::sys::signal::SigHandler::Handler(on_signal));
}

/// Follows the job's log until it terminates or is aborted; fails if the log cannot be read,
/// the in-process pool stopped first, or a signal came.
fn wait_for_end(log: &Path, pool: Option<&EmbeddedPool>) -> Result<End, Interrupted> {
    let mut follower = LogFollower::new(log);
    let mut pause = Duration::from_millis(1);
    loop {
        let sig = CAUGHT.load(Ordering::Relaxed);
        if sig != 0 {
            return Err(Interrupted::Signal(sig));
        }
        let events = follower
            .read_available()
            .map_err(|e| Interrupted::Failed(format!("Failed to open Condor log file: {e}")))?;
        for event in events {
            match event.body {
                EventBody::JobTerminated(t) => {
                    return Ok(match t.exit {
                        ExitStatus::Code(c) => End::Exited(c),
                        ExitStatus::Signal(s) => End::Signal(s),
                    })
                }
                EventBody::JobAborted(_) => return Ok(End::Aborted),
                _ => {}
            }
        }
        if pool.is_some_and(EmbeddedPool::is_stopped) {
            return Err(Interrupted::Failed(
                "The pool stopped before the job finished.".to_owned(),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> RunArgs {
        RunArgs::from_invocation(&TOOL.parse_words(args).expect("a valid command line"))
    }

    #[test]
    fn nothing_given() {
        assert_eq!(parse(&[]), RunArgs::default());
    }

    #[test]
    fn flags() {
        assert!(parse(&["-he"]).help);
        assert!(parse(&["-ge", "true"]).getenv);
    }

    #[test]
    fn universe_and_submit_commands() {
        let args = parse(&["-u", "local", "-a", "x = 1", "-a", "y = 2", "true"]);
        assert_eq!(args.universe.as_deref(), Some("local"));
        assert_eq!(args.submit_commands, ["x = 1", "y = 2"]);
    }

    #[test]
    fn the_command_takes_the_remaining_words() {
        let args = parse(&["echo", "hi", "there"]);
        assert_eq!(args.command, ["echo", "hi", "there"]);
    }

    #[test]
    fn dash_words_are_the_commands() {
        let args = parse(&["-getenv", "echo", "-n", "hi", "--x=1"]);
        assert!(args.getenv);
        assert_eq!(args.command, ["echo", "-n", "hi", "--x=1"]);
    }
}
