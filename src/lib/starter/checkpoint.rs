//! Self-checkpointing jobs (`checkpoint_exit_code`), as HTCondor 24.0's starter and shadow
//! handle them when the checkpoint goes to the access point's SPOOL (no
//! `checkpoint_destination`): src/condor_starter.V6.1/vanilla_proc.cpp (`JobReaper`,
//! `restartCheckpointedJob`), jic_shadow.cpp (`uploadCheckpointFiles`),
//! src/condor_utils/file_transfer.cpp (`UploadCheckpointFiles`, and the shadow's
//! `FILETRANS_UPLOAD`, which adds every entry of the job's spool directory to the input),
//! src/condor_shadow.V6.1/remoteresource.cpp (`updateFromStarter`).
//!
//! - A job whose `WantFTOnCheckpoint` is true and that exits with exactly its checkpoint
//!   status (`SuccessCheckpointExitCode`, or `SuccessCheckpointExitSignal` when
//!   `SuccessCheckpointExitBySignal`: `computeDesiredExitStatus("Checkpoint")`) has not
//!   ended: the starter sends its checkpoint to the job's spool directory, reports
//!   `CheckpointNumber`, `JobLastCheckpointTime` and the run's seconds (`CommittedTime` grows
//!   by them) and starts the job again in the same sandbox, on the same claim. Not during a
//!   soft kill: then the exit ends the run as any other would.
//! - The checkpoint is `TransferCheckpoint` (the job's `transfer_checkpoint_files`) when set,
//!   else the files the output transfer would send (`TransferOutput`, or the files new or
//!   changed since the input transfer); with the standard output and error (their sandbox
//!   names) unless they are streamed or not kept. The numbers start at 0: the starter's
//!   counter is -1 until it reads `CheckpointNumber`, and goes up by one before each upload.
//! - A job with no file transfer has nothing to upload to: the checkpoint fails (the shadow
//!   still records its number) and the job is started again all the same.
//! - Every later start of the job (after an eviction, on another slot) copies the spool
//!   directory's entries into the new sandbox with the input.
//!
//! The spool directory is replaced in one step, so that a master killed at any point leaves
//! either the previous checkpoint or the new one, never a mix and never none: the new one is
//! staged in `<dir>.ckpt-new` (the previous checkpoint's files that this one does not send
//! are linked in, as HTCondor's upload leaves them in place), renamed `<dir>.ckpt-ready`
//! when complete, then swapped in (`<dir>` to `<dir>.ckpt-old`, ready to `<dir>`, old
//! removed). [`recover`] finishes or undoes a swap that a crash interrupted, before the
//! directory is read or written again.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::classad::ClassAd;
use crate::config::expand::tokens;
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::queue::spool::{job_spool_dir, job_spool_siblings};
use crate::queue::{ClusterId, JobId};

use super::confine::{place, Beneath, Item};
use super::rights::Rights;
use super::transfer::ConfineError;

/// What the starter needs to know about a self-checkpointing job, from its ad.
#[derive(Clone, Debug)]
pub(super) struct CheckpointPlan {
    /// The raw wait status that means "checkpointed".
    pub status: i32,
    /// `TransferCheckpoint`, when set.
    pub files: Option<Vec<String>>,
    /// The job's spool directory, when the job transfers files (else it has no checkpoint).
    pub spool_dir: Option<PathBuf>,
    /// The last checkpoint's number (-1: none yet).
    pub number: i64,
}

/// `computeDesiredExitStatus("Checkpoint", ad)`: the raw wait status of a checkpoint exit.
pub fn checkpoint_status(job: &ClassAd) -> i32 {
    let by_signal = lookup_bool(job, "SuccessCheckpointExitBySignal").unwrap_or(false);
    let code = lookup_int(job, "SuccessCheckpointExitCode").unwrap_or(0);
    let signal = lookup_int(job, "SuccessCheckpointExitSignal").unwrap_or(0);
    if by_signal {
        signal as i32
    } else if code != 0 {
        (code as i32) << 8
    } else {
        0
    }
}

/// Whether the job checkpoints by exiting (`WantFTOnCheckpoint`).
pub fn wants_checkpoints(job: &ClassAd) -> bool {
    lookup_bool(job, "WantFTOnCheckpoint").unwrap_or(false)
}

/// The job's spool directory under `$(SPOOL)`.
pub fn spool_dir_of(spool: &Path, job: &ClassAd) -> PathBuf {
    let id = JobId {
        cluster: ClusterId(lookup_int(job, "ClusterId").unwrap_or(0) as i32),
        proc: lookup_int(job, "ProcId").unwrap_or(0) as i32,
    };
    job_spool_dir(spool, id)
}

