//! `condor_status`: the pool's slots and daemons, as HTCondor's src/condor_status.V6/
//! status.cpp, prettyPrint.cpp and totals.cpp show them.
//!
//! The ads come from the running `condor_master` ([`crate::client::master::query`]), which
//! plays the collector, or from a file (`-ads FILE`, as HTCondor's own option). The display
//! mode picks the kind of ad and the table: slots (the default; `-avail`, `-claimed`,
//! `-state`, `-server`, `-compact`), `-startd` (the startd daemons), `-schedd`, `-run` (schedds
//! running jobs), `-submitters`, `-negotiator`, `-master` and `-collector`. Under most tables
//! comes a totals table (`-totals` prints only that). `-af`, `-format`, `-long`, `-json` and
//! `-xml` print the ads in those forms instead; `-constraint`, bare names (a slot's or a
//! machine's), `-limit` and `-sort` select and order them. Rows are sorted by `Machine` and
//! `Name` in natural order (`slot2` before `slot10`).
//!
//! The command line is read once, into [`StatusArgs`], left to right as HTCondor's two passes
//! read it ([`super::argv`]), so that errors and conflicts are reported in its words and order. `-help` prints the usage on
//! stdout, where every condorlite tool prints its help (HTCondor: stderr).

mod compact;
mod totals;
mod views;

use std::io::{Read, Write};

use clap::Command;

use super::argv::{atoi, flag_option, words, Argv, Token};
use super::Tool;
use crate::classad::functions::version::natural_cmp;
use crate::classad::parser::parse_old_expr;
use crate::classad::unparse::{json_ad_attrs, write_ad_inline, xml_ad_attrs, Syntax};
use crate::classad::{ClassAd, Expr, Value};
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::locate::{
    host_part, locate_pool, no_collector_contact, report_unknown_pool_host, PoolLocation,
};
use crate::client::master::{self, AdKind, MasterError};
use crate::config::Config;
use crate::error::CommandError;
use crate::output::ads::{select, write_long, Selection, XML_FOOTER, XML_HEADER};
use crate::output::autoformat::{add_format_args, FormatArg};
use crate::output::mask::{PrintMask, RenderEnv, AUTO_WIDTH, NO_TRUNCATE};
use crate::output::printformat::{self, read_format_arg, Aggregate, FormatArgError, PrintFormat};
use crate::output::render::{lookup_int, lookup_str};
use crate::queue::constraint_holds;
use crate::version::{CONDOR_PLATFORM, CONDOR_VERSION};

use compact::{Cols, Slot};
use totals::Totals;
use views::{Line, Sel};

pub const TOOL: Tool = Tool {
    name: "condor_status",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        // Every other word reaches run(), which reads the command line as status.cpp does.
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

const NAME: &str = "condor_status";

/// status.cpp's tests, in its order, with its minimum prefix lengths: every option.
const PREFIXES: &[Prefix] = &[
    Prefix::min("pool", 1),
    Prefix::min("avail", 2),
    Prefix::min("ads", 2).qualified(),
    Prefix::min("format", 1),
    Prefix::min("print-format", 2).qualified(),
    Prefix::min("autoformat", 5).qualified(),
    Prefix::min("af", 2).qualified(),
    Prefix::min("wide", 3).qualified(),
    Prefix::min("natural", 3).qualified(),
    Prefix::min("constraint", 3),
    Prefix::min("direct", 3),
    Prefix::min("debug", 2).qualified(),
    Prefix::min("help", 1),
    Prefix::min("limit", 2),
    Prefix::min("long", 1).qualified(),
    Prefix::min("xml", 1),
    Prefix::min("json", 2),
    Prefix::min("attributes", 2),
    Prefix::min("claimed", 2),
    Prefix::min("run", 1),
    Prefix::min("gpus", 3),
    Prefix::min("slots", 2),
    Prefix::min("compact", 3),
    Prefix::min("nocompact", 5),
    Prefix::min("server", 2),
    Prefix::min("state", 4),
    Prefix::min("startd", 4),
    Prefix::min("schedd", 2),
    Prefix::min("negotiator", 1),
    Prefix::min("any", 2),
    Prefix::min("sort", 2),
    Prefix::min("submitters", 4),
    Prefix::min("master", 1),
    Prefix::min("collector", 3),
    Prefix::min("totals", 1),
    Prefix::min("expert", 1),
    Prefix::min("version", 3),
];

const WORDS: &str = "names";

pub fn command() -> Command {
    Command::new(NAME)
        .about("Show the pool's slots and daemons")
        .long_about(
            "Show the pool's slots (the default) or daemons, as the running condor_master \
             publishes them, or the ads of a file (-ads FILE). NAME selects a slot or a \
             machine by name. Options that take values take the words after them.",
        )
        .after_help("Exit status: 0 on success, 1 on failure.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag_option(
            "avail",
            "Show the slots that are available (Unclaimed)",
        ))
        .arg(flag_option(
            "ads",
            "-ads[:long|json|new|auto] FILE: read the ads from FILE",
        ))
        .arg(flag_option(
            "format",
            "-format FMT ATTR: print ATTR with printf format FMT",
        ))
        .arg(flag_option(
            "autoformat",
            "-autoformat[:jlhVrTY,tng] ATTR...: print the attributes, one line per ad",
        ))
        .arg(flag_option(
            "af",
            "-af[:jlhVrTY,tng] ATTR...: same as -autoformat",
        ))
        .arg(flag_option(
            "wide",
            "-wide[:N]: do not truncate to the terminal width",
        ))
        .arg(flag_option(
            "natural",
            "-natural[:off]: natural sort order (always on)",
        ))
        .arg(flag_option(
            "constraint",
            "-constraint EXPR: only ads for which EXPR is true",
        ))
        .arg(flag_option("debug", "Debugging output (ignored)"))
        .arg(flag_option("help", "Print the usage and exit"))
        .arg(flag_option("limit", "-limit N: show at most N ads"))
        .arg(flag_option(
            "long",
            "Print whole ads (-long:json, -long:xml, -long:nosort)",
        ))
        .arg(flag_option("xml", "Print whole ads as XML"))
        .arg(flag_option("json", "Print whole ads as JSON"))
        .arg(flag_option(
            "attributes",
            "-attributes A,B,...: only these attributes with -long, -json, -xml",
        ))
        .arg(flag_option("claimed", "Show the claimed slots"))
        .arg(flag_option(
            "run",
            "Show the schedds that run jobs (-slots -run: claimed slots)",
        ))
        .arg(flag_option("slots", "Show slots (the default)"))
        .arg(flag_option("compact", "One row per machine"))
        .arg(flag_option("nocompact", "One row per slot (the default)"))
        .arg(flag_option(
            "server",
            "Show the slots' memory, disk and speed",
        ))
        .arg(flag_option(
            "state",
            "Show the slots' states and activities with their times",
        ))
        .arg(flag_option("startd", "Show the startd daemons"))
        .arg(flag_option("schedd", "Show the schedds"))
        .arg(flag_option("negotiator", "Show the negotiators"))
        .arg(flag_option(
            "sort",
            "-sort EXPR: sort by EXPR (repeatable; no, none, false or 0: do not sort)",
        ))
        .arg(flag_option("submitters", "Show the submitters"))
        .arg(flag_option("master", "Show the masters"))
        .arg(flag_option("collector", "Show the collectors"))
        .arg(flag_option("totals", "Show only the totals"))
        .arg(flag_option("expert", "Shorter error messages"))
        .arg(flag_option(
            "pool",
            "-pool HOST: the central manager to query (this host's pool)",
        ))
        .arg(flag_option(
            "version",
            "Print the HTCondor version and exit",
        ))
        .arg(flag_option(
            "print-format",
            "-print-format FILE: the table as the print format in FILE says (- for stdin)",
        ))
        .arg(flag_option(
            "direct",
            "-direct NAME: ask the named daemon itself (this host's daemons)",
        ))
        .arg(flag_option(
            "gpus",
            "Show the slots with GPUs (-startd -gpus: the startds that detected GPUs)",
        ))
        .arg(flag_option("any", "Show every ad of the pool, of any type"))
        .arg(words(WORDS, "NAME", "Slots or machines to show"))
}

/// The display modes (`SDO_*`), each with its kind of ad and its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Slots,
    SlotsAvail,
    SlotsClaimed,
    StartDaemon,
    Schedd,
    ScheddRun,
    Submitters,
    Master,
    Collector,
    Negotiator,
    /// `-gpus`.
    SlotsGpus,
    /// `-startd -gpus`.
    StartdGpus,
    /// `-any`: every ad.
    Any,
}

impl Mode {
    /// The kind of ad asked for (`None`: any).
    fn ad_kind(self) -> Option<AdKind> {
        Some(match self {
            Mode::Slots | Mode::SlotsAvail | Mode::SlotsClaimed | Mode::SlotsGpus => AdKind::Slots,
            Mode::StartDaemon | Mode::StartdGpus => AdKind::Startd,
            Mode::Schedd | Mode::ScheddRun => AdKind::Schedd,
            Mode::Submitters => AdKind::Submitters,
            Mode::Master => AdKind::Master,
            Mode::Collector => AdKind::Collector,
            Mode::Negotiator => AdKind::Negotiator,
            Mode::Any => return None,
        })
    }

