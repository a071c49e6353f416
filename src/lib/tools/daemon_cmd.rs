//! The commands that act on daemons, as HTCondor's src/condor_tools/tool.cpp does them:
//! `condor_off`, `condor_on`, `condor_restart`, `condor_reconfig` (to the master) and
//! `condor_reschedule` (to the schedd), over the master's socket.
//!
//! What they print is tool.cpp's: `Sent "Kill-All-Daemons" command to local master`,
//! `Sent "Kill-Daemon" command for "schedd" to local master`, `Sent "Reschedule" command to
//! local schedd`; with no master running, `Can't find address for local master` and
//! `Perhaps you need to query another pool.` on stderr, then condorlite's hint naming the
//! pool's `LOCAL_DIR` and how to start a master, exit 1. Every daemon lives in the
//! one master process, so the targets are this host: another host's name cannot be found.

use std::io::Write;

use clap::{Arg, ArgAction, Command as ClapCommand};

use super::Tool;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::locate;
use crate::client::master::{send, start_hint, Command, MasterError, Shutdown, Subsystem};
use crate::config::Config;
use crate::error::CommandError;

/// Which command a tool sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Off,
    On,
    Restart,
    Reconfig,
    Reschedule,
}

impl Kind {
    const fn name(self) -> &'static str {
        match self {
            Kind::Off => "condor_off",
            Kind::On => "condor_on",
            Kind::Restart => "condor_restart",
            Kind::Reconfig => "condor_reconfig",
            Kind::Reschedule => "condor_reschedule",
        }
    }

    fn takes_subsystem(self) -> bool {
        matches!(self, Kind::Off | Kind::On | Kind::Restart)
    }

    fn takes_shutdown(self) -> bool {
        matches!(self, Kind::Off | Kind::Restart)
    }
}

const SPEC: ArgSpec = ArgSpec {
    prefixes: PREFIXES,
    unknown: Unknown::Error,
};

/// tool.cpp's tests (`is_dash_arg_prefix` minimums).
const PREFIXES: &[Prefix] = &[
    Prefix::min("version", 1),
    Prefix::min("help", 1),
    Prefix::min("peaceful", 2),
    Prefix::min("graceful", 1),
    Prefix::min("force-graceful", 2),
    Prefix::min("fast", 1),
    Prefix::min("pool", 1),
    Prefix::min("name", 1),
    Prefix::min("addr", 2),
    Prefix::min("all", 2),
    Prefix::min("constraint", 1),
    Prefix::min("daemon", 1),
    Prefix::min("master", 1),
    Prefix::min("schedd", 2),
    Prefix::min("startd", 5),
    Prefix::min("collector", 1),
    Prefix::min("negotiator", 1),
    Prefix::min("kbdd", 1),
    Prefix::min("debug", 2).qualified(),
];

macro_rules! tool {
    ($konst:ident, $kind:expr, $clap:ident, $run:ident) => {
        pub const $konst: Tool = Tool {
            name: $kind.name(),
            clap: $clap,
            args: SPEC,
            usage_status: 1,
            run: $run,
        };
        fn $clap() -> ClapCommand {
            command($kind)
        }
        fn $run(
            inv: &Invocation,
            out: &mut dyn Write,
            err: &mut dyn Write,
        ) -> Result<(), CommandError> {
            run($kind, inv, out, err)
        }
    };
}

tool!(OFF, Kind::Off, command_off, run_off);
tool!(ON, Kind::On, command_on, run_on);
tool!(RESTART, Kind::Restart, command_restart, run_restart);
tool!(RECONFIG, Kind::Reconfig, command_reconfig, run_reconfig);
tool!(
    RESCHEDULE,
    Kind::Reschedule,
    command_reschedule,
    run_reschedule
);

fn flag(id: &'static str, help: &'static str) -> Arg {
    Arg::new(id).long(id).action(ArgAction::SetTrue).help(help)
}

