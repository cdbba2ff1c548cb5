//! The engine actor: one OS thread owns the [`Engine`], the SQLite store and
//! the job processes. Everything else talks to it through [`Command`]s on a
//! channel, so the engine needs no locks and every change is written to
//! SQLite in the order it happened.
//!
//! The loop wakes for each command and at least every [`TICK`]: it reaps
//! exited jobs, enforces walltimes and kill deadlines, ends simulated HPC jobs,
//! retries held starts, samples the node, calls `Engine::schedule(now)` when
//! something changed (or `next_wakeup` is due) and carries out the decisions.

use crate::backend::{HpcEvent, HpcEventKind, HpcJobSnapshot, HpcUpdate};
use crate::config::{Config, ExecutionConfig, MetricsConfig, NodeConfig};
use crate::exec::{self, Executor, Launch};
use crate::metrics::Metrics;
use crate::node::{self, NodeMonitor};
use crate::store::{NewJob, Store, StoredJob};
use interstice_api::wire::{
    FutureSlotView, HealthResponse, HpcEventResponse, ImmediateSlotView, JobList, JobView, PredictRequest,
    PredictResponse, SlotsResponse, SubmitRequest, SubmitResponse,
};
use interstice_core::{
    Decision, EndReason, Engine, EngineError, Job, JobId, JobKind, JobState, Prediction, ProcSet, Time,
};
use nix::sys::signal::Signal;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::process::Child;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Longest sleep of the actor loop.
pub const TICK: Duration = Duration::from_millis(100);

/// Engine ids of HPC jobs start here; cloud jobs use their daemon id below it.
const HPC_ID_BASE: u64 = 1 << 62;

/// Who sent a request (from the socket's peer credentials; `None` over TCP).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Owner {
    /// User id.
    pub uid: Option<u32>,
    /// Process id.
    pub pid: Option<i32>,
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
    /// 500: the daemon failed.
    Internal,
    /// 503: shutting down.
    Unavailable,
}

/// An error answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// Class.
    pub kind: ErrorKind,
    /// What went wrong and what to do about it.
    pub message: String,
}

impl ApiError {
    /// A 400.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            kind: ErrorKind::BadRequest,
            message: message.into(),
        }
    }
    fn new(kind: ErrorKind, message: impl Into<String>) -> ApiError {
        ApiError {
            kind,
            message: message.into(),
        }
    }
    fn internal(message: impl std::fmt::Display) -> ApiError {
        ApiError::new(ErrorKind::Internal, format!("internal error: {message}"))
    }
}

type Reply<T> = oneshot::Sender<Result<T, ApiError>>;

/// Settings that SIGHUP can change without a restart.
#[derive(Clone, Debug)]
pub struct Reloadable {
    /// Execution (grace, PATH, limits).
    pub execution: ExecutionConfig,
    /// Node checks.
    pub node: NodeConfig,
    /// Metrics horizon.
    pub metrics: MetricsConfig,
}

/// A request to the actor.
#[derive(Debug)]
pub enum Command {
    /// `POST /v1/jobs`.
    Submit {
        /// Body.
        request: SubmitRequest,
        /// Sender.
        owner: Owner,
        /// Answer.
        reply: Reply<SubmitResponse>,
    },
    /// `POST /v1/predict`.
    Predict {
        /// Body.
        request: PredictRequest,
        /// Answer.
        reply: Reply<PredictResponse>,
    },
    /// `GET /v1/slots`.
    Slots {
        /// Answer.
        reply: Reply<SlotsResponse>,
    },
    /// `GET /v1/jobs`.
    Jobs {
        /// Answer.
        reply: Reply<JobList>,
    },
    /// `GET /v1/jobs/{id}`.
    Job {
        /// Id.
        id: u64,
        /// Answer.
        reply: Reply<JobView>,
    },
    /// `DELETE /v1/jobs/{id}`.
    Cancel {
        /// Id.
        id: u64,
        /// Sender.
        owner: Owner,
        /// Answer.
        reply: Reply<JobView>,
    },
    /// `POST /v1/hpc/events`.
    HpcEvent {
        /// The event.
        event: HpcEvent,
        /// Answer.
        reply: Reply<HpcEventResponse>,
    },
    /// An update from the backend task.
    Hpc(HpcUpdate),
    /// `GET /healthz`.
    Health {
        /// Answer.
        reply: Reply<HealthResponse>,
    },
    /// SIGHUP with a valid new config.
    Reload(Box<Reloadable>),
    /// Stop: leave running jobs running (they are adopted at the next start).
    Shutdown,
}

/// The wall clock as an engine [`Time`] (epoch microseconds).
pub fn wall_clock() -> Time {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Time::from_ticks(since_epoch.as_micros() as i64)
}

fn secs(time: Time) -> f64 {
    time.as_secs_f64()
}

fn finite_secs(time: Option<Time>) -> Option<f64> {
    time.filter(|t| !t.is_infinite()).map(secs)
}

/// Why a running job is being killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KillReason {
    Evict,
    Walltime,
    Cancel,
}

#[derive(Debug)]
struct Kill {
    reason: KillReason,
    sigkill_at: Time,
    sigkill_sent: bool,
}

#[derive(Debug)]
enum Phase {
    Queued,
    /// The engine started it but the node is too busy: the process waits.
    Held,
    Running {
        pid: u32,
        child: Option<Child>,
        start_ticks: Option<u64>,
        started_at: Time,
        kill: Option<Kill>,
    },
}

#[derive(Debug)]
struct CloudJob {
    owner_uid: Option<u32>,
    procs: u32,
    walltime: Time,
    slo: Time,
    submitted_at: Time,
    argv: Vec<String>,
    env: BTreeMap<String, String>,
    workdir: Option<String>,
    predicts_violation: bool,
    engine_procs: Option<ProcSet>,
    phase: Phase,
}

#[derive(Debug)]
struct HpcJob {
    engine_id: JobId,
    runtime: Option<Time>,
}

/// Everything the actor needs to start.
#[derive(Debug)]
pub struct ActorSetup {
    /// The validated config.
    pub config: Config,
    /// The opened store.
    pub store: Store,
    /// The metrics (shared with the HTTP layer for `/metrics`).
    pub metrics: Metrics,
    /// The process launcher.
    pub executor: Executor,
}

