//! The shared host: a system pool, its master started by root over a spool only root may
//! write, and tools run by other users reaching it through the master's socket, which knows
//! them by the kernel's word (`SO_PEERCRED`) and enforces who may act on which job.
//!
//! These tests need root (to start the master as root, to make throwaway users and to run
//! the tools as them); without root each says so and passes. The users, `cltest-alice` and
//! `cltest-bob`, are made once (`useradd`, no home, no shell) and left for later runs.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::sync::Mutex;

use crate::common::{CommandOutput, TestEnvironment};
use crate::pool::{wait_for, Master};

const ALICE: &str = "cltest-alice";
const BOB: &str = "cltest-bob";

mod transfer;

/// Whether the test can run; says why not when it cannot.
fn root_or_skip(test: &str) -> bool {
    let root = nix::unistd::geteuid().is_root();
    if !root {
        eprintln!("{test}: skipped: a system pool's tests need root (CI runs them as root)");
    }
    root
}

/// A local user the tests run tools as.
#[derive(Clone, Debug)]
struct User {
    name: &'static str,
    uid: u32,
    gid: u32,
}

/// The user `name`, made if missing (one `useradd` at a time: it locks the password files).
fn user(name: &'static str) -> User {
    static MAKING: Mutex<()> = Mutex::new(());
    let _one = MAKING.lock().unwrap_or_else(|e| e.into_inner());
    let find = || nix::unistd::User::from_name(name).ok().flatten();
    let found = match find() {
        Some(u) => u,
        None => {
            let status = std::process::Command::new("useradd")
                .args(["-M", "-N", "-s", "/usr/sbin/nologin", name])
                .status()
                .expect("useradd runs");
            assert!(status.success(), "useradd {name}: {status}");
            find().expect("the user just made")
        }
    };
    User {
        name,
        uid: found.uid.as_raw(),
        gid: found.gid.as_raw(),
    }
}

/// A system pool for one test: the test's directory open to all, a working directory per
/// user, owned by that user, and a master started by root that starts no job (so that the
/// queue stays as the test makes it).
struct SystemPool {
    env: TestEnvironment,
    master: Option<Master>,
}

impl SystemPool {
    fn start() -> SystemPool {
        SystemPool::start_with(true)
    }

    /// A system pool whose users may submit anything (`CONDORLITE_ALLOW_USER_SUBMIT`), or
    /// what does not run with the master's rights.
    fn start_with(users_submit: bool) -> SystemPool {
        let mut env = TestEnvironment::new();
        if users_submit {
            env.set_env("_CONDOR_CONDORLITE_ALLOW_USER_SUBMIT", "True");
        }
        SystemPool::with_config(env, "START = False\n")
    }

    /// A system pool that runs jobs, configured by `config`.
    fn running(config: &str) -> SystemPool {
        SystemPool::with_config(TestEnvironment::new(), config)
    }

