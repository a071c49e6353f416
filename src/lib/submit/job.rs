//! Making a job ad: HTCondor's `SubmitHash::make_job_ad` and its `Set*` steps
//! (src/condor_utils/submit_utils.cpp), in the same order and with the same messages.
//!
//! A [`Builder`] makes one job. It reads submit commands through [`Builder::param`], which
//! expands each command once per queue statement when its value is the same for every job (and
//! remembers which commands differ between jobs), and reads the job ad through lookups that a
//! step trace records. The generator ([`super::generate`]) uses those traces to run, for most
//! jobs of a cluster, only the steps whose inputs differ from job to job.

use std::rc::Rc;
use std::sync::Arc;

use super::argenv::{ArgList, Env, EnvFilter};
use super::error::StackEntry;
use super::hash::{touched, Live, Predefined, Scope};
use super::jobad::{Change, JobAd};
use super::keywords::{self, Kind};
use super::parse::Statement;
use super::util::{self, universe};
use crate::classad::ad::CiStr;
use crate::classad::intern::intern;
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr, Value};
use crate::config::expand::{self, Expander};
use crate::config::{Config, Environment};

/// The configuration knobs submit reads, looked up once per submission.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub default_universe: Option<String>,
    pub default_request_memory: Option<String>,
    pub default_request_disk: Option<String>,
    pub default_request_cpus: Option<String>,
    pub default_request_gpus: Option<String>,
    pub default_lease_duration: Option<String>,
    pub default_notification: Option<String>,
    pub default_rank_vanilla: Option<String>,
    pub append_rank_vanilla: Option<String>,
    pub default_rank: Option<String>,
    pub append_rank: Option<String>,
    pub append_req_vanilla: Option<String>,
    pub append_requirements: Option<String>,
    pub nice_user_group: Option<String>,
    pub deprecation_warnings: bool,
    pub default_max_retries: i64,
    pub schedd_interval: Option<String>,
    pub default_should_transfer: Option<String>,
    pub filesystem_domain: Option<String>,
    pub uid_domain: Option<String>,
    pub insert_default_policy_exprs: bool,
    pub set_local_owner: bool,
    pub request_missing_units: Option<String>,
    pub custom_resource_requirements: bool,
    pub allow_getenv: bool,
    pub container_never_xfer_abs: bool,
    pub sign_s3_urls: bool,
    /// `SUBMIT_ATTRS`/`SUBMIT_EXPRS`/`SYSTEM_SUBMIT_ATTRS` entries that are `+Attr`: forced.
    pub forced_submit_attrs: Vec<(String, Option<String>)>,
    /// The other entries: their values go into the base ad.
    pub submit_attrs: Vec<(String, Option<String>)>,
}

impl Settings {
    pub fn from_config(cfg: &Config) -> Settings {
        let s = |name: &str| cfg.string(name).ok().flatten();
        let b = |name: &str, def: bool| cfg.bool(name).ok().flatten().unwrap_or(def);
        let mut attrs: Vec<String> = Vec::new();
        for knob in ["SUBMIT_ATTRS", "SUBMIT_EXPRS", "SYSTEM_SUBMIT_ATTRS"] {
            for a in cfg.list(knob).unwrap_or_default() {
                if !attrs.iter().any(|x| x.eq_ignore_ascii_case(&a)) {
                    attrs.push(a);
                }
            }
        }
        attrs.sort_by(|a, b| crate::classad::ad::cmp_ignore_case(a, b));
        let mut forced = Vec::new();
        let mut plain = Vec::new();
        for a in attrs {
            if let Some(name) = a.strip_prefix('+') {
                forced.push((name.to_owned(), s(name)));
            } else if a.len() > 3 && a[..3].eq_ignore_ascii_case("MY.") {
                forced.push((a[3..].to_owned(), s(&a[3..])));
            } else {
                let v = s(&a);
                plain.push((a, v));
            }
        }
        Settings {
            default_universe: s("DEFAULT_UNIVERSE"),
            default_request_memory: s("JOB_DEFAULT_REQUESTMEMORY"),
            default_request_disk: s("JOB_DEFAULT_REQUESTDISK"),
            default_request_cpus: s("JOB_DEFAULT_REQUESTCPUS"),
            default_request_gpus: s("JOB_DEFAULT_REQUESTGPUS"),
            default_lease_duration: s("JOB_DEFAULT_LEASE_DURATION"),
            default_notification: s("JOB_DEFAULT_NOTIFICATION"),
            default_rank_vanilla: s("DEFAULT_RANK_VANILLA"),
            append_rank_vanilla: s("APPEND_RANK_VANILLA"),
            default_rank: s("DEFAULT_RANK"),
            append_rank: s("APPEND_RANK"),
            append_req_vanilla: s("APPEND_REQ_VANILLA"),
            append_requirements: s("APPEND_REQUIREMENTS"),
            nice_user_group: s("NICE_USER_ACCOUNTING_GROUP_NAME"),
            deprecation_warnings: b("ENABLE_DEPRECATION_WARNINGS", false),
            default_max_retries: cfg
                .int("DEFAULT_JOB_MAX_RETRIES")
                .ok()
                .flatten()
                .unwrap_or(2),
            schedd_interval: s("SCHEDD_INTERVAL"),
            default_should_transfer: s("SUBMIT_DEFAULT_SHOULD_TRANSFER_FILES"),
            filesystem_domain: s("FILESYSTEM_DOMAIN"),
            uid_domain: s("UID_DOMAIN"),
            insert_default_policy_exprs: b("SUBMIT_INSERT_DEFAULT_POLICY_EXPRS", false),
            set_local_owner: b("SUBMIT_SHOULD_SET_LOCAL_OWNER", false),
            request_missing_units: s("SUBMIT_REQUEST_MISSING_UNITS"),
            custom_resource_requirements: b("SUBMIT_GENERATE_CUSTOM_RESOURCE_REQUIREMENTS", true),
            allow_getenv: b("SUBMIT_ALLOW_GETENV", true),
            container_never_xfer_abs: b("SUBMIT_CONTAINER_NEVER_XFER_ABSOLUTE_CMD", false),
            sign_s3_urls: b("SIGN_S3_URLS", true),
            forced_submit_attrs: forced,
            submit_attrs: plain,
        }
    }
}

/// Everything that is the same for a whole submission.
#[derive(Debug)]
pub struct Setup {
    pub settings: Settings,
    pub predefined: Predefined,
    pub env: Environment,
    /// The submitting process's working directory.
    pub cwd: String,
    pub owner: String,
    pub qdate: i64,
    /// `-spool`/`-remote`: the job's files are sent to the schedd.
    pub remote: bool,
    /// HTCondor's `init_base_ad`: the attributes every job starts from.
    pub base: ClassAd,
}

/// `SubmitHash` members that persist from job to job (and cluster to cluster).
#[derive(Clone, Debug, Default)]
pub struct HashState {
    pub universe: i64,
    pub is_docker: bool,
    pub is_container: bool,
    pub iwd: String,
    pub iwd_initialized: bool,
    /// The initial directory differs between the jobs of the current statement.
    pub iwd_variant: bool,
    pub warned_disk: bool,
    pub warned_mem: bool,
    pub warned_lease: bool,
    pub warned_notify_never: bool,
    pub warned_require_gpus: bool,
    pub has_require_res_attr: bool,
    pub submit_on_hold: bool,
}

/// A step's inputs and outputs, recorded while making one job so that later jobs can skip it.
#[derive(Clone, Debug, Default)]
pub struct StepTrace {
    /// Read a submit command whose value differs between jobs.
    pub variant_key: bool,
    /// Read the exact proc id.
    pub reads_proc: bool,
    /// Read the initial directory.
    pub reads_iwd: bool,
    /// Evaluated an expression (which may read any attribute).
    pub reads_all: bool,
    pub attrs_read: Vec<Arc<str>>,
    /// Scanned the names of the ad for this prefix.
    pub prefix_reads: Vec<&'static str>,
    pub changes: Vec<Change>,
    pub warnings: Vec<StackEntry>,
}

/// A submit command's expansion, kept for the jobs of one queue statement.
#[derive(Clone, Debug)]
struct Cached {
    /// The alternate name the command was looked up with.
    alt: Option<Box<str>>,
    value: Option<Rc<str>>,
    variant: bool,
    /// For a value that differs between jobs, its pieces, when it only substitutes plain
    /// macros (so it can be rendered without expanding).
    compiled: Option<Rc<[super::hash::Seg]>>,
}

#[derive(Clone, Debug)]
struct CacheKey(Arc<str>);

impl std::borrow::Borrow<CiStr> for CacheKey {
    fn borrow(&self) -> &CiStr {
        CiStr::new(&self.0)
    }
}

impl std::hash::Hash for CacheKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        CiStr::new(&self.0).hash(state)
    }
}

impl PartialEq for CacheKey {
    fn eq(&self, other: &CacheKey) -> bool {
        self.0.eq_ignore_ascii_case(&other.0)
    }
}

impl Eq for CacheKey {}

/// Expansions of submit commands for one queue statement, by the name asked for (also the
/// commands that were not given).
#[derive(Clone, Debug, Default)]
pub struct KeyCache {
    map: std::collections::HashMap<CacheKey, Cached, crate::classad::ad::CiHasher>,
}

