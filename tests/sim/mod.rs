//! condor_sim: workloads from tests/fixtures/sim/ replayed through the real negotiator and
//! accountant, checked against the manual's worked numbers (shares by effective priority,
//! the half-life, static group quotas, a priority factor change), and the tool's output,
//! determinism and errors.

use std::path::Path;

use crate::common::{CommandOutput, TestEnvironment};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sim")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A test environment whose working directory holds the fixtures `names`.
fn env_with(names: &[&str]) -> TestEnvironment {
    let env = TestEnvironment::new();
    for name in names {
        env.write_file(name, &fixture(name));
    }
    env
}

fn sim(env: &TestEnvironment, args: &[&str]) -> CommandOutput {
    let out = env.run("condor_sim", args);
    assert_eq!(out.status, Some(0), "condor_sim {args:?}:\n{out}");
    assert_eq!(out.stderr, "", "condor_sim {args:?}");
    out
}

/// A line of `-csv` output.
#[derive(Debug, Clone, PartialEq)]
struct Point {
    time: i64,
    name: String,
    kind: String,
    idle: u64,
    running: u64,
    in_use: f64,
    share: f64,
    real_priority: f64,
    effective_priority: f64,
}

fn points(csv: &str) -> Vec<Point> {
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("time,name,kind,idle,running,in_use,share_percent,real_priority,effective_priority")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 9, "{l}");
            Point {
                time: f[0].parse().unwrap(),
                name: f[1].to_owned(),
                kind: f[2].to_owned(),
                idle: f[3].parse().unwrap(),
                running: f[4].parse().unwrap(),
                in_use: f[5].parse().unwrap(),
                share: f[6].parse().unwrap(),
                real_priority: f[7].parse().unwrap(),
                effective_priority: f[8].parse().unwrap(),
            }
        })
        .collect()
}

fn at<'p>(points: &'p [Point], time: i64, name: &str) -> &'p Point {
    points
        .iter()
        .find(|p| p.time == time && p.name == name)
        .unwrap_or_else(|| panic!("no {name} at {time}"))
}

