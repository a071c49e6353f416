//! Noticing the jobs' exits: one thread for every running job, rather than a thread per job.
//!
//! Each job's process is watched through a pidfd (`pidfd_open`), all of them in one epoll
//! set: a pidfd becomes readable when its process has exited, before it is reaped. The
//! thread then does what [`starter::wait_exited`] does for one job (kills what is left of the
//! job's process group while the exited process, a zombie, still holds the group's id) and
//! tells the main loop ([`Msg::Exited`]), which forgets the job and only then reaps it: as
//! before, no signal meant for the job can reach a process that reuses its pid.
//!
//! Where pidfds are not available (kernels before 5.3, or a sandbox that refuses the call),
//! each job gets a small thread of its own that blocks in `waitid`, as the master always did.

use std::collections::HashMap;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use crate::queue::JobId;
use crate::starter;

use super::Msg;

/// The stack of the reaper's thread and of the per-job fallback threads: they only wait,
/// signal and send a message.
const STACK: usize = 128 * 1024;

/// The epoll key of the pipe that stops the thread.
const STOP_KEY: u64 = u64::MAX;

struct Shared {
    epoll: OwnedFd,
    /// The watched jobs, by epoll key: the job, its pid and its pidfd.
    jobs: Mutex<HashMap<u64, (JobId, i32, OwnedFd)>>,
}

/// Watches the running jobs' processes and reports each exit to the main loop.
pub struct Reaper {
    to_main: Sender<Msg>,
    shared: Option<Arc<Shared>>,
    next_key: u64,
    /// The write end of the pipe that stops the thread (closed on drop).
    stop: Option<OwnedFd>,
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn epoll_add(epoll: &OwnedFd, fd: i32, key: u64) -> io::Result<()> {
    let mut ev = libc::epoll_event {
        events: libc::EPOLLIN as u32,
        u64: key,
    };
    // SAFETY: both descriptors are open, and `ev` is a valid event for the call's duration.
    cvt(unsafe { libc::epoll_ctl(epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) })?;
    Ok(())
}

impl Reaper {
    /// Starts the reaper's thread (or, without epoll, prepares for a thread per job).
    pub fn new(to_main: Sender<Msg>) -> Reaper {
        let mut reaper = Reaper {
            to_main,
            shared: None,
            next_key: 0,
            stop: None,
        };
        match Reaper::start_thread(reaper.to_main.clone()) {
            Ok((shared, stop)) => {
                reaper.shared = Some(shared);
                reaper.stop = Some(stop);
            }
            Err(e) => tracing::warn!("no reaper thread ({e}): one thread per job will wait"),
        }
        reaper
    }

    fn start_thread(to_main: Sender<Msg>) -> io::Result<(Arc<Shared>, OwnedFd)> {
        // SAFETY: epoll_create1 returns a new descriptor that we own, or -1.
        let epoll = unsafe { OwnedFd::from_raw_fd(cvt(libc::epoll_create1(libc::EPOLL_CLOEXEC))?) };
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
        epoll_add(&epoll, read.as_raw_fd(), STOP_KEY)?;
        let shared = Arc::new(Shared {
            epoll,
            jobs: Mutex::new(HashMap::new()),
        });
        let thread_shared = shared.clone();
        std::thread::Builder::new()
            .name("reaper".into())
            .stack_size(STACK)
            .spawn(move || {
                let _read = read;
                run(&thread_shared, &to_main)
            })?;
        Ok((shared, write))
    }

    /// Watches job `id`'s process `pid` (a child of this process): its exit is reported as
    /// [`Msg::Exited`]. An error means nobody will report it.
    pub fn watch(&mut self, id: JobId, pid: i32) -> io::Result<()> {
        if let Some(shared) = &self.shared {
            match pidfd_open(pid) {
                Ok(fd) => {
                    let key = self.next_key;
                    self.next_key += 1;
                    let raw = fd.as_raw_fd();
                    let mut jobs = shared.jobs.lock().unwrap_or_else(|e| e.into_inner());
                    jobs.insert(key, (id, pid, fd));
                    // Added while the map holds the job: the thread finds it however soon
                    // the process exits.
                    if let Err(e) = epoll_add(&shared.epoll, raw, key) {
                        jobs.remove(&key);
                        drop(jobs);
                        tracing::warn!("cannot watch job {id} (pid {pid}) with epoll: {e}");
                        return self.watch_with_thread(id, pid);
                    }
                    return Ok(());
                }
                Err(e) => {
                    tracing::warn!("no pidfd for job {id} (pid {pid}): {e}");
                }
            }
        }
        self.watch_with_thread(id, pid)
    }

    /// Watches job `id`'s waiter `w`, which an earlier master started (not this process's
    /// child): only through a pidfd, taken while the waiter is still the one recorded.
    pub fn watch_adopted(
        &mut self,
        id: JobId,
        w: crate::starter::waiter::WaiterId,
    ) -> io::Result<()> {
        let Some(shared) = &self.shared else {
            return Err(io::Error::new(io::ErrorKind::Unsupported, "no epoll"));
        };
        let fd = pidfd_open(w.pid)?;
        if !w.is_alive() {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        let key = self.next_key;
        self.next_key += 1;
        let raw = fd.as_raw_fd();
        let mut jobs = shared.jobs.lock().unwrap_or_else(|e| e.into_inner());
        jobs.insert(key, (id, w.pid, fd));
        if let Err(e) = epoll_add(&shared.epoll, raw, key) {
            jobs.remove(&key);
            return Err(e);
        }
        Ok(())
    }

    /// The fallback: a thread that waits for this one job.
    fn watch_with_thread(&self, id: JobId, pid: i32) -> io::Result<()> {
        let tx = self.to_main.clone();
        std::thread::Builder::new()
            .name(format!("job {id}"))
            .stack_size(STACK)
            .spawn(move || {
                if let Err(e) = starter::wait_exited(pid) {
                    tracing::error!("waiting for job {id} (pid {pid}): {e}");
                }
                let _ = tx.send(Msg::Exited { job: id, pid });
            })
            .map(|_| ())
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        // Closing the pipe's write end wakes the thread, which then ends.
        self.stop.take();
    }
}

fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor, or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just made for us and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// The reaper's thread: waits for pidfds to become readable and reports their jobs.
fn run(shared: &Shared, to_main: &Sender<Msg>) {
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 64];
    loop {
        // SAFETY: `events` is a valid buffer of the length passed.
        let n = unsafe {
            libc::epoll_wait(
                shared.epoll.as_raw_fd(),
                events.as_mut_ptr(),
                events.len() as i32,
                -1,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            tracing::error!("the reaper stops: {e}");
            return;
        }
        for ev in &events[..n as usize] {
            let key = ev.u64;
            if key == STOP_KEY {
                return;
            }
            let job = shared
                .jobs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&key);
            let Some((id, pid, fd)) = job else {
                continue;
            };
            // SAFETY: the descriptor is open (we own it until the drop below).
            unsafe {
                libc::epoll_ctl(
                    shared.epoll.as_raw_fd(),
                    libc::EPOLL_CTL_DEL,
                    fd.as_raw_fd(),
                    std::ptr::null_mut(),
                );
            }
            drop(fd);
            // The process has exited: this returns at once, and kills the rest of its group
            // (a waiter an earlier master started is not a child to wait for).
            match starter::wait_exited(pid) {
                Err(e) if e.raw_os_error() != Some(libc::ECHILD) => {
                    tracing::error!("waiting for job {id} (pid {pid}): {e}");
                }
                _ => {}
            }
            if to_main.send(Msg::Exited { job: id, pid }).is_err() {
                return;
            }
        }
    }
}
