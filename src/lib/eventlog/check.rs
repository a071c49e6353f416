//! HTCondor's `CheckEvents` (src/condor_utils/check_events.cpp): whether the events of each
//! job proc in one or more event logs make sense together — one submit, no execute after
//! the job ended, exactly one end (terminated or aborted), a POST script only after the end —
//! with the same `ALLOW_*` tolerances and the same `BAD EVENT: ...` words.

use std::collections::BTreeMap;

use super::{Event, EventBody};

/// `CheckEvents::ALLOW_*`: what is tolerated (reported, but not an error).
pub mod allow {
    pub const NONE: u32 = 0;
    pub const ALMOST_ALL: u32 = 1 << 0;
    pub const TERM_ABORT: u32 = 1 << 1;
    pub const RUN_AFTER_TERM: u32 = 1 << 2;
    pub const GARBAGE: u32 = 1 << 3;
    pub const EXEC_BEFORE_SUBMIT: u32 = 1 << 4;
    pub const DOUBLE_TERMINATE: u32 = 1 << 5;
    pub const DUPLICATE_EVENTS: u32 = 1 << 6;
}

/// `check_event_result_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckResult {
    Okay,
    /// A bad event that is tolerated.
    BadEvent,
    /// A bad event that is not.
    Error,
    /// Something is wrong, but the event may be used.
    Warning,
}

