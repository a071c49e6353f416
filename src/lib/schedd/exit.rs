//! The attribute bookkeeping around a run, as HTCondor's schedd and shadow do it, as pure
//! functions over job ads: each returns the changes ([`AdUpdate`]) and, where the run's end
//! decides it, the job's new status ([`Outcome`]); the daemon applies them in one transaction.
//! `JobStatus` itself is the caller's to set (the queue's `set_status` also records
//! `LastJobStatus` and `EnteredCurrentStatus`), and `CompletionDate` of a job that left no
//! date is also set when the queue moves it to the history.
//!
//! A run, in HTCondor's terms:
//!
//! - It starts ([`start_updates`]): the schedd's `add_shadow_rec`, `add_shadow_birthdate`,
//!   `InsertMachineAttrs` and `mark_job_running`, the starter's `*Provisioned` attributes, and
//!   the shadow's `beginExecution` (split out as [`activation_updates`] and
//!   [`begin_execution_updates`] for a daemon that starts the process later than the claim).
//! - While it runs, usage arrives ([`usage_updates`]) and the policy is evaluated
//!   ([`periodic_outcome`] turns a [`Firing`] into what the shadow or the schedd does).
//! - The process exits ([`job_exited`]: [`exit_updates`], then the policy at exit, then
//!   [`exit_outcome`]): it completes (`terminateJob`), is held, or goes back to idle to run
//!   again (`requeueJob`).
//! - Or it is evicted ([`evict_updates`]: `evictJob` and the schedd's requeue, with
//!   `SYSTEM_ON_VACATE_COOL_DOWN` and the vacate-to-hold conversion).
//!
//! Every end of a run then does what the schedd's `delete_shadow_rec` and `mark_job_stopped`
//! do ([`stop_updates`]): wall clock and slot time, `LastRemoteHost`, the claim attributes
//! deleted, the `MachineAttr*` history rotated for a job that will run again.
//!
//! Holds, releases and removals by the schedd ([`hold_updates`], [`release_updates`],
//! [`remove_updates`]) are `holdJobRaw`, `releaseJobRaw` and `abortJobRaw`, with the counters
//! setting `HoldReasonCode` updates (`NumHolds`, `NumHoldsByReason`).

use std::sync::Arc;

use crate::classad::intern::intern;
use crate::classad::{ClassAd, Expr, Value};
use crate::config::expand::{tokens, DEFAULT_DELIMS};
use crate::config::Config;
use crate::output::render::{lookup_int, lookup_real, lookup_str, lookup_value};
use crate::queue::universe;
use crate::queue::JobStatus;

use super::policy::{hold_codes, Firing, PolicyAction, UserPolicy};

/// Changes to a job ad: attributes to set, in order, and attributes to delete. A name is in
/// at most one of the two lists (case-insensitively): the later change wins.
#[derive(Clone, Debug, Default)]
pub struct AdUpdate {
    pub set: Vec<(String, Expr)>,
    pub delete: Vec<String>,
}

impl AdUpdate {
    pub fn new() -> AdUpdate {
        AdUpdate::default()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.delete.is_empty()
    }

    /// Sets `name` (replacing an earlier set or delete of it).
    pub fn set(&mut self, name: &str, expr: Expr) {
        self.delete.retain(|d| !d.eq_ignore_ascii_case(name));
        match self
            .set
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some(slot) => slot.1 = expr,
            None => self.set.push((name.to_owned(), expr)),
        }
    }

    /// Deletes `name` (replacing an earlier set of it).
    pub fn delete(&mut self, name: &str) {
        self.set.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if !self.delete.iter().any(|d| d.eq_ignore_ascii_case(name)) {
            self.delete.push(name.to_owned());
        }
    }

    /// The expression `name` is set to, if it is.
    pub fn get(&self, name: &str) -> Option<&Expr> {
        self.set
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, e)| e)
    }

    /// The literal value `name` is set to, if it is set to a literal.
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.get(name).and_then(Expr::as_literal)
    }

    /// Whether `name` is deleted.
    pub fn deletes(&self, name: &str) -> bool {
        self.delete.iter().any(|d| d.eq_ignore_ascii_case(name))
    }

    /// Adds `other`'s changes after these.
    pub fn extend(&mut self, other: AdUpdate) {
        for (n, e) in other.set {
            self.set(&n, e);
        }
        for d in other.delete {
            self.delete(&d);
        }
    }

    /// Applies the changes to an ad.
    pub fn apply(&self, ad: &mut ClassAd) {
        for (n, e) in &self.set {
            ad.insert(n, e.clone());
        }
        for d in &self.delete {
            ad.remove(d);
        }
    }
}

/// What the end of a run (or a policy action) does to a job: its new status, if it changes,
/// and the attribute changes.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub status: Option<JobStatus>,
    pub updates: AdUpdate,
}

/// The knobs the run bookkeeping reads.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// `SYSTEM_JOB_MACHINE_ATTRS`: slot attributes recorded as `MachineAttr<Name>0` in every
    /// job (after the job's own `JobMachineAttrs`).
    pub machine_attrs: Vec<String>,
    /// `SYSTEM_JOB_MACHINE_ATTRS_HISTORY_LENGTH`: how many runs of them to keep at least.
    pub machine_attrs_history: i64,
    /// `SYSTEM_ON_VACATE_COOL_DOWN`: seconds a requeued job waits before it may run again.
    pub cool_down: Option<Expr>,
}

