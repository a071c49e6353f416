//! Reading logs: a whole file at once, or following one as it grows ([`LogFollower`], what
//! condor_wait needs).
//!
//! The form (text, XML, JSON) is recognised from the file's first character, as the
//! reference's `determineLogType` does. A text event is complete when its `...` line is there,
//! an XML one at its `</c>`, a JSON one at its closing brace: a follower returns complete
//! events only, keeping a partly written last one for the next call.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::classad::json::parse_first_json_ad;

use super::event::Event;
use super::text::parse_event;
use super::writer::LogSyntax;
use super::xml::{next_xml_ad, parse_xml_ad, XmlNext};
use super::EventLogError;

/// Choices for reading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The year of legacy dates (`01/31 12:00:00`), which have none; the current one when not
    /// given, as HTCondor does.
    pub legacy_year: Option<i32>,
}

/// The most a follower reads from its file at a time.
const FILL_CHUNK: u64 = 1 << 20;

/// The longest event a follower takes: past this without the event's end, the bytes are
/// reported as malformed and passed over, so a log that never ends an event is never held
/// whole in memory.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// A place in a log: the byte offset, and the number of the line starting there (1-based), so
/// that errors after a resumed read still name the right line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub offset: u64,
    pub line: u64,
}

impl Default for Position {
    fn default() -> Self {
        Position { offset: 0, line: 1 }
    }
}

/// Reads a log as it grows: remembers where it stopped, and returns the events written since.
#[derive(Debug)]
pub struct LogFollower {
    path: PathBuf,
    /// Where `pending` starts.
    pos: Position,
    /// Bytes read from the file: from `head` on, those not yet part of a returned event
    /// (what comes before is dropped now and then, not at every event).
    pending: Vec<u8>,
    head: usize,
    syntax: Option<LogSyntax>,
    options: ReadOptions,
    /// An error met after events that were returned first; the next call reports it.
    deferred: Option<EventLogError>,
}

/// What the front of the pending bytes holds.
enum Next {
    /// Not a whole event yet.
    Incomplete,
    /// This many bytes of something around the events (an XML prolog) to pass over.
    Skip(usize),
    /// An event (or a malformed one) taking this many bytes.
    Event(usize, Result<Event, EventLogError>),
}

impl LogFollower {
    /// Follows the log at `path` from its start. The file need not exist yet.
    pub fn new(path: impl Into<PathBuf>) -> LogFollower {
        LogFollower::resume(path, Position::default(), ReadOptions::default())
    }

    /// Follows the log from a position an earlier follower reached.
    pub fn resume(path: impl Into<PathBuf>, pos: Position, options: ReadOptions) -> LogFollower {
        LogFollower {
            path: path.into(),
            pos,
            pending: Vec::new(),
            head: 0,
            syntax: None,
            options,
            deferred: None,
        }
    }

    pub fn with_options(mut self, options: ReadOptions) -> LogFollower {
        self.options = options;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the next event starts: everything before it has been returned.
    pub fn position(&self) -> Position {
        self.pos
    }

    /// The form of the log, once it has any content.
    pub fn syntax(&self) -> Option<LogSyntax> {
        self.syntax
    }

    /// Bytes read past the last complete event: a partly written event (or, at the end of a
    /// finished log, a truncated one).
    pub fn pending_bytes(&self) -> usize {
        self.buf().len()
    }

    /// The bytes read and not yet part of a returned event.
    fn buf(&self) -> &[u8] {
        &self.pending[self.head..]
    }

    /// The next complete event, reading what was appended to the file when the events already
    /// read are used up; `Ok(None)` when there is none yet. A malformed event is an error
    /// naming its line, and is skipped: the next call goes on with the event after it.
    pub fn next_event(&mut self) -> Result<Option<Event>, EventLogError> {
        if let Some(e) = self.deferred.take() {
            return Err(e);
        }
        loop {
            if let Some(r) = self.take() {
                return r.map(Some);
            }
            let held = self.buf().len();
            if held > MAX_EVENT_BYTES {
                let line = self.pos.line;
                self.consume(held);
                return Err(self.malformed(
                    line,
                    format!(
                        "no end of event in {held} bytes (an event is at most {MAX_EVENT_BYTES})"
                    ),
                ));
            }
            if self.fill()? == 0 {
                return Ok(None);
            }
        }
    }

    /// Every complete event available now. A malformed event ends the list; when events came
    /// before it, they are returned and the error is the next call's.
    pub fn read_available(&mut self) -> Result<Vec<Event>, EventLogError> {
        let mut events = Vec::new();
        loop {
            match self.next_event() {
                Ok(Some(e)) => events.push(e),
                Ok(None) => return Ok(events),
                Err(e) if events.is_empty() => return Err(e),
                Err(e) => {
                    self.deferred = Some(e);
                    return Ok(events);
                }
            }
        }
    }

    /// Reads more of what the file holds past what was read before (at most [`FILL_CHUNK`]
    /// bytes, so that a big log is never held whole); the number of new bytes.
    fn fill(&mut self) -> Result<usize, EventLogError> {
        let io = |e| EventLogError::io(&self.path, e);
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(io(e)),
        };
        let end = self.pos.offset + self.buf().len() as u64;
        let len = file.metadata().map_err(io)?.len();
        if len < end {
            return Err(EventLogError::Truncated {
                path: self.path.clone(),
                offset: end,
            });
        }
        if len == end {
            return Ok(0);
        }
        if self.syntax.is_none() {
            let mut head = [0u8; 512];
            let n = file.read(&mut head).map_err(io)?;
            self.syntax = detect(&head[..n]);
        }
        file.seek(SeekFrom::Start(end)).map_err(io)?;
        let before = self.pending.len();
        (&mut file)
            .take(FILL_CHUNK)
            .read_to_end(&mut self.pending)
            .map_err(io)?;
        Ok(self.pending.len() - before)
    }

