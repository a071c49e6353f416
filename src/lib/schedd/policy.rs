//! HTCondor's user job policy: what a job's policy expressions, and the pool's
//! `SYSTEM_PERIODIC_*` expressions, say to do with it (`UserPolicy` in
//! src/condor_utils/user_job_policy.cpp, HTCondor 24.0).
//!
//! Two evaluations, as HTCondor has them:
//!
//! - [`UserPolicy::periodic`] (`PERIODIC_ONLY`): the schedd's pass over the queue every
//!   `PERIODIC_EXPR_INTERVAL` seconds, and the shadow's timer for a running job.
//! - [`UserPolicy::at_exit`] (`PERIODIC_THEN_EXIT`): when the job's process has exited, the
//!   periodic checks again and then `OnExitHold` and `OnExitRemove`.
//!
//! The checks, in order; the first that fires wins:
//!
//! 1. A removed job: nothing fires periodically; at exit it leaves the queue
//!    (`OnExitRemove` as if `true`).
//! 2. Running or suspended jobs: `AllowedJobDuration` (seconds since `ShadowBday`, `>=`),
//!    `AllowedExecuteDuration` (seconds since `JobCurrentStartExecutingDate`, or since
//!    `TransferOutFinished` when that is later, `>`; only when execution began in this run),
//!    both holding the job with codes 46 and 47; then, periodically, `PeriodicVacate`.
//! 3. `TimerRemove`: a time in the past removes the job; an attribute that is not a number is
//!    `UNDEFINED` (hold code 5).
//! 4. `PeriodicHold` then `SYSTEM_PERIODIC_HOLD*` (jobs neither held nor completed),
//!    `PeriodicRelease` then `SYSTEM_PERIODIC_RELEASE*` (held jobs, except those held by a
//!    user: `HoldReasonCode` 1), `PeriodicRemove` then `SYSTEM_PERIODIC_REMOVE*` (all jobs).
//! 5. At exit only: `ExitBySignal` and `ExitCode` or `ExitSignal` must be in the ad
//!    (`UNDEFINED` otherwise); `OnExitHold` holds; `OnExitRemove` evaluating to a number equal
//!    to zero keeps the job in the queue (it runs again), anything else (no attribute,
//!    `UNDEFINED`, a string) removes it from the queue: it completes.
//!
//! A policy expression fires when it evaluates to a non-zero number (booleans count as 0/1,
//! reals are truncated); `UNDEFINED`, `ERROR` and strings never fire (HTCondor compiled the
//! "undefined fires" variant out).
//!
//! System policies are HTCondor's policy lists (`ENABLE_JOB_POLICY_LISTS`, compiled into 24.0):
//! `SYSTEM_PERIODIC_HOLD_NAMES = MEM DISK` names `SYSTEM_PERIODIC_HOLD_MEM` and
//! `SYSTEM_PERIODIC_HOLD_DISK`, evaluated in that order, then plain `SYSTEM_PERIODIC_HOLD`
//! last. Each may have `_REASON` (a string expression) and `_SUBCODE` (a number expression),
//! e.g. `SYSTEM_PERIODIC_HOLD_MEM_REASON`, evaluated in the job ad when it fires. An
//! expression that is literally false (or `0`) is dropped; a named one that does not parse is
//! dropped with a warning ([`UserPolicy::warnings`]); a plain one that does not parse is
//! silently never true. `SYSTEM_PERIODIC_VACATE*` is read but, as in HTCondor 24.0, never
//! evaluated (the reference's evaluator has no case for it).
//!
//! The reason for a firing is HTCondor's `FiringReason`: the expression's own reason
//! (`PeriodicHoldReason`, `OnExitHoldReason`, ..., or the system `_REASON`) when it gives a
//! non-empty string, otherwise `The job attribute PeriodicHold expression 'x > 1' evaluated to
//! TRUE` or `The system macro SYSTEM_PERIODIC_HOLD expression '...' evaluated to TRUE`; the code
//! is 3 (`JobPolicy`) for job attributes, 26 (`SystemPolicy`) for system macros, 5/27 for
//! `UNDEFINED`; the subcode comes from `<Attr>SubCode` or the system `_SUBCODE`.

use crate::classad::lexer::Dialect;
use crate::classad::parser::{parse_old_expr, Parser};
use crate::classad::unparse::expr_to_old_string;
use crate::classad::{eval_expr, ClassAd, Expr, Value};
use crate::config::expand::{tokens, DEFAULT_DELIMS};
use crate::config::Config;
use crate::output::render::{lookup_int, lookup_real};
use crate::queue::JobStatus;

