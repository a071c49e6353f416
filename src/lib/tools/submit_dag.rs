//! `condor_submit_dag`: writes the submit file of a DAGMan job for one or more DAG files and
//! queues it, as HTCondor's src/condor_dagman/condor_submit_dag.cpp does with the helpers of
//! src/condor_utils/dagman_utils.cpp.
//!
//! The command line is DAGMan's (see [`crate::dagman::options`]): flags matched by HTCondor's
//! own prefix rule, then the DAG files; an option after a DAG file, an unknown flag, a missing
//! or malformed value print HTCondor's message and the usage and exit 1, `-help` prints the
//! usage and `-version` the version (exit 0). Then, in `main`'s order:
//! 1. `-do_recurse`: each `SUBDAG EXTERNAL name file [DIR dir]` of each DAG file gets
//!    `condor_submit_dag -no_submit -update_submit [-force] [-Priority p] <deep options>
//!    file`, run in `dir` (this binary, in a process of its own), depth first;
//! 2. `setUpOptions`: the file names, the `condor_dagman` executable (next to this one, then
//!    in `PATH`; `-dagman` overrides), the pre-read of the DAG files for `CONFIG`,
//!    `SET_JOB_ATTR` and `ENV GET|SET`;
//! 3. the DAGMan configuration file (`-Config` or `CONFIG`), read on top of the configuration;
//! 4. `ensureOutputFilesExist`: the rescue DAG `-dorescuefrom` names must exist; the halt file
//!    goes; `-f` removes the old submit file and logs and renames every rescue DAG to `.old`;
//!    otherwise files from an earlier run are refused (`ERROR: "<file>" already exists.`)
//!    unless a rescue DAG runs automatically, `-dorescuefrom`, `-update_submit` or
//!    `-load_save` was given;
//! 5. `-update_submit` keeps the `-Max*` arguments of the submit file it overwrites;
//! 6. `writeSubmitFile`: `<primary>.condor.sub`, line for line as HTCondor writes it;
//! 7. the banner, then the submit file is queued by condor_submit's own code
//!    ([`crate::tools::submit::submit`], in this process), or with `-no_submit` the two lines
//!    that say how to queue it.
//!
//! HTCondor's `dprintf(D_ALWAYS)` lines (renamed rescue DAGs, the recursive command lines)
//! go to stderr, as a tool's do. Exit status 0, or 1 for any error (4 when a rescue DAG
//! cannot be renamed, HTCondor's `EXCEPT`).

use std::fs::File;
use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::config::reader::LineReader;
use crate::config::Config;
use crate::dagman::check;
use crate::dagman::options::{
    self, find_last_rescue_dag_num, max_rescue_dag_num, rename_rescue_dags_after, rescue_dag_name,
    subdag_line, tolerant_unlink, usage, DagCommandsError, DagmanOptions, Defaults, Kind,
    OutputFiles, Parsed, SubdagLine, FLAGS, SHOW_SUBMIT_DAG,
};
use crate::error::CommandError;
use crate::submit::argenv::{ArgList, Env};
use crate::version::{CONDOR_PLATFORM, CONDOR_VERSION};

pub const TOOL: Tool = Tool {
    name: NAME,
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // The flags are DAGMan's, matched by its own rule (dagman::options::find_flag).
        unknown: Unknown::Verbatim,
    },
    usage_status: 1,
    run,
};

const NAME: &str = "condor_submit_dag";

/// The DAGMan executable's name.
const DAGMAN_EXE: &str = "condor_dagman";

/// What `on_exit_remove` is unless `DAGMAN_ON_EXIT_REMOVE` says otherwise: DAGMan is queued
/// again if it crashed or was killed.
const DEFAULT_ON_EXIT_REMOVE: &str =
    "(ExitSignal =?= 11 || (ExitCode =!= UNDEFINED && ExitCode >=0 && ExitCode <= 2))";

