//! What the tools call: the local schedd, working on the spool directly.
//!
//! There is no schedd daemon yet, so what HTCondor's schedd does when a tool asks it
//! something is done here, in the tool's process, on the queue store: the job counts of
//! `condor_q`'s summary ([`counts`]), the job actions of `condor_rm`, `condor_hold` and
//! `condor_release` with their per-job results, reasons and job event log entries
//! ([`actions`]), and the identity checks both need. A [`Session`] holds what every request
//! needs: the configuration, who is asking, and the time.
//!
//! Who is asking: the OS user running the tool (HTCondor authenticates the same user over
//! its local socket). `CONDORLITE_USER` overrides it and `CONDORLITE_NOW` pins the clock
//! (seconds since the epoch), so that tests and reproducible scripts get stable output.
//! Without a daemon the permission checks are advisory: whoever can write the spool can
//! change it. Queue superusers are `QUEUE_SUPER_USERS` (default `root, condor`); HTCondor
//! also makes the user a personal schedd runs as a superuser, but here no daemon runs as
//! anyone.
//!
//! The schedd's name is `SCHEDD_NAME` (made a full `name@host` as HTCondor makes it) or the
//! host's full name, and its address is shown as a personal pool's shared-port address on
//! the loopback interface, `<127.0.0.1:9618?...`, which is what `condor_q`'s title line
//! shows for a personal HTCondor.

pub mod actions;
pub mod chirp;
pub mod connect;
pub mod counts;
pub mod edit;
pub mod jobattr;
pub mod locate;
pub mod master;
pub mod schedd;
pub mod select;
pub mod submit;
pub mod userlog;

use std::path::PathBuf;

use crate::config::{Config, ConfigError};
use crate::queue::{Queue, QueueError};

/// The environment variable that names the user the tools act as.
pub const USER_ENV: &str = "CONDORLITE_USER";
/// The environment variable that pins the clock (seconds since the epoch).
pub const NOW_ENV: &str = "CONDORLITE_NOW";

/// Why a request could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error("{NOW_ENV} must be a number of seconds since the epoch, not {0:?}")]
    BadNow(String),
    #[error("cannot tell which user is running this tool")]
    NoUser,
}

/// Where a schedd named with `-name` is (see [`Session::locate_schedd`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheddLocation {
    /// The local schedd.
    Local,
    /// The name's host part does not resolve (`<tool>: unknown host <host>`).
    UnknownHost(String),
    /// No such schedd in this pool (`Error: cannot get address of schedd <host>`).
    NotFound(String),
}

/// One tool's view of the local schedd.
#[derive(Debug)]
pub struct Session {
    pub config: Config,
    /// The user making the request (an `Owner`, without domain).
    pub user: String,
    /// The time of the request.
    pub now: i64,
    spool: PathBuf,
    /// How the queue is reached: directly, or through the master ([`schedd::Backend`]).
    backend: schedd::Backend,
    /// The user the master serving this session runs as: a queue superuser, as the schedd
    /// makes its own user one.
    master_user: Option<String>,
}

impl Session {
    /// The session of this process: its configuration, user and clock.
    pub fn from_process() -> Result<Session, ClientError> {
        let config = Config::load()?;
        let user = match std::env::var(USER_ENV) {
            Ok(u) if !u.is_empty() => u,
            _ => os_user().ok_or(ClientError::NoUser)?,
        };
        Session::new(config, user, process_now()?)
    }

    /// A session for the given configuration, user and time.
    pub fn new(config: Config, user: String, now: i64) -> Result<Session, ClientError> {
        let spool = config
            .string("SPOOL")?
            .ok_or_else(|| ConfigError::new("SPOOL is not defined"))?;
        let spool = PathBuf::from(spool);
        let backend = schedd::Backend::choose(&config, &spool)?;
        Ok(Session {
            config,
            user,
            now,
            spool,
            backend,
            master_user: None,
        })
    }

    /// This session as the master's own, or one it serves a tool with: the master writes
    /// its queue directly, whatever the tools' backend.
    pub fn direct(mut self) -> Session {
        self.backend = schedd::Backend::Direct;
        self
    }

