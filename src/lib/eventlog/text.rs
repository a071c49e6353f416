//! The text form of events: the header line `%03d (%03d.%03d.%03d) <date> `, each event's body
//! as the reference's `formatBody` prints it, and the reverse (`readHeader`, `readEvent`),
//! one event at a time (the block of lines before its `...` line).
//!
//! Reading follows the reference's leniency: optional lines may be missing ("backwards
//! compatibility"), lines after what an event defines are skipped, as its reader skips to the
//! `...` line. What the reference refuses is an error naming the line.

use std::fmt::Write;

use crate::classad::parser::parse_old_ads;
use crate::classad::unparse::expr_to_old_string;
use crate::classad::{parse_ad, ClassAd};

use super::event::*;
use super::time::{format_header_time, parse_header_time};
use super::usage::{format_usage, is_table_header, UsageColumns};
use super::writer::LogFormat;

/// The line that ends every event.
pub const SYNC_LINE: &str = "...\n";

/// The prefix condor_submit's warnings are written with.
const WARNINGS_PREFIX: &str =
    "WARNING: Committed job submission into the queue with the following warning(s): ";

/// Attributes the reference never prints into a log (`ClassAdPrivateAttrs`, `_condor_priv*`).
fn is_private(name: &str) -> bool {
    [
        "Capability",
        "ChildClaimIds",
        "ClaimId",
        "ClaimIdList",
        "ClaimIds",
        "TransferKey",
    ]
    .iter()
    .any(|p| p.eq_ignore_ascii_case(name))
        || name
            .get(..12)
            .is_some_and(|p| p.eq_ignore_ascii_case("_condor_priv"))
}

/// A single-line field as the reference stores it (`set_reason_member`): newlines become `|`,
/// carriage returns spaces, so a field can never end an event early.
fn one_line(s: &str) -> String {
    s.replace('\n', "|").replace('\r', " ")
}

