//! The macro set: every knob the configuration sources defined, with its raw (unexpanded) value
//! and where it was defined, plus the list of sources. HTCondor's `MACRO_SET`.
//!
//! Names are case-insensitive; an entry keeps the spelling of its first definition, as HTCondor's
//! table does. Sources 0 to 3 are the pseudo-sources `<Detected>`, `<Default>`, `<Environment>`
//! and `<Over>`; files (and metaknob pseudo-files) follow in the order they were first read.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::classad::ad::{CiHasher, CiKey, CiStr};

/// An index into [`MacroSet::sources`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceId(pub u32);

impl SourceId {
    /// Values the library detected on this machine (`ARCH`, `DETECTED_CPUS`, ...).
    pub const DETECTED: SourceId = SourceId(0);
    /// The built-in default table.
    pub const DEFAULT: SourceId = SourceId(1);
    /// `_CONDOR_<NAME>` environment variables.
    pub const ENVIRONMENT: SourceId = SourceId(2);
    /// Values set by the program itself.
    pub const OVER: SourceId = SourceId(3);
}

/// The names of the pseudo-sources, in [`SourceId`] order.
pub const SPECIAL_SOURCES: [&str; 4] = ["<Detected>", "<Default>", "<Environment>", "<Over>"];

/// Where inside a metaknob a definition came from (`use POLICY:DESKTOP+3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetaOrigin {
    pub category: &'static str,
    pub template: &'static str,
    /// The line of the template (counting from 0, blank and comment lines included).
    pub offset: u32,
}

/// Where a definition came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub source: SourceId,
    /// The line in the source file; `None` for pseudo-sources.
    pub line: Option<u32>,
    /// Set when the definition came from a metaknob that the line used.
    pub meta: Option<MetaOrigin>,
}

impl Origin {
    pub const fn special(source: SourceId) -> Origin {
        Origin {
            source,
            line: None,
            meta: None,
        }
    }
}

/// One knob of the set.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The spelling of the knob's first definition.
    pub name: String,
    /// The value as written, after self-references were expanded.
    pub raw: String,
    pub origin: Origin,
    /// Defined with `@=tag` ... `@tag`, or a value holding newlines.
    pub multi_line: bool,
    /// The value is the knob's built-in default.
    pub matches_default: bool,
    /// Position of the last (re)definition, for ordering `-summary` output.
    pub sequence: u64,
}

/// How a deferred knob finds its value: `None` leaves the knob undefined.
pub type Probe = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// A knob whose value is looked up only when something asks for it (`TILDE` needs a lookup
/// of the `condor` user that costs more than reading the rest of the configuration).
#[derive(Clone)]
struct Deferred {
    name: String,
    origin: Origin,
    sequence: u64,
    probe: Probe,
    entry: OnceLock<Option<Entry>>,
}

impl Deferred {
    fn entry(&self) -> Option<&Entry> {
        self.entry
            .get_or_init(|| {
                (self.probe)().map(|raw| Entry {
                    name: self.name.clone(),
                    multi_line: raw.contains('\n'),
                    raw,
                    origin: self.origin.clone(),
                    matches_default: false,
                    sequence: self.sequence,
                })
            })
            .as_ref()
    }
}

impl std::fmt::Debug for Deferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deferred")
            .field("name", &self.name)
            .field("entry", &self.entry.get())
            .finish()
    }
}

/// The knobs the configuration defined, and the sources they came from.
#[derive(Clone, Debug)]
pub struct MacroSet {
    entries: Vec<Entry>,
    /// Names in any case, without copying a looked-up name.
    index: HashMap<CiKey, usize, CiHasher>,
    deferred: Vec<Deferred>,
    sources: Vec<String>,
    sequence: u64,
}

impl Default for MacroSet {
    fn default() -> Self {
        MacroSet::new()
    }
}

impl MacroSet {
    pub fn new() -> MacroSet {
        MacroSet {
            entries: Vec::new(),
            index: HashMap::default(),
            deferred: Vec::new(),
            sources: SPECIAL_SOURCES.iter().map(|s| s.to_string()).collect(),
            sequence: 0,
        }
    }

    /// Registers a source (a file, a command, a metaknob pseudo-file) and returns its id.
    pub fn add_source(&mut self, name: &str) -> SourceId {
        self.sources.push(name.to_owned());
        SourceId((self.sources.len() - 1) as u32)
    }

    pub fn source_name(&self, id: SourceId) -> &str {
        self.sources
            .get(id.0 as usize)
            .map(String::as_str)
            .unwrap_or("")
    }

    pub fn sources(&self) -> &[String] {
        &self.sources
    }

