//! DAGs as users run them: `condor_submit_dag` queues DAGMan as a scheduler-universe job and
//! the pool's master runs it (`CONDOR_ID`, the DAG_* attributes, node jobs linked by
//! `DAGManJobId`), with condor_q's views of it, condor_rm, condor_hold/condor_release, a
//! master killed under it, a nested DAG and condor_wait on its nodes log.
//!
//! Every wait is on a condition with a deadline; each test's master stops (and its jobs with
//! it) when the test ends.

use super::{exists, read, sh_job, write};
use crate::common::TestEnvironment;
use crate::pool::{assert_events, count, history_attr, wait_for, Master};

/// Submits `dag` with condor_submit_dag; returns DAGMan's cluster.
pub(super) fn submit_dag(env: &TestEnvironment, args: &[&str]) -> String {
    let out = env.run("condor_submit_dag", args);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix("1 job(s) submitted to cluster "))
        .and_then(|rest| rest.strip_suffix('.'))
        .unwrap_or_else(|| panic!("no cluster in {out}"))
        .to_owned()
}

/// Waits until DAGMan's job has left the queue.
pub(super) fn wait_gone(env: &TestEnvironment, cluster: &str) {
    wait_for("DAGMan to leave the queue", || {
        count(env, &format!("ClusterId == {cluster}")) == 0
    });
}

/// A node job that records its run in `<node>.runs`, then waits for the file `go`.
fn waiting_job(env: &TestEnvironment, name: &str) {
    sh_job(
        env,
        name,
        "echo run >> $(JOB).runs; while [ ! -e go ]; do sleep 0.05; done; echo $(JOB) ran",
    );
}

fn lines_of(env: &TestEnvironment, name: &str) -> usize {
    if exists(env, name) {
        read(env, name).lines().count()
    } else {
        0
    }
}

#[test]
fn condor_submit_dag_runs_the_dag_under_the_master() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    sh_job(&env, "job.sub", "echo $(JOB) ran");
    waiting_job(&env, "wait.sub");
    write(
        &env,
        "diamond.dag",
        "JOB A job.sub\nJOB B wait.sub\nJOB C job.sub\nJOB D job.sub\n\
         PARENT A CHILD B C\nPARENT B C CHILD D\n",
    );
    let dag = submit_dag(&env, &["-batch-name", "nightly", "diamond.dag"]);

    // While B waits: condor_q's batch view is the DAG's, its -dag view nests the nodes.
    wait_for("B to run", || {
        count(&env, "DAGNodeName == \"B\" && JobStatus == 2") == 1
            && count(&env, "DAGNodeName == \"C\"") == 0
    });
    // (DAGMan updates its ad once a second at most.)
    wait_for("DAGMan's ad to count A and C", || {
        count(&env, &format!("ClusterId == {dag} && DAG_NodesDone == 2")) == 1
    });
    let out = env.run("condor_q", ["-batch"]);
    let line = out
        .stdout
        .lines()
        .find(|l| l.contains("nightly"))
        .unwrap_or_else(|| panic!("no DAG line in {out}"));
    let columns: Vec<&str> = line.split_whitespace().collect();
    // OWNER BATCH_NAME SUBMITTED(2) DONE RUN IDLE TOTAL JOB_IDS
    assert_eq!(&columns[4..8], ["2", "1", "_", "4"], "{line}");
    let out = env.run("condor_q", ["-dag", "-nobatch"]);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.contains(" |-B ") && l.contains(" R ")),
        "{out}"
    );
    let universe = env.run(
        "condor_q",
        [dag.as_str(), "-af", "JobUniverse", "DAG_NodesTotal"],
    );
    assert_eq!(universe.stdout.trim(), "7 4");

    write(&env, "go", "");
    wait_gone(&env, &dag);
    assert_eq!(history_attr(&env, &dag, "ExitCode"), "0");
    assert_eq!(history_attr(&env, &dag, "DAG_NodesDone"), "4");
    assert_eq!(history_attr(&env, &dag, "DAG_Status"), "0");
    for node in ["A", "B", "C", "D"] {
        assert_eq!(read(&env, &format!("{node}.out")), format!("{node} ran\n"));
        let out = env.run(
            "condor_history",
            [
                "-constraint",
                &format!("DAGNodeName == \"{node}\""),
                "-af",
                "DAGManJobId",
                "JobUniverse",
            ],
        );
        assert_eq!(out.stdout.trim(), format!("{dag} 5"), "{node}: {out}");
    }
    let out = read(&env, "diamond.dag.dagman.out");
    assert!(out.contains("All jobs Completed!"), "{out}");
    assert!(out.contains("(condor_DAGMAN) pid "));
    assert!(
        out.contains(&format!("condor_scheduniv_exec.{dag}.0")),
        "{out}"
    );
    assert_events(&env, "diamond.dag.dagman.log", &[0, 1, 5]);

    // condor_wait on the nodes log says the DAG's jobs are all done.
    let out = env.run("condor_wait", ["-wait", "30", "diamond.dag.nodes.log"]);
    assert_eq!(out.to_string(), "All jobs done.\n[exit status: 0]");
}

