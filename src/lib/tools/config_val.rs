//! `condor_config_val`: query the configuration, show where knobs come from, and set knobs
//! persistently, as HTCondor's src/condor_tools/config_val.cpp does for the local machine.
//!
//! `NAME...` prints expanded values (`Not defined: NAME` on stderr, exit 1, for each undefined
//! one); `-raw`, `-verbose`, `-dump [regex...]`, `-config`, `-summary`, `-writeconfig FILE`,
//! `-macro TEXT...` and `use CATEGORY[:TEMPLATE]` show the configuration in HTCondor's formats
//! (`-default` only warns that it is not supported, as in HTCondor 24.0). `-set "NAME = value"`
//! and `-unset NAME` edit the user's configuration file (`USER_CONFIG_FILE`): condorlite has no
//! running daemon to hold persistent settings.
//! Querying a daemon (`-name`, `-schedd`, ...) fails as HTCondor's does when none can be found.

use std::io::Write;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::config::defaults::Kind;
use crate::config::table::{Entry, SourceId};
use crate::config::{self, persist, Config, LoadOptions, View};
use crate::error::CommandError;

pub const TOOL: Tool = Tool {
    name: "condor_config_val",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        unknown: Unknown::Error,
    },
    usage_status: 1,
    run,
};

/// The options in the order config_val.cpp tests them, with its minimum prefix lengths.
const PREFIXES: &[Prefix] = &[
    Prefix::min("name", 1),
    Prefix::min("address", 1),
    Prefix::min("pool", 1),
    Prefix::min("local-name", 2),
    Prefix::min("subsystem", 3),
    Prefix::min("owner", 1),
    Prefix::min("tilde", 1),
    Prefix::min("master", 2),
    Prefix::min("schedd", 2),
    Prefix::min("startd", 2),
    Prefix::min("collector", 3),
    Prefix::min("negotiator", 3),
    Prefix::min("set", 2),
    Prefix::min("unset", 3),
    Prefix::min("rset", 3),
    Prefix::min("runset", 5),
    Prefix::min("mixedcase", 2),
    Prefix::min("raw", 3),
    Prefix::min("default", 3),
    Prefix::min("config", 2),
    Prefix::min("verbose", 1).qualified(),
    Prefix::min("dump", 1),
    Prefix::min("expanded", 2),
    Prefix::min("macro", 3).qualified(),
    Prefix::min("evaluate", 2),
    Prefix::min("unused", 4),
    Prefix::min("used", 2),
    Prefix::min("summary", 3).qualified(),
    Prefix::min("writeconfig", 3).qualified(),
    Prefix::min("root-config", 4),
    Prefix::min("debug", 2).qualified(),
    Prefix::min("help", 2),
    Prefix::min("version", 3),
];

fn flag(id: &'static str, help: &'static str) -> Arg {
    Arg::new(id).long(id).action(ArgAction::SetTrue).help(help)
}

fn value(id: &'static str, name: &'static str, help: &'static str) -> Arg {
    Arg::new(id)
        .long(id)
        .value_name(name)
        .action(ArgAction::Set)
        .help(help)
}

