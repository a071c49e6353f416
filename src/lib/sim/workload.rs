//! The workload file `condor_sim` replays: the pool's configuration, the simulation's settings,
//! the users and what happens when.
//!
//! A workload is a text file in sections, each opened by a `[name]` line:
//!
//! ```text
//! # Three users with equal demand on 28 slots.
//! [config]
//! NUM_CPUS = 28
//! PRIORITY_HALFLIFE = 3600
//!
//! [sim]
//! until = 12h
//! step = 30m
//!
//! [users]
//! alice  factor=1
//! bob    factor=4
//! carol  factor=16
//!
//! [timeline]
//! 0   submit alice 400 10m
//! 0   submit bob   400 10m cpus=1 memory=512
//! 6h  setfactor carol 4
//! ```
//!
//! - `[config]` holds HTCondor configuration lines, read by condorlite's configuration reader
//!   exactly as a configuration file is (macros, `if`, `use`, `include`): the slot layout
//!   (`NUM_CPUS`, `SLOT_TYPE_<N>`, `SLOT_TYPE_<N>_PARTITIONABLE`, ...), the negotiator and the
//!   accountant (`PRIORITY_HALFLIFE`, `DEFAULT_PRIO_FACTOR`, `GROUP_NAMES`, `GROUP_QUOTA_<g>`,
//!   `NEGOTIATOR_INTERVAL`, `PREEMPTION_REQUIREMENTS`, ...). An error in it names this file and
//!   the line.
//! - `[sim]` holds `name = value` settings: `until` (when the simulation stops; by default when
//!   every job has finished), `step` (how often the allocation is reported; by default every
//!   `NEGOTIATOR_INTERVAL`), `machines` (identical execute machines, each with the
//!   configuration's slots; default 1) and `start` (the virtual clock's time 0, in seconds since
//!   the epoch; default [`DEFAULT_START`]).
//! - `[users]` lines are `NAME [factor=F] [priority=P] [ceiling=N] [floor=N]`: what
//!   `condor_userprio -setfactor`, `-setprio`, `-setceiling` and `-setfloor` would set before the
//!   first cycle. A name without `@` gets `@` and the accounting domain (`ACCOUNTING_DOMAIN`,
//!   by default `UID_DOMAIN`), unless it is a configured accounting group; a user submitting in
//!   an accounting group is accounted as `group.user`.
//! - `[timeline]` lines are `TIME VERB ...`, applied in time order (lines of one time in file
//!   order): `submit USER COUNT DURATION [options]` queues COUNT jobs that each run DURATION
//!   once started, with the options `cpus=N`, `memory=MB`, `disk=KB`, `group=GROUP`
//!   (`accounting_group`), `prio=N` (`priority`), `request_<resource>=N` for a custom resource
//!   and `requirements="EXPR"` (added to the job's requirements); `setfactor NAME F`,
//!   `setprio NAME P`, `setceiling NAME N` and `setfloor NAME N` change the accountant's record
//!   as `condor_userprio` would.
//!
//! Times and durations are seconds, or numbers with units `s`, `m`, `h`, `d` written together
//! (`90`, `90s`, `1h30m`, `1.5d`). `#` starts a comment (in `[config]`, as HTCondor reads
//! comments). Values with blanks are written in double quotes.

use std::fmt;

/// The virtual clock's default time 0 (2023-11-14 22:13:20 UTC).
pub const DEFAULT_START: i64 = 1_700_000_000;

/// A workload that could not be read: the file, the line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct WorkloadError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, line {}: {}", self.file, self.line, self.message)
    }
}

/// The `[sim]` settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// When the simulation stops, in seconds from time 0 (`None`: when every job is done).
    pub until: Option<i64>,
    /// The reporting interval in seconds (`None`: `NEGOTIATOR_INTERVAL`).
    pub step: Option<i64>,
    /// How many identical execute machines.
    pub machines: u32,
    /// Time 0 of the virtual clock, seconds since the epoch.
    pub start: i64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            until: None,
            step: None,
            machines: 1,
            start: DEFAULT_START,
        }
    }
}

/// A `[users]` line: the accountant's record for a customer before the first cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct UserSpec {
    pub line: u32,
    /// As written (the domain is added when the pool's configuration is known).
    pub name: String,
    pub factor: Option<f64>,
    pub priority: Option<f64>,
    pub ceiling: Option<i64>,
    pub floor: Option<i64>,
}

