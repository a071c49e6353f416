//! The submit macro set: HTCondor's `SubmitHash` table of `name = raw value` definitions,
//! its predefined macros (`$(Cluster)`, `$(Process)`, `$(ARCH)`, `$(SUBMIT_FILE)`, ...) and
//! the live values that change from job to job (the queue statement's variables, `$(Row)`,
//! `$(Step)`).
//!
//! Lookups follow `lookup_macro` with the context `SUBMIT`: `SUBMIT.NAME`, then `NAME` in the
//! table, then the predefined macros. Names compare case-insensitively; a definition keeps the
//! spelling it was first given (which is what `MY.` attributes are named after).
//!
//! [`Scope`] is the view expansion reads through ([`MacroSource`]). It notes whether an
//! expansion looked at a value that differs between the jobs of one queue statement, so that
//! the job builder can expand everything else once per statement.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::classad::ad::{CiHasher, CiKey, CiStr};
use crate::config::expand::MacroSource;
use crate::config::Environment;

/// An index into [`SubmitHash::sources`].
pub type SourceId = u16;

/// Values set on the command line (`name=value`).
pub const SOURCE_ARGUMENT: SourceId = 2;
/// The queue statement's loop variables.
pub const SOURCE_LIVE: SourceId = 3;
/// The pseudo-source names, in [`SourceId`] order (HTCondor's `SubmitHash::init`).
const SPECIAL_SOURCES: [&str; 4] = ["<Detected>", "<Default>", "<Argument>", "<Live>"];

/// Where a definition came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    pub source: SourceId,
    /// The line of the source (0 for pseudo-sources).
    pub line: u32,
}

/// One definition of the table.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The spelling of the first definition.
    pub name: Arc<str>,
    /// The value as written, with self-references already expanded.
    pub raw: Arc<str>,
    pub origin: Origin,
    /// Set for a queue-statement variable: its slot in [`Live::vars`].
    pub live: Option<usize>,
    /// Looked up (HTCondor's `MACRO_META` use and reference counts, as one flag): by the
    /// submit code reading a command, or by an expansion that names it, while parsing or
    /// making jobs. A definition that never is gets condor_submit's "unused" warning.
    pub used: Used,
}

/// Whether a definition was looked up; set through a shared table.
#[derive(Debug, Default)]
pub struct Used(std::sync::atomic::AtomicBool);