    /// The knob naming a pool's print-format file for the mode's table (prettyPrint.cpp's
    /// `paramNameFromPPMode`: `STATUS_`, `DEFAULT_` when the `SDO_` name has one word, the
    /// name, `_PRINT_FORMAT_FILE`).
    fn print_format_knob(self) -> &'static str {
        match self {
            Mode::Slots => "STATUS_DEFAULT_SLOTS_PRINT_FORMAT_FILE",
            Mode::SlotsAvail => "STATUS_SLOTS_AVAIL_PRINT_FORMAT_FILE",
            Mode::SlotsClaimed => "STATUS_SLOTS_CLAIMED_PRINT_FORMAT_FILE",
            Mode::StartDaemon => "STATUS_DEFAULT_STARTDAEMON_PRINT_FORMAT_FILE",
            Mode::Schedd => "STATUS_DEFAULT_SCHEDD_PRINT_FORMAT_FILE",
            Mode::ScheddRun => "STATUS_SCHEDD_RUN_PRINT_FORMAT_FILE",
            Mode::Submitters => "STATUS_DEFAULT_SUBMITTERS_PRINT_FORMAT_FILE",
            Mode::Master => "STATUS_DEFAULT_MASTER_PRINT_FORMAT_FILE",
            Mode::Collector => "STATUS_DEFAULT_COLLECTOR_PRINT_FORMAT_FILE",
            Mode::Negotiator => "STATUS_DEFAULT_NEGOTIATOR_PRINT_FORMAT_FILE",
            Mode::SlotsGpus => "STATUS_SLOTS_GPUS_PRINT_FORMAT_FILE",
            Mode::StartdGpus => "STATUS_STARTD_GPUS_PRINT_FORMAT_FILE",
            Mode::Any => "STATUS_DEFAULT_ANY_PRINT_FORMAT_FILE",
        }
    }

    fn style(self) -> Pp {
        match self {
            Mode::Slots | Mode::SlotsAvail => Pp::SlotsNormal,
            Mode::SlotsClaimed => Pp::SlotsRun,
            Mode::StartDaemon => Pp::StartDaemon,
            Mode::Schedd => Pp::ScheddNormal,
            Mode::ScheddRun => Pp::ScheddRun,
            Mode::Submitters => Pp::SubmitterNormal,
            Mode::Master => Pp::MasterNormal,
            Mode::Collector => Pp::CollectorNormal,
            Mode::Negotiator => Pp::NegotiatorNormal,
            Mode::SlotsGpus => Pp::SlotsGpus,
            Mode::StartdGpus => Pp::StartdGpus,
            Mode::Any => Pp::Generic,
        }
    }
}

/// The output styles (`ppOption`), in HTCondor's order: a later style may replace an earlier
/// one, not the reverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pp {
    NotSet = 0,
    SlotsNormal = 1,
    SlotsServer = 2,
    SlotsState = 3,
    SlotsRun = 4,
    SlotsGpus = 6,
    StartDaemon = 10,
    StartdGpus = 11,
    ScheddNormal = 15,
    ScheddRun = 17,
    SubmitterNormal = 18,
    MasterNormal = 19,
    CollectorNormal = 20,
    NegotiatorNormal = 24,
    /// `-any`'s table (`PP_GENERIC`).
    Generic = 29,
    Custom = 30,
    Long = 31,
    Xml = 32,
    Json = 33,
    NewClassad = 34,
}

impl Pp {
    fn longish(self) -> bool {
        self >= Pp::Long
    }
}

/// Header and footer flags (`printmask_headerfooter_t`).
const HF_NOHEADER: u32 = 2;
const HF_NOSUMMARY: u32 = 4;
const HF_BARE: u32 = 15;

/// The form of an `-ads` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FileForm {
    Long,
    Xml,
    Json,
    New,
    Auto,
}

impl FileForm {
    /// `parseAdsFileFormat`.
    fn parse(name: &str, default: FileForm) -> FileForm {
        match name {
            "long" => FileForm::Long,
            "xml" => FileForm::Xml,
            "json" => FileForm::Json,
            "new" => FileForm::New,
            "auto" => FileForm::Auto,
            _ => default,
        }
    }
}

/// An `-ads` file: its path (`-` for stdin) and its form.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AdsFile {
    path: String,
    form: FileForm,
}

/// How condor_status refuses a command line (exit status 1).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Refusal {
    /// The message, then `Use "condor_status -help" for details`.
    UseHelp(String),
    /// The message alone.
    Error(String),
    /// `Error:  Unknown option WORD`, then the usage.
    UnknownOption(String),
}

impl Refusal {
    fn report(&self, err: &mut dyn Write) {
        match self {
            Refusal::UseHelp(message) => {
                let _ = writeln!(err, "{message}");
                let _ = writeln!(err, "Use \"{NAME} -help\" for details");
            }
            Refusal::Error(message) => {
                let _ = writeln!(err, "{message}");
            }
            Refusal::UnknownOption(word) => {
                let _ = writeln!(err, "Error:  Unknown option {word}");
                usage(err, None);
            }
        }
    }
}

/// What the command line asks condor_status to do.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Action {
    /// Show the ads (the command line is complete).
    Query,
    /// `-help [TOPIC]`: print the usage (with `all` or `subsystem`, the subsystem types too).
    Help(Option<String>),
    /// `-version`: print the version.
    Version,
    /// Refuse the command line.
    Refuse(Refusal),
}

/// condor_status's command line, read once by [`StatusArgs::parse`] as status.cpp's two
/// passes read it: left to right, a later option overriding an earlier one, the first error
/// (or `-help`, `-version`) ending the reading.
#[derive(Debug)]
struct StatusArgs {
    /// What to do: show the ads, or answer the command line at once.
    action: Action,
    /// What the reading says on stderr without stopping: `Error:  arg N (-opt) contradicts
    /// arg M (-opt)` for a style option that cannot replace the one before it.
    notes: Vec<String>,
    /// The kind of ad and its table, from `-slots`, `-avail`, `-claimed`, `-run`, `-startd`,
    /// `-schedd`, `-submitters`, `-negotiator`, `-master` or `-collector` (slots by default).
    mode: Mode,
    /// The output style: the mode's table, or `-server`, `-state`, `-format`/`-af`
    /// ([`Pp::Custom`]), `-long[:form]`, `-xml`, `-json`.
    style: Pp,
    /// The header and footer flags of the last of `-format` (bare), `-af` (no summary) and
    /// `-totals` (no header).
    headfoot: u32,
    /// `-wide`: do not truncate the table (off again after a `-wide:N` of 100 or less).
    wide: bool,
    /// `-wide:N`: the display's width (0 or less: the terminal's).
    forced_width: i32,
    /// `-totals`: only the totals table.
    only_totals: bool,
    /// `-format`, `-af` or `-totals`: not the mode's table.
    explicit_format: bool,
    /// `-compact` (the last of it, `-nocompact` and `-slots` wins): one row per machine.
    compact: bool,
    /// `-limit N`: at most N ads (`None`: all of them, as for N of 0 or less).
    limit: Option<usize>,
    /// `-ads[:form] FILE`: the ads of a file rather than the master's.
    ads_file: Option<AdsFile>,
    /// The constraints ANDed, in order: each `-constraint EXPR`, and each `-sort KEY`'s
    /// `KEY =!= UNDEFINED` (unless sorting is off).
    constraints: Vec<String>,
    /// The bare words, ORed: slots or machines (with `-claimed`, users).
    names: Vec<String>,
    /// `-pool HOST` (the last one given).
    pool: Option<String>,
    /// `-expert`: no "Extra Info" paragraphs.
    expert: bool,
    /// `-sort EXPR`, in order.
    sort_keys: Vec<Expr>,
    /// `-sort no` (`none`, `false`, `0`): do not sort.
    no_sort: bool,
    /// `-format FMT ATTR` and `-af[:opts] ATTR... [-]`, in order.
    formats: Vec<FormatArg>,
    /// `-attributes A,B,...`: each attribute once, in order.
    attributes: Vec<String>,
    /// `-long:nosort`: the attributes in the ad's own order.
    hash_order: bool,
    /// `-print-format FILE` (the last one; `-pr !` gives none).
    print_format: Option<String>,
    /// `-pr !`: the pool's print-format files do not replace the default tables.
    no_default_formats: bool,
    /// `-direct NAME`: the daemon to ask (the last one given).
    direct: Option<String>,
}

/// What set the mode and the style (`setby`), for the messages about conflicting options.
#[derive(Debug, Default)]
struct SetBy {
    arg_index: usize,
    arg: String,
    pp_arg_index: usize,
    pp_arg: Option<String>,
}

/// The reading of the command line: what it gave so far, and what set the mode and style.
struct Reader {
    args: StatusArgs,
    /// The mode so far (`None`: none chosen yet).
    mode: Option<Mode>,
    set_by: SetBy,
    /// `-constraint` values and `-sort` keys (`true`), in order.
    constraints: Vec<(bool, String)>,
    /// How many `-pool` options were given.
    pools_given: usize,
    /// How many `-direct` options were given.
    directs_given: usize,
}

impl StatusArgs {
    /// Reads the command line (the only place that looks at its options).
    fn parse(inv: &Invocation) -> StatusArgs {
        let mut reader = Reader {
            args: StatusArgs {
                action: Action::Query,
                notes: Vec::new(),
                mode: Mode::Slots,
                style: Pp::NotSet,
                headfoot: 0,
                wide: false,
                forced_width: 0,
                only_totals: false,
                explicit_format: false,
                compact: false,
                limit: None,
                ads_file: None,
                constraints: Vec::new(),
                names: Vec::new(),
                pool: None,
                expert: false,
                sort_keys: Vec::new(),
                no_sort: false,
                formats: Vec::new(),
                attributes: Vec::new(),
                hash_order: false,
                print_format: None,
                no_default_formats: false,
                direct: None,
            },
            mode: None,
            set_by: SetBy::default(),
            constraints: Vec::new(),
            pools_given: 0,
            directs_given: 0,
        };
        let argv = Argv::from_invocation(inv, PREFIXES, WORDS);
        if let Err(stop) = reader.read(&argv).and_then(|()| reader.finish()) {
            reader.args.action = stop;
        }
        if let Some(pool) = reader.args.pool.as_ref().filter(|_| reader.pools_given > 1) {
            let note = format!("Warning:  Multiple -pool arguments given, using \"{pool}\"");
            reader.args.notes.push(note);
        }
        if let Some(direct) = reader
            .args
            .direct
            .as_ref()
            .filter(|_| reader.directs_given > 1)
        {
            let note = format!("Warning:  Multiple -direct arguments given, using \"{direct}\"");
            reader.args.notes.push(note);
        }
        reader.args
    }
}

