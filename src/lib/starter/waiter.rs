//! The job's waiter: a small process between the daemon and the job (HTCondor's
//! `condor_starter` in spirit) that outlives the daemon, so that a job's end is never lost and
//! nothing the job started outlives it.
//!
//! The waiter is a fork, with no exec: it starts in microseconds and needs no binary of its
//! own. The daemon's [`launcher`](super::launcher) forks it (as the daemon's child), or the
//! daemon itself where it has none. The waiter
//!
//! 1. starts a session of its own, so that nothing aimed at the daemon's process group or
//!    terminal reaches it, and becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`): whatever
//!    the job starts, daemonized (`setsid`, double fork) or not, stays its descendant;
//! 2. starts the job in a process group of its own, and tells the daemon the job's pid
//!    through a close-on-exec pipe, on which the job's process reports a failed `execve` (its
//!    errno) too: a caller that waits for the pipe to close ([`Until::Exec`]) learns of it at
//!    once, as from a spawn; the master does not wait ([`Until::Forked`]) and learns of it
//!    from the record, with the job's exit;
//! 3. forwards every signal it gets to the job's process group: the daemon's signals come as
//!    [`CARRIER`] queued with the signal to forward (`sigqueue`), so that `SIGKILL`,
//!    `SIGSTOP` and `SIGCONT` reach the job while the waiter stays; the processes of the job
//!    that left its group (reparented to the waiter) get them too;
//! 4. when the job's main process exits, kills every process that is left of the job (its
//!    group while the exited process still holds the group's id, then every descendant), reaps
//!    them all, and appends the job's exit (wait status and the family's resource usage) to
//!    the job's [`RECORD`]. Only then does it exit (status 0).
//!
//! The record is one small file in the job's directory that four writers append whole lines
//! to, each in one `write` with `O_APPEND` (a line is there whole or, cut short by a full
//! disk, without its newline and ignored):
//!
//! - `W <waiter pid> <waiter start time> <job pid>`: the waiter, once it has forked the job's
//!   process and before the daemon hears of it ([`WaiterId`]): whatever the daemon's fate
//!   after it logs the job's start, the job can be found;
//! - `E`: the daemon, once the job's execute event (001) is in its log (a later daemon that
//!   adopts the job or records its exit logs the event when the mark is missing);
//! - `F <errno>`: the job's process, when it could not become the job (its `execve`, or
//!   what comes before it, failed): the daemon, which does not wait for the `execve`, learns
//!   of it with the exit and holds the job as HTCondor's starter does;
//! - `X <status> <user µs> <system µs> <max rss KiB>`: the waiter, when the job has ended;
//! - `R`: the daemon, when it readies the directory for another job's run ([`reset`]):
//!   nothing before it counts;
//! - `S`: `condor_ssh_to_job`, when it opens a session in the directory ([`mark_session`]).
//!
//! So an exit is recorded exactly when the job's process has ended and nothing of it runs; a
//! daemon that died meanwhile finds it at its next start ([`read_record`]). One file rather
//! than one per fact: each file a job's directory holds is an inode made and freed per job,
//! which is most of what starting a short job costs the file system.
//!
//! The waiter may be the fork of a multi-threaded process: from `fork` to its `_exit` it makes
//! only async-signal-safe system calls on memory prepared before the fork ([`Spec`]) or on its
//! own stack, and never allocates.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The file in the job's directory that holds the waiter's, the job's and the daemon's
/// records (see the module's documentation).
pub const RECORD: &str = ".job.waiter";

/// Whether `name`, in a job's directory, is the bookkeeping [`RECORD`] (never output of the
/// job's).
pub fn is_bookkeeping(name: &str) -> bool {
    name == RECORD
}

/// Where the records of the jobs that run as another user than the daemon's are kept: a
/// directory beside their scratch directories (in `$(EXECUTE)`), only the daemon's, one
/// record per directory, named as the directory.
pub const RECORDS_DIR: &str = ".records";

/// The record of the job directory `dir`: in it ([`RECORD`]) when it is the daemon's user's
/// (a personal pool, a job that runs as the daemon's user), else, when a daemon running as
/// root gave the directory to the job's owner, in [`RECORDS_DIR`] beside it, out of the job's
/// reach (a job can write its own directory, so it could forge or remove a record there).
/// A daemon that is not root never looks further than `dir`.
pub fn record_path(dir: &Path) -> std::path::PathBuf {
    if super::identity::daemon_is_root() {
        if let Some(outside) = outside_record(dir) {
            return outside;
        }
    }
    dir.join(RECORD)
}

/// The record beside `dir` ([`RECORDS_DIR`]) when `dir` belongs to another user than this
/// process's.
fn outside_record(dir: &Path) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(dir).ok()?;
    if meta.uid() == nix::unistd::geteuid().as_raw() {
        return None;
    }
    outside_record_of(dir)
}

/// `<parent>/.records/<name>` of the directory `dir`, wherever it belongs.
pub(super) fn outside_record_of(dir: &Path) -> Option<std::path::PathBuf> {
    Some(dir.parent()?.join(RECORDS_DIR).join(dir.file_name()?))
}

/// A waiter's process name (`ps`, `pgrep`), as HTCondor's process between the daemons and a
/// job.
const WAITER_NAME: &str = "condor_starter";
const WAITER_NAME_C: &std::ffi::CStr = c"condor_starter";

/// The signal the daemon sends a waiter, queued with the signal to forward to the job.
pub fn carrier() -> i32 {
    libc::SIGRTMAX() - 1
}

/// The strings of a [`Spec`] before its arguments and environment: program, cwd, record.
const FIXED_STRINGS: usize = 3;

/// What a waiter runs, every string made before the fork.
pub(super) struct Spec {
    program: CString,
    /// The arguments and environment, and the null-terminated pointer arrays into them.
    _argv: Vec<CString>,
    argv_ptrs: Vec<*const libc::c_char>,
    _envp: Vec<CString>,
    envp_ptrs: Vec<*const libc::c_char>,
    cwd: CString,
    /// The job's [`RECORD`].
    record: CString,
    /// The hard core-size limit to set for the job, if any.
    pub(super) core_limit: Option<libc::rlim_t>,
    /// A nice increment for the job.
    pub(super) nice: i32,
    /// How long [`spawn`] waits.
    pub(super) until: Until,
    /// The account the job runs as, when not the waiter's own (a daemon running as root
    /// runs jobs as their owners): the job's process drops to it before its `execve`.
    pub(super) run_as: Option<RunAs>,
}

