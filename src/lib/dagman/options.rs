//! The DAGMan option set that condor_submit_dag and condor_dagman share, as HTCondor's
//! `DagmanOptions` (src/condor_utils/dagman_utils.{h,cpp}) has it: one table of flags
//! ([`FLAGS`], `dagOptionsInfoMap`), the typed options they set ([`DagmanOptions`]), the two
//! tools' command-line loops ([`DagmanOptions::parse`]), the arguments passed down to sub-DAGs
//! ([`DagmanOptions::deep_args`]), the file names derived from the primary DAG
//! ([`DagmanOptions::files`], `setUpOptions`), the pre-read of the DAG files for the commands
//! that change the DAGMan job's submit file ([`DagmanOptions::process_dag_commands`]) and the
//! rescue-DAG file helpers ([`rescue_dag_name`], [`find_last_rescue_dag_num`],
//! [`rename_rescue_dags_after`]).
//!
//! Flags are matched as `DagmanGetFlagInfo` matches them: case-insensitively, by prefix,
//! against the table in its case-insensitive order, taking the first flag at or after the word
//! (`lower_bound`) when the word is a prefix of it. So `-maxj` is `-MaxJobs`, `-r` is
//! `-Remote`, `-m` is `-MaxHold`, `-d` is `-Dag`, and `-f` is the table's own `-f` (an alias of
//! `-Force`). An option is "deep" when it is passed down to sub-DAGs (HTCondor's
//! `DagmanDeepOptions`), "shallow" otherwise.
//!
//! One extension: a word starting with `--` that spells a flag out in full (`--MaxJobs`) is
//! that flag, the form every condorlite tool accepts and the generated man pages show.
//! HTCondor reports it as an unknown flag.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::config::reader::{is_space, LineReader};
use crate::config::{Config, ConfigError};

/// Which tool's command-line rules [`DagmanOptions::parse`] follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// condor_submit_dag (`parseCommandLine`).
    SubmitDag,
    /// condor_dagman (`main_init`, after DaemonCore's own arguments).
    Dagman,
}

/// The kind of value an option holds (HTCondor's `str`, `i`, `b` and `slist` option enums).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Int,
    Str,
    List,
}

impl Kind {
    /// The type's name in messages (`DagmanOptValueType`: lists are strings too).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::Int => "integer",
            Kind::Str | Kind::List => "string",
        }
    }
}

/// An option a flag sets: HTCondor's option names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opt {
    AllowVersionMismatch,
    PostRun,
    AppendLines,
    AutoRescue,
    BatchName,
    ConfigFile,
    CsdVersion,
    DagFiles,
    DagmanPath,
    DebugLevel,
    Recurse,
    SuppressNotification,
    DoRecovery,
    DoRescueFrom,
    OnlyDumpDot,
    DryRun,
    DumpRescueDag,
    Force,
    ImportEnv,
    GetFromEnv,
    AddToEnv,
    AppendFile,
    SaveFile,
    LockFile,
    MaxIdle,
    MaxHold,
    MaxJobs,
    MaxPost,
    MaxPre,
    DoSubmit,
    Notification,
    OutfileDir,
    Priority,
    RemoteSchedd,
    ScheddAddressFile,
    ScheddDaemonAdFile,
    SubmitMethod,
    UpdateSubmit,
    UseDagDir,
    RunValgrind,
    Verbose,
}

impl Opt {
    /// The kind of value the option holds.
    pub fn kind(self) -> Kind {
        use Opt::*;
        match self {
            AllowVersionMismatch | PostRun | Recurse | SuppressNotification | DoRecovery
            | OnlyDumpDot | DryRun | DumpRescueDag | Force | ImportEnv | DoSubmit
            | UpdateSubmit | UseDagDir | RunValgrind | Verbose => Kind::Bool,
            AutoRescue | DebugLevel | DoRescueFrom | MaxIdle | MaxHold | MaxJobs | MaxPost
            | MaxPre | Priority | SubmitMethod => Kind::Int,
            AppendLines | DagFiles | GetFromEnv | AddToEnv => Kind::List,
            BatchName | ConfigFile | CsdVersion | DagmanPath | AppendFile | SaveFile | LockFile
            | Notification | OutfileDir | RemoteSchedd | ScheddAddressFile | ScheddDaemonAdFile => {
                Kind::Str
            }
        }
    }
}

/// Shown in condor_dagman's usage (`DAG_OPT_DISP_DAGMAN`).
pub const SHOW_DAGMAN: u8 = 1;
/// Shown in condor_submit_dag's usage (`DAG_OPT_DISP_CSD`).
pub const SHOW_SUBMIT_DAG: u8 = 2;
/// Offered by the Python bindings (`DAG_OPT_DISP_PY_BIND`).
pub const SHOW_PYTHON: u8 = 4;
const SHOW_ALL: u8 = SHOW_DAGMAN | SHOW_SUBMIT_DAG | SHOW_PYTHON;

/// One command-line flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag {
    /// As HTCondor spells it, with its dash (`-MaxJobs`).
    pub name: &'static str,
    pub option: Opt,
    /// For a bool option, the value the flag sets (`-DontAlwaysRunPost` sets `PostRun` false).
    pub sets: bool,
    /// The value's placeholder in the usage (`<N>`); `True`/`False` for bool options.
    pub meta: &'static str,
    pub help: &'static str,
    /// Which tools list it in their usage ([`SHOW_DAGMAN`], [`SHOW_SUBMIT_DAG`],
    /// [`SHOW_PYTHON`]); the flag is accepted by both whatever this says.
    pub shown: u8,
}

const fn flag(
    name: &'static str,
    option: Opt,
    meta: &'static str,
    help: &'static str,
    shown: u8,
) -> Flag {
    // The bool options' placeholder is the value they set ("True" or "False").
    let sets = !matches!(meta.as_bytes(), [b'F', ..]);
    Flag {
        name,
        option,
        sets,
        meta,
        help,
        shown,
    }
}

/// Every flag, in HTCondor's case-insensitive order (the order [`find_flag`] searches and the
/// usages list them). The help texts are HTCondor's.
#[rustfmt::skip]
pub static FLAGS: &[Flag] = &[
    flag("-AllowVersionMismatch", Opt::AllowVersionMismatch, "True", "Allow version difference between *.condor.sub file and condor_dagman", SHOW_ALL),
    flag("-AlwaysRunPost", Opt::PostRun, "True", "Run POST script if PRE script fails", SHOW_ALL),
    flag("-Append", Opt::AppendLines, "<command>", "Append submit description command to *.condor.sub file", SHOW_SUBMIT_DAG),
    flag("-AutoRescue", Opt::AutoRescue, "<0|1>", "Control automatically running new rescue DAG (0=False | 1=True)", SHOW_ALL),
    flag("-Batch-Name", Opt::BatchName, "<name>", "Set DAG batch name", SHOW_ALL),
    flag("-Config", Opt::ConfigFile, "<filename>", "Specify DAGMan configuration file", SHOW_SUBMIT_DAG | SHOW_PYTHON),
    flag("-CsdVersion", Opt::CsdVersion, "<Version String>", "Current condor_submit_dag version string", 0),
    flag("-Dag", Opt::DagFiles, "<NAME.dag>", "DAG file for DAGMan to execute", 0),
    flag("-DAGMan", Opt::DagmanPath, "<path>", "Full path to alternate condor_dagman executable", SHOW_ALL),
    flag("-Debug", Opt::DebugLevel, "<level>", "Set DAGMan debug logs verbosity", SHOW_ALL),
    flag("-do_recurse", Opt::Recurse, "True", "Recursively generate Sub-DAG *.condor.sub files", SHOW_DAGMAN | SHOW_SUBMIT_DAG),
    flag("-dont_suppress_notification", Opt::SuppressNotification, "False", "Suppress email notifications for DAGMan and all its submitted jobs", SHOW_ALL),
    flag("-DontAlwaysRunPost", Opt::PostRun, "False", "Don't run POST script if PRE script fails", SHOW_ALL),
    flag("-DoRecovery", Opt::DoRecovery, "True", "Allow DAG submitted jobs to send email notifications", SHOW_ALL),
    flag("-DoRescueFrom", Opt::DoRescueFrom, "<N>", "Run DAG rescue of given number", SHOW_ALL),
    flag("-Dot", Opt::OnlyDumpDot, "True", "Have DAGMan dump DOT file and exit", SHOW_DAGMAN),
    flag("-DryRun", Opt::DryRun, "True", "Dry run condor_dagman execution of DAG", SHOW_DAGMAN),
    flag("-DumpRescue", Opt::DumpRescueDag, "True", "DAGMan dump rescue DAG and exit", SHOW_ALL),
    flag("-f", Opt::Force, "True", "See -Force", 0),
    flag("-Force", Opt::Force, "True", "Overwrite used DAG file if they exist", SHOW_ALL),
    flag("-import_env", Opt::ImportEnv, "True", "Import current environment into *.condor.sub file", SHOW_ALL),
    flag("-include_env", Opt::GetFromEnv, "<variables>", "Comma separated list of environment variables to *.condor.sub file getenv filter", SHOW_ALL),
    flag("-insert_env", Opt::AddToEnv, "<key=value>", "Delimited key=value pairs to explicitly set in the *.condor.sub file environment", SHOW_ALL),
    flag("-insert_sub_file", Opt::AppendFile, "<filename>", "Append specified submit file to *.condor.sub file", SHOW_SUBMIT_DAG | SHOW_PYTHON),
    flag("-load_save", Opt::SaveFile, "<filename>", "Run DAG from provided save point file", SHOW_ALL),
    flag("-Lockfile", Opt::LockFile, "<NAME.dag.lock>", "DAGMan lock filename", 0),
    flag("-MaxHold", Opt::MaxHold, "<N>", "Maximum number of HOLD scripts to run at once", SHOW_ALL),
    flag("-MaxIdle", Opt::MaxIdle, "<N>", "Maximum number of Idle nodes allowed", SHOW_ALL),
    flag("-MaxJobs", Opt::MaxJobs, "<N>", "Maximum number of jobs submitted at once", SHOW_ALL),
    flag("-MaxPost", Opt::MaxPost, "<N>", "Maximum number of POST scripts to run at once", SHOW_ALL),
    flag("-MaxPre", Opt::MaxPre, "<N>", "Maximum number of PRE scripts to run at once", SHOW_ALL),
    flag("-no_recurse", Opt::Recurse, "False", "Don't recursively generate Sub-DAG *.condor.sub files (Default)", SHOW_DAGMAN | SHOW_SUBMIT_DAG),
    flag("-no_submit", Opt::DoSubmit, "False", "DAG is not submitted to HTCondor automatically", SHOW_SUBMIT_DAG),
    flag("-Notification", Opt::Notification, "<option>", "Set HTCondor email notification level for DAG", SHOW_ALL),
    flag("-outfile_dir", Opt::OutfileDir, "<path>", "Directory path to write *.dagman.out file", SHOW_ALL),
    flag("-Priority", Opt::Priority, "<priority>", "Default priority for all jobs submitted by DAGMan", SHOW_ALL),
    flag("-Remote", Opt::RemoteSchedd, "<schedd name>", "Name of remote schedd to submit DAGMan", SHOW_SUBMIT_DAG),
    flag("-schedd-address-file", Opt::ScheddAddressFile, "<path>", "Submit DAG to Schedd provided by address file", SHOW_SUBMIT_DAG | SHOW_PYTHON),
    flag("-schedd-daemon-ad-file", Opt::ScheddDaemonAdFile, "<path>", "Submit DAG to Schedd provided by ad file", SHOW_SUBMIT_DAG | SHOW_PYTHON),
    flag("-SubmitMethod", Opt::SubmitMethod, "<value>", "Specify how DAGMan submits jobs for execution (0=condor_submit|1=DirectSubmit)", SHOW_ALL),
    flag("-suppress_notification", Opt::SuppressNotification, "True", "Suppress email notifications for DAGMan and all its submitted jobs", SHOW_ALL),
    flag("-update_submit", Opt::UpdateSubmit, "True", "Update *.condor.sub file if it exists", SHOW_ALL),
    flag("-UseDagDir", Opt::UseDagDir, "True", "Run DAGs in directories specified by DAG file paths", SHOW_ALL),
    flag("-v", Opt::Verbose, "True", "See -Verbose", 0),
    flag("-Valgrind", Opt::RunValgrind, "True", "Run DAGMan under Valgrind (Linux Only)", SHOW_SUBMIT_DAG | SHOW_PYTHON),
    flag("-Verbose", Opt::Verbose, "True", "Increase error message verbosity for condor_submit_dag", SHOW_SUBMIT_DAG),
];

