//! `condor_submit -interactive`: the job HTCondor's `-interactive` queues, and a shell in it
//! once it runs, here fed commands on a standard input that is not a terminal.

use crate::common::TestEnvironment;
use crate::pool::{count, history_attr, wait_for, Master};

/// Runs `condor_submit -interactive ARGS` with `script` as the shell's input: what it
/// printed, and its exit status.
fn interactive(env: &mut TestEnvironment, args: &[&str], script: &str) -> (String, String, i32) {
    env.set_env("SHELL", "/bin/sh");
    let mut all = vec!["-interactive"];
    all.extend(args);
    let out = env.run_with_input("condor_submit", &all, script.as_bytes());
    (out.stdout, out.stderr, out.status.unwrap_or(-1))
}

#[test]
fn an_interactive_job_gives_a_shell_with_the_jobs_environment_and_ends_with_it() {
    let mut env = TestEnvironment::new();
    std::fs::write(env.config_file(), "NUM_CPUS = 1\n").unwrap();
    let master = Master::start(&env);
    let (out, err, code) = interactive(
        &mut env,
        &[],
        "echo \"in $PWD\"\necho \"scratch $_CONDOR_SCRATCH_DIR\"\necho \"tmout $TMOUT\"\n\
         test -d \"$_CONDOR_SCRATCH_DIR/.condor_ssh_to_job_1\" && echo session\nexit 7\n",
    );
    assert_eq!(code, 7, "{out}{err}");
    // The job is removed when the shell exits (and leaves the queue once the master has
    // killed it).
    assert_eq!(count(&env, "JobStatus != 3"), 0);
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    let host = env
        .run("condor_history", ["1.0", "-af", "LastRemoteHost"])
        .stdout;
    let scratch = out
        .lines()
        .find_map(|l| l.strip_prefix("scratch "))
        .unwrap()
        .to_owned();
    assert!(
        scratch.starts_with(&*env.local_dir().join("execute/dir_1_0_").to_string_lossy()),
        "{out}"
    );
    assert_eq!(
        out,
        format!(
            "Submitting job(s).\n1 job(s) submitted to cluster 1.\n\
             Welcome to {}!\n\
             You will be logged out after 7200 seconds of inactivity.\n\
             in {}\nscratch {scratch}\ntmout 7200\nsession\n",
            host.trim(),
            env.work_dir().display()
        )
    );
    // condor_ssh_to_job -auto-retry says it waits when the job was not running at its first
    // look (the master may have started it already).
    assert_eq!(
        err.strip_prefix("Waiting for job to start...\n")
            .unwrap_or(&err),
        "Pseudo-terminal will not be allocated because stdin is not a terminal.\r\n"
    );
    assert_eq!(history_attr(&env, "1.0", "JobStatus"), "3");
    let ad = env.run(
        "condor_history",
        [
            "1.0",
            "-af",
            "InteractiveJob",
            "JobDescription",
            "Cmd",
            "JobPrio",
            "Env",
            "Environment",
        ],
    );
    assert_eq!(
        ad.stdout,
        "true interactive job /bin/sh 1000 undefined TMOUT=7200\n"
    );
    drop(master);
}

#[test]
fn a_users_file_gets_the_waiting_command_and_a_job_with_file_transfer_the_scratch_directory() {
    let mut env = TestEnvironment::new();
    std::fs::write(env.config_file(), "NUM_CPUS = 1\n").unwrap();
    let master = Master::start(&env);
    env.write_file(
        "my.sub",
        "executable = /bin/false\nshould_transfer_files = YES\nenvironment = FOO=bar\nqueue\n",
    );
    let (out, err, code) = interactive(&mut env, &["my.sub"], "echo \"$FOO in $PWD\"\n");
    assert_eq!(code, 0, "{out}{err}");
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    let line = out.lines().find(|l| l.starts_with("bar in ")).unwrap();
    assert!(
        line.starts_with(&format!(
            "bar in {}",
            env.local_dir().join("execute/dir_1_0_").display()
        )),
        "{out}"
    );
    let ad = env.run(
        "condor_history",
        [
            "1.0",
            "-af",
            "InteractiveJob",
            "Cmd",
            "TransferExecutable",
            "Arguments",
        ],
    );
    assert_eq!(
        ad.stdout,
        // INTERACTIVE_SUBMIT_ARGS_OVERRIDE, in HTCondor's canonical V2 form.
        "true /bin/sh false -c sleep' '180' '&&' 'while' 'test' '-d' \
         '${_CONDOR_SCRATCH_DIR}/.condor_ssh_to_job_1;' 'do' '/bin/sleep' '3;' 'done\n"
    );
    drop(master);
}

#[test]
fn without_a_master_the_interactive_job_is_removed_with_a_clear_error() {
    let mut env = TestEnvironment::new();
    let (out, err, code) = interactive(&mut env, &[], "");
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        env.normalize(&err),
        "ERROR: job 1.0 cannot start: -interactive needs the pool's condor_master (the job was removed)\n\
         Hint: no condor_master is running for LOCAL_DIR $TEST_ENV/local; start one with: condor_master\n"
    );
    assert_eq!(count(&env, "true"), 0);
}

#[test]
fn interactive_jobs_cannot_be_late_materialized() {
    let env = TestEnvironment::new();
    let out = env.run("condor_submit", ["-interactive", "-factory"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\n\nERROR: Interactive jobs cannot be materialized late\n[exit status: 1]"
    );
}
