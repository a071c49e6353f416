//! File transfer between the job's `Iwd` and its scratch directory, as HTCondor's
//! `FileTransfer` (src/condor_utils/file_transfer.cpp) moves files between the access point and
//! the execution point — here both ends are this host, so a transfer is a copy.
//!
//! In: `TransferInput` (names relative to `Iwd`, or absolute), the standard input file and the
//! executable (`TransferExecutable`, default true, made mode 0755). A directory is copied with
//! its contents; a name ending in `/` copies only the contents. The copies land at the top of
//! the scratch directory under their base names.
//!
//! Out: the names in `TransferOutput` when the job has that attribute (even empty), else every
//! file at the top of the scratch directory that is new or whose size or modification time
//! changed since the input transfer (`FindChangedFiles`; directories, the ad files, the
//! executable and the standard files are not scanned). Each goes to `Iwd/<base name>` unless
//! `TransferOutputRemaps` sends it elsewhere (`filename_remap_find`: exact names, then parent
//! directories, repeatedly); a relative remap target's directories are made when
//! `ALLOW_TRANSFER_REMAP_TO_MKDIR` is true. The standard output and error (`_condor_stdout`,
//! `_condor_stderr`) go to the job's `Out` and `Err`.
//!
//! Failures carry the hold reasons the shadow writes after its rewrite
//! (`BaseShadow::improveReasonAttributes`): `Transfer output files failure at execution point
//! slot1@host while sending files to access point host. Details: reading from file ...`.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::classad::ClassAd;
use crate::config::expand::tokens;
use crate::config::Config;
use crate::output::render::lookup_str;

use super::chirp::{CHIRP_CONFIG_FILE, DELAYED_UPDATES_FILE};
pub use super::confine::{copy_confined, copy_confined_to, ConfineError};
use super::confine::{under, Beneath, ConfineKind, Item};
use super::env::{JOB_AD_FILE, MACHINE_AD_FILE};
use super::exec::{basename, errno_of, strerror, STDERR_NAME, STDOUT_NAME};
use super::hold_codes::{TRANSFER_INPUT_ERROR, TRANSFER_OUTPUT_ERROR};
use super::identity::AccountError;
use super::rights::Rights;
use super::StartFailure;

/// The two ends of a transfer, as the messages name them.
#[derive(Clone, Debug)]
pub struct Endpoints {
    /// The execution point: the slot's name (`slot1@host`).
    pub slot_name: String,
    /// The access point: this host's name.
    pub ap_host: String,
}

/// Which way the files were going.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Direction {
    Input,
    Output,
}

/// Where a transfer went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// The sending end (reading the source).
    Sender,
    /// The receiving end (writing the destination).
    Receiver,
}

impl Endpoints {
    /// The shadow's hold reason for a failed transfer.
    fn failure(&self, dir: Direction, side: Side, details: &str, subcode: i32) -> StartFailure {
        let ep = format!("execution point {}", self.slot_name);
        let ap = format!("access point {}", self.ap_host);
        let (what, code) = match dir {
            Direction::Input => ("input", TRANSFER_INPUT_ERROR),
            Direction::Output => ("output", TRANSFER_OUTPUT_ERROR),
        };
        // Input flows from the access point to the execution point, output the other way.
        let at_ep = (dir == Direction::Input) == (side == Side::Receiver);
        let place = if at_ep {
            let verb = match dir {
                Direction::Input => "receiving files from",
                Direction::Output => "sending files to",
            };
            format!("{ep} while {verb} {ap}")
        } else {
            let verb = match dir {
                Direction::Input => "sending files to",
                Direction::Output => "receiving files from",
            };
            format!("{ap} while {verb} {ep}")
        };
        StartFailure::new(
            format!("Transfer {what} files failure at {place}. Details: {details}"),
            code,
            subcode as i64,
        )
    }

    fn io_failure(&self, dir: Direction, e: &CopyError) -> StartFailure {
        let errno = e.errno;
        let (side, verb) = match e.side {
            Side::Sender => (Side::Sender, "reading from"),
            Side::Receiver => (Side::Receiver, "writing to"),
        };
        let details = format!(
            "{verb} file {}: (errno {errno}) {}",
            e.path.display(),
            strerror(errno)
        );
        self.failure(dir, side, &details, errno)
    }

