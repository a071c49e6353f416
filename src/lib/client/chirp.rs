//! Chirp requests from inside a running job (`condor_chirp`): what HTCondor's starter
//! (io_proxy_handler.cpp), shadow (pseudo_ops.cpp) and schedd (qmgmt.cpp `SetAttribute`) do
//! between them for a job, done here on the queue and the job's files.
//!
//! A job is known by its scratch directory: the directory of its `.chirp.config`, which
//! must be `$(EXECUTE)/dir_C_P_N` of job `C.P` (the ids its `.job.ad` gives), and the job
//! must be running. Every request acts on that job only, as the job's owner. With the
//! spool as the backend this is as strong as the spool's permissions (whoever may write the
//! spool may change any job); a backend that serves many users (the master's socket) tells
//! the job from the caller's process instead, behind the same [`ChirpJob`].
//!
//! - `set_job_attr`: `SetAttribute` with `SHOULDLOG` as the shadow's job updater makes it
//!   for the job's owner: the name must be valid and the value one line that parses
//!   (`EINVAL`), immutable, protected (even for a queue superuser: the shadow acts for the
//!   user) and secure attributes are refused (`EACCES`); the change is committed at once
//!   and an attribute-update event (033) goes to the job's logs.
//! - `set_job_attr_delayed`: the starter's `recordDelayedUpdate`: values longer than 993
//!   characters are refused (`ENAMETOOLONG`); a value that does not parse is dropped but
//!   answered as done (HTCondor's starter answers 0); a name that does not match
//!   `CHIRP_DELAYED_UPDATE_PREFIX`, or a new name past `CHIRP_DELAYED_UPDATE_MAX_ATTRS`, is
//!   answered 1 (not an error: `condor_chirp` exits 1 without a message). The starter keeps
//!   the updates (here in the scratch directory, [`DELAYED_UPDATES_FILE`]) and HTCondor
//!   sends them to the schedd with its next periodic update, without an event; condorlite
//!   commits them at once, also without an event.
//! - `get_job_attr`: the attribute in the queue's job ad, unparsed, or `UNDEFINED`;
//!   `get_job_attr_delayed`: the delayed update, else the attribute of the job ad the job
//!   started with, else `ENOENT`.
//! - `ulog`: a generic event (008) in the job's logs, its text cut to 1023 bytes (HTCondor's
//!   `GenericEvent::info`); line breaks become spaces, so that the log stays readable.
//! - Files (`WantIOProxy`): the remote side is the job's submit directory (`Iwd`, where
//!   HTCondor's shadow resolves them); paths are confined to it ([`chirp::open_below`]).
//!
//! A request the job may not make (chirp disabled, `WantIOProxy` not set) is `EINVAL`, as
//! the starter's `CHIRP_ERROR_INVALID_REQUEST`.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::errno::Errno;

use crate::classad::parser::parse_old_ad;
use crate::classad::unparse::{expr_to_old_string, expr_to_string};
use crate::classad::{parse_expr, ClassAd, Expr};
use crate::config::expand::{tokens, DEFAULT_DELIMS};
use crate::config::{Config, Environment};
use crate::eventlog::{AttributeUpdate, EventBody, Generic};
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::{JobId, JobStatus, QueueError};
use crate::starter::chirp::{self, Features, OpenMode, DELAYED_UPDATES_FILE};
use crate::starter::env::JOB_AD_FILE;
use crate::starter::waiter;

use super::userlog::JobLogs;
use super::Session;

/// The longest value `set_job_attr_delayed` takes.
const MAX_DELAYED_VALUE: usize = 993;
/// The longest text of a generic event (`GenericEvent::info` holds 1024 bytes with its NUL).
const MAX_ULOG_TEXT: usize = 1023;
/// How long a job that has just been started waits for the daemon to have committed its
/// start and logged its execute event (which happen just after the job's process begins).
const START_WAIT: Duration = Duration::from_secs(10);

/// The pool's configuration as the starter recorded it in `.chirp.config`.
pub fn pool_config(chirp_config: &Path) -> std::io::Result<(Config, Environment)> {
    let env = chirp::read_config(chirp_config)?;
    let config = Config::load_with(crate::config::LoadOptions {
        env: env.clone(),
        ..crate::config::LoadOptions::from_process()
    })
    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
    Ok((config, env))
}

/// A running job, as its own Chirp requests see it.
#[derive(Debug)]
pub struct ChirpJob {
    session: Session,
    id: JobId,
    scratch: PathBuf,
    /// Where the job's remote files are (the job's `Iwd`).
    iwd: PathBuf,
    features: Features,
}

