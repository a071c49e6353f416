//! The defrag daemon's policy (HTCondor's src/defrag/defrag.cpp): every `DEFRAG_INTERVAL`,
//! drain a few partitionable machines so that whole-machine jobs can run, at a rate of
//! `DEFRAG_DRAINING_MACHINES_PER_HOUR`, never more than `DEFRAG_MAX_CONCURRENT_DRAINING`
//! draining at once nor past `DEFRAG_MAX_WHOLE_MACHINES` whole machines; and cancel drains of
//! machines that are whole already (`DEFRAG_CANCEL_REQUIREMENTS`).
//!
//! condorlite runs it inside the master when `DAEMON_LIST` names `DEFRAG`, over the startd's
//! own slot ads: on one host there is one machine, so the policy comes down to "drain the
//! partitionable slot when it is not whole, if the rate allows"; and the master polls only
//! while a job waits that the whole machine could run but the fragmented one cannot. A poll is a pure function of
//! (the slot ads, the defrag's memory of the last poll, `now`) returning what to do
//! ([`DefragAction`]), so that it is tested without processes.
//!
//! As defrag.cpp has it:
//! - machines are the partitionable slots (`PartitionableSlot && Offline =!= True`); a
//!   machine counts as draining when it is `Draining` with a `DrainReason` that is undefined
//!   or `"Defrag <name>"` (drains it did not start are not its business), and as whole when
//!   `DEFRAG_WHOLE_MACHINE_EXPR` (`Cpus == TotalSlotCpus`) holds;
//! - the number to drain per poll is the hourly rate spread over the polls, with what does not
//!   divide evenly given once an hour and once a day (`prorate`);
//! - candidates are partitionable slots not draining for which `DEFRAG_REQUIREMENTS` holds,
//!   best `DEFRAG_RANK` first (`-ExpectedMachineGracefulDrainingBadput`), skipping whole
//!   machines and machines whose drain was cancelled in the same poll;
//! - a drain asks for `DEFRAG_DRAINING_SCHEDULE`, `-resume-on-completion`, the reason
//!   `Defrag <name>`, the start expression `DEFRAG_DRAINING_START_EXPR`, and a `-check` that the
//!   expected completion and badput have not grown past what the candidate advertised (20
//!   minutes and 25% + 1,200 CPU-seconds of slack).

use std::collections::BTreeSet;

use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr, Value};
use crate::config::{Config, ConfigError};
use crate::output::render::{lookup_int, lookup_str};
use crate::startd::{DrainRequest, DrainSchedule, OnCompletion};

/// What the defrag asks of a startd.
#[derive(Clone, Debug, PartialEq)]
pub enum DefragAction {
    /// Drain the machine.
    Drain {
        machine: String,
        request: DrainRequest,
    },
    /// Stop draining it: it is whole already.
    Cancel { machine: String },
}

/// The defrag's configuration (`Defrag::config`).
#[derive(Clone, Debug)]
pub struct DefragConfig {
    /// `DEFRAG_INTERVAL` (seconds; 0 or less: no defragmentation).
    pub interval: i64,
    /// `DEFRAG_DRAINING_MACHINES_PER_HOUR`.
    pub per_hour: f64,
    /// Machines to drain each poll, and the remainders given once an hour and once a day.
    per_poll: i64,
    per_poll_hour: i64,
    per_poll_day: i64,
    /// `DEFRAG_MAX_CONCURRENT_DRAINING` (-1: no limit).
    pub max_draining: i64,
    /// `DEFRAG_MAX_WHOLE_MACHINES` (-1: no limit).
    pub max_whole: i64,
    requirements: Option<Expr>,
    whole_machine: Expr,
    cancel_requirements: Option<Expr>,
    rank: Option<Expr>,
    start_expr: Option<String>,
    pub schedule: DrainSchedule,
    /// The daemon's name (`DEFRAG_NAME`, else `DEFRAG`, as `name@host`), in `DrainReason`.
    pub name: String,
}

fn bad(name: &str, text: &str) -> ConfigError {
    ConfigError::new(format!("Invalid expression for {name}: {text}"))
}

