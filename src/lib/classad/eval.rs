//! Evaluation: scopes, attribute lookup and the operators.
//!
//! Scoping is HTCondor's matchmaking scoping: an expression is evaluated in
//! the ad that holds it (MY); an unqualified name is looked up there, then in
//! the ads lexically around it, then — for the two top-level ads of a match —
//! in the other ad (TARGET). `MY.x` and `TARGET.x` name the ad. This is what
//! libclassad does with `MatchClassAd` and HTCondor's old-ClassAd
//! compatibility (`alternateScope`) switched on, which the `htcondor` tools
//! and bindings always have.
//!
//! Operators follow libclassad's `Operation` exactly (strictness, the
//! three-valued logic, int/real promotion, wrapping, time arithmetic); see
//! the comments at each for the reference's corners. Evaluation allocates
//! nothing unless the expression builds a new value (a string, an ad).

use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

use super::ad::ClassAd;
use super::ast::{BinOp, Expr, ScopeKw, UnOp};
use super::value::{AbsTime, ListValue, Value};

/// libclassad's `MAX_CLASSAD_RECURSION`.
pub const MAX_RECURSION: u32 = 400;

/// A scope: which ad the expression being evaluated belongs to, and the ads
/// around it.
#[derive(Clone, Debug)]
pub enum Frame {
    /// The evaluation's MY ad.
    My,
    /// The evaluation's TARGET ad.
    Target,
    /// An ad value: a nested ad, or one detached from any evaluation.
    Nested(Arc<Nested>),
}

/// A nested ad and the scope it was written in.
#[derive(Clone, Debug)]
pub struct Nested {
    pub ad: ClassAd,
    pub parent: Option<Frame>,
}

impl Frame {
    /// A frame for an ad that stands on its own.
    pub fn detached(ad: ClassAd) -> Frame {
        Frame::Nested(Arc::new(Nested { ad, parent: None }))
    }

    /// The ad of a self-contained frame; an empty ad for MY/TARGET frames,
    /// which the evaluator never lets escape (see `make_self_contained`).
    pub fn ad_snapshot(&self) -> ClassAd {
        match self {
            Frame::Nested(n) => n.ad.clone(),
            _ => ClassAd::new(),
        }
    }
}

/// Evaluation failed outright (libclassad's `Evaluate` returning false): a
/// circular reference or recursion past `MAX_RECURSION`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("failed to evaluate expression")]
pub struct EvalFailed;

fn empty_ad() -> &'static ClassAd {
    static EMPTY: OnceLock<ClassAd> = OnceLock::new();
    EMPTY.get_or_init(ClassAd::new)
}

const ACTIVE_SLOTS: usize = 32;

/// The state of one evaluation.
pub struct Eval<'a> {
    my: &'a ClassAd,
    target: Option<&'a ClassAd>,
    depth: u32,
    failed: bool,
    active: [*const Expr; ACTIVE_SLOTS],
    n_active: usize,
}

/// What a name resolved to.
enum Found<'x> {
    Expr(&'x Expr, Frame),
    Value(Value),
    Undefined,
}

