//! Scheduler-universe jobs end to end: the master runs them itself, as HTCondor's schedd runs
//! DAGMan (no slot, no negotiation), with their events, their exit policy, condor_rm,
//! condor_hold/condor_release, a graceful stop, a master killed under them, condor_run's
//! embedded pool, and `OtherJobRemoveRequirements`.
//!
//! Every wait is on a condition with a deadline; every test stops its master (and so its
//! jobs) when it ends, passing or failing.

use std::path::PathBuf;

use condorlite::eventlog::{read_events, EventBody, Eviction, ExitStatus};

use crate::common::{record_drop, record_has, TestEnvironment};
use crate::pool::{
    assert_events, count, event_codes, history_attr, job_processes, reference_available, script,
    submit, wait_for, Master, READ_WITH_REFERENCE,
};

/// DAGMan's job, as condor_submit_dag writes it (dagman_utils.cpp), around `executable`.
fn dagman_like(executable: &str, log: &str, extra: &str) -> String {
    format!(
        "universe = scheduler\nexecutable = {executable}\noutput = {log}.out\n\
         error = {log}.err\nlog = {log}\nremove_kill_sig = SIGUSR1\n\
         My.OtherJobRemoveRequirements = \"DAGManJobId =?= $(cluster)\"\n\
         on_exit_remove = (ExitSignal =?= 11 || (ExitCode =!= UNDEFINED && ExitCode >=0 && ExitCode <= 2))\n\
         {extra}queue\n"
    )
}

/// A script that records its `CONDOR_ID`, working directory and each signal it traps
/// (USR1: exit 1; TERM: exit 3, as DAGMan does), counts its runs, says it is ready, then
/// waits for a `release` file and exits 0.
const WAITER: &str = "#!/bin/sh\n\
    trap 'echo USR1 >> signals; exit 1' USR1\n\
    trap 'echo TERM >> signals; exit 3' TERM\n\
    echo \"$CONDOR_ID\" > id\npwd > cwd\necho run >> runs\n\
    echo \"to stdout\"\necho \"to stderr\" >&2\n\
    touch ready\n\
    while [ ! -e release ]; do sleep 0.05; done\nrm -f ready\nexit 0\n";

/// The main processes of this pool's scheduler-universe jobs: those of
/// [`local_processes`] that lead their process group (what they start is in the group).
fn local_jobs(env: &TestEnvironment) -> Vec<i32> {
    local_processes(env)
        .into_iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                let fields: Vec<&str> = s
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .split_whitespace()
                    .collect();
                fields.get(2) == Some(&&*pid.to_string())
            })
        })
        .collect()
}

/// The processes of this pool's scheduler-universe jobs (by their `_CONDOR_JOB_AD`), and
/// what they started.
fn local_processes(env: &TestEnvironment) -> Vec<i32> {
    let dir = env.local_dir().join("spool").join("local_univ_execute");
    let marker = format!("_CONDOR_JOB_AD={}/", dir.display());
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let running = std::fs::read_to_string(entry.path().join("stat"))
            .map(|s| {
                let state = s.rsplit(')').next().unwrap_or("").trim_start();
                !state.starts_with('Z') && !state.starts_with('X')
            })
            .unwrap_or(false);
        if running
            && environ
                .split(|&b| b == 0)
                .any(|v| v.starts_with(marker.as_bytes()))
        {
            pids.push(pid);
        }
    }
    pids
}

fn work(env: &TestEnvironment, name: &str) -> PathBuf {
    env.work_dir().join(name)
}

fn read(env: &TestEnvironment, name: &str) -> String {
    std::fs::read_to_string(work(env, name)).unwrap_or_default()
}

fn q_af(env: &TestEnvironment, job: &str, attrs: &[&str]) -> String {
    let mut args = vec![job, "-af"];
    args.extend_from_slice(attrs);
    let out = env.run("condor_q", args);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.trim().to_owned()
}

