//! The `node:` section: the real node load checks.

use serde::Deserialize;

/// `node:` section.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Slack, in CPUs, between what the node uses and what the plan believes
    /// before a cloud job's start is held back.
    #[serde(default = "default_margin")]
    pub busy_margin_cpus: f64,
    /// Hold starts while available memory is below this.
    #[serde(default)]
    pub min_available_memory_bytes: u64,
    /// Seconds between two samples of CPU and memory use.
    #[serde(default = "default_sample_interval")]
    pub sample_interval_seconds: f64,
}

fn default_margin() -> f64 {
    1.0
}
fn default_sample_interval() -> f64 {
    1.0
}

impl Default for NodeConfig {
    fn default() -> Self {
        NodeConfig {
            busy_margin_cpus: default_margin(),
            min_available_memory_bytes: 0,
            sample_interval_seconds: default_sample_interval(),
        }
    }
}