/// The actor's state.
pub struct Actor {
    engine: Engine,
    store: Store,
    metrics: Metrics,
    executor: Executor,
    monitor: NodeMonitor,
    reloadable: Reloadable,
    backend_name: &'static str,
    jobs: HashMap<u64, CloudJob>,
    hpc: HashMap<String, HpcJob>,
    hpc_names: HashMap<JobId, String>,
    hpc_sim_ends: BinaryHeap<Reverse<(Time, JobId)>>,
    next_hpc_id: u64,
    next_job_id: u64,
    last_now: Time,
    last_plan_update: Option<Time>,
    /// See [`BackendConfig::plan_stale_after`](crate::config::BackendConfig::plan_stale_after).
    plan_stale_after: Option<Time>,
    last_sample: Option<Instant>,
    last_gauges: Option<Instant>,
    last_schedule: Instant,
    dirty: bool,
    stopping: bool,
}

impl std::fmt::Debug for Actor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Actor")
            .field("jobs", &self.jobs.len())
            .field("hpc", &self.hpc.len())
            .finish()
    }
}

impl Actor {
    /// Build the engine and recover the jobs SQLite says were queued or running.
    pub fn start(setup: ActorSetup) -> Result<Actor, String> {
        let engine_config = setup.config.engine_config();
        let engine = Engine::new(engine_config).map_err(|err| err.to_string())?;
        let next_job_id = setup.store.max_job_id().map_err(|err| err.to_string())? + 1;
        let mut actor = Actor {
            engine,
            store: setup.store,
            metrics: setup.metrics,
            executor: setup.executor,
            monitor: NodeMonitor::new(),
            reloadable: Reloadable {
                execution: setup.config.execution.clone(),
                node: setup.config.node.clone(),
                metrics: setup.config.metrics.clone(),
            },
            backend_name: crate::backend::name(&setup.config.backend),
            jobs: HashMap::new(),
            hpc: HashMap::new(),
            hpc_names: HashMap::new(),
            hpc_sim_ends: BinaryHeap::new(),
            next_hpc_id: HPC_ID_BASE,
            next_job_id,
            last_now: Time::ZERO,
            last_plan_update: None,
            plan_stale_after: setup.config.backend.plan_stale_after().map(Time::from_secs_f64),
            last_sample: None,
            last_gauges: None,
            last_schedule: Instant::now(),
            dirty: true,
            stopping: false,
        };
        actor
            .recover()
            .map_err(|err| format!("recovering jobs from the state database: {err}"))?;
        Ok(actor)
    }

    /// Serve commands until [`Command::Shutdown`] or until every sender is gone.
    pub fn run(mut self, commands: mpsc::Receiver<Command>) {
        let mut last_tick = Instant::now();
        loop {
            let wait = TICK.saturating_sub(last_tick.elapsed());
            match commands.recv_timeout(wait) {
                Ok(Command::Shutdown) => break,
                Ok(command) => self.handle(command),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if last_tick.elapsed() >= TICK {
                self.tick();
                last_tick = Instant::now();
            }
        }
        self.stopping = true;
        tracing::info!(
            running = self.count_running(),
            "engine actor stopped; running jobs keep running"
        );
    }

    fn now(&mut self) -> Time {
        let now = wall_clock().max(self.last_now);
        self.last_now = now;
        now
    }

    /// Clamp an outside event time into `[last_now, wall clock]`.
    fn event_time(&mut self, time: Time) -> Time {
        let wall = wall_clock().max(self.last_now);
        let time = time.clamp(self.last_now, wall);
        self.last_now = time;
        time
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Submit {
                request,
                owner,
                reply,
            } => {
                let started = Instant::now();
                let answer = self.submit(request, owner);
                self.metrics
                    .admission_duration
                    .observe(started.elapsed().as_secs_f64());
                let _ = reply.send(answer);
            }
            Command::Predict { request, reply } => {
                let started = Instant::now();
                let answer = self.predict(request);
                self.metrics
                    .admission_duration
                    .observe(started.elapsed().as_secs_f64());
                let _ = reply.send(answer);
            }
            Command::Slots { reply } => {
                let _ = reply.send(Ok(self.slots()));
            }
            Command::Jobs { reply } => {
                let answer = self
                    .store
                    .jobs(false, 100_000)
                    .map(|jobs| JobList {
                        jobs: jobs.into_iter().map(|job| job.view).collect(),
                    })
                    .map_err(ApiError::internal);
                let _ = reply.send(answer);
            }
            Command::Job { id, reply } => {
                let answer = match self.store.job(id) {
                    Ok(Some(job)) => Ok(job.view),
                    Ok(None) => Err(not_found(id)),
                    Err(err) => Err(ApiError::internal(err)),
                };
                let _ = reply.send(answer);
            }
            Command::Cancel { id, owner, reply } => {
                let answer = self.cancel(id, owner);
                let _ = reply.send(answer);
            }
            Command::HpcEvent { event, reply } => {
                let now = self.now();
                let _ = self.store.event(
                    secs(now),
                    None,
                    "hpc_event",
                    &format!(
                        "{:?} {} procs={} walltime={}",
                        event.kind, event.id, event.procs, event.walltime
                    ),
                );
                let answer = self.hpc_event(event);
                let _ = reply.send(answer.map(|evicted| HpcEventResponse { ok: true, evicted }));
            }
            Command::Hpc(HpcUpdate::Event(event)) => {
                if let Err(err) = self.hpc_event(event) {
                    tracing::warn!("backend event ignored: {}", err.message);
                }
            }
            Command::Hpc(HpcUpdate::Snapshot { time, jobs }) => self.hpc_snapshot(time, jobs),
            Command::Health { reply } => {
                let now = self.now();
                if let Err(err) = self.ready(now) {
                    let _ = reply.send(Err(err));
                    return;
                }
                let _ = reply.send(Ok(HealthResponse {
                    status: "ok".to_string(),
                    backend: self.backend_name.to_string(),
                    now: secs(now),
                    running: self.count_running() as u64,
                    queued: self.count_queued() as u64,
                    plan_age_seconds: self.last_plan_update.map(|at| secs(now - at)),
                    version: env!("CARGO_PKG_VERSION").to_string(),
                }));
            }
            Command::Reload(reloadable) => {
                self.executor.reload(reloadable.execution.clone());
                self.reloadable = *reloadable;
                tracing::info!("reloaded execution, node and metrics settings");
            }
            Command::Shutdown => self.stopping = true,
        }
    }

