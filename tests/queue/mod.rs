//! The queue store shared by processes: several submitters at once, a submitter killed
//! mid-transaction, and constraint pushdown checked against plain evaluation on random
//! constraints.
//!
//! The other processes are this test binary itself, re-run on the test [`helper_process`]
//! with `CONDORLITE_QUEUE_HELPER` saying what to do. Helpers and tests talk over pipes, one
//! line per step, so no test waits on a clock.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};

use condorlite::classad::{parse_ad, parse_expr, ClassAd, Expr};
use condorlite::queue::{
    constraint_holds, ClusterId, Job, JobId, JobQuery, JobStatus, Queue, QueueError,
};

const HELPER_ENV: &str = "CONDORLITE_QUEUE_HELPER";
/// Lines of the helper protocol start with this (libtest prints its own lines around them).
const TAG: &str = "QUEUE-HELPER ";

fn cluster_ad(owner: &str) -> ClassAd {
    parse_ad(&format!(
        r#"[ Owner = "{owner}"; Cmd = "/bin/true"; JobStatus = 1; QDate = 1000;
             EnteredCurrentStatus = 1000; Requirements = TARGET.Memory > 100 ]"#
    ))
    .unwrap()
}

fn proc_ad(i: usize) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.insert("Args", Expr::lit(format!("{i}")));
    ad
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{TAG}{line}").unwrap();
    out.flush().unwrap();
}

/// Blocks until the test writes a line (or closes the pipe, or kills this process).
fn wait_for_test() {
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
}

/// Not a test of its own: what a helper process does, chosen by `CONDORLITE_QUEUE_HELPER`
/// (`<action> <spool> <numbers...>`). Without it, it does nothing.
#[test]
fn helper_process() {
    let Ok(task) = std::env::var(HELPER_ENV) else {
        return;
    };
    let words: Vec<&str> = task.split(' ').collect();
    let spool = Path::new(words[1]);
    let num = |i: usize| words[i].parse::<usize>().unwrap();
    match words[0] {
        // Open (a new spool, as the others do at the same moment), then on "go" submit
        // `clusters` clusters of `procs` procs and report their ids.
        "submit" => {
            let mut q = Queue::open(spool).unwrap();
            say("ready");
            wait_for_test();
            let mut ids = vec![];
            for _ in 0..num(2) {
                ids.push(
                    q.submit(cluster_ad("alice"), (0..num(3)).map(proc_ad))
                        .unwrap()
                        .0,
                );
            }
            say(&format!("done {ids:?}"));
        }
        // Submit a cluster of `procs` procs and stop for good after handing over proc
        // `stop_at`, inside the transaction.
        "stop-in-submit" => {
            let (procs, stop_at) = (num(2), num(3));
            let mut q = Queue::open(spool).unwrap();
            let r = q.submit(
                cluster_ad("alice"),
                (0..procs).map(|i| {
                    if i == stop_at {
                        say("in transaction");
                        wait_for_test();
                        std::process::abort();
                    }
                    proc_ad(i)
                }),
            );
            panic!("the submit went on: {r:?}");
        }
        // Submit clusters of `procs` procs one after another, reporting each commit, until
        // killed.
        "submit-forever" => {
            let mut q = Queue::open(spool).unwrap();
            loop {
                let id = q
                    .submit(cluster_ad("alice"), (0..num(2)).map(proc_ad))
                    .unwrap();
                say(&format!("committed {}", id.0));
            }
        }
        other => panic!("unknown helper task {other}"),
    }
}

/// A helper process, and its protocol lines.
struct Helper {
    child: Child,
    lines: std::io::Lines<BufReader<ChildStdout>>,
    /// Where the helper's stderr goes, to show when it fails.
    stderr: tempfile::NamedTempFile,
}

