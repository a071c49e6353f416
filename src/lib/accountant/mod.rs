//! The accountant: each submitter's and accounting group's usage and priority, as HTCondor's
//! negotiator keeps them (src/condor_negotiator.V6/Accountant.cpp), persisted in the spool.
//!
//! A customer is a submitter (`user@UID_DOMAIN`, or `group.subgroup.user@UID_DOMAIN` with an
//! accounting group) or an accounting group (`group.subgroup`, and the root group `<none>`).
//! Its real user priority (RUP) starts at 0.5 and moves towards the resources it uses:
//! over an interval `dt`, `RUP = beta * RUP + (1 - beta) * WeightedResourcesUsed` with
//! `beta = 0.5^(dt / PRIORITY_HALFLIFE)`, never below 0.5. Its effective priority (EUP), which
//! the negotiator sorts and slices the pie by, is `RUP * PriorityFactor`: the factor is the one
//! set with `condor_userprio -setfactor`, else `GROUP_PRIO_FACTOR_<group>`, `NICE_USER_PRIO_FACTOR`
//! for nice-user submitters, `REMOTE_PRIO_FACTOR` for submitters outside
//! `ACCOUNTANT_LOCAL_DOMAIN`, else `DEFAULT_PRIO_FACTOR`.
//!
//! [`AccountantState`] is a plain value and every operation on it is a pure function of the
//! state, the configuration and the time passed in: the negotiator works on a copy and hands the
//! new state back. [`Accountant`] keeps the state in a [`store::AccountantStore`] (SQLite in the
//! spool, or memory for tests) and writes each change as one transaction.
//!
//! Where condorlite differs from HTCondor 24:
//! - A customer record expires (is deleted at a priority update) when its aged priority falls
//!   below 0.5, it uses nothing, has never accumulated usage, and no factor, ceiling or floor was
//!   set for it. HTCondor 24 clamps the priority before testing `Priority < 0.5`, so its test
//!   never passes and records live until `condor_userprio -delete`; condorlite tests the unclamped
//!   value, as HTCondor did before the clamp was added.
//! - The default priority factor is computed when it is needed, not written into the record the
//!   first time the submitter is seen: a change of `DEFAULT_PRIO_FACTOR` applies to every
//!   submitter whose factor was not set explicitly.

pub mod groups;
pub mod store;

use std::collections::BTreeMap;

use crate::classad::{ClassAd, Value};
use crate::config::{Config, ConfigError};
use groups::GroupTree;
pub use store::{AccountantStore, MemoryStore, SqliteStore, StoreError};

/// The best (lowest) real priority a customer can have.
pub const MIN_PRIORITY: f64 = 0.5;
/// The smallest priority factor `condor_userprio -setfactor` accepts.
pub const MIN_PRIORITY_FACTOR: f64 = 1.0;
/// The file the accountant's records are kept in, in the spool directory.
pub const ACCOUNTANT_FILE: &str = "accountant.db";

/// How the accountant is configured.
#[derive(Clone, Debug, PartialEq)]
pub struct AccountantConfig {
    /// `PRIORITY_HALFLIFE`, seconds.
    pub half_life: f64,
    /// `DEFAULT_PRIO_FACTOR`.
    pub default_prio_factor: f64,
    /// `NICE_USER_PRIO_FACTOR`.
    pub nice_user_prio_factor: f64,
    /// `REMOTE_PRIO_FACTOR`.
    pub remote_prio_factor: f64,
    /// `ACCOUNTANT_LOCAL_DOMAIN`: when set, submitters of other domains are remote.
    pub local_domain: Option<String>,
    /// `NICE_USER_ACCOUNTING_GROUP_NAME`: submitters whose name starts with it are nice users.
    pub nice_user_prefix: String,
    /// `NEGOTIATOR_USE_SLOT_WEIGHTS`: charge `SlotWeight` per match rather than 1.
    pub use_slot_weights: bool,
    /// `NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES`: suspended claims use nothing.
    pub discount_suspended: bool,
    /// The accounting groups (`GROUP_NAMES` and friends).
    pub groups: GroupTree,
}

impl Default for AccountantConfig {
    /// HTCondor's defaults.
    fn default() -> Self {
        AccountantConfig {
            half_life: 86400.0,
            default_prio_factor: 1000.0,
            nice_user_prio_factor: 1e10,
            remote_prio_factor: 1e7,
            local_domain: None,
            nice_user_prefix: "nice-user".to_owned(),
            use_slot_weights: true,
            discount_suspended: false,
            groups: GroupTree::default(),
        }
    }
}