/// `strcasecmp`'s order: bytes compared lower-cased.
fn cmp_no_case(a: &str, b: &str) -> std::cmp::Ordering {
    let lower = |s: &str| {
        s.bytes()
            .map(|b| b.to_ascii_lowercase())
            .collect::<Vec<u8>>()
    };
    lower(a).cmp(&lower(b))
}

/// The flag `word` names (`DagmanGetFlagInfo`): the first flag in case-insensitive order at
/// or after `word`, when `word` is a case-insensitive prefix of it. (HTCondor reads past the
/// end of its table for a word after every flag, `-w`; here that is no flag.)
pub fn find_flag(word: &str) -> Option<&'static Flag> {
    if word.is_empty() {
        return None;
    }
    let at = FLAGS.partition_point(|f| cmp_no_case(f.name, word).is_lt());
    let found = FLAGS.get(at)?;
    let prefix = found.name.get(..word.len())?;
    prefix.eq_ignore_ascii_case(word).then_some(found)
}

/// A command line the option parser refuses, with HTCondor's texts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    #[error("Error: Unknown flag '{0}' provided")]
    UnknownFlag(String),
    /// Two flags setting one bool option both ways (or the same way with two spellings).
    #[error("Error: Both {first} and {second} can't be used at the same time")]
    Conflict {
        first: &'static str,
        second: &'static str,
    },
    #[error("Error: Option {flag} ({given}) requires an additional argument")]
    MissingValue { flag: &'static str, given: String },
    #[error("Error: {given} ({flag}) additional argument required to be a {}", .kind.name())]
    BadValue {
        given: String,
        flag: &'static str,
        kind: Kind,
    },
    #[error("Error: {given} ({flag}) additional argument was empty")]
    EmptyValue { given: String, flag: &'static str },
    /// condor_submit_dag: a dash word after a DAG file.
    #[error("ERROR: no arguments allowed after DAG file name(s)")]
    ArgumentsAfterDag,
    /// condor_submit_dag: no DAG file.
    #[error("ERROR: no dag file specified; aborting.")]
    NoDagFile,
    #[error("-DoRescueFrom value must be non-negative; aborting.")]
    NegativeRescueFrom,
    /// The current directory could not be read to make `-Config` absolute.
    #[error("{0}")]
    Cwd(String),
    /// condor_dagman: a DaemonCore argument without its value (two lines, as DaemonCore
    /// prints them).
    #[error("{0}")]
    DaemonCore(String),
}

impl OptionError {
    /// Whether HTCondor prints this on stdout (condor_submit_dag's complaint about arguments
    /// after the DAG files) rather than stderr.
    pub fn on_stdout(&self) -> bool {
        matches!(self, OptionError::ArgumentsAfterDag)
    }

    /// Whether the tool prints its usage after the message (and exits 1).
    pub fn shows_usage(&self) -> bool {
        !matches!(self, OptionError::Cwd(_) | OptionError::DaemonCore(_))
    }
}

/// The configuration that the options' defaults come from (the `DagmanOptions` constructor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Defaults {
    /// `DAGMAN_INSERT_SUB_FILE`.
    pub insert_sub_file: Option<String>,
    /// `DAGMAN_COPY_TO_SPOOL` (false).
    pub copy_to_spool: bool,
    /// `DAGMAN_AUTO_RESCUE` (true).
    pub auto_rescue: bool,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            insert_sub_file: None,
            copy_to_spool: false,
            auto_rescue: true,
        }
    }
}

impl Defaults {
    pub fn from_config(config: &Config) -> Result<Defaults, ConfigError> {
        Ok(Defaults {
            insert_sub_file: config.string("DAGMAN_INSERT_SUB_FILE")?,
            copy_to_spool: config.bool("DAGMAN_COPY_TO_SPOOL")?.unwrap_or(false),
            auto_rescue: config.bool("DAGMAN_AUTO_RESCUE")?.unwrap_or(true),
        })
    }
}

/// `DAGMAN_MAX_RESCUE_NUM` (default 100), held to 0..=999 (`ABS_MAX_RESCUE_DAG_NUM`).
pub fn max_rescue_dag_num(config: &Config) -> Result<u32, ConfigError> {
    let n = config.int("DAGMAN_MAX_RESCUE_NUM")?.unwrap_or(100);
    Ok(n.clamp(0, 999) as u32)
}

/// The DaemonCore arguments condor_dagman is started with (`-p 0 -f -l .`), which DaemonCore
/// takes off the front of the command line before DAGMan sees it (`dc_main`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DaemonCoreArgs {
    /// `-p N` (`-p 0`: no command socket).
    pub port: Option<i32>,
    /// `-f` (or `-t`): stay in the foreground; `-b` turns it off.
    pub foreground: bool,
    /// `-t`: log to the terminal.
    pub terminal_log: bool,
    /// `-l DIR`: the log directory.
    pub log_dir: Option<String>,
    /// `-ld`: no default log file.
    pub no_default_log: bool,
    /// `-local-name NAME`.
    pub local_name: Option<String>,
    /// `-c FILE`: the configuration file (DaemonCore exports it as `CONDOR_CONFIG`).
    pub config: Option<String>,
    /// `-a X`: appended to the log file's name (`-a2 X`: the second log argument).
    pub log_append: Option<String>,
    pub log2_arg: Option<String>,
    /// `-pidfile FILE`.
    pub pid_file: Option<String>,
    /// `-k FILE`: kill the process whose pid FILE holds.
    pub kill_pid_file: Option<String>,
    /// `-r MINUTES`: run for this long, then exit gracefully.
    pub run_for: Option<i32>,
    /// `-sock NAME`.
    pub sock: Option<String>,
    /// `-q`.
    pub quiet: bool,
    /// `-d`/`-dynamic`.
    pub dynamic_dirs: bool,
}

/// What a command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    /// Go on with these options.
    Run(Box<DagmanOptions>),
    /// `-help` (or any option word holding `-h`): print [`usage`] and exit (0 for
    /// condor_submit_dag, 1 for condor_dagman).
    Help,
    /// `-version` (condor_submit_dag: any option word holding `-vers`; condor_dagman:
    /// DaemonCore's `-v...`): print the version and platform and exit 0.
    Version,
}

