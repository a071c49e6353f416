//! The job tools at the sizes issue 4 sets goals for, run in-process through the tool
//! registry exactly as the binaries run them (configuration loaded, queue opened, output
//! rendered into memory):
//!
//! - `condor_q` (the default batch view), `condor_q -af ClusterId ProcId JobStatus` and
//!   `condor_q -totals` over a 100,000-job queue (goal < 0.3 s each);
//! - `condor_q -allusers -constraint 'JobStatus == 5' -af ClusterId ProcId` matching 10 jobs
//!   of 1,000,000, and `condor_q bob -nobatch` (10 of 1,000,000) (goal < 50 ms);
//! - `condor_history -limit 10` over 100,000 history records.
//!
//! Each pool lives in a temporary directory. Sample counts are small: building the 1M-job
//! queue takes a while.

use std::time::Duration;

use condorlite::classad::{parse_ad, ClassAd, Expr};
use condorlite::queue::{JobIdSpec, JobQuery, JobStatus, Queue};
use criterion::{criterion_group, criterion_main, Criterion};

const JOB_AD: &str = include_str!("data/job.ad");

fn cluster_ad(owner: &str) -> ClassAd {
    let mut ad = parse_ad(JOB_AD).expect("job ad parses");
    ad.insert("Owner", Expr::lit(owner));
    ad
}

fn proc_ads(n: i64) -> impl Iterator<Item = ClassAd> {
    (0..n).map(|i| {
        let mut ad = ClassAd::new();
        ad.insert("Arguments", Expr::lit(format!("train.py --seed {i}")));
        ad.insert("Out", Expr::lit(format!("train.{i}.out")));
        ad
    })
}

/// A pool directory; the tools run in it as `alice`.
struct Pool {
    dir: tempfile::TempDir,
}

impl Pool {
    fn new(fill: impl FnOnce(&mut Queue)) -> Pool {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut q = Queue::open(dir.path().join("spool")).expect("open");
        fill(&mut q);
        Pool { dir }
    }

    /// Points this process's tools at the pool.
    fn enter(&self) {
        std::env::set_var("_CONDOR_LOCAL_DIR", self.dir.path());
        std::env::set_var("CONDOR_CONFIG", "ONLY_ENV");
        std::env::set_var("CONDORLITE_USER", "alice");
        std::env::set_var("CONDORLITE_NOW", "1706702400");
        std::env::set_var("_CONDOR_SCHEDD_NAME", "submit@example.com");
    }
}

/// Runs a tool in-process; returns how many bytes it printed.
fn run(tool: &str, args: &[&str]) -> usize {
    let tool = condorlite::tools::find(tool).expect("a registered tool");
    let argv = std::iter::once(tool.name).chain(args.iter().copied());
    let (mut out, mut err) = (Vec::with_capacity(1 << 20), Vec::new());
    let status = tool.execute(argv, &mut out, &mut err);
    assert_eq!(status, 0, "{}", String::from_utf8_lossy(&err));
    out.len()
}

fn queue_100k(q: &mut Queue) {
    q.submit(cluster_ad("alice"), proc_ads(100_000)).unwrap();
}

/// 1,000,000 jobs: ten clusters of 99,999 (alice), ten jobs of bob's; ten of alice's held.
fn queue_1m(q: &mut Queue) {
    for _ in 0..10 {
        q.submit(cluster_ad("alice"), proc_ads(99_999)).unwrap();
    }
    q.submit(cluster_ad("bob"), proc_ads(10)).unwrap();
    let alice = q
        .job_ids(&JobQuery::ids([JobIdSpec::Owner("alice".into())]))
        .unwrap();
    q.transaction(|tx| {
        for job in alice.iter().step_by(99_999) {
            tx.set_status(*job, JobStatus::Held)?;
        }
        Ok::<_, condorlite::queue::QueueError>(())
    })
    .unwrap();
}

/// 100,000 history records, in clusters of 1,000.
fn history_100k(q: &mut Queue) {
    for _ in 0..100 {
        let id = q.submit(cluster_ad("alice"), proc_ads(1_000)).unwrap();
        let jobs = q.job_ids(&JobQuery::ids([JobIdSpec::Cluster(id)])).unwrap();
        q.transaction(|tx| {
            for job in &jobs {
                tx.set_status(*job, JobStatus::Completed)?;
                tx.move_to_history(*job)?;
            }
            Ok::<_, condorlite::queue::QueueError>(())
        })
        .unwrap();
    }
}

fn queue_100k_views(c: &mut Criterion) {
    let pool = Pool::new(queue_100k);
    pool.enter();
    let mut g = c.benchmark_group("condor_q 100k jobs");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    g.bench_function("default (batch) view", |b| {
        b.iter(|| assert!(run("condor_q", &[]) > 300))
    });
    g.bench_function("-af ClusterId ProcId JobStatus", |b| {
        b.iter(|| assert!(run("condor_q", &["-af", "ClusterId", "ProcId", "JobStatus"]) > 100_000))
    });
    g.bench_function("-totals", |b| {
        b.iter(|| assert!(run("condor_q", &["-totals"]) > 200))
    });
    g.bench_function("-nobatch", |b| {
        b.iter(|| assert!(run("condor_q", &["-nobatch"]) > 100_000))
    });
    g.finish();
}

fn queue_1m_constrained(c: &mut Criterion) {
    let pool = Pool::new(queue_1m);
    pool.enter();
    let mut g = c.benchmark_group("condor_q 10 of 1M jobs");
    g.sample_size(20);
    g.bench_function("-allusers -constraint JobStatus == 5 -af", |b| {
        b.iter(|| {
            let n = run(
                "condor_q",
                &[
                    "-allusers",
                    "-constraint",
                    "JobStatus == 5",
                    "-af",
                    "ClusterId",
                    "ProcId",
                ],
            );
            assert!(n > 0);
        })
    });
    g.bench_function("bob -af", |b| {
        b.iter(|| assert!(run("condor_q", &["bob", "-af", "ClusterId", "ProcId"]) > 0))
    });
    g.finish();
}

fn history(c: &mut Criterion) {
    let pool = Pool::new(history_100k);
    pool.enter();
    let mut g = c.benchmark_group("condor_history 100k records");
    g.sample_size(20);
    g.bench_function("-limit 10", |b| {
        b.iter(|| assert!(run("condor_history", &["-limit", "10"]) > 0))
    });
    g.finish();
}

criterion_group!(benches, queue_100k_views, queue_1m_constrained, history);
criterion_main!(benches);
