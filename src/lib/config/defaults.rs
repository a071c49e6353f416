//! The built-in default table: HTCondor 24.0's parameter table ([`param_table`](super::param_table),
//! generated from HTCondor's `src/condor_utils/param_info.in` by `scripts/param_table.py`),
//! under condorlite's own defaults ([`CONDORLITE`]), which win where both name a knob.
//!
//! A default is what a knob is when no source defines it: `lookup` falls back to it, `-dump`
//! lists it, `-verbose` reports it as `<Default>`. HTCondor's subsystem tables give defaults for
//! one subsystem only (`MASTER.PID_SNAPSHOT_INTERVAL`). `LOCAL_DIR` is left empty here and
//! filled in at load time with the platform data directory ([`Defaults::with_local_dir`]).
//!
//! Every table is a static slice sorted as HTCondor sorts its own (by name, ignoring ASCII
//! case), so a lookup is a binary search with no set-up: short-lived tools and the daemons'
//! frequent lookups pay nothing to build an index.

use std::cmp::Ordering;

use super::param_table::{GLOBAL, SUBSYSTEMS};
use crate::classad::ad::cmp_ignore_case;

/// How a knob's value is meant to be read (`type=` in param_info.in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    String,
    Int,
    Bool,
    Double,
    Long,
    Path,
}

impl Kind {
    /// The name `condor_config_val` prints for the type.
    pub fn name(self) -> &'static str {
        match self {
            Kind::String => "STRING",
            Kind::Int => "INT",
            Kind::Bool => "BOOL",
            Kind::Double => "DOUBLE",
            Kind::Long => "LONG",
            Kind::Path => "PATH",
        }
    }
}

/// One built-in default.
#[derive(Clone, Copy, Debug)]
pub struct Default {
    pub name: &'static str,
    pub value: &'static str,
    pub kind: Kind,
}

pub(super) const fn d(name: &'static str, value: &'static str, kind: Kind) -> Default {
    Default { name, value, kind }
}

use Kind::{Bool, Path, String};

/// condorlite's own defaults, sorted by name ignoring case. Each is one of:
/// - a deliberate difference from HTCondor's table (`LOCAL_DIR`, `RUN`: a personal pool under
///   the platform data directory);
/// - a knob HTCondor 24.0's table does not have: the macros of the default policy, which
///   HTCondor 24 defines only through `use FEATURE : POLICY_EXPR_FRAGMENTS` (condorlite defines
///   them from the start, so that a policy written as the manual's "Default Policy Settings"
///   works as written), two knobs of condorlite's starter and `CONDORLITE_WARN_NO_MASTER`;
/// - the value of a default HTCondor's build compiles in (`macro=` in param_info.in, listed in
///   `BUILD_MACROS`): the release condorlite follows, its platform, and the authentication
///   methods of HTCondor's own Linux packages. The two Python ones (`PYTHON3_MODULE_SUFFIX`,
///   `PYTHON3_VERSION_MINOR`) keep the table's placeholders: condorlite has no Python module.
static CONDORLITE: &[Default] = &[
    d(
        "ActivationTimer",
        "ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0)",
        String,
    ),
    d(
        "CONDOR_BUILD_PLATFORM",
        crate::version::BUILD_PLATFORM,
        String,
    ),
    d("CONDOR_VERSION", crate::version::VERSION_NUMBER, String),
    // condor_submit, condor_q and condor_wait say when no condor_master runs for the pool
    // (HTCondor has no such knob: its condor_submit fails without a schedd).
    d("CONDORLITE_WARN_NO_MASTER", "true", Bool),
    d("ConsoleBusy", "(ConsoleIdle  < $(MINUTE))", String),
    d("CPUBusy", "($(NonCondorLoadAvg) >= $(HighLoad))", String),
    d(
        "CPUIdle",
        "($(NonCondorLoadAvg) <= $(BackgroundLoad))",
        String,
    ),
    d("HAVE_EXT_KRB5", "1", Kind::Int),
    d("KeyboardBusy", "(KeyboardIdle < $(MINUTE))", String),
    d("KeyboardNotBusy", "($(KeyboardBusy) == False)", String),
    d("LastCkpt", "(time() - LastPeriodicCheckpoint)", String),
    // The platform data directory, filled in at load time (HTCondor: $(TILDE)).
    d("LOCAL_DIR", "", String),
    d("MachineBusy", "($(CPUBusy) || $(KeyboardBusy))", String),
    d("NonCondorLoadAvg", "(LoadAvg - CondorLoadAvg)", String),
    // The daemon's pid file and socket live in their own directory (HTCondor: $(LOCK)).
    d("RUN", "$(LOCAL_DIR)/run", Path),
    d(
        "SEC_DEFAULT_AUTHENTICATION_METHODS",
        "FS,IDTOKENS,KERBEROS,SCITOKENS,SSL",
        String,
    ),
    // Keep a finished job's scratch directory (for debugging).
    d("STARTER_KEEP_SCRATCH_DIR", "false", Bool),
    // Set HOME in the job's environment to the user's home directory.
    d("STARTER_SETS_HOME_ENV", "true", Bool),
];