/// HTCondor's hold reason codes (`CONDOR_HOLD_CODE` in src/condor_utils/condor_holdcodes.h),
/// the ones the policy and the run bookkeeping use, and their names
/// ([`hold_codes::name`], as `NumHoldsByReason` counts them).
pub mod hold_codes {
    pub const UNSPECIFIED: i64 = 0;
    pub const USER_REQUEST: i64 = 1;
    /// A job policy expression (`PeriodicHold`, `OnExitHold`, ...) evaluated to true.
    pub const JOB_POLICY: i64 = 3;
    /// A job policy expression evaluated to `UNDEFINED`.
    pub const JOB_POLICY_UNDEFINED: i64 = 5;
    pub const SUBMITTED_ON_HOLD: i64 = 15;
    pub const SPOOLING_INPUT: i64 = 16;
    /// The job's event log could not be opened (the shadow's `initUserLog`).
    pub const UNABLE_TO_INIT_USER_LOG: i64 = 22;
    /// A `SYSTEM_PERIODIC_HOLD` expression put the job on hold.
    pub const SYSTEM_POLICY: i64 = 26;
    pub const SYSTEM_POLICY_UNDEFINED: i64 = 27;
    /// `AllowedJobDuration` exceeded.
    pub const JOB_DURATION_EXCEEDED: i64 = 46;
    /// `AllowedExecuteDuration` exceeded.
    pub const JOB_EXECUTE_EXCEEDED: i64 = 47;
    /// Codes from here on are vacate codes (`VacateReasonCode`), not hold codes.
    pub const VACATE_BASE: i64 = 1000;
    /// `PeriodicVacate` fired (the shadow's code for [`JOB_POLICY`] when vacating).
    pub const JOB_POLICY_VACATE: i64 = 1000;
    /// A system policy vacated the job.
    pub const SYSTEM_POLICY_VACATE: i64 = 1001;
    pub const SHADOW_EXCEPTION: i64 = 1002;
    pub const JOB_NOT_STARTED: i64 = 1003;
    pub const USER_VACATE_JOB: i64 = 1004;
    /// An eviction that gave no reason.
    pub const JOB_SHOULD_REQUEUE: i64 = 1005;
    pub const FAILED_TO_ACTIVATE_CLAIM: i64 = 1006;
    pub const STARTER_ERROR: i64 = 1007;
    pub const RECONNECT_FAILED: i64 = 1008;
    /// The startd's claim ended under the job.
    pub const CLAIM_DEACTIVATED: i64 = 1009;
    /// A vacate command to the startd (`condor_vacate`).
    pub const STARTD_VACATE_COMMAND: i64 = 1010;
    /// The startd's `PREEMPT` expression became true.
    pub const STARTD_PREEMPT_EXPRESSION: i64 = 1011;
    pub const STARTD_EXCEPTION: i64 = 1012;
    /// The startd shut down.
    pub const STARTD_SHUTDOWN: i64 = 1013;
    /// The startd is draining (`condor_drain`, defrag).
    pub const STARTD_DRAINING: i64 = 1014;
    pub const STARTD_COALESCE: i64 = 1015;
    pub const STARTD_HIBERNATE: i64 = 1016;
    pub const STARTD_RELEASE_COMMAND: i64 = 1017;
    /// A claim the machine's `RANK` prefers took the slot.
    pub const STARTD_PREEMPTING_CLAIM_RANK: i64 = 1018;
    /// A user of better priority took the slot.
    pub const STARTD_PREEMPTING_CLAIM_USER_PRIO: i64 = 1019;
    /// `condor_vacate_job`.
    pub const SCHEDD_VACATE: i64 = 1022;
    pub const JOB_REMOVED: i64 = 1023;

