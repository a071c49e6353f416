//! What the configuration learns from the machine it runs on: HTCondor's "detected" knobs
//! (`ARCH`, `OPSYS`, `DETECTED_CPUS`, `DETECTED_MEMORY`, `FULL_HOSTNAME`, `USERNAME`, ...), with
//! the values HTCondor's `sysapi` gives them.

use std::net::{IpAddr, UdpSocket};
use std::sync::{Arc, OnceLock};

/// A fact looked up the first time it is asked for, once (clones share the answer). The
/// lookups behind `TILDE` and `DETECTED_PHYSICAL_CPUS` cost more than reading the rest of a
/// configuration, and most programs never read those knobs.
#[derive(Clone)]
pub struct Lazy<T> {
    cell: Arc<OnceLock<T>>,
    probe: Option<fn() -> T>,
}

impl<T> Lazy<T> {
    /// A fact looked up by `probe` when first needed.
    pub fn probe(probe: fn() -> T) -> Lazy<T> {
        Lazy {
            cell: Arc::new(OnceLock::new()),
            probe: Some(probe),
        }
    }

    /// A fact already known (a made-up machine in tests and simulations).
    pub fn known(value: T) -> Lazy<T> {
        Lazy {
            cell: Arc::new(OnceLock::from(value)),
            probe: None,
        }
    }

    pub fn get(&self) -> &T {
        self.cell.get_or_init(|| match self.probe {
            Some(probe) => probe(),
            None => unreachable!("a known fact is set when it is made"),
        })
    }
}

impl<T: Default> Default for Lazy<T> {
    fn default() -> Lazy<T> {
        Lazy::known(T::default())
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.cell.get() {
            Some(value) => value.fmt(f),
            None => f.write_str("<not looked up yet>"),
        }
    }
}

/// The detected facts, each as the knob it becomes.
#[derive(Clone, Debug, Default)]
pub struct Machine {
    /// Knobs set before any configuration file is read, in order.
    pub early: Vec<(&'static str, String)>,
    /// The host name as the system reports it.
    pub hostname: String,
    pub username: Option<String>,
    pub uid: u32,
    pub gid: u32,
    pub pid: u32,
    pub ppid: u32,
    /// The home directory of the user `condor`, if there is one.
    pub tilde: Lazy<Option<String>>,
    pub ipv4: Option<IpAddr>,
    pub physical_cpus: Lazy<usize>,
    pub hyperthread_cpus: usize,
}

fn uname() -> Option<nix::sys::utsname::UtsName> {
    nix::sys::utsname::uname().ok()
}

/// `/etc/os-release` as key/value pairs (unquoted).
fn os_release() -> Vec<(String, String)> {
    let text = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.trim_matches('"').to_owned()))
        .collect()
}

/// HTCondor's architecture names (`sysapi_condor_arch`).
fn condor_arch(machine: &str) -> String {
    match machine {
        "x86_64" | "amd64" => "X86_64".into(),
        "i386" | "i486" | "i586" | "i686" => "INTEL".into(),
        "arm64" => "aarch64".into(),
        other => other.into(),
    }
}

fn condor_opsys(sysname: &str) -> String {
    match sysname {
        "Linux" => "LINUX".into(),
        "Darwin" => "MACOSX".into(),
        "FreeBSD" => "FREEBSD".into(),
        other => other.to_ascii_uppercase(),
    }
}

/// The logical processor count.
fn logical_cpus() -> usize {
    nix::unistd::sysconf(nix::unistd::SysconfVar::_NPROCESSORS_ONLN)
        .ok()
        .flatten()
        .map(|n| n.max(1) as usize)
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
}

/// The physical processor (core) count, from `/proc/cpuinfo`.
fn physical_cpus() -> usize {
    let logical = logical_cpus();
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .map(|info| {
            let mut cores = std::collections::HashSet::new();
            let (mut phys, mut core) = (None, None);
            for line in info.lines().chain(std::iter::once("")) {
                if line.trim().is_empty() {
                    if let (Some(p), Some(c)) = (phys.take(), core.take()) {
                        cores.insert((p, c));
                    }
                    continue;
                }
                if let Some((k, v)) = line.split_once(':') {
                    match k.trim() {
                        "physical id" => phys = Some(v.trim().to_owned()),
                        "core id" => core = Some(v.trim().to_owned()),
                        _ => {}
                    }
                }
            }
            cores.len()
        })
        .filter(|&n| n > 0 && n <= logical)
        .unwrap_or(logical)
}

/// The home directory of the user `condor` (HTCondor's `TILDE`).
fn condor_home() -> Option<String> {
    nix::unistd::User::from_name("condor")
        .ok()
        .flatten()
        .map(|u| u.dir.to_string_lossy().into_owned())
}

/// Physical memory in MiB.
fn memory_mib() -> u64 {
    let pages = nix::unistd::sysconf(nix::unistd::SysconfVar::_PHYS_PAGES)
        .ok()
        .flatten()
        .unwrap_or(0);
    let size = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .unwrap_or(4096);
    (pages.max(0) as u64 * size.max(0) as u64) / (1024 * 1024)
}

