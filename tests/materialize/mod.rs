//! Late materialization (job factories) end to end: condor_submit queues the cluster and its
//! digest, the master makes the procs within `JobMaterializeLimit` and
//! `JobMaterializeMaxIdle`, in order, the events are HTCondor's (035, 000 per proc, 036), and
//! condor_rm, condor_hold and condor_release act on the factory as HTCondor 24.0's schedd does.

use condorlite::eventlog::{read_events, Completion, EventBody};

use crate::common::TestEnvironment;
use crate::pool::{count, submit, wait_for, Master};

/// A cluster ad attribute as the store holds it (a factory's cluster may have no proc for
/// condor_q to show), unparsed; `None` when the cluster or the attribute is not there.
fn cluster_attr(env: &TestEnvironment, cluster: &str, attr: &str) -> Option<String> {
    let queue = condorlite::queue::Queue::open(env.local_dir().join("spool")).unwrap();
    let id = condorlite::queue::ClusterId(cluster.parse().unwrap());
    let ad = queue.cluster_ad(id).unwrap()?;
    ad.lookup(attr)
        .map(condorlite::classad::unparse::expr_to_string)
}

fn procs(env: &TestEnvironment, cluster: &str) -> Vec<String> {
    let out = env.run(
        "condor_q",
        [cluster, "-allusers", "-nobatch", "-af", "ProcId"],
    );
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.lines().map(str::to_owned).collect()
}

fn events(env: &TestEnvironment, log: &str) -> Vec<condorlite::eventlog::Event> {
    let path = env.work_dir().join(log);
    if !path.exists() {
        return Vec::new();
    }
    read_events(path).unwrap()
}

/// The event numbers of a log once it holds `n` events: the tools and the master each log
/// their events just after their commits, so the log can trail the queue a moment.
fn event_numbers(env: &TestEnvironment, log: &str, n: usize) -> Vec<u32> {
    wait_for(&format!("{n} events in {log}"), || {
        events(env, log).len() >= n
    });
    events(env, log).iter().map(|e| e.number()).collect()
}

#[test]
fn condor_submit_queues_the_factory_and_no_proc() {
    let env = TestEnvironment::new();
    let file = env.write_file(
        "f.sub",
        "executable = /bin/true\nlog = f.log\nmax_idle = 100\nqueue 1000000\n",
    );
    let out = env.run("condor_submit", [file.to_str().unwrap()]);
    assert_eq!(
        out.to_string(),
        crate::common::CommandOutput {
            stdout: "Submitting job(s)\n1000000 job(s) submitted to cluster 1.\n".into(),
            stderr: String::new(),
            status: Some(0),
        }
        .to_string()
    );
    // No proc is made at submit: the queue holds the cluster alone.
    assert!(procs(&env, "1").is_empty());
    assert_eq!(
        cluster_attr(&env, "1", "JobMaterializeNextProcId").as_deref(),
        Some("0")
    );
    assert_eq!(
        cluster_attr(&env, "1", "JobMaterializeMaxIdle").as_deref(),
        Some("100")
    );
    assert_eq!(
        cluster_attr(&env, "1", "JobMaterializeLimit").as_deref(),
        Some("1000000")
    );
    assert_eq!(
        cluster_attr(&env, "1", "TotalSubmitProcs").as_deref(),
        Some("1000000")
    );
    // The cluster submit event, for the cluster (proc -1).
    let log = events(&env, "f.log");
    assert_eq!(log.len(), 1);
    assert!(matches!(log[0].body, EventBody::ClusterSubmit(_)));
    assert_eq!((log[0].cluster, log[0].proc), (1, -1));
}

