//! Constraint pushdown: the parts of a ClassAd constraint that SQL can test on the store's
//! columns, so that a query reads only the ads that might match.
//!
//! The SQL produced is a *necessary* condition: every job for which the constraint evaluates
//! to true satisfies it. Callers still evaluate the whole constraint on every row the SQL
//! returns, so a conjunct that cannot be translated is simply left out. What translates:
//!
//! - a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`, `=?=`, and `=!=` on integers) between an
//!   indexed attribute (`ClusterId`, `ProcId`, `JobStatus`, `QDate`, `EnteredCurrentStatus`:
//!   integers; `Owner`: a string), bare or as `MY.Attr`, and a literal of the matching kind,
//!   either way round, in parentheses or not;
//! - `A && B`, from whichever sides translate (a conjunction is true only if both are);
//! - `A || B`, when both sides translate (a disjunction is true only if one side is).
//!
//! Why that is sound: the store keeps these columns exact. `ClusterId` and `ProcId` are the
//! keys; `JobStatus`, `QDate` and `EnteredCurrentStatus` must be integer literals and `Owner`
//! a string literal whenever they are set (see `txn.rs`), and a missing attribute is NULL,
//! which fails SQL comparisons just as `undefined` fails ClassAd ones. String `==` in ClassAds
//! ignores ASCII case, as the `NOCASE` collation of the owner column does.

use rusqlite::types::Value as SqlValue;

use crate::classad::ast::{BinOp, Expr, ScopeKw};
use crate::classad::Value;

use super::codec;

/// An indexed attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Col {
    ClusterId,
    ProcId,
    JobStatus,
    Owner,
    QDate,
    EnteredCurrentStatus,
}

impl Col {
    fn named(name: &str) -> Option<Col> {
        [
            (codec::CLUSTER_ID, Col::ClusterId),
            (codec::PROC_ID, Col::ProcId),
            (codec::JOB_STATUS, Col::JobStatus),
            (codec::OWNER, Col::Owner),
            (codec::QDATE, Col::QDate),
            (codec::ENTERED_CURRENT_STATUS, Col::EnteredCurrentStatus),
        ]
        .into_iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, c)| c)
    }

    fn is_string(self) -> bool {
        self == Col::Owner
    }
}

/// Which table a query reads: the live queue (proc rows, owner on the cluster row) or the
/// history (one flat row per job).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Queue,
    History,
}

impl Table {
    /// An SQL test `<column> <op> ?` for this table.
    fn test(self, col: Col, op: &str) -> String {
        let name = match col {
            Col::ClusterId => "cluster_id",
            Col::ProcId => "proc_id",
            Col::JobStatus => "job_status",
            Col::Owner => "owner",
            Col::QDate => "qdate",
            Col::EnteredCurrentStatus => "entered_current_status",
        };
        match (self, col) {
            (Table::Queue, Col::Owner) => {
                format!("p.cluster_id IN (SELECT cluster_id FROM clusters WHERE owner {op} ?)")
            }
            (Table::Queue, _) => format!("p.{name} {op} ?"),
            (Table::History, _) => format!("h.{name} {op} ?"),
        }
    }
}

/// An SQL condition and its parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SqlCond {
    pub text: String,
    pub params: Vec<SqlValue>,
}

impl SqlCond {
    pub fn new(text: impl Into<String>, params: Vec<SqlValue>) -> SqlCond {
        SqlCond {
            text: text.into(),
            params,
        }
    }

    /// `(a) AND (b)`.
    pub fn and(mut self, other: SqlCond) -> SqlCond {
        self.text = format!("({}) AND ({})", self.text, other.text);
        self.params.extend(other.params);
        self
    }

    /// `(a) OR (b)`.
    pub fn or(mut self, other: SqlCond) -> SqlCond {
        self.text = format!("({}) OR ({})", self.text, other.text);
        self.params.extend(other.params);
        self
    }
}

