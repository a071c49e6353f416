//! `condor_dagman`: runs a DAG. condor_submit_dag queues it as a scheduler-universe job
//! (`-p 0 -f -l . -Lockfile <dag>.lock -Dag <dag> ... -CsdVersion <version>`), and the master
//! runs it; run by hand (`condor_dagman -Dag <dag>`) with no master running, it brings up the
//! pool in its own process for the DAG's duration. See [`crate::dagman::runner`].
//!
//! The options are DAGMan's own (the table condor_submit_dag shares,
//! [`crate::dagman::options`]), matched as HTCondor matches them. Exit status: 0 when the DAG
//! succeeded, 1 when it failed, 2 when it was removed (or its log failed), 3 when it was held
//! or shut down (it then recovers when run again), or the value of an ABORT-DAG-ON RETURN.

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::config::Config;
use crate::dagman::options::{
    self, usage, DagmanOptions, Defaults, Kind, Parsed, FLAGS, SHOW_DAGMAN,
};
use crate::dagman::runner::{self, RunArgs};
use crate::error::CommandError;
use crate::version::{CONDOR_PLATFORM, CONDOR_VERSION};

pub const TOOL: Tool = Tool {
    name: "condor_dagman",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        unknown: Unknown::Verbatim,
    },
    usage_status: 1,
    run,
};

pub fn command() -> Command {
    let mut cmd = Command::new("condor_dagman")
        .about(
            "Run a DAG of jobs (normally as the scheduler-universe job condor_submit_dag queues)",
        )
        .long_about(
            "Runs the DAG files given with -Dag: submits each node's job when its parents are \
             done, runs PRE/POST/HOLD scripts, retries, writes <dag>.dagman.out (or where \
             _CONDOR_DAGMAN_LOG says), the nodes log, rescue DAGs and the other files DAGMan \
             writes. condor_submit_dag starts it as a scheduler-universe job; run by hand with \
             no condor_master for the pool, it runs the pool in its own process until the DAG \
             ends.\n\nOptions are matched as HTCondor matches them: one dash, any case, any \
             prefix naming the first option in alphabetical order that starts with it.",
        )
        .after_help(
            "Exit status: 0 when the DAG succeeded, 1 when it failed, 2 when it was removed, 3 \
             when it was held or shut down (the next run recovers), or an ABORT-DAG-ON RETURN \
             value.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(crate::cli::args::help_flag("Print usage info and exit"))
        .arg(
            Arg::new("version")
                .long("version")
                .action(ArgAction::SetTrue)
                .help("Print version and exit"),
        );
    for flag in FLAGS.iter().filter(|f| f.shown & SHOW_DAGMAN != 0) {
        let name = &flag.name[1..];
        let mut arg = Arg::new(name).long(name).help(flag.help);
        arg = if flag.option.kind() == Kind::Bool {
            arg.action(ArgAction::SetTrue)
        } else {
            arg.value_name(flag.meta.trim_start_matches('<').trim_end_matches('>'))
                .action(ArgAction::Append)
        };
        cmd = cmd.arg(arg);
    }
    cmd.arg(
        Arg::new("dag_files")
            .value_name("DAG_FILE")
            .action(ArgAction::Append)
            .help("DAG files (also given with -Dag)"),
    )
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let args = inv.raw_strings();
    writeln!(out, "Executing condor dagman ... ")?;
    out.flush()?;
    let config = Config::load().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let defaults =
        Defaults::from_config(&config).map_err(|e| CommandError::failed(1, e.to_string()))?;
    let options = match DagmanOptions::new(&defaults).parse(&args, options::Tool::Dagman, out) {
        Ok(Parsed::Run(o)) => *o,
        Ok(Parsed::Help) => {
            out.write_all(usage(options::Tool::Dagman).as_bytes())?;
            return Err(CommandError::Exit(1));
        }
        Ok(Parsed::Version) => {
            writeln!(out, "{CONDOR_VERSION}\n{CONDOR_PLATFORM}")?;
            return Ok(());
        }
        Err(e) => {
            let _ = writeln!(err, "{e}");
            if e.shows_usage() {
                out.write_all(usage(options::Tool::Dagman).as_bytes())?;
            }
            return Err(CommandError::Exit(1));
        }
    };
    if options.save_file.is_some() && options.do_rescue_from != 0 {
        let _ = writeln!(
            err,
            "Error: Cannot run DAG from both a save file and a specified rescue file."
        );
        out.write_all(usage(options::Tool::Dagman).as_bytes())?;
        return Err(CommandError::Exit(1));
    }
    if options.save_file.is_some() && options.do_recovery {
        let _ = writeln!(
            err,
            "Error: Cannot run DAG from a save file in recovery mode."
        );
        out.write_all(usage(options::Tool::Dagman).as_bytes())?;
        return Err(CommandError::Exit(1));
    }
    if options.dag_files.is_empty() {
        let _ = writeln!(err, "No DAG file was specified");
        out.write_all(usage(options::Tool::Dagman).as_bytes())?;
        return Err(CommandError::Exit(1));
    }
    let mut argv = vec![std::env::args()
        .next()
        .unwrap_or_else(|| "condor_dagman".into())];
    argv.extend(args);
    let run = RunArgs {
        argv,
        dag_files: options.dag_files.clone(),
        lock_file: options.lock_file.clone(),
        debug: options.debug,
        max_idle: options.max_idle,
        max_jobs: options.max_jobs,
        max_pre: options.max_pre,
        max_post: options.max_post,
        max_hold: options.max_hold,
        always_run_post: options.post_run,
        do_recovery: options.do_recovery,
        dump_rescue: options.dump_rescue,
        only_dump_dot: options.only_dump_dot,
        dry_run: options.dry_run,
        priority: options.priority,
        save_file: options.save_file.clone(),
        do_rescue_from: options.do_rescue_from,
        auto_rescue: Some(options.auto_rescue != 0),
        use_dag_dir: options.use_dag_dir,
        allow_version_mismatch: options.allow_version_mismatch,
        csd_version: options.csd_version.clone(),
        suppress_notification: options.suppress_notification,
        submit_method: options.submit_method,
        deep_args: options.deep_args(false),
        force: options.force,
    };
    match runner::run(run) {
        0 => Ok(()),
        code => Err(CommandError::Exit(code.clamp(0, 255) as u8)),
    }
}
