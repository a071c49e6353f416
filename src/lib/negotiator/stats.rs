//! Negotiation cycle statistics, published in the negotiator ad as HTCondor's
//! `Matchmaker::publishNegotiationCycleStats` does (`LastNegotiationCycleMatches0`, ...).

use std::collections::BTreeSet;

use crate::classad::{ClassAd, Expr};

/// What one cycle did (HTCondor's `NegotiationCycleStats`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CycleStats {
    /// When the cycle started and ended (the cycle's clock).
    pub start_time: i64,
    pub end_time: i64,
    /// Wall-clock seconds the computation took, and its phases (phase 1, obtaining ads, is the
    /// caller's; phase 2 is accounting, 3 sorting submitters, 4 matchmaking).
    pub duration: f64,
    pub duration_phase1: f64,
    pub duration_phase2: f64,
    pub duration_phase3: f64,
    pub duration_phase4: f64,
    pub total_slots: usize,
    pub trimmed_slots: usize,
    pub candidate_slots: usize,
    pub slot_share_iterations: usize,
    pub num_idle_jobs: usize,
    pub num_jobs_considered: usize,
    pub matches: usize,
    pub rejections: usize,
    pub pies: usize,
    pub pie_spins: usize,
    pub active_submitters: BTreeSet<String>,
    pub submitters_share_limit: BTreeSet<String>,
    pub submitters_out_of_time: BTreeSet<String>,
    pub submitters_failed: BTreeSet<String>,
    pub schedds_out_of_time: BTreeSet<String>,
    pub num_schedulers: usize,
    /// Autoclusters and (autocluster, slot) evaluations, for benchmarking.
    pub autoclusters: usize,
    pub evaluations: u64,
    pub evaluation_lookups: u64,
}

impl CycleStats {
    /// Writes the statistics of `history` (most recent first) into `ad`, one numbered set of
    /// attributes per cycle.
    pub fn publish(history: &[CycleStats], ad: &mut ClassAd) {
        for (i, s) in history.iter().enumerate() {
            let period = history
                .get(i + 1)
                .map_or(0, |older| s.end_time - older.end_time);
            let int = |ad: &mut ClassAd, name: &str, v: i64| {
                ad.insert(&format!("{name}{i}"), Expr::lit(v));
            };
            let real = |ad: &mut ClassAd, name: &str, v: f64| {
                ad.insert(&format!("{name}{i}"), Expr::lit(v));
            };
            let list = |ad: &mut ClassAd, name: &str, v: &BTreeSet<String>| {
                let joined = v.iter().cloned().collect::<Vec<_>>().join(", ");
                ad.insert(&format!("{name}{i}"), Expr::lit(joined.as_str()));
            };
            int(ad, "LastNegotiationCycleTime", s.start_time);
            int(ad, "LastNegotiationCycleEnd", s.end_time);
            int(ad, "LastNegotiationCyclePeriod", period);
            int(ad, "LastNegotiationCycleDuration", s.duration as i64);
            int(
                ad,
                "LastNegotiationCyclePhase1Duration",
                s.duration_phase1 as i64,
            );
            int(
                ad,
                "LastNegotiationCyclePhase2Duration",
                s.duration_phase2 as i64,
            );
            int(
                ad,
                "LastNegotiationCyclePhase3Duration",
                s.duration_phase3 as i64,
            );
            int(
                ad,
                "LastNegotiationCyclePhase4Duration",
                s.duration_phase4 as i64,
            );
            int(ad, "LastNegotiationCycleTotalSlots", s.total_slots as i64);
            int(
                ad,
                "LastNegotiationCycleTrimmedSlots",
                s.trimmed_slots as i64,
            );
            int(
                ad,
                "LastNegotiationCycleCandidateSlots",
                s.candidate_slots as i64,
            );
            int(
                ad,
                "LastNegotiationCycleSlotShareIter",
                s.slot_share_iterations as i64,
            );
            int(
                ad,
                "LastNegotiationCycleNumSchedulers",
                s.num_schedulers as i64,
            );
            int(
                ad,
                "LastNegotiationCycleNumIdleJobs",
                s.num_idle_jobs as i64,
            );
            int(
                ad,
                "LastNegotiationCycleNumJobsConsidered",
                s.num_jobs_considered as i64,
            );
            int(ad, "LastNegotiationCycleMatches", s.matches as i64);
            int(ad, "LastNegotiationCycleRejections", s.rejections as i64);
            let duration = s.duration as i64;
            real(
                ad,
                "LastNegotiationCycleMatchRate",
                if duration > 0 {
                    s.matches as f64 / duration as f64
                } else {
                    0.0
                },
            );
            real(
                ad,
                "LastNegotiationCycleMatchRateSustained",
                if period > 0 {
                    s.matches as f64 / period as f64
                } else {
                    0.0
                },
            );
            int(
                ad,
                "LastNegotiationCycleActiveSubmitterCount",
                s.active_submitters.len() as i64,
            );
            int(ad, "LastNegotiationCyclePies", s.pies as i64);
            int(ad, "LastNegotiationCyclePieSpins", s.pie_spins as i64);
            int(ad, "LastNegotiationCyclePrefetchDuration", 0);
            real(ad, "LastNegotiationCyclePrefetchCpuTime", 0.0);
            real(ad, "LastNegotiationCycleCpuTime", s.duration);
            real(ad, "LastNegotiationCyclePhase1CpuTime", s.duration_phase1);
            real(ad, "LastNegotiationCyclePhase2CpuTime", s.duration_phase2);
            real(ad, "LastNegotiationCyclePhase3CpuTime", s.duration_phase3);
            real(ad, "LastNegotiationCyclePhase4CpuTime", s.duration_phase4);
            list(
                ad,
                "LastNegotiationCycleScheddsOutOfTime",
                &s.schedds_out_of_time,
            );
            list(
                ad,
                "LastNegotiationCycleSubmittersFailed",
                &s.submitters_failed,
            );
            list(
                ad,
                "LastNegotiationCycleSubmittersOutOfTime",
                &s.submitters_out_of_time,
            );
            list(
                ad,
                "LastNegotiationCycleSubmittersShareLimit",
                &s.submitters_share_limit,
            );
        }
    }
}
