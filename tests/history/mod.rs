//! condor_history: the jobs that left the queue, newest first, in every output form.

use crate::common::jobs::{pool, queue, submit, NOW};
use crate::common::TestEnvironment;
use condorlite::classad::Expr;
use condorlite::queue::{JobId, JobStatus};

#[track_caller]
fn check(env: &TestEnvironment, args: &[&str], expected: &str) {
    let out = env.run("condor_history", args);
    assert_eq!(out.to_string(), expected, "condor_history {args:?}");
}

/// Jobs 1.0 and 1.1 (alice) completed, 2.0 (bob) removed, in that order; 3.0 still queued.
fn finished() -> TestEnvironment {
    let env = pool();
    submit(&env, "alice", "", &["", "Arguments = \"60\""]);
    submit(
        &env,
        "bob",
        "Cmd = \"/usr/bin/python3\"; Arguments = \"train.py\"",
        &[""],
    );
    submit(&env, "alice", "", &[""]);
    let mut q = queue(&env);
    q.transaction(|tx| {
        for (job, wall) in [(JobId::new(1, 0), 3700.0), (JobId::new(1, 1), 59.0)] {
            tx.set_attr(job, "RemoteWallClockTime", Expr::lit(wall))?;
            tx.set_attr(job, "CompletionDate", Expr::lit(NOW - 60))?;
            tx.set_status(job, JobStatus::Completed)?;
            tx.move_to_history(job)?;
        }
        let job = JobId::new(2, 0);
        tx.set_attr(job, "CompletionDate", Expr::lit(0))?;
        tx.set_status(job, JobStatus::Removed)?;
        tx.move_to_history(job).map(|_| ())
    })
    .unwrap();
    env
}

const HEADER: &str = " ID          OWNER            SUBMITTED   RUN_TIME   ST   COMPLETED CMD\n";

#[test]
fn default_columns_newest_first() {
    let env = finished();
    check(
        &env,
        &[],
        &format!(
            "{HEADER}\
             2.0          bob             1/31 11:58   0+00:00:00 X   1/1  00:00 python3 train.py\n\
             1.1          alice           1/31 11:58   0+00:00:59 C   1/31 11:59 sleep 60\n\
             1.0          alice           1/31 11:58   0+01:01:40 C   1/31 11:59 sleep 300\n\
             [exit status: 0]"
        ),
    );
    check(
        &env,
        &["-forwards", "alice"],
        &format!(
            "{HEADER}\
             1.0          alice           1/31 11:58   0+01:01:40 C   1/31 11:59 sleep 300\n\
             1.1          alice           1/31 11:58   0+00:00:59 C   1/31 11:59 sleep 60\n\
             [exit status: 0]"
        ),
    );
}

#[test]
fn an_empty_history_has_only_the_header() {
    let env = pool();
    check(&env, &[], &format!("{HEADER}[exit status: 0]"));
    check(&env, &["-json"], "[\n]\n[exit status: 0]");
}

#[test]
fn ids_owners_constraints_and_limits() {
    let env = finished();
    check(
        &env,
        &["1.1", "2", "-af:j", "Owner"],
        "2.0 bob\n1.1 alice\n[exit status: 0]",
    );
    check(
        &env,
        &["1x", "-af:j", "Owner"],
        "1.1 alice\n1.0 alice\n[exit status: 0]",
    );
    check(
        &env,
        &[
            "-constraint",
            "JobStatus == 4",
            "-af:j",
            "RemoteWallClockTime",
        ],
        "1.1 59.0\n1.0 3700.0\n[exit status: 0]",
    );
    check(
        &env,
        &["-limit", "1", "-af:j", "Owner"],
        "2.0 bob\n[exit status: 0]",
    );
    check(
        &env,
        &["-match", "2", "-af:j"],
        "------- stderr -------\nError: Argument -af requires at least one attribute parameter\n\
         \t\te.g. condor_history -af ClusterId\n[exit status: 1]",
    );
    check(
        &env,
        &["-since", "1.1", "-af:j", "Owner"],
        "2.0 bob\n[exit status: 0]",
    );
    check(
        &env,
        &["-scanlimit", "2", "alice", "-af:j", "Owner"],
        "1.1 alice\n[exit status: 0]",
    );
    // The newest record is a removed job, completed at 0: the scan stops there.
    check(
        &env,
        &["-completedsince", &(NOW - 30).to_string(), "-af:j", "Owner"],
        "[exit status: 0]",
    );
    check(
        &env,
        &["-bogus"],
        "------- stderr -------\nError: Unknown argument -bogus\n[exit status: 1]",
    );
    check(
        &env,
        &["-forwards", "-since", "1.0"],
        "------- stderr -------\nError: Argument -forwards cannot be combined with -since.\n[exit status: 1]",
    );
}

#[test]
fn long_json_xml_and_format() {
    let env = finished();
    check(
        &env,
        &["1.1", "-l", "-attributes", "ProcId,Owner,JobStatus"],
        "JobStatus = 4\nOwner = \"alice\"\nProcId = 1\n\n[exit status: 0]",
    );
    check(
        &env,
        &["1", "-json", "-attributes", "ProcId"],
        "[\n{\n  \"ProcId\": 1\n}\n,\n{\n  \"ProcId\": 0\n}\n]\n[exit status: 0]",
    );
    check(
        &env,
        &["1", "-jsonl", "-attributes", "ProcId"],
        "{\"ProcId\": 1}\n{\"ProcId\": 0}\n[exit status: 0]",
    );
    check(
        &env,
        &["1.0", "-xml", "-attributes", "ProcId"],
        "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n\n\
         <c>\n    <a n=\"ProcId\"><i>0</i></a>\n</c>\n\n</classads>\n\n[exit status: 0]",
    );
    check(
        &env,
        &["-format", "%d.", "ClusterId", "-format", "%d\\n", "ProcId"],
        "2.0\n1.1\n1.0\n[exit status: 0]",
    );
    check(
        &env,
        &["-af:h", "Owner", "ExitCode"],
        "Owner ExitCode\nbob   undefined\nalice undefined\nalice undefined\n[exit status: 0]",
    );
}
