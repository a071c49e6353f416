//! `condor_tail`: the end of a running job's output, or of another file in its sandbox,
//! optionally followed as it grows, as HTCondor 24.0's src/condor_tools/tail.cpp, the schedd's
//! `GET_JOB_CONNECT_INFO` and the starter's `STARTER_PEEK` (starter.cpp `Starter::peek`) do
//! it between them. Here the three halves are one process reading the job's sandbox in
//! place:
//!
//! - The schedd's half: the job must be in the queue (`No such job: C.P`), the user's own
//!   (`<user> is not authorized for access to the starter for job C.P`), not a scheduler- or
//!   grid-universe job (`Job C.P does not support remote access.`), and running or
//!   transferring its output (`Job C.P is not running.`, which is retried).
//! - The starter's half: the job's sandbox is its scratch directory under `$(EXECUTE)` (or
//!   `$(LOCAL_UNIV_EXECUTE)` for a local-universe job), whose `.job.ad` says where the job's
//!   standard output and error go and what its working directory is. `-stderr` and the
//!   default stdout are the job's `Err` and `Out`; a named file must be one of them or in
//!   `TransferOutput` (`File F requested but not authorized to be sent.`), and must resolve
//!   (symbolic links followed) inside the working directory (`Invalid symlink or filename
//!   (...) outside sandbox (...)`). `ENABLE_PEEK_JOB = False` refuses every request.
//! - Each request sends at most `-maxbytes` bytes (1024 by default) over all its files: the
//!   first request the last bytes of each file, later ones (with `-f`) what was appended
//!   since, up to the same bound; everything goes to standard output.
//! - A failure that may pass (the job is idle, held or still starting) is retried every
//!   2 seconds, silently, as tail.cpp retries it whether or not `-auto-retry` was given; any
//!   other failure is printed as `Failed to peek at file from starter: ...`, or as the
//!   schedd's message, with exit status 1. With `-f`, once something was shown, a failure
//!   ends the tool quietly with status 0 (the job has left the queue).

use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Command;

use super::argv::{flag_option, words, Argv, Token};
use super::Tool;
use crate::classad::parser::parse_old_ad;
use crate::classad::ClassAd;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::connect::{job_connect_info, locate};
use crate::client::Session;
use crate::error::CommandError;
use crate::output::render::lookup_str;
use crate::queue::universe;
use crate::queue::{str_is_proc_id, JobId};
use crate::starter::env::JOB_AD_FILE;
use crate::starter::local_job_dir;
use crate::version::{CONDOR_PLATFORM, CONDOR_VERSION};