impl<'a> Eval<'a> {
    pub fn new(my: Option<&'a ClassAd>, target: Option<&'a ClassAd>) -> Eval<'a> {
        Eval {
            my: my.unwrap_or_else(|| empty_ad()),
            target,
            depth: 0,
            failed: false,
            active: [std::ptr::null(); ACTIVE_SLOTS],
            n_active: 0,
        }
    }

    pub fn failed(&self) -> bool {
        self.failed
    }

    /// Marks the evaluation as failed (a function whose argument failed).
    pub fn fail(&mut self) -> Value {
        self.failed = true;
        Value::Error
    }

    pub fn has_target(&self) -> bool {
        self.target.is_some()
    }

    /// The ad a frame names.
    pub fn frame_ad<'f>(&'f self, f: &'f Frame) -> &'f ClassAd {
        match f {
            Frame::My => self.my,
            Frame::Target => self.target.unwrap_or_else(|| empty_ad()),
            Frame::Nested(n) => &n.ad,
        }
    }

    /// The top-level frame an expression's frame ultimately sits in.
    fn top_of(f: &Frame) -> Option<Frame> {
        let mut cur = f.clone();
        loop {
            match cur {
                Frame::My | Frame::Target => return Some(cur),
                Frame::Nested(n) => match &n.parent {
                    Some(p) => cur = p.clone(),
                    None => return None,
                },
            }
        }
    }

    /// The other top-level ad of a match, for a top-level frame.
    pub(crate) fn other_side(&self, f: &Frame) -> Option<Frame> {
        self.target?;
        match f {
            Frame::My => Some(Frame::Target),
            Frame::Target => Some(Frame::My),
            Frame::Nested(_) => None,
        }
    }

    /// Replaces references to this evaluation's MY/TARGET in a value by
    /// detached copies, so the value can outlive the evaluation.
    pub fn make_self_contained(&self, v: Value) -> Value {
        match v {
            Value::Ad(f) => Value::Ad(self.detach(f)),
            Value::List(l) => Value::List(ListValue {
                items: l.items,
                frame: self.detach(l.frame),
            }),
            other => other,
        }
    }

    fn detach(&self, f: Frame) -> Frame {
        match f {
            Frame::My | Frame::Target => Frame::detached(self.frame_ad(&f).clone()),
            Frame::Nested(n) => match &n.parent {
                Some(Frame::My) | Some(Frame::Target) => Frame::Nested(Arc::new(Nested {
                    ad: n.ad.clone(),
                    parent: Some(self.detach(n.parent.clone().expect("matched"))),
                })),
                _ => Frame::Nested(n),
            },
        }
    }

    /// Evaluates `e` written in the scope `f`.
    pub fn eval(&mut self, e: &Expr, f: &Frame) -> Value {
        if self.failed {
            return Value::Error;
        }
        match e {
            Expr::Lit(v) => v.clone(),
            Expr::Attr(name) => self.attr(name, f, true),
            Expr::Scoped { scope, name, .. } => {
                let side = match scope {
                    ScopeKw::My => Some(f.clone()),
                    ScopeKw::Target => Self::top_of(f).and_then(|t| self.other_side(&t)),
                };
                match side {
                    Some(s) => self.attr_in_scope(name, &s, false),
                    None => Value::Undefined,
                }
            }
            Expr::Absolute(name) => {
                // `.name` looks from the root scope. With a target the root is
                // the match ad, which holds no job or machine attributes.
                if self.target.is_some() {
                    Value::Undefined
                } else {
                    let root = Self::top_of(f).unwrap_or_else(|| root_of(f));
                    self.attr_in_scope(name, &root, false)
                }
            }
            Expr::Select(base, name) => {
                if !self.enter() {
                    return Value::Error;
                }
                let b = self.eval(base, f);
                let out = self.select(b, name);
                self.leave();
                out
            }
            Expr::Paren(inner) => {
                if !self.enter() {
                    return Value::Error;
                }
                let v = self.eval(inner, f);
                self.leave();
                v
            }
            Expr::Unary(op, inner) => {
                if !self.enter() {
                    return Value::Error;
                }
                let v = self.eval(inner, f);
                self.leave();
                unary(*op, v)
            }
            Expr::Binary { op, lhs, rhs, .. } => {
                if !self.enter() {
                    return Value::Error;
                }
                let out = self.binary(*op, lhs, rhs, f);
                self.leave();
                out
            }
            Expr::Ternary(c, t, other) => {
                if !self.enter() {
                    return Value::Error;
                }
                let cv = self.eval(c, f);
                let out = match cv {
                    Value::Undefined => Value::Undefined,
                    Value::Error => Value::Error,
                    ref v => match v.as_bool_equiv() {
                        Some(true) => self.eval(t, f),
                        Some(false) => self.eval(other, f),
                        None => Value::Error,
                    },
                };
                self.leave();
                out
            }
            Expr::Call(call) => {
                if !self.enter() {
                    return Value::Error;
                }
                let out = match call.builtin {
                    Some(func) => func(&call.args, self, f),
                    None => Value::Error,
                };
                self.leave();
                out
            }
            Expr::List(items) => Value::List(ListValue {
                items: items.clone(),
                frame: f.clone(),
            }),
            Expr::Ad(ad) => Value::Ad(Frame::Nested(Arc::new(Nested {
                ad: (**ad).clone(),
                parent: Some(f.clone()),
            }))),
        }
    }

    fn enter(&mut self) -> bool {
        if self.depth >= MAX_RECURSION {
            self.failed = true;
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Evaluates an attribute's expression in the frame it was found in,
    /// refusing circular references.
    fn eval_found(&mut self, e: &Expr, f: &Frame) -> Value {
        let key = e as *const Expr;
        if self.active[..self.n_active].contains(&key) {
            return self.fail();
        }
        if !self.enter() {
            return Value::Error;
        }
        let pushed = self.n_active < ACTIVE_SLOTS;
        if pushed {
            self.active[self.n_active] = key;
            self.n_active += 1;
        }
        let v = self.eval(e, f);
        if pushed {
            self.n_active -= 1;
        }
        self.leave();
        v
    }

    /// An unqualified name: the scope chain, then (for the top-level ads of
    /// a match) the other ad.
    fn attr(&mut self, name: &str, f: &Frame, alternate: bool) -> Value {
        match self.resolve(name, f) {
            Found::Expr(e, ff) => self.eval_found(e, &ff),
            Found::Value(v) => v,
            Found::Undefined => {
                if alternate {
                    if let Some(other) = self.other_side(f) {
                        let ad = self.frame_ad(&other);
                        // SAFETY of the borrow: the ads outlive the evaluation.
                        let ad: &'a ClassAd = unsafe { &*(ad as *const ClassAd) };
                        if let Some(e) = ad.lookup(name) {
                            return self.eval_found(e, &other);
                        }
                    }
                }
                Value::Undefined
            }
        }
    }

    /// `scope.name` where the scope is known: its chain, no other ad.
    fn attr_in_scope(&mut self, name: &str, f: &Frame, alternate: bool) -> Value {
        self.attr(name, f, alternate)
    }

    /// libclassad's `LookupInScope`: the ad, then the special names, then
    /// the lexical parents up to the top-level ad and its match context.
    fn resolve<'x>(&self, name: &str, start: &'x Frame) -> Found<'x>
    where
        'a: 'x,
    {
        let mut cur = start.clone();
        let mut first = true;
        loop {
            let found = match &cur {
                Frame::My => self.my.lookup(name).map(|e| e as *const Expr),
                Frame::Target => self
                    .target
                    .and_then(|t| t.lookup(name))
                    .map(|e| e as *const Expr),
                Frame::Nested(n) => n.ad.lookup(name).map(|e| e as *const Expr),
            };
            if let Some(e) = found {
                // SAFETY: the expression lives in an ad that is either borrowed
                // for 'a (MY, TARGET) or kept alive by the frame we return with it.
                return Found::Expr(unsafe { &*e }, cur);
            }
            if first {
                first = false;
                if name.eq_ignore_ascii_case("my") || name.eq_ignore_ascii_case("self") {
                    return Found::Value(Value::Ad(cur));
                }
                if name.eq_ignore_ascii_case("parent") {
                    return match &cur {
                        Frame::Nested(n) => match &n.parent {
                            Some(p) => Found::Value(Value::Ad(p.clone())),
                            None => Found::Undefined,
                        },
                        // Above a top-level ad of a match sits the reference's
                        // match context; show it as the reference does.
                        _ if self.target.is_some() => {
                            Found::Value(Value::Ad(Frame::detached(match_context())))
                        }
                        _ => Found::Undefined,
                    };
                }
                if name.eq_ignore_ascii_case("toplevel") || name.eq_ignore_ascii_case("root") {
                    return match Self::top_of(&cur) {
                        Some(top) if self.target.is_none() => Found::Value(Value::Ad(top)),
                        Some(_) => Found::Undefined,
                        None => Found::Value(Value::Ad(root_of(&cur))),
                    };
                }
                if name.eq_ignore_ascii_case("CurrentTime") {
                    return Found::Value(Value::Int(super::functions::time::now()));
                }
            }
            match cur {
                Frame::Nested(n) => match &n.parent {
                    Some(p) => cur = p.clone(),
                    None => return Found::Undefined,
                },
                Frame::My | Frame::Target => {
                    // The match context around a top-level ad.
                    if self.target.is_some() {
                        let this = cur.clone();
                        let other = self.other_side(&this).expect("target present");
                        if name.eq_ignore_ascii_case("target") || name.eq_ignore_ascii_case("other")
                        {
                            return Found::Value(Value::Ad(other));
                        }
                        if name.eq_ignore_ascii_case("ad") {
                            return Found::Value(Value::Ad(this));
                        }
                    }
                    return Found::Undefined;
                }
            }
        }
    }

    /// A name looked up in a frame's ad and the ads lexically around it
    /// (libclassad's `LookupInScope` without the special names).
    pub(crate) fn lookup_in_chain(&self, name: &str, f: &Frame) -> Option<(Expr, Frame)> {
        let mut cur = f.clone();
        loop {
            if let Some(e) = self.frame_ad(&cur).lookup(name) {
                return Some((e.clone(), cur));
            }
            let next = match &cur {
                Frame::Nested(n) => n.parent.clone()?,
                _ => return None,
            };
            cur = next;
        }
    }

    /// `value.name`.
    fn select(&mut self, base: Value, name: &str) -> Value {
        match base {
            Value::Undefined => Value::Undefined,
            Value::Ad(f) => self.attr_in_scope(name, &f, false),
            Value::List(l) => {
                let mut out = Vec::with_capacity(l.items.len());
                for item in l.items.iter() {
                    let v = self.eval(item, &l.frame);
                    let r = self.select(v, name);
                    out.push(Expr::from_value(&self.make_self_contained(r)));
                }
                Value::List(ListValue {
                    items: out.into(),
                    frame: Frame::detached(ClassAd::new()),
                })
            }
            _ => Value::Error,
        }
    }

    fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, f: &Frame) -> Value {
        let a = self.eval(lhs, f);
        match op {
            BinOp::And => {
                if matches!(a.as_bool_equiv(), Some(false)) {
                    return Value::Bool(false);
                }
                if a.is_error() {
                    return Value::Error;
                }
                let b = self.eval(rhs, f);
                logical(op, &a, &b)
            }
            BinOp::Or => {
                if matches!(a.as_bool_equiv(), Some(true)) {
                    return Value::Bool(true);
                }
                if a.is_error() {
                    return Value::Error;
                }
                let b = self.eval(rhs, f);
                logical(op, &a, &b)
            }
            BinOp::Elvis => {
                if a.is_undefined() {
                    self.eval(rhs, f)
                } else {
                    a
                }
            }
            BinOp::Subscript => {
                let b = self.eval(rhs, f);
                self.subscript(a, b)
            }
            _ => {
                // A literal operand is compared where it lies, not cloned.
                if let Some(b) = rhs.as_literal() {
                    if let Some(v) = fast_compare(op, &a, b) {
                        return v;
                    }
                    return operate(op, a, b.clone());
                }
                let b = self.eval(rhs, f);
                if let Some(v) = fast_compare(op, &a, &b) {
                    return v;
                }
                operate(op, a, b)
            }
        }
    }

    fn subscript(&mut self, a: Value, b: Value) -> Value {
        // Strict in both operands.
        if a.is_error() || b.is_error() {
            return Value::Error;
        }
        if a.is_undefined() || b.is_undefined() {
            return Value::Undefined;
        }
        match (&a, &b) {
            (Value::Ad(frame), Value::Str(name)) => {
                let ad = self.frame_ad(frame);
                let ad: &ClassAd = unsafe { &*(ad as *const ClassAd) };
                match ad.lookup(name) {
                    Some(e) => {
                        let frame = frame.clone();
                        self.eval_found(e, &frame)
                    }
                    None => Value::Undefined,
                }
            }
            (Value::List(l), Value::Int(i)) => {
                // The reference reads the index into a C int.
                let i = *i as i32;
                if i < 0 || i as usize >= l.items.len() {
                    return Value::Error;
                }
                let l = l.clone();
                self.eval(&l.items[i as usize], &l.frame)
            }
            _ => Value::Error,
        }
    }

    /// Evaluates every element of a list value, in the list's scope.
    pub fn list_values(&mut self, l: &ListValue) -> Vec<Value> {
        l.items.iter().map(|e| self.eval(e, &l.frame)).collect()
    }
}

