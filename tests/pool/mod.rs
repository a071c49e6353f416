//! The personal pool end to end: `condor_master` running real jobs on a temporary pool, the
//! daemon commands, recovery after the master is killed, and `condor_run`.
//!
//! Every wait is on a condition with a deadline; every test stops its master (and so its
//! jobs) when it ends, passing or failing.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use condorlite::eventlog::{read_events, EventBody, ExitStatus};

use crate::common::TestEnvironment;

/// How long any condition may take before the test fails.
const DEADLINE: Duration = Duration::from_secs(60);

/// Waits until `cond` holds, or fails the test with `what`.
pub fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    while !cond() {
        if start.elapsed() > DEADLINE {
            panic!("timed out waiting for {what}");
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// A master running in the foreground for one test; stopped (and its jobs with it) when
/// dropped.
pub struct Master {
    child: Option<Child>,
    /// The master's log, shown when a test fails with the master running.
    log: std::path::PathBuf,
}

impl Master {
    pub fn start(env: &TestEnvironment) -> Master {
        let child = env
            .command("condor_master")
            .arg("-f")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("condor_master starts");
        let socket = env.local_dir().join("run").join("condor_master.sock");
        let master = Master {
            child: Some(child),
            log: env.local_dir().join("log").join("MasterLog"),
        };
        wait_for("the master's socket", || {
            std::os::unix::net::UnixStream::connect(&socket).is_ok()
        });
        master
    }

    pub fn pid(&self) -> i32 {
        self.child.as_ref().map_or(0, |c| c.id() as i32)
    }

    /// Kills the master with SIGKILL (its jobs keep running) and reaps it.
    pub fn kill(mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Waits until something else has killed the master, and reaps it.
    pub fn wait_dead(&mut self) {
        if let Some(mut c) = self.child.take() {
            wait_for("the master to die", || matches!(c.try_wait(), Ok(Some(_))));
        }
    }

    /// Stops the master with SIGTERM and waits for it to exit.
    pub fn stop(mut self) -> Option<i32> {
        self.terminate()
    }

    fn terminate(&mut self) -> Option<i32> {
        let mut c = self.child.take()?;
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(c.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = c.try_wait() {
                return status.code();
            }
            if start.elapsed() > DEADLINE {
                let _ = c.kill();
                let _ = c.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Master {
    fn drop(&mut self) {
        self.terminate();
        if std::thread::panicking() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(60).collect();
            eprintln!("--- the end of the MasterLog ---");
            for line in tail.iter().rev() {
                eprintln!("{line}");
            }
        }
    }
}

/// The number of jobs `condor_q` lists with a constraint.
pub fn count(env: &TestEnvironment, constraint: &str) -> usize {
    let out = env.run(
        "condor_q",
        ["-allusers", "-constraint", constraint, "-af", "ClusterId"],
    );
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.lines().count()
}

pub fn history_attr(env: &TestEnvironment, job: &str, attr: &str) -> String {
    let out = env.run("condor_history", [job, "-af", attr]);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.trim().to_owned()
}

/// Processes whose environment puts them in this pool's execute directory.
pub fn job_processes(env: &TestEnvironment) -> Vec<i32> {
    let execute = env.local_dir().join("execute");
    let marker = format!("_CONDOR_SCRATCH_DIR={}", execute.display());
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let is_zombie = std::fs::read_to_string(entry.path().join("stat"))
            .map(|s| {
                s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(true);
        if !is_zombie
            && environ
                .split(|&b| b == 0)
                .any(|v| v.starts_with(marker.as_bytes()))
        {
            pids.push(pid);
        }
    }
    pids
}

pub fn submit(env: &TestEnvironment, text: &str) -> String {
    let file = env.write_file("job.sub", text);
    let out = env.run("condor_submit", ["-terse", file.to_str().unwrap()]);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.split('.').next().unwrap().trim().to_owned()
}

/// A master running one `sleep 300` job that logs to `log`, once the job runs: the master
/// and the job's cluster.
pub fn a_running_sleeper(env: &TestEnvironment, log: &str) -> (Master, String) {
    let master = Master::start(env);
    let cluster = submit(
        env,
        &format!("executable = /bin/sleep\narguments = 300\nlog = {log}\nqueue\n"),
    );
    wait_for("the job to run", || count(env, "JobStatus == 2") == 1);
    (master, cluster)
}

/// The event numbers of a log in the working directory, in order.
pub fn event_codes(env: &TestEnvironment, log: &str) -> Vec<i32> {
    read_events(env.work_dir().join(log))
        .unwrap()
        .iter()
        .map(|e| e.number() as i32)
        .collect()
}

/// Waits until the log holds as many events as `expected`, then checks they are those: the
/// master writes a step's events just after the step commits, so a job can be gone from the
/// queue a moment before its last event is in its log.
pub fn assert_events(env: &TestEnvironment, log: &str, expected: &[i32]) {
    wait_for(&format!("{} events in {log}", expected.len()), || {
        env.work_dir().join(log).exists() && event_codes(env, log).len() >= expected.len()
    });
    assert_eq!(event_codes(env, log), expected, "{log}");
}

pub fn script(env: &TestEnvironment, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = env.write_file(name, body);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_hundred_jobs_complete_with_their_exit_codes_outputs_and_logs() {
    let env = TestEnvironment::new();
    script(
        &env,
        "job.sh",
        "#!/bin/sh\necho \"out $1\"\necho \"err $1\" >&2\necho $1 > made.$1\nexit $(( $1 % 4 ))\n",
    );
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = job.sh\narguments = $(Process)\noutput = out.$(Process)\n\
         error = err.$(Process)\nlog = jobs.log\nqueue 100\n",
    );
    wait_for("100 jobs to leave the queue", || count(&env, "true") == 0);
    let work = env.work_dir();
    for p in 0..100 {
        let id = format!("{cluster}.{p}");
        assert_eq!(
            history_attr(&env, &id, "ExitCode"),
            (p % 4).to_string(),
            "{id}"
        );
        assert_eq!(history_attr(&env, &id, "JobStatus"), "4", "{id}");
        let read = |f: &str| std::fs::read_to_string(work.join(f)).unwrap_or_default();
        assert_eq!(read(&format!("out.{p}")), format!("out {p}\n"));
        assert_eq!(read(&format!("err.{p}")), format!("err {p}\n"));
        assert_eq!(read(&format!("made.{p}")), format!("{p}\n"));
    }
    wait_for("every job's terminate event", || {
        read_events(work.join("jobs.log"))
            .unwrap()
            .iter()
            .filter(|e| e.number() == 5)
            .count()
            == 100
    });
    let events = read_events(work.join("jobs.log")).unwrap();
    for p in 0..100 {
        let mine: Vec<_> = events.iter().filter(|e| e.proc == p).collect();
        let codes: Vec<i32> = mine.iter().map(|e| e.number() as i32).collect();
        assert_eq!(codes.first(), Some(&0), "proc {p}: {codes:?}");
        assert!(
            codes.contains(&1),
            "proc {p} has an execute event: {codes:?}"
        );
        let Some(EventBody::JobTerminated(t)) = mine.last().map(|e| &e.body) else {
            panic!("proc {p} ends with a terminated event: {codes:?}");
        };
        assert_eq!(t.exit, ExitStatus::Code(p % 4));
    }
    assert_eq!(master.stop(), Some(0));
    assert!(job_processes(&env).is_empty());
}

/// The live children of `parent` whose command line starts with `argv0`.
fn children_named(parent: i32, argv0: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let state = fields.next().unwrap_or("Z");
        let ppid: i32 = fields.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if ppid == parent
            && state != "Z"
            && cmdline.split(|&b| b == 0).next() == Some(argv0.as_bytes())
        {
            pids.push(pid);
        }
    }
    pids
}

/// The master's jobs' waiters are forked by its launcher, a small process of its own; one
/// that dies is replaced at the next job, which runs once all the same.
#[test]
fn a_killed_launcher_is_replaced_at_the_next_job() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    // With no job running, the launcher is the master's one child of that name.
    let launcher = || children_named(master.pid(), "condor_launcher");
    wait_for("the launcher", || launcher().len() == 1);
    let first = launcher()[0];
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(first), nix::sys::signal::SIGKILL).unwrap();
    let cluster = submit(
        &env,
        "executable = /bin/echo\narguments = once\noutput = out.txt\nlog = l.log\nqueue\n",
    );
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_eq!(history_attr(&env, &format!("{cluster}.0"), "ExitCode"), "0");
    assert_eq!(
        std::fs::read_to_string(env.work_dir().join("out.txt")).unwrap(),
        "once\n"
    );
    assert_eq!(event_codes(&env, "l.log"), [0, 1, 6, 5]);
    wait_for("one launcher again", || launcher().len() == 1);
    assert_ne!(launcher()[0], first);
    let log = std::fs::read_to_string(env.local_dir().join("log/MasterLog")).unwrap();
    assert!(log.contains("job launcher lost"), "{log}");
    drop(master);
}

#[test]
fn condor_rm_kills_a_running_job() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = /bin/sh\narguments = \"-c 'sleep 300 & sleep 300'\"\nlog = rm.log\nqueue\n",
    );
    wait_for("the job to run", || count(&env, "JobStatus == 2") == 1);
    wait_for("its processes", || job_processes(&env).len() >= 2);
    let out = env.run("condor_rm", [&cluster]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        out.stdout,
        format!("All jobs in cluster {cluster} have been marked for removal\n")
    );
    wait_for("the job's processes to go", || {
        job_processes(&env).is_empty()
    });
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    assert_eq!(
        history_attr(&env, &format!("{cluster}.0"), "JobStatus"),
        "3"
    );
    wait_for("the abort event", || {
        event_codes(&env, "rm.log").last() == Some(&9)
    });
    let codes = event_codes(&env, "rm.log");
    assert_eq!(codes.first(), Some(&0));
    assert_eq!(codes.last(), Some(&9), "{codes:?}");
    drop(master);
}

/// The abort event of a job removed while it runs gives the remove reason, as the shadow's
/// does (`Job was aborted.` then `\t<RemoveReason>`), like the abort of an idle job that
/// condor_rm logs itself. Found running dask-jobqueue's suite (its workers' logs).
#[test]
fn the_abort_of_a_running_job_gives_the_remove_reason() {
    let env = TestEnvironment::new();
    let (master, cluster) = a_running_sleeper(&env, "rm.log");
    let out = env.run(
        "condor_rm",
        ["-reason", "not needed", &format!("{cluster}.0")],
    );
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    let reason = history_attr(&env, &format!("{cluster}.0"), "RemoveReason");
    assert!(reason.starts_with("not needed"), "{reason}");
    wait_for("the abort event", || {
        event_codes(&env, "rm.log").last() == Some(&9)
    });
    let events = read_events(env.work_dir().join("rm.log")).unwrap();
    match &events.last().expect("events").body {
        EventBody::JobAborted(abort) => assert_eq!(abort.reason.as_deref(), Some(&*reason)),
        other => panic!("the last event is {other:?}"),
    }
    drop(master);
}

#[test]
fn a_held_running_job_stops_and_runs_again_when_released() {
    let env = TestEnvironment::new();
    let (master, cluster) = a_running_sleeper(&env, "hold.log");
    let out = env.run("condor_hold", [&cluster]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job's process to go", || job_processes(&env).is_empty());
    assert_eq!(count(&env, "JobStatus == 5"), 1);
    let out = env.run("condor_release", [&cluster]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to run again", || {
        count(&env, "JobStatus == 2 && NumJobStarts == 2") == 1
    });
    drop(master);
    assert!(job_processes(&env).is_empty());
}

#[test]
fn a_job_that_cannot_exec_is_held_after_its_execute_event() {
    // HTCondor's starter reports a failed exec after the job's start: the shadow logs the
    // execute event, the starter's error (021), then the hold (012), code 6 and the errno.
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    script(&env, "badinterp.sh", "#!/no/such/interpreter\n");
    let cluster = submit(&env, "executable = badinterp.sh\nlog = x.log\nqueue\n");
    wait_for("the job to be held", || {
        count(&env, &format!("ClusterId == {cluster} && JobStatus == 5")) == 1
    });
    let out = env.run(
        "condor_q",
        [
            &cluster,
            "-af",
            "HoldReasonCode",
            "HoldReasonSubCode",
            "ExitCode",
        ],
    );
    assert_eq!(out.stdout, "6 2 undefined\n", "{out}");
    let events = read_events(env.work_dir().join("x.log")).unwrap();
    let bodies: Vec<&EventBody> = events.iter().map(|e| &e.body).collect();
    let [EventBody::Submit(_), EventBody::Execute(_), EventBody::RemoteError(err), EventBody::JobHeld(held)] =
        bodies[..]
    else {
        panic!("events: {bodies:?}");
    };
    let message = format!(
        "Failed to execute '{}/badinterp.sh': invalid interpreter (/no/such/interpreter) \
         specified on first line of script (errno=2: 'No such file or directory')",
        env.work_dir().display()
    );
    assert_eq!((err.daemon_name.as_str(), err.critical), ("starter", true));
    assert_eq!(err.message, message);
    assert_eq!(
        held.reason.as_deref(),
        Some(&*format!("Error from {}: {message}", err.execute_host))
    );
    assert_eq!((held.code, held.subcode), (6, 2));
    drop(master);
}

#[test]
fn an_output_fifo_with_no_reader_holds_its_job_and_stalls_nothing() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let fifo = env.work_dir().join("out.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let held = submit(&env, "executable = /bin/true\noutput = out.fifo\nqueue\n");
    let done = submit(&env, "executable = /bin/true\nqueue\n");
    wait_for("the FIFO's job to be held and the other to finish", || {
        count(&env, &format!("ClusterId == {held} && JobStatus == 5")) == 1
            && count(&env, &format!("ClusterId == {done}")) == 0
    });
    let out = env.run(
        "condor_q",
        [&held, "-af", "HoldReasonCode", "HoldReasonSubCode"],
    );
    assert_eq!(out.stdout, format!("7 {}\n", libc::ENXIO), "{out}");
    drop(master);
}

#[test]
fn a_personal_pool_run_as_root_runs_roots_jobs_as_root() {
    // As in a container or a CI runner: a master started by root, the jobs root's own.
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: needs root (CI runs as root)");
        return;
    }
    let mut env = TestEnvironment::new();
    env.remove_env("_CONDOR_CONDORLITE_RUN_AS_OWNER");
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = /usr/bin/id\narguments = -u\noutput = id.out\nqueue\n",
    );
    wait_for("root's job to finish", || {
        count(&env, &format!("ClusterId == {cluster}")) == 0
    });
    assert_eq!(
        std::fs::read_to_string(env.work_dir().join("id.out")).unwrap(),
        "0\n"
    );
    drop(master);
}

