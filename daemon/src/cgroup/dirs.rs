//! The daemon's cgroup directories: its name (one subtree per state
//! directory) and directories nobody but the daemon may write in.

use std::path::{Path, PathBuf};

/// The name of a daemon's cgroup: its state directory, `/` spelled `-`
/// (and `-` spelled `\x2d`, as systemd escapes paths), so daemons on
/// different state directories never share job cgroups.
pub fn daemon_name(state_dir: &Path) -> String {
    let path = state_dir
        .canonicalize()
        .unwrap_or_else(|_| state_dir.to_path_buf());
    let text = path.to_string_lossy();
    let name = text.trim_matches('/').replace('-', "\\x2d").replace('/', "-");
    if name.is_empty() || name.starts_with('.') {
        format!("root{name}")
    } else {
        name
    }
}

/// `<mount>/interstice/<daemon>`, each level a [`private_dir`].
pub(super) fn subtree(mount: &Path, daemon: &str) -> Result<PathBuf, String> {
    let parent = mount.join("interstice");
    private_dir(&parent)?;
    let base = parent.join(daemon);
    private_dir(&base)?;
    Ok(base)
}

/// Make `dir` a directory of the daemon's that nobody else may write in:
/// created with mode 0755 whatever the umask, or, if it exists, checked to
/// be the daemon's own directory (not a symlink, not another user's) and set
/// to 0755 again. The shipped unit's `UMask=0007` under `Group=interstice`
/// would otherwise leave cgroups group-writable, and any member of the
/// group could create `job-N` before the daemon, or freeze and kill the
/// jobs in it.
pub(super) fn private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    match std::fs::DirBuilder::new().mode(0o755).create(dir) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(format!("{}: {err}", dir.display())),
    }
    let metadata = std::fs::symlink_metadata(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    if !metadata.is_dir() {
        return Err(format!("{}: not a directory; remove it", dir.display()));
    }
    let daemon = nix::unistd::geteuid().as_raw();
    if metadata.uid() != daemon {
        return Err(format!(
            "{}: owned by uid {}, not by the daemon (uid {daemon}); remove it",
            dir.display(),
            metadata.uid()
        ));
    }
    if metadata.mode() & 0o7777 != 0o755 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
            .map_err(|err| format!("{}: {err}", dir.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_directory_has_its_own_subtree() {
        assert_eq!(daemon_name(Path::new("/no/such/var-lib")), "no-such-var\\x2dlib");
        assert_ne!(
            daemon_name(Path::new("/no/a/state")),
            daemon_name(Path::new("/no/b/state"))
        );
        assert_eq!(daemon_name(Path::new("/")), "root");
    }
}
