//! What `classad_eval` does with its steps: build up the context ad, print
//! it before the first result after each change (unless quiet), evaluate
//! expressions against it (and the target ad) and print the results in new
//! syntax — as HTCondor's classad_eval script does with the classad2 module.

use std::io::Write;
use std::path::Path;

use super::ad::ClassAd;
use super::eval::eval_expr;
use super::parser::{parse_ad, parse_expr, parse_old_ad};
use super::unparse::{ad_to_string, value_to_string};
use crate::error::CommandError;
use crate::tools::classad_eval::EvalItem;

/// An argument as an ad: `[ a = 1 ]`, or the inside of one (`a = 1; b = 2`).
fn arg_as_ad(text: &str) -> Option<ClassAd> {
    parse_ad(text)
        .or_else(|_| parse_ad(&format!("[{text}]")))
        .ok()
}

/// A file's first ad: new syntax (also as `condor_q -long:new` wraps it in
/// `{ ... }`), old syntax (`condor_q -long`), or JSON.
pub fn read_ad_file(path: &Path) -> Result<ClassAd, CommandError> {
    let unable = || {
        CommandError::failed(
            1,
            format!("Unable to turn file '{}' into a ClassAd.", path.display()),
        )
    };
    let text = std::fs::read_to_string(path).map_err(|_| unable())?;
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .filter(|t| t.trim_start().starts_with('['))
        .unwrap_or(trimmed);
    if inner.starts_with('[') {
        let mut p = super::parser::Parser::new(inner, super::lexer::Dialect::New);
        if let Ok(ad) = p.classad() {
            return Ok(ad);
        }
    }
    if let Some(ad) = arg_as_ad(trimmed) {
        return Ok(ad);
    }
    if trimmed.starts_with('{') || trimmed.starts_with("[\n{") {
        if let Ok(mut ads) = super::json::parse_json_ads(trimmed) {
            if !ads.is_empty() {
                return Ok(ads.swap_remove(0));
            }
        }
    }
    let first_ad = trimmed.split("\n\n").next().unwrap_or("");
    match parse_old_ad(first_ad) {
        Ok(ad) if !ad.is_empty() => Ok(ad),
        _ => Err(unable()),
    }
}

/// Runs `classad_eval`'s steps in order.
pub fn run(
    items: &[EvalItem],
    out: &mut dyn Write,
    _err: &mut dyn Write,
) -> Result<(), CommandError> {
    let mut my = ClassAd::new();
    let mut target: Option<ClassAd> = None;
    let mut quiet = false;
    let mut updated = true;
    for item in items {
        match item {
            EvalItem::Quiet => quiet = true,
            EvalItem::Debug => {}
            EvalItem::MyFile(path) => my = read_ad_file(path)?,
            EvalItem::TargetFile(path) => target = Some(read_ad_file(path)?),
            EvalItem::Arg(text) => {
                if let Some(ad) = arg_as_ad(text) {
                    my.update(&ad);
                    updated = true;
                    continue;
                }
                if updated {
                    updated = false;
                    if !quiet {
                        writeln!(out, "{}", ad_to_string(&my))?;
                    }
                }
                let expr = parse_expr(text).map_err(|e| {
                    CommandError::failed(
                        1,
                        format!("Unable to turn '{text}' into a ClassAd or an expression: {e}."),
                    )
                })?;
                let value = eval_expr(&expr, Some(&my), target.as_ref()).map_err(|e| {
                    CommandError::failed(1, format!("{e} '{text}' (circular or too deep)"))
                })?;
                writeln!(out, "{}", value_to_string(&value))?;
            }
        }
    }
    Ok(())
}