impl AccountantConfig {
    /// Reads the knobs as the negotiator does.
    pub fn from_config(config: &Config) -> Result<AccountantConfig, ConfigError> {
        let v = config.subsystem("NEGOTIATOR");
        let d = AccountantConfig::default();
        Ok(AccountantConfig {
            half_life: v.double("PRIORITY_HALFLIFE")?.unwrap_or(d.half_life),
            default_prio_factor: v
                .double("DEFAULT_PRIO_FACTOR")?
                .unwrap_or(d.default_prio_factor),
            nice_user_prio_factor: v
                .double("NICE_USER_PRIO_FACTOR")?
                .unwrap_or(d.nice_user_prio_factor),
            remote_prio_factor: v
                .double("REMOTE_PRIO_FACTOR")?
                .unwrap_or(d.remote_prio_factor),
            local_domain: v.string("ACCOUNTANT_LOCAL_DOMAIN")?,
            nice_user_prefix: v
                .string("NICE_USER_ACCOUNTING_GROUP_NAME")?
                .unwrap_or(d.nice_user_prefix),
            use_slot_weights: v
                .bool("NEGOTIATOR_USE_SLOT_WEIGHTS")?
                .unwrap_or(d.use_slot_weights),
            discount_suspended: v
                .bool("NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES")?
                .unwrap_or(false),
            groups: GroupTree::from_config(config)?,
        })
    }
}

/// One customer's record: HTCondor's `Customer.<name>` ad.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomerRecord {
    /// `Priority`: the real user priority; below 0.5 reads as 0.5.
    pub priority: f64,
    /// `PriorityFactor` when set with `condor_userprio -setfactor`.
    pub priority_factor: Option<f64>,
    /// `ResourcesUsed`: matches (claims) held now.
    pub resources_used: i64,
    /// `WeightedResourcesUsed`: the same, weighted by `SlotWeight`.
    pub weighted_resources_used: f64,
    /// `HierWeightedResourcesUsed`: for a group, the weighted use of its whole subtree.
    pub hier_weighted_resources_used: f64,
    /// `UnchargedTime`: seconds of use since the last update not yet charged (negative for a
    /// match that started after it).
    pub uncharged_time: i64,
    /// `WeightedUnchargedTime`.
    pub weighted_uncharged_time: f64,
    /// `AccumulatedUsage`: resource-seconds used since `BeginUsageTime`.
    pub accumulated_usage: f64,
    /// `WeightedAccumulatedUsage`.
    pub weighted_accumulated_usage: f64,
    /// `BeginUsageTime`: when usage began to accumulate (0: never).
    pub begin_usage_time: i64,
    /// `LastUsageTime`: the last update at which the customer used anything (0: never).
    pub last_usage_time: i64,
    /// `Ceiling`: the most weighted resources the submitter may hold; -1 for no limit.
    pub ceiling: i64,
    /// `Floor`: weighted resources the submitter is given before anyone else; 0 for none.
    pub floor: i64,
}

impl Default for CustomerRecord {
    fn default() -> Self {
        CustomerRecord {
            priority: MIN_PRIORITY,
            priority_factor: None,
            resources_used: 0,
            weighted_resources_used: 0.0,
            hier_weighted_resources_used: 0.0,
            uncharged_time: 0,
            weighted_uncharged_time: 0.0,
            accumulated_usage: 0.0,
            weighted_accumulated_usage: 0.0,
            begin_usage_time: 0,
            last_usage_time: 0,
            ceiling: -1,
            floor: 0,
        }
    }
}

/// One match the accountant knows of: HTCondor's `Resource.<slot name>@<address>` ad.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ResourceRecord {
    /// `RemoteUser`: the customer the slot is charged to.
    pub remote_user: String,
    /// `SlotWeight`: what the match costs (the match cost, for a partitionable slot).
    pub slot_weight: f64,
    /// `StartTime`: when the match was made.
    pub start_time: i64,
    /// `MatchedConcurrencyLimits`, lower-cased.
    pub matched_concurrency_limits: Option<String>,
    /// `NumCpMatches`: on a partitionable slot's placeholder record, how many consumption-policy
    /// matches were made against it this cycle (they are recorded as `<name>_cp_match_NNN`).
    pub num_cp_matches: Option<i64>,
}

