//! ClassAds in HTCondor's XML form read back (`ClassAdXMLParser`): `<c>` holds `<a n="name">`
//! attributes whose values are `<s>`, `<i>`, `<r>`, `<b v="t"/>`, `<un/>`, `<er/>`, `<e>`
//! (an expression in new syntax), `<at>`, `<rt>`, `<l>` lists and nested `<c>` ads.
//!
//! The ClassAd library prints this form but has no reader for it; the event log is its only
//! reader, so it lives here.

use crate::classad::lexer::unescape;
use crate::classad::{parse_expr, ClassAd, Expr, Value};

/// One tag: its name, attributes and whether it closes (`</a>`) or is empty (`<b/>`).
struct Tag<'a> {
    name: &'a str,
    attrs: &'a str,
    closing: bool,
    empty: bool,
}

struct XmlReader<'a> {
    src: &'a str,
    pos: usize,
}

/// Replaces the XML entities (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and numeric ones).
fn decode_entities(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let end = rest[i..]
            .find(';')
            .ok_or_else(|| format!("unterminated entity in {s:?}"))?;
        let name = &rest[i + 1..i + end];
        let c = match name {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            n if n.starts_with("#x") => u32::from_str_radix(&n[2..], 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| format!("bad entity &{n};"))?,
            n if n.starts_with('#') => n[1..]
                .parse::<u32>()
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| format!("bad entity &{n};"))?,
            n => return Err(format!("unknown entity &{n};")),
        };
        out.push(c);
        rest = &rest[i + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

impl<'a> XmlReader<'a> {
    fn skip_space(&mut self) {
        let rest = &self.src[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The next tag, skipping whitespace before it.
    fn tag(&mut self) -> Result<Tag<'a>, String> {
        self.skip_space();
        let rest = &self.src[self.pos..];
        if !rest.starts_with('<') {
            return Err(format!("expected a tag, found {:?}", head(rest)));
        }
        let end = rest.find('>').ok_or("unterminated tag")?;
        let mut inner = &rest[1..end];
        self.pos += end + 1;
        let closing = inner.starts_with('/');
        if closing {
            inner = &inner[1..];
        }
        let empty = inner.ends_with('/');
        if empty {
            inner = &inner[..inner.len() - 1];
        }
        let inner = inner.trim();
        let (name, attrs) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        Ok(Tag {
            name,
            attrs,
            closing,
            empty,
        })
    }

    fn peek_closing(&self, name: &str) -> bool {
        let rest = self.src[self.pos..].trim_start();
        rest.strip_prefix("</")
            .and_then(|r| r.strip_prefix(name))
            .is_some_and(|r| r.trim_start().starts_with('>'))
    }

    fn expect_close(&mut self, name: &str) -> Result<(), String> {
        let t = self.tag()?;
        if t.closing && t.name == name {
            Ok(())
        } else {
            Err(format!("expected </{name}>"))
        }
    }

    /// The raw text up to the next `<`.
    fn text(&mut self) -> &'a str {
        let rest = &self.src[self.pos..];
        let end = rest.find('<').unwrap_or(rest.len());
        self.pos += end;
        &rest[..end]
    }

    /// The content of an element whose start tag was read, up to its end tag.
    fn content(&mut self, tag: &Tag<'_>) -> Result<String, String> {
        if tag.empty {
            return Ok(String::new());
        }
        let text = self.text();
        self.expect_close(tag.name)?;
        decode_entities(text)
    }

    /// A value element, its start tag already read.
    fn value(&mut self, tag: Tag<'_>) -> Result<Expr, String> {
        let lit = |v: Value| Ok(Expr::Lit(v));
        match tag.name {
            "s" => {
                let text = self.content(&tag)?;
                // The text is written with ClassAd string escapes (but no quotes).
                let s = unescape(text.as_bytes()).ok_or("a string holding a NUL")?;
                lit(Value::string(s))
            }
            "i" => {
                let text = self.content(&tag)?;
                lit(Value::Int(text.trim().parse().unwrap_or(0)))
            }
            "r" => {
                let text = self.content(&tag)?;
                let r = match text.trim() {
                    "INF" => f64::INFINITY,
                    "-INF" => f64::NEG_INFINITY,
                    "NaN" => f64::NAN,
                    t => t.parse().map_err(|_| format!("bad real <r>{t}</r>"))?,
                };
                lit(Value::Real(r))
            }
            "b" => {
                let v = attr_value(tag.attrs, "v").unwrap_or("");
                if !tag.empty {
                    self.expect_close("b")?;
                }
                lit(Value::Bool(v.starts_with(['t', 'T'])))
            }
            "un" | "er" => {
                if !tag.empty {
                    self.expect_close(tag.name)?;
                }
                lit(if tag.name == "un" {
                    Value::Undefined
                } else {
                    Value::Error
                })
            }
            "e" | "at" | "rt" => {
                let text = self.content(&tag)?;
                let src = match tag.name {
                    "e" => text,
                    "at" => format!("absTime(\"{text}\")"),
                    _ => format!("relTime(\"{text}\")"),
                };
                parse_expr(&src).map_err(|e| format!("bad expression {src:?}: {e}"))
            }
            "l" => {
                let mut items = Vec::new();
                if !tag.empty {
                    while !self.peek_closing("l") {
                        let t = self.tag()?;
                        items.push(self.value(t)?);
                    }
                    self.expect_close("l")?;
                }
                Ok(Expr::List(items.into()))
            }
            "c" => Ok(Expr::Ad(Box::new(self.ad_body(&tag)?))),
            other => Err(format!("unknown value element <{other}>")),
        }
    }

    /// The attributes of an ad whose `<c>` was read, up to `</c>`.
    fn ad_body(&mut self, tag: &Tag<'_>) -> Result<ClassAd, String> {
        let mut ad = ClassAd::new();
        if tag.empty {
            return Ok(ad);
        }
        loop {
            let t = self.tag()?;
            match (t.name, t.closing) {
                ("c", true) => return Ok(ad),
                ("a", false) => {
                    let name = attr_value(t.attrs, "n").ok_or("<a> without a name")?;
                    let name = decode_entities(name)?;
                    let name = unescape(name.as_bytes()).ok_or("a name holding a NUL")?;
                    if t.empty {
                        continue;
                    }
                    let v = self.tag()?;
                    let e = self.value(v)?;
                    self.expect_close("a")?;
                    ad.insert(&name, e);
                }
                (other, _) => return Err(format!("unexpected <{other}> in an ad")),
            }
        }
    }
}

fn head(s: &str) -> &str {
    let end = s.char_indices().nth(20).map_or(s.len(), |(i, _)| i);
    &s[..end]
}

/// The value of `name="..."` among a tag's attributes.
fn attr_value<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = attrs;
    loop {
        let eq = rest.find('=')?;
        let key = rest[..eq].trim();
        let after = rest[eq + 1..].trim_start();
        let quote = after.chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let end = after[1..].find(quote)? + 1;
        if key == name {
            return Some(&after[1..end]);
        }
        rest = &after[end + 1..];
    }
}

