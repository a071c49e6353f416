//! condor_dag_checker end to end: the issues of a DAG in the checker's layout, its shape
//! (`-Statistics`, `-json`: counts by kind, arcs, splices, the depth-first walk's height and
//! widths, the path to a cycle), its options and exit codes.

use std::path::PathBuf;

use crate::common::{CommandOutput, TestEnvironment};

const CHECKER: &str = "condor_dag_checker";

/// A working directory with a submit file the DAGs can name.
fn env() -> TestEnvironment {
    let env = TestEnvironment::new();
    write(&env, "a.sub", "executable = /bin/true\nqueue\n");
    env
}

fn write(env: &TestEnvironment, name: &str, contents: &str) -> PathBuf {
    let path = env.work_dir().join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, contents).unwrap();
    path
}

fn run(env: &TestEnvironment, args: &[&str]) -> CommandOutput {
    env.run(CHECKER, args)
}

/// Four nodes joined many-to-many (a join node), a SERVICE, a FINAL and a SUBDAG node.
const SHAPED: &str = "JOB A a.sub\nJOB B a.sub\nJOB C a.sub\nJOB D a.sub\n\
                      PARENT A B CHILD C D\nSERVICE W a.sub\nFINAL F a.sub\n\
                      SUBDAG EXTERNAL G inner.dag\nPARENT C CHILD G\n";

#[test]
fn a_clean_dag_says_nothing_and_exits_0() {
    let env = env();
    write(&env, "shaped.dag", SHAPED);
    let out = run(&env, &["shaped.dag"]);
    assert_eq!(out.to_string(), "[exit status: 0]", "{out}");
}