pub const TOOL: Tool = Tool {
    name: "condor_tail",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        // Every other word is the job id or a file name, in tail.cpp's order.
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

const NAME: &str = "condor_tail";

/// tail.cpp compares each word with `strcmp`: the names are spelled out.
const PREFIXES: &[Prefix] = &[
    Prefix::exact("help"),
    Prefix::exact("pool"),
    Prefix::exact("name"),
    Prefix::exact("maxbytes"),
    Prefix::exact("version"),
    Prefix::exact("debug"),
    Prefix::exact("no-stdout"),
    Prefix::exact("stderr"),
    Prefix::exact("f"),
    Prefix::exact("follow"),
    Prefix::exact("auto-retry"),
];

const WORDS: &str = "args";

/// How long tail.cpp sleeps before it asks again.
const RETRY: Duration = Duration::from_secs(2);

/// How often a followed file is looked at again. tail.cpp asks every 2 seconds; the bytes
/// shown are the same, they only come sooner.
const FOLLOW: Duration = Duration::from_millis(500);

pub fn command() -> Command {
    Command::new(NAME)
        .about("Tail a file in a running job's sandbox")
        .long_about(
            "Print the end of a running job's standard output (or its standard error, or \
             other files of its sandbox named after the job id), at most -maxbytes bytes, \
             and with -f go on printing what the job appends until it leaves the queue. A \
             job that is not running yet is waited for.",
        )
        .after_help("Exit status: 0 when the files were shown, 1 on any error.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag_option("help", "Display options"))
        .arg(flag_option("version", "Display HTCondor version"))
        .arg(flag_option(
            "pool",
            "-pool <hostname>: use this central manager",
        ))
        .arg(flag_option("name", "-name <name>: query this schedd"))
        .arg(flag_option("debug", "Show extra debugging info"))
        .arg(flag_option(
            "maxbytes",
            "-maxbytes N: the maximum number of bytes to transfer (default 1024)",
        ))
        .arg(flag_option(
            "auto-retry",
            "Auto retry if job is not running yet",
        ))
        .arg(flag_option(
            "f",
            "Follow the contents of a file (as -follow)",
        ))
        .arg(flag_option("follow", "Follow the contents of a file"))
        .arg(flag_option("no-stdout", "Do not tail the job's stdout"))
        .arg(flag_option("stderr", "Tail the job's stderr"))
        .arg(words(
            WORDS,
            "JOB [FILE ...]",
            "The job (cluster or cluster.proc), then files of its sandbox",
        ))
}

fn usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "Usage: {NAME} [options] <job-id> [filename1[, filename2[, ...]]]
Tail a file in a running job's sandbox.
The options are:
    -help             Display options
    -version          Display HTCondor version
    -pool <hostname>  Use this central manager
    -name <name>      Query this schedd
    -debug            Show extra debugging info
    -maxbytes         The maximum number of bytes to transfer.  Defaults to 1024
    -auto-retry       Auto retry if job is not running yet.
    -f,-follow        Follow the contents of a file.
By default, only stdout is returned.
The filename may be any file in the job's transfer_output_files.
You may also include the following options.
    -no-stdout        Do not tail the job's stdout
    -stderr           Tail at the job's stderr

"
    );
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
struct Request {
    id: JobId,
    pool: Option<String>,
    name: Option<String>,
    files: Vec<String>,
    stdout: bool,
    stderr: bool,
    follow: bool,
    max_bytes: u64,
}

/// A message, the usage, and status 1 (tail.cpp's argument errors).
fn refuse(err: &mut dyn Write, message: &str) -> CommandError {
    let _ = writeln!(err, "{message}");
    usage(err);
    CommandError::Exit(1)
}

/// tail.cpp's `parse_integer`: `strtol`, then nothing but white space.
fn parse_max_bytes(text: &str) -> Option<u64> {
    let t = text.trim_start();
    let (digits, rest) = match t.find(|c: char| !(c.is_ascii_digit() || c == '-' || c == '+')) {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    if !rest.chars().all(char::is_whitespace) {
        return None;
    }
    // A negative count is a huge one, as the cast to size_t makes it.
    digits
        .parse::<i64>()
        .ok()
        .map(|n| if n < 0 { u64::MAX } else { n as u64 })
}

/// tail.cpp's `parse_args`.
fn read_args(
    argv: &Argv,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Request, CommandError> {
    let mut job: Option<String> = None;
    let mut r = Request {
        id: JobId::new(0, 0),
        pool: None,
        name: None,
        files: Vec::new(),
        stdout: true,
        stderr: false,
        follow: false,
        max_bytes: 1024,
    };
    let mut i = 0;
    while i < argv.len() {
        let value = |i: usize| argv.text(i + 1);
        match &argv.tokens[i] {
            Token::Opt { id: "help", .. } => {
                // Asked for, the usage goes where every condorlite tool prints its help.
                usage(out);
                return Err(CommandError::Exit(0));
            }
            Token::Opt { id: "pool", .. } => {
                let Some(v) = value(i) else {
                    return Err(refuse(err, "-pool requires an argument.\n"));
                };
                r.pool = Some(v);
                i += 1;
            }
            Token::Opt { id: "name", .. } => {
                let Some(v) = value(i) else {
                    return Err(refuse(err, "-name requires an argument.\n"));
                };
                r.name = Some(v);
                i += 1;
            }
            Token::Opt { id: "maxbytes", .. } => {
                let v = match argv.get(i + 1) {
                    Some(t) if !t.starts_with_dash() => t.text(),
                    _ => return Err(refuse(err, "-maxbytes requires an argument.\n")),
                };
                let Some(n) = parse_max_bytes(&v) else {
                    return Err(refuse(
                        err,
                        &format!("Error: maxbytes ({v}) is not valid\n"),
                    ));
                };
                r.max_bytes = n;
                i += 1;
            }
            Token::Opt { id: "version", .. } => {
                let _ = write!(out, "{CONDOR_VERSION}\n{CONDOR_PLATFORM}\n");
                return Err(CommandError::Exit(0));
            }
            Token::Opt { id: "debug", .. }
            | Token::Opt {
                id: "auto-retry", ..
            } => {}
            Token::Opt {
                id: "no-stdout", ..
            } => r.stdout = false,
            Token::Opt { id: "stderr", .. } => {
                r.stderr = true;
                r.stdout = false;
            }
            Token::Opt { id: "f", .. } | Token::Opt { id: "follow", .. } => r.follow = true,
            token => {
                let word = token.text();
                if job.is_none() {
                    job = Some(word);
                } else {
                    r.files.push(word);
                }
            }
        }
        i += 1;
    }
    if !r.stdout && !r.stderr && r.files.is_empty() {
        return Err(refuse(err, "No file transfer specified.\n"));
    }
    let Some(job) = job else {
        return Err(refuse(err, "Job ID not specified."));
    };
    match str_is_proc_id(&job) {
        Some((cluster, proc, _)) if cluster >= 0 => {
            r.id = JobId::new(cluster, proc.max(0));
        }
        _ => return Err(refuse(err, &format!("Invalid Job ID: {job}"))),
    }
    Ok(r)
}

/// Why a request failed, and whether asking again may help (`ATTR_RETRY`).
#[derive(Debug, PartialEq)]
struct Failure {
    message: String,
    retry: bool,
    /// The schedd's answer (printed as it is) rather than the starter's (printed after
    /// `Failed to peek at file from starter: `).
    from_schedd: bool,
}

impl Failure {
    fn schedd(message: String, retry: bool) -> Failure {
        Failure {
            message,
            retry,
            from_schedd: true,
        }
    }

    fn starter(message: String, retry: bool) -> Failure {
        Failure {
            message,
            retry,
            from_schedd: false,
        }
    }
}

/// One file of a request and where the next request reads it from (`None`: its end).
#[derive(Debug)]
struct Peeked {
    /// How the job or the user named it.
    name: String,
    offset: Option<u64>,
}

/// The files of a request, in the starter's order: stdout, stderr, the named files.
#[derive(Debug)]
struct Peek {
    stdout: Option<Peeked>,
    stderr: Option<Peeked>,
    files: Vec<Peeked>,
}

/// The job's sandbox as its starter sees it: the directory the job runs in and the job ad
/// it was given.
struct Sandbox {
    iwd: PathBuf,
    job: ClassAd,
}

/// The scratch directory of job `id` of universe `universe`: `$(LOCAL_UNIV_EXECUTE)/dir_C_P`
/// for a local-universe job, else the newest `$(EXECUTE)/dir_C_P_N` (a job started again has
/// a new one; an earlier one may not have been removed yet).
pub(crate) fn scratch_dir(session: &Session, id: JobId, universe: i64) -> Option<PathBuf> {
    let config_dir = |knob: &str| {
        session
            .config
            .string(knob)
            .ok()
            .flatten()
            .map(PathBuf::from)
    };
    if universe == universe::LOCAL {
        let dir = config_dir("LOCAL_UNIV_EXECUTE")
            .unwrap_or_else(|| session.spool().join("local_univ_execute"));
        return Some(local_job_dir(&dir, id.cluster.0.into(), id.proc.into()));
    }
    let execute = config_dir("EXECUTE")?;
    let prefix = format!("dir_{}_{}_", id.cluster.0, id.proc);
    std::fs::read_dir(&execute)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_prefix(&prefix))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, path)| path)
}

