//! The engine against a simulated pool: jobs "run" as soon as they are submitted and end as
//! each test says, scripts exit as each test says, and every event the engine writes to the
//! nodes log comes back to it, as with the real pool. The cases are HTCondor's own DAGMan
//! tests (src/condor_tests/job_dagman_*, test_dagman_*), by their expected outcomes.

use std::collections::{HashMap, VecDeque};

use super::*;
use crate::dagman::parse::{ParseOptions, Parser};
use crate::eventlog::{Execute, JobAborted, JobHeld, JobReleased};

/// A submit: the node's name, its cluster, the variables it was given.
type SubmitRecord = (String, i32, Vec<(String, String, bool)>);

/// The simulated pool and process.
#[derive(Default)]
struct Sim {
    log: Vec<(Level, String)>,
    next_cluster: i32,
    /// Node name -> exit codes of its job's runs, in order (the last one repeats; default 0).
    job_exits: HashMap<String, Vec<i32>>,
    /// (node, kind) -> exit codes of the script's runs (default 0).
    script_exits: HashMap<(String, ScriptKind), Vec<i32>>,
    /// Nodes whose submit fails.
    fail_submit: Vec<String>,
    /// Every submit: node name, cluster, the variables it was given.
    submits: Vec<SubmitRecord>,
    /// Every script run: node name, kind, argv.
    scripts: Vec<(String, ScriptKind, Vec<String>)>,
    /// Scripts running: pid -> (node, kind).
    running: HashMap<u32, (String, ScriptKind)>,
    next_pid: u32,
    /// Events on their way to the nodes log and back.
    events: VecDeque<Event>,
    removed: Vec<(Option<i32>, String)>,
    jobstate: Vec<String>,
    rescues: Vec<String>,
    /// Jobs in the queue: cluster -> node name (for holds and removals).
    queue: HashMap<i32, String>,
    /// Jobs of these nodes are held once instead of running at first.
    hold_once: Vec<String>,
    /// The largest number of jobs ever in the queue at once, per category prefix.
    max_in_queue: usize,
    /// The node log's size, as `node_log_size` reports it.
    log_size: u64,
    /// Clusters with a job in the history.
    left: Vec<i32>,
    /// The node log's size once the queue has been read.
    log_size_after_query: Option<u64>,
}

impl Host for Sim {
    fn log(&mut self, level: Level, text: &str) {
        self.log.push((level, text.to_owned()));
    }

    fn submit(&mut self, nodes: &[SubmitNode]) -> Vec<Result<Submitted, String>> {
        let mut out = Vec::new();
        for n in nodes {
            if self.fail_submit.contains(&n.name) {
                out.push(Err("no such submit file".into()));
                break;
            }
            self.next_cluster += 1;
            let c = self.next_cluster;
            self.submits.push((n.name.clone(), c, n.vars.clone()));
            self.queue.insert(c, n.name.clone());
            self.max_in_queue = self.max_in_queue.max(self.queue.len());
            let mut submit = Event::new(
                c,
                0,
                Submit {
                    submit_host: "<x>".into(),
                    log_notes: Some(format!("DAG Node: {}", n.name)),
                    ..Submit::default()
                },
            );
            submit.time = chrono::DateTime::from_timestamp(1000, 0).unwrap();
            self.events.push_back(submit);
            out.push(Ok(Submitted {
                cluster: c,
                procs: 1,
            }));
        }
        out
    }

    fn start_script(&mut self, run: &ScriptRun) -> Result<u32, String> {
        self.next_pid += 1;
        self.scripts
            .push((run.node_name.clone(), run.kind, run.argv.clone()));
        self.running
            .insert(self.next_pid, (run.node_name.clone(), run.kind));
        Ok(self.next_pid)
    }

    fn kill_script(&mut self, pid: u32) {
        self.running.remove(&pid);
    }

    fn write_event(&mut self, event: &Event) -> Result<(), String> {
        self.events.push_back(event.clone());
        Ok(())
    }

    fn remove_jobs(&mut self, cluster: Option<i32>, reason: &str) {
        self.removed.push((cluster, reason.to_owned()));
        let clusters: Vec<i32> = match cluster {
            Some(c) => vec![c],
            None => self.queue.keys().copied().collect(),
        };
        for c in clusters {
            if self.queue.remove(&c).is_some() {
                self.events.push_back(Event::new(
                    c,
                    0,
                    JobAborted {
                        reason: Some(reason.into()),
                    },
                ));
            }
        }
    }

    fn jobstate(&mut self, time: Option<i64>, info: &str) {
        self.jobstate.push(format!("{} {info}", time.unwrap_or(0)));
    }

