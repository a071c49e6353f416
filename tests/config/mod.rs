//! Configuration: the reference fixtures (every knob HTCondor's own library computed for the
//! files in tests/fixtures/config/) and `condor_config_val`'s command line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use condorlite::config::{Config, Environment, LoadOptions, PlatformDirs};
use serde::Deserialize;

use crate::common::TestEnvironment;

mod defaults;

#[derive(Deserialize)]
struct Expected {
    valid: BTreeMap<String, Valid>,
    invalid: BTreeMap<String, Invalid>,
}

#[derive(Deserialize)]
struct Valid {
    env: BTreeMap<String, String>,
    subsystem: String,
    knobs: BTreeMap<String, Option<String>>,
}

#[derive(Deserialize)]
struct Invalid {
    file: String,
    line: u32,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config")
}

fn load(
    path: &Path,
    env: &BTreeMap<String, String>,
    subsystem: &str,
) -> Result<Config, condorlite::config::ConfigError> {
    let home = tempfile::tempdir().unwrap();
    let mut vars = vec![
        (
            "CONDOR_CONFIG".to_owned(),
            path.to_string_lossy().into_owned(),
        ),
        (
            "HOME".to_owned(),
            home.path().to_string_lossy().into_owned(),
        ),
    ];
    vars.extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
    Config::load_with(LoadOptions {
        env: Environment::from_pairs(vars),
        subsystem: subsystem.into(),
        local_name: None,
        root_config: None,
        keep_defaults: false,
        dirs: PlatformDirs {
            data_dir: Some(home.path().join("data")),
            config_dir: Some(home.path().join("config")),
        },
        machine: None,
    })
}

