//! Tests of the store as a whole: submits, edits, status rules, history, queries, schema.
//! (The parts have their own tests next to them; processes sharing a store are tested in
//! tests/queue/.)

use super::*;
use crate::classad::{parse_ad, parse_expr, Expr, Value};

fn queue() -> (tempfile::TempDir, Queue) {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Queue::open(dir.path()).unwrap();
    q.set_clock(|| 1_700_000_000);
    (dir, q)
}

fn ad(src: &str) -> ClassAd {
    parse_ad(src).unwrap()
}

fn cluster_ad(owner: &str) -> ClassAd {
    ad(&format!(
        r#"[ Owner = "{owner}"; User = "{owner}@example.com"; Cmd = "/bin/sleep"; JobUniverse = 5;
             JobStatus = 1; QDate = 1000; EnteredCurrentStatus = 1000;
             Requirements = TARGET.Memory > 10 && TARGET.Arch == "X86_64" ]"#
    ))
}

fn procs(n: usize) -> Vec<ClassAd> {
    (0..n)
        .map(|i| ad(&format!(r#"[ Args = "{i}" ]"#)))
        .collect()
}

fn int(ad: &ClassAd, name: &str) -> Option<i64> {
    ad.eval_attr(name).as_int()
}

fn string(ad: &ClassAd, name: &str) -> Option<String> {
    ad.eval_attr(name).as_str().map(str::to_owned)
}

fn job_ad(q: &Queue, c: i32, p: i32) -> ClassAd {
    q.job(JobId::new(c, p)).unwrap().unwrap().into_ad().unwrap()
}

fn ids(q: &Queue, query: &JobQuery) -> Vec<String> {
    q.job_ids(query)
        .unwrap()
        .into_iter()
        .map(|j| j.to_string())
        .collect()
}

fn constraint(src: &str) -> JobQuery {
    JobQuery::all().with_constraint(parse_expr(src).unwrap())
}

type R<T = ()> = Result<T, QueueError>;

#[test]
fn opening_sets_up_the_store_once() {
    let dir = tempfile::tempdir().unwrap();
    let q = Queue::open(dir.path().join("spool")).unwrap();
    assert_eq!(q.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(q.path(), dir.path().join("spool").join(QUEUE_FILE));
    let mode: String = q
        .conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let sync: i64 = q
        .conn
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sync, 2, "synchronous = FULL");
    drop(q);
    let q = Queue::open(dir.path().join("spool")).unwrap();
    assert_eq!(q.schema_version().unwrap(), SCHEMA_VERSION);
}

#[test]
fn the_log_outlives_a_connection_until_it_grows() -> R {
    let dir = tempfile::tempdir().unwrap();
    let mut q = Queue::open(dir.path())?;
    let wal = q.wal_path();
    q.submit(cluster_ad("alice"), procs(1))?;
    drop(q);
    // No checkpoint at close: the commit stays in the log, which the next connection reads.
    assert!(std::fs::metadata(&wal).unwrap().len() > 0);
    let mut q = Queue::open(dir.path())?;
    assert_eq!(q.jobs(&JobQuery::all())?.count(), 1);
    q.submit(cluster_ad("alice"), procs(5000))?;
    assert!(std::fs::metadata(&wal).unwrap().len() > schema::CHECKPOINT_AT);
    drop(q);
    // Grown past the limit: folded into the file and emptied by the last connection.
    assert_eq!(std::fs::metadata(&wal).unwrap().len(), 0);
    let q = Queue::open(dir.path())?;
    assert_eq!(q.jobs(&JobQuery::all())?.count(), 5001);
    Ok(())
}

/// The stamps of rows as inserted.
const NEW_ROW: Stamp = Stamp {
    proc: 0,
    cluster: 0,
};

#[test]
fn change_stamps_move_with_every_update_of_a_job_or_its_cluster() -> R {
    let (_dir, mut q) = queue();
    let a = q.submit(cluster_ad("alice"), procs(2))?;
    let b = q.submit(cluster_ad("bob"), procs(1))?;
    let stamps = |q: &Queue| -> std::collections::BTreeMap<String, Stamp> {
        q.stamps(JobStatus::Idle)
            .unwrap()
            .into_iter()
            .map(|(id, s)| (id.to_string(), s))
            .collect()
    };
    let new = stamps(&q);
    assert_eq!(new.len(), 3);
    // Rows as inserted carry no stamp: their ids are new.
    assert!(new.values().all(|s| *s == NEW_ROW));

    let a0 = JobId {
        cluster: a,
        proc: 0,
    };
    q.transaction(|tx| tx.set_attr(a0, "RequestMemory", Expr::lit(2048i64)))?;
    let after_proc_edit = stamps(&q);
    let edited = after_proc_edit[&a0.to_string()];
    assert!(edited.proc > 0 && edited.cluster == 0, "{edited:?}");
    let a1 = format!("{a}.1");
    assert_eq!(after_proc_edit[&a1], new[&a1]);

    q.transaction(|tx| tx.set_attr(b, "Requirements", Expr::lit(true)))?;
    let after_cluster_edit = stamps(&q);
    let b0 = format!("{b}.0");
    assert!(after_cluster_edit[&b0].cluster > edited.proc);
    assert_eq!(after_cluster_edit[&a1], new[&a1]);

    // Held jobs leave the idle stamps.
    q.transaction(|tx| tx.set_status(a0, JobStatus::Held))?;
    assert!(!stamps(&q).contains_key(&a0.to_string()));
    assert_eq!(q.stamps(JobStatus::Held)?.len(), 1);
    Ok(())
}

#[test]
fn jobs_by_id_reads_the_named_jobs_that_exist() -> R {
    let (_dir, mut q) = queue();
    let a = q.submit(cluster_ad("alice"), procs(3))?;
    let b = q.submit(cluster_ad("bob"), procs(1))?;
    let id = |cluster, proc| JobId { cluster, proc };
    let missing = id(ClusterId(b.0 + 5), 0);
    let jobs = q.jobs_by_id([id(b, 0), id(a, 2), missing, id(a, 0), id(a, 7)])?;
    let got: Vec<String> = jobs.iter().map(|j| j.id().to_string()).collect();
    assert_eq!(got, [format!("{b}.0"), format!("{a}.2"), format!("{a}.0")]);
    assert_eq!(string(jobs[1].ad()?, "Owner").as_deref(), Some("alice"));
    assert_eq!(int(jobs[2].ad()?, "ProcId"), Some(0));
    Ok(())
}

#[test]
fn status_queries_read_the_indexes_in_job_order() {
    // Paged queries by status read a status's jobs in id order from the index (no sort of
    // every job at each page); the daemon's stamp scan reads the indexes alone.
    let (_dir, q) = queue();
    for sql in [
        "SELECT cluster_id, proc_id, changed FROM procs WHERE job_status = 1
         ORDER BY cluster_id, proc_id",
        "SELECT p.cluster_id, p.proc_id, p.ad FROM procs p
         WHERE p.job_status = 1 AND (p.cluster_id, p.proc_id) > (1, 0)
         ORDER BY p.cluster_id, p.proc_id LIMIT 1024",
        "SELECT cluster_id, changed FROM clusters",
    ] {
        let plan: Vec<String> = q
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map([], |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let plan = plan.join("; ");
        assert!(!plan.contains("TEMP B-TREE"), "{sql}: {plan}");
        assert!(plan.contains("INDEX"), "{sql}: {plan}");
    }
}

#[test]
fn a_version_1_store_is_migrated_with_its_jobs() -> R {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(QUEUE_FILE);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(schema::MIGRATIONS[0]).unwrap();
    conn.execute_batch(
        "PRAGMA user_version = 1;
         INSERT INTO clusters (cluster_id, owner, ad)
             VALUES (1, 'alice', '[ ClusterId = 1; Owner = \"alice\" ]');
         INSERT INTO procs (cluster_id, proc_id, job_status, ad) VALUES (1, 0, 1, '[ ]');
         UPDATE meta SET value = 2 WHERE name = 'next_cluster_id';",
    )
    .unwrap();
    drop(conn);
    let mut q = Queue::open(dir.path())?;
    assert_eq!(q.schema_version()?, SCHEMA_VERSION);
    let stamps = q.stamps(JobStatus::Idle)?;
    assert_eq!(stamps.len(), 1);
    assert_eq!(stamps[0].1, NEW_ROW);
    let id = stamps[0].0;
    q.transaction(|tx| tx.set_attr(id, "Foo", Expr::lit(1i64)))?;
    assert_eq!(q.stamps(JobStatus::Idle)?[0].1.proc, 1);
    assert_eq!(string(&job_ad(&q, 1, 0), "Owner").as_deref(), Some("alice"));
    Ok(())
}

#[test]
fn a_newer_schema_is_refused_and_an_older_one_migrated() {
    let dir = tempfile::tempdir().unwrap();
    drop(Queue::open(dir.path()).unwrap());
    let conn = rusqlite::Connection::open(dir.path().join(QUEUE_FILE)).unwrap();
    conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    let err = Queue::open(dir.path()).unwrap_err();
    assert!(
        matches!(err, QueueError::TooNew { found, .. } if found == SCHEMA_VERSION + 1),
        "{err}"
    );
    assert!(
        err.to_string().contains("newer than this condorlite"),
        "{err}"
    );

    // Version 0 is an empty file: migrations run from there.
    let dir = tempfile::tempdir().unwrap();
    rusqlite::Connection::open(dir.path().join(QUEUE_FILE))
        .unwrap()
        .execute_batch("PRAGMA user_version = 0")
        .unwrap();
    let mut conn = rusqlite::Connection::open(dir.path().join(QUEUE_FILE)).unwrap();
    assert_eq!(
        schema::migrate(&mut conn).unwrap(),
        schema::Migration::Migrated { from: 0 }
    );
    assert_eq!(
        schema::migrate(&mut conn).unwrap(),
        schema::Migration::UpToDate
    );
}

#[test]
fn not_a_database_is_a_damaged_store_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(QUEUE_FILE), vec![b'x'; 4096]).unwrap();
    let err = Queue::open(dir.path()).unwrap_err();
    assert!(matches!(err, QueueError::Damaged { .. }), "{err:?}");
    assert!(err.to_string().contains(QUEUE_FILE), "{err}");
    assert!(err.to_string().contains("file is not a database"), "{err}");
    assert!(dir.path().join(DAMAGE_FILE).exists());
}

#[test]
fn submit_stores_the_cluster_ad_once_and_chains_procs_to_it() {
    let (_dir, mut q) = queue();
    let c = q.submit(cluster_ad("alice"), procs(3)).unwrap();
    assert_eq!(c, ClusterId(1));

    // The cluster ad: ClusterId and TotalSubmitProcs added, stored once.
    let cluster = q.cluster_ad(c).unwrap().unwrap();
    assert_eq!(int(&cluster, "ClusterId"), Some(1));
    assert_eq!(int(&cluster, TOTAL_SUBMIT_PROCS), Some(3));
    let stored: i64 = q
        .conn
        .query_row("SELECT count(*) FROM clusters", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, 1);

    // Each job: its own attributes, chained to the cluster ad.
    let job = job_ad(&q, 1, 2);
    let own: Vec<&str> = job.own_iter().map(|(n, _)| n).collect();
    assert_eq!(own, ["ProcId", "JobStatus", "Args"]);
    assert!(job.chained().is_some());
    assert_eq!(int(&job, "ClusterId"), Some(1));
    assert_eq!(int(&job, "ProcId"), Some(2));
    assert_eq!(int(&job, "JobStatus"), Some(1));
    assert_eq!(string(&job, "Args").as_deref(), Some("2"));
    assert_eq!(string(&job, "Owner").as_deref(), Some("alice"));
    let mut job = job;
    assert_eq!(job.unchain().map(|c| int(&c, "ClusterId")), Some(Some(1)));

    let next = q.submit(cluster_ad("bob"), procs(1)).unwrap();
    assert_eq!(next, ClusterId(2));
}

#[test]
fn proc_ads_keep_only_what_differs_from_the_cluster() {
    let (_dir, mut q) = queue();
    let base = cluster_ad("alice");
    // Full job ads, as a submit may hand them over: each the cluster ad plus its own values,
    // and some attributes that belong to the cluster only.
    let full: Vec<ClassAd> = (0..2)
        .map(|i| {
            let mut a = base.clone();
            a.insert("Args", Expr::lit(format!("{i}")));
            a.insert("Owner", Expr::lit("mallory"));
            a.insert("ClusterId", Expr::lit(77));
            a.insert("ProcId", Expr::lit(99));
            a.insert("JobStatus", Expr::lit(5));
            a
        })
        .collect();
    q.submit(base, full).unwrap();
    let job = job_ad(&q, 1, 1);
    let own: Vec<&str> = job.own_iter().map(|(n, _)| n).collect();
    assert_eq!(own, ["ProcId", "JobStatus", "Args"]);
    assert_eq!(int(&job, "ProcId"), Some(1));
    assert_eq!(int(&job, "ClusterId"), Some(1));
    assert_eq!(int(&job, "JobStatus"), Some(5));
    assert_eq!(string(&job, "Owner").as_deref(), Some("alice"));
}

#[test]
fn a_failed_transaction_leaves_nothing() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(2)).unwrap();
    let result: R = q.transaction(|tx| {
        tx.submit(cluster_ad("alice"), procs(5))?;
        tx.set_status(JobId::new(1, 0), JobStatus::Held)?;
        tx.set_attr(ClusterId(1), "Foo", Expr::lit(1))?;
        tx.set_status(JobId::new(9, 9), JobStatus::Held)
    });
    assert!(matches!(result, Err(QueueError::JobNotFound(j)) if j == JobId::new(9, 9)));
    assert_eq!(ids(&q, &JobQuery::all()), ["1.0", "1.1"]);
    assert_eq!(int(&job_ad(&q, 1, 0), "JobStatus"), Some(1));
    assert!(job_ad(&q, 1, 0).lookup("Foo").is_none());
    // The id the failed submit took was rolled back with it.
    assert_eq!(q.submit(cluster_ad("a"), procs(1)).unwrap(), ClusterId(2));

    // A panic rolls back too.
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = q.transaction(|tx| -> R {
            tx.submit(cluster_ad("alice"), procs(5))?;
            panic!("tool bug");
        });
    }));
    assert!(caught.is_err());
    assert_eq!(q.cluster_ids().unwrap(), [ClusterId(1), ClusterId(2)]);

    // Tools' own error types work too.
    #[derive(Debug)]
    enum ToolError {
        Queue(QueueError),
        Refused,
    }
    impl From<QueueError> for ToolError {
        fn from(e: QueueError) -> Self {
            ToolError::Queue(e)
        }
    }
    let r = q.transaction(|tx| {
        tx.submit(cluster_ad("alice"), procs(1))?;
        Err::<(), _>(ToolError::Refused)
    });
    assert!(matches!(r, Err(ToolError::Refused)));
    let r = q.transaction(|tx| -> Result<(), ToolError> {
        tx.set_status(JobId::new(5, 5), JobStatus::Held)?;
        Ok(())
    });
    assert!(matches!(
        r,
        Err(ToolError::Queue(QueueError::JobNotFound(_)))
    ));
    assert_eq!(q.job_ids(&JobQuery::all()).unwrap().len(), 3);
}

