//! The startd as a library: the machine's slots, their ads and their state machines, as
//! HTCondor's condor_startd keeps them (src/condor_startd.V6/), for the master to drive.
//!
//! [`Startd::from_config`] reads the machine ([`machine`]), its custom resources
//! ([`resources`]) and the slot layout ([`layout`]) from the configuration, and builds the slots
//! ([`slot`]). The master then calls, with the time passed in so that everything is
//! deterministic (no threads, no timers here: every decision is a function of the
//! configuration, the slots, the machine's inputs and `now`):
//!
//! - [`Startd::evaluate`] at [`Startd::next_timer`] (and after any request below): it
//!   refreshes load, idle times and clock ([`Startd::refresh`] alone does that without
//!   collecting anything), runs the policy over every slot, and returns the [`Decision`]s:
//!   what to do to running jobs ([`JobAction`]: suspend, continue, vacate, kill), idle claims
//!   the startd ended, and a finished drain's exit, restart or reconfiguration;
//! - [`Startd::slot_ads`] and [`Startd::daemon_ad`] for what `condor_status` shows and the
//!   negotiator matches against;
//! - [`Startd::claim`], [`Startd::activate`], [`Startd::job_ended`] (which says whether the
//!   claim survives the job), [`Startd::release`] as the negotiator matches jobs and they
//!   run (a claim on a partitionable slot carves a dynamic slot, `slot1_1@host`, and its end
//!   gives its resources back);
//! - [`Startd::may_reuse`] when a job ends, to decide whether the claim runs another;
//! - [`Startd::preempt`] (and [`Startd::withdraw_preemption`]) when the negotiator preempts a
//!   claim for RANK or user priority; [`Startd::suspend_claim`]/[`Startd::continue_claim`]
//!   for `condor_suspend`/`condor_continue`;
//! - [`Startd::drain`] and [`Startd::cancel_drain`] for `condor_drain` (`drain.rs`);
//! - [`Startd::reconfigure`] on `condor_reconfig`.
//!
//! The state machine is in [`state`] (every transition in one table, with HTCondor's
//! numbers) and the policy that drives it in `policy.rs` (START, IS_OWNER, SUSPEND,
//! CONTINUE, PREEMPT, WANT_SUSPEND, WANT_VACATE, KILL and their `_VANILLA` forms,
//! MaxJobRetirementTime, MachineMaxVacateTime/JobMaxVacateTime, KILLING_TIMEOUT,
//! CLAIM_WORKLIFE, MATCH_TIMEOUT; see its documentation); the ads are assembled in `ads.rs`,
//! attribute by attribute as HTCondor's `Resource::publish_static`/`publish_dynamic` do. The
//! environment a slot's resources give a job (`_CONDOR_AssignedGPUs`,
//! `CUDA_VISIBLE_DEVICES`) is in [`env`].
//!
//! # The machine's inputs, for tests
//!
//! The policy reads the machine's load average (`/proc/loadavg`) and how long its keyboard
//! and console have been idle (the terminals' access times), through [`Probe`]. The
//! condorlite knob `CONDORLITE_MACHINE_INPUTS` names a file of `Name = value` lines,
//! `LoadAvg`, `KeyboardIdle` and `ConsoleIdle` ([`MachineInputs`]), that replace what the
//! probe would say; a name the file leaves out comes from the probe. The file is read again
//! at every refresh, so that a test driving a pool process can move the policy by rewriting
//! it. As in HTCondor, `KeyboardIdle` and `ConsoleIdle` reach only the slots connected to the
//! keyboard and console (`SLOTS_CONNECTED_TO_KEYBOARD`, `SLOTS_CONNECTED_TO_CONSOLE`; the
//! others see the startd's age plus `DISCONNECTED_KEYBOARD_IDLE_BOOST`), and `LoadAvg` is
//! the machine's, shared out among the slots.

mod ads;
mod drain;
pub mod env;
pub mod layout;
pub mod machine;
mod policy;
pub mod resources;
pub mod slot;
pub mod state;
#[cfg(test)]
mod tests;

use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr, Value};
use crate::config::{Config, ConfigError, View};
pub use drain::{
    DrainRequest, DrainSchedule, OnCompletion, DRAINING_ALREADY_IN_PROGRESS,
    DRAINING_CHECK_EXPR_FAILED, DRAINING_NO_MATCHING_REQUEST_ID,
};
use layout::{Resources, SlotPlan, SlotTypes};
use machine::Machine;
pub use machine::{MachineInputs, Probe};
use resources::MachineResources;
use slot::{Claim, Slot, SlotKind};
pub use state::{Activity, Event, State};

/// The version string every condorlite daemon publishes (`CondorVersion`).
pub use crate::version::CONDOR_VERSION;

/// The starter's abilities, published in every slot ad (`condor_starter -classad`) and
/// listed in `StarterAbilityList`: what condorlite's starter supports.
pub const STARTER_ABILITIES: &[&str] = &[
    "HasFileTransfer",
    "HasJobDeferral",
    "HasJICLocalConfig",
    "HasJICLocalStdin",
    "HasTransferInputRemaps",
    "HasSelfCheckpointTransfers",
];

/// `CondorPlatform` as HTCondor formats it (`$CondorPlatform: X86_64-Ubuntu_22.04 $`), from
/// the configuration's `ARCH` and `OPSYSNAME` and the system's version.
pub fn condor_platform(cfg: View<'_>) -> String {
    let arch = cfg
        .string("ARCH")
        .ok()
        .flatten()
        .unwrap_or_else(|| std::env::consts::ARCH.to_ascii_uppercase());
    let os = cfg
        .string("OPSYSNAME")
        .ok()
        .flatten()
        .unwrap_or_else(|| "Linux".into());
    let version = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("VERSION_ID="))
                .map(|v| v.trim_matches('"').to_owned())
        })
        .unwrap_or_default();
    if version.is_empty() {
        format!("$CondorPlatform: {arch}-{os} $")
    } else {
        format!("$CondorPlatform: {arch}-{os}_{version} $")
    }
}

/// Why the startd could not be built, or refused a request.
#[derive(Debug, thiserror::Error)]
pub enum StartdError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A slot knob the startd cannot use.
    #[error("bad slot configuration {knob} = {value:?}: {reason}")]
    SlotConfig {
        knob: String,
        value: String,
        reason: String,
    },
    /// The layout asks for more than the machine has.
    #[error("can't allocate {slot} ({knob}): not enough {what}\n\tRequesting: {requesting}\n\tAvailable:  {available}")]
    OutOfResources {
        slot: String,
        knob: String,
        what: String,
        requesting: String,
        available: String,
    },
    #[error("MACHINE_RESOURCE_{0} is invalid: '{0}' is a reserved resource name")]
    ReservedResource(String),
    #[error("{knob}: can't run the inventory \"{command}\": {reason}")]
    Inventory {
        knob: String,
        command: String,
        reason: String,
    },
    #[error(
        "failed to bind local resource '{resource}' to {slot}: wanted {want}, only {got} available"
    )]
    Bind {
        resource: String,
        slot: String,
        want: usize,
        got: usize,
    },
    #[error("no slot named {0}")]
    NoSuchSlot(String),
    #[error("{slot} is {state}/{activity}: {why}")]
    WrongState {
        slot: String,
        state: State,
        activity: Activity,
        why: String,
    },
    #[error("{0}: the slot's Requirements are not true for the job")]
    NotWilling(String),
    #[error("{slot} has {have} {resource} left, the claim asks for {want}")]
    Insufficient {
        slot: String,
        resource: String,
        want: f64,
        have: f64,
    },
    #[error("{slot}: the claim names no amount of {resource} and the job requests none")]
    NoRequest { slot: String, resource: String },
    /// A drain request refused, with HTCondor's error code ([`DRAINING_ALREADY_IN_PROGRESS`],
    /// [`DRAINING_NO_MATCHING_REQUEST_ID`], [`DRAINING_CHECK_EXPR_FAILED`]) and text.
    #[error("{message}")]
    Drain { code: i64, message: String },
    /// A drain request's `-check` or `-start` expression does not parse.
    #[error("invalid {what} expression \"{text}\": {reason}")]
    BadExpression {
        what: &'static str,
        text: String,
        reason: String,
    },
}

