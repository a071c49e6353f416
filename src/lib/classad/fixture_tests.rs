//! Differential tests against fixtures generated from HTCondor's own ClassAd
//! library (tests/fixtures/classad/generate.py): every expression case and
//! every ad-printing case must agree with the reference.
//!
//! Ads print in the reference's hash order, which nobody can rely on, so ad
//! renderings are compared with their attributes sorted.

use std::path::PathBuf;

use serde_json::Value as Json;

use super::ast::Expr;
use super::parser::{parse_ad, parse_expr};
use super::unparse::{ad_to_json, ad_to_old, ad_to_string, expr_to_string, value_to_string};
use super::{eval_expr, ClassAd};

fn fixture(name: &str) -> Vec<Json> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/classad")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("fixture is JSON")
}

/// The text of `s` with the attributes of every nested ad (`[ ... ]`) sorted, and nothing
/// else changed: the reference prints an ad's attributes in its hash order, which nobody can
/// rely on, so only their order is taken out of the comparison. Done on the text itself
/// (strings and quoted names skipped), not through condorlite's own parser and printer,
/// which would hide a printing difference by applying the same rendering to both sides.
/// The whitespace around each attribute stays where it was by position (first, middle,
/// last), so layouts still compare exactly.
fn normalize(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let end = span_end(&chars, i);
        if chars[i] == '[' {
            out.push('[');
            out.push_str(&sorted_ad_body(&chars[i + 1..end - 1]));
            out.push(']');
        } else {
            out.extend(&chars[i..end]);
        }
        i = end;
    }
    out
}