#[test]
fn condor_rm_of_dagman_removes_its_nodes_and_writes_a_rescue_dag() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    sh_job(&env, "job.sub", "echo $(JOB) ran");
    waiting_job(&env, "wait.sub");
    write(
        &env,
        "x.dag",
        "JOB A job.sub\nJOB B wait.sub\nJOB C job.sub\nPARENT A CHILD B\nPARENT B CHILD C\n",
    );
    let dag = submit_dag(&env, &["x.dag"]);
    wait_for("B to run", || {
        count(&env, "DAGNodeName == \"B\" && JobStatus == 2") == 1
    });
    let out = env.run("condor_rm", [dag.as_str()]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_gone(&env, &dag);
    wait_for("the nodes to leave the queue", || {
        count(&env, &format!("DAGManJobId == {dag}")) == 0
    });
    let reason = env.run(
        "condor_history",
        ["-constraint", "DAGNodeName == \"B\"", "-af", "RemoveReason"],
    );
    // DAGMan, signalled, removed it before it left the queue (the schedd's
    // OtherJobRemoveRequirements would otherwise have).
    assert_eq!(
        reason.stdout.trim(),
        "DAG Removed: User removed scheduler job from queue. (by user root)"
    );
    // DAGMan exited 2 (removed), after writing a rescue DAG that marks A done.
    let out = read(&env, "x.dag.dagman.out");
    assert!(out.contains("EXITING WITH STATUS 2"), "{out}");
    let rescue = read(&env, "x.dag.rescue001");
    assert!(rescue.lines().any(|l| l == "DONE A"), "{rescue}");
    assert!(!rescue.lines().any(|l| l == "DONE B"), "{rescue}");
    assert!(!exists(&env, "C.out"));
}

#[test]
fn a_held_dagman_stops_and_recovers_when_released() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    sh_job(&env, "job.sub", "echo $(JOB) ran");
    waiting_job(&env, "wait.sub");
    write(
        &env,
        "h.dag",
        "JOB A wait.sub\nJOB B job.sub\nPARENT A CHILD B\n",
    );
    let dag = submit_dag(&env, &["h.dag"]);
    wait_for("A to run", || {
        count(&env, "DAGNodeName == \"A\" && JobStatus == 2") == 1
    });
    let out = env.run("condor_hold", [dag.as_str()]);
    assert_eq!(out.status, Some(0), "{out}");
    // DAGMan exits 3 (its lock file kept); its node job runs on, and finishes meanwhile.
    wait_for("DAGMan to exit", || {
        read(&env, "h.dag.dagman.out").contains("EXITING WITH STATUS 3")
    });
    assert!(exists(&env, "h.dag.lock"));
    write(&env, "go", "");
    wait_for("A to finish", || count(&env, "DAGNodeName == \"A\"") == 0);
    assert!(!exists(&env, "B.out"));
    // DAGMan's exit is logged once the master has reaped it (a release before that logs
    // the eviction after the release).
    wait_for("DAGMan's eviction", || {
        crate::pool::event_codes(&env, "h.dag.dagman.log").ends_with(&[12, 4])
    });

    let out = env.run("condor_release", [dag.as_str()]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_gone(&env, &dag);
    assert_eq!(history_attr(&env, &dag, "ExitCode"), "0");
    let out = read(&env, "h.dag.dagman.out");
    assert!(out.contains("Running in RECOVERY mode..."), "{out}");
    // A is not run again; B runs once.
    assert_eq!(lines_of(&env, "A.runs"), 1);
    assert_eq!(read(&env, "B.out"), "B ran\n");
    assert_events(&env, "h.dag.dagman.log", &[0, 1, 12, 4, 13, 1, 5]);
}

