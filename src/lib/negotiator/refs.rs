//! What an expression can read, and when two expressions are the same.
//!
//! The negotiator evaluates each autocluster against each slot once, and does not evaluate again
//! what it can prove would give the same result. The proof is syntactic: an evaluation only ever
//! looks up attributes whose names appear in the expressions it evaluates, so two evaluations
//! whose inputs agree on the values of every name reachable from the root expressions agree on the
//! result. [`references`] collects the names an expression mentions (and whether it does anything
//! that escapes this reasoning, such as `eval()`); [`hash_expr`] and [`expr_eq`] compare attribute
//! values structurally.

use std::hash::{Hash, Hasher};

use crate::classad::ast::{Expr, ScopeKw};
use crate::classad::value::Value;
use crate::classad::ClassAd;

/// The names an expression mentions, lower-cased.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refs {
    pub names: Vec<String>,
    /// The expression reads something no name accounts for (`eval()`, `.x`, an ad used as a
    /// value, `my`/`target` as values, ...): its value cannot be reasoned about by names.
    pub dynamic: bool,
}

impl Refs {
    fn add(&mut self, name: &str) {
        let lower = name.to_ascii_lowercase();
        if !self.names.contains(&lower) {
            self.names.push(lower);
        }
    }
}

/// Names that, written bare, denote an ad or a scope rather than an attribute.
const SCOPE_NAMES: &[&str] = &["my", "self", "target", "parent", "root", "toplevel"];
/// Functions whose result depends on more than their arguments' values.
const DYNAMIC_FUNCTIONS: &[&str] = &["eval", "evalineachcontext", "countmatches"];

/// The names `e` mentions.
pub fn references(e: &Expr) -> Refs {
    let mut r = Refs::default();
    collect(e, &mut r);
    r
}

/// Adds the names `e` mentions to `r`.
pub fn collect(e: &Expr, r: &mut Refs) {
    match e {
        Expr::Lit(_) => {}
        Expr::Attr(name) => {
            if SCOPE_NAMES.iter().any(|s| name.eq_ignore_ascii_case(s)) {
                r.dynamic = true;
            }
            r.add(name);
        }
        Expr::Absolute(name) => {
            r.dynamic = true;
            r.add(name);
        }
        Expr::Scoped { name, .. } => r.add(name),
        Expr::Select(base, name) => {
            // `ad.name` on an ad value: the names inside nested ads are collected below, but
            // which ad is selected is only known at run time.
            r.dynamic = true;
            collect(base, r);
            r.add(name);
        }
        Expr::Unary(_, a) | Expr::Paren(a) => collect(a, r),
        Expr::Binary { lhs, rhs, .. } => {
            collect(lhs, r);
            collect(rhs, r);
        }
        Expr::Ternary(a, b, c) => {
            collect(a, r);
            collect(b, r);
            collect(c, r);
        }
        Expr::Call(call) => {
            if DYNAMIC_FUNCTIONS
                .iter()
                .any(|f| call.name.eq_ignore_ascii_case(f))
            {
                r.dynamic = true;
            }
            for a in &call.args {
                collect(a, r);
            }
        }
        Expr::List(items) => {
            for a in items.iter() {
                collect(a, r);
            }
        }
        Expr::Ad(ad) => {
            r.dynamic = true;
            for (n, a) in ad.iter() {
                r.add(n);
                collect(a, r);
            }
        }
    }
}

/// Whether `e` mentions only `TARGET.`-scoped names (or none): written in one ad, such an
/// expression reads nothing from that ad.
pub fn only_target_refs(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Scoped { scope, .. } => *scope == ScopeKw::Target,
        Expr::Unary(_, a) | Expr::Paren(a) => only_target_refs(a),
        Expr::Binary { lhs, rhs, .. } => only_target_refs(lhs) && only_target_refs(rhs),
        Expr::Ternary(a, b, c) => only_target_refs(a) && only_target_refs(b) && only_target_refs(c),
        Expr::Call(call) => call.args.iter().all(only_target_refs),
        _ => false,
    }
}