/// What the policy asks done to the job on a slot; the master carries it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobAction {
    /// Stop the job's processes (SIGSTOP to its process group); the master logs event 010.
    /// The slot is Claimed/Suspended (SUSPEND, #14/#20).
    Suspend,
    /// Let them run again (SIGCONT); event 011. The slot left Claimed/Suspended (CONTINUE,
    /// #15/#16, or on its way to retirement or eviction: a suspended job is continued before
    /// it is killed).
    Continue,
    /// Soft-kill the job with its `KillSig` (Preempting/Vacating was entered). The job goes
    /// back to idle; `reason` and `code` are its vacate reason and code (1011
    /// `StartdPreemptExpression`, 1014 `StartdDraining`, 1018/1019 `StartdPreemptingClaim*`).
    /// If it is still there when its vacate time is over, a `Kill` follows.
    Vacate { reason: String, code: i64 },
    /// Hard-kill the job now (SIGKILL): Preempting/Killing was entered (KILL, WANT_VACATE
    /// false, a fast drain), or the vacate time is over; repeated every `KILLING_TIMEOUT`
    /// while the job is not gone. Same reason and code as the eviction's.
    Kill { reason: String, code: i64 },
}

/// What [`Startd::evaluate`] asks of the master.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Do `action` to the job running on `slot`.
    Job { slot: String, action: JobAction },
    /// The claim on `slot` ended while no job ran on it (an idle claim whose START became
    /// false, whose `CLAIM_WORKLIFE` ran out, that was drained or preempted): forget it. The
    /// slot is already Owner, Unclaimed or Drained (a dynamic slot is gone). `reason` is
    /// the startd's.
    ClaimEnded { slot: String, reason: String },
    /// A drain finished and asked for -exit-on-completion / -restart-on-completion /
    /// -reconfig-on-completion (with reconfig, draining has already stopped).
    Daemon(OnCompletion),
}

/// What the configuration says that is the same for every slot.
#[derive(Clone, Debug)]
struct Settings {
    /// `STARTD_ATTRS`, `STARTD_EXPRS`, `SYSTEM_STARTD_ATTRS` as every ad gets them.
    global_attrs: Vec<(String, Expr)>,
    /// `STARTD_JOB_ATTRS` (+ `_EXPRS`, `SYSTEM_`): copied from the job into a claimed slot.
    job_attrs: Vec<String>,
    /// `STARTD_SLOT_ATTRS` (+ `_EXPRS`, `SYSTEM_`): cross-posted as `slot<N>_<attr>`.
    slot_attrs: Vec<String>,
    /// `ADVERTISE_PSLOT_ROLLUP_INFORMATION`.
    pslot_rollup: bool,
    /// `STARTD_PARTITIONABLE_SLOT_ATTRS`.
    pslot_attrs: Vec<String>,
    /// `MATCH_TIMEOUT`.
    match_timeout: i64,
    /// `IS_LOCAL_STARTD`.
    is_local: bool,
    /// `STARTD_RESOURCE_PREFIX`, else `slot`.
    resource_prefix: String,
    /// The environment knobs of each resource.
    env: Vec<env::ResourceEnv>,
    /// `AUTO_SET_NVIDIA_VISIBLE_DEVICES`.
    auto_nvidia: bool,
    /// `CondorPlatform`.
    platform: String,
    /// The daemon's address (`MyAddress`).
    address: String,
    /// `STATISTICS_WINDOW_SECONDS`, for the `Recent*` statistics.
    stats_window: i64,
    /// `KILLING_TIMEOUT`.
    killing_timeout: i64,
    /// `POLLING_INTERVAL`: how often the policy runs while a slot is claimed.
    polling_interval: i64,
    /// `MAX_DRAINING_ACTIVATION_DELAY`.
    max_draining_activation_delay: i64,
    /// `DEFAULT_DRAINING_START_EXPR`.
    default_draining_start: Option<Expr>,
    /// `CONDORLITE_MACHINE_INPUTS`.
    inputs_file: Option<std::path::PathBuf>,
}

/// The startd: the machine, its slots and their claims.
#[derive(Clone, Debug)]
pub struct Startd {
    machine: Machine,
    probe: Probe,
    resources: MachineResources,
    types: SlotTypes,
    settings: Settings,
    slots: Vec<Slot>,
    /// Slots a reconfiguration planned whose number a claimed slot still holds.
    deferred: Vec<Slot>,
    start_time: i64,
    reconfig_time: i64,
    /// The time of the latest call that passed one in.
    now: i64,
    /// The machine's load average at the last refresh.
    load: f64,
    /// Start times of jobs (for `JobStarts`, `RecentJobStarts`).
    job_starts: u64,
    recent_starts: Vec<i64>,
    claim_seq: u64,
    warnings: Vec<String>,
    /// The part of each slot's ad that changes only with the configuration or the slot's
    /// resources, kept between builds ([`StaticAds`]).
    static_ads: StaticAds,
    /// What the policy asked since the last [`Startd::evaluate`].
    pending: Vec<Decision>,
    /// Draining (see `drain.rs`).
    drain: drain::DrainState,
    /// What `CONDORLITE_MACHINE_INPUTS` said at the last refresh.
    inputs: MachineInputs,
}

/// A cache of the slots' static ad parts, by slot name, valid for one generation: every
/// change of configuration, address or resources (a claim carving a dynamic slot, a
/// release) starts a new one. Building a slot's ad from its cached part takes a copy and
/// the few dynamic attributes rather than some 150 inserts: the daemon builds several ads
/// per job it starts.
#[derive(Clone, Debug, Default)]
pub(crate) struct StaticAds {
    generation: u64,
    ads: std::cell::RefCell<std::collections::HashMap<String, (u64, ClassAd)>>,
}

impl StaticAds {
    /// Forgets every cached part.
    pub(crate) fn invalidate(&mut self) {
        self.generation += 1;
        self.ads.get_mut().clear();
    }

    /// The cached part of `slot`, or `build`'s, cached.
    pub(crate) fn get_or_build(&self, slot: &str, build: impl FnOnce() -> ClassAd) -> ClassAd {
        if let Some((g, ad)) = self.ads.borrow().get(slot) {
            if *g == self.generation {
                return ad.clone();
            }
        }
        let ad = build();
        self.ads
            .borrow_mut()
            .insert(slot.to_owned(), (self.generation, ad.clone()));
        ad
    }
}

/// A slot's `Rank` for `job`, in the slot's internal ad `ad` (0 when not a number).
fn rank_in(ad: &ClassAd, job: &ClassAd) -> f64 {
    match ad.lookup("Rank") {
        Some(_) => ad
            .eval_attr_against("Rank", Some(job))
            .as_number_real()
            .unwrap_or(0.0),
        None => 0.0,
    }
}

/// Unique items of several list knobs, in order (`param_and_insert_unique_items`).
fn unique_items(cfg: View<'_>, knobs: &[&str]) -> Result<Vec<String>, ConfigError> {
    let mut out: Vec<String> = Vec::new();
    for k in knobs {
        for item in cfg.list(k)? {
            if !out.iter().any(|o| o.eq_ignore_ascii_case(&item)) {
                out.push(item);
            }
        }
    }
    Ok(out)
}

/// A configuration value as an expression, or a [`StartdError`] naming it.
fn config_expr(knob: &str, value: &str) -> Result<Expr, StartdError> {
    parse_old_expr(value).map_err(|e| StartdError::SlotConfig {
        knob: knob.to_owned(),
        value: value.to_owned(),
        reason: format!("syntax error: {e}"),
    })
}

