//! The output every listing tool shares, byte for byte as HTCondor's tools print it:
//!
//! - [`mask`]: print masks, HTCondor's column engine (widths, alignment, truncation,
//!   `OR` texts, headings, separators) behind the tables and `-af`/`-format`;
//! - [`autoformat`]: `-af[:qualifiers]` and `-format` turned into mask columns;
//! - [`ads`]: whole ads for `-long`, `-json`, `-jsonl` and `-xml`;
//! - [`printformat`]: the print-format language (`-print-format FILE`, the built-in views);
//! - [`printas`]: its `PRINTAS` functions (HTCondor's global table);
//! - [`render`]: the job tools' custom column renderers;
//! - [`printf`] and [`time`]: C's `printf` and HTCondor's date and duration formats.
//!
//! HTCondor's tables are print masks rather than box-drawn tables, so nothing here uses a
//! table crate: the masks reproduce HTCondor's spacing exactly.

pub mod ads;
pub mod autoformat;
pub mod mask;
pub mod printas;
pub mod printf;
pub mod printformat;
pub mod render;
pub mod time;

/// The width of the terminal on standard output, if it is one (`getConsoleWindowSize`).
pub fn console_width() -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    terminal_size()
        .map(|(columns, _)| columns)
        .filter(|&c| c > 0)
}

/// The columns and rows of the terminal on standard output (`TIOCGWINSZ`; either may be 0
/// where the terminal does not say); `None` when stdout is no terminal.
pub fn terminal_size() -> Option<(usize, usize)> {
    let mut ws = nix::libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct we pass.
    let rc = unsafe { nix::libc::ioctl(1, nix::libc::TIOCGWINSZ, &mut ws) };
    (rc == 0).then_some((ws.ws_col as usize, ws.ws_row as usize))
}

/// `print_wrapped_text`: words filled into lines of fewer than `width` characters, each
/// word followed by a space (or, at a full line, a newline), then a newline.
pub fn wrapped_text(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for word in text.split([' ', '\t']).filter(|w| !w.is_empty()) {
        if word.len() < width.saturating_sub(count) {
            out.push_str(word);
            count += word.len();
        } else {
            out.push('\n');
            out.push_str(word);
            count = word.len();
        }
        if count < width {
            out.push(' ');
            count += 1;
        } else {
            out.push('\n');
            count = 0;
        }
    }
    out.push('\n');
    out
}
