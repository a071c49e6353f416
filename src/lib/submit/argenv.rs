//! Job arguments and environment in HTCondor's two syntaxes (src/condor_utils/
//! condor_arglist.cpp and env.cpp).
//!
//! Arguments: V1 ("old") is the raw text split on whitespace, with `\"` for a literal quote;
//! V2 ("new") is the whole value in double quotes, `""` for a literal `"`, and single quotes
//! grouping words (`''` inside them for a literal `'`). The job ad stores V1 in `Args` as
//! given (blank runs collapsed) and V2 in `Arguments` in "raw" form, quoting only what needs it.
//!
//! Environment: V1 is `NAME=value` entries separated by `;` (or a leading delimiter
//! character); V2 is double-quoted, space-separated, with the argument quoting rules. The job
//! ad stores `Environment` (V2 raw, entries sorted by name) or, for the `env` keyword with a V1
//! value, `Env` and `EnvDelim`.

use std::collections::BTreeMap;

/// HTCondor's `isspace` for argument splitting.
fn is_arg_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Appends `arg` to a V2 raw string (`append_arg`).
pub fn append_arg(arg: &str, result: &mut String) {
    if !result.is_empty() {
        result.push(' ');
    }
    if arg.is_empty() {
        result.push_str("''");
    }
    for c in arg.chars() {
        match c {
            ' ' | '\t' | '\n' | '\r' | '\'' => {
                if result.ends_with('\'') {
                    // Join with the preceding quoted section rather than repeat the quote.
                    result.pop();
                } else {
                    result.push('\'');
                }
                if c == '\'' {
                    result.push('\'');
                }
                result.push(c);
                result.push('\'');
            }
            c => result.push(c),
        }
    }
}

/// Splits a V2 raw string into arguments (`split_args`).
pub fn split_args(args: &str, out: &mut Vec<String>) -> Result<(), String> {
    let mut buf = String::new();
    let mut parsed = false;
    let mut it = args.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match c {
            '\'' => {
                parsed = true;
                let mut closed = false;
                while let Some((_, d)) = it.next() {
                    if d == '\'' {
                        if matches!(it.peek(), Some((_, '\''))) {
                            buf.push('\'');
                            it.next();
                        } else {
                            closed = true;
                            break;
                        }
                    } else {
                        buf.push(d);
                    }
                }
                if !closed {
                    return Err(format!("Unbalanced quote starting here: {}", &args[i..]));
                }
            }
            c if is_arg_space(c) => {
                if parsed {
                    parsed = false;
                    out.push(std::mem::take(&mut buf));
                }
            }
            c => {
                parsed = true;
                buf.push(c);
            }
        }
    }
    if parsed {
        out.push(buf);
    }
    Ok(())
}

/// Whether a value is V2-quoted (leading whitespace, then `"`).
pub fn is_v2_quoted(s: &str) -> bool {
    s.trim_start_matches(is_c_space).starts_with('"')
}

/// Strips the double quotes of a V2-quoted string (`V2QuotedToV2Raw`).
pub fn v2_quoted_to_raw(input: &str) -> Result<String, String> {
    let s = input.trim_start_matches(is_c_space);
    let mut chars = s[1..].char_indices().peekable();
    let mut raw = String::new();
    let mut terminated: Option<usize> = None;
    while let Some((i, c)) = chars.next() {
        if c == '"' {
            if matches!(chars.peek(), Some((_, '"'))) {
                raw.push('"');
                chars.next();
            } else {
                terminated = Some(i + 1);
                break;
            }
        } else {
            raw.push(c);
        }
    }
    let Some(q) = terminated else {
        return Err("Unterminated double-quote.".into());
    };
    let rest = &s[q + 1..];
    if !rest.trim_start_matches(is_c_space).is_empty() {
        return Err(format!(
            "Unexpected characters following double-quote.  Did you forget to escape the double-quote by repeating it?  Here is the quote and trailing characters: {}\n",
            &s[q..]
        ));
    }
    Ok(raw)
}

