//! How the tools that change the queue reach the schedd: one interface ([`Schedd`], and
//! [`submit`] behind [`super::submit::queue_jobs`]), two backends ([`Backend`]).
//!
//! - **Direct** (a personal pool): the tool opens the queue store in the spool and makes its
//!   change itself, in one transaction, as it always has. No daemon is needed.
//! - **Master** (a system pool): the spool is the master's and the tool cannot write it. The
//!   tool sends its request over the master's Unix socket; the master reads who is asking from
//!   the kernel (`SO_PEERCRED`, HTCondor's FS authentication), makes the change as that user
//!   in one transaction, with the same code the direct path runs, and answers with the
//!   outcome, which the tool prints exactly as it prints the direct path's. Reads (`condor_q`,
//!   the jobs `condor_prio` selects) stay direct, through a read-only connection.
//!
//! Which backend serves a tool: `CONDORLITE_QUEUE_ACCESS` (`auto`, the default; `direct`;
//! `master`). `auto` takes the master when the spool directory exists and belongs to another
//! user than the one running the tool, which is what a system pool's spool is (made by its
//! master, started by root); a personal pool's spool is its user's own. The master itself
//! always writes directly. A third backend, HTTP to a remote pool, is another variant here.
//!
//! The wire: the tool sends the line `SCHEDD`, then frames: a decimal length, a newline and
//! that many bytes of JSON. The first frame is an [`Envelope`]; the master answers with an
//! [`Answer`] frame. A submit is a conversation, as HTCondor's qmgmt protocol is: for each
//! submit description the master takes the next cluster id in its open transaction and sends
//! it ([`Answer::Cluster`]), the tool makes that description's jobs with it (reading the
//! user's files with the user's rights) and sends them ([`ClientMsg::Jobs`]), and the master
//! stores them and finally commits, all or nothing.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::actions::{act_on_jobs, ActionError, Outcome, Request};
use super::edit::{edit_jobs, set_priorities, EditOutcome, EditRequest};
use super::master::{socket_path, MasterError};
use super::submit::{limit_failure, Clusters, EventPlan, QueuedFactory, StagedJob, SubmitFailure};
use super::Session;
use crate::classad::ClassAd;
use crate::config::{Config, ConfigError};
use crate::queue::{AdKey, ClusterId, JobId, Queue, QueueError};
use crate::submit::{Job, SubmitFile};

/// The knob that chooses the backend.
pub const ACCESS_KNOB: &str = "CONDORLITE_QUEUE_ACCESS";

/// How a tool reaches the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The spool, directly.
    Direct,
    /// Requests to the master over its socket.
    Master,
}

impl Backend {
    /// The backend for a pool whose spool is `spool` (see the module documentation).
    pub fn choose(config: &Config, spool: &Path) -> Result<Backend, ConfigError> {
        let knob = config.string(ACCESS_KNOB)?.unwrap_or_default();
        match knob.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(match std::fs::metadata(spool) {
                Ok(m) if m.uid() != nix::unistd::geteuid().as_raw() => Backend::Master,
                _ => Backend::Direct,
            }),
            "direct" => Ok(Backend::Direct),
            "master" => Ok(Backend::Master),
            other => Err(ConfigError::new(format!(
                "{ACCESS_KNOB} must be auto, direct or master, not {other:?}"
            ))),
        }
    }
}

/// Why the schedd could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum ScheddError {
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error(transparent)]
    Master(#[from] MasterError),
}

/// A request as it travels to the master.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Envelope {
    /// Who the tool says it acts as (`CONDORLITE_USER`, or the OS user): the master takes it
    /// only from a queue superuser; anyone else is who the kernel says.
    pub user: String,
    /// The tool's time (`CONDORLITE_NOW`), taken from a queue superuser only.
    pub now: i64,
    pub request: WireRequest,
}

