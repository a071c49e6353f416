//! `condor_userlog`: what the runs in job event logs came to, per run, per execute host and
//! per job, as HTCondor 24.0's src/condor_userlog/userlog.cpp summarises them.
//!
//! - The words are read left to right by their second character, as userlog.cpp's `main`
//!   does: `-t…` totals only, `-r…` raw (the runs, no summary), `-d…` debug (notes on
//!   stderr), `-e…` evictions only, `-j C[.P]` the runs of one cluster or job, `-a…` all
//!   again, `-ho…` host names for addresses, any other `-h…` the usage (exit 0); an unknown
//!   option the usage on stderr, exit 1. Other words are logs, each read with the options
//!   given before it. No words at all: the usage, exit 1.
//! - A run is an execute event (001) and what ended it: a termination (005; its run's
//!   remote CPU time), an eviction (004; its good time is up to its checkpoint, or to the
//!   last 003 event, else none), an executable error (002), a failed reconnect (024) or a
//!   shadow exception (007). Each run prints a line (unless `-t`) under a header printed
//!   once; then the summary: per execute host (by address), per job (by id), and the total,
//!   with the average allocation, the average time lost per run that ended before its good
//!   time, the goodput (good/wall) and the CPU utilisation (CPU/good).
//! - A log that cannot be read: `Can't access file: F (errno=N)` on stderr, and the next
//!   word; a log that is not an event log: `Error: unable to read log file.`, exit 0.
//!
//! HTCondor 24.0's summary per job and its total line are all zeros: `new_record` updates a
//! copy of the job's statistics, not the statistics (`auto js = jit->second;`). condorlite
//! adds the runs up, which is what the columns say.

use std::collections::BTreeMap;
use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::config::Config;
use crate::error::CommandError;
use crate::eventlog::{read_events, Event, EventBody, Eviction, Rusage};
use crate::output::time::{format_date, format_time_nosecs};

pub const TOOL: Tool = Tool {
    name: "condor_userlog",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // Matched here by their second character, as userlog.cpp's main() does.
        unknown: Unknown::Verbatim,
    },
    usage_status: 1,
    run,
};

const NAME: &str = "condor_userlog";

pub fn command() -> Command {
    Command::new(NAME)
        .about("Summarise the runs recorded in job event logs")
        .long_about(
            "Read job event logs and print each run of each job (host, start, end, wall \
             time, good time, CPU usage), then a summary per execute host, per job and in \
             total. Options apply to the logs named after them and are recognised by their \
             second character (-t, -r, -d, -e, -j, -a, -ho, -h).",
        )
        .after_help("Exit status: 0, also when a log cannot be read; 1 for a bad command line.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("help", "This message"))
        .arg(flag("total", "Only display job totals"))
        .arg(flag("raw", "Display raw data only"))
        .arg(flag("debug", "Debug mode"))
        .arg(
            Arg::new("j")
                .short('j')
                .value_name("cluster[.proc]")
                .help("Select a specific cluster or cluster.proc"),
        )
        .arg(flag(
            "evict",
            "Select only allocations which ended due to eviction",
        ))
        .arg(flag("all", "Select all clusters and all allocations"))
        .arg(flag("hostname", "Display hostname instead of IP address"))
        .arg(
            Arg::new("logfile")
                .value_name("logfile")
                .action(ArgAction::Append)
                .help("Job event logs to read"),
        )
}

fn flag(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .action(ArgAction::SetTrue)
        .help(help)
}

fn usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "usage: {NAME} [-total | -raw] [-debug] [-evict] [-j cluster[.proc]] [-all] [-hostname] \
         logfile ...\n\
         \t-help\t\tThis message\n\
         \t-total\t\tOnly display job totals\n\
         \t-raw\t\tDisplay raw data only\n\
         \t-debug\t\tDebug mode\n\
         \t-j\t\tSelect a specific cluster or cluster.proc\n\
         \t-evict\t\tSelect only allocations which ended due to eviction\n\
         \t-all\t\tSelect all clusters and all allocations\n\
         \t-hostname\tDisplay hostname instead of IP address\n"
    );
}

