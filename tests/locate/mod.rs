//! `-pool`, `-name` and `-addr` on every tool that has them in HTCondor: naming this host's pool
//! (its host name, `localhost`, a loopback address, the pool's own address) works as if the
//! option were not given; a host that does not resolve, a central manager on another host
//! and a malformed address get HTCondor's messages and exit status 1, and change nothing.
//!
//! Where the expected messages come from (HTCondor v24.0.23): condor_q's from queue.cpp
//! (`-pool`, `-address`, `-submitter`, `-global`) and error_utils.cpp `printNoCollectorContact`;
//! the job actions' from rm.cpp; condor_qedit's from qedit.cpp; condor_submit's from submit.cpp;
//! condor_history's from history.cpp; condor_status's from status.cpp; condor_userprio's and the
//! daemon commands' as condorlite already words a daemon it cannot locate. The connection
//! failures (`Failed to connect to <addr>`, `CEDAR:6001:...`) follow CondorError's
//! `SUBSYS:CODE:text` form with CEDAR_ERR_CONNECT_FAILED (condor_error_codes.h); they were not
//! produced by a real HTCondor here (no second pool to connect to).
//!
//! Hosts: `*.invalid` never resolves (RFC 2606); `192.0.2.1` (TEST-NET-1) is a literal
//! address, so it "resolves" without DNS, and is never this host.

use crate::common::TestEnvironment;

const ELSEWHERE: &str = "192.0.2.1";
const NOWHERE: &str = "cm.example.invalid";

fn env_with_a_job() -> TestEnvironment {
    let env = TestEnvironment::new();
    env.write_file("job.sub", "executable = /bin/true\nqueue\n");
    assert_eq!(env.run("condor_submit", ["job.sub"]).status, Some(0));
    env
}

/// The host's full name, as the tools see it.
fn host(env: &TestEnvironment) -> String {
    env.run("condor_config_val", ["FULL_HOSTNAME"])
        .stdout
        .trim()
        .to_owned()
}

#[test]
fn condor_q_takes_this_pool_and_refuses_others() {
    let env = env_with_a_job();
    let plain = env.run("condor_q", ["-af", "ClusterId"]);
    assert_eq!(plain.stdout, "1\n");
    let host = host(&env);
    for args in [
        vec!["-pool", "localhost"],
        vec!["-pool", &host],
        vec!["-pool", "127.0.0.1:9618"],
        vec!["-name", &host, "-pool", &host],
        vec!["-addr", "<127.0.0.1:9618>"],
        vec!["-address", "<127.0.0.1:9618?sock=schedd>"],
    ] {
        let out = env.run("condor_q", args.iter().chain(&["-af", "ClusterId"]));
        assert_eq!(out.to_string(), plain.to_string(), "{args:?}");
    }
    let out = env.run("condor_q", ["-pool", NOWHERE]);
    assert_eq!(
        out.stderr,
        format!(
            "Error: unknown host {NOWHERE}\nExtra Info: You specified a hostname for a pool \
             (the -pool argument). That \nshould be the Internet host name for the central \
             manager of the pool, but it \ndoes not seem to be a valid hostname. (The DNS \
             lookup failed.) \n"
        )
    );
    assert_eq!((out.stdout.as_str(), out.status), ("\n", Some(1)));
    let out = env.run("condor_q", ["-pool", ELSEWHERE, "-expert"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "Error: Couldn't contact the condor_collector on 192.0.2.1. \n",
            Some(1)
        )
    );
    let out = env.run("condor_q", ["-addr", "127.0.0.1:9618"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "Address must be of the form: \"<ip.address:port>\"\n",
            Some(1)
        )
    );
    let out = env.run("condor_q", ["-addr", "<192.0.2.1:9618>"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "Error: Collector has no record of schedd/submitter\n",
            Some(1)
        )
    );
}

