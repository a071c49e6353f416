//! Each event's exact text, hand-checked against the format strings of condor_event.cpp;
//! round trips of every event through every form; following a log as it is written.

use chrono::{DateTime, Utc};

use super::*;
use crate::classad::parser::parse_old_expr;
use crate::classad::{parse_old_ad, Expr};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn at(body: impl Into<EventBody>) -> Event {
    Event::new(42, 0, body).at(t("2024-01-31T11:58:01Z"))
}

fn utc() -> LogFormat {
    LogFormat::from_options("UTC")
}

/// The event's text in UTC, without the header up to the date (checked once, below).
fn body_text(body: impl Into<EventBody>) -> String {
    let e = at(body);
    let text = format_event(&e, &utc()).unwrap();
    let header = format!("{:03} (042.000.000) 2024-01-31 11:58:01Z ", e.number());
    assert!(text.starts_with(&header), "{text}");
    assert!(text.ends_with("\n...\n"), "{text}");
    text[header.len()..text.len() - 4].to_string()
}

fn expr(s: &str) -> Option<Expr> {
    Some(parse_old_expr(s).unwrap())
}

fn usage_rows() -> Vec<ResourceUsage> {
    let row = |name: &str, u: &str, r: &str, a: &str| ResourceUsage {
        name: name.into(),
        usage: expr(u),
        request: expr(r),
        allocated: expr(a),
        assigned: None,
    };
    vec![
        row("Cpus", "0", "1", "1"),
        row("Disk", "36", "1024", "1034424"),
        row("Memory", "0", "128", "128"),
    ]
}

fn rusage(user_secs: i64, sys_secs: i64) -> Rusage {
    Rusage {
        user_secs,
        sys_secs,
    }
}

#[test]
fn headers() {
    let e = Event::new(42, 3, JobAborted::default()).at(t("2024-01-31T11:58:01.250Z"));
    let text = |opts: &str| format_event(&e, &LogFormat::from_options(opts)).unwrap();
    assert_eq!(
        text("UTC"),
        "009 (042.003.000) 2024-01-31 11:58:01Z Job was aborted.\n...\n"
    );
    assert!(text("UTC,SUB_SECOND").starts_with("009 (042.003.000) 2024-01-31 11:58:01.250Z Job"));
    assert!(text("LEGACY UTC").starts_with("009 (042.003.000) 01/31 11:58:01Z Job"));
    assert!(text("UTC SUB_SECOND LEGACY").starts_with("009 (042.003.000) 01/31 "));
    let big = Event {
        cluster: 123456,
        proc: 1234,
        subproc: 0,
        ..e.clone()
    };
    assert!(format_event(&big, &utc())
        .unwrap()
        .starts_with("009 (123456.1234.000) "));
}

#[test]
fn submit() {
    let e = Submit {
        submit_host: "<192.0.2.10:9618?addrs=192.0.2.10-9618&noUDP&sock=schedd_123_abcd>".into(),
        log_notes: Some("DAG Node: A".into()),
        user_notes: Some("my notes".into()),
        warnings: Some("request_memory is large".into()),
    };
    assert_eq!(
        body_text(e),
        "Job submitted from host: <192.0.2.10:9618?addrs=192.0.2.10-9618&noUDP&sock=schedd_123_abcd>\n\
         \x20   DAG Node: A\n\
         \x20   my notes\n\
         \x20   WARNING: Committed job submission into the queue with the following warning(s): request_memory is large\n"
    );
    assert_eq!(
        body_text(Submit {
            submit_host: "<h>".into(),
            ..Default::default()
        }),
        "Job submitted from host: <h>\n"
    );
}

#[test]
fn execute() {
    let e = Execute {
        execute_host: "<192.0.2.20:9618?addrs=192.0.2.20-9618>".into(),
        slot_name: Some("slot1_1@ep.example.org".into()),
        props: parse_old_ad(
            "Memory = 128\ncpus = 1\nDisk = 1048576\nCondorScratchDir = \"/var/lib/condor/execute/dir_12345\"\n",
        )
        .unwrap(),
    };
    assert_eq!(
        body_text(e),
        "Job executing on host: <192.0.2.20:9618?addrs=192.0.2.20-9618>\n\
         \tSlotName: slot1_1@ep.example.org\n\
         \tCondorScratchDir = \"/var/lib/condor/execute/dir_12345\"\n\
         \tcpus = 1\n\
         \tDisk = 1048576\n\
         \tMemory = 128\n"
    );
}

