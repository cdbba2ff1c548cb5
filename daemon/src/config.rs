//! The daemon's YAML config: parsing (unknown keys are errors) and a validation
//! pass that reports every problem at once, each naming its key path.
//!
//! Relative paths are resolved against the working directory; an input file
//! (the embedded backend's trace) that is not found there is looked up next to
//! the config file.

use crate::backend::slurm::evict;
use crate::classes::ClassTable;
use interstice_api::Endpoint;
use interstice_core::placement::{Placement, Weights, WEIGHTS_EXAMPLE};
use interstice_core::qos::Eviction;
use interstice_core::{Admission, EngineConfig, Lifecycle, Policy, ThesisPrediction, Time, Victims};
use interstice_swf::beta::{beta_from_secs, parse_beta};
use interstice_swf::maintenance::{check_window, window};
use interstice_swf::qos::ClassEntry;
use serde::Deserialize;
use std::net::SocketAddr;
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

/// `api:` section.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ApiConfig {
    /// Unix socket path (mode 0660).
    #[serde(default = "default_socket")]
    pub socket: PathBuf,
    /// Optional TCP listener, `ADDR:PORT`.
    #[serde(default)]
    pub listen: Option<String>,
    /// Allow `listen` on a non-loopback address (off by default).
    #[serde(default)]
    pub allow_remote: bool,
    /// A file holding the bearer token that opens the whole API on the TCP
    /// listener (without it, TCP serves `/metrics` and `/healthz` only). It
    /// must be owned by the daemon's user (root) and not readable by others
    /// (mode 0600 or stricter), else the daemon refuses to start.
    #[serde(default)]
    pub token_file: Option<PathBuf>,
    /// Connections open at once per listener; the last eighth is kept for root.
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// Connections open at once per non-root uid on the Unix socket.
    #[serde(default = "default_max_connections_per_uid")]
    pub max_connections_per_uid: usize,
    /// A connection that sends no complete request head for this long is closed, seconds.
    #[serde(default = "default_idle_timeout")]
    pub idle_timeout_seconds: f64,
}

fn default_max_connections() -> usize {
    256
}

fn default_max_connections_per_uid() -> usize {
    64
}

fn default_idle_timeout() -> f64 {
    10.0
}

impl ApiConfig {
    /// The connection limits of each listener.
    /// The listeners' limits, sharing root's reserve with `batch_uid`
    /// ([`BackendConfig::slurm_uid`]).
    pub fn limits(&self, batch_uid: Option<u32>) -> crate::listen::Limits {
        crate::listen::Limits {
            max_connections: self.max_connections,
            max_per_uid: self.max_connections_per_uid,
            batch_uid,
            idle_timeout: std::time::Duration::from_secs_f64(self.idle_timeout_seconds),
        }
    }

    /// Read `token_file`'s token (none configured: `None`), refusing a file
    /// another user owns or may read or write: the token opens the job API.
    pub fn token(&self) -> Result<Option<String>, String> {
        use std::os::unix::fs::MetadataExt;
        let Some(path) = &self.token_file else {
            return Ok(None);
        };
        let meta =
            std::fs::metadata(path).map_err(|err| format!("api.token_file: {}: {err}", path.display()))?;
        let me = nix::unistd::geteuid().as_raw();
        if meta.uid() != me {
            return Err(format!(
                "api.token_file: {} is owned by uid {}, not by the daemon's uid {me}; chown it",
                path.display(),
                meta.uid()
            ));
        }
        if meta.mode() & 0o077 != 0 {
            return Err(format!(
                "api.token_file: {} has mode {:04o}; other users may read the token: chmod 600 it",
                path.display(),
                meta.mode() & 0o7777
            ));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|err| format!("api.token_file: {}: {err}", path.display()))?;
        let token = text.trim();
        if token.len() < 16 || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!(
                "api.token_file: {} must hold one token of at least 16 characters without spaces \
                 (e.g. `openssl rand -hex 32`)",
                path.display()
            ));
        }
        Ok(Some(token.to_string()))
    }
}

fn default_socket() -> PathBuf {
    PathBuf::from(interstice_api::paths::DEFAULT_SOCKET)
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            socket: default_socket(),
            listen: None,
            allow_remote: false,
            token_file: None,
            max_connections: default_max_connections(),
            max_connections_per_uid: default_max_connections_per_uid(),
            idle_timeout_seconds: default_idle_timeout(),
        }
    }
}

/// `engine:` section, as written. A key left out takes core's default
/// ([`EngineConfig::new`]), except the two modes the daemon chooses for
/// itself: [`DEFAULT_POLICY`] and [`DEFAULT_ADMISSION`]. Names are parsed by
/// core ([`Policy`], [`Admission`]) in [`EngineSection::resolve`].
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EngineSection {
    /// Processors of the HPC platform the plan covers (required but for a
    /// broker; 0 when left out, which validation reports).
    #[serde(default)]
    pub procs: u32,
    /// Processors in the convergence area (default: all).
    #[serde(default)]
    pub conv_procs: Option<u32>,
    /// fcfs, easy, conservative, convergence, cars (under shared-queue).
    #[serde(default)]
    pub policy: Option<String>,
    /// admit-all or reject-predicted.
    #[serde(default)]
    pub admission: Option<String>,
    /// Overbooking risk factor λ.
    #[serde(default)]
    pub lambda: Option<f64>,
    /// Counter-offer factor τ.
    #[serde(default)]
    pub tau: Option<f64>,
    /// Resubmissions allowed after evictions (and lost runs).
    #[serde(default)]
    pub max_resubmissions: Option<u32>,
    /// No resubmission after this long in the system.
    #[serde(default)]
    pub max_time_in_system_seconds: Option<f64>,
    /// hpc-first or shared-queue.
    #[serde(default)]
    pub scheduling: Option<String>,
    /// exact, thesis or learned.
    #[serde(default)]
    pub predictor: Option<String>,
    /// Under reject-predicted, refuse a cloud job whose violation
    /// probability exceeds this (0 to 1) instead of when a violation is
    /// predicted (the learned predictor's probabilities lie between).
    #[serde(default)]
    pub reject_above: Option<f64>,
    /// How many queued jobs hold a reservation: a count or `unlimited`
    /// (the default; `interstice_core::depth`).
    #[serde(default)]
    pub reservation_depth: Option<DepthValue>,
    /// Latency `r` of the thesis predictor, seconds.
    #[serde(default)]
    pub latency: Option<f64>,
    /// `β` of the thesis predictor: seconds, or `disqualify`.
    #[serde(default)]
    pub beta: Option<BetaValue>,
    /// first-fit or topsis: how a cloud job's processors (a member) or its
    /// destination (a broker) are chosen.
    #[serde(default)]
    pub placement: Option<String>,
    /// TOPSIS's weights, `margin=0.5,completion=0.2,…` (default: the AHP
    /// weights of `docs/placement.md`).
    #[serde(default)]
    pub placement_weights: Option<String>,
    /// Maintenance windows. The daemon's engine runs on the wall clock
    /// ([`crate::clock`]: epoch microseconds), so `start` is a Unix time in
    /// seconds; a window already over is harmless.
    #[serde(default)]
    pub maintenance: Vec<MaintenanceEntry>,
    /// Which running cloud jobs give way when HPC work the engine plans
    /// needs processors: `priority` or `qos-driven`, by their classes
    /// (docs/qos.md; fcfs or easy, `classes:` and `default_class:`).
    /// Default: those on the processors the plan names.
    #[serde(default)]
    pub eviction: Option<String>,
}

