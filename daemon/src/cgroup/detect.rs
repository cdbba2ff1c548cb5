//! What this node offers for containment, read from the kernel: the cgroup
//! mounts (v2, and each v1 hierarchy with its controllers), the daemon's own
//! place in each v1 hierarchy, the CPUs it may run on (its affinity, which a
//! container or a systemd `CPUAffinity=` narrows) and the node's memory.

use std::path::{Path, PathBuf};

/// The cgroup mounts of this node (`/proc/self/mounts`).
#[derive(Clone, Debug, Default)]
pub struct Mounts {
    /// cgroup2 mount points, the unified root first, then a hybrid `unified` mount.
    pub v2: Vec<PathBuf>,
    /// cgroup v1 mount points, each with its controllers (`cpuset`, `memory`…).
    pub v1: Vec<(PathBuf, Vec<String>)>,
}

impl Mounts {
    /// This node's mounts.
    pub fn read() -> Mounts {
        Mounts::parse(&std::fs::read_to_string("/proc/self/mounts").unwrap_or_default())
    }

    /// The mounts in `text` (the format of `/proc/self/mounts`).
    pub fn parse(text: &str) -> Mounts {
        let mut mounts = Mounts::default();
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [_, point, fstype, options, ..] = fields[..] else {
                continue;
            };
            match fstype {
                "cgroup2" => mounts.v2.push(PathBuf::from(point)),
                "cgroup" => {
                    let controllers = options.split(',').map(str::to_string).collect();
                    mounts.v1.push((PathBuf::from(point), controllers));
                }
                _ => {}
            }
        }
        mounts
            .v2
            .sort_by_key(|point| point != Path::new("/sys/fs/cgroup"));
        mounts
    }

    /// The v1 mount that holds `controller` (e.g. `freezer`, `memory`).
    pub fn v1_mount(&self, controller: &str) -> Option<&Path> {
        self.v1
            .iter()
            .find(|(_, controllers)| controllers.iter().any(|name| name == controller))
            .map(|(point, _)| point.as_path())
    }

    /// The v1 freezer mount points.
    pub fn freezers(&self) -> Vec<PathBuf> {
        self.v1_mount("freezer")
            .map(Path::to_path_buf)
            .into_iter()
            .collect()
    }
}

/// The daemon's own cgroup in the v1 hierarchy of `controller`, from
/// `/proc/self/cgroup` (`4:memory:/process_api/…` gives `process_api/…`;
/// the root gives ``).
pub fn own_v1_path(controller: &str) -> String {
    let text = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            controllers
                .split(',')
                .any(|name| name == controller)
                .then(|| path.trim_matches('/').to_string())
        })
        .next()
        .unwrap_or_default()
}

/// The CPUs this daemon may run on (its `sched_getaffinity`), ascending;
/// empty if it cannot be read.
pub fn allowed_cpus() -> Vec<u32> {
    let Ok(set) = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)) else {
        return Vec::new();
    };
    (0..nix::sched::CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .map(|cpu| cpu as u32)
        .collect()
}

/// The node's memory (`MemTotal` of `/proc/meminfo`), in bytes.
pub fn mem_total_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `cpus` as a kernel CPU list (`0-2,5`), ascending and without repeats.
pub fn cpu_list(cpus: &[u32]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for cpu in sorted {
        match ranges.last_mut() {
            Some((_, hi)) if *hi + 1 == cpu => *hi = cpu,
            _ => ranges.push((cpu, cpu)),
        }
    }
    ranges
        .iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}-{hi}")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The CPUs of a kernel CPU list (`0-2,5`); None if it is not one.
pub fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|part| !part.is_empty()) {
        match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi): (u32, u32) = (lo.parse().ok()?, hi.parse().ok()?);
                if lo > hi || hi - lo > 65_536 {
                    return None;
                }
                cpus.extend(lo..=hi);
            }
            None => cpus.push(part.parse().ok()?),
        }
    }
    Some(cpus)
}

/// The value of `name` in a `name value` per line file (`memory.events`,
/// `memory.oom_control`); None if the file or the line is missing.
pub fn counter(file: &Path, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines()
        .filter_map(|line| line.split_once(' '))
        .find(|(key, _)| *key == name)
        .and_then(|(_, value)| value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hybrid_mounts_are_read_per_controller() {
        let mounts = Mounts::parse(
            "cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n\
             cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n\
             cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\n\
             cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n",
        );
        assert_eq!(mounts.v2, vec![PathBuf::from("/sys/fs/cgroup/unified")]);
        assert_eq!(
            mounts.v1_mount("memory"),
            Some(Path::new("/sys/fs/cgroup/memory"))
        );
        assert_eq!(
            mounts.v1_mount("cpu"),
            Some(Path::new("/sys/fs/cgroup/cpu,cpuacct"))
        );
        assert_eq!(mounts.v1_mount("pids"), None);
        assert!(mounts.freezers().is_empty());
    }

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(cpu_list(&[5, 0, 1, 2, 2]), "0-2,5");
        assert_eq!(parse_cpu_list("0-2,5"), Some(vec![0, 1, 2, 5]));
        assert_eq!(parse_cpu_list("1\n"), Some(vec![1]));
        assert_eq!(parse_cpu_list("x"), None);
        assert!(allowed_cpus().contains(&0) || !allowed_cpus().is_empty());
    }
}