pub fn command() -> Command {
    Command::new("condor_config_val")
        .about("Query or set HTCondor configuration variables")
        .long_about(
            "Query or set HTCondor configuration variables.\n\n\
             Prints the expanded value of each VAR; with -dump, VARs are regular expressions \
             matched against the names of all variables. 'use CATEGORY[:TEMPLATE]' prints a \
             configuration template. -set and -unset change the user's configuration file.",
        )
        .after_help(
            "Exit status: 0 on success, 1 if a variable is not defined or the configuration \
             cannot be read.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(value("name", "DAEMON", "Query the named daemon"))
        .arg(value("address", "IP:PORT", "Query the daemon at this address"))
        .arg(value("pool", "HOST", "Find daemons through this central manager"))
        .arg(value("local-name", "NAME", "Use this local name for lookups"))
        .arg(value("subsystem", "SUBSYS", "Look variables up as this subsystem (default TOOL)"))
        .arg(flag("owner", "Print the name of the user running the tool"))
        .arg(flag("tilde", "Print the home directory of the condor user"))
        .arg(flag("master", "Query the master"))
        .arg(flag("schedd", "Query the schedd"))
        .arg(flag("startd", "Query the startd"))
        .arg(flag("collector", "Query the collector"))
        .arg(flag("negotiator", "Query the negotiator"))
        .arg(flag("set", "Set each \"VAR = value\" in the user's configuration file"))
        .arg(flag("unset", "Remove each VAR from the user's configuration file"))
        .arg(flag("rset", "Set runtime configuration in a daemon"))
        .arg(flag("runset", "Unset runtime configuration in a daemon"))
        .arg(flag("mixedcase", "Print names as they were spelled"))
        .arg(flag("raw", "Print raw values"))
        .arg(flag("default", "Print default values"))
        .arg(flag("config", "Print the configuration files read"))
        .arg(flag("verbose", "Print where each variable was set, its raw and expanded values"))
        .arg(flag("dump", "Print all variables whose names match the VARs"))
        .arg(flag("expanded", "Print expanded values (with -dump)"))
        .arg(flag("macro", "Expand each argument as configuration text (-macro:path: as a path)"))
        .arg(flag("evaluate", "Evaluate values against the daemon's ad"))
        .arg(flag("unused", "Only variables the daemon did not use"))
        .arg(flag("used", "Only variables the daemon used"))
        .arg(flag("summary", "Print the variables the configuration files changed"))
        .arg(value("writeconfig", "FILE", "Write the configuration to FILE (- for stdout)"))
        .arg(value("root-config", "FILE", "Read FILE as the root configuration file"))
        .arg(flag("debug", "Print debugging output on stderr"))
        .arg(Arg::new("help").long("help").action(ArgAction::Help).help("Print help and exit"))
        .arg(flag("version", "Print the version and exit"))
        .arg(
            Arg::new("vars")
                .value_name("VAR")
                .action(ArgAction::Append)
                .help("Variables to print (regular expressions with -dump), or 'use CATEGORY[:TEMPLATE]'"),
        )
}

/// condor_config_val's command line, parsed once.
#[derive(Debug, Default)]
struct ConfigValArgs {
    /// `-version`: print the version and exit.
    version: bool,
    /// `-owner`: print the name of the user running the tool.
    owner: bool,
    /// `-tilde`: print the condor user's home directory.
    tilde: bool,
    /// The positional `VAR`s (regular expressions with `-dump`, or `use CATEGORY[:TEMPLATE]`).
    vars: Vec<String>,
    /// `-raw`: raw values.
    raw: bool,
    /// `-default`: HTCondor 24.0 only warns that it is not supported.
    default: bool,
    /// `-verbose` (not `-verbose:terse`): where each variable was set.
    verbose: bool,
    /// `-dump`: every variable whose name matches a `VAR`.
    dump: bool,
    /// `-expanded`: expanded values (with `-dump`).
    expanded: bool,
    /// `-config`: the configuration files read.
    config: bool,
    /// `-summary`: the variables the configuration files changed.
    summary: bool,
    /// `-summary:detected` (any qualifier starting with `det`).
    summary_detected: bool,
    /// `-writeconfig[:OPTIONS] FILE`: the file and the qualifier.
    writeconfig: Option<(String, Option<String>)>,
    /// `-macro` (`Some(false)`) or `-macro:path` (`Some(true)`).
    macro_mode: Option<bool>,
    /// `-set`: set each `VAR = value` in the user's configuration file.
    set: bool,
    /// `-unset`: remove each `VAR` from the user's configuration file.
    unset: bool,
    /// The daemon to query (`-master`, `-schedd`, ..., `-rset`, `-evaluate`, ..., or `-name`
    /// and `-address`, which name the master): condorlite cannot reach one.
    daemon: Option<&'static str>,
    /// `-subsystem NAME` (`TOOL` by default).
    subsystem: String,
    /// `-local-name NAME`.
    local_name: Option<String>,
    /// `-root-config FILE`.
    root_config: Option<String>,
}

impl ConfigValArgs {
    /// Reads the parsed command line (the only place that looks options up by name).
    fn from_invocation(inv: &Invocation) -> ConfigValArgs {
        let m = &inv.matches;
        let on = |id: &str| m.get_flag(id);
        let vars: Vec<String> = m
            .get_many::<String>("vars")
            .map(|v| v.cloned().collect())
            .unwrap_or_default();
        let daemon = [
            ("rset", "master"),
            ("runset", "master"),
            ("evaluate", "master"),
            ("used", "master"),
            ("unused", "master"),
            ("master", "master"),
            ("schedd", "schedd"),
            ("startd", "startd"),
            ("collector", "collector"),
            ("negotiator", "negotiator"),
        ]
        .iter()
        .rev()
        .find(|(id, _)| on(id))
        .map(|(_, d)| *d)
        .or_else(|| {
            (m.contains_id("name") && m.get_one::<String>("name").is_some()
                || m.get_one::<String>("address").is_some())
            .then_some("master")
        });
        ConfigValArgs {
            version: on("version"),
            owner: on("owner"),
            tilde: on("tilde"),
            vars,
            raw: on("raw"),
            default: on("default"),
            verbose: on("verbose") && inv.qualifier("verbose") != Some("terse"),
            dump: on("dump"),
            expanded: on("expanded"),
            config: on("config"),
            summary: on("summary"),
            summary_detected: inv.qualifier("summary").is_some_and(|q| {
                q.split([',', ':'])
                    .any(|o| o.len() >= 3 && "detected".starts_with(o))
            }),
            writeconfig: m
                .get_one::<String>("writeconfig")
                .map(|f| (f.clone(), inv.qualifier("writeconfig").map(str::to_owned))),
            macro_mode: on("macro").then(|| {
                inv.qualifier("macro")
                    .is_some_and(|q| q.starts_with("path"))
            }),
            set: on("set"),
            unset: on("unset"),
            daemon,
            subsystem: m
                .get_one::<String>("subsystem")
                .cloned()
                .unwrap_or_else(|| "TOOL".into()),
            local_name: m.get_one::<String>("local-name").cloned(),
            root_config: m.get_one::<String>("root-config").cloned(),
        }
    }

    /// The combinations config_val.cpp refuses.
    fn check(&self) -> Result<(), CommandError> {
        if self.summary && self.writeconfig.is_some() {
            return Err(CommandError::Usage(
                "-summary cannot be used with -writeconfig".into(),
            ));
        }
        Ok(())
    }
}

fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let req = ConfigValArgs::from_invocation(inv);
    if req.version {
        writeln!(out, "{}", config::condor_version())?;
        writeln!(out, "$CondorPlatform: condorlite $")?;
        return Ok(());
    }
    req.check()?;
    let mut opts = LoadOptions::from_process();
    opts.subsystem = req.subsystem.clone();
    opts.local_name = req.local_name.clone();
    opts.root_config = req.root_config.clone();
    opts.keep_defaults = req.summary || req.writeconfig.is_some();
    if req.owner {
        let user = nix::unistd::User::from_uid(nix::unistd::getuid())
            .ok()
            .flatten()
            .map(|u| u.name)
            .unwrap_or_default();
        writeln!(out, "{user}")?;
        return Ok(());
    }
    let config = Config::load_with(opts).map_err(|e| CommandError::failed(1, e.to_string()))?;
    for warning in config.warnings() {
        writeln!(err, "{warning}")?;
    }
    if req.tilde {
        return match config.raw("TILDE") {
            Some(t) if !t.is_empty() => Ok(writeln!(out, "{t}")?),
            _ => Err(CommandError::failed(
                1,
                "Error: Specified -tilde but can't find condor's home directory",
            )),
        };
    }
    let view = config.view();
    if req.config {
        print_sources(&config, out, err)?;
    }
    if req.default {
        writeln!(err, "-default not (yet) supported")?;
    }
    if let Some((file, options)) = &req.writeconfig {
        write_config(&config, file, options.as_deref(), false, out)?;
    } else if req.summary {
        write_config(
            &config,
            "-",
            Some(if req.summary_detected {
                "upgrade,detected"
            } else {
                "upgrade"
            }),
            true,
            out,
        )?;
    }
    if let Some(daemon) = req.daemon {
        writeln!(err, "Can't find address for this {daemon}")?;
        writeln!(err, "Perhaps you need to query another pool.")?;
        return Err(CommandError::Exit(1));
    }
    if req.set || req.unset {
        return edit(&config, &req, out, err);
    }
    if req.dump {
        return dump(&config, &view, &req, out);
    }
    if req.vars.is_empty() {
        if req.config || req.summary || req.writeconfig.is_some() {
            return Ok(());
        }
        return Err(CommandError::Usage(
            "no variables to print (try condor_config_val -help)".into(),
        ));
    }
    query(&config, &view, &req, out, err)
}