    fn with_config(mut env: TestEnvironment, config: &str) -> SystemPool {
        std::fs::set_permissions(env.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(env.config_file(), config).unwrap();
        // A system pool: its master runs jobs as their owners (the harness's personal pools
        // do not).
        env.remove_env("_CONDOR_CONDORLITE_RUN_AS_OWNER");
        for u in [user(ALICE), user(BOB)] {
            let dir = env.root().join(u.name);
            std::fs::create_dir(&dir).unwrap();
            std::os::unix::fs::chown(&dir, Some(u.uid), Some(u.gid)).unwrap();
        }
        let master = Master::start(&env);
        let spool = std::fs::metadata(env.local_dir().join("spool")).unwrap();
        assert_eq!(spool.permissions().mode() & 0o777, 0o755);
        SystemPool {
            env,
            master: Some(master),
        }
    }

    fn dir(&self, who: &User) -> PathBuf {
        self.env.root().join(who.name)
    }

    /// Runs `tool` as `who`, in their working directory, `extra` added to the environment.
    fn run_as(
        &self,
        who: &User,
        extra: &[(&str, &str)],
        tool: &str,
        args: &[&str],
    ) -> CommandOutput {
        let mut cmd = self.command_as(who, tool);
        cmd.args(args).envs(extra.iter().copied());
        output(cmd)
    }

    /// A command for `tool` as `who`, in their working directory.
    fn command_as(&self, who: &User, tool: &str) -> std::process::Command {
        let dir = self.dir(who);
        let mut cmd = self.env.command(tool);
        cmd.current_dir(&dir)
            .env("HOME", &dir)
            .uid(who.uid)
            .gid(who.gid);
        cmd
    }

    /// Submits `text` as `who` (a file in their directory); the cluster.
    fn submit_as(&self, who: &User, extra: &[(&str, &str)], text: &str) -> String {
        let file = self.dir(who).join("job.sub");
        std::fs::write(&file, text).unwrap();
        std::os::unix::fs::chown(&file, Some(who.uid), Some(who.gid)).unwrap();
        let out = self.run_as(who, extra, "condor_submit", &["-terse", "job.sub"]);
        assert_eq!(out.status, Some(0), "{out}");
        out.stdout.split('.').next().unwrap().trim().to_owned()
    }

    /// Submits as root, in the test's working directory; the cluster.
    fn submit_as_root(&self, text: &str) -> String {
        let file = self.env.write_file("job.sub", text);
        let out = self
            .env
            .run("condor_submit", ["-terse", file.to_str().unwrap()]);
        assert_eq!(out.status, Some(0), "{out}");
        out.stdout.split('.').next().unwrap().trim().to_owned()
    }

    /// `condor_q -af` of every job, as root.
    fn jobs(&self, attrs: &[&str]) -> String {
        let mut args = vec!["-allusers", "-af"];
        args.extend_from_slice(attrs);
        let out = self.env.run("condor_q", &args);
        assert_eq!(out.status, Some(0), "{out}");
        out.stdout
    }
}

fn output(mut cmd: std::process::Command) -> CommandOutput {
    let out = cmd.output().expect("the tool runs");
    CommandOutput {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code(),
    }
}

const SLEEPER: &str = "executable = /bin/sleep\narguments = 300\nqueue\n";

#[test]
fn another_user_submits_sees_its_jobs_and_may_not_touch_others() {
    if !root_or_skip("another_user_submits_sees_its_jobs_and_may_not_touch_others") {
        return;
    }
    let pool = SystemPool::start();
    let (alice, bob) = (user(ALICE), user(BOB));
    assert_eq!(pool.submit_as_root(SLEEPER), "1");
    assert_eq!(pool.submit_as(&alice, &[], SLEEPER), "2");
    // The submit file's and the environment's claims are not who submits: the uid is.
    let claimed = "+Owner = \"root\"\nexecutable = /bin/sleep\narguments = 300\nqueue 2\n";
    let out = {
        let file = pool.dir(&bob).join("job.sub");
        std::fs::write(&file, claimed).unwrap();
        pool.run_as(
            &bob,
            &[("CONDORLITE_USER", ALICE)],
            "condor_submit",
            &["job.sub"],
        )
    };
    assert_eq!(
        out.to_string(),
        "Submitting job(s)..\n2 job(s) submitted to cluster 3.\n[exit status: 0]"
    );
    let owners = "1 0 root\n2 0 cltest-alice\n3 0 cltest-bob\n3 1 cltest-bob\n";
    assert_eq!(pool.jobs(&["ClusterId", "ProcId", "Owner"]), owners);
    assert_eq!(
        pool.jobs(&["User"]).lines().nth(3),
        Some(format!("{BOB}@{}", full_hostname(&pool)).as_str())
    );

    // condor_q: every user's jobs are public; by default a user's own.
    let out = pool.run_as(
        &bob,
        &[],
        "condor_q",
        &["-af", "ClusterId", "ProcId", "Owner"],
    );
    assert_eq!(
        out.to_string(),
        "3 0 cltest-bob\n3 1 cltest-bob\n[exit status: 0]"
    );
    let out = pool.run_as(&bob, &[], "condor_q", &["-allusers", "-af", "ClusterId"]);
    assert_eq!(out.to_string(), "1\n2\n3\n3\n[exit status: 0]");

    // Another user's jobs: refused with HTCondor's words and status, nothing changed, and
    // CONDORLITE_USER names no one but the caller.
    let before = pool.jobs(&["ClusterId", "ProcId", "JobStatus", "Cmd", "JobPrio"]);
    for extra in [&[][..], &[("CONDORLITE_USER", "root")][..]] {
        let out = pool.run_as(&bob, extra, "condor_rm", &["1.0"]);
        assert_eq!(
            out.to_string(),
            "------- stderr -------\n\nPermission denied to remove job 1.0\n[exit status: 1]"
        );
        let out = pool.run_as(&bob, extra, "condor_hold", &["2"]);
        assert_eq!(
            out.to_string(),
            "------- stderr -------\n\nCouldn't find/hold all jobs in cluster 2\n[exit status: 1]"
        );
        let out = pool.run_as(
            &bob,
            extra,
            "condor_qedit",
            &["1.0", "Cmd", "\"/bin/evil\""],
        );
        assert_eq!(
            out.to_string(),
            "------- stderr -------\nFailed to set attribute \"Cmd\" for job 1.0.\nQueue \
             transaction failed.  No attributes were set.\n[exit status: 1]"
        );
        let out = pool.run_as(
            &bob,
            extra,
            "condor_qedit",
            &["-owner", ALICE, "Cmd", "\"/x\""],
        );
        assert_eq!(out.status, Some(1), "{out}");
        let out = pool.run_as(&bob, extra, "condor_prio", &["-p", "7", "2.0"]);
        assert_eq!(
            out.to_string(),
            "------- stderr -------\nCouldn't set new priority for 2.0.\n[exit status: 0]"
        );
    }
    assert_eq!(
        pool.jobs(&["ClusterId", "ProcId", "JobStatus", "Cmd", "JobPrio"]),
        before
    );

    // Its own jobs: as in a personal pool.
    let out = pool.run_as(&bob, &[], "condor_hold", &["3.0"]);
    assert_eq!(out.to_string(), "Job 3.0 held\n[exit status: 0]");
    let out = pool.run_as(&bob, &[], "condor_qedit", &["3", "Mine", "1"]);
    assert_eq!(
        out.to_string(),
        "Set attribute \"Mine\" for 2 matching jobs.\n[exit status: 0]"
    );
    let out = pool.run_as(&bob, &[], "condor_prio", &["-p", "4", BOB]);
    assert_eq!(out.to_string(), "[exit status: 0]");
    let out = pool.run_as(&bob, &[], "condor_rm", &["3.1"]);
    assert_eq!(
        out.to_string(),
        "Job 3.1 marked for removal\n[exit status: 0]"
    );
    assert_eq!(
        pool.jobs(&["ClusterId", "ProcId", "JobStatus", "Mine", "JobPrio"]),
        "1 0 1 undefined 0\n2 0 1 undefined 0\n3 0 5 1 4\n"
    );

    // Root acts on everyone's (directly: the spool is root's), and through the master too.
    let out = pool.env.run("condor_hold", ["2.0"]);
    assert_eq!(out.to_string(), "Job 2.0 held\n[exit status: 0]");
    let mut through_master = pool.env.command("condor_qedit");
    through_master
        .env("_CONDOR_CONDORLITE_QUEUE_ACCESS", "master")
        .args(["3.0", "Cmd", "\"/bin/true\""]);
    let out = output(through_master);
    assert_eq!(
        out.to_string(),
        "Set attribute \"Cmd\" for 1 matching jobs.\n[exit status: 0]"
    );
    let mut through_master = pool.env.command("condor_rm");
    through_master
        .env("_CONDOR_CONDORLITE_QUEUE_ACCESS", "master")
        .arg(ALICE);
    let out = output(through_master);
    assert_eq!(
        out.to_string(),
        "All jobs of user \"cltest-alice\" have been marked for removal\n[exit status: 0]"
    );
    assert_eq!(
        pool.jobs(&["ClusterId", "ProcId", "Owner", "Cmd"]),
        "1 0 root /bin/sleep\n3 0 cltest-bob /bin/true\n"
    );
}

fn full_hostname(pool: &SystemPool) -> String {
    let out = pool.env.run("condor_config_val", ["FULL_HOSTNAME"]);
    out.stdout.trim().to_owned()
}

#[test]
fn a_superuser_may_submit_as_another_user_through_the_master() {
    if !root_or_skip("a_superuser_may_submit_as_another_user_through_the_master") {
        return;
    }
    let pool = SystemPool::start();
    let file = pool.env.write_file("job.sub", SLEEPER);
    let mut cmd = pool.env.command("condor_submit");
    cmd.env("_CONDOR_CONDORLITE_QUEUE_ACCESS", "master")
        .env("CONDORLITE_USER", ALICE)
        .args(["-terse", file.to_str().unwrap()]);
    let out = output(cmd);
    assert_eq!(out.to_string(), "1.0 - 1.0\n[exit status: 0]");
    assert_eq!(pool.jobs(&["Owner"]), "cltest-alice\n");
    // Alice may then act on it; Bob may not.
    let bob = user(BOB);
    let out = pool.run_as(&bob, &[], "condor_release", &["1.0"]);
    assert_eq!(out.status, Some(1), "{out}");
    let out = pool.run_as(&user(ALICE), &[], "condor_hold", &["1.0"]);
    assert_eq!(out.to_string(), "Job 1.0 held\n[exit status: 0]");
}

#[test]
fn a_job_factory_is_submitted_through_the_master_as_its_user() {
    if !root_or_skip("a_job_factory_is_submitted_through_the_master_as_its_user") {
        return;
    }
    let pool = SystemPool::start();
    let bob = user(BOB);
    let text = "executable = /bin/sleep\narguments = 300\nmax_materialize = 2\nqueue 5\n";
    let file = pool.dir(&bob).join("job.sub");
    std::fs::write(&file, text).unwrap();
    let out = pool.run_as(&bob, &[], "condor_submit", &["job.sub"]);
    assert_eq!(
        out.to_string(),
        "Submitting job(s)\n5 job(s) submitted to cluster 1.\n[exit status: 0]"
    );
    wait_for("the factory's first procs", || {
        pool.jobs(&["ProcId", "Owner"]) == "0 cltest-bob\n1 cltest-bob\n"
    });
}

#[test]
fn the_master_answers_a_submit_past_the_schedds_bounds_as_the_direct_path_does() {
    if !root_or_skip("the_master_answers_a_submit_past_the_schedds_bounds_as_the_direct_path_does")
    {
        return;
    }
    let pool = SystemPool::start();
    std::fs::write(
        pool.env.config_file(),
        "START = False\nMAX_JOBS_PER_OWNER = 3\n",
    )
    .unwrap();
    let bob = user(BOB);
    let file = pool.dir(&bob).join("job.sub");
    std::fs::write(&file, "executable = /bin/sleep\narguments = 1\nqueue 5\n").unwrap();
    let out = pool.run_as(&bob, &[], "condor_submit", &["job.sub"]);
    assert_eq!(
        out.to_string(),
        "Submitting job(s)...------- stderr -------\n\nERROR: Failed to create proc\nNumber \
         of submitted jobs would exceed MAX_JOBS_PER_OWNER\n[exit status: 1]"
    );
    assert_eq!(pool.jobs(&["ClusterId"]), "");
    // The same in a personal pool, where the tool writes the queue itself.
    let env = TestEnvironment::new();
    std::fs::write(env.config_file(), "MAX_JOBS_PER_OWNER = 3\n").unwrap();
    let file = env.write_file(
        "job.sub",
        "executable = /bin/sleep\narguments = 1\nqueue 5\n",
    );
    let direct = env.run("condor_submit", [file.to_str().unwrap()]);
    assert_eq!(direct, out);
}

#[test]
fn only_superusers_submit_where_jobs_run_as_the_masters_user() {
    if !root_or_skip("only_superusers_submit_where_jobs_run_as_the_masters_user") {
        return;
    }
    let pool = SystemPool::with_config(
        TestEnvironment::new(),
        "START = False\nCONDORLITE_RUN_AS_OWNER = False\n",
    );
    let bob = user(BOB);
    let file = pool.dir(&bob).join("job.sub");
    std::fs::write(&file, SLEEPER).unwrap();
    let out = pool.run_as(&bob, &[], "condor_submit", &["job.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr.contains(
            "cltest-bob may not submit jobs to this pool: its jobs run as the user the \
             condor_master runs as"
        ),
        "{out}"
    );
    assert_eq!(pool.jobs(&["ClusterId"]), "", "nothing queued");
    // Root, a queue superuser, still submits.
    pool.submit_as_root(SLEEPER);
    assert_eq!(pool.jobs(&["Owner"]), "root\n");
}

#[test]
fn where_jobs_run_as_their_owners_users_submit_jobs_but_not_factories() {
    if !root_or_skip("where_jobs_run_as_their_owners_users_submit_jobs_but_not_factories") {
        return;
    }
    let pool = SystemPool::start_with(false);
    let bob = user(BOB);
    assert_eq!(pool.submit_as(&bob, &[], SLEEPER), "1");
    let file = pool.dir(&bob).join("job.sub");
    std::fs::write(
        &file,
        "executable = /bin/sleep\nmax_materialize = 2\nqueue 5\n",
    )
    .unwrap();
    let out = pool.run_as(&bob, &[], "condor_submit", &["job.sub"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr.contains(
            "cltest-bob may not submit a job factory to this pool: a job factory's jobs are \
             made in the condor_master"
        ),
        "{out}"
    );
    assert_eq!(pool.jobs(&["ClusterId"]), "1\n", "no factory queued");
}

#[test]
fn administrative_commands_are_refused_to_other_users() {
    if !root_or_skip("administrative_commands_are_refused_to_other_users") {
        return;
    }
    let pool = SystemPool::start();
    let bob = user(BOB);
    let out = pool.run_as(&bob, &[], "condor_off", &["-master"]);
    assert_ne!(out.status, Some(0), "{out}");
    assert!(out.stderr.contains("permission denied: uid"), "{out}");
    // The master still runs and serves.
    assert_eq!(pool.submit_as(&bob, &[], SLEEPER), "1");
}

#[test]
fn users_find_the_system_pool_through_their_configuration() {
    if !root_or_skip("users_find_the_system_pool_through_their_configuration") {
        return;
    }
    let pool = SystemPool::start();
    let bob = user(BOB);
    let local = pool.env.local_dir();
    let config = pool.env.config_file();
    // The pool's configuration file names its directory: CONDOR_CONFIG alone finds it.
    std::fs::write(
        &config,
        format!("START = False\nLOCAL_DIR = {}\n", local.display()),
    )
    .unwrap();
    let submit = |prepare: &dyn Fn(&mut std::process::Command)| {
        std::fs::write(pool.dir(&bob).join("job.sub"), SLEEPER).unwrap();
        let mut cmd = pool.command_as(&bob, "condor_submit");
        cmd.args(["-terse", "job.sub"]);
        prepare(&mut cmd);
        output(cmd)
    };
    let out = submit(&|cmd| {
        cmd.env_remove("_CONDOR_LOCAL_DIR");
    });
    assert_eq!(out.to_string(), "1.0 - 1.0\n[exit status: 0]");
    // _CONDOR_LOCAL_DIR alone, with no configuration file at all.
    let out = submit(&|cmd| {
        cmd.env("CONDOR_CONFIG", "ONLY_ENV");
    });
    assert_eq!(out.to_string(), "2.0 - 2.0\n[exit status: 0]");
    assert_eq!(
        pool.jobs(&["ClusterId", "Owner"]),
        "1 cltest-bob\n2 cltest-bob\n"
    );
    // With neither, Bob keeps his personal pool (in his home), which he writes himself.
    let out = submit(&|cmd| {
        cmd.env("CONDOR_CONFIG", "ONLY_ENV")
            .env_remove("_CONDOR_LOCAL_DIR");
    });
    assert_eq!(out.to_string(), "1.0 - 1.0\n[exit status: 0]");
    assert_eq!(pool.jobs(&["ClusterId"]), "1\n2\n");
    let personal = pool.dir(&bob).join(".local/share/condorlite/spool");
    let owner = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(personal).unwrap());
    assert_eq!(owner, bob.uid);
}

/// A pool of four slots that runs jobs at once.
const RUNNING: &str = "NUM_CPUS = 4\nNEGOTIATOR_INTERVAL = 1\n";

impl SystemPool {
    /// Writes `text` as `who`'s file `name` (mode `mode`) in their directory.
    fn write_as(&self, who: &User, name: &str, text: &str, mode: u32) -> PathBuf {
        let file = self.dir(who).join(name);
        std::fs::write(&file, text).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        std::os::unix::fs::chown(&file, Some(who.uid), Some(who.gid)).unwrap();
        file
    }

