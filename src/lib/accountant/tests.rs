use super::groups::{GroupSpec, GroupTree};
use super::*;

const DAY: i64 = 86400;
const T0: i64 = 1_700_000_000;

fn cfg() -> AccountantConfig {
    AccountantConfig::default()
}

fn claimed(name: &str, user: &str, weight: f64) -> SlotClaim {
    SlotClaim {
        resource: format!("{name}@<127.0.0.1:9618>"),
        state: "Claimed".into(),
        activity: "Busy".into(),
        remote_user: Some(user.into()),
        weight,
        concurrency_limits: None,
        preempting_concurrency_limits: None,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * b.abs().max(1.0)
}

#[test]
fn rup_starts_at_one_half_and_eup_is_rup_times_factor() {
    let s = AccountantState::new();
    assert_eq!(s.real_priority("alice@x"), 0.5);
    assert_eq!(s.priority(&cfg(), "alice@x"), 500.0);
}

#[test]
fn rup_stabilises_at_the_resources_used() {
    // Seed: "if a specific user continuously uses exactly ten resources for a long period of
    // time, the RUP of that user stabilizes at ten."
    let c = cfg();
    let mut s = AccountantState::new();
    s.update_priorities(&c, T0);
    let slots: Vec<SlotClaim> = (0..10)
        .map(|i| claimed(&format!("slot{i}"), "alice@x", 1.0))
        .collect();
    s.check_matches(&c, &slots, T0);
    let mut now = T0;
    for _ in 0..(20 * 24) {
        now += 3600;
        s.update_priorities(&c, now);
        s.check_matches(&c, &slots, now);
    }
    assert!(
        close(s.real_priority("alice@x"), 10.0),
        "{}",
        s.real_priority("alice@x")
    );
    assert_eq!(s.resources_used("alice@x"), 10);
    // Twenty days of ten slots, charged hour by hour.
    let c = s.customer("alice@x").unwrap();
    assert!(close(c.accumulated_usage, 10.0 * 20.0 * DAY as f64));
    assert_eq!(c.begin_usage_time, T0 + 3600);
    assert_eq!(c.last_usage_time, now);
}

#[test]
fn an_idle_rup_halves_every_half_life() {
    // Seed: "a user whose RUP was 10 has no running jobs, that user's RUP would be 5 one day
    // later, 2.5 two days later".
    let c = cfg();
    let mut s = AccountantState::new();
    s.update_priorities(&c, T0);
    s.set_priority("bob@x", 10.0);
    s.update_priorities(&c, T0 + DAY);
    assert!(close(s.real_priority("bob@x"), 5.0));
    // Many small steps age exactly as one big one.
    for h in 1..=24 {
        s.update_priorities(&c, T0 + DAY + h * 3600);
    }
    assert!(close(s.real_priority("bob@x"), 2.5));
    // ... and never below 0.5.
    s.update_priorities(&c, T0 + 30 * DAY);
    assert_eq!(s.real_priority("bob@x"), 0.5);
}

#[test]
fn a_match_made_between_updates_is_charged_from_its_start() {
    let c = cfg();
    let mut s = AccountantState::new();
    s.update_priorities(&c, T0);
    // Matched half way through the interval: half an interval of use is charged.
    s.add_match(&c, "alice@x", "slot1@", 2.0, None, None, T0 + 50);
    s.update_priorities(&c, T0 + 100);
    let a = s.customer("alice@x").unwrap();
    assert_eq!(a.accumulated_usage, 50.0);
    assert_eq!(a.weighted_accumulated_usage, 100.0);
    // Released a quarter of the way through the next one.
    s.remove_match(&c, "slot1@", T0 + 125);
    s.update_priorities(&c, T0 + 200);
    let a = s.customer("alice@x").unwrap();
    assert_eq!(a.accumulated_usage, 75.0);
    assert_eq!(a.weighted_accumulated_usage, 150.0);
    assert_eq!(a.resources_used, 0);
    assert_eq!(a.last_usage_time, T0 + 200);
}

#[test]
fn priority_factors_follow_htcondor_defaults() {
    let mut c = cfg();
    c.groups = GroupTree::build(
        vec![GroupSpec {
            prio_factor: 7.0,
            ..GroupSpec::new("grp")
        }],
        false,
        false,
    );
    let mut s = AccountantState::new();
    assert_eq!(s.priority_factor(&c, "alice@x"), 1000.0);
    assert_eq!(s.priority_factor(&c, "nice-user.alice@x"), 1e10);
    assert_eq!(s.priority_factor(&c, "grp.alice@x"), 7.0);
    c.local_domain = Some("here".into());
    assert_eq!(s.priority_factor(&c, "alice@there"), 1e7);
    assert_eq!(s.priority_factor(&c, "alice@here"), 1000.0);
    s.set_priority_factor("alice@there", 0.25);
    assert_eq!(s.priority_factor(&c, "alice@there"), 1.0);
    s.set_priority_factor("alice@there", 3.0);
    assert_eq!(s.priority(&c, "alice@there"), 1.5);
}

#[test]
fn group_records_carry_their_members_and_subtree_usage() {
    let mut c = cfg();
    c.groups = GroupTree::build(
        vec![GroupSpec::new("physics"), GroupSpec::new("physics.hep")],
        false,
        false,
    );
    let mut s = AccountantState::new();
    s.ensure_group_records(&c);
    assert!(s.customer("<none>").is_some() && s.customer("physics.hep").is_some());
    s.update_priorities(&c, T0);
    s.add_match(&c, "physics.hep.alice@x", "s1@", 1.0, None, None, T0);
    s.add_match(&c, "physics.bob@x", "s2@", 2.0, None, None, T0);
    s.add_match(&c, "carol@x", "s3@", 4.0, None, None, T0);
    assert_eq!(s.weighted_resources_used("physics.hep"), 1.0);
    assert_eq!(s.weighted_resources_used("physics"), 2.0);
    assert_eq!(s.weighted_resources_used("<none>"), 4.0);
    assert_eq!(
        s.customer("physics").unwrap().hier_weighted_resources_used,
        3.0
    );
    assert_eq!(
        s.customer("physics.hep")
            .unwrap()
            .hier_weighted_resources_used,
        1.0
    );
    s.update_priorities(&c, T0 + DAY);
    // The parent ages towards its subtree's usage.
    assert!(close(s.real_priority("physics"), 0.5 * 0.5 + 3.0 * 0.5));
    s.check_matches(&c, &[], T0 + DAY);
    assert_eq!(
        s.customer("physics").unwrap().hier_weighted_resources_used,
        0.0
    );
    assert!(s.resources.is_empty());
}

#[test]
fn records_that_never_used_anything_expire() {
    let c = cfg();
    let mut s = AccountantState::new();
    s.update_priorities(&c, T0);
    s.customers
        .insert("idle@x".into(), CustomerRecord::default());
    s.set_priority_factor("kept@x", 5.0);
    s.add_match(&c, "used@x", "s1@", 1.0, None, None, T0);
    s.update_priorities(&c, T0 + 60);
    s.remove_match(&c, "s1@", T0 + 60);
    s.update_priorities(&c, T0 + 120);
    assert!(s.customer("idle@x").is_none());
    assert!(s.customer("kept@x").is_some());
    assert!(s.customer("used@x").is_some());
}

#[test]
fn check_matches_replaces_a_slot_claimed_by_someone_else() {
    let c = cfg();
    let mut s = AccountantState::new();
    s.update_priorities(&c, T0);
    s.check_matches(&c, &[claimed("slot1", "alice@x", 1.0)], T0);
    assert_eq!(s.resources_used("alice@x"), 1);
    s.check_matches(&c, &[claimed("slot1", "bob@x", 1.0)], T0 + 10);
    assert_eq!(s.resources_used("alice@x"), 0);
    assert_eq!(s.resources_used("bob@x"), 1);
    // Unclaimed: nobody.
    let mut idle = claimed("slot1", "bob@x", 1.0);
    idle.state = "Unclaimed".into();
    s.check_matches(&c, &[idle], T0 + 20);
    assert_eq!(s.resources_used("bob@x"), 0);
}

#[test]
fn consumption_policy_matches_share_one_slot_until_the_next_check() {
    let c = cfg();
    let mut s = AccountantState::new();
    s.update_priorities(&c, T0);
    for _ in 0..3 {
        s.add_match(&c, "alice@x", "slot1@", 10.0, Some(1.0), None, T0);
    }
    assert_eq!(s.weighted_resources_used("alice@x"), 3.0);
    assert!(s.resources.contains_key("slot1@_cp_match_002"));
    // Next cycle: the p-slot is unclaimed and the d-slots report the claims.
    let mut pslot = claimed("slot1", "", 10.0);
    pslot.state = "Unclaimed".into();
    pslot.remote_user = None;
    s.check_matches(
        &c,
        &[
            pslot,
            claimed("slot1_1", "alice@x", 1.0),
            claimed("slot1_2", "alice@x", 1.0),
        ],
        T0 + 5,
    );
    assert_eq!(s.weighted_resources_used("alice@x"), 2.0);
    assert_eq!(s.resources.len(), 2);
}

#[test]
fn concurrency_limits_are_counted_from_the_slots() {
    let c = cfg();
    let mut s = AccountantState::new();
    let mut a = claimed("s1", "alice@x", 1.0);
    a.concurrency_limits = Some("Matlab:2, license.x".into());
    let mut b = claimed("s2", "alice@x", 1.0);
    b.preempting_concurrency_limits = Some("matlab".into());
    s.check_matches(&c, &[a, b], T0);
    assert_eq!(s.limit_in_use("matlab"), 3.0);
    assert_eq!(s.limit_in_use("license.x"), 1.0);
    assert_eq!(parse_concurrency_limit("a.b.c"), None);
    assert_eq!(parse_concurrency_limit("x:-3"), Some(("x".into(), 1.0)));
    assert_eq!(parse_concurrency_limit("x:2.5zz"), Some(("x".into(), 2.5)));
    assert_eq!(parse_concurrency_limit("9x"), None);
}

#[test]
fn each_update_is_one_transaction_and_survives_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut acct = Accountant::open(cfg(), dir.path()).unwrap();
        acct.update(|s, c| {
            s.update_priorities(c, T0);
            s.add_match(c, "alice@x", "slot1@", 2.0, None, Some("Lic"), T0);
        })
        .unwrap();
        acct.update(|s, _| s.set_priority_factor("alice@x", 5.0))
            .unwrap();
        acct.update(|s, c| s.update_priorities(c, T0 + DAY))
            .unwrap();
    }
    let acct = Accountant::open(cfg(), dir.path()).unwrap();
    let s = acct.state();
    assert_eq!(s.last_update_time, T0 + DAY);
    let a = s.customer("alice@x").unwrap();
    assert_eq!(a.priority_factor, Some(5.0));
    assert!(close(a.priority, 0.25 + 1.0));
    assert_eq!(a.weighted_accumulated_usage, 2.0 * DAY as f64);
    let r = &s.resources["slot1@"];
    assert_eq!(r.remote_user, "alice@x");
    assert_eq!(r.matched_concurrency_limits.as_deref(), Some("lic"));
    // The root group's record is created on open.
    assert!(s.customer("<none>").is_some());

    let mut mem = Accountant::new(cfg(), Box::new(MemoryStore::default())).unwrap();
    mem.update(|s, c| s.update_priorities(c, T0)).unwrap();
    mem.update(|s, _| s.set_priority("bob@x", 3.0)).unwrap();
    assert_eq!(mem.state().real_priority("bob@x"), 3.0);
}

