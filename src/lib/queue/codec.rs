//! How ads are stored: the text of an ad's own attributes, and the attributes the store keeps
//! in columns instead (so that queries can filter on them without reading ads).
//!
//! An ad is stored as one line of new ClassAd syntax, `[ Name = expr; ... ]`. New syntax
//! rather than old (`Name = value` lines) because it is lossless: old syntax writes strings
//! with only `"` escaped, so a value holding a newline would not read back. It is also what
//! measured fastest to read back of the two (see benches/queue.rs). Reals are written with 16
//! significant digits (`%1.15E`, libclassad's unparser), which is one digit short of a round
//! trip for some doubles; HTCondor's own job queue log writes `%.16G`, with the same loss.
//!
//! `ClusterId` (cluster ads), `ProcId` and `JobStatus` (proc ads) are never in the stored
//! text: their columns are the one copy, and reading an ad puts them back. The other indexed
//! attributes (`Owner`, `QDate`, `EnteredCurrentStatus`) stay in the text and are copied
//! into their columns on every write.

use std::sync::Arc;

use crate::classad::ast::{Expr, UnOp};
use crate::classad::intern::intern;
use crate::classad::unparse::{write_expr, write_name, Syntax};
use crate::classad::{parse_ad, ClassAd, ParseError, Value};

pub const CLUSTER_ID: &str = "ClusterId";
pub const PROC_ID: &str = "ProcId";
pub const JOB_STATUS: &str = "JobStatus";
pub const OWNER: &str = "Owner";
pub const USER: &str = "User";
pub const QDATE: &str = "QDate";
pub const ENTERED_CURRENT_STATUS: &str = "EnteredCurrentStatus";
pub const LAST_JOB_STATUS: &str = "LastJobStatus";
pub const JOB_STATUS_ON_RELEASE: &str = "JobStatusOnRelease";
pub const COMPLETION_DATE: &str = "CompletionDate";
pub const LEAVE_JOB_IN_QUEUE: &str = "LeaveJobInQueue";
pub const TOTAL_SUBMIT_PROCS: &str = "TotalSubmitProcs";

/// Attributes that belong in the cluster ad only (qmgmt.cpp `aForcedSetAttrs`, -1 entries):
/// a submit drops them from proc ads.
pub const FORCED_CLUSTER_ATTRS: [&str; 7] = [
    CLUSTER_ID,
    "JobSetId",
    "JobSetName",
    "JobUniverse",
    "NTDomain",
    OWNER,
    USER,
];

pub fn is_forced_cluster_attr(name: &str) -> bool {
    FORCED_CLUSTER_ATTRS
        .iter()
        .any(|a| a.eq_ignore_ascii_case(name))
}

/// Names kept only in columns, never in a cluster ad's stored text.
fn column_only_in_cluster(name: &str) -> bool {
    name.eq_ignore_ascii_case(CLUSTER_ID)
}

/// Names kept only in columns, never in a proc ad's stored text.
fn column_only_in_proc(name: &str) -> bool {
    name.eq_ignore_ascii_case(PROC_ID) || name.eq_ignore_ascii_case(JOB_STATUS)
}

/// An ad the store would not be able to read back (see [`encode`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unstorable {
    /// The attribute whose value is too deep.
    pub attr: String,
    /// Why the stored text would not read back (the parser's words).
    pub message: String,
}

/// The stored text of a cluster ad's own attributes.
pub fn encode_cluster(ad: &ClassAd) -> Result<String, Unstorable> {
    encode(ad.own_iter().filter(|(n, _)| !column_only_in_cluster(n)))
}

/// The stored text of a proc ad's own attributes.
pub fn encode_proc(ad: &ClassAd) -> Result<String, Unstorable> {
    encode(ad.own_iter().filter(|(n, _)| !column_only_in_proc(n)))
}

/// The stored text of a whole (flattened) ad, as the history keeps it.
pub fn encode_flat(ad: &ClassAd) -> Result<String, Unstorable> {
    encode(ad.iter())
}

