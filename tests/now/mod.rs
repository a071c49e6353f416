//! `condor_now`: an idle job started at once on the slot of a running job vacated for it,
//! and the schedd's refusals, as HTCondor 24.0's now.cpp and `REASSIGN_SLOT` word them.

use crate::common::TestEnvironment;
use crate::pool::{assert_events, count, submit, wait_for, Master};

fn now(env: &TestEnvironment, args: &[&str]) -> String {
    env.run("condor_now", args).to_string()
}

fn status(env: &TestEnvironment, job: &str) -> String {
    env.run("condor_q", [job, "-af", "JobStatus"])
        .stdout
        .trim()
        .to_owned()
}

#[test]
fn an_idle_job_takes_the_slot_of_the_job_vacated_for_it() {
    let mut env = TestEnvironment::new();
    // One slot: the second job can only run where the first does.
    std::fs::write(env.config_file(), "NUM_CPUS = 1\n").unwrap();
    let master = Master::start(&env);
    let victim = submit(
        &env,
        "executable = /bin/sleep\narguments = 300\nlog = victim.log\nqueue\n",
    );
    wait_for("the victim to run", || count(&env, "JobStatus == 2") == 1);
    // A lower priority than the victim's, which the negotiator would put after it.
    let bid = submit(
        &env,
        "executable = /bin/sleep\narguments = 300\npriority = -5\nlog = bid.log\nqueue\n",
    );
    let (victim, bid) = (format!("{victim}.0"), format!("{bid}.0"));
    assert_eq!(status(&env, &bid), "1");

    // The schedd's refusals.
    assert_eq!(
        now(&env, &[&victim, &bid]),
        "------- stderr -------\nUnable to reassign slot: the now-job must be idle.\n\
         [exit status: 1]"
    );
    assert_eq!(
        now(&env, &[&bid, "99.0"]),
        "------- stderr -------\nUnable to reassign slot: no such job (vacate-job).\n\
         [exit status: 1]"
    );
    env.set_env("CONDORLITE_USER", "mallory");
    assert_eq!(
        now(&env, &[&bid, &victim]),
        "------- stderr -------\nUnable to reassign slot: you must own the now-job.\n\
         [exit status: 1]"
    );
    env.remove_env("CONDORLITE_USER");

    assert_eq!(now(&env, &[&bid, &victim]), "[exit status: 0]");
    wait_for("the now-job to run", || status(&env, &bid) == "2");
    assert_eq!(status(&env, &victim), "1");
    // The victim was evicted; the now-job ran on its slot.
    assert_events(&env, "victim.log", &[0, 1, 4]);
    assert_events(&env, "bid.log", &[0, 1]);
    let attr = |job: &str, name: &str| {
        env.run("condor_q", [job, "-af", name])
            .stdout
            .trim()
            .to_owned()
    };
    assert_eq!(attr(&bid, "RemoteHost"), attr(&victim, "LastRemoteHost"));
    let log = std::fs::read_to_string(env.local_dir().join("log/MasterLog")).unwrap();
    assert!(log.contains(&format!("goes to job {bid}")), "{log}");
    drop(master);
}

#[test]
fn command_lines_and_pools_now_cpp_does_not_take() {
    let env = TestEnvironment::new();
    let usage = "Usage: condor_now [-name <scheduler> [-pool <central-manager]] [-debug]\n\
                 \x20                 <job-to-run-now> <job-to-vacate> [<another-job-to-vacate>+]\n\
                 \x20  or: condor_now -help\n";
    assert_eq!(
        now(&env, &["5"]),
        format!("------- stderr -------\n{usage}[exit status: 1]")
    );
    assert_eq!(
        now(&env, &["5.x1", "3"]),
        "------- stderr -------\nUnable to reassign slot: no such job (now-job).\n\
         [exit status: 1]"
    );
    assert_eq!(
        now(&env, &["x", "3"]),
        format!("------- stderr -------\n{usage}[exit status: 1]")
    );
    assert_eq!(now(&env, &["-help"]), format!("{usage}[exit status: 0]"));
    assert_eq!(
        now(&env, &["--flags", "1", "5", "3"]),
        "------- stderr -------\nDo not use the --flags option.\n[exit status: 1]"
    );
    assert_eq!(
        now(&env, &["-name", "schedd@elsewhere.invalid", "5", "3"]),
        "------- stderr -------\nUnable to locate schedd, aborting.\n[exit status: 1]"
    );
    // Without a master the jobs are checked, then the schedd cannot be reached.
    let bid = submit(&env, "executable = /bin/true\nqueue\n");
    let victim = submit(&env, "executable = /bin/true\nqueue\n");
    assert_eq!(
        now(&env, &[&bid, &victim]),
        "------- stderr -------\nUnable to reassign slot: vacate-job must be running.\n\
         [exit status: 1]"
    );
}
