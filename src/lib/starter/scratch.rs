//! Jobs' scratch directories, `$(EXECUTE)/dir_<cluster>_<proc>_<n>`, made for each run and
//! gone after it, and the few that are emptied and kept for the next runs.
//!
//! Making and removing a directory and its bookkeeping files (`.job.ad`, `.machine.ad`, the
//! waiter's record) is most of what a short job costs the file system: on ext4 each inode
//! made looks past the inodes freed in the last seconds, so at hundreds of jobs a second the
//! cost of each grows with the rate. So a finished job's directory is emptied of the job's
//! files, its bookkeeping files emptied or rewritten in place, and parked as
//! `$(EXECUTE)/.free_<n>` ([`recycle`]); the next run of a job that would run as the same user
//! is renamed into it ([`make`]). Only a directory whose whole content could be removed, and
//! whose kept files are plain files with no other link (not a link a job made, nor a file it
//! linked elsewhere), is kept; at most [`MAX_FREE`] are. A master that starts removes the
//! parked directories an earlier one left with its stale job directories.

use std::fs::{self, DirBuilder};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::env::{JOB_AD_FILE, MACHINE_AD_FILE};
use super::waiter;

/// The name prefix of a parked directory in `$(EXECUTE)`.
pub(super) const FREE_PREFIX: &str = ".free_";

/// The most directories kept for later runs in one `$(EXECUTE)` (the oldest goes first).
pub const MAX_FREE: usize = 16;

/// The files a parked directory keeps (empty, or rewritten whole by the next run).
const KEPT: [&str; 3] = [JOB_AD_FILE, MACHINE_AD_FILE, waiter::RECORD];

/// A parked directory and the user it belongs to.
struct Free {
    dir: PathBuf,
    uid: u32,
}

static FREE: Mutex<Vec<Free>> = Mutex::new(Vec::new());

fn free_list() -> std::sync::MutexGuard<'static, Vec<Free>> {
    FREE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes `$(EXECUTE)/dir_<cluster>_<proc>_<n>` (mode 0700), for a job that runs as
/// `account` (this process's user when `None`): a parked directory of that user's renamed,
/// else a new one (making `$(EXECUTE)` if needed), given to the user.
pub(super) fn make(
    execute_dir: &Path,
    cluster: i64,
    proc: i64,
    account: Option<&super::identity::Account>,
) -> io::Result<PathBuf> {
    let uid = account.map_or_else(|| nix::unistd::geteuid().as_raw(), |a| a.uid.as_raw());
    loop {
        let dir = execute_dir.join(format!(
            "dir_{cluster}_{proc}_{}",
            super::next_scratch_number()
        ));
        let parked = {
            let mut free = free_list();
            let at = free
                .iter()
                .rposition(|f| f.uid == uid && f.dir.parent() == Some(execute_dir));
            at.map(|i| free.swap_remove(i).dir)
        };
        let Some(parked) = parked else {
            let dir = make_new(execute_dir, &dir)?;
            if let Some(a) = account.filter(|a| !a.is_current()) {
                give(&dir, a)?;
            }
            return Ok(dir);
        };
        // Gone meanwhile (a later run's cleanup), or the name is taken: the next one.
        if fs::rename(&parked, &dir).is_ok() {
            move_outside_record(&parked, &dir);
            return Ok(dir);
        }
    }
}

/// Gives the new directory `dir` to the user of `account` (its mode stays 0700), and makes
/// sure its record has a place out of the user's reach ([`waiter::RECORDS_DIR`], the
/// daemon's only); the directory is removed when either cannot be done.
fn give(dir: &Path, account: &super::identity::Account) -> io::Result<()> {
    let records = dir
        .parent()
        .map(|p| p.join(waiter::RECORDS_DIR))
        .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL));
    let given = records
        .and_then(
            |records| match DirBuilder::new().mode(0o700).create(&records) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
                _ => Ok(()),
            },
        )
        .and_then(|()| {
            std::os::unix::fs::chown(dir, Some(account.uid.as_raw()), Some(account.gid.as_raw()))
        });
    if given.is_err() {
        let _ = fs::remove_dir(dir);
    }
    given
}

