//! The job queue store's hot paths, at the sizes issue 4 sets goals for:
//!
//! - submit one cluster of 100,000 procs in one durable transaction (goal < 1 s);
//! - stream all 100,000 jobs of a queue reading ClusterId, ProcId and JobStatus from their
//!   ads (goal < 0.3 s), and the same without parsing ads (ids and status columns only);
//! - a constrained query matching 10 jobs out of 1,000,000 (goal < 50 ms), by JobStatus and
//!   by Owner;
//! - a single-job submit, opening the queue and committing on its own (goal < 3 ms), on a
//!   queue that keeps growing as the benchmark runs.
//!
//! Every store lives in a temporary directory. Sample counts are small: the big cases take
//! seconds each.

use std::time::Duration;

use condorlite::classad::{parse_ad, parse_expr, ClassAd, Expr};
use condorlite::queue::{JobIdSpec, JobQuery, JobStatus, Queue};
use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};

/// A typical vanilla job ad, as the cluster ad of every cluster here.
const JOB_AD: &str = include_str!("data/job.ad");

fn cluster_ad(owner: &str) -> ClassAd {
    let mut ad = parse_ad(JOB_AD).expect("job ad parses");
    ad.insert("Owner", Expr::lit(owner));
    ad
}

/// What varies from proc to proc in a `queue N` submit with `$(Process)` in its arguments
/// and output file.
fn proc_ads(n: i64) -> impl Iterator<Item = ClassAd> {
    (0..n).map(|i| {
        let mut ad = ClassAd::new();
        ad.insert("Arguments", Expr::lit(format!("train.py --seed {i}")));
        ad.insert("Out", Expr::lit(format!("train.{i}.out")));
        ad
    })
}

fn fresh() -> (tempfile::TempDir, Queue) {
    let dir = tempfile::tempdir().expect("temp dir");
    let q = Queue::open(dir.path()).expect("open");
    (dir, q)
}

fn read_ids(job: &condorlite::queue::Job) -> (i64, i64, i64) {
    let ad = job.ad().expect("ad");
    (
        ad.eval_attr("ClusterId").as_int().unwrap(),
        ad.eval_attr("ProcId").as_int().unwrap(),
        ad.eval_attr("JobStatus").as_int().unwrap(),
    )
}

fn submit(c: &mut Criterion) {
    let mut g = c.benchmark_group("submit");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(15));
    g.bench_function("one cluster of 100k procs", |b| {
        b.iter_batched(
            fresh,
            |(dir, mut q)| {
                q.submit(cluster_ad("alice"), proc_ads(100_000)).unwrap();
                (dir, q)
            },
            BatchSize::PerIteration,
        )
    });
    // A submit that hands over full job ads (each proc ad a copy of the cluster ad plus its
    // own values): the store keeps only the differences.
    g.bench_function("one cluster of 100k full proc ads", |b| {
        let base = cluster_ad("alice");
        b.iter_batched(
            fresh,
            |(dir, mut q)| {
                let procs = proc_ads(100_000).map(|own| {
                    let mut full = base.clone();
                    full.update(&own);
                    full
                });
                q.submit(base.clone(), procs).unwrap();
                (dir, q)
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    let mut g = c.benchmark_group("single job");
    g.sample_size(20);
    let (dir, _q) = fresh();
    let cluster = cluster_ad("alice");
    g.bench_function("open + submit 1 proc", |b| {
        b.iter(|| {
            let mut q = Queue::open(dir.path()).unwrap();
            q.submit(cluster.clone(), proc_ads(1)).unwrap()
        })
    });
    g.finish();
}

/// A store built the first time a benchmark that needs it runs (criterion runs every group
/// function, but only the closures of the benchmarks its filter selects).
struct Lazy<T>(std::cell::OnceCell<T>, fn() -> T);

impl<T> Lazy<T> {
    fn get(&self) -> &T {
        self.0.get_or_init(self.1)
    }
}

fn queue_100k() -> (tempfile::TempDir, Queue) {
    let (dir, mut q) = fresh();
    q.submit(cluster_ad("alice"), proc_ads(100_000)).unwrap();
    (dir, q)
}

/// 1,000,000 jobs: ten clusters of 99,999 (alice), and ten jobs of bob's; ten of alice's are
/// held.
fn queue_1m() -> (tempfile::TempDir, Queue) {
    let (dir, mut q) = fresh();
    for _ in 0..10 {
        q.submit(cluster_ad("alice"), proc_ads(100_000 - 1))
            .unwrap();
    }
    q.submit(cluster_ad("bob"), proc_ads(10)).unwrap();
    let alice_jobs = q
        .job_ids(&JobQuery::ids([JobIdSpec::Owner("alice".into())]))
        .unwrap();
    assert_eq!(alice_jobs.len() + 10, 1_000_000);
    q.transaction(|tx| {
        for job in alice_jobs.iter().step_by(99_999) {
            tx.set_status(*job, JobStatus::Held)?;
        }
        Ok::<_, condorlite::queue::QueueError>(())
    })
    .unwrap();
    (dir, q)
}

fn iterate(c: &mut Criterion) {
    let store = Lazy(Default::default(), queue_100k);
    let mut g = c.benchmark_group("iterate 100k");
    g.sample_size(10);
    g.bench_function("ClusterId ProcId JobStatus from ads", |b| {
        let q = &store.get().1;
        b.iter(|| {
            let mut n = 0;
            for job in q.jobs(&JobQuery::all()).unwrap() {
                black_box(read_ids(&job.unwrap()));
                n += 1;
            }
            assert_eq!(n, 100_000);
        })
    });
    g.bench_function("ids and status only", |b| {
        let q = &store.get().1;
        b.iter(|| {
            let mut n = 0;
            for job in q.jobs(&JobQuery::all()).unwrap() {
                let job = job.unwrap();
                black_box((job.id(), job.status_code()));
                n += 1;
            }
            assert_eq!(n, 100_000);
        })
    });
    g.bench_function("count by status", |b| {
        let q = &store.get().1;
        b.iter(|| black_box(q.count_by_status(&JobQuery::all()).unwrap()))
    });
    g.finish();
}

fn constrained(c: &mut Criterion) {
    let store = Lazy(Default::default(), queue_1m);
    let held = JobQuery::all().with_constraint(parse_expr("JobStatus == 5").unwrap());
    let bobs = JobQuery::all().with_constraint(parse_expr("MY.Owner == \"Bob\"").unwrap());
    let mut g = c.benchmark_group("query 10 of 1M");
    g.sample_size(20);
    for (name, query) in [("JobStatus == 5", &held), ("Owner == \"Bob\"", &bobs)] {
        g.bench_function(name, |b| {
            let q = &store.get().1;
            b.iter(|| {
                let jobs: Vec<_> = q
                    .jobs(query)
                    .unwrap()
                    .map(|j| read_ids(&j.unwrap()))
                    .collect();
                assert_eq!(jobs.len(), 10);
                jobs
            })
        });
    }
    g.finish();
}

criterion_group!(benches, submit, iterate, constrained);
criterion_main!(benches);
