//! `condor_q -autocluster` and `-group-by` against a real condor_master: the master numbers
//! the jobs' autoclusters (`AutoClusterId`, `AutoClusterAttrs`, as the schedd does before a
//! negotiation cycle), and condor_q lists them in 24.0's `autoclusterNormal_PrintFormat`
//! layout (its widths and alignments, tests/fixtures/printformat/condor_q-autocluster.txt).
//! The jobs ask for more than the pool's one slot has, so they stay idle.

use crate::common::TestEnvironment;
use crate::pool::{wait_for, Master};

fn pool() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    for (name, value) in [
        ("_CONDOR_NUM_CPUS", "2"),
        ("_CONDOR_MEMORY", "2048"),
        ("_CONDOR_NEGOTIATOR_INTERVAL", "1"),
    ] {
        env.set_env(name, value);
    }
    env
}

fn submit(env: &TestEnvironment, name: &str, text: &str) {
    let file = env.write_file(name, text);
    let out = env.run("condor_submit", [file.to_str().unwrap()]);
    assert_eq!(out.status, Some(0), "{out}");
}

fn q(env: &TestEnvironment, args: &[&str]) -> String {
    let out = env.run("condor_q", args);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout
}

/// Three shapes of job: 3 procs of 4000 MB, 2 of 5000 MB, 1 of 8 CPUs.
fn three_shapes(env: &TestEnvironment) {
    submit(
        env,
        "a.sub",
        "executable = /bin/sleep\narguments = 300\nrequest_memory = 4000\nqueue 3\n",
    );
    submit(
        env,
        "b.sub",
        "executable = /bin/sleep\narguments = $(Process)\nrequest_memory = 5000\nqueue 2\n",
    );
    submit(
        env,
        "c.sub",
        "executable = /bin/sleep\narguments = 1\nrequest_cpus = 8\nqueue\n",
    );
}

fn wait_numbered(env: &TestEnvironment, jobs: usize) {
    wait_for("every job to have an autocluster", || {
        let ids = q(env, &["-allusers", "-af", "AutoClusterId"]);
        ids.lines().count() == jobs && !ids.contains("undefined")
    });
}

/// One row of 24.0's `-autocluster` view, from the values of its columns. `JobUniverse` is
/// not significant here (no slot reads it: HTCondor's own startd ads do, through
/// `IsValidCheckpointPlatform`), so the autocluster has none: `OR ??` fills the column.
fn row(id: &str, count: &str, cpus: &str, memory: &str, disk: &str, reqs: &str) -> String {
    format!(
        "{id:>5} {count:>5} {:<8} {cpus:>4} {memory:>6} {disk:>8} {reqs}\n",
        "[??????]"
    )
}