/// `engine.beta` as written: a number of seconds or a word.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum BetaValue {
    /// Seconds.
    Seconds(f64),
    /// `disqualify` (anything else is reported by validation).
    Word(String),
}

/// `engine.reservation_depth` as written: a count or a word.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum DepthValue {
    /// A number of jobs.
    Count(u64),
    /// `unlimited` (anything else is reported by validation).
    Word(String),
}

/// One `engine.maintenance` entry: processors `procs` out of service over
/// `[start, start + duration)`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MaintenanceEntry {
    /// When the window opens: Unix time, seconds (the daemon's engine clock).
    pub start: f64,
    /// How long it lasts, seconds.
    pub duration: f64,
    /// The processors: one id, or ids and ranges like `"0-3,8"`.
    pub procs: ProcsValue,
}

/// `procs` of a maintenance entry as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum ProcsValue {
    /// One processor.
    Id(u32),
    /// Ids and inclusive ranges separated by commas.
    List(String),
}

/// The policy when `engine.policy` is not set: the daemon's promises need
/// every queued job's reservation.
pub const DEFAULT_POLICY: Policy = Policy::Conservative;

/// The admission mode when `engine.admission` is not set: a daemon answers
/// clients, so a predicted violation is rejected with a counter-offer.
pub const DEFAULT_ADMISSION: Admission = Admission::RejectPredicted;

/// Values of the `engine:` section core does not accept, each naming its key path.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}", .problems.join("; "))]
pub struct EngineSectionError {
    /// One line per bad key, `engine.<key>: <why>`.
    pub problems: Vec<String>,
}

/// A victim order by class (`engine.eviction`, `backend.eviction`) needs
/// classes and a default class for the jobs that name none: the problem,
/// under `key`, when they are missing.
fn needs_default_class(key: &str, classes: Option<&ClassTable>) -> Option<String> {
    classes.map_or(true, |table| table.default.is_none()).then(|| {
        format!("{key} orders cloud jobs by class: give `classes:` and a `default_class:` (for the jobs that name none)")
    })
}

impl EngineSection {
    /// `engine.eviction`, when set and valid ([`EngineSection::resolve`]
    /// reports it otherwise).
    pub fn eviction(&self) -> Option<Eviction> {
        self.eviction.as_deref()?.parse().ok()
    }

    /// The engine config: core's defaults for `procs` and the policy, with
    /// every key that is set applied over them.
    pub fn resolve(&self) -> Result<EngineConfig, EngineSectionError> {
        let mut problems = Vec::new();
        let policy = parse_name("engine.policy", &self.policy, DEFAULT_POLICY, &mut problems);
        let mut config = EngineConfig::new(self.procs, policy.unwrap_or(DEFAULT_POLICY));
        if let Some(admission) = parse_name(
            "engine.admission",
            &self.admission,
            DEFAULT_ADMISSION,
            &mut problems,
        ) {
            config.admission = admission;
        }
        if let Some(scheduling) = parse_name(
            "engine.scheduling",
            &self.scheduling,
            config.scheduling,
            &mut problems,
        ) {
            config.scheduling = scheduling;
        }
        if let Some(predictor) = parse_name(
            "engine.predictor",
            &self.predictor,
            config.predictor,
            &mut problems,
        ) {
            config.predictor = predictor;
        }
        if let Some(p) = self.reject_above {
            if !(0.0..=1.0).contains(&p) {
                problems.push(format!(
                    "engine.reject_above: {p} is not a probability: give a number from 0 to 1"
                ));
            } else if config.admission != interstice_core::Admission::RejectPredicted {
                problems.push(
                    "engine.reject_above: it applies under engine.admission: reject-predicted; set that, or remove it"
                        .to_string(),
                );
            } else {
                config.reject_above = Some(p);
            }
        }
        if let Some(placement) = parse_name(
            "engine.placement",
            &self.placement,
            config.placement,
            &mut problems,
        ) {
            config.placement = placement;
        }
        if self.placement_weights.is_some() && config.placement != Placement::Topsis {
            problems.push(
                "engine.placement_weights: the placement is first-fit: set engine.placement: topsis, or remove them"
                    .to_string(),
            );
        }
        if let Some(weights) = &self.placement_weights {
            match weights.parse() {
                Ok(weights) => config.placement_weights = weights,
                Err(err) => problems.push(format!(
                    "engine.placement_weights: {err} (write e.g. {WEIGHTS_EXAMPLE})"
                )),
            }
        }
        if let Some(secs) = self.latency {
            match Time::instant_from_secs_f64(secs) {
                Some(latency) => config.thesis.latency = latency,
                None => problems.push(format!(
                    "engine.latency: {secs} must be a number of seconds from 0 to {:e} (the delay r before a \
                     predicted start; 0 by default)",
                    Time::MAX_INSTANT_SECS
                )),
            }
        }
        let beta = match &self.beta {
            None => Ok(config.thesis.beta),
            Some(BetaValue::Seconds(secs)) => beta_from_secs(*secs),
            Some(BetaValue::Word(word)) => parse_beta(word),
        };
        match beta {
            Ok(beta) => config.thesis.beta = beta,
            Err(err) => problems.push(format!("engine.beta: {err}")),
        }
        for (index, entry) in self.maintenance.iter().enumerate() {
            let procs = match &entry.procs {
                ProcsValue::Id(id) => id.to_string(),
                ProcsValue::List(list) => list.clone(),
            };
            match window(entry.start, entry.duration, &procs)
                .and_then(|window| check_window(&window, self.procs).map(|()| window))
            {
                Ok(window) => config.maintenance.push(window),
                Err(err) => problems.push(format!("engine.maintenance[{index}]: {err}")),
            }
        }
        if let Some(conv_procs) = self.conv_procs {
            config.conv_procs = conv_procs;
        }
        if let Some(lambda) = self.lambda {
            config.lambda = lambda;
        }
        if let Some(tau) = self.tau {
            config.tau = tau;
        }
        // The product's default (the one table of defaults), not the bare engine's 0.
        config.lifecycle.max_resubmissions = interstice_swf::defaults::MAX_RESUBMISSIONS;
        if let Some(max_resubmissions) = self.max_resubmissions {
            config.lifecycle.max_resubmissions = max_resubmissions;
        }
        if let Some(max) = self.max_time_in_system_seconds {
            config.lifecycle.max_time_in_system = Some(Time::from_secs_f64(max));
        }
        if let Some(depth) = &self.reservation_depth {
            let text = match depth {
                DepthValue::Count(count) => count.to_string(),
                DepthValue::Word(word) => word.clone(),
            };
            match text.parse() {
                Ok(depth) => {
                    config.reservation_depth = depth;
                    if let Some(conflict) = config.depth_conflict() {
                        problems.push(format!("engine.reservation_depth: {conflict}"));
                    }
                }
                Err(err) => problems.push(format!("engine.reservation_depth: {err}")),
            }
        }
        if let Some(name) = &self.eviction {
            match name.parse::<Eviction>() {
                Ok(Eviction::OwnerShare) => problems.push(
                    "engine.eviction: owner-share orders by the tenants' shares, which only the Slurm backend \
                     knows (backend.eviction, backend.tenants): use priority or qos-driven"
                        .to_string(),
                ),
                Ok(_) => {
                    config.victims = Victims::Ranked;
                    if let Some(conflict) = config.ranked_victims_conflict() {
                        problems.push(format!("engine.eviction: {conflict}"));
                    }
                }
                Err(err) => problems.push(format!("engine.eviction: {err}")),
            }
        }
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(EngineSectionError { problems })
        }
    }
}

