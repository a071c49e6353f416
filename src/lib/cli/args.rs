//! The shared argument normaliser: HTCondor's option syntax in front of clap.
//!
//! HTCondor tools take single-dash long options and accept abbreviations of them. Each tool
//! tests every word with `is_dash_arg_prefix(arg, "name", min_len)`: the word after its dash must
//! be a prefix of the option name at least `min_len` characters long (`-l`, `-lo`, `-long` all mean
//! `-long`; `-const` means `-constraint`), and a word that starts with `--` must spell the name out
//! in full. Some options take a qualifier after a colon (`is_dash_arg_colon_prefix`: `-af:jh`,
//! `-long:nosort`). clap knows none of this, so [`normalize`] rewrites every word that HTCondor
//! would take as an option into the canonical `--name` form before clap sees it.
//!
//! The option names come from the tool's clap [`Command`] (each argument's long name and all its
//! aliases); the tool's [`ArgSpec`] adds what clap cannot say: HTCondor's minimum prefix length
//! for a name, whether a name takes a qualifier, and what an unknown dash word is.
//!
//! Rules, in the order they are applied to each word:
//! - After `--`, nothing is touched. `--` itself and `-` alone are left for clap.
//! - A word that names an option becomes `--<long>`. If the option takes values, the following
//!   words are its values, whatever they look like (`-constraint '-1 < x'`), and are attached:
//!   `--constraint=-1 < x`. A missing value is [`ArgsError::MissingValue`]. As in HTCondor, an
//!   option takes a fixed number of values: the minimum of its clap `num_args` (an option whose
//!   value is optional is treated as a flag).
//! - A qualifier is stripped from the word and recorded in [`Normalized::qualifiers`], one entry
//!   per occurrence of a qualifiable option; a tool reads it with
//!   [`Invocation::qualifier`](super::Invocation::qualifier). Only names declared
//!   [`Prefix::qualified`] take one: for others `-name:x` is not an option at all.
//! - A negative number (`-5`, `-1.5e3`) is a value, not an option, and is left as it is.
//! - `-c`, where `c` is a clap short option that no long name claims, is left for clap.
//! - Any other dash word is an error ([`ArgsError::UnknownOption`], or
//!   [`ArgsError::AmbiguousOption`] when it abbreviates several options too briefly), unless the
//!   tool's policy is [`Unknown::Positional`] (`classad_eval`, where `-x` is an expression): then
//!   it is passed through the hidden option [`HYPHEN_POSITIONAL`] so that clap does not take it for
//!   an option, and [`Invocation::indexed`](super::Invocation::indexed) merges it back into the
//!   positional arguments in command-line order.
//!
//! A tool whose policy is [`Unknown::Verbatim`] is left out of all this: it matches its words
//! itself.
//!
//! Minimum prefix lengths: a name listed in [`ArgSpec::prefixes`] uses HTCondor's length from the
//! tool's source; any other name can be abbreviated to its shortest prefix that is not also a
//! prefix of another option's name. When several listed names match one word, the first in the
//! table wins, as the first test in HTCondor's `if` chain does.
//!
//! Beyond HTCondor, `--name=value` is accepted for options that take a value (GNU habit), and
//! `--help` works for every tool. Flags whose position matters (a tool acting left to right)
//! are declared with [`ordered_flag`].

use std::ffi::OsString;

use clap::{Arg, ArgAction, Command};

/// The id and long name of the hidden option that carries dash-words to the positional argument
/// of an [`Unknown::Positional`] tool.
pub const HYPHEN_POSITIONAL: &str = "condorlite-hyphen-positional";

/// How short an option name may be abbreviated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MinLen {
    /// Down to the shortest prefix that no other option's name shares.
    Unique,
    /// Down to this many characters (HTCondor's `min_len`; 0 and 1 both mean one character).
    Chars(usize),
    /// Not at all: `-name` or `--name` only.
    Exact,
}

/// HTCondor's matching rule for one option name (a long name or an alias).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix {
    pub name: &'static str,
    pub min: MinLen,
    /// Takes a `:qualifier` suffix (`is_dash_arg_colon_prefix`).
    pub qualified: bool,
}