/// libclassad's `lCtx` ad, which a top-level ad's `PARENT` names in a match.
fn match_context() -> ClassAd {
    let mut ad = ClassAd::new();
    for (n, side) in [
        ("ad", "LEFT"),
        ("my", "LEFT"),
        ("other", "RIGHT"),
        ("target", "RIGHT"),
    ] {
        ad.insert(n, Expr::Absolute(Arc::from(side)));
    }
    ad
}

/// The outermost frame around `f`.
pub(crate) fn root_of(f: &Frame) -> Frame {
    let mut cur = f.clone();
    loop {
        match &cur {
            Frame::Nested(n) => match &n.parent {
                Some(p) => cur = p.clone(),
                None => return cur,
            },
            _ => return cur,
        }
    }
}

/// Unary operators (all strict).
pub fn unary(op: UnOp, v: Value) -> Value {
    if v.is_error() {
        return Value::Error;
    }
    if v.is_undefined() {
        return Value::Undefined;
    }
    match op {
        UnOp::Plus => match v {
            Value::Int(_) | Value::Real(_) | Value::RelTime(_) => v,
            _ => Value::Error,
        },
        UnOp::Minus => match v {
            Value::Int(i) => Value::Int(i.wrapping_neg()),
            Value::Real(r) => Value::Real(-r),
            Value::RelTime(r) => Value::RelTime(-r),
            // The reference computes !b for a boolean and then overwrites
            // it with error; only numbers and relative times negate.
            _ => Value::Error,
        },
        UnOp::Not => match v.as_bool_equiv() {
            Some(b) => Value::Bool(!b),
            None => Value::Error,
        },
        UnOp::BitNot => match v {
            Value::Int(i) => Value::Int(!i),
            _ => Value::Error,
        },
    }
}

