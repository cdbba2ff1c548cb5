//! Each job's cgroups: its containment (every descendant can be killed:
//! [`Containment`]) and its limits (its CPUs, memory, processes:
//! [`Limiter`]), on cgroup v2, v1 or a hybrid of both.

mod containment;
mod detect;
mod dirs;
mod job;
mod limits;
mod v1;
mod v2;

pub use containment::Containment;
pub use detect::{allowed_cpus, cpu_list, mem_total_bytes, parse_cpu_list};
pub use dirs::daemon_name;
pub use job::{map_cpus, procs_on, JobLimits};
pub use limits::Limiter;

use detect::Mounts;
use std::path::Path;
use std::time::Duration;

/// End every job of the (stopped) daemon on `state_dir` through its
/// cgroups, and remove them and the daemon's subtree: what a test does
/// after killing a daemon whose jobs would outlive it (with
/// [`crate::exec::end_all_jobs`], which also unmounts their directories).
pub fn end_all_jobs(state_dir: &Path) {
    let mounts = Mounts::read();
    let (v2, freezer) = (mounts.v2.clone(), mounts.freezers());
    let name = daemon_name(state_dir);
    limits::end_all_v1(&mounts, &name);
    for mount in v2.iter().chain(&freezer) {
        let base = mount.join("interstice").join(&name);
        let containment = if freezer.contains(mount) {
            Containment::V1Freezer { base: base.clone() }
        } else {
            Containment::V2 { base: base.clone() }
        };
        let Ok(entries) = std::fs::read_dir(&base) else {
            continue;
        };
        let ids = entries.flatten().filter_map(|entry| {
            entry
                .file_name()
                .to_str()
                .and_then(|name| name.strip_prefix("job-"))
                .and_then(|id| id.parse::<u64>().ok())
        });
        for id in ids.collect::<Vec<_>>() {
            for _ in 0..100 {
                if containment.release(id) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        containment.remove_if_empty();
    }
}