fn command(kind: Kind) -> ClapCommand {
    let about = match kind {
        Kind::Off => "Turn off daemons (everything but the master, or the master with -master)",
        Kind::On => "Turn daemons back on",
        Kind::Restart => "Restart the master (and so every daemon), or one daemon",
        Kind::Reconfig => "Make the daemons read their configuration again",
        Kind::Reschedule => "Make the schedd start a negotiation cycle now",
    };
    let mut cmd = ClapCommand::new(kind.name())
        .about(about)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Give this usage information"),
        )
        .arg(flag("version", "Print the version"))
        .arg(
            Arg::new("pool")
                .long("pool")
                .value_name("HOST")
                .help("Use the given central manager to find daemons"),
        )
        .arg(
            Arg::new("name")
                .long("name")
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("The given host"),
        )
        .arg(
            Arg::new("addr")
                .long("addr")
                .value_name("ADDR")
                .action(ArgAction::Append)
                .help("The given \"sinful string\""),
        )
        .arg(flag("all", "All hosts in the pool"))
        .arg(
            Arg::new("constraint")
                .long("constraint")
                .value_name("EXPR")
                .help("Hosts matching the constraint"),
        )
        .arg(
            Arg::new("debug")
                .long("debug")
                .action(ArgAction::SetTrue)
                .hide(true),
        )
        .arg(
            Arg::new("targets")
                .value_name("HOST")
                .num_args(0..)
                .help("Hosts to send the command to (this host when none is given)"),
        );
    // tool.cpp parses every option for every command and ignores those that do not apply;
    // they are hidden from the help of the commands they do not apply to.
    let shutdown = !kind.takes_shutdown();
    let daemons = !kind.takes_subsystem();
    cmd = cmd
        .arg(
            flag(
                "graceful",
                "The default: running jobs get their vacate time, then are killed",
            )
            .hide(shutdown),
        )
        .arg(flag("fast", "Shut down at once, evicting running jobs").hide(shutdown))
        .arg(flag("peaceful", "Wait for running jobs to finish").hide(shutdown))
        .arg(
            flag(
                "force-graceful",
                "Upgrade a peaceful shutdown to a graceful one",
            )
            .hide(shutdown),
        )
        .arg(
            Arg::new("daemon")
                .long("daemon")
                .value_name("NAME")
                .help("The daemon, by name")
                .hide(daemons),
        );
    for (id, help) in [
        ("master", "The master"),
        ("startd", "The startd"),
        ("schedd", "The schedd"),
        ("collector", "The collector"),
        ("negotiator", "The negotiator"),
        ("kbdd", "The kbdd"),
    ] {
        cmd = cmd.arg(flag(id, help).hide(daemons));
    }
    cmd
}

/// A daemon named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Daemon {
    /// `-master`, `-startd`, `-schedd`, `-collector`, `-negotiator`, or `-daemon NAME` of one.
    Known(Subsystem),
    /// `-kbdd`: a daemon this pool does not run.
    Kbdd,
    /// `-daemon NAME` of no daemon condorlite knows.
    Unknown(String),
}

/// The command line of condor_off, condor_on, condor_restart, condor_reconfig and
/// condor_reschedule, parsed once (every option is read for every command, as tool.cpp
/// does; each command uses those that apply to it).
#[derive(Clone, Debug, PartialEq, Eq)]
struct DaemonCmdArgs {
    /// `-version`: print the version and exit.
    version: bool,
    /// The daemon to act on (the first of `-master`, `-startd`, `-schedd`, `-collector`,
    /// `-negotiator`, then `-kbdd`, then `-daemon NAME`).
    daemon: Option<Daemon>,
    /// `-fast`, `-peaceful` (unless `-force-graceful`), else `-graceful`.
    shutdown: Shutdown,
    /// The hosts: the positional words, then `-name`s, then `-addr`s.
    names: Vec<String>,
    /// `-pool HOST`: the central manager to find them through.
    pool: Option<String>,
}

impl DaemonCmdArgs {
    /// Reads the parsed command line (the only place that looks options up by name).
    fn from_invocation(inv: &Invocation) -> DaemonCmdArgs {
        let m = &inv.matches;
        let flagged = |id: &str| m.try_get_one::<bool>(id).ok().flatten() == Some(&true);
        let daemon = [
            ("master", Subsystem::Master),
            ("startd", Subsystem::Startd),
            ("schedd", Subsystem::Schedd),
            ("collector", Subsystem::Collector),
            ("negotiator", Subsystem::Negotiator),
        ]
        .into_iter()
        .find(|(id, _)| flagged(id))
        .map(|(_, s)| Daemon::Known(s))
        .or_else(|| flagged("kbdd").then_some(Daemon::Kbdd))
        .or_else(|| match m.try_get_one::<String>("daemon") {
            Ok(Some(name)) => Some(match Subsystem::from_word(name) {
                Some(s) => Daemon::Known(s),
                None => Daemon::Unknown(name.clone()),
            }),
            _ => None,
        });
        let shutdown = if flagged("fast") {
            Shutdown::Fast
        } else if flagged("peaceful") && !flagged("force-graceful") {
            Shutdown::Peaceful
        } else {
            Shutdown::Graceful
        };
        let mut names: Vec<String> = Vec::new();
        for id in ["targets", "name", "addr"] {
            if let Ok(Some(v)) = m.try_get_many::<String>(id) {
                names.extend(v.cloned());
            }
        }
        DaemonCmdArgs {
            version: flagged("version"),
            daemon,
            shutdown,
            names,
            pool: m.try_get_one::<String>("pool").ok().flatten().cloned(),
        }
    }

