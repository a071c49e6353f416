//! The queue statement: `queue [N] [vars] [in|from|matching [qualifiers] [slice]] [items]`,
//! parsed as HTCondor's `SubmitForeachArgs::parse_queue_args` does, Python-style slices
//! (`qslice`), the splitting of item rows into variables (`split_item`), and the external
//! item sources: files, commands (`from cmd |`) and globs (`matching`).

use std::path::Path;

use crate::classad::cnum::strtol;
use crate::config::expand;
use crate::config::reader::{is_space, CommentRules, LineReader};

/// What the items of a queue statement are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForeachMode {
    /// No item list: `queue` or `queue N`.
    Not,
    In,
    From,
    Matching,
    MatchingFiles,
    MatchingDirs,
    MatchingAny,
}

impl ForeachMode {
    pub fn is_matching(self) -> bool {
        matches!(
            self,
            ForeachMode::Matching
                | ForeachMode::MatchingFiles
                | ForeachMode::MatchingDirs
                | ForeachMode::MatchingAny
        )
    }
}

/// A Python-style slice `[start:end:step]` (HTCondor's `qslice`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slice {
    /// 1 = set, 2 = start given, 4 = end given, 8 = step given.
    flags: u8,
    start: i64,
    end: i64,
    step: i64,
}

impl Slice {
    pub fn is_set(&self) -> bool {
        self.flags & 1 != 0
    }

    /// Parses `[x:y:z]` at the start of `s`; returns the slice (unset when `s` is not a valid
    /// slice) and how many bytes it used, as `qslice::set` does.
    fn parse(s: &[u8]) -> (Slice, usize) {
        let mut sl = Slice::default();
        if s.first() != Some(&b'[') {
            return (sl, 0);
        }
        sl.flags = 1;
        let mut p = 0;
        // start
        let (v, n) = strtol(&s[p + 1..]);
        let pend = p + 1 + n;
        if !matches!(s.get(pend), Some(b':') | Some(b']')) {
            return (Slice::default(), 0);
        }
        sl.start = v;
        if n > 0 {
            sl.flags |= 2;
        }
        p = pend;
        if s[p] == b']' {
            return (sl, p);
        }
        let (v, n) = strtol(&s[p + 1..]);
        let pend = p + 1 + n;
        if !matches!(s.get(pend), Some(b':') | Some(b']')) {
            return (Slice::default(), 0);
        }
        sl.end = v;
        if n > 0 {
            sl.flags |= 4;
        }
        p = pend;
        if s[p] == b']' {
            return (sl, p);
        }
        let (v, n) = strtol(&s[p + 1..]);
        let pend = p + 1 + n;
        if s.get(pend) != Some(&b']') {
            return (Slice::default(), 0);
        }
        sl.step = v;
        if n > 0 {
            sl.flags |= 8;
        }
        (sl, pend + 1)
    }

    fn bounds(&self, len: i64) -> (i64, i64) {
        let mut is = 0;
        if self.flags & 2 != 0 {
            is = if self.start < 0 {
                self.start + len
            } else {
                self.start
            };
        }
        let mut ie = len;
        if self.flags & 4 != 0 {
            ie = if self.end < 0 {
                self.end + len
            } else {
                self.end
            };
        }
        (is, ie)
    }

    /// Converts the `ix`th selected position into an item index; false when iteration is done
    /// (`qslice::translate`).
    pub fn translate(&self, ix: i64, len: i64) -> Option<i64> {
        if self.flags & 1 == 0 {
            return (ix >= 0 && ix < len).then_some(ix);
        }
        let step = if self.flags & 8 != 0 { self.step } else { 1 };
        if step <= 0 {
            // HTCondor asserts here: negative steps are not implemented.
            return None;
        }
        let (is, ie) = self.bounds(len);
        let iy = is + ix * step;
        (iy >= is && iy < ie).then_some(iy)
    }

    /// How many items the slice selects from a list of `len` (`qslice::length_for`).
    pub fn length_for(&self, len: i64) -> i64 {
        if self.flags & 1 == 0 {
            return len;
        }
        let (is, ie) = self.bounds(len);
        let mut ret = ie - is;
        if self.flags & 8 != 0 && self.step > 1 {
            ret = (ret + self.step - 1) / self.step;
        }
        ret.max(0).min(len)
    }
}

