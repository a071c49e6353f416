//! More of HTCondor's own DAGMan tests (src/condor_tests/job_dagman_*, test_dagman_*), each
//! run by hand like those in `mod.rs`, its perl node jobs and scripts rewritten as shell, and
//! checking what its .run (or .py) file checks. Where HTCondor's expected output rests on its
//! 5 s timer (condorlite's DAGMan is event-driven), the test checks the invariant instead and
//! says so.

use super::pooled::{submit_dag, wait_gone};
use super::{
    contains, dagman_out, exists, read, run_dag, run_dag_with, script, sh_job, spawn_dag,
    submitted, wait_dag, write,
};
use crate::common::TestEnvironment;
use crate::pool::{history_attr, wait_for, Master};

fn env() -> TestEnvironment {
    super::env()
}

/// The most jobs an event log shows submitted and not yet gone (terminated or aborted) at
/// once, and how many were submitted.
fn queued_peak(log: &str) -> (usize, usize) {
    let (mut queued, mut peak, mut total) = (0usize, 0usize, 0usize);
    for line in log.lines() {
        if line.starts_with("000 (") {
            queued += 1;
            total += 1;
            peak = peak.max(queued);
        } else if line.starts_with("005 (") || line.starts_with("009 (") {
            queued -= 1;
        }
    }
    (peak, total)
}

/// The lines of a file.
fn lines_of(env: &TestEnvironment, name: &str) -> Vec<String> {
    read(env, name).lines().map(str::to_owned).collect()
}

#[test]
fn maxjobs_caps_the_node_jobs_in_the_queue() {
    // job_dagman_throttle: 20 independent nodes with POST scripts run with -maxjobs 4; the
    // node jobs' log (x_read_joblog MAXJOBS 4) never has more than 4 jobs in the queue.
    let env = env();
    sh_job(&env, "node.sub", "sleep 0.1");
    script(&env, "post.sh", "echo $1 >> post.log; exit $1");
    let mut dag = String::new();
    for i in 0..20 {
        dag += &format!("JOB NODE{i} node.sub\nSCRIPT POST NODE{i} post.sh $RETURN\n");
    }
    write(&env, "throttle.dag", &dag);
    assert_eq!(run_dag(&env, "throttle.dag", &["-maxjobs", "4"]), 0);
    let (peak, total) = queued_peak(&read(&env, "job.log"));
    assert_eq!(total, 20);
    assert!(peak <= 4, "{peak} jobs queued at once");
    assert_eq!(read(&env, "post.log"), "0\n".repeat(20));
    let out = dagman_out(&env, "throttle.dag");
    assert_eq!(submitted(&out).len(), 20);
    // The first cycle finds 20 ready nodes and submits 4: the other 16 are deferred.
    assert!(
        out.iter().any(|l| l.starts_with("Note: ")
            && l.ends_with("total node deferrals because of -MaxJobs limit (4)")),
        "{out:#?}"
    );
    assert!(out.last().unwrap().ends_with("EXITING WITH STATUS 0"));
}

#[test]
fn pre_and_post_scripts_run_for_every_node_noop_included() {
    // job_dagman_prepost: 20 nodes (NODE0 NOOP), each with a PRE and a POST script; exactly
    // 20 PRE and 20 POST scripts run (x_dagman_readprepostlog PREPOST 20 20).
    let env = env();
    sh_job(&env, "node.sub", "exit 0");
    script(&env, "pre.sh", "echo prescript_ran >> flow.log");
    script(&env, "post.sh", "echo postscript_ran >> flow.log; exit $1");
    let mut dag = String::new();
    for i in 0..20 {
        let noop = if i == 0 { " NOOP" } else { "" };
        dag += &format!(
            "Job NODE{i} node.sub{noop}\nScript POST NODE{i} ./post.sh $RETURN\nScript PRE NODE{i} ./pre.sh\n"
        );
    }
    write(&env, "prepost.dag", &dag);
    assert_eq!(run_dag(&env, "prepost.dag", &[]), 0);
    let flow = read(&env, "flow.log");
    assert_eq!(flow.matches("prescript_ran\n").count(), 20, "{flow}");
    assert_eq!(flow.matches("postscript_ran\n").count(), 20, "{flow}");
    let out = dagman_out(&env, "prepost.dag");
    assert_eq!(submitted(&out).len(), 20);
    assert!(out.last().unwrap().ends_with("EXITING WITH STATUS 0"));
}

#[test]
fn category_throttles_cap_each_category() {
    // MAXJOBS for a CATEGORY (job_dagman_all_nodes, job_dagman_splice-cat set them; here
    // they run): 6 nodes of category `slow` with MAXJOBS 2 and 6 of `fast` with MAXJOBS 3,
    // all ready at once. No more than 2 (3) of each are ever in the queue, and dagman.out
    // names the nodes the throttle deferred.
    let env = env();
    for cat in ["slow", "fast"] {
        write(
            &env,
            &format!("{cat}.sub"),
            &format!(
                "executable = /bin/sh\narguments = \"-c 'sleep 0.1'\"\nlog = {cat}.log\nqueue\n"
            ),
        );
    }
    let mut dag = String::new();
    for i in 0..6 {
        dag += &format!(
            "JOB S{i} slow.sub\nCATEGORY S{i} slow\nJOB F{i} fast.sub\nCATEGORY F{i} fast\n"
        );
    }
    dag += "MAXJOBS slow 2\nMAXJOBS fast 3\n";
    write(&env, "cat.dag", &dag);
    assert_eq!(run_dag(&env, "cat.dag", &["-debug", "4"]), 0);
    for (cat, max) in [("slow", 2), ("fast", 3)] {
        let (peak, total) = queued_peak(&read(&env, &format!("{cat}.log")));
        assert_eq!(total, 6);
        assert!(peak <= max, "{peak} {cat} jobs queued at once");
    }
    let out = dagman_out(&env, "cat.dag");
    // The first cycle: S0 S1 and F0 F1 F2 go, S2 is the first node the throttle stops.
    assert!(
        contains(&out, "Node S2 deferred by category throttle (slow, 2)"),
        "{out:#?}"
    );
    assert!(contains(
        &out,
        "Node F3 deferred by category throttle (fast, 3)"
    ));
    assert!(contains(
        &out,
        "Returning deferred node S2 to the ready queue"
    ));
    assert!(out.iter().any(|l| l.starts_with("Note: ")
        && l.ends_with("total node deferrals because of node category throttles")));
    assert_eq!(submitted(&out).len(), 12);
}

#[test]
fn all_nodes_settings_in_a_dumped_rescue_dag() {
    // job_dagman_all_nodes: ALL_NODES sets SCRIPT, PRE_SKIP, VARS, RETRY, ABORT-DAG-ON,
    // PRIORITY and CATEGORY for the nodes of its own DAG file only (a splice has its own),
    // and a later command for one node overrides it; -DumpRescue writes the whole DAG.
    let env = env();
    write(
        &env,
        "all.dag",
        "job NodeA /dev/null noop\nscript pre NodeA /dev/null A foobar $RETRY\npre_skip NodeA 2\n\
         script post NodeA /dev/null A foobar $RETURN\nvars NodeA nodename=\"foobar\"\n\
         retry NodeA 5 UNLESS-EXIT 8\nabort-dag-on NodeA 5 return 10\npriority NodeA 20\ncategory NodeA foobar\n\n\
         job NodeB /dev/null noop\njob NodeC /dev/null noop\n\n\
         final NodeF /dev/null noop\nscript pre NodeF /dev/null F $JOB $RETRY\n\
         script post NodeF /dev/null F $JOB $RETURN\nvars NodeF nodename=\"final\"\n\n\
         splice SpliceA all-splice.dag\n\ninclude all.inc\n\n\
         script pre NodeB /dev/null A barfoo $RETRY\npre_skip NodeB 20\n\
         script post NodeB /dev/null A barfoo $RETURN\nvars NodeB nodename=\"barfoo\"\n\
         retry NodeB 20 UNLESS-EXIT 50\nabort-dag-on NodeB 30 return 40\npriority NodeB 100\ncategory NodeB barfoo\n",
    );
    write(
        &env,
        "all.inc",
        "script pre ALL_NODES /dev/null A $JOB $RETRY\npre_skip ALL_NODES 4\n\
         script post ALL_NODES /dev/null A $JOB $RETURN\nvars ALL_NODES nodename=\"$(JOB)\"\n\
         retry ALL_NODES 2 UNLESS-EXIT 5\nabort-dag-on ALL_NODES 3 return 4\npriority ALL_NODES 10\n\
         category ALL_NODES upper\nmaxjobs upper 1\n",
    );
    write(
        &env,
        "all-splice.dag",
        "job NodeX /dev/null noop\njob NodeY /dev/null noop\njob NodeZ /dev/null noop\n\n\
         script pre ALL_NODES /dev/null B $JOB $RETRY\npre_skip ALL_NODES 5\n\
         script post ALL_NODES /dev/null B $JOB $RETURN\nvars ALL_NODES nodename=\"$(JOB)\"\n\
         retry ALL_NODES 3 UNLESS-EXIT 6\nabort-dag-on ALL_NODES 4 return 5\npriority ALL_NODES 20\n\
         category ALL_NODES lower\nmaxjobs lower 2\n",
    );
    assert_eq!(run_dag(&env, "all.dag", &["-DumpRescue"]), 0);
    let out = dagman_out(&env, "all.dag");
    assert!(out.last().unwrap().ends_with("EXITING WITH STATUS 0"));
    let rescue = lines_of(&env, "all.dag.rescue001");
    let mut want: Vec<String> = Vec::new();
    for (node, set) in [("NodeA", 'A'), ("NodeC", 'A')] {
        want.extend([
            format!("JOB {node} /dev/null NOOP "),
            format!("SCRIPT PRE {node} /dev/null {set} $JOB $RETRY"),
            format!("PRE_SKIP {node} 4"),
            format!("SCRIPT POST {node} /dev/null {set} $JOB $RETURN"),
            format!("VARS {node} nodename=\"$(JOB)\""),
            format!("ABORT-DAG-ON {node} 3 RETURN 4"),
            format!("CATEGORY {node} upper"),
            format!("RETRY {node} 2 UNLESS-EXIT 5"),
        ]);
    }
    want.extend(
        [
            "JOB NodeB /dev/null NOOP ",
            "SCRIPT PRE NodeB /dev/null A barfoo $RETRY",
            "PRE_SKIP NodeB 20",
            "SCRIPT POST NodeB /dev/null A barfoo $RETURN",
            "VARS NodeB nodename=\"barfoo\"",
            "ABORT-DAG-ON NodeB 30 RETURN 40",
            "CATEGORY NodeB barfoo",
            "RETRY NodeB 20 UNLESS-EXIT 50",
            "FINAL NodeF /dev/null NOOP ",
            "SCRIPT PRE NodeF /dev/null F $JOB $RETRY",
            "SCRIPT POST NodeF /dev/null F $JOB $RETURN",
            "VARS NodeF nodename=\"final\"",
            "MAXJOBS SpliceA+lower 2",
            "MAXJOBS upper 1",
        ]
        .map(str::to_owned),
    );
    for node in ["SpliceA+NodeX", "SpliceA+NodeY", "SpliceA+NodeZ"] {
        want.extend([
            format!("JOB {node} /dev/null NOOP "),
            format!("SCRIPT PRE {node} /dev/null B $JOB $RETRY"),
            format!("PRE_SKIP {node} 5"),
            format!("SCRIPT POST {node} /dev/null B $JOB $RETURN"),
            format!("VARS {node} nodename=\"$(JOB)\""),
            format!("ABORT-DAG-ON {node} 4 RETURN 5"),
            format!("CATEGORY {node} SpliceA+lower"),
            format!("RETRY {node} 3 UNLESS-EXIT 6"),
        ]);
    }
    for line in &want {
        assert!(rescue.contains(line), "no {line:?} in {rescue:#?}");
    }
}

