//! Reading the files under a directory without ever leaving it: what the output transfer, a
//! checkpoint, `condor_transfer_data` and `condor_evicted_files` read from a job's sandbox,
//! whose content the job made (and so whose symbolic links the job chose).
//!
//! A name is resolved beneath the directory by the kernel (`openat2` with `RESOLVE_BENEATH`,
//! Linux 5.6 and later): an absolute name, a `..` that climbs out, or a symbolic link
//! (absolute, or relative but climbing out) anywhere on the way is refused, atomically, so
//! that nothing the job does meanwhile can swap a checked path for another. Symbolic links
//! that stay inside are followed. On older kernels each component is opened in turn with
//! `O_NOFOLLOW`: no symbolic link at all is followed (and no `..`). What is opened is
//! read only when it is a regular file or a directory (a FIFO would block the reader, a
//! device is no file of the job's).

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{Mode, OFlags, ResolveFlags};

use super::exec::{errno_of, strerror};

/// Why a confined read (or its copy) failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfineKind {
    /// The system call failed (`errno`).
    Io,
    /// The name itself leads out of the directory (absolute elsewhere, or `..`).
    Outside,
    /// A symbolic link on the way leads out of the directory.
    Link,
    /// Neither a regular file nor a directory.
    Special,
}

/// Why [`copy_confined`] copied nothing (or not everything).
#[derive(Debug)]
pub struct ConfineError {
    pub path: PathBuf,
    /// The errno of the failure; `EPERM` for a name or link that leads out of the directory.
    pub errno: i32,
    pub kind: ConfineKind,
}

impl ConfineError {
    pub fn io(path: &Path, e: &io::Error) -> ConfineError {
        ConfineError {
            path: path.to_path_buf(),
            errno: errno_of(e),
            kind: ConfineKind::Io,
        }
    }

    fn refused(path: &Path, kind: ConfineKind) -> ConfineError {
        ConfineError {
            path: path.to_path_buf(),
            errno: if kind == ConfineKind::Special {
                libc::EINVAL
            } else {
                libc::EPERM
            },
            kind,
        }
    }

    /// Whether the copy was refused for leading out of its directory.
    pub fn is_escape(&self) -> bool {
        matches!(self.kind, ConfineKind::Outside | ConfineKind::Link)
    }
}

impl std::fmt::Display for ConfineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match self.kind {
            ConfineKind::Io => write!(f, "{path}: (errno {}) {}", self.errno, strerror(self.errno)),
            ConfineKind::Outside => write!(
                f,
                "{path} is not inside the directory it is transferred from"
            ),
            ConfineKind::Link => write!(
                f,
                "{path} is a symbolic link that leads out of the directory it is transferred from"
            ),
            ConfineKind::Special => write!(f, "{path} is not a regular file or a directory"),
        }
    }
}

/// An entry found under a directory, as [`Beneath::walk`] hands it on.
#[derive(Debug)]
pub enum Item {
    /// A directory (its path relative to the walked directory).
    Dir { rel: PathBuf },
    /// A regular file, open for reading.
    File { rel: PathBuf, file: File, mode: u32 },
}

impl Item {
    pub fn rel(&self) -> &Path {
        match self {
            Item::Dir { rel } | Item::File { rel, .. } => rel,
        }
    }
}

/// Set once `openat2` turned out missing (a kernel before 5.6): the walk by components then.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// A directory names are resolved beneath.
pub struct Beneath {
    dir: PathBuf,
    fd: OwnedFd,
}

impl Beneath {
    pub fn open(dir: &Path) -> Result<Beneath, ConfineError> {
        let fd = rustix::fs::open(
            dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| ConfineError::io(dir, &e.into()))?;
        Ok(Beneath {
            dir: dir.to_path_buf(),
            fd,
        })
    }

    /// `name` as a path relative to the directory (a trailing `/` dropped; an absolute name
    /// inside the directory made relative): refused when it is empty or leads out of the
    /// directory by its words alone (absolute elsewhere, or more `..` than names before).
    pub fn relative(&self, name: &str) -> Result<PathBuf, ConfineError> {
        let trimmed = name.trim_end_matches('/');
        let path = Path::new(trimmed);
        let rel = if path.is_absolute() {
            path.strip_prefix(&self.dir)
                .map_err(|_| ConfineError::refused(path, ConfineKind::Outside))?
        } else {
            path
        };
        if lexically_escapes(rel) {
            return Err(ConfineError::refused(
                &self.dir.join(rel),
                ConfineKind::Outside,
            ));
        }
        Ok(rel.to_path_buf())
    }

