//! condor_q: selection, views, formats and summaries, each output snapshotted whole (stdout,
//! stderr and exit status), with the user, clock and schedd name pinned.

use crate::common::jobs::{pool, submit, NOW};
use crate::common::{TestEnvironment, NO_MASTER_NOTE};

#[track_caller]
fn check(env: &TestEnvironment, args: &[&str], expected: &str) {
    let out = env.run("condor_q", args);
    assert_eq!(out.to_string(), expected, "condor_q {args:?}");
}

const TITLE: &str = "\n\n-- Schedd: submit@example.com : <127.0.0.1:9618?... @ 01/31/24 12:00:00\n";

/// alice: cluster 1 (three idle jobs, one of them gone), cluster 2 (bob's batch "sweep",
/// one idle, one running), cluster 3 (alice's "sweep", one held job).
fn three_clusters() -> TestEnvironment {
    let env = pool();
    submit(&env, "alice", "", &["", "", "", ""]);
    let mut q = crate::common::jobs::queue(&env);
    q.transaction(|tx| {
        let job = condorlite::queue::JobId::new(1, 3);
        tx.set_status(job, condorlite::queue::JobStatus::Removed)?;
        tx.move_to_history(job).map(|_| ())
    })
    .unwrap();
    submit(
        &env,
        "bob",
        r#"JobBatchName = "sweep""#,
        &["", &format!("JobStatus = 2; ShadowBday = {}", NOW - 100)],
    );
    submit(
        &env,
        "alice",
        r#"JobBatchName = "sweep""#,
        &[r#"JobStatus = 5; HoldReason = "disk full"; HoldReasonCode = 21; HoldReasonSubCode = 2"#],
    );
    env
}

#[test]
fn an_empty_queue_still_shows_title_header_and_totals() {
    let env = pool();
    check(
        &env,
        &[],
        &format!(
            "{TITLE}OWNER BATCH_NAME      SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n\
             \n\
             Total for query: 0 jobs; 0 completed, 0 removed, 0 idle, 0 running, 0 held, 0 suspended \n\
             Total for alice: 0 jobs; 0 completed, 0 removed, 0 idle, 0 running, 0 held, 0 suspended \n\
             Total for all users: 0 jobs; 0 completed, 0 removed, 0 idle, 0 running, 0 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

#[test]
fn the_batch_view_shows_my_jobs_one_line_per_batch() {
    let env = three_clusters();
    check(
        &env,
        &[],
        &format!(
            "{TITLE}OWNER BATCH_NAME    SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n\
             alice ID: 1        1/31 11:58      1      _      3      _      4 1.0-2\n\
             alice sweep        1/31 11:58      _      _      _      1      1 3.0\n\
             \n\
             Total for query: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
             Total for alice: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

#[test]
fn batches_group_clusters_by_name_and_owner() {
    let env = three_clusters();
    submit(&env, "alice", r#"JobBatchName = "sweep""#, &["", ""]);
    check(
        &env,
        &["-allusers"],
        &format!(
            "{TITLE}OWNER BATCH_NAME    SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n\
             alice ID: 1        1/31 11:58      1      _      3      _      4 1.0-2\n\
             bob   sweep        1/31 11:58      _      1      1      _      2 2.0-1\n\
             alice sweep        1/31 11:58      _      _      2      1      3 3.0 ... 4.1\n\
             \n\
             Total for query: 8 jobs; 0 completed, 0 removed, 6 idle, 1 running, 1 held, 0 suspended \n\
             Total for all users: 8 jobs; 0 completed, 0 removed, 6 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

#[test]
fn owners_and_ids_select_jobs_and_turn_off_my_jobs() {
    let env = three_clusters();
    // A short owner name gets an 8-wide column; no HOLD column without held jobs.
    check(
        &env,
        &["bob"],
        &format!(
            "{TITLE}OWNER    BATCH_NAME    SUBMITTED   DONE   RUN    IDLE  TOTAL JOB_IDS\n\
             bob      sweep        1/31 11:58      _      1      1      2 2.0-1\n\
             \n\
             Total for query: 2 jobs; 0 completed, 0 removed, 1 idle, 1 running, 0 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
    // A job id may leave some of a cluster out: DONE is not known.
    check(
        &env,
        &["1.1", "2"],
        &format!(
            "{TITLE}OWNER BATCH_NAME    SUBMITTED   DONE   RUN    IDLE  TOTAL JOB_IDS\n\
             alice ID: 1        1/31 11:58      _      _      1      4 1.1\n\
             bob   sweep        1/31 11:58      _      1      1      2 2.0-1\n\
             \n\
             Total for query: 3 jobs; 0 completed, 0 removed, 2 idle, 1 running, 0 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

#[test]
fn queue_superusers_see_everyone_and_no_line_of_their_own() {
    let mut env = three_clusters();
    env.set_env("_CONDOR_QUEUE_SUPER_USERS", "alice");
    let out = env.run("condor_q", ["-totals"]);
    assert_eq!(
        out.to_string(),
        format!(
            "{TITLE}Total for query: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        )
    );
}

#[test]
fn only_my_jobs_can_be_turned_off_in_the_configuration() {
    let mut env = three_clusters();
    env.set_env("_CONDOR_CONDOR_Q_ONLY_MY_JOBS", "false");
    let out = env.run("condor_q", ["-af", "ClusterId"]);
    assert_eq!(out.stdout, "1\n1\n1\n2\n2\n3\n");
}

#[test]
fn nobatch_shows_one_line_per_job() {
    let env = three_clusters();
    check(
        &env,
        &["-nobatch", "-allusers"],
        &format!(
            "{TITLE} ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD\n\
             \x20  1.0   alice           1/31 11:58   0+00:00:00 I  0    0.0 sleep 300\n\
             \x20  1.1   alice           1/31 11:58   0+00:00:00 I  0    0.0 sleep 300\n\
             \x20  1.2   alice           1/31 11:58   0+00:00:00 I  0    0.0 sleep 300\n\
             \x20  2.0   bob             1/31 11:58   0+00:00:00 I  0    0.0 sleep 300\n\
             \x20  2.1   bob             1/31 11:58   0+00:01:40 R  0    0.0 sleep 300\n\
             \x20  3.0   alice           1/31 11:58   0+00:00:00 H  0    0.0 sleep 300\n\
             \n\
             Total for query: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

#[test]
fn nobatch_columns_grow_for_big_ids_and_sizes() {
    let env = pool();
    let mut q = crate::common::jobs::queue(&env);
    q.transaction(|tx| {
        for _ in 0..10_000 {
            tx.new_cluster_id()?;
        }
        Ok::<_, condorlite::queue::QueueError>(())
    })
    .unwrap();
    drop(q);
    submit(
        &env,
        "alice",
        r#"ImageSize = 1000000; JobDescription = "big one""#,
        &["", "JobPrio = 10"],
    );
    check(
        &env,
        &["-nobatch"],
        &format!(
            "{TITLE} ID       OWNER            SUBMITTED     RUN_TIME ST PRI SIZE  CMD\n\
             10001.0   alice           1/31 11:58   0+00:00:00 I  0   976.6 (big one)\n\
             10001.1   alice           1/31 11:58   0+00:00:00 I  10  976.6 (big one)\n\
             \n\
             Total for query: 2 jobs; 0 completed, 0 removed, 2 idle, 0 running, 0 held, 0 suspended \n\
             Total for alice: 2 jobs; 0 completed, 0 removed, 2 idle, 0 running, 0 held, 0 suspended \n\
             Total for all users: 2 jobs; 0 completed, 0 removed, 2 idle, 0 running, 0 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

/// With no master running, the tables say so after their totals (and how to start one);
/// the machine-readable forms print exactly what they print with one.
#[test]
fn without_a_master_the_tables_end_saying_so() {
    let mut env = three_clusters();
    env.warn_no_master();
    let run = |args: &[&str]| env.normalize(&env.run("condor_q", args).to_string());
    let totals = "Total for query: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
                  Total for alice: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
                  Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
                  \n";
    assert_eq!(
        run(&[]),
        format!(
            "{TITLE}OWNER BATCH_NAME    SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n\
             alice ID: 1        1/31 11:58      1      _      3      _      4 1.0-2\n\
             alice sweep        1/31 11:58      _      _      _      1      1 3.0\n\
             \n\
             {totals}{NO_MASTER_NOTE}[exit status: 0]"
        )
    );
    for args in [&["-nobatch"][..], &["-totals"], &["-hold"], &["-dag"]] {
        let out = run(args);
        assert!(
            out.ends_with(&format!("\n\n{NO_MASTER_NOTE}[exit status: 0]")),
            "{args:?}: {out}"
        );
        assert_eq!(out.matches("condor_master").count(), 2, "{args:?}: {out}");
    }
    // -run and -idle have no totals: an empty line, then the note.
    assert_eq!(
        run(&["-run", "-allusers"]),
        format!(
            "{TITLE} ID      OWNER            SUBMITTED     RUN_TIME HOST(S)\n\
             \x20  2.1   bob             1/31 11:58   0+00:01:40\n\
             \n\
             {NO_MASTER_NOTE}[exit status: 0]"
        )
    );
    assert!(run(&["-idle"]).ends_with(&format!("undefined\n\n{NO_MASTER_NOTE}[exit status: 0]")));
    for args in [
        &["-af", "ClusterId"][..],
        &["-format", "%d\n", "ClusterId"],
        &["-long"],
        &["-json"],
        &["-xml"],
        &["-totals", "-af", "Jobs"],
        &["-better-analyze"],
    ] {
        let out = run(args);
        assert!(!out.contains("Note:"), "{args:?}: {out}");
    }
}

/// `CONDORLITE_WARN_NO_MASTER = false` leaves condor_q's tables as HTCondor prints them.
#[test]
fn the_no_master_note_can_be_turned_off_in_condor_q() {
    let mut env = pool();
    env.warn_no_master();
    std::fs::write(env.config_file(), "CONDORLITE_WARN_NO_MASTER = false\n").unwrap();
    let out = env.run("condor_q", ["-totals"]);
    assert!(out.stdout.ends_with("0 suspended\n\n"), "{out}");
}

#[test]
fn hold_run_and_idle_views() {
    let env = three_clusters();
    check(
        &env,
        &["-hold"],
        &format!(
            "{TITLE} ID      OWNER          HELD_SINCE  HOLD_REASON\n\
             \x20  3.0   alice           1/31 11:58 disk full\n\
             \n\
             Total for query: 1 jobs; 0 completed, 0 removed, 0 idle, 0 running, 1 held, 0 suspended \n\
             Total for alice: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
    // -run and -idle have no summary.
    check(
        &env,
        &["-run", "-allusers"],
        &format!(
            "{TITLE} ID      OWNER            SUBMITTED     RUN_TIME HOST(S)\n\
             \x20  2.1   bob             1/31 11:58   0+00:01:40\n\
             [exit status: 0]"
        ),
    );
    check(
        &env,
        &["-idle"],
        &format!(
            "{TITLE} ID      OWNER          UNIVERSE  CPUS MEMORY STARTS LAST_HOST\n\
             \x20  1.0   alice          Vanilla      1    128      0 undefined\n\
             \x20  1.1   alice          Vanilla      1    128      0 undefined\n\
             \x20  1.2   alice          Vanilla      1    128      0 undefined\n\
             [exit status: 0]"
        ),
    );
    check(
        &env,
        &["-run", "-hold"],
        "------- stderr -------\n-run and -hold/held or -idle are incompatible\n[exit status: 1]",
    );
}

#[test]
fn totals_only() {
    let env = three_clusters();
    check(
        &env,
        &["-tot"],
        &format!(
            "{TITLE}Total for query: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
             Total for alice: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
    // The summary ad is what -af and -long show with -totals.
    check(
        &env,
        &["-totals", "-af", "Jobs", "MyName", "AllusersRunning"],
        "4 alice 1\n\n[exit status: 0]",
    );
}

#[test]
fn the_legacy_summary_line() {
    let mut env = three_clusters();
    env.set_env("_CONDOR_CONDOR_Q_SHOW_OLD_SUMMARY", "true");
    check(
        &env,
        &["-totals", "-allusers"],
        &format!(
            "{TITLE}\n6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\n[exit status: 0]"
        ),
    );
}

#[test]
fn autoformat_and_its_qualifiers() {
    let env = three_clusters();
    check(
        &env,
        &[
            "-af",
            "ClusterId",
            "ProcId",
            "JobStatus",
            "Owner",
            "Missing",
            "ClusterId * 10",
        ],
        "1 0 1 alice undefined 10\n1 1 1 alice undefined 10\n1 2 1 alice undefined 10\n\
         3 0 5 alice undefined 30\n[exit status: 0]",
    );
    check(
        &env,
        &["3", "-af:jlV", "Owner", "HoldReason"],
        "ID = 3.0 Owner = \"alice\" HoldReason = \"disk full\"\n[exit status: 0]",
    );
    // Headings size the columns to every row; rows keep their padding.
    check(
        &env,
        &["-allusers", "-af:jh", "Owner", "JobBatchName"],
        " ID Owner JobBatchName\n1.0 alice undefined   \n1.1 alice undefined   \n\
         1.2 alice undefined   \n2.0 bob   sweep       \n2.1 bob   sweep       \n\
         3.0 alice sweep       \n[exit status: 0]",
    );
    check(
        &env,
        &["3", "-af:,t", "ClusterId", "Owner"],
        "3,\talice\n[exit status: 0]",
    );
    check(
        &env,
        &["3", "-af:lrng", "JobStatus", "QDate - 1"],
        "\nJobStatus = 5\nQDate - 1 = QDate - 1\n[exit status: 0]",
    );
    check(
        &env,
        &["3", "-af:T", "QDate - 1706000000"],
        "  8+03:04:40\n[exit status: 0]",
    );
    check(
        &env,
        &["3", "-af:Y", "QDate"],
        " 1/31 11:58\n[exit status: 0]",
    );
    check(
        &env,
        &["-af", "ClusterId", "-", "-af", "ProcId"],
        "1 0\n1 1\n1 2\n3 0\n[exit status: 0]",
    );
    check(
        &env,
        &["-af", "ClusterId", "-x"],
        "------- stderr -------\nError: unrecognized argument -x\n[exit status: 1]",
    );
    check(
        &env,
        &["-af"],
        "------- stderr -------\nError: -autoformat requires at least one attribute parameter\n\
         [exit status: 1]",
    );
    check(
        &env,
        &["-af", "ClusterId +"],
        "------- stderr -------\nError: invalid expression : ClusterId +\n[exit status: 1]",
    );
}

#[test]
fn format_is_printf() {
    let env = three_clusters();
    check(
        &env,
        &[
            "-format",
            "%d.",
            "ClusterId",
            "-format",
            "%-3d|",
            "ProcId",
            "-format",
            "%s\\n",
            "Owner",
        ],
        "1.0  |alice\n1.1  |alice\n1.2  |alice\n3.0  |alice\n[exit status: 0]",
    );
    // A missing value prints nothing, not even the format's text.
    check(
        &env,
        &[
            "1",
            "-format",
            "[%d]",
            "NoSuchAttr",
            "-format",
            "%s\\n",
            "Owner",
        ],
        "alice\nalice\nalice\n[exit status: 0]",
    );
    check(
        &env,
        &["-batch", "-af", "Owner"],
        "------- stderr -------\nError: -batch conflicts with -format and -af\n[exit status: 1]",
    );
}

#[test]
fn long_json_and_xml() {
    let env = pool();
    submit(
        &env,
        "alice",
        r#"zeta = "last"; Requirements = TARGET.Memory > 100"#,
        &["Arguments = \"x y\""],
    );
    let iwd = env.work_dir().display().to_string();
    let long = format!(
        "Arguments = \"x y\"\nClusterId = 1\nCmd = \"/bin/sleep\"\nEnteredCurrentStatus = {then}\n\
         ImageSize = 0\nIwd = \"{iwd}\"\nJobPrio = 0\nJobStatus = 1\nJobUniverse = 5\n\
         LeaveJobInQueue = false\nNumShadowStarts = 0\nOwner = \"alice\"\nProcId = 0\n\
         QDate = {then}\nRemoteUserCpu = 0.0\nRemoteWallClockTime = 0.0\nRequestCpus = 1\n\
         RequestMemory = 128\nRequirements = TARGET.Memory > 100\nServerTime = {NOW}\n\
         TotalSubmitProcs = 1\nUser = \"alice@example.com\"\nzeta = \"last\"\n\n",
        then = NOW - 120
    );
    check(&env, &["-l"], &format!("{long}[exit status: 0]"));
    check(
        &env,
        &["-json", "-attributes", "ProcId,Requirements,zeta"],
        "[\n{\n  \"ProcId\": 0,\n  \"Requirements\": \"\\/Expr(TARGET.Memory > 100)\\/\",\n  \
         \"zeta\": \"last\"\n}\n]\n[exit status: 0]",
    );
    check(
        &env,
        &["-jsonl", "-attributes", "ProcId,ClusterId"],
        "{\"ClusterId\": 1,\"ProcId\": 0}\n[exit status: 0]",
    );
    check(
        &env,
        &["-long:nosort", "-attributes", "zeta,ClusterId,ProcId"],
        "zeta = \"last\"\nClusterId = 1\nProcId = 0\n\n[exit status: 0]",
    );
    check(
        &env,
        &["-xml", "-attr", "ProcId"],
        "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n\
         <c>\n    <a n=\"ProcId\"><i>0</i></a>\n</c>\n</classads>\n[exit status: 0]",
    );
    // No match: JSON prints nothing at all, XML an empty document.
    check(&env, &["-json", "99"], "[exit status: 0]");
    check(&env, &["-l", "99"], "[exit status: 0]");
    check(
        &env,
        &["-xml", "99"],
        "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n\
         </classads>\n[exit status: 0]",
    );
    check(
        &env,
        &["-xml", "-json"],
        "------- stderr -------\nError: Cannot print as both XML and JSON\n[exit status: 1]",
    );
    check(
        &env,
        &["-l", "-totals", "-attributes", "Jobs,MyName,MyType"],
        "Jobs = 1\nMyName = \"alice\"\nMyType = \"Summary\"\n\n[exit status: 0]",
    );
}

#[test]
fn constraints_limit_and_their_errors() {
    let env = three_clusters();
    check(
        &env,
        &[
            "-allusers",
            "-const",
            "JobStatus != 1",
            "-af",
            "ClusterId",
            "ProcId",
        ],
        "2 1\n3 0\n[exit status: 0]",
    );
    check(
        &env,
        &[
            "-allusers",
            "-constraint",
            "Owner == \"bob\"",
            "-constraint",
            "ProcId == 0",
            "-af:j",
        ],
        "------- stderr -------\nError: -autoformat requires at least one attribute parameter\n\
         [exit status: 1]",
    );
    check(
        &env,
        &["-allusers", "-limit", "2", "-af:j", "Owner"],
        "1.0 alice\n1.1 alice\n[exit status: 0]",
    );
    check(
        &env,
        &["-limit", "0"],
        "------- stderr -------\nError: 0 is not a valid for -limit.\n[exit status: 1]",
    );
    check(
        &env,
        &["-limit", "x"],
        "------- stderr -------\nError: Unable to convert (x) to a number for -limit.\n[exit status: 1]",
    );
    check(
        &env,
        &["-constraint", "Owner =="],
        "------- stderr -------\n\n-- Parse error in constraint expression \"Owner ==\"\n[exit status: 1]",
    );
    check(
        &env,
        &["-bogus"],
        "------- stderr -------\nError: unrecognized argument -bogus\n[exit status: 1]",
    );
}

#[test]
fn wide_n_cuts_lines_to_the_width() {
    let env = three_clusters();
    submit(
        &env,
        "alice",
        "Arguments = \"a very long argument list that goes on and on\"",
        &[""],
    );
    check(
        &env,
        &["-nobatch", "-wide:60", "4"],
        &format!(
            "{TITLE} ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZ\n\
             \x20  4.0   alice           1/31 11:58   0+00:00:00 I  0    0.\n\
             \n\
             Total for query: 1 jobs; 0 completed, 0 removed, 1 idle, 0 running, 0 held, 0 suspended \n\
             Total for all users: 7 jobs; 0 completed, 0 removed, 5 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

#[test]
fn version_and_help() {
    let env = pool();
    let out = env.run("condor_q", ["-version"]);
    assert!(out.stdout.starts_with("$CondorVersion: "), "{out}");
    let out = env.run("condor_q", ["-help"]);
    assert_eq!(out.status, Some(0));
    assert!(out.stdout.contains("-allusers"), "{out}");
}

/// The DAG of condor_q's manual page (docs/man-pages/condor_q.rst, "non-batch mode with the
/// -dag option"): DAGMan job 1 runs nodes NodeA (cluster 2) and NodeB (3) and the sub-DAG
/// SubZ (4), whose DAGMan job runs NodeSA (5) and NodeSB (6); every node has two procs, all
/// running. `done` leaves out proc 0 of each node, as the page's second listing does.
fn manual_dag(done: bool) -> TestEnvironment {
    let env = pool();
    let running = |age: i64| format!("JobStatus = 2; ShadowBday = {}", NOW - age);
    let dagman = |age: i64, parent: &str| {
        format!(
            r#"JobUniverse = 7; Cmd = "/usr/bin/condor_dagman"; Arguments = "-p 0 -f -l .";
               ImageSize = 2500; JobBatchName = "ex1.dag+1"; {parent} {}"#,
            running(age)
        )
    };
    submit(&env, "wenger", &dagman(27, ""), &[""]);
    for (node, dag, age) in [
        ("NodeA", 1, 21),
        ("NodeB", 1, 21),
        ("SubZ", 1, 21),
        ("NodeSA", 4, 15),
        ("NodeSB", 4, 15),
    ] {
        let attrs =
            format!(r#"DAGManJobId = {dag}; DAGNodeName = "{node}"; JobBatchName = "ex1.dag+1""#);
        if node == "SubZ" {
            submit(
                &env,
                "wenger",
                &format!("{attrs}; {}", dagman(age, "")),
                &[""],
            );
            continue;
        }
        let sleep = |secs| format!(r#"Arguments = "{secs}"; {}"#, running(age));
        let (p0, p1) = (sleep(60), sleep(300));
        let ids = submit(&env, "wenger", &attrs, &[&p0, &p1]);
        if done {
            let mut q = crate::common::jobs::queue(&env);
            q.transaction(|tx| {
                tx.set_status(ids[0], condorlite::queue::JobStatus::Completed)?;
                tx.move_to_history(ids[0]).map(|_| ())
            })
            .unwrap();
        }
    }
    env
}

/// `-nobatch -dag` lists each node under its DAGMan job, `|-` and the node name in the owner
/// column, one more space per level; the other procs of a node come after, in id order, as
/// the manual's own listing shows (queue.cpp links only a cluster's first proc to its
/// siblings).
#[test]
fn nobatch_dag_floats_nodes_under_their_dagman_job() {
    let mut env = manual_dag(false);
    env.set_env("_CONDOR_CONDOR_Q_SHOW_OLD_SUMMARY", "true");
    check(
        &env,
        &["-nobatch", "-dag", "-allusers", "-wide:80"],
        &format!(
            "{TITLE}\x20ID      OWNER/NODENAME      SUBMITTED     RUN_TIME ST PRI SIZE CMD\n\
             \x20  1.0   wenger             1/31 11:58   0+00:00:27 R  0    2.4 condor_dagman -\n\
             \x20  2.0    |-NodeA           1/31 11:58   0+00:00:21 R  0    0.0 sleep 60\n\
             \x20  3.0    |-NodeB           1/31 11:58   0+00:00:21 R  0    0.0 sleep 60\n\
             \x20  4.0    |-SubZ            1/31 11:58   0+00:00:21 R  0    2.4 condor_dagman -\n\
             \x20  5.0     |-NodeSA         1/31 11:58   0+00:00:15 R  0    0.0 sleep 60\n\
             \x20  6.0     |-NodeSB         1/31 11:58   0+00:00:15 R  0    0.0 sleep 60\n\
             \x20  2.1    |-NodeA           1/31 11:58   0+00:00:21 R  0    0.0 sleep 300\n\
             \x20  3.1    |-NodeB           1/31 11:58   0+00:00:21 R  0    0.0 sleep 300\n\
             \x20  5.1     |-NodeSA         1/31 11:58   0+00:00:15 R  0    0.0 sleep 300\n\
             \x20  6.1     |-NodeSB         1/31 11:58   0+00:00:15 R  0    0.0 sleep 300\n\
             \n\
             10 jobs; 0 completed, 0 removed, 0 idle, 10 running, 0 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
    let env = manual_dag(true);
    let out = env.run("condor_q", ["-nobatch", "-dag", "-allusers", "-wide:80"]);
    let lines: Vec<&str> = out.stdout.lines().skip(4).take(6).collect();
    assert_eq!(
        lines,
        [
            "   1.0   wenger             1/31 11:58   0+00:00:27 R  0    2.4 condor_dagman -",
            "   2.1    |-NodeA           1/31 11:58   0+00:00:21 R  0    0.0 sleep 300",
            "   3.1    |-NodeB           1/31 11:58   0+00:00:21 R  0    0.0 sleep 300",
            "   4.0    |-SubZ            1/31 11:58   0+00:00:21 R  0    2.4 condor_dagman -",
            "   5.1     |-NodeSA         1/31 11:58   0+00:00:15 R  0    0.0 sleep 300",
            "   6.1     |-NodeSB         1/31 11:58   0+00:00:15 R  0    0.0 sleep 300",
        ],
        "{out}"
    );
}

/// Node names too long for the column: in full width (not a terminal) the column stays 17
/// wide and a node's name is cut to fit after its `|-`; a node whose DAGMan job is not
/// listed gets its `|-` at generation 0 (no indent) and keeps its place. -hold -dag floats
/// nodes and marks their owners.
#[test]
fn dag_names_are_cut_to_the_column_and_hold_floats_too() {
    let env = pool();
    submit(
        &env,
        "alice",
        "JobUniverse = 7; Cmd = \"/usr/bin/condor_dagman\"",
        &[""],
    );
    submit(
        &env,
        "alice",
        r#"DAGManJobId = 1; DAGNodeName = "a_rather_long_node_name""#,
        &[""],
    );
    submit(
        &env,
        "alice",
        r#"JobUniverse = 7; DAGManJobId = 1; DAGNodeName = "sub"; JobStatus = 5;
           HoldReasonCode = 15; HoldReason = "submitted on hold""#,
        &[""],
    );
    submit(
        &env,
        "alice",
        r#"DAGManJobId = 3; DAGNodeName = "deeper_than_the_rest"; JobStatus = 5;
           HoldReasonCode = 1; HoldReasonSubCode = 0; HoldReason = "via condor_hold""#,
        &[""],
    );
    submit(
        &env,
        "alice",
        r#"DAGManJobId = 99; DAGNodeName = "orphan""#,
        &[""],
    );
    let out = env.run("condor_q", ["-nobatch", "-dag", "-af", "ClusterId"]);
    assert_eq!(out.stdout, "1\n2\n3\n4\n5\n", "-af ignores -dag: {out}");
    let out = env.run("condor_q", ["-nobatch", "-dag"]);
    let names: Vec<&str> = out
        .stdout
        .lines()
        .skip(4)
        .take(5)
        .map(|l| l[9..27].trim_end())
        .collect();
    assert_eq!(
        names,
        [
            "alice",
            " |-a_rather_long_",
            " |-sub",
            "  |-deeper_than_t",
            "|-orphan"
        ],
        "{out}"
    );
    // Held: the sub-DAG (whose DAGMan job is not listed) and its node.
    let out = env.run("condor_q", ["-hold", "-dag"]);
    let rows: Vec<&str> = out.stdout.lines().skip(4).take(2).collect();
    assert_eq!(
        rows,
        [
            "   3.0   |-alice         1/31 11:58 submitted on hold",
            "   4.0    |-alice        1/31 11:58 via condor_hold",
        ],
        "{out}"
    );
}

/// With -dag a DAGMan job's cluster id also selects its nodes (DAGManJobId), in the batch
/// view, where a node without its DAGMan job shows its node name as owner.
#[test]
fn dag_ids_select_the_nodes_and_batch_names_nodes() {
    let env = manual_dag(false);
    submit(&env, "wenger", "", &[""]);
    let out = env.run("condor_q", ["-dag", "1", "-af", "ClusterId", "ProcId"]);
    assert_eq!(
        out.stdout, "1 0\n2 0\n2 1\n3 0\n3 1\n4 0\n",
        "the nodes of DAG 1, not those of its sub-DAG: {out}"
    );
    let out = env.run("condor_q", ["1", "-af", "ClusterId"]);
    assert_eq!(out.stdout, "1\n", "{out}");
    let out = env.run("condor_q", ["-dag", "4.0", "-af", "ClusterId"]);
    assert_eq!(out.stdout, "4\n5\n5\n6\n6\n", "{out}");
    check(
        &env,
        &["-dag", "5", "-constraint", "ProcId == 1"],
        &format!(
            "{TITLE}OWNER  BATCH_NAME    SUBMITTED   DONE   RUN    IDLE  TOTAL JOB_IDS\n\
             NodeSA ex1.dag+1    1/31 11:58      _      1      _      _ 5.1\n\
             \n\
             Total for query: 1 jobs; 0 completed, 0 removed, 0 idle, 1 running, 0 held, 0 suspended \n\
             Total for all users: 9 jobs; 0 completed, 0 removed, 1 idle, 8 running, 0 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

/// `-name`: the local schedd by its name (as condor_rm finds it); a schedd the pool does not
/// have, or a host that does not resolve, as HTCondor's condor_q reports them.
#[test]
fn name_selects_the_local_schedd() {
    let mut env = three_clusters();
    let plain = env.run("condor_q", ["-nobatch"]);
    for name in ["submit@example.com", "SUBMIT@example.com"] {
        let out = env.run("condor_q", ["-nobatch", "-name", name]);
        assert_eq!(out, plain, "-name {name}");
    }
    let out = env.run(
        "condor_q",
        ["-n", "elsewhere@example.org", "-name", "submit@example.com"],
    );
    assert_eq!(out.status, Some(0), "{out}");
    check(
        &env,
        &["-name", "elsewhere@example.org"],
        "------- stderr -------\nError: Collector has no record of schedd/submitter\n\
         [exit status: 1]",
    );
    env.set_env("_CONDOR_NO_DNS", "true");
    check(
        &env,
        &["-name", "nosuchhost"],
        "\n------- stderr -------\nError: unknown host nosuchhost\n\
         Extra Info: The name given with the -name should be the name of a \n\
         condor_schedd process. Normally it is either a hostname, or \"name@hostname\". \n\
         In either case, the hostname should be the Internet host name, but it appears \n\
         that it wasn't. \n\
         [exit status: 1]",
    );
    check(
        &env,
        &["-name", "nosuchhost", "-expert"],
        "------- stderr -------\nError: unknown host nosuchhost\n[exit status: 1]",
    );
}

/// The batch view is the default unless `CONDOR_Q_DASH_BATCH_IS_DEFAULT` says otherwise, and
/// `-batch` wins over `-run` (initOutputMask picks the batch view first).
#[test]
fn the_batch_default_and_batch_with_run() {
    let mut env = three_clusters();
    let batch_header = " BATCH_NAME ";
    let out = env.run("condor_q", ["-run", "-batch", "-allusers"]);
    assert!(out.stdout.contains(batch_header), "{out}");
    assert!(out.stdout.contains("bob      sweep"), "{out}");
    assert!(out.stdout.contains(" 2.1\n"), "only the running job: {out}");
    assert!(out.stdout.contains("Total for query: 1 jobs"), "{out}");
    env.set_env("_CONDOR_CONDOR_Q_DASH_BATCH_IS_DEFAULT", "false");
    let out = env.run("condor_q", [] as [&str; 0]);
    assert!(
        out.stdout.contains(" ID      OWNER            SUBMITTED"),
        "{out}"
    );
    let out = env.run("condor_q", ["-batch"]);
    assert!(out.stdout.contains(batch_header), "{out}");
}

/// queue.cpp reads -limit with strtol into an int (white space and a sign may lead, nothing
/// may follow, and the int is what is checked), and a word that is not all job id is an
/// owner's name (`1.2.3.4` selects the jobs of user "1.2.3.4").
#[test]
fn limit_is_read_as_strtol_and_a_word_that_is_not_an_id_is_an_owner() {
    let env = three_clusters();
    check(
        &env,
        &["-allusers", "-limit", " +2", "-af:j", "Owner"],
        "1.0 alice\n1.1 alice\n[exit status: 0]",
    );
    // 2^32 + 1 is 1 as an int.
    check(
        &env,
        &["-allusers", "-limit", "4294967297", "-af:j", "Owner"],
        "1.0 alice\n[exit status: 0]",
    );
    check(
        &env,
        &["-limit", ""],
        "------- stderr -------\nError: 0 is not a valid for -limit.\n[exit status: 1]",
    );
    check(
        &env,
        &["-limit", "2 "],
        "------- stderr -------\nError: Unable to convert (2 ) to a number for -limit.\n\
         [exit status: 1]",
    );
    check(&env, &["1.2.3.4", "-af:j", "Owner"], "[exit status: 0]");
    check(&env, &["12abc", "-af:j", "Owner"], "[exit status: 0]");
    check(
        &env,
        &["1.", "2.0", "-af:j", "Owner"],
        "1.0 alice\n1.1 alice\n1.2 alice\n2.0 bob\n[exit status: 0]",
    );
}

/// `-print-format FILE`: the file's columns, its WHERE ANDed into the query (with
/// -constraint and -allusers as they are), the title, the headings and the standard summary.
#[test]
fn a_print_format_file_shows_its_columns_where_and_summary() {
    let env = three_clusters();
    let file = env.write_file(
        "jobs.cpf",
        "# one line per job, no held ones\n\
         SELECT\n\
         \x20  ClusterId AS CLUSTER PRINTF %d\n\
         \x20  Owner AS WHO WIDTH -8\n\
         \x20  JobBatchName AS BATCH PRINTF %s OR -\n\
         \x20  JobStatus AS ST PRINTAS JOB_STATUS\n\
         WHERE JobStatus != 5\n\
         SUMMARY STANDARD\n",
    );
    let file = file.to_str().unwrap();
    check(
        &env,
        &["-print-format", file, "-allusers"],
        &format!(
            "{TITLE}CLUSTER WHO      BATCH ST\n\
             1       alice    -     I\n\
             1       alice    -     I\n\
             1       alice    -     I\n\
             2       bob      sweep I\n\
             2       bob      sweep R\n\
             \n\
             Total for query: 5 jobs; 0 completed, 0 removed, 4 idle, 1 running, 0 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
    // Without -allusers: my jobs; -constraint ANDed with the WHERE.
    check(
        &env,
        &["-pr", file, "-constraint", "ClusterId != 1"],
        &format!(
            "{TITLE}CLUSTER WHO      BATCH ST\n\
             \n\
             Total for query: 0 jobs; 0 completed, 0 removed, 0 idle, 0 running, 0 held, 0 suspended \n\
             Total for alice: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

/// SELECT BARE: rows only; a custom SUMMARY formats the summary ad.
#[test]
fn a_bare_print_format_and_a_custom_summary() {
    let env = three_clusters();
    let bare = env.write_file(
        "bare.cpf",
        "SELECT BARE\nClusterId AS ID PRINTF %d NOSUFFIX\nProcId AS P PRINTF .%d NOPREFIX\n",
    );
    check(
        &env,
        &["-print-format", bare.to_str().unwrap()],
        "1 .0\n1 .1\n1 .2\n3 .0\n[exit status: 0]",
    );
    let custom = env.write_file(
        "custom.cpf",
        "SELECT NOTITLE NOHEADER\nClusterId\nSUMMARY\nJobs PRINTF 'jobs=%d'\nIdle PRINTF 'idle=%d'\n",
    );
    check(
        &env,
        &["-print-format", custom.to_str().unwrap()],
        // HTCondor prints the summary's headings (sized before the summary is rendered)
        // ahead of the empty line that starts the footer.
        "1\n1\n1\n3\nJobs Idle\n\njobs=4 idle=3\n\n[exit status: 0]",
    );
}

/// What HTCondor says about a bad format, and a missing file or argument.
#[test]
fn print_format_errors_are_reported_as_htcondor_does() {
    let env = three_clusters();
    let file = env.write_file(
        "bad.cpf",
        "SELECT BOGUS\nClusterId AS C PRINTAS NO_SUCH_FUNCTION\nOwner OR !\nSUMMARY STANDARD LOUD\n",
    );
    check(
        &env,
        &["-print-format", file.to_str().unwrap()],
        &format!(
            "{TITLE}C Owner\n\
             1 alice\n1 alice\n1 alice\n3 alice\n\
             \n\
             Total for query: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
             Total for alice: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
             Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
             \n\
             ------- stderr -------\n\
             Warning: Unknown header argument BOGUS for SELECT\n\
             Unknown argument NO_SUCH_FUNCTION for PRINTAS\n\
             Unknown argument ! for OR\n\
             Unknown argument LOUD for SELECT\n\
             [exit status: 0]"
        ),
    );
    let missing = env.work_dir().join("missing.cpf");
    let missing = missing.to_str().unwrap();
    check(
        &env,
        &["-print-format", missing],
        &format!(
            "------- stderr -------\nCan't open select file: {missing}\n\
             Error: invalid select file {missing}\n[exit status: 1]"
        ),
    );
    check(
        &env,
        &["-print-format", "-nobatch"],
        "------- stderr -------\nError: -print-format requires a filename argument\n\
         [exit status: 1]",
    );
    // An endless file is not read to its end.
    for tool in ["condor_q", "condor_history"] {
        let out = env.run(tool, ["-print-format", "/dev/zero"]);
        assert_eq!(
            (out.stderr.as_str(), out.status),
            (
                "Error: print-format file /dev/zero is larger than 1048576 bytes\n",
                Some(1)
            ),
            "{tool}"
        );
    }
}

/// -io (24.0's `jobIO_PrintFormat`, prefix `-io`): only the jobs transferring files (its
/// WHERE), the RUNS, INPUT, OUTPUT and RATE columns as 24.0 prints them (its `FORMATAS`
/// words are no keyword of the language: the numbers are raw, RATE cut to 10), MISC the
/// universe number, then the standard totals. ST marks the transfers (`<` in, ` >` out).
/// Not the batch view.
#[test]
fn io_view_shows_the_jobs_transferring_files() {
    let env = pool();
    submit(
        &env,
        "alice",
        "",
        &[
            "TransferringInput = true; NumJobStarts = 1; BytesRecvd = 123456.0; BytesSent = 0.0",
            "",
            "JobStatus = 2; TransferringOutput = true; NumJobStarts = 2; BytesRecvd = 10.0; \
             BytesSent = 98765432109.0",
        ],
    );
    check(
        &env,
        &["-io"],
        &format!(
            "{TITLE} ID      OWNER          RUNS ST  INPUT    OUTPUT        RATE      MISC\n\
             \x20  1.0   alice             1 <  123456.0 0.0             123456.0 5\n\
             \x20  1.2   alice             2  > 10.0     98765432109.0 9876543211 5\n\
             \n\
             Total for query: 2 jobs; 0 completed, 0 removed, 1 idle, 1 running, 0 held, 0 suspended \n\
             Total for alice: 3 jobs; 0 completed, 0 removed, 2 idle, 1 running, 0 held, 0 suspended \n\
             Total for all users: 3 jobs; 0 completed, 0 removed, 2 idle, 1 running, 0 held, 0 suspended\n\
             \n\
             [exit status: 0]"
        ),
    );
}

/// The jobs of [`three_clusters`], as `condor_q -allusers -long` writes them, in a file of
/// a pool whose own queue is empty.
fn jobads_file() -> (TestEnvironment, String) {
    let saved = three_clusters().run("condor_q", ["-allusers", "-long"]);
    assert_eq!(saved.status, Some(0), "{saved}");
    let env = pool();
    let path = env.write_file("jobs.ads", &saved.stdout);
    (env, path.to_string_lossy().into_owned())
}

/// queue.cpp's `show_file_queue`: every job of the file (no "my jobs"), the title naming the
/// file, the query's totals only (standard_summary2's all-users columns undefined), no note
/// about the master.
#[test]
fn jobads_shows_every_job_of_the_file_instead_of_the_queue() {
    let (mut env, path) = jobads_file();
    env.warn_no_master();
    let title = "\n\n-- Jobads: $TEST_ENV/work/jobs.ads @ 01/31/24 12:00:00\n";
    let run = |args: &[&str]| env.normalize(&env.run("condor_q", args).to_string());
    assert_eq!(
        run(&["-jobads", &path]),
        format!(
            "{title}OWNER BATCH_NAME    SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n\
             alice ID: 1        1/31 11:58      1      _      3      _      4 1.0-2\n\
             bob   sweep        1/31 11:58      _      1      1      _      2 2.0-1\n\
             alice sweep        1/31 11:58      _      _      _      1      1 3.0\n\
             \n\
             Total for query: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended       \n\
             \n\
             [exit status: 0]"
        )
    );
    assert_eq!(
        run(&["-jobads", &path, "-nobatch", "bob"]),
        format!(
            "{title} ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD\n   \
             2.0   bob             1/31 11:58   0+00:00:00 I  0    0.0 sleep 300\n   \
             2.1   bob             1/31 11:58   0+00:01:40 R  0    0.0 sleep 300\n\
             \n\
             Total for query: 2 jobs; 0 completed, 0 removed, 1 idle, 1 running, 0 held, 0 suspended       \n\
             \n\
             [exit status: 0]"
        )
    );
}

#[test]
fn jobads_feeds_constraints_autoformat_and_long() {
    let (env, path) = jobads_file();
    check(
        &env,
        &[
            "-j",
            &path,
            "-af",
            "ClusterId",
            "ProcId",
            "Owner",
            "-const",
            "JobStatus == 1",
        ],
        "1 0 alice\n1 1 alice\n1 2 alice\n2 0 bob\n[exit status: 0]",
    );
    check(
        &env,
        &["-jobads", &path, "-af", "ProcId", "-limit", "2", "1"],
        "0\n1\n[exit status: 0]",
    );
    let long = env.run("condor_q", ["-jobads", &path, "-long", "3"]);
    assert_eq!(long.status, Some(0), "{long}");
    assert!(
        long.stdout
            .starts_with("Arguments = \"300\"\nClusterId = 3\n"),
        "{long}"
    );
    assert!(long.stdout.contains("\nHoldReasonCode = 21\n"), "{long}");
    assert_eq!(long.stdout.matches("\n\n").count(), 1, "one ad: {long}");
}

/// A file that cannot be read says so as queue.cpp does; one that is not ads names the line.
#[test]
fn jobads_refuses_missing_and_malformed_files() {
    let env = pool();
    check(
        &env,
        &["-jobads", "missing.ads"],
        "------- stderr -------\nCan't open file of ClassAds: missing.ads\n[exit status: 1]",
    );
    let bad = env.write_file("bad.ads", "ClusterId = 1\nProcId = 0\n\nClusterId 2\n");
    let out = env.run("condor_q", ["-jobads", &bad.to_string_lossy()]);
    assert_eq!(
        env.normalize(&out.to_string()),
        "------- stderr -------\nError reading file of ClassAds: $TEST_ENV/work/bad.ads: line 4: \
         expected 'Name = value'\n[exit status: 1]"
    );
}

/// A pool directory with a job event log (the userlog fixture) and no spool.
fn userlog_pool() -> (TestEnvironment, String) {
    let env = pool();
    let path = crate::common::jobs::userlog_fixture(&env);
    (env, path)
}

/// The names in the pool directory: a tool reading jobs from a file must leave it as it is.
fn pool_dir_entries(env: &TestEnvironment) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(env.local_dir())
        .expect("the pool directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// queue.cpp's `show_file_queue` with userlog_to_classads: every job whose submit event is in
/// the log (an event of another job is ignored), its status as the log leaves it, the user
/// reading the log as owner; the title names the log, the totals are the query's only.
#[test]
fn userlog_shows_the_jobs_its_events_tell_of() {
    let (mut env, path) = userlog_pool();
    env.warn_no_master();
    let title = "\n\n-- Userlog: $TEST_ENV/work/job.log @ 01/31/24 12:00:00\n";
    let run = |args: &[&str]| env.normalize(&env.run("condor_q", args).to_string());
    let totals = "Total for query: 5 jobs; 2 completed, 1 removed, 0 idle, 1 running, 1 held, \
                  0 suspended       \n\n[exit status: 0]";
    assert_eq!(
        run(&["-userlog", &path]),
        format!(
            "{title}OWNER BATCH_NAME    SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n\
             alice ID: 10       1/31 11:00      _      _      _      _      _ 10.0-2\n\
             alice ID: 11       1/31 11:10      _      _      _      1      _ 11.0\n\
             alice ID: 12       1/31 11:20      _      1      _      _      _ 12.0\n\
             \n{totals}"
        )
    );
    // The command is `???` until a job ad information event says otherwise (10.0's does).
    assert_eq!(
        run(&["-userlog", &path, "-nobatch"]),
        format!(
            "{title} ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD\n  \
             10.0   alice           1/31 11:00   0+00:01:40 C  5    2.9 run.sh\n  \
             10.1   alice           1/31 11:00   0+00:00:20 C  0    0.0 ???\n  \
             10.2   alice           1/31 11:00   0+00:00:00 X  0    0.0 ???\n  \
             11.0   alice           1/31 11:10   0+00:00:00 H  0    0.0 ???\n  \
             12.0   alice           1/31 11:20   0+00:00:00 R  0    0.0 ???\n\
             \n{totals}"
        )
    );
    assert_eq!(
        run(&["-u", &path, "-nobatch", "10.1", "11"]),
        format!(
            "{title} ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD\n  \
             10.1   alice           1/31 11:00   0+00:00:20 C  0    0.0 ???\n  \
             11.0   alice           1/31 11:10   0+00:00:00 H  0    0.0 ???\n\
             \n\
             Total for query: 2 jobs; 1 completed, 0 removed, 0 idle, 0 running, 1 held, \
             0 suspended       \n\n[exit status: 0]"
        )
    );
    assert_eq!(
        run(&[
            "-userlog",
            &path,
            "-af",
            "ClusterId",
            "ProcId",
            "JobStatus",
            "Owner",
            "Cmd"
        ]),
        "10 0 4 alice /home/alice/run.sh\n10 1 4 alice ???\n10 2 3 alice ???\n\
         11 0 5 alice ???\n12 0 2 alice ???\n[exit status: 0]"
    );
    // `-` reads the log from standard input.
    let log = std::fs::read(&path).expect("the log");
    let out = env.run_with_input(
        "condor_q",
        &["-userlog", "-", "-af", "ClusterId", "ProcId"],
        &log,
    );
    assert_eq!(
        out.to_string(),
        "10 0\n10 1\n10 2\n11 0\n12 0\n[exit status: 0]"
    );
    assert_eq!(
        pool_dir_entries(&env),
        Vec::<String>::new(),
        "no spool made"
    );
}

/// A log that cannot be opened gets queue.cpp's message; an event that does not read is
/// refused with the file and line (HTCondor 24.0 stops reading there without a word).
#[test]
fn userlog_refuses_missing_and_malformed_logs() {
    let env = pool();
    check(
        &env,
        &["-userlog", "missing.log"],
        "------- stderr -------\n\nCan't open user log: missing.log\n[exit status: 1]",
    );
    let bad = env.write_file(
        "bad.log",
        "000 (001.000.000) 2024-01-31 11:00:00Z Job submitted from host: <192.0.2.10:9618>\n...\n\
         001 (001.000.000) 2024-01-31 11:00:01Z Job was frobnicated\n...\n",
    );
    let out = env.run("condor_q", ["-userlog", &bad.to_string_lossy()]);
    assert_eq!(
        env.normalize(&out.to_string()),
        "------- stderr -------\nError reading user log: $TEST_ENV/work/bad.log, line 3: \
         expected \"Job executing on host: \", found \"Job was frobnicated\"\n[exit status: 1]"
    );
    assert_eq!(
        pool_dir_entries(&env),
        Vec::<String>::new(),
        "no spool made"
    );
}

/// Jobs read from a file (-jobads) or made up from a log (-userlog) never open the queue
/// store: a pool directory without a spool stays as it is, whatever the view.
#[test]
fn file_sources_leave_the_pool_untouched() {
    let (env, log) = userlog_pool();
    let ads = env.write_file(
        "jobs.ads",
        "ClusterId = 5\nProcId = 0\nOwner = \"bob\"\nJobStatus = 1\nQDate = 1706702000\n\
         Cmd = \"/bin/true\"\n\nClusterId = 6\nOwner = \"bob\"\nQDate = 1706702000\n\
         JobMaterializeDigestFile = \"/spool/6/condor_submit.6.digest\"\n\
         JobMaterializeLimit = 4\nJobsPresent = 0\nJobMaterializeNextProcId = 0\n",
    );
    let ads = ads.to_string_lossy().into_owned();
    for args in [
        vec!["-jobads", &ads],
        vec!["-jobads", &ads, "-dag", "5"],
        vec!["-jobads", &ads, "-factory"],
        vec!["-jobads", &ads, "-totals"],
        vec!["-userlog", &log, "-dag", "10"],
        vec!["-userlog", &log, "-factory"],
        vec!["-userlog", &log, "-hold"],
        vec!["-userlog", &log, "-long", "12"],
        // The collector is not asked about schedds either.
        vec!["-userlog", &log, "-name", "elsewhere@example.org"],
    ] {
        let out = env.run("condor_q", &args);
        assert_eq!(out.status, Some(0), "condor_q {args:?}: {out}");
        assert_eq!(
            pool_dir_entries(&env),
            Vec::<String>::new(),
            "condor_q {args:?}"
        );
    }
    // The -factory view of a file: the ads its WHERE keeps (cluster ads of factories).
    let out = env.run("condor_q", ["-jobads", &ads, "-factory"]);
    let digest = "/spool/6/condor_submit.6.digest";
    assert_eq!(
        env.normalize(&out.to_string()),
        format!(
            "\n\n-- Jobads: $TEST_ENV/work/jobs.ads @ 01/31/24 12:00:00\n \
             ID      OWNER            SUBMITTED  LIMIT PRESNT   RUN    IDLE   HOLD NEXTID MODE \
             {:<31}\n   \
             6.    bob             1/31 11:53      4      0                           0      \
             {digest}\n[exit status: 0]",
            "DIGEST"
        )
    );
}

/// A pool replaces condor_q's views with print-format files of its own
/// (`Q_DEFAULT_<TAG>_PRINT_FORMAT_FILE`, queue.cpp's `initOutputMask`); `-pr !` turns them
/// off, a knob naming no file is ignored, and the batch view is not replaced by another
/// view's file.
#[test]
fn a_pool_replaces_default_views_with_print_format_files() {
    let mut env = three_clusters();
    let builtin_nobatch = env.run("condor_q", ["-nobatch"]).to_string();
    let builtin_batch = env.run("condor_q", Vec::<&str>::new()).to_string();
    let jobs = env.write_file(
        "jobs.cpf",
        "SELECT\nClusterId AS CLUSTER PRINTF %d\nJobStatus AS ST PRINTAS JOB_STATUS\nSUMMARY NONE\n",
    );
    let totals = env.write_file("totals.cpf", "SELECT NOHEADER NOTITLE\nSUMMARY STANDARD\n");
    env.set_env(
        "_CONDOR_Q_DEFAULT_PRINT_FORMAT_FILE",
        jobs.to_str().unwrap(),
    );
    env.set_env(
        "_CONDOR_Q_DEFAULT_HOLD_PRINT_FORMAT_FILE",
        totals.to_str().unwrap(),
    );
    env.set_env(
        "_CONDOR_Q_DEFAULT_RUN_PRINT_FORMAT_FILE",
        "no-such-file.cpf",
    );
    check(
        &env,
        &["-nobatch"],
        &format!("{TITLE}CLUSTER ST\n1       I\n1       I\n1       I\n3       H\n[exit status: 0]"),
    );
    // -hold's constraint stays; the file shows only the summary.
    check(
        &env,
        &["-hold"],
        "\nTotal for query: 1 jobs; 0 completed, 0 removed, 0 idle, 0 running, 1 held, 0 suspended \n\
         Total for alice: 4 jobs; 0 completed, 0 removed, 3 idle, 0 running, 1 held, 0 suspended \n\
         Total for all users: 6 jobs; 0 completed, 0 removed, 4 idle, 1 running, 1 held, 0 suspended\n\
         \n\
         [exit status: 0]",
    );
    // `-pr !`: the built-in views; the batch view is not the -nobatch view's to replace.
    assert_eq!(
        env.run("condor_q", ["-nobatch", "-pr", "!"]).to_string(),
        builtin_nobatch
    );
    assert_eq!(
        env.run("condor_q", Vec::<&str>::new()).to_string(),
        builtin_batch
    );
    // A knob naming a file that does not exist is not an error.
    let run = env.run("condor_q", ["-run"]);
    assert_eq!((run.stderr.as_str(), run.status), ("", Some(0)), "{run}");
    assert!(
        run.stdout
            .contains(" ID      OWNER            SUBMITTED     RUN_TIME HOST(S)"),
        "{run}"
    );
}
