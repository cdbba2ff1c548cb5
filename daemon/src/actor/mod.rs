//! The engine actor: one OS thread owns the [`Engine`], the SQLite store and
//! the job processes. Everything else talks to it through [`Command`]s on a
//! channel, so the engine needs no locks and every change is written to
//! SQLite in the order it happened.
//!
//! This module is the loop and the dispatch; each job of the actor has its
//! own module:
//!
//! - `command`: the requests it serves and its error answers;
//! - `admission`: the answers to clients (submit, predict, cancel, slots, jobs);
//! - `hpc`: the mirror of the batch system's jobs in the engine;
//! - `supervisor`: the cloud jobs' processes (start, evict, kill, reap, walltime);
//! - `recovery`: picking up the jobs SQLite says were queued or running;
//! - `member`: a data center member's tuples and evicted jobs for its broker;
//! - `telemetry`: readiness, `/healthz`, node samples and gauges.
//!
//! The loop wakes for each command and at least every [`TICK`]: it reaps
//! exited jobs, enforces walltimes and kill deadlines, ends simulated HPC jobs,
//! retries held starts, samples the node, passes (`Driver::pass(now)`) when
//! something changed or the driver says a pass is due (`Driver::due`), and
//! carries out the decisions.
//! Its time comes from the injected [`Clock`], never from the wall clock
//! directly.

mod admission;
mod batch;
mod command;
mod holds;
mod hpc;
mod member;
mod recovery;
mod supervisor;
mod telemetry;
#[cfg(test)]
mod tests;

pub(crate) use admission::{positive_seconds, prediction_answer};
pub use command::{ApiError, Command, ErrorKind, Owner, Reloadable};

use crate::clock::Clock;
use crate::config::{Config, EngineSectionError};
use crate::exec::Executor;
use crate::metrics::Metrics;
use crate::node::NodeMonitor;
use crate::store::{Store, StoreError};
use hpc::HpcMirror;
use interstice_api::wire::HpcEventResponse;
use interstice_core::qos::policy::RunningCloud;
use interstice_core::qos::QosConfig;
use interstice_core::{Decision, Driver, Engine, EngineError, JobId, Time};
use std::collections::HashMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use supervisor::CloudJob;
use telemetry::Readiness;

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
    /// Where "now" comes from: [`Clock::System`] in the daemon, a manual clock in tests.
    pub clock: Clock,
}

