//! The negotiator: matchmaking of idle jobs to slots under fair share, as HTCondor's
//! condor_negotiator does it (src/condor_negotiator.V6/matchmaker.cpp, GroupEntry.cpp), with the
//! schedd's side of the negotiation protocol played in-process.
//!
//! A cycle is a pure function of its inputs: the idle jobs and the slot ads ([`CycleInput`]),
//! the accountant's state, the configuration, the time and, for the time limits
//! (`NEGOTIATOR_MAX_TIME_PER_*`), a [`CycleClock`] ([`negotiate_with_clock`]; [`negotiate`]
//! uses the wall clock, which only matters for a cycle that runs into those limits, a minute
//! per submitter by default). [`negotiate`] returns the matches
//! (with the preemptions they cause), the rejections, the accountant's new state and the
//! cycle's statistics ([`CycleOutcome`]); the caller carries the matches out (claims the slots,
//! starts the jobs, vacates the preempted ones) and commits the new accountant state.
//! [`Negotiator`] is the same cycle for a long-running daemon: it keeps what it may reuse
//! between cycles (autocluster assignments, slot-ad analysis) and the statistics history the
//! negotiator ad publishes; its results are the same as [`negotiate`]'s.
//!
//! ```
//! use condorlite::accountant::{AccountantConfig, AccountantState};
//! use condorlite::classad::parse_ad;
//! use condorlite::negotiator::{negotiate, CycleInput, IdleJob, JobId, NegotiatorConfig};
//!
//! let slot = parse_ad(r#"[Name = "slot1@host"; State = "Unclaimed"; Cpus = 1; Memory = 1024;
//!                         Requirements = TARGET.RequestMemory <= Memory]"#).unwrap();
//! let job = parse_ad(r#"[Owner = "alice"; RequestMemory = 512;
//!                        Requirements = TARGET.Memory >= RequestMemory]"#).unwrap();
//! let jobs = [IdleJob::new(JobId::new(1, 0), job, "example.org")];
//! let slots = [slot];
//! let input = CycleInput { jobs: &jobs, slots: &slots };
//! let out = negotiate(&input, &AccountantState::new(), &AccountantConfig::default(),
//!                     &NegotiatorConfig::default(), 1_700_000_000);
//! assert_eq!(out.matches.len(), 1);
//! assert_eq!(out.matches[0].submitter.as_ref(), "alice@example.org");
//! assert_eq!(out.accountant.resources_used("alice@example.org"), 1);
//! ```
//!
//! Where condorlite differs from HTCondor 24:
//! - Every partitionable slot is consumed negotiator-side (several jobs per slot per cycle), by
//!   its `Consumption<Resource>` expressions or else `MODIFY_REQUEST_EXPR_*`: there is no
//!   schedd-side splitting of a whole matched partitionable slot.
//! - `RemoteUserResourcesInUse` and friends are the values when the cycle started, not live
//!   values; ties between equally good slots go to the one listed first, and between equally
//!   prioritised submitters to the name that sorts first (HTCondor: `LastHeardFrom % 1009`).
//! - Slots in the `Matched` state are not offered again; round-robin history for group-quota
//!   remainders starts afresh each cycle.
//! - The time limits count seconds with fractions on the cycle's [`CycleClock`], from the
//!   start of the cycle's computation (HTCondor: whole seconds of `time()`, from the start of
//!   the cycle, collector queries included); there is one schedd, so
//!   `NEGOTIATOR_MAX_TIME_PER_SCHEDD` bounds all submitters together.
//! - With `ALLOW_PSLOT_PREEMPTION`, a partitionable slot that takes a preempting match takes
//!   nothing more in that cycle (see [`Match::preempted_dslots`]).
//! - A slot without `Requirements` matches by its `START` expression, and one with neither
//!   matches any job whose own Requirements hold.
//! - A submitter's ceiling is charged a match's cost on a slot with a consumption policy
//!   (HTCondor skips the submitter when its ceiling left is below the smallest `SlotWeight`
//!   of any slot), and a submitter skipped for a ceiling below every whole slot's weight is
//!   told why ([`RejectReason::SubmitterCeiling`]).

pub mod autocluster;
pub mod config;
mod cycle;
pub mod eval;
pub mod job;
pub mod quota;
pub mod refs;
pub mod slots;
pub mod stats;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::accountant::{AccountantConfig, AccountantState};
use crate::classad::{ClassAd, Expr};
pub use autocluster::Autoclusters;
pub use config::NegotiatorConfig;
pub use job::{submitter_name, IdleJob, JobId, JobPrio};
pub use stats::CycleStats;

