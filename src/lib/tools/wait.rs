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
//!
//! When the log has been read and jobs are still to wait for, some of them in this pool's
//! queue and able to run, but no `condor_master` runs for the pool, condor_wait says so on
//! stderr before it waits (condorlite's note, as condor_submit's; `CONDORLITE_WARN_NO_MASTER`):
//! the jobs would not end until one starts.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Command;

use super::argv::{atoi, flag_option, words, Argv, Token};
use super::Tool;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::master;
use crate::config::Config;
use crate::error::CommandError;
use crate::eventlog::{format_event, Event, EventBody, LogFollower, LogFormat};
use crate::queue::{JobId, JobStatus, Queue, QUEUE_FILE};
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

/// What the command line asks condor_wait to do.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Action {
    /// Watch the log (the command line is complete).
    Wait,
    /// `-help`: print the usage.
    Help,
    /// `-version`: print the version, then exit 1.
    Version,
    /// Refuse the command line: the message (if any), then the usage on stderr.
    Refuse(Option<String>),
}

/// How long to wait (`-wait`, `-allevents`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Deadline {
    /// Until the jobs are done (no `-wait`).
    Never,
    /// `-wait N` (N not 0): give up N seconds after starting (at once when N is negative).
    After(i64),
    /// `-wait 0`, or `-allevents` without a `-wait N`: read the log once.
    ReadOnce,
}

/// How many jobs must end (`-num`, `-allevents`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Until {
    /// All the jobs the log submits (the default).
    AllJobs,
    /// `-num N` (N at least 1): N jobs.
    Count(i32),
    /// `-allevents`: go on after all jobs have ended.
    AllEvents,
}

/// condor_wait's command line, read once by [`WaitArgs::parse`] as wait.cpp's loop reads it:
/// left to right, the first error (or `-help`, `-version`) ending the reading.
#[derive(Clone, Debug, PartialEq, Eq)]
struct WaitArgs {
    /// What to do: watch the log, or answer the command line at once.
    action: Action,
    /// What the reading says on stderr without stopping (`-status is implied by -debug`).
    notes: Vec<String>,
    /// `-status`, unless `-debug` came before it or after it.
    print_status: bool,
    /// `-echo[:opts]`: the options of each `-echo`, in order, applied over
    /// `DEFAULT_USERLOG_FORMAT_OPTIONS` (`None` without `-echo`).
    echo: Option<Vec<String>>,
    /// `-wait SECONDS` (and `-allevents`).
    deadline: Deadline,
    /// `-num N` or `-allevents`.
    until: Until,
    /// `-log FILE`, or the first word (empty unless `action` is [`Action::Wait`]).
    log: String,
    /// The word after the log: the job `C[.P[.S]]` (or `-1`, any job).
    job: Option<String>,
}

impl WaitArgs {
    /// Reads the command line (the only place that looks at its options).
    fn parse(inv: &Invocation) -> WaitArgs {
        let mut args = WaitArgs {
            action: Action::Wait,
            notes: Vec::new(),
            print_status: false,
            echo: None,
            deadline: Deadline::Never,
            until: Until::AllJobs,
            log: String::new(),
            job: None,
        };
        if let Err(stop) = args.read(&Argv::from_invocation(inv, PREFIXES, WORDS)) {
            args.action = stop;
        }
        args
    }