    /// This session as the master running as `user` serves it (see [`Session::is_superuser`]).
    pub fn served_by(mut self, user: Option<String>) -> Session {
        self.master_user = user;
        self
    }

    pub fn spool(&self) -> &std::path::Path {
        &self.spool
    }

    pub fn backend(&self) -> schedd::Backend {
        self.backend
    }

    /// Opens the queue, its transactions stamped with the session's time: read-only when the
    /// master serves this session's changes (a system pool's spool is the master's).
    pub fn open_queue(&self) -> Result<Queue, QueueError> {
        let mut queue = match self.backend {
            schedd::Backend::Direct => Queue::open(&self.spool)?,
            schedd::Backend::Master => Queue::open_read_only(&self.spool)?,
        };
        let now = self.now;
        queue.set_clock(move || now);
        Ok(queue)
    }

    /// Whether `user` is a queue superuser (`QUEUE_SUPER_USERS`, and the user of the master
    /// serving the session).
    pub fn is_superuser(&self, user: &str) -> bool {
        if self.master_user.as_deref() == Some(user) {
            return true;
        }
        let list = self
            .config
            .string("QUEUE_SUPER_USERS")
            .ok()
            .flatten()
            .unwrap_or_else(|| "root, condor".to_owned());
        let domain = self.uid_domain();
        list.split([',', ' ', '\t'])
            .filter(|s| !s.is_empty())
            .any(|s| {
                s == user
                    || domain
                        .as_deref()
                        .is_some_and(|d| s == format!("{user}@{d}"))
            })
    }

    /// Whether the session's user is a queue superuser.
    pub fn user_is_superuser(&self) -> bool {
        self.is_superuser(&self.user)
    }

    /// Whether the session's user may act on a job owned by `owner` (`UserCheck2`).
    pub fn may_act_on(&self, owner: Option<&str>) -> bool {
        self.user_is_superuser() || owner == Some(self.user.as_str())
    }

    pub fn uid_domain(&self) -> Option<String> {
        self.config.string("UID_DOMAIN").ok().flatten()
    }

    /// The host's full name.
    pub fn full_hostname(&self) -> String {
        self.config
            .string("FULL_HOSTNAME")
            .ok()
            .flatten()
            .unwrap_or_else(|| "localhost".to_owned())
    }

    /// The schedd's name: `SCHEDD_NAME` as `build_valid_daemon_name` completes it, or the
    /// host's full name.
    pub fn schedd_name(&self) -> String {
        let host = self.full_hostname();
        match self.config.string("SCHEDD_NAME").ok().flatten() {
            Some(name) if name.contains('@') => name,
            Some(name) if !name.is_empty() => {
                let short = host.split('.').next().unwrap_or(&host);
                if name.eq_ignore_ascii_case(&host) || name.eq_ignore_ascii_case(short) {
                    host
                } else {
                    format!("{name}@{host}")
                }
            }
            _ => host,
        }
    }

    /// Whether `name` (a `-name` argument) names this schedd: its name, the host's full or
    /// short name, or `localhost` (so that the local schedd is found without DNS), as HTCondor
    /// finds a schedd by `get_daemon_name` and then its ad in the collector.
    pub fn is_local_schedd(&self, name: &str) -> bool {
        let schedd = self.schedd_name();
        let host = self.full_hostname();
        let short = host.split('.').next().unwrap_or(&host).to_owned();
        let name = name.trim();
        [schedd.as_str(), host.as_str(), short.as_str(), "localhost"]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
            || name
                .rsplit_once('@')
                .is_some_and(|(_, h)| h.eq_ignore_ascii_case(&host) && name == schedd)
    }

