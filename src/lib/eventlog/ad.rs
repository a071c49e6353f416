//! Events as ClassAds, the form XML and JSON logs hold and HTCondor's Python bindings show:
//! `ULogEvent::toClassAd` (EventTypeNumber, MyType, EventTime, Cluster, Proc, Subproc, then
//! each event's fields in its order) and `initFromClassAd` back.
//!
//! The conversion is HTCondor's, losses included: an eviction's resource table and an
//! attribute update's old value have no ClassAd form, a terminated event's table keeps only
//! the rows with a request and an allocation, a job-ad-information event reads back with the
//! event's own attributes in its ad.

use chrono::{DateTime, Utc};

use crate::classad::parser::parse_old_ads;
use crate::classad::{eval_expr, ClassAd, Expr, Value};

use super::event::*;
use super::text::{rusage_string, structured_notes};
use super::time::{format_event_time, parse_event_time};

fn put(ad: &mut ClassAd, name: &str, v: impl Into<Value>) {
    ad.insert(name, Expr::lit(v));
}

fn put_some(ad: &mut ClassAd, name: &str, v: &Option<String>) {
    if let Some(v) = v.as_deref().filter(|v| !v.is_empty()) {
        put(ad, name, v);
    }
}

fn put_nonempty(ad: &mut ClassAd, name: &str, v: &str) {
    if !v.is_empty() {
        put(ad, name, v);
    }
}

fn put_usage_table(ad: &mut ClassAd, rows: &[ResourceUsage]) {
    for r in rows {
        let attrs = [
            (format!("{}Usage", r.name), &r.usage),
            (format!("Request{}", r.name), &r.request),
            (r.name.clone(), &r.allocated),
            (format!("Assigned{}", r.name), &r.assigned),
        ];
        for (n, e) in attrs {
            if let Some(e) = e {
                ad.insert(&n, e.clone());
            }
        }
    }
}

/// TerminatedNormally, ReturnValue and TerminatedBySignal as the reference sets them (the
/// value it does not have stays -1, and is left out).
fn put_exit(ad: &mut ClassAd, exit: &ExitStatus) {
    match exit {
        ExitStatus::Code(v) => {
            put(ad, "TerminatedNormally", true);
            if *v >= 0 {
                put(ad, "ReturnValue", *v as i64);
            }
        }
        ExitStatus::Signal(s) => {
            put(ad, "TerminatedNormally", false);
            if *s >= 0 {
                put(ad, "TerminatedBySignal", *s as i64);
            }
        }
    }
}