/// Where the token starting at `i` ends: past a quoted string or name, past the matching
/// bracket of `[`, `{` or `(`, or one character on.
fn span_end(chars: &[char], i: usize) -> usize {
    match chars[i] {
        q @ ('"' | '\'') => {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != q {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            (j + 1).min(chars.len())
        }
        open @ ('[' | '{' | '(') => {
            let close = match open {
                '[' => ']',
                '{' => '}',
                _ => ')',
            };
            let mut j = i + 1;
            while j < chars.len() && chars[j] != close {
                j = span_end(chars, j);
            }
            (j + 1).min(chars.len())
        }
        _ => i + 1,
    }
}

/// An ad's body (between its brackets): its `;`-separated attributes normalized and sorted
/// by their trimmed text, each position keeping its own surrounding whitespace.
fn sorted_ad_body(body: &[char]) -> String {
    let mut items: Vec<String> = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < body.len() {
        if body[i] == ';' {
            items.push(body[start..i].iter().collect());
            start = i + 1;
            i += 1;
        } else {
            i = span_end(body, i);
        }
    }
    items.push(body[start..].iter().collect());
    let mut texts: Vec<String> = items.iter().map(|t| normalize(t.trim())).collect();
    texts.sort();
    items
        .iter()
        .zip(texts)
        .map(|(item, text)| {
            let lead = &item[..item.len() - item.trim_start().len()];
            let trail = &item[item.trim_end().len()..];
            if item.trim().is_empty() {
                item.clone()
            } else {
                format!("{lead}{text}{trail}")
            }
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn ad_of(j: &Json) -> Option<ClassAd> {
    j.as_str()
        .map(|s| parse_ad(s).unwrap_or_else(|e| panic!("context ad {s:?}: {e}")))
}

#[test]
fn expressions_agree_with_the_reference() {
    let cases = fixture("expressions.json");
    assert!(cases.len() >= 400, "too few cases: {}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let text = case["expr"].as_str().expect("expr");
        let my = ad_of(&case["my"]);
        let target = ad_of(&case["target"]);
        let parsed = parse_expr(text);
        let strict_error = case["strict_parse_error"].as_bool();
        let want_parse_error =
            strict_error.unwrap_or(case["parse_error"].as_bool().unwrap_or(false));
        if !want_parse_error && case.get("result").is_none() && case.get("eval_exception").is_none()
        {
            // The reference's wrapper rejected it, but a strict parse accepts it:
            // only the parse can be compared.
            if let Err(e) = &parsed {
                failures.push(format!("{text}: want a strict parse, got {e}"));
            }
            continue;
        }
        let got = match (&parsed, want_parse_error) {
            (Err(_), true) => continue,
            (Ok(e), true) => format!("parsed as {}", expr_to_string(e)),
            (Err(e), false) => format!("parse error: {e}"),
            (Ok(e), false) => match eval_expr(
                e,
                Some(my.as_ref().unwrap_or(&ClassAd::new())),
                target.as_ref(),
            ) {
                Ok(v) => normalize(&value_to_string(&v)),
                Err(_) => "evaluation failed".to_string(),
            },
        };
        let want = if want_parse_error {
            "parse error".to_string()
        } else if case.get("eval_exception").is_some() {
            "evaluation failed".to_string()
        } else {
            normalize(case["result"].as_str().expect("result"))
        };
        let known = KNOWN_EXPRESSION_DIFFERENCES.iter().any(|(e, _)| *e == text);
        if known && got == want {
            failures.push(format!(
                "{text} agrees now: remove it from KNOWN_EXPRESSION_DIFFERENCES"
            ));
        } else if got != want && !known {
            failures.push(format!(
                "[{}] {text}  my={} target={}\n    want {want}\n    got  {got}",
                case["section"].as_str().unwrap_or(""),
                case["my"],
                case["target"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from the reference:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// Inputs where condorlite knowingly parts from the reference, and why: (syntax, input,
/// reason). Each must still differ, so that the list stays exact.
const KNOWN_AD_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "old",
        "A = 1\nthis is not valid\nB = 2\n",
        "an invalid old-syntax line is an error naming the line, not a silent end of the ad",
    ),
    (
        "old",
        "A = 1;\nB = 2;\n",
        "old-syntax values end at the end of the line; a trailing ';' is an error",
    ),
    (
        "old",
        "[ a = 1 ]",
        "old-syntax input is not sniffed for new syntax",
    ),
    (
        "json",
        r#"{"S": "plain", "Q": "a\"b", "BS": "a\\b", "NL": "a\nb", "U": "\u00e9", "U2": "é", "SL": "a\/b", "TAB": "\t"}"#,
        JSON_ESCAPES,
    ),
    ("json", r#"{"U": "\u0041\u00e9"}"#, JSON_ESCAPES),
    ("json", r#"{"U": "\u00e9"}"#, JSON_ESCAPES),
    (
        "json",
        r#"{"P": "\ud83c\udf89"}"#,
        "JSON surrogate pairs decode to the character, not to the reference's garbage bytes",
    ),
];

const JSON_ESCAPES: &str =
    "JSON \\u escapes above U+007F decode to the character (é), not to the reference's \
     garbage bytes (\\003\\001)";

/// Expressions where condorlite knowingly parts from the reference: (expression, reason).
/// Each must still differ.
const KNOWN_EXPRESSION_DIFFERENCES: &[(&str, &str)] = &[(
    r#""\377""#,
    "strings are UTF-8: an octal escape giving a byte that is not UTF-8 becomes U+FFFD, \
     where HTCondor keeps the raw byte",
)];

#[test]
fn ad_printing_agrees_with_the_reference() {
    let cases = fixture("ads.json");
    // A missing or truncated fixture must not pass for agreement (114 cases today).
    assert!(cases.len() >= 110, "too few ad cases: {}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let input = case["input"].as_str().expect("input");
        let syntax = case["syntax"].as_str().unwrap_or("json");
        let diffs = ad_case_differences(case, input);
        let known = KNOWN_AD_DIFFERENCES
            .iter()
            .any(|(s, i, _)| *s == syntax && *i == input);
        match (diffs.is_empty(), known) {
            (true, true) => failures.push(format!(
                "{syntax} {input:?} agrees now: remove it from KNOWN_AD_DIFFERENCES"
            )),
            (false, false) => failures.extend(diffs),
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} ad cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// How condorlite's parse and renderings of one ad case differ from the reference's.
fn ad_case_differences(case: &Json, input: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let parsed = match case["syntax"].as_str() {
        Some("new") => super::parser::parse_first_ad(input).map_err(|e| e.to_string()),
        Some("old") => super::parse_old_ad(input).map_err(|e| e.to_string()),
        _ => super::json::parse_first_json_ad(input).map_err(|e| e.to_string()),
    };
    let parsed = parsed.and_then(|ad| {
        if ad.is_empty() && case["syntax"] != "new" {
            Err("empty".into())
        } else {
            Ok(ad)
        }
    });
    let want_error = case["parse_error"].as_bool().unwrap_or(false);
    let ad = match (parsed, want_error) {
        (Err(_), true) => return failures,
        (Ok(ad), true) => {
            failures.push(format!(
                "{input:?}: want a parse error, got {}",
                ad_to_string(&ad)
            ));
            return failures;
        }
        (Err(e), false) => {
            failures.push(format!("{input:?}: parse error {e}"));
            return failures;
        }
        (Ok(ad), false) => ad,
    };
    if let Some(want) = case["new"].as_str() {
        let got = normalize(&ad_to_string(&ad));
        if got != normalize(want) {
            failures.push(format!("{input:?} new:\n    want {want}\n    got  {got}"));
        }
    }
    if let Some(want) = case["new_pretty"].as_str() {
        let got = super::unparse::ad_to_pretty_string(&ad);
        if normalize(&got) != normalize(want) {
            failures.push(format!(
                "{input:?} pretty:\n    want {want:?}\n    got  {got:?}"
            ));
        }
    }
    if let Some(want) = case["old"].as_str() {
        let got = ad_to_old(&ad, false);
        if sorted_lines(&got) != sorted_lines(want) {
            failures.push(format!(
                "{input:?} old:\n    want {want:?}\n    got  {got:?}"
            ));
        }
    }
    if let Some(want) = case["json"].as_str() {
        let got = ad_to_json(&ad);
        let (w, g): (Result<Json, _>, Result<Json, _>) =
            (serde_json::from_str(want), serde_json::from_str(&got));
        if got != want && (w.is_err() || g.is_err() || w.as_ref().ok() != g.as_ref().ok()) {
            failures.push(format!(
                "{input:?} json:\n    want {want:?}\n    got  {got:?}"
            ));
        }
    }
    if let Some(lookups) = case["lookup"].as_object() {
        for (name, want) in lookups {
            let attr = Expr::Attr(std::sync::Arc::from(name.as_str()));
            let got = match eval_expr(&attr, Some(&ad), None) {
                Ok(v) => normalize(&value_to_string(&v)),
                Err(_) => "evaluation failed".to_string(),
            };
            let want = want.as_str().unwrap_or("");
            let want = if want.starts_with("<eval_exception") {
                "evaluation failed".to_string()
            } else {
                normalize(want)
            };
            if got != want {
                failures.push(format!("{input:?} eval {name}: want {want} got {got}"));
            }
        }
    }
    failures
}
