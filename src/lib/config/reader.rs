//! Logical lines of a configuration file: physical lines joined at a trailing `\`, trimmed, with
//! HTCondor's rules for comments inside continuations (`getline_implementation` in
//! src/condor_utils/config.cpp).
//!
//! With the default ("new") rules, a comment line that starts a logical line does not continue
//! even if it ends in `\`, and a comment line inside a continuation counts as its last character
//! only (so `# ... \` keeps the continuation going and any other comment line ends it, leaving
//! that character behind, exactly as HTCondor does). `#opt:oldcomment` switches to the rules of
//! HTCondor before 8.1.3 (comments are ordinary text inside a continuation) and
//! `#opt:newcomment` back.
//!
//! As in HTCondor, a last line without a newline is taken as it is, untrimmed.

/// Comment handling inside continued lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommentRules {
    New,
    Old,
}

/// Reads logical lines from a file's text.
#[derive(Debug)]
pub struct LineReader<'a> {
    rest: &'a str,
    /// The number of the last physical line read.
    line: u32,
    pub rules: CommentRules,
}

/// C's `isspace` in the "C" locale.
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

impl<'a> LineReader<'a> {
    pub fn new(text: &'a str) -> LineReader<'a> {
        LineReader {
            rest: text,
            line: 0,
            rules: CommentRules::New,
        }
    }

    /// The number of the last physical line read (the line a statement ends on).
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The next physical line and whether it ended with a newline.
    fn physical(&mut self) -> Option<(&'a str, bool)> {
        if self.rest.is_empty() {
            return None;
        }
        match self.rest.find('\n') {
            Some(i) => {
                let line = &self.rest[..i];
                self.rest = &self.rest[i + 1..];
                Some((line, true))
            }
            None => {
                let line = self.rest;
                self.rest = "";
                Some((line, false))
            }
        }
    }

    /// The next logical line, or `None` at the end of the text.
    pub fn next_line(&mut self) -> Option<String> {
        let mut buf = String::new();
        let mut first = true;
        loop {
            let Some((raw, newline)) = self.physical() else {
                return if buf.is_empty() { None } else { Some(buf) };
            };
            if !newline {
                // fgets ran out of text before a newline: HTCondor takes the text as it is.
                self.line += 1;
                buf.push_str(raw);
                return Some(buf);
            }
            self.line += 1;
            let mut text = raw.trim_matches(is_space);
            let mut in_comment = text.starts_with('#');
            if in_comment && !first && self.rules == CommentRules::New {
                // Inside a continuation, a comment line is whitespace but for its last character.
                text = &text[text.len() - text.chars().next_back().map_or(0, char::len_utf8)..];
                in_comment = false;
            }
            buf.push_str(text);
            first = false;
            if buf.ends_with('\\') {
                buf.pop();
                if !in_comment || self.rules == CommentRules::Old {
                    continue;
                }
            }
            return Some(buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<(String, u32)> {
        let mut r = LineReader::new(text);
        let mut out = Vec::new();
        while let Some(l) = r.next_line() {
            out.push((l, r.line()));
        }
        out
    }

    #[test]
    fn continuation_and_trimming() {
        assert_eq!(
            lines("  A = 1  \nB = x \\\n   \\\n  y\nC = p \\\n\nD=1\n"),
            [
                ("A = 1".into(), 1),
                ("B = x y".into(), 4),
                ("C = p ".into(), 6),
                ("D=1".into(), 7),
            ]
        );
    }

    #[test]
    fn comments_in_continuations() {
        // A comment line ends the continuation, leaving its last character; one ending in `\`
        // keeps it going. A comment that starts a line never continues.
        assert_eq!(
            lines("A = b \\\n# $(C)\nA2 = b \\\n# c \\\nd\n#c \\\nE = 1\n"),
            [
                ("A = b )".into(), 2),
                ("A2 = b d".into(), 5),
                ("#c ".into(), 6),
                ("E = 1".into(), 7),
            ]
        );
        let mut r = LineReader::new("A = b \\\n# c\nd\n#x \\\nE = 1\n");
        r.rules = CommentRules::Old;
        assert_eq!(r.next_line().unwrap(), "A = b # c");
        assert_eq!(r.next_line().unwrap(), "d");
        assert_eq!(r.next_line().unwrap(), "#x E = 1");
    }

    #[test]
    fn last_line_without_newline_is_untrimmed() {
        assert_eq!(
            lines("B = b\nA = x   "),
            [("B = b".into(), 1), ("A = x   ".into(), 2)]
        );
        assert_eq!(lines("B = b \\\nc"), [("B = b c".into(), 2)]);
        assert_eq!(lines(""), []);
    }
}
