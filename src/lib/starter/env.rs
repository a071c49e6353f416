//! The job's environment, built as HTCondor's starter builds it: `STARTER_JOB_ENVIRONMENT`,
//! then the job's own (`Environment` in the V2 syntax, or `Env` in the V1 syntax with
//! `EnvDelim`; condor_submit has already folded `getenv` into it), then what the starter
//! publishes (`Starter::PublishToEnv`): `_CONDOR_SCRATCH_DIR`, `_CONDOR_SLOT`,
//! `_CONDOR_JOB_AD`, `TMPDIR`, `BATCH_SYSTEM`, the thread-count variables, ...
//!
//! The starter's (here: the daemon's) own environment reaches the job only as
//! `JOB_INHERITS_STARTER_ENVIRONMENT` says (`OsProc::StartJob`): `false` (the default)
//! passes nothing, `true` passes all of it under the job's, and a list of names and
//! wildcards (`!` to exclude) passes the variables it accepts that the job does not set.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use crate::classad::ClassAd;
use crate::config::expand::{bool_value, tokens, DEFAULT_DELIMS};
use crate::config::Config;
use crate::output::render::{lookup_int, lookup_str};
use crate::submit::argenv::{split_args, Env, EnvFilter};

/// The name of the job ad file in the scratch directory (`JOB_AD_FILENAME`).
pub const JOB_AD_FILE: &str = ".job.ad";
/// The name of the machine ad file in the scratch directory (`MACHINE_AD_FILENAME`).
pub const MACHINE_AD_FILE: &str = ".machine.ad";

/// A job's environment: variables by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobEnv {
    vars: BTreeMap<String, String>,
}

impl JobEnv {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    pub fn set(&mut self, name: &str, value: &str) {
        if !name.is_empty() {
            self.vars.insert(name.to_owned(), value.to_owned());
        }
    }

    pub fn remove(&mut self, name: &str) {
        self.vars.remove(name);
    }

    pub fn contains(&self, name: &str) -> bool {
        self.vars.contains_key(name)
    }

    pub fn len(&self) -> usize {
        self.vars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Merges what one of the submit parsers ([`Env`]) read. Entries without a value (an
    /// unexpanded `$$()` kept verbatim) cannot be put in an environment and are left out.
    fn merge_parsed(
        &mut self,
        parse: impl FnOnce(&mut Env) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut env = Env::default();
        parse(&mut env)?;
        let mut entries = Vec::new();
        split_args(&env.v2_raw(), &mut entries)?;
        for entry in entries {
            if let Some((name, value)) = entry.split_once('=') {
                self.set(name, value);
            }
        }
        Ok(())
    }

    /// `MergeFromV1RawOrV2Quoted` (`STARTER_JOB_ENVIRONMENT`).
    pub fn merge_v1_raw_or_v2_quoted(&mut self, s: &str) -> Result<(), String> {
        self.merge_parsed(|e| e.merge_v1_raw_or_v2_quoted(s))
    }

    /// `Env::MergeFrom(ClassAd)`: `Environment` (V2 raw), else `Env` (V1, split on
    /// `EnvDelim`, default `;`).
    pub fn merge_job_ad(&mut self, job: &ClassAd) -> Result<(), String> {
        if let Some(v2) = lookup_str(job, "Environment") {
            return self.merge_parsed(|e| e.merge_v2_raw(&v2));
        }
        if let Some(v1) = lookup_str(job, "Env") {
            if v1.is_empty() {
                return Ok(());
            }
            let delim = lookup_str(job, "EnvDelim")
                .and_then(|d| d.chars().next())
                .unwrap_or(';');
            // The V1 parser takes a leading delimiter character as the delimiter to use.
            let text = format!("{delim}{v1}");
            return self.merge_parsed(|e| e.merge_v1_raw_or_v2_quoted(&text));
        }
        Ok(())
    }

    /// The variables as `NAME=value` pairs for the process.
    pub fn into_pairs(self) -> impl Iterator<Item = (String, String)> {
        self.vars.into_iter()
    }
}

/// What the starter knows about the run that goes into the environment.
pub struct EnvContext<'a> {
    pub scratch_dir: &'a Path,
    /// Where the job runs (`_CONDOR_JOB_IWD`).
    pub job_iwd: &'a Path,
    /// The slot ad (`Name`, `Cpus`).
    pub slot: &'a ClassAd,
    /// From the startd: assigned resources.
    pub slot_env: &'a [(String, String)],
    /// The `.chirp.config` the starter wrote, if it wrote one.
    pub chirp_config: Option<&'a Path>,
    /// The home directory of the user the job runs as, when not the daemon's.
    pub home: Option<&'a Path>,
}

/// The slot's short name: `slot1_1` of `slot1_1@host`.
pub fn slot_short_name(slot: &ClassAd) -> String {
    match lookup_str(slot, "Name") {
        Some(name) => name.split('@').next().unwrap_or_default().to_owned(),
        None => String::new(),
    }
}

/// The current user's home directory, looked up once.
fn home_dir() -> Option<&'static str> {
    static HOME: OnceLock<Option<String>> = OnceLock::new();
    HOME.get_or_init(|| {
        nix::unistd::User::from_uid(nix::unistd::geteuid())
            .ok()
            .flatten()
            .map(|u| u.dir.to_string_lossy().into_owned())
    })
    .as_deref()
}

