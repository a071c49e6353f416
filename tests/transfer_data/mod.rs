//! `condor_submit -spool` and `condor_transfer_data` end to end: a spooled job's output stays
//! in its spool directory (its `Iwd` after the schedd's rewrite) until `condor_transfer_data`
//! fetches it into the submit directory through the submit file's remaps.

use crate::common::TestEnvironment;
use crate::pool::{count, script, wait_for, Master};

fn spool_submit(env: &TestEnvironment, text: &str) -> String {
    let file = env.write_file("job.sub", text);
    let out = env.run(
        "condor_submit",
        ["-spool", "-terse", file.to_str().unwrap()],
    );
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.split('.').next().unwrap().trim().to_owned()
}

fn q_attr(env: &TestEnvironment, job: &str, attr: &str) -> String {
    let out = env.run("condor_q", [job, "-af", attr]);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.trim().to_owned()
}

fn spool_dir(env: &TestEnvironment, cluster: &str) -> std::path::PathBuf {
    env.local_dir()
        .join("spool")
        .join(cluster)
        .join("0")
        .join(format!("cluster{cluster}.proc0.subproc0"))
}

#[test]
fn spooled_output_waits_for_condor_transfer_data() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    std::fs::create_dir_all(env.work_dir().join("out")).unwrap();
    std::fs::create_dir_all(env.work_dir().join("res")).unwrap();
    env.write_file("in.txt", "input\n");
    script(
        &env,
        "job.sh",
        "#!/bin/sh\ncat in.txt > result.txt\necho out\necho err >&2\n",
    );
    let cluster = spool_submit(
        &env,
        "executable = job.sh\nshould_transfer_files = YES\ntransfer_input_files = in.txt\n\
         transfer_output_files = result.txt\n\
         transfer_output_remaps = \"result.txt = res/r.txt\"\n\
         output = out/o.txt\nerror = e.txt\nlog = j.log\nqueue\n",
    );
    let job = format!("{cluster}.0");
    // The schedd's rewrite: the job runs in its spool directory.
    let spool = spool_dir(&env, &cluster);
    assert_eq!(q_attr(&env, &job, "Iwd"), spool.display().to_string());
    assert_eq!(
        q_attr(&env, &job, "SUBMIT_Iwd"),
        env.work_dir().display().to_string()
    );
    assert_eq!(
        q_attr(&env, &job, "SUBMIT_TransferOutputRemaps"),
        "_condor_stdout=out/o.txt;result.txt = res/r.txt"
    );
    assert_eq!(q_attr(&env, &job, "TransferOutputRemaps"), "undefined");
    wait_for("the job to complete", || {
        count(&env, &format!("ClusterId == {cluster} && JobStatus == 4")) == 1
    });
    // Completed, and left in the queue with its output in the spool.
    assert_eq!(
        std::fs::read_to_string(spool.join("result.txt")).unwrap(),
        "input\n"
    );
    assert_eq!(
        std::fs::read_to_string(spool.join("_condor_stdout")).unwrap(),
        "out\n"
    );
    for name in ["out/o.txt", "res/r.txt", "e.txt", "result.txt"] {
        assert!(
            !env.work_dir().join(name).exists(),
            "{name} before the fetch"
        );
    }
    assert_eq!(q_attr(&env, &job, "StageOutStart"), "undefined");

    let out = env.run("condor_transfer_data", [&cluster]);
    assert_eq!(out.to_string(), "Fetching data files...\n[exit status: 0]");
    let read = |name: &str| std::fs::read_to_string(env.work_dir().join(name)).unwrap();
    assert_eq!(read("out/o.txt"), "out\n");
    assert_eq!(read("e.txt"), "err\n");
    assert_eq!(read("res/r.txt"), "input\n");
    assert!(!env.work_dir().join("result.txt").exists());
    let start: i64 = q_attr(&env, &job, "StageOutStart").parse().unwrap();
    let finish: i64 = q_attr(&env, &job, "StageOutFinish").parse().unwrap();
    assert!(start > 0 && finish >= start);
    assert_eq!(q_attr(&env, &job, "JobStatus"), "4");
    drop(master);
}