/// How rows of a `from` list are split into columns (`SubmitTableOpts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableOpts {
    pub header_row: i64,
    pub skip_rows: i64,
    pub ws_sep: bool,
    pub trim_ws: bool,
    pub sep_char: u8,
}

impl TableOpts {
    /// The splitting queue statements have always used.
    pub const STANDARD: TableOpts = TableOpts {
        header_row: -1,
        skip_rows: 0,
        ws_sep: true,
        trim_ws: true,
        sep_char: b',',
    };
    /// The default after the `table` keyword.
    const TABLE: TableOpts = TableOpts {
        header_row: 0,
        skip_rows: 0,
        ws_sep: false,
        trim_ws: true,
        sep_char: b',',
    };
    const CSV: TableOpts = TableOpts {
        header_row: -1,
        skip_rows: 0,
        ws_sep: false,
        trim_ws: true,
        sep_char: b',',
    };

    fn is_standard(&self) -> bool {
        self.header_row == -1
            && self.skip_rows == 0
            && self.ws_sep
            && self.trim_ws
            && self.sep_char == b','
    }

    fn assign(&mut self, text: &str) {
        for kvp in expand::tokens(text, ",") {
            if kvp.eq_ignore_ascii_case("standard") {
                *self = TableOpts::STANDARD;
                continue;
            }
            if kvp.eq_ignore_ascii_case("csv") {
                *self = TableOpts::CSV;
                continue;
            }
            let Some((key, rhs)) = kvp.split_once(['=', ':']) else {
                continue;
            };
            let key = key.trim_matches(is_space);
            let rhs = rhs.trim_matches(is_space);
            if key.eq_ignore_ascii_case("header") {
                if let Some(n) = expand::integer_value(rhs) {
                    self.header_row = n.min(i64::from(i32::MAX));
                } else if rhs.eq_ignore_ascii_case("none") {
                    self.header_row = -1;
                }
            } else if key.eq_ignore_ascii_case("skip") {
                if let Some(n) = expand::integer_value(rhs) {
                    self.skip_rows = n.min(i64::from(i32::MAX));
                }
            } else if key.eq_ignore_ascii_case("trim") {
                if let Some(b) = expand::bool_value(rhs) {
                    self.trim_ws = b;
                }
            } else if key.eq_ignore_ascii_case("comma_sep") {
                if let Some(b) = expand::bool_value(rhs) {
                    self.sep_char = if b { b',' } else { 0 };
                }
            } else if key.eq_ignore_ascii_case("sep") {
                self.sep_char = rhs.bytes().next().unwrap_or(0);
            }
        }
    }
}

/// A parsed queue statement (`SubmitForeachArgs`).
#[derive(Clone, Debug)]
pub struct ForeachArgs {
    pub mode: ForeachMode,
    /// Jobs per item (`queue N`).
    pub queue_num: i64,
    pub vars: Vec<String>,
    pub items: Vec<String>,
    pub slice: Slice,
    pub table: TableOpts,
    /// Where the rest of the items come from: `<` for the lines after the statement, a file
    /// name, a command ending in `|`, or `-` for standard input.
    pub items_filename: String,
}

impl Default for ForeachArgs {
    fn default() -> Self {
        ForeachArgs {
            mode: ForeachMode::Not,
            queue_num: 1,
            vars: Vec::new(),
            items: Vec::new(),
            slice: Slice::default(),
            table: TableOpts::STANDARD,
            items_filename: String::new(),
        }
    }
}

/// Why queue arguments could not be parsed; the text is HTCondor's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueArgsError {
    InvalidCount,
    CountOutOfRange,
    KeywordConflict,
    BadSlice,
    BadTableOpts,
}

impl QueueArgsError {
    pub fn message(self) -> &'static str {
        match self {
            QueueArgsError::InvalidCount => "Invalid Queue count expression",
            QueueArgsError::CountOutOfRange => "Queue count out of range",
            QueueArgsError::KeywordConflict => "Queue keyword conflict",
            QueueArgsError::BadSlice => "Invalid [::] statement",
            QueueArgsError::BadTableOpts => "Invalid TABLE options",
        }
    }
}

fn is_c_space(c: u8) -> bool {
    is_space(c as char)
}