    /// wait.cpp's loop over the words; `Err` with what ends it early.
    fn read(&mut self, argv: &Argv) -> Result<(), Action> {
        let refuse = |message: &str| Action::Refuse(Some(message.to_owned()));
        let mut log: Option<String> = None;
        let mut debug = false;
        let mut i = 0;
        while i < argv.len() {
            match &argv.tokens[i] {
                Token::Opt { id: "help", .. } => return Err(Action::Help),
                Token::Opt { id: "version", .. } => return Err(Action::Version),
                Token::Opt { id: "debug", .. } => {
                    debug = true;
                    self.print_status = false;
                }
                Token::Opt { id: "status", .. } => {
                    if debug {
                        self.notes.push("-status is implied by -debug".to_owned());
                    } else {
                        self.print_status = true;
                    }
                }
                Token::Opt { id: "attach", .. } => {}
                Token::Opt {
                    id: "echo",
                    qualifier,
                } => self
                    .echo
                    .get_or_insert_with(Vec::new)
                    .extend(qualifier.iter().cloned()),
                Token::Opt {
                    id: "allevents", ..
                } => {
                    if self.until != Until::AllJobs {
                        return Err(refuse("-allevents cannot be used with -num"));
                    }
                    self.until = Until::AllEvents;
                    if !matches!(self.deadline, Deadline::After(_)) {
                        self.deadline = Deadline::ReadOnce;
                    }
                }
                Token::Opt { id: "wait", .. } => {
                    let secs = atoi(&value(argv, &mut i, "wait")?) as i64;
                    self.deadline = if secs != 0 {
                        Deadline::After(secs)
                    } else {
                        Deadline::ReadOnce
                    };
                }
                Token::Opt { id: "num", .. } => {
                    let n = value(argv, &mut i, "num")?;
                    if self.until == Until::AllEvents {
                        return Err(refuse("-num cannot be used with -allevents"));
                    }
                    let n = atoi(&n);
                    if n < 1 {
                        return Err(refuse("-num must be greater than zero"));
                    }
                    self.until = Until::Count(n);
                }
                Token::Opt { id: "log", .. } => log = Some(value(argv, &mut i, "log")?),
                Token::Opt { .. } => return Err(Action::Refuse(None)),
                Token::Word(w) if log.is_some() && self.job.is_none() && w == "-1" => {
                    self.job = Some(w.clone());
                }
                Token::Word(w) if !w.starts_with('-') => {
                    if log.is_none() {
                        log = Some(w.clone());
                    } else if self.job.is_none() {
                        self.job = Some(w.clone());
                    } else {
                        return Err(refuse(&format!("Extra argument: {w}\n")));
                    }
                }
                Token::Word(_) => return Err(Action::Refuse(None)),
            }
            i += 1;
        }
        self.log = log.ok_or(Action::Refuse(None))?;
        Ok(())
    }
}

/// The value after option `name` (at `*i`), moving `*i` onto it.
fn value(argv: &Argv, i: &mut usize, name: &str) -> Result<String, Action> {
    *i += 1;
    argv.text(*i)
        .ok_or_else(|| Action::Refuse(Some(format!("-{name} requires an argument"))))
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
    let args = WaitArgs::parse(inv);
    // HTCondor reads its configuration first; a broken one stops every tool.
    let config = Config::load().map_err(|e| CommandError::failed(1, e.to_string()))?;
    for note in &args.notes {
        let _ = writeln!(err, "{note}");
    }
    match &args.action {
        Action::Wait => {}
        Action::Help => {
            // Asked for, the usage goes where every condorlite tool prints its help.
            usage(out);
            return Ok(());
        }
        Action::Version => {
            writeln!(out, "{CONDOR_VERSION}\n{CONDOR_PLATFORM}")?;
            return Err(CommandError::Exit(1));
        }
        Action::Refuse(message) => return Err(refuse(err, message.as_deref())),
    }
    let echo = args.echo.as_ref().map(|options| {
        let default = config
            .string("DEFAULT_USERLOG_FORMAT_OPTIONS")
            .ok()
            .flatten();
        options
            .iter()
            .fold(echo_format(default.as_deref()), |f, o| f.with_options(o))
    });
    let stoptime = match args.deadline {
        Deadline::After(secs) => Some(now_secs() + secs),
        Deadline::Never | Deadline::ReadOnce => None,
    };
    let (mut cluster, mut proc, mut subproc) = (ANY, ANY, ANY);
    if let Some(job) = &args.job {
        let (fields, ids) = scan_job(job);
        if !(1..=3).contains(&fields) {
            let _ = writeln!(err, "Couldn't understand job number: {job}");
            return Err(CommandError::Exit(1));
        }
        [cluster, proc, subproc] = ids;
    }
    if let Err(e) = std::fs::File::open(&args.log) {
        let errno = nix::errno::Errno::from_raw(e.raw_os_error().unwrap_or(0));
        let _ = writeln!(err, "Couldn't open {}: {}", args.log, errno.desc());
        return Err(CommandError::Exit(1));
    }
    let watch = Watch {
        cluster,
        proc,
        subproc,
    };
    follow(&config, &args, &watch, echo.as_ref(), stoptime, out, err)
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

/// Follows the log until the jobs are done: `echo` in this format, give up at `stoptime`
/// (seconds since the epoch).
fn follow(
    config: &Config,
    args: &WaitArgs,
    watch: &Watch,
    echo: Option<&LogFormat>,
    stoptime: Option<i64>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let read_once = args.deadline == Deadline::ReadOnce;
    let all_jobs = args.until == Until::AllJobs;
    let mut follower = LogFollower::new(&args.log);
    let (mut submitted, mut ended) = (0i64, 0i64);
    let mut table: BTreeSet<String> = BTreeSet::new();
    let mut initial_scan = true;
    loop {
        let mut timeout = None;
        if let Some(stop) = stoptime {
            let now = now_secs();
            if now > stop {
                writeln!(out, "Time expired.")?;
                return Err(CommandError::Exit(1));
            }
            timeout = Some(Duration::from_secs((stop - now) as u64));
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
                    if let Some(format) = echo {
                        // Text events end with their `...` line, ads with a newline.
                        if let Ok(text) = format_event(&event, format) {
                            write!(out, "{text}")?;
                        }
                    }
                    match &event.body {
                        EventBody::Submit(_) => {
                            if args.print_status {
                                writeln!(out, "{key} submitted")?;
                            }
                            table.insert(key);
                            submitted += 1;
                        }
                        EventBody::JobTerminated(_) | EventBody::JobAborted(_) => {
                            if args.print_status {
                                let what = match event.body {
                                    EventBody::JobTerminated(_) => "completed",
                                    _ => "aborted",
                                };
                                writeln!(out, "{key} {what}")?;
                            }
                            table.remove(&key);
                            ended += 1;
                        }
                        EventBody::Execute(x) if args.print_status => {
                            writeln!(out, "{key} executing on host {}", x.execute_host)?;
                        }
                        _ => {}
                    }
                }
                if let Until::Count(n) = args.until {
                    if ended >= i64::from(n) {
                        writeln!(out, "Specifed number of jobs ({n}) done.")?;
                        return Ok(());
                    }
                }
                if table.is_empty() && submitted > 0 && all_jobs && !initial_scan {
                    writeln!(out, "All jobs done.")?;
                    return Ok(());
                }
            }
            Outcome::NoEvent => {
                if initial_scan {
                    initial_scan = false;
                    if table.is_empty() && all_jobs {
                        writeln!(out, "All jobs done.")?;
                        return Ok(());
                    }
                    if !read_once {
                        out.flush()?;
                        if let Some(note) = waiting_for_a_master(config, &table) {
                            let _ = writeln!(err, "{note}");
                        }
                    }
                } else if table.is_empty() && submitted == 0 {
                    if watch.cluster == ANY {
                        let _ = writeln!(err, "This log does not mention any jobs!");
                    } else {
                        let _ = writeln!(err, "This log does not mention that job!");
                    }
                    if !read_once {
                        return Err(CommandError::Exit(1));
                    }
                }
                if read_once {
                    return Ok(());
                }
            }
            Outcome::Error => return Err(CommandError::Exit(1)),
        }
    }
}

