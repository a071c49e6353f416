//! The negotiator's configuration, read once from a [`Config`] (as the negotiator's
//! `reinitialize()` does) so that a cycle does no configuration lookups.

use std::collections::BTreeMap;

use crate::classad::{parse_expr, Expr};
use crate::config::{Config, ConfigError};

/// How the negotiator is configured. [`NegotiatorConfig::default`] is HTCondor 24's defaults.
#[derive(Clone, Debug)]
pub struct NegotiatorConfig {
    /// `NEGOTIATOR_CONSIDER_PREEMPTION`: consider claimed slots at all.
    pub consider_preemption: bool,
    /// `NEGOTIATOR_CONSIDER_EARLY_PREEMPTION`: consider slots whose job still has retirement
    /// time (`RetirementTimeRemaining > 0`).
    pub consider_early_preemption: bool,
    /// `PREEMPTION_REQUIREMENTS`: must hold (slot as MY, job as TARGET) for a user-priority
    /// preemption.
    pub preemption_requirements: Option<Expr>,
    /// `PREEMPTION_RANK`: orders preemption candidates.
    pub preemption_rank: Option<Expr>,
    /// `NEGOTIATOR_PRE_JOB_RANK`: sorts candidate slots before the job's own Rank.
    pub pre_job_rank: Option<Expr>,
    /// `NEGOTIATOR_POST_JOB_RANK`: sorts candidate slots after the job's own Rank.
    pub post_job_rank: Option<Expr>,
    /// `NEGOTIATE_ALL_JOBS_IN_CLUSTER`: a rejected job does not stop the negotiator from
    /// trying the other jobs of its autocluster.
    pub negotiate_all_jobs_in_cluster: bool,
    /// `SIGNIFICANT_ATTRIBUTES`: the job attributes that define an autocluster; `None` derives
    /// them from what the slots' expressions and the negotiator's policy reference.
    pub significant_attributes: Option<Vec<String>>,
    /// `NEGOTIATOR_USE_SLOT_WEIGHTS`: a slot costs its `SlotWeight` rather than 1.
    pub use_slot_weights: bool,
    /// `NEGOTIATOR_IGNORE_USER_PRIORITIES`: every submitter's limit is unbounded.
    pub ignore_user_priorities: bool,
    /// `NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION`: do not scale child quotas down to fit.
    pub allow_quota_oversubscription: bool,
    /// `GROUP_QUOTA_MAX_ALLOCATION_ROUNDS`.
    pub group_quota_max_allocation_rounds: u32,
    /// `GROUP_QUOTA_ROUND_ROBIN_RATE`.
    pub group_quota_round_robin_rate: f64,
    /// `GROUP_SORT_EXPR`: the order groups negotiate in (smallest first).
    pub group_sort_expr: Expr,
    /// `NEGOTIATOR_STRICT_ENFORCE_QUOTA`.
    pub strict_enforce_quota: bool,
    /// `NEGOTIATOR_USE_WEIGHTED_DEMAND`: a group's demand counts requested CPUs, not jobs.
    pub use_weighted_demand: bool,
    /// `NEGOTIATOR_SLOT_CONSTRAINT`: slots that may be matched at all.
    pub slot_constraint: Option<Expr>,
    /// `NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT`: slots that count towards the pool's size.
    pub slot_poolsize_constraint: Option<Expr>,
    /// `NEGOTIATOR_JOB_CONSTRAINT`: jobs that may be matched at all.
    pub job_constraint: Option<Expr>,
    /// `MODIFY_REQUEST_EXPR_REQUESTCPUS`, `..._REQUESTMEMORY`, `..._REQUESTDISK`: how much of a
    /// partitionable slot a job consumes when the slot advertises no `Consumption<Resource>`.
    pub modify_request_cpus: Expr,
    pub modify_request_memory: Expr,
    pub modify_request_disk: Expr,
    /// `CONCURRENCY_LIMIT_DEFAULT`.
    pub concurrency_limit_default: f64,
    /// `CONCURRENCY_LIMIT_DEFAULT_<scope>`, by lower-cased scope.
    pub concurrency_limit_scope_defaults: BTreeMap<String, f64>,
    /// `<NAME>_LIMIT`, by lower-cased name.
    pub concurrency_limits: BTreeMap<String, f64>,
    /// `NEGOTIATION_CYCLE_STATS_LENGTH`: how many cycles the negotiator ad describes.
    pub cycle_stats_length: usize,
    /// `NEGOTIATOR_INTERVAL`, for the statistics.
    pub interval: i64,
    /// `NEGOTIATOR_MAX_TIME_PER_CYCLE`: seconds after the cycle's start past which no submitter
    /// starts or goes on negotiating.
    pub max_time_per_cycle: i64,
    /// `NEGOTIATOR_MAX_TIME_PER_SUBMITTER`: seconds one submitter may negotiate in a cycle,
    /// over all its turns.
    pub max_time_per_submitter: i64,
    /// `NEGOTIATOR_MAX_TIME_PER_SCHEDD`: seconds the schedd's submitters may negotiate in a
    /// cycle, together (condorlite has one schedd, so: all submitters).
    pub max_time_per_schedd: i64,
    /// `NEGOTIATOR_MAX_TIME_PER_PIESPIN`: seconds one turn of a submitter may take.
    pub max_time_per_piespin: i64,
    /// The negotiator's `USE_GLOBAL_JOB_PRIOS`: a submitter is negotiated once per job priority
    /// its schedd advertises, and submitters of equal user priority are ordered by job priority
    /// (see [`super::cycle`]).
    pub use_global_job_prios: bool,
    /// The schedd's `USE_GLOBAL_JOB_PRIOS`: the schedd advertises each submitter's job
    /// priorities (`JobPrioArray`) and negotiates a priority range when asked to.
    pub schedd_global_job_prios: bool,
    /// The schedd's `MAX_GLOBAL_JOB_PRIOS`: how many of a submitter's job priorities (the
    /// highest) it advertises.
    pub max_global_job_prios: usize,
    /// `ALLOW_PSLOT_PREEMPTION`: a job that matches no partitionable slot as it is may get one
    /// by preempting some of the slot's dynamic slots (see [`super::Match::preempted_dslots`]).
    pub allow_pslot_preemption: bool,
    /// The schedd's name, for `LastNegotiationCycleScheddsOutOfTime`.
    pub schedd_name: String,
}

