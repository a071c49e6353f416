//! A hermetic environment for running condorlite's binaries: each test gets its own temporary
//! directory holding the pool (`_CONDOR_LOCAL_DIR`), an empty config file (`CONDOR_CONFIG`), a
//! home directory and a working directory, and the binaries run with an otherwise cleared
//! environment, so that nothing from the machine or the user running the tests leaks in.
//! The tools' note that no master runs is off unless a test turns it on.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

#[allow(dead_code)]
pub mod jobs;

/// What condor_submit (on stderr) and condor_q (after its totals) say when no master runs for
/// a test's pool, as [`TestEnvironment::normalize`] leaves it.
#[allow(dead_code)]
pub const NO_MASTER_NOTE: &str = "Note: no condor_master is running for LOCAL_DIR \
    $TEST_ENV/local: queued jobs will start when one runs (start one with: condor_master)\n";

/// The line that ends an error that comes of no master running for a test's pool, as
/// [`TestEnvironment::normalize`] leaves it.
#[allow(dead_code)]
pub const NO_MASTER_HINT: &str = "Hint: no condor_master is running for LOCAL_DIR \
    $TEST_ENV/local; start one with: condor_master\n";

pub struct TestEnvironment {
    _temp: TempDir,
    root: PathBuf,
    env: Vec<(String, String)>,
}

impl TestEnvironment {
    pub fn new() -> Self {
        let temp = tempfile::Builder::new()
            .prefix("condorlite-test-")
            .tempdir()
            .expect("a temporary directory");
        // Canonical, so paths in output match what the tools see.
        let root = temp.path().canonicalize().expect("canonical temp dir");
        for dir in ["local", "home", "work"] {
            std::fs::create_dir(root.join(dir)).expect("test directories");
        }
        std::fs::write(root.join("condor_config"), "").expect("empty config file");
        let path = |name: &str| root.join(name).to_string_lossy().into_owned();
        let env = vec![
            ("_CONDOR_LOCAL_DIR".to_owned(), path("local")),
            ("CONDOR_CONFIG".to_owned(), path("condor_config")),
            ("HOME".to_owned(), path("home")),
            // Jobs run programs by name: keep the machine's PATH (not state, just programs).
            ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
            ("LC_ALL".to_owned(), "C".to_owned()),
            ("TZ".to_owned(), "UTC".to_owned()),
            ("COLUMNS".to_owned(), "80".to_owned()),
            // Most tests run the tools with no master and compare their output whole: the
            // note that jobs wait for one is asked for by the tests about it
            // ([`TestEnvironment::warn_no_master`]).
            (
                "_CONDOR_CONDORLITE_WARN_NO_MASTER".to_owned(),
                "false".to_owned(),
            ),
            // These pools are personal pools, even when the tests run as root: their jobs,
            // whose owners (`alice`, or root) are no accounts to switch to, run as the
            // master's user (a system pool's tests, `tests/shared`, remove this).
            (
                "_CONDOR_CONDORLITE_RUN_AS_OWNER".to_owned(),
                "false".to_owned(),
            ),
            // Container runtimes are the machine's: none, unless a test asks for one
            // (`tests/container`), so that no master runs the machine's docker or apptainer.
            ("_CONDOR_DOCKER".to_owned(), String::new()),
            ("_CONDOR_SINGULARITY".to_owned(), String::new()),
        ];
        TestEnvironment {
            _temp: temp,
            root,
            env,
        }
    }

    /// The pool directory (`_CONDOR_LOCAL_DIR`).
    #[allow(dead_code)]
    pub fn local_dir(&self) -> PathBuf {
        self.root.join("local")
    }

    /// The working directory commands run in.
    pub fn work_dir(&self) -> PathBuf {
        self.root.join("work")
    }

    /// The config file (`CONDOR_CONFIG`), empty until a test writes to it.
    #[allow(dead_code)]
    pub fn config_file(&self) -> PathBuf {
        self.root.join("condor_config")
    }

    /// Sets (or replaces) an environment variable for the commands this environment runs.
    #[allow(dead_code)]
    pub fn set_env(&mut self, name: &str, value: &str) {
        self.env.retain(|(n, _)| n != name);
        self.env.push((name.to_owned(), value.to_owned()));
    }

    /// Removes an environment variable from the commands this environment runs.
    #[allow(dead_code)]
    pub fn remove_env(&mut self, name: &str) {
        self.env.retain(|(n, _)| n != name);
    }

    /// Lets condor_submit and condor_q say that no master runs, as they do by default
    /// (`CONDORLITE_WARN_NO_MASTER` left to its default).
    #[allow(dead_code)]
    pub fn warn_no_master(&mut self) {
        self.env
            .retain(|(n, _)| n != "_CONDOR_CONDORLITE_WARN_NO_MASTER");
    }

