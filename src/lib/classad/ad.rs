//! The ClassAd: an ordered set of `name = expression` attributes whose names
//! compare case-insensitively.
//!
//! Attributes keep the order they were first inserted in (libclassad keeps
//! hash order, which no caller can rely on); replacing an attribute keeps its
//! place. The body is shared behind an `Arc`, so cloning an ad — as every
//! scope handed to an evaluation does — costs a reference count, and a
//! mutation copies only when the body is shared.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

use super::ast::Expr;

/// A case-insensitive view of an attribute name, usable as a map key
/// without allocating.
#[repr(transparent)]
#[derive(Debug)]
pub struct CiStr(str);

impl CiStr {
    pub fn new(s: &str) -> &CiStr {
        // SAFETY: CiStr is a transparent wrapper around str.
        unsafe { &*(s as *const str as *const CiStr) }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The hash of a name, folded to lower case.
///
/// Eight bytes at a time: OR-ing 0x20 into every byte maps both cases of a
/// letter to the same byte; it also maps a few other pairs together, which
/// only costs an occasional collision, never a wrong match.
pub fn name_hash(s: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let b = s.as_bytes();
    let mut h: u64 = b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes")) | 0x2020_2020_2020_2020;
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        let w = u64::from_le_bytes(buf) | 0x2020_2020_2020_2020;
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    // Spread the high bits down: hashbrown takes its control bits from the top.
    h ^ (h >> 29)
}

impl Hash for CiStr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(name_hash(&self.0));
    }
}

impl PartialEq for CiStr {
    fn eq(&self, other: &CiStr) -> bool {
        // Names are shared (see `intern`), so the same spelling is usually
        // the same bytes in memory.
        (std::ptr::eq(self.0.as_ptr(), other.0.as_ptr()) && self.0.len() == other.0.len())
            || self.0.eq_ignore_ascii_case(&other.0)
    }
}

impl Eq for CiStr {}

/// An owned key for the attribute index (and any map of names in any case), looked up
/// by a [`CiStr`].
#[derive(Clone, Debug)]
pub(crate) struct CiKey(Arc<str>);

impl From<&str> for CiKey {
    fn from(s: &str) -> CiKey {
        CiKey(s.into())
    }
}

impl From<Arc<str>> for CiKey {
    fn from(s: Arc<str>) -> CiKey {
        CiKey(s)
    }
}

impl Borrow<CiStr> for CiKey {
    fn borrow(&self) -> &CiStr {
        CiStr::new(&self.0)
    }
}

impl Hash for CiKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        CiStr::new(&self.0).hash(state)
    }
}

impl PartialEq for CiKey {
    fn eq(&self, other: &CiKey) -> bool {
        self.0.eq_ignore_ascii_case(&other.0)
    }
}

impl Eq for CiKey {}

/// The keys already carry a good 64-bit hash; pass it through.
#[derive(Default)]
pub(crate) struct PassThrough(u64);

/// The hasher for maps keyed by [`CiStr`] (whose hash is [`name_hash`]).
pub(crate) type CiHasher = BuildHasherDefault<PassThrough>;

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Index = HashMap<CiKey, usize, CiHasher>;

#[derive(Clone, Default)]
struct Body {
    attrs: Vec<(Arc<str>, Expr)>,
    index: Index,
}

/// A ClassAd, optionally chained to a parent ad whose attributes show
/// through where this ad has none of its own (HTCondor's cluster ad under
/// each proc ad).
#[derive(Clone, Default)]
pub struct ClassAd {
    body: Arc<Body>,
    chained: Option<Arc<ClassAd>>,
}

impl std::fmt::Debug for ClassAd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::unparse::ad_to_string(self))
    }
}

impl ClassAd {
    pub fn new() -> ClassAd {
        ClassAd::default()
    }