impl DefragConfig {
    /// Reads the `DEFRAG_*` knobs, with HTCondor's defaults; `host` names the daemon when
    /// neither `DEFRAG_NAME` nor `LOCALNAME` is set.
    pub fn from_config(config: &Config, host: &str) -> Result<DefragConfig, ConfigError> {
        let string = |name: &str| -> Result<Option<String>, ConfigError> {
            Ok(config.string(name)?.filter(|s| !s.trim().is_empty()))
        };
        let expr = |name: &str, default: Option<&str>| -> Result<Option<Expr>, ConfigError> {
            match string(name)?.or(default.map(str::to_owned)) {
                None => Ok(None),
                Some(text) => parse_old_expr(&text)
                    .map(Some)
                    .map_err(|_| bad(name, &text)),
            }
        };
        let interval = config.int("DEFRAG_INTERVAL")?.unwrap_or(600);
        let per_hour = config
            .double("DEFRAG_DRAINING_MACHINES_PER_HOUR")?
            .unwrap_or(0.0)
            .max(0.0);
        // Spread the hourly rate over the polls; the remainder once an hour, and what that
        // leaves once a day.
        let poll = interval.max(1) as f64;
        let rate = per_hour / 3600.0 * poll;
        let per_poll = ((rate + 0.00001).floor() as i64).max(0);
        let error_per_hour = (rate - per_poll as f64) / poll * 3600.0;
        let mut per_poll_hour = (error_per_hour + 0.00001).floor() as i64;
        if interval > 3600 {
            per_poll_hour = 0;
        }
        let error_per_day = (error_per_hour - per_poll_hour as f64) * 24.0;
        let mut per_poll_day = (error_per_day + 0.5).floor() as i64;
        if per_poll_day < 0 || interval > 3600 * 24 {
            per_poll_day = 0;
        }
        let schedule = match string("DEFRAG_DRAINING_SCHEDULE")?
            .unwrap_or_else(|| "graceful".to_owned())
            .to_ascii_lowercase()
            .as_str()
        {
            "graceful" => DrainSchedule::Graceful,
            "quick" => DrainSchedule::Quick,
            "fast" => DrainSchedule::Fast,
            other => {
                return Err(ConfigError::new(format!(
                    "Invalid draining schedule: {other}"
                )))
            }
        };
        let whole_text =
            string("DEFRAG_WHOLE_MACHINE_EXPR")?.unwrap_or_else(|| "Cpus == TotalSlotCpus".into());
        let whole_machine = parse_old_expr(&whole_text)
            .map_err(|_| bad("DEFRAG_WHOLE_MACHINE_EXPR", &whole_text))?;
        let start_expr = match string("DEFRAG_DRAINING_START_EXPR")? {
            Some(text) => {
                parse_old_expr(&text).map_err(|_| bad("DEFRAG_DRAINING_START_EXPR", &text))?;
                Some(text)
            }
            None => None,
        };
        // The defrag daemon's LOCALNAME is its subsystem's name; `build_valid_daemon_name`
        // puts the host after it.
        let name = string("DEFRAG_NAME")?.unwrap_or_else(|| "DEFRAG".to_owned());
        let name = if name.contains('@') || name.eq_ignore_ascii_case(host) {
            name
        } else {
            format!("{name}@{host}")
        };
        Ok(DefragConfig {
            interval,
            per_hour,
            per_poll,
            per_poll_hour: per_poll_hour.max(0),
            per_poll_day,
            max_draining: config.int("DEFRAG_MAX_CONCURRENT_DRAINING")?.unwrap_or(-1),
            max_whole: config.int("DEFRAG_MAX_WHOLE_MACHINES")?.unwrap_or(-1),
            requirements: expr("DEFRAG_REQUIREMENTS", None)?,
            // Unset, the cancel requirements are the whole-machine expression.
            cancel_requirements: expr("DEFRAG_CANCEL_REQUIREMENTS", Some(&whole_text))?,
            whole_machine,
            rank: expr(
                "DEFRAG_RANK",
                Some("-ExpectedMachineGracefulDrainingBadput"),
            )?,
            start_expr,
            schedule,
            name,
        })
    }

    /// Whether `DAEMON_LIST` names `DEFRAG`.
    pub fn enabled(config: &Config) -> bool {
        config
            .list("DAEMON_LIST")
            .unwrap_or_default()
            .iter()
            .any(|d| d.eq_ignore_ascii_case("DEFRAG"))
    }
}