/// The master runs a scheduler-universe job at once, while the only slot is busy with a
/// vanilla job: no slot, no negotiation.
#[test]
fn a_scheduler_universe_job_runs_while_the_only_slot_is_busy() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_NUM_CPUS", "1");
    let master = Master::start(&env);
    let vanilla = submit(&env, "executable = /bin/sleep\narguments = 300\nqueue\n");
    wait_for("the vanilla job to run", || {
        count(&env, &format!("ClusterId == {vanilla} && JobStatus == 2")) == 1
    });
    script(&env, "dag.sh", WAITER);
    let cluster = submit(&env, &dagman_like("dag.sh", "dag.log", ""));
    let id = format!("{cluster}.0");
    wait_for("the scheduler-universe job to run", || {
        work(&env, "ready").exists()
    });
    assert_eq!(
        q_af(
            &env,
            &id,
            &["JobStatus", "NumJobStarts", "JobRunCount", "CurrentHosts"]
        ),
        "2 1 1 1"
    );
    assert_eq!(
        q_af(
            &env,
            &id,
            &["RemoteHost", "JobCurrentStartDate =?= JobStartDate"]
        ),
        "undefined true"
    );
    // The slot still runs the vanilla job; the schedd counts its own job apart.
    assert_eq!(
        count(&env, &format!("ClusterId == {vanilla} && JobStatus == 2")),
        1
    );
    let out = env.run(
        "condor_status",
        [
            "-schedd",
            "-af",
            "TotalSchedulerJobsRunning",
            "TotalRunningJobs",
        ],
    );
    assert_eq!(out.stdout, "1 1\n", "{out}");
    assert_eq!(local_jobs(&env).len(), 1);

    std::fs::write(work(&env, "release"), "").unwrap();
    wait_for("the job to leave the queue", || {
        count(&env, &format!("ClusterId == {cluster}")) == 0
    });
    assert_eq!(read(&env, "id"), format!("{id}\n"));
    assert_eq!(read(&env, "cwd"), format!("{}\n", env.work_dir().display()));
    assert_eq!(read(&env, "dag.log.out"), "to stdout\n");
    assert_eq!(read(&env, "dag.log.err"), "to stderr\n");
    assert_eq!(read(&env, "runs"), "run\n");
    for (attr, value) in [
        ("JobStatus", "4"),
        ("ExitCode", "0"),
        ("ExitBySignal", "false"),
        ("JobUniverse", "7"),
        ("NumJobStarts", "1"),
        ("CurrentHosts", "0"),
        ("CompletionDate > 0", "true"),
    ] {
        assert_eq!(history_attr(&env, &id, attr), value, "{attr}");
    }
    assert_events(&env, "dag.log", &[0, 1, 5]);
    let events = read_events(work(&env, "dag.log")).unwrap();
    // The schedd's own address, as its submit event gives it.
    match (&events[0].body, &events[1].body) {
        (EventBody::Submit(s), EventBody::Execute(e)) => {
            assert_eq!(e.execute_host, s.submit_host, "{e:?}");
            assert!(e.execute_host.ends_with("&sock=schedd>"), "{e:?}");
            assert_eq!(e.slot_name, None);
        }
        other => panic!("{other:?}"),
    }
    match &events[2].body {
        EventBody::JobTerminated(t) => assert_eq!(t.exit, ExitStatus::Code(0)),
        other => panic!("{other:?}"),
    }
    // Its directory went with it.
    let dir = env.local_dir().join("spool/local_univ_execute");
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0);
    drop(master);
    assert!(job_processes(&env).is_empty() && local_processes(&env).is_empty());
}

