//! The schedd's half of reaching a running job's starter, for `condor_tail` and
//! `condor_ssh_to_job`: finding the schedd (`DCSchedd::locate`) and its checks of a
//! `GET_JOB_CONNECT_INFO` request (src/condor_schedd.V6/schedd.cpp,
//! `Scheduler::get_job_connect_info_handler_implementation`): the job must be in the queue
//! (`No such job: C.P`), the caller's own or the caller a queue superuser (`<user> is not
//! authorized for access to the starter for job C.P`), not a scheduler- or grid-universe job
//! (`Job C.P does not support remote access.`), and running or transferring its output
//! (`Job C.P is not running.`, which may be asked again).

use crate::classad::ClassAd;
use crate::client::locate::PoolLocation;
use crate::client::{ScheddLocation, Session};
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::universe;
use crate::queue::{JobId, JobStatus};

/// Why the schedd refused, and whether asking again may help (`ATTR_RETRY`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectRefusal {
    pub message: String,
    pub retry: bool,
    /// The job's `JobStatus` when the job was found (the reply's `ATTR_JOB_STATUS`).
    pub status: Option<i64>,
    /// The job's `HoldReason` when it is held (the reply's `ATTR_HOLD_REASON`).
    pub hold_reason: Option<String>,
}

impl ConnectRefusal {
    fn new(message: String, retry: bool) -> ConnectRefusal {
        ConnectRefusal {
            message,
            retry,
            status: None,
            hold_reason: None,
        }
    }
}

/// What the schedd answers for a job that may be reached.
#[derive(Debug, Clone)]
pub struct ConnectInfo {
    pub universe: i64,
    /// The job's ad in the queue.
    pub ad: ClassAd,
    /// Its slot (`RemoteHost`, the reply's `ATTR_REMOTE_HOST`).
    pub slot_name: Option<String>,
}

/// `DCSchedd::locate()` for `-name` and `-pool`: `Err` with the tool's message when they name
/// a schedd other than this pool's.
pub fn locate(session: &Session, name: Option<&str>, pool: Option<&str>) -> Result<(), String> {
    let local_pool = match pool.map(|p| session.locate_pool(p)) {
        None | Some(PoolLocation::Local) => true,
        Some(PoolLocation::UnknownHost(_)) | Some(PoolLocation::Elsewhere(_)) => false,
    };
    let local_schedd = match name.map(|n| session.locate_schedd(n)) {
        None | Some(ScheddLocation::Local) => true,
        Some(ScheddLocation::UnknownHost(_)) | Some(ScheddLocation::NotFound(_)) => false,
    };
    if local_pool && local_schedd {
        return Ok(());
    }
    Err(match (name, pool) {
        (None, _) => "Can't find address of local schedd".to_owned(),
        (Some(name), None) => format!("No such schedd named {name} in local pool"),
        (Some(name), Some(pool)) => format!("No such schedd named {name} in pool {pool}"),
    })
}

/// The schedd's checks of a request to reach job `id`'s starter.
pub fn job_connect_info(session: &Session, id: JobId) -> Result<ConnectInfo, ConnectRefusal> {
    let failed = |e: &dyn std::fmt::Display| ConnectRefusal::new(e.to_string(), false);
    let queue = session.open_queue().map_err(|e| failed(&e))?;
    let job = queue
        .job(id)
        .map_err(|e| failed(&e))?
        .ok_or_else(|| ConnectRefusal::new(format!("No such job: {id}"), false))?;
    let ad = job.into_ad().map_err(|e| failed(&e))?;
    let owner = lookup_str(&ad, "Owner");
    if !session.may_act_on(owner.as_deref()) {
        return Err(ConnectRefusal::new(
            format!(
                "{} is not authorized for access to the starter for job {id}",
                session.user
            ),
            false,
        ));
    }
    let universe = lookup_int(&ad, "JobUniverse").unwrap_or(universe::VANILLA);
    if universe == universe::SCHEDULER || universe == universe::GRID {
        return Err(ConnectRefusal::new(
            format!("Job {id} does not support remote access."),
            false,
        ));
    }
    let status = lookup_int(&ad, "JobStatus").unwrap_or(0);
    if status != JobStatus::Running as i64 && status != JobStatus::TransferringOutput as i64 {
        let mut refusal = ConnectRefusal::new(format!("Job {id} is not running."), true);
        refusal.status = Some(status);
        if status == JobStatus::Held as i64 {
            refusal.hold_reason = Some(
                lookup_str(&ad, "HoldReason")
                    .map(|s| s.to_string())
                    .unwrap_or_default(),
            );
        }
        return Err(refusal);
    }
    let slot_name = lookup_str(&ad, "RemoteHost").map(|s| s.to_string());
    Ok(ConnectInfo {
        universe,
        ad,
        slot_name,
    })
}