/// The options in force when a log is read.
#[derive(Clone, Copy, Debug, Default)]
struct Options {
    totals_only: bool,
    debug: bool,
    evict_only: bool,
    raw: bool,
    host_names: bool,
    cluster: Option<i32>,
    proc: Option<i32>,
}

/// The runs of one job or one host, added up.
#[derive(Clone, Debug, Default)]
struct Totals {
    allocations: i64,
    kills: i64,
    wall: i64,
    good: i64,
    cpu: i64,
}

impl Totals {
    fn add(&mut self, wall: i64, good: i64, cpu: i64) {
        self.allocations += 1;
        self.kills += i64::from(wall != good);
        self.wall += wall;
        self.good += good;
        self.cpu += cpu;
    }

    /// The summary columns after the name: `%9.9s ` five times, then `%6.1f%% %5.1f%%`.
    fn columns(&self) -> String {
        let avg = |total: i64, n: i64| {
            if n > 0 {
                format_time_nosecs(total / n)
            } else {
                "0+00:00".to_owned()
            }
        };
        let pct = |a: i64, b: i64| {
            if b != 0 {
                a as f64 / b as f64 * 100.0
            } else {
                0.0
            }
        };
        format!(
            "{:>9.9} {:>9.9} {:>9.9} {:>9.9} {:>9.9} {:6.1}% {:5.1}%",
            format_time_nosecs(self.wall),
            format_time_nosecs(self.good),
            format_time_nosecs(self.cpu),
            avg(self.wall, self.allocations),
            avg(self.wall - self.good, self.kills),
            pct(self.good, self.wall),
            pct(self.cpu, self.good)
        )
    }
}

/// Everything read so far.
#[derive(Default)]
struct Summary {
    jobs: BTreeMap<(i32, i32), Totals>,
    /// By address; with the name shown for it.
    hosts: BTreeMap<String, (String, Totals)>,
    header_printed: bool,
}

fn cpu_secs(u: &Rusage) -> i64 {
    u.user_secs + u.sys_secs
}

/// The address part of an execute host (`<127.0.0.1:9618?...>` → `127.0.0.1`), as userlog.cpp
/// cuts it: from the second character to the first colon.
fn host_address(host: &str) -> String {
    let rest = host.get(1..).unwrap_or_default();
    rest.split(':')
        .next()
        .unwrap_or_default()
        .chars()
        .take(127)
        .collect()
}

/// The name shown for an address with `-hostname`: this host's name for one of its own
/// addresses (condorlite's execute hosts are all this host), else the address.
fn host_name(config: &Config, address: &str) -> String {
    let ip: Option<std::net::IpAddr> = address.parse().ok();
    let own = ip.is_some_and(|ip| {
        ip.is_loopback()
            || crate::client::locate::is_this_host(config, address)
            || config
                .string("NETWORK_INTERFACE")
                .ok()
                .flatten()
                .is_some_and(|n| n == address)
    });
    if own {
        config
            .string("FULL_HOSTNAME")
            .ok()
            .flatten()
            .unwrap_or_else(|| address.to_owned())
    } else {
        address.to_owned()
    }
}

