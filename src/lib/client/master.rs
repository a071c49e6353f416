//! Talking to the running `condor_master`: its command socket, the requests it takes and the
//! ads it publishes (the part of HTCondor's collector a single host needs).
//!
//! The master listens on a Unix stream socket, `$(RUN)/condor_master.sock`. A client writes
//! one request line and reads the answer until the master closes the connection:
//!
//! - `QUERY <kind>`: the ads of that kind ([`AdKind`]), each in the long (old ClassAd) form,
//!   ads separated by a blank line, nothing more.
//! - any other command ([`Command`]): `OK`, with what the command returns after a space
//!   when it returns something, or `ERROR <text>`; one line.
//!
//! A missing socket, or one nobody listens on, means no master runs for this pool
//! ([`MasterError::NotRunning`]). Tools that change the queue wake the master with
//! [`wake`], which never waits for an answer and never fails. A connection closed without a
//! request asks nothing ([`is_running`] probes so). What the tools say when no master runs is
//! here too ([`start_hint`], [`waiting_note`]), so that every tool says it alike.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::classad::ClassAd;
use crate::config::Config;
use crate::queue::JobId;

/// The socket's file name in `$(RUN)`.
pub const SOCKET_FILE: &str = "condor_master.sock";

/// How long a client waits for the master's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

/// The kinds of ads the master publishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AdKind {
    /// Slot ads (`MyType = "Machine"`): what `condor_status` lists by default.
    Slots,
    /// The startd's own ad (`MyType = "StartD"`... HTCondor's `StartDaemon` ads).
    Startd,
    Schedd,
    /// One ad per user with jobs in the queue (`MyType = "Submitter"`).
    Submitters,
    Negotiator,
    Master,
    Collector,
}

impl AdKind {
    pub const ALL: [AdKind; 7] = [
        AdKind::Slots,
        AdKind::Startd,
        AdKind::Schedd,
        AdKind::Submitters,
        AdKind::Negotiator,
        AdKind::Master,
        AdKind::Collector,
    ];

    /// The word for it in a `QUERY` request.
    pub fn word(self) -> &'static str {
        match self {
            AdKind::Slots => "STARTD",
            AdKind::Startd => "STARTD_DAEMON",
            AdKind::Schedd => "SCHEDD",
            AdKind::Submitters => "SUBMITTOR",
            AdKind::Negotiator => "NEGOTIATOR",
            AdKind::Master => "MASTER",
            AdKind::Collector => "COLLECTOR",
        }
    }

    pub fn from_word(word: &str) -> Option<AdKind> {
        AdKind::ALL
            .into_iter()
            .find(|k| k.word().eq_ignore_ascii_case(word))
    }
}

/// Which daemons a `condor_off`/`condor_on`/`condor_restart` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subsystem {
    /// The master itself, and so all of them.
    Master,
    /// Every daemon but the master (`condor_off` with no daemon named).
    Daemons,
    Schedd,
    Startd,
    Negotiator,
    Collector,
}

impl Subsystem {
    pub fn word(self) -> &'static str {
        match self {
            Subsystem::Master => "MASTER",
            Subsystem::Daemons => "DAEMONS",
            Subsystem::Schedd => "SCHEDD",
            Subsystem::Startd => "STARTD",
            Subsystem::Negotiator => "NEGOTIATOR",
            Subsystem::Collector => "COLLECTOR",
        }
    }

    pub fn from_word(word: &str) -> Option<Subsystem> {
        [
            Subsystem::Master,
            Subsystem::Daemons,
            Subsystem::Schedd,
            Subsystem::Startd,
            Subsystem::Negotiator,
            Subsystem::Collector,
        ]
        .into_iter()
        .find(|s| s.word().eq_ignore_ascii_case(word))
    }
}

/// How running jobs are treated when a daemon stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shutdown {
    /// Jobs are vacated (soft kill, then hard kill after the vacate time): the default.
    Graceful,
    /// Running jobs finish first; nothing new starts.
    Peaceful,
    /// Jobs are killed at once.
    Fast,
}

impl Shutdown {
    pub fn word(self) -> &'static str {
        match self {
            Shutdown::Graceful => "GRACEFUL",
            Shutdown::Peaceful => "PEACEFUL",
            Shutdown::Fast => "FAST",
        }
    }

    pub fn from_word(word: &str) -> Option<Shutdown> {
        [Shutdown::Graceful, Shutdown::Peaceful, Shutdown::Fast]
            .into_iter()
            .find(|s| s.word().eq_ignore_ascii_case(word))
    }
}

