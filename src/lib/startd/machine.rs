//! What the startd learns from the machine it runs on, as HTCondor's `sysapi` and
//! `MachAttributes` (src/condor_sysapi/, src/condor_startd.V6/ResAttributes.cpp) learn it.
//!
//! Every look at the system is one small function ([`Probe`] holds them), so that tests and
//! other callers can substitute fixed answers: the load average (`/proc/loadavg`), memory and
//! swap (`/proc/meminfo`), free disk under a directory (`statvfs`), the processor's flags
//! (`/proc/cpuinfo`), the idle time of terminals, and the GPUs (`nvidia-smi -L`).
//! [`Machine`] is what the configuration makes of them: `NUM_CPUS`, `MEMORY`, `DISK`,
//! `RESERVED_*` override what was detected, and the operating-system knobs (`ARCH`, `OPSYS`,
//! ...) the configuration already detected become the machine's static attributes.

use std::path::{Path, PathBuf};

use crate::classad::{ClassAd, Expr};
use crate::config::{ConfigError, View};

/// The system look-ups the startd makes, replaceable for tests.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    /// The one-minute load average.
    pub load_avg: fn() -> Option<f64>,
    /// Physical memory in MiB.
    pub memory_mib: fn() -> Option<i64>,
    /// Free swap plus physical memory, in KiB (HTCondor's `sysapi_swap_space`).
    pub virtual_memory_kib: fn() -> Option<i64>,
    /// Logical processors.
    pub cpus: fn() -> usize,
    /// Free KiB on the file system holding a directory, and an id for that file system.
    pub free_disk: fn(&Path) -> Option<(i64, String)>,
    /// The last time (seconds since the epoch) a terminal or console device was used.
    pub last_input: fn(&[String]) -> Option<i64>,
    /// The output of `nvidia-smi -L`, or `None` when it cannot be run.
    pub nvidia_smi: fn() -> Option<String>,
    /// `/proc/cpuinfo`.
    pub cpuinfo: fn() -> Option<String>,
    /// The container runtimes that work here, as machine attributes (`HasDocker`,
    /// `HasContainer`, `HasSingularity`, ...): [`crate::starter::container::detect`].
    pub containers: fn(&crate::config::Config) -> Vec<(String, Expr)>,
}

impl Default for Probe {
    fn default() -> Probe {
        Probe {
            load_avg,
            memory_mib,
            virtual_memory_kib,
            cpus,
            free_disk,
            last_input,
            nvidia_smi,
            cpuinfo,
            containers: crate::starter::container::detect,
        }
    }
}

/// What the file named by the condorlite knob `CONDORLITE_MACHINE_INPUTS` says about the
/// machine, in place of what [`Probe`] would find: `LoadAvg` (the machine's load average),
/// `KeyboardIdle` and `ConsoleIdle` (seconds since the keyboard, and the console's mouse and
/// keyboard, were last used), one `Name = value` line each (names in any case, `#`
/// comments). A name the file does not give, or gives a value that is not a number, comes
/// from the probe as usual. The startd reads the file again at every refresh, so that a test
/// driving a pool process can move the policy (a missing or unreadable file gives nothing).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MachineInputs {
    pub load_avg: Option<f64>,
    pub keyboard_idle: Option<i64>,
    pub console_idle: Option<i64>,
}

impl MachineInputs {
    /// The inputs `text` gives.
    pub fn parse(text: &str) -> MachineInputs {
        let mut inputs = MachineInputs::default();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((name, value)) = line.split_once('=') else {
                continue;
            };
            let Ok(v) = value.trim().parse::<f64>() else {
                continue;
            };
            if !v.is_finite() {
                continue;
            }
            match name.trim().to_ascii_lowercase().as_str() {
                "loadavg" => inputs.load_avg = Some(v),
                "keyboardidle" => inputs.keyboard_idle = Some(v as i64),
                "consoleidle" => inputs.console_idle = Some(v as i64),
                _ => {}
            }
        }
        inputs
    }

    /// The inputs in the file at `path` (none when it cannot be read).
    pub fn read(path: &Path) -> MachineInputs {
        std::fs::read_to_string(path)
            .map(|t| MachineInputs::parse(&t))
            .unwrap_or_default()
    }
}

