//! The job's files: standard input/output/error (`SetStdin`, `SetStdout`, `SetStderr`), the
//! executable's size (`SetImageSize`) and file transfer (`SetTransferFiles`).

use super::job::{Builder, R};
use super::util::{self, universe, ShouldTransfer, WhenTransfer};
use crate::config::expand;

/// Which standard stream.
#[derive(Clone, Copy)]
enum Stream {
    In,
    Out,
    Err,
}

impl Stream {
    /// (file key, alternate key, transfer key, stream key, file attr, transfer attr, stream attr)
    fn names(self) -> [&'static str; 7] {
        match self {
            Stream::In => [
                "input",
                "stdin",
                "transfer_input",
                "stream_input",
                "In",
                "TransferIn",
                "StreamIn",
            ],
            Stream::Out => [
                "output",
                "stdout",
                "transfer_output",
                "stream_output",
                "Out",
                "TransferOut",
                "StreamOut",
            ],
            Stream::Err => [
                "error",
                "stderr",
                "transfer_error",
                "stream_error",
                "Err",
                "TransferErr",
                "StreamErr",
            ],
        }
    }
}

impl Builder<'_> {
    fn set_std_file(&mut self, which: Stream) -> R {
        let [key, alt, xfer_key, stream_key, attr, xfer_attr, stream_attr] = which.names();
        let mut transfer_it = self.lookup_bool(xfer_attr).unwrap_or(true);
        let mut must_set = false;
        let (tmp, _) = self.param_bool(xfer_key, Some(xfer_attr), transfer_it)?;
        if tmp != transfer_it {
            must_set = true;
            transfer_it = tmp;
        }
        let stream_default = self.lookup_bool(stream_attr).unwrap_or(false);
        let (mut stream_it, _) = self.param_bool(stream_key, Some(stream_attr), stream_default)?;
        let value = self.param2(key, Some(alt))?;
        if value.is_some() || !self.has(attr) {
            let file = match value.as_deref() {
                None | Some("") => {
                    transfer_it = false;
                    stream_it = false;
                    "/dev/null".to_owned()
                }
                Some("/dev/null") => {
                    transfer_it = false;
                    stream_it = false;
                    "/dev/null".to_owned()
                }
                Some(f) => {
                    if self.state.universe == universe::VM {
                        return Err(self.error("You cannot use input, ouput, and error parameters in the submit description file for vm universe\n"));
                    }
                    f.to_owned()
                }
            };
            self.assign_str(attr, &file);
        }
        if transfer_it {
            self.assign_bool(stream_attr, stream_it);
            if must_set {
                self.assign_bool(xfer_attr, transfer_it);
            }
        } else {
            self.assign_bool(xfer_attr, false);
        }
        Ok(())
    }

    /// `SetStdin`.
    pub fn set_stdin(&mut self) -> R {
        self.set_std_file(Stream::In)
    }

    /// `SetStdout`.
    pub fn set_stdout(&mut self) -> R {
        self.set_std_file(Stream::Out)
    }

    /// `SetStderr`.
    pub fn set_stderr(&mut self) -> R {
        self.set_std_file(Stream::Err)
    }

    /// `calc_image_size_kb`: a file's size (a directory's total), in KiB rounded up; 0 for a
    /// URL or a file that cannot be read.
    pub fn image_size_kb(&mut self, name: &str) -> i64 {
        if util::is_url(name) {
            return 0;
        }
        let path = self.full_path(name, true);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => (dir_size(std::path::Path::new(&path)) as i64 + 1023) / 1024,
            Ok(m) => (m.len() as i64 + 1023) / 1024,
            Err(_) => 0,
        }
    }

    /// `SetImageSize`.
    pub fn set_image_size(&mut self) -> R {
        if self.first_proc {
            let cmd = self.lookup_string("Cmd").unwrap_or_default();
            let size = if cmd.is_empty() {
                0
            } else {
                self.image_size_kb(&cmd)
            };
            self.assign_int("ExecutableSize", size);
        }
        match self.param2("image_size", Some("ImageSize"))? {
            Some(v) => {
                let size = match util::parse_int64_bytes(&v, 1024) {
                    Some((n, _)) => n,
                    None => {
                        self.error(format!("'{v}' is not valid for Image Size\n"));
                        0
                    }
                };
                if size < 1 {
                    return Err(self.error("Image Size must be positive\n"));
                }
                self.assign_int("ImageSize", size);
            }
            None => {
                if !self.has("ImageSize") {
                    let exe = self.lookup_int("ExecutableSize").unwrap_or(0);
                    self.assign_int("ImageSize", exe);
                }
            }
        }
        Ok(())
    }

    /// `SetTransferFiles`.
    pub fn set_transfer_files(&mut self) -> R {
        let mut input_files: Vec<String> = Vec::new();
        let mut in_specified = false;
        let mut out_specified = false;
        let mut input_kb: i64 = 0;

        if let Some(v) = self.param2("transfer_input_files", Some("TransferInputFiles"))? {
            if &*v != "\"\"" {
                input_files = split_list(&v);
            }
        }
        for f in input_files.clone() {
            in_specified = true;
            input_kb += self.image_size_kb(&f);
        }
        if self.state.is_container && self.container_input_files(&mut input_files, &mut input_kb)? {
            in_specified = true;
        }
        if self.lookup_bool("TransferIn").unwrap_or(true) {
            if let Some(stdin) = self.lookup_string("In") {
                if !stdin.is_empty() {
                    input_kb += self.image_size_kb(&stdin);
                }
            }
        }
        let mut output_files: Vec<String> = Vec::new();
        if let Some(v) = self.param2("transfer_output_files", Some("TransferOutputFiles"))? {
            if &*v == "\"\"" {
                out_specified = true;
            } else {
                output_files = split_list(&v);
                out_specified = !output_files.is_empty();
            }
        }

        let mut default_should = false;
        let mut should_text = self
            .param2("ShouldTransferFiles", Some("should_transfer_files"))?
            .map(|v| v.to_string());
        if should_text.is_none() {
            if let Some(v) = self.lookup_string("ShouldTransferFiles") {
                should_text = Some(v);
            } else if let Some(v) = self.setup.settings.default_should_transfer.clone() {
                if ShouldTransfer::parse(&v).is_some() {
                    should_text = Some(v);
                    default_should = true;
                }
            }
        }
        let mut should = match &should_text {
            None => {
                default_should = true;
                ShouldTransfer::IfNeeded
            }
            Some(s) => match ShouldTransfer::parse(s) {
                Some(v) => v,
                None => {
                    return Err(self.error(format!("\nERROR: invalid value ({s}) for ShouldTransferFiles.  Please either specify YES, NO, or IF_NEEDED and try again.")))
                }
            },
        };
        if should == ShouldTransfer::No && (in_specified || out_specified) {
            let what = match (in_specified, out_specified) {
                (true, true) => "transfer_input_files\" and \"transfer_output_files\",",
                (true, false) => "transfer_input_files\",",
                _ => "transfer_output_files\",",
            };
            return Err(self.error(format!("\nERROR: you specified files you want Condor to transfer via \"{what} but you disabled should_transfer_files.")));
        }
        let mut when_text = self
            .param2("WhenToTransferOutput", Some("when_to_transfer_output"))?
            .map(|v| v.to_string());
        if when_text.is_none() {
            when_text = self.lookup_string("WhenToTransferOutput");
        }
        let (mut when, default_when) = match &when_text {
            None => (WhenTransfer::OnExit, true),
            Some(w) => match WhenTransfer::parse(w) {
                Some(v) => (v, false),
                None => {
                    return Err(self.error(format!("\nERROR: invalid value ({w}) for WhenToTransferOutput.  Please either specify ON_EXIT, or ON_EXIT_OR_EVICT and try again.")))
                }
            },
        };
        let mut when_shown = when_text.clone().unwrap_or_else(|| "ON_EXIT".into());
        if !default_should && default_when && should == ShouldTransfer::No {
            when = WhenTransfer::None;
            when_shown = "NEVER".into();
        }
        if (should == ShouldTransfer::No && when != WhenTransfer::None)
            || (should != ShouldTransfer::No && when == WhenTransfer::None)
        {
            let should_shown = should_text.clone().unwrap_or_else(|| "IF_NEEDED".into());
            return Err(self.error(format!("\nERROR: WhenToTransferOutput specified as {when_shown} yet ShouldTransferFiles defined as {should_shown}.  Please remove this contradiction from your submit file and try again.")));
        }
        if default_should
            && when == WhenTransfer::OnExitOrEvict
            && should == ShouldTransfer::IfNeeded
        {
            should = ShouldTransfer::Yes;
        }
        if when == WhenTransfer::OnExitOrEvict && should == ShouldTransfer::IfNeeded {
            return Err(self.error("\nERROR: \"when_to_transfer_output = ON_EXIT_OR_EVICT\" and \"should_transfer_files = IF_NEEDED\" are incompatible.  The behavior of these two settings together would produce incorrect file access in some cases.  Please decide which one of those two settings you're more interested in. If you really want \"IF_NEEDED\", set \"when_to_transfer_output = ON_EXIT\".  If you really want \"ON_EXIT_OR_EVICT\", please set \"should_transfer_files = YES\".  After you have corrected this incompatibility, please try running condor_submit again.\n"));
        }
        self.assign_str("ShouldTransferFiles", should.as_str());
        if should != ShouldTransfer::No {
            self.assign_str("WhenToTransferOutput", when.as_str());
        }
        if should != ShouldTransfer::Yes && !self.has("FileSystemDomain") {
            if let Some(d) = self.setup.settings.filesystem_domain.clone() {
                self.assign_str("FileSystemDomain", &d);
            }
        }
        if should != ShouldTransfer::No {
            if let Some(tdp) = self.lookup_string("ToolDaemonCmd") {
                if !input_files.contains(&tdp) {
                    input_files.push(tdp.clone());
                    input_kb += self.image_size_kb(&tdp);
                }
                if let Some(tin) = self.lookup_string("ToolDaemonInput") {
                    if !input_files.contains(&tin) {
                        input_files.push(tin.clone());
                        input_kb += self.image_size_kb(&tin);
                    }
                }
            }
        }
        match self.param2("disk_usage", Some("DiskUsage"))? {
            Some(v) => match util::parse_int64_bytes(&v, 1024) {
                Some((n, _)) if n >= 1 => self.assign_int("DiskUsage", n),
                _ => {
                    return Err(self.error(format!(
                        "'{v}' is not valid for disk_usage. It must be >= 1\n"
                    )))
                }
            },
            None => {
                let exe = self.lookup_int("ExecutableSize").unwrap_or(0);
                self.assign_int("TransferInputSizeMB", (exe + input_kb) / 1024);
                self.assign_int("DiskUsage", exe + input_kb);
            }
        }
        let mut remaps = String::new();
        if self.setup.remote {
            let output = self.lookup_string("Out").unwrap_or_default();
            let error = self.lookup_string("Err").unwrap_or_default();
            let stream_out = self.lookup_bool("StreamOut").unwrap_or(false);
            let stream_err = self.lookup_bool("StreamErr").unwrap_or(false);
            if !output.is_empty()
                && output != util::basename(&output)
                && output != "/dev/null"
                && !stream_out
            {
                self.assign_str("Out", "_condor_stdout");
                remaps.push_str(&format!("_condor_stdout={}", escape_remap(&output)));
            }
            if !error.is_empty()
                && error != util::basename(&error)
                && error != "/dev/null"
                && !stream_err
            {
                let working = if error == output {
                    "_condor_stdout"
                } else {
                    "_condor_stderr"
                };
                self.assign_str("Err", working);
                if !remaps.is_empty() {
                    remaps.push(';');
                }
                remaps.push_str(&format!("{working}={}", escape_remap(&error)));
            }
        }
        if should != ShouldTransfer::No {
            if in_specified {
                let joined = input_files.join(",");
                self.assign_str("TransferInput", &joined);
            }
            if out_specified {
                let joined = output_files.join(",");
                self.assign_str("TransferOutput", &joined);
            }
        }
        let u = self.state.universe;
        if should == ShouldTransfer::No
            && u != universe::GRID
            && u != universe::JAVA
            && u != universe::VM
            && self
                .param_bool("transfer_executable", Some("TransferExecutable"), false)?
                .0
        {
            return Err(self.error("\nERROR: You explicitly requested that the executable be transfered, but for this to work, you must enable Condor's file transfer functionality.  You need to define either: \"when_to_transfer_output = ON_EXIT\" or \"when_to_transfer_output = ON_EXIT_OR_EVICT\".  Optionally, you can define \"should_transfer_files = IF_NEEDED\" if you do not want any files to be transfered if the job executes on a machine in the same FileSystemDomain.  See the Condor manual for more details."));
        }
        if let Some(v) = self.param2("transfer_output_remaps", Some("TransferOutputRemaps"))? {
            if !v.starts_with('"') || v.len() < 2 || !v.ends_with('"') {
                return Err(self.error(format!(
                    "transfer_output_remaps must be a quoted string, not: {v}\n"
                )));
            }
            if !remaps.is_empty() {
                remaps.push(';');
            }
            remaps.push_str(&v[1..v.len() - 1]);
        }
        if !remaps.is_empty() {
            self.assign_str("TransferOutputRemaps", &remaps);
        }
        Ok(())
    }

    /// `process_container_input_files`: a container image that must be sent with the job.
    fn container_input_files(
        &mut self,
        files: &mut Vec<String>,
        kb: &mut i64,
    ) -> Result<bool, super::job::Abort> {
        let image = self.param2("container_image", Some("ContainerImage"))?;
        if !self.lookup_bool("TransferContainer").unwrap_or(true) {
            self.assign_str("ContainerImageSource", "local");
            return Ok(false);
        }
        let Some(image) = image else {
            return Ok(false);
        };
        for prefix in ["docker://", "oras://"] {
            if image.starts_with(prefix) {
                self.assign_str("ContainerImageSource", &prefix[..prefix.len() - 3]);
                return Ok(false);
            }
        }
        files.push(image.to_string());
        *kb += self.image_size_kb(&image);
        let trimmed = image.strip_suffix('/').unwrap_or(&image).to_owned();
        self.assign_str("ContainerImage", util::basename(&trimmed));
        match trimmed.find(':') {
            None => self.assign_str("ContainerImageSource", "cedar"),
            Some(i) => self.assign_str("ContainerImageSource", &trimmed[..i]),
        }
        Ok(true)
    }
}

/// `split(list, ",")`: comma-separated, trimmed, empty items dropped.
fn split_list(s: &str) -> Vec<String> {
    expand::tokens(s, ",")
}

/// `EscapeChars(s, ";=\\", '\\')`.
fn escape_remap(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if matches!(c, ';' | '=' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The total size of the files below a directory (`Directory::GetDirectorySize`).
fn dir_size(dir: &std::path::Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut total = 0;
    for e in rd.flatten() {
        let Ok(m) = e.metadata() else { continue };
        if m.is_dir() {
            total += dir_size(&e.path());
        } else {
            total += m.len();
        }
    }
    total
}
