//! The job event log against HTCondor's own reader: for each fixture log in
//! tests/fixtures/eventlog/, condorlite's reader must see the events HTCondor's reader saw
//! (`<name>.expected.json`, written by generate.py with the `htcondor` Python package), and its
//! writer must give back the log byte for byte from those events.
//!
//! What is compared is what HTCondor's bindings show of an event: its type, cluster, proc,
//! time, and its ClassAd form with every value evaluated. Known differences from the 24.0
//! reader, and nothing else, are allowed (see `allowed_differences`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::Local;
use serde_json::{json, Value as Json};

use condorlite::classad::{eval_expr, ClassAd, Expr, Value};
use condorlite::eventlog::{format_event, read_events_with, Event, LogFormat, ReadOptions};

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/eventlog")
}

fn fixture_logs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture_dir())
        .expect("fixture directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .collect();
    names.sort();
    names
}

/// The format a fixture is written in, which its name says (see generate.py).
fn format_of(name: &str) -> LogFormat {
    let words: Vec<&str> = name.trim_end_matches(".log").split('-').collect();
    let has = |w: &str| words.contains(&w);
    LogFormat {
        xml: has("xml"),
        json: has("json"),
        iso_date: !has("legacy"),
        utc: has("utc"),
        sub_second: has("subsecond"),
    }
}

/// A value as generate.py writes what the bindings show: evaluated, with its type.
fn typed(e: &Expr, scope: &ClassAd) -> Json {
    match e {
        Expr::Ad(ad) => {
            let fields: serde_json::Map<String, Json> = ad
                .iter()
                .map(|(n, v)| (n.to_string(), typed(v, ad)))
                .collect();
            json!(["ad", fields])
        }
        Expr::List(items) => json!([
            "list",
            items.iter().map(|i| typed(i, scope)).collect::<Vec<_>>()
        ]),
        _ => match eval_expr(e, Some(scope), None).unwrap_or(Value::Error) {
            Value::Int(i) => json!(["int", i]),
            Value::Real(r) => json!(["real", r]),
            Value::Str(s) => json!(["str", &*s]),
            Value::Bool(b) => json!(["bool", b]),
            Value::Undefined => json!(["undefined"]),
            Value::Error => json!(["error"]),
            v @ (Value::List(_) | Value::Ad(_)) => typed(&Expr::from_value(&v), scope),
            other => json!(["other", format!("{other:?}")]),
        },
    }
}

fn fields_of(ad: &ClassAd) -> BTreeMap<String, Json> {
    ad.iter()
        .map(|(n, e)| (n.to_string(), typed(e, ad)))
        .collect()
}

const WARNINGS_PREFIX: &str =
    "WARNING: Committed job submission into the queue with the following warning(s): ";

/// Where the 24.0 reader is known to see less or differently, and why.
fn allowed_differences(want: &mut BTreeMap<String, Json>, got: &mut BTreeMap<String, Json>) {
    let my_type = want.get("MyType").and_then(|t| t[1].as_str()).unwrap_or("");
    match my_type {
        // The 24.0 reader keeps the text form's "WARNING: Committed ..." prefix in Warnings.
        "SubmitEvent" => {
            if let Some(w) = want.get_mut("Warnings") {
                if let Some(s) = w[1].as_str().and_then(|s| s.strip_prefix(WARNINGS_PREFIX)) {
                    *w = json!(["str", s]);
                }
            }
        }
        // The reason code and subcode of an eviction, and its `Reason:` line when the job was
        // not requeued, are newer than the 24.0 series (HTCONDOR-2749): its reader skips them.
        "JobEvictedEvent" => {
            for k in ["ReasonCode", "ReasonSubCode"] {
                if !want.contains_key(k) {
                    got.remove(k);
                }
            }
            let requeued = got.get("TerminatedAndRequeued") == Some(&json!(["bool", true]));
            if !requeued && !want.contains_key("Reason") {
                got.remove("Reason");
            }
        }
        _ => {}
    }
}

