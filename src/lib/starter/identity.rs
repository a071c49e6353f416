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
