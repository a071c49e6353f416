//! The master's background work: what must happen after a step but need not hold up the
//! next one.
//!
//! - Removing finished jobs' scratch directories, or parking them for later runs
//!   ([`starter::recycle`]). A directory is handed over once its job's output is back and its
//!   exit recorded; no later step reads it. A directory a crash
//!   leaves behind is removed by the next master ([`crate::starter::kill_orphans_except`]), as
//!   before.
//! - Syncing the job queue's write-ahead log after the master's own commits, which do not
//!   wait for the disk (see the durability notes in [`super::pool`]). Requests that arrive
//!   while a sync is under way are served by the next one.
//!
//! Stopping the pool waits until every handed-over directory is gone (parked ones too) and the
//! log synced.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::starter;

enum Work {
    Remove(PathBuf),
    Recycle(PathBuf),
    Sync(PathBuf),
}

/// The thread that does the master's background work.
pub struct Cleaner {
    tx: Option<Sender<Work>>,
    thread: Option<JoinHandle<()>>,
    /// A sync is asked for and has not started yet.
    sync_wanted: Arc<AtomicBool>,
    /// `$(EXECUTE)`, whose parked directories go when the work is done.
    execute: PathBuf,
}

fn sync_file(path: &std::path::Path) {
    match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(f) => {
            if let Err(e) = f.sync_data() {
                tracing::error!("cannot sync {}: {e}", path.display());
            }
        }
        // Checkpointed and removed meanwhile: its content is in the (synced) store.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::error!("cannot sync {}: {e}", path.display()),
    }
}

impl Cleaner {
    /// The cleaner of the pool whose scratch directories are in `execute`.
    pub fn new(execute: PathBuf) -> Cleaner {
        let (tx, rx) = mpsc::channel::<Work>();
        let sync_wanted = Arc::new(AtomicBool::new(false));
        let wanted = sync_wanted.clone();
        let thread = std::thread::Builder::new()
            .name("cleanup".into())
            .stack_size(128 * 1024)
            .spawn(move || {
                for work in rx {
                    match work {
                        Work::Remove(dir) => starter::remove_scratch(&dir),
                        Work::Recycle(dir) => starter::recycle(&dir),
                        Work::Sync(path) => {
                            if wanted.swap(false, Ordering::AcqRel) {
                                sync_file(&path);
                            }
                        }
                    }
                }
            });
        match thread {
            Ok(t) => Cleaner {
                tx: Some(tx),
                thread: Some(t),
                sync_wanted,
                execute,
            },
            Err(e) => {
                tracing::warn!("no background thread ({e}): its work is done at once");
                Cleaner {
                    tx: None,
                    thread: None,
                    sync_wanted,
                    execute,
                }
            }
        }
    }

    fn send(&self, work: Work) {
        let work = match &self.tx {
            Some(tx) => match tx.send(work) {
                Ok(()) => return,
                Err(mpsc::SendError(work)) => work,
            },
            None => work,
        };
        match work {
            Work::Remove(dir) => starter::remove_scratch(&dir),
            Work::Recycle(dir) => starter::recycle(&dir),
            Work::Sync(path) => {
                self.sync_wanted.store(false, Ordering::Release);
                sync_file(&path);
            }
        }
    }

    /// Removes `dir`, soon.
    pub fn remove(&self, dir: PathBuf) {
        self.send(Work::Remove(dir));
    }

    /// Parks the scratch directory `dir` of a run that ended for a later run, or removes it
    /// ([`starter::recycle`]), soon.
    pub fn recycle(&self, dir: PathBuf) {
        self.send(Work::Recycle(dir));
    }

    /// Syncs the file `path` (the queue's write-ahead log), soon.
    pub fn sync(&self, path: PathBuf) {
        if !self.sync_wanted.swap(true, Ordering::AcqRel) {
            self.send(Work::Sync(path));
        }
    }

    /// Waits until all the work handed over is done, then removes the parked directories.
    pub fn finish(&mut self) {
        self.tx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        starter::remove_parked(&self.execute);
    }
}

impl Drop for Cleaner {
    fn drop(&mut self) {
        self.finish();
    }
}
