//! `condor_chirp`, run from inside a job: its job's attributes, its event log, and files of
//! its submit directory, as HTCondor 24.0's src/condor_chirp/condor_chirp.cpp asks them of
//! the starter. The requests are served by [`crate::client::chirp`]; this module reads the
//! command line, finds the job's pool, and prints and exits as condor_chirp.cpp does:
//!
//! - The job's pool and scratch directory come from `.chirp.config`, named by
//!   `_CONDOR_CHIRP_CONFIG` (set by the starter), else found in `$_CONDOR_SCRATCH_DIR`,
//!   else in the current directory. Without one: `Can't open <file> file` and `cannot
//!   chirp_connect to condor_starter` on stderr.
//! - A command with the wrong number of words prints its usage line on stdout and fails; no
//!   words, or `-h`, print the usage and exit 255; an unknown command `Unknown command C` and
//!   the usage, exit 255. (`-help` and `--help`, which HTCondor reads as unknown commands,
//!   print the usage and exit 0, as every condorlite tool does.)
//! - The exit status is the request's result, as condor_chirp's `main` returns it: 0, or -1
//!   (255) after `\tError: N (text)` on stdout for a failure with an errno. Two of its
//!   quirks are kept: `set_job_attr_delayed` of a name the starter does not take exits 1
//!   without a message, and `whoami` exits 6 (the length of `CONDOR`). `get_job_attr` and
//!   `get_job_attr_delayed` exit 0 also when they fail, printing `(null)` (what glibc's
//!   printf makes of the missing value).
//! - Of condor_chirp's file commands condorlite serves `fetch`, `put`, `remove` and
//!   `whoami`; the others (`read`, `write`, `rmdir`, `getdir`, `whoareyou`, `link`,
//!   `readlink`, `stat`, `lstat`, `statfs`, `access`, `chmod`, `chown`, `lchown`,
//!   `truncate`, `utime`) say that they are not supported and exit 255.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;

use clap::{Arg, ArgAction, Command};
use nix::errno::Errno;

use super::Tool;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::client::chirp::{pool_config, ChirpJob};
use crate::error::CommandError;
use crate::starter::chirp::{OpenMode, CHIRP_CONFIG_FILE};

pub const TOOL: Tool = Tool {
    name: "condor_chirp",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // condor_chirp.cpp reads its words itself, with strcmp.
        unknown: Unknown::Verbatim,
    },
    usage_status: 255,
    run,
};

const NAME: &str = "condor_chirp";

pub fn command() -> Command {
    Command::new(NAME)
        .about("Access files or job ClassAd attributes from inside an executing job")
        .long_about(
            "Run from inside a job: read and set the job's attributes in the queue \
             (set_job_attr, get_job_attr, and the delayed forms, which need no \
             WantIOProxy), write a message to the job's event log (ulog), and copy files \
             from and to the job's submit directory (fetch, put, remove; these need \
             want_io_proxy = true in the submit file).",
        )
        .after_help(
            "Exit status: the request's result: 0 on success, 255 on failure (after a \
             line \"\\tError: N (text)\" on stdout when the failure has a cause), 1 when \
             set_job_attr_delayed was given a name CHIRP_DELAYED_UPDATE_PREFIX does not \
             allow, 6 for whoami.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(crate::cli::args::help_flag("Print the usage"))
        .arg(
            Arg::new("command")
                .value_name("COMMAND")
                .value_parser([
                    "fetch",
                    "put",
                    "remove",
                    "get_job_attr",
                    "get_job_attr_delayed",
                    "set_job_attr",
                    "set_job_attr_delayed",
                    "ulog",
                    "whoami",
                ])
                .help("What to do"),
        )
        .arg(
            Arg::new("args")
                .value_name("ARGS")
                .action(ArgAction::Append)
                .help("The command's words (see the usage)"),
        )
}

fn usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "Usage:
{NAME} fetch remote_file local_file
{NAME} put [-mode mode] [-perm perm] local_file remote_file
{NAME} remove remote_file
{NAME} get_job_attr job_attribute
{NAME} get_job_attr_delayed job_attribute
{NAME} set_job_attr job_attribute attribute_value
{NAME} set_job_attr_delayed job_attribute attribute_value
{NAME} ulog text
{NAME} read [-offset offset] [-stride length skip] remote_file length
{NAME} write [-offset remote_offset] [-stride length skip] remote_file local_file
{NAME} rmdir [-r] remotepath
{NAME} getdir [-l] remotepath
{NAME} whoami
{NAME} whoareyou remotepath
{NAME} link [-s] oldpath newpath
{NAME} readlink remotepath length
{NAME} stat remotepath
{NAME} lstat remotepath
{NAME} statfs remotepath
{NAME} access remotepath mode(rwxf)
{NAME} chmod remotepath mode
{NAME} chown remotepath uid gid
{NAME} lchown remotepath uid gid
{NAME} truncate remotepath length
{NAME} utime remotepath actime mtime
"
    );
}

