//! condor_wait: waiting on job event logs written by the crate's writer, HTCondor's messages
//! and exit statuses, its quirks, and following a log that grows while it waits.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use condorlite::eventlog::{
    append_event, Event, EventBody, EventLogWriter, Execute, JobAborted, JobTerminated, LogFormat,
    Submit,
};

use crate::common::{TestEnvironment, NO_MASTER_NOTE};

/// The events' clock: 2024-01-31 12:00:00 UTC.
const NOW: i64 = 1_706_702_400;

const SUBMIT_HOST: &str = "<127.0.0.1:9618?addrs=127.0.0.1-9618&alias=submit.example.org>";
const EXECUTE_HOST: &str = "<127.0.0.1:9618?addrs=127.0.0.1-9618&alias=ep1.example.org>";

/// Logs are written in UTC (marked `Z`), so that they read the same in every time zone.
fn format() -> LogFormat {
    LogFormat {
        utc: true,
        ..LogFormat::default()
    }
}

fn at(event: Event, secs: i64) -> Event {
    event.at(Utc.timestamp_opt(NOW + secs, 0).unwrap())
}

fn submitted(cluster: i32, proc: i32) -> Event {
    let body = Submit {
        submit_host: SUBMIT_HOST.to_owned(),
        ..Submit::default()
    };
    at(Event::new(cluster, proc, EventBody::Submit(body)), 0)
}

fn executing(cluster: i32, proc: i32) -> Event {
    let body = Execute {
        execute_host: EXECUTE_HOST.to_owned(),
        ..Execute::default()
    };
    at(Event::new(cluster, proc, EventBody::Execute(body)), 5)
}

fn terminated(cluster: i32, proc: i32) -> Event {
    let body = JobTerminated::default();
    at(
        Event::new(cluster, proc, EventBody::JobTerminated(body)),
        65,
    )
}

fn aborted(cluster: i32, proc: i32) -> Event {
    let body = JobAborted {
        reason: Some("via condor_rm (by user alice)".to_owned()),
    };
    at(Event::new(cluster, proc, EventBody::JobAborted(body)), 70)
}

/// Writes a log of these events in the working directory.
fn write_log(env: &TestEnvironment, name: &str, events: &[Event]) -> PathBuf {
    let path = env.work_dir().join(name);
    let mut log = EventLogWriter::open(&path, format()).expect("the log opens");
    for e in events {
        log.write(e).expect("the event is written");
    }
    path
}

#[track_caller]
fn check(env: &TestEnvironment, args: &[&str], expected: &str) {
    let out = env.run("condor_wait", args);
    assert_eq!(out.to_string(), expected, "condor_wait {args:?}");
}

/// Two jobs of cluster 1 (one completes, one is removed) and one of cluster 2 still idle.
fn jobs_log(env: &TestEnvironment) -> PathBuf {
    write_log(
        env,
        "jobs.log",
        &[
            submitted(1, 0),
            submitted(1, 1),
            submitted(2, 0),
            executing(1, 0),
            terminated(1, 0),
            aborted(1, 1),
        ],
    )
}

#[test]
fn done_when_every_job_has_ended() {
    let env = TestEnvironment::new();
    jobs_log(&env);
    check(&env, &["jobs.log", "1"], "All jobs done.\n[exit status: 0]");
    check(
        &env,
        &["-status", "jobs.log", "1"],
        &format!(
            "1.0.0 submitted\n1.1.0 submitted\n1.0.0 executing on host {EXECUTE_HOST}\n\
             1.0.0 completed\n1.1.0 aborted\nAll jobs done.\n[exit status: 0]"
        ),
    );
    check(
        &env,
        &["jobs.log", "1.1"],
        "All jobs done.\n[exit status: 0]",
    );
    check(
        &env,
        &["jobs.log", "1.1.0"],
        "All jobs done.\n[exit status: 0]",
    );
}

#[test]
fn nothing_pending_counts_as_done() {
    let env = TestEnvironment::new();
    jobs_log(&env);
    write_log(&env, "empty.log", &[]);
    // An empty log, or a job the log never mentions: nothing is pending.
    check(&env, &["empty.log"], "All jobs done.\n[exit status: 0]");
    check(&env, &["jobs.log", "7"], "All jobs done.\n[exit status: 0]");
}

