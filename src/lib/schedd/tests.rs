//! Tests of the user job policy and the run bookkeeping, against the behaviour read from
//! HTCondor 24.0's user_job_policy.cpp, schedd.cpp and the shadow.

use crate::classad::unparse::expr_to_old_string;
use crate::classad::{parse_old_ad, ClassAd, Expr, Value};
use crate::config::{Config, Environment, LoadOptions, PlatformDirs};
use crate::output::render::{lookup_int, lookup_real, lookup_str};
use crate::queue::JobStatus;

use super::exit::*;
use super::policy::*;

const NOW: i64 = 1_700_000_000;

/// A job ad from old-syntax lines.
fn ad(text: &str) -> ClassAd {
    parse_old_ad(text).unwrap()
}

/// An idle vanilla job with the policy defaults condor_submit writes.
fn job(extra: &str) -> ClassAd {
    let mut a = ad(
        "ClusterId = 1\nProcId = 0\nJobUniverse = 5\nJobStatus = 1\n\
         PeriodicHold = false\nPeriodicRelease = false\nPeriodicRemove = false\n\
         PeriodicVacate = false\nOnExitHold = false\nOnExitRemove = true\n\
         NumJobCompletions = 0\nNumJobStarts = 0\nRemoteWallClockTime = 0.0\n\
         CumulativeSlotTime = 0\nCommittedTime = 0\nCommittedSlotTime = 0\n\
         RemoteUserCpu = 0.0\nRemoteSysCpu = 0.0\nCumulativeRemoteUserCpu = 0.0\n\
         CumulativeRemoteSysCpu = 0.0\nExitBySignal = false\nQDate = 1699999000",
    );
    for (n, e) in ad(extra).iter() {
        a.insert(n, e.clone());
    }
    a
}

fn with(base: &ClassAd, extra: &str) -> ClassAd {
    let mut a = base.clone();
    for (n, e) in ad(extra).iter() {
        a.insert(n, e.clone());
    }
    a
}

fn config(text: &str) -> Config {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("condor_config");
    std::fs::write(&path, text).unwrap();
    let vars = vec![(
        "CONDOR_CONFIG".to_owned(),
        path.to_string_lossy().into_owned(),
    )];
    Config::load_with(LoadOptions {
        env: Environment::from_pairs(vars),
        subsystem: "SCHEDD".into(),
        local_name: None,
        root_config: None,
        keep_defaults: false,
        dirs: PlatformDirs {
            data_dir: Some("/pool".into()),
            config_dir: Some(dir.path().join("user")),
        },
        machine: None,
    })
    .unwrap()
}

fn periodic(p: &UserPolicy, j: &ClassAd) -> Firing {
    let status = lookup_int(j, "JobStatus").unwrap();
    p.periodic(j, status, NOW)
}

fn int_set(u: &AdUpdate, name: &str) -> Option<i64> {
    u.value(name).and_then(Value::as_number_int)
}

fn real_set(u: &AdUpdate, name: &str) -> Option<f64> {
    u.value(name).and_then(Value::as_number_real)
}

/// `NumHoldsByReason.<name>`.
fn holds_by_reason(job: &ClassAd, name: &str) -> Option<i64> {
    let e = crate::classad::parse_expr(&format!("NumHoldsByReason.{name}")).unwrap();
    job.eval_expr(&e, None).as_int()
}

fn str_set(u: &AdUpdate, name: &str) -> Option<String> {
    u.value(name).and_then(|v| v.as_str().map(str::to_owned))
}

// ---------------------------------------------------------------------------------------------
// The policy

#[test]
fn nothing_fires_by_default() {
    let p = UserPolicy::new();
    let f = periodic(&p, &job(""));
    assert_eq!(f, Firing::stays());
    assert!(!f.fired());
    assert_eq!(f.reason_or_unknown(), "Unknown user policy expression");
}

#[test]
fn periodic_hold_reason_text_and_code() {
    let p = UserPolicy::new();
    let f = periodic(&p, &job("x = 2\nPeriodicHold = x > 1"));
    assert_eq!(f.action, PolicyAction::HoldInQueue);
    assert_eq!(f.expr, "PeriodicHold");
    assert_eq!(
        f.reason,
        "The job attribute PeriodicHold expression 'x > 1' evaluated to TRUE"
    );
    assert_eq!((f.code, f.subcode, f.value), (hold_codes::JOB_POLICY, 0, 1));
    assert_eq!(f.source, FireSource::JobAttribute);
}

#[test]
fn periodic_hold_reason_and_subcode_overrides() {
    let p = UserPolicy::new();
    let j = job(
        "x = 2\nPeriodicHold = x > 1\nPeriodicHoldReason = strcat(\"x is \", x)\n\
         PeriodicHoldSubCode = 40 + x",
    );
    let f = periodic(&p, &j);
    assert_eq!(f.reason, "x is 2");
    assert_eq!((f.code, f.subcode), (3, 42));
    // An empty or non-string reason gives the standard text; a real subcode is truncated.
    for reason in ["\"\"", "17", "undefined"] {
        let j2 = with(
            &j,
            &format!("PeriodicHoldReason = {reason}\nPeriodicHoldSubCode = 7.9"),
        );
        let f = periodic(&p, &j2);
        assert_eq!(
            f.reason,
            "The job attribute PeriodicHold expression 'x > 1' evaluated to TRUE"
        );
        assert_eq!(f.subcode, 7);
    }
}

#[test]
fn what_fires() {
    let p = UserPolicy::new();
    // Non-zero numbers and true fire; zero, false, undefined, error and strings do not.
    for (expr, fires) in [
        ("true", true),
        ("1", true),
        ("-3", true),
        ("2.5", true),
        ("0.4", false),
        ("0", false),
        ("false", false),
        ("undefined", false),
        ("error", false),
        ("NoSuchAttr > 1", false),
        ("\"yes\"", false),
        ("1/0", false),
    ] {
        let f = periodic(&p, &job(&format!("PeriodicRemove = {expr}")));
        let want = if fires {
            PolicyAction::RemoveFromQueue
        } else {
            PolicyAction::StaysInQueue
        };
        assert_eq!(f.action, want, "PeriodicRemove = {expr}");
    }
}

#[test]
fn periodic_release_and_user_holds() {
    let p = UserPolicy::new();
    let held =
        job("JobStatus = 5\nHoldReasonCode = 3\nPeriodicRelease = NumHolds < 3\nNumHolds = 1");
    let f = periodic(&p, &held);
    assert_eq!(f.action, PolicyAction::ReleaseFromHold);
    assert_eq!(
        f.reason,
        "The job attribute PeriodicRelease expression 'NumHolds < 3' evaluated to TRUE"
    );
    // Jobs held by a user are never released by the policy.
    let by_user = with(&held, "HoldReasonCode = 1");
    assert_eq!(periodic(&p, &by_user).action, PolicyAction::StaysInQueue);
    // An idle job is not released; a held one is not held again.
    let idle = with(&held, "JobStatus = 1");
    assert_eq!(periodic(&p, &idle).action, PolicyAction::StaysInQueue);
    let held_hold = with(&held, "PeriodicRelease = false\nPeriodicHold = true");
    assert_eq!(periodic(&p, &held_hold).action, PolicyAction::StaysInQueue);
}

