//! Tests of the cycle's global job priorities (`USE_GLOBAL_JOB_PRIOS`), time limits
//! (`NEGOTIATOR_MAX_TIME_PER_*`, on a clock the tests drive) and partitionable slot preemption
//! (`ALLOW_PSLOT_PREEMPTION`), with configurations read from text.

use std::time::Duration;

use super::*;
use crate::classad::parse_ad;
use crate::config::Config;

const NOW: i64 = 1_700_000_000;
const DOMAIN: &str = "example.org";

/// The negotiator's and the accountant's configuration from condor_config text.
fn configs(text: &str) -> (NegotiatorConfig, AccountantConfig) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::for_test(text, "NEGOTIATOR", None, dir.path());
    (
        NegotiatorConfig::from_config(&config).unwrap(),
        AccountantConfig::from_config(&config).unwrap(),
    )
}

fn state() -> AccountantState {
    AccountantState {
        last_update_time: NOW,
        ..AccountantState::default()
    }
}

fn user(name: &str) -> String {
    format!("{name}@{DOMAIN}")
}

/// A one-core static slot.
fn slot(i: usize) -> ClassAd {
    parse_ad(&format!(
        r#"[ Name = "slot{i}@host"; SlotID = {i}; State = "Unclaimed"; Activity = "Idle";
             Cpus = 1; Memory = 1024; Disk = 100000; SlotWeight = Cpus; Rank = 0;
             CurrentRank = 0; START = true; Requirements = START ]"#
    ))
    .unwrap()
}

/// `base` with the attributes of `[ extra ]` set over it.
fn with(base: &str, extra: &str) -> ClassAd {
    let mut ad = parse_ad(base).unwrap();
    ad.update(&parse_ad(&format!("[ {extra} ]")).unwrap());
    ad
}

/// A one-core job of `owner` with priority `prio` (`extra`: attributes set over it).
fn job(cluster: i32, proc: i32, owner: &str, prio: i64, extra: &str) -> IdleJob {
    let ad = with(
        &format!(
            r#"[ ClusterId = {cluster}; ProcId = {proc}; Owner = "{owner}"; JobStatus = 1;
                 JobPrio = {prio}; RequestCpus = 1; RequestMemory = 128; RequestDisk = 100;
                 Requirements = true ]"#
        ),
        extra,
    );
    IdleJob::new(JobId::new(cluster, proc), ad, DOMAIN)
}

fn run(
    jobs: &[IdleJob],
    slots: &[ClassAd],
    state: &AccountantState,
    cfg: &(NegotiatorConfig, AccountantConfig),
) -> CycleOutcome {
    let input = CycleInput { jobs, slots };
    let out = negotiate(&input, state, &cfg.1, &cfg.0, NOW);
    // Evaluating per class of slots must not change anything.
    let plain = negotiate_unclassed(&input, state, &cfg.1, &cfg.0, NOW);
    assert_eq!(out.matches, plain.matches, "classed and unclassed differ");
    assert_eq!(out.preemptions, plain.preemptions);
    out
}

fn matched(out: &CycleOutcome) -> Vec<String> {
    out.matches.iter().map(|m| m.job.to_string()).collect()
}

// ----- USE_GLOBAL_JOB_PRIOS

/// alice has a priority-10 and a priority-1 job, bob a priority-5 job; two slots; user
/// priorities out of the way, so the first submitter in order takes all it can.
fn prio_jobs() -> Vec<IdleJob> {
    vec![
        job(1, 0, "alice", 10, ""),
        job(1, 1, "alice", 1, ""),
        job(2, 0, "bob", 5, ""),
    ]
}

const UNBOUNDED: &str = "NEGOTIATOR_IGNORE_USER_PRIORITIES = True\n";

#[test]
fn without_global_job_prios_a_submitter_negotiates_all_its_jobs_at_once() {
    let slots = [slot(1), slot(2)];
    let out = run(&prio_jobs(), &slots, &state(), &configs(UNBOUNDED));
    assert_eq!(matched(&out), ["1.0", "1.1"]);
}

