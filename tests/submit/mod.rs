//! Submit descriptions: every case of tests/fixtures/submit/ (job ads that HTCondor 24.0.24's
//! own submit code made, or the error it gave) run through condorlite's submit library, with
//! the fixtures' working directory, environment, submit time and user.
//!
//! Each valid case must give the same number of jobs, each job exactly the reference's
//! attributes with the same values (old ClassAd syntax), and the same warnings. Each invalid
//! case must fail with the reference's message. [`KNOWN_DIFFERENCES`] lists the cases where
//! condorlite knowingly differs, and why; each of them must still differ (so that the list
//! stays minimal).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use condorlite::classad::unparse::expr_to_old_string;
use condorlite::config::{Config, Environment, LoadOptions, PlatformDirs};
use condorlite::submit::{SubmitContext, SubmitError, SubmitFile};
use serde::Deserialize;

/// Cases where condorlite knowingly differs from the fixtures, with the reason.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "invalid/007-queue-list-unterminated.sub",
        "The fixture's 'on line 5' comes from the Python binding re-reading the inline items \
         after jobs() consumed them; condor_submit reports the queue statement's line (4), \
         as condorlite does (submit_utils.cpp load_inline_q_foreach_items).",
    ),
    (
        "invalid/008-queue-from-inline-unterminated.sub",
        "As invalid/007: condor_submit reports the queue statement's line (3), not the \
         binding's 5.",
    ),
    (
        "invalid/014-no-queue-statement.sub",
        "HTCondor 24.0's condor_submit queues one job for a file without a queue statement \
         (submit.cpp submit_jobs, ENABLE_SUBMIT_FROM_TABLE: 'it is no longer an error for a \
         submit file to not have a queue statement'); the fixture generator assumed the old \
         error. condorlite follows the 24.0 code.",
    ),
    (
        "valid/102-queue-several-statements-new-cluster.sub",
        "The fixture emulates a second cluster with a fresh Submit object; condor_submit makes \
         the new cluster's first job from a copy of the previous cluster's ad \
         (submit_utils.cpp make_job_ad: procAd = new ClassAd(baseJob)), so SetImageSize finds \
         ImageSize already set and keeps cluster 1's value (1, not 5), as condorlite does.",
    ),
];