/// The SQL necessary condition for `constraint` on `table`, or `None` when no part of it
/// translates (every row must then be read and evaluated).
pub fn translate(constraint: &Expr, table: Table) -> Option<SqlCond> {
    match constraint {
        Expr::Paren(inner) => translate(inner, table),
        Expr::Binary {
            op: BinOp::And,
            lhs,
            rhs,
            ..
        } => match (translate(lhs, table), translate(rhs, table)) {
            (Some(a), Some(b)) => Some(a.and(b)),
            (a, b) => a.or(b),
        },
        Expr::Binary {
            op: BinOp::Or,
            lhs,
            rhs,
            ..
        } => Some(translate(lhs, table)?.or(translate(rhs, table)?)),
        Expr::Binary { op, lhs, rhs, .. } if op.is_comparison() => {
            if let (Some(col), Some(v)) = (column_ref(lhs), literal(rhs)) {
                comparison(table, col, *op, &v)
            } else if let (Some(v), Some(col)) = (literal(lhs), column_ref(rhs)) {
                comparison(table, col, mirror(*op), &v)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `a op b` is `b mirror(op) a`.
fn mirror(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

/// The indexed attribute an expression names in the job's own scope.
fn column_ref(e: &Expr) -> Option<Col> {
    match e {
        Expr::Paren(inner) => column_ref(inner),
        Expr::Attr(name) => Col::named(name),
        Expr::Scoped {
            scope: ScopeKw::My,
            name,
            ..
        } => Col::named(name),
        _ => None,
    }
}

/// The literal an operand states: a literal, a negated integer, in parentheses or not.
fn literal(e: &Expr) -> Option<Value> {
    match e {
        Expr::Paren(inner) => literal(inner),
        Expr::Lit(v) => Some(v.clone()),
        _ => codec::int_literal(e).map(Value::Int),
    }
}

fn comparison(table: Table, col: Col, op: BinOp, v: &Value) -> Option<SqlCond> {
    let param = match v {
        Value::Int(i) if !col.is_string() => SqlValue::Integer(*i),
        // An integer column equals a real only numerically, as ClassAd `==` compares them.
        Value::Real(r) if !col.is_string() && r.is_finite() => SqlValue::Real(*r),
        Value::Str(s) if col.is_string() => SqlValue::Text(s.to_string()),
        _ => return None,
    };
    let sql_op = match op {
        BinOp::Eq | BinOp::MetaEq => "=",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        // `x =!= 5` is true for a missing x too; for strings it is case-sensitive, which
        // the NOCASE column cannot test, so only integers translate.
        BinOp::MetaNe if matches!(param, SqlValue::Integer(_)) => "IS NOT",
        _ => return None,
    };
    if col.is_string() && !matches!(op, BinOp::Eq | BinOp::MetaEq | BinOp::Ne) {
        return None;
    }
    Some(SqlCond::new(table.test(col, sql_op), vec![param]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_expr;

    fn sql(src: &str) -> Option<String> {
        translate(&parse_expr(src).unwrap(), Table::Queue).map(|c| {
            let mut t = c.text;
            for p in c.params {
                let v = match p {
                    SqlValue::Integer(i) => i.to_string(),
                    SqlValue::Real(r) => format!("{r:?}"),
                    SqlValue::Text(s) => format!("'{s}'"),
                    other => format!("{other:?}"),
                };
                t = t.replacen('?', &v, 1);
            }
            t
        })
    }

    #[test]
    fn simple_conjuncts() {
        assert_eq!(sql("ClusterId == 5").as_deref(), Some("p.cluster_id = 5"));
        assert_eq!(sql("MY.procid == 3").as_deref(), Some("p.proc_id = 3"));
        assert_eq!(sql("5 < JobStatus").as_deref(), Some("p.job_status > 5"));
        assert_eq!(
            sql("(Owner == \"alice\")").as_deref(),
            Some("p.cluster_id IN (SELECT cluster_id FROM clusters WHERE owner = 'alice')")
        );
        assert_eq!(
            sql("JobStatus =!= 5").as_deref(),
            Some("p.job_status IS NOT 5")
        );
        assert_eq!(sql("QDate >= 5.5").as_deref(), Some("p.qdate >= 5.5"));
        assert_eq!(
            sql("ClusterId > -(1)").as_deref(),
            Some("p.cluster_id > -1")
        );
    }

    #[test]
    fn and_or() {
        assert_eq!(
            sql("ClusterId == 5 && ProcId == 3").as_deref(),
            Some("(p.cluster_id = 5) AND (p.proc_id = 3)")
        );
        assert_eq!(
            sql("ClusterId == 5 && Cmd == \"x\"").as_deref(),
            Some("p.cluster_id = 5")
        );
        assert_eq!(
            sql("ClusterId == 5 || ClusterId == 6").as_deref(),
            Some("(p.cluster_id = 5) OR (p.cluster_id = 6)")
        );
        assert_eq!(sql("ClusterId == 5 || Cmd == \"x\""), None);
    }

    #[test]
    fn what_does_not_translate() {
        for src in [
            "Cmd == \"x\"",
            "TARGET.ClusterId == 5",
            "ClusterId == \"5\"",
            "Owner < \"b\"",
            "Owner =!= \"alice\"",
            "Owner == 5",
            "ClusterId == true",
            "!(ClusterId == 5)",
            "ClusterId + 1 == 6",
            "ClusterId == ProcId",
            "true",
        ] {
            assert_eq!(sql(src), None, "{src}");
        }
    }
}
