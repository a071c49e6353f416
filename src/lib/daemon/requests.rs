//! The schedd's queue changes for the tools of a system pool ([`crate::client::schedd`]),
//! served on the connection's own thread with a queue connection of its own, so that a
//! large submit holds up neither the main loop nor other clients. The master wakes its main
//! loop once something changed.
//!
//! Who asks is who the kernel says (`SO_PEERCRED`): the uid's user name is the session's
//! user, whatever the tool claims; the claim (`CONDORLITE_USER`) and the tool's clock
//! (`CONDORLITE_NOW`) are taken from a queue superuser only (`QUEUE_SUPER_USERS`, and the
//! user the master runs as, as the schedd adds its own user). Ownership is then checked by
//! the same code the direct path runs: only the owner or a superuser acts on a job, with
//! HTCondor's refusals.

use std::io::BufRead;
use std::os::unix::net::UnixStream;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use crate::client::actions::act_on_jobs;
use crate::client::edit::{edit_jobs, set_priorities};
use crate::client::schedd::{
    read_frame, write_frame, Answer, ClientMsg, Envelope, FactoryHeader, WireJob, WireRequest,
};
use crate::client::submit::{store_factory, ScheddSubmit, SubmitFailure};
use crate::client::Session;
use crate::config::Config;
use crate::queue::QueueError;

use super::{Msg, Peer};

/// The longest a conversation may take, the tool's making of its jobs included: the store's
/// write lock is held meanwhile.
const CONVERSATION_DEADLINE: Duration = Duration::from_secs(120);

/// Serves one `SCHEDD` request whose frames follow on `reader`.
pub(super) fn serve(
    stream: &UnixStream,
    reader: &mut impl BufRead,
    peer: Peer,
    to_main: &Sender<Msg>,
) {
    let deadline = Instant::now() + CONVERSATION_DEADLINE;
    let _ = stream.set_read_timeout(Some(CONVERSATION_DEADLINE));
    let envelope: Envelope = match read_frame(reader) {
        Ok(e) => e,
        Err(e) => {
            let _ = write_frame(&mut &*stream, &Answer::Failed(format!("bad request: {e}")));
            return;
        }
    };
    let session = match session_for(peer, &envelope) {
        Ok(s) => s,
        Err(text) => {
            let _ = write_frame(&mut &*stream, &Answer::Failed(text));
            return;
        }
    };
    tracing::info!(
        "schedd request from uid {} ({}): {}",
        peer.uid,
        session.user,
        request_name(&envelope.request)
    );
    let mut conversation = Conversation {
        stream,
        reader,
        deadline,
    };
    let answer = match answer(&session, envelope.request, &mut conversation) {
        Ok(a) => a,
        Err(Gone) => return,
    };
    let changed = !matches!(answer, Answer::Failed(_) | Answer::SubmitFailed { .. });
    let _ = write_frame(&mut &*stream, &answer);
    if changed {
        let _ = to_main.send(Msg::Wake);
    }
}

fn request_name(request: &WireRequest) -> String {
    match request {
        WireRequest::Act(r) => format!("{:?} {:?}", r.action, r.target),
        WireRequest::Edit(r) => format!("edit {:?}", r.edits),
        WireRequest::Prio(c) => format!("prio of {} jobs", c.len()),
        WireRequest::Submit { files, factory, .. } => {
            format!(
                "submit of {files} descriptions (factory: {})",
                factory.is_some()
            )
        }
    }
}

/// The session a request is served in: the peer's user, or whom a superuser names.
fn session_for(peer: Peer, envelope: &Envelope) -> Result<Session, String> {
    let config = Config::load().map_err(|e| e.to_string())?;
    let name = |uid: u32| {
        nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
            .ok()
            .flatten()
            .map(|u| u.name)
    };
    let user = name(peer.uid).ok_or_else(|| format!("uid {} has no user name", peer.uid))?;
    let session = served_session(config, user)?;
    if !session.user_is_superuser() || envelope.user.is_empty() {
        return Ok(session);
    }
    let mut session = session;
    session.user = envelope.user.clone();
    session.now = envelope.now;
    Ok(session)
}

/// The session the master serves `user`'s requests in, now: it writes the queue directly,
/// and its own user is a queue superuser. The Unix socket and the HTTP server both serve
/// requests in one.
pub(super) fn served_session(config: Config, user: String) -> Result<Session, String> {
    let master = nix::unistd::User::from_uid(nix::unistd::geteuid())
        .ok()
        .flatten()
        .map(|u| u.name);
    Ok(Session::new(config, user, super::now())
        .map_err(|e| e.to_string())?
        .direct()
        .served_by(master))
}

