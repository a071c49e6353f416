//! `condor_check_userlogs`: job event logs read together, oldest event first, each event
//! printed and checked as HTCondor 24.0's condor_check_userlogs.cpp (with `CheckEvents`) does.

use crate::common::TestEnvironment;

fn submitted(id: &str, at: &str) -> String {
    format!(
        "000 ({id}) {at} Job submitted from host: <127.0.0.1:9618?addrs=127.0.0.1-9618&noUDP>\n...\n"
    )
}

fn executing(id: &str, at: &str) -> String {
    format!(
        "001 ({id}) {at} Job executing on host: <127.0.0.1:9618?addrs=127.0.0.1-9618&noUDP>\n...\n"
    )
}

fn terminated(id: &str, at: &str) -> String {
    format!(
        "005 ({id}) {at} Job terminated.\n\
         \t(1) Normal termination (return value 0)\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Remote Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Remote Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage\n\
         \t0  -  Run Bytes Sent By Job\n\t0  -  Run Bytes Received By Job\n\
         \t0  -  Total Bytes Sent By Job\n\t0  -  Total Bytes Received By Job\n...\n"
    )
}

fn held(id: &str, at: &str) -> String {
    format!(
        "012 ({id}) {at} Job was held.\n\tvia condor_hold (by user alice)\n\
         \tCode 1 Subcode 0\n...\n"
    )
}

#[test]
fn two_logs_are_read_together_oldest_event_first() {
    let env = TestEnvironment::new();
    let a = submitted("001.000.000", "2026-11-27 10:00:00")
        + &executing("001.000.000", "2026-11-27 10:00:10")
        + &terminated("001.000.000", "2026-11-27 10:00:30");
    let b = submitted("002.000.000", "2026-11-27 10:00:05")
        + &held("002.000.000", "2026-11-27 10:00:20")
        + &terminated("002.000.000", "2026-11-27 10:00:40");
    env.write_file("a.log", &a);
    env.write_file("b.log", &b);
    let out = env.run("condor_check_userlogs", ["a.log", "b.log", "a.log"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        "Log event: ULOG_SUBMIT (1.0.0) (\"\")\n Total submitted: 1; net submitted: 1\n\n\
         Log event: ULOG_SUBMIT (2.0.0) (\"\")\n Total submitted: 2; net submitted: 2\n\n\
         Log event: ULOG_EXECUTE (1.0.0)\n\
         Log event: ULOG_JOB_HELD (2.0.0) (code=1 subcode=0)\n\
         Log event: ULOG_JOB_TERMINATED (1.0.0)\n Total submitted: 2; net submitted: 1\n\n\
         Log event: ULOG_JOB_TERMINATED (2.0.0)\n Total submitted: 2; net submitted: 0\n\n\
         Log outcome: ULOG_NO_EVENT \nLog(s) are okay\n"
    );
}

#[test]
fn events_that_make_no_sense_are_errors() {
    let env = TestEnvironment::new();
    // Copies of one log: every job submitted and ended twice.
    let log = submitted("001.000.000", "2026-11-27 10:00:00")
        + &terminated("001.000.000", "2026-11-27 10:00:30")
        + &executing("003.000.000", "2026-11-27 10:00:40");
    env.write_file("a.log", &log);
    env.write_file("copy.log", &log);
    let out = env.run("condor_check_userlogs", ["a.log", "copy.log"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(
        out.stderr,
        "BAD EVENT: job (1.0.0) submitted, submit count != 1 (2)\n\
         BAD EVENT: job (1.0.0) ended, total end count != 1 (2)\n\
         BAD EVENT: job (3.0.0) executing, submit count < 1 (0)\n\
         BAD EVENT: job (3.0.0) executing, submit count < 1 (0)\n\
         BAD EVENT: job (1.0.0) ended, total end count != 1 (2); \
         BAD EVENT: job (3.0.0) ended, total end count != 1 (0)\n\
         CheckAllJobs() result: EVENT_ERROR\n"
    );
    assert!(out.stdout.ends_with("Log(s) have error(s)\n"), "{out}");
}

#[test]
fn a_log_that_cannot_be_read_further_may_be_okay_and_one_that_cannot_be_opened_is_an_error() {
    let env = TestEnvironment::new();
    let log = submitted("001.000.000", "2026-11-27 10:00:00")
        + &terminated("001.000.000", "2026-11-27 10:00:30")
        + "this is not an event\n...\n";
    env.write_file("a.log", &log);
    let out = env.run("condor_check_userlogs", ["a.log"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(
        out.stdout.ends_with(
            "Log outcome: ULOG_RD_ERROR \nLog(s) may be okay\nSome logs cannot be read\n"
        ),
        "{out}"
    );
    // A log that does not exist is made (empty), as HTCondor's monitor makes it; one that
    // cannot be made is an error.
    let out = env.run("condor_check_userlogs", ["new.log", "no/such/dir.log"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(env.work_dir().join("new.log").is_file());
    assert!(out.stderr.starts_with(
        "Error monitoring log file no/such/dir.log: ReadMultipleUserLogs:9004:Error getting \
         file ID in monitorLogFile()|ReadMultipleUserLogs:9004:Error initializing log file \
         no/such/dir.log|MultiLogFiles:9001:Error (2, No such file or directory) opening file \
         no/such/dir.log for creation or truncation\n"
    ));
    assert_eq!(
        out.stdout,
        "Log outcome: ULOG_NO_EVENT \nLog(s) have error(s)\n"
    );
    let out = env.run("condor_check_userlogs", ["-usage"]);
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (
            Some(0),
            "Usage: condor_check_userlogs <log file 1> [log file 2] ... [log file n]\n"
        )
    );
}