    /// Waits until the queue is empty (every job done).
    fn wait_done(&self) {
        wait_for("every job to leave the queue", || {
            self.jobs(&["ClusterId"]).is_empty()
        });
    }
}

/// What `id` says of `who`, as the password and group databases have them.
fn id_of(who: &User) -> String {
    let mut text = String::new();
    for flag in ["-u", "-g", "-G"] {
        let out = std::process::Command::new("id")
            .args([flag, who.name])
            .output()
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&out.stdout));
    }
    text
}

#[test]
fn a_job_runs_as_its_owner_in_its_own_scratch_directory_and_environment() {
    if !root_or_skip("a_job_runs_as_its_owner_in_its_own_scratch_directory_and_environment") {
        return;
    }
    let mut env = TestEnvironment::new();
    // What the master's environment holds reaches no job.
    env.set_env("CLTEST_MASTERS_OWN", "secret");
    let pool = SystemPool::with_config(env, RUNNING);
    let alice = user(ALICE);
    pool.write_as(
        &alice,
        "job.sh",
        "#!/bin/sh\nid -u; id -g; id -G\nstat -c '%U %a' \"$_CONDOR_SCRATCH_DIR\"\n\
         echo \"HOME=$HOME\"\nenv | grep -c CLTEST_MASTERS_OWN\necho \"MINE=$MINE\"\n",
        0o755,
    );
    let cluster = pool.submit_as(
        &alice,
        &[("MINE", "from the submitter")],
        "executable = job.sh\noutput = job.out\nerror = job.err\n\
         should_transfer_files = NO\ngetenv = MINE\nqueue\n",
    );
    assert_eq!(cluster, "1");
    pool.wait_done();
    let out = std::fs::read_to_string(pool.dir(&alice).join("job.out")).unwrap();
    let home = nix::unistd::User::from_name(ALICE).unwrap().unwrap().dir;
    assert_eq!(
        out,
        format!(
            "{}{ALICE} 700\nHOME={}\n0\nMINE=from the submitter\n",
            id_of(&alice),
            home.display()
        ),
        "{}",
        std::fs::read_to_string(pool.dir(&alice).join("job.err")).unwrap_or_default()
    );
    // The standard files were made by her.
    let made = std::fs::metadata(pool.dir(&alice).join("job.out")).unwrap();
    assert_eq!(std::os::unix::fs::MetadataExt::uid(&made), alice.uid);
}