/// A tree at most this deep always reads back: the parser spends at most two of its
/// [`MAX_DEPTH`](crate::classad::parser::MAX_DEPTH) levels on a node, plus one for the ad.
const ALWAYS_READS_BACK: usize = 60;

/// The stored text of `attrs`, refused when it would not read back: an expression built in
/// memory (a submit wraps the user's `requirements` in its own clauses) can be deeper than
/// the parser reads, and a store that took it could never read the job again. A value deep
/// enough to matter is checked by reading the text back; the rest cannot fail.
fn encode<'a>(attrs: impl Iterator<Item = (&'a str, &'a Expr)>) -> Result<String, Unstorable> {
    let mut s = String::with_capacity(64);
    s.push_str("[ ");
    // The deep attributes, with where their text starts.
    let mut deep: Vec<(&str, usize)> = Vec::new();
    for (i, (n, e)) in attrs.enumerate() {
        if i > 0 {
            s.push_str("; ");
        }
        if e.deeper_than(ALWAYS_READS_BACK) {
            deep.push((n, s.len()));
        }
        write_name(&mut s, n, Syntax::New);
        s.push_str(" = ");
        write_expr(&mut s, e, Syntax::New);
    }
    s.push_str(" ]");
    if !deep.is_empty() {
        if let Err(e) = parse_ad(&s) {
            // The failing attribute is the last deep one that starts before the error.
            let attr = deep
                .iter()
                .rev()
                .find(|(_, at)| *at <= e.offset)
                .unwrap_or(&deep[0])
                .0;
            return Err(Unstorable {
                attr: attr.to_owned(),
                message: e.message,
            });
        }
    }
    Ok(s)
}

/// Reads stored text back into an ad.
pub fn decode(text: &str) -> Result<ClassAd, ParseError> {
    decode_with(text, &[])
}

/// A cluster ad from its stored text and id.
pub fn decode_cluster(text: &str, cluster: i32) -> Result<ClassAd, ParseError> {
    decode_with(text, &[(CLUSTER_ID, cluster as i64)])
}

/// A proc ad (not yet chained) from its stored text and columns.
pub fn decode_proc(text: &str, proc: i32, status: i64) -> Result<ClassAd, ParseError> {
    decode_with(text, &[(PROC_ID, proc as i64), (JOB_STATUS, status)])
}

/// Reads stored text, with the column attributes `columns` put back in front.
///
/// Most proc ads hold nothing but literals (`Arguments = "--seed 7"; Out = "out.7"`), and
/// reading a queue is mostly reading them, so such text is read by [`decode_literals`]
/// without the ClassAd parser; anything else goes through the parser. Both give the same ad
/// (a test compares them).
fn decode_with(text: &str, columns: &[(&str, i64)]) -> Result<ClassAd, ParseError> {
    if let Some(ad) = decode_literals(text, columns) {
        return Ok(ad);
    }
    let mut ad = parse_ad(text)?;
    for (name, value) in columns {
        ad.insert_named(intern(name), Expr::lit(*value));
    }
    Ok(ad)
}