/// `prorate`: `n` per `period`, for what is left of the period, plus one polling interval's
/// worth; never more than `n`, never of the other sign.
fn prorate(n: i64, elapsed: i64, period: i64, granularity: i64) -> i64 {
    let frac = (period - elapsed) as f64 / period as f64 + granularity as f64 / period as f64;
    let answer = (n as f64 * frac + 0.5).floor() as i64;
    if (n > 0 && answer > n) || (n < 0 && answer < n) {
        n
    } else if answer * n < 0 {
        0
    } else {
        answer
    }
}

/// The defrag daemon's memory between polls.
#[derive(Clone, Debug)]
pub struct Defrag {
    pub config: DefragConfig,
    last_poll: i64,
    /// Drains started and cancelled, as the defrag ad counts them.
    drains: i64,
    cancels: i64,
    draining: usize,
    whole: usize,
}

/// The machine a slot belongs to: the part of its name after `@`.
fn machine_of(ad: &ClassAd) -> String {
    let name = lookup_str(ad, "Name")
        .map(|s| s.to_string())
        .unwrap_or_default();
    match name.split_once('@') {
        Some((_, m)) => m.to_owned(),
        None => name,
    }
}

fn holds(e: &Expr, ad: &ClassAd) -> bool {
    matches!(ad.eval_expr(e, None), Value::Bool(true))
}

impl Defrag {
    pub fn new(config: DefragConfig) -> Defrag {
        Defrag {
            config,
            last_poll: 0,
            drains: 0,
            cancels: 0,
            draining: 0,
            whole: 0,
        }
    }

    /// `DrainReason is undefined || DrainReason == "Defrag <name>"`.
    fn drained_by_me(&self, ad: &ClassAd) -> bool {
        match lookup_str(ad, "DrainReason") {
            None => true,
            Some(r) => *r == *format!("Defrag {}", self.config.name),
        }
    }

    fn is_machine(ad: &ClassAd) -> bool {
        matches!(ad.eval_attr("PartitionableSlot"), Value::Bool(true))
            && !matches!(ad.eval_attr("Offline"), Value::Bool(true))
    }

    fn is_draining(ad: &ClassAd) -> bool {
        matches!(ad.eval_attr("Draining"), Value::Bool(true))
    }

