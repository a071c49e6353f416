//! condor_submit_dag end to end: the DAGMan job's submit file against the ones HTCondor's own
//! code writes (tests/fixtures/submit_dag/cases.json, from `htcondor.Submit.from_dag`), the
//! banner, the refusals and their texts, rescue DAGs, several DAGs at once, `-do_recurse`,
//! `-update_submit`, finding condor_dagman, and a real submit of the DAGMan job. (Running the
//! DAG is condor_dagman's.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use condorlite::classad::unparse::expr_to_old_string;
use condorlite::dagman::options::{usage, Tool};
use condorlite::queue::{JobQuery, Queue};
use condorlite::submit::argenv::append_arg;
use condorlite::version::{CONDOR_PLATFORM, CONDOR_VERSION};
use serde::Deserialize;

use crate::common::{CommandOutput, TestEnvironment};

const CSD: &str = "condor_submit_dag";
const DAGMAN: &str = "/fixture/bin/condor_dagman";
const RULE: &str = "-----------------------------------------------------------------------";

/// A working directory holding the submit files the DAGs here name (condor_submit_dag refuses a
/// DAG whose submit files are missing).
fn env() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    env.set_env("CONDORLITE_USER", "alice");
    env.set_env("CONDORLITE_NOW", "1700000000");
    for name in ["a.sub", "b.sub", "d.sub", "t.sub", "sub/a.sub", "sub/d.sub"] {
        write(&env, name, "executable = /bin/true\nqueue\n");
    }
    env
}

/// Writes `name` (under the working directory, creating its directories) and returns it.
fn write(env: &TestEnvironment, name: &str, contents: &str) -> PathBuf {
    let path = env.work_dir().join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, contents).unwrap();
    path
}

fn read(env: &TestEnvironment, name: &str) -> String {
    std::fs::read_to_string(env.work_dir().join(name))
        .unwrap_or_else(|e| panic!("reading {name}: {e}"))
}

fn exists(env: &TestEnvironment, name: &str) -> bool {
    env.work_dir().join(name).exists()
}

fn run(env: &TestEnvironment, args: &[&str]) -> CommandOutput {
    env.run(CSD, args)
}

/// The -CsdVersion value as it stands in a V2-quoted arguments line.
fn quoted_version() -> String {
    let mut raw = String::new();
    append_arg(CONDOR_VERSION, &mut raw);
    raw
}

/// A submit file as the fixtures have it: the version and the working directory named.
fn normalized(env: &TestEnvironment, text: &str) -> String {
    text.replace(&quoted_version(), "@CSD_VERSION@")
        .replace(env.work_dir().to_str().unwrap(), "@DIR@")
}

/// What condor_submit_dag prints with -no_submit for primary DAG `p`.
fn no_submit_banner(p: &str) -> String {
    format!(
        "\n{RULE}\n\
         File for submitting this DAG to HTCondor           : {p}.condor.sub\n\
         Log of DAGMan debugging messages                   : {p}.dagman.out\n\
         Log of HTCondor library output                     : {p}.lib.out\n\
         Log of HTCondor library error messages             : {p}.lib.err\n\
         Log of the life of condor_dagman itself            : {p}.dagman.log\n\
         \n\
         -no_submit given, not submitting DAG to HTCondor. You can do this with:\n\
         \"condor_submit {p}.condor.sub\"\n\
         {RULE}\n"
    )
}

const ALREADY_EXISTS_TAIL: &str = "\nSome file(s) needed by condor_dagman already exist. Either:\n\
     - Rename them\n\
     - Use the \"-f\" option to force them to be overwritten\n\
     \tor\n\
     - Use the \"-update_submit\" option to update the submit file and continue.\n";

#[derive(Deserialize)]
struct Fixtures {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    files: BTreeMap<String, String>,
    env: BTreeMap<String, String>,
    args: Vec<String>,
    sub_file: String,
    expected: String,
}