    /// The entry called `name` (case-insensitive); a deferred knob is looked up now.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        match self.index.get(CiStr::new(name)) {
            Some(&i) => Some(&self.entries[i]),
            None => self
                .deferred
                .iter()
                .find(|d| d.name.eq_ignore_ascii_case(name))
                .and_then(Deferred::entry),
        }
    }

    /// Whether `name` has a definition of its own (not a deferred one).
    pub fn is_defined(&self, name: &str) -> bool {
        self.index.contains_key(CiStr::new(name))
    }

    /// The entry called `prefix.name`.
    pub fn get_prefixed(&self, prefix: &str, name: &str) -> Option<&Entry> {
        let mut key = String::with_capacity(prefix.len() + 1 + name.len());
        key.push_str(prefix);
        key.push('.');
        key.push_str(name);
        self.index.get(CiStr::new(&key)).map(|&i| &self.entries[i])
    }

    /// Every entry with a definition of its own, in the order the knobs were first defined
    /// (deferred knobs are not looked up).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Every entry, deferred knobs looked up and listed after the rest.
    pub fn all_entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .chain(self.deferred.iter().filter_map(Deferred::entry))
    }

    /// Defines `name` by `probe`, run the first time the knob is read. A later definition of
    /// `name` replaces it.
    pub fn insert_deferred(&mut self, name: &str, origin: Origin, probe: Probe) {
        self.remove(name);
        self.sequence += 1;
        self.deferred.push(Deferred {
            name: name.to_owned(),
            origin,
            sequence: self.sequence,
            probe,
            entry: OnceLock::new(),
        });
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Defines or redefines `name`. The caller has already expanded self-references.
    pub fn insert(
        &mut self,
        name: &str,
        raw: String,
        origin: Origin,
        here_doc: bool,
        matches_default: bool,
    ) {
        self.sequence += 1;
        let multi_line = here_doc || raw.contains('\n');
        self.deferred.retain(|d| !d.name.eq_ignore_ascii_case(name));
        let entry = Entry {
            name: name.to_owned(),
            raw,
            origin,
            multi_line,
            matches_default,
            sequence: self.sequence,
        };
        match self.index.get(CiStr::new(name)) {
            Some(&i) => {
                let name = std::mem::take(&mut self.entries[i].name);
                self.entries[i] = Entry { name, ..entry };
            }
            None => {
                self.index.insert(CiKey::from(name), self.entries.len());
                self.entries.push(entry);
            }
        }
    }

    /// Removes `name` (used by `-unset` to preview a change); returns whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let deferred = self.deferred.len();
        self.deferred.retain(|d| !d.name.eq_ignore_ascii_case(name));
        let Some(i) = self.index.remove(CiStr::new(name)) else {
            return self.deferred.len() != deferred;
        };
        self.entries.remove(i);
        for index in self.index.values_mut() {
            if *index > i {
                *index -= 1;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_insensitive_and_keep_first_spelling() {
        let mut set = MacroSet::new();
        set.insert(
            "Foo",
            "1".into(),
            Origin::special(SourceId::OVER),
            false,
            false,
        );
        set.insert(
            "FOO",
            "2".into(),
            Origin::special(SourceId::OVER),
            false,
            false,
        );
        assert_eq!(set.len(), 1);
        let e = set.get("foo").unwrap();
        assert_eq!((e.name.as_str(), e.raw.as_str()), ("Foo", "2"));
        set.insert(
            "negotiator.X",
            "n".into(),
            Origin::special(SourceId::OVER),
            false,
            false,
        );
        assert_eq!(set.get_prefixed("NEGOTIATOR", "x").unwrap().raw, "n");
        assert!(set.remove("FOO"));
        assert!(set.get("foo").is_none());
        assert_eq!(set.get("NEGOTIATOR.x").unwrap().raw, "n");
    }

    #[test]
    fn a_deferred_knob_is_looked_up_once_when_read_and_a_definition_replaces_it() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let calls = Arc::new(AtomicUsize::new(0));
        let mut set = MacroSet::new();
        let counter = calls.clone();
        set.insert_deferred(
            "TILDE",
            Origin::special(SourceId::DETECTED),
            Arc::new(move || {
                counter.fetch_add(1, Ordering::SeqCst);
                Some("/home/condor".into())
            }),
        );
        assert!(set.entries().is_empty() && !set.is_defined("tilde"));
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        assert_eq!(set.get("tilde").unwrap().raw, "/home/condor");
        assert_eq!(set.get("TILDE").unwrap().name, "TILDE");
        let listed: Vec<&str> = set.all_entries().map(|e| e.raw.as_str()).collect();
        assert_eq!(listed, ["/home/condor"]);
        assert_eq!(calls.load(Ordering::SeqCst), 1, "looked up once");

        set.insert(
            "Tilde",
            "/x".into(),
            Origin::special(SourceId::OVER),
            false,
            false,
        );
        assert!(set.is_defined("TILDE"));
        assert_eq!(set.get("TILDE").unwrap().raw, "/x");
        assert_eq!(set.all_entries().count(), 1);

        // A probe that finds nothing leaves the knob undefined.
        set.insert_deferred(
            "GONE",
            Origin::special(SourceId::DETECTED),
            Arc::new(|| None),
        );
        assert!(set.get("GONE").is_none());
        assert!(set.remove("GONE"));
    }

    #[test]
    fn sources_start_with_the_pseudo_sources() {
        let mut set = MacroSet::new();
        assert_eq!(set.source_name(SourceId::ENVIRONMENT), "<Environment>");
        let id = set.add_source("/etc/condor_config");
        assert_eq!(id, SourceId(4));
        assert_eq!(set.source_name(id), "/etc/condor_config");
    }
}
