//! The ClassAd language: values, expressions, ads, evaluation and printing,
//! as HTCondor's libclassad (src/classad/ in htcondor/htcondor) behaves.
//!
//! - [`lexer`] and [`parser`]: new syntax, old syntax and JSON into [`Expr`]/[`ClassAd`].
//! - [`eval`]: scopes (MY, TARGET, nested ads), operators, matchmaking helpers.
//! - [`functions`]: the built-in function library.
//! - [`unparse`]: new/old syntax, JSON and XML printers.
//! - [`json`]: HTCondor's JSON form of ads, read back.
//! - [`analysis`]: which clauses of a requirements expression decide it against target ads.

pub mod ad;
pub mod analysis;
pub mod ast;
pub mod cnum;
pub mod eval;
pub mod functions;
pub mod intern;
pub mod json;
pub mod lexer;
pub mod parser;
pub mod unparse;
pub mod value;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod fuzz_tests;

pub use ad::ClassAd;
pub use ast::Expr;
pub use eval::{eval_expr, rank, requirements_met, symmetric_match, EvalFailed};
pub use parser::{parse_ad, parse_expr, parse_old_ad, parse_old_ads, ParseError};
pub use value::Value;