    /// The daemon named, if any; an error for one this pool does not run.
    fn subsystem(&self) -> Result<Option<Subsystem>, CommandError> {
        match &self.daemon {
            None => Ok(None),
            Some(Daemon::Known(s)) => Ok(Some(*s)),
            Some(Daemon::Kbdd) => Err(CommandError::failed(
                1,
                "this pool runs no condor_kbdd (the startd watches the console itself)",
            )),
            Some(Daemon::Unknown(name)) => Err(CommandError::failed(
                1,
                format!("ERROR: unknown daemon \"{name}\""),
            )),
        }
    }
}

/// The daemon's name as tool.cpp's `daemonString` gives it.
fn daemon_string(s: Subsystem) -> &'static str {
    match s {
        Subsystem::Master | Subsystem::Daemons => "master",
        Subsystem::Schedd => "schedd",
        Subsystem::Startd => "startd",
        Subsystem::Negotiator => "negotiator",
        Subsystem::Collector => "collector",
    }
}

/// What to send and what to say about it (tool.cpp's `computeRealAction`, `cmdToStr` and
/// its report).
fn plan(kind: Kind, sub: Option<Subsystem>, how: Shutdown) -> (Command, String) {
    let off_word = |daemon: bool| match (how, daemon) {
        (Shutdown::Fast, false) => "Kill-All-Daemons-Fast",
        (Shutdown::Peaceful, false) => "Kill-All-Daemons-Peacefully",
        (Shutdown::Graceful, false) => "Kill-All-Daemons",
        (Shutdown::Fast, true) => "Kill-Daemon-Fast",
        (Shutdown::Peaceful, true) => "Kill-Daemon-Peacefully",
        (Shutdown::Graceful, true) => "Kill-Daemon",
    };
    match (kind, sub) {
        (Kind::Off, None) => (
            Command::Off(Subsystem::Daemons, how),
            format!("Sent \"{}\" command to local master", off_word(false)),
        ),
        (Kind::Off, Some(s)) => (
            Command::Off(s, how),
            format!(
                "Sent \"{}\" command for \"{}\" to local master",
                off_word(true),
                daemon_string(s)
            ),
        ),
        (Kind::On, None | Some(Subsystem::Master | Subsystem::Daemons)) => (
            Command::On(Subsystem::Master),
            "Sent \"Spawn-All-Daemons\" command to local master".to_owned(),
        ),
        (Kind::On, Some(s)) => (
            Command::On(s),
            format!(
                "Sent \"Spawn-Daemon\" command for \"{}\" to local master",
                daemon_string(s)
            ),
        ),
        (Kind::Restart, sub) => {
            let word = match how {
                Shutdown::Fast => "Restart-Fast",
                Shutdown::Peaceful => "Restart-Peaceful",
                Shutdown::Graceful => "Restart",
            };
            let s = sub.unwrap_or(Subsystem::Master);
            (
                Command::Restart(s, how),
                format!("Sent \"{word}\" command to local {}", daemon_string(s)),
            )
        }
        (Kind::Reconfig, _) => (
            Command::Reconfig,
            "Sent \"Reconfig\" command to local master".to_owned(),
        ),
        (Kind::Reschedule, _) => (
            Command::Reschedule,
            "Sent \"Reschedule\" command to local schedd".to_owned(),
        ),
    }
}

/// Whether `name` (a daemon's name, host or address) is on this host.
fn is_this_host(name: &str, config: &Config) -> bool {
    locate::is_this_host(config, locate::host_part(name))
}