/// The job's sandbox, read from the `.job.ad` its starter wrote. The job could rewrite that
/// file: the directory it names is taken only when it is the scratch directory itself (a job
/// that transfers its files runs there); otherwise the job runs in the queue's `Iwd`.
fn sandbox(
    session: &Session,
    id: JobId,
    universe: i64,
    queue_ad: &ClassAd,
) -> Result<Sandbox, Failure> {
    let not_ready = || {
        Failure::starter(
            "Retrying request, because job not yet initialized.".to_owned(),
            true,
        )
    };
    let dir = scratch_dir(session, id, universe).ok_or_else(not_ready)?;
    let text = crate::bounded::read_file(dir.join(JOB_AD_FILE)).map_err(|_| not_ready())?;
    let job = parse_old_ad(&String::from_utf8_lossy(&text)).map_err(|_| not_ready())?;
    let named = lookup_str(&job, "Iwd").map(|s| PathBuf::from(&*s));
    let in_scratch = named
        .as_deref()
        .is_some_and(|iwd| std::fs::canonicalize(iwd).ok() == std::fs::canonicalize(&dir).ok());
    let iwd = if in_scratch {
        dir
    } else {
        lookup_str(queue_ad, "Iwd")
            .map(|s| PathBuf::from(&*s))
            .ok_or_else(|| Failure::starter("Unknown job remote IWD.".to_owned(), false))?
    };
    Ok(Sandbox { iwd, job })
}

