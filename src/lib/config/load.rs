//! Where configuration comes from, in HTCondor's order (`real_config` in
//! src/condor_utils/condor_config.cpp):
//!
//! 1. detected values (`ARCH`, `DETECTED_CPUS`, ...), then the root file: `CONDOR_CONFIG` if set
//!    (`ONLY_ENV` for none); unset, the system-wide file of a system pool when there is one
//!    ([`SYSTEM_CONFIGS`]: /etc/condorlite/condor_config, then /usr/local/etc/condorlite/, where
//!    HTCondor searches /etc/condor and /usr/local/etc, which belong to a real pool), else none:
//!    a personal pool on the built-in defaults;
//! 2. `HOSTNAME` and `FULL_HOSTNAME`, then the files of `LOCAL_CONFIG_DIR` (sorted, skipping
//!    `LOCAL_CONFIG_DIR_EXCLUDE_REGEXP`), the files of `LOCAL_CONFIG_FILE`, and
//!    `LOCAL_CONFIG_DIR` again if those changed it;
//! 3. the user's file, `USER_CONFIG_FILE` (default `user_config` in the platform configuration
//!    directory, e.g. `~/.config/condorlite/user_config`), where `condor_config_val -set`
//!    writes;
//! 4. `_CONDOR_<NAME>` environment variables, which win over every file;
//! 5. the values that cannot be overridden (`USERNAME`, `PID`, ...), `UID_DOMAIN` and
//!    `FILESYSTEM_DOMAIN` when nothing set them, and `AUTO_USE_<CATEGORY>_<TEMPLATE>` triggers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::defaults::Defaults;
use super::expand::{self, Context, Scope};
use super::machine::Machine;
use super::parse::{io_reason, Parser};
use super::table::{MacroSet, Origin, SourceId};
use super::{Config, ConfigError};

/// A snapshot of environment variables, in their original order.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    vars: Vec<(String, String)>,
}

