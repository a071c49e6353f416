//! `condor_wait`: wait for jobs in a job event log to finish, as HTCondor's
//! src/condor_tools/wait.cpp does.
//!
//! `condor_wait [-debug] [-status] [-echo[:opts]] [-wait secs] [-num n] [-allevents] <log>
//! [C[.P[.S]]]` reads the log from its start and then follows it as it grows. It tracks the
//! jobs the log submits (by `cluster.proc.subproc`) and counts the terminated (005) and aborted
//! (009) ones; it succeeds (exit 0) when all of them are done (`All jobs done.`) or when `-num`
//! of them are (`Specifed number of jobs (N) done.`, HTCondor's spelling), and fails (exit 1)
//! when `-wait` seconds pass first (`Time expired.`).
//!
//! HTCondor's quirks are kept: when no job is pending once the log has been read (an empty log,
//! or a job the log never mentions), it says `All jobs done.`; `-wait 0` reads the log once and
//! exits 0 silently even if jobs are pending; `-version` exits 1. The log is followed by polling
//! it. `-help` prints the usage on stdout (HTCondor: stderr), where every condorlite tool prints
//! its help; after a command-line error it goes to stderr, as in HTCondor.

use std::collections::BTreeSet;
use std::io::Write;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Command;

use super::argv::{atoi, flag_option, words, Argv, Token};
use super::Tool;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::config::Config;
use crate::error::CommandError;
use crate::eventlog::{format_event, Event, EventBody, LogFollower, LogFormat};
use crate::version::{CONDOR_PLATFORM, CONDOR_VERSION};