/// The fast path of [`decode_with`]: text exactly as [`encode`] writes it, in which every
/// attribute name is a plain identifier and every value is a non-negative integer, a string
/// without escapes, `true`, `false`, `undefined`, `error` or an attribute name. `None` for
/// anything else (the parser then reads it).
fn decode_literals(text: &str, columns: &[(&str, i64)]) -> Option<ClassAd> {
    let body = text.strip_prefix("[ ")?.strip_suffix(" ]")?;
    let mut attrs: Vec<(Arc<str>, Expr)> = Vec::with_capacity(columns.len() + 8);
    for (name, value) in columns {
        attrs.push((intern(name), Expr::lit(*value)));
    }
    let b = body.as_bytes();
    let ident_end = |mut i: usize| {
        if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_') {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        }
        i
    };
    let mut i = 0;
    while i < b.len() {
        let name_end = ident_end(i);
        if name_end == i {
            return None;
        }
        let name = &body[i..name_end];
        if is_keyword(name) {
            return None;
        }
        i = name_end;
        if !body[i..].starts_with(" = ") {
            return None;
        }
        i += 3;
        let value = match *b.get(i)? {
            b'"' => {
                let close = i + 1 + body[i + 1..].find('"')?;
                let s = &body[i + 1..close];
                if s.contains('\\') {
                    return None;
                }
                i = close + 1;
                Value::Str(intern(s))
            }
            b'0'..=b'9' => {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let digits = &body[start..i];
                if digits.len() > 1 && digits.starts_with('0') {
                    return None;
                }
                Value::Int(digits.parse().ok()?)
            }
            _ => {
                let end = ident_end(i);
                let word = &body[i..end];
                let value = match word {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "undefined" => Value::Undefined,
                    "error" => Value::Error,
                    _ if word.is_empty() || is_keyword(word) => return None,
                    _ => {
                        i = end;
                        attrs.push((intern(name), Expr::Attr(intern(word))));
                        if !next_attr(body, &mut i) {
                            return None;
                        }
                        continue;
                    }
                };
                i = end;
                value
            }
        };
        attrs.push((intern(name), Expr::Lit(value)));
        if !next_attr(body, &mut i) {
            return None;
        }
    }
    Some(ClassAd::from_attrs(attrs))
}

/// After a value: the end of the ad, or `; ` and another attribute.
fn next_attr(body: &str, i: &mut usize) -> bool {
    if *i == body.len() {
        return true;
    }
    if body[*i..].starts_with("; ") && *i + 2 < body.len() {
        *i += 2;
        return true;
    }
    false
}

/// Words the ClassAd lexer reads as keywords whatever their case.
fn is_keyword(word: &str) -> bool {
    [
        "true",
        "false",
        "undefined",
        "error",
        "is",
        "isnt",
        "parent",
    ]
    .iter()
    .any(|k| k.eq_ignore_ascii_case(word))
}

/// The integer an expression states literally (`5`, `-5`, `(5)`), if it does.
pub fn int_literal(e: &Expr) -> Option<i64> {
    match e {
        Expr::Lit(Value::Int(i)) => Some(*i),
        Expr::Paren(inner) => int_literal(inner),
        Expr::Unary(UnOp::Minus, inner) => int_literal(inner).map(i64::wrapping_neg),
        Expr::Unary(UnOp::Plus, inner) => int_literal(inner),
        _ => None,
    }
}

/// The string an expression states literally, if it does.
pub fn str_literal(e: &Expr) -> Option<&Arc<str>> {
    match e {
        Expr::Lit(Value::Str(s)) => Some(s),
        Expr::Paren(inner) => str_literal(inner),
        _ => None,
    }
}

/// Whether two expressions are the same tree, as HTCondor compares a proc's attribute with
/// its cluster's (`*tree == *cluster_tree`) to decide whether the proc ad needs its own
/// copy. Names compare with their spelling, so that the copy kept prints as written; a nested
/// ad compares by its printed form. Answering "different" when unsure only keeps a copy.
pub fn same_expr(a: &Expr, b: &Expr) -> bool {
    let all_same = |x: &[Expr], y: &[Expr]| {
        x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_expr(x, y))
    };
    match (a, b) {
        (Expr::Lit(x), Expr::Lit(y)) => x.same_as(y),
        (Expr::Attr(x), Expr::Attr(y)) | (Expr::Absolute(x), Expr::Absolute(y)) => x == y,
        (
            Expr::Scoped {
                scope: s1,
                prefix: p1,
                name: n1,
            },
            Expr::Scoped {
                scope: s2,
                prefix: p2,
                name: n2,
            },
        ) => s1 == s2 && p1 == p2 && n1 == n2,
        (Expr::Select(x, n1), Expr::Select(y, n2)) => n1 == n2 && same_expr(x, y),
        (Expr::Unary(o1, x), Expr::Unary(o2, y)) => o1 == o2 && same_expr(x, y),
        (
            Expr::Binary {
                op: o1,
                lhs: l1,
                rhs: r1,
                spelled: s1,
            },
            Expr::Binary {
                op: o2,
                lhs: l2,
                rhs: r2,
                spelled: s2,
            },
        ) => o1 == o2 && s1 == s2 && same_expr(l1, l2) && same_expr(r1, r2),
        (Expr::Ternary(c1, t1, e1), Expr::Ternary(c2, t2, e2)) => {
            same_expr(c1, c2) && same_expr(t1, t2) && same_expr(e1, e2)
        }
        (Expr::Paren(x), Expr::Paren(y)) => same_expr(x, y),
        (Expr::Call(f), Expr::Call(g)) => f.name == g.name && all_same(&f.args, &g.args),
        (Expr::List(x), Expr::List(y)) => all_same(x, y),
        (Expr::Ad(x), Expr::Ad(y)) => {
            crate::classad::unparse::ad_to_string(x) == crate::classad::unparse::ad_to_string(y)
        }
        _ => false,
    }
}