impl Environment {
    /// This process's environment.
    pub fn from_process() -> Environment {
        Environment {
            vars: std::env::vars_os()
                .map(|(k, v)| {
                    (
                        k.to_string_lossy().into_owned(),
                        v.to_string_lossy().into_owned(),
                    )
                })
                .collect(),
        }
    }

    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Environment {
        Environment {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// The value of variable `name` (case-sensitive, as `getenv`).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Sets (or replaces) a variable.
    pub fn set(&mut self, name: &str, value: &str) {
        self.vars.retain(|(k, _)| k != name);
        self.vars.push((name.to_owned(), value.to_owned()));
    }
}

/// The platform directories condorlite keeps its files in.
#[derive(Clone, Debug, Default)]
pub struct PlatformDirs {
    /// The default `LOCAL_DIR` (e.g. `~/.local/share/condorlite`).
    pub data_dir: Option<PathBuf>,
    /// Where the user's configuration file lives (e.g. `~/.config/condorlite`).
    pub config_dir: Option<PathBuf>,
}

impl PlatformDirs {
    /// The `directories` crate's answer for this user.
    pub fn detect() -> PlatformDirs {
        match directories::ProjectDirs::from("", "", "condorlite") {
            Some(dirs) => PlatformDirs {
                data_dir: Some(dirs.data_dir().to_path_buf()),
                config_dir: Some(dirs.config_dir().to_path_buf()),
            },
            None => PlatformDirs::default(),
        }
    }
}

/// Where a system pool's configuration is found when `CONDOR_CONFIG` is not set, in order
/// (HTCondor's `find_global` looks for `condor_config` in /etc/condor/ and /usr/local/etc/;
/// condorlite looks in directories of its own, so that it never reads a real HTCondor
/// pool's configuration by mistake).
pub const SYSTEM_CONFIGS: [&str; 2] = [
    "/etc/condorlite/condor_config",
    "/usr/local/etc/condorlite/condor_config",
];

/// The first of `candidates` this process can open for reading, as `find_global` takes the
/// first it can open; `None` when there is none (a personal pool, on the built-in defaults).
pub fn system_config(candidates: &[&Path]) -> Option<String> {
    candidates
        .iter()
        .find(|p| std::fs::File::open(p).is_ok_and(|f| f.metadata().is_ok_and(|m| m.is_file())))
        .map(|p| p.to_string_lossy().into_owned())
}

/// How to load a configuration.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    pub env: Environment,
    /// The subsystem reading the configuration (`TOOL`, `NEGOTIATOR`, `STARTD`, ...).
    pub subsystem: String,
    pub local_name: Option<String>,
    /// A root file to read instead of `CONDOR_CONFIG` (`condor_config_val -root-config`).
    pub root_config: Option<String>,
    /// Keep definitions whose value is the default (for `-summary` and `-writeconfig`).
    pub keep_defaults: bool,
    pub dirs: PlatformDirs,
    pub machine: Option<Machine>,
}

impl LoadOptions {
    /// This process's environment and this user's directories, as subsystem `TOOL`.
    pub fn from_process() -> LoadOptions {
        LoadOptions {
            env: Environment::from_process(),
            subsystem: "TOOL".into(),
            local_name: None,
            root_config: None,
            keep_defaults: false,
            dirs: PlatformDirs::detect(),
            machine: None,
        }
    }
}

/// HTCondor's `condor_dirname`: the directory part, `.` when there is none.
fn dirname(path: &str) -> String {
    match path.rfind('/') {
        Some(0) => "/".into(),
        Some(i) => path[..i].into(),
        None => ".".into(),
    }
}

fn detected(set: &mut MacroSet, name: &str, value: String) {
    set.insert(
        name,
        value,
        Origin::special(SourceId::DETECTED),
        false,
        false,
    );
}

/// Reads the whole configuration.
pub fn load(opts: LoadOptions) -> Result<Config, ConfigError> {
    let machine = opts.machine.clone().unwrap_or_else(Machine::detect);
    let local_dir = opts
        .dirs
        .data_dir
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let defaults = Defaults::with_local_dir(local_dir);
    let env = opts.env.clone();
    let subsystem = opts.subsystem.clone();
    let local_name = opts.local_name.clone().filter(|l| !l.is_empty());
    let ctx = Context {
        subsys: Some(subsystem.as_str()).filter(|s| !s.is_empty()),
        localname: local_name.as_deref(),
    };
    let mut set = MacroSet::new();

    let tilde = machine.tilde.clone();
    set.insert_deferred(
        "TILDE",
        Origin::special(SourceId::DETECTED),
        Arc::new(move || tilde.get().clone()),
    );
    for (name, value) in &machine.early {
        detected(&mut set, name, value.clone());
    }
    detected(&mut set, "SUBSYSTEM", subsystem.clone());
    detected(
        &mut set,
        "LOCALNAME",
        local_name.clone().unwrap_or_else(|| subsystem.clone()),
    );
    let physical = machine.physical_cpus.clone();
    set.insert_deferred(
        "DETECTED_PHYSICAL_CPUS",
        Origin::special(SourceId::DETECTED),
        Arc::new(move || Some(physical.get().to_string())),
    );
    detected(
        &mut set,
        "DETECTED_CPUS",
        machine.hyperthread_cpus.to_string(),
    );
    detected(
        &mut set,
        "DETECTED_CORES",
        machine.hyperthread_cpus.to_string(),
    );
    if let Some(limit) = Machine::cpus_limit(|| *machine.physical_cpus.get(), &env) {
        detected(&mut set, "DETECTED_CPUS_LIMIT", limit.to_string());
    }

    // The root file.
    let mut only_env = false;
    let mut root: Option<String> = None;
    match &opts.root_config {
        Some(r) if r.eq_ignore_ascii_case("ONLY_ENV") => only_env = true,
        Some(r) => root = Some(r.clone()),
        None => match env.get("CONDOR_CONFIG") {
            Some(v) if v.eq_ignore_ascii_case("ONLY_ENV") => only_env = true,
            Some(v) => {
                let path = Path::new(v);
                if path.is_dir() {
                    return Err(ConfigError::new(format!(
                        "File specified in CONDOR_CONFIG environment variable:\n\"{v}\" is a directory.  Please specify a file."
                    )));
                }
                if !path.exists() && !v.trim_end().ends_with('|') {
                    return Err(ConfigError::new(format!(
                        "File specified in CONDOR_CONFIG environment variable:\n\"{v}\" does not exist."
                    )));
                }
                root = Some(v.to_owned());
            }
            None => root = system_config(&SYSTEM_CONFIGS.map(Path::new)),
        },
    }
    let null_root = root
        .as_deref()
        .is_none_or(|r| r.is_empty() || r == "/dev/null");

    let mut parser = Parser::new(&mut set, &defaults, &env, ctx);
    parser.keep_defaults = opts.keep_defaults;
    let mut global_source = String::new();
    let mut local_sources: Vec<String> = Vec::new();
    if let (Some(root), false, false) = (&root, only_env, null_root) {
        parser.set.insert(
            "CONFIG_ROOT",
            dirname(root),
            Origin::special(SourceId::DETECTED),
            false,
            false,
        );
        read_file(&mut parser, root, "global config source", true)?;
        global_source = root.clone();
    }
    drain_included(&mut parser, &mut local_sources);

    let hostname = machine.short_hostname();
    let insert_hostnames = |parser: &mut Parser<'_>, fqdn: &str| {
        detected(parser.set, "HOSTNAME", hostname.clone());
        detected(parser.set, "FULL_HOSTNAME", fqdn.to_owned());
        // The detected value wins over the root file's, when there is one (the deferred
        // definition still stands when the root file did not define TILDE).
        if parser.set.is_defined("TILDE") {
            if let Some(tilde) = machine.tilde.get() {
                detected(parser.set, "TILDE", tilde.clone());
            }
        }
    };
    insert_hostnames(&mut parser, &machine.full_hostname(None));