/// The ids a job's process drops to ([`super::identity::Account::raw_ids`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RunAs {
    pub(super) uid: libc::uid_t,
    pub(super) gid: libc::gid_t,
    pub(super) groups: Vec<libc::gid_t>,
}

impl RunAs {
    pub(super) fn of(account: &super::identity::Account) -> RunAs {
        let (uid, gid, groups) = account.raw_ids();
        RunAs { uid, gid, groups }
    }

    /// Drops this process to the ids for good: groups, then gid, then uid. Only system
    /// calls: safe between `fork` and `exec`.
    unsafe fn assume(&self) -> bool {
        libc::setgroups(self.groups.len(), self.groups.as_ptr()) == 0
            && libc::setresgid(self.gid, self.gid, self.gid) == 0
            && libc::setresuid(self.uid, self.uid, self.uid) == 0
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.uid.to_le_bytes());
        out.extend_from_slice(&self.gid.to_le_bytes());
        out.extend_from_slice(&(self.groups.len() as u32).to_le_bytes());
        for g in &self.groups {
            out.extend_from_slice(&g.to_le_bytes());
        }
    }
}

fn cstring(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

fn cpath(p: &Path) -> io::Result<CString> {
    cstring(p.as_os_str().as_bytes())
}

fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

impl Spec {
    /// The job `program` with `argv` (its first element is `argv[0]`) and `env`, run in `cwd`;
    /// its exit recorded in `dir`. A string with a NUL byte is `EINVAL`.
    pub(super) fn new<'a>(
        program: &Path,
        argv: impl IntoIterator<Item = &'a OsStr>,
        env: impl IntoIterator<Item = (&'a OsStr, &'a OsStr)>,
        cwd: &Path,
        dir: &Path,
    ) -> io::Result<Spec> {
        let argv: Vec<CString> = argv
            .into_iter()
            .map(|a| cstring(a.as_bytes()))
            .collect::<io::Result<_>>()?;
        let envp: Vec<CString> = env
            .into_iter()
            .map(|(k, v)| {
                let mut kv = k.as_bytes().to_vec();
                kv.push(b'=');
                kv.extend_from_slice(v.as_bytes());
                cstring(&kv)
            })
            .collect::<io::Result<_>>()?;
        Ok(Spec {
            program: cpath(program)?,
            argv_ptrs: pointers(&argv),
            _argv: argv,
            envp_ptrs: pointers(&envp),
            _envp: envp,
            cwd: cpath(cwd)?,
            record: cpath(&record_path(dir))?,
            core_limit: None,
            nice: 0,
            until: Until::Exec,
            run_as: None,
        })
    }

    /// The spec as bytes, for the [`launcher`](super::launcher) (read back by [`Spec::decode`]).
    pub(super) fn encode(&self) -> Vec<u8> {
        let strings = [&self.program, &self.cwd, &self.record];
        let all = strings.into_iter().chain(&self._argv).chain(&self._envp);
        let mut out =
            Vec::with_capacity(64 + all.clone().map(|s| s.as_bytes().len() + 4).sum::<usize>());
        out.push(
            u8::from(self.core_limit.is_some()) | (u8::from(self.until == Until::Forked) << 1),
        );
        #[allow(clippy::unnecessary_cast)] // `rlim_t` is u32 on some targets
        out.extend_from_slice(&(self.core_limit.unwrap_or(0) as u64).to_le_bytes());
        out.extend_from_slice(&self.nice.to_le_bytes());
        out.push(u8::from(self.run_as.is_some()));
        if let Some(ids) = &self.run_as {
            ids.encode(&mut out);
        }
        out.extend_from_slice(&(self._argv.len() as u32).to_le_bytes());
        out.extend_from_slice(&(self._envp.len() as u32).to_le_bytes());
        for s in all {
            out.extend_from_slice(&(s.as_bytes().len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        out
    }

    /// The spec [`Spec::encode`] made; `EINVAL` for anything else.
    pub(super) fn decode(bytes: &[u8]) -> io::Result<Spec> {
        let invalid = || io::Error::from_raw_os_error(libc::EINVAL);
        let mut rest = bytes;
        let mut take = |n: usize| -> io::Result<&[u8]> {
            if rest.len() < n {
                return Err(invalid());
            }
            let (head, tail) = rest.split_at(n);
            rest = tail;
            Ok(head)
        };
        let flags = take(1)?[0];
        if flags > 3 {
            return Err(invalid());
        }
        let has_core = flags & 1 != 0;
        let until = if flags & 2 != 0 {
            Until::Forked
        } else {
            Until::Exec
        };
        let core = u64::from_le_bytes(take(8)?.try_into().map_err(|_| invalid())?);
        let nice = i32::from_le_bytes(take(4)?.try_into().map_err(|_| invalid())?);
        let word = |b: &[u8]| -> io::Result<u32> {
            Ok(u32::from_le_bytes(b.try_into().map_err(|_| invalid())?))
        };
        let run_as = if take(1)?[0] != 0 {
            let (uid, gid) = (word(take(4)?)?, word(take(4)?)?);
            let n = word(take(4)?)? as usize;
            let mut groups = Vec::with_capacity(n.min(bytes.len() / 4));
            for _ in 0..n {
                groups.push(word(take(4)?)?);
            }
            Some(RunAs { uid, gid, groups })
        } else {
            None
        };
        let n_argv = u32::from_le_bytes(take(4)?.try_into().map_err(|_| invalid())?) as usize;
        let n_envp = u32::from_le_bytes(take(4)?.try_into().map_err(|_| invalid())?) as usize;
        let count = n_argv
            .checked_add(n_envp)
            .and_then(|n| n.checked_add(FIXED_STRINGS))
            .filter(|&n| n <= bytes.len() / 4)
            .ok_or_else(invalid)?;
        let mut strings = Vec::with_capacity(count);
        for _ in 0..count {
            let len = u32::from_le_bytes(take(4)?.try_into().map_err(|_| invalid())?) as usize;
            strings.push(cstring(take(len)?)?);
        }
        if !rest.is_empty() {
            return Err(invalid());
        }
        let envp = strings.split_off(FIXED_STRINGS + n_argv);
        let argv = strings.split_off(FIXED_STRINGS);
        let mut fixed = strings.into_iter();
        let mut next = || fixed.next().ok_or_else(invalid);
        Ok(Spec {
            program: next()?,
            cwd: next()?,
            record: next()?,
            argv_ptrs: pointers(&argv),
            _argv: argv,
            envp_ptrs: pointers(&envp),
            _envp: envp,
            core_limit: has_core.then_some(core as libc::rlim_t),
            nice,
            until,
            run_as,
        })
    }
}

/// A job started under its waiter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Spawned {
    /// The waiter's pid: the daemon's child.
    pub(super) waiter: i32,
    /// The job's main process (and process group), the waiter's child.
    pub(super) job: i32,
}

/// How long [`spawn`] waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Until {
    /// Until the job's `execve` (or its failure): a failure is [`spawn`]'s error.
    Exec,
    /// Until the job's process is forked: a failed `execve` is then learnt from the
    /// [`RECORD`] with the job's exit ([`super::RawExit::exec_error`]), and the daemon goes
    /// on meanwhile (HTCondor's starter too reports a failed exec after the job's start).
    Forked,
}

/// Starts a waiter that runs the job of `spec` with `stdio` as its standard input, output
/// and error: the [`launcher`](super::launcher) forks it where there is one (the waiter is
/// this process's child all the same), else this process does. An error is the fork's, or
/// (with [`Spec::until`] [`Until::Exec`]) the job's `execve`'s (the waiter has then been
/// reaped).
pub(super) fn spawn(spec: &Spec, stdio: [OwnedFd; 3]) -> io::Result<Spawned> {
    let fds = [
        stdio[0].as_raw_fd(),
        stdio[1].as_raw_fd(),
        stdio[2].as_raw_fd(),
    ];
    // A launcher that went away before it forked (nothing came back on the pipe: a waiter
    // writes its pid first thing) is started again, once; then this process forks.
    for attempt in 0..3 {
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
        let launcher = if attempt < 2 {
            super::launcher::hand_over(spec, fds, write.as_raw_fd())
        } else {
            None
        };
        let forked = match launcher {
            Some(_) => None,
            None => Some(fork_here(spec, fds, write.as_raw_fd())?),
        };
        drop(write);
        let words = read_words(&read, spec.until);
        if let (Some(launcher), true) = (launcher, words.is_empty()) {
            super::launcher::forget(launcher);
            continue;
        }
        return outcome(forked, &words);
    }
    unreachable!("the last attempt forks here")
}

/// Forks the waiter in this process (with every signal blocked across the fork, so that no
/// handler of this process's runs in the child before it sets its own).
fn fork_here(spec: &Spec, fds: [RawFd; 3], err: RawFd) -> io::Result<i32> {
    let mut all: libc::sigset_t = unsafe { std::mem::zeroed() };
    let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: signal-mask calls on valid sets; the child runs `waiter_main`, which makes only
    // async-signal-safe calls on memory made before the fork (borrowed from `spec`, alive in
    // the child's copy) and never returns.
    let pid = unsafe {
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let pid = libc::fork();
        if pid == 0 {
            waiter_main(spec, fds, err)
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        pid
    };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid)
}

/// What came back on a waiter's pipe until it closed (when the job has exec'd or failed to)
/// or, with [`Until::Forked`], until the job's pid or an error came: the waiter's pid, then
/// the job's; a negated errno where something failed.
fn read_words(read: &OwnedFd, until: Until) -> Vec<i32> {
    let mut buf = [0u8; 12];
    let mut got = 0;
    let word =
        |buf: &[u8], i: usize| i32::from_ne_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]);
    while got < buf.len() {
        if until == Until::Forked && (got >= 8 || (got >= 4 && word(&buf, 0) < 0)) {
            break;
        }
        // SAFETY: reads into `buf` past what is already there.
        let n = unsafe {
            libc::read(
                read.as_raw_fd(),
                buf[got..].as_mut_ptr().cast(),
                buf.len() - got,
            )
        };
        if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        if n <= 0 {
            break;
        }
        got += n as usize;
    }
    buf[..got - got % 4]
        .chunks(4)
        .map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The start's outcome from the pipe's `words`; `forked`: the waiter's pid when this