#[test]
fn order_of_checks() {
    let p = UserPolicy::new();
    // Hold before remove.
    let j = job("PeriodicHold = true\nPeriodicRemove = true");
    assert_eq!(periodic(&p, &j).expr, "PeriodicHold");
    // Held and completed jobs are not held: remove is next.
    let held = with(&j, "JobStatus = 5\nHoldReasonCode = 3");
    assert_eq!(periodic(&p, &held).expr, "PeriodicRemove");
    let completed = with(&j, "JobStatus = 4");
    assert_eq!(periodic(&p, &completed).expr, "PeriodicRemove");
    // Release before remove.
    let rel = with(&held, "PeriodicRelease = true");
    assert_eq!(periodic(&p, &rel).expr, "PeriodicRelease");
    // TimerRemove before the periodic expressions.
    let timer = with(&j, "TimerRemove = 100");
    let f = periodic(&p, &timer);
    assert_eq!(f.expr, "TimerRemove");
    assert_eq!(f.action, PolicyAction::RemoveFromQueue);
    // For a running job: durations, then PeriodicVacate, then TimerRemove.
    let running = with(
        &timer,
        &format!(
            "JobStatus = 2\nShadowBday = {}\nPeriodicVacate = true",
            NOW - 10
        ),
    );
    assert_eq!(periodic(&p, &running).expr, "PeriodicVacate");
    let over = with(&running, "AllowedJobDuration = 5");
    assert_eq!(periodic(&p, &over).expr, "AllowedJobDuration");
}

#[test]
fn timer_remove() {
    let p = UserPolicy::new();
    let f = periodic(&p, &job(&format!("TimerRemove = {}", NOW - 1)));
    assert_eq!(f.action, PolicyAction::RemoveFromQueue);
    assert_eq!(
        f.reason,
        format!(
            "The job attribute TimerRemove expression '{}' evaluated to TRUE",
            NOW - 1
        )
    );
    assert_eq!(f.code, hold_codes::JOB_POLICY);
    // Now or later: nothing; negative: never.
    for t in [NOW, NOW + 100, -1] {
        let f = periodic(&p, &job(&format!("TimerRemove = {t}")));
        assert_eq!(f.action, PolicyAction::StaysInQueue, "TimerRemove = {t}");
    }
    // Not a number: UNDEFINED.
    let f = periodic(&p, &job("TimerRemove = \"soon\""));
    assert_eq!(f.action, PolicyAction::UndefinedEval);
    assert_eq!(
        f.reason,
        "The job attribute TimerRemove expression '\"soon\"' evaluated to UNDEFINED"
    );
    assert_eq!((f.code, f.value), (hold_codes::JOB_POLICY_UNDEFINED, -1));
    let f = periodic(&p, &job("TimerRemove = NoSuchAttr"));
    assert_eq!(f.action, PolicyAction::UndefinedEval);
    assert_eq!(
        f.reason,
        "The job attribute TimerRemove expression 'NoSuchAttr' evaluated to UNDEFINED"
    );
}

#[test]
fn allowed_job_duration() {
    let p = UserPolicy::new();
    let j = job(&format!(
        "JobStatus = 2\nShadowBday = {}\nAllowedJobDuration = 3600",
        NOW - 3600
    ));
    let f = periodic(&p, &j);
    assert_eq!(f.action, PolicyAction::HoldInQueue);
    assert_eq!(f.expr, "AllowedJobDuration");
    assert_eq!(f.reason, "The job exceeded allowed job duration of 1:00:00");
    assert_eq!((f.code, f.subcode), (hold_codes::JOB_DURATION_EXCEEDED, 0));
    assert_eq!(f.source, FireSource::JobDuration);
    // Not yet; not running; no birthday.
    let early = with(&j, &format!("ShadowBday = {}", NOW - 3599));
    assert_eq!(periodic(&p, &early).action, PolicyAction::StaysInQueue);
    let idle = with(&j, "JobStatus = 1");
    assert_eq!(periodic(&p, &idle).action, PolicyAction::StaysInQueue);
    let suspended = with(&j, "JobStatus = 7");
    assert_eq!(periodic(&p, &suspended).action, PolicyAction::HoldInQueue);
    // Checked at exit too.
    let exited = with(&j, "ExitCode = 0");
    assert_eq!(p.at_exit(&exited, NOW).expr, "AllowedJobDuration");
}

#[test]
fn allowed_execute_duration() {
    let p = UserPolicy::new();
    let j = job(&format!(
        "JobStatus = 2\nShadowBday = {}\nJobCurrentStartExecutingDate = {}\n\
         AllowedExecuteDuration = 300",
        NOW - 1000,
        NOW - 301
    ));
    let f = periodic(&p, &j);
    assert_eq!(f.action, PolicyAction::HoldInQueue);
    assert_eq!(f.expr, "AllowedExecuteDuration");
    assert_eq!(
        f.reason,
        "The job exceeded allowed execute duration of 05:00"
    );
    assert_eq!(f.code, hold_codes::JOB_EXECUTE_EXCEEDED);
    // Exactly the allowed time is allowed.
    let exact = with(&j, &format!("JobCurrentStartExecutingDate = {}", NOW - 300));
    assert_eq!(periodic(&p, &exact).action, PolicyAction::StaysInQueue);
    // A start date from an earlier run does not count.
    let stale = with(
        &j,
        &format!("JobCurrentStartExecutingDate = {}", NOW - 2000),
    );
    assert_eq!(periodic(&p, &stale).action, PolicyAction::StaysInQueue);
    // A checkpoint's output transfer restarts the clock.
    let ckpt = with(&j, &format!("TransferOutFinished = {}", NOW - 100));
    assert_eq!(periodic(&p, &ckpt).action, PolicyAction::StaysInQueue);
}

#[test]
fn periodic_vacate() {
    let p = UserPolicy::new();
    let j = job(&format!(
        "JobStatus = 2\nShadowBday = {}\nPeriodicVacate = NumJobStarts > 0\nNumJobStarts = 1",
        NOW - 10
    ));
    let f = periodic(&p, &j);
    assert_eq!(f.action, PolicyAction::VacateFromRunning);
    assert_eq!(
        f.reason,
        "The job attribute PeriodicVacate expression 'NumJobStarts > 0' evaluated to TRUE"
    );
    assert_eq!(f.code, hold_codes::JOB_POLICY);
    assert_eq!(f.vacate_code(), hold_codes::JOB_POLICY_VACATE);
    // Only running jobs, and only periodically.
    let idle = with(&j, "JobStatus = 1");
    assert_eq!(periodic(&p, &idle).action, PolicyAction::StaysInQueue);
    let exited = with(&j, "ExitCode = 0");
    assert_eq!(
        p.at_exit(&exited, NOW).action,
        PolicyAction::RemoveFromQueue
    );
}

