//! The launcher: a small process of the daemon's that forks the jobs' waiters.
//!
//! A fork costs in proportion to the forking process's memory: its page tables are copied,
//! and every page it writes afterwards is copied once more. Forked from a master with a
//! large queue, each waiter cost the master milliseconds. The launcher is the daemon's own
//! binary started afresh (`/proc/self/exe`, told by [`ENV`] to serve), so its memory is a
//! few pages, and it is single-threaded. The daemon hands it each job's [`Spec`], standard
//! files and pipe over a socket; it forks the waiter with `CLONE_PARENT`, so the waiter is
//! the daemon's child all the same: its exit reaches the daemon, which reaps it and counts
//! its resource usage as before. The launcher itself answers nothing: the waiter writes its
//! pid on the pipe first thing, and a failed fork is written there as a negated errno.
//!
//! Only processes that run through [`crate::tools::main`] have a launcher ([`enable`]);
//! elsewhere (the library's unit tests, whose binary cannot serve) the daemon forks.

use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use nix::sys::socket::{
    recvmsg, sendmsg, socketpair, AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags,
    SockFlag, SockType,
};

use super::waiter::{self, Spec};

/// The environment variable that makes a condorlite binary serve as a launcher on its
/// standard input.
pub const ENV: &str = "_CONDORLITE_LAUNCHER";

/// The largest request (a job's command line and environment with the paths): the kernel
/// refuses an `execve` with more than this of arguments and environment anyway.
const MAX_REQUEST: usize = 4 << 20;

static ENABLED: AtomicBool = AtomicBool::new(false);
static LAUNCHER: Mutex<Option<Launcher>> = Mutex::new(None);

struct Launcher {
    socket: OwnedFd,
    child: Child,
    /// The process that started it (a fork of that process is not its parent).
    owner: u32,
}

impl Drop for Launcher {
    fn drop(&mut self) {
        if self.owner == std::process::id() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Lets this process start waiters through a launcher (its binary can serve as one).
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// Serves as a launcher when [`ENV`] says so: the exit code once the daemon has gone.
pub fn serve_if_asked() -> Option<ExitCode> {
    std::env::var_os(ENV)?;
    Some(match serve(0) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("condor_launcher: {e}");
            ExitCode::FAILURE
        }
    })
}

/// Starts the launcher now rather than at the first job (no-op without [`enable`]).
pub fn prepare() {
    if ENABLED.load(Ordering::Relaxed) {
        let mut slot = LAUNCHER.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = ensure(&mut slot) {
            tracing::warn!("cannot start the job launcher (jobs are forked by the daemon): {e}");
        }
    }
}

fn ensure(slot: &mut Option<Launcher>) -> io::Result<&mut Launcher> {
    if slot.as_ref().is_some_and(|l| l.owner != std::process::id()) {
        // Inherited through a fork: not this process's to use or to kill.
        std::mem::forget(slot.take());
    }
    match slot {
        Some(l) => Ok(l),
        None => Ok(slot.insert(start()?)),
    }
}

fn start() -> io::Result<Launcher> {
    let (ours, theirs) = socketpair(
        AddressFamily::Unix,
        SockType::SeqPacket,
        None,
        SockFlag::SOCK_CLOEXEC,
    )?;
    let child = Command::new("/proc/self/exe")
        .arg0("condor_launcher")
        .env(ENV, "1")
        .stdin(Stdio::from(theirs))
        .stdout(Stdio::null())
        .spawn()?;
    tracing::debug!("job launcher started (pid {})", child.id());
    Ok(Launcher {
        socket: ours,
        child,
        owner: std::process::id(),
    })
}

/// Hands the start of `spec`'s waiter to the launcher, with the job's standard files and
/// the waiter's pipe `err`: the pid of the launcher it went to, or `None` when it was not
/// handed over (the caller forks).
pub(super) fn hand_over(spec: &Spec, stdio: [RawFd; 3], err: RawFd) -> Option<u32> {
    if !ENABLED.load(Ordering::Relaxed) {
        return None;
    }
    let request = spec.encode();
    if request.len() > MAX_REQUEST {
        return None;
    }
    let fds = [stdio[0], stdio[1], stdio[2], err];
    let mut slot = LAUNCHER.lock().unwrap_or_else(|e| e.into_inner());
    // A launcher that went away is started again, once.
    let mut lost = 0;
    while lost < 2 {
        let launcher = match ensure(&mut slot) {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!("cannot start the job launcher (the daemon forks): {e}");
                return None;
            }
        };
        let sent = sendmsg::<()>(
            launcher.socket.as_raw_fd(),
            &[IoSlice::new(&request)],
            &[ControlMessage::ScmRights(&fds)],
            MsgFlags::MSG_NOSIGNAL,
            None,
        );
        match sent {
            Ok(_) => return Some(launcher.child.id()),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e @ (nix::errno::Errno::EMSGSIZE | nix::errno::Errno::ENOBUFS)) => {
                tracing::debug!("job launcher: request of {} bytes: {e}", request.len());
                return None;
            }
            Err(e) => {
                tracing::warn!("job launcher lost ({e}): starting another");
                *slot = None;
                lost += 1;
            }
        }
    }
    None
}

