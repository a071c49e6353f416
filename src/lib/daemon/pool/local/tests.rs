//! The scheduler universe's bookkeeping against what HTCondor 24.0's schedd does
//! (schedd.cpp: `AddRunnableLocalJobs`, `IsLocalJobEligibleToRun`, `mark_job_running`,
//! `add_shadow_birthdate`, `scheduler_univ_job_exit`, `delete_shadow_rec`; qmgmt.cpp:
//! `mark_idle`, `_mark_job_stopped`).

use crate::classad::{parse_old_ad, ClassAd, Expr};
use crate::config::Config;
use crate::eventlog::{EventBody, Eviction, ExitStatus};
use crate::output::render::{lookup_int, lookup_real, lookup_str};
use crate::queue::{JobId, JobStatus};
use crate::schedd::exit::{updated, RunConfig};
use crate::schedd::policy::UserPolicy;
use crate::starter::JobExit;

use super::*;

const T: i64 = 1_700_000_000;

/// DAGMan's `on_exit_remove`, as condor_submit_dag writes it (dagman_utils.cpp).
const DAGMAN_ON_EXIT_REMOVE: &str =
    "(ExitSignal =?= 11 || (ExitCode =!= undefined && ExitCode >= 0 && ExitCode <= 2))";

fn config(text: &str) -> (tempfile::TempDir, Config) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::for_test(text, "SCHEDD", None, dir.path());
    (dir, config)
}

/// An idle scheduler-universe job as condor_submit writes one, plus `extra` lines.
fn job(extra: &str) -> ClassAd {
    let mut ad = parse_old_ad(&format!(
        "ClusterId = 42\nProcId = 0\nJobUniverse = 7\nJobStatus = 1\nOwner = \"alice\"\n\
         Cmd = \"/usr/bin/condor_dagman\"\nIwd = \"/home/alice/dag\"\n\
         MinHosts = 1\nMaxHosts = 1\nCurrentHosts = 0\nJobPrio = 0\nNumJobStarts = 0\n\
         RequestDisk = DiskUsage\nDiskUsage = 43\nImageSize = 43\n\
         RequestMemory = ifthenelse(MemoryUsage =!= undefined,MemoryUsage,(ImageSize + 1023) / 1024)\n\
         Requirements = (TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && \
         (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory)\n\
         OnExitRemove = {DAGMAN_ON_EXIT_REMOVE}\nOnExitHold = false\nPeriodicHold = false\n\
         PeriodicRemove = false\nPeriodicRelease = false\nRemoteWallClockTime = 0.0\n\
         CumulativeSlotTime = 0"
    ))
    .unwrap();
    if !extra.is_empty() {
        for (n, e) in parse_old_ad(extra).unwrap().iter() {
            ad.insert(n, e.clone());
        }
    }
    ad
}

/// The job as it runs, started at `T`.
fn running(extra: &str) -> ClassAd {
    let mut ad = job(extra);
    start_updates(&ad, T).apply(&mut ad);
    ad.insert("JobStatus", Expr::lit(JobStatus::Running.code()));
    ad
}

/// A schedd ad for a Linux x86_64 host with memory and disk to spare.
fn schedd(cfg: &LocalConfig, running: usize) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.insert("Arch", Expr::lit("X86_64"));
    ad.insert("OpSys", Expr::lit("LINUX"));
    ad.insert("Memory", Expr::lit(16000));
    ad.insert("Disk", Expr::lit(1_000_000));
    ad.insert("Cpus", Expr::lit(1));
    cfg.publish(&mut ad, running, 1);
    ad
}

fn int(ad: &ClassAd, name: &str) -> Option<i64> {
    lookup_int(ad, name)
}