/// process forked it.
fn outcome(forked: Option<i32>, words: &[i32]) -> io::Result<Spawned> {
    let failure =
        |errno: Option<i32>| io::Error::from_raw_os_error(errno.map_or(libc::EIO, |e| -e));
    let waiter = match words.first() {
        Some(&pid) if pid > 0 => pid,
        // The launcher could not fork: there is no waiter.
        Some(&e) if forked.is_none() => return Err(failure(Some(e))),
        _ => match forked {
            Some(pid) => pid,
            None => return Err(failure(None)),
        },
    };
    match words.get(1).copied() {
        // The job's process recorded its waiter (what a later daemon adopts the job by)
        // before it exec'd: the pipe closed at the exec with no error on it.
        Some(job) if job > 0 && !words[2..].iter().any(|&w| w < 0) => Ok(Spawned { waiter, job }),
        other => {
            // The job did not start: the waiter ends at once.
            let mut status = 0;
            // SAFETY: waits for our own child (the launcher forks with CLONE_PARENT).
            unsafe { libc::waitpid(waiter, &mut status, 0) };
            let errno = words
                .get(1..)
                .unwrap_or(&[])
                .iter()
                .copied()
                .find(|&w| w < 0);
            let errno = errno.or(other.filter(|&w| w < 0));
            Err(failure(errno))
        }
    }
}

/// Sends `sig` to the job of the waiter `pid` (through the waiter). A waiter that is gone is
/// not an error.
pub(super) fn signal(pid: i32, sig: i32) -> io::Result<()> {
    if pid <= 1 {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let value = libc::sigval {
        sival_ptr: sig as usize as *mut libc::c_void,
    };
    // SAFETY: plain system call.
    if unsafe { libc::sigqueue(pid, carrier(), value) } < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::ESRCH) {
            return Err(e);
        }
    }
    Ok(())
}

/// What the [`RECORD`] in a job's directory says.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Record {
    /// The job's waiter, as it recorded itself and the job's process (the last run's, when
    /// a job is restarted in its directory).
    pub waiter: Option<WaiterId>,
    /// The job's exit, as its waiter recorded it after the last [`Record::waiter`], with
    /// the job process's `F` line in it (as [`super::RawExit::exec_error`]).
    pub exit: Option<super::RawExit>,
    /// The errno of the job's process that could not exec (its `F` line).
    pub exec_error: Option<i32>,
    /// Whether the daemon has logged the job's execute event.
    pub executed: bool,
    /// Whether a `condor_ssh_to_job` session was opened in the directory (it may outlive
    /// the job: the directory is not used again).
    pub session: bool,
}

