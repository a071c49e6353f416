//! Policy on running jobs, end to end: `condor_vacate_job`, `condor_suspend` and
//! `condor_continue` on a personal pool's jobs, `condor_drain` of its startd, and the
//! startd's policy expressions acting on real processes.
//!
//! Every wait is on a condition with a deadline; every test stops its master (and so its
//! jobs) when it ends.

use crate::common::TestEnvironment;
use crate::pool::{a_running_sleeper, count, event_codes, job_processes, wait_for, Master};

/// The one-letter state (`R`, `S`, `T`, ...) of each of the pool's job processes.
fn process_states(env: &TestEnvironment) -> Vec<char> {
    job_processes(env)
        .into_iter()
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            stat.rsplit(')').next()?.trim_start().chars().next()
        })
        .collect()
}

fn q_af(env: &TestEnvironment, job: &str, attrs: &[&str]) -> String {
    let mut args = vec![job, "-af"];
    args.extend_from_slice(attrs);
    let out = env.run("condor_q", args);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.trim().to_owned()
}

#[test]
fn condor_vacate_job_sends_a_running_job_back_to_be_matched_again() {
    let env = TestEnvironment::new();
    let (master, cluster) = a_running_sleeper(&env, "vacate.log");
    let id = format!("{cluster}.0");
    let out = env.run("condor_vacate_job", [&id]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(out.stdout, format!("Job {id} vacated\n"));
    wait_for("the job to run again", || {
        count(&env, "JobStatus == 2 && NumJobStarts == 2") == 1
    });
    // The reason is gone with the new run; its count stays.
    assert_eq!(
        q_af(
            &env,
            &id,
            &["NumVacates", "NumVacatesByReason.ScheddVacate"]
        ),
        "1 1"
    );
    assert_eq!(event_codes(&env, "vacate.log"), [0, 1, 4, 1]);
    let events = condorlite::eventlog::read_events(env.work_dir().join("vacate.log")).unwrap();
    match &events[2].body {
        condorlite::eventlog::EventBody::JobEvicted(e) => {
            assert_eq!(e.reason.as_deref(), Some("Job vacated by schedd"))
        }
        other => panic!("event 3 is {other:?}"),
    }

    // -fast, by cluster: a hard kill, the same return to idle.
    let out = env.run("condor_vacate_job", ["-fast", &cluster]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        out.stdout,
        format!("All jobs in cluster {cluster} have been fast-vacated\n")
    );
    wait_for("the job to run a third time", || {
        count(&env, "JobStatus == 2 && NumJobStarts == 3") == 1
    });
    drop(master);
    assert!(job_processes(&env).is_empty());
}

#[test]
fn only_running_jobs_are_vacated_or_suspended() {
    let env = TestEnvironment::new();
    let file = env.write_file("idle.sub", "executable = /bin/true\nhold = true\nqueue\n");
    let out = env.run("condor_submit", ["-terse", file.to_str().unwrap()]);
    assert_eq!(out.status, Some(0), "{out}");
    let id = out.stdout.split(" - ").next().unwrap().trim().to_owned();
    for (tool, text) in [
        ("condor_vacate_job", "not running to be vacated"),
        ("condor_suspend", "not running to be suspended"),
        ("condor_continue", "not running to be continued"),
    ] {
        let out = env.run(tool, [&id]);
        assert_eq!(out.status, Some(1), "{out}");
        assert_eq!(out.stderr, format!("\nJob {id} {text}\n"), "{tool}");
    }
    let out = env.run("condor_vacate_job", ["-fast", &id]);
    assert_eq!(
        out.stderr,
        format!("\nJob {id} not running to be fast-vacated\n")
    );
    let out = env.run("condor_suspend", ["-fast", &id]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr
            .starts_with("-fast is only valid with condor_vacate_job\nUsage: condor_suspend"),
        "{out}"
    );
    // Nothing to act on by constraint: the schedd's error, as for condor_rm.
    let out = env.run("condor_vacate_job", ["-all"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(out.stderr, "\nCouldn't find/vacate all jobs\n");
}

#[test]
fn a_suspended_job_stops_until_continued() {
    let env = TestEnvironment::new();
    let (master, cluster) = a_running_sleeper(&env, "suspend.log");
    let id = format!("{cluster}.0");
    let out = env.run("condor_suspend", [&id]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(out.stdout, format!("Job {id} suspended\n"));
    wait_for("the job to be suspended", || {
        count(&env, "JobStatus == 7") == 1
    });
    assert_eq!(process_states(&env), ['T'], "the process is stopped");
    assert_eq!(q_af(&env, &id, &["TotalSuspensions"]), "1");
    let out = env.run("condor_suspend", [&id]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(
        out.stderr,
        format!("\nJob {id} not running to be suspended\n")
    );

    let out = env.run("condor_continue", [&cluster]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        out.stdout,
        format!("All jobs in cluster {cluster} have been continued\n")
    );
    wait_for("the job to run again", || {
        count(&env, "JobStatus == 2") == 1
    });
    assert_ne!(process_states(&env), ['T'], "the process runs");
    assert_eq!(
        q_af(&env, &id, &["LastSuspensionTime", "NumJobStarts"]),
        "0 1",
        "the same run goes on"
    );
    assert_eq!(event_codes(&env, "suspend.log"), [0, 1, 10, 11]);

    // A suspended job is still removed promptly: its kill signal is delivered.
    let out = env.run("condor_suspend", [&id]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to be suspended", || {
        count(&env, "JobStatus == 7") == 1
    });
    let out = env.run("condor_rm", [&id]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job's process to go", || job_processes(&env).is_empty());
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_eq!(event_codes(&env, "suspend.log"), [0, 1, 10, 11, 10, 9]);
    drop(master);
}

#[test]
fn signalling_jobs_needs_the_master() {
    let env = TestEnvironment::new();
    let (master, cluster) = a_running_sleeper(&env, "none.log");
    // Killed: the queue still says running, but nobody runs the job.
    master.kill();
    let out = env.run("condor_suspend", [&format!("{cluster}.0")]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr.contains("Can't find address for local schedd"),
        "{out}"
    );
    // The next master's recovery kills the orphan and requeues the job.
    let master = Master::start(&env);
    drop(master);
    assert!(job_processes(&env).is_empty());
}