/// The schedd's checks (`GET_JOB_CONNECT_INFO`): the job's universe and ad when it may be
/// peeked at.
fn connect_info(session: &Session, id: JobId) -> Result<(i64, ClassAd), Failure> {
    job_connect_info(session, id)
        .map(|info| (info.universe, info.ad))
        .map_err(|r| Failure::schedd(r.message, r.retry))
}

/// `realpath`, with the starter's message when it fails.
fn real_path(path: &Path) -> Result<PathBuf, Failure> {
    std::fs::canonicalize(path).map_err(|e| {
        let errno = e.raw_os_error().unwrap_or(0);
        Failure::starter(
            format!(
                "Unable to resolve file {} to real path. (errno={errno}, {})",
                path.display(),
                nix::errno::Errno::from_raw(errno).desc()
            ),
            true,
        )
    })
}

impl Peek {
    fn new(request: &Request) -> Peek {
        let peeked = |name: &str| Peeked {
            name: name.to_owned(),
            offset: None,
        };
        Peek {
            stdout: request.stdout.then(|| peeked("")),
            stderr: request.stderr.then(|| peeked("")),
            files: request.files.iter().map(|f| peeked(f)).collect(),
        }
    }

    /// One request: the new bytes of every file, written to `out`.
    fn once(
        &mut self,
        session: &Session,
        id: JobId,
        max_bytes: u64,
        out: &mut dyn Write,
    ) -> Result<(), Failure> {
        let (universe, queue_ad) = connect_info(session, id)?;
        if session.config.bool("ENABLE_PEEK_JOB").ok().flatten() == Some(false) {
            return Err(Failure::starter(
                "Rejecting request, because ENABLE_PEEK_JOB=false".to_owned(),
                false,
            ));
        }
        let sandbox = sandbox(session, id, universe, &queue_ad)?;
        let iwd = real_path(&sandbox.iwd).map_err(|_| {
            Failure::starter(
                format!(
                    "Unable to resolve IWD {} to real path.",
                    sandbox.iwd.display()
                ),
                false,
            )
        })?;
        let attr = |name: &str| lookup_str(&sandbox.job, name).map(|s| s.to_string());
        let (job_out, job_err) = (attr("Out"), attr("Err"));
        let transfer_output = attr("TransferOutput").unwrap_or_default();
        // The files to send, each by the path the starter resolves.
        let (want_stdout, want_stderr) = (self.stdout.is_some(), self.stderr.is_some());
        let mut plan: Vec<(&mut Peeked, String)> = Vec::new();
        if let (Some(p), Some(name)) = (self.stdout.as_mut(), &job_out) {
            plan.push((p, name.clone()));
        }
        if let (Some(p), Some(name)) = (self.stderr.as_mut(), &job_err) {
            plan.push((p, name.clone()));
        }
        for p in &mut self.files {
            let name = p.name.clone();
            let is_err = job_err.as_deref() == Some(name.as_str());
            let is_out = job_out.as_deref() == Some(name.as_str());
            if is_err || is_out {
                // Already sent as the job's stderr or stdout.
                if (is_err && want_stderr) || (!is_err && want_stdout) {
                    continue;
                }
            } else if !transfer_output
                .split([',', ' ', '\t'])
                .any(|f| !f.is_empty() && f == name)
            {
                return Err(Failure::starter(
                    format!("File {name} requested but not authorized to be sent.\n"),
                    false,
                ));
            }
            plan.push((p, name));
        }
        let mut remaining = max_bytes;
        for (peeked, name) in plan {
            let path = if Path::new(&name).is_absolute() {
                PathBuf::from(&name)
            } else {
                iwd.join(&name)
            };
            let real = real_path(&path)?;
            if !real.starts_with(&iwd) {
                return Err(Failure::starter(
                    format!(
                        "Invalid symlink or filename ({}) outside sandbox ({})",
                        real.display(),
                        iwd.display()
                    ),
                    false,
                ));
            }
            let failed = |e: std::io::Error| {
                Failure::starter(format!("Failed to transfer file {name}: {e}"), false)
            };
            let mut file = std::fs::File::open(&real).map_err(failed)?;
            // What was opened, not what was checked a moment before: a link swapped in
            // meanwhile is refused too.
            let opened = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
                .map_err(failed)?;
            if !opened.starts_with(&iwd) {
                return Err(Failure::starter(
                    format!(
                        "Invalid symlink or filename ({}) outside sandbox ({})",
                        opened.display(),
                        iwd.display()
                    ),
                    false,
                ));
            }
            let size = file.metadata().map(|m| m.len()).unwrap_or(0);
            let (start, len) = match peeked.offset {
                None => {
                    let len = size.min(remaining);
                    (size - len, len)
                }
                Some(offset) => {
                    let offset = offset.min(size);
                    (offset, (size - offset).min(remaining))
                }
            };
            remaining -= len;
            // Streamed: a large -maxbytes is never held in memory.
            let sent = file
                .seek(SeekFrom::Start(start))
                .and_then(|_| std::io::copy(&mut (&mut file).take(len), out))
                .map_err(failed)?;
            peeked.offset = Some(start + sent);
        }
        let _ = out.flush();
        Ok(())
    }
}