    /// Writes a file under the working directory and returns its path.
    #[allow(dead_code)]
    pub fn write_file(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.work_dir().join(name);
        std::fs::write(&path, contents).expect("writing a test file");
        path
    }

    /// A command for condorlite's binary `tool`, in this environment.
    pub fn command(&self, tool: &str) -> Command {
        self.command_for(assert_cmd::cargo::cargo_bin(tool))
    }

    /// A command for any program, in this environment.
    pub fn command_for(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(self.work_dir());
        cmd
    }

    /// Runs `tool` with `args` to completion.
    pub fn run<I, S>(&self, tool: &str, args: I) -> CommandOutput
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let output = self
            .command(tool)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("running {tool}: {e}"));
        CommandOutput {
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            status: output.status.code(),
        }
    }

    /// Runs `tool` with `args` to completion, `input` on its standard input.
    #[allow(dead_code)]
    pub fn run_with_input(&self, tool: &str, args: &[&str], input: &[u8]) -> CommandOutput {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = self
            .command(tool)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("running {tool}: {e}"));
        child
            .stdin
            .take()
            .expect("a pipe")
            .write_all(input)
            .expect("writing standard input");
        let output = child.wait_with_output().expect("waiting for the tool");
        CommandOutput {
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            status: output.status.code(),
        }
    }

    /// Replaces this environment's temporary directory in `text` with `$TEST_ENV`.
    #[allow(dead_code)]
    pub fn normalize(&self, text: &str) -> String {
        text.replace(self.root.to_string_lossy().as_ref(), "$TEST_ENV")
    }

    #[allow(dead_code)]
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// Whatever a test left running in its pool (a master it killed, a job's waiter and job that
/// outlive their master by design, when the test failed before it stopped them) is killed
/// with the test's directory: nothing of one test runs on into others.
impl Drop for TestEnvironment {
    fn drop(&mut self) {
        let local = format!("_CONDOR_LOCAL_DIR={}", self.local_dir().display());
        let scratch = format!("_CONDOR_SCRATCH_DIR={}/", self.local_dir().display());
        let me = std::process::id().to_string();
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return;
        };
        for entry in procs.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(pid) = name.parse::<i32>() else {
                continue;
            };
            if name == me {
                continue;
            }
            let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
                continue;
            };
            let ours = environ
                .split(|&b| b == 0)
                .any(|v| v == local.as_bytes() || v.starts_with(scratch.as_bytes()));
            if ours {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

/// What a command printed and how it ended; its `Display` is one block holding all three, for
/// comparing with an expected block in one assertion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    pub stdout: String,
    pub stderr: String,
    /// `None` when a signal ended the process.
    pub status: Option<i32>,
}

impl fmt::Display for CommandOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.stdout)?;
        if !self.stderr.is_empty() {
            write!(f, "------- stderr -------\n{}", self.stderr)?;
        }
        match self.status {
            Some(code) => write!(f, "[exit status: {code}]"),
            None => write!(f, "[killed by a signal]"),
        }
    }
}

/// A tool left running, its standard output read by a thread as it comes; killed when dropped.
#[allow(dead_code)]
pub struct Following {
    pub child: std::process::Child,
    seen: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

#[allow(dead_code)]
impl Following {
    pub fn start(env: &TestEnvironment, tool: &str, args: &[&str]) -> Following {
        let mut cmd = env.command(tool);
        cmd.args(args);
        Following::spawn(cmd)
    }

    /// Starts a command, its standard input empty and its output read.
    pub fn spawn(mut cmd: Command) -> Following {
        use std::io::Read;
        use std::process::Stdio;
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
        let mut stdout = child.stdout.take().expect("a pipe");
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Following { child, seen }
    }

    /// What the tool printed so far.
    pub fn seen(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }
}

impl Drop for Following {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A job directory's record (`.job.waiter`, which the job, its waiter and the master append
/// lines to): whether it has a whole line tagged `tag` (`W` the waiter, `E` the execute
/// event logged, `X` the job's exit).
#[allow(dead_code)]
pub fn record_has(dir: &Path, tag: &str) -> bool {
    std::fs::read_to_string(dir.join(".job.waiter")).is_ok_and(|text| {
        text.split_inclusive('\n')
            .any(|line| line.ends_with('\n') && line.trim_end().split(' ').next() == Some(tag))
    })
}

/// Takes the lines tagged `tag` out of a job directory's record (see [`record_has`]).
#[allow(dead_code)]
pub fn record_drop(dir: &Path, tag: &str) {
    let path = dir.join(".job.waiter");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let kept: String = text
        .split_inclusive('\n')
        .filter(|line| line.trim_end().split(' ').next() != Some(tag))
        .collect();
    std::fs::write(path, kept).unwrap();
}