impl Settings {
    fn from_config(cfg: View<'_>, res: &MachineResources) -> Result<Settings, StartdError> {
        let mut global_attrs = Vec::new();
        for attr in unique_items(
            cfg,
            &["STARTD_ATTRS", "STARTD_EXPRS", "SYSTEM_STARTD_ATTRS"],
        )? {
            if let Some(v) = cfg.string(&attr)? {
                if let Ok(e) = parse_old_expr(&v) {
                    global_attrs.push((attr, e));
                }
            }
        }
        let mut envs = Vec::new();
        for r in res.iter() {
            envs.push(env::ResourceEnv {
                name: r.name.clone(),
                proto: cfg.string(&format!("ENVIRONMENT_FOR_Assigned{}", r.name))?,
                unassigned: cfg.string(&format!("ENVIRONMENT_VALUE_FOR_UnAssigned{}", r.name))?,
            });
        }
        let port = cfg.int("SHARED_PORT_PORT").ok().flatten().unwrap_or(9618);
        let host = cfg
            .string("FULL_HOSTNAME")?
            .unwrap_or_else(|| "localhost".into());
        Ok(Settings {
            global_attrs,
            job_attrs: unique_items(
                cfg,
                &[
                    "STARTD_JOB_ATTRS",
                    "STARTD_JOB_EXPRS",
                    "SYSTEM_STARTD_JOB_ATTRS",
                ],
            )?,
            slot_attrs: unique_items(
                cfg,
                &[
                    "STARTD_SLOT_ATTRS",
                    "STARTD_SLOT_EXPRS",
                    "SYSTEM_STARTD_SLOT_ATTRS",
                ],
            )?,
            pslot_rollup: cfg
                .bool("ADVERTISE_PSLOT_ROLLUP_INFORMATION")?
                .unwrap_or(true),
            pslot_attrs: cfg.list("STARTD_PARTITIONABLE_SLOT_ATTRS")?,
            match_timeout: cfg.int("MATCH_TIMEOUT")?.unwrap_or(120),
            is_local: cfg.bool("IS_LOCAL_STARTD")?.unwrap_or(false),
            resource_prefix: cfg
                .string("STARTD_RESOURCE_PREFIX")?
                .unwrap_or_else(|| "slot".into()),
            env: envs,
            auto_nvidia: cfg.bool("AUTO_SET_NVIDIA_VISIBLE_DEVICES")?.unwrap_or(true),
            platform: condor_platform(cfg),
            address: format!(
                "<127.0.0.1:{port}?addrs=127.0.0.1-{port}&alias={host}&noUDP&sock=startd>"
            ),
            stats_window: cfg.int("STATISTICS_WINDOW_SECONDS")?.unwrap_or(1200),
            killing_timeout: cfg.int("KILLING_TIMEOUT")?.unwrap_or(30).max(0),
            polling_interval: cfg.int("POLLING_INTERVAL")?.unwrap_or(5).max(1),
            max_draining_activation_delay: cfg.int("MAX_DRAINING_ACTIVATION_DELAY")?.unwrap_or(20),
            default_draining_start: cfg
                .string("DEFAULT_DRAINING_START_EXPR")?
                .filter(|v| !v.trim().is_empty())
                .and_then(|v| parse_old_expr(&v).ok()),
            inputs_file: cfg
                .string("CONDORLITE_MACHINE_INPUTS")?
                .filter(|v| !v.trim().is_empty())
                .map(std::path::PathBuf::from),
        })
    }
}

/// The configuration's expressions for slots of one type (HTCondor's
/// `ResMgr::init_config_classad` and `Resource::publish_slot_config_overrides`).
fn policy_ad(cfg: View<'_>, types: &SlotTypes, type_id: u32) -> Result<ClassAd, StartdError> {
    let mut ad = ClassAd::new();
    let lookup = |name: &str| -> Result<Option<(String, String)>, StartdError> {
        if let Some(v) = types.param(type_id, name) {
            return Ok(Some((format!("SLOT_TYPE_{type_id}_{name}"), v.to_owned())));
        }
        Ok(cfg.string(name)?.map(|v| (name.to_owned(), v)))
    };
    let put = |ad: &mut ClassAd,
               attr: &str,
               knobs: &[&str],
               required: bool,
               default: Option<&str>|
     -> Result<(), StartdError> {
        for k in knobs {
            if let Some((knob, v)) = lookup(k)? {
                ad.insert(attr, config_expr(&knob, &v)?);
                return Ok(());
            }
        }
        if let Some(d) = default {
            ad.insert(attr, config_expr(attr, d)?);
        } else if required {
            return Err(StartdError::SlotConfig {
                knob: attr.to_owned(),
                value: String::new(),
                reason: format!("required attribute \"{attr}\" is not defined"),
            });
        }
        Ok(())
    };
    for a in [
        "START",
        "SUSPEND",
        "CONTINUE",
        "PREEMPT",
        "KILL",
        "WANT_SUSPEND",
        "WANT_VACATE",
    ] {
        put(&mut ad, a, &[a], true, None)?;
    }
    put(&mut ad, "WANT_HOLD", &["WANT_HOLD"], false, Some("False"))?;
    for a in ["WANT_HOLD_REASON", "WANT_HOLD_SUBCODE", "CLAIM_WORKLIFE"] {
        put(&mut ad, a, &[a], false, None)?;
    }
    put(
        &mut ad,
        "MaxJobRetirementTime",
        &["MaxJobRetirementTime"],
        false,
        None,
    )?;
    put(
        &mut ad,
        "MachineMaxVacateTime",
        &["MachineMaxVacateTime"],
        true,
        None,
    )?;
    for a in [
        "PERIODIC_CHECKPOINT",
        "RunBenchmarks",
        "Rank",
        "SUSPEND_VANILLA",
        "CONTINUE_VANILLA",
        "PREEMPT_VANILLA",
        "KILL_VANILLA",
        "WANT_SUSPEND_VANILLA",
        "WANT_VACATE_VANILLA",
        "START_BACKFILL",
        "EVICT_BACKFILL",
        "HIBERNATE",
    ] {
        put(&mut ad, a, &[a], false, None)?;
    }
    put(
        &mut ad,
        "Unhibernate",
        &["Unhibernate"],
        false,
        Some("MY.MachineLastMatchTime =!= undefined"),
    )?;
    put(&mut ad, "SlotWeight", &["SlotWeight"], false, Some("Cpus"))?;
    put(
        &mut ad,
        "IsOwner",
        &["IsOwner", "IS_OWNER"],
        false,
        Some("(START =?= False)"),
    )?;
    put(
        &mut ad,
        "CpuBusy",
        &["CpuBusy", "CPU_BUSY"],
        false,
        Some("False"),
    )?;
    Ok(ad)
}

/// A slot's `STARTD_ATTRS`: the list (`STARTD_ATTRS`, `<slot>_STARTD_ATTRS`,
/// `SYSTEM_STARTD_ATTRS`, each possibly `SLOT_TYPE_<N>_` overridden) and each attribute's
/// value (`<slot>_<attr>`, else `<attr>`).
fn slot_attrs(
    cfg: View<'_>,
    types: &SlotTypes,
    type_id: u32,
    prefix: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<(String, Option<Expr>)>, StartdError> {
    let mut names: Vec<String> = Vec::new();
    for knob in [
        "STARTD_ATTRS".to_owned(),
        format!("{prefix}_STARTD_ATTRS"),
        "SYSTEM_STARTD_ATTRS".to_owned(),
    ] {
        if let Some(v) = types.lookup(cfg, type_id, &knob)? {
            names.extend(
                v.split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            );
        }
    }
    let mut out = Vec::new();
    for attr in names {
        let knob = format!("{prefix}_{attr}");
        let value = match types.lookup(cfg, type_id, &knob)? {
            Some(v) => Some((knob, v)),
            None => types
                .lookup(cfg, type_id, &attr)?
                .map(|v| (attr.clone(), v)),
        };
        let Some((knob, value)) = value else {
            continue;
        };
        if value.trim().is_empty() {
            out.push((attr, None));
            continue;
        }
        match parse_old_expr(&value) {
            Ok(e) => out.push((attr, Some(e))),
            Err(e) => warnings.push(format!(
                "CONFIGURATION PROBLEM: Failed to insert ClassAd attribute {attr} = {value} ({knob}): {e}. The most common reason for this is that you forgot to quote a string value in the list of attributes being added to the {prefix} ad."
            )),
        }
    }
    Ok(out)
}

/// Everything a configuration says, before slots are made.
struct Built {
    machine: Machine,
    resources: MachineResources,
    types: SlotTypes,
    settings: Settings,
    plans: Vec<SlotPlan>,
}

impl Built {
    fn new(config: &Config, probe: &Probe) -> Result<Built, StartdError> {
        let cfg = config.subsystem("STARTD");
        let mut machine = Machine::from_config(cfg, probe)?;
        machine.static_attrs.extend((probe.containers)(config));
        let resources = MachineResources::from_config(config, cfg, probe)?;
        let types = SlotTypes::from_config(config, cfg)?;
        let settings = Settings::from_config(cfg, &resources)?;
        let plans = layout::plan(cfg, &types, &machine, &resources, probe)?;
        Ok(Built {
            machine,
            resources,
            types,
            settings,
            plans,
        })
    }

    /// The slot `plan` describes, in the Owner state.
    fn make_slot(
        &self,
        cfg: View<'_>,
        plan: &SlotPlan,
        now: i64,
        warnings: &mut Vec<String>,
    ) -> Result<Slot, StartdError> {
        let prefix = self
            .types
            .param(plan.type_id, "NAME_PREFIX")
            .map(str::to_owned)
            .unwrap_or_else(|| self.settings.resource_prefix.clone());
        let id_str = format!("{prefix}{}", plan.id);
        let kind = if plan.partitionable {
            SlotKind::Partitionable
        } else {
            SlotKind::Static
        };
        let mut slot = Slot {
            id: plan.id,
            sub_id: 0,
            kind,
            type_id: plan.type_id,
            name: format!("{id_str}@{}", self.machine.name),
            id_str,
            res: plan.resources.clone(),
            sm: state::StateMachine::new(now),
            claim: None,
            policy: ClassAd::new(),
            attrs: Vec::new(),
            slot_weight: Expr::Attr("Cpus".into()),
            consumption: None,
            hidden: false,
            free_sub_ids: Vec::new(),
            orphan: false,
            owner_load: 0.0,
            condor_load: 0.0,
            keyboard_idle: 0,
            console_idle: 0,
            cpu_busy_since: None,
            accepted_while_draining: false,
        };
        self.configure_slot(cfg, &mut slot, warnings)?;
        Ok(slot)
    }

    /// Sets what the configuration says about a slot of its type: policy expressions,
    /// `STARTD_ATTRS`, `SlotWeight`, consumption policy, visibility.
    fn configure_slot(
        &self,
        cfg: View<'_>,
        slot: &mut Slot,
        warnings: &mut Vec<String>,
    ) -> Result<(), StartdError> {
        let t = slot.type_id;
        slot.policy = policy_ad(cfg, &self.types, t)?;
        let prefix = slot
            .id_str
            .split('_')
            .next()
            .unwrap_or(&slot.id_str)
            .to_owned();
        slot.attrs = slot_attrs(cfg, &self.types, t, &prefix, warnings)?;
        let weight = match self.types.lookup(cfg, t, "SLOT_WEIGHT")? {
            Some(w) => Some(("SLOT_WEIGHT", w)),
            None => self
                .types
                .lookup(cfg, t, "SlotWeight")?
                .map(|w| ("SlotWeight", w)),
        };
        slot.slot_weight = match weight {
            Some((knob, w)) => config_expr(knob, &w)?,
            None => Expr::Attr("Cpus".into()),
        };
        slot.hidden = self.types.bool_param(t, "HIDDEN", false);
        let cp = self.types.bool_param(
            t,
            "CONSUMPTION_POLICY",
            cfg.bool("CONSUMPTION_POLICY")?.unwrap_or(false),
        );
        slot.consumption = None;
        if cp && slot.kind != SlotKind::Static {
            let mut list = Vec::new();
            for asset in ["Cpus", "Memory", "Disk"]
                .into_iter()
                .map(str::to_owned)
                .chain(self.resources.iter().map(|r| r.name.clone()))
            {
                let knob = format!("CONSUMPTION_{asset}");
                let e = match self.types.lookup(cfg, t, &knob)? {
                    Some(v) => config_expr(&knob, &v)?,
                    None => config_expr(
                        &knob,
                        &format!("ifthenelse(target.Request{asset} =?= undefined, 0, target.Request{asset})"),
                    )?,
                };
                list.push((asset, e));
            }
            slot.consumption = Some(list);
        }
        Ok(())
    }
}

/// A number as HTCondor assigns it: an integer when it has no fraction.
fn number(x: f64) -> Expr {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Expr::lit(x as i64)
    } else {
        Expr::lit(x)
    }
}