    fn job_tag(&mut self, _node: &crate::dagman::dag::Node) -> String {
        "-".into()
    }

    fn save_point(&mut self, _node: &str, _file: &str, _contents: &str) {}

    fn queued_jobs(&mut self) -> Option<HashMap<i32, Vec<i32>>> {
        if let Some(size) = self.log_size_after_query.take() {
            self.log_size = size;
        }
        Some(self.queue.keys().map(|&c| (c, vec![0])).collect())
    }

    fn node_log_size(&mut self) -> u64 {
        self.log_size
    }

    fn left_queue(&mut self, cluster: i32) -> bool {
        self.left.contains(&cluster)
    }

    fn provisioner_state(&mut self, _cluster: i32, _proc: i32) -> Option<i64> {
        Some(2)
    }

    fn write_rescue(&mut self, contents: &str, _overwrite: bool) {
        self.rescues.push(contents.to_owned());
    }
}

impl Sim {
    fn next_exit(list: Option<&mut Vec<i32>>) -> i32 {
        match list {
            Some(l) if l.len() > 1 => l.remove(0),
            Some(l) => l.first().copied().unwrap_or(0),
            None => 0,
        }
    }

    /// Runs the queued jobs: each submit event is followed by the job's execute and
    /// terminated events.
    fn run_jobs(&mut self) {
        let clusters: Vec<(i32, String)> =
            self.queue.iter().map(|(c, n)| (*c, n.clone())).collect();
        let mut clusters = clusters;
        clusters.sort();
        for (c, name) in clusters {
            if let Some(i) = self.hold_once.iter().position(|n| *n == name) {
                self.hold_once.remove(i);
                self.events.push_back(Event::new(c, 0, JobHeld::default()));
                self.events
                    .push_back(Event::new(c, 0, JobReleased::default()));
                continue;
            }
            self.queue.remove(&c);
            let code = Self::next_exit(self.job_exits.get_mut(&name));
            self.events.push_back(Event::new(c, 0, Execute::default()));
            self.events.push_back(Event::new(
                c,
                0,
                JobTerminated {
                    exit: ExitStatus::Code(code),
                    ..JobTerminated::default()
                },
            ));
        }
    }

    fn lines(&self) -> Vec<&str> {
        self.log.iter().map(|(_, l)| l.as_str()).collect()
    }

    fn submitted(&self) -> Vec<&str> {
        self.submits.iter().map(|(n, _, _)| n.as_str()).collect()
    }
}

fn engine(text: &str, opts: Options) -> Engine {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.dag"), text).unwrap();
    let mut p = Parser::new(ParseOptions::new(dir.path()));
    p.parse_dag_file("t.dag")
        .unwrap_or_else(|e| panic!("{:?}", e.lines));
    Engine::new(p.finish(), opts)
}

fn options() -> Options {
    Options {
        dagman_id: 7,
        primary_dag: "t.dag".into(),
        nodes_log: "/x/t.dag.nodes.log".into(),
        ..Options::default()
    }
}

/// Runs the DAG to its end; returns the exit code.
fn run(e: &mut Engine, sim: &mut Sim) -> i32 {
    let mut now = 1000;
    e.bootstrap(false, now, sim);
    e.start(now, sim);
    for _ in 0..10_000 {
        now += 1;
        e.run_waiting_scripts(now, sim);
        e.submit_ready_nodes(now, false, sim);
        sim.run_jobs();
        while let Some(ev) = sim.events.pop_front() {
            e.process_event(&ev, false, now, sim);
        }
        // Scripts end in the order they started.
        let mut pids: Vec<u32> = sim.running.keys().copied().collect();
        pids.sort();
        for pid in pids {
            let Some((node, kind)) = sim.running.remove(&pid) else {
                continue;
            };
            let code = Sim::next_exit(sim.script_exits.get_mut(&(node, kind)));
            e.script_exited(pid, Exit::Code(code), now, sim);
            while let Some(ev) = sim.events.pop_front() {
                e.process_event(&ev, false, now, sim);
            }
        }
        e.print_status_if_changed(false, sim);
        if let Some(code) = e.check_end(now, sim) {
            return code;
        }
    }
    panic!("the DAG did not end:\n{}", sim.lines().join("\n"));
}