impl CheckResult {
    /// `CheckEvents::ResultToString`.
    pub fn name(self) -> &'static str {
        match self {
            CheckResult::Okay => "EVENT_OKAY",
            CheckResult::BadEvent => "EVENT_BAD_EVENT",
            CheckResult::Error => "EVENT_ERROR",
            CheckResult::Warning => "Bad result value!!!!",
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct JobInfo {
    submit: i32,
    errors: i32,
    aborts: i32,
    terms: i32,
    post_scripts: i32,
}

impl JobInfo {
    fn ends(&self) -> i32 {
        self.aborts + self.terms
    }
}

/// The events seen so far, per job proc.
#[derive(Debug, Default)]
pub struct CheckEvents {
    allow: u32,
    jobs: BTreeMap<(i32, i32, i32), JobInfo>,
}

impl CheckEvents {
    pub fn new(allow: u32) -> CheckEvents {
        CheckEvents {
            allow,
            jobs: BTreeMap::new(),
        }
    }

    fn has(&self, bits: u32) -> bool {
        self.allow & bits != 0
    }
    fn almost_all(&self) -> bool {
        self.has(allow::ALMOST_ALL)
    }
    fn extra_aborts(&self) -> bool {
        self.has(allow::ALMOST_ALL | allow::TERM_ABORT)
    }
    fn extra_runs(&self) -> bool {
        self.has(allow::ALMOST_ALL | allow::RUN_AFTER_TERM)
    }
    fn garbage(&self) -> bool {
        self.has(allow::ALMOST_ALL | allow::GARBAGE)
    }
    fn exec_submit(&self) -> bool {
        self.has(allow::ALMOST_ALL | allow::EXEC_BEFORE_SUBMIT)
    }
    fn double_term(&self) -> bool {
        self.has(allow::ALMOST_ALL | allow::DOUBLE_TERMINATE)
    }
    fn duplicates(&self) -> bool {
        self.has(allow::ALMOST_ALL | allow::DUPLICATE_EVENTS)
    }

    /// `CheckAnEvent`: the event's verdict, and its message when it is not okay (the last
    /// check that failed speaks, as HTCondor's overwrites its message).
    pub fn check(&mut self, event: &Event) -> (CheckResult, String) {
        let id = (event.cluster, event.proc, event.subproc);
        let tag = format!("BAD EVENT: job ({}.{}.{})", id.0, id.1, id.2);
        let mut info = self.jobs.get(&id).copied().unwrap_or_default();
        let mut v = Verdict::default();
        match &event.body {
            EventBody::Submit(_) => {
                info.submit += 1;
                self.submitted(&tag, &info, &mut v);
            }
            EventBody::Execute(_) => self.executing(&tag, &info, &mut v),
            EventBody::ExecutableError(_) => info.errors += 1,
            EventBody::JobAborted(_) => {
                info.aborts += 1;
                self.ended(&tag, &info, &mut v);
            }
            EventBody::JobTerminated(_) => {
                info.terms += 1;
                self.ended(&tag, &info, &mut v);
            }
            EventBody::PostScriptTerminated(_) => {
                info.post_scripts += 1;
                if !post_script_without_submit(id, &info) {
                    self.post_scripts_checks(&tag, &info, &mut v, true);
                }
            }
            _ => {}
        }
        self.jobs.insert(id, info);
        (v.result, v.message)
    }

    fn submitted(&self, tag: &str, info: &JobInfo, v: &mut Verdict) {
        if info.submit != 1 {
            let bad = graded(self.duplicates(), CheckResult::BadEvent);
            v.set(
                bad,
                format!("{tag} submitted, submit count != 1 ({})", info.submit),
            );
        }
        if info.ends() != 0 {
            let bad = graded(self.exec_submit(), CheckResult::BadEvent);
            v.set(
                bad,
                format!("{tag} submitted, total end count != 0 ({})", info.ends()),
            );
        }
    }

    fn executing(&self, tag: &str, info: &JobInfo, v: &mut Verdict) {
        if info.submit < 1 {
            let bad = graded(self.exec_submit() || self.garbage(), CheckResult::Warning);
            v.set(
                bad,
                format!("{tag} executing, submit count < 1 ({})", info.submit),
            );
        }
        if info.ends() != 0 {
            let bad = graded(self.extra_runs(), CheckResult::BadEvent);
            v.set(
                bad,
                format!("{tag} executing, total end count != 0 ({})", info.ends()),
            );
        }
    }

    /// The verdict on a count of ends that is not one (`CheckJobEnd`, `CheckJobFinal`).
    fn extra_ends(&self, info: &JobInfo, final_check: bool) -> CheckResult {
        let tolerated = (self.extra_aborts() && info.aborts == 1 && info.terms == 1)
            || (self.double_term() && info.terms == 2)
            || self.extra_runs()
            || (final_check && self.garbage() && info.ends() == 0)
            || self.duplicates();
        graded(tolerated, CheckResult::BadEvent)
    }

    fn ended(&self, tag: &str, info: &JobInfo, v: &mut Verdict) {
        if info.submit < 1 {
            let bad = graded(
                self.exec_submit() || (self.garbage() && info.submit <= 1),
                CheckResult::Warning,
            );
            v.set(
                bad,
                format!("{tag} ended, submit count < 1 ({})", info.submit),
            );
        }
        if info.ends() != 1 {
            v.set(
                self.extra_ends(info, false),
                format!("{tag} ended, total end count != 1 ({})", info.ends()),
            );
        }
        if info.post_scripts != 0 {
            let bad = graded(self.duplicates(), CheckResult::BadEvent);
            v.set(
                bad,
                format!(
                    "{tag} ended, post script count != 0 ({})",
                    info.post_scripts
                ),
            );
        }
    }

    /// The checks on POST scripts of `CheckPostTerm` (`at_event`) and `CheckJobFinal`.
    fn post_scripts_checks(&self, tag: &str, info: &JobInfo, v: &mut Verdict, at_event: bool) {
        if at_event {
            if info.submit < 1 {
                let bad = graded(
                    self.duplicates() || (self.garbage() && info.submit <= 1),
                    CheckResult::BadEvent,
                );
                v.set(
                    bad,
                    format!(
                        "{tag} post script ended, submit count < 1 ({})",
                        info.submit
                    ),
                );
            }
            if info.ends() < 1 {
                let bad = graded(self.almost_all(), CheckResult::BadEvent);
                v.set(
                    bad,
                    format!(
                        "{tag} post script ended, total end count < 1 ({})",
                        info.ends()
                    ),
                );
            }
        }
        if info.post_scripts > 1 {
            let bad = graded(self.duplicates() || self.garbage(), CheckResult::BadEvent);
            let what = if at_event {
                "post script ended"
            } else {
                "ended"
            };
            v.set(
                bad,
                format!(
                    "{tag} {what}, post script count > 1 ({})",
                    info.post_scripts
                ),
            );
        }
    }

    /// `CheckAllJobs`: the verdict on every job proc once all events are read, with the
    /// messages joined by `; ` (cut with ` ...` once past 1,024 bytes).
    pub fn check_all(&self) -> (CheckResult, String) {
        const MAX_MSG_LEN: usize = 1024;
        let mut v = Verdict::default();
        let mut all = String::new();
        let mut full = false;
        for (&id, info) in &self.jobs {
            if !full && all.len() > MAX_MSG_LEN {
                all.push_str(" ...");
                full = true;
            }
            let tag = format!("BAD EVENT: job ({}.{}.{})", id.0, id.1, id.2);
            let mut one = Verdict {
                result: v.result,
                message: String::new(),
            };
            self.final_checks(&tag, id, info, &mut one);
            v.result = one.result;
            if !one.message.is_empty() && !full {
                if !all.is_empty() {
                    all.push_str("; ");
                }
                all.push_str(&one.message);
            }
        }
        (v.result, all)
    }

    fn final_checks(&self, tag: &str, id: (i32, i32, i32), info: &JobInfo, v: &mut Verdict) {
        if post_script_without_submit(id, info) || id.2 != 0 {
            // A POST script run after every submit failed; a parallel universe node.
            return;
        }
        if info.submit != 1 {
            let bad = graded(
                self.almost_all() || (self.garbage() && info.submit <= 1),
                CheckResult::BadEvent,
            );
            v.set(
                bad,
                format!("{tag} ended, submit count != 1 ({})", info.submit),
            );
        }
        if info.ends() != 1 {
            v.set(
                self.extra_ends(info, true),
                format!("{tag} ended, total end count != 1 ({})", info.ends()),
            );
        }
        self.post_scripts_checks(tag, info, v, false);
    }
}

/// `tolerated` when an `ALLOW_*` setting tolerates what is wrong: then `as_bad`, else
/// [`CheckResult::Error`].
fn graded(tolerated: bool, as_bad: CheckResult) -> CheckResult {
    if tolerated {
        as_bad
    } else {
        CheckResult::Error
    }
}

/// DAGMan's POST script run after every submit of its node failed: logged for the job id
/// (-1.0.0) (`noSubmitId`), and no error.
fn post_script_without_submit(id: (i32, i32, i32), info: &JobInfo) -> bool {
    id == (-1, 0, 0) && info.submit == 0 && info.terms == 0 && info.post_scripts >= 1
}

/// One check's outcome: the result of the last failed test, and its message.
#[derive(Debug)]
struct Verdict {
    result: CheckResult,
    message: String,
}

impl Default for Verdict {
    fn default() -> Self {
        Verdict {
            result: CheckResult::Okay,
            message: String::new(),
        }
    }
}

impl Verdict {
    fn set(&mut self, result: CheckResult, message: String) {
        self.result = result;
        self.message = message;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eventlog::{Execute, JobAborted, JobTerminated, Submit};

    fn ev(proc: i32, body: EventBody) -> Event {
        let mut e = Event::new(1, proc, body);
        e.subproc = 0;
        e
    }

    fn submit() -> EventBody {
        EventBody::Submit(Submit::default())
    }
    fn execute() -> EventBody {
        EventBody::Execute(Execute::default())
    }
    fn term() -> EventBody {
        EventBody::JobTerminated(JobTerminated::default())
    }
    fn abort() -> EventBody {
        EventBody::JobAborted(JobAborted::default())
    }

    #[test]
    fn a_well_formed_run_is_okay() {
        let mut c = CheckEvents::new(allow::NONE);
        for body in [submit(), execute(), term()] {
            assert_eq!(c.check(&ev(0, body)), (CheckResult::Okay, String::new()));
        }
        assert_eq!(c.check_all(), (CheckResult::Okay, String::new()));
    }

    #[test]
    fn bad_sequences_are_named_as_htcondor_names_them() {
        let mut c = CheckEvents::new(allow::NONE);
        assert_eq!(
            c.check(&ev(0, execute())),
            (
                CheckResult::Error,
                "BAD EVENT: job (1.0.0) executing, submit count < 1 (0)".into()
            )
        );
        c.check(&ev(1, submit()));
        c.check(&ev(1, term()));
        assert_eq!(
            c.check(&ev(1, abort())),
            (
                CheckResult::Error,
                "BAD EVENT: job (1.1.0) ended, total end count != 1 (2)".into()
            )
        );
        assert_eq!(
            c.check(&ev(1, submit())).1,
            "BAD EVENT: job (1.1.0) submitted, total end count != 0 (2)"
        );
        c.check(&ev(2, submit()));
        let (result, text) = c.check_all();
        assert_eq!(result, CheckResult::Error);
        assert_eq!(
            text,
            "BAD EVENT: job (1.0.0) ended, total end count != 1 (0); \
             BAD EVENT: job (1.1.0) ended, total end count != 1 (2); \
             BAD EVENT: job (1.2.0) ended, total end count != 1 (0)"
        );
        // A terminate and an abort are tolerated with ALLOW_TERM_ABORT.
        let mut c = CheckEvents::new(allow::TERM_ABORT);
        c.check(&ev(0, submit()));
        c.check(&ev(0, term()));
        assert_eq!(c.check(&ev(0, abort())).0, CheckResult::BadEvent);
        assert_eq!(c.check_all().0, CheckResult::BadEvent);
    }
}