impl CheckpointPlan {
    /// The plan of a job that wants checkpoints; `spool` is `$(SPOOL)` when the job transfers
    /// files.
    pub fn of(job: &ClassAd, spool: Option<&Path>) -> Option<CheckpointPlan> {
        if !wants_checkpoints(job) {
            return None;
        }
        Some(CheckpointPlan {
            status: checkpoint_status(job),
            files: lookup_str(job, "TransferCheckpoint").map(|s| tokens(&s, ",")),
            spool_dir: spool.map(|s| spool_dir_of(s, job)),
            number: lookup_int(job, "CheckpointNumber").unwrap_or(-1),
        })
    }
}

fn sibling(dir: &Path, which: usize) -> PathBuf {
    job_spool_siblings(dir)[which].clone()
}

fn new_dir(dir: &Path) -> PathBuf {
    sibling(dir, 1)
}

fn old_dir(dir: &Path) -> PathBuf {
    sibling(dir, 2)
}

fn ready_dir(dir: &Path) -> PathBuf {
    sibling(dir, 3)
}

fn remove_if_there(p: &Path) -> io::Result<()> {
    match fs::remove_dir_all(p) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Moves a complete staged checkpoint (`<dir>.ckpt-ready`) into place.
fn swap_in(dir: &Path) -> io::Result<()> {
    let (ready, old) = (ready_dir(dir), old_dir(dir));
    remove_if_there(&old)?;
    if dir.exists() {
        fs::rename(dir, &old)?;
    }
    fs::rename(&ready, dir)?;
    remove_if_there(&old)
}

/// Puts right what a crash during [`save`] left: a staging that was not complete is
/// dropped, a complete one that was not swapped in yet is.
pub fn recover(dir: &Path) -> io::Result<()> {
    remove_if_there(&new_dir(dir))?;
    if ready_dir(dir).exists() {
        swap_in(dir)?;
    }
    remove_if_there(&old_dir(dir))
}

/// Links the entries of `from` that `to` lacks into `to`, recursively (the previous
/// checkpoint's files that the new one does not replace).
fn link_missing(from: &Path, to: &Path, depth: u32) -> io::Result<()> {
    if depth > 64 {
        return Err(io::Error::from_raw_os_error(libc::ELOOP));
    }
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        let meta = entry.metadata()?;
        if meta.is_dir() {
            match fs::create_dir(&dst) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            }
            if dst.is_dir() {
                link_missing(&src, &dst, depth + 1)?;
            }
        } else if fs::symlink_metadata(&dst).is_err() {
            fs::hard_link(&src, &dst)?;
        }
    }
    Ok(())
}

/// Why a checkpoint was not stored.
#[derive(Debug)]
pub enum SaveError {
    /// A file of the checkpoint could not be read from the sandbox.
    Source(ConfineError),
    /// The spool directory could not be written.
    Spool(io::Error),
}

impl std::fmt::Display for SaveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SaveError::Source(e) => write!(f, "{e}"),
            SaveError::Spool(e) => write!(f, "writing the job's spool directory: {e}"),
        }
    }
}

/// Puts `item` under `root` (at its own relative path), its directories made.
fn place_under(root: &Path, item: Item) -> Result<u64, ConfineError> {
    let to = root.join(item.rel());
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(|e| ConfineError::io(parent, &e))?;
    }
    place(item, &to)
}

/// Stores the files `names` (relative to `scratch`) as the job's checkpoint in `dir`; the
/// bytes copied. The sandbox is read with the job owner's `rights`, beneath it (nothing
/// outside, no link out); the spool is written with the daemon's own.
pub fn save(
    rights: &Rights,
    scratch: &Path,
    names: &[String],
    dir: &Path,
) -> Result<u64, SaveError> {
    recover(dir).map_err(SaveError::Spool)?;
    let staging = new_dir(dir);
    fs::create_dir_all(&staging).map_err(SaveError::Spool)?;
    let mut total = 0;
    let relayed = rights.relay(
        true,
        |sink| {
            let beneath = Beneath::open(scratch).map_err(SaveError::Source)?;
            for name in names {
                let rel = beneath.relative(name).map_err(SaveError::Source)?;
                let mut going = true;
                beneath
                    .walk(&rel, &mut |item| {
                        going = sink(item);
                        going
                    })
                    .map_err(SaveError::Source)?;
                if !going {
                    break;
                }
            }
            Ok(())
        },
        |item| {
            total += place_under(&staging, item)
                .map_err(|e| SaveError::Spool(io::Error::from_raw_os_error(e.errno)))?;
            Ok(())
        },
    );
    let stored = relayed
        .unwrap_or_else(|e| Err(SaveError::Source(ConfineError::io(scratch, &e))))
        .and_then(|()| {
            if dir.is_dir() {
                link_missing(dir, &staging, 0).map_err(SaveError::Spool)?;
            }
            fs::rename(&staging, ready_dir(dir)).map_err(SaveError::Spool)?;
            swap_in(dir).map_err(SaveError::Spool)
        });
    if let Err(e) = stored {
        let _ = remove_if_there(&staging);
        return Err(e);
    }
    Ok(total)
}