/// A knob's value, with errors read as "not set" (the daemon has already loaded and checked
/// its configuration; a knob that does not expand is treated as HTCondor's `param` would
/// treat an empty one).
fn knob(config: &Config, name: &str) -> Option<String> {
    config.string(name).ok().flatten()
}

/// The job's full environment (`Starter::GetJobEnv` plus the inheritance rules of
/// `OsProc::StartJob`). An error is a malformed environment string.
pub fn build(job: &ClassAd, ctx: &EnvContext<'_>, config: &Config) -> Result<JobEnv, String> {
    let mut env = JobEnv::default();
    if let Some(s) = knob(config, "STARTER_JOB_ENVIRONMENT") {
        env.merge_v1_raw_or_v2_quoted(&s)
            .map_err(|e| format!("{e} The full value for STARTER_JOB_ENVIRONMENT: {s}\n"))?;
    }
    env.merge_job_ad(job).map_err(|e| {
        format!("{e} (This error was from the environment string in the job ClassAd.)")
    })?;
    publish(&mut env, ctx, config);
    inherit(&mut env, config);
    Ok(env)
}

/// `Starter::PublishToEnv`: what the starter tells every job.
fn publish(env: &mut JobEnv, ctx: &EnvContext<'_>, config: &Config) {
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let scratch = path(ctx.scratch_dir);
    env.set("BATCH_SYSTEM", "HTCondor");
    env.set("_CONDOR_JOB_IWD", &path(ctx.job_iwd));
    // The main job is not in the starter's job list yet when its environment is made.
    env.set("_CONDOR_JOB_PIDS", "");
    if let Some(bin) = knob(config, "BIN") {
        env.set("_CONDOR_BIN", &bin);
    }
    for (name, value) in ctx.slot_env {
        env.set(name, value);
    }
    env.set("CONDOR_STARTER_PID", &std::process::id().to_string());
    env.set("_CONDOR_SCRATCH_DIR", &scratch);
    env.set("APPTAINER_CACHEDIR", &scratch);
    env.set("SINGULARITY_CACHEDIR", &scratch);
    env.set("_CONDOR_SLOT", &slot_short_name(ctx.slot));
    env.set("TMPDIR", &scratch);
    env.set("TEMP", &scratch);
    env.set("TMP", &scratch);
    // Thread counts: the slot's cores, unless the job set its own.
    let cpus = lookup_int(ctx.slot, "Cpus").unwrap_or(0);
    if cpus > 0 {
        if let Some(vars) = knob(config, "STARTER_NUM_THREADS_ENV_VARS") {
            let n = cpus.to_string();
            for var in tokens(&vars, DEFAULT_DELIMS) {
                if env.get(&var).is_none_or(str::is_empty) {
                    env.set(&var, &n);
                }
            }
        }
    }
    env.set(
        "_CONDOR_MACHINE_AD",
        &path(&ctx.scratch_dir.join(MACHINE_AD_FILE)),
    );
    env.set("_CONDOR_JOB_AD", &path(&ctx.scratch_dir.join(JOB_AD_FILE)));
    if let Some(chirp_config) = ctx.chirp_config {
        env.set("_CONDOR_CHIRP_CONFIG", &path(chirp_config));
    }
    let chirp = knob(config, "CHIRP_DELAYED_UPDATE_PREFIX").unwrap_or_else(|| "CHIRP".into());
    env.set("_CHIRP_DELAYED_UPDATE_PREFIX", &chirp);
    if config
        .bool("STARTER_SETS_HOME_ENV")
        .ok()
        .flatten()
        .unwrap_or(true)
    {
        // The job's user's home (`STARTER_SETS_HOME_ENV`), not the daemon's.
        match ctx.home {
            Some(home) => env.set("HOME", &path(home)),
            None => {
                if let Some(home) = home_dir() {
                    env.set("HOME", home);
                }
            }
        }
    }
}

/// `JOB_INHERITS_STARTER_ENVIRONMENT`.
fn inherit(env: &mut JobEnv, config: &Config) {
    let Some(setting) = knob(config, "JOB_INHERITS_STARTER_ENVIRONMENT") else {
        return;
    };
    let own = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| !k.is_empty());
    match bool_value(&setting) {
        Some(false) => {}
        Some(true) => {
            // The starter's environment first, the job's over it.
            for (k, v) in own {
                if !env.contains(&k) {
                    env.set(&k, &v);
                }
            }
        }
        None => {
            let mut filter = EnvFilter::default();
            filter.add_list(&setting);
            for (k, v) in own {
                if !env.contains(&k) && filter.accepts(&k, &v) {
                    env.set(&k, &v);
                }
            }
        }
    }
}
