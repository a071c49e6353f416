//! HTCondor's print-format language (`SetAttrListPrintMaskFromStream`,
//! src/condor_utils/make_printmask.cpp): the text behind `-print-format FILE` and behind the
//! tools' built-in views, parsed into a [`PrintMask`] and the query parts around it.
//!
//! ```text
//! SELECT [FROM AUTOCLUSTER | UNIQUE | FROM <type>] [BARE | NOTITLE | NOHEADER | NOSUMMARY]
//!        [LABEL [SEPARATOR s]] [RECORDPREFIX s] [RECORDSUFFIX s] [FIELDPREFIX s] [FIELDSUFFIX s]
//!   <expr> [AS heading] [PRINTF fmt | PRINTAS fn] [WIDTH AUTO | WIDTH [-]n] [TRUNCATE]
//!          [LEFT | RIGHT] [NOPREFIX] [NOSUFFIX] [ALWAYS] [FIT] [OR c | OR cc]
//! [WHERE <constraint>]
//! [GROUP BY
//!   <expr> [AS name] [ASCENDING | DESCENDING] ...]
//! [SUMMARY [STANDARD | NONE] | SUMMARY + column lines]
//! ```
//!
//! As in HTCondor the parser never fails: what it does not understand is reported in
//! [`PrintFormat::messages`] (the tools print them on stderr) and the rest is used. A column's
//! expression is everything before its first keyword; words that are not keywords are
//! skipped (so `FORMATAS X` in a format does nothing).

use super::mask::{collapse_escapes, Alt, Column, PrintMask, Render, ALWAYS, AUTO_WIDTH};
use super::mask::{LEFT, NO_PREFIX, NO_SUFFIX, NO_TRUNCATE};
use super::printas::{self, PrintAs};

/// `HF_NOTITLE`: no title line.
pub const HF_NOTITLE: u32 = 0x1;
/// `HF_NOHEADER`: no column headings.
pub const HF_NOHEADER: u32 = 0x2;
/// `HF_NOSUMMARY`: no summary.
pub const HF_NOSUMMARY: u32 = 0x4;
/// `HF_CUSTOM`: the summary is the format's own `SUMMARY` columns.
pub const HF_CUSTOM: u32 = 0x8;
/// `HF_BARE`: rows only.
pub const HF_BARE: u32 = HF_NOTITLE | HF_NOHEADER | HF_NOSUMMARY;

/// `SELECT FROM AUTOCLUSTER` or `SELECT UNIQUE`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Aggregate {
    #[default]
    None,
    /// `UNIQUE`: rows counted by their distinct values (`PR_COUNT_UNIQUE`).
    Unique,
    /// `FROM AUTOCLUSTER` (`PR_FROM_AUTOCLUSTER`).
    AutoCluster,
}

/// One `GROUP BY` key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupKey {
    pub expr: String,
    pub name: String,
    pub descending: bool,
}

/// A parsed print format.
#[derive(Clone, Debug, Default)]
pub struct PrintFormat {
    /// The `SELECT` columns and the separators around them.
    pub mask: PrintMask,
    /// The columns of a custom `SUMMARY`.
    pub summary_mask: PrintMask,
    /// `HF_*` bits: what is printed around the rows.
    pub head_foot: u32,
    /// `WHERE`: a constraint ANDed into the query.
    pub where_expr: Option<String>,
    pub group_by: Vec<GroupKey>,
    /// `SELECT FROM x`.
    pub select_from: Option<String>,
    pub aggregate: Aggregate,
    /// What the parser did not understand, one message per line, each ending in `\n`.
    pub messages: String,
}

impl PrintFormat {
    pub fn title(&self) -> bool {
        self.head_foot & HF_NOTITLE == 0
    }
    pub fn header(&self) -> bool {
        self.head_foot & HF_NOHEADER == 0
    }
    /// The tool's standard summary is wanted (`SUMMARY STANDARD`).
    pub fn standard_summary(&self) -> bool {
        self.head_foot & (HF_NOSUMMARY | HF_CUSTOM) == 0
    }
    /// A custom summary (`SUMMARY` followed by columns) is wanted.
    pub fn custom_summary(&self) -> bool {
        self.head_foot & (HF_NOSUMMARY | HF_CUSTOM) == HF_CUSTOM
    }
}

