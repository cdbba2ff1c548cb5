//! Limits through cgroup v1, as Slurm's `task/cgroup` sets them on the
//! sites that still run v1: one hierarchy per controller (`cpuset`,
//! `memory`, `pids`, `cpu`), each with the daemon's subtree
//! `interstice/<daemon>` below the daemon's own cgroup there (so jobs stay
//! within whatever confines the daemon: a container's memory, a unit's
//! cpuset), and a `job-<id>` cgroup per job its wrapper joins.

use super::detect::cpu_list;
use super::dirs::private_dir;
use super::job::JobLimits;
use std::path::{Path, PathBuf};

/// The daemon's subtree in the v1 hierarchy of `controller` mounted at
/// `mount`: `<mount>/<own cgroup>/interstice/<daemon>`, each level a
/// private directory; a cpuset level gets its parent's CPUs and memory
/// nodes (v1 cpusets start empty, and an empty one takes no process).
pub fn subtree(mount: &Path, own: &str, daemon: &str, controller: &str) -> Result<PathBuf, String> {
    let own_dir = if own.is_empty() {
        mount.to_path_buf()
    } else {
        mount.join(own)
    };
    let mut dir = own_dir;
    for level in ["interstice", daemon] {
        let parent = dir.clone();
        dir = dir.join(level);
        private_dir(&dir)?;
        if controller == "cpuset" {
            inherit_cpuset(&parent, &dir)?;
        }
    }
    Ok(dir)
}

/// Give cpuset `dir` the CPUs and memory nodes of `parent` where it has none.
fn inherit_cpuset(parent: &Path, dir: &Path) -> Result<(), String> {
    for name in ["cpuset.cpus", "cpuset.mems"] {
        let mine = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        if !mine.trim().is_empty() {
            continue;
        }
        let theirs = std::fs::read_to_string(parent.join(name))
            .map_err(|err| format!("{}: {err}", parent.join(name).display()))?;
        std::fs::write(dir.join(name), theirs.trim())
            .map_err(|err| format!("{}: {err}", dir.join(name).display()))?;
    }
    Ok(())
}

/// Write `limits` for `controller` to job cgroup `dir` (made by the caller).
pub fn write(dir: &Path, controller: &str, limits: &JobLimits, mems: &str) -> Result<(), String> {
    let put = |name: &str, value: String| {
        std::fs::write(dir.join(name), &value)
            .map_err(|err| format!("cannot write {value:?} to {}: {err}", dir.join(name).display()))
    };
    match controller {
        "cpuset" => {
            // The memory nodes first: a cpuset without them takes no CPUs.
            let parent_mems = dir
                .parent()
                .and_then(|parent| std::fs::read_to_string(parent.join("cpuset.mems")).ok());
            put(
                "cpuset.mems",
                if mems.is_empty() {
                    parent_mems.unwrap_or_default()
                } else {
                    mems.to_string()
                },
            )?;
            if !limits.cpus.is_empty() {
                put("cpuset.cpus", cpu_list(&limits.cpus))?;
            }
        }
        "memory" => {
            let limit = limits
                .memory_bytes
                .map_or("-1".to_string(), |bytes| bytes.to_string());
            put("memory.limit_in_bytes", limit.clone())?;
            // Memory plus swap as much as memory (no swap beyond the limit),
            // where the kernel accounts swap (best effort).
            let _ = put("memory.memsw.limit_in_bytes", limit);
        }
        "pids" => put(
            "pids.max",
            limits.pids.map_or("max".to_string(), |pids| pids.to_string()),
        )?,
        "cpu" => {
            put("cpu.cfs_period_us", "100000".to_string())?;
            let quota = limits
                .cpu_quota
                .map_or("-1".to_string(), |procs| (u64::from(procs) * 100_000).to_string());
            put("cpu.cfs_quota_us", quota)?;
        }
        _ => {}
    }
    Ok(())
}

/// Processes of memory cgroup `dir` the kernel's OOM killer killed:
/// `oom_kill` of `memory.oom_control` (Linux 4.13+), else 1 if the limit
/// was ever hit (`memory.failcnt`), which is as close as older kernels say.
pub fn oom_kills(dir: &Path) -> u64 {
    super::detect::counter(&dir.join("memory.oom_control"), "oom_kill").unwrap_or_else(|| {
        let failcnt = std::fs::read_to_string(dir.join("memory.failcnt")).unwrap_or_default();
        u64::from(failcnt.trim().parse::<u64>().unwrap_or(0) > 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a job's v1 cgroups are told, controller by controller (plain
    /// files standing in for the kernel's).
    #[test]
    fn a_jobs_limits_are_written_in_the_v1_interface() {
        let dir = tempfile::tempdir().unwrap();
        let limits = JobLimits {
            cpus: vec![1],
            memory_bytes: Some(100 << 20),
            pids: Some(40),
            cpu_quota: Some(1),
        };
        for controller in ["cpuset", "memory", "pids", "cpu"] {
            write(dir.path(), controller, &limits, "0").unwrap();
        }
        let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert_eq!(
            (read("cpuset.cpus"), read("cpuset.mems")),
            ("1".into(), "0".into())
        );
        assert_eq!(read("memory.limit_in_bytes"), (100u64 << 20).to_string());
        assert_eq!(read("pids.max"), "40");
        assert_eq!(
            (read("cpu.cfs_period_us"), read("cpu.cfs_quota_us")),
            ("100000".into(), "100000".into())
        );
        std::fs::write(
            dir.path().join("memory.oom_control"),
            "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
        )
        .unwrap();
        assert_eq!(oom_kills(dir.path()), 2);
        // An older kernel without oom_kill: the limit was hit.
        std::fs::write(
            dir.path().join("memory.oom_control"),
            "oom_kill_disable 0\nunder_oom 0\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("memory.failcnt"), "3\n").unwrap();
        assert_eq!(oom_kills(dir.path()), 1);
    }
}
