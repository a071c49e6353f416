//! No input can brick the pool: what the store accepts it can read back, and every input has
//! a bound with a clear error (issue "Robustness").

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{CommandOutput, TestEnvironment};

/// How long a tool may take to refuse an endless input before the test calls it hung.
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs `tool` and fails the test (killing the tool) if it has not ended by the deadline.
fn run_bounded(env: &TestEnvironment, tool: &str, args: &[&str]) -> CommandOutput {
    let mut child = env
        .command(tool)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{tool} {args:?} did not end within {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    CommandOutput {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code(),
    }
}

fn parens(n: usize, inner: &str) -> String {
    format!("{}{inner}{}", "(".repeat(n), ")".repeat(n))
}

fn queued(env: &TestEnvironment) -> CommandOutput {
    env.run("condor_q", ["-allusers", "-af", "ClusterId", "ProcId"])
}

#[test]
fn a_requirements_too_deep_to_store_is_refused_and_the_queue_stays_readable() {
    let env = TestEnvironment::new();
    // 199 levels parse on their own, but the submit wraps them in its default clauses:
    // deeper than the store reads back.
    env.write_file(
        "deep.sub",
        &format!(
            "executable = /bin/true\nrequirements = {}\nqueue\n",
            parens(199, "true")
        ),
    );
    let out = env.run("condor_submit", ["deep.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr.contains(
            "ERROR: submit file deep.sub: the job's Requirements is nested too deeply to be \
             stored (expression nested more than 200 levels deep); nothing was queued"
        ),
        "{out}"
    );
    assert_eq!(queued(&env).to_string(), "[exit status: 0]");

    // What the store can read back is taken, and read back by every tool.
    env.write_file(
        "ok.sub",
        &format!(
            "executable = /bin/true\nrequirements = {}\nqueue\n",
            parens(120, "true")
        ),
    );
    let out = env.run("condor_submit", ["ok.sub"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(queued(&env).to_string(), "1 0\n[exit status: 0]");

    // condor_qedit may not store what could not be read back either.
    let out = env.run("condor_qedit", ["1.0", "Foo", &parens(250, "1")]);
    assert_eq!(out.status, Some(1), "{out}");
    let out = env.run("condor_qedit", ["1.0", "Foo", &parens(190, "1")]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        env.run("condor_q", ["1.0", "-af", "Foo"]).to_string(),
        "1\n[exit status: 0]"
    );
    let out = env.run("condor_rm", ["-all"]);
    assert_eq!(out.status, Some(0), "{out}");
}

#[test]
fn endless_includes_are_refused() {
    let env = TestEnvironment::new();
    env.write_file(
        "zero.sub",
        "executable = /bin/true\ninclude : /dev/zero\nqueue\n",
    );
    let out = run_bounded(&env, "condor_submit", &["zero.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr
            .contains("can't read file /dev/zero: it is larger than 64 MiB, the most that is read"),
        "{out}"
    );
    env.write_file(
        "yes.sub",
        "executable = /bin/true\ninclude command : yes\nqueue\n",
    );
    let out = run_bounded(&env, "condor_submit", &["yes.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr
            .contains("the output of yes was not read: it is larger than 64 MiB"),
        "{out}"
    );
    env.write_file(
        "from.sub",
        "executable = /bin/true\nqueue x from /dev/zero\n",
    );
    let out = run_bounded(&env, "condor_submit", &["from.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(queued(&env).to_string(), "[exit status: 0]");

    // The same in a configuration file.
    std::fs::write(env.config_file(), "include : /dev/zero\n").unwrap();
    let out = run_bounded(&env, "condor_config_val", &["LOCAL_DIR"]);
    assert_eq!(
        env.normalize(&out.to_string()),
        "------- stderr -------\ncondor_config_val: $TEST_ENV/condor_config, line 1: can't \
         read file /dev/zero: it is larger than 64 MiB, the most that is read\n[exit status: 1]"
    );
}

#[test]
fn a_huge_queue_count_stops_at_the_schedds_limits() {
    let mut env = TestEnvironment::new();
    env.write_file("huge.sub", "executable = /bin/true\nqueue 1e9\n");
    let out = run_bounded(&env, "condor_submit", &["huge.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr.ends_with(
            "\nERROR: Failed to create proc\nNumber of submitted jobs would exceed \
             MAX_JOBS_PER_SUBMISSION\n"
        ),
        "{out}"
    );
    assert_eq!(queued(&env).to_string(), "[exit status: 0]");

    env.set_env("_CONDOR_MAX_JOBS_PER_OWNER", "15");
    env.write_file("ten.sub", "executable = /bin/true\nqueue 10\n");
    assert_eq!(env.run("condor_submit", ["ten.sub"]).status, Some(0));
    let out = env.run("condor_submit", ["ten.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr
            .ends_with("Number of submitted jobs would exceed MAX_JOBS_PER_OWNER\n"),
        "{out}"
    );
    // All or nothing: the second submit left no proc.
    assert_eq!(queued(&env).stdout.lines().count(), 10);
    env.set_env("_CONDOR_MAX_JOBS_SUBMITTED", "12");
    env.set_env("_CONDOR_MAX_JOBS_PER_OWNER", "100");
    env.write_file("three.sub", "executable = /bin/true\nqueue 3\n");
    let out = env.run("condor_submit", ["three.sub"]);
    assert!(
        out.stderr
            .ends_with("Number of submitted jobs would exceed MAX_JOBS_SUBMITTED\n"),
        "{out}"
    );
}

/// Damages stored ads as a broken disk or a foreign writer would: cluster 1's ad and job
/// 2.1's own ad no longer parse.
fn damage(env: &TestEnvironment) {
    let db = env.local_dir().join("spool").join("job_queue.db");
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(
        "UPDATE clusters SET ad = '[ x = (' WHERE cluster_id = 1;
         UPDATE procs SET ad = '[ y = (' WHERE cluster_id = 2 AND proc_id = 1;",
    )
    .unwrap();
}

/// Alice's two clusters of three jobs, damaged by [`damage`].
fn damaged_pool() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    env.set_env("CONDORLITE_USER", "alice");
    env.write_file("three.sub", "executable = /bin/true\nqueue 3\n");
    for _ in 0..2 {
        assert_eq!(env.run("condor_submit", ["three.sub"]).status, Some(0));
    }
    damage(&env);
    env
}

#[test]
fn a_damaged_job_is_reported_and_skipped_and_condor_rm_removes_it() {
    let env = damaged_pool();

    // condor_q lists the rest and says which jobs it skipped, and why.
    let out = env.run("condor_q", ["-af", "ClusterId", "ProcId"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(out.stdout, "2 0\n2 2\n");
    assert!(
        out.stderr.contains(
            "condor_q: cluster 1: the stored ad is damaged: expected an expression, found end \
             of input at line 1, column 8; its jobs are skipped (condor_rm 1 removes them)\n"
        ),
        "{out}"
    );
    assert!(
        out.stderr.contains(
            "condor_q: job 2.1: the stored ad is damaged: expected an expression, found end \
             of input at line 1, column 8; skipped (condor_rm 2.1 removes it)\n"
        ),
        "{out}"
    );
    let out = env.run("condor_q", Vec::<&str>::new());
    assert_eq!(out.status, Some(0), "{out}");
    assert!(
        out.stdout
            .contains("Total for query: 2 jobs; 0 completed, 0 removed, 2 idle"),
        "{out}"
    );

    // A constraint on what a damaged ad no longer tells passes it by.
    let out = env.run("condor_rm", ["-constraint", "Foo == 1"]);
    assert_eq!(out.status, Some(1), "{out}");
    // By id, by cluster: removed without being read; the history says why.
    let out = env.run("condor_rm", ["2.1"]);
    assert_eq!(
        out.to_string(),
        "Job 2.1 marked for removal\n[exit status: 0]"
    );
    let out = env.run("condor_rm", ["1"]);
    assert_eq!(
        out.to_string(),
        "All jobs in cluster 1 have been marked for removal\n[exit status: 0]"
    );
    let out = env.run("condor_q", ["-af", "ClusterId", "ProcId"]);
    assert_eq!(out.to_string(), "2 0\n2 2\n[exit status: 0]");
    let out = env.run(
        "condor_history",
        ["-af", "ClusterId", "ProcId", "JobStatus", "Owner"],
    );
    assert_eq!(
        out.to_string(),
        "1 2 3 alice\n1 1 3 alice\n1 0 3 alice\n2 1 3 alice\n[exit status: 0]"
    );
    let out = env.run("condor_history", ["2.1", "-af", "RemoveReason"]);
    assert!(
        out.stdout.starts_with(
            "via condor_rm (by user alice) (its stored ad was damaged: job 2.1: the stored ad \
             is damaged:"
        ),
        "{out}"
    );
}

#[test]
fn another_users_damaged_job_is_not_theirs_to_remove() {
    let mut env = damaged_pool();
    env.set_env("CONDORLITE_USER", "bob");
    let out = env.run("condor_rm", ["2.1"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(out.stderr.contains("Permission denied"), "{out}");
    env.set_env("CONDORLITE_USER", "alice");
    assert_eq!(
        env.run("condor_q", ["2.1", "-af", "ProcId"]).stdout,
        "",
        "still in the queue, skipped"
    );
    assert_eq!(env.run("condor_rm", ["2.1"]).status, Some(0));
}

#[test]
fn a_truncated_queue_is_refused_not_taken_for_an_empty_one() {
    let env = TestEnvironment::new();
    env.write_file("one.sub", "executable = /bin/true\nqueue\n");
    assert_eq!(env.run("condor_submit", ["one.sub"]).status, Some(0));
    let spool = env.local_dir().join("spool");
    std::fs::File::create(spool.join("job_queue.db")).unwrap();
    for log in ["job_queue.db-wal", "job_queue.db-shm"] {
        let _ = std::fs::remove_file(spool.join(log));
    }
    let expected = "the job queue $TEST_ENV/local/spool/job_queue.db is missing or empty, but \
                    this pool had one ($TEST_ENV/local/spool/job_queue.created records it)";
    for (tool, args) in [("condor_q", vec![]), ("condor_submit", vec!["one.sub"])] {
        let out = env.run(tool, &args);
        assert_eq!(out.status, Some(1), "{tool}: {out}");
        assert!(
            env.normalize(&out.stderr).contains(expected),
            "{tool}: {out}"
        );
    }
    assert_eq!(
        std::fs::metadata(spool.join("job_queue.db")).unwrap().len(),
        0,
        "nothing was written"
    );
    let out = env.run("condor_master", ["-f"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(env.normalize(&out.stderr).contains(expected), "{out}");
}

/// A pool of 400 jobs whose queue file has garbage written over its second half, as a broken
/// disk would leave it.
fn pool_with_a_garbage_page() -> TestEnvironment {
    let env = TestEnvironment::new();
    let pad = "x".repeat(200);
    env.write_file(
        "many.sub",
        &format!("executable = /bin/true\n+Pad = \"{pad}\"\narguments = $(Process)\nqueue 400\n"),
    );
    assert_eq!(env.run("condor_submit", ["many.sub"]).status, Some(0));
    let db = env.local_dir().join("spool").join("job_queue.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    drop(conn);
    let mut bytes = std::fs::read(&db).unwrap();
    assert!(bytes.len() > 16 * 4096, "{} bytes", bytes.len());
    let half = bytes.len() / 2;
    for (i, b) in bytes[half..].iter_mut().enumerate() {
        *b = (i * 131 % 251) as u8;
    }
    std::fs::write(&db, bytes).unwrap();
    env
}

#[test]
fn a_damaged_queue_file_stops_the_master_and_every_writer() {
    let env = pool_with_a_garbage_page();
    let spool = env.local_dir().join("spool");
    let db = spool.join("job_queue.db");
    let before = std::fs::read(&db).unwrap();

    // The master checks the file when it starts, and refuses it.
    let out = run_bounded(&env, "condor_master", &["-f"]);
    assert_eq!(out.status, Some(1), "{out}");
    let expected = "the job queue $TEST_ENV/local/spool/job_queue.db is damaged (";
    assert!(env.normalize(&out.stderr).contains(expected), "{out}");
    assert!(
        out.stderr
            .contains("Stop condor_master, then restore the file from a backup"),
        "{out}"
    );
    assert!(spool.join("job_queue.damaged").exists());

    // From then on, no tool writes to it, and each says why.
    for (tool, args) in [
        ("condor_submit", vec!["many.sub"]),
        ("condor_rm", vec!["-all"]),
        ("condor_hold", vec!["1.5"]),
    ] {
        let out = env.run(tool, &args);
        assert_ne!(out.status, Some(0), "{tool}: {out}");
        assert!(
            env.normalize(&out.stderr).contains(expected),
            "{tool}: {out}"
        );
    }
    // Readers still show what they can, with a warning.
    let out = env.run("condor_q", ["-af", "ProcId"]);
    assert!(out.stderr.contains("Warning: the job queue"), "{out}");
    assert!(out.stderr.contains("is damaged"), "{out}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the file was not written"
    );

    // The way out the message gives: move the file aside, remove the damage file.
    for name in ["job_queue.db", "job_queue.db-wal", "job_queue.db-shm"] {
        let _ = std::fs::rename(spool.join(name), spool.join(format!("{name}.damaged")));
    }
    std::fs::remove_file(spool.join("job_queue.damaged")).unwrap();
    std::fs::remove_file(spool.join("job_queue.created")).unwrap();
    assert_eq!(env.run("condor_submit", ["many.sub"]).status, Some(0));
}