#[test]
fn every_issue_is_listed_with_its_file_and_line() {
    let env = env();
    write(
        &env,
        "bad.dag",
        "JOB A a.sub\nJOB A a.sub\nJOB B missing.sub\nPARENT X CHILD A\nRETRY Y 2\nFOO bar\n\
         CONFIG nowhere.conf\nREJECT\n",
    );
    let out = run(&env, &["bad.dag"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(
        out.stdout,
        "Detected 7 issues in bad.dag:\n\
         \t* bad.dag:2 node name 'A' already exists in DAG\n\
         \t* bad.dag:4 Unknown Node X\n\
         \t* bad.dag:5 Unknown Node Y\n\
         \t* bad.dag:6 expected JOB, DATA, SUBDAG, FINAL, SCRIPT, PARENT, RETRY, ABORT-DAG-ON, \
         DOT, VARS, PRIORITY, CATEGORY, MAXJOBS, CONFIG, SET_JOB_ATTR, SPLICE, PROVISIONER, \
         SERVICE, NODE_STATUS_FILE, REJECT, JOBSTATE_LOG, PRE_SKIP, DONE, CONNECT, PIN_IN, \
         PIN_OUT, INCLUDE, SAVE_POINT_FILE orSUBMIT-DESCRIPTION token (found FOO)\n\
         \t* bad.dag:8 DAG marked with REJECT command\n\
         \t* bad.dag:7 Failed to parse CONFIG command: Configuration file nowhere.conf does \
         not exist\n\
         \t* bad.dag:3 node B's submit file missing.sub cannot be read: No such file or \
         directory\n\n"
    );

    // Several files: each its own DAG, each its own list; one bad file fails the run.
    write(&env, "good.dag", "JOB A a.sub\n");
    let out = run(&env, &["good.dag", "nowhere.dag", "good.dag"]);
    assert_eq!(
        out.to_string(),
        "Detected 1 issue in nowhere.dag:\n\
         \t* nowhere.dag:0 Failed to open DAG nowhere.dag: No such file or directory\n\n\
         [exit status: 1]"
    );
}

#[test]
fn statistics_describe_the_dags_shape() {
    let env = env();
    write(&env, "shaped.dag", SHAPED);
    write(
        &env,
        "spliced.dag",
        "SPLICE S1 shaped.dag\nSPLICE S2 chain.dag\nJOB P a.sub\nPARENT P CHILD S2\n",
    );
    write(
        &env,
        "chain.dag",
        "JOB X a.sub\nJOB Y a.sub\nPARENT X CHILD Y\nSPLICE In inner.dag\n",
    );
    write(&env, "inner.dag", "JOB Z a.sub\n");
    let out = run(&env, &["-Statistics", "shaped.dag", "chain.dag"]);
    // The walk meets A, the join node, C, G, D, then B: depths 0 (A, B), 1 (the join
    // node), 2 (C, D), 3 (G). SERVICE and FINAL nodes are counted but not walked.
    assert_eq!(
        out.to_string(),
        "=== shaped.dag statistics ===\n\
         FinalNode = \"F\"\n\
         GraphHeight = 4\n\
         GraphWidth = 2\n\
         NumArcs = 5\n\
         NumJoinNodes = 1\n\
         NumNodes = 4\n\
         NumServiceNodes = 1\n\
         NumSubDAGs = 1\n\
         TotalNodes = 8\n\
         WidthByDepth = { 2,1,2,1 }\n\
         \n\
         === chain.dag statistics ===\n\
         GraphHeight = 2\n\
         GraphWidth = 2\n\
         NumArcs = 1\n\
         NumNodes = 3\n\
         NumSplices = 1\n\
         TotalNodes = 3\n\
         WidthByDepth = { 2,1 }\n\
         \n\
         [exit status: 0]"
    );
    // Without join nodes, the many-to-many PARENT line is four arcs (and the join node's
    // four arcs are gone with it).
    let out = run(&env, &["-stat", "-NoJoin", "shaped.dag"]);
    assert!(out.stdout.contains("NumArcs = 5\n"), "{out}");
    assert!(!out.stdout.contains("NumJoinNodes"), "{out}");
    assert!(out.stdout.contains("WidthByDepth = { 2,2,1 }\n"), "{out}");
}

#[test]
fn a_cycle_is_named_by_the_walk_that_met_it() {
    let env = env();
    write(
        &env,
        "loop.dag",
        "JOB S a.sub\nJOB A a.sub\nJOB B a.sub\nPARENT S CHILD A\nPARENT A CHILD B\n\
         PARENT B CHILD A\n",
    );
    let out = run(&env, &["loop.dag"]);
    assert_eq!(
        out.to_string(),
        "Detected 1 issue in loop.dag:\n\t* loop.dag:0 Cycle detected: S -> A -> B -> A\n\n\
         [exit status: 1]"
    );
    // A cycle no node without parents leads to.
    write(
        &env,
        "island.dag",
        "JOB S a.sub\nJOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\nPARENT B CHILD A\n",
    );
    let out = run(&env, &["-statistics", "island.dag"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stdout
            .contains("DetectedCycle = \"Failed to visit nodes A,B\"\nIsCyclic = true\n"),
        "{out}"
    );
    // Every node has a parent.
    write(
        &env,
        "ring.dag",
        "JOB A a.sub\nJOB B a.sub\nPARENT A CHILD B\nPARENT B CHILD A\n",
    );
    let out = run(&env, &["ring.dag"]);
    assert!(
        out.stdout
            .contains("\t* ring.dag:0 Cycle detected: No initial nodes discovered\n"),
        "{out}"
    );
}

#[test]
fn json_holds_the_shape_and_the_issues() {
    let env = env();
    write(&env, "shaped.dag", SHAPED);
    write(
        &env,
        "bad.dag",
        "JOB A a.sub\nPARENT A CHILD X\nCONFIG x.conf\n",
    );
    let out = run(&env, &["-JSON", "shaped.dag", "bad.dag"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(out
        .stdout
        .starts_with("[\n{\n  \"DagFile\": \"shaped.dag\",\n"));
    assert!(out.stdout.contains("\n},\n{\n"), "{out}");
    assert!(out.stdout.ends_with("\n}\n]\n"), "{out}");
    let results: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let shaped = &results[0];
    assert_eq!(shaped["TotalNodes"], 8);
    assert_eq!(shaped["WidthByDepth"], serde_json::json!([2, 1, 2, 1]));
    assert_eq!(shaped["FinalNode"], "F");
    assert!(shaped.get("Errors").is_none());
    let bad = &results[1];
    assert_eq!(bad["NumErrors"], 2);
    assert_eq!(
        bad["Errors"],
        serde_json::json!([
            {"Reason": "Unknown Node X", "SourceFile": "bad.dag", "SourceLine": 2},
            {
                "Reason": "Configuration file x.conf does not exist",
                "SourceFile": "bad.dag",
                "SourceLine": 3,
                "DagCommand": "CONFIG"
            }
        ])
    );
}

#[test]
fn use_dag_dir_reads_each_dag_in_its_directory() {
    let env = env();
    write(&env, "sub/inner.dag", "JOB A here.sub\n");
    write(&env, "sub/here.sub", "executable = /bin/true\nqueue\n");
    let out = run(&env, &["sub/inner.dag"]);
    assert!(
        out.stdout
            .contains("sub/inner.dag:1 node A's submit file here.sub cannot be read"),
        "{out}"
    );
    let out = run(&env, &["-usedagdir", "sub/inner.dag"]);
    assert_eq!(out.to_string(), "[exit status: 0]");
}

#[test]
fn command_line_errors_exit_2_with_the_usage() {
    let env = env();
    write(&env, "x.dag", "JOB A a.sub\n");
    let usage_start = "Usage: condor_dag_checker [options] <DAG File> [<DAG File> ...]\n";
    let out = run(&env, &[]);
    assert_eq!(out.status, Some(2));
    assert_eq!(out.stderr, "ERROR: No DAG file(s) provided for linting.\n");
    assert!(out.stdout.starts_with(usage_start));
    let out = run(&env, &["-bogus", "x.dag"]);
    assert_eq!(out.status, Some(2));
    assert_eq!(out.stderr, "ERROR: Unknown command line option '-bogus'\n");
    let out = run(&env, &["-json", "-stat", "x.dag"]);
    assert_eq!(out.status, Some(2));
    assert_eq!(
        out.stderr,
        "ERROR: Multiple print styles specified: -json and -stat\n\n"
    );
    let out = run(&env, &["-", "x.dag"]);
    assert_eq!(out.stderr, "ERROR: Invalid option '-' provided\n");
    // Too short a prefix names nothing.
    let out = run(&env, &["-us", "x.dag"]);
    assert_eq!(out.stderr, "ERROR: Unknown command line option '-us'\n");
    let out = run(&env, &["-h"]);
    assert_eq!(out.status, Some(0));
    assert!(out.stdout.starts_with(usage_start));
    assert!(out
        .stdout
        .contains("\t-[No]JoinNodes          Enable/Disable"));
}