/// A `submit` action: COUNT identical jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct Submission {
    /// The submitting user (`Owner`), without a domain.
    pub user: String,
    pub count: u32,
    /// How long each job runs once started, in seconds.
    pub duration: i64,
    /// `RequestCpus` (default 1).
    pub cpus: f64,
    /// `RequestMemory` in MB (default 128).
    pub memory: f64,
    /// `RequestDisk` in KB (default 1024).
    pub disk: f64,
    /// `accounting_group`.
    pub group: Option<String>,
    /// `JobPrio`.
    pub prio: i64,
    /// `Request<Resource>` for custom resources, in order.
    pub requests: Vec<(String, f64)>,
    /// An expression the job's `Requirements` also need.
    pub requirements: Option<String>,
}

/// What a timeline line does.
#[derive(Clone, Debug, PartialEq)]
pub enum ActionKind {
    Submit(Submission),
    /// `condor_userprio -setfactor`.
    SetFactor {
        name: String,
        factor: f64,
    },
    /// `condor_userprio -setprio`.
    SetPriority {
        name: String,
        priority: f64,
    },
    /// `condor_userprio -setceiling`.
    SetCeiling {
        name: String,
        ceiling: i64,
    },
    /// `condor_userprio -setfloor`.
    SetFloor {
        name: String,
        floor: i64,
    },
}

/// A timeline line.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    pub line: u32,
    /// Seconds from time 0.
    pub time: i64,
    pub kind: ActionKind,
}

/// A parsed workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// The file's name, as given (it names the file in messages).
    pub file: String,
    /// The file with every line outside `[config]` blanked: HTCondor configuration text whose
    /// line numbers are the file's.
    pub config_text: String,
    pub settings: Settings,
    pub users: Vec<UserSpec>,
    /// In time order; lines of one time in file order.
    pub timeline: Vec<Action>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    None,
    Config,
    Sim,
    Users,
    Timeline,
}

impl Workload {
    /// Reads a workload; `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Result<Workload, WorkloadError> {
        let mut w = Workload {
            file: file.to_owned(),
            config_text: String::with_capacity(text.len()),
            settings: Settings::default(),
            users: Vec::new(),
            timeline: Vec::new(),
        };
        let mut section = Section::None;
        let mut seen_settings: Vec<&'static str> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i as u32 + 1;
            let err = |message: String| WorkloadError {
                file: file.to_owned(),
                line,
                message,
            };
            let trimmed = raw.trim();
            if let Some(name) = section_header(trimmed) {
                section = match name.to_ascii_lowercase().as_str() {
                    "config" => Section::Config,
                    "sim" => Section::Sim,
                    "users" => Section::Users,
                    "timeline" => Section::Timeline,
                    _ => {
                        return Err(err(format!(
                            "unknown section [{name}] (expected [config], [sim], [users] or \
                             [timeline])"
                        )))
                    }
                };
                w.config_text.push('\n');
                continue;
            }
            if section == Section::Config {
                w.config_text.push_str(raw);
                w.config_text.push('\n');
                continue;
            }
            w.config_text.push('\n');
            let words = split_words(raw).map_err(&err)?;
            if words.is_empty() {
                continue;
            }
            match section {
                Section::None => {
                    return Err(err(
                        "text before the first section (expected [config], [sim], [users] or \
                         [timeline])"
                            .into(),
                    ))
                }
                Section::Config => unreachable!("handled above"),
                Section::Sim => {
                    let key = parse_setting(&mut w.settings, &words).map_err(&err)?;
                    if seen_settings.contains(&key) {
                        return Err(err(format!("{key} is set twice")));
                    }
                    seen_settings.push(key);
                }
                Section::Users => w.users.push(parse_user(&words, line).map_err(&err)?),
                Section::Timeline => w.timeline.push(parse_action(&words, line).map_err(&err)?),
            }
        }
        // Stable: lines of one time stay in file order.
        w.timeline.sort_by_key(|a| a.time);
        Ok(w)
    }
}

/// `[name]` (blanks allowed inside the brackets): the name.
fn section_header(line: &str) -> Option<&str> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    (!inner.is_empty() && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(inner)
}

/// The words of a line: blank-separated, `"..."` quoting blanks (with `\"` and `\\`), up to a
/// `#` that starts a word.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.peek() {
            None | Some('#') => return Ok(words),
            _ => {}
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            if c != '"' {
                word.push(c);
                continue;
            }
            loop {
                match chars.next() {
                    None => return Err("a quoted value is not closed".into()),
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some(e @ ('"' | '\\')) => word.push(e),
                        Some(other) => {
                            word.push('\\');
                            word.push(other);
                        }
                        None => return Err("a quoted value is not closed".into()),
                    },
                    Some(other) => word.push(other),
                }
            }
        }
        words.push(word);
    }
}