    /// A name the receiver refuses to write (HTCondor's `LegalPathInSandbox`): absolute, or
    /// `.`/`..`, or empty.
    fn illegal_destination(&self, dir: Direction, name: &str) -> StartFailure {
        self.failure(
            dir,
            Side::Receiver,
            &format!("Attempt to write to illegal sandbox path: {name}"),
            libc::EPERM,
        )
    }

    /// The transfer could not take the job owner's rights.
    pub(super) fn owner_failure(&self, dir: Direction, e: &dyn std::fmt::Display) -> StartFailure {
        self.failure(
            dir,
            Side::Receiver,
            &format!("cannot transfer files as the job's owner: {e}"),
            libc::EPERM,
        )
    }

    /// A confined read that failed or was refused.
    fn confined_failure(&self, dir: Direction, e: &ConfineError) -> StartFailure {
        let path = e.path.display();
        let details = match e.kind {
            ConfineKind::Io => {
                return self.io_failure(
                    dir,
                    &CopyError {
                        side: Side::Sender,
                        path: e.path.clone(),
                        errno: e.errno,
                    },
                )
            }
            ConfineKind::Outside => format!("Attempt to read from illegal sandbox path: {path}"),
            ConfineKind::Link => format!(
                "Attempt to read from illegal sandbox path: {path} (a symbolic link out of the \
                 sandbox)"
            ),
            ConfineKind::Special => {
                format!("reading from file {path}: not a regular file or a directory")
            }
        };
        self.failure(dir, Side::Sender, &details, e.errno)
    }
}

/// Whether the receiver writes a file sent under this name (`LegalPathInSandbox`, for the
/// base names that are sent): not empty, `.` or `..`.
fn legal_sandbox_name(name: &str) -> bool {
    !matches!(name, "" | "." | "..")
}

/// A copy that failed: which end, which file, which errno.
#[derive(Debug)]
struct CopyError {
    side: Side,
    path: PathBuf,
    errno: i32,
}

impl CopyError {
    fn read(path: &Path, e: &io::Error) -> CopyError {
        CopyError {
            side: Side::Sender,
            path: path.to_path_buf(),
            errno: errno_of(e),
        }
    }

    fn write(path: &Path, e: &io::Error) -> CopyError {
        CopyError {
            side: Side::Receiver,
            path: path.to_path_buf(),
            errno: errno_of(e),
        }
    }
}

/// Copies one file, keeping its permission bits (or setting `mode`); the bytes copied.
fn copy_file(src: &Path, dst: &Path, mode: Option<u32>) -> Result<u64, CopyError> {
    let mut from = File::open(src).map_err(|e| CopyError::read(src, &e))?;
    let meta = from.metadata().map_err(|e| CopyError::read(src, &e))?;
    write_from(&mut from, dst, mode.unwrap_or(meta.mode() & 0o7777))
}

/// Writes what is left to read of `from` to `dst` (made, or truncated), with permission bits
/// `mode`; the bytes copied.
fn write_from(from: &mut File, dst: &Path, mode: u32) -> Result<u64, CopyError> {
    let mut to = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(dst)
        .map_err(|e| CopyError::write(dst, &e))?;
    let n = io::copy(from, &mut to).map_err(|e| CopyError::write(dst, &e))?;
    // An existing destination keeps its old mode through open(); set it as sent.
    if let Err(e) = to.set_permissions(fs::Permissions::from_mode(mode)) {
        return Err(CopyError::write(dst, &e));
    }
    Ok(n)
}

/// Makes the directory `dst` unless it is one already.
fn make_dir(dst: &Path) -> Result<u64, CopyError> {
    match fs::create_dir(dst) {
        Ok(()) => Ok(0),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dst.is_dir() => Ok(0),
        Err(e) => Err(CopyError::write(dst, &e)),
    }
}

/// Copies a directory's contents into `dst` (made if missing), recursively; the bytes copied.
fn copy_dir_contents(src: &Path, dst: &Path, depth: u32) -> Result<u64, CopyError> {
    if depth > 64 {
        return Err(CopyError {
            side: Side::Sender,
            path: src.to_path_buf(),
            errno: libc::ELOOP,
        });
    }
    make_dir(dst)?;
    let entries = fs::read_dir(src).map_err(|e| CopyError::read(src, &e))?;
    let mut total = 0;
    for entry in entries {
        let entry = entry.map_err(|e| CopyError::read(src, &e))?;
        let from = entry.path();
        let to = dst.join(entry.file_name());
        total += copy_any(&from, &to, depth + 1)?;
    }
    Ok(total)
}

