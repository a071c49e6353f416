//! `condor_chirp` from inside running jobs: attribute updates that land in the queue and the
//! event log, delayed updates and their prefix, `ulog`, files of the submit directory and
//! their confinement, and the refusals and exit statuses of HTCondor 24.0's condor_chirp.

use crate::common::TestEnvironment;
use crate::pool::{count, script, submit, wait_for, Master};

fn chirp_bin() -> String {
    assert_cmd::cargo::cargo_bin("condor_chirp")
        .to_string_lossy()
        .into_owned()
}

/// A job running `body` (shell lines, `$C` is condor_chirp; `r` runs a chirp command and
/// prints its exit status after its output), then writing `chirped` and waiting for the
/// file `go` in the submit directory. Its output is `out.txt` in the submit directory.
fn chirping_job(env: &TestEnvironment, body: &str, submit_extra: &str) -> String {
    let go = env.work_dir().join("go");
    let chirped = env.work_dir().join("chirped");
    script(
        env,
        "job.sh",
        &format!(
            "#!/bin/sh\nC={}\nr() {{ \"$C\" \"$@\"; echo \"[$?]\"; }}\n{body}\n\
             touch {}\nwhile [ ! -e {} ]; do sleep 0.05; done\n",
            chirp_bin(),
            chirped.display(),
            go.display()
        ),
    );
    submit(
        env,
        &format!(
            "executable = job.sh\noutput = out.txt\nerror = err.txt\nlog = job.log\n\
             {submit_extra}queue\n"
        ),
    )
}

fn wait_chirped(env: &TestEnvironment) {
    wait_for("the job's chirps", || {
        env.work_dir().join("chirped").exists()
    });
}

fn finish(env: &TestEnvironment) {
    std::fs::write(env.work_dir().join("go"), "").unwrap();
    wait_for("the job to leave the queue", || count(env, "true") == 0);
}

fn read(env: &TestEnvironment, name: &str) -> String {
    std::fs::read_to_string(env.work_dir().join(name)).unwrap_or_default()
}

#[test]
fn attribute_updates_land_in_the_queue_and_the_event_log() {
    let env = TestEnvironment::new();
    let _master = Master::start(&env);
    let cluster = chirping_job(
        &env,
        "r set_job_attr Progress 42\n\
         r set_job_attr Note '\"half done\"'\n\
         r set_job_attr Progress 43\n\
         r get_job_attr Progress\n\
         r get_job_attr Note\n\
         r get_job_attr NoSuchAttribute\n\
         r set_job_attr ClusterId 7\n\
         r set_job_attr 'bad name' 1\n\
         r set_job_attr Broken '1 +'\n\
         r ulog 'phase 2 started'\n\
         r set_job_attr_delayed ChirpCount 3\n\
         r get_job_attr_delayed ChirpCount\n\
         r get_job_attr_delayed JobUniverse\n\
         r get_job_attr_delayed ChirpMissing\n\
         r set_job_attr_delayed NotChirpy 1\n\
         r whoami",
        "want_io_proxy = true\nshould_transfer_files = YES\n",
    );
    wait_chirped(&env);
    let job = format!("{cluster}.0");
    let q = env.run(
        "condor_q",
        [
            job.as_str(),
            "-af",
            "Progress",
            "Note",
            "ChirpCount",
            "NotChirpy",
        ],
    );
    assert_eq!(q.to_string(), "43 half done 3 undefined\n[exit status: 0]");

    finish(&env);
    // The job's output comes back with it.
    assert_eq!(
        read(&env, "out.txt"),
        "[0]\n[0]\n[0]\n43\n[0]\n\"half done\"\n[0]\nUNDEFINED\n[0]\n\
         \tError: 13 (Permission denied)\n[255]\n\
         \tError: 22 (Invalid argument)\n[255]\n\
         \tError: 22 (Invalid argument)\n[255]\n\
         [0]\n[0]\n3\n[0]\n5\n[0]\n(null)\n[0]\n[1]\nCONDOR\n[6]\n"
    );
    assert_eq!(read(&env, "err.txt"), "");
    let log = read(&env, "job.log");
    let events: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("0"))
        .map(|l| &l[..3])
        .collect();
    assert_eq!(
        events,
        ["000", "001", "033", "033", "033", "008", "006", "005"]
    );
    assert!(
        log.contains("Setting job attribute Progress to 42\n"),
        "{log}"
    );
    assert!(
        log.contains("Setting job attribute Note to \"half done\"\n"),
        "{log}"
    );
    assert!(
        log.contains("Changing job attribute Progress from 42 to 43\n"),
        "{log}"
    );
    assert!(
        log.lines()
            .any(|l| l.starts_with("008 (001.000.000) ") && l.ends_with(" phase 2 started")),
        "{log}"
    );
}