/// The longest record read: a few lines per run (a job restarted after checkpoints starts
/// its record again, see [`restart`]).
const MAX_RECORD: u64 = 4096;

impl Record {
    /// The record in `dir`; `None` when there is none, or it is not one (a line that is not
    /// one of the record's, or a file no record would be: a link, a FIFO, a huge file). A
    /// last line without its newline is still being written, or was cut short: not read.
    pub fn read(dir: &Path) -> Option<Record> {
        Record::parse(&read_small(&record_path(dir))?)
    }

    fn parse(text: &str) -> Option<Record> {
        let mut record = Record::default();
        let Some(end) = text.rfind('\n') else {
            return Some(record);
        };
        for line in text[..end].split('\n') {
            let mut fields = line.split(' ');
            let tag = fields.next()?;
            let mut numbers = fields.map(|f| f.parse::<i64>().ok());
            let mut next = || numbers.next().flatten();
            match tag {
                "W" => {
                    record.waiter = Some(WaiterId {
                        pid: i32::try_from(next()?).ok()?,
                        start_time: u64::try_from(next()?).ok()?,
                        job_pid: i32::try_from(next()?).ok()?,
                    });
                    // (Not the `F` line: the job's process may write it first.)
                    record.exit = None;
                }
                "F" => record.exec_error = Some(i32::try_from(next()?).ok()?),
                "X" => {
                    record.exit = Some(super::RawExit {
                        status: i32::try_from(next()?).ok()?,
                        user_cpu: next()? as f64 / 1e6,
                        sys_cpu: next()? as f64 / 1e6,
                        max_rss_kib: next()?,
                        exec_error: record.exec_error,
                    });
                }
                "E" => record.executed = true,
                "R" => record = Record::default(),
                "S" => record.session = true,
                _ => return None,
            }
            if numbers.next().is_some() {
                return None;
            }
        }
        Some(record)
    }
}

/// The job's exit as its waiter recorded it in `dir`: the raw wait status, user and system
/// CPU seconds, and peak RSS (KiB); `None` when there is no (complete) record.
pub fn read_record(dir: &Path) -> Option<super::RawExit> {
    Record::read(dir)?.exit
}

/// Whether the daemon has marked the job's execute event logged in its directory `dir`.
pub fn executed(dir: &Path) -> bool {
    Record::read(dir).is_some_and(|r| r.executed)
}

/// Marks the job's execute event (001) logged in its directory `dir` (what tells a later
/// daemon not to log it again).
pub fn mark_executed(dir: &Path) -> io::Result<()> {
    append(&record_path(dir), b"E\n")
}

/// Marks a `condor_ssh_to_job` session opened in the job's directory `dir`.
pub fn mark_session(dir: &Path) -> io::Result<()> {
    append(&record_path(dir), b"S\n")
}

/// Starts the record in `dir` again for a new run of the job in the same directory (after a
/// checkpoint exit): the last run's exit is not the new run's. Only the execute event's mark
/// is kept.
pub fn restart(dir: &Path) -> io::Result<()> {
    let path = record_path(dir);
    let executed = executed(dir);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    if executed {
        append(&path, b"E\n")?;
    }
    Ok(())
}

/// Resets the record in `dir` for another job's run in the directory (see
/// `scratch::recycle`): its first line becomes `R`, and the file is cut after it. (Not
/// truncated to nothing and appended to again: ext4 flushes such a file to the disk when it
/// is closed after the next write.) An error when there is no record.
pub fn reset(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(record_path(dir))?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    file.set_len(2)?;
    file.write_all_at(b"R\n", 0)
}

/// Appends `line` to the record at `path` in one write (never through a link, never into a
/// FIFO a job could plant: opening one would block).
fn append(path: &Path, line: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    file.write_all(line)
}

/// A record: a regular file (not followed through a link, never a FIFO that would block) of
/// a few lines, in a directory the job can write to.
fn read_small(path: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    String::from_utf8(crate::bounded::read_to_end(file, MAX_RECORD).ok()?).ok()
}

/// A waiter as its job records it in the job's directory: its pid and its start time (in
/// clock ticks since boot, `/proc/<pid>/stat`'s 22nd field), which tells it from a process
/// that reuses the pid, and the job's pid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaiterId {
    pub pid: i32,
    pub start_time: u64,
    pub job_pid: i32,
}

impl WaiterId {
    /// The waiter `pid` of the job `job_pid` as it runs now; `None` when it is gone.
    #[cfg(test)]
    pub fn of(pid: i32, job_pid: i32) -> Option<WaiterId> {
        Some(WaiterId {
            pid,
            start_time: start_time(pid)?,
            job_pid,
        })
    }

    /// Whether this waiter still runs (the pid is not somebody else's now).
    pub fn is_alive(&self) -> bool {
        start_time(self.pid) == Some(self.start_time) && !is_zombie(self.pid)
    }

    /// [`WaiterId::is_alive`], and the process is a waiter (named as waiters are, in
    /// `/proc/<pid>/comm`): a record a job forged does not name just any process.
    pub fn is_running_waiter(&self) -> bool {
        self.is_alive()
            && std::fs::read_to_string(format!("/proc/{}/comm", self.pid))
                .is_ok_and(|comm| comm.trim_end() == WAITER_NAME)
    }

    /// Appends this waiter to the record in the job's directory `dir`, as its job does.
    #[cfg(test)]
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        let line = format!("W {} {} {}\n", self.pid, self.start_time, self.job_pid);
        append(&record_path(dir), line.as_bytes())
    }

    /// The waiter of the record in `dir`, if there is a readable one.
    pub fn read(dir: &Path) -> Option<WaiterId> {
        Record::read(dir)?.waiter
    }
}

/// The fields of `/proc/<pid>/stat` after the command's closing parenthesis.
fn stat_fields(pid: i32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(stat.rsplit_once(')')?.1.trim_start().to_owned())
}

fn start_time(pid: i32) -> Option<u64> {
    // The 22nd field; the 3rd (state) is the first after the parenthesis.
    stat_fields(pid)?.split(' ').nth(19)?.parse().ok()
}

fn is_zombie(pid: i32) -> bool {
    stat_fields(pid).is_none_or(|f| f.starts_with(['Z', 'X']))
}