/// HTCondor's `tokener`: white-space separated words, `'...'` and `"..."` quoted ones
/// (without escapes; an unclosed quote runs to the end of the line).
struct Tokener<'a> {
    line: &'a str,
    cur: usize,
    len: usize,
    next: Option<usize>,
    mark: usize,
    quote: Option<u8>,
}

const SEP: &[u8] = b" \t\r\n";

impl<'a> Tokener<'a> {
    fn new(line: &'a str) -> Tokener<'a> {
        Tokener {
            line,
            cur: 0,
            len: 0,
            next: Some(0),
            mark: 0,
            quote: None,
        }
    }

    fn advance(&mut self) -> bool {
        self.quote = None;
        let b = self.line.as_bytes();
        let Some(from) = self.next else {
            self.cur = b.len();
            self.len = 0;
            return false;
        };
        let Some(start) = (from..b.len()).find(|&i| !SEP.contains(&b[i])) else {
            self.cur = b.len();
            self.len = 0;
            self.next = None;
            return false;
        };
        if b[start] == b'"' || b[start] == b'\'' {
            let q = b[start];
            self.quote = Some(q);
            self.cur = start + 1;
            match (self.cur..b.len()).find(|&i| b[i] == q) {
                Some(end) => {
                    self.len = end - self.cur;
                    self.next = Some(end + 1);
                }
                None => {
                    self.len = b.len() - self.cur;
                    self.next = None;
                }
            }
        } else {
            self.cur = start;
            match (start..b.len()).find(|&i| SEP.contains(&b[i])) {
                Some(end) => {
                    self.len = end - start;
                    self.next = Some(end);
                }
                None => {
                    self.len = b.len() - start;
                    self.next = None;
                }
            }
        }
        true
    }

    fn token(&self) -> &'a str {
        &self.line[self.cur..self.cur + self.len]
    }

    fn matches(&self, word: &str) -> bool {
        self.token() == word
    }

    fn is_quoted(&self) -> bool {
        self.quote.is_some()
            && self.cur > 0
            && Some(self.line.as_bytes()[self.cur - 1]) == self.quote
    }

    fn set_mark(&mut self) {
        self.mark = self.cur;
    }

    fn mark_after(&mut self) {
        self.mark = self.next.unwrap_or(self.line.len());
    }

    /// From the mark to the start of the current token.
    fn marked(&self) -> &'a str {
        self.line
            .get(self.mark..self.cur.max(self.mark))
            .unwrap_or("")
    }

    fn to_end(&self) -> &'a str {
        &self.line[self.cur..]
    }
}

/// The lines of a format as `getline_trim` reads them: trimmed, a trailing `\` joining the
/// next line; each with the number of the last physical line it took.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending: Option<String> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let mut joined = pending.take().unwrap_or_default();
        if let Some(body) = line.strip_suffix('\\') {
            joined.push_str(body);
            pending = Some(joined);
            continue;
        }
        joined.push_str(line);
        out.push((n + 1, joined));
    }
    if let Some(rest) = pending {
        out.push((text.lines().count(), rest));
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Select,
    Summary,
    Join,
    Where,
    And,
    Group,
}

const KEYWORDS: [&str; 13] = [
    "ALWAYS", "AS", "AUTO", "FIT", "LEFT", "NOPREFIX", "NOSUFFIX", "OR", "PRINTAS", "PRINTF",
    "RIGHT", "TRUNCATE", "WIDTH",
];

