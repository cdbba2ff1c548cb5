//! The state directory made without following a symbolic link (issue 42):
//! `state_dir` holds the database whose rows say as whom each job runs, so a
//! link planted where it should be (by whoever may write its parent) would
//! hand the daemon a directory of someone else's choosing. Its missing
//! parents are made one by one with `mkdir`, which never follows a link
//! either. Parents that already exist may be links, but only ones nobody
//! else could have planted or moved: every existing part of the path is
//! owned by root or the daemon's user, and none is a directory others may
//! write without the sticky bit ([`check_state_dir`], which `--check-config`
//! runs too).

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// Why the state directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StateDirError {
    /// `state_dir` is a symbolic link.
    #[error(
        "state_dir {path} is a symbolic link (to {target}); intersticed does not follow it: set state_dir \
         to the directory itself, or replace the link with a directory"
    )]
    Symlink {
        /// The configured state directory.
        path: PathBuf,
        /// What the link points to.
        target: String,
    },
    /// `state_dir` (or one of its parents) exists and is not a directory.
    #[error("state_dir: {path} exists and is not a directory; remove it or set state_dir elsewhere")]
    NotADirectory {
        /// The path that is not a directory.
        path: PathBuf,
    },
    /// A part of the path another user could have planted or may swap.
    #[error("state_dir: {path} {why}; keep the state directory's path root's (or the daemon user's) all the way down")]
    Unsafe {
        /// The part of the path.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A directory could not be made or examined.
    #[error("cannot create {path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Make `dir` and its missing parents, mode 0755 less the umask (never
/// group-writable whatever the umask: the shipped unit's 0007 under
/// `Group=interstice` would make them group-writable, and a member could
/// then swap the state directory for one of their own), refusing a `dir`
/// that is a symbolic link.
pub fn create_state_dir(dir: &Path) -> Result<(), StateDirError> {
    check_state_dir(dir)?;
    let mut made = PathBuf::new();
    for component in dir.components() {
        made.push(component);
        match std::fs::symlink_metadata(&made) {
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                // `mkdir` fails on anything planted meanwhile, a link included.
                std::fs::DirBuilder::new()
                    .mode(0o755)
                    .create(&made)
                    .map_err(|source| StateDirError::Io {
                        path: made.clone(),
                        source,
                    })?;
            }
            Err(source) => return Err(StateDirError::Io { path: made, source }),
        }
    }
    // Every part exists now: the whole path is checked, the directory itself included.
    check_state_dir(dir)
}

/// Check the parts of `dir`'s path that exist, without changing anything:
/// each owned by root or the daemon's user, no parent among them writable
/// by others unless sticky (where others cannot move what they do not own),
/// and `dir` itself, if it exists, a directory and not a link.
pub fn check_state_dir(dir: &Path) -> Result<(), StateDirError> {
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::geteuid().as_raw();
    let mut part = PathBuf::new();
    for component in dir.components() {
        part.push(component);
        let metadata = match std::fs::symlink_metadata(&part) {
            Ok(metadata) => metadata,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(source) => return Err(StateDirError::Io { path: part, source }),
        };
        let unsafe_part = |why: String| {
            Err(StateDirError::Unsafe {
                path: part.clone(),
                why,
            })
        };
        if metadata.uid() != 0 && metadata.uid() != me {
            let kind = if metadata.file_type().is_symlink() {
                "a symbolic link"
            } else {
                "a directory"
            };
            return unsafe_part(format!(
                "is {kind} owned by uid {}, who could point the state elsewhere",
                metadata.uid()
            ));
        }
        // (The state directory's own mode is the daemon's to tighten at start.)
        let parent = part.as_path() != dir;
        if parent && metadata.is_dir() && metadata.mode() & 0o022 != 0 && metadata.mode() & 0o1000 == 0 {
            return unsafe_part(format!(
                "is writable by others (mode {:04o}) without the sticky bit: anyone could swap what it holds",
                metadata.mode() & 0o7777
            ));
        }
    }
    let metadata = std::fs::symlink_metadata(dir).map_err(|source| StateDirError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    if metadata.file_type().is_symlink() {
        let target = std::fs::read_link(dir).map_or_else(
            |err| format!("unreadable: {err}"),
            |target| target.display().to_string(),
        );
        return Err(StateDirError::Symlink {
            path: dir.to_path_buf(),
            target,
        });
    }
    if !metadata.is_dir() {
        return Err(StateDirError::NotADirectory {
            path: dir.to_path_buf(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn missing_directories_are_made_and_an_existing_one_is_kept() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b/state");
        create_state_dir(&dir).unwrap();
        assert!(dir.is_dir());
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o020, 0, "never group-writable: {mode:o}");
        create_state_dir(&dir).unwrap();
    }

    /// The finding: a symbolic link in a parent of `state_dir` was
    /// followed, whoever planted it. A link or directory owned by another
    /// user, or a directory others may write (without the sticky bit),
    /// anywhere on the path is refused, by `--check-config` too; a link
    /// root planted is the admin's own and is followed.
    #[test]
    fn a_parent_another_user_could_plant_or_swap_is_refused() {
        if !nix::unistd::geteuid().is_root() {
            return; // chown to another user needs root
        }
        let root = tempfile::tempdir().unwrap();
        let real = root.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        create_state_dir(&link.join("state")).expect("root's own link is the admin's");
        let nobody = nix::unistd::Uid::from_raw(65534);
        nix::unistd::fchownat(
            None,
            &link,
            Some(nobody),
            None,
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .unwrap();
        let err = check_state_dir(&link.join("state")).unwrap_err().to_string();
        assert!(err.contains("a symbolic link owned by uid 65534"), "{err}");
        let open = root.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = create_state_dir(&open.join("state")).unwrap_err().to_string();
        assert!(err.contains("writable by others (mode 0777)"), "{err}");
        assert!(!open.join("state").exists(), "nothing made under it");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
        create_state_dir(&open.join("state")).expect("sticky, like /tmp: others cannot move root's entries");
    }

    #[test]
    fn a_symlinked_state_dir_is_refused_not_followed() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = root.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let dir = root.path().join("state");
        std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
        let err = create_state_dir(&dir).unwrap_err().to_string();
        assert!(
            err.contains("is a symbolic link") && err.contains(&elsewhere.display().to_string()),
            "{err}"
        );
        // A dangling link is refused too, and nothing is made where it points.
        let dangling = root.path().join("dangling");
        std::os::unix::fs::symlink(root.path().join("nowhere"), &dangling).unwrap();
        assert!(matches!(
            create_state_dir(&dangling),
            Err(StateDirError::Symlink { .. })
        ));
        assert!(!root.path().join("nowhere").exists());
        // And a file where the directory should be.
        let file = root.path().join("file");
        std::fs::write(&file, "").unwrap();
        assert!(matches!(
            create_state_dir(&file),
            Err(StateDirError::NotADirectory { .. })
        ));
    }
}