    /// The number of attributes, those of the chained parent included.
    pub fn len(&self) -> usize {
        match &self.chained {
            None => self.body.attrs.len(),
            Some(p) => {
                self.body.attrs.len() + p.own_iter().filter(|(n, _)| !self.own_contains(n)).count()
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.body.attrs.is_empty() && self.chained.as_ref().is_none_or(|p| p.is_empty())
    }

    /// Chains this ad to a parent; lookups fall through to it. The parent's
    /// own chain, if it has one, is not followed.
    pub fn chain_to(&mut self, mut parent: ClassAd) {
        parent.chained = None;
        self.chained = Some(Arc::new(parent));
    }

    /// Removes the chain, returning the parent.
    pub fn unchain(&mut self) -> Option<ClassAd> {
        self.chained.take().map(Arc::unwrap_or_clone)
    }

    /// The chained parent, if any.
    pub fn chained(&self) -> Option<&ClassAd> {
        self.chained.as_deref()
    }

    /// This ad's own attributes, without the chained parent's.
    pub fn own_iter(&self) -> impl Iterator<Item = (&str, &Expr)> + '_ {
        self.body.attrs.iter().map(|(n, e)| (&**n, e))
    }

    /// The number of this ad's own attributes.
    pub fn own_len(&self) -> usize {
        self.body.attrs.len()
    }

    fn own_contains(&self, name: &str) -> bool {
        self.body.index.contains_key(CiStr::new(name))
    }

    /// Inserts or replaces an attribute. A replaced attribute keeps its place
    /// and the spelling it was first inserted with, as the reference's map does.
    pub fn insert(&mut self, name: &str, expr: Expr) {
        let body = Arc::make_mut(&mut self.body);
        if let Some(&i) = body.index.get(CiStr::new(name)) {
            body.attrs[i].1 = expr;
            return;
        }
        let key: Arc<str> = Arc::from(name);
        body.index.insert(CiKey(key.clone()), body.attrs.len());
        body.attrs.push((key, expr));
    }

    /// An ad from attributes in order; a repeated name replaces the earlier
    /// value in its place, as [`ClassAd::insert`] does.
    pub fn from_attrs(attrs: Vec<(Arc<str>, Expr)>) -> ClassAd {
        let mut body = Body {
            attrs: Vec::with_capacity(attrs.len()),
            index: Index::with_capacity_and_hasher(attrs.len(), Default::default()),
        };
        for (name, expr) in attrs {
            if let Some(&i) = body.index.get(CiStr::new(&name)) {
                body.attrs[i].1 = expr;
                continue;
            }
            body.index.insert(CiKey(name.clone()), body.attrs.len());
            body.attrs.push((name, expr));
        }
        ClassAd {
            body: Arc::new(body),
            chained: None,
        }
    }

    /// As [`ClassAd::insert`], taking a name the caller already holds.
    pub fn insert_named(&mut self, name: Arc<str>, expr: Expr) {
        let body = Arc::make_mut(&mut self.body);
        if let Some(&i) = body.index.get(CiStr::new(&name)) {
            body.attrs[i].1 = expr;
            return;
        }
        body.index.insert(CiKey(name.clone()), body.attrs.len());
        body.attrs.push((name, expr));
    }

    /// Removes an attribute; returns whether it was there. An attribute the
    /// chained parent has is masked with `undefined` here, as HTCondor does.
    pub fn remove(&mut self, name: &str) -> bool {
        if self.chained.as_ref().is_some_and(|p| p.contains(name)) {
            self.insert(name, Expr::Lit(super::value::Value::Undefined));
            return true;
        }
        if !self.own_contains(name) {
            return false;
        }
        let body = Arc::make_mut(&mut self.body);
        let i = body.index.remove(CiStr::new(name)).expect("checked above");
        body.attrs.remove(i);
        for (_, j) in body.index.iter_mut() {
            if *j > i {
                *j -= 1;
            }
        }
        true
    }

    pub fn lookup(&self, name: &str) -> Option<&Expr> {
        match self.body.index.get(CiStr::new(name)) {
            Some(&i) => Some(&self.body.attrs[i].1),
            None => self.chained.as_ref().and_then(|p| p.lookup(name)),
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        self.own_contains(name) || self.chained.as_ref().is_some_and(|p| p.contains(name))
    }

    /// The name as the ad spells it.
    pub fn spelling(&self, name: &str) -> Option<&str> {
        match self.body.index.get(CiStr::new(name)) {
            Some(&i) => Some(&*self.body.attrs[i].0),
            None => self.chained.as_ref().and_then(|p| p.spelling(name)),
        }
    }

    /// Attributes in insertion order: the chained parent's (those this ad
    /// does not override) first, then this ad's own. Chains are one level
    /// deep, as HTCondor's proc-over-cluster ads are.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Expr)> + '_ {
        let parent = self
            .chained
            .iter()
            .flat_map(|p| p.own_iter())
            .filter(|(n, _)| !self.own_contains(n));
        parent.chain(self.own_iter())
    }

    /// Attributes sorted case-insensitively by name, as `-long` prints them.
    pub fn sorted(&self) -> Vec<(&str, &Expr)> {
        let mut v: Vec<(&str, &Expr)> = self.iter().collect();
        v.sort_by(|a, b| cmp_ignore_case(a.0, b.0));
        v
    }

    /// Copies every attribute of `other` into this ad (later wins).
    pub fn update(&mut self, other: &ClassAd) {
        for (n, e) in other.iter() {
            self.insert(n, e.clone());
        }
    }

    /// Whether two handles share one body (cheap identity for scopes).
    pub fn ptr_eq(&self, other: &ClassAd) -> bool {
        Arc::ptr_eq(&self.body, &other.body)
            && match (&self.chained, &other.chained) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => false,
            }
    }
}