impl Event {
    /// The event as a ClassAd; `utc` writes `EventTime` in UTC with a `Z`, otherwise in local
    /// time (the `UTC` format option).
    pub fn to_classad(&self, utc: bool) -> ClassAd {
        let mut ad = ClassAd::new();
        put(&mut ad, "EventTypeNumber", self.number() as i64);
        put(&mut ad, "MyType", self.body.my_type());
        put(&mut ad, "EventTime", format_event_time(&self.time, utc));
        for (name, v) in [
            ("Cluster", self.cluster),
            ("Proc", self.proc),
            ("Subproc", self.subproc),
        ] {
            if v >= 0 {
                put(&mut ad, name, v as i64);
            }
        }
        let a = &mut ad;
        match &self.body {
            EventBody::Submit(e) => {
                put_nonempty(a, "SubmitHost", &e.submit_host);
                put_some(a, "LogNotes", &e.log_notes);
                put_some(a, "UserNotes", &e.user_notes);
                put_some(a, "Warnings", &e.warnings);
                if let Some(notes) = e.log_notes.as_deref().and_then(structured_notes) {
                    a.insert("StructuredNotes", Expr::Ad(Box::new(notes)));
                }
            }
            EventBody::Execute(e) => {
                put_nonempty(a, "ExecuteHost", &e.execute_host);
                put_some(a, "SlotName", &e.slot_name);
                if !e.props.is_empty() {
                    a.insert("ExecuteProps", Expr::Ad(Box::new(e.props.clone())));
                }
            }
            EventBody::ExecutableError(e) => {
                if e.kind.code() >= 0 {
                    put(a, "ExecuteErrorType", e.kind.code() as i64);
                }
            }
            EventBody::Checkpointed(e) => {
                put(a, "RunLocalUsage", rusage_string(&e.run_local_usage));
                put(a, "RunRemoteUsage", rusage_string(&e.run_remote_usage));
                put(a, "SentBytes", e.sent_bytes);
            }
            EventBody::JobEvicted(e) => {
                put(a, "Checkpointed", e.kind == Eviction::Checkpointed);
                put(a, "RunLocalUsage", rusage_string(&e.run_local_usage));
                put(a, "RunRemoteUsage", rusage_string(&e.run_remote_usage));
                put(a, "SentBytes", e.sent_bytes);
                put(a, "ReceivedBytes", e.received_bytes);
                let requeued = match &e.kind {
                    Eviction::Requeued { exit, core_file } => Some((exit, core_file)),
                    _ => None,
                };
                put(a, "TerminatedAndRequeued", requeued.is_some());
                match requeued {
                    Some((exit, _)) => put_exit(a, exit),
                    None => put(a, "TerminatedNormally", false),
                }
                put_some(a, "Reason", &e.reason);
                if e.reason_code != 0 {
                    put(a, "ReasonCode", e.reason_code as i64);
                }
                if e.reason_subcode != 0 {
                    put(a, "ReasonSubCode", e.reason_subcode as i64);
                }
                if let Some((ExitStatus::Signal(_), core)) = requeued {
                    put_some(a, "CoreFile", core);
                }
            }
            EventBody::JobTerminated(e) => {
                put_usage_table(a, &e.usage);
                put_exit(a, &e.exit);
                if let ExitStatus::Signal(_) = e.exit {
                    put_some(a, "CoreFile", &e.core_file);
                }
                put(a, "RunLocalUsage", rusage_string(&e.run_local_usage));
                put(a, "RunRemoteUsage", rusage_string(&e.run_remote_usage));
                put(a, "TotalLocalUsage", rusage_string(&e.total_local_usage));
                put(a, "TotalRemoteUsage", rusage_string(&e.total_remote_usage));
                put(a, "SentBytes", e.sent_bytes);
                put(a, "ReceivedBytes", e.received_bytes);
                put(a, "TotalSentBytes", e.total_sent_bytes);
                put(a, "TotalReceivedBytes", e.total_received_bytes);
            }
            EventBody::ImageSize(e) => {
                let fields = [
                    ("Size", Some(e.image_size_kb)),
                    ("MemoryUsage", e.memory_usage_mb),
                    ("ResidentSetSize", e.resident_set_size_kb),
                    ("ProportionalSetSize", e.proportional_set_size_kb),
                ];
                for (n, v) in fields {
                    if let Some(v) = v.filter(|v| *v >= 0) {
                        put(a, n, v);
                    }
                }
            }
            EventBody::ShadowException(e) => {
                put(a, "Message", e.message.as_str());
                put(a, "SentBytes", e.sent_bytes);
                put(a, "ReceivedBytes", e.received_bytes);
            }
            EventBody::Generic(e) => put_nonempty(a, "Info", &e.info),
            EventBody::JobAborted(e) => put_some(a, "Reason", &e.reason),
            EventBody::JobSuspended(e) => put(a, "NumberOfPIDs", e.num_pids as i64),
            EventBody::JobHeld(e) => {
                put_some(a, "HoldReason", &e.reason);
                put(a, "HoldReasonCode", e.code as i64);
                put(a, "HoldReasonSubCode", e.subcode as i64);
            }
            EventBody::JobReleased(e) => put_some(a, "Reason", &e.reason),
            EventBody::PostScriptTerminated(e) => {
                put_exit(a, &e.exit);
                put_some(a, "DAGNodeName", &e.dag_node_name);
            }
            EventBody::RemoteError(e) => {
                put_nonempty(a, "Daemon", &e.daemon_name);
                put_nonempty(a, "ExecuteHost", &e.execute_host);
                put_nonempty(a, "ErrorMsg", &e.message);
                if !e.critical {
                    put(a, "CriticalError", 0);
                }
                if e.hold_reason_code != 0 {
                    put(a, "HoldReasonCode", e.hold_reason_code as i64);
                    put(a, "HoldReasonSubCode", e.hold_reason_subcode as i64);
                }
            }
            EventBody::JobDisconnected(e) => {
                put(a, "StartdAddr", e.startd_addr.as_str());
                put(a, "StartdName", e.startd_name.as_str());
                put(a, "DisconnectReason", e.reason.as_str());
                put(
                    a,
                    "EventDescription",
                    "Job disconnected, attempting to reconnect",
                );
            }
            EventBody::JobReconnected(e) => {
                put(a, "StartdAddr", e.startd_addr.as_str());
                put(a, "StartdName", e.startd_name.as_str());
                put(a, "StarterAddr", e.starter_addr.as_str());
                put(a, "EventDescription", "Job reconnected");
            }
            EventBody::JobReconnectFailed(e) => {
                put(a, "StartdName", e.startd_name.as_str());
                put(a, "Reason", e.reason.as_str());
                put(
                    a,
                    "EventDescription",
                    "Job reconnect impossible: rescheduling job",
                );
            }
            EventBody::JobAdInformation(e) => {
                // The job's attributes never replace the event's own.
                for (n, v) in e.ad.iter() {
                    if !a.contains(n) {
                        a.insert(n, v.clone());
                    }
                }
            }
            EventBody::JobUnsuspended | EventBody::JobStatusUnknown | EventBody::JobStatusKnown => {
            }
            EventBody::AttributeUpdate(e) => {
                put(a, "Attribute", e.name.as_str());
                put(a, "Value", e.value.as_str());
            }
            EventBody::PreSkip(e) => put_nonempty(a, "SkipEventLogNotes", &e.log_notes),
            EventBody::ClusterSubmit(e) => {
                put_nonempty(a, "SubmitHost", &e.submit_host);
                if let Some(notes) = e.log_notes.as_deref().and_then(structured_notes) {
                    a.insert("StructuredNotes", Expr::Ad(Box::new(notes)));
                }
            }
            EventBody::ClusterRemove(e) => {
                put_some(a, "Notes", &e.notes);
                put(a, "NextProcId", e.next_proc_id as i64);
                put(a, "NextRow", e.next_row as i64);
                put(a, "Completion", e.completion.code() as i64);
            }
            EventBody::FactoryPaused(e) => {
                put_some(a, "Reason", &e.reason);
                put(a, "PauseCode", e.pause_code as i64);
                put(a, "HoldCode", e.hold_code as i64);
            }
            EventBody::FactoryResumed(e) => put_some(a, "Reason", &e.reason),
            EventBody::FileTransfer(e) => {
                put(a, "Type", e.kind.code() as i64);
                if let Some(d) = e.queueing_delay {
                    put(a, "QueueingDelay", d);
                }
                put_some(a, "Host", &e.host);
            }
            EventBody::Future(e) => {
                put(a, "EventHead", e.head.as_str());
                // Payload lines that are `Name = value` become attributes; others are lost.
                for line in e.payload.split(['\r', '\n']).filter(|l| !l.is_empty()) {
                    if let Ok(ads) = parse_old_ads(line) {
                        for (n, v) in ads.iter().flat_map(|ad| ad.iter()) {
                            a.insert(n, v.clone());
                        }
                    }
                }
            }
        }
        ad
    }

