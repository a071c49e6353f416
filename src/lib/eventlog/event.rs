//! The typed event model: one [`Event`] per entry of a job event log, its [`EventBody`] one
//! variant per event type HTCondor defines (`ULogEventNumber` in condor_event.h), with the
//! fields that event's text, XML and JSON forms carry.
//!
//! Field defaults follow the reference's constructors, so that `..Default::default()` builds
//! the event HTCondor would write when a field is not set.

use chrono::{DateTime, Utc};

use crate::classad::unparse::expr_to_string;
use crate::classad::{ClassAd, Expr};

/// The event type numbers (`ULogEventNumber`), by HTCondor's names without the `ULOG_` prefix.
pub mod number {
    pub const SUBMIT: u32 = 0;
    pub const EXECUTE: u32 = 1;
    pub const EXECUTABLE_ERROR: u32 = 2;
    pub const CHECKPOINTED: u32 = 3;
    pub const JOB_EVICTED: u32 = 4;
    pub const JOB_TERMINATED: u32 = 5;
    pub const IMAGE_SIZE: u32 = 6;
    pub const SHADOW_EXCEPTION: u32 = 7;
    pub const GENERIC: u32 = 8;
    pub const JOB_ABORTED: u32 = 9;
    pub const JOB_SUSPENDED: u32 = 10;
    pub const JOB_UNSUSPENDED: u32 = 11;
    pub const JOB_HELD: u32 = 12;
    pub const JOB_RELEASED: u32 = 13;
    pub const NODE_EXECUTE: u32 = 14;
    pub const NODE_TERMINATED: u32 = 15;
    pub const POST_SCRIPT_TERMINATED: u32 = 16;
    pub const GLOBUS_SUBMIT: u32 = 17;
    pub const GLOBUS_SUBMIT_FAILED: u32 = 18;
    pub const GLOBUS_RESOURCE_UP: u32 = 19;
    pub const GLOBUS_RESOURCE_DOWN: u32 = 20;
    pub const REMOTE_ERROR: u32 = 21;
    pub const JOB_DISCONNECTED: u32 = 22;
    pub const JOB_RECONNECTED: u32 = 23;
    pub const JOB_RECONNECT_FAILED: u32 = 24;
    pub const GRID_RESOURCE_UP: u32 = 25;
    pub const GRID_RESOURCE_DOWN: u32 = 26;
    pub const GRID_SUBMIT: u32 = 27;
    pub const JOB_AD_INFORMATION: u32 = 28;
    pub const JOB_STATUS_UNKNOWN: u32 = 29;
    pub const JOB_STATUS_KNOWN: u32 = 30;
    pub const JOB_STAGE_IN: u32 = 31;
    pub const JOB_STAGE_OUT: u32 = 32;
    pub const ATTRIBUTE_UPDATE: u32 = 33;
    pub const PRESKIP: u32 = 34;
    pub const CLUSTER_SUBMIT: u32 = 35;
    pub const CLUSTER_REMOVE: u32 = 36;
    pub const FACTORY_PAUSED: u32 = 37;
    pub const FACTORY_RESUMED: u32 = 38;
    pub const NONE: u32 = 39;
    pub const FILE_TRANSFER: u32 = 40;
    pub const RESERVE_SPACE: u32 = 41;
    pub const RELEASE_SPACE: u32 = 42;
    pub const FILE_COMPLETE: u32 = 43;
    pub const FILE_USED: u32 = 44;
    pub const FILE_REMOVED: u32 = 45;
    pub const DATAFLOW_JOB_SKIPPED: u32 = 46;
    pub const COMMON_FILES: u32 = 47;
}

