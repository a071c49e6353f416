//! The starter against real processes: `/bin/sh` scripts, `/bin/true`, `/bin/sleep`.
//!
//! Every test works in its own temporary directory (an `Iwd` and an `$(EXECUTE)`), never
//! sleeps blindly (it waits on conditions, with a deadline) and leaves no process behind.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::classad::{ClassAd, Expr, Value};
use crate::config::Config;
use crate::submit::argenv::append_arg;

use super::*;

/// A configuration from `text` (plus condorlite's defaults), for a personal pool: jobs run
/// as the test's user even when it is root (their owners are no accounts).
fn config(text: &str) -> Config {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{}= False\n{text}", super::identity::RUN_AS_OWNER_KNOB);
    Config::for_test(&text, "STARTD", None, dir.path())
}

/// One test's world: an `Iwd`, an execute directory, a slot and a configuration.
struct Pool {
    _dir: tempfile::TempDir,
    iwd: PathBuf,
    execute: PathBuf,
    slot: ClassAd,
    slot_env: Vec<(String, String)>,
    config: Config,
}

impl Pool {
    fn new() -> Pool {
        Pool::with_config("FILESYSTEM_DOMAIN = test.domain\n")
    }

    fn with_config(text: &str) -> Pool {
        let dir = tempfile::tempdir().unwrap();
        let iwd = dir.path().join("iwd");
        std::fs::create_dir(&iwd).unwrap();
        let execute = dir.path().join("execute");
        let mut slot = ClassAd::new();
        slot.insert("Name", Expr::lit("slot1@testhost"));
        slot.insert("Cpus", Expr::lit(2));
        slot.insert("Memory", Expr::lit(1024));
        Pool {
            iwd,
            execute,
            slot,
            slot_env: vec![("_CONDOR_AssignedGPUs".into(), "GPU-0".into())],
            config: config(text),
            _dir: dir,
        }
    }

    /// A job ad: the attributes condor_submit always sets, then `attrs`.
    fn job(&self, cmd: &str, attrs: &[(&str, Expr)]) -> ClassAd {
        let mut ad = ClassAd::new();
        ad.insert("ClusterId", Expr::lit(7));
        ad.insert("ProcId", Expr::lit(0));
        ad.insert("Cmd", Expr::lit(cmd));
        ad.insert("Iwd", Expr::lit(self.iwd.to_string_lossy().into_owned()));
        ad.insert("In", Expr::lit("/dev/null"));
        ad.insert("Out", Expr::lit("/dev/null"));
        ad.insert("Err", Expr::lit("/dev/null"));
        ad.insert("ShouldTransferFiles", Expr::lit("IF_NEEDED"));
        ad.insert("FileSystemDomain", Expr::lit("test.domain"));
        ad.insert("ImageSize", Expr::lit(1));
        for (name, e) in attrs {
            ad.insert(name, e.clone());
        }
        ad
    }

    /// The access point's name in transfer messages.
    fn ap(&self) -> String {
        self.config.string("HOSTNAME").unwrap().unwrap()
    }

    fn start(&self, job: &ClassAd) -> Result<RunningJob, StartFailure> {
        start(&StartRequest {
            job,
            slot: &self.slot,
            slot_env: &self.slot_env,
            execute_dir: &self.execute,
            config: &self.config,
        })
    }

    /// A job whose process could not exec: it starts (the daemon does not wait for the
    /// exec), and its end says why it never ran, as the hold the shadow puts it on.
    fn exec_failure(&self, job: &ClassAd) -> StartFailure {
        let r = self.run(job);
        let n = r
            .not_started
            .clone()
            .unwrap_or_else(|| panic!("the job's process did not exec: {r:?}"));
        let hold = r.hold.expect("a job that never ran is held");
        assert_eq!(
            hold.reason,
            format!("Error from {}: {}", n.execute_host, n.message)
        );
        // No exit of the job's: its process never was the job.
        assert!(!r.updates.iter().any(|(name, _)| name.starts_with("Exit")));
        hold
    }

    /// Starts, waits for and finishes a job.
    fn run(&self, job: &ClassAd) -> JobResult {
        let running = self.start(job).unwrap_or_else(|f| panic!("{f:?}"));
        let exit = wait_with_deadline(&running, Duration::from_secs(20));
        running.finish(exit)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.iwd.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.iwd.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }

    /// The names left in the execute directory.
    fn execute_entries(&self) -> Vec<String> {
        match std::fs::read_dir(&self.execute) {
            Ok(rd) => rd
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(_) => Vec::new(),
        }
    }
}

fn s(v: &str) -> Expr {
    Expr::lit(v)
}

/// `Arguments` in the V2 raw form for these words.
fn v2_args(words: &[&str]) -> Expr {
    let mut raw = String::new();
    for w in words {
        append_arg(w, &mut raw);
    }
    Expr::lit(raw)
}

/// Runs `script` with `/bin/sh -c`.
fn sh(script: &str) -> Expr {
    v2_args(&["-c", script])
}

/// [`wait`] on a thread; past the deadline the job's group is killed and the test fails.
fn wait_with_deadline(job: &RunningJob, deadline: Duration) -> RawExit {
    let pid = job.pid;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(wait_exited(pid));
    });
    match rx.recv_timeout(deadline) {
        Ok(r) => {
            r.unwrap();
            job.collect().unwrap()
        }
        Err(_) => {
            let _ = job.hard_kill();
            let _ = rx.recv_timeout(Duration::from_secs(10));
            panic!("job {pid} did not exit within {deadline:?}");
        }
    }
}

/// Polls `cond` until it holds, failing the test after `secs` seconds.
fn wait_until(what: &str, secs: u64, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(secs);
    while !cond() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether a process is gone (or a zombie nobody has reaped yet: it no longer runs).
fn process_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

fn update<'r>(r: &'r JobResult, name: &str) -> Option<&'r Expr> {
    r.updates.iter().find(|(n, _)| n == name).map(|(_, e)| e)
}

fn update_value(r: &JobResult, name: &str) -> Value {
    update(r, name)
        .and_then(Expr::as_literal)
        .cloned()
        .unwrap_or_else(|| panic!("no literal update {name}: {:?}", r.updates))
}

