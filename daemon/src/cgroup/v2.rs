//! Limits through cgroup v2: the controllers are enabled down to the
//! daemon's subtree (`+cpuset +memory +pids +cpu` in each
//! `cgroup.subtree_control` from the mount to `interstice/<daemon>`), and a
//! job's limits are written in its own cgroup, the one its wrapper joins
//! anyway (`crate::cgroup::Containment::V2`).

use super::detect::{counter, cpu_list};
use super::job::JobLimits;
use std::path::{Path, PathBuf};

/// The controllers the limits use.
pub const CONTROLLERS: [&str; 4] = ["cpuset", "memory", "pids", "cpu"];

/// Enable the controllers `wanted` for the jobs under `base` (below `mount`):
/// returns those enabled in `base/cgroup.subtree_control`, each with why
/// not if it is not (the kernel lacks it, a v1 hierarchy holds it, or a
/// level has processes of its own).
pub fn enable(mount: &Path, base: &Path, wanted: &[&'static str]) -> Vec<(&'static str, Result<(), String>)> {
    let mut levels: Vec<PathBuf> = base
        .ancestors()
        .take_while(|dir| dir.starts_with(mount))
        .map(Path::to_path_buf)
        .collect();
    levels.reverse();
    let offered = std::fs::read_to_string(mount.join("cgroup.controllers")).unwrap_or_default();
    wanted
        .iter()
        .map(|&controller| {
            if !offered.split_whitespace().any(|name| name == controller) {
                return (
                    controller,
                    Err(format!(
                        "not offered by the cgroup2 mount {} (a v1 hierarchy holds it, or the kernel lacks it)",
                        mount.display()
                    )),
                );
            }
            let mut result = Ok(());
            for level in &levels {
                let file = level.join("cgroup.subtree_control");
                if let Err(err) = std::fs::write(&file, format!("+{controller}")) {
                    result = Err(format!("cannot enable it in {}: {err}", file.display()));
                    break;
                }
            }
            (controller, result)
        })
        .collect()
}

/// Write `limits` to job cgroup `dir` for the controllers in `enabled`.
pub fn write(dir: &Path, limits: &JobLimits, enabled: &[&str], mems: &str) -> Result<(), String> {
    let put = |name: &str, value: String| {
        std::fs::write(dir.join(name), &value)
            .map_err(|err| format!("cannot write {value:?} to {}: {err}", dir.join(name).display()))
    };
    let has = |controller: &str| enabled.contains(&controller);
    if has("cpuset") && !limits.cpus.is_empty() {
        put("cpuset.cpus", cpu_list(&limits.cpus))?;
        if !mems.is_empty() {
            put("cpuset.mems", mems.to_string())?;
        }
    }
    if has("memory") {
        put(
            "memory.max",
            limits
                .memory_bytes
                .map_or("max".to_string(), |bytes| bytes.to_string()),
        )?;
        // Swap would let a job hold more than its limit: none, when the
        // kernel has swap accounting (best effort).
        if limits.memory_bytes.is_some() {
            let _ = put("memory.swap.max", "0".to_string());
        }
    }
    if has("pids") {
        put(
            "pids.max",
            limits.pids.map_or("max".to_string(), |pids| pids.to_string()),
        )?;
    }
    if has("cpu") {
        let quota = limits.cpu_quota.map_or("max".to_string(), |procs| {
            (u64::from(procs) * 100_000).to_string()
        });
        put("cpu.max", format!("{quota} 100000"))?;
    }
    Ok(())
}

/// Processes of job cgroup `dir` the kernel's OOM killer killed
/// (`oom_kill` of `memory.events`).
pub fn oom_kills(dir: &Path) -> u64 {
    counter(&dir.join("memory.events"), "oom_kill").unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a job's v2 cgroup is told (files in a plain directory stand in
    /// for the kernel's: this node's cgroup2 mount offers no controller).
    #[test]
    fn a_jobs_limits_are_written_in_the_v2_interface() {
        let dir = tempfile::tempdir().unwrap();
        let limits = JobLimits {
            cpus: vec![1, 2, 3, 6],
            memory_bytes: Some(64 << 20),
            pids: Some(512),
            cpu_quota: Some(2),
        };
        write(dir.path(), &limits, &CONTROLLERS, "0").unwrap();
        let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert_eq!(read("cpuset.cpus"), "1-3,6");
        assert_eq!(read("cpuset.mems"), "0");
        assert_eq!(read("memory.max"), (64u64 << 20).to_string());
        assert_eq!(read("memory.swap.max"), "0");
        assert_eq!(read("pids.max"), "512");
        assert_eq!(read("cpu.max"), "200000 100000");
        write(dir.path(), &JobLimits::default(), &["memory", "pids"], "").unwrap();
        assert_eq!(
            (read("memory.max"), read("pids.max")),
            ("max".into(), "max".into())
        );
        std::fs::write(
            dir.path().join("memory.events"),
            "low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\n",
        )
        .unwrap();
        assert_eq!(oom_kills(dir.path()), 1);
    }

    /// A controller the cgroup2 mount does not offer (a v1 hierarchy holds
    /// it) is reported with why, not written.
    #[test]
    fn controllers_are_enabled_only_where_offered() {
        let mount = tempfile::tempdir().unwrap();
        let base = mount.path().join("interstice/d");
        std::fs::create_dir_all(&base).unwrap();
        std::fs::write(mount.path().join("cgroup.controllers"), "cpuset pids hugetlb\n").unwrap();
        let enabled = enable(mount.path(), &base, &CONTROLLERS);
        let ok: Vec<&str> = enabled
            .iter()
            .filter(|(_, r)| r.is_ok())
            .map(|(c, _)| *c)
            .collect();
        assert_eq!(ok, vec!["cpuset", "pids"]);
        let memory = &enabled.iter().find(|(c, _)| *c == "memory").unwrap().1;
        assert!(memory.as_ref().unwrap_err().contains("not offered"), "{memory:?}");
        assert!(base.join("cgroup.subtree_control").exists());
    }
}
