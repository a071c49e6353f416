//! Printers: new syntax (`[ a = 1; b = "x" ]`), old syntax (`Name = value`
//! lines, as `condor_q -long` prints), HTCondor's JSON and XML forms.
//!
//! Each follows libclassad's unparser byte for byte: reals as `%1.15E` in new
//! syntax and `%.16G` (with `.0` kept) in old syntax and JSON; strings with C
//! escapes and octal for anything unprintable in new syntax, only `"`
//! escaped in old syntax; unary operators with their leading space (` -x`).

use std::fmt::Write;

use super::ad::ClassAd;
use super::ast::Expr;
use super::functions::time::{abstime_to_string, reltime_to_string};
use super::value::Value;

/// Which syntax to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    New,
    Old,
}

/// C's `printf("%.*E", prec, r)` for a finite `r`.
pub fn fmt_e(r: f64, prec: usize, upper: bool) -> String {
    let s = format!("{:.*e}", prec, r);
    let (mant, exp) = s.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent digits");
    let sign = if exp < 0 { '-' } else { '+' };
    let e = if upper { 'E' } else { 'e' };
    format!("{mant}{e}{sign}{:02}", exp.abs())
}

/// C's `printf("%.*G", prec, r)` for a finite `r` (no `#` flag).
pub fn fmt_g(r: f64, prec: usize, upper: bool) -> String {
    let p = if prec == 0 { 1 } else { prec };
    if r == 0.0 {
        return if r.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // The exponent %e would print, after rounding to p significant digits.
    let e_form = format!("{:.*e}", p - 1, r);
    let (_, exp) = e_form.split_once('e').expect("exponent");
    let x: i32 = exp.parse().expect("exponent digits");
    if x < -4 || x >= p as i32 {
        let s = fmt_e(r, p - 1, upper);
        let (mant, rest) = s.split_at(s.find(['e', 'E']).expect("exponent"));
        format!("{}{}", trim_zeros(mant), rest)
    } else {
        let decimals = (p as i32 - 1 - x).max(0) as usize;
        trim_zeros(&format!("{:.*}", decimals, r)).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `%.16G`, with `.0` added when the result looks like an integer.
pub fn real_old(r: f64) -> String {
    let mut s = fmt_g(r, 16, true);
    if !s.contains(['.', 'E', 'e']) {
        s.push_str(".0");
    }
    s
}

fn write_real(out: &mut String, r: f64, syntax: Syntax) {
    if r == 0.0 {
        out.push_str(if r.is_sign_negative() { "-0.0" } else { "0.0" });
    } else if r.is_nan() {
        out.push_str("real(\"NaN\")");
    } else if r.is_infinite() {
        out.push_str(if r < 0.0 {
            "real(\"-INF\")"
        } else {
            "real(\"INF\")"
        });
    } else if syntax == Syntax::Old {
        out.push_str(&real_old(r));
    } else {
        out.push_str(&fmt_e(r, 15, true));
    }
}

/// A string literal with `delim` as the quote.
pub fn write_string(out: &mut String, s: &str, delim: char, syntax: Syntax) {
    out.push(delim);
    if syntax == Syntax::Old {
        for c in s.chars() {
            if c == delim {
                out.push('\\');
            }
            out.push(c);
        }
        out.push(delim);
        return;
    }
    for &b in s.as_bytes() {
        match b {
            _ if b as char == delim => {
                out.push('\\');
                out.push(delim);
            }
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0b => out.push_str("\\v"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{:03o}", b);
            }
        }
    }
    out.push(delim);
}

const RESERVED: [&str; 7] = [
    "error",
    "false",
    "is",
    "isnt",
    "parent",
    "true",
    "undefined",
];

/// An attribute name, quoted with `'` when it is not a plain identifier.
pub fn write_name(out: &mut String, name: &str, syntax: Syntax) {
    let b = name.as_bytes();
    let plain = !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        && !RESERVED.iter().any(|r| r.eq_ignore_ascii_case(name));
    if plain {
        out.push_str(name);
    } else {
        let mut q = String::new();
        write_string(&mut q, name, '\'', syntax);
        out.push_str(&q);
    }
}

/// Writes a value in the given syntax.
pub fn write_value(out: &mut String, v: &Value, syntax: Syntax) {
    match v {
        Value::Undefined => out.push_str("undefined"),
        Value::Error => out.push_str("error"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Real(r) => write_real(out, *r, syntax),
        Value::Str(s) => write_string(out, s, '"', syntax),
        Value::AbsTime(t) => {
            out.push_str("absTime(\"");
            out.push_str(&abstime_to_string(*t));
            out.push_str("\")");
        }
        Value::RelTime(r) => {
            out.push_str("relTime(\"");
            out.push_str(&reltime_to_string(*r));
            out.push_str("\")");
        }
        Value::List(l) => write_list(out, &l.items, syntax),
        Value::Ad(f) => write_ad_inline(out, &f.ad_snapshot(), syntax),
    }
}

fn write_list(out: &mut String, items: &[Expr], syntax: Syntax) {
    Printer::flat(syntax).list(out, items);
}

/// `[ a = 1; b = 2 ]`.
pub fn write_ad_inline(out: &mut String, ad: &ClassAd, syntax: Syntax) {
    Printer::flat(syntax).ad(out, ad);
}

/// Writes an expression in the given syntax.
pub fn write_expr(out: &mut String, e: &Expr, syntax: Syntax) {
    Printer::flat(syntax).expr(out, e);
}

/// libclassad's `PrettyPrint` indentation: ads by 4, lists by 3, and the
/// level grows twice per nesting, as in the reference.
const PRETTY_AD_INDENT: usize = 4;
const PRETTY_LIST_INDENT: usize = 3;

/// The unparser: flat (one line), or pretty (nested lists and ads on
/// indented lines, as `unparse()` and `PrettyPrint` lay them out).
struct Printer {
    syntax: Syntax,
    pretty: bool,
    indent: usize,
}

impl Printer {
    fn flat(syntax: Syntax) -> Printer {
        Printer {
            syntax,
            pretty: false,
            indent: 0,
        }
    }

    fn newline(&self, out: &mut String) {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', self.indent));
    }

    fn list(&mut self, out: &mut String, items: &[Expr]) {
        if !self.pretty {
            out.push_str("{ ");
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                self.expr(out, e);
            }
            out.push_str(" }");
            return;
        }
        self.indent += PRETTY_LIST_INDENT;
        self.newline(out);
        out.push('{');
        self.indent += PRETTY_LIST_INDENT;
        for (i, item) in items.iter().enumerate() {
            self.newline(out);
            self.expr(out, item);
            if i + 1 < items.len() {
                out.push(',');
            }
        }
        self.indent -= PRETTY_LIST_INDENT;
        self.newline(out);
        out.push('}');
        self.indent -= PRETTY_LIST_INDENT;
    }

    fn ad(&mut self, out: &mut String, ad: &ClassAd) {
        if self.pretty {
            self.indent += PRETTY_AD_INDENT;
            self.newline(out);
            out.push('[');
            self.indent += PRETTY_AD_INDENT;
        } else {
            out.push_str("[ ");
        }
        for (i, (n, e)) in ad.iter().enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            if self.pretty {
                self.newline(out);
            }
            write_name(out, n, self.syntax);
            out.push_str(" = ");
            self.expr(out, e);
        }
        if self.pretty {
            self.indent -= PRETTY_AD_INDENT;
            self.newline(out);
            out.push(']');
            self.indent -= PRETTY_AD_INDENT;
        } else {
            out.push_str(" ]");
        }
    }

    fn expr(&mut self, out: &mut String, e: &Expr) {
        let syntax = self.syntax;
        match e {
            Expr::Lit(v) => write_value(out, v, syntax),
            Expr::Attr(n) => write_name(out, n, syntax),
            Expr::Absolute(n) => {
                out.push('.');
                write_name(out, n, syntax);
            }
            Expr::Scoped { prefix, name, .. } => {
                write_name(out, prefix, syntax);
                out.push('.');
                write_name(out, name, syntax);
            }
            Expr::Select(base, n) => {
                self.expr(out, base);
                if out.ends_with(|c: char| c.is_ascii_digit()) {
                    // `1.x` would read back as the real `1.` then `x`.
                    out.push(' ');
                }
                out.push('.');
                write_name(out, n, syntax);
            }
            Expr::Unary(op, inner) => {
                out.push_str(op.text());
                self.expr(out, inner);
            }
            Expr::Binary { op, lhs, rhs, .. } => match op {
                super::ast::BinOp::Subscript => {
                    self.expr(out, lhs);
                    out.push('[');
                    self.expr(out, rhs);
                    out.push(']');
                }
                _ => {
                    self.expr(out, lhs);
                    // New syntax prints `=?=` as `is`; old syntax the other way.
                    out.push_str(op.text(syntax == Syntax::New));
                    self.expr(out, rhs);
                }
            },
            Expr::Ternary(c, t, f) => {
                self.expr(out, c);
                out.push_str(" ? ");
                self.expr(out, t);
                out.push_str(" : ");
                self.expr(out, f);
            }
            Expr::Paren(inner) => {
                out.push('(');
                self.expr(out, inner);
                out.push(')');
            }
            Expr::Call(call) => {
                out.push_str(&call.name);
                out.push('(');
                for (i, a) in call.args.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.expr(out, a);
                }
                out.push(')');
            }
            Expr::List(items) => self.list(out, items),
            Expr::Ad(ad) => self.ad(out, ad),
        }
    }
}

/// An expression in new syntax, pretty-printed (what `unparse()` returns).
pub fn expr_to_pretty_string(e: &Expr) -> String {
    let mut s = String::new();
    Printer {
        syntax: Syntax::New,
        pretty: true,
        indent: 0,
    }
    .expr(&mut s, e);
    s
}

/// An ad in new syntax, pretty-printed (libclassad's `PrettyPrint`).
pub fn ad_to_pretty_string(ad: &ClassAd) -> String {
    let mut s = String::new();
    Printer {
        syntax: Syntax::New,
        pretty: true,
        indent: 0,
    }
    .ad(&mut s, ad);
    s
}

/// An expression in new syntax.
pub fn expr_to_string(e: &Expr) -> String {
    let mut s = String::new();
    write_expr(&mut s, e, Syntax::New);
    s
}

/// An expression in old syntax.
pub fn expr_to_old_string(e: &Expr) -> String {
    let mut s = String::new();
    write_expr(&mut s, e, Syntax::Old);
    s
}

/// A value in new syntax.
pub fn value_to_string(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v, Syntax::New);
    s
}