/// Feeds the structure of `e` to `h`; [`expr_eq`] expressions hash alike. Attribute names hash
/// case-insensitively, as they are looked up.
pub fn hash_expr<H: Hasher>(e: &Expr, h: &mut H) {
    // Parentheses do not count (see `expr_eq`).
    if let Expr::Paren(a) = e {
        return hash_expr(a, h);
    }
    std::mem::discriminant(e).hash(h);
    match e {
        Expr::Lit(v) => hash_value(v, h),
        Expr::Attr(n) | Expr::Absolute(n) => hash_name(n, h),
        Expr::Scoped { scope, name, .. } => {
            (*scope == ScopeKw::My).hash(h);
            hash_name(name, h);
        }
        Expr::Select(base, name) => {
            hash_expr(base, h);
            hash_name(name, h);
        }
        Expr::Unary(op, a) => {
            (*op as u8).hash(h);
            hash_expr(a, h);
        }
        Expr::Paren(_) => unreachable!("handled above"),
        Expr::Binary { op, lhs, rhs, .. } => {
            (*op as u8).hash(h);
            hash_expr(lhs, h);
            hash_expr(rhs, h);
        }
        Expr::Ternary(a, b, c) => {
            hash_expr(a, h);
            hash_expr(b, h);
            hash_expr(c, h);
        }
        Expr::Call(call) => {
            hash_name(&call.name, h);
            call.args.len().hash(h);
            for a in &call.args {
                hash_expr(a, h);
            }
        }
        Expr::List(items) => {
            items.len().hash(h);
            for a in items.iter() {
                hash_expr(a, h);
            }
        }
        Expr::Ad(ad) => hash_ad(ad, h),
    }
}

fn hash_ad<H: Hasher>(ad: &ClassAd, h: &mut H) {
    ad.len().hash(h);
    for (n, a) in ad.iter() {
        hash_name(n, h);
        hash_expr(a, h);
    }
}

fn hash_name<H: Hasher>(n: &str, h: &mut H) {
    n.len().hash(h);
    for b in n.bytes() {
        b.to_ascii_lowercase().hash(h);
    }
}

fn hash_value<H: Hasher>(v: &Value, h: &mut H) {
    std::mem::discriminant(v).hash(h);
    match v {
        Value::Undefined | Value::Error => {}
        Value::Bool(b) => b.hash(h),
        Value::Int(i) => i.hash(h),
        Value::Real(r) => r.to_bits().hash(h),
        Value::Str(s) => s.hash(h),
        Value::AbsTime(t) => (t.secs, t.offset).hash(h),
        Value::RelTime(r) => r.to_bits().hash(h),
        Value::List(l) => {
            l.items.len().hash(h);
            for a in l.items.iter() {
                hash_expr(a, h);
            }
        }
        Value::Ad(_) => {}
    }
}

/// Whether two expressions are the same tree (names compared case-insensitively; the
/// spelling of `MY.`/`TARGET.` prefixes and of `is`/`isnt`, and parentheses, do not matter).
pub fn expr_eq(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Paren(a), b) => expr_eq(a, b),
        (a, Expr::Paren(b)) => expr_eq(a, b),
        (Expr::Lit(x), Expr::Lit(y)) => value_eq(x, y),
        (Expr::Attr(x), Expr::Attr(y)) | (Expr::Absolute(x), Expr::Absolute(y)) => {
            x.eq_ignore_ascii_case(y)
        }
        (
            Expr::Scoped {
                scope: s1,
                name: n1,
                ..
            },
            Expr::Scoped {
                scope: s2,
                name: n2,
                ..
            },
        ) => s1 == s2 && n1.eq_ignore_ascii_case(n2),
        (Expr::Select(b1, n1), Expr::Select(b2, n2)) => {
            n1.eq_ignore_ascii_case(n2) && expr_eq(b1, b2)
        }
        (Expr::Unary(o1, a1), Expr::Unary(o2, a2)) => o1 == o2 && expr_eq(a1, a2),
        (
            Expr::Binary {
                op: o1,
                lhs: l1,
                rhs: r1,
                ..
            },
            Expr::Binary {
                op: o2,
                lhs: l2,
                rhs: r2,
                ..
            },
        ) => o1 == o2 && expr_eq(l1, l2) && expr_eq(r1, r2),
        (Expr::Ternary(a1, b1, c1), Expr::Ternary(a2, b2, c2)) => {
            expr_eq(a1, a2) && expr_eq(b1, b2) && expr_eq(c1, c2)
        }
        (Expr::Call(c1), Expr::Call(c2)) => {
            c1.name.eq_ignore_ascii_case(&c2.name)
                && c1.args.len() == c2.args.len()
                && c1.args.iter().zip(&c2.args).all(|(x, y)| expr_eq(x, y))
        }
        (Expr::List(x), Expr::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| expr_eq(a, b))
        }
        (Expr::Ad(x), Expr::Ad(y)) => ad_eq(x, y),
        _ => false,
    }
}