/// The clock a cycle's time limits (`NEGOTIATOR_MAX_TIME_PER_CYCLE`, `..._PER_SUBMITTER`,
/// `..._PER_SCHEDD`, `..._PER_PIESPIN`) are measured on: how long the cycle has been running.
///
/// The cycle reads it when a submitter's turn starts, before each request of the turn, and
/// when the turn ends, so a clock that advances a fixed step per reading makes a cycle's
/// result a function of its inputs. Any `FnMut() -> Duration` is one; [`WallClock`] is the
/// real one.
pub trait CycleClock {
    /// The time since the cycle started.
    fn elapsed(&mut self) -> Duration;
}

impl<F: FnMut() -> Duration> CycleClock for F {
    fn elapsed(&mut self) -> Duration {
        self()
    }
}

/// The wall clock, from when it was made.
#[derive(Clone, Copy, Debug)]
pub struct WallClock {
    start: Instant,
}

impl WallClock {
    pub fn start() -> WallClock {
        WallClock {
            start: Instant::now(),
        }
    }
}

impl CycleClock for WallClock {
    fn elapsed(&mut self) -> Duration {
        self.start.elapsed()
    }
}

/// What a cycle negotiates over.
#[derive(Clone, Copy, Debug)]
pub struct CycleInput<'a> {
    /// The idle jobs (any order).
    pub jobs: &'a [IdleJob],
    /// Every slot ad: unclaimed, claimed (with `State`, `RemoteUser`/`AccountingGroup`,
    /// `CurrentRank`, ...), partitionable and dynamic.
    pub slots: &'a [ClassAd],
}

/// Why a claimed slot is taken from the job running on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreemptReason {
    /// The slot's `RANK` prefers the new job.
    Rank,
    /// The new job's submitter has the better priority (and `PREEMPTION_REQUIREMENTS` held).
    UserPriority,
}

/// A job matched to a slot.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    pub job: JobId,
    pub submitter: Arc<str>,
    /// The slot's index in [`CycleInput::slots`].
    pub slot: usize,
    pub slot_name: String,
    /// What the match is charged: the slot's weight, or for a partitionable slot the weight it
    /// lost.
    pub cost: f64,
    /// The job's autocluster (numbers are only meaningful within one cycle).
    pub autocluster: u32,
    /// For a partitionable slot: what the job takes of each resource (`Cpus`, `Memory`, ...),
    /// the size of the dynamic slot to carve.
    pub consumption: Vec<(String, f64)>,
    /// Set when the slot was claimed: the running job is preempted.
    pub preempting: Option<PreemptReason>,
    /// The concurrency limits the match holds (lower-cased), as `MatchedConcurrencyLimits`.
    pub concurrency_limits: Option<String>,
    /// The accounting group the job was negotiated in (`<none>` without groups).
    pub group: String,
    /// With `ALLOW_PSLOT_PREEMPTION`: when `slot` is a partitionable slot that matched only
    /// with the resources of some of its dynamic slots, those dynamic slots (indices in
    /// [`CycleInput::slots`], also listed in [`CycleOutcome::preemptions`] with
    /// [`Preemption::pslot`] set to `slot`). With their resources back in the partitionable
    /// slot, it has `consumption` free for this job. HTCondor hands the schedd their claim ids
    /// with the partitionable slot's, and the startd, when the schedd claims the partitionable
    /// slot, kills those claims at once ("Preempted for a Priority user", whichever the
    /// reason), returns their resources to the partitionable slot without waiting for the jobs
    /// to go, and carves the new dynamic slot (src/condor_startd.V6/command.cpp). `preempting`
    /// is `Rank` when every one is preempted for `RANK`, else `UserPriority`. The partitionable
    /// slot takes no other match in the cycle after this one. Empty for every other match (a
    /// preempting match of a static or dynamic slot preempts `slot` itself).
    pub preempted_dslots: Vec<usize>,
}

/// A running job to be vacated for a match.
#[derive(Clone, Debug, PartialEq)]
pub struct Preemption {
    pub slot: usize,
    pub slot_name: String,
    /// The customer whose job is preempted.
    pub victim: String,
    /// The job that gets the slot.
    pub by: JobId,
    pub by_submitter: String,
    pub reason: PreemptReason,
    /// For a dynamic slot preempted under `ALLOW_PSLOT_PREEMPTION`: the partitionable slot
    /// (index in [`CycleInput::slots`]) the preempting job is matched to; `None` when the
    /// preempting job gets `slot` itself.
    pub pslot: Option<usize>,
}

