//! A job's own working directory `<work_root>/<id>` as a file system of its
//! own: a tmpfs of `execution.work_dir_quota_mb`, mounted by the root
//! daemon on the directory it made, so that a job filling its directory
//! gets `ENOSPC` at its quota and never fills the disk the daemon records
//! on (nor another job's room). Its pages are charged to the job's memory
//! cgroup, as everything the job writes to memory is.
//!
//! Paths are safe to mount on: `<work_root>` is root's and nobody else may
//! write in it, so the `<id>` entry the daemon made cannot be swapped for a
//! link by the job's user. A directory already on another file system than
//! `<work_root>` (the job ran before: an evicted job run again, or a daemon
//! restarted) is left mounted as it is.

use nix::fcntl::AtFlags;
use nix::mount::{mount, umount2, MntFlags, MsFlags};
use nix::sys::stat::{fstat, fstatat};
use std::os::fd::RawFd;
use std::path::{Path, PathBuf};

/// Is `<parent>/<name>` a mount point (on another device than `parent`)?
/// `None`: it does not exist.
pub(super) fn is_mount_point(parent: RawFd, name: &str) -> Result<Option<bool>, String> {
    let parent_device = fstat(parent).map_err(|err| err.to_string())?.st_dev;
    match fstatat(Some(parent), name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(stat) => Ok(Some(stat.st_dev != parent_device)),
        Err(nix::Error::ENOENT) => Ok(None),
        Err(err) => Err(format!("{name}: {err}")),
    }
}

/// Mount a tmpfs of `quota_mb` MiB on `dir` (`<parent>/<name>`, made by the
/// daemon), the job's (`uid`, `gid`, 0700), unless one is there already.
pub(super) fn hold_to_quota(
    (parent, name): (RawFd, &str),
    dir: &Path,
    quota_mb: u64,
    (uid, gid): (u32, u32),
) -> Result<(), String> {
    if is_mount_point(parent, name)? == Some(true) {
        return Ok(());
    }
    let options = format!("size={quota_mb}m,mode=0700,uid={uid},gid={gid}");
    mount(
        Some("tmpfs"),
        dir,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(options.as_str()),
    )
    .map_err(|err| {
        format!(
            "{}: cannot mount its {quota_mb} MiB tmpfs: {err} (execution.work_dir_quota_mb; null \
             lets jobs write to work_root's own file system)",
            dir.display()
        )
    })
}

/// Unmount the tmpfs on `dir` (`<parent>/<name>`), if one is there: what the
/// job left in it goes with it.
pub(super) fn release(parent: RawFd, name: &str, dir: &Path) -> Result<(), String> {
    if is_mount_point(parent, name)? != Some(true) {
        return Ok(());
    }
    umount2(dir, MntFlags::MNT_DETACH | MntFlags::UMOUNT_NOFOLLOW)
        .map_err(|err| format!("{}: cannot unmount: {err}", dir.display()))
}

/// The mount points under `root` (not `root` itself), deepest first, as
/// `/proc/self/mounts` lists them.
pub fn mount_points_under(root: &Path) -> Vec<PathBuf> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    let mut under: Vec<PathBuf> = mounts
        .lines()
        .filter_map(|line| line.split(' ').nth(1))
        .map(PathBuf::from)
        .filter(|point| point.starts_with(&root) && *point != root)
        .collect();
    under.sort_by_key(|point| std::cmp::Reverse(point.as_os_str().len()));
    under
}

/// Unmount every file system mounted under `root` (the jobs' own working
/// directories of a daemon that is gone), deepest first.
pub fn unmount_all_under(root: &Path) {
    for point in mount_points_under(root) {
        let _ = umount2(&point, MntFlags::MNT_DETACH | MntFlags::UMOUNT_NOFOLLOW);
    }
}
