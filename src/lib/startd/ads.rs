//! The slot ads and the daemon ad, attribute by attribute as HTCondor's startd publishes them
//! (`Resource::publish_static` then `publish_dynamic`, `CpuAttributes::publish_*`,
//! `MachAttributes::publish_*`, `Claim::publish`, `ResMgr::publish_daemon_ad`).
//!
//! Two additions to what HTCondor 24 sends the collector: `CurrentTime = time()` and
//! `IsOwner` (HTCondor keeps both only in its internal ad). What the policy evaluates is the
//! internal ad: the published attributes over the configuration's expressions (`SUSPEND`,
//! `WANT_VACATE`, `CLAIM_WORKLIFE`, ...).

use chrono::{Datelike, TimeZone, Timelike};

use super::slot::{Slot, SlotKind};
use super::state::State;
use super::{number, Startd, CONDOR_VERSION, STARTER_ABILITIES};
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr, Value};

/// `INT_MAX`, HTCondor's `TimeToLive` of a startd that does not plan to exit.
const FOREVER: i64 = 2147483647;

pub(super) fn expr(text: &str) -> Expr {
    // The same few texts come with every ad the startd builds: each is parsed once per
    // thread.
    thread_local! {
        static PARSED: std::cell::RefCell<std::collections::HashMap<String, Expr>> =
            Default::default();
    }
    PARSED.with(|p| {
        if let Some(e) = p.borrow().get(text) {
            return e.clone();
        }
        let e = parse_old_expr(text).unwrap_or(Expr::Lit(Value::Error));
        p.borrow_mut().insert(text.to_owned(), e.clone());
        e
    })
}