/// The one-minute load average from `/proc/loadavg`.
pub fn load_avg() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn meminfo_kib(key: &str) -> Option<i64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(key)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// Physical memory in MiB (`MemTotal` of `/proc/meminfo`).
pub fn memory_mib() -> Option<i64> {
    meminfo_kib("MemTotal").map(|k| k / 1024)
}

/// Free swap plus physical memory, in KiB, as HTCondor's Linux `sysapi_swap_space_raw`.
pub fn virtual_memory_kib() -> Option<i64> {
    Some(meminfo_kib("SwapFree")? + meminfo_kib("MemTotal")?)
}

/// Logical processors.
pub fn cpus() -> usize {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
}

/// The directory itself, or its nearest existing ancestor (an execute directory the daemon
/// has not created yet lives on the file system of its parent).
fn existing(path: &Path) -> Option<PathBuf> {
    let mut p = path.to_path_buf();
    loop {
        if p.exists() {
            return Some(p);
        }
        if !p.pop() {
            return None;
        }
    }
}

/// Free KiB available to users on the file system holding `path` (`statvfs`'s `f_bavail`),
/// and the file system's device number as its id.
pub fn free_disk(path: &Path) -> Option<(i64, String)> {
    use std::os::unix::fs::MetadataExt;
    let dir = existing(path)?;
    let st = nix::sys::statvfs::statvfs(&dir).ok()?;
    let kib = (st.blocks_available() as u128 * st.fragment_size() as u128 / 1024) as i64;
    let dev = std::fs::metadata(&dir).ok()?.dev();
    Some((kib, format!("dev{dev}")))
}

/// The most recent access time of the terminals (`/dev/pts/*`, `/dev/tty*`) and of the
/// `CONSOLE_DEVICES` under `/dev`.
pub fn last_input(console_devices: &[String]) -> Option<i64> {
    use std::os::unix::fs::MetadataExt;
    let mut newest: Option<i64> = None;
    let mut see = |p: &Path| {
        if let Ok(m) = std::fs::metadata(p) {
            newest = Some(newest.map_or(m.atime(), |n: i64| n.max(m.atime())));
        }
    };
    if let Ok(rd) = std::fs::read_dir("/dev/pts") {
        for e in rd.flatten() {
            if e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
            {
                see(&e.path());
            }
        }
    }
    for d in console_devices {
        see(&Path::new("/dev").join(d));
    }
    newest
}

/// `nvidia-smi -L`, when it runs.
pub fn nvidia_smi() -> Option<String> {
    let out = std::process::Command::new("nvidia-smi")
        .arg("-L")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `/proc/cpuinfo`.
pub fn cpuinfo() -> Option<String> {
    std::fs::read_to_string("/proc/cpuinfo").ok()
}

/// What `/proc/cpuinfo` says about the processor (HTCondor's `sysapi_processor_flags`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CpuInfo {
    /// The flags HTCondor advertises as `has_<flag>`, of those the processor has.
    pub flags: Vec<String>,
    pub model: Option<i64>,
    pub family: Option<i64>,
    /// KiB.
    pub cache: Option<i64>,
    /// `x86_64-v1` ... `x86_64-v4` (x86-64 only).
    pub microarch: Option<String>,
}

