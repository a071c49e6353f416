//! Why a submit description was refused, and the text `condor_submit` prints for it.
//!
//! HTCondor reports submit failures from three places, and each has its own shape on stderr:
//! the parse loop (`ERROR: on Line N of FILE: ...` followed by the error stack and
//! `ERROR: Failed to parse command file (line N).`), the job-ad builder (`ERROR: <message>` for
//! each entry of its error stack) and `EXCEPT` inside macro expansion (`ERROR at Queue statement
//! on Line N: ...`). [`SubmitError::condor_submit_text`] reproduces each exactly.

use std::fmt;

/// One entry of HTCondor's `CondorError` stack: `Submit:<code>:<message>`. Code 0 is a
/// warning; any other code an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackEntry {
    pub code: i32,
    /// The message as HTCondor formats it, trailing newline included.
    pub message: String,
}

impl StackEntry {
    pub fn new(code: i32, message: impl Into<String>) -> StackEntry {
        StackEntry {
            code,
            message: message.into(),
        }
    }
}

/// The text of an error stack as `CondorError::getFullText()` writes it: newest first, entries
/// separated by `|`.
pub fn stack_text(stack: &[StackEntry]) -> String {
    let mut out = String::new();
    for (i, e) in stack.iter().rev().enumerate() {
        if i > 0 {
            out.push('|');
        }
        out.push_str(&format!("Submit:{}:{}", e.code, e.message));
    }
    out
}

/// Where an `EXCEPT` (a fatal macro-expansion error) happened, for its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbortPlace {
    /// While reading the submit file, at this line.
    Reading { line: u32 },
    /// While making the jobs of the queue statement on this line.
    Queue {
        line: u32,
        step: i64,
        item_index: i64,
    },
    /// While making the jobs of the `-queue` command-line statement.
    QueueArgument { step: i64, item_index: i64 },
}

/// A submit description that cannot be turned into jobs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubmitError {
    /// The file (or an included file) is not valid submit syntax, or its queue statement is
    /// not valid: HTCondor's parse loop failed at `line` of `file`. `message` may be empty
    /// (a line that is neither an assignment nor a queue statement); `stack` holds the
    /// details HTCondor pushed on its error stack.
    #[error("on Line {line} of {file}: {message}")]
    Parse {
        file: String,
        line: u32,
        message: String,
        stack: Vec<StackEntry>,
    },
    /// An `-append` line (numbered from 1) could not be parsed.
    #[error("Failed to parse -a argument line (#{line}).")]
    Append { line: u32, stack: Vec<StackEntry> },
    /// The file is a DAG input file, not a submit description.
    #[error("A DAG file was provided. Please provide a submit file or use condor_submit_dag.")]
    DagFile,
    /// Making the job ad failed (HTCondor's `push_error`). `message` is the newest error,
    /// without its trailing newline; `stack` holds every entry, warnings included.
    #[error("{message}")]
    Job {
        cluster: i64,
        proc: i64,
        message: String,
        stack: Vec<StackEntry>,
    },
    /// A macro function failed fatally (HTCondor `EXCEPT`s: `$INT()` of a non-number, ...).
    #[error("{message}")]
    Abort { message: String, place: AbortPlace },
    /// The command line is not valid (`-queue` twice, a bad `name=value`, ...).
    #[error("{0}")]
    CommandLine(String),
    /// A file could not be read.
    #[error("Failed to open command file ({file}) ({reason})")]
    Open { file: String, reason: String },
}

impl SubmitError {
    /// Exactly what `condor_submit` writes to stderr for this error (it then exits with 1).
    pub fn condor_submit_text(&self) -> String {
        match self {
            SubmitError::Parse {
                file,
                line,
                message,
                stack,
            } => format!(
                "\nERROR: on Line {line} of {file}: {message}\n{}\nERROR: Failed to parse command file (line {line}).\n",
                stack_text(stack)
            ),
            SubmitError::Append { line, stack } => {
                let mut s = String::new();
                if !stack.is_empty() {
                    s.push_str(&stack_text(stack));
                    s.push('\n');
                }
                s.push_str(&format!(
                    "\nERROR: Failed to parse -a argument line (#{line}).\n"
                ));
                s
            }
            SubmitError::DagFile => format!("\nERROR: {self}\n"),
            SubmitError::Job { stack, .. } => {
                let mut s = String::new();
                for e in stack.iter().rev() {
                    let kind = if e.code != 0 { "ERROR" } else { "WARNING" };
                    s.push_str(kind);
                    s.push_str(": ");
                    s.push_str(&e.message);
                    if !e.message.ends_with('\n') {
                        s.push('\n');
                    }
                }
                s
            }
            SubmitError::Abort { message, place } => match place {
                AbortPlace::Reading { line } => {
                    format!("ERROR on Line {line} of submit file: {message}\n")
                }
                AbortPlace::Queue {
                    line,
                    step,
                    item_index,
                } => format!(
                    "ERROR at Queue statement on Line {line}: {message}\n\t at Step {step}, ItemIndex {item_index}\n"
                ),
                AbortPlace::QueueArgument { step, item_index } => format!(
                    "ERROR with -queue argument: {message}\n\t at Step {step}, ItemIndex {item_index}\n"
                ),
            },
            SubmitError::CommandLine(m) => format!("condor_submit: {m}\n"),
            SubmitError::Open { .. } => format!("\nERROR: {self}\n"),
        }
    }
}

/// A warning HTCondor prints as `WARNING: <text>` (the text may hold newlines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning(pub String);

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