/// The DAGMan job's `getenv` filter before `-include_env`, `ENV GET` and
/// `DAGMAN_MANAGER_JOB_APPEND_GETENV`.
const GETENV: &str = "CONDOR_CONFIG,_CONDOR_*,PATH,PYTHONPATH,PERL*,PEGASUS_*,TZ,HOME,USER,\
                      LANG,LC_ALL,BEARER_TOKEN,BEARER_TOKEN_FILE,XDG_RUNTIME_DIR";

/// The clap description of the flags, for the man page and completions only: the tool reads
/// its words itself. One argument per flag condor_submit_dag lists, from the shared table.
pub fn command() -> Command {
    let mut cmd = Command::new(NAME)
        .about("Submit a DAG of jobs: condor_dagman runs it as a scheduler-universe job")
        .long_about(
            "Writes <dag_file>.condor.sub, the submit file of a DAGMan job that runs the DAG \
             files given (several run as one), and queues it with condor_submit.\n\n\
             Options come before the DAG files. They are matched as HTCondor matches them: \
             one dash, any case, and any prefix names the first option in alphabetical order \
             that starts with it (-maxj is -MaxJobs, -r is -Remote, -f is -Force); the double \
             dash form needs the whole name. An option word containing -h is -help.",
        )
        .after_help(
            "Exit status: 0 when the DAG was submitted (or its submit file written, with \
             -no_submit), 1 on any error.",
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
    for flag in FLAGS.iter().filter(|f| f.shown & SHOW_SUBMIT_DAG != 0) {
        let name = &flag.name[1..];
        let mut arg = Arg::new(name).long(name).help(flag.help);
        arg = if flag.option.kind() == Kind::Bool {
            arg.action(ArgAction::SetTrue)
        } else {
            arg.value_name(flag.meta.trim_start_matches('<').trim_end_matches('>'))
                .action(ArgAction::Append)
        };
        // The one-letter spellings in the table (-f, -v).
        let short = FLAGS.iter().find(|f| {
            f.name.len() == 2 && f.option == flag.option && f.sets == flag.sets && f.shown == 0
        });
        if let Some(short) = short {
            arg = arg.short(char::from(short.name.as_bytes()[1]));
        }
        cmd = cmd.arg(arg);
    }
    cmd.arg(
        Arg::new("dag_files")
            .value_name("DAG_FILE")
            .action(ArgAction::Append)
            .help("The DAG files; the first is the primary DAG, after which the files are named"),
    )
}

/// Prints `text` (HTCondor's complete lines) on stderr and ends the tool with status 1.
fn fail(err: &mut dyn Write, text: &str) -> CommandError {
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
    CommandError::Exit(1)
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let args = inv.raw_strings();
    out.write_all(b"\n")?;
    let config_failure = |e: crate::config::ConfigError| CommandError::failed(1, e.to_string());
    let mut config = Config::load().map_err(config_failure)?;
    let defaults = Defaults::from_config(&config).map_err(config_failure)?;
    let mut options = DagmanOptions::new(&defaults);
    // So that condor_dagman, logging elsewhere, still finds the schedd's files.
    options.schedd_daemon_ad_file = config
        .string("SCHEDD_DAEMON_AD_FILE")
        .map_err(config_failure)?;
    options.schedd_address_file = config
        .string("SCHEDD_ADDRESS_FILE")
        .map_err(config_failure)?;
    let mut options = match options.parse(&args, options::Tool::SubmitDag, out) {
        Ok(Parsed::Run(options)) => *options,
        Ok(Parsed::Help) => {
            out.write_all(usage(options::Tool::SubmitDag).as_bytes())?;
            return Ok(());
        }
        Ok(Parsed::Version) => {
            writeln!(out, "{CONDOR_VERSION}\n{CONDOR_PLATFORM}")?;
            return Ok(());
        }
        Err(e) => {
            if e.on_stdout() {
                writeln!(out, "{e}")?;
            } else {
                let _ = writeln!(err, "{e}");
            }
            if e.shows_usage() {
                out.write_all(usage(options::Tool::SubmitDag).as_bytes())?;
            }
            out.flush()?;
            return Err(CommandError::Exit(1));
        }
    };

    // Depth first, so that the nested DAGs' submit files exist before this one is written.
    if options.recurse && !recurse(&options, out, err)? {
        return Err(fail(
            err,
            "Recursive submit(s) failed; exiting without attempting top-level submit\n",
        ));
    }

    // setUpOptions.
    let files = options.files().map_err(|e| {
        fail(
            err,
            &format!(
                "ERROR: unable to get cwd: {}, {}\n",
                e.raw_os_error().unwrap_or(0),
                crate::config::parse::io_reason(&e)
            ),
        )
    })?;
    if options.dagman_path.is_none() {
        options.dagman_path = locate_dagman();
    }
    if options.dagman_path.is_none() {
        return Err(fail(
            err,
            &format!("ERROR: Failed to locate {DAGMAN_EXE} executable in PATH\n"),
        ));
    }
    let attr_lines = match options.process_dag_commands() {
        Ok(lines) => lines,
        Err(e) => {
            if let DagCommandsError::Open(text) = &e {
                // The reader logs it as it fails, then setUpOptions reports it.
                let _ = err.write_all(text.as_bytes());
            }
            return Err(fail(err, &format!("ERROR: {e}\n")));
        }
    };

    // The DAGMan configuration file, read on top of the configuration.
    if let Some(file) = &options.config_file {
        let piped = file.trim_end().ends_with('|');
        if File::open(file).is_err() && !piped {
            return Err(fail(
                err,
                &format!("ERROR: Can't read DAGMan config file: {file}\n"),
            ));
        }
        if let Err(e) = config.process_source(file, "DAGMan config") {
            return Err(fail(err, &format!("{e}\n")));
        }
    }
    if !config
        .bool("DAGMAN_WRITE_PARTIAL_RESCUE")
        .map_err(config_failure)?
        .unwrap_or(true)
    {
        out.write_all(
            b"WARNING: DAGMAN_WRITE_PARTIAL_RESCUE = False.\n   The use of full Rescue DAG's is \
              deprecated and slated\n   for removal during the lifetime of V24 feature series \
              of HTCondor.\n\n",
        )?;
    }

    // condorlite's addition: a DAG that condor_dagman would fail on is refused here, with the
    // file and line, rather than submitted to fail in its log.
    let cwd = std::env::current_dir()?;
    let parse = check::parse_options(&config, &cwd, options.use_dag_dir);
    let checked = check::parse_dags(&options.dag_files, parse)
        .and_then(|dag| check::missing_submit_file(&dag, &cwd).map_or(Ok(()), Err));
    if let Err(e) = checked {
        let mut text = e.lines.join("\n");
        text.push('\n');
        return Err(fail(err, &text));
    }

    let max_rescue = max_rescue_dag_num(&config).map_err(config_failure)?;
    ensure_output_files_exist(&options, &files, max_rescue, out, err)?;
    if options.update_submit {
        old_submit_flags(&mut options, &files, out, err)?;
    }
    write_submit_file(&options, &files, &attr_lines, &config, err)?;
    submit_dag(&options, &files, out, err)
}

/// `which`: the first directory of `PATH` holding `name`.
fn which(name: &str) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.metadata().is_ok())
        .map(|p| p.to_string_lossy().into_owned())
}