pub fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let request = read_args(&Argv::from_invocation(inv, PREFIXES, WORDS), out, err)?;
    if let Err(message) = locate(&session, request.name.as_deref(), request.pool.as_deref()) {
        let _ = writeln!(err, "{message}");
        return Err(CommandError::Exit(1));
    }
    let mut peek = Peek::new(&request);
    let mut shown = false;
    loop {
        match peek.once(&session, request.id, request.max_bytes, out) {
            Ok(()) if !request.follow => return Ok(()),
            Ok(()) => {
                shown = true;
                std::thread::sleep(FOLLOW);
            }
            Err(f) if f.retry => std::thread::sleep(RETRY),
            // Once something was shown, the job has most likely ended: a quiet end.
            Err(_) if shown => return Ok(()),
            Err(f) => {
                if f.from_schedd {
                    let _ = writeln!(err, "{}", f.message);
                } else {
                    let _ = writeln!(err, "Failed to peek at file from starter: {}", f.message);
                }
                return Err(CommandError::Exit(1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_bytes_is_read_as_strtol_reads_it() {
        assert_eq!(parse_max_bytes("4096"), Some(4096));
        assert_eq!(parse_max_bytes(" 12 "), Some(12));
        assert_eq!(parse_max_bytes("-1"), Some(u64::MAX));
        assert_eq!(parse_max_bytes("abc"), None);
        assert_eq!(parse_max_bytes("12k"), None);
        assert_eq!(parse_max_bytes(""), None);
    }
}