impl CpuInfo {
    /// Reads the first processor's entry.
    pub fn parse(text: &str) -> CpuInfo {
        let mut info = CpuInfo::default();
        let mut all_flags: Option<Vec<String>> = None;
        let int = |v: &str| {
            let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse::<i64>().ok().filter(|&n| n > 0)
        };
        for line in text.lines() {
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let v = v.trim();
            match k.trim() {
                "flags" if all_flags.is_none() => {
                    all_flags = Some(v.split(' ').map(str::to_owned).collect());
                }
                "model" if info.model.is_none() => info.model = int(v),
                "cpu family" if info.family.is_none() => info.family = int(v),
                "cache size" if info.cache.is_none() => info.cache = int(v),
                _ => {}
            }
        }
        let flags = all_flags.unwrap_or_default();
        const INTERESTING: [&str; 8] = [
            "avx",
            "avx2",
            "avx512_vnni",
            "avx512dq",
            "avx512f",
            "sse4_1",
            "sse4_2",
            "ssse3",
        ];
        info.flags = INTERESTING
            .iter()
            .filter(|f| flags.iter().any(|g| g == *f))
            .map(|f| f.to_string())
            .collect();
        if std::env::consts::ARCH == "x86_64" && !flags.is_empty() {
            let has = |set: &[&str]| set.iter().all(|f| flags.iter().any(|g| g == f));
            let level = if has(&["avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl"]) {
                "x86_64-v4"
            } else if has(&[
                "abm", "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave",
            ]) {
                "x86_64-v3"
            } else if has(&["cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"]) {
                "x86_64-v2"
            } else {
                "x86_64-v1"
            };
            info.microarch = Some(level.to_owned());
        }
        info
    }
}

/// The machine as the startd sees it: detected facts with the configuration's overrides.
#[derive(Clone, Debug)]
pub struct Machine {
    pub full_hostname: String,
    /// The startd's name: `STARTD_NAME` made a full `name@host`, else the host's full name.
    pub name: String,
    /// `NUM_CPUS`, else the detected processors (`TotalCpus`).
    pub num_cpus: f64,
    /// Processors the system has (`DETECTED_CORES`, `DetectedCpus`).
    pub detected_cpus: i64,
    /// `MEMORY`, else the detected memory, less `RESERVED_MEMORY` (MiB, `TotalMemory`).
    pub phys_mem: i64,
    /// `DETECTED_MEMORY` (MiB, `DetectedMemory`).
    pub detected_memory: i64,
    /// KiB of swap plus memory (`TotalVirtualMemory`).
    pub virt_mem: i64,
    /// `DISK` in KiB, when configured: every slot's total disk, whatever its execute directory.
    pub disk_from_config: Option<i64>,
    /// `RESERVED_DISK` in KiB.
    pub reserved_disk: i64,
    /// `STARTD_RECOMPUTE_DISK_FREE`.
    pub recompute_disk: bool,
    /// Attributes every slot ad and the daemon ad carry unchanged: operating system,
    /// domains, processor flags (HTCondor's `MachAttributes::publish_static`).
    pub static_attrs: Vec<(String, Expr)>,
    /// `SLOTS_CONNECTED_TO_KEYBOARD`, `SLOTS_CONNECTED_TO_CONSOLE`.
    pub keyboard_slots: i64,
    pub console_slots: i64,
    /// `DISCONNECTED_KEYBOARD_IDLE_BOOST`.
    pub idle_boost: i64,
    pub console_devices: Vec<String>,
}

/// HTCondor's `build_valid_daemon_name`: a name with an `@` stays; the host's own name becomes
/// its full name; any other name becomes `name@fullhost`.
pub fn daemon_name(name: Option<&str>, full_hostname: &str) -> String {
    match name {
        Some(n) if !n.is_empty() => {
            if n.contains('@') {
                n.to_owned()
            } else if n.eq_ignore_ascii_case(full_hostname)
                || full_hostname
                    .split('.')
                    .next()
                    .is_some_and(|s| s.eq_ignore_ascii_case(n))
            {
                full_hostname.to_owned()
            } else {
                format!("{n}@{full_hostname}")
            }
        }
        _ => full_hostname.to_owned(),
    }
}

