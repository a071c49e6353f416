//! `condor_sim`: condorlite's own tool (HTCondor has none like it) for the question "what will
//! this quota, priority factor or half-life change do?". It replays a workload through the
//! real negotiator, accountant and startd on a virtual clock ([`crate::sim`]) and prints the
//! allocation per submitter and accounting group over time, then a summary.
//!
//! `condor_sim [-config FILE]... [-set NAME=VALUE]... [-until T] [-step T] [-csv] [-summary]
//! [-svg FILE] WORKLOAD`: the pool's configuration is the workload's `[config]` section, then
//! each `-config` file (a real HTCondor configuration file), then each `-set`, so that one
//! workload can be run against the pool's configuration and against a change of it. `-until`
//! and `-step` override the workload's settings; `-csv` prints CSV instead of tables;
//! `-summary` prints only the summary; `-svg` also draws the allocation over time.
//!
//! Exit status 0 when the simulation ran; 1 for a bad command line, a workload or
//! configuration that cannot be read (one message naming the file and line), or an SVG file
//! that cannot be written.

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::ArgSpec;
use crate::cli::Invocation;
use crate::error::CommandError;
use crate::sim::{self, parse_duration, SimOptions, Workload};

pub const TOOL: Tool = Tool {
    name: "condor_sim",
    clap: command,
    args: ArgSpec::DEFAULT,
    usage_status: 1,
    run,
};

const WORKLOAD: &str = "workload";

pub fn command() -> Command {
    Command::new("condor_sim")
        .about("Simulate fair share: replay a workload through the negotiator and accountant")
        .long_about(
            "Replay a workload through condorlite's real negotiator, accountant and startd on a \
             virtual clock, and print the allocation per submitter and accounting group over \
             time (idle and running jobs, weight in use, share of the pool, real and effective \
             priority), then a summary (usage, mean share, mean wait). Use it to see what a \
             change of quotas, priority factors or PRIORITY_HALFLIFE would do: run the same \
             workload with -set NAME=VALUE.",
        )
        .after_help(
            "The workload file has sections: [config] (HTCondor configuration: NUM_CPUS, \
             SLOT_TYPE_<N>, PRIORITY_HALFLIFE, GROUP_NAMES, GROUP_QUOTA_<g>, \
             NEGOTIATOR_INTERVAL, ...), [sim] (until = T, step = T, machines = N, start = \
             EPOCH), [users] (NAME factor=F priority=P ceiling=N floor=N) and [timeline] \
             (TIME submit USER COUNT DURATION [cpus=N memory=MB disk=KB group=G prio=N \
             request_<res>=N requirements=\"EXPR\"], TIME setfactor|setprio|setceiling|setfloor \
             NAME VALUE). Times are seconds or 90s, 30m, 1h30m, 1.5d. Exit status: 0 when the \
             simulation ran, 1 for an error (a bad workload is reported with its file and \
             line).",
        )
        .disable_version_flag(true)
        .arg(
            Arg::new("config")
                .long("config")
                .value_name("FILE")
                .action(ArgAction::Append)
                .value_hint(clap::ValueHint::FilePath)
                .help("Read this HTCondor configuration file after the workload's [config]"),
        )
        .arg(
            Arg::new("set")
                .long("set")
                .value_name("NAME=VALUE")
                .action(ArgAction::Append)
                .help("Set a configuration knob, after everything else (the what-if)"),
        )
        .arg(
            Arg::new("until").long("until").value_name("TIME").help(
                "Stop at this time (default: the workload's until, else when all jobs are done)",
            ),
        )
        .arg(
            Arg::new("step")
                .long("step")
                .value_name("TIME")
                .help("Report every TIME (default: the workload's step, else NEGOTIATOR_INTERVAL)"),
        )
        .arg(
            Arg::new("csv")
                .long("csv")
                .action(ArgAction::SetTrue)
                .help("Print CSV instead of tables"),
        )
        .arg(
            Arg::new("summary")
                .long("summary")
                .action(ArgAction::SetTrue)
                .help("Print only the summary"),
        )
        .arg(
            Arg::new("svg")
                .long("svg")
                .value_name("FILE")
                .value_hint(clap::ValueHint::FilePath)
                .help("Also draw the weight in use per submitter over time, as SVG"),
        )
        .arg(
            Arg::new(WORKLOAD)
                .value_name("WORKLOAD")
                .value_hint(clap::ValueHint::FilePath)
                .help("The workload file"),
        )
}

/// condor_sim's command line, parsed once.
#[derive(Clone, Debug)]
struct SimArgs {
    /// The `WORKLOAD` file.
    workload: String,
    /// `-config FILE`..., `-set NAME=VALUE`..., `-until TIME`, `-step TIME`.
    options: SimOptions,
    /// `-csv`: CSV instead of tables.
    csv: bool,
    /// `-summary`: only the summary.
    summary: bool,
    /// `-svg FILE`: also draw the allocation over time.
    svg: Option<String>,
}

