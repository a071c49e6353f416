//! Jobs run exactly once and leave no process behind, whatever happens to the master: a job
//! that ends while no master runs is recorded by the next one (never run again), a job that
//! still runs is adopted, processes a job daemonized die with it, and a job that keeps
//! killing its master ends on hold.

use std::path::{Path, PathBuf};

use crate::common::{record_drop, record_has, TestEnvironment};
use crate::pool::{count, event_codes, history_attr, script, submit, wait_for, Master};

/// Whether process `pid` is gone (or a zombie: it no longer runs).
fn gone(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
        s.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with(['Z', 'X'])
    })
}

/// The pid a job wrote to `file` in the working directory, once it is there.
fn pid_in(env: &TestEnvironment, file: &str) -> i32 {
    let path = env.work_dir().join(file);
    let mut pid = 0;
    wait_for(&format!("a pid in {file}"), || {
        pid = std::fs::read_to_string(&path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        pid > 0
    });
    pid
}

/// The exit records the jobs' waiters left in the execute directory.
fn exit_records(env: &TestEnvironment) -> Vec<PathBuf> {
    let execute = env.local_dir().join("execute");
    std::fs::read_dir(execute)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|dir| record_has(dir, "X"))
                .collect()
        })
        .unwrap_or_default()
}

fn how_many(env: &TestEnvironment, log: &str, code: i32) -> usize {
    event_codes(env, log).iter().filter(|&&c| c == code).count()
}

/// The job is held for the third run lost to the death of its master or starter.
fn assert_held_after_three_lost_runs(env: &TestEnvironment, cluster: &str) {
    let out = env.run(
        "condor_q",
        [
            cluster,
            "-af",
            "NumShadowExceptions",
            "HoldReasonCode",
            "HoldReason",
        ],
    );
    assert_eq!(
        out.stdout,
        "3 26 Job's run was lost 3 times to the death of the condor_master or of its \
         starter (NumShadowExceptions > MAX_SHADOW_EXCEPTIONS = 2)\n",
        "{out}"
    );
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn a_job_that_ends_while_no_master_runs_is_recorded_and_not_run_again() {
    let env = TestEnvironment::new();
    script(
        &env,
        "once.sh",
        "#!/bin/sh\necho run >> \"$1/runs\"\nwhile [ ! -e \"$1/release\" ]; do sleep 0.05; done\n\
         echo done > result\nexit 7\n",
    );
    let master = Master::start(&env);
    // It runs in its scratch directory, and its output comes back by file transfer.
    let cluster = submit(
        &env,
        &format!(
            "executable = once.sh\narguments = {}\nlog = once.log\nshould_transfer_files = YES\n\
             transfer_output_files = result\nqueue\n",
            env.work_dir().display()
        ),
    );
    wait_for("the job to run", || env.work_dir().join("runs").exists());
    master.kill();
    std::fs::write(env.work_dir().join("release"), "").unwrap();
    wait_for("the job's exit to be recorded", || {
        !exit_records(&env).is_empty()
    });
    let master = Master::start(&env);
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    let id = format!("{cluster}.0");
    assert_eq!(history_attr(&env, &id, "JobStatus"), "4");
    assert_eq!(history_attr(&env, &id, "ExitCode"), "7");
    assert_eq!(history_attr(&env, &id, "NumJobStarts"), "1");
    assert_eq!(read(&env.work_dir().join("runs")), "run\n", "ran once");
    // The output came back as for any completion.
    assert_eq!(read(&env.work_dir().join("result")), "done\n");
    wait_for("the terminated event", || {
        how_many(&env, "once.log", 5) == 1
    });
    assert_eq!(how_many(&env, "once.log", 1), 1);
    assert_eq!(master.stop(), Some(0));
    assert!(exit_records(&env).is_empty());
}

#[test]
fn a_daemonized_child_dies_when_its_job_ends() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    submit(
        &env,
        "executable = /bin/sh\narguments = \"-c 'setsid sleep 314 & echo $! > child.pid'\"\n\
         queue\n",
    );
    let child = pid_in(&env, "child.pid");
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    wait_for("the daemonized child to die", || gone(child));
    drop(master);
}

#[test]
fn condor_rm_leaves_no_daemonized_child() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = /bin/sh\n\
         arguments = \"-c 'setsid sleep 314 & echo $! > child.pid; sleep 300'\"\nqueue\n",
    );
    let child = pid_in(&env, "child.pid");
    let out = env.run("condor_rm", [&cluster]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    wait_for("the daemonized child to die", || gone(child));
    drop(master);
}

