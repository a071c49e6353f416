//! A slot and the claim on it: what HTCondor's `Resource` and `Claim` objects hold
//! (src/condor_startd.V6/Resource.cpp, claim.cpp), without the networking.

use super::layout::Resources;
use super::state::{Activity, State, StateMachine};
use crate::classad::{ClassAd, Expr, Value};

/// What kind of slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    Static,
    Partitionable,
    Dynamic,
}

impl SlotKind {
    /// `SlotType` as HTCondor publishes it.
    pub fn name(self) -> &'static str {
        match self {
            SlotKind::Static => "Static",
            SlotKind::Partitionable => "Partitionable",
            SlotKind::Dynamic => "Dynamic",
        }
    }
}

/// A claim: who holds the slot, for which job, since when.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The claim id (`<address>#<startd start>#<sequence>#<secret>`).
    pub id: String,
    /// The job (or resource request) the claim is for; the current job once activated.
    pub job: ClassAd,
    /// The slot's `Rank` for the job (`CurrentRank`).
    pub rank: f64,
    /// `RemoteUser`: the job's `User`.
    pub user: Option<String>,
    /// `RemoteOwner`: the job's `Owner` when the claim began.
    pub owner: Option<String>,
    /// The job's `AccountingGroup`.
    pub accounting_group: Option<String>,
    /// `ClientMachine`: the host of the claiming schedd.
    pub client_machine: String,
    /// `RemoteScheddName`.
    pub schedd_name: Option<String>,
    pub concurrency_limits: Option<String>,
    pub remote_group: Option<String>,
    pub negotiating_group: Option<String>,
    pub autoregroup: Option<bool>,
    /// When the claim began.
    pub started: i64,
    /// How many jobs have started on the claim.
    pub activations: u32,
    /// When the current job started (`JobStart`); `None` between jobs.
    pub job_start: Option<i64>,
    /// When the claim entered its current running/suspended/idle stretch.
    pub entered: i64,
    /// The current job is suspended (since `entered`).
    pub suspended: bool,
    /// Seconds the current job has run before `entered` (suspensions excluded).
    pub job_run_time: i64,
    /// Seconds the current job has been suspended before `entered`.
    pub job_suspend_time: i64,
    /// Seconds jobs have run on this claim before `entered`.
    pub claim_run_time: i64,
    /// Seconds jobs have been suspended on this claim before `entered`.
    pub claim_suspend_time: i64,
    /// Reported by the starter: `CpusUsage` and `ImageSize` of the current job.
    pub cpus_usage: f64,
    pub image_size: Option<i64>,
    /// The slot's `MachineMaxVacateTime` for the job, evaluated when it started (HTCondor's
    /// pledged machine max vacate time).
    pub pledged_vacate_time: i64,
    /// PREEMPT has been true for the current job (`c_preempt_was_true`): it retires for good.
    pub preempt_was_true: bool,
    /// The retirement may be undone when the preempting claim goes away
    /// (`c_may_unretire`; false once PREEMPT fired).
    pub may_unretire: bool,
    /// The negotiator preempted the claim (HTCondor's preempting claim, `r_pre`): `true`
    /// for the machine's RANK, `false` for user priority.
    pub preempting: Option<bool>,
    /// Why the job is being evicted and the vacate code (HTCondor's `setVacateReason`).
    pub vacate_reason: Option<(String, i64)>,
    /// The job's eviction counts as draining's badput (`c_badput_caused_by_draining`).
    pub badput_by_draining: bool,
    /// When the job's vacate time runs out (set on entering Preempting/Vacating).
    pub vacate_deadline: Option<i64>,
    /// When the last hard kill was asked for (the starter's kill timer repeats it every
    /// `KILLING_TIMEOUT`).
    pub kill_sent: Option<i64>,
    /// The job was suspended by request (`condor_suspend`), not by SUSPEND: only a request
    /// continues it (`r_suspended_by_command`).
    pub suspended_by_command: bool,
    /// Why the claim is ending (the transition that preempted it).
    pub closing: Option<String>,
}

