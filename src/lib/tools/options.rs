//! Option groups several tools share, defined once and added to each tool's command:
//! job selection (job ids and owners as positional words, `-constraint`) and output formats
//! (`-long[:form]`, `-json`, `-jsonl`, `-xml`, `-attributes`, `-af[:qualifiers] attr...`,
//! `-format fmt attr`, `-wide[:N]`), and the typed requests they resolve into.
//!
//! `-af` takes every following word up to the next option, so its attributes arrive among
//! the positional words; [`OutputOptions::from_invocation`] puts each word back where it
//! belongs by its position on the command line (a word starting with `-` ends an `-af`
//! list, and a lone `-` is eaten, as in HTCondor). Tools that take their unknown dash words
//! as positional words (to report them in HTCondor's words) find them among the rest.

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, Command};

use crate::classad::cnum::atoi;
use crate::cli::args::ordered_flag;
use crate::cli::Invocation;
use crate::output::ads::AdFormat;
use crate::output::autoformat::FormatArg;

/// The positional argument holding job ids, owners (and `-af` attributes).
pub const WORDS: &str = "words";

/// A flag (set or not).
pub fn flag(id: &'static str, help: &'static str) -> Arg {
    Arg::new(id).long(id).action(ArgAction::SetTrue).help(help)
}

/// An option taking one value, repeatable.
pub fn value(id: &'static str, name: &'static str, help: &'static str) -> Arg {
    Arg::new(id)
        .long(id)
        .value_name(name)
        .action(ArgAction::Append)
        .help(help)
}

/// `-print-format FILE` (the last one given counts); `what` is what the tool shows.
pub fn print_format(what: &'static str) -> Arg {
    Arg::new("print-format")
        .long("print-format")
        .value_name("FILE")
        .action(ArgAction::Set)
        .help(what)
}

/// `-name SCHEDD` and `-pool HOST`, as the job tools take them.
pub fn schedd_and_pool() -> [Arg; 2] {
    [
        value(
            "name",
            "SCHEDD",
            "Connect to the given schedd (only the local schedd exists)",
        ),
        value(
            "pool",
            "HOST",
            "Use the given central manager to find daemons (this host's pool)",
        ),
    ]
}

/// Job ids, owners and `-constraint`.
pub fn job_selection(cmd: Command, words_help: &'static str) -> Command {
    cmd.arg(value(
        "constraint",
        "EXPR",
        "Only jobs for which the ClassAd expression is true",
    ))
    .arg(
        Arg::new(WORDS)
            .value_name("JOB|OWNER")
            .action(ArgAction::Append)
            .help(words_help),
    )
}

/// `-long`, `-json`, `-jsonl`, `-xml`, `-attributes`, `-af`, `-format`, `-wide`.
pub fn output_formats(cmd: Command) -> Command {
    cmd.arg(ordered_flag("long").help("Print whole ads as `Name = value` lines (-long:json, ...)"))
        .arg(ordered_flag("json").help("Print whole ads as a JSON list"))
        .arg(ordered_flag("jsonl").help("Print whole ads as JSON, one per line"))
        .arg(ordered_flag("xml").help("Print whole ads as XML"))
        .arg(
            Arg::new("attributes")
                .long("attributes")
                .value_name("ATTR,...")
                .action(ArgAction::Append)
                .help("Only these attributes (with -long, -json, -xml)"),
        )
        .arg(
            ordered_flag("autoformat").visible_alias("af").help(
                "Print the given attributes or expressions, one line per ad (-af:jlhVrTYtng,)",
            ),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_names(["FMT", "ATTR"])
                .num_args(2)
                .action(ArgAction::Append)
                .help("Print ATTR with the printf-style FMT"),
        )
        .arg(
            ordered_flag("wide")
                .help("Do not truncate output to the terminal width (-wide:N: to N columns)"),
        )
}

/// Where each option and positional word sits on the command line.
fn option_positions(inv: &Invocation) -> Vec<usize> {
    let m = &inv.matches;
    let mut positions = Vec::new();
    for id in m.ids() {
        let id = id.as_str();
        if id == WORDS || m.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        if let Some(indices) = m.indices_of(id) {
            positions.extend(indices);
        }
    }
    positions.sort_unstable();
    positions
}