    /// Opens `rel` (from [`Beneath::relative`]) for reading, resolved beneath the directory.
    fn open_at(&self, rel: &Path) -> Result<File, ConfineError> {
        let full = self.dir.join(rel);
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
        let open2 = || {
            rustix::fs::openat2(
                &self.fd,
                rel,
                flags,
                Mode::empty(),
                ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
            )
        };
        let mut opened = if NO_OPENAT2.load(Ordering::Relaxed) {
            Err(rustix::io::Errno::NOSYS)
        } else {
            open2()
        };
        // A rename elsewhere on the file system meanwhile makes the kernel answer EAGAIN
        // (it cannot tell the lookup stayed beneath): asked again, a few times.
        for _ in 0..8 {
            if !matches!(opened, Err(rustix::io::Errno::AGAIN)) {
                break;
            }
            opened = open2();
        }
        let fd = match opened {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOSYS) => {
                NO_OPENAT2.store(true, Ordering::Relaxed);
                self.open_by_components(rel, flags)?
            }
            // RESOLVE_BENEATH's refusal: the words were checked, so a link led out.
            Err(rustix::io::Errno::XDEV) => {
                return Err(ConfineError::refused(&full, ConfineKind::Link))
            }
            Err(e) => return Err(ConfineError::io(&full, &e.into())),
        };
        Ok(File::from(fd))
    }

    /// The walk of older kernels: each component opened beneath the last, never following
    /// a symbolic link.
    fn open_by_components(&self, rel: &Path, flags: OFlags) -> Result<OwnedFd, ConfineError> {
        let full = self.dir.join(rel);
        let names: Vec<&OsStr> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(Ok(n)),
                Component::CurDir => None,
                _ => Some(Err(())),
            })
            .collect::<Result<_, _>>()
            .map_err(|()| ConfineError::refused(&full, ConfineKind::Outside))?;
        let mut at: Option<OwnedFd> = None;
        for (i, name) in names.iter().enumerate() {
            let last = i + 1 == names.len();
            let how = if last {
                flags | OFlags::NOFOLLOW
            } else {
                OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
            };
            let dirfd = at.as_ref().unwrap_or(&self.fd);
            let next = rustix::fs::openat(dirfd, *name, how, Mode::empty()).map_err(|e| {
                if e == rustix::io::Errno::LOOP
                    || (!last && e == rustix::io::Errno::NOTDIR && is_symlink(dirfd, name))
                {
                    ConfineError::refused(&full, ConfineKind::Link)
                } else {
                    ConfineError::io(&full, &e.into())
                }
            })?;
            at = Some(next);
        }
        match at {
            Some(fd) => Ok(fd),
            None => rustix::fs::openat(&self.fd, ".", flags, Mode::empty())
                .map_err(|e| ConfineError::io(&full, &e.into())),
        }
    }

    /// Hands `rel` to `sink` (a directory, then everything under it, parents first): as
    /// long as `sink` answers true. Refuses what leads out of the directory.
    pub fn walk(&self, rel: &Path, sink: &mut dyn FnMut(Item) -> bool) -> Result<(), ConfineError> {
        self.walk_at(rel, sink, 0).map(|_| ())
    }

    /// [`Beneath::walk`]; false once the sink has stopped.
    fn walk_at(
        &self,
        rel: &Path,
        sink: &mut dyn FnMut(Item) -> bool,
        depth: u32,
    ) -> Result<bool, ConfineError> {
        let full = self.dir.join(rel);
        if depth > 64 {
            return Err(ConfineError::io(
                &full,
                &io::Error::from_raw_os_error(libc::ELOOP),
            ));
        }
        let file = self.open_at(rel)?;
        let meta = file.metadata().map_err(|e| ConfineError::io(&full, &e))?;
        // Never the set-id or sticky bits: a copy may be made by the daemon (root), and a
        // job's setuid file must not come back as root's.
        let mode = meta.mode() & 0o777;
        if meta.is_file() {
            return Ok(sink(Item::File {
                rel: rel.to_path_buf(),
                file,
                mode,
            }));
        }
        if !meta.is_dir() {
            return Err(ConfineError::refused(&full, ConfineKind::Special));
        }
        let mut names = Vec::new();
        let dir =
            rustix::fs::Dir::read_from(&file).map_err(|e| ConfineError::io(&full, &e.into()))?;
        for entry in dir {
            let entry = entry.map_err(|e| ConfineError::io(&full, &e.into()))?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(PathBuf::from(OsStr::from_bytes(name)));
            }
        }
        drop(file);
        if !sink(Item::Dir {
            rel: rel.to_path_buf(),
        }) {
            return Ok(false);
        }
        names.sort();
        for name in names {
            if !self.walk_at(&rel.join(name), sink, depth + 1)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Whether `dirfd/name` is a symbolic link.
fn is_symlink(dirfd: &OwnedFd, name: &OsStr) -> bool {
    rustix::fs::statat(dirfd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
        rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink
    })
}

