//! The negotiator and the accountant as library code: the seeds' worked numbers
//! (../shared/seeds/user-priorities-and-negotiation.txt, priority-calculation.txt,
//! negotiator-side-pslot-consumption.txt), HTCondor's matchmaking rules, and properties over
//! random pools (`props`).

mod props;

use std::collections::BTreeMap;

use condorlite::accountant::{AccountantConfig, AccountantState};
use condorlite::classad::{parse_ad, ClassAd, Expr};
use condorlite::config::{Config, Environment, LoadOptions, PlatformDirs};
use condorlite::negotiator::{
    negotiate, negotiate_unclassed, CycleInput, CycleOutcome, IdleJob, JobId, Negotiator,
    NegotiatorConfig, PreemptReason, RejectReason,
};

pub const NOW: i64 = 1_700_000_000;
pub const DOMAIN: &str = "example.org";

/// A configuration read from `text` (as a condor_config file).
pub fn config(text: &str) -> Config {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("condor_config");
    let text: Vec<&str> = text.lines().map(str::trim).collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    Config::load_with(LoadOptions {
        env: Environment::from_pairs([("CONDOR_CONFIG", path.to_string_lossy().into_owned())]),
        subsystem: "NEGOTIATOR".into(),
        local_name: None,
        root_config: None,
        keep_defaults: false,
        dirs: PlatformDirs {
            data_dir: Some(dir.path().join("pool")),
            config_dir: Some(dir.path().join("user")),
        },
        machine: None,
    })
    .unwrap()
}

pub fn configs(text: &str) -> (NegotiatorConfig, AccountantConfig) {
    let c = config(text);
    (
        NegotiatorConfig::from_config(&c).unwrap(),
        AccountantConfig::from_config(&c).unwrap(),
    )
}

/// A static one-core slot, unclaimed.
pub fn slot(i: usize, extra: &str) -> ClassAd {
    parse_ad(&format!(
        r#"[ Name = "slot{i}@host"; SlotID = {i}; MyType = "Machine"; State = "Unclaimed";
             Activity = "Idle"; Arch = "X86_64"; OpSys = "LINUX"; Cpus = 1; Memory = 1024;
             Disk = 1000000; SlotWeight = Cpus; Rank = 0; CurrentRank = 0; START = true;
             Requirements = START; {extra} ]"#
    ))
    .unwrap()
}

/// A partitionable slot.
pub fn pslot(cpus: i64, memory: i64, extra: &str) -> ClassAd {
    parse_ad(&format!(
        r#"[ Name = "slot1@rorschach"; SlotID = 1; MyType = "Machine"; State = "Unclaimed";
             Activity = "Idle"; PartitionableSlot = true; Cpus = {cpus}; Memory = {memory};
             Disk = 1000000; TotalSlotCpus = {cpus}; TotalSlotMemory = {memory};
             MachineResources = "Cpus Memory Disk Swap"; Rank = 0; START = true;
             Requirements = START && (TARGET.RequestCpus <= Cpus) && (TARGET.RequestMemory <= Memory);
             {extra} ]"#
    ))
    .unwrap()
}

/// `n` idle jobs of one cluster for `owner` (an `AccountingGroup` when `group` is set).
pub fn jobs(cluster: i32, n: usize, owner: &str, group: Option<&str>, extra: &str) -> Vec<IdleJob> {
    (0..n)
        .map(|p| {
            let group_attr = group
                .map(|g| format!("AccountingGroup = \"{g}.{owner}\";"))
                .unwrap_or_default();
            let ad = parse_ad(&format!(
                r#"[ ClusterId = {cluster}; ProcId = {p}; Owner = "{owner}";
                     User = "{owner}@{DOMAIN}"; JobStatus = 1; JobPrio = 0; QDate = {NOW};
                     RequestCpus = 1; RequestMemory = 128; RequestDisk = 100;
                     Requirements = TARGET.Arch == "X86_64" || TARGET.PartitionableSlot =?= true;
                     {group_attr} {extra} ]"#
            ))
            .unwrap();
            IdleJob::new(JobId::new(cluster, p as i32), ad, DOMAIN)
        })
        .collect()
}