/// At most `n` bytes of `s` (`%.8191s`), cut at a character boundary.
fn at_most(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn rusage(out: &mut String, r: &Rusage) {
    let split = |s: i64| (s / 86400, (s % 86400) / 3600, (s % 3600) / 60, s % 60);
    let (ud, uh, um, us) = split(r.user_secs);
    let (sd, sh, sm, ss) = split(r.sys_secs);
    let _ = write!(
        out,
        "\tUsr {ud} {uh:02}:{um:02}:{us:02}, Sys {sd} {sh:02}:{sm:02}:{ss:02}"
    );
}

/// The `Usr d hh:mm:ss, Sys d hh:mm:ss` string of the ClassAd forms.
pub(crate) fn rusage_string(r: &Rusage) -> String {
    let mut s = String::new();
    rusage(&mut s, r);
    s.split_off(1)
}

fn bytes(out: &mut String, n: f64, what: &str) {
    let _ = writeln!(out, "\t{n:.0}  -  {what}");
}

fn notes(out: &mut String, n: &Option<String>) {
    if let Some(n) = n.as_deref().filter(|n| !n.is_empty()) {
        let _ = writeln!(out, "    {}", at_most(&one_line(n), 8191));
    }
}

fn termination(out: &mut String, exit: &ExitStatus, core_file: &Option<String>, tail: &str) {
    match exit {
        ExitStatus::Code(v) => {
            let _ = write!(out, "\t(1) Normal termination (return value {v})\n{tail}");
        }
        ExitStatus::Signal(s) => {
            let _ = writeln!(out, "\t(0) Abnormal termination (signal {s})");
            match core_file.as_deref().filter(|c| !c.is_empty()) {
                Some(c) => {
                    let _ = write!(out, "\t(1) Corefile in: {}\n{tail}", one_line(c));
                }
                None => {
                    let _ = write!(out, "\t(0) No core file\n{tail}");
                }
            }
        }
    }
}

/// An attribute line of an ad printed into a log: `Name = value` in old syntax (the name as
/// it is, unquoted, as `sPrintAd` writes it).
fn attr_line(out: &mut String, indent: &str, name: &str, e: &crate::classad::Expr) {
    out.push_str(indent);
    out.push_str(name);
    out.push_str(" = ");
    out.push_str(&expr_to_old_string(e));
    out.push('\n');
}

/// An event's header line up to and including the space after the date.
pub(crate) fn format_header(out: &mut String, event: &Event, fmt: &LogFormat) {
    let _ = write!(
        out,
        "{:03} ({:03}.{:03}.{:03}) ",
        event.number(),
        event.cluster,
        event.proc,
        event.subproc
    );
    format_header_time(out, &event.time, fmt);
    out.push(' ');
}

/// An event's body, from the text after the header's date to the line before `...`. `Err`
/// for the events the reference refuses to write (a disconnect or reconnect without the
/// fields its text needs).
pub(crate) fn format_body(out: &mut String, body: &EventBody) -> Result<(), String> {
    match body {
        EventBody::Submit(e) => {
            let _ = writeln!(out, "Job submitted from host: {}", one_line(&e.submit_host));
            notes(out, &e.log_notes);
            notes(out, &e.user_notes);
            if let Some(w) = e.warnings.as_deref().filter(|w| !w.is_empty()) {
                let _ = writeln!(out, "    {WARNINGS_PREFIX}{}", at_most(&one_line(w), 8110));
            }
        }
        EventBody::Execute(e) => {
            let _ = writeln!(out, "Job executing on host: {}", one_line(&e.execute_host));
            if let Some(s) = e.slot_name.as_deref().filter(|s| !s.is_empty()) {
                let _ = writeln!(out, "\tSlotName: {}", one_line(s));
            }
            for (n, v) in e.props.sorted() {
                attr_line(out, "\t", n, v);
            }
        }
        EventBody::ExecutableError(e) => {
            let text = match e.kind {
                ExecErrorKind::NotExecutable => "Job file not executable.",
                ExecErrorKind::BadLink => "Job not properly linked for Condor.",
                ExecErrorKind::Other(_) => "[Bad error number.]",
            };
            let _ = writeln!(out, "({}) {text}", e.kind.code());
        }
        EventBody::Checkpointed(e) => {
            out.push_str("Job was checkpointed.\n");
            rusage(out, &e.run_remote_usage);
            out.push_str("  -  Run Remote Usage\n");
            rusage(out, &e.run_local_usage);
            out.push_str("  -  Run Local Usage\n");
            bytes(out, e.sent_bytes, "Run Bytes Sent By Job For Checkpoint");
        }
        EventBody::JobEvicted(e) => {
            if e.reason_code != 0 {
                let _ = write!(
                    out,
                    "Job was evicted. Code {} Subcode {}\n\t",
                    e.reason_code, e.reason_subcode
                );
            } else {
                out.push_str("Job was evicted.\n\t");
            }
            out.push_str(match e.kind {
                Eviction::Requeued { .. } => "(0) Job terminated and was requeued\n\t",
                Eviction::Checkpointed => "(1) Job was checkpointed.\n\t",
                Eviction::Vacated => "(0) CPU times\n\t",
            });
            rusage(out, &e.run_remote_usage);
            out.push_str("  -  Run Remote Usage\n\t");
            rusage(out, &e.run_local_usage);
            out.push_str("  -  Run Local Usage\n");
            bytes(out, e.sent_bytes, "Run Bytes Sent By Job");
            bytes(out, e.received_bytes, "Run Bytes Received By Job");
            if let Eviction::Requeued { exit, core_file } = &e.kind {
                termination(out, exit, core_file, "");
            }
            if let Some(r) = e.reason.as_deref().filter(|r| !r.is_empty()) {
                let prefix = match e.kind {
                    Eviction::Requeued { .. } => "",
                    _ => "Reason: ",
                };
                let _ = writeln!(out, "\t{prefix}{}", one_line(r));
            }
            format_usage(out, &e.usage);
        }
        EventBody::JobTerminated(e) => {
            out.push_str("Job terminated.\n");
            termination(out, &e.exit, &e.core_file, "\t");
            rusage(out, &e.run_remote_usage);
            out.push_str("  -  Run Remote Usage\n\t");
            rusage(out, &e.run_local_usage);
            out.push_str("  -  Run Local Usage\n\t");
            rusage(out, &e.total_remote_usage);
            out.push_str("  -  Total Remote Usage\n\t");
            rusage(out, &e.total_local_usage);
            out.push_str("  -  Total Local Usage\n");
            bytes(out, e.sent_bytes, "Run Bytes Sent By Job");
            bytes(out, e.received_bytes, "Run Bytes Received By Job");
            bytes(out, e.total_sent_bytes, "Total Bytes Sent By Job");
            bytes(out, e.total_received_bytes, "Total Bytes Received By Job");
            format_usage(out, &e.usage);
        }
        EventBody::ImageSize(e) => {
            let _ = writeln!(out, "Image size of job updated: {}", e.image_size_kb);
            let lines = [
                (e.memory_usage_mb, "MemoryUsage of job (MB)"),
                (e.resident_set_size_kb, "ResidentSetSize of job (KB)"),
                (
                    e.proportional_set_size_kb,
                    "ProportionalSetSize of job (KB)",
                ),
            ];
            for (v, label) in lines {
                if let Some(v) = v.filter(|v| *v >= 0) {
                    let _ = writeln!(out, "\t{v}  -  {label}");
                }
            }
        }
        EventBody::ShadowException(e) => {
            let _ = writeln!(out, "Shadow exception!\n\t{}", one_line(&e.message));
            bytes(out, e.sent_bytes, "Run Bytes Sent By Job");
            bytes(out, e.received_bytes, "Run Bytes Received By Job");
        }
        EventBody::Generic(e) => {
            let _ = writeln!(out, "{}", at_most(&one_line(&e.info), 1023));
        }
        EventBody::JobAborted(e) => {
            out.push_str("Job was aborted.\n");
            if let Some(r) = e.reason.as_deref().filter(|r| !r.is_empty()) {
                let _ = writeln!(out, "\t{}", one_line(r));
            }
        }
        EventBody::JobSuspended(e) => {
            let _ = writeln!(
                out,
                "Job was suspended.\n\tNumber of processes actually suspended: {}",
                e.num_pids
            );
        }
        EventBody::JobUnsuspended => out.push_str("Job was unsuspended.\n"),
        EventBody::JobHeld(e) => {
            out.push_str("Job was held.\n");
            match e.reason.as_deref().filter(|r| !r.is_empty()) {
                Some(r) => {
                    let _ = writeln!(out, "\t{}", one_line(r));
                }
                None => out.push_str("\tReason unspecified\n"),
            }
            let _ = writeln!(out, "\tCode {} Subcode {}", e.code, e.subcode);
        }
        EventBody::JobReleased(e) => {
            out.push_str("Job was released.\n");
            if let Some(r) = e.reason.as_deref().filter(|r| !r.is_empty()) {
                let _ = writeln!(out, "\t{}", one_line(r));
            }
        }
        EventBody::PostScriptTerminated(e) => {
            out.push_str("POST Script terminated.\n");
            match e.exit {
                ExitStatus::Code(v) => {
                    let _ = writeln!(out, "\t(1) Normal termination (return value {v})");
                }
                ExitStatus::Signal(s) => {
                    let _ = writeln!(out, "\t(0) Abnormal termination (signal {s})");
                }
            }
            if let Some(n) = e.dag_node_name.as_deref().filter(|n| !n.is_empty()) {
                let _ = writeln!(out, "    DAG Node: {}", at_most(&one_line(n), 8191));
            }
        }
        EventBody::RemoteError(e) => {
            let _ = writeln!(
                out,
                "{} from {} on {}:",
                if e.critical { "Error" } else { "Message" },
                one_line(&e.daemon_name),
                one_line(&e.execute_host)
            );
            if !e.message.is_empty() {
                // One line per line of the message; a final newline makes no empty line.
                let message = e.message.strip_suffix('\n').unwrap_or(&e.message);
                for line in message.split('\n') {
                    let _ = writeln!(out, "\t{}", line.replace('\r', " "));
                }
            }
            if e.hold_reason_code != 0 {
                let _ = writeln!(
                    out,
                    "\tCode {} Subcode {}",
                    e.hold_reason_code, e.hold_reason_subcode
                );
            }
        }
        EventBody::JobDisconnected(e) => {
            if e.reason.is_empty() || e.startd_addr.is_empty() || e.startd_name.is_empty() {
                return Err("a disconnect event needs a reason, a startd name and address".into());
            }
            let _ = write!(
                out,
                "Job disconnected, attempting to reconnect\n    {}\n    Trying to reconnect to {} {}\n",
                at_most(&one_line(&e.reason), 8191),
                one_line(&e.startd_name),
                one_line(&e.startd_addr)
            );
        }
        EventBody::JobReconnected(e) => {
            if e.startd_addr.is_empty() || e.startd_name.is_empty() || e.starter_addr.is_empty() {
                return Err(
                    "a reconnect event needs a startd name and address and a starter address"
                        .into(),
                );
            }
            let _ = write!(
                out,
                "Job reconnected to {}\n    startd address: {}\n    starter address: {}\n",
                one_line(&e.startd_name),
                one_line(&e.startd_addr),
                one_line(&e.starter_addr)
            );
        }
        EventBody::JobReconnectFailed(e) => {
            if e.reason.is_empty() || e.startd_name.is_empty() {
                return Err("a reconnect-failed event needs a reason and a startd name".into());
            }
            let _ = write!(
                out,
                "Job reconnection failed\n    {}\n    Can not reconnect to {}, rescheduling job\n",
                at_most(&one_line(&e.reason), 8191),
                one_line(&e.startd_name)
            );
        }
        EventBody::JobAdInformation(e) => {
            out.push_str("Job ad information event triggered.\n");
            let mut attrs: Vec<_> = e.ad.iter().filter(|(n, _)| !is_private(n)).collect();
            // Sorted by byte, not case folded (sPrintAd's sort).
            attrs.sort_by(|a, b| a.0.cmp(b.0));
            for (n, v) in attrs {
                attr_line(out, "", n, v);
            }
        }
        EventBody::JobStatusUnknown => out.push_str("The job's remote status is unknown\n"),
        EventBody::JobStatusKnown => out.push_str("The job's remote status is known again\n"),
        EventBody::AttributeUpdate(e) => {
            let (name, value) = (one_line(&e.name), one_line(&e.value));
            match &e.old_value {
                Some(old) => {
                    let _ = writeln!(
                        out,
                        "Changing job attribute {name} from {} to {value}",
                        one_line(old)
                    );
                }
                None => {
                    let _ = writeln!(out, "Setting job attribute {name} to {value}");
                }
            }
        }
        EventBody::PreSkip(e) => {
            out.push_str("PRE script return value is PRE_SKIP value\n");
            let _ = writeln!(out, "    {}", at_most(&one_line(&e.log_notes), 8191));
        }
        EventBody::ClusterSubmit(e) => {
            let _ = writeln!(
                out,
                "Cluster submitted from host: {}",
                one_line(&e.submit_host)
            );
            notes(out, &e.log_notes);
            notes(out, &e.user_notes);
        }
        EventBody::ClusterRemove(e) => {
            let _ = write!(
                out,
                "Cluster removed\n\tMaterialized {} jobs from {} items.",
                e.next_proc_id, e.next_row
            );
            match e.completion {
                Completion::Error(n) => {
                    let _ = writeln!(out, "\tError {n}");
                }
                Completion::Complete => out.push_str("\tComplete\n"),
                Completion::Paused => out.push_str("\tPaused\n"),
                Completion::Incomplete => out.push_str("\tIncomplete\n"),
            }
            if let Some(n) = e.notes.as_deref().filter(|n| !n.is_empty()) {
                let _ = writeln!(out, "\t{}", one_line(n));
            }
        }
        EventBody::FactoryPaused(e) => {
            out.push_str("Job Materialization Paused\n");
            let reason = e.reason.as_deref().unwrap_or("");
            if !reason.is_empty() || e.pause_code != 0 {
                let _ = writeln!(out, "\t{}", one_line(reason));
            }
            if e.pause_code != 0 {
                let _ = writeln!(out, "\tPauseCode {}", e.pause_code);
            }
            if e.hold_code != 0 {
                let _ = writeln!(out, "\tHoldCode {}", e.hold_code);
            }
        }
        EventBody::FactoryResumed(e) => {
            out.push_str("Job Materialization Resumed\n");
            if let Some(r) = e.reason.as_deref().filter(|r| !r.is_empty()) {
                let _ = writeln!(out, "\t{}", one_line(r));
            }
        }
        EventBody::FileTransfer(e) => {
            let _ = writeln!(out, "{}", e.kind.text());
            if let Some(d) = e.queueing_delay {
                let _ = writeln!(out, "\tSeconds spent in queue: {d}");
            }
            if let Some(h) = e.host.as_deref().filter(|h| !h.is_empty()) {
                let _ = writeln!(out, "\tTransferring to host: {}", one_line(h));
            }
        }
        EventBody::Future(e) => {
            let _ = writeln!(out, "{}", one_line(&e.head));
            // A payload line reading "..." would end the event early.
            for line in e.payload.split_inclusive('\n') {
                if line.trim_end_matches(['\r', '\n']) != "..." {
                    out.push_str(line);
                }
            }
            if !out.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    Ok(())
}

/// Why a block of text is not an event, and on which line.
#[derive(Debug)]
pub(crate) struct BadEvent {
    pub line: u64,
    pub message: String,
}

/// The lines of one event's body, the first being what follows the header's date.
struct Body<'a> {
    lines: Vec<&'a str>,
    next: usize,
    first_line: u64,
}

impl<'a> Body<'a> {
    /// The next line without its newline (`chomp`).
    fn next(&mut self) -> Option<&'a str> {
        let l = *self.lines.get(self.next)?;
        self.next += 1;
        Some(l)
    }

    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.next).copied()
    }

    /// The number of the line last returned (or of the header before any).
    fn line_no(&self) -> u64 {
        self.first_line + self.next.saturating_sub(1) as u64
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, BadEvent> {
        Err(BadEvent {
            line: self.line_no(),
            message: message.into(),
        })
    }

    /// The next line, which must start with `prefix`; the rest of it.
    fn value(&mut self, prefix: &str) -> Result<&'a str, BadEvent> {
        match self.next() {
            Some(l) if l.starts_with(prefix) => Ok(&l[prefix.len()..]),
            Some(l) => self.fail(format!("expected {prefix:?}, found {l:?}")),
            None => self.fail(format!("expected {prefix:?}, found the end of the event")),
        }
    }

    /// The next line, required.
    fn required(&mut self, what: &str) -> Result<&'a str, BadEvent> {
        match self.next() {
            Some(l) => Ok(l),
            None => self.fail(format!("expected {what}, found the end of the event")),
        }
    }
}

