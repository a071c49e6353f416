//! Negotiation cycles over idle jobs, autoclusters, slots (static and partitionable) and users.
//!
//! Each configuration is one full cycle ([`Negotiator::cycle`], caches warm as in a running
//! daemon) over a pool whose slots are all unclaimed: every slot that a job fits gets matched.
//! After criterion's report a table gives, per configuration, the median cycle, its phase 2
//! (accounting, autoclusters, slot classes), the first (cold) cycle, matches per second and
//! microseconds per (autocluster x slot) pair.
//!
//! The default run is a representative subset of the grid {10k, 100k} jobs x {1, 100, 1000}
//! autoclusters x {64, 1k, 10k} slots x {static, partitionable} x {1, 50} users;
//! `NEGOTIATOR_BENCH_FULL=1` runs all of it; `NEGOTIATOR_BENCH_ONLY=<part of a label>` only
//! the matching configurations (labels are `<jobs>j/<autoclusters>ac/<slots><s|p>/<users>u`);
//! `NEGOTIATOR_BENCH_UNCLASSED=1` evaluates every (autocluster, slot) pair with the ClassAd
//! library instead of once per class of identical slots (the cost without the negotiator's
//! slot classes).
//!
//! ```sh
//! cargo bench --bench negotiator
//! ```

use std::sync::Mutex;
use std::time::{Duration, Instant};

use condorlite::accountant::{AccountantConfig, AccountantState};
use condorlite::classad::{parse_ad, ClassAd};
use condorlite::negotiator::{
    negotiate_unclassed, CycleInput, IdleJob, JobId, Negotiator, NegotiatorConfig,
};
use criterion::{BenchmarkId, Criterion};

const NOW: i64 = 1_700_000_000;

#[derive(Clone, Copy, Debug)]
struct Case {
    jobs: usize,
    autoclusters: usize,
    slots: usize,
    partitionable: bool,
    users: usize,
}

impl Case {
    fn label(&self) -> String {
        format!(
            "{}j/{}ac/{}{}/{}u",
            si(self.jobs),
            self.autoclusters,
            si(self.slots),
            if self.partitionable { "p" } else { "s" },
            self.users
        )
    }
}

fn si(n: usize) -> String {
    if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

/// A slot as a startd publishes one (trimmed to what matchmaking reads, plus the usual noise).
fn slot_ad(i: usize, partitionable: bool) -> ClassAd {
    let (cpus, memory, kind) = if partitionable {
        (4, 16384, "PartitionableSlot = true; SlotType = \"Partitionable\"; MachineResources = \"Cpus Memory Disk Swap\";")
    } else {
        (1, 4096, "SlotType = \"Static\";")
    };
    let host = i / 64;
    parse_ad(&format!(
        r#"[ Name = "slot{slot}@host{host}.example.org"; Machine = "host{host}.example.org";
             SlotID = {slot}; MyType = "Machine"; {kind}
             Arch = "X86_64"; OpSys = "LINUX"; OpSysAndVer = "AlmaLinux9"; Cpus = {cpus};
             TotalSlotCpus = {cpus}; Memory = {memory}; TotalSlotMemory = {memory}; Disk = 50000000;
             HasFileTransfer = true; State = "Unclaimed"; Activity = "Idle"; LoadAvg = 0.0;
             KeyboardIdle = 86400; ConsoleIdle = 86400; KFlops = 2000000; Mips = 20000;
             StartdIpAddr = "<10.0.{a}.{b}:9618>"; SlotWeight = Cpus; Rank = 0.0; CurrentRank = 0.0;
             START = (KeyboardIdle > 15 * 60) || (TARGET.Owner =?= "root");
             Requirements = START && (TARGET.RequestMemory <= Memory) && (TARGET.RequestCpus <= Cpus) ]"#,
        slot = i % 64 + 1,
        a = host / 256,
        b = host % 256,
    ))
    .expect("slot ad parses")
}

/// Jobs in clusters of equal jobs; each cluster is one autocluster (by its RequestMemory) and
/// belongs to one user. Nine autoclusters in ten ask for more memory than any slot has: the
/// negotiator must evaluate each of them against every slot to find that out, so a cycle does
/// the full (autocluster x slot) work whatever fills the pool.
fn job_ads(case: &Case) -> Vec<IdleJob> {
    let clusters = case.autoclusters.max(case.users).max(1);
    let per = case.jobs.div_ceil(clusters);
    let mut jobs = Vec::with_capacity(case.jobs);
    for c in 0..clusters {
        let ac = c % case.autoclusters;
        let user = format!("user{}", c % case.users);
        let cluster = parse_ad(&format!(
            r#"[ ClusterId = {id}; Owner = "{user}"; User = "{user}@example.org"; JobUniverse = 5;
                 JobStatus = 1; JobPrio = 0; QDate = {NOW}; Cmd = "/usr/bin/python3";
                 Iwd = "/home/{user}"; RequestCpus = 1; RequestMemory = {mem}; RequestDisk = 1024;
                 DiskUsage = 1; ImageSize = 1; ShouldTransferFiles = "IF_NEEDED";
                 Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") &&
                     (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) &&
                     (TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer) ]"#,
            id = c + 1,
            mem = if ac.is_multiple_of(10) {
                128 + ac
            } else {
                65536 + ac
            },
        ))
        .expect("job ad parses");
        for p in 0..per {
            if jobs.len() == case.jobs {
                break;
            }
            let mut ad = parse_ad(&format!("[ ProcId = {p}; Args = \"{p}\" ]")).unwrap();
            ad.chain_to(cluster.clone());
            jobs.push(IdleJob::new(
                JobId::new(c as i32 + 1, p as i32),
                ad,
                "example.org",
            ));
        }
    }
    jobs
}