/// A time or duration: seconds, or numbers with units written together (`1h30m`, `1.5d`,
/// `90s`), rounded to whole seconds.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let bad = || {
        format!("\"{text}\" is not a time (expected seconds, or a number with a unit s, m, h or d, as in 90, 30m, 1h30m, 1.5d)")
    };
    if text.is_empty() {
        return Err(bad());
    }
    let mut total = 0.0f64;
    let mut rest = text;
    let mut parts = 0;
    while !rest.is_empty() {
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..end].parse().map_err(|_| bad())?;
        rest = &rest[end..];
        let unit = match rest.chars().next() {
            None if parts == 0 => 1.0,
            Some('s') => 1.0,
            Some('m') => 60.0,
            Some('h') => 3600.0,
            Some('d') => 86400.0,
            _ => return Err(bad()),
        };
        if !rest.is_empty() {
            rest = &rest[1..];
        }
        total += number * unit;
        parts += 1;
    }
    if !total.is_finite() || total > 1e12 {
        return Err(bad());
    }
    Ok(total.round() as i64)
}

/// `name=value` (the value may be empty only when it was quoted).
fn key_value(word: &str) -> Option<(&str, &str)> {
    let (k, v) = word.split_once('=')?;
    (!k.is_empty()).then_some((k, v))
}

fn number(what: &str, value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("{what} \"{value}\" is not a number")),
    }
}

fn integer(what: &str, value: &str) -> Result<i64, String> {
    value
        .parse::<i64>()
        .map_err(|_| format!("{what} \"{value}\" is not an integer"))
}

/// A `[sim]` line: `name = value` or `name=value`. Returns the setting's name.
fn parse_setting(s: &mut Settings, words: &[String]) -> Result<&'static str, String> {
    let joined = words.join(" ");
    let Some((key, value)) = joined.split_once('=') else {
        return Err(format!("expected name = value, not \"{joined}\""));
    };
    let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
    match key.as_str() {
        "until" => {
            s.until = Some(parse_duration(value)?);
            Ok("until")
        }
        "step" => {
            let step = parse_duration(value)?;
            if step <= 0 {
                return Err("step must be at least 1 second".into());
            }
            s.step = Some(step);
            Ok("step")
        }
        "machines" => {
            s.machines = match value.parse::<u32>() {
                Ok(n) if (1..=10_000).contains(&n) => n,
                _ => {
                    return Err(format!(
                        "machines \"{value}\" is not a number from 1 to 10000"
                    ))
                }
            };
            Ok("machines")
        }
        "start" => {
            s.start = integer("start", value)?;
            Ok("start")
        }
        _ => Err(format!(
            "unknown setting \"{key}\" (expected until, step, machines or start)"
        )),
    }
}

/// A customer name: a user, `group.user`, a group, optionally `@domain`.
fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '@'))
        && name.matches('@').count() <= 1;
    if ok {
        Ok(())
    } else {
        Err(format!("\"{name}\" is not a user or group name"))
    }
}

fn parse_user(words: &[String], line: u32) -> Result<UserSpec, String> {
    let name = &words[0];
    check_name(name)?;
    let mut u = UserSpec {
        line,
        name: name.clone(),
        factor: None,
        priority: None,
        ceiling: None,
        floor: None,
    };
    for word in &words[1..] {
        let Some((k, v)) = key_value(word) else {
            return Err(format!(
                "expected factor=F, priority=P, ceiling=N or floor=N, not \"{word}\""
            ));
        };
        match k.to_ascii_lowercase().as_str() {
            "factor" => u.factor = Some(factor(v)?),
            "priority" | "prio" => u.priority = Some(priority(v)?),
            "ceiling" => u.ceiling = Some(integer("ceiling", v)?),
            "floor" => u.floor = Some(integer("floor", v)?),
            _ => {
                return Err(format!(
                    "unknown user setting \"{k}\" (expected factor, priority, ceiling or floor)"
                ))
            }
        }
    }
    Ok(u)
}

/// A priority factor: at least 1, as `condor_userprio -setfactor` requires.
fn factor(v: &str) -> Result<f64, String> {
    let f = number("factor", v)?;
    if f < crate::accountant::MIN_PRIORITY_FACTOR {
        return Err(format!("factor {v} is below 1"));
    }
    Ok(f)
}

