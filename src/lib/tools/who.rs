//! `condor_who`: the jobs running on this machine's slots, as HTCondor 24.0's
//! src/condor_who/who.cpp shows them: the startd's slot ads that have a `JobId`, with the
//! job's process id and program.
//!
//! - Default view: `OWNER` (`RemoteOwner`), `CLIENT` (`ClientMachine`), `SLOT` (`SlotID`; a
//!   dynamic slot's name after `slot` up to `@`, `1_1`), `JOB` (`JobId`), `  RUNTIME`
//!   (`TotalJobRunTime` as `format_time`), `PID` and `PROGRAM` (the job's process and its
//!   command line). Columns grow to their widest value, one space apart; a line is cut at
//!   the terminal's width less one (1024 when the output is not a terminal) unless `-wide`.
//!   The table is preceded by an empty line and followed by one.
//! - `-l[ong]`: the whole slot ads, attributes sorted, an empty line after each.
//! - `-af[:lhVr,tng] attr ...` (`-autoformat`): those attributes, as `condor_q -af`;
//!   `#SLOT`, `#PID`, `#PROGRAM` and `#RUNTIME` are the default view's derived columns.
//!   `-f[ormat]` is accepted and ignored, as who.cpp does.
//! - No running master (no startd to ask): nothing is printed, exit 0, as who.cpp when it
//!   finds no startd address in the log directory.
//!
//! The job's process is found where the starter recorded it (the waiter's record in the
//! job's scratch directory) rather than in the StarterLog, and its program from
//! `/proc/<pid>/cmdline` (who.cpp runs `ps -F`). The options that look at daemons rather
//! than jobs (`-daemons`, `-quick`, `-wait-for-ready`, `-address`, `-logdir`, `-pid`,
//! `-allpids`, `-snapshot`, `-statistics`, `-job`, `-ping_all_addrs`) are refused: there is
//! one startd, the master's.

use std::io::Write;

use clap::Command;

use super::argv::{flag_option, words};
use super::Tool;
use crate::classad::{ClassAd, Expr};
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::client::master::{self, AdKind, MasterError};
use crate::client::Session;
use crate::error::CommandError;
use crate::output::autoformat::add_autoformat;
use crate::output::mask::{Column, PrintMask, Render, RenderEnv, AUTO_WIDTH, LEFT, NO_TRUNCATE};
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::output::time::format_time;
use crate::queue::JobId;

pub const TOOL: Tool = Tool {
    name: "condor_who",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // who.cpp matches its options itself (is_arg_prefix with its own minimum lengths).
        unknown: Unknown::Verbatim,
    },
    usage_status: 1,
    run,
};

const NAME: &str = "condor_who";

/// The attributes condor_who adds to a slot ad for its derived columns (who.cpp keeps them
/// in maps keyed by job id).
const PID_ATTR: &str = "CondorWhoJobPid";
const PROGRAM_ATTR: &str = "CondorWhoJobProgram";

pub fn command() -> Command {
    Command::new(NAME)
        .about("Display the jobs running on this machine")
        .long_about(
            "Show the jobs running on this machine's slots: who owns them, the slot, the \
             job id, how long they have run, their process id and program; or the whole \
             slot ads (-long), or chosen attributes (-af).",
        )
        .after_help("Exit status: 0, also when no master runs; 1 for a bad command line.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag_option("help", "Display this screen, then exit"))
        .arg(flag_option("long", "Display entire classads"))
        .arg(flag_option(
            "wide",
            "Don't truncate fields to fit the screen",
        ))
        .arg(flag_option(
            "af",
            "-af[:lhVr,tng] <attr> [attr2 [...]]: print attr(s) with automatic formatting",
        ))
        .arg(flag_option(
            "autoformat",
            "-autoformat[:lhVr,tng] <attr> [...]: as -af",
        ))
        .arg(words("args", "ATTR", "The attributes of -af"))
}

fn usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "Usage: {NAME} [help-opt] [display-opt]
    where [help-opt] is one of
\t-h[elp]\t\t\tDisplay this screen, then exit
   and [display-opt] is one or more of
\t-l[ong]\t\t\tDisplay entire classads
\t-w[ide]\t\t\tdon't truncate fields to fit the screen
\t-f[ormat] <fmt> <attr>\tPrint attribute with a format specifier
\t-autoformat[:lhVr,tng] <attr> [<attr2> [...]]
\t-af[:lhVr,tng] <attr> [attr2 [...]]
\t    Print attr(s) with automatic formatting
\t    the [lhVr,tng] options modify the formatting
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
"
    );
}

/// `is_arg_prefix`: `word` (without its dash) is a prefix of `name` at least `min` long.
fn is_arg(word: &str, name: &str, min: usize) -> bool {
    word.len() >= min.min(name.len()) && name.starts_with(word)
}

/// `is_arg_colon_prefix`: as [`is_arg`], before an optional `:qualifiers`.
fn is_arg_colon<'w>(word: &'w str, name: &str, min: usize) -> Option<Option<&'w str>> {
    let (head, tail) = match word.split_once(':') {
        Some((h, t)) => (h, Some(t)),
        None => (word, None),
    };
    is_arg(head, name, min).then_some(tail)
}