    /// Every code with its name, in HTCondor's order (1000 is `VacateBase` first).
    pub const NAMES: &[(i64, &str)] = &[
        (0, "Unspecified"),
        (1, "UserRequest"),
        (2, "GlobusGramError"),
        (3, "JobPolicy"),
        (4, "CorruptedCredential"),
        (5, "JobPolicyUndefined"),
        (6, "FailedToCreateProcess"),
        (7, "UnableToOpenOutput"),
        (8, "UnableToOpenInput"),
        (9, "UnableToOpenOutputStream"),
        (10, "UnableToOpenInputStream"),
        (11, "InvalidTransferAck"),
        (12, "TransferOutputError"),
        (13, "TransferInputError"),
        (14, "IwdError"),
        (15, "SubmittedOnHold"),
        (16, "SpoolingInput"),
        (17, "JobShadowMismatch"),
        (18, "InvalidTransferGoAhead"),
        (19, "HookPrepareJobFailure"),
        (20, "MissedDeferredExecutionTime"),
        (21, "StartdHeldJob"),
        (22, "UnableToInitUserLog"),
        (23, "FailedToAccessUserAccount"),
        (24, "NoCompatibleShadow"),
        (25, "InvalidCronSettings"),
        (26, "SystemPolicy"),
        (27, "SystemPolicyUndefined"),
        (28, "GlexecChownSandboxToUser"),
        (29, "PrivsepChownSandboxToUser"),
        (30, "GlexecChownSandboxToCondor"),
        (31, "PrivsepChownSandboxToCondor"),
        (32, "MaxTransferInputSizeExceeded"),
        (33, "MaxTransferOutputSizeExceeded"),
        (34, "JobOutOfResources"),
        (35, "InvalidDockerImage"),
        (36, "FailedToCheckpoint"),
        (37, "EC2UserError"),
        (38, "EC2InternalError"),
        (39, "EC2AdminError"),
        (40, "EC2ConnectionProblem"),
        (41, "EC2ServerError"),
        (42, "EC2InstancePotentiallyLostError"),
        (43, "PreScriptFailed"),
        (44, "PostScriptFailed"),
        (45, "SingularityTestFailed"),
        (46, "JobDurationExceeded"),
        (47, "JobExecuteExceeded"),
        (48, "HookShadowPrepareJobFailure"),
        (1000, "VacateBase"),
        (1000, "JobPolicyVacate"),
        (1001, "SystemPolicyVacate"),
        (1002, "ShadowException"),
        (1003, "JobNotStarted"),
        (1004, "UserVacateJob"),
        (1005, "JobShouldRequeue"),
        (1006, "FailedToActivateClaim"),
        (1007, "StarterError"),
        (1008, "ReconnectFailed"),
        (1009, "ClaimDeactivated"),
        (1010, "StartdVacateCommand"),
        (1011, "StartdPreemptExpression"),
        (1012, "StartdException"),
        (1013, "StartdShutdown"),
        (1014, "StartdDraining"),
        (1015, "StartdCoalesce"),
        (1016, "StartdHibernate"),
        (1017, "StartdReleaseCommand"),
        (1018, "StartdPreemptingClaimRank"),
        (1019, "StartdPreemptingClaimUserPrio"),
        (1020, "VMError"),
        (1021, "ContainerError"),
        (1022, "ScheddVacate"),
        (1023, "JobRemoved"),
    ];

    /// The name of a code (`_from_integral(code)._to_string()`), `None` for an unknown code.
    pub fn name(code: i64) -> Option<&'static str> {
        NAMES.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
    }
}

/// What the policy says to do with a job (HTCondor's `STAYS_IN_QUEUE`, ... constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyAction {
    /// Nothing fired (periodically), or `OnExitRemove` was false (at exit: run it again).
    StaysInQueue,
    /// Remove it (periodically), or let it complete (at exit).
    RemoveFromQueue,
    HoldInQueue,
    ReleaseFromHold,
    /// Evict the running job back to idle (`PeriodicVacate`).
    VacateFromRunning,
    /// A policy attribute could not be evaluated (`TimerRemove` not a number, the exit
    /// attributes missing): the shadow holds the job with code 5.
    UndefinedEval,
}

impl PolicyAction {
    /// HTCondor's number for the action.
    pub fn code(self) -> i64 {
        match self {
            PolicyAction::StaysInQueue => 0,
            PolicyAction::RemoveFromQueue => 1,
            PolicyAction::HoldInQueue => 2,
            PolicyAction::UndefinedEval => 3,
            PolicyAction::ReleaseFromHold => 4,
            PolicyAction::VacateFromRunning => 5,
        }
    }
}

/// Where the expression that fired came from (`FireSource`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FireSource {
    /// Nothing fired (or, for the exit attributes missing, nothing had been evaluated).
    NotYet,
    JobAttribute,
    JobDuration,
    ExecuteDuration,
    SystemMacro,
}

