//! Jobs left running by a daemon that died: every job's environment names a path of the
//! daemon's, so the processes of this user whose environment points there are the leftovers of
//! earlier runs, and so are the job directories there. (HTCondor's procd tracks job families by
//! ancestry variables in their environment in the same spirit, and its startd empties the
//! execute directory when it starts.) Two marks:
//!
//! - a job run on a slot has `_CONDOR_SCRATCH_DIR` under `$(EXECUTE)` ([`kill_orphans_except`]);
//! - a scheduler-universe job, which the schedd runs itself, has `_CONDOR_JOB_AD` under
//!   `$(LOCAL_UNIV_EXECUTE)` ([`kill_local_orphans`]): the `.job.ad` the schedd writes for it
//!   there.
//!
//! Call these at startup, before any job is started: every job under the directory is taken
//! for an orphan.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::{getpgid, Pid};

/// The mark of a job run on a slot: its scratch directory.
const SCRATCH_VAR: &str = "_CONDOR_SCRATCH_DIR";
/// The mark of a scheduler-universe job: its job ad, in its directory.
const LOCAL_JOB_AD_VAR: &str = "_CONDOR_JOB_AD";

/// `execute_dir` as given and as it resolves (symlinks), for comparing paths.
fn execute_dir_forms(execute_dir: &Path) -> Vec<PathBuf> {
    let mut forms = vec![std::path::absolute(execute_dir).unwrap_or_else(|_| execute_dir.into())];
    if let Ok(real) = fs::canonicalize(execute_dir) {
        if !forms.contains(&real) {
            forms.push(real);
        }
    }
    forms
}

/// The value of the environment variable `var` of a process, if it can be read and has it.
fn env_path_of(pid: i32, var: &str) -> Option<PathBuf> {
    let environ = fs::read(format!("/proc/{pid}/environ")).ok()?;
    environ
        .split(|&b| b == 0)
        .find_map(|entry| {
            entry
                .strip_prefix(var.as_bytes())
                .and_then(|rest| rest.strip_prefix(b"="))
        })
        .map(|v| PathBuf::from(String::from_utf8_lossy(v).into_owned()))
}

/// The processes of this user (other than this one) whose `_CONDOR_SCRATCH_DIR` lies under
/// `execute_dir`.
#[cfg(test)]
pub fn find_orphans(execute_dir: &Path) -> Vec<i32> {
    find_marked(SCRATCH_VAR, execute_dir)
}

/// The processes of this user (other than this one) whose `_CONDOR_JOB_AD` lies under
/// `local_dir` (`$(LOCAL_UNIV_EXECUTE)`): scheduler-universe jobs and what they started.
pub fn find_local_orphans(local_dir: &Path) -> Vec<i32> {
    find_marked(LOCAL_JOB_AD_VAR, local_dir)
}

/// The processes of this user (other than this one) whose variable `var` names a path
/// under `dir`.
fn find_marked(var: &str, dir: &Path) -> Vec<i32> {
    let forms = execute_dir_forms(dir);
    find_procs(|pid| {
        env_path_of(pid, var)
            .is_some_and(|marked| forms.iter().any(|f| marked.starts_with(f) && marked != *f))
    })
}

/// The processes of this user (other than this one) that `wanted` picks, in pid order.
fn find_procs(mut wanted: impl FnMut(i32) -> bool) -> Vec<i32> {
    let me = std::process::id() as i32;
    let uid = nix::unistd::geteuid().as_raw();
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        // The owner of /proc/<pid> is the process's effective user: skip others cheaply.
        match entry.metadata() {
            Ok(m) if m.uid() == uid => {}
            _ => continue,
        }
        if wanted(pid) {
            found.push(pid);
        }
    }
    found.sort_unstable();
    found
}

/// SIGKILLs the processes of one job whose waiter is gone: those whose `_CONDOR_SCRATCH_DIR`
/// is its directory `dir` or whose `_CONDOR_JOB_AD` lies in it; the number killed.
pub fn kill_job_processes(dir: &Path) -> usize {
    let forms = execute_dir_forms(dir);
    let pids = find_procs(|pid| {
        env_path_of(pid, SCRATCH_VAR).is_some_and(|marked| forms.contains(&marked))
            || env_path_of(pid, LOCAL_JOB_AD_VAR)
                .is_some_and(|marked| forms.iter().any(|f| marked.starts_with(f)))
    });
    kill_all(pids)
}