#[test]
fn executable_error_and_checkpointed() {
    let kind = |kind| ExecutableError { kind };
    assert_eq!(
        body_text(kind(ExecErrorKind::NotExecutable)),
        "(0) Job file not executable.\n"
    );
    assert_eq!(
        body_text(kind(ExecErrorKind::BadLink)),
        "(1) Job not properly linked for Condor.\n"
    );
    assert_eq!(
        body_text(kind(ExecErrorKind::Other(7))),
        "(7) [Bad error number.]\n"
    );
    let c = Checkpointed {
        run_remote_usage: rusage(65, 93784),
        run_local_usage: rusage(0, 0),
        sent_bytes: 1234.0,
    };
    assert_eq!(
        body_text(c),
        "Job was checkpointed.\n\
         \tUsr 0 00:01:05, Sys 1 02:03:04  -  Run Remote Usage\n\
         \tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
         \t1234  -  Run Bytes Sent By Job For Checkpoint\n"
    );
}

#[test]
fn evictions() {
    let plain = JobEvicted {
        run_remote_usage: rusage(1, 2),
        sent_bytes: 10.0,
        received_bytes: 20.0,
        ..Default::default()
    };
    assert_eq!(
        body_text(plain.clone()),
        "Job was evicted.\n\
         \t(0) CPU times\n\
         \t\tUsr 0 00:00:01, Sys 0 00:00:02  -  Run Remote Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
         \t10  -  Run Bytes Sent By Job\n\
         \t20  -  Run Bytes Received By Job\n"
    );
    let checkpointed = JobEvicted {
        kind: Eviction::Checkpointed,
        reason: Some("The job was preempted".into()),
        reason_code: 21,
        reason_subcode: 102,
        usage: usage_rows(),
        ..plain.clone()
    };
    assert_eq!(
        body_text(checkpointed),
        "Job was evicted. Code 21 Subcode 102\n\
         \t(1) Job was checkpointed.\n\
         \t\tUsr 0 00:00:01, Sys 0 00:00:02  -  Run Remote Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
         \t10  -  Run Bytes Sent By Job\n\
         \t20  -  Run Bytes Received By Job\n\
         \tReason: The job was preempted\n\
         \tPartitionable Resources :    Usage  Request Allocated \n\
         \t   Cpus                 :        0        1         1 \n\
         \t   Disk (KB)            :       36     1024   1034424 \n\
         \t   Memory (MB)          :        0      128       128 \n"
    );
    let requeued = JobEvicted {
        kind: Eviction::Requeued {
            exit: ExitStatus::Signal(9),
            core_file: Some("/tmp/core.123".into()),
        },
        reason: Some("OnExitRemove evaluated to FALSE".into()),
        ..plain.clone()
    };
    assert_eq!(
        body_text(requeued),
        "Job was evicted.\n\
         \t(0) Job terminated and was requeued\n\
         \t\tUsr 0 00:00:01, Sys 0 00:00:02  -  Run Remote Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
         \t10  -  Run Bytes Sent By Job\n\
         \t20  -  Run Bytes Received By Job\n\
         \t(0) Abnormal termination (signal 9)\n\
         \t(1) Corefile in: /tmp/core.123\n\
         \tOnExitRemove evaluated to FALSE\n"
    );
    let normal = JobEvicted {
        kind: Eviction::Requeued {
            exit: ExitStatus::Code(3),
            core_file: None,
        },
        ..plain
    };
    assert!(body_text(normal).ends_with(
        "\t20  -  Run Bytes Received By Job\n\t(1) Normal termination (return value 3)\n"
    ));
}

#[test]
fn terminations() {
    let normal = JobTerminated {
        exit: ExitStatus::Code(0),
        total_remote_usage: rusage(3661, 0),
        usage: usage_rows(),
        ..Default::default()
    };
    assert_eq!(
        body_text(normal),
        "Job terminated.\n\
         \t(1) Normal termination (return value 0)\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
         \t\tUsr 0 01:01:01, Sys 0 00:00:00  -  Total Remote Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage\n\
         \t0  -  Run Bytes Sent By Job\n\
         \t0  -  Run Bytes Received By Job\n\
         \t0  -  Total Bytes Sent By Job\n\
         \t0  -  Total Bytes Received By Job\n\
         \tPartitionable Resources :    Usage  Request Allocated \n\
         \t   Cpus                 :        0        1         1 \n\
         \t   Disk (KB)            :       36     1024   1034424 \n\
         \t   Memory (MB)          :        0      128       128 \n"
    );
    let signal = |core_file| JobTerminated {
        exit: ExitStatus::Signal(11),
        core_file,
        sent_bytes: 5.0,
        ..Default::default()
    };
    let text = body_text(signal(None));
    assert!(text.starts_with(
        "Job terminated.\n\
         \t(0) Abnormal termination (signal 11)\n\
         \t(0) No core file\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage\n"
    ));
    assert!(
        text.ends_with("\t0  -  Total Bytes Received By Job\n"),
        "{text}"
    );
    assert!(body_text(signal(Some("core.42".into())))
        .starts_with("Job terminated.\n\t(0) Abnormal termination (signal 11)\n\t(1) Corefile in: core.42\n\t\tUsr"));
}

