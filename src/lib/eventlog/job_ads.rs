//! Job ads made up from a job event log, as HTCondor 24.0's `userlog_to_classads`
//! (src/condor_utils/userlog_to_classads.cpp) makes them for `condor_q -userlog` and
//! `condor_history -userlog`: each job's submit event starts an ad of educated guesses
//! (the owner is the user reading the log, the command `???`), and its later events move
//! its status and times along. Events of a job whose submit event is not in the log are
//! ignored; so are events of the jobs a list of ids leaves out.
//!
//! HTCondor 24.0's reader, and so this module, has no eviction reason (the `Reason:` line
//! came later): an eviction sets `LastVacateReason` to the empty string.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;

use crate::classad::{ClassAd, Expr, Value};

use super::event::{Event, EventBody, ExitStatus, Rusage};
use super::reader::{parse_events, LogFollower, ReadOptions};
use super::EventLogError;

/// A job id of the list that selects jobs by their submit events: a cluster (`proc` is
/// `None`) or one job (`isSuperset` with HTCondor's `-1` for "any").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogJobFilter {
    pub cluster: i32,
    pub proc: Option<i32>,
}

impl LogJobFilter {
    fn selects(&self, cluster: i32, proc: i32) -> bool {
        self.cluster == cluster && self.proc.is_none_or(|p| p == proc)
    }
}

/// `JobStatus` values.
const IDLE: i64 = 1;
const RUNNING: i64 = 2;
const REMOVED: i64 = 3;
const COMPLETED: i64 = 4;
const HELD: i64 = 5;
const SUSPENDED: i64 = 7;

/// What the jobs' ads are made of besides the log.
#[derive(Clone, Debug)]
pub struct LogAdContext<'a> {
    /// The log's name as given (`UserLog`).
    pub log_name: &'a str,
    /// The user reading the log: every job's `Owner`.
    pub owner: &'a str,
    /// `ServerTime`.
    pub now: i64,
    /// The jobs to keep (all when empty).
    pub jobs: &'a [LogJobFilter],
}

/// The job ads the events imply, in job-id order (cluster, proc, subproc).
pub fn job_ads_from_events(
    events: impl IntoIterator<Item = Event>,
    cx: &LogAdContext<'_>,
) -> Vec<ClassAd> {
    let mut jobs = LogJobs::default();
    for event in events {
        jobs.add(event, cx);
    }
    jobs.into_ads()
}

/// The job ads of the log at `path` (`-`: standard input, read up to
/// [`crate::bounded::MAX_SOURCE_BYTES`]), read an event at a time. A log that cannot be
/// opened, and an event that does not read, are errors (the latter naming its line).
pub fn read_job_ads(path: &str, cx: &LogAdContext<'_>) -> Result<Vec<ClassAd>, EventLogError> {
    let mut jobs = LogJobs::default();
    if path == "-" {
        let bytes =
            crate::bounded::read_stdin().map_err(|e| EventLogError::io(Path::new(path), e))?;
        let text = String::from_utf8_lossy(&bytes);
        for event in parse_events(path, &text, &ReadOptions::default())? {
            jobs.add(event, cx);
        }
        return Ok(jobs.into_ads());
    }
    // The follower takes a missing file for a log not written yet: this one must be there.
    File::open(path).map_err(|e| EventLogError::io(Path::new(path), e))?;
    let mut log = LogFollower::new(path);
    while let Some(event) = log.next_event()? {
        jobs.add(event, cx);
    }
    Ok(jobs.into_ads())
}

/// Each job's ad and its last event, by job id.
#[derive(Default)]
struct LogJobs {
    jobs: BTreeMap<(i32, i32, i32), (ClassAd, Event)>,
}

impl LogJobs {
    fn add(&mut self, event: Event, cx: &LogAdContext<'_>) {
        let key = (event.cluster, event.proc, event.subproc);
        if let EventBody::Submit(submit) = &event.body {
            if !cx.jobs.is_empty() && !cx.jobs.iter().any(|f| f.selects(key.0, key.1)) {
                return;
            }
            let ad = submitted(&event, &submit.submit_host, cx);
            self.jobs.insert(key, (ad, event));
            return;
        }
        let Some((ad, previous)) = self.jobs.get_mut(&key) else {
            return;
        };
        apply(ad, &event, previous);
        *previous = event;
    }

    fn into_ads(self) -> Vec<ClassAd> {
        self.jobs.into_values().map(|(ad, _)| ad).collect()
    }
}

fn put(ad: &mut ClassAd, name: &str, v: impl Into<Value>) {
    ad.insert(name, Expr::lit(v));
}