impl ChirpJob {
    /// The job whose scratch directory is `scratch`, in the pool of `config`, at `now`.
    /// Not a running job's scratch directory: `ECONNREFUSED` (no starter answers there).
    pub fn attach(config: Config, now: i64, scratch: &Path) -> Result<ChirpJob, Errno> {
        let refused = |_| Errno::ECONNREFUSED;
        let scratch = std::fs::canonicalize(scratch).map_err(refused)?;
        let job_ad = chirp::read_small(&scratch.join(JOB_AD_FILE)).map_err(refused)?;
        let job_ad =
            parse_old_ad(&String::from_utf8_lossy(&job_ad)).map_err(|_| Errno::ECONNREFUSED)?;
        let id = match (
            lookup_int(&job_ad, "ClusterId"),
            lookup_int(&job_ad, "ProcId"),
        ) {
            (Some(c), Some(p)) => JobId::new(
                i32::try_from(c).map_err(|_| Errno::ECONNREFUSED)?,
                i32::try_from(p).map_err(|_| Errno::ECONNREFUSED)?,
            ),
            _ => return Err(Errno::ECONNREFUSED),
        };
        if !is_scratch_of(&config, &scratch, id) {
            return Err(Errno::ECONNREFUSED);
        }
        let user = super::os_user().unwrap_or_default();
        let mut session = Session::new(config, user, now).map_err(|_| Errno::ECONNREFUSED)?;
        // The job may ask before its start is committed and its execute event logged: its
        // requests wait for both (the daemon marks the scratch directory once the event is
        // in the log), so that what they log comes after it.
        let deadline = Instant::now() + START_WAIT;
        while !waiter::executed(&scratch) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let ad = job_ad_of(&session, id)?.ok_or(Errno::ECONNREFUSED)?;
        if !matches!(
            lookup_int(&ad, "JobStatus").and_then(JobStatus::from_code),
            Some(JobStatus::Running | JobStatus::TransferringOutput | JobStatus::Suspended)
        ) {
            return Err(Errno::ECONNREFUSED);
        }
        // The shadow acts for the job's owner.
        if let Some(owner) = lookup_str(&ad, "Owner") {
            session.user = owner.to_string();
        }
        let iwd = lookup_str(&ad, "Iwd")
            .map(|s| PathBuf::from(&*s))
            .unwrap_or_else(|| scratch.clone());
        let features = Features::of(&ad, &session.config);
        Ok(ChirpJob {
            session,
            id,
            scratch,
            iwd,
            features,
        })
    }

    pub fn id(&self) -> JobId {
        self.id
    }

    fn need(&self, allowed: bool) -> Result<(), Errno> {
        if allowed {
            Ok(())
        } else {
            Err(Errno::EINVAL)
        }
    }

    fn queue_ad(&self) -> Result<ClassAd, Errno> {
        job_ad_of(&self.session, self.id)?.ok_or(Errno::ENOENT)
    }

    /// `get_job_attr`: the attribute's expression, unparsed, or `UNDEFINED`.
    pub fn get_job_attr(&self, name: &str) -> Result<String, Errno> {
        self.need(self.features.updates)?;
        let ad = self.queue_ad()?;
        Ok(ad
            .lookup(name)
            .map_or_else(|| "UNDEFINED".to_owned(), expr_to_string))
    }

    /// `set_job_attr`: the attribute set in the queue, and an attribute-update event.
    pub fn set_job_attr(&mut self, name: &str, value: &str) -> Result<(), Errno> {
        self.need(self.features.updates)?;
        if !super::jobattr::valid_attr_name(name) || value.contains(['\n', '\r']) {
            return Err(Errno::EINVAL);
        }
        let expr = parse_expr(value).map_err(|_| Errno::EINVAL)?;
        if super::jobattr::protection(&self.session, name).is_some() {
            return Err(Errno::EACCES);
        }
        let (ad, old) = self.commit(name, expr)?;
        JobLogs::of(&self.session, &ad).write(
            self.id.cluster.0,
            self.id.proc,
            self.session.now,
            EventBody::AttributeUpdate(AttributeUpdate {
                name: name.to_owned(),
                value: value.to_owned(),
                old_value: old,
            }),
        );
        super::master::wake(&self.session.config);
        Ok(())
    }

    /// Sets `name` in the job's queue ad; returns the ad as it was and the old value.
    fn commit(&mut self, name: &str, expr: Expr) -> Result<(ClassAd, Option<String>), Errno> {
        let id = self.id;
        let user = self.session.user.clone();
        let mut queue = self.session.open_queue().map_err(queue_errno)?;
        queue
            .transaction(|tx| -> Result<(ClassAd, Option<String>), QueueError> {
                let ad = tx.job(id)?.ok_or(QueueError::JobNotFound(id))?.into_ad()?;
                if lookup_str(&ad, "Owner").as_deref() != Some(user.as_str()) {
                    return Err(QueueError::JobNotFound(id));
                }
                let old = ad.lookup(name).map(expr_to_old_string);
                tx.set_attr(id, name, expr)?;
                Ok((ad, old))
            })
            .map_err(queue_errno)
    }