/// The engine rules a broker applies to the jobs it places: Algorithm 1's
/// admission with τ for its counter-offers, the thesis predictor's `r` and
/// `β` for `F^σ` over the members' tuples, and the resubmission bounds of
/// Algorithm 2. Read from the `engine:` section by [`EngineSection::resolve`],
/// so a broker and a member spell and default them alike.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrokerRules {
    /// `engine.admission`.
    pub admission: Admission,
    /// `engine.tau`.
    pub tau: f64,
    /// `engine.latency` (the `r` of every member's tuple) and `engine.beta`.
    pub thesis: ThesisPrediction,
    /// `engine.max_resubmissions`, `engine.max_time_in_system_seconds`.
    pub lifecycle: Lifecycle,
    /// `engine.placement_weights` when `engine.placement` is `topsis`:
    /// `F^J'` orders the members by TOPSIS.
    pub topsis: Option<Weights>,
}

impl BrokerRules {
    /// The rules of a resolved `engine:` section.
    pub fn of(engine: &EngineConfig) -> BrokerRules {
        BrokerRules {
            admission: engine.admission,
            tau: engine.tau,
            thesis: engine.thesis,
            lifecycle: engine.lifecycle,
            topsis: engine.topsis().copied(),
        }
    }
}

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

/// `backend:` section, chosen by `type`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BackendConfig {
    /// A simulated cluster replaying an SWF trace.
    Embedded(EmbeddedConfig),
    /// The batch system pushes events over `POST /v1/hpc/events`.
    Plugin(PluginConfig),
    /// Read Slurm's plan with squeue/scontrol.
    Slurm(SlurmConfig),
}

/// The default backend is `embedded` without a trace: a simulated cluster of
/// `engine.procs` processors with no HPC load, which needs nothing else.
impl Default for BackendConfig {
    fn default() -> Self {
        BackendConfig::Embedded(EmbeddedConfig {
            trace: None,
            speedup: default_speedup(),
            skip_seconds: 0.0,
            repeat: true,
            clip_procs: None,
        })
    }
}

/// `backend: {type: embedded, ...}`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EmbeddedConfig {
    /// SWF trace (optionally .gz) replayed as the HPC load; none = an idle cluster.
    #[serde(default)]
    pub trace: Option<PathBuf>,
    /// Trace seconds per wall-clock second.
    #[serde(default = "default_speedup")]
    pub speedup: f64,
    /// Skip this many trace seconds at the start.
    #[serde(default)]
    pub skip_seconds: f64,
    /// Start over when the trace ends.
    #[serde(default = "yes")]
    pub repeat: bool,
    /// Clip wider jobs to this many processors (set by the daemon to `engine.procs`).
    #[serde(skip)]
    pub clip_procs: Option<u32>,
}

fn default_speedup() -> f64 {
    60.0
}
fn yes() -> bool {
    true
}

/// `backend: {type: plugin}`: no options.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PluginConfig {}

/// `backend: {type: slurm, ...}`. Owned by the Slurm backend (`backend/slurm.rs`);
/// new fields need a default and a check in [`Config::validate`].
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlurmConfig {
    /// Seconds between two reads of the plan.
    #[serde(default = "default_bf_interval")]
    pub bf_interval_seconds: f64,
    /// The HPC partition.
    #[serde(default = "default_partition_hpc")]
    pub partition_hpc: String,
    /// The cloud partition, or several, comma-separated (one per service
    /// class, `class_partitions` of `job_submit/interstice`): their nodes are
    /// the area.
    #[serde(default = "default_partition_cloud")]
    pub partition_cloud: String,
    /// The squeue program.
    #[serde(default = "default_squeue")]
    pub squeue: PathBuf,
    /// The scontrol program.
    #[serde(default = "default_scontrol")]
    pub scontrol: PathBuf,
    /// The scancel program (`backend.eviction` other than `slurm` only).
    #[serde(default = "default_scancel")]
    pub scancel: PathBuf,
    /// `SLURM_CONF` for squeue/scontrol (default: their own default, `/etc/slurm/slurm.conf`).
    #[serde(default)]
    pub slurm_conf: Option<PathBuf>,
    /// Count a cloud job preempted by Slurm as an SLO violation too (it is not rerun).
    #[serde(default = "yes")]
    pub evictions_violate: bool,
    /// The daemon is ready only once it has read the plan, and stops being
    /// ready when the last successful read is older than this (default: three
    /// read intervals): `/healthz` and predictions answer 503 meanwhile.
    #[serde(default)]
    pub plan_stale_seconds: Option<f64>,
    /// How long an admission hold stands at most (seconds; 0: no holds). An
    /// evictable job admitted by `job_submit/interstice` has its promised
    /// slot held in the plan from the answer until Slurm lists it running or
    /// planned; a job Slurm never lists (refused after the admission) frees
    /// its hold after this long.
    #[serde(default = "default_hold_seconds")]
    pub hold_seconds: f64,
    /// The user slurmctld runs as (`SlurmUser`): with root, the only caller
    /// whose admissions (`/v1/predict` with `admission: true`, from
    /// job_submit/interstice) take a hold.
    #[serde(default = "default_slurm_user")]
    pub slurm_user: String,
    /// Who gives way when HPC work needs CPUs that cloud jobs hold: `slurm`
    /// (Slurm's own preemption picks), or `priority`, `qos-driven`,
    /// `owner-share`: the daemon cancels the victims itself, in the
    /// policy's order (`backend::slurm::evict`; the cloud partitions then
    /// need `PreemptMode=OFF`, docs/qos.md "On Slurm").
    #[serde(default = "default_slurm_eviction")]
    pub eviction: String,
    /// `owner-share`: the Slurm users and the CPUs each is entitled to
    /// (other users share nothing).
    #[serde(default)]
    pub tenants: Vec<interstice_swf::qos::TenantEntry>,
}

/// `backend.eviction`'s value for Slurm's own preemption.
pub const SLURM_PREEMPTS: &str = "slurm";

fn default_slurm_eviction() -> String {
    SLURM_PREEMPTS.to_string()
}

fn default_slurm_user() -> String {
    "slurm".to_string()
}

fn default_hold_seconds() -> f64 {
    120.0
}

impl SlurmConfig {
    /// How old the last plan read may be while the daemon is ready.
    pub fn plan_stale_after(&self) -> f64 {
        self.plan_stale_seconds.unwrap_or(3.0 * self.bf_interval_seconds)
    }
}

impl BackendConfig {
    /// The uid of `backend.slurm_user` (Slurm mode, when that user exists):
    /// with root, the caller that speaks for the batch system.
    pub fn slurm_uid(&self) -> Option<u32> {
        match self {
            BackendConfig::Slurm(slurm) => nix::unistd::User::from_name(&slurm.slurm_user)
                .ok()
                .flatten()
                .map(|user| user.uid.as_raw()),
            _ => None,
        }
    }