    /// Takes the next whole event off the pending bytes.
    fn take(&mut self) -> Option<Result<Event, EventLogError>> {
        loop {
            let next = match self.syntax? {
                LogSyntax::Text => self.next_text(),
                LogSyntax::Xml => self.next_xml(),
                LogSyntax::Json => self.next_json(),
            };
            match next {
                Next::Incomplete => return None,
                Next::Skip(len) => self.consume(len),
                Next::Event(len, r) => {
                    self.consume(len);
                    return Some(r);
                }
            }
        }
    }

    fn consume(&mut self, len: usize) {
        let lines = self.buf()[..len].iter().filter(|&&c| c == b'\n').count();
        self.head += len;
        // Dropping the front costs a copy of what is left: done once it is most of the buffer.
        if self.head == self.pending.len() {
            self.pending.clear();
            self.head = 0;
        } else if self.head >= 64 * 1024 && self.head * 2 >= self.pending.len() {
            self.pending.drain(..self.head);
            self.head = 0;
        }
        self.pos.offset += len as u64;
        self.pos.line += lines as u64;
    }

    fn malformed(&self, line: u64, message: impl Into<String>) -> EventLogError {
        EventLogError::Malformed {
            path: self.path.clone(),
            line,
            message: message.into(),
        }
    }

    /// A text event: the lines up to a `...` line.
    fn next_text(&self) -> Next {
        let buf = self.buf();
        let mut start = 0; // of the line being looked at
        let mut first = None; // the event's first non-blank line: (offset, line number)
        let mut line = self.pos.line;
        while let Some(nl) = buf[start..].iter().position(|&c| c == b'\n') {
            let end = start + nl + 1;
            let text = &buf[start..end];
            let content = text.strip_suffix(b"\n").unwrap_or(text);
            let content = content.strip_suffix(b"\r").unwrap_or(content);
            if content == b"..." {
                let r = match first {
                    // Nothing but blank lines: a stray `...`.
                    None => Err(self.malformed(line, "\"...\" without an event before it")),
                    Some((from, at)) => {
                        let block = String::from_utf8_lossy(&buf[from..start]);
                        parse_event(&block, at, self.options.legacy_year)
                            .map_err(|e| self.malformed(e.line, e.message))
                    }
                };
                return Next::Event(end, r);
            }
            if first.is_none() && !content.iter().all(u8::is_ascii_whitespace) {
                first = Some((start, line));
            }
            start = end;
            line += 1;
        }
        Next::Incomplete
    }

    /// The longest prefix of the pending bytes that is whole UTF-8 (the rest may be a
    /// character cut short, or bytes that are not UTF-8 at all).
    fn pending_text(&self) -> &str {
        let buf = self.buf();
        match std::str::from_utf8(buf) {
            Ok(s) => s,
            // Valid up to there by construction.
            Err(e) => std::str::from_utf8(&buf[..e.valid_up_to()]).unwrap_or(""),
        }
    }