/// Parses a print format; `local` is the tool's own `PRINTAS` table, searched before the
/// global one.
pub fn parse(text: &str, local: &[PrintAs]) -> PrintFormat {
    let mut pf = PrintFormat::default();
    let mut label_fields = false;
    let mut label_sep = " = ".to_owned();
    let mut seps: [Option<String>; 4] = [None, Some(" ".into()), None, Some("\n".into())];
    let set_seps = |mask: &mut PrintMask, s: &[Option<String>; 4]| {
        mask.set_separators(
            s[0].as_deref(),
            s[1].as_deref(),
            s[2].as_deref(),
            s[3].as_deref(),
        )
    };
    set_seps(&mut pf.mask, &seps);
    set_seps(&mut pf.summary_mask, &seps);
    let mut head_foot = HF_NOSUMMARY;
    let mut sect = Section::Select;
    let mut msgs = String::new();
    for (lineno, line) in logical_lines(text) {
        let mut toke = Tokener::new(&line);
        if !toke.advance() || toke.matches("#") {
            continue;
        }
        let unexpected = |msgs: &mut String, toke: &Tokener, tag: &str| {
            msgs.push_str(&format!(
                "{} was unexpected at line {lineno} offset {} in {tag}\n",
                toke.token(),
                toke.cur
            ));
        };
        let expected = |msgs: &mut String, toke: &Tokener, what: &str, tag: &str| {
            msgs.push_str(&format!(
                "expected {what} at line {lineno} offset {} in {tag}\n",
                toke.cur
            ));
        };
        match toke.token() {
            "SELECT" => {
                sect = Section::Select;
                while toke.advance() {
                    let value =
                        |toke: &mut Tokener| toke.advance().then(|| collapse_escapes(toke.token()));
                    match toke.token() {
                        "FROM" => {
                            if toke.advance() {
                                pf.select_from = Some(toke.token().to_owned());
                                if toke.matches("AUTOCLUSTER") {
                                    pf.aggregate = Aggregate::AutoCluster;
                                }
                            } else {
                                expected(&mut msgs, &toke, "data set name after FROM", "SELECT");
                            }
                        }
                        "UNIQUE" => pf.aggregate = Aggregate::Unique,
                        "BARE" => head_foot = HF_BARE,
                        "NOTITLE" => head_foot |= HF_NOTITLE,
                        "NOHEADER" => head_foot |= HF_NOHEADER,
                        "NOSUMMARY" => head_foot |= HF_NOSUMMARY,
                        "LABEL" => label_fields = true,
                        "SEPARATOR" if label_fields => {
                            if let Some(v) = value(&mut toke) {
                                label_sep = v;
                            }
                        }
                        "RECORDPREFIX" | "RECORDSUFFIX" | "FIELDPREFIX" | "FIELDSUFFIX" => {
                            let i = match toke.token() {
                                "RECORDPREFIX" => 0,
                                "FIELDPREFIX" => 1,
                                "FIELDSUFFIX" => 2,
                                _ => 3,
                            };
                            if let Some(v) = value(&mut toke) {
                                seps[i] = Some(v);
                            }
                        }
                        other => msgs.push_str(&format!(
                            "Warning: Unknown header argument {other} for SELECT\n"
                        )),
                    }
                }
                set_seps(&mut pf.mask, &seps);
                continue;
            }
            "JOIN" => {
                sect = Section::Join;
                if !toke.advance() {
                    continue;
                }
            }
            "WHERE" => {
                sect = Section::Where;
                if !toke.advance() {
                    continue;
                }
            }
            "AND" => {
                sect = Section::And;
                if !toke.advance() {
                    continue;
                }
            }
            "GROUP" => {
                sect = Section::Group;
                if !toke.advance() || (toke.matches("BY") && !toke.advance()) {
                    continue;
                }
            }
            "SUMMARY" => {
                sect = Section::Summary;
                head_foot = (head_foot | HF_CUSTOM) & !HF_NOSUMMARY;
                while toke.advance() {
                    match toke.token() {
                        "STANDARD" => head_foot &= !HF_CUSTOM,
                        "NONE" => head_foot = (head_foot | HF_NOSUMMARY) & !HF_CUSTOM,
                        other => msgs.push_str(&format!("Unknown argument {other} for SELECT\n")),
                    }
                }
                continue;
            }
            _ => {}
        }
        match sect {
            Section::Select | Section::Summary => {
                let mask = if sect == Section::Select {
                    &mut pf.mask
                } else {
                    &mut pf.summary_mask
                };
                let mut ctx = ColumnLine {
                    lineno,
                    msgs: &mut msgs,
                    local,
                    label: label_fields.then_some(label_sep.as_str()),
                };
                ctx.parse(&mut toke, mask);
            }
            Section::Join => {
                if toke.matches("ON") || toke.matches("USING") {
                    expected(&mut msgs, &toke, "data set name before ON or USING", "JOIN");
                } else {
                    toke.advance();
                    // make_printmask.cpp tests `!ON || !USING`: always true.
                    unexpected(&mut msgs, &toke, "JOIN");
                }
            }
            Section::Where => {
                pf.where_expr = Some(toke.to_end().trim().to_owned());
            }
            Section::And => {}
            Section::Group => {
                toke.set_mark();
                let mut key = GroupKey {
                    expr: toke.to_end().to_owned(),
                    ..GroupKey::default()
                };
                let mut got_expr = false;
                while toke.advance() {
                    let word = toke.token();
                    if !matches!(word, "AS" | "ASCENDING" | "DESCENDING") {
                        continue;
                    }
                    if !got_expr {
                        key.expr = toke.marked().to_owned();
                        got_expr = true;
                    }
                    match word {
                        "AS" => {
                            if toke.advance() {
                                key.name = toke.token().to_owned();
                            }
                            toke.mark_after();
                        }
                        "DESCENDING" => {
                            key.descending = true;
                            toke.mark_after();
                        }
                        _ => {
                            key.descending = false;
                            toke.mark_after();
                        }
                    }
                }
                key.expr = key.expr.trim().to_owned();
                if key.expr.is_empty() || key.expr.starts_with('#') {
                    continue;
                }
                if crate::classad::parser::parse_old_expr(&key.expr).is_err() {
                    msgs.push_str(&format!("GROUP BY expression is not valid: {}\n", key.expr));
                } else {
                    pf.group_by.push(key);
                }
            }
        }
    }
    pf.head_foot = head_foot;
    pf.messages = msgs;
    pf
}

