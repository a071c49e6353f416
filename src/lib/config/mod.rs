//! The HTCondor configuration language and the configuration of a condorlite pool.
//!
//! [`Config::load`] reads the sources in HTCondor's order ([`load`]): the root file named by
//! `CONDOR_CONFIG`, `LOCAL_CONFIG_DIR` and `LOCAL_CONFIG_FILE`, the user's file, then
//! `_CONDOR_<NAME>` environment variables; knobs nobody set fall back to the built-in defaults
//! ([`defaults`]), which put a personal pool under `LOCAL_DIR` (the platform data directory).
//! The language ([`parse`], [`reader`], [`cond`]) and macro expansion ([`expand`]) follow
//! HTCondor's src/condor_utils/config.cpp; metaknob templates are in [`metaknobs`].
//!
//! Lookups are typed: [`Config::string`], [`Config::bool`], [`Config::int`], [`Config::double`],
//! [`Config::expr`], [`Config::list`]. A knob that is undefined, or expands to nothing, is
//! `None`. A value that cannot be read as the type asked for, or whose expansion fails (a macro
//! loop, `$INT()` of a non-number, ...), is an error: HTCondor aborts the program on those.
//! [`Config::subsystem`] looks knobs up as a daemon does (`NEGOTIATOR.X` before `X`).

pub mod cond;
pub mod defaults;
pub mod expand;
pub mod load;
pub mod machine;
pub mod metaknobs;
#[rustfmt::skip]
mod param_table;
pub mod parse;
pub mod persist;
pub mod printf;
pub mod reader;
pub mod table;

use std::fmt;
use std::path::Path;

use crate::classad::parser::parse_old_expr;
use crate::classad::Expr;
use defaults::Defaults;
use expand::{Context, ExpandError, Scope};
pub use load::{Environment, LoadOptions, PlatformDirs};
use table::{Entry, MacroSet, Origin, SourceId};

/// HTCondor's version string, as `condor_config_val -version` prints it.
pub fn condor_version() -> String {
    crate::version::CONDOR_VERSION.to_owned()
}

/// A configuration that could not be read, or a knob that could not be expanded. Prints as
/// `<file>, line <n>: <what>` when it is about a place in a file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub message: String,
}

impl ConfigError {
    pub fn new(message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: None,
            line: None,
            message: message.into(),
        }
    }

    pub fn at(file: &str, line: u32, message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: Some(file.to_owned()),
            line: Some(line),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}, line {line}: {}", self.message),
            (Some(file), None) => write!(f, "{file}: {}", self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}

/// A loaded configuration.
#[derive(Clone, Debug)]
pub struct Config {
    set: MacroSet,
    defaults: Defaults,
    env: Environment,
    subsystem: String,
    local_name: Option<String>,
    global_source: String,
    local_sources: Vec<String>,
    warnings: Vec<String>,
    user_config_file: Option<std::path::PathBuf>,
}

/// Where a knob's value comes from, for `condor_config_val -verbose` and `-dump`.
#[derive(Clone, Debug)]
pub struct Found<'c> {
    /// The name the value was found under (`NEGOTIATOR.X` for `X` in the negotiator).
    pub name: String,
    pub raw: &'c str,
    /// `None` for a built-in default.
    pub entry: Option<&'c Entry>,
}

/// A view of a configuration as one subsystem reads it.
#[derive(Clone, Copy, Debug)]
pub struct View<'c> {
    config: &'c Config,
    ctx: Context<'c>,
}