/// What a command came to: condor_chirp.cpp's return value, and the errno of a failure.
struct Outcome {
    value: i32,
    errno: Option<Errno>,
}

impl Outcome {
    fn done(value: i32) -> Outcome {
        Outcome { value, errno: None }
    }

    /// A failure printed as its usage line (no errno).
    fn usage(out: &mut dyn Write, lines: &[&str]) -> Outcome {
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        Outcome::done(-1)
    }

    fn failed(errno: Errno) -> Outcome {
        Outcome {
            value: -1,
            errno: Some(errno),
        }
    }

    fn of(result: Result<(), Errno>) -> Outcome {
        match result {
            Ok(()) => Outcome::done(0),
            Err(e) => Outcome::failed(e),
        }
    }
}

/// The `.chirp.config` condor_chirp reads (`chirp_client_connect_starter`).
fn chirp_config_path() -> PathBuf {
    if let Some(path) = std::env::var_os("_CONDOR_CHIRP_CONFIG") {
        return PathBuf::from(path);
    }
    let dir = std::env::var_os("_CONDOR_SCRATCH_DIR").unwrap_or_else(|| ".".into());
    PathBuf::from(dir).join(CHIRP_CONFIG_FILE)
}

/// `CONNECT_STARTER`: the job the request is about.
fn connect(err: &mut dyn Write) -> Result<ChirpJob, Errno> {
    let path = chirp_config_path();
    let result = (|| {
        if let Err(e) = File::open(&path) {
            let _ = writeln!(err, "Can't open {} file", path.display());
            return Err(io_errno(&e));
        }
        let (config, env) = pool_config(&path).map_err(|_| Errno::EINVAL)?;
        let now = env
            .get(crate::client::NOW_ENV)
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or_else(crate::client::system_now);
        let scratch = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        ChirpJob::attach(config, now, scratch)
    })();
    if result.is_err() {
        let _ = writeln!(err, "cannot chirp_connect to condor_starter");
    }
    result
}

fn io_errno(e: &io::Error) -> Errno {
    Errno::from_raw(e.raw_os_error().unwrap_or(libc::EIO))
}

/// `strtol(s, NULL, 8)`: the leading octal digits (after blanks and a sign), 0 when none.
fn octal(s: &str) -> u32 {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: String = t.chars().take_while(|c| ('0'..='7').contains(c)).collect();
    let n = u32::from_str_radix(&digits, 8).unwrap_or(if digits.is_empty() { 0 } else { u32::MAX });
    if neg {
        n.wrapping_neg()
    } else {
        n
    }
}

fn fetch(words: &[String], out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let [remote, local] = words else {
        return Outcome::usage(out, &["condor_chirp fetch remote_file local_file"]);
    };
    let job = match connect(err) {
        Ok(j) => j,
        Err(e) => return Outcome::failed(e),
    };
    let mut source = match job.open(remote, OpenMode::parse("r"), 0) {
        Ok(f) => f,
        Err(e) => return Outcome::failed(e),
    };
    let copied = if local == "-" {
        io::copy(&mut source, out).map(|_| ())
    } else {
        let mut target = match File::create(local) {
            Ok(f) => f,
            Err(e) => {
                let _ = writeln!(err, "Can't open local file {local}");
                return Outcome::failed(io_errno(&e));
            }
        };
        io::copy(&mut source, &mut target).map(|_| ())
    };
    match copied {
        Ok(()) => Outcome::done(0),
        Err(e) => {
            let _ = writeln!(err, "local write error on {local}");
            Outcome::failed(io_errno(&e))
        }
    }
}