/// An ad in new syntax, on one line.
pub fn ad_to_string(ad: &ClassAd) -> String {
    let mut s = String::new();
    write_ad_inline(&mut s, ad, Syntax::New);
    s
}

/// An ad in old syntax: one `Name = value` line per attribute, in the ad's
/// order or sorted case-insensitively (as `-long` prints).
pub fn ad_to_old(ad: &ClassAd, sorted: bool) -> String {
    let mut s = String::new();
    let attrs: Vec<(&str, &Expr)> = if sorted {
        ad.sorted()
    } else {
        ad.iter().collect()
    };
    for (n, e) in attrs {
        write_name(&mut s, n, Syntax::Old);
        s.push_str(" = ");
        write_expr(&mut s, e, Syntax::Old);
        s.push('\n');
    }
    s
}

fn json_escape(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 32 => {
                let _ = write!(out, "\\u00{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
}

fn json_quote_expr(out: &mut String, text: &str) {
    out.push_str("\"\\/Expr(");
    json_escape(out, text);
    out.push_str(")\\/\"");
}

fn json_value(out: &mut String, v: &Value, indent: usize, oneline: bool) {
    match v {
        Value::Str(s) => {
            out.push('"');
            json_escape(out, s);
            out.push('"');
        }
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Real(r) => {
            if *r == 0.0 || r.is_finite() {
                write_real(out, *r, Syntax::Old);
            } else {
                let mut t = String::new();
                write_real(&mut t, *r, Syntax::New);
                json_quote_expr(out, &t);
            }
        }
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Undefined => out.push_str("null"),
        Value::List(l) => json_list(out, &l.items, indent, oneline),
        Value::Ad(f) => json_ad(out, &f.ad_snapshot(), indent, oneline),
        other => json_quote_expr(out, &value_to_string(other)),
    }
}

fn json_list(out: &mut String, items: &[Expr], indent: usize, oneline: bool) {
    out.push('[');
    let inner = indent + 2;
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if !oneline {
            out.push('\n');
            out.push_str(&" ".repeat(inner));
        }
        json_expr(out, e, inner, oneline);
    }
    if !oneline {
        out.push('\n');
        out.push_str(&" ".repeat(indent));
    }
    out.push(']');
}

fn json_expr(out: &mut String, e: &Expr, indent: usize, oneline: bool) {
    match e {
        Expr::Lit(v) => json_value(out, v, indent, oneline),
        Expr::List(items) => json_list(out, items, indent, oneline),
        Expr::Ad(ad) => json_ad(out, ad, indent, oneline),
        other => json_quote_expr(out, &expr_to_string(other)),
    }
}

/// An ad as HTCondor's JSON object (multi-line with 2-space indents, or one line).
pub fn json_ad(out: &mut String, ad: &ClassAd, indent: usize, oneline: bool) {
    json_ad_attrs(out, ad.iter(), indent, oneline)
}

/// An ad as HTCondor's JSON object with the attributes in the given order.
pub fn json_ad_attrs<'x>(
    out: &mut String,
    attrs: impl Iterator<Item = (&'x str, &'x Expr)>,
    indent: usize,
    oneline: bool,
) {
    out.push('{');
    let inner = indent + 2;
    let mut any = false;
    for (i, (n, e)) in attrs.enumerate() {
        any = true;
        if i > 0 {
            out.push(',');
        }
        if !oneline {
            out.push('\n');
            out.push_str(&" ".repeat(inner));
        }
        out.push('"');
        json_escape(out, n);
        out.push_str("\": ");
        json_expr(out, e, inner, oneline);
    }
    if !oneline {
        out.push('\n');
        out.push_str(&" ".repeat(indent));
    } else if !any {
        // nothing between the braces
    }
    out.push('}');
}