// ---- The waiter itself: async-signal-safe from here on. ----

/// The fd the exec error pipe is moved to in the waiter.
const ERR_FD: RawFd = 3;

unsafe fn die(code: i32) -> ! {
    libc::_exit(code)
}

/// Writes a failure's `errno` to the error pipe (negated, as a job's pid is positive).
unsafe fn report_errno(fd: RawFd, errno: i32) {
    report(fd, -errno.max(1));
}

unsafe fn report(fd: RawFd, word: i32) {
    let bytes = word.to_ne_bytes();
    libc::write(fd, bytes.as_ptr().cast(), bytes.len());
}

fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

pub(super) unsafe fn waiter_main(spec: &Spec, stdio: [RawFd; 3], err: RawFd) -> ! {
    // The daemon learns who its waiter is first (the launcher's fork gives it no pid).
    report(err, libc::getpid());
    // Named as HTCondor's process between the daemons and a job (in `ps`, `pgrep`).
    libc::prctl(libc::PR_SET_NAME, WAITER_NAME_C.as_ptr());
    // The standard files to 0, 1, 2 and the error pipe to 3, whatever their numbers were:
    // first out of the way (10 and up), then into place; then everything else closed (the
    // daemon's descriptors, close-on-exec or not, for the waiter never execs).
    let mut high = [0; 4];
    for (i, fd) in [stdio[0], stdio[1], stdio[2], err].into_iter().enumerate() {
        high[i] = libc::fcntl(fd, libc::F_DUPFD, 10);
        if high[i] < 0 {
            report_errno(err, errno());
            die(127);
        }
    }
    for (target, &fd) in high.iter().enumerate() {
        if libc::dup2(fd, target as RawFd) < 0 {
            report_errno(err, errno());
            die(127);
        }
    }
    libc::fcntl(ERR_FD, libc::F_SETFD, libc::FD_CLOEXEC);
    if libc::syscall(libc::SYS_close_range, ERR_FD as u32 + 1, u32::MAX, 0) < 0 {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
            lim.rlim_cur.min(1 << 16) as RawFd
        } else {
            1024
        };
        for fd in ERR_FD + 1..max {
            libc::close(fd);
        }
    }

    libc::setsid();
    libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    // Every signal blocked and read from a signalfd; SIGCHLD at its default (not ignored, or
    // the children would reap themselves).
    libc::signal(libc::SIGCHLD, libc::SIG_DFL);
    let mut all: libc::sigset_t = std::mem::zeroed();
    libc::sigfillset(&mut all);
    libc::sigprocmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
    let sfd = libc::signalfd(-1, &all, libc::SFD_CLOEXEC);
    if sfd < 0 {
        report_errno(ERR_FD, errno());
        die(127);
    }

    // The waiter records itself and the job's process before the daemon hears of the job:
    // whenever the daemon dies after it logged the start, the job can be found and adopted.
    let Some(start_time) = own_start_time() else {
        report_errno(ERR_FD, libc::EIO);
        die(127);
    };
    let me = libc::getpid();
    let job = libc::fork();
    if job < 0 {
        report_errno(ERR_FD, errno());
        die(127);
    }
    if job == 0 {
        libc::setpgid(0, 0);
        if spec.until == Until::Forked {
            // Nobody reads the pipe after the job's pid: a failure is recorded only, so
            // that it is learnt one way, whenever it comes.
            libc::close(ERR_FD);
        }
        exec_job(spec);
    }
    // Set on both sides, so that the group exists before either goes on.
    libc::setpgid(job, job);
    if !write_waiter_line(spec, me, start_time, job) {
        // Without the record the job could not be found after the daemon's death: it does
        // not run, and the daemon hears why.
        let e = errno();
        libc::kill(-job, libc::SIGKILL);
        libc::kill(job, libc::SIGKILL);
        let mut status = 0;
        libc::waitpid(job, &mut status, 0);
        report_errno(ERR_FD, e);
        die(127);
    }
    // The daemon learns the job's pid once its record can find it: whatever happens to the
    // daemon after it logs the job's start, a later one finds the job (and may adopt it). It
    // does not wait for the job's exec.
    report(ERR_FD, job);
    libc::close(ERR_FD);
    // The job has its standard files; the waiter keeps none of them open.
    let null = c"/dev/null".as_ptr();
    for fd in 0..3 {
        libc::close(fd);
        libc::open(null, libc::O_RDWR);
    }

    let status = watch(sfd, job);
    kill_family();
    write_record(spec, status);
    die(0)
}

/// The job's side of the fork: its own process group, signals at their defaults and
/// unblocked, its directory, limits and niceness, then `execve`. A failure is reported on
/// the error pipe.
unsafe fn exec_job(spec: &Spec) -> ! {
    for sig in 1..libc::SIGRTMAX() {
        if sig != libc::SIGKILL && sig != libc::SIGSTOP {
            libc::signal(sig, libc::SIG_DFL);
        }
    }
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    if let Some(limit) = spec.core_limit {
        let mut rl = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_CORE, &mut rl) == 0 {
            rl.rlim_max = limit;
            rl.rlim_cur = rl.rlim_cur.min(limit);
            libc::setrlimit(libc::RLIMIT_CORE, &rl);
        }
    }
    if spec.nice != 0 {
        let current = libc::getpriority(libc::PRIO_PROCESS, 0);
        libc::setpriority(libc::PRIO_PROCESS, 0, current + spec.nice);
    }
    // The record, opened while the process still has the daemon's rights (a job running as
    // its owner cannot open it, out of its reach): where a failure to become the job is told.
    // Closed at the exec.
    let record = open_record(&spec.record).unwrap_or(-1);
    // The job's owner, before its directory: from here on the job has the user's rights.
    if let Some(ids) = &spec.run_as {
        if !ids.assume() {
            not_started(spec, record, errno());
        }
    }
    if libc::chdir(spec.cwd.as_ptr()) < 0 {
        not_started(spec, record, errno());
    }
    // A script just written may briefly be held open for writing by a process that forked
    // meanwhile: a few tries, a few milliseconds apart.
    let mut pause = 1_000_000;
    for _ in 0..6 {
        libc::execve(
            spec.program.as_ptr(),
            spec.argv_ptrs.as_ptr(),
            spec.envp_ptrs.as_ptr(),
        );
        if errno() != libc::ETXTBSY {
            break;
        }
        let ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: pause,
        };
        libc::nanosleep(&ts, std::ptr::null_mut());
        pause *= 2;
    }
    not_started(spec, record, errno())
}