impl Default for RunConfig {
    /// HTCondor's defaults: `Cpus,SlotWeight`, a history of 1, no cool-down.
    fn default() -> RunConfig {
        RunConfig {
            machine_attrs: vec!["Cpus".into(), "SlotWeight".into()],
            machine_attrs_history: 1,
            cool_down: None,
        }
    }
}

impl RunConfig {
    /// The knobs as the schedd reads them (`Scheduler::Init`); a knob that cannot be read
    /// keeps its default.
    pub fn from_config(config: &Config) -> RunConfig {
        let machine_attrs = config
            .string("SYSTEM_JOB_MACHINE_ATTRS")
            .ok()
            .flatten()
            .map(|v| tokens(&v, DEFAULT_DELIMS))
            .unwrap_or_default();
        let machine_attrs_history = config
            .int("SYSTEM_JOB_MACHINE_ATTRS_HISTORY_LENGTH")
            .ok()
            .flatten()
            .unwrap_or(1)
            .max(0);
        let cool_down = config.expr("SYSTEM_ON_VACATE_COOL_DOWN").ok().flatten();
        RunConfig {
            machine_attrs,
            machine_attrs_history,
            cool_down,
        }
    }
}

/// A job ad being changed: the ad as it becomes, and the changes made.
struct Work {
    ad: ClassAd,
    upd: AdUpdate,
}

impl Work {
    fn new(job: &ClassAd) -> Work {
        Work {
            ad: job.clone(),
            upd: AdUpdate::new(),
        }
    }

    fn set(&mut self, name: &str, expr: Expr) {
        self.ad.insert(name, expr.clone());
        self.upd.set(name, expr);
    }

    fn set_int(&mut self, name: &str, v: i64) {
        self.set(name, Expr::lit(v));
    }

    fn set_real(&mut self, name: &str, v: f64) {
        self.set(name, Expr::lit(v));
    }

    fn set_str(&mut self, name: &str, v: &str) {
        self.set(name, Expr::lit(v));
    }

    fn set_bool(&mut self, name: &str, v: bool) {
        self.set(name, Expr::lit(v));
    }

    fn delete(&mut self, name: &str) {
        self.ad.remove(name);
        self.upd.delete(name);
    }

    fn apply(&mut self, u: &AdUpdate) {
        for (n, e) in &u.set {
            self.set(n, e.clone());
        }
        for d in &u.delete {
            self.delete(d);
        }
    }

    fn int(&self, name: &str) -> Option<i64> {
        lookup_int(&self.ad, name)
    }

    fn real(&self, name: &str) -> Option<f64> {
        lookup_real(&self.ad, name)
    }

    fn string(&self, name: &str) -> Option<Arc<str>> {
        lookup_str(&self.ad, name)
    }

    fn incr(&mut self, name: &str) -> i64 {
        let n = self.int(name).unwrap_or(0) + 1;
        self.set_int(name, n);
        n
    }

    fn status(&self) -> Option<JobStatus> {
        self.int("JobStatus").and_then(JobStatus::from_code)
    }

