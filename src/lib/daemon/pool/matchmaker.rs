//! The matchmaker: claims and their reuse, negotiation cycles, preemptions, the accountant,
//! defragmentation.

use super::*;

/// The matchmaker's state: the negotiator and the accountant, the schedd's claims, the
/// preemptions under way, the defrag daemon.
pub(super) struct Matchmaking {
    pub(super) negotiator: Negotiator,
    pub(super) accountant: Accountant,
    /// A negotiation cycle's accounting, not yet written (see [`Pool::flush_accountant`]).
    pub(super) pending_accountant: Option<crate::accountant::AccountantState>,
    /// The claims the last [`Pool::check_matches`] set, and the accountant's generation
    /// after it: the same claims on an unchanged accountant need no second pass.
    pub(super) checked_claims: Option<(Vec<SlotClaim>, u64)>,
    /// The schedd's claims, by slot name.
    pub(super) claims: HashMap<String, Claim>,
    /// Idle jobs that preempted running ones, with the slots they wait for: they are not
    /// negotiated for again until those claims end.
    pub(super) preempting: HashMap<JobId, Vec<String>>,
    /// `condor_now`: the slots whose vacated jobs' claims go to a now-job, by slot.
    pub(super) now_jobs: HashMap<String, JobId>,
    /// The defrag daemon's policy, when `DAEMON_LIST` names `DEFRAG`.
    pub(super) defrag: Option<Defrag>,
    /// Negotiation cycles run.
    pub(super) cycles: u64,
}

/// A claim on a slot: a submitter holds it between jobs.
#[derive(Clone, Debug)]
pub(super) struct Claim {
    pub(super) submitter: Arc<str>,
    /// The accountant's resource name.
    pub(super) resource: String,
    pub(super) job: Option<JobId>,
}

pub(super) fn job_key(id: JobId) -> negotiator::JobId {
    negotiator::JobId::new(id.cluster.0, id.proc)
}

pub(super) fn from_key(id: negotiator::JobId) -> JobId {
    JobId::new(id.cluster, id.proc)
}

/// The defrag daemon's policy, when the configuration runs it.
pub(super) fn defrag_of(config: &Config, host: &str) -> Result<Option<Defrag>, DaemonError> {
    if !DefragConfig::enabled(config) {
        return Ok(None);
    }
    Ok(Some(Defrag::new(DefragConfig::from_config(config, host)?)))
}

impl Pool {
    /// A defrag poll (`DEFRAG_INTERVAL`): its drains and cancels go to the startd, whose
    /// policy then runs.
    pub(super) fn defrag(&mut self, now: Now) -> Vec<Action> {
        let t = now.t;
        let Some(defrag) = self.matchmaker.defrag.as_mut() else {
            return Vec::new();
        };
        let interval = defrag.config.interval;
        if interval <= 0 {
            self.timers.next_defrag = now.after(Duration::from_secs(3600));
            return Vec::new();
        }
        self.timers.next_defrag = now.after(Duration::from_secs(interval as u64));
        self.startd.refresh(t);
        let slots = self.startd.slot_ads();
        // On one host, draining is for a job that waits: one that the whole machine could
        // run but the partitionable slots, as fragmented, cannot. Without one the poll is
        // skipped (a pool's defrag drains at its rate whatever the queue holds).
        let pslots = || {
            slots
                .iter()
                .filter(|a| lookup_bool(a, "PartitionableSlot") == Some(true))
        };
        let free = pslots()
            .filter_map(|a| lookup_int(a, "Cpus"))
            .max()
            .unwrap_or(0);
        let whole = pslots()
            .filter_map(|a| lookup_int(a, "TotalSlotCpus"))
            .max()
            .unwrap_or(0);
        let waiting = self.schedd.idle.jobs.values().any(|j| {
            let cpus = lookup_int(&j.ad, "RequestCpus").unwrap_or(1);
            cpus > free && cpus <= whole && !cooling_down(&j.ad, t)
        });
        let actions = if waiting {
            defrag.poll(&slots, t)
        } else {
            Vec::new()
        };
        for action in actions {
            match action {
                DefragAction::Drain { machine, request } => match self.startd.drain(request, t) {
                    Ok(id) => tracing::info!("defrag: draining {machine} (request {id})"),
                    Err(e) => tracing::info!("defrag: failed to drain {machine}: {e}"),
                },
                DefragAction::Cancel { machine } => {
                    tracing::info!("defrag: cancelling the draining of {machine}");
                    if let Err(e) = self.startd.cancel_drain(None, t) {
                        tracing::info!("defrag: failed to cancel draining on {machine}: {e}");
                    }
                    self.timers.negotiate_now = true;
                }
            }
        }
        vec![Action::EvaluateStartd]
    }