impl Reader {
    /// `setPPstyle`.
    fn set_style(&mut self, pps: Pp, index: usize, arg: &str) {
        let args = &mut self.args;
        if self.set_by.pp_arg_index != 0 && index == 0 {
            return;
        }
        if (args.style.longish() || args.style == Pp::Custom) && !pps.longish() && pps != Pp::Custom
        {
            return;
        }
        if pps.longish() || self.set_by.pp_arg_index == 0 || args.style <= pps {
            args.style = pps;
            self.set_by.pp_arg_index = index;
            self.set_by.pp_arg = Some(arg.to_owned());
        } else {
            args.notes.push(format!(
                "Error:  arg {index} ({arg}) contradicts arg {} ({})",
                self.set_by.pp_arg_index,
                self.set_by.pp_arg.as_deref().unwrap_or("DEFAULT")
            ));
        }
    }

    /// `setMode`.
    fn set_mode(&mut self, mode: Mode, index: usize, arg: &str) -> Result<(), Action> {
        if self.set_by.arg_index == 0 {
            self.mode = Some(mode);
            self.set_by.arg_index = index;
            self.set_by.arg = arg.to_owned();
            self.set_style(mode.style(), index, arg);
        } else if index != 0 && arg != self.set_by.arg {
            return Err(Action::Refuse(Refusal::Error(format!(
                "Error:  Arg {index} ({arg}) contradicts arg {} ({})",
                self.set_by.arg_index, self.set_by.arg
            ))));
        }
        Ok(())
    }

    /// `resetMode`.
    fn reset_mode(&mut self, mode: Mode, index: usize, arg: &str) -> Result<(), Action> {
        self.set_by.arg_index = 0;
        self.set_mode(mode, index, arg)
    }

    /// status.cpp's passes over the words (they skip the same values, so one walk does);
    /// `Err` with what ends the reading early.
    fn read(&mut self, argv: &Argv) -> Result<(), Action> {
        let use_help = |message: String| Action::Refuse(Refusal::UseHelp(message));
        let mut i = 0;
        while i < argv.len() {
            let index = i + 1;
            let token = &argv.tokens[i];
            let text = token.text();
            let next_exists = |n: usize| i + n < argv.len();
            let value = |n: usize| argv.text(i + n).unwrap_or_default();
            match token {
                Token::Opt { id, qualifier } => match *id {
                    "avail" => self.set_mode(Mode::SlotsAvail, index, &text)?,
                    "ads" => {
                        if !next_exists(1) {
                            return Err(use_help(format!(
                                "{NAME}: -ads requires a filename argument"
                            )));
                        }
                        let form = qualifier
                            .as_deref()
                            .map_or(FileForm::Long, |q| FileForm::parse(q, FileForm::Long));
                        self.args.ads_file = Some(AdsFile {
                            path: value(1),
                            form,
                        });
                        i += 1;
                    }
                    "format" => {
                        self.set_style(Pp::Custom, index, &text);
                        if !next_exists(2) {
                            return Err(use_help(format!(
                                "{NAME}: -format requires two other arguments"
                            )));
                        }
                        self.args.formats.push(FormatArg::Format {
                            format: value(1),
                            attr: value(2),
                        });
                        self.args.headfoot = HF_BARE;
                        self.args.explicit_format = true;
                        i += 2;
                    }
                    "autoformat" | "af" => {
                        if argv.get(i + 1).is_none_or(Token::starts_with_dash) {
                            return Err(use_help(format!(
                                "Error: Argument {text} requires at least one attribute parameter"
                            )));
                        }
                        self.args.headfoot = HF_NOSUMMARY;
                        self.args.explicit_format = true;
                        self.set_style(Pp::Custom, index, &text);
                        let mut attrs = Vec::new();
                        while let Some(Token::Word(w)) =
                            argv.get(i + 1).filter(|t| !t.starts_with_dash())
                        {
                            attrs.push(w.clone());
                            i += 1;
                        }
                        if argv.get(i + 1) == Some(&Token::Word("-".into())) {
                            i += 1;
                        }
                        self.args.formats.push(FormatArg::AutoFormat {
                            qualifiers: qualifier.clone(),
                            attrs,
                        });
                    }
                    "wide" => {
                        self.args.wide = true;
                        if let Some(q) = qualifier {
                            self.args.forced_width = atoi(q);
                            if self.args.forced_width <= 100 {
                                self.args.wide = false;
                            }
                        }
                    }
                    "print-format" => {
                        let file = argv
                            .text(i + 1)
                            .filter(|f| !(f.starts_with('-') && f.len() > 1));
                        let Some(file) = file else {
                            return Err(Action::Refuse(Refusal::Error(
                                "Error: Argument -print-format requires a filename argument"
                                    .to_owned(),
                            )));
                        };
                        // `-pr !` only turns off the configured default print formats.
                        if file == "!" {
                            self.args.no_default_formats = true;
                        } else {
                            self.args.explicit_format = true;
                            self.set_style(Pp::Custom, index, &text);
                            self.args.print_format = Some(file);
                        }
                        i += 1;
                    }
                    "direct" => {
                        if !next_exists(1) {
                            return Err(use_help(format!(
                                "{NAME}: -direct requires another argument"
                            )));
                        }
                        self.directs_given += 1;
                        self.args.direct = Some(value(1));
                        i += 1;
                    }
                    "gpus" => {
                        if self.mode == Some(Mode::StartDaemon) {
                            self.reset_mode(Mode::StartdGpus, index, &text)?
                        } else {
                            self.set_mode(Mode::SlotsGpus, index, &text)?
                        }
                    }
                    "any" => self.set_mode(Mode::Any, index, &text)?,
                    "natural" | "debug" => {}
                    "expert" => self.args.expert = true,
                    "pool" => {
                        if !next_exists(1) {
                            return Err(use_help(format!(
                                "{NAME}: -pool requires a hostname as an argument."
                            )));
                        }
                        self.pools_given += 1;
                        self.args.pool = Some(value(1));
                        i += 1;
                    }
                    "constraint" | "limit" | "attributes" | "sort" => {
                        if !next_exists(1) {
                            let what = match *id {
                                "constraint" | "sort" => "another argument",
                                _ => "one additional argument",
                            };
                            return Err(use_help(format!("{NAME}: -{id} requires {what}")));
                        }
                        let value = value(1);
                        match *id {
                            "limit" => {
                                self.args.limit =
                                    usize::try_from(atoi(&value)).ok().filter(|n| *n > 0);
                            }
                            "sort" => self.sort(value)?,
                            "attributes" => {
                                let attrs = &mut self.args.attributes;
                                for a in value.split(',').map(str::trim).filter(|a| !a.is_empty()) {
                                    if !attrs.iter().any(|x| x.eq_ignore_ascii_case(a)) {
                                        attrs.push(a.to_owned());
                                    }
                                }
                            }
                            _ => self.constraints.push((false, value)),
                        }
                        i += 1;
                    }
                    "help" => return Err(Action::Help(argv.text(i + 1))),
                    "long" => {
                        let mut form = FileForm::Long;
                        for opt in qualifier
                            .as_deref()
                            .unwrap_or("")
                            .split([',', ' '])
                            .filter(|o| !o.is_empty())
                        {
                            if opt == "nosort" {
                                self.args.hash_order = true;
                            } else {
                                form = FileForm::parse(opt, form);
                            }
                        }
                        let style = match form {
                            FileForm::Xml => Pp::Xml,
                            FileForm::Json => Pp::Json,
                            FileForm::New => Pp::NewClassad,
                            _ => Pp::Long,
                        };
                        self.set_style(style, index, &text);
                    }
                    "xml" => self.set_style(Pp::Xml, index, &text),
                    "json" => self.set_style(Pp::Json, index, &text),
                    "claimed" => self.set_mode(Mode::SlotsClaimed, index, &text)?,
                    "run" => match self.mode {
                        Some(Mode::Slots | Mode::SlotsClaimed) => {
                            self.reset_mode(Mode::SlotsClaimed, index, &text)?
                        }
                        Some(Mode::Schedd) => self.reset_mode(Mode::ScheddRun, index, &text)?,
                        _ => self.set_mode(Mode::ScheddRun, index, &text)?,
                    },
                    "slots" => {
                        self.set_mode(Mode::Slots, index, &text)?;
                        self.args.compact = false;
                    }
                    "compact" => self.args.compact = true,
                    "nocompact" => self.args.compact = false,
                    "server" => self.set_style(Pp::SlotsServer, index, &text),
                    "state" => self.set_style(Pp::SlotsState, index, &text),
                    "startd" => match self.mode {
                        Some(Mode::SlotsGpus) => self.reset_mode(Mode::StartdGpus, index, &text)?,
                        _ => self.set_mode(Mode::StartDaemon, index, &text)?,
                    },
                    "schedd" => match self.mode {
                        Some(Mode::SlotsClaimed) => {
                            self.reset_mode(Mode::ScheddRun, index, &text)?
                        }
                        Some(Mode::Schedd | Mode::ScheddRun) => {}
                        _ => self.set_mode(Mode::Schedd, index, &text)?,
                    },
                    "negotiator" => self.set_mode(Mode::Negotiator, index, &text)?,
                    "submitters" => self.set_mode(Mode::Submitters, index, &text)?,
                    "master" => self.set_mode(Mode::Master, index, &text)?,
                    "collector" => self.set_mode(Mode::Collector, index, &text)?,
                    "totals" => {
                        self.args.only_totals = true;
                        self.args.headfoot = 1 | HF_NOHEADER;
                        self.args.explicit_format = true;
                    }
                    "version" => return Err(Action::Version),
                    _ => {}
                },
                Token::Word(w) if w.starts_with('-') => {
                    return Err(Action::Refuse(Refusal::UnknownOption(w.clone())));
                }
                Token::Word(w) => self.args.names.push(w.clone()),
            }
            i += 1;
        }
        Ok(())
    }

