//! Containment of a job's processes: each job gets its own cgroup
//! (`interstice/<daemon>/job-<id>`, `<daemon>` naming the state directory),
//! which its wrapper joins before it starts the
//! job, so walltime, cancellation and eviction reach every descendant,
//! `setsid` and double forks included. cgroup v2 (the unified root, or the
//! hybrid `unified` mount) kills with `cgroup.kill`, or by freezing and
//! SIGKILLing every pid until none is left; the v1 freezer does the latter.
//! Without a usable cgroup, the job's process group is all there is.

use super::detect::Mounts;
use super::dirs::{private_dir, subtree};
use crate::config::CgroupMode;
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How jobs are contained on this node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Containment {
    /// cgroup v2: jobs under `base` (`<mount>/interstice/<daemon>`).
    V2 {
        /// The daemon's subtree.
        base: PathBuf,
    },
    /// cgroup v1 freezer: jobs under `base` (`<mount>/interstice/<daemon>`).
    V1Freezer {
        /// The daemon's subtree.
        base: PathBuf,
    },
    /// The job's process group only: a process that leaves it (`setsid`)
    /// escapes walltime, cancellation and eviction.
    ProcessGroup,
}

impl Containment {
    /// The containment `mode` asks for. `auto` falls back to the process
    /// group, with the reason in the second value (to log as a warning);
    /// an explicit `v2` or `v1-freezer` that cannot be used is an error.
    /// `daemon` names this daemon's subtree ([`daemon_name`]).
    pub fn setup(mode: CgroupMode, daemon: &str) -> Result<(Containment, Option<String>), String> {
        let mounts = Mounts::read();
        let (freezer, v2) = (mounts.freezers(), mounts.v2);
        let try_v2 = || -> Result<Containment, String> {
            let mount = v2.first().ok_or("no cgroup2 mount")?;
            Ok(Containment::V2 {
                base: subtree(mount, daemon)?,
            })
        };
        let try_v1 = || -> Result<Containment, String> {
            let mount = freezer.first().ok_or("no cgroup v1 freezer mount")?;
            Ok(Containment::V1Freezer {
                base: subtree(mount, daemon)?,
            })
        };
        match mode {
            CgroupMode::None => Ok((Containment::ProcessGroup, None)),
            CgroupMode::V2 => try_v2().map(|containment| (containment, None)),
            CgroupMode::V1Freezer => try_v1().map(|containment| (containment, None)),
            CgroupMode::Auto => match try_v2() {
                Ok(containment) => Ok((containment, None)),
                Err(v2_err) => match try_v1() {
                    Ok(containment) => Ok((containment, None)),
                    Err(v1_err) => Ok((
                        Containment::ProcessGroup,
                        Some(format!(
                            "no usable cgroup ({v2_err}; {v1_err}): jobs are contained by their process group \
                             only, and a job that calls setsid escapes walltime, cancel and eviction"
                        )),
                    )),
                },
            },
        }
    }

    /// How `/healthz` and the log name it.
    pub fn describe(&self) -> String {
        match self {
            Containment::V2 { base } => format!("cgroup v2 ({})", base.display()),
            Containment::V1Freezer { base } => format!("cgroup v1 freezer ({})", base.display()),
            Containment::ProcessGroup => "process group only (no cgroup)".to_string(),
        }
    }