/// A step gave up: the error is on the builder's stack (HTCondor's `abort_code`).
#[derive(Debug)]
pub struct Abort;

pub type R = Result<(), Abort>;

/// Makes one job ad.
pub struct Builder<'b> {
    pub setup: &'b Setup,
    pub st: &'b Statement,
    pub live: &'b Live,
    pub state: &'b mut HashState,
    cache: &'b mut KeyCache,
    pub job: JobAd,
    pub cluster: i64,
    pub proc: i64,
    /// The first job of its cluster (HTCondor's `jid.proc <= 0` tests).
    pub first_proc: bool,
    /// The ad this job is made from is a cluster ad: a job of the submission made before this
    /// one was folded into it (HTCondor's `base_job_is_cluster_ad`, which `get_cluster_ad()`
    /// tests). Only the submission's very first job has plain defaults under it.
    pub base_is_cluster_ad: bool,
    /// Errors and warnings pushed while making this job, oldest first.
    pub stack: Vec<StackEntry>,
    /// A macro function failed fatally (`EXCEPT`).
    pub except: Option<String>,
    pub trace: Option<StepTrace>,
    /// While replaying a plan: the attributes the plan expects the steps that run to write.
    pub expected_writes: Option<&'b [Arc<str>]>,
    /// A step that ran wrote something the plan did not expect.
    pub unexpected_write: bool,
}

/// C's `isspace` on a char.
fn c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// `trim_and_strip_quotes_in_place`: trimmed, and a pair of enclosing quotes removed (a lone
/// `"` becomes empty, as in the reference).
pub fn trim_strip_quotes(s: &str) -> &str {
    let t = s.trim_matches(c_space);
    match t.strip_prefix('"') {
        Some(rest) => rest
            .strip_suffix('"')
            .unwrap_or(if rest.is_empty() { rest } else { t }),
        None => t,
    }
}

