//! The submit-description language: a submit file (plus condor_submit's command-line
//! assignments, `-append` lines, `-queue` and `-batch-name`) turned into the job ClassAds
//! HTCondor 24.0 queues for it, as src/condor_utils/submit_utils.cpp and
//! src/condor_submit.V6/submit.cpp make them.
//!
//! ```no_run
//! use condorlite::config::Config;
//! use condorlite::submit::{SubmitContext, SubmitFile};
//!
//! let config = Config::load().unwrap();
//! let ctx = SubmitContext::from_process(&config, "alice").unwrap();
//! let file = SubmitFile::parse("executable = /bin/true\nqueue 3\n", "job.sub", &ctx).unwrap();
//! for job in file.jobs(42) {
//!     let job = job.unwrap();
//!     if job.new_cluster {
//!         // store job.cluster_ad() once for the cluster
//!     }
//!     // store job.ad.own_iter(): ProcId, JobStatus and what differs from the cluster
//! }
//! ```
//!
//! Parsing ([`parse`]) reads the whole description and checks everything that can be checked
//! before jobs are made: syntax, `if` blocks, includes, queue statements and their items. A
//! [`SubmitFile`] is then a list of queue statements, each with the macro table as it stood at
//! that statement ([`hash`]). [`SubmitFile::jobs`] makes the jobs lazily ([`generate`]), each
//! with HTCondor's `Set*` steps ([`job`], [`transfer`], [`requirements`]); commands that are the
//! same for every job of a statement are expanded once, and steps that read nothing that varies
//! between jobs run once per statement.

pub mod argenv;
pub mod error;
pub mod factory;
pub mod generate;
pub mod hash;
pub mod job;
pub mod jobad;
pub mod keywords;
pub mod parse;
pub mod queue;
pub mod requirements;
pub mod transfer;
pub mod util;

use std::path::PathBuf;

use crate::classad::{ClassAd, Expr, Value};
use crate::config::{Config, Environment};
pub use error::{AbortPlace, StackEntry, SubmitError};
pub use generate::{Job, Jobs};
use hash::Predefined;
use job::{Settings, Setup};
pub use parse::{is_queue_statement, CommandLine, Statement};

/// `JobSubmitMethod` for condor_submit (`JSM_CONDOR_SUBMIT`).
pub const SUBMIT_METHOD_CONDOR_SUBMIT: i64 = 0;

/// Who submits, when, from where: what HTCondor's submit code takes from its process and
/// configuration.
#[derive(Clone, Debug)]
pub struct SubmitContext<'c> {
    pub config: &'c Config,
    /// The directory the submit file's relative names are relative to.
    pub cwd: PathBuf,
    /// The submitting process's environment (`getenv`, `$ENV()`, commands run for items).
    pub env: Environment,
    /// The submitting user (for `AcctGroupUser` and `nice_user`).
    pub owner: String,
    /// The submit time (`QDate`, `$(SUBMIT_TIME)`, `$(Year)`...), in seconds since the epoch.
    pub qdate: i64,
    /// The local time zone's offset from UTC at `qdate`, in seconds, for `$(Year)`,
    /// `$(Month)` and `$(Day)`; `None` takes the process's local time zone.
    pub utc_offset: Option<i32>,
    /// `JobSubmitMethod` (0 for condor_submit).
    pub submit_method: i64,
    /// `-spool`/`-remote`.
    pub remote: bool,
    /// condor_submit's command line.
    pub command_line: CommandLine,
    /// A job factory's items, as its submit took them: the first queue statement uses
    /// these instead of loading its own (a file, a command's output, globs may have changed
    /// since).
    pub preset_items: Option<std::sync::Arc<PresetItems>>,
    /// Whether `include command` and `queue ... from cmd |` may run their commands (not
    /// where the description is read in a daemon, on a user's behalf, with the daemon's
    /// rights).
    pub run_commands: bool,
}

/// The loop variables and item rows of a queue statement, after its items were loaded and
/// its table header applied (what a job factory stores at submit).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PresetItems {
    pub vars: Vec<String>,
    pub items: Vec<String>,
}