fn ad_eq(a: &ClassAd, b: &ClassAd) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(n, e)| b.lookup(n).is_some_and(|f| expr_eq(e, f)))
}

fn value_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::AbsTime(x), Value::AbsTime(y)) => x == y,
        (Value::RelTime(x), Value::RelTime(y)) => x.to_bits() == y.to_bits(),
        (Value::List(x), Value::List(y)) => {
            x.items.len() == y.items.len()
                && x.items
                    .iter()
                    .zip(y.items.iter())
                    .all(|(a, b)| expr_eq(a, b))
        }
        _ => false,
    }
}

/// Whether two optional attribute values are the same (both absent, or equal trees).
pub fn opt_expr_eq(a: Option<&Expr>, b: Option<&Expr>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => expr_eq(x, y),
        _ => false,
    }
}

/// Hashes an optional attribute value.
pub fn hash_opt_expr<H: Hasher>(e: Option<&Expr>, h: &mut H) {
    match e {
        None => 0u8.hash(h),
        Some(e) => {
            1u8.hash(h);
            hash_expr(e, h);
        }
    }
}

/// A fast, deterministic 64-bit hasher (FxHash's multiply-rotate).
#[derive(Clone, Copy, Default)]
pub struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        // Hash tables take their buckets from the low bits and their tags from the high ones;
        // spread the multiply's good middle bits to both.
        let h = self.0;
        (h ^ (h >> 32))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(26)
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }

    fn write_i32(&mut self, i: i32) {
        self.write_u64(i as u32 as u64);
    }

    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.write_u64(b as u64);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(SEED);
    }
}

/// `BuildHasher` for [`FxHasher`].
pub type FxBuild = std::hash::BuildHasherDefault<FxHasher>;
/// A `HashMap` with [`FxHasher`].
pub type FxMap<K, V> = std::collections::HashMap<K, V, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_expr;

    fn h(src: &str) -> u64 {
        let mut s = FxHasher::default();
        hash_expr(&parse_expr(src).unwrap(), &mut s);
        s.finish()
    }

    #[test]
    fn names_and_dynamic_constructs() {
        let r = references(&parse_expr("TARGET.Memory >= RequestMemory && my.Cpus > 1").unwrap());
        assert_eq!(r.names, ["memory", "requestmemory", "cpus"]);
        assert!(!r.dynamic);
        assert!(references(&parse_expr("eval(\"x\")").unwrap()).dynamic);
        assert!(references(&parse_expr("[a = 1].a").unwrap()).dynamic);
        assert!(references(&parse_expr("isUndefined(TARGET)").unwrap()).dynamic);
    }

    #[test]
    fn structural_equality() {
        let e = |s| parse_expr(s).unwrap();
        assert!(expr_eq(&e("Memory >= 10"), &e("memory>=(10)")));
        assert!(!expr_eq(&e("Memory >= 10"), &e("Memory >= 10.0")));
        assert!(!expr_eq(&e("\"a\""), &e("\"A\"")));
        assert!(expr_eq(&e("MY.x =?= undefined"), &e("My.X is UNDEFINED")));
        assert_eq!(h("Memory >= 10"), h("memory >= 10"));
        assert_eq!(h("Memory >= (10)"), h("Memory >= 10"));
        assert_ne!(h("Memory >= 10"), h("Memory >= 11"));
        assert!(only_target_refs(&e("TARGET.Memory / 1024")));
        assert!(!only_target_refs(&e("Memory / 1024")));
    }
}