/// Why a request (a job, standing for the rest of its autocluster) got no slot.
#[derive(Clone, Debug, PartialEq)]
pub enum RejectReason {
    NoMatch,
    SubmitterLimit,
    ConcurrencyLimit(Vec<String>),
    PreemptionRequirements,
    InsufficientPriority,
    /// What is left of the submitter's ceiling (`left`, more than 0) is less than a match
    /// would count against it (`charge`): the match cost for a slot with a consumption
    /// policy, else the slot's whole `SlotWeight` (`whole_pslot` when that slot is a
    /// partitionable one). HTCondor skips a submitter whose ceiling left is below the
    /// smallest slot weight without a word (matchmaker.cpp, `negotiateWithGroup`: "skipped
    /// because submitterCeiling remaining is"); condorlite says why, in the job's
    /// `LastRejMatchReason`.
    SubmitterCeiling {
        left: f64,
        charge: f64,
        whole_pslot: bool,
    },
}

impl std::fmt::Display for RejectReason {
    /// HTCondor's rejection texts (the job's `LastRejMatchReason`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RejectReason::NoMatch => f.write_str("no match found"),
            RejectReason::SubmitterLimit => f.write_str("submitter limit exceeded"),
            RejectReason::ConcurrencyLimit(l) => {
                write!(f, "concurrency limit {} reached", l.join(", "))
            }
            RejectReason::PreemptionRequirements => f.write_str("PREEMPTION_REQUIREMENTS == False"),
            RejectReason::InsufficientPriority => f.write_str("insufficient priority"),
            RejectReason::SubmitterCeiling {
                left,
                charge,
                whole_pslot: true,
            } => write!(
                f,
                "submitter ceiling exceeded: the whole partitionable slot's weight ({charge}) \
                 exceeds the ceiling left ({left}); without a consumption policy a match is \
                 charged the whole slot"
            ),
            RejectReason::SubmitterCeiling { left, charge, .. } => write!(
                f,
                "submitter ceiling exceeded: a match would be charged {charge}, more than the \
                 ceiling left ({left})"
            ),
        }
    }
}

/// A rejected request.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    pub job: JobId,
    pub submitter: String,
    pub autocluster: u32,
    pub reason: RejectReason,
}

/// A submitter's share in the first spin of its pie.
#[derive(Clone, Debug, PartialEq)]
pub struct SubmitterReport {
    pub name: String,
    pub group: String,
    /// The effective priority it was negotiated with.
    pub priority: f64,
    /// Its share of the pie (`SubmitterShare`).
    pub share: f64,
    /// Share times the pie (`SubmitterLimit`).
    pub limit: f64,
}

/// A group's quota numbers in the last allocation round.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupReport {
    pub name: String,
    pub config_quota: f64,
    pub static_quota: bool,
    /// The quota computed from the pool (`EffectiveQuota`).
    pub quota: f64,
    pub subtree_quota: f64,
    /// Quota plus surplus allocated.
    pub allocated: f64,
    /// Demand (`Requested`).
    pub requested: f64,
    pub usage: f64,
    pub sort_key: f64,
    pub accept_surplus: bool,
    pub autoregroup: bool,
}

/// What a cycle decided.
#[derive(Clone, Debug, Default)]
pub struct CycleOutcome {
    pub matches: Vec<Match>,
    pub preemptions: Vec<Preemption>,
    pub rejections: Vec<Rejection>,
    /// The accountant's state with the cycle's priority update and matches.
    pub accountant: AccountantState,
    pub stats: CycleStats,
    /// With accounting groups: each group's quota numbers.
    pub groups: Vec<GroupReport>,
    pub submitters: Vec<SubmitterReport>,
    /// Partitionable slots as the cycle left them (resources consumed), by input index. A slot
    /// that took a preempting match ([`Match::preempted_dslots`]) counts the preempted dynamic
    /// slots' resources as back in it.
    pub slot_ads: Vec<(usize, ClassAd)>,
}

/// Runs one negotiation cycle (see the module documentation), its time limits on the wall
/// clock.
pub fn negotiate(
    input: &CycleInput<'_>,
    accountant: &AccountantState,
    accountant_config: &AccountantConfig,
    config: &NegotiatorConfig,
    now: i64,
) -> CycleOutcome {
    negotiate_with_clock(
        input,
        accountant,
        accountant_config,
        config,
        now,
        &mut WallClock::start(),
    )
}