#[derive(Deserialize)]
struct Expected {
    invocation: Invocation,
    jobs_arguments: JobsArguments,
    identity_attributes: Vec<String>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Invocation {
    environment: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct JobsArguments {
    clusterid: i64,
    qdate: i64,
    owner: String,
}

#[derive(Deserialize)]
struct Case {
    file: String,
    #[serde(default)]
    ads: Option<Vec<BTreeMap<String, String>>>,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    parse_warnings: Option<String>,
    /// What condor_submit itself adds on standard error for the file.
    #[serde(default)]
    condor_submit_stderr: Option<String>,
    #[serde(default)]
    error: Option<ExpectedError>,
}

#[derive(Deserialize)]
struct ExpectedError {
    kind: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    condor_submit: Option<String>,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/submit")
        .canonicalize()
        .expect("the submit fixtures")
}

fn config(dir: &Path, env: &Environment) -> Config {
    let home = tempfile::tempdir().unwrap();
    let mut vars: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    vars.retain(|(k, _)| k != "CONDOR_CONFIG");
    vars.push((
        "CONDOR_CONFIG".into(),
        dir.join("condor_config").to_string_lossy().into_owned(),
    ));
    Config::load_with(LoadOptions {
        env: Environment::from_pairs(vars),
        subsystem: "SUBMIT".into(),
        local_name: None,
        root_config: None,
        keep_defaults: false,
        dirs: PlatformDirs {
            data_dir: Some(home.path().join("data")),
            config_dir: Some(home.path().join("config")),
        },
        machine: None,
    })
    .expect("the fixtures' configuration")
}

/// Runs one case; returns its differences from the reference (empty when it agrees).
fn run_case(expected: &Expected, case: &Case, config: &Config, env: &Environment) -> Vec<String> {
    let dir = fixtures();
    let dir_text = dir.to_string_lossy().into_owned();
    let subst = |s: &str| s.replace("@DIR@", &dir_text);
    let ctx = SubmitContext {
        config,
        cwd: dir.join("work"),
        env: env.clone(),
        owner: expected.jobs_arguments.owner.clone(),
        qdate: expected.jobs_arguments.qdate,
        utc_offset: Some(0),
        submit_method: 0,
        remote: false,
        command_line: Default::default(),
        preset_items: None,
        run_commands: true,
    };
    let name = format!("../{}", case.file);
    let text = String::from_utf8(std::fs::read(dir.join(&case.file)).unwrap()).unwrap();
    let mut diffs = Vec::new();
    let result = SubmitFile::parse(&text, &name, &ctx).and_then(|file| {
        let mut ads = Vec::new();
        let mut warnings = Vec::new();
        for job in file.jobs(expected.jobs_arguments.clusterid) {
            let job = job?;
            warnings.extend(job.warnings.iter().cloned());
            ads.push(job.flat_ad());
        }
        Ok((file, ads, warnings))
    });
    match (&case.error, result) {
        (None, Ok((file, ads, warnings))) => {
            let want = case.ads.as_deref().unwrap_or_default();
            if want.len() != ads.len() {
                diffs.push(format!("{} jobs, expected {}", ads.len(), want.len()));
            }
            for (i, (want, got)) in want.iter().zip(&ads).enumerate() {
                for (attr, value) in want {
                    let value = subst(value);
                    match got.lookup(attr) {
                        None => diffs.push(format!("job {i}: {attr} missing (expected {value})")),
                        Some(_) if expected.identity_attributes.contains(attr) => {}
                        Some(e) => {
                            let text = expr_to_old_string(e);
                            if text != value {
                                diffs.push(format!(
                                    "job {i}: {attr} = {text}\n      expected {value}"
                                ));
                            }
                        }
                    }
                }
                for (attr, e) in got.iter() {
                    if !want.keys().any(|k| k.eq_ignore_ascii_case(attr)) {
                        diffs.push(format!(
                            "job {i}: unexpected {attr} = {}",
                            expr_to_old_string(e)
                        ));
                    }
                }
            }
            // Warnings: the reference lists its error stack newest first.
            let mut got: Vec<String> = warnings
                .iter()
                .map(|w| w.trim_end_matches('\n').to_owned())
                .collect();
            got.reverse();
            got.dedup();
            let mut want_w: Vec<String> = case.warnings.iter().map(|w| subst(w)).collect();
            want_w.dedup();
            if got != want_w {
                diffs.push(format!("warnings {got:?}\n      expected {want_w:?}"));
            }
            let stack = condorlite::submit::error::stack_text(file.warning_stack());
            let want_stack = case.parse_warnings.clone().unwrap_or_default();
            if stack != want_stack {
                diffs.push(format!("parse warnings {stack:?}, expected {want_stack:?}"));
            }
        }
        (None, Err(e)) => diffs.push(format!("refused: {}", e.condor_submit_text())),
        (Some(want), Ok(_)) => diffs.push(format!("accepted; expected a {} error", want.kind)),
        (Some(want), Err(e)) => {
            let (got, expect) = match want.kind.as_str() {
                "parse" | "no-queue" => (
                    e.condor_submit_text(),
                    subst(want.condor_submit.as_deref().unwrap_or_default()),
                ),
                _ => (
                    match &e {
                        SubmitError::Parse { message, .. } => message.clone(),
                        other => other.to_string(),
                    },
                    subst(want.message.as_deref().unwrap_or_default()),
                ),
            };
            if got != expect {
                diffs.push(format!("error {got:?}\n      expected {expect:?}"));
            }
        }
    }
    diffs
}

#[test]
fn every_submit_fixture_agrees() {
    let dir = fixtures();
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("expected.json");
    let expected: Expected = serde_json::from_str(&text).expect("valid expected.json");
    let dir_text = dir.to_string_lossy().into_owned();
    let env = Environment::from_pairs(
        expected
            .invocation
            .environment
            .iter()
            .map(|(k, v)| (k.clone(), v.replace("@DIR@", &dir_text))),
    );
    let config = config(&dir, &env);
    let mut failures = Vec::new();
    let mut agree = 0;
    for case in &expected.cases {
        let diffs = run_case(&expected, case, &config, &env);
        let known = KNOWN_DIFFERENCES.iter().find(|(f, _)| *f == case.file);
        match (diffs.is_empty(), known) {
            (true, None) => agree += 1,
            (true, Some(_)) => failures.push(format!(
                "{}: agrees now; remove it from KNOWN_DIFFERENCES",
                case.file
            )),
            (false, Some(_)) => {
                if std::env::var_os("SUBMIT_FIXTURE_VERBOSE").is_some() {
                    eprintln!(
                        "known difference {}:\n    {}",
                        case.file,
                        diffs.join("\n    ")
                    );
                }
            }
            (false, None) => failures.push(format!("{}:\n    {}", case.file, diffs.join("\n    "))),
        }
    }
    if std::env::var_os("SUBMIT_FIXTURE_VERBOSE").is_some() {
        eprintln!("{agree} of {} cases agree", expected.cases.len());
    }
    assert!(
        failures.is_empty(),
        "{agree} of {} cases agree; {} differ:\n{}",
        expected.cases.len(),
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        agree + KNOWN_DIFFERENCES.len(),
        expected.cases.len(),
        "every case agrees or is a known difference"
    );
}

/// Submit files whose jobs differ in many ways, for [`shortcuts_change_nothing`]: after the
/// first two jobs of a statement, condorlite skips the steps that read nothing varying.
const VARYING: &[&str] = &[
    // A value equal to the cluster's, then different, then equal again.
    "executable = prog.sh\nrequest_memory = $(mem)\nrequest_disk = $(mem)M\n\
     queue mem in (128, 128, 256, 128, 512, 128)\n",
    "executable = prog.sh\narguments = \"a $(Process) 'b c'\"\nenvironment = \"A=$(Process) B=x\"\n\
     output = out.$(Process)\nerror = err.$(Step)\ninput = input.txt\nlog = job.log\nqueue 3 in (x, y)\n",
    "executable = prog.sh\ninitialdir = logs\ntransfer_input_files = a.dat, $(f)\n\
     should_transfer_files = YES\nwhen_to_transfer_output = ON_EXIT\nqueue f in (b.dat, c.dat, b.dat, c.dat)\n",
    "executable = prog.sh\ninitialdir = $(d)\noutput = o\ntransfer_input_files = input.txt\n\
     queue d in (logs, ., logs, .)\n",
    "executable = prog.sh\nhold = $(h)\npriority = $(Process) % 3\nnice_user = $(h)\n\
     queue h in (false, true, false, true)\n",
    "executable = prog.sh\n+Mine = $(Process) > 1\nMY.Other = \"$(Item)\"\n+Const = 7\n\
     requirements = Memory > $(Process)\nrank = $(Process)\nqueue Item in (p, q, r, s)\n",
    "executable = prog.sh\nconcurrency_limits = $(lim)\naccounting_group = $(grp)\n\
     accounting_group_user = u$(Process)\nqueue lim,grp from (\n a, g1\n b, g1\n a, g2\n b, g2\n)\n",
    "executable = prog.sh\nperiodic_hold = JobStatus == $(Process)\non_exit_remove = ExitCode == $(Process)\n\
     max_retries = $(Process)\nnotification = $(n)\nqueue n in (never, error, never, complete)\n",
    "executable = prog.sh\ndeferral_time = $(Process) + 100\njob_lease_duration = $(Process)\n\
     kill_sig = $(sig)\nqueue sig in (SIGTERM, 9, SIGTERM, SIGKILL)\n",
    "executable = prog.sh\nrequest_cpus = $(c)\nrequest_gpus = $(g)\nrequest_foo = $(Process)\n\
     queue c,g from (\n 1, 0\n 2, 0\n 1, 1\n 4, 2\n)\n",
    "executable = prog.sh\narguments = $RANDOM_CHOICE(7) $RANDOM_INTEGER(5, 5)\nbatch_name = b$(Process)\n\
     queue 4\n",
    "executable = prog.sh\nuniverse = $(u)\nqueue u in (vanilla, local, vanilla)\n",
    "executable = prog.sh\ngetenv = $(g)\ncoresize = $(Process)\nqueue g in (true, false, true, false)\n",
    // Submit commands as the statement's variables, each job its own row.
    "executable = prog.sh\nqueue input,arguments from (\n a.dat, -a $(Process)\n b.dat, -c\n b.dat, -c\n a.dat, -a\n)\n",
    "executable = prog.sh\nqueue environment,output from (\n A=1, o\n B=2, o\n B=2, p\n A=3, o\n)\n",
    "executable = prog.sh\nfile = $(Process)\noutput = $(file).out\n\
     transfer_output_files = $(file).out, keep\nqueue 4\nexecutable = other.sh\nqueue 3\n",
];

/// Every job is the same whether or not the steps that cannot vary are skipped.
#[test]
fn shortcuts_change_nothing() {
    let dir = fixtures();
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("expected.json");
    let expected: Expected = serde_json::from_str(&text).expect("valid expected.json");
    let dir_text = dir.to_string_lossy().into_owned();
    let env = Environment::from_pairs(
        expected
            .invocation
            .environment
            .iter()
            .map(|(k, v)| (k.clone(), v.replace("@DIR@", &dir_text))),
    );
    let config = config(&dir, &env);
    let ctx = SubmitContext {
        config: &config,
        cwd: dir.join("work"),
        env: env.clone(),
        owner: "tester".into(),
        qdate: 1_700_000_000,
        utc_offset: Some(0),
        submit_method: 0,
        remote: false,
        command_line: Default::default(),
        preset_items: None,
        run_commands: true,
    };
    let mut texts: Vec<(String, String)> = expected
        .cases
        .iter()
        .filter(|c| c.error.is_none())
        .map(|c| {
            let text = std::fs::read(dir.join(&c.file)).unwrap();
            (c.file.clone(), String::from_utf8(text).unwrap())
        })
        .collect();
    texts.extend(
        VARYING
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("varying #{i}"), (*t).to_owned())),
    );
    let own = |ad: &condorlite::classad::ClassAd| -> Vec<(String, String)> {
        ad.own_iter()
            .map(|(n, e)| (n.to_owned(), expr_to_old_string(e)))
            .collect()
    };
    let mut failures = Vec::new();
    for (name, text) in &texts {
        let file = match SubmitFile::parse(text, "test.sub", &ctx) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{name}: {}", e.condor_submit_text()));
                continue;
            }
        };
        let fast: Vec<_> = file.jobs(1).collect();
        let full: Vec<_> = file.jobs(1).without_shortcuts().collect();
        if name.starts_with("varying") {
            if let Some(Err(e)) = full.iter().find(|j| j.is_err()) {
                failures.push(format!("{name}: {}", e.condor_submit_text()));
            }
        }
        if fast.len() != full.len() {
            failures.push(format!(
                "{name}: {} jobs, {} in full",
                fast.len(),
                full.len()
            ));
            continue;
        }
        for (a, b) in fast.iter().zip(&full) {
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    let (pa, pb) = (own(&a.ad), own(&b.ad));
                    let (ca, cb) = (own(a.cluster_ad()), own(b.cluster_ad()));
                    if pa != pb || ca != cb || a.warnings != b.warnings {
                        failures.push(format!(
                            "{name}: job {}.{}:\n    {pa:?}\n    in full {pb:?}\n    {:?} / {:?}",
                            a.cluster_id, a.proc_id, a.warnings, b.warnings
                        ));
                    }
                }
                (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
                (a, b) => failures.push(format!(
                    "{name}: {:?}\n    in full {:?}",
                    a.as_ref().map(|j| j.proc_id),
                    b.as_ref().map(|j| j.proc_id)
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// condor_submit's own standard error for every valid case, run as a script runs it (the
/// binary, `-dry-run` so that nothing is queued, the fixtures' working directory, environment
/// and configuration): the extra text the reference's condor_submit writes
/// (`condor_submit_stderr`: the multi-queue deprecation, the empty-queue warning), then the
/// parse phase's and the library's warnings as `WARNING: ` lines. The unused-definition warnings, which only
/// condor_submit computes (the reference library has no such list), are left out of the
/// comparison; tests/condor_submit checks them.
#[test]
fn condor_submit_stderr_agrees() {
    let dir = fixtures();
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("expected.json");
    let expected: Expected = serde_json::from_str(&text).expect("valid expected.json");
    let dir_text = dir.to_string_lossy().into_owned();
    let home = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut with_extra = 0;
    for case in expected.cases.iter().filter(|c| c.error.is_none()) {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("condor_submit"))
            .env_clear()
            .envs(
                expected
                    .invocation
                    .environment
                    .iter()
                    .map(|(k, v)| (k.clone(), v.replace("@DIR@", &dir_text))),
            )
            .env("HOME", home.path())
            .env("_CONDOR_LOCAL_DIR", home.path().join("pool"))
            .env("_CONDOR_CONDORLITE_WARN_NO_MASTER", "false")
            .current_dir(dir.join("work"))
            .args(["-dry-run", "/dev/null"])
            .arg(format!("../{}", case.file))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let got: String = stderr
            .split_inclusive('\n')
            .filter(|l| !l.ends_with("was unused by condor_submit. Is it a typo?\n"))
            .collect();
        let mut want: String = case.condor_submit_stderr.clone().unwrap_or_default();
        // The parse phase's warnings (`Submit:<code>:<text>` in the fixture's error stack
        // text), as submit.cpp print_submit_parse_warnings prints them.
        for line in case.parse_warnings.as_deref().unwrap_or_default().lines() {
            let text = line.splitn(3, ':').nth(2).unwrap_or(line);
            want.push_str(&format!("WARNING: {}\n", text.replace("@DIR@", &dir_text)));
        }
        let mut warnings = case.warnings.clone();
        warnings.dedup();
        for w in warnings.iter().rev() {
            want.push_str(&format!("WARNING: {}\n", w.replace("@DIR@", &dir_text)));
        }
        with_extra += usize::from(case.condor_submit_stderr.is_some());
        compared += 1;
        if got != want || !out.status.success() {
            failures.push(format!(
                "{} ({}):\n  stderr   {got:?}\n  expected {want:?}",
                case.file, out.status
            ));
        }
    }
    assert!(
        compared >= 100 && with_extra >= 3,
        "only {compared} cases compared, {with_extra} with condor_submit's own text"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