    /// How old the backend's plan may be while the daemon is ready; `None`
    /// for backends that do not read a plan (the embedded cluster is its own
    /// plan, the plugin backend is told every event).
    pub fn plan_stale_after(&self) -> Option<f64> {
        match self {
            BackendConfig::Slurm(slurm) => Some(slurm.plan_stale_after()),
            BackendConfig::Embedded(_) | BackendConfig::Plugin(_) => None,
        }
    }
}

fn default_bf_interval() -> f64 {
    5.0
}
fn default_partition_hpc() -> String {
    "hpc".to_string()
}
fn default_partition_cloud() -> String {
    interstice_api::slurm::DEFAULT_CLOUD_PARTITION.to_string()
}
fn default_squeue() -> PathBuf {
    PathBuf::from("squeue")
}
fn default_scancel() -> PathBuf {
    PathBuf::from("scancel")
}
fn default_scontrol() -> PathBuf {
    PathBuf::from("scontrol")
}

/// `execution:` section.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExecutionConfig {
    /// Unprivileged user cloud jobs run as when the daemon runs as root.
    #[serde(default = "default_user")]
    pub user: String,
    /// Seconds between SIGTERM and SIGKILL on eviction, walltime or cancel.
    #[serde(default = "default_grace")]
    pub grace_seconds: f64,
    /// PATH given to jobs that set none.
    #[serde(default = "default_path")]
    pub path: String,
    /// Resource limits of cloud jobs.
    #[serde(default)]
    pub rlimits: RlimitConfig,
    /// A job submitted by root runs as root (off: it runs as `user`).
    #[serde(default)]
    pub allow_root: bool,
    /// Only these users (names or uids) may submit jobs (empty: everyone).
    /// Root, the administrator, may always submit.
    #[serde(default)]
    pub allow_users: Vec<String>,
    /// These users (names or uids) may not submit jobs.
    #[serde(default)]
    pub deny_users: Vec<String>,
    /// How a job's processes are contained so that every descendant can be
    /// killed: `auto`, `v2`, `v1-freezer` or `none` (the process group only).
    #[serde(default)]
    pub cgroup: CgroupMode,
    /// Largest file a job may write, its output files included
    /// (RLIMIT_FSIZE: beyond it the job gets SIGXFSZ / EFBIG); null: no cap.
    #[serde(default = "default_max_output_bytes")]
    pub max_output_bytes: Option<u64>,
}

/// `execution.cgroup`: where each job's processes are contained.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CgroupMode {
    /// cgroup v2 if mounted (as the root or the hybrid `unified` mount),
    /// else the v1 freezer, else the process group (with a warning).
    #[default]
    Auto,
    /// cgroup v2 (an error at start if it is not usable).
    V2,
    /// The cgroup v1 freezer hierarchy (an error at start if it is not usable).
    V1Freezer,
    /// No cgroup: the job's process group only (`setsid` escapes it).
    None,
}

/// 64 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 64 << 20;

fn default_max_output_bytes() -> Option<u64> {
    Some(DEFAULT_MAX_OUTPUT_BYTES)
}

fn default_user() -> String {
    "nobody".to_string()
}
fn default_grace() -> f64 {
    5.0
}
fn default_path() -> String {
    "/usr/local/bin:/usr/bin:/bin".to_string()
}

impl Default for ExecutionConfig {
    fn default() -> Self {
        ExecutionConfig {
            user: default_user(),
            grace_seconds: default_grace(),
            path: default_path(),
            rlimits: RlimitConfig::default(),
            allow_root: false,
            allow_users: Vec::new(),
            deny_users: Vec::new(),
            cgroup: CgroupMode::Auto,
            max_output_bytes: default_max_output_bytes(),
        }
    }
}