#[test]
fn exit_policies_retry_and_hold() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let retried = submit(
        &env,
        "executable = /bin/sh\narguments = \"-c 'exit 3'\"\nmax_retries = 2\nlog = p.log\nqueue\n",
    );
    let held = submit(
        &env,
        "executable = /bin/sh\narguments = \"-c 'exit 5'\"\non_exit_hold = ExitCode == 5\nlog = p.log\nqueue\n",
    );
    wait_for("the retried job to finish", || {
        count(&env, &format!("ClusterId == {retried}")) == 0
    });
    let id = format!("{retried}.0");
    assert_eq!(history_attr(&env, &id, "NumJobCompletions"), "3");
    assert_eq!(history_attr(&env, &id, "ExitCode"), "3");
    wait_for("the other job to be held", || {
        count(&env, &format!("ClusterId == {held} && JobStatus == 5")) == 1
    });
    let out = env.run("condor_q", [&held, "-af", "HoldReasonCode", "HoldReason"]);
    assert!(out.stdout.starts_with("3 "), "{out}");
    drop(master);
}

#[test]
fn a_master_killed_with_running_jobs_loses_none() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_NUM_CPUS", "20");
    let master = Master::start(&env);
    script(
        &env,
        "slow.sh",
        "#!/bin/sh\nwhile [ ! -e release ]; do sleep 0.05; done\necho run >> runs.$1\n",
    );
    let cluster = submit(
        &env,
        "executable = slow.sh\narguments = $(Process)\nlog = k.log\nqueue 20\n",
    );
    wait_for("20 running jobs", || count(&env, "JobStatus == 2") == 20);
    wait_for("their processes", || job_processes(&env).len() >= 20);
    master.kill();
    assert!(
        !job_processes(&env).is_empty(),
        "the jobs outlive a killed master"
    );
    let master = Master::start(&env);
    // The restarted master adopts the jobs the dead one started: none runs again.
    std::fs::write(env.work_dir().join("release"), "").unwrap();
    wait_for("every job to finish", || count(&env, "true") == 0);
    for p in 0..20 {
        let id = format!("{cluster}.{p}");
        assert_eq!(history_attr(&env, &id, "JobStatus"), "4", "{id}");
        assert_eq!(history_attr(&env, &id, "NumJobStarts"), "1", "{id}");
        let runs = std::fs::read_to_string(env.work_dir().join(format!("runs.{p}"))).unwrap();
        assert_eq!(runs, "run\n", "job {id} finished exactly once");
    }
    assert_eq!(master.stop(), Some(0));
    assert!(job_processes(&env).is_empty());
}