/// Scans for a keyword of `tokens` delimited by whitespace or `(` (`queue_token_scan`).
/// Returns the position scanning stopped at, and the keyword's id and start when found (or,
/// when `until_match` is false, the first token's start).
fn token_scan(
    s: &[u8],
    from: usize,
    tokens: &[(&str, i32)],
    until_match: bool,
) -> (usize, Option<i32>, Option<usize>) {
    const MAXTOK: usize = 9;
    let mut ptok: Option<usize> = None;
    let mut cch = 0usize;
    let mut p = from;
    while p < s.len() {
        let ch = s[p];
        if is_c_space(ch) || ch == b'(' {
            if (1..=MAXTOK).contains(&cch) {
                let start = ptok.expect("a token started");
                let tok = &s[start..start + cch];
                if let Some(&(_, id)) = tokens
                    .iter()
                    .find(|(name, _)| name.as_bytes().eq_ignore_ascii_case(tok))
                {
                    return (p, Some(id), Some(start));
                }
            }
            if !until_match {
                return (p, None, ptok);
            }
            cch = 0;
        } else {
            if cch == 0 {
                ptok = Some(p);
            }
            cch += 1;
        }
        p += 1;
    }
    (p, None, if until_match { None } else { ptok })
}

/// Parses the (already macro-expanded) arguments of a queue statement.
pub fn parse_queue_args(args: &str) -> Result<ForeachArgs, QueueArgsError> {
    let mut o = ForeachArgs::default();
    let s = args.trim_start_matches(is_space).as_bytes();
    if s.is_empty() {
        return Ok(o);
    }
    let text = |a: usize, b: usize| String::from_utf8_lossy(&s[a..b]).into_owned();

    const FOREACH: [(&str, i32); 3] = [("in", 1), ("from", 2), ("matching", 3)];
    let (mut p, found, ptok) = token_scan(s, 0, &FOREACH, true);
    let mut pnum_end = p;

    if let (Some(id), Some(ptok)) = (found, ptok) {
        o.mode = match id {
            1 => ForeachMode::In,
            2 => ForeachMode::From,
            _ => ForeachMode::Matching,
        };
        while p < s.len() && is_c_space(s[p]) {
            p += 1;
        }
        if s.get(p) != Some(&b'(') {
            const QUALS: [(&str, i32); 4] = [("files", 1), ("dirs", 2), ("any", 3), ("table", 4)];
            loop {
                let (mut p2, qual, ptmp) = token_scan(s, p, &QUALS, false);
                let mut qual = qual.unwrap_or(-1);
                if ptmp.is_some_and(|t| s[t] == b'[') {
                    qual = 99;
                }
                if qual <= 0 {
                    break;
                }
                match qual {
                    1..=3 => {
                        if o.mode != ForeachMode::Matching {
                            return Err(QueueArgsError::KeywordConflict);
                        }
                        o.mode = match qual {
                            1 => ForeachMode::MatchingFiles,
                            2 => ForeachMode::MatchingDirs,
                            _ => ForeachMode::MatchingAny,
                        };
                    }
                    4 => {
                        if o.mode != ForeachMode::From {
                            return Err(QueueArgsError::KeywordConflict);
                        }
                        o.table = TableOpts::TABLE;
                        if s.get(p2) == Some(&b'(') {
                            let Some(close) = find_close_brace(s, p2) else {
                                return Err(QueueArgsError::BadTableOpts);
                            };
                            o.table.assign(&text(p2 + 1, close));
                            p2 = close + 1;
                        }
                    }
                    _ => {
                        let start = ptmp.expect("a token");
                        let (slice, used) = Slice::parse(&s[start..]);
                        if !slice.is_set() {
                            return Err(QueueArgsError::BadSlice);
                        }
                        o.slice = slice;
                        p2 = start + used;
                        if s.get(p2) == Some(&b']') {
                            p2 += 1;
                        }
                    }
                }
                if p == p2 {
                    break;
                }
                p = p2;
                while p < s.len() && is_c_space(s[p]) {
                    p += 1;
                }
            }
        }

        // The item list: on this line, or continued on the lines that follow.
        let mut plist = p;
        let mut end = s.len();
        let mut one_line = false;
        if s.get(plist) == Some(&b'(') && s[end - 1] == b')' {
            end -= 1;
            plist += 1;
            one_line = true;
        }
        let skip_ws = |mut i: usize| {
            while i < end && is_c_space(s[i]) {
                i += 1;
            }
            i
        };
        if plist < end && s[plist] == b'(' {
            plist = skip_ws(plist + 1);
            if plist < end {
                if o.mode == ForeachMode::From {
                    o.items = vec![text(plist, end)];
                } else {
                    o.items
                        .extend(expand::tokens(&text(plist, end), expand::DEFAULT_DELIMS));
                }
            }
            o.items_filename = "<".into();
        } else if o.mode == ForeachMode::From {
            plist = skip_ws(plist);
            if one_line {
                o.items = vec![text(plist, end)];
            } else {
                o.items_filename = text(plist, end).trim_matches(is_space).to_owned();
            }
        } else {
            plist = skip_ws(plist);
            o.items
                .extend(expand::tokens(&text(plist, end), expand::DEFAULT_DELIMS));
        }

        // The loop variables: scan back from the keyword over names, commas and blanks.
        let mut pvars = ptok;
        while pvars > 0 && is_c_space(s[pvars - 1]) {
            pvars -= 1;
        }
        if pvars > 0 {
            let vars_end = pvars;
            let mut pt = pvars;
            while pt > 0 {
                let mut ch = s[pt - 1];
                if ch.is_ascii_digit() {
                    pt -= 1;
                    while pt > 0 {
                        ch = s[pt - 1];
                        if ch.is_ascii_alphabetic() {
                            break;
                        }
                        if !ch.is_ascii_digit() {
                            ch = b'!';
                            break;
                        }
                        pt -= 1;
                    }
                }
                if is_c_space(ch) || ch.is_ascii_alphabetic() || matches!(ch, b',' | b'_' | b'.') {
                    pvars = pt.saturating_sub(1);
                    if pt == 0 {
                        break;
                    }
                } else {
                    break;
                }
                pt -= 1;
            }
            o.vars = expand::tokens(&text(pvars, vars_end), expand::DEFAULT_DELIMS);
        }
        pnum_end = pvars;
    }

    while pnum_end > 0 && is_c_space(s[pnum_end - 1]) {
        pnum_end -= 1;
    }
    if pnum_end > 0 {
        let count = text(0, pnum_end);
        match expand::integer_value(&count) {
            None => return Err(QueueArgsError::InvalidCount),
            Some(v) if !(0..i64::from(i32::MAX)).contains(&v) => {
                return Err(QueueArgsError::CountOutOfRange)
            }
            Some(v) => o.queue_num = v,
        }
    }
    Ok(o)
}

