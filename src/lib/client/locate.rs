//! Where `-pool` and `-addr` point: this pool, or somewhere condorlite cannot go.
//!
//! HTCondor's tools find daemons through a collector: `-pool host[:port]` names the central
//! manager to ask (`DCCollector`, which fails at once with `unknown host <host>` when the host
//! does not resolve), and `-addr <ip:port>` names a daemon by its "sinful string",
//! bypassing the collector (`is_valid_sinful` checks the form first). One host runs one
//! condorlite pool, so a `-pool` that names this host (its full or short name, `localhost`, a
//! loopback or the host's own address, the configured `COLLECTOR_HOST`/`CONDOR_HOST`) and an
//! `-addr` at this pool's address (`127.0.0.1` or the host, at `SHARED_PORT_PORT`) reach it;
//! anything else is a central manager or daemon that does not answer, and each tool reports
//! it as HTCondor reports a collector it cannot contact.

use std::net::{IpAddr, ToSocketAddrs};

use super::Session;
use crate::config::Config;

/// The port a collector listens on when `-pool` gives none (`COLLECTOR_PORT`'s default).
const COLLECTOR_PORT: u16 = 9618;

/// Where a `-pool` argument points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolLocation {
    /// This host's pool.
    Local,
    /// The host does not resolve (DCCollector's `unknown host <host>`).
    UnknownHost(String),
    /// A central manager on another host, which condorlite cannot contact.
    Elsewhere(String),
}

/// The host part of `host[:port]`, `<host:port?...>` or `name@host`.
pub fn host_part(target: &str) -> &str {
    let t = target.trim();
    let t = t.strip_prefix('<').map_or(t, |t| t.trim_end_matches('>'));
    let t = t.rsplit('@').next().unwrap_or(t);
    let t = t.split('?').next().unwrap_or(t);
    match t.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        _ => t,
    }
}