#[test]
fn an_empty_submit_is_refused() {
    let (_dir, mut q) = queue();
    let err = q.submit(cluster_ad("alice"), procs(0)).unwrap_err();
    assert!(
        matches!(err, QueueError::EmptySubmit(ClusterId(1))),
        "{err}"
    );
    assert!(q.cluster_ids().unwrap().is_empty());
}

#[test]
fn several_queue_statements_append_to_one_cluster() {
    let (_dir, mut q) = queue();
    let (c, first, second) = q
        .transaction(|tx| -> R<_> {
            let c = tx.new_cluster_id()?;
            // The id is known before the ads are built ($(Cluster) in a submit file).
            let mut cl = cluster_ad("alice");
            cl.insert("Out", Expr::lit(format!("out.{}", c.0)));
            let first = tx.submit_cluster(c, cl, procs(2))?;
            let second = tx.add_procs(c, [ad("[ Args = \"x\"; Queue2 = true ]")])?;
            Ok((c, first, second))
        })
        .unwrap();
    assert_eq!((first, second), (0..2, 2..3));
    assert_eq!(ids(&q, &JobQuery::all()), ["1.0", "1.1", "1.2"]);
    assert_eq!(string(&job_ad(&q, 1, 2), "Out").as_deref(), Some("out.1"));
    assert_eq!(
        int(&q.cluster_ad(c).unwrap().unwrap(), TOTAL_SUBMIT_PROCS),
        Some(3)
    );
    let err = q
        .transaction(|tx| tx.add_procs(ClusterId(1), procs(1)))
        .unwrap_err();
    assert!(matches!(err, QueueError::NotNewCluster(ClusterId(1))));
    let err = q
        .transaction(|tx| tx.submit_cluster(ClusterId(7), cluster_ad("x"), procs(1)))
        .unwrap_err();
    assert!(matches!(err, QueueError::NotNewCluster(ClusterId(7))));
}