/// A group's quota as the negotiator last computed it (what `condor_userprio -quotas` shows).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GroupQuota {
    /// `EffectiveQuota`.
    pub effective_quota: f64,
    /// `SubtreeQuota`.
    pub subtree_quota: f64,
    /// `GroupSortKey`.
    pub sort_key: f64,
    /// `Requested`: weighted demand.
    pub requested: f64,
}

/// Everything the accountant knows: a plain value the negotiator works on.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AccountantState {
    /// `LastUpdateTime`: when priorities were last aged.
    pub last_update_time: i64,
    pub customers: BTreeMap<String, CustomerRecord>,
    pub resources: BTreeMap<String, ResourceRecord>,
    /// The groups' quotas as of the last negotiation cycle, by group name.
    pub group_quotas: BTreeMap<String, GroupQuota>,
    /// Concurrency limits in use, by lower-cased name (recomputed every cycle; not persisted).
    pub limits: BTreeMap<String, f64>,
}

/// What the accountant reads from a slot ad.
#[derive(Clone, Debug, PartialEq)]
pub struct SlotClaim {
    /// `Name@StartdIpAddr`.
    pub resource: String,
    /// `State`.
    pub state: String,
    /// `Activity`.
    pub activity: String,
    /// `AccountingGroup`, else `RemoteUser`.
    pub remote_user: Option<String>,
    /// `SlotWeight` (1 when slot weights are off).
    pub weight: f64,
    /// `ConcurrencyLimits` of the running job.
    pub concurrency_limits: Option<String>,
    /// `PreemptingConcurrencyLimits` of the job waiting to preempt it.
    pub preempting_concurrency_limits: Option<String>,
}

impl SlotClaim {
    pub fn from_ad(ad: &ClassAd, cfg: &AccountantConfig) -> SlotClaim {
        SlotClaim {
            resource: resource_name(ad),
            state: string_attr(ad, "State").unwrap_or_default(),
            activity: string_attr(ad, "Activity").unwrap_or_default(),
            remote_user: string_attr(ad, "AccountingGroup")
                .or_else(|| string_attr(ad, "RemoteUser")),
            weight: slot_weight(ad, cfg.use_slot_weights),
            concurrency_limits: string_attr(ad, "ConcurrencyLimits"),
            preempting_concurrency_limits: string_attr(ad, "PreemptingConcurrencyLimits"),
        }
    }

    fn claimed(&self) -> bool {
        self.state.eq_ignore_ascii_case("Claimed") || self.state.eq_ignore_ascii_case("Preempting")
    }
}

/// The accountant's name for a slot: `Name@StartdIpAddr` (HTCondor's `GetResourceName`).
pub fn resource_name(ad: &ClassAd) -> String {
    format!(
        "{}@{}",
        string_attr(ad, "Name").unwrap_or_default(),
        string_attr(ad, "StartdIpAddr").unwrap_or_default()
    )
}

/// A slot's `SlotWeight` as the accountant charges it: 1 when slot weights are off or the
/// weight is missing or negative.
pub fn slot_weight(ad: &ClassAd, use_slot_weights: bool) -> f64 {
    if !use_slot_weights {
        return 1.0;
    }
    match ad.eval_attr("SlotWeight").as_number_real() {
        Some(w) if w >= 0.0 => w,
        _ => 1.0,
    }
}