#[test]
fn one_master_per_pool() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let out = env.run("condor_master", ["-f"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr.contains(&format!(
            "a condor_master (pid {}) is already running",
            master.pid()
        )),
        "{out}"
    );
}

#[test]
fn the_master_detaches_by_default() {
    let env = TestEnvironment::new();
    let out = env.run("condor_master", Vec::<&str>::new());
    assert_eq!(out.status, Some(0), "{out}");
    let pid_file = env.local_dir().join("run").join("condor_master.pid");
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let out = env.run("condor_off", ["-master"]);
    assert_eq!(
        out.stdout, "Sent \"Kill-Daemon\" command for \"master\" to local master\n",
        "{out}"
    );
    wait_for("the master to exit", || {
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| {
                    s.rsplit(')')
                        .next()
                        .unwrap_or("")
                        .trim_start()
                        .starts_with('Z')
                })
                .unwrap_or(true)
    });
}

#[test]
fn daemon_commands_say_what_htcondor_says() {
    let env = TestEnvironment::new();
    for (tool, whom) in [
        ("condor_reschedule", "local schedd"),
        ("condor_off", "local master"),
        ("condor_on", "local master"),
        ("condor_restart", "local master"),
        ("condor_reconfig", "local master"),
    ] {
        let out = env.run(tool, Vec::<&str>::new());
        assert_eq!(
            env.normalize(&out.to_string()),
            format!(
                "------- stderr -------\nCan't find address for {whom}\n\
                 Perhaps you need to query another pool.\n{}[exit status: 1]",
                crate::common::NO_MASTER_HINT
            ),
            "{tool}"
        );
    }
    let master = Master::start(&env);
    for (tool, args, said) in [
        (
            "condor_reschedule",
            vec![],
            "Sent \"Reschedule\" command to local schedd\n",
        ),
        (
            "condor_reconfig",
            vec![],
            "Sent \"Reconfig\" command to local master\n",
        ),
        (
            "condor_off",
            vec![],
            "Sent \"Kill-All-Daemons\" command to local master\n",
        ),
        (
            "condor_on",
            vec![],
            "Sent \"Spawn-All-Daemons\" command to local master\n",
        ),
        (
            "condor_off",
            vec!["-schedd", "-peaceful"],
            "Sent \"Kill-Daemon-Peacefully\" command for \"schedd\" to local master\n",
        ),
        (
            "condor_on",
            vec!["-schedd"],
            "Sent \"Spawn-Daemon\" command for \"schedd\" to local master\n",
        ),
    ] {
        let out = env.run(tool, &args);
        assert_eq!(
            out.to_string(),
            format!("{said}[exit status: 0]"),
            "{tool} {args:?}"
        );
    }
    let out = env.run("condor_off", ["otherhost.example.com"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nCan't find address for otherhost.example.com\n\
         Perhaps you need to query another pool.\n[exit status: 1]"
    );
    drop(master);
}

/// With no master, condor_run runs the pool itself, so its job does not wait for one: nothing
/// is said of a missing master.
#[test]
fn condor_run_without_a_master_runs_the_pool_itself() {
    let mut env = TestEnvironment::new();
    env.warn_no_master();
    let out = env.run("condor_run", ["echo hello; echo oops >&2; exit 3"]);
    assert_eq!(out.stdout, "hello\n", "{out}");
    assert_eq!(out.stderr, "oops\n", "{out}");
    assert_eq!(out.status, Some(3), "{out}");
    let leftovers: Vec<_> = std::fs::read_dir(env.work_dir())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// With no master, condor_run's own pool runs its job and no other: a job already queued
/// stays idle, untouched, for the next master.
#[test]
fn condor_run_without_a_master_runs_only_its_own_job() {
    let env = TestEnvironment::new();
    let other = submit(
        &env,
        "executable = /bin/sh\narguments = \"-c 'touch other.ran'\"\nqueue\n",
    );
    let out = env.run("condor_run", ["echo mine"]);
    assert_eq!(out.stdout, "mine\n", "{out}");
    assert_eq!(out.status, Some(0), "{out}");
    assert!(!env.work_dir().join("other.ran").exists());
    let q = env.run(
        "condor_q",
        ["-allusers", &other, "-af", "JobStatus", "NumJobStarts"],
    );
    assert_eq!(q.stdout, "1 0\n", "{q}");
    // A master then runs it.
    let master = Master::start(&env);
    wait_for("the other job to run", || {
        env.work_dir().join("other.ran").exists()
    });
    drop(master);
}

/// A dash word in the command is the command's (`echo -n`), as condor_run takes every word
/// after its options as the shell command.
#[test]
fn condor_run_passes_dash_words_to_the_command() {
    let env = TestEnvironment::new();
    let out = env.run("condor_run", ["echo", "-n", "no newline"]);
    assert_eq!(out.stdout, "no newline", "{out}");
    assert_eq!(out.status, Some(0), "{out}");
}

/// condor_run interrupted while it waits removes its job, as the script's signal handler
/// does, with a master running and with the pool in its own process.
#[test]
fn an_interrupted_condor_run_removes_its_job() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    for with_master in [true, false] {
        let env = TestEnvironment::new();
        let master = with_master.then(|| Master::start(&env));
        let mut child = env
            .command("condor_run")
            .arg("sleep 300")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for("the job's process", || !job_processes(&env).is_empty());
        let signal = if with_master {
            Signal::SIGINT
        } else {
            Signal::SIGTERM
        };
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > DEADLINE {
                let _ = child.kill();
                panic!("condor_run did not stop");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let out = child.wait_with_output().unwrap();
        assert_eq!(status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("Killed by {signal}.\n")
        );
        wait_for("the job's process to go", || job_processes(&env).is_empty());
        wait_for("the job to leave the queue", || count(&env, "true") == 0);
        let left: Vec<_> = std::fs::read_dir(env.work_dir())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(left.is_empty(), "{left:?}");
        drop(master);
    }
}

#[test]
fn condor_run_uses_a_running_master() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let out = env.run("condor_run", ["echo", "$((6*7))"]);
    assert_eq!(out.to_string(), "42\n[exit status: 0]");
    drop(master);
}

/// Whether HTCondor's Python bindings (the reference, `pip install htcondor==24.0.24`) can
/// be used. `.ci/run` installs them and sets `CONDORLITE_REFERENCE=required`, so that CI
/// never skips what needs them.
pub fn reference_available() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import htcondor"])
        .env("CONDOR_CONFIG", "/dev/null")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok && std::env::var("CONDORLITE_REFERENCE").as_deref() == Ok("required") {
        panic!("the reference library (python3 -m pip install htcondor==24.0.24) is required");
    }
    ok
}

