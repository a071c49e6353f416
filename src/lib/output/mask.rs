//! Print masks: HTCondor's `AttrListPrintMask` (src/condor_utils/ad_printmask.cpp), the
//! column engine behind every tabular output of `condor_q`, `condor_history` and `-af` /
//! `-format`.
//!
//! A [`PrintMask`] is a list of [`Column`]s plus the separators around them. Showing an ad
//! takes two steps, as in HTCondor: [`PrintMask::render`] evaluates every column into a
//! [`Row`] (growing auto-width columns to fit), and [`PrintMask::display`] turns a row into
//! text: each value formatted by the column's printf format or custom formatter, aligned and
//! truncated to the column's width, a missing value shown as the column's "OR" text. Tools
//! that print a header sized to the data render every row first (`condor_q`); tools that
//! stream print as they go (`condor_history`).

use crate::classad::ast::Expr;
use crate::classad::unparse::{expr_to_old_string, write_value, Syntax};
use crate::classad::{ClassAd, Value};

use super::printf::{self, first_conversion, floor_char_boundary, Conversion, Kind};
use super::time::{format_date, format_time};

/// `FormatOptionNoPrefix`: no column prefix before this column.
pub const NO_PREFIX: u32 = 0x01;
/// `FormatOptionNoSuffix`: no column suffix after this column.
pub const NO_SUFFIX: u32 = 0x02;
/// `FormatOptionNoTruncate`: a longer value overflows the width rather than being cut.
pub const NO_TRUNCATE: u32 = 0x04;
/// `FormatOptionAutoWidth`: the width grows to fit the widest value.
pub const AUTO_WIDTH: u32 = 0x08;
/// `FormatOptionLeftAlign`.
pub const LEFT: u32 = 0x10;
/// `FormatOptionHideMe`: the column is skipped.
pub const HIDE: u32 = 0x100;
/// `FormatOptionAlwaysCall` (a print format's `ALWAYS`): a formatter ([`Render::IntFormat`])
/// is called even when the column has no valid value.
pub const ALWAYS: u32 = 0x200;

/// What a column shows when its value is missing (the `OR` of a print format): nothing,
/// or one character (`OR ?`, `OR _`), or, when wide, the character across the whole width
/// (`OR ??` shows `[????????????]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Alt {
    /// Index into ` ?*.-_#0`.
    pub index: u8,
    pub wide: bool,
}

impl Alt {
    pub const NONE: Alt = Alt {
        index: 0,
        wide: false,
    };

    /// The alternative a print format's `OR <text>` names.
    pub fn from_text(text: &str) -> Alt {
        const CHARS: &str = " ?*.-_#0";
        let mut chars = text.chars();
        let Some(first) = chars.next() else {
            return Alt::NONE;
        };
        let Some(index) = CHARS.find(first) else {
            return Alt::NONE;
        };
        Alt {
            index: index as u8,
            wide: chars.next() == Some(first),
        }
    }

    fn write(self, out: &mut String, width: i32) {
        const CHARS: [char; 8] = [' ', '?', '*', '.', '-', '_', '#', '0'];
        let ch = CHARS[(self.index & 7) as usize];
        if self.wide {
            let n = width.unsigned_abs() as usize;
            if n == 0 {
                return;
            }
            if n < 3 {
                out.push(ch);
            } else if ch == '?' {
                out.push('[');
                out.extend(std::iter::repeat_n('?', n - 2));
                out.push(']');
            } else {
                out.extend(std::iter::repeat_n(ch, n));
            }
        } else if ch != ' ' {
            out.push(ch);
        }
    }
}

/// What the tools' custom renderers may need besides the ad.
#[derive(Clone, Debug, Default)]
pub struct RenderEnv {
    /// The schedd's time (`ServerTime`), for run times of running jobs.
    pub server_time: i64,
    /// `-cputime`: show CPU time rather than wall-clock time.
    pub cputime: bool,
    /// `-currentrun`: only the current run's wall-clock time.
    pub current_run: bool,
    /// `-dag`: DAG node names in the owner column.
    pub dag: bool,
    /// The schedd's host name (local- and scheduler-universe jobs run there).
    pub schedd_host: String,
}

