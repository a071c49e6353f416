//! The master's command socket (see [`crate::client::master`] for the protocol): one thread
//! accepts connections, and a thread per connection passes its request to the main loop with
//! the caller's identity ([`Peer`], from `SO_PEERCRED`) and sends the answer back (a wake-up
//! is answered at once). Queries are answered with the pool's ads as they are, never from a
//! stale copy, and rendered here rather than on the pool's thread.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::time::Duration;

use crate::classad::ClassAd;
use crate::client::master::Command;

use super::{Msg, Peer};

/// Renders ads in the long form, each followed by a blank line (the answer to a query).
pub fn render(ads: &[ClassAd]) -> String {
    let mut text = String::new();
    for ad in ads {
        let attrs: Vec<_> = ad.iter().collect();
        crate::output::ads::write_long(&mut text, &attrs);
        text.push('\n');
    }
    text
}

/// A bound socket, removed when dropped.
#[derive(Debug)]
pub struct Socket {
    listener: UnixListener,
    path: PathBuf,
}

impl Socket {
    /// Binds the socket at `path`, replacing a stale one (the caller holds the pool's lock, so
    /// no other master uses it).
    pub fn bind(path: &Path) -> std::io::Result<Socket> {
        let _ = std::fs::remove_file(path);
        let listener = UnixListener::bind(path)?;
        if nix::unistd::geteuid().is_root() {
            // A system pool: every local user may connect (connecting needs write permission
            // on the socket); the master reads who each one is from the kernel and decides
            // what they may do. A personal pool's socket stays its user's.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))?;
        }
        Ok(Socket {
            listener,
            path: path.to_owned(),
        })
    }

    /// Serves requests until the process ends: one thread accepts connections, and each
    /// connection is answered on a thread of its own (a slow or silent client holds up no
    /// other), at most [`MAX_CONNECTIONS`] at once.
    pub fn serve(self, to_main: Sender<Msg>) -> std::io::Result<()> {
        let listener = self.listener.try_clone()?;
        let active = Arc::new(AtomicUsize::new(0));
        // The socket file is removed when `self` drops; the thread owns it.
        std::thread::Builder::new()
            .name("command socket".into())
            .spawn(move || {
                let _keep = self;
                for stream in listener.incoming() {
                    let stream = match stream {
                        Ok(s) => s,
                        Err(e) => {
                            tracing::warn!("command socket: {e}");
                            continue;
                        }
                    };
                    let peer = match peer_of(&stream) {
                        Ok(p) => p,
                        Err(e) => {
                            tracing::warn!("command socket: the peer's credentials: {e}");
                            continue;
                        }
                    };
                    if active.load(Ordering::Acquire) >= MAX_CONNECTIONS {
                        let mut out = &stream;
                        let _ = out.write_all(b"ERROR the master is busy\n");
                        continue;
                    }
                    active.fetch_add(1, Ordering::AcqRel);
                    let (to_main, done) = (to_main.clone(), active.clone());
                    let spawned = std::thread::Builder::new()
                        .name("command".into())
                        .stack_size(256 * 1024)
                        .spawn(move || {
                            handle(stream, peer, &to_main);
                            done.fetch_sub(1, Ordering::AcqRel);
                        });
                    if let Err(e) = spawned {
                        active.fetch_sub(1, Ordering::AcqRel);
                        tracing::warn!("command socket: no thread for a connection: {e}");
                    }
                }
            })?;
        Ok(())
    }
}

/// The most connections answered at once; more are told the master is busy.
pub const MAX_CONNECTIONS: usize = 64;

/// How long a connection may take to send its request, and to take its answer.
const IO_DEADLINE: Duration = Duration::from_secs(5);

/// How long a request waits for the main loop's answer.
const ANSWER_DEADLINE: Duration = Duration::from_secs(15);

/// The process at the other end of a connection.
fn peer_of(stream: &UnixStream) -> nix::Result<Peer> {
    let cred = nix::sys::socket::getsockopt(stream, nix::sys::socket::sockopt::PeerCredentials)?;
    Ok(Peer {
        uid: cred.uid(),
        gid: cred.gid(),
        pid: cred.pid(),
    })
}

