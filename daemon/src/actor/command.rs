//! What the rest of the daemon may ask the actor ([`Command`]), and how the
//! actor says no ([`ApiError`], which the HTTP layer maps to a status).

use crate::backend::{HpcEvent, HpcUpdate, SinkClosed, UpdateChannel};
use crate::config::{ExecutionConfig, MetricsConfig, NodeConfig};
use interstice_api::wire::{
    HealthResponse, HpcEventResponse, JobList, JobView, PredictRequest, PredictResponse, SlotsResponse,
    SubmitRequest, SubmitResponse,
};
use std::sync::mpsc;
use tokio::sync::oneshot;

/// Who sent a request (from the socket's peer credentials, read at accept
/// time; `None` over TCP, which names nobody).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Owner {
    /// User id; root (0) sees and may cancel anybody's job.
    pub uid: Option<u32>,
    /// Group id.
    pub gid: Option<u32>,
    /// Process id, recorded with the job.
    pub pid: Option<i32>,
}

impl Owner {
    /// May this caller see (and cancel) a job owned by `job_owner`? Root
    /// sees every job, a user their own; a caller without credentials none.
    pub fn sees(&self, job_owner: Option<u32>) -> bool {
        match self.uid {
            Some(0) => true,
            Some(uid) => job_owner == Some(uid),
            None => false,
        }
    }

    /// How a log line or an error names this sender.
    pub(super) fn describe(uid: Option<u32>) -> String {
        uid.map_or("a tcp client".to_string(), |uid| format!("uid {uid}"))
    }
}

/// The class of an API error (maps to an HTTP status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// 400: malformed or invalid request.
    BadRequest,
    /// 403: not the job's owner.
    Forbidden,
    /// 404: no such job.
    NotFound,
    /// 409: the job already ended.
    Conflict,
    /// 422: valid but impossible (more processors than the area).
    Unprocessable,
    /// 429: the caller holds all it may (`quota:`).
    TooMany,
    /// 500: the daemon failed.
    Internal,
    /// 503: shutting down, or no fresh HPC plan to answer from.
    Unavailable,
}

/// A request the actor refused or could not carry out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// Which HTTP status it becomes.
    pub kind: ErrorKind,
    /// What went wrong and what to do about it.
    pub message: String,
}

impl ApiError {
    /// A 400: the request itself is wrong.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorKind::BadRequest, message)
    }

    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> ApiError {
        ApiError {
            kind,
            message: message.into(),
        }
    }

    /// A 500 carrying the underlying failure (a store write, JSON encoding).
    pub(crate) fn internal(message: impl std::fmt::Display) -> ApiError {
        ApiError::new(ErrorKind::Internal, format!("internal error: {message}"))
    }

    /// A 404 that says how to find the job ids there are.
    pub(crate) fn not_found(id: u64) -> ApiError {
        ApiError::new(
            ErrorKind::NotFound,
            format!("no job {id}; list jobs with GET /v1/jobs"),
        )
    }
}

/// Where the actor sends its answer to one request.
pub(super) type Reply<T> = oneshot::Sender<Result<T, ApiError>>;

/// Settings that SIGHUP can change without a restart.
#[derive(Clone, Debug)]
pub struct Reloadable {
    /// Grace period, PATH and limits of job processes not yet started.
    pub execution: ExecutionConfig,
    /// The node gate's thresholds and sampling interval.
    pub node: NodeConfig,
    /// Horizon of the idle processor-seconds gauges.
    pub metrics: MetricsConfig,
    /// `engine.conv_procs`, when the file changed it: the area is resized
    /// to it (`None`: the area stays as it is, resized or not).
    pub area: Option<u32>,
}