#[test]
fn writes_of_other_processes_are_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = Accountant::open(cfg(), dir.path()).unwrap();
    daemon
        .update(|s, c| {
            s.update_priorities(c, T0);
            s.add_match(c, "alice@x", "slot1@", 1.0, None, None, T0);
        })
        .unwrap();
    // condor_userprio, in another process, sets a factor...
    let mut tool = Accountant::open(cfg(), dir.path()).unwrap();
    tool.update(|s, _| s.set_priority_factor("alice@x", 42.0))
        .unwrap();
    // ... while the daemon, not having reloaded, ages priorities.
    daemon
        .update(|s, c| s.update_priorities(c, T0 + 3600))
        .unwrap();
    daemon.reload().unwrap();
    let a = daemon.state().customer("alice@x").unwrap();
    assert_eq!(a.priority_factor, Some(42.0));
    assert!(a.priority > 0.5);
}

#[test]
fn a_reload_reads_the_records_only_after_another_writer() {
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = Accountant::open(cfg(), dir.path()).unwrap();
    daemon.reload().unwrap();
    let first = daemon.generation();
    // Its own writes are already in memory: nothing to read back.
    daemon
        .update(|s, c| s.add_match(c, "alice@x", "slot1@", 1.0, None, None, T0))
        .unwrap();
    let after_update = daemon.generation();
    assert!(after_update > first);
    daemon.reload().unwrap();
    assert_eq!(daemon.generation(), after_update);
    // Another process's write is.
    let mut tool = Accountant::open(cfg(), dir.path()).unwrap();
    tool.update(|s, _| s.set_priority_factor("alice@x", 7.0))
        .unwrap();
    daemon.reload().unwrap();
    assert!(daemon.generation() > after_update);
    assert_eq!(
        daemon.state().customer("alice@x").unwrap().priority_factor,
        Some(7.0)
    );
    daemon.reload().unwrap();
    assert_eq!(daemon.generation(), after_update + 1);
}
