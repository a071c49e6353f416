//! Tests of the workload format and of the simulation through the library: claims and their
//! reuse, partitionable slots, quotas, priorities, preemption, errors.

use super::workload::ActionKind;
use super::*;

fn parse(text: &str) -> Workload {
    Workload::parse(text, "test.sim").unwrap()
}

fn parse_err(text: &str) -> String {
    Workload::parse(text, "test.sim").unwrap_err().to_string()
}

fn simulate(text: &str) -> Report {
    run(&parse(text), &SimOptions::default()).unwrap()
}

fn simulate_with(text: &str, sets: &[(&str, &str)]) -> Report {
    let opts = SimOptions {
        sets: sets
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..SimOptions::default()
    };
    run(&parse(text), &opts).unwrap()
}

fn sim_err(text: &str, opts: &SimOptions) -> String {
    run(&parse(text), opts).unwrap_err().to_string()
}

/// The row of `name` in the sample at `time`.
fn row<'r>(r: &'r Report, time: i64, name: &str) -> &'r Row {
    let i = r
        .series
        .iter()
        .position(|s| s.name == name)
        .unwrap_or_else(|| panic!("no series {name}: {:?}", r.series));
    let sample = r
        .samples
        .iter()
        .find(|s| s.time == time)
        .unwrap_or_else(|| panic!("no sample at {time}"));
    &sample.rows[i]
}

fn summary<'r>(r: &'r Report, name: &str) -> &'r SummaryRow {
    r.summary.iter().find(|s| s.name == name).unwrap()
}

