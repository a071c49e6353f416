//! condor_watch_q: the frames, messages and exit statuses of HTCondor 24.0's own condor_watch_q
//! on fixture logs (tests/fixtures/watch_q/cases.json, from generate.py there), and watching a
//! real pool's jobs until an `-exit` condition ends the watch (stdout a pipe: frames appended).

use std::io::Write;
use std::path::Path;

use crate::common::{Following, TestEnvironment};
use crate::pool::{count, script, submit, wait_for, Master};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/watch_q");

/// Replaces what a run prints of the clock with `TIME`, as the fixture generator does.
fn untimed(text: &str) -> String {
    let re = regex::Regex::new(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d").unwrap();
    re.replace_all(text, "TIME").into_owned()
}

#[test]
fn frames_and_messages_are_htcondors() {
    let cases: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(FIXTURES).join("cases.json")).unwrap(),
    )
    .unwrap();
    let mut env = TestEnvironment::new();
    for log in ["jobs.log", "other.log"] {
        let text = std::fs::read_to_string(Path::new(FIXTURES).join(log)).unwrap();
        env.write_file(log, &text);
    }
    env.set_env("HOME", "/nonexistent");
    env.set_env("USER", "alice");
    let dir = env.work_dir().to_string_lossy().into_owned();
    let mut failures = Vec::new();
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let args: Vec<&str> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        env.set_env("COLUMNS", &case["columns"].to_string());
        env.set_env("LINES", &case["lines"].to_string());
        let out = env.run("condor_watch_q", &args);
        let got = (
            untimed(&out.stdout.replace(&dir, "DIR")),
            untimed(&out.stderr.replace(&dir, "DIR")),
            out.status,
        );
        let want = (
            case["stdout"].as_str().unwrap().to_owned(),
            case["stderr"].as_str().unwrap().to_owned(),
            case["status"].as_i64().map(|s| s as i32),
        );
        if got != want {
            failures.push(format!(
                "case {name} {args:?}\n--- want ---\n{}\n{}\n{:?}\n--- got ---\n{}\n{}\n{:?}",
                want.0, want.1, want.2, got.0, got.1, got.2
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Jobs that wait for the file `go` in the working directory, logging to `jobs.log`.
fn waiting_jobs(env: &TestEnvironment, n: usize, batch: &str) -> String {
    let go = env.work_dir().join("go");
    script(
        env,
        "job.sh",
        &format!(
            "#!/bin/sh\nwhile [ ! -e {} ]; do sleep 0.05; done\n",
            go.display()
        ),
    );
    submit(
        env,
        &format!(
            "executable = job.sh\nlog = jobs.log\nbatch_name = {batch}\n\
             should_transfer_files = NO\nqueue {n}\n"
        ),
    )
}

#[test]
fn watches_the_users_jobs_until_they_are_done() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    // Two jobs: the test machines have two cores, so two slots.
    let cluster = waiting_jobs(&env, 2, "sleepers");
    wait_for("the jobs to run", || count(&env, "JobStatus == 2") == 2);
    let mut watch = Following::start(
        &env,
        "condor_watch_q",
        &["-exit", "all,done", "-exit", "any,held,1", "-no-updated-at"],
    );
    wait_for("a frame with the running jobs", || {
        watch.seen().contains("Total: 2 jobs; 2 running")
    });
    let frame = watch.seen();
    let first = frame.split("\n...\n").next().unwrap();
    assert_eq!(
        first,
        format!(
            "BATCH      IDLE  RUN  DONE  TOTAL  JOB_IDS\n\
             sleepers     -    2     -      2   {cluster}.0, {cluster}.1 \
             [==================================]\n\n\
             [=============================================================================]\n\n\
             Total: 2 jobs; 2 running"
        )
    );
    std::fs::write(env.work_dir().join("go"), "").unwrap();
    wait_for("condor_watch_q to end", || {
        watch.child.try_wait().unwrap().is_some()
    });
    assert_eq!(watch.child.wait().unwrap().code(), Some(0));
    let seen = untimed(&watch.seen());
    assert!(
        seen.ends_with(
            "sleepers     -    -     2      2          [####################################]\n\n\
             [#############################################################################]\n\n\
             Total: 2 jobs; 2 completed\n...\n\
             Exiting with code 0 because of condition \"all done\" at TIME\n"
        ),
        "{seen}"
    );
}

#[test]
fn clusters_and_batches_choose_the_logs_and_a_held_job_ends_the_watch() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    let held = waiting_jobs(&env, 2, "first");
    wait_for("the jobs to run", || count(&env, "JobStatus == 2") == 2);
    let out = env.run("condor_hold", [format!("{held}.1").as_str()]);
    assert_eq!(out.status, Some(0), "{out}");
    waiting_jobs(&env, 1, "second");
    let args = [
        "-no-updated-at",
        "-no-row-progress",
        "-no-progress",
        "-exit",
        "any,held,3",
    ];
    let clusters = ["-clusters", held.as_str()];
    wait_for("the hold in the log", || {
        std::fs::read_to_string(env.work_dir().join("jobs.log"))
            .unwrap()
            .contains("\n012 (")
    });
    let out = env.run("condor_watch_q", [&clusters[..], &args[..]].concat());
    assert_eq!(
        untimed(&out.stdout),
        format!(
            "BATCH   HELD  IDLE  RUN  DONE  TOTAL  JOB_IDS\n\
             first     1     -    1     -      2   {held}.0, {held}.1 \n\n\
             Total: 2 jobs; 1 running, 1 held\n...\n\
             Exiting with code 3 because of condition \"any held\" at TIME\n"
        ),
        "{out}"
    );
    // Both clusters log to the same file: -batches keeps the batch's clusters only.
    let out = env.run(
        "condor_watch_q",
        [
            "-batches",
            "second",
            "-no-table",
            "-no-progress",
            "-no-updated-at",
            "-exit",
            "all,active",
        ],
    );
    // Idle or running by now, as the freed slot takes it.
    let stdout = untimed(&out.stdout);
    assert!(stdout.starts_with("Total: 1 jobs; 1 "), "{out}");
    assert!(
        stdout
            .ends_with("\n...\nExiting with code 0 because of condition \"all active\" at TIME\n"),
        "{out}"
    );
    assert_eq!(out.status, Some(0));
    std::fs::write(env.work_dir().join("go"), "").unwrap();
}

#[test]
fn no_jobs_and_jobs_without_a_log() {
    let env = TestEnvironment::new();
    let out = env.run("condor_watch_q", ["-exit", "all,done"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nWARNING: No jobs found, exiting...\n[exit status: 0]"
    );
    let cluster = submit(&env, "executable = /bin/true\nqueue\n");
    let out = env.run("condor_watch_q", ["-exit", "all,done"]);
    assert_eq!(
        out.to_string(),
        format!(
            "------- stderr -------\nWARNING: Cluster {cluster} does not have a job event log file \
             (set log=<path> in the submit description)\nWARNING: No jobs found, exiting...\n\
             [exit status: 0]"
        )
    );
}

/// On a terminal (a pseudo-terminal from util-linux's `script`): colours, the temporary
/// `Processing new events...`, and each frame erased and drawn again in place.
#[test]
fn redraws_in_place_on_a_terminal() {
    let mut env = TestEnvironment::new();
    env.set_env("COLUMNS", "60");
    env.set_env("LINES", "30");
    let jobs = std::fs::read_to_string(Path::new(FIXTURES).join("other.log")).unwrap();
    // Cluster 21's job runs: the first frame shows it running.
    let log = env.write_file("jobs.log", &jobs[jobs.find("000 (021.").unwrap()..]);
    let tool = assert_cmd::cargo::cargo_bin("condor_watch_q");
    let mut cmd = env.command_for("script");
    cmd.args([
        "-qfec",
        &format!(
            "{} -files jobs.log -no-updated-at -exit all,done",
            tool.display()
        ),
        "/dev/null",
    ]);
    let mut watch = Following::spawn(cmd);
    wait_for("the first frame", || watch.seen().contains("1 running"));
    // Job 20.0's termination, as 21.0's.
    let from = jobs.find("005 (020.000.000)").unwrap();
    let end = from + jobs[from..].find("...\n").unwrap() + 4;
    // Appended, as a writer does: the log never looks shorter than what was read.
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    file.write_all(
        jobs[from..end]
            .replace("(020.000.000)", "(021.000.000)")
            .as_bytes(),
    )
    .unwrap();
    drop(file);
    wait_for("condor_watch_q to end", || {
        watch.child.try_wait().unwrap().is_some()
    });
    assert_eq!(watch.child.wait().unwrap().code(), Some(0));
    let seen = untimed(&watch.seen()).replace("\r\n", "\n");
    // Colours of a bar's sections, empty ones included, as HTCondor's `colorize` writes them.
    let bar = |done: usize, run: usize| {
        format!(
            "[\x1b[32m{}\x1b[0m\x1b[36m{}\x1b[0m\x1b[93m\x1b[0m\x1b[31m\x1b[0m\x1b[31m\x1b[0m\
             \x1b[31m\x1b[0m]",
            "#".repeat(done),
            "=".repeat(run)
        )
    };
    let header = "BATCH    IDLE  RUN  DONE  TOTAL  JOB_IDS\n";
    let processing = "Processing new events...\r                        \r";
    let first = format!(
        "{processing}{header}\x1b[36mID: 21     -    1     -      1   21.0   \x1b[0m{}\n\n{}\n\n\
         Total: 1 jobs; 1 running\n",
        bar(0, 18),
        bar(0, 58)
    );
    let blanks = [40, 60, 0, 60, 0, 24].map(|n| " ".repeat(n)).join("\n");
    let second = format!(
        "{processing}\x1b[6A\r{blanks}\n\x1b[6A\r{header}\
         \x1b[32mID: 21     -    -     1      1          \x1b[0m{}\n\n{}\n\n\
         Total: 1 jobs; 1 completed\n\
         Exiting with code 0 because of condition \"all done\" at TIME\n",
        bar(18, 0),
        bar(58, 0)
    );
    assert_eq!(seen, format!("{first}{second}"));
}

/// With no `-exit` condition the watch goes on (`Input ^C to exit`) until Ctrl-C, which ends
/// it with status 0 (`KeyboardInterrupt`).
#[test]
fn ctrl_c_ends_the_watch_with_status_0() {
    let env = TestEnvironment::new();
    let jobs = std::fs::read_to_string(Path::new(FIXTURES).join("jobs.log")).unwrap();
    env.write_file("jobs.log", &jobs);
    let mut watch = Following::start(
        &env,
        "condor_watch_q",
        &[
            "-files",
            "jobs.log",
            "-no-table",
            "-no-progress",
            "-no-updated-at",
        ],
    );
    wait_for("a frame", || watch.seen().contains("Input ^C to exit\n"));
    // Frames are appended every 2 s: the first one is whole.
    let seen = watch.seen();
    assert!(
        seen.starts_with(
            "Total: 11 jobs; 5 completed, 1 removed, 2 idle, 1 running, 1 held, 1 suspended\n\
             ...\nInput ^C to exit\n"
        ),
        "{seen}"
    );
    let pid = nix::unistd::Pid::from_raw(watch.child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    wait_for("condor_watch_q to end", || {
        watch.child.try_wait().unwrap().is_some()
    });
    assert_eq!(watch.child.wait().unwrap().code(), Some(0));
}