#[test]
fn submit_files_are_htcondors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/submit_dag");
    let fixtures: Fixtures =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).unwrap()).unwrap();
    assert!(fixtures.cases.len() >= 5);
    for case in &fixtures.cases {
        let mut env = env();
        for (name, text) in &case.files {
            write(&env, name, text);
        }
        // HTCondor's bindings wrote the fixtures with no configuration, where the schedd's
        // address and ad files have no value (a pool's do: condor_submit_dag then passes them
        // on in DAGMan's environment).
        env.set_env("_CONDOR_SCHEDD_ADDRESS_FILE", "");
        env.set_env("_CONDOR_SCHEDD_DAEMON_AD_FILE", "");
        for (name, value) in &case.env {
            env.set_env(name, value);
        }
        let out = env.run(CSD, &case.args);
        assert_eq!(out.status, Some(0), "{}:\n{out}", case.name);
        let written = normalized(&env, &read(&env, &case.sub_file));
        assert_eq!(written, case.expected, "{}", case.name);
    }
}

#[test]
fn no_submit_prints_the_banner_and_how_to_submit() {
    let env = env();
    write(&env, "diamond.dag", "JOB A a.sub\n");
    let out = run(&env, &["-no_submit", "-dagman", DAGMAN, "diamond.dag"]);
    assert_eq!(
        out.to_string(),
        format!("{}[exit status: 0]", no_submit_banner("diamond.dag"))
    );
    // Nothing else is written: the logs are condor_dagman's.
    assert!(exists(&env, "diamond.dag.condor.sub"));
    for file in ["lib.out", "lib.err", "dagman.log", "dagman.out", "lock"] {
        assert!(!exists(&env, &format!("diamond.dag.{file}")), "{file}");
    }
}