/// Which expression fired and why, as HTCondor's `FiringReason` builds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Firing {
    pub action: PolicyAction,
    /// The expression: a job attribute (`PeriodicHold`, `OnExitRemove`, `TimerRemove`,
    /// `AllowedJobDuration`, ...) or a system knob (`SYSTEM_PERIODIC_HOLD`, without the tag
    /// of a named policy); empty when nothing fired.
    pub expr: String,
    /// The `HoldReason` / `RemoveReason` / `ReleaseReason` text; empty when nothing fired.
    pub reason: String,
    /// `HoldReasonCode` (0 when nothing fired).
    pub code: i64,
    /// `HoldReasonSubCode`.
    pub subcode: i64,
    /// What the expression evaluated to: 1 true, 0 false (`OnExitRemove` keeping the job), -1
    /// undefined or not evaluated (`FiringExpressionValue`).
    pub value: i64,
    pub source: FireSource,
}

impl Firing {
    /// Nothing fired: the job stays in the queue as it is.
    pub fn stays() -> Firing {
        Firing {
            action: PolicyAction::StaysInQueue,
            expr: String::new(),
            reason: String::new(),
            code: 0,
            subcode: 0,
            value: -1,
            source: FireSource::NotYet,
        }
    }

    /// Whether an expression fired (anything but a periodic "nothing to do").
    pub fn fired(&self) -> bool {
        !self.expr.is_empty()
    }

    /// The reason, or `Unknown user policy expression` when there is none (as the schedd
    /// writes it).
    pub fn reason_or_unknown(&self) -> &str {
        if self.reason.is_empty() {
            "Unknown user policy expression"
        } else {
            &self.reason
        }
    }

    /// The `VacateReasonCode` the shadow uses when vacating: `JobPolicy` becomes
    /// `JobPolicyVacate` (1000), `SystemPolicy` becomes `SystemPolicyVacate` (1001).
    pub fn vacate_code(&self) -> i64 {
        match self.code {
            hold_codes::JOB_POLICY => hold_codes::JOB_POLICY_VACATE,
            hold_codes::SYSTEM_POLICY => hold_codes::SYSTEM_POLICY_VACATE,
            c => c,
        }
    }

    /// A firing with the reason text, code and subcode built as `FiringReason` builds them.
    fn new(
        action: PolicyAction,
        expr: &str,
        source: FireSource,
        value: i64,
        unparsed: &str,
        own_reason: String,
        own_subcode: i64,
    ) -> Firing {
        let (code, subcode, mut reason) = match source {
            FireSource::NotYet => (0, 0, String::new()),
            FireSource::JobAttribute if value == -1 => {
                (hold_codes::JOB_POLICY_UNDEFINED, 0, String::new())
            }
            FireSource::JobAttribute => (hold_codes::JOB_POLICY, own_subcode, own_reason),
            FireSource::JobDuration => (hold_codes::JOB_DURATION_EXCEEDED, 0, own_reason),
            FireSource::ExecuteDuration => (hold_codes::JOB_EXECUTE_EXCEEDED, 0, own_reason),
            FireSource::SystemMacro if value == -1 => {
                (hold_codes::SYSTEM_POLICY_UNDEFINED, 0, String::new())
            }
            FireSource::SystemMacro => (hold_codes::SYSTEM_POLICY, own_subcode, own_reason),
        };
        if reason.is_empty() {
            let src = match source {
                FireSource::JobAttribute => "job attribute",
                FireSource::SystemMacro => "system macro",
                _ => "UNKNOWN (never set)",
            };
            let shown = match source {
                FireSource::JobAttribute | FireSource::SystemMacro => unparsed,
                _ => "",
            };
            let val = match value {
                0 => "FALSE",
                1 => "TRUE",
                _ => "UNDEFINED",
            };
            reason = format!("The {src} {expr} expression '{shown}' evaluated to {val}");
        }
        Firing {
            action,
            expr: expr.to_owned(),
            reason,
            code,
            subcode,
            value,
            source,
        }
    }
}

/// One `SYSTEM_PERIODIC_*` expression.
#[derive(Clone, Debug)]
pub struct SystemPolicy {
    /// The tag of a named policy (`MEM` for `SYSTEM_PERIODIC_HOLD_MEM`); empty for the plain
    /// knob.
    pub tag: String,
    /// The knob's value as configured (the text reasons quote).
    pub text: String,
    /// `None` for a plain knob that does not parse (it never fires).
    expr: Option<Expr>,
    /// `<KNOB>_SUBCODE` and `<KNOB>_REASON`, parsed as the reference's `EvaluateExpr`
    /// parses them.
    subcode: Option<Expr>,
    reason: Option<Expr>,
}

