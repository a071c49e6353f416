//! Making the job ads of one cluster of 100,000 procs from a typical submit file (per-job
//! arguments, output and error; a shared log; resource requests), as `condor_submit` does
//! before it writes them to the queue: parse, then every cluster and proc ad.
//!
//! `benches/submit.py` times the reference (`htcondor.Submit(text).jobs(count=100000)`) on
//! the same file, for the ratio.

use std::time::Duration;

use condorlite::config::{Config, Environment, LoadOptions, PlatformDirs};
use condorlite::submit::{SubmitContext, SubmitFile};
use criterion::{criterion_group, criterion_main, Criterion};

/// The submit file the benchmark (and benches/submit.py) uses.
pub const SUBMIT_FILE: &str = "\
universe       = vanilla
executable     = /bin/sleep
arguments      = 10 $(Process)
output         = out/job.$(Cluster).$(Process).out
error          = out/job.$(Cluster).$(Process).err
log            = job.log
request_cpus   = 1
request_memory = 128M
request_disk   = 1G
+ProjectName   = \"bench\"
queue 100000
";

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::load_with(LoadOptions {
        env: Environment::from_pairs([("CONDOR_CONFIG", "ONLY_ENV")]),
        subsystem: "SUBMIT".into(),
        local_name: None,
        root_config: None,
        keep_defaults: false,
        dirs: PlatformDirs {
            data_dir: Some(dir.path().join("data")),
            config_dir: Some(dir.path().join("config")),
        },
        machine: None,
    })
    .unwrap();
    let ctx = SubmitContext {
        config: &config,
        cwd: dir.path().to_path_buf(),
        env: Environment::from_pairs([("PATH", "/usr/bin:/bin")]),
        owner: "bench".into(),
        qdate: 1_700_000_000,
        utc_offset: Some(0),
        submit_method: 0,
        remote: false,
        command_line: Default::default(),
        preset_items: None,
        run_commands: true,
    };
    let mut group = c.benchmark_group("submit");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("100k procs: parse and make every ad", |b| {
        b.iter(|| {
            let file = SubmitFile::parse(SUBMIT_FILE, "bench.sub", &ctx).unwrap();
            let mut attrs = 0usize;
            for job in file.jobs(1) {
                let job = job.unwrap();
                attrs += job.ad.own_len();
            }
            assert!(attrs >= 100_000 * 2);
            attrs
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