/// The queue changes the master makes for a tool.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum WireRequest {
    /// `condor_rm`, `condor_hold`, `condor_release`, `condor_vacate_job`, `condor_suspend`,
    /// `condor_continue`.
    Act(Request),
    /// `condor_qedit`.
    Edit(EditRequest),
    /// `condor_prio`: each job's new priority.
    Prio(Vec<(JobId, i32)>),
    /// `condor_submit`: `files` descriptions (or one job factory), then the conversation.
    Submit {
        files: usize,
        remote: bool,
        factory: Option<FactoryHeader>,
    },
}

/// What a job factory's submit sends besides its first job.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FactoryHeader {
    pub total_procs: i64,
    pub max_materialize: i64,
    pub digest: String,
}

/// The master's answers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Answer {
    Acted(Outcome),
    Edited(EditOutcome),
    /// The jobs whose priority could not be set.
    Refused(Vec<JobId>),
    /// The id a submit description's first cluster takes, how many more jobs the submit may
    /// add, and the bound that stops the next one.
    Cluster {
        id: i32,
        allow: i64,
        knob: String,
    },
    Submitted(Vec<Clusters>),
    /// A job factory's cluster, and its cluster ad as stored (new ClassAd syntax).
    Factory {
        cluster: i32,
        total_procs: i64,
        cluster_ad: String,
    },
    /// A submit refused, in condor_submit's words, at description `at`.
    SubmitFailed {
        at: usize,
        text: String,
    },
    /// The request failed (the store's error, or why the master refuses it).
    Failed(String),
}

/// What the tool sends during a submit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum ClientMsg {
    Jobs(Vec<WireJob>),
    /// The tool stopped (a job it refused): nothing is stored.
    Abort,
}

/// A [`StagedJob`] on the wire: its ads in new ClassAd syntax, which reads back as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WireJob {
    pub cluster_id: i64,
    pub proc_id: i64,
    pub own: String,
    pub cluster_ad: Option<String>,
}

impl WireJob {
    pub fn of(job: &StagedJob) -> Result<WireJob, QueueError> {
        let key = AdKey::Job(JobId::new(job.cluster_id as i32, job.proc_id as i32));
        let encode = |ad: &ClassAd| {
            crate::queue::encode_ad(ad).map_err(|u| QueueError::Unstorable {
                key,
                attr: u.attr,
                message: u.message,
            })
        };
        Ok(WireJob {
            cluster_id: job.cluster_id,
            proc_id: job.proc_id,
            own: encode(&job.own)?,
            cluster_ad: job.cluster_ad.as_ref().map(encode).transpose()?,
        })
    }

    pub fn staged(&self) -> Result<StagedJob, String> {
        let decode = |text: &str| crate::queue::decode_ad(text).map_err(|e| e.to_string());
        Ok(StagedJob {
            cluster_id: self.cluster_id,
            proc_id: self.proc_id,
            own: decode(&self.own)?,
            cluster_ad: self.cluster_ad.as_deref().map(decode).transpose()?,
        })
    }
}

/// The largest frame read, either way.
pub const MAX_FRAME: u64 = 256 * 1024 * 1024;

/// How long a tool waits for the master's answer (a large submit's commit may wait behind
/// another writer for the store's busy timeout).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);

/// Writes one frame.
pub fn write_frame<T: Serialize>(w: &mut impl Write, value: &T) -> std::io::Result<()> {
    let body = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    w.write_all(format!("{}\n", body.len()).as_bytes())?;
    w.write_all(&body)?;
    w.flush()
}

/// Reads one frame (at most [`MAX_FRAME`] bytes of JSON).
pub fn read_frame<T: for<'de> Deserialize<'de>>(r: &mut impl BufRead) -> std::io::Result<T> {
    let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    let mut line = String::new();
    r.by_ref().take(24).read_line(&mut line)?;
    let len: u64 = line
        .trim_end()
        .parse()
        .map_err(|_| bad(format!("a frame's length, not {:?}", line.trim_end())))?;
    if len > MAX_FRAME {
        return Err(bad(format!(
            "a frame of {len} bytes, more than {MAX_FRAME}"
        )));
    }
    let mut body = Vec::with_capacity(len.min(1 << 20) as usize);
    r.by_ref().take(len).read_to_end(&mut body)?;
    if body.len() as u64 != len {
        return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof));
    }
    serde_json::from_slice(&body).map_err(|e| bad(e.to_string()))
}