    /// Can the daemon answer from a plan at `now`? Not before the backend's
    /// first successful plan read, nor when the last one is older than
    /// `plan_stale_after`: a prediction from no plan or an old one would be
    /// a guess presented as a promise (503; the plugins' fail mode decides).
    fn ready(&self, now: Time) -> Result<(), ApiError> {
        let Some(stale_after) = self.plan_stale_after else {
            return Ok(());
        };
        match self.last_plan_update {
            None => Err(ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "no plan yet: the {} backend has not read the HPC plan (is the batch system up?)",
                    self.backend_name
                ),
            )),
            Some(at) if now - at > stale_after => Err(ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "the HPC plan is stale: last read {:.0} s ago, more than backend.plan_stale_seconds ({:.0} s); \
                     is the batch system up?",
                    secs(now - at),
                    secs(stale_after)
                ),
            )),
            Some(_) => Ok(()),
        }
    }

    // ----- admission -------------------------------------------------------------------------

    fn check_shape(&self, procs: u32, walltime: f64, slo: f64) -> Result<(Time, Time), ApiError> {
        if procs == 0 {
            return Err(ApiError::bad_request("procs: must be at least 1"));
        }
        let area = self.engine.config().conv_procs;
        if procs > area {
            return Err(ApiError::new(
                ErrorKind::Unprocessable,
                format!("procs: {procs} is more than the convergence area's {area} processors; ask for at most {area}"),
            ));
        }
        let walltime = positive_seconds("walltime", walltime)?;
        let slo = positive_seconds("slo", slo)?;
        Ok((walltime, slo))
    }

    fn submit(&mut self, request: SubmitRequest, owner: Owner) -> Result<SubmitResponse, ApiError> {
        if self.stopping {
            return Err(ApiError::new(
                ErrorKind::Unavailable,
                "the daemon is shutting down; retry later",
            ));
        }
        let now = self.now();
        self.ready(now)?;
        let (walltime, slo) = self.check_shape(request.procs, request.walltime, request.slo)?;
        let env = request.env.clone().unwrap_or_default();
        check_argv(
            &request.argv,
            env.get("PATH")
                .map(String::as_str)
                .unwrap_or(&self.reloadable.execution.path),
        )?;
        check_env(&env)?;
        if let Some(dir) = &request.workdir {
            if !std::path::Path::new(dir).is_absolute() || !std::path::Path::new(dir).is_dir() {
                return Err(ApiError::bad_request(format!(
                    "workdir: {dir:?} is not an existing absolute directory"
                )));
            }
        }
        let now = self.now();
        let id = self.next_job_id;
        self.next_job_id += 1;
        let job = Job {
            id: JobId(id),
            submit: now,
            walltime,
            walltime_enforced: true,
            runtime: None,
            procs: request.procs,
            kind: JobKind::Cloud,
            slo: Some(slo),
        };
        let verdict = self.engine.submit(job).map_err(engine_error)?;
        let decisions = self.engine.schedule(now);
        let rejected = verdict.is_rejected();
        let prediction = verdict
            .into_prediction()
            .unwrap_or_else(|| self.engine.predict(request.procs, walltime, Some(slo), now));
        let decision = if rejected { "rejected" } else { "accepted" };
        let counter_offer = if rejected {
            prediction.counter_offer_slo
        } else {
            None
        };
        let argv_json = serde_json::to_string(&request.argv).map_err(ApiError::internal)?;
        let env_json = request
            .env
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(ApiError::internal)?;
        let row = NewJob {
            id,
            owner_uid: owner.uid,
            owner_pid: owner.pid,
            procs: request.procs,
            walltime: request.walltime,
            slo: request.slo,
            argv_json: &argv_json,
            env_json: env_json.as_deref(),
            workdir: request.workdir.as_deref(),
            class: request.class.as_deref(),
            submitted_at: secs(now),
            decision,
            predicted_start: finite_secs(prediction.start),
            predicted_completion: finite_secs(prediction.completion),
            violation_seconds: prediction.violation_seconds,
            predicts_violation: prediction.predicts_violation,
            counter_offer_slo: counter_offer.map(secs),
            state: if rejected { "rejected" } else { "queued" },
        };
        // Durable before the answer: if the row cannot be written, the job is withdrawn.
        if let Err(err) = self.store.insert_job(&row) {
            if !rejected {
                let _ = self.engine.cancel(JobId(id), now);
            }
            self.dirty = true;
            self.apply(decisions, now, Some(id));
            return Err(ApiError::internal(format!("cannot record the job: {err}")));
        }
        if rejected {
            self.metrics.admissions.with_label_values(&["rejected"]).inc();
            if counter_offer.is_some() {
                self.metrics.counter_offers.inc();
            }
        } else {
            self.metrics.admissions.with_label_values(&["admitted"]).inc();
            self.jobs.insert(
                id,
                CloudJob {
                    owner_uid: owner.uid,
                    procs: request.procs,
                    walltime,
                    slo,
                    submitted_at: now,
                    argv: request.argv,
                    env,
                    workdir: request.workdir,
                    predicts_violation: prediction.predicts_violation,
                    engine_procs: None,
                    phase: Phase::Queued,
                },
            );
        }
        self.apply(decisions, now, Some(id));
        Ok(SubmitResponse {
            id,
            decision: decision.to_string(),
            predicted_start: if rejected {
                None
            } else {
                finite_secs(prediction.start)
            },
            predicted_completion: if rejected {
                None
            } else {
                finite_secs(prediction.completion)
            },
            violation_seconds: prediction.violation_seconds,
            counter_offer_slo: counter_offer.map(secs),
        })
    }

    fn predict(&mut self, request: PredictRequest) -> Result<PredictResponse, ApiError> {
        let (walltime, slo) = self.check_shape(request.procs, request.walltime, request.slo)?;
        let now = self.now();
        self.ready(now)?;
        let prediction = self.engine.predict(request.procs, walltime, Some(slo), now);
        let rejected = self.engine.config().admission.rejects(&prediction);
        let answer = prediction_answer(&prediction, rejected);
        if request.admission {
            let decision = if rejected { "rejected" } else { "admitted" };
            self.metrics.admissions.with_label_values(&[decision]).inc();
            if rejected && answer.counter_offer_slo.is_some() {
                self.metrics.counter_offers.inc();
            }
            self.store
                .admission(
                    secs(now),
                    request.procs,
                    request.walltime,
                    request.slo,
                    &answer.decision,
                    answer.predicted_start,
                    answer.predicted_completion,
                    answer.counter_offer_slo,
                )
                .map_err(ApiError::internal)?;
        }
        Ok(answer)
    }

    fn slots(&mut self) -> SlotsResponse {
        let now = self.now();
        let slots = self.engine.slots(now);
        SlotsResponse {
            now: secs(now),
            immediate: slots
                .immediate
                .iter()
                .map(|slot| ImmediateSlotView {
                    proc: slot.proc,
                    idle_until: finite_secs(Some(slot.idle_until)),
                })
                .collect(),
            future: slots
                .future
                .iter()
                .map(|slot| FutureSlotView {
                    start: secs(slot.start),
                    end: finite_secs(Some(slot.end)),
                    procs: slot.procs.to_string(),
                })
                .collect(),
        }
    }

    // ----- cancel ---------------------------------------------------------------------------------

    fn cancel(&mut self, id: u64, owner: Owner) -> Result<JobView, ApiError> {
        let now = self.now();
        let grace = Time::from_secs_f64(self.executor.grace_seconds());
        let Some(job) = self.jobs.get_mut(&id) else {
            return match self.store.job(id) {
                Ok(Some(stored)) => Err(ApiError::new(
                    ErrorKind::Conflict,
                    format!(
                        "job {id} already ended ({}); nothing to cancel",
                        stored.view.state
                    ),
                )),
                Ok(None) => Err(not_found(id)),
                Err(err) => Err(ApiError::internal(err)),
            };
        };
        let allowed = owner.uid == Some(0) || owner.uid == job.owner_uid;
        if !allowed {
            return Err(ApiError::new(
                ErrorKind::Forbidden,
                format!(
                    "job {id} belongs to {}; only its owner or root may cancel it",
                    job.owner_uid
                        .map_or("a tcp client".to_string(), |uid| format!("uid {uid}"))
                ),
            ));
        }
        let who = owner
            .uid
            .map_or("a tcp client".to_string(), |uid| format!("uid {uid}"));
        let why = format!("cancelled by {who}");
        match &mut job.phase {
            Phase::Queued => {
                let _ = self.engine.cancel(JobId(id), now);
                self.finish(id, now, "cancelled", None, false, &why);
            }
            Phase::Held => {
                let _ = self.engine.job_ended(JobId(id), now, EndReason::Killed);
                self.finish(id, now, "cancelled", None, false, &why);
            }
            Phase::Running { pid, kill, .. } => {
                if kill.is_none() {
                    exec::signal_group(*pid, Signal::SIGTERM);
                    *kill = Some(Kill {
                        reason: KillReason::Cancel,
                        sigkill_at: now + grace,
                        sigkill_sent: false,
                    });
                }
                let _ = self.store.event(secs(now), Some(id), "cancelling", &why);
            }
        }
        self.dirty = true;
        let mut view = self
            .store
            .job(id)
            .map_err(ApiError::internal)?
            .ok_or_else(|| not_found(id))?
            .view;
        if view.state == "running" {
            view.state = "cancelling".to_string();
        }
        Ok(view)
    }

    // ----- HPC side ---------------------------------------------------------------------------------

    fn submit_hpc(
        &mut self,
        name: &str,
        procs: u32,
        walltime: Time,
        runtime: Option<Time>,
        now: Time,
    ) -> Result<JobId, ApiError> {
        if let Some(known) = self.hpc.get(name) {
            return Ok(known.engine_id);
        }
        let engine_id = JobId(self.next_hpc_id);
        let job = Job {
            id: engine_id,
            submit: now,
            walltime,
            walltime_enforced: true,
            runtime,
            procs,
            kind: JobKind::Hpc,
            slo: None,
        };
        self.engine.submit(job).map_err(engine_error)?;
        self.next_hpc_id += 1;
        self.hpc.insert(name.to_string(), HpcJob { engine_id, runtime });
        self.hpc_names.insert(engine_id, name.to_string());
        self.dirty = true;
        Ok(engine_id)
    }

    fn forget_hpc(&mut self, name: &str, now: Time, reason: EndReason) {
        let Some(job) = self.hpc.remove(name) else { return };
        self.hpc_names.remove(&job.engine_id);
        match self.engine.job_state(job.engine_id) {
            Some(JobState::Running { .. }) => {
                let _ = self.engine.job_ended(job.engine_id, now, reason);
            }
            Some(JobState::Queued { .. }) => {
                let _ = self.engine.cancel(job.engine_id, now);
            }
            _ => {}
        }
        self.dirty = true;
    }

    /// Apply one HPC event; returns the cloud jobs it evicted.
    fn hpc_event(&mut self, event: HpcEvent) -> Result<Vec<u64>, ApiError> {
        if event.procs == 0 {
            return Err(ApiError::bad_request("procs: must be at least 1"));
        }
        let kind = match event.kind {
            HpcEventKind::Submitted => "submitted",
            HpcEventKind::Started => "started",
            HpcEventKind::Ended => "ended",
            HpcEventKind::Killed => "killed",
        };
        self.metrics.hpc_events.with_label_values(&[kind]).inc();
        let now = self.event_time(event.time);
        self.plan_updated(now);
        let mut evicted = Vec::new();
        match event.kind {
            HpcEventKind::Submitted => {
                self.submit_hpc(&event.id, event.procs, event.walltime, event.runtime, now)?;
            }
            HpcEventKind::Started => {
                self.submit_hpc(&event.id, event.procs, event.walltime, event.runtime, now)?;
                if let Some(cpus) = &event.cpus {
                    evicted.extend(self.evict_holding(cpus, now));
                }
            }
            HpcEventKind::Ended => self.forget_hpc(&event.id, now, EndReason::Completed),
            HpcEventKind::Killed => self.forget_hpc(&event.id, now, EndReason::Killed),
        }
        evicted.extend(self.schedule_now(now));
        Ok(evicted)
    }

    /// Evict every cloud job holding one of `cpus` (an HPC job takes them now).
    fn evict_holding(&mut self, cpus: &ProcSet, now: Time) -> Vec<u64> {
        let holding: Vec<u64> = self
            .jobs
            .iter()
            .filter(|(_, job)| !matches!(job.phase, Phase::Queued))
            .filter(|(_, job)| {
                job.engine_procs
                    .as_ref()
                    .is_some_and(|procs| procs.intersects(cpus))
            })
            .map(|(id, _)| *id)
            .collect();
        holding.into_iter().filter(|id| self.evict(*id, now)).collect()
    }

    fn hpc_snapshot(&mut self, time: Time, jobs: Vec<HpcJobSnapshot>) {
        let now = self.event_time(time);
        self.plan_updated(now);
        let present: std::collections::HashSet<&str> = jobs.iter().map(|job| job.id.as_str()).collect();
        let gone: Vec<String> = self
            .hpc
            .keys()
            .filter(|name| !present.contains(name.as_str()))
            .cloned()
            .collect();
        for name in gone {
            self.forget_hpc(&name, now, EndReason::Completed);
        }
        for job in &jobs {
            if let Err(err) = self.submit_hpc(&job.id, job.procs, job.walltime, None, now) {
                tracing::warn!("snapshot job {} ignored: {}", job.id, err.message);
                continue;
            }
            if let (Some(_), Some(cpus)) = (job.start, &job.cpus) {
                self.evict_holding(cpus, now);
            }
        }
        self.schedule_now(now);
    }

    // ----- decisions ------------------------------------------------------------------------------

    /// Schedule at `now` and carry out the decisions; returns evicted cloud jobs.
    fn schedule_now(&mut self, now: Time) -> Vec<u64> {
        let decisions = self.engine.schedule(now);
        self.last_schedule = Instant::now();
        self.dirty = false;
        self.apply(decisions, now, None)
    }

    fn apply(&mut self, decisions: Vec<Decision>, now: Time, answered: Option<u64>) -> Vec<u64> {
        let mut evicted = Vec::new();
        for decision in decisions {
            match decision {
                Decision::Evict { id } => {
                    if self.evict(id.0, now) {
                        evicted.push(id.0);
                    }
                }
                Decision::Start { id, procs } => {
                    if let Some(name) = self.hpc_names.get(&id) {
                        if let Some(runtime) = self.hpc.get(name).and_then(|job| job.runtime) {
                            self.hpc_sim_ends.push(Reverse((now + runtime, id)));
                        }
                    } else if self.jobs.contains_key(&id.0) {
                        self.start_cloud(id.0, procs, now);
                    }
                }
                Decision::Reject {
                    id,
                    counter_offer_slo,
                } => {
                    if Some(id.0) != answered && self.jobs.contains_key(&id.0) {
                        let detail = format!(
                            "rejected on resubmission (counter-offer {})",
                            counter_offer_slo.map_or("none".to_string(), |slo| slo.to_string())
                        );
                        self.finish(id.0, now, "failed", None, false, &detail);
                    }
                }
            }
        }
        evicted
    }

    fn planned_local_cpus(&self) -> f64 {
        self.jobs
            .values()
            .filter(|job| matches!(job.phase, Phase::Running { .. }))
            .map(|job| job.procs as f64)
            .sum()
    }

    fn start_cloud(&mut self, id: u64, procs: ProcSet, now: Time) {
        let hold = self.monitor.last().and_then(|sample| {
            let job = &self.jobs[&id];
            node::hold_reason(
                &sample,
                &self.reloadable.node,
                self.planned_local_cpus(),
                job.procs,
            )
        });
        let job = self.jobs.get_mut(&id).expect("caller checked");
        job.engine_procs = Some(procs);
        if let Some(reason) = hold {
            if !matches!(job.phase, Phase::Held) {
                self.metrics.starts_deferred.inc();
                let _ = self.store.event(secs(now), Some(id), "held", &reason);
                tracing::info!(job = id, "start held: {reason}");
            }
            job.phase = Phase::Held;
            return;
        }
        let launch = Launch {
            id,
            argv: &job.argv,
            env: &job.env,
            workdir: job.workdir.as_deref(),
        };
        match self.executor.spawn(&launch) {
            Ok(child) => {
                let pid = child.id();
                let start_ticks = exec::process_start_ticks(pid);
                job.phase = Phase::Running {
                    pid,
                    child: Some(child),
                    start_ticks,
                    started_at: now,
                    kill: None,
                };
                if let Err(err) = self.store.job_started(id, secs(now), pid, start_ticks) {
                    tracing::error!(job = id, "cannot record start: {err}");
                }
                tracing::info!(job = id, pid, "started");
            }
            Err(err) => {
                tracing::warn!("{err}");
                let _ = self.engine.job_ended(JobId(id), now, EndReason::Killed);
                self.finish(id, now, "failed", None, false, &err.to_string());
            }
        }
    }

    /// Start evicting a job; false if it is not running or already being evicted.
    fn evict(&mut self, id: u64, now: Time) -> bool {
        let grace = Time::from_secs_f64(self.executor.grace_seconds());
        let Some(job) = self.jobs.get_mut(&id) else {
            return false;
        };
        match &mut job.phase {
            Phase::Queued => return false,
            Phase::Held => {
                self.metrics.evictions.inc();
                let _ = self.engine.job_ended(JobId(id), now, EndReason::Evicted);
                self.after_eviction(id, now, "evicted before it started (node was busy)");
            }
            Phase::Running {
                pid,
                kill,
                started_at,
                ..
            } => {
                if kill.as_ref().is_some_and(|kill| kill.reason == KillReason::Evict) {
                    return false;
                }
                exec::signal_group(*pid, Signal::SIGTERM);
                *kill = Some(Kill {
                    reason: KillReason::Evict,
                    sigkill_at: now + grace,
                    sigkill_sent: false,
                });
                self.metrics.evictions.inc();
                self.metrics
                    .lost_work_processor_seconds
                    .inc_by(job.procs as f64 * secs(now - *started_at));
                let _ = self
                    .store
                    .event(secs(now), Some(id), "evicting", "HPC work needs its processors");
                tracing::info!(job = id, "evicting");
            }
        }
        self.dirty = true;
        true
    }

    /// The engine was told about an eviction: requeued or failed, per its lifecycle.
    fn after_eviction(&mut self, id: u64, now: Time, why: &str) {
        match self.engine.job_state(JobId(id)) {
            Some(JobState::Queued { .. }) => {
                if let Some(job) = self.jobs.get_mut(&id) {
                    job.phase = Phase::Queued;
                    job.engine_procs = None;
                }
                if let Err(err) = self.store.job_requeued(id, secs(now), true, why) {
                    tracing::error!(job = id, "cannot record requeue: {err}");
                }
            }
            _ => {
                self.outcome(id, now, true);
                self.finish(
                    id,
                    now,
                    "evicted",
                    None,
                    true,
                    &format!("{why}; no resubmission left"),
                );
            }
        }
        self.dirty = true;
    }

    /// Count SLO violation and prediction outcome for a job that is done.
    fn outcome(&mut self, id: u64, now: Time, never_completed: bool) {
        let Some(job) = self.jobs.get(&id) else { return };
        let violated = never_completed || now > job.submitted_at + job.slo;
        if violated {
            self.metrics.slo_violations.inc();
        }
        self.metrics.prediction_outcome(job.predicts_violation, violated);
    }

    /// Final state: write it and forget the job.
    fn finish(&mut self, id: u64, now: Time, state: &str, exit_code: Option<i32>, evicted: bool, why: &str) {
        if let Err(err) = self
            .store
            .job_ended(id, secs(now), state, exit_code, evicted, why)
        {
            tracing::error!(job = id, "cannot record end: {err}");
        }
        self.jobs.remove(&id);
        self.dirty = true;
    }

    // ----- the tick -------------------------------------------------------------------------------

    fn tick(&mut self) {
        let now = self.now();
        self.sample_node();
        self.reap(now);
        self.enforce(now);
        while let Some(Reverse((end, id))) = self.hpc_sim_ends.peek().copied() {
            if end > now {
                break;
            }
            self.hpc_sim_ends.pop();
            if let Some(name) = self.hpc_names.get(&id).cloned() {
                self.forget_hpc(&name, end.max(self.last_now).min(now), EndReason::Completed);
            }
        }
        let held: Vec<(u64, ProcSet)> = self
            .jobs
            .iter()
            .filter(|(_, job)| matches!(job.phase, Phase::Held))
            .filter_map(|(id, job)| job.engine_procs.clone().map(|procs| (*id, procs)))
            .collect();
        for (id, procs) in held {
            self.start_cloud(id, procs, now);
        }
        let wakeup_due = self.engine.next_wakeup().is_some_and(|wakeup| wakeup <= now);
        if self.dirty || wakeup_due || self.last_schedule.elapsed() >= Duration::from_secs(1) {
            self.schedule_now(now);
        }
        self.update_gauges(now);
    }

    fn sample_node(&mut self) {
        let interval = Duration::from_secs_f64(self.reloadable.node.sample_interval_seconds);
        if self.last_sample.is_some_and(|at| at.elapsed() < interval) {
            return;
        }
        self.last_sample = Some(Instant::now());
        let sample = self.monitor.sample();
        self.metrics.node_cpu_usage_ratio.set(sample.cpu_usage);
        self.metrics.node_cpus.set(sample.cpus as i64);
        self.metrics.node_memory_used_bytes.set(sample.memory_used as i64);
        self.metrics
            .node_memory_total_bytes
            .set(sample.memory_total as i64);
    }

    /// Collect exited processes and turn them into engine events.
    fn reap(&mut self, now: Time) {
        let mut exited = Vec::new();
        for (id, job) in self.jobs.iter_mut() {
            if let Phase::Running {
                pid,
                child,
                start_ticks,
                kill,
                ..
            } = &mut job.phase
            {
                let status = match child {
                    Some(child) => match child.try_wait() {
                        Ok(Some(status)) => Some(status.code()),
                        Ok(None) => None,
                        Err(_) => Some(None),
                    },
                    None => match start_ticks {
                        Some(ticks) if exec::same_process_alive(*pid, *ticks) => None,
                        _ => Some(None),
                    },
                };
                if let Some(code) = status {
                    // The leader is gone: clear out whatever is left of its group.
                    exec::signal_group(*pid, Signal::SIGKILL);
                    exited.push((*id, code, kill.as_ref().map(|kill| kill.reason), child.is_none()));
                }
            }
        }
        for (id, code, reason, adopted) in exited {
            self.process_exited(id, now, code, reason, adopted);
        }
    }

    fn process_exited(
        &mut self,
        id: u64,
        now: Time,
        code: Option<i32>,
        reason: Option<KillReason>,
        adopted: bool,
    ) {
        let engine_reason = match reason {
            Some(KillReason::Evict) => EndReason::Evicted,
            Some(KillReason::Walltime) => EndReason::WalltimeReached,
            Some(KillReason::Cancel) => EndReason::Killed,
            None => EndReason::Completed,
        };
        if let Err(err) = self.engine.job_ended(JobId(id), now, engine_reason) {
            tracing::warn!(job = id, "engine: {err}");
        }
        match reason {
            Some(KillReason::Evict) => self.after_eviction(id, now, "evicted for HPC work"),
            Some(KillReason::Cancel) => {
                self.finish(id, now, "cancelled", code, false, "cancelled by its owner")
            }
            Some(KillReason::Walltime) => {
                self.outcome(id, now, false);
                self.finish(id, now, "timeout", code, false, "killed at its walltime");
            }
            None => {
                self.outcome(id, now, false);
                let (state, why) = match code {
                    Some(0) => ("completed", "exited with status 0".to_string()),
                    Some(code) => ("failed", format!("exited with status {code}")),
                    None if adopted => match self.executor.ended_while_away(id) {
                        Some(end) => {
                            let (state, why) = recorded_outcome(&end);
                            self.finish(id, now, state, end.code, false, &why);
                            return;
                        }
                        None => (
                            "failed",
                            "adopted process gone without a recorded status".to_string(),
                        ),
                    },
                    None => ("failed", "killed by a signal".to_string()),
                };
                self.finish(id, now, state, code, false, &why);
            }
        }
    }

    /// Walltimes and SIGKILL deadlines.
    fn enforce(&mut self, now: Time) {
        let grace = Time::from_secs_f64(self.executor.grace_seconds());
        for (id, job) in self.jobs.iter_mut() {
            if let Phase::Running {
                pid,
                started_at,
                kill,
                ..
            } = &mut job.phase
            {
                match kill {
                    None if now >= *started_at + job.walltime => {
                        exec::signal_group(*pid, Signal::SIGTERM);
                        *kill = Some(Kill {
                            reason: KillReason::Walltime,
                            sigkill_at: now + grace,
                            sigkill_sent: false,
                        });
                        tracing::info!(job = id, "walltime reached");
                    }
                    Some(kill) if !kill.sigkill_sent && now >= kill.sigkill_at => {
                        exec::signal_group(*pid, Signal::SIGKILL);
                        kill.sigkill_sent = true;
                    }
                    _ => {}
                }
            }
        }
    }

    /// The backend has just given the plan: the daemon is ready, and the
    /// plan-age gauge gets its first sample at once (not at the next tick).
    fn plan_updated(&mut self, now: Time) {
        self.last_plan_update = Some(now);
        self.metrics.set_plan_age(Some(0.0));
    }

    fn update_gauges(&mut self, now: Time) {
        self.metrics.cloud_jobs_running.set(self.count_running() as i64);
        self.metrics.cloud_jobs_queued.set(self.count_queued() as i64);
        self.metrics
            .set_plan_age(self.last_plan_update.map(|at| secs(now - at)));
        if self
            .last_gauges
            .is_some_and(|at| at.elapsed() < Duration::from_secs(1))
        {
            return;
        }
        self.last_gauges = Some(Instant::now());
        let horizon = now + Time::from_secs_f64(self.reloadable.metrics.future_window_seconds);
        let slots = self.engine.slots(now);
        let immediate: f64 = slots
            .immediate
            .iter()
            .map(|slot| secs(slot.idle_until.min(horizon) - now))
            .sum();
        let future: f64 = slots
            .future
            .iter()
            .filter(|slot| slot.start > now && slot.start < horizon)
            .map(|slot| slot.procs.len() as f64 * secs(slot.end.min(horizon) - slot.start))
            .sum();
        self.metrics
            .idle_processor_seconds
            .with_label_values(&["immediate"])
            .set(immediate.max(0.0));
        self.metrics
            .idle_processor_seconds
            .with_label_values(&["future"])
            .set(future.max(0.0));
    }

    /// Jobs whose process runs. A job the node gate holds back is not one
    /// of them: its process has not started, and `jobs` says "queued".
    fn count_running(&self) -> usize {
        self.jobs
            .values()
            .filter(|job| matches!(job.phase, Phase::Running { .. }))
            .count()
    }

    /// Jobs waiting for their process to start (queued in the plan, or held
    /// back by the node gate).
    fn count_queued(&self) -> usize {
        self.jobs
            .values()
            .filter(|job| matches!(job.phase, Phase::Queued | Phase::Held))
            .count()
    }

    // ----- recovery -------------------------------------------------------------------------------

    /// Find the jobs that were queued or running when the daemon last stopped:
    /// live processes (same pid and start time) are adopted, gone ones are lost
    /// and resubmitted within the lifecycle limits, queued ones are queued again.
    fn recover(&mut self) -> Result<(), String> {
        let stored = self.store.jobs(true, u32::MAX).map_err(|err| err.to_string())?;
        if stored.is_empty() {
            return Ok(());
        }
        let now = self.now();
        let lifecycle = self.engine.config().lifecycle;
        let mut adopted: HashMap<u64, (u32, u64, Time)> = HashMap::new();
        // Adopted jobs first, so they get their processors back before anything queued.
        let mut ordered: Vec<StoredJob> = stored;
        ordered.sort_by_key(|job| (job.view.state != "running", job.view.id));
        for stored in ordered {
            let view = &stored.view;
            let id = view.id;
            let submitted_at = Time::from_secs_f64(view.submitted_at);
            let started_at = view.started_at.map(Time::from_secs_f64);
            let mut walltime = positive_seconds("walltime", view.walltime).unwrap_or(Time::from_secs(1));
            let alive = match (view.state.as_str(), view.pid, stored.pid_start_ticks) {
                ("running", Some(pid), Some(ticks)) if exec::same_process_alive(pid, ticks) => {
                    Some((pid, ticks))
                }
                _ => None,
            };
            if view.state == "running" {
                if let Some((pid, ticks)) = alive {
                    let start = started_at.unwrap_or(now);
                    walltime = (start + walltime - now).max(Time::from_secs(1));
                    adopted.insert(id, (pid, ticks, start));
                } else if let Some(end) = self.executor.ended_while_away(id) {
                    // It ended while the daemon was down: its real outcome,
                    // never a second run.
                    let (state, why) = recorded_outcome(&end);
                    tracing::info!(job = id, state, "ended while the daemon was down: {why}");
                    let _ = self.store.job_ended(
                        id,
                        end.ended_at,
                        state,
                        end.code,
                        false,
                        &format!("{why} while the daemon was down"),
                    );
                    continue;
                } else {
                    self.metrics.lost_runs.inc();
                    if let Some(start) = started_at {
                        self.metrics
                            .lost_work_processor_seconds
                            .inc_by(view.procs as f64 * secs(now - start));
                    }
                    let in_time = lifecycle
                        .max_time_in_system
                        .map_or(true, |max| now - submitted_at <= max);
                    if stored.resubmissions >= lifecycle.max_resubmissions || !in_time {
                        let _ = self.store.job_ended(
                            id,
                            secs(now),
                            "lost",
                            None,
                            false,
                            "process gone after a daemon restart; no resubmission left",
                        );
                        continue;
                    }
                    let _ =
                        self.store
                            .job_requeued(id, secs(now), false, "process gone after a daemon restart");
                }
            }
            let env: BTreeMap<String, String> = stored
                .env_json
                .as_deref()
                .and_then(|json| serde_json::from_str(json).ok())
                .unwrap_or_default();
            // No SLO in the engine: an accepted job must not be rejected on recovery.
            let job = Job {
                id: JobId(id),
                submit: now,
                walltime,
                walltime_enforced: true,
                runtime: None,
                procs: view.procs,
                kind: JobKind::Cloud,
                slo: None,
            };
            if let Err(err) = self.engine.submit(job) {
                let _ = self.store.job_ended(
                    id,
                    secs(now),
                    "failed",
                    None,
                    false,
                    &format!("cannot be planned after restart: {err}"),
                );
                continue;
            }
            self.jobs.insert(
                id,
                CloudJob {
                    owner_uid: view.owner_uid,
                    procs: view.procs,
                    walltime: positive_seconds("walltime", view.walltime).unwrap_or(Time::from_secs(1)),
                    slo: positive_seconds("slo", view.slo).unwrap_or(Time::from_secs(1)),
                    submitted_at,
                    argv: view.argv.clone(),
                    env,
                    workdir: stored.workdir.clone(),
                    predicts_violation: stored.predicts_violation,
                    engine_procs: None,
                    phase: Phase::Queued,
                },
            );
        }
        let decisions = self.engine.schedule(now);
        let mut rest = Vec::new();
        for decision in decisions {
            match decision {
                Decision::Start { id, procs } if adopted.contains_key(&id.0) => {
                    let (pid, ticks, started_at) = adopted.remove(&id.0).expect("checked");
                    if let Some(job) = self.jobs.get_mut(&id.0) {
                        job.engine_procs = Some(procs);
                        job.phase = Phase::Running {
                            pid,
                            child: None,
                            start_ticks: Some(ticks),
                            started_at,
                            kill: None,
                        };
                    }
                    let _ = self.store.event(
                        secs(now),
                        Some(id.0),
                        "adopted",
                        &format!("pid {pid} still running"),
                    );
                    tracing::info!(job = id.0, pid, "adopted running job");
                }
                other => rest.push(other),
            }
        }
        // Adopted processes the plan has no room for any more: stop them, run them again later.
        for (id, (pid, _, _)) in adopted {
            exec::signal_group(pid, Signal::SIGKILL);
            let _ = self.store.job_requeued(
                id,
                secs(now),
                false,
                "no room in the plan after restart; restarted later",
            );
        }
        self.apply(rest, now, None);
        self.last_schedule = Instant::now();
        Ok(())
    }
}