/// `execution.rlimits:` (unset = inherited).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RlimitConfig {
    /// RLIMIT_NOFILE.
    #[serde(default)]
    pub open_files: Option<u64>,
    /// RLIMIT_AS in bytes.
    #[serde(default)]
    pub address_space_bytes: Option<u64>,
    /// RLIMIT_CORE in bytes.
    #[serde(default)]
    pub core_bytes: Option<u64>,
    /// RLIMIT_NPROC.
    #[serde(default)]
    pub processes: Option<u64>,
}

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

    /// Every problem of the config, each naming its key path and what is allowed.
    pub fn validate(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.api.socket.as_os_str().is_empty() {
            problems.push("api.socket: must be a path".to_string());
        }
        if let Some(listen) = &self.api.listen {
            match listen.parse::<SocketAddr>() {
                Err(_) => problems.push(format!("api.listen: {listen:?} is not ADDR:PORT (e.g. 127.0.0.1:9477)")),
                Ok(addr) if !addr.ip().is_loopback() && !self.api.allow_remote => problems.push(format!(
                    "api.listen: {addr} is not a loopback address; use 127.0.0.1 or ::1, or set api.allow_remote: true"
                )),
                Ok(_) => {}
            }
        }
        if self.api.max_connections < 2 {
            problems.push("api.max_connections: must be at least 2 (one is kept for root)".to_string());
        }
        if self.api.max_connections_per_uid == 0 {
            problems.push("api.max_connections_per_uid: must be at least 1".to_string());
        }
        if !(self.api.idle_timeout_seconds.is_finite()
            && (0.1..=3600.0).contains(&self.api.idle_timeout_seconds))
        {
            problems.push(format!(
                "api.idle_timeout_seconds: {} must be between 0.1 and 3600",
                self.api.idle_timeout_seconds
            ));
        }
        let classes = match self.class_table() {
            Ok(table) => table,
            Err(class_problems) => {
                problems.extend(class_problems);
                None
            }
        };
        let engine = &self.engine;
        if let Some(DatacenterConfig::Broker(broker)) = &self.datacenter {
            self.validate_broker(broker, &mut problems);
        } else if engine.procs == 0 {
            problems.push("engine.procs: must be at least 1".to_string());
        }
        if let Some(DatacenterConfig::Member(member)) = &self.datacenter {
            self.validate_member(member, &mut problems);
        }
        if let Some(conv) = engine.conv_procs {
            if conv == 0 || conv > engine.procs {
                problems.push(format!(
                    "engine.conv_procs: {conv} must be between 1 and engine.procs ({})",
                    engine.procs
                ));
            }
        }
        if let Err(err) = engine.resolve() {
            problems.extend(err.problems);
        }
        if let Some(lambda) = engine.lambda {
            positive(&mut problems, "engine.lambda", lambda);
        }
        if let Some(tau) = engine.tau {
            positive(&mut problems, "engine.tau", tau);
        }
        if let Some(max) = engine.max_time_in_system_seconds {
            positive(&mut problems, "engine.max_time_in_system_seconds", max);
        }
        if engine.eviction.is_some() {
            if matches!(self.backend, BackendConfig::Slurm(_)) {
                problems.push(
                    "engine.eviction: in Slurm mode Slurm's plan decides the HPC jobs' nodes; the daemon's own \
                     victim order is backend.eviction"
                        .to_string(),
                );
            }
            if let Some(problem) = needs_default_class("engine.eviction", classes.as_ref()) {
                problems.push(problem);
            }
        }
        match &self.backend {
            BackendConfig::Embedded(embedded) => {
                positive(&mut problems, "backend.speedup", embedded.speedup);
                if !(embedded.skip_seconds.is_finite() && embedded.skip_seconds >= 0.0) {
                    problems.push(format!(
                        "backend.skip_seconds: {} must be >= 0",
                        embedded.skip_seconds
                    ));
                }
                if let Some(trace) = embedded.trace.as_ref().filter(|trace| !trace.is_file()) {
                    problems.push(format!(
                        "backend.trace: {} does not exist (relative paths are tried from the working directory, then the config's directory)",
                        trace.display()
                    ));
                }
            }
            BackendConfig::Plugin(_) => {}
            BackendConfig::Slurm(slurm) => {
                positive(
                    &mut problems,
                    "backend.bf_interval_seconds",
                    slurm.bf_interval_seconds,
                );
                if let Some(stale) = slurm.plan_stale_seconds {
                    if !(stale.is_finite() && stale >= slurm.bf_interval_seconds) {
                        problems.push(format!(
                            "backend.plan_stale_seconds: {stale} must be at least backend.bf_interval_seconds ({})",
                            slurm.bf_interval_seconds
                        ));
                    }
                }
                if slurm.partition_hpc.is_empty() {
                    problems.push("backend.partition_hpc: must not be empty".to_string());
                }
                let mut clouds = interstice_api::slurm::partition_list(&slurm.partition_cloud).peekable();
                if clouds.peek().is_none() || clouds.any(|cloud| cloud == slurm.partition_hpc) {
                    problems.push(format!(
                        "backend.partition_cloud: {:?} must name the cloud partition, or several separated by \
                         commas, none of them backend.partition_hpc",
                        slurm.partition_cloud
                    ));
                }
                if self.engine.placement.as_deref() == Some(Placement::Topsis.name()) {
                    problems.push(
                        "engine.placement: topsis chooses a local cloud job's processors, but in Slurm mode Slurm \
                         places the cloud jobs on its nodes: remove it (a broker's topsis orders its members)"
                            .to_string(),
                    );
                }
                if let Err(eviction_problems) = self.slurm_eviction(classes.as_ref()) {
                    problems.extend(eviction_problems);
                }
                if !(slurm.hold_seconds.is_finite() && slurm.hold_seconds >= 0.0) {
                    problems.push(format!(
                        "backend.hold_seconds: {} must be a number of seconds >= 0 (0: no admission holds)",
                        slurm.hold_seconds
                    ));
                }
            }
        }
        let execution = &self.execution;
        if !(execution.grace_seconds.is_finite() && execution.grace_seconds >= 0.0) {
            problems.push(format!(
                "execution.grace_seconds: {} must be >= 0",
                execution.grace_seconds
            ));
        }
        if execution.user.is_empty() {
            problems.push("execution.user: must name a user".to_string());
        } else if nix::unistd::geteuid().is_root() {
            match nix::unistd::User::from_name(&execution.user) {
                Ok(Some(user)) if user.uid.is_root() => {
                    problems.push("execution.user: must be an unprivileged user, not root".to_string())
                }
                Ok(Some(_)) => {}
                _ => problems.push(format!(
                    "execution.user: no user named {:?} on this node",
                    execution.user
                )),
            }
        }
        for (key, list) in [
            ("execution.allow_users", &execution.allow_users),
            ("execution.deny_users", &execution.deny_users),
        ] {
            for entry in list {
                if entry.is_empty() {
                    problems.push(format!("{key}: empty entry; name a user or a uid"));
                }
            }
        }
        if execution.max_output_bytes == Some(0) {
            problems.push(
                "execution.max_output_bytes: 0 would fail every job's output; use null for no cap"
                    .to_string(),
            );
        }
        if !(self.node.busy_margin_cpus.is_finite() && self.node.busy_margin_cpus >= 0.0) {
            problems.push(format!(
                "node.busy_margin_cpus: {} must be >= 0",
                self.node.busy_margin_cpus
            ));
        }
        positive(
            &mut problems,
            "node.sample_interval_seconds",
            self.node.sample_interval_seconds,
        );
        positive(
            &mut problems,
            "metrics.future_window_seconds",
            self.metrics.future_window_seconds,
        );
        if log_level(&self.log_level).is_none() {
            problems.push(format!(
                "log_level: {:?} is not one of error, warn, info, debug, trace",
                self.log_level
            ));
        }
        problems
    }

    /// The engine config ([`EngineSection::resolve`]).
    pub fn engine_config(&self) -> Result<EngineConfig, EngineSectionError> {
        self.engine.resolve()
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

    fn validate_member(&self, member: &MemberConfig, problems: &mut Vec<String>) {
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
    fn validate_broker(&self, broker: &BrokerConfig, problems: &mut Vec<String>) {
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

    /// The service classes (`classes:`, `default_class:`), checked: `None`
    /// without classes; each problem names its key.
    pub fn class_table(&self) -> Result<Option<ClassTable>, Vec<String>> {
        let mut problems = Vec::new();
        if self.classes.is_empty() {
            if self.default_class.is_some() {
                problems
                    .push("default_class: there are no classes: add a `classes:` list, or remove it".into());
            }
            return if problems.is_empty() {
                Ok(None)
            } else {
                Err(problems)
            };
        }
        for (index, entry) in self.classes.iter().enumerate() {
            if let Err(err) = interstice_api::slurm::parse_class(&entry.name) {
                problems.push(format!("classes[{index}].name: {err}"));
            }
            if entry.weight.is_some() {
                problems.push(format!(
                    "classes[{index}].weight: only a replay draws classes by weight; a daemon's jobs name \
                     theirs: remove it"
                ));
            }
        }
        let classes = match interstice_swf::qos::service_classes(&self.classes) {
            Ok(classes) => classes,
            Err((key, message)) => {
                problems.push(format!("{key}: {message}"));
                return Err(problems);
            }
        };
        let mut table = ClassTable {
            classes,
            default: None,
        };
        if let Some(name) = &self.default_class {
            match table.index(Some(name)) {
                Ok(index) => table.default = index,
                Err(err) => problems.push(format!("default_class: {err}")),
            }
        }
        if problems.is_empty() {
            Ok(Some(table))
        } else {
            Err(problems)
        }
    }

    /// The Slurm backend's own eviction policy (`backend.eviction`,
    /// `backend.tenants`) over `classes` (the config's [`Config::class_table`]),
    /// checked: `None` when Slurm preempts (or the backend is not Slurm);
    /// each problem names its key.
    pub fn slurm_eviction(&self, classes: Option<&ClassTable>) -> Result<Option<evict::Policy>, Vec<String>> {
        let BackendConfig::Slurm(slurm) = &self.backend else {
            return Ok(None);
        };
        let mut problems = Vec::new();
        let eviction = if slurm.eviction == SLURM_PREEMPTS {
            None
        } else {
            match slurm.eviction.parse::<Eviction>() {
                Ok(eviction) => Some(eviction),
                Err(err) => {
                    return Err(vec![format!(
                        "backend.eviction: {err}, or \"{SLURM_PREEMPTS}\" (Slurm's own preemption)"
                    )])
                }
            }
        };
        match eviction {
            Some(Eviction::Priority | Eviction::QosDriven) => {
                problems.extend(needs_default_class(
                    &format!("backend.eviction: {}", slurm.eviction),
                    classes,
                ));
            }
            Some(Eviction::OwnerShare) if slurm.tenants.is_empty() => problems.push(
                "backend.eviction: owner-share needs `backend.tenants:` (Slurm users and the CPUs each is \
                 entitled to)"
                    .to_string(),
            ),
            _ => {}
        }
        if !slurm.tenants.is_empty() && eviction != Some(Eviction::OwnerShare) {
            problems.push(
                "backend.tenants: only backend.eviction: owner-share reads them: remove them, or set it"
                    .to_string(),
            );
        }
        if slurm.tenants.iter().any(|t| t.weight.is_some()) {
            problems.push(
                "backend.tenants: weight: only a replay draws tenants by weight; a Slurm job's tenant is its \
                 user: remove it"
                    .to_string(),
            );
        }
        let tenants = match interstice_swf::qos::tenants(&slurm.tenants) {
            Ok(tenants) => tenants,
            Err((key, message)) => {
                problems.push(format!("backend.{key}: {message}"));
                Vec::new()
            }
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(eviction.map(|eviction| {
            evict::Policy::new(
                eviction,
                classes,
                tenants,
                &slurm.partition_hpc,
                &slurm.partition_cloud,
            )
        }))
    }

    /// A broker's rules ([`BrokerRules`]), from the `engine:` section.
    pub fn broker_rules(&self) -> Result<BrokerRules, EngineSectionError> {
        self.engine.resolve().map(|engine| BrokerRules::of(&engine))
    }
}

/// A name parsed by core's `FromStr` (`default` when unset); a bad name is a
/// problem naming `key`.
fn parse_name<T: std::str::FromStr<Err = interstice_core::UnknownName>>(
    key: &str,
    value: &Option<String>,
    default: T,
    problems: &mut Vec<String>,
) -> Option<T> {
    match value.as_deref().map(str::parse) {
        None => Some(default),
        Some(Ok(parsed)) => Some(parsed),
        Some(Err(err)) => {
            problems.push(format!("{key}: {err}"));
            None
        }
    }
}

fn positive(problems: &mut Vec<String>, key: &str, value: f64) {
    if !(value.is_finite() && value > 0.0) {
        problems.push(format!("{key}: {value} must be a positive number"));
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

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "engine: {procs: 8}\nbackend: {type: plugin}\n";

    #[test]
    fn minimal_config_is_valid() {
        let config = Config::parse(MINIMAL).unwrap();
        assert_eq!(config.validate(), Vec::<String>::new());
        assert_eq!(config.engine_config().unwrap().conv_procs, 8);
        assert_eq!(config.engine_config().unwrap().policy, Policy::Conservative);
    }

    #[test]
    fn default_backend_is_an_idle_embedded_cluster() {
        let config = Config::parse("engine: {procs: 8}\n").unwrap();
        assert_eq!(config.validate(), Vec::<String>::new());
        match &config.backend {
            BackendConfig::Embedded(embedded) => assert_eq!(embedded.trace, None),
            other => panic!("default backend is {other:?}"),
        }
    }

    #[test]
    fn unknown_key_names_its_path() {
        let err = Config::parse("engine: {procs: 8, polcy: easy}\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("engine") && err.contains("polcy"), "{err}");
        let err = Config::parse("engine: {procs: 8}\nbackend: {type: pbs}\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("embedded") && err.contains("slurm"), "{err}");
    }

    #[test]
    fn every_bad_value_is_reported() {
        let text =
            "api: {listen: '0.0.0.0:80'}\nengine: {procs: 4, conv_procs: 9, policy: sjf, lambda: -1}\n\
                    backend: {type: plugin}\nexecution: {grace_seconds: -2}\nlog_level: loud\n";
        let problems = Config::parse(text).unwrap().validate();
        let joined = problems.join("\n");
        for key in [
            "api.listen",
            "engine.conv_procs",
            "engine.policy",
            "engine.lambda",
            "execution.grace_seconds",
            "log_level",
        ] {
            assert!(joined.contains(key), "missing {key} in {joined}");
        }
        assert!(
            joined.contains("fcfs, easy, conservative, convergence"),
            "{joined}"
        );
    }

    #[test]
    fn engine_defaults_are_cores_but_for_the_daemons_two_modes_and_the_tables_resubmissions() {
        let config = Config::parse(MINIMAL).unwrap().engine_config().unwrap();
        let mut expected = EngineConfig::new(8, DEFAULT_POLICY);
        expected.admission = DEFAULT_ADMISSION;
        expected.lifecycle.max_resubmissions = interstice_swf::defaults::MAX_RESUBMISSIONS;
        assert_eq!(config, expected);
    }

    #[test]
    fn the_learned_predictor_and_its_threshold_reach_the_engine() {
        let config = Config::parse(
            "engine:\n  procs: 8\n  admission: reject-predicted\n  predictor: learned\n  reject_above: 0.7\n",
        )
        .unwrap();
        assert_eq!(config.validate(), Vec::<String>::new());
        let engine = config.engine_config().unwrap();
        assert_eq!(engine.predictor, interstice_core::Predictor::Learned);
        assert_eq!(engine.reject_above, Some(0.7));
        for (yaml, problem) in [
            (
                "  admission: reject-predicted\n  reject_above: 1.5\n",
                "engine.reject_above: 1.5 is not a probability",
            ),
            (
                "  admission: admit-all\n  reject_above: 0.5\n",
                "engine.reject_above: it applies under",
            ),
        ] {
            let config = Config::parse(&format!("engine:\n  procs: 8\n{yaml}")).unwrap();
            let problems = config.validate();
            assert!(problems.iter().any(|p| p.starts_with(problem)), "{problems:?}");
        }
    }

    #[test]
    fn the_reservation_depth_reaches_the_engine_and_bad_ones_name_the_key() {
        for (yaml, depth) in [("500", "500"), ("unlimited", "unlimited")] {
            let config = Config::parse(&format!(
                "engine:\n  procs: 8\n  policy: conservative\n  reservation_depth: {yaml}\n"
            ))
            .unwrap();
            assert_eq!(config.validate(), Vec::<String>::new());
            assert_eq!(
                config.engine_config().unwrap().reservation_depth.to_string(),
                depth
            );
        }
        for (yaml, problem) in [
            (
                "policy: conservative\n  reservation_depth: 0",
                "engine.reservation_depth: \"0\" is not a reservation depth",
            ),
            (
                "policy: conservative\n  reservation_depth: deep",
                "engine.reservation_depth: \"deep\" is not",
            ),
            (
                "policy: easy\n  reservation_depth: 10",
                "engine.reservation_depth: reservation depth 10 applies to",
            ),
        ] {
            let config = Config::parse(&format!("engine:\n  procs: 8\n  {yaml}\n")).unwrap();
            let problems = config.validate();
            assert!(problems.iter().any(|p| p.starts_with(problem)), "{problems:?}");
        }
    }

    #[test]
    fn the_thesis_keys_reach_the_engine() {
        let config = Config::parse(
            "engine:\n  procs: 8\n  scheduling: shared-queue\n  predictor: thesis\n  latency: 2.5\n  beta: 30\n  \
             maintenance:\n    - {start: 1767225600, duration: 3600, procs: \"0-3,6\"}\n    - {start: 1767229200.5, \
             duration: 60, procs: 7}\n",
        )
        .unwrap();
        assert_eq!(config.validate(), Vec::<String>::new());
        let engine = config.engine_config().unwrap();
        assert_eq!(engine.scheduling, interstice_core::Scheduling::SharedQueue);
        assert_eq!(engine.predictor, interstice_core::Predictor::Thesis);
        assert_eq!(engine.thesis.latency, Time::from_secs_f64(2.5));
        assert_eq!(
            engine.thesis.beta,
            interstice_core::Beta::Wait(Time::from_secs(30))
        );
        assert_eq!(
            engine.maintenance,
            [
                interstice_core::Maintenance {
                    start: Time::from_secs(1_767_225_600),
                    duration: Time::from_secs(3600),
                    procs: interstice_core::ProcSet::from_ranges([(0, 3), (6, 6)]),
                },
                interstice_core::Maintenance {
                    start: Time::from_secs_f64(1_767_229_200.5),
                    duration: Time::from_secs(60),
                    procs: interstice_core::ProcSet::range(7, 7),
                },
            ]
        );
        assert_eq!(engine.validate(), Ok(()));
        let disqualify = Config::parse("engine: {procs: 8, beta: disqualify}\n").unwrap();
        assert_eq!(
            disqualify.engine_config().unwrap().thesis.beta,
            interstice_core::Beta::Disqualify
        );
    }

    #[test]
    fn engine_eviction_is_checked() {
        let classes =
            "classes:\n  - {name: gold, slo: 1.0}\n  - {name: bronze, slo: 0.5}\ndefault_class: bronze\n";
        let problems = |text: &str| Config::parse(text).unwrap().validate().join("\n");
        let ok = format!("engine: {{procs: 4, policy: easy, eviction: qos-driven}}\n{classes}");
        assert_eq!(problems(&ok), "");
        assert_eq!(
            Config::parse(&ok).unwrap().engine.eviction(),
            Some(Eviction::QosDriven)
        );
        for (text, needle) in [
            (format!("engine: {{procs: 4, eviction: priority}}\n{classes}"), "needs fcfs or easy"),
            ("engine: {procs: 4, policy: fcfs, eviction: priority}\n".to_string(), "give `classes:`"),
            (
                format!("engine: {{procs: 4, policy: fcfs, eviction: owner-share}}\n{classes}"),
                "only the Slurm backend",
            ),
            (format!("engine: {{procs: 4, policy: fcfs, eviction: random}}\n{classes}"), "engine.eviction"),
            (
                format!("engine: {{procs: 4, policy: fcfs, eviction: priority}}\nbackend: {{type: slurm}}\n{classes}"),
                "backend.eviction",
            ),
        ] {
            let found = problems(&text);
            assert!(found.contains("engine.eviction") && found.contains(needle), "{text}: {found}");
        }
    }

    #[test]
    fn the_daemons_own_eviction_on_slurm_is_checked_and_built() {
        let classes =
            "classes:\n  - {name: gold, slo: 1.0}\n  - {name: bronze, slo: 0.5}\ndefault_class: bronze\n";
        let parse = |backend: &str, extra: &str| {
            Config::parse(&format!(
                "engine: {{procs: 8}}\nbackend: {{type: slurm, {backend}}}\n{extra}"
            ))
            .unwrap()
        };
        let eviction = |config: &Config| config.slurm_eviction(config.class_table().unwrap().as_ref());
        assert!(eviction(&parse("partition_cloud: cloud", "")).unwrap().is_none());
        let qos = parse("eviction: qos-driven", classes);
        assert_eq!(qos.validate(), Vec::<String>::new());
        assert_eq!(
            eviction(&qos).unwrap().map(|p| p.eviction()),
            Some(Eviction::QosDriven)
        );
        let shares = parse("eviction: owner-share, tenants: [{name: alice, share: 4}]", "");
        assert_eq!(shares.validate(), Vec::<String>::new());
        let problems = |config: Config| config.validate().join("\n");
        assert!(
            problems(parse("eviction: qos", classes)).contains("backend.eviction: unknown eviction policy")
        );
        assert!(problems(parse("eviction: priority", "")).contains("give `classes:` and a `default_class:`"));
        assert!(problems(parse(
            "eviction: priority",
            "classes:\n  - {name: gold, slo: 1.0}\n"
        ))
        .contains("default_class"));
        assert!(problems(parse("eviction: owner-share", "")).contains("owner-share needs `backend.tenants:`"));
        assert!(problems(parse("tenants: [{name: a, share: 1}]", ""))
            .contains("only backend.eviction: owner-share"));
        let twice = parse(
            "eviction: owner-share, tenants: [{name: a, share: 1}, {name: a, share: 2, weight: 1}]",
            "",
        );
        let text = problems(twice);
        assert!(text.contains("backend.tenants[1].name"), "{text}");
        assert!(text.contains("weight: only a replay"), "{text}");
    }

    #[test]
    fn placement_keys_reach_a_member_and_a_broker_and_bad_ones_name_their_key() {
        let member =
            Config::parse("engine: {procs: 8, placement: topsis, placement_weights: 'margin=3,slack=1'}\n")
                .unwrap();
        assert_eq!(member.validate(), Vec::<String>::new());
        let engine = member.engine_config().unwrap();
        assert_eq!(engine.placement, Placement::Topsis);
        assert_eq!(engine.placement_weights.values(), [0.0, 0.25, 0.75, 0.0]);
        let broker = Config::parse("datacenter: {role: broker}\nengine: {placement: topsis}\n").unwrap();
        assert_eq!(broker.validate(), Vec::<String>::new());
        assert_eq!(broker.broker_rules().unwrap().topsis, Some(Weights::default()));
        let plain = Config::parse("datacenter: {role: broker}\n").unwrap();
        assert_eq!(plain.broker_rules().unwrap().topsis, None);
        let alone = Config::parse("engine: {procs: 8, placement_weights: 'margin=1'}\n").unwrap();
        assert!(alone
            .validate()
            .join("\n")
            .contains("engine.placement_weights: the placement is first-fit"));
        let slurm = Config::parse("engine: {procs: 8, placement: topsis}\nbackend: {type: slurm}\n").unwrap();
        assert!(slurm
            .validate()
            .join("\n")
            .contains("in Slurm mode Slurm places the cloud jobs"));
        let clouds = Config::parse(
            "engine: {procs: 8}\nbackend: {type: slurm, partition_cloud: 'cloud, cloud_gold'}\n",
        )
        .unwrap();
        assert_eq!(clouds.validate(), Vec::<String>::new());
        let overlap =
            Config::parse("engine: {procs: 8}\nbackend: {type: slurm, partition_cloud: 'cloud,hpc'}\n")
                .unwrap();
        assert!(overlap
            .validate()
            .join("\n")
            .contains("backend.partition_cloud: \"cloud,hpc\" must name"));
        let bad =
            Config::parse("engine: {procs: 8, placement: best, placement_weights: 'risk=1'}\n").unwrap();
        let problems = bad.validate().join("\n");
        for needle in [
            "engine.placement: unknown placement \"best\": expected first-fit or topsis",
            "engine.placement_weights: unknown placement criterion \"risk\"",
        ] {
            assert!(problems.contains(needle), "missing {needle} in {problems}");
        }
    }

    #[test]
    fn classes_make_a_table_and_bad_ones_name_their_key() {
        let config = Config::parse(
            "engine: {procs: 8}\nclasses:\n  - {name: gold, slo: 1.0}\n  - {name: bronze, slo: 0.5, importance: 1}\n\
             default_class: bronze\n",
        )
        .unwrap();
        assert_eq!(config.validate(), Vec::<String>::new());
        let table = config.class_table().unwrap().unwrap();
        assert_eq!(table.names(), ["gold", "bronze"]);
        assert_eq!(table.default, Some(1));
        assert_eq!(table.classes[0].importance, 2, "first listed, most important");
        assert_eq!(Config::parse(MINIMAL).unwrap().class_table(), Ok(None));
        let bad = Config::parse(
            "engine: {procs: 8}\nclasses:\n  - {name: \"gold star\", slo: 1.0, weight: 2}\n  - {name: b, slo: 1.5}\n\
             default_class: platinum\n",
        )
        .unwrap();
        let problems = bad.validate().join("\n");
        for needle in [
            "classes[0].name: --class must be",
            "classes[0].weight: only a replay draws classes by weight",
            "classes[1].slo: 1.5 is not an availability in (0, 1]",
        ] {
            assert!(problems.contains(needle), "missing {needle} in {problems}");
        }
        let default_only = Config::parse("engine: {procs: 8}\ndefault_class: gold\n").unwrap();
        assert!(default_only
            .validate()
            .join("\n")
            .contains("default_class: there are no classes"));
        let unknown =
            Config::parse("engine: {procs: 8}\nclasses: [{name: gold, slo: 1}]\ndefault_class: lead\n")
                .unwrap();
        assert!(unknown
            .validate()
            .join("\n")
            .contains("default_class: unknown class \"lead\": this daemon's classes are gold"));
        let broker = Config::parse("datacenter: {role: broker}\nclasses: [{name: gold, slo: 1}]\n").unwrap();
        assert!(broker
            .validate()
            .join("\n")
            .contains("classes: a broker runs no jobs"));
    }

    #[test]
    fn bad_thesis_keys_name_their_key_path() {
        let config = Config::parse(
            "engine:\n  procs: 8\n  scheduling: together\n  predictor: oracle\n  latency: -1\n  beta: never\n  \
             maintenance:\n    - {start: -5, duration: 10, procs: 0}\n    - {start: 0, duration: 0, procs: 1}\n    \
             - {start: 0, duration: 10, procs: \"6-9\"}\n    - {start: 0, duration: 10, procs: \"1,,2\"}\n",
        )
        .unwrap();
        let problems = config.validate();
        let expected = [
            "engine.scheduling: unknown scheduling mode \"together\": expected hpc-first or shared-queue",
            "engine.predictor: unknown predictor \"oracle\": expected exact, thesis or learned",
            "engine.latency: -1 must be a number of seconds from 0 to 1e12",
            "engine.beta: \"never\" is not a β",
            "engine.maintenance[0]: start \"-5\" is not a time in seconds",
            "engine.maintenance[1]: duration is 0: give a positive, finite number of seconds",
            "engine.maintenance[2]: processor 9 does not exist: the platform has processors 0-7",
            "engine.maintenance[3]: procs \"1,,2\": an item is empty",
        ];
        assert_eq!(problems.len(), expected.len(), "{problems:#?}");
        for (problem, expected) in problems.iter().zip(expected) {
            assert!(
                problem.starts_with(expected),
                "{problem:?} should start with {expected:?}"
            );
        }
        let err = Config::parse("engine:\n  procs: 8\n  maintenance: [{start: 0, duration: 1, cpus: 0}]\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("cpus") && err.contains("procs"), "{err}");
    }

    #[test]
    fn a_member_names_its_broker_and_itself() {
        let config = Config::parse(
            "api: {socket: /run/m.sock}\nengine: {procs: 8, lambda: 1.5}\nbackend: {type: plugin}\n\
             datacenter: {role: member, broker: /run/b.sock, address: /run/m.sock, features: [gpu]}\n",
        )
        .unwrap();
        assert_eq!(config.validate(), Vec::<String>::new());
        let member = config.member().unwrap();
        assert_eq!(member.publish_every_seconds, 5.0);
        assert_eq!(member.features, ["gpu"]);
        assert!(config.broker().is_none());
        let bad = Config::parse(
            "api: {socket: /run/m.sock}\nengine: {procs: 8}\n\
             datacenter: {role: member, broker: b.sock, address: /run/other.sock, features: [''], \
             publish_every_seconds: 0}\n",
        )
        .unwrap();
        let problems = bad.validate().join("\n");
        for key in [
            "datacenter.broker: \"b.sock\" is neither",
            "datacenter.address: /run/other.sock is not this daemon's api.socket",
            "datacenter.features[0]",
            "datacenter.publish_every_seconds",
        ] {
            assert!(problems.contains(key), "missing {key} in {problems}");
        }
        let err = Config::parse(
            "engine: {procs: 8}\ndatacenter: {role: member, broker: /b, address: /a, age: 3}\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("age"), "{err}");
        let err = Config::parse("engine: {procs: 8}\ndatacenter: {role: boss}\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("member") && err.contains("broker"), "{err}");
    }

    #[test]
    fn a_broker_reads_only_the_engines_admission_rules() {
        let config = Config::parse(
            "datacenter: {role: broker, member_max_age_seconds: 10}\n\
             engine: {admission: admit-all, tau: 2, beta: 5, max_resubmissions: 4}\n",
        )
        .unwrap();
        assert_eq!(config.validate(), Vec::<String>::new());
        assert_eq!(config.broker().unwrap().member_max_age_seconds, 10.0);
        let rules = config.broker_rules().unwrap();
        assert_eq!(rules.admission, Admission::AdmitAll);
        assert_eq!(rules.tau, 2.0);
        assert_eq!(rules.lifecycle.max_resubmissions, 4);
        assert_eq!(rules.thesis.beta, interstice_core::Beta::Wait(Time::from_secs(5)));
        // Without an engine section: the daemon's defaults.
        let bare = Config::parse("datacenter: {role: broker}\n").unwrap();
        assert_eq!(bare.validate(), Vec::<String>::new());
        assert_eq!(bare.broker_rules().unwrap().admission, DEFAULT_ADMISSION);
        let planning = Config::parse(
            "datacenter: {role: broker, timeout_seconds: -1}\nengine: {procs: 4, policy: easy}\nbackend: {type: plugin}\n",
        )
        .unwrap();
        let problems = planning.validate().join("\n");
        for key in [
            "engine.procs: a broker plans no jobs",
            "engine.policy",
            "backend: a broker",
            "datacenter.timeout_seconds",
        ] {
            assert!(problems.contains(key), "missing {key} in {problems}");
        }
        // A member (or a daemon alone) still needs its processors.
        let alone = Config::parse("backend: {type: plugin}\n").unwrap();
        assert!(alone
            .validate()
            .join("\n")
            .contains("engine.procs: must be at least 1"));
    }

    #[test]
    fn unknown_policy_or_admission_is_an_error_naming_its_key() {
        let config = Config::parse("engine: {procs: 8, policy: sjf, admission: maybe}\n").unwrap();
        let err = config.engine_config().unwrap_err();
        assert_eq!(err.problems.len(), 2, "{err}");
        assert!(
            err.problems[0].starts_with("engine.policy: unknown policy \"sjf\""),
            "{err}"
        );
        assert!(
            err.problems[1].starts_with("engine.admission: unknown admission mode \"maybe\""),
            "{err}"
        );
        let problems = config.validate().join("\n");
        assert!(
            problems.contains("engine.policy") && problems.contains("engine.admission"),
            "{problems}"
        );
    }
}
