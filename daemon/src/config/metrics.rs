//! The `metrics:` section.

use serde::Deserialize;

/// `metrics:` section.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Horizon of the idle processor-seconds gauges.
    #[serde(default = "default_window")]
    pub future_window_seconds: f64,
}

fn default_window() -> f64 {
    3600.0
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            future_window_seconds: default_window(),
        }
    }
}
