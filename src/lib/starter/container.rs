//! Container runtimes: which ones this host has (what the startd advertises, as
//! `condor_starter -classad` reports it: src/condor_starter.V6.1/starter_v61_main.cpp,
//! docker_proc.cpp `DockerProc::Detect`, src/condor_utils/docker-api.cpp `DockerAPI::detect`
//! and `version`, singularity.cpp `Singularity::detect` and `canRun`), and how a job runs
//! in one (`DockerAPI::createContainer`, `startContainer`, `kill`, `rm`;
//! `Singularity::setup`).
//!
//! The runtimes are the programs the knobs `DOCKER` (docker, or podman, whose command line
//! is docker's) and `SINGULARITY` (apptainer or singularity) name. condorlite, unlike
//! HTCondor, also finds them on `PATH` when the knob is not configured and its default
//! (`/usr/bin/docker`, `$(LIBEXEC)/apptainer`) is not there: see the README.
//!
//! A docker job runs as HTCondor's does: `docker create` with the job's environment, the
//! scratch directory bound and set as the working directory, the job's user, then
//! `docker start -a`, whose exit is the job's; signals go to the container
//! (`docker kill --signal`, `docker pause`/`unpause`), and `docker rm -f -v` removes it
//! when the job is done. Both steps run in one process (a `/bin/sh` that runs the two
//! commands), so that the daemon never waits for an image to be pulled.
//! An apptainer job is the job's command line behind `apptainer exec` (the runtime forwards
//! signals itself).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::classad::{ClassAd, Expr};
use crate::config::Config;
use crate::output::render::{lookup_bool, lookup_int, lookup_str};
use crate::submit::argenv::{is_v2_quoted, split_args, v2_quoted_to_raw};

use super::env::JobEnv;

/// HTCondor's `DockerAPI::default_timeout`: how long one docker command may take.
const DOCKER_TIMEOUT: Duration = Duration::from_secs(120);
/// HTCondor's `Singularity::m_default_timeout`.
const SINGULARITY_TIMEOUT: Duration = Duration::from_secs(120);
/// The label every container the starter makes carries (`HTCondorLabel`).
pub const HTCONDOR_LABEL: &str = "--label=org.htcondorproject=True";
/// Where `docker create`'s error output goes, in the scratch directory; it is removed once
/// the container is made, so a job that ends with it present never started.
pub const DOCKER_STDERR_FILE: &str = ".docker_stderror";
/// At most this much of a detection command's output is kept.
const OUTPUT_CAP: usize = 64 * 1024;

