//! The HTTP/JSON wire types of the daemon's API (times are epoch seconds, as
//! JSON numbers; durations are seconds): what `intersticed` serves and what
//! the CLI, the C ABI and the Slurm plugins send and read. The engine's types
//! are converted at the daemon's edge and never serialized directly.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

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
    /// The job's service class: one of the daemon's `classes` (400
    /// otherwise), whose availability SLO it is accounted against; a free
    /// label on a daemon without classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Technical features the job requires (hardware, software): a broker
    /// sends it only to a member that offers them all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
    /// The user (uid) a trusted forwarder submits for: a data center's
    /// broker names the user who submitted to it, and the job runs as that
    /// user and is theirs. Honoured only from root (a broker runs as root);
    /// refused from anyone else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_behalf_of: Option<u32>,
    /// Memory the job may use, in MiB (its cgroup's limit: beyond it the
    /// kernel kills it, and it ends `failed` for `memory`). Absent: the
    /// node's default (`execution.limits.memory_mb_per_proc` per processor);
    /// above the node's `execution.limits.max_memory_mb`: refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// The job's size in bytes (its program and input data), which a
    /// broker's `F^r` moves to the member over the configured bandwidth
    /// (`datacenter.bandwidth_bytes_per_second`). Absent: 0, nothing to move.
    /// A member ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

impl SubmitRequest {
    /// A job running `argv` on `procs` processors for at most `walltime`
    /// seconds, with an SLO of `slo` seconds; no environment, working
    /// directory, class or features of its own.
    pub fn new(argv: &[&str], procs: u32, walltime: f64, slo: f64) -> SubmitRequest {
        SubmitRequest {
            procs,
            walltime,
            slo,
            argv: argv.iter().map(|arg| arg.to_string()).collect(),
            env: None,
            workdir: None,
            class: None,
            features: Vec::new(),
            on_behalf_of: None,
            memory_mb: None,
            bytes: None,
        }
    }
}

/// The `decision` of an admission answer ([`SubmitResponse`],
/// [`PredictResponse`]): `accepted` or `rejected`.
pub fn decision_name(rejected: bool) -> &'static str {
    if rejected {
        "rejected"
    } else {
        "accepted"
    }
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
    /// The probability of a violation (see [`PredictResponse::violation_probability`]).
    #[serde(default)]
    pub violation_probability: Option<f64>,
    /// The member daemon the job went to, when a broker answers (its address,
    /// `datacenter.address` of that member); absent from a member's own answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// Why a rejected job was refused (absent from an older daemon, and
    /// from an accepted job's answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<RefusalView>,
}

/// Why the engine refused a cloud job (`interstice_core::Refusal`), for
/// people and for a plugin that turns it into its own flags.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RefusalView {
    /// `predicted` (the admission mode), `not-candidate` (the candidate
    /// rules), `regulated` (the submission-rate regulator).
    pub reason: String,
    /// The whole reason, for people.
    pub message: String,
    /// `not-candidate`: the nearest request the rules accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearest: Option<NearestRequest>,
}

/// The nearest request a non-candidate could make instead.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct NearestRequest {
    /// Processors.
    pub procs: u32,
    /// Walltime, seconds.
    pub walltime: f64,
    /// SLO, seconds (`None`: the job gave none).
    pub slo: Option<f64>,
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
    /// Technical features the job requires (see [`SubmitRequest::features`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
    /// The job's service class (see [`SubmitRequest::class`]): a daemon with
    /// classes refuses a name it does not have (400), as it refuses it at
    /// submission; `job_submit/interstice` sends `sbatch --class` here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The job's size in bytes (see [`SubmitRequest::bytes`]). Absent: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
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
    /// The engine's verdict: the job would end after its deadline (or never
    /// start). The daemon always sends it; `None` only from a daemon older
    /// than the field. `job_submit/interstice` writes it into the job's marker.
    #[serde(default)]
    pub predicts_violation: Option<bool>,
    /// The probability of a violation: calibrated on earlier outcomes by the
    /// learned predictor, 0 or 1 (its verdict) from the others. `None` from
    /// a daemon older than the field.
    #[serde(default)]
    pub violation_probability: Option<f64>,
    /// Every predictor's verdict for this job (an admission the daemon
    /// planned); `job_submit/interstice` writes it into the marker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdicts: Option<PredictorVerdicts>,
    /// An SLO the plan can meet, seconds.
    pub counter_offer_slo: Option<f64>,
    /// The admission hold the daemon keeps for an admitted job (Slurm mode,
    /// `admission: true`): its promised slot stays held in the daemon's plan,
    /// so that concurrent submissions see it, until Slurm lists the job with
    /// a plan (matched by the `hold=` word `job_submit/interstice` writes into
    /// the job's marker) or the hold expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold: Option<u64>,
    /// Why the job would be refused (see [`SubmitResponse::refusal`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<RefusalView>,
}