fn string_attr(ad: &ClassAd, name: &str) -> Option<String> {
    match ad.eval_attr(name) {
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

impl Claim {
    /// A claim for `job`, beginning `now`.
    pub fn new(id: String, job: &ClassAd, rank: f64, client_machine: &str, now: i64) -> Claim {
        let mut c = Claim {
            id,
            job: job.clone(),
            rank,
            user: None,
            owner: None,
            accounting_group: None,
            client_machine: string_attr(job, "ClientMachine")
                .unwrap_or_else(|| client_machine.to_owned()),
            schedd_name: string_attr(job, "ScheddName").or_else(|| {
                string_attr(job, "GlobalJobId")
                    .and_then(|g| g.split('#').next().map(str::to_owned))
                    .filter(|s| !s.is_empty())
            }),
            concurrency_limits: None,
            remote_group: string_attr(job, "RemoteGroup"),
            negotiating_group: string_attr(job, "RemoteNegotiatingGroup"),
            autoregroup: job.eval_attr("RemoteAutoregroup").as_bool(),
            started: now,
            activations: 0,
            job_start: None,
            entered: now,
            suspended: false,
            job_run_time: 0,
            job_suspend_time: 0,
            claim_run_time: 0,
            claim_suspend_time: 0,
            cpus_usage: 0.0,
            image_size: None,
            pledged_vacate_time: 0,
            preempt_was_true: false,
            may_unretire: true,
            preempting: None,
            vacate_reason: None,
            badput_by_draining: false,
            vacate_deadline: None,
            kill_sent: None,
            suspended_by_command: false,
            closing: None,
        };
        c.load_accounting(job);
        if let Some(l) = string_attr(job, "ConcurrencyLimits").filter(|l| !l.is_empty()) {
            c.concurrency_limits = Some(l);
        }
        c
    }

    /// Who to charge, from the job (HTCondor's `loadAccountingInfo`): `User`, the
    /// `AccountingGroup`, and the `Owner` the first time.
    pub fn load_accounting(&mut self, job: &ClassAd) {
        if let Some(u) = string_attr(job, "User") {
            self.user = Some(u);
        }
        if let Some(g) = string_attr(job, "AccountingGroup") {
            self.accounting_group = Some(g);
        }
        if self.owner.is_none() {
            self.owner = string_attr(job, "Owner");
        }
    }

    /// A job starts on the claim; `pledged_vacate_time` is the slot's
    /// `MachineMaxVacateTime` for it (`Claim::beginActivation`).
    pub fn activate(&mut self, job: &ClassAd, rank: f64, pledged_vacate_time: i64, now: i64) {
        self.job = job.clone();
        self.load_accounting(job);
        self.rank = rank;
        self.activations += 1;
        self.job_start = Some(now);
        self.entered = now;
        self.suspended = false;
        self.job_run_time = 0;
        self.job_suspend_time = 0;
        self.cpus_usage = 0.0;
        self.image_size = None;
        self.pledged_vacate_time = pledged_vacate_time;
    }

    /// Closes the current stretch (running or suspended) at `now`.
    fn settle(&mut self, now: i64) {
        if self.job_start.is_some() {
            let d = (now - self.entered).max(0);
            if self.suspended {
                self.job_suspend_time += d;
                self.claim_suspend_time += d;
            } else {
                self.job_run_time += d;
                self.claim_run_time += d;
            }
        }
        self.entered = now;
    }

    /// The job's processes were stopped: its run time stops counting.
    pub fn suspend(&mut self, now: i64) {
        if self.is_active() && !self.suspended {
            self.settle(now);
            self.suspended = true;
        }
    }

    /// The job's processes run again.
    pub fn resume(&mut self, now: i64) {
        if self.suspended {
            self.settle(now);
            self.suspended = false;
        }
    }

    /// The job ended: its run time joins the claim's, and what the claim knew of the job's
    /// eviction is forgotten (`Claim::resetClaim`).
    pub fn deactivate(&mut self, now: i64) {
        self.settle(now);
        self.job_start = None;
        self.suspended = false;
        self.job_run_time = 0;
        self.job_suspend_time = 0;
        self.cpus_usage = 0.0;
        self.image_size = None;
        self.preempt_was_true = false;
        self.may_unretire = true;
        self.vacate_reason = None;
        self.badput_by_draining = false;
        self.vacate_deadline = None;
        self.kill_sent = None;
        self.suspended_by_command = false;
    }

    /// The job's universe (`JobUniverse`, vanilla when the job does not say), while a job
    /// runs.
    pub fn universe(&self) -> Option<i64> {
        self.is_active()
            .then(|| self.job.eval_attr("JobUniverse").as_int().unwrap_or(5))
    }

    pub fn is_active(&self) -> bool {
        self.job_start.is_some()
    }

    /// Seconds the current job has run, suspensions excluded (`TotalJobRunTime`,
    /// `getJobTotalRunTime`).
    pub fn job_run_time(&self, now: i64) -> i64 {
        if self.is_active() && !self.suspended {
            self.job_run_time + (now - self.entered).max(0)
        } else {
            self.job_run_time
        }
    }

    /// Seconds the current job has been suspended (`TotalJobSuspendTime`).
    pub fn job_suspend_time(&self, now: i64) -> i64 {
        if self.is_active() && self.suspended {
            self.job_suspend_time + (now - self.entered).max(0)
        } else {
            self.job_suspend_time
        }
    }

    /// Seconds jobs have run on the claim (`TotalClaimRunTime`).
    pub fn claim_run_time(&self, now: i64) -> i64 {
        if self.is_active() && !self.suspended {
            self.claim_run_time + (now - self.entered).max(0)
        } else {
            self.claim_run_time
        }
    }

    /// Seconds jobs have been suspended on the claim (`TotalClaimSuspendTime`).
    pub fn claim_suspend_time(&self, now: i64) -> i64 {
        if self.is_active() && self.suspended {
            self.claim_suspend_time + (now - self.entered).max(0)
        } else {
            self.claim_suspend_time
        }
    }

    /// The public form of the id: its secret part replaced by `...`.
    pub fn public_id(&self) -> String {
        match self.id.rfind('#') {
            Some(i) => format!("{}#...", &self.id[..i]),
            None => self.id.clone(),
        }
    }

    /// The claim's attributes in the slot ad (HTCondor's `Claim::publish`).
    pub fn publish(&self, ad: &mut ClassAd, now: i64) {
        ad.insert("CurrentRank", Expr::lit(self.rank));
        if let Some(s) = &self.schedd_name {
            ad.insert("RemoteScheddName", Expr::lit(s.as_str()));
        }
        if let Some(u) = &self.user {
            ad.insert("RemoteUser", Expr::lit(u.as_str()));
        }
        if let Some(o) = &self.owner {
            ad.insert("RemoteOwner", Expr::lit(o.as_str()));
        }
        if let Some(g) = &self.accounting_group {
            // The accountant wants the group qualified with the user's domain.
            let domain = self
                .user
                .as_deref()
                .and_then(|u| u.find('@').map(|i| &u[i..]))
                .unwrap_or("");
            ad.insert("AccountingGroup", Expr::lit(format!("{g}{domain}")));
        }
        ad.insert("ClientMachine", Expr::lit(self.client_machine.as_str()));
        if let Some(l) = &self.concurrency_limits {
            ad.insert("ConcurrencyLimits", Expr::lit(l.as_str()));
        }
        ad.insert("NumPids", Expr::lit(0i64));
        if let Some(g) = &self.remote_group {
            ad.insert("RemoteGroup", Expr::lit(g.as_str()));
        }
        if let Some(g) = &self.negotiating_group {
            ad.insert("RemoteNegotiatingGroup", Expr::lit(g.as_str()));
            ad.insert(
                "RemoteAutoregroup",
                Expr::lit(self.autoregroup.unwrap_or(false)),
            );
        }
        if self.is_active() {
            let cluster = self.job.eval_attr("ClusterId").as_int();
            let proc_ = self.job.eval_attr("ProcId").as_int();
            if let (Some(c), Some(p)) = (cluster, proc_) {
                if c > 0 && p >= 0 {
                    ad.insert("JobId", Expr::lit(format!("{c}.{p}")));
                }
            }
            if let Some(g) = string_attr(&self.job, "GlobalJobId") {
                ad.insert("GlobalJobId", Expr::lit(g));
            }
            if let Some(t) = self.job_start {
                ad.insert("JobStart", Expr::lit(t));
            }
            let image = self
                .image_size
                .or_else(|| self.job.eval_attr("ImageSize").as_number_int())
                .unwrap_or(0);
            ad.insert("ImageSize", Expr::lit(image));
            ad.insert("CpusUsage", Expr::lit(self.cpus_usage));
        }
        // Claim::publishStateTimes.
        for (attr, t) in [
            ("TotalJobRunTime", self.job_run_time(now)),
            ("TotalJobSuspendTime", self.job_suspend_time(now)),
            ("TotalClaimRunTime", self.claim_run_time(now)),
            ("TotalClaimSuspendTime", self.claim_suspend_time(now)),
        ] {
            if t > 0 {
                ad.insert(attr, Expr::lit(t));
            }
        }
    }
}

/// One slot.
#[derive(Clone, Debug)]
pub struct Slot {
    /// `SlotID`: the slot's number (a dynamic slot has its partitionable slot's).
    pub id: u32,
    /// A dynamic slot's number within its partitionable slot (`DSlotId`); 0 otherwise.
    pub sub_id: u32,
    pub kind: SlotKind,
    /// `SlotTypeID`.
    pub type_id: u32,
    /// `slot1`, `slot1_2`.
    pub id_str: String,
    /// `slot1@host`.
    pub name: String,
    pub res: Resources,
    pub sm: StateMachine,
    pub claim: Option<Claim>,
    /// The configuration's expressions for the slot: `START`, `IsOwner`, `Rank`, ...
    /// (HTCondor's per-slot config ad).
    pub policy: ClassAd,
    /// The slot's `STARTD_ATTRS`, in order; `None` removes the attribute.
    pub attrs: Vec<(String, Option<Expr>)>,
    /// `SlotWeight`.
    pub slot_weight: Expr,
    /// A partitionable slot with a consumption policy: its `Consumption<Resource>`.
    pub consumption: Option<Vec<(String, Expr)>>,
    /// Not advertised (`SLOT_TYPE_<N>_HIDDEN`).
    pub hidden: bool,
    /// A partitionable slot's free dynamic-slot numbers (`IdDispenser`): `free[i]` for i >= 1.
    pub free_sub_ids: Vec<bool>,
    /// The slot is left over from a layout a reconfiguration replaced, kept for its claim.
    pub orphan: bool,
    pub owner_load: f64,
    pub condor_load: f64,
    pub keyboard_idle: i64,
    pub console_idle: i64,
    /// Since when `CpuBusy` has been true.
    pub cpu_busy_since: Option<i64>,
    /// The current (or last) job started while the startd was draining
    /// (`AcceptedWhileDraining`): the drain does not wait for it.
    pub accepted_while_draining: bool,
}

impl Slot {
    pub fn state(&self) -> State {
        self.sm.state()
    }

    pub fn activity(&self) -> Activity {
        self.sm.activity()
    }

    /// The next dynamic-slot number (smallest free, else a new one).
    pub fn next_sub_id(&mut self) -> u32 {
        if self.free_sub_ids.is_empty() {
            self.free_sub_ids.push(false);
        }
        for (i, free) in self.free_sub_ids.iter_mut().enumerate().skip(1) {
            if *free {
                *free = false;
                return i as u32;
            }
        }
        self.free_sub_ids.push(false);
        (self.free_sub_ids.len() - 1) as u32
    }

    /// Returns a dynamic-slot number to the pool.
    pub fn free_sub_id(&mut self, sub: u32) {
        if let Some(f) = self.free_sub_ids.get_mut(sub as usize) {
            *f = true;
        }
    }

    /// The claim's age, for `CLAIM_WORKLIFE`.
    pub fn claim_age(&self, now: i64) -> Option<i64> {
        self.claim.as_ref().map(|c| (now - c.started).max(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_account_time() {
        let job = crate::classad::parse_ad(
            "[User = \"alice@example.org\"; Owner = \"alice\"; AccountingGroup = \"grp.alice\"; ClusterId = 7; ProcId = 0; GlobalJobId = \"schedd@h#7.0#100\"]",
        )
        .unwrap();
        let mut c = Claim::new("<a>#1#2#secret".into(), &job, 0.0, "h", 100);
        assert_eq!(c.public_id(), "<a>#1#2#...");
        assert_eq!(c.schedd_name.as_deref(), Some("schedd@h"));
        c.activate(&job, 1.0, 600, 110);
        assert_eq!(c.job_run_time(130), 20);
        let mut ad = ClassAd::new();
        c.publish(&mut ad, 130);
        assert_eq!(ad.eval_attr("JobId").as_str(), Some("7.0"));
        assert_eq!(
            ad.eval_attr("AccountingGroup").as_str(),
            Some("grp.alice@example.org")
        );
        c.deactivate(140);
        assert_eq!(c.claim_run_time(200), 30);
        assert_eq!(c.job_run_time(200), 0);

        // Suspension stops the run time; the claim keeps both totals.
        c.activate(&job, 1.0, 600, 200);
        c.suspend(210);
        assert_eq!(c.job_run_time(250), 10);
        assert_eq!(c.job_suspend_time(250), 40);
        c.resume(260);
        assert_eq!(c.job_run_time(270), 20);
        let mut ad = ClassAd::new();
        c.publish(&mut ad, 270);
        assert_eq!(ad.eval_attr("TotalJobSuspendTime").as_int(), Some(50));
        assert_eq!(ad.eval_attr("TotalClaimSuspendTime").as_int(), Some(50));
        assert_eq!(ad.eval_attr("TotalClaimRunTime").as_int(), Some(50));
        c.preempt_was_true = true;
        c.deactivate(280);
        assert_eq!(c.claim_run_time(300), 60);
        assert!(!c.preempt_was_true && c.may_unretire);
    }
}