/// Wraps a V2 raw string in double quotes, doubling the quotes inside (`V2RawToV2Quoted`).
pub fn v2_raw_to_quoted(raw: &str) -> String {
    format!("\"{}\"", raw.replace('"', "\"\""))
}

/// Job arguments (`ArgList`).
#[derive(Clone, Debug, Default)]
pub struct ArgList {
    pub args: Vec<String>,
    /// The input was V1 (so the ad gets `Args`).
    pub input_was_v1: bool,
}

impl ArgList {
    /// `AppendArgsV1WackedOrV2Quoted`: the `arguments` keyword.
    pub fn append_v1_wacked_or_v2_quoted(&mut self, args: &str) -> Result<(), String> {
        if is_v2_quoted(args) {
            let raw = v2_quoted_to_raw(args)?;
            return split_args(&raw, &mut self.args);
        }
        // V1 "wacked": a literal double quote must be written \".
        let mut raw = String::with_capacity(args.len());
        let b = args.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'"' {
                return Err(format!(
                    "Found illegal unescaped double-quote: {}",
                    &args[i..]
                ));
            }
            if b[i] == b'\\' && b.get(i + 1) == Some(&b'"') {
                raw.push('"');
                i += 2;
                continue;
            }
            let c = args[i..].chars().next().expect("in bounds");
            raw.push(c);
            i += c.len_utf8();
        }
        self.input_was_v1 = true;
        for word in raw.split(is_arg_space).filter(|w| !w.is_empty()) {
            self.args.push(word.to_owned());
        }
        Ok(())
    }

    /// `AppendArgsV2Quoted`: the `arguments2` keyword.
    pub fn append_v2_quoted(&mut self, args: &str) -> Result<(), String> {
        if !is_v2_quoted(args) {
            return Err("Expecting double-quoted input string (V2 format).".into());
        }
        let raw = v2_quoted_to_raw(args)?;
        split_args(&raw, &mut self.args)
    }

    /// The V1 raw form (`GetArgsStringV1Raw`).
    pub fn v1_raw(&self) -> Result<String, String> {
        let mut out = String::new();
        for a in &self.args {
            if a.contains([' ', '\t', '\r', '\n']) {
                return Err(format!("Cannot represent '{a}' in V1 arguments syntax."));
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(a);
        }
        Ok(out)
    }

    /// The V2 raw form (`GetArgsStringV2Raw`).
    pub fn v2_raw(&self) -> String {
        let mut out = String::new();
        for a in &self.args {
            append_arg(a, &mut out);
        }
        out
    }

    /// The V2 quoted form (`GetArgsStringV2Quoted`): the raw form in double quotes.
    pub fn v2_quoted(&self) -> String {
        v2_raw_to_quoted(&self.v2_raw())
    }

    /// `GetArgsStringV1WackedOrV2Quoted`, what a generated submit file's `arguments` line
    /// holds: V1 with each `"` written `\"` when no argument holds whitespace, the V2 quoted
    /// form otherwise (which [`ArgList::append_v1_wacked_or_v2_quoted`] reads back).
    pub fn v1_wacked_or_v2_quoted(&self) -> String {
        match self.v1_raw() {
            Ok(v1) => v1.replace('"', "\\\""),
            Err(_) => self.v2_quoted(),
        }
    }
}

/// The `$$` placeholder value HTCondor stores for an entry without `=` that holds `$$`.
const NO_VALUE: &str = "\x01\x02\x03\x04\x05\x06";

/// A job environment (`Env`): variables sorted by name.
#[derive(Clone, Debug, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

fn is_permitted_delim(c: char) -> bool {
    "!#$%&*+,-/:;<>?@^`|~\x1f".contains(c)
}