#[test]
fn image_size_and_shadow_exception() {
    let e = ImageSize {
        image_size_kb: 2000,
        memory_usage_mb: Some(1),
        resident_set_size_kb: Some(1024),
        proportional_set_size_kb: Some(900),
    };
    assert_eq!(
        body_text(e),
        "Image size of job updated: 2000\n\
         \t1  -  MemoryUsage of job (MB)\n\
         \t1024  -  ResidentSetSize of job (KB)\n\
         \t900  -  ProportionalSetSize of job (KB)\n"
    );
    assert_eq!(
        body_text(ImageSize {
            image_size_kb: 7,
            ..Default::default()
        }),
        "Image size of job updated: 7\n\t0  -  ResidentSetSize of job (KB)\n"
    );
    let s = ShadowException {
        message: "Error from starter".into(),
        sent_bytes: 1.0,
        received_bytes: 2.0,
    };
    assert_eq!(
        body_text(s),
        "Shadow exception!\n\tError from starter\n\t1  -  Run Bytes Sent By Job\n\t2  -  Run Bytes Received By Job\n"
    );
}

#[test]
fn the_queue_events() {
    assert_eq!(
        body_text(Generic {
            info: "a generic event".into()
        }),
        "a generic event\n"
    );
    assert_eq!(
        body_text(JobAborted {
            reason: Some("via condor_rm (by user alice)".into())
        }),
        "Job was aborted.\n\tvia condor_rm (by user alice)\n"
    );
    assert_eq!(
        body_text(JobSuspended { num_pids: 1 }),
        "Job was suspended.\n\tNumber of processes actually suspended: 1\n"
    );
    assert_eq!(
        body_text(EventBody::JobUnsuspended),
        "Job was unsuspended.\n"
    );
    assert_eq!(
        body_text(JobHeld {
            reason: Some("via condor_hold (by user alice)".into()),
            code: 1,
            subcode: 0
        }),
        "Job was held.\n\tvia condor_hold (by user alice)\n\tCode 1 Subcode 0\n"
    );
    assert_eq!(
        body_text(JobHeld::default()),
        "Job was held.\n\tReason unspecified\n\tCode 0 Subcode 0\n"
    );
    assert_eq!(
        body_text(JobReleased {
            reason: Some("via condor_release (by user alice)".into())
        }),
        "Job was released.\n\tvia condor_release (by user alice)\n"
    );
    assert_eq!(body_text(JobReleased::default()), "Job was released.\n");
    // A reason cannot end the event early.
    assert_eq!(
        body_text(JobAborted {
            reason: Some("two\nlines\r\n...".into())
        }),
        "Job was aborted.\n\ttwo|lines |...\n"
    );
}

#[test]
fn remote_side_events() {
    assert_eq!(
        body_text(PostScriptTerminated {
            exit: ExitStatus::Code(0),
            dag_node_name: Some("A".into())
        }),
        "POST Script terminated.\n\t(1) Normal termination (return value 0)\n    DAG Node: A\n"
    );
    assert_eq!(
        body_text(PostScriptTerminated {
            exit: ExitStatus::Signal(15),
            dag_node_name: None
        }),
        "POST Script terminated.\n\t(0) Abnormal termination (signal 15)\n"
    );
    // condor_event.cpp `PreSkipEvent::formatBody`.
    let skip = PreSkip {
        log_notes: "DAG Node: B".into(),
    };
    assert_eq!(
        body_text(skip.clone()),
        "PRE script return value is PRE_SKIP value\n    DAG Node: B\n"
    );
    let text = format_event(&at(skip.clone()), &utc()).unwrap();
    let back = parse_events("x", &text, &ReadOptions::default()).unwrap();
    assert_eq!(back[0].body, EventBody::PreSkip(skip));
    let err = RemoteError {
        daemon_name: "starter".into(),
        execute_host: "slot1@ep.example.org".into(),
        message: "Failed to execute '/bin/nope'\nNo such file".into(),
        critical: true,
        hold_reason_code: 6,
        hold_reason_subcode: 2,
    };
    assert_eq!(
        body_text(err),
        "Error from starter on slot1@ep.example.org:\n\
         \tFailed to execute '/bin/nope'\n\
         \tNo such file\n\
         \tCode 6 Subcode 2\n"
    );
    assert_eq!(
        body_text(RemoteError {
            daemon_name: "shadow".into(),
            execute_host: "h".into(),
            critical: false,
            ..Default::default()
        }),
        "Message from shadow on h:\n"
    );
    assert_eq!(
        body_text(JobDisconnected {
            reason: "Socket between submit and execute hosts closed unexpectedly".into(),
            startd_name: "slot1@ep".into(),
            startd_addr: "<192.0.2.20:9618>".into(),
        }),
        "Job disconnected, attempting to reconnect\n\
         \x20   Socket between submit and execute hosts closed unexpectedly\n\
         \x20   Trying to reconnect to slot1@ep <192.0.2.20:9618>\n"
    );
    assert_eq!(
        body_text(JobReconnected {
            startd_name: "slot1@ep".into(),
            startd_addr: "<192.0.2.20:9618>".into(),
            starter_addr: "<192.0.2.20:40001>".into(),
        }),
        "Job reconnected to slot1@ep\n    startd address: <192.0.2.20:9618>\n    starter address: <192.0.2.20:40001>\n"
    );
    assert_eq!(
        body_text(JobReconnectFailed {
            reason: "Job lease expired".into(),
            startd_name: "slot1@ep".into(),
        }),
        "Job reconnection failed\n    Job lease expired\n    Can not reconnect to slot1@ep, rescheduling job\n"
    );
    let refused = format_event(&at(JobDisconnected::default()), &utc()).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "cannot write event 022: a disconnect event needs a reason, a startd name and address"
    );
}

