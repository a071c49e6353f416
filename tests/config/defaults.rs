//! `condor_config_val` on HTCondor's default table: every knob the reference library
//! (tests/fixtures/config/generate_defaults.py) recorded with an empty configuration prints as
//! HTCondor prints it, and the other forms (`-verbose`, `-raw`, `-dump`, `-default`) show a
//! default as config_val.cpp does.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::common::TestEnvironment;

#[derive(Deserialize)]
struct Fixture {
    reference: String,
    /// What `condor_config_val NAME` prints; `None` for "Not defined".
    knobs: BTreeMap<String, Option<String>>,
    /// The knobs left out, with the reason (a value that depends on the machine, ...).
    excluded: BTreeMap<String, String>,
}

fn fixture() -> Fixture {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config/defaults.json");
    let text = std::fs::read_to_string(path).expect("defaults.json");
    serde_json::from_str(&text).expect("valid defaults.json")
}

/// What `condor_config_val NAME...` prints for `knobs`: the values on stdout, "Not defined"
/// on stderr, exit status 1 when something is not defined.
fn expected_output(knobs: &[(&String, &Option<String>)]) -> String {
    let mut stdout = String::new();
    let mut stderr = String::new();
    for (name, value) in knobs {
        match value {
            Some(v) => stdout.push_str(&format!("{v}\n")),
            None => stderr.push_str(&format!("Not defined: {}\n", name.to_ascii_uppercase())),
        }
    }
    let status = i32::from(!stderr.is_empty());
    crate::common::CommandOutput {
        stdout,
        stderr,
        status: Some(status),
    }
    .to_string()
}

#[test]
fn every_reference_default_prints_as_htcondor_prints_it() {
    let fixture = fixture();
    assert!(fixture.reference.starts_with("htcondor 24.0."));
    // The fixture asks for every knob of the table and every one the reference defines
    // (1,168), and leaves out fewer than 150 whose values are the machine's.
    assert!(
        fixture.knobs.len() >= 1000,
        "only {} knobs in the fixture",
        fixture.knobs.len()
    );
    assert!(fixture.excluded.len() < 150 && fixture.excluded.values().all(|r| !r.is_empty()));
    let mut env = TestEnvironment::new();
    // The test environment turns the machine's container runtimes off: here the defaults.
    env.remove_env("_CONDOR_DOCKER");
    env.remove_env("_CONDOR_SINGULARITY");
    // One run for every knob whose value is one line (a line per knob), and a run for each
    // knob whose value has several.
    let (one_line, several): (Vec<_>, Vec<_>) = fixture
        .knobs
        .iter()
        .partition(|(_, v)| !v.as_deref().unwrap_or_default().contains('\n'));
    let names: Vec<&str> = one_line.iter().map(|(k, _)| k.as_str()).collect();
    let all_agree = env.run("condor_config_val", &names).to_string() == expected_output(&one_line);
    let mut failures = Vec::new();
    for knob in several
        .iter()
        .chain(if all_agree { &[][..] } else { &one_line[..] })
    {
        let want = expected_output(std::slice::from_ref(knob));
        let got = env.run("condor_config_val", [knob.0]).to_string();
        if got != want {
            failures.push(format!("{}:\n  want {want:?}\n  got  {got:?}", knob.0));
        }
    }
    assert!(
        all_agree && failures.is_empty(),
        "{} of {} knobs differ from {}:\n{}",
        failures.len(),
        fixture.knobs.len(),
        fixture.reference,
        failures.join("\n")
    );
}

#[test]
fn verbose_raw_and_dump_show_defaults_as_config_val_does() {
    let env = TestEnvironment::new();
    // A default, one in a subsystem's table, and a knob the table lists without a default
    // (param_get_info finds it, with no value: "Not defined", yet located and raw).
    let out = env.run(
        "condor_config_val",
        [
            "-verbose",
            "NEGOTIATOR_MIN_INTERVAL",
            "master.pid_snapshot_interval",
            "SCHEDD_INTERVAL",
        ],
    );
    assert_eq!(
        out.to_string(),
        "NEGOTIATOR_MIN_INTERVAL = 5\n # at: <Default>\n # raw: NEGOTIATOR_MIN_INTERVAL = 5\n\n\
         MASTER.PID_SNAPSHOT_INTERVAL = 60\n # at: <Default>\n # raw: MASTER.PID_SNAPSHOT_INTERVAL = 60\n\n\
         \x20# at: <Default>\n # raw: SCHEDD_INTERVAL = \n\n\
         ------- stderr -------\nNot defined: SCHEDD_INTERVAL\n[exit status: 1]"
    );
    let out = env.run(
        "condor_config_val",
        ["-raw", "SCHEDD_INTERVAL", "COLLECTOR_SOCKET_BUFSIZE"],
    );
    assert_eq!(out.to_string(), "\n10000*1024\n[exit status: 0]");
    let out = env.run(
        "condor_config_val",
        [
            "-subsystem",
            "master",
            "PID_SNAPSHOT_INTERVAL",
            "IsMaster",
            "IsTool",
        ],
    );
    assert_eq!(out.to_string(), "60\ntrue\nfalse\n[exit status: 0]");

    // -dump lists the table's knobs, those without a default too; -verbose adds the default.
    let out = env.run(
        "condor_config_val",
        [
            "-dump",
            "-verbose",
            "^(SCHEDD_INTERVAL|NEGOTIATOR_MIN_INTERVAL|IsTool)$",
        ],
    );
    let body: Vec<&str> = out.stdout.lines().skip(1).collect();
    assert_eq!(
        body.join("\n"),
        "\n# Parameters with names that match ^(SCHEDD_INTERVAL|NEGOTIATOR_MIN_INTERVAL|IsTool)$:\n\
         TOOL.IsTool = true\n # at: <Default>\n # expanded: true\n # default: true\n\
         NEGOTIATOR_MIN_INTERVAL = 5\n # at: <Default>\n # expanded: 5\n # default: 5\n\
         SCHEDD_INTERVAL = \n # at: <Default>\n # expanded: ",
        "{out}"
    );
    let out = env.run("condor_config_val", ["-dump"]);
    let listed = out.stdout.lines().filter(|l| l.contains(" = ")).count();
    assert!(listed > 1087, "-dump listed {listed} knobs");
}

#[test]
fn summary_leaves_out_what_matches_the_table() {
    let env = TestEnvironment::new();
    // A value equal to the table's default, an empty one where the table has none, and a
    // subsystem setting (compared with the global default, 15, as param_default_get_id does).
    std::fs::write(
        env.config_file(),
        "NEGOTIATOR_MIN_INTERVAL = 5\nSCHEDD_INTERVAL =\nMASTER.PID_SNAPSHOT_INTERVAL = 60\nFOO = bar\n",
    )
    .unwrap();
    let out = env.run("condor_config_val", ["-summary"]);
    let text = env.normalize(&out.stdout);
    assert!(
        text.contains(
            "\n#\n# from $TEST_ENV/condor_config\n#\nMASTER.PID_SNAPSHOT_INTERVAL = 60\nFOO = bar\n\n"
        ),
        "{text}"
    );
}