#[test]
fn removed_jobs() {
    let p = UserPolicy::new();
    let j = job("JobStatus = 3\nPeriodicRemove = true\nPeriodicHold = true\nOnExitRemove = false");
    assert_eq!(periodic(&p, &j), Firing::stays());
    let f = p.at_exit(&with(&j, "ExitCode = 1"), NOW);
    assert_eq!(f.action, PolicyAction::RemoveFromQueue);
    assert_eq!(f.expr, "OnExitRemove");
    assert_eq!(
        f.reason,
        "The job attribute OnExitRemove expression 'true' evaluated to TRUE"
    );
    assert_eq!(f.code, hold_codes::JOB_POLICY);
}

#[test]
fn run_time_includes_the_current_run() {
    let p = UserPolicy::new();
    let j = job(&format!(
        "JobStatus = 2\nShadowBday = {}\nRemoteWallClockTime = 50.0\n\
         PeriodicHold = RemoteWallClockTime > 200",
        NOW - 151
    ));
    assert_eq!(periodic(&p, &j).action, PolicyAction::HoldInQueue);
    // The ad itself is not changed.
    assert_eq!(lookup_real(&j, "RemoteWallClockTime"), Some(50.0));
    let idle = with(&j, "JobStatus = 1\nShadowBday = undefined");
    assert_eq!(periodic(&p, &idle).action, PolicyAction::StaysInQueue);
    // The schedd evaluates scheduler-universe jobs as they are.
    let sched = with(&j, "JobUniverse = 7");
    assert_eq!(periodic(&p, &sched).action, PolicyAction::StaysInQueue);
}

#[test]
fn at_exit_on_exit_remove() {
    let p = UserPolicy::new();
    let j = job("JobStatus = 2\nExitCode = 0\nNumJobCompletions = 1");
    let f = p.at_exit(&j, NOW);
    assert_eq!(f.action, PolicyAction::RemoveFromQueue);
    assert_eq!(f.expr, "OnExitRemove");
    // The reference quotes the expression only when it is false.
    assert_eq!(
        f.reason,
        "The job attribute OnExitRemove expression '' evaluated to TRUE"
    );
    let keep = with(&j, "OnExitRemove = ExitCode == 0\nExitCode = 2");
    let f = p.at_exit(&keep, NOW);
    assert_eq!(f.action, PolicyAction::StaysInQueue);
    assert_eq!(
        f.reason,
        "The job attribute OnExitRemove expression 'ExitCode == 0' evaluated to FALSE"
    );
    assert_eq!((f.code, f.value), (hold_codes::JOB_POLICY, 0));
    // No OnExitRemove, or one that is undefined or a string: the job leaves the queue.
    for e in ["undefined", "\"no\"", "NoSuchAttr"] {
        let j2 = with(&j, &format!("OnExitRemove = {e}"));
        assert_eq!(
            p.at_exit(&j2, NOW).action,
            PolicyAction::RemoveFromQueue,
            "{e}"
        );
    }
    let mut none = j.clone();
    none.remove("OnExitRemove");
    assert_eq!(p.at_exit(&none, NOW).action, PolicyAction::RemoveFromQueue);
    // A real between 0 and 1 truncates to false.
    let real = with(&j, "OnExitRemove = 0.5");
    assert_eq!(p.at_exit(&real, NOW).action, PolicyAction::StaysInQueue);
}

#[test]
fn at_exit_on_exit_hold_first() {
    let p = UserPolicy::new();
    let j = job("JobStatus = 2\nExitCode = 3\nOnExitHold = ExitCode != 0\n\
         OnExitHoldReason = strcat(\"exit \", ExitCode)\nOnExitHoldSubCode = ExitCode");
    let f = p.at_exit(&j, NOW);
    assert_eq!(f.action, PolicyAction::HoldInQueue);
    assert_eq!(f.expr, "OnExitHold");
    assert_eq!(f.reason, "exit 3");
    assert_eq!((f.code, f.subcode), (hold_codes::JOB_POLICY, 3));
    let plain = with(
        &j,
        "OnExitHoldReason = undefined\nOnExitHoldSubCode = undefined",
    );
    let f = p.at_exit(&plain, NOW);
    assert_eq!(
        f.reason,
        "The job attribute OnExitHold expression 'ExitCode != 0' evaluated to TRUE"
    );
    assert_eq!(f.subcode, 0);
    // The periodic expressions come first, at exit too.
    let removed = with(&j, "PeriodicRemove = ExitCode > 2");
    assert_eq!(p.at_exit(&removed, NOW).expr, "PeriodicRemove");
}

#[test]
fn at_exit_needs_the_exit_attributes() {
    let p = UserPolicy::new();
    let mut j = job("JobStatus = 2");
    j.remove("ExitBySignal");
    for ad in [j.clone(), with(&j, "ExitBySignal = false")] {
        let f = p.at_exit(&ad, NOW);
        assert_eq!(f.action, PolicyAction::UndefinedEval);
        assert_eq!(
            f.reason,
            "The UNKNOWN (never set) PeriodicRemove expression '' evaluated to UNDEFINED"
        );
        assert_eq!(f.code, 0);
    }
    // ExitSignal alone is enough.
    let signalled = with(&j, "ExitBySignal = true\nExitSignal = 9");
    assert_eq!(
        p.at_exit(&signalled, NOW).action,
        PolicyAction::RemoveFromQueue
    );
    // No JobStatus: undefined, with no reason.
    let mut nostatus = signalled.clone();
    nostatus.remove("JobStatus");
    let f = p.at_exit(&nostatus, NOW);
    assert_eq!(f.action, PolicyAction::UndefinedEval);
    assert_eq!(f.reason, "");
}

/// A submit description's job ad, as condor_submit writes it.
fn submitted(text: &str) -> ClassAd {
    use crate::submit::{SubmitContext, SubmitFile};
    let cfg = config("");
    let ctx = SubmitContext {
        config: &cfg,
        cwd: std::env::temp_dir(),
        env: Environment::from_pairs(Vec::<(String, String)>::new()),
        owner: "alice".into(),
        qdate: NOW - 1000,
        utc_offset: Some(0),
        submit_method: 0,
        remote: false,
        command_line: Default::default(),
        preset_items: None,
        run_commands: true,
    };
    let file = SubmitFile::parse(text, "test.sub", &ctx).unwrap();
    let job = file.jobs(1).next().unwrap().unwrap();
    job.flat_ad()
}