/// Every predictor's verdict for one cloud job: a violation predicted or
/// not, by the exact plan, the thesis's `F^σ` and the learned predictor.
/// Written `ETL`, a digit (0 or 1) each, in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PredictorVerdicts {
    /// The exact plan.
    pub exact: bool,
    /// The thesis's `F^σ`.
    pub thesis: bool,
    /// The learned predictor.
    pub learned: bool,
}

impl PredictorVerdicts {
    /// The predictors' names, in the order of [`PredictorVerdicts::each`].
    pub const NAMES: [&'static str; 3] = ["exact", "thesis", "learned"];

    /// The verdicts in the order of [`PredictorVerdicts::NAMES`].
    pub fn each(self) -> [bool; 3] {
        [self.exact, self.thesis, self.learned]
    }
}

impl fmt::Display for PredictorVerdicts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for verdict in self.each() {
            f.write_str(if verdict { "1" } else { "0" })?;
        }
        Ok(())
    }
}

impl FromStr for PredictorVerdicts {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let digit = |c: u8| match c {
            b'0' => Ok(false),
            b'1' => Ok(true),
            _ => Err(format!(
                "verdicts {text:?}: expected three digits 0 or 1 (exact, thesis, learned)"
            )),
        };
        match text.as_bytes() {
            &[e, t, l] => Ok(PredictorVerdicts {
                exact: digit(e)?,
                thesis: digit(t)?,
                learned: digit(l)?,
            }),
            _ => Err(format!(
                "verdicts {text:?}: expected three digits 0 or 1 (exact, thesis, learned)"
            )),
        }
    }
}

/// What happened to an HPC job: the `type` of [`HpcEventRequest`].
///
/// Its wire names are written once, in [`EventKind::as_str`]; serde,
/// [`FromStr`], [`fmt::Display`] and the message for an unknown name
/// ([`UnknownEventKind`]) read them from there, over [`EventKind::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

impl SubmitResponse {
    /// Was the job accepted (see [`decision_name`])?
    pub fn accepted(&self) -> bool {
        self.decision == decision_name(false)
    }
}

impl PredictResponse {
    /// Would the job be accepted (see [`decision_name`])?
    pub fn accepted(&self) -> bool {
        self.decision == decision_name(false)
    }
}

impl EventKind {
    /// Every kind, in the order they happen to a job.
    pub const ALL: [EventKind; 4] = [
        EventKind::Submitted,
        EventKind::Started,
        EventKind::Ended,
        EventKind::Killed,
    ];

    /// How the wire spells it (also the `type` label of `interstice_hpc_events_total`).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Submitted => "submitted",
            EventKind::Started => "started",
            EventKind::Ended => "ended",
            EventKind::Killed => "killed",
        }
    }
}

/// A `type` that names no [`EventKind`]; the message lists the valid names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("type: {found:?} is not one of {}", valid_event_kinds())]
pub struct UnknownEventKind {
    /// What was sent.
    pub found: String,
}

/// `submitted, started, ended, killed`.
fn valid_event_kinds() -> String {
    EventKind::ALL.map(EventKind::as_str).join(", ")
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EventKind {
    type Err = UnknownEventKind;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        EventKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
            .ok_or_else(|| UnknownEventKind {
                found: text.to_string(),
            })
    }
}

