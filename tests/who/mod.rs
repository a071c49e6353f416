//! `condor_who`: the jobs running on this machine's slots, in HTCondor 24.0's default, `-long`
//! and `-af` views.

use crate::common::TestEnvironment;
use crate::pool::{a_running_sleeper, job_processes, wait_for};

/// The text with runs of digits after `+` (a run time) made `N`.
fn runtime_free(text: &str) -> String {
    let re = regex::Regex::new(r"\d\+\d\d:\d\d:\d\d").unwrap();
    re.replace_all(text, "0+00:00:NN").into_owned()
}

#[test]
fn the_running_jobs_with_their_slots_processes_and_programs() {
    let env = TestEnvironment::new();
    let (_master, cluster) = a_running_sleeper(&env, "job.log");
    let pids = job_processes(&env);
    assert_eq!(pids.len(), 1, "{pids:?}");
    let pid = pids[0];
    // A run time is published once the job has run a second.
    wait_for("the job's run time", || {
        let out = env.run("condor_who", ["-af", "TotalJobRunTime"]);
        out.stdout.trim() != "undefined" && !out.stdout.trim().is_empty()
    });
    let out = env.run("condor_who", Vec::<&str>::new());
    let owner = env
        .run("condor_q", ["-af", "Owner"])
        .stdout
        .trim()
        .to_owned();
    let host = env
        .run("condor_config_val", ["FULL_HOSTNAME"])
        .stdout
        .trim()
        .to_owned();
    let job = format!("{cluster}.0");
    let pad = |s: &str, w: usize| format!("{s:<w$}");
    let rpad = |s: &str, w: usize| format!("{s:>w$}");
    let ow = owner.len().max(5);
    let cw = host.len().max(6);
    let jw = job.len().max(6);
    let expected = format!(
        // Headings are padded to their columns' widths, the last one too.
        "\n{} {} SLOT {} {} {} PROGRAM       \n{} {} 1_1  {} {} {} /bin/sleep 300\n\n[exit status: 0]",
        pad("OWNER", ow),
        pad("CLIENT", cw),
        pad("JOB", jw),
        "  RUNTIME   ",
        pad("PID", 6.max(pid.to_string().len())),
        rpad(&owner, ow),
        rpad(&host, cw),
        pad(&job, jw),
        "  0+00:00:NN",
        pad(&pid.to_string(), 6),
    );
    assert_eq!(runtime_free(&out.to_string()), expected);

    let out = env.run(
        "condor_who",
        ["-af", "JobId", "#PID", "#SLOT", "RemoteOwner"],
    );
    assert_eq!(
        out.to_string(),
        format!("\n\n{job} {pid} 1_1 {owner}\n\n[exit status: 0]")
    );
    let out = env.run("condor_who", ["-af:h", "JobId", "#PROGRAM"]);
    assert_eq!(
        out.to_string(),
        format!(
            "\n{} PROGRAM       \n{} /bin/sleep 300\n\n[exit status: 0]",
            pad("JobId", job.len().max(5)),
            pad(&job, 5)
        )
    );
    let out = env.run("condor_who", ["-long"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(
        out.stdout.contains(&format!("JobId = \"{job}\"\n")),
        "{out}"
    );
    assert!(out.stdout.ends_with("\n\n"), "{out}");

    let out = env.run("condor_who", ["-bogus"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nError: -bogus is not a valid argument\n[exit status: 1]"
    );
    let out = env.run("condor_who", ["-af"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nError: Argument -af requires at least one attribute \
         parameter\nUse \"condor_who -help\" for details\n[exit status: 1]"
    );
}

#[test]
fn without_a_master_there_is_nothing_to_show() {
    let env = TestEnvironment::new();
    let out = env.run("condor_who", Vec::<&str>::new());
    assert_eq!(out.to_string(), "[exit status: 0]");
}
