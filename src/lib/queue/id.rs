//! Job identities and the job-id arguments HTCondor's tools accept.
//!
//! A job is `cluster.proc` ([`JobId`]); a cluster's shared attributes live in its cluster ad
//! ([`AdKey::Cluster`]), each job's own in its proc ad ([`AdKey::Job`]). On a command line a
//! job-id argument is `C` (a whole cluster), `C.P` (one job) or a bare word (an owner), parsed
//! into a [`JobIdSpec`] as HTCondor's `StrIsProcId()` (src/condor_utils/proc_id.cpp, used by
//! `condor_q` and `condor_history`) or `condor_rm`'s `procArg()` (src/condor_rm.V6/rm.cpp)
//! parse them.

use std::fmt;
use std::str::FromStr;

use super::error::JobIdError;
use crate::classad::cnum::{is_c_space, strtol};

/// A cluster number. HTCondor's are C `int`s, and so are these.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ClusterId(pub i32);

impl fmt::Display for ClusterId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One job: a proc of a cluster.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct JobId {
    pub cluster: ClusterId,
    pub proc: i32,
}

impl JobId {
    pub fn new(cluster: i32, proc: i32) -> JobId {
        JobId {
            cluster: ClusterId(cluster),
            proc,
        }
    }
}

/// `C.P`, as every HTCondor tool prints a job id.
impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.cluster.0, self.proc)
    }
}

/// Strictly `C.P` with both numbers non-negative (for ids the program itself wrote, such as
/// a log's or a test's; command-line arguments go through [`JobIdSpec`]).
impl FromStr for JobId {
    type Err = JobIdError;

    fn from_str(s: &str) -> Result<JobId, JobIdError> {
        let bad = || JobIdError::Unrecognized(s.to_owned());
        let (c, p) = s.split_once('.').ok_or_else(bad)?;
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(c) || !digits(p) {
            return Err(bad());
        }
        Ok(JobId::new(
            c.parse().map_err(|_| bad())?,
            p.parse().map_err(|_| bad())?,
        ))
    }
}

/// Which ad an edit is about: a cluster ad (HTCondor's key `C.-1`) or one job's proc ad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AdKey {
    Cluster(ClusterId),
    Job(JobId),
}

impl AdKey {
    pub fn cluster(&self) -> ClusterId {
        match self {
            AdKey::Cluster(c) => *c,
            AdKey::Job(j) => j.cluster,
        }
    }
}

impl From<JobId> for AdKey {
    fn from(j: JobId) -> AdKey {
        AdKey::Job(j)
    }
}

impl From<ClusterId> for AdKey {
    fn from(c: ClusterId) -> AdKey {
        AdKey::Cluster(c)
    }
}

impl fmt::Display for AdKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdKey::Cluster(c) => write!(f, "cluster {c}"),
            AdKey::Job(j) => write!(f, "job {j}"),
        }
    }
}

/// What one job-id argument selects.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum JobIdSpec {
    /// `C` or `C.`: every job of the cluster (`ClusterId == C`).
    Cluster(ClusterId),
    /// `C.P`: one job (`ClusterId == C && ProcId == P`).
    Job(JobId),
    /// A bare word: the owner's jobs (`Owner == "word"`, compared without case as ClassAd
    /// `==` compares strings).
    Owner(String),
}

impl JobIdSpec {
    /// Parses an argument as `condor_q` and `condor_history` do: whatever `StrIsProcId()`
    /// accepts in full is a job or cluster id (a negative proc, as in `5.-1`, selects the
    /// cluster), anything else names an owner. This never fails.
    pub fn parse(arg: &str) -> JobIdSpec {
        match str_is_proc_id(arg) {
            Some((cluster, proc, end)) if end == arg.len() => {
                if proc >= 0 {
                    JobIdSpec::Job(JobId::new(cluster, proc))
                } else {
                    JobIdSpec::Cluster(ClusterId(cluster))
                }
            }
            _ => JobIdSpec::Owner(arg.to_owned()),
        }
    }

