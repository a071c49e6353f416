//! `condor_dag_checker`: checks DAG files without running them, as the tool HTCondor ships
//! from its 24 feature series (src/condor_dagman/condor_dag_checker.cpp) does: every file is
//! read to its end whatever it finds, and its issues are listed (`Detected N issue(s) in
//! <file>:` then `\t* <file>:<line> <what>`), or its shape is printed (`-Statistics`, as an
//! ad) or both as JSON (`-json`).
//!
//! condorlite checks with condor_dagman's own parser, so an issue says what condor_dagman would
//! say, without its `ERROR: <file> (line N):` frame; and it also reports nodes whose submit
//! file is missing, which HTCondor's checker leaves to the run. Exit status: 0 when every file
//! is clean, 1 when one has an issue or a cycle, 2 for a bad command line.

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::classad::ast::Expr;
use crate::classad::unparse::{expr_to_old_string, json_ad};
use crate::classad::value::Value;
use crate::classad::ClassAd;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::config::Config;
use crate::dagman::check::{self, Issue};
use crate::error::CommandError;

pub const TOOL: Tool = Tool {
    name: "condor_dag_checker",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // The options are matched here, as the checker's main() matches them.
        unknown: Unknown::Verbatim,
    },
    usage_status: EXIT_ERROR,
    run,
};

/// A command line the tool cannot act on.
const EXIT_ERROR: u8 = 2;

pub fn command() -> Command {
    let flag = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    Command::new("condor_dag_checker")
        .about("Check DAG files without running them")
        .long_about(
            "Verify that the DAG files given will be parsed and processed successfully, and \
             list the issues found in each: what condor_dagman would refuse (with the file \
             and line), a cycle, a node whose submit file is missing. -Statistics prints each \
             DAG's shape instead (nodes by kind, arcs, splices, height and width by depth); \
             -json prints both as JSON.\n\nOptions take one dash or more, in any case, and \
             may be shortened: -use, -allow, -nojoin, -join, -json, -stat, -h.",
        )
        .after_help(
            "Exit status: 0 when every DAG is clean, 1 when one has an issue or a cycle, 2 \
             for a bad command line.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("help", "Print tool usage"))
        .arg(flag(
            "AllowIllegalChars",
            "Allow node names to contain illegal characters [+]",
        ))
        .arg(flag("json", "Print results in JSON format"))
        .arg(flag("JoinNodes", "Create join nodes (the default)"))
        .arg(flag("NoJoinNodes", "Do not create join nodes"))
        .arg(flag("Statistics", "Print statistics about each parsed DAG"))
        .arg(flag(
            "UseDagDir",
            "Change into each DAG file's directory before parsing it",
        ))
        .arg(
            Arg::new("dag_files")
                .value_name("DAG_FILE")
                .action(ArgAction::Append)
                .help("The DAG files to check"),
        )
}

fn usage() -> &'static str {
    "Usage: condor_dag_checker [options] <DAG File> [<DAG File> ...]
       Verify provided DAG file(s) will be parsed/processed
       successfully, and display any issues discovered in
       the provided DAG file(s).

Options:
\t-h/-help                Print Tool Usage

\t-AllowIllegalChars      Allow node names to contain illegal characters [+]
\t-json                   Print Results in JSON Format
\t-[No]JoinNodes          Enable/Disable creating join nodes (Default enabled)
\t-Statistics             Print statistics about parsed DAG
\t-UseDagDir              Change into DAG file directory prior to parsing
"
}

/// How the results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Printer {
    Issues,
    Json,
    Statistics,
}

/// Whether `word` (after its dashes) names option `name`: at least `min` characters of it,
/// in any case.
fn matches(word: &str, name: &str, min: usize) -> bool {
    let w = word.trim_start_matches('-').to_ascii_lowercase();
    let n = name.to_ascii_lowercase();
    w.len() >= min && n.starts_with(&w)
}

/// What the command line asks for.
struct Request {
    files: Vec<String>,
    printer: Printer,
    use_dag_dir: bool,
    allow_illegal_chars: Option<bool>,
    join_nodes: Option<bool>,
}