/// What the output options ask for.
#[derive(Clone, Debug, Default)]
pub struct OutputOptions {
    /// `-long`, `-json`, `-jsonl`, `-xml` (the last given wins, as in HTCondor).
    pub ads: Option<AdFormat>,
    /// `-long:nosort`.
    pub nosort: bool,
    /// `-af` and `-format`, in command-line order.
    pub formats: Vec<FormatArg>,
    /// `-attributes`.
    pub attributes: Vec<String>,
    /// `-wide`: `Some(None)`, `-wide:N`: `Some(Some(N))`, N read as C's `atoi` reads it (0
    /// when it is not a positive number).
    pub wide: Option<Option<usize>>,
    /// An `-af` with no attribute after it.
    pub empty_autoformat: bool,
    /// Both XML and JSON were asked for.
    pub xml_and_json: bool,
}

impl OutputOptions {
    /// Resolves the output options and splits the positional words: returns the options
    /// and the words that are not `-af` attributes, in order.
    pub fn from_invocation(inv: &Invocation) -> (OutputOptions, Vec<String>) {
        let m = &inv.matches;
        let mut out = OutputOptions::default();
        let options = option_positions(inv);
        let words = inv.indexed::<String>(WORDS);
        let next_option_after = |i: usize| options.iter().copied().find(|&o| o > i);

        // Output forms, by position: the last one wins.
        let mut forms: Vec<(usize, AdFormat, Option<String>)> = Vec::new();
        let long_quals = inv.qualifiers("long");
        for (k, i) in inv.occurrences("long").into_iter().enumerate() {
            let q = long_quals.get(k).copied().flatten().map(str::to_owned);
            forms.push((i, AdFormat::Long, q));
        }
        for (id, f) in [
            ("json", AdFormat::Json),
            ("jsonl", AdFormat::JsonLines),
            ("xml", AdFormat::Xml),
        ] {
            for i in inv.occurrences(id) {
                forms.push((i, f, None));
            }
        }
        forms.sort_by_key(|(i, _, _)| *i);
        let mut format = None;
        for (_, f, q) in forms {
            let mut f = match (f, format) {
                // -long keeps a form chosen earlier (-json -long prints JSON).
                (AdFormat::Long, Some(prev)) => prev,
                (f, _) => f,
            };
            if matches!(
                (f, format),
                (AdFormat::Xml, Some(AdFormat::Json | AdFormat::JsonLines))
            ) || matches!(
                (f, format),
                (AdFormat::Json | AdFormat::JsonLines, Some(AdFormat::Xml))
            ) {
                out.xml_and_json = true;
            }
            for opt in q.as_deref().unwrap_or("").split(',') {
                if opt == "nosort" {
                    out.nosort = true;
                } else if let Some(named) = AdFormat::from_name(opt) {
                    f = named;
                }
            }
            format = Some(f);
        }
        out.ads = format;

        // -af lists and -format pairs, in order.
        let mut af_words: Vec<usize> = Vec::new();
        let af_quals = inv.qualifiers("autoformat");
        let mut formats: Vec<(usize, FormatArg)> = Vec::new();
        for (k, at) in inv.occurrences("autoformat").into_iter().enumerate() {
            let end = next_option_after(at).unwrap_or(usize::MAX);
            let mut attrs = Vec::new();
            for (i, w) in &words {
                if *i > at && *i < end {
                    // A word starting with `-` ends the list; a lone `-` is eaten.
                    if w.starts_with('-') {
                        if w == "-" {
                            af_words.push(*i);
                        }
                        break;
                    }
                    af_words.push(*i);
                    attrs.push(w.clone());
                }
            }
            if attrs.is_empty() {
                out.empty_autoformat = true;
            }
            formats.push((
                at,
                FormatArg::AutoFormat {
                    qualifiers: af_quals.get(k).copied().flatten().map(str::to_owned),
                    attrs,
                },
            ));
        }
        if let (Some(indices), Some(values)) =
            (m.indices_of("format"), m.get_many::<String>("format"))
        {
            let pairs: Vec<(usize, String)> = indices.zip(values.cloned()).collect();
            for pair in pairs.chunks(2) {
                if let [(i, format), (_, attr)] = pair {
                    formats.push((
                        *i,
                        FormatArg::Format {
                            format: format.clone(),
                            attr: attr.clone(),
                        },
                    ));
                }
            }
        }
        formats.sort_by_key(|(i, _)| *i);
        out.formats = formats.into_iter().map(|(_, f)| f).collect();

        for list in m.get_many::<String>("attributes").into_iter().flatten() {
            out.attributes.extend(
                list.split([',', ' ', '\t'])
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            );
        }
        if !inv.occurrences("wide").is_empty() {
            out.wide = Some(
                inv.qualifier("wide")
                    .map(|q| usize::try_from(atoi(q)).unwrap_or(0)),
            );
        }
        let rest = words
            .into_iter()
            .filter(|(i, _)| !af_words.contains(i))
            .map(|(_, w)| w)
            .collect();
        (out, rest)
    }
}