/// `-config`: the root file and the other files read, names on stdout and labels on stderr.
fn print_sources(
    config: &Config,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    writeln!(err, "Configuration source:")?;
    err.flush()?;
    writeln!(out, "\t{}", config.global_source())?;
    out.flush()?;
    if config.global_source().is_empty() {
        // HTCondor cannot run without a root file; condorlite runs on its defaults.
        writeln!(
            err,
            "\t(no configuration file: CONDOR_CONFIG is not set, or is /dev/null; the values are \
             condorlite's built-in defaults, with the user's file and _CONDOR_ variables)"
        )?;
        err.flush()?;
    }
    let locals = config.local_sources();
    if !locals.is_empty() {
        let label = if locals.len() == 1 {
            "source"
        } else {
            "sources"
        };
        writeln!(err, "Local configuration {label}:")?;
        err.flush()?;
        for source in locals {
            writeln!(out, "\t{source}")?;
        }
        out.flush()?;
        writeln!(err)?;
    }
    Ok(())
}

/// A value as `NAME = value`, or `NAME @=end` ... `@end` when it has several lines.
fn name_value(name: &str, value: &str, multi_line: bool) -> String {
    if multi_line || value.contains('\n') {
        format!("{name} @=end{}\n@end", indent(value, "   "))
    } else {
        format!("{name} = {value}")
    }
}