/// A custom renderer computes a column's value from the whole ad (HTCondor's
/// `*_CUSTOM_RENDER`); `None` is a missing value.
pub type StrRender = fn(&ClassAd, &RenderEnv) -> Option<String>;
pub type FloatRender = fn(&ClassAd, &RenderEnv) -> Option<f64>;
/// A custom formatter turns a number into text at display time (`INT_CUSTOM_FMT`).
pub type IntFormat = fn(i64) -> String;
/// A `PRINTAS` function that renders the value of the column's own attribute or expression
/// (HTCondor's `*_CUSTOM_RENDER` functions, given the evaluated `classad::Value`).
pub type ValueRender = fn(&Value, &ClassAd, &RenderEnv) -> Cell;

/// How a column turns its value into text.
#[derive(Clone, Copy, Debug)]
pub enum Render {
    /// The column's printf format, or the value as it is.
    Printf,
    IntFormat(IntFormat),
    Str(StrRender),
    Float(FloatRender),
    Value(ValueRender),
}

/// One column (HTCondor's `Formatter` and the attribute it shows).
#[derive(Clone, Debug)]
pub struct Column {
    /// The attribute name or expression text, as given.
    pub attr: String,
    /// The text parsed as an expression (`None` when it does not parse).
    expr: Option<Expr>,
    /// `width < 0` (or [`LEFT`]) aligns left.
    pub width: i32,
    pub opts: u32,
    pub alt: Alt,
    printf: Option<String>,
    /// The format's first conversion, parsed once.
    conv: Option<Conversion>,
    /// The printf conversion kind found at registration (`fmt_type`).
    fmt_kind: Kind,
    pub render: Render,
}

impl Column {
    /// A column as `registerFormat` makes one: `width < 0` aligns left; when no width is
    /// given, a safe printf format supplies it (`%-10s` is 10, left).
    pub fn new(attr: &str, printf: Option<&str>, width: i32, opts: u32, render: Render) -> Column {
        let printf = printf.map(collapse_escapes);
        let conv = printf.as_deref().and_then(first_conversion);
        let mut col = Column {
            attr: attr.to_owned(),
            expr: crate::classad::parser::parse_old_expr(attr).ok(),
            width: width.abs(),
            opts,
            alt: Alt::NONE,
            printf,
            conv,
            fmt_kind: Kind::None,
            render,
        };
        if width < 0 {
            col.opts |= LEFT;
        }
        if let Some(conv) = col.conv.as_ref().filter(|c| c.kind != Kind::None) {
            col.fmt_kind = conv.kind;
            if width == 0 && !conv.is_unsafe() {
                col.width = conv.width_value() as i32;
                if conv.left {
                    col.opts |= LEFT;
                }
            }
        }
        col
    }

    /// The column's printf format.
    pub fn printf(&self) -> Option<&str> {
        self.printf.as_deref()
    }

    /// Replaces the column's printf format (the width fixups of the tools do).
    pub fn set_printf(&mut self, fmt: &str) {
        self.conv = first_conversion(fmt);
        self.printf = Some(fmt.to_owned());
    }

    pub fn with_alt(mut self, alt: Alt) -> Column {
        self.alt = alt;
        self
    }

    /// Whether the text names an attribute or is some other expression.
    pub fn is_valid_expr(&self) -> bool {
        self.expr.is_some()
    }
}