    /// Parses an argument as `condor_rm`, `condor_hold`, `condor_release` and
    /// `condor_vacate_job` do (rm.cpp `procArg`): an argument of digits with at most one inner
    /// dot is an id, and its cluster must be positive and its proc non-negative; anything else
    /// names an owner (so `1.` and `x1` are owners there).
    pub fn parse_for_action(arg: &str) -> Result<JobIdSpec, JobIdError> {
        if !(str_isint(arg) || str_isreal_strict(arg)) {
            return Ok(JobIdSpec::Owner(arg.to_owned()));
        }
        let (c, rest) = strtol(arg.as_bytes());
        let cluster = c as i32;
        if cluster <= 0 {
            return Err(JobIdError::InvalidCluster(arg.to_owned()));
        }
        let rest = &arg[rest..];
        if rest.is_empty() {
            return Ok(JobIdSpec::Cluster(ClusterId(cluster)));
        }
        if let Some(after_dot) = rest.strip_prefix('.') {
            let (p, used) = strtol(after_dot.as_bytes());
            let proc = p as i32;
            if proc < 0 {
                return Err(JobIdError::InvalidProc(arg.to_owned()));
            }
            if used == after_dot.len() {
                return Ok(JobIdSpec::Job(JobId::new(cluster, proc)));
            }
        }
        Err(JobIdError::Unrecognized(arg.to_owned()))
    }
}

impl fmt::Display for JobIdSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobIdSpec::Cluster(c) => write!(f, "{c}"),
            JobIdSpec::Job(j) => write!(f, "{j}"),
            JobIdSpec::Owner(o) => f.write_str(o),
        }
    }
}

/// What HTCondor's `StrIsProcId(const char*, ...)` (src/condor_utils/proc_id.cpp) leaves
/// behind: the cluster and proc it wrote (it leaves the proc alone, `None`, when the text
/// neither is a cluster id nor reaches a dot), whether the text is an id, and where it
/// stopped.
struct ProcIdScan {
    cluster: i32,
    proc: Option<i32>,
    valid: bool,
    end: usize,
}

fn scan_proc_id(s: &str) -> ProcIdScan {
    let b = s.as_bytes();
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let ends_id = |c: u8| c == 0 || is_c_space(c) || c == b',';
    let (c, pe) = strtol(b);
    let cluster = c as i32;
    if pe > 0 && ends_id(at(pe)) {
        return ProcIdScan {
            cluster,
            proc: Some(-1),
            valid: cluster >= 0,
            end: pe,
        };
    }
    if at(pe) != b'.' {
        return ProcIdScan {
            cluster,
            proc: None,
            valid: false,
            end: pe,
        };
    }
    let p = pe + 1;
    if ends_id(at(p)) {
        return ProcIdScan {
            cluster,
            proc: Some(-1),
            valid: cluster >= 0,
            end: p,
        };
    }
    let (negative, digits_at) = if at(p) == b'-' {
        (true, p + 1)
    } else {
        (false, p)
    };
    if !at(digits_at).is_ascii_digit() {
        return ProcIdScan {
            cluster,
            proc: Some(-1),
            valid: false,
            end: p,
        };
    }
    let (v, used) = strtol(&b[digits_at..]);
    let end = digits_at + used;
    let proc = v as i32;
    ProcIdScan {
        cluster,
        proc: Some(if negative { proc.wrapping_neg() } else { proc }),
        valid: at(end) == 0 || is_c_space(at(end)),
        end,
    }
}

/// HTCondor's `StrIsProcId(const char*, ...)`: `X`, `X.` or `X.Y` (whitespace or a comma may
/// end the cluster-only forms). Returns `(cluster, proc, end)` when valid, `proc` being -1 when
/// none was given and `end` the byte offset of the first character not parsed; callers that
/// need the whole argument to be an id check `end == arg.len()`.
///
/// The C function's quirks are kept: the cluster may carry a sign and leading whitespace
/// (`strtol`), a missing cluster before a dot reads as 0 (`.5` is job 0.5), the proc may be
/// negative, numbers too large for an `int` are truncated as C truncates them, and the
/// cluster must be non-negative only when no proc follows.
pub fn str_is_proc_id(s: &str) -> Option<(i32, i32, usize)> {
    let scan = scan_proc_id(s);
    scan.valid
        .then(|| (scan.cluster, scan.proc.unwrap_or(-1), scan.end))
}

/// HTCondor's `JOB_ID_KEY(const char*)`: `(cluster, proc)` as `StrIsProcId` writes them,
/// whether or not the text is an id (the proc starts at 0). condor_qedit takes every word
/// starting with a digit for a job id this way: `1.x` is cluster 1 (proc -1), `1.2.3` job
/// 1.2, `12abc` job 12.0.
pub fn job_id_key(s: &str) -> (i32, i32) {
    let scan = scan_proc_id(s);
    (scan.cluster, scan.proc.unwrap_or(0))
}

/// HTCondor's `str_isint`: only digits (the empty string included).
fn str_isint(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_digit())
}