#[test]
fn splice_categories_in_a_dumped_rescue_dag() {
    // job_dagman_splice-cat: a splice's categories are scoped by the splice's name, unless
    // they start with `+` (global); the last MAXJOBS for a category wins.
    let env = env();
    sh_job(&env, "cat.sub", "true");
    write(
        &env,
        "cat.dag",
        "maxjobs cat0 15\njob A0 cat.sub\nvars A0 racer = \"Eddy Merckx\"\njob B0 cat.sub\ncategory B0 cat0\n\
         job C0 cat.sub\ncategory C0 cat0\nsplice D0 cat-splice1.dag\njob E0 cat.sub\ncategory E0 +catS\n\
         parent A0 child B0 C0\nparent B0 C0 child D0\nparent D0 child E0\n\
         maxjobs cat0 10\nmaxjobs +catS 2\nmaxjobs D0+cat1 12\n",
    );
    write(
        &env,
        "cat-splice1.dag",
        "job A1 cat.sub\nvars A1 racer = \"Bernard Hinault\"\njob B1 cat.sub\ncategory B1 cat1\n\
         job C1 cat.sub\ncategory C1 cat1\nsplice D1 cat-splice2.dag\nsplice E1 cat-splice2.dag\n\
         job F1 cat.sub\ncategory F1 +catS\nparent A1 child B1 C1\nparent B1 C1 child D1 E1\n\
         parent D1 E1 child F1\nmaxjobs cat1 11\nmaxjobs +catS 3\nmaxjobs D1+cat2 33\n",
    );
    write(
        &env,
        "cat-splice2.dag",
        "job A2 cat.sub\nvars A2 racer = \"Fausto Coppi\"\njob B2 cat.sub\ncategory B2 cat2\n\
         job C2 cat.sub\ncategory C2 cat2\njob D2 cat.sub\ncategory D2 cat3\njob E2 cat.sub\n\
         category E2 cat3\njob F2 cat.sub\ncategory F2 +catS\nparent A2 child B2 C2\n\
         parent B2 C2 child D2 E2\nparent D2 E2 child F2\nmaxjobs cat2 32\nmaxjobs cat3 22\nmaxjobs +catS 4\n",
    );
    assert_eq!(run_dag(&env, "cat.dag", &["-DumpRescue"]), 0);
    let rescue = lines_of(&env, "cat.dag.rescue001");
    let mut want: Vec<String> = [
        "JOB A0 cat.sub",
        "VARS A0 racer=\"Eddy Merckx\"",
        "JOB B0 cat.sub",
        "CATEGORY B0 cat0",
        "JOB C0 cat.sub",
        "CATEGORY C0 cat0",
        "JOB E0 cat.sub",
        "CATEGORY E0 +catS",
        "JOB D0+A1 cat.sub",
        "VARS D0+A1 racer=\"Bernard Hinault\"",
        "JOB D0+B1 cat.sub",
        "CATEGORY D0+B1 D0+cat1",
        "JOB D0+C1 cat.sub",
        "CATEGORY D0+C1 D0+cat1",
        "JOB D0+F1 cat.sub",
        "CATEGORY D0+F1 +catS",
        "MAXJOBS cat0 10",
        "MAXJOBS D0+cat1 12",
        "MAXJOBS D0+D1+cat2 33",
        "MAXJOBS D0+D1+cat3 22",
        "MAXJOBS D0+E1+cat2 32",
        "MAXJOBS D0+E1+cat3 22",
        "MAXJOBS +catS 2",
    ]
    .map(str::to_owned)
    .to_vec();
    for s in ["D0+D1", "D0+E1"] {
        want.extend([
            format!("JOB {s}+A2 cat.sub"),
            format!("VARS {s}+A2 racer=\"Fausto Coppi\""),
            format!("CATEGORY {s}+B2 {s}+cat2"),
            format!("CATEGORY {s}+C2 {s}+cat2"),
            format!("CATEGORY {s}+D2 {s}+cat3"),
            format!("CATEGORY {s}+E2 {s}+cat3"),
            format!("CATEGORY {s}+F2 +catS"),
        ]);
    }
    for line in &want {
        // (HTCondor's check matches each line as a prefix: a JOB line ends with a space.)
        assert!(
            rescue.iter().any(|l| l.trim_end() == line),
            "no {line:?} in {rescue:#?}"
        );
    }
}

#[test]
fn script_arguments_are_passed_word_by_word() {
    // job_dagman_script_args: script arguments are split at white space, quotes and
    // backslashes kept as they are; $JOB $RETRY $RETURN $JOBID are replaced.
    let env = env();
    write(
        &env,
        "node.sub",
        "executable = /bin/echo\narguments = $(nodename)\noutput = $(JOB).out\nlog = job.log\nqueue\n",
    );
    script(
        &env,
        "script.sh",
        "node=$1; kind=$2; shift 2; for a in \"$@\"; do printf \"<%s> \" \"$a\"; done > $node-$kind.out; echo >> $node-$kind.out",
    );
    write(
        &env,
        "args.dag",
        "Job NodeA node.sub\n\
         Script Pre NodeA script.sh $JOB Pre \"Cadel_Evans\" $RETRY\n\
         Script Post NodeA script.sh $JOB Post $RETURN Mark_Cavendish Heinrich_Haussler $RETRY $JOBID\n\
         Job NodeB node.sub\n\
         Script Pre NodeB script.sh $JOB Pre 'Bernard_Hinault' Joop_Zoetemelk $RETRY\n\
         Script Post NodeB script.sh $JOB Post $RETURN Ottavio_Bottechia $RETRY $JOBID\n\
         Job NodeC node.sub\n\
         Script Pre NodeC script.sh $JOB Pre Miguel \\Indurain $RETRY\n\
         Script Post NodeC script.sh $JOB Post $RETURN Laurent Jalabert $RETRY $JOBID\n\
         Job NodeD node.sub\n\
         Script Pre NodeD script.sh $JOB Pre Gilles Delion Charly Mottet $RETRY\n\
         Script Post NodeD script.sh $JOB Post $RETURN Stephen Roche $RETRY $JOBID\n",
    );
    assert_eq!(run_dag(&env, "args.dag", &[]), 0);
    assert_eq!(read(&env, "NodeA-Pre.out"), "<\"Cadel_Evans\"> <0> \n");
    assert_eq!(
        read(&env, "NodeB-Pre.out"),
        "<'Bernard_Hinault'> <Joop_Zoetemelk> <0> \n"
    );
    assert_eq!(read(&env, "NodeC-Pre.out"), "<Miguel> <\\Indurain> <0> \n");
    assert_eq!(
        read(&env, "NodeD-Pre.out"),
        "<Gilles> <Delion> <Charly> <Mottet> <0> \n"
    );
    // The POST scripts' last word is the job's id, `<cluster>.0`.
    for (node, words) in [
        ("NodeA", "<0> <Mark_Cavendish> <Heinrich_Haussler> <0> <"),
        ("NodeB", "<0> <Ottavio_Bottechia> <0> <"),
        ("NodeC", "<0> <Laurent> <Jalabert> <0> <"),
        ("NodeD", "<0> <Stephen> <Roche> <0> <"),
    ] {
        let post = read(&env, &format!("{node}-Post.out"));
        let id = post
            .strip_prefix(words)
            .and_then(|r| r.strip_suffix("> \n"))
            .unwrap_or_else(|| panic!("{node}: {post}"));
        let (cluster, proc) = id.split_once('.').unwrap();
        assert!(
            cluster.parse::<u32>().is_ok() && proc == "0",
            "{node}: {post}"
        );
    }
}

