//! The engine actor: one OS thread owns the [`Engine`], the SQLite store and
//! the job processes. Everything else talks to it through [`Command`]s on a
//! channel, so the engine needs no locks and every change is written to
//! SQLite in the order it happened.
//!
//! This module builds the actor ([`Actor::start`]) and is the loop and the
//! dispatch; no other module of the actor uses it. Below it, in three layers:
//!
//! - the parts of the actor's state, which know nothing of the actor:
//!   `command` (the requests it serves and its error answers), `job_pages`
//!   (the pages of `GET /v1/jobs`), `setup`
//!   (what it starts from, why it could not), `cloud_job`, `hpc_mirror`,
//!   `hold_table`, `batch`, `member_link`, `readiness`, `seconds`;
//! - `state`: the [`Actor`] struct over those parts, and its time;
//! - each job of the actor, an `impl Actor` over `state`: `scheduling` (a
//!   pass and its decisions); `admission` (the answers to clients: submit,
//!   predict, cancel, slots, jobs); `holds` (admission holds); `hpc` (the
//!   mirror of the batch system's jobs in the engine); `supervisor` (the
//!   cloud jobs' processes: start, evict, kill, reap, walltime); `recovery`
//!   (picking up the jobs SQLite says were queued or running); `retention`
//!   (the rejected submissions kept); `member` (a
//!   data center member's tuples and evicted jobs for its broker);
//!   `telemetry` (readiness, `/healthz`, node samples and gauges).
//!
//! The loop wakes for each command and at least every [`TICK`]: it reaps
//! exited jobs, enforces walltimes and kill deadlines, ends simulated HPC jobs,
//! retries held starts, samples the node, passes (`Driver::pass(now)`) when
//! something changed or the driver says a pass is due (`Driver::due`), and
//! carries out the decisions.
//! Its time comes from the injected [`Clock`](crate::clock::Clock), never
//! from the wall clock directly.

mod admission;
mod area;
mod batch;
mod cloud_job;
mod command;
mod hold_table;
mod holds;
mod hpc;
mod hpc_mirror;
mod job_pages;
mod member;
mod member_link;
mod pending_ends;
mod readiness;
mod recovery;
mod retention;
mod scheduling;
mod seconds;
mod setup;
mod state;
mod supervisor;
mod telemetry;
#[cfg(test)]
mod tests;

pub(crate) use admission::{positive_seconds, prediction_answer};
pub use command::{ApiError, Command, ErrorKind, Owner, Reloadable};
pub use job_pages::JobsPage;
pub use setup::{ActorError, ActorSetup};
pub use state::Actor;

use crate::config::Config;
use crate::metrics::Metrics;
use crate::node::NodeMonitor;
use batch::BatchSystem;
use hold_table::Holds;
use hpc_mirror::HpcMirror;
use interstice_api::wire::HpcEventResponse;
use interstice_core::qos::QosConfig;
use interstice_core::{Driver, Engine, Time};
use member_link::MemberLink;
use readiness::Readiness;
use std::collections::HashMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Longest sleep of the actor loop.
pub const TICK: Duration = Duration::from_millis(100);

/// How long the actor goes without calling `Engine::schedule` when nothing changed.
const IDLE_SCHEDULE_INTERVAL: Time = Time::from_secs(1);

/// `engine.eviction`'s classes under its policy (`None`: the plan's holders give way).
/// The class table is the one the metrics were given (built once, by the server).
fn victims_of(config: &Config, metrics: &Metrics) -> Option<QosConfig> {
    let eviction = config.engine.eviction()?;
    let mut cfg = QosConfig::new(0, 0, eviction);
    cfg.classes = metrics.classes()?.classes.clone();
    Some(cfg)
}