    /// `-sort KEY`: a key, or sorting turned off.
    fn sort(&mut self, key: String) -> Result<(), Action> {
        let off = ["false", "0", "no", "none"];
        if off.iter().any(|o| o.eq_ignore_ascii_case(&key)) {
            self.args.no_sort = true;
        } else {
            match parse_old_expr(&key) {
                Ok(e) => self.args.sort_keys.push(e),
                Err(_) => {
                    return Err(Action::Refuse(Refusal::Error(format!(
                        "Error:  Parse error of: {key}"
                    ))))
                }
            }
        }
        self.constraints.push((true, key));
        Ok(())
    }

    /// After the words: the default mode, the check of `-compact` against it, and the
    /// constraints.
    fn finish(&mut self) -> Result<(), Action> {
        if self.set_by.arg_index == 0 {
            self.set_mode(Mode::Slots, 0, "<default>")?;
        }
        let mode = self.mode.unwrap_or(Mode::Slots);
        self.args.mode = mode;
        if self.args.compact && mode == Mode::SlotsGpus {
            // 24.0's -gpus -compact folds GPU properties (GPUS_CAPS, GPUS_MEM, GPUS_NAMES)
            // that condorlite's slots do not carry.
            return Err(Action::Refuse(Refusal::Error(
                "Error:  -compact with -gpus is not supported by condorlite".to_owned(),
            )));
        }
        if self.args.compact && mode.ad_kind() != Some(AdKind::Slots) {
            let more = if mode == Mode::StartDaemon {
                "remove -startd from command or use -slot instead"
            } else {
                ""
            };
            return Err(Action::Refuse(Refusal::Error(format!(
                "Error:  arg (-compact) contradicts arg {} ({}) {more}",
                self.set_by.arg_index, self.set_by.arg
            ))));
        }
        let no_sort = self.args.no_sort;
        self.args.constraints = std::mem::take(&mut self.constraints)
            .into_iter()
            .filter_map(|(sort, c)| match sort {
                false => Some(c),
                true if no_sort => None,
                true => Some(format!("{c} =!= UNDEFINED")),
            })
            .collect();
        Ok(())
    }
}

/// The query's requirements (`GenericQuery::makeQuery`): the ANDed constraints, then the
/// ORed ones.
fn requirements(and_constraints: &[String], or_constraints: &[String]) -> String {
    let mut req = String::new();
    for (list, sep) in [(and_constraints, " && "), (or_constraints, " || ")] {
        if list.is_empty() {
            continue;
        }
        req.push_str(if req.is_empty() { "(" } else { " && (" });
        for (n, c) in list.iter().enumerate() {
            req.push_str(if n == 0 { " " } else { sep });
            req.push('(');
            req.push_str(c);
            req.push(')');
        }
        req.push_str(" )");
    }
    req
}

/// The usage text; with `all` or `subsystem`, the subsystem types too.
fn usage(w: &mut dyn Write, opts: Option<&str>) {
    let _ = write!(
        w,
        "Usage: {NAME} [help-opt] [query-opt] [custom-opts] [display-opts] [name ...]
    where [help-opt] is one of
\t-help\t\t\tPrint this screen and exit
\t-version\t\tPrint HTCondor version and exit
\t-diagnose\t\tPrint out query ad without performing query

    and [query-opt] is one of
\t-absent\t\t\tPrint information about absent resources
\t-annex-name <name>\tPrint information about the named annex's slots
\t-annex-slots\t\tPrint information about any annex's slots
\t-avail\t\t\tPrint information about available resources
\t-ckptsrvr\t\tDisplay checkpoint server attributes
\t-claimed\t\tPrint information about claimed resources
\t-cod\t\t\tDisplay Computing On Demand (COD) jobs
\t-collector\t\tDisplay collector daemon attributes
\t-data\t\t\tDisplay data transfer information
\t-debug\t\t\tDisplay debugging info to console
\t-defrag\t\t\tDisplay status of defrag daemon
\t-direct <host>\t\tGet attributes directly from the given daemon
\t-java\t\t\tDisplay Java-capable hosts
\t-vm\t\t\tDisplay VM-capable hosts
\t-license\t\tDisplay attributes of licenses
\t-master\t\t\tDisplay daemon master attributes
\t-pool <name>\t\tGet information from collector <name>
\t-ads[:<form>] <file>\tGet information from <file> in <form> format.
\t           where <form> choice is one of:
\t       long    The traditional -long form. This is the default
\t       xml     XML form, the same as -xml
\t       json    JSON classad form, the same as -json
\t       new     'new' classad form without newlines
\t       auto    Guess the format from reading the input stream
\t-grid\t\t\tDisplay grid resources
\t-gpus\t\t\tDisplay resources that have GPUs
\t-run\t\t\tDisplay running job stats
\t-schedd\t\t\tDisplay attributes of schedds
\t-server\t\t\tDisplay important attributes of resources
\t-slot\t\t\tDisplay slot resource attributes
\t-startd\t\t\tDisplay STARTD daemon attributes
\t-generic\t\tDisplay attributes of 'generic' ads
\t-subsystem <type>\tDisplay classads of the given type
\t-negotiator\t\tDisplay negotiator attributes
\t-storage\t\tDisplay network storage resources
\t-any\t\t\tDisplay any resources
\t-state\t\t\tDisplay state of resources
\t-submitters\t\tDisplay information about request submitters
\t-world\t\t\tDisplay all pools reporting to UW collector

    and [custom-opts ...] are one or more of
\t-constraint <const>\tAdd constraint on classads
\t-compact\t\tShow compact form, rolling up slots into a single line
\t-statistics <set>:<n>\tDisplay statistics for <set> at level <n>
\t\t\t\tsee STATISTICS_TO_PUBLISH for valid <set> and level values
\t\t\t\tuse with -direct queries to STARTD and SCHEDD daemons
\t-target <file>\t\tUse target classad with -format or -af evaluation

    and [display-opts] are one or more of
\t-long[:<form>]\t\tDisplay entire classads in format <form>. See -ads
\t-limit <n>\t\tDisplay no more than <n> classads.
\t-sort <expr>\t\tSort ClassAds by expressions. 'no' disables sorting
\t-natural[:off]\t\tUse natural sort order in default output (default=on)
\t-total\t\t\tDisplay totals only
\t-expert\t\t\tDisplay shorter error messages
\t-wide[:<width>]\t\tDon't truncate data to fit in 80 columns.
\t\t\t\tTruncates to console width or <width> argument if specified.
\t-xml\t\t\tDisplay entire classads, but in XML
\t-json\t\t\tDisplay entire classads, but in JSON
\t-attributes X,Y,...\tAttributes to show in -xml or -long 
\t-format <fmt> <attr>\tDisplay <attr> values with formatting
\t-autoformat[:lhVr,tng] <attr> [<attr2> [...]]
\t-af[:lhVr,tng] <attr> [attr2 [...]]
\t    Print attr(s) with automatic formatting
\t    the [lhVr,tng] options modify the formatting
\t        j   display Job id
\t        l   attribute labels
\t        h   attribute column headings
\t        V   %V formatting (string values are quoted)
\t        r   %r formatting (raw/unparsed values)
\t        ,   comma after each value
\t        t   tab before each value (default is space)
\t        n   newline after each value
\t        g   newline between ClassAds, no space before values
\t    use -af:h to get tabular values with headings
\t    use -af:lrng to get -long equivalent format
\t-merge <file>\t\tCompare ads in file and query by sort key
\t-print-format <file>\tUse <file> to set display attributes and formatting
\t\t\t\t(experimental, see htcondor-wiki for more information)
"
    );
    let is_prefix = |word: &str, of: &str, min: usize| {
        !word.is_empty() && of.starts_with(word) && word.len() >= min
    };
    if let Some(o) = opts {
        if o == "all" || is_prefix(o, "subsystem", 3) {
            let _ = write!(
                w,
                "\n\n    subsystem types:\n\tschedd\n\tsubmitters\n\tstartd\n\tdefrag\n\tgrid\n\
                 \taccounting\n\tnegotiator\n\tmaster\n\tcollector\n\tgeneric\n\thad\n"
            );
        }
    }
}

/// The width of the display (`getDisplayWidth`) and whether the output is not a terminal.
fn display_width(args: &StatusArgs) -> (i32, bool) {
    if args.forced_width > 0 {
        return (args.forced_width, false);
    }
    match crate::output::console_width() {
        Some(w) => (w as i32, false),
        None => (if args.wide { 1024 } else { 80 }, true),
    }
}

/// The table of a style, with the widths its Name and Machine columns start from, the
/// width of its other columns (for fitting a terminal) and its `WHERE` constraint.
struct View {
    lines: Vec<Line>,
    name_width: i32,
    name_auto: bool,
    machine_width: i32,
    machine_auto: bool,
    fixed_width: i32,
    summary: bool,
    constraint: Option<&'static str>,
    cols: Cols,
}