fn indent(value: &str, prefix: &str) -> String {
    value
        .split('\n')
        .filter(|l| !l.is_empty())
        .map(|l| format!("\n{prefix}{l}"))
        .collect()
}

/// The value `NAME...` prints, or `None` for "Not defined".
fn query(
    config: &Config,
    view: &View<'_>,
    req: &ConfigValArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let mut undefined = 0;
    let mut vars = req.vars.iter();
    while let Some(var) = vars.next() {
        if var.eq_ignore_ascii_case("use") {
            match vars.next() {
                Some(template) => print_template(template, req.expanded, out)?,
                None => writeln!(
                    err,
                    "use should be followed by a category or category:option argument"
                )?,
            }
            continue;
        }
        if let Some(as_path) = req.macro_mode {
            let mut value = view
                .expand(var)
                .map_err(|e| CommandError::failed(1, e.to_string()))?;
            if as_path {
                while value.contains("//") {
                    value = value.replace("//", "/");
                }
            }
            writeln!(out, "{value}")?;
            continue;
        }
        let found = view.find(var);
        let (name_used, value, raw_line) = match &found {
            Some(f) => {
                let value = if req.raw {
                    Some(f.raw.to_owned())
                } else {
                    view.string(&f.name)
                        .map_err(|e| CommandError::failed(1, e.to_string()))?
                };
                let raw_line = (!req.raw).then(|| format!("{} = {}", f.name, f.raw));
                (f.name.clone(), value, raw_line)
            }
            None => (var.to_ascii_uppercase(), None, None),
        };
        match &value {
            None => {
                writeln!(err, "Not defined: {name_used}")?;
                undefined += 1;
            }
            Some(v) if req.verbose => writeln!(out, "{}", name_value(&name_used, v, false))?,
            Some(v) => writeln!(out, "{v}")?,
        }
        if req.verbose {
            if let Some(f) = &found {
                writeln!(out, " # at: {}", location(config, f.entry))?;
            }
            if let Some(raw) = raw_line {
                writeln!(out, " # raw: {}", raw.replace('\n', "\n #   "))?;
            }
            writeln!(out)?;
        }
    }
    if undefined > 0 {
        return Err(CommandError::Exit(1));
    }
    Ok(())
}

