//! The starter's side of Chirp (HTCondor's IO proxy, src/condor_starter.V6.1/jic_shadow.cpp
//! `initIOProxy` and io_proxy_handler.cpp): which requests a job may make, the
//! `.chirp.config` file that tells `condor_chirp` where its job's pool is, and the files a
//! job may read and write through Chirp, confined to one directory.
//!
//! HTCondor's `.chirp.config` holds the host, port and cookie of the starter's proxy socket.
//! condorlite has no proxy socket: the file holds the pool's configuration environment
//! (`CONDOR_CONFIG`, the `_CONDOR_*` overrides, the pool's `LOCAL_DIR`), one `NAME=value` a
//! line, and `condor_chirp` makes its requests through the client library, which checks
//! that they come from a running job's scratch directory (see [`crate::client::chirp`]).

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{openat, OFlag};
use nix::sys::stat::Mode;

use crate::classad::ClassAd;
use crate::config::{Config, Environment};
use crate::output::render::lookup_bool;

/// The name of the Chirp configuration file in the scratch directory (`CHIRP_CONFIG_FILENAME`).
pub const CHIRP_CONFIG_FILE: &str = ".chirp.config";
/// Where the starter keeps the job's delayed updates (HTCondor's starter keeps them in
/// memory; condorlite's requests are served by `condor_chirp` itself, so they are kept with
/// the run).
pub const DELAYED_UPDATES_FILE: &str = ".chirp.delayed_updates";
/// The most read of a `.chirp.config` or delayed-updates file.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// What a job may ask through Chirp (`initIOProxy`'s summary: IO, updates, delayed updates).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// File requests (`fetch`, `put`, `remove`, `whoami`, ...): `WantIOProxy`.
    pub io: bool,
    /// `set_job_attr`, `get_job_attr`, `ulog`: `WantRemoteUpdates`, by default `WantIOProxy`.
    pub updates: bool,
    /// `set_job_attr_delayed`, `get_job_attr_delayed`: `WantDelayedUpdates`, by default true.
    pub delayed: bool,
}

impl Features {
    /// `initIOProxy`: the job's wishes as the starter's configuration allows them.
    pub fn of(job: &ClassAd, config: &Config) -> Features {
        let knob = |name: &str| config.bool(name).ok().flatten().unwrap_or(true);
        let (enabled, files, updates, delayed) = (
            knob("ENABLE_CHIRP"),
            knob("ENABLE_CHIRP_IO"),
            knob("ENABLE_CHIRP_UPDATES"),
            knob("ENABLE_CHIRP_DELAYED"),
        );
        if !enabled || (!files && !updates && !delayed) {
            return Features::default();
        }
        let io = lookup_bool(job, "WantIOProxy").unwrap_or(false) && files;
        let want_updates = lookup_bool(job, "WantRemoteUpdates").unwrap_or(io);
        let want_delayed = lookup_bool(job, "WantDelayedUpdates").unwrap_or(true);
        Features {
            io,
            updates: want_updates && updates,
            delayed: want_delayed && delayed,
        }
    }

    /// Whether the starter writes `.chirp.config` for the job.
    pub fn any(&self) -> bool {
        self.io || self.updates || self.delayed
    }
}

/// The text of `.chirp.config`: the variables of `env` that make a configuration (the
/// pool's), and the pool's `LOCAL_DIR`, so that a tool in the job, whose environment has
/// none of them, reads the pool's configuration.
pub fn config_text(env: &Environment, local_dir: Option<&str>) -> String {
    let mut text = String::new();
    let mut has_local_dir = false;
    for (name, value) in env.iter() {
        let upper = name.to_ascii_uppercase();
        let wanted = upper == "CONDOR_CONFIG"
            || upper.starts_with("_CONDOR_")
            || upper.starts_with("CONDORLITE_");
        if !wanted || value.contains('\n') || name.contains('=') {
            continue;
        }
        has_local_dir |= upper == "_CONDOR_LOCAL_DIR";
        text.push_str(&format!("{name}={value}\n"));
    }
    if let Some(dir) = local_dir.filter(|d| !has_local_dir && !d.contains('\n')) {
        text.push_str(&format!("_CONDOR_LOCAL_DIR={dir}\n"));
    }
    text
}

/// Reads a `.chirp.config` back into the environment it records.
pub fn read_config(path: &Path) -> std::io::Result<Environment> {
    let bytes = crate::bounded::read_to_end(File::open(path)?, MAX_FILE_BYTES)?;
    let text = String::from_utf8_lossy(&bytes);
    let pairs = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| !k.is_empty())
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
    Ok(Environment::from_pairs(pairs))
}