#[test]
fn a_number_of_jobs() {
    let env = TestEnvironment::new();
    jobs_log(&env);
    check(
        &env,
        &["-num", "2", "jobs.log"],
        "Specifed number of jobs (2) done.\n[exit status: 0]",
    );
    check(
        &env,
        &["-status", "-num", "1", "jobs.log"],
        &format!(
            "1.0.0 submitted\n1.1.0 submitted\n2.0.0 submitted\n\
             1.0.0 executing on host {EXECUTE_HOST}\n1.0.0 completed\n\
             Specifed number of jobs (1) done.\n[exit status: 0]"
        ),
    );
    // With -wait 0 the log is read once: 1 job of the 3 asked for, and a silent success.
    check(
        &env,
        &["-num", "3", "-wait", "0", "jobs.log"],
        "[exit status: 0]",
    );
}

#[test]
fn wait_zero_reads_the_log_once() {
    let env = TestEnvironment::new();
    jobs_log(&env);
    // Job 2.0 is still idle: -wait 0 exits 0 at the end of the log, saying nothing.
    check(&env, &["-wait", "0", "jobs.log"], "[exit status: 0]");
    check(
        &env,
        &["-wait", "0", "-status", "jobs.log", "2"],
        "2.0.0 submitted\n[exit status: 0]",
    );
}

#[test]
fn time_expires() {
    let env = TestEnvironment::new();
    jobs_log(&env);
    let start = Instant::now();
    check(
        &env,
        &["-wait", "1", "jobs.log", "2.0"],
        "Time expired.\n[exit status: 1]",
    );
    assert!(start.elapsed() >= Duration::from_secs(1));
    // Waiting for jobs to end in a log that has none.
    write_log(&env, "empty.log", &[]);
    check(
        &env,
        &["-num", "1", "-wait", "1", "empty.log"],
        "------- stderr -------\nThis log does not mention any jobs!\n[exit status: 1]",
    );
    check(
        &env,
        &["-num", "1", "-wait", "1", "empty.log", "5"],
        "------- stderr -------\nThis log does not mention that job!\n[exit status: 1]",
    );
}

/// Waiting for a job of this pool that only a master would run, with none running: the note
/// that it waits for one, on stderr, before the wait. Not for jobs this queue does not hold,
/// nor for held ones.
#[test]
fn without_a_master_waiting_says_the_jobs_wait_for_one() {
    let mut env = TestEnvironment::new();
    env.warn_no_master();
    env.write_file("job.sub", "executable = /bin/true\nlog = job.log\nqueue\n");
    let out = env.run("condor_submit", ["-terse", "job.sub"]);
    assert_eq!(out.stdout, "1.0 - 1.0\n", "{out}");
    let out = env.run("condor_wait", ["-wait", "1", "job.log"]);
    assert_eq!(
        env.normalize(&out.to_string()),
        format!("Time expired.\n------- stderr -------\n{NO_MASTER_NOTE}[exit status: 1]")
    );
    // Another pool's jobs (cluster 2 is not in this queue).
    jobs_log(&env);
    check(
        &env,
        &["-wait", "1", "jobs.log", "2.0"],
        "Time expired.\n[exit status: 1]",
    );
    // A held job waits for condor_release, not for a master.
    let out = env.run("condor_hold", ["1"]);
    assert_eq!(out.status, Some(0), "{out}");
    check(
        &env,
        &["-wait", "1", "job.log"],
        "Time expired.\n[exit status: 1]",
    );
}

#[test]
fn echo_prints_the_events() {
    let mut env = TestEnvironment::new();
    env.set_env("TZ", "UTC");
    jobs_log(&env);
    // Without DEFAULT_USERLOG_FORMAT_OPTIONS, condor_wait echoes legacy dates.
    check(
        &env,
        &["-echo", "jobs.log", "1.1"],
        &format!(
            "000 (001.001.000) 01/31 12:00:00 Job submitted from host: {SUBMIT_HOST}\n...\n\
             009 (001.001.000) 01/31 12:01:10 Job was aborted.\n\
             \tvia condor_rm (by user alice)\n...\nAll jobs done.\n[exit status: 0]"
        ),
    );
    check(
        &env,
        &["-echo:ISO_DATE,UTC", "-wait", "0", "jobs.log", "2"],
        &format!(
            "000 (002.000.000) 2024-01-31 12:00:00Z Job submitted from host: {SUBMIT_HOST}\n\
             ...\n[exit status: 0]"
        ),
    );
    let json = env.run("condor_wait", ["-echo:JSON", "-wait", "0", "jobs.log", "2"]);
    assert_eq!(json.status, Some(0));
    assert!(
        json.stdout.starts_with("{\n  \"EventTypeNumber\": 0,\n"),
        "{}",
        json.stdout
    );
}