/// HTCondor's own reader over a log the master wrote: every event, with its type, job and
/// (for terminations) its return value, one line each.
pub const READ_WITH_REFERENCE: &str = r#"
import sys, htcondor
for e in htcondor.JobEventLog(sys.argv[1]).events(stop_after=0):
    rv = e["ReturnValue"] if "ReturnValue" in e else ""
    print(int(e.type), e.cluster, e.proc, rv)
"#;

/// The lines `script` (Python, with the `htcondor` reference library) prints for a log.
pub fn reference_lines(script: &str, log: &Path) -> Vec<String> {
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(log)
        .env("CONDOR_CONFIG", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_reference_reads_every_event_the_master_writes() {
    if !reference_available() {
        eprintln!("skipped: python3 with htcondor is not installed");
        return;
    }
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = /bin/sh\narguments = \"-c 'exit $(Process)'\"\nlog = ref.log\nqueue 3\n",
    );
    let held = submit(
        &env,
        "executable = /bin/sleep\narguments = 300\nlog = ref.log\nqueue\n",
    );
    wait_for("the first cluster to finish", || {
        count(&env, &format!("ClusterId == {cluster}")) == 0
    });
    wait_for("the sleeper to run", || count(&env, "JobStatus == 2") == 1);
    assert_eq!(env.run("condor_hold", [&held]).status, Some(0));
    assert_eq!(env.run("condor_rm", [&held]).status, Some(0));
    wait_for("the queue to empty", || count(&env, "true") == 0);
    drop(master);
    let log = env.work_dir().join("ref.log");
    let ours: Vec<String> = read_events(&log)
        .unwrap()
        .iter()
        .map(|e| {
            let rv = match &e.body {
                EventBody::JobTerminated(t) => match t.exit {
                    ExitStatus::Code(c) => c.to_string(),
                    ExitStatus::Signal(_) => String::new(),
                },
                _ => String::new(),
            };
            format!("{} {} {} {rv}", e.number(), e.cluster, e.proc)
        })
        .collect();
    let theirs = reference_lines(READ_WITH_REFERENCE, &log);
    assert_eq!(ours, theirs);
    let types: Vec<&str> = ours.iter().map(|l| l.split(' ').next().unwrap()).collect();
    for t in ["0", "1", "5", "6", "12", "9"] {
        assert!(types.contains(&t), "event {t} in {types:?}");
    }
}

/// Two queries to the master: the second is answered after the step that followed the
/// first, so whatever the master had been asked before has been done.
pub fn settle(env: &TestEnvironment) {
    for _ in 0..2 {
        let out = env.run("condor_status", ["-schedd", "-af", "Name"]);
        assert_eq!(out.status, Some(0), "{out}");
    }
}

#[test]
fn a_schedd_turned_off_starts_nothing_until_turned_on() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let out = env.run("condor_off", ["-schedd"]);
    assert_eq!(out.status, Some(0), "{out}");
    submit(&env, "executable = /bin/sleep\narguments = 300\nqueue\n");
    settle(&env);
    assert_eq!(count(&env, "JobStatus == 1"), 1, "the job stays idle");
    let out = env.run("condor_on", ["-schedd"]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to run", || count(&env, "JobStatus == 2") == 1);
    drop(master);
    assert!(job_processes(&env).is_empty());
}

#[test]
fn a_graceful_stop_vacates_running_jobs_back_to_idle() {
    let env = TestEnvironment::new();
    let (master, cluster) = a_running_sleeper(&env, "stop.log");
    assert_eq!(master.stop(), Some(0));
    assert!(job_processes(&env).is_empty());
    let out = env.run("condor_q", [&cluster, "-af", "JobStatus", "NumJobStarts"]);
    assert_eq!(out.stdout, "1 1\n", "{out}");
    assert_eq!(
        event_codes(&env, "stop.log"),
        [0, 1, 4],
        "submitted, executed, evicted"
    );
}

/// HTCondor's own reader over a log: for each 005 and 006 event, its type and its
/// `MemoryUsage`, `ResidentSetSize`, `CpusUsage` and `RequestCpus` (`-` when absent).
const READ_USAGE_WITH_REFERENCE: &str = r#"
import sys, htcondor
for e in htcondor.JobEventLog(sys.argv[1]).events(stop_after=0):
    if int(e.type) in (5, 6):
        print(int(e.type), *[e[k] if k in e else "-" for k in
              ("MemoryUsage", "ResidentSetSize", "CpusUsage", "RequestCpus")])
"#;

fn usage_read_by_reference(log: &Path) -> Vec<Vec<String>> {
    reference_lines(READ_USAGE_WITH_REFERENCE, log)
        .iter()
        .map(|l| l.split(' ').map(str::to_owned).collect())
        .collect()
}

/// The starter reports `MemoryUsage` as `MEMORY_USAGE_METRIC`, an expression over the job's
/// `ResidentSetSize` (VanillaProc::PublishUpdateAd; the shadow copies it as it is), and the
/// slot's `CpusUsage`: so the 006 event has its `MemoryUsage of job (MB)` line, and the
/// resource tables of the 005 and 004 events fill the Usage cells of Cpus and Memory
/// (condor_event.cpp `setUsageAd` evaluates `<Res>Usage` in the job ad).
#[test]
fn run_events_report_memory_and_cpus_usage() {
    let env = TestEnvironment::new();
    // A sleeper to be evicted when the master stops, and a job that completes meanwhile.
    let (master, _) = a_running_sleeper(&env, "stop.log");
    let done = submit(
        &env,
        "executable = /bin/sh\narguments = \"-c 'exit 0'\"\nlog = usage.log\nqueue\n",
    );
    wait_for("the job to finish", || {
        count(&env, &format!("ClusterId == {done}")) == 0
    });
    assert_eq!(master.stop(), Some(0));
    assert_events(&env, "usage.log", &[0, 1, 6, 5]);
    assert_events(&env, "stop.log", &[0, 1, 4]);

    // The job ad keeps the expression; it evaluates to the peak resident set in MiB.
    let rss: i64 = history_attr(&env, &done, "ResidentSetSize")
        .parse()
        .unwrap();
    assert!(rss > 0);
    let memory = (rss + 1023) / 1024;
    assert_eq!(history_attr(&env, &done, "MemoryUsage"), memory.to_string());
    let long = env.run("condor_history", [done.as_str(), "-l"]);
    assert!(
        long.stdout
            .contains("\nMemoryUsage = ((ResidentSetSize + 1023) / 1024)\n"),
        "{long}"
    );
    let text = std::fs::read_to_string(env.work_dir().join("usage.log")).unwrap();
    assert!(
        text.contains(&format!(
            "\t{memory}  -  MemoryUsage of job (MB)\n\t{rss}  -  ResidentSetSize of job (KB)\n"
        )),
        "{text}"
    );
    // Every row of both tables has its Usage cell: `Cpus : <usage> <request> <allocated>`.
    for log in ["usage.log", "stop.log"] {
        let text = std::fs::read_to_string(env.work_dir().join(log)).unwrap();
        for res in ["Cpus", "Memory (MB)"] {
            let row = text
                .lines()
                .skip_while(|l| !l.contains("Partitionable Resources"))
                .find(|l| l.trim_start().starts_with(res))
                .unwrap_or_else(|| panic!("no {res} row in {log}:\n{text}"));
            let cells: Vec<&str> = row.split(':').nth(1).unwrap().split_whitespace().collect();
            assert_eq!(cells.len(), 3, "{log}: {row}");
        }
    }

    // The 24.0 reader does not read an eviction's table; condorlite's reads it back.
    let events = read_events(env.work_dir().join("stop.log")).unwrap();
    let Some(EventBody::JobEvicted(evicted)) = events.last().map(|e| &e.body) else {
        panic!("the last event of stop.log is the eviction: {events:?}");
    };
    for res in ["Cpus", "Memory"] {
        let row = evicted.usage.iter().find(|r| r.name == res);
        assert!(
            row.is_some_and(|r| r.usage.is_some()),
            "{res}: {:?}",
            evicted.usage
        );
    }

    // HTCondor's reader sees the same figures.
    if !reference_available() {
        eprintln!("reference part skipped: python3 with htcondor is not installed");
        return;
    }
    let theirs = usage_read_by_reference(&env.work_dir().join("usage.log"));
    assert_eq!(theirs.len(), 2, "{theirs:?}");
    assert_eq!(theirs[0][..3], ["6", &memory.to_string(), &rss.to_string()]);
    assert_eq!(theirs[1][..2], ["5", &memory.to_string()]);
    assert!(
        theirs[1][3].parse::<f64>().is_ok_and(|c| c >= 0.0),
        "{theirs:?}"
    );
    assert_eq!(theirs[1][4], "1");
}

#[test]
fn a_requeued_job_cools_down_before_it_runs_again() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_SYSTEM_ON_VACATE_COOL_DOWN", "2");
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "executable = /bin/sh\narguments = \"-c 'date +%s >> runs; exit 1'\"\nmax_retries = 1\nqueue\n",
    );
    wait_for("the job to finish", || count(&env, "true") == 0);
    let id = format!("{cluster}.0");
    assert_eq!(history_attr(&env, &id, "NumJobCoolDowns"), "1");
    let runs: Vec<i64> = std::fs::read_to_string(env.work_dir().join("runs"))
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(
        runs[1] - runs[0] >= 2,
        "ran again before the cool-down ended: {runs:?}"
    );
    drop(master);
}

