//! The attributes an expression reads: from its own ad (internal references) and from the
//! target (external ones), as libclassad's `GetInternalReferences` and
//! `GetExternalReferences` find them, and the listings the analysis prints of them.

use std::collections::BTreeMap;

use crate::classad::ast::{Expr, ScopeKw};
use crate::classad::unparse::{expr_to_string, write_expr, write_value, Syntax};
use crate::classad::{eval_expr, ClassAd, Value};

/// How deep reference walks follow attributes before giving up (libclassad's limit).
const MAX_DEPTH: u32 = 400;

/// A set of attribute names as `classad::References` keeps them: case-insensitive, sorted as
/// `strcasecmp` sorts, each with the spelling first inserted.
#[derive(Clone, Debug, Default)]
pub struct Names(BTreeMap<String, String>);

impl Names {
    pub fn of(names: &[&str]) -> Names {
        let mut n = Names::default();
        for name in names {
            n.insert(name);
        }
        n
    }

    pub fn insert(&mut self, name: &str) {
        self.0
            .entry(name.to_ascii_lowercase())
            .or_insert_with(|| name.to_owned());
    }

    pub fn contains(&self, name: &str) -> bool {
        self.0.contains_key(&name.to_ascii_lowercase())
    }

    pub fn without(&self, name: &str) -> Names {
        let mut n = self.clone();
        n.0.remove(&name.to_ascii_lowercase());
        n
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.values().map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `TrimReferenceNames` for an external reference: no `TARGET.` (or `other.`, `.left.`,
/// `.right.`, `.`) prefix, and nothing from the first `.` or `[`.
fn trim_external(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let mut rest = name;
    for prefix in ["target.", "other.", ".left.", ".right."] {
        if lower.starts_with(prefix) {
            rest = &name[prefix.len()..];
            break;
        }
    }
    if rest.len() == name.len() {
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    rest[..end].to_owned()
}

/// libclassad's `GetExternalReferences` in an ad with no target: the names an expression
/// reads that the ad does not define, following the ones it does. False when the walk fails
/// (an attribute referring to itself).
pub(super) fn external_refs(ad: &ClassAd, e: &Expr, out: &mut Names, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let follow = |name: &str, out: &mut Names| match ad.lookup(name) {
        Some(found) => external_refs(ad, found, out, depth + 1),
        None => {
            out.insert(&trim_external(name));
            true
        }
    };
    match e {
        Expr::Lit(_) => true,
        Expr::Attr(n)
        | Expr::Absolute(n)
        | Expr::Scoped {
            scope: ScopeKw::My,
            name: n,
            ..
        } => follow(n, out),
        Expr::Scoped { prefix, name, .. } => {
            out.insert(&trim_external(&format!("{prefix}.{name}")));
            true
        }
        Expr::Select(base, name) => match eval_expr(base, Some(ad), None) {
            Ok(Value::Undefined) => {
                out.insert(&trim_external(&format!("{}.{name}", expr_to_string(base))));
                true
            }
            Ok(Value::Ad(_)) => true,
            _ => false,
        },
        Expr::Unary(_, a) | Expr::Paren(a) => external_refs(ad, a, out, depth + 1),
        Expr::Binary { lhs, rhs, .. } => {
            external_refs(ad, lhs, out, depth + 1) && external_refs(ad, rhs, out, depth + 1)
        }
        Expr::Ternary(a, b, c) => [a, b, c]
            .iter()
            .all(|x| external_refs(ad, x, out, depth + 1)),
        Expr::Call(call) => call
            .args
            .iter()
            .all(|x| external_refs(ad, x, out, depth + 1)),
        Expr::List(items) => items.iter().all(|x| external_refs(ad, x, out, depth + 1)),
        Expr::Ad(inner) => inner
            .iter()
            .all(|(_, x)| external_refs(ad, x, out, depth + 1)),
    }
}

/// [`external_refs`] for callers outside the analysis: `GetExternalReferences` of `e` in
/// `ad` (names trimmed as `TrimReferenceNames` trims them) added to `out`.
pub fn external_references(ad: &ClassAd, e: &Expr, out: &mut Names) -> bool {
    external_refs(ad, e, out, 0)
}

/// libclassad's `GetInternalReferences`: the names an expression reads that the ad
/// defines, following them.
fn internal_refs(ad: &ClassAd, e: &Expr, out: &mut Names, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match e {
        Expr::Lit(_)
        | Expr::Scoped {
            scope: ScopeKw::Target,
            ..
        } => true,
        Expr::Attr(n)
        | Expr::Absolute(n)
        | Expr::Scoped {
            scope: ScopeKw::My,
            name: n,
            ..
        } => match ad.lookup(n) {
            Some(found) => {
                out.insert(n);
                internal_refs(ad, found, out, depth + 1)
            }
            None => true,
        },
        Expr::Select(base, _) => {
            internal_refs(ad, base, out, depth + 1)
                && matches!(
                    eval_expr(base, Some(ad), None),
                    Ok(Value::Undefined | Value::Ad(_))
                )
        }
        Expr::Unary(_, a) | Expr::Paren(a) => internal_refs(ad, a, out, depth + 1),
        Expr::Binary { lhs, rhs, .. } => {
            internal_refs(ad, lhs, out, depth + 1) && internal_refs(ad, rhs, out, depth + 1)
        }
        Expr::Ternary(a, b, c) => [a, b, c]
            .iter()
            .all(|x| internal_refs(ad, x, out, depth + 1)),
        Expr::Call(call) => call
            .args
            .iter()
            .all(|x| internal_refs(ad, x, out, depth + 1)),
        Expr::List(items) => items.iter().all(|x| internal_refs(ad, x, out, depth + 1)),
        Expr::Ad(inner) => inner
            .iter()
            .all(|(_, x)| internal_refs(ad, x, out, depth + 1)),
    }
}

/// `GetExprReferences`: the internal and external references of an expression, both empty
/// when either walk fails.
fn expr_references(ad: &ClassAd, e: &Expr) -> (Names, Names) {
    let (mut internal, mut external) = (Names::default(), Names::default());
    if !internal_refs(ad, e, &mut internal, 0) || !external_refs(ad, e, &mut external, 0) {
        return (Names::default(), Names::default());
    }
    (internal, external)
}

/// A value as `%V` prints it: old syntax, strings quoted.
fn value_text(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v, Syntax::Old);
    s
}

/// `AddReferencedAttribsToBuffer`: one line per attribute of `ad` that its attribute `attr`
/// reads (but those in `hidden`), its expression unparsed (`raw`) or its value (the lines of
/// a print mask whose columns and row end in a newline: no empty line after them); and the
/// names it reads from the target.
pub fn referenced_attribs(ad: &ClassAd, attr: &str, hidden: &Names, raw: bool) -> (String, Names) {
    let (refs, trefs) = expr_references(ad, &Expr::Attr(attr.into()));
    let mut text = String::new();
    if refs.is_empty() && trefs.is_empty() {
        return (text, trefs);
    }
    for name in refs.iter().filter(|n| !hidden.contains(n)) {
        let value = if raw {
            let mut s = String::new();
            if let Some(e) = ad.lookup(name) {
                write_expr(&mut s, e, Syntax::Old);
            }
            s
        } else {
            value_text(&ad.eval_attr(name))
        };
        text.push_str(&format!("    {name} = {value}"));
        match name {
            "RequestDisk" => text.push_str(" (kb)"),
            "RequestMemory" => text.push_str(" (mb)"),
            _ => {}
        }
        text.push('\n');
    }
    (text, trefs)
}

/// `AddTargetAttribsToBuffer`: the values of the target's attributes named in `trefs` (as
/// `request` sees them), and the target's name; `None` when the target has none of them.
pub fn target_attribs(
    trefs: &Names,
    request: &ClassAd,
    target: &ClassAd,
) -> Option<(String, String)> {
    let mut text = String::new();
    let value = |name: &str| {
        value_text(
            &eval_expr(&Expr::Attr(name.into()), Some(request), Some(target))
                .unwrap_or(Value::Error),
        )
    };
    for name in trefs.iter() {
        if target.lookup(name).is_none() {
            continue;
        }
        text.push_str(&format!("    TARGET.{name} = {}", value(name)));
        match name {
            "Disk" => text.push_str(" (kb)"),
            "Memory" => text.push_str(" (mb)"),
            _ => {}
        }
        text.push('\n');
    }
    if text.is_empty() {
        return None;
    }
    let int = |name: &str| target.eval_attr(name).as_number_int();
    let name = match target.eval_attr("Name") {
        Value::Str(n) => n.to_string(),
        _ => match int("ClusterId") {
            Some(c) => format!("Job {}.{}", c, int("ProcId").unwrap_or(0)),
            None => "Target".to_owned(),
        },
    };
    Some((text, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::analysis::test_ads::{job, pslot};

    #[test]
    fn referenced_attributes_are_listed_sorted_with_units() {
        let j = job("RequestMemory = 100000");
        let (text, trefs) =
            referenced_attribs(&j, "Requirements", &Names::of(&["Requirements"]), true);
        assert_eq!(
            text,
            "    DiskUsage = 43\n    FileSystemDomain = \"vm\"\n    \
             RequestDisk = DiskUsage (kb)\n    RequestMemory = 100000 (mb)\n"
        );
        assert_eq!(
            trefs.iter().collect::<Vec<_>>(),
            [
                "Arch",
                "Disk",
                "FileSystemDomain",
                "HasFileTransfer",
                "Memory",
                "OpSys"
            ]
        );
        let (values, name) = target_attribs(&trefs, &j, &pslot(2048)).unwrap();
        assert_eq!(name, "slot1@vm");
        assert_eq!(
            values,
            "    TARGET.Arch = \"X86_64\"\n    TARGET.Disk = 1000000 (kb)\n    \
             TARGET.FileSystemDomain = \"vm\"\n    TARGET.HasFileTransfer = true\n    \
             TARGET.Memory = 2048 (mb)\n    TARGET.OpSys = \"LINUX\"\n"
        );
    }
}