fn view_of(args: &StatusArgs, width: i32) -> Option<View> {
    let lines = |sels: Vec<Sel>| sels.into_iter().map(Line::from).collect::<Vec<_>>();
    let plain = |lines: Vec<Line>| View {
        lines,
        name_width: 0,
        name_auto: false,
        machine_width: 0,
        machine_auto: false,
        fixed_width: -1,
        summary: true,
        constraint: None,
        cols: Cols::default(),
    };
    let compact_cols = |act: usize, starts: usize, resources: bool| Cols {
        machine_slot: Some(0),
        platform: Some(1),
        slots: Some(2),
        free_cpus: resources.then_some(7),
        free_mem: resources.then_some(8),
        act_code: Some(act),
        job_starts: Some(starts),
        max_slot_mem: resources.then_some(12),
    };
    let mut v = match args.style {
        Pp::SlotsNormal if args.compact => View {
            machine_width: 12,
            machine_auto: true,
            constraint: Some(views::STARTD_COMPACT_WHERE),
            cols: compact_cols(10, 11, true),
            ..plain(lines(views::slots_compact()))
        },
        // 24.0's slot tables are hard-coded columns whose widths depend on the display
        // (prettyPrint.cpp); they are not fitted to a terminal (no width_of_fixed_cols).
        Pp::SlotsNormal => plain(views::slots_normal(width, args.wide)),
        Pp::SlotsServer if args.compact => View {
            name_auto: true,
            constraint: Some(views::STARTD_COMPACT_WHERE),
            cols: compact_cols(10, 11, false),
            ..plain(lines(views::server_compact()))
        },
        Pp::SlotsServer => plain(views::slots_server(width, args.wide)),
        Pp::SlotsState if args.compact => View {
            name_auto: true,
            constraint: Some(views::STARTD_COMPACT_WHERE),
            cols: compact_cols(8, 9, false),
            ..plain(lines(views::state_compact()))
        },
        Pp::SlotsState => plain(views::slots_state(width, args.wide)),
        Pp::SlotsRun if args.compact => View {
            name_auto: true,
            constraint: Some(views::CLAIMED_COMPACT_WHERE),
            cols: Cols {
                machine_slot: Some(0),
                platform: Some(1),
                slots: Some(2),
                ..Cols::default()
            },
            ..plain(lines(views::claimed_compact()))
        },
        Pp::SlotsRun => plain(views::slots_claimed(width, args.wide)),
        Pp::StartDaemon => plain(lines(views::start_daemon())),
        Pp::SlotsGpus => View {
            constraint: Some(views::SLOTS_GPUS_WHERE),
            ..plain(lines(views::slots_gpus()))
        },
        Pp::StartdGpus => View {
            constraint: Some(views::STARTD_GPUS_WHERE),
            ..plain(lines(views::startd_gpus()))
        },
        Pp::Generic => View {
            summary: false,
            ..plain(views::any_normal(args.wide))
        },
        Pp::ScheddNormal => View {
            name_width: 15,
            name_auto: true,
            machine_width: 12,
            machine_auto: true,
            fixed_width: 35,
            ..plain(lines(views::schedd_normal()))
        },
        Pp::ScheddRun => View {
            name_width: 15,
            name_auto: true,
            fixed_width: 35,
            summary: false,
            constraint: Some(views::SCHEDD_RUN_WHERE),
            ..plain(lines(views::schedd_run()))
        },
        Pp::SubmitterNormal => View {
            name_width: 15,
            name_auto: true,
            machine_width: 12,
            machine_auto: true,
            fixed_width: 35,
            ..plain(lines(views::submitters()))
        },
        Pp::NegotiatorNormal => View {
            name_width: 12,
            name_auto: true,
            fixed_width: 12 + 4 + 8 + 7 + 8 + 7,
            summary: false,
            ..plain(lines(views::negotiator()))
        },
        Pp::MasterNormal => View {
            name_width: 12,
            name_auto: true,
            summary: false,
            ..plain(lines(views::master()))
        },
        Pp::CollectorNormal => plain(views::collector(width, args.wide)),
        _ => return None,
    };
    // Without a width of their own, the columns grow on a wide display.
    v.name_auto |= args.wide;
    v.machine_auto |= args.wide;
    Some(v)
}

/// Where the Name and Machine columns are, for fitting the table to a terminal.
#[derive(Clone, Copy, Debug, Default)]
struct NameCols {
    name: Option<usize>,
    machine: Option<usize>,
}

/// `ppAdjustProjection`: the Name and Machine columns' starting widths and growth.
fn adjust_names(mask: &mut PrintMask, v: &View, wide: bool) -> NameCols {
    let mut at = NameCols::default();
    for (i, col) in mask.columns.iter_mut().enumerate() {
        if col.attr.eq_ignore_ascii_case("Name") {
            at.name = Some(i);
            if v.name_width != 0 {
                col.width = v.name_width;
                if !wide {
                    col.opts &= !AUTO_WIDTH;
                }
                if v.name_auto {
                    col.opts |= AUTO_WIDTH;
                }
            } else if v.name_auto {
                col.opts |= AUTO_WIDTH;
            }
        } else if col.attr.eq_ignore_ascii_case("Machine") {
            at.machine = Some(i);
            if v.machine_width != 0 {
                col.width = v.machine_width;
                col.opts &= !AUTO_WIDTH;
                if v.machine_auto {
                    col.opts |= AUTO_WIDTH;
                }
            }
        }
    }
    at
}

/// `prettyPrintHeadings`' fitting: on a terminal, narrows the Name (and Machine) columns so
/// that the rows fit.
fn fit_to_terminal(mask: &mut PrintMask, at: NameCols, fixed: i32, display: i32) {
    if fixed <= 0 {
        return;
    }
    let width_of = |ix: Option<usize>| ix.map_or(0, |i| mask.columns[i].width.abs());
    let (mut name_w, mut mach_w) = (width_of(at.name), width_of(at.machine));
    let mut remain = display - fixed;
    if at.name.is_some() {
        remain -= name_w;
    }
    if at.machine.is_some() {
        remain -= mach_w;
    }
    if remain >= 0 {
        return;
    }
    let mut crop = -remain;
    if at.name.is_some() {
        if at.machine.is_some() {
            let m = (mach_w - crop / 2).max(7);
            crop -= mach_w - m;
            mach_w = m;
        }
        name_w = (name_w - crop).max(12);
    } else if at.machine.is_some() {
        mach_w = (mach_w - crop).max(7);
    }
    for (ix, w) in [(at.name, name_w), (at.machine, mach_w)] {
        if let Some(i) = ix {
            if w != 0 {
                let col = &mut mask.columns[i];
                col.width = w;
                col.opts &= !(AUTO_WIDTH | NO_TRUNCATE);
            }
        }
    }
}

/// `ClassadSortSpecs::RenderKey`: each key's value as text, a newline after each, then the
/// ordinal in hex.
fn sort_key(keys: &[Expr], ordinal: u32, ad: &ClassAd) -> String {
    let mut key = String::new();
    for k in keys {
        let text = match ad.eval_expr(k, None) {
            Value::Real(r) => (r.to_bits() as i64).to_string(),
            Value::Int(i) => i.to_string(),
            Value::Bool(b) => (b as i64).to_string(),
            Value::Str(s) => s.to_string(),
            other => views::value_text(&other),
        };
        key.push_str(&text);
        key.push('\n');
    }
    key.push_str(&format!("{ordinal:08X}"));
    key
}

/// The ads of an `-ads` file, as `read_classad_file` reads them: those the constraint
/// selects, at most `limit`.
fn read_ads_file(
    path: &str,
    form: FileForm,
    constraint: &str,
    limit: Option<usize>,
    err: &mut dyn Write,
) -> Vec<ClassAd> {
    let mut text = String::new();
    let read = if path == "-" {
        std::io::stdin().read_to_string(&mut text).is_ok()
    } else {
        std::fs::read(path)
            .map(|b| text = String::from_utf8_lossy(&b).into_owned())
            .is_ok()
    };
    if !read {
        let _ = writeln!(err, "Can't open file of ClassAds: {path}");
        return Vec::new();
    }
    let filter = if constraint.is_empty() {
        None
    } else {
        match parse_old_expr(constraint) {
            Ok(e) => Some(e),
            Err(_) => {
                let _ = writeln!(err, "Invalid constraint expression : {constraint}");
                return Vec::new();
            }
        }
    };
    let form = match form {
        FileForm::Auto => guess_form(&text),
        f => f,
    };
    let parsed = match form {
        FileForm::Json => crate::classad::json::parse_json_ads(&text).map_err(|e| e.to_string()),
        FileForm::New => parse_new_ads(&text),
        FileForm::Xml => Err("XML ads are not supported".to_owned()),
        _ => crate::classad::parse_old_ads(&text).map_err(|e| e.to_string()),
    };
    let ads = match parsed {
        Ok(ads) => ads,
        Err(e) => {
            let _ = writeln!(
                err,
                "Unexpected error reading file of ClassAds: {path}: {e}"
            );
            return Vec::new();
        }
    };
    let limit = limit.unwrap_or(usize::MAX);
    ads.into_iter()
        .filter(|ad| filter.as_ref().is_none_or(|f| constraint_holds(f, ad)))
        .take(limit)
        .collect()
}

/// `Parse_auto`: the form a file's first character suggests.
fn guess_form(text: &str) -> FileForm {
    let t = text.trim_start();
    if t.starts_with('<') {
        FileForm::Xml
    } else if let Some(rest) = t.strip_prefix('[') {
        if rest.trim_start().starts_with('{') {
            FileForm::Json
        } else {
            FileForm::New
        }
    } else if t.starts_with('{') {
        FileForm::Json
    } else {
        FileForm::Long
    }
}

/// Ads in new syntax (`[ a = 1; ... ]`), one after another.
fn parse_new_ads(text: &str) -> Result<Vec<ClassAd>, String> {
    let mut parser = crate::classad::parser::Parser::new(text, crate::classad::lexer::Dialect::New);
    let mut ads = Vec::new();
    while !parser.at_end() {
        ads.push(parser.classad().map_err(|e| e.to_string())?);
    }
    Ok(ads)
}

/// The pool's ads of one kind from the running master, those the constraint selects, at most
/// `limit`; `Err` once the failure is reported.
fn query_master(
    config: &Config,
    kind: Option<AdKind>,
    constraint: &str,
    limit: Option<usize>,
    err: &mut dyn Write,
) -> Result<Vec<ClassAd>, CommandError> {
    let filter = if constraint.is_empty() {
        None
    } else {
        match parse_old_expr(constraint) {
            Ok(e) => Some(e),
            Err(_) => {
                let _ = writeln!(err, "Error: invalid constraint\n");
                return Err(CommandError::Exit(1));
            }
        }
    };
    // -any: every kind of ad the pool has.
    let kinds = kind.map_or(AdKind::ALL.to_vec(), |k| vec![k]);
    let answers: Result<Vec<Vec<ClassAd>>, MasterError> =
        kinds.iter().map(|k| master::query(config, *k)).collect();
    let ads = match answers.map(|a| a.concat()) {
        Ok(ads) => ads,
        Err(MasterError::NotRunning(_)) => {
            let port = config
                .int("SHARED_PORT_PORT")
                .ok()
                .flatten()
                .unwrap_or(9618);
            let _ = writeln!(
                err,
                "Error: communication error\nCEDAR:6001:Failed to connect to <127.0.0.1:{port}>\n{}",
                master::start_hint(config)
            );
            return Err(CommandError::Exit(1));
        }
        Err(e) => {
            let _ = writeln!(err, "Error: communication error\n{e}");
            return Err(CommandError::Exit(1));
        }
    };
    let limit = limit.unwrap_or(usize::MAX);
    Ok(ads
        .into_iter()
        .filter(|ad| filter.as_ref().is_none_or(|f| constraint_holds(f, ad)))
        .take(limit)
        .collect())
}

