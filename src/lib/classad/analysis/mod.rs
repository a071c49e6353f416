//! Requirements analysis: why an expression is true for some ads and false for others, worked
//! out as HTCondor 24.0's src/condor_utils/expr_analyze.cpp does it (`AnalyzeThisSubExpr`,
//! `AnalyzePropagateConstants`, `AnalyzeRequirementsForEachTarget`).
//!
//! Only the ClassAd language is involved: a request ad, the attribute to analyze, and target
//! ads to count matches against. What the tools do with it (`condor_q -better-analyze` and
//! `-reverse-analyze`) lives with them.
//!
//! - [`refs`]: the attributes an expression reads from its own ad and from the target.
//! - [`pretty`]: long expressions broken after their logical operators.
//! - [`clauses`]: an expression's clauses, reduced and counted against targets.

pub mod clauses;
pub mod pretty;
pub mod refs;

#[cfg(test)]
pub(crate) mod test_ads;

pub use clauses::{analyze_requirements_for_each_target, Fmt};
pub use pretty::{pretty_print, pretty_print_into};
pub use refs::{external_references, referenced_attribs, target_attribs, Names};

// The `detail_*` flags of expr_analyze.h: one bit set, shared with the tools that take the
// flags from the command line as numbers.

/// Print a logical clause's expression after its label, unless its operands are the two
/// clauses just before it.
pub const SMART_UNPARSE_EXPR: u32 = 0x01;
/// Always print a logical clause's expression after its label.
pub const ALWAYS_UNPARSE_EXPR: u32 = 0x02;
/// Print every clause, marking the ones that decide.
pub const SHOW_ALL_SUBEXPRS: u32 = 0x04;
/// Analyze `ifThenElse()` calls as clauses.
pub const SHOW_IFTHENELSE: u32 = 0x08;
/// With [`SHOW_ALL_SUBEXPRS`], mark the clauses that no longer matter `n/a`.
pub const DIAGNOSTIC: u32 = 0x40;
/// `show-work`: show the intermediate steps (accepted; this analysis prints none).
pub const DUMP_INTERMEDIATES: u32 = 0x80;
/// Analyze the expression clause by clause against the targets.
pub const ANALYZE_EACH_SUB_EXPR: u32 = 0x100;
/// Analyze the requirements even when no target rejects the request because of them.
pub const ALWAYS_ANALYZE_REQ: u32 = 0x200;
/// Do not list the attributes the request defines.
pub const DONT_SHOW_JOB_ATTRS: u32 = 0x400;
/// Analyze a slot's `Start` and `WithinResourceLimits` inline in its `Requirements`.
pub const INLINE_STD_SLOT_EXPRS: u32 = 0x800;
/// Leave out the first line of the table's heading.
pub const SUPPRESS_TALL_HEADING: u32 = 0x1000;
/// Append the table to what is already in the buffer.
pub const APPEND_TO_BUF: u32 = 0x2000;
/// `-better-analyze`.
pub const BETTER: u32 = 0x10000;
