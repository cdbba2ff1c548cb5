//! The daemon's YAML config: parsing (unknown keys are errors) and a validation
//! pass that reports every problem at once, each naming its key path.
//!
//! Relative paths are resolved against the working directory; an input file
//! (the embedded backend's trace) that is not found there is looked up next to
//! the config file.
//!
//! Layout: each section's types in its own module (`api`, `backend`,
//! `datacenter`, `engine`, `execution`, `metrics`, `node`, `store`), which knows
//! nothing of the whole; [`Config`] over them in `model`; the checks over
//! several sections on top (`classes`, `eviction`, `validate`). This module
//! only re-exports them and composes [`Config::load`] (read, parse, resolve,
//! validate).

mod admission_rules;
mod api;
mod backend;
mod classes;
mod datacenter;
mod engine;
mod eviction;
mod execution;
mod metrics;
mod model;
mod node;
mod quota;
mod store;
#[cfg(test)]
mod tests;
mod validate;

pub use admission_rules::{CandidatesSection, RegulateSection};
pub use api::{ApiConfig, Limits, TlsConfig};
pub use backend::{BackendConfig, EmbeddedConfig, PluginConfig, SlurmConfig, SLURM_PREEMPTS};
pub use datacenter::{BrokerConfig, DatacenterConfig, MemberConfig, OnBehalfOf};
pub use engine::{
    BetaValue, BrokerRules, DepthValue, EngineSection, EngineSectionError, MaintenanceEntry, ProcsValue,
    DEFAULT_ADMISSION, DEFAULT_POLICY,
};
pub use eviction::SlurmEviction;
pub use execution::{
    CgroupMode, ExecutionConfig, LimitsConfig, RlimitConfig, DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_WORK_DIR_QUOTA_MB,
};
pub use metrics::MetricsConfig;
pub use model::{log_level, Config};
pub use node::NodeConfig;
pub use quota::QuotaConfig;
pub use store::StoreConfig;

use std::path::{Path, PathBuf};

/// Where the config is read from when `--config` is not given.
pub const DEFAULT_CONFIG_PATH: &str = "/etc/interstice/interstice.yaml";

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
}