/// HTCondor's `BinaryLookup` (src/condor_utils/param_info.h), probe for probe, so that a
/// table HTCondor cannot search (below) fails here as it fails there.
fn binary_lookup<'t, T>(
    table: &'t [T],
    key: &str,
    name: impl Fn(&T) -> &str,
    cmp: fn(&str, &str) -> Ordering,
) -> Option<&'t T> {
    let (mut lower, mut upper) = (0, table.len() as isize - 1);
    while lower <= upper {
        let ix = (lower + upper) / 2;
        let item = &table[ix as usize];
        match cmp(name(item), key) {
            Ordering::Less => lower = ix + 1,
            Ordering::Greater => upper = ix - 1,
            Ordering::Equal => return Some(item),
        }
    }
    None
}

/// HTCondor's `ComparePrefixBeforeDot`, which orders subsystem names by their upper-case
/// forms, where the table is sorted by the lower-case ones: `_` falls between the cases, so
/// some subsystem tables (`AP_SOUTHEAST_1`, `AP_SOUTHEAST_2`) cannot be found, in HTCondor as
/// here.
fn cmp_prefix_before_dot(a: &str, b: &str) -> Ordering {
    let fold = |c: u8| match c {
        b'.' => 0,
        c if c >= b'a' => c & !0x20,
        c => c,
    };
    let a = a.bytes().map(fold).take_while(|&c| c != 0);
    let b = b.bytes().map(fold).take_while(|&c| c != 0);
    a.cmp(b)
}

fn search(table: &'static [Default], name: &str) -> Option<&'static Default> {
    binary_lookup(table, name, |d| d.name, cmp_ignore_case)
}

/// The global default of `name` (no subsystem): condorlite's, else HTCondor's.
fn global(name: &str) -> Option<&'static Default> {
    search(CONDORLITE, name).or_else(|| search(GLOBAL, name))
}

/// The default of `name` in subsystem `subsys`'s table (HTCondor's
/// `param_subsys_default_lookup`).
fn in_subsystem(subsys: &str, name: &str) -> Option<&'static Default> {
    let (_, table) = binary_lookup(SUBSYSTEMS, subsys, |(s, _)| s, cmp_prefix_before_dot)?;
    search(table, name)
}

/// The default table of one load: the static tables with `LOCAL_DIR` filled in.
#[derive(Clone, Debug)]
pub struct Defaults {
    local_dir: std::string::String,
}

impl Defaults {
    /// The defaults, with `LOCAL_DIR` defaulting to `local_dir`.
    pub fn with_local_dir(local_dir: impl Into<std::string::String>) -> Defaults {
        Defaults {
            local_dir: local_dir.into(),
        }
    }

