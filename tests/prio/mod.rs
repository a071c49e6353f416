//! condor_prio: new priorities and adjustments by job, cluster, owner and `-a`; prio.cpp's
//! messages and exit statuses; the attribute-update event.

use crate::common::jobs::{pool, submit};
use crate::common::TestEnvironment;

#[track_caller]
fn check(env: &TestEnvironment, args: &[&str], expected: &str) {
    let out = env.run("condor_prio", args);
    assert_eq!(out.to_string(), expected, "condor_prio {args:?}");
}

/// Every job's `JobPrio`, one `C.P prio` line each.
fn prios(env: &TestEnvironment) -> String {
    env.run("condor_q", ["-allusers", "-af:jV", "JobPrio"])
        .stdout
}

/// alice's cluster 1 (two jobs) and cluster 2 (one), bob's cluster 3.
fn jobs() -> TestEnvironment {
    let env = pool();
    submit(&env, "alice", "", &["", ""]);
    submit(&env, "alice", "", &[""]);
    submit(&env, "bob", "", &[""]);
    env
}

const USAGE: &str = "Usage: condor_prio [{+|-}priority ] [-p priority] [ -a ] [-n schedd_name] \
                     [ -pool pool_name ] [user | cluster | cluster.proc | -a] ...\n";

#[test]
fn sets_and_adjusts_by_job_cluster_owner_and_all() {
    let env = jobs();
    check(&env, &["-p", "10", "1.1"], "[exit status: 0]");
    assert_eq!(prios(&env), "1.0 0\n1.1 10\n2.0 0\n3.0 0\n");
    check(&env, &["+5", "1"], "[exit status: 0]");
    assert_eq!(prios(&env), "1.0 5\n1.1 15\n2.0 0\n3.0 0\n");
    check(&env, &["-3", "alice"], "[exit status: 0]");
    assert_eq!(prios(&env), "1.0 2\n1.1 12\n2.0 -3\n3.0 0\n");
    // -p wins over an adjustment, wherever they are; -p takes a negative value.
    check(&env, &["+1", "-p", "-4", "-2", "2.0"], "[exit status: 0]");
    assert_eq!(prios(&env), "1.0 2\n1.1 12\n2.0 -4\n3.0 0\n");
    // Every job: bob's is not alice's to change, and that is not a failure.
    check(
        &env,
        &["-p", "7", "-a"],
        "------- stderr -------\nCouldn't set new priority for 3.0.\n[exit status: 0]",
    );
    assert_eq!(prios(&env), "1.0 7\n1.1 7\n2.0 7\n3.0 0\n");
}

#[test]
fn a_queue_superuser_changes_anyones_jobs() {
    let mut env = jobs();
    env.set_env("_CONDOR_QUEUE_SUPER_USERS", "root, alice");
    check(&env, &["+2", "bob", "1.0"], "[exit status: 0]");
    assert_eq!(prios(&env), "1.0 2\n1.1 0\n2.0 0\n3.0 2\n");
}

#[test]
fn jobs_that_cannot_be_read_or_set_are_reported_and_skipped() {
    let mut env = jobs();
    check(
        &env,
        &[
            "-p",
            "1",
            "0",
            "1.x",
            "1.-2",
            "_x",
            "9.0",
            "9",
            "1.",
            "4294967295",
        ],
        "------- stderr -------\n\
         Invalid cluster # from 0\n\
         Warning: unrecognized \"1.x\" skipped\n\
         Invalid proc # from 1.-2\n\
         Warning: unrecognized \"_x\" skipped\n\
         Couldn't retrieve current priority for 9.0.\n\
         Invalid cluster # from 4294967295\n\
         [exit status: 0]",
    );
    // `1.` is job 1.0, cluster 9 has no jobs to report, and 4294967295 is -1 as an int.
    assert_eq!(prios(&env), "1.0 1\n1.1 0\n2.0 0\n3.0 0\n");
    // An immutable JobPrio cannot be changed.
    env.set_env("_CONDOR_IMMUTABLE_JOB_ATTRS", "JobPrio");
    check(
        &env,
        &["-p", "3", "1"],
        "------- stderr -------\nCouldn't set new priority for 1.0.\n\
         Couldn't set new priority for 1.1.\n[exit status: 0]",
    );
    assert_eq!(prios(&env), "1.0 1\n1.1 0\n2.0 0\n3.0 0\n");
}

