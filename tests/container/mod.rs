//! Container and docker universe jobs: the runtimes the startd advertises, and the command
//! lines the starter gives them. The runtimes are stand-in scripts (`fake-docker`,
//! `fake-apptainer`, copied into each test's directory) that record their arguments and run
//! the job's command on the host; one test runs the machine's real docker command line,
//! which has no daemon to reach on the machines these tests run on.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::TestEnvironment;
use crate::pool::{count, history_attr, submit, wait_for, Master};

/// Copies the stand-in `name` (`fake-docker`, `fake-apptainer`) into `<root>/bin/<as_name>`.
fn install_fake(env: &TestEnvironment, name: &str, as_name: &str) -> PathBuf {
    let bin = env.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/container")
        .join(name);
    let dst = bin.join(as_name);
    std::fs::copy(&src, &dst).unwrap();
    std::fs::set_permissions(&dst, std::fs::Permissions::from_mode(0o755)).unwrap();
    dst
}

/// A pool of one 1-CPU, 512 MB slot whose docker is the stand-in, found on `PATH`.
fn docker_pool() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    install_fake(&env, "fake-docker", "docker");
    env.remove_env("_CONDOR_DOCKER");
    let path = format!(
        "{}:{}",
        env.root().join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    env.set_env("PATH", &path);
    std::fs::write(env.config_file(), "NUM_CPUS = 1\nMEMORY = 512\n").unwrap();
    env
}

/// The calls a stand-in recorded, each its arguments.
fn calls(log: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut out: Vec<Vec<String>> = Vec::new();
    for line in text.lines() {
        if line == "--- call" {
            out.push(Vec::new());
        } else if let Some(c) = out.last_mut() {
            c.push(line.to_owned());
        }
    }
    out
}

fn docker_calls(env: &TestEnvironment) -> Vec<Vec<String>> {
    calls(&env.root().join("bin/docker.log"))
}

fn slot_attrs(env: &TestEnvironment, attrs: &[&str]) -> String {
    let mut args = vec!["-af"];
    args.extend(attrs);
    let out = env.run("condor_status", args);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout
}

/// The one `-e NAME=value` of a `docker create` whose name is `name`.
fn env_arg<'a>(create: &'a [String], name: &str) -> Option<&'a str> {
    create
        .windows(2)
        .filter(|w| w[0] == "-e")
        .find_map(|w| w[1].strip_prefix(&format!("{name}=")))
}

#[test]
fn a_docker_that_answers_is_advertised_as_htcondor_does() {
    let env = docker_pool();
    let _master = Master::start(&env);
    assert_eq!(
        slot_attrs(
            &env,
            &["HasDocker", "HasDockerURL", "HasContainer", "DockerVersion"]
        ),
        "true true true Docker version 24.0.7, build fake\n"
    );
    // DockerProc::Detect: `docker -v`, then `docker info`.
    let seen: Vec<String> = docker_calls(&env).iter().map(|c| c.join(" ")).collect();
    assert_eq!(seen, ["-v", "info"]);
}

#[test]
fn a_docker_command_line_without_a_daemon_is_not_advertised() {
    let env = docker_pool();
    std::fs::write(env.root().join("bin/no-daemon"), "").unwrap();
    let master = Master::start(&env);
    assert_eq!(
        slot_attrs(&env, &["HasDocker", "HasContainer", "DockerVersion"]),
        "undefined undefined undefined\n"
    );
    drop(master);

    // The machine's own docker command line, when it has one (and no daemon to reach).
    let real = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("docker"))
            .find(|d| d.is_file())
    });
    let Some(real) = real else {
        return;
    };
    let reachable = std::process::Command::new(&real)
        .arg("info")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if reachable {
        return;
    }
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_DOCKER", &real.to_string_lossy());
    let _master = Master::start(&env);
    assert_eq!(
        slot_attrs(&env, &["HasDocker", "HasContainer", "DockerVersion"]),
        "undefined undefined undefined\n"
    );
}