/// Whether a relative path leads out of its directory by its words alone: absolute, empty,
/// or with more `..` than names before them.
pub fn lexically_escapes(rel: &Path) -> bool {
    let mut depth = 0usize;
    let mut any = false;
    for c in rel.components() {
        match c {
            Component::Normal(_) => {
                depth += 1;
                any = true;
            }
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            },
            Component::RootDir | Component::Prefix(_) => return true,
        }
    }
    !any || depth == 0
}

/// Puts `item`, read from beneath a directory, at `dst` (whose directory exists), replacing
/// what is there, never writing through what is there (a symbolic link is replaced, not
/// followed): the receiving half of a confined copy. The bytes copied.
pub fn place(item: Item, dst: &Path) -> Result<u64, ConfineError> {
    let is_dir = matches!(item, Item::Dir { .. });
    if let Ok(m) = fs::symlink_metadata(dst) {
        if !(m.is_dir() && is_dir) {
            let gone = if m.is_dir() {
                fs::remove_dir_all(dst)
            } else {
                fs::remove_file(dst)
            };
            gone.map_err(|e| ConfineError::io(dst, &e))?;
        }
    }
    match item {
        Item::Dir { .. } => match fs::create_dir(dst) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(ConfineError::io(dst, &e)),
            _ => Ok(0),
        },
        Item::File { mut file, mode, .. } => {
            let mut to = OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW)
                .mode(mode)
                .open(dst)
                .map_err(|e| ConfineError::io(dst, &e))?;
            io::copy(&mut file, &mut to).map_err(|e| ConfineError::io(dst, &e))
        }
    }
}

/// Copies `root/name` (a file, or a directory with its contents) to `dst_dir/name`,
/// keeping the relative path, and never reads outside `root` (see the module's
/// documentation). A file already at the destination is replaced, never written through.
/// The bytes copied.
pub fn copy_confined(root: &Path, name: &str, dst_dir: &Path) -> Result<u64, ConfineError> {
    let beneath = Beneath::open(root)?;
    let rel = beneath.relative(name)?;
    let dst = dst_dir.join(&rel);
    if let Some(parent) = dst.parent() {
        fs::create_dir_all(parent).map_err(|e| ConfineError::io(parent, &e))?;
    }
    copy_walk(&beneath, &rel, &dst)
}

/// [`copy_confined`] to the path `dst` (whose directory exists) rather than under the same
/// relative name.
pub fn copy_confined_to(root: &Path, name: &str, dst: &Path) -> Result<u64, ConfineError> {
    let beneath = Beneath::open(root)?;
    let rel = beneath.relative(name)?;
    copy_walk(&beneath, &rel, dst)
}