#[test]
fn submit_max_retries() {
    let j = submitted("executable = /bin/true\nmax_retries = 2\nqueue\n");
    assert_eq!(
        expr_to_old_string(j.lookup("OnExitRemove").unwrap()),
        "NumJobCompletions > JobMaxRetries || ExitCode =?= 0"
    );
    let p = UserPolicy::new();
    let run = |extra: &str| p.at_exit(&with(&j, &format!("JobStatus = 2\n{extra}")), NOW);
    // A failure within the retries runs again.
    let f = run("ExitCode = 1\nNumJobCompletions = 1");
    assert_eq!(f.action, PolicyAction::StaysInQueue);
    assert_eq!(
        f.reason,
        "The job attribute OnExitRemove expression 'NumJobCompletions > JobMaxRetries || ExitCode =?= 0' evaluated to FALSE"
    );
    assert_eq!(
        run("ExitCode = 1\nNumJobCompletions = 3").action,
        PolicyAction::RemoveFromQueue
    );
    assert_eq!(
        run("ExitCode = 0\nNumJobCompletions = 1").action,
        PolicyAction::RemoveFromQueue
    );
    // Killed by a signal: no exit code, so it runs again.
    assert_eq!(
        run("ExitBySignal = true\nExitSignal = 9\nNumJobCompletions = 1").action,
        PolicyAction::StaysInQueue
    );
}

#[test]
fn submit_success_exit_code_and_defaults() {
    let j = submitted("executable = /bin/true\nsuccess_exit_code = 3\nqueue\n");
    assert_eq!(
        expr_to_old_string(j.lookup("OnExitRemove").unwrap()),
        "NumJobCompletions > JobMaxRetries || ExitCode =?= JobSuccessExitCode"
    );
    let p = UserPolicy::new();
    let run = |extra: &str| p.at_exit(&with(&j, &format!("JobStatus = 2\n{extra}")), NOW);
    assert_eq!(
        run("ExitCode = 3\nNumJobCompletions = 1").action,
        PolicyAction::RemoveFromQueue
    );
    assert_eq!(
        run("ExitCode = 0\nNumJobCompletions = 1").action,
        PolicyAction::StaysInQueue
    );
    // Without either, OnExitRemove is true and nothing periodic fires.
    let plain = submitted("executable = /bin/true\nqueue\n");
    assert_eq!(
        periodic(&UserPolicy::new(), &plain).action,
        PolicyAction::StaysInQueue
    );
    let f = p.at_exit(&with(&plain, "JobStatus = 2\nExitCode = 1"), NOW);
    assert_eq!(f.action, PolicyAction::RemoveFromQueue);
    // A periodic_hold with its reason, as submit writes them.
    let held = submitted(
        "executable = /bin/true\nperiodic_hold = NumJobStarts > 1\n\
         periodic_hold_reason = \"too many starts\"\nperiodic_hold_subcode = 7\nqueue\n",
    );
    let f = periodic(&p, &with(&held, "NumJobStarts = 2"));
    assert_eq!(f.action, PolicyAction::HoldInQueue);
    assert_eq!(
        (f.reason.as_str(), f.code, f.subcode),
        ("too many starts", 3, 7)
    );
}

#[test]
fn system_policies() {
    let cfg = config(
        "SYSTEM_PERIODIC_HOLD = x > 1\n\
         SYSTEM_PERIODIC_HOLD_REASON = strcat(\"x was \", x)\n\
         SYSTEM_PERIODIC_HOLD_SUBCODE = x * 10\n\
         SYSTEM_PERIODIC_RELEASE = HoldReasonCode == 26\n\
         SYSTEM_PERIODIC_REMOVE = NumHolds > 5\n",
    );
    let p = UserPolicy::from_config(&cfg);
    assert!(p.warnings().is_empty());
    let f = periodic(&p, &job("x = 2"));
    assert_eq!(f.action, PolicyAction::HoldInQueue);
    assert_eq!(f.expr, "SYSTEM_PERIODIC_HOLD");
    assert_eq!(f.reason, "x was 2");
    assert_eq!((f.code, f.subcode), (hold_codes::SYSTEM_POLICY, 20));
    assert_eq!(f.source, FireSource::SystemMacro);
    assert_eq!(f.vacate_code(), hold_codes::SYSTEM_POLICY_VACATE);
    // The job's own expression comes first.
    let own = periodic(&p, &job("x = 2\nPeriodicHold = true"));
    assert_eq!(own.expr, "PeriodicHold");
    let f = periodic(&p, &job("JobStatus = 5\nHoldReasonCode = 26"));
    assert_eq!(f.action, PolicyAction::ReleaseFromHold);
    assert_eq!(
        f.reason,
        "The system macro SYSTEM_PERIODIC_RELEASE expression 'HoldReasonCode == 26' evaluated to TRUE"
    );
    assert_eq!((f.code, f.subcode), (hold_codes::SYSTEM_POLICY, 0));
    let f = periodic(&p, &job("NumHolds = 6"));
    assert_eq!(f.expr, "SYSTEM_PERIODIC_REMOVE");
    // System policies apply at exit too, before OnExitRemove.
    let f = p.at_exit(&job("JobStatus = 2\nExitCode = 0\nNumHolds = 9"), NOW);
    assert_eq!(f.expr, "SYSTEM_PERIODIC_REMOVE");
}

#[test]
fn system_policy_lists() {
    let cfg = config(
        "SYSTEM_PERIODIC_HOLD_NAMES = Mem, Disk names Bad Mem Off\n\
         SYSTEM_PERIODIC_HOLD_MEM = MemoryUsage > 100\n\
         SYSTEM_PERIODIC_HOLD_MEM_REASON = \"too much memory\"\n\
         SYSTEM_PERIODIC_HOLD_MEM_SUBCODE = 102\n\
         SYSTEM_PERIODIC_HOLD_DISK = DiskUsage > 100\n\
         SYSTEM_PERIODIC_HOLD_BAD = (x >\n\
         SYSTEM_PERIODIC_HOLD_OFF = (false)\n\
         SYSTEM_PERIODIC_HOLD = true\n\
         SYSTEM_PERIODIC_REMOVE = 0\n\
         SYSTEM_PERIODIC_VACATE = true\n",
    );
    let p = UserPolicy::from_config(&cfg);
    assert_eq!(
        p.warnings(),
        ["WARNING: ignoring invalid SYSTEM_PERIODIC_HOLD_Bad expression : (x >"]
    );
    let tags: Vec<&str> = p
        .system_policies("hold")
        .iter()
        .map(|s| s.tag.as_str())
        .collect();
    assert_eq!(tags, ["Mem", "Disk", ""]);
    assert!(p.system_policies("remove").is_empty());
    let f = periodic(&p, &job("MemoryUsage = 200\nDiskUsage = 200"));
    assert_eq!(f.expr, "SYSTEM_PERIODIC_HOLD");
    assert_eq!((f.reason.as_str(), f.subcode), ("too much memory", 102));
    let f = periodic(&p, &job("MemoryUsage = 1\nDiskUsage = 200"));
    assert_eq!(
        f.reason,
        "The system macro SYSTEM_PERIODIC_HOLD expression 'DiskUsage > 100' evaluated to TRUE"
    );
    let f = periodic(&p, &job("MemoryUsage = 1"));
    assert_eq!(
        f.reason,
        "The system macro SYSTEM_PERIODIC_HOLD expression 'true' evaluated to TRUE"
    );
    // SYSTEM_PERIODIC_VACATE is read, but HTCondor 24.0 never evaluates it.
    assert_eq!(p.system_policies("vacate").len(), 1);
    let running = job(&format!(
        "JobStatus = 2\nShadowBday = {}\nMemoryUsage = 1\nPeriodicHold = false",
        NOW - 5
    ));
    let f = periodic(&p, &running);
    assert_eq!(f.action, PolicyAction::HoldInQueue);
}