/// A request to the actor; those from the HTTP API carry a `reply` channel
/// for the answer.
#[derive(Debug)]
pub enum Command {
    /// `POST /v1/jobs`: admit (or reject) and queue a cloud job.
    Submit {
        /// The job as the client described it.
        request: SubmitRequest,
        /// Its owner, who alone (with root) may cancel it.
        owner: Owner,
        /// The verdict and prediction, sent once the row is in SQLite.
        reply: Reply<SubmitResponse>,
    },
    /// `POST /v1/predict`: what a submission would be answered now.
    Predict {
        /// The hypothetical job.
        request: PredictRequest,
        /// Who asks (an admission hold is taken only for Slurm's own plugin).
        owner: Owner,
        /// The prediction.
        reply: Reply<PredictResponse>,
    },
    /// `GET /v1/slots`: the idle holes of the plan.
    Slots {
        /// The slots at the actor's now.
        reply: Reply<SlotsResponse>,
    },
    /// `GET /v1/jobs`: a page of the jobs SQLite knows that the caller may see.
    Jobs {
        /// Who asks (root sees every job, a user their own).
        owner: Owner,
        /// Which page.
        page: super::job_pages::JobsPage,
        /// The list.
        reply: Reply<JobList>,
    },
    /// `GET /v1/jobs/{id}`.
    Job {
        /// The daemon's job id.
        id: u64,
        /// Who asks (another user's job is 404).
        owner: Owner,
        /// The job's view, or 404.
        reply: Reply<JobView>,
    },
    /// `GET /v1/jobs/{id}/output`.
    JobOutput {
        /// The daemon's job id.
        id: u64,
        /// `stdout` or `stderr`.
        stream: String,
        /// At most this many bytes, from the end.
        tail: u64,
        /// Who asks (another user's job is 404).
        owner: Owner,
        /// The end of the output.
        reply: Reply<interstice_api::wire::JobOutput>,
    },
    /// `DELETE /v1/jobs/{id}`: cancel a queued job, or start stopping a running one.
    Cancel {
        /// The daemon's job id.
        id: u64,
        /// Who asks; must own the job or be root.
        owner: Owner,
        /// The job's view (`cancelling` while the process stops).
        reply: Reply<JobView>,
    },
    /// `POST /v1/hpc/events`: an HPC job event pushed by the batch system.
    HpcEvent {
        /// The event.
        event: HpcEvent,
        /// Who reports it; must speak for the batch system.
        owner: Owner,
        /// The cloud jobs it evicted.
        reply: Reply<HpcEventResponse>,
    },
    /// `GET /v1/area` (`resize: None`) and `POST /v1/area`.
    Area {
        /// The new area's processors, for a resize.
        resize: Option<u32>,
        /// Who asks; a resize must speak for the batch system.
        owner: Owner,
        /// The area now (after the resize).
        reply: Reply<interstice_api::wire::AreaResponse>,
    },
    /// An update from the backend task (no answer).
    Hpc(HpcUpdate),
    /// `GET /healthz`.
    Health {
        /// Status, or 503 with the reason the daemon is not ready.
        reply: Reply<HealthResponse>,
    },
    /// SIGHUP with a valid new config.
    Reload(Box<Reloadable>),
    /// Stop: leave running jobs running (they are adopted at the next start).
    Shutdown,
}

impl Command {
    /// Whether nobody waits for the answer any more: the client went away
    /// (its connection closed or timed out) before the actor reached the
    /// request. Such a submission, prediction or read is not carried out, so
    /// that a client that gave up never gets a job it did not hear of (and
    /// submits again), and dropped requests do not pile up behind a busy
    /// engine. Facts and orders are carried out all the same: an HPC job
    /// reported (its processors are taken whoever listens) and a cancel.
    pub(super) fn abandoned(&self) -> bool {
        match self {
            Command::Submit { reply, .. } => reply.is_closed(),
            Command::Predict { reply, .. } => reply.is_closed(),
            Command::Slots { reply } => reply.is_closed(),
            Command::Jobs { reply, .. } => reply.is_closed(),
            Command::Job { reply, .. } => reply.is_closed(),
            Command::JobOutput { reply, .. } => reply.is_closed(),
            _ => false,
        }
    }
}

/// A backend's [`crate::backend::HpcSink`] delivers into the actor's command
/// channel: each update becomes a [`Command::Hpc`].
impl UpdateChannel for mpsc::Sender<Command> {
    fn deliver(&self, update: HpcUpdate) -> Result<(), SinkClosed> {
        self.send(Command::Hpc(update)).map_err(|_| SinkClosed)
    }
}
