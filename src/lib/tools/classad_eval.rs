//! `classad_eval`: evaluate ClassAd expressions in the context of a ClassAd built up on the
//! command line.
//!
//! HTCondor's `classad_eval` reads its arguments strictly left to right: options and
//! `<ad|expr|assignment>` arguments are freely intermixed and each takes effect where it stands
//! (`classad_eval 'x = y' 'x' -quiet 'y = 7' 'x'` echoes the context ad only before the first
//! `x`). So the request is the ordered list of [`EvalItem`]s, rebuilt from clap's indices. Options
//! must be spelled out exactly (HTCondor compares with `==`), and any other word that starts with
//! `-` is an expression (`-x`, `-1`).
//!
//! Exit status: 0 on success, 1 when the context ad cannot be updated, 255 for a bad command line.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{value_parser, Arg, ArgAction, Command};

use super::Tool;
use crate::classad::eval::eval_expr;
use crate::classad::parser::{parse_ad, parse_expr, parse_old_ad};
use crate::classad::unparse::{ad_to_string, value_to_string};
use crate::classad::ClassAd;
use crate::cli::args::{self, ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::error::CommandError;

pub const TOOL: Tool = Tool {
    name: "classad_eval",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        unknown: Unknown::Positional,
    },
    usage_status: 255,
    run,
};

/// HTCondor's classad_eval matches its options exactly.
const PREFIXES: &[Prefix] = &[
    Prefix::exact("quiet"),
    Prefix::exact("file"),
    Prefix::exact("my-file"),
    Prefix::exact("target-file"),
    Prefix::exact("debug"),
    Prefix::exact("help"),
];

/// One step of a `classad_eval` run, in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalItem {
    /// `-quiet`: stop printing the context ad before results from here on.
    Quiet,
    /// `-debug`: enable debug output from here on.
    Debug,
    /// `-file`/`-my-file`: replace the context ad with the first ad in this file.
    MyFile(PathBuf),
    /// `-target-file`: the target ad (for `TARGET.` references) is the first ad in this file.
    TargetFile(PathBuf),
    /// An ad (`[ a = 1 ]`) or assignment (`a = 1`) that updates the context ad, or an expression
    /// to evaluate and print.
    Arg(String),
}

pub fn command() -> Command {
    Command::new("classad_eval")
        .about("Evaluate ClassAd expressions in the context of ClassAds given on the command line")
        .long_about(
            "Evaluate ClassAd expressions in the context of ClassAds given on the command line.\n\n\
             Arguments and options are processed left to right. An ad ('[ a = 2; b = 3 ]') or \
             an assignment ('a = 2') updates the context ad; any other argument is an expression, \
             evaluated in that context and printed. Unless -quiet was given, the context ad is \
             printed before the first result after each update.",
        )
        .after_help(
            "Exit status: 0 on success, 1 if the context ad cannot be updated, \
             255 for an invalid option.",
        )
        .disable_help_flag(true)
        .arg(
            args::ordered_flag("quiet")
                .help("Don't print the context ad from here on"),
        )
        .arg(
            Arg::new("my_file")
                .long("file")
                .visible_alias("my-file")
                .value_name("PATH")
                .value_parser(value_parser!(PathBuf))
                .action(ArgAction::Append)
                .help("Replace the context ad with the first ad in this file"),
        )
        .arg(
            Arg::new("target_file")
                .long("target-file")
                .value_name("PATH")
                .value_parser(value_parser!(PathBuf))
                .action(ArgAction::Append)
                .help("Use the first ad in this file as the target ad"),
        )
        .arg(
            args::ordered_flag("debug")
                .help("Enable debug output"),
        )
        .arg(
            Arg::new("help")
                .long("help")
                .action(ArgAction::Help)
                .help("Print help and exit"),
        )
        .arg(
            Arg::new("args")
                .value_name("ad|expr|assignment")
                .action(ArgAction::Append)
                .help("A ClassAd or assignment that updates the context ad, or an expression to evaluate"),
        )
}

/// The run's steps, in command-line order.
pub fn items(invocation: &Invocation) -> Vec<EvalItem> {
    let mut items: Vec<(usize, EvalItem)> = Vec::new();
    items.extend(
        invocation
            .occurrences("quiet")
            .into_iter()
            .map(|i| (i, EvalItem::Quiet)),
    );
    items.extend(
        invocation
            .occurrences("debug")
            .into_iter()
            .map(|i| (i, EvalItem::Debug)),
    );
    items.extend(
        invocation
            .indexed::<PathBuf>("my_file")
            .into_iter()
            .map(|(i, path)| (i, EvalItem::MyFile(path))),
    );
    items.extend(
        invocation
            .indexed::<PathBuf>("target_file")
            .into_iter()
            .map(|(i, path)| (i, EvalItem::TargetFile(path))),
    );
    items.extend(
        invocation
            .indexed::<String>("args")
            .into_iter()
            .map(|(i, text)| (i, EvalItem::Arg(text))),
    );
    items.sort_by_key(|(index, _)| *index);
    items.into_iter().map(|(_, item)| item).collect()
}

fn run(
    invocation: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    evaluate(&items(invocation), out, err)
}

/// An argument as an ad: `[ a = 1 ]`, or the inside of one (`a = 1; b = 2`).
fn arg_as_ad(text: &str) -> Option<ClassAd> {
    parse_ad(text)
        .or_else(|_| parse_ad(&format!("[{text}]")))
        .ok()
}