#[test]
fn a_symbolic_link_out_of_the_spool_is_not_followed() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let secret = env.write_file("secret", "secret\n");
    std::fs::create_dir_all(env.work_dir().join("sub")).unwrap();
    // No file transfer: the job runs in its spool directory and leaves a link out of it.
    script(
        &env,
        "link.sh",
        &format!(
            "#!/bin/sh\nln -s {} leak\necho ok > fine\n",
            secret.display()
        ),
    );
    let cluster = spool_submit(
        &env,
        &format!(
            "executable = {}\ninitialdir = sub\nqueue\n",
            env.work_dir().join("link.sh").display()
        ),
    );
    wait_for("the job to complete", || {
        count(&env, &format!("ClusterId == {cluster} && JobStatus == 4")) == 1
    });
    let out = env.run("condor_transfer_data", ["-all"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(out.stdout, "Fetching data files...\n");
    assert!(
        out.stderr
            .ends_with("\nERROR: Failed to spool job files.\n"),
        "{out}"
    );
    assert!(out.stderr.contains("leak"), "{out}");
    assert!(std::fs::symlink_metadata(env.work_dir().join("sub/leak")).is_err());
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret\n");
    drop(master);
}

#[test]
fn command_line_errors_as_htcondor_words_them() {
    let env = TestEnvironment::new();
    let out = env.run("condor_transfer_data", Vec::<&str>::new());
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr.starts_with(
            "You did not specify any jobs\nUsage: condor_transfer_data [options] [constraints]\n"
        ),
        "{out}"
    );
    let out = env.run(
        "condor_transfer_data",
        ["-name", "nosuchschedd.invalid", "1"],
    );
    assert_eq!(out.status, Some(1), "{out}");
    assert!(out.stderr.starts_with("condor_transfer_data: "), "{out}");
    let out = env.run("condor_transfer_data", ["-help"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(out
        .stdout
        .contains("-all                transfer data for all jobs"));
    // Nothing matches: nothing to fetch, and no error.
    let out = env.run("condor_transfer_data", ["77"]);
    assert_eq!(out.to_string(), "Fetching data files...\n[exit status: 0]");
}

#[test]
fn a_spooled_job_whose_output_was_never_fetched_leaves_the_queue_after_ten_days() {
    // condor_submit -spool keeps a completed job for ten days (its `LeaveJobInQueue`); the
    // schedd's periodic pass (`PERIODIC_EXPR_INTERVAL`) asks again, and moves the job to the
    // history, its spool directory removed, once the expression says no more.
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_PERIODIC_EXPR_INTERVAL", "1");
    let master = Master::start(&env);
    script(&env, "job.sh", "#!/bin/sh\necho out\n");
    let sub = "executable = job.sh\noutput = o.txt\nlog = j.log\nqueue\n";
    let old = spool_submit(&env, sub);
    let recent = spool_submit(&env, sub);
    wait_for("both jobs to complete", || {
        count(&env, "JobStatus == 4") == 2
    });
    let old_spool = spool_dir(&env, &old);
    assert!(old_spool.join("o.txt").exists());
    // Its output was never fetched, and it completed eleven days ago.
    let eleven_days_ago = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 11 * 24 * 3600)
        .to_string();
    let out = env.run(
        "condor_qedit",
        [&format!("{old}.0"), "CompletionDate", &eleven_days_ago],
    );
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the old job to leave the queue", || {
        count(&env, &format!("ClusterId == {old}")) == 0
    });
    let out = env.run("condor_history", [&format!("{old}.0"), "-af", "JobStatus"]);
    assert_eq!(out.to_string(), "4\n[exit status: 0]");
    assert!(!old_spool.exists(), "{}", old_spool.display());
    // The job that completed now stays, its output waiting for condor_transfer_data.
    assert_eq!(
        count(&env, &format!("ClusterId == {recent} && JobStatus == 4")),
        1
    );
    assert!(spool_dir(&env, &recent).join("o.txt").exists());
    drop(master);
}