impl<'b> Builder<'b> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        setup: &'b Setup,
        st: &'b Statement,
        live: &'b Live,
        state: &'b mut HashState,
        cache: &'b mut KeyCache,
        job: JobAd,
        cluster: i64,
        proc: i64,
        first_proc: bool,
    ) -> Builder<'b> {
        Builder {
            setup,
            st,
            live,
            state,
            cache,
            job,
            cluster,
            proc,
            first_proc,
            base_is_cluster_ad: false,
            stack: Vec::new(),
            except: None,
            trace: None,
            expected_writes: None,
            unexpected_write: false,
        }
    }

    // ----------------------------------------------------------------------------------------
    // Errors and warnings

    /// `push_error`: records the message and gives up the job.
    pub fn error(&mut self, message: impl Into<String>) -> Abort {
        self.stack.push(StackEntry::new(-1, message));
        Abort
    }

    /// `push_warning`.
    pub fn warning(&mut self, message: impl Into<String>) {
        let e = StackEntry::new(0, message);
        if let Some(t) = &mut self.trace {
            t.warnings.push(e.clone());
        }
        self.stack.push(e);
    }

    // ----------------------------------------------------------------------------------------
    // Submit commands

    fn scope(&self) -> Scope<'_> {
        let cwd = self
            .state
            .iwd_initialized
            .then_some(self.state.iwd.as_str())
            .filter(|s| !s.is_empty());
        Scope::new(
            &self.st.hash,
            &self.setup.predefined,
            self.live,
            &self.setup.env,
            cwd,
        )
    }

    /// `submit_param(name, alt)`: the expanded value of a command, `None` when it is not
    /// given or expands to nothing.
    pub fn param2(&mut self, name: &str, alt: Option<&str>) -> Result<Option<Rc<str>>, Abort> {
        self.param_ex(name, alt).map(|(v, _)| v)
    }

    /// As [`Builder::param2`], also telling whether the value differs between jobs.
    pub fn param_ex(
        &mut self,
        name: &str,
        alt: Option<&str>,
    ) -> Result<(Option<Rc<str>>, bool), Abort> {
        if let Some(c) = self.cache.map.get(CiStr::new(name)) {
            if c.alt.as_deref() == alt {
                if !c.variant {
                    return Ok((c.value.clone(), false));
                }
                if let Some(segs) = c.compiled.clone() {
                    let mut out = String::new();
                    self.scope().render(&segs, &mut out);
                    if !out.contains('$') {
                        if let Some(t) = &mut self.trace {
                            t.variant_key = true;
                        }
                        let value = (!out.is_empty()).then(|| Rc::from(out.as_str()));
                        return Ok((value, true));
                    }
                }
            }
        }
        let (result, flags, compiled) = {
            let scope = self.scope();
            let _ = scope.take_touched();
            let (found, raw) = match scope.lookup_raw(name) {
                Some(r) => (name, Some(r)),
                None => match alt {
                    Some(a) => (a, scope.lookup_raw(a)),
                    None => (name, None),
                },
            };
            let result = match raw {
                None => Ok(None),
                Some(raw) if raw.contains('$') => Expander::new(&scope).expand(raw).map(Some),
                Some(raw) => Ok(Some(raw.to_owned())),
            };
            let flags = scope.take_touched();
            let compiled = match raw {
                // The pieces of the command itself, not of the value it resolved to: when the
                // command is a loop variable, its value is this job's row.
                Some(_) if flags & touched::LIVE != 0 && flags & !touched::LIVE == 0 => {
                    scope.compile_macro(found).map(Rc::from)
                }
                _ => None,
            };
            (result, flags, compiled)
        };
        let value = match result {
            Ok(v) => v,
            Err(e) => {
                self.except = Some(e.0);
                return Err(Abort);
            }
        };
        let variant = flags & (touched::LIVE | touched::VOLATILE) != 0
            || (flags & touched::IWD != 0 && self.state.iwd_variant);
        if let Some(t) = &mut self.trace {
            t.variant_key |= variant;
            if flags & touched::IWD != 0 {
                t.reads_iwd = true;
            }
        }
        let value: Option<Rc<str>> = value
            .filter(|v| !v.is_empty())
            .map(|v| Rc::from(v.as_str()));
        match self.cache.map.get_mut(CiStr::new(name)) {
            // A value that differs between jobs is not kept; the entry only says so.
            Some(c) if c.variant && variant && c.alt.as_deref() == alt => {}
            Some(c) => {
                c.alt = alt.map(Box::from);
                c.value = value.clone();
                c.variant = variant;
                c.compiled = compiled;
            }
            None => {
                self.cache.map.insert(
                    CacheKey(intern(name)),
                    Cached {
                        alt: alt.map(Box::from),
                        value: value.clone(),
                        variant,
                        compiled,
                    },
                );
            }
        }
        Ok((value, variant))
    }

    pub fn param(&mut self, name: &str) -> Result<Option<Rc<str>>, Abort> {
        self.param2(name, None)
    }

    /// `submit_param_bool`.
    pub fn param_bool(
        &mut self,
        name: &str,
        alt: Option<&str>,
        def: bool,
    ) -> Result<(bool, bool), Abort> {
        match self.param2(name, alt)? {
            None => Ok((def, false)),
            Some(v) => match expand::bool_value(&v) {
                Some(b) => Ok((b, true)),
                None => {
                    Err(self.error(format!("{name}={v} is invalid, must eval to a boolean.\n")))
                }
            },
        }
    }

    /// `submit_param_long_exists`: `Ok(None)` when not given.
    pub fn param_long(
        &mut self,
        name: &str,
        alt: Option<&str>,
        int_range: bool,
    ) -> Result<Option<i64>, Abort> {
        let Some(v) = self.param2(name, alt)? else {
            return Ok(None);
        };
        match expand::integer_value(&v) {
            Some(n) if !int_range || (i64::from(i32::MIN)..i64::from(i32::MAX)).contains(&n) => {
                Ok(Some(n))
            }
            _ => Err(self.error(format!("{name}={v} is invalid, must eval to an integer.\n"))),
        }
    }

    /// The raw value of a command as written (`lookup_macro`), unexpanded.
    pub fn raw_param(&self, name: &str) -> Option<String> {
        self.scope().lookup_raw(name).map(str::to_owned)
    }

    /// Names of the submit table and of the predefined macros, sorted case-insensitively,
    /// a definition hiding the predefined macro of the same name (HTCondor's hash iteration,
    /// which walks the defaults table too).
    pub fn table_names(&self) -> Vec<Arc<str>> {
        let hash = &self.st.hash;
        let mut names: Vec<Arc<str>> = hash
            .sorted()
            .into_iter()
            .map(|i| hash.entry(i).name.clone())
            .collect();
        for p in super::hash::predefined_names() {
            if hash.find(p).is_none() {
                names.push(intern(p));
            }
        }
        names.sort_by(|a, b| crate::classad::ad::cmp_ignore_case(a, b));
        names
    }

    /// Expands a raw text with the submit table (`expand_macro`).
    pub fn expand_text(&mut self, raw: &str) -> Result<(String, bool), Abort> {
        let (result, flags) = {
            let scope = self.scope();
            let _ = scope.take_touched();
            (Expander::new(&scope).expand(raw), scope.take_touched())
        };
        let variant = flags & (touched::LIVE | touched::VOLATILE) != 0
            || (flags & touched::IWD != 0 && self.state.iwd_variant);
        if let Some(t) = &mut self.trace {
            t.variant_key |= variant;
        }
        match result {
            Ok(v) => Ok((v, variant)),
            Err(e) => {
                self.except = Some(e.0);
                Err(Abort)
            }
        }
    }

    // ----------------------------------------------------------------------------------------
    // Facts the steps share

    /// The job's initial directory (after `SetIWD`).
    pub fn iwd(&mut self) -> String {
        if let Some(t) = &mut self.trace {
            t.reads_iwd = true;
        }
        self.state.iwd.clone()
    }

    /// The exact proc id.
    pub fn proc_id(&mut self) -> i64 {
        if let Some(t) = &mut self.trace {
            t.reads_proc = true;
        }
        self.proc
    }

    /// `full_path(name, use_iwd)`: `name` made absolute against the initial directory (or the
    /// submit directory), with runs of `/` collapsed.
    pub fn full_path(&mut self, name: &str, use_iwd: bool) -> String {
        let base = if use_iwd {
            self.iwd()
        } else {
            self.setup.cwd.clone()
        };
        let joined = if name.starts_with('/') {
            format!("/{name}")
        } else {
            format!("/{base}/{name}")
        };
        util::compress_path(&joined)
    }

    // ----------------------------------------------------------------------------------------
    // The job ad

    fn note_read(&mut self, name: &str) {
        if let Some(t) = &mut self.trace {
            t.attrs_read.push(intern(name));
        }
    }

    /// Whether the job has the attribute (`job->Lookup`).
    pub fn has(&mut self, name: &str) -> bool {
        self.note_read(name);
        self.job.lookup(name).is_some()
    }

    pub fn lookup_expr(&mut self, name: &str) -> Option<Expr> {
        self.note_read(name);
        self.job.lookup(name).cloned()
    }

    /// Evaluates an attribute of the job.
    pub fn eval(&mut self, name: &str) -> Value {
        self.note_read(name);
        let Some(e) = self.job.lookup(name) else {
            return Value::Undefined;
        };
        if let Expr::Lit(v) = e {
            return v.clone();
        }
        if let Some(t) = &mut self.trace {
            t.reads_all = true;
        }
        let flat = self.job.flat();
        flat.eval_attr(name)
    }

    /// `LookupBool`: a boolean (or number) value.
    pub fn lookup_bool(&mut self, name: &str) -> Option<bool> {
        self.eval(name).as_bool_equiv()
    }

    /// `LookupInteger`: a number (reals truncate, booleans are 0 or 1).
    pub fn lookup_int(&mut self, name: &str) -> Option<i64> {
        match self.eval(name) {
            Value::Int(i) => Some(i),
            Value::Real(r) => Some(r as i64),
            Value::Bool(b) => Some(i64::from(b)),
            _ => None,
        }
    }

    /// `LookupString`.
    pub fn lookup_string(&mut self, name: &str) -> Option<String> {
        match self.eval(name) {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        }
    }

    /// Names of the job's attributes that start with `prefix` (case-insensitive).
    pub fn names_with_prefix(&mut self, prefix: &'static str) -> Vec<Arc<str>> {
        if let Some(t) = &mut self.trace {
            t.prefix_reads.push(prefix);
        }
        self.job
            .names()
            .into_iter()
            .filter(|n| n.len() >= prefix.len() && n[..prefix.len()].eq_ignore_ascii_case(prefix))
            .collect()
    }

    fn record(&mut self, change: Change) {
        if let Some(t) = &mut self.trace {
            t.changes.push(change);
        } else if let Some(expected) = self.expected_writes {
            let n = match &change {
                Change::Set(n, _) | Change::Pruned(n) => n,
            };
            if !expected
                .iter()
                .any(|e| e.len() == n.len() && e.eq_ignore_ascii_case(n))
            {
                self.unexpected_write = true;
            }
        }
    }

    fn assign_lit(&mut self, name: &str, v: Value) {
        let c = self.job.assign(name, Expr::Lit(v), true);
        self.record(c);
    }

    pub fn assign_int(&mut self, name: &str, v: i64) {
        self.assign_lit(name, Value::Int(v));
    }

    pub fn assign_bool(&mut self, name: &str, v: bool) {
        self.assign_lit(name, Value::Bool(v));
    }

    pub fn assign_real(&mut self, name: &str, v: f64) {
        self.assign_lit(name, Value::Real(v));
    }

    pub fn assign_str(&mut self, name: &str, v: &str) {
        self.assign_lit(name, Value::str(v));
    }

    /// `AssignJobExpr`: parses `text` and stores it.
    pub fn assign_expr(&mut self, name: &str, text: &str) -> R {
        match parse_old_expr(text) {
            Ok(e) => {
                self.assign_parsed(name, e);
                Ok(())
            }
            Err(_) => Err(self.error(format!(
                "Parse error in expression: \n\t{name} = {text}\n\t"
            ))),
        }
    }

    pub fn assign_parsed(&mut self, name: &str, e: Expr) {
        let literal = matches!(e, Expr::Lit(_));
        let c = self.job.assign(name, e, literal);
        self.record(c);
    }

    pub fn delete(&mut self, name: &str) {
        self.job.delete_own(name);
        self.record(Change::Pruned(intern(name)));
    }

    // ----------------------------------------------------------------------------------------
    // Steps

    /// `skip_filechecks`: validated here; condorlite never opens job files at submit time.
    pub fn set_file_checks(&mut self) -> R {
        if let Some(v) = self.param("skip_filechecks")? {
            if !v.eq_ignore_ascii_case("warn") && expand::bool_value(&v).is_none() {
                return Err(self.error(format!(
                    "SUBMIT_CMD_skip_filechecks={v} is invalid, must be 'warn' or a boolean\n"
                )));
            }
        }
        Ok(())
    }

    /// `SetUniverse`: once per cluster.
    pub fn set_universe(&mut self) -> R {
        if !self.first_proc {
            return Ok(());
        }
        let univ = match self.param2("universe", Some("JobUniverse"))? {
            Some(u) => Some(u.to_string()),
            None => self.setup.settings.default_universe.clone(),
        };
        self.state.is_docker = false;
        self.state.is_container = false;
        let mut u;
        match &univ {
            Some(name) => {
                u = util::universe_number(name);
                if u == 0 {
                    if name.eq_ignore_ascii_case("docker") {
                        u = universe::VANILLA;
                        self.state.is_docker = true;
                    }
                    if name.eq_ignore_ascii_case("container") {
                        u = universe::VANILLA;
                        self.state.is_container = true;
                    }
                }
            }
            None => u = universe::VANILLA,
        }
        self.state.universe = u;
        if u == universe::PARALLEL {
            self.live.node.set("#pArAlLeLnOdE#");
        }
        if u == universe::VANILLA || u == universe::LOCAL {
            let container = self.param2("container_image", Some("ContainerImage"))?;
            if self.state.is_docker {
                if container.is_some() {
                    return Err(
                        self.error("docker universe does not allow use of container_image.\n")
                    );
                }
            } else {
                let docker = self.param2("docker_image", Some("DockerImage"))?;
                if docker.is_some() && container.is_some() {
                    return Err(
                        self.error("cannot declare both docker_image and container_image\n")
                    );
                } else if docker.is_some() || container.is_some() {
                    self.state.is_container = true;
                    if docker.is_some() {
                        self.assign_bool("WantDockerImage", true);
                    }
                }
            }
        }
        self.assign_int("JobUniverse", u);
        for (key, attr) in [
            ("Remote_universe", "Remote_JobUniverse"),
            ("Remote_Remote_universe", "Remote_Remote_JobUniverse"),
        ] {
            if let Some(r) = self.param2(key, Some(attr))? {
                let n = util::universe_number(&r);
                if n == 0 {
                    let what = if key.starts_with("Remote_Remote") {
                        "Remote_Remote_Universe"
                    } else {
                        "Remote_Universe"
                    };
                    return Err(self.error(format!("Unknown {what} of '{r}' specified\n")));
                }
                self.assign_int(attr, n);
            }
        }
        if self.param_bool("WantParallelScheduling", None, false)?.0 {
            self.assign_bool("WantParallelScheduling", true);
        }
        match u {
            universe::VANILLA | universe::LOCAL => {
                if self.state.is_docker {
                    self.assign_bool("WantDocker", true);
                }
                if self.state.is_container {
                    self.assign_bool("WantContainer", true);
                }
                Ok(())
            }
            universe::SCHEDULER | universe::PARALLEL | universe::MPI => Ok(()),
            universe::GRID | universe::JAVA | universe::VM => Err(self.error(format!(
                "'{}' is not a supported universe.\n",
                util::universe_name_ucfirst(u)
            ))),
            _ => match &univ {
                Some(name) if u == 0 => {
                    Err(self.error(format!("I don't know about the '{name}' universe.\n")))
                }
                _ => Err(self.error(format!(
                    "'{}' is not a supported universe.\n",
                    util::universe_name_ucfirst(u)
                ))),
            },
        }
    }

    /// `ComputeIWD` and `SetIWD`.
    pub fn set_iwd(&mut self) -> R {
        let (mut short, mut variant) = self.param_ex("initialdir", Some("Iwd"))?;
        if short.is_none() {
            (short, variant) = self.param_ex("initial_dir", Some("job_iwd"))?;
        }
        let mut iwd = match &short {
            Some(s) if s.starts_with('/') => s.to_string(),
            Some(s) => {
                let cwd = &self.setup.cwd;
                if cwd.ends_with('/') {
                    format!("{cwd}{s}")
                } else {
                    format!("{cwd}/{s}")
                }
            }
            None => self.setup.cwd.clone(),
        };
        iwd = util::compress_path(&iwd);
        if !self.state.iwd_initialized || iwd != self.state.iwd {
            let path = util::compress_path(&format!("/{iwd}"));
            let ok = std::fs::metadata(&path).is_ok_and(|m| m.is_dir());
            if !ok {
                return Err(self.error(format!("No such directory: {path}\n")));
            }
        }
        self.state.iwd_variant = variant;
        self.state.iwd = iwd.clone();
        self.state.iwd_initialized = true;
        self.assign_str("Iwd", &iwd);
        if let Some(f) = self.param("SUBMIT_FILE")? {
            self.assign_str("JobSubmitFile", &f);
        }
        Ok(())
    }

    /// `SetExecutable`.
    pub fn set_executable(&mut self) -> R {
        let mut transfer_it = true;
        let mut ignore_it = false;
        let (is_docker, is_container) = (self.state.is_docker, self.state.is_container);
        if is_docker {
            match self.param2("docker_image", Some("DockerImage"))? {
                Some(img) => {
                    let image = trim_strip_quotes(&img);
                    if image.is_empty() {
                        return Err(self.error(format!("'{img}' is not a valid docker_image\n")));
                    }
                    let image = image.to_owned();
                    self.assign_str("DockerImage", &image);
                }
                None => {
                    if !self.has("DockerImage") {
                        return Err(self.error("docker jobs require a docker_image\n"));
                    }
                }
            }
        }
        if is_container {
            if let Some(img) = self.param2("docker_image", Some("DockerImage"))? {
                let image = trim_strip_quotes(&img);
                if image.is_empty() {
                    return Err(self.error(format!(
                        "'{img}' is not a valid docker_image for container universe\n"
                    )));
                }
                let image = image.to_owned();
                self.assign_str("DockerImage", &image);
            }
            match self.param2("container_image", Some("ContainerImage"))? {
                Some(img) => {
                    let image = trim_strip_quotes(&img).to_owned();
                    let invalid = ["instance://", "library://", "shub://"]
                        .iter()
                        .any(|p| image.starts_with(p));
                    if image.is_empty() || invalid {
                        return Err(self.error(format!("'{img}' is not a valid container image\n")));
                    }
                    self.assign_str("ContainerImage", &image);
                    match image_type(&image) {
                        ImageType::Docker => self.assign_bool("WantDockerImage", true),
                        ImageType::Sif => self.assign_bool("WantSIF", true),
                        ImageType::Sandbox => self.assign_bool("WantSandboxImage", true),
                    }
                }
                None => {
                    if !self.has("ContainerImage") && !self.has("DockerImage") {
                        return Err(self
                            .error("container jobs require a container_image or docker_image\n"));
                    }
                }
            }
        }
        let ename = self.param2("executable", Some("Cmd"))?;
        if ename.is_none() {
            if self.has("Cmd") {
                return Ok(());
            }
            if is_docker || is_container {
                ignore_it = true;
            } else {
                return Err(self.error("No 'executable' parameter was provided\n"));
            }
        }
        match self.param2("transfer_executable", Some("TransferExecutable"))? {
            Some(v) => {
                if v.starts_with(['F', 'f']) {
                    self.assign_bool("TransferExecutable", false);
                    transfer_it = false;
                }
            }
            None => {
                if self.setup.settings.container_never_xfer_abs
                    && (is_docker || is_container)
                    && ename.as_deref().is_some_and(|e| e.starts_with('/'))
                {
                    self.assign_bool("TransferExecutable", false);
                    transfer_it = false;
                    ignore_it = true;
                }
            }
        }
        if ignore_it && transfer_it {
            self.assign_bool("TransferExecutable", false);
            transfer_it = false;
        }
        let name = ename.as_deref().unwrap_or("");
        let full = if transfer_it {
            self.full_path(name, false)
        } else {
            name.to_owned()
        };
        self.assign_str("Cmd", &full);
        if transfer_it && !name.contains("$$") {
            // condor_submit's check of the executable reads `copy_to_spool` (whether to send
            // it to the spool; the schedd here reads it where it is), so the command is used.
            self.param2("copy_to_spool", Some("CopyToSpool"))?;
        }
        Ok(())
    }

    /// `SetArguments`.
    pub fn set_arguments(&mut self) -> R {
        let args1 = self.param2("arguments", Some("Args"))?;
        let args2 = self.param("arguments2")?;
        let allow_v1 = self.param_bool("allow_arguments_v1", None, false)?.0;
        if args1.is_some() && args2.is_some() && !allow_v1 {
            return Err(self.error(
                "If you wish to specify both 'arguments' and\n'arguments2' for maximal compatibility with different\nversions of Condor, then you must also specify\nallow_arguments_v1=true.\n",
            ));
        }
        let mut list = ArgList::default();
        let result = if let Some(a2) = &args2 {
            list.append_v2_quoted(a2)
        } else if let Some(a1) = &args1 {
            list.append_v1_wacked_or_v2_quoted(a1)
        } else if self.has("Args") || self.has("Arguments") {
            return Ok(());
        } else {
            Ok(())
        };
        if let Err(mut msg) = result {
            if msg.is_empty() {
                msg = "ERROR in arguments.".into();
            }
            let given = args2.as_deref().or(args1.as_deref()).unwrap_or("");
            return Err(self.error(format!(
                "{msg}\nThe full arguments you specified were: {given}\n"
            )));
        }
        if list.input_was_v1 {
            match list.v1_raw() {
                Ok(v) => self.assign_str("Args", &v),
                Err(msg) => return Err(self.error(format!("failed to insert arguments: {msg}\n"))),
            }
        } else {
            let v = list.v2_raw();
            self.assign_str("Arguments", &v);
        }
        Ok(())
    }

    /// `SetParallelParams`.
    pub fn set_parallel_params(&mut self) -> R {
        let want_parallel = self.lookup_bool("WantParallelScheduling").unwrap_or(false);
        let u = self.state.universe;
        if u == universe::MPI || u == universe::PARALLEL || want_parallel {
            let count = match self.param2("machine_count", Some("MachineCount"))? {
                Some(c) => Some(c),
                None => self.param2("node_count", Some("NodeCount"))?,
            };
            match count {
                Some(c) => {
                    let n = util::atoi(&c);
                    self.assign_int("MinHosts", n);
                    self.assign_int("MaxHosts", n);
                }
                None => {
                    if !self.has("MaxHosts") {
                        return Err(self.error("No machine_count specified!\n"));
                    }
                }
            }
            self.assign_int("RequestCpus", 1);
        }
        if u == universe::PARALLEL {
            self.assign_bool("WantIOProxy", true);
            self.assign_bool("JobRequiresSandbox", true);
        }
        Ok(())
    }

    /// `SetEnvironment`.
    pub fn set_environment(&mut self) -> R {
        let env1 = self.param2("environment", Some("env"))?;
        let env2 = self.param("environment2")?;
        let allow_v1 = self.param_bool("allow_environment_v1", None, false)?.0;
        let mut prefer_v1 = false;
        if env1.is_some() && env2.is_none() {
            if let Some(e) = self.param("env")? {
                prefer_v1 = !super::argenv::is_v2_quoted(&e);
            }
        }
        if env1.is_some() && env2.is_some() && !allow_v1 {
            return Err(self.error(
                "If you wish to specify both 'environment' and\n'environment2' for maximal compatibility with different\nversions of Condor, then you must also specify\nallow_environment_v1=true.\n",
            ));
        }
        let mut env = Env::default();
        if self.base_is_cluster_ad {
            // A job after the submission's first starts from the environment of the cluster
            // ad its ad is made from (HTCondor's `get_cluster_ad()`), or keeps it as it is
            // when no environment is given.
            if env1.is_none() && env2.is_none() {
                return Ok(());
            }
            let v2 = self.lookup_string("Environment");
            let v1 = self.lookup_string("Env");
            let delim = self.lookup_string("EnvDelim");
            // HTCondor overwrites this merge's success flag with the next merge's, so a
            // cluster environment that does not parse is not an error (what it read stays).
            let _ = env.merge_from_ad(v2.as_deref(), v1.as_deref(), delim.as_deref());
        }
        let merged = if let Some(e2) = &env2 {
            env.merge_v2_quoted(e2)
        } else if let Some(e1) = &env1 {
            env.merge_v1_raw_or_v2_quoted(e1)
        } else {
            Ok(())
        };
        if let Err(msg) = merged {
            let given = env2.as_deref().or(env1.as_deref()).unwrap_or("");
            return Err(self.error(format!(
                "{msg}\nThe environment you specified was: '{given}'\n"
            )));
        }
        if let Some(list) = self.param2("getenv", Some("get_env"))? {
            let v1_only = env1.is_some() && env2.is_none();
            match expand::bool_value(&list) {
                Some(true) => {
                    if !self.setup.settings.allow_getenv {
                        return Err(self.error("\ngetenv = true command not allowed because administrator has set SUBMIT_ALLOW_GETENV = false\n"));
                    }
                    let mut filter = EnvFilter::default();
                    filter.v1_only = v1_only;
                    import_env(&mut env, &self.setup.env, &filter);
                }
                Some(false) => {}
                None => {
                    let mut filter = EnvFilter::default();
                    filter.v1_only = v1_only;
                    filter.add_list(&list);
                    import_env(&mut env, &self.setup.env, &filter);
                }
            }
        }
        let has_env1 = self.has("Env");
        let has_env2 = self.has("Environment");
        let mut insert_v1 = prefer_v1;
        let mut insert_v2 = !insert_v1;
        if env1.is_none() && env2.is_none() && env.is_empty() && (has_env1 || has_env2) {
            insert_v1 = false;
            insert_v2 = false;
        }
        if insert_v1 && has_env2 {
            insert_v2 = true;
        }
        if insert_v2 && has_env1 {
            insert_v1 = true;
        }
        if insert_v1 {
            match env.v1_raw() {
                Ok(v) => {
                    self.assign_str("Env", &v);
                    self.assign_str("EnvDelim", ";");
                }
                Err(msg) => {
                    return Err(
                        self.error(format!("failed to insert environment into job ad: {msg}\n"))
                    )
                }
            }
        }
        if insert_v2 {
            let v = env.v2_raw();
            self.assign_str("Environment", &v);
        }
        Ok(())
    }

    /// `SetJobStatus`.
    pub fn set_job_status(&mut self) -> R {
        let hold = self.param_bool("hold", None, false)?.0;
        if hold {
            if self.setup.remote {
                return Err(self.error("Cannot set hold to 'true' when using -remote or -spool\n"));
            }
            self.assign_int("JobStatus", 5);
            self.assign_int("HoldReasonCode", 15);
            self.state.submit_on_hold = true;
            self.assign_str("HoldReason", "submitted on hold at user's request");
        } else if self.setup.remote {
            self.assign_int("JobStatus", 5);
            self.assign_int("HoldReasonCode", 16);
            self.state.submit_on_hold = true;
            self.assign_str("HoldReason", "Spooling input data files");
        } else {
            self.assign_int("JobStatus", 1);
            self.state.submit_on_hold = false;
        }
        let qdate = self.setup.qdate;
        self.assign_int("EnteredCurrentStatus", qdate);
        Ok(())
    }

    /// `SetTDP`: the tool daemon.
    pub fn set_tdp(&mut self) -> R {
        let Some(cmd) = self.param2("tool_daemon_cmd", Some("ToolDaemonCmd"))? else {
            return Ok(());
        };
        let input = self.param2("tool_daemon_input", Some("ToolDaemonInput"))?;
        let mut args1 = self.param("tool_daemon_args")?;
        let args1_ext = self.param2("tool_daemon_arguments", Some("ToolDaemonArgs"))?;
        let args2 = self.param("tool_daemon_arguments2")?;
        let allow_v1 = self.param_bool("allow_arguments_v1", None, false)?.0;
        let error = self.param2("tool_daemon_error", Some("ToolDaemonError"))?;
        let output = self.param2("tool_daemon_output", Some("ToolDaemonOutput"))?;
        let (suspend, suspend_given) =
            self.param_bool("suspend_job_at_exec", Some("SuspendJobAtExec"), false)?;
        self.assign_str("ToolDaemonCmd", &cmd);
        if let Some(v) = input {
            self.assign_str("ToolDaemonInput", &v);
        }
        if let Some(v) = output {
            self.assign_str("ToolDaemonOutput", &v);
        }
        if let Some(v) = error {
            self.assign_str("ToolDaemonError", &v);
        }
        if suspend_given {
            self.assign_bool("SuspendJobAtExec", suspend);
        }
        if args1_ext.is_some() && args1.is_some() {
            return Err(self.error("you specified both tdp_daemon_args and tdp_daemon_arguments\n"));
        }
        if args1_ext.is_some() {
            args1 = args1_ext;
        }
        if args2.is_some() && args1.is_some() && !allow_v1 {
            return Err(self.error("If you wish to specify both 'tool_daemon_arguments' and\n'tool_daemon_arguments2' for maximal compatibility with different\nversions of Condor, then you must also specify\nallow_arguments_v1=true.\n"));
        }
        let mut list = ArgList::default();
        let result = if let Some(a2) = &args2 {
            list.append_v2_quoted(a2)
        } else if let Some(a1) = &args1 {
            list.append_v1_wacked_or_v2_quoted(a1)
        } else if self.has("ToolDaemonArgs") || self.has("ToolDaemonArguments") {
            return Ok(());
        } else {
            Ok(())
        };
        if let Err(msg) = result {
            let given = args2.as_deref().or(args1.as_deref()).unwrap_or("");
            return Err(self.error(format!(
                "failed to parse tool daemon arguments: {msg}\nThe arguments you specified were: {given}\n"
            )));
        }
        if list.input_was_v1 {
            match list.v1_raw() {
                Ok(v) if !v.is_empty() => self.assign_str("ToolDaemonArgs", &v),
                Ok(_) => {}
                Err(msg) => {
                    return Err(
                        self.error(format!("failed to insert tool daemon arguments: {msg}\n"))
                    )
                }
            }
        } else if !list.args.is_empty() {
            let v = list.v2_raw();
            self.assign_str("ToolDaemonArguments", &v);
        }
        Ok(())
    }

    /// `SetGSICredentials`: the proxy file name and scitokens. condorlite does not read X.509
    /// proxies, so their expiration and identity attributes are not set.
    pub fn set_gsi_credentials(&mut self) -> R {
        let proxy = self.param("x509userproxy")?;
        let use_proxy = self.param_bool("use_x509userproxy", None, false)?.0;
        let proxy = match proxy {
            Some(p) => Some(p.to_string()),
            None if use_proxy => match self.setup.env.get("X509_USER_PROXY") {
                Some(p) if !p.is_empty() => Some(p.to_owned()),
                _ => return Err(self.error(
                    "Can't determine proxy filename\nX509 user proxy is required for this job.\n",
                )),
            },
            None => None,
        };
        if let Some(p) = proxy {
            let full = self.full_path(&p, true);
            self.assign_str("x509userproxy", &full);
        }
        if let Some(v) = self.param2(
            "delegate_job_gsi_credentials_lifetime",
            Some("DelegateJobGSICredentialsLifetime"),
        )? {
            match v.trim().parse::<i64>() {
                Ok(n) if !v.contains(char::is_whitespace) => {
                    self.assign_int("DelegateJobGSICredentialsLifetime", n)
                }
                _ => {
                    return Err(self.error(format!(
                        "invalid integer setting delegate_job_gsi_credentials_lifetime = {v}\n"
                    )))
                }
            }
        }
        let use_cmd = self.param2("use_scitokens", Some("use_scitoken"))?;
        let file = self.param2("scitokens_file", Some("ScitokensFile"))?;
        let mut use_scitokens = file.is_some();
        if let Some(cmd) = &use_cmd {
            if cmd.eq_ignore_ascii_case("auto") {
                use_scitokens = file.is_some()
                    || self
                        .setup
                        .env
                        .get("BEARER_TOKEN_FILE")
                        .is_some_and(|v| !v.is_empty());
            } else {
                match expand::bool_value(cmd) {
                    Some(b) => use_scitokens = b,
                    None => {
                        return Err(self
                            .error("use_scitokens error. Value should be true, false, or auto.\n"))
                    }
                }
            }
        }
        if use_scitokens {
            let token = match &file {
                Some(f) => Some(f.to_string()),
                None => self.setup.env.get("BEARER_TOKEN_FILE").map(str::to_owned),
            };
            let Some(token) = token else {
                return Err(self.error("No Scitokens filename specified. Expected either scitokens_file command or the BEARER_TOKEN_FILE environment variable to be set.\n"));
            };
            let full = self.full_path(&token, true);
            self.assign_str("ScitokensFile", &full);
        }
        Ok(())
    }

    /// `SetNotification`.
    pub fn set_notification(&mut self) -> R {
        let how = match self.param2("notification", Some("JobNotification"))? {
            Some(h) => Some(h.to_string()),
            None => self.setup.settings.default_notification.clone(),
        };
        let n = match how.as_deref() {
            None => 0,
            Some(h) if h.eq_ignore_ascii_case("NEVER") => 0,
            Some(h) if h.eq_ignore_ascii_case("COMPLETE") => 2,
            Some(h) if h.eq_ignore_ascii_case("ALWAYS") => 1,
            Some(h) if h.eq_ignore_ascii_case("ERROR") => 3,
            Some(_) => {
                return Err(
                    self.error("Notification must be 'Never', 'Always', 'Complete', or 'Error'\n")
                )
            }
        };
        self.assign_int("JobNotification", n);
        Ok(())
    }

    /// `SetRank`.
    pub fn set_rank(&mut self) -> R {
        let orig = self.param2("rank", Some("preferences"))?;
        let st = &self.setup.settings;
        let mut default_rank = None;
        let mut append_rank = None;
        if self.state.universe == universe::VANILLA {
            default_rank = st.default_rank_vanilla.clone();
            append_rank = st.append_rank_vanilla.clone();
        }
        if default_rank.is_none() {
            default_rank = st.default_rank.clone();
        }
        if append_rank.is_none() {
            append_rank = st.append_rank.clone();
        }
        let mut rank: Option<String> = orig.map(|r| r.to_string()).or(default_rank);
        if let Some(app) = append_rank {
            rank = Some(match rank {
                Some(r) => format!("({r}) + ({app})"),
                None => app,
            });
        }
        match rank {
            Some(r) => self.assign_expr("Rank", &r)?,
            None => self.assign_real("Rank", 0.0),
        }
        Ok(())
    }

    /// `SetPeriodicExpressions`.
    pub fn set_periodic_expressions(&mut self) -> R {
        let defaults = self.setup.settings.insert_default_policy_exprs;
        for (key, attr, default) in [
            ("periodic_hold", "PeriodicHold", true),
            ("periodic_hold_reason", "PeriodicHoldReason", false),
            ("periodic_hold_subcode", "PeriodicHoldSubCode", false),
            ("periodic_release", "PeriodicRelease", true),
            ("periodic_remove", "PeriodicRemove", true),
            ("periodic_vacate", "PeriodicVacate", true),
            ("on_exit_hold_reason", "OnExitHoldReason", false),
            ("on_exit_hold_subcode", "OnExitHoldSubCode", false),
        ] {
            match self.param2(key, Some(attr))? {
                Some(v) => self.assign_expr(attr, &v)?,
                None => {
                    if default && defaults && !self.has(attr) {
                        self.assign_bool(attr, false);
                    }
                }
            }
        }
        Ok(())
    }

    /// `SetLeaveInQueue`.
    pub fn set_leave_in_queue(&mut self) -> R {
        match self.param2("leave_in_queue", Some("LeaveJobInQueue"))? {
            Some(v) => self.assign_expr("LeaveJobInQueue", &v)?,
            None => {
                if !self.has("LeaveJobInQueue") {
                    if self.setup.remote {
                        self.assign_expr("LeaveJobInQueue", "JobStatus == 4 && (CompletionDate =?= UNDEFINED || CompletionDate == 0 || ((time() - CompletionDate) < 864000))")?;
                    } else {
                        self.assign_bool("LeaveJobInQueue", false);
                    }
                }
            }
        }
        Ok(())
    }

    /// `SetJobRetries`.
    pub fn set_job_retries(&mut self) -> R {
        let erc = self.param2("on_exit_remove", Some("OnExitRemove"))?;
        let ehc = self.param2("on_exit_hold", Some("OnExitHold"))?;
        let mut num_retries = -1;
        let mut enable = false;
        let mut retries_given = false;
        if let Some(n) = self.param_long("max_retries", Some("JobMaxRetries"), false)? {
            num_retries = n;
            enable = true;
            retries_given = true;
        }
        let mut success_code = 0;
        let mut success_given = false;
        if let Some(n) = self.param_long("success_exit_code", Some("JobSuccessExitCode"), true)? {
            success_code = n;
            enable = true;
            success_given = true;
        }
        let mut retry_until = self.param("retry_until")?.map(|v| v.to_string());
        if retry_until.is_some() {
            enable = true;
        }
        let defaults = self.setup.settings.insert_default_policy_exprs;
        if !enable {
            match &erc {
                Some(e) => self.assign_expr("OnExitRemove", e)?,
                None => {
                    if defaults && !self.has("OnExitRemove") {
                        self.assign_bool("OnExitRemove", true);
                    }
                }
            }
            match &ehc {
                Some(e) => self.assign_expr("OnExitHold", e)?,
                None => {
                    if defaults && !self.has("OnExitHold") {
                        self.assign_bool("OnExitHold", false);
                    }
                }
            }
            return Ok(());
        }
        if let Some(ru) = &retry_until {
            let mut valid = true;
            match parse_old_expr(ru) {
                Ok(tree) => {
                    let refs = all_references(&tree);
                    if refs.is_empty() && expand::integer_value(ru).is_some() {
                        let code = expand::integer_value(ru).expect("checked");
                        if !(i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&code) {
                            valid = false;
                        } else {
                            retry_until = Some(format!("ExitCode =?= {code}"));
                        }
                    } else {
                        let wrapped = wrap_in_parens_for(tree, PREC_OR);
                        retry_until = Some(crate::classad::unparse::expr_to_old_string(&wrapped));
                    }
                }
                Err(_) => valid = false,
            }
            if !valid {
                return Err(self.error(format!(
                    "retry_until={} is invalid, it must be an integer or boolean expression.\n",
                    retry_until.as_deref().unwrap_or("")
                )));
            }
        }
        if !retries_given && !self.has("JobMaxRetries") {
            num_retries = self.setup.settings.default_max_retries;
            retries_given = true;
        }
        if retries_given {
            self.assign_int("JobMaxRetries", num_retries);
        }
        match &ehc {
            Some(e) => self.assign_expr("OnExitHold", e)?,
            None => {
                if !self.has("OnExitHold") {
                    self.assign_bool("OnExitHold", false);
                }
            }
        }
        if self.has("OnExitRemove") && !success_given && retry_until.is_none() {
            return Ok(());
        }
        let mut code_check = if success_given {
            self.assign_int("JobSuccessExitCode", success_code);
            "JobSuccessExitCode".to_owned()
        } else {
            success_code.to_string()
        };
        if let Some(ru) = &retry_until {
            code_check.push_str(" || ");
            code_check.push_str(ru);
        }
        let mut on_exit_remove =
            format!("NumJobCompletions > JobMaxRetries || ExitCode =?= {code_check}");
        if let Some(e) = &erc {
            match parse_old_expr(e) {
                Ok(tree) => {
                    let wrapped = wrap_in_parens_for(tree, PREC_OR);
                    on_exit_remove.push_str(" || ");
                    on_exit_remove.push_str(&crate::classad::unparse::expr_to_old_string(&wrapped));
                }
                Err(_) => {
                    return Err(self.error(format!(
                        "on_exit_remove={e} is invalid, it must be a boolean expression.\n"
                    )))
                }
            }
        }
        self.assign_expr("OnExitRemove", &on_exit_remove)
    }

    /// `fixupKillSigName`.
    fn kill_sig_name(&mut self, sig: Option<Rc<str>>) -> Result<Option<String>, Abort> {
        let Some(sig) = sig else {
            return Ok(None);
        };
        let n = util::atoi(&sig);
        if n != 0 {
            return match util::signal_name(n as i32) {
                Some(name) => Ok(Some(name.to_owned())),
                None => Err(self.error(format!("invalid signal {sig}\n"))),
            };
        }
        if util::signal_number(&sig).is_none() {
            return Err(self.error(format!("invalid signal {sig}\n")));
        }
        Ok(Some(sig.to_ascii_uppercase()))
    }

    /// `SetKillSig`.
    pub fn set_kill_sig(&mut self) -> R {
        let v = self.param2("kill_sig", Some("KillSig"))?;
        let mut name = self.kill_sig_name(v)?;
        if name.is_none() && self.state.universe != universe::VANILLA {
            name = Some("SIGTERM".into());
        }
        if let Some(n) = name {
            self.assign_str("KillSig", &n);
        }
        let v = self.param2("remove_kill_sig", Some("RemoveKillSig"))?;
        if let Some(n) = self.kill_sig_name(v)? {
            self.assign_str("RemoveKillSig", &n);
        }
        let v = self.param2("hold_kill_sig", Some("HoldKillSig"))?;
        if let Some(n) = self.kill_sig_name(v)? {
            self.assign_str("HoldKillSig", &n);
        }
        if let Some(t) = self.param2("kill_sig_timeout", Some("KillSigTimeout"))? {
            self.assign_int("KillSigTimeout", util::atoi(&t));
        }
        Ok(())
    }

    /// `SetContainerSpecial`: container service ports.
    pub fn set_container_special(&mut self) -> R {
        if !(self.state.is_docker || self.state.is_container) {
            return Ok(());
        }
        let Some(services) =
            self.param2("container_service_names", Some("ContainerServiceNames"))?
        else {
            return Ok(());
        };
        self.assign_str("ContainerServiceNames", &services);
        for service in expand::tokens(&services, expand::DEFAULT_DELIMS) {
            let key = format!("{service}_container_port");
            let port = match self.param(&key)? {
                None => -1,
                Some(v) => match expand::integer_value(&v) {
                    Some(n) if (i64::from(i32::MIN)..i64::from(i32::MAX)).contains(&n) => n,
                    _ => {
                        return Err(
                            self.error(format!("{key}={v} is invalid, must eval to an integer.\n"))
                        )
                    }
                },
            };
            if (0..=65535).contains(&port) {
                self.assign_int(&format!("{service}_ContainerPort"), port);
            } else {
                return Err(self.error(format!("Requested container service '{service}' was not assigned a port, or the assigned port was not valid.\n")));
            }
        }
        Ok(())
    }

    /// `SetConcurrencyLimits`.
    pub fn set_concurrency_limits(&mut self) -> R {
        let limits = self.param("concurrency_limits")?;
        let expr = self.param("concurrency_limits_expr")?;
        match (limits, expr) {
            (Some(_), Some(_)) => Err(self
                .error("concurrency_limits and concurrency_limits_expr can't be used together\n")),
            (Some(l), None) => {
                let lower = l.to_ascii_lowercase();
                let mut list = expand::tokens(&lower, expand::DEFAULT_DELIMS);
                for limit in &list {
                    if !util::is_valid_concurrency_limit(limit) {
                        return Err(self.error(format!("Invalid concurrency limit '{limit}'\n")));
                    }
                }
                list.sort();
                let joined = list.join(",");
                if !joined.is_empty() {
                    self.assign_str("ConcurrencyLimits", &joined);
                }
                Ok(())
            }
            (None, Some(e)) => self.assign_expr("ConcurrencyLimits", &e),
            (None, None) => Ok(()),
        }
    }

    /// `SetAccountingGroup`.
    pub fn set_accounting_group(&mut self) -> R {
        let mut group = self
            .param2("accounting_group", Some("AccountingGroup"))?
            .map(|g| g.to_string());
        let nice = self.param_bool("nice_user", Some("NiceUser"), false)?.0;
        if nice {
            let nicegroup = self.setup.settings.nice_user_group.clone();
            match &group {
                None => group = nicegroup,
                Some(g) => {
                    if nicegroup.as_deref().unwrap_or("") != g {
                        self.warning(
                            "nice_user conflicts with accounting_group. nice_user will be ignored",
                        );
                    }
                }
            }
            self.assign_int("MaxJobRetirementTime", 0);
        }
        let gu = self.param2("accounting_group_user", Some("AcctGroupUser"))?;
        if group.is_none() && gu.is_none() {
            return Ok(());
        }
        let user = match &gu {
            Some(u) => u.to_string(),
            None => self.setup.owner.clone(),
        };
        if let Some(g) = &group {
            if !util::is_valid_submitter_name(g) {
                return Err(self.error(format!("Invalid accounting_group: {g}\n")));
            }
        }
        if !util::is_valid_submitter_name(&user) {
            return Err(self.error(format!("Invalid accounting_group_user: {user}\n")));
        }
        self.assign_str("AcctGroupUser", &user);
        match &group {
            Some(g) => {
                self.assign_str("AcctGroup", g);
                self.assign_str("AccountingGroup", &format!("{g}.{user}"));
            }
            None => self.assign_str("AccountingGroup", &user),
        }
        Ok(())
    }

    /// `SetOAuth` (`NeedsOAuthServices`).
    pub fn set_oauth(&mut self) -> R {
        let Some(needed) = self.param2("use_oauth_services", Some("UseOAuthServices"))? else {
            return Ok(());
        };
        let enabled: Vec<String> = expand::tokens(&needed, expand::DEFAULT_DELIMS);
        let mut names: Vec<String> = Vec::new();
        let mut with_handles: Vec<String> = Vec::new();
        let insert = |v: &mut Vec<String>, s: String| {
            if !v.contains(&s) {
                v.push(s);
            }
        };
        for key in self.table_names() {
            if key.starts_with('+') || (key.len() > 3 && key[..3].eq_ignore_ascii_case("MY.")) {
                continue;
            }
            let lower = key.to_ascii_lowercase();
            let found = ["_oauth_permissions", "_oauth_resource", "_oauth_options"]
                .iter()
                .filter_map(|pat| lower.find(pat).map(|i| (i, i + pat.len())))
                .filter(|&(i, _)| i > 0)
                .min();
            let Some((end, handle_at)) = found else {
                continue;
            };
            let service = key[..end].to_owned();
            if !enabled.contains(&service) {
                continue;
            }
            let mut name = service.clone();
            if handle_at < key.len() {
                insert(&mut with_handles, service);
                name.push('*');
                name.push_str(&key[handle_at + 1..]);
            }
            insert(&mut names, name);
        }
        for e in &enabled {
            if !with_handles.contains(e) {
                insert(&mut names, e.clone());
            }
        }
        names.sort_by(|a, b| crate::classad::ad::cmp_ignore_case(a, b));
        self.assign_str("OAuthServicesNeeded", &names.join(","));
        Ok(())
    }

    /// `SetSimpleJobExprs`: the commands that each set one attribute.
    pub fn set_simple_job_exprs(&mut self) -> R {
        let mut last_existed = false;
        for kw in keywords::SIMPLE {
            if kw.alt && last_existed {
                last_existed = false;
                continue;
            }
            let value = self.param2(kw.key, Some(kw.attr))?;
            last_existed = value.is_some();
            let Some(value) = value else {
                continue;
            };
            match kw.kind {
                Kind::Expr => self.assign_expr(kw.attr, &value)?,
                Kind::Str => self.assign_str(kw.attr, &value),
                Kind::StrStripQuotes => {
                    let v = trim_strip_quotes(&value).to_owned();
                    self.assign_str(kw.attr, &v);
                }
                Kind::List => {
                    let list = expand::tokens(&value, expand::DEFAULT_DELIMS).join(",");
                    self.assign_str(kw.attr, &list);
                }
                Kind::LogFile | Kind::LogFileStripQuotes => {
                    let v = if kw.kind == Kind::LogFileStripQuotes {
                        trim_strip_quotes(&value).to_owned()
                    } else {
                        value.to_string()
                    };
                    let v = if v.is_empty() {
                        v
                    } else {
                        self.full_path(&v, true)
                    };
                    self.assign_str(kw.attr, &v);
                }
                Kind::Bool => match expand::bool_value(&value) {
                    Some(b) => self.assign_bool(kw.attr, b),
                    None => {
                        return Err(self.error(format!(
                            "{}={value} is invalid, must eval to a boolean.\n",
                            kw.key
                        )))
                    }
                },
                Kind::Int | Kind::Uint => match expand::integer_value(&value) {
                    Some(n) if n < 0 && kw.kind == Kind::Uint => {
                        return Err(self.error(format!(
                            "{}={value} is invalid, must eval to a non-negative integer.\n",
                            kw.key
                        )))
                    }
                    Some(n) => self.assign_int(kw.attr, n),
                    None => {
                        return Err(self.error(format!(
                            "{}={value} is invalid, must eval to an integer.\n",
                            kw.key
                        )))
                    }
                },
            }
        }
        Ok(())
    }

    /// `SetJobDeferral`.
    pub fn set_job_deferral(&mut self) -> R {
        if let Some(t) = self.param2("deferral_time", Some("DeferralTime"))? {
            let ok = self.assign_expr("DeferralTime", &t).is_ok() && {
                match self.lookup_expr("DeferralTime") {
                    Some(Expr::Lit(v)) => matches!(v, Value::Int(n) if n >= 0),
                    _ => true,
                }
            };
            if !ok {
                return Err(self.error(format!(
                    "deferral_time = {t} is invalid, must eval to a non-negative integer.\n"
                )));
            }
        }
        if self.needs_job_deferral().is_none() {
            return Ok(());
        }
        let window = match self.param2("cron_window", Some("CronWindow"))? {
            Some(w) => Some(w),
            None => self.param2("deferral_window", Some("DeferralWindow"))?,
        };
        match window {
            Some(w) => {
                let ok = self.assign_expr("DeferralWindow", &w).is_ok()
                    && match self.lookup_expr("DeferralWindow") {
                        Some(Expr::Lit(v)) => matches!(v, Value::Int(n) if n >= 0),
                        _ => true,
                    };
                if !ok {
                    return Err(self.error(format!(
                        "deferral_window = {w} is invalid, must eval to a non-negative integer.\n"
                    )));
                }
            }
            None => self.assign_int("DeferralWindow", 0),
        }
        let prep = match self.param2("cron_prep_time", Some("CronPrepTime"))? {
            Some(p) => Some(p),
            None => self.param2("deferral_prep_time", Some("DeferralPrepTime"))?,
        };
        match prep {
            Some(p) => {
                let ok = self.assign_expr("DeferralPrepTime", &p).is_ok()
                    && match self.lookup_expr("DeferralPrepTime") {
                        Some(Expr::Lit(v)) => matches!(v, Value::Int(n) if n >= 0),
                        _ => true,
                    };
                if !ok {
                    return Err(self.error(format!(
                        "deferral_prep_time = {p} is invalid, must eval to a non-negative integer.\n"
                    )));
                }
            }
            None => self.assign_int("DeferralPrepTime", 300),
        }
        Ok(())
    }

    /// `NeedsJobDeferral`: the first cron or deferral attribute the job has.
    pub fn needs_job_deferral(&mut self) -> Option<&'static str> {
        [
            "CronMinute",
            "CronHour",
            "CronDayOfMonth",
            "CronMonth",
            "CronDayOfWeek",
            "DeferralTime",
        ]
        .into_iter()
        .find(|a| self.has(a))
    }

    /// `SetAutoAttributes`.
    pub fn set_auto_attributes(&mut self) -> R {
        if !self.has("MaxHosts") && self.state.universe != universe::MPI {
            self.assign_int("MinHosts", 1);
            self.assign_int("MaxHosts", 1);
        }
        if !self.has("CurrentHosts") {
            self.assign_int("CurrentHosts", 0);
        }
        if self.has("SuccessCheckpointExitCode") {
            self.assign_bool("WantFTOnCheckpoint", true);
        }
        if !self.has("MaxJobRetirementTime") && self.lookup_bool("NiceUser") == Some(true) {
            self.assign_int("MaxJobRetirementTime", 0);
        }
        if util::universe_can_reconnect(self.state.universe) && !self.has("JobLeaseDuration") {
            if let Some(d) = self.setup.settings.default_lease_duration.clone() {
                self.assign_expr("JobLeaseDuration", &d)?;
            }
        }
        if !self.has("JobPrio") {
            self.assign_int("JobPrio", 0);
        }
        if self.has("JobStarterLog") && !self.has("JobStarterDebug") {
            self.assign_bool("JobStarterDebug", true);
        }
        Ok(())
    }

    /// `ReportCommonMistakes`.
    pub fn report_common_mistakes(&mut self) -> R {
        if !self.state.warned_notify_never {
            if let Some(who) = self.lookup_string("NotifyUser") {
                if who.eq_ignore_ascii_case("false") || who.eq_ignore_ascii_case("never") {
                    let domain = self.setup.settings.uid_domain.clone().unwrap_or_default();
                    self.warning(format!("You used  notify_user={who}  in your submit file.\nThis means notification email will go to user \"{who}@{domain}\".\nThis is probably not what you expect!\nIf you do not want notification email, put \"notification = never\"\ninto your submit file, instead.\n"));
                    self.state.warned_notify_never = true;
                }
            }
        }
        if let Some(len) = self.lookup_int("JobMachineAttrsHistoryLength") {
            if !(0..=i64::from(i32::MAX)).contains(&len) {
                return Err(self.error(format!(
                    "job_machine_attrs_history_length={len} is out of bounds 0 to {}\n",
                    i32::MAX
                )));
            }
        }
        if !self.state.warned_lease {
            if let Some(Expr::Lit(v)) = self.lookup_expr("JobLeaseDuration") {
                let n = match v {
                    Value::Int(n) => Some(n),
                    Value::Real(r) => Some(r as i64),
                    _ => None,
                };
                if let Some(n) = n.filter(|&n| n > 0 && n < 20) {
                    let _ = n;
                    self.warning(
                        "JobLeaseDuration less than 20 seconds is not allowed, using 20 instead\n",
                    );
                    self.state.warned_lease = true;
                    self.assign_int("JobLeaseDuration", 20);
                }
            }
        }
        if self.state.universe == universe::SCHEDULER && self.has("DeferralTime") {
            let attr = self.needs_job_deferral().unwrap_or("DeferralTime");
            return Err(self.error(format!("{attr} does not work for scheduler universe jobs.\nConsider submitting this job using the local universe, instead\n")));
        }
        Ok(())
    }

    /// `SetForcedSubmitAttrs`: `+Attr` entries of `SUBMIT_ATTRS`.
    pub fn set_forced_submit_attrs(&mut self) -> R {
        let forced = self.setup.settings.forced_submit_attrs.clone();
        for (name, value) in forced {
            if let Some(v) = value {
                self.assign_expr(&name, &v)?;
            }
        }
        Ok(())
    }

    /// `SetForcedAttributes`: `MY.Attr` (and `+Attr`) commands, in table order.
    pub fn set_forced_attributes(&mut self) -> R {
        for key in self.table_names() {
            let attr = if let Some(a) = key.strip_prefix('+') {
                a
            } else if key.len() > 3 && key[..3].eq_ignore_ascii_case("MY.") {
                &key[3..]
            } else {
                continue;
            };
            let raw = self.raw_param(&key).unwrap_or_default();
            let value = if raw.is_empty() {
                String::new()
            } else if raw.contains('$') {
                self.expand_text(&raw)?.0
            } else {
                raw
            };
            let text = if value.is_empty() {
                "undefined"
            } else {
                &value
            };
            self.assign_expr(attr, text)?;
        }
        Ok(())
    }

    /// The `ProcId` (or, for the cluster ad, `ClusterId`) that `SetForcedAttributes` forces.
    pub fn set_proc_id(&mut self) -> R {
        let p = self.proc_id();
        if p < 0 {
            let c = self.cluster;
            self.assign_int("ClusterId", c);
        } else {
            self.assign_int("ProcId", p);
        }
        Ok(())
    }

    /// `ProcessJobsetAttributes`: the `JobSetName` a job belongs to.
    pub fn process_jobset_attributes(&mut self) -> R {
        if !self.first_proc {
            return Ok(());
        }
        // The jobset ad itself is the schedd's; only the job's membership is kept.
        let mut name: Option<String> = None;
        let mut jobset = false;
        for key in self.table_names() {
            if key.len() <= 7 || !key[..7].eq_ignore_ascii_case("JOBSET.") {
                continue;
            }
            let Some(value) = self.param(&key)? else {
                continue;
            };
            jobset = true;
            if key[7..].eq_ignore_ascii_case("name") {
                name = Some(trim_strip_quotes(&value).to_owned());
            } else if parse_old_expr(&value).is_err() {
                return Err(self.error(format!(
                    "Parse error in JOBSET expression: \n\t{} = {value}\n\t",
                    &key[7..]
                )));
            }
        }
        if self.lookup_string("JobSetName").is_none() && jobset {
            let n = name.unwrap_or_else(|| self.cluster.to_string());
            self.assign_str("JobSetName", &n);
        }
        Ok(())
    }
}