#[test]
fn durations() {
    assert_eq!(parse_duration("90"), Ok(90));
    assert_eq!(parse_duration("90s"), Ok(90));
    assert_eq!(parse_duration("30m"), Ok(1800));
    assert_eq!(parse_duration("1h30m"), Ok(5400));
    assert_eq!(parse_duration("1.5d"), Ok(129_600));
    assert_eq!(parse_duration("2d1s"), Ok(172_801));
    for bad in ["", "soon", "1x", "-5", "1h30", "h", "1..5m"] {
        assert!(parse_duration(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn sections_and_lines() {
    let w = parse(
        "# comment\n\
         [config]\n\
         NUM_CPUS = 4   # HTCondor's own comment rules\n\
         \n\
         [ sim ]\n\
         until = 2h\n\
         step=10m\n\
         machines = 2\n\
         start = 1000\n\
         [users]\n\
         alice factor=2 priority=3 ceiling=5 floor=1  # trailing comment\n\
         group_physics.bob factor=10\n\
         [timeline]\n\
         1h submit alice 3 10m cpus=2 memory=512 disk=2048 group=group_physics prio=5 \
         request_gpus=1 requirements=\"TARGET.Memory > 100 && true\"\n\
         0 setfactor bob 4\n\
         1h setprio alice 0.5\n\
         0 setceiling bob 7\n\
         0 setfloor bob 2\n",
    );
    // The configuration keeps its line numbers: everything else is blank.
    let lines: Vec<&str> = w.config_text.lines().collect();
    assert_eq!(lines.len(), 18);
    assert_eq!(lines[2], "NUM_CPUS = 4   # HTCondor's own comment rules");
    assert!(lines
        .iter()
        .enumerate()
        .all(|(i, l)| i == 2 || l.is_empty()));
    assert_eq!(
        w.settings,
        workload::Settings {
            until: Some(7200),
            step: Some(600),
            machines: 2,
            start: 1000
        }
    );
    assert_eq!(w.users.len(), 2);
    assert_eq!(w.users[0].factor, Some(2.0));
    assert_eq!(w.users[0].priority, Some(3.0));
    assert_eq!(w.users[0].ceiling, Some(5));
    assert_eq!(w.users[0].floor, Some(1));
    assert_eq!(w.users[1].name, "group_physics.bob");
    // Time order; one time's lines in file order.
    let order: Vec<(i64, u32)> = w.timeline.iter().map(|a| (a.time, a.line)).collect();
    assert_eq!(order, [(0, 15), (0, 17), (0, 18), (3600, 14), (3600, 16)]);
    let ActionKind::Submit(s) = &w.timeline[3].kind else {
        panic!("not a submission: {:?}", w.timeline[3]);
    };
    assert_eq!((s.user.as_str(), s.count, s.duration), ("alice", 3, 600));
    assert_eq!((s.cpus, s.memory, s.disk, s.prio), (2.0, 512.0, 2048.0, 5));
    assert_eq!(s.group.as_deref(), Some("group_physics"));
    assert_eq!(s.requests, [("gpus".to_owned(), 1.0)]);
    assert_eq!(
        s.requirements.as_deref(),
        Some("TARGET.Memory > 100 && true")
    );
}

#[test]
fn workload_errors_name_the_line() {
    for (text, expected) in [
        (
            "NUM_CPUS = 4\n",
            "test.sim, line 1: text before the first section",
        ),
        (
            "[config]\n[jobs]\n",
            "test.sim, line 2: unknown section [jobs]",
        ),
        (
            "[sim]\nuntil = soon\n",
            "test.sim, line 2: \"soon\" is not a time",
        ),
        (
            "[sim]\nspeed = 3\n",
            "test.sim, line 2: unknown setting \"speed\"",
        ),
        (
            "[sim]\nstep = 1m\nstep = 2m\n",
            "test.sim, line 3: step is set twice",
        ),
        (
            "[sim]\nmachines = 0\n",
            "test.sim, line 2: machines \"0\" is not a number",
        ),
        (
            "[users]\nalice factor=0.5\n",
            "test.sim, line 2: factor 0.5 is below 1",
        ),
        (
            "[users]\nalice weight=2\n",
            "test.sim, line 2: unknown user setting \"weight\"",
        ),
        (
            "[users]\nal!ce\n",
            "test.sim, line 2: \"al!ce\" is not a user or group name",
        ),
        (
            "[timeline]\n\n0 sumbit a 1 1m\n",
            "test.sim, line 3: unknown action \"sumbit\"",
        ),
        (
            "[timeline]\n0\n",
            "test.sim, line 2: a time without an action",
        ),
        (
            "[timeline]\nlater submit a 1 1m\n",
            "test.sim, line 2: \"later\" is not a time",
        ),
        (
            "[timeline]\n0 submit a\n",
            "test.sim, line 2: expected submit USER COUNT DURATION",
        ),
        (
            "[timeline]\n0 submit a 0 1m\n",
            "test.sim, line 2: job count \"0\"",
        ),
        (
            "[timeline]\n0 submit a 1 0\n",
            "test.sim, line 2: a job's duration must be",
        ),
        (
            "[timeline]\n0 submit a@x 1 1m\n",
            "test.sim, line 2: submit takes a user name",
        ),
        (
            "[timeline]\n0 submit a 1 1m cpus=0\n",
            "test.sim, line 2: cpus must be more",
        ),
        (
            "[timeline]\n0 submit a 1 1m memory=-1\n",
            "test.sim, line 2: memory -1 is negative",
        ),
        (
            "[timeline]\n0 submit a 1 1m colour=red\n",
            "test.sim, line 2: unknown submit option",
        ),
        (
            "[timeline]\n0 submit a 1 1m group=a/b\n",
            "test.sim, line 2: \"a/b\" is not a group",
        ),
        (
            "[timeline]\n0 submit a 1 1m requirements=\"(\"\n",
            "test.sim, line 2: requirements",
        ),
        (
            "[timeline]\n0 submit a 1 1m requirements=\"x\n",
            "test.sim, line 2: a quoted value",
        ),
        (
            "[timeline]\n0 setfactor a\n",
            "test.sim, line 2: expected setfactor NAME VALUE",
        ),
        (
            "[timeline]\n0 setprio a -1\n",
            "test.sim, line 2: priority -1 is not positive",
        ),
        (
            "[timeline]\n0 setceiling a x\n",
            "test.sim, line 2: ceiling \"x\" is not an integer",
        ),
    ] {
        let e = parse_err(text);
        assert!(e.starts_with(expected), "{text:?}: {e}");
    }
}

const FOUR_CPUS: &str = "[config]\nNUM_CPUS = 4\nNEGOTIATOR_INTERVAL = 300\n";

#[test]
fn jobs_run_their_duration_and_claims_are_reused() {
    // 8 jobs of 7 minutes on 4 CPUs: the first four end at 420 s and their claims (within
    // CLAIM_WORKLIFE) run the other four at once.
    let r = simulate(&format!("{FOUR_CPUS}[timeline]\n0 submit alice 8 7m\n"));
    assert_eq!(r.end, 840);
    let s = summary(&r, "alice@sim");
    assert_eq!((s.submitted, s.started, s.completed, s.idle), (8, 8, 8, 0));
    assert_eq!(s.mean_wait, Some(210.0));
    assert_eq!(s.max_wait, Some(420));
    assert!((s.usage - 8.0 * 420.0).abs() < 1e-9, "{}", s.usage);
    // Without reuse, the other four wait for the next cycle, at 600 s.
    let r = simulate_with(
        &format!("{FOUR_CPUS}[timeline]\n0 submit alice 8 7m\n"),
        &[("CLAIM_WORKLIFE", "0")],
    );
    assert_eq!(r.end, 1020);
    assert_eq!(summary(&r, "alice@sim").max_wait, Some(600));
    // Reported every cycle by default, and at the end.
    let times: Vec<i64> = r.samples.iter().map(|s| s.time).collect();
    assert_eq!(times, [0, 300, 600, 900, 1020]);
    let at = |t: i64| {
        let a = row(&r, t, "alice@sim");
        (a.idle, a.running)
    };
    assert_eq!(
        [at(0), at(300), at(600), at(900), at(1020)],
        [(4, 4), (4, 4), (0, 4), (0, 4), (0, 0)]
    );
    assert_eq!(row(&r, 600, "alice@sim").share, 100.0);
}

#[test]
fn requirements_ending_in_a_comment_do_not_swallow_the_jobs_own() {
    // The job's requirements join the ad as a tree: the comment ends with them.
    let r = simulate(&format!(
        "{FOUR_CPUS}[timeline]\n0 submit alice 2 7m requirements=\"TARGET.Cpus > 0 // any\"\n"
    ));
    assert_eq!(summary(&r, "alice@sim").completed, 2);
}

#[test]
fn a_simulation_without_until_runs_until_the_last_job_is_done() {
    // A first cycle that can match nothing does not end it: the job submitted at 30 s starts
    // at the next cycle and ends a minute later; the job that fits no slot is reported.
    let r = simulate(
        "[config]\nNUM_CPUS = 1\n[timeline]\n0 submit big 1 1m cpus=100\n\
         30 submit alice 1 1m\n",
    );
    assert_eq!(r.end, 120);
    assert_eq!(summary(&r, "alice@sim").completed, 1);
    assert_eq!(summary(&r, "alice@sim").mean_wait, Some(30.0));
    assert_eq!(summary(&r, "big@sim").idle, 1);
    assert_eq!(r.notes, ["1 idle job could not be matched to any slot"]);
    // An empty workload ends at once.
    let r = simulate("[config]\nNUM_CPUS = 1\n");
    assert_eq!((r.end, r.samples.len(), r.series.len()), (0, 1, 0));
}

#[test]
fn partitionable_slots_are_carved_and_weighted() {
    // One partitionable slot of 8 CPUs: four 2-CPU jobs fill it, weight 2 each.
    let r = simulate(
        "[config]\nNUM_CPUS = 8\n[sim]\nuntil = 1h\n[timeline]\n0 submit alice 6 2h cpus=2\n",
    );
    assert_eq!((r.slots, r.partitionable, r.pool_weight), (1, 1, 8.0));
    let a = row(&r, 0, "alice@sim");
    assert_eq!((a.running, a.idle, a.in_use, a.share), (4, 2, 8.0, 100.0));
    // Static slots of one CPU cannot take a 2-CPU job: nothing runs, the simulation stops.
    let r = simulate(
        "[config]\nNUM_CPUS = 8\nSLOT_TYPE_0_PARTITIONABLE = false\n\
         [timeline]\n0 submit alice 2 1h cpus=2\n",
    );
    assert_eq!((r.slots, r.partitionable), (8, 0));
    assert_eq!(r.end, 0);
    assert_eq!(summary(&r, "alice@sim").started, 0);
    assert_eq!(r.notes, ["2 idle jobs could not be matched to any slot"]);
}

#[test]
fn machines_multiply_the_pool() {
    let r = simulate(
        "[config]\nNUM_CPUS = 4\n[sim]\nmachines = 3\nuntil = 0\n\
         [timeline]\n0 submit alice 20 1h\n",
    );
    assert_eq!((r.machines, r.slots, r.pool_weight), (3, 3, 12.0));
    assert_eq!(row(&r, 0, "alice@sim").running, 12);
}

/// Users whose effective priorities are 5, 10 and 20 with equal demand.
const SEED_EUP: &str = "[config]\nNUM_CPUS = 28\nPRIORITY_HALFLIFE = 86400\n\
    [sim]\nuntil = 0\n\
    [users]\nalice factor=1 priority=5\nbob factor=1 priority=10\ncarol factor=1 priority=20\n\
    [timeline]\n0 submit alice 50 1h\n0 submit bob 50 1h\n0 submit carol 50 1h\n";

#[test]
fn effective_priorities_5_10_20_get_4_2_1() {
    let r = simulate(SEED_EUP);
    let running: Vec<u64> = ["alice@sim", "bob@sim", "carol@sim"]
        .iter()
        .map(|u| row(&r, 0, u).running)
        .collect();
    assert_eq!(running, [16, 8, 4]);
    assert_eq!(row(&r, 0, "bob@sim").effective_priority, 10.0);
}

#[test]
fn timeline_changes_the_accountant() {
    let r = simulate(
        "[config]\nNUM_CPUS = 2\n[sim]\nuntil = 2h\nstep = 1h\n\
         [timeline]\n0 submit alice 1 1m\n1h setfactor alice 7\n1h setprio alice 3\n",
    );
    assert_eq!(row(&r, 0, "alice@sim").effective_priority, 500.0);
    // Set at 1h, then aged with the rest by the cycle of 1h, over the minute since the last
    // update, as the accountant ages what condor_userprio set.
    let aged = 3.0 * 0.5f64.powf(60.0 / 86400.0);
    let a = row(&r, 3600, "alice@sim");
    assert!(
        (a.real_priority - aged).abs() < 1e-12,
        "{}",
        a.real_priority
    );
    assert!((a.effective_priority - 7.0 * aged).abs() < 1e-12);
}

#[test]
fn idle_user_priority_halves_in_a_half_life() {
    let r = simulate(
        "[config]\nNUM_CPUS = 10\nPRIORITY_HALFLIFE = 3600\nDEFAULT_PRIO_FACTOR = 1\n\
         [sim]\nuntil = 7h\nstep = 1h\n[timeline]\n0 submit alice 10 5h\n",
    );
    let at = |h: i64| row(&r, h * 3600, "alice@sim").real_priority;
    // Ten CPUs for five half-lives: 10 - 9.5 / 2^5.
    assert!((at(5) - 9.703125).abs() < 1e-9, "{}", at(5));
    assert!((at(6) / at(5) - 0.5).abs() < 1e-9, "{} {}", at(5), at(6));
    assert!((at(7) / at(6) - 0.5).abs() < 1e-9, "{} {}", at(6), at(7));
}

const QUOTAS: &str = "[config]\nNUM_CPUS = 30\nSLOT_TYPE_0_PARTITIONABLE = false\n\
    GROUP_NAMES = group_physics, group_chemistry\n\
    GROUP_QUOTA_group_physics = 20\nGROUP_QUOTA_group_chemistry = 10\n\
    [sim]\nuntil = 0\n\
    [timeline]\n0 submit alice 100 1h group=group_physics\n\
    0 submit bob 100 1h group=group_chemistry\n0 submit carol 100 1h\n";

#[test]
fn static_group_quotas_are_honoured() {
    let running = |r: &Report| -> Vec<u64> {
        ["group_physics", "group_chemistry", "<none>"]
            .iter()
            .map(|g| row(r, 0, g).running)
            .collect()
    };
    assert_eq!(running(&simulate(QUOTAS)), [20, 10, 0]);
    // The pool doubled: the quotas stay, the rest goes to the jobs of no group.
    assert_eq!(
        running(&simulate_with(QUOTAS, &[("NUM_CPUS", "60")])),
        [20, 10, 30]
    );
    // Half the pool: scaled down in proportion, unless oversubscription is allowed.
    assert_eq!(
        running(&simulate_with(
            QUOTAS,
            &[
                ("NUM_CPUS", "15"),
                ("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", "false")
            ]
        )),
        [10, 5, 0]
    );
    let r = simulate(QUOTAS);
    let kinds: Vec<(&str, Kind)> = r.series.iter().map(|s| (s.name.as_str(), s.kind)).collect();
    assert_eq!(
        kinds,
        [
            ("carol@sim", Kind::User),
            ("group_chemistry.bob@sim", Kind::User),
            ("group_physics.alice@sim", Kind::User),
            ("<none>", Kind::Group),
            ("group_chemistry", Kind::Group),
            ("group_physics", Kind::Group),
        ]
    );
}

const PREEMPTION: &str = "[config]\nNUM_CPUS = 4\nSLOT_TYPE_0_PARTITIONABLE = false\n\
    DEFAULT_PRIO_FACTOR = 1\n\
    PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n\
    [sim]\nuntil = 2h\nstep = 30m\n\
    [users]\nbob priority=0.5 factor=1\nalice priority=100 factor=1\n\
    [timeline]\n0 submit alice 4 10h\n1h submit bob 4 10h\n";

#[test]
fn preempting_jobs_take_the_slots_they_free() {
    let r = simulate(PREEMPTION);
    assert_eq!(row(&r, 1800, "alice@sim").running, 4);
    let (a, b) = (row(&r, 3600, "alice@sim"), row(&r, 3600, "bob@sim"));
    assert_eq!((a.running, a.idle, b.running, b.idle), (0, 4, 4, 0));
    assert_eq!(summary(&r, "alice@sim").preempted, 4);
    assert_eq!(summary(&r, "alice@sim").started, 4);
    // With retirement time, the preempted jobs run another half hour first.
    let r = simulate_with(PREEMPTION, &[("MAXJOBRETIREMENTTIME", "5400")]);
    let (a, b) = (row(&r, 3600, "alice@sim"), row(&r, 3600, "bob@sim"));
    assert_eq!((a.running, b.running), (4, 0));
    let (a, b) = (row(&r, 5400, "alice@sim"), row(&r, 5400, "bob@sim"));
    assert_eq!((a.running, b.running), (0, 4));
    assert_eq!(summary(&r, "bob@sim").max_wait, Some(1800));
}

#[test]
fn the_startd_policy_vacates_jobs_as_in_the_pool() {
    // PREEMPT after half an hour of running: the startd's policy, run at each 300-second
    // cycle, vacates the 1-hour job at the first cycle past 30 minutes of its run (35
    // minutes), and the same cycle starts it again from its beginning: vacated at 35m, 1h10m
    // and 1h45m, it never completes.
    let text = "[config]\nNUM_CPUS = 1\nNEGOTIATOR_INTERVAL = 300\n\
                PREEMPT = (time() - JobStart) > 1800\n\
                [sim]\nuntil = 2h\nstep = 5m\n[timeline]\n0 submit alice 1 1h\n";
    let r = simulate(text);
    let s = summary(&r, "alice@sim");
    assert_eq!((s.started, s.completed, s.preempted), (1, 0, 3), "{s:?}");
    // Without PREEMPT it runs its hour.
    let r = simulate_with(text, &[("PREEMPT", "false")]);
    assert_eq!(summary(&r, "alice@sim").completed, 1);
}

#[test]
fn cycles_that_cannot_match_change_nothing_when_skipped() {
    // A full pool without preemption: most cycles could match nothing and only age the
    // priorities. The same pool with a PREEMPTION_REQUIREMENTS that is false but not plainly
    // so runs every cycle through the negotiator: the same report.
    let text = "[config]\nNUM_CPUS = 6\nPRIORITY_HALFLIFE = 3600\nDEFAULT_PRIO_FACTOR = 1\n\
                [sim]\nuntil = 6h\nstep = 20m\n[users]\nbob factor=3\n\
                [timeline]\n0 submit alice 40 47m\n0 submit bob 40 61m\n2h submit carol 9 2h\n";
    let skipped = simulate(text);
    let cycled = simulate_with(text, &[("PREEMPTION_REQUIREMENTS", "1 == 2")]);
    assert_eq!(skipped, cycled);
    assert!(skipped.summary.iter().all(|s| s.preempted == 0));
}

#[test]
fn the_same_input_gives_the_same_report() {
    let text = format!(
        "{}[timeline]\n0 submit alice 30 7m\n0 submit bob 30 11m\n5m submit carol 20 3m\n",
        FOUR_CPUS
    );
    let a = simulate(&text);
    let b = simulate(&text);
    assert_eq!(a, b);
    assert_eq!(svg::render(&a), svg::render(&b));
}

#[test]
fn configuration_errors_name_the_file_and_line() {
    let none = SimOptions::default();
    assert_eq!(
        sim_err("# c\n[config]\nNUM_CPUS = 4\nthis is not a knob\n", &none),
        "test.sim, line 4: syntax error, expected NAME = value: this is not a knob"
    );
    assert_eq!(
        sim_err("[config]\nPRIORITY_HALFLIFE = soon\n", &none),
        "test.sim, line 2: Invalid result (not a number) for PRIORITY_HALFLIFE (soon) in \
         condor configuration.  Please set it to a numeric expression"
    );
    assert!(sim_err("[config]\n\nNEGOTIATOR_INTERVAL = 0\n", &none)
        .starts_with("test.sim, line 3: NEGOTIATOR_INTERVAL must be at least 1 second"));
    assert!(sim_err(
        "[config]\nNUM_CPUS = 4\nSLOT_TYPE_1 = cpus=8\nNUM_SLOTS_TYPE_1 = 1\n",
        &none
    )
    .starts_with("test.sim, line 3: can't allocate slot 1"),);
    let set = SimOptions {
        sets: vec![("PRIORITY_HALFLIFE".into(), "x".into())],
        ..SimOptions::default()
    };
    assert!(sim_err("[config]\n", &set).starts_with("-set PRIORITY_HALFLIFE: Invalid result"));
    let missing = SimOptions {
        config_files: vec!["/nonexistent/condor_config".into()],
        ..SimOptions::default()
    };
    assert_eq!(
        sim_err("[config]\n", &missing),
        "can't read /nonexistent/condor_config: No such file or directory"
    );
}

#[test]
fn config_files_come_after_the_workload_and_sets_last() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("condor_config");
    std::fs::write(&file, "NUM_CPUS = 6\nDEFAULT_PRIO_FACTOR = 10\n").unwrap();
    let text = "[config]\nNUM_CPUS = 2\nDEFAULT_PRIO_FACTOR = 3\n[sim]\nuntil = 0\n\
                [timeline]\n0 submit a 10 1h\n";
    let mut opts = SimOptions {
        config_files: vec![file.to_string_lossy().into_owned()],
        ..SimOptions::default()
    };
    let r = run(&parse(text), &opts).unwrap();
    assert_eq!(r.pool_weight, 6.0);
    assert_eq!(row(&r, 0, "a@sim").effective_priority, 5.0);
    opts.sets = vec![("NUM_CPUS".into(), "5".into())];
    let r = run(&parse(text), &opts).unwrap();
    assert_eq!(r.pool_weight, 5.0);
    std::fs::write(&file, "NUM_CPUS = 6\nbroken line\n").unwrap();
    let e = run(&parse(text), &opts).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}, line 2: syntax error, expected NAME = value: broken line",
            file.display()
        )
    );
}

