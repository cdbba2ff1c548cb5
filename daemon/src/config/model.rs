//! The whole config file as [`Config`]: its sections, its defaults, parsing
//! and path resolution, and the readings of one section other modules ask
//! for (the data center role, the resolved engine, a broker's rules).
//!
//! The sections' types live in their own modules (`api`, `backend`,
//! `datacenter`, `engine`, …), which know nothing of `Config`; the checks
//! over several sections (`classes`, `eviction`, `validate`) build on this
//! module.

use super::api::ApiConfig;
use super::backend::BackendConfig;
use super::datacenter::{BrokerConfig, DatacenterConfig, MemberConfig};
use super::engine::{BrokerRules, EngineSection, EngineSectionError};
use super::execution::ExecutionConfig;
use super::metrics::MetricsConfig;
use super::node::NodeConfig;
use super::quota::QuotaConfig;
use super::store::StoreConfig;
use interstice_core::EngineConfig;
use interstice_swf::qos::ClassEntry;
use serde::Deserialize;
use std::path::{Path, PathBuf};

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
    /// What the state keeps of rejected and finished submissions.
    #[serde(default)]
    pub store: StoreConfig,
    /// What one user may hold at a time.
    #[serde(default)]
    pub quota: QuotaConfig,
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

impl Config {
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

    /// The `datacenter: {role: member}` section, if this daemon is a member.
    pub fn member(&self) -> Option<&MemberConfig> {
        match &self.datacenter {
            Some(DatacenterConfig::Member(member)) => Some(member),
            _ => None,
        }
    }

    /// The `datacenter: {role: broker}` section, if this daemon is a broker.
    pub fn broker(&self) -> Option<&BrokerConfig> {
        match &self.datacenter {
            Some(DatacenterConfig::Broker(broker)) => Some(broker),
            _ => None,
        }
    }

    /// The engine config ([`EngineSection::resolve`]).
    pub fn engine_config(&self) -> Result<EngineConfig, EngineSectionError> {
        self.engine.resolve()
    }

    /// A broker's rules ([`BrokerRules`]), from the `engine:` section.
    pub fn broker_rules(&self) -> Result<BrokerRules, EngineSectionError> {
        self.engine.resolve().map(|engine| BrokerRules::of(&engine))
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