fn location(config: &Config, entry: Option<&Entry>) -> String {
    match entry {
        Some(e) => config.location(&e.origin),
        None => config.source_name(SourceId::DEFAULT).to_owned(),
    }
}

/// Every knob name, from the sources and the defaults, sorted as HTCondor's table is.
pub(crate) fn all_names(config: &Config) -> Vec<String> {
    let mut names: Vec<String> = config
        .all_entries()
        .iter()
        .map(|e| e.name.clone())
        .collect();
    let mut seen: std::collections::HashSet<String> =
        names.iter().map(|n| n.to_ascii_lowercase()).collect();
    for (name, _) in config.defaults().iter() {
        if seen.insert(name.to_ascii_lowercase()) {
            names.push(name.to_owned());
        }
    }
    names.sort_by_key(|n| n.to_ascii_lowercase());
    names
}

/// `-dump [regex...]`.
fn dump(
    config: &Config,
    view: &View<'_>,
    req: &ConfigValArgs,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let host = view
        .string("FULL_HOSTNAME")
        .ok()
        .flatten()
        .unwrap_or_else(|| "<unknown hostname>".into());
    writeln!(out, "# Configuration from machine: {host}")?;
    let patterns: Vec<&str> = if req.vars.is_empty() {
        vec![""]
    } else {
        req.vars.iter().map(String::as_str).collect()
    };
    let names = all_names(config);
    for pattern in patterns {
        if !pattern.is_empty() {
            writeln!(out, "\n# Parameters with names that match {pattern}:")?;
        }
        let re = regex::RegexBuilder::new(pattern)
            .case_insensitive(true)
            .build()
            .map_err(|e| {
                CommandError::failed(
                    1,
                    format!("-dump: invalid regular expression {pattern}: {e}"),
                )
            })?;
        for name in names.iter().filter(|n| re.is_match(n)) {
            let Some(found) = view.find(name) else {
                continue;
            };
            let multi_line = found.entry.is_some_and(|e| e.multi_line);
            let shown = if req.expanded {
                view.string(name).ok().flatten().unwrap_or_default()
            } else {
                found.raw.to_owned()
            };
            let printed_name = if req.expanded {
                name.clone()
            } else {
                found.name.clone()
            };
            writeln!(out, "{}", name_value(&printed_name, &shown, multi_line))?;
            if req.verbose {
                writeln!(out, " # at: {}", location(config, found.entry))?;
                let (label, other) = if req.expanded {
                    ("raw", found.raw.to_owned())
                } else {
                    (
                        "expanded",
                        view.string(name).ok().flatten().unwrap_or_default(),
                    )
                };
                writeln!(out, " # {label}: {}", hash_indent(&other))?;
                if let Some(d) = view.default_of(&found) {
                    writeln!(out, " # default: {}", hash_indent(d))?;
                }
            }
        }
    }
    if !req.verbose {
        writeln!(out, "# Contributing configuration file(s):")?;
        if !config.global_source().is_empty() {
            writeln!(out, "#\t{}", config.global_source())?;
        }
        for source in config.local_sources() {
            writeln!(out, "#\t{source}")?;
        }
    }
    Ok(())
}

fn hash_indent(value: &str) -> String {
    if value.contains('\n') {
        indent(value, " #     ")
    } else {
        value.to_owned()
    }
}