/// `-print-format FILE` (`set_status_print_mask_from_stream`): the format's messages go to
/// stderr and the reading goes on; a file that cannot be read, or a format that aggregates
/// (`SELECT UNIQUE`, `FROM AUTOCLUSTER`), is refused.
fn load_print_format(file: &str, err: &mut dyn Write) -> Result<PrintFormat, CommandError> {
    let text = match read_format_arg(file) {
        Ok(Some(text)) => Ok(text),
        Ok(None) | Err(FormatArgError::NoFileName) => unreachable!("refused by the reading"),
        Err(e) => Err(e),
    };
    status_print_format(file, text, err).ok_or_else(|| {
        let _ = writeln!(err, "Error: invalid select file {file}");
        CommandError::Exit(1)
    })
}

/// The print-format file the pool puts in place of the mode's table (`ppInitPrintMask`):
/// none when its knob is unset or names nothing that exists; a file that cannot be read, or
/// that aggregates, is reported with a warning and the table is used.
fn pool_print_format(config: &Config, mode: Mode, err: &mut dyn Write) -> Option<PrintFormat> {
    let knob = mode.print_format_knob();
    let (file, text) = printformat::default_format_file(config, knob)?;
    let pf = status_print_format(&file, text, err);
    if pf.is_none() {
        let _ = writeln!(
            err,
            "Warning: default {knob} select file '{file}' is invalid"
        );
    }
    pf
}

/// A print format read for condor_status (`set_status_print_mask_from_stream`), its
/// messages written: none when it could not be read or it aggregates.
fn status_print_format(
    file: &str,
    text: Result<String, FormatArgError>,
    err: &mut dyn Write,
) -> Option<PrintFormat> {
    let text = match text {
        Ok(text) => text,
        Err(FormatArgError::TooLarge) => {
            let _ = writeln!(err, "{}", FormatArgError::too_large(file));
            return None;
        }
        Err(_) => {
            let _ = writeln!(err, "Can't open select file: {file}");
            return None;
        }
    };
    let pf = printformat::parse(&text, &[views::SLOT_COUNT_TAG]);
    if pf.aggregate != Aggregate::None {
        let _ = writeln!(err, "print-format aggregation not supported");
        return None;
    }
    let _ = err.write_all(pf.messages.as_bytes());
    Some(pf)
}

/// `-direct NAME` (status.cpp): the daemon of the mode's kind that NAME names is located
/// first, and asked; condorlite's master answers for every daemon of this host, so NAME must
/// name one of them (its Name, its host, or the host's short name). The modes whose ads only
/// a collector has (-collector, -any) ignore it, as HTCondor does.
fn check_direct(
    config: &Config,
    mode: Mode,
    name: &str,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let (kind, daemon) = match mode {
        Mode::Master => (AdKind::Master, "master"),
        Mode::Slots
        | Mode::SlotsAvail
        | Mode::SlotsClaimed
        | Mode::SlotsGpus
        | Mode::StartDaemon
        | Mode::StartdGpus => (AdKind::Startd, "startd"),
        Mode::Schedd | Mode::ScheddRun | Mode::Submitters => (AdKind::Schedd, "schedd"),
        Mode::Negotiator => (AdKind::Negotiator, "negotiator"),
        Mode::Collector | Mode::Any => return Ok(()),
    };
    let full = crate::client::daemon_name(name, config);
    let fail = |err: &mut dyn Write, extra: Option<String>| {
        let _ = writeln!(err, "Error: Failed to locate {daemon} {name}");
        let _ = writeln!(err, "Can't find address for {daemon} {name}");
        if let Some(extra) = extra {
            let _ = writeln!(err, "{extra}");
        }
        CommandError::Exit(1)
    };
    let ads = match master::query(config, kind) {
        Ok(ads) => ads,
        Err(MasterError::NotRunning(_)) => {
            return Err(fail(err, Some(master::start_hint(config))));
        }
        Err(e) => return Err(fail(err, Some(e.to_string()))),
    };
    let found = ads.iter().any(|ad| {
        let ad_name = lookup_str(ad, "Name")
            .map(|s| s.to_string())
            .unwrap_or_default();
        let host = lookup_str(ad, "Machine")
            .map(|s| s.to_string())
            .unwrap_or_else(|| ad_name.clone());
        let short = host.split('.').next().unwrap_or(&host).to_owned();
        [ad_name.as_str(), host.as_str(), short.as_str()]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
            || full
                .as_deref()
                .is_some_and(|f| f.eq_ignore_ascii_case(&ad_name))
    });
    if found {
        Ok(())
    } else {
        Err(fail(err, None))
    }
}