/// One 12-core partitionable slot, with the seed's consumption policy when `policy`
/// (negotiator-side-pslot-consumption.txt), and alice's ceiling at 11.
fn ceiling_below_the_pslot(policy: bool) -> String {
    let policy = if policy {
        "CONSUMPTION_POLICY = True\n"
    } else {
        ""
    };
    format!(
        "[config]\nNUM_CPUS = 12\n{policy}[sim]\nuntil = 2h\nstep = 1h\n\
         [users]\nalice ceiling=11\n[timeline]\n0 submit alice 20 8h\n"
    )
}

#[test]
fn a_ceiling_below_a_pslots_weight_is_charged_what_the_jobs_consume() {
    // With the consumption policy a match costs the core it takes: 11 jobs run.
    let r = simulate(&ceiling_below_the_pslot(true));
    let a = row(&r, 3600, "alice@sim");
    assert_eq!((a.running, a.idle, a.in_use), (11, 9, 11.0));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    // Without it a match is charged the whole slot, whose weight is more than the ceiling:
    // nothing runs, and the note says why.
    let r = simulate(&ceiling_below_the_pslot(false));
    assert_eq!(row(&r, 3600, "alice@sim").running, 0);
    assert_eq!(
        r.notes,
        [
            "alice@sim: submitter ceiling exceeded: the whole partitionable slot's weight (12) \
             exceeds the ceiling left (11); without a consumption policy a match is charged \
             the whole slot",
            "20 idle jobs could not be matched to any slot",
        ]
    );
}

