//! One master per pool: an exclusive lock on `$(RUN)/condor_master.pid`, which also holds the
//! master's process id.
//!
//! The lock is `flock(2)` on the pid file, held for as long as the master lives, so that it
//! goes away with the process however it dies (even SIGKILL): a stale pid file is never
//! mistaken for a running master. The pid written into it is for people and tools
//! (`condor_off` needs none of it; it talks to the socket).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

/// The pid file's name in `$(RUN)`.
pub const PID_FILE: &str = "condor_master.pid";

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("a condor_master (pid {pid}) is already running for this pool ({})", .path.display())]
    Running { pid: String, path: PathBuf },
    #[error("cannot use the pid file {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The held lock; dropping it releases the lock and empties the pid file.
#[derive(Debug)]
pub struct PidLock {
    file: Option<Flock<File>>,
}

impl PidLock {
    /// Takes the lock of the pool whose run directory is `run`, and writes this process's id.
    pub fn acquire(run: &Path) -> Result<PidLock, LockError> {
        let path = run.join(PID_FILE);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let mut file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(f) => f,
            Err((mut file, errno)) => {
                if errno == nix::errno::Errno::EWOULDBLOCK {
                    let mut pid = String::new();
                    let _ = file.read_to_string(&mut pid);
                    return Err(LockError::Running {
                        pid: pid.trim().to_owned(),
                        path: run.to_owned(),
                    });
                }
                return Err(io(std::io::Error::from(errno)));
            }
        };
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        Ok(PidLock { file: Some(file) })
    }
}

impl Drop for PidLock {
    fn drop(&mut self) {
        // The file stays: removing it would let a waiting opener lock the removed file while
        // another creates a new one, and two masters would run. Emptied, it names nobody.
        if let Some(file) = self.file.take() {
            let _ = file.set_len(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether some process holds the lock of the pool whose run directory is `run`.
    fn is_held(run: &Path) -> bool {
        let Ok(file) = File::open(run.join(PID_FILE)) else {
            return false;
        };
        match Flock::lock(file, FlockArg::LockSharedNonblock) {
            Ok(_) => false,
            Err((_, errno)) => errno == nix::errno::Errno::EWOULDBLOCK,
        }
    }

    #[test]
    fn one_holder_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_held(dir.path()));
        let lock = PidLock::acquire(dir.path()).unwrap();
        assert!(is_held(dir.path()));
        let pid = std::fs::read_to_string(dir.path().join(PID_FILE)).unwrap();
        assert_eq!(pid.trim(), std::process::id().to_string());
        let again = PidLock::acquire(dir.path()).unwrap_err();
        assert!(again.to_string().contains("already running"), "{again}");
        drop(lock);
        assert!(!is_held(dir.path()));
        PidLock::acquire(dir.path()).unwrap();
    }
}