    /// Claims without a job take their submitter's next fitting job (the starts, for the
    /// shadow), or are released.
    pub(super) fn reuse_claims(&mut self, now: Now) -> Vec<Action> {
        let t = now.t;
        let mut free: Vec<(String, Arc<str>)> = self
            .matchmaker
            .claims
            .iter()
            .filter(|(_, c)| c.job.is_none())
            .map(|(s, c)| (s.clone(), c.submitter.clone()))
            .collect();
        free.sort();
        let mut starts = Vec::new();
        let mut taken = BTreeSet::new();
        for (slot, submitter) in free {
            let next = self
                .schedd
                .idle
                .of(&submitter)
                .map(|j| from_key(j.id))
                .filter(|id| !taken.contains(id))
                .find(|id| {
                    let ad = &self.schedd.idle.jobs[id].ad;
                    !cooling_down(ad, t) && self.startd.may_reuse(&slot, ad, t)
                });
            match next {
                Some(job) => {
                    taken.insert(job);
                    starts.push(Action::Start { job, slot });
                }
                None => self.release_claim(&slot, t),
            }
        }
        starts
    }

    pub(super) fn release_idle_claims(&mut self, t: i64) {
        let free: Vec<String> = self
            .matchmaker
            .claims
            .iter()
            .filter(|(_, c)| c.job.is_none())
            .map(|(s, _)| s.clone())
            .collect();
        for slot in free {
            self.release_claim(&slot, t);
        }
    }

    pub(super) fn release_all_claims(&mut self, now: Now) {
        let t = now.t;
        let all: Vec<String> = self.matchmaker.claims.keys().cloned().collect();
        for slot in all {
            self.release_claim(&slot, t);
        }
    }

    pub(super) fn release_claim(&mut self, slot: &str, t: i64) {
        if self.matchmaker.claims.contains_key(slot) {
            self.startd.release(slot, t);
        }
        self.forget_claim(slot, t);
    }

    /// Drops the schedd's side of a claim the startd no longer has, and the accountant's
    /// match.
    pub(super) fn forget_claim(&mut self, slot: &str, t: i64) {
        let Some(claim) = self.matchmaker.claims.remove(slot) else {
            return;
        };
        self.flush_accountant();
        let resource = claim.resource;
        if let Err(e) = self
            .matchmaker
            .accountant
            .update(|s, cfg| s.remove_match(cfg, &resource, t))
        {
            tracing::error!("accountant: {e}");
        }
        // A job waiting for this slot's job to be preempted may be matched again.
        self.matchmaker.now_jobs.remove(slot);
        for victims in self.matchmaker.preempting.values_mut() {
            victims.retain(|v| v != slot);
        }
        self.matchmaker
            .preempting
            .retain(|_, victims| !victims.is_empty());
        self.timers.negotiate_now = true;
    }

    /// Forgets the preemptions of jobs no longer idle (started elsewhere, removed, held):
    /// their victims stop retiring for them (HTCondor's #19).
    pub(super) fn prune_preemptions(&mut self, t: i64) {
        let gone: Vec<JobId> = self
            .matchmaker
            .preempting
            .keys()
            .filter(|id| !self.schedd.idle.jobs.contains_key(id))
            .copied()
            .collect();
        for id in gone {
            for victim in self.matchmaker.preempting.remove(&id).unwrap_or_default() {
                if let Err(e) = self.startd.withdraw_preemption(&victim, t) {
                    tracing::debug!("withdrawing the preemption of {victim}: {e}");
                }
            }
        }
    }

    /// Writes a negotiation cycle's accounting, when it waits (see [`Pool::negotiate`]).
    pub(super) fn flush_accountant(&mut self) {
        if let Some(next) = self.matchmaker.pending_accountant.take() {
            if let Err(e) = self.matchmaker.accountant.commit(next) {
                tracing::error!("accountant: {e}");
            }
        }
    }

    /// Sets the accountant's matches to the claims the slots have (HTCondor's CheckMatches).
    pub(super) fn check_matches(&mut self, slots: &[ClassAd], t: i64) {
        let claims: Vec<SlotClaim> = slots
            .iter()
            .map(|a| SlotClaim::from_ad(a, self.matchmaker.accountant.config()))
            .collect();
        let generation = self.matchmaker.accountant.generation();
        if self
            .matchmaker
            .checked_claims
            .as_ref()
            .is_some_and(|(c, g)| *g == generation && *c == claims)
        {
            return;
        }
        match self
            .matchmaker
            .accountant
            .update(|s, cfg| s.check_matches(cfg, &claims, t))
        {
            Ok(()) => {
                self.matchmaker.checked_claims =
                    Some((claims, self.matchmaker.accountant.generation()))
            }
            Err(e) => tracing::error!("accountant: {e}"),
        }
    }

