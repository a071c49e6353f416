//! Writing events: the format options (`DEFAULT_USERLOG_FORMAT_OPTIONS`), one event's text in
//! each form, and appending to a log that several processes may write at once.
//!
//! Each event is one `write(2)` on a descriptor opened `O_APPEND`, made under an exclusive
//! `flock` of the log, as HTCondor's writer does (`WriteUserLog::doWriteEvent`): events never
//! interleave, and a reader never sees part of one unless it reads during that write (the
//! reader then waits for the rest, see [`super::reader`]).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::classad::unparse::{json_ad, xml_ad_attrs};

use super::event::Event;
use super::text::{format_body, format_header, SYNC_LINE};
use super::EventLogError;

/// How events are written. The default is HTCondor's: text with ISO dates in local time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LogFormat {
    /// Each event as an XML ClassAd (`<c>...</c>`).
    pub xml: bool,
    /// Each event as a JSON ClassAd (wins over `xml`).
    pub json: bool,
    /// `2024-01-31 12:00:00` rather than the legacy `01/31 12:00:00`.
    pub iso_date: bool,
    /// UTC, marked `Z`, rather than local time (in all three forms).
    pub utc: bool,
    /// Milliseconds in the text form's dates.
    pub sub_second: bool,
}

impl Default for LogFormat {
    fn default() -> Self {
        LogFormat {
            xml: false,
            json: false,
            iso_date: true,
            utc: false,
            sub_second: false,
        }
    }
}

/// The three forms a log can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogSyntax {
    Text,
    Xml,
    Json,
}

impl LogFormat {
    /// The format `DEFAULT_USERLOG_FORMAT_OPTIONS` names: options `XML`, `JSON`, `ISO_DATE`,
    /// `UTC`, `SUB_SECOND` and `LEGACY` (no ISO date, UTC or sub-second), case-insensitive,
    /// separated by commas or spaces, each negated by a leading `!` (`!LEGACY` turns ISO dates
    /// on), applied in order over the default.
    pub fn from_options(options: &str) -> LogFormat {
        LogFormat::default().with_options(options)
    }

    /// This format with the options applied over it (`ULogEvent::parse_opts`).
    pub fn with_options(mut self, options: &str) -> LogFormat {
        for opt in options
            .split([',', ' ', '\t', '\r', '\n'])
            .filter(|o| !o.is_empty())
        {
            let (on, name) = match opt.strip_prefix('!') {
                Some(n) => (false, n),
                None => (true, opt),
            };
            let flag = match name.to_ascii_uppercase().as_str() {
                "XML" => &mut self.xml,
                "JSON" => &mut self.json,
                "ISO_DATE" => &mut self.iso_date,
                "UTC" => &mut self.utc,
                "SUB_SECOND" => &mut self.sub_second,
                "LEGACY" => {
                    if on {
                        self.iso_date = false;
                        self.utc = false;
                        self.sub_second = false;
                    } else {
                        self.iso_date = true;
                    }
                    continue;
                }
                _ => continue,
            };
            *flag = on;
        }
        self
    }

    pub fn syntax(&self) -> LogSyntax {
        if self.json {
            LogSyntax::Json
        } else if self.xml {
            LogSyntax::Xml
        } else {
            LogSyntax::Text
        }
    }
}

/// One event exactly as it goes into a log: in text, header, body and the `...` line; in JSON,
/// the pretty-printed ad and a newline; in XML, the `<c>` element and a newline. Fails for the
/// events HTCondor refuses to write (a disconnect or reconnect without its fields).
pub fn format_event(event: &Event, format: &LogFormat) -> Result<String, EventLogError> {
    let mut out = String::with_capacity(256);
    match format.syntax() {
        LogSyntax::Text => {
            format_header(&mut out, event, format);
            format_body(&mut out, &event.body).map_err(|message| EventLogError::Unwritable {
                number: event.number(),
                message,
            })?;
            out.push_str(SYNC_LINE);
        }
        LogSyntax::Json => {
            let ad = event.to_classad(format.utc);
            json_ad(&mut out, &ad, 0, false);
            out.push('\n');
        }
        LogSyntax::Xml => {
            let ad = event.to_classad(format.utc);
            xml_ad_attrs(&mut out, ad.iter());
        }
    }
    Ok(out)
}

/// An open job event log that events are appended to.
pub struct EventLogWriter {
    path: PathBuf,
    file: File,
    format: LogFormat,
}

impl EventLogWriter {
    /// Opens (creating it if need be) the log at `path` for appending.
    pub fn open(path: impl Into<PathBuf>, format: LogFormat) -> Result<Self, EventLogError> {
        let path = path.into();
        // Never blocking: a FIFO (with no reader, or one that does not read) named as a log
        // must not stall the daemon writing it; a regular file ignores the flag.
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .map_err(|e| EventLogError::io(&path, e))?;
        Ok(EventLogWriter { path, file, format })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn format(&self) -> LogFormat {
        self.format
    }

    /// Appends one event: one write, under an exclusive lock of the file.
    pub fn write(&mut self, event: &Event) -> Result<(), EventLogError> {
        let text = format_event(event, &self.format)?;
        let io = |e| EventLogError::io(&self.path, e);
        let locked = lock_briefly(&self.file).map_err(io)?;
        let written = self.file.write_all(text.as_bytes());
        if locked {
            let _ = self.file.unlock();
        }
        written.map_err(io)
    }
}

/// How long a writer waits for another's lock of a log (a log's owner may hold it as long
/// as they like: the daemon does not wait for them).
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Takes the exclusive lock of `file`, waiting at most [`LOCK_WAIT`]: whether it was
/// taken (past the wait, the event is appended without it, in its one write).
fn lock_briefly(file: &File) -> std::io::Result<bool> {
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(true),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(50));
            }
            Err(std::fs::TryLockError::WouldBlock) => return Ok(false),
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
    }
}

/// Appends one event to the log at `path` (opened, locked, written and closed), as a tool
/// that writes a single event (condor_submit, condor_rm, condor_hold) does.
pub fn append_event(
    path: impl AsRef<Path>,
    format: &LogFormat,
    event: &Event,
) -> Result<(), EventLogError> {
    EventLogWriter::open(path.as_ref(), *format)?.write(event)
}