/// A real priority: positive.
fn priority(v: &str) -> Result<f64, String> {
    let p = number("priority", v)?;
    if p <= 0.0 {
        return Err(format!("priority {v} is not positive"));
    }
    Ok(p)
}

const VERBS: &str = "submit, setfactor, setprio, setceiling or setfloor";

fn parse_action(words: &[String], line: u32) -> Result<Action, String> {
    let time = parse_duration(&words[0])?;
    let Some(verb) = words.get(1) else {
        return Err(format!("a time without an action (expected {VERBS})"));
    };
    let args = &words[2..];
    let kind = match verb.to_ascii_lowercase().as_str() {
        "submit" => ActionKind::Submit(parse_submit(args)?),
        v @ ("setfactor" | "setprio" | "setceiling" | "setfloor") => {
            let [name, value] = args else {
                return Err(format!("expected {v} NAME VALUE"));
            };
            check_name(name)?;
            let name = name.clone();
            match v {
                "setfactor" => ActionKind::SetFactor {
                    name,
                    factor: factor(value)?,
                },
                "setprio" => ActionKind::SetPriority {
                    name,
                    priority: priority(value)?,
                },
                "setceiling" => ActionKind::SetCeiling {
                    name,
                    ceiling: integer("ceiling", value)?,
                },
                _ => ActionKind::SetFloor {
                    name,
                    floor: integer("floor", value)?,
                },
            }
        }
        other => return Err(format!("unknown action \"{other}\" (expected {VERBS})")),
    };
    Ok(Action { line, time, kind })
}

fn parse_submit(args: &[String]) -> Result<Submission, String> {
    if args.len() < 3 {
        return Err("expected submit USER COUNT DURATION [options]".into());
    }
    let user = &args[0];
    if user.contains('@') || user.contains('.') {
        return Err(format!(
            "submit takes a user name without a domain or group (\"{user}\"): the domain is \
             the pool's ACCOUNTING_DOMAIN, the group is group=GROUP"
        ));
    }
    check_name(user)?;
    let count = match args[1].parse::<u32>() {
        Ok(n) if (1..=10_000_000).contains(&n) => n,
        _ => {
            return Err(format!(
                "job count \"{}\" is not a number from 1 to 10000000",
                args[1]
            ))
        }
    };
    let duration = parse_duration(&args[2])?;
    if duration <= 0 {
        return Err("a job's duration must be at least 1 second".into());
    }
    let mut s = Submission {
        user: user.clone(),
        count,
        duration,
        cpus: 1.0,
        memory: 128.0,
        disk: 1024.0,
        group: None,
        prio: 0,
        requests: Vec::new(),
        requirements: None,
    };
    for word in &args[3..] {
        let Some((k, v)) = key_value(word) else {
            return Err(format!(
                "expected an option name=value after the duration, not \"{word}\""
            ));
        };
        let positive = |what: &str| -> Result<f64, String> {
            let x = number(what, v)?;
            if x < 0.0 {
                return Err(format!("{what} {v} is negative"));
            }
            Ok(x)
        };
        match k.to_ascii_lowercase().as_str() {
            "cpus" | "request_cpus" => {
                s.cpus = positive("cpus")?;
                if s.cpus == 0.0 {
                    return Err("cpus must be more than 0".into());
                }
            }
            "memory" | "request_memory" => s.memory = positive("memory")?,
            "disk" | "request_disk" => s.disk = positive("disk")?,
            "group" | "accounting_group" => {
                if v.is_empty()
                    || !v
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                {
                    return Err(format!("\"{v}\" is not a group name"));
                }
                s.group = Some(v.to_owned());
            }
            "prio" | "priority" => s.prio = integer("prio", v)?,
            "requirements" => {
                crate::classad::parser::parse_old_expr(v)
                    .map_err(|e| format!("requirements \"{v}\": {e}"))?;
                s.requirements = Some(v.to_owned());
            }
            other => match other.strip_prefix("request_") {
                Some(res)
                    if !res.is_empty()
                        && res.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    let amount = positive(k)?;
                    s.requests.push((res.to_owned(), amount));
                }
                _ => {
                    return Err(format!(
                        "unknown submit option \"{k}\" (expected cpus, memory, disk, group, \
                         prio, requirements or request_<resource>)"
                    ))
                }
            },
        }
    }
    Ok(s)
}
