//! Whose rights the daemon's file work on a job's behalf runs with: the file transfer, the
//! checkpoint copies and the job's event logs.
//!
//! In a personal pool the master is the owner of every job it runs: it does that work itself,
//! on the thread that asks, at no extra cost. In a system pool the master is root, and
//! HTCondor's shadow and starter switch to the job's owner before they touch the owner's
//! files (`set_user_priv`): a job reads and writes only what its owner could. Here the work
//! runs on a short-lived thread of its own that drops to the owner's account first (its
//! supplementary groups, group and user ids; no capability is left), while the rest of the
//! master keeps root's. Linux keeps credentials per thread; the C library makes `setuid`
//! and its kin apply to every thread of the process, so the thread makes the system calls
//! itself ([`rustix::thread`]). Nothing else runs on that thread, and it ends with the work:
//! nothing has to be switched back, and a failure half-way cannot leave root's thread with
//! the owner's rights or the owner's work with root's.
//!
//! Chosen over a helper process that `exec`s and drops its privileges (what the job launcher
//! does for the jobs themselves): the thread needs no exec, no wire format for requests and
//! replies, and moves open files and errors between the two sides as values. Its cost, a
//! thread's start and end (tens of microseconds), is paid only in a system pool; and unlike a
//! plain `fork` of the multi-threaded master, it runs ordinary Rust code safely.

use std::io;
use std::sync::mpsc::sync_channel;

use nix::unistd::Uid;
use rustix::thread::{set_thread_groups, set_thread_res_gid, set_thread_res_uid};

use crate::classad::ClassAd;
use crate::config::Config;
use crate::output::render::lookup_str;

use super::identity::{Account, AccountError};

/// Whose rights file work for a job runs with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rights {
    /// This process's own: it runs as the job's owner (a personal pool), or the owner is
    /// root.
    Own,
    /// The job's owner's, which this process (root) switches to for the work.
    Owner(Account),
}

impl Rights {
    /// Whether work for a job runs with its owner's rights: this process runs as root and
    /// the pool does not say otherwise. Never in a process that is not root (a personal pool,
    /// or a user's tool): no lookup is made then.
    pub fn switch_to_owners(config: &Config) -> bool {
        super::identity::runs_jobs_as_owners(config)
    }

    /// The rights for work on behalf of the user `owner` (when [`Rights::switch_to_owners`]
    /// says so; else this process's own).
    pub fn of_owner(owner: &str, config: &Config) -> Result<Rights, AccountError> {
        if !Rights::switch_to_owners(config) {
            return Ok(Rights::Own);
        }
        Rights::of_account(owner)
    }

    /// The rights of the account `owner`: its own, unless it is root (or this process runs
    /// as that account already).
    pub fn of_account(owner: &str) -> Result<Rights, AccountError> {
        match super::identity::lookup_cached(owner) {
            Ok(account) if account.is_current() => Ok(Rights::Own),
            Ok(account) => Ok(Rights::Owner(account)),
            Err(AccountError::Root(_)) => Ok(Rights::Own),
            Err(e) => Err(e),
        }
    }

    /// The rights for work on behalf of the job whose ad this is (its `Owner`); a job with
    /// no owner is this process's.
    pub fn of_job(job: &ClassAd, config: &Config) -> Result<Rights, AccountError> {
        match lookup_str(job, "Owner") {
            Some(owner) if !owner.is_empty() => Rights::of_owner(&owner, config),
            _ => Ok(Rights::Own),
        }
    }

    /// The user the work runs as.
    pub fn uid(&self) -> Uid {
        match self {
            Rights::Own => nix::unistd::geteuid(),
            Rights::Owner(a) => a.uid,
        }
    }

    /// Runs `work` with these rights: on this thread for [`Rights::Own`], else on a thread of
    /// its own that has dropped to the owner's account. An error (and `work` not run) when the
    /// thread cannot start or cannot switch; a panic in `work` is this thread's panic.
    pub fn run<R: Send>(&self, work: impl FnOnce() -> R + Send) -> io::Result<R> {
        let account = match self {
            Rights::Own => return Ok(work()),
            Rights::Owner(a) => a,
        };
        std::thread::scope(|s| join(spawn_as(s, account, work)?))
    }