fn run(
    kind: Kind,
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let args = DaemonCmdArgs::from_invocation(inv);
    if args.version {
        writeln!(out, "{}", crate::version::CONDOR_VERSION)?;
        writeln!(out, "{}", crate::version::CONDOR_PLATFORM)?;
        return Ok(());
    }
    let config = Config::load().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let sub = if kind.takes_subsystem() {
        args.subsystem()?
    } else {
        None
    };
    let how = if kind.takes_shutdown() {
        args.shutdown
    } else {
        Shutdown::Graceful
    };
    let names = args.names;
    // Through another pool's collector, no daemon here can be found.
    let pool_here = args
        .pool
        .as_deref()
        .is_none_or(|p| is_this_host(p, &config));
    let unknown: Vec<&String> = names
        .iter()
        .filter(|n| !pool_here || !is_this_host(n, &config))
        .collect();
    let (command, report) = plan(kind, sub, how);
    let whom = if kind == Kind::Reschedule {
        "local schedd"
    } else {
        "local master"
    };
    let mut status = 0;
    if names.is_empty() && !pool_here {
        writeln!(err, "Can't find address for {whom}")?;
        writeln!(err, "Perhaps you need to query another pool.")?;
        return Err(CommandError::Exit(1));
    }
    if names.is_empty() || unknown.len() < names.len() {
        match send(&config, &command) {
            Ok(_) => writeln!(out, "{report}")?,
            Err(MasterError::NotRunning(_)) => {
                writeln!(err, "Can't find address for {whom}")?;
                writeln!(err, "Perhaps you need to query another pool.")?;
                writeln!(err, "{}", start_hint(&config))?;
                return Err(CommandError::Exit(1));
            }
            Err(e) => {
                writeln!(err, "ERROR\n{e}")?;
                let word = report.split('"').nth(1).unwrap_or("the").to_owned();
                writeln!(err, "Can't send {word} command to {whom}")?;
                status = 1;
            }
        }
    }
    if !unknown.is_empty() {
        for name in unknown {
            writeln!(err, "Can't find address for {name}")?;
        }
        writeln!(err, "Perhaps you need to query another pool.")?;
        status = 1;
    }
    if status != 0 {
        return Err(CommandError::Exit(status));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(tool: &Tool, args: &[&str]) -> DaemonCmdArgs {
        DaemonCmdArgs::from_invocation(&tool.parse_words(args).expect("a valid command line"))
    }

    #[test]
    fn nothing_given() {
        let args = parse(&OFF, &[]);
        assert!(!args.version);
        assert_eq!(args.daemon, None);
        assert_eq!(args.shutdown, Shutdown::Graceful);
        assert!(args.names.is_empty());
    }

    #[test]
    fn version() {
        assert!(parse(&RECONFIG, &["-v"]).version);
    }

    #[test]
    fn daemons() {
        let daemon = |args: &[&str]| parse(&OFF, args).daemon;
        assert_eq!(daemon(&["-m"]), Some(Daemon::Known(Subsystem::Master)));
        assert_eq!(daemon(&["-startd"]), Some(Daemon::Known(Subsystem::Startd)));
        assert_eq!(daemon(&["-sc"]), Some(Daemon::Known(Subsystem::Schedd)));
        assert_eq!(
            daemon(&["-coll"]),
            Some(Daemon::Known(Subsystem::Collector))
        );
        assert_eq!(
            daemon(&["-neg"]),
            Some(Daemon::Known(Subsystem::Negotiator))
        );
        assert_eq!(daemon(&["-k"]), Some(Daemon::Kbdd));
        assert_eq!(
            daemon(&["-d", "schedd"]),
            Some(Daemon::Known(Subsystem::Schedd))
        );
        assert_eq!(daemon(&["-d", "x"]), Some(Daemon::Unknown("x".into())));
        // The named flags come before -daemon.
        assert_eq!(
            daemon(&["-d", "x", "-schedd"]),
            Some(Daemon::Known(Subsystem::Schedd))
        );
        assert!(parse(&OFF, &["-k"]).subsystem().is_err());
        assert!(parse(&OFF, &["-d", "x"]).subsystem().is_err());
    }

    #[test]
    fn shutdowns() {
        let how = |args: &[&str]| parse(&RESTART, args).shutdown;
        assert_eq!(how(&["-f"]), Shutdown::Fast);
        assert_eq!(how(&["-pe"]), Shutdown::Peaceful);
        assert_eq!(how(&["-pe", "-fo"]), Shutdown::Graceful);
        assert_eq!(how(&["-g"]), Shutdown::Graceful);
        assert_eq!(how(&["-f", "-pe"]), Shutdown::Fast);
    }

    #[test]
    fn hosts() {
        let args = parse(&ON, &["-addr", "<1.2.3.4:5>", "-n", "h2", "h1", "h3"]);
        assert_eq!(args.names, ["h1", "h3", "h2", "<1.2.3.4:5>"]);
    }
}