/// Whether `name` is an attribute name a ClassAd can hold and print back.
pub fn valid_attr_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['\0', '\n'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_expr;
    use crate::classad::unparse::ad_to_string;

    fn ad(src: &str) -> ClassAd {
        parse_ad(src).unwrap()
    }

    #[test]
    fn round_trips_awkward_values() {
        let a = ad(r#"[ s = "line1
line2\ttab \"q\" \\ back"; r = 0.1; big = 1.5E300; neg = -7; l = { 1, "a", [ x = 1 ] };
            n = [ y = "z" ]; e = error; u = undefined; t = absTime("2024-01-02T03:04:05+01:00");
            rt = relTime("1+02:03:04"); ex = a + b * 2 > 3 && !c; 'odd name' = 1; f = strcat("a", x) ]"#);
        let text = encode_flat(&a).unwrap();
        assert!(!text.contains('\n'), "{text}");
        let back = decode(&text).unwrap();
        assert_eq!(ad_to_string(&back), ad_to_string(&a));
        assert_eq!(encode_flat(&back).unwrap(), text);
    }

    /// `(((... x ...)))` `n` parentheses deep, built in memory as a submit builds it.
    fn nested(n: usize) -> Expr {
        let mut e = Expr::Attr(intern("x"));
        for _ in 0..n {
            e = Expr::Paren(Box::new(e));
        }
        e
    }

    #[test]
    fn what_would_not_read_back_is_refused_by_name() {
        let mut a = ClassAd::new();
        a.insert("Shallow", Expr::lit(1i64));
        // Deeper than the quick test, still within what the parser reads: stored.
        a.insert("Fine", nested(150));
        let text = encode_proc(&a).unwrap();
        assert_eq!(ad_to_string(&decode(&text).unwrap()), ad_to_string(&a));
        // Deeper than the parser reads: refused, naming the attribute.
        a.insert("Requirements", nested(260));
        let refused = encode_proc(&a).unwrap_err();
        assert_eq!(refused.attr, "Requirements");
        assert!(refused.message.contains("nested more than"), "{refused:?}");
    }

    #[test]
    fn column_attributes_are_not_in_the_text() {
        let p = ad("[ ProcId = 3; JobStatus = 5; Args = \"3\"; jobstatus = 5 ]");
        assert_eq!(encode_proc(&p).unwrap(), "[ Args = \"3\" ]");
        let back = decode_proc(&encode_proc(&p).unwrap(), 3, 5).unwrap();
        assert_eq!(back.eval_attr("ProcId").as_int(), Some(3));
        assert_eq!(back.eval_attr("JobStatus").as_int(), Some(5));
        let c = ad("[ ClusterId = 9; Owner = \"u\" ]");
        assert_eq!(encode_cluster(&c).unwrap(), "[ Owner = \"u\" ]");
        assert_eq!(
            decode_cluster("[ Owner = \"u\" ]", 9)
                .unwrap()
                .eval_attr("ClusterId")
                .as_int(),
            Some(9)
        );
        assert_eq!(encode_cluster(&ClassAd::new()).unwrap(), "[  ]");
        assert!(decode("[  ]").unwrap().is_empty());
    }

    fn structure(ad: &ClassAd) -> Vec<(String, String)> {
        ad.own_iter()
            .map(|(n, e)| (n.to_owned(), format!("{e:?}")))
            .collect()
    }

    #[test]
    fn fast_path_reads_as_the_parser_does() {
        let fast_ones = [
            "[  ]",
            "[ a = 1 ]",
            "[ Args = \"--seed 7; x\"; Out = \"out.7\"; N = 0; B = true; F = false ]",
            "[ U = undefined; E = error; R = SomeAttr; _x = 12345678901234 ]",
        ];
        for src in fast_ones {
            let ad = parse_ad(src).unwrap();
            let text = encode_flat(&ad).unwrap();
            let fast = decode_literals(&text, &[]).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(structure(&fast), structure(&ad), "{text}");
        }
        let slow_ones = [
            "[ s = \"a\\\"b\" ]",
            "[ r = 1.5 ]",
            "[ n = -1 ]",
            "[ e = a + 1 ]",
            "[ l = { 1 } ]",
            "[ 'odd name' = 1 ]",
            "[ m = MY.x ]",
        ];
        for src in slow_ones {
            let Ok(ad) = parse_ad(src) else { continue };
            let text = encode_flat(&ad).unwrap();
            assert!(decode_literals(&text, &[]).is_none(), "{text}");
            assert_eq!(structure(&decode(&text).unwrap()), structure(&ad), "{text}");
        }
        // Text the encoder never writes is left to the parser.
        for text in [
            "[ a = 1;  b = 2 ]",
            "[ a = 01 ]",
            "[ a = 1; ]",
            "[a = 1]",
            "[ a = \"x\" \"y\" ]",
        ] {
            assert!(decode_literals(text, &[]).is_none(), "{text}");
        }
        let with_columns = decode_proc("[ A = 1 ]", 4, 2).unwrap();
        let names: Vec<&str> = with_columns.own_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["ProcId", "JobStatus", "A"]);
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn fast_and_slow_agree(values in proptest::collection::vec(
            proptest::prop_oneof![
                (0i64..i64::MAX).prop_map(Expr::lit),
                "[ -~]{0,12}".prop_map(|s| Expr::lit(s.as_str())),
                proptest::bool::ANY.prop_map(Expr::lit),
            ],
            0..6,
        )) {
            let mut ad = ClassAd::new();
            for (i, v) in values.into_iter().enumerate() {
                ad.insert(&format!("A{i}"), v);
            }
            let text = encode_flat(&ad).unwrap();
            let slow = parse_ad(&text).unwrap();
            prop_assert_eq!(structure(&slow), structure(&ad));
            if let Some(fast) = decode_literals(&text, &[]) {
                prop_assert_eq!(structure(&fast), structure(&slow));
            } else {
                prop_assert!(text.contains('\\'), "{}", text);
            }
        }
    }

    #[test]
    fn literals() {
        let e = |s: &str| parse_expr(s).unwrap();
        assert_eq!(int_literal(&e("5")), Some(5));
        assert_eq!(int_literal(&e("-5")), Some(-5));
        assert_eq!(int_literal(&e("(5)")), Some(5));
        assert_eq!(int_literal(&e("5.0")), None);
        assert_eq!(int_literal(&e("2 + 3")), None);
        assert_eq!(str_literal(&e("\"x\"")).map(|s| &**s), Some("x"));
        assert!(same_expr(&e("1"), &e("1")));
        assert!(!same_expr(&e("1"), &e("1.0")));
        assert!(!same_expr(&e("\"a\""), &e("\"A\"")));
        assert!(same_expr(&e("a + 1"), &e("a+1")));
        assert!(!same_expr(&e("a + 1"), &e("A + 1")));
        assert!(!same_expr(&e("a + 1"), &e("(a + 1)")));
        for src in [
            "(TARGET.Arch == \"X86_64\") && (TARGET.Memory >= RequestMemory) ? x.y : {1, [a = 1]}",
            "strcat(\"a\", -b) is undefined",
            ".abs",
        ] {
            assert!(same_expr(&e(src), &e(src)), "{src}");
        }
        assert!(!same_expr(&e("f(1)"), &e("f(1, 2)")));
    }
}