    fn outcome(self, status: Option<JobStatus>) -> Outcome {
        Outcome {
            status,
            updates: self.upd,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Start

/// What HTCondor sets when a job starts running on a slot (the job's status, to Running, is
/// the caller's): [`activation_updates`] and then [`begin_execution_updates`] at the same
/// time, for a daemon that starts the process as soon as it has the slot. `slot_ad` is the
/// slot's machine ad, `slot_name` its `Name` (the job's `RemoteHost`). Uses HTCondor's default
/// `SYSTEM_JOB_MACHINE_ATTRS` ([`start_updates_with`] takes the configured ones).
pub fn start_updates(job: &ClassAd, slot_ad: &ClassAd, slot_name: &str, now: i64) -> AdUpdate {
    start_updates_with(&RunConfig::default(), job, slot_ad, slot_name, now)
}

/// [`start_updates`] with the pool's [`RunConfig`].
pub fn start_updates_with(
    cfg: &RunConfig,
    job: &ClassAd,
    slot_ad: &ClassAd,
    slot_name: &str,
    now: i64,
) -> AdUpdate {
    let mut w = Work::new(job);
    activation(&mut w, cfg, slot_ad, slot_name, now);
    begin_execution(&mut w, now);
    w.upd
}

/// The schedd's side of a start (`add_shadow_rec`, `add_shadow_birthdate`,
/// `InsertMachineAttrs`, `mark_serial_job_running`) and the starter's first update:
///
/// - `StartdIpAddr` (the slot's `MyAddress`), `LastJobLeaseRenewal`, `RemoteHost`,
///   `RemoteSlotID` (the slot's `SlotID`, 1 when it has none);
/// - `NumJobMatches` + 1, `LastMatchTime`, `LastMatchName0` (when the job keeps a
///   `LastMatchListLength`), `MachineAttr<Name>0` for each of the job's `JobMachineAttrs` and
///   the system's (`Cpus`, `SlotWeight` by default; the slot's value, `undefined` when it has
///   none), unless the history length is 0;
/// - `ShadowBday`, `JobStartDate` (first run only), `JobLastStartDate` (the previous
///   `JobCurrentStartDate`), `JobCurrentStartDate`, `NumShadowStarts` + 1 and `JobRunCount`
///   (equal to it; in the scheduler universe `JobRunCount` + 1 only), `NumRestarts` + 1 for a
///   VM job restarting from a checkpoint; the previous run's `VacateReason*` deleted;
/// - `OrigMaxHosts` (`MaxHosts`, 1 by default), `LastSuspensionTime` 0, `CurrentHosts` 1;
/// - `ProvisionedResources` (the slot's `MachineResources`), `<Res>Provisioned` for each of
///   them (`CPUs, Disk, Memory` when the slot does not list them), `Assigned<Res>` when the
///   slot has it. The slot's expressions are copied when literal, else evaluated in the slot.
pub fn activation_updates(
    cfg: &RunConfig,
    job: &ClassAd,
    slot_ad: &ClassAd,
    slot_name: &str,
    now: i64,
) -> AdUpdate {
    let mut w = Work::new(job);
    activation(&mut w, cfg, slot_ad, slot_name, now);
    w.upd
}

/// The shadow's `beginExecution` and `resourceBeganExecution`, when the job's process starts
/// (after input transfer): `JobCurrentStartExecutingDate`, `ActivationSetupDuration` (since
/// `JobCurrentStartDate`), `NumJobStarts` + 1. `job` must already carry the
/// [`activation_updates`].
pub fn begin_execution_updates(job: &ClassAd, now: i64) -> AdUpdate {
    let mut w = Work::new(job);
    begin_execution(&mut w, now);
    w.upd
}

fn activation(w: &mut Work, cfg: &RunConfig, slot: &ClassAd, slot_name: &str, now: i64) {
    // add_shadow_rec
    if let Some(addr) = lookup_str(slot, "MyAddress") {
        w.set_str("StartdIpAddr", &addr);
    }
    w.set_int("LastJobLeaseRenewal", now);
    w.set_str("RemoteHost", slot_name);
    w.set_int("RemoteSlotID", lookup_int(slot, "SlotID").unwrap_or(1));
    insert_machine_attrs(w, cfg, slot, slot_name, now);

    // add_shadow_birthdate
    w.set_int("ShadowBday", now);
    if w.int("JobStartDate").is_none() {
        w.set_int("JobStartDate", now);
    }
    if let Some(current) = w.int("JobCurrentStartDate") {
        w.set_int("JobLastStartDate", current);
    }
    w.set_int("JobCurrentStartDate", now);
    let universe = w.int("JobUniverse").unwrap_or(5);
    if universe == universe::SCHEDULER {
        w.incr("JobRunCount");
    } else {
        let n = w.incr("NumShadowStarts");
        w.set_int("JobRunCount", n);
    }
    if universe == universe::VM && w.int("LastCkptTime").unwrap_or(0) > 0 {
        w.incr("NumRestarts");
    }
    w.delete("VacateReason");
    w.delete("VacateReasonCode");
    w.delete("VacateReasonSubCode");

    // mark_serial_job_running (JobStatus and EnteredCurrentStatus are the caller's)
    let max_hosts = w.int("MaxHosts").unwrap_or(1);
    w.set_int("OrigMaxHosts", max_hosts);
    w.set_int("LastSuspensionTime", 0);
    w.set_int("CurrentHosts", 1);

    // The starter's correction of the Provisioned attributes.
    let resources = lookup_str(slot, "MachineResources");
    if let Some(r) = &resources {
        w.set_str("ProvisionedResources", r);
    }
    let list = resources
        .as_deref()
        .unwrap_or("CPUs, Disk, Memory")
        .to_owned();
    for res in tokens(&list, DEFAULT_DELIMS) {
        if let Some(e) = slot_expr(slot, &res) {
            w.set(&format!("{res}Provisioned"), e);
        }
        let assigned = format!("Assigned{res}");
        if let Some(e) = slot_expr(slot, &assigned) {
            w.set(&assigned, e);
        }
    }
}

/// A slot attribute to copy into the job: literals as they are, other expressions evaluated
/// in the slot (their references would mean something else in the job).
fn slot_expr(slot: &ClassAd, name: &str) -> Option<Expr> {
    match slot.lookup(name)? {
        e @ Expr::Lit(_) => Some(e.clone()),
        _ => Some(Expr::from_value(&slot.eval_attr(name))),
    }
}

fn begin_execution(w: &mut Work, now: i64) {
    w.set_int("JobCurrentStartExecutingDate", now);
    let start = w.int("JobCurrentStartDate").unwrap_or(now);
    w.set_int("ActivationSetupDuration", now - start);
    w.incr("NumJobStarts");
}

/// The job's machine attributes and the system's, without repeats; and the history length.
fn machine_attrs(w: &Work, cfg: &RunConfig) -> (Vec<String>, i64) {
    let mut attrs = w
        .string("JobMachineAttrs")
        .map(|s| tokens(&s, DEFAULT_DELIMS))
        .unwrap_or_default();
    for a in &cfg.machine_attrs {
        if !attrs.iter().any(|x| x.eq_ignore_ascii_case(a)) {
            attrs.push(a.clone());
        }
    }
    let history = w
        .int("JobMachineAttrsHistoryLength")
        .unwrap_or(1)
        .max(cfg.machine_attrs_history);
    (attrs, history)
}

/// `InsertMachineAttrs` at a start.
fn insert_machine_attrs(w: &mut Work, cfg: &RunConfig, slot: &ClassAd, slot_name: &str, now: i64) {
    if w.int("LastMatchListLength").unwrap_or(0) > 0 {
        let name = lookup_str(slot, "Name");
        w.set_str("LastMatchName0", name.as_deref().unwrap_or(slot_name));
    }
    w.incr("NumJobMatches");
    w.set_int("LastMatchTime", now);
    let (attrs, history) = machine_attrs(w, cfg);
    if history == 0 {
        return;
    }
    for a in attrs {
        let v = slot.eval_attr(&a);
        w.set(&format!("MachineAttr{a}0"), Expr::from_value(&v));
    }
}

/// `InsertMachineAttrs` when a job goes back to wait: each list shifted one place
/// (`X0` to `X1`, ...), when there is a new `X0`.
fn rotate_machine_attrs(w: &mut Work, cfg: &RunConfig) {
    let list_len = w.int("LastMatchListLength").unwrap_or(0);
    if list_len > 0 {
        rotate_list(w, "LastMatchName", list_len);
    }
    let (attrs, history) = machine_attrs(w, cfg);
    if history == 0 {
        return;
    }
    for a in attrs {
        rotate_list(w, &format!("MachineAttr{a}"), history);
    }
}

/// `RotateAttributeList`.
fn rotate_list(w: &mut Work, prefix: &str, len: i64) {
    if len < 2 || w.ad.lookup(&format!("{prefix}0")).is_none() {
        return;
    }
    for i in (1..len).rev() {
        if let Some(e) = w.ad.lookup(&format!("{prefix}{}", i - 1)).cloned() {
            w.set(&format!("{prefix}{i}"), e);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Usage and exit

/// CPU seconds of the current run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuUsage {
    pub user: f64,
    pub sys: f64,
}

/// How the job's process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitHow {
    /// It exited with this code.
    Code(i64),
    /// A signal killed it.
    Signal { signal: i64, core_dumped: bool },
}

/// What the starter reports when the job's process exits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExitInfo {
    pub how: ExitHow,
    /// The run's CPU totals at exit.
    pub usage: CpuUsage,
    /// The usage already reported during this run ([`usage_updates`]); zero when there were
    /// no earlier reports.
    pub reported: CpuUsage,
}

impl ExitInfo {
    /// An exit with `code`, no CPU usage.
    pub fn code(code: i64) -> ExitInfo {
        ExitInfo {
            how: ExitHow::Code(code),
            usage: CpuUsage::default(),
            reported: CpuUsage::default(),
        }
    }

    /// Killed by `signal`.
    pub fn signal(signal: i64, core_dumped: bool) -> ExitInfo {
        ExitInfo {
            how: ExitHow::Signal {
                signal,
                core_dumped,
            },
            usage: CpuUsage::default(),
            reported: CpuUsage::default(),
        }
    }

    /// With the run's CPU totals.
    pub fn with_usage(mut self, user: f64, sys: f64) -> ExitInfo {
        self.usage = CpuUsage { user, sys };
        self
    }
}

/// A usage report during a run (the shadow's `updateFromStarter`): when the run's CPU time
/// grew since `reported` (what this run reported before, 0 at first; the shadow keeps it in
/// whole seconds), `RemoteSysCpu` / `RemoteUserCpu` become the run's totals and
/// `CumulativeRemoteSysCpu` / `CumulativeRemoteUserCpu` grow by the difference.
pub fn usage_updates(job: &ClassAd, usage: CpuUsage, reported: CpuUsage) -> AdUpdate {
    let mut w = Work::new(job);
    cpu_updates(&mut w, usage, reported);
    w.upd
}

fn cpu_updates(w: &mut Work, usage: CpuUsage, reported: CpuUsage) {
    for (run, cumulative, new, prev) in [
        (
            "RemoteSysCpu",
            "CumulativeRemoteSysCpu",
            usage.sys,
            reported.sys,
        ),
        (
            "RemoteUserCpu",
            "CumulativeRemoteUserCpu",
            usage.user,
            reported.user,
        ),
    ] {
        let prev = prev.trunc();
        if new > prev {
            let total = w.real(cumulative).unwrap_or(0.0);
            w.set_real(cumulative, total + (new - prev));
            w.set_real(run, new);
        }
    }
}

/// What the shadow records when the job's process exits, before the policy looks at it
/// (`pseudo_job_exit`, `updateFromStarter`, `resourceExit`): the CPU usage
/// ([`usage_updates`]), `ExitBySignal`, and `ExitCode` or `ExitSignal` with `ExitReason`
/// (`died on signal 9 (Killed)`) and `JobCoreDumped` (when it dumped core), one more
/// `NumJobCompletions`, `ActivationDuration` and `ActivationTeardownDuration` (when execution
/// had begun).
/// Apply them, then ask [`UserPolicy::at_exit`], then [`exit_outcome`]; [`job_exited`] does
/// all three.
pub fn exit_updates(job: &ClassAd, exit: &ExitInfo, now: i64) -> AdUpdate {
    let mut w = Work::new(job);
    exit_attrs(&mut w, exit, now);
    w.upd
}

fn exit_attrs(w: &mut Work, exit: &ExitInfo, now: i64) {
    cpu_updates(w, exit.usage, exit.reported);
    match exit.how {
        ExitHow::Code(code) => {
            w.set_bool("ExitBySignal", false);
            w.set_int("ExitCode", code);
        }
        ExitHow::Signal {
            signal,
            core_dumped,
        } => {
            w.set_bool("ExitBySignal", true);
            w.set_int("ExitSignal", signal);
            w.set_str(
                "ExitReason",
                &format!("died on signal {signal} ({})", signal_description(signal)),
            );
            if core_dumped {
                w.set_bool("JobCoreDumped", true);
            }
        }
    }
    w.incr("NumJobCompletions");
    if w.int("JobCurrentStartExecutingDate").is_some() {
        let start = w.int("JobCurrentStartDate").unwrap_or(now);
        w.set_int("ActivationDuration", now - start);
        w.set_int("ActivationTeardownDuration", 0);
    }
}

/// What follows the policy's answer at exit (`ShadowUserPolicy::doAction` at exit, then the
/// schedd's `jobExitCode` and `delete_shadow_rec`). `job` carries the [`exit_updates`].
///
/// - `RemoveFromQueue`: the job completes (`terminateJob`): `TerminationPending`,
///   `CommittedTime` and `CommittedSlotTime` grow by the run (since `JobCurrentStartDate`, or
///   the last checkpoint), suspension time is committed, `CompletionDate`; status Completed
///   (a job removed or held meanwhile stays so). So does `ReleaseFromHold` (the scheduler
///   universe's "allowing job to exit queue").
/// - `HoldInQueue`, `UndefinedEval`: held with the firing's reason and codes.
/// - `StaysInQueue`: `RequeueReason`, and back to idle to run again (or cooling down, or held
///   by a vacate code, as [`evict_updates`]).
///
/// Then [`stop_updates`].
pub fn exit_outcome(cfg: &RunConfig, job: &ClassAd, firing: &Firing, now: i64) -> Outcome {
    let mut w = Work::new(job);
    let status = exit_action(&mut w, cfg, firing, now);
    w.outcome(status)
}

/// The whole end of a run whose process exited: [`exit_updates`], the policy's answer
/// ([`UserPolicy::at_exit`]), and [`exit_outcome`], the updates relative to `job`.
pub fn job_exited(
    policy: &UserPolicy,
    cfg: &RunConfig,
    job: &ClassAd,
    exit: &ExitInfo,
    now: i64,
) -> (Firing, Outcome) {
    let mut w = Work::new(job);
    exit_attrs(&mut w, exit, now);
    let firing = policy.at_exit(&w.ad, now);
    let status = exit_action(&mut w, cfg, &firing, now);
    (firing, w.outcome(status))
}

fn exit_action(w: &mut Work, cfg: &RunConfig, firing: &Firing, now: i64) -> Option<JobStatus> {
    let current = w.status();
    let new = match firing.action {
        PolicyAction::RemoveFromQueue | PolicyAction::ReleaseFromHold => {
            let fin = match current {
                Some(s @ (JobStatus::Removed | JobStatus::Held)) => s,
                _ => JobStatus::Completed,
            };
            terminate(w, fin, now);
            stop(w, cfg, fin, now);
            fin
        }
        PolicyAction::HoldInQueue | PolicyAction::UndefinedEval => {
            set_hold(w, firing.reason_or_unknown(), firing.code, firing.subcode);
            let fin = to_held(current);
            stop(w, cfg, fin, now);
            fin
        }
        PolicyAction::StaysInQueue => {
            w.set_str("RequeueReason", firing.reason_or_unknown());
            requeue(w, cfg, current, now)
        }
        PolicyAction::VacateFromRunning => evict(
            w,
            cfg,
            firing.reason_or_unknown(),
            firing.vacate_code(),
            firing.subcode,
            now,
        ),
    };
    changed(current, new)
}

fn changed(current: Option<JobStatus>, new: JobStatus) -> Option<JobStatus> {
    (current != Some(new)).then_some(new)
}

/// The schedd's `JOB_SHOULD_HOLD`: held, unless removed or completed already.
fn to_held(current: Option<JobStatus>) -> JobStatus {
    match current {
        Some(s @ (JobStatus::Removed | JobStatus::Completed)) => s,
        _ => JobStatus::Held,
    }
}

/// `terminateJob`'s final accounting.
fn terminate(w: &mut Work, fin: JobStatus, now: i64) {
    w.set_bool("TerminationPending", true);
    let ckpt = w
        .int("LastCkptTime")
        .or_else(|| w.int("JobLastCheckpointTime"))
        .unwrap_or(0);
    let base = ckpt.max(w.int("JobCurrentStartDate").unwrap_or(0));
    if base > 0 {
        let delta = now - base;
        let committed = w.int("CommittedTime").unwrap_or(0) + delta;
        w.set_int("CommittedTime", committed);
        let weight = w.real("MachineAttrSlotWeight0").unwrap_or(1.0);
        let slot_time = w.real("CommittedSlotTime").unwrap_or(0.0) + weight * delta as f64;
        w.set_real("CommittedSlotTime", slot_time);
    }
    commit_suspension_time(w);
    if fin == JobStatus::Completed && w.int("CompletionDate").unwrap_or(0) == 0 {
        w.set_int("CompletionDate", now);
    }
}

/// `CommitSuspensionTime`.
fn commit_suspension_time(w: &mut Work) {
    let uncommitted = w.int("UncommittedSuspensionTime").unwrap_or(0);
    if uncommitted > 0 {
        let committed = w.int("CommittedSuspensionTime").unwrap_or(0) + uncommitted;
        w.set_int("CommittedSuspensionTime", committed);
        w.set_int("UncommittedSuspensionTime", 0);
    }
}

// ---------------------------------------------------------------------------------------------
// Eviction and the end of every run

/// A run that ends by eviction (vacate, preemption, `PeriodicVacate`, a failed start): the
/// shadow's `evictJob` (`LastVacateTime`, `VacateReason`, `VacateReasonCode`,
/// `VacateReasonSubCode`; an empty reason is `Unspecified job interruption` with code 1005),
/// then the schedd's requeue: when `SYSTEM_ON_VACATE_COOL_DOWN` evaluates to a positive
/// number in the job, `NumJobCoolDowns` + 1 and `JobCoolDownExpiration`; otherwise a vacate
/// code below 1000 turns into a hold with the vacate reason; otherwise back to idle.
/// `NumJobStarts` and `NumJobCompletions` are kept. Then [`stop_updates`].
pub fn evict_updates(
    cfg: &RunConfig,
    job: &ClassAd,
    reason: &str,
    code: i64,
    subcode: i64,
    now: i64,
) -> Outcome {
    let mut w = Work::new(job);
    let current = w.status();
    let new = evict(&mut w, cfg, reason, code, subcode, now);
    w.outcome(changed(current, new))
}

fn evict(
    w: &mut Work,
    cfg: &RunConfig,
    reason: &str,
    code: i64,
    subcode: i64,
    now: i64,
) -> JobStatus {
    let (reason, code) = if reason.is_empty() {
        (
            "Unspecified job interruption",
            hold_codes::JOB_SHOULD_REQUEUE,
        )
    } else {
        (reason, code)
    };
    w.set_int("LastVacateTime", now);
    w.set_str("VacateReason", reason);
    set_vacate_code(w, code);
    w.set_int("VacateReasonSubCode", subcode);
    let current = w.status();
    requeue(w, cfg, current, now)
}

/// The schedd's `JOB_SHOULD_REQUEUE`, then [`stop`].
fn requeue(w: &mut Work, cfg: &RunConfig, current: Option<JobStatus>, now: i64) -> JobStatus {
    let running = matches!(
        current,
        None | Some(JobStatus::Running | JobStatus::TransferringOutput | JobStatus::Suspended)
    );
    let cool = cfg
        .cool_down
        .as_ref()
        .and_then(|e| crate::classad::eval_expr(e, Some(&w.ad), None).ok())
        .and_then(|v| v.as_number_int())
        .filter(|&n| n > 0);
    let mut fin = if running {
        JobStatus::Idle
    } else {
        current.unwrap_or(JobStatus::Idle)
    };
    if let Some(secs) = cool {
        w.incr("NumJobCoolDowns");
        w.set_int("JobCoolDownExpiration", now + secs);
    } else {
        let code = w.int("VacateReasonCode").unwrap_or(0);
        if code > 0 && code < hold_codes::VACATE_BASE {
            let reason = w.string("VacateReason");
            let subcode = w.int("VacateReasonSubCode");
            w.set_str("HoldReason", reason.as_deref().unwrap_or(""));
            set_hold_code(w, code);
            if let Some(s) = subcode {
                w.set_int("HoldReasonSubCode", s);
            }
            fin = to_held(current);
        }
    }
    stop(w, cfg, fin, now);
    fin
}

/// What the schedd does when a run ends, whatever its end (`delete_shadow_rec`,
/// `update_remote_wall_clock`, `check_zombie`, `mark_job_stopped`), `final_status` being the
/// status the job ends up in:
///
/// - `LastRemoteWallClockTime` (this run's seconds since `ShadowBday`), `RemoteWallClockTime`
///   and `CumulativeSlotTime` (weighted by `MachineAttrSlotWeight0`) grow by it,
///   `WallClockCheckpoint` deleted;
/// - `LastRemoteHost` (from `RemoteHost`), `LastRemotePool` (or deleted),
///   `LastPublicClaimId(s)`; then `ClaimId(s)`, `PublicClaimId(s)`, `StartdIpAddr`,
///   `RemoteHost`, `RemotePool`, `RemoteSlotID`, `DelegatedProxyExpiration`,
///   `TransferringInput`, `TransferringOutput`, `TransferQueued`, `ShadowBday` deleted;
/// - the `MachineAttr*` (and `LastMatchName*`) history rotated, unless it completed or was
///   removed;
/// - `CurrentHosts` 0, `LastSuspensionTime` 0, and, back to idle, `MaxHosts` restored from
///   `OrigMaxHosts`.
pub fn stop_updates(cfg: &RunConfig, job: &ClassAd, final_status: JobStatus, now: i64) -> AdUpdate {
    let mut w = Work::new(job);
    stop(&mut w, cfg, final_status, now);
    w.upd
}

fn stop(w: &mut Work, cfg: &RunConfig, fin: JobStatus, now: i64) {
    let bday = w.int("ShadowBday").unwrap_or(0);
    if bday != 0 {
        let delta = (now - bday) as f64;
        w.set_real("LastRemoteWallClockTime", delta);
        let wall = w.real("RemoteWallClockTime").unwrap_or(0.0) + delta;
        w.set_real("RemoteWallClockTime", wall);
        w.delete("WallClockCheckpoint");
        let weight = w.real("MachineAttrSlotWeight0").unwrap_or(1.0);
        let slot_time = w.real("CumulativeSlotTime").unwrap_or(0.0) + delta * weight;
        w.set_real("CumulativeSlotTime", slot_time);
    }
    if let Some(host) = w.string("RemoteHost") {
        w.set_str("LastRemoteHost", &host);
    }
    match w.string("RemotePool") {
        Some(pool) => w.set_str("LastRemotePool", &pool),
        None => w.delete("LastRemotePool"),
    }
    for (from, to) in [
        ("PublicClaimId", "LastPublicClaimId"),
        ("PublicClaimIds", "LastPublicClaimIds"),
    ] {
        if let Some(v) = w.string(from) {
            w.set_str(to, &v);
        }
    }
    for name in [
        "ClaimId",
        "PublicClaimId",
        "ClaimIds",
        "PublicClaimIds",
        "StartdIpAddr",
        "RemoteHost",
        "RemotePool",
        "RemoteSlotID",
        "DelegatedProxyExpiration",
        "TransferringInput",
        "TransferringOutput",
        "TransferQueued",
    ] {
        w.delete(name);
    }
    if !matches!(fin, JobStatus::Completed | JobStatus::Removed) {
        rotate_machine_attrs(w, cfg);
    }
    w.delete("ShadowBday");
    w.set_int("CurrentHosts", 0);
    w.set_int("LastSuspensionTime", 0);
    if fin == JobStatus::Idle {
        if let Some(orig) = w.int("OrigMaxHosts") {
            w.set_int("MaxHosts", orig);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Policy actions, holds, releases, removals

/// What the periodic policy's answer does to a job (`PeriodicExprEval` in the schedd for a
/// job that is not running, `ShadowUserPolicy::doAction` for a running one); `None` when it
/// does nothing.
///
/// Not running: `RemoveFromQueue` removes a job not removed yet ([`remove_updates`]),
/// `HoldInQueue` holds a job not held yet ([`hold_updates`]), `ReleaseFromHold` releases a
/// held one ([`release_updates`]); the reason is `Unknown user policy expression` when the
/// firing has none. `UndefinedEval` and `VacateFromRunning` do nothing.
///
/// Running (Running, Suspended or TransferringOutput): `HoldInQueue` and `UndefinedEval`
/// hold it, `RemoveFromQueue` sets `RemoveReason` and removes it (both ending the run:
/// [`stop_updates`]), `VacateFromRunning` evicts it with the vacate code
/// ([`Firing::vacate_code`], [`evict_updates`]).
///
/// A job that ends Completed or Removed then leaves the queue (`DestroyProc`).
pub fn periodic_outcome(
    cfg: &RunConfig,
    job: &ClassAd,
    status: JobStatus,
    firing: &Firing,
    now: i64,
) -> Option<Outcome> {
    let reason = firing.reason_or_unknown();
    let running = matches!(
        status,
        JobStatus::Running | JobStatus::Suspended | JobStatus::TransferringOutput
    );
    let mut w = Work::new(job);
    if running {
        let new = match firing.action {
            PolicyAction::HoldInQueue | PolicyAction::UndefinedEval => {
                set_hold(&mut w, reason, firing.code, firing.subcode);
                stop(&mut w, cfg, JobStatus::Held, now);
                JobStatus::Held
            }
            PolicyAction::RemoveFromQueue => {
                w.set_str("RemoveReason", reason);
                stop(&mut w, cfg, JobStatus::Removed, now);
                JobStatus::Removed
            }
            PolicyAction::VacateFromRunning => evict(
                &mut w,
                cfg,
                reason,
                firing.vacate_code(),
                firing.subcode,
                now,
            ),
            PolicyAction::ReleaseFromHold | PolicyAction::StaysInQueue => return None,
        };
        return Some(w.outcome(changed(Some(status), new)));
    }
    match firing.action {
        PolicyAction::RemoveFromQueue if status != JobStatus::Removed => {
            Some(remove_updates(job, reason))
        }
        PolicyAction::HoldInQueue if status != JobStatus::Held => Some(Outcome {
            status: Some(JobStatus::Held),
            updates: hold_updates(job, reason, firing.code, firing.subcode),
        }),
        PolicyAction::ReleaseFromHold if status == JobStatus::Held => {
            Some(release_updates(job, reason))
        }
        _ => None,
    }
}

/// `HoldReason`, `HoldReasonCode`, `HoldReasonSubCode` and the hold counters.
fn set_hold(w: &mut Work, reason: &str, code: i64, subcode: i64) {
    w.set_str("HoldReason", reason);
    set_hold_code(w, code);
    w.set_int("HoldReasonSubCode", subcode);
}

/// Setting `HoldReasonCode`: unless it is a hold for spooling, `NumHolds` + 1 and
/// `NumHoldsByReason.<CodeName>` + 1 (`Unspecified` for an unknown code).
fn set_hold_code(w: &mut Work, code: i64) {
    w.set_int("HoldReasonCode", code);
    if code == hold_codes::SPOOLING_INPUT {
        return;
    }
    count_by_reason(w, "NumHolds", "NumHoldsByReason", code);
}

/// Setting `VacateReasonCode` (qmgmt.cpp): `NumVacates` + 1 and
/// `NumVacatesByReason.<CodeName>` + 1, and their `...PreExecution` twins when the job had not
/// begun executing in this run (no `JobCurrentStartExecutingDate`, or one older than the
/// run's `ShadowBday`).
fn set_vacate_code(w: &mut Work, code: i64) {
    w.set_int("VacateReasonCode", code);
    count_by_reason(w, "NumVacates", "NumVacatesByReason", code);
    let began = w.int("JobCurrentStartExecutingDate").unwrap_or(0);
    let birthday = w.int("ShadowBday").unwrap_or(0);
    if began == 0 || birthday > began {
        count_by_reason(
            w,
            "NumVacatesPreExecution",
            "NumVacatesByReasonPreExecution",
            code,
        );
    }
}

/// `total` + 1, and the code's name + 1 in the nested ad `by_reason` (`Unspecified` for an
/// unknown code).
fn count_by_reason(w: &mut Work, total: &str, by_reason: &str, code: i64) {
    w.incr(total);
    let mut counts = match lookup_value(&w.ad, by_reason) {
        Some(Value::Ad(frame)) => frame.ad_snapshot(),
        _ => ClassAd::new(),
    };
    let name = hold_codes::name(code).unwrap_or("Unspecified");
    let n = lookup_int(&counts, name).unwrap_or(0);
    counts.insert_named(intern(name), Expr::lit(n + 1));
    w.set(by_reason, Expr::Ad(Box::new(counts)));
}

/// A hold by the schedd (`holdJobRaw`; the status, to Held, is the caller's): `HoldReason`,
/// `HoldReasonCode`, `HoldReasonSubCode`, the hold counters, `ReleaseReason` moved to
/// `LastReleaseReason`, `LastSuspensionTime` 0. For a job that is running, end the run too
/// ([`stop_updates`]).
pub fn hold_updates(job: &ClassAd, reason: &str, code: i64, subcode: i64) -> AdUpdate {
    let mut w = Work::new(job);
    set_hold(&mut w, reason, code, subcode);
    move_str(&mut w, "ReleaseReason", "LastReleaseReason");
    w.set_int("LastSuspensionTime", 0);
    w.upd
}

/// A release by the schedd (`releaseJobRaw`): `ReleaseReason` (unless empty), the status
/// `JobStatusOnRelease` says (Idle by default), `HoldReason`, `HoldReasonCode` and
/// `HoldReasonSubCode` moved to their `Last*` names, `JobStatusOnRelease` deleted,
/// `LastSuspensionTime` 0.
pub fn release_updates(job: &ClassAd, reason: &str) -> Outcome {
    let mut w = Work::new(job);
    if !reason.is_empty() {
        w.set_str("ReleaseReason", reason);
    }
    let status = w
        .int("JobStatusOnRelease")
        .and_then(JobStatus::from_code)
        .unwrap_or(JobStatus::Idle);
    move_hold_reasons(&mut w);
    w.set_int("LastSuspensionTime", 0);
    w.outcome(Some(status))
}

/// A removal by the schedd (`abortJobRaw`): status Removed, `RemoveReason` (unless empty),
/// the hold reasons moved to their `Last*` names, `JobStatusOnRelease` deleted.
pub fn remove_updates(job: &ClassAd, reason: &str) -> Outcome {
    let mut w = Work::new(job);
    if !reason.is_empty() {
        w.set_str("RemoveReason", reason);
    }
    move_hold_reasons(&mut w);
    w.outcome(Some(JobStatus::Removed))
}

/// `fixReasonAttrs` for a release or a removal.
fn move_hold_reasons(w: &mut Work) {
    move_str(w, "HoldReason", "LastHoldReason");
    move_int(w, "HoldReasonCode", "LastHoldReasonCode");
    move_int(w, "HoldReasonSubCode", "LastHoldReasonSubCode");
    w.delete("JobStatusOnRelease");
}

/// `moveStrAttr`.
fn move_str(w: &mut Work, from: &str, to: &str) {
    if let Some(v) = w.string(from) {
        w.set_str(to, &v);
        w.delete(from);
    }
}

/// `moveIntAttr`.
fn move_int(w: &mut Work, from: &str, to: &str) {
    if let Some(v) = w.int(from) {
        w.set_int(to, v);
        w.delete(from);
    }
}

/// The job ad with `update` applied.
pub fn updated(job: &ClassAd, update: &AdUpdate) -> ClassAd {
    let mut w = Work::new(job);
    w.apply(update);
    w.ad
}

/// glibc's `strsignal` text for a signal, as `DaemonCore::GetExceptionString` prints it.
pub fn signal_description(signal: i64) -> String {
    crate::starter::signal_description(i32::try_from(signal).unwrap_or(-1))
}