/// `sscanf`-style matching: whitespace in the pattern matches any run of whitespace
/// (including none), other characters must match exactly.
fn lit<'s>(s: &'s str, pattern: &str) -> Option<&'s str> {
    let mut s = s;
    for c in pattern.chars() {
        if c.is_ascii_whitespace() {
            s = s.trim_start_matches(|c: char| c.is_ascii_whitespace());
        } else {
            s = s.strip_prefix(c)?;
        }
    }
    Some(s)
}

/// `%d` / `%lld`: optional whitespace, sign, digits.
fn int(s: &str) -> Option<(i64, &str)> {
    let s = s.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let sign = usize::from(s.starts_with(['-', '+']));
    let n = s[sign..].bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    Some((s[..sign + n].parse().ok()?, &s[sign + n..]))
}

fn int32(s: &str) -> Option<(i32, &str)> {
    int(s).map(|(n, r)| (n as i32, r))
}

/// `%lf`: optional whitespace and a decimal number.
fn float(s: &str) -> Option<(f64, &str)> {
    let s = s.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let b = s.as_bytes();
    let mut i = usize::from(b.first().is_some_and(|c| matches!(c, b'-' | b'+')));
    let start = i;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    if i == start {
        return None;
    }
    if i < b.len() && matches!(b[i], b'e' | b'E') {
        let mut j = i + 1;
        if j < b.len() && matches!(b[j], b'-' | b'+') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            i = j;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    Some((s[..i].parse().ok()?, &s[i..]))
}

/// `\tUsr %d %d:%d:%d, Sys %d %d:%d:%d`
fn parse_rusage(line: &str) -> Option<Rusage> {
    fn secs(s: &str) -> Option<(i64, &str)> {
        let (d, s) = int(s)?;
        let (h, s) = int(s)?;
        let (m, s) = int(lit(s, ":")?)?;
        let (sec, s) = int(lit(s, ":")?)?;
        Some((d * 86400 + h * 3600 + m * 60 + sec, s))
    }
    let (user_secs, s) = secs(lit(line, " Usr")?)?;
    let (sys_secs, _) = secs(lit(s, ", Sys")?)?;
    Some(Rusage {
        user_secs,
        sys_secs,
    })
}

/// A string with its leading and trailing whitespace removed (`trim`).
fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii_whitespace())
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

