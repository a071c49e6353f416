//! The master's log: `$(LOG)/MasterLog` (the `MASTER_LOG` knob), written through `tracing`,
//! one line per record as HTCondor's daemons write theirs (`11/22/26 03:51:21 text`), rotated
//! to `MasterLog.old` when it passes `MAX_MASTER_LOG` bytes (HTCondor's `MAX_DEFAULT_LOG`,
//! 10 MiB, by default).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;
use tracing_subscriber::fmt::MakeWriter;

use crate::config::Config;

/// A log file that rotates itself by size.
#[derive(Debug)]
struct RotatingFile {
    path: PathBuf,
    file: Option<File>,
    written: u64,
    max: u64,
}

impl RotatingFile {
    fn open(path: PathBuf, max: u64) -> io::Result<RotatingFile> {
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        let written = file.metadata()?.len();
        Ok(RotatingFile {
            path,
            file: Some(file),
            written,
            max,
        })
    }

    fn rotate(&mut self) -> io::Result<()> {
        self.file = None;
        let mut old = self.path.clone().into_os_string();
        old.push(".old");
        std::fs::rename(&self.path, old)?;
        self.file = Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)?,
        );
        self.written = 0;
        Ok(())
    }

    fn write_record(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.max > 0 && self.written + buf.len() as u64 > self.max && self.written > 0 {
            // A log that cannot rotate keeps growing rather than losing records.
            let _ = self.rotate();
        }
        if let Some(f) = self.file.as_mut() {
            f.write_all(buf)?;
        }
        self.written += buf.len() as u64;
        Ok(())
    }
}

/// The shared handle `tracing` writes through.
#[derive(Clone, Debug)]
pub struct LogWriter(Arc<Mutex<RotatingFile>>);

/// One record being formatted; written as a whole when dropped.
pub struct Record {
    log: Arc<Mutex<RotatingFile>>,
    buf: Vec<u8>,
}

impl Write for Record {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if let Ok(mut log) = self.log.lock() {
            let _ = log.write_record(&self.buf);
        }
    }
}

impl<'a> MakeWriter<'a> for LogWriter {
    type Writer = Record;

    fn make_writer(&'a self) -> Record {
        Record {
            log: self.0.clone(),
            buf: Vec::with_capacity(128),
        }
    }
}

/// HTCondor's log time stamp (`DEBUG_TIME_FORMAT`'s default).
struct CondorTime;

impl FormatTime for CondorTime {
    fn format_time(&self, w: &mut Writer<'_>) -> std::fmt::Result {
        write!(w, "{}", chrono::Local::now().format("%m/%d/%y %H:%M:%S"))
    }
}

/// Where the master logs, per the configuration.
pub fn log_path(config: &Config) -> Option<PathBuf> {
    if let Some(p) = config.string("MASTER_LOG").ok().flatten() {
        return Some(PathBuf::from(p));
    }
    let dir = config.string("LOG").ok().flatten()?;
    Some(Path::new(&dir).join("MasterLog"))
}

/// Sends this process's `tracing` records to the master log. Called once; later calls (an
/// in-process pool started twice) keep the first destination.
pub fn init(config: &Config) -> io::Result<()> {
    let Some(path) = log_path(config) else {
        return Ok(());
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let max = config
        .int("MAX_MASTER_LOG")
        .ok()
        .flatten()
        .or_else(|| config.int("MAX_DEFAULT_LOG").ok().flatten())
        .unwrap_or(10 * 1024 * 1024)
        .max(0) as u64;
    let writer = LogWriter(Arc::new(Mutex::new(RotatingFile::open(path, max)?)));
    let subscriber = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_timer(CondorTime)
        .with_ansi(false)
        .with_target(false)
        .with_level(false)
        .finish();
    let _ = tracing::subscriber::set_global_default(subscriber);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotates_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("MasterLog");
        let mut f = RotatingFile::open(path.clone(), 100).unwrap();
        for _ in 0..5 {
            f.write_record(&[b'x'; 40]).unwrap();
        }
        assert!(dir.path().join("MasterLog.old").exists());
        assert!(std::fs::metadata(&path).unwrap().len() <= 100);
    }
}