/// One exchange with the master.
struct Conversation {
    path: PathBuf,
    stream: UnixStream,
    reader: BufReader<UnixStream>,
}

impl Conversation {
    fn open(session: &Session, request: WireRequest) -> Result<Conversation, MasterError> {
        let path = socket_path(&session.config)?;
        let stream = super::master::connect(&path)?;
        let io = |source| MasterError::Io {
            path: path.clone(),
            source,
        };
        stream.set_read_timeout(Some(ANSWER_TIMEOUT)).map_err(io)?;
        let reader = BufReader::new(stream.try_clone().map_err(io)?);
        let mut c = Conversation {
            path: path.clone(),
            stream,
            reader,
        };
        c.stream.write_all(b"SCHEDD\n").map_err(io)?;
        c.send(&Envelope {
            user: session.user.clone(),
            now: session.now,
            request,
        })?;
        Ok(c)
    }

    fn io(&self, source: std::io::Error) -> MasterError {
        MasterError::Io {
            path: self.path.clone(),
            source,
        }
    }

    fn send<T: Serialize>(&mut self, value: &T) -> Result<(), MasterError> {
        write_frame(&mut self.stream, value).map_err(|e| self.io(e))
    }

    /// The master's next answer; a failure it reports is an error.
    fn answer(&mut self) -> Result<Answer, MasterError> {
        match read_frame(&mut self.reader) {
            Ok(Answer::Failed(text)) => Err(MasterError::Refused(text)),
            Ok(answer) => Ok(answer),
            Err(e) => Err(self.io(e)),
        }
    }
}

/// An answer that does not belong where it came.
fn unexpected(answer: &Answer) -> MasterError {
    let shown = format!("{answer:?}");
    MasterError::Refused(format!(
        "unexpected answer {}",
        shown.chars().take(80).collect::<String>()
    ))
}

/// One request to the master, answered at once.
fn ask(session: &Session, request: WireRequest) -> Result<Answer, MasterError> {
    Conversation::open(session, request)?.answer()
}

/// The schedd a tool changes the queue through.
pub enum Schedd {
    Direct(Queue),
    /// The master's socket; reads go through a read-only connection, opened when needed.
    Master {
        reads: Option<Queue>,
    },
}

impl Schedd {
    /// The schedd of `session`'s pool: its queue opened (direct), or nothing yet (master).
    pub fn connect(session: &Session) -> Result<Schedd, ScheddError> {
        Ok(match session.backend() {
            Backend::Direct => Schedd::Direct(session.open_queue()?),
            Backend::Master => Schedd::Master { reads: None },
        })
    }

    /// The queue, to read.
    pub fn reader(&mut self, session: &Session) -> Result<&mut Queue, ScheddError> {
        Ok(match self {
            Schedd::Direct(queue) => queue,
            Schedd::Master { reads } => match reads {
                Some(q) => q,
                slot => slot.insert(session.open_queue()?),
            },
        })
    }

    /// Acts on jobs ([`act_on_jobs`]).
    pub fn act(&mut self, session: &Session, request: &Request) -> Result<Outcome, ActionError> {
        match self {
            Schedd::Direct(queue) => act_on_jobs(session, queue, request),
            Schedd::Master { .. } => match ask(session, WireRequest::Act(request.clone()))? {
                Answer::Acted(outcome) => Ok(outcome),
                other => Err(unexpected(&other).into()),
            },
        }
    }

    /// Edits job attributes ([`edit_jobs`]).
    pub fn edit(
        &mut self,
        session: &Session,
        request: &EditRequest,
    ) -> Result<EditOutcome, ScheddError> {
        match self {
            Schedd::Direct(queue) => Ok(edit_jobs(session, queue, request)?),
            Schedd::Master { .. } => match ask(session, WireRequest::Edit(request.clone()))? {
                Answer::Edited(outcome) => Ok(outcome),
                other => Err(unexpected(&other).into()),
            },
        }
    }