/// How many processes are in process group `pgid` (the job's: what a suspension stops, as
/// the suspend event's `Number of processes actually suspended` counts them).
pub fn group_size(pgid: i32) -> usize {
    let Ok(entries) = fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| getpgid(Some(Pid::from_raw(pid))).is_ok_and(|g| g.as_raw() == pgid))
        .count()
}

/// SIGKILLs the orphans under `execute_dir` and their process groups, then removes the
/// `dir_*` scratch directories there; the number of processes killed.
#[cfg(test)]
pub fn kill_orphans(execute_dir: &Path) -> usize {
    kill_orphans_except(execute_dir, &[])
}

/// `kill_orphans` (tests), except for the jobs whose scratch directories are `keep` (jobs whose
/// waiter runs, or recorded their exit: [`survivors`]).
pub fn kill_orphans_except(execute_dir: &Path, keep: &[PathBuf]) -> usize {
    let kept: Vec<PathBuf> = keep.iter().flat_map(|d| execute_dir_forms(d)).collect();
    let pids = find_procs(|pid| {
        env_path_of(pid, SCRATCH_VAR).is_some_and(|marked| {
            execute_dir_forms(execute_dir)
                .iter()
                .any(|f| marked.starts_with(f) && marked != *f)
                && !kept.iter().any(|k| marked.starts_with(k))
        })
    });
    let killed = kill_all(pids);
    remove_job_dirs_except(execute_dir, &kept);
    killed
}

/// What a job's waiter left in a scratch directory `dir_<cluster>_<proc>_<n>`.
#[derive(Clone, Debug, PartialEq)]
pub enum Left {
    /// The job ended and its waiter recorded the exit.
    Finished(super::RawExit),
    /// The waiter still runs: the job has not ended.
    Running(super::waiter::WaiterId),
    /// Neither: the waiter is gone without a record (or never ran).
    Gone,
}

/// A job's scratch directory found at the daemon's start.
#[derive(Clone, Debug, PartialEq)]
pub struct Survivor {
    pub cluster: i64,
    pub proc: i64,
    pub dir: PathBuf,
    pub left: Left,
}

/// The scratch directories in `execute_dir` and what each job's waiter left there.
pub fn survivors(execute_dir: &Path) -> Vec<Survivor> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(execute_dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(ids) = name.to_str().and_then(|n| n.strip_prefix("dir_")) else {
            continue;
        };
        let mut parts = ids.split('_').map(|p| p.parse::<i64>().ok());
        let (Some(Some(cluster)), Some(Some(proc))) = (parts.next(), parts.next()) else {
            continue;
        };
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let dir = entry.path();
        // A waiter that runs means a job that has not ended, whatever the record says (the
        // job can write to it).
        let record = super::waiter::Record::read(&dir).unwrap_or_default();
        let left = match (record.waiter, record.exit) {
            (Some(w), _) if w.is_running_waiter() => Left::Running(w),
            (_, Some(exit)) => Left::Finished(exit),
            _ => Left::Gone,
        };
        found.push(Survivor {
            cluster,
            proc,
            dir,
            left,
        });
    }
    found.sort_by(|a, b| a.dir.cmp(&b.dir));
    found
}

/// Ends a job whose waiter an earlier daemon started and that is not taken over: the job is
/// killed through its waiter, which is waited for (a few seconds at most), then whatever is
/// left of the job; the directory is left to the caller.
pub fn end_survivor(dir: &Path, waiter: &super::waiter::WaiterId) {
    if waiter.is_alive() {
        let _ = super::waiter::signal(waiter.pid, libc::SIGKILL);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while waiter.is_alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    kill_job_processes(dir);
}

/// SIGKILLs the scheduler-universe orphans under `local_dir` (`$(LOCAL_UNIV_EXECUTE)`) and
/// their process groups, then removes the `dir_*` job directories there; the number of
/// processes killed.
pub fn kill_local_orphans(local_dir: &Path) -> usize {
    let killed = kill_all(find_local_orphans(local_dir));
    remove_job_dirs(local_dir);
    killed
}

/// SIGKILLs processes and their process groups (never this process's own group); the number
/// killed. Returns once they are gone (or zombies, their files closed: a lock one held is
/// free), for a job started again at once must not meet its own leftover; a few seconds at
/// most.
fn kill_all(pids: Vec<i32>) -> usize {
    let killed = signal_all(&pids);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while pids.iter().any(|&p| is_live(p)) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    killed
}

/// Whether a process exists and is not a zombie.
fn is_live(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command's closing parenthesis.
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with(['Z', 'X']),
        Err(_) => false,
    }
}

