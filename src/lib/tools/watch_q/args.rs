//! condor_watch_q's command line, read as its Python `argparse` parser reads it: single-dash
//! long options, any unambiguous prefix of one (`-clust`), `-opt=value`, `nargs="+"` lists that
//! run to the next option, `-x`/`-no-x` toggles; words it does not know are checked for
//! condor_q habits (`condor_watch_q 123` → `try -clusters 123`) before being refused.

use super::view::GroupBy;

/// How the jobs of `-exit` are taken together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouper {
    All,
    Any,
    None,
}

/// What `-exit` asks of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatusCheck {
    Active,
    Done,
    Idle,
    Held,
}

/// One `-exit GROUPER,JOB_STATUS[,EXIT_STATUS]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitCondition {
    pub grouper: Grouper,
    pub check: ExitStatusCheck,
    /// What `sys.exit` is given (its low 8 bits are the status).
    pub code: i64,
    /// `GROUPER JOB_STATUS`, as the exit message shows it.
    pub text: String,
}

/// The typed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub debug: bool,
    pub users: Option<Vec<String>>,
    pub clusters: Option<Vec<String>>,
    pub since: Option<i64>,
    pub files: Option<Vec<String>>,
    pub batches: Option<Vec<String>>,
    pub collector: Option<String>,
    pub schedd: Option<String>,
    pub exits: Vec<ExitCondition>,
    pub group_by: GroupBy,
    pub table: bool,
    pub progress: bool,
    pub row_progress: bool,
    pub summary: bool,
    pub percentages: bool,
    pub updated_at: bool,
    pub abbreviate: bool,
    /// `-color`/`-no-color`; the default is whether stdout is a terminal.
    pub color: Option<bool>,
    /// `-refresh`/`-no-refresh`; the default is whether stdout is a terminal.
    pub refresh: Option<bool>,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            debug: false,
            users: None,
            clusters: None,
            since: None,
            files: None,
            batches: None,
            collector: None,
            schedd: None,
            exits: Vec::new(),
            group_by: GroupBy::Batch,
            table: true,
            progress: true,
            row_progress: true,
            summary: true,
            percentages: false,
            updated_at: true,
            abbreviate: true,
            color: None,
            refresh: None,
        }
    }
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    Help,
    Run(Request),
}

/// A command line refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgError {
    /// `parser.error`: the usage and `condor_watch_q: error: MSG` on stderr, exit 2.
    Argparse(String),
    /// A condor_q habit: the usage on stdout, `condor_watch_q: error: argument ARG: HINT` on
    /// stderr, exit 1.
    Hint { arg: String, hint: String },
}