/// Reads a small file the starter keeps in the scratch directory (bounded).
pub fn read_small(path: &Path) -> std::io::Result<Vec<u8>> {
    crate::bounded::read_to_end(File::open(path)?, MAX_FILE_BYTES)
}

/// How a Chirp `open` (or `putfile`) opens a file: the mode letters of `condor_chirp put
/// -mode` (`r` read, `w` write, `a` append, `t` truncate, `c` create, `x` exclusive).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenMode {
    pub read: bool,
    pub write: bool,
    pub append: bool,
    pub truncate: bool,
    pub create: bool,
    pub exclusive: bool,
}

impl OpenMode {
    /// The starter's reading of the letters (`open`'s flags string); other letters (`b`)
    /// are ignored, as there.
    pub fn parse(letters: &str) -> OpenMode {
        let mut m = OpenMode::default();
        for c in letters.chars() {
            match c {
                'r' => m.read = true,
                'w' => m.write = true,
                'a' => m.append = true,
                't' => m.truncate = true,
                'c' => m.create = true,
                'x' => m.exclusive = true,
                _ => {}
            }
        }
        m
    }

    fn flags(&self) -> OFlag {
        let mut f = match (self.read, self.write) {
            (true, true) => OFlag::O_RDWR,
            (false, true) => OFlag::O_WRONLY,
            _ => OFlag::O_RDONLY,
        };
        for (on, flag) in [
            (self.append, OFlag::O_APPEND),
            (self.truncate, OFlag::O_TRUNC),
            (self.create, OFlag::O_CREAT),
            (self.exclusive, OFlag::O_EXCL),
        ] {
            if on {
                f |= flag;
            }
        }
        f
    }
}

/// The parts of `path` below `root`: a relative path as it is, an absolute one only when it
/// is under `root`. `..` is refused (EACCES), as is a path that leaves the root or names it.
fn parts_below(root: &Path, path: &str) -> Result<Vec<PathBuf>, Errno> {
    let path = Path::new(path);
    let rel = if path.is_absolute() {
        path.strip_prefix(root).map_err(|_| Errno::EACCES)?
    } else {
        path
    };
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(PathBuf::from(p)),
            Component::CurDir => {}
            _ => return Err(Errno::EACCES),
        }
    }
    if parts.is_empty() {
        return Err(Errno::EISDIR);
    }
    Ok(parts)
}