/// An ad as JSON text (what `printJson` gives).
pub fn ad_to_json(ad: &ClassAd) -> String {
    let mut s = String::new();
    json_ad(&mut s, ad, 0, false);
    s
}

fn xml_escape(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// String content as the XML sink writes it: new-syntax escapes, but no
/// quote to escape, then the XML entities.
fn xml_text(out: &mut String, s: &str) {
    let mut quoted = String::new();
    write_string(&mut quoted, s, '\0', Syntax::New);
    xml_escape(out, &quoted[1..quoted.len() - 1]);
}

fn xml_value(out: &mut String, v: &Value, indent: usize) {
    match v {
        Value::Str(s) => {
            out.push_str("<s>");
            xml_text(out, s);
            out.push_str("</s>");
        }
        Value::Int(i) => {
            let _ = write!(out, "<i>{i}</i>");
        }
        Value::Real(r) => {
            out.push_str("<r>");
            if *r == 0.0 {
                out.push_str(if r.is_sign_negative() { "-0.0" } else { "0.0" });
            } else if r.is_nan() {
                out.push_str("NaN");
            } else if r.is_infinite() {
                out.push_str(if *r < 0.0 { "-INF" } else { "INF" });
            } else {
                out.push_str(&fmt_e(*r, 15, true));
            }
            out.push_str("</r>");
        }
        Value::Bool(b) => {
            let _ = write!(out, "<b v=\"{}\"/>", if *b { "t" } else { "f" });
        }
        Value::Undefined => out.push_str("<un/>"),
        Value::Error => out.push_str("<er/>"),
        Value::AbsTime(t) => {
            let _ = write!(out, "<at>{}</at>", abstime_to_string(*t));
        }
        Value::RelTime(r) => {
            let _ = write!(out, "<rt>{}</rt>", reltime_to_string(*r));
        }
        Value::List(l) => xml_list(out, &l.items, indent),
        Value::Ad(f) => xml_ad(out, f.ad_snapshot().iter(), indent),
    }
}

fn xml_list(out: &mut String, items: &[Expr], indent: usize) {
    out.push_str("<l>");
    for i in items {
        xml_expr(out, i, indent);
    }
    out.push_str("</l>");
}

fn xml_expr(out: &mut String, e: &Expr, indent: usize) {
    match e {
        Expr::Lit(v) => xml_value(out, v, indent),
        Expr::List(items) => xml_list(out, items, indent),
        Expr::Ad(ad) => xml_ad(out, ad.iter(), indent),
        other => {
            out.push_str("<e>");
            xml_escape(out, &expr_to_string(other));
            out.push_str("</e>");
        }
    }
}

fn xml_ad<'x>(out: &mut String, attrs: impl Iterator<Item = (&'x str, &'x Expr)>, indent: usize) {
    out.push_str("<c>\n");
    for (n, e) in attrs {
        out.extend(std::iter::repeat_n(' ', indent + 4));
        out.push_str("<a n=\"");
        xml_text(out, n);
        out.push_str("\">");
        xml_expr(out, e, indent + 4);
        out.push_str("</a>\n");
    }
    out.extend(std::iter::repeat_n(' ', indent));
    out.push_str("</c>");
    if indent == 0 {
        out.push('\n');
    }
}

