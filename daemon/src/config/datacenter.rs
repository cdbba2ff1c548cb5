//! The `datacenter:` section: a member's or a broker's settings (their
//! checks are in `validate`; a broker reads only the engine's admission rules).

use interstice_api::peer::PeerRule;
use interstice_api::tls::{parse_pin, Pin};
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
    /// Whom the broker may name in `on_behalf_of` (the job runs as that user).
    #[serde(default)]
    pub on_behalf_of: OnBehalfOf,
    /// The uid the data center's daemons run as besides root (whom the
    /// peers must prove to be, [`peer_rule`]); default: this daemon's.
    #[serde(default)]
    pub peer_uid: Option<u32>,
    /// Send to TCP peers on other hosts without proof (a network the admin trusts).
    #[serde(default)]
    pub allow_unproven_remote: bool,
    /// The SHA-256 fingerprints of the certificates an `https://` peer may
    /// present (the data center's pin list, no certificate authority).
    #[serde(default)]
    pub tls_pins: Vec<String>,
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
    /// `F^r`'s bandwidth of the flows to the members, bytes per second: a
    /// job of `bytes` adds `bytes / bandwidth` before it can start there
    /// (default: unlimited, no transfer time).
    #[serde(default)]
    pub bandwidth_bytes_per_second: Option<f64>,
    /// `F^r`'s monitoring delay of the members, seconds: how long until a
    /// member's scheduler sees a job it accepted (default 0: a member
    /// admits a job into its plan before it answers).
    #[serde(default)]
    pub monitoring_seconds: f64,
    // The peer keys below repeat MemberConfig's on purpose: serde cannot
    // `flatten` a shared struct into one that denies unknown fields, and a
    // misspelt key must stay an error naming it.
    /// The uid the data center's daemons run as besides root (whom the
    /// peers must prove to be, [`peer_rule`]); default: this daemon's.
    #[serde(default)]
    pub peer_uid: Option<u32>,
    /// Send to TCP peers on other hosts without proof (a network the admin trusts).
    #[serde(default)]
    pub allow_unproven_remote: bool,
    /// The SHA-256 fingerprints of the certificates an `https://` peer may
    /// present (the data center's pin list, no certificate authority).
    #[serde(default)]
    pub tls_pins: Vec<String>,
}

/// The rule of `datacenter.peer_uid` and `datacenter.allow_unproven_remote`: a daemon
/// sends another one a job, a tuple or the token only once the kernel shows
/// that the listener runs as root or as `peer_uid` (on a Unix socket, or
/// over TCP on this host): a local user who binds a stopped daemon's socket
/// or port gets nothing. A TCP peer on another host cannot prove itself
/// (no TLS yet) and gets nothing unless `allow_unproven_remote`.
pub fn peer_rule(peer_uid: Option<u32>, allow_unproven_remote: bool) -> PeerRule {
    PeerRule {
        unproven_remote: allow_unproven_remote,
        ..PeerRule::daemons(peer_uid)
    }
}

/// The pins of `datacenter.tls_pins` (those that do not parse are config
/// problems, reported by `validate`).
fn pins(texts: &[String]) -> Vec<Pin> {
    texts.iter().filter_map(|text| parse_pin(text).ok()).collect()
}

impl MemberConfig {
    /// The rule the broker's listener must satisfy.
    pub fn peer_rule(&self) -> PeerRule {
        peer_rule(self.peer_uid, self.allow_unproven_remote)
    }

    /// The certificates the broker may present at an `https://` address.
    pub fn pins(&self) -> Vec<Pin> {
        pins(&self.tls_pins)
    }
}

impl BrokerConfig {
    /// The rule a member's listener must satisfy.
    pub fn peer_rule(&self) -> PeerRule {
        peer_rule(self.peer_uid, self.allow_unproven_remote)
    }

    /// The certificates a member may present at an `https://` address.
    pub fn pins(&self) -> Vec<Pin> {
        pins(&self.tls_pins)
    }
}

/// `datacenter.on_behalf_of` of a member: the users a broker (root over the
/// Unix socket, or the token holder over TCP) may have a job run as. Never
/// root, nor a system user (below `min_uid`), unless `allow` lists the uid;
/// never a uid `deny` lists.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OnBehalfOf {
    /// The lowest uid that may be named; default `UID_MIN` of /etc/login.defs, else 1000.
    #[serde(default)]
    pub min_uid: Option<u32>,
    /// Uids that may be named even below `min_uid` (root included, if listed).
    #[serde(default)]
    pub allow: Vec<u32>,
    /// Uids that may never be named.
    #[serde(default)]
    pub deny: Vec<u32>,
}

/// Where `UID_MIN` is read from, and its default.
const LOGIN_DEFS: &str = "/etc/login.defs";
const DEFAULT_UID_MIN: u32 = 1000;

impl OnBehalfOf {
    /// May a broker name `uid`? Else the rule that refuses it, for a 403.
    pub fn check(&self, uid: u32) -> Result<(), String> {
        if self.deny.contains(&uid) {
            return Err(format!(
                "on_behalf_of: uid {uid} is in datacenter.on_behalf_of.deny of this member"
            ));
        }
        if self.allow.contains(&uid) {
            return Ok(());
        }
        let min_uid = self.min_uid.unwrap_or_else(login_defs_uid_min);
        if uid == 0 || uid < min_uid {
            return Err(format!(
                "on_behalf_of: uid {uid} is {} (below datacenter.on_behalf_of.min_uid {min_uid}); a broker may                  not run jobs as it unless datacenter.on_behalf_of.allow lists it",
                if uid == 0 { "root" } else { "a system user" }
            ));
        }
        Ok(())
    }
}

/// `UID_MIN` of /etc/login.defs (the first uid of a human user), else 1000.
fn login_defs_uid_min() -> u32 {
    std::fs::read_to_string(LOGIN_DEFS)
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some("UID_MIN")).then(|| words.next()?.parse().ok())?
            })
        })
        .unwrap_or(DEFAULT_UID_MIN)
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