/// The comparisons matchmaking does all the time, decided without the
/// general coercions: integers with integers, reals with numbers, strings
/// with strings. `None` when the general path must decide.
#[inline]
fn fast_compare(op: BinOp, a: &Value, b: &Value) -> Option<Value> {
    if !matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Ne | BinOp::Eq | BinOp::Ge | BinOp::Gt
    ) {
        return None;
    }
    let ord = match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Real(x), Value::Real(y)) => x.partial_cmp(y),
        (Value::Int(x), Value::Real(y)) => (*x as f64).partial_cmp(y),
        (Value::Real(x), Value::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Value::Str(x), Value::Str(y)) => {
            if matches!(op, BinOp::Eq | BinOp::Ne) {
                Some(if x.eq_ignore_ascii_case(y) {
                    Ordering::Equal
                } else {
                    Ordering::Less
                })
            } else {
                Some(cmp_ci(x, y))
            }
        }
        _ => return None,
    };
    Some(Value::Bool(ordering_result(op, ord)))
}

/// A value as `&&` and `||` see it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Undefined,
    Error,
    /// Anything else: a type the logical operators refuse.
    Other,
}

fn tri(v: &Value) -> Tri {
    match v.as_bool_equiv() {
        Some(true) => Tri::True,
        Some(false) => Tri::False,
        None => match v {
            Value::Undefined => Tri::Undefined,
            Value::Error => Tri::Error,
            _ => Tri::Other,
        },
    }
}

