//! What the node really does: CPU and memory use read with sysinfo, compared
//! with what the plan believes before a cloud job starts.

use crate::config::NodeConfig;
use sysinfo::System;

/// One reading of the node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeSample {
    /// CPUs of the node.
    pub cpus: u32,
    /// CPU use, 0..1 of the whole node.
    pub cpu_usage: f64,
    /// Memory in use, bytes.
    pub memory_used: u64,
    /// Total memory, bytes.
    pub memory_total: u64,
    /// Memory available for new work, bytes.
    pub memory_available: u64,
}

impl NodeSample {
    /// CPUs busy, as seen.
    pub fn busy_cpus(&self) -> f64 {
        self.cpu_usage * self.cpus as f64
    }
}

/// Samples the node.
pub struct NodeMonitor {
    system: System,
    last: Option<NodeSample>,
}

impl std::fmt::Debug for NodeMonitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeMonitor").field("last", &self.last).finish()
    }
}

impl Default for NodeMonitor {
    fn default() -> Self {
        NodeMonitor::new()
    }
}

impl NodeMonitor {
    /// A monitor; the first CPU reading needs a second sample to be meaningful.
    pub fn new() -> NodeMonitor {
        let mut system = System::new();
        system.refresh_cpu_usage();
        system.refresh_memory();
        NodeMonitor { system, last: None }
    }

    /// Take a new sample.
    pub fn sample(&mut self) -> NodeSample {
        self.system.refresh_cpu_usage();
        self.system.refresh_memory();
        let cpus = self.system.cpus().len().max(1) as u32;
        let sample = NodeSample {
            cpus,
            cpu_usage: (self.system.global_cpu_usage() as f64 / 100.0).clamp(0.0, 1.0),
            memory_used: self.system.used_memory(),
            memory_total: self.system.total_memory(),
            memory_available: self.system.available_memory(),
        };
        self.last = Some(sample);
        sample
    }

    /// CPUs of the node: no local job wider than this can ever start.
    pub fn cpus(&self) -> u32 {
        self.system.cpus().len().max(1) as u32
    }

    /// The last sample, if any.
    pub fn last(&self) -> Option<NodeSample> {
        self.last
    }
}

/// The widest job this node can ever start: its CPUs plus the margin it
/// tolerates (`node.busy_margin_cpus`), which [`hold_reason`] grants an idle
/// node. A wider job would be held forever, so the daemon refuses it (422).
pub fn widest_job(cpus: u32, config: &NodeConfig) -> u32 {
    (f64::from(cpus) + config.busy_margin_cpus)
        .floor()
        .clamp(0.0, f64::from(u32::MAX)) as u32
}

/// Why a start is held back, if it is: the node's free CPUs (as seen) plus the
/// margin must cover the job, beyond what the plan's own local jobs use.
pub fn hold_reason(
    sample: &NodeSample,
    config: &NodeConfig,
    planned_local_cpus: f64,
    job_procs: u32,
) -> Option<String> {
    if job_procs > widest_job(sample.cpus, config) {
        return Some(format!(
            "the job needs {job_procs} CPUs, more than the node's {} and node.busy_margin_cpus {}",
            sample.cpus, config.busy_margin_cpus
        ));
    }
    let unexplained = (sample.busy_cpus() - planned_local_cpus).max(0.0);
    let free = sample.cpus as f64 - planned_local_cpus - unexplained;
    if (job_procs as f64) > free + config.busy_margin_cpus {
        return Some(format!(
            "node busier than planned: {:.1} of {} CPUs busy ({planned_local_cpus:.1} by planned cloud jobs), job needs {job_procs}",
            sample.busy_cpus(),
            sample.cpus
        ));
    }
    if sample.memory_available < config.min_available_memory_bytes {
        return Some(format!(
            "only {} bytes of memory available, node.min_available_memory_bytes is {}",
            sample.memory_available, config.min_available_memory_bytes
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(cpu_usage: f64) -> NodeSample {
        NodeSample {
            cpus: 4,
            cpu_usage,
            memory_used: 1,
            memory_total: 10,
            memory_available: 9,
        }
    }

    #[test]
    fn holds_when_unplanned_load_fills_the_node() {
        let config = NodeConfig {
            busy_margin_cpus: 0.5,
            min_available_memory_bytes: 0,
            sample_interval_seconds: 1.0,
        };
        assert!(hold_reason(&sample(0.0), &config, 0.0, 4).is_none());
        assert!(hold_reason(&sample(0.0), &config, 0.0, 5)
            .unwrap()
            .contains("more than the node's 4 and node.busy_margin_cpus 0.5"));
        assert_eq!(widest_job(4, &config), 4);
        assert_eq!(
            widest_job(
                2,
                &NodeConfig {
                    busy_margin_cpus: 2.0,
                    ..config
                }
            ),
            4
        );
        assert!(hold_reason(&sample(1.0), &config, 0.0, 1).is_some());
        // Load fully explained by the plan's own jobs leaves the rest free.
        assert!(hold_reason(&sample(0.5), &config, 2.0, 2).is_none());
        let memory = NodeConfig {
            min_available_memory_bytes: 100,
            ..config
        };
        assert!(hold_reason(&sample(0.0), &memory, 0.0, 1)
            .unwrap()
            .contains("memory"));
    }

    #[test]
    fn real_sample_is_sane() {
        let mut monitor = NodeMonitor::new();
        let reading = monitor.sample();
        assert!(reading.cpus >= 1);
        assert!(reading.memory_total > 0 && reading.memory_used <= reading.memory_total);
        assert!((0.0..=1.0).contains(&reading.cpu_usage));
    }
}