    // LOCAL_CONFIG_DIR, LOCAL_CONFIG_FILE, LOCAL_CONFIG_DIR again if it changed.
    let dir_list = knob(&parser, "LOCAL_CONFIG_DIR")?;
    if let (Some(dirs), false) = (&dir_list, only_env) {
        process_directories(&mut parser, dirs, &mut local_sources)?;
    }
    process_locals(&mut parser, &mut local_sources)?;
    let new_dir_list = knob(&parser, "LOCAL_CONFIG_DIR")?;
    if let (Some(dirs), false) = (&new_dir_list, only_env) {
        if dir_list.as_ref() != Some(dirs) {
            process_directories(&mut parser, dirs, &mut local_sources)?;
        }
    }

    // The user's file.
    let mut user_config_file = None;
    if let Some(name) = knob(&parser, "USER_CONFIG_FILE")? {
        let path = if Path::new(&name).is_absolute() {
            Some(PathBuf::from(&name))
        } else {
            opts.dirs.config_dir.as_ref().map(|d| d.join(&name))
        };
        if let Some(path) = path {
            let p = path.to_string_lossy().into_owned();
            if !only_env && std::fs::File::open(&path).is_ok() {
                read_file(&mut parser, &p, "user_config source", true)?;
                drain_included(&mut parser, &mut local_sources);
                local_sources.push(p);
            }
            user_config_file = Some(path);
        }
    }

    // _CONDOR_<NAME> environment variables.
    for (key, value) in env.iter() {
        if key.len() <= 8 || !key[..8].eq_ignore_ascii_case("_condor_") {
            continue;
        }
        let name = key[8..].trim_end_matches(super::reader::is_space);
        if name.is_empty() {
            continue;
        }
        let value = value.trim_start_matches(super::reader::is_space);
        let value = parser
            .scope()
            .expand_self(value, name)
            .map_err(|e| ConfigError::new(format!("{key}: {e}")))?;
        parser
            .insert(name, value, Origin::special(SourceId::ENVIRONMENT), false)
            .map_err(|e| ConfigError::new(format!("{key}: {e}")))?;
    }