/// The end of a job's process that could not become the job: `errno` recorded (`F`) for the
/// daemon that did not wait for the `execve`, and reported on the error pipe to one that
/// does (whose end may be closed: no `SIGPIPE` then).
unsafe fn not_started(spec: &Spec, record: RawFd, errno: i32) -> ! {
    let mut buf = [0u8; 32];
    let mut w = Writer::new(&mut buf);
    w.push(b"F ");
    w.int(i64::from(errno));
    w.push(b"\n");
    let len = w.len;
    if record < 0 || libc::write(record, buf.as_ptr().cast(), len) != len as isize {
        append_line(&spec.record, &buf[..len]);
    }
    if spec.until == Until::Exec {
        // (Closed otherwise: its number may be the record's now.)
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        report_errno(ERR_FD, errno);
    }
    die(127)
}

/// Forwards signals to the job until its main process exits; its raw wait status. The rest
/// of its process group is killed while the exited process still holds the group's id.
unsafe fn watch(sfd: RawFd, job: i32) -> i32 {
    loop {
        let mut info: libc::signalfd_siginfo = std::mem::zeroed();
        let n = libc::read(
            sfd,
            (&mut info as *mut libc::signalfd_siginfo).cast(),
            std::mem::size_of::<libc::signalfd_siginfo>(),
        );
        if n < 0 {
            if errno() == libc::EINTR {
                continue;
            }
            // Cannot read signals: wait for the job plainly.
            return wait_job_blocking(job);
        }
        let signo = info.ssi_signo as i32;
        if signo == libc::SIGCHLD {
            if let Some(status) = reap_children(job) {
                return status;
            }
            continue;
        }
        // Only what a process sent is forwarded: a signal the kernel raised against the
        // waiter itself (a SIGPIPE from its write to the pipe of a daemon that died) is not
        // the job's.
        if info.ssi_code > 0 {
            continue;
        }
        let sig = if signo == carrier() && info.ssi_code == libc::SI_QUEUE {
            info.ssi_int
        } else {
            signo
        };
        if sig > 0 && sig < libc::SIGRTMAX() {
            libc::killpg(job, sig);
            signal_children(job, sig);
        }
    }
}

/// Reaps the children that exited; the job's status once its main process has.
unsafe fn reap_children(job: i32) -> Option<i32> {
    loop {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_ALL,
            0,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        if r < 0 {
            return None;
        }
        let pid = info.si_pid();
        if pid == 0 {
            return None;
        }
        if pid == job {
            libc::killpg(job, libc::SIGKILL);
            let mut status = 0;
            libc::waitpid(job, &mut status, 0);
            return Some(status);
        }
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
    }
}

unsafe fn wait_job_blocking(job: i32) -> i32 {
    let mut info: libc::siginfo_t = std::mem::zeroed();
    while libc::waitid(
        libc::P_PID,
        job as libc::id_t,
        &mut info,
        libc::WEXITED | libc::WNOWAIT,
    ) < 0
        && errno() == libc::EINTR
    {}
    libc::killpg(job, libc::SIGKILL);
    let mut status = 0;
    while libc::waitpid(job, &mut status, 0) < 0 && errno() == libc::EINTR {}
    status
}

/// Sends `sig` to the waiter's children other than the job (processes of the job's that left
/// its group and were reparented here) and to their groups.
unsafe fn signal_children(job: i32, sig: i32) -> usize {
    let me = libc::getpid();
    let mut n = 0;
    for_each_process(|pid, ppid| {
        if ppid == me && pid != job {
            libc::killpg(pid, sig);
            libc::kill(pid, sig);
            n += 1;
        }
    });
    n
}

/// Kills every descendant that is left: the children are killed, their children are
/// reparented here and killed in the next round, until none is left. All reaped.
unsafe fn kill_family() {
    // Each round kills at least one process or ends; the bound only guards against a kernel
    // that keeps reporting children it never lets go.
    for _ in 0..100_000 {
        // No child left (the common case): nothing to look for in /proc.
        let mut status = 0;
        loop {
            let r = libc::waitpid(-1, &mut status, libc::WNOHANG);
            if r > 0 {
                continue;
            }
            if r < 0 && errno() == libc::ECHILD {
                return;
            }
            break;
        }
        let killed = signal_children(0, libc::SIGKILL);
        if killed > 0 {
            // One of them dies soon; its children, if any, are found next round.
            libc::waitpid(-1, &mut status, 0);
        } else {
            let ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 1_000_000,
            };
            libc::nanosleep(&ts, std::ptr::null_mut());
        }
    }
}

/// Calls `f(pid, ppid)` for every process in /proc.
unsafe fn for_each_process(mut f: impl FnMut(i32, i32)) {
    let proc_dir = libc::open(
        c"/proc".as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if proc_dir < 0 {
        return;
    }
    let mut buf = [0u8; 8192];
    loop {
        let n = libc::syscall(libc::SYS_getdents64, proc_dir, buf.as_mut_ptr(), buf.len());
        if n <= 0 {
            break;
        }
        let mut off = 0usize;
        while off < n as usize {
            // struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
            let reclen = u16::from_ne_bytes([buf[off + 16], buf[off + 17]]) as usize;
            let name = &buf[off + 19..off + reclen];
            if let Some(pid) = parse_pid(name) {
                if let Some(ppid) = ppid_of(pid) {
                    f(pid, ppid);
                }
            }
            off += reclen;
        }
    }
    libc::close(proc_dir);
}

/// A NUL-terminated decimal name.
fn parse_pid(name: &[u8]) -> Option<i32> {
    let mut pid: i32 = 0;
    let mut digits = 0;
    for &b in name {
        if b == 0 {
            break;
        }
        if !b.is_ascii_digit() {
            return None;
        }
        pid = pid.checked_mul(10)?.checked_add((b - b'0') as i32)?;
        digits += 1;
    }
    (digits > 0).then_some(pid)
}

/// The parent of `pid`, from `/proc/<pid>/stat` (the field after the state, which follows the
/// command's last closing parenthesis).
unsafe fn ppid_of(pid: i32) -> Option<i32> {
    let mut path = [0u8; 32];
    let mut w = Writer::new(&mut path);
    w.push(b"/proc/");
    w.int(pid as i64);
    w.push(b"/stat\0");
    let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return None;
    }
    let mut stat = [0u8; 1024];
    let n = libc::read(fd, stat.as_mut_ptr().cast(), stat.len());
    libc::close(fd);
    if n <= 0 {
        return None;
    }
    let stat = &stat[..n as usize];
    let close = stat.iter().rposition(|&b| b == b')')?;
    // ") S 1234 ..."
    let rest = stat.get(close + 4..)?;
    let mut ppid: i32 = 0;
    let mut digits = 0;
    for &b in rest {
        if !b.is_ascii_digit() {
            break;
        }
        ppid = ppid.checked_mul(10)?.checked_add((b - b'0') as i32)?;
        digits += 1;
    }
    (digits > 0).then_some(ppid)
}