/// HTCondor's name of an event type (`ULogEventNumberNames`: `ULOG_SUBMIT`, ...), as DAGMan
/// logs and the jobstate log name events.
pub fn ulog_name(number: u32) -> &'static str {
    const NAMES: [&str; 46] = [
        "ULOG_SUBMIT",
        "ULOG_EXECUTE",
        "ULOG_EXECUTABLE_ERROR",
        "ULOG_CHECKPOINTED",
        "ULOG_JOB_EVICTED",
        "ULOG_JOB_TERMINATED",
        "ULOG_IMAGE_SIZE",
        "ULOG_SHADOW_EXCEPTION",
        "ULOG_GENERIC",
        "ULOG_JOB_ABORTED",
        "ULOG_JOB_SUSPENDED",
        "ULOG_JOB_UNSUSPENDED",
        "ULOG_JOB_HELD",
        "ULOG_JOB_RELEASED",
        "ULOG_NODE_EXECUTE",
        "ULOG_NODE_TERMINATED",
        "ULOG_POST_SCRIPT_TERMINATED",
        "ULOG_GLOBUS_SUBMIT",
        "ULOG_GLOBUS_SUBMIT_FAILED",
        "ULOG_GLOBUS_RESOURCE_UP",
        "ULOG_GLOBUS_RESOURCE_DOWN",
        "ULOG_REMOTE_ERROR",
        "ULOG_JOB_DISCONNECTED",
        "ULOG_JOB_RECONNECTED",
        "ULOG_JOB_RECONNECT_FAILED",
        "ULOG_GRID_RESOURCE_UP",
        "ULOG_GRID_RESOURCE_DOWN",
        "ULOG_GRID_SUBMIT",
        "ULOG_JOB_AD_INFORMATION",
        "ULOG_JOB_STATUS_UNKNOWN",
        "ULOG_JOB_STATUS_KNOWN",
        "ULOG_JOB_STAGE_IN",
        "ULOG_JOB_STAGE_OUT",
        "ULOG_ATTRIBUTE_UPDATE",
        "ULOG_PRESKIP",
        "ULOG_CLUSTER_SUBMIT",
        "ULOG_CLUSTER_REMOVE",
        "ULOG_FACTORY_PAUSED",
        "ULOG_FACTORY_RESUMED",
        "ULOG_NONE",
        "ULOG_FILE_TRANSFER",
        "ULOG_RESERVE_SPACE",
        "ULOG_RELEASE_SPACE",
        "ULOG_FILE_COMPLETE",
        "ULOG_FILE_USED",
        "ULOG_FILE_REMOVED",
    ];
    NAMES
        .get(number as usize)
        .copied()
        .unwrap_or("ULOG_FUTURE_EVENT")
}

/// The `MyType` of an event's ClassAd form, by event number (`ULogEvent::toClassAd`). Events
/// the reference has no class name for in that switch (status known/unknown, stage in/out,
/// pre-skip, Globus, and numbers it does not know) are `"FutureEvent"`.
pub fn my_type(number: u32) -> &'static str {
    const NAMES: [&str; 48] = [
        "SubmitEvent",
        "ExecuteEvent",
        "ExecutableErrorEvent",
        "CheckpointedEvent",
        "JobEvictedEvent",
        "JobTerminatedEvent",
        "JobImageSizeEvent",
        "ShadowExceptionEvent",
        "GenericEvent",
        "JobAbortedEvent",
        "JobSuspendedEvent",
        "JobUnsuspendedEvent",
        "JobHeldEvent",
        "JobReleaseEvent",
        "NodeExecuteEvent",
        "NodeTerminatedEvent",
        "PostScriptTerminatedEvent",
        "FutureEvent",
        "FutureEvent",
        "FutureEvent",
        "FutureEvent",
        "RemoteErrorEvent",
        "JobDisconnectedEvent",
        "JobReconnectedEvent",
        "JobReconnectFailedEvent",
        "GridResourceUpEvent",
        "GridResourceDownEvent",
        "GridSubmitEvent",
        "JobAdInformationEvent",
        "FutureEvent",
        "FutureEvent",
        "FutureEvent",
        "FutureEvent",
        "AttributeUpdateEvent",
        "FutureEvent",
        "ClusterSubmitEvent",
        "ClusterRemoveEvent",
        "FactoryPausedEvent",
        "FactoryResumedEvent",
        "FutureEvent",
        "FileTransferEvent",
        "ReserveSpaceEvent",
        "ReleaseSpaceEvent",
        "FileCompleteEvent",
        "FileUsedEvent",
        "FileRemovedEvent",
        "DataflowJobSkippedEvent",
        "CommonFilesEvent",
    ];
    NAMES.get(number as usize).copied().unwrap_or("FutureEvent")
}

/// One entry of a job event log.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub cluster: i32,
    pub proc: i32,
    /// Always 0 in logs HTCondor writes today.
    pub subproc: i32,
    /// When the event happened; the text form keeps whole seconds unless written with
    /// `SUB_SECOND`, the XML and JSON forms keep milliseconds.
    pub time: DateTime<Utc>,
    pub body: EventBody,
}

impl Event {
    /// An event of job `cluster.proc` happening now.
    pub fn new(cluster: i32, proc: i32, body: impl Into<EventBody>) -> Event {
        Event {
            cluster,
            proc,
            subproc: 0,
            time: Utc::now(),
            body: body.into(),
        }
    }