    /// The event a ClassAd describes (`initFromClassAd`): `EventTypeNumber` and `EventTime`
    /// are required, other missing attributes take the reference's defaults.
    pub fn from_classad(ad: &ClassAd) -> Result<Event, String> {
        let f = Fields(ad);
        let number = f
            .int("EventTypeNumber")
            .filter(|n| *n >= 0)
            .ok_or("the ad has no EventTypeNumber")? as u32;
        let time: DateTime<Utc> = match f.string("EventTime") {
            Some(t) => parse_event_time(&t)?,
            None => return Err("the ad has no EventTime".into()),
        };
        let id = |n: &str| f.int(n).map_or(-1, |v| v as i32);
        let body = body_from_classad(number, &f);
        Ok(Event {
            cluster: id("Cluster"),
            proc: id("Proc"),
            subproc: id("Subproc"),
            time,
            body,
        })
    }
}

/// Typed lookups in an event ad, evaluating attributes as the reference's `Lookup*` do.
struct Fields<'a>(&'a ClassAd);

impl Fields<'_> {
    fn value(&self, name: &str) -> Option<Value> {
        eval_expr(self.0.lookup(name)?, Some(self.0), None).ok()
    }

    /// An integer; reals truncate and booleans count as 0 and 1 (`LookupInteger`).
    fn int(&self, name: &str) -> Option<i64> {
        match self.value(name)? {
            Value::Int(i) => Some(i),
            Value::Real(r) => Some(r as i64),
            Value::Bool(b) => Some(b as i64),
            _ => None,
        }
    }

    fn int32(&self, name: &str) -> Option<i32> {
        self.int(name).map(|v| v as i32)
    }

    fn real(&self, name: &str) -> Option<f64> {
        match self.value(name)? {
            Value::Int(i) => Some(i as f64),
            Value::Real(r) => Some(r),
            Value::Bool(b) => Some(b as i64 as f64),
            _ => None,
        }
    }

    fn string(&self, name: &str) -> Option<String> {
        self.value(name)?.as_str().map(str::to_string)
    }

    fn text(&self, name: &str) -> String {
        self.string(name).unwrap_or_default()
    }

    fn bool(&self, name: &str) -> bool {
        self.int(name).is_some_and(|v| v != 0)
    }

    fn rusage(&self, name: &str) -> Rusage {
        self.string(name)
            .and_then(|s| parse_rusage_string(&s))
            .unwrap_or_default()
    }

    fn ad(&self, name: &str) -> Option<ClassAd> {
        match self.0.lookup(name)? {
            Expr::Ad(ad) => Some((**ad).clone()),
            _ => None,
        }
    }
}