    /// `set_job_attr_delayed`: `Ok(0)` when recorded (or dropped because the value does not
    /// parse), `Ok(1)` when the name is not one the starter takes.
    pub fn set_job_attr_delayed(&mut self, name: &str, value: &str) -> Result<i32, Errno> {
        self.need(self.features.delayed)?;
        if value.len() > MAX_DELAYED_VALUE {
            return Err(Errno::ENAMETOOLONG);
        }
        let Ok(expr) = parse_expr(value) else {
            return Ok(0);
        };
        if !self.delayed_name_allowed(name) {
            return Ok(1);
        }
        let mut delayed = self.delayed_updates();
        let is_new = delayed.lookup(name).is_none();
        let max = self
            .session
            .config
            .int("CHIRP_DELAYED_UPDATE_MAX_ATTRS")
            .ok()
            .flatten()
            .unwrap_or(100);
        if is_new && delayed.own_iter().count() as i64 >= max {
            return Ok(1);
        }
        delayed.insert(name, expr.clone());
        let path = self.scratch.join(DELAYED_UPDATES_FILE);
        let tmp = self.scratch.join(format!("{DELAYED_UPDATES_FILE}.tmp"));
        std::fs::write(&tmp, crate::classad::unparse::ad_to_old(&delayed, false))
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(io_errno)?;
        // HTCondor sends them with the starter's next update; condorlite at once.
        self.commit(name, expr)?;
        super::master::wake(&self.session.config);
        Ok(0)
    }

    /// Whether `name` matches `CHIRP_DELAYED_UPDATE_PREFIX` (a list of names with `*`
    /// wildcards, compared without case).
    fn delayed_name_allowed(&self, name: &str) -> bool {
        let prefix = self
            .session
            .config
            .string("CHIRP_DELAYED_UPDATE_PREFIX")
            .ok()
            .flatten()
            .unwrap_or_default();
        tokens(&prefix, DEFAULT_DELIMS)
            .iter()
            .any(|pattern| crate::submit::argenv::matches_wildcard(pattern, name))
    }

    /// The delayed updates the job made in this run.
    fn delayed_updates(&self) -> ClassAd {
        chirp::read_small(&self.scratch.join(DELAYED_UPDATES_FILE))
            .ok()
            .and_then(|b| parse_old_ad(&String::from_utf8_lossy(&b)).ok())
            .unwrap_or_default()
    }

    /// `get_job_attr_delayed`: the delayed update, else the job ad the run started with.
    pub fn get_job_attr_delayed(&self, name: &str) -> Result<String, Errno> {
        self.need(self.features.delayed)?;
        if let Some(e) = self.delayed_updates().lookup(name) {
            return Ok(expr_to_string(e));
        }
        let started = chirp::read_small(&self.scratch.join(JOB_AD_FILE))
            .ok()
            .and_then(|b| parse_old_ad(&String::from_utf8_lossy(&b)).ok())
            .unwrap_or_default();
        started
            .lookup(name)
            .map(expr_to_string)
            .ok_or(Errno::ENOENT)
    }

    /// `ulog`: a generic event in the job's logs.
    pub fn ulog(&self, text: &str) -> Result<(), Errno> {
        self.need(self.features.updates)?;
        let mut info: String = text.replace(['\n', '\r'], " ");
        if info.len() > MAX_ULOG_TEXT {
            let mut end = MAX_ULOG_TEXT;
            while !info.is_char_boundary(end) {
                end -= 1;
            }
            info.truncate(end);
        }
        let ad = self.queue_ad()?;
        JobLogs::of(&self.session, &ad).write(
            self.id.cluster.0,
            self.id.proc,
            self.session.now,
            EventBody::Generic(Generic { info }),
        );
        Ok(())
    }

    /// Opens a remote file (`getfile`, `open`).
    pub fn open(&self, remote: &str, mode: OpenMode, perm: u32) -> Result<File, Errno> {
        self.need(self.features.io)?;
        chirp::open_below(&self.iwd, remote, mode, perm)
    }

    /// `unlink`: removes a remote file.
    pub fn unlink(&self, remote: &str) -> Result<(), Errno> {
        self.need(self.features.io)?;
        chirp::unlink_below(&self.iwd, remote)
    }

    /// `whoami`: the shadow's name for itself.
    pub fn whoami(&self) -> Result<&'static str, Errno> {
        self.need(self.features.io)?;
        Ok("CONDOR")
    }
}

/// Whether `dir` (canonical) is a scratch directory of job `id`: `$(EXECUTE)/dir_C_P_N`.
fn is_scratch_of(config: &Config, dir: &Path, id: JobId) -> bool {
    let Some(execute) = config
        .string("EXECUTE")
        .ok()
        .flatten()
        .and_then(|e| std::fs::canonicalize(e).ok())
    else {
        return false;
    };
    let prefix = format!("dir_{}_{}_", id.cluster.0, id.proc);
    dir.parent() == Some(execute.as_path())
        && dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(&prefix))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn job_ad_of(session: &Session, id: JobId) -> Result<Option<ClassAd>, Errno> {
    let queue = session.open_queue().map_err(queue_errno)?;
    match queue.job(id).map_err(queue_errno)? {
        Some(job) => job.into_ad().map(Some).map_err(queue_errno),
        None => Ok(None),
    }
}

fn queue_errno(e: QueueError) -> Errno {
    match e {
        QueueError::JobNotFound(_) | QueueError::ClusterNotFound(_) => Errno::ENOENT,
        _ => Errno::EIO,
    }
}

fn io_errno(e: std::io::Error) -> Errno {
    Errno::from_raw(e.raw_os_error().unwrap_or(libc::EIO))
}