#[test]
fn a_job_may_not_write_its_output_where_its_owner_may_not() {
    if !root_or_skip("a_job_may_not_write_its_output_where_its_owner_may_not") {
        return;
    }
    let pool = SystemPool::running(RUNNING);
    let alice = user(ALICE);
    let target = format!("/etc/cltest-{}", std::process::id());
    pool.submit_as(
        &alice,
        &[],
        &format!(
            "executable = /bin/echo\narguments = written\noutput = {target}\n\
             should_transfer_files = NO\nqueue\n"
        ),
    );
    wait_for("the job to be held", || pool.jobs(&["JobStatus"]) == "5\n");
    assert_eq!(
        pool.jobs(&["HoldReasonCode", "HoldReasonSubCode"]),
        "7 13\n",
        "HTCondor's UnableToOpenOutput, errno EACCES"
    );
    let reason = pool.jobs(&["HoldReason"]);
    assert!(
        reason.contains(&format!(
            "Failed to open '{target}' as standard output: Permission denied (errno 13)"
        )),
        "{reason}"
    );
    assert!(!std::path::Path::new(&target).exists(), "nothing written");
}

#[test]
fn an_owner_with_no_account_is_held() {
    if !root_or_skip("an_owner_with_no_account_is_held") {
        return;
    }
    let pool = SystemPool::running(RUNNING);
    // Root, a queue superuser, queues a job for a user this machine does not know.
    let file = pool
        .env
        .write_file("job.sub", "executable = /bin/true\nqueue\n");
    let mut cmd = pool.env.command("condor_submit");
    cmd.env("_CONDOR_CONDORLITE_QUEUE_ACCESS", "master")
        .env("CONDORLITE_USER", "cltest-nobody-here")
        .arg(file.to_str().unwrap());
    assert_eq!(output(cmd).status, Some(0));
    wait_for("the job to be held", || pool.jobs(&["JobStatus"]) == "5\n");
    assert_eq!(
        pool.jobs(&["HoldReasonCode", "HoldReason"]),
        "23 Unable to switch to user: cltest-nobody-here\n"
    );
}