/// The index of the `)` that closes the `(` at `open`, skipping nested brackets and quoted
/// strings (`fea_find_close_brace`).
fn find_close_brace(s: &[u8], open: usize) -> Option<usize> {
    fn close_of(c: u8) -> u8 {
        match c {
            b'(' => b')',
            b'[' => b']',
            b'{' => b'}',
            b'<' => b'>',
            c => c,
        }
    }
    fn scan(s: &[u8], open: usize, depth: i32) -> Option<usize> {
        if depth < 0 {
            return None;
        }
        let open_ch = *s.get(open)?;
        let close_ch = close_of(open_ch);
        let mut p = open + 1;
        loop {
            let c = *s.get(p)?;
            if c == close_ch {
                return Some(p);
            }
            if c == open_ch || c == b'(' || c == b'[' {
                p = scan(s, p, depth - 1)?;
            } else if c == b'\'' || c == b'"' {
                let q = c;
                p += 1;
                loop {
                    let c = *s.get(p)?;
                    if c == q {
                        break;
                    }
                    if c == b'\\' && matches!(s.get(p + 1), Some(&n) if n == q || n == b'\\') {
                        p += 1;
                    }
                    p += 1;
                }
            }
            p += 1;
        }
    }
    let close = scan(s, open, 25)?;
    (s[close] == b')').then_some(close)
}

impl ForeachArgs {
    /// How many items are selected (1 when there is no item list); `queue_num` is not counted.
    pub fn item_len(&self) -> i64 {
        if self.mode == ForeachMode::Not {
            return 1;
        }
        self.slice.length_for(self.items.len() as i64)
    }

