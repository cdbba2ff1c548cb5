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

/// Enable the limit controllers for the jobs under `base` (below `mount`):
/// returns those enabled in `base/cgroup.subtree_control`, each with why
/// not if it is not (the kernel lacks it, a v1 hierarchy holds it, or a
/// level has processes of its own).
pub fn enable(mount: &Path, base: &Path) -> Vec<(&'static str, Result<(), String>)> {
    let mut levels: Vec<PathBuf> = base
        .ancestors()
        .take_while(|dir| dir.starts_with(mount))
        .map(Path::to_path_buf)
        .collect();
    levels.reverse();
    let offered = std::fs::read_to_string(mount.join("cgroup.controllers")).unwrap_or_default();
    CONTROLLERS
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