/// The options of one DAGMan run, typed. `None` is an option not given; the comments name
/// HTCondor's option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DagmanOptions {
    /// `DagFiles`: the DAG files in command-line order (see [`DagmanOptions::primary_dag`]).
    pub dag_files: Vec<String>,

    // Shallow options (not passed to sub-DAGs).
    /// `-MaxIdle` (`MaxIdle`); written to the submit file when >= 0.
    pub max_idle: Option<i32>,
    /// `-MaxJobs`.
    pub max_jobs: Option<i32>,
    /// `-MaxPre`.
    pub max_pre: Option<i32>,
    /// `-MaxPost`.
    pub max_post: Option<i32>,
    /// `-MaxHold` (parsed, never written to the submit file, as in HTCondor).
    pub max_hold: Option<i32>,
    /// `-AlwaysRunPost` (true) / `-DontAlwaysRunPost` (false) (`PostRun`).
    pub post_run: Option<bool>,
    /// `-DoRecovery` (`DoRecovery`; the submit file passes it as `-DoRecov`).
    pub do_recovery: bool,
    /// `-DumpRescue` (`DumpRescueDag`).
    pub dump_rescue: bool,
    /// `-Priority` (`Priority`, 0 when not given).
    pub priority: i32,
    /// `-load_save` (`SaveFile`).
    pub save_file: Option<String>,
    /// `-Debug` (`DebugLevel`); `-Debug -1` is HTCondor's "unset".
    pub debug: Option<i32>,
    /// `-Lockfile` (`LockFile`, condor_dagman's; condor_submit_dag always writes
    /// [`OutputFiles::lock`]).
    pub lock_file: Option<String>,
    /// `-CsdVersion` (`CsdVersion`).
    pub csd_version: Option<String>,
    /// `-Dot` (`OnlyDumpDot`).
    pub only_dump_dot: bool,
    /// `-DryRun` (`DryRun`).
    pub dry_run: bool,
    /// `-Config` (`ConfigFile`), made absolute by condor_submit_dag.
    pub config_file: Option<String>,
    /// `-insert_sub_file` (`AppendFile`), `DAGMAN_INSERT_SUB_FILE` by default.
    pub append_file: Option<String>,
    /// `-Append` (`AppendLines`), in order.
    pub append_lines: Vec<String>,
    /// `-no_submit` (`DoSubmit` false).
    pub no_submit: bool,
    /// `-Remote` (`RemoteSchedd`).
    pub remote: Option<String>,
    /// `-schedd-daemon-ad-file` (`ScheddDaemonAdFile`).
    pub schedd_daemon_ad_file: Option<String>,
    /// `-schedd-address-file` (`ScheddAddressFile`).
    pub schedd_address_file: Option<String>,
    /// `-Valgrind` (`RunValgrind`).
    pub valgrind: bool,
    /// `DAGMAN_COPY_TO_SPOOL` (`CopyToSpool`; no flag sets it).
    pub copy_to_spool: bool,

    // Deep options (passed down to sub-DAGs, see [`DagmanOptions::deep_args`]).
    /// `-Verbose`/`-v` (`Verbose`).
    pub verbose: bool,
    /// `-Notification` (`Notification`).
    pub notification: Option<String>,
    /// `-DAGMan` (`DagmanPath`).
    pub dagman_path: Option<String>,
    /// `-UseDagDir` (`UseDagDir`).
    pub use_dag_dir: bool,
    /// `-outfile_dir` (`OutfileDir`).
    pub outfile_dir: Option<String>,
    /// `-Batch-Name` (`BatchName`), surrounding `"` trimmed.
    pub batch_name: Option<String>,
    /// `BatchId` (no flag sets it).
    pub batch_id: Option<String>,
    /// `-AutoRescue N` (`AutoRescue`, an int: non-zero runs the newest rescue DAG); 1 or 0
    /// from `DAGMAN_AUTO_RESCUE` by default.
    pub auto_rescue: i32,
    /// `-DoRescueFrom N` (`DoRescueFrom`, 0: none).
    pub do_rescue_from: i32,
    /// `-AllowVersionMismatch`.
    pub allow_version_mismatch: bool,
    /// `-import_env` (`ImportEnv`).
    pub import_env: bool,
    /// `-include_env` (`GetFromEnv`), each a comma-separated list, in order.
    pub include_env: Vec<String>,
    /// `-insert_env` (`AddToEnv`), each trimmed, in order.
    pub insert_env: Vec<String>,
    /// `-do_recurse` (true) / `-no_recurse` (false) (`Recurse`).
    pub recurse: bool,
    /// `-suppress_notification` (true) / `-dont_suppress_notification` (false).
    pub suppress_notification: Option<bool>,
    /// `-SubmitMethod` (`SubmitMethod`; written when >= 0).
    pub submit_method: Option<i32>,
    /// `-Force`/`-f` (`Force`).
    pub force: bool,
    /// `-update_submit` (`UpdateSubmit`).
    pub update_submit: bool,

    /// condor_dagman's `-WaitForDebug`.
    pub wait_for_debug: bool,
    /// condor_dagman's DaemonCore arguments.
    pub daemon_core: DaemonCoreArgs,

    /// Which spelling set each bool option (`boolFlagCheck`), to refuse opposite flags.
    bool_flags: HashMap<Opt, &'static str>,
}

impl Default for DagmanOptions {
    fn default() -> Self {
        DagmanOptions::new(&Defaults::default())
    }
}

/// `std::stoi`: leading C whitespace, an optional sign, at least one digit (what follows is
/// ignored); `None` for no digits or a value outside `int`.
pub fn stoi(text: &str) -> Option<i32> {
    let t = text.trim_start_matches(is_space);
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let mut value: i64 = 0;
    for b in t[..digits].bytes() {
        value = value.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
        if value > i64::from(i32::MAX) + 1 {
            return None;
        }
    }
    let value = if negative { -value } else { value };
    i32::try_from(value).ok()
}

/// HTCondor's `trim_quotes(s, "\"")`: one `"` off each end of a value of two characters or
/// more.
fn trim_quotes(value: &str) -> &str {
    if value.len() < 2 {
        return value;
    }
    let value = value.strip_prefix('"').unwrap_or(value);
    value.strip_suffix('"').unwrap_or(value)
}

impl DagmanOptions {
    /// The options before any command line (the `DagmanOptions` constructor).
    pub fn new(defaults: &Defaults) -> DagmanOptions {
        DagmanOptions {
            dag_files: Vec::new(),
            max_idle: None,
            max_jobs: None,
            max_pre: None,
            max_post: None,
            max_hold: None,
            post_run: None,
            do_recovery: false,
            dump_rescue: false,
            priority: 0,
            save_file: None,
            debug: None,
            lock_file: None,
            csd_version: None,
            only_dump_dot: false,
            dry_run: false,
            config_file: None,
            append_file: defaults.insert_sub_file.clone(),
            append_lines: Vec::new(),
            no_submit: false,
            remote: None,
            schedd_daemon_ad_file: None,
            schedd_address_file: None,
            valgrind: false,
            copy_to_spool: defaults.copy_to_spool,
            verbose: false,
            notification: None,
            dagman_path: None,
            use_dag_dir: false,
            outfile_dir: None,
            batch_name: None,
            batch_id: None,
            auto_rescue: i32::from(defaults.auto_rescue),
            do_rescue_from: 0,
            allow_version_mismatch: false,
            import_env: false,
            include_env: Vec::new(),
            insert_env: Vec::new(),
            recurse: false,
            suppress_notification: None,
            submit_method: None,
            force: false,
            update_submit: false,
            wait_for_debug: false,
            daemon_core: DaemonCoreArgs::default(),
            bool_flags: HashMap::new(),
        }
    }

    /// The primary DAG: the first DAG file (the first non-empty one, as HTCondor's
    /// `addDAGFile` takes it); empty when there is none.
    pub fn primary_dag(&self) -> &str {
        self.dag_files
            .iter()
            .find(|f| !f.is_empty())
            .map_or("", String::as_str)
    }

    /// Whether several DAG files run as one (their rescue DAG is `<primary>_multi.rescueNNN`).
    pub fn is_multi_dag(&self) -> bool {
        self.dag_files.len() > 1
    }

    /// Adds a DAG file (a word without a dash, or `-Dag FILE`).
    pub fn add_dag_file(&mut self, file: &str) {
        self.dag_files.push(file.to_owned());
    }

    /// Sets a bool option.
    fn set_bool(&mut self, opt: Opt, value: bool) {
        match opt {
            Opt::AllowVersionMismatch => self.allow_version_mismatch = value,
            Opt::PostRun => self.post_run = Some(value),
            Opt::Recurse => self.recurse = value,
            Opt::SuppressNotification => self.suppress_notification = Some(value),
            Opt::DoRecovery => self.do_recovery = value,
            Opt::OnlyDumpDot => self.only_dump_dot = value,
            Opt::DryRun => self.dry_run = value,
            Opt::DumpRescueDag => self.dump_rescue = value,
            Opt::Force => self.force = value,
            Opt::ImportEnv => self.import_env = value,
            Opt::DoSubmit => self.no_submit = !value,
            Opt::UpdateSubmit => self.update_submit = value,
            Opt::UseDagDir => self.use_dag_dir = value,
            Opt::RunValgrind => self.valgrind = value,
            Opt::Verbose => self.verbose = value,
            other => unreachable!("{other:?} is not a bool option"),
        }
    }

    fn set_int(&mut self, opt: Opt, value: i32) {
        match opt {
            Opt::AutoRescue => self.auto_rescue = value,
            Opt::DebugLevel => self.debug = (value != -1).then_some(value),
            Opt::DoRescueFrom => self.do_rescue_from = value,
            Opt::MaxIdle => self.max_idle = Some(value),
            Opt::MaxHold => self.max_hold = Some(value),
            Opt::MaxJobs => self.max_jobs = Some(value),
            Opt::MaxPost => self.max_post = Some(value),
            Opt::MaxPre => self.max_pre = Some(value),
            Opt::Priority => self.priority = value,
            Opt::SubmitMethod => self.submit_method = Some(value),
            other => unreachable!("{other:?} is not an int option"),
        }
    }

    fn set_string(&mut self, opt: Opt, value: String) {
        match opt {
            Opt::BatchName => self.batch_name = Some(value),
            Opt::ConfigFile => self.config_file = Some(value),
            Opt::CsdVersion => self.csd_version = Some(value),
            Opt::DagmanPath => self.dagman_path = Some(value),
            Opt::AppendFile => self.append_file = Some(value),
            Opt::SaveFile => self.save_file = Some(value),
            Opt::LockFile => self.lock_file = Some(value),
            Opt::Notification => self.notification = Some(value),
            Opt::OutfileDir => self.outfile_dir = Some(value),
            Opt::RemoteSchedd => self.remote = Some(value),
            Opt::ScheddAddressFile => self.schedd_address_file = Some(value),
            Opt::ScheddDaemonAdFile => self.schedd_daemon_ad_file = Some(value),
            Opt::AppendLines => self.append_lines.push(value),
            Opt::GetFromEnv => self.include_env.push(value),
            Opt::AddToEnv => self.insert_env.push(value),
            Opt::DagFiles => self.add_dag_file(&value),
            other => unreachable!("{other:?} is not a string option"),
        }
    }

    /// `AutoParse`: applies the flag `word` (as given; the loops lower-case it first), taking
    /// its value from `args[*i + 1]` and advancing `*i` past it.
    ///
    /// A bool flag sets its option, unless another spelling already set the same option
    /// ([`OptionError::Conflict`], even `-f` after `-Force`). Any other flag takes the next
    /// word, which must exist and, unless the option is an integer, not start with `-`; an
    /// empty value is refused, an integer is read as `std::stoi` reads it. `-insert_env`
    /// values are trimmed and `-Batch-Name` values lose their surrounding quotes.
    pub fn auto_parse(
        &mut self,
        word: &str,
        args: &[String],
        i: &mut usize,
    ) -> Result<(), OptionError> {
        let flag = match word.strip_prefix("--") {
            // condorlite: `--Name` spelled out in full, as the man page shows it.
            Some(rest) if !rest.is_empty() => FLAGS
                .iter()
                .find(|f| f.name[1..].eq_ignore_ascii_case(rest)),
            _ => find_flag(word),
        };
        let Some(flag) = flag else {
            return Err(OptionError::UnknownFlag(word.to_owned()));
        };
        let kind = flag.option.kind();
        if kind == Kind::Bool {
            let used = *self.bool_flags.entry(flag.option).or_insert(flag.name);
            if used != flag.name {
                return Err(OptionError::Conflict {
                    first: used,
                    second: flag.name,
                });
            }
            self.set_bool(flag.option, flag.sets);
            return Ok(());
        }
        let value = match args.get(*i + 1) {
            Some(v) if kind == Kind::Int || !v.starts_with('-') => v,
            _ => {
                return Err(OptionError::MissingValue {
                    flag: flag.name,
                    given: word.to_owned(),
                })
            }
        };
        *i += 1;
        let value = match flag.option {
            Opt::AddToEnv => value.trim_matches(is_space),
            Opt::BatchName => trim_quotes(value),
            _ => value.as_str(),
        };
        if flag.option == Opt::DagFiles {
            // addDAGFile takes any value, even an empty one.
            self.add_dag_file(value);
            return Ok(());
        }
        if value.is_empty() {
            return Err(OptionError::EmptyValue {
                given: word.to_owned(),
                flag: flag.name,
            });
        }
        if kind == Kind::Int {
            let n = stoi(value).ok_or_else(|| OptionError::BadValue {
                given: word.to_owned(),
                flag: flag.name,
                kind,
            })?;
            self.set_int(flag.option, n);
        } else {
            self.set_string(flag.option, value.to_owned());
        }
        Ok(())
    }