/// condor_dagman: next to this program first (condorlite installs its programs together, and
/// the tests run them from the build directory), then in `PATH` as HTCondor looks for it.
fn locate_dagman() -> Option<String> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(DAGMAN_EXE)))
        .filter(|p| p.metadata().is_ok());
    match beside {
        Some(p) => Some(p.to_string_lossy().into_owned()),
        None => which(DAGMAN_EXE),
    }
}

/// `doRecursionNew`: runs condor_submit_dag on the nested DAG of every `SUBDAG EXTERNAL` line.
/// Returns whether they all succeeded; an unreadable DAG file or a malformed SUBDAG line
/// stops at once.
fn recurse(
    options: &DagmanOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, CommandError> {
    let mut ok = true;
    for dag_file in &options.dag_files {
        let text = match std::fs::read(dag_file) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                let text = options::open_error(dag_file, &e);
                let _ = err.write_all(text.as_bytes());
                let _ = writeln!(err, "Error reading DAG file: {text}");
                return Ok(false);
            }
        };
        let mut reader = LineReader::new(&text);
        while let Some(line) = reader.next_line() {
            match subdag_line(&line) {
                SubdagLine::Other => {}
                SubdagLine::Error(message) => {
                    let _ = writeln!(err, "{message}");
                    return Ok(false);
                }
                SubdagLine::External { file, dir } => {
                    ok &= run_submit_dag(options, &file, dir.as_deref(), out, err)?;
                }
            }
        }
    }
    Ok(ok)
}