fn copy_walk(beneath: &Beneath, rel: &Path, dst: &Path) -> Result<u64, ConfineError> {
    let mut total = 0;
    let mut failed = None;
    beneath.walk(rel, &mut |item| {
        let to = under(dst, rel, item.rel());
        match place(item, &to) {
            Ok(n) => {
                total += n;
                true
            }
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(total),
    }
}

/// Where an entry walked from `top` lands when `top` lands at `dst`.
pub fn under(dst: &Path, top: &Path, rel: &Path) -> PathBuf {
    match rel.strip_prefix(top) {
        Ok(rest) if !rest.as_os_str().is_empty() => dst.join(rest),
        _ => dst.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("sandbox");
        fs::create_dir_all(root.join("sub/deeper")).unwrap();
        fs::write(root.join("a.txt"), "a").unwrap();
        fs::write(root.join("sub/b.txt"), "b").unwrap();
        fs::write(root.join("sub/deeper/c.txt"), "c").unwrap();
        fs::write(t.path().join("secret"), "s").unwrap();
        (t, root)
    }

    #[test]
    fn names_that_leave_by_their_words_are_refused() {
        for (name, escapes) in [
            ("a", false),
            ("a/b", false),
            ("a/../b", false),
            ("./a", false),
            ("a/..", true),
            ("..", true),
            ("../a", true),
            ("a/../../b", true),
            ("/etc/passwd", true),
            ("", true),
            (".", true),
        ] {
            assert_eq!(lexically_escapes(Path::new(name)), escapes, "{name}");
        }
        let (_t, root) = tree();
        let b = Beneath::open(&root).unwrap();
        assert_eq!(b.relative("sub/").unwrap(), Path::new("sub"));
        let inside = format!("{}/sub/b.txt", root.display());
        assert_eq!(b.relative(&inside).unwrap(), Path::new("sub/b.txt"));
        let e = b.relative("/etc/passwd").unwrap_err();
        assert_eq!((e.kind, e.errno), (ConfineKind::Outside, libc::EPERM));
        assert_eq!(
            b.relative("../secret").unwrap_err().kind,
            ConfineKind::Outside
        );
    }

    #[test]
    fn links_out_are_refused_links_inside_followed() {
        let (t, root) = tree();
        symlink(t.path().join("secret"), root.join("abs_out")).unwrap();
        symlink("../secret", root.join("rel_out")).unwrap();
        symlink("/", root.join("sub/root")).unwrap();
        symlink("sub/b.txt", root.join("rel_in")).unwrap();
        let b = Beneath::open(&root).unwrap();
        for name in ["abs_out", "rel_out", "sub/root/etc/passwd"] {
            let e = b.walk(Path::new(name), &mut |_| true).unwrap_err();
            assert_eq!(e.kind, ConfineKind::Link, "{name}: {e}");
            assert!(e.is_escape());
        }
        let mut got = Vec::new();
        b.walk(Path::new("rel_in"), &mut |item| {
            got.push(item.rel().to_path_buf());
            true
        })
        .unwrap();
        assert_eq!(got, [PathBuf::from("rel_in")]);
        // A directory: itself, then what is under it (a link out among them stops the walk).
        let dst = t.path().join("copy");
        let e = copy_confined_to(&root, "sub", &dst).unwrap_err();
        assert_eq!(e.kind, ConfineKind::Link);
        fs::remove_file(root.join("sub/root")).unwrap();
        fs::remove_dir_all(&dst).unwrap();
        assert_eq!(copy_confined_to(&root, "sub/", &dst).unwrap(), 2);
        assert_eq!(fs::read_to_string(dst.join("deeper/c.txt")).unwrap(), "c");
    }

    #[test]
    fn a_fifo_is_not_read() {
        let (_t, root) = tree();
        nix::unistd::mkfifo(
            &root.join("pipe"),
            nix::sys::stat::Mode::from_bits_truncate(0o600),
        )
        .unwrap();
        let b = Beneath::open(&root).unwrap();
        let e = b.walk(Path::new("pipe"), &mut |_| true).unwrap_err();
        assert_eq!((e.kind, e.errno), (ConfineKind::Special, libc::EINVAL));
    }

    #[test]
    fn the_destination_is_replaced_never_written_through() {
        let (t, root) = tree();
        let dst_dir = t.path().join("dst");
        fs::create_dir(&dst_dir).unwrap();
        symlink(t.path().join("secret"), dst_dir.join("a.txt")).unwrap();
        copy_confined(&root, "a.txt", &dst_dir).unwrap();
        assert_eq!(fs::read_to_string(t.path().join("secret")).unwrap(), "s");
        assert_eq!(fs::read_to_string(dst_dir.join("a.txt")).unwrap(), "a");
        assert!(!fs::symlink_metadata(dst_dir.join("a.txt"))
            .unwrap()
            .is_symlink());
    }

    #[test]
    fn a_copy_never_keeps_set_id_bits() {
        use std::os::unix::fs::PermissionsExt;
        let (t, root) = tree();
        fs::set_permissions(root.join("a.txt"), fs::Permissions::from_mode(0o6755)).unwrap();
        let dst_dir = t.path().join("dst");
        fs::create_dir(&dst_dir).unwrap();
        copy_confined(&root, "a.txt", &dst_dir).unwrap();
        let mode = fs::metadata(dst_dir.join("a.txt"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o7000, 0, "{mode:o}");
    }

    #[test]
    fn the_walk_without_openat2_follows_no_link() {
        let (t, root) = tree();
        symlink("sub/b.txt", root.join("rel_in")).unwrap();
        symlink(t.path().join("secret"), root.join("out")).unwrap();
        let b = Beneath::open(&root).unwrap();
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK;
        for name in ["rel_in", "out"] {
            let e = b.open_by_components(Path::new(name), flags).unwrap_err();
            assert_eq!(e.kind, ConfineKind::Link, "{name}");
        }
        symlink("sub", root.join("dirlink")).unwrap();
        let e = b
            .open_by_components(Path::new("dirlink/b.txt"), flags)
            .unwrap_err();
        assert_eq!(e.kind, ConfineKind::Link);
        assert!(b
            .open_by_components(Path::new("sub/deeper/c.txt"), flags)
            .is_ok());
    }
}