    /// Reads a tool's command line (`args` without the program name) on top of these options.
    ///
    /// condor_submit_dag (`parseCommandLine`): a word without a leading `-` is a DAG file, and
    /// any dash word after one is [`OptionError::ArgumentsAfterDag`]. Before that, each dash word
    /// is lower-cased; one holding `-vers` is [`Parsed::Version`], one holding `-help` or `-h`
    /// is [`Parsed::Help`]; anything else goes to [`DagmanOptions::auto_parse`]. When
    /// `DAGMAN_INSERT_SUB_FILE` set [`DagmanOptions::append_file`], the first word holding
    /// `-insert_s` writes `Note: -insert_sub_file value (X) overriding DAGMAN_INSERT_SUB_FILE
    /// setting (Y)` to `out`. Then `-Config` is made absolute, and no DAG file or a negative
    /// `-DoRescueFrom` is an error.
    ///
    /// condor_dagman: DaemonCore first takes its arguments off the front ([`DaemonCoreArgs`];
    /// its `-v` is [`Parsed::Version`]). Then words without a dash are DAG files wherever they
    /// are; a dash word holding `-help` or `-h` is [`Parsed::Help`], `-WaitForDebug` sets
    /// [`DagmanOptions::wait_for_debug`], anything else goes to [`DagmanOptions::auto_parse`].
    /// The checks condor_dagman makes afterwards (a DAG file given, non-negative limits, ...)
    /// are its own.
    pub fn parse(
        mut self,
        args: &[String],
        tool: Tool,
        out: &mut dyn Write,
    ) -> Result<Parsed, OptionError> {
        let mut i = 0;
        if tool == Tool::Dagman {
            match self.daemon_core_args(args)? {
                Some(n) => i = n,
                None => return Ok(Parsed::Version),
            }
        }
        let mut noted = false;
        while i < args.len() {
            let word = &args[i];
            if !word.starts_with('-') {
                self.add_dag_file(word);
                i += 1;
                continue;
            }
            if tool == Tool::SubmitDag && !self.primary_dag().is_empty() {
                return Err(OptionError::ArgumentsAfterDag);
            }
            let lower = word.to_ascii_lowercase();
            if tool == Tool::SubmitDag && lower.contains("-vers") {
                return Ok(Parsed::Version);
            }
            if lower.contains("-help") || lower.contains("-h") {
                return Ok(Parsed::Help);
            }
            if tool == Tool::Dagman && lower == "-waitfordebug" {
                self.wait_for_debug = true;
                i += 1;
                continue;
            }
            if tool == Tool::SubmitDag && lower.contains("-insert_s") {
                if let (false, Some(knob)) = (noted, &self.append_file) {
                    // printf of a missing argument: glibc prints "(null)".
                    let value = args.get(i + 1).map_or("(null)", String::as_str);
                    let _ = writeln!(
                        out,
                        "Note: -insert_sub_file value ({value}) overriding \
                         DAGMAN_INSERT_SUB_FILE setting ({knob})"
                    );
                }
                noted = true;
            }
            self.auto_parse(&lower, args, &mut i)?;
            i += 1;
        }
        if tool == Tool::SubmitDag {
            if let Some(config) = &self.config_file {
                self.config_file = Some(make_path_absolute(config).map_err(OptionError::Cwd)?);
            }
            if self.primary_dag().is_empty() {
                return Err(OptionError::NoDagFile);
            }
            if self.do_rescue_from < 0 {
                return Err(OptionError::NegativeRescueFrom);
            }
        }
        Ok(Parsed::Run(Box::new(self)))
    }

    /// DaemonCore's `dc_main`: takes its arguments off the front of `args` (up to the first
    /// word that is not one of them) into [`DagmanOptions::daemon_core`]. Returns how many
    /// words it took, or `None` for `-v` (print the version and exit).
    fn daemon_core_args(&mut self, args: &[String]) -> Result<Option<usize>, OptionError> {
        let dc = &mut self.daemon_core;
        let mut i = 0;
        let missing = |what: &str, please: &str| {
            OptionError::DaemonCore(format!(
                "DaemonCore: ERROR: {what} needs another argument.\n   {please}"
            ))
        };
        while let Some(word) = args.get(i) {
            let bytes = word.as_bytes();
            if bytes.first() != Some(&b'-') {
                break;
            }
            let next = args.get(i + 1).cloned();
            let mut took = 1;
            match bytes.get(1) {
                Some(b'a') => {
                    let value = next.ok_or_else(|| {
                        missing(
                            "-append",
                            "Please specify a string to append to our log's filename.",
                        )
                    })?;
                    if bytes.get(2) == Some(&b'2') {
                        dc.log2_arg = Some(value);
                    } else {
                        dc.log_append = Some(value);
                    }
                    took = 2;
                }
                Some(b'b') => dc.foreground = false,
                Some(b'c') => {
                    let value = next.ok_or_else(|| {
                        missing("-config", "Please specify the filename of the config file.")
                    })?;
                    dc.config = Some(value);
                    took = 2;
                }
                Some(b'd') if word == "-d" || word == "-dynamic" => dc.dynamic_dirs = true,
                Some(b'f') => dc.foreground = true,
                Some(b'k') => {
                    let value = next.ok_or_else(|| {
                        missing(
                            "-kill",
                            "Please specify a file that holds the pid you want to kill.",
                        )
                    })?;
                    dc.kill_pid_file = Some(value);
                    took = 2;
                }
                Some(b'l') if word == "-local-name" => {
                    let value = next.ok_or_else(|| {
                        missing("-local-name", "Please specify the local config to use.")
                    })?;
                    dc.local_name = Some(value);
                    took = 2;
                }
                Some(b'l') if word == "-ld" => dc.no_default_log = true,
                Some(b'l') => {
                    let value = next.ok_or_else(|| {
                        OptionError::DaemonCore(
                            "DaemonCore: ERROR: -log needs another argument".into(),
                        )
                    })?;
                    dc.log_dir = Some(value);
                    took = 2;
                }
                Some(b'h') if bytes.get(2) == Some(&b't') => {
                    return Err(OptionError::DaemonCore(
                        "DaemonCore: ERROR: -http no longer accepted.".into(),
                    ))
                }
                Some(b'p') if bytes.get(2) == Some(&b'i') => {
                    let value = next.ok_or_else(|| {
                        missing("-pidfile", "Please specify a filename to store the pid.")
                    })?;
                    dc.pid_file = Some(value);
                    took = 2;
                }
                Some(b'p') => {
                    let value = next.ok_or_else(|| {
                        missing(
                            "-port",
                            "Please specify the port to use for the command socket.",
                        )
                    })?;
                    dc.port = Some(stoi(&value).unwrap_or(0));
                    took = 2;
                }
                Some(b'q') => dc.quiet = true,
                Some(b'r') => {
                    let value = next.ok_or_else(|| {
                        missing(
                            "-runfor",
                            "Please specify the number of minutes to run for.",
                        )
                    })?;
                    dc.run_for = Some(stoi(&value).unwrap_or(0));
                    took = 2;
                }
                Some(b's') if word == "-sock" => {
                    let value =
                        next.ok_or_else(|| missing("-sock", "Please specify a socket name."))?;
                    dc.sock = Some(value);
                    took = 2;
                }
                Some(b't') => {
                    dc.terminal_log = true;
                    dc.foreground = true;
                }
                Some(b'v') => return Ok(None),
                _ => break,
            }
            i += took;
        }
        Ok(Some(i))
    }

    /// `addDeepArgs`: the arguments that pass the deep options down, in HTCondor's order.
    /// `in_write_submit` is true for the DAGMan job's own arguments (then `-DoRescueFrom` is
    /// always there, and `-force` and `-update_submit` are added), false for a recursive
    /// condor_submit_dag.
    pub fn deep_args(&self, in_write_submit: bool) -> Vec<String> {
        let mut args: Vec<String> = Vec::new();
        let mut add = |words: &[&str]| args.extend(words.iter().map(|w| (*w).to_owned()));
        if self.verbose {
            add(&["-verbose"]);
        }
        if let Some(notification) = &self.notification {
            let value = if self.suppress_notification == Some(true) {
                "never"
            } else {
                notification
            };
            add(&["-notification", value]);
        }
        if let Some(path) = &self.dagman_path {
            add(&["-dagman", path]);
        }
        if self.use_dag_dir {
            add(&["-UseDagDir"]);
        }
        if let Some(dir) = &self.outfile_dir {
            add(&["-outfile_dir", dir]);
        }
        add(&["-AutoRescue", &self.auto_rescue.to_string()]);
        if in_write_submit || self.do_rescue_from != 0 {
            add(&["-DoRescueFrom", &self.do_rescue_from.to_string()]);
        }
        if self.allow_version_mismatch {
            add(&["-AllowVersionMismatch"]);
        }
        if self.import_env {
            add(&["-import_env"]);
        }
        for vars in &self.include_env {
            add(&["-include_env", vars]);
        }
        for pairs in &self.insert_env {
            add(&["-insert_env", pairs]);
        }
        if self.recurse {
            add(&["-do_recurse"]);
        }
        match self.suppress_notification {
            Some(true) => add(&["-suppress_notification"]),
            Some(false) => add(&["-dont_suppress_notification"]),
            None => {}
        }
        if let Some(method) = self.submit_method.filter(|m| *m >= 0) {
            add(&["-SubmitMethod", &method.to_string()]);
        }
        if in_write_submit {
            if self.force {
                add(&["-force"]);
            }
            if self.update_submit {
                add(&["-update_submit"]);
            }
        }
        args
    }

    /// The files named after the primary DAG P (`setUpOptions`). With `-UseDagDir` the
    /// old-style rescue file is in the current directory (`cwd/basename(P).rescue`), which is
    /// why this can fail.
    pub fn files(&self) -> io::Result<OutputFiles> {
        let primary = self.primary_dag();
        let debug_log = match &self.outfile_dir {
            Some(dir) => format!("{dir}/{}.dagman.out", basename(primary)),
            None => format!("{primary}.dagman.out"),
        };
        let mut rescue_base = if self.use_dag_dir {
            let cwd = std::env::current_dir()?;
            format!("{}/{}", cwd.to_string_lossy(), basename(primary))
        } else {
            primary.to_owned()
        };
        if self.is_multi_dag() {
            rescue_base.push_str("_multi");
        }
        Ok(OutputFiles {
            lib_out: format!("{primary}.lib.out"),
            lib_err: format!("{primary}.lib.err"),
            debug_log,
            sched_log: format!("{primary}.dagman.log"),
            sub_file: format!("{primary}.condor.sub"),
            rescue_file: format!("{rescue_base}.rescue"),
            lock: format!("{primary}.lock"),
            halt: halt_file_name(primary),
        })
    }