    /// Finds the schedd a tool's `-name` asks for. There is one schedd, this one: any other
    /// name is a host that cannot be resolved (`get_daemon_name` fails) or a schedd the pool
    /// does not have (the collector query finds no ad).
    pub fn locate_schedd(&self, name: &str) -> ScheddLocation {
        if self.is_local_schedd(name) {
            return ScheddLocation::Local;
        }
        let host = name.rsplit('@').next().unwrap_or(name).to_owned();
        match daemon_name(name, &self.config) {
            None => ScheddLocation::UnknownHost(host),
            Some(full) if full.eq_ignore_ascii_case(&self.schedd_name()) => ScheddLocation::Local,
            Some(_) => ScheddLocation::NotFound(host),
        }
    }

    /// The schedd's address as `condor_q` shows it (`summarize_sinful_for_display`).
    pub fn schedd_address(&self) -> String {
        let port = self
            .config
            .int("SHARED_PORT_PORT")
            .ok()
            .flatten()
            .unwrap_or(9618);
        format!("<127.0.0.1:{port}?...")
    }
}

/// The schedd's address as the job event log gives it (`daemonCore->privateNetworkIpAddr()`:
/// the submit event's host, and the execute event's of a scheduler-universe job): a personal
/// pool's shared port on the loopback interface.
pub fn schedd_sinful(config: &Config) -> String {
    let port = config
        .int("SHARED_PORT_PORT")
        .ok()
        .flatten()
        .unwrap_or(9618);
    format!("<127.0.0.1:{port}?addrs=127.0.0.1-{port}&noUDP&sock=schedd>")
}

/// The name of the OS user running this process.
pub fn os_user() -> Option<String> {
    nix::unistd::User::from_uid(nix::unistd::getuid())
        .ok()
        .flatten()
        .map(|u| u.name)
}

/// `get_daemon_name`: a name with `@` or `.` as it is, else the host's full name (from DNS, or
/// with `DEFAULT_DOMAIN_NAME`); `None` when it has none.
pub fn daemon_name(name: &str, config: &Config) -> Option<String> {
    if name.contains('@') || name.contains('.') {
        return Some(name.to_owned());
    }
    let no_dns = config.bool("NO_DNS").ok().flatten().unwrap_or(false);
    if !no_dns {
        if let Some(fqdn) = canonical_name(name).filter(|n| n.contains('.')) {
            return Some(fqdn);
        }
    }
    let domain = config
        .string("DEFAULT_DOMAIN_NAME")
        .ok()
        .flatten()
        .filter(|d| !d.is_empty())?;
    let mut fqdn = name.to_owned();
    if !fqdn.ends_with('.') {
        fqdn.push('.');
    }
    fqdn.push_str(&domain);
    Some(fqdn)
}

/// The canonical name `getaddrinfo` gives a host name.
fn canonical_name(host: &str) -> Option<String> {
    use nix::libc;
    let c_host = std::ffi::CString::new(host).ok()?;
    // SAFETY: a zeroed addrinfo is a valid "no hints" value; we set only the flags.
    let mut hints: libc::addrinfo = unsafe { std::mem::zeroed() };
    hints.ai_flags = libc::AI_CANONNAME;
    let mut res: *mut libc::addrinfo = std::ptr::null_mut();
    // SAFETY: the strings are NUL-terminated, and `res` receives a list we free below.
    let rc = unsafe { libc::getaddrinfo(c_host.as_ptr(), std::ptr::null(), &hints, &mut res) };
    if rc != 0 || res.is_null() {
        return None;
    }
    // SAFETY: getaddrinfo succeeded, so `res` points at a valid list until freed.
    let name = unsafe {
        let canon = (*res).ai_canonname;
        let name = (!canon.is_null()).then(|| {
            std::ffi::CStr::from_ptr(canon)
                .to_string_lossy()
                .into_owned()
        });
        libc::freeaddrinfo(res);
        name
    };
    name
}

/// The time of this process's request: `CONDORLITE_NOW` when set (tests pin it), else the
/// system clock.
pub fn process_now() -> Result<i64, ClientError> {
    match std::env::var(NOW_ENV) {
        Ok(s) => s.trim().parse().map_err(|_| ClientError::BadNow(s)),
        Err(_) => Ok(system_now()),
    }
}

pub fn system_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