impl Serialize for EventKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// `POST /v1/hpc/events`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HpcEventRequest {
    /// What happened; an unknown name is refused with the valid ones ([`UnknownEventKind`]).
    #[serde(rename = "type")]
    pub kind: EventKind,
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

/// `POST /v1/area`: resize the convergence area (root or the batch system).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AreaRequest {
    /// The area from now on: processors `0..procs` (0 closes it; at most `engine.procs`).
    pub procs: u32,
}

/// `GET /v1/area`, and the answer to `POST /v1/area`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct AreaResponse {
    /// The area now: processors `0..procs`.
    pub procs: u32,
    /// The area the daemon started with (`engine.conv_procs`).
    pub configured: u32,
    /// The platform's processors (`engine.procs`).
    pub platform: u32,
    /// A resize: the area before it (absent from `GET`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u32>,
    /// A resize: cloud jobs evicted because their processors left the area
    /// (re-queued if their resubmissions allow).
    #[serde(default)]
    pub evicted: Vec<u64>,
    /// Queued cloud jobs wider than the area now: they wait until it grows.
    #[serde(default)]
    pub waiting: Vec<u64>,
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
    /// `queued`, `running`, `completed`, `failed`, `timeout`, `evicted`, `cancelled`, `lost`, `rejected`,
    /// `migrated` (evicted and handed to the data center's broker, which placed it elsewhere).
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
    /// Whether it missed its SLO (`submitted_at + slo`), as the daemon's
    /// metrics count it: null until it ends, and for jobs cancelled, lost,
    /// rejected or never started.
    pub slo_violated: Option<bool>,
    /// Why it ended as it did (`memory: …` for a job the kernel killed at
    /// its memory limit); null while it has not.
    #[serde(default)]
    pub end_reason: Option<String>,
    /// The node CPUs its last run was confined to (`0-1,4`); null before it started.
    #[serde(default)]
    pub cpus: Option<String>,
    /// The platform processors the engine placed it on, while the engine
    /// counts it running (`40-43`, a Batsim interval set; `GET
    /// /v1/jobs/{id}` only): inside the convergence area. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processors: Option<String>,
    /// The memory limit of its last run, bytes; null: not limited (or not started).
    #[serde(default)]
    pub memory_limit_bytes: Option<u64>,
    /// The process limit of its last run (`pids.max`); null: not limited (or not started).
    #[serde(default)]
    pub pids_limit: Option<u64>,
}

/// `GET /v1/jobs/{id}/output?stream=stdout|stderr&tail=BYTES`: the end of a
/// job's output file (its owner's or root's), at most `tail` bytes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobOutput {
    /// The job.
    pub id: u64,
    /// `stdout` or `stderr`.
    pub stream: String,
    /// The file's size in bytes.
    pub size: u64,
    /// Where `text` starts in the file.
    pub offset: u64,
    /// Bytes `offset..size`, as UTF-8 (invalid sequences replaced).
    pub text: String,
}

/// `GET /v1/jobs?limit=N&cursor=C`: one page of the caller's jobs. The first
/// page (no `cursor`) holds the newest; each next one, asked with the
/// previous page's `next_cursor`, the ones just older. A page holds at most
/// `limit` jobs and a bounded number of bytes, so it may hold fewer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobList {
    /// Jobs, by id (oldest first within the page).
    pub jobs: Vec<JobView>,
    /// The `cursor` of the page of older jobs; null on the last page. Opaque:
    /// pass it back unchanged. (Absent from a daemon older than paging,
    /// which answered every job on one page.)
    #[serde(default)]
    pub next_cursor: Option<String>,
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
    /// How cloud jobs' processes are contained (`cgroup v2 (...)`, or
    /// `process group only (no cgroup)`: `setsid` escapes it); absent from
    /// a broker, which runs no jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containment: Option<String>,
    /// Which limits confine cloud jobs on this node; absent from a broker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confinement: Option<Confinement>,
}

