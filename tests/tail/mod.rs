//! `condor_tail`: a running job's output, other files of its sandbox, following, and the
//! refusals of HTCondor 24.0's tail.cpp, schedd and starter.

use crate::common::{Following, TestEnvironment};
use crate::pool::{count, script, submit, wait_for, Master};

/// A job that prints five lines and `oops` on stderr, writes `progress.txt`, leaves a link
/// to a file outside its sandbox, then waits for the file `go` in the submit directory and
/// prints one more line.
/// A job that writes five lines and waits for `go`; with `transfer`, its output list names
/// `progress.txt` and a link it makes to `/etc/passwd` (which condor_tail refuses, and which
/// holds the job when it ends: no link out of the sandbox is transferred).
fn a_waiting_job(env: &TestEnvironment, transfer: bool) -> String {
    a_waiting_job_sending(env, transfer, "progress.txt, escape")
}

/// [`a_waiting_job`] whose output list (with `transfer`) is `outputs`.
fn a_waiting_job_sending(env: &TestEnvironment, transfer: bool, outputs: &str) -> String {
    let go = env.work_dir().join("go");
    script(
        env,
        "job.sh",
        &format!(
            "#!/bin/sh\nfor i in 1 2 3 4 5; do echo \"line $i\"; done\necho oops >&2\n\
             echo 42% > progress.txt\nln -s /etc/passwd escape\n\
             while [ ! -e {} ]; do sleep 0.05; done\necho 'after go'\n",
            go.display()
        ),
    );
    submit(
        env,
        &format!(
            "executable = job.sh\noutput = out.txt\nerror = err.txt\n{}queue\n",
            if transfer {
                format!("should_transfer_files = YES\ntransfer_output_files = {outputs}\n")
            } else {
                "should_transfer_files = NO\n".to_owned()
            }
        ),
    )
}

fn tail(env: &TestEnvironment, args: &[&str]) -> crate::common::CommandOutput {
    env.run("condor_tail", args)
}

/// Waits until the job's stdout holds its five lines (`condor_tail` shows them).
fn wait_for_output(env: &TestEnvironment, job: &str) {
    wait_for("the job's output", || {
        tail(env, &[job]).stdout.contains("line 5")
    });
}

#[test]
fn a_running_jobs_output_error_and_files() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    let cluster = a_waiting_job(&env, true);
    wait_for("the job to run", || count(&env, "JobStatus == 2") == 1);
    wait_for_output(&env, &cluster);

    let out = tail(&env, &[&cluster]);
    assert_eq!(
        out.to_string(),
        "line 1\nline 2\nline 3\nline 4\nline 5\n[exit status: 0]"
    );
    let job = format!("{cluster}.0");
    let out = tail(&env, &["-maxbytes", "7", &job]);
    assert_eq!(out.to_string(), "line 5\n[exit status: 0]");
    let out = tail(&env, &["-stderr", &job]);
    assert_eq!(out.to_string(), "oops\n[exit status: 0]");
    // A huge bound is streamed, not held.
    let out = tail(&env, &["-maxbytes", "99999999999999", &job]);
    assert_eq!(
        out.to_string(),
        "line 1\nline 2\nline 3\nline 4\nline 5\n[exit status: 0]"
    );
    let out = tail(&env, &[&job, "progress.txt"]);
    assert_eq!(
        out.to_string(),
        "line 1\nline 2\nline 3\nline 4\nline 5\n42%\n[exit status: 0]"
    );
    // The bound is over all the files of a request, the first taking what it needs.
    let out = tail(
        &env,
        &["-maxbytes", "10", "-no-stdout", &job, "progress.txt"],
    );
    assert_eq!(out.to_string(), "42%\n[exit status: 0]");

    let out = tail(&env, &[&job, "other.txt"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nFailed to peek at file from starter: File other.txt requested but not \
         authorized to be sent.\n\n[exit status: 1]"
    );
    let out = tail(&env, &[&job, "escape"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr.starts_with(
            "Failed to peek at file from starter: Invalid symlink or filename (/etc/passwd) \
             outside sandbox ("
        ),
        "{out}"
    );
    std::fs::write(env.work_dir().join("go"), "").unwrap();
}

#[test]
fn a_job_without_file_transfer_is_read_where_it_writes() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    let cluster = a_waiting_job(&env, false);
    wait_for_output(&env, &cluster);
    let out = tail(&env, &["-maxbytes", "14", &cluster]);
    assert_eq!(out.to_string(), "line 4\nline 5\n[exit status: 0]");
    let out = tail(&env, &["-stderr", &cluster]);
    assert_eq!(out.to_string(), "oops\n[exit status: 0]");
    std::fs::write(env.work_dir().join("go"), "").unwrap();
}

