//! The account a job runs as.
//!
//! In a personal pool every job runs as the daemon's own user. In a system pool (a master
//! started by root) a job runs as its `Owner`, as HTCondor's starter switches to the owner's
//! uid before it execs the job: the account is resolved here, in the daemon, before any fork
//! (the lookups allocate and read `/etc/passwd` and `/etc/group`), and a forked child drops to
//! it with [`Account::assume`], which makes only the three system calls that are safe between
//! `fork` and `exec`.

use std::ffi::CString;
use std::fmt;
use std::path::PathBuf;

use nix::unistd::{Gid, Uid, User};

/// A resolved local account: who a job (or a file transfer) runs as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub name: String,
    pub uid: Uid,
    pub gid: Gid,
    /// Supplementary groups, the primary group among them (`getgrouplist`).
    pub groups: Vec<Gid>,
    pub home: PathBuf,
}

/// Why an `Owner` has no account to run as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountError {
    /// No such user in the password database.
    Unknown(String),
    /// The user is root: HTCondor never runs a job as root.
    Root(String),
    /// The lookup itself failed.
    Lookup(String, String),
}

impl fmt::Display for AccountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccountError::Unknown(name) => write!(f, "user \"{name}\" is not a local account"),
            AccountError::Root(name) => write!(f, "jobs may not run as \"{name}\" (uid 0)"),
            AccountError::Lookup(name, why) => write!(f, "cannot look up user \"{name}\": {why}"),
        }
    }
}

impl std::error::Error for AccountError {}

impl Account {
    /// The account named `name`; never root.
    pub fn lookup(name: &str) -> Result<Account, AccountError> {
        let user = User::from_name(name)
            .map_err(|e| AccountError::Lookup(name.to_string(), e.to_string()))?
            .ok_or_else(|| AccountError::Unknown(name.to_string()))?;
        if user.uid.is_root() {
            return Err(AccountError::Root(name.to_string()));
        }
        Ok(Account::from_user(user))
    }

    /// The account this process runs as (its effective uid).
    pub fn current() -> Account {
        let uid = nix::unistd::geteuid();
        match User::from_uid(uid) {
            Ok(Some(user)) => Account::from_user(user),
            _ => {
                let gid = nix::unistd::getegid();
                Account {
                    name: uid.to_string(),
                    uid,
                    gid,
                    groups: vec![gid],
                    home: PathBuf::from("/"),
                }
            }
        }
    }

    fn from_user(user: User) -> Account {
        let groups = CString::new(user.name.as_bytes())
            .ok()
            .and_then(|name| nix::unistd::getgrouplist(&name, user.gid).ok())
            .unwrap_or_else(|| vec![user.gid]);
        Account {
            name: user.name,
            uid: user.uid,
            gid: user.gid,
            groups,
            home: user.dir,
        }
    }

    /// Whether this process already runs as this account (nothing to switch).
    pub fn is_current(&self) -> bool {
        nix::unistd::geteuid() == self.uid
    }

    /// Drops this process to the account for good: supplementary groups, then the group,
    /// then the user (real, effective and saved ids). Only system calls, no allocation: safe
    /// in a child between `fork` and `exec`. Fails unless the process may switch (root), or
    /// already is the account.
    pub fn assume(&self) -> nix::Result<()> {
        if self.is_current() && nix::unistd::getuid() == self.uid {
            return Ok(());
        }
        nix::unistd::setgroups(&self.groups)?;
        nix::unistd::setresgid(self.gid, self.gid, self.gid)?;
        nix::unistd::setresuid(self.uid, self.uid, self.uid)?;
        Ok(())
    }

    /// The raw ids, for tools that take them as numbers (`docker run --user`).
    pub fn raw_ids(&self) -> (u32, u32, Vec<u32>) {
        (
            self.uid.as_raw(),
            self.gid.as_raw(),
            self.groups.iter().map(|g| g.as_raw()).collect(),
        )
    }
}

/// The knob that makes a master running as root run each job as its `Owner` (default
/// `True`): `False` runs every job as the master's user, as a personal pool does (and then
/// only queue superusers may submit through the master, see `daemon::requests`).
pub const RUN_AS_OWNER_KNOB: &str = "CONDORLITE_RUN_AS_OWNER";

