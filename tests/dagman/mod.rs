//! DAGs run end to end: condor_dagman run by hand (no master: it runs the pool in its own
//! process) on the cases of HTCondor's own DAGMan tests (src/condor_tests/job_dagman_*,
//! test_dagman_*), checking what their .run and .py files check: which node jobs ran and in
//! what order, their outputs, the exit code, dagman.out's lines, the rescue DAG, the node
//! status file and the jobstate log.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::TestEnvironment;

mod pooled;
mod ported;

/// How long a DAG may take before the test gives up (the DAGs here take well under a second).
const DEADLINE: Duration = Duration::from_secs(60);

fn env() -> TestEnvironment {
    TestEnvironment::new()
}

fn write(env: &TestEnvironment, name: &str, contents: &str) -> PathBuf {
    let path = env.work_dir().join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, contents).unwrap();
    path
}

/// A shell script, executable.
fn script(env: &TestEnvironment, name: &str, body: &str) {
    let path = write(env, name, &format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn read(env: &TestEnvironment, name: &str) -> String {
    std::fs::read_to_string(env.work_dir().join(name))
        .unwrap_or_else(|e| panic!("reading {name}: {e}"))
}

fn exists(env: &TestEnvironment, name: &str) -> bool {
    env.work_dir().join(name).exists()
}

/// A submit file running `cmd` through /bin/sh, its output in `<node>.out`.
fn sh_job(env: &TestEnvironment, name: &str, cmd: &str) {
    write(
        env,
        name,
        &format!(
            "executable = /bin/sh\narguments = \"-c '{cmd}'\"\noutput = $(JOB).out\nerror = $(JOB).err\nlog = job.log\nqueue\n"
        ),
    );
}

/// Runs `condor_dagman -Dag <dag>` (as condor_submit_dag's submit file would, logging to
/// `<dag>.dagman.out`) to its end; returns its exit code.
fn run_dag(env: &TestEnvironment, dag: &str, extra: &[&str]) -> i32 {
    run_dag_with(env, dag, extra, &[])
}

/// [`run_dag`] with more environment variables, such as `_CONDOR_DAGMAN_CONFIG_FILE` for
/// the DAG's CONFIG file (condor_submit_dag's submit file sets it; condor_dagman itself
/// reads only `DAGMAN_CONFIG_FILE`, in HTCondor too).
fn run_dag_with(env: &TestEnvironment, dag: &str, extra: &[&str], vars: &[(&str, &str)]) -> i32 {
    let child = spawn_dag(env, dag, extra, vars);
    wait_dag(env, dag, child)
}

/// Starts [`run_dag_with`]'s condor_dagman without waiting for it.
fn spawn_dag(
    env: &TestEnvironment,
    dag: &str,
    extra: &[&str],
    vars: &[(&str, &str)],
) -> std::process::Child {
    let mut cmd = env.command("condor_dagman");
    cmd.envs(vars.iter().copied());
    cmd.args(["-p", "0", "-f", "-l", ".", "-Lockfile"])
        .arg(format!("{dag}.lock"))
        .arg("-Dag")
        .arg(dag)
        .args(extra)
        .env("_CONDOR_DAGMAN_LOG", format!("{dag}.dagman.out"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd.spawn().expect("condor_dagman runs")
}

/// Waits for a [`spawn_dag`]ed condor_dagman to end (killing it after [`DEADLINE`]);
/// returns its exit code.
fn wait_dag(env: &TestEnvironment, dag: &str, mut child: std::process::Child) -> i32 {
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "condor_dagman did not finish:\n{}",
                std::fs::read_to_string(env.work_dir().join(format!("{dag}.dagman.out")))
                    .unwrap_or_default()
            );
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// dagman.out without its time stamps.
fn dagman_out(env: &TestEnvironment, dag: &str) -> Vec<String> {
    read(env, &format!("{dag}.dagman.out"))
        .lines()
        .map(|l| l.get(18..).unwrap_or("").to_owned())
        .collect()
}

fn contains(lines: &[String], want: &str) -> bool {
    lines.iter().any(|l| l == want)
}

/// The node names in the order their jobs were submitted.
fn submitted(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("Submitting HTCondor Node "))
        .map(|l| l.trim_end_matches(" job(s)...").to_owned())
        .collect()
}

#[test]
fn diamond_runs_and_writes_htcondors_files() {
    // job_dagman_basic.
    let env = env();
    sh_job(&env, "node.sub", "echo $(JOB)");
    write(
        &env,
        "diamond.dag",
        "JOB A node.sub\nJOB B node.sub\nJOB C node.sub\nJOB D node.sub\n\
         PARENT A CHILD B C\nPARENT B C CHILD D\n\
         NODE_STATUS_FILE diamond.status\nJOBSTATE_LOG diamond.jobstate\n",
    );
    assert_eq!(run_dag(&env, "diamond.dag", &[]), 0);
    let out = dagman_out(&env, "diamond.dag");
    assert_eq!(submitted(&out), ["A", "B", "C", "D"]);
    assert!(contains(&out, "All jobs Completed!"), "{out:#?}");
    assert!(out.last().unwrap().ends_with("EXITING WITH STATUS 0"));
    for node in ["A", "B", "C", "D"] {
        assert_eq!(read(&env, &format!("{node}.out")), format!("{node}\n"));
    }
    assert!(!exists(&env, "diamond.dag.rescue001"));
    assert!(
        !exists(&env, "diamond.dag.lock"),
        "the lock goes with a finished DAG"
    );

    // The status table, as print_status formats it.
    let i = out.iter().rposition(|l| l == "Of 4 nodes total:").unwrap();
    assert_eq!(
        out[i + 1..i + 5],
        [
            " Done     Pre   Queued    Post   Ready   Un-Ready   Failed   Futile",
            "  ===     ===      ===     ===     ===        ===      ===      ===",
            "    4       0        0       0       0          0        0        0",
            "0 job proc(s) currently held",
        ]
    );

    // The node status file.
    let status = read(&env, "diamond.status");
    assert!(
        status.contains("  DagStatus = 5; /* \"STATUS_DONE (success)\" */\n"),
        "{status}"
    );
    assert!(
        status.contains("  NodesTotal = 4;\n  NodesDone = 4;\n"),
        "{status}"
    );
    assert!(status.contains("  Node = \"D\";\n  NodeStatus = 5; /* \"STATUS_DONE\" */\n"));
    assert!(status.contains("  NextUpdate = 0; /* \"none\" */\n"));

    // The jobstate log: `<time> <node> <event> <id> <tag> - <seq>`.
    let js = read(&env, "diamond.jobstate");
    let lines: Vec<Vec<&str>> = js.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(
        lines[0][1..],
        ["INTERNAL", "***", "DAGMAN_STARTED", "-1.-1", "***"]
    );
    assert_eq!(
        lines.last().unwrap()[1..],
        ["INTERNAL", "***", "DAGMAN_FINISHED", "0", "***"]
    );
    let a: Vec<String> = lines
        .iter()
        .filter(|l| l[1] == "A")
        .map(|l| {
            format!(
                "{} {} {} - {}",
                l[2],
                l[3].replace(|c: char| c.is_ascii_digit(), "N"),
                l[4],
                l[6]
            )
        })
        .collect();
    assert_eq!(
        a,
        [
            "SUBMIT N.N - - 1",
            "EXECUTE N.N - - 1",
            "JOB_TERMINATED N.N - - 1",
            "JOB_SUCCESS N - - 1"
        ]
    );

    // The metrics file, key by key.
    let metrics: serde_json::Value =
        serde_json::from_str(&read(&env, "diamond.dag.metrics")).unwrap();
    assert_eq!(metrics["client"], "condor_dagman");
    assert_eq!(metrics["version"], "24.0.24");
    assert_eq!(metrics["exitcode"], 0);
    assert_eq!(metrics["jobs"], 4);
    assert_eq!(metrics["jobs_succeeded"], 4);
    assert_eq!(metrics["total_jobs_run"], 4);
    assert_eq!(metrics["DagStatus"], 0);
    let keys: Vec<&str> = metrics
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "client",
            "version",
            "type",
            "start_time",
            "end_time",
            "duration",
            "exitcode",
            "dagman_id",
            "parent_dagman_id",
            "rescue_dag_number",
            "jobs",
            "jobs_failed",
            "jobs_succeeded",
            "dag_jobs",
            "dag_jobs_failed",
            "dag_jobs_succeeded",
            "total_jobs",
            "total_jobs_run",
            "DagStatus"
        ]
    );
}

/// condor_dagman run by hand, with no master, runs the DAG's jobs in a pool of its own and
/// no other job of the queue.
#[test]
fn a_dag_run_by_hand_runs_only_its_own_jobs() {
    let env = env();
    write(
        &env,
        "other.sub",
        "executable = /bin/sh\narguments = \"-c 'touch other.ran'\"\nqueue\n",
    );
    let out = env.run("condor_submit", ["other.sub"]);
    assert_eq!(out.status, Some(0), "{out}");
    sh_job(&env, "job.sub", "echo $(JOB) ran");
    write(
        &env,
        "own.dag",
        "JOB A job.sub\nJOB B job.sub\nPARENT A CHILD B\n",
    );
    assert_eq!(run_dag(&env, "own.dag", &[]), 0);
    assert_eq!(read(&env, "B.out"), "B ran\n");
    assert!(!exists(&env, "other.ran"));
    let q = env.run(
        "condor_q",
        ["-allusers", "-af", "JobStatus", "NumJobStarts"],
    );
    assert_eq!(q.stdout, "1 0\n", "{q}");
}

#[test]
fn the_nodes_log_reads_with_htcondors_reader() {
    let env = env();
    sh_job(&env, "node.sub", "true");
    write(
        &env,
        "x.dag",
        "JOB A node.sub\nJOB B node.sub NOOP\nPARENT A CHILD B\nSCRIPT POST A /bin/true\n",
    );
    assert_eq!(run_dag(&env, "x.dag", &[]), 0);
    let log = read(&env, "x.dag.nodes.log");
    assert!(log.contains("    DAG Node: A\n"), "{log}");
    assert!(
        log.contains("Job submitted from host: <dummy-submit-for-noop-job>"),
        "{log}"
    );
    assert!(
        log.contains(
            "POST Script terminated.\n\t(1) Normal termination (return value 0)\n    DAG Node: A\n"
        ),
        "{log}"
    );
    // HTCondor's own reader takes every event, DAGMan's own included.
    if crate::pool::reference_available() {
        let path = env.work_dir().join("x.dag.nodes.log");
        let theirs: Vec<String> =
            crate::pool::reference_lines(crate::pool::READ_WITH_REFERENCE, &path)
                .iter()
                .map(|l| l.split(' ').next().unwrap().to_owned())
                .collect();
        let ours: Vec<String> = condorlite::eventlog::read_events(&path)
            .unwrap()
            .iter()
            .map(|e| e.number().to_string())
            .collect();
        assert_eq!(theirs, ours);
        assert!(
            ours.contains(&"16".to_owned()),
            "the POST_SCRIPT_TERMINATED event"
        );
    }
}

#[test]
fn retries_then_a_rescue_dag() {
    // job_dagman_retry: the job always fails; RETRY 1 gives two attempts, its POST script
    // gets $RETURN and fails too; the DAG fails with a rescue DAG.
    let env = env();
    sh_job(&env, "fail.sub", "exit 1");
    script(&env, "post.sh", "echo \"$1 $2\" >> post.log; exit $1");
    write(
        &env,
        "retry.dag",
        "JOB NODERET fail.sub\nSCRIPT POST NODERET post.sh $RETURN $RETRY\nRETRY NODERET 1\n",
    );
    assert_eq!(run_dag(&env, "retry.dag", &[]), 1);
    let out = dagman_out(&env, "retry.dag");
    assert_eq!(submitted(&out), ["NODERET", "NODERET"]);
    assert_eq!(read(&env, "post.log"), "1 0\n1 1\n");
    assert!(
        contains(&out, "Retrying node NODERET (retry #1 of 1)..."),
        "{out:#?}"
    );
    assert!(contains(&out, "ERROR: the following job(s) failed:"));
    assert!(contains(
        &out,
        "Writing Rescue DAG to retry.dag.rescue001..."
    ));
    assert!(out.last().unwrap().ends_with("EXITING WITH STATUS 1"));
    let rescue = read(&env, "retry.dag.rescue001");
    let body: Vec<&str> = rescue
        .lines()
        .filter(|l| !l.starts_with("# Created"))
        .collect();
    assert_eq!(
        body,
        [
            "# Rescue DAG file, created after running",
            "#   the retry.dag DAG file",
            "# Rescue DAG version: 2.0.1 (partial)",
            "#",
            "# Total number of Nodes: 1",
            "# Nodes premarked DONE: 0",
            "# Nodes that failed: 1",
            "#   NODERET,<ENDLIST>",
            "",
            "RETRY NODERET 1",
        ]
    );
}

#[test]
fn a_rescue_dag_runs_only_what_did_not_finish() {
    // job_dagman_rescue: the failed node and what follows it run again, nothing else.
    let env = env();
    sh_job(&env, "ok.sub", "echo $(JOB) >> ran.log");
    sh_job(&env, "flaky.sub", "echo $(JOB) >> ran.log; test -e fixed");
    write(
        &env,
        "r.dag",
        "JOB A ok.sub\nJOB B flaky.sub\nJOB C ok.sub\nJOB D ok.sub\nPARENT A CHILD B C\nPARENT B CHILD D\n",
    );
    assert_eq!(run_dag(&env, "r.dag", &[]), 1);
    let rescue = read(&env, "r.dag.rescue001");
    assert!(rescue.contains("# Nodes premarked DONE: 2\n# Nodes that failed: 1\n#   B,<ENDLIST>\n\nDONE A\nDONE C\n"), "{rescue}");
    write(&env, "fixed", "");
    std::fs::remove_file(env.work_dir().join("ran.log")).unwrap();
    assert_eq!(run_dag(&env, "r.dag", &[]), 0);
    assert_eq!(read(&env, "ran.log"), "B\nD\n");
    let out = dagman_out(&env, "r.dag");
    assert!(
        contains(&out, "USING RESCUE DAG r.dag.rescue001"),
        "{out:#?}"
    );
}

#[test]
fn abort_dag_on_stops_the_dag() {
    // job_dagman_abort-A: C exits 5; `ABORT-DAG-ON C 5 RETURN 0` beats its retries.
    let env = env();
    sh_job(&env, "ok.sub", "true");
    sh_job(&env, "five.sub", "exit 5");
    write(
        &env,
        "a.dag",
        "NODE_STATUS_FILE a.status 600\nJOB A ok.sub\nJOB B ok.sub\nJOB C five.sub\nJOB D ok.sub\n\
         PARENT A CHILD B\nPARENT B CHILD C\nPARENT C CHILD D\nRetry C 3\nAbort-dag-on C 5 return 0\n",
    );
    assert_eq!(run_dag(&env, "a.dag", &[]), 0);
    let out = dagman_out(&env, "a.dag");
    assert_eq!(submitted(&out), ["A", "B", "C"]);
    assert!(contains(
        &out,
        "Aborting DAG because we got the ABORT exit value from a job"
    ));
    assert!(
        !exists(&env, "a.dag.rescue001"),
        "exit code 0 writes no rescue DAG"
    );
    let status = read(&env, "a.status");
    assert!(
        status.contains("DagStatus = 5; /* \"STATUS_DONE (success)\" */"),
        "{status}"
    );
    // RETURN 3 exits 3.
    write(
        &env,
        "a.dag",
        &read(&env, "a.dag").replace("return 0", "return 3"),
    );
    std::fs::remove_file(env.work_dir().join("a.dag.dagman.out")).unwrap();
    assert_eq!(run_dag(&env, "a.dag", &[]), 3);
}

#[test]
fn final_node_and_dag_status() {
    // job_dagman_final-B: B_B fails; the FINAL node's scripts and job see DAG_STATUS 2 and
    // FAILED_COUNT 1; the FINAL node fails too, and the DAG with it.
    let env = env();
    sh_job(&env, "ok.sub", "true");
    sh_job(&env, "fail.sub", "exit 1");
    write(
        &env,
        "final.sub",
        "executable = /bin/sh\narguments = \"-c 'echo $(DAG_STATUS) $(FAILED_COUNT); exit 1'\"\noutput = final.out\nqueue\n",
    );
    script(&env, "pre.sh", "echo \"$@\" > pre.out");
    write(
        &env,
        "f.dag",
        "JOB B_A ok.sub\nJOB B_B fail.sub\nPARENT B_A CHILD B_B\nFINAL B_C final.sub\nSCRIPT PRE B_C pre.sh $DAG_STATUS $FAILED_COUNT\n",
    );
    assert_eq!(run_dag(&env, "f.dag", &[]), 1);
    assert_eq!(read(&env, "pre.out"), "2 1\n");
    assert_eq!(read(&env, "final.out"), "2 1\n");
    let rescue = read(&env, "f.dag.rescue001");
    assert!(rescue.contains("# Total number of Nodes: 3\n# Nodes premarked DONE: 1\n# Nodes that failed: 2\n#   B_B,B_C,<ENDLIST>\n\nDONE B_A\n"), "{rescue}");
    // A FINAL node that succeeds makes the DAG succeed.
    write(
        &env,
        "final.sub",
        &read(&env, "final.sub").replace("exit 1", "exit 0"),
    );
    for f in ["f.dag.rescue001", "f.dag.dagman.out"] {
        std::fs::remove_file(env.work_dir().join(f)).unwrap();
    }
    assert_eq!(run_dag(&env, "f.dag", &[]), 0);
}

#[test]
fn vars_reach_the_job_prepended_and_appended() {
    // job_dagman_vars and job_dagman_vars_prepend: a PREPEND value can be overridden by the
    // submit file, an APPEND value overrides it.
    let env = env();
    write(
        &env,
        "v.sub",
        "executable = /bin/echo\nfirst = from-file\nsecond = from-file\narguments = \"$(nodename) $(first) $(second) $(JOB) $(RETRY)\"\noutput = v.out\nqueue\n",
    );
    write(
        &env,
        "v.dag",
        "JOB A v.sub\nVARS A nodename=\"$(JOB)\"\nVARS A PREPEND first=\"prepended\"\nVARS A APPEND second=\"appended\"\n",
    );
    assert_eq!(run_dag(&env, "v.dag", &[]), 0);
    assert_eq!(read(&env, "v.out"), "A from-file appended A 0\n");
}

#[test]
fn pre_scripts_and_pre_skip() {
    // job_dagman_pre_skip-A: A's PRE exits 0 and its job runs; B's PRE exits 1, not its
    // PRE_SKIP value, so B fails without its job; C's PRE exits its PRE_SKIP value: done.
    let env = env();
    sh_job(&env, "ok.sub", "echo $(JOB) >> ran.log");
    script(&env, "pre.sh", "exit $1");
    write(
        &env,
        "p.dag",
        "JOB A ok.sub\nJOB B ok.sub\nJOB C ok.sub\nSCRIPT PRE A pre.sh 0\nSCRIPT PRE B pre.sh 1\nSCRIPT PRE C pre.sh 2\n\
         PRE_SKIP A 2\nPRE_SKIP B 2\nPRE_SKIP C 2\n",
    );
    assert_eq!(run_dag(&env, "p.dag", &[]), 1);
    assert_eq!(read(&env, "ran.log"), "A\n");
    let out = dagman_out(&env, "p.dag");
    assert!(contains(&out, "PRE Script of Node B failed with status 1"));
    assert!(contains(
        &out,
        "PRE_SKIP return value 2 indicates we are done (successfully) with node C"
    ));
    assert!(read(&env, "p.dag.nodes.log")
        .contains("PRE script return value is PRE_SKIP value\n    DAG Node: C\n"));
}

#[test]
fn inline_descriptions_noop_nodes_and_splices() {
    // test_dagman_inline_submit, job_dagman_noop_node, job_dagman_splice-A.
    let env = env();
    write(&env, "sub/inner.dag", "JOB X {\n  executable = /bin/sh\n  arguments = \"-c 'echo $(JOB) >> ../ran.log'\"\n}\nJOB Y {\n  executable = /bin/sh\n  arguments = \"-c 'echo $(JOB) >> ../ran.log'\"\n}\nPARENT X CHILD Y\n");
    write(
        &env,
        "top.dag",
        "SUBMIT-DESCRIPTION Echo {\n  executable = /bin/sh\n  arguments = \"-c 'echo $(JOB) >> ran.log'\"\n  MY.CustomAttribute = \"x\"\n}\n\
         JOB A Echo\nJOB N noop.sub NOOP\nSPLICE S inner.dag DIR sub\nJOB Z Echo\n\
         PARENT A CHILD N\nPARENT N CHILD S\nPARENT S CHILD Z\n",
    );
    assert_eq!(run_dag(&env, "top.dag", &[]), 0);
    assert_eq!(read(&env, "ran.log"), "A\nS+X\nS+Y\nZ\n");
    let out = dagman_out(&env, "top.dag");
    assert!(
        !out.iter().any(|l| l.contains("Unexpected submit event")),
        "{out:#?}"
    );
}

#[test]
fn halt_file_stops_new_submits() {
    // job_dagman_halt-A: while <dag>.halt exists nothing new is submitted; once nothing runs,
    // the DAG ends with a rescue DAG (and runs its FINAL node, whose result is the DAG's).
    let env = env();
    sh_job(&env, "a.sub", "touch h.dag.halt; echo $(JOB) >> ran.log");
    sh_job(&env, "b.sub", "echo $(JOB) >> ran.log");
    write(
        &env,
        "h.dag",
        "JOB A a.sub\nJOB B b.sub\nPARENT A CHILD B\n",
    );
    assert_eq!(run_dag(&env, "h.dag", &[]), 1);
    assert_eq!(read(&env, "ran.log"), "A\n", "B never ran");
    let out = dagman_out(&env, "h.dag");
    assert!(
        contains(&out, "DAG is halted because halt file h.dag.halt exists"),
        "{out:#?}"
    );
    assert!(read(&env, "h.dag.rescue001").contains("DONE A\n"));

    for f in [
        "h.dag.halt",
        "ran.log",
        "h.dag.rescue001",
        "h.dag.dagman.out",
    ] {
        std::fs::remove_file(env.work_dir().join(f)).unwrap();
    }
    write(
        &env,
        "h.dag",
        "JOB A a.sub\nJOB B b.sub\nPARENT A CHILD B\nFINAL F b.sub\n",
    );
    assert_eq!(
        run_dag(&env, "h.dag", &["-AutoRescue", "0"]),
        0,
        "the FINAL node succeeds"
    );
    assert_eq!(read(&env, "ran.log"), "A\nF\n");
    let out = dagman_out(&env, "h.dag");
    assert!(contains(
        &out,
        "Exiting because DAG is halted and no jobs or scripts are running"
    ));
    assert!(contains(&out, "Continuing to allow final node to run"));
}

#[test]
fn parse_errors_name_the_file_and_line_and_run_nothing() {
    let env = env();
    sh_job(&env, "ok.sub", "echo ran >> ran.log");
    write(&env, "bad.dag", "JOB A ok.sub\nPARENT A CHILD Z\n");
    assert_eq!(run_dag(&env, "bad.dag", &[]), 1);
    let out = dagman_out(&env, "bad.dag");
    assert!(
        contains(&out, "ERROR: bad.dag (line 2): Unknown Node Z"),
        "{out:#?}"
    );
    assert!(contains(&out, "Failed to parse bad.dag"));
    assert!(!exists(&env, "ran.log"));
    assert!(!exists(&env, "bad.dag.lock"));
}

#[test]
fn a_second_dagman_on_the_same_dag_is_refused() {
    let env = env();
    sh_job(&env, "ok.sub", "true");
    write(&env, "x.dag", "JOB A ok.sub\n");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.work_dir().join("x.dag.lock"))
        .unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) },
        0
    );
    assert_eq!(run_dag(&env, "x.dag", &[]), 1);
    let out = dagman_out(&env, "x.dag");
    assert!(contains(&out, "Aborting because it looks like another instance of DAGMan is currently running on this DAG; if that is not the case, delete the lock file (x.dag.lock) and re-submit the DAG."), "{out:#?}");
}