fn expected() -> Expected {
    let text = std::fs::read_to_string(fixtures().join("expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("valid expected.json")
}

#[test]
fn every_reference_lookup_agrees() {
    let expected = expected();
    let mut failures = Vec::new();
    let mut count = 0;
    for (case, valid) in &expected.valid {
        let path = fixtures().join("valid").join(case);
        let config = match load(&path, &valid.env, &valid.subsystem) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{case}: {e}"));
                continue;
            }
        };
        let view = config.view();
        for (knob, want) in &valid.knobs {
            count += 1;
            let got = view.raw(knob).map(|_| {
                view.string(knob)
                    .map(Option::unwrap_or_default)
                    .map_err(|e| e.to_string())
            });
            let ok = match (want, &got) {
                (None, None) => true,
                (Some(w), Some(Ok(g))) => w == g,
                _ => false,
            };
            if !ok {
                failures.push(format!("{case}: {knob}: want {want:?}, got {got:?}"));
            }
        }
    }
    assert!(count >= 150, "only {count} lookups");
    assert!(
        failures.is_empty(),
        "{} of {count} lookups differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_reference_error_agrees() {
    let expected = expected();
    // A missing or truncated fixture must not pass for agreement (16 cases today).
    assert!(
        expected.invalid.len() >= 16,
        "only {} error cases",
        expected.invalid.len()
    );
    let mut failures = Vec::new();
    for (case, invalid) in &expected.invalid {
        let path = fixtures().join("invalid").join(case);
        match load(&path, &BTreeMap::new(), "TOOL") {
            Ok(_) => failures.push(format!("{case}: accepted")),
            Err(e) => {
                let file = e.file.as_deref().map(|f| {
                    Path::new(f)
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                });
                // HTCondor reports a missing include as the missing file, line 0; condorlite
                // names the include line and the missing file in the message.
                let agrees = if invalid.line == 0 {
                    e.message.contains(&invalid.file)
                } else {
                    file.as_deref() == Some(invalid.file.as_str()) && e.line == Some(invalid.line)
                };
                if !agrees {
                    failures.push(format!(
                        "{case}: want {}, line {}; got {e}",
                        invalid.file, invalid.line
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn config_val(env: &TestEnvironment, args: &[&str]) -> crate::common::CommandOutput {
    env.run("condor_config_val", args)
}

#[test]
fn prints_values_and_reports_undefined() {
    let env = TestEnvironment::new();
    std::fs::write(env.config_file(), "FOO = bar\nX = $(FOO) baz\n").unwrap();
    let out = config_val(&env, &["X", "foo", "nope"]);
    assert_eq!(
        out.to_string(),
        "bar baz\nbar\n------- stderr -------\nNot defined: NOPE\n[exit status: 1]"
    );
    let out = config_val(&env, &["-raw", "X"]);
    assert_eq!(out.to_string(), "$(FOO) baz\n[exit status: 0]");
    // HTCondor 24.0 does not implement -default: it says so and prints the value.
    std::fs::write(env.config_file(), "PRIORITY_HALFLIFE = 100\n").unwrap();
    let out = config_val(&env, &["-default", "PRIORITY_HALFLIFE"]);
    assert_eq!(
        out.to_string(),
        "100\n------- stderr -------\n-default not (yet) supported\n[exit status: 0]"
    );
}

#[test]
fn personal_pool_layout_follows_local_dir() {
    let env = TestEnvironment::new();
    let out = config_val(&env, &["LOCAL_DIR", "SPOOL", "LOG", "EXECUTE", "RUN"]);
    let local = env.local_dir();
    let l = local.display();
    assert_eq!(
        out.stdout,
        format!("{l}\n{l}/spool\n{l}/log\n{l}/execute\n{l}/run\n"),
        "{out}"
    );
}

#[test]
fn verbose_names_the_file_and_line() {
    let env = TestEnvironment::new();
    std::fs::write(env.config_file(), "A = 1\nB = $(A)\n").unwrap();
    let out = config_val(&env, &["-verbose", "B", "MINUTE"]);
    assert_eq!(
        env.normalize(&out.to_string()),
        "B = 1\n # at: $TEST_ENV/condor_config, line 2\n # raw: B = $(A)\n\n\
         MINUTE = 60\n # at: <Default>\n # raw: MINUTE = 60\n\n[exit status: 0]"
    );
}

#[test]
fn dump_lists_matching_names_sorted() {
    let env = TestEnvironment::new();
    std::fs::write(
        env.config_file(),
        "ZED_FIXTURE = 2\nabc_fixture = $(ZED_FIXTURE)\n",
    )
    .unwrap();
    let out = config_val(&env, &["-dump", "_fixture$"]);
    assert_eq!(
        env.normalize(&out.stdout).lines().skip(1).collect::<Vec<_>>().join("\n"),
        "\n# Parameters with names that match _fixture$:\nabc_fixture = $(ZED_FIXTURE)\nZED_FIXTURE = 2\n\
         # Contributing configuration file(s):\n#\t$TEST_ENV/condor_config"
    );
}

#[test]
fn set_and_unset_edit_the_user_file() {
    let env = TestEnvironment::new();
    let out = config_val(&env, &["-set", "MAX_JOBS_RUNNING = 10"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert!(
        out.stdout
            .starts_with("Successfully set configuration \"MAX_JOBS_RUNNING = 10\""),
        "{out}"
    );
    assert_eq!(config_val(&env, &["MAX_JOBS_RUNNING"]).stdout, "10\n");
    let out = config_val(&env, &["-config"]);
    assert!(
        env.normalize(&out.stdout)
            .contains("$TEST_ENV/home/.config/condorlite/user_config"),
        "{out}"
    );
    let out = config_val(&env, &["-unset", "MAX_JOBS_RUNNING"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_ne!(config_val(&env, &["MAX_JOBS_RUNNING"]).stdout, "10\n");
    let out = config_val(&env, &["-set", "not an assignment"]);
    assert_eq!(out.status, Some(1), "{out}");
}

#[test]
fn environment_overrides_win() {
    let mut env = TestEnvironment::new();
    std::fs::write(env.config_file(), "NEGOTIATOR_INTERVAL = 20\n").unwrap();
    env.set_env("_CONDOR_NEGOTIATOR_INTERVAL", "5");
    let out = config_val(&env, &["-v", "NEGOTIATOR_INTERVAL"]);
    assert!(
        out.stdout
            .starts_with("NEGOTIATOR_INTERVAL = 5\n # at: <Environment>\n"),
        "{out}"
    );
}

#[test]
fn summary_groups_by_file() {
    let env = TestEnvironment::new();
    std::fs::write(
        env.config_file(),
        "B = 2\nA = 1\nMINUTE = 60\nuse ROLE : Execute\n",
    )
    .unwrap();
    let out = config_val(&env, &["-summary"]);
    let text = env.normalize(&out.stdout);
    assert!(
        text.starts_with("# condor_config_val $CondorVersion: 24.0.24"),
        "{text}"
    );
    assert!(
        text.contains(
            "\n#\n# from $TEST_ENV/condor_config\n#\nB = 2\nA = 1\nDAEMON_LIST = MASTER STARTD\n"
        ),
        "{text}"
    );
}

#[test]
fn malformed_file_names_file_and_line() {
    let env = TestEnvironment::new();
    std::fs::write(env.config_file(), "A = 1\nif true\nB = 2\n").unwrap();
    let out = config_val(&env, &["A"]);
    assert_eq!(
        env.normalize(&out.to_string()),
        "------- stderr -------\n\
         condor_config_val: $TEST_ENV/condor_config, line 3: endif(s) not found before end-of-file\n\
         [exit status: 1]"
    );
}

#[test]
fn templates_are_listed_and_shown() {
    let env = TestEnvironment::new();
    let out = config_val(&env, &["use", "role"]);
    assert!(
        out.stdout
            .starts_with("use ROLE accepts\n  CentralManager\n"),
        "{out}"
    );
    let out = config_val(&env, &["use", "role:personal"]);
    assert!(out.stdout.starts_with("use ROLE:Personal is\n"), "{out}");
    assert!(
        out.stdout
            .contains("DAEMON_LIST=MASTER COLLECTOR NEGOTIATOR STARTD SCHEDD"),
        "{out}"
    );
}

/// Without a root file (HTCondor would refuse to start), `-config` says there is none and
/// what the values come from.
#[test]
fn config_without_a_file_says_so() {
    let mut env = TestEnvironment::new();
    env.set_env("CONDOR_CONFIG", "/dev/null");
    let out = config_val(&env, &["-config"]);
    assert_eq!(
        out.to_string(),
        "\t\n------- stderr -------\nConfiguration source:\n\t(no configuration file: \
         CONDOR_CONFIG is not set, or is /dev/null; the values are condorlite's built-in \
         defaults, with the user's file and _CONDOR_ variables)\n[exit status: 0]"
    );
    let out = config_val(&env, &["-config"]);
    assert_eq!(
        out.stdout, "\t\n",
        "stdout stays HTCondor's: the root file's line"
    );
    let env = TestEnvironment::new();
    let out = config_val(&env, &["-config"]);
    assert!(!out.stderr.contains("no configuration file"), "{out}");
}
