//! Long expressions laid out for reading: lines broken after `&&` and `||`, continuation
//! lines indented to the nesting of parentheses (`PrettyPrintExprTree`).

/// `PrettyPrintExprTree`: appends `text` to `buf` and breaks the lines of the whole buffer
/// after `&&` and `||` so that they fit in `width` (the first line is taken to start at
/// column `indent`; the lines it makes are indented to the nesting of parentheses). As in
/// HTCondor, the walk covers everything in the buffer, not only what was appended.
pub fn pretty_print_into(buf: &mut String, text: &str, indent: i32, width: i32) {
    buf.push_str(text);
    let mut b = std::mem::take(buf).into_bytes();
    let mut indent = if indent > width {
        width * 2 / 3
    } else {
        indent
    };
    let (mut it, mut last_and, mut line_start) = (0usize, 0usize, 0usize);
    let mut indent_at_last_and = indent;
    let mut pos = indent;
    let mut was_and = false;
    let mut prev = 0u8;
    while it < b.len() {
        let c = b[it];
        let mut is_and = false;
        if (c == b'&' || c == b'|') && prev == c {
            is_and = true;
        } else if c == b'(' {
            indent += 2;
        } else if c == b')' {
            indent -= 2;
        }
        if pos >= width && last_and != line_start {
            b[last_and] = b'\n';
            line_start = last_and + 1;
            last_and = line_start;
            pos = 0;
            if indent_at_last_and > 0 {
                let n = indent_at_last_and as usize;
                b.splice(line_start..line_start, std::iter::repeat_n(b' ', n));
                it += n;
                last_and = line_start;
                pos = (it - line_start) as i32;
            }
            indent_at_last_and = indent;
        }
        if was_and {
            last_and = it;
            indent_at_last_and = indent;
        }
        prev = c;
        it += 1;
        pos += 1;
        was_and = is_and;
    }
    *buf = String::from_utf8_lossy(&b).into_owned();
}

/// [`pretty_print_into`] an empty buffer.
pub fn pretty_print(text: &str, indent: i32, width: i32) -> String {
    let mut s = String::new();
    pretty_print_into(&mut s, text, indent, width);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::analysis::test_ads::REQUIREMENTS;
    use crate::classad::parser::parse_old_expr;
    use crate::classad::unparse::expr_to_string;

    #[test]
    fn long_requirements_break_after_logical_operators() {
        assert_eq!(
            pretty_print(
                &expr_to_string(&parse_old_expr(REQUIREMENTS).unwrap()),
                4,
                80
            ),
            "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") &&\n    \
             (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) &&\n    \
             ((TARGET.FileSystemDomain == MY.FileSystemDomain) ||\n      \
             (TARGET.HasFileTransfer))"
        );
        assert_eq!(pretty_print("a && b", 4, 80), "a && b");
        // Everything already in the buffer is laid out again.
        let mut buf = String::from("a && b\n\n  X is\n    ");
        pretty_print_into(&mut buf, "ccccccccc || ddddddddd", 4, 20);
        assert_eq!(
            buf,
            "a &&\n    b\n\n  X is\n    ccccccccc ||\n    ddddddddd"
        );
    }
}