fn put(words: &[String], err: &mut dyn Write, out: &mut dyn Write) -> Outcome {
    let mut mode = "cwb".to_owned();
    let mut perm = 0o777;
    let mut i = 0;
    while i + 1 < words.len() {
        match words[i].as_str() {
            "-mode" => mode = words[i + 1].clone(),
            "-perm" => perm = octal(&words[i + 1]),
            _ => break,
        }
        i += 2;
    }
    let [local, remote] = &words[i..] else {
        return Outcome::usage(
            out,
            &["condor_chirp put  [-mode mode] [-perm perm] local_file remote_file"],
        );
    };
    let job = match connect(err) {
        Ok(j) => j,
        Err(e) => return Outcome::failed(e),
    };
    let mut source: Box<dyn Read> = if local == "-" {
        Box::new(io::stdin().lock())
    } else {
        match File::open(local) {
            Ok(f) => Box::new(f),
            Err(e) => {
                let _ = writeln!(err, "Can't open local file {local}");
                return Outcome::failed(io_errno(&e));
            }
        }
    };
    // `putfile` (the default mode) creates or truncates; other modes are `open`'s.
    let putfile = mode == "cwb" && local != "-";
    let open_mode = if putfile {
        OpenMode::parse("cwt")
    } else {
        OpenMode::parse(&mode)
    };
    let mut target = match job.open(remote, open_mode, perm) {
        Ok(f) => f,
        Err(e) => {
            if putfile {
                let _ = writeln!(err, "Couldn't chirp_write as much as we read");
            } else {
                let _ = writeln!(err, "Can't chirp_client_open {remote}:-1");
            }
            return Outcome::failed(e);
        }
    };
    match io::copy(&mut source, &mut target) {
        Ok(_) => Outcome::done(0),
        Err(e) => {
            let _ = writeln!(err, "Couldn't chirp_write as much as we read");
            Outcome::failed(io_errno(&e))
        }
    }
}

/// `get_job_attr` and `get_job_attr_delayed`: the value, or `(null)`, and 0 either way.
fn print_value(out: &mut dyn Write, value: Result<String, Errno>) -> Outcome {
    match value {
        Ok(v) => {
            let _ = writeln!(out, "{v}");
            Outcome::done(0)
        }
        Err(e) => {
            let _ = writeln!(out, "(null)");
            Outcome {
                value: 0,
                errno: Some(e),
            }
        }
    }
}

const GET_DELAYED_USAGE: &[&str] = &[
    "condor_chirp get_job_attr_delayed AttributeName",
    "This retrieves the attribute value from the local starter.",
    "While this has no impact on the schedd, the attribute value may",
    "differ from the current one in the schedd, depending when the last",
    "schedd->starter update occurred.",
];

const SET_DELAYED_USAGE: &[&str] = &[
    "condor_chirp set_job_attr_delayed AttributeName AttributeValue",
    "This will perform a non-durable update to the shadow; it consumes",
    "less resources than set_job_attr, but may be lost.",
];

