//! Policy on running jobs, end to end: `condor_vacate_job`, `condor_suspend` and
//! `condor_continue` on a personal pool's jobs, `condor_drain` of its startd, and the
//! startd's policy expressions acting on real processes.
//!
//! Every wait is on a condition with a deadline; every test stops its master (and so its
//! jobs) when it ends.

use crate::common::TestEnvironment;
use crate::pool::{a_running_sleeper, assert_events, count, job_processes, wait_for, Master};

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
    assert_events(&env, "vacate.log", &[0, 1, 4, 1]);
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
    assert_events(&env, "suspend.log", &[0, 1, 10, 11]);

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
    assert_events(&env, "suspend.log", &[0, 1, 10, 11, 10, 9]);
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
    assert_eq!(
        env.normalize(&out.stderr),
        format!(
            "condor_suspend: Can't find address for local schedd\n\
             Perhaps you need to query another pool.\n{}",
            crate::common::NO_MASTER_HINT
        ),
        "{out}"
    );
    // The next master's recovery kills the orphan and requeues the job.
    let master = Master::start(&env);
    drop(master);
    assert!(job_processes(&env).is_empty());
}

/// The pool's one startd name, as `condor_drain` takes it.
fn startd_name(env: &TestEnvironment) -> String {
    let out = env.run("condor_status", ["-startd", "-af", "Name"]);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.trim().to_owned()
}

/// `Name State Activity` of every slot, one line each.
fn slot_states(env: &TestEnvironment) -> String {
    let out = env.run("condor_status", ["-af", "Name", "State", "Activity"]);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout
}

/// Writes the configuration file of the environment.
fn configure(env: &TestEnvironment, text: &str) {
    std::fs::write(env.config_file(), text).unwrap();
}

/// A job that runs until the file `name` appears in the working directory.
fn until_file(name: &str, log: &str) -> String {
    format!(
        "executable = /bin/sh\narguments = \"-c 'while [ ! -e {name} ]; do sleep 0.05; done'\"\n\
         log = {log}\nqueue\n"
    )
}

#[test]
fn a_graceful_drain_lets_jobs_finish_and_starts_nothing_until_cancelled() {
    let env = TestEnvironment::new();
    configure(&env, "NUM_CPUS = 2\nMAXJOBRETIREMENTTIME = 3600\n");
    let master = Master::start(&env);
    let first = crate::pool::submit(&env, &until_file("go", "drain.log"));
    wait_for("the job to run", || count(&env, "JobStatus == 2") == 1);
    let name = startd_name(&env);

    let out = env.run("condor_drain", ["-verbose", &name]);
    assert_eq!(out.status, Some(0), "{out}");
    let line = out.stdout.lines().next().unwrap().to_owned();
    assert!(
        line.starts_with("Sent request to drain the startd <")
            && line.ends_with(&format!(
                "> with {name}. This only affects the single startd; any other startds \
                 running on the same host will not be drained."
            )),
        "{out}"
    );
    assert!(out.stdout.contains("\tRequest id: "), "{out}");
    wait_for("the slots to retire", || {
        slot_states(&env).lines().all(|l| l.ends_with("Retiring"))
    });
    let out = env.run("condor_status", ["-af", "Draining", "DrainReason"]);
    assert!(
        out.stdout.lines().all(|l| l.starts_with("true by ")),
        "{out}"
    );

    // Nothing new starts while draining.
    let second = crate::pool::submit(&env, &until_file("go2", "drain.log"));
    crate::pool::settle(&env);
    assert_eq!(
        count(&env, &format!("ClusterId == {second} && JobStatus == 1")),
        1
    );

    // The running job finishes by itself; the machine ends drained.
    std::fs::write(env.work_dir().join("go"), "").unwrap();
    wait_for("the first job to complete", || {
        count(&env, &format!("ClusterId == {first}")) == 0
    });
    wait_for("the machine to be drained", || {
        slot_states(&env).trim_end().ends_with("Drained Idle")
    });
    assert_eq!(
        crate::pool::history_attr(&env, &format!("{first}.0"), "ExitCode"),
        "0"
    );

    let out = env.run("condor_drain", ["-cancel", &name]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        out.stdout,
        format!("Sent request to cancel draining on {name}\n")
    );
    wait_for("the second job to run", || {
        count(&env, &format!("ClusterId == {second} && JobStatus == 2")) == 1
    });
    drop(master);
}