#[test]
fn a_factory_description_must_end_at_its_queue_statement() {
    let env = TestEnvironment::new();
    env.write_file(
        "f.sub",
        "executable = /bin/true\nmax_materialize = 2\nqueue 3\n# fine\narguments = x\nqueue 2\n",
    );
    let out = env.run("condor_submit", ["f.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr
            .contains("ERROR: on Line 5 of f.sub: Extra data found after queue statement"),
        "{out}"
    );
    assert!(procs(&env, "1").is_empty());
    let queue = condorlite::queue::Queue::open(env.local_dir().join("spool")).unwrap();
    assert!(queue.cluster_ids().unwrap().is_empty());
}

#[test]
fn the_master_keeps_to_the_limits_and_condor_rm_removes_the_factory() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    // Jobs that never match: what is materialized stays in the queue.
    let limit = submit(
        &env,
        "executable = /bin/true\nrequirements = false\nlog = limit.log\n\
         max_materialize = 3\nqueue 10\n",
    );
    let idle = submit(
        &env,
        "executable = /bin/true\nrequirements = false\nlog = idle.log\n\
         max_idle = 2\nqueue 10\n",
    );
    wait_for("three procs of the limited factory", || {
        cluster_attr(&env, &limit, "JobMaterializeNextProcId").as_deref() == Some("3")
    });
    wait_for("two procs of the max_idle factory", || {
        cluster_attr(&env, &idle, "JobMaterializeNextProcId").as_deref() == Some("2")
    });
    assert_eq!(procs(&env, &limit), ["0", "1", "2"]);
    assert_eq!(procs(&env, &idle), ["0", "1"]);
    // A held proc is still not running: max_idle still counts it.
    let out = env.run("condor_hold", [&format!("{idle}.0")]);
    assert_eq!(out.status, Some(0), "{out}");
    // Removing one proc of the limited factory makes room for the next.
    let out = env.run("condor_rm", [&format!("{limit}.1")]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the next proc", || {
        cluster_attr(&env, &limit, "JobMaterializeNextProcId").as_deref() == Some("4")
    });
    assert_eq!(procs(&env, &limit), ["0", "2", "3"]);
    assert_eq!(procs(&env, &idle), ["0", "1"]);

    // condor_rm of the cluster: its procs go, and the factory with them.
    let out = env.run("condor_rm", [limit.as_str()]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        out.stdout,
        format!("All jobs in cluster {limit} have been marked for removal\n")
    );
    wait_for("the cluster to leave the queue", || {
        cluster_attr(&env, &limit, "ClusterId").is_none()
    });
    wait_for("the cluster remove event", || {
        events(&env, "limit.log")
            .iter()
            .any(|e| matches!(e.body, EventBody::ClusterRemove(_)))
    });
    let numbers = event_numbers(&env, "limit.log", 10);
    // The tools log after their commits, the master after its own: the order of the two
    // writers' events is not fixed.
    // (condor_submit logs the cluster's submit just after its commit, which the master
    // may see first.)
    let mut head = numbers[..4].to_vec();
    head.sort();
    assert_eq!(head, [0, 0, 0, 35]);
    let mut tail = numbers[4..].to_vec();
    tail.sort();
    assert_eq!(tail, [0, 9, 9, 9, 9, 36]);
    let log = events(&env, "limit.log");
    let removed = log
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ClusterRemove(r) => Some(r),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        (removed.next_proc_id, removed.completion),
        (4, Completion::Incomplete)
    );
    assert_eq!(count(&env, &format!("ClusterId == {limit}")), 0);
    drop(master);
}