/// The tool went away mid-conversation: nothing to answer.
struct Gone;

/// A submit's exchange with the tool, under the conversation's deadline.
struct Conversation<'a, R> {
    stream: &'a UnixStream,
    reader: &'a mut R,
    deadline: Instant,
}

impl<R: BufRead> Conversation<'_, R> {
    fn send(&mut self, answer: &Answer) -> Result<(), Gone> {
        write_frame(&mut &*self.stream, answer).map_err(|_| Gone)
    }

    fn receive(&mut self) -> Result<ClientMsg, Gone> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || self.stream.set_read_timeout(Some(left)).is_err() {
            return Err(Gone);
        }
        read_frame(self.reader).map_err(|_| Gone)
    }
}

fn answer<R: BufRead>(
    session: &Session,
    request: WireRequest,
    c: &mut Conversation<'_, R>,
) -> Result<Answer, Gone> {
    let mut queue = match session.open_queue() {
        Ok(q) => q,
        Err(e) => return Ok(Answer::Failed(e.to_string())),
    };
    Ok(match request {
        WireRequest::Act(request) => change(session, &mut queue, Change::Act(request)),
        WireRequest::Edit(request) => change(session, &mut queue, Change::Edit(request)),
        WireRequest::Prio(changes) => change(session, &mut queue, Change::Prio(changes)),
        WireRequest::Submit { ref factory, .. } if !may_submit(session, factory.is_some()) => {
            Answer::SubmitFailed {
                at: 0,
                text: refusal(session, factory.is_some()),
            }
        }
        WireRequest::Submit {
            files,
            remote,
            factory,
        } => {
            let mut at = 0;
            let result = queue.transaction(|tx| -> Result<Answer, Stop> {
                let mut schedd = ScheddSubmit::begin(tx, session, remote)?;
                let mut made = Vec::new();
                for i in 0..files {
                    at = i;
                    let first = schedd.new_file(tx)?;
                    let (allow, knob) = schedd.allowance(tx)?;
                    c.send(&Answer::Cluster {
                        id: first.0,
                        allow,
                        knob: knob.to_owned(),
                    })?;
                    let jobs = match c.receive()? {
                        ClientMsg::Jobs(jobs) => jobs,
                        ClientMsg::Abort => return Err(Stop::Gone),
                    };
                    if let Some(f) = &factory {
                        return factory_answer(tx, session, first, &jobs, f, remote);
                    }
                    for job in &jobs {
                        schedd.check_limits(tx)?;
                        schedd.store(tx, staged(job)?)?;
                    }
                    made.push(std::mem::take(&mut schedd.clusters));
                }
                Ok(Answer::Submitted(made))
            });
            match result {
                Ok(answer) => answer,
                Err(Stop::Gone) => return Err(Gone),
                Err(Stop::Failure(SubmitFailure::Text(text))) => Answer::SubmitFailed { at, text },
                Err(Stop::Failure(SubmitFailure::Queue(e))) => Answer::Failed(e.to_string()),
                Err(Stop::Failure(SubmitFailure::Remote(e))) => Answer::Failed(e),
            }
        }
    })
}

/// A queue change made in one answer, without a conversation.
pub(super) enum Change {
    Act(crate::client::actions::Request),
    Edit(crate::client::edit::EditRequest),
    Prio(Vec<(crate::queue::JobId, i32)>),
}

/// Makes a change as `session`'s user, with the same ownership checks whoever asks (the
/// Unix socket's tools, the HTTP server's clients).
pub(super) fn change(session: &Session, queue: &mut crate::queue::Queue, change: Change) -> Answer {
    match change {
        Change::Act(request) => match act_on_jobs(session, queue, &request) {
            Ok(outcome) => Answer::Acted(outcome),
            Err(e) => Answer::Failed(e.to_string()),
        },
        Change::Edit(request) => match edit_jobs(session, queue, &request) {
            Ok(outcome) => Answer::Edited(outcome),
            Err(e) => Answer::Failed(e.to_string()),
        },
        Change::Prio(changes) => match set_priorities(session, queue, &changes) {
            Ok(refused) => Answer::Refused(refused),
            Err(e) => Answer::Failed(e.to_string()),
        },
    }
}

/// How a submit's transaction ends without committing.
enum Stop {
    Failure(SubmitFailure),
    Gone,
}