/// C escapes in a format given on a command line (`collapse_escapes`): `\n`, `\t`, `\\`, ...
pub fn collapse_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('?') => out.push('?'),
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap();
                for _ in 0..2 {
                    match chars.peek() {
                        Some(&n @ '0'..='7') => {
                            v = v * 8 + n.to_digit(8).unwrap();
                            chars.next();
                        }
                        _ => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('?'));
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// One rendered value.
#[derive(Clone, Debug, Default)]
pub enum Cell {
    /// Missing: shown as the column's alternative text.
    #[default]
    Invalid,
    Int(i64),
    Real(f64),
    Str(String),
    Value(Value),
}

impl Cell {
    pub fn is_valid(&self) -> bool {
        !matches!(self, Cell::Invalid)
    }

    fn number_int(&self) -> i64 {
        match self {
            Cell::Int(i) => *i,
            Cell::Real(r) => *r as i64,
            Cell::Value(v) => v.as_number_int().unwrap_or(0),
            _ => 0,
        }
    }

    fn number_real(&self) -> f64 {
        match self {
            Cell::Int(i) => *i as f64,
            Cell::Real(r) => *r,
            Cell::Value(v) => v.as_number_real().unwrap_or(0.0),
            _ => 0.0,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Cell::Str(s) => Some(s),
            Cell::Value(Value::Str(s)) => Some(s),
            _ => None,
        }
    }
}

/// The rendered values of one ad.
pub type Row = Vec<Cell>;

/// A list of columns and the separators around them.
#[derive(Clone, Debug, Default)]
pub struct PrintMask {
    pub columns: Vec<Column>,
    pub headings: Vec<String>,
    pub row_prefix: Option<String>,
    pub col_prefix: Option<String>,
    pub col_suffix: Option<String>,
    pub row_suffix: Option<String>,
    /// Rows (and the heading) are cut at this many bytes; 0 for no limit.
    pub overall_width: usize,
}

impl PrintMask {
    pub fn new() -> PrintMask {
        PrintMask::default()
    }

    /// `SetAutoSep`.
    pub fn set_separators(
        &mut self,
        row_prefix: Option<&str>,
        col_prefix: Option<&str>,
        col_suffix: Option<&str>,
        row_suffix: Option<&str>,
    ) {
        self.row_prefix = row_prefix.map(str::to_owned);
        self.col_prefix = col_prefix.map(str::to_owned);
        self.col_suffix = col_suffix.map(str::to_owned);
        self.row_suffix = row_suffix.map(str::to_owned);
    }

    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    pub fn has_headings(&self) -> bool {
        !self.headings.is_empty()
    }

    pub fn push(&mut self, column: Column) {
        self.columns.push(column);
    }

    /// Adds a column with a heading.
    pub fn push_headed(&mut self, heading: &str, column: Column) {
        self.headings.push(heading.to_owned());
        self.columns.push(column);
    }

    /// Evaluates every column against `ad` (HTCondor's `render`).
    pub fn render(&mut self, ad: &ClassAd, env: &RenderEnv) -> Row {
        self.columns
            .iter_mut()
            .map(|col| render_column(col, ad, env))
            .collect()
    }

    /// The heading line (`display_Headings`), with its newline.
    pub fn headings_line(&self) -> String {
        let mut out = String::new();
        if let Some(p) = &self.row_prefix {
            out.push_str(p);
        }
        let n = self.columns.len();
        for (icol, (col, head)) in self.columns.iter().zip(&self.headings).enumerate() {
            if col.opts & HIDE != 0 {
                continue;
            }
            if icol != 0 && col.opts & NO_PREFIX == 0 {
                if let Some(p) = &self.col_prefix {
                    out.push_str(p);
                }
            }
            let w = col.width.unsigned_abs() as usize;
            out.push_str(head);
            if head.len() < w {
                out.extend(std::iter::repeat_n(' ', w - head.len()));
            }
            if icol + 1 < n && col.opts & NO_SUFFIX == 0 {
                if let Some(s) = &self.col_suffix {
                    out.push_str(s);
                }
            }
        }
        if self.overall_width > 0 && out.len() > self.overall_width {
            out.truncate(floor_char_boundary(&out, self.overall_width));
        }
        if let Some(s) = &self.row_suffix {
            out.push_str(s);
        }
        out
    }

    /// Appends one rendered row as text (HTCondor's `display`).
    pub fn display(&mut self, out: &mut String, row: &Row) {
        let row_start = out.len();
        if let Some(p) = &self.row_prefix {
            out.push_str(p);
        }
        let mut lines = 1;
        let n = self.columns.len();
        for (icol, col) in self.columns.iter_mut().enumerate() {
            if col.opts & HIDE != 0 {
                continue;
            }
            if icol > 0 && col.opts & NO_PREFIX == 0 {
                if let Some(p) = &self.col_prefix {
                    out.push_str(p);
                }
            }
            let cell = row.get(icol).unwrap_or(&Cell::Invalid);
            let text = display_text(col, cell);
            let len = text.len();
            if col.opts & AUTO_WIDTH != 0 {
                col.width = col.width.max(len as i32);
            }
            if col.width == 0 {
                out.push_str(&text);
            } else {
                let w = col.width.unsigned_abs() as usize;
                if len > w {
                    if col.opts & NO_TRUNCATE != 0 {
                        out.push_str(&text);
                    } else {
                        out.push_str(&text[..floor_char_boundary(&text, w)]);
                    }
                } else if col.width < 0 || col.opts & LEFT != 0 {
                    out.push_str(&text);
                    out.extend(std::iter::repeat_n(' ', w - len));
                } else {
                    out.extend(std::iter::repeat_n(' ', w - len));
                    out.push_str(&text);
                }
            }
            if text.contains('\n') {
                lines += 1;
            }
            if icol + 1 < n && col.opts & NO_SUFFIX == 0 {
                if let Some(s) = &self.col_suffix {
                    out.push_str(s);
                }
            }
        }
        if lines == 1 && self.overall_width > 0 && out.len() - row_start > self.overall_width {
            let cut = floor_char_boundary(out, row_start + self.overall_width);
            out.truncate(cut);
        }
        if let Some(s) = &self.row_suffix {
            out.push_str(s);
        }
    }

    /// The attributes every column reads, when that can be known: `None` when a column
    /// uses a custom renderer or an expression whose references cannot be listed (nested
    /// ads, `eval`). A tool may then hand the mask an ad holding only these attributes.
    pub fn attributes_read(&self) -> Option<Vec<String>> {
        let mut names = Vec::new();
        for col in &self.columns {
            if !matches!(col.render, Render::Printf) {
                return None;
            }
            names.push(col.attr.clone());
            if !references(col.expr.as_ref()?, &mut names) {
                return None;
            }
        }
        Some(names)
    }

    /// The attributes the columns name or their expressions read (the projection a query
    /// for them asks for), each once, in no particular order.
    pub fn projection(&self) -> Vec<String> {
        let mut names = Vec::new();
        for col in &self.columns {
            match &col.expr {
                Some(e) => {
                    references(e, &mut names);
                }
                None => names.push(col.attr.clone()),
            }
        }
        names
    }

    /// Renders and displays one ad.
    pub fn display_ad(&mut self, out: &mut String, ad: &ClassAd, env: &RenderEnv) {
        let row = self.render(ad, env);
        self.display(out, &row);
    }
}

/// Adds the attributes an expression refers to; false when they cannot all be known.
fn references(e: &Expr, out: &mut Vec<String>) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Attr(n) | Expr::Absolute(n) => {
            out.push(n.to_string());
            true
        }
        Expr::Scoped { name, .. } => {
            out.push(name.to_string());
            true
        }
        Expr::Select(inner, _) | Expr::Unary(_, inner) | Expr::Paren(inner) => {
            references(inner, out)
        }
        Expr::Binary { lhs, rhs, .. } => references(lhs, out) && references(rhs, out),
        Expr::Ternary(a, b, c) => references(a, out) && references(b, out) && references(c, out),
        Expr::Call(call) => {
            // Functions that evaluate text may refer to anything.
            const DYNAMIC: [&str; 3] = ["eval", "evalinecontext", "unparse"];
            !DYNAMIC.iter().any(|d| d.eq_ignore_ascii_case(&call.name))
                && call.args.iter().all(|a| references(a, out))
        }
        Expr::List(items) => items.iter().all(|i| references(i, out)),
        Expr::Ad(_) => false,
    }
}