    /// Splits a row into at most `num_cols` columns (`SubmitForeachArgs::split_item`).
    pub fn split_item<'i>(&self, item: &'i str, num_cols: usize) -> Vec<&'i str> {
        split_item(&self.table, item, num_cols)
    }

    /// Takes the column names from the header row and removes the header and skipped rows
    /// (`load_schema`). Returns an error message, or an empty string.
    pub fn load_schema(&mut self) -> String {
        let header = self.table.header_row;
        if header < 0 {
            return String::new();
        }
        let header = header as usize;
        if header >= self.items.len() {
            return format!(
                "Heading row {header} is beyond the end of table {}",
                self.items_filename
            );
        }
        let schema: Vec<String> = split_item(&self.table, &self.items[header], usize::MAX)
            .into_iter()
            .map(str::to_owned)
            .collect();
        if schema.is_empty() {
            return format!(
                "No column headings found on row {header} in table {}",
                self.items_filename
            );
        }
        let mut bad_cols = Vec::new();
        let mut bad_nums = Vec::new();
        let mut vars = Vec::new();
        for (i, name) in schema.iter().enumerate() {
            if expand::is_valid_name(name) {
                vars.push(name.clone());
            } else {
                bad_cols.push(name.clone());
                bad_nums.push((i + 1).to_string());
            }
        }
        if !bad_cols.is_empty() {
            return format!(
                "Columns {} have names that are not allowed : {}",
                bad_nums.join(","),
                bad_cols.join(",")
            );
        }
        self.vars = vars;
        self.items.remove(header);
        if header > 0 {
            let mut skip = header - 1;
            if self.table.skip_rows > 0 {
                skip += self.table.skip_rows as usize;
            }
            let skip = skip.min(self.items.len());
            self.items.drain(..skip);
        }
        String::new()
    }
}

/// Splits a row of item data into columns (HTCondor 24.0's `split_item`).
pub fn split_item<'i>(opts: &TableOpts, item: &'i str, num_cols: usize) -> Vec<&'i str> {
    const MAX_COLUMNS: usize = 1000;
    let mut item = item;
    item = item.strip_suffix('\0').unwrap_or(item);
    let eoi = &item[item.len()..];
    item = item.strip_suffix('\n').unwrap_or(item);
    item = item.strip_suffix('\r').unwrap_or(item);

    let legacy = opts.is_standard();
    let mut split_on_ws = opts.ws_sep;
    let sep_char = if legacy && item.contains('\x1f') {
        split_on_ws = false;
        b'\x1f'
    } else {
        opts.sep_char
    };
    let mut seps: Vec<u8> = Vec::with_capacity(3);
    if sep_char != 0 {
        seps.push(sep_char);
        if split_on_ws {
            seps.extend_from_slice(b" \t");
        }
    } else {
        seps.extend_from_slice(b", \t");
    }
    let trim = legacy || opts.trim_ws;
    let ws = |c: char| c == ' ' || c == '\t';
    if trim {
        item = item.trim_matches(ws);
    }
    let mut values: Vec<&'i str> = Vec::new();
    if item.is_empty() {
        return values;
    }
    values.push(item);
    while values.len() < num_cols {
        let prev = *values.last().expect("not empty");
        match prev.bytes().position(|c| seps.contains(&c)) {
            None => {
                if num_cols >= MAX_COLUMNS {
                    break;
                }
                values.push(eoi);
            }
            Some(end) => {
                let mut head = &prev[..end];
                let mut tail = &prev[end + 1..];
                if trim {
                    head = head.trim_end_matches(ws);
                    tail = tail.trim_start_matches(ws);
                }
                let last = values.len() - 1;
                values[last] = head;
                values.push(tail);
            }
        }
    }
    values
}

/// Lines of an item source (a file or a command's output), trimmed, continuation lines
/// joined (`getline_trim`).
pub fn item_lines(text: &str) -> Vec<String> {
    let mut reader = LineReader::new(text);
    reader.rules = CommentRules::Old;
    let mut out = Vec::new();
    while let Some(line) = reader.next_line() {
        out.push(line);
    }
    out
}

/// Options for [`expand_globs`] (`EXPAND_GLOBS_*`).
#[derive(Clone, Copy, Debug, Default)]
pub struct GlobOptions {
    pub warn_empty: bool,
    pub fail_empty: bool,
    pub allow_dups: bool,
    pub warn_dups: bool,
    pub to_dirs: bool,
    pub to_files: bool,
}