/// Whether this process runs as root (its effective uid, read once: a daemon's never
/// changes).
pub fn daemon_is_root() -> bool {
    static ROOT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ROOT.get_or_init(|| nix::unistd::geteuid().is_root())
}

/// Whether this daemon runs jobs as their owners: it runs as root and the pool does not
/// say otherwise ([`RUN_AS_OWNER_KNOB`]). Never true for a daemon that is not root (a
/// personal pool): no lookup is made then.
pub fn runs_jobs_as_owners(config: &crate::config::Config) -> bool {
    daemon_is_root() && !matches!(config.bool(RUN_AS_OWNER_KNOB), Ok(Some(false)))
}

/// How long a looked-up account is reused before the password database is read again.
const ACCOUNT_TTL: std::time::Duration = std::time::Duration::from_secs(60);

type Cached = (std::time::Instant, Result<Account, AccountError>);

/// The account a job of `owner` runs as: `None` when it runs as the daemon's own user (a
/// daemon that is not root, or a pool that runs jobs as the master's user, or a job of root's
/// own in a root master: a personal pool run as root, as in a container), else the owner's
/// account. Lookups are kept a minute per owner (the spawn path is hot).
///
/// Only root's own jobs have `Owner` root: the master takes the owner of what it is sent
/// from the kernel (`SO_PEERCRED`), and only root can write a root master's store.
pub fn job_account(
    owner: &str,
    config: &crate::config::Config,
) -> Result<Option<Account>, AccountError> {
    if !runs_jobs_as_owners(config) {
        return Ok(None);
    }
    match lookup_cached(owner) {
        Ok(account) => Ok(Some(account)),
        Err(AccountError::Root(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// [`Account::lookup`], kept a minute per owner (at most 1,024 owners).
pub fn lookup_cached(owner: &str) -> Result<Account, AccountError> {
    static CACHE: std::sync::Mutex<Option<std::collections::HashMap<String, Cached>>> =
        std::sync::Mutex::new(None);
    let now = std::time::Instant::now();
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let map = cache.get_or_insert_with(Default::default);
    if let Some((at, found)) = map.get(owner) {
        if now.duration_since(*at) < ACCOUNT_TTL {
            return found.clone();
        }
    }
    let found = Account::lookup(owner);
    if map.len() >= 1024 {
        map.clear();
    }
    map.insert(owner.to_owned(), (now, found.clone()));
    found
}

impl Account {
    /// Runs `f` with this account's file-system rights on the calling thread only: its
    /// supplementary groups, file-system gid and uid (`setgroups`, `setfsgid`, `setfsuid` as
    /// raw system calls, which act on one thread, unlike libc's wrappers that change every
    /// thread of the process), then the thread's own again. What `f` opens or makes is
    /// checked against (and owned by) the account, as if the user did it: the daemon's
    /// capabilities to override file permissions are off meanwhile. Only from a thread that
    /// may switch (root); `f` must not start threads or processes.
    pub fn with_fs_rights<T>(&self, f: impl FnOnce() -> T) -> std::io::Result<T> {
        let saved = nix::unistd::getgroups()?;
        let raw: Vec<libc::gid_t> = self.groups.iter().map(|g| g.as_raw()).collect();
        // SAFETY: plain system calls on this thread's credentials, with a valid array.
        unsafe {
            if libc::syscall(libc::SYS_setgroups, raw.len(), raw.as_ptr()) < 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        let old_gid = fs_id(libc::SYS_setfsgid, self.gid.as_raw());
        let old_uid = fs_id(libc::SYS_setfsuid, self.uid.as_raw());
        let switched = fs_id(libc::SYS_setfsuid, u32::MAX) == self.uid.as_raw()
            && fs_id(libc::SYS_setfsgid, u32::MAX) == self.gid.as_raw();
        let result = switched.then(f);
        fs_id(libc::SYS_setfsuid, old_uid);
        fs_id(libc::SYS_setfsgid, old_gid);
        let saved: Vec<libc::gid_t> = saved.iter().map(|g| g.as_raw()).collect();
        // SAFETY: as above.
        unsafe { libc::syscall(libc::SYS_setgroups, saved.len(), saved.as_ptr()) };
        result.ok_or_else(|| std::io::Error::from_raw_os_error(libc::EPERM))
    }
}

/// `setfsuid`/`setfsgid` (`call`) to `id` on this thread: the id it had (`u32::MAX`, an
/// invalid id, changes nothing and only reads it).
fn fs_id(call: libc::c_long, id: u32) -> u32 {
    // SAFETY: a plain system call.
    unsafe { libc::syscall(call, id) as u32 }
}

/// Runs `f` with the file-system rights of `account` when there is one, else as the
/// daemon itself (a job that runs as the daemon's user).
pub fn as_user<T>(account: Option<&Account>, f: impl FnOnce() -> T) -> std::io::Result<T> {
    match account {
        Some(a) if !a.is_current() => a.with_fs_rights(f),
        _ => Ok(f()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_account_is_who_we_are() {
        let me = Account::current();
        assert_eq!(me.uid, nix::unistd::geteuid());
        assert!(me.is_current());
        assert!(me.groups.contains(&me.gid) || me.groups.is_empty());
        // Switching to oneself changes nothing and always succeeds.
        assert_eq!(me.assume(), Ok(()));
        // Its own rights on files: nothing to switch either.
        assert_eq!(as_user(Some(&me), || 7).unwrap(), 7);
        assert_eq!(as_user(None, || 8).unwrap(), 8);
    }

    #[test]
    fn file_rights_are_the_users_on_this_thread_only() {
        if !daemon_is_root() {
            eprintln!("skipped: switching file-system rights needs root");
            return;
        }
        let Ok(nobody) = Account::lookup("nobody") else {
            eprintln!("skipped: no account \"nobody\" on this machine");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("private");
        std::fs::create_dir(&private).unwrap();
        std::fs::set_permissions(
            &private,
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o777),
        )
        .unwrap();
        let made = dir.path().join("made");
        let (denied, owner) = nobody
            .with_fs_rights(|| {
                let denied = std::fs::write(private.join("x"), "x").unwrap_err();
                std::fs::write(&made, "x").unwrap();
                let owner = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&made).unwrap());
                (denied.raw_os_error(), owner)
            })
            .unwrap();
        assert_eq!(
            denied,
            Some(libc::EACCES),
            "root's rights are off meanwhile"
        );
        assert_eq!(owner, nobody.uid.as_raw(), "what it makes is the user's");
        // And back: root's rights again.
        std::fs::write(private.join("x"), "x").unwrap();
    }

    #[test]
    fn who_a_job_runs_as_depends_on_the_daemon_and_the_pool() {
        let dir = tempfile::tempdir().unwrap();
        let config = |text: &str| crate::config::Config::for_test(text, "MASTER", None, dir.path());
        let personal = config("CONDORLITE_RUN_AS_OWNER = False\n");
        // Where jobs run as the daemon's user, no owner is looked up, known or not.
        assert_eq!(job_account("no-such-user-condorlite", &personal), Ok(None));
        assert_eq!(job_account("root", &personal), Ok(None));
        let system = config("");
        if daemon_is_root() {
            assert!(runs_jobs_as_owners(&system));
            // Root's own jobs run as the daemon (root) itself: a root personal pool.
            assert_eq!(job_account("root", &system), Ok(None));
            // Asked again (from the cache): the same answer.
            assert_eq!(
                job_account("no-such-user-condorlite", &system),
                Err(AccountError::Unknown("no-such-user-condorlite".into()))
            );
            assert_eq!(
                job_account("no-such-user-condorlite", &system),
                Err(AccountError::Unknown("no-such-user-condorlite".into()))
            );
        } else {
            // A daemon that is not root runs every job as itself.
            assert!(!runs_jobs_as_owners(&system));
            assert_eq!(job_account("root", &system), Ok(None));
        }
    }

    #[test]
    fn root_and_unknown_users_have_no_account() {
        assert_eq!(
            Account::lookup("root"),
            Err(AccountError::Root("root".into()))
        );
        let err = Account::lookup("no-such-user-condorlite").unwrap_err();
        assert_eq!(err, AccountError::Unknown("no-such-user-condorlite".into()));
        assert_eq!(
            err.to_string(),
            "user \"no-such-user-condorlite\" is not a local account"
        );
    }
}