/// `rint(x * 100) / 100`.
fn centi(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

impl Startd {
    /// The resources' names as `MachineResources` lists them.
    fn machine_resources(&self) -> String {
        let mut s = String::from("Cpus Memory Disk Swap");
        for r in self.resources.iter() {
            s.push(' ');
            s.push_str(&r.name);
        }
        s
    }

    /// `WithinResourceLimits` of a partitionable or dynamic slot (HTCondor's `Reqexp`).
    pub(super) fn within_resource_limits(&self, s: &Slot) -> Expr {
        if s.consumption.is_some() {
            let mut assets: Vec<String> = vec!["Cpus".into(), "Memory".into(), "Disk".into()];
            for c in &s.res.custom {
                if !assets.iter().any(|a| a.eq_ignore_ascii_case(&c.name)) {
                    assets.push(c.name.clone());
                }
            }
            assets.sort_by(|a, b| crate::classad::ad::cmp_ignore_case(a, b));
            let parts: Vec<String> = assets
                .iter()
                .map(|a| {
                    format!("ifThenElse(TARGET._cp_orig_Request{a} isnt UNDEFINED, TARGET.Request{a} <= MY.{a}, MY.Consumption{a} <= MY.{a})")
                })
                .collect();
            return expr(&format!("({})", parts.join(" && ")));
        }
        let mut text = String::from(
            "(MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk",
        );
        for c in &s.res.custom {
            let r = &c.name;
            text.push_str(&format!(
                " && (TARGET.Request{r} is UNDEFINED ||MY.{r} >= TARGET.Request{r})"
            ));
        }
        text.push(')');
        expr(&text)
    }

    /// A slot's resources (`CpuAttributes::publish_static`).
    fn publish_resources(&self, s: &Slot, ad: &mut ClassAd) {
        let r = &s.res;
        ad.insert("Memory", Expr::lit(r.memory.max(0)));
        ad.insert("TotalSlotMemory", Expr::lit(r.slot_memory));
        ad.insert("TotalSlotDisk", Expr::lit(r.slot_disk));
        if r.fractional_cpus {
            ad.insert("Cpus", Expr::lit(r.cpus.max(0.0)));
            ad.insert("TotalSlotCpus", Expr::lit(r.slot_cpus));
        } else {
            ad.insert("Cpus", Expr::lit((r.cpus.max(0.0) + 0.1) as i64));
            ad.insert("TotalSlotCpus", Expr::lit((r.slot_cpus + 0.1) as i64));
        }
        ad.insert(
            "VirtualMemory",
            Expr::lit(r.virtual_memory(self.machine.virt_mem)),
        );
        for c in &r.custom {
            ad.insert(&c.name, Expr::lit(c.amount as i64));
            ad.insert(&format!("TotalSlot{}", c.name), Expr::lit(c.total as i64));
            if c.ids.is_empty() {
                continue;
            }
            ad.insert(&format!("Assigned{}", c.name), Expr::lit(c.ids.join(",")));
            // Properties of the assigned instances, one nested ad each.
            if let Some(m) = self.resources.get(&c.name) {
                for id in &c.ids {
                    if let Some(p) = m.props.get(id) {
                        let mut p = p.clone();
                        p.insert("Id", Expr::lit(id.as_str()));
                        let attr = super::resources::attr_safe(id);
                        ad.insert(&format!("{}_{attr}", c.name), Expr::Ad(Box::new(p)));
                    }
                }
            }
        }
    }

    /// Machine-wide attributes that change only on reconfiguration
    /// (`MachAttributes::publish_static`).
    fn publish_machine_static(&self, ad: &mut ClassAd) {
        ad.insert("StartdIpAddr", Expr::lit(self.settings.address.as_str()));
        self.machine.publish_static(ad);
        ad.insert("TotalCpus", Expr::lit(self.machine.num_cpus));
        ad.insert("TotalMemory", Expr::lit(self.machine.phys_mem));
        for r in self.resources.iter() {
            ad.insert(&format!("Detected{}", r.name), number(r.quantity));
            ad.insert(&format!("Total{}", r.name), number(r.quantity));
        }
        ad.insert("MachineResources", Expr::lit(self.machine_resources()));
    }

    /// What the starter can do (`Starter::publish`).
    fn publish_starter(&self, ad: &mut ClassAd) {
        for a in STARTER_ABILITIES {
            ad.insert(a, Expr::lit(true));
        }
        ad.insert("StarterAbilityList", Expr::lit(STARTER_ABILITIES.join(",")));
    }

    /// `CondorVersion` and the other attributes every daemon publishes
    /// (`DaemonCore::publish`, `config_fill_ad`).
    fn publish_daemon_core(&self, ad: &mut ClassAd) {
        for (n, e) in &self.settings.global_attrs {
            ad.insert(n, e.clone());
        }
        ad.insert("CondorVersion", Expr::lit(CONDOR_VERSION));
        ad.insert("CondorPlatform", Expr::lit(self.settings.platform.as_str()));
        ad.insert("MyCurrentTime", Expr::lit(self.now));
        ad.insert("Machine", Expr::lit(self.machine.full_hostname.as_str()));
        ad.insert("MyAddress", Expr::lit(self.settings.address.as_str()));
        ad.insert("DaemonStartTime", Expr::lit(self.start_time));
        ad.insert("DaemonLastReconfigTime", Expr::lit(self.reconfig_time));
    }

    /// Machine-wide values that change with time (`MachAttributes::publish_common_dynamic`).
    fn publish_machine_dynamic(&self, ad: &mut ClassAd) {
        for r in self.resources.iter() {
            if !r.offline.is_empty() {
                ad.insert(
                    &format!("Offline{}", r.name),
                    Expr::lit(r.offline.join(",")),
                );
            }
        }
        ad.insert("TotalVirtualMemory", Expr::lit(self.machine.virt_mem));
        ad.insert("LastBenchmark", Expr::lit(0i64));
        ad.insert("TotalLoadAvg", Expr::lit(centi(self.load)));
        let condor: f64 = self.slots.iter().map(|s| s.condor_load).sum();
        ad.insert("TotalCondorLoadAvg", Expr::lit(centi(condor)));
        let (min, day) = match chrono::Local.timestamp_opt(self.now, 0).single() {
            Some(t) => (
                (t.hour() * 60 + t.minute()) as i64,
                t.weekday().num_days_from_sunday() as i64,
            ),
            None => (0, 0),
        };
        ad.insert("ClockMin", Expr::lit(min));
        ad.insert("ClockDay", Expr::lit(day));
    }

    /// The startd's statistics (`StartdStats::Publish`) and the monitoring attributes.
    fn publish_stats(&self, ad: &mut ClassAd) {
        ad.insert("TotalSlots", Expr::lit(self.slots.len() as i64));
        ad.insert("TimeToLive", Expr::lit(FOREVER));
        let recent = self.recent_starts.len() as i64;
        ad.insert("JobStarts", Expr::lit(self.job_starts as i64));
        ad.insert("RecentJobStarts", Expr::lit(recent));
        for a in [
            "JobPreemptions",
            "JobRankPreemptions",
            "JobUserPrioPreemptions",
        ] {
            ad.insert(a, Expr::lit(0i64));
            ad.insert(&format!("Recent{a}"), Expr::lit(0i64));
        }
        ad.insert("DetectedCpus", Expr::lit(self.machine.detected_cpus));
        ad.insert("DetectedMemory", Expr::lit(self.machine.detected_memory));
    }

    /// What a slot's ad holds that changes only with the configuration or its resources
    /// (cached by [`super::StaticAds`]).
    fn static_part(&self, s: &Slot) -> ClassAd {
        let mut ad = ClassAd::new();

        // Static: what changes only on reconfiguration.
        ad.insert("MyType", Expr::lit("Machine"));
        ad.insert("HasStartDaemonAd", Expr::lit(true));
        ad.insert("TargetType", Expr::lit("Job"));
        ad.insert("Name", Expr::lit(s.name.as_str()));
        ad.insert("IsLocalStartd", Expr::lit(self.settings.is_local));
        ad.insert(
            "Rank",
            s.policy.lookup("Rank").cloned().unwrap_or(Expr::lit(0.0)),
        );
        for a in ["CpuBusy", "Unhibernate", "IsOwner"] {
            if let Some(e) = s.policy.lookup(a) {
                ad.insert(a, e.clone());
            }
        }
        ad.insert("CurrentTime", expr("time()"));
        self.publish_daemon_core(&mut ad);
        self.publish_resources(s, &mut ad);
        self.publish_machine_static(&mut ad);
        ad.insert("CondorScratchDir", Expr::lit("#CoNdOrScRaTcHdIr#"));
        self.publish_starter(&mut ad);
        for (n, e) in &s.attrs {
            match e {
                Some(e) => ad.insert(n, e.clone()),
                None => {
                    ad.remove(n);
                }
            }
        }
        ad.insert("SlotID", Expr::lit(s.id as i64));
        ad.update(&self.resources.inventory_attrs);
        ad.insert("SlotTypeID", Expr::lit(s.type_id as i64));
        match s.kind {
            SlotKind::Partitionable => {
                ad.insert("PartitionableSlot", Expr::lit(true));
                ad.insert("SlotType", Expr::lit("Partitionable"));
            }
            SlotKind::Dynamic => {
                ad.insert("DynamicSlot", Expr::lit(true));
                ad.insert("SlotType", Expr::lit("Dynamic"));
                ad.insert("ParentSlotId", Expr::lit(s.id as i64));
                ad.insert("DSlotId", Expr::lit(s.sub_id as i64));
                if self.settings.pslot_rollup {
                    ad.insert("PslotRollupInformation", Expr::lit(true));
                }
            }
            SlotKind::Static => ad.insert("SlotType", Expr::lit("Static")),
        }
        ad.insert("SlotWeight", s.slot_weight.clone());
        if let Some(cons) = &s.consumption {
            for (asset, e) in cons {
                ad.insert(&format!("Consumption{asset}"), e.clone());
            }
        }
        ad
    }

    /// Slot `i`'s ad, without the attributes that come from other slots (the partitionable
    /// slot's `Child*` lists and `STARTD_SLOT_ATTRS`).
    pub(super) fn base_ad(&self, i: usize) -> ClassAd {
        let s = &self.slots[i];
        let mut ad = self
            .static_ads
            .get_or_build(&s.name, || self.static_part(s));
        self.publish_dynamic(i, &mut ad);
        ad
    }

    /// [`Startd::base_ad`] as the startd itself reads it: its dynamic attributes in an ad of
    /// their own, chained to the cached static part rather than copied over it (the policy
    /// builds one for each claimed slot at every pass).
    fn chained_base_ad(&self, i: usize) -> ClassAd {
        let s = &self.slots[i];
        let mut ad = ClassAd::new();
        ad.chain_to(
            self.static_ads
                .get_or_build(&s.name, || self.static_part(s)),
        );
        self.publish_dynamic(i, &mut ad);
        ad
    }

    /// What changes with time, load and claims, over `ad`.
    fn publish_dynamic(&self, i: usize, ad: &mut ClassAd) {
        let s = &self.slots[i];
        let now = self.now;
        ad.insert("MyCurrentTime", Expr::lit(now));
        if matches!(s.state(), State::Claimed | State::Preempting) {
            if let Some(c) = &s.claim {
                for a in &self.settings.job_attrs {
                    if let Some(e) = c.job.lookup(a) {
                        ad.insert(a, e.clone());
                    }
                }
            }
        }
        ad.insert("TotalDisk", Expr::lit(s.res.total_disk));
        ad.insert("Disk", Expr::lit(s.res.disk().max(0)));
        ad.insert("CondorLoadAvg", Expr::lit(centi(s.condor_load)));
        ad.insert("LoadAvg", Expr::lit(centi(s.owner_load + s.condor_load)));
        ad.insert("KeyboardIdle", Expr::lit(s.keyboard_idle));
        ad.insert("ConsoleIdle", Expr::lit(s.console_idle));
        self.publish_machine_dynamic(ad);
        for r in self.resources.iter().filter(|r| r.non_fungible) {
            let owned = self.resources.owned(&r.name, s.id, s.sub_id);
            let refs: Vec<Expr> = owned
                .iter()
                .map(|d| {
                    Expr::Attr(format!("{}_{}", r.name, super::resources::attr_safe(&d.id)).into())
                })
                .collect();
            ad.insert(&format!("Available{}", r.name), Expr::List(refs.into()));
            if ad.lookup(&r.name).is_some() {
                ad.insert(&r.name, Expr::lit(owned.len() as i64));
            }
        }
        self.publish_stats(ad);
        let busy = s.cpu_busy_since.map_or(0, |t| (now - t).max(0));
        ad.insert("CpuBusyTime", Expr::lit(busy));
        ad.insert("CpuIsBusy", Expr::lit(s.cpu_busy_since.is_some()));
        s.sm.publish(ad, now);
        // HTCondor's Reqexp: the slot's own Requirements, False while matched or preempting
        // (`unavail`), and while draining the drain's START, or False without one.
        let draining_start = self.draining_start();
        if matches!(s.state(), State::Matched | State::Preempting)
            || (self.is_draining() && draining_start.is_none())
        {
            // A matched or preempting slot takes no other match.
            if self.is_draining() && !matches!(s.state(), State::Matched | State::Preempting) {
                if let Some(start) = s.policy.lookup("START") {
                    ad.insert("Start", start.clone());
                }
            }
            ad.insert("Requirements", Expr::lit(false));
        } else {
            match draining_start {
                Some(start) => ad.insert("Start", start.clone()),
                None => {
                    if let Some(start) = s.policy.lookup("START") {
                        ad.insert("Start", start.clone());
                    }
                }
            }
            if s.kind == SlotKind::Static {
                ad.insert("Requirements", expr("START"));
            } else {
                ad.insert("Requirements", expr("START && (WithinResourceLimits)"));
                ad.insert("WithinResourceLimits", self.within_resource_limits(s));
            }
        }
        if let Some(e) = s.policy.lookup("MachineMaxVacateTime") {
            ad.insert("MachineMaxVacateTime", e.clone());
        }
        match &s.claim {
            Some(c) => {
                c.publish(ad, now);
                if s.state() == State::Claimed {
                    ad.insert("PublicClaimId", Expr::lit(c.public_id()));
                }
            }
            None => {
                ad.insert("CurrentRank", Expr::lit(0.0));
                ad.insert("NumPids", Expr::lit(0i64));
            }
        }
        self.publish_draining(ad);
        ad.insert(
            "AcceptedWhileDraining",
            Expr::lit(s.accepted_while_draining),
        );
        match self.drain.mjrt_override {
            Some(o) => ad.insert("MaxJobRetirementTime", Expr::lit(o)),
            None => {
                if let Some(e) = s.policy.lookup("MaxJobRetirementTime") {
                    ad.insert("MaxJobRetirementTime", e.clone());
                }
            }
        }
        if s.kind == SlotKind::Partitionable {
            let children = self
                .slots
                .iter()
                .filter(|d| d.kind == SlotKind::Dynamic && d.id == s.id)
                .count();
            ad.insert("NumDynamicSlots", Expr::lit(children as i64));
            if self.settings.pslot_rollup {
                ad.insert("PslotRollupInformation", Expr::lit(true));
            }
        }
        // RetirementTimeRemaining, evaluated in the slot's internal ad (so last: its
        // MaxJobRetirementTime may refer to anything above).
        let active = s.claim.as_ref().is_some_and(|c| c.is_active());
        let retirement = if active {
            let mut internal = ad.clone();
            for (name, e) in s.policy.iter() {
                if internal.lookup(name).is_none() {
                    internal.insert(name, e.clone());
                }
            }
            self.retirement_remaining_in(i, &super::policy::pin_ad(internal, now))
        } else {
            0
        };
        ad.insert("RetirementTimeRemaining", Expr::lit(retirement));
        ad.insert("LastHeardFrom", Expr::lit(now));
    }

    /// Slot `i`'s ad as the policy evaluates it: the published attributes over the
    /// configuration's expressions.
    /// With `STARTD_SLOT_ATTRS`, every slot's attributes as `<slot>_<attr>`
    /// (`ResMgr::publishSlotAttrs`), so that one slot's policy may read another's state.
    pub(super) fn internal_ad(&self, i: usize) -> ClassAd {
        let mut ad = self.chained_base_ad(i);
        for (name, e) in self.slots[i].policy.iter() {
            if ad.lookup(name).is_none() {
                ad.insert(name, e.clone());
            }
        }
        if !self.settings.slot_attrs.is_empty() {
            for j in 0..self.slots.len() {
                let other = if j == i {
                    ad.clone()
                } else {
                    let mut o = self.base_ad(j);
                    for (name, e) in self.slots[j].policy.iter() {
                        if o.lookup(name).is_none() {
                            o.insert(name, e.clone());
                        }
                    }
                    o
                };
                for a in &self.settings.slot_attrs {
                    if let Some(e) = other.lookup(a) {
                        ad.insert(&format!("{}_{a}", self.slots[j].id_str), e.clone());
                    }
                }
            }
        }
        ad
    }

    /// Every visible slot's ad, with the partitionable slots' `Child*` lists and the
    /// `STARTD_SLOT_ATTRS` of every slot.
    pub(super) fn build_slot_ads(&self) -> Vec<ClassAd> {
        let bases: Vec<ClassAd> = (0..self.slots.len()).map(|i| self.base_ad(i)).collect();
        let internals: Vec<ClassAd> = self
            .slots
            .iter()
            .zip(&bases)
            .map(|(s, b)| {
                let mut ad = s.policy.clone();
                ad.update(b);
                ad
            })
            .collect();
        // STARTD_SLOT_ATTRS: each slot's attribute, as <slot>_<attr>, in every ad.
        let mut cross: Vec<(String, Expr)> = Vec::new();
        for (s, internal) in self.slots.iter().zip(&internals) {
            for a in &self.settings.slot_attrs {
                if let Some(e) = internal.lookup(a) {
                    cross.push((format!("{}_{a}", s.id_str), e.clone()));
                }
            }
        }
        let mut out = Vec::new();
        for (i, s) in self.slots.iter().enumerate() {
            if s.hidden {
                continue;
            }
            let mut ad = bases[i].clone();
            if s.kind == SlotKind::Partitionable && self.settings.pslot_rollup {
                let children: Vec<usize> = (0..self.slots.len())
                    .filter(|&j| {
                        self.slots[j].kind == SlotKind::Dynamic && self.slots[j].id == s.id
                    })
                    .collect();
                let mut attrs: Vec<String> = [
                    "Name",
                    "DSlotId",
                    "CurrentRank",
                    "RemoteUser",
                    "RemoteOwner",
                    "AccountingGroup",
                    "State",
                    "Activity",
                    "EnteredCurrentState",
                    "RetirementTimeRemaining",
                    "Cpus",
                    "Memory",
                    "Disk",
                ]
                .into_iter()
                .map(str::to_owned)
                .chain(self.resources.iter().map(|r| r.name.clone()))
                .chain(self.settings.pslot_attrs.iter().cloned())
                .collect();
                attrs.sort_by(|a, b| crate::classad::ad::cmp_ignore_case(a, b));
                attrs.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
                for a in attrs {
                    let items: Vec<Expr> = children
                        .iter()
                        .map(|&j| Expr::from_value(&internals[j].eval_attr(&a)))
                        .collect();
                    ad.insert(&format!("Child{a}"), Expr::List(items.into()));
                }
            }
            for (n, e) in &cross {
                ad.insert(n, e.clone());
            }
            out.push(ad);
        }
        out
    }

    /// The daemon ad (`ResMgr::publish_daemon_ad`).
    pub(super) fn build_daemon_ad(&self) -> ClassAd {
        let mut ad = ClassAd::new();
        ad.insert("MyType", Expr::lit("StartD"));
        self.publish_daemon_core(&mut ad);
        ad.insert("Name", Expr::lit(self.machine.name.as_str()));
        ad.insert("IsLocalStartd", Expr::lit(self.settings.is_local));
        self.publish_starter(&mut ad);
        self.publish_machine_static(&mut ad);

        // Resources in use: dynamic slots and claimed static slots.
        let (mut cpus, mut mem, mut disk) = (0.0f64, 0i64, 0i64);
        let mut custom: Vec<(String, f64)> = self
            .resources
            .iter()
            .map(|r| (r.name.clone(), 0.0))
            .collect();
        for s in &self.slots {
            let claimed = matches!(s.state(), State::Claimed | State::Preempting);
            if s.kind == SlotKind::Dynamic || (claimed && s.kind == SlotKind::Static) {
                cpus += s.res.slot_cpus;
                mem += s.res.slot_memory;
                disk += s.res.slot_disk as i64;
                for (n, v) in &mut custom {
                    if let Some(c) = s.res.custom(n) {
                        *v += c.total;
                    }
                }
            }
        }
        ad.insert("TotalInUseMemory", Expr::lit(mem));
        ad.insert("TotalInUseCpus", Expr::lit(cpus));
        ad.insert("TotalInUseDisk", Expr::lit(disk));
        for (n, v) in &custom {
            ad.insert(&format!("TotalInUse{n}"), Expr::lit(*v));
        }
        ad.insert("TotalBackfillInUseMemory", Expr::lit(0i64));
        ad.insert("TotalBackfillInUseCpus", Expr::lit(0.0));
        ad.insert("TotalBackfillInUseDisk", Expr::lit(0i64));
        ad.insert("ExcessBackfillMemory", Expr::lit(0i64));
        ad.insert("ExcessBackfillCpus", Expr::lit(0.0));
        ad.insert("ExcessBackfillDisk", Expr::lit(0i64));
        for (n, _) in &custom {
            ad.insert(&format!("ExcessBackfill{n}"), Expr::lit(0.0));
        }
        ad.update(&self.resources.inventory_attrs);
        // Every instance's properties, and Detected<Res> as the list of them.
        for r in self.resources.iter() {
            if r.props.is_empty() {
                continue;
            }
            let mut refs = Vec::new();
            for (id, p) in &r.props {
                let attr = super::resources::attr_safe(&format!("{}_{id}", r.name));
                let mut p = p.clone();
                p.insert("Id", Expr::lit(id.as_str()));
                ad.insert(&attr, Expr::Ad(Box::new(p)));
                refs.push(Expr::Attr(attr.into()));
            }
            ad.insert(&format!("Detected{}", r.name), Expr::List(refs.into()));
        }
        self.publish_machine_dynamic(&mut ad);
        self.publish_stats(&mut ad);
        self.publish_draining(&mut ad);
        ad.insert("MyCurrentTime", Expr::lit(self.now));
        ad.insert("LastHeardFrom", Expr::lit(self.now));
        ad
    }
}