impl Config {
    /// For tests: the configuration `text` makes as the pool's `condor_config` in `dir`
    /// (condorlite's defaults under it, nothing from this process's environment), read as
    /// `subsystem`, with `machine` standing in for what detection would find.
    #[cfg(test)]
    pub(crate) fn for_test(
        text: &str,
        subsystem: &str,
        machine: Option<machine::Machine>,
        dir: &std::path::Path,
    ) -> Config {
        let path = dir.join("condor_config");
        std::fs::write(&path, text).unwrap();
        Config::load_with(LoadOptions {
            env: Environment::from_pairs([("CONDOR_CONFIG", path.to_string_lossy().into_owned())]),
            subsystem: subsystem.into(),
            local_name: None,
            root_config: None,
            keep_defaults: false,
            dirs: PlatformDirs {
                data_dir: Some(dir.join("pool")),
                config_dir: Some(dir.join("user")),
            },
            machine,
        })
        .unwrap()
    }

    /// Loads this process's configuration as subsystem `TOOL`.
    pub fn load() -> Result<Config, ConfigError> {
        load::load(LoadOptions::from_process())
    }

    /// Loads a configuration as `opts` say.
    pub fn load_with(opts: LoadOptions) -> Result<Config, ConfigError> {
        load::load(opts)
    }

    /// Reads one more configuration file on top of this one (`process_config_source`; see
    /// [`load::process_source`]).
    pub fn process_source(&mut self, name: &str, what: &str) -> Result<(), ConfigError> {
        load::process_source(self, name, what)
    }

    /// Lookups as the loading subsystem makes them.
    pub fn view(&self) -> View<'_> {
        View {
            config: self,
            ctx: Context {
                subsys: Some(self.subsystem.as_str()).filter(|s| !s.is_empty()),
                localname: self.local_name.as_deref(),
            },
        }
    }

    /// Lookups as subsystem `subsys` makes them (`NEGOTIATOR.X` before `X`).
    pub fn subsystem<'c>(&'c self, subsys: &'c str) -> View<'c> {
        View {
            config: self,
            ctx: Context {
                subsys: Some(subsys),
                localname: None,
            },
        }
    }

    pub fn string(&self, name: &str) -> Result<Option<String>, ConfigError> {
        self.view().string(name)
    }

    pub fn bool(&self, name: &str) -> Result<Option<bool>, ConfigError> {
        self.view().bool(name)
    }

    pub fn int(&self, name: &str) -> Result<Option<i64>, ConfigError> {
        self.view().int(name)
    }

    pub fn double(&self, name: &str) -> Result<Option<f64>, ConfigError> {
        self.view().double(name)
    }

    pub fn expr(&self, name: &str) -> Result<Option<Expr>, ConfigError> {
        self.view().expr(name)
    }

    pub fn list(&self, name: &str) -> Result<Vec<String>, ConfigError> {
        self.view().list(name)
    }

    /// Expands macros in `text` as a value of this configuration would be.
    pub fn expand(&self, text: &str) -> Result<String, ConfigError> {
        self.view()
            .scope()
            .expand(text)
            .map_err(|e| ConfigError::new(e.0))
    }

    /// The raw value of `name` (from a source or the defaults), unexpanded.
    pub fn raw(&self, name: &str) -> Option<&str> {
        self.view().scope().lookup(name)
    }

    /// The definition of `name` in the configuration's sources (not the defaults).
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.set.get(name)
    }

    /// The definitions the configuration's sources made (deferred detected knobs, such as
    /// `TILDE`, are not looked up).
    pub fn entries(&self) -> &[Entry] {
        self.set.entries()
    }

    /// Every definition, the deferred detected knobs looked up and listed last.
    pub fn all_entries(&self) -> Vec<&Entry> {
        self.set.all_entries().collect()
    }

    pub fn defaults(&self) -> &Defaults {
        &self.defaults
    }

    /// The name of a source (a file path, `<Default>`, `<Environment>`, ...).
    pub fn source_name(&self, id: SourceId) -> &str {
        self.set.source_name(id)
    }

    /// Where a definition came from: `file, line N[, use CAT:TEMPLATE+K]` or the pseudo-source.
    pub fn location(&self, origin: &Origin) -> String {
        let mut s = self.source_name(origin.source).to_owned();
        if let Some(line) = origin.line {
            s.push_str(&format!(", line {line}"));
            if let Some(meta) = &origin.meta {
                s.push_str(&format!(
                    ", use {}:{}+{}",
                    meta.category, meta.template, meta.offset
                ));
            }
        }
        s
    }

    /// The root configuration file (empty when there is none).
    pub fn global_source(&self) -> &str {
        &self.global_source
    }

    /// The other files read, in order: includes, `LOCAL_CONFIG_DIR`, `LOCAL_CONFIG_FILE`, the
    /// user's file.
    pub fn local_sources(&self) -> &[String] {
        &self.local_sources
    }

    /// Warnings the sources produced (`warning :` statements, `NAME : value`).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The file `condor_config_val -set` writes.
    pub fn user_config_file(&self) -> Option<&Path> {
        self.user_config_file.as_deref()
    }

    pub fn env(&self) -> &Environment {
        &self.env
    }
}