fn event_time(event: &Event) -> i64 {
    event.time.timestamp()
}

/// The ad of a job just submitted.
fn submitted(event: &Event, submit_host: &str, cx: &LogAdContext<'_>) -> ClassAd {
    let mut ad = ClassAd::new();
    let t = event_time(event);
    put(&mut ad, "MyType", "Job");
    put(&mut ad, "TargetType", "Machine");
    put(&mut ad, "ClusterId", event.cluster as i64);
    put(&mut ad, "ProcId", event.proc as i64);
    put(&mut ad, "UserLog", cx.log_name);
    put(&mut ad, "QDate", t);
    put(&mut ad, "EnteredCurrentStatus", t);
    put(
        &mut ad,
        "GlobalJobId",
        format!("localhost#{}.{}#{t}", event.cluster, event.proc).as_str(),
    );
    put(&mut ad, "ServerTime", cx.now);
    put(&mut ad, "SubmitHost", submit_host);
    put(&mut ad, "JobStatus", IDLE);
    put(&mut ad, "LastJobStatus", 0i64);
    put(&mut ad, "Owner", cx.owner);
    put(&mut ad, "JobPrio", 0i64);
    put(&mut ad, "ImageSize", 0i64);
    put(&mut ad, "Cmd", "???");
    for name in [
        "LastSuspensionTime",
        "CompletionDate",
        "NumJobStarts",
        "TotalSuspensions",
        "NumSystemHolds",
    ] {
        put(&mut ad, name, 0i64);
    }
    for name in [
        "LocalUserCpu",
        "RemoteUserCpu",
        "LocalSysCpu",
        "RemoteSysCpu",
        "RemoteWallClockTime",
    ] {
        put(&mut ad, name, 0.0);
    }
    ad
}

/// `JobStatus` becomes `status`, the old expression moving to `LastJobStatus`.
fn set_status(ad: &mut ClassAd, status: i64) {
    if let Some(old) = ad.lookup("JobStatus").cloned() {
        ad.remove("JobStatus");
        ad.insert("LastJobStatus", old);
    }
    put(ad, "JobStatus", status);
}

/// `name + 1` when it evaluates to an integer, else 1.
fn increment(ad: &mut ClassAd, name: &str) {
    let n = match ad.eval_attr(name) {
        Value::Int(i) => i + 1,
        _ => 1,
    };
    put(ad, name, n);
}

fn secs(r: &Rusage, user: bool) -> f64 {
    (if user { r.user_secs } else { r.sys_secs }) as f64
}

fn real_attr(ad: &ClassAd, name: &str) -> Option<f64> {
    match ad.eval_attr(name) {
        Value::Real(r) => Some(r),
        _ => None,
    }
}

fn int_attr(ad: &ClassAd, name: &str) -> Option<i64> {
    match ad.eval_attr(name) {
        Value::Int(i) => Some(i),
        _ => None,
    }
}