/// `&&` and `||` once the left side did not decide (libclassad `doLogical`).
fn logical(op: BinOp, a: &Value, b: &Value) -> Value {
    use Tri::*;
    let (x, y) = (tri(a), tri(b));
    if x == Other || y == Other {
        return Value::Error;
    }
    let out = if op == BinOp::Or {
        match (x, y) {
            (True, _) | (_, True) if x != Error => True,
            (Error, _) => Error,
            (False, y) => y,
            (_, False) => Undefined,
            (_, y) => y,
        }
    } else {
        match (x, y) {
            (False, _) => False,
            (Error, _) => Error,
            (True, y) => y,
            (_, False) => False,
            (_, True) => Undefined,
            (_, y) => y,
        }
    };
    match out {
        True => Value::Bool(true),
        False => Value::Bool(false),
        Undefined => Value::Undefined,
        _ => Value::Error,
    }
}

/// The strict binary operators, comparisons and `=?=`/`=!=`.
pub fn operate(op: BinOp, a: Value, b: Value) -> Value {
    if matches!(op, BinOp::MetaEq | BinOp::MetaNe) {
        return meta_compare(op, &a, &b);
    }
    if a.is_error() || b.is_error() {
        return Value::Error;
    }
    if a.is_undefined() || b.is_undefined() {
        return Value::Undefined;
    }
    if op.is_comparison() {
        return compare(op, a, b);
    }
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => arithmetic(op, a, b),
        BinOp::BitOr | BinOp::BitXor | BinOp::BitAnd | BinOp::Shl | BinOp::Shr | BinOp::UShr => {
            bitwise(op, a, b)
        }
        _ => Value::Error,
    }
}