impl Env {
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.vars.contains_key(name)
    }

    pub fn set(&mut self, name: &str, value: &str) {
        if !name.is_empty() {
            self.vars.insert(name.to_owned(), value.to_owned());
        }
    }

    /// One `NAME=value` entry (`SetEnvWithErrorMessage`).
    pub fn set_entry(&mut self, entry: &str) -> Result<(), String> {
        if entry.is_empty() {
            return Err(String::new());
        }
        match entry.find('=') {
            None if entry.contains("$$") => {
                self.set(entry, NO_VALUE);
                Ok(())
            }
            None => Err(format!(
                "ERROR: Missing '=' after environment variable '{entry}'."
            )),
            Some(0) => Err(format!("ERROR: missing variable in '{entry}'.")),
            Some(i) => {
                self.set(&entry[..i], &entry[i + 1..]);
                Ok(())
            }
        }
    }

    /// `MergeFromV2Raw`.
    pub fn merge_v2_raw(&mut self, raw: &str) -> Result<(), String> {
        let mut entries = Vec::new();
        split_args(raw, &mut entries)?;
        for e in entries {
            self.set_entry(&e)?;
        }
        Ok(())
    }

    /// `MergeFromV2Quoted`: the `environment2` keyword.
    pub fn merge_v2_quoted(&mut self, s: &str) -> Result<(), String> {
        if !is_v2_quoted(s) {
            return Err("Expecting a double-quoted environment string (V2 format).".into());
        }
        let raw = v2_quoted_to_raw(s)?;
        self.merge_v2_raw(&raw)
    }

    /// `MergeFromV1RawOrV2Quoted`: the `environment` and `env` keywords.
    pub fn merge_v1_raw_or_v2_quoted(&mut self, s: &str) -> Result<(), String> {
        if is_v2_quoted(s) {
            return self.merge_v2_quoted(s);
        }
        self.merge_v1_auto_delim(s, None)
    }

    /// `Env::MergeFrom(const ClassAd *)`: the environment a job ad already has, its V2
    /// `Environment` if it has one, else its V1 `Env` split at its `EnvDelim`. A missing or
    /// non-string attribute merges nothing.
    pub fn merge_from_ad(
        &mut self,
        environment: Option<&str>,
        env_v1: Option<&str>,
        env_delim: Option<&str>,
    ) -> Result<(), String> {
        match (environment, env_v1) {
            (Some(v2), _) => self.merge_v2_raw(v2),
            (None, Some(v1)) => {
                self.merge_v1_auto_delim(v1, env_delim.and_then(|d| d.chars().next()))
            }
            (None, None) => Ok(()),
        }
    }

    /// `MergeFromV1AutoDelim`: separated by `delim` (`;` when not given), or by a leading
    /// delimiter character.
    fn merge_v1_auto_delim(&mut self, s: &str, delim: Option<char>) -> Result<(), String> {
        if s.is_empty() {
            return Ok(());
        }
        let mut delim = delim.unwrap_or(';');
        let mut s = s;
        let first = s.chars().next().expect("not empty");
        if first == delim {
            s = &s[1..];
        } else if is_permitted_delim(first) {
            delim = first;
            s = &s[first.len_utf8()..];
        }
        // ReadFromDelimitedString: skip leading blanks, read to the delimiter or a newline.
        let mut rest = s;
        while !rest.is_empty() {
            rest = rest.trim_start_matches([' ', '\t', '\n', '\r']);
            let end = rest.find(['\n', delim]).unwrap_or(rest.len());
            let entry = &rest[..end];
            rest = if end < rest.len() {
                &rest[end + 1..]
            } else {
                ""
            };
            if !entry.is_empty() {
                self.set_entry(entry)?;
            }
        }
        Ok(())
    }

    /// `getDelimitedStringV2Raw`.
    pub fn v2_raw(&self) -> String {
        let mut out = String::new();
        for (k, v) in &self.vars {
            if v == NO_VALUE {
                append_arg(k, &mut out);
            } else {
                append_arg(&format!("{k}={v}"), &mut out);
            }
        }
        out
    }

    /// `getDelimitedStringV2Quoted`: the V2 raw form in double quotes.
    pub fn v2_quoted(&self) -> String {
        v2_raw_to_quoted(&self.v2_raw())
    }

    /// `getDelimitedStringV1Raw` with `;`.
    pub fn v1_raw(&self) -> Result<String, String> {
        let mut out = String::new();
        for (k, v) in &self.vars {
            let unsafe_v1 = |s: &str| s.contains([';', '\n']);
            if unsafe_v1(k) || unsafe_v1(v) {
                return Err(format!(
                    "Environment entry is not compatible with V1 syntax: {k}={v}"
                ));
            }
            if !out.is_empty() {
                out.push(';');
            }
            out.push_str(k);
            if v != NO_VALUE {
                out.push('=');
                out.push_str(v);
            }
        }
        Ok(out)
    }
}

