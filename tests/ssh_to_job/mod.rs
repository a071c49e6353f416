//! `condor_ssh_to_job`: a command or a shell in a running job's directory with its
//! environment, the exit status passed through, and HTCondor 24.0's refusals and retries.

use crate::common::{Following, TestEnvironment};
use crate::pool::{count, script, submit, wait_for, Master};

/// A job (with file transfer, so it runs in its scratch directory) that records its pid in
/// `pid` and its scratch directory in `scratch` (in the submit directory), then waits for
/// the file `go` there.
fn a_waiting_job(env: &TestEnvironment) -> String {
    let work = env.work_dir();
    script(
        env,
        "job.sh",
        &format!(
            "#!/bin/sh\necho $$ > {w}/pid.tmp && mv {w}/pid.tmp {w}/pid\n\
             echo \"$_CONDOR_SCRATCH_DIR\" > {w}/scratch\n\
             while [ ! -e {w}/go ]; do sleep 0.05; done\n",
            w = work.display()
        ),
    );
    submit(
        env,
        "executable = job.sh\nenvironment = \"MYVAR=hello TMOUT=60\"\n\
         should_transfer_files = YES\nwhen_to_transfer_output = ON_EXIT\nqueue\n",
    )
}

fn read(env: &TestEnvironment, name: &str) -> String {
    std::fs::read_to_string(env.work_dir().join(name))
        .unwrap()
        .trim()
        .to_owned()
}

#[test]
fn a_command_runs_in_the_jobs_directory_with_its_environment_and_status() {
    let mut env = TestEnvironment::new();
    let _master = Master::start(&env);
    let cluster = a_waiting_job(&env);
    let job = format!("{cluster}.0");
    wait_for("the job's process", || env.work_dir().join("pid").exists());
    let (pid, scratch) = (read(&env, "pid"), read(&env, "scratch"));

    // The words are joined as ssh joins them and evaluated by the shell setup's shell.
    let out = env.run(
        "condor_ssh_to_job",
        [
            &job,
            "echo",
            "\"dir=$PWD var=$MYVAR pids=$_CONDOR_JOB_PIDS\";",
            "test -d .condor_ssh_to_job_1 && echo session;",
            "exit 3",
        ],
    );
    assert_eq!(
        out.to_string(),
        format!("dir={scratch} var=hello pids={pid}\nsession\n[exit status: 3]")
    );
    assert!(!std::path::Path::new(&scratch)
        .join(".condor_ssh_to_job_1")
        .exists());

    // A shell, fed on a standard input that is not a terminal: the shell setup's greeting.
    env.set_env("SHELL", "/bin/sh");
    let out = env.run_with_input(
        "condor_ssh_to_job",
        &[&job],
        b"echo \"in $PWD $_CONDOR_SHELL\"\nexit 0\n",
    );
    let slot = env
        .run("condor_q", [job.as_str(), "-af", "RemoteHost"])
        .stdout;
    assert_eq!(
        out.to_string(),
        format!(
            "Welcome to {}!\nYour condor job is running with pid(s) {pid}.\n\
             You will be logged out after 60 seconds of inactivity.\n\
             in {scratch} /bin/sh\n\
             ------- stderr -------\n\
             Pseudo-terminal will not be allocated because stdin is not a terminal.\r\n\
             [exit status: 0]",
            slot.trim()
        )
    );

    // A session ended by a signal exits as ssh does then.
    let out = env.run("condor_ssh_to_job", [&job, "kill -9 $$"]);
    assert_eq!(out.status, Some(255), "{out}");

    // There is no ssh to replace.
    let out = env.run("condor_ssh_to_job", ["-ssh", "sftp", &job]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\n\
         ERROR: -ssh sftp is not supported: the session runs on this host without ssh\n\
         [exit status: 1]"
    );

    // Another user's job.
    env.set_env("CONDORLITE_USER", "mallory");
    let out = env.run("condor_ssh_to_job", [&job, "true"]);
    assert_eq!(
        out.to_string(),
        format!(
            "------- stderr -------\n\
             mallory is not authorized for access to the starter for job {job}\n\
             [exit status: 1]"
        )
    );
    std::fs::write(env.work_dir().join("go"), "").unwrap();
    wait_for("the job to finish", || count(&env, "true") == 0);
}