impl Used {
    pub fn get(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn set(&self, used: bool) {
        self.0.store(used, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for Used {
    fn clone(&self) -> Used {
        Used(std::sync::atomic::AtomicBool::new(self.get()))
    }
}

/// The table of submit definitions.
#[derive(Clone, Debug)]
pub struct SubmitHash {
    entries: Vec<Entry>,
    index: HashMap<CiKey, usize, CiHasher>,
    /// Some name starts with `SUBMIT.` (so lookups must try that prefix first).
    submit_prefixed: bool,
    sources: Vec<String>,
    live_slots: usize,
}

impl Default for SubmitHash {
    fn default() -> Self {
        SubmitHash::new()
    }
}

impl SubmitHash {
    pub fn new() -> SubmitHash {
        SubmitHash {
            entries: Vec::new(),
            index: HashMap::default(),
            submit_prefixed: false,
            sources: SPECIAL_SOURCES.iter().map(|s| s.to_string()).collect(),
            live_slots: 0,
        }
    }

    /// Registers a source (a file, a command) and returns its id.
    pub fn add_source(&mut self, name: &str) -> SourceId {
        self.sources.push(name.to_owned());
        (self.sources.len() - 1) as SourceId
    }

    pub fn source_name(&self, id: SourceId) -> &str {
        self.sources.get(usize::from(id)).map_or("", String::as_str)
    }

    /// The index of the definition of `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.index.get(CiStr::new(name)).copied()
    }

    pub fn entry(&self, i: usize) -> &Entry {
        &self.entries[i]
    }

    /// The definition of `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.find(name).map(|i| &self.entries[i])
    }

    /// The raw value of `name` in the table itself (`lookup_macro_exact_no_default`).
    pub fn raw(&self, name: &str) -> Option<&str> {
        self.get(name).map(|e| &*e.raw)
    }

    /// Defines or redefines `name` (`insert_macro`); the caller expanded self-references.
    pub fn insert(&mut self, name: &str, raw: &str, origin: Origin) {
        match self.find(name) {
            Some(i) => {
                let e = &mut self.entries[i];
                e.raw = Arc::from(raw);
                e.origin = origin;
            }
            None => {
                let key: Arc<str> = Arc::from(name);
                if name.len() > 7 && name[..7].eq_ignore_ascii_case("SUBMIT.") {
                    self.submit_prefixed = true;
                }
                self.index
                    .insert(CiKey::from(key.clone()), self.entries.len());
                self.entries.push(Entry {
                    name: key,
                    raw: Arc::from(raw),
                    origin,
                    live: None,
                    used: Used::default(),
                });
            }
        }
    }

    /// Makes `name` a live variable (a queue-statement loop variable); returns its slot.
    pub fn make_live(&mut self, name: &str) -> usize {
        if let Some(i) = self.find(name) {
            if let Some(slot) = self.entries[i].live {
                return slot;
            }
        } else {
            self.insert(
                name,
                "",
                Origin {
                    source: SOURCE_LIVE,
                    line: 0,
                },
            );
        }
        let i = self.find(name).expect("just inserted");
        let slot = self.live_slots;
        self.live_slots += 1;
        self.entries[i].live = Some(slot);
        slot
    }

    /// How many live variables there are.
    pub fn live_slots(&self) -> usize {
        self.live_slots
    }

    /// Every definition, sorted case-insensitively by name (the order HTCondor's table
    /// iterates in once it is optimized).
    pub fn sorted(&self) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.entries.len()).collect();
        v.sort_by(|&a, &b| {
            crate::classad::ad::cmp_ignore_case(&self.entries[a].name, &self.entries[b].name)
        });
        v
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn lookup_index(&self, name: &str) -> Option<usize> {
        if self.submit_prefixed {
            let mut key = String::with_capacity(7 + name.len());
            key.push_str("SUBMIT.");
            key.push_str(name);
            if let Some(i) = self.find(&key) {
                return Some(i);
            }
        }
        self.find(name)
    }
}

/// The values of the predefined macros that are the same for every job of a submission
/// (HTCondor's `SubmitMacroDefaults`, filled from the configuration and the submit time).
#[derive(Clone, Debug, Default)]
pub struct Predefined {
    pub arch: String,
    pub opsys: String,
    pub opsys_and_ver: String,
    pub opsys_major_ver: String,
    pub opsys_ver: String,
    pub spool: String,
    /// `$(SUBMIT_FILE)`: the submit file as named on the command line (empty for stdin).
    pub submit_file: String,
    pub submit_time: String,
    pub year: String,
    pub month: String,
    pub day: String,
}

/// The values that change from job to job.
#[derive(Clone, Debug)]
pub struct Live {
    pub cluster: String,
    pub process: String,
    pub row: String,
    pub step: String,
    /// `$(Node)`: empty, or the placeholder HTCondor uses in the parallel universe.
    pub node: Cell<&'static str>,
    /// The queue statement's variables, by slot; empty when unset.
    pub vars: Vec<Arc<str>>,
}

impl Default for Live {
    fn default() -> Self {
        Live {
            cluster: "1".into(),
            process: "0".into(),
            row: "0".into(),
            step: "0".into(),
            node: Cell::new(""),
            vars: Vec::new(),
        }
    }
}

/// What an expansion looked at, besides values that are the same for every job.
pub mod touched {
    /// A value that differs between jobs: `$(Process)`, `$(Step)`, a loop variable, ...
    pub const LIVE: u8 = 1;
    /// `$RANDOM_CHOICE()` or `$RANDOM_INTEGER()`: different each time.
    pub const VOLATILE: u8 = 2;
    /// The job's initial directory (`$Ff()`).
    pub const IWD: u8 = 4;
}

/// The predefined macros by name.
#[derive(Clone, Copy)]
enum Pre {
    Arch,
    Cluster,
    Day,
    IsLinux,
    IsWindows,
    Row,
    JobId,
    Month,
    Node,
    Opsys,
    OpsysAndVer,
    OpsysMajorVer,
    OpsysVer,
    Process,
    RequestCpus,
    RequestMemory,
    Spool,
    Step,
    SubmitFile,
    SubmitTime,
    VmMemory,
    VmVcpus,
    Year,
}

const PREDEFINED: [(&str, Pre); 26] = [
    ("ARCH", Pre::Arch),
    ("Cluster", Pre::Cluster),
    ("ClusterId", Pre::Cluster),
    ("Day", Pre::Day),
    ("IsLinux", Pre::IsLinux),
    ("IsWindows", Pre::IsWindows),
    ("ItemIndex", Pre::Row),
    ("JobId", Pre::JobId),
    ("Month", Pre::Month),
    ("Node", Pre::Node),
    ("OPSYS", Pre::Opsys),
    ("OPSYSANDVER", Pre::OpsysAndVer),
    ("OPSYSMAJORVER", Pre::OpsysMajorVer),
    ("OPSYSVER", Pre::OpsysVer),
    ("Process", Pre::Process),
    ("ProcId", Pre::Process),
    ("Request_CPUs", Pre::RequestCpus),
    ("Request_Memory", Pre::RequestMemory),
    ("Row", Pre::Row),
    ("SPOOL", Pre::Spool),
    ("Step", Pre::Step),
    ("SUBMIT_FILE", Pre::SubmitFile),
    ("SUBMIT_TIME", Pre::SubmitTime),
    ("VM_MEMORY", Pre::VmMemory),
    ("VM_VCPUS", Pre::VmVcpus),
    ("Year", Pre::Year),
];

fn predefined(name: &str) -> Option<Pre> {
    // Most names looked up are not predefined: reject on length and first letter first.
    static INDEX: std::sync::OnceLock<HashMap<CiKey, Pre, CiHasher>> = std::sync::OnceLock::new();
    if !(3..=14).contains(&name.len()) {
        return None;
    }
    let index = INDEX.get_or_init(|| {
        PREDEFINED
            .iter()
            .map(|&(n, p)| (CiKey::from(Arc::from(n)), p))
            .collect()
    });
    index.get(CiStr::new(name)).copied()
}

/// The predefined macros' names, as HTCondor spells them (sorted case-insensitively).
pub fn predefined_names() -> impl Iterator<Item = &'static str> {
    PREDEFINED.iter().map(|(n, _)| *n)
}