#[test]
fn ads_and_attributes() {
    let ad = parse_old_ad("a = 1\nJobStatus = 2\nClaimId = \"secret\"\nB = \"x\"\nL = { 1, 2 }\n")
        .unwrap();
    assert_eq!(
        body_text(JobAdInformation { ad }),
        "Job ad information event triggered.\nB = \"x\"\nJobStatus = 2\nL = { 1,2 }\na = 1\n"
    );
    assert_eq!(
        body_text(AttributeUpdate {
            name: "JobStatus".into(),
            value: "2".into(),
            old_value: Some("1".into())
        }),
        "Changing job attribute JobStatus from 1 to 2\n"
    );
    assert_eq!(
        body_text(AttributeUpdate {
            name: "JobStatus".into(),
            value: "2".into(),
            old_value: None
        }),
        "Setting job attribute JobStatus to 2\n"
    );
    for (body, text) in [
        (
            EventBody::JobStatusUnknown,
            "The job's remote status is unknown\n",
        ),
        (
            EventBody::JobStatusKnown,
            "The job's remote status is known again\n",
        ),
    ] {
        assert_eq!(body_text(body), text);
    }
}

#[test]
fn late_materialization() {
    assert_eq!(
        body_text(ClusterSubmit {
            submit_host: "<h>".into(),
            log_notes: Some("notes".into()),
            user_notes: None
        }),
        "Cluster submitted from host: <h>\n    notes\n"
    );
    assert_eq!(
        body_text(ClusterRemove {
            next_proc_id: 10,
            next_row: 10,
            completion: Completion::Complete,
            notes: None
        }),
        "Cluster removed\n\tMaterialized 10 jobs from 10 items.\tComplete\n"
    );
    assert_eq!(
        body_text(ClusterRemove {
            next_proc_id: 3,
            next_row: 2,
            completion: Completion::Error(-3),
            notes: Some("removed by user".into())
        }),
        "Cluster removed\n\tMaterialized 3 jobs from 2 items.\tError -3\n\tremoved by user\n"
    );
    assert_eq!(
        body_text(FactoryPaused {
            reason: Some("by user".into()),
            pause_code: 1,
            hold_code: 26
        }),
        "Job Materialization Paused\n\tby user\n\tPauseCode 1\n\tHoldCode 26\n"
    );
    assert_eq!(
        body_text(FactoryPaused::default()),
        "Job Materialization Paused\n"
    );
    assert_eq!(
        body_text(FactoryResumed {
            reason: Some("by user".into())
        }),
        "Job Materialization Resumed\n\tby user\n"
    );
}

#[test]
fn file_transfers() {
    let mut texts = Vec::new();
    for kind in FileTransferKind::ALL {
        texts.push(body_text(FileTransfer {
            kind,
            queueing_delay: None,
            host: None,
        }));
    }
    assert_eq!(
        texts,
        [
            "Entered queue to transfer input files\n",
            "Started transferring input files\n",
            "Finished transferring input files\n",
            "Entered queue to transfer output files\n",
            "Started transferring output files\n",
            "Finished transferring output files\n",
        ]
    );
    assert_eq!(
        body_text(FileTransfer {
            kind: FileTransferKind::InputStarted,
            queueing_delay: Some(3),
            host: Some("<192.0.2.20:9618>".into())
        }),
        "Started transferring input files\n\tSeconds spent in queue: 3\n\tTransferring to host: <192.0.2.20:9618>\n"
    );
}

#[test]
fn future_events_keep_their_text() {
    let f = FutureEvent {
        number: 47,
        head: "Common files event: TransferQueued".into(),
        payload: "\tEntered queue to transfer common files\n".into(),
    };
    assert_eq!(
        body_text(f),
        "Common files event: TransferQueued\n\tEntered queue to transfer common files\n"
    );
}