/// Moves the record kept beside the directory `from` (see [`waiter::record_path`]) with it
/// to `to`; nothing when there is none (the directory is the daemon's user's, or its record
/// not made yet).
fn move_outside_record(from: &Path, to: &Path) {
    if !super::identity::daemon_is_root() {
        return;
    }
    if let (Some(from), Some(to)) = (
        waiter::outside_record_of(from),
        waiter::outside_record_of(to),
    ) {
        let _ = fs::rename(from, to);
    }
}

/// Removes the record kept beside the directory `dir`, if any.
fn remove_outside_record(dir: &Path) {
    if !super::identity::daemon_is_root() {
        return;
    }
    if let Some(record) = waiter::outside_record_of(dir) {
        match fs::remove_file(&record) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                tracing::warn!("cannot remove job record {}: {e}", record.display());
            }
            _ => {}
        }
    }
}

fn make_new(execute_dir: &Path, first: &Path) -> io::Result<PathBuf> {
    let mut dir = first.to_path_buf();
    let mut made_parent = false;
    loop {
        match DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::NotFound && !made_parent => {
                made_parent = true;
                fs::create_dir_all(execute_dir)?;
            }
            // Left behind by an earlier daemon: take the next number.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                let stem = name.rsplit_once('_').map_or(name, |(stem, _)| stem);
                dir = execute_dir.join(format!("{stem}_{}", super::next_scratch_number()));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Removes a scratch directory; a second try covers files a dying process was still making.
pub fn remove_scratch(dir: &Path) {
    remove_outside_record(dir);
    let first = fs::remove_dir_all(dir);
    if first.is_err() && dir.exists() {
        if let Err(e) = fs::remove_dir_all(dir) {
            tracing::warn!("cannot remove scratch directory {}: {e}", dir.display());
        }
    }
}

/// After its job's run has ended: parks `dir` for a later run (see the module's
/// documentation), or removes it.
pub fn recycle(dir: &Path) {
    let parked = (|| {
        let parent = dir.parent()?;
        let meta = fs::symlink_metadata(dir).ok()?;
        // Only after a waiter's recorded exit is it sure that nothing of the job runs (the
        // waiter ended the job's family first); a condor_ssh_to_job session may outlive it.
        let record = waiter::Record::read(dir)?;
        if !meta.is_dir() || record.exit.is_none() || record.session {
            return None;
        }
        empty(dir).ok()?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).ok()?;
        let free = parent.join(format!("{FREE_PREFIX}{}", super::next_scratch_number()));
        fs::rename(dir, &free).ok()?;
        move_outside_record(dir, &free);
        // The oldest parked directory of this `$(EXECUTE)` makes room (those of another,
        // before a reconfiguration, stay until the daemon stops: a few at most).
        let evicted: Vec<PathBuf> = {
            let mut list = free_list();
            list.push(Free {
                dir: free,
                uid: meta.uid(),
            });
            let mut evicted = Vec::new();
            let here = list
                .iter()
                .filter(|f| f.dir.parent() == Some(parent))
                .count();
            if here > MAX_FREE {
                if let Some(i) = list.iter().position(|f| f.dir.parent() == Some(parent)) {
                    evicted.push(list.remove(i).dir);
                }
            }
            evicted
        };
        for old in evicted {
            remove_scratch(&old);
        }
        Some(())
    })();
    if parked.is_none() {
        remove_scratch(dir);
    }
}

/// Removes the directories parked in `execute_dir` (the daemon stops).
pub fn remove_parked(execute_dir: &Path) {
    let parked: Vec<Free> = {
        let mut list = free_list();
        let (here, others) = std::mem::take(&mut *list)
            .into_iter()
            .partition(|f| f.dir.parent() == Some(execute_dir));
        *list = others;
        here
    };
    for free in parked {
        remove_scratch(&free.dir);
    }
}

/// Removes everything in `dir` but the [`KEPT`] files, and resets the waiter's record; a kept
/// file that is not a plain file with one link is removed too.
fn empty(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let path = entry.path();
        let meta = entry.metadata()?;
        let kept = name.to_str().is_some_and(|n| KEPT.contains(&n));
        if kept && meta.is_file() && meta.nlink() == 1 {
            continue;
        }
        if meta.is_dir() {
            fs::remove_dir_all(&path)?;
        } else {
            fs::remove_file(&path)?;
        }
    }
    match waiter::reset(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Writes a bookkeeping file of the scratch directory whole: in place when a parked
/// directory has it (never through a link), else new. In place means over the old content,
/// then cut to length: a file truncated to nothing and written again is flushed to the disk
/// when closed (ext4's `auto_da_alloc`), which a rewrite of the same blocks is not.
pub(super) fn write_file(path: &Path, contents: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    file.write_all_at(contents, 0)?;
    file.set_len(contents.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_directory_is_emptied_and_used_again() {
        let execute = tempfile::tempdir().unwrap();
        let first = make(execute.path(), 1, 0, None).unwrap();
        write_file(&first.join(JOB_AD_FILE), b"ClusterId = 1\n").unwrap();
        fs::write(first.join(waiter::RECORD), "W 1 2 3\nX 0 1 1 1\n").unwrap();
        // Before its waiter's exit is recorded, a directory is not parked.
        let unended = make(execute.path(), 9, 0, None).unwrap();
        fs::write(unended.join(waiter::RECORD), "W 1 2 3\n").unwrap();
        recycle(&unended);
        assert!(!unended.exists());
        fs::write(first.join("output"), "out").unwrap();
        fs::create_dir_all(first.join("sub/deeper")).unwrap();
        // A kept name the job made a link of, and one it linked elsewhere: not kept.
        fs::write(execute.path().join("target"), "secret").unwrap();
        std::os::unix::fs::symlink(execute.path().join("target"), first.join(MACHINE_AD_FILE))
            .unwrap();
        let ad_inode = fs::metadata(first.join(JOB_AD_FILE)).unwrap().ino();
        recycle(&first);
        assert!(!first.exists());
        let second = make(execute.path(), 2, 0, None).unwrap();
        assert_ne!(first, second);
        let mut names: Vec<String> = fs::read_dir(&second)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, [JOB_AD_FILE, waiter::RECORD]);
        assert_eq!(
            waiter::Record::read(&second),
            Some(waiter::Record::default())
        );
        assert_eq!(
            fs::metadata(second.join(JOB_AD_FILE)).unwrap().ino(),
            ad_inode
        );
        write_file(&second.join(JOB_AD_FILE), b"ClusterId = 2\n").unwrap();
        assert_eq!(
            fs::read(second.join(JOB_AD_FILE)).unwrap(),
            b"ClusterId = 2\n"
        );
        assert_eq!(fs::read(execute.path().join("target")).unwrap(), b"secret");

        // A hard link to a kept file: the file is not kept (the other name would see the
        // next job's ad).
        fs::hard_link(second.join(JOB_AD_FILE), execute.path().join("copy")).unwrap();
        fs::write(second.join(waiter::RECORD), "X 0 1 1 1\n").unwrap();
        recycle(&second);
        let third = make(execute.path(), 3, 0, None).unwrap();
        assert!(!third.join(JOB_AD_FILE).exists());
        assert_eq!(
            fs::read(execute.path().join("copy")).unwrap(),
            b"ClusterId = 2\n"
        );
        // Writing never follows a link.
        std::os::unix::fs::symlink(execute.path().join("target"), third.join(JOB_AD_FILE)).unwrap();
        assert!(write_file(&third.join(JOB_AD_FILE), b"x").is_err());
        assert_eq!(fs::read(execute.path().join("target")).unwrap(), b"secret");
        fs::write(third.join(waiter::RECORD), "X 0 1 1 1\n").unwrap();
        recycle(&third);
        remove_scratch(execute.path());
    }

    #[test]
    fn a_directory_that_had_a_session_is_not_used_again() {
        let execute = tempfile::tempdir().unwrap();
        let dir = make(execute.path(), 1, 0, None).unwrap();
        fs::write(dir.join(waiter::RECORD), "W 1 2 3\n").unwrap();
        waiter::mark_session(&dir).unwrap();
        fs::OpenOptions::new()
            .append(true)
            .open(dir.join(waiter::RECORD))
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"X 0 1 1 1\n"))
            .unwrap();
        recycle(&dir);
        assert_eq!(fs::read_dir(execute.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_planted_fifo_is_removed_not_opened() {
        let execute = tempfile::tempdir().unwrap();
        let dir = make(execute.path(), 1, 0, None).unwrap();
        nix::unistd::mkfifo(&dir.join(JOB_AD_FILE), nix::sys::stat::Mode::S_IRWXU).unwrap();
        fs::write(dir.join(waiter::RECORD), "X 0 1 1 1\n").unwrap();
        recycle(&dir);
        let again = make(execute.path(), 2, 0, None).unwrap();
        let left: Vec<_> = fs::read_dir(&again)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [waiter::RECORD], "emptied");
        remove_scratch(&again);
    }

    #[test]
    fn parked_directories_are_bounded() {
        let execute = tempfile::tempdir().unwrap();
        let dirs: Vec<PathBuf> = (0..MAX_FREE + 5)
            .map(|p| make(execute.path(), 1, p as i64, None).unwrap())
            .collect();
        for dir in &dirs {
            fs::write(dir.join(waiter::RECORD), "X 0 1 1 1\n").unwrap();
            recycle(dir);
        }
        let parked = fs::read_dir(execute.path()).unwrap().count();
        assert!(parked <= MAX_FREE, "{parked} parked");
    }

    #[test]
    fn a_directory_given_to_another_user_keeps_its_record_beside_it() {
        if !crate::starter::identity::daemon_is_root() {
            eprintln!("skipped: giving a directory to another user needs root");
            return;
        }
        let Ok(nobody) = crate::starter::identity::Account::lookup("nobody") else {
            eprintln!("skipped: no account \"nobody\" on this machine");
            return;
        };
        let execute = tempfile::tempdir().unwrap();
        let records = execute.path().join(waiter::RECORDS_DIR);
        let dir = make(execute.path(), 1, 0, Some(&nobody)).unwrap();
        let meta = fs::metadata(&dir).unwrap();
        assert_eq!(
            (meta.uid(), meta.mode() & 0o777),
            (nobody.uid.as_raw(), 0o700)
        );
        let record = waiter::record_path(&dir);
        assert_eq!(record, records.join(dir.file_name().unwrap()));
        assert_eq!(fs::metadata(&records).unwrap().mode() & 0o777, 0o700);
        // A record the user wrote in the directory is not the job's.
        fs::write(dir.join(waiter::RECORD), "X 0 1 1 1\n").unwrap();
        assert_eq!(waiter::Record::read(&dir), None);
        fs::write(&record, "W 1 2 3\nX 0 1 1 1\n").unwrap();
        assert!(waiter::read_record(&dir).is_some());
        // Parked with it, and the user's next run takes both.
        recycle(&dir);
        assert!(!dir.exists() && !record.exists());
        let again = make(execute.path(), 2, 0, Some(&nobody)).unwrap();
        let r = waiter::Record::read(&again).expect("the record came along, reset");
        assert_eq!((r.waiter, r.exit), (None, None));
        // Another user's run (here root's) does not take a directory parked for nobody.
        let mine = make(execute.path(), 3, 0, None).unwrap();
        assert_eq!(fs::metadata(&mine).unwrap().uid(), 0);
        assert_eq!(waiter::record_path(&mine), mine.join(waiter::RECORD));
        // Removed with its directory.
        let record = waiter::record_path(&again);
        remove_scratch(&again);
        assert!(!again.exists() && !record.exists());
    }
}