#[test]
fn without_the_io_proxy_only_delayed_updates_are_served() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_CHIRP_DELAYED_UPDATE_MAX_ATTRS", "2");
    env.write_file("condor_config", "");
    std::fs::write(
        env.config_file(),
        "CHIRP_DELAYED_UPDATE_MAX_ATTRS = 2\nCHIRP_DELAYED_UPDATE_PREFIX = Chirp*, Extra\n",
    )
    .unwrap();
    let _master = Master::start(&env);
    let cluster = chirping_job(
        &env,
        "r set_job_attr Progress 42\n\
         r ulog hello\n\
         r fetch job.sh copy\n\
         r set_job_attr_delayed ChirpA 1\n\
         r set_job_attr_delayed extra 2\n\
         r set_job_attr_delayed ChirpA 3\n\
         r set_job_attr_delayed ChirpB 4\n\
         r set_job_attr_delayed ChirpLong \"\\\"$(printf '%01000d' 0)\\\"\"\n\
         r set_job_attr_delayed ChirpBroken '1 +'",
        "",
    );
    wait_chirped(&env);
    assert_eq!(
        read(&env, "out.txt"),
        "\tError: 22 (Invalid argument)\n[255]\n\
         \tError: 22 (Invalid argument)\n[255]\n\
         \tError: 22 (Invalid argument)\n[255]\n\
         [0]\n[0]\n[0]\n[1]\n\
         \tError: 36 (File name too long)\n[255]\n[0]\n"
    );
    let job = format!("{cluster}.0");
    let q = env.run(
        "condor_q",
        [job.as_str(), "-af", "ChirpA", "extra", "ChirpB", "Progress"],
    );
    assert_eq!(q.to_string(), "3 2 undefined undefined\n[exit status: 0]");
    finish(&env);
    // Delayed updates log nothing.
    let log = read(&env, "job.log");
    assert!(!log.contains("033 ("), "{log}");
}

#[test]
fn files_of_the_submit_directory_and_nothing_else() {
    let env = TestEnvironment::new();
    env.write_file("input.dat", "the input\n");
    std::fs::create_dir(env.work_dir().join("sub")).unwrap();
    env.write_file("sub/deep.dat", "deep\n");
    env.write_file("doomed.dat", "x");
    let outside = env.root().join("outside.dat");
    std::fs::write(&outside, "secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.work_dir().join("link.dat")).unwrap();
    let _master = Master::start(&env);
    chirping_job(
        &env,
        "r fetch input.dat got.dat\ncat got.dat\n\
         r fetch sub/deep.dat -\n\
         echo result > result.txt\n\
         r put result.txt back/result.txt\n\
         mkdir -p x\n\
         r put result.txt result.dat\n\
         r put -mode wa result.txt result.dat\n\
         r put -perm 600 result.txt private.dat\n\
         r fetch ../outside.dat stolen\n\
         r fetch link.dat stolen\n\
         r put result.txt link.dat\n\
         r put result.txt ../planted.dat\n\
         r fetch missing.dat m\n\
         r remove doomed.dat\n\
         r remove ../outside.dat\n\
         r fetch input.dat /nonexistent/dir/x",
        "want_io_proxy = true\nshould_transfer_files = YES\n",
    );
    wait_chirped(&env);
    finish(&env);
    assert_eq!(
        read(&env, "out.txt"),
        "[0]\nthe input\ndeep\n[0]\n\
         \tError: 2 (No such file or directory)\n[255]\n\
         [0]\n[0]\n[0]\n\
         \tError: 13 (Permission denied)\n[255]\n\
         \tError: 13 (Permission denied)\n[255]\n\
         \tError: 13 (Permission denied)\n[255]\n\
         \tError: 13 (Permission denied)\n[255]\n\
         \tError: 2 (No such file or directory)\n[255]\n\
         [0]\n\
         \tError: 13 (Permission denied)\n[255]\n\
         \tError: 2 (No such file or directory)\n[255]\n"
    );
    assert_eq!(
        read(&env, "err.txt"),
        "Couldn't chirp_write as much as we read\n\
         Couldn't chirp_write as much as we read\n\
         Couldn't chirp_write as much as we read\n\
         Can't open local file /nonexistent/dir/x\n"
    );
    assert_eq!(read(&env, "result.dat"), "result\nresult\n");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(env.work_dir().join("private.dat"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(!env.work_dir().join("doomed.dat").exists());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret\n");
    assert!(!env.root().join("planted.dat").exists());
}

#[test]
fn outside_a_job_there_is_no_starter_to_ask() {
    let env = TestEnvironment::new();
    let out = env.run("condor_chirp", ["get_job_attr", "Owner"]);
    assert_eq!(
        out.to_string(),
        "\tError: 2 (No such file or directory)\n------- stderr -------\n\
         Can't open ./.chirp.config file\ncannot chirp_connect to condor_starter\n\
         [exit status: 255]"
    );
    // A copied .chirp.config does not make a directory a job's scratch directory.
    let local = env.local_dir();
    env.write_file(
        ".chirp.config",
        &format!("_CONDOR_LOCAL_DIR={}\n", local.display()),
    );
    env.write_file(".job.ad", "ClusterId = 1\nProcId = 0\n");
    let out = env.run("condor_chirp", ["set_job_attr", "Progress", "1"]);
    assert_eq!(
        out.to_string(),
        "\tError: 111 (Connection refused)\n------- stderr -------\n\
         cannot chirp_connect to condor_starter\n[exit status: 255]"
    );
}