/// Why the actor could not start.
#[derive(Debug, thiserror::Error)]
pub enum ActorError {
    /// The `engine:` section names a policy or admission mode core does not know.
    #[error("{0}")]
    Config(#[from] EngineSectionError),
    /// The engine refused the config.
    #[error("engine: {0}")]
    Engine(#[from] EngineError),
    /// The state database could not be read.
    #[error("state database: {0}")]
    Store(#[from] StoreError),
    /// Recovering the jobs of the last run failed.
    #[error("recovering jobs from the state database: {0}")]
    Recovery(StoreError),
    /// The link to the data center's broker could not be set up.
    #[error("datacenter: {0}")]
    Datacenter(String),
}

/// The actor's state: the engine and everything whose changes must be
/// ordered with the engine's.
pub struct Actor {
    driver: Driver,
    store: Store,
    metrics: Metrics,
    executor: Executor,
    monitor: NodeMonitor,
    reloadable: Reloadable,
    clock: Clock,
    /// Admitted cloud jobs not yet ended (queued, held or running).
    jobs: HashMap<u64, CloudJob>,
    /// The class of each admitted cloud job that has one, until its final
    /// record is counted in it (`interstice_class_*`).
    job_classes: HashMap<u64, usize>,
    /// `engine.eviction`: the classes under that policy, whose victim order
    /// ranks the running cloud jobs before each pass ([`Actor::rank_victims`]).
    victims: Option<QosConfig>,
    hpc: HpcMirror,
    /// Admission holds (Slurm mode).
    holds: holds::Holds,
    /// Who may report HPC jobs and record admissions.
    batch: batch::BatchSystem,
    /// The backend sends the batch system's own plan (Slurm): the engine
    /// mirrors it and plans no HPC job of its own.
    mirrors_plan: bool,
    /// The link to the broker, when this daemon is a data center member.
    member: Option<member::MemberLink>,
    readiness: Readiness,
    next_job_id: u64,
    /// Users whose last access check timed out, refused until then
    /// ([`admission::CHECK_BACKOFF`]).
    check_backoff: HashMap<u32, Time>,
    /// The actor's time never goes back, even when the clock does.
    last_now: Time,
    last_sample: Option<Time>,
    last_gauges: Option<Time>,
    last_schedule: Time,
    /// Something changed since the last `Engine::schedule`.
    dirty: bool,
    /// The plan changed outside a scheduling pass of the loop (an admission)
    /// since a data center member last published it.
    tuple_stale: bool,
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
                Some(member::MemberLink::start(config, token)?)
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
            },
            clock: setup.clock,
            jobs: HashMap::new(),
            job_classes: HashMap::new(),
            victims,
            hpc: HpcMirror::default(),
            holds: holds::Holds::new(&setup.config.backend, started),
            batch: batch::BatchSystem::new(&setup.config.backend),
            mirrors_plan: matches!(setup.config.backend, crate::config::BackendConfig::Slurm(_)),
            member,
            readiness: Readiness::new(&setup.config.backend),
            next_job_id,
            check_backoff: HashMap::new(),
            last_now: Time::ZERO,
            last_sample: None,
            last_gauges: None,
            last_schedule: Time::ZERO,
            dirty: true,
            tuple_stale: true,
            stopping: false,
        };
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

    /// The clock's time, never before the last time the actor used.
    fn now(&mut self) -> Time {
        let now = self.clock.now().max(self.last_now);
        self.last_now = now;
        now
    }

    /// Clamp an outside event time into `[last_now, clock]`.
    fn event_time(&mut self, time: Time) -> Time {
        let clock = self.clock.now().max(self.last_now);
        let time = time.clamp(self.last_now, clock);
        self.last_now = time;
        time
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
            Command::Jobs { owner, reply } => {
                let _ = reply.send(self.job_list(owner));
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
            Command::Reload(reloadable) => {
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
        self.reap(now);
        self.executor.release_lingering();
        self.enforce(now);
        self.end_simulated_hpc_jobs(now);
        self.retry_held(now);
        self.release_holds(&[], now);
        self.collect_hand_overs(now);
        let wakeup_due = self.driver.due(now).is_some();
        let plan_changed = self.dirty || wakeup_due;
        if plan_changed || now - self.last_schedule >= IDLE_SCHEDULE_INTERVAL {
            self.schedule_now(now);
        }
        let publish = plan_changed || std::mem::take(&mut self.tuple_stale);
        self.publish_tuple(now, publish);
        self.update_gauges(now);
    }

    /// Schedule at `now` and carry out the decisions; returns evicted cloud jobs.
    fn schedule_now(&mut self, now: Time) -> Vec<u64> {
        self.last_schedule = now;
        self.dirty = false;
        let decisions = self.pass(now);
        self.apply(decisions, now, None)
    }

    /// One pass at `now`. A livelock (too many passes at one instant, e.g.
    /// while the clock stands still) is logged and decides nothing; the
    /// next tick passes again.
    fn pass(&mut self, now: Time) -> Vec<Decision> {
        self.rank_victims(now);
        let decisions = self.driver.pass(now);
        // Final jobs as of this pass: the engine forgets them (see `start`).
        for record in self.driver.take_finished() {
            self.count_in_class(&record, now);
        }
        match decisions {
            Ok(decisions) => decisions,
            Err(livelock) => {
                tracing::error!("{livelock}");
                self.dirty = true;
                Vec::new()
            }
        }
    }

    /// Rank the running cloud jobs by `engine.eviction`'s victim order at
    /// `now` (nothing without it): before every pass, and before a cloud
    /// job's submission brings the plan up to date. A job whose class the
    /// config no longer has stays unranked (it gives way first).
    fn rank_victims(&mut self, now: Time) {
        let Some(cfg) = &self.victims else {
            return;
        };
        let (jobs, classes) = (&self.jobs, &self.job_classes);
        // Admission order is the id's (the daemon numbers jobs as it admits
        // them); the Slurm backend alone knows tenants (`backend.tenants`).
        self.driver.rank_running_cloud(cfg, now, |JobId(id)| {
            let job = jobs.get(&id)?;
            Some(RunningCloud {
                order: id,
                submitted: job.submitted,
                procs: job.procs,
                class: *classes.get(&id)?,
                tenant: 0,
            })
        });
    }

    /// Carry out the engine's decisions; returns the cloud jobs evicted.
    /// `answered` is the job whose rejection the caller is answering itself.
    fn apply(&mut self, decisions: Vec<Decision>, now: Time, answered: Option<u64>) -> Vec<u64> {
        let mut evicted = Vec::new();
        for decision in decisions {
            match decision {
                Decision::Evict { id } if self.holds.holds(id.0) => {
                    self.hold_evicted(id.0, now);
                }
                Decision::Evict { id } => {
                    if self.evict(id.0, now) {
                        evicted.push(id.0);
                    }
                }
                Decision::Start { id, procs } => {
                    if self.hpc.knows(id) {
                        self.hpc_started(id, now);
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
}

/// Epoch seconds of an engine time, as the wire and the store spell times.
fn secs(time: Time) -> f64 {
    time.as_secs_f64()
}

/// Epoch seconds of a time that may be "never" (infinite or absent).
fn finite_secs(time: Option<Time>) -> Option<f64> {
    time.filter(|t| !t.is_infinite()).map(secs)
}