/// DAGMan's `on_exit_remove` keeps an exit 3 in the queue: the job runs again.
#[test]
fn an_exit_the_policy_keeps_runs_the_job_again() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(
        &env,
        "twice.sh",
        "#!/bin/sh\necho run >> runs\n[ \"$(wc -l < runs)\" -ge 2 ] && exit 0\nexit 3\n",
    );
    let cluster = submit(&env, &dagman_like("twice.sh", "twice.log", ""));
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_eq!(read(&env, "runs"), "run\nrun\n");
    let id = format!("{cluster}.0");
    assert_eq!(history_attr(&env, &id, "NumJobStarts"), "2");
    assert_eq!(history_attr(&env, &id, "ExitCode"), "0");
    assert_events(&env, "twice.log", &[0, 1, 4, 1, 5]);
    let events = read_events(work(&env, "twice.log")).unwrap();
    match &events[2].body {
        EventBody::JobEvicted(e) => {
            assert_eq!(
                e.kind,
                Eviction::Requeued {
                    exit: ExitStatus::Code(3),
                    core_file: None
                }
            );
            assert!(
                e.reason.as_deref().unwrap_or("").contains("OnExitRemove"),
                "{e:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    drop(master);
}

/// condor_rm sends the job's RemoveKillSig (SIGUSR1 for DAGMan); the job leaves the queue
/// once its process is gone.
#[test]
fn condor_rm_sends_the_remove_kill_sig() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(&env, "dag.sh", WAITER);
    let cluster = submit(&env, &dagman_like("dag.sh", "rm.log", ""));
    wait_for("the job to run", || work(&env, "ready").exists());
    let out = env.run("condor_rm", [&cluster]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_eq!(read(&env, "signals"), "USR1\n");
    let id = format!("{cluster}.0");
    assert_eq!(history_attr(&env, &id, "JobStatus"), "3");
    // Evicted, then aborted with the reason (schedd.cpp: scheduler_univ_job_exit, then
    // check_zombie).
    assert_events(&env, "rm.log", &[0, 1, 4, 9]);
    let events = read_events(work(&env, "rm.log")).unwrap();
    match &events[3].body {
        EventBody::JobAborted(a) => assert!(
            a.reason
                .as_deref()
                .is_some_and(|r| r.starts_with("via condor_rm")),
            "{a:?}"
        ),
        other => panic!("{other:?}"),
    }
    drop(master);
    assert!(local_processes(&env).is_empty());
}

/// A job that ignores its RemoveKillSig is killed after the removal bound.
#[test]
fn a_job_that_ignores_its_remove_kill_sig_is_killed() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(
        &env,
        "deaf.sh",
        "#!/bin/sh\ntrap '' USR1\ntouch ready\nwhile :; do sleep 0.05; done\n",
    );
    submit(&env, &dagman_like("deaf.sh", "deaf.log", ""));
    wait_for("the job to run", || work(&env, "ready").exists());
    let out = env.run("condor_rm", ["-all"]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert!(local_processes(&env).is_empty());
    drop(master);
}

/// condor_hold sends the HoldKillSig (by default the KillSig, SIGTERM); the job stays held
/// and condor_release runs it again.
#[test]
fn condor_hold_stops_the_job_and_condor_release_runs_it_again() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(&env, "dag.sh", WAITER);
    let cluster = submit(&env, &dagman_like("dag.sh", "hold.log", ""));
    let id = format!("{cluster}.0");
    wait_for("the job to run", || work(&env, "ready").exists());
    let out = env.run("condor_hold", [&id]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job's process to go", || {
        local_processes(&env).is_empty()
    });
    // Gone, and reaped by the master: the eviction is logged before the release.
    wait_for("the hold's eviction", || {
        event_codes(&env, "hold.log").ends_with(&[12, 4])
    });
    assert_eq!(read(&env, "signals"), "TERM\n");
    // DAGMan exits 3 when held: the hold stands (the exit policy is not asked).
    assert_eq!(q_af(&env, &id, &["JobStatus", "HoldReasonCode"]), "5 1");
    std::fs::remove_file(work(&env, "ready")).unwrap();
    let out = env.run("condor_release", [&id]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to run again", || work(&env, "ready").exists());
    assert_eq!(q_af(&env, &id, &["JobStatus", "NumJobStarts"]), "2 2");
    std::fs::write(work(&env, "release"), "").unwrap();
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_eq!(read(&env, "runs"), "run\nrun\n");
    assert_events(&env, "hold.log", &[0, 1, 12, 4, 13, 1, 5]);
    drop(master);
}

/// A graceful stop of the master sends the KillSig and puts the job back to idle; the next
/// master runs it again. A fast stop kills it, and it is idle again too.
#[test]
fn a_graceful_stop_requeues_the_job_for_the_next_master() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(&env, "dag.sh", WAITER);
    let cluster = submit(&env, &dagman_like("dag.sh", "stop.log", ""));
    let id = format!("{cluster}.0");
    wait_for("the job to run", || work(&env, "ready").exists());
    assert_eq!(master.stop(), Some(0));
    assert!(local_processes(&env).is_empty());
    assert_eq!(read(&env, "signals"), "TERM\n");
    assert_eq!(q_af(&env, &id, &["JobStatus", "NumJobStarts"]), "1 1");
    assert_events(&env, "stop.log", &[0, 1, 4]);
    std::fs::remove_file(work(&env, "ready")).unwrap();
    let master = Master::start(&env);
    wait_for("the job to run again", || work(&env, "ready").exists());
    // A fast shutdown kills it (SIGKILL: no trap runs); it is idle again all the same.
    std::fs::remove_file(work(&env, "ready")).unwrap();
    let out = env.run("condor_off", ["-fast", "-master"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(master.stop(), Some(0));
    assert!(local_processes(&env).is_empty());
    assert_eq!(read(&env, "signals"), "TERM\n");
    assert_eq!(q_af(&env, &id, &["JobStatus", "NumJobStarts"]), "1 2");
    let master = Master::start(&env);
    wait_for("the job to run a third time", || {
        work(&env, "ready").exists()
    });
    std::fs::write(work(&env, "release"), "").unwrap();
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_eq!(history_attr(&env, &id, "NumJobStarts"), "3");
    assert_eq!(read(&env, "runs"), "run\nrun\nrun\n");
    assert_events(&env, "stop.log", &[0, 1, 4, 1, 4, 1, 5]);
    drop(master);
}

/// A master killed with SIGKILL leaves the job's process running; the next master kills
/// that orphan and runs the job again, exactly once more.
#[test]
fn a_master_killed_under_a_scheduler_universe_job_loses_nothing() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(&env, "dag.sh", WAITER);
    let cluster = submit(&env, &dagman_like("dag.sh", "kill.log", ""));
    let id = format!("{cluster}.0");
    wait_for("the job to run", || work(&env, "ready").exists());
    // Its start committed too (the master commits a step's changes after it started the
    // step's jobs): else the next master rightly starts it as if for the first time.
    wait_for("the job's start committed", || {
        count(&env, "JobStatus == 2 && NumJobStarts == 1") == 1
    });
    let orphans = local_jobs(&env);
    assert_eq!(orphans.len(), 1, "{orphans:?}");
    master.kill();
    assert_eq!(
        local_jobs(&env),
        orphans,
        "the job outlives a killed master"
    );
    std::fs::remove_file(work(&env, "ready")).unwrap();
    let master = Master::start(&env);
    wait_for("the job to run again", || work(&env, "ready").exists());
    let now = local_jobs(&env);
    assert_eq!(now.len(), 1, "{now:?}");
    assert!(!now.contains(&orphans[0]), "the orphan was killed");
    std::fs::write(work(&env, "release"), "").unwrap();
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_eq!(read(&env, "runs"), "run\nrun\n", "ran exactly once more");
    assert_eq!(history_attr(&env, &id, "NumJobStarts"), "2");
    assert_eq!(history_attr(&env, &id, "JobStatus"), "4");
    // The orphan was killed by SIGKILL: it never saw a signal it traps.
    assert_eq!(read(&env, "signals"), "");
    assert_events(&env, "kill.log", &[0, 1, 1, 5]);
    drop(master);
    assert!(local_processes(&env).is_empty());
}

/// A master that dies between a scheduler-universe job's start and its execute event (001):
/// the next master logs the lost 001 before it starts the job again. (Made here by taking the
/// event and its mark away after the kill.)
#[test]
fn a_lost_execute_event_of_a_scheduler_universe_job_is_logged_by_the_next_master() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(&env, "dag.sh", WAITER);
    let cluster = submit(&env, &dagman_like("dag.sh", "lost.log", ""));
    let dir = env
        .local_dir()
        .join(format!("spool/local_univ_execute/dir_{cluster}_0"));
    wait_for("the execute event and its mark", || {
        work(&env, "ready").exists() && record_has(&dir, "E")
    });
    master.kill();
    assert_events(&env, "lost.log", &[0, 1]);
    // As if the master had died before it logged the 001.
    let log = work(&env, "lost.log");
    let text = std::fs::read_to_string(&log).unwrap();
    let second = text.find("...\n").unwrap() + 4;
    std::fs::write(&log, &text[..second]).unwrap();
    record_drop(&dir, "E");
    std::fs::remove_file(work(&env, "ready")).unwrap();
    let master = Master::start(&env);
    wait_for("the job to run again", || work(&env, "ready").exists());
    std::fs::write(work(&env, "release"), "").unwrap();
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_events(&env, "lost.log", &[0, 1, 1, 5]);
    drop(master);
}