/// HTCondor's `matches_withwildcard` (case-insensitive): one `*` at the start, the end or in
/// the middle, optionally another at the end.
pub fn matches_wildcard(pattern: &str, s: &str) -> bool {
    let lower = |x: &str| x.to_ascii_lowercase();
    let (p, s) = (lower(pattern), lower(s));
    let Some(star) = p.find('*') else {
        return p == s;
    };
    let mut prefix = false;
    let (start, mut end): (&str, &str) = if star == 0 {
        ("", &p[1..])
    } else if star + 1 == p.len() {
        prefix = true;
        (&p[..star], "")
    } else {
        (&p[..star], &p[star + 1..])
    };
    if let Some(e) = end.strip_suffix('*') {
        end = e;
        prefix = true;
    }
    if !s.starts_with(start) {
        return false;
    }
    let tail = &s[start.len().min(s.len())..];
    if end.is_empty() {
        return true;
    }
    if prefix {
        tail.contains(end)
    } else {
        tail.ends_with(end)
    }
}

/// The `getenv` filter: names to import and to exclude (`WhiteBlackEnvFilter`).
#[derive(Clone, Debug, Default)]
pub struct EnvFilter {
    white: Vec<String>,
    black: Vec<String>,
    /// Leave out values that the V1 syntax cannot hold.
    pub v1_only: bool,
}

impl EnvFilter {
    /// Adds a `getenv` list: names and `*` wildcards, `!` to exclude.
    pub fn add_list(&mut self, list: &str) {
        for tok in list
            .split([',', ';', ' ', '\t', '\r', '\n'])
            .filter(|t| !t.is_empty())
        {
            match tok.strip_prefix('!') {
                Some(name) => {
                    let name = name.trim_matches(is_c_space);
                    if !name.is_empty() {
                        self.black.push(name.to_owned());
                    }
                }
                None => {
                    let name = tok.trim_matches(is_c_space);
                    if !name.is_empty() {
                        self.white.push(name.to_owned());
                    }
                }
            }
        }
    }

    pub fn accepts(&self, name: &str, value: &str) -> bool {
        if self.v1_only && value.contains([';', '\n']) {
            return false;
        }
        if value.contains('\n') {
            return false;
        }
        if self.black.iter().any(|p| matches_wildcard(p, name)) {
            return false;
        }
        if !self.white.is_empty() && !self.white.iter().any(|p| matches_wildcard(p, name)) {
            return false;
        }
        true
    }
}

