//! The master's command socket (see [`crate::client::master`] for the protocol): one thread
//! accepts connections and passes each request to the main loop, whose answer it sends back
//! (a wake-up is answered at once). Queries are answered from the pool's state as it is,
//! never from a stale copy.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

use crate::classad::ClassAd;
use crate::client::master::Command;

use super::Msg;

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
        Ok(Socket {
            listener,
            path: path.to_owned(),
        })
    }

    /// Serves requests on a thread of its own until the process ends.
    pub fn serve(self, to_main: Sender<Msg>) {
        let listener = match self.listener.try_clone() {
            Ok(l) => l,
            Err(e) => {
                tracing::error!("cannot serve the command socket: {e}");
                return;
            }
        };
        // The socket file is removed when `self` drops; the thread owns it.
        std::thread::Builder::new()
            .name("command socket".into())
            .spawn(move || {
                let _keep = self;
                for stream in listener.incoming() {
                    match stream {
                        Ok(s) => {
                            if !handle(s, &to_main) {
                                return;
                            }
                        }
                        Err(e) => tracing::warn!("command socket: {e}"),
                    }
                }
            })
            .expect("spawn the command socket thread");
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Answers one connection; false when the main loop is gone.
fn handle(stream: UnixStream, to_main: &Sender<Msg>) -> bool {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut line = String::new();
    let mut reader = BufReader::new(&stream);
    if reader.read_line(&mut line).is_err() {
        return true;
    }
    let mut out = &stream;
    let answer = match Command::parse(&line) {
        None => format!("ERROR unknown request {:?}\n", line.trim()),
        Some(Command::Query(kind)) => {
            let (tx, rx) = mpsc::channel();
            if to_main.send(Msg::Query(kind, tx)).is_err() {
                return false;
            }
            match rx.recv_timeout(Duration::from_secs(15)) {
                Ok(text) => {
                    let _ = out.write_all(text.as_bytes());
                    return true;
                }
                Err(_) => "ERROR the master did not answer\n".to_owned(),
            }
        }
        Some(Command::Reschedule) => {
            if to_main.send(Msg::Wake).is_err() {
                return false;
            }
            "OK\n".to_owned()
        }
        Some(cmd) => {
            let (tx, rx) = mpsc::channel();
            if to_main.send(Msg::Command(cmd, tx)).is_err() {
                return false;
            }
            match rx.recv_timeout(Duration::from_secs(15)) {
                Ok(Ok(text)) if text.is_empty() => "OK\n".to_owned(),
                Ok(Ok(text)) => format!("OK {text}\n"),
                Ok(Err(e)) => format!("ERROR {e}\n"),
                Err(_) => "ERROR the master did not answer\n".to_owned(),
            }
        }
    };
    let _ = out.write_all(answer.as_bytes());
    true
}