impl SimArgs {
    /// Reads and checks the parsed command line (the only place that looks options up by
    /// name).
    fn from_invocation(inv: &Invocation) -> Result<SimArgs, CommandError> {
        let m = &inv.matches;
        let Some(workload) = m.get_one::<String>(WORKLOAD).cloned() else {
            return Err(CommandError::Usage(
                "no workload file (usage: condor_sim [options] WORKLOAD; see -help)".into(),
            ));
        };
        let mut options = SimOptions {
            config_files: m
                .get_many::<String>("config")
                .map(|v| v.cloned().collect())
                .unwrap_or_default(),
            ..SimOptions::default()
        };
        for set in m.get_many::<String>("set").into_iter().flatten() {
            let (name, value) = set
                .split_once('=')
                .map(|(n, v)| (n.trim(), v.trim()))
                .filter(|(n, _)| {
                    !n.is_empty()
                        && n.chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
                })
                .ok_or_else(|| {
                    CommandError::Usage(format!("-set takes NAME=VALUE, not \"{set}\""))
                })?;
            options.sets.push((name.to_owned(), value.to_owned()));
        }
        // A `-until`/`-step` value.
        let time = |name: &str| match m.get_one::<String>(name) {
            None => Ok(None),
            Some(v) => parse_duration(v)
                .map(Some)
                .map_err(|e| CommandError::Usage(format!("-{name}: {e}"))),
        };
        options.until = time("until")?;
        options.step = time("step")?;
        if options.step.is_some_and(|s| s <= 0) {
            return Err(CommandError::Usage(
                "-step must be at least 1 second".into(),
            ));
        }
        Ok(SimArgs {
            workload,
            options,
            csv: m.get_flag("csv"),
            summary: m.get_flag("summary"),
            svg: m.get_one::<String>("svg").cloned(),
        })
    }
}

fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let args = SimArgs::from_invocation(inv)?;
    let (file, opts) = (&args.workload, &args.options);
    let text = std::fs::read_to_string(file).map_err(|e| {
        CommandError::failed(
            1,
            format!(
                "can't read {file}: {}",
                crate::config::load::describe_io(&e)
            ),
        )
    })?;
    let workload =
        Workload::parse(&text, file).map_err(|e| CommandError::failed(1, e.to_string()))?;
    let report = sim::run(&workload, opts).map_err(|e| CommandError::failed(1, e.to_string()))?;
    let (csv, summary_only) = (args.csv, args.summary);
    match (csv, summary_only) {
        (true, true) => sim::report::write_summary_csv(&report, out)?,
        (true, false) => sim::report::write_csv(&report, out)?,
        (false, true) => sim::report::write_summary(&report, out)?,
        (false, false) => {
            sim::report::write_table(&report, out)?;
            writeln!(out)?;
            sim::report::write_summary(&report, out)?;
        }
    }
    if csv {
        for note in &report.notes {
            writeln!(err, "condor_sim: note: {note}")?;
        }
    } else {
        for note in &report.notes {
            writeln!(out, "Note: {note}")?;
        }
    }
    if let Some(path) = &args.svg {
        std::fs::write(path, sim::svg::render(&report)).map_err(|e| {
            CommandError::failed(
                1,
                format!(
                    "can't write {path}: {}",
                    crate::config::load::describe_io(&e)
                ),
            )
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<SimArgs, CommandError> {
        SimArgs::from_invocation(&TOOL.parse_words(args)?)
    }

    #[test]
    fn the_workload_is_required() {
        assert!(parse(&[]).is_err());
        let args = parse(&["w.txt"]).unwrap();
        assert_eq!(args.workload, "w.txt");
        assert!(!args.csv && !args.summary && args.svg.is_none());
        assert!(args.options.config_files.is_empty() && args.options.sets.is_empty());
        assert_eq!((args.options.until, args.options.step), (None, None));
    }

    #[test]
    fn config_files_and_sets() {
        let args = parse(&["-config", "a", "-config", "b", "-set", " X.y = 1 ", "w"]).unwrap();
        assert_eq!(args.options.config_files, ["a", "b"]);
        assert_eq!(args.options.sets, [("X.y".to_owned(), "1".to_owned())]);
        assert!(parse(&["-set", "no value", "w"]).is_err());
        assert!(parse(&["-set", "=1", "w"]).is_err());
    }

    #[test]
    fn until_and_step() {
        let args = parse(&["-until", "1h", "-step", "90s", "w"]).unwrap();
        assert_eq!(args.options.until, Some(3600));
        assert_eq!(args.options.step, Some(90));
        assert!(parse(&["-step", "0", "w"]).is_err());
        assert!(parse(&["-until", "soon", "w"]).is_err());
    }

    #[test]
    fn outputs() {
        let args = parse(&["-csv", "-summary", "-svg", "o.svg", "w"]).unwrap();
        assert!(args.csv && args.summary);
        assert_eq!(args.svg.as_deref(), Some("o.svg"));
    }
}