impl Drop for Socket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Answers one connection.
fn handle(stream: UnixStream, peer: Peer, to_main: &Sender<Msg>) {
    let _ = stream.set_read_timeout(Some(IO_DEADLINE));
    let _ = stream.set_write_timeout(Some(IO_DEADLINE));
    let mut line = String::new();
    // A request is one short line: a client cannot make the thread read without end.
    let mut reader = BufReader::new((&stream).take(MAX_REQUEST_BYTES));
    if reader.read_line(&mut line).is_err() {
        return;
    }
    // A client closing at once only wanted to know that a master runs.
    if line.is_empty() {
        return;
    }
    let mut out = &stream;
    let gone = "ERROR the master is stopping\n".to_owned();
    let command = Command::parse(&line);
    if let Some(cmd) = command.as_ref().filter(|c| !is_open_to_all(c)) {
        if !super::requests::is_admin(peer) {
            let answer = format!(
                "ERROR permission denied: uid {} may not send {}\n",
                peer.uid,
                cmd.line().split(' ').next().unwrap_or_default()
            );
            let _ = out.write_all(answer.as_bytes());
            return;
        }
    }
    let answer = match command {
        Some(Command::Schedd) => {
            // Its frames are bounded one by one, and the conversation by its deadline.
            reader.get_mut().set_limit(u64::MAX);
            super::requests::serve(&stream, &mut reader, peer, to_main);
            return;
        }
        None => {
            let shown: String = line.trim().chars().take(80).collect();
            format!("ERROR unknown request {shown:?}\n")
        }
        Some(Command::Query(kind)) => {
            let (tx, rx) = mpsc::channel();
            if to_main.send(Msg::Query(kind, peer, tx)).is_err() {
                gone
            } else {
                match rx.recv_timeout(ANSWER_DEADLINE) {
                    Ok(ads) => render(&ads),
                    Err(_) => "ERROR the master did not answer\n".to_owned(),
                }
            }
        }
        Some(Command::Reschedule) => {
            if to_main.send(Msg::Wake).is_err() {
                gone
            } else {
                "OK\n".to_owned()
            }
        }
        Some(cmd) => {
            let (tx, rx) = mpsc::channel();
            if to_main.send(Msg::Command(cmd, peer, tx)).is_err() {
                gone
            } else {
                match rx.recv_timeout(ANSWER_DEADLINE) {
                    Ok(Ok(text)) if text.is_empty() => "OK\n".to_owned(),
                    Ok(Ok(text)) => format!("OK {text}\n"),
                    Ok(Err(e)) => format!("ERROR {e}\n"),
                    Err(_) => "ERROR the master did not answer\n".to_owned(),
                }
            }
        }
    };
    let _ = out.write_all(answer.as_bytes());
}

/// Whether any user may send a command: queries, wake-ups and the schedd's requests (which
/// check who asks themselves); the others are the administrator's.
fn is_open_to_all(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::Query(_) | Command::Reschedule | Command::Schedd
    )
}

/// The longest request line read.
const MAX_REQUEST_BYTES: u64 = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    /// A socket served by this test, its main loop a thread that answers every command with
    /// the caller's identity.
    fn served() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("master.sock");
        let (tx, rx) = mpsc::channel::<Msg>();
        Socket::bind(&path).unwrap().serve(tx).unwrap();
        std::thread::spawn(move || {
            for msg in rx {
                if let Msg::Command(_, peer, reply) = msg {
                    let _ = reply.send(Ok(format!("{} {}", peer.uid, peer.pid)));
                }
            }
        });
        (dir, path)
    }

    fn ask(stream: &mut UnixStream, request: &str) -> String {
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        BufReader::new(stream).read_line(&mut answer).unwrap();
        answer
    }

    #[test]
    fn a_request_carries_its_callers_identity() {
        let (_dir, path) = served();
        let mut s = UnixStream::connect(&path).unwrap();
        let me = Peer::this_process();
        assert_eq!(
            ask(&mut s, "RECONFIG\n"),
            format!("OK {} {}\n", me.uid, me.pid)
        );
    }

    #[test]
    fn a_silent_client_holds_up_no_other() {
        let (_dir, path) = served();
        // Connected and silent: its request comes after another client's answer.
        let mut silent = UnixStream::connect(&path).unwrap();
        let mut other = UnixStream::connect(&path).unwrap();
        assert_eq!(ask(&mut other, "RESCHEDULE\n"), "OK\n");
        assert_eq!(ask(&mut silent, "RESCHEDULE\n"), "OK\n");
    }

    #[test]
    fn an_endless_request_is_cut_off_and_answered() {
        let (_dir, path) = served();
        let mut flood = UnixStream::connect(&path).unwrap();
        // Far more than a request may be, without a line end: the master reads its bound,
        // answers, and closes; the client's writes then fail.
        let chunk = vec![b'x'; 64 * 1024];
        let mut sent = 0usize;
        while sent < 64 * 1024 * 1024 {
            match flood.write(&chunk) {
                Ok(n) => sent += n,
                Err(_) => break,
            }
        }
        assert!(sent < 64 * 1024 * 1024, "the master read {sent} bytes");
        let mut answer = String::new();
        let _ = BufReader::new(&flood).read_line(&mut answer);
        assert!(
            answer.starts_with("ERROR unknown request \"xxx"),
            "{answer:.100}"
        );
        assert!(answer.len() < 200, "{} bytes", answer.len());
        let mut other = UnixStream::connect(&path).unwrap();
        assert_eq!(ask(&mut other, "RESCHEDULE\n"), "OK\n");
    }

    #[test]
    fn a_probe_without_a_request_is_not_answered() {
        let (_dir, path) = served();
        let mut probe = UnixStream::connect(&path).unwrap();
        probe.shutdown(std::net::Shutdown::Write).unwrap();
        let mut answer = String::new();
        probe.read_to_string(&mut answer).unwrap();
        assert_eq!(answer, "");
    }
}