    /// When the UTF-8 text is used up but bytes that are not UTF-8 follow it, the line
    /// holding them is reported and skipped (an XML or JSON log is text).
    fn not_utf8(&self, text: &str) -> Next {
        let at = text.len();
        let bad = std::str::from_utf8(&self.buf()[at..]).err();
        if bad.and_then(|e| e.error_len()).is_none() {
            return Next::Incomplete;
        }
        let Some(nl) = self.buf()[at..].iter().position(|&c| c == b'\n') else {
            return Next::Incomplete;
        };
        let line = self.line_at(text, at);
        Next::Event(
            at + nl + 1,
            Err(self.malformed(line, "the line is not UTF-8 text")),
        )
    }

    fn line_at(&self, text: &str, offset: usize) -> u64 {
        self.pos.line
            + text.as_bytes()[..offset]
                .iter()
                .filter(|&&c| c == b'\n')
                .count() as u64
    }

    /// Skips a line of something that is not an event, reporting it.
    fn junk(&self, text: &str, at: usize, what: &str) -> Next {
        let Some(nl) = text[at..].find('\n') else {
            return Next::Incomplete;
        };
        let line = self.line_at(text, at);
        let found = text[at..at + nl].trim_end();
        Next::Event(
            at + nl + 1,
            Err(self.malformed(line, format!("expected {what}, found {found:?}"))),
        )
    }

    fn next_xml(&self) -> Next {
        let text = self.pending_text();
        match next_xml_ad(text) {
            XmlNext::Incomplete => self.not_utf8(text),
            XmlNext::Skip(len) => Next::Skip(len),
            XmlNext::Junk(at) => self.junk(text, at, "an XML ClassAd (<c>)"),
            XmlNext::Ad(start, end) => {
                let line = self.line_at(text, start);
                let r = parse_xml_ad(&text[start..end])
                    .and_then(|ad| Event::from_classad(&ad))
                    .map_err(|m| self.malformed(line, m));
                Next::Event(end, r)
            }
        }
    }

    fn next_json(&self) -> Next {
        let text = self.pending_text();
        let start = text.len() - text.trim_start().len();
        if start == text.len() {
            return self.not_utf8(text);
        }
        if !text[start..].starts_with('{') {
            return self.junk(text, start, "a JSON ClassAd ({)");
        }
        let Some(len) = json_object_len(&text[start..]) else {
            return self.not_utf8(text);
        };
        let end = start + len;
        let line = self.line_at(text, start);
        let r = match parse_first_json_ad(&text[start..end]) {
            Ok(ad) => Event::from_classad(&ad).map_err(|m| self.malformed(line, m)),
            Err(e) => Err(self.malformed(line + e.line as u64 - 1, e.message)),
        };
        // The newline after the object belongs to it.
        let end = if text[end..].starts_with('\n') {
            end + 1
        } else {
            end
        };
        Next::Event(end, r)
    }
}

/// The length of the JSON object `s` starts with, when it is all there.
fn json_object_len(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The form of a log from its first bytes: `<` XML, `{` JSON, anything else text.
fn detect(head: &[u8]) -> Option<LogSyntax> {
    match head.iter().find(|c| !c.is_ascii_whitespace())? {
        b'<' => Some(LogSyntax::Xml),
        b'{' => Some(LogSyntax::Json),
        _ => Some(LogSyntax::Text),
    }
}

/// Every complete event of the log at `path` (a partly written last event is left out, as
/// HTCondor's reader leaves it); the first malformed event is an error.
pub fn read_events(path: impl AsRef<Path>) -> Result<Vec<Event>, EventLogError> {
    read_events_with(path, &ReadOptions::default())
}

pub fn read_events_with(
    path: impl AsRef<Path>,
    options: &ReadOptions,
) -> Result<Vec<Event>, EventLogError> {
    let path = path.as_ref();
    if !path.exists() {
        return Err(EventLogError::io(
            path,
            io::Error::new(io::ErrorKind::NotFound, "no such file"),
        ));
    }
    let mut f = LogFollower::resume(path, Position::default(), *options);
    let events = f.read_available()?;
    match f.deferred.take() {
        Some(e) => Err(e),
        None => Ok(events),
    }
}

/// The events of a log held in memory; errors name the source as `name`.
pub fn parse_events(
    name: &str,
    text: &str,
    options: &ReadOptions,
) -> Result<Vec<Event>, EventLogError> {
    let mut f = LogFollower::resume(name, Position::default(), *options);
    f.syntax = detect(text.as_bytes());
    f.pending = text.as_bytes().to_vec();
    let mut events = Vec::new();
    while let Some(r) = f.take() {
        events.push(r?);
    }
    Ok(events)
}