/// The periodic kinds of system policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SysKind {
    Hold,
    Release,
    Remove,
    Vacate,
    /// `OnExitHold`: no system counterpart.
    None,
}

/// The pool's `SYSTEM_PERIODIC_*` expressions, and the evaluator of a job's policy.
#[derive(Clone, Debug, Default)]
pub struct UserPolicy {
    holds: Vec<SystemPolicy>,
    releases: Vec<SystemPolicy>,
    removes: Vec<SystemPolicy>,
    vacates: Vec<SystemPolicy>,
    warnings: Vec<String>,
}

const SYSTEM_PERIODIC_HOLD: &str = "SYSTEM_PERIODIC_HOLD";
const SYSTEM_PERIODIC_RELEASE: &str = "SYSTEM_PERIODIC_RELEASE";
const SYSTEM_PERIODIC_REMOVE: &str = "SYSTEM_PERIODIC_REMOVE";
const SYSTEM_PERIODIC_VACATE: &str = "SYSTEM_PERIODIC_VACATE";

impl UserPolicy {
    /// A policy with no system expressions: only the job's own.
    pub fn new() -> UserPolicy {
        UserPolicy::default()
    }

    /// Reads `SYSTEM_PERIODIC_{HOLD,RELEASE,REMOVE,VACATE}`, their `_NAMES` lists and the
    /// named expressions, as `UserPolicy::Init` does. Expressions that are literally false are
    /// dropped; invalid named ones are dropped with a warning ([`UserPolicy::warnings`]), and
    /// so is a knob whose macros cannot be expanded.
    pub fn from_config(config: &Config) -> UserPolicy {
        let mut loader = Loader {
            config,
            warnings: Vec::new(),
        };
        UserPolicy {
            holds: loader.policy_list(SYSTEM_PERIODIC_HOLD),
            releases: loader.policy_list(SYSTEM_PERIODIC_RELEASE),
            removes: loader.policy_list(SYSTEM_PERIODIC_REMOVE),
            vacates: loader.policy_list(SYSTEM_PERIODIC_VACATE),
            warnings: loader.warnings,
        }
    }

    /// The warnings reading the configuration gave, as HTCondor logs them
    /// (`WARNING: ignoring invalid SYSTEM_PERIODIC_HOLD_MEM expression : ...`).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The system policies of one kind, in evaluation order (`"HOLD"`, `"RELEASE"`,
    /// `"REMOVE"`, `"VACATE"`).
    pub fn system_policies(&self, kind: &str) -> &[SystemPolicy] {
        match kind.to_ascii_uppercase().as_str() {
            "HOLD" => &self.holds,
            "RELEASE" => &self.releases,
            "REMOVE" => &self.removes,
            "VACATE" => &self.vacates,
            _ => &[],
        }
    }

    /// `PERIODIC_ONLY`: for the schedd's periodic pass (every `PERIODIC_EXPR_INTERVAL`) over
    /// every job it is responsible for ([`schedd_evaluates`]), and for the shadow's timer on a
    /// running job; `status` is the job's `JobStatus`; `now` replaces `time(NULL)` in the
    /// built-in duration checks. While the job has a `ShadowBday` (it is running, outside the
    /// scheduler universe) its `RemoteWallClockTime` is evaluated including the current run,
    /// as the shadow evaluates it.
    pub fn periodic(&self, job: &ClassAd, status: i64, now: i64) -> Firing {
        with_run_time(job, now, |ad| self.analyze(ad, false, status, now))
    }

    /// `PERIODIC_THEN_EXIT`: when a job's process has exited; the ad carries `ExitBySignal`,
    /// `ExitCode` or `ExitSignal`, `NumJobCompletions` already counted (see
    /// [`crate::schedd::exit::exit_updates`]); the status is the ad's `JobStatus`.
    /// `RemoveFromQueue` means the job completes, `StaysInQueue` that it runs again.
    pub fn at_exit(&self, job: &ClassAd, now: i64) -> Firing {
        let Some(status) = lookup_int(job, "JobStatus") else {
            let mut f = Firing::stays();
            f.action = PolicyAction::UndefinedEval;
            return f;
        };
        with_run_time(job, now, |ad| self.analyze(ad, true, status, now))
    }