#[test]
fn global_job_prios_interleave_submitters_of_equal_priority() {
    let slots = [slot(1), slot(2)];
    let cfg = configs(&format!("{UNBOUNDED}USE_GLOBAL_JOB_PRIOS = True\n"));
    assert!(cfg.0.use_global_job_prios && cfg.0.schedd_global_job_prios);
    let out = run(&prio_jobs(), &slots, &state(), &cfg);
    // alice's priority-10 job, then bob's priority-5 job: nothing left for alice's last.
    assert_eq!(matched(&out), ["1.0", "2.0"]);
    // With three slots, alice's priority-1 job comes last.
    let slots = [slot(1), slot(2), slot(3)];
    let out = run(&prio_jobs(), &slots, &state(), &cfg);
    assert_eq!(matched(&out), ["1.0", "2.0", "1.1"]);
    // Each submitter is counted once, however many turns it had.
    assert_eq!(out.stats.active_submitters.len(), 2);
    assert_eq!(out.stats.num_idle_jobs, 3);
    assert_eq!(out.submitters.len(), 2);
}

#[test]
fn a_better_user_priority_still_comes_first_with_all_its_jobs() {
    let mut st = state();
    st.set_priority(&user("bob"), 100.0);
    let slots = [slot(1), slot(2)];
    let cfg = configs(&format!("{UNBOUNDED}USE_GLOBAL_JOB_PRIOS = True\n"));
    let out = run(&prio_jobs(), &slots, &st, &cfg);
    assert_eq!(matched(&out), ["1.0", "1.1"]);
}

#[test]
fn only_the_advertised_job_prios_are_negotiated() {
    let slots = [slot(1), slot(2), slot(3)];
    // The schedd advertises each submitter's highest priority only.
    let cfg = configs(&format!(
        "{UNBOUNDED}USE_GLOBAL_JOB_PRIOS = True\nMAX_GLOBAL_JOB_PRIOS = 1\n"
    ));
    let out = run(&prio_jobs(), &slots, &state(), &cfg);
    assert_eq!(matched(&out), ["1.0", "2.0"]);
    // A schedd that advertises none: nobody is negotiated.
    let cfg = configs(&format!(
        "{UNBOUNDED}USE_GLOBAL_JOB_PRIOS = True\nMAX_GLOBAL_JOB_PRIOS = 0\n"
    ));
    assert!(run(&prio_jobs(), &slots, &state(), &cfg).matches.is_empty());
    // The schedd's knob off: no ranges, and every submitter sorts at the lowest priority.
    let cfg = configs(&format!(
        "{UNBOUNDED}USE_GLOBAL_JOB_PRIOS = True\nSCHEDD.USE_GLOBAL_JOB_PRIOS = False\n"
    ));
    assert!(!cfg.0.schedd_global_job_prios);
    let out = run(&prio_jobs(), &slots, &state(), &cfg);
    assert_eq!(matched(&out), ["1.0", "1.1", "2.0"]);
}

#[test]
fn global_job_prios_keep_fair_shares() {
    // Without ignoring user priorities, each submitter still gets its share of the pie: the
    // copies of one submitter share its limit.
    let jobs: Vec<IdleJob> = (0..4)
        .map(|p| job(1, p, "alice", i64::from(p), ""))
        .chain((0..4).map(|p| job(2, p, "bob", 10 + i64::from(p), "")))
        .collect();
    let slots: Vec<ClassAd> = (1..=4).map(slot).collect();
    let cfg = configs("USE_GLOBAL_JOB_PRIOS = True\n");
    let out = run(&jobs, &slots, &state(), &cfg);
    let alice = out.matches.iter().filter(|m| m.job.cluster == 1).count();
    let bob = out.matches.iter().filter(|m| m.job.cluster == 2).count();
    assert_eq!((alice, bob), (2, 2));
    // Each took its highest-priority jobs.
    let mut ids = matched(&out);
    ids.sort();
    assert_eq!(ids, ["1.2", "1.3", "2.2", "2.3"]);
}

// ----- Time limits