/// HTCondor's `str_isreal(s, true)`: digits with at most one dot, neither first nor last.
fn str_isreal_strict(s: &str) -> bool {
    let b = s.as_bytes();
    let mut dot = false;
    for (i, &c) in b.iter().enumerate() {
        if c == b'.' {
            if dot || i == 0 || i + 1 == b.len() {
                return false;
            }
            dot = true;
        } else if !c.is_ascii_digit() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> JobIdSpec {
        JobIdSpec::parse(s)
    }

    fn owner(s: &str) -> JobIdSpec {
        JobIdSpec::Owner(s.to_owned())
    }

    #[test]
    fn condor_q_forms() {
        assert_eq!(spec("42"), JobIdSpec::Cluster(ClusterId(42)));
        assert_eq!(spec("42."), JobIdSpec::Cluster(ClusterId(42)));
        assert_eq!(spec("42.7"), JobIdSpec::Job(JobId::new(42, 7)));
        assert_eq!(spec("0"), JobIdSpec::Cluster(ClusterId(0)));
        assert_eq!(spec("+42"), JobIdSpec::Cluster(ClusterId(42)));
        assert_eq!(spec(" 42"), JobIdSpec::Cluster(ClusterId(42)));
        // A negative proc is no job: condor_q asks for the cluster.
        assert_eq!(spec("42.-1"), JobIdSpec::Cluster(ClusterId(42)));
        // The C parser reads a missing cluster as 0.
        assert_eq!(spec(".5"), JobIdSpec::Job(JobId::new(0, 5)));
        for word in [
            "alice", "42x", "42.x", "42.7x", "42.7.1", "42 ", "42.7 ", "", "-",
        ] {
            assert_eq!(spec(word), owner(word), "{word:?}");
        }
    }

    #[test]
    fn str_is_proc_id_ends() {
        assert_eq!(str_is_proc_id("42,43"), Some((42, -1, 2)));
        assert_eq!(str_is_proc_id("42 rest"), Some((42, -1, 2)));
        assert_eq!(str_is_proc_id("42.3 rest"), Some((42, 3, 4)));
        assert_eq!(str_is_proc_id("-42"), None);
        assert_eq!(str_is_proc_id("-42.3"), Some((-42, 3, 5)));
        assert_eq!(str_is_proc_id("42.-"), None);
        // int truncation of a long, as C does it.
        assert_eq!(str_is_proc_id("4294967338"), Some((42, -1, 10)));
    }

    #[test]
    fn job_id_keys_take_what_str_is_proc_id_wrote() {
        assert_eq!(job_id_key("42"), (42, -1));
        assert_eq!(job_id_key("42.7"), (42, 7));
        assert_eq!(job_id_key("42.-1"), (42, -1));
        // Not ids, yet ids to JOB_ID_KEY.
        assert_eq!(job_id_key("1.x"), (1, -1));
        assert_eq!(job_id_key("1.2.3"), (1, 2));
        assert_eq!(job_id_key("12abc"), (12, 0));
        assert_eq!(job_id_key("3.-x"), (3, -1));
    }

    #[test]
    fn action_forms() {
        let act = JobIdSpec::parse_for_action;
        assert_eq!(act("42"), Ok(JobIdSpec::Cluster(ClusterId(42))));
        assert_eq!(act("42.0"), Ok(JobIdSpec::Job(JobId::new(42, 0))));
        assert_eq!(act("alice"), Ok(owner("alice")));
        // Not digits-dot-digits: an owner, as rm.cpp decides.
        assert_eq!(act("42."), Ok(owner("42.")));
        assert_eq!(act("42.x"), Ok(owner("42.x")));
        assert_eq!(act("1.2.3"), Ok(owner("1.2.3")));
        assert_eq!(
            act("0").unwrap_err().to_string(),
            "Invalid cluster # from 0."
        );
        assert_eq!(
            act("0.5").unwrap_err().to_string(),
            "Invalid cluster # from 0.5."
        );
        assert_eq!(act("").unwrap_err().to_string(), "Invalid cluster # from .");
        assert_eq!(
            JobIdError::Unrecognized("x".into()).to_string(),
            "Warning: unrecognized \"x\" skipped."
        );
    }

    #[test]
    fn display_and_from_str() {
        let j = JobId::new(12, 3);
        assert_eq!(j.to_string(), "12.3");
        assert_eq!("12.3".parse::<JobId>(), Ok(j));
        assert!("12".parse::<JobId>().is_err());
        assert!("12.-3".parse::<JobId>().is_err());
        assert_eq!(AdKey::Job(j).to_string(), "job 12.3");
        assert_eq!(AdKey::Cluster(ClusterId(12)).to_string(), "cluster 12");
        assert_eq!(JobIdSpec::parse("alice").to_string(), "alice");
    }
}
