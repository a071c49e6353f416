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

/// The tool's man page, in roff.
pub fn man_page(tool: &Tool) -> Vec<u8> {
    let mut page = Vec::new();
    clap_mangen::Man::new(tool.command())
        .render(&mut page)
        .expect("rendering into memory does not fail");
    page
}

/// The tool's completion script for `shell`.
pub fn completions(tool: &Tool, shell: Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut tool.command(), tool.name, &mut script);
    script
}