/// One event of every kind, with fields set.
fn samples() -> Vec<Event> {
    let bodies: Vec<EventBody> = vec![
        Submit {
            submit_host: "<192.0.2.10:9618?addrs=192.0.2.10-9618&noUDP>".into(),
            log_notes: Some("DAG Node: A".into()),
            user_notes: Some("user notes".into()),
            warnings: Some("w".into()),
        }
        .into(),
        Execute {
            execute_host: "<192.0.2.20:9618>".into(),
            slot_name: Some("slot1_1@ep".into()),
            props: parse_old_ad("Cpus = 1\nMemory = 128\n").unwrap(),
        }
        .into(),
        ExecutableError {
            kind: ExecErrorKind::BadLink,
        }
        .into(),
        Checkpointed {
            run_remote_usage: rusage(65, 93784),
            run_local_usage: rusage(1, 0),
            sent_bytes: 1234.0,
        }
        .into(),
        JobEvicted {
            kind: Eviction::Checkpointed,
            run_remote_usage: rusage(1, 2),
            sent_bytes: 10.0,
            reason: Some("preempted".into()),
            reason_code: 21,
            reason_subcode: 102,
            usage: usage_rows(),
            ..Default::default()
        }
        .into(),
        JobEvicted {
            kind: Eviction::Requeued {
                exit: ExitStatus::Signal(9),
                core_file: Some("/tmp/core".into()),
            },
            reason: Some("requeued".into()),
            ..Default::default()
        }
        .into(),
        JobTerminated {
            exit: ExitStatus::Code(3),
            run_remote_usage: rusage(7, 8),
            total_remote_usage: rusage(70, 80),
            sent_bytes: 1.0,
            received_bytes: 2.0,
            total_sent_bytes: 3.0,
            total_received_bytes: 4.0,
            usage: usage_rows(),
            ..Default::default()
        }
        .into(),
        JobTerminated {
            exit: ExitStatus::Signal(11),
            core_file: Some("core.1".into()),
            ..Default::default()
        }
        .into(),
        ImageSize {
            image_size_kb: 2000,
            memory_usage_mb: Some(1),
            resident_set_size_kb: Some(1024),
            proportional_set_size_kb: Some(900),
        }
        .into(),
        ShadowException {
            message: "oops".into(),
            sent_bytes: 1.0,
            received_bytes: 2.0,
        }
        .into(),
        Generic {
            info: "generic".into(),
        }
        .into(),
        JobAborted {
            reason: Some("via condor_rm".into()),
        }
        .into(),
        JobSuspended { num_pids: 3 }.into(),
        EventBody::JobUnsuspended,
        JobHeld {
            reason: Some("via condor_hold".into()),
            code: 1,
            subcode: 0,
        }
        .into(),
        JobHeld::default().into(),
        JobReleased {
            reason: Some("via condor_release".into()),
        }
        .into(),
        PostScriptTerminated {
            exit: ExitStatus::Code(1),
            dag_node_name: Some("A".into()),
        }
        .into(),
        RemoteError {
            daemon_name: "starter".into(),
            execute_host: "slot1@ep".into(),
            message: "line one\nline two".into(),
            critical: true,
            hold_reason_code: 6,
            hold_reason_subcode: 2,
        }
        .into(),
        JobDisconnected {
            reason: "socket closed".into(),
            startd_name: "slot1@ep".into(),
            startd_addr: "<192.0.2.20:9618>".into(),
        }
        .into(),
        JobReconnected {
            startd_name: "slot1@ep".into(),
            startd_addr: "<192.0.2.20:9618>".into(),
            starter_addr: "<192.0.2.20:40001>".into(),
        }
        .into(),
        JobReconnectFailed {
            reason: "lease expired".into(),
            startd_name: "slot1@ep".into(),
        }
        .into(),
        JobAdInformation {
            ad: parse_old_ad("JobStatus = 2\nOwner = \"alice\"\n").unwrap(),
        }
        .into(),
        EventBody::JobStatusUnknown,
        EventBody::JobStatusKnown,
        AttributeUpdate {
            name: "JobStatus".into(),
            value: "2".into(),
            old_value: Some("1".into()),
        }
        .into(),
        ClusterSubmit {
            submit_host: "<h>".into(),
            log_notes: Some("notes".into()),
            user_notes: Some("user".into()),
        }
        .into(),
        ClusterRemove {
            next_proc_id: 3,
            next_row: 2,
            completion: Completion::Error(-3),
            notes: Some("removed".into()),
        }
        .into(),
        FactoryPaused {
            reason: Some("by user".into()),
            pause_code: 1,
            hold_code: 26,
        }
        .into(),
        FactoryResumed {
            reason: Some("by user".into()),
        }
        .into(),
        FileTransfer {
            kind: FileTransferKind::OutputFinished,
            queueing_delay: Some(3),
            host: Some("<192.0.2.20:9618>".into()),
        }
        .into(),
        FutureEvent {
            number: 99,
            head: "Something new".into(),
            payload: "\tA = 1\n".into(),
        }
        .into(),
    ];
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, b)| Event::new(42, i as i32, b).at(t("2024-01-31T11:58:01.250Z")))
        .collect()
}