impl Actor {
    /// Build the engine and recover the jobs SQLite says were queued or running.
    pub fn start(setup: ActorSetup) -> Result<Actor, ActorError> {
        let started = setup.clock.now();
        let mut engine = Engine::new(setup.config.engine_config()?)?;
        // The store keeps every job's story; the engine only the jobs in the
        // system (each admission hold is a job too: a daemon's lifetime of
        // them would otherwise pile up).
        engine.hand_over_finished();
        let next_job_id = setup.store.max_job_id()? + 1;
        let member = match setup.config.member() {
            Some(config) => {
                let token = setup.config.api.token().map_err(ActorError::Datacenter)?;
                Some(MemberLink::start(config, token)?)
            }
            None => None,
        };
        setup
            .metrics
            .set_plan_stale_after(setup.config.backend.plan_stale_after());
        let victims = victims_of(&setup.config, &setup.metrics);
        let mut actor = Actor {
            driver: Driver::new(engine),
            store: setup.store,
            metrics: setup.metrics,
            executor: setup.executor,
            monitor: NodeMonitor::new(),
            reloadable: Reloadable {
                execution: setup.config.execution.clone(),
                node: setup.config.node.clone(),
                metrics: setup.config.metrics.clone(),
                area: None,
            },
            clock: setup.clock,
            jobs: HashMap::new(),
            job_classes: HashMap::new(),
            victims,
            hpc: HpcMirror::default(),
            holds: Holds::new(&setup.config.backend, started),
            batch: BatchSystem::new(&setup.config.backend),
            mirrors_plan: matches!(setup.config.backend, crate::config::BackendConfig::Slurm(_)),
            member,
            readiness: Readiness::new(&setup.config.backend),
            next_job_id,
            check_backoff: HashMap::new(),
            last_now: Time::ZERO,
            last_sample: None,
            last_gauges: None,
            last_schedule: Time::ZERO,
            store_config: setup.config.store.clone(),
            quota: setup.config.quota.clone(),
            last_prune: None,
            last_finished_prune: None,
            dirty: true,
            tuple_stale: true,
            stopping: false,
            pending_ends: Vec::new(),
        };
        let area = actor.driver.engine().area_procs();
        actor.metrics.area_processors.set(i64::from(area));
        actor.recover().map_err(ActorError::Recovery)?;
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
        self.executor.shutdown();
        tracing::info!(
            running = self.count_running(),
            "engine actor stopped; running jobs keep running"
        );
    }

    fn handle(&mut self, command: Command) {
        if command.abandoned() {
            tracing::debug!("a request whose client went away was dropped");
            return;
        }
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
            Command::Predict {
                request,
                owner,
                reply,
            } => {
                let started = Instant::now();
                let answer = self.predict(request, owner);
                self.metrics
                    .admission_duration
                    .observe(started.elapsed().as_secs_f64());
                let _ = reply.send(answer);
            }
            Command::Slots { reply } => {
                let _ = reply.send(Ok(self.slots()));
            }
            Command::Jobs { owner, page, reply } => {
                let _ = reply.send(self.job_list(owner, page));
            }
            Command::Job { id, owner, reply } => {
                let _ = reply.send(self.job_view(id, owner));
            }
            Command::JobOutput {
                id,
                stream,
                tail,
                owner,
                reply,
            } => {
                let _ = reply.send(self.job_output(id, &stream, tail, owner));
            }
            Command::Cancel { id, owner, reply } => {
                let _ = reply.send(self.cancel(id, owner));
            }
            Command::HpcEvent { event, owner, reply } => {
                let answer = self
                    .batch
                    .check(owner, "POST /v1/hpc/events")
                    .and_then(|()| self.pushed_hpc_event(event));
                let _ = reply.send(answer.map(|evicted| HpcEventResponse { ok: true, evicted }));
            }
            Command::Hpc(update) => self.hpc_update(update),
            Command::Health { reply } => {
                let _ = reply.send(self.health());
            }
            Command::Area { resize, owner, reply } => {
                let answer = match resize {
                    Some(procs) => self.resize_area_for(procs, owner),
                    None => Ok(self.area()),
                };
                let _ = reply.send(answer);
            }
            Command::Reload(reloadable) => {
                if let Some(procs) = reloadable.area {
                    if let Err(err) = self.resize_area(procs, "SIGHUP, engine.conv_procs") {
                        tracing::error!("SIGHUP: engine.conv_procs {procs} not applied: {}", err.message);
                    }
                }
                self.executor.reload(reloadable.execution.clone());
                self.reloadable = *reloadable;
                tracing::info!("reloaded execution, node and metrics settings");
            }
            Command::Shutdown => self.stopping = true,
        }
    }

    /// What the loop does at least every [`TICK`].
    fn tick(&mut self) {
        let now = self.now();
        self.sample_node(now);
        self.retry_store();
        self.retry_ends();
        self.reap(now);
        self.executor.release_lingering();
        self.enforce(now);
        self.end_simulated_hpc_jobs(now);
        self.retry_held(now);
        self.release_holds(&[], now);
        self.collect_hand_overs(now);
        self.prune_expired_rejections(now);
        self.prune_finished(now);
        let wakeup_due = self.driver.due(now).is_some();
        let plan_changed = self.dirty || wakeup_due;
        if plan_changed || now - self.last_schedule >= IDLE_SCHEDULE_INTERVAL {
            self.schedule_now(now);
        }
        let publish = plan_changed || std::mem::take(&mut self.tuple_stale);
        self.publish_tuple(now, publish);
        self.update_gauges(now);
    }
}