/// The mean weight `name` held over the samples in `[from, to]`.
fn mean_in_use(points: &[Point], name: &str, from: i64, to: i64) -> f64 {
    let v: Vec<f64> = points
        .iter()
        .filter(|p| p.name == name && p.time >= from && p.time <= to)
        .map(|p| p.in_use)
        .collect();
    assert!(!v.is_empty(), "no samples of {name} in [{from}, {to}]");
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn effective_priorities_5_10_20_get_4_2_1() {
    let env = env_with(&["seed_eup.sim"]);
    let out = sim(&env, &["seed_eup.sim"]);
    assert_eq!(
        out.stdout,
        "       Time  Name         Idle Running    InUse  Share%   RealPrio       EffPrio
 0+00:00:00  alice@sim      24      16    16.00   57.14       5.00          5.00
 0+00:00:00  bob@sim        32       8     8.00   28.57      10.00         10.00
 0+00:00:00  carol@sim      36       4     4.00   14.29      20.00         20.00

Summary from 0+00:00:00 to 0+00:00:00: 1 slot (partitionable) on 1 machine, pool weight 28
Name      Submitted Started Completed   Idle Preempted   Usage(h) MeanShare%    MeanWait     MaxWait
alice@sim        40      16         0     24         0       0.00       0.00  0+00:00:00  0+00:00:00
bob@sim          40       8         0     32         0       0.00       0.00  0+00:00:00  0+00:00:00
carol@sim        40       4         0     36         0       0.00       0.00  0+00:00:00  0+00:00:00
"
    );
}

#[test]
fn shares_converge_to_4_2_1_with_factors_1_4_16() {
    let env = env_with(&["converge.sim"]);
    let p = points(&sim(&env, &["-csv", "converge.sim"]).stdout);
    // The first cycle, everyone at 0.5: the pie by factors alone, 16:4:1 of 28.
    let first: Vec<u64> = ["alice@sim", "bob@sim", "carol@sim"]
        .iter()
        .map(|u| at(&p, 0, u).running)
        .collect();
    assert_eq!(first, [21, 5, 1]);
    // From the fifth half-life on, 16, 8 and 4 CPUs.
    for (user, want) in [("alice@sim", 16.0), ("bob@sim", 8.0), ("carol@sim", 4.0)] {
        let got = mean_in_use(&p, user, 5 * 3600, 10 * 3600);
        assert!((got - want).abs() < 0.5, "{user}: {got} CPUs, not {want}");
    }
    // The effective priorities settle at 1:2:4 (5:10:20).
    let eup = |u: &str| at(&p, 10 * 3600, u).effective_priority;
    let (a, b, c) = (eup("alice@sim"), eup("bob@sim"), eup("carol@sim"));
    assert!(
        (b / a - 2.0).abs() < 0.1 && (c / a - 4.0).abs() < 0.2,
        "{a} {b} {c}"
    );
}

#[test]
fn an_idle_user_s_priority_halves_every_half_life() {
    let env = env_with(&["halflife.sim"]);
    let p = points(&sim(&env, &["-csv", "halflife.sim"]).stdout);
    let rup = |h: i64| at(&p, h * 3600, "alice@sim").real_priority;
    assert_eq!(at(&p, 4 * 3600, "alice@sim").running, 10);
    assert_eq!(at(&p, 5 * 3600, "alice@sim").running, 0);
    // Ten CPUs for five half-lives: 10 - 9.5 / 32.
    assert_eq!(rup(5), 9.703125);
    for h in 6..=8 {
        let ratio = rup(h) / rup(h - 1);
        assert!(
            (ratio - 0.5).abs() < 1e-5,
            "{}h: {} / {}",
            h,
            rup(h),
            rup(h - 1)
        );
    }
}

#[test]
fn static_group_quotas_are_honoured() {
    let env = env_with(&["quotas.sim"]);
    let groups = |args: &[&str]| -> Vec<(i64, u64, u64, u64)> {
        let mut a = vec!["-csv"];
        a.extend_from_slice(args);
        a.push("quotas.sim");
        let p = points(&sim(&env, &a).stdout);
        [0, 3600, 7200]
            .iter()
            .map(|&t| {
                (
                    t,
                    at(&p, t, "group_physics").running,
                    at(&p, t, "group_chemistry").running,
                    at(&p, t, "<none>").running,
                )
            })
            .collect()
    };
    assert_eq!(
        groups(&[]),
        [(0, 20, 10, 0), (3600, 20, 10, 0), (7200, 20, 10, 0)]
    );
    // Sixty slots: the quotas stay at 20 and 10; the jobs of no group get the rest.
    assert_eq!(
        groups(&["-set", "NUM_CPUS=60"]),
        [(0, 20, 10, 30), (3600, 20, 10, 30), (7200, 20, 10, 30)]
    );
    // Fifteen: scaled down in proportion to 10 and 5 (with oversubscription off, as the
    // manual's example has it).
    assert_eq!(
        groups(&[
            "-set",
            "NUM_CPUS=15",
            "-set",
            "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION=false"
        ]),
        [(0, 10, 5, 0), (3600, 10, 5, 0), (7200, 10, 5, 0)]
    );
}

#[test]
fn a_factor_change_shifts_the_shares() {
    let env = env_with(&["factor_change.sim"]);
    let p = points(&sim(&env, &["-csv", "factor_change.sim"]).stdout);
    let (a, b) = (
        mean_in_use(&p, "alice@sim", 0, 8 * 3600 - 1),
        mean_in_use(&p, "bob@sim", 0, 8 * 3600 - 1),
    );
    assert!((a - 6.0).abs() < 0.5 && (b - 6.0).abs() < 0.5, "{a} {b}");
    // bob's effective priority jumps fourfold with the factor...
    let before = at(&p, 8 * 3600 - 1800, "bob@sim").effective_priority;
    let after = at(&p, 8 * 3600, "bob@sim").effective_priority;
    assert!((after / before - 4.0).abs() < 0.1, "{before} -> {after}");
    // ... and the shares settle at 2:1.
    let (a, b) = (
        mean_in_use(&p, "alice@sim", 12 * 3600, 16 * 3600),
        mean_in_use(&p, "bob@sim", 12 * 3600, 16 * 3600),
    );
    assert!((a - 8.0).abs() < 0.75 && (b - 4.0).abs() < 0.75, "{a} {b}");
}

#[test]
fn configuration_from_a_file_with_what_if_settings() {
    let env = env_with(&["groups.sim", "pool.config"]);
    let run = |extra: &[&str]| {
        let mut a = vec!["-csv", "-config", "pool.config"];
        a.extend_from_slice(extra);
        a.push("groups.sim");
        let p = points(&sim(&env, &a).stdout);
        (
            at(&p, 0, "group_physics").running,
            at(&p, 0, "group_chemistry").running,
        )
    };
    assert_eq!(run(&[]), (20, 10));
    assert_eq!(run(&["-set", "GROUP_QUOTA_group_chemistry=5"]), (20, 5));
    // Without the file there are no groups: two users share the pool.
    let p = points(&sim(&env, &["-csv", "groups.sim"]).stdout);
    assert!(p.iter().all(|x| x.kind == "user"));
    assert_eq!(at(&p, 0, "group_physics.alice@sim").running, 15);
}

#[test]
fn the_same_workload_gives_the_same_output() {
    let env = env_with(&["quotas.sim"]);
    let first = sim(&env, &["-svg", "first.svg", "quotas.sim"]);
    let second = sim(&env, &["-svg", "second.svg", "quotas.sim"]);
    assert_eq!(first.stdout, second.stdout);
    let svg = std::fs::read_to_string(env.work_dir().join("first.svg")).unwrap();
    assert_eq!(
        svg,
        std::fs::read_to_string(env.work_dir().join("second.svg")).unwrap()
    );
    assert!(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
    assert!(svg.ends_with("</svg>\n"));
    // One area per submitter that held anything (carol never ran), and the pool line.
    assert_eq!(svg.matches("<path ").count(), 2);
    assert!(svg.contains("<title>group_physics.alice@sim</title>"));
    assert!(svg.contains(">pool (30)</text>"));
}

#[test]
fn summary_and_csv_outputs() {
    let env = env_with(&["quotas.sim"]);
    let out = sim(&env, &["-summary", "quotas.sim"]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "Summary from 0+00:00:00 to 0+02:00:00: 30 slots on 1 machine, pool weight 30"
    );
    assert_eq!(
        lines[4],
        "group_physics.alice@sim       100     100        80      0         0      40.00      66.67  0+01:00:00  0+02:00:00"
    );
    let out = sim(&env, &["-summary", "-csv", "quotas.sim"]);
    assert_eq!(
        out.stdout.lines().collect::<Vec<_>>()[..3],
        [
            "name,kind,submitted,started,completed,idle,running,preempted,usage_hours,\
             mean_share_percent,mean_wait_seconds,max_wait_seconds",
            "carol@sim,user,200,0,0,200,0,0,0.0000,0.0000,,",
            "group_chemistry.bob@sim,user,100,50,40,50,10,0,20.0000,33.3333,3600.0,7200",
        ]
    );
    // -step and -until override the workload's settings.
    let p = points(
        &sim(
            &env,
            &["-csv", "-step", "20m", "-until", "40m", "quotas.sim"],
        )
        .stdout,
    );
    let times: Vec<i64> = p.iter().map(|x| x.time).collect();
    assert_eq!(times.first(), Some(&0));
    assert_eq!(times.last(), Some(&2400));
    assert!(times.contains(&1200));
}

#[test]
fn bad_input_is_one_error_naming_the_file_and_line() {
    let env = env_with(&["bad_action.sim", "bad_config.sim", "quotas.sim"]);
    env.write_file("broken.config", "GROUP_NAMES = a\n\nthis is not a knob\n");
    for (args, stderr) in [
        (
            vec!["bad_action.sim"],
            "condor_sim: bad_action.sim, line 6: unknown action \"sumbit\" (expected submit, \
             setfactor, setprio, setceiling or setfloor)\n",
        ),
        (
            vec!["bad_config.sim"],
            "condor_sim: bad_config.sim, line 4: Invalid result (not a number) for \
             PRIORITY_HALFLIFE (one day) in condor configuration.  Please set it to a numeric \
             expression\n",
        ),
        (
            vec!["-config", "broken.config", "quotas.sim"],
            "condor_sim: broken.config, line 3: syntax error, expected NAME = value: this is \
             not a knob\n",
        ),
        (
            vec!["-set", "GROUP_QUOTA_group_physics=lots", "quotas.sim"],
            "condor_sim: -set GROUP_QUOTA_group_physics: Invalid result (not a number) for \
             GROUP_QUOTA_group_physics (lots) in condor configuration.  Please set it to a \
             numeric expression\n",
        ),
        (
            vec!["-set", "NUM_CPUS", "quotas.sim"],
            "condor_sim: -set takes NAME=VALUE, not \"NUM_CPUS\"\n",
        ),
        (
            vec!["-until", "tomorrow", "quotas.sim"],
            "condor_sim: -until: \"tomorrow\" is not a time (expected seconds, or a number \
             with a unit s, m, h or d, as in 90, 30m, 1h30m, 1.5d)\n",
        ),
        (
            vec!["missing.sim"],
            "condor_sim: can't read missing.sim: No such file or directory\n",
        ),
        (
            vec![],
            "condor_sim: no workload file (usage: condor_sim [options] WORKLOAD; see -help)\n",
        ),
        (
            vec!["-svg", "no/such/dir/plot.svg", "quotas.sim"],
            "condor_sim: can't write no/such/dir/plot.svg: No such file or directory\n",
        ),
    ] {
        let out = env.run("condor_sim", &args);
        assert_eq!(out.status, Some(1), "{args:?}:\n{out}");
        assert_eq!(out.stderr, stderr, "{args:?}");
        if !args.contains(&"-svg") {
            assert_eq!(out.stdout, "", "{args:?}");
        }
    }
}
