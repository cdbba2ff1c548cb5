//! HPC backends: where the daemon's picture of the HPC plan comes from.
//!
//! # Interface (for backend authors)
//!
//! A backend is an async task that tells the daemon what the batch system is
//! doing. It never touches the engine: it sends [`HpcUpdate`]s through an
//! [`HpcSink`] and the engine actor (`crate::actor`) applies them at its next
//! tick, then calls `Engine::schedule(now)` and carries out the decisions.
//!
//! Each backend module exposes one function with this shape:
//!
//! ```text
//! pub async fn run(config: XxxConfig, sink: HpcSink, shutdown: Shutdown) -> Result<(), BackendError>
//! ```
//!
//! (a backend that exports metrics also takes the daemon's [`Metrics`] before `shutdown`,
//! as [`slurm::run`] does).
//!
//! * `config` is the backend's section of the YAML config (`backend: {type: xxx, ...}`);
//!   the structs live in `crate::config` (`EmbeddedConfig`, `SlurmConfig`); a backend's
//!   new options go in its struct, with their checks in `Config::validate`.
//! * `sink.send(update)` hands an update to the daemon; it fails only when the daemon
//!   is shutting down (return `Ok(())` then).
//! * `shutdown.wait().await` resolves when the daemon stops; `shutdown.is_stopping()`
//!   polls it. Return promptly after it fires.
//! * Metrics: what a backend learns about cloud job outcomes goes into the daemon-wide
//!   counters of [`Metrics`] (`evictions`, `slo_violations`, `prediction_outcome`, …) so
//!   that every mode reports them under one name; series only that backend has are
//!   registered in [`Metrics::registry`] under `interstice_<backend>_`. Never use
//!   Prometheus' default registry: `/metrics` renders the daemon's registry only.
//! * Returning `Err` is logged and makes the daemon exit non-zero (fatal backend
//!   error, e.g. `squeue` not found); transient errors should be logged and retried.
//!
//! Two kinds of update exist:
//!
//! * [`HpcUpdate::Event`]: one job event ([`HpcEvent`]: submitted / started / ended /
//!   killed, with the batch system's job id string, processors, walltime and time).
//!   The embedded backend and the `POST /v1/hpc/events` endpoint (plugin backend,
//!   SPANK prolog) produce these. An event with `runtime: Some(_)` on `Submitted`
//!   asks the daemon to *simulate* the job: it ends by itself `runtime` after the
//!   engine starts it (embedded replay only).
//! * [`HpcUpdate::Plan`]: the batch system's own plan ([`PlanUpdate`]): every
//!   job where and when it runs or plans it, in the engine's processors. The
//!   daemon makes it the engine's HPC layer (`Engine::mirror`), releases the
//!   admission holds whose jobs it now lists, and from then on plans no HPC
//!   job of its own (events are counted only). The Slurm backend sends one
//!   per `bf_interval`.
//!
//! The backends: `embedded` (SWF replay, [`embedded`]), `plugin` (events come in over
//! HTTP only; its task just waits for shutdown) and `slurm` ([`slurm`]).

pub mod embedded;
pub mod slurm;

use crate::config::BackendConfig;
use crate::metrics::Metrics;
use interstice_api::wire::EventKind;
use interstice_core::{MirroredPlan, ProcSet, Time};
use std::sync::Arc;
use tokio::sync::watch;

/// One HPC job event.
#[derive(Clone, Debug, PartialEq)]
pub struct HpcEvent {
    /// What happened (`Started` takes `cpus` of this node, when given).
    pub kind: EventKind,
    /// The batch system's job id.
    pub id: String,
    /// Processors the job uses.
    pub procs: u32,
    /// Requested walltime.
    pub walltime: Time,
    /// When it happened (wall clock, epoch-based [`Time`]).
    pub time: Time,
    /// Simulated run time (embedded replay only): the daemon ends the job by itself
    /// this long after the engine starts it.
    pub runtime: Option<Time>,
    /// Local processors the job takes on this node, if known.
    pub cpus: Option<ProcSet>,
}