/// What `coerceToNumber` decides the operation's type is; converts booleans
/// to integers and promotes an integer beside a real.
#[derive(PartialEq, Clone, Copy)]
enum Coerced {
    Ad,
    List,
    Str,
    AbsTime,
    RelTime,
    Int,
    Real,
}

fn coerce(a: &mut Value, b: &mut Value) -> Coerced {
    if matches!(a, Value::Ad(_)) || matches!(b, Value::Ad(_)) {
        return Coerced::Ad;
    }
    if matches!(a, Value::List(_)) || matches!(b, Value::List(_)) {
        return Coerced::List;
    }
    if matches!(a, Value::Str(_)) || matches!(b, Value::Str(_)) {
        return Coerced::Str;
    }
    if matches!(a, Value::AbsTime(_)) || matches!(b, Value::AbsTime(_)) {
        return Coerced::AbsTime;
    }
    if matches!(a, Value::RelTime(_)) || matches!(b, Value::RelTime(_)) {
        return Coerced::RelTime;
    }
    if let Value::Bool(x) = *a {
        *a = Value::Int(x as i64);
    }
    if let Value::Bool(x) = *b {
        *b = Value::Int(x as i64);
    }
    match (&*a, &*b) {
        (Value::Int(_), Value::Int(_)) => Coerced::Int,
        (Value::Int(i), Value::Real(_)) => {
            *a = Value::Real(*i as f64);
            Coerced::Real
        }
        (Value::Real(_), Value::Int(i)) => {
            *b = Value::Real(*i as f64);
            Coerced::Real
        }
        _ => Coerced::Real,
    }
}

fn ordering_result(op: BinOp, ord: Option<Ordering>) -> bool {
    match ord {
        None => op == BinOp::Ne || op == BinOp::MetaNe,
        Some(o) => match op {
            BinOp::Lt => o == Ordering::Less,
            BinOp::Le => o != Ordering::Greater,
            BinOp::Eq | BinOp::MetaEq => o == Ordering::Equal,
            BinOp::Ne | BinOp::MetaNe => o != Ordering::Equal,
            BinOp::Ge => o != Ordering::Less,
            BinOp::Gt => o == Ordering::Greater,
            _ => false,
        },
    }
}

/// `strcasecmp`.
pub fn cmp_ci(a: &str, b: &str) -> Ordering {
    super::ad::cmp_ignore_case(a, b)
}

fn compare(op: BinOp, mut a: Value, mut b: Value) -> Value {
    match coerce(&mut a, &mut b) {
        Coerced::Str => match (&a, &b) {
            (Value::Str(x), Value::Str(y)) => {
                let ord = if op == BinOp::Eq || op == BinOp::Ne {
                    // Fast path for the common equality test.
                    if x.eq_ignore_ascii_case(y) {
                        Ordering::Equal
                    } else {
                        Ordering::Less
                    }
                } else {
                    cmp_ci(x, y)
                };
                Value::Bool(ordering_result(op, Some(ord)))
            }
            _ => Value::Error,
        },
        Coerced::Int => {
            let (Value::Int(x), Value::Int(y)) = (a, b) else {
                unreachable!()
            };
            Value::Bool(ordering_result(op, Some(x.cmp(&y))))
        }
        Coerced::Real => match (a.as_number_real(), b.as_number_real()) {
            (Some(x), Some(y)) => Value::Bool(ordering_result(op, x.partial_cmp(&y))),
            _ => Value::Error,
        },
        Coerced::AbsTime => match (a, b) {
            (Value::AbsTime(x), Value::AbsTime(y)) => {
                Value::Bool(ordering_result(op, Some(x.secs.cmp(&y.secs))))
            }
            _ => Value::Error,
        },
        Coerced::RelTime => match (a, b) {
            (Value::RelTime(x), Value::RelTime(y)) => {
                Value::Bool(ordering_result(op, x.partial_cmp(&y)))
            }
            _ => Value::Error,
        },
        Coerced::Ad | Coerced::List => Value::Error,
    }
}