/// The value of a column's attribute or expression, as `EvalExprTree` gives it; `None`
/// when the text neither names an attribute nor parses.
fn evaluate(col: &Column, ad: &ClassAd) -> Option<Value> {
    evaluate_found(col, ad, ad.lookup(&col.attr))
}

/// [`evaluate`], the attribute already looked up.
fn evaluate_found(col: &Column, ad: &ClassAd, found: Option<&Expr>) -> Option<Value> {
    if let Some(e) = found {
        // Most attributes are literals: no evaluator needed.
        if let Expr::Lit(v) = e {
            return Some(v.clone());
        }
        return Some(ad.eval_attr(&col.attr));
    }
    col.expr.as_ref().map(|e| ad.eval_expr(e, None))
}

fn render_column(col: &mut Column, ad: &ClassAd, env: &RenderEnv) -> Cell {
    let cell = match col.render {
        Render::Str(f) => f(ad, env).map_or(Cell::Invalid, Cell::Str),
        Render::Float(f) => f(ad, env).map_or(Cell::Invalid, Cell::Real),
        Render::IntFormat(_) => match evaluate(col, ad).and_then(|v| v.as_number_int()) {
            Some(i) => Cell::Int(i),
            None => Cell::Invalid,
        },
        // A render function is always called (`*_CUSTOM_RENDER`), with the column's value,
        // undefined when it has none; the function says whether the cell is valid.
        Render::Value(f) => f(&evaluate(col, ad).unwrap_or(Value::Undefined), ad, env),
        Render::Printf => render_printf(col, ad),
    };
    if cell.is_valid() && col.opts & AUTO_WIDTH != 0 {
        let w = column_width(col, &cell);
        col.width = col.width.max(w);
    }
    cell
}