/// What the command line asks for.
#[derive(Debug, Default)]
struct Request {
    long: bool,
    wide: bool,
    mask: PrintMask,
}

/// Adds one `-af` option's columns, with the derived `#` columns.
fn add_af(mask: &mut PrintMask, qualifiers: Option<&str>, attrs: &[String]) -> Result<(), String> {
    let start = mask.columns.len();
    let mut derived: Vec<(usize, &str)> = Vec::new();
    let mut names = Vec::new();
    for (i, a) in attrs.iter().enumerate() {
        let name = a.strip_prefix('#').unwrap_or(a);
        let attr = match name.to_ascii_lowercase().as_str() {
            _ if !a.starts_with('#') => a.as_str(),
            "slot" | "slotid" => "SlotID",
            "pid" => PID_ATTR,
            "program" => PROGRAM_ATTR,
            "runtime" => "TotalJobRunTime",
            _ => a.as_str(),
        };
        if attr != a.as_str() {
            derived.push((i, name));
        }
        names.push(attr.to_owned());
    }
    add_autoformat(mask, qualifiers, &names, false)?;
    for (i, name) in derived {
        let col = &mut mask.columns[start + i];
        match col.attr.as_str() {
            "SlotID" => col.render = Render::Str(render_slot_id),
            "TotalJobRunTime" => col.render = Render::IntFormat(format_time),
            _ => {}
        }
        if let Some(fmt) = col.printf().map(|f| f.replace(&col.attr, name)) {
            col.set_printf(&fmt);
        }
        if let Some(h) = mask.headings.get_mut(start + i) {
            // The heading (and the column's least width) is the name as given.
            *h = name.to_owned();
            col.width = name.len() as i32;
        }
    }
    Ok(())
}

fn read_args(
    words: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Request, CommandError> {
    let mut r = Request::default();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        if word == "--help" {
            usage(out);
            return Err(CommandError::Exit(0));
        }
        let Some(opt) = word.strip_prefix('-') else {
            // A target name: who.cpp collects them and asks nothing of them.
            i += 1;
            continue;
        };
        if is_arg(opt, "help", 1) {
            usage(out);
            return Err(CommandError::Exit(0));
        }
        if is_arg_colon(opt, "debug", 1).is_some() {
            if words.get(i + 1).is_some_and(|w| {
                let w = w.trim_start_matches(['"', '\'']);
                w.starts_with("D_")
            }) {
                i += 1;
            }
        } else if is_arg(opt, "wide", 1) {
            r.wide = true;
        } else if is_arg(opt, "long", 1) {
            r.long = true;
        } else if is_arg(opt, "format", 1) {
            // who.cpp accepts -format and does nothing with it.
        } else if let Some(q) =
            is_arg_colon(opt, "autoformat", 5).or_else(|| is_arg_colon(opt, "af", 2))
        {
            let attrs: Vec<String> = words[i + 1..]
                .iter()
                .take_while(|w| !w.starts_with('-'))
                .cloned()
                .collect();
            if attrs.is_empty() {
                let _ = writeln!(
                    err,
                    "Error: Argument {word} requires at least one attribute parameter"
                );
                let _ = writeln!(err, "Use \"{NAME} -help\" for details");
                return Err(CommandError::Exit(1));
            }
            if let Err(bad) = add_af(&mut r.mask, q, &attrs) {
                let _ = writeln!(err, "Error:  Parse error of: {bad}");
                return Err(CommandError::Exit(1));
            }
            i += attrs.len();
        } else if [
            ("diagnostic", 4),
            ("verbose", 4),
            ("daemons", 3),
            ("quick", 4),
            ("wait-for-ready", 4),
            ("timed", 5),
            ("address", 4),
            ("logdir", 3),
            ("pid", 3),
            ("allpids", 2),
            ("snapshot", 4),
            ("statistics", 4),
            ("job", 3),
            ("ping_all_addrs", 4),
        ]
        .iter()
        .any(|(name, min)| is_arg_colon(opt, name, *min).is_some())
        {
            let _ = writeln!(
                err,
                "Error: {word} is not supported by condorlite: its one startd is the \
                 condor_master's"
            );
            return Err(CommandError::Exit(1));
        } else {
            let _ = writeln!(err, "Error: {word} is not a valid argument");
            return Err(CommandError::Exit(1));
        }
        i += 1;
    }
    if r.mask.is_empty() {
        r.mask.set_separators(None, Some(" "), None, Some("\n"));
        let opts = NO_TRUNCATE | AUTO_WIDTH;
        let col =
            |attr: &str, width: i32, render: Render| Column::new(attr, None, width, opts, render);
        let printf =
            |attr: &str, width: i32| Column::new(attr, Some("%v"), width, opts, Render::Printf);
        r.mask.push_headed("OWNER", printf("RemoteOwner", 5));
        r.mask.push_headed("CLIENT", printf("ClientMachine", 6));
        r.mask.push_headed(
            "SLOT",
            col("SlotID", 4, Render::Str(render_slot_id)).with_left(),
        );
        r.mask.push_headed("JOB", printf("JobId", -6));
        r.mask.push_headed(
            "  RUNTIME",
            col("TotalJobRunTime", 12, Render::IntFormat(format_time)),
        );
        r.mask.push_headed("PID", printf(PID_ATTR, -6));
        r.mask
            .push_headed("PROGRAM", col(PROGRAM_ATTR, 7, Render::Printf).with_left());
    }
    Ok(r)
}