    /// A negotiation cycle over the idle jobs and the slots: the slots its matches claimed,
    /// with the jobs to start on them (for the shadow). The cycle's accounting waits for
    /// the starts ([`Pool::flush_accountant`]).
    pub(super) fn negotiate(&mut self, now: Now) -> Result<Vec<Action>, DaemonError> {
        let t = now.t;
        self.prune_preemptions(t);
        if self.schedd.idle.jobs.is_empty() {
            return Ok(Vec::new());
        }
        // With no slot free, only a periodic cycle may preempt (when preemption is
        // considered at all): a wake-up alone does not cost a cycle.
        let preempt_only = !self.startd.has_free_resources();
        if preempt_only
            && !(self.matchmaker.negotiator.config().consider_preemption
                && now.at >= self.timers.next_negotiation)
        {
            return Ok(Vec::new());
        }
        self.startd.refresh(t);
        let slots = self.startd.slot_ads();
        // What condor_userprio changed, and the matches as the slots have them now
        // (HTCondor's CheckMatches): claims that ended or were never recorded.
        if let Err(e) = self.matchmaker.accountant.reload() {
            tracing::error!("accountant: {e}");
        }
        self.check_matches(&slots, t);
        self.assign_autoclusters(&slots)?;
        let jobs: Vec<IdleJob> = self
            .schedd
            .idle
            .jobs
            .values()
            // A job that preempted a slot waits for it rather than preempting another.
            .filter(|j| {
                !cooling_down(&j.ad, t) && !self.matchmaker.preempting.contains_key(&from_key(j.id))
            })
            .cloned()
            .collect();
        let input = CycleInput {
            jobs: &jobs,
            slots: &slots,
        };
        let outcome =
            self.matchmaker
                .negotiator
                .cycle(&input, self.matchmaker.accountant.state(), t);
        self.matchmaker.cycles += 1;
        // The cycle's accounting is written once its matches have started their jobs: the
        // write (and its fsync) is off the path from a submit to the job's start. Anything
        // that touches the accountant meanwhile (a claim released because its job could not
        // start) writes it first, so the order of the changes is the same.
        self.matchmaker.pending_accountant = Some(outcome.accountant.clone());
        let mut starts = Vec::new();
        let mut had_preemption = false;
        for m in outcome.matches {
            if let Some(why) = m.preempting {
                // The running job retires, then is vacated; the slot is matched again once
                // it is free (the startd does not hand it over to this match itself).
                // With ALLOW_PSLOT_PREEMPTION the match names the partitionable slot and
                // the dynamic slots to free on it.
                let by_rank = why == negotiator::PreemptReason::Rank;
                let victims: Vec<String> = if m.preempted_dslots.is_empty() {
                    vec![m.slot_name.clone()]
                } else {
                    m.preempted_dslots
                        .iter()
                        .filter_map(|&i| lookup_str(&slots[i], "Name").map(|n| n.to_string()))
                        .collect()
                };
                let mut preempted = Vec::new();
                for victim in victims {
                    let busy = self
                        .matchmaker
                        .claims
                        .get(&victim)
                        .is_some_and(|c| c.job.is_some());
                    if busy {
                        match self.startd.preempt(&victim, by_rank, t) {
                            Ok(()) => preempted.push(victim),
                            Err(e) => tracing::warn!("preempting {victim}: {e}"),
                        }
                    }
                }
                if !preempted.is_empty() {
                    self.matchmaker
                        .preempting
                        .insert(from_key(m.job), preempted);
                    had_preemption = true;
                }
                continue;
            }
            let id = from_key(m.job);
            let Some(job) = self.schedd.idle.jobs.get(&id) else {
                continue;
            };
            let ad = job.ad.clone();
            let slot_ad = &slots[m.slot];
            let resource = resource_name(slot_ad);
            match self.startd.claim(&m.slot_name, &ad, &m.consumption, t) {
                Ok(claimed) => {
                    let resource = if claimed == m.slot_name {
                        resource
                    } else {
                        claimed.clone()
                    };
                    self.matchmaker.claims.insert(
                        claimed.clone(),
                        Claim {
                            submitter: m.submitter.clone(),
                            resource,
                            job: None,
                        },
                    );
                    self.journal
                        .changes
                        .expecting(id, JobStatus::Idle)
                        .update
                        .set("LastMatchTime", Expr::lit(t));
                    starts.push(Action::Start {
                        job: id,
                        slot: claimed,
                    });
                }
                Err(e) => tracing::warn!("claiming {} for job {id}: {e}", m.slot_name),
            }
        }
        if had_preemption {
            self.flush_accountant();
            // The cycle charged each preempting match to its submitter, but the victims
            // keep their slots while they retire: the accountant is set back to the claims
            // as the slots have them (HTCondor's CheckMatches).
            let slots = self.startd.slot_ads();
            self.check_matches(&slots, t);
        }
        for r in outcome.rejections {
            let id = from_key(r.job);
            if self.schedd.idle.jobs.contains_key(&id) {
                let update = &mut self.journal.changes.expecting(id, JobStatus::Idle).update;
                update.set(
                    "LastRejMatchReason",
                    Expr::lit(r.reason.to_string().as_str()),
                );
                update.set("LastRejMatchTime", Expr::lit(t));
            }
        }
        Ok(starts)
    }
}