/// C's `isspace`, of a character.
fn is_c_space(c: char) -> bool {
    c.is_ascii() && crate::classad::cnum::is_c_space(c as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v2(args: &str) -> String {
        let mut a = ArgList::default();
        a.append_v1_wacked_or_v2_quoted(args).unwrap();
        a.v2_raw()
    }

    /// `Env::MergeFrom(ClassAd)`: V2 `Environment` first, else V1 `Env` at its `EnvDelim`.
    #[test]
    fn merge_from_an_ad() {
        let mut e = Env::default();
        e.merge_from_ad(Some("A=1 'B=two words'"), Some("C=3"), None)
            .unwrap();
        assert_eq!(e.v2_raw(), "A=1 B=two' 'words");
        let mut e = Env::default();
        e.merge_from_ad(None, Some("A=1|B=2;x"), Some("|")).unwrap();
        assert_eq!(
            e.v1_raw().unwrap_err(),
            "Environment entry is not compatible with V1 syntax: B=2;x"
        );
        assert_eq!(e.v2_raw(), "A=1 B=2;x");
        let mut e = Env::default();
        e.merge_from_ad(None, None, Some("|")).unwrap();
        assert!(e.is_empty());
        // Merging over it: later values win, the others stay.
        let mut e = Env::default();
        e.merge_from_ad(Some("A=1 B=2"), None, None).unwrap();
        e.merge_v1_raw_or_v2_quoted("\"B=3 C=4\"").unwrap();
        assert_eq!(e.v2_raw(), "A=1 B=3 C=4");
    }

    #[test]
    fn arguments() {
        assert_eq!(
            v2(r#""one 'two three' ""quoted"" 'it''s' '' last""#),
            r#"one two' 'three "quoted" it''''s '' last"#
        );
        assert_eq!(v2(r#""   a    ''   b  ' c '  ""#), "a '' b ' 'c' '");
        let mut a = ArgList::default();
        a.append_v1_wacked_or_v2_quoted(r#"-f  input.txt --name=\"quoted\"   a	b   'single'"#)
            .unwrap();
        assert!(a.input_was_v1);
        assert_eq!(
            a.v1_raw().unwrap(),
            r#"-f input.txt --name="quoted" a b 'single'"#
        );
        let e = ArgList::default()
            .append_v1_wacked_or_v2_quoted("a\"b")
            .unwrap_err();
        assert_eq!(e, "Found illegal unescaped double-quote: \"b");
        let e = ArgList::default()
            .append_v1_wacked_or_v2_quoted("\"a 'b c\"")
            .unwrap_err();
        assert_eq!(e, "Unbalanced quote starting here: 'b c");
    }

    #[test]
    fn environment() {
        let mut e = Env::default();
        e.merge_v1_raw_or_v2_quoted(r#""A=1 B='x y' C=""q"" D= E='it''s'""#)
            .unwrap();
        assert_eq!(e.v2_raw(), r#"A=1 B=x' 'y C="q" D= E=it''''s"#);
        let mut e = Env::default();
        e.merge_v1_raw_or_v2_quoted("A=1;B=two words;C=").unwrap();
        assert_eq!(e.v2_raw(), "A=1 B=two' 'words C=");
        assert_eq!(e.v1_raw().unwrap(), "A=1;B=two words;C=");
        let err = Env::default()
            .merge_v1_raw_or_v2_quoted("A=1;JUNK;B=2")
            .unwrap_err();
        assert_eq!(err, "ERROR: Missing '=' after environment variable 'JUNK'.");
    }

    #[test]
    fn v1_wacked_or_v2_quoted() {
        let args = |words: &[&str]| ArgList {
            args: words.iter().map(|w| w.to_string()).collect(),
            input_was_v1: false,
        };
        assert_eq!(
            args(&["-p", "0", r#"say"hi""#]).v1_wacked_or_v2_quoted(),
            r#"-p 0 say\"hi\""#
        );
        let quoted =
            args(&["-CsdVersion", "$V: 1 $", r#"a"b"#, "", "it's"]).v1_wacked_or_v2_quoted();
        assert_eq!(quoted, r#""-CsdVersion $V:' '1' '$ a""b '' it''''s""#);
        let mut back = ArgList::default();
        back.append_v1_wacked_or_v2_quoted(&quoted).unwrap();
        assert_eq!(back.args, ["-CsdVersion", "$V: 1 $", r#"a"b"#, "", "it's"]);
        let mut e = Env::default();
        e.set("_B", "x y");
        e.set("A", r#"q"q"#);
        assert_eq!(e.v2_quoted(), r#""A=q""q _B=x' 'y""#);
    }

    #[test]
    fn wildcards() {
        assert!(matches_wildcard("FIXTURE_*", "fixture_color"));
        assert!(matches_wildcard("path", "PATH"));
        assert!(matches_wildcard("*_PATH", "FIXTURE_PATH"));
        assert!(matches_wildcard("F*R", "FOO_BAR"));
        assert!(!matches_wildcard("F*R", "FOO_BAZ"));
    }
}
