//! Properties of negotiation cycles over random pools.

use std::collections::{BTreeMap, BTreeSet};

use condorlite::accountant::AccountantState;
use condorlite::classad::ClassAd;
use condorlite::negotiator::{CycleInput, IdleJob, Negotiator};
use proptest::prelude::*;

use super::{configs, jobs, pslot, run, slot, tally, DOMAIN, NOW};

#[derive(Clone, Debug)]
struct Pool {
    slots: Vec<(i64, i64, Option<usize>)>,
    pslots: Vec<(i64, i64)>,
    users: Vec<(usize, i64, i64)>,
    preempt: bool,
}

fn pool() -> impl Strategy<Value = Pool> {
    (
        prop::collection::vec(
            (1i64..=4, 512i64..=8192, prop::option::of(0usize..3)),
            0..24,
        ),
        prop::collection::vec((1i64..=16, 1024i64..=16384), 0..3),
        prop::collection::vec((0usize..8, 64i64..=4096, 1i64..=4), 1..4),
        any::<bool>(),
    )
        .prop_map(|(slots, pslots, users, preempt)| Pool {
            slots,
            pslots,
            users,
            preempt,
        })
}

const NAMES: [&str; 3] = ["ann", "ben", "cat"];

fn build(p: &Pool) -> (Vec<IdleJob>, Vec<ClassAd>) {
    let mut ads = Vec::new();
    for (i, (cpus, mem, claimed)) in p.slots.iter().enumerate() {
        let mut extra = format!("Cpus = {cpus}; Memory = {mem}");
        if let Some(u) = claimed {
            extra.push_str(&format!(
                r#"; State = "Claimed"; Activity = "Busy"; RemoteUser = "{}@{DOMAIN}"; RemoteOwner = "x""#,
                NAMES[*u]
            ));
        }
        ads.push(slot(i + 1, &extra));
    }
    for (i, (cpus, mem)) in p.pslots.iter().enumerate() {
        let mut ad = pslot(*cpus, *mem, "SlotWeight = Cpus");
        ad.insert(
            "Name",
            condorlite::classad::Expr::lit(format!("pslot{i}@host").as_str()),
        );
        ads.push(ad);
    }
    let mut all = Vec::new();
    for (u, (n, mem, cpus)) in p.users.iter().enumerate() {
        all.extend(jobs(
            u as i32 + 1,
            *n,
            NAMES[u],
            None,
            &format!("RequestMemory = {mem}; RequestCpus = {cpus}; Requirements = TARGET.Memory >= RequestMemory && TARGET.Cpus >= RequestCpus"),
        ));
    }
    (all, ads)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn no_slot_is_matched_twice_and_no_slot_is_overdrawn(p in pool()) {
        let cfg = configs(if p.preempt {
            "PREEMPTION_REQUIREMENTS = True"
        } else {
            "NEGOTIATOR_CONSIDER_PREEMPTION = False"
        });
        let (all, ads) = build(&p);
        let out = run(&all, &ads, &AccountantState { last_update_time: NOW, ..Default::default() }, &cfg);
        let mut whole = BTreeSet::new();
        let mut jobs_seen = BTreeSet::new();
        for m in &out.matches {
            prop_assert!(jobs_seen.insert(m.job), "job {} matched twice", m.job);
            if m.consumption.is_empty() {
                prop_assert!(whole.insert(m.slot), "slot {} matched twice", m.slot_name);
            }
            let job = all.iter().find(|j| j.id == m.job).unwrap();
            let ad = &ads[m.slot];
            if m.consumption.is_empty() {
                prop_assert!(ad.eval_attr("Memory").as_int() >= job.ad.eval_attr("RequestMemory").as_int());
            }
            if !p.preempt {
                prop_assert!(m.preempting.is_none());
            }
        }
        for (i, ad) in &out.slot_ads {
            for r in ["Cpus", "Memory", "Disk"] {
                prop_assert!(ad.eval_attr(r).as_number_real().unwrap() >= 0.0, "{} overdrawn on {}", r, i);
            }
        }
        // Same inputs, same cycle.
        let again = run(&all, &ads, &AccountantState { last_update_time: NOW, ..Default::default() }, &cfg);
        prop_assert_eq!(&out.matches, &again.matches);
    }

    #[test]
    fn group_quotas_are_not_exceeded_without_surplus(
        quotas in prop::collection::vec(0u32..12, 1..4),
        demand in prop::collection::vec(0usize..20, 4),
        nslots in 1usize..30,
    ) {
        let names: Vec<String> = (0..quotas.len()).map(|i| format!("g{i}")).collect();
        let mut text = format!(
            "GROUP_NAMES = {}\nNEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = False\nGROUP_ACCEPT_SURPLUS = False\n",
            names.join(", ")
        );
        for (n, q) in names.iter().zip(&quotas) {
            text.push_str(&format!("GROUP_QUOTA_{n} = {q}\n"));
        }
        let cfg = configs(&text);
        let ads: Vec<ClassAd> = (1..=nslots).map(|i| slot(i, "")).collect();
        let mut all = Vec::new();
        for (i, n) in names.iter().enumerate() {
            all.extend(jobs(i as i32 + 1, demand[i], "u", Some(n), ""));
        }
        all.extend(jobs(99, demand[3], "nogroup", None, ""));
        let out = run(&all, &ads, &AccountantState { last_update_time: NOW, ..Default::default() }, &cfg);
        let t = tally(&out, true);
        let total: usize = t.values().sum();
        prop_assert!(total <= nslots);
        for g in &out.groups {
            // `<none>` always takes surplus; the others were configured not to.
            if g.name == "<none>" {
                continue;
            }
            let got = *t.get(&g.name).unwrap_or(&0) as f64;
            prop_assert!(got <= g.quota.floor() + 1e-9, "{} got {} over quota {}", g.name, got, g.quota);
            prop_assert!(g.quota <= g.config_quota + 1e-9);
        }
    }

    #[test]
    fn shares_converge_to_the_inverse_of_effective_priorities(
        factors in prop::collection::vec(1u32..=8, 2..4),
    ) {
        // Short jobs: every cycle, every slot is free again and every user wants more than
        // the pool. Priorities follow usage; the allocation must settle where each user's
        // share of the pool is its 1/EUP over the sum.
        let cfg = configs("PRIORITY_HALFLIFE = 600\nNEGOTIATOR_CONSIDER_PREEMPTION = False");
        let n = 40usize;
        let ads: Vec<ClassAd> = (1..=n).map(|i| slot(i, "")).collect();
        let mut state = AccountantState { last_update_time: NOW, ..Default::default() };
        for (u, f) in factors.iter().enumerate() {
            state.set_priority_factor(&format!("{}@{DOMAIN}", NAMES[u]), *f as f64);
        }
        let mut all = Vec::new();
        for (u, name) in NAMES.iter().enumerate().take(factors.len()) {
            all.extend(jobs(u as i32 + 1, n, name, None, ""));
        }
        let mut neg = Negotiator::new(cfg.0.clone(), cfg.1.clone());
        let mut now = NOW;
        let mut last = BTreeMap::new();
        for _ in 0..60 {
            now += 120;
            // The previous cycle's jobs ran until now; the slots are free again.
            let out = neg.cycle(&CycleInput { jobs: &all, slots: &ads }, &state, now);
            state = out.accountant.clone();
            last = out.matches.iter().map(|m| (m.slot, m.submitter.to_string())).collect();
        }
        let eups: Vec<f64> = (0..factors.len())
            .map(|u| state.priority(&cfg.1, &format!("{}@{DOMAIN}", NAMES[u])))
            .collect();
        let inv: f64 = eups.iter().map(|e| 1.0 / e).sum();
        let mut got = vec![0usize; factors.len()];
        for who in last.values() {
            got[NAMES.iter().position(|n| who.starts_with(n)).unwrap()] += 1;
        }
        // Crumbs (what is left of each share after its whole slots, less than a slot for
        // anyone) may stay unclaimed in a cycle, as in HTCondor.
        prop_assert!(got.iter().sum::<usize>() >= n - factors.len(), "{:?} {:?} {:?}", got, eups, factors);
        for u in 0..factors.len() {
            let want = n as f64 * (1.0 / eups[u]) / inv;
            prop_assert!((got[u] as f64 - want).abs() <= 1.5, "user {} got {} want {:.2} ({:?})", u, got[u], want, eups);
        }
        // And the priorities have settled: each real priority is the usage it charges.
        for u in 0..factors.len() {
            let rup = state.real_priority(&format!("{}@{DOMAIN}", NAMES[u]));
            prop_assert!((rup - got[u] as f64).abs() <= 1.5, "user {} RUP {:.2} uses {}", u, rup, got[u]);
        }
    }
}
