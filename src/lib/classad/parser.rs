//! The ClassAd parser: recursive descent for the ternary, unary and postfix
//! levels as libclassad has them, precedence climbing for the binary
//! operators (see `binary_prec`).
//!
//! Entry points parse a whole input (anything left over is an error, as the
//! reference's full parse) in new syntax, old syntax or JSON.

use std::sync::Arc;

use thiserror::Error;

use super::ad::ClassAd;
use super::ast::{BinOp, Expr, FnCall, ScopeKw, UnOp};
use super::functions;
use super::lexer::{Dialect, Lexer, Tok, Token};
use super::value::Value;

/// How deep expressions may nest before the parser refuses them; it keeps
/// the parser and the evaluator well inside a thread's stack.
pub const MAX_DEPTH: usize = 200;

/// How many binary operators, selections and subscripts one expression may
/// chain. Chains are parsed by iteration, but they make the tree taller, and
/// printing and evaluating a tree recurse through its height.
pub const MAX_LINKS: usize = 2000;

/// A parse error: where, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message} at line {line}, column {column}")]
pub struct ParseError {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl ParseError {
    fn at(src: &str, offset: usize, message: String) -> ParseError {
        let before = &src.as_bytes()[..offset.min(src.len())];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let column = before.iter().rev().take_while(|&&c| c != b'\n').count() + 1;
        ParseError {
            offset,
            line,
            column,
            message,
        }
    }
}

pub struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    tok: Token,
    /// The token after `tok`, so that a lone literal can be recognised
    /// without descending through every precedence level.
    ahead: Token,
    depth: usize,
    links: usize,
}