#[test]
fn diamond_runs_in_order_and_succeeds() {
    let mut e = engine(
        "JOB A a.sub\nJOB B b.sub\nJOB C c.sub\nJOB D d.sub\nPARENT A CHILD B C\nPARENT B C CHILD D\n",
        options(),
    );
    let mut sim = Sim::default();
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(sim.submitted(), ["A", "B", "C", "D"]);
    assert!(sim.lines().contains(&"All jobs Completed!"));
    assert!(sim.rescues.is_empty());
    assert_eq!((e.num_done(true), e.num_failed()), (4, 0));
    // The status table as print_status formats it.
    let lines = sim.lines();
    let i = lines
        .iter()
        .rposition(|l| l.starts_with("Of 4 nodes total"))
        .unwrap();
    assert_eq!(
        lines[i + 3],
        "    4       0        0       0       0          0        0        0"
    );
}

#[test]
fn node_jobs_get_dagmans_variables() {
    let mut e = engine(
        "JOB A a.sub\nJOB B b.sub\nPARENT A CHILD B\nVARS B x=\"1\"\nVARS B APPEND y=\"2\"\nPRIORITY B 5\n",
        options(),
    );
    let mut sim = Sim::default();
    run(&mut e, &mut sim);
    let vars = &sim.submits[1].2;
    let get = |k: &str| vars.iter().find(|v| v.0 == k).map(|v| (v.1.as_str(), v.2));
    assert_eq!(get("JOB"), Some(("B", false)));
    assert_eq!(get("DAG_PARENT_NAMES"), Some(("A", false)));
    assert_eq!(get("submit_event_notes"), Some(("DAG Node: B", true)));
    assert_eq!(get("DAGManJobId"), Some(("7", true)));
    assert_eq!(get("dagman_log"), Some(("/x/t.dag.nodes.log", true)));
    assert_eq!(get("priority"), Some(("5", false)));
    assert_eq!(get("x"), Some(("1", false)));
    assert_eq!(get("y"), Some(("2", true)));
    assert!(get("keep_claim_idle").is_none(), "B has no children");
    assert_eq!(
        sim.submits[0]
            .2
            .iter()
            .find(|v| v.0 == "keep_claim_idle")
            .map(|v| v.1.as_str()),
        Some("20")
    );
}