#[test]
fn the_job_actions_take_this_pool_and_refuse_others() {
    let env = env_with_a_job();
    // Elsewhere, nothing is done.
    let out = env.run("condor_hold", ["-pool", ELSEWHERE, "1"]);
    let host = host(&env);
    assert_eq!(
        (out.stderr, out.status),
        (
            format!("condor_hold: Can't find address for schedd {host}\n"),
            Some(1)
        )
    );
    let out = env.run("condor_hold", ["-pool", NOWHERE, "1"]);
    assert_eq!(
        (out.stderr, out.status),
        (format!("condor_hold: unknown host {NOWHERE}\n"), Some(1))
    );
    let out = env.run("condor_rm", ["-addr", "1.2.3.4", "1"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "condor_rm: \"1.2.3.4\" is not a valid address\nShould be of the form \
             <ip.address.here:port>\nFor example: <123.456.789.123:6789>\n",
            Some(1)
        )
    );
    let out = env.run("condor_rm", ["-addr", "<192.0.2.1:9618>", "1"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "condor_rm: Failed to connect to <192.0.2.1:9618>\n",
            Some(1)
        )
    );
    let out = env.run("condor_qedit", ["-pool", ELSEWHERE, "1", "Foo", "1"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "condor_qedit: ERROR: Can't find address of local schedd\n",
            Some(1)
        )
    );
    let out = env.run(
        "condor_qedit",
        ["-name", "other.example.invalid", "1", "A", "1"],
    );
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "condor_qedit: No such schedd named other.example.invalid in local pool\n",
            Some(1)
        )
    );
    let status = env.run("condor_q", ["-af", "JobStatus", "Foo", "A"]);
    assert_eq!(status.stdout, "1 undefined undefined\n", "nothing changed");
    // This pool, by name and by address.
    let out = env.run(
        "condor_qedit",
        ["-pool", &host, "-name", &host, "1", "Foo", "2"],
    );
    assert_eq!(out.status, Some(0), "{out}");
    let out = env.run(
        "condor_hold",
        ["-pool", "localhost", "-addr", "<127.0.0.1:9618>", "1"],
    );
    assert_eq!(
        out.to_string(),
        "All jobs in cluster 1 have been held\n[exit status: 0]"
    );
    let out = env.run("condor_q", ["-af", "JobStatus", "Foo"]);
    assert_eq!(out.stdout, "5 2\n");
}

#[test]
fn condor_submit_takes_this_pool_and_refuses_others() {
    let env = TestEnvironment::new();
    env.write_file("job.sub", "executable = /bin/true\nqueue\n");
    let out = env.run("condor_submit", ["-pool", ELSEWHERE, "job.sub"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        ("\nERROR: Can't find address of local schedd\n", Some(1))
    );
    let out = env.run("condor_submit", ["-addr", "<192.0.2.1:9618>", "job.sub"]);
    assert_eq!(out.status, Some(1));
    assert!(out
        .stderr
        .starts_with("\nERROR: Failed to connect to queue manager <192.0.2.1:9618>\n"));
    let out = env.run("condor_submit", ["-addr", "nope", "job.sub"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "condor_submit: \"nope\" is not a valid address\nShould be of the form <ip:port>\n\
             For example: <123.456.789.123:6789>\n",
            Some(1)
        )
    );
    let queued = env.run("condor_q", ["-af", "ClusterId"]);
    assert_eq!(queued.stdout, "", "nothing queued");
    let host = host(&env);
    for args in [["-pool", host.as_str()], ["-addr", "<127.0.0.1:9618>"]] {
        let out = env.run("condor_submit", args.iter().chain(&["job.sub"]));
        assert_eq!(out.status, Some(0), "{args:?}: {out}");
    }
    assert_eq!(env.run("condor_q", ["-af", "ClusterId"]).stdout, "1\n2\n");
}

#[test]
fn condor_submit_single_cluster_refuses_a_second_cluster() {
    let env = TestEnvironment::new();
    env.write_file(
        "two.sub",
        "executable = /bin/true\nqueue 2\nexecutable = /bin/false\nqueue\n",
    );
    env.write_file("one.sub", "executable = /bin/true\nqueue 2\nqueue\n");
    let out = env.run("condor_submit", ["-single-cluster", "two.sub"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.ends_with(
        "\nERROR: Number of submitted clusters would exceed 1 and -single-cluster was specified\n"
    ));
    assert_eq!(env.run("condor_q", ["-af", "ClusterId"]).stdout, "");
    let out = env.run("condor_submit", ["-sin", "one.sub"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        env.run("condor_q", ["-af", "ProcId"]).stdout,
        "0\n1\n2\n",
        "several queue statements in one cluster are fine"
    );
}

#[test]
fn history_status_userprio_and_daemon_commands_take_this_pool() {
    let env = TestEnvironment::new();
    let host = host(&env);
    for args in [["-pool", host.as_str()], ["-name", host.as_str()]] {
        let out = env.run("condor_history", args);
        assert_eq!(out.status, Some(0), "{args:?}: {out}");
        let out = env.run("condor_userprio", args);
        assert_eq!(out.status, Some(0), "{args:?}: {out}");
    }
    let out = env.run("condor_history", ["-pool", ELSEWHERE]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "Unable to locate remote schedd (name=, pool=192.0.2.1).\n",
            Some(1)
        )
    );
    let out = env.run("condor_history", ["-local", "-name", &host]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        ("Error: -local and -name cannot be used together\n", Some(1))
    );
    let out = env.run("condor_userprio", ["-pool", ELSEWHERE]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "condor_userprio: Can't locate negotiator in 192.0.2.1\n",
            Some(1)
        )
    );
    let out = env.run("condor_status", ["-pool", NOWHERE, "-expert"]);
    assert_eq!(
        (out.stderr, out.status),
        (format!("Error: unknown host {NOWHERE}\n"), Some(1))
    );
    let out = env.run("condor_status", ["-pool", ELSEWHERE, "-expert"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "Error: communication error\nCEDAR:6001:Failed to connect to <192.0.2.1:9618>\n\
             Error: Couldn't contact the condor_collector on 192.0.2.1 (<192.0.2.1:9618>). \n",
            Some(1)
        )
    );
    let out = env.run("condor_reschedule", ["-pool", ELSEWHERE]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "Can't find address for local schedd\nPerhaps you need to query another pool.\n",
            Some(1)
        )
    );
    let out = env.run("condor_drain", ["-pool", ELSEWHERE, &host]);
    assert_eq!(
        (out.stderr, out.status),
        (
            format!("ERROR: Can't find address for startd {host}\n"),
            Some(1)
        )
    );
}