#[test]
fn a_jobs_daemonized_child_dies_with_the_job() {
    if !root_or_skip("a_jobs_daemonized_child_dies_with_the_job") {
        return;
    }
    let pool = SystemPool::running(RUNNING);
    let alice = user(ALICE);
    // A child that leaves the job's session and process group (setsid, a double fork),
    // and says who it is before the job ends.
    pool.write_as(
        &alice,
        "job.sh",
        "#!/bin/sh\nsetsid sh -c '(sleep 300 & echo $! > daemon.pid) &'\n\
         while [ ! -s daemon.pid ]; do sleep 0.05; done\n",
        0o755,
    );
    pool.submit_as(
        &alice,
        &[],
        "executable = job.sh\nshould_transfer_files = NO\nqueue\n",
    );
    pool.wait_done();
    let pid: i32 = std::fs::read_to_string(pool.dir(&alice).join("daemon.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    wait_for("the daemonized child to be gone", || {
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| !c.starts_with("sleep"))
    });
}

#[test]
fn fair_share_between_real_users_follows_their_factors() {
    if !root_or_skip("fair_share_between_real_users_follows_their_factors") {
        return;
    }
    let pool = SystemPool::running(&format!(
        "{RUNNING}PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n\
         MAXJOBRETIREMENTTIME = 0\n"
    ));
    let (alice, bob) = (user(ALICE), user(BOB));
    // Both queue 20 jobs held, then root releases them all at once: neither got there first.
    let jobs = "executable = /bin/sleep\narguments = 601\nhold = True\n\
                should_transfer_files = NO\nqueue 20\n";
    pool.submit_as(&alice, &[], jobs);
    pool.submit_as(&bob, &[], jobs);
    let out = pool.env.run("condor_release", ["-all"]);
    assert_eq!(out.status, Some(0), "{out}");
    let running = |who: &User| {
        pool.jobs(&["Owner", "JobStatus"])
            .lines()
            .filter(|l| *l == format!("{} 2", who.name))
            .count()
    };
    wait_for("two jobs each", || {
        running(&alice) == 2 && running(&bob) == 2
    });
    // Bob's factor three times Alice's (HTCondor 24.0's default, DEFAULT_PRIO_FACTOR, is
    // 1000): his share of the pool becomes a third of hers.
    let domain = pool.env.run("condor_config_val", ["UID_DOMAIN"]).stdout;
    let out = pool.env.run(
        "condor_userprio",
        ["-setfactor", &format!("{BOB}@{}", domain.trim()), "3000"],
    );
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("three to alice, one to bob", || {
        running(&alice) == 3 && running(&bob) == 1
    });
    // Each runs as its owner: the jobs' processes are theirs.
    let owners: std::collections::BTreeSet<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == b"/bin/sleep\x00601\x00")
        })
        .filter_map(|e| e.metadata().ok())
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
        .collect();
    assert_eq!(
        owners,
        [alice.uid, bob.uid].into(),
        "the jobs' processes' owners"
    );
    let out = pool.env.run("condor_rm", ["-all"]);
    assert_eq!(out.status, Some(0), "{out}");
    pool.wait_done();
}

