//! Command-line plumbing shared by every tool: HTCondor's option syntax ([`args`]), the parsed
//! command line a tool's `run()` receives ([`Invocation`]), and the generated man pages and
//! shell completions ([`generate`]).

pub mod args;
pub mod examples;
pub mod generate;

use std::any::Any;
use std::ffi::OsString;

use clap::{ArgMatches, Command};

use crate::error::CommandError;
use args::{ArgSpec, HYPHEN_POSITIONAL};

/// A tool's command line after HTCondor's option syntax has been normalised and clap has parsed it.
///
/// Options are read from [`Invocation::matches`] as with any clap command, by argument id.
/// What clap cannot carry comes through here: qualifiers (`-af:jh`) with
/// [`Invocation::qualifier`], and the command-line order of options and positional arguments
/// (for tools like `classad_eval` that act left to right) with [`Invocation::indexed`] and
/// [`Invocation::occurrences`].
#[derive(Debug, Clone)]
pub struct Invocation {
    pub matches: ArgMatches,
    /// The words after the program name, as given.
    raw: Vec<OsString>,
    qualifiers: Vec<(String, Option<String>)>,
    /// The positional argument that dash words go to ([`args::Unknown::Positional`]).
    hyphen_positional: Option<String>,
}

impl Invocation {
    /// Normalises `argv` (`argv[0]` is the program name) and parses it with `cmd`.
    pub fn parse<I, T>(cmd: Command, spec: &ArgSpec, argv: I) -> Result<Self, CommandError>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        let cmd = args::prepare(cmd, spec);
        let argv: Vec<OsString> = argv.into_iter().map(Into::into).collect();
        let raw = argv.iter().skip(1).cloned().collect();
        let hyphen_positional = match spec.unknown {
            args::Unknown::Positional => cmd
                .get_positionals()
                .next()
                .map(|arg| arg.get_id().to_string()),
            args::Unknown::Error => None,
            args::Unknown::Verbatim => {
                // The tool reads the words itself: clap sees the program name alone.
                let matches = cmd.try_get_matches_from(argv.into_iter().take(1))?;
                return Ok(Invocation {
                    matches,
                    raw,
                    qualifiers: Vec::new(),
                    hyphen_positional: None,
                });
            }
        };
        let normalized =
            args::normalize(&cmd, spec, argv).map_err(|e| CommandError::Usage(e.to_string()))?;
        let matches = cmd.try_get_matches_from(normalized.args)?;
        Ok(Invocation {
            matches,
            raw,
            qualifiers: normalized.qualifiers,
            hyphen_positional,
        })
    }

    /// The words after the program name, exactly as given (what an
    /// [`args::Unknown::Verbatim`] tool reads).
    pub fn raw(&self) -> &[OsString] {
        &self.raw
    }

    /// [`Invocation::raw`] as text (what is not UTF-8 replaced, as C's `argv` is read).
    pub fn raw_strings(&self) -> Vec<String> {
        self.raw
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    /// The qualifier of the last occurrence of option `id` (`Some("jh")` for `-af:jh`,
    /// `Some("")` for `-af:`), `None` when that occurrence has none or the option is absent.
    /// Only options declared qualified in the tool's prefix table have qualifiers.
    pub fn qualifier(&self, id: &str) -> Option<&str> {
        self.qualifiers
            .iter()
            .rev()
            .find(|(option, _)| option == id)
            .and_then(|(_, qualifier)| qualifier.as_deref())
    }

    /// The qualifiers of every occurrence of option `id`, in command-line order.
    pub fn qualifiers(&self, id: &str) -> Vec<Option<&str>> {
        self.qualifiers
            .iter()
            .filter(|(option, _)| option == id)
            .map(|(_, qualifier)| qualifier.as_deref())
            .collect()
    }

    /// The values of argument `id` with their clap indices, which order all arguments as they
    /// appeared on the command line. For the positional argument of a tool whose dash words are
    /// positional, this includes the dash words (see [`args::Unknown::Positional`]).
    ///
    /// # Panics
    /// If `T` is not the argument's value type (a mistake in the tool, as with `get_many`).
    pub fn indexed<T: Any + Clone + Send + Sync + 'static>(&self, id: &str) -> Vec<(usize, T)> {
        let mut values = indexed_values::<T>(&self.matches, id);
        if self.hyphen_positional.as_deref() == Some(id) {
            values.extend(indexed_values::<T>(&self.matches, HYPHEN_POSITIONAL));
            values.sort_by_key(|(index, _)| *index);
        }
        values
    }

    /// The clap indices of each occurrence of flag `id`, declared with [`args::ordered_flag`].
    pub fn occurrences(&self, id: &str) -> Vec<usize> {
        self.matches
            .indices_of(id)
            .map(Iterator::collect)
            .unwrap_or_default()
    }
}