#[test]
fn a_daemonized_child_of_a_job_that_outlived_its_master_dies_with_the_job() {
    let env = TestEnvironment::new();
    script(
        &env,
        "daemonize.sh",
        "#!/bin/sh\nunset _CONDOR_SCRATCH_DIR\nsetsid sleep 314 &\necho $! > child.pid\n\
         while [ ! -e release ]; do sleep 0.05; done\n",
    );
    let master = Master::start(&env);
    submit(&env, "executable = daemonize.sh\nqueue\n");
    let child = pid_in(&env, "child.pid");
    master.kill();
    let master = Master::start(&env);
    assert!(!gone(child), "an adopted job keeps its processes");
    std::fs::write(env.work_dir().join("release"), "").unwrap();
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    wait_for("the daemonized child to die", || gone(child));
    drop(master);
}

#[test]
fn a_job_that_keeps_killing_its_master_is_held() {
    let env = TestEnvironment::new();
    let pid_file = env.local_dir().join("run").join("condor_master.pid");
    // It kills the master when told to (`go.<n>`), three times, and runs on.
    script(
        &env,
        "killer.sh",
        "#!/bin/sh\nfor n in 1 2 3; do\n  while [ ! -e go.$n ]; do sleep 0.05; done\n  \
         p=$(cat \"$1\")\n  kill -9 $p\n  echo $p >> killed\ndone\nwhile :; do sleep 1; done\n",
    );
    let mut master = Master::start(&env);
    let cluster = submit(
        &env,
        &format!(
            "executable = killer.sh\narguments = {}\nlog = killer.log\nqueue\n",
            pid_file.display()
        ),
    );
    wait_for("the job to run", || count(&env, "JobStatus == 2") == 1);
    for kills in 1..=3 {
        std::fs::write(env.work_dir().join(format!("go.{kills}")), "").unwrap();
        master.wait_dead();
        assert_eq!(read(&env.work_dir().join("killed")).lines().count(), kills);
        master = Master::start(&env);
    }
    // The fourth master holds the job instead of adopting it once more.
    wait_for("the job to be held", || count(&env, "JobStatus == 5") == 1);
    assert_held_after_three_lost_runs(&env, &cluster);
    assert_eq!(read(&env.work_dir().join("killed")).lines().count(), 3);
    wait_for("the hold event", || how_many(&env, "killer.log", 12) == 1);
    assert_eq!(master.stop(), Some(0));
    assert!(crate::pool::job_processes(&env).is_empty());
}

#[test]
fn a_job_that_kills_its_starter_is_requeued_then_held() {
    let env = TestEnvironment::new();
    script(
        &env,
        "parricide.sh",
        "#!/bin/sh\necho run >> runs\nkill -9 $PPID\nsleep 300\n",
    );
    let master = Master::start(&env);
    let cluster = submit(&env, "executable = parricide.sh\nlog = p.log\nqueue\n");
    wait_for("the job to be held", || count(&env, "JobStatus == 5") == 1);
    assert_held_after_three_lost_runs(&env, &cluster);
    assert_eq!(read(&env.work_dir().join("runs")), "run\nrun\nrun\n");
    wait_for("no process of the job", || {
        crate::pool::job_processes(&env).is_empty()
    });
    assert_eq!(master.stop(), Some(0));
}

/// A master that died between committing a job's start and logging its execute event (001):
/// the next master logs it (made here by taking the event out of the log and the mark out of
/// the job's directory).
#[test]
fn a_lost_execute_event_is_logged_by_the_next_master() {
    let env = TestEnvironment::new();
    script(
        &env,
        "wait.sh",
        "#!/bin/sh\nwhile [ ! -e release ]; do sleep 0.05; done\n",
    );
    let master = Master::start(&env);
    submit(&env, "executable = wait.sh\nlog = x.log\nqueue\n");
    wait_for("the execute event", || {
        env.work_dir().join("x.log").exists() && how_many(&env, "x.log", 1) == 1
    });
    master.kill();
    let log = env.work_dir().join("x.log");
    let text = read(&log);
    let kept: Vec<&str> = text
        .split_inclusive("...\n")
        .filter(|event| !event.starts_with("001 ("))
        .collect();
    std::fs::write(&log, kept.concat()).unwrap();
    let execute = env.local_dir().join("execute");
    for dir in std::fs::read_dir(&execute).unwrap().flatten() {
        record_drop(&dir.path(), "E");
    }
    assert_eq!(how_many(&env, "x.log", 1), 0);
    let master = Master::start(&env);
    std::fs::write(env.work_dir().join("release"), "").unwrap();
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    wait_for("the terminated event", || how_many(&env, "x.log", 5) == 1);
    let codes: Vec<i32> = event_codes(&env, "x.log")
        .into_iter()
        .filter(|&c| c != 6)
        .collect();
    assert_eq!(codes, [0, 1, 5]);
    drop(master);
}