/// Case-insensitive ordering of names (`strcasecmp`).
pub fn cmp_ignore_case(a: &str, b: &str) -> std::cmp::Ordering {
    let la = a.bytes().map(|c| c.to_ascii_lowercase());
    let lb = b.bytes().map(|c| c.to_ascii_lowercase());
    la.cmp(lb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_insensitive_and_ordered() {
        let mut ad = ClassAd::new();
        ad.insert("Foo", Expr::lit(1));
        ad.insert("bar", Expr::lit(2));
        ad.insert("FOO", Expr::lit(3));
        assert_eq!(ad.len(), 2);
        assert_eq!(ad.spelling("foo"), Some("Foo"));
        let names: Vec<&str> = ad.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["Foo", "bar"]);
        let sorted: Vec<&str> = ad.sorted().into_iter().map(|(n, _)| n).collect();
        assert_eq!(sorted, ["bar", "Foo"]);
        assert!(ad.remove("Bar"));
        assert!(!ad.contains("bar"));
        assert!(ad.lookup("foo").is_some());
    }

    #[test]
    fn chained_parent_shows_through() {
        let mut cluster = ClassAd::new();
        cluster.insert("Cmd", Expr::lit("/bin/true"));
        cluster.insert("ProcId", Expr::lit(0));
        let mut proc_ad = ClassAd::new();
        proc_ad.insert("ProcId", Expr::lit(3));
        proc_ad.chain_to(cluster);
        assert_eq!(proc_ad.len(), 2);
        assert!(proc_ad.lookup("cmd").is_some());
        assert_eq!(proc_ad.own_len(), 1);
        let names: Vec<&str> = proc_ad.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["Cmd", "ProcId"]);
        assert_eq!(
            crate::classad::unparse::value_to_string(&proc_ad.eval_attr("ProcId")),
            "3"
        );
        assert!(proc_ad.remove("Cmd"));
        assert!(proc_ad.eval_attr("Cmd").is_undefined());
        assert_eq!(proc_ad.unchain().map(|c| c.own_len()), Some(2));
    }

    #[test]
    fn clones_share_until_written() {
        let mut a = ClassAd::new();
        a.insert("x", Expr::lit(1));
        let mut b = a.clone();
        assert!(a.ptr_eq(&b));
        b.insert("y", Expr::lit(2));
        assert!(!a.ptr_eq(&b));
        assert_eq!(a.len(), 1);
    }
}