#[test]
fn retry_then_failure_writes_a_rescue_dag() {
    // job_dagman_retry: RETRY 1 and a POST script that passes the job's failure on.
    let mut e = engine(
        "JOB NODERET r.sub\nSCRIPT POST NODERET post.sh $RETURN\nRETRY NODERET 1\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.job_exits.insert("NODERET".into(), vec![1]);
    sim.script_exits
        .insert(("NODERET".into(), ScriptKind::Post), vec![1]);
    assert_eq!(run(&mut e, &mut sim), 1);
    assert_eq!(sim.submitted(), ["NODERET", "NODERET"]);
    let posts: Vec<&Vec<String>> = sim.scripts.iter().map(|s| &s.2).collect();
    assert_eq!(posts, [&vec!["post.sh".to_owned(), "1".into()]; 2]);
    let rescue = &sim.rescues[0];
    assert!(
        rescue.contains("# Nodes that failed: 1\n#   NODERET,<ENDLIST>\n"),
        "{rescue}"
    );
    assert!(rescue.ends_with("\nRETRY NODERET 1\n"), "{rescue}");
    assert!(sim.lines().contains(&"ERROR: the following job(s) failed:"));
    assert_eq!(
        e.error_text(0),
        "Job exited with status 1 and POST Script failed with status 1 (after 1 node retries)"
    );
}

#[test]
fn unless_exit_stops_retries() {
    // job_dagman_unlessexit.
    let mut e = engine(
        "JOB NODERET r.sub\nRetry NODERET 1 UNLESS-EXIT 3\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.job_exits.insert("NODERET".into(), vec![3]);
    assert_eq!(run(&mut e, &mut sim), 1);
    assert_eq!(sim.submitted(), ["NODERET"]);
    assert!(sim
        .lines()
        .contains(&"Aborting further retries of node NODERET (last attempt returned 3)"));
    assert!(sim.rescues[0].contains(
        "# 0 of 1 retries performed; remaining attempts aborted after node returned 3\nRETRY NODERET 1 UNLESS-EXIT 3\n"
    ));
}

#[test]
fn abort_dag_on_with_return_zero_succeeds() {
    // job_dagman_abort-A: C exits 5, `Abort-dag-on C 5 return 0` beats `Retry C 3`. (That
    // test, no longer in HTCondor's test list, predates futile nodes: 24.0's
    // ProcessTerminatedEvent makes D FUTILE before the abort, so D is not NOT_READY.)
    let mut e = engine(
        "JOB A a\nJOB B b\nJOB C c\nJOB D d\nPARENT A CHILD B\nPARENT B CHILD C\nPARENT C CHILD D\n\
         Retry C 3\nAbort-dag-on C 5 return 0\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.job_exits.insert("C".into(), vec![5]);
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(sim.submitted(), ["A", "B", "C"]);
    assert!(sim.rescues.is_empty(), "exit code 0 writes no rescue DAG");
    let status =
        crate::dagman::files::node_status_text(&e, &["t.dag".into()], 2000, false, false, 60);
    assert!(
        status.contains("DagStatus = 5; /* \"STATUS_DONE (success)\" */"),
        "{status}"
    );
    assert!(
        status.contains("NodesTotal = 4;\n  NodesDone = 2;"),
        "{status}"
    );
    assert!(
        status.contains("NodesUnready = 0;\n  NodesFutile = 1;\n  NodesFailed = 1;"),
        "{status}"
    );
    assert!(
        status.contains("Node = \"C\";\n  NodeStatus = 6; /* \"STATUS_ERROR\" */"),
        "{status}"
    );
    assert!(
        status.contains("Node = \"D\";\n  NodeStatus = 7; /* \"STATUS_FUTILE\" */"),
        "{status}"
    );
}

#[test]
fn abort_dag_on_without_return_exits_with_the_nodes_value() {
    let mut e = engine(
        "JOB A a\nJOB B b\nPARENT A CHILD B\nABORT-DAG-ON A 7\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.job_exits.insert("A".into(), vec![7]);
    assert_eq!(run(&mut e, &mut sim), 7);
    assert_eq!(e.dag_status, DagStatus::Abort);
    assert_eq!(sim.rescues.len(), 1);
    assert!(sim
        .lines()
        .contains(&"Aborting DAG because we got the ABORT exit value from a job"));
}

#[test]
fn final_node_sees_the_dag_status_and_decides_the_result() {
    // job_dagman_final-B: B_B fails, the FINAL node fails too.
    let mut e = engine(
        "JOB B_A a\nJOB B_B b\nPARENT B_A CHILD B_B\nFINAL B_C c\nSCRIPT PRE B_C pre.sh $DAG_STATUS $FAILED_COUNT\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.job_exits.insert("B_B".into(), vec![1]);
    sim.job_exits.insert("B_C".into(), vec![1]);
    assert_eq!(run(&mut e, &mut sim), 1);
    assert_eq!(sim.scripts[0].2, ["pre.sh", "2", "1"]);
    let vars = &sim.submits.iter().find(|s| s.0 == "B_C").unwrap().2;
    assert!(vars.contains(&("DAG_STATUS".into(), "2".into(), false)));
    // The rescue DAG written when B_B failed is written again when the FINAL node fails.
    assert_eq!(sim.rescues.len(), 2);
    let rescue = sim.rescues.last().unwrap();
    assert!(rescue.contains("# Total number of Nodes: 3\n# Nodes premarked DONE: 1\n# Nodes that failed: 2\n#   B_B,B_C,<ENDLIST>\n\nDONE B_A\n"), "{rescue}");

    // job_dagman_final-A: everything succeeds; the FINAL node sees status 0.
    let mut e = engine(
        "JOB A_A a\nJOB A_B b\nPARENT A_A CHILD A_B\nFINAL A_C c\nSCRIPT PRE A_C pre.sh $DAG_STATUS $FAILED_COUNT\n",
        options(),
    );
    let mut sim = Sim::default();
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(sim.scripts[0].2, ["pre.sh", "0", "0"]);
    assert_eq!(sim.submitted(), ["A_A", "A_B", "A_C"]);
}

#[test]
fn a_successful_final_node_overrides_failures() {
    let mut e = engine("JOB A a\nFINAL F f\n", options());
    let mut sim = Sim::default();
    sim.job_exits.insert("A".into(), vec![1]);
    assert_eq!(run(&mut e, &mut sim), 0);
}

#[test]
fn pre_skip_and_pre_failure() {
    // job_dagman_pre_skip-A: A's PRE exits 0 so its job runs; B's PRE exits 1, which is not
    // its PRE_SKIP value: B fails without running its job.
    let mut e = engine(
        "JOB A a\nJOB B b\nJOB C c\nSCRIPT PRE A pre.sh\nSCRIPT PRE B pre.sh\nSCRIPT PRE C pre.sh\n\
         PRE_SKIP A 2\nPRE_SKIP B 2\nPRE_SKIP C 3\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.script_exits
        .insert(("B".into(), ScriptKind::Pre), vec![1]);
    sim.script_exits
        .insert(("C".into(), ScriptKind::Pre), vec![3]);
    assert_eq!(run(&mut e, &mut sim), 1);
    assert_eq!(sim.submitted(), ["A"], "B failed, C was skipped");
    assert_eq!(e.status(1), Status::Error);
    assert_eq!(e.status(2), Status::Done);
    assert!(sim
        .lines()
        .contains(&"PRE_SKIP return value 3 indicates we are done (successfully) with node C"));
    assert_eq!(e.error_text(1), "PRE Script failed with status 1");
}

#[test]
fn always_run_post_with_pre_skip_does_not_run_post() {
    // job_dagman_always_run_post-D.
    let mut o = options();
    o.always_run_post = true;
    let mut e = engine(
        "JOB A a\nSCRIPT PRE A pre.sh\nSCRIPT POST A post.sh $RETURN $PRE_SCRIPT_RETURN\nPRE_SKIP A 1\n",
        o.clone(),
    );
    let mut sim = Sim::default();
    sim.script_exits
        .insert(("A".into(), ScriptKind::Pre), vec![1]);
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(sim.scripts.len(), 1, "POST does not run");
    // A failing PRE without PRE_SKIP: POST runs with $RETURN -1004.
    let mut e = engine(
        "JOB A a\nSCRIPT PRE A pre.sh\nSCRIPT POST A post.sh $RETURN $PRE_SCRIPT_RETURN\n",
        o,
    );
    let mut sim = Sim::default();
    sim.script_exits
        .insert(("A".into(), ScriptKind::Pre), vec![4]);
    assert_eq!(run(&mut e, &mut sim), 0, "the POST script decides");
    assert_eq!(sim.scripts[1].2, ["post.sh", "-1004", "4"]);
    assert!(sim.submits.is_empty());
}

#[test]
fn failures_make_descendants_futile() {
    // test_dagman_futile_nodes: chain A -> B -> C; A fails: 0 done, 1 failed, 2 futile.
    let mut e = engine(
        "JOB A a\nJOB B b\nJOB C c\nPARENT A CHILD B\nPARENT B CHILD C\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.job_exits.insert("A".into(), vec![1]);
    assert_eq!(run(&mut e, &mut sim), 1);
    assert_eq!(
        (e.num_done(true), e.num_failed(), e.num_futile()),
        (0, 1, 2)
    );
    // A pre-DONE C under a failing A: 1 done, 1 failed, 1 futile.
    let mut e = engine(
        "JOB A a\nJOB B b\nJOB C c DONE\nPARENT A CHILD B\nPARENT B CHILD C\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.job_exits.insert("A".into(), vec![1]);
    assert_eq!(run(&mut e, &mut sim), 1);
    assert_eq!(
        (e.num_done(true), e.num_failed(), e.num_futile()),
        (1, 1, 1)
    );
    // With ALWAYS_RUN_POST and a POST that passes, all three are done.
    let mut o = options();
    o.always_run_post = true;
    let mut e = engine(
        "JOB A a\nJOB B b\nJOB C c\nPARENT A CHILD B\nPARENT B CHILD C\nSCRIPT POST A post.sh\n",
        o,
    );
    let mut sim = Sim::default();
    sim.job_exits.insert("A".into(), vec![1]);
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(e.num_done(true), 3);
}

#[test]
fn category_throttle_and_maxjobs() {
    // job_dagman_throttle: never more than MAXJOBS of a category in the queue at once.
    let mut dag = String::new();
    for i in 0..20 {
        dag.push_str(&format!("JOB N{i} n.sub\nCATEGORY N{i} cat\n"));
    }
    dag.push_str("MAXJOBS cat 3\n");
    let mut e = engine(&dag, options());
    let mut sim = Sim::default();
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(sim.max_in_queue, 3);
    assert_eq!(sim.submits.len(), 20);

    let mut o = options();
    o.max_jobs = 2;
    let mut e = engine(&dag.replace("MAXJOBS cat 3\n", ""), o);
    let mut sim = Sim::default();
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(sim.max_in_queue, 2);
}

#[test]
fn noop_nodes_write_fake_events_and_succeed() {
    // job_dagman_noop_node: no "Unexpected submit event".
    let mut e = engine("JOB A a NOOP\nJOB B b\nJOB C c NOOP\nPARENT A CHILD B\nPARENT B CHILD C\nSCRIPT POST C post.sh $JOBID\n", options());
    let mut sim = Sim::default();
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(sim.submitted(), ["B"]);
    assert!(
        !sim.lines()
            .iter()
            .any(|l| l.contains("Unexpected submit event")),
        "{:#?}",
        sim.lines()
    );
    assert_eq!(
        sim.scripts[0].2,
        ["post.sh", format!("0.{NOOP_PROC}").as_str()]
    );
}

#[test]
fn script_macros() {
    // test_dagman_script_macros (one proc per job here).
    let mut e = engine(
        "JOB GOOD g\nJOB BAD b\nPARENT GOOD CHILD BAD\nRETRY GOOD 1\n\
         SCRIPT POST GOOD post.sh $RETURN $RETRY $MAX_RETRIES $DAG_STATUS $FAILED_COUNT $FUTILE_COUNT $DONE_COUNT $NODE_COUNT $DAGID $JOBID $CLUSTERID $JOB_COUNT $SUCCESS $JOB_ABORT_COUNT $PRE_SCRIPT_RETURN $EXIT_CODES $EXIT_CODE_COUNTS $QUEUED_COUNT\n\
         SCRIPT POST BAD post.sh $NoDe $SUCCESS $EXIT_CODES $EXIT_CODE_COUNTS $DONE_COUNT $BOGUS\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.job_exits.insert("BAD".into(), vec![2]);
    let mut o = e.opts.clone();
    o.strict = 0;
    e.opts = o;
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(
        sim.scripts[0].2.join(" "),
        "post.sh 0 0 1 0 0 0 0 2 7 1.0 1 1 True 0 -1 0 0:1 0"
    );
    // HTCondor marks a node unsuccessful (`MarkFailed`) only when a failed proc leaves others
    // in the queue: a one-proc job that fails still reads `$SUCCESS` True.
    assert_eq!(
        sim.scripts[1].2.join(" "),
        "post.sh BAD True 2 2:1 1 $BOGUS"
    );
    assert!(sim
        .lines()
        .contains(&"Warning: unrecognized macro $BOGUS in node BAD POST script arguments"));
}

#[test]
fn pre_macros_are_refused_under_the_default_strictness() {
    let mut e = engine("JOB A a\nSCRIPT PRE A pre.sh $RETURN\n", options());
    let mut sim = Sim::default();
    assert_eq!(run(&mut e, &mut sim), 1);
    assert!(sim
        .lines()
        .contains(&"Warning: $RETURN macro should not be used as a PRE script argument!"));
    assert!(sim
        .lines()
        .contains(&"ERROR: Warning is fatal error because of DAGMAN_USE_STRICT setting"));
}

#[test]
fn submit_failures_retry_then_fail_the_node() {
    let mut o = options();
    o.max_submit_attempts = 2;
    let mut e = engine("JOB A a\nJOB B b\nPARENT A CHILD B\n", o);
    let mut sim = Sim::default();
    sim.fail_submit.push("A".into());
    let code = {
        let mut now = 1000;
        e.bootstrap(false, now, &mut sim);
        e.start(now, &mut sim);
        loop {
            now += 1;
            e.submit_ready_nodes(now, false, &mut sim);
            if let Some(c) = e.check_end(now, &mut sim) {
                break c;
            }
        }
    };
    assert_eq!(code, 1);
    let lines = sim.lines();
    assert!(lines.contains(&"Job submit try 1/2 failed, will try again in >= 1 second."));
    assert!(lines.contains(&"Node submit failed after 2 tries."));
    assert_eq!((e.num_failed(), e.num_futile()), (1, 1));
}

#[test]
fn held_jobs_run_the_hold_script() {
    let mut e = engine("JOB A a\nSCRIPT HOLD A hold.sh $JOB\n", options());
    let mut sim = Sim::default();
    sim.hold_once.push("A".into());
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(
        sim.scripts[0],
        (
            "A".into(),
            ScriptKind::Hold,
            vec!["hold.sh".into(), "A".into()]
        )
    );
}

#[test]
fn defer_runs_the_script_again_later() {
    let mut e = engine(
        "JOB B b\nSCRIPT DEFER 4 0 PRE B pre.sh\nJOBSTATE_LOG js.log\n",
        options(),
    );
    let mut sim = Sim::default();
    sim.script_exits
        .insert(("B".into(), ScriptKind::Pre), vec![4, 4, 0]);
    assert_eq!(run(&mut e, &mut sim), 0);
    assert_eq!(sim.scripts.len(), 3);
    let started = sim
        .jobstate
        .iter()
        .filter(|l| l.contains("B PRE_SCRIPT_STARTED - - - 1"))
        .count();
    assert_eq!(started, 3);
}

#[test]
fn removal_writes_a_rescue_and_removes_the_jobs() {
    let mut e = engine("JOB A a\nJOB B b\nPARENT A CHILD B\n", options());
    let mut sim = Sim::default();
    e.bootstrap(false, 1000, &mut sim);
    e.start(1000, &mut sim);
    e.submit_ready_nodes(1001, false, &mut sim);
    assert_eq!(e.removed(1002, &mut sim), Shutdown::Exit(EXIT_ABORT));
    assert_eq!(e.dag_status, DagStatus::Rm);
    assert_eq!(
        sim.removed,
        [(
            None,
            "DAG Removed: User removed scheduler job from queue.".to_owned()
        )]
    );
    assert_eq!(sim.rescues.len(), 1);
    let status =
        crate::dagman::files::node_status_text(&e, &["t.dag".into()], 2000, false, true, 60);
    assert!(
        status.contains("/* \"STATUS_ERROR (removed)\" */"),
        "{status}"
    );
}

#[test]
fn recovery_replays_the_log_without_running_finished_nodes_again() {
    let dag =
        "JOB A a\nJOB B b\nJOB C c\nPARENT A CHILD B\nPARENT B CHILD C\nSCRIPT POST B post.sh\n";
    // A first run gets as far as B's job ending; its POST never ran.
    let mut log: Vec<Event> = Vec::new();
    for (c, name) in [(1, "A"), (2, "B")] {
        log.push(Event::new(
            c,
            0,
            Submit {
                log_notes: Some(format!("DAG Node: {name}")),
                ..Submit::default()
            },
        ));
        log.push(Event::new(c, 0, Execute::default()));
        log.push(Event::new(
            c,
            0,
            JobTerminated {
                exit: ExitStatus::Code(0),
                ..JobTerminated::default()
            },
        ));
    }
    let mut e = engine(dag, options());
    let mut sim = Sim {
        next_cluster: 2,
        ..Sim::default()
    };
    e.bootstrap(true, 1000, &mut sim);
    for ev in &log {
        e.process_event(ev, true, 1000, &mut sim);
    }
    e.start(1000, &mut sim);
    assert_eq!(e.status(0), Status::Done);
    assert_eq!(e.status(1), Status::PostRun, "B's POST runs again");
    assert_eq!(sim.scripts.len(), 1);
    let code = run_rest(&mut e, &mut sim);
    assert_eq!(code, 0);
    assert_eq!(sim.submitted(), ["C"], "only C's job runs");
}

/// A first run's log up to B's job started, for the recovery of a DAG `A -> B`.
fn log_until_b_runs() -> Vec<Event> {
    let submit = |c: i32, name: &str| {
        Event::new(
            c,
            0,
            Submit {
                log_notes: Some(format!("DAG Node: {name}")),
                ..Submit::default()
            },
        )
    };
    vec![
        submit(1, "A"),
        Event::new(1, 0, Execute::default()),
        Event::new(
            1,
            0,
            JobTerminated {
                exit: ExitStatus::Code(0),
                ..JobTerminated::default()
            },
        ),
        submit(2, "B"),
        Event::new(2, 0, Execute::default()),
    ]
}

#[test]
fn recovery_waits_for_the_end_of_a_job_that_just_left_the_queue() {
    // B's job is gone from the queue but its end is not in the log yet: the master logs a
    // job's last event just after the commit that moved it to the history. Only a job that
    // is neither queued nor in the history, with the log unchanged, is lost.
    for (left, log_grew, lost) in [
        (true, false, false),
        (false, true, false),
        (false, false, true),
    ] {
        let mut e = engine("JOB A a\nJOB B b\nPARENT A CHILD B\n", options());
        let mut sim = Sim {
            next_cluster: 3,
            log_size: 100,
            ..Sim::default()
        };
        e.bootstrap(true, 1000, &mut sim);
        for ev in &log_until_b_runs() {
            e.process_event(ev, true, 1000, &mut sim);
        }
        if left {
            sim.left.push(2);
        }
        if log_grew {
            // The size is taken when recovery ends; the log grows while the queue is read.
            sim.log_size_after_query = Some(200);
        }
        e.start(1000, &mut sim);
        let aborted = sim
            .lines()
            .contains(&"ERROR: DAGMan lost track of node B (ClusterId=2). Please resubmit DAG from produced rescue file.");
        assert_eq!(aborted, lost, "left {left}, log grew {log_grew}");
        assert_eq!(e.exit_code().is_some(), lost);
        if !lost {
            assert_eq!(e.status(1), Status::Submitted);
            let end = Event::new(
                2,
                0,
                JobTerminated {
                    exit: ExitStatus::Code(0),
                    ..JobTerminated::default()
                },
            );
            e.process_event(&end, false, 1001, &mut sim);
            assert_eq!(e.status(1), Status::Done);
        }
    }
}

#[test]
fn a_job_whose_end_never_reaches_the_log_ends_the_dag_at_the_next_queue_check() {
    // Recovery marks B (its job left the queue, its end is on its way); when no event comes
    // for DAGMAN_CHECK_QUEUE_INTERVAL, the queue is checked again and B, still wanting,
    // ends the DAG with a rescue.
    let mut e = engine("JOB A a\nJOB B b\nPARENT A CHILD B\n", options());
    let mut sim = Sim {
        next_cluster: 3,
        log_size: 100,
        left: vec![2],
        ..Sim::default()
    };
    e.bootstrap(true, 1000, &mut sim);
    for ev in &log_until_b_runs() {
        e.process_event(ev, true, 1000, &mut sim);
    }
    e.start(1000, &mut sim);
    assert_eq!(e.exit_code(), None);
    let mut last = 1000;
    e.pending_report(1000 + 600, &mut last, &mut sim);
    assert_eq!(e.exit_code(), None, "not before the check interval");
    e.pending_report(1000 + 28_800, &mut last, &mut sim);
    assert_eq!(e.exit_code(), Some(1));
    assert!(sim.lines().contains(
        &"ERROR: DAGMan lost track of node B (ClusterId=2). Please resubmit DAG from produced rescue file."
    ));
    assert_eq!(sim.rescues.len(), 1);
}

/// Continues a started DAG to its end.
fn run_rest(e: &mut Engine, sim: &mut Sim) -> i32 {
    let mut now = 1001;
    loop {
        now += 1;
        let mut pids: Vec<u32> = sim.running.keys().copied().collect();
        pids.sort();
        for pid in pids {
            let (node, kind) = sim.running.remove(&pid).unwrap();
            let code = Sim::next_exit(sim.script_exits.get_mut(&(node, kind)));
            e.script_exited(pid, Exit::Code(code), now, sim);
        }
        e.submit_ready_nodes(now, false, sim);
        sim.run_jobs();
        while let Some(ev) = sim.events.pop_front() {
            e.process_event(&ev, false, now, sim);
        }
        if let Some(code) = e.check_end(now, sim) {
            return code;
        }
        assert!(now < 3000, "the DAG did not end");
    }
}

#[test]
fn halt_file_stops_new_work_and_exits_with_a_rescue() {
    // With a FINAL node, the halted DAG exits through the halt branch (DAG_STATUS_HALTED)
    // and runs its FINAL node; without one, DoneFailed (which counts a halted DAG as
    // failed) comes first in condor_event_timer and the status stays as it was.
    let mut e = engine("JOB A a\nJOB B b\nPARENT A CHILD B\nFINAL F f\n", options());
    let mut sim = Sim::default();
    e.bootstrap(false, 1000, &mut sim);
    e.start(1000, &mut sim);
    assert_eq!(e.submit_ready_nodes(1001, false, &mut sim), 1);
    sim.run_jobs();
    assert_eq!(e.submit_ready_nodes(1002, true, &mut sim), 0);
    while let Some(ev) = sim.events.pop_front() {
        e.process_event(&ev, false, 1002, &mut sim);
    }
    assert_eq!(e.check_end(1003, &mut sim), None, "the FINAL node runs");
    assert_eq!(e.dag_status, DagStatus::Halted);
    assert!(sim
        .lines()
        .contains(&"Exiting because DAG is halted and no jobs or scripts are running"));
    assert!(sim.rescues[0].contains("DONE A\n"));

    let mut e = engine("JOB A a\nJOB B b\nPARENT A CHILD B\n", options());
    let mut sim = Sim::default();
    e.bootstrap(false, 1000, &mut sim);
    e.start(1000, &mut sim);
    assert_eq!(e.submit_ready_nodes(1001, false, &mut sim), 1);
    sim.run_jobs();
    // Halted: A's end is processed, B is not submitted.
    assert_eq!(e.submit_ready_nodes(1002, true, &mut sim), 0);
    while let Some(ev) = sim.events.pop_front() {
        e.process_event(&ev, false, 1002, &mut sim);
    }
    assert_eq!(e.submit_ready_nodes(1003, true, &mut sim), 0);
    assert_eq!(e.check_end(1003, &mut sim), Some(EXIT_ERROR));
    assert_eq!(e.dag_status, DagStatus::Ok);
    assert!(sim.rescues[0].contains("DONE A\n"));
}

#[test]
fn a_cycle_is_found_when_nothing_can_run() {
    let mut e = engine(
        "JOB A a\nJOB B b\nJOB C c\nPARENT B CHILD C\nPARENT C CHILD B\n",
        options(),
    );
    let mut sim = Sim::default();
    assert_eq!(run(&mut e, &mut sim), 1);
    assert_eq!(e.dag_status, DagStatus::Cycle);
    assert!(sim
        .lines()
        .contains(&"... ERROR: a cycle exists in the dag, please check input"));
}