/// `-summary` and `-writeconfig`: the knobs the sources set, grouped by source in the order
/// they were set (HTCondor's `do_write_config`).
fn write_config(
    config: &Config,
    file: &str,
    options: Option<&str>,
    summary: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let opts: Vec<&str> = options
        .map(|o| o.split([',', ':']).collect())
        .unwrap_or_default();
    let has = |word: &str, min: usize| opts.iter().any(|o| o.len() >= min && word.starts_with(o));
    let (show_def, show_def_match, comment_def_match, show_detected, show_env, show_only, hide) =
        if options.is_none() {
            (false, true, true, false, false, false, false)
        } else {
            (
                has("default", 3),
                has("matches_default", 5),
                has("comment", 3),
                has("detected", 3),
                has("environment", 3),
                has("only", 4),
                has("upgrade", 3),
            )
        };
    let obsolete: Vec<String> = crate::config::metaknobs::lines("UPGRADE", "DISCARD")
        .iter()
        .map(|l| l.to_ascii_lowercase())
        .collect();
    let obsolete_if: Vec<&str> = crate::config::metaknobs::lines("UPGRADE", "DISCARDIF");
    let mut lines: Vec<((u32, u32, usize), String)> = Vec::new();
    let mut entries: Vec<&Entry> = config.all_entries();
    entries.sort_by_key(|e| e.name.to_ascii_lowercase());
    for (iter, e) in entries.into_iter().enumerate() {
        let source = e.origin.source;
        let mut comment = "";
        if e.matches_default {
            if !show_def_match {
                continue;
            }
            if comment_def_match || options.is_none() {
                comment = "#";
            }
        } else if source == SourceId::DETECTED {
            if !show_detected && !show_def {
                continue;
            }
        } else if source == SourceId::ENVIRONMENT {
            if show_only && !show_env {
                continue;
            }
        } else if source.0 > SourceId::OVER.0 {
            if show_only && !(show_def || show_def_match || show_detected || show_env) {
                continue;
            }
            // A knob of the table, set empty where its default is empty too, counts as
            // matching the default.
            let defaults = config.defaults();
            let default_empty = defaults
                .global_or_base(&e.name)
                .is_some_and(|d| defaults.value(d).is_empty());
            if e.raw.is_empty() && default_empty {
                if !show_def_match {
                    continue;
                }
                comment = "#";
            }
            if hide {
                if obsolete.contains(&e.name.to_ascii_lowercase()) {
                    continue;
                }
                let item = format!("{}={}", e.name.to_ascii_uppercase(), e.raw);
                if obsolete_if.contains(&item.as_str()) {
                    continue;
                }
            }
        } else if show_only {
            continue;
        }
        let text = if e.multi_line {
            let prefix = if comment.starts_with('#') {
                "#   "
            } else {
                "   "
            };
            format!("{comment}{} @=end{}\n@end", e.name, indent(&e.raw, prefix))
        } else {
            format!("{comment}{} = {}", e.name, e.raw)
        };
        let file_key = match source {
            SourceId::ENVIRONMENT => 0xFFFE,
            SourceId::OVER => 0xFFFF,
            s => s.0,
        };
        lines.push(((file_key, e.origin.line.unwrap_or(0), iter), text));
    }
    lines.sort_by_key(|(k, _)| *k);
    let mut text = String::new();
    if !lines.is_empty() {
        if summary {
            text.push_str(&format!(
                "# condor_config_val {}\n",
                config::condor_version()
            ));
        }
        let mut last = None;
        for ((file_key, _, _), line) in &lines {
            if last != Some(*file_key) {
                let source = match *file_key {
                    0xFFFE => SourceId::ENVIRONMENT,
                    0xFFFF => SourceId::OVER,
                    k => SourceId(k),
                };
                text.push_str(&format!("\n#\n# from {}\n#\n", config.source_name(source)));
                last = Some(*file_key);
            }
            text.push_str(line);
            text.push('\n');
        }
    }
    if file == "-" {
        out.write_all(text.as_bytes())?;
    } else {
        std::fs::write(file, text).map_err(|_| {
            CommandError::failed(2, format!("Failed to create configuration file {file}."))
        })?;
    }
    Ok(())
}