    /// The same event at another time.
    pub fn at(mut self, time: DateTime<Utc>) -> Event {
        self.time = time;
        self
    }

    /// The event type number (`ULogEventNumber`).
    pub fn number(&self) -> u32 {
        self.body.number()
    }
}

/// What happened, one variant per event type.
#[derive(Clone, Debug, PartialEq)]
pub enum EventBody {
    /// 000: the job entered the queue.
    Submit(Submit),
    /// 001: the job started running.
    Execute(Execute),
    /// 002
    ExecutableError(ExecutableError),
    /// 003
    Checkpointed(Checkpointed),
    /// 004: the job stopped running and stays in the queue.
    JobEvicted(JobEvicted),
    /// 005: the job finished.
    JobTerminated(JobTerminated),
    /// 006
    ImageSize(ImageSize),
    /// 007
    ShadowException(ShadowException),
    /// 008: free text.
    Generic(Generic),
    /// 009: the job was removed (`condor_rm`).
    JobAborted(JobAborted),
    /// 010
    JobSuspended(JobSuspended),
    /// 011
    JobUnsuspended,
    /// 012: the job was held (`condor_hold`, or by policy or an error).
    JobHeld(JobHeld),
    /// 013: the job was released (`condor_release`).
    JobReleased(JobReleased),
    /// 016: a DAGMan POST script finished.
    PostScriptTerminated(PostScriptTerminated),
    /// 021: an error (or message) from a daemon on the execute side.
    RemoteError(RemoteError),
    /// 022
    JobDisconnected(JobDisconnected),
    /// 023
    JobReconnected(JobReconnected),
    /// 024
    JobReconnectFailed(JobReconnectFailed),
    /// 028: attributes of the job ad, for tools that follow the log.
    JobAdInformation(JobAdInformation),
    /// 029
    JobStatusUnknown,
    /// 030
    JobStatusKnown,
    /// 033
    AttributeUpdate(AttributeUpdate),
    /// 034: a DAG node's PRE script exited with its PRE_SKIP value (written by DAGMan).
    PreSkip(PreSkip),
    /// 035: a late-materialization cluster was submitted.
    ClusterSubmit(ClusterSubmit),
    /// 036
    ClusterRemove(ClusterRemove),
    /// 037
    FactoryPaused(FactoryPaused),
    /// 038
    FactoryResumed(FactoryResumed),
    /// 040: a phase of input or output file transfer.
    FileTransfer(FileTransfer),
    /// Any other event number: kept as text so that reading never fails on a valid log
    /// (HTCondor's `FutureEvent`). HTCondor's reader treats stage-in and stage-out (031, 032)
    /// this way too.
    Future(FutureEvent),
}

impl EventBody {
    /// The event type number (`ULogEventNumber`).
    pub fn number(&self) -> u32 {
        use number::*;
        match self {
            EventBody::Submit(_) => SUBMIT,
            EventBody::Execute(_) => EXECUTE,
            EventBody::ExecutableError(_) => EXECUTABLE_ERROR,
            EventBody::Checkpointed(_) => CHECKPOINTED,
            EventBody::JobEvicted(_) => JOB_EVICTED,
            EventBody::JobTerminated(_) => JOB_TERMINATED,
            EventBody::ImageSize(_) => IMAGE_SIZE,
            EventBody::ShadowException(_) => SHADOW_EXCEPTION,
            EventBody::Generic(_) => GENERIC,
            EventBody::JobAborted(_) => JOB_ABORTED,
            EventBody::JobSuspended(_) => JOB_SUSPENDED,
            EventBody::JobUnsuspended => JOB_UNSUSPENDED,
            EventBody::JobHeld(_) => JOB_HELD,
            EventBody::JobReleased(_) => JOB_RELEASED,
            EventBody::PostScriptTerminated(_) => POST_SCRIPT_TERMINATED,
            EventBody::RemoteError(_) => REMOTE_ERROR,
            EventBody::JobDisconnected(_) => JOB_DISCONNECTED,
            EventBody::JobReconnected(_) => JOB_RECONNECTED,
            EventBody::JobReconnectFailed(_) => JOB_RECONNECT_FAILED,
            EventBody::JobAdInformation(_) => JOB_AD_INFORMATION,
            EventBody::JobStatusUnknown => JOB_STATUS_UNKNOWN,
            EventBody::JobStatusKnown => JOB_STATUS_KNOWN,
            EventBody::AttributeUpdate(_) => ATTRIBUTE_UPDATE,
            EventBody::PreSkip(_) => PRESKIP,
            EventBody::ClusterSubmit(_) => CLUSTER_SUBMIT,
            EventBody::ClusterRemove(_) => CLUSTER_REMOVE,
            EventBody::FactoryPaused(_) => FACTORY_PAUSED,
            EventBody::FactoryResumed(_) => FACTORY_RESUMED,
            EventBody::FileTransfer(_) => FILE_TRANSFER,
            EventBody::Future(f) => f.number,
        }
    }