fn positive_seconds(key: &str, value: f64) -> Result<Time, ApiError> {
    if !value.is_finite() || value <= 0.0 {
        return Err(ApiError::bad_request(format!(
            "{key}: {value} must be a positive number of seconds"
        )));
    }
    if value > 1e9 {
        return Err(ApiError::bad_request(format!(
            "{key}: {value} seconds is more than 31 years; use a smaller value"
        )));
    }
    Ok(Time::from_secs_f64(value))
}

fn check_argv(argv: &[String], path: &str) -> Result<(), ApiError> {
    let Some(program) = argv.first() else {
        return Err(ApiError::bad_request(
            "argv: must name a program, e.g. [\"/bin/sleep\", \"5\"]",
        ));
    };
    if argv.iter().any(|arg| arg.contains('\0')) {
        return Err(ApiError::bad_request(
            "argv: arguments must not contain NUL bytes",
        ));
    }
    let executable = |candidate: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        candidate
            .metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    let found = if program.contains('/') {
        executable(std::path::Path::new(program))
    } else {
        path.split(':')
            .any(|dir| executable(&std::path::Path::new(dir).join(program)))
    };
    if found {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "argv[0]: {program:?} is not an executable file{}",
            if program.contains('/') {
                String::new()
            } else {
                format!(" in PATH {path:?}")
            }
        )))
    }
}

