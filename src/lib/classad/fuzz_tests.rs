//! Property tests standing in for a fuzzer: whatever the input, the parser
//! and the evaluator neither panic nor hang, and whatever parses prints as
//! text that parses again.

use proptest::prelude::*;

use super::parser::{parse_ad, parse_expr, parse_old_ads};
use super::unparse::{ad_to_old, ad_to_string, expr_to_string};
use super::{eval_expr, ClassAd};

/// Pieces of the language, so that random sequences are often well formed.
const TOKENS: &[&str] = &[
    "1",
    "0",
    "-7",
    "2.5",
    "1e3",
    ".5",
    "\"s\"",
    "\"A\\n\"",
    "'q n'",
    "true",
    "false",
    "undefined",
    "error",
    "x",
    "y",
    "MY",
    "TARGET",
    "parent",
    ".",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "=?=",
    "=!=",
    "is",
    "isnt",
    "&&",
    "||",
    "!",
    "~",
    "&",
    "|",
    "^",
    "<<",
    ">>",
    ">>>",
    "?",
    ":",
    "?:",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    "=",
    "strcat",
    "size",
    "ifThenElse",
    "member",
    "substr",
    "regexp",
    "eval",
    "stringListMember",
    "split",
    "join",
    "int",
    "real",
    "string",
    "floor",
    "sum",
    "absTime",
    "relTime",
    "unparse",
    "evalInEachContext",
    "random",
    "time",
    "toUpper",
    "/*c*/",
    "//c\n",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|v| v.join(" "))
}

fn context() -> ClassAd {
    parse_ad("[ x = 3; y = \"abc\"; l = { 1, x, \"s\" }; n = [ z = x + 1 ]; loop = loop + 1 ]")
        .unwrap()
}

fn check_expr(text: &str) {
    if let Ok(e) = parse_expr(text) {
        let printed = expr_to_string(&e);
        let again = parse_expr(&printed);
        assert!(
            again.is_ok(),
            "{text:?} printed as {printed:?}, which does not parse: {again:?}"
        );
        let my = context();
        let target = context();
        let _ = eval_expr(&e, Some(&my), Some(&target));
        let _ = eval_expr(&e, None, None);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn token_sequences_never_panic(text in token_soup()) {
        check_expr(&text);
        let _ = parse_ad(&format!("[ a = {text} ]"));
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,60}") {
        check_expr(&text);
        if let Ok(ad) = parse_ad(&text) {
            let printed = ad_to_string(&ad);
            prop_assert!(parse_ad(&printed).is_ok(), "{:?} printed as {:?}", text, printed);
        }
        if let Ok(ads) = parse_old_ads(&text) {
            for ad in ads {
                let _ = ad_to_old(&ad, true);
            }
        }
        let _ = super::json::parse_json_ads(&text);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..80)) {
        let text = String::from_utf8_lossy(&bytes);
        check_expr(&text);
    }
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    for open in ["(", "!", "-", "{", "[a=", "f(", "x ?: "] {
        let text = open.repeat(100_000);
        assert!(parse_expr(&text).is_err(), "{open}");
    }
    let chain = vec!["1"; 100_000].join(" + ");
    assert!(parse_expr(&chain).is_err());
}

#[test]
fn long_chains_fail_evaluation_instead_of_overflowing() {
    let chain = vec!["1"; 1500].join(" + ");
    let e = parse_expr(&chain).expect("1500 terms parse");
    assert!(
        eval_expr(&e, None, None).is_err(),
        "deeper than the reference's recursion limit"
    );
    let chain = vec!["1"; 300].join(" + ");
    let e = parse_expr(&chain).unwrap();
    assert_eq!(
        super::unparse::value_to_string(&eval_expr(&e, None, None).unwrap()),
        "300"
    );
}

#[test]
fn self_reference_fails_fast() {
    let ad = parse_ad("[ a = b + b; b = c + c; c = d + d; d = a + a ]").unwrap();
    assert!(ad.eval_attr("a").is_error());
}