    // What the configuration cannot override.
    let domain = knob(&parser, "DEFAULT_DOMAIN_NAME")?;
    let fqdn = machine.full_hostname(domain.as_deref());
    insert_hostnames(&mut parser, &fqdn);
    detected(parser.set, "SUBSYSTEM", subsystem.clone());
    detected(
        parser.set,
        "LOCALNAME",
        local_name.clone().unwrap_or_else(|| subsystem.clone()),
    );
    if let Some(user) = &machine.username {
        detected(parser.set, "USERNAME", user.clone());
    }
    detected(parser.set, "REAL_UID", machine.uid.to_string());
    detected(parser.set, "REAL_GID", machine.gid.to_string());
    detected(parser.set, "PID", machine.pid.to_string());
    detected(parser.set, "PPID", machine.ppid.to_string());
    let ip = machine
        .ipv4
        .map(|ip| ip.to_string())
        .unwrap_or_else(|| "127.0.0.1".into());
    detected(parser.set, "IP_ADDRESS", ip.clone());
    detected(parser.set, "IP_ADDRESS_IS_IPV6", "false".into());
    detected(parser.set, "IPV4_ADDRESS", ip);
    let count_hyper = match knob(&parser, "COUNT_HYPERTHREAD_CPUS")? {
        Some(v) => expand::bool_value(&v).unwrap_or(true),
        None => true,
    };
    let cpus = if count_hyper {
        machine.hyperthread_cpus
    } else {
        *machine.physical_cpus.get()
    };
    detected(parser.set, "DETECTED_CPUS", cpus.to_string());
    if count_hyper {
        if let Some(limit) = Machine::cpus_limit(|| cpus, &env) {
            detected(parser.set, "DETECTED_CPUS_LIMIT", limit.to_string());
        }
    }
    for domain_knob in ["FILESYSTEM_DOMAIN", "UID_DOMAIN"] {
        if knob(&parser, domain_knob)?.is_none() {
            detected(parser.set, domain_knob, fqdn.clone());
        }
    }

    auto_use(&mut parser)?;
    drain_included(&mut parser, &mut local_sources);
    let warnings = std::mem::take(&mut parser.warnings);
    drop(parser);
    Ok(Config {
        set,
        defaults,
        env,
        subsystem,
        local_name,
        global_source,
        local_sources,
        warnings,
        user_config_file,
    })
}

/// `process_config_source`: reads one more file (or `command |`) into a loaded configuration,
/// its definitions replacing what was read before, environment variables included (as
/// condor_submit_dag and condor_dagman read a DAGMan configuration file). `what` names the
/// source in the error for a file that cannot be read (`ERROR: Can't read <what> <name>`).
pub fn process_source(config: &mut Config, name: &str, what: &str) -> Result<(), ConfigError> {
    let ctx = Context {
        subsys: Some(config.subsystem.as_str()).filter(|s| !s.is_empty()),
        localname: config.local_name.as_deref(),
    };
    let mut parser = Parser::new(&mut config.set, &config.defaults, &config.env, ctx);
    read_file(&mut parser, name, what, true)?;
    let mut included = std::mem::take(&mut parser.included);
    let mut warnings = std::mem::take(&mut parser.warnings);
    drop(parser);
    config.local_sources.append(&mut included);
    config.local_sources.push(name.to_owned());
    config.warnings.append(&mut warnings);
    Ok(())
}

/// The expanded, non-empty value of a knob, as `param()` gives it.
fn knob(parser: &Parser<'_>, name: &str) -> Result<Option<String>, ConfigError> {
    match parser.scope().expand_knob(name) {
        Ok(Some(v)) if !v.is_empty() => Ok(Some(v)),
        Ok(_) => Ok(None),
        Err(e) => Err(ConfigError::new(format!("{name}: {e}"))),
    }
}