impl Summary {
    /// `new_record`: one run.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        o: &Options,
        config: &Config,
        (cluster, proc): (i32, i32),
        start: i64,
        end: i64,
        good: i64,
        cpu: i64,
        host: &str,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) {
        let wall = end - start;
        if wall < 0 || good < 0 || cpu < 0 {
            if o.debug {
                let _ = write!(
                    err,
                    "internal error: negative time computed for {cluster}.{proc}!\n  (records \
                     around the turn of the year are not handled correctly)\n"
                );
            }
            return;
        }
        self.jobs
            .entry((cluster, proc))
            .or_default()
            .add(wall, good, cpu);
        let address = host_address(host);
        let (shown, totals) = self.hosts.entry(address.clone()).or_insert_with(|| {
            let shown = if o.host_names {
                host_name(config, &address)
            } else {
                address.clone()
            };
            (shown, Totals::default())
        });
        totals.add(wall, good, cpu);
        if o.totals_only {
            return;
        }
        if !o.raw && !self.header_printed {
            let _ = write!(
                out,
                "\n{:<8.8} {:<15.15} {:<11.11} {:<11.11} {:>9} {:>9} {:>9}\n",
                "Job", "Host", "Start Time", "Evict Time", "Wall Time", "Good Time", "CPU Usage"
            );
            self.header_printed = true;
        }
        let _ = writeln!(
            out,
            "{:<8.8} {:<15.15} {:>11} {:>11} {:>9} {:>9} {:>9}",
            format!("{cluster}.{proc}"),
            shown,
            format_date(start),
            format_date(end),
            format_time_nosecs(wall),
            format_time_nosecs(good),
            format_time_nosecs(cpu)
        );
    }

    /// `read_log`: the runs of one log.
    fn read(
        &mut self,
        o: &Options,
        config: &Config,
        events: &[Event],
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) {
        // The open run of each job: its execute event's time and host.
        let mut running: BTreeMap<(i32, i32), (i64, String)> = BTreeMap::new();
        // The last checkpoint of each job: its time and CPU usage.
        let mut checkpoints: BTreeMap<(i32, i32), (i64, i64)> = BTreeMap::new();
        let debug = |err: &mut dyn Write, text: String| {
            if o.debug {
                let _ = writeln!(err, "{text}");
            }
        };
        for e in events {
            if o.cluster.is_some_and(|c| c != e.cluster) || o.proc.is_some_and(|p| p != e.proc) {
                continue;
            }
            let id = (e.cluster, e.proc);
            let hash = format!("{}.{}", e.cluster, e.proc);
            let t = e.time.timestamp();
            // The run an ending event ends, and the good time and CPU of one that ended
            // without its own checkpoint.
            let mut take_run = |what: &str, err: &mut dyn Write| {
                let run = running.remove(&id);
                if run.is_none() {
                    debug(
                        err,
                        format!("internal error: can't find execute event for {what}{hash}!"),
                    );
                }
                run
            };
            let last_checkpoint = |start: i64| match checkpoints.get(&id) {
                Some(&(at, cpu)) if at >= start => (at - start, cpu),
                _ => (0, 0),
            };
            match &e.body {
                EventBody::Execute(x) => {
                    if let Some((_, host)) = running.get(&id) {
                        if *host == x.execute_host {
                            debug(
                                err,
                                format!(
                                    "warning: discarding execute event (job {hash})\n  found \
                                     before evict or termination event for previous execute \
                                     event."
                                ),
                            );
                            continue;
                        }
                        debug(
                            err,
                            format!(
                                "warning: discarding execute event (job {hash})\n  with no \
                                 corresponding evict or termination event."
                            ),
                        );
                    }
                    running.insert(id, (t, x.execute_host.clone()));
                }
                EventBody::Checkpointed(c) => {
                    checkpoints.insert(id, (t, cpu_secs(&c.run_remote_usage)));
                }
                EventBody::JobEvicted(ev) => {
                    let Some((start, host)) = take_run("evicted job ", err) else {
                        continue;
                    };
                    let (good, cpu) = if ev.kind == Eviction::Checkpointed {
                        (t - start, cpu_secs(&ev.run_remote_usage))
                    } else {
                        last_checkpoint(start)
                    };
                    self.record(o, config, id, start, t, good, cpu, &host, out, err);
                }
                EventBody::JobTerminated(term) => {
                    let Some((start, host)) = take_run("terminated job ", err) else {
                        continue;
                    };
                    if !o.evict_only {
                        let cpu = cpu_secs(&term.run_remote_usage);
                        self.record(o, config, id, start, t, t - start, cpu, &host, out, err);
                    }
                }
                EventBody::ExecutableError(_)
                | EventBody::JobReconnectFailed(_)
                | EventBody::ShadowException(_) => {
                    let Some((start, host)) = take_run("job ", err) else {
                        continue;
                    };
                    if !o.evict_only {
                        let (good, cpu) = last_checkpoint(start);
                        self.record(o, config, id, start, t, good, cpu, &host, out, err);
                    }
                }
                _ => {}
            }
        }
    }

    /// `display_stats`.
    fn display(&self, out: &mut dyn Write) {
        let _ = write!(
            out,
            "{:<15.15} {:>9.9} {:>9.9} {:>9.9} {:>9.9} {:>9.9} {:>7.7} {:>6.6}\n\n",
            "Host/Job",
            "Wall Time",
            "Good Time",
            "CPU Usage",
            "Avg Alloc",
            "Avg Lost",
            "Goodput",
            "Util."
        );
        for (shown, totals) in self.hosts.values() {
            let _ = writeln!(out, "{:<15.15} {}", shown, totals.columns());
        }
        let _ = writeln!(out);
        let mut all = Totals::default();
        for ((cluster, proc), totals) in &self.jobs {
            let _ = writeln!(
                out,
                "{:<15.15} {}",
                format!("{cluster}.{proc}"),
                totals.columns()
            );
            all.allocations += totals.allocations;
            all.kills += totals.kills;
            all.wall += totals.wall;
            all.good += totals.good;
            all.cpu += totals.cpu;
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{:<15.15} {}", "Total", all.columns());
    }
}