#[test]
fn post_script_macros_describe_the_node() {
    // test_dagman_script_macros: two nodes of 4-proc clusters; GOOD's procs exit 0 (RETRY
    // 1), BAD's exit 1 1 2 3. Their POST scripts get every script macro.
    let env = env();
    script(&env, "exit.sh", "exit $1");
    write(&env, "good.data", "0\n0\n0\n0\n");
    write(&env, "bad.data", "1\n1\n2\n3\n");
    write(
        &env,
        "job.sub",
        "executable = exit.sh\narguments = \"$(code)\"\nlog = jobs.log\npriority = $(code) * 100\nqueue code from $(filename)\n",
    );
    script(&env, "post.sh", "echo \"$@\" > $2.post; exit 0");
    let macros = "$JOB $RETRY $MAX_RETRIES $DAG_STATUS $FAILED_COUNT $FUTILE_COUNT $DONE_COUNT \
                  $QUEUED_COUNT $NODE_COUNT $DAGID $JOBID $CLUSTERID $JOB_COUNT $SUCCESS $RETURN \
                  $EXIT_CODES $EXIT_CODE_COUNTS $PRE_SCRIPT_RETURN $JOB_ABORT_COUNT";
    write(
        &env,
        "test.dag",
        &format!(
            "JOB GOOD job.sub\nJOB BAD job.sub\nPARENT GOOD CHILD BAD\n\
             VARS GOOD PREPEND filename=\"good.data\"\nVARS BAD PREPEND filename=\"bad.data\"\n\
             RETRY GOOD 1\n\
             SCRIPT DEBUG script.debug ALL POST GOOD post.sh $node {macros}\n\
             SCRIPT DEBUG script.debug ALL POST BAD post.sh $NoDe {macros}\n"
        ),
    );
    assert_eq!(run_dag(&env, "test.dag", &[]), 0);
    // By hand, DAGMan has no job id of its own: $DAGID is -1.
    let words = |node: &str| -> Vec<String> {
        read(&env, &format!("{node}.post"))
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    let good = words("GOOD");
    let bad = words("BAD");
    // $CLUSTERID is the node's cluster, $JOBID its last proc.
    let cluster = |w: &[String]| w[12].clone();
    for w in [&good, &bad] {
        assert!(cluster(w).parse::<u32>().is_ok_and(|c| c > 0), "{w:?}");
    }
    assert_eq!(
        good,
        [
            "GOOD",
            "GOOD",
            "0",
            "1",
            "0",
            "0",
            "0",
            "0",
            "0",
            "2",
            "-1",
            &format!("{}.3", cluster(&good)),
            &cluster(&good),
            "4",
            "True",
            "0",
            "0",
            "0:4",
            "-1",
            "0"
        ]
    );
    let ret = bad[15].clone();
    assert!(["1", "2", "3"].contains(&ret.as_str()), "{bad:?}");
    assert_eq!(
        bad,
        [
            "BAD",
            "BAD",
            "0",
            "0",
            "0",
            "0",
            "0",
            "1",
            "0",
            "2",
            "-1",
            &format!("{}.3", cluster(&bad)),
            &cluster(&bad),
            "4",
            "False",
            &ret,
            "1,2,3",
            "1:2,2:1,3:1",
            "-1",
            "0"
        ]
    );
    // SCRIPT DEBUG: each script's output goes to script.debug after a header line.
    let debug = read(&env, "script.debug");
    assert!(
        debug.contains("*** Node=GOOD Type=POST Status=0 Completion="),
        "{debug}"
    );
    assert!(debug.contains("*** Node=BAD Type=POST Status=0 Completion="));
}

/// A DAG of one node A_A whose PRE and POST scripts echo and exit as told (`$1` their
/// retry), its job echoing into A.out.
fn one_node_with_scripts(env: &TestEnvironment, dag: &str, extra: &str, pre: &str, post: &str) {
    write(
        env,
        "A.sub",
        "executable = /bin/echo\narguments = running\noutput = A.out\nqueue\n",
    );
    script(env, "pre.sh", &format!("echo \"PRE A_A running\"\n{pre}"));
    script(
        env,
        "post.sh",
        &format!("echo \"POST A_A running\"\n{post}"),
    );
    write(
        env,
        dag,
        &format!(
            "Job A_A A.sub\nSCRIPT PRE A_A pre.sh $RETRY\nSCRIPT POST A_A post.sh $RETRY\n{extra}"
        ),
    );
}

#[test]
fn always_run_post_runs_the_post_script_after_a_failed_pre_script() {
    let env = env();
    // job_dagman_always_run_post-A: -AlwaysRunPost; the PRE script fails, the job does not
    // run, the POST script does (and fails: the DAG fails).
    one_node_with_scripts(&env, "a.dag", "", "exit 1", "exit 1");
    assert_eq!(run_dag(&env, "a.dag", &["-AlwaysRunPost"]), 1);
    assert!(!exists(&env, "A.out"));
    let out = dagman_out(&env, "a.dag");
    assert!(
        contains(&out, "PRE Script of Node A_A failed with status 1"),
        "{out:#?}"
    );
    assert!(out
        .iter()
        .any(|l| l.starts_with("Running POST script of Node A_A")));
    assert!(!out
        .iter()
        .any(|l| l.contains("PRE Script of node A_A completed successfully")));
    assert!(submitted(&out).is_empty());

    // -B: -DontAlwaysRunPost, -C: DAGMAN_ALWAYS_RUN_POST = False in a CONFIG file (the
    // default too): the PRE script fails, neither the job nor the POST script runs.
    for (dag, args, config) in [
        ("b.dag", &["-DontAlwaysRunPost"][..], ""),
        ("c.dag", &[][..], "CONFIG c.cfg\n"),
    ] {
        write(&env, "c.cfg", "DAGMAN_ALWAYS_RUN_POST = False\n");
        one_node_with_scripts(&env, dag, config, "exit 1", "exit 0");
        let vars = [("_CONDOR_DAGMAN_CONFIG_FILE", "c.cfg")];
        let vars = if config.is_empty() {
            &[][..]
        } else {
            &vars[..]
        };
        assert_eq!(run_dag_with(&env, dag, args, vars), 1, "{dag}");
        let out = dagman_out(&env, dag);
        assert!(
            contains(&out, "PRE Script of Node A_A failed with status 1"),
            "{dag}: {out:#?}"
        );
        assert!(!out.iter().any(|l| l.starts_with("Node A_A job completed")));
        assert!(!out
            .iter()
            .any(|l| l.starts_with("Running POST script of Node A_A")));
        assert!(!exists(&env, "A.out"));
    }

    // -D: -AlwaysRunPost, but the PRE script's exit is the PRE_SKIP value: the node is done,
    // no job, and (PRE_SKIP skips it too) no POST script.
    one_node_with_scripts(&env, "d.dag", "PRE_SKIP A_A 1\n", "exit 1", "exit 0");
    assert_eq!(run_dag(&env, "d.dag", &["-AlwaysRunPost"]), 0);
    let out = dagman_out(&env, "d.dag");
    assert!(
        contains(
            &out,
            "PRE_SKIP return value 1 indicates we are done (successfully) with node A_A"
        ),
        "{out:#?}"
    );
    assert!(submitted(&out).is_empty());
    assert!(!out
        .iter()
        .any(|l| l.starts_with("Running POST script of Node A_A")));
    assert!(!exists(&env, "A.out"));

    // -E: -AlwaysRunPost and RETRY 3: on retries 0 and 1 the PRE script fails, the POST
    // script runs and fails too, and the node is retried; on retry 2 the PRE script
    // succeeds, the job runs and the POST script succeeds.
    let ok_from_2 = "if test $1 -gt 1; then exit 0; else exit 1; fi";
    one_node_with_scripts(&env, "e.dag", "RETRY A_A 3\n", ok_from_2, ok_from_2);
    assert_eq!(run_dag(&env, "e.dag", &["-AlwaysRunPost"]), 0);
    let out = dagman_out(&env, "e.dag");
    assert!(
        out.iter().any(|l| l.starts_with("Retrying node A_A")),
        "{out:#?}"
    );
    assert!(out
        .iter()
        .any(|l| l.starts_with("Running POST script of Node A_A")));
    assert!(contains(
        &out,
        "PRE Script of node A_A completed successfully."
    ));
    assert!(contains(
        &out,
        "POST Script of node A_A completed successfully."
    ));
    assert_eq!(submitted(&out), ["A_A"]);
    assert_eq!(read(&env, "A.out"), "running\n");
}

#[test]
fn script_defer_reruns_a_script_later() {
    // job_dagman_script_defer: SCRIPT DEFER <status> <time>: a script that exits <status> is
    // run again <time> seconds later, without counting as a failure or a retry. B's PRE
    // script exits 4 twice, C's POST script 5 twice. (HTCondor's waits are 20 and 25 s;
    // 1 s here.) The jobstate log shows each script start.
    let env = env();
    sh_job(&env, "node.sub", "sleep 0.1");
    for f in ["B.fail1", "B.fail2", "C.fail1", "C.fail2"] {
        write(&env, f, "");
    }
    script(&env, "Apre.sh", "exit 0");
    script(
        &env,
        "fail.sh",
        "for f in $1.fail1 $1.fail2; do if [ -e $f ]; then rm $f; exit $2; fi; done; exit 0",
    );
    write(
        &env,
        "defer.dag",
        "NODE_STATUS_FILE defer.status\nJOBSTATE_LOG defer.jobstate.log\n\
         job NodeA node.sub\nscript defer 3 1 pre NodeA ./Apre.sh\n\
         job NodeB node.sub\nscript defer 4 1 pre NodeB ./fail.sh B 4\nparent NodeA child NodeB\n\
         job NodeC node.sub\nscript defer 5 1 post NodeC ./fail.sh C 5\nparent NodeB child NodeC\n",
    );
    assert_eq!(run_dag(&env, "defer.dag", &[]), 0);
    let out = dagman_out(&env, "defer.dag");
    assert!(out.last().unwrap().ends_with("EXITING WITH STATUS 0"));
    // (No image size lines: the nodes log's DAGManNodesMask leaves those events out.)
    let js: Vec<String> = read(&env, "defer.jobstate.log")
        .lines()
        .map(|l| {
            let mut w: Vec<String> = l.split(' ').map(str::to_owned).collect();
            w[0] = "T".into();
            if w.len() > 3 && w[3].contains('.') && w[3] != "-1.-1" {
                w[3] = "ID".into();
            }
            w.join(" ")
        })
        .collect();
    assert_eq!(
        js,
        [
            "T INTERNAL *** DAGMAN_STARTED -1.-1 ***",
            "T NodeA PRE_SCRIPT_STARTED - - - 1",
            "T NodeA PRE_SCRIPT_SUCCESS - - - 1",
            "T NodeA SUBMIT ID - - 1",
            "T NodeA EXECUTE ID - - 1",
            "T NodeA JOB_TERMINATED ID - - 1",
            "T NodeA JOB_SUCCESS 0 - - 1",
            "T NodeB PRE_SCRIPT_STARTED - - - 2",
            "T NodeB PRE_SCRIPT_STARTED - - - 2",
            "T NodeB PRE_SCRIPT_STARTED - - - 2",
            "T NodeB PRE_SCRIPT_SUCCESS - - - 2",
            "T NodeB SUBMIT ID - - 2",
            "T NodeB EXECUTE ID - - 2",
            "T NodeB JOB_TERMINATED ID - - 2",
            "T NodeB JOB_SUCCESS 0 - - 2",
            "T NodeC SUBMIT ID - - 3",
            "T NodeC EXECUTE ID - - 3",
            "T NodeC JOB_TERMINATED ID - - 3",
            "T NodeC JOB_SUCCESS 0 - - 3",
            "T NodeC POST_SCRIPT_STARTED ID - - 3",
            "T NodeC POST_SCRIPT_STARTED ID - - 3",
            "T NodeC POST_SCRIPT_STARTED ID - - 3",
            "T NodeC POST_SCRIPT_TERMINATED ID - - 3",
            "T NodeC POST_SCRIPT_SUCCESS ID - - 3",
            "T INTERNAL *** DAGMAN_FINISHED 0 ***",
        ]
    );
    // The deferrals are logged, and waited for.
    assert_eq!(
        out.iter()
            .filter(
                |l| *l == "Deferring PRE script of node NodeB for 1 seconds (exit status was 4)..."
            )
            .count(),
        2,
        "{out:#?}"
    );
}

#[test]
fn node_priorities_order_the_submits() {
    // job_dagman_node_prio: with one job in the queue at a time (DAGMAN_MAX_JOBS_SUBMITTED
    // = 1 in a CONFIG file), A's ten children run highest PRIORITY first.
    let env = env();
    write(&env, "prio.config", "DAGMAN_MAX_JOBS_SUBMITTED = 1\n");
    write(
        &env,
        "node.sub",
        "executable = /bin/sh\narguments = \"-c 'printf \"\"%s \"\" $(nodename) >> prio.order'\"\nlog = prio.log\nqueue\n",
    );
    let mut dag = String::from("Config prio.config\nJob A node.sub\nVars A nodename=\"$(JOB)\"\n");
    for (i, p) in [5, 3, 8, 6, 10, 1, 9, 2, 7, 4].iter().enumerate() {
        let b = format!("B{}", i + 1);
        dag += &format!("Job {b} node.sub\nPriority {b} {p}\nVars {b} nodename=\"$(JOB)\"\nParent A Child {b}\n");
    }
    dag += "Job C node.sub\nVars C nodename=\"$(JOB)\"\nParent B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 Child C\n";
    write(&env, "prio.dag", &dag);
    let config = [("_CONDOR_DAGMAN_CONFIG_FILE", "prio.config")];
    assert_eq!(run_dag_with(&env, "prio.dag", &[], &config), 0);
    assert_eq!(
        read(&env, "prio.order"),
        "A B5 B7 B3 B9 B4 B1 B10 B2 B8 B6 C "
    );
    let (peak, _) = queued_peak(&read(&env, "prio.log"));
    assert_eq!(peak, 1);
}

#[test]
fn depth_first_submits_a_chain_before_its_siblings() {
    // job_dagman_depth_first: DAGMAN_SUBMIT_DEPTH_FIRST with one job at a time: each
    // chain B<n>-1 .. B<n>-3 runs through before the next chain starts.
    let env = env();
    write(
        &env,
        "df.config",
        "DAGMAN_SUBMIT_DEPTH_FIRST = true\nDAGMAN_MAX_JOBS_SUBMITTED = 1\n",
    );
    write(
        &env,
        "node.sub",
        "executable = /bin/sh\narguments = \"-c 'printf \"\"%s \"\" $(nodename) >> df.order'\"\nqueue\n",
    );
    let mut dag = String::from("Config df.config\nJob A node.sub\nVars A nodename=\"$(JOB)\"\n");
    for b in 1..=3 {
        for n in 1..=3 {
            dag += &format!("Job B{b}-{n} node.sub\nVars B{b}-{n} nodename=\"$(JOB)\"\n");
        }
        dag += &format!(
            "Parent A Child B{b}-1\nParent B{b}-1 Child B{b}-2\nParent B{b}-2 Child B{b}-3\n"
        );
    }
    dag += "Job C node.sub\nVars C nodename=\"$(JOB)\"\nParent B1-3 B2-3 B3-3 Child C\n";
    write(&env, "df.dag", &dag);
    let config = [("_CONDOR_DAGMAN_CONFIG_FILE", "df.config")];
    assert_eq!(run_dag_with(&env, "df.dag", &[], &config), 0);
    let order = read(&env, "df.order");
    for chain in ["B1-1 B1-2 B1-3", "B2-1 B2-2 B2-3", "B3-1 B3-2 B3-3"] {
        assert!(order.contains(chain), "{order}");
    }
    assert!(order.starts_with("A ") && order.ends_with(" C "), "{order}");
}

#[test]
fn several_dag_files_run_as_one_dag() {
    // job_dagman_multi_dag: two DAG files with the same node names run as one DAG; their
    // nodes are named <file number>.<node> ($JOB included), dagman.out is the first file's.
    let env = env();
    write(
        &env,
        "node.sub",
        "executable = /bin/echo\narguments = Node $(nodename) succeeded\noutput = $(nodename)-job.out\nlog = multi.log\nqueue\n",
    );
    script(&env, "pre.sh", "echo \"$1 pre script\" > $1-pre.out");
    script(&env, "post.sh", "echo \"$1 post script\" > $1-post.out");
    for (file, c, d) in [
        ("dag1.dag", "nodeC1", "nodeD1"),
        ("dag2.dag", "nodeC2", "nodeD2"),
    ] {
        let mut dag = String::new();
        for n in ["nodeA", "nodeB", c, d] {
            dag += &format!(
                "Job {n} node.sub\nVars {n} nodename=\"$(JOB)\"\nScript pre {n} pre.sh $JOB\nScript post {n} post.sh $JOB\n"
            );
        }
        dag += &format!("Parent nodeA Child nodeB {c}\nParent nodeB {c} Child {d}\n");
        write(&env, file, &dag);
    }
    assert_eq!(run_dag(&env, "dag1.dag", &["-Dag", "dag2.dag"]), 0);
    for (i, nodes) in [
        (0, ["nodeA", "nodeB", "nodeC1", "nodeD1"]),
        (1, ["nodeA", "nodeB", "nodeC2", "nodeD2"]),
    ] {
        for n in nodes {
            let name = format!("{i}.{n}");
            assert_eq!(
                read(&env, &format!("{name}-job.out")),
                format!("Node {name} succeeded\n")
            );
            assert_eq!(
                read(&env, &format!("{name}-pre.out")),
                format!("{name} pre script\n")
            );
            assert_eq!(
                read(&env, &format!("{name}-post.out")),
                format!("{name} post script\n")
            );
        }
    }
    let out = dagman_out(&env, "dag1.dag");
    assert!(out.last().unwrap().ends_with("EXITING WITH STATUS 0"));
    assert_eq!(submitted(&out).len(), 8);
    assert!(out
        .iter()
        .all(|l| !l.contains("Submitting HTCondor Node nodeA ")));

    // A failure: the rescue DAG is named after the first file, `_multi`.
    write(
        &env,
        "dag2.dag",
        &read(&env, "dag2.dag")
            .replace("Job nodeD2 node.sub", "Job nodeD2 fail.sub")
            .replace("Script post nodeD2 post.sh $JOB\n", ""),
    );
    sh_job(&env, "fail.sub", "exit 1");
    assert_eq!(run_dag(&env, "dag1.dag", &["-Dag", "dag2.dag"]), 1);
    let rescue = read(&env, "dag1.dag_multi.rescue001");
    assert!(rescue.contains("#   1.nodeD2,<ENDLIST>\n"), "{rescue}");
    assert!(rescue.contains("DONE 0.nodeA\n"), "{rescue}");
}

/// Checks that `want`'s substrings are found in order, each in a later line of `text`
/// (CheckStatusFile in job_dagman_node_status.run).
fn in_order(text: &str, want: &[&str]) {
    let mut lines = text.lines();
    for w in want {
        assert!(
            lines.by_ref().any(|l| l.contains(w)),
            "{w:?} missing (in order) from:\n{text}"
        );
    }
}

/// The node status file's per-node lines for nodes and their status.
fn node_lines<'a>(nodes: &[(&'a str, &'a str)]) -> Vec<String> {
    nodes
        .iter()
        .flat_map(|(n, s)| [format!("Node = \"{n}\";"), format!("NodeStatus = {s}")])
        .collect()
}

