//! `condor_master`: one process that runs the pool — the schedd's job lifecycle, the
//! negotiator, the startd's slots and the starters of running jobs — over the spool the tools
//! share.
//!
//! - One master per pool: the pid file in `$(RUN)` is locked for the master's life
//!   ([`lock`]).
//! - It detaches by default, as HTCondor's master does; `-f` keeps it in the foreground. The
//!   detaching parent waits until the child is ready (lock held, socket bound, queue
//!   recovered) and exits 0, or prints the child's error and exits 1.
//! - Tools reach it through `$(RUN)/condor_master.sock` ([`server`],
//!   [`crate::client::master`]): wake-ups after queue changes, `condor_off`/`on`/`restart`/
//!   `reconfig`, and queries for the ads `condor_status` prints.
//! - SIGTERM and SIGINT shut down gracefully, SIGQUIT fast, SIGHUP reconfigures (through a
//!   handler and a pipe, never a blocked mask, which jobs would inherit).
//! - It logs to `$(LOG)/MasterLog` ([`logging`]).
//! - It runs scheduler-universe jobs (DAGMan) itself, as the schedd does, without
//!   negotiation or a slot (`local`).
//! - `condor_run` starts the same pool inside its own process when no master runs
//!   ([`EmbeddedPool`]).

mod cleanup;
mod http;
pub mod lock;
pub mod logging;
mod pool;
mod reaper;
pub(crate) mod requests;
pub mod server;

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::thread::JoinHandle;

use crate::classad::ClassAd;
use crate::client::master::{socket_path, Command, Shutdown, Subsystem};
use crate::config::{Config, ConfigError};
use crate::queue::JobId;

use lock::PidLock;
use server::Socket;

pub use pool::now;

/// What the main loop is told.
pub enum Msg {
    /// The queue changed: negotiate now.
    Wake,
    /// A request from a tool (who sent it), and where its answer goes (what the command
    /// returns, or why it failed).
    Command(Command, Peer, Sender<Result<String, String>>),
    /// A job's process ended (not yet reaped: the main loop reaps it once it has forgotten
    /// the job, so that no signal meant for the job can reach a process reusing its pid).
    /// `pid`: the waiter's (an exit reported late, after the job was started anew, is not
    /// the new run's).
    Exited { job: JobId, pid: i32 },
    /// A signal the master handles (SIGTERM, SIGINT, SIGQUIT, SIGHUP).
    Signal(i32),
    /// A query for ads (who sent it), answered with the ads: the socket's thread renders
    /// them, not the pool's.
    Query(crate::client::master::AdKind, Peer, Sender<Vec<ClassAd>>),
    /// An embedded pool takes on a cluster its owner submitted: it runs only those.
    Adopt(i32),
}

/// Who sent a request: the process at the other end of its connection, as the kernel
/// vouches for it (`SO_PEERCRED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer {
    pub uid: u32,
    pub gid: u32,
    pub pid: i32,
}

impl Peer {
    /// This process (a request made in-process, by the embedded pool's owner).
    pub fn this_process() -> Peer {
        Peer {
            uid: nix::unistd::getuid().as_raw(),
            gid: nix::unistd::getgid().as_raw(),
            pid: std::process::id() as i32,
        }
    }
}

