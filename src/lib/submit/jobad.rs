//! The job ad under construction: HTCondor's proc ad chained to the cluster ad, written
//! through `DeltaClassAd`, so that a value equal to the cluster's is not stored in the proc ad
//! (and a proc ad holds only what differs between the jobs of a cluster).

use std::collections::HashMap;
use std::sync::Arc;

use crate::classad::ad::{CiHasher, CiKey, CiStr};
use crate::classad::intern::intern;
use crate::classad::unparse::expr_to_old_string;
use crate::classad::{ClassAd, Expr, Value};

/// What an assignment did to the ad's own attributes.
#[derive(Clone, Debug)]
pub enum Change {
    /// The attribute was stored in the ad itself.
    Set(Arc<str>, Expr),
    /// The value equals the parent's: the ad's own copy (if any) was removed.
    Pruned(Arc<str>),
}

/// A job ad being built.
#[derive(Clone, Debug, Default)]
pub struct JobAd {
    own: Vec<(Arc<str>, Option<Expr>)>,
    /// The positions of `own` by name, once there are more than a few.
    index: HashMap<CiKey, usize, CiHasher>,
    parent: Option<ClassAd>,
}

/// Below this many attributes of its own, an ad is searched linearly.
const LINEAR: usize = 12;

/// Whether two expressions are the same tree (libclassad's `SameAs`).
pub fn same_expr(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Lit(x), Expr::Lit(y)) => {
            x.value_type() == y.value_type() && (x.same_as(y) || same_literal(x, y))
        }
        (Expr::Attr(x), Expr::Attr(y)) => x == y,
        (Expr::Paren(x), Expr::Paren(y)) => same_expr(x, y),
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
        ) => o1 == o2 && same_expr(l1, l2) && same_expr(r1, r2),
        (Expr::Unary(o1, x), Expr::Unary(o2, y)) => o1 == o2 && same_expr(x, y),
        _ => {
            std::mem::discriminant(a) == std::mem::discriminant(b)
                && expr_to_old_string(a) == expr_to_old_string(b)
        }
    }
}

fn same_literal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

impl JobAd {
    /// A proc-0 ad: a copy of the base ad, with no parent.
    pub fn from_base(base: &ClassAd) -> JobAd {
        let mut ad = JobAd::default();
        for (name, e) in base.iter() {
            ad.put(intern(name), e.clone());
        }
        ad
    }

    /// An ad chained to a cluster ad.
    pub fn chained(parent: ClassAd) -> JobAd {
        JobAd {
            own: Vec::new(),
            index: HashMap::default(),
            parent: Some(parent),
        }
    }

    pub fn parent(&self) -> Option<&ClassAd> {
        self.parent.as_ref()
    }

    fn position(&self, name: &str) -> Option<usize> {
        if self.own.len() <= LINEAR {
            self.own
                .iter()
                .position(|(n, _)| n.len() == name.len() && n.eq_ignore_ascii_case(name))
        } else {
            self.index.get(CiStr::new(name)).copied()
        }
    }

    /// The ad's own value of `name`.
    pub fn own(&self, name: &str) -> Option<&Expr> {
        self.position(name).and_then(|i| self.own[i].1.as_ref())
    }

    /// The value of `name`, the parent's included.
    pub fn lookup(&self, name: &str) -> Option<&Expr> {
        match self.own(name) {
            Some(e) => Some(e),
            None => self.parent.as_ref().and_then(|p| p.lookup(name)),
        }
    }

    fn put(&mut self, name: Arc<str>, e: Expr) {
        match self.position(&name) {
            Some(i) => self.own[i].1 = Some(e),
            None => {
                self.own.push((name, Some(e)));
                if self.own.len() > LINEAR {
                    if self.index.is_empty() {
                        for (i, (n, _)) in self.own.iter().enumerate() {
                            self.index.insert(CiKey::from(n.clone()), i);
                        }
                    } else {
                        let i = self.own.len() - 1;
                        self.index.insert(CiKey::from(self.own[i].0.clone()), i);
                    }
                }
            }
        }
    }

    fn prune(&mut self, name: &str) {
        if let Some(i) = self.position(name) {
            self.own[i].1 = None;
        }
    }

    /// Stores a value, unless the parent already has the same one (`DeltaClassAd`).
    pub fn assign(&mut self, name: &str, e: Expr, literal: bool) -> Change {
        if let Some(parent) = &self.parent {
            if let Some(pe) = parent.lookup(name) {
                let same = if literal {
                    match (pe, &e) {
                        (Expr::Lit(a), Expr::Lit(b)) => {
                            a.value_type() == b.value_type() && (a.same_as(b) || same_literal(a, b))
                        }
                        _ => false,
                    }
                } else {
                    same_expr(pe, &e)
                };
                if same {
                    let n = intern(name);
                    self.prune(name);
                    return Change::Pruned(n);
                }
            }
        }
        let n = match self.position(name) {
            Some(i) => self.own[i].0.clone(),
            None => intern(name),
        };
        self.put(n.clone(), e.clone());
        Change::Set(n, e)
    }

    /// Replays a change recorded for another job.
    pub fn apply(&mut self, change: &Change) {
        match change {
            Change::Set(n, e) => self.put(n.clone(), e.clone()),
            Change::Pruned(n) => self.prune(n),
        }
    }

    /// Removes an attribute from the ad itself.
    pub fn delete_own(&mut self, name: &str) {
        self.prune(name);
    }

    /// Names of every attribute, the parent's included, for prefix scans.
    pub fn names(&self) -> Vec<Arc<str>> {
        let mut out: Vec<Arc<str>> = Vec::new();
        if let Some(p) = &self.parent {
            for (n, _) in p.iter() {
                if self.position(n).is_none() {
                    out.push(intern(n));
                }
            }
        }
        for (n, e) in &self.own {
            if e.is_some() {
                out.push(n.clone());
            }
        }
        out
    }

    /// The ad as a ClassAd: its own attributes, chained to the parent.
    pub fn into_classad(self) -> ClassAd {
        let attrs: Vec<(Arc<str>, Expr)> = self
            .own
            .into_iter()
            .filter_map(|(n, e)| e.map(|e| (n, e)))
            .collect();
        let mut ad = ClassAd::from_attrs(attrs);
        if let Some(p) = self.parent {
            ad.chain_to(p);
        }
        ad
    }

    /// A flat ClassAd of everything (used to evaluate expressions against the job).
    pub fn flat(&self) -> ClassAd {
        let mut attrs: Vec<(Arc<str>, Expr)> = Vec::new();
        if let Some(p) = &self.parent {
            for (n, e) in p.iter() {
                attrs.push((intern(n), e.clone()));
            }
        }
        for (n, e) in &self.own {
            if let Some(e) = e {
                attrs.push((n.clone(), e.clone()));
            }
        }
        ClassAd::from_attrs(attrs)
    }
}