#[test]
fn the_knobs_default_as_htcondor_24_has_them() {
    let (_d, c) = config("");
    let cfg = LocalConfig::from_config(&c);
    assert_eq!(
        crate::classad::unparse::expr_to_old_string(&cfg.start_scheduler),
        "TotalSchedulerJobsRunning < 500"
    );
    assert_eq!(cfg.max_running_per_owner, 200);
    assert_eq!(cfg.max_jobs_per_owner, 100_000);
    assert_eq!(cfg.owner_limit(), Some(200));
    let spool = c.string("SPOOL").unwrap().unwrap();
    assert_eq!(
        cfg.dir,
        std::path::Path::new(&spool).join("local_univ_execute")
    );
    assert_eq!(cfg.retry, std::time::Duration::from_secs(300));

    // A limit at or above MAX_JOBS_PER_OWNER is none; 0 runs nothing; an expression that
    // does not parse falls back to the default.
    let (_d, c) =
        config("MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER = 100000\nSTART_SCHEDULER_UNIVERSE = (((\n");
    let cfg = LocalConfig::from_config(&c);
    assert_eq!(cfg.owner_limit(), None);
    assert_eq!(
        crate::classad::unparse::expr_to_old_string(&cfg.start_scheduler),
        "TotalSchedulerJobsRunning < 500"
    );
    let (_d, c) = config("MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER = 0\n");
    assert_eq!(LocalConfig::from_config(&c).owner_limit(), Some(0));
}

#[test]
fn the_schedd_ad_publishes_the_scheduler_universe() {
    let (_d, c) = config("ARCH = X86_64\nOPSYS = LINUX\nOPSYSVER = 2204\n");
    let cfg = LocalConfig::from_config(&c);
    let ad = cfg.schedd_ad(&c, 3, 2);
    assert_eq!(int(&ad, "TotalSchedulerJobsRunning"), Some(3));
    assert_eq!(int(&ad, "TotalSchedulerJobsIdle"), Some(2));
    assert_eq!(int(&ad, "TotalLocalJobsRunning"), Some(0));
    assert_eq!(int(&ad, "MaxRunningSchedulerJobsPerOwner"), Some(200));
    assert_eq!(lookup_str(&ad, "Arch").as_deref(), Some("X86_64"));
    assert_eq!(int(&ad, "OpSysVer"), Some(2204));
    assert_eq!(int(&ad, "Cpus"), Some(1));
    assert_eq!(
        ad.eval_attr("StartSchedulerUniverse").as_bool(),
        Some(true),
        "3 < 500"
    );
}

#[test]
fn a_job_starts_when_the_schedd_and_the_job_agree() {
    let (_d, c) = config("");
    let cfg = LocalConfig::from_config(&c);
    // condor_submit's Requirements hold against the schedd's own ad.
    assert_eq!(eligible(&cfg, &schedd(&cfg, 0), &job(""), 0), Ok(()));
    let mut small = schedd(&cfg, 0);
    small.insert("Memory", Expr::lit(0));
    assert_eq!(
        eligible(&cfg, &small, &job(""), 0),
        Err(NotEligible::Requirements)
    );
    // An undefined Requirements keeps the job idle.
    let mut bare = schedd(&cfg, 0);
    bare.remove("Arch");
    assert_eq!(
        eligible(&cfg, &bare, &job(""), 0),
        Err(NotEligible::Requirements)
    );
    assert_eq!(
        eligible(&cfg, &schedd(&cfg, 500), &job(""), 0),
        Err(NotEligible::StartExpression),
        "TotalSchedulerJobsRunning < 500"
    );
    assert_eq!(
        eligible(&cfg, &schedd(&cfg, 0), &job(""), 200),
        Err(NotEligible::OwnerLimit(200))
    );
    assert_eq!(
        eligible(&cfg, &schedd(&cfg, 0), &job("JobNoop = true"), 0),
        Err(NotEligible::Noop)
    );
    assert_eq!(
        eligible(&cfg, &schedd(&cfg, 0), &job("CurrentHosts = 1"), 0),
        Err(NotEligible::Hosts)
    );

    // START_SCHEDULER_UNIVERSE is the schedd's: MY is its ad, TARGET the job.
    let (_d, c) = config("START_SCHEDULER_UNIVERSE = TARGET.Owner == \"alice\"\n");
    let cfg = LocalConfig::from_config(&c);
    assert_eq!(eligible(&cfg, &schedd(&cfg, 0), &job(""), 0), Ok(()));
    assert_eq!(
        eligible(&cfg, &schedd(&cfg, 0), &job("Owner = \"bob\""), 0),
        Err(NotEligible::StartExpression)
    );
    let (_d, c) = config("MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER = 0\n");
    let cfg = LocalConfig::from_config(&c);
    assert_eq!(
        eligible(&cfg, &schedd(&cfg, 0), &job(""), 0),
        Err(NotEligible::OwnerLimit(0))
    );
}