#[test]
fn node_status_file_follows_the_dag() {
    // job_dagman_node_status: NODE_STATUS_FILE <file> 0 ALWAYS-UPDATE; A and C delete the
    // file while they run, wait for DAGMan to write it again and keep a copy: the copies show
    // the DAG while A (then C) is queued, the file the finished DAG.
    let env = env();
    write(
        &env,
        "node.sub",
        "executable = /bin/sh\narguments = \"-c 'echo Node $(JOB); if [ $(copystatus) = 1 ]; then rm -f ns.status; \
         while [ ! -e ns.status ]; do sleep 0.05; done; cp ns.status ns.status-$(JOB); else sleep 0.1; fi'\"\n\
         output = ns-$(JOB).out\nqueue\n",
    );
    let bs: Vec<String> = (1..=10).map(|i| format!("B{i}")).collect();
    let mut dag = String::from(
        "NODE_STATUS_FILE ns.status 0 ALWAYS-UPDATE\n\nVARS ALL_NODES copystatus=\"0\"\n\nJob A node.sub\nVARS A copystatus=\"1\"\n",
    );
    for b in &bs {
        dag += &format!("Job {b} node.sub\n");
    }
    dag += &format!(
        "Job C node.sub\nVARS C copystatus=\"1\"\nParent A Child {all}\nParent {all} Child C\n",
        all = bs.join(" ")
    );
    write(&env, "ns.dag", &dag);
    assert_eq!(run_dag(&env, "ns.dag", &[]), 0);

    let totals = |status: &str, done: &str, queued: &str, unready: &str| -> Vec<String> {
        [
            status.to_owned(),
            "NodesTotal = 12;".into(),
            format!("NodesDone = {done};"),
            "NodesPre = 0;".into(),
            format!("NodesQueued = {queued};"),
            "NodesPost = 0;".into(),
            "NodesReady = 0;".into(),
            format!("NodesUnready = {unready};"),
            "NodesFailed = 0;".into(),
            "JobProcsHeld = 0;".into(),
        ]
        .to_vec()
    };
    let check = |file: &str, mut want: Vec<String>, nodes: &[(&str, &str)]| {
        want.extend(node_lines(nodes));
        let text = read(&env, file);
        in_order(&text, &want.iter().map(String::as_str).collect::<Vec<_>>());
    };
    let done = "5; /* \"STATUS_DONE\" */";
    let not_ready = "0; /* \"STATUS_NOT_READY\" */";
    let queued = "3; /* \"STATUS_SUBMITTED\" */";
    let mut all_done = vec![("A", done)];
    all_done.extend(bs.iter().map(|b| (b.as_str(), done)));
    all_done.push(("C", done));
    check(
        "ns.status",
        totals(
            "DagStatus = 5; /* \"STATUS_DONE (success)\" */",
            "12",
            "0",
            "0",
        ),
        &all_done,
    );
    let mut at_a = vec![("A", queued)];
    at_a.extend(bs.iter().map(|b| (b.as_str(), not_ready)));
    at_a.push(("C", not_ready));
    check(
        "ns.status-A",
        totals(
            "DagStatus = 3; /* \"STATUS_SUBMITTED ()\" */",
            "0",
            "1",
            "11",
        ),
        &at_a,
    );
    let mut at_c = vec![("A", done)];
    at_c.extend(bs.iter().map(|b| (b.as_str(), done)));
    at_c.push(("C", queued));
    check(
        "ns.status-C",
        totals(
            "DagStatus = 3; /* \"STATUS_SUBMITTED ()\" */",
            "11",
            "1",
            "0",
        ),
        &at_c,
    );
    for f in ["ns.status-A", "ns.status-C"] {
        let text = read(&env, f);
        assert!(
            text.contains("JobProcsIdle = 0;") || text.contains("JobProcsIdle = 1;"),
            "{text}"
        );
    }
}

#[test]
fn jobstate_log_across_a_subdag_retry() {
    // job_dagman_jobstate_log, under the master: the lower DAG is a SUBDAG EXTERNAL with
    // RETRY 1 of the upper one, whose first node arranges that the lower DAG's NodeD fails
    // once. Lower: NodeA queues two procs that fail (exit 2; the second is removed when the
    // first fails) but its POST script succeeds; NodeB's jobstate tag comes from
    // +job_tag_name; NodeC's POST script fails once (RETRY 1); NodeD fails on its first
    // run, so the lower DAG fails and runs again from its rescue DAG; NodeE cannot be
    // submitted (DAGMAN_MAX_SUBMIT_ATTEMPTS = 2) but its POST script succeeds. The jobstate
    // log goes on across both runs of the lower DAG, sequence numbers included.
    let env = env();
    let _master = Master::start(&env);
    write(&env, "js.config", "DAGMAN_MAX_SUBMIT_ATTEMPTS = 2\n");
    write(
        &env,
        "nodeA.sub",
        "universe = local\nexecutable = /bin/sh\narguments = \"-c 'if [ $(ProcId) -gt 0 ]; then sleep 30; fi; echo Node A job failing; exit 2'\"\n\
         output = $(nodename).$(ProcId).out\nlog = nodeA.log\n+pegasus_site = \"local\"\nqueue 2\n",
    );
    write(
        &env,
        "nodeB.sub",
        "executable = /bin/echo\narguments = Node B job succeeding\noutput = $(nodename).out\nlog = nodeB.log\n\
         +job_tag_name = \"+job_tag_value\"\n+job_tag_value = \"viz\"\nqueue\n",
    );
    write(
        &env,
        "nodeC.sub",
        "executable = /bin/echo\narguments = Node C job succeeding\noutput = $(nodename).out\nqueue\n",
    );
    write(
        &env,
        "nodeD.sub",
        "executable = /bin/sh\narguments = \"-c 'if [ -e nodeD.fails ]; then rm nodeD.fails; exit 1; fi'\"\n\
         output = nodeD.out\nqueue\n",
    );
    write(
        &env,
        "nodeE.sub",
        "# This is supposed to cause condor_submit to fail.\nqueue\n",
    );
    script(&env, "pre.sh", "echo \"$1 pre script\"");
    script(&env, "post.sh", "echo \"$1 post script\"");
    script(
        &env,
        "nodeC-post.sh",
        "echo \"$1 post script\"; test \"$2\" != 0",
    );
    write(
        &env,
        "js.dag",
        "JOBSTATE_LOG \\\n\tjs.dag.jobstate.log\n\nCONFIG \\\n\tjs.config\n\n\
         Job NodeA \\\n\tnodeA.sub\nScript \\\n\tPre NodeA pre.sh $JOB\nScript Post \\\n\tNodeA post.sh $JOB\n\
         Job NodeB nodeB.sub\nScript Pre NodeB pre.sh $JOB\nScript Post NodeB post.sh \\\n\t$JOB\n\
         Job NodeC nodeC.sub\nScript Pre NodeC pre.sh $JOB\nScript Post NodeC nodeC-post.sh $JOB $RETRY\nRetry \\\n\tNodeC 1\n\
         Job NodeD nodeD.sub\n\
         Job NodeE nodeE.sub\nScript Post NodeE post.sh $JOB\n\
         Parent \\\n\tNodeA Child NodeB\nParent NodeB \\\n\tChild NodeC\nParent NodeC Child \\\n\tNodeD\nParent NodeD Child NodeE\n",
    );
    write(
        &env,
        "upper.sub",
        "executable = /bin/sh\narguments = \"-c 'touch nodeD.fails; echo Node A job succeeded'\"\n\
         output = UNodeA.$(ProcId).out\n+pegasus_site = \"local\"\nqueue 2\n",
    );
    write(
        &env,
        "wrapper.dag",
        "Job UNodeA upper.sub\n\nSubdag External UNodeB js.dag\nRetry UNodeB 1\n\nParent UNodeA Child UNodeB\n",
    );
    let dag = submit_dag(&env, &["wrapper.dag"]);
    wait_gone(&env, &dag);
    assert_eq!(history_attr(&env, &dag, "ExitCode"), "0");
    for file in ["wrapper.dag.dagman.out", "js.dag.dagman.out"] {
        let out = read(&env, file);
        assert!(out.contains("EXITING WITH STATUS 0"), "{file}: {out}");
    }
    let out = dagman_out(&env, "js.dag");
    assert!(
        contains(&out, "USING RESCUE DAG js.dag.rescue001"),
        "{out:#?}"
    );
    assert_eq!(
        submitted(&dagman_out(&env, "wrapper.dag")),
        ["UNodeA", "UNodeB", "UNodeB"]
    );

    // The .run file's check: INTERNAL lines skipped; NodeA's execute, terminated, aborted
    // and evicted lines counted, not listed; every other line in order.
    let mut a_events: std::collections::HashMap<&str, usize> = Default::default();
    let mut lines = Vec::new();
    let text = read(&env, "js.dag.jobstate.log");
    for line in text.lines() {
        let w: Vec<&str> = line.split(' ').collect();
        if w[1] == "INTERNAL" {
            continue;
        }
        if w[1] == "NodeA"
            && ["EXECUTE", "JOB_TERMINATED", "JOB_ABORTED", "JOB_EVICTED"].contains(&w[2])
        {
            *a_events.entry(w[2]).or_default() += 1;
            continue;
        }
        if w[2] == "JOB_FAILURE" && w[1] == "NodeA" {
            // Both procs ran; one terminated, the other was removed when the first failed.
            assert_eq!(a_events.get("EXECUTE"), Some(&2), "{text}");
            assert_eq!(a_events.get("JOB_TERMINATED"), Some(&1), "{text}");
            assert_eq!(a_events.get("JOB_ABORTED"), Some(&1), "{text}");
        }
        let id = if w[3].contains('.') {
            let (c, p) = w[3].split_once('.').unwrap();
            assert!(
                c.parse::<u32>().is_ok() && p.parse::<u32>().is_ok(),
                "{line}"
            );
            format!("C.{p}")
        } else {
            w[3].to_owned()
        };
        lines.push(format!(
            "{} {} {} {} {} {}",
            w[1], w[2], id, w[4], w[5], w[6]
        ));
    }
    let want = [
        "NodeA PRE_SCRIPT_STARTED - local - 1",
        "NodeA PRE_SCRIPT_SUCCESS - local - 1",
        "NodeA SUBMIT C.0 local - 1",
        "NodeA SUBMIT C.1 local - 1",
        "NodeA JOB_FAILURE 2 local - 1",
        "NodeA POST_SCRIPT_STARTED C.0 local - 1",
        "NodeA POST_SCRIPT_TERMINATED C.0 local - 1",
        "NodeA POST_SCRIPT_SUCCESS C.0 local - 1",
        "NodeB PRE_SCRIPT_STARTED - viz - 2",
        "NodeB PRE_SCRIPT_SUCCESS - viz - 2",
        "NodeB SUBMIT C.0 viz - 2",
        "NodeB EXECUTE C.0 viz - 2",
        "NodeB JOB_TERMINATED C.0 viz - 2",
        "NodeB JOB_SUCCESS 0 viz - 2",
        "NodeB POST_SCRIPT_STARTED C.0 viz - 2",
        "NodeB POST_SCRIPT_TERMINATED C.0 viz - 2",
        "NodeB POST_SCRIPT_SUCCESS C.0 viz - 2",
        "NodeC PRE_SCRIPT_STARTED - - - 3",
        "NodeC PRE_SCRIPT_SUCCESS - - - 3",
        "NodeC SUBMIT C.0 - - 3",
        "NodeC EXECUTE C.0 - - 3",
        "NodeC JOB_TERMINATED C.0 - - 3",
        "NodeC JOB_SUCCESS 0 - - 3",
        "NodeC POST_SCRIPT_STARTED C.0 - - 3",
        "NodeC POST_SCRIPT_TERMINATED C.0 - - 3",
        "NodeC POST_SCRIPT_FAILURE C.0 - - 3",
        "NodeC PRE_SCRIPT_STARTED - - - 4",
        "NodeC PRE_SCRIPT_SUCCESS - - - 4",
        "NodeC SUBMIT C.0 - - 4",
        "NodeC EXECUTE C.0 - - 4",
        "NodeC JOB_TERMINATED C.0 - - 4",
        "NodeC JOB_SUCCESS 0 - - 4",
        "NodeC POST_SCRIPT_STARTED C.0 - - 4",
        "NodeC POST_SCRIPT_TERMINATED C.0 - - 4",
        "NodeC POST_SCRIPT_SUCCESS C.0 - - 4",
        "NodeD SUBMIT C.0 - - 5",
        "NodeD EXECUTE C.0 - - 5",
        "NodeD JOB_TERMINATED C.0 - - 5",
        "NodeD JOB_FAILURE 1 - - 5",
        "NodeD SUBMIT C.0 - - 6",
        "NodeD EXECUTE C.0 - - 6",
        "NodeD JOB_TERMINATED C.0 - - 6",
        "NodeD JOB_SUCCESS 0 - - 6",
        "NodeE SUBMIT_FAILURE - - - 7",
        "NodeE SUBMIT_FAILURE - - - 7",
        "NodeE POST_SCRIPT_STARTED - - - 7",
        "NodeE POST_SCRIPT_TERMINATED - - - 7",
        "NodeE POST_SCRIPT_SUCCESS - - - 7",
    ];
    assert_eq!(lines, want, "{text}");
}