    /// One poll (`Defrag::poll`) over the slot ads at `now`.
    pub fn poll(&mut self, slots: &[ClassAd], now: i64) -> Vec<DefragAction> {
        let cfg = self.config.clone();
        let cfg = &cfg;
        let prev = self.last_poll;
        self.last_poll = now;
        let mut num_to_drain = cfg.per_poll;
        if prev != 0 {
            let (last_hour, hour) = (prev / 3600 * 3600, now / 3600 * 3600);
            let (last_day, day) = (prev / 86400 * 86400, now / 86400 * 86400);
            if hour != last_hour {
                num_to_drain += prorate(cfg.per_poll_hour, now - hour, 3600, cfg.interval);
            }
            if day != last_day {
                num_to_drain += prorate(cfg.per_poll_day, now - day, 86400, cfg.interval);
            }
        }
        let machines: Vec<&ClassAd> = slots.iter().filter(|a| Self::is_machine(a)).collect();
        let draining: BTreeSet<String> = machines
            .iter()
            .filter(|a| Self::is_draining(a) && self.drained_by_me(a))
            .map(|a| machine_of(a))
            .collect();
        let whole: BTreeSet<String> = machines
            .iter()
            .filter(|a| holds(&cfg.whole_machine, a) && self.drained_by_me(a))
            .map(|a| machine_of(a))
            .collect();
        self.draining = draining.len();
        self.whole = whole.len();

        let mut actions = Vec::new();
        // Drains of machines that are whole already are cancelled first.
        let mut cancelled = BTreeSet::new();
        if let Some(cancel) = &cfg.cancel_requirements {
            let whole_draining: Vec<String> = machines
                .iter()
                .filter(|a| Self::is_draining(a) && self.drained_by_me(a) && holds(cancel, a))
                .map(|a| machine_of(a))
                .collect();
            for machine in whole_draining {
                if cancelled.insert(machine.clone()) {
                    actions.push(DefragAction::Cancel { machine });
                    self.cancels += 1;
                }
            }
        }
        if num_to_drain <= 0
            || cfg.per_hour.ceil() <= 0.0
            || cfg.max_draining == 0
            || cfg.max_whole == 0
            || (cfg.max_draining > 0 && draining.len() as i64 >= cfg.max_draining)
            || (cfg.max_whole > 0 && whole.len() as i64 >= cfg.max_whole)
        {
            return actions;
        }
        let mut candidates: Vec<&ClassAd> = machines
            .iter()
            .copied()
            .filter(|a| !Self::is_draining(a))
            .filter(|a| cfg.requirements.as_ref().is_none_or(|r| holds(r, a)))
            .collect();
        let rank = |ad: &ClassAd| -> f64 {
            cfg.rank
                .as_ref()
                .and_then(|r| match ad.eval_expr(r, None) {
                    Value::Int(i) => Some(i as f64),
                    Value::Real(f) => Some(f),
                    _ => None,
                })
                .unwrap_or(0.0)
        };
        // Best rank first; ties by name, so that a poll is deterministic.
        candidates.sort_by(|a, b| {
            rank(b)
                .partial_cmp(&rank(a))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| machine_of(a).cmp(&machine_of(b)))
        });
        let mut done = BTreeSet::new();
        let mut drained = 0;
        for ad in candidates {
            let machine = machine_of(ad);
            if cancelled.contains(&machine) || done.contains(&machine) || whole.contains(&machine) {
                continue;
            }
            done.insert(machine.clone());
            actions.push(DefragAction::Drain {
                machine,
                request: self.drain_request(ad),
            });
            self.drains += 1;
            drained += 1;
            if drained >= num_to_drain {
                break;
            }
        }
        actions
    }

    /// `Defrag::drain_this`: the request for one candidate.
    fn drain_request(&self, ad: &ClassAd) -> DrainRequest {
        let (completion, badput) = match self.config.schedule {
            DrainSchedule::Graceful => (
                "ExpectedMachineGracefulDrainingCompletion",
                "ExpectedMachineGracefulDrainingBadput",
            ),
            _ => (
                "ExpectedMachineQuickDrainingCompletion",
                "ExpectedMachineQuickDrainingBadput",
            ),
        };
        let expected_completion = lookup_int(ad, completion).unwrap_or(0);
        let expected_badput = lookup_int(ad, badput).unwrap_or(0);
        let check = format!(
            "{completion} <= {} && {badput} <= {}",
            expected_completion + 1200,
            (1.25 * expected_badput as f64) as i64 + 1200
        );
        DrainRequest {
            schedule: self.config.schedule,
            reason: Some(format!("Defrag {}", self.config.name)),
            on_completion: OnCompletion::Resume,
            check: Some(check),
            start: self.config.start_expr.clone(),
            request_id: None,
        }
    }

    /// The defrag daemon's ad (`Defrag::publish`, the counts it keeps).
    pub fn ad(&self) -> ClassAd {
        let mut ad = ClassAd::new();
        ad.insert("MyType", Expr::lit("Defrag"));
        ad.insert("Name", Expr::lit(self.config.name.as_str()));
        ad.insert("MachinesDraining", Expr::lit(self.draining as i64));
        ad.insert("WholeMachines", Expr::lit(self.whole as i64));
        ad.insert("DrainSuccesses", Expr::lit(self.drains));
        ad.insert("DrainCancels", Expr::lit(self.cancels));
        ad.insert("LastPollTime", Expr::lit(self.last_poll));
        ad
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A configuration from condor_config text alone.
    fn load(text: &str) -> Config {
        let dir = tempfile::tempdir().unwrap();
        Config::for_test(text, "DEFRAG", None, dir.path())
    }

    fn config(text: &str) -> DefragConfig {
        DefragConfig::from_config(&load(text), "host.example").unwrap()
    }

    /// A partitionable slot with `cpus` of `total` free.
    fn pslot(cpus: i64, total: i64, draining: Option<&str>) -> ClassAd {
        let mut text = format!(
            "[ Name = \"slot1@host.example\"; PartitionableSlot = true; Cpus = {cpus}; \
             TotalSlotCpus = {total}; ExpectedMachineGracefulDrainingBadput = 100; \
             ExpectedMachineGracefulDrainingCompletion = 5000; \
             ExpectedMachineQuickDrainingBadput = 10; \
             ExpectedMachineQuickDrainingCompletion = 4000"
        );
        if let Some(reason) = draining {
            text.push_str(&format!("; Draining = true; DrainReason = \"{reason}\""));
        }
        text.push_str(" ]");
        crate::classad::parse_ad(&text).unwrap()
    }

    #[test]
    fn the_hourly_rate_is_spread_over_the_polls() {
        let c = config("DEFRAG_INTERVAL = 600\nDEFRAG_DRAINING_MACHINES_PER_HOUR = 12\n");
        assert_eq!((c.per_poll, c.per_poll_hour, c.per_poll_day), (2, 0, 0));
        let c = config("DEFRAG_INTERVAL = 600\nDEFRAG_DRAINING_MACHINES_PER_HOUR = 1\n");
        assert_eq!((c.per_poll, c.per_poll_hour, c.per_poll_day), (0, 1, 0));
        let c = config("DEFRAG_INTERVAL = 600\nDEFRAG_DRAINING_MACHINES_PER_HOUR = 0.5\n");
        assert_eq!((c.per_poll, c.per_poll_hour, c.per_poll_day), (0, 0, 12));
        assert_eq!(prorate(4, 1800, 3600, 600), 3);
        assert_eq!(prorate(4, 0, 3600, 600), 4);
    }

    #[test]
    fn a_machine_that_is_not_whole_is_drained_within_the_limits() {
        let mut d = Defrag::new(config(
            "DEFRAG_INTERVAL = 1\nDEFRAG_DRAINING_MACHINES_PER_HOUR = 3600\n\
             DEFRAG_DRAINING_SCHEDULE = quick\nDEFRAG_DRAINING_START_EXPR = RequestCpus == 2\n",
        ));
        let actions = d.poll(&[pslot(1, 2, None)], 1_000_000);
        let [DefragAction::Drain { machine, request }] = actions.as_slice() else {
            panic!("{actions:?}");
        };
        assert_eq!(machine, "host.example");
        assert_eq!(request.schedule, DrainSchedule::Quick);
        assert_eq!(request.on_completion, OnCompletion::Resume);
        assert_eq!(
            request.reason.as_deref(),
            Some("Defrag DEFRAG@host.example")
        );
        assert_eq!(request.start.as_deref(), Some("RequestCpus == 2"));
        assert_eq!(
            request.check.as_deref(),
            Some(
                "ExpectedMachineQuickDrainingCompletion <= 5200 && \
                 ExpectedMachineQuickDrainingBadput <= 1212"
            )
        );
        // A whole machine is not drained; nor is one already draining.
        assert!(d.poll(&[pslot(2, 2, None)], 1_000_001).is_empty());
        assert!(d
            .poll(
                &[pslot(1, 2, Some("Defrag DEFRAG@host.example"))],
                1_000_002
            )
            .is_empty());
        assert!(matches!(
            d.ad().eval_attr("MachinesDraining"),
            Value::Int(1)
        ));
    }

    #[test]
    fn limits_and_a_zero_rate_drain_nothing() {
        let slots = [pslot(1, 2, None)];
        let mut d = Defrag::new(config("DEFRAG_INTERVAL = 1\n"));
        assert!(
            d.poll(&slots, 1_000_000).is_empty(),
            "the default rate is 0"
        );
        let mut d = Defrag::new(config(
            "DEFRAG_INTERVAL = 1\nDEFRAG_DRAINING_MACHINES_PER_HOUR = 3600\n\
             DEFRAG_MAX_CONCURRENT_DRAINING = 0\n",
        ));
        assert!(d.poll(&slots, 1_000_000).is_empty());
        let mut d = Defrag::new(config(
            "DEFRAG_INTERVAL = 1\nDEFRAG_DRAINING_MACHINES_PER_HOUR = 3600\n\
             DEFRAG_REQUIREMENTS = Cpus == 0\n",
        ));
        assert!(d.poll(&slots, 1_000_000).is_empty());
    }

    #[test]
    fn a_drain_of_a_whole_machine_is_cancelled_unless_someone_else_started_it() {
        let mut d = Defrag::new(config("DEFRAG_INTERVAL = 1\n"));
        let actions = d.poll(
            &[pslot(2, 2, Some("Defrag DEFRAG@host.example"))],
            1_000_000,
        );
        assert_eq!(
            actions,
            [DefragAction::Cancel {
                machine: "host.example".into()
            }]
        );
        assert!(d
            .poll(&[pslot(2, 2, Some("by alice"))], 1_000_001)
            .is_empty());
    }

    #[test]
    fn bad_expressions_are_named() {
        let e = DefragConfig::from_config(&load("DEFRAG_WHOLE_MACHINE_EXPR = Cpus ==\n"), "h")
            .unwrap_err();
        assert!(e.to_string().contains("DEFRAG_WHOLE_MACHINE_EXPR"), "{e}");
    }
}
