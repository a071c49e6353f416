//! `condor_evicted_files`: a self-checkpointing job's checkpoint in the spool, shown, listed
//! and copied as HTCondor 24.0's evicted_files.cpp does, and its refusals.

use crate::common::TestEnvironment;
use crate::pool::{count, script, submit, wait_for, Master};

/// A job that checkpoints once (exit 85 with `count` saved), then on its second run waits
/// for the file `dealt` in the test's directory.
const ONCE: &str = r#"#!/bin/sh
n=0
[ -f count ] && n=$(cat count)
n=$((n+1))
echo $n > count
if [ $n -eq 1 ]; then exit 85; fi
touch "$1/blocked"
while [ ! -e "$1/dealt" ]; do sleep 0.05; done
exit 0
"#;

#[test]
fn a_checkpoint_is_shown_listed_and_copied() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(&env, "once.sh", ONCE);
    let cluster = submit(
        &env,
        &format!(
            "executable = once.sh\narguments = {}\nshould_transfer_files = YES\n\
             when_to_transfer_output = ON_EXIT\ncheckpoint_exit_code = 85\n\
             transfer_checkpoint_files = count\noutput = out.txt\nqueue\n",
            env.work_dir().display()
        ),
    );
    let job = format!("{cluster}.0");
    wait_for("the second run", || env.work_dir().join("blocked").exists());
    let dir = env
        .local_dir()
        .join("spool")
        .join(&cluster)
        .join("0")
        .join(format!("cluster{cluster}.proc0.subproc0"));

    let out = env.run("condor_evicted_files", [&job]);
    assert_eq!(
        out.to_string(),
        format!("{}\n[exit status: 0]", dir.display())
    );
    let out = env.run("condor_evicted_files", ["LIST", &job]);
    assert_eq!(
        out.to_string(),
        "\t_condor_stdout\n\tcount\n[exit status: 0]"
    );
    // Several jobs: each line starts with the job's id.
    let out = env.run("condor_evicted_files", ["ls", &job, "99.0"]);
    assert_eq!(
        out.to_string(),
        format!(
            "{job} \n\t_condor_stdout\n\tcount\n99.0 No directory; job was never evicted.\n\
             [exit status: 0]"
        )
    );
    let out = env.run("condor_evicted_files", ["get", &job]);
    assert_eq!(
        out.to_string(),
        format!("Copied to '{job}'.\n[exit status: 0]")
    );
    assert_eq!(
        std::fs::read_to_string(env.work_dir().join(&job).join("count")).unwrap(),
        "1\n"
    );
    let out = env.run("condor_evicted_files", ["fetch", &job]);
    assert_eq!(
        out.to_string(),
        format!("Destination directory '{job}' exists, not modifying.\n[exit status: 255]")
    );

    std::fs::write(env.work_dir().join("dealt"), "").unwrap();
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    drop(master);
    // Its spool directory left with it.
    let out = env.run("condor_evicted_files", ["dir", &job]);
    assert_eq!(
        out.to_string(),
        "No directory; job was never evicted.\n[exit status: 2]"
    );
}

#[test]
fn words_that_are_not_commands_or_job_ids_are_refused() {
    let env = TestEnvironment::new();
    let run = |args: &[&str]| env.run("condor_evicted_files", args).to_string();
    assert_eq!(
        run(&["show", "1.0"]),
        "Unknown command 'show', aborting.\n[exit status: 255]"
    );
    assert_eq!(
        run(&["list", "1"]),
        "------- stderr -------\n'1' is not a job ID, aborting.\n[exit status: 255]"
    );
    let usage = run(&[]);
    assert!(
        usage.starts_with("Usage: condor_evicted_files [COMMAND] (clusterID.procID)+\n"),
        "{usage}"
    );
    assert!(usage.ends_with("[exit status: 255]"), "{usage}");
    // A command and no job: nothing to do.
    assert_eq!(run(&["list"]), "[exit status: 0]");
}