/// Whether `name` is one of the predefined submit macros.
pub fn is_predefined(name: &str) -> bool {
    predefined(name).is_some()
}

/// The submit table as expansion sees it, for one job.
pub struct Scope<'a> {
    pub hash: &'a SubmitHash,
    pub predefined: &'a Predefined,
    pub live: &'a Live,
    pub env: &'a Environment,
    /// The job's initial directory once it is known (the context's `cwd`).
    pub cwd: Option<&'a str>,
    touched: Cell<u8>,
}

impl<'a> Scope<'a> {
    pub fn new(
        hash: &'a SubmitHash,
        predefined: &'a Predefined,
        live: &'a Live,
        env: &'a Environment,
        cwd: Option<&'a str>,
    ) -> Scope<'a> {
        Scope {
            hash,
            predefined,
            live,
            env,
            cwd,
            touched: Cell::new(0),
        }
    }

    /// What the lookups since the last call looked at ([`touched`] flags); resets them.
    pub fn take_touched(&self) -> u8 {
        self.touched.replace(0)
    }

    fn note(&self, flag: u8) {
        self.touched.set(self.touched.get() | flag);
    }

    /// The raw value of `name` (`lookup_macro`).
    pub fn lookup_raw(&self, name: &str) -> Option<&'a str> {
        self.lookup_entry(name)
    }

    fn lookup_entry(&self, name: &str) -> Option<&'a str> {
        if let Some(i) = self.hash.lookup_index(name) {
            let e = &self.hash.entries[i];
            e.used.set(true);
            if let Some(slot) = e.live {
                self.note(touched::LIVE);
                return Some(self.live.vars.get(slot).map_or("", |v| &**v));
            }
            if e.raw.contains("$RANDOM_") {
                self.note(touched::VOLATILE);
            }
            return Some(&e.raw);
        }
        let p = &self.predefined;
        Some(match predefined(name)? {
            Pre::Arch => &p.arch,
            Pre::Cluster => &self.live.cluster,
            Pre::Day => &p.day,
            Pre::IsLinux => "1",
            Pre::IsWindows => "0",
            Pre::Row => {
                self.note(touched::LIVE);
                &self.live.row
            }
            Pre::JobId => "$(ClusterId).$(ProcId)",
            Pre::Month => &p.month,
            Pre::Node => self.live.node.get(),
            Pre::Opsys => &p.opsys,
            Pre::OpsysAndVer => &p.opsys_and_ver,
            Pre::OpsysMajorVer => &p.opsys_major_ver,
            Pre::OpsysVer => &p.opsys_ver,
            Pre::Process => {
                self.note(touched::LIVE);
                &self.live.process
            }
            Pre::RequestCpus => "$(RequestCPUs)",
            Pre::RequestMemory => "$(RequestMemory)",
            Pre::Spool => &p.spool,
            Pre::Step => {
                self.note(touched::LIVE);
                &self.live.step
            }
            Pre::SubmitFile => &p.submit_file,
            Pre::SubmitTime => &p.submit_time,
            Pre::VmMemory => "$(Request_Memory)",
            Pre::VmVcpus => "$(Request_CPUs)",
            Pre::Year => &p.year,
        })
    }
}