/// What `condor_vacate_job`, `condor_suspend` and `condor_continue` ask of running jobs (the
/// schedd's `JA_VACATE_JOBS`, `JA_VACATE_FAST_JOBS`, `JA_SUSPEND_JOBS`, `JA_CONTINUE_JOBS`,
/// which change nothing in the queue themselves: the job's process is signalled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobSignal {
    /// Evict with the job's KillSig, SIGKILL when its vacate time is over; back to idle.
    Vacate,
    /// Evict with SIGKILL at once.
    VacateFast,
    /// SIGSTOP the job's processes.
    Suspend,
    /// SIGCONT them.
    Continue,
}

impl JobSignal {
    pub fn word(self) -> &'static str {
        match self {
            JobSignal::Vacate => "VACATE",
            JobSignal::VacateFast => "VACATE-FAST",
            JobSignal::Suspend => "SUSPEND",
            JobSignal::Continue => "CONTINUE",
        }
    }

    pub fn from_word(word: &str) -> Option<JobSignal> {
        [
            JobSignal::Vacate,
            JobSignal::VacateFast,
            JobSignal::Suspend,
            JobSignal::Continue,
        ]
        .into_iter()
        .find(|s| s.word().eq_ignore_ascii_case(word))
    }
}

/// A `condor_drain` request, as it travels to the master (a JSON object on the request
/// line). The words are condor_drain's: `schedule` is `graceful`, `quick` or `fast`;
/// `on_completion` is `nothing`, `resume`, `exit`, `restart` or `reconfig`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainArgs {
    pub schedule: String,
    pub reason: Option<String>,
    pub on_completion: String,
    pub check: Option<String>,
    pub start: Option<String>,
    pub request_id: Option<String>,
}

/// A request to the master.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// The queue changed: negotiate now.
    Reschedule,
    /// Read the configuration again.
    Reconfig,
    Off(Subsystem, Shutdown),
    On(Subsystem),
    Restart(Subsystem, Shutdown),
    Query(AdKind),
    /// Signal running jobs; the answer lists the jobs that were not acted on (not running
    /// there, or not in the state the signal needs).
    Jobs(JobSignal, Vec<JobId>),
    /// Drain the startd; the answer is the request's id.
    Drain(DrainArgs),
    /// Stop draining (the request with this id, or any).
    CancelDrain(Option<String>),
    /// `condor_now`: start the idle job (the first) on the slots of the running ones, which
    /// are vacated for it (the schedd's `REASSIGN_SLOT`).
    Now(JobId, Vec<JobId>),
    /// A queue change a tool asks of the schedd; frames follow the line
    /// ([`crate::client::schedd`]).
    Schedd,
}

impl Command {
    /// The request line, without its newline.
    pub fn line(&self) -> String {
        match self {
            Command::Reschedule => "RESCHEDULE".to_owned(),
            Command::Reconfig => "RECONFIG".to_owned(),
            Command::Off(d, how) => format!("OFF {} {}", d.word(), how.word()),
            Command::On(d) => format!("ON {}", d.word()),
            Command::Restart(d, how) => format!("RESTART {} {}", d.word(), how.word()),
            Command::Query(kind) => format!("QUERY {}", kind.word()),
            Command::Jobs(signal, ids) => {
                let mut line = format!("JOBS {}", signal.word());
                for id in ids {
                    line.push_str(&format!(" {id}"));
                }
                line
            }
            Command::Drain(args) => format!(
                "DRAIN {}",
                serde_json::to_string(args).unwrap_or_else(|_| "{}".to_owned())
            ),
            Command::CancelDrain(None) => "CANCEL-DRAIN".to_owned(),
            Command::CancelDrain(Some(id)) => format!("CANCEL-DRAIN {id}"),
            Command::Now(bid, victims) => {
                let mut line = format!("NOW {bid}");
                for id in victims {
                    line.push_str(&format!(" {id}"));
                }
                line
            }
            Command::Schedd => "SCHEDD".to_owned(),
        }
    }