/// The jobs of a DAG (`DAGManJobId` = the DAGMan job's cluster) go with it when it is
/// removed; other jobs stay. With a master: running nodes are killed.
#[test]
fn other_job_remove_requirements_removes_the_dags_jobs() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_NUM_CPUS", "1");
    let master = Master::start(&env);
    script(&env, "dag.sh", WAITER);
    let dag = submit(&env, &dagman_like("dag.sh", "dag.log", ""));
    wait_for("the DAG job to run", || work(&env, "ready").exists());
    let node = |extra: &str| {
        submit(
            &env,
            &format!("executable = /bin/sleep\narguments = 300\nlog = nodes.log\n{extra}\nqueue\n"),
        )
    };
    let running_node = node(&format!("My.DAGManJobId = {dag}"));
    wait_for("a node to run", || {
        count(
            &env,
            &format!("ClusterId == {running_node} && JobStatus == 2"),
        ) == 1
    });
    let idle_node = node(&format!("My.DAGManJobId = {dag}"));
    // Held, so that they stay as they are whatever the slot does.
    let other_dag = node("My.DAGManJobId = 99999\nhold = true");
    let plain = node("hold = true");

    let out = env.run("condor_rm", [&dag]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the DAG and its nodes to leave the queue", || {
        count(&env, "true") == 2
    });
    wait_for("the running node's process to go", || {
        job_processes(&env).is_empty()
    });
    let reason = format!(
        "removed because <OtherJobRemoveRequirements = DAGManJobId =?= {dag}> fired when job ({dag}.0) was removed"
    );
    for n in [&running_node, &idle_node] {
        let id = format!("{n}.0");
        assert_eq!(history_attr(&env, &id, "JobStatus"), "3", "{id}");
        assert_eq!(history_attr(&env, &id, "RemoveReason"), reason, "{id}");
    }
    for n in [&other_dag, &plain] {
        assert_eq!(count(&env, &format!("ClusterId == {n}")), 1, "{n} stays");
    }
    // Each node's log has its abort, with the reason.
    let events = read_events(work(&env, "nodes.log")).unwrap();
    for n in [&running_node, &idle_node] {
        let cluster: i32 = n.parse().unwrap();
        let abort = events
            .iter()
            .find(|e| e.cluster == cluster && e.number() == 9)
            .unwrap_or_else(|| panic!("no abort for {n}: {events:?}"));
        match &abort.body {
            EventBody::JobAborted(a) => assert_eq!(a.reason.as_deref(), Some(&*reason)),
            other => panic!("{other:?}"),
        }
    }
    drop(master);
}