    /// Passes items from `produce` to `consume` as they come, one of them with these rights
    /// and the other with this process's own: `produce` when `owner_produces`, else
    /// `consume`. This is how a file goes from where only the owner may read it to where only
    /// the daemon may write (a checkpoint into the spool), or back: open files are the items.
    /// `produce` hands each item to its sink, which answers false once the consumer has
    /// stopped (the producer then stops too). The consumer's error wins over the producer's.
    pub fn relay<T: Send, E: Send>(
        &self,
        owner_produces: bool,
        produce: impl FnOnce(&mut dyn FnMut(T) -> bool) -> Result<(), E> + Send,
        mut consume: impl FnMut(T) -> Result<(), E> + Send,
    ) -> io::Result<Result<(), E>> {
        if *self == Rights::Own {
            let mut failed = None;
            let produced = produce(&mut |item| match consume(item) {
                Ok(()) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            });
            return Ok(failed.map_or(produced, Err));
        }
        // A few items in flight: open files, so that a large tree does not hold thousands.
        let (tx, rx) = sync_channel::<T>(8);
        let producer = move || {
            let r = produce(&mut |item| tx.send(item).is_ok());
            drop(tx);
            r
        };
        let consumer = move || {
            for item in rx {
                consume(item)?;
            }
            Ok(())
        };
        let Rights::Owner(account) = self else {
            unreachable!("handled above")
        };
        let (produced, consumed) = std::thread::scope(|s| {
            if owner_produces {
                let h = spawn_as(s, account, producer)?;
                let consumed = consumer();
                Ok::<_, io::Error>((join(h)?, consumed))
            } else {
                let h = spawn_as(s, account, consumer)?;
                let produced = producer();
                Ok((produced, join(h)?))
            }
        })?;
        Ok(consumed.and(produced))
    }
}

/// Starts `work` on a thread of `scope` that drops to `account` first.
fn spawn_as<'scope, R: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    account: &'scope Account,
    work: impl FnOnce() -> R + Send + 'scope,
) -> io::Result<std::thread::ScopedJoinHandle<'scope, io::Result<R>>> {
    std::thread::Builder::new()
        .name("condor_as_owner".into())
        .spawn_scoped(scope, move || {
            become_owner(account)?;
            Ok(work())
        })
}