/// `=?=` / `=!=`: never undefined; different types are simply not identical.
fn meta_compare(op: BinOp, a: &Value, b: &Value) -> Value {
    let ne = op == BinOp::MetaNe;
    if a.value_type() != b.value_type() {
        return Value::Bool(ne);
    }
    let same = match (a, b) {
        (Value::Undefined, _) | (Value::Error, _) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Real(x), Value::Real(y)) => x == y,
        (Value::AbsTime(x), Value::AbsTime(y)) => x == y,
        (Value::RelTime(x), Value::RelTime(y)) => x == y,
        _ => return Value::Error,
    };
    Value::Bool(same != ne)
}

fn arithmetic(op: BinOp, mut a: Value, mut b: Value) -> Value {
    let ok = |v: &Value| {
        matches!(
            v,
            Value::Int(_) | Value::Real(_) | Value::AbsTime(_) | Value::RelTime(_) | Value::Bool(_)
        )
    };
    if !ok(&a) || !ok(&b) {
        return Value::Error;
    }
    match coerce(&mut a, &mut b) {
        Coerced::Int => {
            let (Value::Int(x), Value::Int(y)) = (a, b) else {
                unreachable!()
            };
            match op {
                BinOp::Add => Value::Int(x.wrapping_add(y)),
                BinOp::Sub => Value::Int(x.wrapping_sub(y)),
                BinOp::Mul => Value::Int(x.wrapping_mul(y)),
                BinOp::Div => {
                    if x == i64::MIN && y == -1 {
                        Value::Int(i64::MAX)
                    } else if y == 0 {
                        Value::Error
                    } else {
                        Value::Int(x / y)
                    }
                }
                _ => {
                    if x == i64::MIN && y == -1 {
                        Value::Int(0)
                    } else if y == 0 {
                        Value::Error
                    } else {
                        Value::Int(x % y)
                    }
                }
            }
        }
        Coerced::Real => {
            let (Some(x), Some(y)) = (a.as_number_real(), b.as_number_real()) else {
                return Value::Error;
            };
            let r = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                _ => return Value::Error,
            };
            // The reference treats +HUGE_VAL (overflow, x/0) as an error but
            // lets -inf and NaN through.
            if r == f64::INFINITY {
                Value::Error
            } else {
                Value::Real(r)
            }
        }
        Coerced::AbsTime | Coerced::RelTime => time_arithmetic(op, a, b),
        _ => Value::Error,
    }
}

fn time_arithmetic(op: BinOp, a: Value, b: Value) -> Value {
    use Value::{AbsTime as A, Int as I, Real as R, RelTime as T};
    // The reference truncates the relative time to a C int when shifting an
    // absolute time.
    let shift = |t: AbsTime, secs: f64, sign: i64| {
        A(AbsTime {
            secs: t.secs.wrapping_add(sign * (secs as i32) as i64),
            offset: t.offset,
        })
    };
    match op {
        BinOp::Add => match (a, b) {
            (A(t), T(r)) | (T(r), A(t)) => shift(t, r, 1),
            (T(x), T(y)) => T(x + y),
            _ => Value::Error,
        },
        BinOp::Sub => match (a, b) {
            (A(x), A(y)) => T((x.secs - y.secs) as f64),
            (A(t), T(r)) => shift(t, r, -1),
            (T(x), T(y)) => T(x - y),
            _ => Value::Error,
        },
        BinOp::Mul => match (a, b) {
            (T(r), I(n)) | (I(n), T(r)) => T(r * n as f64),
            (T(r), R(n)) => T(r * n),
            // The reference reads the operands of real * reltime the wrong
            // way round and so multiplies by zero.
            (R(_), T(_)) => T(0.0),
            _ => Value::Error,
        },
        BinOp::Div => match (a, b) {
            (T(r), I(n)) => T(r / n as f64),
            (T(r), R(n)) => T(r / n),
            _ => Value::Error,
        },
        _ => Value::Error,
    }
}