/// One event after the submit, applied to the job's ad; `previous` is the job's event
/// before it.
fn apply(ad: &mut ClassAd, event: &Event, previous: &Event) {
    let t = event_time(event);
    match &event.body {
        EventBody::Execute(e) => {
            set_status(ad, RUNNING);
            put(ad, "EnteredCurrentStatus", t);
            put(ad, "JobCurrentStartDate", t);
            increment(ad, "NumJobStarts");
            put(ad, "StartdIpAddr", e.execute_host.as_str());
            put(ad, "RemoteHost", e.execute_host.as_str());
        }
        EventBody::JobTerminated(e) => {
            set_status(ad, COMPLETED);
            if let Some(host) = ad.lookup("RemoteHost").cloned() {
                ad.remove("RemoteHost");
                ad.insert("LastRemoteHost", host);
            }
            put(ad, "EnteredCurrentStatus", t);
            put(ad, "CompletionDate", t);
            match e.exit {
                ExitStatus::Code(code) => {
                    put(ad, "ExitBySignal", false);
                    put(ad, "ExitCode", code as i64);
                }
                ExitStatus::Signal(signal) => {
                    put(ad, "ExitBySignal", true);
                    put(ad, "ExitSignal", signal as i64);
                }
            }
            put(ad, "LastLocalUserCpu", secs(&e.run_local_usage, true));
            put(ad, "LastRemoteUserCpu", secs(&e.run_remote_usage, true));
            put(ad, "LastLocalSysCpu", secs(&e.run_local_usage, false));
            put(ad, "LastRemoteSysCpu", secs(&e.run_remote_usage, false));
            // real(EnteredCurrentStatus - JobCurrentStartDate): only after an execute event.
            if let (Some(end), Some(start)) = (
                int_attr(ad, "EnteredCurrentStatus"),
                int_attr(ad, "JobCurrentStartDate"),
            ) {
                put(ad, "LastRemoteWallClockTime", (end - start) as f64);
            }
            put(ad, "LocalUserCpu", secs(&e.total_local_usage, true));
            put(ad, "RemoteUserCpu", secs(&e.total_remote_usage, true));
            put(ad, "LocalSysCpu", secs(&e.total_local_usage, false));
            put(ad, "RemoteSysCpu", secs(&e.total_remote_usage, false));
            if let (Some(total), Some(last)) = (
                real_attr(ad, "RemoteWallClockTime"),
                real_attr(ad, "LastRemoteWallClockTime"),
            ) {
                put(ad, "RemoteWallClockTime", total + last);
            }
        }
        EventBody::JobSuspended(_) => {
            set_status(ad, SUSPENDED);
            put(ad, "EnteredCurrentStatus", t);
            put(ad, "LastSuspensionTime", t);
            increment(ad, "TotalSuspensions");
        }
        EventBody::JobUnsuspended => {
            set_status(ad, RUNNING);
            put(ad, "EnteredCurrentStatus", t);
        }
        EventBody::JobEvicted(_) => {
            set_status(ad, IDLE);
            put(ad, "EnteredCurrentStatus", t);
            put(ad, "LastVacateTime", t);
            put(ad, "LastVacateReason", "");
        }
        EventBody::ShadowException(e) => {
            // The event read from a log never says the job began executing.
            set_status(ad, IDLE);
            put(ad, "EnteredCurrentStatus", t);
            put(ad, "LastVacateReason", e.message.as_str());
        }
        EventBody::JobReconnectFailed(e) => {
            set_status(ad, IDLE);
            put(ad, "EnteredCurrentStatus", t);
            put(ad, "LastVacateTime", t);
            if !e.reason.is_empty() {
                put(ad, "LastVacateReason", e.reason.as_str());
            }
        }
        EventBody::JobHeld(e) => {
            let previous_status = int_attr(ad, "JobStatus").unwrap_or(IDLE);
            set_status(ad, HELD);
            put(ad, "EnteredCurrentStatus", t);
            let reason = e.reason.as_deref().unwrap_or("");
            if previous_status != IDLE {
                put(ad, "LastVacateTime", t);
                if !reason.is_empty() {
                    put(ad, "LastVacateReason", reason);
                }
            }
            put(ad, "HoldReason", reason);
            put(ad, "HoldReasonCode", e.code as i64);
            put(ad, "HoldReasonSubCode", e.subcode as i64);
            if e.code != 1 {
                increment(ad, "NumSystemHolds");
            }
        }
        EventBody::JobReleased(e) => {
            set_status(ad, IDLE);
            put(ad, "EnteredCurrentStatus", t);
            if let Some(r) = e.reason.as_deref().filter(|r| !r.is_empty()) {
                put(ad, "ReleaseReason", r);
            }
        }
        EventBody::JobAborted(e) => {
            set_status(ad, REMOVED);
            put(ad, "EnteredCurrentStatus", t);
            if let Some(r) = e.reason.as_deref().filter(|r| !r.is_empty()) {
                put(ad, "RemoveReason", r);
            }
        }
        EventBody::ImageSize(e) => {
            put(ad, "ImageSize", e.image_size_kb);
            // What the reference's reader keeps for a line that is not there: 0 and -1.
            put(ad, "ResidentSetSize", e.resident_set_size_kb.unwrap_or(0));
            put(
                ad,
                "ProportionalSetSize",
                e.proportional_set_size_kb.unwrap_or(-1),
            );
        }
        EventBody::JobAdInformation(e) => {
            // The event's ad holds the job's attributes under the event's own (which they
            // do not overwrite); those the job's previous event also has are taken for the
            // event's and dropped, as are the event's own.
            let previous = previous.to_classad(false);
            for (name, expr) in e.ad.iter() {
                let own = EVENT_OWN.iter().any(|o| o.eq_ignore_ascii_case(name));
                if !own && !previous.contains(name) {
                    ad.insert(name, expr.clone());
                }
            }
        }
        _ => {}
    }
}

/// The attributes a job-ad-information event's ad has of its own: `ULogEvent::toClassAd`'s
/// (`EventTime` is dropped with the previous event's) and the trigger's.
const EVENT_OWN: [&str; 8] = [
    "MyType",
    "EventTime",
    "Cluster",
    "Proc",
    "Subproc",
    "EventTypeNumber",
    "TriggerEventTypeNumber",
    "TriggerEventTypeName",
];