/// Stops the launcher (before the daemon execs itself again).
pub fn stop() {
    LAUNCHER.lock().unwrap_or_else(|e| e.into_inner()).take();
}

/// Drops the launcher `pid`, which took a request and went away without forking: the next
/// request starts another. (Another thread may have replaced it already.)
pub(super) fn forget(pid: u32) {
    let mut slot = LAUNCHER.lock().unwrap_or_else(|e| e.into_inner());
    if slot.as_ref().is_some_and(|l| l.child.id() == pid) {
        slot.take();
        tracing::warn!("job launcher lost: starting another");
    }
}

/// The launcher's loop on `socket`: forks a waiter for each request until the daemon's end
/// closes.
fn serve(socket: RawFd) -> io::Result<()> {
    // The daemon's death closes the socket; nothing else ends the launcher, and no signal
    // meant for the daemon's group reaches it.
    // SAFETY: plain system calls (the name is a NUL-terminated string).
    unsafe {
        libc::setsid();
        libc::prctl(libc::PR_SET_NAME, c"condor_launcher".as_ptr());
    }
    let mut buf = vec![0u8; MAX_REQUEST + 1];
    loop {
        let mut cmsg = nix::cmsg_space!([RawFd; 4]);
        let mut iov = [IoSliceMut::new(&mut buf)];
        let msg = match recvmsg::<()>(
            socket,
            &mut iov,
            Some(&mut cmsg),
            MsgFlags::MSG_CMSG_CLOEXEC,
        ) {
            Ok(m) => m,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        };
        let mut fds: Vec<OwnedFd> = Vec::new();
        for c in msg.cmsgs()? {
            if let ControlMessageOwned::ScmRights(raw) = c {
                // SAFETY: descriptors just received: this process owns them.
                fds.extend(
                    raw.into_iter()
                        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
                );
            }
        }
        let truncated = msg
            .flags
            .intersects(MsgFlags::MSG_TRUNC | MsgFlags::MSG_CTRUNC);
        let len = msg.bytes;
        if len == 0 && fds.is_empty() {
            return Ok(());
        }
        let [stdin, stdout, stderr, err] = match <[OwnedFd; 4]>::try_from(fds) {
            Ok(fds) => fds,
            // Not a request of the daemon's: dropped (its descriptors closed).
            Err(_) => continue,
        };
        let spec = if truncated {
            Err(io::Error::from_raw_os_error(libc::E2BIG))
        } else {
            Spec::decode(&buf[..len])
        };
        let stdio = [stdin.as_raw_fd(), stdout.as_raw_fd(), stderr.as_raw_fd()];
        let forked = spec.and_then(|spec| fork_waiter(&spec, stdio, err.as_raw_fd()));
        if let Err(e) = forked {
            report_errno(err.as_raw_fd(), &e);
        }
    }
}

/// Forks the waiter of `spec` as a child of this process's parent (`CLONE_PARENT`), every
/// signal blocked across the fork.
fn fork_waiter(spec: &Spec, stdio: [RawFd; 3], err: RawFd) -> io::Result<()> {
    // SAFETY: signal-mask calls on valid sets; `clone` without a new stack or shared memory
    // is a fork whose child's parent is ours; the child runs `waiter_main`, which never
    // returns, on its copy of this single-threaded process's memory.
    let pid = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::sigprocmask(libc::SIG_SETMASK, &all, &mut old);
        let flags = (libc::CLONE_PARENT | libc::SIGCHLD) as libc::c_ulong;
        let pid = libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize);
        if pid == 0 {
            waiter::waiter_main(spec, stdio, err)
        }
        libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        pid
    };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn report_errno(fd: RawFd, e: &io::Error) {
    let word = -e.raw_os_error().unwrap_or(libc::EIO).max(1);
    let bytes = word.to_ne_bytes();
    // SAFETY: writes a local buffer to a descriptor this process owns.
    unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
}