impl Machine {
    /// Reads the machine's facts as the startd subsystem's configuration `cfg` describes them.
    pub fn from_config(cfg: View<'_>, probe: &Probe) -> Result<Machine, ConfigError> {
        let full_hostname = cfg
            .string("FULL_HOSTNAME")?
            .unwrap_or_else(|| "localhost".to_owned());
        let name = daemon_name(cfg.string("STARTD_NAME")?.as_deref(), &full_hostname);
        let detected_cpus = match cfg.int("DETECTED_CORES")? {
            Some(n) if n > 0 => n,
            _ => (probe.cpus)() as i64,
        };
        let num_cpus = match cfg.int("NUM_CPUS")? {
            Some(n) if n > 0 => n,
            _ => match cfg.int("DETECTED_CPUS_LIMIT")? {
                Some(n) if n > 0 => n,
                _ => match cfg.int("DETECTED_CPUS")? {
                    Some(n) if n > 0 => n,
                    _ => (probe.cpus)() as i64,
                },
            },
        } as f64;
        let detected_memory = match cfg.int("DETECTED_MEMORY")? {
            Some(n) if n > 0 => n,
            _ => (probe.memory_mib)().unwrap_or(0),
        };
        let mem = match cfg.int("MEMORY")? {
            Some(n) if n > 0 => n,
            _ => detected_memory,
        };
        let reserved_mem = cfg.int("RESERVED_MEMORY")?.unwrap_or(0);
        let phys_mem = (mem - reserved_mem).max(0);
        let virt_mem = (probe.virtual_memory_kib)().unwrap_or(0)
            - cfg.int("RESERVED_SWAP")?.unwrap_or(0) * 1024;
        let disk_from_config = match cfg.string("DISK")? {
            Some(d) => d.trim().parse::<i64>().ok(),
            None => None,
        };
        let reserved_disk = cfg.int("RESERVED_DISK")?.unwrap_or(0) * 1024;
        let recompute_disk =
            disk_from_config.is_none() && cfg.bool("STARTD_RECOMPUTE_DISK_FREE")?.unwrap_or(false);

        let mut attrs: Vec<(String, Expr)> = Vec::new();
        let mut put = |name: &str, e: Expr| attrs.push((name.to_owned(), e));
        put(
            "UidDomain",
            Expr::lit(
                cfg.string("UID_DOMAIN")?
                    .unwrap_or_else(|| full_hostname.clone()),
            ),
        );
        put(
            "FileSystemDomain",
            Expr::lit(
                cfg.string("FILESYSTEM_DOMAIN")?
                    .unwrap_or_else(|| full_hostname.clone()),
            ),
        );
        put("HasIOProxy", Expr::lit(true));
        let arch = cfg
            .string("ARCH")?
            .unwrap_or_else(|| std::env::consts::ARCH.to_ascii_uppercase());
        put("Arch", Expr::lit(arch));
        put(
            "OpSys",
            Expr::lit(cfg.string("OPSYS")?.unwrap_or_else(|| "LINUX".to_owned())),
        );
        if let Some(v) = cfg.int("OPSYSVER")?.filter(|&v| v != 0) {
            put("OpSysVer", Expr::lit(v));
        }
        if let Some(v) = cfg.string("OPSYSANDVER")? {
            put("OpSysAndVer", Expr::lit(v));
        }
        if let Some(v) = cfg.int("OPSYSMAJORVER")?.filter(|&v| v != 0) {
            put("OpSysMajorVer", Expr::lit(v));
        }
        for (attr, knob) in [
            ("OpSysName", "OPSYSNAME"),
            ("OpSysLongName", "OPSYSLONGNAME"),
            ("OpSysShortName", "OPSYSSHORTNAME"),
            ("OpSysLegacy", "OPSYSLEGACY"),
            ("UtsnameSysname", "UTSNAME_SYSNAME"),
            ("UtsnameNodename", "UTSNAME_NODENAME"),
            ("UtsnameRelease", "UTSNAME_RELEASE"),
            ("UtsnameVersion", "UTSNAME_VERSION"),
            ("UtsnameMachine", "UTSNAME_MACHINE"),
        ] {
            if let Some(v) = cfg.string(knob)? {
                put(attr, Expr::lit(v));
            }
        }
        let cpu = (probe.cpuinfo)()
            .map(|t| CpuInfo::parse(&t))
            .unwrap_or_default();
        for f in &cpu.flags {
            put(&format!("has_{f}"), Expr::lit(true));
        }
        if let Some(m) = cpu.model {
            put("CpuModelNumber", Expr::lit(m));
        }
        if let Some(f) = cpu.family {
            put("CpuFamily", Expr::lit(f));
        }
        if let Some(c) = cpu.cache {
            put("CpuCacheSize", Expr::lit(c));
        }
        if let Some(m) = &cpu.microarch {
            put("Microarch", Expr::lit(m.as_str()));
        }
        Ok(Machine {
            full_hostname,
            name,
            num_cpus,
            detected_cpus,
            phys_mem,
            detected_memory,
            virt_mem,
            disk_from_config,
            reserved_disk,
            recompute_disk,
            static_attrs: attrs,
            keyboard_slots: cfg.int("SLOTS_CONNECTED_TO_KEYBOARD")?.unwrap_or(0),
            console_slots: cfg.int("SLOTS_CONNECTED_TO_CONSOLE")?.unwrap_or(0),
            idle_boost: cfg.int("DISCONNECTED_KEYBOARD_IDLE_BOOST")?.unwrap_or(1200),
            console_devices: cfg.list("CONSOLE_DEVICES")?,
        })
    }