/// `use CATEGORY[:TEMPLATE]`: lists a category's templates or prints one.
fn print_template(spec: &str, expand: bool, out: &mut dyn Write) -> Result<(), CommandError> {
    let (category, rest) = match spec.find([':', '=']) {
        Some(i) => (&spec[..i], &spec[i + 1..]),
        None => (spec, ""),
    };
    let Some(cat) = crate::config::metaknobs::category(category) else {
        writeln!(out, "Not defined: use {}", spec.to_ascii_uppercase())?;
        return Ok(());
    };
    if rest.is_empty() {
        writeln!(out, "use {cat} accepts")?;
        for t in crate::config::metaknobs::templates(cat) {
            writeln!(out, "  {}", t.name)?;
        }
        return Ok(());
    }
    let (knob, args) = match rest.split_once('(') {
        Some((k, a)) => (k.trim(), a.trim_end().trim_end_matches(')')),
        None => (rest.trim(), ""),
    };
    match crate::config::metaknobs::lookup(cat, knob) {
        Some(t) if expand || !args.is_empty() => {
            let text = crate::config::expand::expand_meta_args(t.text, args);
            writeln!(
                out,
                "use {cat}:{rest} {}",
                if expand { "expands to" } else { "is" }
            )?;
            writeln!(out, "{text}\n")?;
        }
        Some(t) => writeln!(out, "use {cat}:{} is\n{}", t.name, t.text)?,
        None => writeln!(
            out,
            "Not defined: use {}",
            format!("{category}:{rest}").to_ascii_uppercase()
        )?,
    }
    Ok(())
}

/// `-set "NAME = value"...` and `-unset NAME...` in the user's configuration file.
fn edit(
    config: &Config,
    req: &ConfigValArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let Some(path) = config.user_config_file() else {
        return Err(CommandError::failed(
            1,
            "no user configuration file (USER_CONFIG_FILE) to write",
        ));
    };
    let shown = path.display();
    for var in &req.vars {
        if req.set {
            let assignment = match persist::parse_assignment(var) {
                Ok(a) => a,
                Err(name) => {
                    writeln!(
                        err,
                        "condor_config_val: Can't set configuration value (\"{name}\")\nYou must specify \"macro_name = value\" or \"use category:option\""
                    )?;
                    return Err(CommandError::Exit(1));
                }
            };
            persist::set(path, &assignment).map_err(|e| {
                CommandError::failed(
                    1,
                    format!("Attempt to set configuration \"{var}\" in {shown} failed: {e}"),
                )
            })?;
            writeln!(out, "Successfully set configuration \"{var}\" in {shown}.")?;
        } else {
            if var.contains([':', '=']) {
                writeln!(
                    err,
                    "condor_config_val: Can't unset configuration value (\"{var}\")\nTo unset, you only specify the name of the attribute"
                )?;
                return Err(CommandError::Exit(1));
            }
            let name = var.split(' ').next().unwrap_or_default();
            if !crate::config::expand::is_valid_name(name) {
                return Err(CommandError::failed(
                    1,
                    format!("Error: Configuration variable name ({name}) is not valid, alphanumeric and _ only"),
                ));
            }
            persist::unset(path, name).map_err(|e| {
                CommandError::failed(
                    1,
                    format!("Attempt to unset configuration \"{var}\" in {shown} failed: {e}"),
                )
            })?;
            writeln!(
                out,
                "Successfully unset configuration \"{var}\" in {shown}."
            )?;
        }
    }
    Ok(())
}