/// One ad in HTCondor's XML form (`<c>` ... `</c>`), attributes in the given order.
pub fn xml_ad_attrs<'x>(out: &mut String, attrs: impl Iterator<Item = (&'x str, &'x Expr)>) {
    xml_ad(out, attrs, 0);
}

/// The XML document header and footer `-xml` prints around the ads.
pub const XML_HEADER: &str =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n";
pub const XML_FOOTER: &str = "</classads>\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_print_as_c_does() {
        assert_eq!(fmt_e(1.0, 15, true), "1.000000000000000E+00");
        assert_eq!(fmt_e(1e-5, 15, true), "1.000000000000000E-05");
        assert_eq!(real_old(1.0), "1.0");
        assert_eq!(real_old(1e30), "1E+30");
        assert_eq!(real_old(1e-5), "1E-05");
        assert_eq!(real_old(0.1), "0.1");
        assert_eq!(real_old(123456789012345678.0), "1.234567890123457E+17");
        assert_eq!(real_old(2.5), "2.5");
        assert_eq!(fmt_g(100000.0, 6, false), "100000");
        assert_eq!(fmt_g(1000000.0, 6, false), "1e+06");
        assert_eq!(fmt_g(0.0001, 6, false), "0.0001");
        assert_eq!(fmt_g(0.00001, 6, false), "1e-05");
    }

    #[test]
    fn xml_as_the_reference_sink_writes_it() {
        let ad = crate::classad::parse_ad(
            r#"[ S = "a<b\"c\n"; I = 7; R = 2.5; Z = 0.0; B = true; U = undefined; E = x + 1; L = { 1, "s" }; N = [ n = 1 ] ]"#,
        )
        .unwrap();
        let mut out = String::new();
        xml_ad_attrs(&mut out, ad.iter());
        assert_eq!(
            out,
            "<c>\n    <a n=\"S\"><s>a&lt;b\"c\\n</s></a>\n    <a n=\"I\"><i>7</i></a>\n    \
             <a n=\"R\"><r>2.500000000000000E+00</r></a>\n    <a n=\"Z\"><r>0.0</r></a>\n    \
             <a n=\"B\"><b v=\"t\"/></a>\n    <a n=\"U\"><un/></a>\n    <a n=\"E\"><e>x + 1</e></a>\n    \
             <a n=\"L\"><l><i>1</i><s>s</s></l></a>\n    <a n=\"N\"><c>\n        <a n=\"n\"><i>1</i></a>\n    </c></a>\n</c>\n"
        );
    }

    #[test]
    fn strings_escape_per_syntax() {
        let mut s = String::new();
        write_string(&mut s, "é\t\"", '"', Syntax::New);
        assert_eq!(s, r#""\303\251\t\"""#);
        let mut s = String::new();
        write_string(&mut s, "é\t\"", '"', Syntax::Old);
        assert_eq!(s, "\"é\t\\\"\"");
    }
}