/// The result of a thread of [`spawn_as`]; its panic is the caller's.
fn join<R>(h: std::thread::ScopedJoinHandle<'_, io::Result<R>>) -> io::Result<R> {
    h.join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Drops the calling thread (only it) to `account` for good: supplementary groups, group,
/// user; checked afterwards.
fn become_owner(account: &Account) -> io::Result<()> {
    let groups: Vec<rustix::thread::Gid> = account
        .groups
        .iter()
        .map(|g| rustix::thread::Gid::from_raw(g.as_raw()))
        .collect();
    let gid = rustix::thread::Gid::from_raw(account.gid.as_raw());
    let uid = rustix::thread::Uid::from_raw(account.uid.as_raw());
    set_thread_groups(&groups)?;
    set_thread_res_gid(gid, gid, gid)?;
    set_thread_res_uid(uid, uid, uid)?;
    if thread_euid()? != account.uid.as_raw() {
        return Err(io::Error::other(format!(
            "the thread did not become {}",
            account.name
        )));
    }
    Ok(())
}

/// The calling thread's effective uid (the kernel's, not the C library's idea of the
/// process's).
fn thread_euid() -> io::Result<u32> {
    // SAFETY: a system call without arguments.
    let euid = unsafe { libc::syscall(libc::SYS_geteuid) };
    u32::try_from(euid).map_err(|_| io::Error::last_os_error())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn own_rights_run_on_this_thread() {
        let here = std::thread::current().id();
        let ran = Rights::Own.run(|| std::thread::current().id()).unwrap();
        assert_eq!(ran, here);
        // Relaying with one's own rights: every item, in order, then the producer's result.
        let mut got = Vec::new();
        let r = Rights::Own.relay(
            true,
            |sink| {
                for i in 0..5 {
                    if !sink(i) {
                        break;
                    }
                }
                Ok::<(), String>(())
            },
            |i| {
                got.push(i);
                if i == 3 {
                    Err("enough".to_string())
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r.unwrap(), Err("enough".to_string()));
        assert_eq!(got, [0, 1, 2, 3]);
    }

    #[test]
    fn owners_rights_only_where_the_master_is_root_and_the_pool_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let config = |text: &str| Config::for_test(text, "MASTER", None, dir.path());
        let default = config("");
        let personal = config("CONDORLITE_RUN_AS_OWNER = False\n");
        assert!(!Rights::switch_to_owners(&personal));
        assert_eq!(
            Rights::of_owner("anyone-at-all", &personal).unwrap(),
            Rights::Own
        );
        if nix::unistd::geteuid().is_root() {
            assert!(Rights::switch_to_owners(&default));
            assert_eq!(Rights::of_owner("root", &default).unwrap(), Rights::Own);
            assert_eq!(
                Rights::of_owner("no-such-user-condorlite", &default).unwrap_err(),
                AccountError::Unknown("no-such-user-condorlite".into())
            );
        } else {
            assert!(!Rights::switch_to_owners(&default));
            assert_eq!(
                Rights::of_owner("anyone-at-all", &default).unwrap(),
                Rights::Own
            );
        }
    }

    /// As root: the work runs as the owner (what it makes is the owner's, what only root may
    /// read it may not), and the calling thread keeps root's rights.
    #[test]
    fn the_owners_work_runs_with_the_owners_rights_only() {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipped: switching to another user needs root");
            return;
        }
        let nobody = Account {
            name: "nobody".into(),
            uid: Uid::from_raw(65534),
            gid: nix::unistd::Gid::from_raw(65534),
            groups: vec![nix::unistd::Gid::from_raw(65534)],
            home: "/".into(),
        };
        let rights = Rights::Owner(nobody);
        let t = tempfile::tempdir().unwrap();
        std::fs::set_permissions(
            t.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o777),
        )
        .unwrap();
        let secret = t.path().join("secret");
        std::fs::write(&secret, "s").unwrap();
        std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o640))
            .unwrap();
        let made = t.path().join("made");
        let (read, wrote) = rights
            .run(|| {
                (
                    std::fs::read(&secret).map_err(|e| e.raw_os_error()),
                    std::fs::write(&made, "x"),
                )
            })
            .unwrap();
        assert_eq!(read, Err(Some(libc::EACCES)));
        wrote.unwrap();
        assert_eq!(std::fs::metadata(&made).unwrap().uid(), 65534);
        assert_eq!(thread_euid().unwrap(), 0);
        assert_eq!(std::fs::read(&secret).unwrap(), b"s");
        // Relayed: the owner opens, root reads what the owner opened (and the reverse).
        let r = rights.relay(
            true,
            |sink| {
                let f = std::fs::File::open(&made).map_err(|e| e.to_string())?;
                sink(f);
                Ok::<(), String>(())
            },
            |mut f| {
                let mut s = String::new();
                std::io::Read::read_to_string(&mut f, &mut s).map_err(|e| e.to_string())?;
                assert_eq!(s, "x");
                Ok(())
            },
        );
        r.unwrap().unwrap();
        let r = rights.relay(
            false,
            |sink| {
                sink(secret.clone());
                Ok::<(), String>(())
            },
            |p| match std::fs::read(&p) {
                Err(e) if e.raw_os_error() == Some(libc::EACCES) => Err("refused".to_string()),
                other => Err(format!("{other:?}")),
            },
        );
        assert_eq!(r.unwrap(), Err("refused".to_string()));
    }
}