#[test]
fn a_docker_universe_job_runs_in_its_container() {
    let env = docker_pool();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "universe = docker\n\
         docker_image = alpine:3.20\n\
         executable = /bin/sh\n\
         transfer_executable = false\n\
         arguments = \"-c 'echo out $FOO; pwd; echo err >&2; exit 3'\"\n\
         environment = \"FOO=bar\"\n\
         should_transfer_files = YES\n\
         output = out.txt\nerror = err.txt\nlog = d.log\nqueue\n",
    );
    wait_for("the job to finish", || count(&env, "true") == 0);
    let job = format!("{cluster}.0");
    assert_eq!(history_attr(&env, &job, "ExitCode"), "3");
    let out = std::fs::read_to_string(env.work_dir().join("out.txt")).unwrap();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("out bar"));
    let workdir = lines.next().unwrap().to_owned();
    let execute = env.local_dir().join("execute");
    assert!(
        workdir.starts_with(&*execute.to_string_lossy()),
        "{workdir}"
    );
    assert_eq!(
        std::fs::read_to_string(env.work_dir().join("err.txt")).unwrap(),
        "err\n"
    );
    // The directories made for MOUNT_UNDER_SCRATCH are not output.
    assert!(!env.work_dir().join("tmp").exists());

    let calls = docker_calls(&env);
    let create = calls.iter().find(|c| c[0] == "create").expect("a create");
    let name = format!("HTCJob{cluster}_0_slot1_1_PID{}", master.pid());
    let uid = nix::unistd::geteuid();
    let gid = nix::unistd::getegid();
    // Everything but the environment, in HTCondor's order.
    let mut without_env = Vec::new();
    let mut i = 0;
    while i < create.len() {
        if create[i] == "-e" {
            i += 2;
        } else {
            without_env.push(create[i].clone());
            i += 1;
        }
    }
    let group_adds: Vec<String> = without_env
        .windows(2)
        .filter(|w| w[0] == "--group-add")
        .flat_map(|w| w.to_vec())
        .collect();
    let mut expected: Vec<String> = [
        "create",
        "--cpu-shares=100",
        "--memory=128m",
        "--cap-drop=all",
        "--cap-add=SYS_PTRACE",
        "--security-opt",
        "no-new-privileges",
        "--init",
        "--name",
        &name,
        "--label=org.htcondorproject=True",
        "--log-driver",
        "none",
        "--volume",
        &format!("{workdir}:{workdir}"),
        "--volume",
        &format!("{workdir}/tmp:/tmp"),
        "--volume",
        &format!("{workdir}/var/tmp:/var/tmp"),
        "--workdir",
        &workdir,
        "--user",
        &format!("{uid}:{gid}"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    expected.extend(group_adds);
    let hostname = without_env
        .iter()
        .position(|a| a == "--hostname")
        .map(|p| without_env[p + 1].clone())
        .unwrap();
    assert!(
        hostname.starts_with(&format!("{}-{cluster}.0-", whoami())),
        "{hostname}"
    );
    expected.extend(["--hostname".to_owned(), hostname]);
    expected.extend(
        [
            "alpine:3.20",
            "/bin/sh",
            "-c",
            "echo out $FOO; pwd; echo err >&2; exit 3",
        ]
        .map(String::from),
    );
    assert_eq!(without_env, expected);
    assert_eq!(env_arg(create, "FOO"), Some("bar"));
    assert_eq!(env_arg(create, "_CONDOR_SCRATCH_DIR"), Some(&*workdir));
    // Then attached, then removed once the output is back.
    let rest: Vec<String> = calls
        .iter()
        .skip_while(|c| c[0] != "create")
        .skip(1)
        .map(|c| c.join(" "))
        .collect();
    assert_eq!(
        rest,
        [format!("start -a {name}"), format!("rm -f -v {name}")]
    );
    drop(master);
}

fn whoami() -> String {
    nix::unistd::User::from_uid(nix::unistd::geteuid())
        .unwrap()
        .unwrap()
        .name
}

#[test]
fn a_container_job_with_a_docker_image_runs_under_docker_with_its_exit_signal() {
    let env = docker_pool();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "universe = container\n\
         container_image = docker://busybox\n\
         executable = /bin/sh\n\
         transfer_executable = false\n\
         arguments = \"-c 'kill -9 $$'\"\n\
         log = c.log\nqueue\n",
    );
    wait_for("the job to finish", || count(&env, "true") == 0);
    let job = format!("{cluster}.0");
    // `docker start -a` exits 137: the job died of signal 9 (DockerProc::JobReaper).
    assert_eq!(history_attr(&env, &job, "ExitBySignal"), "true");
    assert_eq!(history_attr(&env, &job, "ExitSignal"), "9");
    let create = docker_calls(&env)
        .into_iter()
        .find(|c| c[0] == "create")
        .unwrap();
    assert!(create.contains(&"busybox".to_owned()), "{create:?}");
    drop(master);
}

#[test]
fn condor_rm_reaches_a_docker_jobs_container() {
    let env = docker_pool();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "universe = docker\ndocker_image = alpine\nexecutable = /bin/sleep\n\
         transfer_executable = false\narguments = 300\nlog = rm.log\nqueue\n",
    );
    let state = env.root().join("bin/docker-state");
    let pid_file = || {
        std::fs::read_dir(&state)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "pid"))
    };
    wait_for("the container's command to run", || pid_file().is_some());
    let pid: i32 = loop {
        let text = std::fs::read_to_string(pid_file().unwrap()).unwrap_or_default();
        if let Ok(p) = text.trim().parse() {
            break p;
        }
    };
    let out = env.run("condor_rm", [&cluster]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("the job to leave the queue", || count(&env, "true") == 0);
    wait_for("the container's command to end", || {
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
    });
    let name = format!("HTCJob{cluster}_0_slot1_1_PID{}", master.pid());
    let seen: Vec<String> = docker_calls(&env).iter().map(|c| c.join(" ")).collect();
    assert!(
        seen.contains(&format!("kill --signal 15 {name}")),
        "{seen:?}"
    );
    assert_eq!(seen.last(), Some(&format!("rm -f -v {name}")), "{seen:?}");
    assert_eq!(
        history_attr(&env, &format!("{cluster}.0"), "JobStatus"),
        "3"
    );
    drop(master);
}

