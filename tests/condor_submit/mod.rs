//! `condor_submit` end to end: its output texts and exit statuses, and what it leaves in the
//! queue (read back with the queue library), in a fresh pool per test.
//!
//! The queued ads must be the submit library's ads for the same description (plus what the
//! schedd fills in), and for a handful of tests/fixtures/submit/valid cases the ads HTCondor's
//! own submit code made (expected.json). A failed submit queues nothing; concurrent submits
//! get distinct ids; a submit killed in the middle leaves all of its jobs or none.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use condorlite::classad::unparse::expr_to_old_string;
use condorlite::classad::ClassAd;
use condorlite::queue::{JobQuery, Queue};
use condorlite::submit::{SubmitContext, SubmitFile};
use serde::Deserialize;

use crate::common::{TestEnvironment, NO_MASTER_NOTE};

const JOB: &str = "executable = prog.sh\narguments = $(Process)\nqueue 3\n";

fn env() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    env.set_env("CONDORLITE_USER", "alice");
    env.set_env("CONDORLITE_NOW", "1700000000");
    let prog = env.write_file("prog.sh", "#!/bin/sh\necho hello\n");
    let _ = prog;
    env
}

fn spool(env: &TestEnvironment) -> PathBuf {
    env.local_dir().join("spool")
}

/// Every job in the queue: id and full ad (cluster attributes merged in).
fn queued(env: &TestEnvironment) -> Vec<((i32, i32), ClassAd)> {
    if !spool(env).join("job_queue.db").exists() {
        return Vec::new();
    }
    let queue = Queue::open(spool(env)).unwrap();
    let jobs = queue.jobs(&JobQuery::all()).unwrap();
    jobs.map(|job| {
        let job = job.unwrap();
        let id = job.id();
        ((id.cluster.0, id.proc), flat(job.ad().unwrap()))
    })
    .collect()
}

fn count(env: &TestEnvironment) -> usize {
    if !spool(env).join("job_queue.db").exists() {
        return 0;
    }
    let queue = Queue::open(spool(env)).unwrap();
    queue.job_ids(&JobQuery::all()).unwrap().len()
}

fn flat(ad: &ClassAd) -> ClassAd {
    let mut out = ClassAd::new();
    for (name, expr) in ad.iter() {
        out.insert(name, expr.clone());
    }
    out
}

fn old(ad: &ClassAd, name: &str) -> Option<String> {
    ad.lookup(name).map(expr_to_old_string)
}

#[test]
fn submits_and_prints_as_htcondor() {
    let env = env();
    env.write_file("job.sub", JOB);
    let out = env.run("condor_submit", ["job.sub"]);
    assert_eq!(
        out.to_string(),
        "Submitting job(s)...\n3 job(s) submitted to cluster 1.\n[exit status: 0]"
    );
    let jobs = queued(&env);
    let ids: Vec<(i32, i32)> = jobs.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [(1, 0), (1, 1), (1, 2)]);
    let ad = &jobs[2].1;
    assert_eq!(old(ad, "Owner").as_deref(), Some("\"alice\""));
    let user = old(ad, "User").unwrap();
    assert!(user.starts_with("\"alice@"), "{user}");
    assert_eq!(old(ad, "QDate").as_deref(), Some("1700000000"));
    assert_eq!(
        old(ad, "EnteredCurrentStatus").as_deref(),
        Some("1700000000")
    );
    assert_eq!(old(ad, "JobStatus").as_deref(), Some("1"));
    assert_eq!(old(ad, "Args").as_deref(), Some("\"2\""));
    assert_eq!(old(ad, "TotalSubmitProcs").as_deref(), Some("3"));

    // A second submit is a new cluster.
    let out = env.run("condor_submit", ["job.sub", "-queue", "2"]);
    assert_eq!(out.status, Some(1), "{out}");
    env.write_file("two.sub", "executable = prog.sh\n");
    let out = env.run("condor_submit", ["two.sub", "-queue", "2"]);
    assert_eq!(
        out.to_string(),
        "Submitting job(s)..\n2 job(s) submitted to cluster 2.\n[exit status: 0]"
    );
}

