//! HTCondor's left-to-right command lines, for tools that read their arguments as HTCondor's
//! `main()` loops do (`condor_status`, `condor_wait`): each option may take the words after
//! it as values whatever they look like, and report its own errors in its own words.
//!
//! Such a tool declares all its options as flags ([`ordered_flag`]) and has one positional
//! argument that takes every other word, unknown dash words included
//! ([`Unknown::Positional`](crate::cli::args::Unknown::Positional)). The shared normaliser then
//! turns each word of the command line into exactly one word for clap, so [`Argv`] can put
//! them back in order: one [`Token`] per word, an option (by its id, with its qualifier) or a
//! plain word.

use clap::{Arg, ArgAction};

use crate::cli::args::{ordered_flag, Prefix};
use crate::cli::Invocation;

/// One word of the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// An option the tool declares, by its clap id, with its `:qualifier`.
    Opt {
        id: &'static str,
        qualifier: Option<String>,
    },
    /// Any other word: a value, a name, or a dash word that names no option.
    Word(String),
}

impl Token {
    /// The word as the user could have typed it: an option as `-name[:qualifier]`.
    pub fn text(&self) -> String {
        match self {
            Token::Opt { id, qualifier } => match qualifier {
                Some(q) => format!("-{id}:{q}"),
                None => format!("-{id}"),
            },
            Token::Word(w) => w.clone(),
        }
    }

    /// Whether the word starts with `-` (an option always does), as HTCondor's lists of values
    /// (`-af A B ...`) end at the first such word.
    pub fn starts_with_dash(&self) -> bool {
        match self {
            Token::Opt { .. } => true,
            Token::Word(w) => w.starts_with('-'),
        }
    }
}

/// The command line as tokens, `tokens[i]` being `argv[i + 1]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Argv {
    pub tokens: Vec<Token>,
}

impl Argv {
    /// Puts the options (declared with [`flag_option`], each listed in the tool's prefix table
    /// under its id) and the positional argument `words` back in command-line order.
    pub fn from_invocation(inv: &Invocation, options: &[Prefix], words: &str) -> Argv {
        let mut indexed: Vec<(usize, Token)> = Vec::new();
        for id in options.iter().map(|p| p.name) {
            let quals = inv.qualifiers(id);
            for (k, at) in inv.occurrences(id).into_iter().enumerate() {
                let qualifier = quals.get(k).copied().flatten().map(str::to_owned);
                indexed.push((at, Token::Opt { id, qualifier }));
            }
        }
        for (at, w) in inv.indexed::<String>(words) {
            indexed.push((at, Token::Word(w)));
        }
        indexed.sort_by_key(|(at, _)| *at);
        Argv {
            tokens: indexed.into_iter().map(|(_, t)| t).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The token at `i`, if any.
    pub fn get(&self, i: usize) -> Option<&Token> {
        self.tokens.get(i)
    }

    /// The text of the token at `i`, if any.
    pub fn text(&self, i: usize) -> Option<String> {
        self.tokens.get(i).map(Token::text)
    }
}

/// An option of a left-to-right tool: a flag whose every occurrence keeps its place, with its
/// help text (which names the values it takes).
pub fn flag_option(id: &'static str, help: &'static str) -> Arg {
    ordered_flag(id).help(help)
}

/// The positional argument that takes every other word.
pub fn words(id: &'static str, name: &'static str, help: &'static str) -> Arg {
    Arg::new(id)
        .value_name(name)
        .action(ArgAction::Append)
        .help(help)
}

pub use crate::classad::cnum::atoi;

/// HTCondor's `match_prefix(a, b)`: the shorter of the two words is a prefix of the other
/// (an empty word matches every name).
pub fn match_prefix(a: &str, b: &str) -> bool {
    let n = a.len().min(b.len());
    a.as_bytes()[..n] == b.as_bytes()[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoi_as_c() {
        assert_eq!(atoi("42"), 42);
        assert_eq!(atoi("  -7x"), -7);
        assert_eq!(atoi("+3"), 3);
        assert_eq!(atoi("x"), 0);
        assert_eq!(atoi(""), 0);
    }

    #[test]
    fn tokens_keep_their_order() {
        use crate::cli::args::{ArgSpec, Unknown};
        static PREFIXES: &[Prefix] = &[Prefix::min("wait", 4), Prefix::min("echo", 2).qualified()];
        let cmd = clap::Command::new("t")
            .arg(flag_option("wait", "w"))
            .arg(flag_option("echo", "e"))
            .arg(words("w", "W", "words"));
        let spec = ArgSpec {
            prefixes: PREFIXES,
            unknown: Unknown::Positional,
        };
        let inv = Invocation::parse(
            cmd,
            &spec,
            ["t", "log", "-wait", "-5", "-ec:XML", "-x", "1.0"],
        )
        .unwrap();
        let argv = Argv::from_invocation(&inv, PREFIXES, "w");
        let texts: Vec<String> = argv.tokens.iter().map(Token::text).collect();
        assert_eq!(texts, ["log", "-wait", "-5", "-echo:XML", "-x", "1.0"]);
        assert!(matches!(&argv.tokens[1], Token::Opt { id, .. } if *id == "wait"));
        assert_eq!(argv.tokens[4], Token::Word("-x".into()));
    }
}
