//! What confines a running job besides being killable, as Slurm's
//! `task/cgroup` does: its CPUs (the engine's processors mapped to the
//! node's CPUs, by cpuset and affinity), its memory (the kernel's OOM
//! killer at the limit), its number of processes, and, where the
//! administrator asks, its CPU time. Each controller is taken from cgroup v2
//! when the job's v2 cgroup can have it, else from its v1 hierarchy
//! (`crate::cgroup::v1`); one that neither offers is reported, never
//! silently skipped.

use super::containment::Containment;
use super::dirs::private_dir;
use super::job::{map_cpus, JobLimits};
use super::{detect, v1, v2};
use crate::config::LimitsConfig;
use interstice_api::wire::Confinement;
use interstice_core::ProcSet;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};

/// Where one controller's job cgroups live.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Home {
    /// In the job's v2 cgroup (the containment's).
    V2,
    /// In `<base>/job-<id>` of its v1 hierarchy.
    V1(PathBuf),
}

/// The controllers this node enforces, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limiter {
    homes: Vec<(&'static str, Home)>,
    /// The job cgroups of v2 (the containment's base), if v2.
    v2_base: Option<PathBuf>,
    /// The CPUs the daemon may use.
    allowed: Vec<u32>,
    /// The memory nodes for a v1 cpuset (empty: inherit).
    mems: String,
    /// The node's memory, bytes.
    mem_total: Option<u64>,
}

/// A mebibyte.
const MIB: u64 = 1 << 20;

impl Limiter {
    /// Find each controller a home for the jobs of `daemon` contained by
    /// `containment` (`cpu` only if `cpu_quota` is asked for; none at all
    /// without `cgroups`, `execution.cgroup: none`). Returns the warnings to
    /// log, one per limit that will not be enforced.
    pub fn setup(
        containment: &Containment,
        daemon: &str,
        cpu_quota: bool,
        cgroups: bool,
    ) -> (Limiter, Vec<String>) {
        let mounts = if cgroups {
            detect::Mounts::read()
        } else {
            detect::Mounts::default()
        };
        let mut limiter = Limiter {
            homes: Vec::new(),
            v2_base: None,
            allowed: detect::allowed_cpus(),
            mems: String::new(),
            mem_total: detect::mem_total_bytes(),
        };
        let mut why_not: Vec<(&str, String)> = Vec::new();
        if let Containment::V2 { base } = containment {
            if let Some(mount) = mounts.v2.iter().find(|mount| base.starts_with(mount)) {
                let wanted: Vec<&'static str> = v2::CONTROLLERS
                    .into_iter()
                    .filter(|controller| *controller != "cpu" || cpu_quota)
                    .collect();
                for (controller, enabled) in v2::enable(mount, base, &wanted) {
                    match enabled {
                        Ok(()) => limiter.homes.push((controller, Home::V2)),
                        Err(err) => why_not.push((controller, format!("cgroup v2: {err}"))),
                    }
                }
                limiter.v2_base = Some(base.clone());
            }
        }
        for controller in v2::CONTROLLERS {
            if limiter.has(controller) || (controller == "cpu" && !cpu_quota) {
                continue;
            }
            if !cgroups {
                why_not.push((controller, "execution.cgroup is none".to_string()));
                continue;
            }
            match v1_home(&mounts, daemon, controller) {
                Ok(base) => {
                    if controller == "cpuset" {
                        limiter.mems = std::fs::read_to_string(base.join("cpuset.mems"))
                            .unwrap_or_default()
                            .trim()
                            .to_string();
                    }
                    limiter.homes.push((controller, Home::V1(base)));
                }
                Err(err) => why_not.push((controller, err)),
            }
        }
        let warnings = limiter.warnings(&why_not, cpu_quota);
        (limiter, warnings)
    }

    /// One warning per limit not enforced, with every reason found.
    fn warnings(&self, why_not: &[(&str, String)], cpu_quota: bool) -> Vec<String> {
        let what = [
            (
                "cpuset",
                "jobs are pinned to their CPUs by affinity only, which a job can undo",
            ),
            ("memory", "a job's memory is NOT limited"),
            (
                "pids",
                "a job's processes are NOT limited (a fork bomb is not stopped)",
            ),
            ("cpu", "execution.limits.cpu_quota is NOT enforced"),
        ];
        let mut warnings = Vec::new();
        for (controller, effect) in what {
            if self.has(controller) || (controller == "cpu" && !cpu_quota) {
                continue;
            }
            let reasons: Vec<&str> = why_not
                .iter()
                .filter(|(name, _)| *name == controller)
                .map(|(_, why)| why.as_str())
                .collect();
            warnings.push(format!(
                "no usable {controller} controller ({}): {effect}",
                reasons.join("; ")
            ));
        }
        if self.allowed.is_empty() {
            warnings.push("cannot read the daemon's CPU affinity: jobs are not pinned to CPUs".to_string());
        }
        warnings
    }