#[test]
fn a_factory_runs_every_job_in_order_and_then_leaves_the_queue() {
    let env = TestEnvironment::new();
    env.write_file("items.txt", "a\nb\nc\n");
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = /bin/echo\narguments = $(Process) $(Item) $(Step)\n\
         output = out.$(Process)\nlog = run.log\nmax_idle = 1\nqueue 2 from items.txt\n",
    );
    wait_for("the cluster remove event", || {
        env.work_dir().join("run.log").exists()
            && events(&env, "run.log")
                .iter()
                .any(|e| matches!(e.body, EventBody::ClusterRemove(_)))
    });
    for (proc, text) in ["0 a 0", "1 a 1", "2 b 0", "3 b 1", "4 c 0", "5 c 1"]
        .iter()
        .enumerate()
    {
        let out = std::fs::read_to_string(env.work_dir().join(format!("out.{proc}"))).unwrap();
        assert_eq!(out, format!("{text}\n"));
    }
    let log = events(&env, "run.log");
    assert_eq!(log.iter().filter(|e| e.number() == 35).count(), 1);
    let removed = log.last().unwrap();
    assert_eq!(
        (removed.cluster, removed.proc),
        (cluster.parse().unwrap(), -1)
    );
    let EventBody::ClusterRemove(r) = &removed.body else {
        panic!("the last event is {removed:?}");
    };
    assert_eq!(
        (r.next_proc_id, r.next_row, r.completion),
        (6, 3, Completion::Complete)
    );
    // Each proc is submitted once, after the one before it ended (max_idle = 1).
    let submits: Vec<i32> = log
        .iter()
        .filter(|e| e.number() == 0)
        .map(|e| e.proc)
        .collect();
    assert_eq!(submits, [0, 1, 2, 3, 4, 5]);
    let history = env.run(
        "condor_history",
        [cluster.as_str(), "-forwards", "-af", "ProcId", "Args"],
    );
    assert_eq!(
        history.stdout,
        "0 0 a 0\n1 1 a 1\n2 2 b 0\n3 3 b 1\n4 4 c 0\n5 5 c 1\n"
    );
    drop(master);
}

/// The attributes that differ between two submits of the same description by design, and
/// the negotiator's notes (when it last failed to match each), and the time condor_q ran.
const ID_SPECIFIC: [&str; 11] = [
    "LastRejMatchReason",
    "LastRejMatchTime",
    "ClusterId",
    "GlobalJobId",
    "QDate",
    "EnteredCurrentStatus",
    "JobMaterializeDigestFile",
    "JobMaterializeLimit",
    "JobMaterializeNextProcId",
    "JobMaterializeNextRow",
    "ServerTime",
];

fn long_ads(env: &TestEnvironment, cluster: &str) -> Vec<Vec<String>> {
    let out = env.run("condor_q", [cluster, "-allusers", "-long"]);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout
        .split("\n\n")
        .filter(|ad| !ad.trim().is_empty())
        .map(|ad| {
            let mut lines: Vec<String> = ad
                .lines()
                .filter(|l| {
                    let name = l.split(" = ").next().unwrap_or("");
                    !ID_SPECIFIC.iter().any(|a| a.eq_ignore_ascii_case(name))
                })
                .map(|l| l.replace(&format!("cluster{cluster}"), "cluster$C"))
                .collect();
            lines.sort();
            lines
        })
        .collect()
}

#[test]
fn a_materialized_job_is_the_job_an_ordinary_submit_makes() {
    let env = TestEnvironment::new();
    env.write_file("rows.txt", "x 1\ny 2\n");
    let description = |factory: &str| {
        format!(
            "universe = vanilla\nexecutable = /bin/echo\narguments = \"$(Name) $(N) $(Step) $(Row)\"\n\
             output = cluster$(Cluster).$(Process).out\nrequest_memory = $(N) * 64\n\
             environment = \"A=$(Name)\"\nrequirements = false\n+Tag = \"$(Name)-$(ItemIndex)\"\n\
             log = same.log\n{factory}queue 2 Name, N from rows.txt\n"
        )
    };
    let master = Master::start(&env);
    let ordinary = submit(&env, &description(""));
    let factory = submit(&env, &description("max_materialize = 10\n"));
    wait_for("every proc of the factory", || {
        cluster_attr(&env, &factory, "JobMaterializeNextProcId").as_deref() == Some("4")
    });
    let theirs = long_ads(&env, &ordinary);
    let ours = long_ads(&env, &factory);
    assert_eq!(theirs.len(), 4);
    assert_eq!(ours, theirs);
    drop(master);
}