#[test]
fn a_job_without_a_numeric_priority_is_reported() {
    let env = pool();
    submit(&env, "alice", "", &["JobPrio = \"high\"", ""]);
    check(
        &env,
        &["+1", "1"],
        "------- stderr -------\nCouldn't retrieve current proc or priority for 1.\n\
         [exit status: 0]",
    );
    check(
        &env,
        &["+1", "alice", "1.0"],
        "------- stderr -------\nCouldn't retrieve priority for 1.0.\n\
         Couldn't retrieve current priority for 1.0.\n[exit status: 0]",
    );
    assert_eq!(prios(&env), "1.0 \"high\"\n1.1 2\n");
}

#[test]
fn command_line_errors_exit_1() {
    let env = jobs();
    check(
        &env,
        &[],
        &format!("------- stderr -------\n{USAGE}[exit status: 1]"),
    );
    check(
        &env,
        &["1.0"],
        &format!(
            "------- stderr -------\nYou must specify a new priority or priority adjustment.\n\
             {USAGE}[exit status: 1]"
        ),
    );
    check(
        &env,
        &["-p", "1", "-pool", "cm.example.org", "1.0"],
        "------- stderr -------\ncondor_prio: -pool also requires -n to be specified\n\
         [exit status: 1]",
    );
    check(
        &env,
        &["-p", "1", "-n", "other.example.org", "1.0"],
        "------- stderr -------\n\
         condor_prio: No such schedd named other.example.org in local pool\n[exit status: 1]",
    );
    check(
        &env,
        &[
            "-p",
            "1",
            "-n",
            "submit@example.com",
            "-pool",
            "cm.example.org",
            "1.0",
        ],
        "------- stderr -------\n\
         condor_prio: No such schedd named submit@example.com in pool cm.example.org\n\
         [exit status: 1]",
    );
    check(
        &env,
        &["1.0", "-n"],
        "------- stderr -------\ncondor_prio: -n requires an argument\n[exit status: 1]",
    );
    // The schedd is found before the missing priority is noticed.
    check(
        &env,
        &["-n", "other.example.org", "1.0"],
        "------- stderr -------\n\
         condor_prio: No such schedd named other.example.org in local pool\n[exit status: 1]",
    );
    assert_eq!(prios(&env), "1.0 0\n1.1 0\n2.0 0\n3.0 0\n");
    // The local schedd, by its name, through the local pool.
    check(
        &env,
        &[
            "-p",
            "2",
            "-n",
            "submit@example.com",
            "-pool",
            "localhost",
            "1.0",
        ],
        "[exit status: 0]",
    );
    // Options are spelled out: -name is a word like any other, and so is what follows it.
    check(
        &env,
        &["-p", "3", "-name", "1.1"],
        "------- stderr -------\nWarning: unrecognized \"-name\" skipped\n[exit status: 0]",
    );
    assert_eq!(prios(&env), "1.0 2\n1.1 3\n2.0 0\n3.0 0\n");
}

#[test]
fn each_change_is_logged_as_an_attribute_update() {
    let env = pool();
    submit(&env, "alice", "UserLog = \"prio.log\"", &["", ""]);
    check(&env, &["-p", "4", "1.1"], "[exit status: 0]");
    check(&env, &["+1", "1"], "[exit status: 0]");
    let log = std::fs::read_to_string(env.work_dir().join("prio.log")).unwrap();
    // Each event's first line: `033 (C.P.000) <time> Changing job attribute ...`.
    let updates: Vec<(&str, &str)> = log
        .lines()
        .filter(|line| line.starts_with("033 "))
        .map(|line| (&line[..17], &line[line.find("Changing").unwrap_or(0)..]))
        .collect();
    assert_eq!(
        updates,
        [
            (
                "033 (001.001.000)",
                "Changing job attribute JobPrio from 0 to 4"
            ),
            (
                "033 (001.000.000)",
                "Changing job attribute JobPrio from 0 to 1"
            ),
            (
                "033 (001.001.000)",
                "Changing job attribute JobPrio from 4 to 5"
            ),
        ],
        "{log}"
    );
}
