//! The schedd's `REASSIGN_SLOT` (`condor_now`, src/condor_schedd.V6/schedd.cpp
//! `Scheduler::reassign_slot_handler`): an idle job starts at once on the slot of a running
//! job, which is vacated for it. The victims are vacated fast and keep their claims; when a
//! victim's run has ended, its claim goes to the now-job rather than back to the startd
//! ([`Pool::claim_for_now_job`]), whatever the negotiator would have chosen. Meanwhile the
//! negotiator leaves the now-job alone, as it leaves a job that preempted a slot.
//!
//! The tool has checked the jobs' owners and universes against the queue; the schedd checks
//! again here that the now-job is idle and each victim running, with 24.0's messages.

use super::*;

impl Pool {
    /// `REASSIGN_SLOT`: `bid` is to run on the slots of `victims`; the error is the reply's
    /// `ErrorString`.
    pub(super) fn reassign_slot(
        &mut self,
        bid: JobId,
        victims: &[JobId],
        now: Now,
    ) -> Result<(String, Vec<Action>), String> {
        if victims.is_empty() {
            return Err("invalid vacate-job ID list".into());
        }
        if !self.schedd.idle.jobs.contains_key(&bid) {
            return Err("the now-job must be idle".into());
        }
        if self.matchmaker.now_jobs.values().any(|&j| j == bid) {
            return Err("the now-job must not already be scheduled to run immediately".into());
        }
        let mut slots = Vec::with_capacity(victims.len());
        for victim in victims {
            match self.shadow.running.get(victim) {
                Some(r) if r.stop.is_none() && r.suspended.is_none() => slots.push(r.slot.clone()),
                Some(_) => return Err("vacate-job must be running".into()),
                None => return Err("no match for vacate-job ID".into()),
            }
        }
        for (victim, slot) in victims.iter().zip(&slots) {
            self.matchmaker.now_jobs.insert(slot.clone(), bid);
            self.signal_job(*victim, JobSignal::VacateFast, now);
        }
        tracing::info!("REASSIGN_SLOT: to {bid} from {victims:?}");
        // Not negotiated for while it waits for its slots.
        self.matchmaker.preempting.insert(bid, slots);
        Ok((String::new(), Vec::new()))
    }

    /// When a run on `slot` has ended with the claim kept: the start of the now-job waiting
    /// for that slot, if one is and it is still idle (`None`: the claim goes its usual way).
    pub(super) fn claim_for_now_job(&mut self, slot: &str) -> Option<Action> {
        let bid = self.matchmaker.now_jobs.remove(slot)?;
        self.matchmaker.now_jobs.retain(|_, j| *j != bid);
        self.matchmaker.preempting.remove(&bid);
        let submitter = self.schedd.idle.jobs.get(&bid)?.submitter.clone();
        let claim = self.matchmaker.claims.get_mut(slot)?;
        claim.submitter = submitter;
        claim.job = None;
        tracing::info!("REASSIGN_SLOT: {slot} goes to job {bid}");
        Some(Action::Start {
            job: bid,
            slot: slot.to_owned(),
        })
    }
}