    /// `AnalyzePolicy`.
    fn analyze(&self, ad: &ClassAd, at_exit: bool, state: i64, now: i64) -> Firing {
        const RUNNING: i64 = JobStatus::Running as i64;
        const SUSPENDED: i64 = JobStatus::Suspended as i64;
        const REMOVED: i64 = JobStatus::Removed as i64;
        const HELD: i64 = JobStatus::Held as i64;
        const COMPLETED: i64 = JobStatus::Completed as i64;

        if state == REMOVED {
            if !at_exit {
                return Firing::stays();
            }
            return Firing::new(
                PolicyAction::RemoveFromQueue,
                "OnExitRemove",
                FireSource::JobAttribute,
                1,
                "true",
                String::new(),
                0,
            );
        }

        if state == RUNNING || state == SUSPENDED {
            let bday = lookup_int(ad, "ShadowBday");
            if let (Some(allowed), Some(bday)) = (lookup_int(ad, "AllowedJobDuration"), bday) {
                if now - bday >= allowed {
                    return Firing::new(
                        PolicyAction::HoldInQueue,
                        "AllowedJobDuration",
                        FireSource::JobDuration,
                        -1,
                        "",
                        format!(
                            "The job exceeded allowed job duration of {}",
                            format_time_short(allowed)
                        ),
                        0,
                    );
                }
            }
            if let (Some(allowed), Some(mut began), Some(bday)) = (
                lookup_int(ad, "AllowedExecuteDuration"),
                lookup_int(ad, "JobCurrentStartExecutingDate"),
                bday,
            ) {
                if began >= bday {
                    if let Some(tof) = lookup_int(ad, "TransferOutFinished") {
                        if tof > began {
                            began = tof;
                        }
                    }
                    if now - began > allowed {
                        return Firing::new(
                            PolicyAction::HoldInQueue,
                            "AllowedExecuteDuration",
                            FireSource::ExecuteDuration,
                            -1,
                            "",
                            format!(
                                "The job exceeded allowed execute duration of {}",
                                format_time_short(allowed)
                            ),
                            0,
                        );
                    }
                }
            }
            if !at_exit {
                if let Some(f) = self.single(
                    ad,
                    "PeriodicVacate",
                    SysKind::Vacate,
                    PolicyAction::VacateFromRunning,
                ) {
                    return f;
                }
            }
        }

        // TimerRemove: an absolute time.
        let timer = match lookup_int(ad, "TimerRemove") {
            Some(t) => t,
            None => match ad.lookup("TimerRemove") {
                Some(e) => {
                    return Firing::new(
                        PolicyAction::UndefinedEval,
                        "TimerRemove",
                        FireSource::JobAttribute,
                        -1,
                        &expr_to_old_string(e),
                        String::new(),
                        0,
                    )
                }
                None => -1,
            },
        };
        if timer >= 0 && timer < now {
            let unparsed = ad.lookup("TimerRemove").map(expr_to_old_string);
            return Firing::new(
                PolicyAction::RemoveFromQueue,
                "TimerRemove",
                FireSource::JobAttribute,
                1,
                unparsed.as_deref().unwrap_or(""),
                String::new(),
                0,
            );
        }

        if state != HELD && state != COMPLETED {
            if let Some(f) =
                self.single(ad, "PeriodicHold", SysKind::Hold, PolicyAction::HoldInQueue)
            {
                return f;
            }
        }
        if state == HELD
            && lookup_int(ad, "HoldReasonCode").unwrap_or(0) != hold_codes::USER_REQUEST
        {
            if let Some(f) = self.single(
                ad,
                "PeriodicRelease",
                SysKind::Release,
                PolicyAction::ReleaseFromHold,
            ) {
                return f;
            }
        }
        if let Some(f) = self.single(
            ad,
            "PeriodicRemove",
            SysKind::Remove,
            PolicyAction::RemoveFromQueue,
        ) {
            return f;
        }
        if !at_exit {
            return Firing::stays();
        }

        // The exit attributes must be there; the reference then reports the last expression it
        // looked at, with no source.
        let has = |name: &str| ad.lookup(name).is_some();
        if !has("ExitBySignal") || (!has("ExitCode") && !has("ExitSignal")) {
            return Firing::new(
                PolicyAction::UndefinedEval,
                "PeriodicRemove",
                FireSource::NotYet,
                -1,
                "",
                String::new(),
                0,
            );
        }

        if let Some(f) = self.single(ad, "OnExitHold", SysKind::None, PolicyAction::HoldInQueue) {
            return f;
        }

        if let Some(e) = ad.lookup("OnExitRemove") {
            let v = ad.eval_attr("OnExitRemove");
            if v.as_number_int().map(|n| n as i32) == Some(0) {
                return Firing::new(
                    PolicyAction::StaysInQueue,
                    "OnExitRemove",
                    FireSource::JobAttribute,
                    0,
                    &expr_to_old_string(e),
                    String::new(),
                    0,
                );
            }
        }
        // No expression, or anything but false: the job leaves the queue. (The reference only
        // unparses the expression when it is false, so the text quotes nothing.)
        Firing::new(
            PolicyAction::RemoveFromQueue,
            "OnExitRemove",
            FireSource::JobAttribute,
            1,
            "",
            String::new(),
            0,
        )
    }