/// A file's first ad: new syntax (also as `condor_q -long:new` wraps it in
/// `{ ... }`), old syntax (`condor_q -long`), or JSON.
fn read_ad_file(path: &Path) -> Result<ClassAd, CommandError> {
    let unable = || {
        CommandError::failed(
            1,
            format!("Unable to turn file '{}' into a ClassAd.", path.display()),
        )
    };
    let text = std::fs::read_to_string(path).map_err(|_| unable())?;
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .filter(|t| t.trim_start().starts_with('['))
        .unwrap_or(trimmed);
    if inner.starts_with('[') {
        let mut p = crate::classad::parser::Parser::new(inner, crate::classad::lexer::Dialect::New);
        if let Ok(ad) = p.classad() {
            return Ok(ad);
        }
    }
    if let Some(ad) = arg_as_ad(trimmed) {
        return Ok(ad);
    }
    if trimmed.starts_with('{') || trimmed.starts_with("[\n{") {
        if let Ok(mut ads) = crate::classad::json::parse_json_ads(trimmed) {
            if !ads.is_empty() {
                return Ok(ads.swap_remove(0));
            }
        }
    }
    let first_ad = trimmed.split("\n\n").next().unwrap_or("");
    match parse_old_ad(first_ad) {
        Ok(ad) if !ad.is_empty() => Ok(ad),
        _ => Err(unable()),
    }
}

/// Runs `classad_eval`'s steps in order.
fn evaluate(
    items: &[EvalItem],
    out: &mut dyn Write,
    _err: &mut dyn Write,
) -> Result<(), CommandError> {
    let mut my = ClassAd::new();
    let mut target: Option<ClassAd> = None;
    let mut quiet = false;
    let mut updated = true;
    for item in items {
        match item {
            EvalItem::Quiet => quiet = true,
            EvalItem::Debug => {}
            EvalItem::MyFile(path) => my = read_ad_file(path)?,
            EvalItem::TargetFile(path) => target = Some(read_ad_file(path)?),
            EvalItem::Arg(text) => {
                if let Some(ad) = arg_as_ad(text) {
                    my.update(&ad);
                    updated = true;
                    continue;
                }
                if updated {
                    updated = false;
                    if !quiet {
                        writeln!(out, "{}", ad_to_string(&my))?;
                    }
                }
                let expr = parse_expr(text).map_err(|e| {
                    CommandError::failed(
                        1,
                        format!("Unable to turn '{text}' into a ClassAd or an expression: {e}."),
                    )
                })?;
                let value = eval_expr(&expr, Some(&my), target.as_ref()).map_err(|e| {
                    CommandError::failed(1, format!("{e} '{text}' (circular or too deep)"))
                })?;
                writeln!(out, "{}", value_to_string(&value))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use EvalItem::*;

    fn parse(args: &[&str]) -> Result<Vec<EvalItem>, CommandError> {
        let argv = std::iter::once("classad_eval").chain(args.iter().copied());
        TOOL.parse(argv).map(|invocation| items(&invocation))
    }

    fn arg(text: &str) -> EvalItem {
        Arg(text.to_owned())
    }

    #[test]
    fn items_keep_command_line_order() {
        assert_eq!(
            parse(&[
                "x = y",
                "x",
                "-quiet",
                "y = 7",
                "x",
                "[ x = 6; z = \"foo\"; ]",
                "x"
            ])
            .unwrap(),
            [
                arg("x = y"),
                arg("x"),
                Quiet,
                arg("y = 7"),
                arg("x"),
                arg("[ x = 6; z = \"foo\"; ]"),
                arg("x"),
            ]
        );
    }

    #[test]
    fn files_and_flags_in_place() {
        assert_eq!(
            parse(&[
                "-debug",
                "a = 1",
                "-file",
                "job.ad",
                "MY.x",
                "-target-file",
                "slot.ad",
                "-my-file",
                "other.ad",
                "-quiet",
                "TARGET.y",
                "-quiet",
            ])
            .unwrap(),
            [
                Debug,
                arg("a = 1"),
                MyFile("job.ad".into()),
                arg("MY.x"),
                TargetFile("slot.ad".into()),
                MyFile("other.ad".into()),
                Quiet,
                arg("TARGET.y"),
                Quiet,
            ]
        );
    }

    #[test]
    fn dash_words_are_expressions() {
        assert_eq!(
            parse(&["-x", "-1", "a", "-q", "-quietly", "--x", "-"]).unwrap(),
            [
                arg("-x"),
                arg("-1"),
                arg("a"),
                arg("-q"),
                arg("-quietly"),
                arg("--x"),
                arg("-"),
            ]
        );
    }

    #[test]
    fn option_values_may_look_like_options() {
        assert_eq!(
            parse(&["-file", "-quiet", "-target-file", "-"]).unwrap(),
            [MyFile("-quiet".into()), TargetFile("-".into())]
        );
    }

    #[test]
    fn missing_file_is_a_usage_error() {
        let err = parse(&["a", "-file"]).unwrap_err();
        assert_eq!(err.to_string(), "-file requires an argument");
        assert_eq!(err.exit_status(TOOL.usage_status), 255);
    }

    #[test]
    fn no_arguments_is_fine() {
        assert_eq!(parse(&[]).unwrap(), []);
    }

    #[test]
    fn help_is_displayed_with_status_0() {
        for word in ["-help", "--help"] {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let status = TOOL.execute(["classad_eval", "a", word], &mut out, &mut err);
            assert_eq!(status, 0, "{word}");
            let out = String::from_utf8(out).unwrap();
            assert!(out.contains("Usage: classad_eval"), "{out}");
            assert!(err.is_empty());
        }
    }
}