#[test]
fn edits_at_cluster_and_proc_level() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(3)).unwrap();
    q.transaction(|tx| -> R {
        tx.set_attr(ClusterId(1), "JobPrio", parse_expr("10 + 1").unwrap())?;
        tx.set_attr(JobId::new(1, 1), "JobPrio", Expr::lit(-5))?;
        // Deleting from a proc what its cluster has masks it.
        assert!(tx.delete_attr(JobId::new(1, 2), "Cmd")?);
        assert!(!tx.delete_attr(JobId::new(1, 2), "NoSuchAttr")?);
        assert!(tx.delete_attr(JobId::new(1, 0), "Args")?);
        Ok(())
    })
    .unwrap();
    assert_eq!(int(&job_ad(&q, 1, 0), "JobPrio"), Some(11));
    assert_eq!(int(&job_ad(&q, 1, 1), "JobPrio"), Some(-5));
    assert_eq!(int(&job_ad(&q, 1, 2), "JobPrio"), Some(11));
    assert!(job_ad(&q, 1, 2).eval_attr("Cmd").is_undefined());
    assert_eq!(
        string(&job_ad(&q, 1, 1), "Cmd").as_deref(),
        Some("/bin/sleep")
    );
    assert!(job_ad(&q, 1, 0).lookup("Args").is_none());
    let printed = crate::classad::unparse::expr_to_string(
        q.cluster_ad(ClusterId(1))
            .unwrap()
            .unwrap()
            .lookup("JobPrio")
            .unwrap(),
    );
    assert_eq!(printed, "10 + 1");
    q.transaction(|tx| tx.delete_attr(ClusterId(1), "JobPrio"))
        .unwrap();
    assert!(job_ad(&q, 1, 0).lookup("JobPrio").is_none());
}

