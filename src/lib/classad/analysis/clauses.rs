//! An expression's clauses (`AnalSubExpr`): each comparison and logical operator numbered in
//! evaluation order, constant ones reduced, and the rest counted against the targets, into
//! the table of the conditions that decide.

use super::pretty::pretty_print;
use super::refs::{external_refs, Names};
use super::{
    ALWAYS_UNPARSE_EXPR, APPEND_TO_BUF, DIAGNOSTIC, SHOW_ALL_SUBEXPRS, SHOW_IFTHENELSE,
    SMART_UNPARSE_EXPR, SUPPRESS_TALL_HEADING,
};
use crate::classad::ast::{BinOp, Expr, ScopeKw, UnOp};
use crate::classad::unparse::{expr_to_string, value_to_string};
use crate::classad::{eval_expr, ClassAd, Value};

/// How an analysis table is laid out (`anaFormattingOptions`).
pub struct Fmt<'s> {
    /// The width long clauses are broken to.
    pub console_width: i32,
    /// The `detail_*` flags.
    pub details: u32,
    /// What the targets are called (`Slot`, `Cluster`).
    pub target_type: &'s str,
}

/// The logical operator a clause applies to the clauses of its operands (`logic_op`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LogicOp {
    /// `!x`.
    Not,
    /// `x || y`.
    Or,
    /// `x && y`.
    And,
    /// `ifThenElse(c, x, y)`, with [`SHOW_IFTHENELSE`].
    IfThenElse,
}

/// A clause index as HTCondor prints it: `-1` for none.
struct Ix(Option<usize>);

impl std::fmt::Display for Ix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(i) => write!(f, "{i}"),
            None => f.write_str("-1"),
        }
    }
}

/// One clause of an expression under analysis (`AnalSubExpr`).
struct Sub<'a> {
    tree: &'a Expr,
    /// The logical operator, `None` for a comparison or any other clause.
    logic_op: Option<LogicOp>,
    /// The clauses of the operands: the left one (the condition of an `ifThenElse`), the
    /// right one, and the third operand of an `ifThenElse`.
    ix_left: Option<usize>,
    ix_right: Option<usize>,
    ix_grip: Option<usize>,
    /// The clause this one reduces to.
    ix_effective: Option<usize>,
    label: String,
    /// The targets the clause is true for.
    matches: i32,
    hard_value: i32,
    constant: bool,
    variable: bool,
    dont_care: bool,
    unparsed: String,
}