/// An event as a format keeps it: the time to its precision.
fn as_kept(e: &Event, fmt: &LogFormat) -> Event {
    let mut e = e.clone();
    if fmt.syntax() == LogSyntax::Text && !fmt.sub_second {
        e.time = DateTime::from_timestamp(e.time.timestamp(), 0).unwrap();
    }
    e
}

/// What has no ClassAd form does not come back from XML or JSON.
fn ad_lossless(e: &Event) -> bool {
    !matches!(
        e.body,
        EventBody::JobEvicted(_)
            | EventBody::AttributeUpdate(_)
            | EventBody::JobAdInformation(_)
            | EventBody::ClusterSubmit(_)
            | EventBody::Future(_)
    )
}

#[test]
fn every_event_round_trips_through_every_form() {
    let options = ReadOptions {
        legacy_year: Some(2024),
    };
    for opts in [
        "",
        "UTC",
        "UTC SUB_SECOND",
        "SUB_SECOND",
        "LEGACY",
        "XML",
        "XML UTC",
        "JSON",
        "JSON UTC",
    ] {
        let fmt = LogFormat::from_options(opts);
        let mut log = String::new();
        for e in samples() {
            log.push_str(&format_event(&e, &fmt).unwrap());
        }
        let back =
            parse_events("log", &log, &options).unwrap_or_else(|e| panic!("{opts}: {e}\n{log}"));
        assert_eq!(back.len(), samples().len(), "{opts}");
        let mut again = String::new();
        for (e, b) in samples().iter().zip(&back) {
            again.push_str(&format_event(b, &fmt).unwrap());
            if fmt.syntax() == LogSyntax::Text || ad_lossless(e) {
                assert_eq!(b, &as_kept(e, &fmt), "{opts}");
            }
        }
        assert_eq!(again, log, "{opts}");
    }
}

#[test]
fn format_options_as_htcondor_parses_them() {
    let f = LogFormat::from_options;
    assert_eq!(f(""), LogFormat::default());
    assert!(f("").iso_date && !f("").utc);
    assert_eq!(
        f("utc, sub_second"),
        LogFormat {
            utc: true,
            sub_second: true,
            ..Default::default()
        }
    );
    assert!(!f("UTC SUB_SECOND LEGACY").utc && !f("LEGACY").iso_date);
    assert!(f("LEGACY !LEGACY").iso_date);
    assert_eq!(f("XML").syntax(), LogSyntax::Xml);
    assert_eq!(f("XML JSON").syntax(), LogSyntax::Json);
    assert_eq!(f("JSON !JSON").syntax(), LogSyntax::Text);
    assert!(!f("!ISO_DATE").iso_date);
}

#[test]
fn json_and_xml_forms() {
    let e = at(JobHeld {
        reason: Some("via condor_hold".into()),
        code: 1,
        subcode: 0,
    });
    assert_eq!(
        format_event(&e, &LogFormat::from_options("JSON UTC")).unwrap(),
        "{\n  \"EventTypeNumber\": 12,\n  \"MyType\": \"JobHeldEvent\",\n  \
         \"EventTime\": \"2024-01-31T11:58:01Z\",\n  \"Cluster\": 42,\n  \"Proc\": 0,\n  \
         \"Subproc\": 0,\n  \"HoldReason\": \"via condor_hold\",\n  \"HoldReasonCode\": 1,\n  \
         \"HoldReasonSubCode\": 0\n}\n"
    );
    assert_eq!(
        format_event(&e.clone().at(t("2024-01-31T11:58:01.5Z")), &LogFormat::from_options("XML UTC")).unwrap(),
        "<c>\n    <a n=\"EventTypeNumber\"><i>12</i></a>\n    <a n=\"MyType\"><s>JobHeldEvent</s></a>\n    \
         <a n=\"EventTime\"><s>2024-01-31T11:58:01.500Z</s></a>\n    <a n=\"Cluster\"><i>42</i></a>\n    \
         <a n=\"Proc\"><i>0</i></a>\n    <a n=\"Subproc\"><i>0</i></a>\n    \
         <a n=\"HoldReason\"><s>via condor_hold</s></a>\n    <a n=\"HoldReasonCode\"><i>1</i></a>\n    \
         <a n=\"HoldReasonSubCode\"><i>0</i></a>\n</c>\n"
    );
    // A prolog and wrapper, as `condor_q -xml` writes them, are skipped.
    let doc = format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n{}</classads>\n",
        format_event(&e, &LogFormat::from_options("XML UTC")).unwrap()
    );
    assert_eq!(
        parse_events("x", &doc, &ReadOptions::default()).unwrap(),
        vec![e]
    );
}