#[test]
fn protected_and_typed_attributes() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(2)).unwrap();
    let err = |r: R| r.unwrap_err().to_string();
    let j = JobId::new(1, 1);
    assert_eq!(
        err(q.transaction(|tx| tx.set_attr(j, "ProcId", Expr::lit(5)))),
        "job 1.1: setting ProcId to a new value is not permitted"
    );
    assert_eq!(
        err(q.transaction(|tx| tx.set_attr(ClusterId(1), "ClusterId", Expr::lit(5)))),
        "cluster 1: setting ClusterId to a new value is not permitted"
    );
    // The same value is accepted and changes nothing.
    q.transaction(|tx| {
        tx.set_attr(j, "ProcId", Expr::lit(1))?;
        tx.set_attr(j, "ClusterId", Expr::lit(1))
    })
    .unwrap();
    assert_eq!(
        err(q.transaction(|tx| tx.set_attr(j, "JobStatus", Expr::lit("held")))),
        "job 1.1: JobStatus must be an integer"
    );
    assert_eq!(
        err(q.transaction(|tx| tx.set_attr(ClusterId(1), "Owner", Expr::lit(3)))),
        "cluster 1: Owner must be a string"
    );
    assert_eq!(
        err(q.transaction(|tx| tx.set_attr(j, "QDate", parse_expr("time()").unwrap()))),
        "job 1.1: QDate must be an integer or undefined"
    );
    assert_eq!(
        err(q.transaction(|tx| tx.delete_attr(j, "JobStatus").map(|_| ()))),
        "job 1.1: setting JobStatus to a new value is not permitted"
    );
    assert_eq!(
        err(q.transaction(|tx| tx.set_attr(j, "", Expr::lit(1)))),
        "job 1.1: invalid attribute name ''"
    );
    assert_eq!(
        err(q.transaction(|tx| tx.set_attr(JobId::new(1, 7), "X", Expr::lit(1)))),
        "job 1.7 not found"
    );
    assert_eq!(
        err(q.transaction(|tx| tx.set_attr(ClusterId(4), "X", Expr::lit(1)))),
        "cluster 4 not found"
    );
}

#[test]
fn owner_set_on_a_proc_goes_to_the_cluster_from_proc_0_only() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(2)).unwrap();
    q.transaction(|tx| tx.set_attr(JobId::new(1, 1), "Owner", Expr::lit("eve")))
        .unwrap();
    assert_eq!(string(&job_ad(&q, 1, 1), "Owner").as_deref(), Some("alice"));
    q.transaction(|tx| tx.set_attr(JobId::new(1, 0), "Owner", Expr::lit("bob")))
        .unwrap();
    assert_eq!(string(&job_ad(&q, 1, 1), "Owner").as_deref(), Some("bob"));
    assert_eq!(
        ids(&q, &JobQuery::ids([JobIdSpec::Owner("BOB".into())])).len(),
        2
    );
    assert!(ids(&q, &constraint("Owner == \"alice\"")).is_empty());
}

