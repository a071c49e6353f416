//! `condor_sim`'s engine: a workload replayed through the real negotiator, accountant and
//! startd on a virtual clock, to see what a change of quotas, priority factors or half-life
//! would do to a pool's allocations.
//!
//! [`Workload::parse`] reads the workload file ([`workload`] documents the format),
//! [`run`] simulates it ([`engine`] documents the order of events) and returns a [`Report`]:
//! the allocation per submitter and accounting group at every reporting step, and a summary.
//! [`report`] prints it as a table or CSV, [`svg`] draws it.
//!
//! The pool is what the configuration describes, read by the real configuration reader
//! ([`setup`]) on a made-up machine (8 CPUs, 32 GiB, 100 GB of disk unless the configuration
//! says otherwise), its slots built by the real startd ([`crate::startd::Startd`]: static
//! and partitionable slots, custom resources, `SlotWeight`, `START`, `Rank`) and then
//! claimed, carved and released by [`slots`] as the startd would (`CLAIM_WORKLIFE`,
//! `MAXJOBRETIREMENTTIME`). Each negotiation cycle is
//! [`crate::negotiator::Negotiator::cycle_with_clock`] over the idle jobs and the slot ads,
//! with the accountant's state ([`crate::accountant::AccountantState`], kept in memory) aged
//! on the virtual clock.
//!
//! ```
//! use condorlite::sim::{run, SimOptions, Workload};
//!
//! let text = "[config]\nNUM_CPUS = 4\n[timeline]\n0 submit alice 8 10m\n";
//! let workload = Workload::parse(text, "example.sim").unwrap();
//! let report = run(&workload, &SimOptions::default()).unwrap();
//! // One partitionable slot of 4 CPUs.
//! assert_eq!((report.slots, report.pool_weight), (1, 4.0));
//! // Four jobs run from time 0, four more from 10 minutes: all done after 20 minutes.
//! assert_eq!(report.end, 1200);
//! assert_eq!(report.summary[0].completed, 8);
//! ```
//!
//! What is not simulated: the time a schedd, shadow or starter takes (a job starts in the
//! cycle that matched it and holds its slot until its duration is over; a vacated job leaves
//! at once), checkpoints (a vacated job runs its whole duration again), the startd's policy
//! beyond `START` (`PREEMPT`, `SUSPEND`, `KILL`, draining), job policy (`periodic_*`),
//! flocking, heterogeneous machines (every machine has the same configuration), and
//! negotiation cycles other than every `NEGOTIATOR_INTERVAL` (no `condor_reschedule` at
//! submission).

pub mod engine;
pub mod report;
pub mod setup;
pub mod slots;
pub mod svg;
pub mod workload;

#[cfg(test)]
mod tests;

pub use engine::run;
pub use workload::{parse_duration, Workload, WorkloadError};

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The workload file is not well formed.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// The pool's configuration is wrong (the message names the file and line when the
    /// configuration says where).
    #[error("{0}")]
    Config(String),
    /// A file could not be read or written.
    #[error("can't read {path}: {reason}")]
    Io { path: String, reason: String },
}

/// What the command line adds to a workload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimOptions {
    /// `-config FILE`: HTCondor configuration files read after the workload's `[config]`.
    pub config_files: Vec<String>,
    /// `-set NAME=VALUE`: settings read after everything else.
    pub sets: Vec<(String, String)>,
    /// `-until`: overrides the workload's `until`.
    pub until: Option<i64>,
    /// `-step`: overrides the workload's `step`.
    pub step: Option<i64>,
}

/// What a row of the report is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A submitter (`user@domain`, `group.user@domain`).
    User,
    /// An accounting group (its whole subtree; `<none>` for the submitters without one).
    Group,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::User => "user",
            Kind::Group => "group",
        }
    }
}

/// A row's identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Series {
    pub name: String,
    pub kind: Kind,
}

/// One submitter's or group's allocation at a moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub idle: u64,
    pub running: u64,
    /// The weight (`SlotWeight`, by default the CPUs) of the claims held.
    pub in_use: f64,
    /// `in_use` as a percentage of the pool's weight.
    pub share: f64,
    pub real_priority: f64,
    pub effective_priority: f64,
}

/// The allocation at one moment: a row per [`Series`], in the same order.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Seconds from time 0.
    pub time: i64,
    pub rows: Vec<Row>,
}

/// The weight each submitter holds just after a negotiation cycle (what the SVG draws).
#[derive(Clone, Debug, PartialEq)]
pub struct TracePoint {
    /// Seconds from time 0.
    pub time: i64,
    /// By submitter, in the order of the [`Kind::User`] series (which come first).
    pub in_use: Vec<f64>,
}

/// What happened to a submitter's (or group's) jobs over the whole simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    pub name: String,
    pub kind: Kind,
    pub submitted: u64,
    /// Jobs that started at least once.
    pub started: u64,
    pub completed: u64,
    /// Jobs idle at the end.
    pub idle: u64,
    /// Jobs running at the end.
    pub running: u64,
    /// Times a running job was vacated (preempted).
    pub preempted: u64,
    /// Weight-seconds of claims held (CPU-seconds with the default `SlotWeight`).
    pub usage: f64,
    /// `usage` as a percentage of what the whole pool offered over the simulation.
    pub mean_share: f64,
    /// Mean seconds from submission to first start, of the jobs that started.
    pub mean_wait: Option<f64>,
    pub max_wait: Option<i64>,
}

/// A simulation's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The workload file's name.
    pub file: String,
    pub series: Vec<Series>,
    pub samples: Vec<Sample>,
    /// The allocation after every negotiation cycle, and at the end.
    pub trace: Vec<TracePoint>,
    pub summary: Vec<SummaryRow>,
    /// When the simulation ended, seconds from time 0.
    pub end: i64,
    /// Slots at time 0 (static and partitionable), over all machines.
    pub slots: usize,
    /// How many of them are partitionable.
    pub partitionable: usize,
    pub machines: usize,
    /// The weight of the whole pool (the CPUs, with the default `SlotWeight`).
    pub pool_weight: f64,
    /// `NEGOTIATOR_INTERVAL`.
    pub interval: i64,
    /// The reporting step.
    pub step: i64,
    /// What did not go as the workload asked (jobs that never matched, refused claims).
    pub notes: Vec<String>,
}