/// With no master running, the jobs are queued as always and condor_submit says, once, on
/// stderr, that they wait for one and how to start it; stdout is what HTCondor prints.
#[test]
fn without_a_master_submit_says_the_jobs_wait_for_one() {
    let mut env = env();
    env.warn_no_master();
    env.write_file(
        "job.sub",
        "executable = prog.sh\nqueue 2\nexecutable = /bin/sh\nqueue 1\n",
    );
    let out = env.run("condor_submit", ["job.sub"]);
    assert_eq!(
        out.stdout,
        "Submitting job(s)...\n2 job(s) submitted to cluster 1.\n\
         1 job(s) submitted to cluster 2.\n"
    );
    assert_eq!(out.status, Some(0));
    // Once for the two clusters, after the deprecation warning of the two queue statements.
    let stderr = env.normalize(&out.stderr);
    assert!(
        stderr.starts_with("\nWarning: Use of multiple queue"),
        "{out}"
    );
    assert!(stderr.ends_with(NO_MASTER_NOTE), "{out}");
    assert_eq!(stderr.matches("condor_master").count(), 2, "{out}");
    assert_eq!(count(&env), 3);

    // -terse: stdout stays the ids alone; the note is on stderr, after the warnings.
    env.write_file("one.sub", "executable = prog.sh\nfoo = 1\nqueue\n");
    let out = env.run("condor_submit", ["-terse", "one.sub"]);
    assert_eq!(out.stdout, "3.0 - 3.0\n", "{out}");
    assert_eq!(
        env.normalize(&out.stderr),
        format!(
            "WARNING: the line 'foo = 1' was unused by condor_submit. Is it a typo?\n\
             {NO_MASTER_NOTE}"
        )
    );
    assert_eq!(out.status, Some(0));

    // Nothing queued, nothing said: -dry-run, -dump, a failed submit, empty queue statements.
    for args in [
        &["-dry-run", "-", "one.sub"][..],
        &["-dump", "ads.txt", "one.sub"],
        &["missing.sub"],
        &["one.sub", "-queue", "0"],
    ] {
        let out = env.run("condor_submit", args);
        assert!(!out.stderr.contains("condor_master"), "{args:?}: {out}");
    }
    assert_eq!(count(&env), 4);
}

/// `CONDORLITE_WARN_NO_MASTER = false` (condorlite's knob) keeps condor_submit quiet.
#[test]
fn the_no_master_note_can_be_turned_off() {
    let mut env = env();
    env.warn_no_master();
    std::fs::write(env.config_file(), "CONDORLITE_WARN_NO_MASTER = false\n").unwrap();
    env.write_file("job.sub", JOB);
    let out = env.run("condor_submit", ["job.sub"]);
    assert_eq!(
        out.to_string(),
        "Submitting job(s)...\n3 job(s) submitted to cluster 1.\n[exit status: 0]"
    );
}

/// With a master running, the jobs start: neither condor_submit nor condor_q says anything
/// of it.
#[test]
fn with_a_master_submit_says_nothing_of_it() {
    let mut env = env();
    env.warn_no_master();
    env.write_file("job.sub", "executable = /bin/true\nqueue\n");
    let master = crate::pool::Master::start(&env);
    let out = env.run("condor_submit", ["job.sub"]);
    assert_eq!(
        out.to_string(),
        "Submitting job(s).\n1 job(s) submitted to cluster 1.\n[exit status: 0]"
    );
    // Nor when it is only asked whether one runs (no reschedule sent).
    let out = env
        .command("condor_submit")
        .env("_CONDOR_SUBMIT_SEND_RESCHEDULE", "false")
        .arg("job.sub")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    // condor_q's tables end with their totals, as HTCondor's.
    let out = env.run("condor_q", ["-totals"]);
    assert!(out.stdout.ends_with(" suspended\n\n"), "{out}");
    drop(master);
}

