//! The `backend:` section: the embedded replay, the plugin backend, the Slurm
//! backend's settings (its own eviction policy is checked in `eviction`).

use serde::Deserialize;
use std::path::PathBuf;

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

/// `backend: {type: slurm, ...}`. Owned by the Slurm backend (`backend/slurm/`);
/// new fields need a default and a check in
/// [`Config::validate`](crate::config::Config::validate).
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