pub const TOOL: Tool = Tool {
    name: "condor_wait",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        // Unknown options reach run(), which answers them with the usage, as wait.cpp does.
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

/// wait.cpp's tests, in its order: most names must be spelled out.
const PREFIXES: &[Prefix] = &[
    Prefix::exact("help"),
    Prefix::exact("version"),
    Prefix::min("debug", 1).qualified(),
    Prefix::exact("status"),
    Prefix::min("attach", 1),
    Prefix::exact("echo").qualified(),
    Prefix::min("allevents", 3),
    Prefix::exact("wait"),
    Prefix::exact("num"),
    Prefix::exact("log"),
];

const WORDS: &str = "args";

/// How often a log that has no new event is looked at again.
const POLL: Duration = Duration::from_millis(50);

pub fn command() -> Command {
    Command::new("condor_wait")
        .about("Wait for jobs in a job event log to finish")
        .long_about(
            "Watch a job event log and exit when all the jobs it mentions (or job \
             C[.P[.S]]) have completed or been removed. The log is read from its start and \
             followed as it grows.",
        )
        .after_help(
            "Exit status: 0 when the jobs are done, 1 otherwise (time expired, an error, or \
             -version).",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag_option("help", "Print the usage and exit"))
        .arg(flag_option(
            "version",
            "Print the HTCondor version and exit 1",
        ))
        .arg(flag_option("debug", "Show extra debugging information"))
        .arg(flag_option(
            "status",
            "Show job submit, execute and terminate events",
        ))
        .arg(flag_option("attach", "Wait for a debugger (Windows only; ignored)").hide(true))
        .arg(flag_option(
            "echo",
            "Echo the events of the watched jobs (-echo:ISO_DATE,UTC,XML,JSON)",
        ))
        .arg(flag_option(
            "allevents",
            "Go on after all jobs have ended (-allevents; not with -num)",
        ))
        .arg(flag_option(
            "wait",
            "-wait SECONDS: wait no longer than this (0: read the log once)",
        ))
        .arg(flag_option("num", "-num N: wait until N jobs have ended"))
        .arg(flag_option("log", "-log FILE: the log to watch"))
        .arg(words(
            WORDS,
            "LOG [C[.P[.S]]]",
            "The log, then the job to wait for",
        ))
}

fn usage(w: &mut dyn Write) {
    let cmd = "condor_wait";
    let _ = write!(
        w,
        "\nUse: {cmd} [options] <log-file> [job-number]\nWhere options are:
    -help             Display options
    -version          Display Condor version
    -debug            Show extra debugging info
    -status           Show job start and terminate info
    -echo[:<fmt>]     Echo log events relevant to [job-number]
       optional <fmt> is one or more log format options:
         ISO_DATE     date in Year-Month-Day form
         UTC          echo time as UTC time
         XML          echo in XML log format
         JSON         echo in JSON log format
    -num <number>     Wait for this many jobs to end
                       (default is all jobs)
    -wait <seconds>   Wait no more than this time
                       (default is unlimited)
    -allevents        Continue on even if all jobs have ended.
                      use with -echo to transcribe the whole log
                      cannot be used with -num

This command watches a log file, and indicates when
a specific job (or all jobs mentioned in the log)
have completed or aborted. It returns success if
all such jobs have completed or aborted, and returns
failure otherwise. 

Examples:
    {cmd} logfile
    {cmd} logfile 35
    {cmd} logfile 1406.35
    {cmd} -wait 60 logfile 13.25.3
    {cmd} -num 2 logfile

Transcribe an entire log to UTC timestamps:
    {cmd} -all -echo:UTC logfile
"
    );
}

/// Any cluster, proc or subproc.
const ANY: i32 = -1;

/// What the command line asks for.
#[derive(Debug)]
struct Request {
    log: String,
    job: Option<String>,
    /// Seconds since the epoch to give up at (0: never).
    stoptime: i64,
    /// Read the log once and stop at its end.
    dont_wait: bool,
    /// Jobs that must end (0: all of them; `i32::MAX` with `-allevents`).
    minjobs: i32,
    print_status: bool,
    echo: bool,
    format: LogFormat,
}

/// Refuses the command line as wait.cpp does: the message (if any), then the usage.
fn refuse(err: &mut dyn Write, message: Option<&str>) -> CommandError {
    if let Some(m) = message {
        let _ = writeln!(err, "{m}");
    }
    usage(err);
    CommandError::Exit(1)
}

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The echo format: `DEFAULT_USERLOG_FORMAT_OPTIONS` applied over no option at all (wait.cpp
/// starts from nothing, so legacy dates, not from the writer's default).
fn echo_format(options: Option<&str>) -> LogFormat {
    let none = LogFormat {
        iso_date: false,
        ..LogFormat::default()
    };
    options.map_or(none, |o| none.with_options(o))
}

/// The value after option `name` (at `*i`), moving `*i` onto it.
fn value(
    argv: &Argv,
    i: &mut usize,
    name: &str,
    err: &mut dyn Write,
) -> Result<String, CommandError> {
    *i += 1;
    argv.text(*i)
        .ok_or_else(|| refuse(err, Some(&format!("-{name} requires an argument"))))
}

/// Reads the command line as wait.cpp's loop does; `Ok(None)` when it has already answered
/// (`-help`).
fn request(
    argv: &Argv,
    config: &Config,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Option<Request>, CommandError> {
    let mut req = Request {
        log: String::new(),
        job: None,
        stoptime: 0,
        dont_wait: false,
        minjobs: 0,
        print_status: false,
        echo: false,
        format: echo_format(
            config
                .string("DEFAULT_USERLOG_FORMAT_OPTIONS")
                .ok()
                .flatten()
                .as_deref(),
        ),
    };
    let mut log: Option<String> = None;
    let mut waittime = 0i64;
    let mut debug = false;
    let mut i = 0;
    while i < argv.len() {
        let token = &argv.tokens[i];
        match token {
            Token::Opt { id: "help", .. } => {
                // Asked for, the usage goes where every condorlite tool prints its help.
                usage(out);
                return Ok(None);
            }
            Token::Opt { id: "version", .. } => {
                writeln!(out, "{CONDOR_VERSION}\n{CONDOR_PLATFORM}")?;
                return Err(CommandError::Exit(1));
            }
            Token::Opt { id: "debug", .. } => {
                debug = true;
                req.print_status = false;
            }
            Token::Opt { id: "status", .. } => {
                if debug {
                    let _ = writeln!(err, "-status is implied by -debug");
                } else {
                    req.print_status = true;
                }
            }
            Token::Opt { id: "attach", .. } => {}
            Token::Opt {
                id: "echo",
                qualifier,
            } => {
                req.echo = true;
                if let Some(q) = qualifier {
                    req.format = req.format.with_options(q);
                }
            }
            Token::Opt {
                id: "allevents", ..
            } => {
                if req.minjobs != 0 {
                    return Err(refuse(err, Some("-allevents cannot be used with -num")));
                }
                req.minjobs = i32::MAX;
                if waittime == 0 {
                    req.dont_wait = true;
                }
            }
            Token::Opt { id: "wait", .. } => {
                waittime = atoi(&value(argv, &mut i, "wait", err)?) as i64;
                if waittime != 0 {
                    req.dont_wait = false;
                    req.stoptime = now_secs() + waittime;
                } else {
                    req.dont_wait = true;
                }
            }
            Token::Opt { id: "num", .. } => {
                let n = value(argv, &mut i, "num", err)?;
                if req.minjobs == i32::MAX {
                    return Err(refuse(err, Some("-num cannot be used with -allevents")));
                }
                req.minjobs = atoi(&n);
                if req.minjobs < 1 {
                    return Err(refuse(err, Some("-num must be greater than zero")));
                }
            }
            Token::Opt { id: "log", .. } => log = Some(value(argv, &mut i, "log", err)?),
            Token::Opt { .. } => return Err(refuse(err, None)),
            Token::Word(w) if log.is_some() && req.job.is_none() && w == "-1" => {
                req.job = Some(w.clone());
            }
            Token::Word(w) if !w.starts_with('-') => {
                if log.is_none() {
                    log = Some(w.clone());
                } else if req.job.is_none() {
                    req.job = Some(w.clone());
                } else {
                    let _ = writeln!(err, "Extra argument: {w}\n");
                    return Err(refuse(err, None));
                }
            }
            Token::Word(_) => return Err(refuse(err, None)),
        }
        i += 1;
    }
    match log {
        Some(l) => req.log = l,
        None => return Err(refuse(err, None)),
    }
    Ok(Some(req))
}

/// `sscanf(text, "%d.%d.%d")`: how many fields were read, and the fields (`-1` when not read).
fn scan_job(text: &str) -> (usize, [i32; 3]) {
    let mut ids = [ANY; 3];
    let mut rest = text;
    for n in 0..3 {
        if n > 0 {
            match rest.strip_prefix('.') {
                Some(r) => rest = r,
                None => return (n, ids),
            }
        }
        let t = rest.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
        let sign = t.starts_with(['-', '+']) as usize;
        let digits = t[sign..].bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return (n, ids);
        }
        ids[n] = atoi(&t[..sign + digits]);
        rest = &t[sign + digits..];
    }
    (3, ids)
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let argv = Argv::from_invocation(inv, PREFIXES, WORDS);
    // HTCondor reads its configuration first; a broken one stops every tool.
    let config = Config::load().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let Some(req) = request(&argv, &config, out, err)? else {
        return Ok(());
    };
    let (mut cluster, mut proc, mut subproc) = (ANY, ANY, ANY);
    if let Some(job) = &req.job {
        let (fields, ids) = scan_job(job);
        if !(1..=3).contains(&fields) {
            let _ = writeln!(err, "Couldn't understand job number: {job}");
            return Err(CommandError::Exit(1));
        }
        [cluster, proc, subproc] = ids;
    }
    if let Err(e) = std::fs::File::open(&req.log) {
        let errno = nix::errno::Errno::from_raw(e.raw_os_error().unwrap_or(0));
        let _ = writeln!(err, "Couldn't open {}: {}", req.log, errno.desc());
        return Err(CommandError::Exit(1));
    }
    let watch = Watch {
        cluster,
        proc,
        subproc,
    };
    follow(&req, &watch, out, err)
}

/// The job (or jobs) waited for.
struct Watch {
    cluster: i32,
    proc: i32,
    subproc: i32,
}

impl Watch {
    fn matches(&self, e: &Event) -> bool {
        (self.cluster == ANY || e.cluster == self.cluster)
            && (self.proc == ANY || e.proc == self.proc)
            && (self.subproc == ANY || e.subproc == self.subproc)
    }
}

/// What reading the log gave.
enum Outcome {
    Event(Box<Event>),
    NoEvent,
    Error,
}

/// The next event, waiting at most `timeout` (forever when `None`) for one to be written.
fn read_event(follower: &mut LogFollower, timeout: Option<Duration>) -> Outcome {
    let start = Instant::now();
    loop {
        match follower.next_event() {
            Ok(Some(e)) => return Outcome::Event(Box::new(e)),
            Ok(None) => {}
            Err(_) => return Outcome::Error,
        }
        let pause = match timeout {
            Some(t) => match t.checked_sub(start.elapsed()) {
                Some(left) if !left.is_zero() => left.min(POLL),
                _ => return Outcome::NoEvent,
            },
            None => POLL,
        };
        std::thread::sleep(pause);
    }
}

fn follow(
    req: &Request,
    watch: &Watch,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let mut follower = LogFollower::new(&req.log);
    let (mut submitted, mut ended) = (0i64, 0i64);
    let mut table: BTreeSet<String> = BTreeSet::new();
    let mut initial_scan = true;
    loop {
        let mut timeout = None;
        if !req.dont_wait && req.stoptime != 0 {
            let now = now_secs();
            if now > req.stoptime {
                writeln!(out, "Time expired.")?;
                return Err(CommandError::Exit(1));
            }
            timeout = Some(Duration::from_secs((req.stoptime - now) as u64));
        }
        let outcome = if initial_scan {
            read_event(&mut follower, Some(Duration::ZERO))
        } else {
            read_event(&mut follower, timeout)
        };
        match outcome {
            Outcome::Event(event) => {
                let key = format!("{}.{}.{}", event.cluster, event.proc, event.subproc);
                if watch.matches(&event) {
                    if req.echo {
                        // Text events end with their `...` line, ads with a newline.
                        if let Ok(text) = format_event(&event, &req.format) {
                            write!(out, "{text}")?;
                        }
                    }
                    match &event.body {
                        EventBody::Submit(_) => {
                            if req.print_status {
                                writeln!(out, "{key} submitted")?;
                            }
                            table.insert(key);
                            submitted += 1;
                        }
                        EventBody::JobTerminated(_) | EventBody::JobAborted(_) => {
                            if req.print_status {
                                let what = match event.body {
                                    EventBody::JobTerminated(_) => "completed",
                                    _ => "aborted",
                                };
                                writeln!(out, "{key} {what}")?;
                            }
                            table.remove(&key);
                            ended += 1;
                        }
                        EventBody::Execute(x) if req.print_status => {
                            writeln!(out, "{key} executing on host {}", x.execute_host)?;
                        }
                        _ => {}
                    }
                }
                if req.minjobs != 0 && ended >= req.minjobs as i64 {
                    writeln!(out, "Specifed number of jobs ({}) done.", req.minjobs)?;
                    return Ok(());
                }
                if table.is_empty() && submitted > 0 && req.minjobs == 0 && !initial_scan {
                    writeln!(out, "All jobs done.")?;
                    return Ok(());
                }
            }
            Outcome::NoEvent => {
                if initial_scan {
                    initial_scan = false;
                    if table.is_empty() && req.minjobs == 0 {
                        writeln!(out, "All jobs done.")?;
                        return Ok(());
                    }
                } else if table.is_empty() && submitted == 0 {
                    if watch.cluster == ANY {
                        let _ = writeln!(err, "This log does not mention any jobs!");
                    } else {
                        let _ = writeln!(err, "This log does not mention that job!");
                    }
                    if !req.dont_wait {
                        return Err(CommandError::Exit(1));
                    }
                }
                if req.dont_wait {
                    return Ok(());
                }
            }
            Outcome::Error => return Err(CommandError::Exit(1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_numbers_as_sscanf_reads_them() {
        assert_eq!(scan_job("42"), (1, [42, ANY, ANY]));
        assert_eq!(scan_job("42.3"), (2, [42, 3, ANY]));
        assert_eq!(scan_job("42.3.1"), (3, [42, 3, 1]));
        assert_eq!(scan_job("42.x"), (1, [42, ANY, ANY]));
        assert_eq!(scan_job(" 7"), (1, [7, ANY, ANY]));
        assert_eq!(scan_job("-1"), (1, [ANY, ANY, ANY]));
        assert_eq!(scan_job("x"), (0, [ANY, ANY, ANY]));
        assert_eq!(scan_job(".5"), (0, [ANY, ANY, ANY]));
    }

    #[test]
    fn echo_starts_from_legacy_dates() {
        assert!(!echo_format(None).iso_date);
        assert!(echo_format(Some("ISO_DATE")).iso_date);
    }
}