/// Without a master, condor_rm removes the DAG's jobs in the same request; a job of
/// another owner is left alone.
#[test]
fn other_job_remove_requirements_holds_without_a_master() {
    let mut env = TestEnvironment::new();
    let dag = submit(&env, &dagman_like("/bin/true", "dag.log", ""));
    let node = submit(
        &env,
        &format!("executable = /bin/true\nMy.DAGManJobId = {dag}\nqueue 2\n"),
    );
    env.set_env("CONDORLITE_USER", "someoneelse");
    let foreign = submit(
        &env,
        &format!("executable = /bin/true\nMy.DAGManJobId = {dag}\nqueue\n"),
    );
    env.set_env("CONDORLITE_USER", "");
    let out = env.run("condor_rm", [&dag]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        out.stdout,
        format!("All jobs in cluster {dag} have been marked for removal\n")
    );
    assert_eq!(count(&env, &format!("ClusterId == {node}")), 0);
    assert_eq!(history_attr(&env, &format!("{node}.1"), "JobStatus"), "3");
    assert_eq!(count(&env, &format!("ClusterId == {foreign}")), 1);
}

/// condor_run's embedded pool (no master) runs a scheduler-universe job too.
#[test]
fn condor_run_runs_a_scheduler_universe_job_without_a_master() {
    let env = TestEnvironment::new();
    let out = env.run("condor_run", ["-u", "scheduler", "echo $CONDOR_ID; pwd"]);
    assert_eq!(out.status, Some(0), "{out}");
    let mut lines = out.stdout.lines();
    let id = lines.next().unwrap_or_default();
    assert!(id.ends_with(".0") && id.len() > 2, "{out}");
    assert_eq!(lines.next(), Some(&*env.work_dir().to_string_lossy()));
    assert!(local_processes(&env).is_empty());
}