#[test]
fn jobs_that_cannot_be_reached_are_refused_with_htcondors_messages() {
    let env = TestEnvironment::new();
    let refused = |args: &[&str]| env.run("condor_ssh_to_job", args).to_string();
    assert_eq!(
        refused(&["x1"]),
        "------- stderr -------\nInvalid job id: x1\n[exit status: 2]"
    );
    assert_eq!(
        refused(&[]),
        "------- stderr -------\nERROR: You must specify a job!\n\n[exit status: 2]"
    );
    assert_eq!(
        refused(&["-frobnicate", "1"]),
        "------- stderr -------\nUnrecognized argument: -frobnicate\n[exit status: 2]"
    );
    assert_eq!(
        refused(&["7.0"]),
        "------- stderr -------\nUnable to fetch job ad; is it still in the queue?\n\
         [exit status: 1]"
    );
    assert_eq!(
        refused(&["-name", "schedd@elsewhere.invalid", "1"]),
        "------- stderr -------\nNo such schedd named schedd@elsewhere.invalid in local pool\n\
         [exit status: 1]"
    );
    // No master: the job stays idle.
    let idle = submit(&env, "executable = /bin/true\nqueue\n");
    assert_eq!(
        refused(&[&idle, "true"]),
        "------- stderr -------\n(Use -auto-retry to keep trying periodically.)\n\
         [exit status: 1]"
    );
    let held = submit(&env, "executable = /bin/true\nhold = true\nqueue\n");
    let reason = env
        .run("condor_q", [held.as_str(), "-af", "HoldReason"])
        .stdout;
    assert_eq!(
        refused(&["-auto-retry", &held]),
        format!(
            "------- stderr -------\nThe job is on hold: \"{}\".\n[exit status: 1]",
            reason.trim()
        )
    );
    assert!(env
        .run("condor_ssh_to_job", ["-help"])
        .stdout
        .starts_with("Usage: condor_ssh_to_job [OPTIONS] { cluster | cluster.proc } [command]\n"));
}

#[test]
fn auto_retry_waits_for_the_job_to_start_and_ends_when_it_cannot() {
    let env = TestEnvironment::new();
    let cluster = a_waiting_job(&env);
    let job = format!("{cluster}.0");
    // No master yet: the job is idle, and the tool waits for it.
    let mut waiting = Following::start(
        &env,
        "condor_ssh_to_job",
        &["-auto-retry", &job, "echo \"ran in $_CONDOR_SCRATCH_DIR\""],
    );
    let mut stderr = waiting.child.stderr.take().unwrap();
    let mut said = String::new();
    {
        use std::io::Read;
        let mut buf = [0u8; 64];
        while !said.contains('\n') {
            let n = stderr.read(&mut buf).unwrap();
            assert!(n > 0, "condor_ssh_to_job ended: {said}");
            said.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }
    assert_eq!(said, "Waiting for job to start...\n");
    let master = Master::start(&env);
    let status = waiting.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let scratch = read(&env, "scratch");
    assert_eq!(waiting.seen(), format!("ran in {scratch}\n"));
    std::fs::write(env.work_dir().join("go"), "").unwrap();
    wait_for("the job to finish", || count(&env, "true") == 0);
    drop(master);

    // A job that completed cannot start any more: the wait ends.
    let done = submit(
        &env,
        "executable = /bin/true\nleave_in_queue = true\nqueue\n",
    );
    let master = Master::start(&env);
    wait_for("the job to complete", || count(&env, "JobStatus == 4") == 1);
    drop(master);
    let out = env.run("condor_ssh_to_job", ["-auto-retry", &done]);
    assert_eq!(
        out.to_string(),
        format!("------- stderr -------\nJob {done}.0 is not running.\n[exit status: 1]")
    );
}
