//! The expression tree.
//!
//! One node per construct of the language as libclassad keeps it: the parser
//! preserves parentheses and spelling, so that unparsing gives back what was
//! written (`MY.x`, `(a + b)`), and resolves what can be resolved once —
//! function names to their implementations and `MY.`/`TARGET.` prefixes to a
//! scope — so that evaluation does no string work it can avoid.

use std::sync::Arc;

use super::ad::ClassAd;
use super::functions::Builtin;
use super::value::Value;

/// Binary operators, in libclassad's `OpKind` vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Lt,
    Le,
    Ne,
    Eq,
    Ge,
    Gt,
    /// `=?=` and `is`.
    MetaEq,
    /// `=!=` and `isnt`.
    MetaNe,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Or,
    And,
    BitOr,
    BitXor,
    BitAnd,
    Shl,
    Shr,
    UShr,
    Subscript,
    Elvis,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt
                | BinOp::Le
                | BinOp::Ne
                | BinOp::Eq
                | BinOp::Ge
                | BinOp::Gt
                | BinOp::MetaEq
                | BinOp::MetaNe
        )
    }

    /// The infix text as libclassad's unparser writes it (spaces included).
    pub fn text(self, spelled_is: bool) -> &'static str {
        match self {
            BinOp::Lt => " < ",
            BinOp::Le => " <= ",
            BinOp::Ne => " != ",
            BinOp::Eq => " == ",
            BinOp::Ge => " >= ",
            BinOp::Gt => " > ",
            BinOp::MetaEq if spelled_is => " is ",
            BinOp::MetaNe if spelled_is => " isnt ",
            BinOp::MetaEq => " =?= ",
            BinOp::MetaNe => " =!= ",
            BinOp::Add => " + ",
            BinOp::Sub => " - ",
            BinOp::Mul => " * ",
            BinOp::Div => " / ",
            BinOp::Mod => " % ",
            BinOp::Or => " || ",
            BinOp::And => " && ",
            BinOp::BitOr => " | ",
            BinOp::BitXor => " ^ ",
            BinOp::BitAnd => " & ",
            BinOp::Shl => " << ",
            BinOp::Shr => " >> ",
            BinOp::UShr => " >>> ",
            BinOp::Subscript => " [] ",
            BinOp::Elvis => " ?: ",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Plus,
    Minus,
    Not,
    BitNot,
}

impl UnOp {
    pub fn text(self) -> &'static str {
        match self {
            UnOp::Plus => " +",
            UnOp::Minus => " -",
            UnOp::Not => " !",
            UnOp::BitNot => " ~",
        }
    }
}

/// The scope an attribute reference names explicitly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKw {
    My,
    Target,
}

/// A function call: the name as written, and its implementation when the
/// name is one the library knows (unknown functions evaluate to error).
#[derive(Clone)]
pub struct FnCall {
    pub name: Arc<str>,
    pub builtin: Option<Builtin>,
    pub args: Vec<Expr>,
}

impl std::fmt::Debug for FnCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnCall")
            .field("name", &self.name)
            .field("args", &self.args)
            .finish()
    }
}

/// An expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A scalar literal (never a list or an ad: those have their own nodes).
    Lit(Value),
    /// `name`: looked up in the current ad, its parents, then the target.
    Attr(Arc<str>),
    /// `.name`: looked up from the root scope.
    Absolute(Arc<str>),
    /// `MY.name` / `TARGET.name`; `prefix` keeps the spelling written.
    Scoped {
        scope: ScopeKw,
        prefix: Arc<str>,
        name: Arc<str>,
    },
    /// `expr.name`.
    Select(Box<Expr>, Arc<str>),
    Unary(UnOp, Box<Expr>),
    /// A binary operator; `spelled` records `is`/`isnt` written as words.
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        spelled: bool,
    },
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Paren(Box<Expr>),
    Call(Box<FnCall>),
    List(Arc<[Expr]>),
    Ad(Box<ClassAd>),
}

impl Expr {
    /// Whether the tree is deeper than `limit` nodes on some path (nested ads count their
    /// attributes' trees). Stops as soon as it knows, so its cost is bounded by `limit`
    /// levels, not by the tree.
    pub fn deeper_than(&self, limit: usize) -> bool {
        let Some(below) = limit.checked_sub(1) else {
            return true;
        };
        match self {
            Expr::Lit(_) | Expr::Attr(_) | Expr::Absolute(_) | Expr::Scoped { .. } => false,
            Expr::Select(e, _) | Expr::Unary(_, e) | Expr::Paren(e) => e.deeper_than(below),
            Expr::Binary { lhs, rhs, .. } => lhs.deeper_than(below) || rhs.deeper_than(below),
            Expr::Ternary(a, b, c) => {
                a.deeper_than(below) || b.deeper_than(below) || c.deeper_than(below)
            }
            Expr::Call(call) => call.args.iter().any(|a| a.deeper_than(below)),
            Expr::List(items) => items.iter().any(|a| a.deeper_than(below)),
            Expr::Ad(ad) => ad.own_iter().any(|(_, e)| e.deeper_than(below)),
        }
    }

    pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
            spelled: false,
        }
    }

    pub fn lit(v: impl Into<Value>) -> Expr {
        Expr::Lit(v.into())
    }

    /// The literal value when the expression is a plain literal.
    pub fn as_literal(&self) -> Option<&Value> {
        match self {
            Expr::Lit(v) => Some(v),
            _ => None,
        }
    }

    /// The expression tree for a value (libclassad's `Literal::MakeLiteral`
    /// plus lists and ads, as the evaluator returns them).
    pub fn from_value(v: &Value) -> Expr {
        match v {
            Value::List(l) => Expr::List(l.items.clone()),
            Value::Ad(frame) => Expr::Ad(Box::new(frame.ad_snapshot())),
            other => Expr::Lit(other.clone()),
        }
    }
}