#[test]
fn a_plain_system_expression_that_does_not_parse_never_fires() {
    let p = UserPolicy::from_config(&config("SYSTEM_PERIODIC_REMOVE = (x >\n"));
    assert!(p.warnings().is_empty());
    assert_eq!(p.system_policies("remove").len(), 1);
    assert_eq!(
        periodic(&p, &job("x = 1")).action,
        PolicyAction::StaysInQueue
    );
}

#[test]
fn short_times() {
    assert_eq!(format_time_short(0), "00:00");
    assert_eq!(format_time_short(10), "00:10");
    assert_eq!(format_time_short(300), "05:00");
    assert_eq!(format_time_short(3600), "1:00:00");
    assert_eq!(format_time_short(36000), "10:00:00");
    assert_eq!(format_time_short(90_061), "1+01:01:01");
}

#[test]
fn who_evaluates() {
    let j = job("");
    assert!(schedd_evaluates(&j, 1, false));
    assert!(!schedd_evaluates(&j, 2, true));
    assert!(schedd_evaluates(&j, 5, false));
    assert!(!schedd_evaluates(&j, 5, true));
    assert!(schedd_evaluates(&j, 4, false));
    assert!(!schedd_evaluates(
        &with(&j, "HoldReasonCode = 16"),
        5,
        false
    ));
    assert!(!schedd_evaluates(
        &with(&j, "Managed = \"External\""),
        1,
        false
    ));
    assert!(schedd_evaluates(&with(&j, "JobUniverse = 7"), 2, true));
    assert!(schedd_evaluates(&with(&j, "JobUniverse = 12"), 2, true));
}

#[test]
fn hold_code_names() {
    assert_eq!(hold_codes::name(3), Some("JobPolicy"));
    assert_eq!(hold_codes::name(26), Some("SystemPolicy"));
    assert_eq!(hold_codes::name(1000), Some("VacateBase"));
    assert_eq!(hold_codes::name(999), None);
}

// ---------------------------------------------------------------------------------------------
// The run bookkeeping

fn slot() -> ClassAd {
    ad(
        "Name = \"slot1_1@host\"\nSlotID = 1\nMyAddress = \"<127.0.0.1:9618>\"\n\
        Cpus = 2\nMemory = 1024\nDisk = 5000\nSlotWeight = Cpus\nGPUs = 1\n\
        AssignedGPUs = \"GPU-0\"\nMachineResources = \"Cpus Memory Disk GPUs\"\n\
        Arch = \"X86_64\"",
    )
}

fn started(j: &ClassAd, at: i64) -> ClassAd {
    updated(j, &start_updates(j, &slot(), "slot1_1@host", at))
}

#[test]
fn first_start() {
    let j = job("VacateReason = \"old\"\nVacateReasonCode = 1004\nJobMachineAttrs = \"Arch\"");
    let u = start_updates(&j, &slot(), "slot1_1@host", NOW);
    assert_eq!(str_set(&u, "RemoteHost").as_deref(), Some("slot1_1@host"));
    assert_eq!(
        str_set(&u, "StartdIpAddr").as_deref(),
        Some("<127.0.0.1:9618>")
    );
    for (name, v) in [
        ("RemoteSlotID", 1),
        ("ShadowBday", NOW),
        ("JobStartDate", NOW),
        ("JobCurrentStartDate", NOW),
        ("JobCurrentStartExecutingDate", NOW),
        ("ActivationSetupDuration", 0),
        ("LastJobLeaseRenewal", NOW),
        ("LastMatchTime", NOW),
        ("NumJobMatches", 1),
        ("NumShadowStarts", 1),
        ("JobRunCount", 1),
        ("NumJobStarts", 1),
        ("OrigMaxHosts", 1),
        ("CurrentHosts", 1),
        ("LastSuspensionTime", 0),
        ("CpusProvisioned", 2),
        ("MemoryProvisioned", 1024),
        ("DiskProvisioned", 5000),
        ("GPUsProvisioned", 1),
        ("MachineAttrCpus0", 2),
        ("MachineAttrSlotWeight0", 2),
    ] {
        assert_eq!(int_set(&u, name), Some(v), "{name}");
    }
    assert_eq!(str_set(&u, "AssignedGPUs").as_deref(), Some("GPU-0"));
    assert_eq!(str_set(&u, "MachineAttrArch0").as_deref(), Some("X86_64"));
    assert_eq!(
        str_set(&u, "ProvisionedResources").as_deref(),
        Some("Cpus Memory Disk GPUs")
    );
    assert!(u.get("JobLastStartDate").is_none());
    assert!(u.deletes("VacateReason") && u.deletes("VacateReasonCode"));
    // A slot without MachineResources: CPUs, Disk and Memory, as the starter spells them.
    let bare = ad("Name = \"slot1\"\nCpus = 1\nMemory = 512\nDisk = 100");
    let u = start_updates(&j, &bare, "slot1", NOW);
    assert_eq!(int_set(&u, "CPUsProvisioned"), Some(1));
    assert!(u.get("ProvisionedResources").is_none());
    assert_eq!(int_set(&u, "RemoteSlotID"), Some(1));
    assert_eq!(
        u.value("MachineAttrSlotWeight0").map(Value::is_undefined),
        Some(true)
    );
}