    /// Sets job priorities ([`set_priorities`]); returns the jobs refused.
    pub fn set_priorities(
        &mut self,
        session: &Session,
        changes: &[(JobId, i32)],
    ) -> Result<Vec<JobId>, ScheddError> {
        match self {
            Schedd::Direct(queue) => Ok(set_priorities(session, queue, changes)?),
            Schedd::Master { .. } => match ask(session, WireRequest::Prio(changes.to_vec()))? {
                Answer::Refused(ids) => Ok(ids),
                other => Err(unexpected(&other).into()),
            },
        }
    }
}

/// What condor_submit says when the master cannot be asked.
fn master_failure(session: &Session, e: MasterError) -> SubmitFailure {
    match e {
        MasterError::NotRunning(_) => SubmitFailure::Text(format!(
            "\nERROR: Can't find address of local schedd\n{}\n",
            super::master::start_hint(&session.config)
        )),
        MasterError::Refused(text) => SubmitFailure::Remote(text),
        e => SubmitFailure::Remote(e.to_string()),
    }
}

/// [`super::submit::queue_jobs`] through the master: each description's jobs are made here,
/// with the cluster id the master's transaction took, and stored there.
pub fn submit(
    session: &Session,
    files: &[&SubmitFile],
    remote: bool,
    on_job: &mut dyn FnMut(usize, &Job) -> Result<(), SubmitFailure>,
) -> Result<(Vec<Clusters>, EventPlan), (usize, SubmitFailure)> {
    let request = WireRequest::Submit {
        files: files.len(),
        remote,
        factory: None,
    };
    let failed = |at: usize, e: MasterError| (at, master_failure(session, e));
    let mut c = Conversation::open(session, request).map_err(|e| failed(0, e))?;
    let mut events = EventPlan::new();
    for (i, file) in files.iter().enumerate() {
        let (first, allow, knob) = match next_cluster(&mut c).map_err(|e| failed(i, e))? {
            Ok(cluster) => cluster,
            Err((at, text)) => return Err((at, SubmitFailure::Text(text))),
        };
        let mut jobs = Vec::new();
        let mut made = || -> Result<(), SubmitFailure> {
            for job in file.jobs(i64::from(first)) {
                let job = job?;
                if jobs.len() as i64 >= allow {
                    return Err(limit_failure(&knob));
                }
                on_job(i, &job)?;
                events.add(session, &job);
                jobs.push(WireJob::of(&StagedJob::of(&job)?)?);
            }
            Ok(())
        };
        if let Err(e) = made() {
            let _ = c.send(&ClientMsg::Abort);
            return Err((i, e));
        }
        c.send(&ClientMsg::Jobs(jobs)).map_err(|e| failed(i, e))?;
    }
    match c
        .answer()
        .map_err(|e| failed(files.len().saturating_sub(1), e))?
    {
        Answer::Submitted(made) => Ok((made, events)),
        Answer::SubmitFailed { at, text } => Err((at, SubmitFailure::Text(text))),
        other => Err(failed(0, unexpected(&other))),
    }
}

/// The next cluster of a submit conversation: its id, the jobs allowed and the bound, or the
/// submit's failure (`at`, condor_submit's words).
#[allow(clippy::type_complexity)]
fn next_cluster(
    c: &mut Conversation,
) -> Result<Result<(i32, i64, String), (usize, String)>, MasterError> {
    match c.answer()? {
        Answer::Cluster { id, allow, knob } => Ok(Ok((id, allow, knob))),
        Answer::SubmitFailed { at, text } => Ok(Err((at, text))),
        other => Err(unexpected(&other)),
    }
}