/// What one column line needs besides its words.
struct ColumnLine<'m> {
    lineno: usize,
    msgs: &'m mut String,
    local: &'m [PrintAs],
    /// `LABEL` mode's separator: each field printed as `heading<sep>value`.
    label: Option<&'m str>,
}

impl ColumnLine<'_> {
    fn expected(&mut self, toke: &Tokener, what: &str) {
        self.msgs.push_str(&format!(
            "expected {what} at line {} offset {} in SELECT\n",
            self.lineno, toke.cur
        ));
    }

    /// One `SELECT` (or custom `SUMMARY`) line: `registerFormat` of the column it declares.
    fn parse(&mut self, toke: &mut Tokener, mask: &mut PrintMask) {
        toke.set_mark();
        let mut attr: Option<String> = None;
        let mut name = String::new();
        let mut opts = 0u32;
        let mut def_opts = AUTO_WIDTH | NO_TRUNCATE;
        // `None`: no format (a WIDTH without PRINTF makes one below).
        const DEFAULT: &str = "%v";
        let mut fmt: Option<String> = Some(DEFAULT.to_owned());
        let mut fmt_is_default = true;
        let mut wid = 0i32;
        let mut width_from_label = true;
        let mut cust: Option<PrintAs> = None;
        let mut alt = Alt::NONE;
        // The first word is part of the expression even when it is a keyword's spelling.
        while toke.advance() {
            let word = toke.token();
            if !KEYWORDS.contains(&word) {
                continue;
            }
            if attr.is_none() {
                attr = Some(toke.marked().to_owned());
            }
            match word {
                "AS" => {
                    if toke.advance() {
                        name = toke.token().to_owned();
                        if toke.is_quoted() {
                            name = collapse_escapes(&name);
                        }
                    } else {
                        self.expected(toke, "column name after AS");
                    }
                    toke.mark_after();
                }
                "PRINTF" => {
                    if toke.advance() {
                        fmt = Some(toke.token().to_owned());
                        fmt_is_default = false;
                    } else {
                        self.expected(toke, "format after PRINTF");
                    }
                }
                "PRINTAS" => {
                    if toke.advance() {
                        match printas::lookup(self.local, toke.token()) {
                            Some(f) => {
                                cust = Some(f);
                                fmt = f.printf.map(str::to_owned);
                                fmt_is_default = false;
                            }
                            None => self.msgs.push_str(&format!(
                                "Unknown argument {} for PRINTAS\n",
                                toke.token()
                            )),
                        }
                    } else {
                        self.expected(toke, "function name after PRINTAS");
                    }
                }
                "OR" => {
                    if toke.advance() {
                        let val = toke.token();
                        match val.chars().next() {
                            Some(c) if " ?*.-_#0".contains(c) => alt = Alt::from_text(val),
                            _ => self
                                .msgs
                                .push_str(&format!("Unknown argument {val} for OR\n")),
                        }
                    } else {
                        self.expected(toke, "? or ?? after OR");
                    }
                }
                "NOSUFFIX" => opts |= NO_SUFFIX,
                "NOPREFIX" => opts |= NO_PREFIX,
                "LEFT" => opts |= LEFT,
                "RIGHT" => opts &= !LEFT,
                "FIT" => {}
                "TRUNCATE" => {
                    opts &= !NO_TRUNCATE;
                    def_opts &= !NO_TRUNCATE;
                }
                "ALWAYS" => opts |= ALWAYS,
                "WIDTH" => {
                    if toke.advance() {
                        if toke.matches("AUTO") {
                            opts |= AUTO_WIDTH;
                            def_opts |= AUTO_WIDTH | NO_TRUNCATE;
                        } else {
                            wid = crate::classad::cnum::atoi(toke.token());
                            def_opts &= !(AUTO_WIDTH | NO_TRUNCATE);
                            width_from_label = false;
                            if fmt_is_default {
                                fmt = None;
                                fmt_is_default = false;
                            }
                        }
                    } else {
                        self.expected(toke, "number or AUTO after WIDTH");
                    }
                }
                _ => {
                    self.msgs.push_str(&format!(
                        "{word} was unexpected at line {} offset {} in SELECT\n",
                        self.lineno, toke.cur
                    ));
                }
            }
        }
        let attr = attr.unwrap_or_else(|| toke.line.to_owned());
        let attr = attr.trim();
        if attr.is_empty() || attr.starts_with('#') {
            return;
        }
        opts |= def_opts;
        let heading = if name.is_empty() { attr } else { &name };
        let render = cust.map_or(Render::Printf, |f| f.render);
        if let Some(sep) = self.label {
            // LABEL: the heading is part of each field's format.
            let mut label = format!("{heading}{sep}");
            match &fmt {
                Some(f) => label.push_str(f),
                None => {
                    label.push('%');
                    if wid != 0 {
                        if opts & NO_TRUNCATE != 0 {
                            label.push_str(&wid.to_string());
                        } else {
                            label.push_str(&format!("{wid}.{}", wid.abs()));
                        }
                    }
                    label.push(if cust.is_some() { 's' } else { 'v' });
                }
            }
            let col = Column::new(attr, Some(&label), 0, opts, render).with_alt(alt);
            mask.push(col);
        } else {
            if width_from_label {
                wid = -(heading.len() as i32);
            }
            let heading = heading.to_owned();
            if cust.is_none() && fmt.is_none() {
                // A width but no format: one is made from the width, `%-n.nv` when the
                // column truncates.
                if wid == 0 {
                    fmt = Some(DEFAULT.to_owned());
                } else {
                    let mut f = String::from("%");
                    if wid < 0 {
                        opts |= LEFT;
                        f.push('-');
                    }
                    f.push_str(&wid.abs().to_string());
                    if opts & NO_TRUNCATE == 0 {
                        f.push_str(&format!(".{}", wid.abs()));
                    }
                    f.push('v');
                    fmt = Some(f);
                }
            }
            let col = Column::new(attr, fmt.as_deref(), wid, opts, render).with_alt(alt);
            mask.push_headed(&heading, col);
        }
        if crate::classad::parser::parse_old_expr(attr).is_err() {
            self.msgs
                .push_str(&format!("attribute or expression is not valid: {attr}\n"));
        }
    }
}

