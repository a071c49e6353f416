//! Self-checkpointing jobs end to end (`checkpoint_exit_code`, HTCondor 24.0's starter and
//! shadow): a job that exits with its checkpoint code is started again in the same slot with
//! its checkpoint stored in its spool directory; an eviction, or a master killed meanwhile,
//! brings the latest checkpoint into the next sandbox; the final exit ends it as usual and
//! its spool directory goes with it.

use std::path::PathBuf;

use crate::common::TestEnvironment;
use crate::pool::{
    assert_events, count, history_attr, reference_available, reference_lines, script, submit,
    wait_for, Master, READ_WITH_REFERENCE,
};

/// A job that counts its runs in `count` (a checkpoint file), appends each run's number to
/// `runs` in the test's directory (outside the sandbox: what really ran), says `run N` on
/// its standard output, checkpoints (exit 85) until its fifth run, and on its third run
/// waits until the test has dealt with it (`dealt` in the test's directory).
const COUNTER: &str = r#"#!/bin/sh
n=0
[ -f count ] && n=$(cat count)
n=$((n+1))
echo $n > count
echo $n >> "$1/runs"
echo "run $n"
if [ $n -eq 3 ] && [ ! -e "$1/dealt" ]; then
  touch "$1/blocked"
  while [ ! -e "$1/dealt" ]; do sleep 0.05; done
fi
if [ $n -lt 5 ]; then exit 85; fi
exit 0
"#;

fn counter_job(env: &TestEnvironment) -> String {
    script(env, "counter.sh", COUNTER);
    submit(
        env,
        &format!(
            "executable = counter.sh\narguments = {}\nshould_transfer_files = YES\n\
             when_to_transfer_output = ON_EXIT\ncheckpoint_exit_code = 85\n\
             transfer_checkpoint_files = count\ntransfer_output_files = count\n\
             output = out.txt\nlog = ckpt.log\nqueue\n",
            env.work_dir().display()
        ),
    )
}

fn q_attr(env: &TestEnvironment, job: &str, attr: &str) -> String {
    let out = env.run("condor_q", [job, "-af", attr]);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.trim().to_owned()
}

fn spool_dir(env: &TestEnvironment, cluster: &str) -> PathBuf {
    env.local_dir()
        .join("spool")
        .join(cluster)
        .join("0")
        .join(format!("cluster{cluster}.proc0.subproc0"))
}

fn read(env: &TestEnvironment, name: &str) -> String {
    std::fs::read_to_string(env.work_dir().join(name)).unwrap_or_default()
}

/// What every run of [`COUNTER`] leaves once it has finished after one interruption at its
/// third run: the count resumed from the checkpoint of the second run.
fn assert_resumed(env: &TestEnvironment, cluster: &str, job: &str) {
    wait_for("the job to leave the queue", || {
        count(env, &format!("ClusterId == {cluster}")) == 0
    });
    assert_eq!(read(env, "runs"), "1\n2\n3\n3\n4\n5\n");
    assert_eq!(read(env, "count"), "5\n");
    // The standard output is part of each checkpoint, and appended to after a restart.
    assert_eq!(read(env, "out.txt"), "run 1\nrun 2\nrun 3\nrun 4\nrun 5\n");
    assert_eq!(history_attr(env, job, "ExitCode"), "0");
    assert_eq!(history_attr(env, job, "CheckpointNumber"), "3");
    assert_eq!(history_attr(env, job, "NumJobStarts"), "2");
    let last: i64 = history_attr(env, job, "JobLastCheckpointTime")
        .parse()
        .unwrap();
    assert!(last > 0);
    let committed: i64 = history_attr(env, job, "CommittedTime").parse().unwrap();
    assert!(committed >= 0);
    // The job's spool directory goes when it leaves the queue.
    assert!(!spool_dir(env, cluster).exists());
    assert!(!env.local_dir().join("spool").join(cluster).exists());
}