/// The `-constraint` values, in order.
pub fn constraints(inv: &Invocation) -> Vec<String> {
    inv.matches
        .get_many::<String>("constraint")
        .map(|v| v.cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared options as a tool that has them all parses them (with condor_q's prefix
    /// rules: `-long` takes qualifiers).
    fn parse(args: &[&str]) -> (OutputOptions, Vec<String>, Vec<String>) {
        use crate::cli::args::{ArgSpec, Prefix, Unknown};
        static PREFIXES: &[Prefix] = &[
            Prefix::min("long", 1).qualified(),
            Prefix::min("xml", 3),
            Prefix::min("jsonl", 5),
            Prefix::min("json", 4),
            Prefix::min("wide", 1).qualified(),
            Prefix::min("attributes", 2),
            Prefix::min("format", 1),
            Prefix::min("af", 2).qualified(),
            Prefix::min("autoformat", 5).qualified(),
            Prefix::min("constraint", 1),
        ];
        let spec = ArgSpec {
            prefixes: PREFIXES,
            unknown: Unknown::Positional,
        };
        let cmd = output_formats(job_selection(Command::new("t"), "jobs"));
        let argv = std::iter::once("t").chain(args.iter().copied());
        let inv = Invocation::parse(cmd, &spec, argv).expect("a valid command line");
        let (output, words) = OutputOptions::from_invocation(&inv);
        (output, words, constraints(&inv))
    }

    #[test]
    fn nothing_given() {
        let (o, words, cons) = parse(&[]);
        assert_eq!(o.ads, None);
        assert!(!o.nosort && !o.empty_autoformat && !o.xml_and_json);
        assert!(o.formats.is_empty() && o.attributes.is_empty() && o.wide.is_none());
        assert!(words.is_empty() && cons.is_empty());
    }

    #[test]
    fn ad_formats_the_last_wins() {
        assert_eq!(parse(&["-l"]).0.ads, Some(AdFormat::Long));
        assert_eq!(parse(&["-json"]).0.ads, Some(AdFormat::Json));
        assert_eq!(parse(&["-jsonl"]).0.ads, Some(AdFormat::JsonLines));
        assert_eq!(parse(&["-xml"]).0.ads, Some(AdFormat::Xml));
        assert_eq!(parse(&["-json", "-l"]).0.ads, Some(AdFormat::Json));
        let (o, ..) = parse(&["-xml", "-json"]);
        assert_eq!(o.ads, Some(AdFormat::Json));
        assert!(o.xml_and_json);
    }

    #[test]
    fn long_qualifiers() {
        let (o, ..) = parse(&["-long:nosort"]);
        assert_eq!(o.ads, Some(AdFormat::Long));
        assert!(o.nosort);
        assert_eq!(parse(&["-long:json"]).0.ads, Some(AdFormat::Json));
    }

    #[test]
    fn af_and_format_in_order() {
        let (o, words, _) = parse(&["1.0", "-format", "%d", "ClusterId", "-af:h", "A", "B", "-"]);
        assert_eq!(
            o.formats,
            [
                FormatArg::Format {
                    format: "%d".into(),
                    attr: "ClusterId".into()
                },
                FormatArg::AutoFormat {
                    qualifiers: Some("h".into()),
                    attrs: vec!["A".into(), "B".into()]
                },
            ]
        );
        assert_eq!(words, ["1.0"]);
        assert!(parse(&["-af"]).0.empty_autoformat);
        let (_, words, _) = parse(&["-af", "A", "-x", "B"]);
        assert_eq!(words, ["-x", "B"]);
    }

    #[test]
    fn attributes_and_wide() {
        let (o, ..) = parse(&["-attributes", "A,B C", "-attr", "D"]);
        assert_eq!(o.attributes, ["A", "B", "C", "D"]);
        assert_eq!(parse(&["-wide"]).0.wide, Some(None));
        assert_eq!(parse(&["-wide:80"]).0.wide, Some(Some(80)));
        assert_eq!(parse(&["-wide:120x"]).0.wide, Some(Some(120)));
        assert_eq!(parse(&["-wide:x"]).0.wide, Some(Some(0)));
        assert_eq!(parse(&["-wide:-5"]).0.wide, Some(Some(0)));
    }

    #[test]
    fn constraints_in_order() {
        let (.., cons) = parse(&["-constraint", "A", "-c", "B"]);
        assert_eq!(cons, ["A", "B"]);
    }
}
