//! The daemon's YAML config: parsing (unknown keys are errors) and a validation
//! pass that reports every problem at once, each naming its key path.
//!
//! Relative paths are resolved against the working directory; an input file
//! (the embedded backend's trace) that is not found there is looked up next to
//! the config file.

mod api;
mod backend;
mod classes;
mod datacenter;
mod engine;
mod execution;
mod metrics;
mod node;
#[cfg(test)]
mod tests;
mod validate;

pub use api::{ApiConfig, Limits};
pub use backend::{BackendConfig, EmbeddedConfig, PluginConfig, SlurmConfig, SlurmEviction, SLURM_PREEMPTS};
pub use datacenter::{BrokerConfig, DatacenterConfig, MemberConfig};
pub use engine::{
    BetaValue, BrokerRules, DepthValue, EngineSection, EngineSectionError, MaintenanceEntry, ProcsValue,
    DEFAULT_ADMISSION, DEFAULT_POLICY,
};
pub use execution::{CgroupMode, ExecutionConfig, RlimitConfig, DEFAULT_MAX_OUTPUT_BYTES};
pub use metrics::MetricsConfig;
pub use node::NodeConfig;

use interstice_swf::qos::ClassEntry;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Where the config is read from when `--config` is not given.
pub const DEFAULT_CONFIG_PATH: &str = "/etc/interstice/interstice.yaml";

/// The whole config file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// API listeners.
    #[serde(default)]
    pub api: ApiConfig,
    /// Directory of the SQLite database and the jobs' output files.
    #[serde(default = "default_state_dir")]
    pub state_dir: PathBuf,
    /// The engine: cluster size, policy, admission. Required but for a
    /// broker, which reads only its admission rules ([`BrokerRules`]).
    #[serde(default)]
    pub engine: EngineSection,
    /// Where the HPC plan comes from.
    #[serde(default)]
    pub backend: BackendConfig,
    /// How cloud jobs run on this node.
    #[serde(default)]
    pub execution: ExecutionConfig,
    /// Real node load checks.
    #[serde(default)]
    pub node: NodeConfig,
    /// Metrics.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// Log level: error, warn, info, debug, trace.
    #[serde(default = "default_log_level")]
    pub log_level: String,
    /// The daemon's place in a data center of several schedulers (none: it
    /// stands alone).
    #[serde(default)]
    pub datacenter: Option<DatacenterConfig>,
    /// Service classes of cloud jobs (docs/qos.md): each finished cloud job
    /// is accounted in its class (`interstice_class_*`). None: no classes,
    /// and a job's `class` is a free label.
    #[serde(default)]
    pub classes: Vec<ClassEntry>,
    /// The class of a cloud job that names none (default: such jobs are in
    /// no class).
    #[serde(default)]
    pub default_class: Option<String>,
}

fn default_state_dir() -> PathBuf {
    PathBuf::from("/var/lib/interstice")
}

fn default_log_level() -> String {
    "info".to_string()
}
/// Errors loading a config.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// YAML syntax, a wrong type or an unknown key.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// serde_yaml's message (names the key path and line).
        message: String,
    },
    /// One or more values are invalid.
    #[error("{path}: invalid config:\n  {}", .problems.join("\n  "))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Every problem found, each naming its key.
        problems: Vec<String>,
    },
}
impl Config {
    /// Read, parse, resolve paths and validate a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let mut config = Config::parse(&text).map_err(|err| ConfigError::Parse {
            path: path.to_path_buf(),
            message: err.to_string(),
        })?;
        config.resolve_paths(path.parent().unwrap_or(Path::new(".")));
        let problems = config.validate();
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(ConfigError::Invalid {
                path: path.to_path_buf(),
                problems,
            })
        }
    }

    /// Parse YAML text (no validation).
    pub fn parse(text: &str) -> Result<Config, serde_yaml::Error> {
        serde_yaml::from_str(text)
    }

    /// The state directory as an absolute path (relative ones are read
    /// from the working directory): job wrappers open their files under it
    /// after entering the job's working directory.
    pub fn absolute_state_dir(&mut self) {
        if let Ok(absolute) = std::path::absolute(&self.state_dir) {
            self.state_dir = absolute;
        }
    }

    /// Look the embedded trace up next to the config file when it is not found
    /// relative to the working directory; make the state directory absolute.
    pub fn resolve_paths(&mut self, config_dir: &Path) {
        self.absolute_state_dir();
        if let BackendConfig::Embedded(embedded) = &mut self.backend {
            if let Some(trace) = &mut embedded.trace {
                if trace.is_relative() && !trace.exists() {
                    let beside = config_dir.join(&*trace);
                    if beside.exists() {
                        *trace = beside;
                    }
                }
            }
        }
    }
}

/// The tracing level of a `log_level` value.
pub fn log_level(name: &str) -> Option<tracing::Level> {
    match name {
        "error" => Some(tracing::Level::ERROR),
        "warn" => Some(tracing::Level::WARN),
        "info" => Some(tracing::Level::INFO),
        "debug" => Some(tracing::Level::DEBUG),
        "trace" => Some(tracing::Level::TRACE),
        _ => None,
    }
}