type PResult<T> = Result<T, ParseError>;

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, dialect: Dialect) -> Parser<'a> {
        let mut lexer = Lexer::new(src, dialect);
        let tok = lexer.next_token();
        let ahead = lexer.next_token();
        Parser {
            src,
            lexer,
            tok,
            ahead,
            depth: 0,
            links: 0,
        }
    }

    fn bump(&mut self) -> Token {
        let next = self.lexer.next_token();
        let ahead = std::mem::replace(&mut self.ahead, next);
        std::mem::replace(&mut self.tok, ahead)
    }

    fn err<T>(&self, expected: &str) -> PResult<T> {
        let found = match &self.tok.tok {
            Tok::Bad(why) => why.to_string(),
            Tok::Ident(r) => format!("found identifier '{}'", self.lexer.str_of(*r)),
            t => format!("found {}", t.describe()),
        };
        Err(ParseError::at(
            self.src,
            self.tok.pos,
            format!("expected {expected}, {found}"),
        ))
    }

    /// Consumes a token of the given kind (payload-free kinds only).
    fn expect(&mut self, t: Tok, what: &str) -> PResult<()> {
        if std::mem::discriminant(&self.tok.tok) == std::mem::discriminant(&t) {
            self.bump();
            Ok(())
        } else {
            self.err(what)
        }
    }

    pub fn at_end(&self) -> bool {
        matches!(self.tok.tok, Tok::End)
    }

    pub fn expect_end(&self) -> PResult<()> {
        if self.at_end() {
            Ok(())
        } else {
            self.err("end of input")
        }
    }

    fn link(&mut self) -> PResult<()> {
        self.links += 1;
        if self.links > MAX_LINKS {
            return Err(ParseError::at(
                self.src,
                self.tok.pos,
                format!("expression has more than {MAX_LINKS} operators"),
            ));
        }
        Ok(())
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::at(
                self.src,
                self.tok.pos,
                format!("expression nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        Ok(())
    }

    /// Expression ::= LogicalOr | LogicalOr '?' Expression ':' Expression
    pub fn expression(&mut self) -> PResult<Expr> {
        // Most attribute values are a single literal or name.
        if matches!(
            self.ahead.tok,
            Tok::Semi | Tok::RBox | Tok::Comma | Tok::RParen | Tok::RBrace | Tok::Colon | Tok::End
        ) {
            let simple = match &self.tok.tok {
                Tok::Int(i) => Some(Expr::Lit(Value::Int(*i))),
                Tok::Real(r) => Some(Expr::Lit(Value::Real(*r))),
                Tok::Bool(b) => Some(Expr::Lit(Value::Bool(*b))),
                Tok::Undefined => Some(Expr::Lit(Value::Undefined)),
                Tok::Error => Some(Expr::Lit(Value::Error)),
                Tok::Str(s) => Some(Expr::Lit(Value::Str(self.lexer.text_of(*s)))),
                Tok::Ident(n) => Some(Expr::Attr(self.lexer.text_of(*n))),
                _ => None,
            };
            if let Some(e) = simple {
                self.bump();
                return Ok(e);
            }
        }
        self.enter()?;
        let cond = self.binary(1)?;
        let out = if matches!(self.tok.tok, Tok::QMark) {
            self.bump();
            let then = self.expression()?;
            self.expect(Tok::Colon, "':'")?;
            let other = self.expression()?;
            Expr::Ternary(Box::new(cond), Box::new(then), Box::new(other))
        } else {
            cond
        };
        self.depth -= 1;
        Ok(out)
    }

    /// Left-associative binary operators from precedence level `min` up.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = match self.tok.tok {
            Tok::Minus | Tok::Plus | Tok::Tilde | Tok::Bang => self.unary()?,
            _ => self.postfix()?,
        };
        while let Some((op, prec, spelled)) = binary_prec(&self.tok.tok) {
            if prec < min {
                break;
            }
            self.link()?;
            self.bump();
            self.enter()?;
            let rhs = self.binary(prec + 1)?;
            self.depth -= 1;
            lhs = Expr::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
                spelled,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        let op = match self.tok.tok {
            Tok::Minus => UnOp::Minus,
            Tok::Plus => UnOp::Plus,
            Tok::Tilde => UnOp::BitNot,
            Tok::Bang => UnOp::Not,
            _ => return self.postfix(),
        };
        self.enter()?;
        self.bump();
        let e = self.unary()?;
        self.depth -= 1;
        Ok(Expr::Unary(op, Box::new(e)))
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            if matches!(self.tok.tok, Tok::LBox | Tok::Elvis | Tok::Dot) {
                self.link()?;
            }
            match self.tok.tok {
                Tok::LBox => {
                    self.bump();
                    let idx = self.expression()?;
                    self.expect(Tok::RBox, "']'")?;
                    e = Expr::binary(BinOp::Subscript, e, idx);
                }
                Tok::Elvis => {
                    self.bump();
                    self.enter()?;
                    let rhs = self.postfix()?;
                    self.depth -= 1;
                    e = Expr::binary(BinOp::Elvis, e, rhs);
                }
                Tok::Dot => {
                    self.bump();
                    if !matches!(self.tok.tok, Tok::Ident(_)) {
                        return self.err("an attribute name after '.'");
                    }
                    let Tok::Ident(name) = self.bump().tok else {
                        unreachable!()
                    };
                    let name = self.lexer.text_of(name);
                    e = match e {
                        Expr::Attr(prefix) if prefix.eq_ignore_ascii_case("my") => Expr::Scoped {
                            scope: ScopeKw::My,
                            prefix,
                            name,
                        },
                        Expr::Attr(prefix) if prefix.eq_ignore_ascii_case("target") => {
                            Expr::Scoped {
                                scope: ScopeKw::Target,
                                prefix,
                                name,
                            }
                        }
                        other => Expr::Select(Box::new(other), name),
                    };
                }
                _ => return Ok(e),
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let literal = match &self.tok.tok {
            Tok::Ident(_) => {
                let Tok::Ident(name) = self.bump().tok else {
                    unreachable!()
                };
                let name = self.lexer.text_of(name);
                if matches!(self.tok.tok, Tok::LParen) {
                    let args = self.arguments()?;
                    return match make_call(&name, args) {
                        Some(e) => Ok(e),
                        None => self.err("a valid time in absTime()/relTime()"),
                    };
                }
                return Ok(Expr::Attr(name));
            }
            Tok::Dot => {
                self.bump();
                if !matches!(self.tok.tok, Tok::Ident(_)) {
                    return self.err("an attribute name after '.'");
                }
                let Tok::Ident(name) = self.bump().tok else {
                    unreachable!()
                };
                let name = self.lexer.text_of(name);
                return Ok(Expr::Absolute(name));
            }
            Tok::LParen => {
                self.bump();
                let e = self.expression()?;
                self.expect(Tok::RParen, "')'")?;
                return Ok(Expr::Paren(Box::new(e)));
            }
            Tok::LBox => return Ok(Expr::Ad(Box::new(self.classad()?))),
            Tok::LBrace => return self.list(),
            Tok::Undefined => Value::Undefined,
            Tok::Error => Value::Error,
            Tok::Bool(b) => Value::Bool(*b),
            Tok::Int(i) => Value::Int(*i),
            Tok::Real(r) => Value::Real(*r),
            Tok::Str(_) => {
                let Tok::Str(s) = self.bump().tok else {
                    unreachable!()
                };
                let s = self.lexer.text_of(s);
                return Ok(Expr::Lit(Value::Str(s)));
            }
            _ => return self.err("an expression"),
        };
        self.bump();
        Ok(Expr::Lit(literal))
    }

    fn arguments(&mut self) -> PResult<Vec<Expr>> {
        self.expect(Tok::LParen, "'('")?;
        let mut args = Vec::new();
        let mut more = !matches!(self.tok.tok, Tok::RParen);
        while more {
            args.push(self.expression()?);
            // After a separator another argument must follow, as in the
            // reference; old-ClassAd semantics also take ';' as a separator.
            match self.tok.tok {
                Tok::Comma | Tok::Semi => {
                    self.bump();
                }
                Tok::RParen => more = false,
                _ => return self.err("',' or ')'"),
            }
        }
        self.bump();
        Ok(args)
    }

    fn list(&mut self) -> PResult<Expr> {
        self.enter()?;
        self.expect(Tok::LBrace, "'{'")?;
        let mut items = Vec::new();
        let mut more = !matches!(self.tok.tok, Tok::RBrace);
        while more {
            items.push(self.expression()?);
            match self.tok.tok {
                Tok::Comma => {
                    self.bump();
                }
                Tok::RBrace => more = false,
                _ => return self.err("',' or '}'"),
            }
        }
        self.bump();
        self.depth -= 1;
        Ok(Expr::List(items.into()))
    }

    /// ClassAd ::= '[' (Name '=' Expression (';')*)* ']'
    pub fn classad(&mut self) -> PResult<ClassAd> {
        self.enter()?;
        self.expect(Tok::LBox, "'['")?;
        let mut attrs: Vec<(Arc<str>, Expr)> = Vec::with_capacity(16);
        let mut leading_semi = false;
        loop {
            match &self.tok.tok {
                // The reference accepts stray ';' before an attribute, but not
                // a ';' just before the closing ']' that no attribute follows.
                Tok::RBox if leading_semi => return self.err("an attribute name"),
                Tok::RBox => break,
                Tok::Semi => {
                    self.bump();
                    leading_semi = true;
                    continue;
                }
                Tok::Ident(_) => {
                    let Tok::Ident(name) = self.bump().tok else {
                        unreachable!()
                    };
                    let name = self.lexer.text_of(name);
                    self.expect(Tok::Assign, "'=' after the attribute name")?;
                    if self.depth == 1 {
                        self.links = 0;
                    }
                    let e = self.expression()?;
                    attrs.push((name, e));
                    if !matches!(self.tok.tok, Tok::Semi | Tok::RBox) {
                        return self.err("';' or ']'");
                    }
                    while matches!(self.tok.tok, Tok::Semi) {
                        self.bump();
                    }
                    leading_semi = false;
                }
                _ => return self.err("an attribute name or ']'"),
            }
        }
        self.bump();
        self.depth -= 1;
        Ok(ClassAd::from_attrs(attrs))
    }
}

/// Precedence levels as libclassad's `PrecedenceLevel` (higher binds tighter).
fn binary_prec(t: &Tok) -> Option<(BinOp, u8, bool)> {
    Some(match *t {
        Tok::OrOr => (BinOp::Or, 1, false),
        Tok::AndAnd => (BinOp::And, 2, false),
        Tok::BitOr => (BinOp::BitOr, 3, false),
        Tok::Caret => (BinOp::BitXor, 4, false),
        Tok::BitAnd => (BinOp::BitAnd, 5, false),
        Tok::EqEq => (BinOp::Eq, 6, false),
        Tok::Ne => (BinOp::Ne, 6, false),
        Tok::MetaEq(w) => (BinOp::MetaEq, 6, w),
        Tok::MetaNe(w) => (BinOp::MetaNe, 6, w),
        Tok::Lt => (BinOp::Lt, 7, false),
        Tok::Le => (BinOp::Le, 7, false),
        Tok::Gt => (BinOp::Gt, 7, false),
        Tok::Ge => (BinOp::Ge, 7, false),
        Tok::Shl => (BinOp::Shl, 8, false),
        Tok::Shr => (BinOp::Shr, 8, false),
        Tok::UShr => (BinOp::UShr, 8, false),
        Tok::Plus => (BinOp::Add, 9, false),
        Tok::Minus => (BinOp::Sub, 9, false),
        Tok::Star => (BinOp::Mul, 10, false),
        Tok::Slash => (BinOp::Div, 10, false),
        Tok::Percent => (BinOp::Mod, 10, false),
        _ => return None,
    })
}

/// A call node; `absTime("...")` and `relTime("...")` of a string literal
/// are read at parse time, as in the reference, and text that is no time
/// there is a parse error (`None`).
fn make_call(name: &str, args: Vec<Expr>) -> Option<Expr> {
    if args.len() == 1 {
        if let Some(Value::Str(s)) = args[0].as_literal() {
            if name.eq_ignore_ascii_case("absTime") {
                return functions::time::parse_abstime(s).map(|t| Expr::Lit(Value::AbsTime(t)));
            } else if name.eq_ignore_ascii_case("relTime") {
                // The reference's relTime literal prints as relTime("...")
                // but evaluates to a real.
                return functions::time::parse_reltime(s).map(functions::time::reltime_literal);
            }
        }
    }
    Some(Expr::Call(Box::new(FnCall {
        name: Arc::from(name),
        builtin: functions::lookup(name),
        args,
    })))
}

/// Parses one whole expression in new syntax.
pub fn parse_expr(src: &str) -> Result<Expr, ParseError> {
    let mut p = Parser::new(src, Dialect::New);
    let e = p.expression()?;
    p.expect_end()?;
    Ok(e)
}

/// Parses one whole ad in new syntax (`[ a = 1; b = 2 ]`).
pub fn parse_ad(src: &str) -> Result<ClassAd, ParseError> {
    let mut p = Parser::new(src, Dialect::New);
    let ad = p.classad()?;
    p.expect_end()?;
    Ok(ad)
}

/// Parses the first new-syntax ad of `src`, ignoring what follows it (as
/// the reference's ClassAd constructor and file readers do).
pub fn parse_first_ad(src: &str) -> Result<ClassAd, ParseError> {
    Parser::new(src, Dialect::New).classad()
}

/// Parses an expression as an old-syntax attribute value.
pub fn parse_old_expr(src: &str) -> Result<Expr, ParseError> {
    let mut p = Parser::new(src, Dialect::Old);
    let e = p.expression()?;
    p.expect_end()?;
    Ok(e)
}

/// Parses `Name = expr` (an assignment, as old-syntax lines and
/// `classad_eval` arguments are written), in the given dialect.
pub fn parse_assignment(src: &str, dialect: Dialect) -> Result<(String, Expr), ParseError> {
    let mut p = Parser::new(src, dialect);
    if !matches!(p.tok.tok, Tok::Ident(_)) {
        return p.err("an attribute name");
    }
    let Tok::Ident(name) = p.bump().tok else {
        unreachable!()
    };
    let name = p.lexer.text_of(name);
    let name = name.to_string();
    p.expect(Tok::Assign, "'=' after the attribute name")?;
    let e = p.expression()?;
    p.expect_end()?;
    Ok((name, e))
}

/// Parses old-syntax ads: `Name = expr` lines; blank lines separate ads,
/// lines starting with `#` are comments. Errors name the line.
pub fn parse_old_ads(src: &str) -> Result<Vec<ClassAd>, ParseError> {
    let mut ads = Vec::new();
    let mut cur = ClassAd::new();
    let mut any = false;
    let mut offset = 0;
    for (lineno, line) in src.split('\n').enumerate() {
        let line_start = offset;
        offset += line.len() + 1;
        let text = line.trim_end_matches('\r').trim();
        if text.is_empty() {
            if any {
                ads.push(std::mem::take(&mut cur));
                any = false;
            }
            continue;
        }
        if text.starts_with('#') {
            continue;
        }
        let at_line = |e: ParseError, col_base: usize| ParseError {
            offset: line_start + col_base + e.offset,
            line: lineno + 1,
            column: col_base + e.column,
            message: e.message,
        };
        // The name is everything before the first '=' (as the reference's
        // long-form reader takes it, quotes and all).
        let Some(eq) = text.find('=') else {
            return Err(at_line(
                ParseError::at(text, text.len(), "expected 'Name = value'".into()),
                0,
            ));
        };
        let name = text[..eq].trim_end_matches(' ');
        if name.is_empty() {
            return Err(at_line(
                ParseError::at(text, 0, "expected an attribute name".into()),
                0,
            ));
        }
        let value_text = &text[eq + 1..];
        match parse_old_expr(value_text) {
            Ok(e) => {
                cur.insert(name, e);
                any = true;
            }
            Err(e) => return Err(at_line(e, eq + 1)),
        }
    }
    if any {
        ads.push(cur);
    }
    Ok(ads)
}

/// Parses the first old-syntax ad of `src` (up to the first blank line).
pub fn parse_old_ad(src: &str) -> Result<ClassAd, ParseError> {
    Ok(parse_old_ads(src)?.into_iter().next().unwrap_or_default())
}