pub fn run(
    jobs: &[IdleJob],
    slots: &[ClassAd],
    state: &AccountantState,
    cfg: &(NegotiatorConfig, AccountantConfig),
) -> CycleOutcome {
    let out = negotiate(&CycleInput { jobs, slots }, state, &cfg.1, &cfg.0, NOW);
    // Evaluating per class of slots must not change anything.
    let plain = negotiate_unclassed(&CycleInput { jobs, slots }, state, &cfg.1, &cfg.0, NOW);
    assert_eq!(
        out.matches, plain.matches,
        "classed and unclassed cycles differ"
    );
    assert_eq!(out.accountant, plain.accountant);
    out
}

/// Matches per submitter (or per group, with `by_group`).
pub fn tally(out: &CycleOutcome, by_group: bool) -> BTreeMap<String, usize> {
    let mut t = BTreeMap::new();
    for m in &out.matches {
        let key = if by_group {
            m.group.clone()
        } else {
            m.submitter.to_string()
        };
        *t.entry(key).or_insert(0) += 1;
    }
    t
}

fn state_at_now() -> AccountantState {
    AccountantState {
        last_update_time: NOW,
        ..AccountantState::default()
    }
}

fn user(name: &str) -> String {
    format!("{name}@{DOMAIN}")
}

#[test]
fn eup_5_10_20_get_slots_4_2_1() {
    // Seed: "user A with EUP=5 will receive twice as many resources as user B with EUP=10 and
    // four times as many resources as user C with EUP=20."
    let cfg = configs("");
    let mut state = state_at_now();
    for (name, rup) in [("a", 5.0), ("b", 10.0), ("c", 20.0)] {
        state.set_priority(&user(name), rup);
        state.set_priority_factor(&user(name), 1.0);
    }
    let mut all = jobs(1, 10, "a", None, "");
    all.extend(jobs(2, 10, "b", None, ""));
    all.extend(jobs(3, 10, "c", None, ""));
    let slots: Vec<ClassAd> = (1..=7).map(|i| slot(i, "")).collect();
    let out = run(&all, &slots, &state, &cfg);
    let t = tally(&out, false);
    assert_eq!(
        (t[&user("a")], t[&user("b")], t[&user("c")]),
        (4, 2, 1),
        "{t:?}"
    );
    // A's share of the pie was 4/7.
    let a = out.submitters.iter().find(|s| s.name == user("a")).unwrap();
    assert!((a.share - 4.0 / 7.0).abs() < 1e-9);
    // Unused share is repartitioned: without C's jobs, A and B split the pie 2:1.
    let ab: Vec<IdleJob> = all
        .iter()
        .filter(|j| *j.submitter != user("c"))
        .cloned()
        .collect();
    let t = tally(&run(&ab, &slots[..6], &state, &cfg), false);
    assert_eq!((t[&user("a")], t[&user("b")]), (4, 2), "{t:?}");
    // With 7 slots the shares are 4.67 and 2.33: the crumb left over goes unclaimed this
    // cycle (no submitter's remaining limit reaches a whole slot, as in HTCondor)...
    let out = run(&ab, &slots, &state, &cfg);
    assert_eq!(out.matches.len(), 6);
    // ... and to the better priority in the next, which may round up once.
    let mut claimed = slots.clone();
    for m in &out.matches {
        claimed[m.slot] = claimed_by(m.slot + 1, &m.submitter, "");
    }
    let next = run(&ab, &claimed, &out.accountant, &cfg);
    assert_eq!(next.matches.len(), 1);
    assert_eq!(&*next.matches[0].submitter, user("a"));
}