/// The node job of the splice_connect tests: appends its name to a file.
fn skewer_job(env: &TestEnvironment) {
    write(
        env,
        "node.sub",
        "executable = /bin/sh\narguments = \"-c 'sleep $(sleep); echo $(name) >> $(file)'\"\noutput = $(name).out\nqueue\n",
    );
}

/// A splice file of `nodes` (name, sleep, skewer file number) with the rest of its lines.
fn skewer_splice(env: &TestEnvironment, file: &str, nodes: &[(&str, u32, u32)], rest: &str) {
    let mut text = String::new();
    for (n, sleep, skewer) in nodes {
        text += &format!(
            "job {n} node.sub\nvars {n} sleep = \"{sleep}\"\nvars {n} file = \"skewer{skewer}.out\"\nvars {n} name = \"$(JOB)\"\n"
        );
    }
    write(env, file, &(text + rest));
}

#[test]
fn splice_connect_joins_pin_outs_to_pin_ins() {
    // job_dagman_splice_connect-A: three splices of three nodes each CONNECTed in a row;
    // PIN_OUT n of one splice is the parent of PIN_IN n of the next, so each skewer file
    // gets its three nodes in order (the nodes that would come too early sleep; 30 s in
    // HTCondor, 1 s here).
    let env = env();
    skewer_job(&env);
    skewer_splice(
        &env,
        "splice1.dag",
        &[("NodeA", 1, 1), ("NodeB", 0, 2), ("NodeC", 0, 3)],
        "pin_out NodeA 1\npin_out NodeB 2\npin_out NodeC 3\npin_in NodeA 3\n",
    );
    skewer_splice(
        &env,
        "splice2.dag",
        &[("NodeA", 0, 1), ("NodeB", 0, 2), ("NodeC", 1, 3)],
        "include inc2.dag\n",
    );
    write(
        &env,
        "inc2.dag",
        "pin_in NodeA 1\npin_in NodeB 2\npin_in NodeC 3\npin_out NodeA 3\npin_out NodeB 2\npin_out NodeC 1\n",
    );
    skewer_splice(
        &env,
        "splice3.dag",
        &[("NodeA", 0, 3), ("NodeB", 0, 2), ("NodeC", 0, 1)],
        "pin_in NodeA 1\npin_in NodeB 2\npin_in NodeC 3\npin_out NodeA 2\n",
    );
    write(
        &env,
        "inc1.dag",
        "connect SpliceA SpliceB\nconnect SpliceB SpliceC\n",
    );
    write(
        &env,
        "connect.dag",
        "splice SpliceA splice1.dag\nsplice SpliceB splice2.dag\nsplice SpliceC splice3.dag\ninclude inc1.dag\n",
    );
    assert_eq!(run_dag(&env, "connect.dag", &[]), 0);
    assert_eq!(
        read(&env, "skewer1.out"),
        "SpliceA+NodeA\nSpliceB+NodeA\nSpliceC+NodeC\n"
    );
    assert_eq!(
        read(&env, "skewer2.out"),
        "SpliceA+NodeB\nSpliceB+NodeB\nSpliceC+NodeB\n"
    );
    assert_eq!(
        read(&env, "skewer3.out"),
        "SpliceA+NodeC\nSpliceB+NodeC\nSpliceC+NodeA\n"
    );
}

#[test]
fn splice_connect_through_nested_splices() {
    // job_dagman_splice_connect-B: a splice whose pins are NOOP nodes of its own, connected
    // to splices inside it.
    let env = env();
    skewer_job(&env);
    skewer_splice(
        &env,
        "1.dag",
        &[("Node1A", 0, 1), ("Node1B", 0, 2)],
        "pin_out Node1A 1\npin_out Node1B 2\n",
    );
    let lower = |file: &str, p: &str, skewers: [u32; 3], pins: &str| {
        let names = [format!("{p}-A"), format!("{p}-B"), format!("{p}-C")];
        let nodes: Vec<(&str, u32, u32)> = names
            .iter()
            .zip(skewers)
            .map(|(n, s)| (n.as_str(), 0, s))
            .collect();
        let rest: String = names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{pins} {n} {}\n", i + 1))
            .collect();
        skewer_splice(&env, file, &nodes, &rest);
    };
    lower("2-1a.dag", "Node2-1a", [1, 3, 4], "pin_out");
    lower("2-1b.dag", "Node2-1b", [1, 3, 4], "pin_in");
    lower("2-2a.dag", "Node2-2a", [2, 5, 6], "pin_out");
    lower("2-2b.dag", "Node2-2b", [2, 5, 6], "pin_in");
    write(
        &env,
        "2.dag",
        "splice Splice2Aa 2-1a.dag\nsplice Splice2Ab 2-1b.dag\nsplice Splice2Ba 2-2a.dag\nsplice Splice2Bb 2-2b.dag\n\
         connect Splice2Aa Splice2Ab\nconnect Splice2Ba Splice2Bb\n\
         job SocketPreA foo NOOP\njob SocketPreB foo NOOP\njob SocketPostA foo NOOP\njob SocketPostB foo NOOP\n\
         parent SocketPreA child Splice2Aa\nparent SocketPreB child Splice2Ba\n\
         parent Splice2Ab child SocketPostA\nparent Splice2Bb child SocketPostB\n\
         pin_in SocketPreA 1\npin_in SocketPreB 2\npin_out SocketPostA 1\npin_out SocketPostB 2\n",
    );
    skewer_splice(
        &env,
        "3.dag",
        &[("Node3A", 0, 1), ("Node3B", 0, 2)],
        "pin_in Node3A 1\npin_in Node3B 2\n",
    );
    write(
        &env,
        "b.dag",
        "splice SpliceA 1.dag\nsplice SpliceB 2.dag\nsplice SpliceC 3.dag\nconnect SpliceA SpliceB\nconnect SpliceB SpliceC\n",
    );
    assert_eq!(run_dag(&env, "b.dag", &[]), 0);
    let want = [
        "SpliceA+Node1A\nSpliceB+Splice2Aa+Node2-1a-A\nSpliceB+Splice2Ab+Node2-1b-A\nSpliceC+Node3A\n",
        "SpliceA+Node1B\nSpliceB+Splice2Ba+Node2-2a-A\nSpliceB+Splice2Bb+Node2-2b-A\nSpliceC+Node3B\n",
        "SpliceB+Splice2Aa+Node2-1a-B\nSpliceB+Splice2Ab+Node2-1b-B\n",
        "SpliceB+Splice2Aa+Node2-1a-C\nSpliceB+Splice2Ab+Node2-1b-C\n",
        "SpliceB+Splice2Ba+Node2-2a-B\nSpliceB+Splice2Bb+Node2-2b-B\n",
        "SpliceB+Splice2Ba+Node2-2a-C\nSpliceB+Splice2Bb+Node2-2b-C\n",
    ];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(
            read(&env, &format!("skewer{}.out", i + 1)),
            *w,
            "skewer{}",
            i + 1
        );
    }
}

#[test]
fn splice_connect_with_several_nodes_per_pin() {
    // job_dagman_splice_connect-C: pins with several nodes on either side; each node job
    // prints its DAGParentNodeNames. (HTCondor's job gets it as `$$([DAGParentNodeNames])`
    // in its arguments; condorlite's pool does not expand `$$()` when a job starts, so the
    // job reads it from its own ad, `$_CONDOR_JOB_AD`.)
    let env = env();
    script(
        &env,
        "parents.sh",
        "names=$(sed -n 's/^DAGParentNodeNames = \"\\(.*\\)\"$/\\1/p' \"$_CONDOR_JOB_AD\")\n\
         if [ -n \"$names\" ]; then printf '%s ' \"$names\"; fi; echo",
    );
    write(
        &env,
        "node.sub",
        "executable = parents.sh\noutput = c.$(name).out\nqueue\n",
    );
    let mut s1: String = (0..=6).map(|i| format!("job Node{i} node.sub\n")).collect();
    s1 += &(0..=6)
        .map(|i| format!("vars Node{i} name = \"$(JOB)\"\n"))
        .collect::<String>();
    s1 += &(1..=6)
        .map(|i| format!("parent Node0 child Node{i}\n"))
        .collect::<String>();
    s1 += "pin_out Node1 1\npin_out Node2 1\npin_out Node3 1\npin_out Node3 2\npin_out Node4 2\npin_out Node5 2\npin_out Node6 2\n";
    write(&env, "splice1.dag", &s1);
    let mut s2: String = (1..=4).map(|i| format!("job Node{i} node.sub\n")).collect();
    s2 += &(1..=4)
        .map(|i| format!("vars Node{i} name = \"$(JOB)\"\n"))
        .collect::<String>();
    s2 += "pin_in Node1 1\npin_in Node2 1\npin_in Node2 2\npin_in Node3 2\npin_in Node4 2\n";
    write(&env, "splice2.dag", &s2);
    write(
        &env,
        "c.dag",
        "splice Splice1 splice1.dag\nsplice Splice2 splice2.dag\njob node3 node.sub\nvars node3 name = \"$(JOB)\"\n\
         connect Splice1 Splice2\nparent Splice2 child node3\n",
    );
    assert_eq!(run_dag(&env, "c.dag", &[]), 0);
    let mut want = vec![
        (
            "node3",
            "Splice2+Node1,Splice2+Node2,Splice2+Node3,Splice2+Node4 \n",
        ),
        ("Splice1+Node0", "\n"),
    ];
    for i in 1..=6 {
        want.push((
            [
                "Splice1+Node1",
                "Splice1+Node2",
                "Splice1+Node3",
                "Splice1+Node4",
                "Splice1+Node5",
                "Splice1+Node6",
            ][i - 1],
            "Splice1+Node0 \n",
        ));
    }
    let six =
        "Splice1+Node1,Splice1+Node2,Splice1+Node3,Splice1+Node4,Splice1+Node5,Splice1+Node6 \n";
    let last4 = "Splice1+Node3,Splice1+Node4,Splice1+Node5,Splice1+Node6 \n";
    want.extend([
        (
            "Splice2+Node1",
            "Splice1+Node1,Splice1+Node2,Splice1+Node3 \n",
        ),
        ("Splice2+Node2", six),
        ("Splice2+Node3", last4),
        ("Splice2+Node4", last4),
    ]);
    for (node, w) in want {
        assert_eq!(read(&env, &format!("c.{node}.out")), w, "{node}");
    }
}

#[test]
fn splice_connect_errors_fail_the_dag() {
    // job_dagman_splice_connect-D, -E, -F: a parent splice without pin_outs, a child
    // splice node left without parents, pin counts that differ: the DAG fails to parse.
    // -G: two DAG files, each with connected splices: it runs.
    let env = env();
    let cases = [
        (
            "d",
            "job Node1A - noop\njob Node1B - noop\n",
            "job Node2A - noop\njob Node2B - noop\n",
            "ERROR: parent splice Splice1 has 0 pin_outs",
        ),
        (
            "e",
            "job Node1A - noop\njob Node1B - noop\npin_out Node1A 1\npin_out Node1B 2\n",
            "job Node2A - noop\njob Node2B - noop\njob Node2C - noop\npin_in Node2A 1\npin_in Node2B 2\n",
            "ERROR: child splice node Splice2+Node2C has no parents after making pin connections; add pin_in or parent",
        ),
        (
            "f",
            "job Node1A - noop\njob Node1B - noop\npin_out Node1A 1\npin_out Node1B 2\n",
            "job Node2A - noop\njob Node2B - noop\npin_in Node2A 1\npin_in Node2B 1\n",
            "ERROR: pin_in/out mismatch:  parent splice Splice1 has 2 pin_outs; child splice Splice2 has 1 pin_ins",
        ),
    ];
    for (name, one, two, error) in cases {
        write(&env, &format!("{name}-1.dag"), one);
        write(&env, &format!("{name}-2.dag"), two);
        let dag = format!("{name}.dag");
        write(
            &env,
            &dag,
            &format!("splice Splice1 {name}-1.dag\nsplice Splice2 {name}-2.dag\nconnect Splice1 Splice2\n"),
        );
        assert_eq!(run_dag(&env, &dag, &[]), 1, "{name}");
        let out = dagman_out(&env, &dag);
        assert!(contains(&out, error), "{name}: {out:#?}");
        assert!(submitted(&out).is_empty());
    }

    for u in ["1", "2"] {
        for (side, pin) in [("A", "pin_out"), ("B", "pin_in")] {
            let text: String = ["A", "B", "C"]
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    format!(
                        "job {u}{side}_{n} no_file noop\n{pin} {u}{side}_{n} {}\n",
                        i + 1
                    )
                })
                .collect();
            write(&env, &format!("g-{u}lower{side}.dag"), &text);
        }
        write(
            &env,
            &format!("g-{u}upper.dag"),
            &format!("splice Splice{u}A g-{u}lowerA.dag\nsplice Splice{u}B g-{u}lowerB.dag\nconnect Splice{u}A Splice{u}B\n"),
        );
    }
    assert_eq!(run_dag(&env, "g-1upper.dag", &["-Dag", "g-2upper.dag"]), 0);
    let out = dagman_out(&env, "g-1upper.dag");
    assert!(contains(&out, "All jobs Completed!"), "{out:#?}");
    assert_eq!(submitted(&out).len(), 12);
}