fn indexed_values<T: Any + Clone + Send + Sync + 'static>(
    matches: &ArgMatches,
    id: &str,
) -> Vec<(usize, T)> {
    let (Some(indices), Some(values)) = (matches.indices_of(id), matches.get_many::<T>(id)) else {
        return Vec::new();
    };
    indices.zip(values.cloned()).collect()
}

#[cfg(test)]
mod tests {
    use clap::{Arg, ArgAction};

    use super::args::{ordered_flag, Prefix, Unknown};
    use super::*;

    fn condor_q_like() -> (Command, ArgSpec) {
        static PREFIXES: &[Prefix] = &[
            Prefix::min("long", 1).qualified(),
            Prefix::min("af", 2).qualified(),
            Prefix::min("autoformat", 5).qualified(),
        ];
        let cmd = Command::new("condor_q")
            .arg(ordered_flag("long"))
            .arg(ordered_flag("autoformat").visible_alias("af"))
            .arg(Arg::new("constraint").long("constraint"))
            .arg(Arg::new("attrs").action(ArgAction::Append));
        let spec = ArgSpec {
            prefixes: PREFIXES,
            unknown: Unknown::Error,
        };
        (cmd, spec)
    }

    #[test]
    fn qualifiers_reach_the_tool() {
        let (cmd, spec) = condor_q_like();
        let argv = ["condor_q", "-af:jh", "Owner", "-l", "-long:nosort"];
        let invocation = Invocation::parse(cmd, &spec, argv).unwrap();
        assert_eq!(invocation.qualifier("autoformat"), Some("jh"));
        assert_eq!(invocation.qualifier("long"), Some("nosort"));
        assert_eq!(invocation.qualifiers("long"), [None, Some("nosort")]);
        assert_eq!(invocation.qualifier("constraint"), None);
        assert_eq!(invocation.occurrences("long").len(), 2);
    }

    #[test]
    fn indices_order_options_and_positionals() {
        let (cmd, spec) = condor_q_like();
        let argv = ["condor_q", "A", "-af", "B", "-const", "-1 < x", "C"];
        let invocation = Invocation::parse(cmd, &spec, argv).unwrap();
        let attrs = invocation.indexed::<String>("attrs");
        let af = invocation.occurrences("autoformat");
        let constraint = invocation.indexed::<String>("constraint");
        assert_eq!(constraint[0].1, "-1 < x");
        let (a, b, c) = (attrs[0].0, attrs[1].0, attrs[2].0);
        assert!(a < af[0] && af[0] < b && b < constraint[0].0 && constraint[0].0 < c);
    }

    #[test]
    fn dash_words_rejoin_the_positional() {
        let cmd = Command::new("t")
            .arg(ordered_flag("quiet"))
            .arg(Arg::new("args").action(ArgAction::Append));
        let spec = ArgSpec {
            prefixes: &[],
            unknown: Unknown::Positional,
        };
        let argv = ["t", "a", "-b", "-quiet", "-1", "c"];
        let invocation = Invocation::parse(cmd, &spec, argv).unwrap();
        let words: Vec<String> = invocation
            .indexed::<String>("args")
            .into_iter()
            .map(|(_, word)| word)
            .collect();
        assert_eq!(words, ["a", "-b", "-1", "c"]);
        assert_eq!(invocation.occurrences("quiet").len(), 1);
    }

    #[test]
    fn verbatim_tools_get_every_word() {
        let cmd = Command::new("t").arg(
            Arg::new("Force")
                .long("Force")
                .short('f')
                .action(ArgAction::SetTrue),
        );
        let spec = ArgSpec {
            prefixes: &[],
            unknown: Unknown::Verbatim,
        };
        let argv = ["t", "-fo", "--", "-Force", "--help", "x"];
        let invocation = Invocation::parse(cmd, &spec, argv).unwrap();
        let raw: Vec<&str> = invocation
            .raw()
            .iter()
            .map(|w| w.to_str().unwrap())
            .collect();
        assert_eq!(raw, &argv[1..]);
        assert!(!invocation.matches.get_flag("Force"));
    }

    #[test]
    fn normaliser_errors_are_usage_errors() {
        let (cmd, spec) = condor_q_like();
        let err = Invocation::parse(cmd, &spec, ["condor_q", "-bogus"]).unwrap_err();
        assert!(matches!(&err, CommandError::Usage(m) if m == "unknown option -bogus"));
    }
}