/// Two users of equal factors on 12 cores, 8-hour jobs, preemption by user priority.
const FLIP_FLOP: &str = "[config]\nNUM_CPUS = 12\nSLOT_TYPE_0_PARTITIONABLE = false\n\
    DEFAULT_PRIO_FACTOR = 1\n\
    PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n\
    [sim]\nuntil = 24h\nstep = 1h\n\
    [timeline]\n0 submit alice 100 8h\n1h submit bob 100 8h\n";

#[test]
fn priority_preemption_hands_the_whole_pool_over_as_htcondor_does() {
    // HTCondor 24.0 does the same (matchmaker.cpp): in the first pie spin of a cycle the
    // newcomer's user-priority preemptions stop at its submitterLimit (negotiate:
    // limitUsed >= submitterLimit); the incumbent, whose jobs may not preempt the newcomer's
    // (PREEMPTION_REQUIREMENTS), gets MM_DONE and leaves the submitter list; the next spin
    // recomputes the shares (calculateNormalizationFactor, calculateSubmitterLimit) over the
    // submitters left, so the newcomer's limit is the whole pool less its usage, and it
    // preempts the rest. The pool changes hands whole until priorities and completions
    // settle it: the preemptions over a day are bounded by those handovers.
    let r = simulate(FLIP_FLOP);
    let bob = |t: i64| {
        r.trace
            .iter()
            .find(|p| p.time == t)
            .map(|p| p.in_use[1])
            .unwrap()
    };
    // Bob's first cycle: his share of 12 (7.49) rounded up once; the next cycle, alice is
    // done in the first spin and bob takes her last four.
    assert_eq!((bob(3600), bob(3660)), (8.0, 12.0));
    // Alice takes the whole pool back once her priority is 1.2 times better, and so on.
    assert_eq!((bob(8700), bob(8760)), (5.0, 0.0));
    assert_eq!((bob(12420), bob(12480)), (7.0, 12.0));
    assert_eq!((bob(16740), bob(16800)), (5.0, 0.0));
    // Then the 8-hour jobs end and new ones start within the shares: no more handovers.
    assert!(r
        .trace
        .iter()
        .filter(|p| p.time >= 21720)
        .all(|p| (5.0..=7.0).contains(&p.in_use[1])));
    let (a, b) = (summary(&r, "alice@sim"), summary(&r, "bob@sim"));
    assert_eq!((a.preempted, b.preempted), (31, 24));
}