/// `-submitter USER`: the submitter's jobs, titled as HTCondor titles a submitter's queue;
/// none queued is no submitter ad (`Collector has no record`); it cannot be mixed with
/// `-name`. `-global`: the one schedd's queue, or "All queues are empty" (exit 1).
#[test]
fn condor_q_submitter_and_global() {
    let mut env = TestEnvironment::new();
    env.set_env("CONDORLITE_USER", "alice");
    env.write_file("job.sub", "executable = /bin/true\nqueue 2\n");
    let out = env.run("condor_q", ["-global"]);
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str(), out.status),
        ("All queues are empty\n", "", Some(1))
    );
    assert_eq!(env.run("condor_submit", ["job.sub"]).status, Some(0));
    env.set_env("CONDORLITE_USER", "bob");
    assert_eq!(env.run("condor_submit", ["job.sub"]).status, Some(0));
    let host = host(&env);
    let out = env.run(
        "condor_q",
        ["-submitter", "alice", "-af", "ClusterId", "Owner"],
    );
    assert_eq!(out.to_string(), "1 alice\n1 alice\n[exit status: 0]");
    let out = env.run("condor_q", ["-submitter", "alice", "-nobatch"]);
    let title = out.stdout.lines().nth(2).unwrap_or_default().to_owned();
    assert!(
        title.starts_with(&format!(
            "-- Submitter: alice@{host} : <127.0.0.1:9618?... : {host} @ "
        )),
        "{out}"
    );
    let out = env.run("condor_q", ["-submitter", "carol"]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (
            "Error: Collector has no record of schedd/submitter\n",
            Some(1)
        )
    );
    let out = env.run(
        "condor_q",
        ["-submitter", "alice", "-name", &host, "-expert"],
    );
    assert_eq!(
        (out.stderr.as_str(), out.status),
        ("Cannot query both schedd's and submitters\n", Some(1))
    );
    let out = env.run("condor_q", ["-global", "-allusers", "-af", "Owner"]);
    assert_eq!(out.to_string(), "alice\nalice\nbob\nbob\n[exit status: 0]");
}
