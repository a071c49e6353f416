//! Key files: the pool password and the token signing keys, stored as HTCondor stores them.
//!
//! A key file holds the secret XORed with `DE AD BE EF` repeated (HTCondor's
//! `simple_scramble`, which keeps the secret from being read by accident, not from anyone),
//! mode 0600, owned by whoever reads it. The `POOL` key is the file
//! `SEC_TOKEN_POOL_SIGNING_KEY_FILE` (by default the pool password, `SEC_PASSWORD_FILE`); any
//! other key id names a file in `SEC_PASSWORD_DIRECTORY`. As in HTCondor's
//! `getTokenSigningKey`, the `POOL` secret is used doubled (so tokens signed with keys made
//! before 8.9.12 keep working).
//!
//! A file that is not owned by the reading user, or that its group or others may access, is
//! refused, as `read_secure_file` refuses it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rand::RngCore;

use crate::config::{Config, ConfigError};

/// The key id of the pool's own signing key.
pub const POOL_KEY: &str = "POOL";

/// The largest key file read (HTCondor's keys are 64 random bytes, passwords at most 255).
const MAX_KEY_BYTES: u64 = 64 * 1024;

/// One entry of an HTCondor error stack (`SUBSYS:CODE:MESSAGE`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{subsys}:{code}:{message}")]
pub struct KeyError {
    pub subsys: &'static str,
    pub code: i32,
    pub message: String,
}

impl KeyError {
    pub(crate) fn token(message: impl Into<String>) -> KeyError {
        KeyError {
            subsys: "TOKEN",
            code: 1,
            message: message.into(),
        }
    }
}

impl From<ConfigError> for KeyError {
    fn from(e: ConfigError) -> KeyError {
        KeyError::token(e.to_string())
    }
}

/// HTCondor's trivial scramble, its own inverse.
pub fn scramble(bytes: &[u8]) -> Vec<u8> {
    const DEADBEEF: [u8; 4] = [0xDE, 0xAD, 0xBE, 0xEF];
    bytes
        .iter()
        .zip(DEADBEEF.iter().cycle())
        .map(|(b, k)| b ^ k)
        .collect()
}

/// The file that holds signing key `key_id` (`getTokenSigningKeyPath`).
pub fn key_path(config: &Config, key_id: &str) -> Result<PathBuf, KeyError> {
    if key_id.is_empty() || key_id == POOL_KEY {
        match config.string("SEC_TOKEN_POOL_SIGNING_KEY_FILE")? {
            Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
            _ => Err(KeyError::token(
                "No master pool token key setup in SEC_TOKEN_POOL_SIGNING_KEY_FILE",
            )),
        }
    } else {
        // A key id names a file in the directory, never a path out of it (`-key ../x`).
        let plain = std::path::Path::new(key_id).file_name() == Some(std::ffi::OsStr::new(key_id));
        if !plain || key_id.starts_with('.') {
            return Err(KeyError::token(format!(
                "Invalid key id {key_id:?}: not a plain name"
            )));
        }
        match config.string("SEC_PASSWORD_DIRECTORY")? {
            Some(dir) if !dir.is_empty() => Ok(Path::new(&dir).join(key_id)),
            _ => Err(KeyError::token("SEC_PASSWORD_DIRECTORY is undefined")),
        }
    }
}

/// The secret of signing key `key_id`, unscrambled (and doubled for `POOL`).
pub fn signing_key(config: &Config, key_id: &str) -> Result<Vec<u8>, KeyError> {
    let path = key_path(config, key_id)?;
    let stored = read_secure_file(&path).map_err(|reason| {
        tracing::debug!("reading {}: {reason}", path.display());
        KeyError::token(format!("Failed to read file {} securely.", path.display()))
    })?;
    let mut key = scramble(&stored);
    if key_id.is_empty() || key_id == POOL_KEY {
        key.extend_from_within(..);
    }
    Ok(key)
}