/// Copies a file, or a directory with its contents.
fn copy_any(src: &Path, dst: &Path, depth: u32) -> Result<u64, CopyError> {
    let meta = fs::metadata(src).map_err(|e| CopyError::read(src, &e))?;
    if meta.is_dir() {
        copy_dir_contents(src, dst, depth)
    } else {
        copy_file(src, dst, None)
    }
}

/// The hold of a job whose checkpoint could not be brought into its new sandbox: an input
/// transfer failure (the checkpoint is part of the input).
pub(super) fn checkpoint_input_failure(ends: &Endpoints, e: &ConfineError) -> StartFailure {
    ends.failure(
        Direction::Input,
        Side::Sender,
        &format!("reading from file {e}"),
        e.errno,
    )
}

/// Whether a name is a URL (`IsUrl`): a scheme, then `://`.
pub fn is_url(name: &str) -> bool {
    match name.find("://") {
        Some(i) if i > 0 => name[..i]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')),
        _ => false,
    }
}

/// `FileTransfer::SimpleInit`'s input list: `TransferInput`, the standard input file, the
/// executable (each once).
pub fn input_files(job: &ClassAd, stdin: Option<&str>, exe: Option<&str>) -> Vec<String> {
    let mut files = lookup_str(job, "TransferInput")
        .map(|s| tokens(&s, ","))
        .unwrap_or_default();
    for extra in [stdin, exe].into_iter().flatten() {
        if !files.iter().any(|f| f == extra) {
            files.push(extra.to_owned());
        }
    }
    files
}

/// Copies the input files from `iwd` into `scratch`, with the job owner's `rights` (what
/// the owner cannot read is not read); the bytes copied.
pub fn transfer_input(
    files: &[String],
    iwd: &Path,
    scratch: &Path,
    exe: Option<&str>,
    ends: &Endpoints,
    rights: &Rights,
) -> Result<u64, StartFailure> {
    rights
        .run(|| transfer_input_here(files, iwd, scratch, exe, ends))
        .unwrap_or_else(|e| Err(ends.owner_failure(Direction::Input, &e)))
}

fn transfer_input_here(
    files: &[String],
    iwd: &Path,
    scratch: &Path,
    exe: Option<&str>,
    ends: &Endpoints,
) -> Result<u64, StartFailure> {
    let mut total = 0;
    for name in files {
        if is_url(name) {
            return Err(ends.failure(
                Direction::Input,
                Side::Receiver,
                &format!("URL transfers are not supported: {name}"),
                0,
            ));
        }
        if !legal_sandbox_name(basename(name.trim_end_matches('/'))) {
            return Err(ends.illegal_destination(Direction::Input, name));
        }
        let src = iwd.join(name);
        let copied = if Some(name.as_str()) == exe {
            copy_file(&src, &scratch.join(basename(name)), Some(0o755))
        } else if name.ends_with('/') && name.len() > 1 {
            // "dir/": the contents only.
            match fs::metadata(&src) {
                Ok(m) if m.is_dir() => copy_dir_contents(&src, scratch, 0),
                Ok(_) => copy_file(
                    &src,
                    &scratch.join(basename(name.trim_end_matches('/'))),
                    None,
                ),
                Err(e) => Err(CopyError::read(&src, &e)),
            }
        } else {
            copy_any(&src, &scratch.join(basename(name)), 0)
        };
        total += copied.map_err(|e| ends.io_failure(Direction::Input, &e))?;
    }
    Ok(total)
}

/// A file's size and modification time (nanoseconds), for change detection.
type Stamp = (u64, i128);

fn stamp(meta: &fs::Metadata) -> Stamp {
    (
        meta.len(),
        meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
    )
}

/// `BuildFileCatalog`: the files (not directories) at the top of a directory.
fn catalog(dir: &Path) -> HashMap<String, Stamp> {
    let mut out = HashMap::new();
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if let Ok(meta) = fs::metadata(entry.path()) {
                if !meta.is_dir() {
                    out.insert(name, stamp(&meta));
                }
            }
        }
    }
    out
}