impl<'c> View<'c> {
    fn scope(&self) -> Scope<'c> {
        Scope {
            set: &self.config.set,
            defaults: &self.config.defaults,
            env: &self.config.env,
            ctx: self.ctx,
        }
    }

    /// Finds `name` as `condor_config_val` reports it (HTCondor's `param_find_item`): the
    /// configuration's `<local>.NAME`, `<subsys>.NAME`, then the subsystem's default, then
    /// `NAME`, then the default table. A knob the table lists without a default is found,
    /// with an empty raw value.
    pub fn find(&self, name: &str) -> Option<Found<'c>> {
        let set = &self.config.set;
        let defaults = &self.config.defaults;
        let configured = |e: &'c Entry| Found {
            name: e.name.clone(),
            raw: &e.raw,
            entry: Some(e),
        };
        let default = |prefix: Option<&str>, d: &'static defaults::Default| Found {
            name: match prefix {
                Some(p) => format!("{}.{}", p.to_ascii_uppercase(), d.name),
                None => d.name.to_owned(),
            },
            raw: defaults.value(d),
            entry: None,
        };
        if let Some(local) = self.ctx.localname {
            if let Some(e) = set.get_prefixed(local, name) {
                return Some(configured(e));
            }
        }
        if let Some(subsys) = self.ctx.subsys {
            if let Some(e) = set.get_prefixed(subsys, name) {
                return Some(configured(e));
            }
            if let Some(d) = defaults.subsystem_entry(subsys, name) {
                return Some(default(Some(subsys), d));
            }
        }
        if let Some(e) = set.get(name) {
            return Some(configured(e));
        }
        let prefix = name.split_once('.').map(|(p, _)| p);
        defaults.entry(name).map(|d| default(prefix, d))
    }

    /// The default `condor_config_val -dump -verbose` reports for what [`View::find`] found
    /// (HTCondor's `hash_iter_def_value`): a default's own value, or the table's default of
    /// the name a configuration entry was found under.
    pub fn default_of(&self, found: &Found<'c>) -> Option<&'c str> {
        match found.entry {
            None => Some(found.raw).filter(|v| !v.is_empty()),
            Some(e) => self.config.defaults.get(&e.name),
        }
    }

    /// The raw value of `name`, unexpanded.
    pub fn raw(&self, name: &str) -> Option<&'c str> {
        self.scope().lookup(name)
    }

    /// The expanded value of `name`; `None` when undefined or empty (HTCondor's `param()`).
    pub fn string(&self, name: &str) -> Result<Option<String>, ConfigError> {
        match self.scope().expand_knob(name) {
            Ok(Some(v)) if !v.is_empty() => Ok(Some(v)),
            Ok(_) => Ok(None),
            Err(ExpandError(e)) => Err(ConfigError::new(format!("{name}: {e}"))),
        }
    }

    /// A boolean knob: `true`/`false`/`1`/`0`, or an expression with a boolean (or numeric)
    /// value.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, ConfigError> {
        let Some(v) = self.string(name)? else {
            return Ok(None);
        };
        expand::bool_value(&v).map(Some).ok_or_else(|| {
            ConfigError::new(format!(
                "{name} in the condor configuration is not a valid boolean (\"{v}\").  Please set it to True or False"
            ))
        })
    }

    /// An integer knob: a number, or an expression with a numeric value (reals truncate).
    pub fn int(&self, name: &str) -> Result<Option<i64>, ConfigError> {
        let Some(v) = self.string(name)? else {
            return Ok(None);
        };
        expand::integer_value(&v).map(Some).ok_or_else(|| {
            ConfigError::new(format!(
                "Invalid result (not an integer) for {name} ({v}) in condor configuration.  Please set it to an integer expression"
            ))
        })
    }

    /// A floating-point knob.
    pub fn double(&self, name: &str) -> Result<Option<f64>, ConfigError> {
        let Some(v) = self.string(name)? else {
            return Ok(None);
        };
        expand::real_value(&v).map(Some).ok_or_else(|| {
            ConfigError::new(format!(
                "Invalid result (not a number) for {name} ({v}) in condor configuration.  Please set it to a numeric expression"
            ))
        })
    }

    /// A ClassAd expression knob (`START`, `PREEMPT`, ...), parsed as HTCondor parses
    /// configuration values.
    pub fn expr(&self, name: &str) -> Result<Option<Expr>, ConfigError> {
        let Some(v) = self.string(name)? else {
            return Ok(None);
        };
        parse_old_expr(&v).map(Some).map_err(|e| {
            ConfigError::new(format!(
                "{name} is not a valid ClassAd expression ({v}): {e}"
            ))
        })
    }

    /// A list knob: items separated by commas or whitespace, empty items dropped.
    pub fn list(&self, name: &str) -> Result<Vec<String>, ConfigError> {
        Ok(self
            .string(name)?
            .map(|v| expand::tokens(&v, expand::DEFAULT_DELIMS))
            .unwrap_or_default())
    }

    /// Expands macros in `text` as a value of this configuration would be.
    pub fn expand(&self, text: &str) -> Result<String, ConfigError> {
        self.scope().expand(text).map_err(|e| ConfigError::new(e.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str, env: &[(&str, &str)]) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("condor_config");
        std::fs::write(&path, text).unwrap();
        let mut vars: Vec<(String, String)> =
            vec![("CONDOR_CONFIG".into(), path.to_string_lossy().into())];
        vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let opts = LoadOptions {
            env: Environment::from_pairs(vars),
            subsystem: "TOOL".into(),
            local_name: None,
            root_config: None,
            keep_defaults: false,
            dirs: PlatformDirs {
                data_dir: Some("/pool".into()),
                config_dir: Some(dir.path().join("user")),
            },
            machine: None,
        };
        Config::load_with(opts).unwrap()
    }

    #[test]
    fn a_later_source_wins_over_files_and_environment() {
        let mut c = config("A = 1\nB = $(A)\n", &[("_CONDOR_C", "env")]);
        let dir = tempfile::tempdir().unwrap();
        let extra = dir.path().join("dagman.conf");
        std::fs::write(&extra, "A = 2\nC = file\nD = $(C)x\n").unwrap();
        c.process_source(extra.to_str().unwrap(), "DAGMan config")
            .unwrap();
        assert_eq!(c.string("B").unwrap().as_deref(), Some("2"));
        assert_eq!(c.string("C").unwrap().as_deref(), Some("file"));
        assert_eq!(c.string("D").unwrap().as_deref(), Some("filex"));
        let missing = dir.path().join("missing.conf");
        let err = c
            .process_source(missing.to_str().unwrap(), "DAGMan config")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("ERROR: Can't read DAGMan config {}", missing.display())
        );
    }

    #[test]
    fn typed_lookups() {
        let c = config(
            "NEGOTIATOR_INTERVAL = 2 * 30\nFLAG = True\nHALF = 0.5\nSTART = KeyboardIdle > $(MINUTE)\nL = a, b  c,,d\nEMPTY =\nNEGOTIATOR.X = neg\nX = plain\nBAD = maybe\n",
            &[("_CONDOR_HALF", "0.25")],
        );
        assert_eq!(c.int("NEGOTIATOR_INTERVAL").unwrap(), Some(60));
        assert_eq!(c.bool("FLAG").unwrap(), Some(true));
        assert_eq!(c.double("HALF").unwrap(), Some(0.25));
        assert!(c.expr("START").unwrap().is_some());
        assert_eq!(c.list("L").unwrap(), ["a", "b", "c", "d"]);
        assert_eq!(c.string("EMPTY").unwrap(), None);
        assert_eq!(c.string("NOPE").unwrap(), None);
        assert_eq!(c.string("X").unwrap().as_deref(), Some("plain"));
        assert_eq!(
            c.subsystem("NEGOTIATOR").string("X").unwrap().as_deref(),
            Some("neg")
        );
        assert!(c.bool("BAD").is_err());
        assert_eq!(c.double("PRIORITY_HALFLIFE").unwrap(), Some(86400.0));
        assert_eq!(c.string("SPOOL").unwrap().as_deref(), Some("/pool/spool"));
        assert_eq!(c.string("RUN").unwrap().as_deref(), Some("/pool/run"));
    }

    static CONDOR_LOOKUPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    fn condor_home() -> Option<String> {
        CONDOR_LOOKUPS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Some("/home/condor".into())
    }

    #[test]
    fn tilde_is_looked_up_only_when_a_knob_uses_it() {
        use std::sync::atomic::Ordering;
        let load = |text: &str| {
            let dir = tempfile::tempdir().unwrap();
            let machine = machine::Machine {
                tilde: machine::Lazy::probe(condor_home),
                ..Default::default()
            };
            Config::for_test(text, "TOOL", Some(machine), dir.path())
        };
        let c = load("A = 1\n");
        assert_eq!(c.string("A").unwrap().as_deref(), Some("1"));
        assert_eq!(CONDOR_LOOKUPS.load(Ordering::SeqCst), 0);
        let c = load("B = $(TILDE)/b\n");
        assert_eq!(c.string("B").unwrap().as_deref(), Some("/home/condor/b"));
        assert_eq!(c.string("TILDE").unwrap().as_deref(), Some("/home/condor"));
        assert_eq!(CONDOR_LOOKUPS.load(Ordering::SeqCst), 1);
        // The root file's TILDE gives way to the detected one, as in HTCondor.
        let c = load("TILDE = /elsewhere\nC = $(TILDE)\n");
        assert_eq!(c.string("C").unwrap().as_deref(), Some("/home/condor"));
    }

    #[test]
    fn environment_overrides_win() {
        let c = config(
            "LOCAL_DIR = /from/file\nA = 1\n",
            &[("_CONDOR_LOCAL_DIR", "/from/env"), ("_condor_B", " 2")],
        );
        assert_eq!(c.string("LOG").unwrap().as_deref(), Some("/from/env/log"));
        assert_eq!(c.string("B").unwrap().as_deref(), Some("2"));
        let e = c.entry("LOCAL_DIR").unwrap();
        assert_eq!(c.location(&e.origin), "<Environment>");
    }

    #[test]
    fn errors_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad");
        std::fs::write(&path, "A = 1\nnot valid\n").unwrap();
        let opts = LoadOptions {
            env: Environment::from_pairs([("CONDOR_CONFIG", path.to_string_lossy())]),
            subsystem: "TOOL".into(),
            local_name: None,
            root_config: None,
            keep_defaults: false,
            dirs: PlatformDirs::default(),
            machine: None,
        };
        let e = Config::load_with(opts).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            e.to_string()
                .starts_with(&format!("{}, line 2: ", path.display())),
            "{e}"
        );
    }
}