#[test]
fn reading_what_htcondor_24_wrote() {
    // Termination tags ("ToE") and a plain-text eviction reason, as the 24.0 series writes
    // them, are read; the tags are not kept.
    let log = "005 (001.000.000) 2024-01-31 12:00:00Z Job terminated.\n\
               \t(1) Normal termination (return value 0)\n\
               \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage\n\
               \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
               \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Remote Usage\n\
               \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage\n\
               \t0  -  Run Bytes Sent By Job\n\
               \t0  -  Run Bytes Received By Job\n\
               \t0  -  Total Bytes Sent By Job\n\
               \t0  -  Total Bytes Received By Job\n\
               \tPartitionable Resources :    Usage  Request Allocated \n\
               \t   Cpus                 :                 1         1 \n\
               \n\
               \tJob terminated of its own accord at 2024-01-31T12:00:00Z with exit-code 0.\n\
               ...\n\
               004 (001.000.000) 01/31 12:00:00 Job was evicted.\n\
               \t(0) CPU times\n\
               \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage\n\
               \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
               \t0  -  Run Bytes Sent By Job\n\
               \t0  -  Run Bytes Received By Job\n\
               \tJob was vacated\n\
               ...\n";
    let events = parse_events("old.log", log, &ReadOptions::default()).unwrap();
    let EventBody::JobTerminated(term) = &events[0].body else {
        panic!("{events:?}")
    };
    assert_eq!(term.usage.len(), 1);
    assert!(term.usage[0].usage.is_none());
    let EventBody::JobEvicted(ev) = &events[1].body else {
        panic!()
    };
    assert_eq!(ev.reason.as_deref(), Some("Job was vacated"));
}

#[test]
fn attribute_updates_and_submit_notes_read_back() {
    let log =
        "033 (001.000.000) 2024-01-31 12:00:00Z Setting job attribute Owner to \"a b\"\n...\n\
               000 (001.000.000) 2024-01-31 12:00:00Z Job submitted from host: <h>\n    \
               [ DAGNodeName = \"B\" ]\n...\n";
    let events = parse_events("x", log, &ReadOptions::default()).unwrap();
    assert_eq!(
        events[0].body,
        EventBody::AttributeUpdate(AttributeUpdate {
            name: "Owner".into(),
            value: "\"a b\"".into(),
            old_value: None
        })
    );
    let ad = events[1].to_classad(true);
    let notes = crate::classad::unparse::expr_to_string(ad.lookup("StructuredNotes").unwrap());
    assert_eq!(notes, "[ DAGNodeName = \"B\" ]");
}

#[test]
fn malformed_events_name_the_file_and_line() {
    let cases = [
        ("junk\n...\n", 1, "expected an event header"),
        ("\n\n012 (1.0.0) 2024-13-01 00:00:00 x\n...\n", 3, "impossible date"),
        (
            "005 (001.000.000) 2024-01-31 12:00:00 Job terminated.\n\t(1) Normal termination (return value 0)\n\tgarbage\n...\n",
            3,
            "expected a CPU usage line",
        ),
        (
            "010 (001.000.000) 2024-01-31 12:00:00 Job was suspended.\n...\n",
            1,
            "the number of suspended processes",
        ),
        ("{ \"MyType\": \"x\" }\n", 1, "no EventTypeNumber"),
        ("<c>\n<a n=\"EventTypeNumber\"><i>1</i></a>\n</c>\n", 1, "no EventTime"),
    ];
    for (log, line, what) in cases {
        let err = parse_events("my.log", log, &ReadOptions::default()).unwrap_err();
        let EventLogError::Malformed { line: l, .. } = &err else {
            panic!("{err}")
        };
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("my.log, line {line}: ")),
            "{text}"
        );
        assert!(text.contains(what), "{text}");
        assert_eq!(*l, line);
    }
}