#[test]
fn status_changes_follow_the_schedds_rules() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(2)).unwrap();
    let j = JobId::new(1, 0);
    q.set_clock(|| 2000);
    q.transaction(|tx| tx.set_status(j, JobStatus::Held))
        .unwrap();
    let a = job_ad(&q, 1, 0);
    assert_eq!(int(&a, "JobStatus"), Some(5));
    assert_eq!(int(&a, "LastJobStatus"), Some(1));
    assert_eq!(int(&a, "EnteredCurrentStatus"), Some(2000));
    // The other job still has the cluster's time.
    assert_eq!(int(&job_ad(&q, 1, 1), "EnteredCurrentStatus"), Some(1000));

    q.transaction(|tx| tx.set_status(j, JobStatus::Removed))
        .unwrap();
    // A removed job cannot come back...
    let err = q
        .transaction(|tx| tx.set_status(j, JobStatus::Idle))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "changing JobStatus of removed job 1.0 to 1 is invalid"
    );
    // ... but may be held, and then remembers to go back to removed.
    q.transaction(|tx| tx.set_status(j, JobStatus::Held))
        .unwrap();
    let a = job_ad(&q, 1, 0);
    assert_eq!(int(&a, "JobStatusOnRelease"), Some(3));
    assert_eq!(int(&a, "LastJobStatus"), Some(3));
    let err = q
        .transaction(|tx| tx.set_attr(j, "JobStatus", Expr::lit(2)))
        .unwrap_err();
    assert!(matches!(err, QueueError::RemovedJobStatus { to: 2, .. }));
    // set_attr applies the rules without touching EnteredCurrentStatus.
    q.set_clock(|| 3000);
    q.transaction(|tx| tx.set_attr(JobId::new(1, 1), "JobStatus", Expr::lit(2)))
        .unwrap();
    let b = job_ad(&q, 1, 1);
    assert_eq!(int(&b, "JobStatus"), Some(2));
    assert_eq!(int(&b, "EnteredCurrentStatus"), Some(1000));
    assert_eq!(
        q.job(JobId::new(1, 1)).unwrap().unwrap().status(),
        Some(JobStatus::Running)
    );
}

#[test]
fn finished_jobs_move_to_the_history() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(3)).unwrap();
    let j = |p| JobId::new(1, p);
    let err = q.transaction(|tx| tx.move_to_history(j(0))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "job 1.0 is neither completed nor removed (JobStatus 1): it cannot leave the queue"
    );
    q.set_clock(|| 5000);
    let outcome = q
        .transaction(|tx| {
            tx.set_status(j(0), JobStatus::Completed)?;
            tx.set_status(j(1), JobStatus::Removed)?;
            tx.set_attr(
                j(2),
                "LeaveJobInQueue",
                parse_expr("JobStatus == 4").unwrap(),
            )?;
            tx.set_status(j(2), JobStatus::Completed)?;
            Ok::<_, QueueError>([
                tx.move_to_history(j(0))?,
                tx.move_to_history(j(1))?,
                tx.move_to_history(j(2))?,
            ])
        })
        .unwrap();
    assert_eq!(
        outcome,
        [LeftQueue::Moved, LeftQueue::Moved, LeftQueue::LeftInQueue]
    );
    assert_eq!(ids(&q, &JobQuery::all()), ["1.2"]);
    assert_eq!(int(&job_ad(&q, 1, 2), "CompletionDate"), Some(5000));

    let history: Vec<HistoryEntry> = q
        .history(&HistoryQuery::all())
        .unwrap()
        .collect::<R<_>>()
        .unwrap();
    let hist_ids: Vec<String> = history.iter().map(|h| h.id().to_string()).collect();
    assert_eq!(hist_ids, ["1.1", "1.0"], "newest first");
    let done = history[1].ad().unwrap();
    assert!(done.chained().is_none(), "history ads are flat");
    assert_eq!(int(done, "ClusterId"), Some(1));
    assert_eq!(int(done, "ProcId"), Some(0));
    assert_eq!(int(done, "CompletionDate"), Some(5000));
    assert_eq!(string(done, "Cmd").as_deref(), Some("/bin/sleep"));
    assert_eq!(string(done, "Args").as_deref(), Some("0"));
    let forwards = HistoryQuery::new(JobQuery::all(), HistoryOrder::OldestFirst);
    let first = q.history(&forwards).unwrap().next().unwrap().unwrap();
    assert_eq!(first.id(), j(0));
    let removed = HistoryQuery::new(constraint("JobStatus == 3"), HistoryOrder::NewestFirst);
    let found: Vec<JobId> = q
        .history(&removed)
        .unwrap()
        .map(|h| h.unwrap().id())
        .collect();
    assert_eq!(found, [j(1)]);
    let by_owner = HistoryQuery::new(
        JobQuery::ids([JobIdSpec::Owner("Alice".into())]),
        HistoryOrder::NewestFirst,
    );
    assert_eq!(q.history(&by_owner).unwrap().count(), 2);

    // The cluster leaves with its last job; its id is never given again.
    q.transaction(|tx| {
        tx.set_attr(j(2), "LeaveJobInQueue", Expr::lit(false))?;
        tx.move_to_history(j(2))
    })
    .unwrap();
    assert!(q.cluster_ids().unwrap().is_empty());
    assert_eq!(q.submit(cluster_ad("a"), procs(1)).unwrap(), ClusterId(2));
    assert_eq!(q.trim_history(1).unwrap(), 2);
    assert_eq!(q.history(&HistoryQuery::all()).unwrap().count(), 1);
}