fn drain_included(parser: &mut Parser<'_>, sources: &mut Vec<String>) {
    sources.append(&mut parser.included);
}

/// Reads one configuration file; a missing one is an error when `required`.
fn read_file(
    parser: &mut Parser<'_>,
    name: &str,
    what: &str,
    required: bool,
) -> Result<(), ConfigError> {
    match parser.read_source(name, false) {
        Ok(Some((label, text))) => {
            let source = parser.set.add_source(&label);
            parser.parse_text(&text, source, &label, 0)
        }
        Ok(None) if !required => Ok(()),
        Ok(None) => Err(ConfigError::new(format!("ERROR: Can't read {what} {name}"))),
        Err(e) => Err(ConfigError::new(format!(
            "ERROR: Can't read {what} {name}: {e}"
        ))),
    }
}

fn require_local(parser: &Parser<'_>) -> Result<bool, ConfigError> {
    Ok(match knob(parser, "REQUIRE_LOCAL_CONFIG_FILE")? {
        None => true,
        Some(v) if v.starts_with(['t', 'T']) => true,
        Some(v) if v.starts_with(['f', 'F']) => false,
        Some(v) => expand::bool_value(&v).unwrap_or(true),
    })
}

/// The files of each directory of `LOCAL_CONFIG_DIR`, sorted, minus the excluded ones.
fn process_directories(
    parser: &mut Parser<'_>,
    dirs: &str,
    sources: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let required = require_local(parser)?;
    let exclude = match knob(parser, "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP")? {
        Some(re) => Some(regex::Regex::new(&re).map_err(|e| {
            ConfigError::new(format!(
                "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP config parameter is not a valid regular expression.  Value: {re},  Error: {e}"
            ))
        })?),
        None => None,
    };
    for dir in expand::tokens(dirs, expand::DEFAULT_DELIMS) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<String> = entries
            .flatten()
            .filter(|e| !e.path().is_dir())
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                exclude.as_ref().is_none_or(|re| !re.is_match(&name))
            })
            .map(|e| e.path().to_string_lossy().into_owned())
            .collect();
        files.sort();
        for file in files {
            read_file(parser, &file, "config source", required)?;
            drain_included(parser, sources);
            sources.push(file);
        }
    }
    Ok(())
}

/// The files (or the command) of `LOCAL_CONFIG_FILE`, re-reading the list when a file changes
/// it (`process_locals`).
fn process_locals(parser: &mut Parser<'_>, sources: &mut Vec<String>) -> Result<(), ConfigError> {
    let Some(mut value) = knob(parser, "LOCAL_CONFIG_FILE")? else {
        return Ok(());
    };
    let required = require_local(parser)?;
    let split = |v: &str| -> Vec<String> {
        if v.contains('|') {
            vec![v.to_owned()]
        } else {
            expand::tokens(v, expand::DEFAULT_DELIMS)
        }
    };
    let mut todo = split(&value);
    let mut done: Vec<String> = Vec::new();
    let mut i = 0;
    while i < todo.len() {
        let source = todo[i].clone();
        sources.push(source.clone());
        let before = sources.len();
        if source.contains('|') {
            match parser.read_source(&source, true) {
                Ok(Some((label, text))) => {
                    let id = parser.set.add_source(&label);
                    parser.parse_text(&text, id, &label, 1)?;
                }
                Ok(None) => {}
                Err(e) => {
                    return Err(ConfigError::new(format!(
                        "ERROR: Can't read config source {source}: {e}"
                    )))
                }
            }
        } else {
            read_file(parser, &source, "config source", required)?;
        }
        let mut included = std::mem::take(&mut parser.included);
        sources.splice(before..before, included.drain(..));
        done.push(source);
        if let Some(new_value) = knob(parser, "LOCAL_CONFIG_FILE")? {
            if new_value != value {
                todo = split(&new_value);
                todo.retain(|s| !done.contains(s));
                value = new_value;
                i = 0;
                continue;
            }
        }
        i += 1;
    }
    Ok(())
}