fn env_lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn exit_codes_and_usage() {
    let pool = Pool::new();
    let r = pool.run(&pool.job("/bin/true", &[]));
    assert_eq!(r.exit, JobExit::Code(0));
    assert!(r.hold.is_none() && !r.killed);
    assert_eq!(update_value(&r, "ExitCode").as_int(), Some(0));
    assert_eq!(update_value(&r, "ExitBySignal").as_bool(), Some(false));
    assert!(update(&r, "ExitSignal").is_none());
    assert!(update_value(&r, "RemoteUserCpu").as_number_real().is_some());
    assert!(update_value(&r, "RemoteSysCpu").as_number_real().is_some());
    assert!(r.usage.max_rss_kib > 0);
    // The shadow keeps the largest image size; the submitted 1 KiB is smaller.
    assert_eq!(
        update_value(&r, "ImageSize").as_int(),
        Some(r.usage.max_rss_kib)
    );
    assert_eq!(
        update_value(&r, "ResidentSetSize").as_int(),
        Some(r.usage.max_rss_kib)
    );
    // No transfer: no DiskUsage report, no bytes moved.
    assert!(update(&r, "DiskUsage").is_none());
    assert_eq!(update_value(&r, "BytesSent").as_number_real(), Some(0.0));
    // The starter's MEMORY_USAGE_METRIC, an expression over the job's ResidentSetSize
    // (VanillaProc::PublishUpdateAd), and the slot's CpusUsage.
    let memory = update(&r, "MemoryUsage").expect("MemoryUsage");
    assert_eq!(
        crate::classad::unparse::expr_to_old_string(memory),
        "((ResidentSetSize + 1023) / 1024)"
    );
    let mut ad = ClassAd::new();
    ad.insert("ResidentSetSize", Expr::lit(r.usage.max_rss_kib));
    ad.insert("MemoryUsage", memory.clone());
    assert_eq!(
        ad.eval_attr("MemoryUsage").as_int(),
        Some((r.usage.max_rss_kib + 1023) / 1024)
    );
    let cpus = update_value(&r, "CpusUsage").as_number_real();
    assert!(cpus.is_some_and(|c| c >= 0.0), "{cpus:?}");

    let r = pool.run(&pool.job("/bin/sh", &[("Arguments", sh("exit 3"))]));
    assert_eq!(r.exit, JobExit::Code(3));
    assert_eq!(update_value(&r, "ExitCode").as_int(), Some(3));
    // Scratch directories are gone after finish.
    assert!(
        pool.execute_entries().is_empty(),
        "{:?}",
        pool.execute_entries()
    );
}

#[test]
fn signals() {
    let pool = Pool::new();
    let r = pool.run(&pool.job("/bin/sh", &[("Arguments", sh("kill -USR1 $$"))]));
    assert_eq!(
        r.exit,
        JobExit::Signal {
            signal: libc::SIGUSR1,
            core: false
        }
    );
    assert_eq!(update_value(&r, "ExitBySignal").as_bool(), Some(true));
    assert_eq!(
        update_value(&r, "ExitSignal").as_int(),
        Some(libc::SIGUSR1 as i64)
    );
    assert_eq!(
        update_value(&r, "ExitReason").as_str(),
        Some("died on signal 10 (User defined signal 1)")
    );
    assert!(update(&r, "ExitCode").is_none());
    assert!(update(&r, "JobCoreDumped").is_none());
    assert_eq!(signal_number("sigint"), Some(libc::SIGINT));
    assert_eq!(signal_number("INT"), None);
    assert_eq!(signal_name(libc::SIGTERM), Some("SIGTERM"));
}