/// HTCondor 24's `GROUP_SORT_EXPR`.
pub const DEFAULT_GROUP_SORT_EXPR: &str = r#"ifThenElse(AccountingGroup=?="<none>",3.4e+38,ifThenElse(GroupQuota>0,GroupResourcesInUse/GroupQuota,3.3e+38))"#;
/// HTCondor 24's `NEGOTIATOR_PRE_JOB_RANK`.
pub const DEFAULT_PRE_JOB_RANK: &str =
    "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory";
/// HTCondor 24's `NEGOTIATOR_POST_JOB_RANK`.
pub const DEFAULT_POST_JOB_RANK: &str = "(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - 1.0e10*(Offline=?=True))";
/// HTCondor 24's `PREEMPTION_RANK`.
pub const DEFAULT_PREEMPTION_RANK: &str =
    "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)";

/// The schedd's name as the tools show it: `SCHEDD_NAME` made a full `name@host`
/// (`build_valid_daemon_name`), else the host's full name (as [`crate::client::Session`]
/// names the local schedd).
fn schedd_name(config: &Config) -> String {
    let host = config
        .string("FULL_HOSTNAME")
        .ok()
        .flatten()
        .unwrap_or_else(|| "localhost".to_owned());
    match config.string("SCHEDD_NAME").ok().flatten() {
        Some(name) if name.contains('@') => name,
        Some(name) if !name.is_empty() => {
            let short = host.split('.').next().unwrap_or(&host);
            if name.eq_ignore_ascii_case(&host) || name.eq_ignore_ascii_case(short) {
                host
            } else {
                format!("{name}@{host}")
            }
        }
        _ => host,
    }
}

fn expr(src: &str) -> Expr {
    parse_expr(src).expect("built-in expression parses")
}