/// The size of a directory's files and how many there are (`Starter::GetDiskUsage`).
pub fn dir_usage(dir: &Path) -> (u64, u64) {
    // Iterative (a job may make a directory tree deeper than the daemon's stack), and not
    // through links (`DirEntry::metadata` does not follow them).
    let (mut bytes, mut files) = (0, 0);
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                pending.push(entry.path());
            } else {
                bytes += meta.len();
                files += 1;
            }
        }
    }
    (bytes, files)
}

/// One `name=target` rule of `TransferOutputRemaps`.
type RemapRule = (String, String);

/// `copy_upto`: up to an unescaped `delim` (`\` escapes it), leading whitespace skipped and
/// trailing whitespace trimmed; the text and where the delimiter is.
fn copy_upto(chars: &[char], mut i: usize, delim: char) -> (String, Option<usize>) {
    let mut out = String::new();
    let mut trimmed_len = 0;
    let mut escape = false;
    let mut leading = true;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && !escape && chars.get(i + 1) == Some(&delim) {
            escape = true;
            i += 1;
        } else if c == delim && !escape {
            out.truncate(trimmed_len);
            return (out, Some(i));
        } else if c.is_ascii_whitespace() && leading {
            i += 1;
        } else {
            leading = false;
            escape = false;
            out.push(c);
            if !c.is_ascii_whitespace() {
                trimmed_len = out.len();
            }
            i += 1;
        }
    }
    out.truncate(trimmed_len);
    (out, None)
}

/// The rules of a remap string (`name = target; ...`), as `filename_remap_find` reads them.
fn parse_remaps(input: &str) -> Vec<RemapRule> {
    let chars: Vec<char> = input.chars().filter(|&c| c != '\t' && c != '\n').collect();
    let mut rules = Vec::new();
    let mut p = 0;
    loop {
        let start = p;
        let (name, eq) = copy_upto(&chars, p, '=');
        let Some(eq) = eq else { break };
        if let Some(semi) = name.find(';') {
            // A field without '=': skip it and read on.
            p = start + name[..semi].chars().count() + 1;
            continue;
        }
        let (target, semi) = copy_upto(&chars, eq + 1, ';');
        rules.push((name, target));
        match semi {
            Some(s) => p = s + 1,
            None => break,
        }
    }
    rules
}

/// `filename_remap_find`: where `name` goes, if a rule moves it (or one of its parent
/// directories); an error text when the rules loop.
fn remap_find(
    rules: &[RemapRule],
    name: &str,
    level: i64,
    max: i64,
) -> Result<Option<String>, String> {
    if level > max {
        return Err("<abort>".into());
    }
    if let Some((_, target)) = rules.iter().find(|(n, _)| n == name) {
        return match remap_find(rules, target, level + 1, max) {
            Err(e) => Err(format!("<{level}: {name}>{e}")),
            Ok(Some(further)) => Ok(Some(further)),
            Ok(None) => Ok(Some(target.clone())),
        };
    }
    let Some((parent, entry)) = name.rsplit_once('/') else {
        return Ok(None);
    };
    match remap_find(rules, parent, level + 1, max) {
        Err(e) => Err(format!("<{level}: {name}>{e}")),
        Ok(Some(new_parent)) => Ok(Some(format!("{new_parent}/{entry}"))),
        Ok(None) => Ok(None),
    }
}

/// Where `name` goes under the remap string `remaps`, following rules at most
/// `max_recursions` deep (`MAX_REMAP_RECURSIONS`).
pub fn remap(remaps: &str, name: &str, max_recursions: i64) -> Result<Option<String>, String> {
    remap_find(&parse_remaps(remaps), name, 0, max_recursions)
}

/// The output half of a job's file transfer, decided when it starts.
#[derive(Debug)]
pub struct OutputPlan {
    iwd: PathBuf,
    /// `TransferOutput`, when the job has it; else the changed files are found by `catalog`.
    list: Option<Vec<String>>,
    catalog: HashMap<String, Stamp>,
    /// The executable's name in the sandbox, never sent back.
    exe_name: String,
    remaps: String,
    /// The job's `Out` / `Err` when they come back from `_condor_stdout` / `_condor_stderr`.
    stdout: Option<String>,
    stderr: Option<String>,
    allow_mkdir: bool,
    max_recursions: i64,
    ends: Endpoints,
    /// Whose rights the transfer runs with (the job owner's in a system pool), or why the
    /// owner has none (then nothing is transferred).
    rights: Result<Rights, AccountError>,
}