/// [`negotiate`] with the time limits measured on `clock`.
pub fn negotiate_with_clock(
    input: &CycleInput<'_>,
    accountant: &AccountantState,
    accountant_config: &AccountantConfig,
    config: &NegotiatorConfig,
    now: i64,
    clock: &mut dyn CycleClock,
) -> CycleOutcome {
    let mut acs = Autoclusters::new();
    let mut slots = eval::SlotCache::default();
    cycle::run(
        input,
        accountant,
        accountant_config,
        config,
        now,
        cycle::Caches {
            autoclusters: &mut acs,
            slots: &mut slots,
            classing: true,
        },
        clock,
    )
}

/// [`negotiate`] evaluating every (autocluster, slot) pair: the reference the class-based
/// evaluation is tested against.
pub fn negotiate_unclassed(
    input: &CycleInput<'_>,
    accountant: &AccountantState,
    accountant_config: &AccountantConfig,
    config: &NegotiatorConfig,
    now: i64,
) -> CycleOutcome {
    let mut acs = Autoclusters::new();
    let mut slots = eval::SlotCache::default();
    cycle::run(
        input,
        accountant,
        accountant_config,
        config,
        now,
        cycle::Caches {
            autoclusters: &mut acs,
            slots: &mut slots,
            classing: false,
        },
        &mut WallClock::start(),
    )
}

/// The negotiator of a long-running daemon: cycles with what can be kept between them.
pub struct Negotiator {
    config: NegotiatorConfig,
    accountant_config: AccountantConfig,
    autoclusters: Autoclusters,
    slots: eval::SlotCache,
    history: Vec<CycleStats>,
}

impl std::fmt::Debug for Negotiator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Negotiator")
            .field("config", &self.config)
            .field("autoclusters", &self.autoclusters)
            .finish_non_exhaustive()
    }
}

impl Negotiator {
    pub fn new(config: NegotiatorConfig, accountant_config: AccountantConfig) -> Negotiator {
        Negotiator {
            config,
            accountant_config,
            autoclusters: Autoclusters::new(),
            slots: eval::SlotCache::default(),
            history: Vec::new(),
        }
    }

    pub fn config(&self) -> &NegotiatorConfig {
        &self.config
    }

    pub fn accountant_config(&self) -> &AccountantConfig {
        &self.accountant_config
    }

    /// Takes a new configuration (`condor_reconfig`): what was kept between cycles is dropped.
    pub fn reconfigure(&mut self, config: NegotiatorConfig, accountant_config: AccountantConfig) {
        self.config = config;
        self.accountant_config = accountant_config;
        self.autoclusters = Autoclusters::new();
        self.slots = eval::SlotCache::default();
    }

    /// Reads both configurations.
    pub fn from_config(
        config: &crate::config::Config,
    ) -> Result<Negotiator, crate::config::ConfigError> {
        Ok(Negotiator::new(
            NegotiatorConfig::from_config(config)?,
            AccountantConfig::from_config(config)?,
        ))
    }

    /// Runs a cycle (the same result as [`negotiate`]).
    pub fn cycle(
        &mut self,
        input: &CycleInput<'_>,
        accountant: &AccountantState,
        now: i64,
    ) -> CycleOutcome {
        self.cycle_with_clock(input, accountant, now, &mut WallClock::start())
    }

    /// Runs a cycle with its time limits measured on `clock` (the same result as
    /// [`negotiate_with_clock`]).
    pub fn cycle_with_clock(
        &mut self,
        input: &CycleInput<'_>,
        accountant: &AccountantState,
        now: i64,
        clock: &mut dyn CycleClock,
    ) -> CycleOutcome {
        let out = cycle::run(
            input,
            accountant,
            &self.accountant_config,
            &self.config,
            now,
            cycle::Caches {
                autoclusters: &mut self.autoclusters,
                slots: &mut self.slots,
                classing: true,
            },
            clock,
        );
        self.history.insert(0, out.stats.clone());
        self.history.truncate(self.config.cycle_stats_length.max(1));
        out
    }

    /// The statistics of recent cycles, the most recent first.
    pub fn history(&self) -> &[CycleStats] {
        &self.history
    }

    /// The negotiator ad's cycle statistics (`LastNegotiationCycle*0`, `*1`, ...).
    pub fn publish_stats(&self, ad: &mut ClassAd) {
        let n = self.config.cycle_stats_length.min(self.history.len());
        CycleStats::publish(&self.history[..n], ad);
    }

    /// A negotiator ad: `MyType`, `Name` and the cycle statistics.
    pub fn negotiator_ad(&self, name: &str) -> ClassAd {
        let mut ad = ClassAd::new();
        ad.insert("MyType", Expr::lit("Negotiator"));
        ad.insert("Name", Expr::lit(name));
        self.publish_stats(&mut ad);
        ad
    }
}