#[test]
fn arguments_in_both_syntaxes() {
    let pool = Pool::new();
    let job = pool.job(
        "/bin/sh",
        &[
            (
                "Arguments",
                v2_args(&[
                    "-c",
                    "printf '[%s]' \"$@\"",
                    "sh",
                    "one",
                    "two words",
                    "",
                    "it's",
                ]),
            ),
            ("Out", s("v2.out")),
        ],
    );
    assert_eq!(pool.run(&job).exit, JobExit::Code(0));
    assert_eq!(pool.read("v2.out"), "[one][two words][][it's]");

    // V1: split on whitespace, nothing else.
    let job = pool.job(
        "/bin/echo",
        &[
            ("Args", s("one  two\tthree \"four\"")),
            ("Out", s("v1.out")),
        ],
    );
    assert_eq!(pool.run(&job).exit, JobExit::Code(0));
    assert_eq!(pool.read("v1.out"), "one two three \"four\"\n");

    // Arguments wins over Args; a relative Cmd is found in the Iwd.
    pool.write("script.sh", "#!/bin/sh\necho \"$0:$1\"\n");
    std::fs::set_permissions(
        pool.iwd.join("script.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let job = pool.job(
        "script.sh",
        &[
            ("Arguments", s("new")),
            ("Args", s("old")),
            ("Out", s("rel.out")),
        ],
    );
    assert_eq!(pool.run(&job).exit, JobExit::Code(0));
    assert_eq!(
        pool.read("rel.out"),
        format!("{}:new\n", pool.iwd.join("script.sh").display())
    );
}

#[test]
fn environment() {
    let pool = Pool::with_config(
        "FILESYSTEM_DOMAIN = test.domain\nSTARTER_JOB_ENVIRONMENT = \"FROM_CONFIG=yes OVERRIDDEN=config\"\n",
    );
    let job = pool.job(
        "/usr/bin/env",
        &[
            (
                "Environment",
                s("FOO=bar 'SPACED=a b' OVERRIDDEN=job OMP_NUM_THREADS=7 TMPDIR=/nope"),
            ),
            ("Out", s("env.out")),
        ],
    );
    let running = pool.start(&job).unwrap();
    let scratch = running.scratch_dir.clone();
    assert!(scratch.starts_with(&pool.execute));
    assert!(scratch
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("dir_7_0_"));
    // The ads are in the scratch directory while the job runs.
    let job_ad = std::fs::read_to_string(scratch.join(".job.ad")).unwrap();
    assert!(job_ad.contains("ClusterId = 7\n"), "{job_ad}");
    let machine_ad = std::fs::read_to_string(scratch.join(".machine.ad")).unwrap();
    assert!(
        machine_ad.contains("Name = \"slot1@testhost\"\n"),
        "{machine_ad}"
    );
    let exit = wait_with_deadline(&running, Duration::from_secs(20));
    assert_eq!(running.finish(exit).exit, JobExit::Code(0));

    let text = pool.read("env.out");
    let lines = env_lines(&text);
    let scratch = scratch.to_string_lossy();
    let has = |line: &str| lines.contains(&line);
    for expected in [
        "FOO=bar".to_string(),
        "SPACED=a b".into(),
        "FROM_CONFIG=yes".into(),
        "OVERRIDDEN=job".into(),
        "OMP_NUM_THREADS=7".into(),
        "MKL_NUM_THREADS=2".into(),
        "BATCH_SYSTEM=HTCondor".into(),
        format!("_CONDOR_SCRATCH_DIR={scratch}"),
        format!("TMPDIR={scratch}"),
        format!("TMP={scratch}"),
        format!("TEMP={scratch}"),
        "_CONDOR_SLOT=slot1".into(),
        format!("_CONDOR_JOB_AD={scratch}/.job.ad"),
        format!("_CONDOR_MACHINE_AD={scratch}/.machine.ad"),
        format!("_CONDOR_JOB_IWD={}", pool.iwd.display()),
        "_CONDOR_JOB_PIDS=".into(),
        "_CONDOR_AssignedGPUs=GPU-0".into(),
        "_CHIRP_DELAYED_UPDATE_PREFIX=Chirp*".into(),
        format!("_CONDOR_CHIRP_CONFIG={scratch}/.chirp.config"),
    ] {
        assert!(has(&expected), "missing {expected} in:\n{text}");
    }
    // The daemon's own environment is not inherited by default.
    assert!(!lines.iter().any(|l| l.starts_with("PATH=")), "{text}");
    assert!(
        !lines.iter().any(|l| l.starts_with("CARGO_PKG_NAME=")),
        "{text}"
    );

    // The old syntax, with its delimiter.
    let job = pool.job(
        "/usr/bin/env",
        &[
            ("Env", s("A=1|B=two words")),
            ("EnvDelim", s("|")),
            ("Out", s("env1.out")),
        ],
    );
    pool.run(&job);
    let text = pool.read("env1.out");
    assert!(env_lines(&text).contains(&"A=1") && env_lines(&text).contains(&"B=two words"));

    // A malformed environment does not start.
    let job = pool.job("/usr/bin/env", &[("Environment", s("'unbalanced"))]);
    let f = pool.start(&job).unwrap_err();
    assert_eq!(f.code, hold_codes::JOB_NOT_STARTED);
    assert!(f.is_vacate());
}

#[test]
fn inheriting_the_starter_environment() {
    let inherit = |setting: &str| {
        let pool = Pool::with_config(&format!(
            "FILESYSTEM_DOMAIN = test.domain\nJOB_INHERITS_STARTER_ENVIRONMENT = {setting}\n"
        ));
        let job = pool.job(
            "/usr/bin/env",
            &[("Environment", s("FOO=job")), ("Out", s("env.out"))],
        );
        pool.run(&job);
        let text = pool.read("env.out");
        let mut names: Vec<String> = text
            .lines()
            .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_owned()))
            .collect();
        names.sort();
        (text, names)
    };
    // What the test process has that the starter does not set itself, one line each.
    let (_, starter_only) = inherit("false");
    let own: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, v)| !v.contains('\n') && !starter_only.contains(k) && k != "FOO")
        .collect();
    // One to pick out by name: a plain name no other differs from only in case (the
    // filter's names are case-insensitive).
    let plain = |k: &str| {
        k.starts_with(|c: char| c.is_ascii_alphabetic())
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !["true", "false"].contains(&k.to_ascii_lowercase().as_str())
            && own
                .iter()
                .filter(|(o, _)| o.eq_ignore_ascii_case(k))
                .count()
                == 1
    };
    let Some((first, first_value)) = own.iter().find(|(k, _)| plain(k)).cloned() else {
        return;
    };

    let (all, _) = inherit("true");
    for (k, v) in &own {
        assert!(
            all.lines().any(|l| *l == format!("{k}={v}")),
            "{k} in:\n{all}"
        );
    }
    assert!(all.lines().any(|l| l == "FOO=job"), "{all}");

    let (one, names) = inherit(&first);
    assert!(
        one.lines().any(|l| *l == format!("{first}={first_value}")),
        "{one}"
    );
    let mut expected = starter_only.clone();
    expected.push(first.clone());
    expected.sort();
    assert_eq!(names, expected);

    let (but_one, names) = inherit(&format!("*, !{first}"));
    assert!(!names.contains(&first), "{but_one}");
    assert_eq!(names.len(), starter_only.len() + own.len() - 1, "{but_one}");
}

#[test]
fn standard_files_without_transfer() {
    let pool = Pool::new();
    pool.write("in.txt", "hello\n");
    let script = "read x; echo \"out:$x\"; echo \"err:$x\" >&2; echo \"$PWD\"";
    let job = pool.job(
        "/bin/sh",
        &[
            ("Arguments", sh(script)),
            ("In", s("in.txt")),
            ("Out", s("out.txt")),
            ("Err", s("err.txt")),
            ("ShouldTransferFiles", s("NO")),
        ],
    );
    let r = pool.run(&job);
    assert_eq!(r.exit, JobExit::Code(0));
    assert_eq!(
        pool.read("out.txt"),
        format!("out:hello\n{}\n", pool.iwd.display())
    );
    assert_eq!(pool.read("err.txt"), "err:hello\n");

    // One file for both.
    let job = pool.job(
        "/bin/sh",
        &[
            ("Arguments", sh("echo one; echo two >&2; echo three")),
            ("Out", s("both.txt")),
            ("Err", s("both.txt")),
        ],
    );
    pool.run(&job);
    assert_eq!(pool.read("both.txt"), "one\ntwo\nthree\n");

    // Absolute paths are used as they are.
    let abs = pool.iwd.join("abs.out");
    let job = pool.job(
        "/bin/echo",
        &[
            ("Args", s("absolute")),
            ("Out", Expr::lit(abs.to_string_lossy().into_owned())),
        ],
    );
    pool.run(&job);
    assert_eq!(pool.read("abs.out"), "absolute\n");
}