#[test]
fn an_idle_job_edited_by_condor_qedit_is_seen_by_the_master() {
    // The master reads again only the idle jobs another process changed (their change
    // stamps): an edit of a job it already holds must reach it.
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let never = submit(
        &env,
        "executable = /bin/true\nrequirements = TARGET.Memory > 1000000000\nqueue\n",
    );
    let waiting = submit(
        &env,
        "executable = /bin/true\nrequirements = TARGET.Memory > 1000000000\nqueue\n",
    );
    settle(&env);
    assert_eq!(count(&env, "JobStatus == 1"), 2);
    let out = env.run("condor_qedit", [waiting.as_str(), "Requirements", "true"]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the edited job to finish", || {
        history_attr(&env, &format!("{waiting}.0"), "ExitCode") == "0"
    });
    // The other one still waits, unchanged.
    let out = env.run("condor_q", [never.as_str(), "-af", "JobStatus"]);
    assert_eq!(out.stdout.trim(), "1", "{out}");
    drop(master);
}

#[test]
fn a_reconfig_renames_the_idle_jobs_submitters() {
    // Submitter names carry the accounting domain; the master reads its idle jobs again
    // when the configuration changes it, even though no job changed.
    let env = TestEnvironment::new();
    std::fs::write(env.config_file(), "UID_DOMAIN = before.example\n").unwrap();
    let master = Master::start(&env);
    submit(
        &env,
        "executable = /bin/true\nrequirements = TARGET.Memory > 1000000000\nqueue\n",
    );
    let submitters = || {
        let out = env.run("condor_status", ["-submitters", "-af", "Name"]);
        assert_eq!(out.status, Some(0), "{out}");
        out.stdout
    };
    wait_for("the submitter in the first domain", || {
        submitters().contains("@before.example")
    });
    std::fs::write(env.config_file(), "UID_DOMAIN = after.example\n").unwrap();
    let out = env.run("condor_reconfig", Vec::<&str>::new());
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the submitter in the new domain", || {
        let names = submitters();
        names.contains("@after.example") && !names.contains("@before.example")
    });
    drop(master);
}

