//! The files generated from the tool registry and committed with the source: one man page per
//! tool in `man/` (clap_mangen) and bash, zsh and fish completions in `completions/`
//! (clap_complete). The integration test `generated_files_are_up_to_date` compares them with
//! what [`generated_files`] produces; `UPDATE_GENERATED=1 cargo test generated` rewrites them.

use std::path::PathBuf;

use clap_complete::Shell;

use crate::tools::{Tool, TOOLS};

/// A file under the repository root and what it should contain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Relative to the repository root.
    pub path: PathBuf,
    pub contents: Vec<u8>,
}

/// The directories that hold only generated files.
pub const GENERATED_DIRS: &[&str] = &["man", "completions"];

/// Every generated file, for every tool in the registry.
pub fn generated_files() -> Vec<GeneratedFile> {
    TOOLS.iter().flat_map(tool_files).collect()
}

/// The man page and completions of one tool.
pub fn tool_files(tool: &Tool) -> Vec<GeneratedFile> {
    let mut files = vec![GeneratedFile {
        path: PathBuf::from(format!("man/{}.1", tool.name)),
        contents: man_page(tool),
    }];
    for (shell, file_name) in [
        (Shell::Bash, format!("{}.bash", tool.name)),
        (Shell::Zsh, format!("_{}", tool.name)),
        (Shell::Fish, format!("{}.fish", tool.name)),
    ] {
        files.push(GeneratedFile {
            path: PathBuf::from("completions").join(file_name),
            contents: completions(tool, shell),
        });
    }
    files
}

/// The tool's man page, in roff: clap_mangen's sections, with a synopsis that shows each
/// option's argument (`-constraint <EXPR>`), HTCondor's single-dash spelling of long options
/// throughout, and the tool's EXAMPLES.
pub fn man_page(tool: &Tool) -> Vec<u8> {
    let cmd = tool.command();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    let rendered = (|| -> std::io::Result<()> {
        man.render_title(&mut page)?;
        man.render_name_section(&mut page)?;
        page.extend_from_slice(synopsis(&cmd).as_bytes());
        man.render_description_section(&mut page)?;
        man.render_options_section(&mut page)?;
        man.render_extra_section(&mut page)
    })();
    rendered.expect("rendering into memory does not fail");
    page.extend_from_slice(examples_section(tool.name).as_bytes());
    let text = String::from_utf8(page).expect("roff is text");
    single_dash(&text).into_bytes()
}

/// roff's escapes for text: `-` and `\`.
fn roff_text(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

/// The SYNOPSIS section: the tool, each visible option with its argument (none for an option
/// whose argument is an optional `:qualifier`), then the positionals.
fn synopsis(cmd: &clap::Command) -> String {
    let mut line = format!("\\fB{}\\fR", roff_text(cmd.get_name()));
    let mut positionals = String::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let values: Vec<String> = arg
            .get_value_names()
            .map(|names| names.iter().map(|n| n.to_string()).collect())
            .unwrap_or_default();
        let optional = arg.get_num_args().is_some_and(|r| r.min_values() == 0);
        let takes_value = arg.get_action().takes_values() && !optional;
        match arg.get_long() {
            Some(long) => {
                line.push_str(&format!(" [\\fB\\-{}\\fR", roff_text(long)));
                if takes_value {
                    let names = if values.is_empty() {
                        vec![arg.get_id().to_string().to_uppercase()]
                    } else {
                        values
                    };
                    for v in names {
                        let v = if v.starts_with('<') {
                            v
                        } else {
                            format!("<{v}>")
                        };
                        line.push_str(&format!(" \\fI{}\\fR", roff_text(&v)));
                    }
                }
                line.push(']');
            }
            None => {
                let name = values
                    .first()
                    .cloned()
                    .unwrap_or_else(|| arg.get_id().to_string());
                positionals.push_str(&format!(" [\\fI{}\\fR]...", roff_text(&name)));
            }
        }
    }
    format!(".SH SYNOPSIS\n{line}{positionals}\n")
}