fn render_printf(col: &mut Column, ad: &ClassAd) -> Cell {
    let mut kind = Kind::Value;
    if let Some(fmt) = &col.printf {
        match &col.conv {
            Some(conv) if !conv.is_unsafe() && conv.kind != Kind::None => kind = conv.kind,
            // A format without a (safe) conversion printf knows, `%Q` say, is printed as it
            // is (`parsePrintfFormat` fails, and `render` keeps the format as the value).
            _ => return Cell::Str(fmt.clone()),
        }
    }
    let found = ad.lookup(&col.attr);
    let attr_is_expr = found.is_none();
    if found.is_none() && col.expr.is_none() {
        return Cell::Invalid;
    }
    if kind == Kind::Str && !attr_is_expr {
        match ad.eval_attr(&col.attr) {
            Value::Str(s) => return Cell::Str(s.to_string()),
            _ => kind = Kind::Raw,
        }
    }
    if kind == Kind::Raw {
        if attr_is_expr && matches!(col.expr, Some(Expr::Attr(_))) {
            return Cell::Str("undefined".to_owned());
        }
        let tree = found.or(col.expr.as_ref()).expect("checked above");
        return Cell::Str(expr_to_old_string(tree));
    }
    let Some(v) = evaluate_found(col, ad, found) else {
        return Cell::Invalid;
    };
    match kind {
        Kind::Int | Kind::Char | Kind::Time | Kind::Pointer => {
            v.as_number_int().map_or(Cell::Invalid, Cell::Int)
        }
        Kind::Float => v.as_number_real().map_or(Cell::Invalid, Cell::Real),
        Kind::Str => match v {
            Value::Str(s) => Cell::Str(s.to_string()),
            _ => Cell::Invalid,
        },
        Kind::Date => match v.as_number_int() {
            Some(i) => Cell::Int(i),
            None => match v {
                Value::AbsTime(t) => Cell::Int(t.secs),
                _ => Cell::Invalid,
            },
        },
        _ => Cell::Value(v),
    }
}

/// The unparsed text of a value (old ClassAd syntax).
pub fn value_text(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v, Syntax::Old);
    s
}