impl<'c> SubmitContext<'c> {
    /// The context of this process: its working directory and environment, now.
    pub fn from_process(config: &'c Config, owner: &str) -> std::io::Result<SubmitContext<'c>> {
        Ok(SubmitContext {
            config,
            cwd: std::env::current_dir()?,
            env: Environment::from_process(),
            owner: owner.to_owned(),
            qdate: chrono::Utc::now().timestamp(),
            utc_offset: None,
            submit_method: SUBMIT_METHOD_CONDOR_SUBMIT,
            remote: false,
            command_line: CommandLine::default(),
            preset_items: None,
            run_commands: true,
        })
    }
}

/// A parsed submit description, ready to make jobs.
#[derive(Debug)]
pub struct SubmitFile {
    name: String,
    pub(crate) setup: Setup,
    pub(crate) parsed: parse::Parsed,
}

/// `$(Year)`, `$(Month)`, `$(Day)` of a time in a zone.
fn local_date(t: i64, offset: Option<i32>) -> (String, String, String) {
    use chrono::{Datelike, TimeZone};
    let (y, m, d) = match offset.and_then(chrono::FixedOffset::east_opt) {
        Some(tz) => {
            let dt = tz.timestamp_opt(t, 0).single();
            dt.map(|d| (d.year(), d.month(), d.day()))
                .unwrap_or((1970, 1, 1))
        }
        None => {
            let dt = chrono::Local.timestamp_opt(t, 0).single();
            dt.map(|d| (d.year(), d.month(), d.day()))
                .unwrap_or((1970, 1, 1))
        }
    };
    (format!("{y:04}"), format!("{m:02}"), format!("{d:02}"))
}

/// The name the submit file goes by and the value of `$(SUBMIT_FILE)`: `-` is standard input
/// (no `$(SUBMIT_FILE)`).
fn file_names(file_name: &str) -> (String, String) {
    if file_name == "-" || file_name.is_empty() {
        ("<stdin>".into(), String::new())
    } else {
        (file_name.to_owned(), file_name.to_owned())
    }
}

/// HTCondor's `init_base_ad`.
fn base_ad(ctx: &SubmitContext<'_>, settings: &Settings) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.insert("MyType", Expr::lit("Job"));
    ad.insert("TargetType", Expr::lit("Machine"));
    ad.insert("QDate", Expr::lit(ctx.qdate));
    if ctx.submit_method >= 0 {
        ad.insert("JobSubmitMethod", Expr::lit(ctx.submit_method));
    }
    if ctx.remote || ctx.owner.is_empty() || !settings.set_local_owner {
        ad.insert("Owner", Expr::Lit(Value::Undefined));
    } else {
        ad.insert("Owner", Expr::lit(ctx.owner.as_str()));
    }
    for name in [
        "RemoteWallClockTime",
        "RemoteUserCpu",
        "RemoteSysCpu",
        "CumulativeRemoteUserCpu",
        "CumulativeRemoteSysCpu",
    ] {
        ad.insert(name, Expr::lit(0.0));
    }
    for name in [
        "ExitStatus",
        "NumCkpts",
        "NumJobStarts",
        "NumJobCompletions",
        "NumRestarts",
        "NumSystemHolds",
        "CommittedTime",
        "CommittedSlotTime",
        "CumulativeSlotTime",
        "TotalSuspensions",
        "LastSuspensionTime",
        "CumulativeSuspensionTime",
        "CommittedSuspensionTime",
    ] {
        ad.insert(name, Expr::lit(0i64));
    }
    ad.insert("ExitBySignal", Expr::lit(false));
    for (name, value) in &settings.submit_attrs {
        if let Some(v) = value {
            if let Ok(e) = crate::classad::parser::parse_old_expr(v) {
                ad.insert(name, e);
            }
        }
    }
    ad.insert(
        "CondorVersion",
        Expr::lit(crate::config::condor_version().as_str()),
    );
    ad.insert("CondorPlatform", Expr::lit("$CondorPlatform: condorlite $"));
    ad
}

impl SubmitFile {
    /// Parses a submit description. `file_name` is how the file was named on the command line
    /// (it becomes `$(SUBMIT_FILE)` and `JobSubmitFile`, and appears in messages); `-` is
    /// standard input.
    pub fn parse(
        text: &str,
        file_name: &str,
        ctx: &SubmitContext<'_>,
    ) -> Result<SubmitFile, SubmitError> {
        let settings = Settings::from_config(ctx.config);
        let cfg = |name: &str| ctx.config.string(name).ok().flatten().unwrap_or_default();
        let (year, month, day) = local_date(ctx.qdate, ctx.utc_offset);
        let (label, submit_file) = file_names(file_name);
        let predefined = Predefined {
            arch: cfg("ARCH"),
            opsys: cfg("OPSYS"),
            opsys_and_ver: cfg("OPSYSANDVER"),
            opsys_major_ver: cfg("OPSYSMAJORVER"),
            opsys_ver: cfg("OPSYSVER"),
            spool: cfg("SPOOL"),
            submit_file,
            submit_time: ctx.qdate.to_string(),
            year,
            month,
            day,
        };
        let parsed = parse::parse(text, &label, ctx, &ctx.command_line, &predefined)?;
        let base = base_ad(ctx, &settings);
        let cwd = ctx.cwd.to_string_lossy().into_owned();
        Ok(SubmitFile {
            name: label,
            setup: Setup {
                settings,
                predefined,
                env: ctx.env.clone(),
                cwd,
                owner: ctx.owner.clone(),
                qdate: ctx.qdate,
                remote: ctx.remote,
                base,
            },
            parsed,
        })
    }

