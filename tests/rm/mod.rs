//! condor_rm, condor_hold and condor_release: per-job and bulk results, their exit
//! statuses, what the jobs become (attributes, the history), and the events in their logs.

use crate::common::jobs::{pool, submit};
use crate::common::TestEnvironment;

#[track_caller]
fn check(env: &TestEnvironment, tool: &str, args: &[&str], expected: &str) {
    let out = env.run(tool, args);
    assert_eq!(out.to_string(), expected, "{tool} {args:?}");
}

/// alice's cluster 1 (three jobs, logging to `job.log`), bob's cluster 2 (one job).
fn jobs() -> TestEnvironment {
    let env = pool();
    submit(&env, "alice", r#"UserLog = "job.log""#, &["", "", ""]);
    submit(&env, "bob", "", &[""]);
    env
}

fn af(env: &TestEnvironment, args: &[&str]) -> String {
    let mut all = vec!["-allusers"];
    all.extend_from_slice(args);
    env.run("condor_q", all).stdout
}

#[test]
fn per_job_results_go_to_stdout_and_stderr() {
    let env = jobs();
    check(
        &env,
        "condor_hold",
        &["1.0", "1.7", "2.0", "1.1"],
        "Job 1.0 held\nJob 1.1 held\n------- stderr -------\nJob 1.7 not found\n\
         Permission denied to hold job 2.0\n[exit status: 0]",
    );
    check(
        &env,
        "condor_hold",
        &["1.0"],
        "------- stderr -------\n\nJob 1.0 already held\n[exit status: 1]",
    );
    check(
        &env,
        "condor_release",
        &["1.2"],
        "------- stderr -------\n\nJob 1.2 not held to be released\n[exit status: 1]",
    );
    check(
        &env,
        "condor_release",
        &["1.0", "1.1"],
        "Job 1.0 released\nJob 1.1 released\n[exit status: 0]",
    );
    check(
        &env,
        "condor_rm",
        &["1.0", "2.0"],
        "Job 1.0 marked for removal\n------- stderr -------\n\
         Permission denied to remove job 2.0\n[exit status: 0]",
    );
    check(
        &env,
        "condor_rm",
        &["1.0"],
        "------- stderr -------\n\nJob 1.0 not found\n[exit status: 1]",
    );
}

#[test]
fn bad_ids_are_reported_and_others_still_acted_on() {
    let env = jobs();
    check(
        &env,
        "condor_hold",
        &["0", "1.0", "1.x.2"],
        "Job 1.0 held\n------- stderr -------\nInvalid cluster # from 0.\n\n\n\
         Couldn't find/hold all jobs of user \"1.x.2\"\n[exit status: 1]",
    );
    let out = env.run("condor_hold", ["-1"]);
    assert!(
        out.stderr
            .starts_with("Unrecognized option: -1\nUsage: condor_hold"),
        "{out}"
    );
    assert_eq!(out.status, Some(1));
}

#[test]
fn clusters_owners_constraints_and_all() {
    let env = jobs();
    check(
        &env,
        "condor_hold",
        &["1"],
        "All jobs in cluster 1 have been held\n[exit status: 0]",
    );
    check(
        &env,
        "condor_release",
        &["alice"],
        "All jobs of user \"alice\" have been released\n[exit status: 0]",
    );
    check(
        &env,
        "condor_hold",
        &["-constraint", "ProcId > 0"],
        "All jobs matching constraint (ProcId > 0) have been held\n[exit status: 0]",
    );
    check(
        &env,
        "condor_release",
        &["-all"],
        "All jobs have been released\n[exit status: 0]",
    );
    check(
        &env,
        "condor_hold",
        &["1", "2", "-const", "true"],
        "All jobs matching constraint ((true) && (ClusterId == 1 || ClusterId == 2)) have been held\n\
         [exit status: 0]",
    );
    // Nothing to act on: bob's job is not alice's to release.
    check(
        &env,
        "condor_release",
        &["2"],
        "------- stderr -------\n\nCouldn't find/release all jobs in cluster 2\n[exit status: 1]",
    );
    check(
        &env,
        "condor_rm",
        &["-held", "alice"],
        "All held jobs of user \"alice\" have been marked for removal\n[exit status: 0]",
    );
    assert_eq!(af(&env, &["-af:j", "JobStatus"]), "2.0 1\n");
}

#[test]
fn an_empty_queue_is_no_error() {
    let env = pool();
    check(
        &env,
        "condor_rm",
        &["-all"],
        "------- stderr -------\ncondor_rm:0:There are no jobs in the queue\n[exit status: 0]",
    );
    check(
        &env,
        "condor_hold",
        &["5"],
        "------- stderr -------\ncondor_hold:0:There are no jobs in the queue\n[exit status: 0]",
    );
}

#[test]
fn usage_errors() {
    let env = jobs();
    let out = env.run("condor_rm", Vec::<&str>::new());
    assert_eq!(out.status, Some(1));
    assert!(out
        .stderr
        .starts_with("You did not specify any jobs\nUsage: condor_rm [options] [constraints]\n"));
    let out = env.run("condor_hold", ["1", "-all"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\ncondor_hold: can't mix -all with other constraints\n[exit status: 1]"
    );
    let out = env.run("condor_hold", ["-subcode", "x", "1"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nInvalid -subcode x!\n[exit status: 1]"
    );
    let out = env.run("condor_hold", ["-forcex", "1"]);
    assert!(out
        .stderr
        .starts_with("-forcex is only valid with condor_rm\nUsage: condor_hold"));
    let out = env.run("condor_rm", ["-constraint", "-1 > 0"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\ncondor_rm: -constraint requires another argument\n[exit status: 1]"
    );
}

/// `-name`: the local schedd by its name; any other name fails as HTCondor's tools fail with
/// no such schedd in the pool, before acting on anything (dask-jobqueue's
/// `test_extra_args_broken_cancel` relies on a `condor_rm -name wrong.docker` failing and
/// leaving the job).
#[test]
fn the_schedd_is_named_with_name() {
    let mut env = jobs();
    check(
        &env,
        "condor_rm",
        &["-name", "wrong.docker", "1.0"],
        "------- stderr -------\nError: cannot get address of schedd wrong.docker\n\
         [exit status: 1]",
    );
    check(
        &env,
        "condor_hold",
        &["1", "-name", "other@example.com"],
        "------- stderr -------\nError: cannot get address of schedd example.com\n\
         [exit status: 1]",
    );
    assert_eq!(
        af(&env, &["-af", "ProcId", "JobStatus"]),
        "0 1\n1 1\n2 1\n0 1\n"
    );
    // Nothing to act on is reported first, as rm.cpp looks the schedd up after the arguments.
    let out = env.run("condor_rm", ["-name", "wrong.docker"]);
    assert!(
        out.stderr.starts_with("You did not specify any jobs\n"),
        "{out}"
    );
    // The local schedd, by its name or (-n) abbreviated; the last -name counts.
    check(
        &env,
        "condor_hold",
        &["-n", "wrong.docker", "-name", "submit@example.com", "1.0"],
        "Job 1.0 held\n[exit status: 0]",
    );
    check(
        &env,
        "condor_rm",
        &["-name", "SUBMIT@example.com", "1.1"],
        "Job 1.1 marked for removal\n[exit status: 0]",
    );
    // A host name that does not resolve (no DNS, no DEFAULT_DOMAIN_NAME) stops the tool
    // where -name is read.
    env.set_env("_CONDOR_NO_DNS", "true");
    check(
        &env,
        "condor_release",
        &["-name", "nosuchhost", "1.0"],
        "------- stderr -------\ncondor_release: unknown host nosuchhost\n[exit status: 1]",
    );
    assert_eq!(af(&env, &["-af", "ProcId", "JobStatus"]), "0 5\n2 1\n0 1\n");
}

#[test]
fn totals_and_long_results() {
    let env = jobs();
    check(
        &env,
        "condor_hold",
        &["-totals", "-all"],
        "3 Succeeded, 0 Failed, 0 Not Found, 0 Bad Status, 0 Already Done, 1 Permission Denied\n\
         All jobs have been held\n[exit status: 0]",
    );
    // A list of ids asks for per-job results, which carry no totals (as in HTCondor).
    check(
        &env,
        "condor_release",
        &["-totals", "1.0"],
        "0 Succeeded, 0 Failed, 0 Not Found, 0 Bad Status, 0 Already Done, 0 Permission Denied\n\
         Job 1.0 released\n[exit status: 0]",
    );
    check(
        &env,
        "condor_release",
        &["-long", "1.1", "1.0"],
        "ActionResult = 1\nActionResultType = 1\nIsQueueSuperUser = false\nJobAction = 2\n\
         TotalJobAds = 4\njob_1_0 = 3\njob_1_1 = 1\n\nJob 1.1 released\n------- stderr -------\n\
         Job 1.0 not held to be released\n[exit status: 0]",
    );
    // A constraint with -long asks for per-job results too.
    check(
        &env,
        "condor_hold",
        &["-long", "2"],
        "ActionResult = 0\nActionResultType = 1\nIsQueueSuperUser = false\nJobAction = 1\n\
         TotalJobAds = 4\njob_2_0 = 5\n\n------- stderr -------\n\n\
         Couldn't find/hold all jobs in cluster 2\n[exit status: 1]",
    );
}

#[test]
fn hold_and_release_set_the_schedds_attributes() {
    let env = jobs();
    check(
        &env,
        "condor_hold",
        &["-reason", "maintenance", "-subcode", "7", "1.0"],
        "Job 1.0 held\n[exit status: 0]",
    );
    let attrs = [
        "-af:V",
        "JobStatus",
        "HoldReason",
        "HoldReasonCode",
        "HoldReasonSubCode",
        "NumHolds",
        "NumHoldsByReason",
        "LastJobStatus",
        "EnteredCurrentStatus",
        "LastSuspensionTime",
    ];
    let mut args = vec!["1.0"];
    args.extend_from_slice(&attrs);
    assert_eq!(
        env.run("condor_q", &args).stdout,
        "5 \"maintenance (by user alice)\" 1 7 1 [ UserRequest = 1 ] 1 1706702400 0\n"
    );
    check(
        &env,
        "condor_release",
        &["1.0"],
        "Job 1.0 released\n[exit status: 0]",
    );
    let out = env.run(
        "condor_q",
        [
            "1.0",
            "-af:V",
            "JobStatus",
            "ReleaseReason",
            "HoldReason",
            "LastHoldReason",
            "LastHoldReasonCode",
            "LastHoldReasonSubCode",
        ],
    );
    assert_eq!(
        out.stdout,
        "1 \"via condor_release (by user alice)\" undefined \"maintenance (by user alice)\" 1 7\n"
    );
    // A second hold counts up, and moves the release reason aside.
    check(
        &env,
        "condor_hold",
        &["1.0"],
        "Job 1.0 held\n[exit status: 0]",
    );
    let out = env.run(
        "condor_q",
        [
            "1.0",
            "-af:V",
            "NumHolds",
            "NumHoldsByReason",
            "LastReleaseReason",
            "ReleaseReason",
        ],
    );
    assert_eq!(
        out.stdout,
        "2 [ UserRequest = 2 ] \"via condor_release (by user alice)\" undefined\n"
    );
}

#[test]
fn removed_jobs_leave_the_queue_for_the_history() {
    let env = pool();
    submit(&env, "alice", "", &["", "LeaveJobInQueue = true"]);
    check(
        &env,
        "condor_rm",
        &["1"],
        "All jobs in cluster 1 have been marked for removal\n[exit status: 0]",
    );
    // The job that asked to stay is still in the queue, removed.
    assert_eq!(
        af(&env, &["-af:j", "JobStatus", "RemoveReason"]),
        "1.1 3 via condor_rm (by user alice)\n"
    );
    assert_eq!(
        env.run("condor_history", ["-af:j", "JobStatus", "RemoveReason"])
            .stdout,
        "1.0 3 via condor_rm (by user alice)\n"
    );
    check(
        &env,
        "condor_rm",
        &["1.1"],
        "------- stderr -------\n\nJob 1.1 already marked for removal\n[exit status: 1]",
    );
    check(
        &env,
        "condor_rm",
        &["-forcex", "1.0", "1.1"],
        "Job 1.1 removed locally (remote state unknown)\n------- stderr -------\n\
         Job 1.0 not found\n[exit status: 0]",
    );
    assert_eq!(af(&env, &["-af:j", "JobStatus"]), "");
    assert_eq!(
        env.run("condor_history", ["-af:j", "RemoveReason", "LeaveJobInQueue"]).stdout,
        "1.1 via condor_rm -forcex (by user alice) false\n1.0 via condor_rm (by user alice) false\n"
    );
}

#[test]
fn the_jobs_event_log_records_each_action() {
    let env = jobs();
    env.run("condor_hold", ["1.0"]);
    env.run("condor_release", ["1.0"]);
    env.run("condor_rm", ["-reason", "done with it", "1.0"]);
    env.run("condor_hold", ["2.0"]);
    let log = std::fs::read_to_string(env.work_dir().join("job.log")).expect("the job's log");
    assert_eq!(
        log,
        "012 (001.000.000) 2024-01-31 12:00:00 Job was held.\n\
         \tvia condor_hold (by user alice)\n\
         \tCode 1 Subcode 0\n\
         ...\n\
         013 (001.000.000) 2024-01-31 12:00:00 Job was released.\n\
         \tvia condor_release (by user alice)\n\
         ...\n\
         009 (001.000.000) 2024-01-31 12:00:00 Job was aborted.\n\
         \tdone with it (by user alice)\n\
         ...\n"
    );
}

#[test]
fn queue_superusers_may_act_on_anyones_jobs() {
    let mut env = jobs();
    env.set_env("_CONDOR_QUEUE_SUPER_USERS", "root, alice");
    check(
        &env,
        "condor_hold",
        &["2.0"],
        "Job 2.0 held\n[exit status: 0]",
    );
    assert_eq!(
        af(&env, &["2", "-af", "HoldReason"]),
        "via condor_hold (by user alice)\n"
    );
}