/// The note that no master runs (condorlite's, [`master::waiting_note`]), when some job the
/// log waits for is in this pool's queue and would run, or end, only under a master: not
/// held, not completed. A log of another pool's jobs, or of jobs gone from this queue, is
/// waited for without a word.
fn waiting_for_a_master(config: &Config, pending: &BTreeSet<String>) -> Option<String> {
    let note = master::waiting_note(config, || master::is_running(config))?;
    let spool = config.string("SPOOL").ok().flatten()?;
    if !Path::new(&spool).join(QUEUE_FILE).exists() {
        return None;
    }
    let ids = pending.iter().filter_map(|key| {
        let mut n = key.split('.').map(str::parse::<i32>);
        Some(JobId::new(n.next()?.ok()?, n.next()?.ok()?))
    });
    let queue = Queue::open(&spool).ok()?;
    let jobs = queue.jobs_by_id(ids).ok()?;
    jobs.iter()
        .any(|job| !matches!(job.status(), Some(JobStatus::Held | JobStatus::Completed)))
        .then_some(note)
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

    fn parse(words: &[&str]) -> WaitArgs {
        WaitArgs::parse(&TOOL.parse_words(words).expect("a valid command line"))
    }

    fn refused(words: &[&str]) -> Action {
        parse(words).action
    }

    #[test]
    fn log_and_job() {
        let args = parse(&["job.log"]);
        assert_eq!(args.action, Action::Wait);
        assert_eq!(args.log, "job.log");
        assert_eq!(args.job, None);
        assert_eq!(args.deadline, Deadline::Never);
        assert_eq!(args.until, Until::AllJobs);
        assert!(!args.print_status);
        assert_eq!(args.echo, None);
        assert!(args.notes.is_empty());
        let args = parse(&["job.log", "12.3"]);
        assert_eq!(args.job.as_deref(), Some("12.3"));
        assert_eq!(parse(&["job.log", "-1"]).job.as_deref(), Some("-1"));
        let args = parse(&["-log", "-odd.log", "7"]);
        assert_eq!(
            (args.log.as_str(), args.job.as_deref()),
            ("-odd.log", Some("7"))
        );
    }

    #[test]
    fn missing_and_extra_words() {
        assert_eq!(refused(&[]), Action::Refuse(None));
        assert_eq!(refused(&["-status"]), Action::Refuse(None));
        assert_eq!(
            refused(&["a.log", "1", "2"]),
            Action::Refuse(Some("Extra argument: 2\n".into()))
        );
        assert_eq!(refused(&["a.log", "-x"]), Action::Refuse(None));
        assert_eq!(refused(&["-1"]), Action::Refuse(None));
    }

    #[test]
    fn help_and_version_stop_the_reading() {
        assert_eq!(refused(&["-help"]), Action::Help);
        assert_eq!(refused(&["-help", "-num", "0"]), Action::Help);
        assert_eq!(refused(&["-version", "a.log"]), Action::Version);
        assert_eq!(
            refused(&["-num", "0", "-help"]),
            Action::Refuse(Some("-num must be greater than zero".into()))
        );
    }

    #[test]
    fn status_and_debug() {
        assert!(parse(&["-status", "a.log"]).print_status);
        assert!(!parse(&["-status", "-debug", "a.log"]).print_status);
        let args = parse(&["-d", "-status", "a.log"]);
        assert!(!args.print_status);
        assert_eq!(args.notes, ["-status is implied by -debug"]);
        assert_eq!(parse(&["-attach", "a.log"]).action, Action::Wait);
    }

    #[test]
    fn echo() {
        assert_eq!(parse(&["-echo", "a.log"]).echo, Some(vec![]));
        assert_eq!(
            parse(&["-echo:XML", "-echo", "-echo:UTC", "a.log"]).echo,
            Some(vec!["XML".to_owned(), "UTC".to_owned()])
        );
    }

    #[test]
    fn wait() {
        assert_eq!(
            parse(&["-wait", "60", "a.log"]).deadline,
            Deadline::After(60)
        );
        assert_eq!(
            parse(&["-wait", "-5", "a.log"]).deadline,
            Deadline::After(-5)
        );
        assert_eq!(parse(&["-wait", "0", "a.log"]).deadline, Deadline::ReadOnce);
        assert_eq!(parse(&["-wait", "x", "a.log"]).deadline, Deadline::ReadOnce);
        assert_eq!(
            parse(&["-wait", "5", "-wait", "0", "a.log"]).deadline,
            Deadline::ReadOnce
        );
        assert_eq!(
            refused(&["a.log", "-wait"]),
            Action::Refuse(Some("-wait requires an argument".into()))
        );
    }

    #[test]
    fn num() {
        assert_eq!(parse(&["-num", "2", "a.log"]).until, Until::Count(2));
        assert_eq!(
            parse(&["-num", "2", "-num", "3", "a.log"]).until,
            Until::Count(3)
        );
        assert_eq!(
            refused(&["-num", "0", "a.log"]),
            Action::Refuse(Some("-num must be greater than zero".into()))
        );
        assert_eq!(
            refused(&["a.log", "-num"]),
            Action::Refuse(Some("-num requires an argument".into()))
        );
    }

    #[test]
    fn allevents() {
        let args = parse(&["-all", "a.log"]);
        assert_eq!(args.until, Until::AllEvents);
        assert_eq!(args.deadline, Deadline::ReadOnce);
        let args = parse(&["-wait", "9", "-allevents", "a.log"]);
        assert_eq!(args.deadline, Deadline::After(9));
        assert_eq!(
            parse(&["-all", "-wait", "9", "a.log"]).deadline,
            Deadline::After(9)
        );
        assert_eq!(
            refused(&["-num", "2", "-all", "a.log"]),
            Action::Refuse(Some("-allevents cannot be used with -num".into()))
        );
        assert_eq!(
            refused(&["-all", "-all", "a.log"]),
            Action::Refuse(Some("-allevents cannot be used with -num".into()))
        );
        assert_eq!(
            refused(&["-all", "-num", "2", "a.log"]),
            Action::Refuse(Some("-num cannot be used with -allevents".into()))
        );
    }

    #[test]
    fn log_option() {
        assert_eq!(parse(&["-log", "a.log"]).log, "a.log");
        assert_eq!(
            refused(&["-log"]),
            Action::Refuse(Some("-log requires an argument".into()))
        );
    }
}
