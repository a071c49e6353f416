//! File transfer and event logs in a system pool: the root master transfers a job's files and
//! writes its logs with its owner's rights, and reads nothing out of the job's sandbox by a
//! name or a symbolic link that leads out of it. Each escape holds the job with HTCondor's
//! code and writes nothing outside. One test runs in a personal pool (no root needed): the
//! confinement holds in every pool.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use crate::common::TestEnvironment;
use crate::pool::{wait_for, Master};

use super::{output, root_or_skip, user, User, ALICE, BOB};

/// A system pool that runs jobs: a root master over a pool whose directory all may read,
/// each user's working directory theirs.
struct Pool {
    env: TestEnvironment,
    _master: Master,
}

impl Pool {
    fn start() -> Pool {
        let mut env = TestEnvironment::new();
        std::fs::set_permissions(env.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(env.config_file(), "NUM_CPUS = 2\nNEGOTIATOR_INTERVAL = 1\n").unwrap();
        // A system pool: its master works as each job's owner.
        env.remove_env("_CONDOR_CONDORLITE_RUN_AS_OWNER");
        env.set_env("_CONDOR_CONDORLITE_ALLOW_USER_SUBMIT", "True");
        for u in [user(ALICE), user(BOB)] {
            let dir = env.root().join(u.name);
            std::fs::create_dir(&dir).unwrap();
            std::os::unix::fs::chown(&dir, Some(u.uid), Some(u.gid)).unwrap();
        }
        let master = Master::start(&env);
        Pool {
            env,
            _master: master,
        }
    }

    fn dir(&self, who: &User) -> PathBuf {
        self.env.root().join(who.name)
    }

    /// Writes `text` as `who`'s file `name` (mode `mode`) in their directory.
    fn write_as(&self, who: &User, name: &str, text: &str, mode: u32) -> PathBuf {
        let file = self.dir(who).join(name);
        std::fs::write(&file, text).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        std::os::unix::fs::chown(&file, Some(who.uid), Some(who.gid)).unwrap();
        file
    }

    /// Submits `text` as `who`, from their directory; the cluster.
    fn submit_as(&self, who: &User, text: &str) -> String {
        self.write_as(who, "job.sub", text, 0o644);
        let mut cmd = self.env.command("condor_submit");
        cmd.args(["-terse", "job.sub"])
            .current_dir(self.dir(who))
            .env("HOME", self.dir(who))
            .uid(who.uid)
            .gid(who.gid);
        let out = output(cmd);
        assert_eq!(out.status, Some(0), "{out}");
        out.stdout.split('.').next().unwrap().trim().to_owned()
    }

    /// Waits until job `cluster`.0 is held or has left the queue: `done`, or `held <code>
    /// <subcode>` and the hold reason.
    fn outcome(&self, cluster: &str) -> (String, String) {
        let mut seen = None;
        wait_for(&format!("job {cluster}.0 to be held or done"), || {
            let out = self.env.run(
                "condor_q",
                [
                    cluster,
                    "-allusers",
                    "-af",
                    "JobStatus",
                    "HoldReasonCode",
                    "HoldReasonSubCode",
                    "HoldReason",
                ],
            );
            let line = out.stdout.trim().to_owned();
            if line.is_empty() {
                seen = Some(("done".to_owned(), String::new()));
            } else if let Some(rest) = line.strip_prefix("5 ") {
                let mut words = rest.splitn(3, ' ');
                let (code, sub) = (words.next().unwrap(), words.next().unwrap());
                seen = Some((
                    format!("held {code} {sub}"),
                    words.next().unwrap().to_owned(),
                ));
            }
            seen.is_some()
        });
        seen.unwrap()
    }
}

/// A job of `/bin/sh -c script` that transfers files, with `extra` submit lines.
fn job(script: &str, extra: &str) -> String {
    format!(
        "executable = /bin/sh\narguments = \"-c '{script}'\"\ntransfer_executable = false\n\
         should_transfer_files = YES\n{extra}queue\n"
    )
}

fn uid_of(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().uid()
}

#[test]
fn a_transfer_in_a_system_pool_is_done_as_the_jobs_owner() {
    if !root_or_skip("a_transfer_in_a_system_pool_is_done_as_the_jobs_owner") {
        return;
    }
    let pool = Pool::start();
    let alice = user(ALICE);
    pool.write_as(&alice, "in.txt", "hers\n", 0o600);
    let cluster = pool.submit_as(
        &alice,
        &job(
            "cat in.txt > out.txt; echo done",
            "transfer_input_files = in.txt\noutput = job.out\nlog = job.log\n",
        ),
    );
    assert_eq!(pool.outcome(&cluster).0, "done");
    let dir = pool.dir(&alice);
    assert_eq!(
        std::fs::read_to_string(dir.join("out.txt")).unwrap(),
        "hers\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("job.out")).unwrap(),
        "done\n"
    );
    for name in ["out.txt", "job.out", "job.log"] {
        assert_eq!(uid_of(&dir.join(name)), alice.uid, "{name} is alice's");
    }
    // The events are written after the job's end is committed: waited for.
    wait_for("the job's terminated event", || {
        std::fs::read_to_string(dir.join("job.log")).is_ok_and(|log| log.contains("005 ("))
    });
    let log = std::fs::read_to_string(dir.join("job.log")).unwrap();
    for event in ["000 (", "001 ("] {
        assert!(log.contains(event), "{event} in {log}");
    }
}

#[test]
fn every_escape_is_refused_and_nothing_is_written_outside() {
    if !root_or_skip("every_escape_is_refused_and_nothing_is_written_outside") {
        return;
    }
    let pool = Pool::start();
    let (alice, bob) = (user(ALICE), user(BOB));
    // Root's secret, beside the pool's directory.
    let secret = pool.env.root().join("secret.txt");
    std::fs::write(&secret, "root's\n").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let etc = format!("/etc/cltest-xfer-{}", std::process::id());
    let bobs = pool.dir(&bob).join("stolen.txt");
    let (s, b) = (secret.display(), bobs.display());
    let eperm = format!("held 12 {}", libc::EPERM);
    let eacces = format!("held 12 {}", libc::EACCES);
    let cases: Vec<(&str, String, String, &str)> = vec![
        // Out of the sandbox by name: `..`, or absolute.
        (
            "../",
            job("true", "transfer_output_files = ../../../secret.txt\n"),
            eperm.clone(),
            "Attempt to read from illegal sandbox path",
        ),
        (
            "absolute name",
            job("true", &format!("transfer_output_files = {s}\n")),
            eperm.clone(),
            "Attempt to read from illegal sandbox path",
        ),
        // A link the job made.
        (
            "link out",
            job(&format!("ln -s {s} out.txt"), ""),
            eperm.clone(),
            "(a symbolic link out of the sandbox)",
        ),
        // Where alice may not write: a remap into /etc or into bob's directory, `output`.
        (
            "remap into /etc",
            job(
                "echo x > out.txt",
                &format!("transfer_output_remaps = \"out.txt = {etc}\"\n"),
            ),
            eacces.clone(),
            "Permission denied",
        ),
        (
            "remap into bob's",
            job(
                "echo x > out.txt",
                &format!("transfer_output_remaps = \"out.txt = {b}\"\n"),
            ),
            eacces.clone(),
            "Permission denied",
        ),
        (
            "output into /etc",
            job("echo x", &format!("output = {etc}\n")),
            eacces.clone(),
            "Permission denied",
        ),
        (
            "error into bob's",
            job("echo x >&2", &format!("error = {b}\n")),
            eacces.clone(),
            "Permission denied",
        ),
        // A link planted in the Iwd, to a file alice may not read.
        (
            "planted link",
            job(
                "cat in.txt > copy.txt",
                "transfer_input_files = planted.txt\n",
            ),
            format!("held 13 {}", libc::EACCES),
            "Permission denied",
        ),
        // Event logs where alice may not write.
        (
            "log into /etc",
            job("true", &format!("log = {etc}.log\n")),
            "held 22 0".to_owned(),
            "Failed to initialize user log",
        ),
        (
            "log into bob's",
            job("true", &format!("log = {b}.log\n")),
            "held 22 0".to_owned(),
            "Failed to initialize user log",
        ),
    ];
    std::os::unix::fs::symlink(&secret, pool.dir(&alice).join("planted.txt")).unwrap();
    std::os::unix::fs::lchown(
        pool.dir(&alice).join("planted.txt"),
        Some(alice.uid),
        Some(alice.gid),
    )
    .unwrap();
    for (what, text, held, reason) in &cases {
        let cluster = pool.submit_as(&alice, text);
        let (outcome, why) = pool.outcome(&cluster);
        assert_eq!(&outcome, held, "{what}: {why}");
        assert!(why.contains(reason), "{what}: {why}");
    }
    // Nothing written outside: not in /etc, not in bob's directory, no copy of the secret.
    for p in [
        PathBuf::from(&etc),
        PathBuf::from(format!("{etc}.log")),
        bobs.clone(),
        PathBuf::from(format!("{b}.log")),
    ] {
        assert!(!p.exists(), "{} was written", p.display());
    }
    assert_eq!(
        std::fs::read_dir(pool.dir(&bob)).unwrap().count(),
        0,
        "bob's directory is untouched"
    );
    for entry in std::fs::read_dir(pool.dir(&alice)).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        if entry.file_type().unwrap().is_file() {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                !text.contains("root's"),
                "{} has the secret",
                path.display()
            );
        }
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "root's\n");
}