/// How a view's text is shown, for comparing views: each column's heading, width, options,
/// printf format, alternative and renderer name, one line per column.
pub fn describe(pf: &PrintFormat) -> String {
    let mut out = describe_mask(&pf.mask);
    out.push_str(&format!(
        "where={:?} group_by={:?} head_foot={:#x}\n",
        pf.where_expr, pf.group_by, pf.head_foot
    ));
    out
}

/// [`describe`] for the columns alone.
pub fn describe_mask(mask: &PrintMask) -> String {
    let mut out = String::new();
    for (i, col) in mask.columns.iter().enumerate() {
        let heading = mask.headings.get(i).map_or("", String::as_str);
        out.push_str(&format!(
            "{:?} attr={:?} width={} opts={:#x} printf={:?} alt={:?} render={}\n",
            heading,
            col.attr,
            col.width,
            col.opts,
            col.printf(),
            col.alt,
            render_name(&col.render)
        ));
    }
    out
}

fn render_name(r: &Render) -> String {
    // Functions are compared by what they render (the tests render ads), not by address.
    match r {
        Render::Printf => "printf".to_owned(),
        Render::IntFormat(_) => "int-format".to_owned(),
        Render::Str(_) => "text".to_owned(),
        Render::Float(_) => "number".to_owned(),
        Render::Value(_) => "value".to_owned(),
    }
}