impl Body<'_> {
    fn rusage(&mut self) -> Result<Rusage, BadEvent> {
        let line = self.required("a CPU usage line")?;
        match parse_rusage(line) {
            Some(r) => Ok(r),
            None => self.fail(format!(
                "expected a CPU usage line (Usr ..., Sys ...), found {line:?}"
            )),
        }
    }

    /// An optional `\t%lf  -  <what>` line.
    fn bytes(&mut self, what: &str) -> Option<f64> {
        let line = self.peek()?;
        let (n, rest) = float(line)?;
        lit(rest, "  -  ")?.starts_with(what).then(|| {
            self.next += 1;
            n
        })
    }

    /// `\t(1) Normal termination (return value %d)`, or `\t(0) Abnormal termination (signal
    /// %d)` followed by a core file line.
    fn termination(&mut self) -> Result<(ExitStatus, Option<String>), BadEvent> {
        let line = self.required("a termination line")?;
        let parsed = lit(line, " (").and_then(int).and_then(|(normal, rest)| {
            let rest = lit(rest, ") ")?;
            if normal != 0 {
                let (v, _) = int32(lit(rest, "Normal termination (return value")?)?;
                Some(ExitStatus::Code(v))
            } else {
                let (s, _) = int32(lit(rest, "Abnormal termination (signal")?)?;
                Some(ExitStatus::Signal(s))
            }
        });
        let Some(exit) = parsed else {
            return self.fail(format!("expected a termination line, found {line:?}"));
        };
        let mut core = None;
        if let ExitStatus::Signal(_) = exit {
            let line = trim(self.required("a core file line")?);
            if let Some(c) = line.strip_prefix("(1) Corefile in: ") {
                core = Some(c.to_string());
            } else if !line.starts_with("(0)") {
                return self.fail(format!("expected a core file line, found {line:?}"));
            }
        }
        Ok((exit, core))
    }

    /// The resource table, if the next line starts one.
    fn usage(&mut self) -> Vec<ResourceUsage> {
        let Some(header) = self.peek().filter(|l| is_table_header(l)) else {
            return Vec::new();
        };
        self.next += 1;
        let cols = UsageColumns::from_header(header);
        let mut rows = Vec::new();
        while let Some(row) = self.peek().and_then(|l| cols.parse_row(l)) {
            self.next += 1;
            rows.push(row);
        }
        rows
    }

    /// Submit notes: `[...]` structured notes, `DAG Node:` and unmarked lines are the log
    /// notes then the user notes; `WARNING:` lines the warnings.
    fn submit_notes(&mut self) -> (Option<String>, Option<String>, Option<String>) {
        let (mut log, mut user, mut warnings) = (None, None, None);
        let mut lineno = 0;
        while let Some(l) = self.next() {
            lineno += 1;
            let l = trim(l);
            if l.starts_with('[') || l.starts_with("DAG Node: ") {
                log = Some(l.to_string());
            } else if let Some(w) = l.strip_prefix("WARNING: ") {
                warnings = Some(
                    w.strip_prefix(&WARNINGS_PREFIX[9..])
                        .unwrap_or(l)
                        .to_string(),
                );
            } else if lineno == 1 {
                log = Some(l.to_string());
            } else if lineno == 2 {
                user = Some(l.to_string());
            }
        }
        (log, user, warnings)
    }
}