/// Container image kinds (`image_type_from_string`).
pub enum ImageType {
    Docker,
    Sif,
    Sandbox,
}

pub fn image_type(image: &str) -> ImageType {
    let image = image.trim();
    if image.starts_with("docker:") {
        ImageType::Docker
    } else if image.ends_with(".sif") {
        ImageType::Sif
    } else {
        ImageType::Sandbox
    }
}

/// `Env::Import` with a filter: variables not already set.
fn import_env(env: &mut Env, from: &Environment, filter: &EnvFilter) {
    for (name, value) in from.iter() {
        if name.is_empty() || env.contains(name) {
            continue;
        }
        if filter.accepts(name, value) {
            env.set(name, value);
        }
    }
}

/// libclassad precedence levels (`Operation::PrecedenceLevel`).
pub const PREC_OR: i32 = 1;
pub const PREC_AND: i32 = 2;

fn precedence(e: &Expr) -> Option<i32> {
    use crate::classad::ast::BinOp::*;
    match e {
        Expr::Binary { op, .. } => Some(match op {
            Mul | Div | Mod => 10,
            Add | Sub => 9,
            Shl | Shr | UShr => 8,
            Lt | Le | Ge | Gt => 7,
            Ne | Eq | MetaEq | MetaNe => 6,
            BitAnd => 5,
            BitXor => 4,
            BitOr => 3,
            And => 2,
            Or => 1,
            Subscript | Elvis => 12,
        }),
        Expr::Unary(..) => Some(11),
        Expr::Ternary(..) => Some(0),
        _ => None,
    }
}