impl Default for NegotiatorConfig {
    fn default() -> Self {
        NegotiatorConfig {
            consider_preemption: true,
            consider_early_preemption: false,
            preemption_requirements: Some(expr("False")),
            preemption_rank: Some(expr(DEFAULT_PREEMPTION_RANK)),
            pre_job_rank: Some(expr(DEFAULT_PRE_JOB_RANK)),
            post_job_rank: Some(expr(DEFAULT_POST_JOB_RANK)),
            negotiate_all_jobs_in_cluster: false,
            significant_attributes: None,
            use_slot_weights: true,
            ignore_user_priorities: false,
            allow_quota_oversubscription: true,
            group_quota_max_allocation_rounds: 3,
            group_quota_round_robin_rate: 1.0e100,
            group_sort_expr: expr(DEFAULT_GROUP_SORT_EXPR),
            strict_enforce_quota: true,
            use_weighted_demand: true,
            slot_constraint: None,
            slot_poolsize_constraint: None,
            job_constraint: None,
            modify_request_cpus: expr("quantize(RequestCpus,{1})"),
            modify_request_memory: expr("quantize(RequestMemory,{128})"),
            modify_request_disk: expr("quantize(RequestDisk,{1024})"),
            concurrency_limit_default: 2_308_032.0,
            concurrency_limit_scope_defaults: BTreeMap::new(),
            concurrency_limits: BTreeMap::new(),
            cycle_stats_length: 3,
            interval: 60,
            max_time_per_cycle: 1200,
            max_time_per_submitter: 60,
            max_time_per_schedd: 120,
            max_time_per_piespin: 120,
            use_global_job_prios: false,
            schedd_global_job_prios: false,
            max_global_job_prios: 500,
            allow_pslot_preemption: false,
            schedd_name: "localhost".into(),
        }
    }
}