#[test]
fn follow_shows_what_the_job_appends_and_ends_when_the_job_leaves() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    // (Its output is sent back, and it leaves the queue: no link out among its outputs.)
    let cluster = a_waiting_job_sending(&env, true, "progress.txt");
    wait_for_output(&env, &cluster);
    let mut follow = Following::start(&env, "condor_tail", &["-f", &cluster]);
    wait_for("the first lines", || follow.seen().contains("line 5\n"));
    std::fs::write(env.work_dir().join("go"), "").unwrap();
    wait_for("condor_tail -f to end with the job", || {
        follow.child.try_wait().unwrap().is_some()
    });
    let status = follow.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let seen = follow.seen();
    assert!(
        seen == "line 1\nline 2\nline 3\nline 4\nline 5\nafter go\n"
            || seen == "line 1\nline 2\nline 3\nline 4\nline 5\n",
        "{seen:?}"
    );
    // The job's last line came while it was followed, unless it ended between two looks.
    let out_file = std::fs::read_to_string(env.work_dir().join("out.txt")).unwrap();
    assert!(out_file.ends_with("after go\n"), "{out_file}");
}

#[test]
fn an_idle_job_is_waited_for() {
    let mut env = TestEnvironment::new();
    env.warn_no_master();
    let cluster = a_waiting_job(&env, true);
    // No master yet: the job is idle, and condor_tail waits (silently) for it to run.
    let follow = Following::start(&env, "condor_tail", &[&cluster]);
    let _master = Master::start(&env);
    wait_for("the job to run", || count(&env, "JobStatus == 2") == 1);
    wait_for_output(&env, &cluster);
    let mut follow = follow;
    wait_for("condor_tail to show the output and end", || {
        follow.child.try_wait().unwrap().is_some()
    });
    assert!(follow.seen().starts_with("line 1\n"), "{}", follow.seen());
    std::fs::write(env.work_dir().join("go"), "").unwrap();
}

#[test]
fn refusals_as_htcondor_words_them() {
    let mut env = TestEnvironment::new();
    env.warn_no_master();
    let out = tail(&env, &["99.0"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nNo such job: 99.0\n[exit status: 1]"
    );
    for (args, first) in [
        (vec![], "Job ID not specified.\n"),
        (vec!["x.y"], "Invalid Job ID: x.y\n"),
        (vec!["-no-stdout", "1"], "No file transfer specified.\n\n"),
        (vec!["-maxbytes"], "-maxbytes requires an argument.\n\n"),
        (
            vec!["-maxbytes", "-3", "1"],
            "-maxbytes requires an argument.\n\n",
        ),
        (
            vec!["-maxbytes", "abc", "1"],
            "Error: maxbytes (abc) is not valid\n\n",
        ),
        (vec!["-name"], "-name requires an argument.\n\n"),
    ] {
        let out = tail(&env, &args);
        assert_eq!(out.status, Some(1), "{args:?}: {out}");
        assert!(out.stdout.is_empty(), "{args:?}: {out}");
        assert!(
            out.stderr.starts_with(&format!(
                "{first}Usage: condor_tail [options] <job-id> [filename1[, filename2[, ...]]]\n"
            )),
            "{args:?}: {out}"
        );
    }
    let out = tail(&env, &["-name", "nosuch@elsewhere.example", "1"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(
        out.stderr,
        "No such schedd named nosuch@elsewhere.example in local pool\n"
    );
    let out = tail(&env, &["-help"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(out
        .stdout
        .contains("-f,-follow        Follow the contents of a file."));

    // Someone else's job, and a scheduler-universe job.
    env.set_env("CONDORLITE_USER", "alice");
    env.write_file(
        "sched.sub",
        "universe = scheduler\nexecutable = /bin/true\nqueue\n",
    );
    assert_eq!(env.run("condor_submit", ["sched.sub"]).status, Some(0));
    let out = tail(&env, &["1"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nJob 1.0 does not support remote access.\n[exit status: 1]"
    );
    env.set_env("CONDORLITE_USER", "bob");
    let out = tail(&env, &["1.0"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nbob is not authorized for access to the starter for job 1.0\n[exit status: 1]"
    );
}