    /// The `MyType` of the event's ClassAd form.
    pub fn my_type(&self) -> &'static str {
        my_type(self.number())
    }
}

macro_rules! into_body {
    ($($ty:ident),* $(,)?) => {
        $(impl From<$ty> for EventBody {
            fn from(e: $ty) -> EventBody {
                EventBody::$ty(e)
            }
        })*
    };
}

into_body!(
    Submit,
    Execute,
    ExecutableError,
    Checkpointed,
    JobEvicted,
    JobTerminated,
    ImageSize,
    ShadowException,
    Generic,
    JobAborted,
    JobSuspended,
    JobHeld,
    JobReleased,
    PostScriptTerminated,
    RemoteError,
    JobDisconnected,
    JobReconnected,
    JobReconnectFailed,
    JobAdInformation,
    AttributeUpdate,
    PreSkip,
    ClusterSubmit,
    ClusterRemove,
    FactoryPaused,
    FactoryResumed,
    FileTransfer,
);

impl From<FutureEvent> for EventBody {
    fn from(e: FutureEvent) -> EventBody {
        EventBody::Future(e)
    }
}

/// Two ads are the same when they hold the same attributes, in the same order, with the same
/// expressions (ads and expressions have no structural equality of their own).
pub(crate) fn same_ad(a: &ClassAd, b: &ClassAd) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b.iter())
            .all(|((na, ea), (nb, eb))| na == nb && expr_to_string(ea) == expr_to_string(eb))
}

fn same_expr(a: &Option<Expr>, b: &Option<Expr>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => expr_to_string(a) == expr_to_string(b),
        _ => false,
    }
}

/// CPU time as the log keeps it: whole seconds of user and system time (an `rusage` of which
/// only `ru_utime.tv_sec` and `ru_stime.tv_sec` are written).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rusage {
    pub user_secs: i64,
    pub sys_secs: i64,
}

/// How a process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// It exited with this return value.
    Code(i32),
    /// It was killed by this signal.
    Signal(i32),
}

impl Default for ExitStatus {
    fn default() -> Self {
        ExitStatus::Code(0)
    }
}

/// One row of the "Partitionable Resources" table of terminated and evicted events: a
/// resource's usage, request, allocation and assigned names (each column may be empty).
#[derive(Clone, Debug, Default)]
pub struct ResourceUsage {
    /// The resource as the machine ad names it (`Cpus`, `Memory`, `Disk`, `Gpus`, ...).
    pub name: String,
    /// `<name>Usage` (the peak, or the average for GPUs).
    pub usage: Option<Expr>,
    /// `Request<name>`
    pub request: Option<Expr>,
    /// `<name>`: what the slot was given.
    pub allocated: Option<Expr>,
    /// `Assigned<name>`: the assigned instances of a custom resource.
    pub assigned: Option<Expr>,
}

impl PartialEq for ResourceUsage {
    fn eq(&self, o: &Self) -> bool {
        self.name == o.name
            && same_expr(&self.usage, &o.usage)
            && same_expr(&self.request, &o.request)
            && same_expr(&self.allocated, &o.allocated)
            && same_expr(&self.assigned, &o.assigned)
    }
}

/// 000
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Submit {
    /// The schedd's address (`<ip:port?...>`).
    pub submit_host: String,
    /// `submit_event_notes`, or DAGMan's `DAG Node: <name>`.
    pub log_notes: Option<String>,
    /// `submit_event_user_notes`.
    pub user_notes: Option<String>,
    /// Warnings condor_submit committed the job with (without the "WARNING: Committed job
    /// submission..." prefix the text form adds).
    pub warnings: Option<String>,
}

/// 001
#[derive(Clone, Debug, Default)]
pub struct Execute {
    /// The startd's address.
    pub execute_host: String,
    /// `slot1_1@host`.
    pub slot_name: Option<String>,
    /// The slot's resources and other properties (`Cpus`, `Memory`, ...), written sorted.
    pub props: ClassAd,
}

