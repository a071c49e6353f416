//! `condor_evicted_files`: where a job's evicted files are kept in the spool, what they are,
//! and a copy of them, as HTCondor 24.0's src/condor_tools/evicted_files.cpp: a
//! self-checkpointing job's checkpoint (and a spooled job's files) live in its spool
//! directory, `$(SPOOL)/<cluster % 10000>/<proc % 10000>/cluster<C>.proc<P>.subproc0`
//! ([`crate::queue::spool::job_spool_dir`]).
//!
//! - `[dir|find] C.P ...` prints the directory, `list|ls` its entries (one per line after a
//!   tab), `get|fetch` copies it to `./C.P` (never over an existing one: `Destination
//!   directory 'C.P' exists, not modifying.`) as `cp -a` does, then `Copied to 'C.P'.`. The
//!   command is read only when the first word does not start with a digit; its case does
//!   not matter.
//! - A job without a directory is `No directory; job was never evicted.`; with several
//!   jobs each line starts with the job's id. Everything goes to standard output, but a word
//!   that is not a job id (`'X' is not a job ID, aborting.`, standard error).
//! - Exit statuses are evicted_files.cpp's `main`'s: 0; 255 (its -1) for no words, an
//!   unknown command, a word that is not a job id, or an existing destination of a single
//!   job; for a single job without a directory the `errno` (2); for a single job's failed
//!   copy the copy's wait status, as `main` returns it (so a failed `cp` is 256, which the
//!   system makes 0).

use std::io::Write;
use std::path::Path;

use clap::{Arg, ArgAction, Command};

use super::Tool;
use crate::classad::cnum::strtol;
use crate::cli::args::{ArgSpec, Unknown};
use crate::cli::Invocation;
use crate::client::Session;
use crate::error::CommandError;
use crate::queue::spool::job_spool_dir;
use crate::queue::JobId;
use crate::starter::transfer::copy_confined_to;

pub const TOOL: Tool = Tool {
    name: "condor_evicted_files",
    clap: command,
    args: ArgSpec {
        prefixes: &[],
        // evicted_files.cpp reads its words itself.
        unknown: Unknown::Verbatim,
    },
    usage_status: 255,
    run,
};

const NAME: &str = "condor_evicted_files";

/// `main`'s `return -1`.
const FAILED: u8 = 255;

/// The wait status `my_pclose` gives for a `cp` that exited 1.
const COPY_FAILED: i32 = 1 << 8;

pub fn command() -> Command {
    Command::new(NAME)
        .about("Deal with evicted files")
        .long_about(
            "Show where the files a job left in the spool when it was evicted (a \
             self-checkpointing job's checkpoint) are kept, list them, or copy them to a \
             directory named after the job id.",
        )
        .after_help(
            "Exit status: 0; 255 for an unknown command, a word that is not a job id or an \
             existing destination; for a single job without a directory, 2 (ENOENT).",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(crate::cli::args::help_flag("Print the usage"))
        .arg(
            Arg::new("command")
                .value_name("COMMAND")
                .value_parser(["dir", "find", "list", "ls", "get", "fetch"])
                .help("dir (the default), list or get"),
        )
        .arg(
            Arg::new("jobs")
                .value_name("CLUSTER.PROC")
                .action(ArgAction::Append)
                .help("The jobs"),
        )
}

fn usage(out: &mut dyn Write) {
    let _ = write!(
        out,
        "Usage: {NAME} [COMMAND] (clusterID.procID)+
Deal with evicted files.

With no COMMAND, assume DIR.  Otherwise:
\tdir\tPrint the directory in which the files are stored.
\tlist\tList the evicted files.
\tget\tCopy the evicted files to a subdirectory named after the job ID.
"
    );
}

/// What to do with each job's directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Dir,
    List,
    Get,
}

/// The command word, compared as `strcasecmp` does.
fn action(word: &str) -> Option<Action> {
    match word.to_ascii_lowercase().as_str() {
        "dir" | "find" => Some(Action::Dir),
        "ls" | "list" => Some(Action::List),
        "get" | "fetch" => Some(Action::Get),
        _ => None,
    }
}

/// `sscanf(word, "%d.%d", ...) == 2`: two numbers around a dot, anything after them ignored.
fn job_id(word: &str) -> Option<JobId> {
    let b = word.as_bytes();
    let (cluster, used) = strtol(b);
    if used == 0 || b.get(used) != Some(&b'.') {
        return None;
    }
    let (proc, used_proc) = strtol(&b[used + 1..]);
    if used_proc == 0 {
        return None;
    }
    Some(JobId::new(
        i32::try_from(cluster).ok()?,
        i32::try_from(proc).ok()?,
    ))
}