    /// `AnalyzeSinglePeriodicPolicy`: the job's attribute, then the system policies of the
    /// kind.
    fn single(
        &self,
        ad: &ClassAd,
        attr: &str,
        kind: SysKind,
        on_true: PolicyAction,
    ) -> Option<Firing> {
        if let Some(e) = ad.lookup(attr) {
            if fires(&ad.eval_attr(attr)) {
                let subcode =
                    lookup_int(ad, &format!("{attr}SubCode")).map_or(0, |n| n as i32 as i64);
                let reason = match ad.eval_attr(&format!("{attr}Reason")) {
                    Value::Str(s) => s.to_string(),
                    _ => String::new(),
                };
                return Some(Firing::new(
                    on_true,
                    attr,
                    FireSource::JobAttribute,
                    1,
                    &expr_to_old_string(e),
                    reason,
                    subcode,
                ));
            }
        }
        let (policies, name) = match kind {
            SysKind::Hold => (&self.holds, SYSTEM_PERIODIC_HOLD),
            SysKind::Release => (&self.releases, SYSTEM_PERIODIC_RELEASE),
            SysKind::Remove => (&self.removes, SYSTEM_PERIODIC_REMOVE),
            // HTCondor 24.0 loads the vacate list but its evaluator never looks at it.
            SysKind::Vacate | SysKind::None => return None,
        };
        for p in policies {
            let Some(e) = &p.expr else { continue };
            let v = eval_expr(e, Some(ad), None).unwrap_or(Value::Error);
            if !fires(&v) {
                continue;
            }
            let subcode = p
                .subcode
                .as_ref()
                .and_then(|e| eval_expr(e, Some(ad), None).ok())
                .and_then(|v| v.as_number_int())
                .map_or(0, |n| n as i32 as i64);
            let reason = match p
                .reason
                .as_ref()
                .and_then(|e| eval_expr(e, Some(ad), None).ok())
            {
                Some(Value::Str(s)) => s.to_string(),
                _ => String::new(),
            };
            return Some(Firing::new(
                on_true,
                name,
                FireSource::SystemMacro,
                1,
                &p.text,
                reason,
                subcode,
            ));
        }
        None
    }
}

/// Whether a policy value fires: a number (or boolean) that is not zero.
fn fires(v: &Value) -> bool {
    v.as_number_int().is_some_and(|n| n != 0)
}

/// Evaluates `f` on the job with `RemoteWallClockTime` including the current run, as the
/// shadow's `updateJobTime` has it (only for a job with a `ShadowBday`, and not in the
/// scheduler universe, whose jobs the schedd evaluates as they are).
fn with_run_time<T>(job: &ClassAd, now: i64, f: impl FnOnce(&ClassAd) -> T) -> T {
    let bday = lookup_int(job, "ShadowBday").unwrap_or(0);
    let universe = lookup_int(job, "JobUniverse").unwrap_or(5);
    if bday == 0 || universe == 7 {
        return f(job);
    }
    let mut ad = job.clone();
    let previous = lookup_real(job, "RemoteWallClockTime").unwrap_or(0.0);
    ad.insert(
        "RemoteWallClockTime",
        Expr::lit(previous + (now - bday) as f64),
    );
    f(&ad)
}

/// Knob lookups that turn expansion errors into warnings.
struct Loader<'c> {
    config: &'c Config,
    warnings: Vec<String>,
}