    /// How a job is killed, as `/healthz` names it: `v2`, `v1-freezer` or
    /// `process-group`.
    pub fn kill_name(&self) -> &'static str {
        match self {
            Containment::V2 { .. } => "v2",
            Containment::V1Freezer { .. } => "v1-freezer",
            Containment::ProcessGroup => "process-group",
        }
    }

    /// Job `id`'s cgroup directory (None: no cgroup).
    pub fn dir(&self, id: u64) -> Option<PathBuf> {
        match self {
            Containment::V2 { base } | Containment::V1Freezer { base } => {
                Some(base.join(format!("job-{id}")))
            }
            Containment::ProcessGroup => None,
        }
    }

    /// Create job `id`'s cgroup (a [`private_dir`]; emptied if a last run
    /// left it) and return the `cgroup.procs` file its wrapper writes its
    /// pid to.
    pub fn create(&self, id: u64) -> Result<Option<PathBuf>, String> {
        let Some(dir) = self.dir(id) else {
            return Ok(None);
        };
        let left = dir.exists();
        private_dir(&dir)?;
        if left {
            self.kill(id, None);
        }
        Ok(Some(dir.join("cgroup.procs")))
    }

    /// The pids in job `id`'s cgroup.
    fn pids(dir: &Path) -> Vec<i32> {
        std::fs::read_to_string(dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
    }

    /// Send `signal` to every process of job `id` (its cgroup's, and the
    /// process group led by `leader`). False if none was there.
    pub fn signal(&self, id: u64, leader: Option<u32>, signal: Signal) -> bool {
        let mut any = leader.is_some_and(|pid| killpg(Pid::from_raw(pid as i32), signal).is_ok());
        if let Some(dir) = self.dir(id) {
            for pid in Containment::pids(&dir) {
                any |= kill(Pid::from_raw(pid), signal).is_ok();
            }
        }
        any
    }

    /// SIGKILL every process of job `id`, descendants that left the process
    /// group included: `cgroup.kill`, or freeze, SIGKILL each pid, thaw,
    /// until the cgroup is empty (bounded: what is left is killed again at
    /// the next [`Containment::release`]).
    pub fn kill(&self, id: u64, leader: Option<u32>) {
        if let Some(pid) = leader {
            let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
        }
        let Some(dir) = self.dir(id) else { return };
        if !dir.exists() {
            return;
        }
        let v1 = matches!(self, Containment::V1Freezer { .. });
        if !v1 && std::fs::write(dir.join("cgroup.kill"), "1").is_ok() {
            return;
        }
        let (freeze, frozen, thawed) = if v1 {
            ("freezer.state", "FROZEN", "THAWED")
        } else {
            ("cgroup.freeze", "1", "0")
        };
        for _ in 0..50 {
            let pids = Containment::pids(&dir);
            if pids.is_empty() {
                break;
            }
            let _ = std::fs::write(dir.join(freeze), frozen);
            for pid in pids {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
            // v1 delivers the SIGKILLs when the cgroup thaws; v2 at once.
            let _ = std::fs::write(dir.join(freeze), thawed);
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Job `id` is over: kill whatever is left in its cgroup and remove it.
    /// True once the cgroup is gone (false: processes are still dying; call
    /// again later).
    pub fn release(&self, id: u64) -> bool {
        let Some(dir) = self.dir(id) else {
            return true;
        };
        if !dir.exists() {
            return true;
        }
        if !Containment::pids(&dir).is_empty() {
            self.kill(id, None);
        }
        match std::fs::remove_dir(&dir) {
            Ok(()) => true,
            Err(err) => err.kind() == std::io::ErrorKind::NotFound,
        }
    }

    /// Remove this daemon's subtree if it holds no job's cgroup.
    pub fn remove_if_empty(&self) {
        if let Containment::V2 { base } | Containment::V1Freezer { base } = self {
            let _ = std::fs::remove_dir(base);
        }
    }

    /// True if job `id` still has processes in its cgroup.
    pub fn occupied(&self, id: u64) -> bool {
        self.dir(id)
            .is_some_and(|dir| !Containment::pids(&dir).is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cgroup::dirs::subtree;

    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    /// What an earlier daemon under `UMask=0007` left (group-writable) and
    /// what a user might plant are never used as they are.
    #[test]
    fn cgroup_directories_are_the_daemons_alone() {
        use std::os::unix::fs::PermissionsExt;
        let mount = tempfile::tempdir().unwrap();
        let base = mount.path().join("interstice/state");
        std::fs::create_dir_all(&base).unwrap();
        for dir in [mount.path().join("interstice"), base.clone()] {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o770)).unwrap();
        }
        assert_eq!(subtree(mount.path(), "state").unwrap(), base);
        assert_eq!((mode(base.parent().unwrap()), mode(&base)), (0o755, 0o755));
        let containment = Containment::V2 { base: base.clone() };
        containment.create(1).unwrap();
        assert_eq!(mode(&base.join("job-1")), 0o755);
        std::fs::create_dir(base.join("job-2")).unwrap();
        std::fs::set_permissions(base.join("job-2"), std::fs::Permissions::from_mode(0o777)).unwrap();
        containment.create(2).unwrap();
        assert_eq!(mode(&base.join("job-2")), 0o755);
        std::os::unix::fs::symlink(mount.path(), base.join("job-3")).unwrap();
        let refused = containment.create(3).unwrap_err();
        assert!(refused.contains("not a directory"), "{refused}");
        if nix::unistd::geteuid().is_root() {
            std::fs::create_dir(base.join("job-4")).unwrap();
            std::os::unix::fs::chown(base.join("job-4"), Some(65534), None).unwrap();
            let refused = containment.create(4).unwrap_err();
            assert!(refused.contains("owned by uid 65534"), "{refused}");
        }
    }
}