#[test]
fn a_follower_returns_whole_events_as_they_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.log");
    let mut follower = LogFollower::new(&path);
    // No file yet: nothing to read.
    assert_eq!(follower.next_event().unwrap(), None);
    let events = samples();
    let text: String = events[..3]
        .iter()
        .map(|e| format_event(e, &utc()).unwrap())
        .collect();
    // Written in pieces, the events appear only once complete.
    let cut = text.find("\n...\n").unwrap() + 10;
    std::fs::write(&path, &text[..cut]).unwrap();
    let first = follower.read_available().unwrap();
    assert!(!first.is_empty() && first.len() < 3);
    assert!(follower.pending_bytes() > 0);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut f, &text.as_bytes()[cut..]).unwrap();
    let rest = follower.read_available().unwrap();
    assert_eq!(first.len() + rest.len(), 3);
    assert_eq!(follower.pending_bytes(), 0);
    let pos = follower.position();
    assert_eq!(pos.offset, text.len() as u64);
    assert_eq!(pos.line, 1 + text.matches('\n').count() as u64);
    // A malformed event is reported with its line and skipped.
    let bad = "012 (042.000.000) 2024-01-31 11:58:01Z Job was held.\n...\n011 (042.000.000) nonsense\n...\n";
    std::io::Write::write_all(&mut f, bad.as_bytes()).unwrap();
    assert!(follower.next_event().unwrap().is_some());
    let err = follower.next_event().unwrap_err();
    assert!(err.to_string().ends_with(&format!(", line {}: expected a date like 2024-01-31 12:00:00 or 01/31 12:00:00, found \"nonsense\"", pos.line + 2)), "{err}");
    assert_eq!(follower.next_event().unwrap(), None);
    // Resuming from a saved position reads on from there.
    let mut resumed = LogFollower::resume(&path, pos, ReadOptions::default());
    assert_eq!(resumed.read_available().unwrap().len(), 1);
    assert!(resumed.next_event().is_err());
    // A truncated log is reported.
    std::fs::write(&path, "").unwrap();
    assert!(matches!(
        follower.next_event(),
        Err(EventLogError::Truncated { .. })
    ));
}

#[test]
fn concurrent_writers_never_interleave() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.log");
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut log = EventLogWriter::open(&path, LogFormat::default()).unwrap();
                for i in 0..50 {
                    let e = Event::new(
                        w,
                        i,
                        JobTerminated {
                            usage: usage_rows(),
                            ..Default::default()
                        },
                    );
                    log.write(&e).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let events = read_events(&path).unwrap();
    assert_eq!(events.len(), 200);
    for w in 0..4 {
        let procs: Vec<i32> = events
            .iter()
            .filter(|e| e.cluster == w)
            .map(|e| e.proc)
            .collect();
        assert_eq!(procs, (0..50).collect::<Vec<_>>());
    }
}

#[test]
fn append_event_creates_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.log");
    let e = at(JobReleased::default());
    append_event(&path, &LogFormat::from_options("JSON UTC"), &e).unwrap();
    append_event(&path, &LogFormat::from_options("JSON UTC"), &e).unwrap();
    assert_eq!(read_events(&path).unwrap(), vec![e.clone(), e]);
    let missing = read_events(dir.path().join("nope.log")).unwrap_err();
    assert!(missing.to_string().contains("nope.log"), "{missing}");
}

#[test]
fn bytes_that_are_not_utf8_are_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    let e = at(JobReleased::default());
    let good = format_event(&e, &LogFormat::from_options("JSON UTC")).unwrap();
    let mut bytes = good.as_bytes().to_vec();
    bytes.extend_from_slice(b"\xff\xfe\n");
    bytes.extend_from_slice(good.as_bytes());
    std::fs::write(&path, bytes).unwrap();
    let mut f = LogFollower::new(&path);
    assert_eq!(f.next_event().unwrap(), Some(e.clone()));
    let err = f.next_event().unwrap_err().to_string();
    assert!(
        err.ends_with(", line 9: the line is not UTF-8 text"),
        "{err}"
    );
    assert_eq!(f.next_event().unwrap(), Some(e));
    assert_eq!(f.next_event().unwrap(), None);
}

#[test]
fn an_event_that_never_ends_is_reported_and_passed_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("endless.log");
    let e = at(JobReleased::default());
    let good = format_event(&e, &LogFormat::default()).unwrap();
    // A good event, then a header and lines without the event's "..." past the bound.
    let mut bytes = good.as_bytes().to_vec();
    bytes.extend_from_slice(good.lines().next().unwrap().as_bytes());
    bytes.push(b'\n');
    let filler = "x".repeat(1023) + "\n";
    while bytes.len() < good.len() + reader::MAX_EVENT_BYTES + (2 << 20) {
        bytes.extend_from_slice(filler.as_bytes());
    }
    std::fs::write(&path, &bytes).unwrap();
    let mut f = LogFollower::new(&path);
    assert_eq!(f.next_event().unwrap(), Some(e.clone()));
    let err = f.next_event().unwrap_err().to_string();
    assert!(err.contains(", line 3: no end of event in "), "{err}");
    assert!(f.pending_bytes() <= reader::MAX_EVENT_BYTES + (1 << 20));
    // What follows is read on: an event written after the junk is found.
    let mut more = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut more, format!("...\n{good}").as_bytes()).unwrap();
    let mut seen = None;
    for _ in 0..4 {
        match f.next_event() {
            Ok(Some(ev)) => {
                seen = Some(ev);
                break;
            }
            Ok(None) => break,
            Err(_) => continue,
        }
    }
    assert_eq!(seen, Some(e));
}