/// A clock that advances one second each time the cycle reads it.
fn ticking() -> impl FnMut() -> Duration {
    let mut t = 0;
    move || {
        t += 1;
        Duration::from_secs(t)
    }
}

fn timed(
    jobs: &[IdleJob],
    slots: &[ClassAd],
    cfg: &(NegotiatorConfig, AccountantConfig),
    clock: &mut dyn CycleClock,
) -> CycleOutcome {
    let input = CycleInput { jobs, slots };
    negotiate_with_clock(&input, &state(), &cfg.1, &cfg.0, NOW, clock)
}

fn many(owner: &str, cluster: i32, n: i32) -> Vec<IdleJob> {
    (0..n).map(|p| job(cluster, p, owner, 0, "")).collect()
}

#[test]
fn time_limits_default_to_htcondors() {
    let cfg = configs("");
    assert_eq!(
        (
            cfg.0.max_time_per_cycle,
            cfg.0.max_time_per_submitter,
            cfg.0.max_time_per_schedd,
            cfg.0.max_time_per_piespin
        ),
        (1200, 60, 120, 120)
    );
    // A clock that does not move never runs out.
    let slots: Vec<ClassAd> = (1..=10).map(slot).collect();
    let jobs = many("alice", 1, 10);
    let cfg = configs("NEGOTIATOR_MAX_TIME_PER_SUBMITTER = 1\n");
    let out = timed(&jobs, &slots, &cfg, &mut || Duration::ZERO);
    assert_eq!(out.matches.len(), 10);
}

#[test]
fn a_submitter_out_of_time_stops_and_is_reported() {
    let slots: Vec<ClassAd> = (1..=10).map(slot).collect();
    let jobs = many("alice", 1, 10);
    let cfg = configs("NEGOTIATOR_MAX_TIME_PER_SUBMITTER = 3\n");
    let out = timed(&jobs, &slots, &cfg, &mut ticking());
    // The turn starts at 1 s, its deadline is 4 s: requests at 2 s and 3 s, then the
    // deadline. The turn took 4 s, more than the 3 s allowed: no second turn.
    assert_eq!(out.matches.len(), 2);
    assert!(out.stats.submitters_out_of_time.contains(&user("alice")));
    // The same clock, a longer limit: everything.
    let cfg = configs("NEGOTIATOR_MAX_TIME_PER_SUBMITTER = 100\n");
    let out = timed(&jobs, &slots, &cfg, &mut ticking());
    assert_eq!(out.matches.len(), 10);
    assert!(out.stats.submitters_out_of_time.is_empty());
}

#[test]
fn a_spin_out_of_time_resumes_in_the_next_spin() {
    let slots: Vec<ClassAd> = (1..=10).map(slot).collect();
    let jobs = many("alice", 1, 10);
    let cfg = configs("NEGOTIATOR_MAX_TIME_PER_PIESPIN = 2\n");
    let out = timed(&jobs, &slots, &cfg, &mut ticking());
    // One request per turn, one turn per spin.
    assert_eq!(out.matches.len(), 10);
    assert!(out.stats.pie_spins >= 10, "{} spins", out.stats.pie_spins);
    assert!(out.stats.submitters_out_of_time.is_empty());
}

#[test]
fn the_schedd_and_the_cycle_run_out_of_time_for_everyone() {
    let slots: Vec<ClassAd> = (1..=10).map(slot).collect();
    let mut jobs = many("alice", 1, 5);
    jobs.extend(many("bob", 2, 5));
    let cfg = configs("NEGOTIATOR_MAX_TIME_PER_SCHEDD = 4\nSCHEDD_NAME = submit\n");
    let out = timed(&jobs, &slots, &cfg, &mut ticking());
    // alice's turn uses the schedd's time up: bob never negotiates.
    assert!(out.matches.iter().all(|m| m.job.cluster == 1));
    assert!(!out.matches.is_empty());
    assert_eq!(out.stats.schedds_out_of_time.len(), 1);
    let schedd = out.stats.schedds_out_of_time.iter().next().unwrap();
    assert!(schedd.starts_with("submit@"), "{schedd}");
    // No time for the cycle at all: nothing.
    let cfg = configs("NEGOTIATOR_MAX_TIME_PER_CYCLE = 0\n");
    let out = timed(&jobs, &slots, &cfg, &mut || Duration::ZERO);
    assert!(out.matches.is_empty());
    assert!(out.stats.submitters_out_of_time.is_empty());
}

