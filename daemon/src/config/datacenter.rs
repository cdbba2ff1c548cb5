//! The `datacenter:` section: a member's or a broker's settings, and their
//! checks (a broker reads only the engine's admission rules).

use super::validate::positive;
use super::{BackendConfig, Config};
use interstice_api::Endpoint;
use serde::Deserialize;

/// `datacenter:` section, chosen by `role`: several daemons (one per Slurm
/// cluster or partition) form one data center, whose broker places the cloud
/// jobs it is sent on the member whose published idle slots complete them
/// first (`docs/datacenter.md`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum DatacenterConfig {
    /// A scheduler that publishes its idle slots to a broker and hands it
    /// the cloud jobs it evicts.
    Member(MemberConfig),
    /// The keeper of the global database: runs no jobs, places them.
    Broker(BrokerConfig),
}

/// `datacenter: {role: member, ...}`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MemberConfig {
    /// The broker: its socket path or `http://ADDR:PORT`.
    pub broker: String,
    /// How the broker reaches this daemon: its `api.socket`, or
    /// `http://ADDR:PORT` of its `api.listen`. Also its name among members.
    pub address: String,
    /// Technical features this member offers (jobs that require others go elsewhere).
    #[serde(default)]
    pub features: Vec<String>,
    /// Publish at least this often (also at every change of the plan), seconds.
    #[serde(default = "default_publish_every")]
    pub publish_every_seconds: f64,
    /// Bound on each exchange with the broker, seconds.
    #[serde(default = "default_datacenter_timeout")]
    pub timeout_seconds: f64,
}

/// `datacenter: {role: broker, ...}`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BrokerConfig {
    /// A member whose last tuple is older than this is left out of every
    /// decision (and of `GET /v1/datacenter/members`), seconds.
    #[serde(default = "default_member_max_age")]
    pub member_max_age_seconds: f64,
    /// Bound on each exchange with a member (forwarding a job, asking a job's state), seconds.
    #[serde(default = "default_datacenter_timeout")]
    pub timeout_seconds: f64,
}

fn default_publish_every() -> f64 {
    5.0
}
fn default_datacenter_timeout() -> f64 {
    5.0
}
fn default_member_max_age() -> f64 {
    30.0
}

/// The `engine:` keys a broker has no use for (it plans no jobs).
const BROKER_UNUSED_ENGINE_KEYS: &str =
    "a broker plans no jobs; remove it (a broker reads engine.admission, tau, \
     beta, latency, max_resubmissions and max_time_in_system_seconds)";
impl Config {
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

    pub(super) fn validate_member(&self, member: &MemberConfig, problems: &mut Vec<String>) {
        if let Err(err) = member.broker.parse::<Endpoint>() {
            problems.push(format!("datacenter.broker: {err}"));
        }
        match member.address.parse::<Endpoint>() {
            Err(err) => problems.push(format!("datacenter.address: {err}")),
            Ok(Endpoint::Unix(path)) if path != self.api.socket => problems.push(format!(
                "datacenter.address: {} is not this daemon's api.socket ({}); the broker reaches a member at its own \
                 socket, or at http://ADDR:PORT of its api.listen",
                path.display(),
                self.api.socket.display()
            )),
            Ok(_) => {}
        }
        if member.broker == member.address {
            problems.push("datacenter.broker: is this daemon's own address; name the broker's".to_string());
        }
        for (index, feature) in member.features.iter().enumerate() {
            if feature.trim().is_empty() {
                problems.push(format!("datacenter.features[{index}]: must not be empty"));
            }
        }
        positive(
            problems,
            "datacenter.publish_every_seconds",
            member.publish_every_seconds,
        );
        positive(problems, "datacenter.timeout_seconds", member.timeout_seconds);
    }

    /// A broker reads only the engine's admission rules and has no backend.
    pub(super) fn validate_broker(&self, broker: &BrokerConfig, problems: &mut Vec<String>) {
        let engine = &self.engine;
        let unused = [
            ("procs", engine.procs != 0),
            ("conv_procs", engine.conv_procs.is_some()),
            ("policy", engine.policy.is_some()),
            ("lambda", engine.lambda.is_some()),
            ("scheduling", engine.scheduling.is_some()),
            ("reservation_depth", engine.reservation_depth.is_some()),
            ("predictor", engine.predictor.is_some()),
            ("reject_above", engine.reject_above.is_some()),
            ("maintenance", !engine.maintenance.is_empty()),
        ];
        for (key, set) in unused {
            if set {
                problems.push(format!("engine.{key}: {BROKER_UNUSED_ENGINE_KEYS}"));
            }
        }
        if self.backend != BackendConfig::default() {
            problems.push("backend: a broker has no HPC plan of its own; remove the section".to_string());
        }
        if !self.classes.is_empty() || self.default_class.is_some() {
            problems.push(
                "classes: a broker runs no jobs; give the classes to its members, which account their jobs"
                    .to_string(),
            );
        }
        positive(
            problems,
            "datacenter.member_max_age_seconds",
            broker.member_max_age_seconds,
        );
        positive(problems, "datacenter.timeout_seconds", broker.timeout_seconds);
    }
}