/// Runs the command `words[0]` with its words.
fn dispatch(words: &[String], out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let args = &words[1..];
    let with_job =
        |err: &mut dyn Write, f: &mut dyn FnMut(&mut ChirpJob) -> Outcome| match connect(err) {
            Ok(mut job) => f(&mut job),
            Err(e) => Outcome::failed(e),
        };
    match words[0].as_str() {
        "fetch" => fetch(args, out, err),
        "put" => put(args, err, out),
        "remove" => match args {
            [remote] => with_job(err, &mut |job| Outcome::of(job.unlink(remote))),
            _ => Outcome::usage(out, &["condor_chirp remove remote_file"]),
        },
        "get_job_attr_delayed" => match args {
            [name] => with_job(err, &mut |job| {
                print_value(out, job.get_job_attr_delayed(name))
            }),
            _ => Outcome::usage(out, GET_DELAYED_USAGE),
        },
        "get_job_attr" => match args {
            [name] => with_job(err, &mut |job| print_value(out, job.get_job_attr(name))),
            _ => Outcome::usage(out, &["condor_chirp get_job_attr AttributeName"]),
        },
        "set_job_attr_delayed" => match args {
            [name, value] => with_job(
                err,
                &mut |job| match job.set_job_attr_delayed(name, value) {
                    Ok(v) => Outcome::done(v),
                    Err(e) => Outcome::failed(e),
                },
            ),
            _ => Outcome::usage(out, SET_DELAYED_USAGE),
        },
        "set_job_attr" => match args {
            [name, value] => with_job(err, &mut |job| Outcome::of(job.set_job_attr(name, value))),
            _ => Outcome::usage(
                out,
                &["condor_chirp set_job_attr AttributeName AttributeValue"],
            ),
        },
        "ulog" => match args {
            [text] => with_job(err, &mut |job| Outcome::of(job.ulog(text))),
            _ => Outcome::usage(out, &["condor_chirp ulog message"]),
        },
        "whoami" => with_job(err, &mut |job| match job.whoami() {
            Ok(name) => {
                let _ = writeln!(out, "{name}");
                Outcome::done(name.len() as i32)
            }
            Err(e) => {
                let _ = writeln!(out);
                Outcome::failed(e)
            }
        }),
        unsupported @ ("read" | "write" | "rmdir" | "getdir" | "whoareyou" | "link"
        | "readlink" | "stat" | "lstat" | "statfs" | "access" | "chmod"
        | "chown" | "lchown" | "truncate" | "utime") => {
            let _ = writeln!(
                err,
                "{NAME}: {unsupported} is not supported by condorlite (fetch, put, remove \
                 and whoami are)"
            );
            Outcome::done(-1)
        }
        other => {
            let _ = writeln!(out, "Unknown command {other}");
            usage(out);
            Outcome::done(-1)
        }
    }
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let words = inv.raw_strings();
    match words.first().map(String::as_str) {
        None => {
            usage(out);
            return Err(CommandError::Exit(255));
        }
        Some("-h") if words.len() == 1 => {
            usage(out);
            return Err(CommandError::Exit(255));
        }
        Some("-help" | "--help") => {
            usage(out);
            return Ok(());
        }
        _ => {}
    }
    let outcome = dispatch(&words, out, err);
    if outcome.value < 0 {
        if let Some(e) = outcome.errno.filter(|e| *e as i32 != 0) {
            let _ = writeln!(out, "\tError: {} ({})", e as i32, e.desc());
        }
    }
    match outcome.value as u8 {
        0 => Ok(()),
        status => Err(CommandError::Exit(status)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_words(words: &[&str]) -> (String, String, u8) {
        let mut out = Vec::new();
        let mut err = Vec::new();
        let status = TOOL.execute(
            std::iter::once(NAME).chain(words.iter().copied()),
            &mut out,
            &mut err,
        );
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
            status,
        )
    }

    #[test]
    fn usage_and_wrong_word_counts() {
        let (out, err, status) = run_words(&[]);
        assert!(out.starts_with("Usage:\ncondor_chirp fetch remote_file local_file\n"));
        assert_eq!((err.as_str(), status), ("", 255));
        let (out, _, status) = run_words(&["-h"]);
        assert!(out.starts_with("Usage:\n"));
        assert_eq!(status, 255);
        let (out, _, status) = run_words(&["-help"]);
        assert!(out.starts_with("Usage:\n"));
        assert_eq!(status, 0);
        let (out, _, status) = run_words(&["frobnicate"]);
        assert!(
            out.starts_with("Unknown command frobnicate\nUsage:\n"),
            "{out}"
        );
        assert_eq!(status, 255);
        for (words, line) in [
            (
                &["fetch", "a"][..],
                "condor_chirp fetch remote_file local_file\n",
            ),
            (&["remove"][..], "condor_chirp remove remote_file\n"),
            (
                &["get_job_attr"][..],
                "condor_chirp get_job_attr AttributeName\n",
            ),
            (
                &["set_job_attr", "A"][..],
                "condor_chirp set_job_attr AttributeName AttributeValue\n",
            ),
            (&["ulog", "a", "b"][..], "condor_chirp ulog message\n"),
            (
                &["put", "-mode", "w", "a"][..],
                "condor_chirp put  [-mode mode] [-perm perm] local_file remote_file\n",
            ),
        ] {
            let (out, err, status) = run_words(words);
            assert_eq!(
                (out.as_str(), err.as_str(), status),
                (line, "", 255),
                "{words:?}"
            );
        }
        let (out, _, status) = run_words(&["set_job_attr_delayed", "A"]);
        assert_eq!(out, SET_DELAYED_USAGE.join("\n") + "\n");
        assert_eq!(status, 255);
    }

    #[test]
    fn perm_is_read_as_strtol_reads_octal() {
        assert_eq!(octal("644"), 0o644);
        assert_eq!(octal(" 0755x"), 0o755);
        assert_eq!(octal("9"), 0);
        assert_eq!(octal(""), 0);
    }
}