#[test]
fn a_negotiator_cycle_takes_its_clock() {
    let slots: Vec<ClassAd> = (1..=10).map(slot).collect();
    let jobs = many("alice", 1, 10);
    let (cfg, acfg) = configs("NEGOTIATOR_MAX_TIME_PER_SUBMITTER = 3\n");
    let mut neg = Negotiator::new(cfg, acfg);
    let input = CycleInput {
        jobs: &jobs,
        slots: &slots,
    };
    let out = neg.cycle_with_clock(&input, &state(), NOW, &mut ticking());
    assert_eq!(out.matches.len(), 2);
    let out = neg.cycle(&input, &state(), NOW);
    assert_eq!(out.matches.len(), 10, "the wall clock does not run out");
}

// ----- ALLOW_PSLOT_PREEMPTION

/// A 4-core partitionable slot whose cores are all in two 2-core dynamic slots of bob's, and
/// the slot's `Rank` (`pslot_rank`); `child_extra` is set over the partitionable slot's ad
/// (its `Child*` lists), `dslot_extra` over both dynamic slots' ads.
fn carved(pslot_rank: &str, child_extra: &str, dslot_extra: &str) -> Vec<ClassAd> {
    let pslot = with(
        &format!(
            r#"[ Name = "slot1@host"; SlotID = 1; State = "Unclaimed"; Activity = "Idle";
             PartitionableSlot = true; Cpus = 0; Memory = 1024; Disk = 100000;
             TotalSlotCpus = 4; SlotWeight = Cpus; MachineResources = "Cpus Memory Disk";
             Rank = {pslot_rank}; START = true;
             Requirements = START && TARGET.RequestCpus <= Cpus;
             NumDynamicSlots = 2; ChildName = {{ "slot1_1@host", "slot1_2@host" }};
             ChildCpus = {{ 2, 2 }}; ChildMemory = {{ 512, 512 }}; ChildDisk = {{ 100, 100 }};
             ChildState = {{ "Claimed", "Claimed" }};
             ChildRemoteUser = {{ "bob@{DOMAIN}", "bob@{DOMAIN}" }};
             ChildCurrentRank = {{ 0, 0 }}; PslotRollupInformation = true ]"#
        ),
        child_extra,
    );
    let dslot = |i: usize| {
        with(
            &format!(
                r#"[ Name = "slot1_{i}@host"; SlotID = 1; DSlotId = {i}; DynamicSlot = true;
                 PslotRollupInformation = true; State = "Claimed"; Activity = "Busy";
                 RemoteUser = "bob@{DOMAIN}"; RemoteOwner = "bob@{DOMAIN}"; Cpus = 2;
                 Memory = 512; Disk = 100; SlotWeight = Cpus; Rank = 0; CurrentRank = 0;
                 START = true; Requirements = START; TotalJobRuntime = 100 ]"#
            ),
            dslot_extra,
        )
    };
    vec![pslot, dslot(1), dslot(2)]
}

const PREFERS_ALICE: &str = r#"10 * (TARGET.Owner == "alice")"#;

/// A job of `owner` asking for `cpus` cores.
fn wide(owner: &str, cpus: i64) -> IdleJob {
    job(1, 0, owner, 0, &format!("RequestCpus = {cpus}"))
}

