//! Where `condor_q`'s jobs come from: the queue store (the spool), or with `-jobads FILE` a
//! file of job ads in long form (as `condor_q -long` writes them, ads separated by blank
//! lines; `-` is standard input), as queue.cpp's `show_file_queue` reads them. Jobs from a
//! file are all shown (the schedd's "my jobs" filter is the schedd's, and there is none),
//! selected by the same ids and constraints, and titled `-- Jobads: FILE`; the summary then
//! has the query's counts only.
//!
//! With `-userlog FILE` the jobs are made up from a job event log, as HTCondor's
//! `userlog_to_classads` makes them ([`crate::eventlog::read_job_ads`]): the job ids on the
//! command line select the jobs by their submit events, and the title is `-- Userlog: FILE`.
//! Neither source opens the queue store.

use std::io::Write;

use crate::client::Session;
use crate::error::CommandError;
use crate::eventlog::{read_job_ads, EventLogError, LogAdContext, LogJobFilter};
use crate::queue::{str_is_proc_id, Job, JobQuery, Queue, QueueError};

/// The jobs a query reads.
pub(super) enum Source<'s> {
    /// The queue store.
    Spool(&'s Queue),
    /// Jobs read whole from elsewhere, in job-id order, and the title's label for them
    /// (none for the groups of jobs the queue's aggregation made: the schedd's title).
    Ads {
        label: Option<String>,
        jobs: Vec<Job>,
    },
}

impl Source<'_> {
    /// The jobs `query` selects, in job-id order.
    pub(super) fn jobs<'a>(
        &'a self,
        query: &'a JobQuery,
    ) -> Result<Box<dyn Iterator<Item = Result<Job, QueueError>> + 'a>, QueueError> {
        match self {
            Source::Spool(queue) => crate::client::select::jobs(queue, query),
            Source::Ads { jobs, .. } => Ok(Box::new(
                jobs.iter().filter(|j| query.selects(j)).cloned().map(Ok),
            )),
        }
    }

    /// The queue store, when the jobs are its.
    pub(super) fn store(&self) -> Option<&Queue> {
        match self {
            Source::Spool(queue) => Some(queue),
            Source::Ads { .. } => None,
        }
    }

    /// The label of the title line (`Jobads: FILE`), for jobs not from the store.
    pub(super) fn label(&self) -> Option<&str> {
        match self {
            Source::Spool(_) => None,
            Source::Ads { label, .. } => label.as_deref(),
        }
    }
}

/// Reads `-jobads FILE` (at most [`crate::bounded::MAX_SOURCE_BYTES`]): HTCondor's messages
/// when the file cannot be read, and the file and line of an ad that does not parse.
pub(super) fn read_jobads(
    path: &str,
    err: &mut dyn Write,
) -> Result<Source<'static>, CommandError> {
    let bytes = if path == "-" {
        crate::bounded::read_stdin()
    } else {
        crate::bounded::read_file(path)
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            let _ = writeln!(err, "Can't read file of ClassAds: {path}: {e}");
            return Err(CommandError::Exit(1));
        }
        Err(_) => {
            let _ = writeln!(err, "Can't open file of ClassAds: {path}");
            return Err(CommandError::Exit(1));
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    // A file saved from condor_q's table output may hold its `-- Schedd: ...` title lines
    // (CondorQClassAdFileParseHelper skips them); blank them so line numbers stay true.
    let text: String = text
        .split('\n')
        .map(|line| if line.starts_with("-- ") { "" } else { line })
        .collect::<Vec<_>>()
        .join("\n");
    let ads = match crate::classad::parse_old_ads(&text) {
        Ok(ads) => ads,
        Err(e) => {
            let _ = writeln!(
                err,
                "Error reading file of ClassAds: {path}: line {}: {}",
                e.line, e.message
            );
            return Err(CommandError::Exit(1));
        }
    };
    let mut jobs: Vec<Job> = ads.into_iter().map(Job::from_ad).collect();
    // queue.cpp keeps the jobs in a map keyed by job id.
    jobs.sort_by_key(|j| j.id());
    Ok(Source::Ads {
        label: Some(format!("Jobads: {path}")),
        jobs,
    })
}

/// Reads `-userlog FILE`: the jobs of the log that the words naming job ids (`C`, `C.P`)
/// select (all when none does). A log that cannot be opened gets queue.cpp's message; an
/// event that does not read is an error naming the file and line.
pub(super) fn read_userlog(
    path: &str,
    words: &[String],
    session: &Session,
    err: &mut dyn Write,
) -> Result<Source<'static>, CommandError> {
    let filters: Vec<LogJobFilter> = words
        .iter()
        .filter_map(|w| match str_is_proc_id(w) {
            Some((cluster, proc, end)) if end == w.len() => Some(LogJobFilter {
                cluster,
                proc: (proc >= 0).then_some(proc),
            }),
            _ => None,
        })
        .collect();
    let cx = LogAdContext {
        log_name: path,
        owner: &session.user,
        now: session.now,
        jobs: &filters,
    };
    let ads = match read_job_ads(path, &cx) {
        Ok(ads) => ads,
        Err(EventLogError::Io { .. }) => {
            let _ = writeln!(err, "\nCan't open user log: {path}");
            return Err(CommandError::Exit(1));
        }
        Err(e) => {
            let _ = writeln!(err, "Error reading user log: {e}");
            return Err(CommandError::Exit(1));
        }
    };
    Ok(Source::Ads {
        label: Some(format!("Userlog: {path}")),
        jobs: ads.into_iter().map(Job::from_ad).collect(),
    })
}