/// Expands the `matching` globs relative to `cwd`, as `submit_expand_globs` does: each
/// pattern's matches sorted (C locale), directories marked with a trailing `/`, duplicates of
/// earlier patterns' matches skipped. Returns the items and the warnings HTCondor prints.
pub fn expand_globs(
    patterns: &[String],
    opts: GlobOptions,
    cwd: &Path,
) -> Result<(Vec<String>, Vec<String>), String> {
    let only_dirs = opts.to_dirs && !opts.to_files;
    let no_dirs = opts.to_files && !opts.to_dirs;
    let mut sections: Vec<(String, Vec<String>, usize)> = Vec::new();
    let mut empty = 0;
    for pattern in patterns {
        let mut found = glob(pattern, cwd);
        if only_dirs {
            found.retain(|f| f.ends_with('/'));
        }
        let mut count = found.len();
        if found.is_empty() {
            empty += 1;
        } else if no_dirs {
            count = found.iter().filter(|f| !f.ends_with('/')).count();
            if count == 0 {
                empty += 1;
            }
        }
        sections.push((pattern.clone(), found, count));
    }
    if empty > 0 && opts.fail_empty {
        let mut msg = String::from("no matches for pattern(s): ");
        for (pattern, _, count) in &sections {
            if *count == 0 {
                msg.push_str(&format!("'{pattern}' "));
            }
        }
        return Err(msg);
    }
    let mut items = Vec::new();
    let mut warnings = Vec::new();
    for (ix, (pattern, found, _)) in sections.iter().enumerate() {
        if ix > 0 && sections[ix].2 == 0 && opts.warn_empty && !found.is_empty() {
            warnings.push(format!("'{pattern}' does not match any files"));
        }
        for name in found {
            if no_dirs && name.ends_with('/') {
                continue;
            }
            if ix > 0 && !opts.allow_dups {
                if let Some(dup) = sections[..ix]
                    .iter()
                    .flat_map(|s| s.1.iter())
                    .position(|n| n == name)
                {
                    if opts.warn_dups {
                        warnings.push(format!(
                            "'{name}' matching pattern '{pattern}' is a duplicate of item {dup}, skipping"
                        ));
                    }
                    continue;
                }
            }
            items.push(name.clone());
        }
    }
    Ok((items, warnings))
}

/// POSIX `glob()` with `GLOB_MARK` for one pattern, relative to `cwd`: the matches sorted
/// bytewise, directories with a trailing `/`. Names starting with `.` match only a pattern
/// component that starts with `.`.
pub fn glob(pattern: &str, cwd: &Path) -> Vec<String> {
    let absolute = pattern.starts_with('/');
    let components: Vec<&str> = pattern.split('/').filter(|c| !c.is_empty()).collect();
    if components.is_empty() {
        return Vec::new();
    }
    // (the path as it will be returned, the filesystem path)
    let mut current: Vec<(String, std::path::PathBuf)> = vec![(
        if absolute { "/".into() } else { String::new() },
        if absolute {
            std::path::PathBuf::from("/")
        } else {
            cwd.to_path_buf()
        },
    )];
    for (ci, comp) in components.iter().enumerate() {
        let last = ci + 1 == components.len();
        let mut next = Vec::new();
        for (shown, fs) in &current {
            if !has_glob_chars(comp) {
                let fs2 = fs.join(comp);
                if fs2.symlink_metadata().is_ok() || fs2.exists() {
                    next.push((format!("{shown}{comp}{}", if last { "" } else { "/" }), fs2));
                }
                continue;
            }
            let Ok(rd) = std::fs::read_dir(fs) else {
                continue;
            };
            let mut names: Vec<String> = rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.') || comp.starts_with('.'))
                .filter(|n| fnmatch(comp.as_bytes(), n.as_bytes()))
                .collect();
            names.sort();
            for n in names {
                let fs2 = fs.join(&n);
                if !last && !fs2.is_dir() {
                    continue;
                }
                next.push((format!("{shown}{n}{}", if last { "" } else { "/" }), fs2));
            }
        }
        current = next;
    }
    let mut out: Vec<String> = current
        .into_iter()
        .map(|(mut shown, fs)| {
            if fs.is_dir() && !shown.ends_with('/') {
                shown.push('/');
            }
            shown
        })
        .collect();
    out.sort();
    out
}