#[test]
fn second_start() {
    let j = job("");
    let first = started(&j, NOW - 500);
    let back = updated(
        &first,
        &evict_updates(
            &RunConfig::default(),
            &first,
            "preempted",
            1004,
            0,
            NOW - 100,
        )
        .updates,
    );
    let u = start_updates(&back, &slot(), "slot1_1@host", NOW);
    assert!(u.get("JobStartDate").is_none());
    assert_eq!(int_set(&u, "JobLastStartDate"), Some(NOW - 500));
    assert_eq!(int_set(&u, "JobCurrentStartDate"), Some(NOW));
    assert_eq!(int_set(&u, "NumShadowStarts"), Some(2));
    assert_eq!(int_set(&u, "JobRunCount"), Some(2));
    assert_eq!(int_set(&u, "NumJobStarts"), Some(2));
    assert_eq!(int_set(&u, "NumJobMatches"), Some(2));
    assert!(u.deletes("VacateReason"));
    // The scheduler universe counts runs in JobRunCount only.
    let sched = job("JobUniverse = 7\nJobRunCount = 4");
    let u = start_updates(&sched, &slot(), "slot1_1@host", NOW);
    assert_eq!(int_set(&u, "JobRunCount"), Some(5));
    assert!(u.get("NumShadowStarts").is_none());
}

#[test]
fn start_in_two_steps() {
    let j = job("");
    let cfg = RunConfig::default();
    let a = activation_updates(&cfg, &j, &slot(), "slot1_1@host", NOW);
    assert!(a.get("NumJobStarts").is_none());
    assert!(a.get("JobCurrentStartExecutingDate").is_none());
    let b = begin_execution_updates(&updated(&j, &a), NOW + 30);
    assert_eq!(int_set(&b, "JobCurrentStartExecutingDate"), Some(NOW + 30));
    assert_eq!(int_set(&b, "ActivationSetupDuration"), Some(30));
    assert_eq!(int_set(&b, "NumJobStarts"), Some(1));
}

#[test]
fn job_completes() {
    let cfg = RunConfig::default();
    let p = UserPolicy::new();
    let j = with(&started(&job(""), NOW - 100), "JobStatus = 2");
    let exit = ExitInfo::code(0).with_usage(12.5, 1.25);
    let (firing, out) = job_exited(&p, &cfg, &j, &exit, NOW);
    assert_eq!(firing.action, PolicyAction::RemoveFromQueue);
    assert_eq!(out.status, Some(JobStatus::Completed));
    let u = &out.updates;
    assert_eq!(
        u.value("ExitBySignal").and_then(Value::as_bool),
        Some(false)
    );
    assert_eq!(int_set(u, "ExitCode"), Some(0));
    assert_eq!(int_set(u, "NumJobCompletions"), Some(1));
    assert_eq!(real_set(u, "RemoteUserCpu"), Some(12.5));
    assert_eq!(real_set(u, "CumulativeRemoteUserCpu"), Some(12.5));
    assert_eq!(real_set(u, "RemoteSysCpu"), Some(1.25));
    assert_eq!(real_set(u, "RemoteWallClockTime"), Some(100.0));
    assert_eq!(real_set(u, "LastRemoteWallClockTime"), Some(100.0));
    // Slot time is weighted by the slot's SlotWeight (2 cpus).
    assert_eq!(real_set(u, "CumulativeSlotTime"), Some(200.0));
    assert_eq!(int_set(u, "CommittedTime"), Some(100));
    assert_eq!(real_set(u, "CommittedSlotTime"), Some(200.0));
    assert_eq!(int_set(u, "CompletionDate"), Some(NOW));
    assert_eq!(int_set(u, "ActivationDuration"), Some(100));
    assert_eq!(
        u.value("TerminationPending").and_then(Value::as_bool),
        Some(true)
    );
    assert_eq!(
        str_set(u, "LastRemoteHost").as_deref(),
        Some("slot1_1@host")
    );
    for gone in ["RemoteHost", "RemoteSlotID", "StartdIpAddr", "ShadowBday"] {
        assert!(u.deletes(gone), "{gone}");
    }
    assert_eq!(int_set(u, "CurrentHosts"), Some(0));
    // No rotation for a job that completes.
    assert!(u.get("MachineAttrCpus1").is_none());
    let after = updated(&j, u);
    assert!(after.lookup("RemoteHost").is_none());
    assert_eq!(lookup_int(&after, "NumJobStarts"), Some(1));
}

#[test]
fn job_runs_again_after_exit() {
    let cfg = RunConfig::default();
    let p = UserPolicy::new();
    let retry = submitted(
        "executable = /bin/false\nmax_retries = 3\njob_machine_attrs_history_length = 3\nqueue\n",
    );
    let j = with(&started(&retry, NOW - 60), "JobStatus = 2");
    let (firing, out) = job_exited(&p, &cfg, &j, &ExitInfo::code(1), NOW);
    assert_eq!(firing.action, PolicyAction::StaysInQueue);
    assert_eq!(out.status, Some(JobStatus::Idle));
    let u = &out.updates;
    assert_eq!(
        str_set(u, "RequeueReason").as_deref(),
        Some("The job attribute OnExitRemove expression 'NumJobCompletions > JobMaxRetries || ExitCode =?= 0' evaluated to FALSE")
    );
    assert_eq!(int_set(u, "NumJobCompletions"), Some(1));
    assert!(u.get("CompletionDate").is_none());
    assert!(u.get("CommittedTime").is_none());
    assert_eq!(real_set(u, "RemoteWallClockTime"), Some(60.0));
    // The machine attributes move down the history for the next run.
    assert_eq!(int_set(u, "MachineAttrCpus1"), Some(2));
    assert!(u.get("MachineAttrCpus2").is_none());
    assert_eq!(int_set(u, "MaxHosts"), Some(1));
    // The next run, then a success.
    let idle = with(&updated(&j, u), "JobStatus = 1");
    let j2 = with(&started(&idle, NOW + 10), "JobStatus = 2");
    assert_eq!(lookup_int(&j2, "NumJobStarts"), Some(2));
    let (firing, out) = job_exited(&p, &cfg, &j2, &ExitInfo::code(0), NOW + 40);
    assert_eq!(firing.action, PolicyAction::RemoveFromQueue);
    assert_eq!(out.status, Some(JobStatus::Completed));
    assert_eq!(real_set(&out.updates, "RemoteWallClockTime"), Some(90.0));
    assert_eq!(int_set(&out.updates, "NumJobCompletions"), Some(2));
    assert_eq!(int_set(&out.updates, "CommittedTime"), Some(30));
}