/// [`super::submit::queue_factory`] through the master.
pub fn submit_factory(
    session: &Session,
    file: &SubmitFile,
    remote: bool,
    factory: FactoryHeader,
    on_first: &mut dyn FnMut(&Job) -> Result<(), SubmitFailure>,
) -> Result<QueuedFactory, SubmitFailure> {
    let request = WireRequest::Submit {
        files: 1,
        remote,
        factory: Some(factory),
    };
    let failed = |e: MasterError| master_failure(session, e);
    let mut c = Conversation::open(session, request).map_err(failed)?;
    let (first, _, _) = next_cluster(&mut c)
        .map_err(failed)?
        .map_err(|(_, text)| SubmitFailure::Text(text))?;
    let staged = (|| -> Result<WireJob, SubmitFailure> {
        let Some(job) = file.jobs(i64::from(first)).next() else {
            return Err(SubmitFailure::Text(
                "\nERROR: Failed to queue job.\n".into(),
            ));
        };
        let job = job?;
        on_first(&job)?;
        Ok(WireJob::of(&StagedJob::of(&job)?)?)
    })();
    let job = match staged {
        Ok(job) => job,
        Err(e) => {
            let _ = c.send(&ClientMsg::Abort);
            return Err(e);
        }
    };
    c.send(&ClientMsg::Jobs(vec![job])).map_err(failed)?;
    match c.answer().map_err(failed)? {
        Answer::Factory {
            cluster,
            total_procs,
            cluster_ad,
        } => Ok(QueuedFactory {
            cluster: ClusterId(cluster),
            total_procs,
            cluster_ad: crate::queue::decode_ad(&cluster_ad)
                .map_err(|e| SubmitFailure::Remote(e.to_string()))?,
        }),
        Answer::SubmitFailed { text, .. } => Err(SubmitFailure::Text(text)),
        other => Err(failed(unexpected(&other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path, text: &str) -> Config {
        Config::for_test(text, "TOOL", None, dir)
    }

    #[test]
    fn the_backend_is_the_master_for_a_spool_of_another_user() {
        let dir = tempfile::tempdir().unwrap();
        let spool = dir.path().join("spool");
        let auto = config(dir.path(), "");
        // No spool yet, or one's own: direct.
        assert_eq!(Backend::choose(&auto, &spool).unwrap(), Backend::Direct);
        std::fs::create_dir(&spool).unwrap();
        assert_eq!(Backend::choose(&auto, &spool).unwrap(), Backend::Direct);
        let forced = config(dir.path(), "CONDORLITE_QUEUE_ACCESS = Master\n");
        assert_eq!(Backend::choose(&forced, &spool).unwrap(), Backend::Master);
        let bad = config(dir.path(), "CONDORLITE_QUEUE_ACCESS = socket\n");
        assert_eq!(
            Backend::choose(&bad, &spool).unwrap_err().message,
            "CONDORLITE_QUEUE_ACCESS must be auto, direct or master, not \"socket\""
        );
        if nix::unistd::geteuid().is_root() {
            // A spool that is another user's (nobody's here): a system pool.
            std::os::unix::fs::chown(&spool, Some(65534), None).unwrap();
            assert_eq!(Backend::choose(&auto, &spool).unwrap(), Backend::Master);
            let direct = config(dir.path(), "CONDORLITE_QUEUE_ACCESS = direct\n");
            assert_eq!(Backend::choose(&direct, &spool).unwrap(), Backend::Direct);
        }
    }

    #[test]
    fn frames_round_trip_and_are_bounded() {
        let mut buf = Vec::new();
        let answer = Answer::Cluster {
            id: 7,
            allow: 3,
            knob: "MAX_JOBS_PER_OWNER".into(),
        };
        write_frame(&mut buf, &answer).unwrap();
        let read: Answer = read_frame(&mut &buf[..]).unwrap();
        assert!(matches!(
            read,
            Answer::Cluster {
                id: 7,
                allow: 3,
                ..
            }
        ));
        let huge = format!("{}\n", MAX_FRAME + 1);
        assert!(read_frame::<Answer>(&mut huge.as_bytes()).is_err());
        assert!(read_frame::<Answer>(&mut &b"12\n{}"[..]).is_err());
    }
}