/// Why a `-print-format` argument gives no format text.
#[derive(Debug, PartialEq, Eq)]
pub enum FormatArgError {
    /// The argument is another option (a dash word other than `-`): no file name was given.
    NoFileName,
    /// The file cannot be read; the tools report it as `Can't open select file: FILE`.
    CantOpen,
    /// The text is longer than [`MAX_FORMAT_BYTES`] (`/dev/zero`, a log named by mistake):
    /// not read to its end.
    TooLarge,
}

/// The most a print-format text may hold: HTCondor's own are under 2 KB.
pub const MAX_FORMAT_BYTES: u64 = 1 << 20;

impl FormatArgError {
    /// The message for [`FormatArgError::TooLarge`].
    pub fn too_large(file: &str) -> String {
        format!("Error: print-format file {file} is larger than {MAX_FORMAT_BYTES} bytes")
    }
}

/// The text a `-print-format ARG` names, as HTCondor's tools read the argument: `!` only
/// turns off the configured default print formats (no text), a dash word is a missing file
/// name, `-` is standard input, anything else a file.
pub fn read_format_arg(arg: &str) -> Result<Option<String>, FormatArgError> {
    if arg == "!" {
        return Ok(None);
    }
    if arg.starts_with('-') && arg != "-" {
        return Err(FormatArgError::NoFileName);
    }
    let source: Box<dyn std::io::Read> = if arg == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(arg).map_err(|_| FormatArgError::CantOpen)?)
    };
    read_format_text(source).map(Some)
}

/// A print format's text, at most [`MAX_FORMAT_BYTES`] of it.
fn read_format_text(source: impl std::io::Read) -> Result<String, FormatArgError> {
    use std::io::Read;
    let mut text = String::new();
    source
        .take(MAX_FORMAT_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|_| FormatArgError::CantOpen)?;
    if text.len() as u64 > MAX_FORMAT_BYTES {
        return Err(FormatArgError::TooLarge);
    }
    Ok(text)
}