impl Startd {
    /// Builds the startd the configuration describes, at time `now`, looking at this machine.
    /// The slots start in the Owner state and are evaluated at once (so that, as in
    /// HTCondor, they are Unclaimed unless `IS_OWNER` says otherwise).
    pub fn from_config(config: &Config, now: i64) -> Result<Startd, StartdError> {
        Startd::from_config_with(config, now, Probe::default())
    }

    /// As [`Startd::from_config`], with the system look-ups `probe` makes (for tests, or to
    /// pin what the machine reports).
    pub fn from_config_with(
        config: &Config,
        now: i64,
        probe: Probe,
    ) -> Result<Startd, StartdError> {
        let mut built = Built::new(config, &probe)?;
        layout::bind_devices(&mut built.plans, &mut built.resources)?;
        let cfg = config.subsystem("STARTD");
        let mut warnings = Vec::new();
        let mut slots = Vec::new();
        for plan in &built.plans {
            slots.push(built.make_slot(cfg, plan, now, &mut warnings)?);
        }
        let mut startd = Startd {
            machine: built.machine,
            probe,
            resources: built.resources,
            types: built.types,
            settings: built.settings,
            slots,
            deferred: Vec::new(),
            start_time: now,
            reconfig_time: now,
            now,
            load: 0.0,
            job_starts: 0,
            recent_starts: Vec::new(),
            claim_seq: 0,
            warnings,
            static_ads: StaticAds::default(),
            pending: Vec::new(),
            drain: drain::DrainState::default(),
            inputs: MachineInputs::default(),
        };
        startd.refresh(now);
        Ok(startd)
    }

    /// condor_reconfig: reads the configuration again. Policy expressions, `STARTD_ATTRS`
    /// and machine facts change for every slot; the layout is rebuilt for the slots nobody
    /// holds, while claimed slots (and partitionable slots with dynamic slots) keep their
    /// resources and jobs. A new slot whose number a kept slot holds waits until that slot's
    /// claim ends. On error nothing changes.
    pub fn reconfigure(&mut self, config: &Config, now: i64) -> Result<(), StartdError> {
        self.static_ads.invalidate();
        let done = self.reconfigure_slots(config, now);
        self.static_ads.invalidate();
        done
    }

    fn reconfigure_slots(&mut self, config: &Config, now: i64) -> Result<(), StartdError> {
        let mut built = Built::new(config, &self.probe)?;
        let cfg = config.subsystem("STARTD");
        let mut warnings = Vec::new();

        let kept: Vec<Slot> = self
            .slots
            .iter()
            .filter(|s| {
                s.claim.is_some()
                    || matches!(s.state(), State::Matched | State::Preempting)
                    || (s.kind == SlotKind::Partitionable
                        && self
                            .slots
                            .iter()
                            .any(|d| d.kind == SlotKind::Dynamic && d.id == s.id))
                    || (s.kind == SlotKind::Dynamic)
            })
            .cloned()
            .collect();
        for s in &kept {
            for c in &s.res.custom {
                for id in &c.ids {
                    if s.kind == SlotKind::Partitionable {
                        built.resources.adopt(&c.name, id, s.id, 0);
                    } else {
                        built.resources.adopt(&c.name, id, s.id, s.sub_id);
                    }
                }
            }
        }
        let kept_ids: Vec<u32> = kept.iter().map(|s| s.id).collect();
        let (mut now_plans, later_plans): (Vec<SlotPlan>, Vec<SlotPlan>) = built
            .plans
            .drain(..)
            .partition(|p| !kept_ids.contains(&p.id));
        layout::bind_devices(&mut now_plans, &mut built.resources)?;

        let mut slots = Vec::new();
        for plan in &now_plans {
            let mut slot = built.make_slot(cfg, plan, now, &mut warnings)?;
            // The same slot as before keeps its history.
            if let Some(old) = self
                .slots
                .iter()
                .find(|o| o.id == slot.id && o.sub_id == 0 && o.kind == slot.kind)
            {
                slot.sm = old.sm.clone();
                slot.cpu_busy_since = old.cpu_busy_since;
            }
            slots.push(slot);
        }
        let mut deferred = Vec::new();
        for plan in &later_plans {
            deferred.push(built.make_slot(cfg, plan, now, &mut warnings)?);
        }
        for mut s in kept {
            built.configure_slot(cfg, &mut s, &mut warnings)?;
            // A kept slot gives way to the new layout's slot of its number once it is free.
            s.orphan = s.kind != SlotKind::Dynamic;
            slots.push(s);
        }
        slots.sort_by_key(|s| (s.id, s.sub_id));

        self.machine = built.machine;
        self.resources = built.resources;
        self.types = built.types;
        self.settings = built.settings;
        self.slots = slots;
        self.deferred = deferred;
        self.warnings = warnings;
        self.reconfig_time = now;
        self.refresh(now);
        Ok(())
    }

    /// Updates what changes with time and load (load averages, idle times, the clock,
    /// `CpuBusy`; the `CONDORLITE_MACHINE_INPUTS` file is read again), then applies the
    /// policy (see `policy.rs`). What the policy asks done to jobs is kept for the next
    /// [`Startd::evaluate`].
    pub fn refresh(&mut self, now: i64) {
        self.begin(now);
        self.inputs = match &self.settings.inputs_file {
            Some(path) => MachineInputs::read(path),
            None => MachineInputs::default(),
        };
        self.load = self
            .inputs
            .load_avg
            .or_else(|| (self.probe.load_avg)())
            .unwrap_or(0.0);
        if self.machine.recompute_disk {
            for s in &mut self.slots {
                if s.kind != SlotKind::Dynamic {
                    let free = (self.probe.free_disk)(&s.res.execute_dir).map(|f| f.0);
                    s.res.total_disk = self.machine.total_disk(free);
                }
            }
        }
        self.assign_idle(now);
        self.assign_load();
        self.recent_starts
            .retain(|&t| now - t < self.settings.stats_window);
        for i in 0..self.slots.len() {
            let busy = self.eval_local(i, "CpuBusy").as_bool_equiv() == Some(true);
            let s = &mut self.slots[i];
            s.cpu_busy_since = match (busy, s.cpu_busy_since) {
                (true, Some(t)) => Some(t),
                (true, None) => Some(now),
                (false, _) => None,
            };
        }
        // What a refresh changes is all in the ads' dynamic part, unless a slot kept over a
        // reconfiguration is replaced now.
        if self.settle_orphans(now) {
            self.static_ads.invalidate();
        }
        self.run_policy(now);
        // As HTCondor's `compute_dynamic`: on the periodic pass, not at each claim or
        // activation.
        self.compute_draining_attrs(now);
    }