#[test]
fn a_job_the_pslot_ranks_higher_preempts_as_many_dslots_as_it_needs() {
    let slots = carved(PREFERS_ALICE, "", "");
    // Without the knob: the partitionable slot is full and the dynamic slots do not
    // prefer alice's job.
    let out = run(&[wide("alice", 2)], &slots, &state(), &configs(""));
    assert!(out.matches.is_empty());

    let cfg = configs("ALLOW_PSLOT_PREEMPTION = True\n");
    let out = run(&[wide("alice", 2)], &slots, &state(), &cfg);
    assert_eq!(out.matches.len(), 1);
    let m = &out.matches[0];
    assert_eq!((m.slot, m.slot_name.as_str()), (0, "slot1@host"));
    assert_eq!(m.preempting, Some(PreemptReason::Rank));
    assert_eq!(m.preempted_dslots, [1]);
    assert_eq!(m.consumption[0], ("Cpus".to_owned(), 2.0));
    assert_eq!(
        out.preemptions,
        [Preemption {
            slot: 1,
            slot_name: "slot1_1@host".into(),
            victim: user("bob"),
            by: JobId::new(1, 0),
            by_submitter: user("alice"),
            reason: PreemptReason::Rank,
            pslot: Some(0),
        }]
    );
    // Three cores take both dynamic slots.
    let out = run(&[wide("alice", 3)], &slots, &state(), &cfg);
    assert_eq!(out.matches[0].preempted_dslots, [1, 2]);
    assert_eq!(out.preemptions.len(), 2);
    assert!(out.preemptions.iter().all(|p| p.pslot == Some(0)));
    // Five cores do not fit even then.
    assert!(run(&[wide("alice", 5)], &slots, &state(), &cfg)
        .matches
        .is_empty());
}

#[test]
fn the_lowest_ranked_dslots_go_first_and_not_twice() {
    // The second dynamic slot runs a job the slot ranks lower.
    let slots = carved(PREFERS_ALICE, "ChildCurrentRank = { 5, 1 }", "");
    let cfg = configs("ALLOW_PSLOT_PREEMPTION = True\n");
    let jobs = [wide("alice", 2), job(1, 1, "alice", 0, "RequestCpus = 2")];
    let out = run(&jobs, &slots, &state(), &cfg);
    // One preempting match per partitionable slot per cycle.
    assert_eq!(out.matches.len(), 1);
    assert_eq!(out.matches[0].preempted_dslots, [2]);
    // A retiring or preempting dynamic slot is not taken.
    let slots = carved(
        PREFERS_ALICE,
        r#"ChildRetirementTimeRemaining = { 0, 60 }; ChildState = { "Preempting", "Claimed" }"#,
        "",
    );
    assert!(run(&[wide("alice", 2)], &slots, &state(), &cfg)
        .matches
        .is_empty());
}

#[test]
fn a_dslot_missing_from_the_cycle_keeps_its_pslot_out() {
    let mut slots = carved(PREFERS_ALICE, "", "");
    slots.pop();
    let cfg = configs("ALLOW_PSLOT_PREEMPTION = True\n");
    assert!(run(&[wide("alice", 2)], &slots, &state(), &cfg)
        .matches
        .is_empty());
}

#[test]
fn equal_ranks_need_preemption_requirements_and_another_user() {
    let mut st = state();
    st.set_priority(&user("bob"), 50.0);
    let slots = carved("0", "", "");
    // The default PREEMPTION_REQUIREMENTS is False.
    let cfg = configs("ALLOW_PSLOT_PREEMPTION = True\n");
    assert!(run(&[wide("alice", 2)], &slots, &st, &cfg)
        .matches
        .is_empty());
    let cfg = configs(
        "ALLOW_PSLOT_PREEMPTION = True\n\
         PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n",
    );
    let out = run(&[wide("alice", 2)], &slots, &st, &cfg);
    assert_eq!(out.matches.len(), 1, "{:?}", out.rejections);
    assert_eq!(out.matches[0].preempting, Some(PreemptReason::UserPriority));
    assert_eq!(out.preemptions[0].reason, PreemptReason::UserPriority);
    // bob's own job does not preempt bob.
    assert!(run(&[wide("bob", 2)], &slots, &st, &cfg).matches.is_empty());
    // Nor does anyone when preemption is not considered at all.
    let cfg = configs(
        "ALLOW_PSLOT_PREEMPTION = True\nPREEMPTION_REQUIREMENTS = True\n\
         NEGOTIATOR_CONSIDER_PREEMPTION = False\n",
    );
    assert!(run(&[wide("alice", 2)], &slots, &st, &cfg)
        .matches
        .is_empty());
}