/// `WrapExprTreeInParensForOp`: parenthesises an operation that binds less tightly than `op`.
pub fn wrap_in_parens_for(e: Expr, op_level: i32) -> Expr {
    match precedence(&e) {
        Some(level) if level < op_level => Expr::Paren(Box::new(e)),
        _ => e,
    }
}

/// Every attribute an expression refers to (for "is this a plain number?" tests).
pub fn all_references(e: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    collect_refs(e, &mut |name, _| out.push(name.to_owned()));
    out
}

/// Calls `f` with each attribute reference: its name and whether it was written `TARGET.`
/// (or another explicit non-MY scope).
pub fn collect_refs(e: &Expr, f: &mut dyn FnMut(&str, RefKind)) {
    use crate::classad::ast::ScopeKw;
    match e {
        Expr::Lit(_) => {}
        Expr::Attr(n) => f(n, RefKind::Plain),
        Expr::Absolute(n) => f(n, RefKind::Plain),
        Expr::Scoped { scope, name, .. } => f(
            name,
            if *scope == ScopeKw::Target {
                RefKind::Target
            } else {
                RefKind::My
            },
        ),
        Expr::Select(inner, name) => {
            // `TARGET.Foo.Bar` names Foo; `x.Bar` where x is an attribute names x.
            match &**inner {
                Expr::Scoped { .. } | Expr::Attr(_) | Expr::Select(..) => collect_refs(inner, f),
                other => {
                    collect_refs(other, f);
                    let _ = name;
                }
            }
        }
        Expr::Unary(_, x) | Expr::Paren(x) => collect_refs(x, f),
        Expr::Binary { lhs, rhs, .. } => {
            collect_refs(lhs, f);
            collect_refs(rhs, f);
        }
        Expr::Ternary(a, b, c) => {
            collect_refs(a, f);
            collect_refs(b, f);
            collect_refs(c, f);
        }
        Expr::Call(call) => {
            for a in &call.args {
                collect_refs(a, f);
            }
        }
        Expr::List(items) => {
            for a in items.iter() {
                collect_refs(a, f);
            }
        }
        Expr::Ad(_) => {}
    }
}

/// How an attribute reference was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefKind {
    Plain,
    My,
    Target,
}

/// Case-insensitive membership.
pub fn contains_ci(list: &[String], name: &str) -> bool {
    list.iter().any(|n| CiStr::new(n) == CiStr::new(name))
}