/// The address other machines would reach us by: the one the system would send from.
fn public_ipv4() -> Option<IpAddr> {
    let socket = UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified()).then_some(ip)
}

impl Machine {
    /// Looks at this machine.
    pub fn detect() -> Machine {
        let uts = uname();
        let field = |f: fn(&nix::sys::utsname::UtsName) -> &std::ffi::OsStr| {
            uts.as_ref()
                .map(|u| f(u).to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let sysname = field(|u| u.sysname());
        let machine = field(|u| u.machine());
        let release = os_release();
        let os = |key: &str| {
            release
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        let opsys = condor_opsys(&sysname);
        let mut early: Vec<(&'static str, String)> = vec![
            ("ARCH", condor_arch(&machine)),
            ("UNAME_ARCH", machine.clone()),
            ("OPSYS", opsys.clone()),
        ];
        let name = os("NAME").map(|n| n.split_whitespace().next().unwrap_or("").to_owned());
        let version = os("VERSION_ID").unwrap_or_default();
        let mut vparts = version.split('.');
        let major: u32 = vparts.next().and_then(|v| v.parse().ok()).unwrap_or(0);
        let minor: u32 = vparts.next().and_then(|v| v.parse().ok()).unwrap_or(0);
        if major > 0 {
            early.push(("OPSYSVER", (major * 100 + minor).to_string()));
        }
        if let Some(name) = &name {
            early.push(("OPSYSANDVER", format!("{name}{major}")));
        }
        early.push(("UNAME_OPSYS", sysname.clone()));
        if major > 0 {
            early.push(("OPSYSMAJORVER", major.to_string()));
        }
        if let Some(name) = &name {
            early.push(("OPSYSNAME", name.clone()));
            let long = os("PRETTY_NAME")
                .map(|p| p.split(" (").next().unwrap_or(&p).to_owned())
                .unwrap_or_else(|| name.clone());
            early.push(("OPSYSLONGNAME", long));
            early.push(("OPSYSSHORTNAME", name.clone()));
        }
        early.push(("OPSYSLEGACY", opsys));
        for (knob, value) in [
            ("UTSNAME_SYSNAME", sysname),
            ("UTSNAME_NODENAME", field(|u| u.nodename())),
            ("UTSNAME_RELEASE", field(|u| u.release())),
            ("UTSNAME_VERSION", field(|u| u.version())),
            ("UTSNAME_MACHINE", machine),
        ] {
            early.push((knob, value));
        }
        let uid = nix::unistd::getuid();
        early.push((
            "CondorIsAdmin",
            if uid.is_root() { "true" } else { "false" }.into(),
        ));
        let username = nix::unistd::User::from_uid(uid)
            .ok()
            .flatten()
            .map(|u| u.name);
        let hostname = nix::unistd::gethostname()
            .ok()
            .map(|h| h.to_string_lossy().into_owned())
            .unwrap_or_else(|| "localhost".into());
        let mut m = Machine {
            early,
            hostname,
            username,
            uid: uid.as_raw(),
            gid: nix::unistd::getgid().as_raw(),
            pid: std::process::id(),
            ppid: std::os::unix::process::parent_id(),
            tilde: Lazy::probe(condor_home),
            ipv4: public_ipv4(),
            physical_cpus: Lazy::probe(physical_cpus),
            hyperthread_cpus: logical_cpus(),
        };
        m.early.push(("DETECTED_MEMORY", memory_mib().to_string()));
        m
    }

    /// The fully qualified host name, completed with `DEFAULT_DOMAIN_NAME` when the system's
    /// name has no domain.
    pub fn full_hostname(&self, default_domain: Option<&str>) -> String {
        match default_domain {
            Some(domain) if !self.hostname.contains('.') && !domain.is_empty() => {
                format!("{}.{}", self.hostname, domain.trim_start_matches('.'))
            }
            _ => self.hostname.clone(),
        }
    }

    /// The host name without its domain.
    pub fn short_hostname(&self) -> String {
        self.hostname
            .split('.')
            .next()
            .unwrap_or_default()
            .to_owned()
    }

    /// `DETECTED_CPUS_LIMIT` when `OMP_THREAD_LIMIT` or `SLURM_CPUS_ON_NODE` ask for fewer
    /// processors than `detected` (counted only when one of them is set).
    pub fn cpus_limit(
        detected: impl FnOnce() -> usize,
        env: &super::load::Environment,
    ) -> Option<usize> {
        let limit = ["OMP_THREAD_LIMIT", "SLURM_CPUS_ON_NODE"]
            .iter()
            .filter_map(|v| env.get(v).and_then(|s| s.trim().parse::<usize>().ok()))
            .filter(|&n| n > 0)
            .min()?;
        (limit < detected()).then_some(limit)
    }
}