#[test]
fn rup_stabilises_and_decays_through_cycles() {
    // A user holding ten slots for days: RUP ~ 10. Then idle a day: 5; two days: 2.5.
    let mut neg = Negotiator::new(NegotiatorConfig::default(), AccountantConfig::default());
    let mut state = state_at_now();
    let claimed: Vec<ClassAd> = (1..=10)
        .map(|i| {
            slot(
                i,
                &format!(r#"State = "Claimed"; Activity = "Busy"; RemoteUser = "{}"; RemoteOwner = "{}""#, user("u"), user("u")),
            )
        })
        .collect();
    let mut now = NOW;
    for _ in 0..(12 * 24) {
        now += 3600;
        state = neg
            .cycle(
                &CycleInput {
                    jobs: &[],
                    slots: &claimed,
                },
                &state,
                now,
            )
            .accountant;
    }
    assert!((state.real_priority(&user("u")) - 10.0).abs() < 0.01);
    // The jobs finish now.
    let idle: Vec<ClassAd> = (1..=10).map(|i| slot(i, "")).collect();
    state = neg
        .cycle(
            &CycleInput {
                jobs: &[],
                slots: &idle,
            },
            &state,
            now,
        )
        .accountant;
    let before = state.real_priority(&user("u"));
    now += 86400;
    state = neg
        .cycle(
            &CycleInput {
                jobs: &[],
                slots: &idle,
            },
            &state,
            now,
        )
        .accountant;
    assert!((state.real_priority(&user("u")) - before / 2.0).abs() < 0.01);
    now += 86400;
    state = neg
        .cycle(
            &CycleInput {
                jobs: &[],
                slots: &idle,
            },
            &state,
            now,
        )
        .accountant;
    assert!((state.real_priority(&user("u")) - before / 4.0).abs() < 0.01);
}

const PHYSICS_CHEMISTRY: &str = "
GROUP_NAMES = group_physics, group_chemistry
GROUP_QUOTA_group_physics = 20
GROUP_QUOTA_group_chemistry = 10
NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = False
";

fn physics_chemistry_jobs() -> Vec<IdleJob> {
    let mut all = jobs(1, 60, "alice", Some("group_physics"), "");
    all.extend(jobs(2, 60, "bob", Some("group_chemistry"), ""));
    all
}

#[test]
fn static_group_quotas_30_slots() {
    let cfg = configs(PHYSICS_CHEMISTRY);
    let slots: Vec<ClassAd> = (1..=30).map(|i| slot(i, "")).collect();
    let out = run(&physics_chemistry_jobs(), &slots, &state_at_now(), &cfg);
    let t = tally(&out, true);
    assert_eq!(
        (t["group_physics"], t["group_chemistry"]),
        (20, 10),
        "{t:?}"
    );
    let physics = out
        .groups
        .iter()
        .find(|g| g.name == "group_physics")
        .unwrap();
    assert_eq!(physics.quota, 20.0);
    assert_eq!(physics.requested, 60.0);
}

#[test]
fn the_power_failure_scales_quotas_down() {
    // Seed: "If a power failure removed half of the original 30, leaving fifteen slots,
    // physics would be scaled back to a quota of ten, and chemistry to five."
    let cfg = configs(PHYSICS_CHEMISTRY);
    let slots: Vec<ClassAd> = (1..=15).map(|i| slot(i, "")).collect();
    let out = run(&physics_chemistry_jobs(), &slots, &state_at_now(), &cfg);
    let t = tally(&out, true);
    assert_eq!((t["group_physics"], t["group_chemistry"]), (10, 5), "{t:?}");
    // "if somehow the number of slots doubled from thirty to sixty, physics would still be
    // limited to 20 slots, and chemistry would be limited to 10."
    let slots: Vec<ClassAd> = (1..=60).map(|i| slot(i, "")).collect();
    let t = tally(
        &run(&physics_chemistry_jobs(), &slots, &state_at_now(), &cfg),
        true,
    );
    assert_eq!(
        (t["group_physics"], t["group_chemistry"]),
        (20, 10),
        "{t:?}"
    );
}

#[test]
fn dynamic_group_quotas_keep_their_ratio() {
    // Three quarters and one quarter of the pool, whatever its size.
    let cfg = configs(
        "GROUP_NAMES = group_physics, group_chemistry
         GROUP_QUOTA_DYNAMIC_group_physics = 0.75
         GROUP_QUOTA_DYNAMIC_group_chemistry = 0.25",
    );
    for (n, physics, chemistry) in [(20, 15, 5), (40, 30, 10), (60, 45, 15)] {
        let slots: Vec<ClassAd> = (1..=n).map(|i| slot(i, "")).collect();
        let t = tally(
            &run(&physics_chemistry_jobs(), &slots, &state_at_now(), &cfg),
            true,
        );
        assert_eq!(
            (t["group_physics"], t["group_chemistry"]),
            (physics, chemistry),
            "{n} slots: {t:?}"
        );
    }
    // HTCondor hands each group its limit as a whole number, rounded down: a third written
    // as .33 is 9.9 slots of 30, so 9.
    let cfg = configs(
        "GROUP_NAMES = group_physics, group_chemistry
         GROUP_QUOTA_DYNAMIC_group_physics = .66
         GROUP_QUOTA_DYNAMIC_group_chemistry = .33",
    );
    let slots: Vec<ClassAd> = (1..=30).map(|i| slot(i, "")).collect();
    let t = tally(
        &run(&physics_chemistry_jobs(), &slots, &state_at_now(), &cfg),
        true,
    );
    assert_eq!((t["group_physics"], t["group_chemistry"]), (19, 9), "{t:?}");
    // Subgroups take fractions of their parent: hep 75% of physics' 75% of 32 slots is 18.
    let cfg = configs(
        "GROUP_NAMES = group_physics, group_physics.hep, group_physics.lep, group_chemistry
         GROUP_QUOTA_DYNAMIC_group_physics = 0.75
         GROUP_QUOTA_DYNAMIC_group_physics.hep = 0.75
         GROUP_QUOTA_DYNAMIC_group_physics.lep = 0.25
         GROUP_QUOTA_DYNAMIC_group_chemistry = 0.25",
    );
    let slots: Vec<ClassAd> = (1..=32).map(|i| slot(i, "")).collect();
    let mut all = jobs(1, 60, "h", Some("group_physics.hep"), "");
    all.extend(jobs(2, 60, "l", Some("group_physics.lep"), ""));
    all.extend(jobs(3, 60, "c", Some("group_chemistry"), ""));
    let out = run(&all, &slots, &state_at_now(), &cfg);
    let t = tally(&out, true);
    assert_eq!(
        (
            t["group_physics.hep"],
            t["group_physics.lep"],
            t["group_chemistry"]
        ),
        (18, 6, 8),
        "{t:?}"
    );
}

// The seed's numbers assume quotas are scaled to fit (HTCondor 24's default for
// NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION is True, under which physics would keep a quota of its
// own on top of its children's, and share it with them as surplus).
const HEP_LEP: &str = "
NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = False
GROUP_NAMES = group_physics, group_physics.hep, group_physics.lep, group_chemistry
GROUP_QUOTA_group_physics = 20
GROUP_QUOTA_group_physics.hep = 15
GROUP_QUOTA_group_physics.lep = 5
GROUP_QUOTA_group_chemistry = 10
GROUP_ACCEPT_SURPLUS = false
GROUP_ACCEPT_SURPLUS_group_physics = false
GROUP_ACCEPT_SURPLUS_group_physics.hep = true
GROUP_ACCEPT_SURPLUS_group_physics.lep = true
";

#[test]
fn hep_and_lep_share_physics_surplus_but_not_beyond_it() {
    let cfg = configs(HEP_LEP);
    let slots: Vec<ClassAd> = (1..=30).map(|i| slot(i, "")).collect();
    // Both busy: each gets its quota.
    let mut all = jobs(1, 60, "h", Some("group_physics.hep"), "");
    all.extend(jobs(2, 60, "l", Some("group_physics.lep"), ""));
    all.extend(jobs(3, 60, "c", Some("group_chemistry"), ""));
    let out = run(&all, &slots, &state_at_now(), &cfg);
    let t = tally(&out, true);
    assert_eq!(
        (
            t["group_physics.hep"],
            t["group_physics.lep"],
            t["group_chemistry"]
        ),
        (15, 5, 10),
        "{t:?}"
    );
    // hep idle: lep takes hep's unused quota, up to physics' 20 and no further.
    let mut all = jobs(2, 60, "l", Some("group_physics.lep"), "");
    all.extend(jobs(3, 60, "c", Some("group_chemistry"), ""));
    let t = tally(&run(&all, &slots, &state_at_now(), &cfg), true);
    assert_eq!(
        (t["group_physics.lep"], t["group_chemistry"]),
        (20, 10),
        "{t:?}"
    );
    // Chemistry idle too: lep is still capped by physics.
    let all = jobs(2, 60, "l", Some("group_physics.lep"), "");
    let t = tally(&run(&all, &slots, &state_at_now(), &cfg), true);
    assert_eq!(t["group_physics.lep"], 20, "{t:?}");
    // With physics accepting surplus, lep may have the whole pool.
    let cfg = configs(&format!(
        "{HEP_LEP}\nGROUP_ACCEPT_SURPLUS_group_physics = true\n"
    ));
    let t = tally(&run(&all, &slots, &state_at_now(), &cfg), true);
    assert_eq!(t["group_physics.lep"], 30, "{t:?}");
}

#[test]
fn the_most_starved_group_negotiates_first_and_none_last() {
    // Physics already uses 10 of its 40; chemistry nothing of its 40: chemistry is the more
    // starved (0/40 < 10/40), goes first, and takes the 10 free slots.
    let text = "GROUP_NAMES = group_physics, group_chemistry
                GROUP_QUOTA_group_physics = 40
                GROUP_QUOTA_group_chemistry = 40";
    let mut slots: Vec<ClassAd> = (1..=10)
        .map(|i| {
            let who = "group_physics.alice";
            slot(i, &format!(r#"State = "Claimed"; AccountingGroup = "{who}@{DOMAIN}"; RemoteUser = "alice@{DOMAIN}""#))
        })
        .collect();
    slots.extend((11..=20).map(|i| slot(i, "")));
    let mut all = physics_chemistry_jobs();
    all.extend(jobs(9, 60, "nobody", None, ""));
    let out = run(&all, &slots, &state_at_now(), &configs(text));
    let t = tally(&out, true);
    assert_eq!(t.get("group_chemistry"), Some(&10), "{t:?}");
    let keys: BTreeMap<&str, f64> = out
        .groups
        .iter()
        .map(|g| (g.name.as_str(), g.sort_key))
        .collect();
    assert!(keys["<none>"] > 1e38);
    // GROUP_SORT_EXPR replaces the order: physics first now.
    let text = format!(
        "{text}\nGROUP_SORT_EXPR = ifThenElse(AccountingGroup =?= \"group_physics\", 1, 2)"
    );
    let t = tally(&run(&all, &slots, &state_at_now(), &configs(&text)), true);
    assert_eq!(t.get("group_physics"), Some(&10), "{t:?}");
}

const PSLOT_POLICY: &str = "
NEGOTIATOR_USE_SLOT_WEIGHTS = True
NEGOTIATOR_CONSIDER_PREEMPTION = False
PREEMPTION_REQUIREMENTS = False
";

#[test]
fn a_ten_core_partitionable_slot_takes_ten_of_fifteen_jobs() {
    let cfg = configs(PSLOT_POLICY);
    let ps = pslot(
        10,
        10240,
        "ConsumptionCpus = quantize(target.RequestCpus, {1});
         ConsumptionMemory = quantize(target.RequestMemory, {128});
         ConsumptionDisk = quantize(target.RequestDisk, {1024}); SlotWeight = Cpus",
    );
    let all = jobs(1, 15, "u", None, "");
    let out = run(&all, std::slice::from_ref(&ps), &state_at_now(), &cfg);
    assert_eq!(out.matches.len(), 10);
    assert!(out
        .matches
        .iter()
        .all(|m| m.slot_name == "slot1@rorschach" && m.cost == 1.0));
    assert_eq!(out.matches[0].consumption[0], ("Cpus".to_string(), 1.0));
    assert_eq!(out.accountant.weighted_resources_used(&user("u")), 10.0);
    // Without consumption expressions the MODIFY_REQUEST_EXPR defaults do the same.
    let plain = pslot(10, 10240, "SlotWeight = Cpus");
    assert_eq!(run(&all, &[plain], &state_at_now(), &cfg).matches.len(), 10);
}

#[test]
fn a_512_mb_memory_quantum_leaves_room_for_three() {
    let cfg = configs(PSLOT_POLICY);
    let ps = pslot(
        10,
        1903,
        "ConsumptionCpus = quantize(target.RequestCpus, {1});
         ConsumptionMemory = quantize(target.RequestMemory, {512});
         ConsumptionDisk = quantize(target.RequestDisk, {1024});
         SlotWeight = floor(Memory / 512)",
    );
    let out = run(&jobs(1, 15, "u", None, ""), &[ps], &state_at_now(), &cfg);
    assert_eq!(out.matches.len(), 3);
    assert!(out.matches.iter().all(|m| m.cost == 1.0));
    let left = &out.slot_ads[0].1;
    assert_eq!(left.eval_attr("Memory").as_int(), Some(1903 - 3 * 512));
}

#[test]
fn a_group_quota_of_one_gets_one_job_from_a_big_slot() {
    let cfg = configs(&format!(
        "{PSLOT_POLICY}
         GROUP_NAMES = a
         GROUP_QUOTA_a = 1
         GROUP_ACCEPT_SURPLUS = False
         GROUP_AUTOREGROUP = False"
    ));
    let ps = pslot(10, 10240, "SlotWeight = Cpus");
    let all = jobs(1, 2, "u", Some("a"), "");
    let out = run(&all, &[ps], &state_at_now(), &cfg);
    assert_eq!(out.matches.len(), 1);
    assert_eq!(out.matches[0].cost, 1.0);
    assert_eq!(out.accountant.weighted_resources_used("a"), 1.0);
}

#[test]
fn custom_resources_are_consumed_like_cpus() {
    let cfg = configs(PSLOT_POLICY);
    let ps = pslot(
        16,
        65536,
        r#"MachineResources = "Cpus Memory Disk GPUs"; GPUs = 2; SlotWeight = Cpus"#,
    );
    let all = jobs(1, 5, "u", None, "RequestGPUs = 1");
    let out = run(&all, &[ps], &state_at_now(), &cfg);
    assert_eq!(out.matches.len(), 2);
    assert!(out.matches[1]
        .consumption
        .contains(&("GPUs".to_string(), 1.0)));
}

#[test]
fn job_priorities_order_a_submitters_jobs_and_unmatchable_ones_do_not_block() {
    let cfg = configs("");
    let mut all = jobs(1, 1, "u", None, "JobPrio = 10; Requirements = false");
    all.extend(jobs(2, 1, "u", None, "JobPrio = 9"));
    all.extend(jobs(3, 1, "u", None, "JobPrio = 20"));
    all.extend(jobs(4, 1, "u", None, "JobPrio = -3"));
    let slots: Vec<ClassAd> = (1..=2).map(|i| slot(i, "")).collect();
    let out = run(&all, &slots, &state_at_now(), &cfg);
    let ids: Vec<i32> = out.matches.iter().map(|m| m.job.cluster).collect();
    assert_eq!(ids, [3, 2]);
    assert_eq!(out.rejections[0].job, JobId::new(1, 0));
    assert_eq!(out.rejections[0].reason.to_string(), "no match found");
}

#[test]
fn a_rejected_autocluster_is_skipped_unless_all_jobs_are_negotiated() {
    let slots: Vec<ClassAd> = (1..=2).map(|i| slot(i, "")).collect();
    let mut all = jobs(1, 5, "u", None, "Requirements = TARGET.Memory > 1000000");
    all.extend(jobs(2, 1, "u", None, ""));
    let cfg = configs("");
    let out = run(&all, &slots, &state_at_now(), &cfg);
    assert_eq!(out.matches.len(), 1);
    // One rejection per pie spin for the whole autocluster.
    let first = out.rejections.iter().filter(|r| r.job.cluster == 1).count();
    assert!(first <= 2, "{:?}", out.rejections);
    let cfg = configs("NEGOTIATE_ALL_JOBS_IN_CLUSTER = True");
    let out = run(&all, &slots, &state_at_now(), &cfg);
    assert_eq!(out.matches.len(), 1);
    let per_job: std::collections::BTreeSet<_> = out
        .rejections
        .iter()
        .filter(|r| r.job.cluster == 1)
        .map(|r| r.job)
        .collect();
    assert_eq!(per_job.len(), 5);
}

#[test]
fn negotiator_pre_job_rank_then_the_job_rank_then_post_job_rank_pick_the_slot() {
    let slots = vec![
        slot(1, "Memory = 1024"),
        slot(2, "Memory = 4096"),
        slot(3, "Memory = 2048"),
    ];
    let big = jobs(1, 1, "u", None, "Rank = TARGET.Memory");
    // HTCondor's default NEGOTIATOR_PRE_JOB_RANK ("... - Memory") comes before the job's
    // Rank: the smallest slot, whatever the job prefers.
    let out = run(&big, &slots, &state_at_now(), &configs(""));
    assert_eq!(out.matches[0].slot_name, "slot1@host");
    // Without it the job's Rank decides.
    let cfg = configs("NEGOTIATOR_PRE_JOB_RANK =");
    let out = run(&big, &slots, &state_at_now(), &cfg);
    assert_eq!(out.matches[0].slot_name, "slot2@host");
    // Equal in everything else: NEGOTIATOR_POST_JOB_RANK's "- SlotID" takes the lowest SlotID.
    let slots = vec![slot(7, ""), slot(3, ""), slot(5, "")];
    let out = run(&jobs(1, 1, "u", None, ""), &slots, &state_at_now(), &cfg);
    assert_eq!(out.matches[0].slot_name, "slot3@host");
}

fn claimed_by(i: usize, who: &str, extra: &str) -> ClassAd {
    slot(
        i,
        &format!(
            r#"State = "Claimed"; Activity = "Busy"; RemoteUser = "{who}"; RemoteOwner = "{who}";
               TotalJobRuntime = 100; {extra}"#
        ),
    )
}

#[test]
fn a_slot_whose_rank_prefers_the_job_is_preempted() {
    let cfg = configs("");
    let slots = vec![claimed_by(
        1,
        &user("bob"),
        r#"Rank = (TARGET.Owner == "alice") * 10; CurrentRank = 0"#,
    )];
    let out = run(
        &jobs(1, 1, "alice", None, ""),
        &slots,
        &state_at_now(),
        &cfg,
    );
    assert_eq!(out.matches.len(), 1);
    assert_eq!(out.matches[0].preempting, Some(PreemptReason::Rank));
    assert_eq!(out.preemptions[0].victim, user("bob"));
    assert_eq!(out.accountant.resources_used(&user("alice")), 1);
    assert_eq!(out.accountant.resources_used(&user("bob")), 0);
    // A slot whose RANK does not prefer the job keeps its job.
    let out = run(
        &jobs(1, 1, "carol", None, ""),
        &slots,
        &state_at_now(),
        &cfg,
    );
    assert!(out.matches.is_empty());
}

#[test]
fn user_priority_preemption_needs_preemption_requirements() {
    let mut state = state_at_now();
    state.set_priority(&user("bob"), 20.0);
    let slots: Vec<ClassAd> = (1..=4).map(|i| claimed_by(i, &user("bob"), "")).collect();
    let alice = jobs(1, 4, "alice", None, "");
    // The default PREEMPTION_REQUIREMENTS is False: nothing happens.
    let out = run(&alice, &slots, &state, &configs(""));
    assert!(out.matches.is_empty());
    assert_eq!(
        out.rejections[0].reason,
        RejectReason::PreemptionRequirements
    );
    // The manual's policy: 20% better priority needed.
    let cfg = configs("PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2");
    let out = run(&alice, &slots, &state, &cfg);
    let n = out.matches.len();
    assert!(n >= 1, "{:?}", out.rejections);
    assert!(out
        .matches
        .iter()
        .all(|m| m.preempting == Some(PreemptReason::UserPriority)));
    assert_eq!(out.preemptions.len(), n);
    // Preemption off: claimed slots are not even considered.
    let cfg = configs("PREEMPTION_REQUIREMENTS = True\nNEGOTIATOR_CONSIDER_PREEMPTION = False");
    assert!(run(&alice, &slots, &state, &cfg).matches.is_empty());
    // Retirement time protects a job unless early preemption is considered.
    let retiring: Vec<ClassAd> = (1..=4)
        .map(|i| claimed_by(i, &user("bob"), "RetirementTimeRemaining = 600"))
        .collect();
    let cfg = configs("PREEMPTION_REQUIREMENTS = True");
    assert!(run(&alice, &retiring, &state, &cfg).matches.is_empty());
    let cfg =
        configs("PREEMPTION_REQUIREMENTS = True\nNEGOTIATOR_CONSIDER_EARLY_PREEMPTION = True");
    assert!(!run(&alice, &retiring, &state, &cfg).matches.is_empty());
}

#[test]
fn concurrency_limits_cap_matches() {
    let cfg = configs("MATLAB_LIMIT = 2\nCONCURRENCY_LIMIT_DEFAULT = 3");
    let slots: Vec<ClassAd> = (1..=10).map(|i| slot(i, "")).collect();
    let mut all = jobs(1, 5, "u", None, r#"ConcurrencyLimits = "matlab""#);
    all.extend(jobs(2, 5, "u", None, r#"ConcurrencyLimits = "other""#));
    let out = run(&all, &slots, &state_at_now(), &cfg);
    assert_eq!(out.matches.iter().filter(|m| m.job.cluster == 1).count(), 2);
    assert_eq!(out.matches.iter().filter(|m| m.job.cluster == 2).count(), 3);
    assert_eq!(out.accountant.limit_in_use("matlab"), 2.0);
    assert!(out
        .rejections
        .iter()
        .any(|r| r.reason.to_string() == "concurrency limit matlab reached"));
}

#[test]
fn ceilings_and_floors() {
    let cfg = configs("");
    let slots: Vec<ClassAd> = (1..=10).map(|i| slot(i, "")).collect();
    let mut state = state_at_now();
    state.set_ceiling(&user("a"), 2);
    let mut all = jobs(1, 10, "a", None, "");
    all.extend(jobs(2, 10, "b", None, ""));
    let t = tally(&run(&all, &slots, &state, &cfg), false);
    assert_eq!(t[&user("a")], 2);
    assert_eq!(t[&user("b")], 8);
    // A floor is served first, whatever the priorities.
    let mut state = state_at_now();
    state.set_priority(&user("b"), 1e6);
    state.set_floor(&user("b"), 6);
    let t = tally(&run(&all, &slots, &state, &cfg), false);
    assert!(t[&user("b")] >= 6, "{t:?}");
}

#[test]
fn a_cycle_is_deterministic_and_publishes_its_statistics() {
    let cfg = configs("");
    let slots: Vec<ClassAd> = (1..=20).map(|i| slot(i, "")).collect();
    let mut all = jobs(1, 15, "a", None, "");
    all.extend(jobs(2, 15, "b", None, "RequestMemory = 2048"));
    all.extend(jobs(3, 15, "c", None, ""));
    let state = state_at_now();
    let one = run(&all, &slots, &state, &cfg);
    let two = run(&all, &slots, &state, &cfg);
    assert_eq!(one.matches, two.matches);
    assert_eq!(one.rejections, two.rejections);
    assert_eq!(one.accountant, two.accountant);
    let mut neg = Negotiator::new(cfg.0.clone(), cfg.1.clone());
    let three = neg.cycle(
        &CycleInput {
            jobs: &all,
            slots: &slots,
        },
        &state,
        NOW,
    );
    assert_eq!(one.matches, three.matches);
    let ad = neg.negotiator_ad("negotiator@host");
    assert_eq!(
        ad.eval_attr("LastNegotiationCycleMatches0").as_int(),
        Some(one.matches.len() as i64)
    );
    assert_eq!(
        ad.eval_attr("LastNegotiationCycleTime0").as_int(),
        Some(NOW)
    );
    assert_eq!(
        ad.eval_attr("LastNegotiationCycleTotalSlots0").as_int(),
        Some(20)
    );
    assert_eq!(
        ad.eval_attr("LastNegotiationCycleActiveSubmitterCount0")
            .as_int(),
        Some(3)
    );
    assert!(ad.lookup("LastNegotiationCycleRejections0").is_some());
    assert!(ad.lookup("LastNegotiationCyclePieSpins0").is_some());
    let _ = Expr::lit(0i64);
}

#[test]
fn current_time_is_the_cycles_clock() {
    // The cycle runs at NOW (2023); the wall clock is later. A START that only holds at NOW
    // matches only if CurrentTime is the cycle's time, on both sides of the match.
    let cfg = configs("");
    let until = NOW + 100;
    let slots = vec![slot(1, &format!("START = CurrentTime < {until}"))];
    let all = jobs(
        1,
        1,
        "u",
        None,
        &format!("Requirements = CurrentTime < {until}"),
    );
    assert_eq!(run(&all, &slots, &state_at_now(), &cfg).matches.len(), 1);
    let late = negotiate(
        &CycleInput {
            jobs: &all,
            slots: &slots,
        },
        &state_at_now(),
        &cfg.1,
        &cfg.0,
        until + 1,
    );
    assert!(late.matches.is_empty());
}

#[test]
fn what_the_negotiator_keeps_between_cycles_changes_nothing() {
    let cfg = configs("");
    let mut neg = Negotiator::new(cfg.0.clone(), cfg.1.clone());
    let mut slots: Vec<ClassAd> = (1..=6).map(|i| slot(i, "")).collect();
    let fits = "Requirements = TARGET.Memory >= RequestMemory";
    let mut all = jobs(1, 4, "a", None, &format!("RequestMemory = 512; {fits}"));
    all.extend(jobs(
        2,
        4,
        "b",
        None,
        &format!("RequestMemory = 2048; {fits}"),
    ));
    let state = state_at_now();
    let same = |neg: &mut Negotiator, all: &[IdleJob], slots: &[ClassAd]| {
        let cached = neg.cycle(&CycleInput { jobs: all, slots }, &state, NOW);
        let fresh = negotiate(
            &CycleInput { jobs: all, slots },
            &state,
            &cfg.1,
            &cfg.0,
            NOW,
        );
        assert_eq!(
            cached
                .matches
                .iter()
                .map(|m| (m.job, m.slot))
                .collect::<Vec<_>>(),
            fresh
                .matches
                .iter()
                .map(|m| (m.job, m.slot))
                .collect::<Vec<_>>()
        );
        cached.matches.len()
    };
    assert_eq!(same(&mut neg, &all, &slots), 4);
    // Jobs in another order, one job changed so that it now fits, a slot changed.
    all.reverse();
    all[0].ad.insert("RequestMemory", Expr::lit(100i64));
    slots[2].insert("Memory", Expr::lit(4096i64));
    assert_eq!(same(&mut neg, &all, &slots), 6);
    // Jobs gone, slots gone.
    all.truncate(3);
    slots.truncate(2);
    assert_eq!(same(&mut neg, &all, &slots), 1);
}