/// The differences between an event as read and as the reference read it.
fn compare(name: &str, i: usize, got: &Event, want: &Json, utc: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut check = |what: &str, g: Json, w: &Json| {
        if &g != w {
            problems.push(format!("{name} event {}: {what}: got {g}, want {w}", i + 1));
        }
    };
    check("type", json!(got.number()), &want["type"]);
    check("cluster", json!(got.cluster), &want["cluster"]);
    check("proc", json!(got.proc), &want["proc"]);
    // The reference read local times in UTC; here they are read in the local zone, so local
    // times compare as the wall-clock time they name, UTC ones as instants.
    let (stamp, time) = if utc {
        let ad = got.to_classad(true);
        let t = ad
            .lookup("EventTime")
            .and_then(|e| e.as_literal())
            .and_then(|v| v.as_str());
        (
            got.time.timestamp(),
            t.map(|t| t.trim_end_matches('Z').to_string()),
        )
    } else {
        let wall = got.time.with_timezone(&Local).naive_local().and_utc();
        let ad = got.to_classad(false);
        let t = ad
            .lookup("EventTime")
            .and_then(|e| e.as_literal())
            .and_then(|v| v.as_str());
        (wall.timestamp(), t.map(str::to_string))
    };
    check("timestamp", json!(stamp), &want["timestamp"]);
    check(
        "EventTime",
        json!(["str", time]),
        &want["fields"]["EventTime"],
    );

    let mut got_fields = fields_of(&got.to_classad(false));
    let mut want_fields: BTreeMap<String, Json> = want["fields"]
        .as_object()
        .expect("fields")
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    got_fields.remove("EventTime");
    want_fields.remove("EventTime");
    allowed_differences(&mut want_fields, &mut got_fields);
    for k in want_fields
        .keys()
        .chain(got_fields.keys())
        .collect::<std::collections::BTreeSet<_>>()
    {
        let (g, w) = (got_fields.get(k), want_fields.get(k));
        if g != w {
            let show = |v: Option<&Json>| v.map_or("(none)".to_string(), Json::to_string);
            problems.push(format!(
                "{name} event {}: {k}: got {}, want {}",
                i + 1,
                show(g),
                show(w)
            ));
        }
    }
    problems
}

#[test]
fn the_reader_sees_what_htcondor_sees() {
    let logs = fixture_logs();
    assert!(logs.len() >= 6, "fixtures missing: {logs:?}");
    let mut problems = Vec::new();
    let mut total = 0;
    for name in &logs {
        let expected_path = fixture_dir().join(name.replace(".log", ".expected.json"));
        let expected: Json = serde_json::from_str(
            &std::fs::read_to_string(&expected_path)
                .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display())),
        )
        .expect("expected JSON");
        let options = ReadOptions {
            legacy_year: expected["legacy_year"].as_i64().map(|y| y as i32),
        };
        let events =
            read_events_with(fixture_dir().join(name), &options).unwrap_or_else(|e| panic!("{e}"));
        let want = expected["events"].as_array().expect("events");
        if events.len() != want.len() {
            problems.push(format!(
                "{name}: {} events, want {}",
                events.len(),
                want.len()
            ));
            continue;
        }
        total += events.len();
        let utc = format_of(name).utc;
        for (i, (got, want)) in events.iter().zip(want).enumerate() {
            problems.extend(compare(name, i, got, want, utc));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(total >= 100, "only {total} events compared");
}

#[test]
fn the_writer_gives_back_each_log_byte_for_byte() {
    for name in fixture_logs() {
        let path = fixture_dir().join(&name);
        let text = std::fs::read_to_string(&path).unwrap();
        let options = ReadOptions {
            legacy_year: Some(2024),
        };
        let events = read_events_with(&path, &options).unwrap_or_else(|e| panic!("{e}"));
        let format = format_of(&name);
        let written: String = events
            .iter()
            .map(|e| format_event(e, &format).unwrap())
            .collect();
        if written != text {
            let line = written
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .map_or(written.lines().count().min(text.lines().count()), |i| i);
            panic!(
                "{name}: differs at line {}:\n  written: {:?}\n  fixture: {:?}",
                line + 1,
                written.lines().nth(line),
                text.lines().nth(line)
            );
        }
    }
}

/// `condor_q -userlog` and `condor_history -userlog`: the job ads made up from each log of
/// tests/fixtures/userlog/ are those HTCondor 24.0's userlog_to_classads makes (its steps
/// applied by generate.py to what the reference's reader reads), owner and time aside.
#[test]
fn job_ads_from_a_log_are_htcondors() {
    use condorlite::eventlog::{job_ads_from_events, LogAdContext};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/userlog");
    let mut logs: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .collect();
    logs.sort();
    assert!(!logs.is_empty(), "no fixture logs in {}", dir.display());
    let mut total = 0;
    for name in &logs {
        let expected: Json = serde_json::from_str(
            &std::fs::read_to_string(dir.join(name.replace(".log", ".expected.json")))
                .expect("expected JSON"),
        )
        .expect("expected JSON");
        let events = read_events_with(dir.join(name), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let cx = LogAdContext {
            log_name: name,
            owner: expected["owner"].as_str().expect("owner"),
            now: expected["now"].as_i64().expect("now"),
            jobs: &[],
        };
        let got: Vec<BTreeMap<String, Json>> = job_ads_from_events(events, &cx)
            .iter()
            .map(fields_of)
            .collect();
        let want: Vec<BTreeMap<String, Json>> =
            serde_json::from_value(expected["ads"].clone()).expect("ads");
        assert_eq!(got.len(), want.len(), "{name}: number of job ads");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{name}");
        }
        total += got.len();
    }
    assert!(total >= 5, "only {total} job ads compared");
}