fn has_glob_chars(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Shell wildcard matching of one path component (`*`, `?`, `[...]`, `\` escapes).
pub fn fnmatch(pat: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pat.len() {
            // How far a match of this character advances in the pattern.
            let advance = match pat[p] {
                b'*' => {
                    star = Some((p, n));
                    p += 1;
                    continue;
                }
                b'?' => Some(1),
                b'[' => match bracket(&pat[p..], name[n]) {
                    Some((matched, len)) => matched.then_some(len),
                    None => (name[n] == b'[').then_some(1),
                },
                b'\\' if p + 1 < pat.len() => (pat[p + 1] == name[n]).then_some(2),
                c => (c == name[n]).then_some(1),
            };
            if let Some(len) = advance {
                p += len;
                n += 1;
                continue;
            }
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    while p < pat.len() && pat[p] == b'*' {
        p += 1;
    }
    p == pat.len()
}

/// Matches `c` against the bracket expression at the start of `pat`; returns whether it
/// matched and the expression's length, or `None` when it is not a complete expression.
fn bracket(pat: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(pat.get(i), Some(b'!') | Some(b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < pat.len() {
        let lo = pat[i];
        if lo == b']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if i + 2 < pat.len() && pat[i + 1] == b'-' && pat[i + 2] != b']' {
            let hi = pat[i + 2];
            if lo <= c && c <= hi {
                matched = true;
            }
            i += 3;
        } else {
            if lo == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(args: &str) -> ForeachArgs {
        parse_queue_args(args).unwrap()
    }

    #[test]
    fn counts_vars_and_items() {
        assert_eq!(q("").queue_num, 1);
        assert_eq!(q("3").queue_num, 3);
        assert_eq!(q("2 * 2").queue_num, 4);
        let o = q("2 X in (a, b)");
        assert_eq!(
            (o.queue_num, o.vars.clone(), o.items.clone()),
            (
                2,
                vec!["X".to_string()],
                vec!["a".to_string(), "b".to_string()]
            )
        );
        let o = q("first,second,third from (");
        assert_eq!(o.vars, ["first", "second", "third"]);
        assert_eq!(o.items_filename, "<");
        let o = q("A,B from items.txt");
        assert_eq!(o.items_filename, "items.txt");
        let o = q("in a b c");
        assert_eq!(o.items, ["a", "b", "c"]);
        assert!(o.vars.is_empty());
        let o = q("X in [1:3] (a, b, c, d, e)");
        assert_eq!(o.item_len(), 2);
        assert_eq!(o.slice.translate(0, 5), Some(1));
        let o = q("2 matching files [1:] *.dat");
        assert_eq!((o.mode, o.queue_num), (ForeachMode::MatchingFiles, 2));
        assert_eq!(o.items, ["*.dat"]);
        let o = q("N from seq 1 3 |");
        assert_eq!(o.items_filename, "seq 1 3 |");
        assert_eq!(q("1 V IN (p, q)").items, ["p", "q"]);
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_queue_args("abc").unwrap_err(),
            QueueArgsError::InvalidCount
        );
        assert_eq!(
            parse_queue_args("-1").unwrap_err(),
            QueueArgsError::CountOutOfRange
        );
        assert_eq!(
            parse_queue_args("X in [a:b] (x, y)").unwrap_err(),
            QueueArgsError::BadSlice
        );
        assert_eq!(
            parse_queue_args("X matching files dirs *.dat").unwrap_err(),
            QueueArgsError::KeywordConflict
        );
    }

    #[test]
    fn splitting_rows() {
        let t = TableOpts::STANDARD;
        assert_eq!(split_item(&t, "apple, 10", 2), ["apple", "10"]);
        assert_eq!(
            split_item(&t, "cherry,30, with the rest", 2),
            ["cherry", "30, with the rest"]
        );
        assert_eq!(split_item(&t, "c,300", 3), ["c", "300", ""]);
        assert!(split_item(&t, "   ", 2).is_empty());
        assert_eq!(split_item(&t, "one two three", 1), ["one two three"]);
    }

    #[test]
    fn wildcards() {
        assert!(fnmatch(b"*.dat", b"a.dat"));
        assert!(!fnmatch(b"*.dat", b"a.da"));
        assert!(fnmatch(b"run*", b"run1"));
        assert!(fnmatch(b"r?n[0-9]", b"run1"));
        assert!(!fnmatch(b"r[!u]n1", b"run1"));
    }
}