/// Opens `path` (relative to `root`, or absolute inside it) as `mode` says, with
/// permissions `perm` when it is created, walking down from `root` one directory at a time
/// without following a symbolic link: nothing outside `root` can be reached, also through a
/// link the job made. A link is refused as EACCES.
pub fn open_below(root: &Path, path: &str, mode: OpenMode, perm: u32) -> Result<File, Errno> {
    let (dir, last) = parent_below(root, path)?;
    let flags = mode.flags() | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = openat(
        Some(dir.as_raw_fd()),
        last.as_path(),
        flags,
        Mode::from_bits_truncate(perm & 0o7777),
    )
    .map_err(no_links)?;
    // SAFETY: openat returned a new descriptor that nothing else owns.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Removes `path` below `root` (a file, not a directory), without following links.
pub fn unlink_below(root: &Path, path: &str) -> Result<(), Errno> {
    let (dir, last) = parent_below(root, path)?;
    nix::unistd::unlinkat(
        Some(dir.as_raw_fd()),
        last.as_path(),
        nix::unistd::UnlinkatFlags::NoRemoveDir,
    )
}

/// The directory holding `path` below `root`, reached without following a link, and the
/// name of `path` in it.
fn parent_below(root: &Path, path: &str) -> Result<(OwnedFd, PathBuf), Errno> {
    let mut parts = parts_below(root, path)?;
    let last = parts.pop().expect("at least one part");
    let dir_flags = OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let raw = nix::fcntl::open(root, dir_flags, Mode::empty())?;
    // SAFETY: open returned a new descriptor that nothing else owns.
    let mut dir = unsafe { OwnedFd::from_raw_fd(raw) };
    for d in &parts {
        let raw = openat(Some(dir.as_raw_fd()), d.as_path(), dir_flags, Mode::empty())
            .map_err(no_links)?;
        // SAFETY: as above.
        dir = unsafe { OwnedFd::from_raw_fd(raw) };
    }
    Ok((dir, last))
}

/// A symbolic link met on the way (`O_NOFOLLOW`'s ELOOP, or ENOTDIR for a link to a
/// directory opened with `O_DIRECTORY`) is a refusal.
fn no_links(e: Errno) -> Errno {
    if e == Errno::ELOOP {
        Errno::EACCES
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn write_mode() -> OpenMode {
        OpenMode::parse("cwt")
    }

    #[test]
    fn files_are_opened_only_below_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("iwd");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        std::fs::write(root.join("sub/in.txt"), "hello").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("uplink")).unwrap();

        let mut s = String::new();
        open_below(&root, "sub/in.txt", OpenMode::parse("r"), 0)
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        assert_eq!(s, "hello");
        let abs = root.join("sub/in.txt");
        assert!(open_below(&root, abs.to_str().unwrap(), OpenMode::parse("r"), 0).is_ok());

        let refused = |p: &str| open_below(&root, p, OpenMode::parse("r"), 0).unwrap_err();
        assert_eq!(refused("../secret"), Errno::EACCES);
        assert_eq!(refused("sub/../../secret"), Errno::EACCES);
        assert_eq!(
            refused(dir.path().join("secret").to_str().unwrap()),
            Errno::EACCES
        );
        assert_eq!(refused("link"), Errno::EACCES);
        // A link to a directory on the way is not followed either.
        assert!(matches!(
            refused("uplink/secret"),
            Errno::EACCES | Errno::ENOTDIR
        ));
        assert_eq!(refused("missing"), Errno::ENOENT);
        assert_eq!(refused("."), Errno::EISDIR);

        let mut f = open_below(&root, "sub/out.txt", write_mode(), 0o644).unwrap();
        f.write_all(b"x").unwrap();
        assert_eq!(std::fs::read(root.join("sub/out.txt")).unwrap(), b"x");
        assert_eq!(
            open_below(&root, "link", write_mode(), 0o644).unwrap_err(),
            Errno::EACCES
        );
        assert_eq!(std::fs::read(dir.path().join("secret")).unwrap(), b"s");

        assert_eq!(unlink_below(&root, "link"), Ok(()));
        assert!(dir.path().join("secret").exists());
        assert_eq!(unlink_below(&root, "../secret"), Err(Errno::EACCES));
        assert_eq!(unlink_below(&root, "sub"), Err(Errno::EISDIR));
    }

    #[test]
    fn features_follow_the_job_and_the_knobs() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::for_test("", "STARTER", None, dir.path());
        let ad = |text: &str| crate::classad::parse_ad(text).unwrap();
        let plain = Features::of(&ad("[]"), &config);
        assert_eq!(
            plain,
            Features {
                io: false,
                updates: false,
                delayed: true
            }
        );
        let proxy = Features::of(&ad("[ WantIOProxy = true ]"), &config);
        assert!(proxy.io && proxy.updates && proxy.delayed);
        let updates_only = Features::of(&ad("[ WantRemoteUpdates = true ]"), &config);
        assert!(!updates_only.io && updates_only.updates);
        let config = Config::for_test("ENABLE_CHIRP = false\n", "STARTER", None, dir.path());
        assert!(!Features::of(&ad("[ WantIOProxy = true ]"), &config).any());
        let config = Config::for_test("ENABLE_CHIRP_IO = false\n", "STARTER", None, dir.path());
        // As initIOProxy: without files the proxy is off, and updates follow it by default.
        let f = Features::of(&ad("[ WantIOProxy = true ]"), &config);
        assert!(!f.io && !f.updates && f.delayed);
    }

    #[test]
    fn the_config_file_carries_the_pools_environment() {
        let env = Environment::from_pairs([
            ("CONDOR_CONFIG", "/p/condor_config"),
            ("_CONDOR_SCHEDD_NAME", "s"),
            ("HOME", "/home/u"),
            ("_CONDOR_BAD", "two\nlines"),
        ]);
        let text = config_text(&env, Some("/p/local"));
        assert_eq!(
            text,
            "CONDOR_CONFIG=/p/condor_config\n_CONDOR_SCHEDD_NAME=s\n_CONDOR_LOCAL_DIR=/p/local\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CHIRP_CONFIG_FILE);
        std::fs::write(&path, &text).unwrap();
        let back = read_config(&path).unwrap();
        assert_eq!(back.get("_CONDOR_LOCAL_DIR"), Some("/p/local"));
        assert_eq!(back.get("HOME"), None);
    }
}
