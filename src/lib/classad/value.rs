//! Values: what a ClassAd expression evaluates to.
//!
//! The types and their coercions follow libclassad's `Value`: undefined and
//! error are values like any other, integers are 64-bit and wrap, reals are
//! IEEE doubles, strings are byte strings compared case-insensitively by
//! `==`, lists keep their element *expressions* (evaluated lazily, in the
//! scope where the list was written), and nested ads keep the scope they
//! were found in so that `parent` and unqualified names resolve as the
//! reference library resolves them.

use std::sync::Arc;

use super::ast::Expr;
use super::eval::Frame;

/// An absolute time: seconds since the epoch plus the zone offset in seconds
/// east of UTC (libclassad's `abstime_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbsTime {
    pub secs: i64,
    pub offset: i32,
}

/// A list value: the element expressions and the scope they belong to.
#[derive(Clone, Debug)]
pub struct ListValue {
    pub items: Arc<[Expr]>,
    pub(crate) frame: Frame,
}

/// The value of an expression.
#[derive(Clone, Debug, Default)]
pub enum Value {
    #[default]
    Undefined,
    Error,
    Bool(bool),
    Int(i64),
    Real(f64),
    Str(Arc<str>),
    AbsTime(AbsTime),
    RelTime(f64),
    List(ListValue),
    /// A ClassAd value: the frame names the ad and the scopes around it.
    Ad(Frame),
}

/// The type tags the predicates and coercions talk about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    Undefined,
    Error,
    Bool,
    Int,
    Real,
    Str,
    AbsTime,
    RelTime,
    List,
    Ad,
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Arc::from(s))
    }

    pub fn string(s: String) -> Value {
        Value::Str(Arc::from(s))
    }

    pub fn value_type(&self) -> ValueType {
        match self {
            Value::Undefined => ValueType::Undefined,
            Value::Error => ValueType::Error,
            Value::Bool(_) => ValueType::Bool,
            Value::Int(_) => ValueType::Int,
            Value::Real(_) => ValueType::Real,
            Value::Str(_) => ValueType::Str,
            Value::AbsTime(_) => ValueType::AbsTime,
            Value::RelTime(_) => ValueType::RelTime,
            Value::List(_) => ValueType::List,
            Value::Ad(_) => ValueType::Ad,
        }
    }

    pub fn is_undefined(&self) -> bool {
        matches!(self, Value::Undefined)
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Value::Error)
    }

    /// Undefined or error.
    pub fn is_exceptional(&self) -> bool {
        matches!(self, Value::Undefined | Value::Error)
    }

    /// libclassad's `IsBooleanValueEquiv`: booleans, and numbers as non-zero.
    pub fn as_bool_equiv(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            Value::Int(i) => Some(i != 0),
            Value::Real(r) => Some(r != 0.0),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// libclassad's `IsNumber(long long&)`: ints, reals truncated, booleans as 0/1.
    pub fn as_number_int(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            Value::Real(r) => Some(real_to_int(r)),
            Value::Bool(b) => Some(b as i64),
            _ => None,
        }
    }

    /// libclassad's `IsNumber(double&)`: ints promoted, booleans as 0.0/1.0.
    pub fn as_number_real(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Real(r) => Some(r),
            Value::Bool(b) => Some(if b { 1.0 } else { 0.0 }),
            _ => None,
        }
    }

    /// True for values whose meaning does not depend on an evaluation scope.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Real(_) | Value::Bool(_))
    }

    /// The Rust-level identity used by `=?=` on scalars.
    pub fn same_as(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Real(a), Value::Real(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::AbsTime(a), Value::AbsTime(b)) => a == b,
            (Value::RelTime(a), Value::RelTime(b)) => a == b,
            _ => false,
        }
    }
}

/// C's `(long long) r` as libclassad uses it: truncation toward zero,
/// saturating at the ends and 0 for NaN (Rust's `as` semantics, which keep
/// us free of undefined behaviour where C has it).
pub fn real_to_int(r: f64) -> i64 {
    r as i64
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}

impl From<f64> for Value {
    fn from(r: f64) -> Self {
        Value::Real(r)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::str(s)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::string(s)
    }
}