#[test]
fn job_held_at_exit() {
    let cfg = RunConfig::default();
    let p = UserPolicy::new();
    let j = with(
        &started(&job("OnExitHold = ExitBySignal"), NOW - 10),
        "JobStatus = 2",
    );
    let exit = ExitInfo::signal(9, true);
    let (firing, out) = job_exited(&p, &cfg, &j, &exit, NOW);
    assert_eq!(firing.action, PolicyAction::HoldInQueue);
    assert_eq!(out.status, Some(JobStatus::Held));
    let u = &out.updates;
    assert_eq!(int_set(u, "ExitSignal"), Some(9));
    assert_eq!(
        str_set(u, "ExitReason").as_deref(),
        Some("died on signal 9 (Killed)")
    );
    assert_eq!(
        u.value("JobCoreDumped").and_then(Value::as_bool),
        Some(true)
    );
    assert!(u.get("ExitCode").is_none());
    assert_eq!(
        str_set(u, "HoldReason").as_deref(),
        Some("The job attribute OnExitHold expression 'ExitBySignal' evaluated to TRUE")
    );
    assert_eq!(int_set(u, "HoldReasonCode"), Some(3));
    assert_eq!(int_set(u, "HoldReasonSubCode"), Some(0));
    assert_eq!(int_set(u, "NumHolds"), Some(1));
    assert_eq!(holds_by_reason(&updated(&j, u), "JobPolicy"), Some(1));
}

#[test]
fn cpu_usage_accumulates() {
    let j = job("RemoteUserCpu = 40.0\nCumulativeRemoteUserCpu = 40.0");
    // The first report of a new run replaces the last run's figure.
    let u = usage_updates(
        &j,
        CpuUsage {
            user: 5.5,
            sys: 0.0,
        },
        CpuUsage::default(),
    );
    assert_eq!(real_set(&u, "RemoteUserCpu"), Some(5.5));
    assert_eq!(real_set(&u, "CumulativeRemoteUserCpu"), Some(45.5));
    assert!(u.get("RemoteSysCpu").is_none());
    // Later reports add what grew since the last one (kept in whole seconds).
    let j2 = updated(&j, &u);
    let u = usage_updates(
        &j2,
        CpuUsage {
            user: 7.0,
            sys: 0.0,
        },
        CpuUsage {
            user: 5.5,
            sys: 0.0,
        },
    );
    assert_eq!(real_set(&u, "CumulativeRemoteUserCpu"), Some(47.5));
    // No growth, no change.
    let u = usage_updates(
        &j2,
        CpuUsage {
            user: 5.0,
            sys: 0.0,
        },
        CpuUsage {
            user: 5.5,
            sys: 0.0,
        },
    );
    assert!(u.is_empty());
}

#[test]
fn eviction_goes_back_to_idle() {
    let cfg = RunConfig::default();
    let j = with(&started(&job(""), NOW - 30), "JobStatus = 2");
    let out = evict_updates(&cfg, &j, "The startd is shutting down", 1004, 2, NOW);
    assert_eq!(out.status, Some(JobStatus::Idle));
    let u = &out.updates;
    assert_eq!(int_set(u, "LastVacateTime"), Some(NOW));
    assert_eq!(
        str_set(u, "VacateReason").as_deref(),
        Some("The startd is shutting down")
    );
    assert_eq!(int_set(u, "VacateReasonCode"), Some(1004));
    assert_eq!(int_set(u, "VacateReasonSubCode"), Some(2));
    assert_eq!(real_set(u, "RemoteWallClockTime"), Some(30.0));
    assert!(u.get("NumJobStarts").is_none());
    assert!(u.get("NumJobCompletions").is_none());
    assert!(u.get("CommittedTime").is_none());
    assert!(u.deletes("RemoteHost"));
    assert_eq!(
        str_set(u, "LastRemoteHost").as_deref(),
        Some("slot1_1@host")
    );
    // No reason: the shadow's default.
    let out = evict_updates(&cfg, &j, "", 0, 0, NOW);
    assert_eq!(
        str_set(&out.updates, "VacateReason").as_deref(),
        Some("Unspecified job interruption")
    );
    assert_eq!(int_set(&out.updates, "VacateReasonCode"), Some(1005));
    // A vacate code below 1000 is a hold.
    let out = evict_updates(&cfg, &j, "Transfer input files failure", 13, 2, NOW);
    assert_eq!(out.status, Some(JobStatus::Held));
    assert_eq!(
        str_set(&out.updates, "HoldReason").as_deref(),
        Some("Transfer input files failure")
    );
    assert_eq!(int_set(&out.updates, "HoldReasonCode"), Some(13));
    assert_eq!(int_set(&out.updates, "HoldReasonSubCode"), Some(2));
    assert_eq!(int_set(&out.updates, "NumHolds"), Some(1));
}

#[test]
fn vacate_cool_down() {
    let cfg = RunConfig::from_config(&config(
        "SYSTEM_ON_VACATE_COOL_DOWN = ifThenElse(VacateReasonCode == 13, 600, 0)\n",
    ));
    assert_eq!(cfg.machine_attrs, ["Cpus", "SlotWeight"]);
    let j = with(&started(&job(""), NOW - 30), "JobStatus = 2");
    let out = evict_updates(&cfg, &j, "input failed", 13, 0, NOW);
    assert_eq!(out.status, Some(JobStatus::Idle));
    assert_eq!(int_set(&out.updates, "NumJobCoolDowns"), Some(1));
    assert_eq!(
        int_set(&out.updates, "JobCoolDownExpiration"),
        Some(NOW + 600)
    );
    assert!(out.updates.get("HoldReason").is_none());
    let out = evict_updates(&cfg, &j, "preempted", 1004, 0, NOW);
    assert!(out.updates.get("NumJobCoolDowns").is_none());
}

#[test]
fn policy_actions_on_idle_and_held_jobs() {
    let cfg = RunConfig::default();
    let p = UserPolicy::new();
    let j = job("PeriodicHold = true\nReleaseReason = \"by policy\"");
    let f = periodic(&p, &j);
    let out = periodic_outcome(&cfg, &j, JobStatus::Idle, &f, NOW).unwrap();
    assert_eq!(out.status, Some(JobStatus::Held));
    let u = &out.updates;
    assert_eq!(
        str_set(u, "HoldReason").as_deref(),
        Some("The job attribute PeriodicHold expression 'true' evaluated to TRUE")
    );
    assert_eq!(int_set(u, "HoldReasonCode"), Some(3));
    assert_eq!(
        str_set(u, "LastReleaseReason").as_deref(),
        Some("by policy")
    );
    assert!(u.deletes("ReleaseReason"));

    let held = with(
        &updated(&j, u),
        "JobStatus = 5\nPeriodicHold = false\nPeriodicRelease = true",
    );
    let f = periodic(&p, &held);
    let out = periodic_outcome(&cfg, &held, JobStatus::Held, &f, NOW).unwrap();
    assert_eq!(out.status, Some(JobStatus::Idle));
    let u = &out.updates;
    assert_eq!(
        str_set(u, "ReleaseReason").as_deref(),
        Some("The job attribute PeriodicRelease expression 'true' evaluated to TRUE")
    );
    assert_eq!(
        str_set(u, "LastHoldReason").as_deref(),
        Some("The job attribute PeriodicHold expression 'true' evaluated to TRUE")
    );
    assert_eq!(int_set(u, "LastHoldReasonCode"), Some(3));
    assert!(u.deletes("HoldReason") && u.deletes("HoldReasonCode"));

    let rm = with(&held, "PeriodicRelease = false\nPeriodicRemove = true");
    let f = periodic(&p, &rm);
    let out = periodic_outcome(&cfg, &rm, JobStatus::Held, &f, NOW).unwrap();
    assert_eq!(out.status, Some(JobStatus::Removed));
    assert_eq!(
        str_set(&out.updates, "RemoveReason").as_deref(),
        Some("The job attribute PeriodicRemove expression 'true' evaluated to TRUE")
    );
    assert_eq!(int_set(&out.updates, "LastHoldReasonCode"), Some(3));
    // Nothing to do.
    assert!(periodic_outcome(&cfg, &j, JobStatus::Idle, &Firing::stays(), NOW).is_none());
    let undefined = periodic(&p, &job("TimerRemove = \"x\""));
    assert!(periodic_outcome(&cfg, &j, JobStatus::Idle, &undefined, NOW).is_none());
}