fn bitwise(op: BinOp, a: Value, b: Value) -> Value {
    let (Value::Int(x), Value::Int(y)) = (a, b) else {
        return Value::Error;
    };
    Value::Int(match op {
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::BitAnd => x & y,
        BinOp::Shl => shift_left(x, y),
        BinOp::Shr => {
            if x >= 0 {
                shift_right(x, y)
            } else {
                // Arithmetic shift, saturating at all ones after 64 places.
                let n = y.clamp(0, 64);
                if n >= 64 {
                    -1
                } else {
                    x >> n
                }
            }
        }
        _ => {
            if x >= 0 {
                shift_right(x, y)
            } else {
                let v = ((x >> 1) as u64 & (i64::MAX as u64)) as i64;
                shift_right(v, y.wrapping_sub(1))
            }
        }
    })
}

/// `x << y` as x86-64 computes it for C's out-of-range counts (mod 64).
fn shift_left(x: i64, y: i64) -> i64 {
    x.wrapping_shl((y & 63) as u32)
}

fn shift_right(x: i64, y: i64) -> i64 {
    x.wrapping_shr((y & 63) as u32)
}

/// Evaluates an expression with MY and (optionally) TARGET ads; the result
/// is self-contained.
pub fn eval_expr(
    e: &Expr,
    my: Option<&ClassAd>,
    target: Option<&ClassAd>,
) -> Result<Value, EvalFailed> {
    let mut cx = Eval::new(my, target);
    let v = cx.eval(e, &Frame::My);
    if cx.failed() {
        return Err(EvalFailed);
    }
    Ok(cx.make_self_contained(v))
}

impl ClassAd {
    /// Evaluates the named attribute in this ad (undefined when absent, error
    /// when evaluation fails).
    pub fn eval_attr(&self, name: &str) -> Value {
        self.eval_attr_against(name, None)
    }

    /// Evaluates the named attribute with `target` as TARGET.
    pub fn eval_attr_against(&self, name: &str, target: Option<&ClassAd>) -> Value {
        match self.lookup(name) {
            None => Value::Undefined,
            Some(e) => {
                let mut cx = Eval::new(Some(self), target);
                let v = cx.eval_found(e, &Frame::My);
                if cx.failed() {
                    Value::Error
                } else {
                    cx.make_self_contained(v)
                }
            }
        }
    }

    /// Evaluates an expression with this ad as MY.
    pub fn eval_expr(&self, e: &Expr, target: Option<&ClassAd>) -> Value {
        eval_expr(e, Some(self), target).unwrap_or(Value::Error)
    }

    /// Whether this ad's attribute evaluates to boolean-equivalent true
    /// against `target` (HTCondor's `EvalBool`).
    pub fn eval_bool(&self, name: &str, target: Option<&ClassAd>) -> bool {
        let Some(e) = self.lookup(name) else {
            return false;
        };
        let mut cx = Eval::new(Some(self), target);
        let v = cx.eval_found(e, &Frame::My);
        !cx.failed() && v.as_bool_equiv() == Some(true)
    }
}

/// One-way match: `my.Requirements` is true against `target`.
pub fn requirements_met(my: &ClassAd, target: &ClassAd) -> bool {
    my.eval_bool("Requirements", Some(target))
}

/// Symmetric match: both ads' Requirements are true against each other.
pub fn symmetric_match(a: &ClassAd, b: &ClassAd) -> bool {
    requirements_met(a, b) && requirements_met(b, a)
}

/// The Rank of `my` against `target` as a real (0.0 when it is not a number).
pub fn rank(my: &ClassAd, target: &ClassAd) -> f64 {
    my.eval_attr_against("Rank", Some(target))
        .as_number_real()
        .unwrap_or(0.0)
}