impl PartialEq for Execute {
    fn eq(&self, o: &Self) -> bool {
        self.execute_host == o.execute_host
            && self.slot_name == o.slot_name
            && same_ad(&self.props, &o.props)
    }
}

/// Why the executable could not run (`ExecErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecErrorKind {
    NotExecutable,
    BadLink,
    Other(i32),
}

impl ExecErrorKind {
    pub fn code(self) -> i32 {
        match self {
            ExecErrorKind::NotExecutable => 0,
            ExecErrorKind::BadLink => 1,
            ExecErrorKind::Other(n) => n,
        }
    }

    pub fn from_code(n: i32) -> ExecErrorKind {
        match n {
            0 => ExecErrorKind::NotExecutable,
            1 => ExecErrorKind::BadLink,
            n => ExecErrorKind::Other(n),
        }
    }
}

/// 002
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutableError {
    pub kind: ExecErrorKind,
}

/// 003
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checkpointed {
    pub run_remote_usage: Rusage,
    pub run_local_usage: Rusage,
    pub sent_bytes: f64,
}

/// What kind of eviction a [`JobEvicted`] event reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Eviction {
    /// `(0) CPU times`: vacated without a checkpoint.
    #[default]
    Vacated,
    /// `(1) Job was checkpointed.`
    Checkpointed,
    /// `(0) Job terminated and was requeued`: the job exited but its policy put it back in
    /// the queue.
    Requeued {
        exit: ExitStatus,
        /// Only written when `exit` is a signal.
        core_file: Option<String>,
    },
}

/// 004
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobEvicted {
    pub kind: Eviction,
    pub run_remote_usage: Rusage,
    pub run_local_usage: Rusage,
    pub sent_bytes: f64,
    pub received_bytes: f64,
    pub reason: Option<String>,
    /// The vacate reason code and subcode (`Code %d Subcode %d` on the first line when the
    /// code is not 0).
    pub reason_code: i32,
    pub reason_subcode: i32,
    /// The resource table (empty: none is written).
    pub usage: Vec<ResourceUsage>,
}

/// 005
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobTerminated {
    pub exit: ExitStatus,
    /// Only written when `exit` is a signal.
    pub core_file: Option<String>,
    pub run_remote_usage: Rusage,
    pub run_local_usage: Rusage,
    pub total_remote_usage: Rusage,
    pub total_local_usage: Rusage,
    pub sent_bytes: f64,
    pub received_bytes: f64,
    pub total_sent_bytes: f64,
    pub total_received_bytes: f64,
    /// The resource table (empty: none is written).
    pub usage: Vec<ResourceUsage>,
}

/// 006
#[derive(Clone, Debug, PartialEq)]
pub struct ImageSize {
    pub image_size_kb: i64,
    pub memory_usage_mb: Option<i64>,
    /// HTCondor always writes this line (0 when unknown).
    pub resident_set_size_kb: Option<i64>,
    pub proportional_set_size_kb: Option<i64>,
}

impl Default for ImageSize {
    fn default() -> Self {
        ImageSize {
            image_size_kb: 0,
            memory_usage_mb: None,
            resident_set_size_kb: Some(0),
            proportional_set_size_kb: None,
        }
    }
}

/// 007
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShadowException {
    pub message: String,
    pub sent_bytes: f64,
    pub received_bytes: f64,
}

/// 008
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generic {
    /// One line, shorter than 1024 bytes.
    pub info: String,
}

/// 009
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobAborted {
    /// `via condor_rm (by user alice)`.
    pub reason: Option<String>,
}

/// 010
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobSuspended {
    pub num_pids: i32,
}

/// 012
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobHeld {
    /// `None` is written `Reason unspecified`.
    pub reason: Option<String>,
    /// `HoldReasonCode` (1: by user, ...).
    pub code: i32,
    pub subcode: i32,
}

/// 013
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobReleased {
    pub reason: Option<String>,
}

/// 016
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PostScriptTerminated {
    pub exit: ExitStatus,
    pub dag_node_name: Option<String>,
}

/// 034
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PreSkip {
    /// `DAG Node: <name>`: the only line of the body after the header, and required.
    pub log_notes: String,
}

/// 021
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteError {
    /// `starter`, `shadow`, ...
    pub daemon_name: String,
    pub execute_host: String,
    /// May hold several lines.
    pub message: String,
    /// Written `Error from ...` when true, `Message from ...` when not.
    pub critical: bool,
    pub hold_reason_code: i32,
    pub hold_reason_subcode: i32,
}