/// `AUTO_USE_<CATEGORY>_<TEMPLATE> = <condition>`: applies the template when the condition
/// holds (`do_smart_auto_use`).
fn auto_use(parser: &mut Parser<'_>) -> Result<(), ConfigError> {
    let mut names: Vec<String> = parser
        .set
        .entries()
        .iter()
        .map(|e| e.name.clone())
        .filter(|n| n.len() > 9 && n[..9].eq_ignore_ascii_case("AUTO_USE_"))
        .collect();
    names.sort_by_key(|n| n.to_ascii_lowercase());
    for name in names {
        let rest = &name[9..];
        let Some(split) = rest.find('_') else {
            continue;
        };
        let (category, template) = (&rest[..split], &rest[split + 1..]);
        if category.is_empty()
            || template.is_empty()
            || !category.bytes().all(|c| c.is_ascii_alphabetic())
        {
            continue;
        }
        let Some(trigger) = knob(parser, &name)? else {
            continue;
        };
        let fire = {
            let scope: Scope<'_> = parser.scope();
            super::cond::evaluate(&trigger, &scope).map_err(|e| ConfigError::new(e.0))?
        };
        match fire {
            Err(reason) => parser.warnings.push(format!(
                "Configuration error while interpreting {name} : {reason}"
            )),
            Ok(false) => {}
            Ok(true) => {
                if super::metaknobs::category(category)
                    .and_then(|c| super::metaknobs::lookup(c, template))
                    .is_none()
                {
                    parser.warnings.push(format!(
                        "Configuration error while interpreting {name} : no template named {category}:{template}"
                    ));
                    continue;
                }
                let source = parser.set.add_source(&name);
                let origin = Origin {
                    source,
                    line: None,
                    meta: None,
                };
                parser
                    .use_templates(category, template, origin, 1)
                    .map_err(|e| ConfigError::new(format!("{name}: {e}")))?;
            }
        }
    }
    Ok(())
}

/// The file `-set` and `-unset` edit: `USER_CONFIG_FILE` in the platform configuration directory.
pub fn user_config_path(config: &Config) -> Option<&Path> {
    config.user_config_file.as_deref()
}

/// Reads an I/O error's text.
pub fn describe_io(e: &std::io::Error) -> String {
    io_reason(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_config_is_the_first_readable_file() {
        let dir = tempfile::tempdir().unwrap();
        let (etc, local) = (dir.path().join("etc"), dir.path().join("local"));
        let paths = [etc.as_path(), local.as_path()];
        assert_eq!(system_config(&paths), None, "none yet: a personal pool");
        std::fs::create_dir(&etc).unwrap();
        assert_eq!(
            system_config(&paths),
            None,
            "a directory is not a config file"
        );
        std::fs::write(&local, "LOCAL_DIR = /pool\n").unwrap();
        assert_eq!(
            system_config(&paths).as_deref(),
            Some(local.to_str().unwrap())
        );
        std::fs::remove_dir(&etc).unwrap();
        std::fs::write(&etc, "").unwrap();
        assert_eq!(
            system_config(&paths).as_deref(),
            Some(etc.to_str().unwrap())
        );
    }

    #[test]
    fn condor_config_wins_over_the_system_config() {
        // The loader consults SYSTEM_CONFIGS only when CONDOR_CONFIG is unset: with it set,
        // its file is read whatever /etc holds.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("condor_config");
        std::fs::write(&file, "LOCAL_DIR = /from/condor_config\n").unwrap();
        let config = Config::load_with(LoadOptions {
            env: Environment::from_pairs([("CONDOR_CONFIG", file.to_str().unwrap())]),
            ..LoadOptions::from_process()
        })
        .unwrap();
        assert_eq!(
            config.string("LOCAL_DIR").unwrap().as_deref(),
            Some("/from/condor_config")
        );
    }
}
