//! `condor_config_val -set` and `-unset`: persistent changes, written into the user's
//! configuration file (`USER_CONFIG_FILE`) instead of a running daemon's persistent files.
//!
//! `-set "NAME = value"` removes the file's top-level definitions of NAME (single or continued
//! lines and `@=` blocks) and appends the new one; `-unset NAME` removes them, so the knob
//! reverts to what the other sources say. Other lines, comments included, are kept.

use std::io;
use std::path::Path;

use super::expand::is_valid_name;
use super::metaknobs;
use super::reader::is_space;

/// A checked `-set` argument: the name it sets and the line to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// The knob's name, or `$CATEGORY.TEMPLATE` for `use CATEGORY:TEMPLATE`.
    pub name: String,
    pub line: String,
}

/// Checks `NAME = value` (or `use CATEGORY:TEMPLATE`) as HTCondor's
/// `is_valid_config_assignment` does; `Err` holds the name to complain about.
pub fn parse_assignment(text: &str) -> Result<Assignment, String> {
    let text = text.trim_start_matches(is_space);
    if text.len() >= 4 && text[..4].eq_ignore_ascii_case("use ") {
        let rest = text[4..].trim_start_matches(is_space);
        let Some((category, options)) = rest.split_once(':') else {
            return Err(rest.to_owned());
        };
        let category = category.trim_end_matches(is_space);
        let options: Vec<&str> = options
            .split(|c: char| c == ',' || is_space(c))
            .filter(|o| !o.is_empty())
            .collect();
        let valid = metaknobs::category(category)
            .zip(options.first())
            .and_then(|(cat, option)| metaknobs::lookup(cat, option).map(|t| (cat, t)));
        return match (valid, options.len()) {
            (Some((cat, t)), 1) => Ok(Assignment {
                name: format!("${cat}.{}", t.name),
                line: text.trim_end_matches(is_space).to_owned(),
            }),
            _ => Err(category.to_owned()),
        };
    }
    let eq = text.find('=');
    let colon = text.find(':');
    let op = match (eq, colon) {
        (Some(e), Some(c)) => e.min(c),
        (Some(e), None) => e,
        (None, Some(c)) => c,
        (None, None) => return Err(text.to_owned()),
    };
    let name = text[..op].trim_end_matches(is_space);
    if !is_valid_name(name) {
        return Err(name.to_owned());
    }
    let value = text[op + 1..].trim_matches(is_space);
    Ok(Assignment {
        name: name.to_owned(),
        line: format!("{name} = {value}"),
    })
}

/// The name a top-level line defines, if it is a definition (`NAME = ...`, `NAME @=tag`).
fn defined_name(line: &str) -> Option<(&str, Option<&str>)> {
    let t = line.trim_matches(is_space);
    if t.starts_with('#') {
        return None;
    }
    if t.len() >= 4 && t[..4].eq_ignore_ascii_case("use ") {
        return None;
    }
    let end = t.find(|c: char| is_space(c) || c == '=' || c == ':' || c == '@')?;
    let name = &t[..end];
    let rest = t[end..].trim_start_matches(is_space);
    if let Some(tag) = rest.strip_prefix("@=") {
        return Some((name, Some(tag.trim_matches(is_space))));
    }
    (rest.starts_with('=') || rest.starts_with(':')).then_some((name, None))
}

/// `text` without its top-level definitions of `name`.
fn without(text: &str, name: &str) -> String {
    let mut out = String::new();
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        match defined_name(line) {
            Some((n, here)) if n.eq_ignore_ascii_case(name) => match here {
                Some(tag) => {
                    let end = format!("@{tag}");
                    for l in lines.by_ref() {
                        if l.trim_matches(is_space) == end {
                            break;
                        }
                    }
                }
                None => {
                    let mut cur = line;
                    while cur.trim_end_matches(is_space).ends_with('\\') {
                        match lines.next() {
                            Some(next) => cur = next,
                            None => break,
                        }
                    }
                }
            },
            _ => out.push_str(line),
        }
    }
    out
}

/// `text` without `use` lines equal to `line` (for `-unset` of a metaknob).
fn without_use(text: &str, line: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| !l.trim_matches(is_space).eq_ignore_ascii_case(line))
        .collect()
}

fn read(path: &Path) -> io::Result<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e),
    }
}

fn write(path: &Path, text: &str) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// Writes `assignment` into the file at `path`, replacing earlier definitions of its name.
pub fn set(path: &Path, assignment: &Assignment) -> io::Result<()> {
    let text = read(path)?;
    let mut text = if assignment.name.starts_with('$') {
        without_use(&text, &assignment.line)
    } else {
        without(&text, &assignment.name)
    };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&assignment.line);
    text.push('\n');
    write(path, &text)
}

/// Removes the file's definitions of `name`; returns whether there were any.
pub fn unset(path: &Path, name: &str) -> io::Result<bool> {
    let text = read(path)?;
    let kept = without(&text, name);
    if kept == text {
        return Ok(false);
    }
    write(path, &kept)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments() {
        assert_eq!(
            parse_assignment(" MAX_JOBS_RUNNING =  10 ").unwrap(),
            Assignment {
                name: "MAX_JOBS_RUNNING".into(),
                line: "MAX_JOBS_RUNNING = 10".into()
            }
        );
        assert_eq!(
            parse_assignment("use ROLE : Personal").unwrap().name,
            "$ROLE.Personal"
        );
        assert!(parse_assignment("use ROLE : Nope").is_err());
        assert!(parse_assignment("NO VALUE").is_err());
        assert_eq!(parse_assignment("bad-name = 1").unwrap_err(), "bad-name");
    }

    #[test]
    fn set_and_unset_edit_only_the_definitions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("user_config");
        set(&path, &parse_assignment("A = 1").unwrap()).unwrap();
        std::fs::write(
            &path,
            "# mine\nA = 1\nB = x \\\n  y\nC @=end\nc\n@end\nD = 4\n",
        )
        .unwrap();
        set(&path, &parse_assignment("B = 2").unwrap()).unwrap();
        set(&path, &parse_assignment("c = 3").unwrap()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# mine\nA = 1\nD = 4\nB = 2\nc = 3\n"
        );
        assert!(unset(&path, "a").unwrap());
        assert!(!unset(&path, "nope").unwrap());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "# mine\nD = 4\nB = 2\nc = 3\n"
        );
    }
}
