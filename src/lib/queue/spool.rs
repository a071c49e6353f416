//! The jobs' own directories in the spool (HTCondor's `SpooledJobFiles`,
//! src/condor_utils/spooled_job_files.cpp): `$(SPOOL)/<cluster % 10000>/<proc % 10000>/
//! cluster<C>.proc<P>.subproc0` (`gen_ckpt_name`). They hold a self-checkpointing job's
//! latest checkpoint and a spooled job's output until `condor_transfer_data` fetches it.
//! A job's directory is removed when the job leaves the queue (the schedd's
//! `removeJobSpoolDirectory` at `DestroyProc`), by the transaction that moves it to the
//! history, once that transaction has committed.
//!
//! Unlike HTCondor, `ALTERNATE_JOB_SPOOL` is not read: every job's directory is under the
//! queue's own spool directory.

use std::path::{Path, PathBuf};

use super::JobId;

/// `gen_ckpt_name(SPOOL, cluster, proc, 0)`: the job's spool directory.
pub fn job_spool_dir(spool: &Path, job: JobId) -> PathBuf {
    let (cluster, proc) = (job.cluster.0, job.proc);
    spool
        .join((cluster % 10000).to_string())
        .join((proc % 10000).to_string())
        .join(format!("cluster{cluster}.proc{proc}.subproc0"))
}

/// The sibling directories that hold a job's spool contents while they are replaced
/// (`<dir>.tmp` is HTCondor's name for its staging area; condorlite stages checkpoints
/// under `<dir>.ckpt-new`, renames a complete one `<dir>.ckpt-ready`, and moves the
/// replaced one to `<dir>.ckpt-old`).
pub fn job_spool_siblings(dir: &Path) -> [PathBuf; 4] {
    let with = |suffix: &str| {
        let mut s = dir.as_os_str().to_owned();
        s.push(suffix);
        PathBuf::from(s)
    };
    [
        with(".tmp"),
        with(".ckpt-new"),
        with(".ckpt-old"),
        with(".ckpt-ready"),
    ]
}

/// Removes a job's spool directory and its siblings, and the `<proc>` and `<cluster>`
/// directories above it when that leaves them empty. Nothing there is not an error.
pub fn remove_job_spool(spool: &Path, job: JobId) {
    let dir = job_spool_dir(spool, job);
    for d in std::iter::once(dir.clone()).chain(job_spool_siblings(&dir)) {
        match std::fs::symlink_metadata(&d) {
            Ok(m) if m.is_dir() => {
                if let Err(e) = std::fs::remove_dir_all(&d) {
                    tracing::warn!("cannot remove job spool directory {}: {e}", d.display());
                }
            }
            Ok(_) => {
                let _ = std::fs::remove_file(&d);
            }
            Err(_) => {}
        }
    }
    // Only empty directories go (`rmdir`): other jobs' directories keep them.
    let mut parent = dir.parent();
    for _ in 0..2 {
        let Some(p) = parent else { break };
        if p == spool || std::fs::remove_dir(p).is_err() {
            break;
        }
        parent = p.parent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::ClusterId;

    #[test]
    fn paths_as_gen_ckpt_name_makes_them() {
        let id = JobId {
            cluster: ClusterId(123456),
            proc: 10007,
        };
        assert_eq!(
            job_spool_dir(Path::new("/s"), id),
            Path::new("/s/3456/7/cluster123456.proc10007.subproc0")
        );
    }

    #[test]
    fn removal_takes_empty_parents_only() {
        let dir = tempfile::tempdir().unwrap();
        let a = JobId {
            cluster: ClusterId(1),
            proc: 0,
        };
        let b = JobId {
            cluster: ClusterId(1),
            proc: 1,
        };
        for id in [a, b] {
            std::fs::create_dir_all(job_spool_dir(dir.path(), id)).unwrap();
            std::fs::write(job_spool_dir(dir.path(), id).join("f"), "x").unwrap();
        }
        remove_job_spool(dir.path(), a);
        assert!(!dir.path().join("1/0").exists());
        assert!(job_spool_dir(dir.path(), b).join("f").exists());
        remove_job_spool(dir.path(), b);
        assert!(!dir.path().join("1").exists());
        assert!(dir.path().exists());
    }
}