#[test]
fn a_start_is_mark_job_running_and_add_shadow_birthdate() {
    let first = running("");
    assert_eq!(int(&first, "NumJobStarts"), Some(1));
    assert_eq!(int(&first, "JobRunCount"), Some(1));
    assert_eq!(int(&first, "CurrentHosts"), Some(1));
    assert_eq!(int(&first, "OrigMaxHosts"), Some(1));
    assert_eq!(int(&first, "ShadowBday"), Some(T));
    assert_eq!(int(&first, "JobStartDate"), Some(T));
    assert_eq!(int(&first, "JobCurrentStartDate"), Some(T));
    assert_eq!(int(&first, "JobLastStartDate"), None);
    assert_eq!(int(&first, "LastSuspensionTime"), Some(0));
    // No slot: no RemoteHost, no shadow counters.
    assert!(first.lookup("RemoteHost").is_none());
    assert!(first.lookup("NumShadowStarts").is_none());

    let again = updated(&first, &start_updates(&first, T + 60));
    assert_eq!(int(&again, "NumJobStarts"), Some(2));
    assert_eq!(int(&again, "JobRunCount"), Some(2));
    assert_eq!(int(&again, "JobStartDate"), Some(T));
    assert_eq!(int(&again, "JobLastStartDate"), Some(T));
    assert_eq!(int(&again, "JobCurrentStartDate"), Some(T + 60));
}

/// The end of a run applied to the job: its new ad and the end.
fn exit(job: &ClassAd, how: JobExit) -> (ClassAd, End) {
    let end = exited(&UserPolicy::new(), &RunConfig::default(), job, how, T + 10);
    let mut ad = updated(job, &end.updates);
    if let Some(s) = end.status {
        ad.insert("JobStatus", Expr::lit(s.code()));
    }
    (ad, end)
}