    /// Runs the policy over every slot at `now` (as [`Startd::refresh`]) and returns what
    /// must happen to running jobs, and to the master: everything the policy asked since
    /// the last call, whichever call caused it ([`Startd::drain`], [`Startd::preempt`],
    /// [`Startd::job_ended`], ...), in the order it was asked. The master runs it at
    /// [`Startd::next_timer`], and after any request that may change a slot.
    pub fn evaluate(&mut self, now: i64) -> Vec<Decision> {
        self.refresh(now);
        std::mem::take(&mut self.pending)
    }

    /// The earliest time the policy needs [`Startd::evaluate`] again, if any: at once when
    /// decisions wait; the end of a retirement (less the job's vacate time), of a vacate
    /// time, of `KILLING_TIMEOUT` after a hard kill, of a match (`MATCH_TIMEOUT`), of an idle
    /// claim's `CLAIM_WORKLIFE` or draining activation delay; and while any slot is
    /// Claimed or Preempting, `POLLING_INTERVAL` from `now` (the expressions read the
    /// keyboard, the load and the timers, which change by themselves).
    pub fn next_timer(&self, now: i64) -> Option<i64> {
        let polling = self
            .slots
            .iter()
            .any(|s| matches!(s.state(), State::Claimed | State::Preempting))
            .then_some(now + self.settings.polling_interval);
        match (self.next_deadline(now), polling) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// [`Startd::next_timer`] without the `POLLING_INTERVAL` re-evaluations: the earliest
    /// time a timer of the policy itself runs out (a retirement, a vacate time, a match,
    /// a claim's worklife), or now when decisions wait. `condor_sim` runs the policy at
    /// these times and at each negotiation cycle.
    pub fn next_deadline(&self, now: i64) -> Option<i64> {
        if !self.pending.is_empty() {
            return Some(now);
        }
        (0..self.slots.len())
            .filter_map(|i| self.slot_timer(i, now))
            .min()
            .map(|t| t.max(now))
    }

    /// What the policy asked since the last call (or [`Startd::evaluate`]), without running
    /// it again: the decisions a request ([`Startd::preempt`], [`Startd::job_ended`], ...)
    /// made.
    pub fn take_decisions(&mut self) -> Vec<Decision> {
        std::mem::take(&mut self.pending)
    }

    /// Sets the clock for a request at `now`, first counting the time slots spent drained.
    fn begin(&mut self, now: i64) {
        self.now = now;
        self.account_draining(now);
    }

    /// Every slot's ad (static, partitionable with what it has left, and dynamic), in slot
    /// order; hidden slots (`SLOT_TYPE_<N>_HIDDEN`) are left out.
    pub fn slot_ads(&self) -> Vec<ClassAd> {
        self.build_slot_ads()
    }

    /// The startd's daemon ad (`MyType = "StartD"`), as HTCondor 24 advertises it beside the
    /// slot ads.
    pub fn daemon_ad(&self) -> ClassAd {
        self.build_daemon_ad()
    }

    /// Warnings from the configuration (attributes that could not be published, ...).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The startd's name (`STARTD_NAME` as a full name, else the host's full name).
    pub fn name(&self) -> &str {
        &self.machine.name
    }

    /// Sets the address published as `MyAddress`/`StartdIpAddr` (by default a personal
    /// pool's shared-port address on the loopback interface).
    pub fn set_address(&mut self, address: &str) {
        self.static_ads.invalidate();
        self.settings.address = address.to_owned();
    }

    /// The ad of one slot, by name.
    pub fn slot_ad(&self, name: &str) -> Option<ClassAd> {
        let i = self.find(name)?;
        let slot = &self.slots[i];
        if slot.kind != SlotKind::Partitionable
            && self.settings.slot_attrs.is_empty()
            && !slot.hidden
        {
            // What build_slot_ads publishes for it, without building the others.
            return Some(self.base_ad(i));
        }
        self.build_slot_ads().into_iter().find(|ad| {
            matches!(ad.eval_attr("Name"), crate::classad::Value::Str(n) if n.eq_ignore_ascii_case(name))
        })
    }

    /// Whether a slot could take a new claim: an unclaimed static slot, or a partitionable
    /// slot with CPUs and memory left. (Cheap: no ad is built.)
    pub fn has_free_resources(&self) -> bool {
        let open = |st: State| {
            st == State::Unclaimed || (st == State::Drained && self.draining_start().is_some())
        };
        self.slots.iter().any(|s| {
            !s.hidden
                && open(s.state())
                && match s.kind {
                    SlotKind::Partitionable => s.res.cpus > 0.0 && s.res.memory > 0,
                    SlotKind::Dynamic => false,
                    _ => true,
                }
        })
    }

    /// A slot's `SlotID` and dynamic slot number (`DSlotId`, 0 for the others), by name.
    pub fn slot_place(&self, name: &str) -> Option<(i64, i64)> {
        self.find(name)
            .map(|i| (i64::from(self.slots[i].id), i64::from(self.slots[i].sub_id)))
    }

    /// The names of the slots, in slot order (hidden ones included).
    pub fn slot_names(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.name.clone()).collect()
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(name))
    }

    fn find_or_err(&self, name: &str) -> Result<usize, StartdError> {
        self.find(name)
            .ok_or_else(|| StartdError::NoSuchSlot(name.to_owned()))
    }

    fn wrong_state(&self, i: usize, why: &str) -> StartdError {
        let s = &self.slots[i];
        StartdError::WrongState {
            slot: s.name.clone(),
            state: s.state(),
            activity: s.activity(),
            why: why.to_owned(),
        }
    }

    fn new_claim_id(&mut self) -> String {
        self.claim_seq += 1;
        let secret: u64 = rand::random();
        let addr = self
            .settings
            .address
            .split('?')
            .next()
            .unwrap_or("<127.0.0.1:9618")
            .trim_end_matches('>')
            .to_owned();
        format!(
            "{addr}>#{}#{}#{secret:016x}",
            self.start_time, self.claim_seq
        )
    }

    /// The negotiator matched the slot: Matched/Idle until it is claimed, or
    /// `MATCH_TIMEOUT` passes.
    pub fn matched(&mut self, slot: &str, now: i64) -> Result<(), StartdError> {
        self.begin(now);
        let i = self.find_or_err(slot)?;
        if self.slots[i].kind != SlotKind::Static {
            // HTCondor's partitionable slots stay Unclaimed while they are matched.
            return Ok(());
        }
        if !self.slots[i].sm.apply(Event::Matched, now) {
            return Err(self.wrong_state(i, "only an Owner or Unclaimed slot can be matched"));
        }
        Ok(())
    }

    /// Claims a slot for a job the negotiator matched to it (the slot by its `Name`). For a
    /// partitionable slot, carves a dynamic slot with `consumption` (resource attribute ->
    /// amount, e.g. `("Cpus", 1.0)`, `("Memory", 128.0)`; a resource not listed takes the
    /// job's `Request<Resource>`), taking concrete instances of custom resources
    /// (`AssignedGPUs`). The slot must be Owner, Unclaimed or Matched, and its Requirements
    /// (`START`, and for partitionable and dynamic slots `WithinResourceLimits`) true for the
    /// job. The slot becomes Claimed/Idle and publishes `RemoteUser`, `RemoteOwner`,
    /// `AccountingGroup`, `ClientMachine`, `RemoteScheddName` (the job's `ScheddName`, else
    /// the schedd part of its `GlobalJobId`). Returns the claimed slot's `Name`.
    pub fn claim(
        &mut self,
        slot: &str,
        job: &ClassAd,
        consumption: &[(String, f64)],
        now: i64,
    ) -> Result<String, StartdError> {
        let claimed = self.claim_slot(slot, job, consumption, now);
        // Carving changed resources that ads built during the claim cached (claiming a
        // static slot changes no static part).
        if self
            .find(slot)
            .is_none_or(|i| self.slots[i].kind != SlotKind::Static)
        {
            self.static_ads.invalidate();
        }
        claimed
    }

    fn claim_slot(
        &mut self,
        slot: &str,
        job: &ClassAd,
        consumption: &[(String, f64)],
        now: i64,
    ) -> Result<String, StartdError> {
        self.begin(now);
        let i = self.find_or_err(slot)?;
        if self.slots[i].kind != SlotKind::Static {
            self.static_ads.invalidate();
        }
        let drained_open =
            self.slots[i].state() == State::Drained && self.draining_start().is_some();
        if !matches!(
            self.slots[i].state(),
            State::Owner | State::Unclaimed | State::Matched
        ) && !drained_open
        {
            return Err(self.wrong_state(i, "it can't be claimed"));
        }
        if self.is_draining() && self.graceful_draining_remaining() < 20 {
            // `command_request_claim`: "near end of draining, ignoring".
            return Err(self.wrong_state(i, "the startd is draining"));
        }
        match self.slots[i].kind {
            SlotKind::Dynamic => {
                Err(self.wrong_state(i, "a dynamic slot is claimed when it is made"))
            }
            SlotKind::Static => {
                let Some(rank) = self.willing_rank(i, job) else {
                    return Err(StartdError::NotWilling(self.slots[i].name.clone()));
                };
                let id = self.new_claim_id();
                let host = self.machine.full_hostname.clone();
                let s = &mut self.slots[i];
                s.claim = Some(Claim::new(id, job, rank, &host, now));
                s.sm.apply(Event::Claimed, now);
                Ok(s.name.clone())
            }
            SlotKind::Partitionable => {
                if !self.willing(i, job) {
                    return Err(StartdError::NotWilling(self.slots[i].name.clone()));
                }
                let d = self.carve(i, job, consumption, now)?;
                let Some(rank) = self.willing_rank(d, job) else {
                    let name = self.slots[d].name.clone();
                    self.remove_dynamic(d);
                    return Err(StartdError::NotWilling(name));
                };
                let id = self.new_claim_id();
                let host = self.machine.full_hostname.clone();
                let s = &mut self.slots[d];
                s.claim = Some(Claim::new(id, job, rank, &host, now));
                s.sm.apply(Event::Claimed, now);
                Ok(s.name.clone())
            }
        }
    }

    /// Makes a dynamic slot of partitionable slot `p` with `consumption`; returns its index.
    fn carve(
        &mut self,
        p: usize,
        job: &ClassAd,
        consumption: &[(String, f64)],
        now: i64,
    ) -> Result<usize, StartdError> {
        let pname = self.slots[p].name.clone();
        let eval_ad = self.internal_ad(p);
        let amount = |name: &str| -> Option<f64> {
            consumption
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| *v)
                .or_else(|| {
                    job.eval_attr_against(&format!("Request{name}"), Some(&eval_ad))
                        .as_number_real()
                })
        };
        let known = |n: &str| {
            ["Cpus", "Memory", "Disk", "Swap"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(n))
                || self.slots[p].res.custom(n).is_some()
        };
        if let Some((n, _)) = consumption.iter().find(|(n, _)| !known(n)) {
            return Err(StartdError::Insufficient {
                slot: pname,
                resource: n.clone(),
                want: amount(n).unwrap_or(0.0),
                have: 0.0,
            });
        }
        let need = |name: &str| -> Result<f64, StartdError> {
            amount(name).ok_or_else(|| StartdError::NoRequest {
                slot: pname.clone(),
                resource: name.to_owned(),
            })
        };
        let parent = &self.slots[p].res;
        let cpus = amount("Cpus").unwrap_or(1.0).max(1.0 / 128.0).max(1.0);
        let memory = (need("Memory")? as i64).max(1);
        let disk = need("Disk")?;
        let total_disk = parent.total_disk;
        let disk_fraction = if total_disk > 0 {
            let slop = 1024f64.max(total_disk as f64 / (1024.0 * 1024.0));
            (disk + slop).max(0.0) / total_disk as f64
        } else {
            0.0
        };
        let insufficient = |resource: &str, want: f64, have: f64| StartdError::Insufficient {
            slot: pname.clone(),
            resource: resource.to_owned(),
            want,
            have,
        };
        if cpus > parent.cpus + 1e-9 {
            return Err(insufficient("Cpus", cpus, parent.cpus));
        }
        if memory > parent.memory {
            return Err(insufficient("Memory", memory as f64, parent.memory as f64));
        }
        if disk_fraction > parent.disk_fraction + 1e-9 {
            return Err(insufficient("Disk", disk, parent.disk() as f64));
        }
        let mut custom = Vec::new();
        for c in &parent.custom {
            let want = amount(&c.name).unwrap_or(0.0).max(0.0);
            if want > c.amount + 1e-9 {
                return Err(insufficient(&c.name, want, c.amount));
            }
            custom.push(layout::CustomAmount {
                name: c.name.clone(),
                amount: want,
                total: want,
                ids: Vec::new(),
                constraint: None,
            });
        }
        let sub = self.slots[p].next_sub_id();
        let pid = self.slots[p].id;
        // Bind instances of non-fungible resources from those the parent holds.
        let mut bound: Vec<(String, String)> = Vec::new();
        let mut failure = None;
        for c in &mut custom {
            if !self.resources.get(&c.name).is_some_and(|r| r.non_fungible) {
                continue;
            }
            while c.ids.len() < c.amount as usize {
                match self.resources.allocate(&c.name, None, pid, sub) {
                    Some(id) => {
                        bound.push((c.name.clone(), id.clone()));
                        c.ids.push(id);
                    }
                    None => {
                        failure = Some((c.name.clone(), c.amount as usize, c.ids.len()));
                        break;
                    }
                }
            }
            if failure.is_some() {
                break;
            }
        }
        if let Some((resource, want, got)) = failure {
            for (tag, id) in &bound {
                self.resources.release_dynamic(tag, id, pid, sub);
            }
            self.slots[p].free_sub_id(sub);
            return Err(StartdError::Bind {
                resource,
                slot: format!("{}_{sub}", self.slots[p].id_str),
                want,
                got,
            });
        }
        let parent = &self.slots[p];
        let res = Resources {
            cpus,
            slot_cpus: cpus,
            fractional_cpus: false,
            memory,
            slot_memory: memory,
            swap_fraction: 0.0,
            disk_fraction,
            total_disk,
            slot_disk: 0.0,
            execute_dir: parent.res.execute_dir.clone(),
            partition: parent.res.partition.clone(),
            custom,
        };
        let mut res = res;
        res.slot_disk = res.disk() as f64;
        let id_str = format!("{}_{sub}", parent.id_str);
        let host = parent
            .name
            .split_once('@')
            .map(|(_, h)| h.to_owned())
            .unwrap_or_else(|| self.machine.name.clone());
        let dslot = Slot {
            id: parent.id,
            sub_id: sub,
            kind: SlotKind::Dynamic,
            type_id: parent.type_id,
            name: format!("{id_str}@{host}"),
            id_str,
            res,
            sm: state::StateMachine::new(now),
            claim: None,
            policy: parent.policy.clone(),
            attrs: parent.attrs.clone(),
            slot_weight: parent.slot_weight.clone(),
            consumption: None,
            hidden: parent.hidden,
            free_sub_ids: Vec::new(),
            orphan: false,
            owner_load: 0.0,
            condor_load: 0.0,
            keyboard_idle: parent.keyboard_idle,
            console_idle: parent.console_idle,
            cpu_busy_since: None,
            accepted_while_draining: false,
        };
        // The parent lends what the child takes.
        let pres = &mut self.slots[p].res;
        pres.cpus -= dslot.res.cpus;
        pres.memory -= dslot.res.memory;
        pres.disk_fraction -= dslot.res.disk_fraction;
        for c in &dslot.res.custom {
            if let Some(pc) = pres.custom_mut(&c.name) {
                pc.amount -= c.amount;
            }
        }
        let at = self
            .slots
            .iter()
            .position(|s| (s.id, s.sub_id) > (dslot.id, dslot.sub_id))
            .unwrap_or(self.slots.len());
        self.slots.insert(at, dslot);
        Ok(at)
    }

    /// Removes dynamic slot `d`, returning its resources to its partitionable slot.
    fn remove_dynamic(&mut self, d: usize) {
        let dslot = self.slots.remove(d);
        for c in &dslot.res.custom {
            for id in &c.ids {
                self.resources
                    .release_dynamic(&c.name, id, dslot.id, dslot.sub_id);
            }
        }
        if let Some(p) = self
            .slots
            .iter()
            .position(|s| s.id == dslot.id && s.kind == SlotKind::Partitionable)
        {
            let parent = &mut self.slots[p];
            parent.res.cpus += dslot.res.cpus;
            parent.res.memory += dslot.res.memory;
            parent.res.disk_fraction += dslot.res.disk_fraction;
            for c in &dslot.res.custom {
                if let Some(pc) = parent.res.custom_mut(&c.name) {
                    pc.amount += c.amount;
                }
            }
            parent.free_sub_id(dslot.sub_id);
        }
    }

    /// A job starts on a claimed slot: Claimed/Busy, with `JobId`, `GlobalJobId`,
    /// `JobStart`, `CurrentRank` (the slot's `Rank` for the job). The slot's Requirements must
    /// be true for the job. Returns the environment the slot's resources give the job
    /// (`_CONDOR_AssignedGPUs`, `CUDA_VISIBLE_DEVICES`, ...; see [`env`]).
    pub fn activate(
        &mut self,
        slot: &str,
        job: &ClassAd,
        now: i64,
    ) -> Result<Vec<(String, String)>, StartdError> {
        self.begin(now);
        let i = self.find_or_err(slot)?;
        if self.slots[i].state() != State::Claimed || self.slots[i].activity() != Activity::Idle {
            return Err(self.wrong_state(i, "only a Claimed/Idle slot can start a job"));
        }
        // The slot's ad, built once for the three questions below (nothing changes between
        // them).
        let internal = self.internal_ad(i);
        let ad = policy::pin_ad(internal.clone(), self.now);
        if !self.willing_with(i, ad.clone(), job) {
            return Err(StartdError::NotWilling(self.slots[i].name.clone()));
        }
        let rank = rank_in(&internal, job);
        // The slot's MachineMaxVacateTime for the job, pledged now (`beginActivation`).
        let pledged = {
            let job = policy::pin_ad(job.clone(), now);
            match ad.lookup("MachineMaxVacateTime") {
                Some(_) => ad
                    .eval_attr_against("MachineMaxVacateTime", Some(&job))
                    .as_number_int()
                    .unwrap_or(0),
                None => 0,
            }
        };
        let draining = self.is_draining();
        let s = &mut self.slots[i];
        if let Some(c) = s.claim.as_mut() {
            c.activate(job, rank, pledged, now);
        }
        s.accepted_while_draining = draining;
        self.step(i, Event::Activated, now);
        self.job_starts += 1;
        self.recent_starts.push(now);
        let (env, problems) = self.job_environment(i);
        for p in problems {
            if !self.warnings.contains(&p) {
                self.warnings.push(p);
            }
        }
        Ok(env)
    }

    /// The job on `slot` ended (exited, or was vacated or killed). Returns whether the claim
    /// survives, Claimed/Idle and reusable (#12; its run time joins `TotalClaimRunTime`).
    /// False when the slot was retiring or preempting (#18, #22, #25), when the policy ends
    /// the idle claim at once (START false for the claim's job, `CLAIM_WORKLIFE` over,
    /// draining: #10), or when there was no claim: then the slot is already Owner,
    /// Unclaimed or Drained (a dynamic slot is gone) and the claim with it (no
    /// [`Decision::ClaimEnded`] is queued for it: this answer says so).
    pub fn job_ended(&mut self, slot: &str, now: i64) -> bool {
        self.begin(now);
        let Some(i) = self.find(slot) else {
            return false;
        };
        let name = self.slots[i].name.clone();
        let original = self.is_draining() && !self.slots[i].accepted_while_draining;
        let cpus = (self.slots[i].res.cpus + 0.1).max(0.0) as i64;
        let s = &mut self.slots[i];
        if let Some(c) = s.claim.as_mut() {
            if c.is_active() && c.badput_by_draining {
                self.drain.total_badput += c.job_run_time(now) * cpus;
            }
            c.deactivate(now);
        }
        s.condor_load = 0.0;
        // (The slot's static ad part stays: a job's end changes neither the slot's resources
        // nor the configuration; a transition that does invalidates it itself.)
        self.step(i, Event::Deactivated, now);
        self.run_policy(now);
        if original {
            self.check_for_drain_completion(now);
            self.run_policy(now);
        }
        self.pending
            .retain(|d| !matches!(d, Decision::ClaimEnded { slot, .. } if *slot == name));
        self.find(&name)
            .is_some_and(|i| self.slots[i].state() == State::Claimed)
    }

    /// The job on the slot ended: [`Startd::job_ended`], for callers that do not need to
    /// know whether the claim survives.
    pub fn deactivate(&mut self, slot: &str, now: i64) {
        self.job_ended(slot, now);
    }

    /// The negotiator preempted the claim on `slot` (for the machine's RANK when `by_rank`,
    /// else for a user of better priority): the job retires (Claimed/Retiring, #13) until
    /// its retirement time is used up or it ends, then is vacated with the reason
    /// "Preempted for a higher Ranked job" (1018) or "Preempted for a Priority user" (1019).
    /// An idle claim ends at once (#10; a [`Decision::ClaimEnded`]). The slot must be
    /// Claimed. Once the job is gone the claim ends (condorlite does not hand the slot to
    /// the preempting claim itself: the master claims it again).
    pub fn preempt(&mut self, slot: &str, by_rank: bool, now: i64) -> Result<(), StartdError> {
        self.begin(now);
        let i = self.find_or_err(slot)?;
        if self.slots[i].state() != State::Claimed {
            return Err(self.wrong_state(i, "only a Claimed slot can be preempted"));
        }
        if let Some(c) = self.slots[i].claim.as_mut() {
            c.preempting = Some(by_rank);
        }
        self.run_policy(now);
        Ok(())
    }

    /// The match that preempted the claim on `slot` went away (its schedd released it): a
    /// job retiring only for it goes back to Claimed/Busy (#19), unless PREEMPT or a drain
    /// retired it too.
    pub fn withdraw_preemption(&mut self, slot: &str, now: i64) -> Result<(), StartdError> {
        self.begin(now);
        let i = self.find_or_err(slot)?;
        if let Some(c) = self.slots[i].claim.as_mut() {
            c.preempting = None;
        }
        self.run_policy(now);
        Ok(())
    }

    /// `condor_suspend` suspended the job on `slot` (the startd's `suspend_claim`): the slot
    /// is Claimed/Suspended, and only [`Startd::continue_claim`] (not CONTINUE) resumes it.
    /// No decision: the caller stops the job itself.
    pub fn suspend_claim(&mut self, slot: &str, now: i64) -> Result<(), StartdError> {
        self.begin(now);
        let i = self.find_or_err(slot)?;
        let active = self.slots[i].claim.as_ref().is_some_and(|c| c.is_active());
        let (st, act) = (self.slots[i].state(), self.slots[i].activity());
        if !active || state::transition(st, act, Event::Suspend).is_none() {
            return Err(self.wrong_state(i, "only a running job can be suspended"));
        }
        let len = self.pending.len();
        self.step(i, Event::Suspend, now);
        self.pending.truncate(len);
        if let Some(c) = self.slots[i].claim.as_mut() {
            c.suspended_by_command = true;
        }
        Ok(())
    }

    /// `condor_continue` resumed a job [`Startd::suspend_claim`] suspended (#15, or back to
    /// retiring when the claim retires). No decision: the caller continues the job itself.
    pub fn continue_claim(&mut self, slot: &str, now: i64) -> Result<(), StartdError> {
        self.begin(now);
        let i = self.find_or_err(slot)?;
        let by_command = self.slots[i]
            .claim
            .as_ref()
            .is_some_and(|c| c.suspended_by_command);
        if self.slots[i].activity() != Activity::Suspended || !by_command {
            return Err(self.wrong_state(i, "only a job suspended by request can be continued"));
        }
        let len = self.pending.len();
        self.step(i, Event::Continue, now);
        self.pending.truncate(len);
        self.run_policy(now);
        Ok(())
    }

    /// Whether the claim on `slot` may run `job` next (HTCondor's claim reuse): the slot is
    /// Claimed (Idle or Busy) and the claim not closing (not preempted, retiring or drained:
    /// `curClaimIsClosing`), within `CLAIM_WORKLIFE` of the claim's start (-1: forever;
    /// 0: one job per claim), its Requirements (`START`, and for a dynamic slot
    /// `WithinResourceLimits`) true for the job, the job's Requirements met by the slot, and
    /// for a dynamic slot its resources enough for the job's `Request<Resource>`s.
    pub fn may_reuse(&self, slot: &str, job: &ClassAd, now: i64) -> bool {
        let Some(i) = self.find(slot) else {
            return false;
        };
        let s = &self.slots[i];
        if s.state() != State::Claimed || !matches!(s.activity(), Activity::Idle | Activity::Busy) {
            return false;
        }
        if self.is_draining() || s.claim.as_ref().is_some_and(|c| c.preempting.is_some()) {
            return false;
        }
        // The slot's ad, built once for the questions below.
        let ad = self.internal_ad(i);
        let policy_ad = policy::pin_ad(ad.clone(), self.now);
        if self.worklife_expired(i, &policy_ad, now) {
            return false;
        }
        if !self.willing_with(i, policy_ad, job) {
            return false;
        }
        if !job.eval_bool("Requirements", Some(&ad)) {
            return false;
        }
        if s.kind == SlotKind::Dynamic {
            let fits = |attr: &str, have: f64| match job
                .eval_attr_against(&format!("Request{attr}"), Some(&ad))
                .as_number_real()
            {
                Some(want) => want <= have,
                None => true,
            };
            if !fits("Cpus", s.res.cpus)
                || !fits("Memory", s.res.memory as f64)
                || !fits("Disk", s.res.disk() as f64)
                || !s.res.custom.iter().all(|c| fits(&c.name, c.amount))
            {
                return false;
            }
        }
        true
    }

    /// The claim ends: a static slot goes back to Unclaimed/Idle (Owner/Idle when
    /// `IS_OWNER` is true); a dynamic slot is removed and its resources return to its
    /// partitionable slot.
    pub fn release(&mut self, slot: &str, now: i64) {
        self.begin(now);
        let Some(i) = self.find(slot) else {
            return;
        };
        match self.slots[i].kind {
            SlotKind::Dynamic => {
                self.static_ads.invalidate();
                self.remove_dynamic(i);
            }
            _ => {
                let s = &mut self.slots[i];
                if s.sm.apply(Event::Released, now) {
                    s.claim = None;
                    s.condor_load = 0.0;
                }
            }
        }
        if self.settle_orphans(now) {
            self.static_ads.invalidate();
        }
        self.run_policy(now);
    }

    /// Replaces each slot kept over a reconfiguration that is free again with what the new
    /// layout planned for its number (or removes it, when the layout has no such slot).
    /// Returns whether it changed any slot.
    fn settle_orphans(&mut self, now: i64) -> bool {
        let mut changed = false;
        loop {
            let free = self.slots.iter().position(|s| {
                s.orphan
                    && s.claim.is_none()
                    && matches!(s.state(), State::Owner | State::Unclaimed)
                    && !self.slots.iter().any(|d| d.id == s.id && d.sub_id > 0)
            });
            let Some(i) = free else {
                return changed;
            };
            changed = true;
            let old = self.slots.remove(i);
            for c in &old.res.custom {
                for dev in &c.ids {
                    self.resources.disown(&c.name, dev, old.id);
                }
            }
            let Some(d) = self.deferred.iter().position(|d| d.id == old.id) else {
                continue;
            };
            let mut slot = self.deferred.remove(d);
            if slot.kind == old.kind {
                slot.sm = old.sm.clone();
            } else {
                slot.sm = state::StateMachine::new(now);
            }
            for c in &mut slot.res.custom {
                if !self.resources.get(&c.name).is_some_and(|r| r.non_fungible) {
                    continue;
                }
                c.ids.clear();
                while c.ids.len() < c.amount as usize {
                    match self.resources.allocate(&c.name, None, slot.id, 0) {
                        Some(dev) => c.ids.push(dev),
                        None => {
                            self.warnings.push(format!(
                                "{}: only {} of {} {} could be bound",
                                slot.name,
                                c.ids.len(),
                                c.amount,
                                c.name
                            ));
                            c.amount = c.ids.len() as f64;
                            c.total = c.amount;
                            break;
                        }
                    }
                }
            }
            let at = self
                .slots
                .iter()
                .position(|s| (s.id, s.sub_id) > (slot.id, 0))
                .unwrap_or(self.slots.len());
            self.slots.insert(at, slot);
        }
    }

    /// The slot's state and activity.
    pub fn state(&self, slot: &str) -> Option<(State, Activity)> {
        self.find(slot)
            .map(|i| (self.slots[i].state(), self.slots[i].activity()))
    }

    /// The claim id of the claim on `slot`, if it is claimed.
    pub fn claim_id(&self, slot: &str) -> Option<String> {
        self.find(slot)
            .and_then(|i| self.slots[i].claim.as_ref().map(|c| c.id.clone()))
    }

    /// What the starter measured of the job on `slot`: the CPUs it keeps busy (its share of
    /// `CondorLoadAvg`, `CpusUsage`) and its image size in KiB.
    pub fn set_job_usage(&mut self, slot: &str, cpus_usage: f64, image_size_kib: Option<i64>) {
        if let Some(i) = self.find(slot) {
            let s = &mut self.slots[i];
            s.condor_load = cpus_usage.max(0.0);
            if let Some(c) = s.claim.as_mut() {
                c.cpus_usage = cpus_usage;
                if image_size_kib.is_some() {
                    c.image_size = image_size_kib;
                }
            }
        }
    }

    /// Whether the slot's Requirements are true for `job` (HTCondor's `willingToRun`): its
    /// own Requirements, even while a match or preemption advertises `False`; while the
    /// startd drains, the drain's START, or nothing.
    fn willing(&self, i: usize, job: &ClassAd) -> bool {
        if self.is_draining() && self.draining_start().is_none() {
            return false;
        }
        self.willing_with(i, self.policy_ad(i), job)
    }

    /// The slot's `RANK` for `job` when it is [`Startd::willing`] to run it, from one build of
    /// the slot's ad.
    fn willing_rank(&self, i: usize, job: &ClassAd) -> Option<f64> {
        let internal = self.internal_ad(i);
        self.willing_with(i, policy::pin_ad(internal.clone(), self.now), job)
            .then(|| rank_in(&internal, job))
    }

    /// [`Startd::willing`], given the slot's [`Startd::policy_ad`].
    fn willing_with(&self, i: usize, mut ad: ClassAd, job: &ClassAd) -> bool {
        let s = &self.slots[i];
        if self.is_draining() && self.draining_start().is_none() {
            return false;
        }
        let job = &policy::pin_ad(job.clone(), self.now);
        let req = if s.kind == SlotKind::Static {
            "START"
        } else {
            ad.insert("WithinResourceLimits", self.within_resource_limits(s));
            "START && (WithinResourceLimits)"
        };
        let e = ads::expr(req);
        ad.eval_expr(&e, Some(job)).as_bool_equiv() == Some(true)
    }

    /// Evaluates attribute `name` of slot `i`'s internal ad with no job.
    fn eval_local(&self, i: usize, name: &str) -> Value {
        self.internal_ad(i).eval_attr(name)
    }

    /// The environment for the job on slot `i`, and problems with the knobs describing it.
    fn job_environment(&self, i: usize) -> (Vec<(String, String)>, Vec<String>) {
        let s = &self.slots[i];
        let mut out = Vec::new();
        let mut problems = Vec::new();
        for e in &self.settings.env {
            let c = s.res.custom(&e.name);
            let assigned = c.filter(|c| !c.ids.is_empty()).map(|c| c.ids.join(","));
            let proto = e.proto.as_deref().filter(|p| !p.trim().is_empty());
            if assigned.is_none() && !(c.is_some() && proto.is_some()) {
                continue;
            }
            let value = assigned
                .clone()
                .or_else(|| e.unassigned.clone())
                .unwrap_or_default();
            if let Some(p) = proto {
                if let Some(problem) = env::apply_proto(&mut out, p, &value) {
                    problems.push(format!("ENVIRONMENT_FOR_Assigned{}: {problem}", e.name));
                }
            }
            env::set(&mut out, &format!("_CONDOR_Assigned{}", e.name), &value);
        }
        if self.settings.auto_nvidia {
            if let Some(gpus) = self.resources.get("GPUs") {
                let ids = s
                    .res
                    .custom("GPUs")
                    .map(|c| c.ids.clone())
                    .unwrap_or_default();
                let uuids: Vec<String> = ids
                    .iter()
                    .filter_map(|id| {
                        gpus.props
                            .get(id)
                            .and_then(|p| p.eval_attr("DeviceUuid").as_str().map(str::to_owned))
                    })
                    .collect();
                let list: Vec<String> = match uuids.first() {
                    Some(u) if u.starts_with("MIG-") => uuids.clone(),
                    _ => uuids.iter().map(|u| format!("GPU-{u}")).collect(),
                };
                if list.is_empty() {
                    env::set(&mut out, "NVIDIA_VISIBLE_DEVICES", "none");
                } else {
                    let v = list.join(",");
                    env::set(&mut out, "NVIDIA_VISIBLE_DEVICES", &v);
                    env::set(&mut out, "CUDA_VISIBLE_DEVICES", &v);
                }
            }
        }
        (out, problems)
    }
}