#[test]
fn files_of_an_earlier_run_are_refused_without_force() {
    let env = env();
    write(&env, "x.dag", "JOB A a.sub\n");
    write(&env, "x.dag.lib.out", "");
    write(&env, "x.dag.dagman.log", "");
    let args = ["-no_submit", "-dagman", DAGMAN, "x.dag"];
    let out = run(&env, &args);
    assert_eq!(
        out.to_string(),
        format!(
            "\n------- stderr -------\n\
             ERROR: \"x.dag.lib.out\" already exists.\n\
             ERROR: \"x.dag.dagman.log\" already exists.\n\
             {ALREADY_EXISTS_TAIL}[exit status: 1]"
        )
    );
    assert!(!exists(&env, "x.dag.condor.sub"));

    // -f removes them (and the halt file), and writes the submit file.
    write(&env, "x.dag.halt", "");
    write(&env, "x.dag.condor.sub", "old");
    let out = run(&env, &["-f", "-no_submit", "-dagman", DAGMAN, "x.dag"]);
    assert_eq!(
        out.to_string(),
        format!(
            "{}------- stderr -------\nRenaming rescue DAGs newer than number 0\n\
             [exit status: 0]",
            no_submit_banner("x.dag")
        )
    );
    for gone in ["x.dag.lib.out", "x.dag.dagman.log", "x.dag.halt"] {
        assert!(!exists(&env, gone), "{gone}");
    }
    assert!(read(&env, "x.dag.condor.sub").contains("-force"));

    // -update_submit overwrites the submit file.
    let out = run(
        &env,
        &["-update_submit", "-no_submit", "-dagman", DAGMAN, "x.dag"],
    );
    assert_eq!(out.status, Some(0), "{out}");

    // An old-style rescue DAG, with automatic rescue off.
    write(&env, "x.dag.rescue", "");
    let out = run(
        &env,
        &[
            "-f",
            "-autorescue",
            "0",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(out.status, Some(1));
    assert_eq!(
        out.stderr,
        format!(
            "Renaming rescue DAGs newer than number 0\n\
             ERROR: \"x.dag.rescue\" already exists.\n\
             \tYou may want to resubmit your DAG using that file, instead of \"x.dag\"\n\
             \tLook at the HTCondor manual for details about DAG rescue files.\n\
             \tPlease investigate and either remove \"x.dag.rescue\",\n\
             \tor use it as the input to condor_submit_dag.\n\
             {ALREADY_EXISTS_TAIL}"
        )
    );
}

#[test]
fn rescue_dags_run_automatically_or_are_renamed_by_force() {
    let env = env();
    write(&env, "x.dag", "JOB A a.sub\n");
    write(&env, "x.dag.rescue001", "DONE A\n");
    write(&env, "x.dag.rescue002", "DONE A\n");
    write(&env, "x.dag.lib.out", "");
    // The newest rescue DAG runs, so the earlier run's files are fine.
    let out = run(&env, &["-no_submit", "-dagman", DAGMAN, "x.dag"]);
    assert_eq!(
        out.to_string(),
        format!(
            "\nRunning rescue DAG 2{}[exit status: 0]",
            no_submit_banner("x.dag")
        )
    );

    // -f starts afresh: every rescue DAG becomes .old.
    let out = run(&env, &["-force", "-no_submit", "-dagman", DAGMAN, "x.dag"]);
    assert_eq!(
        out.to_string(),
        format!(
            "{}------- stderr -------\n\
             Renaming rescue DAGs newer than number 0\n\
             Renaming x.dag.rescue001\n\
             Renaming x.dag.rescue002\n\
             [exit status: 0]",
            no_submit_banner("x.dag")
        )
    );
    assert!(!exists(&env, "x.dag.rescue001") && !exists(&env, "x.dag.rescue002"));
    assert_eq!(read(&env, "x.dag.rescue002.old"), "DONE A\n");
}

#[test]
fn dorescuefrom_needs_its_rescue_dag() {
    let env = env();
    write(&env, "x.dag", "JOB A a.sub\n");
    let out = run(
        &env,
        &[
            "-dorescuefrom",
            "3",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(
        out.to_string(),
        "\n------- stderr -------\n\
         -dorescuefrom 3 specified, but rescue DAG file x.dag.rescue003 does not exist!\n\
         [exit status: 1]"
    );
    write(&env, "x.dag.rescue003", "DONE A\n");
    write(&env, "x.dag.condor.sub", "");
    let out = run(
        &env,
        &[
            "-dorescuefrom",
            "3",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(out.status, Some(0), "{out}");
    assert!(read(&env, "x.dag.condor.sub").contains(" -DoRescueFrom 3"));
}

#[test]
fn several_dags_run_as_one() {
    let env = env();
    write(&env, "a.dag", "JOB A a.sub\n");
    write(&env, "b.dag", "JOB B b.sub\n");
    let out = run(&env, &["-no_submit", "-dagman", DAGMAN, "a.dag", "b.dag"]);
    assert_eq!(
        out.to_string(),
        format!("{}[exit status: 0]", no_submit_banner("a.dag"))
    );
    let sub = read(&env, "a.dag.condor.sub");
    assert!(sub.contains("# Generated by condor_submit_dag a.dag b.dag \n"));
    assert!(sub.contains(" -Lockfile a.dag.lock -Dag a.dag -Dag b.dag -CsdVersion "));

    // Their rescue DAGs are the primary's, with _multi.
    write(&env, "a.dag.rescue001", "");
    let out = run(
        &env,
        &[
            "-dorescuefrom",
            "1",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "a.dag",
            "b.dag",
        ],
    );
    assert_eq!(
        out.stderr,
        "-dorescuefrom 1 specified, but rescue DAG file a.dag_multi.rescue001 does not exist!\n"
    );
    write(&env, "a.dag_multi.rescue001", "");
    let out = run(&env, &["-no_submit", "-dagman", DAGMAN, "a.dag", "b.dag"]);
    assert!(out.stdout.starts_with("\nRunning rescue DAG 1\n"), "{out}");
    let out = run(
        &env,
        &["-f", "-no_submit", "-dagman", DAGMAN, "a.dag", "b.dag"],
    );
    assert_eq!(out.status, Some(0));
    assert!(exists(&env, "a.dag_multi.rescue001.old"));
    assert!(exists(&env, "a.dag.rescue001"));
}

#[test]
fn command_line_errors_print_the_usage() {
    let env = env();
    let usage = usage(Tool::SubmitDag);
    let out = run(&env, &["-bogus", "x.dag"]);
    assert_eq!(
        out.to_string(),
        format!(
            "\n{usage}------- stderr -------\nError: Unknown flag '-bogus' provided\n\
             [exit status: 1]"
        )
    );
    // This one goes to stdout, as HTCondor prints it.
    let out = run(&env, &["x.dag", "-f"]);
    assert_eq!(
        out.to_string(),
        format!("\nERROR: no arguments allowed after DAG file name(s)\n{usage}[exit status: 1]")
    );
    let out = run(&env, &["-f"]);
    assert_eq!(
        out.to_string(),
        format!(
            "\n{usage}------- stderr -------\nERROR: no dag file specified; aborting.\n\
             [exit status: 1]"
        )
    );
    let out = run(&env, &["-MaxJobs", "many", "x.dag"]);
    assert_eq!(
        out.stderr,
        "Error: -maxjobs (-MaxJobs) additional argument required to be a integer\n"
    );
    let out = run(&env, &["-AlwaysRunPost", "-DontAlwaysRunPost", "x.dag"]);
    assert_eq!(
        out.stderr,
        "Error: Both -AlwaysRunPost and -DontAlwaysRunPost can't be used at the same time\n"
    );
    let out = run(&env, &["-notification"]);
    assert_eq!(
        out.stderr,
        "Error: Option -Notification (-notification) requires an additional argument\n"
    );
    assert_eq!(out.status, Some(1));
    assert!(usage.contains(
        "\n    -no_submit                     (DAG is not submitted to HTCondor automatically)\n"
    ));
    assert!(usage
        .contains("\n    -MaxIdle <N>                   (Maximum number of Idle nodes allowed)\n"));
}

#[test]
fn help_and_version() {
    let env = env();
    for args in [&["-help"][..], &["-h"], &["-f", "--help", "x.dag"]] {
        let out = run(&env, args);
        assert_eq!(
            out.to_string(),
            format!("\n{}[exit status: 0]", usage(Tool::SubmitDag)),
            "{args:?}"
        );
    }
    let out = run(&env, &["-version"]);
    assert_eq!(
        out.to_string(),
        format!("\n{CONDOR_VERSION}\n{CONDOR_PLATFORM}\n[exit status: 0]")
    );
}

#[test]
fn a_missing_dag_file_is_reported_twice_as_htcondor_does() {
    let env = env();
    let out = run(&env, &["-no_submit", "-dagman", DAGMAN, "missing.dag"]);
    let open = "MultiLogFiles::FileReader::Open(): safe_fopen_wrapper_follow(missing.dag) failed \
                with errno 2 (No such file or directory)\n";
    assert_eq!(
        out.to_string(),
        format!("\n------- stderr -------\n{open}ERROR: {open}\n[exit status: 1]")
    );
}

#[test]
fn config_files_must_agree() {
    let env = env();
    write(&env, "x.dag", "JOB A a.sub\nCONFIG dagman.conf\n");
    write(&env, "dagman.conf", "DAGMAN_MAX_JOBS_IDLE = 3\n");
    write(&env, "other.conf", "");
    let dir = env.work_dir();
    let dir = dir.to_str().unwrap();
    let out = run(
        &env,
        &[
            "-config",
            "other.conf",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(
        out.stderr,
        format!(
            "ERROR: Conflicting DAGMan config files specified: {dir}/other.conf and \
             {dir}/dagman.conf\n"
        )
    );
    assert_eq!(out.status, Some(1));
    // The same file is fine, given either way.
    let out = run(
        &env,
        &[
            "-config",
            "dagman.conf",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(out.status, Some(0), "{out}");
    assert!(read(&env, "x.dag.condor.sub")
        .contains(&format!("_CONDOR_DAGMAN_CONFIG_FILE={dir}/dagman.conf ")));

    // One that cannot be read.
    write(&env, "y.dag", "JOB A a.sub\nCONFIG nowhere.conf\n");
    let out = run(&env, &["-no_submit", "-dagman", DAGMAN, "y.dag"]);
    assert_eq!(
        out.to_string(),
        format!(
            "\n------- stderr -------\nERROR: Can't read DAGMan config file: {dir}/nowhere.conf\n\
             [exit status: 1]"
        )
    );
    // Two different CONFIG lines.
    write(&env, "z.dag", "CONFIG a.conf\nCONFIG b.conf\n");
    let out = run(&env, &["-no_submit", "-dagman", DAGMAN, "z.dag"]);
    assert_eq!(
        out.stderr,
        "ERROR: Multiple (2) configuration files provided.\n"
    );

    // The DAGMan config file is configuration for condor_submit_dag too.
    write(&env, "w.dag", "JOB A a.sub\nCONFIG w.conf\n");
    write(&env, "w.conf", "DAGMAN_ON_EXIT_REMOVE = false\n");
    let out = run(&env, &["-no_submit", "-dagman", DAGMAN, "w.dag"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(read(&env, "w.dag.condor.sub").contains("\non_exit_remove = false\n"));
}

#[test]
fn insert_sub_file_and_append_lines() {
    let mut env = env();
    write(
        &env,
        "x.dag",
        "JOB A a.sub\nSET_JOB_ATTR Owner_Group = \"g\"\n",
    );
    write(&env, "knob.sub", "from_knob = 1\n");
    write(&env, "flag.sub", "from_flag = 2\n");
    env.set_env("_CONDOR_DAGMAN_INSERT_SUB_FILE", "knob.sub");
    let out = run(
        &env,
        &[
            "-insert_sub_file",
            "flag.sub",
            "-append",
            "+Extra = 3",
            "-append",
            "a = b",
            "-notification",
            "Complete",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(
        out.stdout,
        format!(
            "\nNote: -insert_sub_file value (flag.sub) overriding DAGMAN_INSERT_SUB_FILE \
             setting (knob.sub)\n{}",
            &no_submit_banner("x.dag")[1..]
        )
    );
    let sub = read(&env, "x.dag.condor.sub");
    assert!(
        sub.ends_with(
            "notification = Complete\nfrom_flag = 2\nMy.Owner_Group = \"g\"\n+Extra = 3\n\
             a = b\nqueue\n"
        ),
        "{sub}"
    );
    assert!(sub.contains(" -notification Complete -dagman "), "{sub}");
    // A node job's notifications suppressed: DAGMan is told never.
    let out = run(
        &env,
        &[
            "-f",
            "-notification",
            "Complete",
            "-suppress_notification",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(out.status, Some(0), "{out}");
    let sub = read(&env, "x.dag.condor.sub");
    assert!(sub.contains(" -notification never -dagman "), "{sub}");
    assert!(
        sub.contains("\nnotification = Complete\nfrom_knob = 1\n"),
        "{sub}"
    );
}

#[test]
fn import_env_takes_the_environment_v2_can_hold() {
    let mut env = env();
    env.set_env("IMPORTED", "two words");
    env.set_env("SKIPPED", "a;b");
    write(&env, "x.dag", "JOB A a.sub\n");
    let out = run(
        &env,
        &[
            "-import_env",
            "-insert_env",
            "IMPORTED=mine",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(out.status, Some(0), "{out}");
    let sub = read(&env, "x.dag.condor.sub");
    let line = sub
        .lines()
        .find(|l| l.starts_with("environment = "))
        .unwrap();
    // -insert_env comes after the import and wins.
    assert!(line.contains(" IMPORTED=mine "), "{line}");
    assert!(line.contains(" LC_ALL=C "), "{line}");
    assert!(!line.contains("SKIPPED"), "{line}");
    assert!(sub.contains(" -DoRescueFrom 0 -import_env -insert_env IMPORTED=mine\""));
}

#[test]
fn update_submit_keeps_the_old_limits() {
    let env = env();
    write(&env, "x.dag", "JOB A a.sub\n");
    let out = run(
        &env,
        &[
            "-maxjobs",
            "5",
            "-maxidle",
            "7",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(out.status, Some(0), "{out}");
    let out = run(
        &env,
        &[
            "-update_submit",
            "-maxjobs",
            "2",
            "-maxpre",
            "3",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "x.dag",
        ],
    );
    assert_eq!(out.status, Some(0), "{out}");
    let sub = read(&env, "x.dag.condor.sub");
    assert!(
        sub.contains(" -Dag x.dag -MaxIdle 7 -MaxJobs 5 -MaxPre 3 -CsdVersion "),
        "{sub}"
    );
    assert!(sub.contains(" -update_submit\"\n"), "{sub}");

    // An arguments line without quotes is refused.
    write(&env, "x.dag.condor.sub", "arguments = -MaxJobs 4\nqueue\n");
    let out = run(
        &env,
        &["-update_submit", "-no_submit", "-dagman", DAGMAN, "x.dag"],
    );
    assert_eq!(
        out.to_string(),
        "\n------- stderr -------\nMissing quotes in arguments line: <arguments = -MaxJobs 4>\n\
         [exit status: 1]"
    );
}

#[test]
fn do_recurse_writes_the_nested_submit_files_first() {
    let env = env();
    write(
        &env,
        "outer.dag",
        "JOB A a.sub\nSUBDAG EXTERNAL S inner.dag DIR sub\nSUBDAG EXTERNAL T top.dag\n",
    );
    write(&env, "sub/inner.dag", "SUBDAG EXTERNAL U deepest.dag\n");
    write(&env, "sub/deepest.dag", "JOB D d.sub\n");
    write(&env, "top.dag", "JOB T t.sub\n");
    let out = run(
        &env,
        &[
            "-do_recurse",
            "-priority",
            "4",
            "-no_submit",
            "-dagman",
            DAGMAN,
            "outer.dag",
        ],
    );
    assert_eq!(out.status, Some(0), "{out}");
    let command = |dag: &str| {
        format!(
            "Recursive submit command: <condor_submit_dag -no_submit -update_submit -Priority 4 \
             -dagman {DAGMAN} -AutoRescue 1 -do_recurse {dag}>\n"
        )
    };
    assert_eq!(
        out.stderr,
        format!(
            "{}{}{}",
            command("inner.dag"),
            command("deepest.dag"),
            command("top.dag")
        )
    );
    // Depth first: each nested run's output (its empty line, what its own nested runs
    // printed, its banner), then this one's banner.
    assert_eq!(
        out.stdout,
        format!(
            "\n\n{}{}{}{}",
            no_submit_banner("deepest.dag"),
            &no_submit_banner("inner.dag")[1..],
            no_submit_banner("top.dag"),
            &no_submit_banner("outer.dag")[1..]
        )
    );
    let deepest = read(&env, "sub/deepest.dag.condor.sub");
    assert!(
        deepest.contains(" -Priority 4 -dagman /fixture/bin/condor_dagman -AutoRescue 1 -DoRescueFrom 0 -do_recurse -update_submit\"\n"),
        "{deepest}"
    );
    assert!(exists(&env, "sub/inner.dag.condor.sub") && exists(&env, "top.dag.condor.sub"));

    // Only SUBDAG EXTERNAL.
    write(&env, "bad.dag", "SUBDAG S inner.dag\n");
    let out = run(
        &env,
        &["-do_recurse", "-no_submit", "-dagman", DAGMAN, "bad.dag"],
    );
    assert_eq!(
        out.to_string(),
        "\n------- stderr -------\n\
         ERROR: only SUBDAG EXTERNAL is supported at this time (line: <SUBDAG S inner.dag>)\n\
         Recursive submit(s) failed; exiting without attempting top-level submit\n\
         [exit status: 1]"
    );
}

/// The queued jobs, each as `(id, attribute -> value in old syntax)`.
fn queued(env: &TestEnvironment) -> Vec<((i32, i32), BTreeMap<String, String>)> {
    let queue = Queue::open(env.local_dir().join("spool")).unwrap();
    let jobs = queue.jobs(&JobQuery::all()).unwrap();
    jobs.map(|job| {
        let job = job.unwrap();
        let id = job.id();
        let ad = job.ad().unwrap();
        let attrs = ad
            .iter()
            .map(|(name, expr)| (name.to_string(), expr_to_old_string(expr)))
            .collect();
        ((id.cluster.0, id.proc), attrs)
    })
    .collect()
}

#[test]
fn submits_the_dagman_job() {
    let env = env();
    write(&env, "x.dag", "JOB A a.sub\n");
    let dagman = write(&env, "bin/condor_dagman", "#!/bin/sh\nexit 0\n");
    let dagman = dagman.to_str().unwrap();
    let out = run(
        &env,
        &["-batch-name", "nightly", "-dagman", dagman, "x.dag"],
    );
    assert_eq!(
        out.to_string(),
        format!(
            "\n{RULE}\n\
             File for submitting this DAG to HTCondor           : x.dag.condor.sub\n\
             Log of DAGMan debugging messages                   : x.dag.dagman.out\n\
             Log of HTCondor library output                     : x.dag.lib.out\n\
             Log of HTCondor library error messages             : x.dag.lib.err\n\
             Log of the life of condor_dagman itself            : x.dag.dagman.log\n\
             \n\
             Submitting job(s).\n\
             1 job(s) submitted to cluster 1.\n\
             {RULE}\n[exit status: 0]"
        )
    );
    let jobs = queued(&env);
    assert_eq!(jobs.len(), 1);
    let ((cluster, proc), ad) = &jobs[0];
    assert_eq!((*cluster, *proc), (1, 0));
    let attr = |name: &str| ad.get(name).map(String::as_str);
    assert_eq!(attr("JobUniverse"), Some("7"));
    assert_eq!(
        attr("OtherJobRemoveRequirements"),
        Some("\"DAGManJobId =?= 1\"")
    );
    assert_eq!(attr("JobBatchName"), Some("\"nightly\""));
    assert_eq!(attr("Cmd"), Some(format!("\"{dagman}\"").as_str()));
    assert_eq!(attr("RemoveKillSig"), Some("\"SIGUSR1\""));
    assert_eq!(attr("Owner"), Some("\"alice\""));
    let arguments = attr("Arguments").unwrap();
    assert!(
        arguments.starts_with("\"-p 0 -f -l . -Lockfile x.dag.lock -Dag x.dag -CsdVersion "),
        "{arguments}"
    );
    let environment = attr("Environment").unwrap();
    // The submit file's environment, and what getenv took from condor_submit_dag's.
    for entry in [
        "_CONDOR_DAGMAN_LOG=x.dag.dagman.out ",
        "_CONDOR_MAX_DAGMAN_LOG=0 ",
        "_CONDOR_SCHEDD_ADDRESS_FILE=",
        "_CONDOR_SCHEDD_DAEMON_AD_FILE=",
        "PATH=",
        "CONDOR_CONFIG=",
    ] {
        assert!(environment.contains(entry), "{entry}: {environment}");
    }
    // The job's own event log has its submit event.
    assert!(read(&env, "x.dag.dagman.log").starts_with("000 (001.000.000)"));
}

/// The DAGMan job is queued by condor_submit's code: with no master running, condor_submit's
/// note that it waits for one, once, on stderr; stdout unchanged.
#[test]
fn without_a_master_the_dagman_job_waits_and_condor_submit_dag_says_so() {
    let mut env = env();
    env.warn_no_master();
    write(&env, "x.dag", "JOB A a.sub\n");
    let dagman = write(&env, "bin/condor_dagman", "#!/bin/sh\nexit 0\n");
    let out = run(&env, &["-dagman", dagman.to_str().unwrap(), "x.dag"]);
    assert_eq!(out.status, Some(0), "{out}");
    let end = format!("1 job(s) submitted to cluster 1.\n{RULE}\n");
    assert!(out.stdout.ends_with(&end), "{out}");
    assert_eq!(env.normalize(&out.stderr), crate::common::NO_MASTER_NOTE);
}

#[test]
fn a_failed_submit_is_reported() {
    let env = env();
    write(&env, "x.dag", "JOB A a.sub\n");
    // condor_submit checks the executable.
    let out = run(&env, &["-dagman", "/nonexistent/condor_dagman", "x.dag"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(out.stdout.ends_with("Log of the life of condor_dagman itself            : x.dag.dagman.log\n\nSubmitting job(s)"), "{out}");
    assert_eq!(
        out.stderr,
        "\nERROR: Can't access executable file /nonexistent/condor_dagman: No such file or \
         directory\nERROR: condor_submit failed; aborting.\n"
    );
    // -remote names a schedd condor_submit cannot find.
    let dagman = write(&env, "bin/condor_dagman", "#!/bin/sh\n");
    let out = run(
        &env,
        &[
            "-f",
            "-r",
            "elsewhere",
            "-dagman",
            dagman.to_str().unwrap(),
            "x.dag",
        ],
    );
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr.ends_with(
            "\nERROR: Can't find address of schedd elsewhere\nERROR: condor_submit failed; \
             aborting.\n"
        ),
        "{out}"
    );
}

/// A copy of condor_submit_dag in a directory of its own (a hard link when possible), so that
/// what is "next to the program" is up to the test.
fn installed_copy(env: &TestEnvironment) -> PathBuf {
    let bin = env.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let copy = bin.join(CSD);
    let built = assert_cmd::cargo::cargo_bin(CSD);
    if std::fs::hard_link(&built, &copy).is_err() {
        std::fs::copy(&built, &copy).unwrap();
    }
    copy
}

#[test]
fn condor_dagman_is_found_next_to_the_program_then_in_path() {
    let env = env();
    write(&env, "x.dag", "JOB A a.sub\n");
    let csd = installed_copy(&env);
    let path_dir = env.root().join("path");
    std::fs::create_dir_all(&path_dir).unwrap();
    // The copy, with PATH holding one directory; returns its stderr.
    let run_it = |expect_ok: bool| {
        let output = std::process::Command::new(&csd)
            .env_clear()
            .env("CONDOR_CONFIG", env.config_file())
            .env("_CONDOR_LOCAL_DIR", env.local_dir())
            .env("PATH", &path_dir)
            .current_dir(env.work_dir())
            .args(["-f", "-no_submit", "x.dag"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.success(), expect_ok, "{stderr}");
        stderr
    };
    // (Looked for before anything is removed.)
    assert_eq!(
        run_it(false),
        "ERROR: Failed to locate condor_dagman executable in PATH\n"
    );
    let in_path = path_dir.join("condor_dagman");
    std::fs::write(&in_path, "").unwrap();
    run_it(true);
    let executable = |sub: &str| {
        sub.lines()
            .find_map(|l| l.strip_prefix("executable  = "))
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        executable(&read(&env, "x.dag.condor.sub")),
        in_path.to_str().unwrap()
    );
    let beside = csd.parent().unwrap().join("condor_dagman");
    std::fs::write(&beside, "").unwrap();
    run_it(true);
    let sub = read(&env, "x.dag.condor.sub");
    assert_eq!(executable(&sub), beside.to_str().unwrap());
    assert!(sub.contains(&format!(" -dagman {} ", beside.display())));
}

#[test]
fn a_dag_dagman_would_fail_on_is_refused_with_its_file_and_line() {
    let env = env();
    let cases = [
        (
            "cycle.dag",
            "JOB A a.sub\nJOB B a.sub\nJOB C a.sub\nPARENT A CHILD B\nPARENT B CHILD C\n\
             PARENT C CHILD A\n",
            "ERROR: cycle.dag (line 6): a cycle exists in the dag: A -> B -> C -> A\n",
        ),
        (
            "parent.dag",
            "JOB A a.sub\nPARENT X CHILD A\n",
            "ERROR: parent.dag (line 2): Unknown Node X\n",
        ),
        (
            "duplicate.dag",
            "JOB A a.sub\n\nJOB A b.sub\n",
            "ERROR: duplicate.dag (line 3): node name 'A' already exists in DAG\n\
             Example syntax is: JOB <nodename> submitfile [DIR directory] [NOOP] [DONE]\n",
        ),
        (
            "missing.dag",
            "JOB A a.sub\nJOB B nope.sub\n",
            "ERROR: missing.dag (line 2): node B's submit file nope.sub cannot be read: \
             No such file or directory\n",
        ),
    ];
    for (dag, text, error) in cases {
        write(&env, dag, text);
        let out = run(&env, &["-dagman", DAGMAN, dag]);
        assert_eq!(out.status, Some(1), "{dag}: {out}");
        assert_eq!(out.stderr, error, "{dag}");
        assert!(!exists(&env, &format!("{dag}.condor.sub")), "{dag}");
    }
    // Nothing was submitted.
    assert!(queued(&env).is_empty());
    // A node whose PRE script may write its submit file, a NOOP node and an inline
    // description are left alone.
    write(
        &env,
        "fine.dag",
        "JOB A later.sub\nSCRIPT PRE A make.sh\nJOB B gone.sub NOOP\nJOB C {\nexecutable = /bin/true\n}\n",
    );
    let out = run(&env, &["-no_submit", "-dagman", DAGMAN, "fine.dag"]);
    assert_eq!(out.status, Some(0), "{out}");
}