    /// Reads and parses a submit file (`-` for standard input), named as given.
    pub fn read(file_name: &str, ctx: &SubmitContext<'_>) -> Result<SubmitFile, SubmitError> {
        let text = if file_name == "-" {
            let bytes = crate::bounded::read_stdin().map_err(|e| SubmitError::Open {
                file: "-".into(),
                reason: e.to_string(),
            })?;
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            let path = ctx.cwd.join(file_name);
            let bytes = crate::bounded::read_file(&path).map_err(|e| SubmitError::Open {
                file: file_name.to_owned(),
                reason: crate::config::parse::io_reason(&e),
            })?;
            String::from_utf8_lossy(&bytes).into_owned()
        };
        SubmitFile::parse(&text, file_name, ctx)
    }

    /// The name of the submit file, as messages give it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The queue statements, in order.
    pub fn statements(&self) -> &[Statement] {
        &self.parsed.statements
    }

    /// How many queue statements there were (condor_submit warns about more than one).
    pub fn queue_statements(&self) -> usize {
        self.parsed.queue_statements
    }

    /// How many jobs the statements select (0 when every statement is empty).
    pub fn job_count(&self) -> u64 {
        self.parsed
            .statements
            .iter()
            .filter(|s| s.args.queue_num >= 0)
            .map(|s| s.args.item_len().max(0) as u64 * s.args.queue_num.max(1) as u64)
            .sum()
    }

    /// Warnings from reading the file (`warning :` lines, unmatched globs), as HTCondor
    /// prints them after `WARNING: `.
    pub fn warnings(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .parsed
            .warnings
            .iter()
            .filter(|e| e.code == 0)
            .map(|e| e.message.clone())
            .collect();
        for s in &self.parsed.statements {
            out.extend(s.warnings.iter().cloned());
        }
        out
    }

