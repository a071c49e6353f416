//! The ClassAd lexer, as libclassad's `Lexer` tokenizes.
//!
//! Three dialects share it: new ClassAd syntax (the default), old syntax (as
//! `condor_q -long` prints: strings keep their backslashes, integers are
//! decimal only) and JSON (`null` is undefined). Its corners are the
//! reference's: a `-` directly before a digit is part of the number unless
//! the previous token was a value, integer literals are read in base 10 (so
//! `010` is ten and `0x10` is zero) and an out-of-range one is zero, adjacent
//! string literals are joined, and `?` followed by `:` (with only blanks
//! between) is the elvis operator.

use std::sync::Arc;

use super::intern::intern;

/// The text of a name or string token: a span of the source when it needs
/// no unescaping (the common case, no copy made), else text the lexer built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextRef {
    Span(u32, u32),
    Built(u32),
}

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tok {
    Int(i64),
    Real(f64),
    Bool(bool),
    Str(TextRef),
    Undefined,
    Error,
    Ident(TextRef),
    /// A JSON string written `"\/Expr(...)\/"`: the expression's text.
    JsonExpr(TextRef),
    Dot,
    Star,
    Slash,
    Percent,
    Plus,
    Minus,
    Tilde,
    Caret,
    QMark,
    Elvis,
    Colon,
    Semi,
    Comma,
    LBox,
    RBox,
    LParen,
    RParen,
    LBrace,
    RBrace,
    BitAnd,
    AndAnd,
    BitOr,
    OrOr,
    Lt,
    Le,
    Shl,
    Gt,
    Ge,
    Shr,
    UShr,
    Assign,
    EqEq,
    /// `=?=` (false) or the word `is` (true).
    MetaEq(bool),
    /// `=!=` (false) or the word `isnt` (true).
    MetaNe(bool),
    Bang,
    Ne,
    End,
    /// A character sequence that is no token; the text says why.
    Bad(&'static str),
}

impl Tok {
    /// How the reference names a token in its messages, lightly.
    pub fn describe(&self) -> String {
        match self {
            Tok::Int(i) => format!("integer {i}"),
            Tok::Real(_) => "real number".into(),
            Tok::Bool(b) => format!("'{b}'"),
            Tok::Str(_) => "string literal".into(),
            Tok::Undefined => "'undefined'".into(),
            Tok::Error => "'error'".into(),
            Tok::Ident(_) => "identifier".into(),
            Tok::End => "end of input".into(),
            Tok::Bad(why) => (*why).into(),
            other => format!("'{}'", other.punct()),
        }
    }

    fn punct(&self) -> &'static str {
        match self {
            Tok::Dot => ".",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Tilde => "~",
            Tok::Caret => "^",
            Tok::QMark => "?",
            Tok::Elvis => "?:",
            Tok::Colon => ":",
            Tok::Semi => ";",
            Tok::Comma => ",",
            Tok::LBox => "[",
            Tok::RBox => "]",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::BitAnd => "&",
            Tok::AndAnd => "&&",
            Tok::BitOr => "|",
            Tok::OrOr => "||",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Shl => "<<",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::Shr => ">>",
            Tok::UShr => ">>>",
            Tok::Assign => "=",
            Tok::EqEq => "==",
            Tok::MetaEq(true) => "is",
            Tok::MetaEq(false) => "=?=",
            Tok::MetaNe(true) => "isnt",
            Tok::MetaNe(false) => "=!=",
            Tok::Bang => "!",
            Tok::Ne => "!=",
            _ => "?",
        }
    }

    /// Tokens after which a `-` is the binary operator, not a sign.
    fn ends_operand(&self) -> bool {
        matches!(
            self,
            Tok::Int(_)
                | Tok::Real(_)
                | Tok::Bool(_)
                | Tok::Str(_)
                | Tok::Undefined
                | Tok::Error
                | Tok::Ident(_)
                | Tok::Dot
                | Tok::RBox
                | Tok::RParen
                | Tok::RBrace
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    New,
    Old,
    Json,
}

/// A token and the byte offset where it starts.
#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub tok: Tok,
    pub pos: usize,
}

pub struct Lexer<'a> {
    text: &'a str,
    /// Text of tokens that needed unescaping or joining, by `TextRef::Built`.
    built: Vec<Arc<str>>,
    src: &'a [u8],
    pos: usize,
    dialect: Dialect,
    /// Whether the previous token ended an operand (so '-' is an operator).
    last_operand: bool,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str, dialect: Dialect) -> Lexer<'a> {
        Lexer {
            text: src,
            built: Vec::new(),
            src: src.as_bytes(),
            pos: 0,
            dialect,
            last_operand: false,
        }
    }

    pub fn offset(&self) -> usize {
        self.pos
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.src.get(self.pos + k).copied()
    }

    pub fn next_token(&mut self) -> Token {
        let t = self.scan();
        self.last_operand = t.tok.ends_operand();
        t
    }

    fn scan(&mut self) -> Token {
        // White space and comments.
        loop {
            while self.pos < self.src.len() && is_space(self.src[self.pos]) {
                self.pos += 1;
            }
            match self.peek() {
                Some(b'/') if self.peek_at(1) == Some(b'/') => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                Some(b'/') if self.peek_at(1) == Some(b'*') => {
                    let start = self.pos;
                    self.pos += 2;
                    loop {
                        match self.peek() {
                            None => {
                                return Token {
                                    tok: Tok::Bad("unterminated comment"),
                                    pos: start,
                                };
                            }
                            Some(b'*') if self.peek_at(1) == Some(b'/') => {
                                self.pos += 2;
                                break;
                            }
                            Some(_) => self.pos += 1,
                        }
                    }
                }
                _ => break,
            }
        }
        let start = self.pos;
        let Some(c) = self.peek() else {
            return Token {
                tok: Tok::End,
                pos: start,
            };
        };
        // A NUL ends the input, as in the reference.
        if c == 0 {
            return Token {
                tok: Tok::End,
                pos: start,
            };
        }
        let tok = if (c == b'-' && !self.last_operand) || c.is_ascii_digit() || c == b'.' {
            self.number()
        } else if c.is_ascii_alphabetic() || c == b'_' {
            self.word()
        } else if c == b'"' || c == b'\'' {
            self.string(c)
        } else {
            self.punct()
        };
        Token { tok, pos: start }
    }

    fn word(&mut self) -> Tok {
        let start = self.pos;
        let src = self.src;
        let mut i = self.pos;
        while i < src.len() && src[i].is_ascii_alphabetic() {
            i += 1;
        }
        if i < src.len() && (src[i].is_ascii_digit() || src[i] == b'_') {
            while i < src.len() && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
                i += 1;
            }
            self.pos = i;
            return Tok::Ident(self.span(start, i));
        }
        self.pos = i;
        // Words are ASCII, so these are character boundaries.
        let w = &self.text[start..i];
        let json = self.dialect == Dialect::Json;
        // Only words of a keyword's length can be one (as the reference
        // switches on the length).
        let keyword = match w.len() {
            2 if w.eq_ignore_ascii_case("is") => Some(Tok::MetaEq(true)),
            4 if w.eq_ignore_ascii_case("isnt") => Some(Tok::MetaNe(true)),
            4 if w.eq_ignore_ascii_case("true") => Some(Tok::Bool(true)),
            4 if json && w.eq_ignore_ascii_case("null") => Some(Tok::Undefined),
            5 if w.eq_ignore_ascii_case("false") => Some(Tok::Bool(false)),
            5 if w.eq_ignore_ascii_case("error") => Some(Tok::Error),
            9 if !json && w.eq_ignore_ascii_case("undefined") => Some(Tok::Undefined),
            _ => None,
        };
        keyword.unwrap_or_else(|| Tok::Ident(self.span(start, i)))
    }

    /// A span of the source; both ends must sit next to ASCII characters
    /// (so they are character boundaries).
    fn span(&self, start: usize, end: usize) -> TextRef {
        TextRef::Span(start as u32, end as u32)
    }

    fn build(&mut self, text: &str) -> TextRef {
        self.built.push(Arc::from(text));
        TextRef::Built((self.built.len() - 1) as u32)
    }

    /// The text a token refers to.
    pub fn str_of(&self, r: TextRef) -> &str {
        match r {
            TextRef::Span(a, b) => &self.text[a as usize..b as usize],
            TextRef::Built(i) => &self.built[i as usize],
        }
    }

    /// The text a token refers to, shared (source spans are interned).
    pub fn text_of(&self, r: TextRef) -> Arc<str> {
        match r {
            TextRef::Span(a, b) => intern(&self.text[a as usize..b as usize]),
            TextRef::Built(i) => self.built[i as usize].clone(),
        }
    }

    fn number(&mut self) -> Tok {
        #[derive(PartialEq)]
        enum Kind {
            None,
            Int,
            Real,
        }
        let start = self.pos;
        let mut och = self.src[self.pos];
        self.pos += 1;
        if och == b'-' {
            match self.peek() {
                Some(c) if c.is_ascii_digit() => {
                    och = c;
                    self.pos += 1;
                }
                Some(b'.') if self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) => {
                    och = b'.';
                    self.pos += 1;
                }
                _ => return Tok::Minus,
            }
        }
        let mut kind = Kind::None;
        if och == b'0' {
            if self.peek().is_some_and(|c| c.eq_ignore_ascii_case(&b'x')) {
                kind = Kind::Int;
                self.pos += 1;
                if !self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    return Tok::Bad("malformed hexadecimal number");
                }
                while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    self.pos += 1;
                }
            } else {
                kind = Kind::Int;
                while let Some(c) = self.peek().filter(|c| c.is_ascii_digit()) {
                    if kind == Kind::Int && c > b'7' {
                        kind = Kind::Real;
                    }
                    self.pos += 1;
                }
                let next = self.peek();
                if next == Some(b'.') || next.is_some_and(|c| c.eq_ignore_ascii_case(&b'e')) {
                    kind = Kind::Real;
                } else if kind == Kind::Real {
                    return Tok::Bad("malformed octal number");
                }
            }
        } else if och.is_ascii_digit() {
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
            let next = self.peek();
            kind = if next == Some(b'.') || next.is_some_and(|c| c.eq_ignore_ascii_case(&b'e')) {
                Kind::Real
            } else {
                Kind::Int
            };
        }
        if och == b'.' || self.peek() == Some(b'.') {
            // As the reference, a second '.' is swallowed here: `..5` reads
            // as a (zero) real and `a..b` as `a.b`.
            if self.peek() == Some(b'.') {
                self.pos += 1;
            }
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                kind = Kind::Real;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
            } else if kind != Kind::None {
                return Tok::Bad("malformed real number");
            } else {
                return Tok::Dot;
            }
        }
        if kind == Kind::Real && self.peek().is_some_and(|c| c.eq_ignore_ascii_case(&b'e')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+') | Some(b'-')) {
                self.pos += 1;
            }
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Tok::Bad("malformed exponent");
            }
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        let text = std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("0");
        match kind {
            Kind::Int => {
                // HTCondor runs libclassad with old-ClassAd semantics, where
                // octal- and hex-looking integers are refused.
                if text.len() > 1 && text.as_bytes()[0] == b'0' {
                    return Tok::Bad(
                        "integer with a leading zero (octal and hexadecimal are not accepted)",
                    );
                }
                Tok::Int(decimal_prefix(text))
            }
            Kind::Real => Tok::Real(text.parse::<f64>().unwrap_or(0.0)),
            Kind::None => Tok::Dot,
        }
    }

    /// A literal with no escapes and no adjacent literal: the common case,
    /// taken straight from the source.
    fn plain_string(&mut self, delim: u8) -> Option<Tok> {
        let start = self.pos + 1;
        let len = self.src[start..]
            .iter()
            .position(|&c| c == delim || c == b'\\' || c == 0)?;
        let end = start + len;
        if self.src[end] != delim {
            return None;
        }
        let mut k = end + 1;
        while k < self.src.len() && is_space(self.src[k]) {
            k += 1;
        }
        if self.src.get(k) == Some(&delim) {
            return None;
        }
        // Quotes are ASCII, so `start` and `end` are character boundaries.
        let text = self.span(start, end);
        self.pos = end + 1;
        Some(if delim == b'"' {
            Tok::Str(text)
        } else {
            Tok::Ident(text)
        })
    }

    fn string(&mut self, delim: u8) -> Tok {
        if self.dialect == Dialect::Old {
            return self.string_old(delim);
        }
        if self.dialect == Dialect::New {
            if let Some(t) = self.plain_string(delim) {
                return t;
            }
        }
        let mut raw: Vec<u8> = Vec::new();
        self.pos += 1;
        loop {
            let mut odd = false;
            loop {
                let Some(c) = self.peek() else {
                    return Tok::Bad("unterminated string");
                };
                if c == 0 {
                    return Tok::Bad("unterminated string");
                }
                if c == delim && !odd {
                    break;
                }
                odd = !odd && c == b'\\';
                raw.push(c);
                self.pos += 1;
            }
            self.pos += 1; // the closing quote
                           // An adjacent literal with the same quote continues this one.
            let mut k = self.pos;
            while k < self.src.len() && is_space(self.src[k]) {
                k += 1;
            }
            if k < self.src.len() && self.src[k] == delim {
                self.pos = k + 1;
                continue;
            }
            break;
        }
        if self.dialect == Dialect::Json && delim == b'"' {
            if let Some(inner) = raw
                .strip_prefix(b"\\/Expr(")
                .and_then(|r| r.strip_suffix(b")\\/"))
            {
                return match unescape_json(inner) {
                    Some(t) => Tok::JsonExpr(self.build(&t)),
                    None => Tok::Bad("invalid escape in string"),
                };
            }
        }
        let text = if self.dialect == Dialect::Json {
            match unescape_json(&raw) {
                Some(t) => t,
                None => return Tok::Bad("invalid escape in string"),
            }
        } else {
            match unescape(&raw) {
                Some(t) => t,
                None => return Tok::Bad("NUL character in string"),
            }
        };
        let text = self.build(&text);
        if delim == b'"' {
            Tok::Str(text)
        } else {
            Tok::Ident(text)
        }
    }

    fn string_old(&mut self, delim: u8) -> Tok {
        self.pos += 1;
        let mut raw: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Tok::Bad("unterminated string");
            };
            if c == 0 {
                return Tok::Bad("unterminated string");
            }
            if c == delim {
                if raw.last() == Some(&b'\\') {
                    // `\"` followed by more text on the line is a literal quote.
                    match self.peek_at(1) {
                        Some(n) if n != b'\n' && n != 0 => {
                            *raw.last_mut().expect("nonempty") = delim;
                            self.pos += 1;
                            continue;
                        }
                        _ => {}
                    }
                }
                self.pos += 1;
                break;
            }
            raw.push(c);
            self.pos += 1;
        }
        let text = self.build(&String::from_utf8_lossy(&raw));
        if delim == b'"' {
            Tok::Str(text)
        } else {
            Tok::Ident(text)
        }
    }

    fn punct(&mut self) -> Tok {
        let c = self.src[self.pos];
        self.pos += 1;
        let next = self.peek();
        let take = |lexer: &mut Self, t: Tok| {
            lexer.pos += 1;
            t
        };
        match c {
            b'.' => Tok::Dot,
            b'*' => Tok::Star,
            b'/' => Tok::Slash,
            b'%' => Tok::Percent,
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'~' => Tok::Tilde,
            b'^' => Tok::Caret,
            b'?' => {
                let mut k = self.pos;
                while k < self.src.len() && is_space(self.src[k]) {
                    k += 1;
                }
                if self.src.get(k) == Some(&b':') {
                    self.pos = k + 1;
                    Tok::Elvis
                } else {
                    self.pos = k;
                    Tok::QMark
                }
            }
            b':' => Tok::Colon,
            b';' => Tok::Semi,
            b',' => Tok::Comma,
            b'[' => Tok::LBox,
            b']' => Tok::RBox,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b'&' if next == Some(b'&') => take(self, Tok::AndAnd),
            b'&' => Tok::BitAnd,
            b'|' if next == Some(b'|') => take(self, Tok::OrOr),
            b'|' => Tok::BitOr,
            b'<' if next == Some(b'=') => take(self, Tok::Le),
            b'<' if next == Some(b'<') => take(self, Tok::Shl),
            b'<' => Tok::Lt,
            b'>' if next == Some(b'=') => take(self, Tok::Ge),
            b'>' if next == Some(b'>') => {
                self.pos += 1;
                if self.peek() == Some(b'>') {
                    take(self, Tok::UShr)
                } else {
                    Tok::Shr
                }
            }
            b'>' => Tok::Gt,
            b'=' if next == Some(b'=') => take(self, Tok::EqEq),
            b'=' if next == Some(b'?') => {
                if self.peek_at(1) == Some(b'=') {
                    self.pos += 2;
                    Tok::MetaEq(false)
                } else {
                    Tok::Bad("'=?' must be followed by '='")
                }
            }
            b'=' if next == Some(b'!') && self.peek_at(1) == Some(b'=') => {
                self.pos += 2;
                Tok::MetaNe(false)
            }
            b'=' => Tok::Assign,
            b'!' if next == Some(b'=') => take(self, Tok::Ne),
            b'!' => Tok::Bang,
            _ => Tok::Bad("unexpected character"),
        }
    }
}