/// `Usr d hh:mm:ss, Sys d hh:mm:ss`
fn parse_rusage_string(s: &str) -> Option<Rusage> {
    let secs = |t: &str| -> Option<i64> {
        let (d, hms) = t.trim().split_once(' ')?;
        let mut parts = hms.trim().split(':').map(|p| p.trim().parse::<i64>());
        let (h, m, s) = (
            parts.next()?.ok()?,
            parts.next()?.ok()?,
            parts.next()?.ok()?,
        );
        Some(d.parse::<i64>().ok()? * 86400 + h * 3600 + m * 60 + s)
    };
    let (u, s) = s.trim().strip_prefix("Usr")?.split_once(", Sys")?;
    Some(Rusage {
        user_secs: secs(u)?,
        sys_secs: secs(s)?,
    })
}

/// The exit a TerminatedNormally / ReturnValue / TerminatedBySignal triple describes.
fn exit_from(f: &Fields<'_>) -> ExitStatus {
    if f.bool("TerminatedNormally") {
        ExitStatus::Code(f.int32("ReturnValue").unwrap_or(-1))
    } else {
        ExitStatus::Signal(f.int32("TerminatedBySignal").unwrap_or(-1))
    }
}

/// The resource table of a terminated event's ad (`initUsageFromAd`): each `Request<RES>`
/// with a `<RES>` beside it makes a row, with `<RES>Usage` and `Assigned<RES>` when there are
/// any. Rows without a request or an allocation (GPU memory, execution time) are lost, as
/// they are to HTCondor.
fn usage_from_ad(ad: &ClassAd) -> Vec<ResourceUsage> {
    let mut rows = Vec::new();
    for (n, e) in ad.iter() {
        if n.len() <= 7 || !n[..7].eq_ignore_ascii_case("Request") {
            continue;
        }
        let tag = &n[7..];
        let Some(alloc) = ad.lookup(tag) else {
            continue;
        };
        rows.push(ResourceUsage {
            name: tag.to_string(),
            usage: ad.lookup(&format!("{tag}Usage")).cloned(),
            request: Some(e.clone()),
            allocated: Some(alloc.clone()),
            assigned: ad.lookup(&format!("Assigned{tag}")).cloned(),
        });
    }
    rows
}