#[test]
fn dslots_are_preempted_only_through_their_pslot() {
    // Dynamic slots whose own Rank prefers alice's job: without the knob each is preempted
    // by itself (RANK preemption of a claimed slot); with it, only through the partitionable
    // slot, whose Rank does not.
    let slots = carved("0", "", r#"Rank = 10 * (TARGET.Owner == "alice")"#);
    let out = run(&[wide("alice", 1)], &slots, &state(), &configs(""));
    assert_eq!(out.matches.len(), 1);
    assert_eq!(out.matches[0].slot, 1);
    assert!(out.matches[0].preempted_dslots.is_empty());
    assert_eq!(out.preemptions[0].pslot, None);
    let cfg = configs("ALLOW_PSLOT_PREEMPTION = True\n");
    assert!(run(&[wide("alice", 1)], &slots, &state(), &cfg)
        .matches
        .is_empty());
}

// ----- Ceilings and partitionable slots

/// One 12-core partitionable slot; `extra` is set over it.
fn twelve_cores(extra: &str) -> ClassAd {
    with(
        r#"[ Name = "slot1@host"; SlotID = 1; State = "Unclaimed"; Activity = "Idle";
             PartitionableSlot = true; Cpus = 12; Memory = 12288; Disk = 1200000;
             TotalSlotCpus = 12; SlotWeight = Cpus; MachineResources = "Cpus Memory Disk Swap";
             Rank = 0; START = true;
             Requirements = START && TARGET.RequestCpus <= Cpus ]"#,
        extra,
    )
}

/// The consumption policy of the seed (negotiator-side-pslot-consumption.txt).
const CONSUMPTION_POLICY: &str = "ConsumptionCpus = quantize(target.RequestCpus, {1}); \
     ConsumptionMemory = quantize(target.RequestMemory, {128}); \
     ConsumptionDisk = quantize(target.RequestDisk, {1024})";

#[test]
fn a_ceiling_below_a_pslots_weight_is_charged_the_match_cost_with_a_consumption_policy() {
    let cfg = configs("");
    let mut st = state();
    st.set_ceiling(&user("alice"), 11);
    let jobs = many("alice", 1, 20);
    // With a consumption policy each match costs the core it takes: 11 jobs, not 0.
    let out = run(&jobs, &[twelve_cores(CONSUMPTION_POLICY)], &st, &cfg);
    assert_eq!(out.matches.len(), 11);
    assert!(out.matches.iter().all(|m| m.cost == 1.0));
    assert_eq!(out.accountant.weighted_resources_used(&user("alice")), 11.0);
    // A job whose match would cost more than the ceiling left is refused, and says why.
    let wide = [job(2, 0, "alice", 0, "RequestCpus = 12")];
    let out = run(&wide, &[twelve_cores(CONSUMPTION_POLICY)], &st, &cfg);
    assert!(out.matches.is_empty());
    assert_eq!(
        out.rejections[0].reason.to_string(),
        "submitter ceiling exceeded: a match would be charged 12, more than the ceiling left (11)"
    );
    // Without one, the whole slot's weight is more than the ceiling: skipped, as HTCondor
    // does, and the first job of each autocluster is told why.
    let out = run(&jobs, &[twelve_cores("")], &st, &cfg);
    assert!(out.matches.is_empty());
    assert_eq!(out.rejections.len(), 1);
    assert_eq!(out.rejections[0].job, JobId::new(1, 0));
    assert_eq!(
        out.rejections[0].reason.to_string(),
        "submitter ceiling exceeded: the whole partitionable slot's weight (12) exceeds the \
         ceiling left (11); without a consumption policy a match is charged the whole slot"
    );
    assert_eq!(out.stats.rejections, 0, "no request was made");
    // A ceiling used up is not reported (HTCondor's skip, the usual case).
    st.set_ceiling(&user("alice"), 0);
    let out = run(&jobs, &[twelve_cores("")], &st, &cfg);
    assert!(out.matches.is_empty() && out.rejections.is_empty());
}