#[test]
fn policy_actions_on_running_jobs() {
    let cfg = RunConfig::default();
    let p = UserPolicy::new();
    let j = with(
        &started(&job("PeriodicVacate = true"), NOW - 50),
        "JobStatus = 2",
    );
    let f = periodic(&p, &j);
    let out = periodic_outcome(&cfg, &j, JobStatus::Running, &f, NOW).unwrap();
    assert_eq!(out.status, Some(JobStatus::Idle));
    assert_eq!(int_set(&out.updates, "VacateReasonCode"), Some(1000));
    assert_eq!(
        str_set(&out.updates, "VacateReason").as_deref(),
        Some("The job attribute PeriodicVacate expression 'true' evaluated to TRUE")
    );
    assert_eq!(real_set(&out.updates, "RemoteWallClockTime"), Some(50.0));

    let rm = with(&j, "PeriodicVacate = false\nPeriodicRemove = true");
    let f = periodic(&p, &rm);
    let out = periodic_outcome(&cfg, &rm, JobStatus::Running, &f, NOW).unwrap();
    assert_eq!(out.status, Some(JobStatus::Removed));
    assert!(out.updates.get("RemoveReason").is_some());
    assert!(out.updates.deletes("RemoteHost"));
    assert!(out.updates.get("CompletionDate").is_none());

    let undefined = with(&j, "PeriodicVacate = false\nTimerRemove = \"x\"");
    let f = periodic(&p, &undefined);
    let out = periodic_outcome(&cfg, &undefined, JobStatus::Running, &f, NOW).unwrap();
    assert_eq!(out.status, Some(JobStatus::Held));
    assert_eq!(int_set(&out.updates, "HoldReasonCode"), Some(5));
    let after = updated(&undefined, &out.updates);
    assert_eq!(holds_by_reason(&after, "JobPolicyUndefined"), Some(1));
}

#[test]
fn machine_attr_history() {
    let cfg = RunConfig {
        machine_attrs_history: 3,
        ..RunConfig::default()
    };
    let mut j = job("");
    for (i, cpus) in [4, 8, 16].into_iter().enumerate() {
        let s = with(&slot(), &format!("Cpus = {cpus}"));
        let start = start_updates_with(&cfg, &j, &s, "slot1", NOW + i as i64 * 100);
        j = with(&updated(&j, &start), "JobStatus = 2");
        let out = evict_updates(&cfg, &j, "again", 1004, 0, NOW + i as i64 * 100 + 50);
        j = with(&updated(&j, &out.updates), "JobStatus = 1");
    }
    assert_eq!(lookup_int(&j, "MachineAttrCpus0"), Some(16));
    assert_eq!(lookup_int(&j, "MachineAttrCpus1"), Some(16));
    assert_eq!(lookup_int(&j, "MachineAttrCpus2"), Some(8));
    assert!(j.lookup("MachineAttrCpus3").is_none());
    assert_eq!(lookup_int(&j, "NumJobMatches"), Some(3));
    assert_eq!(lookup_real(&j, "RemoteWallClockTime"), Some(150.0));
    assert_eq!(lookup_str(&j, "LastRemoteHost").as_deref(), Some("slot1"));
}

#[test]
fn schedd_holds_releases_and_removes() {
    let j = job("JobStatus = 1\nNumHolds = 2\nNumHoldsByReason = [ UserRequest = 2 ]");
    let u = hold_updates(&j, "spooling", hold_codes::SPOOLING_INPUT, 0);
    assert!(u.get("NumHolds").is_none());
    let u = hold_updates(&j, "odd", 4242, 0);
    assert_eq!(int_set(&u, "NumHolds"), Some(3));
    let after = updated(&j, &u);
    assert_eq!(holds_by_reason(&after, "UserRequest"), Some(2));
    assert_eq!(holds_by_reason(&after, "Unspecified"), Some(1));

    let held = with(&after, "JobStatus = 5\nJobStatusOnRelease = 3");
    let out = release_updates(&held, "");
    assert_eq!(out.status, Some(JobStatus::Removed));
    assert!(out.updates.get("ReleaseReason").is_none());
    assert!(out.updates.deletes("JobStatusOnRelease"));
    assert_eq!(
        str_set(&out.updates, "LastHoldReason").as_deref(),
        Some("odd")
    );
    let out = remove_updates(&held, "via condor_rm");
    assert_eq!(out.status, Some(JobStatus::Removed));
    assert_eq!(
        str_set(&out.updates, "RemoveReason").as_deref(),
        Some("via condor_rm")
    );
    assert_eq!(int_set(&out.updates, "LastHoldReasonCode"), Some(4242));
}

#[test]
fn updates_merge() {
    let mut u = AdUpdate::new();
    u.set("A", Expr::lit(1i64));
    u.delete("a");
    assert!(u.get("A").is_none() && u.deletes("A"));
    u.set("a", Expr::lit(2i64));
    assert!(!u.deletes("A"));
    assert_eq!(int_set(&u, "A"), Some(2));
    let mut v = AdUpdate::new();
    v.delete("A");
    u.extend(v);
    let mut target = ad("A = 5\nB = 1");
    u.apply(&mut target);
    assert!(target.lookup("A").is_none());
    assert_eq!(lookup_int(&target, "B"), Some(1));
}

#[test]
fn signal_names() {
    assert_eq!(signal_description(9), "Killed");
    assert_eq!(signal_description(11), "Segmentation fault");
    assert_eq!(signal_description(15), "Terminated");
    assert_eq!(signal_description(35), "Real-time signal 1");
    assert_eq!(signal_description(99), "Unknown signal 99");
}