    /// condor_submit's warnings about definitions nothing used (`SubmitHash::warn_unused`),
    /// for after the jobs were made, each as printed after `WARNING: `, in the order
    /// condor_submit prints them.
    ///
    /// A definition is used when the submit code read it or an expansion named it, while
    /// parsing or while making any job ([`hash::Entry::used`]). Not warned about: `+attr` and
    /// dotted names (`MY.x`, `SUBMIT.x`), the variables DAGMan and the `matching` options
    /// define (`DAG_STATUS`, `FAILED_COUNT`, `JOB`, `RETRY`, `SubmitWarnEmptyMatches`, ...),
    /// and `$(Cluster)`/`$(Process)`, which are always in use. A queue statement's variable
    /// that nothing named is "the Queue variable"; a definition, "the line 'name = value'".
    ///
    /// The order is HTCondor's: its table sorted by name as it stood at the last queue
    /// statement, then what was defined after it in the order written; and condor_submit
    /// prints its error stack newest first, so the list comes out reversed.
    pub fn unused_warnings(&self) -> Vec<String> {
        const ALWAYS_USED: [&str; 11] = [
            "DAG_STATUS",
            "FAILED_COUNT",
            "JOB",
            "RETRY",
            "SubmitWarnEmptyMatches",
            "SubmitFailEmptyMatches",
            "SubmitWarnDuplicateMatches",
            "SubmitFailEmptyFields",
            "SubmitWarnEmptyFields",
            "Cluster",
            "Process",
        ];
        let final_hash = &self.parsed.final_hash;
        let statements = &self.parsed.statements;
        let used = |name: &str| {
            final_hash.get(name).is_some_and(|e| e.used.get())
                || statements
                    .iter()
                    .any(|st| st.hash.get(name).is_some_and(|e| e.used.get()))
        };
        // The table at the last queue statement (sorted), then the later definitions.
        let mut names: Vec<std::sync::Arc<str>> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        if let Some(last) = statements.last() {
            for i in last.hash.sorted() {
                let name = last.hash.entry(i).name.clone();
                seen.insert(name.to_ascii_lowercase());
                names.push(name);
            }
            // Variables of earlier statements stay in the table.
            let mut earlier: Vec<std::sync::Arc<str>> = Vec::new();
            for st in &statements[..statements.len() - 1] {
                for i in 0..st.hash.len() {
                    let name = st.hash.entry(i).name.clone();
                    if seen.insert(name.to_ascii_lowercase()) {
                        earlier.push(name);
                    }
                }
            }
            names.extend(earlier);
            names.sort_by(|a, b| crate::classad::ad::cmp_ignore_case(a, b));
        }
        for i in 0..final_hash.len() {
            let name = final_hash.entry(i).name.clone();
            if seen.insert(name.to_ascii_lowercase()) {
                names.push(name);
            }
        }
        let mut warnings = Vec::new();
        for name in names {
            if name.starts_with('+')
                || name.contains('.')
                || ALWAYS_USED.iter().any(|a| a.eq_ignore_ascii_case(&name))
                || used(&name)
            {
                continue;
            }
            // A queue variable keeps the `<Queue_item>` condor_submit leaves in it after
            // its statement, unless it was defined again after that.
            let live = statements
                .iter()
                .rev()
                .find_map(|st| st.hash.get(&name).filter(|e| e.live.is_some()));
            let defined = final_hash.get(&name);
            let text = match (live, defined) {
                (Some(l), d) if d.is_none_or(|d| d.origin == l.origin) => {
                    if l.origin.source == hash::SOURCE_LIVE {
                        format!(
                            "the Queue variable '{name}' was unused by condor_submit. Is it a typo?"
                        )
                    } else {
                        format!(
                            "the line '{name} = <Queue_item>' was unused by condor_submit. \
                             Is it a typo?"
                        )
                    }
                }
                (_, d) => {
                    let raw = d.map_or("", |d| &*d.raw);
                    format!("the line '{name} = {raw}' was unused by condor_submit. Is it a typo?")
                }
            };
            warnings.push(text);
        }
        warnings.reverse();
        warnings
    }

    /// The parse-time error stack (`CondorError::getFullText()`), for warnings.
    pub fn warning_stack(&self) -> &[StackEntry] {
        &self.parsed.warnings
    }

    /// The jobs, made one at a time; clusters are numbered from `first_cluster`.
    pub fn jobs(&self, first_cluster: i64) -> Jobs<'_> {
        Jobs::new(self, first_cluster)
    }
}