/// `calc_column_width`: how wide a valid value renders, for auto-width columns.
fn column_width(col: &Column, cell: &Cell) -> i32 {
    let kind = col.fmt_kind;
    let numeric = matches!(kind, Kind::Float | Kind::Int | Kind::Time | Kind::Date);
    let as_text = matches!(kind, Kind::Value | Kind::Str | Kind::Raw);
    let real = match cell {
        Cell::Real(r) => Some(*r),
        Cell::Value(Value::Real(r)) => Some(*r),
        _ => None,
    };
    let int = match cell {
        Cell::Int(i) => Some(*i),
        Cell::Value(Value::Int(i)) => Some(*i),
        _ => None,
    };
    if let Some(r) = real {
        if numeric {
            return format_number(col, Cell::Real(r).number_int(), r, kind).len() as i32;
        }
        if as_text {
            return value_text(&Value::Real(r)).len() as i32;
        }
    } else if let Some(i) = int {
        if numeric || kind == Kind::Pointer {
            return format_number(col, i, i as f64, kind).len() as i32;
        }
        if as_text {
            return i.to_string().len() as i32;
        }
    } else if let Some(s) = cell.as_str() {
        return s.len() as i32;
    }
    col.width
}

/// `format_value` for numbers: `%T` and `%Y` by their own rules, others by printf; padded
/// on the left to the column width.
fn format_number(col: &Column, i: i64, r: f64, kind: Kind) -> String {
    let fmt = col.printf.as_deref().unwrap_or("");
    if kind == Kind::Int && fmt == "%d" {
        return (i as i32).to_string();
    }
    let mut s = match kind {
        Kind::Time => format_time(i),
        Kind::Date => format_date(i),
        Kind::Float => printf::sprintf_float(fmt, r),
        _ => printf::sprintf_int(fmt, i),
    };
    let w = col.width.max(0) as usize;
    if w > s.len() {
        s.insert_str(0, &" ".repeat(w - s.len()));
    }
    s
}