#[test]
fn the_master_numbers_autoclusters_and_condor_q_lists_them() {
    let env = pool();
    let _master = Master::start(&env);
    three_shapes(&env);
    wait_numbered(&env, 6);
    // Jobs of one shape share an autocluster, numbered in job order; the attributes that
    // made it are the significant ones, Requirements among them.
    let ids = q(
        &env,
        &["-allusers", "-af", "ClusterId", "ProcId", "AutoClusterId"],
    );
    assert_eq!(ids, "1 0 1\n1 1 1\n1 2 1\n2 0 2\n2 1 2\n3 0 3\n");
    let attrs = q(&env, &["1.0", "-af", "AutoClusterAttrs"]);
    let attrs: Vec<&str> = attrs.trim().split(',').collect();
    for a in [
        "RequestMemory",
        "RequestCpus",
        "Requirements",
        "Rank",
        "NiceUser",
    ] {
        assert!(attrs.iter().any(|x| x.eq_ignore_ascii_case(a)), "{attrs:?}");
    }

    let out = q(&env, &["-autocluster"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "");
    assert_eq!(lines[1], "");
    assert!(lines[2].starts_with("-- Schedd: "), "{out}");
    let raw = |job: &str, attr: &str| q(&env, &[job, "-af:r", attr]).trim().to_owned();
    let value = |job: &str, attr: &str| q(&env, &[job, "-af", attr]).trim().to_owned();
    // The last column is as wide as its widest value, and its heading padded to it.
    let widest = ["1.0", "2.0", "3.0"]
        .iter()
        .map(|j| raw(j, "Requirements").len())
        .max()
        .unwrap();
    assert_eq!(
        lines[3],
        format!(
            "   ID COUNT UNIVERSE CPUS MEMORY     DISK {:<widest$}",
            "REQUIREMENTS"
        )
    );
    let mut expected = String::new();
    for (ac, job, count) in [("1", "1.0", "3"), ("2", "2.0", "2"), ("3", "3.0", "1")] {
        expected.push_str(&row(
            ac,
            count,
            &value(job, "RequestCpus"),
            &value(job, "RequestMemory"),
            &value(job, "RequestDisk"),
            &raw(job, "Requirements"),
        ));
    }
    assert_eq!(lines[4..7].join("\n") + "\n", expected, "{out}");

    // The ads condor_q gets: each autocluster's significant values, its id, its jobs.
    let out = q(
        &env,
        &[
            "-autocluster",
            "-af",
            "AutoClusterId",
            "JobCount",
            "JobIds",
            "RequestMemory",
        ],
    );
    assert_eq!(
        out,
        "1 3 1.0 ... 1.2 4000\n2 2 2.0 2.1 5000\n3 1 3.0 2048\n"
            .replace("2048", &value("3.0", "RequestMemory"))
    );
    // The constraint selects among the autoclusters, not the jobs.
    let out = q(
        &env,
        &[
            "-autocluster",
            "-constraint",
            "JobCount > 1",
            "-af",
            "AutoClusterId",
        ],
    );
    assert_eq!(out, "1\n2\n");
    let out = q(&env, &["-autocluster", "2", "-af", "AutoClusterId"]);
    assert_eq!(out, "");
    let long = q(
        &env,
        &["-autocluster", "-long", "-constraint", "AutoClusterId == 2"],
    );
    assert!(long.contains("JobCount = 2\n"), "{long}");
    assert!(long.contains("JobIds = \"2.0 2.1\"\n"), "{long}");
    assert!(long.contains("RequestMemory = 5000\n"), "{long}");
    assert!(!long.lines().any(|l| l.starts_with("ClusterId ")), "{long}");
    assert!(!long.contains("ServerTime"), "{long}");
    // A print format that selects FROM AUTOCLUSTER is the same query.
    let pf = env.write_file(
        "ac.cpf",
        "SELECT FROM AUTOCLUSTER BARE\n  AutoClusterId\n  JobCount\n",
    );
    let out = q(&env, &["-print-format", pf.to_str().unwrap()]);
    assert_eq!(out, "1             3\n2             2\n3             1\n");
    // -batch and an aggregation do not go together.
    let out = env.run("condor_q", ["-autocluster", "-batch"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert_eq!(out.stderr, "Error: -batch conflicts with -autocluster\n");
}

#[test]
fn an_edit_of_a_significant_attribute_moves_the_job_to_another_autocluster() {
    let env = pool();
    let _master = Master::start(&env);
    three_shapes(&env);
    wait_numbered(&env, 6);
    let out = env.run("condor_qedit", ["1.2", "RequestMemory", "5000"]);
    assert_eq!(out.status, Some(0), "{out}");
    // The edit drops the job's autocluster, and the master gives it the one its new shape
    // has (an attribute it was not made of changes nothing).
    wait_for("job 1.2 to join autocluster 2", || {
        q(&env, &["1.2", "-af", "AutoClusterId"]).trim() == "2"
    });
    let out = env.run("condor_qedit", ["1.1", "Foo", "1"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(q(&env, &["1.1", "-af", "AutoClusterId"]).trim(), "1");
    let out = q(
        &env,
        &["-autocluster", "-af", "AutoClusterId", "JobCount", "JobIds"],
    );
    assert_eq!(out, "1 2 1.0 1.1\n2 3 1.2 ... 2.1\n3 1 3.0\n");
}

#[test]
fn group_by_groups_the_jobs_by_what_is_shown() {
    let env = pool();
    three_shapes(&env);
    // No master needed: condor_q groups the jobs itself (the schedd's on-the-fly JobCluster).
    let out = q(
        &env,
        &["-group-by", "-af", "RequestMemory", "JobCount", "JobIds"],
    );
    let big = q(&env, &["3.0", "-af", "RequestMemory"]);
    assert_eq!(
        out,
        format!("4000 3 1.0 ... 1.2\n5000 2 2.0 2.1\n{} 1 3.0\n", big.trim())
    );
    // The constraint selects the jobs, then the groups: on what the groups show...
    let out = q(
        &env,
        &[
            "-group-by",
            "-constraint",
            "RequestCpus == 1",
            "-af",
            "RequestCpus",
            "Id",
            "JobCount",
        ],
    );
    assert_eq!(out, "1 1 5\n");
    // ...and so, as the schedd's, nothing on what they do not (a group has no ProcId).
    let out = q(
        &env,
        &[
            "-group-by",
            "-constraint",
            "ProcId > 0",
            "-af",
            "RequestCpus",
        ],
    );
    assert_eq!(out, "");
    // SELECT UNIQUE is -group-by.
    let pf = env.write_file(
        "u.cpf",
        "SELECT UNIQUE NOTITLE NOHEADER\n  RequestCpus\n  JobCount\nSUMMARY NONE\n",
    );
    let out = q(&env, &["-print-format", pf.to_str().unwrap()]);
    // Columns without a WIDTH are at least as wide as their headings.
    assert_eq!(out, "1           5\n8           1\n");
    let out = env.run("condor_q", ["-group-by", "-batch"]);
    assert_eq!(out.stderr, "Error: -batch conflicts with -group-by\n");
}