fn parse_body(number: u32, b: &mut Body<'_>) -> Result<EventBody, BadEvent> {
    use number::*;
    Ok(match number {
        SUBMIT => {
            let host = b.value("Job submitted from host: ")?.to_string();
            let (log_notes, user_notes, warnings) = b.submit_notes();
            EventBody::Submit(Submit {
                submit_host: host,
                log_notes,
                user_notes,
                warnings,
            })
        }
        EXECUTE => {
            let execute_host = b.value("Job executing on host: ")?.to_string();
            let mut e = Execute {
                execute_host,
                ..Default::default()
            };
            if let Some(slot) = b.peek().and_then(|l| l.strip_prefix("\tSlotName:")) {
                b.next += 1;
                let slot = trim(slot);
                let slot = slot
                    .strip_prefix('"')
                    .and_then(|s| s.strip_suffix('"'))
                    .unwrap_or(slot);
                e.slot_name = Some(slot.to_string());
            }
            // Lines that are not `Name = value` are skipped, as the reference skips them.
            while let Some(l) = b.next() {
                if let Ok(ads) = parse_old_ads(trim(l)) {
                    for (n, v) in ads.iter().flat_map(|a| a.iter()) {
                        e.props.insert(n, v.clone());
                    }
                }
            }
            EventBody::Execute(e)
        }
        EXECUTABLE_ERROR => {
            let rest = b.value("(")?;
            let Some((n, _)) = int32(rest).filter(|(_, r)| r.starts_with(')')) else {
                return b.fail(format!("expected (<error number>), found {rest:?}"));
            };
            EventBody::ExecutableError(ExecutableError {
                kind: ExecErrorKind::from_code(n),
            })
        }
        CHECKPOINTED => {
            b.value("Job was checkpointed.")?;
            let run_remote_usage = b.rusage()?;
            let run_local_usage = b.rusage()?;
            let sent_bytes = b
                .bytes("Run Bytes Sent By Job For Checkpoint")
                .unwrap_or(0.0);
            EventBody::Checkpointed(Checkpointed {
                run_remote_usage,
                run_local_usage,
                sent_bytes,
            })
        }
        JOB_EVICTED => parse_evicted(b)?,
        JOB_TERMINATED => {
            b.value("Job terminated.")?;
            let (exit, core_file) = b.termination()?;
            let mut e = JobTerminated {
                exit,
                core_file,
                run_remote_usage: b.rusage()?,
                run_local_usage: b.rusage()?,
                total_remote_usage: b.rusage()?,
                total_local_usage: b.rusage()?,
                ..Default::default()
            };
            // The byte counts, in any order, then the table.
            loop {
                if let Some(n) = b.bytes("Run Bytes Sent By Job") {
                    e.sent_bytes = n;
                } else if let Some(n) = b.bytes("Run Bytes Received By Job") {
                    e.received_bytes = n;
                } else if let Some(n) = b.bytes("Total Bytes Sent By Job") {
                    e.total_sent_bytes = n;
                } else if let Some(n) = b.bytes("Total Bytes Received By Job") {
                    e.total_received_bytes = n;
                } else {
                    break;
                }
            }
            e.usage = b.usage();
            EventBody::JobTerminated(e)
        }
        IMAGE_SIZE => {
            let rest = b.value("Image size of job updated: ")?;
            let Some((image_size_kb, _)) = int(rest) else {
                return b.fail(format!("expected an image size, found {rest:?}"));
            };
            let mut e = ImageSize {
                image_size_kb,
                resident_set_size_kb: None,
                ..Default::default()
            };
            // `<number>  -  <Label> ...` lines, until one that is not.
            while let Some(l) = b.peek() {
                let Some((v, rest)) = int(l) else { break };
                if !rest.starts_with(|c: char| c.is_ascii_whitespace()) {
                    break;
                }
                let Some(label) = lit(rest, " -") else { break };
                let label = trim(label).split(|c: char| c.is_ascii_whitespace()).next();
                let slot = match label.map(str::to_ascii_lowercase).as_deref() {
                    Some("memoryusage") => &mut e.memory_usage_mb,
                    Some("residentsetsize") => &mut e.resident_set_size_kb,
                    Some("proportionalsetsize") => &mut e.proportional_set_size_kb,
                    _ => break,
                };
                *slot = Some(v);
                b.next += 1;
            }
            EventBody::ImageSize(e)
        }
        SHADOW_EXCEPTION => {
            b.value("Shadow exception!")?;
            let message = b.next().map(trim).unwrap_or("").to_string();
            let sent_bytes = b.bytes("Run Bytes Sent By Job").unwrap_or(0.0);
            let received_bytes = b.bytes("Run Bytes Received By Job").unwrap_or(0.0);
            EventBody::ShadowException(ShadowException {
                message,
                sent_bytes,
                received_bytes,
            })
        }
        GENERIC => {
            let info = b.required("the event's text")?;
            if info.len() >= 1024 {
                return b.fail("a generic event's text must be shorter than 1024 bytes");
            }
            EventBody::Generic(Generic {
                info: info.to_string(),
            })
        }
        JOB_ABORTED => {
            b.value("Job was aborted")?;
            let reason = b.next().map(trim).and_then(non_empty);
            EventBody::JobAborted(JobAborted { reason })
        }
        JOB_SUSPENDED => {
            b.value("Job was suspended.")?;
            let line = b.required("the number of suspended processes")?;
            let Some((num_pids, _)) =
                lit(line, "\tNumber of processes actually suspended:").and_then(int32)
            else {
                return b.fail(format!(
                    "expected \"Number of processes actually suspended: <n>\", found {line:?}"
                ));
            };
            EventBody::JobSuspended(JobSuspended { num_pids })
        }
        JOB_UNSUSPENDED => {
            b.value("Job was unsuspended.")?;
            EventBody::JobUnsuspended
        }
        JOB_HELD => {
            b.value("Job was held.")?;
            let mut e = JobHeld::default();
            if let Some(l) = b.next() {
                let l = trim(l);
                if l != "Reason unspecified" {
                    e.reason = non_empty(l);
                }
                let codes = b.peek().and_then(|l| {
                    let (code, r) = int32(lit(l, "\tCode")?)?;
                    let (subcode, _) = int32(lit(r, " Subcode")?)?;
                    Some((code, subcode))
                });
                if let Some((code, subcode)) = codes {
                    b.next += 1;
                    (e.code, e.subcode) = (code, subcode);
                }
            }
            EventBody::JobHeld(e)
        }
        JOB_RELEASED => {
            b.value("Job was released.")?;
            let reason = b.next().map(trim).and_then(non_empty);
            EventBody::JobReleased(JobReleased { reason })
        }
        POST_SCRIPT_TERMINATED => {
            b.value("POST Script terminated.")?;
            let line = b.required("a termination line")?;
            let exit = lit(line, " (").and_then(int).and_then(|(normal, rest)| {
                let rest = lit(rest, ") ")?;
                if normal == 1 {
                    int32(lit(rest, "Normal termination (return value")?)
                        .map(|(v, _)| ExitStatus::Code(v))
                } else {
                    int32(lit(rest, "Abnormal termination (signal")?)
                        .map(|(s, _)| ExitStatus::Signal(s))
                }
            });
            let Some(exit) = exit else {
                return b.fail(format!("expected a termination line, found {line:?}"));
            };
            let dag_node_name = b
                .next()
                .map(trim)
                .and_then(|l| l.strip_prefix("DAG Node: "))
                .map(str::to_string);
            EventBody::PostScriptTerminated(PostScriptTerminated {
                exit,
                dag_node_name,
            })
        }
        REMOTE_ERROR => parse_remote_error(b)?,
        JOB_DISCONNECTED => {
            b.required("the event's first line")?;
            let reason = b.required("the disconnect reason")?;
            let Some(reason) = reason.strip_prefix("    ").filter(|r| !r.is_empty()) else {
                return b.fail(format!("expected an indented reason, found {reason:?}"));
            };
            let who = b.value("    Trying to reconnect to ")?;
            let Some((name, addr)) = who.split_once(' ') else {
                return b.fail(format!(
                    "expected \"<startd name> <address>\", found {who:?}"
                ));
            };
            EventBody::JobDisconnected(JobDisconnected {
                reason: reason.to_string(),
                startd_name: name.to_string(),
                startd_addr: addr.to_string(),
            })
        }
        JOB_RECONNECTED => {
            let startd_name = b.value("Job reconnected to ")?.to_string();
            let startd_addr = b.value("    startd address: ")?.to_string();
            let starter_addr = b.value("    starter address: ")?.to_string();
            EventBody::JobReconnected(JobReconnected {
                startd_name,
                startd_addr,
                starter_addr,
            })
        }
        JOB_RECONNECT_FAILED => {
            b.required("the event's first line")?;
            let reason = b.required("the reason")?;
            let Some(reason) = reason.strip_prefix("    ").filter(|r| !r.is_empty()) else {
                return b.fail(format!("expected an indented reason, found {reason:?}"));
            };
            let who = b.value("    Can not reconnect to ")?;
            let Some((name, _)) = who.split_once(',') else {
                return b.fail(format!(
                    "expected \"<startd name>, rescheduling job\", found {who:?}"
                ));
            };
            EventBody::JobReconnectFailed(JobReconnectFailed {
                reason: reason.to_string(),
                startd_name: name.to_string(),
            })
        }
        JOB_AD_INFORMATION => {
            b.value("Job ad information event triggered.")?;
            let mut ad = ClassAd::new();
            while let Some(l) = b.next() {
                match parse_old_ads(l) {
                    Ok(ads) => {
                        for (n, v) in ads.iter().flat_map(|a| a.iter()) {
                            ad.insert(n, v.clone());
                        }
                    }
                    Err(e) => return b.fail(format!("expected Name = value: {}", e.message)),
                }
            }
            EventBody::JobAdInformation(JobAdInformation { ad })
        }
        JOB_STATUS_UNKNOWN => {
            b.value("The job's remote status is unknown")?;
            EventBody::JobStatusUnknown
        }
        JOB_STATUS_KNOWN => {
            b.value("The job's remote status is known again")?;
            EventBody::JobStatusKnown
        }
        ATTRIBUTE_UPDATE => {
            let line = b.required("the attribute change")?;
            let parsed = if let Some(rest) = line.strip_prefix("Changing job attribute ") {
                rest.split_once(" from ").and_then(|(name, rest)| {
                    let (old, new) = rest.split_once(" to ")?;
                    Some((name, new, Some(old.to_string())))
                })
            } else if let Some(rest) = line.strip_prefix("Setting job attribute ") {
                rest.split_once(" to ").map(|(name, new)| (name, new, None))
            } else {
                None
            };
            let Some((name, value, old_value)) = parsed else {
                return b.fail(format!("expected \"Changing job attribute ...\" or \"Setting job attribute ...\", found {line:?}"));
            };
            EventBody::AttributeUpdate(AttributeUpdate {
                name: name.to_string(),
                value: value.to_string(),
                old_value,
            })
        }
        PRESKIP => {
            b.required("the event's first line")?;
            let notes = trim(b.required("the DAG node notes")?);
            if notes.is_empty() {
                return b.fail("expected the DAG node notes, found an empty line".to_string());
            }
            EventBody::PreSkip(PreSkip {
                log_notes: notes.to_string(),
            })
        }
        CLUSTER_SUBMIT => {
            let host = b.value("Cluster submitted from host: ")?.to_string();
            let (log_notes, user_notes, _) = b.submit_notes();
            EventBody::ClusterSubmit(ClusterSubmit {
                submit_host: host,
                log_notes,
                user_notes,
            })
        }
        CLUSTER_REMOVE => {
            let mut e = ClusterRemove::default();
            let mut line = b.next();
            // Forgiving about the banner's wording, as the reference is.
            if line.is_some_and(|l| l.contains("remove") || l.contains("Remove")) {
                line = b.next();
            }
            if let Some(l) = line {
                let mut p = trim(l);
                if let Some((jobs, (items, rest))) = lit(p, "Materialized")
                    .and_then(int32)
                    .and_then(|(j, r)| Some((j, int32(lit(r, " jobs from")?)?)))
                {
                    if let Some(rest) = lit(rest, " items.") {
                        (e.next_proc_id, e.next_row) = (jobs, items);
                        p = trim(rest);
                    }
                }
                let lower = p.to_ascii_lowercase();
                e.completion = if lower.starts_with("error") {
                    Completion::from_code(int32(&p[5..]).map_or(-1, |(n, _)| n).min(-1))
                } else if lower.starts_with("complete") {
                    Completion::Complete
                } else if lower.starts_with("paused") {
                    Completion::Paused
                } else {
                    Completion::Incomplete
                };
                e.notes = b.next().map(trim).and_then(non_empty);
            }
            EventBody::ClusterRemove(e)
        }
        FACTORY_PAUSED => {
            let mut e = FactoryPaused::default();
            let mut line = b.next();
            if line.is_some_and(|l| l.contains("pause") || l.contains("Pause")) {
                line = b.next();
            }
            let code = |l: &str, what: &str| lit(l, what).and_then(int32).map(|(n, _)| n);
            let mut pending = line;
            if let Some(l) = line {
                if code(l, " PauseCode").is_none() && code(l, " HoldCode").is_none() {
                    e.reason = non_empty(l.trim_start_matches(|c: char| c.is_ascii_whitespace()));
                    pending = b.next();
                }
            }
            while let Some(l) = pending {
                if let Some(n) = code(l, " PauseCode") {
                    e.pause_code = n;
                } else if let Some(n) = code(l, " HoldCode") {
                    e.hold_code = n;
                } else {
                    break;
                }
                pending = b.next();
            }
            EventBody::FactoryPaused(e)
        }
        FACTORY_RESUMED => {
            let mut line = b.next();
            if line.is_some_and(|l| l.contains("resume") || l.contains("Resume")) {
                line = b.next();
            }
            let reason = line
                .map(|l| l.trim_start_matches(|c: char| c.is_ascii_whitespace()))
                .and_then(non_empty);
            EventBody::FactoryResumed(FactoryResumed { reason })
        }
        FILE_TRANSFER => {
            let line = b.required("the transfer phase")?;
            let Some(kind) = FileTransferKind::ALL.into_iter().find(|k| k.text() == line) else {
                return b.fail(format!("expected a file transfer phase, found {line:?}"));
            };
            let mut e = FileTransfer {
                kind,
                queueing_delay: None,
                host: None,
            };
            if let Some(d) = b
                .peek()
                .and_then(|l| l.strip_prefix("\tSeconds spent in queue: "))
            {
                b.next += 1;
                match d.parse() {
                    Ok(d) => e.queueing_delay = Some(d),
                    Err(_) => return b.fail(format!("expected a number of seconds, found {d:?}")),
                }
            }
            if let Some(h) = b
                .peek()
                .and_then(|l| l.strip_prefix("\tTransferring to host: "))
            {
                b.next += 1;
                e.host = Some(h.to_string());
            }
            EventBody::FileTransfer(e)
        }
        number => {
            let head = b.next().unwrap_or("").to_string();
            let mut payload = String::new();
            while let Some(l) = b.next() {
                payload.push_str(l);
                payload.push('\n');
            }
            EventBody::Future(FutureEvent {
                number,
                head,
                payload,
            })
        }
    })
}