    /// `processDagCommands`: reads every DAG file (from its own directory with `-UseDagDir`)
    /// for the commands that change the DAGMan job itself, and returns the `SET_JOB_ATTR`
    /// texts (the submit file gets `My.<text>` for each):
    /// - `CONFIG file`: the DAGMan configuration file, made absolute; all DAG files must name
    ///   the same one, and it must be the `-Config` file if one was given;
    /// - `ENV GET vars`: the variables (separated by commas or blanks) joined with commas,
    ///   added to [`DagmanOptions::include_env`];
    /// - `ENV SET pairs`: trimmed, added to [`DagmanOptions::insert_env`].
    ///
    /// Errors are HTCondor's texts, several joined with `; `; a DAG file that cannot be read
    /// stops at once ([`DagCommandsError::Open`]).
    pub fn process_dag_commands(&mut self) -> Result<Vec<String>, DagCommandsError> {
        let mut errors = String::new();
        let append_error = |errors: &mut String, text: &str| {
            if !errors.is_empty() {
                errors.push_str("; ");
            }
            errors.push_str(text);
        };
        let mut attr_lines = Vec::new();
        let mut config_files: Vec<String> = Vec::new();
        for dag_file in self.dag_files.clone() {
            // The directory relative paths are taken from (HTCondor changes into it).
            let (path, base_dir) = if self.use_dag_dir {
                let dir = dirname(&dag_file);
                let cwd = if dir == "." {
                    std::env::current_dir()
                } else {
                    std::fs::canonicalize(&dir)
                };
                match cwd {
                    Ok(cwd) => (cwd.join(basename(&dag_file)), Some(cwd)),
                    Err(e) => {
                        return Err(DagCommandsError::Commands(format!(
                            "Unable to change to DAG directory Unable to chdir to {dir}: {}",
                            crate::config::parse::io_reason(&e)
                        )))
                    }
                }
            } else {
                (PathBuf::from(&dag_file), None)
            };
            let text = match std::fs::read(&path) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    let name = if self.use_dag_dir {
                        basename(&dag_file)
                    } else {
                        &dag_file
                    };
                    return Err(DagCommandsError::Open(open_error(name, &e)));
                }
            };
            let mut reader = LineReader::new(&text);
            while let Some(line) = reader.next_line() {
                let mut tokens = Tokens::new(&line, " \t\r");
                let Some(command) = tokens.next() else {
                    continue;
                };
                if command.eq_ignore_ascii_case("CONFIG") {
                    match tokens.remain() {
                        None => append_error(
                            &mut errors,
                            "Improperly-formatted file: value missing after keyword CONFIG",
                        ),
                        Some(file) => {
                            let absolute = match &base_dir {
                                Some(dir) if !file.starts_with('/') => {
                                    Ok(format!("{}/{file}", dir.to_string_lossy()))
                                }
                                _ => make_path_absolute(file),
                            };
                            match absolute {
                                Ok(file) => {
                                    if !config_files.contains(&file) {
                                        config_files.push(file);
                                    }
                                }
                                Err(e) => append_error(&mut errors, &e),
                            }
                        }
                    }
                } else if command.eq_ignore_ascii_case("SET_JOB_ATTR") {
                    match tokens.remain() {
                        None => append_error(
                            &mut errors,
                            "Improperly-formatted file: value missing after keyword \
                             SET_JOB_ATTR",
                        ),
                        Some(attr) => attr_lines.push(attr.to_owned()),
                    }
                } else if command.eq_ignore_ascii_case("ENV") {
                    let sub = tokens.next();
                    if sub.is_some_and(|s| s.eq_ignore_ascii_case("GET")) {
                        match tokens.remain() {
                            None => append_error(
                                &mut errors,
                                "Improperly-formatted file: environment variables missing \
                                 after ENV GET",
                            ),
                            Some(vars) => {
                                let mut list = Tokens::new(vars, ", \t\r\n");
                                let mut joined = String::new();
                                while let Some(var) = list.next() {
                                    if !joined.is_empty() {
                                        joined.push(',');
                                    }
                                    joined.push_str(var);
                                }
                                // set() refuses an empty value.
                                if !joined.is_empty() {
                                    self.include_env.push(joined);
                                }
                            }
                        }
                    } else if sub.is_some_and(|s| s.eq_ignore_ascii_case("SET")) {
                        match tokens.remain() {
                            None => append_error(
                                &mut errors,
                                "Improperly-formatted file: environment variables missing \
                                 after ENV SET",
                            ),
                            Some(pairs) => {
                                let pairs = pairs.trim_matches(is_space);
                                if !pairs.is_empty() {
                                    self.insert_env.push(pairs.to_owned());
                                }
                            }
                        }
                    } else {
                        append_error(
                            &mut errors,
                            "Improperly-formatted file: sub-command (SET or GET) missing after \
                             keyword ENV",
                        );
                    }
                }
            }
        }
        // HTCondor keeps the files in a std::set: the first of several in sorted order.
        config_files.sort();
        match config_files.as_slice() {
            [] => {}
            [file] => match &self.config_file {
                None => self.config_file = Some(file.clone()),
                Some(given) if given != file => append_error(
                    &mut errors,
                    &format!("Conflicting DAGMan config files specified: {given} and {file}"),
                ),
                Some(_) => {}
            },
            several => append_error(
                &mut errors,
                &format!("Multiple ({}) configuration files provided.", several.len()),
            ),
        }
        if errors.is_empty() {
            Ok(attr_lines)
        } else {
            Err(DagCommandsError::Commands(errors))
        }
    }
}

/// Why [`DagmanOptions::process_dag_commands`] failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DagCommandsError {
    /// A DAG file could not be opened: `MultiLogFiles::FileReader::Open`'s text, which ends
    /// in a newline (HTCondor also logs it as it happens).
    #[error("{0}")]
    Open(String),
    /// Commands HTCondor refuses, their texts joined with `; `.
    #[error("{0}")]
    Commands(String),
}

/// The files condor_submit_dag and condor_dagman name after the primary DAG P.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFiles {
    /// `P.lib.out`: the DAGMan job's standard output.
    pub lib_out: String,
    /// `P.lib.err`: its standard error.
    pub lib_err: String,
    /// `P.dagman.out`, or `<outfile_dir>/<basename P>.dagman.out`: DAGMan's debug log.
    pub debug_log: String,
    /// `P.dagman.log`: the DAGMan job's own event log.
    pub sched_log: String,
    /// `P.condor.sub`: the DAGMan job's submit file.
    pub sub_file: String,
    /// `P.rescue` (`P_multi.rescue` for several DAGs): the old-style rescue DAG.
    pub rescue_file: String,
    /// `P.lock`.
    pub lock: String,
    /// `P.halt`.
    pub halt: String,
}

/// `condor_basename`: what follows the last `/`.
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `condor_dirname`: what precedes the last `/` (`/` for a file at the root, `.` for none).
fn dirname(path: &str) -> String {
    match path.rfind('/') {
        Some(0) => "/".into(),
        Some(i) => path[..i].into(),
        None => ".".into(),
    }
}

/// `MakePathAbsolute`: a relative path gets the current directory in front.
pub fn make_path_absolute(path: &str) -> Result<String, String> {
    if path.starts_with('/') {
        return Ok(path.to_owned());
    }
    let cwd = std::env::current_dir().map_err(|e| {
        format!(
            "condor_getcwd() failed with errno {} ({})",
            e.raw_os_error().unwrap_or(0),
            crate::config::parse::io_reason(&e)
        )
    })?;
    Ok(format!("{}/{path}", cwd.to_string_lossy()))
}

/// `MultiLogFiles::FileReader::Open`'s message for a file that cannot be opened.
pub fn open_error(file: &str, e: &io::Error) -> String {
    format!(
        "MultiLogFiles::FileReader::Open(): safe_fopen_wrapper_follow({file}) failed with errno \
         {} ({})\n",
        e.raw_os_error().unwrap_or(0),
        crate::config::parse::io_reason(e)
    )
}

/// HTCondor's `StringTokenIterator` with trimming: tokens separated by any of `delims` (and
/// blanks around them), and what remains of the text after the current token.
struct Tokens<'a> {
    text: &'a str,
    delims: &'static str,
    at: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str, delims: &'static str) -> Tokens<'a> {
        Tokens {
            text,
            delims,
            at: 0,
        }
    }

    fn next(&mut self) -> Option<&'a str> {
        let rest = &self.text[self.at..];
        let start = rest.find(|c: char| !self.delims.contains(c) && !is_space(c))?;
        let token = &rest[start..];
        let end = token
            .find(|c: char| self.delims.contains(c))
            .unwrap_or(token.len());
        self.at += start + end;
        Some(token[..end].trim_end_matches(is_space))
    }

    /// `remain()` with the leading blanks skipped, as processDagCommands skips them; `None`
    /// when nothing is left.
    fn remain(&self) -> Option<&'a str> {
        let rest = self.text[self.at..].trim_start_matches(is_space);
        (!rest.is_empty()).then_some(rest)
    }
}

/// condor_submit_dag's SUBDAG lines for `-do_recurse` (`doRecursionNew`): the nested DAG
/// file of a `SUBDAG EXTERNAL name file [DIR dir]` line and its directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubdagLine {
    /// Not a SUBDAG line.
    Other,
    External {
        file: String,
        dir: Option<String>,
    },
    /// A line condor_submit_dag refuses, with its message.
    Error(String),
}

/// Reads one logical line of a DAG file as `doRecursionNew` does.
pub fn subdag_line(line: &str) -> SubdagLine {
    let mut tokens = Tokens::new(line, ", \t\r\n");
    if !tokens
        .next()
        .is_some_and(|t| t.eq_ignore_ascii_case("SUBDAG"))
    {
        return SubdagLine::Other;
    }
    if !tokens
        .next()
        .is_some_and(|t| t.eq_ignore_ascii_case("EXTERNAL"))
    {
        return SubdagLine::Error(format!(
            "ERROR: only SUBDAG EXTERNAL is supported at this time (line: <{line}>)"
        ));
    }
    if tokens.next().is_none() {
        return SubdagLine::Error(format!("No node name specified in line: <{line}>"));
    }
    let Some(file) = tokens.next() else {
        return SubdagLine::Error(format!("No DAG file specified in line: <{line}>"));
    };
    let mut dir = None;
    if tokens.next().is_some_and(|t| t.eq_ignore_ascii_case("DIR")) {
        match tokens.next() {
            Some(d) => dir = Some(d.to_owned()),
            None => return SubdagLine::Error(format!("No directory specified in line: <{line}>")),
        }
    }
    SubdagLine::External {
        file: file.to_owned(),
        dir,
    }
}