#[test]
fn standard_files_with_transfer() {
    let pool = Pool::new();
    pool.write("in.txt", "hello\n");
    let script = "read x; echo \"out:$x\"; echo \"err:$x\" >&2; echo \"$PWD\"";
    let job = pool.job(
        "/bin/sh",
        &[
            ("Arguments", sh(script)),
            ("In", s("in.txt")),
            ("Out", s("logs/out.txt")),
            ("Err", s("err.txt")),
            ("ShouldTransferFiles", s("YES")),
            ("TransferExecutable", Expr::lit(false)),
        ],
    );
    let running = pool.start(&job).unwrap();
    let scratch = running.scratch_dir.clone();
    assert_eq!(running.job_iwd, scratch);
    // The job ad the job sees has the sandbox names.
    let job_ad = std::fs::read_to_string(scratch.join(".job.ad")).unwrap();
    assert!(job_ad.contains("Out = \"_condor_stdout\"\n"), "{job_ad}");
    assert!(job_ad.contains("Err = \"_condor_stderr\"\n"), "{job_ad}");
    assert!(
        job_ad.contains(&format!("Iwd = \"{}\"\n", scratch.display())),
        "{job_ad}"
    );
    let exit = wait_with_deadline(&running, Duration::from_secs(20));
    let r = running.finish(exit);
    assert_eq!(r.exit, JobExit::Code(0));
    assert!(r.hold.is_none(), "{:?}", r.hold);
    // Ran in the scratch directory; Out's directory was made.
    assert_eq!(
        pool.read("logs/out.txt"),
        format!("out:hello\n{}\n", scratch.display())
    );
    assert_eq!(pool.read("err.txt"), "err:hello\n");
    // The input (in.txt) and output (both files) bytes, from the job's point of view.
    assert_eq!(r.usage.bytes_recvd, 6.0);
    let sent = 10.0 + scratch.to_string_lossy().len() as f64 + 1.0 + 10.0;
    assert_eq!(r.usage.bytes_sent, sent);
    assert_eq!(update_value(&r, "BytesSent").as_number_real(), Some(sent));
    assert_eq!(update_value(&r, "BytesRecvd").as_number_real(), Some(6.0));
    assert!(update_value(&r, "DiskUsage").as_int().unwrap() > 0);
    assert!(!scratch.exists());

    // Streamed output goes straight to the final file; Out = Err shares _condor_stdout.
    let job = pool.job(
        "/bin/sh",
        &[
            ("Arguments", sh("echo streamed; echo shared >&2")),
            ("Out", s("streamed.txt")),
            ("StreamOut", Expr::lit(true)),
            ("Err", s("err2.txt")),
            ("ShouldTransferFiles", s("YES")),
            ("TransferExecutable", Expr::lit(false)),
        ],
    );
    pool.run(&job);
    assert_eq!(pool.read("streamed.txt"), "streamed\n");
    assert_eq!(pool.read("err2.txt"), "shared\n");
    let job = pool.job(
        "/bin/sh",
        &[
            ("Arguments", sh("echo one; echo two >&2")),
            ("Out", s("same.txt")),
            ("Err", s("same.txt")),
            ("ShouldTransferFiles", s("YES")),
            ("TransferExecutable", Expr::lit(false)),
        ],
    );
    pool.run(&job);
    assert_eq!(pool.read("same.txt"), "one\ntwo\n");
}

#[test]
fn if_needed_transfers_only_across_filesystem_domains() {
    let pool = Pool::new();
    let job = pool.job(
        "/bin/sh",
        &[
            ("Arguments", sh("echo \"$PWD\"")),
            ("Out", s("pwd.txt")),
            ("FileSystemDomain", s("elsewhere.org")),
            ("TransferExecutable", Expr::lit(false)),
        ],
    );
    let running = pool.start(&job).unwrap();
    let scratch = running.scratch_dir.clone();
    let exit = wait_with_deadline(&running, Duration::from_secs(20));
    running.finish(exit);
    assert_eq!(pool.read("pwd.txt"), format!("{}\n", scratch.display()));
}

#[test]
fn input_and_output_transfer_with_remaps() {
    let pool = Pool::new();
    pool.write("data.txt", "data\n");
    pool.write("untouched.txt", "same\n");
    pool.write("indir/a.txt", "a\n");
    pool.write("contents/b.txt", "b\n");
    pool.write(
        "job.sh",
        "#!/bin/sh\n\
         test -f data.txt && test -f indir/a.txt && test -f b.txt && test -f untouched.txt || exit 9\n\
         test -x job.sh || exit 8\n\
         echo new > new.txt\n\
         echo more >> data.txt\n\
         echo x > indir/x.txt\n",
    );
    let job = pool.job(
        "job.sh",
        &[
            ("ShouldTransferFiles", s("YES")),
            (
                "TransferInput",
                s("data.txt, untouched.txt,indir , contents/"),
            ),
            (
                "TransferOutputRemaps",
                s("new.txt = renamed.txt; data.txt=out/data.txt"),
            ),
        ],
    );
    let r = pool.run(&job);
    assert_eq!(r.exit, JobExit::Code(0));
    assert!(r.hold.is_none(), "{:?}", r.hold);
    assert_eq!(pool.read("renamed.txt"), "new\n");
    assert_eq!(pool.read("out/data.txt"), "data\nmore\n");
    assert_eq!(pool.read("data.txt"), "data\n");
    // Unchanged files, directories and the executable do not come back.
    assert!(!pool.iwd.join("b.txt").exists());
    assert!(!pool.iwd.join("new.txt").exists());
    assert!(!pool.iwd.join("indir/x.txt").exists());
    let input_bytes =
        (5 + 5 + 2 + 2) as f64 + std::fs::metadata(pool.iwd.join("job.sh")).unwrap().len() as f64;
    assert_eq!(r.usage.bytes_recvd, input_bytes);
    assert_eq!(r.usage.bytes_sent, (4 + 10) as f64);

    // An explicit list: what it names, and a missing name holds the job.
    let job = pool.job(
        "/bin/sh",
        &[
            (
                "Arguments",
                sh("echo listed > listed.txt; echo other > other.txt"),
            ),
            ("ShouldTransferFiles", s("YES")),
            ("TransferExecutable", Expr::lit(false)),
            ("TransferOutput", s("listed.txt, missing.txt")),
        ],
    );
    let running = pool.start(&job).unwrap();
    let scratch = running.scratch_dir.clone();
    let exit = wait_with_deadline(&running, Duration::from_secs(20));
    let r = running.finish(exit);
    assert_eq!(r.exit, JobExit::Code(0));
    assert_eq!(pool.read("listed.txt"), "listed\n");
    assert!(!pool.iwd.join("other.txt").exists());
    let hold = r.hold.expect("a missing output file holds the job");
    assert_eq!(hold.code, 12);
    assert_eq!(hold.subcode, 2);
    assert_eq!(
        hold.reason,
        format!(
            "Transfer output files failure at execution point slot1@testhost while sending \
             files to access point {}. Details: reading from file {}/missing.txt: (errno 2) \
             No such file or directory",
            pool.ap(),
            scratch.display()
        )
    );

    // A missing input file.
    let job = pool.job(
        "/bin/true",
        &[
            ("ShouldTransferFiles", s("YES")),
            ("TransferExecutable", Expr::lit(false)),
            ("TransferInput", s("nope.txt")),
        ],
    );
    let f = pool.start(&job).unwrap_err();
    assert_eq!((f.code, f.subcode), (13, 2));
    assert_eq!(
        f.reason,
        format!(
            "Transfer input files failure at access point {} while sending files to \
             execution point slot1@testhost. Details: reading from file {}/nope.txt: (errno 2) \
             No such file or directory",
            pool.ap(),
            pool.iwd.display()
        )
    );
    assert!(pool.execute_entries().is_empty());
}