impl Prefix {
    /// `is_dash_arg_prefix(arg, name, min)`.
    pub const fn min(name: &'static str, min: usize) -> Self {
        Prefix {
            name,
            min: MinLen::Chars(min),
            qualified: false,
        }
    }

    /// A name that must be spelled out (HTCondor's `strcmp` tests).
    pub const fn exact(name: &'static str) -> Self {
        Prefix {
            name,
            min: MinLen::Exact,
            qualified: false,
        }
    }

    /// A name abbreviated to any unique prefix; listed only to declare it [`Prefix::qualified`].
    pub const fn unique(name: &'static str) -> Self {
        Prefix {
            name,
            min: MinLen::Unique,
            qualified: false,
        }
    }

    /// The same name, taking a `:qualifier` (`is_dash_arg_colon_prefix`).
    pub const fn qualified(self) -> Self {
        Prefix {
            qualified: true,
            ..self
        }
    }
}

/// What a dash word that names no option is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// An error: the tool rejects it.
    Error,
    /// A value of the tool's (single) positional argument.
    Positional,
    /// Every word is the tool's: nothing is normalised or given to clap, and the tool reads
    /// [`Invocation::raw`](super::Invocation::raw) with its own matching rules (condor_submit_dag,
    /// whose flags HTCondor matches by its own prefix rule). The tool's clap command then only
    /// describes its options, for the help, the man page and the completions.
    Verbatim,
}

/// A tool's HTCondor option-matching rules, beyond what its clap [`Command`] says.
#[derive(Clone, Copy, Debug)]
pub struct ArgSpec {
    /// Names with HTCondor's minimum prefix lengths, in the order the HTCondor tool tests them.
    pub prefixes: &'static [Prefix],
    pub unknown: Unknown,
}

impl ArgSpec {
    /// Every option abbreviated to a unique prefix; unknown dash words are errors.
    pub const DEFAULT: ArgSpec = ArgSpec {
        prefixes: &[],
        unknown: Unknown::Error,
    };
}

/// The `-help` flag of a tool that prints its own usage (HTCondor's text, not clap's): the tool
/// turns clap's help and version flags off and reads this one.
pub fn help_flag(text: &'static str) -> Arg {
    Arg::new("help")
        .long("help")
        .action(ArgAction::SetTrue)
        .help(text)
}

/// A flag whose every occurrence keeps its place on the command line, for tools that act on
/// their arguments left to right: read with
/// [`Invocation::occurrences`](super::Invocation::occurrences). (clap's `SetTrue` and `Count` flags
/// remember one position only.)
pub fn ordered_flag(id: &'static str) -> Arg {
    Arg::new(id)
        .long(id)
        .action(ArgAction::Append)
        .num_args(0)
        .default_missing_value("true")
        .value_parser(clap::value_parser!(bool))
}

/// A command line the normaliser rejects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    #[error("unknown option {0}")]
    UnknownOption(String),
    #[error("ambiguous option {word} could be {}", .candidates.join(", "))]
    AmbiguousOption {
        word: String,
        candidates: Vec<String>,
    },
    /// Worded as HTCondor's tools word it.
    #[error("{0} requires an argument")]
    MissingValue(String),
}

/// The command line as clap should see it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Normalized {
    pub args: Vec<OsString>,
    /// For each occurrence of a qualifiable option, in command-line order: the clap id of the
    /// option and its qualifier (`None` when the occurrence has none).
    pub qualifiers: Vec<(String, Option<String>)>,
}