/// The usage text HTCondor prints for `tool` (`printUsage` and condor_dagman's `Usage`).
pub fn usage(tool: Tool) -> String {
    let mut text = String::new();
    match tool {
        Tool::SubmitDag => {
            text.push_str(
                "Usage: condor_submit_dag [options] dag_file [dag_file_2 ... dag_file_n]\n  \
                 where dag_file1, etc., is the name of a DAG input file\n  and where \
                 [options] is one or more of:\n    -help                          (print \
                 usage info and exit)\n    -version                       (print version and \
                 exit)\n",
            );
            for flag in FLAGS.iter().filter(|f| f.shown & SHOW_SUBMIT_DAG != 0) {
                text.push_str(&format!("    {:<30} ({})\n", display(flag), flag.help));
            }
        }
        Tool::Dagman => {
            text.push_str(
                "Usage: condor_dagman -p 0 -f -l . -Dag <NAME.dag> -Lockfile <NAME.dag.lock> \
                 -CsdVersion <version string>\n\t[-Help]\n\t[-Version]\n",
            );
            for flag in FLAGS.iter().filter(|f| f.shown & SHOW_DAGMAN != 0) {
                text.push_str(&format!("\t[{}]\n", display(flag)));
            }
            text.push_str("Where NAME is the name of your DAG file.\nDefault -Debug is -Debug 3\n");
        }
    }
    text
}

/// A flag as the usages show it: with its placeholder unless it is a bool.
pub fn display(flag: &Flag) -> String {
    if flag.option.kind() == Kind::Bool {
        flag.name.to_owned()
    } else {
        format!("{} {}", flag.name, flag.meta)
    }
}

/// `RescueDagName`: `P.rescueNNN`, or `P_multi.rescueNNN` for several DAGs.
///
/// # Panics
/// If `n` is 0 (HTCondor asserts it is at least 1).
pub fn rescue_dag_name(primary: &str, multi: bool, n: u32) -> String {
    assert!(n >= 1, "rescue DAG numbers start at 1");
    let multi = if multi { "_multi" } else { "" };
    format!("{primary}{multi}.rescue{n:03}")
}

/// `HaltFileName`: `P.halt`.
pub fn halt_file_name(primary: &str) -> String {
    format!("{primary}.halt")
}

/// `FindLastRescueDagNum`: the number of the newest rescue DAG of `primary` from 1 to `max`
/// (0 for none). A gap in the numbers and reaching `max` are reported on `log` (HTCondor's
/// `D_ALWAYS` lines: stderr for condor_submit_dag, the debug log for condor_dagman).
pub fn find_last_rescue_dag_num(primary: &str, multi: bool, max: u32, log: &mut dyn Write) -> u32 {
    let mut last = 0;
    for n in 1..=max {
        if Path::new(&rescue_dag_name(primary, multi, n)).exists() {
            if n > last + 1 {
                let _ = writeln!(
                    log,
                    "Warning: found rescue DAG number {n}, but not rescue DAG number {}",
                    n - 1
                );
            }
            last = n;
        }
    }
    if last >= max {
        let _ = writeln!(
            log,
            "Warning: FindLastRescueDagNum() hit maximum rescue DAG number: {max}"
        );
    }
    last
}

/// `RenameRescueDagsAfter`: renames every rescue DAG numbered above `n` (up to the newest, as
/// [`find_last_rescue_dag_num`] finds it) to `<name>.old`, replacing any older `.old`, and logs
/// each on `log`. `n` = 0 renames them all (`condor_submit_dag -f`). A rename that fails is
/// `Fatal error: unable to rename old rescue file <name>: error <errno> (<reason>)` (HTCondor
/// aborts the program).
pub fn rename_rescue_dags_after(
    primary: &str,
    multi: bool,
    n: u32,
    max: u32,
    log: &mut dyn Write,
) -> Result<(), String> {
    let _ = writeln!(log, "Renaming rescue DAGs newer than number {n}");
    let last = find_last_rescue_dag_num(primary, multi, max, log);
    for k in n + 1..=last {
        let name = rescue_dag_name(primary, multi, k);
        let _ = writeln!(log, "Renaming {name}");
        let old = format!("{name}.old");
        tolerant_unlink(&old, log);
        if let Err(e) = std::fs::rename(&name, &old) {
            return Err(format!(
                "Fatal error: unable to rename old rescue file {name}: error {} ({})",
                e.raw_os_error().unwrap_or(0),
                crate::config::parse::io_reason(&e)
            ));
        }
    }
    Ok(())
}