impl<'a> Sub<'a> {
    fn new(tree: &'a Expr, label: String, logic_op: Option<LogicOp>) -> Sub<'a> {
        Sub {
            tree,
            logic_op,
            ix_left: None,
            ix_right: None,
            ix_grip: None,
            ix_effective: None,
            label,
            matches: 0,
            hard_value: -1,
            constant: false,
            variable: false,
            dont_care: false,
            unparsed: String::new(),
        }
    }

    /// `CheckIfConstant`: a clause that reads nothing from the target is constant, and its
    /// value against the ad alone is its hard value.
    fn check_if_constant(&mut self, ad: &ClassAd) {
        self.unparsed = expr_to_string(self.tree);
        let mut target = Names::default();
        if !external_refs(ad, self.tree, &mut target, 0) {
            target = Names::default();
        }
        self.constant = target.is_empty();
        if self.constant {
            self.hard_value = i32::from(is_true(eval_expr(self.tree, Some(ad), None)));
        }
    }

    /// The label of a logical clause, made of its operands' numbers.
    fn make_label(&self) -> Option<String> {
        let (l, r, g) = (Ix(self.ix_left), Ix(self.ix_right), Ix(self.ix_grip));
        match self.logic_op? {
            LogicOp::Not => Some(format!(" ! [{l}]")),
            LogicOp::IfThenElse => Some(format!("ifThenElse([{l}],[{r}],[{g}])")),
            LogicOp::Or => Some(format!("[{l}] || [{r}]")),
            LogicOp::And => Some(format!("[{l}] && [{r}]")),
        }
    }

    /// The label the table shows: the one given or made, else the clause unparsed.
    fn label(&mut self) -> String {
        if self.label.is_empty() {
            match self.make_label() {
                Some(l) => self.label = l,
                None if !self.unparsed.is_empty() => return self.unparsed.clone(),
                None => return "empty".to_owned(),
            }
        }
        self.label.clone()
    }
}

/// `StepLabel`: `[n]` padded or cut to `width + 2` characters.
fn step_label(index: usize, width: usize) -> String {
    let mut s = format!("[{index}]      ");
    s.truncate(width + 2);
    s
}

/// `EvalExprToBool` and `IsBooleanValue`: true only for the boolean `true` (24.0 does not
/// take numbers for booleans here).
fn is_true(v: Result<Value, crate::classad::EvalFailed>) -> bool {
    matches!(v, Ok(Value::Bool(true)))
}

fn skip_parens(mut e: &Expr) -> &Expr {
    while let Expr::Paren(inner) = e {
        e = inner;
    }
    e
}

/// `ExprTreeIsMyRef`: `MY.x`, or a bare `x` the ad defines.
fn is_my_ref(e: &Expr, ad: &ClassAd) -> bool {
    match skip_parens(e) {
        Expr::Scoped {
            scope: ScopeKw::My, ..
        } => true,
        Expr::Attr(n) => ad.lookup(n).is_some(),
        _ => false,
    }
}

/// `AnalyzeThisSubExpr`: walks an expression, appending to `subs` a clause for each
/// comparison and logical operator (and each sub-expression a logical operator takes as an
/// operand); returns the index of the clause `e` is, if it is one. A bare reference to one of
/// the `inline` attributes is walked as the attribute's expression, at any depth (an
/// attribute is not inlined again inside its own expansion, where 24.0 would recurse
/// forever).
fn analyze_sub_expr<'a>(
    ad: &'a ClassAd,
    e: &'a Expr,
    inline: &Names,
    subs: &mut Vec<Sub<'a>>,
    varres: &mut bool,
    must_store: bool,
    details: u32,
) -> Option<usize> {
    let mut evaluate_logical = false;
    let mut logic_op = None;
    let mut push_it = must_store;
    let mut label = String::new();
    let narrowed;
    let mut inline = inline;
    let (mut left, mut right, mut grip): (Option<&'a Expr>, Option<&'a Expr>, Option<&'a Expr>) =
        (None, None, None);
    match e {
        Expr::Lit(v) => label = value_to_string(v),
        Expr::Attr(name) => {
            if name.eq_ignore_ascii_case("CurrentTime") {
                *varres = true;
            }
            if inline.contains(name) {
                // The attribute's expression stands in for the reference.
                left = ad.lookup(name);
                narrowed = inline.without(name);
                inline = &narrowed;
            }
        }
        Expr::Absolute(name) => {
            if name.eq_ignore_ascii_case("CurrentTime") {
                *varres = true;
            }
        }
        Expr::Scoped { .. } | Expr::List(_) | Expr::Ad(_) => {}
        Expr::Select(base, _) => left = Some(base),
        Expr::Unary(op, a) => {
            left = Some(a);
            if *op == UnOp::Not {
                evaluate_logical = true;
                logic_op = Some(LogicOp::Not);
                push_it = true;
            }
        }
        Expr::Binary { op, lhs, rhs, .. } => {
            left = Some(lhs);
            right = Some(rhs);
            if op.is_comparison() {
                push_it = true;
            } else if matches!(op, BinOp::Or | BinOp::And) {
                evaluate_logical = true;
                logic_op = Some(if *op == BinOp::Or {
                    LogicOp::Or
                } else {
                    LogicOp::And
                });
                push_it = true;
            } else if *op == BinOp::Elvis
                && is_my_ref(lhs, ad)
                && matches!(skip_parens(rhs), Expr::Lit(_))
            {
                // `MY.x ?: literal` is not a clause of its own, even where one is wanted.
                push_it = false;
            }
        }
        Expr::Ternary(c, t, f) => {
            left = Some(c);
            right = Some(t);
            grip = Some(f);
        }
        Expr::Paren(a) => {
            left = Some(a);
            push_it = false;
            evaluate_logical = true;
        }
        Expr::Call(call) => {
            label = call.name.to_string();
            if call.args.is_empty() && call.name.eq_ignore_ascii_case("time") {
                *varres = true;
            } else if details & SHOW_IFTHENELSE != 0
                && call.args.len() == 3
                && call.name.eq_ignore_ascii_case("ifthenelse")
            {
                push_it = true;
                evaluate_logical = true;
                logic_op = Some(LogicOp::IfThenElse);
                left = Some(&call.args[0]);
                right = Some(&call.args[1]);
                grip = Some(&call.args[2]);
            }
            label.push_str("()");
            if must_store {
                let s = expr_to_string(e);
                if !s.is_empty() {
                    label = s;
                }
            }
        }
    }

    let (mut vl, mut vr, mut vg) = (false, false, false);
    let child = |x: Option<&'a Expr>, v: &mut bool, subs: &mut Vec<Sub<'a>>| {
        analyze_sub_expr(ad, x?, inline, subs, v, evaluate_logical, details)
    };
    let ix_left = child(left, &mut vl, subs);
    let ix_right = child(right, &mut vr, subs);
    let ix_grip = child(grip, &mut vg, subs);
    *varres = *varres || vl || vr || vg;

    // A one-operand node (`!x`, `(x)`, `-x`) is its operand's clause: the `!` of a clause
    // is not a clause of its own.
    let unary = left.is_some() && right.is_none() && grip.is_none();
    if push_it && !(unary && ix_left.is_some()) {
        let mut sub = Sub::new(e, label, logic_op);
        sub.variable = *varres;
        sub.ix_left = ix_left;
        sub.ix_right = ix_right;
        sub.ix_grip = ix_grip;
        subs.push(sub);
        Some(subs.len() - 1)
    } else if unary {
        ix_left
    } else {
        None
    }
}

/// `MarkIrrelevant`: a clause and everything under it no longer matter.
fn mark_irrelevant(subs: &mut [Sub<'_>], index: Option<usize>) {
    let Some(i) = index else {
        return;
    };
    subs[i].dont_care = true;
    let (l, r, g) = (subs[i].ix_left, subs[i].ix_right, subs[i].ix_grip);
    mark_irrelevant(subs, l);
    mark_irrelevant(subs, r);
    mark_irrelevant(subs, g);
}

/// The end of a chain of effective clauses: the clause `ix` reduces to.
fn effective_end(subs: &[Sub<'_>], mut ix: usize) -> usize {
    while let Some(next) = subs[ix].ix_effective {
        ix = next;
    }
    ix
}

/// `AnalyzePropagateConstants`: reduces logical operators over constant clauses, noting which
/// clause each reduces to and which no longer matter.
fn propagate_constants(subs: &mut [Sub<'_>]) {
    const TRUTHY: [&str; 10] = ["?", "F", "T", "", "u", "e", "?", "f", "t", "s"];
    let truthy = |hard: i32, soft: bool| TRUTHY[(hard + 1 + 6 * i32::from(soft)) as usize];
    for ix in 0..subs.len() {
        let mut ix_effective = None;
        let mut ix_irrelevant = None;
        let mut soft_irrelevant = false;
        if let Some(logic_op) = subs[ix].logic_op {
            let hard_soft = |i: Option<usize>| match i {
                Some(i) if subs[i].constant => (subs[i].hard_value, subs[i].variable),
                _ => (2, false),
            };
            let (l, r, g) = (subs[ix].ix_left, subs[ix].ix_right, subs[ix].ix_grip);
            let (hard_left, soft_left) = hard_soft(l);
            let (hard_right, soft_right) = hard_soft(r);
            let (hard_grip, soft_grip) = hard_soft(g);
            let s = &mut subs[ix];
            match logic_op {
                LogicOp::Not => {
                    s.label = format!(" ! [{}]{}", Ix(l), truthy(hard_left, soft_left));
                }
                LogicOp::Or => {
                    if hard_left == 1 || hard_right == 1 {
                        s.constant = true;
                        s.hard_value = 1;
                        s.variable = soft_left && soft_right;
                        if hard_left == 1 {
                            ix_effective = l;
                            ix_irrelevant = r;
                            soft_irrelevant = soft_left && (hard_right != 0 || soft_right);
                        } else {
                            ix_effective = r;
                            ix_irrelevant = l;
                            soft_irrelevant = soft_right && (hard_left != 0 || soft_left);
                        }
                        s.ix_effective = ix_effective;
                    } else if hard_left == 0 && hard_right == 0 {
                        s.constant = true;
                        s.variable = soft_left || soft_right;
                        s.hard_value = 0;
                    } else if hard_left == 0 {
                        ix_effective = r;
                        s.ix_effective = r;
                        ix_irrelevant = l;
                        soft_irrelevant = soft_left;
                    } else if hard_right == 0 {
                        ix_effective = l;
                        s.ix_effective = l;
                        ix_irrelevant = r;
                        soft_irrelevant = soft_right;
                    }
                    s.label = format!(
                        "[{}]{} || [{}]{}",
                        Ix(l),
                        truthy(hard_left, soft_left),
                        Ix(r),
                        truthy(hard_right, soft_right)
                    );
                }
                LogicOp::And => {
                    if hard_left == 0 || hard_right == 0 {
                        s.constant = true;
                        s.variable = soft_left || soft_right;
                        s.hard_value = 0;
                        if hard_left == 0 {
                            ix_effective = l;
                            ix_irrelevant = r;
                            soft_irrelevant = soft_left;
                        } else {
                            ix_effective = r;
                            ix_irrelevant = l;
                            soft_irrelevant = soft_right;
                        }
                        s.ix_effective = ix_effective;
                    } else if hard_left == 1 && hard_right == 1 {
                        s.constant = true;
                        s.variable = soft_left || soft_right;
                        s.hard_value = 1;
                    } else if hard_left == 1 {
                        ix_effective = r;
                        s.ix_effective = r;
                    } else if hard_right == 1 {
                        ix_effective = l;
                        s.ix_effective = l;
                    }
                    s.label = format!(
                        "[{}]{} && [{}]{}",
                        Ix(l),
                        truthy(hard_left, soft_left),
                        Ix(r),
                        truthy(hard_right, soft_right)
                    );
                }
                LogicOp::IfThenElse => {
                    if hard_left == 0 || hard_left == 1 {
                        ix_effective = if hard_left == 1 { r } else { g };
                        s.ix_effective = ix_effective;
                        ix_irrelevant = if hard_left == 1 { g } else { r };
                        soft_irrelevant = soft_left;
                    }
                    s.label = format!(
                        "ifThenElse([{}]{}, [{}]{}, [{}]{})",
                        Ix(l),
                        truthy(hard_left, soft_left),
                        Ix(r),
                        truthy(hard_right, soft_right),
                        Ix(g),
                        truthy(hard_grip, soft_grip)
                    );
                    if let Some(eff) = ix_effective.filter(|&eff| subs[eff].constant) {
                        let hv = subs[eff].hard_value;
                        let s = &mut subs[ix];
                        s.constant = true;
                        s.variable = soft_left;
                        s.hard_value = hv;
                    }
                }
            }
        }

        // Follow the chain of effective clauses.
        if let Some(eff) = ix_effective {
            if ix_irrelevant.is_none() {
                if ix_effective == subs[ix].ix_left {
                    ix_irrelevant = subs[ix].ix_right;
                }
                if ix_effective == subs[ix].ix_right {
                    ix_irrelevant = subs[ix].ix_left;
                }
                if subs[ix].variable {
                    soft_irrelevant = true;
                }
            }
            if subs[eff].ix_effective.is_some() {
                subs[ix].ix_effective = Some(effective_end(subs, eff));
            }
        }
        if !soft_irrelevant {
            mark_irrelevant(subs, ix_irrelevant);
        }
    }
}

/// `AnalyzeRequirementsForEachTarget`: reduces `request`'s attribute `attr` to the clauses
/// that decide it, counts the targets each matches, and renders the table.
pub fn analyze_requirements_for_each_target(
    request: &ClassAd,
    attr: &str,
    inline: &Names,
    targets: &[&ClassAd],
    fmt: &Fmt<'_>,
) -> String {
    let inline = inline.without(attr);
    let mut out = String::new();
    let Some(tree) = request.lookup(attr) else {
        return out;
    };
    let mut subs = Vec::new();
    let mut varres = false;
    analyze_sub_expr(
        request,
        tree,
        &inline,
        &mut subs,
        &mut varres,
        true,
        fmt.details,
    );
    for sub in subs.iter_mut() {
        sub.check_if_constant(request);
    }
    propagate_constants(&mut subs);

    // Effective clauses stand in for the ones that reduce to them.
    for ix in 0..subs.len() {
        let mut changed = false;
        let sub = &subs[ix];
        let effective = [sub.ix_left, sub.ix_right, sub.ix_grip].map(|j| {
            let eff = j.and_then(|j| subs[j].ix_effective);
            changed |= eff.is_some();
            eff.or(j)
        });
        if changed {
            let sub = &mut subs[ix];
            [sub.ix_left, sub.ix_right, sub.ix_grip] = effective;
            sub.label.clear();
        }
    }

    // Count the targets each clause matches, pruning the clauses that do not decide.
    let matches_all = targets.len() as i32;
    let count = |subs: &[Sub<'_>], i: usize| subs[i].matches;
    for ix in 0..subs.len() {
        if subs[ix].ix_effective.is_some() || subs[ix].dont_care || subs[ix].constant {
            continue;
        }
        subs[ix].matches = 0;
        // A logical operator over two clauses.
        let operands = match (subs[ix].ix_left, subs[ix].ix_right, subs[ix].logic_op) {
            (Some(l), Some(r), Some(logic)) => Some((l, r, logic)),
            _ => None,
        };
        if let Some((l, r, logic)) = operands {
            let mut ix_effective = None;
            let mut ix_prune = None;
            if logic == LogicOp::And {
                if count(&subs, l) == 0 {
                    ix_effective = Some(l);
                } else if count(&subs, r) == 0 {
                    ix_effective = Some(r);
                }
            } else if logic == LogicOp::Or {
                let (cl, cr) = (count(&subs, l), count(&subs, r));
                if cl == matches_all {
                    (ix_effective, ix_prune) = (Some(l), Some(r));
                } else if cr == matches_all || (cl == 0 && cr != 0) {
                    (ix_effective, ix_prune) = (Some(r), Some(l));
                } else if cl != 0 && cr == 0 {
                    (ix_effective, ix_prune) = (Some(l), Some(r));
                }
            }
            mark_irrelevant(&mut subs, ix_prune);
            match ix_effective {
                Some(eff) => subs[ix].ix_effective = Some(effective_end(&subs, eff)),
                None => relink(&mut subs, ix, l, r),
            }
        }

        subs[ix].matches = targets
            .iter()
            .filter(|target| is_true(eval_expr(subs[ix].tree, Some(request), Some(target))))
            .count() as i32;

        // Did one side of an && decide it?
        if let Some((l, r, logic)) = operands {
            let mut ix_effective = None;
            if logic == LogicOp::And {
                let mine = count(&subs, ix);
                if count(&subs, l) == mine {
                    ix_effective = Some(l);
                    if count(&subs, r) > mine {
                        subs[r].dont_care = true;
                    }
                } else if count(&subs, r) == mine {
                    ix_effective = Some(r);
                    if count(&subs, l) > mine {
                        subs[l].dont_care = true;
                    }
                }
            }
            match ix_effective {
                Some(eff) => {
                    subs[ix].ix_effective = Some(effective_end(&subs, eff));
                    subs[ix].label.clear();
                }
                None => relink(&mut subs, ix, l, r),
            }
        }
    }

    // The table.
    if fmt.details & APPEND_TO_BUF == 0 {
        out.clear();
    }
    let all = fmt.details & SHOW_ALL_SUBEXPRS != 0;
    if fmt.details & SUPPRESS_TALL_HEADING == 0 {
        if all {
            out.push_str("   ");
        }
        // The target type centred over the count column.
        let pad = 7 + (9 - 1 - fmt.target_type.len() as i64).max(0) / 2;
        out.push_str(&" ".repeat(pad as usize));
        out.push_str(fmt.target_type);
        out.push_str("s\n");
    }
    if all {
        out.push_str("   ");
    }
    out.push_str("Step    Matched  Condition\n");
    if all {
        out.push_str("   ");
    }
    out.push_str("-----  --------  ---------\n");
    for (ix, sub) in subs.iter_mut().enumerate() {
        let skip = sub.ix_effective.is_some() || sub.dont_care;
        let prefix = if all {
            if fmt.details & DIAGNOSTIC != 0 && sub.dont_care {
                "n/a"
            } else if skip {
                "   "
            } else {
                " * "
            }
        } else if skip {
            continue;
        } else {
            ""
        };
        let step = step_label(ix, 3);
        if sub.constant {
            let value = if sub.variable {
                if sub.hard_value != 0 {
                    "now"
                } else {
                    "not now"
                }
            } else if sub.hard_value != 0 {
                "always"
            } else {
                "never"
            };
            let label = sub.label();
            out.push_str(&format!("{prefix}{step} {value:>9}  {label}\n"));
            continue;
        }
        let label = sub.label();
        let mut line = format!("{step} {:9}  {label}", sub.matches);
        if sub.logic_op.is_some() {
            let mut pretty = fmt.details & SMART_UNPARSE_EXPR != 0;
            // Its operands are the two clauses just before it (or, for the second clause,
            // none and the first).
            if ix >= 1 && sub.ix_left == ix.checked_sub(2) && sub.ix_right == Some(ix - 1) {
                pretty = false;
            }
            if fmt.details & ALWAYS_UNPARSE_EXPR != 0 {
                pretty = true;
            }
            if pretty {
                line.push_str(" ( ");
                let tree = pretty_print(
                    &expr_to_string(sub.tree),
                    line.len() as i32,
                    fmt.console_width,
                );
                line.push_str(&tree);
                line.push_str(" )");
            }
        }
        out.push_str(prefix);
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Points a clause at the effective clauses of its operands `l` and `r`.
fn relink(subs: &mut [Sub<'_>], ix: usize, l: usize, r: usize) {
    if let Some(el) = subs[l].ix_effective {
        subs[ix].ix_left = Some(el);
        subs[ix].label.clear();
    }
    if let Some(er) = subs[r].ix_effective {
        subs[ix].ix_right = Some(er);
        subs[ix].label.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::analysis::test_ads::{ad, job, pslot};
    use crate::classad::analysis::ANALYZE_EACH_SUB_EXPR;

    fn table(request: &ClassAd, targets: &[&ClassAd]) -> String {
        let fmt = Fmt {
            console_width: 80,
            details: ANALYZE_EACH_SUB_EXPR,
            target_type: "Slot",
        };
        analyze_requirements_for_each_target(
            request,
            "Requirements",
            &Names::of(&["Requirements"]),
            targets,
            &fmt,
        )
    }

    #[test]
    fn the_table_keeps_the_clauses_that_decide() {
        let j = job("RequestMemory = 100000");
        let (a, b) = (pslot(2048), pslot(4096));
        assert_eq!(
            table(&j, &[&a, &b]),
            "         Slots\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [0]           2  TARGET.Arch == \"X86_64\"\n\
             [1]           2  TARGET.OpSys == \"LINUX\"\n\
             [3]           2  TARGET.Disk >= RequestDisk\n\
             [5]           0  TARGET.Memory >= RequestMemory\n\
             [7]           2  TARGET.FileSystemDomain == MY.FileSystemDomain\n"
        );
    }

    #[test]
    fn constant_clauses_say_always_or_never() {
        // A constant operand decides an || or an &&: the other one no longer matters.
        let j = ad("ClusterId = 1\nProcId = 0\nx = 3\n\
             Requirements = (x > 5) || (TARGET.Memory > 10 && MY.x =?= 3)");
        let s = ad("Memory = 20");
        assert_eq!(
            table(&j, &[&s]),
            "         Slots\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [1]           1  TARGET.Memory > 10\n"
        );
        let j = ad("x = 3\nRequirements = (x > 5) && TARGET.Memory > 10");
        assert_eq!(
            table(&j, &[&s]),
            "         Slots\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [0]       never  x > 5\n"
        );
        let j = ad("x = 3\nRequirements = (x < 5) && TARGET.Memory > 10 && (time() > 0)");
        assert_eq!(
            table(&j, &[&s]),
            "         Slots\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [1]           1  TARGET.Memory > 10\n\
             [3]         now  time() > 0\n"
        );
    }

    #[test]
    fn an_or_matching_some_slots_shows_both_sides() {
        let j = ad("ClusterId = 1\nProcId = 0\n\
             Requirements = TARGET.Memory > 10 && (TARGET.Name == \"a\" || TARGET.Name == \"b\")");
        let (a, b, c) = (
            ad("Name = \"a\"\nMemory = 20"),
            ad("Name = \"b\"\nMemory = 5"),
            ad("Name = \"c\"\nMemory = 20"),
        );
        assert_eq!(
            table(&j, &[&a, &b, &c]),
            "         Slots\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [0]           2  TARGET.Memory > 10\n\
             [1]           1  TARGET.Name == \"a\"\n\
             [2]           1  TARGET.Name == \"b\"\n\
             [3]           2  [1] || [2]\n\
             [4]           1  [0] && [3]\n"
        );
    }

    #[test]
    fn a_negation_is_counted_as_its_operand_and_only_true_is_true() {
        // 24.0 gives `!x` no clause of its own: the table counts `x`.
        let j = ad("Requirements = !(TARGET.x == 1) && TARGET.y");
        let (a, b) = (ad("x = 1\ny = true"), ad("x = 2\ny = true"));
        assert_eq!(
            table(&j, &[&a, &b]),
            "         Slots\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [0]           1  TARGET.x == 1\n"
        );
        // A number is not a boolean: the clause is never true.
        let j = ad("x = 1\nRequirements = x && TARGET.Memory > 10");
        assert_eq!(
            table(&j, &[&ad("Memory = 20")]),
            "         Slots\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [0]       never  x\n"
        );
    }
}