/// HTCondor's `is_valid_sinful`: `<host:port>`, with an optional `?params` part.
pub fn is_valid_sinful(addr: &str) -> bool {
    let Some(inner) = addr.strip_prefix('<').and_then(|a| a.strip_suffix('>')) else {
        return false;
    };
    let inner = inner.split('?').next().unwrap_or(inner);
    let Some((host, port)) = inner.rsplit_once(':') else {
        return false;
    };
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    !host.is_empty()
        && port.parse::<u16>().is_ok()
        && (host.parse::<IpAddr>().is_ok()
            || host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'))
}

/// The host's full name (`FULL_HOSTNAME`).
fn full_hostname(config: &Config) -> String {
    config
        .string("FULL_HOSTNAME")
        .ok()
        .flatten()
        .unwrap_or_else(|| "localhost".to_owned())
}

/// The names this host's pool answers to as a central manager.
fn local_host_names(config: &Config) -> Vec<String> {
    let full = full_hostname(config);
    let short = full.split('.').next().unwrap_or(&full).to_owned();
    let mut names = vec![full.clone(), short, "localhost".to_owned()];
    for knob in ["COLLECTOR_HOST", "CONDOR_HOST"] {
        if let Ok(Some(v)) = config.string(knob) {
            let host = host_part(&v).to_owned();
            if !host.is_empty() && !host.contains('$') {
                names.push(host);
            }
        }
    }
    names
}

/// Whether `host` is this host: one of its names, or an address of it.
pub fn is_this_host(config: &Config, host: &str) -> bool {
    if local_host_names(config)
        .iter()
        .any(|n| n.eq_ignore_ascii_case(host))
    {
        return true;
    }
    let addrs = |h: &str| -> Vec<IpAddr> {
        (h, COLLECTOR_PORT)
            .to_socket_addrs()
            .map(|it| it.map(|a| a.ip()).collect())
            .unwrap_or_default()
    };
    let theirs = addrs(host);
    if theirs.iter().any(|ip| ip.is_loopback()) {
        return true;
    }
    let ours = addrs(&full_hostname(config));
    theirs.iter().any(|ip| ours.contains(ip))
}

/// Where `-pool pool` points.
pub fn locate_pool(config: &Config, pool: &str) -> PoolLocation {
    let host = host_part(pool);
    if is_this_host(config, host) {
        return PoolLocation::Local;
    }
    if (host, COLLECTOR_PORT).to_socket_addrs().is_err() {
        return PoolLocation::UnknownHost(host.to_owned());
    }
    PoolLocation::Elsewhere(pool.trim().to_owned())
}

/// Whether `-addr addr` (a valid sinful string) is this pool's schedd: this host at the
/// pool's port.
pub fn is_local_address(config: &Config, addr: &str) -> bool {
    let inner = addr.trim_start_matches('<').trim_end_matches('>');
    let inner = inner.split('?').next().unwrap_or(inner);
    let Some((host, port)) = inner.rsplit_once(':') else {
        return false;
    };
    let pool_port = config
        .int("SHARED_PORT_PORT")
        .ok()
        .flatten()
        .unwrap_or(i64::from(COLLECTOR_PORT));
    port.parse::<i64>().ok() == Some(pool_port) && is_this_host(config, host)
}

impl Session {
    /// Where `-pool pool` points (see [`locate_pool`]).
    pub fn locate_pool(&self, pool: &str) -> PoolLocation {
        locate_pool(&self.config, pool)
    }

    /// Whether `-addr addr` is this pool's schedd (see [`is_local_address`]).
    pub fn is_local_address(&self, addr: &str) -> bool {
        is_local_address(&self.config, addr)
    }
}

/// What condor_q and condor_status say of a `-pool` host that does not resolve (DCCollector's
/// error, then, unless `-expert`, a blank line on stdout and the wrapped "Extra Info").
pub fn report_unknown_pool_host(
    host: &str,
    expert: bool,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) {
    let _ = writeln!(err, "Error: unknown host {host}");
    if !expert {
        let _ = writeln!(out);
        let _ = err.write_all(
            crate::output::wrapped_text(
                "Extra Info: You specified a hostname for a pool (the -pool argument). That \
                 should be the Internet host name for the central manager of the pool, but it \
                 does not seem to be a valid hostname. (The DNS lookup failed.)",
                78,
            )
            .as_bytes(),
        );
    }
}

/// HTCondor's `printNoCollectorContact` (error_utils.cpp): the first line, and with
/// `verbose` the two wrapped "Extra Info" paragraphs.
pub fn no_collector_contact(host: &str, verbose: bool) -> String {
    use crate::output::wrapped_text;
    let mut text = wrapped_text(
        &format!("Error: Couldn't contact the condor_collector on {host}."),
        78,
    );
    if verbose {
        text.push('\n');
        text.push_str(&wrapped_text(
            "Extra Info: the condor_collector is a process that runs on the central manager \
             of your Condor pool and collects the status of all the machines and jobs in the \
             Condor pool. The condor_collector might not be running, it might be refusing to \
             communicate with you, there might be a network problem, or there may be some \
             other problem. Check with your system administrator to fix this problem.",
            78,
        ));
        text.push('\n');
        text.push_str(&wrapped_text(
            &format!(
                "If you are the system administrator, check that the condor_collector is \
                 running on {host}, check the ALLOW/DENY configuration in your condor_config, \
                 and check the MasterLog and CollectorLog files in your log directory for \
                 possible clues as to why the condor_collector is not responding. Also see \
                 the Troubleshooting section of the manual."
            ),
            78,
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinful_strings() {
        for good in [
            "<127.0.0.1:9618>",
            "<10.0.0.1:1?sock=x>",
            "<host.example:80>",
        ] {
            assert!(is_valid_sinful(good), "{good}");
        }
        for bad in [
            "127.0.0.1:9618",
            "<127.0.0.1>",
            "<:9618>",
            "<h:port>",
            "<h:1",
        ] {
            assert!(!is_valid_sinful(bad), "{bad}");
        }
    }

    #[test]
    fn host_parts() {
        assert_eq!(host_part("cm.example.org:9618"), "cm.example.org");
        assert_eq!(host_part("<127.0.0.1:9618?sock=x>"), "127.0.0.1");
        assert_eq!(host_part("schedd@host"), "host");
        assert_eq!(host_part("host"), "host");
    }
}
