//! The HTTP/JSON wire types of the daemon's API (times are epoch seconds, as
//! JSON numbers; durations are seconds): what `intersticed` serves and what
//! the CLI, the C ABI and the Slurm plugins send and read. The engine's types
//! are converted at the daemon's edge and never serialized directly.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `POST /v1/jobs`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SubmitRequest {
    /// Processors (≥ 1).
    pub procs: u32,
    /// Walltime in seconds: the job is killed when it is reached.
    pub walltime: f64,
    /// Maximum response time in seconds, from submission to completion.
    pub slo: f64,
    /// Program and arguments (no shell).
    pub argv: Vec<String>,
    /// Environment of the job (nothing is inherited but `PATH`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Working directory (default: the job's directory in the state dir).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workdir: Option<String>,
    /// Free-form class label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
}

/// Answer to `POST /v1/jobs`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SubmitResponse {
    /// The job's id (also for a rejected job, which is recorded).
    pub id: u64,
    /// `accepted` or `rejected`.
    pub decision: String,
    /// Predicted start (accepted).
    pub predicted_start: Option<f64>,
    /// Predicted completion (accepted).
    pub predicted_completion: Option<f64>,
    /// Predicted completion minus deadline, seconds (negative = slack).
    pub violation_seconds: Option<f64>,
    /// An SLO the plan can meet (rejected), seconds.
    pub counter_offer_slo: Option<f64>,
}

/// `POST /v1/predict`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PredictRequest {
    /// Processors.
    pub procs: u32,
    /// Walltime, seconds.
    pub walltime: f64,
    /// SLO, seconds.
    pub slo: f64,
    /// Count it as an admission decision (metrics and SQLite); used by Slurm's job_submit plugin.
    #[serde(default)]
    pub admission: bool,
}

/// Answer to `POST /v1/predict`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PredictResponse {
    /// `accepted` or `rejected`.
    pub decision: String,
    /// Predicted start.
    pub predicted_start: Option<f64>,
    /// Predicted completion.
    pub predicted_completion: Option<f64>,
    /// Predicted completion minus deadline, seconds.
    pub violation_seconds: Option<f64>,
    /// An SLO the plan can meet, seconds.
    pub counter_offer_slo: Option<f64>,
}

/// What happened to an HPC job: the `type` of [`HpcEventRequest`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The job entered the queue.
    Submitted,
    /// The job started on processors.
    Started,
    /// The job ended.
    Ended,
    /// The job was killed or cancelled.
    Killed,
}

impl EventKind {
    /// How the wire spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Submitted => "submitted",
            EventKind::Started => "started",
            EventKind::Ended => "ended",
            EventKind::Killed => "killed",
        }
    }
}

/// `POST /v1/hpc/events`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HpcEventRequest {
    /// `submitted`, `started`, `ended` or `killed` ([`EventKind::as_str`]); kept
    /// as text so that the daemon names the accepted values when it is not one.
    #[serde(rename = "type")]
    pub kind: String,
    /// The batch system's job id.
    pub id: String,
    /// Processors.
    pub procs: u32,
    /// Walltime, seconds.
    pub walltime: f64,
    /// When, epoch seconds (default: now).
    #[serde(default)]
    pub time: Option<f64>,
    /// Local processors taken (interval set, `"0-3"`).
    #[serde(default)]
    pub cpus: Option<String>,
}

/// Answer to `POST /v1/hpc/events`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HpcEventResponse {
    /// Always true on 200.
    pub ok: bool,
    /// Cloud jobs evicted because of this event.
    pub evicted: Vec<u64>,
}

/// One idle processor now.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ImmediateSlotView {
    /// The processor.
    pub proc: u32,
    /// Idle until (null = nothing planned on it).
    pub idle_until: Option<f64>,
}

/// One future hole.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FutureSlotView {
    /// Start.
    pub start: f64,
    /// End (null = open).
    pub end: Option<f64>,
    /// Processors, interval set.
    pub procs: String,
}

/// `GET /v1/slots`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SlotsResponse {
    /// The daemon's now.
    pub now: f64,
    /// `W_immediate`.
    pub immediate: Vec<ImmediateSlotView>,
    /// `W_future`.
    pub future: Vec<FutureSlotView>,
}

/// A cloud job as `GET /v1/jobs` shows it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobView {
    /// Id.
    pub id: u64,
    /// `queued`, `running`, `completed`, `failed`, `timeout`, `evicted`, `cancelled`, `lost`, `rejected`.
    pub state: String,
    /// `accepted` or `rejected`.
    pub decision: String,
    /// Uid of the submitting client (null over TCP).
    pub owner_uid: Option<u32>,
    /// Processors.
    pub procs: u32,
    /// Walltime, seconds.
    pub walltime: f64,
    /// SLO, seconds.
    pub slo: f64,
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Class label.
    pub class: Option<String>,
    /// Submission time.
    pub submitted_at: f64,
    /// Predicted start.
    pub predicted_start: Option<f64>,
    /// Predicted completion.
    pub predicted_completion: Option<f64>,
    /// Counter-offer (rejected).
    pub counter_offer_slo: Option<f64>,
    /// Last start.
    pub started_at: Option<f64>,
    /// End.
    pub ended_at: Option<f64>,
    /// Exit code when it exited by itself.
    pub exit_code: Option<i32>,
    /// Process id while running.
    pub pid: Option<u32>,
    /// Times evicted.
    pub evictions: u32,
    /// Completion after `submitted_at + slo` (null until it ends).
    pub slo_violated: Option<bool>,
}

/// `GET /v1/jobs`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobList {
    /// Jobs, by id.
    pub jobs: Vec<JobView>,
}

/// `GET /healthz`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HealthResponse {
    /// `ok`.
    pub status: String,
    /// Backend type.
    pub backend: String,
    /// The daemon's now.
    pub now: f64,
    /// Running cloud jobs.
    pub running: u64,
    /// Queued cloud jobs.
    pub queued: u64,
    /// Seconds since the backend last updated the plan (null = never).
    pub plan_age_seconds: Option<f64>,
    /// Daemon version.
    pub version: String,
}

/// Every error answer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ErrorBody {
    /// What went wrong and what to do.
    pub error: String,
}