#[test]
fn queued_ads_are_the_submit_librarys() {
    let env = env();
    let text = "executable = prog.sh\narguments = $(Item) $(Step)\nrequest_memory = 2G\n\
                +Project = \"x\"\nqueue 2 in (a, b)\nexecutable = /bin/sh\nqueue\n";
    env.write_file("job.sub", text);
    let out = env.run("condor_submit", ["job.sub"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(out
        .stdout
        .ends_with("4 job(s) submitted to cluster 1.\n1 job(s) submitted to cluster 2.\n"));

    let config = condorlite::config::Config::load_with(condorlite::config::LoadOptions {
        env: condorlite::config::Environment::from_pairs(vec![
            (
                "CONDOR_CONFIG".to_owned(),
                env.config_file().to_string_lossy().into_owned(),
            ),
            (
                "_CONDOR_LOCAL_DIR".to_owned(),
                env.local_dir().to_string_lossy().into_owned(),
            ),
        ]),
        subsystem: "SUBMIT".into(),
        ..condorlite::config::LoadOptions::from_process()
    })
    .unwrap();
    let mut ctx = SubmitContext::from_process(&config, "alice").unwrap();
    ctx.cwd = env.work_dir();
    ctx.qdate = 1700000000;
    let file = SubmitFile::parse(text, "job.sub", &ctx).unwrap();
    let expected: Vec<ClassAd> = file.jobs(1).map(|j| j.unwrap().flat_ad()).collect();
    let jobs = queued(&env);
    assert_eq!(jobs.len(), expected.len());
    for ((id, got), want) in jobs.iter().zip(&expected) {
        for (name, expr) in want.iter() {
            if ["Owner", "Environment"].contains(&name) {
                continue;
            }
            assert_eq!(
                old(got, name),
                Some(expr_to_old_string(expr)),
                "job {id:?} attribute {name}"
            );
        }
        assert_eq!(old(got, "Owner").as_deref(), Some("\"alice\""));
    }
}

/// The schedd names every job as it creates it (qmgmt.cpp `NewProcInternal`):
/// `GlobalJobId = "<schedd name>#<cluster>.<proc>#<time>"`, the time left out when
/// `GLOBAL_JOB_ID_WITH_TIME` is false; in the proc ad, so each job has its own.
#[test]
fn jobs_get_a_global_job_id() {
    let mut env = env();
    env.set_env("_CONDOR_SCHEDD_NAME", "submit@example.com");
    env.write_file(
        "job.sub",
        "executable = prog.sh\nqueue 2\nexecutable = /bin/sh\nqueue\n",
    );
    let out = env.run("condor_submit", ["job.sub"]);
    assert_eq!(out.status, Some(0), "{out}");
    let ids: Vec<_> = queued(&env)
        .into_iter()
        .map(|(id, ad)| (id, old(&ad, "GlobalJobId")))
        .collect();
    let want = |c: i32, p: i32| Some(format!("\"submit@example.com#{c}.{p}#1700000000\""));
    assert_eq!(
        ids,
        [
            ((1, 0), want(1, 0)),
            ((1, 1), want(1, 1)),
            ((2, 0), want(2, 0))
        ]
    );
    // condor_q shows it under the name it gives the schedd.
    let q = env.run("condor_q", ["-af", "GlobalJobId"]);
    assert_eq!(
        q.stdout,
        "submit@example.com#1.0#1700000000\nsubmit@example.com#1.1#1700000000\n\
         submit@example.com#2.0#1700000000\n",
        "{q}"
    );
    let q = env.run("condor_q", [] as [&str; 0]);
    assert!(q.stdout.contains("-- Schedd: submit@example.com :"), "{q}");

    // The history keeps it.
    let mut queue = Queue::open(spool(&env)).unwrap();
    queue
        .transaction(|tx| {
            let job = condorlite::queue::JobId::new(1, 1);
            tx.set_status(job, condorlite::queue::JobStatus::Removed)?;
            tx.move_to_history(job).map(|_| ())
        })
        .unwrap();
    drop(queue);
    let h = env.run("condor_history", ["-af", "GlobalJobId"]);
    assert_eq!(h.stdout, "submit@example.com#1.1#1700000000\n", "{h}");

    env.set_env("_CONDOR_GLOBAL_JOB_ID_WITH_TIME", "false");
    let out = env.run("condor_submit", ["job.sub"]);
    assert_eq!(out.status, Some(0), "{out}");
    let jobs = queued(&env);
    assert_eq!(
        old(&jobs[2].1, "GlobalJobId").as_deref(),
        Some("\"submit@example.com#3.0\"")
    );
}

#[test]
fn terse_prints_ranges() {
    let env = env();
    env.write_file(
        "job.sub",
        "executable = prog.sh\nqueue 2\nexecutable = /bin/sh\nqueue 3\n",
    );
    let out = env.run("condor_submit", ["-terse", "job.sub"]);
    assert_eq!(out.stdout, "1.0 - 1.1\n2.0 - 2.2\n");
    assert_eq!(out.status, Some(0));
    assert!(out.stderr.contains("multiple queue statements"), "{out}");
}

#[test]
fn stdin_dash_is_verbose() {
    let env = env();
    let out = env.run_with_input("condor_submit", &["-"], b"executable = prog.sh\nqueue 2\n");
    let stdout = out.stdout;
    assert_eq!(out.status, Some(0));
    assert!(stdout.starts_with("\n** Proc 1.0:\n"), "{stdout}");
    assert!(stdout.contains("\n** Proc 1.1:\n"), "{stdout}");
    assert!(stdout.contains("\nCmd = \""), "{stdout}");
    assert!(!stdout.contains("submitted to cluster"), "{stdout}");
    assert_eq!(count(&env), 2);
}

#[test]
fn command_line_without_a_file() {
    let env = env();
    let out = env.run(
        "condor_submit",
        [
            "executable=prog.sh",
            "-batch-name",
            "nightly",
            "-queue",
            "in",
            "x",
            "y",
        ],
    );
    // Nothing names the items: condor_submit says so.
    assert_eq!(
        out.to_string(),
        "Submitting job(s)..\n2 job(s) submitted to cluster 1.\n------- stderr -------\n\
         WARNING: the Queue variable 'Item' was unused by condor_submit. Is it a typo?\n\
         [exit status: 0]"
    );
    let jobs = queued(&env);
    assert_eq!(
        old(&jobs[1].1, "JobBatchName").as_deref(),
        Some("\"nightly\"")
    );
}

#[test]
fn dry_run_queues_nothing() {
    let env = env();
    env.write_file("job.sub", JOB);
    let out = env.run("condor_submit", ["-dry-run", "ads.txt", "job.sub"]);
    assert_eq!(
        out.to_string(),
        "Dry-Run job(s)...\n3 job(s) dry-run to cluster 1.\n[exit status: 0]"
    );
    assert_eq!(count(&env), 0);
    let ads = std::fs::read_to_string(env.work_dir().join("ads.txt")).unwrap();
    // A blank line per proc; proc 0 has the cluster ad, the others only what differs.
    let blocks: Vec<&str> = ads.split("\n\n").collect();
    assert!(ads.starts_with('\n'), "{ads}");
    assert_eq!(ads.matches("\nProcId=").count(), 3, "{ads}");
    assert!(blocks[0].contains("Cmd=\""), "{ads}");
    assert!(!blocks[2].contains("Cmd="), "{ads}");
    assert!(blocks[2].contains("Args=\"2\""), "{ads}");

    let out = env.run(
        "condor_submit",
        ["-dry-run:cluster=7", "-", "-terse", "job.sub"],
    );
    assert!(out.stdout.ends_with("7.0 - 7.2\n"), "{out}");
    assert!(out.stdout.contains("\nProcId=2\n"), "{out}");
    assert_eq!(count(&env), 0);
}

#[test]
fn a_bad_file_queues_nothing() {
    let env = env();
    env.write_file("good.sub", JOB);
    assert_eq!(env.run("condor_submit", ["good.sub"]).status, Some(0));

    env.write_file("bad.sub", "executable = prog.sh\nfoo bar\nqueue\n");
    let out = env.run("condor_submit", ["bad.sub"]);
    assert_eq!(
        out.to_string(),
        "Submitting job(s)------- stderr -------\n\nERROR: on Line 2 of bad.sub: \n\n\
         ERROR: Failed to parse command file (line 2).\n[exit status: 1]"
    );

    // A job that fails after others were made: none of the submit lands.
    env.write_file(
        "late.sub",
        "executable = prog.sh\nqueue 2\nrequest_memory = 7X\nqueue\n",
    );
    let out = env.run("condor_submit", ["late.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(out.stderr.starts_with("ERROR: "), "{out}");

    let out = env.run("condor_submit", ["-maxjobs", "2", "good.sub"]);
    assert_eq!(
        out.stderr,
        "\nERROR: Number of submitted jobs would exceed -maxjobs (2)\n"
    );
    assert_eq!(out.status, Some(1));

    let out = env.run("condor_submit", ["missing.sub"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\n\nERROR: Failed to open command file (missing.sub) \
         (No such file or directory)\n[exit status: 1]"
    );

    env.write_file("noexe.sub", "executable = nonesuch\nqueue\n");
    let out = env.run("condor_submit", ["noexe.sub"]);
    assert!(
        out.stderr
            .starts_with("\nERROR: Can't access executable file /"),
        "{out}"
    );

    env.write_file("crlf.sh", "#!/bin/sh\r\necho hi\r\n");
    env.write_file("crlf.sub", "executable = crlf.sh\nqueue\n");
    let out = env.run("condor_submit", ["crlf.sub"]);
    assert!(
        out.stderr
            .contains("is a script with CRLF (DOS/Windows) line endings."),
        "{out}"
    );
    assert_eq!(out.status, Some(1));

    let out = env.run(
        "condor_submit",
        ["-name", "elsewhere.example.org", "good.sub"],
    );
    assert_eq!(
        out.stderr,
        "\nERROR: Can't find address of schedd elsewhere.example.org\n"
    );

    assert_eq!(count(&env), 3, "only the first submit is queued");

    let out = env.run("condor_submit", ["-allow-crlf-script", "crlf.sub"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(out.stderr.contains("WARNING: Executable file"), "{out}");
}

#[test]
fn submit_events_and_wake_up() {
    let env = env();
    std::fs::create_dir_all(env.local_dir().join("run")).unwrap();
    // Stand in for the master: the submit wakes it through its socket.
    let master =
        std::os::unix::net::UnixListener::bind(env.local_dir().join("run/condor_master.sock"))
            .unwrap();
    env.write_file("job.sub", "executable = prog.sh\nlog = job.log\nqueue 2\n");
    let out = env.run("condor_submit", ["job.sub"]);
    assert_eq!(out.status, Some(0), "{out}");
    let log = std::fs::read_to_string(env.work_dir().join("job.log")).unwrap();
    assert_eq!(
        log.matches("Job submitted from host: <").count(),
        2,
        "{log}"
    );
    assert!(
        log.starts_with("000 (001.000.000) 2023-11-14 22:13:20 "),
        "{log}"
    );
    assert!(log.contains("000 (001.001.000) "), "{log}");
    let (mut woken, _) = master.accept().unwrap();
    let mut said = String::new();
    std::io::Read::read_to_string(&mut woken, &mut said).unwrap();
    assert_eq!(said, "RESCHEDULE\n");
}

// ---- the differential fixtures, through the real tool ----

#[derive(Deserialize)]
struct Expected {
    invocation: Invocation,
    identity_attributes: Vec<String>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Invocation {
    environment: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Case {
    file: String,
    #[serde(default)]
    ads: Option<Vec<BTreeMap<String, String>>>,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/submit")
        .canonicalize()
        .unwrap()
}

const FIXTURE_CASES: &[&str] = &[
    "valid/001-minimal.sub",
    "valid/003-arguments-new-syntax.sub",
    "valid/007-environment-new-syntax.sub",
    "valid/038-accounting-group-and-nice-user.sub",
    "valid/101-queue-several-statements.sub",
];

#[test]
fn fixture_ads_survive_the_queue() {
    let dir = fixtures();
    let expected: Expected =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let dir_text = dir.to_string_lossy().into_owned();
    for name in FIXTURE_CASES {
        let case = expected.cases.iter().find(|c| c.file == *name).unwrap();
        let ads = case.ads.as_ref().unwrap();
        let mut env = TestEnvironment::new();
        for (k, v) in &expected.invocation.environment {
            env.set_env(k, &v.replace("@DIR@", &dir_text));
        }
        // The pool is the test's own, whatever the fixtures' config says.
        let local = env.local_dir().to_string_lossy().into_owned();
        env.set_env("_CONDOR_LOCAL_DIR", &local);
        env.set_env("_CONDOR_SPOOL", &format!("{local}/spool"));
        env.set_env("CONDORLITE_USER", "fixtureowner");
        env.set_env("CONDORLITE_NOW", "1700000000");
        let out = env
            .command("condor_submit")
            .arg(format!("../{name}"))
            .current_dir(dir.join("work"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let jobs = queued(&env);
        assert_eq!(jobs.len(), ads.len(), "{name}");
        for ((id, got), want) in jobs.iter().zip(ads) {
            for (attr, value) in want {
                if attr == "Owner" || expected.identity_attributes.contains(attr) {
                    continue;
                }
                assert_eq!(
                    old(got, attr),
                    Some(value.replace("@DIR@", &dir_text)),
                    "{name} job {id:?} attribute {attr}"
                );
            }
            assert_eq!(old(got, "Owner").as_deref(), Some("\"fixtureowner\""));
            assert_eq!(
                old(got, "User").as_deref(),
                Some("\"fixtureowner@example.com\"")
            );
        }
    }
}

// ---- the concurrency bar ----

#[test]
fn parallel_submits_get_distinct_ids() {
    let env = env();
    env.write_file(
        "job.sub",
        "executable = prog.sh\narguments = $(Process)\nqueue 1000\n",
    );
    let children: Vec<_> = (0..8)
        .map(|_| {
            env.command("condor_submit")
                .args(["-terse", "job.sub"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut clusters = BTreeSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let line = String::from_utf8(out.stdout).unwrap();
        let cluster: i32 = line.split('.').next().unwrap().parse().unwrap();
        assert_eq!(line, format!("{cluster}.0 - {cluster}.999\n"));
        clusters.insert(cluster);
    }
    assert_eq!(clusters.len(), 8);
    let queue = Queue::open(spool(&env)).unwrap();
    let ids = queue.job_ids(&JobQuery::all()).unwrap();
    assert_eq!(ids.len(), 8000);
    let unique: BTreeSet<(i32, i32)> = ids.iter().map(|id| (id.cluster.0, id.proc)).collect();
    assert_eq!(unique.len(), 8000);
}

/// The store's write lock is held by someone else: a connection of our own fails to take
/// it at once. During a submit that is condor_submit's one transaction.
fn store_is_being_written(db: &Path) -> bool {
    let Ok(conn) = rusqlite::Connection::open(db) else {
        return false;
    };
    conn.busy_timeout(std::time::Duration::ZERO).unwrap();
    match conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK;") {
        Ok(()) => false,
        Err(rusqlite::Error::SqliteFailure(e, _)) => e.code == rusqlite::ErrorCode::DatabaseBusy,
        Err(e) => panic!("probing {}: {e}", db.display()),
    }
}

/// condor_submit killed inside its transaction (seen by the store's write lock being held,
/// not guessed by a delay) leaves nothing of the submit, and the store stays writable.
#[test]
fn a_killed_submit_leaves_all_or_nothing() {
    let mut env = env();
    // More than the schedd's default 20,000 procs a submit and 100,000 a user.
    env.set_env("_CONDOR_MAX_JOBS_PER_SUBMISSION", "1000000");
    env.set_env("_CONDOR_MAX_JOBS_PER_OWNER", "1000000");
    env.write_file(
        "big.sub",
        "executable = prog.sh\narguments = $(Process)\nqueue 200000\n",
    );
    // Make the store first, so that the kill lands in the submit rather than the setup.
    env.write_file("one.sub", "executable = prog.sh\nqueue\n");
    assert_eq!(env.run("condor_submit", ["one.sub"]).status, Some(0));
    let db = spool(&env).join("job_queue.db");
    let mut child = env
        .command("condor_submit")
        .arg("big.sub")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Until the lock is seen held, or condor_submit ended without our seeing it.
    let mut in_transaction = false;
    while child.try_wait().unwrap().is_none() {
        if store_is_being_written(&db) {
            in_transaction = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let _ = child.kill();
    let status = child.wait().unwrap();
    assert!(
        in_transaction,
        "condor_submit ended ({status:?}) before its transaction was seen"
    );
    let n = count(&env);
    assert_eq!(
        n, 1,
        "{n} jobs after a kill inside the transaction ({status:?}): a submit must land whole or not at all"
    );
    // The store is usable afterwards.
    assert_eq!(env.run("condor_submit", ["one.sub"]).status, Some(0));
    assert_eq!(count(&env), 2);
}

/// Definitions nothing used get condor_submit's warning after the jobs are queued
/// (`SubmitHash::warn_unused`, printed from its error stack, newest first): a typo'd command,
/// a macro no value names (even one that names another), a queue variable no value names
/// (one also defined as a line keeps that form, with the `<Queue_item>` condor_submit leaves
/// in it), a line after the last queue statement. `+`/`MY.` attributes and what a used
/// value names are used; the warnings follow the parse warnings; none without a job.
#[test]
fn unused_definitions_are_warned_about() {
    let mut env = env();
    env.write_file(
        "job.sub",
        "executable = prog.sh\n\
         arguments = $(Process) $(used_by_args)\n\
         used_by_args = yes\n\
         unused_base = 1\n\
         Unused_Ref = $(unused_base)\n\
         requets_memory = 10\n\
         +Custom = 1\n\
         MY.Other = 2\n\
         warning : a parse-time warning\n\
         queue name in (a, b)\n\
         after = 1\n",
    );
    let out = env.run("condor_submit", ["job.sub"]);
    assert_eq!(
        out.to_string(),
        "Submitting job(s)..\n2 job(s) submitted to cluster 1.\n\
         ------- stderr -------\n\
         WARNING: Warning \"job.sub\", Line 9: a parse-time warning\n\
         WARNING: the line 'after = 1' was unused by condor_submit. Is it a typo?\n\
         WARNING: the line 'Unused_Ref = $(unused_base)' was unused by condor_submit. Is it a typo?\n\
         WARNING: the line 'unused_base = 1' was unused by condor_submit. Is it a typo?\n\
         WARNING: the line 'requets_memory = 10' was unused by condor_submit. Is it a typo?\n\
         WARNING: the Queue variable 'name' was unused by condor_submit. Is it a typo?\n\
         [exit status: 0]"
    );
    // A variable also defined as a line; a command-line assignment.
    env.write_file(
        "var.sub",
        "executable = prog.sh\nitem = 5\nqueue 1 item in (x)\n",
    );
    let out = env.run("condor_submit", ["-terse", "var.sub", "cmdline_key=7"]);
    assert_eq!(
        out.stderr,
        "WARNING: the line 'item = <Queue_item>' was unused by condor_submit. Is it a typo?\n\
         WARNING: the line 'cmdline_key = 7' was unused by condor_submit. Is it a typo?\n"
    );
    // -unused turns them off, twice back on; so does the configuration.
    let quiet = env.run("condor_submit", ["-unused", "-terse", "job.sub"]);
    assert_eq!(
        quiet.stderr, "WARNING: Warning \"job.sub\", Line 9: a parse-time warning\n",
        "{quiet}"
    );
    let again = env.run("condor_submit", ["-u", "-unused", "-terse", "job.sub"]);
    assert_eq!(again.stderr.matches("was unused").count(), 5, "{again}");
    env.set_env("_CONDOR_WARN_ON_UNUSED_SUBMIT_FILE_MACROS", "false");
    let out = env.run("condor_submit", ["-terse", "job.sub"]);
    assert!(!out.stderr.contains("was unused"), "{out}");
    let out = env.run("condor_submit", ["-unused", "-terse", "job.sub"]);
    assert!(out.stderr.contains("was unused"), "{out}");
    env.set_env("_CONDOR_WARN_ON_UNUSED_SUBMIT_FILE_MACROS", "true");
    // No job, no warnings.
    env.write_file(
        "none.sub",
        "executable = prog.sh\nfoo = 1\nqueue matching files nomatch*\n",
    );
    let out = env.run("condor_submit", ["none.sub"]);
    assert!(!out.stderr.contains("was unused"), "{out}");
    // Every definition used: nothing to say.
    env.write_file("job2.sub", JOB);
    let out = env.run("condor_submit", ["job2.sub"]);
    assert_eq!(out.stderr, "", "{out}");
}

/// Nothing the reference's own fixtures define goes unused, except where condor_submit
/// 24.0 would say so too: `request_cpu`/`request_gpu` are only warned about as typos
/// (SetRequestCpus returns before reading them), `require_<name>` other than
/// `require_gpus` is not a 24.0 command, and three fixtures define macros they never use.
#[test]
fn fixture_descriptions_use_their_definitions() {
    let dir = fixtures();
    let expected_unused: BTreeMap<&str, Vec<&str>> = [
        ("026-request-custom-resources.sub", vec!["require_foo"]),
        (
            "027-request-typo-warnings.sub",
            vec!["request_gpu", "request_cpu"],
        ),
        ("073-macro-random-deterministic.sub", vec!["one"]),
        ("076-include-nested.sub", vec!["shared_macro"]),
        ("077-include-command.sub", vec!["shared_macro"]),
    ]
    .into_iter()
    .collect();
    let mut env = env();
    env.set_env("CONDOR_CONFIG", dir.join("condor_config").to_str().unwrap());
    let mut checked = 0;
    for entry in std::fs::read_dir(dir.join("valid")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let mut cmd = env.command("condor_submit");
        cmd.current_dir(dir.join("work"))
            .env("PATH", "/usr/bin:/bin")
            .args(["-terse", "-dry-run", "/dev/null"])
            .arg(format!("../valid/{name}"));
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let unused: Vec<String> = stderr
            .lines()
            .filter_map(|l| l.strip_prefix("WARNING: the line '"))
            .map(|l| l.split(" = ").next().unwrap().to_owned())
            .collect();
        let want: Vec<String> = expected_unused
            .get(name.as_str())
            .map(|v| v.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        assert_eq!(unused, want, "{name}: {stderr}");
        assert!(!stderr.contains("Queue variable"), "{name}: {stderr}");
        checked += 1;
    }
    assert!(checked > 100, "only {checked} fixtures");
}

/// `-dump FILE` writes the ads the simulated schedd receives (what `-dry-run FILE` writes)
/// and queues nothing; `-dump -` writes them to stdout and nothing else there.
#[test]
fn dump_writes_the_ads_instead_of_queueing() {
    let env = env();
    env.write_file("job.sub", JOB);
    let out = env.run("condor_submit", ["-dump", "ads.txt", "job.sub"]);
    assert_eq!(
        out.to_string(),
        "Storing job ClassAd(s)...\n3 job(s) submitted to cluster 1.\n[exit status: 0]"
    );
    assert_eq!(count(&env), 0);
    env.run("condor_submit", ["-dry-run", "dry.txt", "job.sub"]);
    let dumped = std::fs::read_to_string(env.work_dir().join("ads.txt")).unwrap();
    let dry = std::fs::read_to_string(env.work_dir().join("dry.txt")).unwrap();
    assert_eq!(dumped, dry);
    assert!(dumped.starts_with("\nMyType=\"Job\"\n"), "{dumped}");
    assert_eq!(dumped.matches("\nProcId=").count(), 3);

    let out = env.run("condor_submit", ["-dump", "-", "job.sub"]);
    assert_eq!(out.stdout, format!("{dumped}\n"), "{out}");
    let out = env.run("condor_submit", ["-terse", "-du", "t.txt", "job.sub"]);
    assert_eq!(out.to_string(), "1.0 - 1.2\n[exit status: 0]");
    // The executable is not checked: the ads are only written.
    env.write_file("noexe.sub", "executable = nonesuch\nqueue\n");
    let out = env.run("condor_submit", ["-dump", "n.txt", "noexe.sub"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(count(&env), 0);

    // Errors: with -dry-run (worded by which came second), without a submit file, an
    // output file that cannot be written.
    let out = env.run("condor_submit", ["-dump", "a", "-dry-run", "b", "job.sub"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\ncondor_submit: -dry-run <file> and -dump <file> cannot be \
         used together\n[exit status: 1]"
    );
    let out = env.run("condor_submit", ["-dry-run", "b", "-dump", "a", "job.sub"]);
    assert!(
        out.stderr
            .contains("-dump <file> and -dry-run <file> cannot"),
        "{out}"
    );
    let out = env.run("condor_submit", ["-dump", "out.txt"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\n\nERROR: No submit filename was provided, and 'out.txt'\n  \
         was given as the output filename for -dump or -dry-run. Was this intended?\n  \
         To to avoid confusing the output file with the submit file when using these\n  \
         commands, an explicit submit filename argument must be given. You can use -\n  \
         as the submit filename argument to read from stdin.\n[exit status: 1]"
    );
    let out = env.run("condor_submit", ["-dump", "/nonexistent/dir/x", "job.sub"]);
    assert_eq!(
        out.to_string(),
        "Storing job ClassAd(s)------- stderr -------\n\nERROR: Failed to open file to dump \
         ClassAds into (No such file or directory)\n[exit status: 1]"
    );
    assert_eq!(count(&env), 0);
}

/// `-spool`: the ads are HTCondor's for spooled input (held with SpoolingInput, as -dry-run
/// shows); queued, they are as the schedd leaves them once the input is in: released,
/// "Data files spooled", the hold kept as the last one, the stage-in times set.
#[test]
fn spool_queues_jobs_as_the_schedd_releases_them() {
    let env = env();
    std::fs::create_dir_all(env.work_dir().join("out")).unwrap();
    env.write_file(
        "job.sub",
        "executable = prog.sh\noutput = out/o.txt\nerror = e.txt\nqueue 2\n",
    );
    let out = env.run(
        "condor_submit",
        ["-spool", "-dry-run", "-", "-terse", "job.sub"],
    );
    for line in [
        "\nJobStatus=5\n",
        "\nHoldReasonCode=16\n",
        "\nHoldReason=\"Spooling input data files\"\n",
        "\nOwner=undefined\n",
        "\nOut=\"_condor_stdout\"\n",
        "\nTransferOutputRemaps=\"_condor_stdout=out/o.txt\"\n",
    ] {
        assert!(out.stdout.contains(line), "{line:?} in {out}");
    }
    let out = env.run("condor_submit", ["-s", "job.sub"]);
    assert_eq!(
        out.to_string(),
        "Submitting job(s)..\n2 job(s) submitted to cluster 1.\n[exit status: 0]"
    );
    let jobs = queued(&env);
    assert_eq!(jobs.len(), 2);
    for (_, ad) in &jobs {
        let get = |name| old(ad, name);
        assert_eq!(get("JobStatus").as_deref(), Some("1"));
        assert_eq!(get("HoldReasonCode"), None);
        assert_eq!(get("HoldReason"), None);
        assert_eq!(get("LastHoldReasonCode").as_deref(), Some("16"));
        assert_eq!(
            get("LastHoldReason").as_deref(),
            Some("\"Spooling input data files\"")
        );
        assert_eq!(
            get("ReleaseReason").as_deref(),
            Some("\"Data files spooled\"")
        );
        assert_eq!(get("StageInStart").as_deref(), Some("1700000000"));
        assert_eq!(get("StageInFinish").as_deref(), Some("1700000000"));
        assert_eq!(get("EnteredCurrentStatus").as_deref(), Some("1700000000"));
        assert_eq!(get("Owner").as_deref(), Some("\"alice\""));
        assert!(
            get("LeaveJobInQueue").is_some_and(|l| l.contains("864000")),
            "{ad:?}"
        );
    }
    // A job asked to be held cannot be spooled.
    env.write_file("hold.sub", "executable = prog.sh\nhold = true\nqueue\n");
    let out = env.run("condor_submit", ["-spool", "hold.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr
            .contains("Cannot set hold to 'true' when using -remote or -spool"),
        "{out}"
    );
    assert_eq!(count(&env), 2);
}