#[test]
fn start_failures() {
    let pool = Pool::new();
    let f = pool.exec_failure(&pool.job("/nonexistent/prog", &[]));
    assert_eq!(
        f,
        StartFailure {
            reason: "Error from slot1@testhost: Failed to execute '/nonexistent/prog': \
                     (errno=2: 'No such file or directory')"
                .into(),
            code: 6,
            subcode: 2,
        }
    );
    assert!(!f.is_vacate());
    let f = pool.exec_failure(&pool.job("/nonexistent/prog", &[("Arguments", s("a 'b c'"))]));
    assert_eq!(
        f.reason,
        "Error from slot1@testhost: Failed to execute '/nonexistent/prog' with arguments \
         a b' 'c: (errno=2: 'No such file or directory')"
    );

    pool.write("noexec", "#!/bin/sh\n");
    let f = pool.exec_failure(&pool.job("noexec", &[]));
    assert_eq!((f.code, f.subcode), (6, 13));
    assert!(
        f.reason.ends_with("(errno=13: 'Permission denied')"),
        "{}",
        f.reason
    );

    pool.write("badinterp", "#!/no/such/interpreter -x\n");
    std::fs::set_permissions(
        pool.iwd.join("badinterp"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let f = pool.exec_failure(&pool.job("badinterp", &[]));
    assert_eq!(
        f.reason,
        format!(
            "Error from slot1@testhost: Failed to execute '{}/badinterp': invalid interpreter \
             (/no/such/interpreter) specified on first line of script (errno=2: 'No such file \
             or directory')",
            pool.iwd.display()
        )
    );

    let f = pool
        .start(&pool.job("/bin/true", &[("In", s("nope.txt"))]))
        .unwrap_err();
    assert_eq!(
        f,
        StartFailure {
            reason: format!(
                "Error from slot1@testhost: Failed to open '{}/nope.txt' as standard input: \
                 No such file or directory (errno 2)",
                pool.iwd.display()
            ),
            code: 8,
            subcode: 2,
        }
    );
    let f = pool
        .start(&pool.job("/bin/true", &[("Err", s("no/dir/err.txt"))]))
        .unwrap_err();
    assert_eq!((f.code, f.subcode), (7, 2));
    assert!(
        f.reason.contains("as standard error: No such file"),
        "{}",
        f.reason
    );

    let mut job = pool.job("/bin/true", &[]);
    job.insert("Iwd", s("/nonexistent/iwd"));
    let f = pool.start(&job).unwrap_err();
    assert_eq!(
        f,
        StartFailure {
            reason: "Cannot access initial working directory /nonexistent/iwd: No such file or \
                     directory"
                .into(),
            code: 14,
            subcode: 2,
        }
    );

    // Nothing is left behind by jobs that did not start.
    assert!(
        pool.execute_entries().is_empty(),
        "{:?}",
        pool.execute_entries()
    );
}

/// A job that starts `sleep` in the background (writing its pid to `gc.pid`) and then waits.
fn grandchild_job(pool: &Pool, attrs: &[(&str, Expr)]) -> (RunningJob, i32) {
    let mut all = vec![("Arguments", sh("/bin/sleep 100 & echo $! > gc.pid; wait"))];
    all.extend(attrs.iter().cloned());
    let job = pool.job("/bin/sh", &all);
    let running = pool.start(&job).unwrap();
    let pidfile = pool.iwd.join("gc.pid");
    let mut grandchild = 0;
    wait_until("the grandchild's pid", 20, || {
        grandchild = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        grandchild > 0
    });
    std::fs::remove_file(&pidfile).unwrap();
    (running, grandchild)
}

#[test]
fn soft_and_hard_kill_reach_the_whole_group() {
    let pool = Pool::new();
    let cases: [(Option<Expr>, bool, i32); 4] = [
        (None, false, libc::SIGTERM),
        (Some(s("SIGUSR1")), false, libc::SIGUSR1),
        (Some(Expr::lit(libc::SIGUSR2 as i64)), false, libc::SIGUSR2),
        (Some(s("SIGUSR1")), true, libc::SIGKILL),
    ];
    for (kill_sig, hard, expected) in cases {
        let attrs: Vec<(&str, Expr)> = kill_sig.into_iter().map(|e| ("KillSig", e)).collect();
        let (running, grandchild) = grandchild_job(&pool, &attrs);
        if hard {
            running.hard_kill().unwrap();
        } else {
            running.soft_kill().unwrap();
        }
        let exit = wait_with_deadline(&running, Duration::from_secs(20));
        let r = running.finish(exit);
        assert_eq!(
            r.exit,
            JobExit::Signal {
                signal: expected,
                core: false
            }
        );
        assert!(r.killed);
        wait_until("the grandchild to die", 20, || process_gone(grandchild));
    }
}

#[test]
fn exit_leaves_no_process_of_the_group() {
    let pool = Pool::new();
    // The shell exits at once; its background sleep is killed with the group.
    let job = pool.job(
        "/bin/sh",
        &[("Arguments", sh("/bin/sleep 100 & echo $! > gc.pid"))],
    );
    let r = pool.run(&job);
    assert_eq!(r.exit, JobExit::Code(0));
    let grandchild: i32 = pool.read("gc.pid").trim().parse().unwrap();
    wait_until("the leftover to die", 20, || process_gone(grandchild));
}

#[test]
fn orphans_are_found_and_killed() {
    let pool = Pool::new();
    let scratch = pool.execute.join("dir_3_0_99");
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(scratch.join("file"), "x").unwrap();
    let other = pool.iwd.join("not_execute");
    let spawn = |dir: &Path| {
        std::process::Command::new("/bin/sleep")
            .arg("100")
            .env("_CONDOR_SCRATCH_DIR", dir)
            .process_group(0)
            .spawn()
            .unwrap()
    };
    use std::os::unix::process::CommandExt;
    let mut orphan = spawn(&scratch);
    let mut bystander = spawn(&other);
    let pid = orphan.id() as i32;
    wait_until("the orphan's environment", 20, || {
        find_orphans(&pool.execute).contains(&pid)
    });
    assert_eq!(find_orphans(&pool.execute), vec![pid]);
    assert_eq!(kill_orphans(&pool.execute), 1);
    let status = orphan.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGKILL)
    );
    assert!(!scratch.exists());
    assert!(find_orphans(&pool.execute).is_empty());
    // Others are left alone.
    assert!(bystander.try_wait().unwrap().is_none());
    bystander.kill().unwrap();
    bystander.wait().unwrap();
}