/// Adjusts a tool's command for normalised arguments: adds the hidden [`HYPHEN_POSITIONAL`]
/// option for an [`Unknown::Positional`] tool, lets positional arguments take negative numbers
/// (the normaliser leaves them alone), lets options with several values take values starting
/// with `-` (the normaliser has already decided they are values), and builds the command.
///
/// # Panics
/// If an [`Unknown::Positional`] tool does not have exactly one positional argument, or a name
/// in the spec's table is not an option of the command: both are mistakes in the tool.
pub fn prepare(mut cmd: Command, spec: &ArgSpec) -> Command {
    for prefix in spec.prefixes {
        assert!(
            option_names(&cmd).any(|(name, _)| name == prefix.name),
            "{}: -{} is in the prefix table but is not an option",
            cmd.get_name(),
            prefix.name
        );
    }
    cmd = cmd.mut_args(|arg| {
        if arg.is_positional() {
            arg.allow_negative_numbers(true)
        } else if max_values(&arg) > 1 {
            arg.allow_hyphen_values(true)
        } else {
            arg
        }
    });
    if spec.unknown == Unknown::Positional {
        let positionals: Vec<&Arg> = cmd.get_positionals().collect();
        assert_eq!(
            positionals.len(),
            1,
            "{}: unknown options are positional, but which positional?",
            cmd.get_name()
        );
        let escape = Arg::new(HYPHEN_POSITIONAL)
            .long(HYPHEN_POSITIONAL)
            .hide(true)
            .action(ArgAction::Append)
            .num_args(1)
            .value_parser(positionals[0].get_value_parser().clone());
        cmd = cmd.arg(escape);
    }
    cmd.build();
    cmd
}

/// An option name the normaliser can match, with what it needs to know about its option.
#[derive(Debug)]
struct Candidate<'a> {
    name: &'a str,
    /// The option's id and canonical long name (what clap is given).
    id: &'a str,
    long: &'a str,
    /// Minimum characters to match, `None` for an exact match only.
    min: Option<usize>,
    qualified: bool,
    /// Position in the spec's table, `usize::MAX` for names not listed.
    order: usize,
    /// Values the option takes after it (0 for a flag).
    values: usize,
}

/// `(name, arg)` for every long name and alias of every option of `cmd`.
/// The names a dash word may match: every long name and alias, but not the hidden carrier of
/// dash words ([`HYPHEN_POSITIONAL`]), which no user types (`-c` is not a prefix of it).
fn option_names(cmd: &Command) -> impl Iterator<Item = (&str, &Arg)> {
    cmd.get_arguments()
        .filter(|arg| arg.get_long().is_some_and(|l| l != HYPHEN_POSITIONAL))
        .flat_map(|arg| {
            let aliases = arg.get_all_aliases().unwrap_or_default();
            arg.get_long()
                .into_iter()
                .chain(aliases)
                .map(move |name| (name, arg))
        })
}

fn takes_values(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

/// How many values follow the option word: HTCondor options take a fixed number.
fn min_values(arg: &Arg) -> usize {
    if !takes_values(arg) {
        return 0;
    }
    arg.get_num_args().map_or(1, |range| range.min_values())
}

fn max_values(arg: &Arg) -> usize {
    if !takes_values(arg) {
        return 0;
    }
    arg.get_num_args().map_or(1, |range| range.max_values())
}

fn candidates<'a>(cmd: &'a Command, spec: &ArgSpec) -> Vec<Candidate<'a>> {
    let names: Vec<(&str, &Arg)> = option_names(cmd).collect();
    names
        .iter()
        .map(|&(name, arg)| {
            let listed = spec.prefixes.iter().position(|p| p.name == name);
            let rule = listed.map(|i| spec.prefixes[i]);
            let min = match rule.map_or(MinLen::Unique, |p| p.min) {
                MinLen::Exact => None,
                MinLen::Chars(n) => Some(n.max(1)),
                MinLen::Unique => Some(unique_prefix_len(name, arg, &names)),
            };
            Candidate {
                name,
                id: arg.get_id().as_str(),
                long: arg.get_long().expect("options have long names"),
                min,
                qualified: rule.is_some_and(|p| p.qualified),
                order: listed.unwrap_or(usize::MAX),
                values: min_values(arg),
            }
        })
        .collect()
}

/// The length of the shortest prefix of `name` that is not a prefix of another option's name
/// (the option's own aliases do not count); the whole name if there is none.
fn unique_prefix_len(name: &str, arg: &Arg, names: &[(&str, &Arg)]) -> usize {
    let others: Vec<&str> = names
        .iter()
        .filter(|(_, other)| other.get_id() != arg.get_id())
        .map(|(other, _)| *other)
        .collect();
    (1..=name.len())
        .filter(|&n| name.is_char_boundary(n))
        .find(|&n| !others.iter().any(|other| other.starts_with(&name[..n])))
        .unwrap_or(name.len())
}