/// Parses one `<c>...</c>` element (leading whitespace allowed, nothing after it).
pub(crate) fn parse_xml_ad(src: &str) -> Result<ClassAd, String> {
    let mut r = XmlReader { src, pos: 0 };
    let t = r.tag()?;
    if t.name != "c" || t.closing {
        return Err(format!("expected <c>, found <{}>", t.name));
    }
    let ad = r.ad_body(&t)?;
    r.skip_space();
    if r.pos != src.len() {
        return Err(format!(
            "unexpected text after </c>: {:?}",
            head(&src[r.pos..])
        ));
    }
    Ok(ad)
}

/// What the front of an XML log holds.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum XmlNext {
    /// Not a whole element yet.
    Incomplete,
    /// A prolog tag (`<?xml ...?>`, `<!DOCTYPE ...>`) or the `<classads>` wrapper, to skip:
    /// where it ends.
    Skip(usize),
    /// A whole `<c>` element: where it starts and ends (just past its `</c>`).
    Ad(usize, usize),
    /// Something else, at this offset.
    Junk(usize),
}

/// Finds the next thing in an XML log: a whole ad, a tag around the ads, or junk.
pub(crate) fn next_xml_ad(src: &str) -> XmlNext {
    let trimmed = src.trim_start();
    let start = src.len() - trimmed.len();
    if trimmed.is_empty() {
        return XmlNext::Incomplete;
    }
    let wrapper = ["<?", "<!", "<classads", "</classads"];
    if wrapper.iter().any(|w| trimmed.starts_with(w)) {
        return match trimmed.find('>') {
            Some(e) => XmlNext::Skip(start + e + 1),
            None => XmlNext::Incomplete,
        };
    }
    if !trimmed.starts_with("<c>") && !trimmed.starts_with("<c ") {
        let prefix_of = |w: &str| w.starts_with(trimmed);
        if wrapper.iter().any(|w| prefix_of(w)) || prefix_of("<c>") {
            return XmlNext::Incomplete;
        }
        return XmlNext::Junk(start);
    }
    let mut depth = 0usize;
    let mut i = start;
    while let Some(lt) = src[i..].find('<') {
        let at = i + lt;
        let Some(gt) = src[at..].find('>') else {
            return XmlNext::Incomplete;
        };
        let tag = &src[at + 1..at + gt];
        if tag == "c" || tag.starts_with("c ") {
            depth += 1;
        } else if tag == "/c" || tag.starts_with("/c ") {
            depth -= 1;
            if depth == 0 {
                return XmlNext::Ad(start, at + gt + 1);
            }
        }
        i = at + gt + 1;
    }
    XmlNext::Incomplete
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::unparse::{ad_to_string, xml_ad_attrs};

    #[test]
    fn reads_back_what_the_xml_printer_writes() {
        let ad = crate::classad::parse_ad(
            r#"[ S = "a<b\"c\n&é"; I = -7; R = 2.5; Z = 0.0; B = true; F = false; U = undefined; E = x + 1; L = { 1, "s" }; N = [ n = 1; m = { } ] ]"#,
        )
        .unwrap();
        let mut xml = String::new();
        xml_ad_attrs(&mut xml, ad.iter());
        let back = parse_xml_ad(&xml).unwrap();
        assert_eq!(ad_to_string(&back), ad_to_string(&ad));
    }

    #[test]
    fn finds_whole_ads_past_the_prolog() {
        let doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n<c>\n    <a n=\"N\"><c>\n    </c></a>\n</c>\n</classads>\n";
        let mut at = 0;
        let mut seen = Vec::new();
        loop {
            match next_xml_ad(&doc[at..]) {
                XmlNext::Skip(n) => {
                    seen.push(doc[at..at + n].trim().to_string());
                    at += n;
                }
                XmlNext::Ad(s, e) => {
                    seen.push("ad".to_string());
                    assert!(doc[at + s..at + e].ends_with("</c></a>\n</c>"));
                    at += e;
                }
                XmlNext::Incomplete => break,
                XmlNext::Junk(j) => panic!("junk at {j}"),
            }
        }
        assert_eq!(seen.len(), 5);
        assert_eq!(seen[3], "ad");
        assert_eq!(seen[4], "</classads>");
        assert_eq!(next_xml_ad("  junk"), XmlNext::Junk(2));
        assert_eq!(next_xml_ad("<cla"), XmlNext::Incomplete);
        assert_eq!(
            next_xml_ad("<c>\n<a n=\"x\"><i>1</i></a>"),
            XmlNext::Incomplete
        );
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(parse_xml_ad("<c><a n=\"x\"><q>1</q></a></c>")
            .unwrap_err()
            .contains("<q>"));
        assert!(parse_xml_ad("<c><a n=\"x\"><i>1</i></c>").is_err());
    }
}