#[test]
fn job_numbers_and_logs_that_cannot_be_read() {
    let env = TestEnvironment::new();
    jobs_log(&env);
    check(
        &env,
        &["jobs.log", "x"],
        "------- stderr -------\nCouldn't understand job number: x\n[exit status: 1]",
    );
    check(
        &env,
        &["nonesuch.log"],
        "------- stderr -------\nCouldn't open nonesuch.log: No such file or directory\n\
         [exit status: 1]",
    );
}

#[test]
fn command_line_errors_print_the_usage() {
    let env = TestEnvironment::new();
    // Asked for, the usage goes to stdout (where condorlite tools print their help).
    let usage = env.run("condor_wait", ["-help"]);
    assert_eq!((usage.stderr.as_str(), usage.status), ("", Some(0)));
    assert!(usage
        .stdout
        .starts_with("\nUse: condor_wait [options] <log-file> [job-number]\nWhere options are:\n    -help             Display options\n"));
    assert!(usage.stdout.ends_with(
        "\nTranscribe an entire log to UTC timestamps:\n    condor_wait -all -echo:UTC logfile\n"
    ));
    let text = &usage.stdout;
    for (args, message) in [
        (&[][..], ""),
        (
            &["-num", "0", "jobs.log"][..],
            "-num must be greater than zero\n",
        ),
        (&["jobs.log", "-wait"][..], "-wait requires an argument\n"),
        (&["jobs.log", "1", "2"][..], "Extra argument: 2\n\n"),
        (&["-bogus", "jobs.log"][..], ""),
        (
            &["-allevents", "-num", "2", "jobs.log"][..],
            "-num cannot be used with -allevents\n",
        ),
        (
            &["-num", "2", "-allevents", "jobs.log"][..],
            "-allevents cannot be used with -num\n",
        ),
    ] {
        let out = env.run("condor_wait", args);
        assert_eq!(out.stdout, "", "{args:?}");
        assert_eq!(out.stderr, format!("{message}{text}"), "{args:?}");
        assert_eq!(out.status, Some(1), "{args:?}");
    }
    // -version succeeds in printing and fails in exit status.
    let version = env.run("condor_wait", ["-version"]);
    assert_eq!(
        version.to_string(),
        format!(
            "{}\n{}\n[exit status: 1]",
            condorlite::version::CONDOR_VERSION,
            condorlite::version::CONDOR_PLATFORM
        )
    );
}

/// Waits for `child` to exit, failing the test after `limit`.
fn wait_for_exit(child: &mut std::process::Child, limit: Duration) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            return status.code().unwrap_or(-1);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("condor_wait did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn append(path: &Path, event: Event) {
    append_event(path, &format(), &event).expect("the event is appended");
}

#[test]
fn follows_the_log_while_waiting() {
    let env = TestEnvironment::new();
    let log = write_log(&env, "grow.log", &[submitted(3, 0), executing(3, 0)]);
    let mut child = env
        .command("condor_wait")
        .args(["-status", "grow.log", "3.0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("condor_wait starts");
    // condor_wait has read the whole log once it has printed its last event (-status prints
    // each event as it reads it); the job is still running, so it must still be waiting.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut out = String::new();
    while !out.contains("executing") {
        let n = std::io::BufRead::read_line(&mut stdout, &mut out).unwrap();
        assert!(n > 0, "condor_wait ended its output early: {out:?}");
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "condor_wait exited before the job ended"
    );
    let writer = std::thread::spawn(move || append(&log, terminated(3, 0)));
    writer.join().expect("the writer thread finishes");
    let status = wait_for_exit(&mut child, Duration::from_secs(20));
    stdout.read_to_string(&mut out).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(
        (out.as_str(), err.as_str(), status),
        (
            format!(
                "3.0.0 submitted\n3.0.0 executing on host {EXECUTE_HOST}\n3.0.0 completed\n\
                 All jobs done.\n"
            )
            .as_str(),
            "",
            0
        )
    );
}