impl From<Gone> for Stop {
    fn from(_: Gone) -> Self {
        Stop::Gone
    }
}

impl From<SubmitFailure> for Stop {
    fn from(f: SubmitFailure) -> Self {
        Stop::Failure(f)
    }
}

impl From<QueueError> for Stop {
    fn from(e: QueueError) -> Self {
        Stop::Failure(e.into())
    }
}

fn staged(job: &WireJob) -> Result<crate::client::submit::StagedJob, SubmitFailure> {
    job.staged()
        .map_err(|e| SubmitFailure::Remote(format!("a job that does not parse: {e}")))
}

/// A job factory's submit: its first job, stored as the factory's cluster.
fn factory_answer(
    tx: &mut crate::queue::Transaction<'_>,
    session: &Session,
    id: crate::queue::ClusterId,
    jobs: &[WireJob],
    factory: &FactoryHeader,
    remote: bool,
) -> Result<Answer, Stop> {
    let [first] = jobs else {
        return Err(Stop::Failure(SubmitFailure::Text(
            "\nERROR: Failed to queue job.\n".into(),
        )));
    };
    let queued = store_factory(
        tx,
        session,
        id,
        staged(first)?,
        factory.total_procs,
        factory.max_materialize,
        &factory.digest,
        remote,
    )?;
    let cluster_ad = crate::queue::encode_ad(&queued.cluster_ad)
        .map_err(|u| SubmitFailure::Remote(format!("{}: {}", u.attr, u.message)))?;
    Ok(Answer::Factory {
        cluster: queued.cluster.0,
        total_procs: queued.total_procs,
        cluster_ad,
    })
}

/// The knob that lets users who are not queue superusers submit what would run with the
/// master's user's rights: any job where jobs run as the master's user (a master that is not
/// root, or [`crate::starter::identity::RUN_AS_OWNER_KNOB`] off), and job factories (whose
/// materialization parses the submit description again in the master, `include command` and
/// all, as the master's user). Off by default.
pub const USER_SUBMIT_KNOB: &str = "CONDORLITE_ALLOW_USER_SUBMIT";

/// Whether the session's user may submit (a job `factory` or not) through the master: a
/// queue superuser; anyone when the master runs jobs as their owners, except a job factory;
/// anyone where the pool allows it ([`USER_SUBMIT_KNOB`]).
fn may_submit(session: &Session, factory: bool) -> bool {
    session.user_is_superuser()
        || (!factory && crate::starter::identity::runs_jobs_as_owners(&session.config))
        || matches!(session.config.bool(USER_SUBMIT_KNOB), Ok(Some(true)))
}

/// Why [`may_submit`] refused.
fn refusal(session: &Session, factory: bool) -> String {
    let why = if factory && crate::starter::identity::runs_jobs_as_owners(&session.config) {
        "a job factory's jobs are made in the condor_master, which reads the submit \
         description again (includes and commands) with its own rights"
    } else {
        "its jobs run as the user the condor_master runs as, not as their owners"
    };
    format!(
        "{} may not submit {} to this pool: {why}, so only a queue superuser may \
         (the pool's {USER_SUBMIT_KNOB} = True lets every user, with that user's rights)\n",
        session.user,
        if factory { "a job factory" } else { "jobs" },
    )
}

/// Whether the session's user may have the master read a submit description for them (a
/// submit over HTTP, read in the master with its rights, not the user's): a queue
/// superuser, or anyone where the pool allows it ([`USER_SUBMIT_KNOB`]).
pub(super) fn may_submit_in_master(session: &Session) -> bool {
    session.user_is_superuser() || matches!(session.config.bool(USER_SUBMIT_KNOB), Ok(Some(true)))
}

/// Why [`may_submit_in_master`] refused.
pub(super) fn submit_in_master_refusal(session: &Session) -> String {
    format!(
        "{} may not submit over HTTP to this pool: the submit description is read in the \
         condor_master, with its rights, so only a queue superuser may (the pool's \
         {USER_SUBMIT_KNOB} = True lets every user, with that user's rights)\n",
        session.user
    )
}

/// Whether `peer` may send the master's administrative commands (`condor_off`, `condor_on`,
/// `condor_restart`, `condor_reconfig`, `condor_drain`, and the job signals the schedd
/// sends): root, and the user the master runs as.
pub(super) fn is_admin(peer: Peer) -> bool {
    peer.uid == 0 || peer.uid == nix::unistd::geteuid().as_raw()
}