#[test]
fn a_killed_master_makes_no_proc_twice_and_skips_none() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = /bin/true\nlog = crash.log\nmax_materialize = 4\nqueue 40\n",
    );
    wait_for("some procs made", || {
        cluster_attr(&env, &cluster, "JobMaterializeNextProcId")
            .and_then(|n| n.parse::<i64>().ok())
            .is_some_and(|n| n >= 8)
    });
    master.kill();
    let master = Master::start(&env);
    wait_for("the factory to finish", || {
        cluster_attr(&env, &cluster, "ClusterId").is_none()
    });
    let history = env.run(
        "condor_history",
        [cluster.as_str(), "-forwards", "-af", "ProcId"],
    );
    let mut ids: Vec<i64> = history.stdout.lines().map(|l| l.parse().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, (0..40).collect::<Vec<i64>>());
    drop(master);
}

#[test]
fn condor_hold_pauses_the_factory_and_condor_release_resumes_it() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = /bin/true\nrequirements = false\nlog = pause.log\n\
         max_materialize = 2\nqueue 5\n",
    );
    wait_for("two procs", || procs(&env, &cluster).len() == 2);
    event_numbers(&env, "pause.log", 3);
    let out = env.run("condor_hold", [cluster.as_str()]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        cluster_attr(&env, &cluster, "JobMaterializePaused").as_deref(),
        Some("1")
    );
    // With the factory paused, room in the cluster makes no new proc.
    let out = env.run("condor_rm", [&format!("{cluster}.0")]);
    assert_eq!(out.status, Some(0), "{out}");
    let out = env.run("condor_release", [cluster.as_str()]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        cluster_attr(&env, &cluster, "JobMaterializePaused").as_deref(),
        Some("0")
    );
    wait_for("the next proc", || {
        cluster_attr(&env, &cluster, "JobMaterializeNextProcId").as_deref() == Some("3")
    });
    let numbers = event_numbers(&env, "pause.log", 10);
    let mut head = numbers[..3].to_vec();
    head.sort();
    assert_eq!(head, [0, 0, 35]);
    assert_eq!(numbers[3..7], [12, 12, 37, 9]);
    // The release's events and the new proc's come from two writers.
    let mut tail = numbers[7..].to_vec();
    tail.sort();
    assert_eq!(tail, [0, 13, 38]);
    drop(master);
}

/// `condor_q -factory`: 24.0's `jobFactory_PrintFormat`, one line per factory's cluster ad
/// (no master runs, so nothing is materialized), with the counts of its procs; an ordinary
/// cluster is not listed.
#[test]
fn condor_q_factory_lists_the_factories_cluster_ads() {
    let env = crate::common::jobs::pool();
    for text in [
        "executable = /bin/true\nmax_materialize = 3\nqueue 10\n",
        "executable = /bin/true\nqueue 1\n",
        "executable = /bin/true\nmax_idle = 2\nqueue 5\n",
    ] {
        let file = env.write_file("f.sub", text);
        let out = env.run("condor_submit", [file.to_str().unwrap()]);
        assert_eq!(out.status, Some(0), "{out}");
    }
    // condor_hold of a factory's cluster pauses it: MODE Held.
    let out = env.run("condor_hold", ["3"]);
    assert_eq!(out.status, Some(0), "{out}");
    let title = "\n\n-- Schedd: submit@example.com : <127.0.0.1:9618?... @ 01/31/24 12:00:00\n";
    // The digest is in the queue store: DIGEST names it (the last column, padded to its
    // values in the heading).
    let digest = "$TEST_ENV/local/spool/job_queue.db";
    let heading = format!(
        " ID      OWNER            SUBMITTED  LIMIT PRESNT   RUN    IDLE   HOLD NEXTID MODE {:<w$}\n",
        "DIGEST",
        w = env.root().join("local/spool/job_queue.db").to_string_lossy().len()
    );
    let out = env.run("condor_q", ["-factory"]);
    assert_eq!(
        env.normalize(&out.to_string()),
        format!(
            "{title}{heading}\
             \x20  1.    alice           1/31 12:00      3      0      0      0      0      0 Norm {digest}\n\
             \x20  3.    alice           1/31 12:00      5      0      0      0      0      0 Held {digest}\n\
             [exit status: 0]"
        )
    );
    // Selected by cluster id, with the options' prefixes.
    let out = env.run("condor_q", ["-fact:c,l", "3"]);
    let rows: Vec<_> = out.stdout.lines().filter(|l| l.contains("alice")).collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert!(rows[0].starts_with("   3.    alice "), "{out}");
    let out = env.run("condor_q", ["-factory:clusters_only,bogus"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nError: unknown option bogus for -factory\n[exit status: 1]"
    );
}

/// With a master making the procs, `condor_q -factory`'s counts are the procs' states.
#[test]
fn condor_q_factory_counts_the_procs_by_state() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = /bin/true\nrequirements = false\nmax_materialize = 2\nqueue 3\n",
    );
    wait_for("two procs", || procs(&env, &cluster).len() == 2);
    let out = env.run("condor_hold", [&format!("{cluster}.0")]);
    assert_eq!(out.status, Some(0), "{out}");
    let out = env.run("condor_q", ["-factory", "-allusers"]);
    assert_eq!(out.status, Some(0), "{out}");
    let row = out.stdout.lines().last().unwrap();
    let fields: Vec<&str> = row.split_whitespace().collect();
    // ID, OWNER, SUBMITTED (date and time), LIMIT, PRESNT, RUN, IDLE, HOLD, NEXTID, MODE.
    assert_eq!(fields[0], format!("{cluster}."), "{out}");
    assert_eq!(
        fields[4..11],
        ["2", "2", "0", "1", "1", "2", "Norm"],
        "{out}"
    );
    drop(master);
}

