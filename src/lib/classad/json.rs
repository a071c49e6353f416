//! HTCondor's JSON form of ads, read back: objects are ads, arrays lists,
//! `null` undefined, and a string written `"\/Expr(...)\/"` (with the
//! escaped slashes, as HTCondor writes it) an expression.
//!
//! The reader shares the ClassAd lexer in its JSON dialect, so numbers read
//! as the reference reads them (an integer too large for 64 bits is 0).

use super::ad::ClassAd;
use super::ast::Expr;
use super::lexer::{Dialect, Lexer, Tok, Token};
use super::parser::{parse_expr, ParseError};
use super::value::Value;

struct JsonReader<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    tok: Token,
}

impl<'a> JsonReader<'a> {
    fn new(src: &'a str) -> Self {
        let mut lexer = Lexer::new(src, Dialect::Json);
        let tok = lexer.next_token();
        JsonReader { src, lexer, tok }
    }

    fn bump(&mut self) -> Token {
        let next = self.lexer.next_token();
        std::mem::replace(&mut self.tok, next)
    }

    fn err<T>(&self, expected: &str) -> Result<T, ParseError> {
        let found = match &self.tok.tok {
            Tok::Bad(why) => why.to_string(),
            t => format!("found {}", t.describe()),
        };
        let before = &self.src.as_bytes()[..self.tok.pos.min(self.src.len())];
        Err(ParseError {
            offset: self.tok.pos,
            line: before.iter().filter(|&&c| c == b'\n').count() + 1,
            column: before.iter().rev().take_while(|&&c| c != b'\n').count() + 1,
            message: format!("expected {expected}, {found}"),
        })
    }

    fn value(&mut self, depth: usize) -> Result<Expr, ParseError> {
        if depth > super::parser::MAX_DEPTH {
            return self.err("a shallower document");
        }
        let e = match self.tok.tok {
            Tok::LBrace => return Ok(Expr::Ad(Box::new(self.object(depth + 1)?))),
            Tok::LBox => return self.array(depth + 1),
            Tok::Undefined => Expr::Lit(Value::Undefined),
            Tok::Bool(b) => Expr::Lit(Value::Bool(b)),
            Tok::Int(i) => Expr::Lit(Value::Int(i)),
            Tok::Real(r) => Expr::Lit(Value::Real(r)),
            Tok::Str(s) => Expr::Lit(Value::Str(self.lexer.text_of(s))),
            Tok::JsonExpr(text) => match parse_expr(self.lexer.str_of(text)) {
                Ok(e) => e,
                Err(_) => return self.err("a valid expression inside \\/Expr()\\/"),
            },
            _ => return self.err("a JSON value"),
        };
        self.bump();
        Ok(e)
    }

    fn array(&mut self, depth: usize) -> Result<Expr, ParseError> {
        self.bump();
        let mut items = Vec::new();
        if self.tok.tok == Tok::RBox {
            self.bump();
            return Ok(Expr::List(items.into()));
        }
        loop {
            items.push(self.value(depth)?);
            match self.tok.tok {
                Tok::Comma => {
                    self.bump();
                }
                Tok::RBox => {
                    self.bump();
                    return Ok(Expr::List(items.into()));
                }
                _ => return self.err("',' or ']'"),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<ClassAd, ParseError> {
        if self.tok.tok != Tok::LBrace {
            return self.err("'{'");
        }
        self.bump();
        let mut ad = ClassAd::new();
        if self.tok.tok == Tok::RBrace {
            self.bump();
            return Ok(ad);
        }
        loop {
            // HTCondor's reader tolerates a trailing comma.
            if self.tok.tok == Tok::RBrace {
                self.bump();
                return Ok(ad);
            }
            let Tok::Str(name) = self.tok.tok else {
                return self.err("an attribute name in double quotes");
            };
            let name = self.lexer.text_of(name);
            if name.is_empty() {
                return self.err("a non-empty attribute name");
            }
            self.bump();
            if self.tok.tok != Tok::Colon {
                return self.err("':'");
            }
            self.bump();
            let e = self.value(depth)?;
            ad.insert(&name, e);
            match self.tok.tok {
                Tok::Comma => {
                    self.bump();
                }
                Tok::RBrace => {
                    self.bump();
                    return Ok(ad);
                }
                _ => return self.err("',' or '}'"),
            }
        }
    }
}

/// Parses the first ad of a JSON document: an object, or an array of them.
pub fn parse_json_ads(src: &str) -> Result<Vec<ClassAd>, ParseError> {
    let mut r = JsonReader::new(src);
    let ads = if r.tok.tok == Tok::LBox {
        r.bump();
        let mut ads = Vec::new();
        if r.tok.tok == Tok::RBox {
            r.bump();
        } else {
            loop {
                ads.push(r.object(1)?);
                match r.tok.tok {
                    Tok::Comma => {
                        r.bump();
                    }
                    Tok::RBox => {
                        r.bump();
                        break;
                    }
                    _ => return r.err("',' or ']'"),
                }
            }
        }
        ads
    } else {
        vec![r.object(1)?]
    };
    if r.tok.tok != Tok::End {
        return r.err("end of input");
    }
    Ok(ads)
}

/// Parses the first JSON ad of `src`, ignoring whatever follows it (as the
/// reference's file reader does).
pub fn parse_first_json_ad(src: &str) -> Result<ClassAd, ParseError> {
    let mut r = JsonReader::new(src);
    r.object(1)
}