/// The type name of a default, for `-verbose:type`.
pub fn type_name(kind: Kind) -> &'static str {
    kind.name()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ConfigValArgs, CommandError> {
        let args = ConfigValArgs::from_invocation(&TOOL.parse_words(args)?);
        args.check().map(|()| args)
    }

    #[test]
    fn htcondor_abbreviations() {
        let r = parse(&["-d", "-v", "-ex", "-def", "X"]).unwrap();
        assert!(r.dump && r.verbose && r.expanded && r.default);
        let r = parse(&["-d", "-ex", "A.*"]).unwrap();
        assert!(r.dump && r.expanded);
        assert_eq!(r.vars, ["A.*"]);
        let r = parse(&["-sub", "NEGOTIATOR", "-raw", "X"]).unwrap();
        assert_eq!(r.subsystem, "NEGOTIATOR");
        assert!(r.raw);
        let r = parse(&["-summary:detected"]).unwrap();
        assert!(r.summary && r.summary_detected);
        assert!(parse(&["-s"]).is_err());
        let r = parse(&["-se", "A = 1", "B = 2"]).unwrap();
        assert!(r.set);
        assert_eq!(r.vars, ["A = 1", "B = 2"]);
        assert_eq!(parse(&["-schedd"]).unwrap().daemon, Some("schedd"));
    }

    #[test]
    fn nothing_given() {
        let r = parse(&[]).unwrap();
        assert!(!(r.version || r.owner || r.tilde || r.raw || r.default || r.verbose));
        assert!(!(r.dump || r.expanded || r.config || r.summary || r.set || r.unset));
        assert!(r.vars.is_empty() && r.writeconfig.is_none() && r.macro_mode.is_none());
        assert_eq!(r.daemon, None);
        assert_eq!(r.subsystem, "TOOL");
        assert_eq!((r.local_name, r.root_config), (None, None));
    }

    #[test]
    fn flags() {
        assert!(parse(&["-version"]).unwrap().version);
        assert!(parse(&["-o"]).unwrap().owner);
        assert!(parse(&["-t"]).unwrap().tilde);
        assert!(parse(&["-def", "X"]).unwrap().default);
        assert!(parse(&["-co"]).unwrap().config);
        assert!(parse(&["-uns", "X"]).unwrap().unset);
    }

    #[test]
    fn verbose_and_its_terse_qualifier() {
        assert!(parse(&["-v", "X"]).unwrap().verbose);
        assert!(!parse(&["-v:terse", "X"]).unwrap().verbose);
    }

    #[test]
    fn writeconfig_and_macro() {
        let r = parse(&["-writeconfig:upgrade", "f"]).unwrap();
        assert_eq!(r.writeconfig, Some(("f".into(), Some("upgrade".into()))));
        assert_eq!(
            parse(&["-wri", "-"]).unwrap().writeconfig,
            Some(("-".into(), None))
        );
        assert!(parse(&["-summary", "-wri", "f"]).is_err());
        assert_eq!(parse(&["-mac", "X"]).unwrap().macro_mode, Some(false));
        assert_eq!(parse(&["-mac:path", "X"]).unwrap().macro_mode, Some(true));
    }

    #[test]
    fn daemons() {
        assert_eq!(parse(&["-ma", "X"]).unwrap().daemon, Some("master"));
        assert_eq!(parse(&["-neg", "X"]).unwrap().daemon, Some("negotiator"));
        assert_eq!(parse(&["-rset", "X"]).unwrap().daemon, Some("master"));
        assert_eq!(parse(&["-n", "m", "X"]).unwrap().daemon, Some("master"));
        assert_eq!(parse(&["-a", "<1:2>", "X"]).unwrap().daemon, Some("master"));
    }

    #[test]
    fn lookup_context() {
        let r = parse(&["-local-name", "ln", "-root-config", "/c", "X"]).unwrap();
        assert_eq!(r.local_name.as_deref(), Some("ln"));
        assert_eq!(r.root_config.as_deref(), Some("/c"));
    }

    #[test]
    fn multi_line_values() {
        assert_eq!(name_value("X", "a\nb", false), "X @=end\n   a\n   b\n@end");
        assert_eq!(name_value("X", "a", false), "X = a");
    }
}