/// A dash word split up: `-af:jh` is `("af", Some("jh"), None)`; `--name=v` is
/// `("name", None, Some("v"))`.
struct DashWord<'w> {
    name: &'w str,
    qualifier: Option<&'w str>,
    /// `--name=value`, accepted for options that take values (GNU style; HTCondor has no such
    /// form, and its `-name=value` stays an unknown word).
    attached: Option<&'w str>,
    double: bool,
}

fn split_dash_word(word: &str) -> Option<DashWord<'_>> {
    let (body, double) = match word.strip_prefix("--") {
        Some(body) => (body, true),
        None => (word.strip_prefix('-')?, false),
    };
    let (body, attached) = match body.split_once('=') {
        Some((name, value)) if double => (name, Some(value)),
        _ => (body, None),
    };
    // As in is_arg_colon_prefix, the name ends at the first colon.
    let (name, qualifier) = match body.split_once(':') {
        Some((name, qualifier)) => (name, Some(qualifier)),
        None => (body, None),
    };
    Some(DashWord {
        name,
        qualifier,
        attached,
        double,
    })
}

enum Resolution<'c, 'a> {
    Option(&'c Candidate<'a>),
    Unknown,
    Ambiguous(Vec<String>),
}

fn resolve<'c, 'a>(word: &DashWord<'_>, candidates: &'c [Candidate<'a>]) -> Resolution<'c, 'a> {
    if word.name.is_empty() {
        return Resolution::Unknown;
    }
    let eligible = candidates
        .iter()
        .filter(|c| word.qualifier.is_none() || c.qualified);
    let mut matches: Vec<&Candidate> = eligible
        .clone()
        .filter(|c| {
            if c.name == word.name {
                return true;
            }
            // "--" requires the whole name, as does an exact-only name.
            match c.min {
                Some(min) if !word.double => {
                    c.name.starts_with(word.name) && word.name.len() >= min
                }
                _ => false,
            }
        })
        .collect();
    if let Some(exact) = matches.iter().find(|c| c.name == word.name) {
        return Resolution::Option(exact);
    }
    // Several matches are several table names (an unlisted name's minimum prefix is unique):
    // HTCondor tests them in order.
    matches.sort_by_key(|c| c.order);
    if let Some(first) = matches.first() {
        return Resolution::Option(first);
    }
    if word.double {
        return Resolution::Unknown;
    }
    let mut prefixed: Vec<&str> = eligible
        .filter(|c| c.name.starts_with(word.name))
        .map(|c| c.long)
        .collect();
    prefixed.sort_unstable();
    prefixed.dedup();
    if prefixed.len() > 1 {
        Resolution::Ambiguous(prefixed.into_iter().map(|l| format!("-{l}")).collect())
    } else {
        Resolution::Unknown
    }
}

/// clap_lex's idea of a negative number (`-1`, `-1.5`, `-2e10`), so that what the normaliser leaves
/// alone as a number is what clap takes as a value.
pub fn is_negative_number(word: &str) -> bool {
    let Some(digits) = word.strip_prefix('-') else {
        return false;
    };
    if digits.is_empty() {
        return false;
    }
    let mut seen_dot = false;
    let mut exponent_at = None;
    for (i, c) in digits.bytes().enumerate() {
        match c {
            b'0'..=b'9' => {}
            b'.' if !seen_dot && exponent_at.is_none() && i > 0 => seen_dot = true,
            b'e' | b'E' if exponent_at.is_none() && i > 0 => exponent_at = Some(i),
            _ => return false,
        }
    }
    exponent_at != Some(digits.len() - 1)
}

/// Rewrites a command line (`args[0]` is the program name) from HTCondor's option syntax into
/// clap's. `cmd` should have been through [`prepare`].
pub fn normalize<I, T>(cmd: &Command, spec: &ArgSpec, args: I) -> Result<Normalized, ArgsError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let candidates = candidates(cmd, spec);
    let has_short = |c: char| cmd.get_arguments().any(|a| a.get_short() == Some(c));
    let mut normalized = Normalized::default();
    let mut words = args.into_iter().map(Into::into);
    normalized.args.extend(words.next());
    let mut escaped = false;

    while let Some(word) = words.next() {
        let text = match word.to_str() {
            Some(text) if !escaped && text.starts_with('-') && text != "-" => text.to_owned(),
            _ => {
                normalized.args.push(word);
                continue;
            }
        };
        if text == "--" {
            escaped = true;
            normalized.args.push(word);
            continue;
        }
        let dash = split_dash_word(&text).expect("starts with a dash");
        let option = match resolve(&dash, &candidates) {
            Resolution::Option(option) => option,
            unmatched => {
                let short = dash.name.chars().next().filter(|_| !dash.double);
                if text.chars().count() == 2 && short.is_some_and(has_short) {
                    // A declared short option (`-h`) that no long name claims: clap's to handle.
                    normalized.args.push(word);
                } else if spec.unknown == Unknown::Positional {
                    let mut carried = OsString::from(format!("--{HYPHEN_POSITIONAL}="));
                    carried.push(&word);
                    normalized.args.push(carried);
                } else if is_negative_number(&text) {
                    normalized.args.push(word);
                } else if let Resolution::Ambiguous(candidates) = unmatched {
                    return Err(ArgsError::AmbiguousOption {
                        word: text,
                        candidates,
                    });
                } else {
                    return Err(ArgsError::UnknownOption(text));
                }
                continue;
            }
        };
        if option.qualified {
            normalized
                .qualifiers
                .push((option.id.to_owned(), dash.qualifier.map(str::to_owned)));
        }
        let canonical = format!("--{}", option.long);
        if option.values == 0 {
            if dash.attached.is_some() {
                return Err(ArgsError::UnknownOption(text));
            }
            normalized.args.push(canonical.into());
            continue;
        }
        let mut values: Vec<OsString> = dash.attached.map(OsString::from).into_iter().collect();
        while values.len() < option.values {
            match words.next() {
                Some(value) => values.push(value),
                None => return Err(ArgsError::MissingValue(text)),
            }
        }
        if let [value] = values.as_slice() {
            let mut attached = OsString::from(format!("{canonical}="));
            attached.push(value);
            normalized.args.push(attached);
        } else {
            // prepare() let this option take values that look like options.
            normalized.args.push(canonical.into());
            normalized.args.extend(values);
        }
    }
    Ok(normalized)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A condor_q-like tool: HTCondor's own prefix table for the options it lists.
    fn queue_tool() -> (Command, ArgSpec) {
        static PREFIXES: &[Prefix] = &[
            Prefix::min("long", 1).qualified(),
            Prefix::min("af", 2).qualified(),
            Prefix::min("autoformat", 5).qualified(),
            Prefix::min("hold", 2).qualified(),
            Prefix::min("hold-codes", 6),
            Prefix::min("global", 1),
            // Artificially short, so that two listed names match "-g".
            Prefix::min("goodput", 1),
        ];
        let cmd = Command::new("condor_q")
            .disable_help_flag(true)
            .arg(Arg::new("long").long("long").action(ArgAction::SetTrue))
            .arg(
                Arg::new("autoformat")
                    .long("autoformat")
                    .visible_alias("af")
                    .action(ArgAction::SetTrue),
            )
            .arg(Arg::new("hold").long("hold").action(ArgAction::SetTrue))
            .arg(
                Arg::new("hold_codes")
                    .long("hold-codes")
                    .action(ArgAction::SetTrue),
            )
            .arg(Arg::new("global").long("global").action(ArgAction::SetTrue))
            .arg(
                Arg::new("goodput")
                    .long("goodput")
                    .action(ArgAction::SetTrue),
            )
            .arg(
                Arg::new("constraint")
                    .long("constraint")
                    .action(ArgAction::Append),
            )
            .arg(
                Arg::new("format")
                    .long("format")
                    .num_args(2)
                    .action(ArgAction::Append),
            )
            .arg(
                Arg::new("limit")
                    .long("limit")
                    .value_parser(clap::value_parser!(i64)),
            )
            .arg(Arg::new("help").long("help").action(ArgAction::Help))
            .arg(Arg::new("jobs").action(ArgAction::Append));
        let spec = ArgSpec {
            prefixes: PREFIXES,
            unknown: Unknown::Error,
        };
        (prepare(cmd, &spec), spec)
    }

    fn norm(args: &[&str]) -> Result<Vec<String>, ArgsError> {
        let (cmd, spec) = queue_tool();
        let argv = std::iter::once("condor_q").chain(args.iter().copied());
        let normalized = normalize(&cmd, &spec, argv)?;
        Ok(normalized.args[1..]
            .iter()
            .map(|a| a.to_str().unwrap().to_owned())
            .collect())
    }

    fn qualifiers(args: &[&str]) -> Vec<(String, Option<String>)> {
        let (cmd, spec) = queue_tool();
        let argv = std::iter::once("condor_q").chain(args.iter().copied());
        normalize(&cmd, &spec, argv).unwrap().qualifiers
    }

    #[test]
    fn single_dash_long_options_and_their_prefixes() {
        for word in ["-l", "-lo", "-lon", "-long", "--long"] {
            assert_eq!(norm(&[word]).unwrap(), ["--long"], "{word}");
        }
        assert_eq!(norm(&["-af"]).unwrap(), ["--autoformat"]);
        assert_eq!(norm(&["-autof"]).unwrap(), ["--autoformat"]);
        assert_eq!(norm(&["-autoformat"]).unwrap(), ["--autoformat"]);
        assert_eq!(norm(&["--af"]).unwrap(), ["--autoformat"]);
    }

    #[test]
    fn prefixes_shorter_than_htcondor_min_len_are_unknown() {
        // "autoformat" needs 5 characters, "af" needs 2.
        assert_eq!(
            norm(&["-auto"]),
            Err(ArgsError::UnknownOption("-auto".into()))
        );
        assert_eq!(norm(&["-a"]), Err(ArgsError::UnknownOption("-a".into())));
        // "hold-codes" needs 6 characters: "-hold-" is -hold-codes only from 6 on.
        assert_eq!(norm(&["-hold-c"]).unwrap(), ["--hold-codes"]);
        assert_eq!(norm(&["-ho"]).unwrap(), ["--hold"]);
    }

    #[test]
    fn double_dash_requires_the_whole_name() {
        assert_eq!(
            norm(&["--lon"]),
            Err(ArgsError::UnknownOption("--lon".into()))
        );
        assert_eq!(
            norm(&["--const", "x"]),
            Err(ArgsError::UnknownOption("--const".into()))
        );
    }

    #[test]
    fn table_order_decides_between_listed_names() {
        // Both -global and -goodput accept "-g"; the table lists -global first.
        assert_eq!(norm(&["-g"]).unwrap(), ["--global"]);
        assert_eq!(norm(&["-go"]).unwrap(), ["--goodput"]);
    }

    #[test]
    fn unlisted_names_take_unique_prefixes() {
        assert_eq!(norm(&["-const", "x"]).unwrap(), ["--constraint=x"]);
        assert_eq!(norm(&["-c", "x"]).unwrap(), ["--constraint=x"]);
        assert_eq!(norm(&["-li", "5"]).unwrap(), ["--limit=5"]);
        assert_eq!(norm(&["-f", "%d", "x"]).unwrap(), ["--format", "%d", "x"]);
    }

    #[test]
    fn unknown_and_ambiguous_options_are_errors() {
        assert_eq!(
            norm(&["-bogus"]),
            Err(ArgsError::UnknownOption("-bogus".into()))
        );
        assert_eq!(
            norm(&["-constraint=x"]),
            Err(ArgsError::UnknownOption("-constraint=x".into()))
        );
        // "h" is shorter than -hold's 2 and is also a prefix of -help and -hold-codes.
        assert_eq!(
            norm(&["-h"]),
            Err(ArgsError::AmbiguousOption {
                word: "-h".into(),
                candidates: vec!["-help".into(), "-hold".into(), "-hold-codes".into()],
            })
        );
        assert_eq!(
            ArgsError::AmbiguousOption {
                word: "-h".into(),
                candidates: vec!["-help".into(), "-hold".into()],
            }
            .to_string(),
            "ambiguous option -h could be -help, -hold"
        );
    }

    #[test]
    fn option_values_are_left_as_they_are() {
        assert_eq!(
            norm(&["-constraint", "-1 < x"]).unwrap(),
            ["--constraint=-1 < x"]
        );
        assert_eq!(
            norm(&["-const", "-long", "-l"]).unwrap(),
            ["--constraint=-long", "--long"]
        );
        assert_eq!(norm(&["-limit", "-5"]).unwrap(), ["--limit=-5"]);
        assert_eq!(
            norm(&["-format", "-%d-", "--"]).unwrap(),
            ["--format", "-%d-", "--"]
        );
        assert_eq!(norm(&["--constraint=a==b"]).unwrap(), ["--constraint=a==b"]);
    }

    #[test]
    fn missing_values_are_errors_worded_as_htcondor_does() {
        assert_eq!(
            norm(&["-const"]),
            Err(ArgsError::MissingValue("-const".into()))
        );
        assert_eq!(
            norm(&["-format", "%d"]),
            Err(ArgsError::MissingValue("-format".into()))
        );
        assert_eq!(
            ArgsError::MissingValue("-file".into()).to_string(),
            "-file requires an argument"
        );
    }

    #[test]
    fn dash_double_dash_and_negative_numbers_are_untouched() {
        assert_eq!(norm(&["-"]).unwrap(), ["-"]);
        assert_eq!(
            norm(&["-5", "-1.5", "-2e3"]).unwrap(),
            ["-5", "-1.5", "-2e3"]
        );
        assert_eq!(
            norm(&["1.0", "--", "-long", "-bogus"]).unwrap(),
            ["1.0", "--", "-long", "-bogus"]
        );
    }

    #[test]
    fn qualifiers_are_recorded_per_occurrence() {
        assert_eq!(
            norm(&["-af:jh", "Owner"]).unwrap(),
            ["--autoformat", "Owner"]
        );
        assert_eq!(
            qualifiers(&["-af:jh", "-long:nosort", "-l", "-autoformat:,"]),
            [
                ("autoformat".into(), Some("jh".into())),
                ("long".into(), Some("nosort".into())),
                ("long".into(), None),
                ("autoformat".into(), Some(",".into())),
            ]
        );
        assert_eq!(
            qualifiers(&["--long:nosort"]),
            [("long".into(), Some("nosort".into()))]
        );
        assert_eq!(qualifiers(&["-l:"]), [("long".into(), Some("".into()))]);
        // Only qualifiable names take a qualifier.
        assert_eq!(
            norm(&["-hold-codes:x"]),
            Err(ArgsError::UnknownOption("-hold-codes:x".into()))
        );
        assert_eq!(
            norm(&["-global:x"]),
            Err(ArgsError::UnknownOption("-global:x".into()))
        );
    }

    #[test]
    fn normalized_arguments_parse_with_clap() {
        let (cmd, spec) = queue_tool();
        let argv = [
            "condor_q", "-l", "1.0", "-const", "-1 < x", "-format", "-%d", "-x", "-li", "-3",
        ];
        let normalized = normalize(&cmd, &spec, argv).unwrap();
        let m = cmd.try_get_matches_from(normalized.args).unwrap();
        assert!(m.get_flag("long"));
        let constraint: Vec<&String> = m.get_many("constraint").unwrap().collect();
        assert_eq!(constraint, ["-1 < x"]);
        let format: Vec<&String> = m.get_many("format").unwrap().collect();
        assert_eq!(format, ["-%d", "-x"]);
        assert_eq!(m.get_one::<i64>("limit"), Some(&-3));
        let jobs: Vec<&String> = m.get_many("jobs").unwrap().collect();
        assert_eq!(jobs, ["1.0"]);
    }

    #[test]
    fn positional_policy_passes_unknown_dash_words_through() {
        static PREFIXES: &[Prefix] = &[Prefix::exact("quiet")];
        let spec = ArgSpec {
            prefixes: PREFIXES,
            unknown: Unknown::Positional,
        };
        let cmd = Command::new("classad_eval")
            .arg(Arg::new("quiet").long("quiet").action(ArgAction::Count))
            .arg(Arg::new("args").action(ArgAction::Append));
        let cmd = prepare(cmd, &spec);
        // `-c` and `-condor` are prefixes of the hidden carrier's name, not options.
        let argv = [
            "classad_eval",
            "a",
            "-q",
            "-quiet",
            "-x",
            "-1",
            "-c",
            "-condor",
            "b",
        ];
        let normalized = normalize(&cmd, &spec, argv).unwrap();
        let escape = |w: &str| format!("--{HYPHEN_POSITIONAL}={w}");
        let expected = [
            "classad_eval".to_owned(),
            "a".into(),
            escape("-q"),
            "--quiet".into(),
            escape("-x"),
            escape("-1"),
            escape("-c"),
            escape("-condor"),
            "b".into(),
        ];
        assert_eq!(normalized.args, expected.map(OsString::from));
        let m = cmd.try_get_matches_from(normalized.args).unwrap();
        assert_eq!(m.get_count("quiet"), 1);
        let plain: Vec<&String> = m.get_many("args").unwrap().collect();
        assert_eq!(plain, ["a", "b"]);
        let hyphen: Vec<&String> = m.get_many(HYPHEN_POSITIONAL).unwrap().collect();
        assert_eq!(hyphen, ["-q", "-x", "-1", "-c", "-condor"]);
    }

    #[test]
    fn declared_short_options_pass_to_clap() {
        let cmd = Command::new("t")
            .arg(
                Arg::new("verbose")
                    .short('v')
                    .long("verbose")
                    .action(ArgAction::Count),
            )
            .arg(
                Arg::new("version")
                    .long("version")
                    .action(ArgAction::SetTrue),
            )
            .arg(Arg::new("x").short('x').action(ArgAction::SetTrue));
        let spec = ArgSpec::DEFAULT;
        let cmd = prepare(cmd, &spec);
        let n = normalize(&cmd, &spec, ["t", "-x", "-v"]).unwrap();
        assert_eq!(n.args, ["t", "-x", "-v"].map(OsString::from));
        let n = normalize(&cmd, &spec, ["t", "-verb", "-vers"]).unwrap();
        assert_eq!(n.args, ["t", "--verbose", "--version"].map(OsString::from));
    }

    #[test]
    fn non_utf8_words_pass_through() {
        use std::os::unix::ffi::OsStringExt;
        let (cmd, spec) = queue_tool();
        let odd = OsString::from_vec(vec![b'-', 0xff]);
        let n = normalize(&cmd, &spec, [OsString::from("condor_q"), odd.clone()]).unwrap();
        assert_eq!(n.args[1], odd);
    }

    #[test]
    fn unique_prefix_lengths() {
        let (cmd, spec) = queue_tool();
        let all = candidates(&cmd, &spec);
        let min = |name: &str| all.iter().find(|c| c.name == name).unwrap().min;
        assert_eq!(min("constraint"), Some(1));
        assert_eq!(min("limit"), Some(2)); // "l" is also -long's
        assert_eq!(min("format"), Some(1));
        assert_eq!(min("help"), Some(2)); // "h" is also -hold's
        assert_eq!(min("long"), Some(1)); // from the table
    }

    #[test]
    fn negative_numbers() {
        for yes in ["-1", "-0.5", "-1.", "-1e5", "-1.5E3"] {
            assert!(is_negative_number(yes), "{yes}");
        }
        for no in [
            "-", "--", "-e5", "-.5", "-1e", "-1e-3", "-x", "1", "-1-2", "-1..2",
        ] {
            assert!(!is_negative_number(no), "{no}");
        }
    }

    #[test]
    #[should_panic(expected = "is in the prefix table but is not an option")]
    fn table_names_must_be_options() {
        static PREFIXES: &[Prefix] = &[Prefix::min("lnog", 1)];
        let spec = ArgSpec {
            prefixes: PREFIXES,
            unknown: Unknown::Error,
        };
        prepare(Command::new("t"), &spec);
    }
}