#[test]
fn queries_by_ids_owners_and_constraints() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(3)).unwrap();
    q.submit(cluster_ad("bob"), procs(2)).unwrap();
    q.submit(cluster_ad("alice"), procs(1)).unwrap();
    q.transaction(|tx| tx.set_status(JobId::new(2, 1), JobStatus::Held))
        .unwrap();
    let spec = |s: &str| JobIdSpec::parse(s);
    assert_eq!(ids(&q, &JobQuery::ids([spec("2")])), ["2.0", "2.1"]);
    assert_eq!(
        ids(&q, &JobQuery::ids([spec("1.2"), spec("3"), spec("2.0")])),
        ["1.2", "2.0", "3.0"]
    );
    assert_eq!(ids(&q, &JobQuery::ids([spec("bob")])), ["2.0", "2.1"]);
    assert!(ids(&q, &JobQuery::ids([spec("9"), spec("1.9"), spec("carol")])).is_empty());
    assert_eq!(ids(&q, &constraint("JobStatus == 5")), ["2.1"]);
    assert_eq!(
        ids(&q, &constraint("Args == \"0\" && MY.Owner == \"ALICE\"")),
        ["1.0", "3.0"]
    );
    // Ids and constraint together: the ids, then the constraint.
    assert_eq!(
        ids(
            &q,
            &JobQuery::ids([spec("alice")]).with_constraint(parse_expr("ProcId > 0").unwrap())
        ),
        ["1.1", "1.2"]
    );
    // Numbers other than 0 count as true, as HTCondor's EvalExprBool has it.
    assert_eq!(ids(&q, &constraint("ProcId")).len(), 3);
    assert!(ids(&q, &constraint("\"yes\"")).is_empty());
    assert!(ids(&q, &constraint("undefined")).is_empty());
    assert_eq!(
        q.count_by_status(&JobQuery::all()).unwrap(),
        [(1, 5), (5, 1)]
    );
    assert_eq!(
        q.count_by_status(&constraint("Owner == \"bob\"")).unwrap(),
        [(1, 1), (5, 1)]
    );
}

#[test]
fn a_stream_shares_each_cluster_ad_and_spans_pages() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(2500)).unwrap();
    q.submit(cluster_ad("bob"), procs(10)).unwrap();
    let jobs: Vec<Job> = q.jobs(&JobQuery::all()).unwrap().collect::<R<_>>().unwrap();
    assert_eq!(jobs.len(), 2510);
    assert!(jobs.windows(2).all(|w| w[0].id() < w[1].id()));
    assert!(Arc::ptr_eq(jobs[0].cluster(), jobs[2499].cluster()));
    assert!(!Arc::ptr_eq(jobs[0].cluster(), jobs[2500].cluster()));
    assert_eq!(jobs[2500].cluster().id(), ClusterId(2));
    assert_eq!(int(jobs[1234].ad().unwrap(), "ProcId"), Some(1234));
}

#[test]
fn a_stream_reads_one_snapshot() {
    let (dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(3000)).unwrap();
    let mut other = Queue::open(dir.path()).unwrap();
    let mut stream = q.jobs(&JobQuery::all()).unwrap();
    let first = stream.next().unwrap().unwrap();
    assert_eq!(first.id(), JobId::new(1, 0));
    // Another process submits and edits while the stream is half read.
    other.submit(cluster_ad("bob"), procs(5)).unwrap();
    other
        .transaction(|tx| tx.set_status(JobId::new(1, 2999), JobStatus::Held))
        .unwrap();
    let rest: Vec<Job> = stream.collect::<R<_>>().unwrap();
    assert_eq!(rest.len(), 2999);
    assert_eq!(rest.last().unwrap().status(), Some(JobStatus::Idle));
    // A new stream sees the changes.
    assert_eq!(q.jobs(&JobQuery::all()).unwrap().count(), 3005);
}

#[test]
fn time_columns_follow_cluster_edits() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(3)).unwrap();
    q.set_clock(|| 4000);
    q.transaction(|tx| tx.set_status(JobId::new(1, 1), JobStatus::Held))
        .unwrap();
    let recent = constraint("EnteredCurrentStatus > 1500");
    assert_eq!(ids(&q, &recent), ["1.1"]);
    // Editing the cluster moves the procs that inherit the time, not the one that has its own.
    q.transaction(|tx| tx.set_attr(ClusterId(1), "EnteredCurrentStatus", Expr::lit(3000)))
        .unwrap();
    assert_eq!(ids(&q, &recent), ["1.0", "1.1", "1.2"]);
    assert_eq!(
        ids(&q, &constraint("EnteredCurrentStatus == 4000")),
        ["1.1"]
    );
    q.transaction(|tx| tx.delete_attr(ClusterId(1), "QDate"))
        .unwrap();
    assert!(ids(&q, &constraint("QDate > 0")).is_empty());
    assert_eq!(ids(&q, &constraint("QDate =!= 5")).len(), 3);
    q.transaction(|tx| tx.set_attr(JobId::new(1, 2), "QDate", Expr::lit(7)))
        .unwrap();
    assert_eq!(ids(&q, &constraint("QDate == 7")), ["1.2"]);
    q.transaction(|tx| tx.set_attr(ClusterId(1), "QDate", Expr::lit(8)))
        .unwrap();
    assert_eq!(ids(&q, &constraint("QDate == 8")), ["1.0", "1.1"]);
    // Deleting a proc's time that the cluster also has masks it with undefined.
    q.transaction(|tx| tx.delete_attr(JobId::new(1, 0), "QDate"))
        .unwrap();
    assert_eq!(ids(&q, &constraint("QDate == 8")), ["1.1"]);
    assert!(job_ad(&q, 1, 0).eval_attr("QDate").is_undefined());
}