// ----- User-priority preemption across pie spins

/// 12 one-core slots, each running a job of `owner`.
fn claimed_by(owner: &str) -> Vec<ClassAd> {
    (1..=12)
        .map(|i| {
            with(
                &format!(
                    r#"[ Name = "slot{i}@host"; SlotID = {i}; State = "Claimed";
                         Activity = "Busy"; Cpus = 1; Memory = 1024; Disk = 100000;
                         SlotWeight = Cpus; Rank = 0; CurrentRank = 0; START = true;
                         Requirements = START ]"#
                ),
                &format!(
                    r#"RemoteUser = "{}"; RemoteOwner = "{}""#,
                    user(owner),
                    user(owner)
                ),
            )
        })
        .collect()
}

#[test]
fn a_submitter_done_in_the_first_spin_leaves_the_pie_to_the_others_as_in_htcondor() {
    // HTCondor 24.0's matchmaker.cpp: negotiateWithGroup recomputes the normalization
    // (calculateNormalizationFactor) and every submitterLimit over the submitter ads still
    // in its list at each spin; a submitter whose negotiate() returns MM_DONE (no job left
    // it could match, not limited by its submitterLimit) is erased from that list. In spin 1
    // (ignore_submitter_limit) the newcomer's user-priority preemptions stop at its limit
    // (negotiate: limitUsed >= submitterLimit); the incumbent, whose jobs cannot preempt the
    // newcomer's (PREEMPTION_REQUIREMENTS), is done; in spin 2 the newcomer alone shares the
    // pie: its limit is the whole pool less its usage, and it preempts the rest.
    let cfg = configs(
        "DEFAULT_PRIO_FACTOR = 1\n\
         PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n",
    );
    let mut st = state();
    st.set_priority(&user("alice"), 0.83);
    st.set_priority(&user("bob"), 0.5);
    let slots = claimed_by("alice");
    for i in 1..=12 {
        let slot = format!("slot{i}@host");
        st.add_match(&cfg.1, &user("alice"), &slot, 1.0, None, None, NOW);
    }
    let mut jobs = many("alice", 1, 50);
    jobs.extend(many("bob", 2, 50));
    // The first cycle: bob's share is 0.5^-1 / (0.5^-1 + 0.83^-1) of 12 = 7.49; the 8th match
    // passes SubmitterLimitPermits on the unclaimed limit (matchmakingAlgorithm's cached
    // path), then bob is over its limit.
    let out = run(&jobs, &slots, &st, &cfg);
    assert_eq!(out.preemptions.len(), 8);
    assert!(out.matches.iter().all(|m| *m.submitter == *user("bob")));
    // The next cycle, the preempted jobs gone: bob is over its share in spin 1 and alice
    // can preempt nothing, so she is done; spin 2 gives bob alice's last four.
    let mut st = out.accountant;
    let mut slots = slots;
    for (i, s) in slots.iter_mut().enumerate() {
        if i < 8 {
            s.insert(
                "RemoteUser",
                crate::classad::Expr::lit(user("bob").as_str()),
            );
            s.insert(
                "RemoteOwner",
                crate::classad::Expr::lit(user("bob").as_str()),
            );
        }
    }
    st.check_matches(&cfg.1, &[], NOW);
    for (i, s) in slots.iter().enumerate() {
        let owner = if i < 8 { "bob" } else { "alice" };
        let name = crate::accountant::string_attr(s, "Name").unwrap();
        st.add_match(&cfg.1, &user(owner), &name, 1.0, None, None, NOW);
    }
    let out = run(&jobs, &slots, &st, &cfg);
    assert_eq!(out.preemptions.len(), 4);
    assert!(out.preemptions.iter().all(|p| p.victim == user("alice")));
    assert_eq!(out.stats.pie_spins, 3);
}