/// The batch system's own plan at `time` (the Slurm backend, every read).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanUpdate {
    /// When it was read.
    pub time: Time,
    /// Every job where and when the batch system runs or plans it, blocked
    /// processors, and the pending jobs it gave no plan.
    pub plan: MirroredPlan,
    /// The admission hold each of `plan.unplanned` carries, if any (in
    /// order), with the job's processors: while the daemon still holds it
    /// (for that many processors), the hold stands for the job.
    pub unplanned_holds: Vec<Option<(u64, u32)>>,
    /// Admission holds whose job the batch system now runs or plans, with
    /// the job's processors: the daemon releases those it holds for that
    /// many processors.
    pub settled_holds: Vec<(u64, u32)>,
}

/// What a backend sends to the daemon.
#[derive(Clone, Debug, PartialEq)]
pub enum HpcUpdate {
    /// One event.
    Event(HpcEvent),
    /// The batch system's plan: it replaces the engine's HPC planning.
    Plan(PlanUpdate),
}

/// Errors of a backend task.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The backend cannot run at all (bad trace, missing tool, not built).
    #[error("{0}")]
    Fatal(String),
}

/// Where an [`HpcSink`] delivers: the engine actor's command channel (the
/// actor implements this for its sender, so that backends, below the actor,
/// never name its commands).
pub trait UpdateChannel: std::fmt::Debug + Send + Sync {
    /// Deliver one update; fails only when the receiving end is gone.
    fn deliver(&self, update: HpcUpdate) -> Result<(), SinkClosed>;
}

/// The daemon end of a backend: sends updates to the engine actor.
#[derive(Clone, Debug)]
pub struct HpcSink {
    tx: Arc<dyn UpdateChannel>,
}

/// The daemon stopped; the update was dropped.
#[derive(Debug, thiserror::Error)]
#[error("the daemon is shutting down")]
pub struct SinkClosed;

impl HpcSink {
    /// Wrap the actor's command channel.
    pub(crate) fn new(tx: impl UpdateChannel + 'static) -> HpcSink {
        HpcSink { tx: Arc::new(tx) }
    }

    /// Hand one update to the daemon.
    pub fn send(&self, update: HpcUpdate) -> Result<(), SinkClosed> {
        self.tx.deliver(update)
    }
}

/// Fires when the daemon stops.
#[derive(Clone, Debug)]
pub struct Shutdown {
    rx: watch::Receiver<bool>,
}

impl Shutdown {
    /// A handle watching `rx` (true = stopping).
    pub fn new(rx: watch::Receiver<bool>) -> Shutdown {
        Shutdown { rx }
    }

    /// True once the daemon is stopping.
    pub fn is_stopping(&self) -> bool {
        *self.rx.borrow()
    }

    /// Resolves when the daemon is stopping.
    pub async fn wait(&mut self) {
        let _ = self.rx.wait_for(|stopping| *stopping).await;
    }
}

/// Run the configured backend until shutdown; backends that export metrics
/// count into `metrics`; a backend that maps a plan onto the engine's
/// processors (Slurm) maps it onto `shape`, and evicts by `eviction` when
/// the daemon, not Slurm, picks the victims.
pub async fn run(
    config: BackendConfig,
    shape: slurm::EngineShape,
    eviction: Option<slurm::evict::Policy>,
    sink: HpcSink,
    metrics: Metrics,
    mut shutdown: Shutdown,
) -> Result<(), BackendError> {
    match config {
        BackendConfig::Embedded(config) => embedded::run(config, sink, shutdown).await,
        BackendConfig::Plugin(_) => {
            shutdown.wait().await;
            Ok(())
        }
        BackendConfig::Slurm(config) => slurm::run(config, shape, eviction, sink, metrics, shutdown).await,
    }
}

/// Short name of the configured backend (`embedded`, `plugin`, `slurm`).
pub fn name(config: &BackendConfig) -> &'static str {
    match config {
        BackendConfig::Embedded(_) => "embedded",
        BackendConfig::Plugin(_) => "plugin",
        BackendConfig::Slurm(_) => "slurm",
    }
}