/// This process's start time (clock ticks since boot), from `/proc/self/stat`.
unsafe fn own_start_time() -> Option<u64> {
    let fd = libc::open(
        c"/proc/self/stat".as_ptr(),
        libc::O_RDONLY | libc::O_CLOEXEC,
    );
    if fd < 0 {
        return None;
    }
    let mut buf = [0u8; 1024];
    let mut len = 0;
    while len < buf.len() {
        let n = libc::read(fd, buf[len..].as_mut_ptr().cast(), buf.len() - len);
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        if n <= 0 {
            break;
        }
        len += n as usize;
    }
    libc::close(fd);
    let text = &buf[..len];
    let after = text.iter().rposition(|&b| b == b')')? + 1;
    // The 22nd field; the 3rd (state) is the first after the parenthesis.
    let field = text[after..]
        .split(|&b| b == b' ')
        .filter(|f| !f.is_empty())
        .nth(19)?;
    let mut n: u64 = 0;
    for &b in field {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(n)
}

/// Appends the job's `W` line to its record: the waiter `waiter` started at `start_time`,
/// and the job's process `job`. Whether it was written.
unsafe fn write_waiter_line(spec: &Spec, waiter: i32, start_time: u64, job: i32) -> bool {
    let mut buf = [0u8; 96];
    let mut w = Writer::new(&mut buf);
    w.push(b"W ");
    w.int(i64::from(waiter));
    w.push(b" ");
    w.int(start_time as i64);
    w.push(b" ");
    w.int(i64::from(job));
    w.push(b"\n");
    let len = w.len;
    append_line(&spec.record, &buf[..len])
}

/// Appends `line` to the record at `path` in one write (`O_APPEND`: the record's other
/// writers' lines stay whole), never through a link or into anything but a regular file. A
/// few tries, some milliseconds apart (a full disk may clear); whether it was written.
unsafe fn append_line(path: &CString, line: &[u8]) -> bool {
    let mut pause = 5_000_000;
    for _ in 0..5 {
        match open_record(path) {
            // Only into a regular file: not a FIFO or a device a job put in its place.
            Err(NotOpened::NotAFile) => return false,
            Err(NotOpened::Failed) => {}
            Ok(fd) => {
                let written = libc::write(fd, line.as_ptr().cast(), line.len());
                libc::close(fd);
                if written == line.len() as isize {
                    return true;
                }
            }
        }
        let ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: pause,
        };
        libc::nanosleep(&ts, std::ptr::null_mut());
        pause *= 2;
    }
    false
}

/// Why [`open_record`] gave no descriptor.
enum NotOpened {
    /// The open failed (it may succeed later: a full disk, ...).
    Failed,
    /// What is there is not a regular file.
    NotAFile,
}

/// The record at `path` opened for appending (close-on-exec, created when missing), never
/// through a link and only when it is a regular file (not a FIFO a job put in its place:
/// opening one does not block, and it is refused).
unsafe fn open_record(path: &CString) -> Result<RawFd, NotOpened> {
    let fd = libc::open(
        path.as_ptr(),
        libc::O_WRONLY
            | libc::O_APPEND
            | libc::O_CREAT
            | libc::O_NOFOLLOW
            | libc::O_NONBLOCK
            | libc::O_CLOEXEC,
        0o600,
    );
    if fd < 0 {
        return Err(NotOpened::Failed);
    }
    let mut st: libc::stat = std::mem::zeroed();
    if libc::fstat(fd, &mut st) < 0 || st.st_mode & libc::S_IFMT != libc::S_IFREG {
        libc::close(fd);
        return Err(NotOpened::NotAFile);
    }
    Ok(fd)
}

/// Appends the job's exit: "X <status> <user µs> <system µs> <max rss KiB>". Not synced:
/// the record outlives the daemon (it is in the operating system's hands), and what a system
/// crash could lose of it is no more than what it loses of the daemon's own commits, which
/// are synced in the background too (see `daemon::pool`); an `fsync` per job held every
/// job's end up behind the disk.
unsafe fn write_record(spec: &Spec, status: i32) {
    let mut ru: libc::rusage = std::mem::zeroed();
    libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru);
    #[allow(clippy::unnecessary_cast)]
    let us = |t: libc::timeval| t.tv_sec as i64 * 1_000_000 + t.tv_usec as i64;
    let mut buf = [0u8; 128];
    let mut w = Writer::new(&mut buf);
    w.push(b"X ");
    w.int(status as i64);
    w.push(b" ");
    w.int(us(ru.ru_utime));
    w.push(b" ");
    w.int(us(ru.ru_stime));
    w.push(b" ");
    #[allow(clippy::unnecessary_cast)]
    w.int(ru.ru_maxrss as i64);
    w.push(b"\n");
    let len = w.len;
    // Unwritten after its tries, the exit is lost: the daemon takes the run for lost.
    append_line(&spec.record, &buf[..len]);
}