/// The limits a node enforces on its cloud jobs (`/healthz`); each false
/// one is also a warning in the daemon's log at start.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Confinement {
    /// Jobs are confined to their CPUs by a cpuset (v2 or v1).
    pub cpuset: bool,
    /// Jobs start with their CPUs' affinity (a job can widen it unless `cpuset`).
    pub affinity: bool,
    /// Jobs' memory is limited (`memory.max` / `memory.limit_in_bytes`).
    pub memory: bool,
    /// Jobs' processes are limited (`pids.max`).
    pub pids: bool,
    /// Jobs' CPU time is capped (`cpu.max` / `cpu.cfs_quota_us`): only when
    /// `execution.limits.cpu_quota` asks for it.
    pub cpu: bool,
    /// How a job is killed: `v2`, `v1-freezer` or `process-group`.
    pub kill: String,
}

/// `POST /v1/datacenter/tuples`: a member's entry in its broker's global
/// database (the thesis's `E_e = {A_e, W_immediate, W_future}` with its metadata).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TupleRequest {
    /// `A_e`: how the broker reaches the member (a socket path or `http://ADDR:PORT`).
    pub address: String,
    /// The widest job it takes: its convergence area's processors.
    pub procs: u32,
    /// Technical features it offers.
    #[serde(default)]
    pub features: Vec<String>,
    /// Its overbooking ratio λ.
    pub overbooking: f64,
    /// Its idle slots, as `GET /v1/slots` serves them; `now` is when it published.
    pub slots: SlotsResponse,
}

/// Answer to `POST /v1/datacenter/tuples`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TupleResponse {
    /// Always true on 200.
    pub ok: bool,
}

/// One member as its broker sees it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MemberView {
    /// Its address.
    pub address: String,
    /// Processors of its convergence area.
    pub procs: u32,
    /// Features it offers.
    pub features: Vec<String>,
    /// Overbooking ratio λ.
    pub overbooking: f64,
    /// When it published its tuple (its own clock), epoch seconds.
    pub published: f64,
    /// Seconds since the broker received that tuple.
    pub age_seconds: f64,
    /// Idle processors now, per the tuple.
    pub idle_now: u32,
    /// The smoothed round-trip time of the broker's forwards to it, seconds
    /// (absent until one was answered): the link latency the broker's `F^r`
    /// uses for it instead of `engine.latency`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_seconds: Option<f64>,
    /// `F^r` for a job of 0 bytes, seconds: what the broker adds before a
    /// job sent there can start.
    #[serde(default)]
    pub latency_seconds: f64,
}

/// `GET /v1/datacenter/members`: the members whose tuple is fresh enough to decide on.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MemberList {
    /// Members by address.
    pub members: Vec<MemberView>,
}

/// `POST /v1/datacenter/evicted`: a member hands a cloud job it evicted to
/// its broker (Algorithm 2), instead of re-queueing it itself.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EvictedRequest {
    /// The evicting member's address.
    pub member: String,
    /// The job's id on that member.
    pub job_id: u64,
    /// The job as it was submitted there (its `slo` counts from `arrival`).
    pub job: SubmitRequest,
    /// When it arrived on that member, epoch seconds.
    pub arrival: f64,
    /// Resubmissions it had so far on that member.
    pub resubmissions: u32,
}

/// Every error answer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ErrorBody {
    /// What went wrong and what to do.
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_kinds_read_back_what_they_write() {
        for kind in EventKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            assert_eq!(serde_json::from_str::<EventKind>(&json).unwrap(), kind);
            assert_eq!(kind.to_string().parse::<EventKind>(), Ok(kind));
        }
        assert_eq!(EventKind::Started.to_string(), "started");
    }

    #[test]
    fn unknown_event_kind_names_the_field_and_the_valid_kinds() {
        assert_eq!(
            "exploded".parse::<EventKind>().unwrap_err().to_string(),
            "type: \"exploded\" is not one of submitted, started, ended, killed"
        );
        let error =
            serde_json::from_str::<HpcEventRequest>(r#"{"type":"Started","id":"1","procs":1,"walltime":5}"#)
                .unwrap_err()
                .to_string();
        assert!(
            error.starts_with("type: \"Started\" is not one of submitted, started, ended, killed"),
            "{error}"
        );
    }
}