#[test]
fn a_quick_drain_vacates_and_resumes_on_completion() {
    let env = TestEnvironment::new();
    configure(&env, "MAXJOBRETIREMENTTIME = 3600\n");
    let (master, cluster) = a_running_sleeper(&env, "quick.log");
    let name = startd_name(&env);
    let out = env.run("condor_drain", ["-quick", "-resume-on-completion", &name]);
    assert_eq!(out.status, Some(0), "{out}");
    // Vacated (retirement is not honoured), then the drain completes and the startd
    // resumes: the job runs again.
    wait_for("the job to run again", || {
        count(&env, "JobStatus == 2 && NumJobStarts == 2") == 1
    });
    let events = condorlite::eventlog::read_events(env.work_dir().join("quick.log")).unwrap();
    let evicted = events
        .iter()
        .find_map(|e| match &e.body {
            condorlite::eventlog::EventBody::JobEvicted(v) => Some(v.reason.clone()),
            _ => None,
        })
        .expect("an eviction");
    assert_eq!(evicted.as_deref(), Some("Startd was draining"));
    let out = env.run(
        "condor_q",
        [&cluster, "-af", "NumVacatesByReason.StartdDraining"],
    );
    assert_eq!(out.stdout, "1\n", "{out}");
    let out = env.run("condor_status", ["-af", "Draining"]);
    assert!(out.stdout.lines().all(|l| l == "undefined"), "{out}");
    drop(master);
}