struct Row {
    case: Case,
    cycle: Duration,
    matches: usize,
    evaluations: u64,
    cold: Duration,
    /// Phase 2 (accounting, autoclusters, slot classes) of the last cycle, seconds.
    prep: f64,
}

static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

fn cases() -> Vec<Case> {
    let full = std::env::var_os("NEGOTIATOR_BENCH_FULL").is_some();
    let mut v = Vec::new();
    if full {
        for partitionable in [false, true] {
            for jobs in [10_000, 100_000] {
                for autoclusters in [1, 100, 1000] {
                    for slots in [64, 1000, 10_000] {
                        for users in [1, 50] {
                            v.push(Case {
                                jobs,
                                autoclusters,
                                slots,
                                partitionable,
                                users,
                            });
                        }
                    }
                }
            }
        }
        return v;
    }
    let c = |jobs, autoclusters, slots, partitionable, users| Case {
        jobs,
        autoclusters,
        slots,
        partitionable,
        users,
    };
    // Flat in the job count at a fixed number of autoclusters.
    v.push(c(10_000, 100, 10_000, false, 1));
    v.push(c(100_000, 100, 10_000, false, 1));
    // Autoclusters.
    v.push(c(100_000, 1, 10_000, false, 1));
    v.push(c(100_000, 1000, 10_000, false, 1));
    // Slots.
    v.push(c(100_000, 100, 64, false, 1));
    v.push(c(100_000, 100, 1000, false, 1));
    // Users.
    v.push(c(100_000, 100, 10_000, false, 50));
    v.push(c(100_000, 1000, 1000, false, 50));
    // Partitionable slots (4 cores each).
    v.push(c(10_000, 100, 1000, true, 1));
    v.push(c(100_000, 100, 1000, true, 50));
    v.push(c(100_000, 100, 10_000, true, 1));
    v
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("negotiation cycle");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let only = std::env::var("NEGOTIATOR_BENCH_ONLY").ok();
    let unclassed = std::env::var_os("NEGOTIATOR_BENCH_UNCLASSED").is_some();
    for case in cases() {
        if only
            .as_ref()
            .is_some_and(|o| !case.label().contains(o.as_str()))
        {
            continue;
        }
        let jobs = job_ads(&case);
        let slots: Vec<ClassAd> = (0..case.slots)
            .map(|i| slot_ad(i, case.partitionable))
            .collect();
        let state = AccountantState {
            last_update_time: NOW,
            ..AccountantState::default()
        };
        let mut neg = Negotiator::new(NegotiatorConfig::default(), AccountantConfig::default());
        let input = CycleInput {
            jobs: &jobs,
            slots: &slots,
        };
        let t = Instant::now();
        let first = neg.cycle(&input, &state, NOW);
        let cold = t.elapsed();
        assert!(!first.matches.is_empty());
        let mut last = (0usize, 0u64, 0.0f64);
        let mut times: Vec<Duration> = Vec::new();
        group.bench_function(BenchmarkId::from_parameter(case.label()), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    let out = if unclassed {
                        negotiate_unclassed(
                            &input,
                            &state,
                            &AccountantConfig::default(),
                            &NegotiatorConfig::default(),
                            NOW,
                        )
                    } else {
                        neg.cycle(&input, &state, NOW)
                    };
                    let d = t.elapsed();
                    total += d;
                    times.push(d);
                    last = (
                        out.matches.len(),
                        out.stats.evaluations,
                        out.stats.duration_phase2,
                    );
                    drop(out);
                }
                total
            })
        });
        if !times.is_empty() {
            times.sort();
            ROWS.lock().unwrap().push(Row {
                case,
                cycle: times[times.len() / 2],
                matches: last.0,
                evaluations: last.1,
                cold,
                prep: last.2,
            });
        }
    }
    group.finish();
}

fn table() {
    let rows = ROWS.lock().unwrap();
    println!();
    println!(
        "{:<24} {:>10} {:>10} {:>10} {:>8} {:>12} {:>10} {:>8}",
        "jobs/acs/slots/users",
        "cycle ms",
        "phase2 ms",
        "cold ms",
        "matches",
        "matches/s",
        "us/pair",
        "evals"
    );
    for r in rows.iter() {
        let secs = r.cycle.as_secs_f64();
        let pairs = (r.case.autoclusters * r.case.slots) as f64;
        println!(
            "{:<24} {:>10.1} {:>10.1} {:>10.1} {:>8} {:>12.0} {:>10.4} {:>8}",
            r.case.label(),
            secs * 1e3,
            r.prep * 1e3,
            r.cold.as_secs_f64() * 1e3,
            r.matches,
            r.matches as f64 / secs,
            secs * 1e6 / pairs,
            r.evaluations
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
    table();
}