/// Reads the command line as the checker's main() does: the first matching option in its
/// order, then a dash word is an unknown option and any other word a DAG file.
fn request(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> Result<Request, u8> {
    let mut r = Request {
        files: Vec::new(),
        printer: Printer::Issues,
        use_dag_dir: false,
        allow_illegal_chars: None,
        join_nodes: None,
    };
    let mut style: Option<&str> = None;
    let refuse = |out: &mut dyn Write| {
        let _ = out.write_all(usage().as_bytes());
        EXIT_ERROR
    };
    for word in args {
        if word.starts_with('-') && word.trim_start_matches('-').is_empty() {
            let _ = writeln!(err, "ERROR: Invalid option '{word}' provided");
            return Err(refuse(out));
        }
        let printer = if !word.starts_with('-') {
            r.files.push(word.clone());
            continue;
        } else if matches(word, "help", 1) {
            let _ = out.write_all(usage().as_bytes());
            return Err(0);
        } else if matches(word, "UseDagDir", 3) {
            r.use_dag_dir = true;
            continue;
        } else if matches(word, "AllowIllegalChars", 5) {
            r.allow_illegal_chars = Some(true);
            continue;
        } else if matches(word, "NoJoinNodes", 6) {
            r.join_nodes = Some(false);
            continue;
        } else if matches(word, "JoinNodes", 4) {
            r.join_nodes = Some(true);
            continue;
        } else if matches(word, "JSON", 4) {
            Printer::Json
        } else if matches(word, "statistics", 4) {
            Printer::Statistics
        } else {
            let _ = writeln!(err, "ERROR: Unknown command line option '{word}'");
            return Err(refuse(out));
        };
        if r.printer != Printer::Issues && r.printer != printer {
            let _ = writeln!(
                err,
                "ERROR: Multiple print styles specified: {} and {word}\n",
                style.unwrap_or_default()
            );
            return Err(refuse(out));
        }
        style.get_or_insert(word);
        r.printer = printer;
    }
    if r.files.is_empty() {
        let _ = writeln!(err, "ERROR: No DAG file(s) provided for linting.");
        return Err(refuse(out));
    }
    Ok(r)
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let args = inv.raw_strings();
    let r = match request(&args, out, err) {
        Ok(r) => r,
        Err(0) => return Ok(()),
        Err(code) => return Err(CommandError::Exit(code)),
    };
    let config = Config::load().map_err(|e| CommandError::failed(EXIT_ERROR, e.to_string()))?;
    let cwd = std::env::current_dir()?;
    let mut opts = check::parse_options(&config, &cwd, r.use_dag_dir);
    if let Some(allow) = r.allow_illegal_chars {
        opts.allow_illegal_chars = allow;
    }
    if let Some(join) = r.join_nodes {
        opts.join_nodes = join;
    }

    let mut failed = false;
    if r.printer == Printer::Json {
        writeln!(out, "[")?;
    }
    for (i, file) in r.files.iter().enumerate() {
        let report = check::check_file(file, opts.clone());
        let stats = check::statistics(&report.dag);
        let cyclic = stats.lookup("IsCyclic").is_some();
        failed |= cyclic || !report.issues.is_empty();
        match r.printer {
            Printer::Issues => print_issues(out, file, report.issues, &stats)?,
            Printer::Statistics => {
                writeln!(out, "=== {file} statistics ===")?;
                // fPrintAd: attributes in byte order, old syntax.
                let mut attrs: Vec<(&str, &Expr)> = stats.iter().collect();
                attrs.sort_by(|a, b| a.0.cmp(b.0));
                for (name, expr) in attrs {
                    writeln!(out, "{name} = {}", expr_to_old_string(expr))?;
                }
                writeln!(out)?;
            }
            Printer::Json => {
                let ad = json_result(file, stats, &report.issues);
                let mut text = String::new();
                json_ad(&mut text, &ad, 0, false);
                write!(out, "{text}")?;
                if i + 1 < r.files.len() {
                    write!(out, ",")?;
                }
                writeln!(out)?;
            }
        }
    }
    if r.printer == Printer::Json {
        writeln!(out, "]")?;
    }
    if failed {
        return Err(CommandError::Exit(1));
    }
    Ok(())
}

/// The default layout: nothing for a clean DAG.
fn print_issues(
    out: &mut dyn Write,
    file: &str,
    mut issues: Vec<Issue>,
    stats: &ClassAd,
) -> std::io::Result<()> {
    if stats.lookup("IsCyclic").is_some() {
        let cycle = match stats.lookup("DetectedCycle") {
            Some(Expr::Lit(Value::Str(s))) => s.to_string(),
            _ => "?????".into(),
        };
        issues.push(Issue {
            file: file.to_owned(),
            line: 0,
            command: None,
            reason: format!("Cycle detected: {cycle}"),
        });
    }
    if issues.is_empty() {
        return Ok(());
    }
    let n = issues.len();
    writeln!(
        out,
        "Detected {n} issue{} in {file}:",
        if n > 1 { "s" } else { "" }
    )?;
    for issue in &issues {
        writeln!(out, "\t* {}", issue.text())?;
    }
    writeln!(out)
}

/// `-json`: the file, its shape, and its issues (`Errors`, each with `Reason`, `SourceFile`,
/// `SourceLine` and, when known, `DagCommand`).
fn json_result(file: &str, stats: ClassAd, issues: &[Issue]) -> ClassAd {
    let string = |s: &str| Expr::Lit(Value::Str(s.into()));
    let int = |n: usize| Expr::Lit(Value::Int(n as i64));
    let mut ad = ClassAd::new();
    ad.insert("DagFile", string(file));
    for (name, expr) in stats.iter() {
        ad.insert(name, expr.clone());
    }
    if !issues.is_empty() {
        ad.insert("NumErrors", int(issues.len()));
        let errors = issues
            .iter()
            .map(|issue| {
                let mut e = ClassAd::new();
                e.insert("Reason", string(&issue.reason));
                e.insert("SourceFile", string(&issue.file));
                e.insert("SourceLine", int(issue.line));
                if let Some(c) = issue.command {
                    e.insert("DagCommand", string(c));
                }
                Expr::Ad(Box::new(e))
            })
            .collect();
        ad.insert("Errors", Expr::List(errors));
    }
    ad
}