#[test]
fn dagman_recovers_when_the_master_is_killed() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    sh_job(&env, "job.sub", "echo $(JOB) ran");
    waiting_job(&env, "wait.sub");
    write(
        &env,
        "k.dag",
        "JOB A wait.sub\nJOB B job.sub\nPARENT A CHILD B\n",
    );
    let dag = submit_dag(&env, &["k.dag"]);
    wait_for("A to run", || {
        count(&env, "DAGNodeName == \"A\" && JobStatus == 2") == 1
    });
    master.kill();
    write(&env, "go", "");
    let _master = Master::start(&env);
    wait_gone(&env, &dag);
    assert_eq!(history_attr(&env, &dag, "ExitCode"), "0");
    let out = read(&env, "k.dag.dagman.out");
    assert!(out.contains("Running in RECOVERY mode..."), "{out}");
    // Each node is submitted once, the recovered DAGMan submitting only B. (A's own job may
    // run again: the master that died under it was running it.)
    assert_eq!(out.matches("Submitting HTCondor Node A job(s)").count(), 1);
    assert_eq!(out.matches("Submitting HTCondor Node B job(s)").count(), 1);
    assert_eq!(read(&env, "B.out"), "B ran\n");
}

#[test]
fn a_subdag_runs_as_a_nested_dagman_job() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    sh_job(&env, "job.sub", "echo $(JOB) ran");
    write(&env, "sub/job.sub", &read(&env, "job.sub"));
    write(
        &env,
        "sub/inner.dag",
        "JOB X job.sub\nJOB Y job.sub\nPARENT X CHILD Y\n",
    );
    write(
        &env,
        "outer.dag",
        "JOB A job.sub\nSUBDAG EXTERNAL S inner.dag DIR sub\nJOB C job.sub\n\
         PARENT A CHILD S\nPARENT S CHILD C\n",
    );
    let dag = submit_dag(&env, &["outer.dag"]);
    wait_gone(&env, &dag);
    assert_eq!(history_attr(&env, &dag, "ExitCode"), "0");
    assert_eq!(history_attr(&env, &dag, "DAG_NodesDone"), "3");
    assert_eq!(read(&env, "sub/X.out"), "X ran\n");
    assert_eq!(read(&env, "sub/Y.out"), "Y ran\n");
    assert_eq!(read(&env, "C.out"), "C ran\n");
    // The nested DAGMan is a scheduler-universe node of the outer one; its nodes are its own.
    let out = env.run(
        "condor_history",
        [
            "-constraint",
            "DAGNodeName == \"S\"",
            "-af",
            "JobUniverse",
            "DAGManJobId",
            "ExitCode",
        ],
    );
    assert_eq!(out.stdout.trim(), format!("7 {dag} 0"), "{out}");
    let inner = env.run(
        "condor_history",
        ["-constraint", "DAGNodeName == \"X\"", "-af", "DAGManJobId"],
    );
    let inner_dagman = inner.stdout.trim();
    assert_ne!(inner_dagman, dag);
    assert!(exists(&env, "sub/inner.dag.condor.sub"));
    assert!(read(&env, "sub/inner.dag.dagman.out").contains("All jobs Completed!"));
}

/// The code block of the README that follows the line naming `file`.
fn readme_block(readme: &str, file: &str) -> String {
    let at = readme
        .find(&format!("`{file}`"))
        .unwrap_or_else(|| panic!("the README names no {file}"));
    let rest = &readme[at..];
    let start = rest.find("```\n").expect("a code block") + 4;
    let end = rest[start..].find("```").expect("the block's end");
    rest[start..start + end].to_owned()
}

#[test]
fn the_readme_dag_runs_as_shown() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    write(&env, "hello.sub", &readme_block(&readme, "hello.sub"));
    write(&env, "three.dag", &readme_block(&readme, "three.dag"));
    let out = env.run("condor_submit_dag", ["three.dag"]);
    assert_eq!(out.status, Some(0), "{out}");
    let out = env.run("condor_wait", ["-wait", "60", "three.dag.dagman.log"]);
    assert_eq!(out.status, Some(0), "{out}");
    for node in ["A", "B", "C"] {
        assert_eq!(
            read(&env, &format!("{node}.out")),
            format!("node {node} ran\n")
        );
    }
    let log = read(&env, "three.dag.dagman.out");
    // The last status table's counts (what the README's grep shows).
    let lines: Vec<&str> = log.lines().collect();
    let at = lines
        .iter()
        .rposition(|l| l.ends_with("Of 3 nodes total:"))
        .expect("a status table");
    let table = lines[at + 3];
    let counts: Vec<&str> = table.split_whitespace().skip(2).collect();
    assert_eq!(counts, ["3", "0", "0", "0", "0", "0", "0", "0"], "{table}");
}