/// A job the master cannot read (its row garbled behind the master's back) is reported with
/// its id and left out; the pool goes on negotiating and running the other jobs.
#[test]
fn a_job_that_cannot_be_read_does_not_stop_the_pool() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let bad = submit(
        &env,
        "executable = /bin/true\nrequirements = false\nqueue\n",
    );
    wait_for("the job to be idle", || count(&env, "JobStatus == 1") == 1);
    let db = env.local_dir().join("spool").join("job_queue.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    let garbled = conn
        .execute(
            "UPDATE procs SET ad = 'not an ad [', changed = changed + 1000000 \
             WHERE cluster_id = ?1",
            [bad.parse::<i64>().unwrap()],
        )
        .unwrap();
    assert_eq!(garbled, 1);
    drop(conn);
    let good = submit(&env, "executable = /bin/true\nqueue\n");
    wait_for("the other job to complete", || {
        env.run("condor_history", [good.as_str(), "-af", "JobStatus"])
            .stdout
            .trim()
            == "4"
    });
    let log = std::fs::read_to_string(env.local_dir().join("log").join("MasterLog")).unwrap();
    assert!(
        log.contains(&format!("job {bad}.0 cannot be read")),
        "{log}"
    );
    drop(master);
}

/// The master records every run's ad in the job epoch history (`JOB_EPOCH_HISTORY`, in the
/// spool by default), as HTCondor's shadow does when a run ends; `condor_history -epochs`
/// shows it.
#[test]
fn every_run_is_recorded_in_the_epoch_history() {
    let env = TestEnvironment::new();
    let master = Master::start(&env);
    let cluster = submit(&env, "executable = /bin/true\nqueue 2\n");
    wait_for("both jobs to finish", || count(&env, "true") == 0);
    let out = env.run(
        "condor_history",
        [
            "-epochs",
            "-forwards",
            "-af",
            "ClusterId",
            "ProcId",
            "NumShadowStarts",
            "JobEpochWriteDate > 0",
        ],
    );
    let mut rows: Vec<&str> = out.stdout.lines().collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            format!("{cluster} 0 1 true").as_str(),
            format!("{cluster} 1 1 true").as_str()
        ],
        "{out}"
    );
    let file = std::fs::read_to_string(env.local_dir().join("spool/epoch_history")).unwrap();
    assert!(
        file.contains(&format!(
            "*** EPOCH ClusterId={cluster} ProcId=0 RunInstanceId=0 "
        )),
        "{file}"
    );
    drop(master);
}