/// The factory's cluster ad names where its digest is (`JobMaterializeDigestFile`: the queue
/// store, which holds it); with `-factory`, `-af` and `-long` list the factories' cluster ads
/// (queue.cpp asks the schedd to include them, `fetch_IncludeClusterAd`) with the schedd's
/// counts. Without `-factory` the schedd sends no cluster ad: a factory that has made no proc
/// is neither listed nor counted by the default view and `-totals`.
#[test]
fn factory_cluster_ads_reach_af_and_long_but_not_the_totals() {
    let env = crate::common::jobs::pool();
    for text in [
        "executable = /bin/true\nmax_materialize = 3\nqueue 10\n",
        "executable = /bin/true\nqueue 2\n",
    ] {
        let file = env.write_file("f.sub", text);
        let out = env.run("condor_submit", [file.to_str().unwrap()]);
        assert_eq!(out.status, Some(0), "{out}");
    }
    let store = env.local_dir().join("spool/job_queue.db");
    assert_eq!(
        cluster_attr(&env, "1", "JobMaterializeDigestFile"),
        Some(format!("\"{}\"", store.display()))
    );
    assert_eq!(cluster_attr(&env, "2", "JobMaterializeDigestFile"), None);
    let out = env.run(
        "condor_q",
        [
            "-factory",
            "-af",
            "ClusterId",
            "ProcId",
            "JobsPresent",
            "JobMaterializeDigestFile",
        ],
    );
    assert_eq!(
        env.normalize(&out.to_string()),
        "1 undefined 0 $TEST_ENV/local/spool/job_queue.db\n[exit status: 0]"
    );
    let out = env.run("condor_q", ["-factory", "-long"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(out.stdout.contains("\nClusterId = 1\n"), "{out}");
    assert!(out.stdout.contains("\nJobMaterializeLimit = 3\n"), "{out}");
    assert!(!out.stdout.contains("\nProcId = "), "{out}");
    // The ordinary cluster's procs only.
    let totals = "Total for query: 2 jobs; 0 completed, 0 removed, 2 idle, 0 running, 0 held, \
                  0 suspended \n";
    let out = env.run("condor_q", ["-totals"]);
    assert!(out.stdout.contains(totals), "{out}");
    let out = env.run("condor_q", [] as [&str; 0]);
    assert!(out.stdout.contains(totals), "{out}");
    assert!(!out.stdout.contains("ID: 1 "), "{out}");
}