#[test]
fn reject_in_a_splice_stops_the_dag() {
    // job_dagman_reject: a splice's DAG file says REJECT: DAGMan refuses to run.
    let env = env();
    sh_job(&env, "node.sub", "echo OK");
    write(
        &env,
        "reject-0.dag",
        "Job NodeA node.sub\nSplice NodeB reject-1.dag\nJob NodeC node.sub\n\nParent NodeA Child NodeB\nParent NodeB Child NodeC\n",
    );
    write(
        &env,
        "reject-1.dag",
        "Job NodeA node.sub\nJob NodeB node.sub\n\nParent NodeA Child NodeB\n\nReject\n",
    );
    assert_eq!(run_dag(&env, "reject-0.dag", &[]), 1);
    let out = dagman_out(&env, "reject-0.dag");
    assert!(
        out.iter()
            .any(|l| l.starts_with("Exiting because of REJECT specification in ")),
        "{out:#?}"
    );
    assert!(submitted(&out).is_empty());
}

#[test]
fn a_cycle_is_found_when_nothing_more_can_run() {
    // job_dagman_cycle-A: A -> B -> C -> B: A runs, then DAGMan finds the cycle; the node
    // status file says so.
    let env = env();
    sh_job(&env, "node.sub", "true");
    write(
        &env,
        "cycle.dag",
        "Node_status_file cycle.status\n\nJob A node.sub\nJob B node.sub\nJob C node.sub\n\n\
         Parent A Child B\nParent B Child C\nParent C Child B\n",
    );
    assert_eq!(run_dag(&env, "cycle.dag", &[]), 1);
    let out = dagman_out(&env, "cycle.dag");
    assert_eq!(submitted(&out), ["A"]);
    assert!(
        contains(
            &out,
            "... ERROR: a cycle exists in the dag, please check input"
        ),
        "{out:#?}"
    );
    let mut want: Vec<String> = [
        "DagStatus = 6; /* \"STATUS_ERROR (cycle)\" */",
        "NodesTotal = 3;",
        "NodesDone = 1;",
        "NodesPre = 0;",
        "NodesQueued = 0;",
        "NodesPost = 0;",
        "NodesReady = 0;",
        "NodesUnready = 2;",
        "NodesFailed = 0;",
        "JobProcsHeld = 0;",
        "JobProcsIdle = 0;",
    ]
    .map(str::to_owned)
    .to_vec();
    want.extend(node_lines(&[
        ("A", "5; /* \"STATUS_DONE\" */"),
        ("B", "0; /* \"STATUS_NOT_READY\" */"),
        ("C", "0; /* \"STATUS_NOT_READY\" */"),
    ]));
    in_order(
        &read(&env, "cycle.status"),
        &want.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

#[test]
fn node_dir_runs_a_node_and_its_scripts_in_its_directory() {
    // job_dagman_node_dir: NodeB has DIR subdir: its submit file, job, outputs and scripts
    // are in subdir; NodeC names a submit file and scripts in subdir without DIR: they run
    // in the DAG's directory.
    let env = env();
    let job = |dir: &str| {
        format!(
            "executable = /bin/echo\narguments = $(nodename)\noutput = node_dir-$(nodename).out\nlog = {dir}node_dir.nodelog\nqueue\n"
        )
    };
    write(&env, "node.sub", &job(""));
    write(&env, "subdir/nodeB.sub", &job(""));
    write(
        &env,
        "subdir/nodeC.sub",
        "executable = /bin/echo\narguments = $(nodename)\noutput = subdir/node_dir-$(nodename).out\nlog = subdir/nodeC.nodelog\nqueue\n",
    );
    let pre = "echo \"$1 pre script\" > node_dir-$1-pre.out";
    let post = "echo \"$1 post script\" > node_dir-$1-post.out; exit $2";
    for dir in ["", "subdir/"] {
        script(&env, &format!("{dir}pre.sh"), pre);
        script(&env, &format!("{dir}post.sh"), post);
    }
    write(
        &env,
        "node_dir.dag",
        "Job NodeA node.sub\nVars NodeA nodename=\"$(JOB)\"\nScript pre NodeA pre.sh $JOB\nScript post NodeA post.sh $JOB $RETURN\n\n\
         Job NodeB nodeB.sub DIR subdir\nVars NodeB nodename=\"$(JOB)\"\nScript pre NodeB pre.sh $JOB\nScript post NodeB post.sh $JOB $RETURN\n\n\
         Job NodeC subdir/nodeC.sub\nVars NodeC nodename=\"$(JOB)\"\nScript pre NodeC subdir/pre.sh $JOB\nScript post NodeC subdir/post.sh $JOB $RETURN\n\n\
         Job NodeD node.sub\nVars NodeD nodename=\"$(JOB)\"\nScript pre NodeD pre.sh $JOB\nScript post NodeD post.sh $JOB $RETURN\n\n\
         Parent NodeA Child NodeB NodeC\nParent NodeB NodeC Child NodeD\n",
    );
    assert_eq!(run_dag(&env, "node_dir.dag", &[]), 0);
    for f in [
        "node_dir-NodeA-pre.out",
        "node_dir-NodeA.out",
        "node_dir-NodeA-post.out",
        "subdir/node_dir-NodeB-pre.out",
        "subdir/node_dir-NodeB-post.out",
        "subdir/node_dir-NodeB.out",
        "node_dir-NodeC-pre.out",
        "node_dir-NodeC-post.out",
        "subdir/node_dir-NodeC.out",
        "node_dir-NodeD-pre.out",
        "node_dir-NodeD-post.out",
        "node_dir-NodeD.out",
    ] {
        assert!(exists(&env, f), "{f}");
    }
    assert!(!exists(&env, "node_dir-NodeB.out"));
    assert_eq!(read(&env, "subdir/node_dir-NodeB.out"), "NodeB\n");
    assert!(
        exists(&env, "subdir/node_dir.nodelog"),
        "NodeB's log is in its DIR"
    );
}

#[test]
fn set_job_attr_append_and_insert_sub_file_reach_dagmans_ad() {
    // job_dagman_set_attr, under the master: two DAG files with SET_JOB_ATTR lines (the
    // second file's value wins), condor_submit_dag's -append lines (which win over
    // SET_JOB_ATTR) and -insert_sub_file; each node job prints DAGMan's ad with condor_q.
    let env = env();
    let _master = Master::start(&env);
    let condor_q = assert_cmd::cargo::cargo_bin("condor_q");
    for node in ["nodeA", "nodeB"] {
        write(
            &env,
            &format!("{node}.sub"),
            &format!(
                "universe = scheduler\nexecutable = {}\narguments = -l $(DAGManJobId)\n\
                 output = set_attr-{node}.out\nerror = set_attr-{node}.err\ngetenv = true\nqueue\n",
                condor_q.display()
            ),
        );
    }
    write(
        &env,
        "set_attr1.dag",
        "SET_JOB_ATTR test_attr0 = Bodrum\nSET_JOB_ATTR test_attr1 = 123\nSET_JOB_ATTR test_attr2 = 0.543\n\
         SET_JOB_ATTR test_attr2 = \"0.987 6.402\"\n\nJob NodeA nodeA.sub\n",
    );
    write(
        &env,
        "set_attr2.dag",
        "SET_JOB_ATTR \\\n\ttest_attr1 = 234\nSET_JOB_ATTR test_attr6 = 987\n\nJob NodeB nodeB.sub\n",
    );
    write(&env, "set_attr.sub", "+test_attr4 = 3.14159\n");
    let dag = submit_dag(
        &env,
        &[
            "-append",
            "+test_attr0 = Dalyan",
            "-append",
            "+test_attr3 = Vrsic",
            "-insert_sub_file",
            "set_attr.sub",
            "set_attr1.dag",
            "set_attr2.dag",
        ],
    );
    wait_gone(&env, &dag);
    assert_eq!(history_attr(&env, &dag, "ExitCode"), "0");
    for node in ["nodeA", "nodeB"] {
        let ad = read(&env, &format!("set_attr-{node}.out"));
        for line in [
            "test_attr0 = Dalyan",
            "test_attr1 = 234",
            "test_attr2 = \"0.987 6.402\"",
            "test_attr3 = Vrsic",
            "test_attr4 = 3.14159",
            "test_attr6 = 987",
        ] {
            assert!(
                ad.lines().any(|l| l == line),
                "{node}: no {line:?} in\n{ad}"
            );
        }
    }
}

#[test]
fn metrics_files_of_nested_dags() {
    // job_dagman_metrics-A, under the master: an upper DAG with a splice holding a SUBDAG
    // EXTERNAL, and a SUBDAG EXTERNAL whose node L2 fails; each of the three DAGMans writes
    // its metrics file, counting its plain nodes and its sub-DAG nodes apart (the .run file
    // checks only that they exist; the counts follow dagman_metrics.cpp).
    let env = env();
    let _master = Master::start(&env);
    write(
        &env,
        "node.sub",
        "executable = /bin/sh\narguments = \"-c 'echo Running node $(nodename); test $(nodename) != L2'\"\n\
         output = metrics-$(nodename).out\nqueue\n",
    );
    let nodes = |names: &[&str]| -> String {
        names
            .iter()
            .map(|n| format!("Job {n} node.sub\nVars {n} nodename=\"$(JOB)\"\n\n"))
            .collect()
    };
    write(
        &env,
        "upper.dag",
        &(nodes(&["A1", "A2", "A3", "A4", "A5"])
            + "Splice B splice.dag\n\nSubdag external C lower.dag\n\n"
            + &nodes(&["D"])
            + "Parent A1 A2 A3 A4 A5 Child B\nParent B Child C\nParent C Child D\n"),
    );
    write(&env, "lower.dag", &nodes(&["L1", "L2", "L3", "L4"]));
    write(
        &env,
        "splice.dag",
        &(nodes(&["S1", "S2", "S3", "S4", "S5"])
            + "Subdag external L1 splice-lower.dag\n\nParent S1 S2 S3 S4 S5 Child L1\n"),
    );
    write(&env, "splice-lower.dag", &nodes(&["SL1", "SL2", "SL3"]));
    let dag = submit_dag(&env, &["upper.dag"]);
    wait_gone(&env, &dag);
    assert_eq!(history_attr(&env, &dag, "ExitCode"), "1");
    for file in ["upper.dag", "splice-lower.dag", "lower.dag"] {
        assert!(exists(&env, &format!("{file}.dagman.out")), "{file}");
    }
    let metrics = |file: &str| -> serde_json::Value {
        serde_json::from_str(&read(&env, &format!("{file}.metrics"))).unwrap()
    };
    let counts = |m: &serde_json::Value| -> Vec<i64> {
        [
            "exitcode",
            "jobs",
            "jobs_failed",
            "jobs_succeeded",
            "dag_jobs",
            "dag_jobs_failed",
            "dag_jobs_succeeded",
            "total_jobs",
            "total_jobs_run",
            "DagStatus",
        ]
        .iter()
        .map(|k| m[k].as_i64().unwrap_or_else(|| panic!("{k} in {m}")))
        .collect()
    };
    let upper = metrics("upper.dag");
    // A1-5, B+S1-5, D and the NOOP join node that `Parent A1 A2 A3 A4 A5 Child B` (B's five
    // initial nodes) makes are plain, B+L1 and C sub-DAGs; D never runs; C fails.
    assert_eq!(
        counts(&upper),
        [1, 12, 0, 11, 2, 1, 1, 14, 13, 2],
        "{upper}"
    );
    assert_eq!(upper["dagman_id"], dag.as_str());
    assert_eq!(upper["parent_dagman_id"], "");
    let lower = metrics("lower.dag");
    assert_eq!(counts(&lower), [1, 4, 1, 3, 0, 0, 0, 4, 4, 2], "{lower}");
    let splice_lower = metrics("splice-lower.dag");
    assert_eq!(
        counts(&splice_lower),
        [0, 3, 0, 3, 0, 0, 0, 3, 3, 0],
        "{splice_lower}"
    );
    for m in [&lower, &splice_lower] {
        assert_eq!(m["parent_dagman_id"], dag.as_str(), "{m}");
        assert_ne!(m["dagman_id"], dag.as_str(), "{m}");
    }
    assert!(!exists(&env, "metrics-D.out"));
}

#[test]
fn maxpre_and_maxpost_cap_the_scripts_running_at_once() {
    // job_dagman_maxprescripts and job_dagman_maxpostscripts: 20 nodes whose scripts log
    // "open", take a while and log "close", run with -MaxPre 4 (-MaxPost 4); the flow log
    // never has more than 4 open (x_dagman_readflowlog MAXPRE 4).
    let env = env();
    sh_job(&env, "node.sub", "true");
    script(
        &env,
        "checkin.sh",
        "echo open >> $1.flow; sleep 0.2; echo close >> $1.flow",
    );
    for kind in ["PRE", "POST"] {
        let mut dag = String::new();
        for i in 0..20 {
            dag += &format!("Job NODE{i} node.sub\nScript {kind} NODE{i} checkin.sh {kind}\n");
        }
        let file = format!("{kind}.dag");
        write(&env, &file, &dag);
        let flag = if kind == "PRE" { "-MaxPre" } else { "-MaxPost" };
        assert_eq!(run_dag(&env, &file, &[flag, "4"]), 0, "{kind}");
        let (mut open, mut peak, mut total) = (0, 0, 0);
        for line in read(&env, &format!("{kind}.flow")).lines() {
            if line == "open" {
                open += 1;
                total += 1;
                peak = peak.max(open);
            } else {
                open -= 1;
            }
        }
        assert_eq!((total, open), (20, 0), "{kind}");
        assert!(peak <= 4, "{peak} {kind} scripts at once");
        // The first 4 scripts start together; the other 16 wait at least once.
        let out = dagman_out(&env, &file);
        let limit = if kind == "PRE" { "-MaxPre" } else { "-MaxPost" };
        let note = out
            .iter()
            .rev()
            .find_map(|l| {
                l.strip_prefix("Note: ")?.strip_suffix(&format!(
                    " total {kind} script deferrals because of {limit} limit (4) or DEFER"
                ))
            })
            .unwrap_or_else(|| panic!("{out:#?}"));
        assert!(note.parse::<u32>().unwrap() >= 16, "{note}");
    }
}

/// A DAGMan run by hand, killed if the test fails before it ends.
struct Running<'a> {
    env: &'a TestEnvironment,
    dag: &'a str,
    child: Option<std::process::Child>,
}

impl Running<'_> {
    fn wait(mut self) -> i32 {
        wait_dag(self.env, self.dag, self.child.take().unwrap())
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn maxidle_defers_submits_while_jobs_are_idle() {
    // job_dagman_maxidle-C/-D (which HTCondor runs by hand, with jobs that stay idle): one
    // slot (NUM_CPUS = 1) whose first job waits for the file `go`, so the jobs after it stay
    // idle; with -MaxIdle 2 and one submit per cycle (DAGMAN_MAX_SUBMITS_PER_INTERVAL = 1:
    // DAGMan counts a job idle from its submit event, so a cycle's own submits are not
    // counted in it, in HTCondor too) DAGMan stops with 3 jobs queued, until jobs run.
    let mut env = env();
    env.set_env("_CONDOR_NUM_CPUS", "1");
    write(&env, "idle.config", "DAGMAN_MAX_SUBMITS_PER_INTERVAL = 1\n");
    sh_job(
        &env,
        "node.sub",
        "i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done",
    );
    let dag: String = (0..6).map(|i| format!("Job A{i} node.sub\n")).collect();
    write(&env, "idle.dag", &dag);
    let config = [("_CONDOR_DAGMAN_CONFIG_FILE", "idle.config")];
    let running = Running {
        env: &env,
        dag: "idle.dag",
        child: Some(spawn_dag(
            &env,
            "idle.dag",
            &["-MaxIdle", "2", "-debug", "4"],
            &config,
        )),
    };
    let deferring = "Hit max number of idle DAG nodes (2); deferring submission of 3 ready nodes.";
    wait_for("DAGMan to stop at 2 idle jobs", || {
        exists(&env, "idle.dag.dagman.out") && contains(&dagman_out(&env, "idle.dag"), deferring)
    });
    assert_eq!(submitted(&dagman_out(&env, "idle.dag")), ["A0", "A1", "A2"]);
    write(&env, "go", "");
    assert_eq!(running.wait(), 0);
    // No more than 2 jobs were ever idle (submitted, not yet executing) at once.
    let (mut idle, mut peak) = (0i32, 0i32);
    for line in read(&env, "job.log").lines() {
        if line.starts_with("000 (") {
            idle += 1;
            peak = peak.max(idle);
        } else if line.starts_with("001 (") {
            idle -= 1;
        }
    }
    assert!(peak <= 2, "{peak} idle jobs");
    let out = dagman_out(&env, "idle.dag");
    assert_eq!(submitted(&out).len(), 6);
    assert!(out.iter().any(|l| l.starts_with("Note: ")
        && l.ends_with(" total node deferrals because of -MaxIdle limit (2)")));
}

#[test]
fn unless_exit_stops_the_retries() {
    // job_dagman_unlessexit: RETRY NODERET 1 UNLESS-EXIT 3, and the node's POST script
    // returns its job's exit: a job exiting 3 is not retried, and the rescue DAG says why.
    let env = env();
    sh_job(&env, "ret.sub", "exit $(code)");
    script(
        &env,
        "monitor.sh",
        "echo \"Node status passed in is $1\"; exit $1",
    );
    for (code, runs) in [(3, 1), (2, 2)] {
        let dag = format!("unless{code}.dag");
        write(
            &env,
            &dag,
            &format!(
                "Job NODERET ret.sub\nVars NODERET code=\"{code}\"\nScript POST NODERET ./monitor.sh $RETURN\n\
                 Retry\tNODERET\t1 UNLESS-EXIT 3\n"
            ),
        );
        assert_eq!(run_dag(&env, &dag, &[]), 1, "{code}");
        let out = dagman_out(&env, &dag);
        assert_eq!(submitted(&out).len(), runs, "{code}: {out:#?}");
        let rescue = read(&env, &format!("{dag}.rescue001"));
        assert!(
            rescue.contains("\nRETRY NODERET 1 UNLESS-EXIT 3\n"),
            "{rescue}"
        );
        let aborted =
            "# 0 of 1 retries performed; remaining attempts aborted after node returned 3\n";
        if code == 3 {
            assert!(contains(
                &out,
                "Aborting further retries of node NODERET (last attempt returned 3)"
            ));
            assert!(rescue.contains(aborted), "{rescue}");
        } else {
            assert!(contains(&out, "Retrying node NODERET (retry #1 of 1)..."));
            assert!(!rescue.contains("remaining attempts aborted"), "{rescue}");
        }
    }
}

#[test]
fn retries_after_pre_script_job_and_post_script_failures() {
    // job_dagman_retry-B: each node fails in another place on each retry (PRE script, job,
    // POST script) until it succeeds; NOOP nodes are retried too. DAGMAN_ALWAYS_RUN_POST is
    // False: a failed PRE script skips the POST script.
    let env = env();
    write(
        &env,
        "retry-B.config",
        "DAGMAN_ALWAYS_RUN_POST = False\nDAGMAN_MAX_SUBMIT_ATTEMPTS = 2\n",
    );
    // A PRE script that fails on retry 0 and otherwise records its retry for the job; a job
    // that fails unless its PRE script's retry is above 1; a POST script that fails unless
    // its retry is above `$2`.
    script(
        &env,
        "pre.sh",
        "if [ $1 -gt 0 ]; then echo $1 > $2.retry; else exit 1; fi",
    );
    sh_job(&env, "retried.sub", "test $(cat $(JOB).retry) -gt 1");
    script(&env, "post-retry.sh", "test $1 -gt $2");
    // A job that fails while its .fail file is there (removing it), a POST script returning
    // the job's exit.
    sh_job(
        &env,
        "once.sub",
        "if [ -e $(JOB).fail ]; then rm $(JOB).fail; exit 1; fi",
    );
    script(&env, "post-return.sh", "exit $1");
    for f in ["NodeC.fail", "NodeD.fail"] {
        write(&env, f, "");
    }
    write(
        &env,
        "retry-B.dag",
        "Config retry-B.config\n\
         Job NodeA retried.sub\nScript Pre NodeA pre.sh $RETRY NodeA\nScript Post NodeA post-retry.sh $RETRY 2\nRetry NodeA 3\n\
         Job NodeB retried.sub\nScript Pre NodeB pre.sh $RETRY NodeB\nRetry NodeB 2\n\
         Job NodeC once.sub\nScript Post NodeC post-return.sh $RETURN\nRetry NodeC 1\n\
         Job NodeD once.sub\nRetry NodeD 1\n\
         Job NodeE foobar Noop\nScript Post NodeE post-retry.sh $RETRY 0\nRetry NodeE 1\n\
         Job NodeF foobar Noop\nScript Pre NodeF pre.sh $RETRY NodeF\nRetry NodeF 1\n\
         Parent NodeA Child NodeB\nParent NodeB Child NodeC\nParent NodeC Child NodeD\n\
         Parent NodeD Child NodeE\nParent NodeE Child NodeF\n",
    );
    let config = [("_CONDOR_DAGMAN_CONFIG_FILE", "retry-B.config")];
    assert_eq!(run_dag_with(&env, "retry-B.dag", &["-verbose"], &config), 0);
    let out = dagman_out(&env, "retry-B.dag");
    for (node, n, of) in [
        ("NodeA", 1, 3),
        ("NodeA", 2, 3),
        ("NodeA", 3, 3),
        ("NodeB", 1, 2),
        ("NodeB", 2, 2),
        ("NodeC", 1, 1),
        ("NodeD", 1, 1),
        ("NodeE", 1, 1),
        ("NodeF", 1, 1),
    ] {
        let line = format!("Retrying node {node} (retry #{n} of {of})...");
        assert!(contains(&out, &line), "no {line:?} in {out:#?}");
    }
    // Retry 0 of A and B fails in the PRE script: no job. A's job runs on retries 1-3, B's
    // on 1-2, C's and D's twice; the NOOP nodes' fake jobs on each try the PRE script allows.
    let count = |node: &str| submitted(&out).iter().filter(|n| *n == node).count();
    assert_eq!(
        ["NodeA", "NodeB", "NodeC", "NodeD", "NodeE", "NodeF"].map(count),
        [3, 2, 2, 2, 2, 1]
    );
    // Without DAGMAN_ALWAYS_RUN_POST, A's POST script runs after its jobs only.
    let posts = out
        .iter()
        .filter(|l| l.starts_with("Running POST script of Node NodeA"))
        .count();
    assert_eq!(posts, 3);
}

#[test]
fn abort_dag_on_with_a_final_node_that_fails() {
    // job_dagman_abort-final-A, under the master: C exits 5 and `Abort-dag-on C 5 return 0`
    // aborts the DAG while C2 sleeps: C2 is removed, D never runs, and the FINAL node E
    // still runs (DAG_STATUS 0: RETURN 0; FAILED_COUNT 1, C2's removal not counted yet) and
    // fails, which fails the DAG. (HTCondor 24.0 no longer runs this test: its CMakeLists
    // line is commented out, and its .run still expects D NOT_READY, from before futile
    // nodes; dag.cpp's ProcessTerminatedEvent makes D futile when C fails without a POST
    // script or retries, as here.)
    let env = env();
    let _master = Master::start(&env);
    let succeed = "executable = /bin/echo\narguments = node.cmd $(nodename) OK\noutput = node.$(nodename).out\nqueue\n";
    write(&env, "succeed.sub", succeed);
    sh_job(&env, "fail.sub", "exit 5");
    sh_job(&env, "sleep.sub", "sleep 9999");
    write(
        &env,
        "nodeE.sub",
        "executable = /bin/sh\narguments = \"-c 'echo \"\"  DAG_STATUS=$(DAG_STATUS)\"\"; \
         echo \"\"  FAILED_COUNT=$(FAILED_COUNT)\"\"; echo E; exit 1'\"\noutput = nodeE.out\nqueue\n",
    );
    script(
        &env,
        "nodeE-pre.sh",
        "echo \"FailedCount: $1\" > nodeE-pre.out",
    );
    write(
        &env,
        "abort.dag",
        "NODE_STATUS_FILE abort.status 600\n\nJob A succeed.sub\nVars A nodename = \"$(JOB)\"\n\
         Job B succeed.sub\nVars B nodename = \"$(JOB)\"\nJob C2 sleep.sub\nJob C fail.sub\n\
         Vars C nodename = \"$(JOB)\"\nJob D fail.sub\nVars D nodename = \"$(JOB)\"\n\n\
         Final E nodeE.sub\nScript Pre E nodeE-pre.sh $FAILED_COUNT\n\nAbort-dag-on C 5 return 0\n\n\
         PARENT A CHILD B\nPARENT B CHILD C C2\nPARENT C CHILD D\n",
    );
    let dag = submit_dag(&env, &["abort.dag"]);
    wait_gone(&env, &dag);
    assert_eq!(history_attr(&env, &dag, "ExitCode"), "1");
    for node in ["A", "B"] {
        assert!(
            read(&env, &format!("node.{node}.out")).contains("OK"),
            "{node}"
        );
    }
    // E's PRE script starts as the DAG aborts: one node (C) has failed. E's job gets the
    // DAG's status and failed count when it is submitted, after its PRE script: HTCondor
    // submits it at its next 1 s timer tick, before it reads C2's removal (DAG_STATUS 0,
    // FAILED_COUNT 1, what the .run file expects); condorlite's DAGMan reads the log as it
    // grows, and may have counted C2's removal by then (DAG_STATUS 2, FAILED_COUNT 2).
    let final_out = read(&env, "nodeE.out");
    let seen: Vec<&str> = final_out.lines().collect();
    assert!(
        seen == ["  DAG_STATUS=0", "  FAILED_COUNT=1", "E"]
            || seen == ["  DAG_STATUS=2", "  FAILED_COUNT=2", "E"],
        "{final_out}"
    );
    assert_eq!(read(&env, "nodeE-pre.out"), "FailedCount: 1\n");
    let mut want: Vec<String> = [
        "DagStatus = 6; /* \"STATUS_ERROR (failed)\" */",
        "NodesTotal = 6;",
        "NodesDone = 2;",
        "NodesPre = 0;",
        "NodesQueued = 0;",
        "NodesPost = 0;",
        "NodesReady = 0;",
        "NodesUnready = 0;",
        "NodesFutile = 1;",
        "NodesFailed = 3;",
        "JobProcsHeld = 0;",
        "JobProcsIdle = 0;",
        "Node = \"A\";",
        "NodeStatus = 5;",
        "Node = \"B\";",
        "NodeStatus = 5;",
        "Node = \"C2\";",
        "NodeStatus = 6; /* \"STATUS_ERROR\" */",
        "ULOG_JOB_ABORTED",
        "Node = \"C\";",
        "NodeStatus = 6;",
        "Node = \"D\";",
        "NodeStatus = 7; /* \"STATUS_FUTILE\" */",
        "Node = \"E\";",
        "NodeStatus = 6;",
    ]
    .map(str::to_owned)
    .to_vec();
    want.dedup();
    in_order(
        &read(&env, "abort.status"),
        &want.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

#[test]
fn abort_dag_on_from_a_pre_script_with_a_final_node_that_succeeds() {
    // job_dagman_abort-final-B: C's PRE script exits 5 and `Abort-dag-on C 5 return 1`
    // aborts the DAG (DAG_STATUS 3, DAG_STATUS_ABORT); D is futile; the FINAL node E runs
    // and succeeds, which makes the DAG succeed.
    let env = env();
    let succeed = "executable = /bin/echo\narguments = node.cmd $(nodename) OK\noutput = node.$(nodename).out\nqueue\n";
    write(&env, "succeed.sub", succeed);
    sh_job(&env, "fail.sub", "exit 5");
    script(&env, "script.sh", "exit 5");
    write(
        &env,
        "nodeE.sub",
        "executable = /bin/sh\narguments = \"-c 'echo \"\"  DAG_STATUS=$(DAG_STATUS)\"\"; \
         echo \"\"  FAILED_COUNT=$(FAILED_COUNT)\"\"; echo E'\"\noutput = nodeE.out\nqueue\n",
    );
    write(
        &env,
        "abort.dag",
        "NODE_STATUS_FILE abort.status 600\n\nJob A succeed.sub\nVars A nodename = \"$(JOB)\"\n\
         Job B succeed.sub\nVars B nodename = \"$(JOB)\"\nJob C fail.sub\nVars C nodename = \"$(JOB)\"\n\
         Script Pre C script.sh\nJob D fail.sub\nVars D nodename = \"$(JOB)\"\n\n\
         Final E nodeE.sub\n\nAbort-dag-on C 5 return 1\n\nPARENT A CHILD B\nPARENT B CHILD C\nPARENT C CHILD D\n",
    );
    assert_eq!(run_dag(&env, "abort.dag", &[]), 0);
    let out = dagman_out(&env, "abort.dag");
    assert_eq!(submitted(&out), ["A", "B", "E"]);
    assert!(contains(
        &out,
        "Aborting DAG because we got the ABORT exit value from a PRE script"
    ));
    let final_out = read(&env, "nodeE.out");
    for line in ["  DAG_STATUS=3", "  FAILED_COUNT=1", "E"] {
        assert!(
            final_out.lines().any(|l| l == line),
            "{line:?} in {final_out}"
        );
    }
    let mut want: Vec<String> = [
        "DagStatus = 5; /* \"STATUS_DONE (success)\" */",
        "NodesTotal = 5;",
        "NodesDone = 3;",
        "NodesPre = 0;",
        "NodesQueued = 0;",
        "NodesPost = 0;",
        "NodesReady = 0;",
        "NodesUnready = 0;",
        "NodesFutile = 1",
        "NodesFailed = 1;",
        "JobProcsHeld = 0;",
        "JobProcsIdle = 0;",
    ]
    .map(str::to_owned)
    .to_vec();
    want.extend(node_lines(&[
        ("A", "5; /* \"STATUS_DONE\" */"),
        ("B", "5; /* \"STATUS_DONE\" */"),
        ("C", "6; /* \"STATUS_ERROR\" */"),
        ("D", "7; /* \"STATUS_FUTILE\" */"),
        ("E", "5; /* \"STATUS_DONE\" */"),
    ]));
    in_order(
        &read(&env, "abort.status"),
        &want.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

#[test]
fn noop_nodes_in_subdag_retries_rescues_and_recovery() {
    // job_dagman_noop_node, under the master: the lower DAG is a SUBDAG EXTERNAL with RETRY
    // 3 of the upper one. Its nodeB2 fails on the first run (rescue001) and nodeD1 on the
    // second (rescue002); on the third, nodeF holds and releases the lower DAGMan, which
    // recovers from its log. NOOP nodes (with PRE and POST scripts, with DIR, with an
    // initialdir, a log of their own, an XML log, a NOOP SUBDAG) never run a job but run
    // their scripts. No "Unexpected submit event" on the way. (nodeF waits for the held
    // DAGMan's run to have ended, CurrentHosts 0, where HTCondor's sleeps 10 s: condorlite's
    // master loses a release that comes while a held scheduler-universe job is still
    // exiting, the job left idle with CurrentHosts 1, never to start again.)
    let env = env();
    let _master = Master::start(&env);
    let bin = assert_cmd::cargo::cargo_bin("condor_hold");
    let bin = bin.parent().unwrap().display();
    let job = |exe: &str, extra: &str| {
        format!(
            "executable = {exe}\narguments = $(nodename)\nuniverse = scheduler\n\
             output = noop-$(nodename).out\nerror = noop-$(nodename).err\n{extra}queue\n"
        )
    };
    script(
        &env,
        "conditional.sh",
        "f=noop-$1.works; if [ -e $f ]; then rm $f; echo \"$1 succeeded\"; else touch $f; echo \"$1 failed\"; exit 1; fi",
    );
    script(&env, "normal.sh", "echo \"$1 succeeded\"");
    script(
        &env,
        "setup.sh",
        "rm -f noop-node*.works subdir/noop-node*.works; echo \"$1 succeeded\"",
    );
    script(
        &env,
        "hold-release.sh",
        &format!(
            "{bin}/condor_hold $2\n\
             while [ \"$({bin}/condor_q $2 -af JobStatus CurrentHosts)\" != \"5 0\" ]; do sleep 0.05; done\n\
             {bin}/condor_release $2\necho \"$1 succeeded\""
        ),
    );
    script(
        &env,
        "script.sh",
        "echo \"$1 result: <$3> \" > noop-$1-$2.out; exit $3",
    );
    write(&env, "conditional.sub", &job("conditional.sh", ""));
    write(&env, "setup.sub", &job("setup.sh", ""));
    write(
        &env,
        "hold-release.sub",
        &job("hold-release.sh", "getenv = true\n")
            .replace("$(nodename)\n", "$(nodename) $(DAGManJobId)\n"),
    );
    write(
        &env,
        "withlog.sub",
        &job("conditional.sh", "log = noop-nodeD.log\n"),
    );
    write(
        &env,
        "xmllog.sub",
        &job("normal.sh", "log = noop-nodeEF.log\nlog_xml = true\n"),
    );
    write(
        &env,
        "initialdir.sub",
        &job(
            "conditional.sh",
            "initialdir = subdir\nlog = noop-initialdir.log\n",
        ),
    );
    std::fs::create_dir_all(env.work_dir().join("subdir")).unwrap();
    write(&env, "dummy.dag", "# Dummy DAG file for noop subdag.\n");
    write(
        &env,
        "upper.dag",
        "Job nodeUA setup.sub\nVars nodeUA nodename=\"$(JOB)\"\n\
         Subdag External nodeUB lower.dag\nRetry nodeUB 3\n\
         Subdag External nodeUC dummy.dag Noop\nScript Pre nodeUC script.sh $JOB pre 0\nScript Post nodeUC script.sh $JOB post $RETURN\n\
         Job nodeUD withlog.sub Noop\nScript Pre nodeUD script.sh $JOB pre 0\nScript Post nodeUD script.sh $JOB post $RETURN\n\
         Job nodeUE xmllog.sub\nScript Post nodeUE script.sh $JOB post $RETURN\n\
         Job nodeUF xmllog.sub Noop\nScript Post nodeUF script.sh $JOB post $RETURN\n\
         Parent nodeUA Child nodeUB\nParent nodeUB Child nodeUC nodeUD\nParent nodeUD Child nodeUE\nParent nodeUE Child nodeUF\n",
    );
    write(
        &env,
        "lower.dag",
        "Job nodeA conditional.sub\nVars nodeA nodename=\"$(JOB)\"\nRetry nodeA 1\n\
         Job nodeB1 conditional.sub Noop\nVars nodeB1 nodename=\"$(JOB)\"\nScript Pre nodeB1 script.sh $JOB pre 0\nScript Post nodeB1 script.sh $JOB post $RETURN\n\
         Job nodeB2 conditional.sub\nVars nodeB2 nodename=\"$(JOB)\"\nScript Pre nodeB2 script.sh $JOB pre 0\nScript Post nodeB2 script.sh $JOB post $RETURN\n\
         Job nodeC conditional.sub Noop\nVars nodeC nodename=\"$(JOB)\"\n\
         Job nodeD1 conditional.sub\nVars nodeD1 nodename=\"$(JOB)\"\n\
         Job nodeD2 initialdir.sub Noop\nVars nodeD2 nodename=\"$(JOB)\"\nScript Pre nodeD2 script.sh $JOB pre 0\nScript Post nodeD2 script.sh $JOB post $RETURN\n\
         Job nodeD3 dir.sub Dir subdir Noop\nVars nodeD3 nodename=\"$(JOB)\"\nScript Pre nodeD3 ../script.sh $JOB pre 0\nScript Post nodeD3 ../script.sh $JOB post $RETURN\n\
         Job nodeE conditional.sub Noop\nVars nodeE nodename=\"$(JOB)\"\n\
         Job nodeF hold-release.sub\nVars nodeF nodename=\"$(JOB)\"\n\
         Job nodeG conditional.sub Noop\nVars nodeG nodename=\"$(JOB)\"\n\
         Parent nodeA Child nodeB1 nodeB2\nParent nodeB1 nodeB2 Child nodeC\nParent nodeC Child nodeD1 nodeD2 nodeD3\n\
         Parent nodeD1 nodeD2 nodeD3 Child nodeE\nParent nodeE Child nodeF\nParent nodeF Child nodeG\n",
    );
    let dag = submit_dag(&env, &["upper.dag"]);
    wait_gone(&env, &dag);
    assert_eq!(history_attr(&env, &dag, "ExitCode"), "0");
    for file in ["lower.dag.dagman.out", "upper.dag.dagman.out"] {
        let out = read(&env, file);
        assert!(out.contains("EXITING WITH STATUS 0"), "{file}: {out}");
        assert!(!out.contains("Unexpected submit event"), "{file}: {out}");
        assert!(!out.contains("Assertion ERROR"), "{file}");
    }
    for f in [
        "lower.dag.rescue001",
        "lower.dag.rescue002",
        "noop-nodeA.out",
        "noop-nodeB1-pre.out",
        "noop-nodeB1-post.out",
        "noop-nodeB2.out",
        "noop-nodeB2-pre.out",
        "noop-nodeB2-post.out",
        "noop-nodeD1.out",
        "noop-nodeD2-pre.out",
        "noop-nodeD2-post.out",
        "subdir/noop-nodeD3-pre.out",
        "subdir/noop-nodeD3-post.out",
        "noop-nodeF.out",
        "noop-nodeUA.out",
        "noop-nodeUC-pre.out",
        "noop-nodeUC-post.out",
        "noop-nodeUD-pre.out",
        "noop-nodeUD-post.out",
        "noop-nodeUE-post.out",
        "noop-nodeUF-post.out",
    ] {
        assert!(exists(&env, f), "{f}");
    }
    // NOOP nodes run no job.
    for f in [
        "noop-nodeB1.out",
        "noop-nodeC.out",
        "noop-nodeE.out",
        "noop-nodeG.out",
        "noop-nodeUF.out",
    ] {
        assert!(!exists(&env, f), "{f}");
    }
    // (The upper nodes have no `nodename`: nodeUE's job writes noop-.out, in HTCondor too.)
    assert_eq!(read(&env, "noop-.out"), " succeeded\n");
    let lower = read(&env, "lower.dag.dagman.out");
    assert!(lower.contains("Running in RECOVERY mode..."), "{lower}");
    assert!(
        lower.contains("USING RESCUE DAG lower.dag.rescue002"),
        "{lower}"
    );
    // The upper DAG ran the lower one three times.
    let upper = dagman_out(&env, "upper.dag");
    assert_eq!(
        submitted(&upper).iter().filter(|n| *n == "nodeUB").count(),
        3,
        "{upper:#?}"
    );
}