/// The print-format file a pool's configuration puts in place of a tool's default view
/// (condor_q's `Q_DEFAULT_<TAG>_PRINT_FORMAT_FILE`, condor_status's
/// `STATUS_[DEFAULT_]<MODE>_PRINT_FORMAT_FILE`), as queue.cpp's `initOutputMask` and
/// prettyPrint.cpp's `ppInitPrintMask` look for it: none when the knob is unset or names
/// nothing that exists (`stat` fails: "this is not an error"), else the file's name and its
/// text, or why it could not be read.
pub fn default_format_file(
    config: &crate::config::Config,
    knob: &str,
) -> Option<(String, Result<String, FormatArgError>)> {
    let file = config
        .string(knob)
        .ok()
        .flatten()
        .filter(|f| !f.is_empty())?;
    std::fs::metadata(&file).ok()?;
    let text = std::fs::File::open(&file)
        .map_err(|_| FormatArgError::CantOpen)
        .and_then(read_format_text);
    Some((file, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;
    use crate::output::mask::RenderEnv;

    fn show(text: &str, ads: &[&str]) -> String {
        let mut pf = parse(text, &[]);
        assert_eq!(pf.messages, "");
        let env = RenderEnv::default();
        let rows: Vec<_> = ads
            .iter()
            .map(|a| pf.mask.render(&parse_ad(a).unwrap(), &env))
            .collect();
        let mut out = pf.mask.headings_line();
        for row in &rows {
            pf.mask.display(&mut out, row);
        }
        out
    }

    #[test]
    fn columns_widths_and_alternatives() {
        let text = "SELECT\n\
                    Name WIDTH 6\n\
                    Name AS N WIDTH -6 PRINTF %s\n\
                    Cpus AS CPUS PRINTF %4d OR ??\n\
                    Memory AS 'M  ' WIDTH AUTO\n\
                    Name AS Last TRUNCATE WIDTH 0\n";
        let out = show(
            text,
            &[
                r#"[ Name = "slot1@host"; Cpus = 4; Memory = 1024 ]"#,
                r#"[ Name = "s2"; Memory = 1 ]"#,
            ],
        );
        // A numeric WIDTH truncates (and without PRINTF makes the format %6.6v); `OR ??`
        // fills the column; headings are padded to the width.
        assert_eq!(
            out,
            "Name   N      CPUS M    Last\n\
             slot1@ slot1@    4 1024 slot1@host\n\
             \x20   s2 s2     [??] 1    s2\n"
        );
    }

    #[test]
    fn sections_options_and_messages() {
        let text = "# a comment\n\
                    SELECT NOTITLE FROM Machine RECORDPREFIX '<' FIELDSUFFIX '|' NOPE\n\
                    Name AS\n\
                    Cpus WIDTH\n\
                    Cpus PRINTAS\n\
                    Cpus PRINTAS NO_SUCH OR x\n\
                    Cpus +\n\
                    WHERE Cpus > 1\n\
                    GROUP BY\n\
                    \x20 Machine AS M DESCENDING\n\
                    \x20 Name\n\
                    SUMMARY NONE\n";
        let pf = parse(text, &[]);
        assert_eq!(
            pf.messages,
            "Warning: Unknown header argument NOPE for SELECT\n\
             expected column name after AS at line 3 offset 7 in SELECT\n\
             expected number or AUTO after WIDTH at line 4 offset 10 in SELECT\n\
             expected function name after PRINTAS at line 5 offset 12 in SELECT\n\
             Unknown argument NO_SUCH for PRINTAS\n\
             Unknown argument x for OR\n\
             attribute or expression is not valid: Cpus +\n"
        );
        assert_eq!(pf.where_expr.as_deref(), Some("Cpus > 1"));
        assert_eq!(pf.select_from.as_deref(), Some("Machine"));
        assert_eq!(
            pf.group_by,
            [
                GroupKey {
                    expr: "Machine".into(),
                    name: "M".into(),
                    descending: true
                },
                GroupKey {
                    expr: "Name".into(),
                    ..GroupKey::default()
                }
            ]
        );
        assert!(!pf.title() && pf.header());
        assert!(!pf.standard_summary() && !pf.custom_summary());
        assert_eq!(pf.mask.row_prefix.as_deref(), Some("<"));
        assert_eq!(pf.mask.col_suffix.as_deref(), Some("|"));
        assert_eq!(pf.mask.columns.len(), 5);
    }

    #[test]
    fn summaries_and_bare() {
        assert!(parse("SELECT\nSUMMARY STANDARD", &[]).standard_summary());
        assert!(!parse("SELECT\nA", &[]).standard_summary());
        let pf = parse("SELECT BARE\nA\nSUMMARY\nB\n", &[]);
        assert!(pf.custom_summary() && !pf.title() && !pf.header());
        assert_eq!(pf.summary_mask.columns.len(), 1);
        assert_eq!(pf.head_foot & HF_NOSUMMARY, 0);
    }

    #[test]
    fn words_that_are_not_keywords_are_skipped_and_lines_continue() {
        let pf = parse("SELECT\nA + \\\n B AS Sum FORMATAS X WIDTH 4\n", &[]);
        assert_eq!(pf.messages, "");
        assert_eq!(pf.mask.columns[0].attr, "A + B");
        assert_eq!(pf.mask.headings, ["Sum"]);
        assert_eq!(pf.mask.columns[0].printf(), Some("%4.4v"));
    }

    #[test]
    fn labels() {
        let mut pf = parse(
            "SELECT LABEL SEPARATOR ': '\nName\nCpus AS C PRINTF %d\n",
            &[],
        );
        let mut out = String::new();
        let ad = parse_ad(r#"[ Name = "x"; Cpus = 2 ]"#).unwrap();
        pf.mask.display_ad(&mut out, &ad, &RenderEnv::default());
        assert_eq!(out, "Name: x C: 2\n");
        assert!(!pf.mask.has_headings());
    }
}