    /// True if `controller`'s limits are enforced.
    pub fn has(&self, controller: &str) -> bool {
        self.homes.iter().any(|(name, _)| *name == controller)
    }

    /// What is enforced, for `/healthz` (`kill`: how jobs are killed).
    pub fn report(&self, kill: &str) -> Confinement {
        Confinement {
            cpuset: self.has("cpuset"),
            affinity: !self.allowed.is_empty(),
            memory: self.has("memory"),
            pids: self.has("pids"),
            cpu: self.has("cpu"),
            kill: kill.to_string(),
        }
    }

    /// Where each enforced controller lives, for the log: `memory (v1
    /// /sys/fs/cgroup/memory/…/interstice/<daemon>)`, `pids (v2)`.
    pub fn describe(&self) -> String {
        let homes: Vec<String> = self
            .homes
            .iter()
            .map(|(controller, home)| match home {
                Home::V2 => format!("{controller} (v2)"),
                Home::V1(base) => format!("{controller} (v1 {})", base.display()),
            })
            .collect();
        if homes.is_empty() {
            "no cgroup controller".to_string()
        } else {
            homes.join(", ")
        }
    }

    /// The CPUs the daemon may use (the engine's processors map onto them).
    pub fn allowed_cpus(&self) -> &[u32] {
        &self.allowed
    }

    /// The most memory a job may ask for, MiB: `max_memory_mb`, else the
    /// node's memory (None: unknown, no ceiling).
    pub fn memory_ceiling_mb(&self, config: &LimitsConfig) -> Option<u64> {
        config.max_memory_mb.or(self.mem_total.map(|bytes| bytes / MIB))
    }

    /// The limits of a run of a job of `procs` processors placed on the
    /// engine's processors `placed`, which asked for `memory_mb` MiB (None:
    /// `memory_mb_per_proc` per processor, else its share of the node's
    /// memory; never above the ceiling), as this node enforces them.
    pub fn limits_for(
        &self,
        config: &LimitsConfig,
        procs: u32,
        placed: Option<&ProcSet>,
        memory_mb: Option<u64>,
    ) -> JobLimits {
        let ceiling = self.memory_ceiling_mb(config).map(|mb| mb * MIB);
        let share = match (config.memory_mb_per_proc, self.mem_total) {
            (Some(mb), _) => Some(mb * MIB * u64::from(procs)),
            (None, Some(total)) if !self.allowed.is_empty() => {
                Some(total / self.allowed.len() as u64 * u64::from(procs))
            }
            (None, _) => None,
        };
        let memory = memory_mb.map(|mb| mb * MIB).or(share);
        let memory = match (memory, ceiling) {
            (Some(memory), Some(ceiling)) => Some(memory.min(ceiling)),
            (memory, _) => memory,
        };
        self.enforced(JobLimits {
            cpus: placed.map_or_else(Vec::new, |placed| map_cpus(placed, &self.allowed)),
            memory_bytes: memory,
            pids: config.pids,
            cpu_quota: config.cpu_quota.then_some(procs),
        })
    }

    /// `wanted`, less what this node does not enforce: the limits a job
    /// really runs under (its view shows these; null for the others).
    pub fn enforced(&self, wanted: JobLimits) -> JobLimits {
        JobLimits {
            cpus: wanted.cpus,
            memory_bytes: wanted.memory_bytes.filter(|_| self.has("memory")),
            pids: wanted.pids.filter(|_| self.has("pids")),
            cpu_quota: wanted.cpu_quota.filter(|_| self.has("cpu")),
        }
    }

    /// Set job `id`'s limits (its v2 cgroup, made by
    /// [`Containment::create`], is already there): returns the v1
    /// `cgroup.procs` files its wrapper joins.
    pub fn apply(&self, id: u64, limits: &JobLimits) -> Result<Vec<PathBuf>, String> {
        let mut v2_enabled = Vec::new();
        let mut procs = Vec::new();
        for (controller, home) in &self.homes {
            match home {
                Home::V2 => v2_enabled.push(*controller),
                Home::V1(base) => {
                    let dir = job_dir(base, id);
                    private_dir(&dir)?;
                    v1::write(&dir, controller, limits, &self.mems)?;
                    procs.push(dir.join("cgroup.procs"));
                }
            }
        }
        if let (Some(base), false) = (&self.v2_base, v2_enabled.is_empty()) {
            v2::write(&job_dir(base, id), limits, &v2_enabled, "")?;
        }
        Ok(procs)
    }

    /// True if the kernel's OOM killer killed a process of job `id` (read
    /// before [`Limiter::release`] and the containment's release remove
    /// its cgroups).
    pub fn oom_killed(&self, id: u64) -> bool {
        let kills = match self.homes.iter().find(|(name, _)| *name == "memory") {
            Some((_, Home::V2)) => self
                .v2_base
                .as_ref()
                .map_or(0, |base| v2::oom_kills(&job_dir(base, id))),
            Some((_, Home::V1(base))) => v1::oom_kills(&job_dir(base, id)),
            None => 0,
        };
        kills > 0
    }