#[test]
fn pushed_down_and_evaluated_queries_agree() {
    let (_dir, mut q) = queue();
    for (owner, n) in [("alice", 40), ("Bob", 30), ("carol", 1)] {
        q.submit(cluster_ad(owner), procs(n)).unwrap();
    }
    q.set_clock(|| 1500);
    q.transaction(|tx| -> R {
        for (i, status) in [JobStatus::Held, JobStatus::Running, JobStatus::Completed]
            .into_iter()
            .enumerate()
        {
            for p in (i as i32..40).step_by(7) {
                tx.set_status(JobId::new(1, p), status)?;
            }
        }
        tx.set_attr(JobId::new(2, 3), "QDate", Value::Undefined.into_lit())?;
        tx.set_attr(ClusterId(3), "QDate", Expr::lit(99))?;
        Ok(())
    })
    .unwrap();
    let all: Vec<Job> = q.jobs(&JobQuery::all()).unwrap().collect::<R<_>>().unwrap();
    for src in [
        "ClusterId == 1",
        "ClusterId != 1",
        "ClusterId >= 2 && ProcId < 5",
        "MY.ProcId == 3 || ClusterId == 3",
        "(JobStatus == 5 || JobStatus == 2) && ProcId > 10",
        "JobStatus =?= 5",
        "JobStatus =!= 1",
        "JobStatus == 5.0",
        "5 == JobStatus",
        "Owner == \"bob\"",
        "Owner != \"ALICE\"",
        "Owner =?= \"Bob\"",
        "Owner =?= \"bob\"",
        "Owner =!= \"bob\"",
        "QDate == 1000",
        "QDate =!= 1000",
        "QDate < 100",
        "EnteredCurrentStatus > 1000",
        "EnteredCurrentStatus > 1000 && Args == \"8\"",
        "ClusterId == 1 && (ProcId == 1 || Args == \"2\")",
        "ClusterId == -1",
        "ClusterId == \"1\"",
        "TARGET.JobStatus == 5",
        "Args == \"3\"",
    ] {
        let expr = parse_expr(src).unwrap();
        let evaluated: Vec<JobId> = all
            .iter()
            .filter(|j| constraint_holds(&expr, j.ad().unwrap()))
            .map(|j| j.id())
            .collect();
        let queried = q.job_ids(&JobQuery::all().with_constraint(expr)).unwrap();
        assert_eq!(queried, evaluated, "{src}");
    }
}

trait IntoLit {
    fn into_lit(self) -> Expr;
}

impl IntoLit for Value {
    fn into_lit(self) -> Expr {
        Expr::Lit(self)
    }
}

#[test]
fn repair_finds_a_clean_store_clean_and_fixes_what_foreign_writes_break() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(2)).unwrap();
    assert!(q.repair().unwrap().is_clean());
    q.conn
        .execute_batch("UPDATE meta SET value = 1 WHERE name = 'next_cluster_id'")
        .unwrap();
    let report = q.repair().unwrap();
    assert!(report.next_cluster_id_fixed);
    q.conn.execute_batch("DELETE FROM procs").unwrap();
    let report = q.repair().unwrap();
    assert_eq!(report.empty_clusters_removed, 1);
    assert!(!report.next_cluster_id_fixed);
    assert!(q.repair().unwrap().is_clean());
    assert_eq!(q.submit(cluster_ad("a"), procs(1)).unwrap(), ClusterId(2));
}

#[test]
fn a_writer_waits_for_another_and_gives_up_after_the_timeout() {
    let (dir, mut q) = queue();
    let mut impatient =
        Queue::open_with_timeout(dir.path(), std::time::Duration::from_millis(50)).unwrap();
    q.transaction(|tx| -> R {
        tx.submit(cluster_ad("alice"), procs(1))?;
        let err = impatient.submit(cluster_ad("bob"), procs(1)).unwrap_err();
        assert!(matches!(err, QueueError::Busy { .. }), "{err:?}");
        // Readers are not blocked by the writer, and see the last commit.
        assert_eq!(impatient.job_ids(&JobQuery::all()).unwrap().len(), 0);
        Ok(())
    })
    .unwrap();
    assert_eq!(
        impatient.submit(cluster_ad("bob"), procs(1)).unwrap(),
        ClusterId(2)
    );
}