/// `std::from_chars(.., 10)` as libclassad calls it: the longest decimal
/// prefix (with an optional '-'), 0 when it is empty or out of range.
fn decimal_prefix(text: &str) -> i64 {
    let b = text.as_bytes();
    let mut end = usize::from(b.first() == Some(&b'-'));
    let digits_start = end;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    if end == digits_start {
        return 0;
    }
    text[..end].parse::<i64>().unwrap_or(0)
}

/// libclassad's `convert_escapes`: C escapes, up to three octal digits, and
/// any other escaped character standing for itself. `None` when the result
/// would hold a NUL.
pub fn unescape(raw: &[u8]) -> Option<String> {
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c == b'\\' && i + 1 < raw.len() {
            i += 1;
            let e = raw[i];
            let ch = match e {
                b'a' => 0x07,
                b'b' => 0x08,
                b'f' => 0x0c,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'v' => 0x0b,
                b'0'..=b'7' => {
                    let mut n: u32 = (e - b'0') as u32;
                    if i + 1 < raw.len() && (b'0'..=b'7').contains(&raw[i + 1]) {
                        i += 1;
                        n = (n << 3) + (raw[i] - b'0') as u32;
                        if n < 0x20 && i + 1 < raw.len() && (b'0'..=b'7').contains(&raw[i + 1]) {
                            i += 1;
                            n = (n << 3) + (raw[i] - b'0') as u32;
                        }
                    }
                    let byte = n as u8;
                    if byte == 0 {
                        return None;
                    }
                    byte
                }
                other => other,
            };
            out.push(ch);
        } else {
            out.push(c);
        }
        i += 1;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// JSON string escapes (`\uXXXX` with surrogate pairs, `\/`, ...).
pub fn unescape_json(raw: &[u8]) -> Option<String> {
    let mut quoted = Vec::with_capacity(raw.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(raw);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted)
        .ok()
        .filter(|s| !s.contains('\0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).0
    }

    /// The tokens, and the texts of the name and string tokens.
    fn lex(s: &str) -> (Vec<Tok>, Vec<String>) {
        let mut l = Lexer::new(s, Dialect::New);
        let (mut v, mut texts) = (Vec::new(), Vec::new());
        loop {
            let t = l.next_token().tok;
            if t == Tok::End {
                return (v, texts);
            }
            if let Tok::Str(r) | Tok::Ident(r) = t {
                texts.push(l.str_of(r).to_string());
            }
            let bad = matches!(t, Tok::Bad(_));
            v.push(t);
            if bad {
                return (v, texts);
            }
        }
    }

    #[test]
    fn numbers_as_the_reference_reads_them() {
        assert!(matches!(toks("010")[0], Tok::Bad(_)));
        assert!(matches!(toks("0x10")[0], Tok::Bad(_)));
        assert_eq!(toks("0"), [Tok::Int(0)]);
        assert_eq!(toks("99999999999999999999"), [Tok::Int(0)]);
        assert_eq!(toks("-5"), [Tok::Int(-5)]);
        assert_eq!(toks("1 -5"), [Tok::Int(1), Tok::Minus, Tok::Int(5)]);
        assert_eq!(toks(".5"), [Tok::Real(0.5)]);
        assert_eq!(toks("08.5"), [Tok::Real(8.5)]);
        assert!(matches!(toks("09")[0], Tok::Bad(_)));
        assert!(matches!(toks("1.")[0], Tok::Bad(_)));
        assert_eq!(toks("1e3"), [Tok::Real(1000.0)]);
    }

    #[test]
    fn strings_and_words() {
        assert_eq!(lex(r#""a" "b""#).1, ["ab"]);
        assert_eq!(
            lex(r#""A
""#)
            .1,
            ["A
"]
        );
        assert_eq!(lex("'a b'").1, ["a b"]);
        let (t, texts) = lex("TRUE isnt x_1");
        assert!(matches!(
            t[..],
            [Tok::Bool(true), Tok::MetaNe(true), Tok::Ident(_)]
        ));
        assert_eq!(texts, ["x_1"]);
        assert!(matches!(
            toks("a ? : b")[..],
            [Tok::Ident(_), Tok::Elvis, Tok::Ident(_)]
        ));
        assert_eq!(
            toks(">>> =?= =!="),
            [Tok::UShr, Tok::MetaEq(false), Tok::MetaNe(false)]
        );
    }
}