impl Loader<'_> {
    fn get(&mut self, knob: &str) -> Option<String> {
        match self.config.string(knob) {
            Ok(v) => v,
            Err(e) => {
                self.warnings.push(format!("WARNING: ignoring {knob}: {e}"));
                None
            }
        }
    }

    /// `load_policy_list`: the named policies of `<base>_NAMES`, then `<base>` itself.
    fn policy_list(&mut self, base: &str) -> Vec<SystemPolicy> {
        let mut out = Vec::new();
        let mut tags: Vec<String> = Vec::new();
        if let Some(names) = self.get(&format!("{base}_NAMES")) {
            for t in tokens(&names, DEFAULT_DELIMS) {
                if !tags.iter().any(|x| x.eq_ignore_ascii_case(&t)) {
                    tags.push(t);
                }
            }
        }
        for tag in tags {
            if tag.eq_ignore_ascii_case("NAMES") {
                continue;
            }
            let knob = format!("{base}_{tag}");
            let Some(text) = self.get(&knob) else {
                continue;
            };
            let Ok(expr) = parse_old_expr(&text) else {
                self.warnings.push(format!(
                    "WARNING: ignoring invalid {knob} expression : {text}"
                ));
                continue;
            };
            if is_literal_false(&expr) {
                continue;
            }
            let p = self.policy(&knob, tag, text, Some(expr));
            out.push(p);
        }
        if let Some(text) = self.get(base) {
            let expr = parse_old_expr(&text).ok();
            if !expr.as_ref().is_some_and(is_literal_false) {
                let p = self.policy(base, String::new(), text, expr);
                out.push(p);
            }
        }
        out
    }

    fn policy(
        &mut self,
        knob: &str,
        tag: String,
        text: String,
        expr: Option<Expr>,
    ) -> SystemPolicy {
        let subcode = self
            .get(&format!("{knob}_SUBCODE"))
            .and_then(|t| parse_partial(&t));
        let reason = self
            .get(&format!("{knob}_REASON"))
            .and_then(|t| parse_partial(&t));
        SystemPolicy {
            tag,
            text,
            expr,
            subcode,
            reason,
        }
    }
}

/// The reference's `ClassAd::EvaluateExpr(string)`: a new-syntax expression, text after it
/// ignored.
fn parse_partial(text: &str) -> Option<Expr> {
    Parser::new(text, Dialect::New).expression().ok()
}

/// `ExprTreeIsLiteralBool` false: a (parenthesized) literal number or boolean equal to zero.
fn is_literal_false(e: &Expr) -> bool {
    match e {
        Expr::Paren(inner) => is_literal_false(inner),
        Expr::Lit(v) => v.as_number_int() == Some(0),
        _ => false,
    }
}

/// `format_time_short`: `format_time`'s `days+hh:mm:ss` without the leading blanks, zeros,
/// `+` and, when only minutes and seconds are left, the colon (`1+01:01:01`, `1:00:00`,
/// `05:00`, `00:10`).
pub fn format_time_short(secs: i64) -> String {
    let full = crate::output::time::format_time(secs);
    let bytes = full.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c != b' ' && c != b'0' && c != b'+' {
            if c == b':' {
                i += 1;
            }
            break;
        }
        i += 1;
    }
    full[i..].to_owned()
}

/// `ResponsibleForPeriodicExprs`: whether the schedd's periodic pass evaluates this job's
/// policy. Not for externally managed jobs (`Managed = "External"`), nor jobs held while their
/// input is spooled; scheduler- and local-universe jobs always; others when idle, or when
/// held, completed or removed with no shadow (`has_shadow`) left. A running job's policy is
/// its shadow's to evaluate: a daemon playing both roles calls [`UserPolicy::periodic`] for
/// those too.
pub fn schedd_evaluates(job: &ClassAd, status: i64, has_shadow: bool) -> bool {
    let managed = crate::output::render::lookup_str(job, "Managed");
    if managed.is_some_and(|m| m.eq_ignore_ascii_case("External")) {
        return false;
    }
    if status == JobStatus::Held as i64
        && lookup_int(job, "HoldReasonCode") == Some(hold_codes::SPOOLING_INPUT)
    {
        return false;
    }
    let universe = lookup_int(job, "JobUniverse").unwrap_or(5);
    if universe == 7 || universe == 12 {
        return true;
    }
    match JobStatus::from_code(status) {
        Some(JobStatus::Idle) => true,
        Some(JobStatus::Held | JobStatus::Completed | JobStatus::Removed) => !has_shadow,
        _ => false,
    }
}
