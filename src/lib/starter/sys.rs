//! The system calls the starter needs that nix does not wrap: `wait4`, for the exit status
//! and the resource usage of a job in one call.

use std::io;

use nix::errno::Errno;
use nix::sys::wait::{waitid, Id, WaitPidFlag};
use nix::unistd::Pid;

/// The parts of a `struct rusage` the starter reports.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ChildUsage {
    pub user_cpu: f64,
    pub sys_cpu: f64,
    pub max_rss_kib: i64,
}

/// Blocks until `pid` has exited, without reaping it: the zombie keeps the pid (and so the
/// process group id) from being reused while the rest of the group is killed.
pub(super) fn wait_exited(pid: i32) -> io::Result<()> {
    loop {
        match waitid(
            Id::Pid(Pid::from_raw(pid)),
            WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT,
        ) {
            Ok(_) => return Ok(()),
            Err(Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Reaps `pid`: its raw wait status and resource usage.
pub(super) fn wait4(pid: i32) -> io::Result<(i32, ChildUsage)> {
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: `rusage` is a plain C struct of integers, for which all-zero bytes are a
        // valid value; `wait4` writes only through the two pointers, which point to these
        // live, properly typed locals for the duration of the call.
        let (r, usage) = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            let r = libc::wait4(pid, &mut status, 0, &mut usage);
            (r, usage)
        };
        if r == pid {
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
            return Ok((
                status,
                ChildUsage {
                    user_cpu: secs(usage.ru_utime),
                    sys_cpu: secs(usage.ru_stime),
                    // `c_long`: i64 here, i32 on 32-bit targets.
                    #[allow(clippy::unnecessary_cast)]
                    max_rss_kib: usage.ru_maxrss as i64,
                },
            ));
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}