trait WithLeft {
    fn with_left(self) -> Self;
}

impl WithLeft for Column {
    fn with_left(mut self) -> Column {
        self.opts |= LEFT;
        self
    }
}

/// `render_slot_id`: a static slot's number, a dynamic slot's `1_1`.
fn render_slot_id(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    let id = lookup_int(ad, "SlotID")?;
    if lookup_bool(ad, "DynamicSlot") == Some(true) {
        return Some(match lookup_str(ad, "Name") {
            Some(name) if name.starts_with("slot") => {
                let rest = &name[4..];
                let rest = rest.split('@').next().unwrap_or(rest);
                // who.cpp copies into a 10-byte buffer.
                rest.chars().take(9).collect()
            }
            _ => format!("{id}_?"),
        });
    }
    Some(id.to_string())
}

/// The job's process and its command line, added to its slot ad.
fn add_process(session: &Session, ad: &mut ClassAd) {
    let Some(id) = lookup_str(ad, "JobId").and_then(|j| j.parse::<JobId>().ok()) else {
        return;
    };
    let universe = crate::queue::universe::VANILLA;
    let Some(dir) = super::tail::scratch_dir(session, id, universe) else {
        return;
    };
    // The record's pids are the job's only while its waiter runs (else they may be anyone's).
    let Some(waiter) = crate::starter::waiter::WaiterId::read(&dir).filter(|w| w.is_alive()) else {
        return;
    };
    let pid = waiter.job_pid;
    ad.insert(PID_ATTR, Expr::lit(i64::from(pid)));
    let cmdline = std::fs::File::open(format!("/proc/{pid}/cmdline"))
        .and_then(|f| crate::bounded::read_to_end(f, 64 << 10));
    if let Ok(cmdline) = cmdline {
        let program: Vec<String> = cmdline
            .split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        ad.insert(PROGRAM_ATTR, Expr::lit(program.join(" ")));
    }
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let words = inv.raw_strings();
    let mut r = read_args(&words, out, err)?;
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let ads = match master::query(&session.config, AdKind::Slots) {
        Ok(ads) => ads,
        // No startd to ask: nothing to show.
        Err(MasterError::NotRunning(_)) => return Ok(()),
        Err(e) => {
            let _ = writeln!(err, "Error: {e}");
            return Err(CommandError::Exit(1));
        }
    };
    let mut running: Vec<ClassAd> = ads
        .into_iter()
        .filter(|ad| ad.lookup("JobId").is_some())
        .collect();
    let mut text = String::new();
    if r.long {
        for ad in &running {
            text.push_str(&crate::classad::unparse::ad_to_old(ad, true));
            text.push('\n');
        }
        let _ = out.write_all(text.as_bytes());
        return Ok(());
    }
    if running.is_empty() {
        return Ok(());
    }
    for ad in &mut running {
        add_process(&session, ad);
    }
    if !r.wide {
        r.mask.overall_width = crate::output::console_width()
            .map(|w| w.saturating_sub(1))
            .unwrap_or(1024);
    }
    let env = RenderEnv::default();
    let rows: Vec<_> = running.iter().map(|ad| r.mask.render(ad, &env)).collect();
    // Once to size the columns, then for real.
    for row in &rows {
        r.mask.display(&mut String::new(), row);
    }
    text.push('\n');
    text.push_str(&r.mask.headings_line());
    for row in &rows {
        r.mask.display(&mut text, row);
    }
    text.push('\n');
    let _ = out.write_all(text.as_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_ids_as_who_shows_them() {
        let ad = |t: &str| crate::classad::parse_ad(t).unwrap();
        let env = RenderEnv::default();
        assert_eq!(
            render_slot_id(&ad("[SlotID = 2]"), &env).as_deref(),
            Some("2")
        );
        assert_eq!(
            render_slot_id(
                &ad(r#"[SlotID = 1; DynamicSlot = true; Name = "slot1_3@host"]"#),
                &env
            )
            .as_deref(),
            Some("1_3")
        );
        assert_eq!(
            render_slot_id(&ad(r#"[SlotID = 1; DynamicSlot = true; Name = "x"]"#), &env).as_deref(),
            Some("1_?")
        );
        assert_eq!(render_slot_id(&ad("[]"), &env), None);
    }

    #[test]
    fn options_are_matched_as_who_matches_them() {
        assert!(is_arg("w", "wide", 1) && is_arg("lon", "long", 1));
        assert!(!is_arg("autof", "af", 2));
        assert_eq!(is_arg_colon("af:h", "af", 2), Some(Some("h")));
        assert_eq!(is_arg_colon("autoformat", "autoformat", 5), Some(None));
        assert_eq!(is_arg_colon("auto", "autoformat", 5), None);
    }
}