/// `runSubmitDag`: `condor_submit_dag -no_submit -update_submit ...` on one nested DAG, in its
/// directory, as a process of its own. Returns whether it succeeded.
fn run_submit_dag(
    options: &DagmanOptions,
    dag_file: &str,
    dir: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, CommandError> {
    let dir = dir.filter(|d| !d.is_empty() && *d != ".");
    if let Some(dir) = dir {
        if let Err(e) = std::fs::read_dir(dir) {
            let _ = writeln!(
                err,
                "Error (Unable to chdir to {dir}: {}) changing to node directory",
                crate::config::parse::io_reason(&e)
            );
            return Ok(false);
        }
    }
    let mut args = ArgList::default();
    let mut add = |w: &str| args.args.push(w.to_owned());
    add(NAME);
    add("-no_submit");
    add("-update_submit");
    if options.force {
        add("-force");
    }
    if options.priority != 0 {
        add("-Priority");
        add(&options.priority.to_string());
    }
    for word in options.deep_args(false) {
        add(&word);
    }
    add(dag_file);
    let _ = writeln!(err, "Recursive submit command: <{}>", args.v2_raw());
    out.flush()?;
    let exe = std::env::current_exe()?;
    let mut child = std::process::Command::new(exe);
    child.args(&args.args[1..]);
    if let Some(dir) = dir {
        child.current_dir(dir);
    }
    let output = child.output()?;
    out.write_all(&output.stdout)?;
    let _ = err.write_all(&output.stderr);
    if !output.status.success() {
        let _ = writeln!(
            err,
            "ERROR: condor_submit_dag -no_submit failed on DAG file {dag_file}."
        );
        return Ok(false);
    }
    Ok(true)
}

/// `fileExists`: the file opens for reading.
fn file_exists(path: &str) -> bool {
    File::open(path).is_ok()
}

/// `ensureOutputFilesExist` (see the module docs); an error has been reported when it
/// returns one.
fn ensure_output_files_exist(
    options: &DagmanOptions,
    files: &OutputFiles,
    max_rescue: u32,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let primary = options.primary_dag();
    let multi = options.is_multi_dag();
    if options.do_rescue_from > 0 {
        let name = rescue_dag_name(primary, multi, options.do_rescue_from as u32);
        if !file_exists(&name) {
            return Err(fail(
                err,
                &format!(
                    "-dorescuefrom {} specified, but rescue DAG file {name} does not exist!\n",
                    options.do_rescue_from
                ),
            ));
        }
    }

    tolerant_unlink(&files.halt, err);

    if options.force {
        for file in [
            &files.sub_file,
            &files.sched_log,
            &files.lib_out,
            &files.lib_err,
        ] {
            tolerant_unlink(file, err);
        }
        if let Err(message) = rename_rescue_dags_after(primary, multi, 0, max_rescue, err) {
            // HTCondor's EXCEPT.
            let _ = writeln!(
                err,
                "ERROR \"{message}\" at line 755 in file src/condor_utils/dagman_utils.cpp"
            );
            return Err(CommandError::Exit(4));
        }
    }

    // A rescue DAG that runs automatically reuses the files of the run that wrote it.
    let mut auto_running_rescue = false;
    if options.auto_rescue != 0 {
        let n = find_last_rescue_dag_num(primary, multi, max_rescue, err);
        if n > 0 {
            writeln!(out, "Running rescue DAG {n}")?;
            auto_running_rescue = true;
        }
    }

    let mut had_error = false;
    if !auto_running_rescue
        && options.do_rescue_from < 1
        && !options.update_submit
        && options.save_file.is_none()
    {
        for file in [
            &files.sub_file,
            &files.lib_out,
            &files.lib_err,
            &files.sched_log,
        ] {
            if file_exists(file) {
                let _ = writeln!(err, "ERROR: \"{file}\" already exists.");
                had_error = true;
            }
        }
    }

    // An "old-style" rescue DAG.
    if options.auto_rescue == 0 && options.do_rescue_from < 1 && file_exists(&files.rescue_file) {
        let rescue = &files.rescue_file;
        let _ = write!(
            err,
            "ERROR: \"{rescue}\" already exists.\n\tYou may want to resubmit your DAG using that \
             file, instead of \"{primary}\"\n\tLook at the HTCondor manual for details about DAG \
             rescue files.\n\tPlease investigate and either remove \"{rescue}\",\n\tor use it as \
             the input to condor_submit_dag.\n"
        );
        had_error = true;
    }

    if had_error {
        out.flush()?;
        return Err(fail(
            err,
            &format!(
                "\nSome file(s) needed by {DAGMAN_EXE} already exist. Either:\n- Rename them\n\
                 - Use the \"-f\" option to force them to be overwritten\n\tor\n- Use the \
                 \"-update_submit\" option to update the submit file and continue.\n"
            ),
        ));
    }
    Ok(())
}

/// `getOldSubmitFlags`: the `-Max*` arguments of the submit file about to be overwritten win
/// over the command line's. No old file is fine.
fn old_submit_flags(
    options: &mut DagmanOptions,
    files: &OutputFiles,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    if !file_exists(&files.sub_file) {
        return Ok(());
    }
    let text = match std::fs::read(&files.sub_file) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            let text = options::open_error(&files.sub_file, &e);
            let _ = err.write_all(text.as_bytes());
            return Err(fail(err, &format!("Error reading submit file: {text}\n")));
        }
    };
    let mut reader = LineReader::new(&text);
    while let Some(line) = reader.next_line() {
        let first = line
            .split([',', ' ', '\t', '\r', '\n'])
            .find(|t| !t.is_empty());
        if !first.is_some_and(|t| t.eq_ignore_ascii_case("arguments")) {
            continue;
        }
        let (Some(start), Some(end)) = (line.find('"'), line.rfind('"')) else {
            return Err(fail(
                err,
                &format!("Missing quotes in arguments line: <{line}>\n"),
            ));
        };
        let mut args = ArgList::default();
        if let Err(e) = args.append_v2_quoted(&line[start..=end]) {
            return Err(fail(err, &format!("Error parsing arguments: {e}\n")));
        }
        let mut i = 0;
        while i < args.args.len() {
            let word = &args.args[i];
            if word.len() >= 4 && word[..4].eq_ignore_ascii_case("-Max") {
                let word = word.clone();
                if let Err(e) = options.auto_parse(&word, &args.args, &mut i) {
                    let _ = writeln!(err, "{e}");
                    out.write_all(usage(options::Tool::SubmitDag).as_bytes())?;
                    out.flush()?;
                    return Err(CommandError::Exit(1));
                }
            }
            i += 1;
        }
    }
    Ok(())
}