/// The ids of the signing keys this pool has: `POOL` when its file exists, and every file of
/// `SEC_PASSWORD_DIRECTORY` whose name is a valid key id.
pub fn key_ids(config: &Config) -> Vec<String> {
    let mut ids = Vec::new();
    if key_path(config, POOL_KEY).is_ok_and(|p| p.is_file()) {
        ids.push(POOL_KEY.to_owned());
    }
    if let Ok(Some(dir)) = config.string("SEC_PASSWORD_DIRECTORY") {
        if let Ok(entries) = fs::read_dir(dir) {
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n != POOL_KEY && !n.starts_with('.'))
                .collect();
            names.sort();
            ids.extend(names);
        }
    }
    ids
}

/// Reads a key file as `read_secure_file` does: owned by this user, no access for group or
/// others, and of a sane size.
pub fn read_secure_file(path: &Path) -> Result<Vec<u8>, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    let euid = nix::unistd::geteuid().as_raw();
    if meta.uid() != euid {
        return Err(format!(
            "file must be owned by uid {euid}, was uid {}",
            meta.uid()
        ));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(format!(
            "file must not be accessible by others, had perms {:o}",
            meta.mode() & 0o7777
        ));
    }
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let mut bytes = Vec::new();
    file.take(MAX_KEY_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_KEY_BYTES {
        return Err(format!("file is larger than {MAX_KEY_BYTES} bytes"));
    }
    Ok(bytes)
}

/// Writes `secret` scrambled to `path`, mode 0600, replacing the file whole
/// (`write_password_file`; HTCondor writes the password without a trailing NUL).
pub fn write_password_file(path: &Path, secret: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(&scramble(secret))?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Makes signing key `path` (64 random bytes) unless it exists, as HTCondor's collector does
/// at start and reconfig (`create_pool_signing_key_if_needed`); its directory is made 0700 if
/// missing. Returns whether a key was made.
pub fn create_signing_key(path: &Path) -> io::Result<bool> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.exists() {
            fs::create_dir_all(dir)?;
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
        }
    }
    let mut file = match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => return Err(e),
    };
    let mut secret = [0u8; 64];
    rand::thread_rng().fill_bytes(&mut secret);
    let written = file
        .write_all(&scramble(&secret))
        .and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = fs::remove_file(path);
        return Err(e);
    }
    Ok(true)
}

/// Makes the pool's `POOL` signing key if it has none (the master at start; the tools of a
/// pool that runs without one). Returns the key's path when one was made.
pub fn create_pool_key_if_needed(config: &Config) -> Result<Option<PathBuf>, KeyError> {
    let path = key_path(config, POOL_KEY)?;
    match create_signing_key(&path) {
        Ok(true) => Ok(Some(path)),
        Ok(false) => Ok(None),
        Err(e) => Err(KeyError::token(format!(
            "Failed to create POOL token signing key in file {}: {e}",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scramble_is_htcondors_and_its_own_inverse() {
        assert_eq!(scramble(b"abcde"), vec![0xBF, 0xCF, 0xDD, 0x8B, 0xBB]);
        assert_eq!(scramble(&scramble(b"secret")), b"secret");
    }

    #[test]
    fn written_password_reads_back_and_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("POOL");
        write_password_file(&path, b"hunter2").unwrap();
        assert_eq!(fs::read(&path).unwrap(), scramble(b"hunter2"));
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_eq!(read_secure_file(&path).unwrap(), scramble(b"hunter2"));
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let refused = read_secure_file(&path).unwrap_err();
        assert!(refused.contains("perms 644"), "{refused}");
    }

    #[test]
    fn a_key_id_cannot_name_a_file_outside_the_key_directory() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::for_test("", "TOOL", None, dir.path());
        for bad in ["../POOL", "/etc/shadow", "a/b", "..", ".hidden"] {
            let err = key_path(&config, bad).unwrap_err();
            assert!(err.message.contains("not a plain name"), "{bad}: {err}");
        }
        assert!(key_path(&config, "OTHER")
            .unwrap()
            .ends_with("passwords.d/OTHER"));
    }

    #[test]
    fn a_signing_key_is_made_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("passwords.d").join("POOL");
        assert!(create_signing_key(&path).unwrap());
        let first = fs::read(&path).unwrap();
        assert_eq!(first.len(), 64);
        assert!(!create_signing_key(&path).unwrap());
        assert_eq!(fs::read(&path).unwrap(), first);
        let dir_mode = fs::metadata(path.parent().unwrap()).unwrap().mode();
        assert_eq!(dir_mode & 0o777, 0o700);
    }
}
