//! Binding an `ipc://` endpoint so that only Batsim's user can connect:
//! connecting to a Unix socket takes write permission on it, so the kernel
//! keeps every other local user out (root excepted) — none of them can send
//! the first Batsim message and become the driver. The socket is bound in a
//! new private directory (0700) beside the requested path, made 0600 (and
//! given to the driver's user when the adapter is root and that user is
//! another), then renamed to the requested path: it is never reachable by
//! anyone else, whatever the umask. A `tcp://` endpoint carries no
//! credentials: there any local user may connect, and the first Batsim peer
//! drives (later peers are answered with an error and ignored).

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The requested path of a bound private socket, removed on drop (ZeroMQ
/// removes only the name it bound, the private one).
#[derive(Debug)]
pub(super) struct PrivateSocket(PathBuf);

impl Drop for PrivateSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Bind `socket` at `path` (an `ipc://` endpoint's path), connectable only
/// by `driver_uid` (`None`: the adapter's own user). The error says what
/// failed, for the endpoint's error message.
pub(super) fn bind_private(
    socket: &zmq::Socket,
    path: &Path,
    driver_uid: Option<u32>,
) -> Result<PrivateSocket, String> {
    if path.to_string_lossy().starts_with('@') {
        return Err(
            "an abstract socket (@name) has no permissions to keep other users out; give a path".into(),
        );
    }
    let name = path.file_name().ok_or("the endpoint names no file")?;
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let private = parent.join(format!(".{}.{}", name.to_string_lossy(), std::process::id()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&private)
        .map_err(|err| format!("cannot create {}: {err}", private.display()))?;
    let bound = bind_and_move(socket, &private.join("s"), path, driver_uid);
    let _ = std::fs::remove_dir_all(&private);
    bound.map(|()| PrivateSocket(path.to_path_buf()))
}

/// Bind at `temporary` (in the private directory), make it the driver's
/// alone, then move it to `path`.
fn bind_and_move(
    socket: &zmq::Socket,
    temporary: &Path,
    path: &Path,
    driver_uid: Option<u32>,
) -> Result<(), String> {
    socket
        .bind(&format!("ipc://{}", temporary.display()))
        .map_err(|err| format!("{err}"))?;
    std::fs::set_permissions(temporary, std::fs::Permissions::from_mode(0o600))
        .map_err(|err| format!("cannot make the socket private: {err}"))?;
    let own = nix::unistd::geteuid().as_raw();
    if let Some(uid) = driver_uid.filter(|uid| *uid != own) {
        std::os::unix::fs::chown(temporary, Some(uid), None).map_err(|err| {
            format!(
                "cannot give the socket to uid {uid} ({err}): only root can; run Batsim as uid {own} instead"
            )
        })?;
    }
    std::fs::rename(temporary, path)
        .map_err(|err| format!("cannot move the socket to {}: {err}", path.display()))
}