/// The text a cell displays as, before alignment.
fn display_text(col: &Column, cell: &Cell) -> String {
    if let Render::IntFormat(f) = col.render {
        if cell.is_valid() || col.opts & ALWAYS != 0 {
            return f(cell.number_int());
        }
    }
    if !cell.is_valid() {
        let mut s = String::new();
        col.alt.write(&mut s, col.width);
        return s;
    }
    let printf = col
        .printf
        .as_deref()
        .filter(|f| !f.is_empty() && *f != "%s");
    let Some(fmt) = printf else {
        return cell.as_str().unwrap_or("").to_owned();
    };
    let conv = match &col.conv {
        Some(c) if !c.is_unsafe() && c.kind != Kind::None => c,
        _ => return fmt.to_owned(),
    };
    match conv.kind {
        Kind::Time | Kind::Date | Kind::Int | Kind::Pointer | Kind::Char => {
            format_number(col, cell.number_int(), 0.0, conv.kind)
        }
        Kind::Float => format_number(col, 0, cell.number_real(), Kind::Float),
        Kind::Str => {
            let s = cell.as_str().unwrap_or("");
            printf::sprintf_str(fmt, s)
        }
        Kind::Raw | Kind::Value => {
            let bare = conv.start == 0 && conv.end == fmt.len() && conv.width.is_none();
            let text = match (cell.as_str(), conv.letter) {
                (Some(s), l) if l != 'V' => s.to_owned(),
                _ => match cell {
                    Cell::Value(v) => value_text(v),
                    Cell::Str(s) => value_text(&Value::str(s)),
                    Cell::Int(i) => i.to_string(),
                    Cell::Real(r) => value_text(&Value::Real(*r)),
                    Cell::Invalid => String::new(),
                },
            };
            if bare && conv.precision.is_none() {
                return text;
            }
            let mut f = String::with_capacity(fmt.len());
            f.push_str(&fmt[..conv.end - conv.letter.len_utf8()]);
            f.push('s');
            f.push_str(&fmt[conv.end..]);
            printf::sprintf_str(&f, &text)
        }
        _ => cell.as_str().unwrap_or("").to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;

    fn ad() -> ClassAd {
        parse_ad(r#"[ ClusterId = 42; ProcId = 7; Owner = "alice"; R = 2.5; E = ClusterId + 1 ]"#)
            .unwrap()
    }

    #[test]
    fn autoformat_style_columns() {
        let mut mask = PrintMask::new();
        mask.set_separators(None, Some(" "), None, Some("\n"));
        for attr in ["ClusterId", "Owner", "R", "Missing", "ClusterId * 2"] {
            mask.push(Column::new(
                attr,
                Some("%v"),
                0,
                NO_TRUNCATE,
                Render::Printf,
            ));
        }
        let mut out = String::new();
        mask.display_ad(&mut out, &ad(), &RenderEnv::default());
        assert_eq!(out, "42 alice 2.5 undefined 84\n");
    }

    #[test]
    fn a_format_printf_does_not_know_is_printed_as_it_is() {
        // -format: no separators; `%Q` fails parsePrintfFormat, so the format is the text.
        for (fmt, text) in [
            ("%Q\\n", "%Q\n"),
            ("%-10Q|", "%-10Q|"),
            ("100%% %d\\n", "100% 42\n"),
        ] {
            let mut mask = PrintMask::new();
            mask.push(Column::new(
                "ClusterId",
                Some(fmt),
                0,
                NO_TRUNCATE,
                Render::Printf,
            ));
            let mut out = String::new();
            mask.display_ad(&mut out, &ad(), &RenderEnv::default());
            assert_eq!(out, text, "{fmt}");
        }
    }

    #[test]
    fn widths_alignment_and_alternatives() {
        let mut mask = PrintMask::new();
        mask.set_separators(None, Some(" "), None, Some("\n"));
        mask.push_headed(
            " ID",
            Column::new("ClusterId", Some("%4d."), 5, NO_SUFFIX, Render::Printf),
        );
        mask.push_headed(
            " ",
            Column::new("ProcId", Some("%-3d"), 3, NO_PREFIX, Render::Printf),
        );
        mask.push_headed(
            "OWNER",
            Column::new("Nobody", Some("%v"), -14, 0, Render::Printf)
                .with_alt(Alt::from_text("??")),
        );
        let mut out = String::new();
        let a = ad();
        let row = vec![Cell::Int(42), Cell::Int(7), Cell::Invalid];
        mask.display(&mut out, &row);
        assert_eq!(out, "  42.7   [????????????]\n");
        assert_eq!(mask.headings_line(), " ID      OWNER         \n");
        let _ = a;
    }

    #[test]
    fn format_strings() {
        let mut mask = PrintMask::new();
        mask.push(Column::new(
            "ClusterId",
            Some("%d."),
            0,
            NO_TRUNCATE,
            Render::Printf,
        ));
        mask.push(Column::new(
            "ProcId",
            Some("%d\\n"),
            0,
            NO_TRUNCATE,
            Render::Printf,
        ));
        mask.push(Column::new(
            "Missing",
            Some("%d\\n"),
            0,
            NO_TRUNCATE,
            Render::Printf,
        ));
        mask.push(Column::new(
            "ClusterId",
            Some("[%s]"),
            0,
            NO_TRUNCATE,
            Render::Printf,
        ));
        mask.push(Column::new(
            "E",
            Some("<%r>"),
            0,
            NO_TRUNCATE,
            Render::Printf,
        ));
        mask.push(Column::new(
            "Owner",
            Some("%V"),
            0,
            NO_TRUNCATE,
            Render::Printf,
        ));
        let mut out = String::new();
        mask.display_ad(&mut out, &ad(), &RenderEnv::default());
        assert_eq!(out, "42.7\n[42]<ClusterId + 1>\"alice\"");
    }

    #[test]
    fn escapes() {
        assert_eq!(collapse_escapes(r"a\tb\n\\\101"), "a\tb\n\\A");
    }
}