/// In a personal pool (no root needed): a job's link out of its sandbox and a name that
/// climbs out of it hold the job, and nothing of what they name is copied.
#[test]
fn transfer_confinement_holds_in_a_personal_pool() {
    let env = TestEnvironment::new();
    std::fs::write(env.config_file(), "NUM_CPUS = 2\nNEGOTIATOR_INTERVAL = 1\n").unwrap();
    let secret = env.root().join("secret.txt");
    std::fs::write(&secret, "mine, elsewhere\n").unwrap();
    let _master = Master::start(&env);
    let submit = |text: &str| {
        let file = env.write_file("job.sub", text);
        let out = env.run("condor_submit", ["-terse", file.to_str().unwrap()]);
        assert_eq!(out.status, Some(0), "{out}");
        out.stdout.split('.').next().unwrap().trim().to_owned()
    };
    let held = |cluster: &str| {
        let mut seen = String::new();
        wait_for(&format!("job {cluster}.0 to be held"), || {
            let out = env.run(
                "condor_q",
                [
                    cluster,
                    "-af",
                    "JobStatus",
                    "HoldReasonCode",
                    "HoldReasonSubCode",
                ],
            );
            seen = out.stdout.trim().to_owned();
            seen.starts_with("5 ") || seen.is_empty()
        });
        seen
    };
    let link = submit(&job(&format!("ln -s {} out.txt", secret.display()), ""));
    let climb = submit(&job(
        "true",
        "transfer_output_files = ../../../secret.txt\n",
    ));
    for cluster in [link, climb] {
        assert_eq!(held(&cluster), format!("5 12 {}", libc::EPERM));
    }
    assert!(!env.work_dir().join("out.txt").exists());
    assert!(!env.work_dir().join("secret.txt").exists());
}