    /// Remove job `id`'s v1 cgroups, killing what is left in them. True
    /// once they are gone (false: processes are still dying; call again).
    pub fn release(&self, id: u64) -> bool {
        let mut gone = true;
        for (_, home) in &self.homes {
            if let Home::V1(base) = home {
                gone &= release_dir(&job_dir(base, id));
            }
        }
        gone
    }

    /// Remove the daemon's v1 subtrees if they hold no job's cgroup.
    pub fn remove_if_empty(&self) {
        for (_, home) in &self.homes {
            if let Home::V1(base) = home {
                let _ = std::fs::remove_dir(base);
            }
        }
    }
}

/// `<base>/job-<id>`.
fn job_dir(base: &Path, id: u64) -> PathBuf {
    base.join(format!("job-{id}"))
}

/// The daemon's subtree in the v1 hierarchy of `controller`.
fn v1_home(mounts: &detect::Mounts, daemon: &str, controller: &str) -> Result<PathBuf, String> {
    let mount = mounts
        .v1_mount(controller)
        .ok_or_else(|| format!("no cgroup v1 {controller} mount"))?;
    v1::subtree(mount, &detect::own_v1_path(controller), daemon, controller)
        .map_err(|err| format!("cgroup v1 {controller}: {err}"))
}

/// SIGKILL what is left in cgroup `dir`, or remove it if nothing is. True
/// once it is gone.
fn release_dir(dir: &Path) -> bool {
    if !dir.exists() {
        return true;
    }
    let pids: Vec<i32> = std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect();
    for pid in &pids {
        let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
    }
    pids.is_empty() && std::fs::remove_dir(dir).is_ok()
}

/// End the v1 job cgroups of the (stopped) daemon `daemon` and its subtrees.
pub fn end_all_v1(mounts: &detect::Mounts, daemon: &str) {
    for controller in v2::CONTROLLERS {
        let Some(mount) = mounts.v1_mount(controller) else {
            continue;
        };
        let own = detect::own_v1_path(controller);
        let base = mount.join(&own).join("interstice").join(daemon);
        let Ok(entries) = std::fs::read_dir(&base) else {
            continue;
        };
        for entry in entries.flatten().filter(|entry| entry.path().is_dir()) {
            for _ in 0..100 {
                if release_dir(&entry.path()) {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
        let _ = std::fs::remove_dir(&base);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_enforced_is_not_shown() {
        let limiter = Limiter {
            homes: vec![("pids", Home::V1(PathBuf::from("/x")))],
            v2_base: None,
            allowed: vec![0, 1],
            mems: String::new(),
            mem_total: Some(8 << 30),
        };
        let wanted = JobLimits {
            cpus: vec![0],
            memory_bytes: Some(1 << 30),
            pids: Some(512),
            cpu_quota: Some(1),
        };
        let enforced = limiter.enforced(wanted);
        assert_eq!(
            (enforced.memory_bytes, enforced.pids, enforced.cpu_quota),
            (None, Some(512), None)
        );
        let warnings = limiter.warnings(&[("memory", "no cgroup v1 memory mount".to_string())], false);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[1].contains("memory is NOT limited"), "{warnings:?}");
    }

    /// A job's memory: what it asked for, else its processors' share of
    /// the node (or the configured amount per processor), never above the
    /// ceiling.
    #[test]
    fn memory_limits_follow_the_request_the_default_and_the_ceiling() {
        let limiter = Limiter {
            homes: vec![("memory", Home::V1(PathBuf::from("/x")))],
            v2_base: None,
            allowed: vec![0, 1],
            mem_total: Some(8 << 30),
            mems: String::new(),
        };
        let config = LimitsConfig::default();
        let placed = ProcSet::from_ids([1]);
        let memory = |config: &LimitsConfig, procs, asked| {
            limiter
                .limits_for(config, procs, Some(&placed), asked)
                .memory_bytes
        };
        assert_eq!(memory(&config, 1, None), Some(4 << 30));
        assert_eq!(memory(&config, 1, Some(100)), Some(100 << 20));
        assert_eq!(
            memory(&config, 4, None),
            Some(8 << 30),
            "capped at the node's memory"
        );
        let config = LimitsConfig {
            memory_mb_per_proc: Some(512),
            max_memory_mb: Some(1024),
            ..LimitsConfig::default()
        };
        assert_eq!(memory(&config, 1, None), Some(512 << 20));
        assert_eq!(memory(&config, 3, None), Some(1024 << 20));
        assert_eq!(limiter.memory_ceiling_mb(&config), Some(1024));
        assert_eq!(limiter.limits_for(&config, 1, Some(&placed), None).cpus, vec![1]);
    }
}
