//! Reading inputs that could be endless: submit and configuration files, their includes, the
//! output of the commands they run, standard input. Each read stops at a bound and fails
//! with an error that says so, instead of reading `/dev/zero` (or `yes`) until memory runs
//! out.

use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

/// The most read from one submit or configuration file, include or command (64 MiB: a
/// million `queue from` items of 60 bytes fit).
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// The error for input longer than `limit` bytes.
pub fn too_large(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "it is larger than {} MiB, the most that is read",
            limit >> 20
        ),
    )
}

/// Reads `reader` to its end, at most `limit` bytes.
pub fn read_to_end(reader: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

/// Reads a file whole, at most [`MAX_SOURCE_BYTES`].
pub fn read_file(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    read_to_end(std::fs::File::open(path)?, MAX_SOURCE_BYTES)
}

/// Reads standard input whole, at most [`MAX_SOURCE_BYTES`].
pub fn read_stdin() -> io::Result<Vec<u8>> {
    read_to_end(io::stdin().lock(), MAX_SOURCE_BYTES)
}

/// Runs `command` with its standard output captured (at most [`MAX_SOURCE_BYTES`]; a command
/// that writes more is killed) and its standard error discarded.
pub fn command_output(command: &mut Command) -> io::Result<(ExitStatus, Vec<u8>)> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let stdout = child.stdout.take().expect("stdout is piped");
    match read_to_end(stdout, MAX_SOURCE_BYTES) {
        Ok(bytes) => Ok((child.wait()?, bytes)),
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_input_stops_at_the_bound() {
        let err = read_to_end(io::repeat(0), 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("larger than 1 MiB"), "{err}");
        assert_eq!(read_to_end(&b"abc"[..], 3).unwrap(), b"abc");
    }

    #[test]
    fn an_endless_command_is_killed() {
        let mut yes = Command::new("yes");
        assert!(command_output(&mut yes).is_err());
        let (status, out) = command_output(Command::new("echo").arg("hi")).unwrap();
        assert!(status.success());
        assert_eq!(out, b"hi\n");
    }
}