fn signal_all(pids: &[i32]) -> usize {
    let own_group = nix::unistd::getpgrp();
    let mut killed = 0;
    for &pid in pids {
        let pid = Pid::from_raw(pid);
        if let Ok(group) = getpgid(Some(pid)) {
            if group != own_group && group.as_raw() > 1 {
                let _ = killpg(group, Signal::SIGKILL);
            }
        }
        match kill(pid, Signal::SIGKILL) {
            Ok(()) => killed += 1,
            Err(Errno::ESRCH) => {
                // Its group's kill got it first.
                killed += 1;
            }
            Err(e) => tracing::warn!("cannot kill orphaned job process {pid}: {e}"),
        }
    }
    killed
}

/// Removes the `dir_*` job directories in `dir`.
fn remove_job_dirs(dir: &Path) {
    remove_job_dirs_except(dir, &[])
}

/// Removes the `dir_*` job directories in `dir` but those in `keep`, and the directories an
/// earlier daemon parked for later runs.
fn remove_job_dirs_except(dir: &Path, keep: &[PathBuf]) {
    remove_records_except(dir, keep);
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            let is_scratch = entry.file_name().to_str().is_some_and(|n| {
                n.starts_with("dir_") || n.starts_with(super::scratch::FREE_PREFIX)
            });
            let kept = keep.iter().any(|k| *k == entry.path());
            if is_scratch && !kept && entry.file_type().is_ok_and(|t| t.is_dir()) {
                if let Err(e) = fs::remove_dir_all(entry.path()) {
                    tracing::warn!(
                        "cannot remove stale job directory {}: {e}",
                        entry.path().display()
                    );
                }
            }
        }
    }
}

/// Removes the records kept beside the job directories of `dir` ([`waiter::RECORDS_DIR`])
/// but those of the directories in `keep`.
fn remove_records_except(dir: &Path, keep: &[PathBuf]) {
    let records = dir.join(super::waiter::RECORDS_DIR);
    let Ok(entries) = fs::read_dir(&records) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if keep.iter().any(|k| k.file_name() == Some(&name)) {
            continue;
        }
        if let Err(e) = fs::remove_file(entry.path()) {
            tracing::warn!(
                "cannot remove stale job record {}: {e}",
                entry.path().display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process named as waiters are (a copy of `sleep` called `condor_starter`), killed
    /// when dropped.
    struct FakeWaiter(std::process::Child);

    impl Drop for FakeWaiter {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[test]
    fn a_running_waiter_wins_over_an_exit_its_job_wrote() {
        let tmp = tempfile::tempdir().unwrap();
        let sleep = tmp.path().join("condor_starter");
        fs::copy("/bin/sleep", &sleep).unwrap();
        // A copy just written may be held open for writing a moment by another test's fork.
        let spawned =
            (0..50).find_map(
                |_| match std::process::Command::new(&sleep).arg("60").spawn() {
                    Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                        None
                    }
                    other => Some(other.unwrap()),
                },
            );
        let waiter = FakeWaiter(spawned.expect("the copy of sleep stayed busy"));
        let other = FakeWaiter(
            std::process::Command::new("/bin/sleep")
                .arg("60")
                .spawn()
                .unwrap(),
        );
        let execute = tmp.path().join("execute");
        let line = |pid: u32| {
            let w = super::super::waiter::WaiterId::of(pid as i32, pid as i32);
            let start = w.map(|w| w.start_time).unwrap_or(0);
            format!("W {pid} {start} {pid}\nX 0 1 1 1\n")
        };
        // The comm of a process just spawned is its program's name once it has exec'd.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while fs::read_to_string(format!("/proc/{}/comm", waiter.0.id()))
            .map_or(true, |c| c.trim_end() != "condor_starter")
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the fake waiter never ran"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        for (dir, pid) in [("dir_1_0_0", waiter.0.id()), ("dir_2_0_0", other.0.id())] {
            fs::create_dir_all(execute.join(dir)).unwrap();
            fs::write(
                execute.join(dir).join(super::super::waiter::RECORD),
                line(pid),
            )
            .unwrap();
        }
        let found = survivors(&execute);
        assert!(matches!(found[0].left, Left::Running(w) if w.pid == waiter.0.id() as i32));
        // A record naming a process that is not a waiter: the exit it says counts.
        assert!(matches!(found[1].left, Left::Finished(_)), "{found:?}");
    }
}
