//! `-af[:qualifiers] attr...` and `-format fmt attr`, turned into print-mask columns as
//! HTCondor's `parse_autoformat_args` (src/condor_utils/ad_printmask.cpp) and
//! `registerFormatF` do.
//!
//! Qualifiers: `j` (job id first), `l` (`Name = value`), `h` (a heading row), `V` (`%V`),
//! `r`/`o` (`%r`, unevaluated), `T` (`%T`), `Y` (`%Y`), `,` (`,` between fields), `t` (tab
//! before fields), `n` (newline between fields), `g` (newline before each ad, no space
//! between fields).

use crate::classad::parser::parse_old_expr;
use crate::classad::Expr;

use super::mask::{Column, PrintMask, Render, AUTO_WIDTH, LEFT, NO_TRUNCATE};
use super::render::render_job_id;

/// One `-af` or `-format` option, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatArg {
    AutoFormat {
        qualifiers: Option<String>,
        attrs: Vec<String>,
    },
    Format {
        format: String,
        attr: String,
    },
}

/// What a command-line expression is, for headings (`ExpressionKind`).
fn is_attr_or_literal(e: &Expr) -> bool {
    matches!(e, Expr::Lit(_) | Expr::Attr(_) | Expr::Scoped { .. })
}

/// Adds the columns of the given options to `mask`, in order. An attribute or expression
/// that does not parse is returned as the error.
pub fn add_format_args(mask: &mut PrintMask, args: &[FormatArg]) -> Result<(), String> {
    for arg in args {
        match arg {
            FormatArg::Format { format, attr } => {
                if parse_old_expr(attr).is_err() {
                    return Err(attr.clone());
                }
                mask.push(Column::new(
                    attr,
                    Some(format),
                    0,
                    NO_TRUNCATE,
                    Render::Printf,
                ));
            }
            FormatArg::AutoFormat { qualifiers, attrs } => {
                add_autoformat(mask, qualifiers.as_deref(), attrs, false)?;
            }
        }
    }
    Ok(())
}

/// One `-af` option (`append`: `-aaf`, which keeps the mask's separators).
pub fn add_autoformat(
    mask: &mut PrintMask,
    qualifiers: Option<&str>,
    attrs: &[String],
    append: bool,
) -> Result<(), String> {
    let mut label = false;
    let mut cap_v = false;
    let mut raw = false;
    let mut time = false;
    let mut date = false;
    let mut headings = false;
    let mut job_id = false;
    let mut row_prefix: Option<&str> = None;
    let mut col_prefix: Option<&str> = Some(" ");
    let mut col_suffix: Option<&str> = None;
    for q in qualifiers.unwrap_or("").chars() {
        match q {
            ',' => col_suffix = Some(","),
            'n' => col_suffix = Some("\n"),
            'g' => {
                col_prefix = None;
                row_prefix = Some("\n");
            }
            't' => col_prefix = Some("\t"),
            'l' => label = true,
            'V' => cap_v = true,
            'r' | 'o' => raw = true,
            'T' => time = true,
            'Y' => date = true,
            'h' => headings = true,
            'j' => job_id = true,
            _ => {}
        }
    }
    if !append {
        mask.set_separators(row_prefix, col_prefix, col_suffix, Some("\n"));
    }
    let headed = headings || mask.has_headings();
    if job_id {
        let mut opts = NO_TRUNCATE | LEFT;
        let fmt = if label { "ID = %v" } else { "%v" };
        if headed {
            opts |= AUTO_WIDTH;
        }
        let col = Column::new("ClusterId", Some(fmt), 0, opts, Render::Str(render_job_id));
        if headed {
            mask.push_headed(" ID", col);
        } else {
            mask.push(col);
        }
    }
    let default_format = if raw {
        "%r"
    } else if cap_v {
        "%V"
    } else if date {
        "%Y"
    } else if time {
        "%T"
    } else {
        "%v"
    };
    for attr in attrs {
        let Ok(expr) = parse_old_expr(attr) else {
            return Err(attr.clone());
        };
        let mut heading = attr.as_str();
        if headed {
            if !is_attr_or_literal(&expr) && !headings && heading.len() > 16 {
                heading = "(expr)";
            }
            let width = -(heading.len() as i32);
            let col = Column::new(
                attr,
                Some(default_format),
                width,
                AUTO_WIDTH | NO_TRUNCATE,
                Render::Printf,
            );
            mask.push_headed(heading, col);
        } else if label {
            let fmt = format!("{attr} = {default_format}");
            mask.push(Column::new(attr, Some(&fmt), 0, 0, Render::Printf));
        } else {
            mask.push(Column::new(
                attr,
                Some(default_format),
                0,
                NO_TRUNCATE,
                Render::Printf,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;
    use crate::output::mask::RenderEnv;

    fn show(qualifiers: Option<&str>, attrs: &[&str]) -> String {
        let mut mask = PrintMask::new();
        let attrs: Vec<String> = attrs.iter().map(|s| s.to_string()).collect();
        add_autoformat(&mut mask, qualifiers, &attrs, false).unwrap();
        let ad = parse_ad(r#"[ ClusterId = 3; ProcId = 1; Owner = "bob"; E = 1 + 2 ]"#).unwrap();
        let env = RenderEnv::default();
        let rows = [mask.render(&ad, &env), mask.render(&ad, &env)];
        let mut out = if mask.has_headings() {
            mask.headings_line()
        } else {
            String::new()
        };
        for row in &rows {
            mask.display(&mut out, row);
        }
        out
    }

    #[test]
    fn qualifiers() {
        assert_eq!(show(None, &["Owner", "E"]), "bob 3\nbob 3\n");
        assert_eq!(show(Some("j"), &["Owner"]), "3.1 bob\n3.1 bob\n");
        assert_eq!(
            show(Some("V,"), &["Owner", "E"]),
            "\"bob\", 3\n\"bob\", 3\n"
        );
        assert_eq!(
            show(Some("r"), &["E", "Nope"]),
            "1 + 2 undefined\n1 + 2 undefined\n"
        );
        assert_eq!(show(Some("l"), &["Owner"]), "Owner = bob\nOwner = bob\n");
        assert_eq!(
            show(Some("lrng"), &["Owner", "E"]),
            "\nOwner = \"bob\"\nE = 1 + 2\n\nOwner = \"bob\"\nE = 1 + 2\n"
        );
        assert_eq!(show(Some("t"), &["Owner", "E"]), "bob\t3\nbob\t3\n");
        assert_eq!(
            show(Some("jh"), &["Owner", "ClusterId"]),
            " ID Owner ClusterId\n3.1 bob   3        \n3.1 bob   3        \n"
        );
    }

    #[test]
    fn invalid_expressions_are_errors() {
        let mut mask = PrintMask::new();
        let err = add_autoformat(&mut mask, None, &["a +".to_owned()], false).unwrap_err();
        assert_eq!(err, "a +");
    }
}
