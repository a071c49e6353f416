//! ClassAd hot paths: parsing a job ad, one-way and symmetric matches of a
//! job against a slot, and evaluating a constant expression.
//!
//! `benches/classad_reference.py` times the same operations with HTCondor's
//! own library (pip htcondor), and `benches/classad.sh` runs both and prints
//! the ratios.

use condorlite::classad::{
    eval_expr, parse_ad, parse_expr, requirements_met, symmetric_match, ClassAd,
};
use criterion::{black_box, criterion_group, criterion_main, Criterion};

/// A typical vanilla job ad (~700 bytes), as condor_submit makes one.
pub const JOB_AD: &str = include_str!("data/job.ad");
/// A typical static slot ad.
pub const SLOT_AD: &str = include_str!("data/slot.ad");

fn ads() -> (ClassAd, ClassAd) {
    (
        parse_ad(JOB_AD).expect("job ad parses"),
        parse_ad(SLOT_AD).expect("slot ad parses"),
    )
}

fn bench(c: &mut Criterion) {
    assert!(JOB_AD.len() > 600, "job ad is {} bytes", JOB_AD.len());
    c.bench_function("parse job ad", |b| {
        b.iter(|| parse_ad(black_box(JOB_AD)).unwrap())
    });
    let (job, slot) = ads();
    assert!(
        requirements_met(&job, &slot),
        "the benchmark job must match the slot"
    );
    assert!(symmetric_match(&job, &slot));
    c.bench_function("one-way match", |b| {
        b.iter(|| requirements_met(black_box(&job), black_box(&slot)))
    });
    c.bench_function("symmetric match", |b| {
        b.iter(|| symmetric_match(black_box(&job), black_box(&slot)))
    });
    let constant = parse_expr("(1 + 2) * 3 == 9 && \"abc\" < \"abd\"").unwrap();
    c.bench_function("constant expression", |b| {
        b.iter(|| eval_expr(black_box(&constant), None, None).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