/// What an option does with its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Help,
    Debug,
    /// `nargs="+"`.
    List(ListDest),
    /// One value (`nargs=1` for -collector and -schedd: the same on the command line).
    One(OneDest),
    /// `NegateAction`: the option is on unless its name starts with `no`.
    Toggle(ToggleDest),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListDest {
    Users,
    Clusters,
    Files,
    Batches,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OneDest {
    LargerThan,
    Collector,
    Schedd,
    Exit,
    GroupBy,
    SummaryType,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ToggleDest {
    Table,
    Progress,
    RowProgress,
    Summary,
    UpdatedAt,
    Abbreviate,
    Color,
    Refresh,
}

/// The option strings, in the order the parser registers them (the order of an ambiguity's
/// candidates), and the action each belongs to.
const OPTIONS: &[(&str, Kind, &str)] = &[
    ("-help", Kind::Help, "-help"),
    ("-debug", Kind::Debug, "-debug"),
    ("-users", Kind::List(ListDest::Users), "-users"),
    ("-clusters", Kind::List(ListDest::Clusters), "-clusters"),
    (
        "-larger-than",
        Kind::One(OneDest::LargerThan),
        "-larger-than",
    ),
    ("-files", Kind::List(ListDest::Files), "-files"),
    ("-batches", Kind::List(ListDest::Batches), "-batches"),
    ("-collector", Kind::One(OneDest::Collector), "-collector"),
    ("-schedd", Kind::One(OneDest::Schedd), "-schedd"),
    ("-exit", Kind::One(OneDest::Exit), "-exit"),
    ("-groupby", Kind::One(OneDest::GroupBy), "-groupby"),
    (
        "-table",
        Kind::Toggle(ToggleDest::Table),
        "-table/-no-table",
    ),
    (
        "-no-table",
        Kind::Toggle(ToggleDest::Table),
        "-table/-no-table",
    ),
    (
        "-progress",
        Kind::Toggle(ToggleDest::Progress),
        "-progress/-no-progress",
    ),
    (
        "-no-progress",
        Kind::Toggle(ToggleDest::Progress),
        "-progress/-no-progress",
    ),
    (
        "-row-progress",
        Kind::Toggle(ToggleDest::RowProgress),
        "-row-progress/-no-row-progress",
    ),
    (
        "-no-row-progress",
        Kind::Toggle(ToggleDest::RowProgress),
        "-row-progress/-no-row-progress",
    ),
    (
        "-summary",
        Kind::Toggle(ToggleDest::Summary),
        "-summary/-no-summary",
    ),
    (
        "-no-summary",
        Kind::Toggle(ToggleDest::Summary),
        "-summary/-no-summary",
    ),
    (
        "-summary-type",
        Kind::One(OneDest::SummaryType),
        "-summary-type",
    ),
    (
        "-updated-at",
        Kind::Toggle(ToggleDest::UpdatedAt),
        "-updated-at/-no-updated-at",
    ),
    (
        "-no-updated-at",
        Kind::Toggle(ToggleDest::UpdatedAt),
        "-updated-at/-no-updated-at",
    ),
    (
        "-abbreviate",
        Kind::Toggle(ToggleDest::Abbreviate),
        "-abbreviate/-no-abbreviate",
    ),
    (
        "-no-abbreviate",
        Kind::Toggle(ToggleDest::Abbreviate),
        "-abbreviate/-no-abbreviate",
    ),
    (
        "-color",
        Kind::Toggle(ToggleDest::Color),
        "-color/-no-color",
    ),
    (
        "-no-color",
        Kind::Toggle(ToggleDest::Color),
        "-color/-no-color",
    ),
    (
        "-refresh",
        Kind::Toggle(ToggleDest::Refresh),
        "-refresh/-no-refresh",
    ),
    (
        "-no-refresh",
        Kind::Toggle(ToggleDest::Refresh),
        "-refresh/-no-refresh",
    ),
];

/// What a word is to argparse.
enum Word {
    /// A value (`A`).
    Value,
    /// An option: its entry in [`OPTIONS`], the string it matched, and a value after `=`.
    Option(usize, Option<String>),
    /// A dash word that names no option (`O`, left over).
    Unknown,
}

/// `-5`, `-.5`: argparse takes these for values when no option looks like a number.
fn is_negative_number(w: &str) -> bool {
    let Some(rest) = w.strip_prefix('-') else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(rest)
        || rest
            .split_once('.')
            .is_some_and(|(a, b)| a.bytes().all(|c| c.is_ascii_digit()) && digits(b))
}

/// `_parse_optional`.
fn classify(w: &str) -> Result<Word, ArgError> {
    if !w.starts_with('-') {
        return Ok(Word::Value);
    }
    if let Some(i) = OPTIONS.iter().position(|(name, _, _)| *name == w) {
        return Ok(Word::Option(i, None));
    }
    if w.len() == 1 {
        return Ok(Word::Value);
    }
    if let Some((name, value)) = w.split_once('=') {
        if let Some(i) = OPTIONS.iter().position(|(n, _, _)| *n == name) {
            return Ok(Word::Option(i, Some(value.to_owned())));
        }
    }
    // `--x` matches no single-dash option here.
    let matches: Vec<usize> = if w.starts_with("--") {
        Vec::new()
    } else {
        (0..OPTIONS.len())
            .filter(|&i| OPTIONS[i].0.starts_with(w))
            .collect()
    };
    match matches.as_slice() {
        [i] => Ok(Word::Option(*i, None)),
        [] if is_negative_number(w) || w.contains(' ') => Ok(Word::Value),
        [] => Ok(Word::Unknown),
        many => {
            let names: Vec<&str> = many.iter().map(|&i| OPTIONS[i].0).collect();
            Err(ArgError::Argparse(format!(
                "ambiguous option: {w} could match {}",
                names.join(", ")
            )))
        }
    }
}

/// Python's `repr` of a string, as argparse quotes values in its messages.
fn repr(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// Python's `int()` of a string: surrounding blanks, a sign, `_` between digits.
pub(super) fn python_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    let n: i64 = digits.replace('_', "").parse().ok()?;
    Some(if neg { -n } else { n })
}

/// `ExitConditions`.
fn exit_condition(value: &str) -> Result<ExitCondition, ArgError> {
    let parts: Vec<&str> = value.split(',').collect();
    let (grouper, status, code) = match parts.as_slice() {
        [g, s, c] => (*g, *s, Some(*c)),
        [g, s] => (*g, *s, None),
        _ => return Err(ArgError::Argparse("invalid -exit specification".into())),
    };
    let grouper_kind = match grouper {
        "all" => Grouper::All,
        "any" => Grouper::Any,
        "none" => Grouper::None,
        _ => {
            return Err(ArgError::Argparse(format!(
                "invalid GROUPER \"{grouper}\", must be one of {{all, any, none}}"
            )))
        }
    };
    let check = match status {
        "active" => ExitStatusCheck::Active,
        "done" => ExitStatusCheck::Done,
        "idle" => ExitStatusCheck::Idle,
        "held" => ExitStatusCheck::Held,
        _ => {
            return Err(ArgError::Argparse(format!(
                "invalid JOB_STATUS \"{status}\", must be one of {{active, done, idle, held}}"
            )))
        }
    };
    let code = match code {
        None => 0,
        Some(c) => python_int(c).ok_or_else(|| {
            ArgError::Argparse(format!("exit_status must be an integer, but was \"{c}\""))
        })?,
    };
    Ok(ExitCondition {
        grouper: grouper_kind,
        check,
        code,
        text: format!("{grouper} {status}"),
    })
}

fn choice(action: &str, value: &str, choices: &[&str]) -> Result<(), ArgError> {
    if choices.contains(&value) {
        return Ok(());
    }
    let listed: Vec<String> = choices.iter().map(|c| repr(c)).collect();
    Err(ArgError::Argparse(format!(
        "argument {action}: invalid choice: {} (choose from {})",
        repr(value),
        listed.join(", ")
    )))
}

/// Stores one option's value(s).
fn store_one(r: &mut Request, dest: OneDest, action: &str, value: String) -> Result<(), ArgError> {
    match dest {
        OneDest::LargerThan => {
            r.since = Some(python_int(&value).ok_or_else(|| {
                ArgError::Argparse(format!(
                    "argument {action}: invalid int value: {}",
                    repr(&value)
                ))
            })?)
        }
        OneDest::Collector => r.collector = Some(value),
        OneDest::Schedd => r.schedd = Some(value),
        OneDest::Exit => r.exits.push(exit_condition(&value)?),
        OneDest::GroupBy => {
            choice(action, &value, &["batch", "log", "cluster"])?;
            r.group_by = match value.as_str() {
                "log" => GroupBy::Log,
                "cluster" => GroupBy::Cluster,
                _ => GroupBy::Batch,
            };
        }
        OneDest::SummaryType => {
            choice(action, &value, &["totals", "percentages"])?;
            r.percentages = value == "percentages";
        }
    }
    Ok(())
}

fn toggle(r: &mut Request, dest: ToggleDest, on: bool) {
    match dest {
        ToggleDest::Table => r.table = on,
        ToggleDest::Progress => r.progress = on,
        ToggleDest::RowProgress => r.row_progress = on,
        ToggleDest::Summary => r.summary = on,
        ToggleDest::UpdatedAt => r.updated_at = on,
        ToggleDest::Abbreviate => r.abbreviate = on,
        ToggleDest::Color => r.color = Some(on),
        ToggleDest::Refresh => r.refresh = Some(on),
    }
}

/// Reads the words after the program's name.
pub fn parse(words: &[String]) -> Result<Parsed, ArgError> {
    let kinds = words
        .iter()
        .map(|w| classify(w))
        .collect::<Result<Vec<_>, _>>()?;
    let mut r = Request::default();
    let mut extras: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (opt, explicit) = match &kinds[i] {
            Word::Value | Word::Unknown => {
                extras.push(words[i].clone());
                i += 1;
                continue;
            }
            Word::Option(opt, explicit) => (*opt, explicit.clone()),
        };
        i += 1;
        let (name, kind, action) = OPTIONS[opt];
        // The values that follow: every value word up to the next option.
        let following = kinds[i..]
            .iter()
            .take_while(|k| matches!(k, Word::Value))
            .count();
        match kind {
            Kind::Help => return Ok(Parsed::Help),
            Kind::Debug | Kind::Toggle(_) => {
                if let Some(v) = explicit {
                    return Err(ArgError::Argparse(format!(
                        "argument {action}: ignored explicit argument {}",
                        repr(&v)
                    )));
                }
                match kind {
                    Kind::Toggle(dest) => toggle(
                        &mut r,
                        dest,
                        !name.trim_start_matches('-').starts_with("no"),
                    ),
                    _ => r.debug = true,
                }
            }
            Kind::List(dest) => {
                let values: Vec<String> = match explicit {
                    Some(v) => vec![v],
                    None if following == 0 => {
                        return Err(ArgError::Argparse(format!(
                            "argument {action}: expected at least one argument"
                        )))
                    }
                    None => {
                        i += following;
                        words[i - following..i].to_vec()
                    }
                };
                let slot = match dest {
                    ListDest::Users => &mut r.users,
                    ListDest::Clusters => &mut r.clusters,
                    ListDest::Files => &mut r.files,
                    ListDest::Batches => &mut r.batches,
                };
                *slot = Some(values);
            }
            Kind::One(dest) => {
                let value = match explicit {
                    Some(v) => v,
                    None if following == 0 => {
                        let expected = match dest {
                            OneDest::Collector | OneDest::Schedd => "expected 1 argument",
                            _ => "expected one argument",
                        };
                        return Err(ArgError::Argparse(format!("argument {action}: {expected}")));
                    }
                    None => {
                        i += 1;
                        words[i - 1].clone()
                    }
                };
                store_one(&mut r, dest, action, value)?;
            }
        }
    }
    if !extras.is_empty() {
        check_unknown(&extras)?;
        return Err(ArgError::Argparse(format!(
            "unrecognized arguments: {}",
            extras.join(" ")
        )));
    }
    Ok(Parsed::Run(r))
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// `check_unknown_args_for_known_errors`: the first left-over word that looks like a condor_q
/// habit is refused with a hint. Each check takes the words after it from the same list, up to
/// (and including) the next dash word.
fn check_unknown(extras: &[String]) -> Result<(), ArgError> {
    let mut rest = extras.iter();
    while let Some(arg) = rest.next() {
        let mut following = |keep: &dyn Fn(&str) -> bool| -> Vec<String> {
            let mut taken = Vec::new();
            for next in rest.by_ref() {
                if next.starts_with('-') {
                    break;
                }
                if keep(next) {
                    taken.push(next.clone());
                }
            }
            taken
        };
        let hint = if is_digits(arg) {
            let mut ids = vec![arg.clone()];
            ids.extend(following(&is_digits));
            format!(
                "to track specific cluster IDs, try -clusters {}",
                ids.join(" ")
            )
        } else if arg.contains("-totals") {
            "to only print totals, try -no-table".to_owned()
        } else if arg.contains("-userlog") {
            let files = following(&|_| true);
            format!(
                "to track jobs from specific event logs, try -files {}",
                files.join(" ")
            )
        } else if arg.contains("-nobatch") {
            // Not a format string in HTCondor's: the braces stay doubled.
            "to group by something other than batch name, try -groupby {{batch,log,cluster}}"
                .to_owned()
        } else if !arg.starts_with('-') {
            let mut users = vec![arg.clone()];
            users.extend(following(&|w| !is_digits(w)));
            format!(
                "to track jobs from specific users, try -users {}",
                users.join(" ")
            )
        } else {
            continue;
        };
        return Err(ArgError::Hint {
            arg: arg.clone(),
            hint,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(words: &[&str]) -> Result<Parsed, ArgError> {
        parse(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    fn run(words: &[&str]) -> Request {
        match p(words) {
            Ok(Parsed::Run(r)) => r,
            other => panic!("{words:?}: {other:?}"),
        }
    }

    fn argparse_error(words: &[&str]) -> String {
        match p(words) {
            Err(ArgError::Argparse(m)) => m,
            other => panic!("{words:?}: {other:?}"),
        }
    }

    #[test]
    fn lists_run_to_the_next_option_and_prefixes_match() {
        let r = run(&[
            "-clust", "1", "2", "-files", "a.log", "-no-tab", "-us", "bob",
        ]);
        assert_eq!(r.clusters, Some(vec!["1".into(), "2".into()]));
        assert_eq!(r.files, Some(vec!["a.log".into()]));
        assert_eq!(r.users, Some(vec!["bob".into()]));
        assert!(!r.table);
        assert!(r.abbreviate, "on by default, whatever the help says");
        assert_eq!(r.color, None);
        let r = run(&[
            "-groupby=log",
            "-summary-type",
            "percentages",
            "-no-color",
            "-refresh",
        ]);
        assert_eq!(r.group_by, GroupBy::Log);
        assert!(r.percentages);
        assert_eq!((r.color, r.refresh), (Some(false), Some(true)));
        assert_eq!(p(&["-debug", "-help", "-bogus"]), Ok(Parsed::Help));
        assert_eq!(
            argparse_error(&["-u", "bob"]),
            "ambiguous option: -u could match -users, -updated-at"
        );
    }

    #[test]
    fn exit_conditions() {
        let r = run(&["-exit", "all,done", "-exit", "any,held,3"]);
        assert_eq!(r.exits.len(), 2);
        assert_eq!(r.exits[0].code, 0);
        assert_eq!(r.exits[1].text, "any held");
        assert_eq!(r.exits[1].code, 3);
        assert_eq!(
            argparse_error(&["-exit", "all"]),
            "invalid -exit specification"
        );
        assert_eq!(
            argparse_error(&["-exit", "foo,done"]),
            "invalid GROUPER \"foo\", must be one of {all, any, none}"
        );
        assert_eq!(
            argparse_error(&["-exit", "all,gone"]),
            "invalid JOB_STATUS \"gone\", must be one of {active, done, idle, held}"
        );
        assert_eq!(
            argparse_error(&["-exit", "all,done,x"]),
            "exit_status must be an integer, but was \"x\""
        );
    }

    #[test]
    fn argparse_errors() {
        assert_eq!(
            argparse_error(&["-c", "1"]),
            "ambiguous option: -c could match -clusters, -collector, -color"
        );
        assert_eq!(
            argparse_error(&["-users"]),
            "argument -users: expected at least one argument"
        );
        assert_eq!(
            argparse_error(&["-schedd"]),
            "argument -schedd: expected 1 argument"
        );
        assert_eq!(
            argparse_error(&["-larger-than", "x"]),
            "argument -larger-than: invalid int value: 'x'"
        );
        assert_eq!(
            argparse_error(&["-groupby", "owner"]),
            "argument -groupby: invalid choice: 'owner' (choose from 'batch', 'log', 'cluster')"
        );
        assert_eq!(
            argparse_error(&["-table=1"]),
            "argument -table/-no-table: ignored explicit argument '1'"
        );
        assert_eq!(
            argparse_error(&["-bogus", "-x"]),
            "unrecognized arguments: -bogus -x"
        );
        assert_eq!(run(&["-larger-than", "-5"]).since, Some(-5));
    }

    #[test]
    fn condor_q_habits_get_hints() {
        let hint = |words: &[&str]| match p(words) {
            Err(ArgError::Hint { arg, hint }) => format!("{arg}: {hint}"),
            other => panic!("{words:?}: {other:?}"),
        };
        assert_eq!(
            hint(&["123", "x", "45", "-x"]),
            "123: to track specific cluster IDs, try -clusters 123 45"
        );
        assert_eq!(
            hint(&["bob", "7", "amy"]),
            "bob: to track jobs from specific users, try -users bob amy"
        );
        assert_eq!(
            hint(&["-totals"]),
            "-totals: to only print totals, try -no-table"
        );
        assert_eq!(
            hint(&["-userlog", "a.log", "b.log"]),
            "-userlog: to track jobs from specific event logs, try -files a.log b.log"
        );
        assert_eq!(
            hint(&["-x", "-nobatch"]),
            "-nobatch: to group by something other than batch name, try -groupby {{batch,log,cluster}}"
        );
    }
}
