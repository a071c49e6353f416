//! The simulated pool's configuration: the workload's `[config]` section, then each `-config`
//! file, then each `-set NAME=VALUE`, over condorlite's built-in defaults, read by the real
//! configuration reader on a fixed, made-up machine, so that the same workload gives the same
//! pool on any host.
//!
//! The reader reads files, so the `[config]` section is handed to it as a temporary copy of the
//! workload in which every other line is blank: a line number in the copy is the line in the
//! workload, and messages naming the copy are given the workload's name back. The `-config`
//! files are `include`d after it, and `-set` settings come last, as `_CONDOR_<NAME>`
//! environment settings do in HTCondor. Nothing of the host's configuration or environment is
//! read.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::workload::Workload;
use super::SimError;
use crate::config::load::{Environment, LoadOptions, PlatformDirs};
use crate::config::{Config, ConfigError};
use crate::startd::{Probe, StartdError};

/// The simulated machine's processors, unless the configuration says otherwise (`NUM_CPUS`).
pub const MACHINE_CPUS: usize = 8;
/// Its memory in MiB (`MEMORY`).
pub const MACHINE_MEMORY_MIB: i64 = 32768;
/// Its free disk in KiB (`DISK`): 100 GB.
pub const MACHINE_DISK_KIB: i64 = 100_000_000;
/// The central manager's host name (and so the default `UID_DOMAIN`).
pub const CENTRAL_HOST: &str = "sim";

/// The look-ups the simulated startds make: a quiet machine of [`MACHINE_CPUS`] processors.
pub fn probe() -> Probe {
    Probe {
        load_avg: || Some(0.0),
        memory_mib: || Some(MACHINE_MEMORY_MIB),
        virtual_memory_kib: || Some(MACHINE_MEMORY_MIB * 1024 * 2),
        cpus: || MACHINE_CPUS,
        free_disk: |_| Some((MACHINE_DISK_KIB, "sim".into())),
        last_input: |_| None,
        nvidia_smi: || None,
        cpuinfo: || None,
        containers: |_| Vec::new(),
    }
}

/// The host name of execute machine `index` (from 0).
pub fn machine_host(index: usize) -> String {
    format!("node{}", index + 1)
}

/// The made-up machine the configuration is read on.
fn machine(hostname: &str) -> crate::config::machine::Machine {
    crate::config::machine::Machine {
        early: vec![
            ("ARCH", "X86_64".into()),
            ("OPSYS", "LINUX".into()),
            ("OPSYSVER", "900".into()),
            ("OPSYSANDVER", "AlmaLinux9".into()),
            ("OPSYSMAJORVER", "9".into()),
            ("OPSYSNAME", "AlmaLinux".into()),
            ("DETECTED_MEMORY", MACHINE_MEMORY_MIB.to_string()),
        ],
        hostname: hostname.to_owned(),
        username: Some("condor".into()),
        physical_cpus: crate::config::machine::Lazy::known(MACHINE_CPUS),
        hyperthread_cpus: MACHINE_CPUS,
        ..Default::default()
    }
}

/// Where the configuration comes from.
#[derive(Debug)]
pub struct Sources<'a> {
    pub workload: &'a Workload,
    /// `-config` files, in order.
    pub files: &'a [String],
    /// `-set NAME=VALUE`, in order.
    pub sets: &'a [(String, String)],
}

/// The temporary root file; removed when dropped.
struct TempConfig {
    path: PathBuf,
}