/// `-pool HOST`: this host's pool is asked as without it. A host that does not resolve stops
/// condor_status as DCCollector does (status.cpp); a central manager elsewhere does not answer
/// the query (`Error: communication error` and `printNoCollectorContact`).
fn check_pool(
    config: &Config,
    pool: &str,
    expert: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    match locate_pool(config, pool) {
        PoolLocation::Local => return Ok(()),
        PoolLocation::UnknownHost(host) => report_unknown_pool_host(&host, expert, out, err),
        PoolLocation::Elsewhere(pool) => {
            let host = host_part(&pool);
            let addr = format!("<{host}:9618>");
            let _ = writeln!(err, "Error: communication error");
            let _ = writeln!(err, "CEDAR:6001:Failed to connect to {addr}");
            let _ = err
                .write_all(no_collector_contact(&format!("{host} ({addr})"), !expert).as_bytes());
        }
    }
    Err(CommandError::Exit(1))
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let args = StatusArgs::parse(inv);
    let config = Config::load().map_err(|e| CommandError::failed(1, e.to_string()))?;
    for note in &args.notes {
        let _ = writeln!(err, "{note}");
    }
    match &args.action {
        Action::Query => {}
        Action::Help(topic) => {
            // Where every condorlite tool prints its help (HTCondor: stderr).
            usage(out, topic.as_deref());
            return Ok(());
        }
        Action::Version => {
            let _ = writeln!(out, "{CONDOR_VERSION}\n{CONDOR_PLATFORM}");
            return Ok(());
        }
        Action::Refuse(refusal) => {
            refusal.report(err);
            return Err(CommandError::Exit(1));
        }
    }
    if let Some(pool) = &args.pool {
        check_pool(&config, pool, args.expert, out, err)?;
    }
    let mode = args.mode;
    if let Some(name) = &args.direct {
        check_direct(&config, mode, name, err)?;
    }
    let slots = mode.ad_kind() == Some(AdKind::Slots);
    let mut and_constraints: Vec<String> = Vec::new();
    let mut or_constraints: Vec<String> = Vec::new();
    if !args.compact {
        match mode {
            Mode::SlotsAvail => {
                or_constraints.push("State == \"Unclaimed\" && Cpus > 0 && Memory > 0".to_owned())
            }
            Mode::SlotsClaimed => or_constraints.push("State == \"Claimed\"".to_owned()),
            _ => {}
        }
    } else {
        and_constraints.push(
            match mode {
                Mode::SlotsAvail => "State == \"Unclaimed\" && Cpus > 0 && Memory > 0",
                Mode::SlotsClaimed => views::CLAIMED_COMPACT_WHERE,
                _ => views::STARTD_COMPACT_WHERE,
            }
            .to_owned(),
        );
    }
    and_constraints.extend(args.constraints.iter().cloned());
    for w in &args.names {
        let Some(name) = crate::client::daemon_name(w, &config) else {
            let host = w.rsplit('@').next().unwrap_or(w);
            let _ = writeln!(err, "{NAME}: unknown host {host}");
            return Err(CommandError::Exit(1));
        };
        if mode == Mode::SlotsClaimed {
            or_constraints.push(format!("RemoteUser == \"{w}\""));
        } else {
            or_constraints.push(format!("Name==\"{name}\" || Machine==\"{name}\""));
        }
    }
    let mut sort_keys = args.sort_keys.clone();
    if sort_keys.is_empty() && !args.no_sort {
        for k in ["Machine", "Name"] {
            sort_keys.push(parse_old_expr(k).expect("an attribute name"));
        }
    }
    if args.compact {
        // Machine, then slot type, first.
        let join = parse_old_expr("join(\":\",Machine,SlotTypeId)").expect("a valid key");
        let first_is_machine = sort_keys
            .first()
            .is_some_and(|k| matches!(k, Expr::Attr(n) if n.eq_ignore_ascii_case("Machine")));
        if first_is_machine {
            sort_keys[0] = join;
        } else {
            sort_keys.insert(0, join);
        }
    }

    // The table.
    let (width, piped) = display_width(&args);
    let display = width - 1;
    let mut mask = PrintMask::new();
    let mut cols = Cols::default();
    let mut names = NameCols::default();
    let mut fixed = -1;
    let mut headfoot = args.headfoot;
    // The totals: none with a print format (24.0 keeps `PP_CUSTOM` as the totals' style),
    // the state table's (the startd daemons') with -gpus.
    let total_style = match args.style {
        Pp::SlotsGpus => Pp::SlotsState,
        Pp::StartdGpus => Pp::StartDaemon,
        style => style,
    };
    let table = args.style != Pp::Custom
        && !args.style.longish()
        && !args.explicit_format
        && !args.only_totals;
    let file_format = match args.print_format.as_deref() {
        Some(file) if args.style == Pp::Custom => Some(load_print_format(file, err)?),
        // ppInitPrintMask: the pool's own file for the mode, if it has one, else the table.
        _ if table && !args.no_default_formats => pool_print_format(&config, mode, err),
        _ => None,
    };
    if let Some(pf) = file_format {
        mask = pf.mask;
        if args.forced_width > 0 || (!args.wide && !piped) {
            mask.overall_width = display.max(0) as usize;
        }
        headfoot = pf.head_foot;
        if let Some(w) = pf.where_expr {
            and_constraints.push(w);
        }
    } else if args.style.longish() {
        headfoot = HF_BARE;
    } else if table {
        if let Some(v) = view_of(&args, display) {
            mask.set_separators(None, Some(" "), None, Some("\n"));
            if args.forced_width > 0 || (!args.wide && !piped) {
                mask.overall_width = display.max(0) as usize;
            }
            views::register_lines(&mut mask, &v.lines);
            names = adjust_names(&mut mask, &v, args.wide);
            headfoot = if v.summary { 0 } else { HF_NOSUMMARY };
            if let Some(c) = v.constraint {
                and_constraints.push(c.to_owned());
            }
            cols = v.cols;
            fixed = v.fixed_width;
        }
    } else if !args.formats.is_empty() {
        for f in &args.formats {
            if let Err(bad) = add_format_args(&mut mask, std::slice::from_ref(f)) {
                if let FormatArg::Format { .. } = f {
                    let _ = writeln!(err, "Error:  Parse error of: {bad}");
                }
                return Err(CommandError::Exit(1));
            }
        }
    }

    // The ads.
    let req = requirements(&and_constraints, &or_constraints);
    let ads = match &args.ads_file {
        Some(file) => read_ads_file(&file.path, file.form, &req, args.limit, err),
        None => query_master(&config, mode.ad_kind(), &req, args.limit, err)?,
    };

    let mut totals = (headfoot & HF_NOSUMMARY == 0).then(|| Totals::new(total_style));
    let columns = !mask.is_empty();
    let env = RenderEnv::default();
    let mut rows: Vec<Slot> = Vec::new();
    let mut kept: Vec<(String, ClassAd)> = Vec::new();
    for (n, mut ad) in ads.into_iter().enumerate() {
        let ordinal = n as u32 + 1;
        // Compact keys put a dynamic slot's (negative) slot type with its partitionable slot.
        let type_id = lookup_int(&ad, "SlotTypeID");
        let flipped = args.compact && type_id.is_some_and(|t| t < 0);
        if flipped {
            ad.insert("SlotTypeID", Expr::lit(-type_id.unwrap_or(0)));
        }
        let key = sort_key(&sort_keys, ordinal, &ad);
        if flipped {
            ad.insert("SlotTypeID", Expr::lit(type_id.unwrap_or(0)));
        }
        if let Some(t) = totals.as_mut() {
            if !columns || !args.compact {
                t.update(&ad, 0, None);
            }
        }
        if !columns {
            kept.push((key, ad));
            continue;
        }
        let mut row = mask.render(&ad, &env);
        let flags = compact::slot_flags(&ad);
        if let (Some(t), true) = (totals.as_mut(), args.compact) {
            let bk = if flags & compact::BACKFILL != 0 {
                totals::BACKFILL_SLOTS
            } else {
                0
            };
            let subkey = match total_style {
                Pp::SlotsState => String::new(),
                _ => cols
                    .platform
                    .and_then(|p| compact::text(&row, p))
                    .filter(|_| cols.platform.is_some_and(|p| row[p].is_valid()))
                    .unwrap_or_default(),
            };
            if !subkey.is_empty() {
                t.note_subkey(subkey.len());
            }
            let key = Some(subkey.as_str());
            t.update(
                &ad,
                bk | totals::ROLLUP_PARTITIONABLE | totals::IGNORE_DYNAMIC,
                key,
            );
            let p = compact::PARTITIONABLE;
            if flags & (p | compact::EXHAUSTED | compact::BACKFILL) == p {
                t.update(&ad, bk | totals::IGNORE_DYNAMIC, key);
            }
        }
        let label = match cols.machine_slot {
            Some(_) => lookup_str(&ad, "Name")
                .map(|n| n.split('@').next().unwrap_or_default().to_owned())
                .unwrap_or_default(),
            None => String::new(),
        };
        if let (true, true, Some(ac)) = (
            args.compact,
            flags & compact::PARTITIONABLE != 0,
            cols.act_code,
        ) {
            compact::roll_up_children(&mut row, &ad, flags, ac);
        }
        rows.push(Slot {
            key,
            row,
            flags,
            label,
        });
    }
    rows.sort_by(|a, b| natural_cmp(&a.key, &b.key).cmp(&0));
    kept.sort_by(|a, b| natural_cmp(&a.0, &b.0).cmp(&0));

    if args.compact && slots {
        if args.only_totals {
            let _ = writeln!(
                err,
                "Warning: ignoring -compact option because -total option is also set"
            );
        } else {
            compact::reduce(&mut rows, &cols);
        }
    }

    let mut text = String::new();
    let any = !rows.is_empty() || !kept.is_empty();
    // Headings.
    let custom = args.style == Pp::Custom;
    if custom {
        if !args.only_totals && mask.has_headings() && headfoot & HF_NOHEADER == 0 {
            text.push_str(&mask.headings_line());
        }
    } else if !args.style.longish() {
        if any && !args.wide && !piped {
            fit_to_terminal(&mut mask, names, fixed, display);
        }
        if !args.only_totals && any && columns {
            text.push_str(&mask.headings_line());
            text.push('\n');
        }
    }
    if args.style == Pp::Xml {
        text.push_str(XML_HEADER);
    }
    let mut printed = 0;
    for slot in rows.iter().filter(|s| s.flags & compact::FOLDED == 0) {
        mask.display(&mut text, &slot.row);
    }
    if !args.only_totals {
        for (_, ad) in &kept {
            print_ad(&mut text, &args, ad, printed);
            printed += 1;
        }
    }
    match args.style {
        Pp::Xml => text.push_str(XML_FOOTER),
        Pp::Json if printed > 0 => text.push_str("]\n"),
        Pp::NewClassad if printed > 0 => text.push_str("}\n"),
        _ => {}
    }
    if let Some(t) = totals.as_ref().filter(|t| any && t.have_totals()) {
        text.push('\n');
        let key_width = if args.wide || total_style == Pp::SubmitterNormal {
            None
        } else {
            Some(t.key_width())
        };
        t.display(&mut text, key_width);
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// One whole ad in the `-long`, `-xml`, `-json` or new-ClassAd form (`prettyPrintAd`).
fn print_ad(text: &mut String, args: &StatusArgs, ad: &ClassAd, printed: usize) {
    let only = (!args.attributes.is_empty()).then_some(&args.attributes[..]);
    let listed = |name: &str| only.is_some_and(|o| o.iter().any(|x| x.eq_ignore_ascii_case(name)));
    if args.style == Pp::Long && args.hash_order && only.is_some() {
        // -long:nosort with -attributes: the ad's own order.
        let own: Vec<_> = ad.iter().filter(|(n, _)| listed(n)).collect();
        write_long(text, &own);
        if !own.is_empty() {
            text.push('\n');
        }
        return;
    }
    let attrs: Vec<(&str, &Expr)> = if !args.hash_order || only.is_some() {
        let sel = Selection {
            only,
            sorted: true,
            exclude_private: true,
        };
        select(ad, &sel)
    } else if args.style == Pp::Long {
        // sPrintAd: sorted, but byte by byte.
        let sel = Selection {
            only: None,
            sorted: false,
            exclude_private: true,
        };
        let mut attrs = select(ad, &sel);
        attrs.sort_by(|a, b| a.0.cmp(b.0));
        attrs
    } else {
        ad.iter().collect()
    };
    match args.style {
        Pp::Long => {
            write_long(text, &attrs);
            text.push('\n');
        }
        Pp::Xml => {
            xml_ad_attrs(text, attrs.iter().copied());
            text.push('\n');
        }
        Pp::Json => {
            text.push_str(if printed == 0 { "[\n" } else { ",\n" });
            json_ad_attrs(text, attrs.iter().copied(), 0, false);
            text.push('\n');
        }
        Pp::NewClassad => {
            text.push_str(if printed == 0 { "{\n" } else { ",\n" });
            let sub = ClassAd::from_attrs(
                attrs
                    .iter()
                    .map(|(n, e)| (std::sync::Arc::from(*n), (*e).clone()))
                    .collect(),
            );
            write_ad_inline(text, &sub, Syntax::New);
            text.push('\n');
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(words: &[&str]) -> StatusArgs {
        StatusArgs::parse(&TOOL.parse_words(words).expect("a valid command line"))
    }

    fn refusal(words: &[&str]) -> Refusal {
        match parse(words).action {
            Action::Refuse(r) => r,
            other => panic!("{words:?} is not refused: {other:?}"),
        }
    }

    fn use_help(message: &str) -> Refusal {
        Refusal::UseHelp(message.to_owned())
    }

    #[test]
    fn nothing_given() {
        let args = parse(&[]);
        assert_eq!(args.action, Action::Query);
        assert_eq!(args.mode, Mode::Slots);
        assert_eq!(args.style, Pp::SlotsNormal);
        assert_eq!(args.headfoot, 0);
        assert!(!args.wide && !args.compact && !args.only_totals && !args.explicit_format);
        assert_eq!(args.forced_width, 0);
        assert_eq!(args.limit, None);
        assert_eq!(args.ads_file, None);
        assert!(args.constraints.is_empty() && args.names.is_empty());
        assert!(args.sort_keys.is_empty() && !args.no_sort);
        assert!(args.formats.is_empty() && args.attributes.is_empty());
        assert!(!args.hash_order);
        assert!(args.notes.is_empty());
    }

    #[test]
    fn modes() {
        let mode = |words: &[&str]| {
            let args = parse(words);
            assert_eq!(args.action, Action::Query, "{words:?}");
            (args.mode, args.style)
        };
        assert_eq!(mode(&["-slots"]), (Mode::Slots, Pp::SlotsNormal));
        assert_eq!(mode(&["-avail"]), (Mode::SlotsAvail, Pp::SlotsNormal));
        assert_eq!(mode(&["-claimed"]), (Mode::SlotsClaimed, Pp::SlotsRun));
        assert_eq!(mode(&["-run"]), (Mode::ScheddRun, Pp::ScheddRun));
        assert_eq!(mode(&["-startd"]), (Mode::StartDaemon, Pp::StartDaemon));
        assert_eq!(mode(&["-schedd"]), (Mode::Schedd, Pp::ScheddNormal));
        assert_eq!(
            mode(&["-submitters"]),
            (Mode::Submitters, Pp::SubmitterNormal)
        );
        assert_eq!(
            mode(&["-negotiator"]),
            (Mode::Negotiator, Pp::NegotiatorNormal)
        );
        assert_eq!(mode(&["-master"]), (Mode::Master, Pp::MasterNormal));
        assert_eq!(
            mode(&["-collector"]),
            (Mode::Collector, Pp::CollectorNormal)
        );
    }

    #[test]
    fn run_and_schedd_refine_the_mode() {
        let mode = |words: &[&str]| parse(words).mode;
        assert_eq!(mode(&["-slots", "-run"]), Mode::SlotsClaimed);
        assert_eq!(mode(&["-claimed", "-run"]), Mode::SlotsClaimed);
        assert_eq!(mode(&["-schedd", "-run"]), Mode::ScheddRun);
        assert_eq!(mode(&["-claimed", "-schedd"]), Mode::ScheddRun);
        assert_eq!(mode(&["-run", "-schedd"]), Mode::ScheddRun);
        assert_eq!(parse(&["-slots", "-run"]).style, Pp::SlotsRun);
        assert_eq!(parse(&["-master", "-master"]).mode, Mode::Master);
    }

    #[test]
    fn conflicting_modes() {
        assert_eq!(
            refusal(&["-schedd", "-master"]),
            Refusal::Error("Error:  Arg 2 (-master) contradicts arg 1 (-schedd)".into())
        );
        assert_eq!(
            refusal(&["-avail", "-startd"]),
            Refusal::Error("Error:  Arg 2 (-startd) contradicts arg 1 (-avail)".into())
        );
    }

    #[test]
    fn styles() {
        let style = |words: &[&str]| parse(words).style;
        assert_eq!(style(&["-server"]), Pp::SlotsServer);
        assert_eq!(style(&["-state"]), Pp::SlotsState);
        assert_eq!(style(&["-long"]), Pp::Long);
        assert_eq!(style(&["-long:xml"]), Pp::Xml);
        assert_eq!(style(&["-long:json"]), Pp::Json);
        assert_eq!(style(&["-long:new"]), Pp::NewClassad);
        assert_eq!(style(&["-xml"]), Pp::Xml);
        assert_eq!(style(&["-json"]), Pp::Json);
        assert_eq!(style(&["-json", "-state"]), Pp::Json);
        assert_eq!(style(&["-state", "-long"]), Pp::Long);
        assert!(parse(&["-long:nosort"]).hash_order);
        assert!(!parse(&["-long:json"]).hash_order);
    }

    #[test]
    fn a_style_that_cannot_replace_the_last_is_noted() {
        let args = parse(&["-state", "-server"]);
        assert_eq!(args.action, Action::Query);
        assert_eq!(args.style, Pp::SlotsState);
        assert_eq!(
            args.notes,
            ["Error:  arg 2 (-server) contradicts arg 1 (-state)"]
        );
    }

    #[test]
    fn format() {
        let args = parse(&["-format", "%s\\n", "Name"]);
        assert_eq!(
            args.formats,
            [FormatArg::Format {
                format: "%s\\n".into(),
                attr: "Name".into()
            }]
        );
        assert_eq!(args.style, Pp::Custom);
        assert_eq!(args.headfoot, HF_BARE);
        assert!(args.explicit_format);
    }

    #[test]
    fn autoformat() {
        let args = parse(&[
            "-af:h",
            "Name",
            "Cpus",
            "-",
            "host1",
            "-autoformat",
            "Memory",
        ]);
        assert_eq!(
            args.formats,
            [
                FormatArg::AutoFormat {
                    qualifiers: Some("h".into()),
                    attrs: vec!["Name".into(), "Cpus".into()]
                },
                FormatArg::AutoFormat {
                    qualifiers: None,
                    attrs: vec!["Memory".into()]
                }
            ]
        );
        assert_eq!(args.names, ["host1"]);
        assert_eq!(args.style, Pp::Custom);
        assert_eq!(args.headfoot, HF_NOSUMMARY);
        assert!(args.explicit_format);
    }

    #[test]
    fn options_without_their_values() {
        for (words, message) in [
            (
                &["-ads"][..],
                "condor_status: -ads requires a filename argument",
            ),
            (
                &["-format", "%s"],
                "condor_status: -format requires two other arguments",
            ),
            (
                &["-constraint"],
                "condor_status: -constraint requires another argument",
            ),
            (&["-sort"], "condor_status: -sort requires another argument"),
            (
                &["-limit"],
                "condor_status: -limit requires one additional argument",
            ),
            (
                &["-attributes"],
                "condor_status: -attributes requires one additional argument",
            ),
            (
                &["-af"],
                "Error: Argument -af requires at least one attribute parameter",
            ),
            (
                &["-autoformat", "-long"],
                "Error: Argument -autoformat requires at least one attribute parameter",
            ),
        ] {
            assert_eq!(refusal(words), use_help(message), "{words:?}");
        }
    }

    #[test]
    fn totals() {
        let args = parse(&["-totals"]);
        assert!(args.only_totals && args.explicit_format);
        assert_eq!(args.headfoot, 1 | HF_NOHEADER);
        assert_eq!(parse(&["-totals", "-af", "Name"]).headfoot, HF_NOSUMMARY);
    }

    #[test]
    fn wide() {
        let args = parse(&["-wide"]);
        assert!(args.wide);
        assert_eq!(args.forced_width, 0);
        let args = parse(&["-wide:80"]);
        assert!(!args.wide);
        assert_eq!(args.forced_width, 80);
        let args = parse(&["-wide:200"]);
        assert!(args.wide);
        assert_eq!(args.forced_width, 200);
    }

    #[test]
    fn compact() {
        assert!(parse(&["-compact"]).compact);
        assert!(parse(&["-slots", "-compact"]).compact);
        assert!(!parse(&["-compact", "-nocompact"]).compact);
        assert!(!parse(&["-compact", "-slots"]).compact);
        assert_eq!(
            refusal(&["-schedd", "-compact"]),
            Refusal::Error("Error:  arg (-compact) contradicts arg 1 (-schedd) ".into())
        );
        assert_eq!(
            refusal(&["-compact", "-startd"]),
            Refusal::Error(
                "Error:  arg (-compact) contradicts arg 2 (-startd) remove -startd from \
                 command or use -slot instead"
                    .into()
            )
        );
    }

    #[test]
    fn limit() {
        assert_eq!(parse(&["-limit", "5"]).limit, Some(5));
        assert_eq!(parse(&["-limit", "5", "-limit", "0"]).limit, None);
        assert_eq!(parse(&["-limit", "-3"]).limit, None);
    }

    #[test]
    fn constraints_and_sort_keys() {
        let args = parse(&[
            "-sort",
            "Memory",
            "-constraint",
            "Cpus > 1",
            "-sort",
            "Cpus",
        ]);
        assert_eq!(
            args.constraints,
            ["Memory =!= UNDEFINED", "Cpus > 1", "Cpus =!= UNDEFINED"]
        );
        assert_eq!(args.sort_keys.len(), 2);
        assert!(!args.no_sort);
        let args = parse(&["-sort", "Memory", "-constraint", "Cpus > 1", "-sort", "no"]);
        assert!(args.no_sort);
        assert_eq!(args.constraints, ["Cpus > 1"]);
        assert!(parse(&["-sort", "NONE"]).no_sort);
        assert_eq!(
            refusal(&["-sort", "(("]),
            Refusal::Error("Error:  Parse error of: ((".into())
        );
    }

    #[test]
    fn attributes() {
        let args = parse(&[
            "-attributes",
            "Name, cpus,NAME",
            "-attributes",
            "Memory,Cpus",
        ]);
        assert_eq!(args.attributes, ["Name", "cpus", "Memory"]);
    }

    #[test]
    fn ads_file() {
        let file = |words: &[&str]| parse(words).ads_file;
        let ads = |path: &str, form| {
            Some(AdsFile {
                path: path.into(),
                form,
            })
        };
        assert_eq!(file(&["-ads", "a.txt"]), ads("a.txt", FileForm::Long));
        assert_eq!(
            file(&["-ads:json", "a.json"]),
            ads("a.json", FileForm::Json)
        );
        assert_eq!(file(&["-ads:auto", "-"]), ads("-", FileForm::Auto));
        assert_eq!(file(&["-ads:odd", "a"]), ads("a", FileForm::Long));
    }

    #[test]
    fn names_and_unknown_options() {
        assert_eq!(
            parse(&["slot1@host", "host2"]).names,
            ["slot1@host", "host2"]
        );
        assert_eq!(
            refusal(&["host", "-bogus"]),
            Refusal::UnknownOption("-bogus".into())
        );
        for ignored in ["-natural", "-natural:off", "-debug", "-expert"] {
            assert_eq!(parse(&[ignored]).action, Action::Query, "{ignored}");
        }
    }

    #[test]
    fn help_and_version_stop_the_reading() {
        assert_eq!(parse(&["-help"]).action, Action::Help(None));
        assert_eq!(
            parse(&["-help", "all"]).action,
            Action::Help(Some("all".into()))
        );
        assert_eq!(
            parse(&["-help", "-bogus"]).action,
            Action::Help(Some("-bogus".into()))
        );
        assert_eq!(parse(&["-version", "-bogus"]).action, Action::Version);
        assert_eq!(
            refusal(&["-bogus", "-help"]),
            Refusal::UnknownOption("-bogus".into())
        );
    }
}