#[test]
fn scratch_dir_kept_when_configured() {
    let pool =
        Pool::with_config("FILESYSTEM_DOMAIN = test.domain\nSTARTER_KEEP_SCRATCH_DIR = true\n");
    let running = pool.start(&pool.job("/bin/true", &[])).unwrap();
    let scratch = running.scratch_dir.clone();
    let exit = wait_with_deadline(&running, Duration::from_secs(20));
    running.finish(exit);
    assert!(scratch.join(".job.ad").exists());
}

#[test]
fn more_failures() {
    // $(EXECUTE) cannot be made: the job goes back to idle.
    let mut pool = Pool::new();
    std::fs::write(pool.iwd.join("afile"), "").unwrap();
    pool.execute = pool.iwd.join("afile").join("execute");
    let f = pool.start(&pool.job("/bin/true", &[])).unwrap_err();
    assert_eq!(
        f,
        StartFailure {
            reason: "Error from slot1@testhost: Failed to create scratch dir".into(),
            code: hold_codes::SCRATCH_DIR_ERROR,
            subcode: 0,
        }
    );
    assert!(f.is_vacate());

    // Remaps that loop hold the job.
    let pool = Pool::new();
    let job = pool.job(
        "/bin/sh",
        &[
            ("Arguments", sh("echo x > a")),
            ("ShouldTransferFiles", s("YES")),
            ("TransferExecutable", Expr::lit(false)),
            ("TransferOutputRemaps", s("a=b;b=a")),
        ],
    );
    let hold = pool.run(&job).hold.expect("a remap loop holds the job");
    assert_eq!((hold.code, hold.subcode), (12, libc::EPERM as i64));
    assert!(
        hold.reason.starts_with(&format!(
            "Transfer output files failure at access point {} while receiving files from \
             execution point slot1@testhost. Details: remaps resulted in a cycle: <0: a><1: b>",
            pool.ap()
        )),
        "{}",
        hold.reason
    );
}

/// The state letter of a process (`R`, `S`, `T`, `Z`, ...).
fn process_state(pid: i32) -> char {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .map(|(_, r)| r.trim_start().to_owned())
        })
        .and_then(|r| r.chars().next())
        .unwrap_or('?')
}

#[test]
fn suspend_and_resume() {
    let pool = Pool::new();
    let (running, grandchild) = grandchild_job(&pool, &[]);
    running.suspend().unwrap();
    wait_until("the job to stop", 20, || {
        process_state(running.job_pid) == 'T' && process_state(grandchild) == 'T'
    });
    running.resume().unwrap();
    wait_until("the job to continue", 20, || {
        process_state(running.job_pid) != 'T' && process_state(grandchild) != 'T'
    });
    running.hard_kill().unwrap();
    let exit = wait_with_deadline(&running, Duration::from_secs(20));
    assert_eq!(
        running.finish(exit).exit,
        JobExit::Signal {
            signal: libc::SIGKILL,
            core: false
        }
    );
    wait_until("the grandchild to die", 20, || process_gone(grandchild));
}

/// Jobs per second of `/bin/true` on two "slots" (threads); run with
/// `cargo test --release --lib starter::tests::throughput -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    let pool = std::sync::Arc::new(Pool::new());
    let per_slot = 1000;
    let began = Instant::now();
    let slots: Vec<_> = (0..2)
        .map(|_| {
            let pool = pool.clone();
            std::thread::spawn(move || {
                let job = pool.job("/bin/true", &[]);
                for _ in 0..per_slot {
                    let running = pool.start(&job).unwrap();
                    let exit = running.wait().unwrap();
                    assert_eq!(running.finish(exit).exit, JobExit::Code(0));
                }
            })
        })
        .collect();
    for s in slots {
        s.join().unwrap();
    }
    let secs = began.elapsed().as_secs_f64();
    println!("{:.0} jobs/s", (2 * per_slot) as f64 / secs);
}

// ---------------------------------------------------------------------------------------------
// Scheduler-universe jobs (`start_local`)

impl Pool {
    /// `$(LOCAL_UNIV_EXECUTE)` of this test (next to its execute directory).
    fn local_dir(&self) -> PathBuf {
        self.execute.with_file_name("local_univ_execute")
    }

    /// A scheduler-universe job: `job` with `JobUniverse` 7 and no standard files.
    fn local_job(&self, cmd: &str, attrs: &[(&str, Expr)]) -> ClassAd {
        let mut ad = self.job(cmd, attrs);
        ad.insert("JobUniverse", Expr::lit(7));
        for (name, e) in attrs {
            ad.insert(name, e.clone());
        }
        ad
    }

    fn start_local(&self, job: &ClassAd) -> Result<RunningJob, LocalStartError> {
        start_local(&LocalStartRequest {
            job,
            local_dir: &self.local_dir(),
            config: &self.config,
        })
    }

