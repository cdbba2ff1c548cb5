//! A finished job's working directory `<work_root>/<id>` removed, as root,
//! without following anything its user planted: every entry is opened or
//! unlinked relative to a directory already open (`openat`/`unlinkat` with
//! `O_NOFOLLOW`), never by path, so a symlink or a directory swapped in
//! meanwhile is removed as itself, never gone through; and nothing on
//! another file system is entered (the user cannot mount, but a bind mount
//! an admin made is not the job's).

use nix::dir::Dir;
use nix::fcntl::{openat, OFlag};
use nix::sys::stat::{fstat, Mode};
use nix::unistd::{unlinkat, UnlinkatFlags};
use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, RawFd};

/// The deepest directory removed (a deeper one is left, and said so).
const MAX_DEPTH: usize = 256;

/// Remove `name` (a job's working directory) under the open directory
/// `parent`, and all it holds; what could not be removed is said in the
/// error (the rest is gone).
pub(super) fn remove_tree(parent: RawFd, name: &str) -> Result<(), String> {
    let device = fstat(parent).map_err(|err| format!("{err}"))?.st_dev;
    let name = CString::new(name).map_err(|err| format!("{err}"))?;
    remove_entry(parent, &name, device, 0)
}

fn remove_entry(parent: RawFd, name: &CStr, device: u64, depth: usize) -> Result<(), String> {
    let shown = name.to_string_lossy();
    match unlinkat(Some(parent), name, UnlinkatFlags::NoRemoveDir) {
        Ok(()) | Err(nix::Error::ENOENT) => return Ok(()),
        Err(nix::Error::EISDIR) => {}
        Err(err) => return Err(format!("{shown}: {err}")),
    }
    if depth >= MAX_DEPTH {
        return Err(format!(
            "{shown}: more than {MAX_DEPTH} directories deep; left in place"
        ));
    }
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = match openat(Some(parent), name, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(nix::Error::ENOENT) => return Ok(()),
        Err(err) => return Err(format!("{shown}: {err}")),
    };
    let mut dir = Dir::from_fd(fd).map_err(|err| format!("{shown}: {err}"))?;
    if fstat(dir.as_raw_fd())
        .map_err(|err| format!("{shown}: {err}"))?
        .st_dev
        != device
    {
        return Err(format!("{shown}: on another file system; left in place"));
    }
    // Names as bytes: a name that is not UTF-8 is removed all the same.
    let children: Vec<CString> = dir
        .iter()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_owned())
        .filter(|child| child.as_bytes() != b"." && child.as_bytes() != b"..")
        .collect();
    let mut first_problem = None;
    for child in &children {
        if let Err(problem) = remove_entry(dir.as_raw_fd(), child, device, depth + 1) {
            first_problem.get_or_insert(format!("{shown}/{problem}"));
        }
    }
    drop(dir);
    match unlinkat(Some(parent), name, UnlinkatFlags::RemoveDir) {
        Ok(()) | Err(nix::Error::ENOENT) => {}
        Err(err) => {
            first_problem.get_or_insert(format!("{shown}: {err}"));
        }
    }
    first_problem.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree with files, a nested directory, and links (to a file and a
    /// directory outside it) is removed; what the links point to is not.
    #[test]
    fn a_tree_goes_and_nothing_its_links_point_to() {
        let root = tempfile::tempdir().unwrap();
        let outside = root.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("keep"), "x").unwrap();
        let work = root.path().join("work");
        let job = work.join("7");
        std::fs::create_dir_all(job.join("a/b/c")).unwrap();
        std::fs::write(job.join("a/b/c/f"), "data").unwrap();
        std::fs::write(job.join("top"), "data").unwrap();
        std::os::unix::fs::symlink(&outside, job.join("a/dir-link")).unwrap();
        std::os::unix::fs::symlink(outside.join("keep"), job.join("file-link")).unwrap();
        let parent = std::fs::File::open(&work).unwrap();
        remove_tree(parent.as_raw_fd(), "7").unwrap();
        assert!(!job.exists());
        assert_eq!(std::fs::read_to_string(outside.join("keep")).unwrap(), "x");
        // Gone already: nothing to do.
        remove_tree(parent.as_raw_fd(), "7").unwrap();
    }
}