#[test]
fn a_docker_image_that_cannot_be_made_holds_the_job() {
    let env = docker_pool();
    let master = Master::start(&env);
    let cluster = submit(
        &env,
        "universe = docker\ndocker_image = no-such-image\nexecutable = /bin/true\n\
         transfer_executable = false\nqueue\n",
    );
    wait_for("the job to be held", || count(&env, "JobStatus == 5") == 1);
    let out = env.run(
        "condor_q",
        [
            &cluster,
            "-af",
            "HoldReasonCode",
            "HoldReasonSubCode",
            "HoldReason",
        ],
    );
    assert_eq!(
        out.stdout,
        "35 0 Unable to find image 'no-such-image:latest' locally docker: Error response from daemon: pull access denied for no-such-image. \n"
    );
    let seen: Vec<String> = docker_calls(&env).iter().map(|c| c[0].clone()).collect();
    assert_eq!(seen, ["-v", "info", "create", "rm"]);
    drop(master);
}

/// A pool whose apptainer is the stand-in, named by `SINGULARITY`.
fn apptainer_pool() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    let fake = install_fake(&env, "fake-apptainer", "apptainer");
    env.set_env("_CONDOR_SINGULARITY", &fake.to_string_lossy());
    std::fs::write(env.config_file(), "NUM_CPUS = 1\nMEMORY = 512\n").unwrap();
    env
}

#[test]
fn an_apptainer_is_advertised_and_runs_sif_jobs() {
    let env = apptainer_pool();
    let master = Master::start(&env);
    assert_eq!(
        slot_attrs(
            &env,
            &[
                "HasSingularity",
                "HasContainer",
                "HasDockerURL",
                "HasSandboxImage",
                "HasSIF",
                "HasSingularityPidNamespaces",
                "SingularityVersion",
                "HasDocker"
            ]
        ),
        "true true true true true true apptainer version 1.3.4 undefined\n"
    );
    env.write_file("image.sif", "");
    env.write_file(
        "job.sh",
        "#!/bin/sh\necho \"in $PWD with $FOO, args $*\"\nexit 4\n",
    );
    std::fs::set_permissions(
        env.work_dir().join("job.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let image = env.work_dir().join("image.sif");
    let cluster = submit(
        &env,
        &format!(
            "universe = container\ncontainer_image = {}\nexecutable = job.sh\n\
             arguments = one two\nenvironment = FOO=bar\nshould_transfer_files = YES\n\
             output = out.txt\nlog = a.log\nqueue\n",
            image.display()
        ),
    );
    wait_for("the job to finish", || count(&env, "true") == 0);
    assert_eq!(history_attr(&env, &format!("{cluster}.0"), "ExitCode"), "4");
    let out = std::fs::read_to_string(env.work_dir().join("out.txt")).unwrap();
    let scratch = out
        .strip_prefix("in ")
        .and_then(|s| s.split(" with ").next())
        .unwrap()
        .to_owned();
    assert!(
        scratch.starts_with(&*env.local_dir().join("execute").to_string_lossy()),
        "{out}"
    );
    assert_eq!(out, format!("in {scratch} with bar, args one two\n"));
    let calls = calls(&env.root().join("bin/apptainer.log"));
    let run: Vec<String> = calls
        .iter()
        .find(|c| c.first().is_some_and(|a| a == "-s"))
        .unwrap()
        .clone();
    let expected: Vec<String> = [
        "-s",
        "exec",
        "-S",
        "/tmp",
        "-S",
        "/var/tmp",
        "-W",
        &scratch,
        "--pwd",
        &scratch,
        "-B",
        &scratch,
        "--home",
        &scratch,
        "-C",
        // The image was transferred with the job (`transfer_container`).
        "image.sif",
        &format!("{scratch}/job.sh"),
        "one",
        "two",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(run, expected);
    drop(master);
}

#[test]
fn without_a_runtime_better_analyze_names_the_container_clause() {
    let env = TestEnvironment::new();
    std::fs::write(env.config_file(), "NUM_CPUS = 1\n").unwrap();
    let _master = Master::start(&env);
    let cluster = submit(
        &env,
        "universe = container\ncontainer_image = docker://alpine\nexecutable = /bin/true\nqueue\n",
    );
    let out = env.run("condor_q", ["-better-analyze", &cluster]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(
        out.stdout.contains(
            "[1]           0  TARGET.HasContainer\n[3]           0  TARGET.HasDockerURL\n"
        ),
        "{out}"
    );
    assert!(
        out.stdout
            .contains("      1 are rejected by your job's requirements\n"),
        "{out}"
    );
}