impl Helper {
    fn start(task: &str) -> Helper {
        let stderr = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["queue::helper_process", "--exact", "--nocapture", "-q"])
            .args(["--test-threads", "1"])
            .env(HELPER_ENV, task)
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr.reopen().unwrap())
            .spawn()
            .expect("re-running the test binary");
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Helper {
            child,
            lines,
            stderr,
        }
    }

    /// The next protocol line (`None` once the helper has exited).
    fn next_line(&mut self) -> Option<String> {
        for line in self.lines.by_ref() {
            if let Some(rest) = line.unwrap().strip_prefix(TAG) {
                return Some(rest.to_owned());
            }
        }
        None
    }

    fn expect(&mut self, what: &str) -> String {
        let Some(line) = self.next_line() else {
            let _ = self.child.wait();
            let stderr = std::fs::read_to_string(self.stderr.path()).unwrap_or_default();
            panic!("the helper ended before {what}:\n{stderr}");
        };
        assert!(line.starts_with(what), "expected {what}, got {line}");
        line
    }

    fn go(&mut self) {
        writeln!(self.child.stdin.as_mut().unwrap(), "go").unwrap();
    }

    /// SIGKILL: no destructor, no rollback, no flush runs in the helper.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    fn finish(mut self) -> String {
        let done = self.expect("done");
        drop(self.child.stdin.take());
        assert!(self.child.wait().unwrap().success());
        done
    }
}

fn spool() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("condorlite-queue-")
        .tempdir()
        .unwrap();
    let spool = dir.path().join("spool");
    (dir, spool)
}

fn all_jobs(spool: &Path) -> Vec<JobId> {
    Queue::open(spool)
        .unwrap()
        .job_ids(&JobQuery::all())
        .unwrap()
}

fn procs_per_cluster(jobs: &[JobId]) -> BTreeMap<ClusterId, Vec<i32>> {
    let mut map: BTreeMap<ClusterId, Vec<i32>> = BTreeMap::new();
    for j in jobs {
        map.entry(j.cluster).or_default().push(j.proc);
    }
    map
}

/// Eight processes open a new spool at the same moment, then submit at the same moment.
fn submit_from_eight_processes(clusters: usize, procs: usize) {
    let (_dir, spool) = spool();
    let task = format!("submit {} {clusters} {procs}", spool.display());
    let mut helpers: Vec<Helper> = (0..8).map(|_| Helper::start(&task)).collect();
    for h in &mut helpers {
        h.expect("ready");
    }
    for h in &mut helpers {
        h.go();
    }
    let mut reported = BTreeSet::new();
    for h in helpers {
        let done = h.finish();
        let ids = done.trim_start_matches("done [").trim_end_matches(']');
        for id in ids.split(", ") {
            assert!(
                reported.insert(id.parse::<i32>().unwrap()),
                "{id} given twice"
            );
        }
    }
    let jobs = all_jobs(&spool);
    assert_eq!(jobs.len(), 8 * clusters * procs);
    assert_eq!(jobs.iter().collect::<BTreeSet<_>>().len(), jobs.len());
    let per_cluster = procs_per_cluster(&jobs);
    let expected: Vec<i32> = (0..procs as i32).collect();
    assert!(per_cluster.values().all(|p| *p == expected));
    let in_store: BTreeSet<i32> = per_cluster.keys().map(|c| c.0).collect();
    assert_eq!(in_store, reported);
    assert_eq!(in_store, (1..=(8 * clusters) as i32).collect());
}

#[test]
fn eight_processes_submitting_a_thousand_jobs_each() {
    submit_from_eight_processes(1, 1000);
}

#[test]
fn eight_processes_submitting_many_small_clusters() {
    submit_from_eight_processes(25, 40);
}

#[test]
fn a_submitter_killed_in_its_transaction_leaves_nothing() {
    let (_dir, spool) = spool();
    Queue::open(&spool)
        .unwrap()
        .submit(cluster_ad("bob"), (0..3).map(proc_ad))
        .unwrap();
    for stop_at in [0, 500, 999] {
        let mut h = Helper::start(&format!(
            "stop-in-submit {} 1000 {stop_at}",
            spool.display()
        ));
        h.expect("in transaction");
        h.kill();
        assert_eq!(all_jobs(&spool).len(), 3, "stopped at proc {stop_at}");
    }
    // The store is whole and writable, and the ids of the lost submits are not in it.
    let mut q = Queue::open(&spool).unwrap();
    assert!(q.repair().unwrap().is_clean());
    assert_eq!(
        q.submit(cluster_ad("bob"), [proc_ad(0)]).unwrap(),
        ClusterId(2)
    );
}

