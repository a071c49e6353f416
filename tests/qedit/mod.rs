//! condor_qedit: restrictions, edits with expression values, one transaction for all.

use crate::common::jobs::{pool, submit};
use crate::common::TestEnvironment;

#[track_caller]
fn check(env: &TestEnvironment, args: &[&str], expected: &str) {
    let out = env.run("condor_qedit", args);
    assert_eq!(out.to_string(), expected, "condor_qedit {args:?}");
}

fn af(env: &TestEnvironment, attrs: &[&str]) -> String {
    let mut args = vec!["-allusers", "-af:jV"];
    args.extend_from_slice(attrs);
    env.run("condor_q", args).stdout
}

/// alice's cluster 1 (two jobs) and cluster 2 (one), bob's cluster 3.
fn jobs() -> TestEnvironment {
    let env = pool();
    submit(&env, "alice", "", &["", ""]);
    submit(&env, "alice", "", &[""]);
    submit(&env, "bob", "", &[""]);
    env
}

#[test]
fn edits_by_id_cluster_and_owner() {
    let env = jobs();
    check(
        &env,
        &["1.1", "Foo", "1 + 2"],
        "Set attribute \"Foo\" for 1 matching jobs.\n[exit status: 0]",
    );
    check(
        &env,
        &["1", "2", "Zed", "\"x\"", "Bar=Foo * 2"],
        "Set attribute \"Bar\" for 3 matching jobs.\nSet attribute \"Zed\" for 3 matching jobs.\n\
         [exit status: 0]",
    );
    check(
        &env,
        &["alice", "Baz", "true"],
        "Set attribute \"Baz\" for 3 matching jobs.\n[exit status: 0]",
    );
    // bob's job is not alice's to edit.
    check(
        &env,
        &["bob", "Baz", "false"],
        "------- stderr -------\nFailed to set attribute \"Baz\" by constraint: ( (Owner==\"bob\") )\n\
         Queue transaction failed.  No attributes were set.\n[exit status: 1]",
    );
    assert_eq!(
        af(&env, &["Foo", "Bar", "Zed", "Baz"]),
        "1.0 undefined undefined \"x\" true\n1.1 3 6 \"x\" true\n\
         2.0 undefined undefined \"x\" true\n3.0 undefined undefined undefined undefined\n"
    );
    // An edit of a whole cluster lands in the cluster ad too.
    let out = env.run("condor_q", ["1.0", "-l:nosort", "-attributes", "Zed,Bar"]);
    assert_eq!(out.stdout, "Bar = Foo * 2\nZed = \"x\"\n\n");
}

#[test]
fn a_constraint_alone_edits_only_my_jobs() {
    let env = jobs();
    check(
        &env,
        &["-constraint", "ProcId == 0", "Mark", "1"],
        "Set attribute \"Mark\" for 2 matching jobs.\n[exit status: 0]",
    );
    assert_eq!(
        af(&env, &["Mark"]),
        "1.0 1\n1.1 undefined\n2.0 1\n3.0 undefined\n"
    );
    check(
        &env,
        &["-constraint", "Owner == \"bob\"", "Mark", "1"],
        "------- stderr -------\nFailed to set attribute \"Mark\" by constraint: ( (Owner == \"bob\") )\n\
         Queue transaction failed.  No attributes were set.\n[exit status: 1]",
    );
}

#[test]
fn one_failure_sets_nothing() {
    let env = jobs();
    check(
        &env,
        &["1.0", "3.0", "A", "1"],
        "------- stderr -------\nFailed to set attribute \"A\" for job 3.0.\n\
         Queue transaction failed.  No attributes were set.\n[exit status: 1]",
    );
    check(
        &env,
        &["1.0", "9.9", "A", "1"],
        "------- stderr -------\nFailed to set attribute \"A\" for job 9.9.\n\
         Queue transaction failed.  No attributes were set.\n[exit status: 1]",
    );
    check(
        &env,
        &["3", "A", "1"],
        "------- stderr -------\nFailed to set attribute \"A\" by constraint: ( (ClusterId == 3 ) )\n\
         Queue transaction failed.  No attributes were set.\n[exit status: 1]",
    );
    assert_eq!(
        af(&env, &["A"]),
        "1.0 undefined\n1.1 undefined\n2.0 undefined\n3.0 undefined\n"
    );
}

#[test]
fn bad_edits_are_refused() {
    let env = jobs();
    check(
        &env,
        &["1", "Owner", "\"mallory\""],
        "------- stderr -------\nUpdate of immutable attribute \"Owner\" is not allowed.\n\
         Transaction failed.  No attributes were set.\n[exit status: 1]",
    );
    check(
        &env,
        &["1", "TotalSubmitProcs", "9"],
        "------- stderr -------\nUpdate of secure attribute \"TotalSubmitProcs\" is not allowed.\n\
         Transaction failed.  No attributes were set.\n[exit status: 1]",
    );
    check(
        &env,
        &["1", "a-b", "1"],
        "------- stderr -------\nUpdate aborted, illegal attribute-name specified for attribute \"a-b\".\n\
         Transaction failed.  No attributes were set.\n[exit status: 1]",
    );
    check(
        &env,
        &["1", "Good", "1 +"],
        "------- stderr -------\nUpdate aborted, illegal value for : Good\n\
         Transaction failed.  No attributes were set.\n[exit status: 1]",
    );
    let out = env.run("condor_qedit", ["1"]);
    assert!(out
        .stderr
        .starts_with("condor_qedit : Error - no attributes specifed.\nUsage: condor_qedit"));
    let out = env.run("condor_qedit", ["1", "A"]);
    assert!(out
        .stderr
        .starts_with("condor_qedit : expression required after attribute A\nUsage:"));
    let out = env.run("condor_qedit", ["-x"]);
    assert!(out
        .stderr
        .starts_with("condor_qedit: -x is not a valid option\nUsage:"));
    assert_eq!(out.status, Some(1));
}

#[test]
fn values_may_look_like_options_and_dry_runs_set_nothing() {
    let env = jobs();
    check(
        &env,
        &["2.0", "Neg", "-5", "Minus", "-x"],
        "Set attribute \"Minus\" for 1 matching jobs.\nSet attribute \"Neg\" for 1 matching jobs.\n\
         [exit status: 0]",
    );
    assert_eq!(
        env.run("condor_q", ["2", "-af:r", "Neg", "Minus"]).stdout,
        "-5  -x\n"
    );
    check(
        &env,
        &["-dry-run", "1", "Q", "1"],
        "Can Set attribute \"Q\" for 2 matching jobs.\n[exit status: 0]",
    );
    assert_eq!(
        af(&env, &["Q"]),
        "1.0 undefined\n1.1 undefined\n2.0 undefined\n3.0 undefined\n"
    );
}

/// A word starting with a digit is a job id however it goes on: qedit reads it as
/// `JOB_ID_KEY` does, keeping what `StrIsProcId` wrote (`1.x` is cluster 1, `2x` job 2.0,
/// `1.1.7` job 1.1).
#[test]
fn job_ids_are_read_as_job_id_key_reads_them() {
    let env = jobs();
    check(
        &env,
        &["1.x", "Foo", "1"],
        "Set attribute \"Foo\" for 2 matching jobs.\n[exit status: 0]",
    );
    check(
        &env,
        &["2x", "1.1.7", "Bar", "2"],
        "Set attribute \"Bar\" for 2 matching jobs.\n[exit status: 0]",
    );
    assert_eq!(
        af(&env, &["Foo", "Bar"]),
        "1.0 1 undefined\n1.1 1 2\n2.0 undefined 2\n3.0 undefined undefined\n"
    );
}