#[test]
fn an_exit_the_policy_accepts_completes_the_job() {
    let (ad, end) = exit(&running(""), JobExit::Code(0));
    assert_eq!(end.status, Some(JobStatus::Completed));
    assert!(end.leaves_queue);
    assert_eq!(int(&ad, "ExitCode"), Some(0));
    assert_eq!(int(&ad, "ExitStatus"), Some(0));
    assert_eq!(ad.eval_attr("ExitBySignal").as_bool(), Some(false));
    // The end of every run: the wall clock, no hosts, no birthday.
    assert_eq!(lookup_real(&ad, "RemoteWallClockTime"), Some(10.0));
    assert_eq!(lookup_real(&ad, "LastRemoteWallClockTime"), Some(10.0));
    assert_eq!(int(&ad, "CurrentHosts"), Some(0));
    assert!(ad.lookup("ShadowBday").is_none());
    // The schedd records no usage and counts no completions for the scheduler universe.
    assert!(ad.lookup("NumJobCompletions").is_none());
    assert!(ad.lookup("RemoteUserCpu").is_none());
    match &end.events[..] {
        [EventBody::JobTerminated(t)] => {
            assert_eq!(t.exit, ExitStatus::Code(0));
            assert_eq!(t.run_remote_usage, Default::default());
            assert!(t.usage.is_empty());
        }
        other => panic!("{other:?}"),
    }
    // Exit 1 and 2 too; SIGSEGV as well (DAGMan's on_exit_remove).
    for code in [1, 2] {
        assert_eq!(
            exit(&running(""), JobExit::Code(code)).1.status,
            Some(JobStatus::Completed)
        );
    }
    let (ad, end) = exit(
        &running(""),
        JobExit::Signal {
            signal: 11,
            core: false,
        },
    );
    assert_eq!(end.status, Some(JobStatus::Completed));
    assert_eq!(ad.eval_attr("ExitBySignal").as_bool(), Some(true));
    assert_eq!(int(&ad, "ExitSignal"), Some(11));
    assert!(ad.lookup("ExitStatus").is_none());
    match &end.events[..] {
        [EventBody::JobTerminated(t)] => assert_eq!(t.exit, ExitStatus::Signal(11)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_exit_the_policy_keeps_puts_the_job_back_to_idle() {
    // DAGMan exits 3 when it is held or stopped gracefully: its on_exit_remove keeps it.
    let (ad, end) = exit(&running(""), JobExit::Code(3));
    assert_eq!(end.status, Some(JobStatus::Idle));
    assert!(!end.leaves_queue);
    assert_eq!(int(&ad, "ExitCode"), Some(3));
    assert_eq!(int(&ad, "CurrentHosts"), Some(0));
    assert_eq!(int(&ad, "MaxHosts"), Some(1));
    match &end.events[..] {
        [EventBody::JobEvicted(e)] => {
            assert_eq!(
                e.kind,
                Eviction::Requeued {
                    exit: ExitStatus::Code(3),
                    core_file: None
                }
            );
            assert_eq!(
                e.reason.as_deref(),
                Some(
                    "The job attribute OnExitRemove expression '(ExitSignal =?= 11 || (ExitCode =!= undefined && ExitCode >= 0 && ExitCode <= 2))' evaluated to FALSE"
                )
            );
        }
        other => panic!("{other:?}"),
    }
    // Killed from outside (a reboot): requeued too.
    let (_, end) = exit(
        &running(""),
        JobExit::Signal {
            signal: 9,
            core: false,
        },
    );
    assert_eq!(end.status, Some(JobStatus::Idle));
}

#[test]
fn an_exit_the_policy_holds_holds_the_job() {
    let (ad, end) = exit(&running("OnExitHold = ExitCode == 4"), JobExit::Code(4));
    assert_eq!(end.status, Some(JobStatus::Held));
    assert_eq!(int(&ad, "HoldReasonCode"), Some(3));
    assert_eq!(int(&ad, "NumHolds"), Some(1));
    assert_eq!(
        lookup_str(&ad, "HoldReason").as_deref(),
        Some("The job attribute OnExitHold expression 'ExitCode == 4' evaluated to TRUE")
    );
    assert!(matches!(&end.events[..], [EventBody::JobHeld(h)] if h.code == 3));
    // Without an OnExitRemove the job completes.
    let mut plain = running("");
    plain.remove("OnExitRemove");
    let (_, end) = exit(&plain, JobExit::Code(3));
    assert_eq!(end.status, Some(JobStatus::Completed));
}

#[test]
fn a_run_the_schedd_ended_is_logged_as_an_eviction() {
    let cfg = RunConfig::default();
    let removed = running("RemoveReason = \"via condor_rm (by user alice)\"");
    let end = stopped(&cfg, &removed, &Stop::Remove, T + 5);
    assert_eq!(end.status, None, "already Removed in the queue");
    assert!(end.leaves_queue);
    match &end.events[..] {
        [EventBody::JobEvicted(e), EventBody::JobAborted(a)] => {
            assert_eq!(e.kind, Eviction::Vacated);
            assert_eq!(e.reason, None);
            assert_eq!(a.reason.as_deref(), Some("via condor_rm (by user alice)"));
        }
        other => panic!("{other:?}"),
    }
    let ad = updated(&removed, &end.updates);
    assert_eq!(lookup_real(&ad, "RemoteWallClockTime"), Some(5.0));

    let end = stopped(&cfg, &running(""), &Stop::Hold, T + 5);
    assert_eq!(end.status, None, "already Held in the queue");
    assert!(!end.leaves_queue);
    assert!(matches!(&end.events[..], [EventBody::JobEvicted(_)]));

    let vacate = Stop::Vacate {
        reason: String::new(),
        code: 0,
        subcode: 0,
    };
    let end = stopped(&cfg, &running(""), &vacate, T + 5);
    assert_eq!(end.status, Some(JobStatus::Idle));
    assert!(!end.leaves_queue);
    let ad = updated(&running(""), &end.updates);
    assert_eq!(int(&ad, "CurrentHosts"), Some(0));
    assert!(ad.lookup("ShadowBday").is_none());
}

#[test]
fn a_job_found_running_after_a_crash_goes_back_to_idle() {
    let before = running("OrigMaxHosts = 1\nRemotePool = \"x\"");
    let outcome = recovered(&before);
    assert_eq!(outcome.status, Some(JobStatus::Idle));
    let ad = updated(&before, &outcome.updates);
    assert_eq!(int(&ad, "CurrentHosts"), Some(0));
    assert_eq!(int(&ad, "MaxHosts"), Some(1));
    assert!(ad.lookup("ShadowBday").is_none());
    assert!(ad.lookup("RemotePool").is_none());
    assert_eq!(int(&ad, "NumJobStarts"), Some(1), "its start stays counted");

    // Held while its process ran: it stays held, without the run's hosts.
    let mut held = running("");
    held.insert("JobStatus", Expr::lit(JobStatus::Held.code()));
    let outcome = recovered(&held);
    assert_eq!(outcome.status, None);
    let ad = updated(&held, &outcome.updates);
    assert_eq!(int(&ad, "CurrentHosts"), Some(0));
    assert!(ad.lookup("ShadowBday").is_none());
}

#[test]
fn idle_jobs_start_by_priority_then_age() {
    let (_d, c) = config("");
    let mut jobs = LocalJobs::new(LocalConfig::from_config(&c));
    for (cluster, prio) in [(5, 0), (3, 0), (9, 10), (4, -1)] {
        jobs.insert_idle(
            JobId::new(cluster, 0),
            job(&format!("ClusterId = {cluster}\nJobPrio = {prio}")),
            None,
        );
    }
    let order: Vec<i32> = jobs
        .candidates(std::time::Instant::now())
        .iter()
        .map(|id| id.cluster.0)
        .collect();
    assert_eq!(order, [9, 3, 5, 4]);
    // The pass was taken: nothing new, no pass.
    assert!(jobs.candidates(std::time::Instant::now()).is_empty());
    // A priority change (the job read again) reorders it.
    jobs.insert_idle(JobId::new(4, 0), job("ClusterId = 4\nJobPrio = 20"), None);
    let order: Vec<i32> = jobs
        .candidates(std::time::Instant::now())
        .iter()
        .map(|id| id.cluster.0)
        .collect();
    assert_eq!(order, [4, 9, 3, 5]);
    // Jobs no longer idle in the store leave.
    jobs.retain_idle(&[]);
    assert_eq!(jobs.idle_count(), 0);
}

#[test]
fn the_execute_event_names_the_schedd() {
    let (_d, c) = config("SHARED_PORT_PORT = 4080\n");
    match execute_event(&c) {
        EventBody::Execute(e) => {
            assert_eq!(
                e.execute_host,
                "<127.0.0.1:4080?addrs=127.0.0.1-4080&noUDP&sock=schedd>"
            );
            assert_eq!(e.slot_name, None);
            assert!(e.props.is_empty());
        }
        other => panic!("{other:?}"),
    }
}