#[test]
fn a_jobs_record_is_out_of_its_reach_and_a_killed_master_adopts_the_job() {
    if !root_or_skip("a_jobs_record_is_out_of_its_reach_and_a_killed_master_adopts_the_job") {
        return;
    }
    let mut pool = SystemPool::running(RUNNING);
    let alice = user(ALICE);
    pool.write_as(
        &alice,
        "job.sh",
        "#!/bin/sh\nls -A \"$_CONDOR_SCRATCH_DIR\" > seen.tmp && mv seen.tmp seen\n\
         while [ ! -e go ]; do sleep 0.05; done\necho done\n",
        0o755,
    );
    pool.submit_as(
        &alice,
        &[],
        "executable = job.sh\noutput = job.out\nshould_transfer_files = NO\nqueue\n",
    );
    let seen = pool.dir(&alice).join("seen");
    wait_for("the job to run", || seen.exists());
    // Its directory holds the ads, not its record: that is the daemon's, beside it.
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        ".chirp.config\n.job.ad\n.machine.ad\n"
    );
    let execute = pool.env.run("condor_config_val", ["EXECUTE"]).stdout;
    let records = std::path::Path::new(execute.trim()).join(".records");
    let meta = std::fs::metadata(&records).unwrap();
    assert_eq!(
        (
            std::os::unix::fs::MetadataExt::uid(&meta),
            meta.permissions().mode() & 0o777
        ),
        (0, 0o700)
    );
    let names: Vec<String> = std::fs::read_dir(&records)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(
        names.len() == 1 && names[0].starts_with("dir_1_0_"),
        "{names:?}"
    );
    // The master dies under the running job; the next adopts it by its record.
    pool.master.take().unwrap().kill();
    pool.master = Some(Master::start(&pool.env));
    std::fs::write(pool.dir(&alice).join("go"), "").unwrap();
    pool.wait_done();
    assert_eq!(
        std::fs::read_to_string(pool.dir(&alice).join("job.out")).unwrap(),
        "done\n"
    );
    let out = pool
        .env
        .run("condor_history", ["-af", "NumJobStarts", "ExitCode"]);
    assert_eq!(out.stdout, "1 0\n", "{out}");
}

#[test]
fn a_scheduler_universe_job_runs_as_its_owner() {
    if !root_or_skip("a_scheduler_universe_job_runs_as_its_owner") {
        return;
    }
    let pool = SystemPool::running(RUNNING);
    let alice = user(ALICE);
    pool.write_as(&alice, "job.sh", "#!/bin/sh\nid -u; id -g; id -G\n", 0o755);
    pool.submit_as(
        &alice,
        &[],
        "universe = scheduler\nexecutable = job.sh\noutput = sched.out\nqueue\n",
    );
    pool.wait_done();
    assert_eq!(
        std::fs::read_to_string(pool.dir(&alice).join("sched.out")).unwrap(),
        id_of(&alice)
    );
}