#[test]
fn condor_drain_refusals_and_errors() {
    let env = TestEnvironment::new();
    let out = env.run("condor_drain", ["nosuchhost.example"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(
        env.normalize(&out.stderr),
        format!(
            "ERROR: Can't find address for startd nosuchhost.example\n{}",
            crate::common::NO_MASTER_HINT
        )
    );
    let master = Master::start(&env);
    let name = startd_name(&env);
    let out = env.run("condor_drain", ["-check", "Cpus > 1000", &name]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr
            .starts_with("Attempt to send DRAIN_JOBS to startd <"),
        "{out}"
    );
    let out = env.run("condor_status", ["-af", "Draining"]);
    assert!(
        out.stdout.lines().all(|l| l == "undefined"),
        "not draining: {out}"
    );
    let out = env.run("condor_drain", [&name]);
    assert_eq!(out.status, Some(0), "{out}");
    let out = env.run("condor_drain", [&name]);
    assert_eq!(out.status, Some(1), "a second drain is refused: {out}");
    let out = env.run("condor_drain", ["-cancel", "-request-id", "nope", &name]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr
            .starts_with("Attempt to send CANCEL_DRAIN_JOBS to startd <"),
        "{out}"
    );
    drop(master);
}

/// Configures a pool whose keyboard is the file this returns (`KeyboardIdle = 600` to begin
/// with: the owner is away), a policy run every second, START while the keyboard has been
/// idle for two minutes, and `policy`.
fn with_a_keyboard(env: &TestEnvironment, policy: &str) -> std::path::PathBuf {
    let inputs = env.work_dir().join("inputs");
    std::fs::write(&inputs, "KeyboardIdle = 600\n").unwrap();
    configure(
        env,
        &format!(
            "CONDORLITE_MACHINE_INPUTS = {}\nPOLLING_INTERVAL = 1\n\
             SLOTS_CONNECTED_TO_KEYBOARD = 1000\nSTART = KeyboardIdle > 120\n{policy}",
            inputs.display()
        ),
    );
    inputs
}

/// The seed's desktop policy, driven by a fake keyboard: the job is suspended when the
/// owner comes back and continued when they leave again.
#[test]
fn the_desktop_policy_suspends_and_continues_on_the_keyboard() {
    let env = TestEnvironment::new();
    let inputs = with_a_keyboard(
        &env,
        "WANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 60\nCONTINUE = KeyboardIdle > 120\n\
         PREEMPT = False\nKILL = False\n",
    );
    let (master, cluster) = a_running_sleeper(&env, "desk.log");
    std::fs::write(&inputs, "KeyboardIdle = 5\n").unwrap();
    wait_for("the job to be suspended", || {
        count(&env, "JobStatus == 7") == 1
    });
    wait_for("the slot to show it", || {
        slot_states(&env).contains("Claimed Suspended")
    });
    assert_eq!(process_states(&env), ['T']);
    std::fs::write(&inputs, "KeyboardIdle = 600\n").unwrap();
    wait_for("the job to run again", || {
        count(&env, "JobStatus == 2") == 1
    });
    wait_for("the slot to be busy", || {
        slot_states(&env).contains("Claimed Busy")
    });
    assert_events(&env, "desk.log", &[0, 1, 10, 11]);
    assert_eq!(
        q_af(&env, &cluster, &["TotalSuspensions", "NumJobStarts"]),
        "1 1"
    );
    drop(master);
}

/// PREEMPT evicts the job: one that exits on SIGTERM goes at once, one that ignores it is
/// killed when `MachineMaxVacateTime` is over; retirement is honoured first.
#[test]
fn preempt_vacates_after_retirement_and_kills_after_the_vacate_time() {
    let env = TestEnvironment::new();
    let inputs = with_a_keyboard(
        &env,
        "PREEMPT = KeyboardIdle < 60\nWANT_SUSPEND = False\nWANT_VACATE = True\n\
         KILL = False\nMAXJOBRETIREMENTTIME = 5\nMachineMaxVacateTime = 2\n",
    );
    let master = Master::start(&env);
    // Ignores SIGTERM: only SIGKILL ends it.
    crate::pool::script(
        &env,
        "stubborn.sh",
        "#!/bin/sh\ntrap '' TERM\nwhile true; do sleep 0.05; done\n",
    );
    let file = env.write_file(
        "stubborn.sub",
        "executable = stubborn.sh\nlog = preempt.log\nqueue\n",
    );
    let out = env.run("condor_submit", ["-terse", file.to_str().unwrap()]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to run", || count(&env, "JobStatus == 2") == 1);
    std::fs::write(&inputs, "KeyboardIdle = 5\n").unwrap();
    wait_for("the job to go back to idle", || {
        count(&env, "JobStatus == 1") == 1
    });
    // Retirement runs 5 s from the job's start, its last 2 s (the vacate time) spent
    // vacating: the SIGTERM at about 3 s is ignored, the SIGKILL at 5 s is not. Without
    // retirement it would be gone about 2 s after the keyboard woke. The pool's own record
    // says when: the job went back to idle (EnteredCurrentStatus) no sooner than its
    // retirement allowed after it started (JobCurrentStartDate; whole seconds, so one early).
    let times = q_af(&env, "1", &["JobCurrentStartDate", "EnteredCurrentStatus"]);
    let t: Vec<i64> = times
        .split_whitespace()
        .map(|x| x.parse().expect("a time"))
        .collect();
    assert!(
        t.len() == 2 && t[1] - t[0] >= 4,
        "evicted {times} (start, idle): expected at least 4 s of retirement"
    );
    assert!(job_processes(&env).is_empty());
    assert_events(&env, "preempt.log", &[0, 1, 4]);
    let out = env.run(
        "condor_q",
        ["-af", "NumVacatesByReason.StartdPreemptExpression"],
    );
    assert_eq!(out.stdout, "1\n", "{out}");
    // START is false while the keyboard is busy: it stays idle.
    crate::pool::settle(&env);
    assert_eq!(count(&env, "JobStatus == 1"), 1);
    drop(master);
}

/// A user of better priority preempts another's job when PREEMPTION_REQUIREMENTS allows,
/// not when it forbids, and not under HTCondor's usual 20%-better rule when the two users'
/// priorities are close (no thrashing).
#[test]
fn a_better_user_preempts_only_when_preemption_requirements_allow() {
    const TWENTY_PERCENT: &str = "RemoteUserPrio > SubmitterUserPrio * 1.2";
    for (requirements, low_factor, preempts) in [
        (TWENTY_PERCENT, Some("1000000"), true),
        ("False", Some("1000000"), false),
        (TWENTY_PERCENT, None, false),
    ] {
        let env = TestEnvironment::new();
        configure(
            &env,
            &format!(
                "NUM_CPUS = 1\nSLOT_TYPE_1 = cpus=1\nNUM_SLOTS_TYPE_1 = 1\n\
                 NEGOTIATOR_INTERVAL = 1\nPREEMPTION_REQUIREMENTS = {requirements}\n\
                 MAXJOBRETIREMENTTIME = 0\n"
            ),
        );
        let master = Master::start(&env);
        let sub = env.write_file(
            "sleep.sub",
            "executable = /bin/sleep\narguments = 300\nlog = $(Cluster).log\nqueue\n",
        );
        let submit_as = |user: &str| {
            let out = env
                .command("condor_submit")
                .arg(sub.to_str().unwrap())
                .env("CONDORLITE_USER", user)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
        };
        submit_as("low");
        wait_for("low's job to run", || {
            count(&env, "Owner == \"low\" && JobStatus == 2") == 1
        });
        if let Some(factor) = low_factor {
            // low's priority is made much worse than high's.
            let domain = env.run("condor_config_val", ["UID_DOMAIN"]).stdout;
            let out = env.run(
                "condor_userprio",
                ["-setfactor", &format!("low@{}", domain.trim()), factor],
            );
            assert_eq!(out.status, Some(0), "{out}");
        }
        submit_as("high");
        if preempts {
            wait_for("high's job to run", || {
                count(&env, "Owner == \"high\" && JobStatus == 2") == 1
            });
            assert_eq!(count(&env, "Owner == \"low\" && JobStatus == 1"), 1);
            let out = env.run(
                "condor_q",
                [
                    "-allusers",
                    "-constraint",
                    "Owner == \"low\"",
                    "-af",
                    "NumVacatesByReason.StartdPreemptingClaimUserPrio",
                ],
            );
            assert_eq!(out.stdout, "1\n", "{out}");
        }
        // Three more negotiation cycles go by (each with its own start time, one a second):
        // nothing (more) changes hands.
        let cycle = || {
            let out = env.run(
                "condor_status",
                ["-negotiator", "-af", "LastNegotiationCycleTime0"],
            );
            assert_eq!(out.status, Some(0), "{out}");
            out.stdout.trim().to_owned()
        };
        let mut seen = std::collections::BTreeSet::from([cycle()]);
        wait_for("three more negotiation cycles", || {
            seen.insert(cycle());
            seen.len() > 3
        });
        let (running, waiting) = if preempts {
            ("high", "low")
        } else {
            ("low", "high")
        };
        let cond = |who: &str, status: i32| format!("Owner == \"{who}\" && JobStatus == {status}");
        assert_eq!(count(&env, &cond(running, 2)), 1, "{requirements}");
        assert_eq!(count(&env, &cond(waiting, 1)), 1, "{requirements}");
        drop(master);
    }
}

/// `-exit-on-completion`: the startd exits once drained (nothing starts), and `condor_on`
/// brings a new one, not draining.
#[test]
fn a_startd_that_exited_on_completion_comes_back_with_condor_on() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let name = startd_name(&env);
    let out = env.run("condor_drain", ["-exit-on-completion", &name]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the slots to be drained", || {
        slot_states(&env).lines().all(|l| l.contains("Drained"))
    });
    let cluster = crate::pool::submit(&env, "executable = /bin/true\nqueue\n");
    crate::pool::settle(&env);
    assert_eq!(count(&env, "JobStatus == 1"), 1, "nothing starts");
    let out = env.run("condor_on", ["-startd"]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to run and leave", || {
        count(&env, &format!("ClusterId == {cluster}")) == 0
    });
    let out = env.run("condor_status", ["-af", "Draining"]);
    assert!(out.stdout.lines().all(|l| l == "undefined"), "{out}");
    drop(master);
}

