//! DAGMan: workflows as directed acyclic graphs of jobs, as HTCondor 24.0's condor_dagman runs
//! them.
//!
//! - [`options`]: the option set condor_submit_dag and condor_dagman share (HTCondor's
//!   `DagmanOptions` and the file-name and rescue-DAG helpers of `DagmanUtils`, from
//!   src/condor_utils/dagman_utils.{h,cpp}).
//! - [`check`]: what condor_submit_dag refuses before submitting, and condor_dag_checker
//!   reports.
//! - [`dag`]: the parsed DAG (nodes, edges, scripts, categories, the files to write).
//! - [`parse`]: the DAG file language (src/condor_dagman/parse.cpp).
//! - [`engine`]: the DAG while it runs, as a state machine over node events, script exits and
//!   submit results (dag.cpp, node.cpp, scriptQ.cpp); every side effect goes through the
//!   [`engine::Host`] it is given, so it runs the same against the pool or a test's fake.
//! - [`files`]: what DAGMan writes besides its log: rescue DAGs and save files, the node
//!   status file, the DOT file, the jobstate log and the metrics file.
//! - [`runner`]: the condor_dagman process around the engine: the nodes log, submitting node
//!   jobs through the submit library, PRE/POST/HOLD scripts, signals, the lock file.

pub mod check;
pub mod dag;
pub mod engine;
pub mod files;
pub mod options;
pub mod parse;
pub mod runner;

/// dagman.out verbosity (`debug_level_t`, `DAGMAN_VERBOSITY`, `-Debug`): a line is written
/// when its level is at or below the configured one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Silent = 0,
    Quiet = 1,
    Normal = 2,
    Verbose = 3,
    Debug1 = 4,
    Debug2 = 5,
    Debug3 = 6,
    Debug4 = 7,
}

impl Level {
    /// The level a `-Debug`/`DAGMAN_VERBOSITY` number names (clamped to 0-7).
    pub fn from_number(n: i64) -> Level {
        match n {
            i64::MIN..=0 => Level::Silent,
            1 => Level::Quiet,
            2 => Level::Normal,
            3 => Level::Verbose,
            4 => Level::Debug1,
            5 => Level::Debug2,
            6 => Level::Debug3,
            _ => Level::Debug4,
        }
    }
}