/// Copies the job's last checkpoint (every entry of its spool directory) into a new
/// sandbox, written with the job owner's `rights`; the bytes copied (0 when there is none).
pub fn restore(rights: &Rights, dir: &Path, scratch: &Path) -> Result<u64, ConfineError> {
    recover(dir).map_err(|e| ConfineError::io(dir, &e))?;
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(ConfineError::io(dir, &e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| ConfineError::io(dir, &e))?;
        if let Ok(name) = entry.file_name().into_string() {
            names.push(name);
        }
    }
    names.sort();
    let mut total = 0;
    let relayed = rights.relay(
        false,
        |sink| {
            let beneath = Beneath::open(dir)?;
            for name in &names {
                let rel = beneath.relative(name)?;
                let mut going = true;
                beneath.walk(&rel, &mut |item| {
                    going = sink(item);
                    going
                })?;
                if !going {
                    break;
                }
            }
            Ok(())
        },
        |item| {
            total += place_under(scratch, item)?;
            Ok(())
        },
    );
    relayed.unwrap_or_else(|e| Err(ConfineError::io(scratch, &e)))?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        if let Some(d) = p.parent() {
            fs::create_dir_all(d).unwrap();
        }
        fs::write(p, text).unwrap();
    }

    #[test]
    fn the_status_is_computed_as_the_starter_does() {
        let ad = |text: &str| crate::classad::parser::parse_old_ad(text).unwrap();
        assert_eq!(
            checkpoint_status(&ad("SuccessCheckpointExitCode = 85")),
            85 << 8
        );
        assert_eq!(
            checkpoint_status(&ad(
                "SuccessCheckpointExitCode = 85\nSuccessCheckpointExitBySignal = true\n\
                 SuccessCheckpointExitSignal = 10"
            )),
            10
        );
        assert_eq!(checkpoint_status(&ad("WantFTOnCheckpoint = true")), 0);
    }

    #[test]
    fn a_checkpoint_replaces_the_last_one_and_keeps_what_it_does_not_send() {
        let t = tempfile::tempdir().unwrap();
        let (scratch, dir) = (t.path().join("scratch"), t.path().join("spool/job"));
        write(&scratch.join("count"), "1");
        write(&scratch.join("other"), "a");
        save(
            &Rights::Own,
            &scratch,
            &["count".into(), "other".into()],
            &dir,
        )
        .unwrap();
        write(&scratch.join("count"), "2");
        save(&Rights::Own, &scratch, &["count".into()], &dir).unwrap();
        assert_eq!(fs::read_to_string(dir.join("count")).unwrap(), "2");
        assert_eq!(fs::read_to_string(dir.join("other")).unwrap(), "a");
        for s in job_spool_siblings(&dir) {
            assert!(!s.exists(), "{} left", s.display());
        }
        let fresh = t.path().join("fresh");
        fs::create_dir(&fresh).unwrap();
        restore(&Rights::Own, &dir, &fresh).unwrap();
        assert_eq!(fs::read_to_string(fresh.join("count")).unwrap(), "2");
    }

    #[test]
    fn a_crash_leaves_one_whole_checkpoint() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("job");
        write(&dir.join("count"), "1");
        // Killed while staging: the staging goes, the last checkpoint stays.
        write(&new_dir(&dir).join("count"), "half");
        recover(&dir).unwrap();
        assert_eq!(fs::read_to_string(dir.join("count")).unwrap(), "1");
        assert!(!new_dir(&dir).exists());
        // Killed between the two renames: the complete new one goes in.
        write(&ready_dir(&dir).join("count"), "2");
        fs::rename(&dir, old_dir(&dir)).unwrap();
        recover(&dir).unwrap();
        assert_eq!(fs::read_to_string(dir.join("count")).unwrap(), "2");
        assert!(!old_dir(&dir).exists() && !ready_dir(&dir).exists());
        // Killed after staging, before the swap: the new one goes in.
        write(&ready_dir(&dir).join("count"), "3");
        recover(&dir).unwrap();
        assert_eq!(fs::read_to_string(dir.join("count")).unwrap(), "3");
    }

    #[test]
    fn nothing_outside_the_sandbox_is_taken() {
        let t = tempfile::tempdir().unwrap();
        let (scratch, dir) = (t.path().join("scratch"), t.path().join("job"));
        write(&t.path().join("secret"), "s");
        write(&scratch.join("ok"), "x");
        std::os::unix::fs::symlink(t.path().join("secret"), scratch.join("link")).unwrap();
        for bad in ["../secret", "link", "/etc/passwd"] {
            let e = save(&Rights::Own, &scratch, &[bad.to_owned()], &dir).unwrap_err();
            assert!(matches!(e, SaveError::Source(_)), "{bad}: {e}");
        }
        assert!(!dir.join("secret").exists());
    }
}