fn body_from_classad(number: u32, f: &Fields<'_>) -> EventBody {
    use number::*;
    let ad = f.0;
    match number {
        SUBMIT => EventBody::Submit(Submit {
            submit_host: f.text("SubmitHost"),
            log_notes: f.string("LogNotes"),
            user_notes: f.string("UserNotes"),
            warnings: f.string("Warnings"),
        }),
        EXECUTE => EventBody::Execute(Execute {
            execute_host: f.text("ExecuteHost"),
            slot_name: f.string("SlotName"),
            props: f.ad("ExecuteProps").unwrap_or_default(),
        }),
        EXECUTABLE_ERROR => EventBody::ExecutableError(ExecutableError {
            kind: ExecErrorKind::from_code(f.int32("ExecuteErrorType").unwrap_or(-1)),
        }),
        CHECKPOINTED => EventBody::Checkpointed(Checkpointed {
            run_remote_usage: f.rusage("RunRemoteUsage"),
            run_local_usage: f.rusage("RunLocalUsage"),
            sent_bytes: f.real("SentBytes").unwrap_or(0.0),
        }),
        JOB_EVICTED => {
            let kind = if f.bool("TerminatedAndRequeued") {
                let exit = exit_from(f);
                let core_file = match exit {
                    ExitStatus::Signal(_) => f.string("CoreFile"),
                    ExitStatus::Code(_) => None,
                };
                Eviction::Requeued { exit, core_file }
            } else if f.bool("Checkpointed") {
                Eviction::Checkpointed
            } else {
                Eviction::Vacated
            };
            EventBody::JobEvicted(JobEvicted {
                kind,
                run_remote_usage: f.rusage("RunRemoteUsage"),
                run_local_usage: f.rusage("RunLocalUsage"),
                sent_bytes: f.real("SentBytes").unwrap_or(0.0),
                received_bytes: f.real("ReceivedBytes").unwrap_or(0.0),
                reason: f.string("Reason"),
                reason_code: f.int32("ReasonCode").unwrap_or(0),
                reason_subcode: f.int32("ReasonSubCode").unwrap_or(0),
                usage: Vec::new(),
            })
        }
        JOB_TERMINATED => {
            let exit = exit_from(f);
            EventBody::JobTerminated(JobTerminated {
                exit,
                core_file: match exit {
                    ExitStatus::Signal(_) => f.string("CoreFile"),
                    ExitStatus::Code(_) => None,
                },
                run_remote_usage: f.rusage("RunRemoteUsage"),
                run_local_usage: f.rusage("RunLocalUsage"),
                total_remote_usage: f.rusage("TotalRemoteUsage"),
                total_local_usage: f.rusage("TotalLocalUsage"),
                sent_bytes: f.real("SentBytes").unwrap_or(0.0),
                received_bytes: f.real("ReceivedBytes").unwrap_or(0.0),
                total_sent_bytes: f.real("TotalSentBytes").unwrap_or(0.0),
                total_received_bytes: f.real("TotalReceivedBytes").unwrap_or(0.0),
                usage: usage_from_ad(ad),
            })
        }
        IMAGE_SIZE => EventBody::ImageSize(ImageSize {
            image_size_kb: f.int("Size").unwrap_or(-1),
            memory_usage_mb: f.int("MemoryUsage"),
            // A log from before 2012 has no RSS: the reference reads it as 0.
            resident_set_size_kb: Some(f.int("ResidentSetSize").unwrap_or(0)),
            proportional_set_size_kb: f.int("ProportionalSetSize"),
        }),
        SHADOW_EXCEPTION => EventBody::ShadowException(ShadowException {
            message: f.text("Message"),
            sent_bytes: f.real("SentBytes").unwrap_or(0.0),
            received_bytes: f.real("ReceivedBytes").unwrap_or(0.0),
        }),
        GENERIC => EventBody::Generic(Generic {
            info: f.text("Info"),
        }),
        JOB_ABORTED => EventBody::JobAborted(JobAborted {
            reason: f.string("Reason"),
        }),
        JOB_SUSPENDED => EventBody::JobSuspended(JobSuspended {
            num_pids: f.int32("NumberOfPIDs").unwrap_or(-1),
        }),
        JOB_UNSUSPENDED => EventBody::JobUnsuspended,
        JOB_HELD => EventBody::JobHeld(JobHeld {
            reason: f.string("HoldReason"),
            code: f.int32("HoldReasonCode").unwrap_or(0),
            subcode: f.int32("HoldReasonSubCode").unwrap_or(0),
        }),
        JOB_RELEASED => EventBody::JobReleased(JobReleased {
            reason: f.string("Reason"),
        }),
        POST_SCRIPT_TERMINATED => EventBody::PostScriptTerminated(PostScriptTerminated {
            exit: exit_from(f),
            dag_node_name: f.string("DAGNodeName"),
        }),
        REMOTE_ERROR => EventBody::RemoteError(RemoteError {
            daemon_name: f.text("Daemon"),
            execute_host: f.text("ExecuteHost"),
            message: f.text("ErrorMsg"),
            critical: f.int("CriticalError").is_none_or(|v| v != 0),
            hold_reason_code: f.int32("HoldReasonCode").unwrap_or(0),
            hold_reason_subcode: f.int32("HoldReasonSubCode").unwrap_or(0),
        }),
        JOB_DISCONNECTED => EventBody::JobDisconnected(JobDisconnected {
            reason: f.text("DisconnectReason"),
            startd_name: f.text("StartdName"),
            startd_addr: f.text("StartdAddr"),
        }),
        JOB_RECONNECTED => EventBody::JobReconnected(JobReconnected {
            startd_name: f.text("StartdName"),
            startd_addr: f.text("StartdAddr"),
            starter_addr: f.text("StarterAddr"),
        }),
        JOB_RECONNECT_FAILED => EventBody::JobReconnectFailed(JobReconnectFailed {
            reason: f.text("Reason"),
            startd_name: f.text("StartdName"),
        }),
        JOB_AD_INFORMATION => EventBody::JobAdInformation(JobAdInformation { ad: ad.clone() }),
        JOB_STATUS_UNKNOWN => EventBody::JobStatusUnknown,
        JOB_STATUS_KNOWN => EventBody::JobStatusKnown,
        ATTRIBUTE_UPDATE => EventBody::AttributeUpdate(AttributeUpdate {
            name: f.text("Attribute"),
            value: f.text("Value"),
            old_value: None,
        }),
        PRESKIP => EventBody::PreSkip(PreSkip {
            log_notes: f.text("SkipEventLogNotes"),
        }),
        CLUSTER_SUBMIT => EventBody::ClusterSubmit(ClusterSubmit {
            submit_host: f.text("SubmitHost"),
            // Only structured notes have a ClassAd form.
            log_notes: f
                .ad("StructuredNotes")
                .map(|n| crate::classad::unparse::ad_to_string(&n)),
            user_notes: None,
        }),
        CLUSTER_REMOVE => EventBody::ClusterRemove(ClusterRemove {
            next_proc_id: f.int32("NextProcId").unwrap_or(0),
            next_row: f.int32("NextRow").unwrap_or(0),
            completion: Completion::from_code(f.int32("Completion").unwrap_or(0)),
            notes: f.string("Notes"),
        }),
        FACTORY_PAUSED => EventBody::FactoryPaused(FactoryPaused {
            reason: f.string("Reason"),
            pause_code: f.int32("PauseCode").unwrap_or(0),
            hold_code: f.int32("HoldCode").unwrap_or(0),
        }),
        FACTORY_RESUMED => EventBody::FactoryResumed(FactoryResumed {
            reason: f.string("Reason"),
        }),
        FILE_TRANSFER => match f.int("Type").and_then(FileTransferKind::from_code) {
            Some(kind) => EventBody::FileTransfer(FileTransfer {
                kind,
                queueing_delay: f.int("QueueingDelay").filter(|d| *d != -1),
                host: f.string("Host"),
            }),
            // Without a phase the event cannot be written as text: keep what there is.
            None => future_from_classad(number, ad),
        },
        _ => future_from_classad(number, ad),
    }
}

/// An event of an unknown type: its head, and its other attributes as `Name = value` lines
/// (in the ad's order; the reference sorts them, but prints the ad in hash order anyway).
fn future_from_classad(number: u32, ad: &ClassAd) -> EventBody {
    const KNOWN: [&str; 8] = [
        "MyType",
        "EventTypeNumber",
        "Cluster",
        "Proc",
        "Subproc",
        "EventTime",
        "EventHead",
        "EventPayloadLines",
    ];
    let head = Fields(ad).text("EventHead");
    let mut payload = String::new();
    for (n, e) in ad
        .iter()
        .filter(|(n, _)| !KNOWN.iter().any(|k| k.eq_ignore_ascii_case(n)))
    {
        payload.push_str(n);
        payload.push_str(" = ");
        payload.push_str(&crate::classad::unparse::expr_to_old_string(e));
        payload.push('\n');
    }
    EventBody::Future(FutureEvent {
        number,
        head,
        payload,
    })
}