/// A string attribute's value (HTCondor's `LookupString`).
pub fn string_attr(ad: &ClassAd, name: &str) -> Option<String> {
    match ad.eval_attr(name) {
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

/// The domain part of a customer name (after the last `@`).
pub fn domain_of(customer: &str) -> &str {
    customer.rfind('@').map_or("", |i| &customer[i + 1..])
}

impl AccountantState {
    pub fn new() -> AccountantState {
        AccountantState::default()
    }

    pub fn customer(&self, name: &str) -> Option<&CustomerRecord> {
        self.customers.get(name)
    }

    fn customer_mut(&mut self, name: &str) -> &mut CustomerRecord {
        if !self.customers.contains_key(name) {
            self.customers
                .insert(name.to_owned(), CustomerRecord::default());
        }
        self.customers.get_mut(name).expect("inserted")
    }

    /// The real user priority (never below 0.5).
    pub fn real_priority(&self, name: &str) -> f64 {
        self.customers
            .get(name)
            .map_or(MIN_PRIORITY, |c| c.priority)
            .max(MIN_PRIORITY)
    }

    /// The priority factor: the one set explicitly, else the default HTCondor's
    /// `GetPriorityFactor` would give the customer.
    pub fn priority_factor(&self, cfg: &AccountantConfig, name: &str) -> f64 {
        if let Some(f) = self.customers.get(name).and_then(|c| c.priority_factor) {
            if f >= MIN_PRIORITY_FACTOR {
                return f;
            }
        }
        default_priority_factor(cfg, name)
    }

    /// The effective user priority: real priority times factor (HTCondor's `GetPriority`).
    pub fn priority(&self, cfg: &AccountantConfig, name: &str) -> f64 {
        self.real_priority(name) * self.priority_factor(cfg, name)
    }

    pub fn resources_used(&self, name: &str) -> i64 {
        self.customers.get(name).map_or(0, |c| c.resources_used)
    }

    pub fn weighted_resources_used(&self, name: &str) -> f64 {
        self.customers
            .get(name)
            .map_or(0.0, |c| c.weighted_resources_used)
    }

    /// The ceiling, -1 when unlimited.
    pub fn ceiling(&self, name: &str) -> i64 {
        match self.customers.get(name).map_or(-1, |c| c.ceiling) {
            c if c < 0 => -1,
            c => c,
        }
    }

    /// The floor, 0 when none.
    pub fn floor(&self, name: &str) -> i64 {
        self.customers.get(name).map_or(0, |c| c.floor).max(0)
    }

    /// Creates the records of the configured groups, as HTCondor does at startup and reconfig.
    pub fn ensure_group_records(&mut self, cfg: &AccountantConfig) {
        for &g in cfg.groups.breadth_first() {
            let name = cfg.groups.group(g).name.clone();
            self.customers.entry(name).or_default();
        }
    }

    /// Ages every priority to `now` and charges the usage since the last update
    /// (HTCondor's `UpdatePriorities`). A clock that went backwards only moves the update time.
    pub fn update_priorities(&mut self, cfg: &AccountantConfig, now: i64) {
        let passed = now - self.last_update_time;
        if passed == 0 {
            return;
        }
        self.last_update_time = now;
        if passed < 0 {
            return;
        }
        let aging = 0.5f64.powf(passed as f64 / cfg.half_life);
        let dt = passed as f64;
        let mut expired = Vec::new();
        for (name, c) in self.customers.iter_mut() {
            let old = c.priority.max(MIN_PRIORITY);
            let recent = c.resources_used as f64 + c.uncharged_time as f64 / dt;
            let mut weighted_recent = c.weighted_resources_used + c.weighted_uncharged_time / dt;
            // A group's priority follows the usage of its whole subtree.
            if c.hier_weighted_resources_used > 0.0 {
                weighted_recent = c.hier_weighted_resources_used;
            }
            let aged = old * aging + weighted_recent * (1.0 - aging);
            c.priority = aged.max(MIN_PRIORITY);
            c.accumulated_usage += c.resources_used as f64 * dt + c.uncharged_time as f64;
            c.weighted_accumulated_usage +=
                c.weighted_resources_used * dt + c.weighted_uncharged_time;
            if c.accumulated_usage > 0.0 && c.begin_usage_time == 0 {
                c.begin_usage_time = now;
            }
            if recent > 0.0 {
                c.last_usage_time = now;
            }
            c.uncharged_time = 0;
            c.weighted_uncharged_time = 0.0;
            let is_group = cfg.groups.find(name).is_some();
            if aged < MIN_PRIORITY
                && c.resources_used == 0
                && c.accumulated_usage == 0.0
                && c.priority_factor.is_none()
                && c.ceiling < 0
                && c.floor <= 0
                && !is_group
            {
                expired.push(name.clone());
            }
        }
        for name in expired {
            self.customers.remove(&name);
        }
    }

    /// Records a match of `customer` to a slot (HTCondor's `AddMatch`). `match_cost` is the
    /// cost of a consumption-policy match against a partitionable slot (several may be made
    /// against one slot in a cycle); `None` charges `weight` for the whole slot.
    #[allow(clippy::too_many_arguments)]
    pub fn add_match(
        &mut self,
        cfg: &AccountantConfig,
        customer: &str,
        resource: &str,
        weight: f64,
        match_cost: Option<f64>,
        concurrency_limits: Option<&str>,
        now: i64,
    ) {
        let (resource, weight) = match match_cost {
            Some(cost) => {
                let placeholder = self.resources.entry(resource.to_owned()).or_default();
                let n = placeholder.num_cp_matches.unwrap_or(0);
                placeholder.num_cp_matches = Some(n + 1);
                (format!("{resource}_cp_match_{n:03}"), cost)
            }
            None => {
                if let Some(existing) = self.resources.get(resource) {
                    if existing.remote_user == customer {
                        return;
                    }
                    self.remove_match(cfg, resource, now);
                }
                (resource.to_owned(), weight)
            }
        };
        let since = now - self.last_update_time;
        let c = self.customer_mut(customer);
        c.resources_used += 1;
        c.weighted_resources_used += weight;
        c.uncharged_time -= since;
        c.weighted_uncharged_time -= since as f64 * weight;
        let group = cfg.groups.assigned_name(customer).to_owned();
        let g = self.customer_mut(&group);
        g.resources_used += 1;
        g.weighted_resources_used += weight;
        g.uncharged_time -= since;
        g.weighted_uncharged_time -= since as f64 * weight;
        for part in group_prefixes(&group) {
            self.customer_mut(part).hier_weighted_resources_used += weight;
        }
        let limits = concurrency_limits
            .filter(|l| !l.is_empty())
            .map(|l| l.to_ascii_lowercase());
        if let Some(l) = &limits {
            self.increment_limits(l, 1.0);
        }
        self.resources.insert(
            resource,
            ResourceRecord {
                remote_user: customer.to_owned(),
                slot_weight: weight,
                start_time: now,
                matched_concurrency_limits: limits,
                num_cp_matches: None,
            },
        );
    }

    /// Forgets a match (HTCondor's `RemoveMatch`), charging its use since the last update.
    pub fn remove_match(&mut self, cfg: &AccountantConfig, resource: &str, now: i64) {
        let Some(record) = self.resources.remove(resource) else {
            return;
        };
        if record.num_cp_matches.is_some() || record.remote_user.is_empty() {
            return;
        }
        let start = record.start_time.max(self.last_update_time);
        let weight = record.slot_weight;
        let customer = record.remote_user;
        let c = self.customer_mut(&customer);
        if c.resources_used > 0 {
            c.resources_used -= 1;
        }
        c.weighted_resources_used = (c.weighted_resources_used - weight).max(0.0);
        c.uncharged_time += now - start;
        c.weighted_uncharged_time += (now - start) as f64 * weight;
        let group = cfg.groups.assigned_name(&customer).to_owned();
        let g = self.customer_mut(&group);
        g.resources_used = (g.resources_used - 1).max(0);
        g.weighted_resources_used = (g.weighted_resources_used - weight).max(0.0);
        g.uncharged_time += now - start;
        g.weighted_uncharged_time += (now - start) as f64 * weight;
        for part in group_prefixes(&group) {
            let c = self.customer_mut(part);
            c.hier_weighted_resources_used = (c.hier_weighted_resources_used - weight).max(0.0);
        }
    }

    /// Reconciles the matches with the slots as they are now (HTCondor's `CheckMatches`):
    /// forgets matches whose slot is gone or no longer claimed by the same customer, records
    /// claims the accountant did not know of, and recounts the concurrency limits in use.
    pub fn check_matches(&mut self, cfg: &AccountantConfig, slots: &[SlotClaim], now: i64) {
        let by_name: BTreeMap<&str, &SlotClaim> =
            slots.iter().map(|s| (s.resource.as_str(), s)).collect();
        let stale: Vec<String> = self
            .resources
            .iter()
            .filter(|(name, record)| match by_name.get(name.as_str()) {
                None => true,
                Some(slot) => !claimed_or_matched(cfg, slot, &record.remote_user),
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in stale {
            self.remove_match(cfg, &name, now);
        }
        for slot in slots {
            if let Some(user) = claimed_by(cfg, slot) {
                self.add_match(cfg, &user, &slot.resource, slot.weight, None, None, now);
                if let Some(r) = self.resources.get_mut(&slot.resource) {
                    r.matched_concurrency_limits = slot
                        .concurrency_limits
                        .as_ref()
                        .map(|l| l.to_ascii_lowercase());
                }
            }
        }
        self.load_limits(slots);
    }

    /// Recounts the concurrency limits in use from the slots (HTCondor's `LoadLimits`).
    fn load_limits(&mut self, slots: &[SlotClaim]) {
        for v in self.limits.values_mut() {
            *v = 0.0;
        }
        for slot in slots {
            for limits in [
                &slot.concurrency_limits,
                &slot.preempting_concurrency_limits,
            ]
            .into_iter()
            .flatten()
            {
                self.increment_limits(&limits.to_ascii_lowercase(), 1.0);
            }
            if slot.state.eq_ignore_ascii_case("Matched") {
                if let Some(l) = self
                    .resources
                    .get(&slot.resource)
                    .and_then(|r| r.matched_concurrency_limits.clone())
                {
                    self.increment_limits(&l, 1.0);
                }
            }
        }
    }

    /// Adds `sign` times each limit's increment (`name` or `name:amount`) to its count.
    pub fn increment_limits(&mut self, limits: &str, sign: f64) {
        for item in limits
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
        {
            if let Some((name, amount)) = parse_concurrency_limit(item) {
                *self.limits.entry(name).or_insert(0.0) += sign * amount;
            }
        }
    }

    /// The amount of a concurrency limit in use.
    pub fn limit_in_use(&self, name: &str) -> f64 {
        self.limits.get(name).copied().unwrap_or(0.0)
    }

    // ----- administration (condor_userprio) -----

    /// `-setprio`: the real priority.
    pub fn set_priority(&mut self, name: &str, priority: f64) {
        self.customer_mut(name).priority = priority;
    }

    /// `-setfactor`: the priority factor (at least 1).
    pub fn set_priority_factor(&mut self, name: &str, factor: f64) {
        self.customer_mut(name).priority_factor = Some(factor.max(MIN_PRIORITY_FACTOR));
    }

    /// `-setaccum`: the weighted accumulated usage, in seconds.
    pub fn set_accumulated_usage(&mut self, name: &str, usage: f64) {
        self.customer_mut(name).weighted_accumulated_usage = usage;
    }

    /// `-setbegin`.
    pub fn set_begin_usage_time(&mut self, name: &str, time: i64) {
        self.customer_mut(name).begin_usage_time = time;
    }

    /// `-setlast`.
    pub fn set_last_usage_time(&mut self, name: &str, time: i64) {
        self.customer_mut(name).last_usage_time = time;
    }

    /// `-setceiling` (-1: no ceiling).
    pub fn set_ceiling(&mut self, name: &str, ceiling: i64) {
        self.customer_mut(name).ceiling = ceiling;
    }

    /// `-setfloor` (0: no floor).
    pub fn set_floor(&mut self, name: &str, floor: i64) {
        self.customer_mut(name).floor = floor;
    }

    /// `-resetusage`: accumulated usage to zero, usage beginning now.
    pub fn reset_usage(&mut self, name: &str, now: i64) {
        let c = self.customer_mut(name);
        c.accumulated_usage = 0.0;
        c.weighted_accumulated_usage = 0.0;
        c.begin_usage_time = now;
    }

    /// `-resetall`: [`reset_usage`](Self::reset_usage) for every customer.
    pub fn reset_all_usage(&mut self, now: i64) {
        for c in self.customers.values_mut() {
            c.accumulated_usage = 0.0;
            c.weighted_accumulated_usage = 0.0;
            c.begin_usage_time = now;
        }
    }

    /// `-delete`: forgets the customer. Returns whether there was a record.
    pub fn delete(&mut self, name: &str) -> bool {
        self.customers.remove(name).is_some()
    }
}

/// The factor a customer gets when none was set for it (HTCondor's `GetPriorityFactor`).
pub fn default_priority_factor(cfg: &AccountantConfig, name: &str) -> f64 {
    if !cfg.nice_user_prefix.is_empty() && name.starts_with(cfg.nice_user_prefix.as_str()) {
        return cfg.nice_user_prio_factor;
    }
    let (group, _) = cfg.groups.assigned(name);
    let group_factor = cfg.groups.group(group).prio_factor;
    if group_factor != 0.0 {
        return group_factor;
    }
    if let Some(local) = cfg.local_domain.as_deref() {
        if local != domain_of(name) {
            return cfg.remote_prio_factor;
        }
    }
    cfg.default_prio_factor
}

/// `a.b.c`, `a.b`, `a`: the group and its ancestors by name.
fn group_prefixes(group: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(group);
    std::iter::from_fn(move || {
        let cur = rest?;
        rest = cur.rfind('.').map(|i| &cur[..i]);
        Some(cur)
    })
}

/// The customer a claimed slot is charged to (HTCondor's `IsClaimed`).
fn claimed_by(cfg: &AccountantConfig, slot: &SlotClaim) -> Option<String> {
    if !slot.claimed() {
        return None;
    }
    let user = slot.remote_user.clone()?;
    if cfg.discount_suspended && slot.activity.eq_ignore_ascii_case("Suspended") {
        return None;
    }
    Some(user)
}

/// Whether the slot is matched, or claimed by `customer` (HTCondor's `CheckClaimedOrMatched`).
fn claimed_or_matched(cfg: &AccountantConfig, slot: &SlotClaim, customer: &str) -> bool {
    if slot.state.eq_ignore_ascii_case("Matched") {
        return true;
    }
    claimed_by(cfg, slot).is_some_and(|u| u == customer)
}

/// `name` or `name:amount` (HTCondor's `ParseConcurrencyLimit`): the lower-cased name and the
/// amount (1 when not given or not positive). A name is an attribute name, or two joined by a
/// dot (`license.matlab`).
pub fn parse_concurrency_limit(item: &str) -> Option<(String, f64)> {
    let (name, amount) = match item.split_once(':') {
        Some((n, a)) => (n, crate::classad::cnum::atof(a)),
        None => (item, 1.0),
    };
    let amount = if amount > 0.0 { amount } else { 1.0 };
    let valid = |part: &str| {
        let mut chars = part.chars();
        matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let ok = match name.split_once('.') {
        Some((a, b)) => valid(a) && valid(b),
        None => valid(name),
    };
    ok.then(|| (name.to_ascii_lowercase(), amount))
}

/// The accountant with its records kept in a store: every change is one transaction.
pub struct Accountant {
    config: AccountantConfig,
    state: AccountantState,
    store: Box<dyn AccountantStore>,
    /// Counts the changes to `state` (commits and reloads).
    generation: u64,
}

impl std::fmt::Debug for Accountant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accountant")
            .field("config", &self.config)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl Accountant {
    /// Loads the records from `store` and creates those of the configured groups.
    pub fn new(
        config: AccountantConfig,
        mut store: Box<dyn AccountantStore>,
    ) -> Result<Accountant, StoreError> {
        let state = store.load()?;
        let mut acct = Accountant {
            config,
            state,
            store,
            generation: 0,
        };
        acct.update(|state, cfg| state.ensure_group_records(cfg))?;
        Ok(acct)
    }

    /// Opens (creating if needed) the accountant database in the spool directory.
    pub fn open(
        config: AccountantConfig,
        spool: impl AsRef<std::path::Path>,
    ) -> Result<Accountant, StoreError> {
        let store = SqliteStore::open(spool.as_ref().join(ACCOUNTANT_FILE))?;
        Accountant::new(config, Box::new(store))
    }

    /// An accountant over a fresh in-memory store.
    pub fn in_memory(config: AccountantConfig) -> Accountant {
        Accountant::new(config, Box::new(MemoryStore::default())).expect("memory store")
    }

    pub fn config(&self) -> &AccountantConfig {
        &self.config
    }

    pub fn state(&self) -> &AccountantState {
        &self.state
    }

    /// Re-reads the records when another process (`condor_userprio`) may have written them
    /// since the last reload.
    pub fn reload(&mut self) -> Result<(), StoreError> {
        if !self.store.changed_elsewhere()? {
            return Ok(());
        }
        let limits = std::mem::take(&mut self.state.limits);
        self.state = self.store.load()?;
        self.state.limits = limits;
        self.generation += 1;
        Ok(())
    }

    /// A number that changes whenever the state does (a commit or a reload): a caller can
    /// tell that nothing changed since it last looked.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Applies `change` to the state and writes what it changed as one transaction.
    pub fn update<R>(
        &mut self,
        change: impl FnOnce(&mut AccountantState, &AccountantConfig) -> R,
    ) -> Result<R, StoreError> {
        let mut next = self.state.clone();
        let result = change(&mut next, &self.config);
        self.commit(next)?;
        Ok(result)
    }

    /// Replaces the state with `next` (a negotiation cycle's result), writing the difference
    /// as one transaction.
    pub fn commit(&mut self, next: AccountantState) -> Result<(), StoreError> {
        let batch = store::Batch::diff(&self.state, &next);
        if !batch.is_empty() {
            self.store.apply(&batch)?;
            self.generation += 1;
        }
        self.state = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