/// The arguments condor_dagman is started with (`writeSubmitFile`), after valgrind's own when
/// it runs under valgrind.
pub fn dagman_args(options: &DagmanOptions, files: &OutputFiles) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    let mut add = |words: &[&str]| args.extend(words.iter().map(|w| (*w).to_owned()));
    if options.valgrind {
        add(&[
            "--tool=memcheck",
            "--leak-check=yes",
            "--show-reachable=yes",
            options.dagman_path.as_deref().unwrap_or_default(),
        ]);
    }
    // DaemonCore's: -p 0 runs DAGMan without a command socket.
    add(&["-p", "0", "-f", "-l", "."]);
    if let Some(level) = options.debug {
        add(&["-Debug", &level.to_string()]);
    }
    add(&["-Lockfile", &files.lock]);
    for dag in &options.dag_files {
        add(&["-Dag", dag]);
    }
    for (flag, value) in [
        ("-MaxIdle", options.max_idle),
        ("-MaxJobs", options.max_jobs),
        ("-MaxPre", options.max_pre),
        ("-MaxPost", options.max_post),
    ] {
        if let Some(n) = value.filter(|n| *n >= 0) {
            add(&[flag, &n.to_string()]);
        }
    }
    match options.post_run {
        Some(true) => add(&["-AlwaysRunPost"]),
        Some(false) => add(&["-DontAlwaysRunPost"]),
        None => {}
    }
    if options.do_recovery {
        add(&["-DoRecov"]);
    }
    add(&["-CsdVersion", CONDOR_VERSION]);
    if options.dump_rescue {
        add(&["-DumpRescue"]);
    }
    if options.priority != 0 {
        add(&["-Priority", &options.priority.to_string()]);
    }
    if let Some(save) = &options.save_file {
        add(&["-load_save", save]);
    }
    args.extend(options.deep_args(true));
    args
}