    /// Reads a request line.
    pub fn parse(line: &str) -> Option<Command> {
        let mut words = line.split_ascii_whitespace();
        let verb = words.next()?.to_ascii_uppercase();
        let mut next = || words.next();
        let cmd = match verb.as_str() {
            "RESCHEDULE" => Command::Reschedule,
            "RECONFIG" => Command::Reconfig,
            "OFF" => Command::Off(
                Subsystem::from_word(next()?)?,
                Shutdown::from_word(next()?)?,
            ),
            "ON" => Command::On(Subsystem::from_word(next()?)?),
            "RESTART" => Command::Restart(
                Subsystem::from_word(next()?)?,
                Shutdown::from_word(next()?)?,
            ),
            "QUERY" => Command::Query(AdKind::from_word(next()?)?),
            "JOBS" => {
                let signal = JobSignal::from_word(next()?)?;
                let ids = words
                    .map(|w| w.parse::<JobId>().ok())
                    .collect::<Option<Vec<_>>>()?;
                Command::Jobs(signal, ids)
            }
            "DRAIN" => {
                let json = line.trim().split_once(char::is_whitespace)?.1;
                Command::Drain(serde_json::from_str(json).ok()?)
            }
            "CANCEL-DRAIN" => Command::CancelDrain(next().map(str::to_owned)),
            "NOW" => {
                let bid = next()?.parse::<JobId>().ok()?;
                let victims = words
                    .map(|w| w.parse::<JobId>().ok())
                    .collect::<Option<Vec<_>>>()?;
                Command::Now(bid, victims)
            }
            "SCHEDD" => Command::Schedd,
            _ => return None,
        };
        Some(cmd)
    }
}

/// Why the master could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum MasterError {
    #[error("no condor_master is running for this pool (no one listens on {})", .0.display())]
    NotRunning(PathBuf),
    #[error("RUN is not defined in the configuration")]
    NoRunDir,
    #[error("talking to the condor_master on {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the condor_master refused the request: {0}")]
    Refused(String),
    #[error("the condor_master sent an ad that does not parse: {0}")]
    BadAd(String),
}

/// The socket of the pool `config` describes.
pub fn socket_path(config: &Config) -> Result<PathBuf, MasterError> {
    let run = config
        .string("RUN")
        .ok()
        .flatten()
        .ok_or(MasterError::NoRunDir)?;
    Ok(Path::new(&run).join(SOCKET_FILE))
}