    /// Starts a scheduler-universe job and waits for it.
    fn run_local(&self, job: &ClassAd) -> JobResult {
        let running = self.start_local(job).unwrap_or_else(|f| panic!("{f:?}"));
        let exit = wait_with_deadline(&running, Duration::from_secs(20));
        running.finish(exit)
    }
}

#[test]
fn a_scheduler_universe_job_runs_in_its_iwd_with_the_schedds_environment() {
    let pool = Pool::new();
    pool.write(
        "dag.sh",
        "#!/bin/sh\necho \"$0 $*\"\npwd\necho \"$CONDOR_ID\" >&2\nenv | sort > env.out\n\
         cat\nexit 3\n",
    );
    std::fs::set_permissions(
        pool.iwd.join("dag.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    pool.write("in.txt", "from stdin\n");
    let job = pool.local_job(
        "dag.sh",
        &[
            ("Arguments", v2_args(&["-p", "0", "two words"])),
            ("In", s("in.txt")),
            ("Out", s("out.txt")),
            ("Err", s("err.txt")),
            ("Environment", s("FROM_JOB=yes")),
            ("X509UserProxy", s("/tmp/x509up")),
        ],
    );
    let running = pool.start_local(&job).unwrap();
    // The job's ad is there while it runs, where `_CONDOR_JOB_AD` says.
    let dir = pool.local_dir().join("dir_7_0");
    assert_eq!(running.scratch_dir, dir);
    let exit = wait_with_deadline(&running, Duration::from_secs(20));
    let ad_text = std::fs::read_to_string(dir.join(".job.ad")).unwrap();
    assert!(ad_text.contains("JobUniverse = 7"), "{ad_text}");
    let r = running.finish(exit);
    assert_eq!(r.exit, JobExit::Code(3));
    assert!(!dir.exists(), "the job's directory goes with it");
    let script = pool.iwd.join("dag.sh");
    assert_eq!(
        pool.read("out.txt"),
        format!(
            "{} -p 0 two words\n{}\nfrom stdin\n",
            script.display(),
            pool.iwd.display()
        )
    );
    assert_eq!(pool.read("err.txt"), "7.0\n");
    let env = pool.read("env.out");
    let vars: Vec<&str> = env_lines(&env)
        .into_iter()
        .filter(|l| !l.starts_with("PWD=") && !l.starts_with("SHLVL=") && !l.starts_with("_="))
        .collect();
    let job_ad = format!("_CONDOR_JOB_AD={}", dir.join(".job.ad").display());
    let spool = pool.config.string("SPOOL").unwrap().unwrap();
    let daemon_ad = format!("_condor_SCHEDD_DAEMON_AD_FILE={spool}/.schedd_classad");
    let address = format!("_condor_SCHEDD_ADDRESS_FILE={spool}/.schedd_address");
    assert_eq!(
        vars,
        [
            "CONDOR_ID=7.0",
            "FROM_JOB=yes",
            "X509_USER_PROXY=/tmp/x509up",
            job_ad.as_str(),
            address.as_str(),
            daemon_ad.as_str(),
        ],
        "nothing of the daemon's environment, no scratch directory: {env}"
    );
}

#[test]
fn a_scheduler_universe_job_sees_condor_scheduniv_exec_as_its_name() {
    let pool = Pool::new();
    let job = pool.local_job(
        "/bin/sh",
        &[
            ("Arguments", sh("echo $0 > name.out")),
            ("JobUniverse", Expr::lit(7)),
        ],
    );
    let r = pool.run_local(&job);
    assert_eq!(r.exit, JobExit::Code(0));
    // `sh -c` names itself after argv[0].
    assert_eq!(pool.read("name.out"), "condor_scheduniv_exec.7.0\n");
}

#[test]
fn a_scheduler_universe_job_without_an_executable_is_held() {
    let pool = Pool::new();
    let mut job = pool.local_job("x", &[]);
    job.insert("Cmd", s(""));
    assert_eq!(
        pool.start_local(&job).unwrap_err(),
        LocalStartError::Hold(StartFailure::new(
            "Executable unknown - not specified in job ad!",
            hold_codes::FAILED_TO_CREATE_PROCESS,
            libc::ENOENT as i64
        ))
    );
    pool.write("plain.txt", "not a program\n");
    let job = pool.local_job("plain.txt", &[]);
    assert_eq!(
        pool.start_local(&job).unwrap_err(),
        LocalStartError::Hold(StartFailure::new(
            format!(
                "File '{}/plain.txt' is missing or not executable",
                pool.iwd.display()
            ),
            hold_codes::FAILED_TO_CREATE_PROCESS,
            libc::EACCES as i64
        ))
    );
    let job = pool.local_job("/no/such/program", &[]);
    assert!(matches!(
        pool.start_local(&job),
        Err(LocalStartError::Hold(f)) if f.reason == "File '/no/such/program' is missing or not executable"
    ));
}

#[test]
fn a_scheduler_universe_job_whose_output_does_not_open_stays_idle() {
    let pool = Pool::new();
    let job = pool.local_job("/bin/true", &[("Out", s("no/such/dir/out.txt"))]);
    match pool.start_local(&job) {
        Err(LocalStartError::NotStarted(why)) => {
            assert!(
                why.starts_with(&format!(
                    "Open of {}/no/such/dir/out.txt failed, errno 2",
                    pool.iwd.display()
                )),
                "{why}"
            );
        }
        other => panic!("{other:?}"),
    }
    let job = pool.local_job("/bin/true", &[("Environment", s("'unclosed"))]);
    assert!(matches!(
        pool.start_local(&job),
        Err(LocalStartError::NotStarted(why)) if why.starts_with("Failed to read job environment")
    ));
}

#[test]
fn a_scheduler_universe_jobs_kill_signals_fall_back_on_its_kill_sig() {
    let pool = Pool::new();
    let job = pool.local_job(
        "/bin/sleep",
        &[
            ("Arguments", s("30")),
            ("KillSig", s("SIGINT")),
            ("RemoveKillSig", s("SIGUSR1")),
        ],
    );
    let running = pool.start_local(&job).unwrap();
    assert_eq!(running.kill_sig(), libc::SIGINT);
    assert_eq!(running.remove_kill_sig(), libc::SIGUSR1);
    assert_eq!(running.hold_kill_sig(), libc::SIGINT, "HoldKillSig unset");
    running.send_signal(running.remove_kill_sig()).unwrap();
    let exit = wait_with_deadline(&running, Duration::from_secs(20));
    let r = running.finish(exit);
    assert_eq!(
        r.exit,
        JobExit::Signal {
            signal: libc::SIGUSR1,
            core: false
        }
    );
}

/// Runs a file-transferring `/bin/sh -c script` job with `attrs`; its result and scratch
/// directory (gone by now).
fn run_transfer(pool: &Pool, script: &str, attrs: &[(&str, Expr)]) -> (JobResult, PathBuf) {
    let mut all = vec![
        ("Arguments", sh(script)),
        ("ShouldTransferFiles", s("YES")),
        ("TransferExecutable", Expr::lit(false)),
    ];
    all.extend(attrs.iter().cloned());
    let running = pool.start(&pool.job("/bin/sh", &all)).unwrap();
    let scratch = running.scratch_dir.clone();
    let exit = wait_with_deadline(&running, Duration::from_secs(20));
    (running.finish(exit), scratch)
}

#[test]
fn output_never_leads_out_of_the_sandbox() {
    let pool = Pool::new();
    let secret = pool.iwd.parent().unwrap().join("secret.txt");
    std::fs::write(&secret, "secret\n").unwrap();
    let ep = |details: &str| {
        format!(
            "Transfer output files failure at execution point slot1@testhost while sending \
             files to access point {}. Details: {details}",
            pool.ap()
        )
    };
    // A link the job made to a file outside, found among the changed files: held, nothing
    // of it copied; the other outputs still come back.
    let (r, scratch) = run_transfer(
        &pool,
        &format!(
            "ln -s {} stolen.txt; echo mine > mine.txt",
            secret.display()
        ),
        &[],
    );
    let hold = r.hold.expect("a link out holds the job");
    assert_eq!((hold.code, hold.subcode), (12, libc::EPERM as i64));
    assert_eq!(
        hold.reason,
        ep(&format!(
            "Attempt to read from illegal sandbox path: {}/stolen.txt (a symbolic link out of \
             the sandbox)",
            scratch.display()
        ))
    );
    assert!(!pool.iwd.join("stolen.txt").exists());
    assert_eq!(pool.read("mine.txt"), "mine\n");

    // Named outputs that climb out, or are absolute elsewhere: refused by their words.
    for name in ["../secret.txt", "sub/../../secret.txt", "/etc/hostname"] {
        let (r, scratch) = run_transfer(&pool, "mkdir sub", &[("TransferOutput", s(name))]);
        let hold = r.hold.unwrap_or_else(|| panic!("{name} is refused"));
        assert_eq!(
            (hold.code, hold.subcode),
            (12, libc::EPERM as i64),
            "{name}"
        );
        let shown = if name.starts_with('/') {
            name.to_owned()
        } else {
            format!("{}/{name}", scratch.display())
        };
        assert_eq!(
            hold.reason,
            ep(&format!(
                "Attempt to read from illegal sandbox path: {shown}"
            ))
        );
    }
    assert!(!pool.iwd.join("secret.txt").exists() && !pool.iwd.join("hostname").exists());

    // A directory with a link out inside: refused too; one linking inside is followed.
    let (r, _) = run_transfer(
        &pool,
        "mkdir d; echo in > d/in.txt; ln -s / d/root",
        &[("TransferOutput", s("d"))],
    );
    assert_eq!(r.hold.map(|h| h.code), Some(12));
    let (r, _) = run_transfer(
        &pool,
        "mkdir d2; echo in > d2/in.txt; ln -s in.txt d2/alias; ln -s d2/in.txt top",
        &[("TransferOutput", s("d2, top"))],
    );
    assert!(r.hold.is_none(), "{:?}", r.hold);
    assert_eq!(pool.read("d2/alias"), "in\n");
    assert_eq!(pool.read("top"), "in\n");

    // The standard output the job swapped for a link out.
    let (r, _) = run_transfer(
        &pool,
        &format!("ln -sf {} _condor_stdout", secret.display()),
        &[("Out", s("out.txt"))],
    );
    assert_eq!(r.hold.map(|h| h.code), Some(12));
    assert!(!pool.iwd.join("out.txt").exists());

    // `.` or `..` is no name to write a file under (HTCondor's LegalPathInSandbox).
    let (r, _) = run_transfer(&pool, "mkdir sub", &[("TransferOutput", s("sub/."))]);
    let hold = r.hold.unwrap();
    assert_eq!(
        (hold.code, hold.subcode, hold.reason),
        (
            12,
            libc::EPERM as i64,
            format!(
                "Transfer output files failure at access point {} while receiving files from \
                 execution point slot1@testhost. Details: Attempt to write to illegal sandbox \
                 path: .",
                pool.ap()
            )
        )
    );
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret\n");
}

#[test]
fn input_never_lands_outside_the_sandbox() {
    let pool = Pool::new();
    pool.write("sub/a.txt", "a\n");
    for name in ["sub/..", "/"] {
        let job = pool.job(
            "/bin/true",
            &[
                ("ShouldTransferFiles", s("YES")),
                ("TransferExecutable", Expr::lit(false)),
                ("TransferInput", s(name)),
            ],
        );
        let f = pool.start(&job).unwrap_err();
        assert_eq!((f.code, f.subcode), (13, libc::EPERM as i64), "{name}");
        assert_eq!(
            f.reason,
            format!(
                "Transfer input files failure at execution point slot1@testhost while \
                 receiving files from access point {}. Details: Attempt to write to illegal \
                 sandbox path: {name}",
                pool.ap()
            )
        );
    }
    assert!(pool.execute_entries().is_empty());
    let mut beside: Vec<_> = std::fs::read_dir(pool.iwd.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    beside.sort();
    assert_eq!(beside, ["execute", "iwd"], "nothing beside the Iwd");
}

#[test]
fn a_spooled_jobs_directory_is_made_in_the_spool_only() {
    // The job's ad is its user's: a spooled job's `Iwd` elsewhere is not made for it.
    let pool = Pool::new();
    let elsewhere = pool.iwd.join("not-the-spool").join("deep");
    let job = pool.job(
        "/bin/true",
        &[
            ("SUBMIT_Iwd", s(&pool.iwd.to_string_lossy())),
            ("Iwd", s(&elsewhere.to_string_lossy())),
        ],
    );
    let f = pool.start(&job).unwrap_err();
    assert!(!pool.iwd.join("not-the-spool").exists(), "{f:?}");
}