/// `writeSubmitFile`: `<primary>.condor.sub`, line for line. The file is created first; a
/// later error leaves what was written so far, as HTCondor's does.
fn write_submit_file(
    options: &DagmanOptions,
    files: &OutputFiles,
    attr_lines: &[String],
    config: &Config,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let sub_file = &files.sub_file;
    let Ok(mut file) = File::create(sub_file) else {
        return Err(fail(
            err,
            &format!("ERROR: unable to create submit file {sub_file}\n"),
        ));
    };
    let mut text = String::new();
    let result = submit_file_text(options, files, attr_lines, config, &mut text);
    let written = file.write_all(text.as_bytes());
    if let Err(message) = result {
        return Err(fail(err, &message));
    }
    written.map_err(|e| {
        fail(
            err,
            &format!("ERROR: unable to create submit file {sub_file}: {e}\n"),
        )
    })
}

/// The submit file's text into `text`; on an error, `text` holds what HTCondor would have
/// written before it, and the error is the stderr text.
fn submit_file_text(
    options: &DagmanOptions,
    files: &OutputFiles,
    attr_lines: &[String],
    config: &Config,
    text: &mut String,
) -> Result<(), String> {
    use std::fmt::Write as _;
    let knob = |name: &str| config.string(name).map_err(|e| format!("{e}\n"));

    let executable = if options.valgrind {
        which("valgrind").ok_or("ERROR: can't find valgrind in PATH, aborting.\n")?
    } else {
        options.dagman_path.clone().unwrap_or_default()
    };
    let append_getenv = knob("DAGMAN_MANAGER_JOB_APPEND_GETENV")?;
    let getenv = match &append_getenv {
        Some(v) if v.eq_ignore_ascii_case("true") => "true".to_owned(),
        _ => {
            let mut getenv = GETENV.to_owned();
            for vars in options.include_env.iter().filter(|v| !v.is_empty()) {
                getenv.push(',');
                getenv.push_str(vars);
            }
            if let Some(more) = &append_getenv {
                getenv.push(',');
                getenv.push_str(more);
            }
            getenv
        }
    };

    let _ = writeln!(text, "# Filename: {}", files.sub_file);
    let _ = write!(text, "# Generated by condor_submit_dag ");
    for dag in &options.dag_files {
        let _ = write!(text, "{dag} ");
    }
    text.push('\n');
    let _ = writeln!(text, "universe    = scheduler");
    let _ = writeln!(text, "executable  = {executable}");
    let _ = writeln!(text, "getenv      = {getenv}");
    let _ = writeln!(text, "output      = {}", files.lib_out);
    let _ = writeln!(text, "error       = {}", files.lib_err);
    let _ = writeln!(text, "log         = {}", files.sched_log);
    if let Some(name) = &options.batch_name {
        let _ = writeln!(text, "My.JobBatchName = \"{name}\"");
    }
    if let Some(id) = &options.batch_id {
        let _ = writeln!(text, "My.JobBatchId = \"{id}\"");
    }
    let _ = writeln!(text, "remove_kill_sig = SIGUSR1");
    let _ = writeln!(
        text,
        "My.OtherJobRemoveRequirements = \"DAGManJobId =?= $(cluster)\""
    );
    let remove = knob("DAGMAN_ON_EXIT_REMOVE")?;
    let _ = write!(
        text,
        "# Note: default on_exit_remove expression:\n# {DEFAULT_ON_EXIT_REMOVE}\n# attempts to \
         ensure that DAGMan is automatically\n# requeued by the schedd if it exits abnormally \
         or\n# is killed (e.g., during a reboot).\n"
    );
    let _ = writeln!(
        text,
        "on_exit_remove = {}",
        remove.as_deref().unwrap_or(DEFAULT_ON_EXIT_REMOVE)
    );
    let _ = writeln!(
        text,
        "copy_to_spool = {}",
        if options.copy_to_spool {
            "True"
        } else {
            "False"
        }
    );

    let args = ArgList {
        args: dagman_args(options, files),
        input_was_v1: false,
    };
    let _ = writeln!(text, "arguments = {}", args.v1_wacked_or_v2_quoted());

    let mut env = Env::default();
    if options.import_env {
        for (name, value) in std::env::vars_os() {
            let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
                continue;
            };
            // ImportFilter: nothing with `;`, nothing V2 cannot hold; no overwriting.
            if name.is_empty()
                || name.contains(';')
                || value.contains([';', '\n'])
                || env.contains(name)
            {
                continue;
            }
            env.set(name, value);
        }
    }
    for pairs in &options.insert_env {
        if let Err(e) = env.merge_v1_raw_or_v2_quoted(pairs) {
            return Err(format!(
                "Error: Failed to add {pairs} to DAGMan manager jobs environment because {e}\n"
            ));
        }
    }
    env.set("_CONDOR_DAGMAN_LOG", &files.debug_log);
    env.set("_CONDOR_MAX_DAGMAN_LOG", "0");
    if let Some(file) = &options.schedd_daemon_ad_file {
        env.set("_CONDOR_SCHEDD_DAEMON_AD_FILE", file);
    }
    if let Some(file) = &options.schedd_address_file {
        env.set("_CONDOR_SCHEDD_ADDRESS_FILE", file);
    }
    if let Some(file) = &options.config_file {
        if let Err(e) = std::fs::symlink_metadata(file) {
            return Err(format!(
                "ERROR: unable to read config file {file} (error {}, {})\n",
                e.raw_os_error().unwrap_or(0),
                crate::config::parse::io_reason(&e)
            ));
        }
        env.set("_CONDOR_DAGMAN_CONFIG_FILE", file);
    }
    let _ = writeln!(text, "environment = {}", env.v2_quoted());

    if let Some(notification) = &options.notification {
        let _ = writeln!(text, "notification = {notification}");
    }
    // The insert file, the DAG files' SET_JOB_ATTR lines, then -append lines.
    if let Some(insert) = &options.append_file {
        let Ok(bytes) = std::fs::read(insert) else {
            return Err(format!(
                "ERROR: unable to read submit append file ({insert})\n"
            ));
        };
        let contents = String::from_utf8_lossy(&bytes);
        let mut reader = LineReader::new(&contents);
        while let Some(line) = reader.next_line() {
            let _ = writeln!(text, "{line}");
        }
    }
    for line in attr_lines {
        let _ = writeln!(text, "My.{line}");
    }
    for line in &options.append_lines {
        let _ = writeln!(text, "{line}");
    }
    let _ = writeln!(text, "queue");
    Ok(())
}