impl NegotiatorConfig {
    /// The policy expressions that read the job (`PREEMPTION_REQUIREMENTS`,
    /// `PREEMPTION_RANK`, `NEGOTIATOR_PRE_JOB_RANK`, `NEGOTIATOR_POST_JOB_RANK`), those set.
    pub fn job_policy_exprs(&self) -> impl Iterator<Item = &Expr> + '_ {
        [
            &self.preemption_requirements,
            &self.preemption_rank,
            &self.pre_job_rank,
            &self.post_job_rank,
        ]
        .into_iter()
        .flatten()
    }

    /// Reads the knobs as the negotiator (subsystem `NEGOTIATOR`) sees them.
    pub fn from_config(config: &Config) -> Result<NegotiatorConfig, ConfigError> {
        let v = config.subsystem("NEGOTIATOR");
        let d = NegotiatorConfig::default();
        // The schedd's side of the negotiation is played in-process: its knobs as it sees them.
        let schedd = config.subsystem("SCHEDD");
        let bool_or = |name: &str, dflt: bool| v.bool(name).map(|b| b.unwrap_or(dflt));
        // param_integer: an int, clamped to an int's range.
        let int_or = |name: &str, dflt: i64| {
            v.int(name)
                .map(|i| i.unwrap_or(dflt).clamp(i32::MIN as i64, i32::MAX as i64))
        };
        let expr_or = |name: &str, dflt: Option<Expr>| v.expr(name).map(|e| e.or(dflt));
        let mut c = NegotiatorConfig {
            consider_preemption: bool_or("NEGOTIATOR_CONSIDER_PREEMPTION", true)?,
            consider_early_preemption: bool_or("NEGOTIATOR_CONSIDER_EARLY_PREEMPTION", false)?,
            preemption_requirements: v.expr("PREEMPTION_REQUIREMENTS")?,
            preemption_rank: v.expr("PREEMPTION_RANK")?,
            pre_job_rank: v.expr("NEGOTIATOR_PRE_JOB_RANK")?,
            post_job_rank: v.expr("NEGOTIATOR_POST_JOB_RANK")?,
            negotiate_all_jobs_in_cluster: bool_or("NEGOTIATE_ALL_JOBS_IN_CLUSTER", false)?,
            significant_attributes: v
                .string("SIGNIFICANT_ATTRIBUTES")?
                .map(|_| v.list("SIGNIFICANT_ATTRIBUTES"))
                .transpose()?,
            use_slot_weights: bool_or("NEGOTIATOR_USE_SLOT_WEIGHTS", true)?,
            ignore_user_priorities: bool_or("NEGOTIATOR_IGNORE_USER_PRIORITIES", false)?,
            allow_quota_oversubscription: bool_or(
                "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION",
                d.allow_quota_oversubscription,
            )?,
            group_quota_max_allocation_rounds: v
                .int("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS")?
                .unwrap_or(3)
                .clamp(1, i32::MAX as i64) as u32,
            group_quota_round_robin_rate: v
                .double("GROUP_QUOTA_ROUND_ROBIN_RATE")?
                .unwrap_or(d.group_quota_round_robin_rate)
                .max(1.0),
            group_sort_expr: expr_or("GROUP_SORT_EXPR", Some(d.group_sort_expr.clone()))?
                .expect("defaulted"),
            strict_enforce_quota: bool_or("NEGOTIATOR_STRICT_ENFORCE_QUOTA", true)?,
            use_weighted_demand: bool_or("NEGOTIATOR_USE_WEIGHTED_DEMAND", true)?,
            slot_constraint: v.expr("NEGOTIATOR_SLOT_CONSTRAINT")?,
            slot_poolsize_constraint: match v.expr("NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT")? {
                Some(e) => Some(e),
                None => v.expr("GROUP_DYNAMIC_MACH_CONSTRAINT")?,
            },
            job_constraint: v.expr("NEGOTIATOR_JOB_CONSTRAINT")?,
            modify_request_cpus: expr_or(
                "MODIFY_REQUEST_EXPR_REQUESTCPUS",
                Some(d.modify_request_cpus.clone()),
            )?
            .expect("defaulted"),
            modify_request_memory: expr_or(
                "MODIFY_REQUEST_EXPR_REQUESTMEMORY",
                Some(d.modify_request_memory.clone()),
            )?
            .expect("defaulted"),
            modify_request_disk: expr_or(
                "MODIFY_REQUEST_EXPR_REQUESTDISK",
                Some(d.modify_request_disk.clone()),
            )?
            .expect("defaulted"),
            concurrency_limit_default: v
                .double("CONCURRENCY_LIMIT_DEFAULT")?
                .unwrap_or(d.concurrency_limit_default),
            concurrency_limit_scope_defaults: BTreeMap::new(),
            concurrency_limits: BTreeMap::new(),
            cycle_stats_length: v
                .int("NEGOTIATION_CYCLE_STATS_LENGTH")?
                .unwrap_or(3)
                .clamp(0, 100) as usize,
            interval: v.int("NEGOTIATOR_INTERVAL")?.unwrap_or(60),
            max_time_per_cycle: int_or("NEGOTIATOR_MAX_TIME_PER_CYCLE", d.max_time_per_cycle)?,
            max_time_per_submitter: int_or(
                "NEGOTIATOR_MAX_TIME_PER_SUBMITTER",
                d.max_time_per_submitter,
            )?,
            max_time_per_schedd: int_or("NEGOTIATOR_MAX_TIME_PER_SCHEDD", d.max_time_per_schedd)?,
            max_time_per_piespin: int_or(
                "NEGOTIATOR_MAX_TIME_PER_PIESPIN",
                d.max_time_per_piespin,
            )?,
            use_global_job_prios: bool_or("USE_GLOBAL_JOB_PRIOS", false)?,
            schedd_global_job_prios: schedd.bool("USE_GLOBAL_JOB_PRIOS")?.unwrap_or(false),
            max_global_job_prios: schedd
                .int("MAX_GLOBAL_JOB_PRIOS")?
                .unwrap_or(500)
                .clamp(0, i32::MAX as i64) as usize,
            allow_pslot_preemption: bool_or("ALLOW_PSLOT_PREEMPTION", false)?,
            schedd_name: schedd_name(config),
        };
        // The limits are named by the jobs; find every knob that can define one.
        for entry in config.entries() {
            // `NEGOTIATOR.X_LIMIT` defines `X_LIMIT` for the negotiator; `license.x_LIMIT` is
            // the limit `license.x`. Record both readings; lookups use whichever a job names.
            let mut names = vec![entry.name.as_str()];
            if let Some((_, rest)) = entry.name.split_once('.') {
                names.push(rest);
            }
            for name in names {
                let upper = name.to_ascii_uppercase();
                if let Some(scope) = upper.strip_prefix("CONCURRENCY_LIMIT_DEFAULT_") {
                    if let Ok(Some(x)) = v.double(name) {
                        c.concurrency_limit_scope_defaults
                            .insert(scope.to_ascii_lowercase(), x);
                    }
                } else if let Some(limit) = upper.strip_suffix("_LIMIT") {
                    if limit.is_empty() {
                        continue;
                    }
                    if let Ok(Some(x)) = v.double(name) {
                        c.concurrency_limits.insert(limit.to_ascii_lowercase(), x);
                    }
                }
            }
        }
        Ok(c)
    }

    /// The most of concurrency limit `name` (lower-cased) that may be in use
    /// (HTCondor's `GetLimitMax`).
    pub fn limit_max(&self, name: &str) -> f64 {
        if let Some(&x) = self.concurrency_limits.get(name) {
            return x;
        }
        if let Some((scope, _)) = name.rsplit_once('.') {
            if let Some(&x) = self.concurrency_limit_scope_defaults.get(scope) {
                return x;
            }
        }
        self.concurrency_limit_default
    }
}