/// Why the master could not run.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    ConfigFile(#[from] ConfigError),
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Lock(#[from] lock::LockError),
    #[error(transparent)]
    Queue(#[from] crate::queue::QueueError),
    #[error(transparent)]
    Client(#[from] crate::client::ClientError),
    #[error(transparent)]
    Startd(#[from] crate::startd::StartdError),
    #[error("the accountant's store: {0}")]
    Accountant(#[from] crate::accountant::StoreError),
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl DaemonError {
    pub fn io(path: &Path, source: std::io::Error) -> DaemonError {
        DaemonError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// How the master was asked to run.
#[derive(Clone, Copy, Debug, Default)]
pub struct MasterOptions {
    /// Stay in the foreground (`-f`).
    pub foreground: bool,
}

fn dir_knob(config: &Config, name: &str) -> Result<PathBuf, DaemonError> {
    config
        .string(name)?
        .map(PathBuf::from)
        .ok_or_else(|| DaemonError::Config(format!("{name} is not defined in the configuration")))
}

/// Creates the pool's directories.
fn make_dirs(config: &Config) -> Result<PathBuf, DaemonError> {
    for knob in ["LOCAL_DIR", "LOG", "SPOOL", "EXECUTE", "RUN"] {
        let dir = dir_knob(config, knob)?;
        std::fs::create_dir_all(&dir).map_err(|e| DaemonError::io(&dir, e))?;
    }
    dir_knob(config, "RUN")
}

/// Everything a running pool holds besides its main loop.
struct Started {
    lock: PidLock,
    /// The HTTP server, when the configuration asks for one (never in an embedded pool).
    http: Option<http::Server>,
    tx: Sender<Msg>,
    rx: mpsc::Receiver<Msg>,
    pool: pool::Pool,
}

/// Takes the lock, binds the socket and opens the pool.
fn start(config: &Config, scoped: bool) -> Result<Started, DaemonError> {
    let run = make_dirs(config)?;
    let lock = PidLock::acquire(&run)?;
    create_pool_signing_key(config);
    let (tx, rx) = mpsc::channel();
    let pool = if scoped {
        pool::Pool::open_scoped(config.clone(), tx.clone())?
    } else {
        pool::Pool::open(config.clone(), tx.clone())?
    };
    let path = socket_path(config).map_err(|e| DaemonError::Config(e.to_string()))?;
    let socket = Socket::bind(&path).map_err(|e| DaemonError::io(&path, e))?;
    socket
        .serve(tx.clone())
        .map_err(|e| DaemonError::io(&path, e))?;
    let http = if scoped {
        None
    } else {
        http::start(config, tx.clone())?
    };
    Ok(Started {
        lock,
        http,
        tx,
        rx,
        pool,
    })
}

/// Makes the pool's `POOL` token signing key if it has none, as HTCondor's collector does when
/// it starts and reconfigures (`create_pool_signing_key_if_needed`); a failure is logged.
pub(crate) fn create_pool_signing_key(config: &Config) {
    match crate::security::keys::create_pool_key_if_needed(config) {
        Ok(Some(path)) => {
            tracing::info!("Created POOL token signing key in file {}", path.display());
        }
        Ok(None) => {}
        Err(e) => tracing::warn!("WARNING: {}", e.message),
    }
}

/// Runs `condor_master`: returns when the master stops; exits or re-executes itself when
/// asked to restart.
pub fn run_master(options: MasterOptions) -> Result<(), DaemonError> {
    let config = Config::load()?;
    let ready = if options.foreground {
        None
    } else {
        Some(detach()?)
    };
    if let Err(e) = logging::init(&config) {
        eprintln!("condor_master: cannot open the log: {e}");
    }
    let started = match start(&config, false) {
        Ok(s) => s,
        Err(e) => {
            if let Some(fd) = ready {
                report(fd, &format!("ERROR: {e}\n"));
                std::process::exit(1);
            }
            return Err(e);
        }
    };
    tracing::info!(
        "******************************************************\n** condor_master (condorlite {}) STARTING UP\n** pid {}\n******************************************************",
        env!("CARGO_PKG_VERSION"),
        std::process::id()
    );
    if let Err(e) = route_signals(started.tx.clone()) {
        tracing::error!("signals will not reach the master: {e}");
    }
    let Started {
        lock,
        http,
        tx,
        rx,
        pool,
    } = started;
    if let Some(fd) = ready {
        report(fd, "OK\n");
        quiet_stdio();
    }
    drop(tx);
    crate::starter::launcher::prepare();
    let restart = pool.run(rx);
    drop(http);
    drop(lock);
    crate::starter::launcher::stop();
    if restart {
        tracing::info!("restarting");
        use std::os::unix::process::CommandExt;
        let exe =
            std::env::current_exe().map_err(|e| DaemonError::io(Path::new("condor_master"), e))?;
        let err = std::process::Command::new(&exe).arg("-f").exec();
        return Err(DaemonError::io(&exe, err));
    }
    Ok(())
}

/// Forks into the background. The parent waits for the child's report and exits with it;
/// the child returns the pipe to report on.
fn detach() -> Result<OwnedFd, DaemonError> {
    let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| DaemonError::io(Path::new("pipe"), e.into()))?;
    // SAFETY: no other thread exists yet (the master forks before starting any), so the
    // child may run arbitrary code.
    match unsafe { nix::unistd::fork() } {
        Err(e) => Err(DaemonError::io(Path::new("fork"), e.into())),
        Ok(nix::unistd::ForkResult::Parent { .. }) => {
            drop(write);
            let mut answer = String::new();
            let _ = std::fs::File::from(read).read_to_string(&mut answer);
            if answer.starts_with("OK") {
                std::process::exit(0);
            }
            let text = if answer.is_empty() {
                "ERROR: the condor_master exited while starting up\n".to_owned()
            } else {
                answer
            };
            eprint!("{text}");
            std::process::exit(1);
        }
        Ok(nix::unistd::ForkResult::Child) => {
            drop(read);
            let _ = nix::unistd::setsid();
            Ok(write)
        }
    }
}

fn report(fd: OwnedFd, text: &str) {
    let mut f = std::fs::File::from(fd);
    let _ = f.write_all(text.as_bytes());
}

/// Points stdin, stdout and stderr at /dev/null (a detached daemon has no terminal).
fn quiet_stdio() {
    if let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        for fd in 0..3 {
            let _ = nix::unistd::dup2(null.as_raw_fd(), fd);
        }
    }
}

/// The write end of the signal pipe, for the handler (-1 until set up).
static SIGNAL_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The signal handler: writes the signal's number to the pipe (`write` is async-signal-safe).
extern "C" fn on_signal(sig: libc::c_int) {
    let fd = SIGNAL_PIPE.load(std::sync::atomic::Ordering::Relaxed);
    if fd >= 0 {
        let byte = sig as u8;
        // SAFETY: writing one byte from a valid buffer to a descriptor; nothing else is
        // touched in the handler.
        unsafe {
            libc::write(fd, (&byte as *const u8).cast(), 1);
        }
    }
}

/// Routes SIGTERM, SIGINT, SIGQUIT and SIGHUP to the main loop.
fn route_signals(tx: Sender<Msg>) -> Result<(), DaemonError> {
    use nix::sys::signal::Signal;
    let signals = [
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGQUIT,
        Signal::SIGHUP,
    ];
    on_signals(&signals, move |sig| tx.send(Msg::Signal(sig)).is_ok())
        .map_err(|e| DaemonError::io(Path::new("signals"), e))
}

/// Calls `handle` (on a thread of its own) with each of `signals` this process receives,
/// until it returns false: a handler writes each signal to a pipe that the thread reads.
/// Handlers (unlike blocked or ignored signals) are not inherited across exec, so children
/// start with every signal at its default. One process sets this up once.
pub fn on_signals(
    signals: &[nix::sys::signal::Signal],
    mut handle: impl FnMut(i32) -> bool + Send + 'static,
) -> std::io::Result<()> {
    use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet};
    let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    SIGNAL_PIPE.store(
        std::os::fd::IntoRawFd::into_raw_fd(write),
        std::sync::atomic::Ordering::Relaxed,
    );
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for &s in signals {
        // SAFETY: the handler only calls `write`, which is async-signal-safe.
        unsafe { sigaction(s, &action) }?;
    }
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let mut pipe = std::fs::File::from(read);
            let mut byte = [0u8; 1];
            while pipe.read_exact(&mut byte).is_ok() {
                if !handle(i32::from(byte[0])) {
                    return;
                }
            }
        })?;
    Ok(())
}

/// A pool running inside another program's process (`condor_run`, or `condor_dagman` run by
/// hand, with no master running). It runs only the clusters its owner hands it
/// ([`EmbeddedPool::adopt`]): the other jobs in the queue wait for a master, untouched.
pub struct EmbeddedPool {
    tx: Sender<Msg>,
    thread: Option<JoinHandle<()>>,
}

impl EmbeddedPool {
    /// Starts a pool in this process, unless a master already runs for the pool (then
    /// `None`: use that one).
    pub fn start(config: &Config) -> Result<Option<EmbeddedPool>, DaemonError> {
        let started = match start(config, true) {
            Ok(s) => s,
            Err(DaemonError::Lock(lock::LockError::Running { .. })) => return Ok(None),
            Err(e) => return Err(e),
        };
        let Started {
            lock, tx, rx, pool, ..
        } = started;
        let thread = std::thread::Builder::new()
            .name("pool".into())
            .spawn(move || {
                let _lock = lock;
                pool.run(rx);
            })
            .map_err(|e| DaemonError::io(Path::new("thread"), e))?;
        Ok(Some(EmbeddedPool {
            tx,
            thread: Some(thread),
        }))
    }

    /// Runs the jobs of `cluster` (submitted by this process) from now on.
    pub fn adopt(&self, cluster: i32) {
        self.adopter().adopt(cluster);
    }

    /// A handle that hands the pool clusters, for the part of the program that submits.
    pub fn adopter(&self) -> Adopter {
        Adopter(self.tx.clone())
    }

    /// Whether the pool has stopped (a `condor_off` reached it, or it failed).
    pub fn is_stopped(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }

    /// Stops the pool (running jobs are vacated) and waits for it.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let (reply, _answer) = mpsc::channel();
        let _ = self.tx.send(Msg::Command(
            Command::Off(Subsystem::Master, Shutdown::Graceful),
            Peer::this_process(),
            reply,
        ));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Hands an [`EmbeddedPool`] the clusters it is to run.
#[derive(Clone)]
pub struct Adopter(Sender<Msg>);

impl Adopter {
    /// Runs the jobs of `cluster` from now on.
    pub fn adopt(&self, cluster: i32) {
        let _ = self.0.send(Msg::Adopt(cluster));
    }
}

impl std::fmt::Debug for Adopter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Adopter")
    }
}

impl Drop for EmbeddedPool {
    fn drop(&mut self) {
        self.shutdown();
    }
}