/// HTCondor's own reader takes every event the master writes for a scheduler-universe job:
/// the schedd's execute, the requeue, the evictions, the hold, release and abort.
#[test]
fn the_reference_reads_the_scheduler_universe_events() {
    if !reference_available() {
        eprintln!("skipped: python3 with htcondor is not installed");
        return;
    }
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    // The first run exits 3 (requeued), the next ones wait.
    script(
        &env,
        "dag.sh",
        &WAITER.replace(
            "touch ready\n",
            "[ \"$(wc -l < runs)\" -eq 1 ] && exit 3\ntouch ready\n",
        ),
    );
    let cluster = submit(&env, &dagman_like("dag.sh", "ref.log", ""));
    wait_for("the second run", || work(&env, "ready").exists());
    std::fs::remove_file(work(&env, "ready")).unwrap();
    assert_eq!(env.run("condor_hold", [&cluster]).status, Some(0));
    // The hold's eviction is logged before the release (a release racing the exit logs it
    // after the release: the master writes it once the process is reaped).
    wait_for("the hold's eviction", || {
        event_codes(&env, "ref.log").ends_with(&[12, 4])
    });
    assert_eq!(env.run("condor_release", [&cluster]).status, Some(0));
    wait_for("the third run", || work(&env, "ready").exists());
    assert_eq!(env.run("condor_rm", [&cluster]).status, Some(0));
    wait_for("the queue to empty", || count(&env, "true") == 0);
    drop(master);
    let log = work(&env, "ref.log");
    let ours: Vec<String> = read_events(&log)
        .unwrap()
        .iter()
        .map(|e| {
            let rv = match &e.body {
                EventBody::JobEvicted(ev) => match ev.kind {
                    Eviction::Requeued {
                        exit: ExitStatus::Code(c),
                        ..
                    } => c.to_string(),
                    _ => String::new(),
                },
                _ => String::new(),
            };
            format!("{} {} {} {rv}", e.number(), e.cluster, e.proc)
        })
        .collect();
    assert_eq!(
        ours.iter()
            .map(|l| l.split(' ').next().unwrap())
            .collect::<Vec<_>>(),
        ["0", "1", "4", "1", "12", "4", "13", "1", "4", "9"]
    );
    let theirs = crate::pool::reference_lines(READ_WITH_REFERENCE, &log);
    assert_eq!(ours, theirs);
}

