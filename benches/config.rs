//! Loading configuration: the built-in defaults plus a generated 2,000-line site file, as a
//! tool does at start-up; expanding a knob; looking up knobs that fall back to the defaults.

use std::io::Write;

use condorlite::config::{Config, Environment, LoadOptions, PlatformDirs};
use criterion::{criterion_group, criterion_main, Criterion};

/// A site file of 2,000 lines: assignments, macros, continuations, conditionals, metaknobs.
fn site_file() -> String {
    let mut s = String::from(
        "use ROLE : Personal\nuse POLICY : UWCS_DESKTOP\nuse FEATURE : PartitionableSlot\n",
    );
    let mut lines = 3;
    let mut i = 0;
    while lines < 2000 {
        match i % 8 {
            0 => s.push_str(&format!("SITE_KNOB_{i} = value {i}\n")),
            1 => s.push_str(&format!("SITE_EXPR_{i} = $(SITE_KNOB_{}) && (Memory > {i})\n", i - 1)),
            2 => s.push_str(&format!("# comment {i}\n")),
            3 => s.push_str(&format!("SITE_LIST_{i} = a, b, \\\n  c, d\n")),
            4 => s.push_str(&format!("if defined SITE_KNOB_{}\n  SITE_COND_{i} = yes\nelse\n  SITE_COND_{i} = no\nendif\n", i - 4)),
            5 => s.push_str(&format!("STARTD.SITE_PREFIXED_{i} = $(MINUTE) * {i}\n")),
            6 => s.push_str(&format!("SITE_KNOB_{} = $(SITE_KNOB_{}) more\n", i - 6, i - 6)),
            _ => s.push('\n'),
        }
        lines = s.lines().count();
        i += 1;
    }
    s
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("condor_config");
    std::fs::File::create(&path)
        .unwrap()
        .write_all(site_file().as_bytes())
        .unwrap();
    let opts = LoadOptions {
        env: Environment::from_pairs([("CONDOR_CONFIG", path.to_string_lossy().into_owned())]),
        subsystem: "TOOL".into(),
        local_name: None,
        root_config: None,
        keep_defaults: false,
        dirs: PlatformDirs {
            data_dir: Some(dir.path().join("data")),
            config_dir: Some(dir.path().join("config")),
        },
        machine: Some(condorlite::config::machine::Machine::detect()),
    };
    c.bench_function("config/load 2000-line site file", |b| {
        b.iter(|| Config::load_with(opts.clone()).unwrap())
    });
    let config = Config::load_with(opts.clone()).unwrap();
    c.bench_function("config/expand START", |b| {
        b.iter(|| config.string("START").unwrap())
    });
    // Knobs no file sets, as a daemon reads them: each lookup falls through the configuration
    // (as the negotiator: NEGOTIATOR.X, then X) to the default table.
    let negotiator = config.subsystem("NEGOTIATOR");
    let knobs = [
        "NEGOTIATOR_INTERVAL",
        "NEGOTIATOR_MIN_INTERVAL",
        "PRIORITY_HALFLIFE",
        "NEGOTIATOR_CONSIDER_PREEMPTION",
        "GROUP_QUOTA_ROUND_ROBIN_RATE",
        "SCHEDD_INTERVAL",
        "ZZZ_NOT_A_KNOB",
        "ActivationTimer",
    ];
    c.bench_function("config/raw defaults (8 knobs)", |b| {
        b.iter(|| knobs.iter().filter_map(|k| negotiator.raw(k)).count())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