/// One job: what evicted_files.cpp prints for it, and what `main` would return for it
/// alone (`None`: go on).
fn one_job(
    spool: &Path,
    id: JobId,
    action: Action,
    single: bool,
    out: &mut dyn Write,
) -> Option<i32> {
    let dir = job_spool_dir(spool, id);
    let prefix = if single {
        String::new()
    } else {
        format!("{id} ")
    };
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) => {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            if errno == libc::ENOENT {
                let _ = writeln!(out, "{prefix}No directory; job was never evicted.");
            } else {
                let _ = writeln!(
                    out,
                    "{prefix}[error {errno}: '{}' while looking for '{}']",
                    nix::errno::Errno::from_raw(errno).desc(),
                    dir.display()
                );
            }
            return single.then_some(errno);
        }
    };
    let _ = write!(out, "{prefix}");
    match action {
        Action::Dir => {
            let _ = writeln!(out, "{}", dir.display());
            None
        }
        Action::List => {
            if !single {
                let _ = writeln!(out);
            }
            let mut names: Vec<String> = entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            for name in names {
                let _ = writeln!(out, "\t{name}");
            }
            None
        }
        Action::Get => {
            let dest = id.to_string();
            if Path::new(&dest).is_dir() {
                let _ = writeln!(out, "Destination directory '{dest}' exists, not modifying.");
                return single.then_some(-1);
            }
            let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
                return single.then_some(COPY_FAILED);
            };
            // `cp -a`, never following a link out of the job's directory.
            let r = match copy_confined_to(parent, &name.to_string_lossy(), Path::new(&dest)) {
                Ok(_) => 0,
                Err(_) => COPY_FAILED,
            };
            if r == 0 {
                let _ = writeln!(out, "Copied to '{dest}'.");
            } else {
                let _ = writeln!(out, "Copy failed: return value {r}.");
            }
            single.then_some(r)
        }
    }
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let words = inv.raw_strings();
    let Some(first) = words.first() else {
        usage(out);
        return Err(CommandError::Exit(FAILED));
    };
    if first == "-help" || first == "--help" {
        usage(out);
        return Ok(());
    }
    let (act, ids) = if first.as_bytes()[0].is_ascii_digit() {
        (Action::Dir, &words[..])
    } else {
        match action(first) {
            Some(a) => (a, &words[1..]),
            None => {
                let _ = writeln!(out, "Unknown command '{first}', aborting.");
                return Err(CommandError::Exit(FAILED));
            }
        }
    };
    let mut jobs = Vec::with_capacity(ids.len());
    for word in ids {
        match job_id(word) {
            Some(id) => jobs.push(id),
            None => {
                let _ = out.flush();
                let _ = writeln!(err, "'{word}' is not a job ID, aborting.");
                return Err(CommandError::Exit(FAILED));
            }
        }
    }
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let single = jobs.len() == 1;
    for id in jobs {
        if let Some(r) = one_job(session.spool(), id, act, single, out) {
            // `return r` from `main`: the system keeps the low byte.
            return match (r & 0xff) as u8 {
                0 => Ok(()),
                code => Err(CommandError::Exit(code)),
            };
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_ids_are_read_as_sscanf_reads_them() {
        assert_eq!(job_id("12.3"), Some(JobId::new(12, 3)));
        assert_eq!(job_id("12.3junk"), Some(JobId::new(12, 3)));
        assert_eq!(job_id(" 12. 3"), Some(JobId::new(12, 3)));
        assert_eq!(job_id("12"), None);
        assert_eq!(job_id("12."), None);
        assert_eq!(job_id("x.1"), None);
    }

    #[test]
    fn commands_are_matched_without_case() {
        assert_eq!(action("LS"), Some(Action::List));
        assert_eq!(action("Fetch"), Some(Action::Get));
        assert_eq!(action("find"), Some(Action::Dir));
        assert_eq!(action("show"), None);
    }

    #[test]
    fn each_job_gets_its_line() {
        let tmp = tempfile::tempdir().unwrap();
        let id = JobId::new(3, 1);
        let dir = job_spool_dir(tmp.path(), id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.ckpt"), "b").unwrap();
        std::fs::write(dir.join("a.ckpt"), "a").unwrap();
        let mut out = Vec::new();
        assert_eq!(one_job(tmp.path(), id, Action::List, false, &mut out), None);
        assert_eq!(
            one_job(tmp.path(), JobId::new(4, 0), Action::Dir, false, &mut out),
            None
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "3.1 \n\ta.ckpt\n\tb.ckpt\n4.0 No directory; job was never evicted.\n"
        );
        let mut out = Vec::new();
        assert_eq!(
            one_job(tmp.path(), JobId::new(4, 0), Action::Dir, true, &mut out),
            Some(libc::ENOENT)
        );
    }
}