/// The EXAMPLES section, from [`crate::cli::examples`].
fn examples_section(name: &str) -> String {
    let mut text = String::from(".SH EXAMPLES\n");
    for (what, command) in crate::cli::examples::examples(name) {
        text.push_str(&format!(
            ".PP\n{}:\n.PP\n.RS 4\n.nf\n{}\n.fi\n.RE\n",
            roff_text(what),
            roff_text(command)
        ));
    }
    text
}

/// HTCondor spells long options with one dash: `\-\-long` becomes `\-long` where it names an
/// option (after a font change or a space, not inside words).
fn single_dash(roff: &str) -> String {
    roff.replace("\\fB\\-\\-", "\\fB\\-")
        .replace(" \\-\\-", " \\-")
        .replace("(\\-\\-", "(\\-")
}

/// The tool's completion script for `shell`: clap_complete's, with every long option also
/// offered in HTCondor's single-dash spelling (`-long` as well as `--long`).
pub fn completions(tool: &Tool, shell: Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut tool.command(), tool.name, &mut script);
    let text = String::from_utf8(script).expect("completion scripts are text");
    let mut out = String::with_capacity(text.len() * 2);
    for line in text.split_inclusive('\n') {
        match shell {
            Shell::Bash => out.push_str(&bash_single_dash(line)),
            Shell::Fish => {
                out.push_str(line);
                if line.starts_with("complete ") && line.contains(" -l ") {
                    out.push_str(&line.replacen(" -l ", " -o ", 1));
                }
            }
            Shell::Zsh => {
                out.push_str(line);
                for prefix in ["'--", "'*--"] {
                    if let Some(rest) = line.strip_prefix(prefix) {
                        out.push_str(&prefix[..prefix.len() - 1]);
                        out.push_str(rest);
                    }
                }
            }
            _ => out.push_str(line),
        }
    }
    out.into_bytes()
}

/// A line of a bash completion script with the single-dash forms added: to the `opts` list,
/// and to the `--name)` patterns of options that take a value.
fn bash_single_dash(line: &str) -> String {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    if let Some(list) = trimmed
        .strip_prefix("opts=\"")
        .and_then(|l| l.strip_suffix("\"\n"))
    {
        let words: Vec<String> = list
            .split(' ')
            .flat_map(|w| match w.strip_prefix("--") {
                Some(name) if !name.is_empty() => vec![format!("-{name}"), w.to_owned()],
                _ => vec![w.to_owned()],
            })
            .collect();
        return format!("{indent}opts=\"{}\"\n", words.join(" "));
    }
    match trimmed
        .strip_prefix("--")
        .and_then(|l| l.strip_suffix(")\n"))
    {
        Some(name) if !name.contains(' ') => format!("{indent}-{name}|--{name})\n"),
        _ => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every man page has examples that use the tool, and spells long options with one
    /// dash; every bash completion offers the single-dash forms.
    #[test]
    fn man_pages_and_completions_speak_htcondor() {
        for tool in TOOLS {
            let examples = crate::cli::examples::examples(tool.name);
            assert!(!examples.is_empty(), "{} has no examples", tool.name);
            assert!(
                examples.iter().any(|(_, c)| c.contains(tool.name)),
                "{}'s examples do not run it",
                tool.name
            );
            let page = String::from_utf8(man_page(tool)).unwrap();
            assert!(page.contains(".SH EXAMPLES"), "{}", tool.name);
            assert!(
                !page.contains("\\fB\\-\\-"),
                "{}: a double-dash option",
                tool.name
            );
            let bash = String::from_utf8(completions(tool, Shell::Bash)).unwrap();
            if let Some(long) = tool.command().get_arguments().find_map(|a| a.get_long()) {
                assert!(bash.contains(&format!("-{long} --{long}")), "{}", tool.name);
            }
        }
    }
}