pub(crate) fn connect(path: &Path) -> Result<UnixStream, MasterError> {
    match UnixStream::connect(path) {
        Ok(s) => Ok(s),
        Err(e) if nobody_listens(&e) => Err(MasterError::NotRunning(path.to_owned())),
        Err(source) => Err(MasterError::Io {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Sends a command and reads its one-line answer: what the command returns (empty for most).
pub fn send(config: &Config, command: &Command) -> Result<String, MasterError> {
    let path = socket_path(config)?;
    let answer = exchange(&path, command)?;
    let answer = answer.trim_end();
    if let Some(text) = answer.strip_prefix("ERROR") {
        return Err(MasterError::Refused(text.trim().to_owned()));
    }
    match answer.strip_prefix("OK") {
        Some("") => Ok(String::new()),
        Some(rest) if rest.starts_with(' ') => Ok(rest[1..].to_owned()),
        _ => Err(MasterError::Refused(answer.to_owned())),
    }
}

fn exchange(path: &Path, command: &Command) -> Result<String, MasterError> {
    let io = |source| MasterError::Io {
        path: path.to_owned(),
        source,
    };
    let mut stream = connect(path)?;
    stream.set_read_timeout(Some(ANSWER_TIMEOUT)).map_err(io)?;
    stream
        .write_all(format!("{}\n", command.line()).as_bytes())
        .map_err(io)?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).map_err(io)?;
    Ok(answer)
}

/// The ads of one kind the running master publishes.
pub fn query(config: &Config, kind: AdKind) -> Result<Vec<ClassAd>, MasterError> {
    let path = socket_path(config)?;
    let answer = exchange(&path, &Command::Query(kind))?;
    if let Some(text) = answer.strip_prefix("ERROR") {
        return Err(MasterError::Refused(text.trim().to_owned()));
    }
    parse_ads(&answer)
}

/// Reads ads in the long form, separated by blank lines.
pub fn parse_ads(text: &str) -> Result<Vec<ClassAd>, MasterError> {
    crate::classad::parse_old_ads(text).map_err(|e| MasterError::BadAd(e.to_string()))
}

/// Tells the master that the queue changed, so that it negotiates at once (unless
/// `SUBMIT_SEND_RESCHEDULE` is false), and returns whether one runs ([`is_running`]). Never
/// waits for an answer and never fails: without a master, jobs wait for the next one to start.
pub fn wake(config: &Config) -> bool {
    let Some(stream) = probe(config) else {
        return false;
    };
    if let Some(mut stream) = stream {
        if config.bool("SUBMIT_SEND_RESCHEDULE").ok().flatten() != Some(false) {
            let _ = stream.write_all(b"RESCHEDULE\n");
        }
    }
    true
}

/// Whether a master runs for the pool: something listens on its socket (a `condor_master`,
/// or the pool `condor_run` or `condor_dagman` runs inside its own process). The connection
/// is closed without a request, which the master takes as nothing asked.
pub fn is_running(config: &Config) -> bool {
    probe(config).is_some()
}

/// A connection to the pool's socket: `None` when no master runs, `Some(None)` when the
/// socket is there but refuses this user (a master runs: it is not for a tool to say that
/// none does).
fn probe(config: &Config) -> Option<Option<UnixStream>> {
    let path = socket_path(config).ok()?;
    match UnixStream::connect(&path) {
        Ok(stream) => Some(Some(stream)),
        Err(e) if nobody_listens(&e) => None,
        Err(_) => Some(None),
    }
}

/// Whether a failed connection means that no master runs (no socket, or a stale one).
fn nobody_listens(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
    )
}

/// The pool's directory (`LOCAL_DIR`), as the messages about its master name it.
fn local_dir(config: &Config) -> String {
    config
        .string("LOCAL_DIR")
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The line a tool adds to an error that comes of no master running: which pool, and how to
/// start one.
pub fn start_hint(config: &Config) -> String {
    format!(
        "Hint: no condor_master is running for LOCAL_DIR {}; start one with: condor_master",
        local_dir(config)
    )
}

/// What `condor_submit` (on standard error), `condor_q` (after its totals) and `condor_wait`
/// (before it waits) say when no master runs for the pool, so that jobs would wait unseen:
/// `None` when one runs (`running` is asked only when the note is wanted), or when the
/// condorlite knob `CONDORLITE_WARN_NO_MASTER` is false.
pub fn waiting_note(config: &Config, running: impl FnOnce() -> bool) -> Option<String> {
    let wanted = config
        .bool("CONDORLITE_WARN_NO_MASTER")
        .ok()
        .flatten()
        .unwrap_or(true);
    (wanted && !running()).then(|| {
        format!(
            "Note: no condor_master is running for LOCAL_DIR {}: queued jobs will start when \
             one runs (start one with: condor_master)",
            local_dir(config)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_round_trip() {
        let all = [
            Command::Reschedule,
            Command::Reconfig,
            Command::Off(Subsystem::Master, Shutdown::Peaceful),
            Command::On(Subsystem::Startd),
            Command::Restart(Subsystem::Master, Shutdown::Fast),
            Command::Query(AdKind::Submitters),
            Command::Jobs(
                JobSignal::VacateFast,
                vec![JobId::new(3, 0), JobId::new(4, 12)],
            ),
            Command::Jobs(JobSignal::Continue, vec![]),
            Command::Drain(DrainArgs {
                schedule: "quick".into(),
                reason: Some("a reason with words".into()),
                on_completion: "resume".into(),
                check: Some("Cpus > 1 && Name == \"x\"".into()),
                start: None,
                request_id: None,
            }),
            Command::CancelDrain(None),
            Command::CancelDrain(Some("7".into())),
            Command::Now(JobId::new(5, 0), vec![JobId::new(3, 1), JobId::new(4, 0)]),
            Command::Schedd,
        ];
        for c in all {
            assert_eq!(Command::parse(&c.line()), Some(c.clone()), "{c:?}");
        }
        assert_eq!(Command::parse("OFF NOBODY FAST"), None);
        assert_eq!(Command::parse(""), None);
        assert_eq!(Command::parse("JOBS SUSPEND 1.x"), None);
    }

    #[test]
    fn ads_are_read_between_blank_lines() {
        let ads = parse_ads("A = 1\nB = \"x\"\n\nA = 2\n\n\n").unwrap();
        assert_eq!(ads.len(), 2);
        assert!(matches!(
            ads[1].eval_attr("A"),
            crate::classad::Value::Int(2)
        ));
        assert!(parse_ads("").unwrap().is_empty());
    }
}