    /// The default of `name` (which may be `SUBSYS.NAME`, looked up in that subsystem's table
    /// only). An empty default is no default, as in HTCondor's `param()`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entry(name)
            .map(|d| self.value(d))
            .filter(|v| !v.is_empty())
    }

    /// The default of `name` for subsystem (or local name) `prefix` only.
    pub fn get_prefixed(&self, prefix: &str, name: &str) -> Option<&str> {
        in_subsystem(prefix, name)
            .map(|d| self.value(d))
            .filter(|v| !v.is_empty())
    }

    /// The table's entry for `name`, with its spelling and type, even when its default is
    /// empty (HTCondor's table lists knobs that have none). `SUBSYS.NAME` is looked up in
    /// that subsystem's table.
    pub fn entry(&self, name: &str) -> Option<&'static Default> {
        match name.split_once('.') {
            Some((subsys, rest)) => in_subsystem(subsys, rest),
            None => global(name),
        }
    }

    /// The global entry of `name`, or of what follows its first dot (HTCondor's
    /// `param_default_get_id`: the entry a definition of `MASTER.X` is compared with).
    pub fn global_or_base(&self, name: &str) -> Option<&'static Default> {
        global(name).or_else(|| global(name.split_once('.')?.1))
    }

    /// The entry for `name` in subsystem `prefix`'s table.
    pub fn subsystem_entry(&self, prefix: &str, name: &str) -> Option<&'static Default> {
        in_subsystem(prefix, name)
    }

    /// The value of an entry of this table (`LOCAL_DIR` is this load's).
    pub fn value<'s>(&'s self, d: &'static Default) -> &'s str {
        if d.name == "LOCAL_DIR" {
            &self.local_dir
        } else {
            d.value
        }
    }

    /// Every global default as `(name, value)`, empty ones included, in no particular order
    /// (the subsystem tables are not listed, as HTCondor's `-dump` does not list them).
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        GLOBAL
            .iter()
            .filter(|d| search(CONDORLITE, d.name).is_none())
            .chain(CONDORLITE)
            .map(move |d| (d.name, self.value(d)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::param_table::BUILD_MACROS;
    use super::*;

    /// The build macros condorlite does not give a value of its own.
    const TABLE_PLACEHOLDERS: &[&str] = &["PYTHON3_MODULE_SUFFIX", "PYTHON3_VERSION_MINOR"];

    fn assert_sorted(table: &[Default], what: &str) {
        for pair in table.windows(2) {
            assert_eq!(
                cmp_ignore_case(pair[0].name, pair[1].name),
                Ordering::Less,
                "{what}: {} before {}",
                pair[0].name,
                pair[1].name
            );
        }
    }

    #[test]
    fn tables_are_sorted_for_binary_search() {
        assert_sorted(GLOBAL, "the global table");
        assert_sorted(CONDORLITE, "condorlite's table");
        // Sorted as HTCondor's generator sorts them (lower-case), searched as HTCondor
        // searches them (upper-case).
        for pair in SUBSYSTEMS.windows(2) {
            assert_eq!(cmp_ignore_case(pair[0].0, pair[1].0), Ordering::Less);
        }
        for (subsys, table) in SUBSYSTEMS {
            assert_eq!(*subsys, subsys.to_ascii_uppercase());
            assert_sorted(table, subsys);
        }
    }

    #[test]
    fn subsystem_tables_are_found_as_htcondor_finds_them() {
        let lost: Vec<&str> = SUBSYSTEMS
            .iter()
            .filter(|(s, table)| in_subsystem(s, table[0].name).is_none())
            .map(|(s, _)| *s)
            .collect();
        assert_eq!(lost, ["AP_SOUTHEAST_1", "AP_SOUTHEAST_2"]);
        assert!(in_subsystem("tool", "istool").is_some());
        assert!(in_subsystem("us_west_2", "ANNEX_DEFAULT_ODI_IMAGE_ID").is_some());
        assert_eq!(cmp_prefix_before_dot("MASTER.X", "master"), Ordering::Equal);
    }

    #[test]
    fn the_whole_htcondor_table_is_carried() {
        assert_eq!(GLOBAL.len(), 1087);
        assert_eq!(SUBSYSTEMS.iter().map(|(_, t)| t.len()).sum::<usize>(), 57);
        let defaults = Defaults::with_local_dir("/pool");
        assert_eq!(defaults.iter().count(), 1087 + 12);
        for d in GLOBAL {
            assert!(defaults.entry(d.name).is_some(), "{}", d.name);
        }
    }

    #[test]
    fn every_override_is_deliberate() {
        for d in CONDORLITE {
            if let Some(h) = search(GLOBAL, d.name) {
                assert_ne!(h.value, d.value, "{} repeats HTCondor's default", d.name);
                assert_eq!(h.kind, d.kind, "{}", d.name);
            }
        }
        for (knob, _) in BUILD_MACROS {
            assert!(
                search(CONDORLITE, knob).is_some() ^ TABLE_PLACEHOLDERS.contains(knob),
                "{knob}: a compiled-in default needs condorlite's value or a reason not to"
            );
        }
    }

    #[test]
    fn lookups() {
        let defaults = Defaults::with_local_dir("/pool");
        assert_eq!(defaults.get("priority_halflife"), Some("86400"));
        assert_eq!(
            defaults.entry("PRIORITY_HALFLIFE").unwrap().kind,
            Kind::Double
        );
        assert_eq!(defaults.get("NEGOTIATOR_MIN_INTERVAL"), Some("5"));
        assert_eq!(defaults.get("LOCAL_DIR"), Some("/pool"));
        assert_eq!(defaults.get("SPOOL"), Some("$(LOCAL_DIR)/spool"));
        assert_eq!(defaults.get("RUN"), Some("$(LOCAL_DIR)/run"));
        assert_eq!(defaults.get_prefixed("MASTER", "IsMaster"), Some("true"));
        assert_eq!(
            defaults.get_prefixed("master", "PID_SNAPSHOT_INTERVAL"),
            Some("60")
        );
        assert_eq!(defaults.get("master.ismaster"), Some("true"));
        assert_eq!(defaults.get("IsMaster"), Some("false"));
        assert_eq!(defaults.get("TOOL.IsMaster"), None);
        assert_eq!(
            defaults.get("us_east_1.ANNEX_DEFAULT_ODI_IMAGE_ID"),
            Some("$(us_east_1.ANNEX_DEFAULT_ODI_IMAGE_ID_V8_8_5)")
        );
        assert_eq!(
            defaults.get("KeyboardBusy"),
            Some("(KeyboardIdle < $(MINUTE))")
        );
        assert_eq!(defaults.get("CONDOR_VERSION"), Some("24.0.24"));
        // A knob HTCondor's table lists without a default.
        assert_eq!(defaults.get("SCHEDD_INTERVAL"), None);
        assert_eq!(
            defaults.entry("schedd_interval").unwrap().name,
            "SCHEDD_INTERVAL"
        );
        assert_eq!(defaults.get("NO_SUCH_KNOB"), None);
        assert!(defaults.entry("NO_SUCH_KNOB").is_none());
    }
}