    /// Total KiB for a slot whose execute directory is on the file system `free` describes:
    /// `DISK`, else the free space less `RESERVED_DISK`.
    pub fn total_disk(&self, free: Option<i64>) -> i64 {
        match self.disk_from_config {
            Some(d) => d,
            None => (free.unwrap_or(0) - self.reserved_disk).max(0),
        }
    }

    /// Inserts the static attributes into `ad`.
    pub fn publish_static(&self, ad: &mut ClassAd) {
        for (n, e) in &self.static_attrs {
            ad.insert(n, e.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuinfo_flags_and_microarch() {
        let text = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\ncache size\t: 36608 KB\nflags\t\t: fpu sse4_1 sse4_2 ssse3 cx16 lahf_lm popcnt avx\n\nprocessor\t: 1\nflags\t\t: other\n";
        let info = CpuInfo::parse(text);
        assert_eq!(info.flags, ["avx", "sse4_1", "sse4_2", "ssse3"]);
        assert_eq!(info.model, Some(85));
        assert_eq!(info.family, Some(6));
        assert_eq!(info.cache, Some(36608));
        if std::env::consts::ARCH == "x86_64" {
            assert_eq!(info.microarch.as_deref(), Some("x86_64-v2"));
        }
    }

    #[test]
    fn machine_inputs() {
        let i = MachineInputs::parse(
            "# a test's machine\nLoadAvg = 1.25\n  keyboardidle=30\nConsoleIdle = soon\nOther = 4\nnonsense\n",
        );
        assert_eq!(
            i,
            MachineInputs {
                load_avg: Some(1.25),
                keyboard_idle: Some(30),
                console_idle: None,
            }
        );
        assert_eq!(
            MachineInputs::read(Path::new("/nonexistent/inputs")),
            MachineInputs::default()
        );
    }

    #[test]
    fn daemon_names() {
        assert_eq!(daemon_name(None, "h.example.org"), "h.example.org");
        assert_eq!(daemon_name(Some("x"), "h.example.org"), "x@h.example.org");
        assert_eq!(daemon_name(Some("x@y"), "h.example.org"), "x@y");
        assert_eq!(daemon_name(Some("H"), "h.example.org"), "h.example.org");
    }

    #[test]
    fn free_disk_of_a_missing_directory_is_its_parents() {
        let dir = tempfile::tempdir().unwrap();
        let a = free_disk(dir.path()).unwrap();
        let b = free_disk(&dir.path().join("not/yet")).unwrap();
        assert_eq!(a.1, b.1);
        assert!(a.0 >= 0);
    }
}