#[test]
fn a_submitter_killed_at_any_moment_leaves_whole_clusters() {
    let (_dir, spool) = spool();
    for commits in [1, 3] {
        let mut h = Helper::start(&format!("submit-forever {} 1000", spool.display()));
        let mut committed = vec![];
        for _ in 0..commits {
            let line = h.expect("committed");
            committed.push(line["committed ".len()..].parse::<i32>().unwrap());
        }
        // The helper is most likely inside its next submit now; wherever it is, what it
        // acknowledged is there, and what it did not finish is not.
        h.kill();
        let per_cluster = procs_per_cluster(&all_jobs(&spool));
        for c in committed {
            assert!(
                per_cluster.contains_key(&ClusterId(c)),
                "cluster {c} was acknowledged"
            );
        }
        assert!(per_cluster.values().all(|p| p.len() == 1000));
    }
    assert!(Queue::open(&spool).unwrap().repair().unwrap().is_clean());
}

/// Random constraints over the indexed attributes and others, with `&&`, `||`, `!` and
/// parentheses: the query (with its SQL pushdown) selects exactly the jobs that evaluating
/// the constraint on every job selects.
#[test]
fn pushdown_agrees_with_evaluation_on_random_constraints() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    let (_dir, spool) = spool();
    let mut q = Queue::open(&spool).unwrap();
    for (owner, n) in [("alice", 30), ("Bob", 20), ("carol", 5), ("alice", 8)] {
        q.submit(cluster_ad(owner), (0..n).map(proc_ad)).unwrap();
    }
    q.set_clock(|| 2000);
    q.transaction(|tx| -> Result<(), QueueError> {
        for p in (0..30).step_by(4) {
            tx.set_status(JobId::new(1, p), JobStatus::Held)?;
        }
        for p in (0..20).step_by(3) {
            tx.set_status(JobId::new(2, p), JobStatus::Running)?;
        }
        tx.set_attr(ClusterId(3), "QDate", Expr::lit(1500))?;
        tx.delete_attr(JobId::new(4, 2), "QDate")?;
        Ok(())
    })
    .unwrap();
    let all: Vec<Job> = q
        .jobs(&JobQuery::all())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();

    let attr = prop_oneof![
        Just("ClusterId"),
        Just("MY.ProcId"),
        Just("ProcId"),
        Just("JobStatus"),
        Just("QDate"),
        Just("EnteredCurrentStatus"),
        Just("Owner"),
        Just("Args"),
        Just("Missing"),
    ];
    let op = prop_oneof![
        Just("=="),
        Just("!="),
        Just("<"),
        Just("<="),
        Just(">"),
        Just(">="),
        Just("=?="),
        Just("=!="),
    ];
    let literal = prop_oneof![
        (0i64..6).prop_map(|i| i.to_string()),
        Just("1000".to_owned()),
        Just("1500".to_owned()),
        Just("2000".to_owned()),
        Just("4.0".to_owned()),
        Just("\"alice\"".to_owned()),
        Just("\"BOB\"".to_owned()),
        Just("\"3\"".to_owned()),
        Just("undefined".to_owned()),
        Just("true".to_owned()),
    ];
    let comparison = (attr, op, literal, any::<bool>()).prop_map(|(a, op, lit, flip)| {
        if flip {
            format!("{lit} {op} {a}")
        } else {
            format!("{a} {op} {lit}")
        }
    });
    let constraint = comparison.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} || {b})")),
            inner.clone().prop_map(|a| format!("!({a})")),
        ]
    });
    let mut runner = TestRunner::new(Config {
        cases: 400,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&constraint, |src| {
            let expr = parse_expr(&src).unwrap();
            let evaluated: Vec<JobId> = all
                .iter()
                .filter(|j| constraint_holds(&expr, j.ad().unwrap()))
                .map(|j| j.id())
                .collect();
            let queried = q.job_ids(&JobQuery::all().with_constraint(expr)).unwrap();
            prop_assert_eq!(queried, evaluated, "{}", src);
            Ok(())
        })
        .unwrap();
}