fn parse_evicted(b: &mut Body<'_>) -> Result<EventBody, BadEvent> {
    let first = b.value("Job was evicted.")?;
    let mut e = JobEvicted::default();
    if let Some((code, subcode)) = lit(first, " Code")
        .and_then(int32)
        .and_then(|(c, r)| Some((c, int32(lit(r, " Subcode")?)?.0)))
    {
        (e.reason_code, e.reason_subcode) = (code, subcode);
    }
    let line = b.required("the kind of eviction")?;
    let Some((ckpt, what)) = lit(line, " (")
        .and_then(int)
        .and_then(|(n, r)| Some((n, lit(r, ") ")?)))
    else {
        return b.fail(format!(
            "expected \"(0) CPU times\" or the like, found {line:?}"
        ));
    };
    let requeued = what.starts_with("Job terminated and was requeued");
    e.run_remote_usage = b.rusage()?;
    e.run_local_usage = b.rusage()?;
    e.kind = if ckpt != 0 {
        Eviction::Checkpointed
    } else {
        Eviction::Vacated
    };
    let (Some(sent), Some(received)) = (
        b.bytes("Run Bytes Sent By Job"),
        b.bytes("Run Bytes Received By Job"),
    ) else {
        // Logs from before the byte counts end here.
        if requeued {
            e.kind = Eviction::Requeued {
                exit: ExitStatus::Code(0),
                core_file: None,
            };
        }
        return Ok(EventBody::JobEvicted(e));
    };
    (e.sent_bytes, e.received_bytes) = (sent, received);
    if requeued {
        let (exit, core_file) = b.termination()?;
        e.kind = Eviction::Requeued { exit, core_file };
    }
    if let Some(l) = b.peek().filter(|l| !is_table_header(l)) {
        b.next += 1;
        e.reason = match l.strip_prefix("\tReason: ") {
            Some(r) => non_empty(r),
            None => non_empty(trim(l)),
        };
    }
    e.usage = b.usage();
    Ok(EventBody::JobEvicted(e))
}

