//! The `datacenter:` section: a member's or a broker's settings (their
//! checks are in `validate`; a broker reads only the engine's admission rules).

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