/// `sscanf("%d")`: an optional sign and digits after white space, the rest ignored.
fn scan_int(text: &str) -> Option<i32> {
    let t = text.trim_start();
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    t[..end].parse().ok()
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let words = inv.raw_strings();
    if words.is_empty() {
        usage(err);
        return Err(CommandError::Exit(1));
    }
    let config = Config::load().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let mut o = Options::default();
    let mut summary = Summary::default();
    let mut log_read = false;
    let mut it = words.iter();
    while let Some(word) = it.next() {
        let bytes = word.as_bytes();
        if word == "--help" {
            usage(out);
            return Ok(());
        }
        if bytes.first() == Some(&b'-') {
            match bytes.get(1) {
                Some(b'a') => {
                    o.cluster = None;
                    o.proc = None;
                    o.evict_only = false;
                }
                Some(b'j') => {
                    let Some(job) = it.next() else {
                        usage(err);
                        return Err(CommandError::Exit(1));
                    };
                    o.cluster = scan_int(job);
                    if let Some((_, p)) = job.split_once('.') {
                        o.proc = scan_int(p);
                    }
                }
                Some(b't') => o.totals_only = true,
                Some(b'd') => o.debug = true,
                Some(b'e') => o.evict_only = true,
                Some(b'r') => o.raw = true,
                Some(b'h') if bytes.get(2) == Some(&b'o') => o.host_names = true,
                Some(b'h') => {
                    // Asked for, the usage goes where every condorlite tool prints its help.
                    usage(out);
                    return Ok(());
                }
                _ => {
                    usage(err);
                    return Err(CommandError::Exit(1));
                }
            }
            continue;
        }
        if let Err(e) = std::fs::File::open(word) {
            let _ = writeln!(
                err,
                "Can't access file: {word} (errno={})",
                e.raw_os_error().unwrap_or(0)
            );
            continue;
        }
        match read_events(word) {
            Ok(events) => {
                summary.read(&o, &config, &events, out, err);
                log_read = true;
            }
            Err(_) => {
                let _ = writeln!(err, "Error: unable to read log file.");
                return Ok(());
            }
        }
    }
    if log_read && !o.raw {
        let _ = writeln!(out);
        summary.display(out);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_read_as_sscanf_and_the_host_cut_as_userlog_cuts_it() {
        assert_eq!(scan_int("12"), Some(12));
        assert_eq!(scan_int(" 12.3"), Some(12));
        assert_eq!(scan_int("x"), None);
        assert_eq!(
            host_address("<127.0.0.1:9618?addrs=127.0.0.1-9618>"),
            "127.0.0.1"
        );
        assert_eq!(host_address(""), "");
    }

    #[test]
    fn summary_columns() {
        let mut t = Totals::default();
        t.add(3600, 3600, 1800);
        t.add(600, 0, 0);
        assert_eq!(
            t.columns(),
            "  0+01:10   0+01:00   0+00:30   0+00:35   0+00:10   85.7%  50.0%"
        );
        assert_eq!(
            Totals::default().columns(),
            "  0+00:00   0+00:00   0+00:00   0+00:00   0+00:00    0.0%   0.0%"
        );
    }
}
