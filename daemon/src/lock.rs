//! One daemon per state directory: an exclusive `flock` on `<state>/lock`,
//! held for the daemon's lifetime (the kernel drops it when the process
//! exits, also on a crash, so there is never a stale lock to clean up). The
//! file holds the holder's PID for the message the next one prints.
//!
//! Only the daemon's user may open it (mode 0600, made so again at each start
//! for a file an older daemon left 0644): `flock` needs only a descriptor
//! opened for reading, so a lock file others can read is one any local user
//! can hold while the daemon is down, and keep it from starting. A lock file
//! another user owns is refused for the same reason.

use nix::fcntl::{Flock, FlockArg};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The held lock; dropping it releases the state directory.
#[derive(Debug)]
pub struct StateLock {
    _file: Flock<File>,
}

/// Why the state directory could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another daemon holds it.
    #[error(
        "another intersticed{} is using the state directory {dir}; stop it first, or give this one \
         another state directory (--state)",
        holder.map(|pid| format!(" (pid {pid})")).unwrap_or_default()
    )]
    Held {
        /// The state directory.
        dir: PathBuf,
        /// The PID written by the holder, if readable.
        holder: Option<u32>,
    },
    /// The lock file belongs to another user, who could hold it.
    #[error(
        "{path} is owned by uid {owner}, not by this daemon's user (uid {ours}): whoever owns it can lock it and \
         keep intersticed from starting; remove it (`rm {path}`: the daemon makes a new one, mode 0600) and start again"
    )]
    ForeignOwner {
        /// `<state>/lock`.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// The daemon's effective uid.
        ours: u32,
    },
    /// The lock file could not be opened or written.
    #[error("cannot lock {path}: {source}")]
    Io {
        /// `<state>/lock`.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Lock `state_dir` for this process, or say who holds it. The lock file is
/// opened without following a symlink.
pub fn lock_state_dir(state_dir: &Path) -> Result<StateLock, LockError> {
    let path = state_dir.join("lock");
    let io = |source: std::io::Error| LockError::Io {
        path: path.clone(),
        source,
    };
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
        .open(&path)
        .map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    let ours = nix::unistd::geteuid().as_raw();
    if metadata.uid() != ours {
        return Err(LockError::ForeignOwner {
            path,
            owner: metadata.uid(),
            ours,
        });
    }
    if metadata.permissions().mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(io)?;
    }
    let mut lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => lock,
        Err((mut file, nix::errno::Errno::EWOULDBLOCK)) => {
            let mut text = String::new();
            let holder = file
                .read_to_string(&mut text)
                .ok()
                .and_then(|_| text.trim().parse().ok());
            return Err(LockError::Held {
                dir: state_dir.to_path_buf(),
                holder,
            });
        }
        Err((_, errno)) => return Err(io(errno.into())),
    };
    lock.set_len(0).map_err(io)?;
    lock.rewind().map_err(io)?;
    writeln!(lock, "{}", std::process::id()).map_err(io)?;
    Ok(StateLock { _file: lock })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_with_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock_state_dir(dir.path()).unwrap();
        // flock locks belong to the open file description: a second open in
        // the same process conflicts, as another process would.
        match lock_state_dir(dir.path()) {
            Err(LockError::Held { holder, .. }) => assert_eq!(holder, Some(std::process::id())),
            other => panic!("expected Held, got {other:?}"),
        }
        drop(held);
        lock_state_dir(dir.path()).expect("free again once dropped");
    }

    #[test]
    fn the_lock_file_is_private_and_an_old_open_one_is_made_private() {
        let dir = tempfile::tempdir().unwrap();
        let mode = |dir: &Path| std::fs::metadata(dir.join("lock")).unwrap().permissions().mode() & 0o777;
        drop(lock_state_dir(dir.path()).unwrap());
        assert_eq!(mode(dir.path()), 0o600);
        std::fs::set_permissions(dir.path().join("lock"), std::fs::Permissions::from_mode(0o644)).unwrap();
        drop(lock_state_dir(dir.path()).unwrap());
        assert_eq!(mode(dir.path()), 0o600);
    }

    #[test]
    fn a_symlinked_lock_file_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("lock")).unwrap();
        assert!(matches!(lock_state_dir(dir.path()), Err(LockError::Io { .. })));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }
}