/// `tolerant_unlink`: removes a file; a failure other than "no such file" is logged.
pub fn tolerant_unlink(path: &str, log: &mut dyn Write) {
    if let Err(e) = std::fs::remove_file(path) {
        if e.kind() != io::ErrorKind::NotFound {
            let _ = writeln!(
                log,
                "Error ({} ({})) attempting to unlink file {path}",
                e.raw_os_error().unwrap_or(0),
                crate::config::parse::io_reason(&e)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    fn parse_with(
        defaults: &Defaults,
        args: &[&str],
        tool: Tool,
    ) -> (Result<Parsed, OptionError>, String) {
        let mut out = Vec::new();
        let parsed = DagmanOptions::new(defaults).parse(&words(args), tool, &mut out);
        (parsed, String::from_utf8(out).unwrap())
    }

    fn csd(args: &[&str]) -> Result<DagmanOptions, OptionError> {
        match parse_with(&Defaults::default(), args, Tool::SubmitDag).0? {
            Parsed::Run(options) => Ok(*options),
            other => panic!("{args:?}: {other:?}"),
        }
    }

    fn dagman(args: &[&str]) -> Result<DagmanOptions, OptionError> {
        match parse_with(&Defaults::default(), args, Tool::Dagman).0? {
            Parsed::Run(options) => Ok(*options),
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn the_table_is_in_case_insensitive_order() {
        for pair in FLAGS.windows(2) {
            assert!(
                cmp_no_case(pair[0].name, pair[1].name).is_lt(),
                "{} before {}",
                pair[0].name,
                pair[1].name
            );
        }
        // Bool placeholders say what the flag sets.
        for f in FLAGS.iter().filter(|f| f.option.kind() == Kind::Bool) {
            assert_eq!(f.meta, if f.sets { "True" } else { "False" }, "{}", f.name);
        }
    }

    #[test]
    fn flags_match_by_prefix_as_lower_bound_does() {
        let name = |w: &str| find_flag(w).map(|f| f.name);
        assert_eq!(name("-maxj"), Some("-MaxJobs"));
        assert_eq!(name("-MAXJOBS"), Some("-MaxJobs"));
        assert_eq!(name("-r"), Some("-Remote"));
        assert_eq!(name("-f"), Some("-f"));
        assert_eq!(name("-fo"), Some("-Force"));
        assert_eq!(name("-m"), Some("-MaxHold"));
        assert_eq!(name("-maxp"), Some("-MaxPost"));
        assert_eq!(name("-d"), Some("-Dag"));
        assert_eq!(name("-dagm"), Some("-DAGMan"));
        assert_eq!(name("-do"), Some("-do_recurse"));
        assert_eq!(name("-dore"), Some("-DoRecovery"));
        assert_eq!(name("-dorecov"), Some("-DoRecovery"));
        assert_eq!(name("-dores"), Some("-DoRescueFrom"));
        assert_eq!(name("-insert"), Some("-insert_env"));
        assert_eq!(name("-insert_s"), Some("-insert_sub_file"));
        assert_eq!(name("-v"), Some("-v"));
        assert_eq!(name("-ve"), Some("-Verbose"));
        assert_eq!(name("-su"), Some("-SubmitMethod"));
        assert_eq!(name("-sup"), Some("-suppress_notification"));
        assert_eq!(name("-"), Some("-AllowVersionMismatch"));
        // Not a prefix of the flag at the lower bound, or past the end of the table.
        assert_eq!(name("-batch-id"), None);
        assert_eq!(name("-t"), None);
        assert_eq!(name("-w"), None);
        assert_eq!(name("--maxjobs"), None);
        assert_eq!(name(""), None);
    }

    #[test]
    fn options_are_typed() {
        let o = csd(&[
            "-maxjobs",
            "3",
            "-MAXIDLE",
            "10",
            "-maxpre",
            "-2",
            "-maxpost",
            " 4x",
            "-MaxHold",
            "5",
            "-debug",
            "7",
            "-priority",
            "+9",
            "-batch-name",
            "\"my dag\"",
            "-append",
            "a = 1",
            "-append",
            "b = 2",
            "-insert_env",
            "  A=1;B=2 ",
            "-include_env",
            "X,Y",
            "-notification",
            "Complete",
            "-DontAlwaysRunPost",
            "-no_submit",
            "-force",
            "-autorescue",
            "5",
            "-dorescuefrom",
            "2",
            "-SubmitMethod",
            "0",
            "-do_recurse",
            "-dont_suppress_notification",
            "x.dag",
            "y.dag",
        ])
        .unwrap();
        assert_eq!(o.dag_files, ["x.dag", "y.dag"]);
        assert_eq!(o.primary_dag(), "x.dag");
        assert!(o.is_multi_dag());
        assert_eq!(
            (o.max_jobs, o.max_idle, o.max_pre, o.max_post, o.max_hold),
            (Some(3), Some(10), Some(-2), Some(4), Some(5))
        );
        assert_eq!((o.debug, o.priority), (Some(7), 9));
        assert_eq!(o.batch_name.as_deref(), Some("my dag"));
        assert_eq!(o.append_lines, ["a = 1", "b = 2"]);
        assert_eq!(o.insert_env, ["A=1;B=2"]);
        assert_eq!(o.include_env, ["X,Y"]);
        assert_eq!(o.notification.as_deref(), Some("Complete"));
        assert_eq!(o.post_run, Some(false));
        assert!(o.no_submit && o.force && o.recurse);
        assert_eq!((o.auto_rescue, o.do_rescue_from), (5, 2));
        assert_eq!(o.submit_method, Some(0));
        assert_eq!(o.suppress_notification, Some(false));
        // The defaults.
        let o = csd(&["x.dag"]).unwrap();
        assert_eq!((o.auto_rescue, o.do_rescue_from, o.priority), (1, 0, 0));
        assert_eq!((o.max_jobs, o.debug, o.post_run), (None, None, None));
        assert!(!o.no_submit && !o.is_multi_dag());
        assert_eq!(csd(&["-debug", "-1", "x.dag"]).unwrap().debug, None);
    }

    #[test]
    fn bool_flags_cannot_be_set_both_ways() {
        let both = |a: &'static str, b: &'static str| OptionError::Conflict {
            first: a,
            second: b,
        };
        assert_eq!(
            csd(&["-AlwaysRunPost", "-dontalwaysrunpost", "x.dag"]).unwrap_err(),
            both("-AlwaysRunPost", "-DontAlwaysRunPost")
        );
        // Two spellings of one flag conflict too, as in HTCondor.
        assert_eq!(
            csd(&["-f", "-force", "x.dag"]).unwrap_err(),
            both("-f", "-Force")
        );
        assert_eq!(
            csd(&["-do_recurse", "-no_recurse", "x.dag"]).unwrap_err(),
            both("-do_recurse", "-no_recurse")
        );
        assert_eq!(
            csd(&["-v", "-verbose", "x.dag"]).unwrap_err().to_string(),
            "Error: Both -v and -Verbose can't be used at the same time"
        );
        // The same flag twice, or two prefixes of it, is fine.
        assert!(csd(&["-force", "-fo", "-FORCE", "x.dag"]).unwrap().force);
    }

    #[test]
    fn values_missing_empty_or_not_integers() {
        assert_eq!(
            csd(&["-maxjobs"]).unwrap_err().to_string(),
            "Error: Option -MaxJobs (-maxjobs) requires an additional argument"
        );
        assert_eq!(
            csd(&["-config", "-x", "x.dag"]).unwrap_err().to_string(),
            "Error: Option -Config (-config) requires an additional argument"
        );
        assert_eq!(
            csd(&["-maxj", "lots", "x.dag"]).unwrap_err().to_string(),
            "Error: -maxj (-MaxJobs) additional argument required to be a integer"
        );
        assert_eq!(
            csd(&["-maxjobs", "99999999999", "x.dag"]).unwrap_err(),
            OptionError::BadValue {
                given: "-maxjobs".into(),
                flag: "-MaxJobs",
                kind: Kind::Int
            }
        );
        assert_eq!(
            csd(&["-batch-name", "", "x.dag"]).unwrap_err().to_string(),
            "Error: -batch-name (-Batch-Name) additional argument was empty"
        );
        assert_eq!(
            csd(&["-batch-name", "\"\"", "x.dag"])
                .unwrap_err()
                .to_string(),
            "Error: -batch-name (-Batch-Name) additional argument was empty"
        );
        assert_eq!(
            csd(&["-bogus", "x.dag"]).unwrap_err().to_string(),
            "Error: Unknown flag '-bogus' provided"
        );
        // The loop lower-cases the word before it reaches the table.
        assert_eq!(
            csd(&["-Bogus", "x.dag"]).unwrap_err().to_string(),
            "Error: Unknown flag '-bogus' provided"
        );
    }

    #[test]
    fn submit_dag_command_line_rules() {
        assert_eq!(
            csd(&["x.dag", "-force"]).unwrap_err(),
            OptionError::ArgumentsAfterDag
        );
        assert!(OptionError::ArgumentsAfterDag.on_stdout());
        assert_eq!(csd(&["-force"]).unwrap_err(), OptionError::NoDagFile);
        assert_eq!(
            csd(&["-dorescuefrom", "-1", "x.dag"])
                .unwrap_err()
                .to_string(),
            "-DoRescueFrom value must be non-negative; aborting."
        );
        let run = |args: &[&str]| parse_with(&Defaults::default(), args, Tool::SubmitDag).0;
        // -help and -h anywhere in an option word; -vers first.
        for help in ["-help", "--help", "-h", "-HELP", "-x-hx", "-foo-h"] {
            assert_eq!(run(&[help, "x.dag"]), Ok(Parsed::Help), "{help}");
        }
        assert_eq!(run(&["-force", "-h"]), Ok(Parsed::Help));
        assert_eq!(run(&["-version"]), Ok(Parsed::Version));
        assert_eq!(run(&["-vers-h"]), Ok(Parsed::Version));
        // ... but not after a DAG file, nor as an option's value.
        assert_eq!(
            run(&["x.dag", "-help"]),
            Err(OptionError::ArgumentsAfterDag)
        );
        assert_eq!(
            run(&["-append", "-h", "x.dag"]),
            Err(OptionError::MissingValue {
                flag: "-Append",
                given: "-append".into()
            })
        );
        // -Dag gives a DAG file too, after which no option may follow.
        let o = csd(&["-dag", "a.dag", "b.dag"]).unwrap();
        assert_eq!(o.dag_files, ["a.dag", "b.dag"]);
        // --Name spelled out in full.
        assert_eq!(csd(&["--MaxJobs", "4", "x.dag"]).unwrap().max_jobs, Some(4));
        assert_eq!(
            csd(&["--maxj", "4", "x.dag"]).unwrap_err(),
            OptionError::UnknownFlag("--maxj".into())
        );
    }

    #[test]
    fn config_is_made_absolute() {
        let o = csd(&["-config", "my.conf", "x.dag"]).unwrap();
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            o.config_file,
            Some(format!("{}/my.conf", cwd.to_string_lossy()))
        );
        let o = csd(&["-config", "/etc/my.conf", "x.dag"]).unwrap();
        assert_eq!(o.config_file.as_deref(), Some("/etc/my.conf"));
    }

    #[test]
    fn insert_sub_file_overriding_the_knob_is_noted_once() {
        let knob = Defaults {
            insert_sub_file: Some("/knob.sub".into()),
            ..Defaults::default()
        };
        let (parsed, out) = parse_with(
            &knob,
            &["-insert_sub_file", "a.sub", "-insert_s", "b.sub", "x.dag"],
            Tool::SubmitDag,
        );
        let Ok(Parsed::Run(o)) = parsed else {
            panic!("{parsed:?}")
        };
        assert_eq!(o.append_file.as_deref(), Some("b.sub"));
        assert_eq!(
            out,
            "Note: -insert_sub_file value (a.sub) overriding DAGMAN_INSERT_SUB_FILE setting \
             (/knob.sub)\n"
        );
        // Without the knob there is nothing to note; the knob alone is the default.
        let (_, out) = parse_with(
            &Defaults::default(),
            &["-insert_sub_file", "a.sub", "x.dag"],
            Tool::SubmitDag,
        );
        assert_eq!(out, "");
        let (parsed, _) = parse_with(&knob, &["x.dag"], Tool::SubmitDag);
        let Ok(Parsed::Run(o)) = parsed else { panic!() };
        assert_eq!(o.append_file.as_deref(), Some("/knob.sub"));
        let (_, out) = parse_with(&knob, &["-insert_sub_file"], Tool::SubmitDag);
        assert!(out.contains("value ((null))"), "{out}");
    }

    #[test]
    fn dagman_command_line_rules() {
        let o = dagman(&[
            "-p",
            "0",
            "-f",
            "-l",
            ".",
            "-Debug",
            "3",
            "-Lockfile",
            "x.dag.lock",
            "-Dag",
            "x.dag",
            "-CsdVersion",
            "$CondorVersion: 24.0.24 $",
            "-dagman",
            "/bin/dagman",
            "-AutoRescue",
            "1",
            "-DoRescueFrom",
            "0",
            "-force",
        ])
        .unwrap();
        assert_eq!(
            o.daemon_core,
            DaemonCoreArgs {
                port: Some(0),
                foreground: true,
                log_dir: Some(".".into()),
                ..DaemonCoreArgs::default()
            }
        );
        assert_eq!(o.dag_files, ["x.dag"]);
        assert_eq!(o.lock_file.as_deref(), Some("x.dag.lock"));
        assert_eq!(o.csd_version.as_deref(), Some("$CondorVersion: 24.0.24 $"));
        assert_eq!(o.debug, Some(3));
        assert!(o.force);
        // DAG files anywhere; -WaitForDebug; -help is usage.
        let o = dagman(&["a.dag", "-maxjobs", "2", "b.dag", "-WaitForDebug"]).unwrap();
        assert_eq!(o.dag_files, ["a.dag", "b.dag"]);
        assert!(o.wait_for_debug);
        let run = |args: &[&str]| parse_with(&Defaults::default(), args, Tool::Dagman).0;
        assert_eq!(run(&["-p", "0", "-help"]), Ok(Parsed::Help));
        assert_eq!(run(&["-version"]), Ok(Parsed::Version));
        // DaemonCore stops at the first word it does not know, even one of its own later.
        let o = dagman(&["-Debug", "2", "-f", "x.dag"]).unwrap();
        assert!(!o.daemon_core.foreground && o.force);
        assert_eq!(
            run(&["-p"]).unwrap_err().to_string(),
            "DaemonCore: ERROR: -port needs another argument.\n   Please specify the port to \
             use for the command socket."
        );
        assert_eq!(
            run(&["-l"]).unwrap_err().to_string(),
            "DaemonCore: ERROR: -log needs another argument"
        );
    }

    #[test]
    fn deep_args_in_htcondor_order() {
        let o = csd(&["x.dag"]).unwrap();
        assert_eq!(
            o.deep_args(true),
            ["-AutoRescue", "1", "-DoRescueFrom", "0"]
        );
        assert_eq!(o.deep_args(false), ["-AutoRescue", "1"]);
        let o = csd(&[
            "-force",
            "-update_submit",
            "-SubmitMethod",
            "1",
            "-suppress_notification",
            "-do_recurse",
            "-insert_env",
            "A=1",
            "-include_env",
            "X",
            "-import_env",
            "-allowversionmismatch",
            "-dorescuefrom",
            "3",
            "-autorescue",
            "0",
            "-outfile_dir",
            "out",
            "-usedagdir",
            "-dagman",
            "/bin/dagman",
            "-notification",
            "Always",
            "-v",
            "-maxjobs",
            "4",
            "-priority",
            "2",
            "x.dag",
        ])
        .unwrap();
        let all = [
            "-verbose",
            "-notification",
            "never",
            "-dagman",
            "/bin/dagman",
            "-UseDagDir",
            "-outfile_dir",
            "out",
            "-AutoRescue",
            "0",
            "-DoRescueFrom",
            "3",
            "-AllowVersionMismatch",
            "-import_env",
            "-include_env",
            "X",
            "-insert_env",
            "A=1",
            "-do_recurse",
            "-suppress_notification",
            "-SubmitMethod",
            "1",
            "-force",
            "-update_submit",
        ];
        assert_eq!(o.deep_args(true), all);
        assert_eq!(o.deep_args(false), all[..all.len() - 2]);
        let o = csd(&[
            "-notification",
            "Error",
            "-dont_suppress_notification",
            "x.dag",
        ])
        .unwrap();
        assert_eq!(
            o.deep_args(false),
            [
                "-notification",
                "Error",
                "-AutoRescue",
                "1",
                "-dont_suppress_notification"
            ]
        );
    }

    #[test]
    fn file_names() {
        let f = csd(&["dir/x.dag"]).unwrap().files().unwrap();
        assert_eq!(
            f,
            OutputFiles {
                lib_out: "dir/x.dag.lib.out".into(),
                lib_err: "dir/x.dag.lib.err".into(),
                debug_log: "dir/x.dag.dagman.out".into(),
                sched_log: "dir/x.dag.dagman.log".into(),
                sub_file: "dir/x.dag.condor.sub".into(),
                rescue_file: "dir/x.dag.rescue".into(),
                lock: "dir/x.dag.lock".into(),
                halt: "dir/x.dag.halt".into(),
            }
        );
        let f = csd(&["-outfile_dir", "/logs", "dir/x.dag", "y.dag"])
            .unwrap()
            .files()
            .unwrap();
        assert_eq!(f.debug_log, "/logs/x.dag.dagman.out");
        assert_eq!(f.rescue_file, "dir/x.dag_multi.rescue");
        let f = csd(&["-usedagdir", "dir/x.dag"]).unwrap().files().unwrap();
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            f.rescue_file,
            format!("{}/x.dag.rescue", cwd.to_string_lossy())
        );
        assert_eq!(f.sub_file, "dir/x.dag.condor.sub");
    }

    #[test]
    fn rescue_files() {
        assert_eq!(rescue_dag_name("a/x.dag", false, 1), "a/x.dag.rescue001");
        assert_eq!(rescue_dag_name("x.dag", true, 12), "x.dag_multi.rescue012");
        assert_eq!(rescue_dag_name("x.dag", false, 999), "x.dag.rescue999");
        let dir = tempfile::tempdir().unwrap();
        let primary = dir.path().join("x.dag").to_string_lossy().into_owned();
        let mut log = Vec::new();
        assert_eq!(find_last_rescue_dag_num(&primary, false, 100, &mut log), 0);
        for n in [1, 2, 4] {
            std::fs::write(rescue_dag_name(&primary, false, n), format!("{n}")).unwrap();
        }
        std::fs::write(rescue_dag_name(&primary, true, 7), "multi").unwrap();
        assert_eq!(find_last_rescue_dag_num(&primary, false, 100, &mut log), 4);
        assert_eq!(find_last_rescue_dag_num(&primary, true, 100, &mut log), 7);
        assert_eq!(find_last_rescue_dag_num(&primary, false, 3, &mut log), 2);
        let log_text = String::from_utf8(std::mem::take(&mut log)).unwrap();
        assert_eq!(
            log_text,
            "Warning: found rescue DAG number 4, but not rescue DAG number 3\n\
             Warning: found rescue DAG number 7, but not rescue DAG number 6\n"
        );
        // HTCondor renames every number up to the newest: a gap is a fatal error, after the
        // numbers before it were renamed.
        let err = rename_rescue_dags_after(&primary, false, 1, 100, &mut log).unwrap_err();
        assert_eq!(
            err,
            format!(
                "Fatal error: unable to rename old rescue file {}: error 2 (No such file or \
                 directory)",
                rescue_dag_name(&primary, false, 3)
            )
        );
        assert!(Path::new(&rescue_dag_name(&primary, false, 1)).exists());
        assert!(!Path::new(&rescue_dag_name(&primary, false, 2)).exists());
        // An older .old is replaced.
        for n in [2, 3] {
            std::fs::write(rescue_dag_name(&primary, false, n), n.to_string()).unwrap();
        }
        std::fs::write(
            format!("{}.old", rescue_dag_name(&primary, false, 4)),
            "stale",
        )
        .unwrap();
        log.clear();
        rename_rescue_dags_after(&primary, false, 0, 100, &mut log).unwrap();
        let old =
            |n| std::fs::read_to_string(format!("{}.old", rescue_dag_name(&primary, false, n)));
        for n in 1..=4 {
            assert_eq!(old(n).unwrap(), n.to_string());
            assert!(!Path::new(&rescue_dag_name(&primary, false, n)).exists());
        }
        let log_text = String::from_utf8(log).unwrap();
        assert!(log_text.starts_with("Renaming rescue DAGs newer than number 0\n"));
        assert!(log_text.contains(&format!(
            "Renaming {}\n",
            rescue_dag_name(&primary, false, 4)
        )));
        assert_eq!(halt_file_name("x.dag"), "x.dag.halt");
    }

    #[test]
    #[should_panic(expected = "rescue DAG numbers start at 1")]
    fn rescue_number_zero_is_a_mistake() {
        rescue_dag_name("x.dag", false, 0);
    }

    #[test]
    fn dag_commands_are_read_before_submitting() {
        let dir = tempfile::tempdir().unwrap();
        let dag = dir.path().join("x.dag");
        std::fs::write(
            &dag,
            "# a comment\nJOB A a.sub\nCONFIG   dagman.conf  \nset_job_attr Foo = \\\n  \"bar\"\n\
             ENV GET PATH, HOME  USER\nenv set  A=1;B=2  \nSUBDAG EXTERNAL S s.dag\n",
        )
        .unwrap();
        let mut o = csd(&["-usedagdir", dag.to_str().unwrap()]).unwrap();
        let attrs = o.process_dag_commands().unwrap();
        assert_eq!(attrs, ["Foo = \"bar\""]);
        let real = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(
            o.config_file,
            Some(format!("{}/dagman.conf", real.to_string_lossy()))
        );
        assert_eq!(o.include_env, ["PATH,HOME,USER"]);
        assert_eq!(o.insert_env, ["A=1;B=2"]);

        // A -Config that agrees is fine; one that does not is an error.
        let conf = format!("{}/dagman.conf", real.to_string_lossy());
        let mut o = csd(&["-usedagdir", "-config", &conf, dag.to_str().unwrap()]).unwrap();
        assert!(o.process_dag_commands().is_ok());
        let mut o = csd(&[
            "-usedagdir",
            "-config",
            "/other.conf",
            dag.to_str().unwrap(),
        ])
        .unwrap();
        assert_eq!(
            o.process_dag_commands().unwrap_err().to_string(),
            format!("Conflicting DAGMan config files specified: /other.conf and {conf}")
        );

        // Errors are joined; two DAG files naming two config files are refused.
        let bad = dir.path().join("bad.dag");
        std::fs::write(
            &bad,
            "CONFIG\nSET_JOB_ATTR   \nENV\nENV GET\nENV SET\nENV PUT x\n",
        )
        .unwrap();
        let mut o = csd(&[bad.to_str().unwrap()]).unwrap();
        assert_eq!(
            o.process_dag_commands().unwrap_err().to_string(),
            "Improperly-formatted file: value missing after keyword CONFIG; \
             Improperly-formatted file: value missing after keyword SET_JOB_ATTR; \
             Improperly-formatted file: sub-command (SET or GET) missing after keyword ENV; \
             Improperly-formatted file: environment variables missing after ENV GET; \
             Improperly-formatted file: environment variables missing after ENV SET; \
             Improperly-formatted file: sub-command (SET or GET) missing after keyword ENV"
        );
        let other = dir.path().join("other.dag");
        std::fs::write(&other, "CONFIG /abs/other.conf\n").unwrap();
        let mut o = csd(&["-usedagdir", dag.to_str().unwrap(), other.to_str().unwrap()]).unwrap();
        assert_eq!(
            o.process_dag_commands().unwrap_err().to_string(),
            "Multiple (2) configuration files provided."
        );

        let missing = dir.path().join("missing.dag");
        let mut o = csd(&[missing.to_str().unwrap()]).unwrap();
        assert_eq!(
            o.process_dag_commands().unwrap_err().to_string(),
            format!(
                "MultiLogFiles::FileReader::Open(): safe_fopen_wrapper_follow({}) failed with \
                 errno 2 (No such file or directory)\n",
                missing.display()
            )
        );
    }

    #[test]
    fn subdag_lines() {
        assert_eq!(subdag_line("JOB A a.sub"), SubdagLine::Other);
        assert_eq!(
            subdag_line("SUBDAG EXTERNAL S inner.dag"),
            SubdagLine::External {
                file: "inner.dag".into(),
                dir: None
            }
        );
        assert_eq!(
            subdag_line("subdag external S inner.dag dir sub NOOP"),
            SubdagLine::External {
                file: "inner.dag".into(),
                dir: Some("sub".into())
            }
        );
        assert_eq!(
            subdag_line("SUBDAG S inner.dag"),
            SubdagLine::Error(
                "ERROR: only SUBDAG EXTERNAL is supported at this time (line: <SUBDAG S \
                 inner.dag>)"
                    .into()
            )
        );
        assert_eq!(
            subdag_line("SUBDAG EXTERNAL S"),
            SubdagLine::Error("No DAG file specified in line: <SUBDAG EXTERNAL S>".into())
        );
        assert_eq!(
            subdag_line("SUBDAG EXTERNAL S x.dag DIR"),
            SubdagLine::Error(
                "No directory specified in line: <SUBDAG EXTERNAL S x.dag DIR>".into()
            )
        );
    }

    #[test]
    fn usages() {
        let csd = usage(Tool::SubmitDag);
        assert!(csd.starts_with("Usage: condor_submit_dag [options] dag_file"));
        assert!(csd.contains(
            "\n    -MaxJobs <N>                   (Maximum number of jobs submitted at once)\n"
        ));
        assert!(csd.contains("\n    -no_submit                     (DAG is not submitted"));
        assert!(!csd.contains("-Dot") && !csd.contains("-Lockfile"));
        let dagman = usage(Tool::Dagman);
        assert!(dagman.contains("\t[-Dot]\n\t[-DryRun]\n"));
        assert!(dagman.ends_with("Default -Debug is -Debug 3\n"));
        assert!(!dagman.contains("-no_submit"));
    }

    #[test]
    fn stoi_reads_as_the_standard_library_does() {
        assert_eq!(stoi("12"), Some(12));
        assert_eq!(stoi("  -7x"), Some(-7));
        assert_eq!(stoi("+3"), Some(3));
        assert_eq!(stoi("0x10"), Some(0));
        assert_eq!(stoi("2147483647"), Some(i32::MAX));
        assert_eq!(stoi("-2147483648"), Some(i32::MIN));
        assert_eq!(stoi("2147483648"), None);
        assert_eq!(stoi("x"), None);
        assert_eq!(stoi("-"), None);
        assert_eq!(stoi(""), None);
    }
}