#[test]
fn a_checkpointing_job_restarts_in_place_and_resumes_after_a_vacate() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let cluster = counter_job(&env);
    let job = format!("{cluster}.0");
    let blocked = env.work_dir().join("blocked");
    wait_for("the third run", || blocked.exists());
    // Two checkpoints (numbered from 0), stored in the job's spool directory, the job still
    // running on its first claim.
    assert_eq!(q_attr(&env, &job, "CheckpointNumber"), "1");
    assert_eq!(q_attr(&env, &job, "JobStatus"), "2");
    assert_eq!(q_attr(&env, &job, "NumJobStarts"), "1");
    assert_ne!(q_attr(&env, &job, "JobLastCheckpointTime"), "undefined");
    assert_ne!(q_attr(&env, &job, "CommittedTime"), "undefined");
    let spool = spool_dir(&env, &cluster);
    assert_eq!(std::fs::read_to_string(spool.join("count")).unwrap(), "2\n");
    assert_eq!(
        std::fs::read_to_string(spool.join("_condor_stdout")).unwrap(),
        "run 1\nrun 2\n"
    );
    assert_eq!(read(&env, "runs"), "1\n2\n3\n");

    let out = env.run("condor_vacate_job", [&job]);
    assert_eq!(out.status, Some(0), "{out}");
    std::fs::write(env.work_dir().join("dealt"), "").unwrap();
    assert_resumed(&env, &cluster, &job);
    // No event for a checkpoint: one execute per start, the eviction, the end.
    assert_events(&env, "ckpt.log", &[0, 1, 4, 1, 6, 5]);
    drop(master);

    if reference_available() {
        let theirs = reference_lines(READ_WITH_REFERENCE, &env.work_dir().join("ckpt.log"));
        let types: Vec<&str> = theirs
            .iter()
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        assert_eq!(types, ["0", "1", "4", "1", "6", "5"]);
        assert_eq!(theirs.last().unwrap(), &format!("5 {cluster} 0 0"));
    }
}

#[test]
fn a_master_killed_after_a_checkpoint_loses_none() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let cluster = counter_job(&env);
    let job = format!("{cluster}.0");
    wait_for("the third run", || env.work_dir().join("blocked").exists());
    assert_eq!(q_attr(&env, &job, "CheckpointNumber"), "1");
    master.kill();
    std::fs::write(env.work_dir().join("dealt"), "").unwrap();
    // The next master kills the orphan and runs the job again from its checkpoint.
    let master = Master::start(&env);
    assert_resumed(&env, &cluster, &job);
    drop(master);
}

#[test]
fn the_slots_offer_self_checkpoint_transfers() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let out = env.run("condor_status", ["-af", "HasSelfCheckpointTransfers"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(!out.stdout.is_empty());
    assert!(out.stdout.lines().all(|l| l == "true"), "{out}");
    drop(master);
}

#[test]
fn a_checkpoint_file_that_is_not_there_holds_the_job() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(&env, "once.sh", "#!/bin/sh\nexit 85\n");
    let cluster = submit(
        &env,
        "executable = once.sh\nshould_transfer_files = YES\ncheckpoint_exit_code = 85\n\
         transfer_checkpoint_files = nothing-here\nlog = hold.log\nqueue\n",
    );
    let job = format!("{cluster}.0");
    wait_for("the job to be held", || {
        count(&env, &format!("ClusterId == {cluster} && JobStatus == 5")) == 1
    });
    assert_eq!(
        q_attr(&env, &job, "HoldReason"),
        "Starter failed to upload checkpoint"
    );
    assert_eq!(q_attr(&env, &job, "HoldReasonCode"), "36");
    assert_eq!(q_attr(&env, &job, "HoldReasonSubCode"), "-1");
    assert_eq!(q_attr(&env, &job, "CheckpointNumber"), "0");
    assert!(!spool_dir(&env, &cluster).exists());
    assert_events(&env, "hold.log", &[0, 1, 6, 12]);
    drop(master);
}

#[test]
fn a_job_can_checkpoint_by_a_signal() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(
        &env,
        "sig.sh",
        "#!/bin/sh\nn=0\n[ -f count ] && n=$(cat count)\nn=$((n+1))\necho $n > count\n\
         [ $n -lt 3 ] && kill -USR1 $$\nexit 0\n",
    );
    let cluster = submit(
        &env,
        "executable = sig.sh\nshould_transfer_files = YES\ntransfer_output_files = count\n\
         +SuccessCheckpointExitBySignal = true\n+SuccessCheckpointExitSignal = 10\n\
         +WantFTOnCheckpoint = true\nqueue\n",
    );
    wait_for("the job to leave the queue", || {
        count(&env, &format!("ClusterId == {cluster}")) == 0
    });
    let job = format!("{cluster}.0");
    assert_eq!(read(&env, "count"), "3\n");
    assert_eq!(history_attr(&env, &job, "CheckpointNumber"), "1");
    assert_eq!(history_attr(&env, &job, "ExitCode"), "0");
    drop(master);
}