/// condor_defrag's policy in the master (`DAEMON_LIST` names `DEFRAG`): a partitionable slot
/// fragmented by a one-core job is drained so that the waiting whole-machine job runs.
#[test]
fn defrag_drains_a_fragmented_machine_for_a_whole_machine_job() {
    let env = TestEnvironment::new();
    configure(
        &env,
        "NUM_CPUS = 2\nDAEMON_LIST = MASTER, DEFRAG\nDEFRAG_INTERVAL = 1\n\
         DEFRAG_DRAINING_MACHINES_PER_HOUR = 3600\nDEFRAG_DRAINING_SCHEDULE = quick\n\
         DEFRAG_MAX_WHOLE_MACHINES = 1\nDEFRAG_REQUIREMENTS = Cpus > 0\n",
    );
    let master = Master::start(&env);
    let small = crate::pool::submit(
        &env,
        "executable = /bin/sleep\narguments = 300\nrequest_cpus = 1\nlog = defrag.log\nqueue\n",
    );
    wait_for("the small job to run", || {
        count(&env, "JobStatus == 2") == 1
    });
    let whole = crate::pool::submit(
        &env,
        "executable = /bin/sleep\narguments = 300\nrequest_cpus = 2\npriority = 10\n\
         log = defrag.log\nqueue\n",
    );
    wait_for("the whole-machine job to run", || {
        count(&env, &format!("ClusterId == {whole} && JobStatus == 2")) == 1
    });
    let out = env.run(
        "condor_q",
        [
            &small,
            "-af",
            "JobStatus",
            "NumVacatesByReason.StartdDraining",
        ],
    );
    assert_eq!(out.stdout, "1 1\n", "{out}");
    // The drain resumed on completion, and the machine is not drained again.
    crate::pool::settle(&env);
    let out = env.run("condor_status", ["-af", "Draining"]);
    assert!(out.stdout.lines().all(|l| l == "undefined"), "{out}");
    assert_eq!(
        count(&env, &format!("ClusterId == {whole} && JobStatus == 2")),
        1
    );
    drop(master);
}