impl MacroSource for Scope<'_> {
    fn lookup(&self, name: &str) -> Option<&str> {
        self.lookup_raw(name)
    }

    fn env_var(&self, name: &str) -> Option<&str> {
        self.env.get(name)
    }

    fn cwd(&self) -> Option<&str> {
        self.note(touched::IWD);
        self.cwd
    }

    fn self_alias<'n>(&self, name: &'n str) -> Option<&'n str> {
        (name.len() > 7 && name[..7].eq_ignore_ascii_case("SUBMIT.")).then(|| &name[7..])
    }
}

/// A piece of a value that only substitutes plain macros ([`Scope::compile_macro`]).
#[derive(Clone, Debug)]
pub enum Seg {
    Lit(Box<str>),
    Cluster,
    Process,
    Row,
    Step,
    Node,
    /// A queue-statement variable, by slot.
    Var(usize),
}

impl Scope<'_> {
    /// Splits the value of the macro `name` (what `$(name)` gives) into literal text and the
    /// live values it substitutes, when every macro in it (and in the values those name) is a
    /// plain `$(NAME)`; `None` otherwise. Rendering the pieces gives what expansion gives, as
    /// long as the result holds no `$` (a live value could hold a macro, which expansion would
    /// go on to expand).
    ///
    /// A queue statement's variable compiles to its slot, also when it is `name` itself: a
    /// submit command that is a loop variable (`queue arguments from ...`) renders each job's
    /// own row, as HTCondor looks every command up again for each proc (submit_utils.cpp
    /// `SubmitHash::make_job_ad`; `SubmitForeachArgs` sets the variables per row).
    pub fn compile_macro(&self, name: &str) -> Option<Vec<Seg>> {
        if self.hash.submit_prefixed {
            return None;
        }
        let mut out = Vec::new();
        self.compile_name(name, &mut out, 0)?;
        Some(out)
    }

    fn compile_into(&self, raw: &str, out: &mut Vec<Seg>, depth: u32) -> Option<()> {
        if depth > 8 {
            return None;
        }
        let b = raw.as_bytes();
        let mut lit_start = 0;
        let mut i = 0;
        while i < b.len() {
            if b[i] != b'$' {
                i += 1;
                continue;
            }
            if b.get(i + 1) != Some(&b'(') {
                return None;
            }
            let start = i + 2;
            let mut j = start;
            while j < b.len() && crate::config::expand::is_id_char(b[j]) {
                j += 1;
            }
            if j == start || b.get(j) != Some(&b')') {
                return None;
            }
            let name = &raw[start..j];
            if name.eq_ignore_ascii_case("DOLLAR") {
                return None;
            }
            if lit_start < i {
                out.push(Seg::Lit(raw[lit_start..i].into()));
            }
            self.compile_name(name, out, depth)?;
            i = j + 1;
            lit_start = i;
        }
        if lit_start < b.len() {
            out.push(Seg::Lit(raw[lit_start..].into()));
        }
        Some(())
    }

    fn compile_name(&self, name: &str, out: &mut Vec<Seg>, depth: u32) -> Option<()> {
        if let Some(i) = self.hash.find(name) {
            let e = &self.hash.entries[i];
            e.used.set(true);
            if let Some(slot) = e.live {
                out.push(Seg::Var(slot));
                return Some(());
            }
            if e.raw.contains("$RANDOM_") {
                return None;
            }
            let raw = e.raw.clone();
            return self.compile_into(&raw, out, depth + 1);
        }
        match predefined(name) {
            None => Some(()),
            Some(Pre::Cluster) => {
                out.push(Seg::Cluster);
                Some(())
            }
            Some(Pre::Process) => {
                out.push(Seg::Process);
                Some(())
            }
            Some(Pre::Row) => {
                out.push(Seg::Row);
                Some(())
            }
            Some(Pre::Step) => {
                out.push(Seg::Step);
                Some(())
            }
            Some(Pre::Node) => {
                out.push(Seg::Node);
                Some(())
            }
            Some(_) => {
                let raw = self.lookup_raw(name)?.to_owned();
                self.compile_into(&raw, out, depth + 1)
            }
        }
    }

    /// Renders compiled pieces with the current live values.
    pub fn render(&self, segs: &[Seg], out: &mut String) {
        for s in segs {
            match s {
                Seg::Lit(t) => out.push_str(t),
                Seg::Cluster => out.push_str(&self.live.cluster),
                Seg::Process => out.push_str(&self.live.process),
                Seg::Row => out.push_str(&self.live.row),
                Seg::Step => out.push_str(&self.live.step),
                Seg::Node => out.push_str(self.live.node.get()),
                Seg::Var(slot) => out.push_str(self.live.vars.get(*slot).map_or("", |v| &**v)),
            }
        }
    }
}