/// Formats into a fixed buffer, without allocating.
struct Writer<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> Writer<'a> {
    fn new(buf: &'a mut [u8]) -> Writer<'a> {
        Writer { buf, len: 0 }
    }

    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.len < self.buf.len() {
                self.buf[self.len] = b;
                self.len += 1;
            }
        }
    }

    fn int(&mut self, v: i64) {
        if v < 0 {
            self.push(b"-");
        }
        let mut digits = [0u8; 20];
        let mut n = v.unsigned_abs();
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_formats_integers() {
        let mut buf = [0u8; 64];
        let mut w = Writer::new(&mut buf);
        w.int(0);
        w.push(b" ");
        w.int(-42);
        w.push(b" ");
        w.int(i64::MAX);
        let len = w.len;
        assert_eq!(&buf[..len], b"0 -42 9223372036854775807");
    }

    #[test]
    fn specs_travel_to_the_launcher_whole() {
        let env = [
            (OsStr::new("A"), OsStr::new("1")),
            (OsStr::new("EMPTY"), OsStr::new("")),
        ];
        let argv = ["/bin/echo", "a b", ""].map(OsStr::new);
        let mut spec = Spec::new(
            Path::new("/bin/echo"),
            argv,
            env,
            Path::new("/tmp/w"),
            Path::new("/tmp/d"),
        )
        .unwrap();
        spec.core_limit = Some(4096);
        spec.nice = -3;
        spec.until = Until::Forked;
        spec.run_as = Some(RunAs {
            uid: 1001,
            gid: 1002,
            groups: vec![1002, 27],
        });
        let bytes = spec.encode();
        let back = Spec::decode(&bytes).unwrap();
        assert_eq!(back.encode(), bytes);
        assert_eq!(back._argv, spec._argv);
        assert_eq!(back._envp, spec._envp);
        assert_eq!(back.record, spec.record);
        assert_eq!(
            (back.core_limit, back.nice, back.until),
            (Some(4096), -3, Until::Forked)
        );
        assert_eq!(back.run_as, spec.run_as);
        assert_eq!(back.argv_ptrs.len(), 4);
        assert!(back.argv_ptrs[3].is_null() && back.envp_ptrs[2].is_null());
        // Cut short, with bytes left over, or with counts past its length: refused.
        for bad in [
            &bytes[..bytes.len() - 1],
            &[bytes.as_slice(), b"x"].concat(),
        ] {
            assert_eq!(
                Spec::decode(bad).err().and_then(|e| e.raw_os_error()),
                Some(libc::EINVAL)
            );
        }
        let mut huge = bytes.clone();
        huge[34..38].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Spec::decode(&huge).is_err());
    }

    #[test]
    fn records_are_read_only_from_small_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join(RECORD);
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        // A FIFO in place of the record neither blocks nor reads as one.
        assert_eq!(read_record(dir.path()), None);
        assert!(mark_executed(dir.path()).is_err(), "nor is it written to");
        std::fs::remove_file(&fifo).unwrap();
        std::fs::write(dir.path().join("elsewhere"), "X 256 1 1 1\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), &fifo).unwrap();
        assert_eq!(read_record(dir.path()), None, "a link is not followed");
        assert!(mark_executed(dir.path()).is_err(), "nor written through");
        std::fs::remove_file(&fifo).unwrap();
        std::fs::write(&fifo, format!("X 256 1 1 1\n{}\n", "E\n".repeat(1 << 12))).unwrap();
        assert_eq!(
            read_record(dir.path()),
            None,
            "a huge file is not read whole"
        );
    }

    #[test]
    fn pid_names() {
        assert_eq!(parse_pid(b"123\0\0"), Some(123));
        assert_eq!(parse_pid(b"self\0"), None);
        assert_eq!(parse_pid(b"\0"), None);
    }

    #[test]
    fn records_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORD);
        assert_eq!(Record::read(dir.path()), None, "no record");
        let me = WaiterId::of(std::process::id() as i32, 7).unwrap();
        me.write(dir.path()).unwrap();
        assert_eq!(WaiterId::read(dir.path()), Some(me));
        assert!(me.is_alive());
        assert!(!executed(dir.path()) && read_record(dir.path()).is_none());
        mark_executed(dir.path()).unwrap();
        assert!(executed(dir.path()));
        // The waiter's exit, appended.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("X 256 1500000 250000 2048\n");
        std::fs::write(&path, &text).unwrap();
        let exit = read_record(dir.path()).unwrap();
        assert_eq!(exit.status, 256);
        assert_eq!(exit.user_cpu, 1.5);
        assert_eq!(exit.sys_cpu, 0.25);
        assert_eq!(exit.max_rss_kib, 2048);
        assert_eq!(WaiterId::read(dir.path()), Some(me));
        // A line still being written (no newline yet) is not read; the rest is.
        std::fs::write(&path, format!("{text}X 256 15")).unwrap();
        assert_eq!(read_record(dir.path()), Some(exit));
        // A restart keeps only the execute event's mark: the last run's exit is not the next
        // run's, nor is its waiter.
        restart(dir.path()).unwrap();
        let r = Record::read(dir.path()).unwrap();
        assert_eq!((r.waiter, r.exit, r.executed), (None, None, true));
        // A new waiter line hides an exit before it.
        std::fs::write(&path, "X 0 1 1 1\nW 1 2 3\n").unwrap();
        let r = Record::read(dir.path()).unwrap();
        assert_eq!(r.exit, None);
        assert_eq!(r.waiter.map(|w| w.job_pid), Some(3));
        // A reset (the directory readied for another job) hides everything before it.
        std::fs::write(&path, "W 9 9 9\nE\nX 0 1 1 1\n").unwrap();
        reset(dir.path()).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"R\n");
        std::fs::write(&path, "W 9 9 9\nE\nX 0 1 1 1\nR\nW 1 2 3\n").unwrap();
        let r = Record::read(dir.path()).unwrap();
        assert_eq!((r.exit, r.executed), (None, false));
        assert_eq!(r.waiter.map(|w| w.pid), Some(1));
        // A process that could not exec says so before its waiter's exit, and may say so
        // before its waiter records it; a reset hides it.
        std::fs::write(&path, "W 1 2 3\nF 2\nX 32512 0 0 0\n").unwrap();
        assert_eq!(read_record(dir.path()).unwrap().exec_error, Some(2));
        std::fs::write(&path, "F 13\nW 4 5 6\nX 32512 0 0 0\n").unwrap();
        assert_eq!(read_record(dir.path()).unwrap().exec_error, Some(13));
        std::fs::write(&path, "W 1 2 3\nF 2\nR\nW 4 5 6\nX 0 0 0 0\n").unwrap();
        assert_eq!(read_record(dir.path()).unwrap().exec_error, None);
        // Anything else is not a record.
        for bad in [
            "F\n",
            "F x\n",
            "F 1 2\n",
            "X 256 1 1\n",
            "X 256 1 1 1 1\n",
            "W 1 2 x\n",
            "E\n\nX 0 1 1 1\n",
            "Q\n",
            "W 1 -2 3\n",
            "X 99999999999 1 1 1\n",
        ] {
            std::fs::write(&path, bad).unwrap();
            assert_eq!(Record::read(dir.path()), None, "{bad:?}");
        }
    }
}