impl Drop for TempConfig {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Files named in messages as the reader named them, and as the user should see them.
struct Names {
    renames: Vec<(String, String)>,
}

impl Names {
    fn rename(&self, text: &str) -> String {
        let mut s = text.to_owned();
        for (from, to) in &self.renames {
            s = s.replace(from.as_str(), to.as_str());
        }
        s
    }
}

/// The loaded configurations: the central manager's (negotiator and accountant) and one per
/// execute machine.
pub struct Loaded {
    pub central: Config,
    pub machines: Vec<Config>,
    names: Names,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("machines", &self.machines.len())
            .finish_non_exhaustive()
    }
}

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// Reads the configuration for the central manager and `machines` execute machines.
pub fn load(sources: &Sources<'_>, machines: u32) -> Result<Loaded, SimError> {
    let mut renames = Vec::new();
    let mut text = sources.workload.config_text.clone();
    for file in sources.files {
        let path = Path::new(file);
        if let Err(e) = std::fs::File::open(path) {
            return Err(SimError::Io {
                path: file.clone(),
                reason: crate::config::load::describe_io(&e),
            });
        }
        let absolute = std::path::absolute(path)
            .unwrap_or_else(|_| path.to_owned())
            .to_string_lossy()
            .into_owned();
        if absolute != *file {
            renames.push((absolute.clone(), file.clone()));
        }
        text.push_str(&format!("include : {absolute}\n"));
    }
    let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let temp = TempConfig {
        path: std::env::temp_dir().join(format!("condor_sim.{}.{seq}.config", std::process::id())),
    };
    std::fs::write(&temp.path, text).map_err(|e| SimError::Io {
        path: temp.path.display().to_string(),
        reason: crate::config::load::describe_io(&e),
    })?;
    renames.insert(
        0,
        (
            temp.path.to_string_lossy().into_owned(),
            sources.workload.file.clone(),
        ),
    );
    let names = Names { renames };
    let env = Environment::from_pairs(
        sources
            .sets
            .iter()
            .map(|(k, v)| (format!("_CONDOR_{k}"), v.clone())),
    );
    let read = |host: &str, subsystem: &str| -> Result<Config, SimError> {
        let opts = LoadOptions {
            env: env.clone(),
            subsystem: subsystem.into(),
            local_name: None,
            root_config: Some(temp.path.to_string_lossy().into_owned()),
            keep_defaults: false,
            dirs: PlatformDirs {
                data_dir: None,
                config_dir: None,
            },
            machine: Some(machine(host)),
        };
        Config::load_with(opts).map_err(|e| SimError::Config(names.rename(&e.to_string())))
    };
    let central = read(CENTRAL_HOST, "NEGOTIATOR")?;
    let mut configs = Vec::with_capacity(machines as usize);
    for i in 0..machines as usize {
        configs.push(read(&machine_host(i), "STARTD")?);
    }
    Ok(Loaded {
        central,
        machines: configs,
        names,
    })
}

impl Loaded {
    /// A configuration error from a knob lookup, with the place the knob was set when the
    /// message names a knob (HTCondor's lookup errors name the knob but not where it is).
    pub fn config_error(&self, config: &Config, e: &ConfigError) -> SimError {
        if e.file.is_some() {
            return SimError::Config(self.names.rename(&e.to_string()));
        }
        SimError::Config(self.locate(config, &e.message, None))
    }

    /// A startd that could not be built: located at the knob it names, or at the first
    /// configured knob its message mentions.
    pub fn startd_error(&self, config: &Config, e: &StartdError) -> SimError {
        match e {
            StartdError::Config(c) => self.config_error(config, c),
            StartdError::SlotConfig { knob, .. } | StartdError::OutOfResources { knob, .. } => {
                SimError::Config(self.locate(config, &e.to_string(), Some(knob)))
            }
            other => SimError::Config(self.locate(config, &other.to_string(), None)),
        }
    }

    /// `message`, after the place where `knob` (or else the first knob the message names
    /// that the configuration files set) is set.
    fn locate(&self, config: &Config, message: &str, knob: Option<&str>) -> String {
        let named = |name: &str| {
            let entry = config.entry(name)?;
            let source = config.source_name(entry.origin.source).to_owned();
            let line = entry.origin.line?;
            Some((source, line))
        };
        let place = match knob {
            Some(k) => named(k),
            None => None,
        }
        .or_else(|| {
            message
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .filter(|w| w.len() > 1)
                .find_map(named)
        });
        let env_knob = |name: &str| {
            config
                .entry(name)
                .is_some_and(|e| e.origin.source == crate::config::table::SourceId::ENVIRONMENT)
        };
        match place {
            Some((source, line)) => self
                .names
                .rename(&format!("{source}, line {line}: {message}")),
            None => {
                let set = message
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                    .find(|w| w.len() > 1 && env_knob(w));
                match set {
                    Some(k) => format!("-set {k}: {message}"),
                    None => self.names.rename(message),
                }
            }
        }
    }
}