impl Default for RemoteError {
    fn default() -> Self {
        RemoteError {
            daemon_name: String::new(),
            execute_host: String::new(),
            message: String::new(),
            critical: true,
            hold_reason_code: 0,
            hold_reason_subcode: 0,
        }
    }
}

/// 022 (HTCondor refuses to write it with an empty field)
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobDisconnected {
    pub reason: String,
    pub startd_name: String,
    pub startd_addr: String,
}

/// 023 (HTCondor refuses to write it with an empty field)
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobReconnected {
    pub startd_name: String,
    pub startd_addr: String,
    pub starter_addr: String,
}

/// 024 (HTCondor refuses to write it with an empty field)
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobReconnectFailed {
    pub reason: String,
    pub startd_name: String,
}

/// 028
#[derive(Clone, Debug, Default)]
pub struct JobAdInformation {
    /// Written sorted, without private attributes (claim ids, capabilities).
    pub ad: ClassAd,
}

impl PartialEq for JobAdInformation {
    fn eq(&self, o: &Self) -> bool {
        same_ad(&self.ad, &o.ad)
    }
}

/// 033
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttributeUpdate {
    pub name: String,
    /// The new value, as ClassAd text.
    pub value: String,
    /// The old value, when there was one.
    pub old_value: Option<String>,
}

/// 035
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterSubmit {
    pub submit_host: String,
    pub log_notes: Option<String>,
    pub user_notes: Option<String>,
}

/// How far the materialization of a cluster got (`ClusterRemoveEvent::CompletionCode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Completion {
    /// A negative error code.
    Error(i32),
    #[default]
    Incomplete,
    Complete,
    Paused,
}

impl Completion {
    pub fn code(self) -> i32 {
        match self {
            Completion::Error(n) => n,
            Completion::Incomplete => 0,
            Completion::Complete => 1,
            Completion::Paused => 2,
        }
    }

    pub fn from_code(n: i32) -> Completion {
        match n {
            n if n < 0 => Completion::Error(n),
            0 => Completion::Incomplete,
            1 => Completion::Complete,
            _ => Completion::Paused,
        }
    }
}

/// 036
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterRemove {
    pub next_proc_id: i32,
    pub next_row: i32,
    pub completion: Completion,
    pub notes: Option<String>,
}

/// 037
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FactoryPaused {
    pub reason: Option<String>,
    pub pause_code: i32,
    pub hold_code: i32,
}

/// 038
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FactoryResumed {
    pub reason: Option<String>,
}

/// The phase of a file transfer event (`FileTransferEventType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileTransferKind {
    InputQueued = 1,
    InputStarted = 2,
    InputFinished = 3,
    OutputQueued = 4,
    OutputStarted = 5,
    OutputFinished = 6,
}

impl FileTransferKind {
    pub const ALL: [FileTransferKind; 6] = [
        FileTransferKind::InputQueued,
        FileTransferKind::InputStarted,
        FileTransferKind::InputFinished,
        FileTransferKind::OutputQueued,
        FileTransferKind::OutputStarted,
        FileTransferKind::OutputFinished,
    ];

    /// The line the text form starts with.
    pub fn text(self) -> &'static str {
        match self {
            FileTransferKind::InputQueued => "Entered queue to transfer input files",
            FileTransferKind::InputStarted => "Started transferring input files",
            FileTransferKind::InputFinished => "Finished transferring input files",
            FileTransferKind::OutputQueued => "Entered queue to transfer output files",
            FileTransferKind::OutputStarted => "Started transferring output files",
            FileTransferKind::OutputFinished => "Finished transferring output files",
        }
    }

    pub fn code(self) -> i32 {
        self as i32
    }

    pub fn from_code(n: i64) -> Option<FileTransferKind> {
        Self::ALL.into_iter().find(|k| k.code() as i64 == n)
    }
}

/// 040
#[derive(Clone, Debug, PartialEq)]
pub struct FileTransfer {
    pub kind: FileTransferKind,
    /// Seconds the transfer waited in the transfer queue.
    pub queueing_delay: Option<i64>,
    /// The host the files go to or come from.
    pub host: Option<String>,
}

/// An event of a type this model does not know: its first line and the rest of its text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FutureEvent {
    pub number: u32,
    /// The rest of the header line.
    pub head: String,
    /// The following lines, each with its newline.
    pub payload: String,
}