#[test]
fn a_lost_store_is_not_replaced_by_an_empty_queue() {
    let (dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(2)).unwrap();
    drop(q);
    // Truncated (and its log gone): the pool had a queue, so opening refuses.
    let db = dir.path().join(QUEUE_FILE);
    std::fs::File::create(&db).unwrap();
    let _ = std::fs::remove_file(dir.path().join(format!("{QUEUE_FILE}-wal")));
    let _ = std::fs::remove_file(dir.path().join(format!("{QUEUE_FILE}-shm")));
    let err = Queue::open(dir.path()).unwrap_err();
    assert!(matches!(err, QueueError::Lost { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("is missing or empty, but this pool had one"),
        "{err}"
    );
    // Nothing was written: still empty.
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);
    // Missing altogether: the same.
    std::fs::remove_file(&db).unwrap();
    assert!(matches!(
        Queue::open(dir.path()).unwrap_err(),
        QueueError::Lost { .. }
    ));
    // Removing the marker starts a new queue, as the message says.
    std::fs::remove_file(dir.path().join(MARKER_FILE)).unwrap();
    let q = Queue::open(dir.path()).unwrap();
    assert!(q.job_ids(&JobQuery::all()).unwrap().is_empty());
    assert!(dir.path().join(MARKER_FILE).exists());
}

#[test]
fn damaged_ads_are_reported_with_their_job() {
    let (_dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(2)).unwrap();
    q.conn
        .execute("UPDATE procs SET ad = '[ x = ' WHERE proc_id = 1", [])
        .unwrap();
    let results: Vec<R<Job>> = q.jobs(&constraint("true")).unwrap().collect();
    assert!(results[0].is_ok());
    let err = results[1].as_ref().unwrap_err();
    assert!(
        err.to_string()
            .starts_with("job 1.1: the stored ad is damaged"),
        "{err}"
    );
    // Without a constraint the ad is read only when asked for.
    let job = q.job(JobId::new(1, 1)).unwrap().unwrap();
    assert_eq!(job.status(), Some(JobStatus::Idle));
    assert!(job.ad().is_err());
}

#[test]
fn queues_and_jobs_can_move_between_threads() {
    fn send<T: Send>() {}
    send::<Queue>();
    send::<Job>();
    send::<HistoryEntry>();
    send::<QueueError>();
}

#[test]
fn a_run_is_recorded_in_one_update_and_finished_in_one_step() {
    let (_dir, mut q) = queue();
    let c = q.submit(cluster_ad("alice"), procs(3)).unwrap();
    let (j0, j1, j2) = (JobId::new(c.0, 0), JobId::new(c.0, 1), JobId::new(c.0, 2));
    let set = vec![
        ("ExitCode".to_owned(), Expr::lit(3i64)),
        ("RemoteHost".to_owned(), Expr::lit("slot1@host")),
    ];
    q.transaction(|tx| {
        assert!(tx.update_job(j0, &set, &[], Some(JobStatus::Running))?);
        assert_eq!(tx.job_status(j0)?, Some(2));
        // One read: attributes set and deleted, status changed, history written.
        let left = tx.finish_job(
            j0,
            &[("ExitCode".to_owned(), Expr::lit(0i64))],
            &["RemoteHost".to_owned()],
            Some(JobStatus::Completed),
        )?;
        assert!(matches!(left, Some(LeftQueue::Moved)));
        // A job that stays (LeaveJobInQueue) keeps the changes.
        let stay = vec![("LeaveJobInQueue".to_owned(), Expr::lit(true))];
        let left = tx.finish_job(j1, &stay, &[], Some(JobStatus::Removed))?;
        assert!(matches!(left, Some(LeftQueue::LeftInQueue)));
        // Not finished: the changes are written, the move refused.
        let err = tx.finish_job(j2, &set, &[], None).unwrap_err();
        assert!(matches!(err, QueueError::NotFinished { .. }), "{err}");
        assert_eq!(tx.job_status(JobId::new(c.0, 9))?, None);
        assert!(tx.finish_job(JobId::new(c.0, 9), &[], &[], None)?.is_none());
        Ok::<_, QueueError>(())
    })
    .unwrap();
    assert!(q.job(j0).unwrap().is_none());
    let h: Vec<_> = q
        .history(&HistoryQuery::all())
        .unwrap()
        .map(|e| e.unwrap().into_ad().unwrap())
        .collect();
    assert_eq!(h.len(), 1);
    assert_eq!(int(&h[0], "ExitCode"), Some(0));
    assert_eq!(int(&h[0], "JobStatus"), Some(4));
    assert!(h[0].lookup("RemoteHost").is_none());
    assert_eq!(int(&h[0], "CompletionDate"), Some(1_700_000_000));
    assert_eq!(int(&job_ad(&q, c.0, 1), "JobStatus"), Some(3));
    assert_eq!(int(&job_ad(&q, c.0, 2), "ExitCode"), Some(3));
}

/// A store of many jobs, folded into its file and closed, with bytes of one of its pages
/// overwritten as a broken disk would.
fn store_with_a_garbage_page() -> tempfile::TempDir {
    let (dir, mut q) = queue();
    for _ in 0..20 {
        q.submit(cluster_ad("alice"), procs(50)).unwrap();
    }
    q.conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    drop(q);
    let db = dir.path().join(QUEUE_FILE);
    let mut bytes = std::fs::read(&db).unwrap();
    assert!(bytes.len() > 16 * 4096, "{} bytes", bytes.len());
    // The second half of the file: table and index pages of the jobs.
    let half = bytes.len() / 2;
    for (i, b) in bytes[half..].iter_mut().enumerate() {
        *b = (i * 131 % 251) as u8;
    }
    std::fs::write(&db, bytes).unwrap();
    dir
}

#[test]
fn a_damaged_store_is_found_marked_and_never_written() {
    let dir = store_with_a_garbage_page();
    let mut q = Queue::open(dir.path()).unwrap();
    assert_eq!(q.damage(), None, "open does not read every page");
    let err = q.repair().unwrap_err();
    assert!(matches!(err, QueueError::Damaged { .. }), "{err}");
    assert!(err.to_string().contains("is damaged ("), "{err}");
    assert!(dir.path().join(DAMAGE_FILE).exists());
    let err = q.submit(cluster_ad("bob"), procs(1)).unwrap_err();
    assert!(matches!(err, QueueError::Damaged { .. }), "{err}");
    drop(q);
    // Every later connection reads the damage file and refuses to write.
    let mut q = Queue::open(dir.path()).unwrap();
    assert!(q.damage().is_some());
    let err = q.submit(cluster_ad("bob"), procs(1)).unwrap_err();
    assert!(matches!(err, QueueError::Damaged { .. }), "{err}");
    assert!(matches!(q.repair(), Err(QueueError::Damaged { .. })));
}

#[test]
fn a_damaged_page_met_by_a_reader_marks_the_store() {
    let dir = store_with_a_garbage_page();
    let q = Queue::open(dir.path()).unwrap();
    // Reading every job meets the page sooner or later.
    let read: Result<Vec<_>, _> = q.jobs(&JobQuery::all()).and_then(|jobs| jobs.collect());
    match read {
        Err(QueueError::Damaged { .. }) => assert!(dir.path().join(DAMAGE_FILE).exists()),
        other => panic!("the damage went unnoticed: {:?}", other.map(|j| j.len())),
    }
}

#[test]
fn damage_found_by_another_process_stops_an_open_writer() {
    let (dir, mut q) = queue();
    q.submit(cluster_ad("alice"), procs(1)).unwrap();
    // Another connection meets damage (here: says so) while this one stays open.
    let err = QueueError::damaged(
        &dir.path().join(QUEUE_FILE),
        "page 7: btreeInitPage() error",
    );
    assert!(matches!(err, QueueError::Damaged { .. }));
    let err = q.submit(cluster_ad("alice"), procs(1)).unwrap_err();
    assert!(
        err.to_string().contains("page 7: btreeInitPage() error"),
        "{err}"
    );
}