impl OutputPlan {
    /// The plan for a job whose input transfer into `scratch` is done.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        job: &ClassAd,
        config: &Config,
        iwd: &Path,
        scratch: &Path,
        exe_name: &str,
        stdout: Option<String>,
        stderr: Option<String>,
        ends: Endpoints,
        rights: Result<Rights, AccountError>,
    ) -> OutputPlan {
        let list = lookup_str(job, "TransferOutput").map(|s| tokens(&s, ","));
        let catalog = if list.is_none() {
            catalog(scratch)
        } else {
            HashMap::new()
        };
        OutputPlan {
            iwd: iwd.to_path_buf(),
            list,
            catalog,
            exe_name: exe_name.to_owned(),
            remaps: lookup_str(job, "TransferOutputRemaps")
                .map(|s| s.to_string())
                .unwrap_or_default(),
            stdout,
            stderr,
            allow_mkdir: config
                .bool("ALLOW_TRANSFER_REMAP_TO_MKDIR")
                .ok()
                .flatten()
                .unwrap_or(true),
            max_recursions: config
                .int("MAX_REMAP_RECURSIONS")
                .ok()
                .flatten()
                .unwrap_or(128),
            ends,
            rights,
        }
    }

    /// The files to send: their names in the sandbox, in order.
    fn files_to_send(&self, scratch: &Path) -> Vec<String> {
        if let Some(list) = &self.list {
            return list.clone();
        }
        let mut changed = Vec::new();
        let Ok(entries) = fs::read_dir(scratch) else {
            return changed;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if [
                JOB_AD_FILE,
                MACHINE_AD_FILE,
                STDOUT_NAME,
                STDERR_NAME,
                CHIRP_CONFIG_FILE,
                DELAYED_UPDATES_FILE,
            ]
            .contains(&name.as_str())
                || name == self.exe_name
                || super::waiter::is_bookkeeping(&name)
            {
                continue;
            }
            let Ok(meta) = fs::metadata(entry.path()) else {
                continue;
            };
            if meta.is_dir() {
                continue;
            }
            if self.catalog.get(&name) != Some(&stamp(&meta)) {
                changed.push(name);
            }
        }
        changed.sort();
        changed
    }

    /// A checkpoint's files (`FileTransfer::UploadCheckpointFiles`): `TransferCheckpoint`
    /// when the job has it, else the files the output transfer would send; then the standard
    /// output and error, by their sandbox names, when they come back with the output.
    pub(super) fn checkpoint_files(
        &self,
        scratch: &Path,
        listed: Option<&[String]>,
    ) -> Vec<String> {
        let mut names = match listed {
            Some(l) => l.to_vec(),
            None => self.files_to_send(scratch),
        };
        for (file, target) in [(STDOUT_NAME, &self.stdout), (STDERR_NAME, &self.stderr)] {
            if target.is_some() && !names.iter().any(|n| n == file) && scratch.join(file).exists() {
                names.push(file.to_owned());
            }
        }
        names
    }

    /// Where a file sent as `name` lands: `Iwd/name`, or its remap.
    fn destination(&self, name: &str) -> Result<PathBuf, StartFailure> {
        if !legal_sandbox_name(name) {
            return Err(self.ends.illegal_destination(Direction::Output, name));
        }
        let target = match remap(&self.remaps, name, self.max_recursions) {
            Err(cycle) => {
                return Err(self.ends.failure(
                    Direction::Output,
                    Side::Receiver,
                    &format!("remaps resulted in a cycle: {cycle}"),
                    libc::EPERM,
                ))
            }
            Ok(t) => t,
        };
        match target {
            None => Ok(self.iwd.join(name)),
            Some(t) if is_url(&t) => Err(self.ends.failure(
                Direction::Output,
                Side::Receiver,
                &format!("Remap of output file resulted in a URL: {t}"),
                libc::EPERM,
            )),
            Some(t) => Ok(self.relative_target(&t)),
        }
    }

    /// A remap target (or `Out`/`Err`): absolute as it is, relative under `Iwd`, its
    /// directories made when allowed.
    fn relative_target(&self, target: &str) -> PathBuf {
        if target.starts_with('/') {
            return PathBuf::from(target);
        }
        let path = self.iwd.join(target);
        if self.allow_mkdir {
            if let Some(parent) = path.parent() {
                if parent != self.iwd {
                    let _ = fs::create_dir_all(parent);
                }
            }
        }
        path
    }

    /// Whose rights the transfer runs with.
    pub(super) fn rights(&self) -> Result<&Rights, &AccountError> {
        self.rights.as_ref()
    }

    /// Sends the output back, with the job owner's rights: the bytes copied, and the first
    /// failure.
    pub(super) fn run(&self, scratch: &Path) -> (u64, Option<StartFailure>) {
        let ran = match &self.rights {
            Ok(rights) => rights
                .run(|| self.run_here(scratch))
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        ran.unwrap_or_else(|e| (0, Some(self.ends.owner_failure(Direction::Output, &e))))
    }

    /// [`OutputPlan::run`] with this thread's rights. Whatever is read
    /// from the sandbox is read beneath it ([`Beneath`]): a name or a symbolic link that
    /// leads out of it holds the job, and nothing of it is copied.
    fn run_here(&self, scratch: &Path) -> (u64, Option<StartFailure>) {
        let beneath = match Beneath::open(scratch) {
            Ok(b) => b,
            Err(e) => return (0, Some(self.ends.confined_failure(Direction::Output, &e))),
        };
        let mut total = 0;
        let mut first_failure: Option<StartFailure> = None;
        let mut note = |f: StartFailure| {
            if first_failure.is_none() {
                first_failure = Some(f);
            }
        };
        for name in self.files_to_send(scratch) {
            let base = basename(name.trim_end_matches('/'));
            let sent = beneath
                .relative(&name)
                .map_err(|e| self.ends.confined_failure(Direction::Output, &e))
                .and_then(|rel| Ok((rel, self.destination(base)?)))
                .and_then(|(rel, dst)| self.send(&beneath, &rel, &dst));
            match sent {
                Ok(n) => total += n,
                Err(f) => note(f),
            }
        }
        for (file, target) in [(STDOUT_NAME, &self.stdout), (STDERR_NAME, &self.stderr)] {
            let Some(target) = target else { continue };
            if fs::symlink_metadata(scratch.join(file)).is_err() {
                continue;
            }
            let dst = self.relative_target(target);
            match self.send(&beneath, Path::new(file), &dst) {
                Ok(n) => total += n,
                Err(f) => note(f),
            }
        }
        (total, first_failure)
    }

    /// Copies `rel` (a file, or a directory with its contents) from beneath the sandbox to
    /// `dst`; the bytes copied.
    fn send(&self, beneath: &Beneath, rel: &Path, dst: &Path) -> Result<u64, StartFailure> {
        let mut total = 0;
        let mut failed = None;
        let walked = beneath.walk(rel, &mut |item| {
            let to = under(dst, rel, item.rel());
            let written = match item {
                Item::Dir { .. } => make_dir(&to),
                Item::File { mut file, mode, .. } => write_from(&mut file, &to, mode),
            };
            match written {
                Ok(n) => {
                    total += n;
                    true
                }
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        });
        if let Some(e) = failed {
            return Err(self.ends.io_failure(Direction::Output, &e));
        }
        walked.map_err(|e| self.ends.confined_failure(Direction::Output, &e))?;
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaps_as_htcondor_reads_them() {
        let r = "a.txt = out/a.txt; b=/abs/b ;dir=elsewhere; x\\=y=z; bad;c=d";
        assert_eq!(
            remap(r, "a.txt", 128).unwrap().as_deref(),
            Some("out/a.txt")
        );
        assert_eq!(remap(r, "b", 128).unwrap().as_deref(), Some("/abs/b"));
        assert_eq!(
            remap(r, "dir/f", 128).unwrap().as_deref(),
            Some("elsewhere/f")
        );
        assert_eq!(remap(r, "x=y", 128).unwrap().as_deref(), Some("z"));
        assert_eq!(remap(r, "c", 128).unwrap().as_deref(), Some("d"));
        assert_eq!(remap(r, "nope", 128).unwrap(), None);
        // Chains are followed; loops are errors.
        assert_eq!(remap("a=b;b=c", "a", 128).unwrap().as_deref(), Some("c"));
        assert!(remap("a=b;b=a", "a", 128)
            .unwrap_err()
            .starts_with("<0: a><1: b>"));
        assert!(!is_url("a.txt") && is_url("https://x/y") && !is_url("://x"));
    }
}