/// The schedd applies `OtherJobRemoveRequirements` whenever such a job leaves the queue:
/// when it completes, and when the master itself removes it (its periodic policy).
#[test]
fn other_job_remove_requirements_applies_when_the_master_finishes_the_job() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_PERIODIC_EXPR_INTERVAL", "1");
    let master = Master::start(&env);
    script(&env, "dag.sh", WAITER);
    let completes = submit(&env, &dagman_like("dag.sh", "a.log", ""));
    let removed = submit(
        &env,
        &dagman_like(
            "/bin/sleep",
            "b.log",
            "arguments = 300\nperiodic_remove = NumJobStarts >= 1\n",
        ),
    );
    let node = |dag: &str| {
        submit(
            &env,
            &format!("executable = /bin/true\nhold = true\nMy.DAGManJobId = {dag}\nqueue\n"),
        )
    };
    let (left_a, left_b) = (node(&completes), node(&removed));
    wait_for("the first DAG job to run", || work(&env, "ready").exists());
    std::fs::write(work(&env, "release"), "").unwrap();
    wait_for("both DAG jobs and their nodes to leave the queue", || {
        count(&env, "true") == 0
    });
    assert_eq!(
        history_attr(&env, &format!("{completes}.0"), "JobStatus"),
        "4"
    );
    assert!(history_attr(&env, &format!("{removed}.0"), "RemoveReason")
        .starts_with("The job attribute PeriodicRemove expression"));
    for (node, dag) in [(&left_a, &completes), (&left_b, &removed)] {
        let id = format!("{node}.0");
        assert_eq!(history_attr(&env, &id, "JobStatus"), "3");
        assert_eq!(
            history_attr(&env, &id, "RemoveReason"),
            format!(
                "removed because <OtherJobRemoveRequirements = DAGManJobId =?= {dag}> fired when job ({dag}.0) was removed"
            )
        );
    }
    drop(master);
    assert!(local_processes(&env).is_empty());
}

/// A job released while its process, held, is still on its way out runs again once it is
/// gone (the schedd's `check_zombie` leaves it idle, without the run's hosts).
#[test]
fn a_job_released_before_its_process_is_gone_runs_again() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(
        &env,
        "slow.sh",
        &WAITER.replace(
            "trap 'echo TERM >> signals; exit 3' TERM",
            "trap 'echo TERM >> signals; sleep 1; exit 3' TERM",
        ),
    );
    let cluster = submit(&env, &dagman_like("slow.sh", "slow.log", ""));
    let id = format!("{cluster}.0");
    wait_for("the job to run", || work(&env, "ready").exists());
    std::fs::remove_file(work(&env, "ready")).unwrap();
    assert_eq!(env.run("condor_hold", [&id]).status, Some(0));
    wait_for("the job to get its signal", || {
        read(&env, "signals") == "TERM\n"
    });
    assert_eq!(env.run("condor_release", [&id]).status, Some(0));
    wait_for("the job to run again", || work(&env, "ready").exists());
    assert_eq!(
        q_af(&env, &id, &["JobStatus", "NumJobStarts", "CurrentHosts"]),
        "2 2 1"
    );
    std::fs::write(work(&env, "release"), "").unwrap();
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_events(&env, "slow.log", &[0, 1, 12, 13, 4, 1, 5]);
    drop(master);
}

/// condor_vacate_job sends the KillSig and the job runs again; the scheduler universe is
/// never suspended (`abort_job_myself` ignores it).
#[test]
fn condor_vacate_job_runs_a_scheduler_universe_job_again() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(&env, "dag.sh", WAITER);
    let cluster = submit(&env, &dagman_like("dag.sh", "vacate.log", ""));
    let id = format!("{cluster}.0");
    wait_for("the job to run", || work(&env, "ready").exists());
    let out = env.run("condor_suspend", [&id]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(q_af(&env, &id, &["JobStatus"]), "2");
    std::fs::remove_file(work(&env, "ready")).unwrap();
    let out = env.run("condor_vacate_job", [&id]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to run again", || work(&env, "ready").exists());
    assert_eq!(read(&env, "signals"), "TERM\n");
    assert_eq!(q_af(&env, &id, &["JobStatus", "NumJobStarts"]), "2 2");
    std::fs::write(work(&env, "release"), "").unwrap();
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_events(&env, "vacate.log", &[0, 1, 4, 1, 5]);
    drop(master);
}