fn check_env(env: &BTreeMap<String, String>) -> Result<(), ApiError> {
    for (name, value) in env {
        if name.is_empty() || name.contains('=') || name.contains('\0') || value.contains('\0') {
            return Err(ApiError::bad_request(format!(
                "env: {name:?} is not a valid variable name (no '=', no NUL, not empty)"
            )));
        }
    }
    Ok(())
}

fn not_found(id: u64) -> ApiError {
    ApiError::new(
        ErrorKind::NotFound,
        format!("no job {id}; list jobs with GET /v1/jobs"),
    )
}

fn engine_error(err: EngineError) -> ApiError {
    match err {
        EngineError::Unschedulable { .. } => ApiError::new(ErrorKind::Unprocessable, err.to_string()),
        other => ApiError::internal(other),
    }
}

fn prediction_answer(prediction: &Prediction, rejected: bool) -> PredictResponse {
    PredictResponse {
        decision: if rejected { "rejected" } else { "accepted" }.to_string(),
        predicted_start: finite_secs(prediction.start),
        predicted_completion: finite_secs(prediction.completion),
        violation_seconds: prediction.violation_seconds,
        counter_offer_slo: finite_secs(prediction.counter_offer_slo),
    }
}

/// The state and reason of a job from its wrapper's record.
fn recorded_outcome(end: &exec::RecordedEnd) -> (&'static str, String) {
    match (end.code, end.signal) {
        (Some(0), _) => ("completed", "exited with status 0".to_string()),
        (Some(code), _) => ("failed", format!("exited with status {code}")),
        (None, Some(signal)) => ("failed", format!("killed by signal {signal}")),
        (None, None) => ("failed", "ended without a status".to_string()),
    }
}