/// `submitDag`: the banner, then the submit (or, with `-no_submit`, how to submit).
fn submit_dag(
    options: &DagmanOptions,
    files: &OutputFiles,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    const RULE: &str = "-----------------------------------------------------------------------";
    writeln!(out, "{RULE}")?;
    for (what, file) in [
        ("File for submitting this DAG to HTCondor", &files.sub_file),
        ("Log of DAGMan debugging messages", &files.debug_log),
        ("Log of HTCondor library output", &files.lib_out),
        ("Log of HTCondor library error messages", &files.lib_err),
        ("Log of the life of condor_dagman itself", &files.sched_log),
    ] {
        writeln!(out, "{what:<51}: {file}")?;
    }
    writeln!(out)?;

    if options.no_submit {
        writeln!(
            out,
            "-no_submit given, not submitting DAG to HTCondor. You can do this with:"
        )?;
        writeln!(out, "\"condor_submit {}\"", files.sub_file)?;
    } else {
        // condor_submit finds the schedd through these (HTCondor sets them before running it).
        if let Some(file) = &options.schedd_daemon_ad_file {
            std::env::set_var("_CONDOR_SCHEDD_DAEMON_AD_FILE", file);
        }
        if let Some(file) = &options.schedd_address_file {
            std::env::set_var("_CONDOR_SCHEDD_ADDRESS_FILE", file);
        }
        let status = run_condor_submit(options, files, out, err);
        if status != 0 {
            out.flush()?;
            return Err(fail(err, "ERROR: condor_submit failed; aborting.\n"));
        }
    }
    writeln!(out, "{RULE}")?;
    Ok(())
}