fn parse_remote_error(b: &mut Body<'_>) -> Result<EventBody, BadEvent> {
    let line = trim(b.required("the error's origin")?);
    let Some((kind, rest)) = line.split_once(" from ") else {
        return b.fail(format!(
            "expected \"Error from <daemon> on <host>:\", found {line:?}"
        ));
    };
    let rest = trim(rest);
    let (daemon, host) = match rest.find(" on ") {
        Some(i) if i > 0 => (trim(&rest[..i]), trim(&rest[i + 4..])),
        _ => ("", rest),
    };
    let mut e = RemoteError {
        daemon_name: daemon.to_string(),
        execute_host: host.strip_suffix(':').unwrap_or(host).to_string(),
        critical: !matches!(trim(kind), "Warning" | "Message"),
        ..Default::default()
    };
    let mut message: Vec<&str> = Vec::new();
    while let Some(l) = b.next() {
        let l = l.strip_prefix('\t').unwrap_or(l);
        let codes = lit(l, "Code")
            .and_then(int32)
            .and_then(|(c, r)| Some((c, int32(lit(r, " Subcode")?)?.0)));
        if let Some((code, subcode)) = codes {
            (e.hold_reason_code, e.hold_reason_subcode) = (code, subcode);
            break;
        }
        message.push(l);
    }
    e.message = message.join("\n");
    Ok(EventBody::RemoteError(e))
}