/// What a bounded run of a runtime command gave.
struct Ran {
    /// The exit code (`None`: killed by a signal, or timed out).
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn read_capped(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            if kept.len() < OUTPUT_CAP {
                let take = n.min(OUTPUT_CAP - kept.len());
                kept.extend_from_slice(&buf[..take]);
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

/// Runs `argv` (stdin from /dev/null) for at most `timeout`, killing its process group past
/// it (HTCondor's `MyPopenTimer`); `None` when it could not be started.
fn run_bounded(argv: &[String], timeout: Duration) -> Option<Ran> {
    use std::os::unix::process::CommandExt;
    let (prog, args) = argv.split_first()?;
    let mut child = Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| tracing::debug!("cannot run {prog}: {e}"))
        .ok()?;
    let out = read_capped(child.stdout.take()?);
    let err = read_capped(child.stderr.take()?);
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() < timeout => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            _ => {
                tracing::warn!("'{}' did not finish in {timeout:?}: killed", argv.join(" "));
                let _ = super::exec::signal_group(child.id() as i32, libc::SIGKILL);
                let _ = child.wait();
                break None;
            }
        }
    };
    Some(Ran {
        code: status.and_then(|s| s.code()),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// Runs `argv` in the background for at most `timeout` (a signal for a container: the
/// daemon does not wait for the runtime).
fn run_detached(argv: Vec<String>, timeout: Duration) {
    let spawned = std::thread::Builder::new()
        .name("container-command".into())
        .stack_size(128 * 1024)
        .spawn(move || {
            if let Some(r) = run_bounded(&argv, timeout) {
                if r.code != Some(0) {
                    tracing::warn!(
                        "'{}' failed ({:?}): {}",
                        argv.join(" "),
                        r.code,
                        r.stderr.lines().next().unwrap_or_default()
                    );
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot run a container command: {e}");
    }
}

/// A program by name on the daemon's `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The command line that runs a runtime: the knob's value when the configuration sets it
/// (empty: none; `sudo docker` for docker runs through `/usr/bin/sudo`, as
/// `add_docker_arg` does; a bare name is looked up on `PATH`), else HTCondor's default
/// path when it is there, else the first of `names` on `PATH`.
fn runtime_command(config: &Config, knob: &str, names: &[&str]) -> Option<Vec<String>> {
    let value = config.string(knob).ok().flatten().unwrap_or_default();
    let value = value.trim();
    let resolve = |prog: &str| -> Option<String> {
        if prog.contains('/') {
            Path::new(prog).exists().then(|| prog.to_owned())
        } else {
            on_path(prog).map(|p| p.to_string_lossy().into_owned())
        }
    };
    if config.entry(knob).is_some() {
        if value.is_empty() {
            return None;
        }
        if knob == "DOCKER" {
            if let Some(rest) = value.strip_prefix("sudo ") {
                let rest = rest.trim_start();
                if rest.is_empty() {
                    tracing::warn!("DOCKER is defined as '{value}' which is not valid.");
                    return None;
                }
                return Some(vec!["/usr/bin/sudo".into(), rest.to_owned()]);
            }
        }
        return resolve(value).map(|p| vec![p]);
    }
    if !value.is_empty() && Path::new(value).exists() {
        return Some(vec![value.to_owned()]);
    }
    names.iter().find_map(|n| resolve(n)).map(|p| vec![p])
}

fn cmd(base: &[String], more: &[&str]) -> Vec<String> {
    base.iter()
        .cloned()
        .chain(more.iter().map(|s| s.to_string()))
        .collect()
}

fn knob_bool(config: &Config, name: &str, default: bool) -> bool {
    config.bool(name).ok().flatten().unwrap_or(default)
}

fn knob_string(config: &Config, name: &str) -> Option<String> {
    config
        .string(name)
        .ok()
        .flatten()
        .filter(|s| !s.trim().is_empty())
}

/// `param_eval_string`: the knob's value evaluated as an expression with the job as MY
/// and the slot as TARGET, when that gives a string.
fn eval_knob(config: &Config, name: &str, job: &ClassAd, slot: &ClassAd) -> Option<String> {
    let raw = knob_string(config, name)?;
    let e = crate::classad::parser::parse_old_expr(&raw).ok()?;
    match job.eval_expr(&e, Some(slot)) {
        crate::classad::Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

/// `MOUNT_UNDER_SCRATCH`: an expression (default `"/tmp,/var/tmp"`), or else the text.
fn mount_under_scratch(config: &Config, job: &ClassAd, slot: &ClassAd) -> Vec<String> {
    let value = eval_knob(config, "MOUNT_UNDER_SCRATCH", job, slot)
        .or_else(|| knob_string(config, "MOUNT_UNDER_SCRATCH"))
        .unwrap_or_default();
    value
        .split([',', ' ', '\t'])
        .filter(|d| !d.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The machine attributes the runtimes this host has give, in the order
/// `condor_starter -classad` prints them (a later one wins), plus `DockerNetworks` and
/// `HasDockerVolume<name>` from the configuration (`MachAttributes::publish_static`).
pub fn detect(config: &Config) -> Vec<(String, Expr)> {
    let mut attrs = Vec::new();
    if let Some(docker) = runtime_command(config, "DOCKER", &["docker", "podman"]) {
        detect_docker(config, &docker, &mut attrs);
    }
    if let Some(sing) = runtime_command(config, "SINGULARITY", &["apptainer", "singularity"]) {
        detect_singularity(config, &sing, &mut attrs);
    }
    if let Some(volumes) = knob_string(config, "DOCKER_VOLUMES") {
        for v in volumes.split([',', ' ', '\t']).filter(|v| !v.is_empty()) {
            attrs.push((format!("HasDockerVolume{v}"), Expr::lit(true)));
        }
    }
    if let Some(networks) = knob_string(config, "DOCKER_NETWORKS") {
        attrs.push(("DockerNetworks".into(), Expr::lit(networks)));
    }
    attrs
}

/// `DockerAPI::version`: `docker -v` must print one line that looks like a version.
fn docker_version(docker: &[String]) -> Option<String> {
    let ran = run_bounded(&cmd(docker, &["-v"]), DOCKER_TIMEOUT)?;
    let mut lines = ran.stdout.lines();
    let line = lines.next().unwrap_or_default().trim_end().to_owned();
    let more = lines.next().is_some();
    if ran.stdout.is_empty() {
        tracing::info!("'{} -v' returned nothing.", docker.join(" "));
        return None;
    }
    let bad_size = more || line.len() > 1024 || line.len() < "Docker version ".len() + 1;
    if ran.stdout.contains("Jansens") {
        tracing::info!("The DOCKER configuration setting appears to point to OpenBox's docker.");
        return None;
    }
    if bad_size {
        tracing::info!(
            "Read more than one line (or a very long line) from '{} -v', which we think means it's not Docker.",
            docker.join(" ")
        );
        return None;
    }
    if ran.code != Some(0) {
        tracing::info!(
            "'{} -v' did not exit successfully ({:?}); the first line of output was '{line}'.",
            docker.join(" "),
            ran.code
        );
        return None;
    }
    Some(line)
}

/// `DockerProc::Detect` and `DockerProc::Version`.
fn detect_docker(config: &Config, docker: &[String], attrs: &mut Vec<(String, Expr)>) {
    let Some(version) = docker_version(docker) else {
        return;
    };
    // A CLI without a daemon it can reach fails here.
    match run_bounded(&cmd(docker, &["info"]), DOCKER_TIMEOUT) {
        Some(r) if r.code == Some(0) => {}
        r => {
            let first = r
                .map(|r| format!("{}{}", r.stdout, r.stderr))
                .unwrap_or_default();
            tracing::info!(
                "'{} info' did not exit successfully; the first line of output was '{}'.",
                docker.join(" "),
                first.lines().next().unwrap_or_default()
            );
            return;
        }
    }
    if !docker_test_image_runs(config, docker) {
        return;
    }
    attrs.push(("HasDocker".into(), Expr::lit(true)));
    attrs.push(("HasDockerURL".into(), Expr::lit(true)));
    attrs.push(("HasContainer".into(), Expr::lit(true)));
    attrs.push(("DockerVersion".into(), Expr::lit(version.as_str())));
    if version.contains("20.10.4,") {
        tracing::warn!("Docker Version 20.10.4 detected.  This version cannot work with HTCondor.  Please upgrade docker to get Docker universe support");
        attrs.push(("HasDocker".into(), Expr::lit(false)));
    }
}

/// `DockerAPI::testImageRuns`: loads `DOCKER_TEST_IMAGE_PATH` and runs its `/exit_37`.
/// condorlite ships no test image: with none at that path the test is skipped.
fn docker_test_image_runs(config: &Config, docker: &[String]) -> bool {
    if !knob_bool(config, "DOCKER_PERFORM_TEST", true) {
        return true;
    }
    let (Some(path), Some(name)) = (
        knob_string(config, "DOCKER_TEST_IMAGE_PATH"),
        knob_string(config, "DOCKER_TEST_IMAGE_NAME"),
    ) else {
        return true;
    };
    if !Path::new(&path).exists() {
        return true;
    }
    let loaded = run_bounded(&cmd(docker, &["load", "-i", &path]), DOCKER_TIMEOUT)
        .is_some_and(|r| r.code == Some(0));
    if !loaded {
        tracing::info!("the docker test image {path} could not be loaded");
        return false;
    }
    let ran = run_bounded(
        &cmd(docker, &["run", "--rm=true", &name, "/exit_37"]),
        DOCKER_TIMEOUT,
    );
    let works = ran.is_some_and(|r| r.code == Some(37));
    let _ = run_bounded(&cmd(docker, &["rmi", &name]), DOCKER_TIMEOUT);
    if !works {
        tracing::info!("Docker test container ran incorrectly");
    }
    works
}

/// `SINGULARITY_USE_PID_NAMESPACES`: `Some` when it is a boolean, `None` for `auto`.
fn pid_namespaces_knob(config: &Config) -> Option<bool> {
    let v = knob_string(config, "SINGULARITY_USE_PID_NAMESPACES")?;
    crate::config::expand::bool_value(v.trim())
}

/// `Singularity::add_containment_args`.
fn containment_args(pid_namespaces: bool) -> &'static [&'static str] {
    if pid_namespaces {
        &["-C"]
    } else {
        &["--contain", "--ipc", "--cleanenv"]
    }
}

/// `Singularity::canRun`: `exec` of the image's `/exit_37` must exit 37; with
/// `SINGULARITY_USE_PID_NAMESPACES = auto`, again without PID namespaces on failure. The
/// PID-namespace answer, and the last line the runtime printed on failure.
fn singularity_can_run(
    sing: &[String],
    image: &str,
    timeout: Duration,
    pid_namespaces: &mut Option<bool>,
    last_error: &mut String,
) -> bool {
    let first = pid_namespaces.unwrap_or(true);
    let tries: &[bool] = if pid_namespaces.is_some() {
        &[first]
    } else {
        &[true, false]
    };
    for &ns in tries {
        let mut argv = cmd(sing, &["exec"]);
        argv.extend(containment_args(ns).iter().map(|s| s.to_string()));
        argv.push(image.to_owned());
        argv.push("/exit_37".into());
        match run_bounded(&argv, timeout) {
            Some(r) if r.code == Some(37) => {
                *pid_namespaces = Some(ns);
                return true;
            }
            Some(r) => {
                if let Some(l) = format!("{}{}", r.stdout, r.stderr)
                    .lines()
                    .map(str::trim)
                    .rfind(|l| !l.is_empty())
                {
                    *last_error = l.to_owned();
                }
            }
            None => {}
        }
    }
    *pid_namespaces = Some(false);
    false
}

/// `Singularity::detect`, `canRunSandbox`, `canRunSIF`.
fn detect_singularity(config: &Config, sing: &[String], attrs: &mut Vec<(String, Expr)>) {
    let Some(ran) = run_bounded(&cmd(sing, &["--version"]), SINGULARITY_TIMEOUT) else {
        return;
    };
    if ran.code != Some(0) {
        tracing::info!(
            "'{} --version' did not exit successfully ({:?})",
            sing.join(" "),
            ran.code
        );
        return;
    }
    let version = format!("{}{}", ran.stdout, ran.stderr)
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end()
        .to_owned();
    if version.is_empty() {
        return;
    }
    let sandbox = knob_string(config, "SINGULARITY_TEST_SANDBOX").unwrap_or_default();
    let libexec = knob_string(config, "LIBEXEC").unwrap_or_default();
    let sif = format!("{libexec}/exit_37.sif");
    let knob_ns = pid_namespaces_knob(config);
    let (can_sandbox, can_sif, pid_namespaces, last_error);
    if !Path::new(&sandbox).exists() && !Path::new(&sif).exists() {
        // condorlite ships no test images: the version answering is taken as working.
        (can_sandbox, can_sif) = (true, true);
        pid_namespaces = knob_ns.unwrap_or(true);
        last_error = String::new();
    } else {
        let timeout = config
            .int("SINGULARITY_TEST_SANDBOX_TIMEOUT")
            .ok()
            .flatten()
            .filter(|&t| t > 0)
            .map_or(SINGULARITY_TIMEOUT, |t| Duration::from_secs(t as u64));
        let mut ns = knob_ns;
        let mut err = String::new();
        can_sandbox = singularity_can_run(sing, &sandbox, timeout, &mut ns, &mut err);
        let sandbox_ns = ns;
        let mut sif_ns = knob_ns.or(sandbox_ns);
        can_sif = singularity_can_run(sing, &sif, SINGULARITY_TIMEOUT, &mut sif_ns, &mut err);
        pid_namespaces = sandbox_ns.unwrap_or(false);
        last_error = err;
    }
    if can_sandbox || can_sif {
        attrs.push(("HasSingularity".into(), Expr::lit(true)));
        attrs.push(("HasContainer".into(), Expr::lit(true)));
        attrs.push(("HasDockerURL".into(), Expr::lit(true)));
        if can_sandbox {
            attrs.push(("HasSandboxImage".into(), Expr::lit(true)));
        }
        if can_sif {
            attrs.push(("HasSIF".into(), Expr::lit(true)));
        }
        attrs.push((
            "HasSingularityPidNamespaces".into(),
            Expr::lit(pid_namespaces),
        ));
    } else {
        attrs.push(("HasSingularity".into(), Expr::lit(false)));
        let mut reason = "Both SIF and Sandbox tests on startup failed".to_owned();
        if !last_error.is_empty() {
            reason.push_str(" : ");
            reason.push_str(&last_error);
        }
        attrs.push(("SingularityOfflineReason".into(), Expr::lit(reason)));
    }
    attrs.push(("SingularityVersion".into(), Expr::lit(version)));
}

/// `AppendArgsV1RawOrV2Quoted`.
fn v1_raw_or_v2_quoted(s: &str, out: &mut Vec<String>) -> Result<(), String> {
    if is_v2_quoted(s) {
        split_args(&v2_quoted_to_raw(s)?, out)
    } else {
        out.extend(s.split_whitespace().map(str::to_owned));
        Ok(())
    }
}

/// How the starter runs a job: which runtime, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// As a plain process.
    Plain,
    /// In a docker (or podman) container.
    Docker,
    /// Under apptainer or singularity.
    Singularity,
}

/// `Starter::SpawnJob` (docker or not) and `Singularity::job_enabled`.
pub fn kind(job: &ClassAd, slot: &ClassAd, config: &Config) -> Kind {
    let flag = |ad: &ClassAd, name: &str| lookup_bool(ad, name).unwrap_or(false);
    let want_container = flag(job, "WantContainer");
    let want_docker_image = flag(job, "WantDockerImage");
    if flag(job, "WantDocker") || (want_container && want_docker_image && flag(slot, "HasDocker")) {
        return Kind::Docker;
    }
    if flag(job, "WantSIF")
        || flag(job, "WantSandboxImage")
        || want_docker_image
        || knob_bool(config, "SINGULARITY_JOB", false)
    {
        return Kind::Singularity;
    }
    Kind::Plain
}

/// What the starter knows of the job when it makes the container's command line.
pub struct JobLaunch<'a> {
    pub job: &'a ClassAd,
    pub slot: &'a ClassAd,
    pub config: &'a Config,
    /// The job's `Cmd` (empty: the image's own entry point or run script).
    pub cmd_text: &'a str,
    /// The executable's path on this host (the transferred copy, or `Cmd` against the
    /// job's working directory).
    pub exe: &'a Path,
    /// Whether the executable was transferred into the scratch directory.
    pub transferred_exe: bool,
    pub args: &'a [String],
    pub scratch: &'a Path,
    pub job_iwd: &'a Path,
    pub slot_name: &'a str,
    /// The account the job runs as when not the daemon's: a Docker container gets its ids
    /// (the `docker` client itself runs with the daemon's rights, as HTCondor's starter runs
    /// it).
    pub account: Option<&'a super::identity::Account>,
}

/// A process to spawn for the job.
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// The container to signal and remove, for a docker job.
    pub docker: Option<DockerContainer>,
}

/// A docker job's container: the runtime's command line and the container's name.
#[derive(Clone, Debug)]
pub struct DockerContainer {
    pub docker: Vec<String>,
    pub name: String,
}

impl DockerContainer {
    /// `DockerAPI::kill` with a signal, `pause` for `SIGSTOP`, `unpause` for `SIGCONT`.
    pub fn signal(&self, sig: i32) {
        let argv = match sig {
            libc::SIGSTOP => cmd(&self.docker, &["pause", &self.name]),
            libc::SIGCONT => cmd(&self.docker, &["unpause", &self.name]),
            _ => cmd(
                &self.docker,
                &["kill", "--signal", &sig.to_string(), &self.name],
            ),
        };
        run_detached(argv, DOCKER_TIMEOUT);
    }

    /// `DockerAPI::rm`: the container goes, running or not, with its volumes.
    pub fn remove(&self) {
        let argv = cmd(&self.docker, &["rm", "-f", "-v", &self.name]);
        match run_bounded(&argv, DOCKER_TIMEOUT) {
            Some(r) if r.stdout.trim() == self.name => {}
            Some(r) => tracing::warn!(
                "'{}' did not remove the container: {}",
                argv.join(" "),
                format!("{}{}", r.stdout, r.stderr)
                    .lines()
                    .next()
                    .unwrap_or_default()
            ),
            None => tracing::warn!("cannot run '{}'", argv.join(" ")),
        }
    }
}

/// The raw wait status of a docker job from `docker start -a`'s: an exit code above 128
/// is the signal (code - 128) that killed the job (`DockerProc::JobReaper`).
pub fn docker_status(status: i32) -> i32 {
    if libc::WIFEXITED(status) {
        let code = libc::WEXITSTATUS(status);
        if code > 128 {
            return code - 128;
        }
    }
    status
}

/// When `docker create` failed (its error output is still in the scratch directory): the
/// hold HTCondor gives, the runtime's message with its newlines made spaces
/// (`CONDOR_HOLD_CODE::InvalidDockerImage`).
pub fn docker_create_error(scratch: &Path) -> Option<super::StartFailure> {
    let path = scratch.join(DOCKER_STDERR_FILE);
    let mut text = Vec::new();
    std::fs::File::open(&path)
        .ok()?
        .take(511)
        .read_to_end(&mut text)
        .ok()?;
    let _ = std::fs::remove_file(&path);
    let message = String::from_utf8_lossy(&text).replace('\n', " ");
    Some(super::StartFailure::new(message, INVALID_DOCKER_IMAGE, 0))
}

/// `CONDOR_HOLD_CODE::InvalidDockerImage`.
pub const INVALID_DOCKER_IMAGE: i64 = 35;

/// Quotes `s` for `/bin/sh`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `makeHostname`: `<owner>-<cluster>.<proc>-<machine>`, at most 63 characters.
fn docker_hostname(job: &ClassAd, slot: &ClassAd) -> String {
    let owner = lookup_str(job, "Owner").map_or("unknown".into(), |s| s.to_string());
    let cluster = lookup_int(job, "ClusterId").unwrap_or(1);
    let proc = lookup_int(job, "ProcId").unwrap_or(1);
    let machine = lookup_str(slot, "Machine").map_or("host".into(), |s| s.to_string());
    let mut name = format!("{owner}-{cluster}.{proc}-{machine}");
    if name.len() > 63 {
        let mut end = 63;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
    }
    name
}

/// `DockerProc::StartJob` and `DockerAPI::createContainer`: the command line of
/// `docker create`, and the process that makes the container and starts it attached.
pub fn docker_launch(l: &JobLaunch<'_>, env: JobEnv) -> Result<Launch, String> {
    let (job, slot, config) = (l.job, l.slot, l.config);
    let docker = runtime_command(config, "DOCKER", &["docker", "podman"])
        .ok_or_else(|| "docker is not available on this host".to_owned())?;
    let image = lookup_str(job, "DockerImage")
        .or_else(|| lookup_str(job, "ContainerImage"))
        .ok_or_else(|| "Neither DockerImage nor ContainerImage defined in job ad".to_owned())?;
    let image = image.strip_prefix("docker://").unwrap_or(&image).to_owned();
    let cluster = lookup_int(job, "ClusterId").unwrap_or(0);
    let proc = lookup_int(job, "ProcId").unwrap_or(0);
    let name = format!(
        "HTCJob{cluster}_{proc}_{}_PID{}",
        l.slot_name,
        std::process::id()
    );
    let command = if l.cmd_text.is_empty() {
        String::new()
    } else if l.transferred_exe {
        format!("./{}", super::exec::basename(l.cmd_text))
    } else {
        l.cmd_text.to_owned()
    };
    let mut args = l.args.to_vec();
    if lookup_bool(job, "InteractiveJob").unwrap_or(false) {
        args.push("86400".into());
    }

    let mut c: Vec<String> = vec!["create".into()];
    let cpus = lookup_int(slot, "Cpus").unwrap_or(1);
    c.push(format!("--cpu-shares={}", 100 * cpus));
    if let Some(mem) = lookup_int(slot, "Memory") {
        c.push(format!("--memory={mem}m"));
    }
    if knob_bool(config, "DOCKER_DROP_ALL_CAPABILITIES", true) {
        c.extend(
            [
                "--cap-drop=all",
                "--cap-add=SYS_PTRACE",
                "--security-opt",
                "no-new-privileges",
            ]
            .map(String::from),
        );
    }
    if knob_bool(config, "DOCKER_RUN_UNDER_INIT", true) {
        c.push("--init".into());
    }
    c.extend(["--name".into(), name.clone(), HTCONDOR_LABEL.into()]);
    if knob_bool(config, "DOCKER_LOG_DRIVER_NONE", true) {
        c.extend(["--log-driver".into(), "none".into()]);
    }
    for (k, v) in env.iter() {
        c.push("-e".into());
        c.push(format!("{k}={v}"));
    }
    let scratch = l.scratch.to_string_lossy().into_owned();
    let iwd = l.job_iwd.to_string_lossy().into_owned();
    let mut volumes = vec![format!("{scratch}:{scratch}")];
    if iwd != scratch {
        volumes.push(format!("{iwd}:{iwd}"));
    }
    // `buildExtraVolumes`: each `MOUNT_UNDER_SCRATCH` directory is a directory of the
    // scratch directory, made world-writable and sticky.
    for dir in mount_under_scratch(config, job, slot) {
        let host = format!("{scratch}/{}", dir.trim_start_matches('/'));
        // Made with the rights of the job's user, in whose directory it is (never by root
        // through a link planted there).
        let made = super::identity::as_user(l.account, || {
            std::fs::create_dir_all(&host).and_then(|()| {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&host, std::fs::Permissions::from_mode(0o1777))
            })
        })
        .and_then(|r| r);
        match made {
            Ok(()) => volumes.push(format!("{host}:{dir}")),
            Err(e) => tracing::warn!("Failed to create scratch directory {host}: {e}"),
        }
    }
    for v in volumes {
        c.extend(["--volume".into(), v]);
    }
    c.extend(["--workdir".into(), iwd.clone()]);
    let (uid, gid, groups) = match l.account {
        Some(account) => account.raw_ids(),
        None => super::identity::Account::current().raw_ids(),
    };
    c.extend(["--user".into(), format!("{uid}:{gid}")]);
    for g in groups {
        c.extend(["--group-add".into(), g.to_string()]);
    }
    let network = lookup_str(job, "DockerNetworkType").map(|s| s.to_string());
    let mut set_hostname = true;
    match network.as_deref() {
        Some("host") => {
            c.push("--network=host".into());
            set_hostname = false;
        }
        Some("none") => c.push("--network=none".into()),
        Some("nat") | Some("") | None => {}
        Some(other) => {
            let allowed = lookup_str(slot, "DockerNetworks").unwrap_or_default();
            if !allowed
                .split([',', ' ', '\t'])
                .any(|n| !n.is_empty() && n == other)
            {
                return Err(format!(
                    "Docker job requested network {other} not allowed by parameter DOCKER_NETWORKS with value {allowed}, refusing to run job"
                ));
            }
            c.push(format!("--network={other}"));
        }
    }
    if set_hostname {
        c.extend(["--hostname".into(), docker_hostname(job, slot)]);
    }
    if let Some(services) = lookup_str(job, "ContainerServiceNames") {
        for service in services.split([',', ' ', '\t']).filter(|s| !s.is_empty()) {
            let port = lookup_int(job, &format!("{service}_ContainerPort")).ok_or_else(|| {
                format!("Requested container service '{service}' did not specify a port, or the specified port was not a number.")
            })?;
            c.extend(["-p".into(), port.to_string()]);
        }
    }
    if lookup_str(job, "DockerPullPolicy").is_some_and(|p| p.eq_ignore_ascii_case("always")) {
        c.extend(["--pull".into(), "always".into()]);
    }
    if let Some(extra) = knob_string(config, "DOCKER_EXTRA_ARGUMENTS") {
        v1_raw_or_v2_quoted(&extra, &mut c)
            .map_err(|e| format!("docker: failed to parse extra arguments: {e}"))?;
    }
    if let Some(shm) = config.int("DOCKER_SHM_SIZE").ok().flatten() {
        c.extend(["--shm-size".into(), shm.to_string()]);
    }
    if command.is_empty() {
        c.push(image);
    } else if lookup_bool(job, "DockerOverrideEntrypoint").unwrap_or(false) {
        c.extend(["--entrypoint".into(), command, image]);
    } else {
        c.extend([image, command]);
    }
    c.extend(args);

    // One process makes the container, then runs attached to it: the job's process.
    let quoted = |argv: &[String]| argv.iter().map(|a| sh_quote(a)).collect::<Vec<_>>();
    let stderr_file = sh_quote(&format!("{scratch}/{DOCKER_STDERR_FILE}"));
    let script = format!(
        "{} >/dev/null 2>{stderr_file} || exit 1\nrm -f {stderr_file}\nexec {}",
        quoted(&cmd(&docker, &[]))
            .into_iter()
            .chain(quoted(&c))
            .collect::<Vec<_>>()
            .join(" "),
        quoted(&cmd(&docker, &["start", "-a", &name])).join(" "),
    );
    // The CLI runs with the daemon's environment (`build_env_for_docker_cli`), marked with
    // the scratch directory so that a daemon that restarts finds it among its orphans.
    let mut cli_env: Vec<(String, String)> = std::env::vars().collect();
    cli_env.retain(|(k, _)| k != "_CONDOR_SCRATCH_DIR");
    cli_env.push(("_CONDOR_SCRATCH_DIR".into(), scratch));
    Ok(Launch {
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".into(), script],
        env: cli_env,
        docker: Some(DockerContainer { docker, name }),
    })
}

/// `Singularity::setup`: the job's command line behind `apptainer exec` (or `run`, for a
/// job without an executable), its environment passed in with `APPTAINERENV_`
/// (`SINGULARITYENV_`) names.
pub fn singularity_launch(l: &JobLaunch<'_>, mut env: JobEnv) -> Result<Launch, String> {
    let (job, slot, config) = (l.job, l.slot, l.config);
    if !lookup_bool(slot, "HasSingularity").unwrap_or(false) {
        return Err("Singularity job has been requested but singularity does not appear to be configured on this host.".into());
    }
    let sing = runtime_command(config, "SINGULARITY", &["apptainer", "singularity"])
        .ok_or_else(|| "SINGULARITY is undefined.".to_owned())?;
    let apptainer = lookup_str(slot, "SingularityVersion").is_some_and(|v| v.contains("apptainer"));
    let prefix = if apptainer {
        "APPTAINERENV_"
    } else {
        "SINGULARITYENV_"
    };
    let mut image = eval_knob(config, "SINGULARITY_IMAGE_EXPR", job, slot)
        .or_else(|| lookup_str(job, "ContainerImage").map(|s| s.to_string()))
        .unwrap_or_default();
    if image.is_empty() {
        return Err(
            "Singularity support was requested but unable to determine the image to use.".into(),
        );
    }
    let execute_dir = l.scratch.to_string_lossy().into_owned();
    let job_iwd = l.job_iwd.to_string_lossy().into_owned();
    let target_dir = knob_string(config, "SINGULARITY_TARGET_DIR")
        .or_else(|| lookup_str(job, "ContainerTargetDir").map(|s| s.to_string()))
        .filter(|t| !t.is_empty());
    let mut exec = if l.cmd_text.is_empty() {
        String::new()
    } else {
        l.exe.to_string_lossy().into_owned()
    };
    if let Some(t) = &target_dir {
        if let Some(rest) = exec.strip_prefix(&execute_dir) {
            exec = format!("{t}/{rest}");
        }
    }

    let mut a: Vec<String> = sing.clone();
    let verbosity = config
        .string("SINGULARITY_VERBOSITY")
        .ok()
        .flatten()
        .unwrap_or_else(|| "-s".into());
    if !verbosity.is_empty() {
        a.push(verbosity);
    }
    a.push(if exec.is_empty() { "run" } else { "exec" }.into());
    for d in mount_under_scratch(config, job, slot) {
        a.extend(["-S".into(), d]);
    }
    if job_iwd != execute_dir {
        a.extend(["-B".into(), job_iwd.clone()]);
    }
    a.extend(["-W".into(), execute_dir.clone()]);
    for name in [
        "HOME",
        "APPTAINER_BIND",
        "APPTAINER_BINDDIR",
        "SINGULARITY_BIND",
        "SINGULARITY_BINDDIR",
    ] {
        env.remove(name);
    }
    let mut bind = execute_dir.clone();
    if let Some(t) = &target_dir {
        bind = format!("{execute_dir}:{t}");
        if job_iwd == execute_dir {
            a.extend(["--pwd".into(), t.clone()]);
        }
        // `retargetEnvs`: inside the container, paths in the scratch directory move.
        let old_scratch = env
            .get("_CONDOR_SCRATCH_DIR")
            .unwrap_or_default()
            .to_owned();
        let moved: Vec<(String, String)> = env
            .iter()
            .filter(|(_, v)| v.contains(&execute_dir))
            .map(|(k, v)| (format!("{prefix}{k}"), v.replacen(&execute_dir, t, 1)))
            .collect();
        for (k, v) in moved {
            env.set(&k, &v);
        }
        env.set("_CONDOR_SCRATCH_DIR_OUTSIDE_CONTAINER", &old_scratch);
    } else {
        a.extend(["--pwd".into(), job_iwd.clone()]);
    }
    a.extend(["-B".into(), bind]);
    if let Some(binds) = eval_knob(config, "SINGULARITY_BIND_EXPR", job, slot) {
        for b in binds.split([',', ' ', '\t']).filter(|b| !b.is_empty()) {
            let src = b.split(':').next().unwrap_or(b);
            if Path::new(src).exists() {
                a.extend(["-B".into(), b.to_owned()]);
            }
        }
    }
    if job_iwd == execute_dir {
        a.extend(["--home".into(), execute_dir.clone()]);
    }
    let pid_namespaces = match pid_namespaces_knob(config) {
        Some(b) => b,
        None => lookup_bool(slot, "HasSingularityPidNamespaces").unwrap_or(false),
    };
    a.extend(
        containment_args(pid_namespaces)
            .iter()
            .map(|s| s.to_string()),
    );
    if let Some(extra) = eval_knob(config, "SINGULARITY_EXTRA_ARGUMENTS", job, slot)
        .or_else(|| knob_string(config, "SINGULARITY_EXTRA_ARGUMENTS"))
    {
        v1_raw_or_v2_quoted(&extra, &mut a)
            .map_err(|e| format!("singularity: failed to parse extra arguments: {e}"))?;
    }
    if job_iwd != execute_dir && !image.starts_with('/') && !image.contains("://") {
        image = format!("{job_iwd}/{image}");
    }
    a.push(image);
    if !exec.is_empty() {
        a.push(exec);
    }
    a.extend(l.args.iter().cloned());

    let (cache, tmp) = if apptainer {
        ("APPTAINER_CACHEDIR", "APPTAINER_TMPDIR")
    } else {
        ("SINGULARITY_CACHEDIR", "SINGULARITY_TMPDIR")
    };
    env.set(cache, &execute_dir);
    env.set(tmp, &execute_dir);
    // `convertEnv`: every variable also under the runtime's prefix, unless already there.
    let names: Vec<(String, String)> = env
        .iter()
        .filter(|(k, _)| !k.starts_with(prefix))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    for (k, v) in names {
        let pk = format!("{prefix}{k}");
        if !env.contains(&pk) {
            env.set(&pk, &v);
        }
    }
    let host = lookup_str(slot, "Name").unwrap_or_default();
    env.set(&format!("{prefix}PS1"), &format!("{host}$ "));
    let program = PathBuf::from(a.remove(0));
    Ok(Launch {
        program,
        args: a,
        env: env.into_pairs().collect(),
        docker: None,
    })
}