/// `condor_submit [-r <schedd>] <primary>.condor.sub`, run by condor_submit's own code in this
/// process; returns its exit status, its messages printed as condor_submit prints them.
fn run_condor_submit(
    options: &DagmanOptions,
    files: &OutputFiles,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    use super::submit;
    let mut argv = vec!["condor_submit".to_owned()];
    if let Some(schedd) = &options.remote {
        argv.push("-r".into());
        argv.push(schedd.clone());
    }
    argv.push(files.sub_file.clone());
    let result = submit::TOOL
        .parse(&argv)
        .and_then(|inv| submit::SubmitArgs::from_invocation(&inv))
        .and_then(|request| {
            let session = submit::session()?;
            submit::submit(&request, &session, out, err)
        });
    crate::error::report(
        submit::TOOL.name,
        submit::TOOL.usage_status,
        result,
        out,
        err,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dagman_arguments_in_htcondor_order() {
        let parsed = DagmanOptions::default()
            .parse(
                &[
                    "-maxpost",
                    "2",
                    "-maxidle",
                    "5",
                    "-debug",
                    "4",
                    "-AlwaysRunPost",
                    "-DoRecov",
                    "-DumpRescue",
                    "-priority",
                    "3",
                    "-load_save",
                    "s.save",
                    "-maxjobs",
                    "-1",
                    "-dagman",
                    "/bin/dagman",
                    "a.dag",
                    "b.dag",
                ]
                .map(String::from),
                options::Tool::SubmitDag,
                &mut std::io::sink(),
            )
            .unwrap();
        let Parsed::Run(options) = parsed else {
            panic!("{parsed:?}")
        };
        let files = options.files().unwrap();
        let args = dagman_args(&options, &files);
        let expected: Vec<String> = [
            "-p",
            "0",
            "-f",
            "-l",
            ".",
            "-Debug",
            "4",
            "-Lockfile",
            "a.dag.lock",
            "-Dag",
            "a.dag",
            "-Dag",
            "b.dag",
            "-MaxIdle",
            "5",
            "-MaxPost",
            "2",
            "-AlwaysRunPost",
            "-DoRecov",
            "-CsdVersion",
            CONDOR_VERSION,
            "-DumpRescue",
            "-Priority",
            "3",
            "-load_save",
            "s.save",
            "-dagman",
            "/bin/dagman",
            "-AutoRescue",
            "1",
            "-DoRescueFrom",
            "0",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(args, expected);
        // The version has blanks: the arguments line is V2.
        let line = ArgList {
            args,
            input_was_v1: false,
        }
        .v1_wacked_or_v2_quoted();
        assert!(line.starts_with("\"-p 0 -f -l . -Debug 4"), "{line}");
        assert!(crate::submit::argenv::is_v2_quoted(&line));
    }

    #[test]
    fn command_lists_the_flags() {
        let cmd = command();
        let long = |name: &str| cmd.get_arguments().find(|a| a.get_long() == Some(name));
        assert_eq!(long("Force").and_then(|a| a.get_short()), Some('f'));
        assert_eq!(long("Verbose").and_then(|a| a.get_short()), Some('v'));
        assert!(long("MaxJobs").is_some() && long("no_submit").is_some());
        assert!(long("Dot").is_none() && long("Lockfile").is_none());
    }
}