/// Reads one event from its lines (without the `...` line); `first_line` is the number of the
/// header line in the file.
pub(crate) fn parse_event(
    block: &str,
    first_line: u64,
    legacy_year: Option<i32>,
) -> Result<Event, BadEvent> {
    let mut lines = block.split('\n').collect::<Vec<_>>();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let lines: Vec<&str> = lines
        .into_iter()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let header = lines.first().copied().unwrap_or("");
    let bad = |message: String| BadEvent {
        line: first_line,
        message,
    };
    // The event number is exactly three digits and a space.
    let b = header.as_bytes();
    if b.len() < 4 || !b[..3].iter().all(u8::is_ascii_digit) || b[3] != b' ' {
        return Err(bad(format!(
            "expected an event header like \"000 (123.000.000) 2024-01-31 12:00:00 ...\", found {header:?}"
        )));
    }
    let number: u32 = header[..3].parse().unwrap_or(0);
    let ids = || -> Option<(i32, i32, i32, &str)> {
        let r = header[3..].strip_prefix(" (")?;
        let (cluster, r) = int32(r)?;
        let (proc, r) = int32(r.strip_prefix('.')?)?;
        let (subproc, r) = int32(r.strip_prefix('.')?)?;
        Some((cluster, proc, subproc, r.strip_prefix(") ")?))
    };
    let Some((cluster, proc, subproc, rest)) = ids() else {
        return Err(bad(format!(
            "expected (cluster.proc.subproc) after the event number, found {header:?}"
        )));
    };
    let (time, first) = parse_header_time(rest, legacy_year).map_err(bad)?;
    let mut body_lines = Vec::with_capacity(lines.len());
    body_lines.push(first);
    body_lines.extend_from_slice(&lines[1..]);
    let mut body = Body {
        lines: body_lines,
        next: 0,
        first_line,
    };
    let body = parse_body(number, &mut body)?;
    Ok(Event {
        cluster,
        proc,
        subproc,
        time,
        body,
    })
}

/// The ad a `[...]` structured note holds, or the DAG node a `DAG Node:` note names.
pub(crate) fn structured_notes(log_notes: &str) -> Option<ClassAd> {
    if log_notes.starts_with('[') {
        return parse_ad(log_notes).ok();
    }
    let node = log_notes.strip_prefix("DAG Node: ")?;
    let mut ad = ClassAd::new();
    ad.insert("DAGNodeName", crate::classad::Expr::lit(trim(node)));
    Some(ad)
}
