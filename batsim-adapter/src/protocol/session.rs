//! The scheduler side of one Batsim simulation, without any socket: turns each
//! message from Batsim into engine calls and the engine's decisions into the
//! reply's events.
//!
//! Per message: `SIMULATION_BEGINS` builds the engine; then every
//! `JOB_COMPLETED`/`JOB_KILLED` is applied; then, unless an end Batsim must
//! still report is due (below), every `JOB_SUBMITTED` received so far (in a
//! canonical order: time, workload, job number), due cloud injections, and
//! the scheduling passes. Decisions cost no simulated time: every reply event
//! is stamped with the message's `now`.
//!
//! Real Batsim splits one instant's events over several messages and its
//! (SimGrid's) clock drifts by microseconds from exact sums. The adapter
//! knows when each run ends in Batsim (start plus its `delay`, or its
//! walltime: [`crate::sim::run_length`]), so while an end is due and not yet
//! reported it applies no arrival and decides nothing: the report comes in a
//! later message, and the decision is then the one the built-in simulator
//! takes with every end of the instant applied first. An end reported within
//! `CLOCK_ROUNDING` (100 µs) after its expected time counts at that time, and the
//! engine's clock follows the events rather than the messages' `now`. So on
//! a zero-latency platform `interstice batsim` and `interstice replay` take
//! the same decisions; a run's times in Batsim's own output differ from the
//! engine's by SimGrid's drift (a few microseconds). A job past its walltime
//! keeps its processors in the engine until Batsim reports its end
//! ([`Engine::overdue`]).
//!
//! The adapter passes when the built-in simulator (`sim`) does: at a message
//! that brings ends or arrivals, and whenever [`Driver::due`] says a pass is
//! due by the message's `now` (at the wake-up's time, or again at once after
//! a productive pass). A pass with no new event is a
//! no-op in the engine, so the two need not agree on idle passes. A
//! job without walltime (`-1` or missing) gets its `delay` profile's length as
//! walltime (unbounded otherwise), not enforced, as `interstice replay` reads
//! such a workload.
//!
//! Evictions: an `Evict` becomes `KILL_JOB`; the engine learns the outcome
//! from Batsim: `JOB_COMPLETED` with `COMPLETED_KILLED` (or `JOB_KILLED`
//! alone) is the eviction, the job's own end (it completed in the same
//! instant, before the kill reached it) undoes it. The pass that evicted is
//! the message's last: the next comes with Batsim's report, as the simulator
//! passes again after acknowledging its kills. A start on processors that a
//! kill is still freeing is held back until Batsim's `JOB_KILLED` (Batsim
//! must not run two jobs on one host). A killed Batsim job cannot run again,
//! so an evicted job that the engine re-queues is registered again under a
//! new id (`interstice!<old id>-r<n>`) when Batsim's dynamic jobs are
//! enabled; without them the engine is told to allow no resubmission and an
//! eviction is final. Every job the adapter registers (injected cloud jobs,
//! resubmissions) gets a profile of its own, named as the job: Batsim
//! discards a dynamic profile with its job unless `--enable-profile-reuse`
//! is given, and either way works.
//!
//! With a victim order ([`AdapterConfig::victim_order`], `--eviction`) the
//! evicted jobs are those the order ranks first ([`super::classes`]): the
//! running cloud jobs are ranked before every pass and before each cloud
//! job's submission.

use super::classes::{Classes, OptionSource, VictimOrder, VictimOrderError};
use super::messages::{
    EventKind, FinalState, JobCompleted, JobSubmitted, Message, Outgoing, SimulationBegins,
};
use super::options::{CloudInjection, EngineOptions, OptionsError};
use crate::output::{self, BatsimNames, Naming, OutputError};
use interstice_core::qos::policy::RunningCloud;
use interstice_core::{
    Decision, Driver, EndReason, Engine, EngineError, Job, JobId, JobKind, JobState, Livelock, ProcSet,
    Summary, Time,
};
use interstice_swf::label::JobLabel;
use interstice_swf::qos::UnknownName;
use interstice_swf::{CloudJobs, JobDescription, JobFieldError, Profile, SwfError};
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

/// The workload name of the jobs the adapter registers itself.
pub const DYNAMIC_WORKLOAD: &str = "interstice";

/// Engine ids of jobs without a usable job number start here.
const SYNTHETIC_ID_BASE: u64 = 1 << 40;

/// Everything the adapter needs besides Batsim's messages.
#[derive(Clone, Debug, Default)]
pub struct AdapterConfig {
    /// Engine options from the command line (they win over `sched-config`).
    pub engine: EngineOptions,
    /// Create cloud jobs through dynamic registration.
    pub inject: Option<CloudInjection>,
    /// Write `jobs.csv` and `summary.json` here at `SIMULATION_ENDS`.
    pub out_dir: Option<PathBuf>,
    /// Running cloud jobs give way to HPC work in this eviction policy's
    /// victim order (`--eviction`, [`super::classes`]); `None`: those on
    /// the processors the plan names.
    pub victim_order: Option<VictimOrder>,
}

/// Why a message could not be handled.
///
/// No error of this module has a [`source`](std::error::Error::source): each
/// message says the whole cause, as it is shown inside
/// [`ServerError`](super::ServerError)'s message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// A message after `SIMULATION_ENDS`.
    #[error("a message arrived after SIMULATION_ENDS")]
    AfterEnd,
    /// The first message has no `SIMULATION_BEGINS`.
    #[error("the first message must contain SIMULATION_BEGINS")]
    NotBegun,
    /// The message's `now` is before the previous message's.
    #[error("now {now} is before the previous message's now {previous}: time must not go backwards")]
    NowBackwards {
        /// The message's `now`.
        now: f64,
        /// The previous message's.
        previous: f64,
    },
    /// An event happened before the previous message.
    #[error(
        "events[{index}].timestamp {timestamp} is before the previous message's now {previous}: events must \
         not go back in time"
    )]
    EventBackwards {
        /// Index in the message's `events`.
        index: usize,
        /// The event's timestamp.
        timestamp: f64,
        /// The previous message's `now`.
        previous: f64,
    },
    /// `SIMULATION_BEGINS` cannot start the simulation.
    #[error("events[{index}] (SIMULATION_BEGINS): {problem}")]
    Begin {
        /// Index in the message's `events`.
        index: usize,
        /// What is wrong (boxed, to keep `SessionError` small).
        problem: Box<BeginError>,
    },
    /// One event is inconsistent with what the scheduler knows.
    #[error("events[{index}] ({event_type}): {problem}")]
    Event {
        /// Index in the message's `events`.
        index: usize,
        /// Batsim's event type.
        event_type: &'static str,
        /// What is wrong.
        problem: JobError,
    },
    /// The engine kept deciding without time advancing.
    #[error("{0}")]
    Livelock(Livelock),
    /// The engine's decisions, or a cloud job to inject, cannot be carried out.
    #[error("{0}")]
    Scheduling(JobError),
    /// Writing the results at `SIMULATION_ENDS` failed. The message carries
    /// the whole cause (it is shown inside [`ServerError`](super::ServerError)'s
    /// message), so there is no separate source.
    #[error("cannot write the results: {}", error_chain(.0))]
    Output(OutputError),
}

/// `error: cause: cause …`, the whole chain on one line.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Why `SIMULATION_BEGINS` cannot start the simulation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BeginError {
    /// A second `SIMULATION_BEGINS`.
    #[error("the simulation has already begun")]
    AlreadyBegun,
    /// Batsim's `sched-config` or the merged engine options are unusable.
    #[error("{0}")]
    Options(OptionsError),
    /// More compute resources than a `u32` counts.
    #[error("too many resources")]
    TooManyResources,
    /// Cloud injection was asked for but Batsim runs without dynamic jobs.
    #[error(
        "cloud injection registers jobs dynamically: run Batsim with --enable-dynamic-jobs (or drop \
         --inject-cloud)"
    )]
    InjectionNeedsDynamicJobs,
    /// The cloud injection settings are invalid.
    #[error("{0}")]
    Injection(SwfError),
    /// The engine refuses the configuration.
    #[error("{0}")]
    Engine(EngineError),
    /// The eviction policy cannot order victims under the engine options.
    #[error("{0}")]
    VictimOrder(VictimOrderError),
}

/// What is inconsistent about one job, between Batsim's events, the engine
/// and the adapter's own bookkeeping.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// A second `JOB_SUBMITTED` for one Batsim job.
    #[error("job {0} was already submitted")]
    AlreadySubmitted(String),
    /// A field of a submitted job cannot be used.
    #[error("{0}")]
    Field(JobFieldError),
    /// A submitted job's `res` is not a resource count.
    #[error("job.res: expected a number of resources, found {0}")]
    Res(f64),
    /// A cloud job with a walltime reconciliation factor α other than 1:
    /// Batsim enforces the `walltime` field as written, so the engine cannot
    /// plan with another one.
    #[error(
        "job {job}: job.alpha is {alpha} but Batsim enforces the job's walltime as written: write the \
         reconciled walltime into the workload instead (`interstice swf convert IN.json -o OUT.json` does), \
         or remove alpha"
    )]
    Alpha {
        /// The Batsim id.
        job: String,
        /// The job's α.
        alpha: f64,
    },
    /// A cloud job's label names a class or tenant the classes do not define.
    #[error("job {job}: {error}: define it in the --qos file, or fix the workload's label")]
    Label {
        /// The Batsim id.
        job: String,
        /// What is not defined (boxed, to keep `JobError` small).
        error: Box<UnknownName>,
    },
    /// The engine refused a job for another reason than its size.
    #[error("the engine refused job {job}: {error}")]
    Refused {
        /// The Batsim id.
        job: String,
        /// The engine's reason.
        error: EngineError,
    },
    /// An event names a job Batsim never submitted to the adapter.
    #[error("job {0:?} was never submitted to this scheduler (unknown job id)")]
    Unknown(String),
    /// The end of a Batsim job whose engine job lives on under another id.
    #[error("job {job} already ended (it was resubmitted as {current})")]
    Resubmitted {
        /// The Batsim id of the event.
        job: String,
        /// The id of the job's current incarnation.
        current: String,
    },
    /// The end of a job whose start the adapter still holds back.
    #[error("job {0} completed before the scheduler asked Batsim to execute it")]
    CompletedWhileHeld(String),
    /// The engine refused a job's end or cancellation.
    #[error("job {job}: {error}")]
    Engine {
        /// The Batsim id.
        job: String,
        /// The engine's reason.
        error: EngineError,
    },
    /// The end of a job the adapter never started.
    #[error("job {job} ended ({}) but the scheduler never started it", .state.name())]
    NeverStarted {
        /// The Batsim id.
        job: String,
        /// The end Batsim reported.
        state: FinalState,
    },
    /// A second end of one job.
    #[error("job {0} had already ended")]
    AlreadyEnded(String),
    /// `JOB_KILLED` for a job the adapter did not kill.
    #[error("JOB_KILLED names {0}, which the scheduler never asked to kill")]
    NotKilling(String),
    /// An evicted job to resubmit whose profile the adapter does not know.
    #[error("cannot resubmit evicted job {job}: its profile {profile:?} is unknown")]
    UnknownProfile {
        /// The Batsim id.
        job: String,
        /// The profile's name.
        profile: String,
    },
    /// A decision about a job the adapter does not know.
    #[error("the engine {decided} unknown job {id}")]
    UnknownDecided {
        /// What the engine did (`evicted`, `started`, `rejected`).
        decided: &'static str,
        /// The engine's job.
        id: JobId,
    },
    /// A decision about a job in the wrong state.
    #[error("the engine {decided} job {job} which is not {expected}")]
    WrongState {
        /// What the engine did (`evicted`, `started`).
        decided: &'static str,
        /// The Batsim id.
        job: String,
        /// The state it should be in (`running`, `waiting`).
        expected: &'static str,
    },
}

/// The answer to one message.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The reply's events (all stamped with the message's `now`).
    pub events: Vec<Outgoing>,
    /// True after `SIMULATION_ENDS`: send the reply and stop.
    pub finished: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tracked {
    /// Submitted, waiting for a decision.
    Waiting,
    /// `EXECUTE_JOB` sent (or held back until a kill completes).
    Running,
    /// Ended, rejected, or evicted (see `Running::killing` for kills in flight).
    Done,
}

impl Tracked {
    /// The state in errors (`job … which is not running`).
    fn name(self) -> &'static str {
        match self {
            Tracked::Waiting => "waiting",
            Tracked::Running => "running",
            Tracked::Done => "done",
        }
    }
}

/// How far SimGrid's clock may drift from the exact time of an end: a
/// run's end reported at most this long after its expected time (start plus
/// `delay` or walltime) is taken to have happened at that time. Batsim 4.2.1
/// drifts by a few microseconds over a trace of months; a latency platform's
/// exchanges cost far more (0.6 ms each on `cluster16.xml`) and are not
/// taken for drift.
const CLOCK_ROUNDING: Time = Time::from_ticks(100);

/// On a platform with latencies, a `CALL_ME_LATER` is at least this many
/// observed latencies ahead of the message's `now` (Batsim 4.2.1 was seen
/// reading replies up to ~3 latencies after `now`).
const CALL_MARGIN: i64 = 10;

#[derive(Clone, Debug)]
struct Entry {
    /// The Batsim id of the job's current incarnation.
    batsim_id: String,
    /// The job's description, for registering a resubmission.
    description: Map<String, Value>,
    /// The workload of the original job (for its profile).
    workload: String,
    /// The profile the adapter registered with the job (dynamic jobs).
    dynamic_profile: Option<Value>,
    state: Tracked,
    /// Processors of the current run (engine numbering).
    procs: Option<ProcSet>,
    /// The engine re-queued it after an eviction: register a new Batsim job before starting it.
    needs_registration: bool,
    registrations: u32,
    /// Rank of the current run's start among all starts.
    start_order: u64,
    /// How long a run lasts in Batsim at most, when known (a `delay` profile,
    /// or an enforced walltime).
    run_length: Option<Time>,
    /// When Batsim will report the current run's end (see `Running::expected_ends`).
    expected_end: Option<Time>,
    /// A cloud job's class, tenant and admission rank (with `--eviction`).
    class: Option<RunningCloud>,
}

impl Entry {
    /// A job Batsim submitted (or the adapter registered), not yet started.
    fn waiting(batsim_id: String, description: Map<String, Value>, workload: String) -> Entry {
        Entry {
            batsim_id,
            description,
            workload,
            dynamic_profile: None,
            state: Tracked::Waiting,
            procs: None,
            needs_registration: false,
            registrations: 0,
            start_order: u64::MAX,
            run_length: None,
            expected_end: None,
            class: None,
        }
    }
}

/// A `KILL_JOB` in flight.
#[derive(Clone, Debug)]
struct Kill {
    /// The engine's job.
    id: JobId,
    /// The processors it ran on (engine numbering).
    procs: ProcSet,
    /// The job's end was reported to the engine (Batsim's `JOB_COMPLETED`:
    /// `COMPLETED_KILLED`, or its own end if it ended before the kill).
    reported: bool,
}

/// A `JOB_SUBMITTED` not applied to the engine yet.
#[derive(Clone, Debug)]
struct Arrival {
    /// Its index in its message's `events` (for errors).
    index: usize,
    submitted: JobSubmitted,
    at: Time,
}

#[derive(Clone, Debug)]
struct HeldStart {
    batsim_id: String,
    alloc: String,
    waiting_for: HashSet<String>,
}

struct Running {
    driver: Driver,
    /// Engine processor `i` is Batsim resource `resources[i]`.
    resources: Vec<u32>,
    identity_resources: bool,
    dynamic_jobs: bool,
    /// The first workload's name (`w0`): its numeric job names are the
    /// engine ids, and `summary.json` names the run after it.
    workload_name: String,
    profiles: Map<String, Value>,
    by_batsim: HashMap<String, JobId>,
    entries: HashMap<JobId, Entry>,
    used_ids: HashSet<u64>,
    next_synthetic: u64,
    /// Running jobs by the time Batsim will report their end (start plus
    /// their `delay` or walltime); the end of a run started at `t` comes at
    /// `t + length` or later (latencies, SimGrid's clock rounding), maybe in
    /// a later message of the same instant.
    expected_ends: BTreeSet<(Time, JobId)>,
    /// Arrivals waiting for the expected ends before them.
    arrivals: Vec<Arrival>,
    /// The platform's latency as seen so far: the longest delay between a
    /// job's `subtime` and its `JOB_SUBMITTED` (0 on a zero-latency platform).
    latency: Time,
    /// `KILL_JOB`s Batsim has not acknowledged with `JOB_KILLED` yet, by Batsim id.
    killing: HashMap<String, Kill>,
    held: Vec<HeldStart>,
    requested_calls: BTreeSet<Time>,
    static_done: bool,
    registration_finished: bool,
    starts: u64,
    /// Wall time spent in scheduling passes.
    schedule_time: std::time::Duration,
    /// Cloud injection settings.
    inject: Option<CloudInjection>,
    /// The cloud jobs still to inject (swf's injector), once the first
    /// injection time is known.
    injector: Option<CloudJobs>,
    /// The engine's time: the latest event applied or wake-up served (an
    /// end reported within `CLOCK_ROUNDING` of its expected time counts at
    /// that time), never later than Batsim's `now`.
    clock: Time,
    /// The previous message's `now` (it must not go backwards).
    last_now: f64,
    /// The cloud jobs' classes, when an eviction policy orders victims.
    classes: Option<Classes>,
}

/// One simulation's scheduler state.
pub struct Session {
    config: AdapterConfig,
    running: Option<Running>,
    finished: bool,
    summary: Option<Summary>,
}

impl Session {
    /// A session waiting for `SIMULATION_BEGINS`.
    pub fn new(config: AdapterConfig) -> Session {
        Session {
            config,
            running: None,
            finished: false,
            summary: None,
        }
    }

    /// The engine, once `SIMULATION_BEGINS` was handled.
    pub fn engine(&self) -> Option<&Engine> {
        self.running.as_ref().map(|r| r.driver.engine())
    }

    /// The Batsim id of the current incarnation of an engine job.
    pub fn batsim_id(&self, id: JobId) -> Option<&str> {
        self.running
            .as_ref()?
            .entries
            .get(&id)
            .map(|e| e.batsim_id.as_str())
    }

    /// The engine id of a Batsim job id.
    pub fn engine_id(&self, batsim_id: &str) -> Option<JobId> {
        self.running.as_ref()?.by_batsim.get(batsim_id).copied()
    }

    /// The summary computed at `SIMULATION_ENDS` (when `out_dir` was set).
    pub fn summary(&self) -> Option<&Summary> {
        self.summary.as_ref()
    }

    /// Wall time spent in `Engine::schedule` passes so far (to tell the
    /// engine's cost from the protocol's in measurements).
    pub fn schedule_time(&self) -> std::time::Duration {
        self.running
            .as_ref()
            .map_or(std::time::Duration::ZERO, |r| r.schedule_time)
    }

    /// True once `SIMULATION_ENDS` was handled.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Handle one message and build the reply.
    pub fn handle(&mut self, message: &Message) -> Result<Reply, SessionError> {
        if self.finished {
            return Err(SessionError::AfterEnd);
        }
        let begins_at = message
            .events
            .iter()
            .position(|e| matches!(e.kind, EventKind::SimulationBegins(_)));
        match (begins_at, self.running.is_some()) {
            (Some(index), true) => {
                return Err(SessionError::Begin {
                    index,
                    problem: Box::new(BeginError::AlreadyBegun),
                })
            }
            (Some(index), false) => {
                if let EventKind::SimulationBegins(begins) = &message.events[index].kind {
                    let running = self
                        .begin(begins, message.now)
                        .map_err(|problem| SessionError::Begin {
                            index,
                            problem: Box::new(problem),
                        })?;
                    self.running = Some(running);
                }
            }
            (None, false) => return Err(SessionError::NotBegun),
            (None, true) => {}
        }
        let running = self.running.as_mut().expect("begun");
        if message.now < running.last_now {
            return Err(SessionError::NowBackwards {
                now: message.now,
                previous: running.last_now,
            });
        }
        // Events happen between the previous message and this one.
        if let Some((index, event)) = message
            .events
            .iter()
            .enumerate()
            .find(|(_, event)| event.timestamp < running.last_now)
        {
            return Err(SessionError::EventBackwards {
                index,
                timestamp: event.timestamp,
                previous: running.last_now,
            });
        }
        running.last_now = message.now;
        let events_before = running.driver.events();
        let now = Time::from_secs_f64(message.now);
        let mut reply = Vec::new();

        // 1. Ends: completions in a canonical order (time, then the order the
        // runs started, as the simulator ends same-time runs), then kills.
        let mut completions: Vec<(usize, &JobCompleted, Time, u64)> = message
            .events
            .iter()
            .enumerate()
            .filter_map(|(index, event)| match &event.kind {
                EventKind::JobCompleted(completed) => Some((
                    index,
                    completed,
                    Time::from_secs_f64(event.timestamp),
                    running.start_order(&completed.job_id),
                )),
                _ => None,
            })
            .collect();
        completions.sort_by_key(|&(index, _, at, order)| (at, order, index));
        for (index, completed, at, _) in completions {
            running
                .job_completed(completed, at)
                .map_err(|problem| SessionError::Event {
                    index,
                    event_type: "JOB_COMPLETED",
                    problem,
                })?;
        }
        for (index, event) in message.events.iter().enumerate() {
            if let EventKind::JobKilled { job_ids } = &event.kind {
                let at = Time::from_secs_f64(event.timestamp);
                running
                    .job_killed(job_ids, at, &mut reply)
                    .map_err(|problem| SessionError::Event {
                        index,
                        event_type: "JOB_KILLED",
                        problem,
                    })?;
            }
        }
        // 2. Arrivals join the arrivals not applied yet (see below).
        for (index, event) in message.events.iter().enumerate() {
            if let EventKind::JobSubmitted(submitted) = &event.kind {
                let at = Time::from_secs_f64(event.timestamp);
                if let Some(subtime) = JobDescription::from_object(&submitted.job)
                    .ok()
                    .and_then(|description| description.subtime)
                {
                    running.latency = running.latency.max(at - Time::from_secs_f64(subtime));
                }
                running.arrivals.push(Arrival {
                    index,
                    submitted: submitted.clone(),
                    at,
                });
            }
        }
        // 3. Calls and notifications.
        let mut ends = false;
        let mut static_done = false;
        for event in &message.events {
            match &event.kind {
                EventKind::RequestedCall => {
                    let due: Vec<Time> = running.requested_calls.range(..=now).copied().collect();
                    for t in due {
                        running.requested_calls.remove(&t);
                    }
                }
                EventKind::Notify { notify_type } if notify_type == "no_more_static_job_to_submit" => {
                    static_done = true;
                }
                // Other notifications (`no_more_external_event_to_occur`, …) change nothing here.
                EventKind::Notify { .. } => {}
                EventKind::SimulationEnds => ends = true,
                _ => {}
            }
        }
        if ends {
            self.finished = true;
            if let Some(dir) = &self.config.out_dir {
                let names = running.batsim_names();
                let naming = Naming::Batsim {
                    workload: &running.workload_name,
                    names: &names,
                };
                let records = running.driver.engine().records();
                let summary = output::write_outputs(dir, naming, records, running.driver.engine().config())
                    .map_err(SessionError::Output)?;
                self.summary = Some(summary);
            }
            // Batsim expects an answer without events to SIMULATION_ENDS.
            return Ok(Reply {
                events: Vec::new(),
                finished: true,
            });
        }
        // 4. A run that has ended by now in Batsim (its `delay` or walltime
        // has passed) but whose end Batsim has not reported yet: the report
        // comes in a later message, of this instant (Batsim splits an
        // instant's events over several messages) or microseconds later
        // (SimGrid's clock rounding, latencies). Arrivals, injections and
        // passes wait for it, so that every end of an instant is applied
        // before its arrivals, as in the built-in simulator. The engine holds
        // an overdue job's processors meanwhile.
        //
        // The engine's clock follows the events (an end reported within
        // `CLOCK_ROUNDING` after its expected time counts at that time), not
        // the message's `now`: SimGrid's clock drifts by microseconds from
        // the exact times, and a decision must not change because of that.
        let waiting_for_ends = running.expected_ends.first().is_some_and(|&(end, _)| end <= now);
        if !waiting_for_ends {
            running.apply_arrivals(&mut reply)?;
            // Cloud injection (every injection time up to the last static
            // submission, like `swf inject` over the trace's span).
            running
                .inject_due(now, &mut reply)
                .map_err(SessionError::Scheduling)?;
        }
        if static_done {
            running.static_done = true;
        }
        // Schedule when this message brought an event, or when a pass is due
        // (the driver's rule, as in the simulator): a message that only
        // acknowledges a kill or brings an outdated call changes nothing. A
        // pass due at an earlier time than `now` runs at that time.
        let mut due = running.driver.due(now).filter(|_| !waiting_for_ends);
        let events = running.driver.events() > events_before && !waiting_for_ends;
        let passes_started = std::time::Instant::now();
        if events || due.is_some() {
            loop {
                if let Some(t) = due {
                    running.clock = running.clock.max(t);
                }
                running.rank_victims();
                let decisions = running
                    .driver
                    .pass(running.clock)
                    .map_err(SessionError::Livelock)?;
                // After an eviction, the next pass comes with Batsim's report of
                // the kill (as the simulator passes again after acknowledging it).
                let evicted = decisions.iter().any(|d| matches!(d, Decision::Evict { .. }));
                running
                    .apply(decisions, &mut reply)
                    .map_err(SessionError::Scheduling)?;
                if evicted {
                    break;
                }
                due = running.driver.due(now);
                if due.is_none() {
                    break;
                }
            }
        }
        running.schedule_time += passes_started.elapsed();
        // 5. Wake-ups and the end of registrations.
        let mut wakeups = Vec::new();
        if let Some(t) = running.driver.engine().next_wakeup() {
            wakeups.push(t);
        }
        if let Some(t) = running.pending_injection() {
            wakeups.push(t);
        }
        // Batsim reads the reply some time after `now` (its transfer takes
        // longer the larger it is) and aborts on a call in its past: on a
        // platform with latencies, no call earlier than `now` plus
        // `CALL_MARGIN` times the observed latency (a wake-up due before then
        // is served by that call).
        for t in wakeups {
            let at = if running.latency > Time::ZERO {
                t.max(now + Time::from_ticks(running.latency.ticks().saturating_mul(CALL_MARGIN)))
            } else {
                t
            };
            if at > now && !at.is_infinite() && running.requested_calls.insert(at) {
                reply.push(Outgoing::CallMeLater { at: at.as_secs_f64() });
            }
        }
        if running.dynamic_jobs && !running.registration_finished && running.registrations_over() {
            running.registration_finished = true;
            reply.push(Outgoing::Notify {
                notify_type: "registration_finished".into(),
            });
        }
        Ok(Reply {
            events: reply,
            finished: false,
        })
    }

    fn begin(&self, begins: &SimulationBegins, now: f64) -> Result<Running, BeginError> {
        let from_batsim =
            EngineOptions::from_sched_config(&begins.sched_config).map_err(BeginError::Options)?;
        let flags = &self.config.engine;
        // What ranking victims depends on that Batsim's --sched-cfg decides
        // (the keys the flags leave to it).
        let from_sched = EngineOptions {
            policy: from_batsim.policy.filter(|_| flags.policy.is_none()),
            scheduling: from_batsim.scheduling.filter(|_| flags.scheduling.is_none()),
            maintenance: from_batsim
                .maintenance
                .clone()
                .filter(|_| flags.maintenance.is_none()),
            ..EngineOptions::default()
        };
        let options = flags.clone().or(from_batsim);
        let procs =
            u32::try_from(begins.compute_resources.len()).map_err(|_| BeginError::TooManyResources)?;
        let mut config = options.to_config(procs).map_err(BeginError::Options)?;
        if !begins.dynamic_jobs_enabled {
            if self.config.inject.is_some() {
                return Err(BeginError::InjectionNeedsDynamicJobs);
            }
            // A killed Batsim job cannot be executed again: without dynamic
            // jobs there is no way to resubmit, so evictions are final.
            config.lifecycle.max_resubmissions = 0;
        }
        if let Some(inject) = &self.config.inject {
            inject.validate().map_err(BeginError::Injection)?;
        }
        if let Some(order) = &self.config.victim_order {
            let given = [
                (OptionSource::Flags, flags),
                (OptionSource::SchedConfig, &from_sched),
            ];
            order
                .apply(&mut config, &given)
                .map_err(BeginError::VictimOrder)?;
        }
        let engine = Engine::new(config).map_err(BeginError::Engine)?;
        let identity_resources = begins
            .compute_resources
            .iter()
            .enumerate()
            .all(|(i, &r)| i as u32 == r);
        let workload_name = begins
            .workloads
            .first()
            .map_or_else(|| DYNAMIC_WORKLOAD.to_string(), |(name, _)| name.clone());
        Ok(Running {
            driver: Driver::new(engine),
            resources: begins.compute_resources.clone(),
            identity_resources,
            dynamic_jobs: begins.dynamic_jobs_enabled,
            workload_name,
            profiles: begins.profiles.clone(),
            by_batsim: HashMap::new(),
            entries: HashMap::new(),
            used_ids: HashSet::new(),
            next_synthetic: SYNTHETIC_ID_BASE,
            expected_ends: BTreeSet::new(),
            arrivals: Vec::new(),
            latency: Time::ZERO,
            killing: HashMap::new(),
            held: Vec::new(),
            requested_calls: BTreeSet::new(),
            static_done: false,
            registration_finished: false,
            starts: 0,
            schedule_time: std::time::Duration::ZERO,
            inject: self.config.inject.clone(),
            injector: self
                .config
                .inject
                .as_ref()
                .and_then(|inject| Some(inject.injector(inject.start?))),
            clock: Time::from_secs_f64(now).max(Time::ZERO),
            last_now: now,
            classes: self.config.victim_order.as_ref().map(Classes::new),
        })
    }
}

/// The entry of the job the engine `decided` about (`evicted`, …), which
/// must be in state `expected` when one is given.
fn decided_entry<'e>(
    entries: &'e mut HashMap<JobId, Entry>,
    id: JobId,
    decided: &'static str,
    expected: Option<Tracked>,
) -> Result<&'e mut Entry, JobError> {
    let entry = entries
        .get_mut(&id)
        .ok_or(JobError::UnknownDecided { decided, id })?;
    match expected {
        Some(state) if entry.state != state => Err(JobError::WrongState {
            decided,
            job: entry.batsim_id.clone(),
            expected: state.name(),
        }),
        _ => Ok(entry),
    }
}

/// The engine refused an event about Batsim job `batsim_id`.
fn engine_error(batsim_id: &str, error: EngineError) -> JobError {
    JobError::Engine {
        job: batsim_id.to_string(),
        error,
    }
}

/// Sort key of a Batsim job id: workload, then the job number when numeric, then the text.
fn job_order_key(batsim_id: &str) -> (&str, u64, &str) {
    let (workload, name) = batsim_id.split_once('!').unwrap_or(("", batsim_id));
    (workload, name.parse::<u64>().unwrap_or(u64::MAX), name)
}

impl Running {
    /// Submit the waiting arrivals, in a canonical order (time, then
    /// workload and job number: Batsim sorts same-time jobs by id as text).
    fn apply_arrivals(&mut self, reply: &mut Vec<Outgoing>) -> Result<(), SessionError> {
        let mut arrivals = std::mem::take(&mut self.arrivals);
        arrivals.sort_by(|a, b| {
            a.at.cmp(&b.at)
                .then_with(|| job_order_key(&a.submitted.job_id).cmp(&job_order_key(&b.submitted.job_id)))
        });
        for arrival in arrivals {
            self.job_submitted(&arrival.submitted, arrival.at, reply)
                .map_err(|problem| SessionError::Event {
                    index: arrival.index,
                    event_type: "JOB_SUBMITTED",
                    problem,
                })?;
        }
        Ok(())
    }

    /// Batsim's names of every job's last run, for `jobs.csv`.
    fn batsim_names(&self) -> HashMap<JobId, BatsimNames> {
        self.entries
            .iter()
            .map(|(&id, entry)| {
                let (workload, job) = entry.batsim_id.split_once('!').unwrap_or(("", &entry.batsim_id));
                let profile = entry.description.get("profile").and_then(Value::as_str);
                let names = BatsimNames {
                    job: job.to_string(),
                    workload: workload.to_string(),
                    profile: profile.unwrap_or_default().to_string(),
                };
                (id, names)
            })
            .collect()
    }

    fn engine_time(&mut self, at: Time) -> Time {
        self.clock = self.clock.max(at);
        self.clock
    }

    fn alloc_string(&self, procs: &ProcSet) -> String {
        if self.identity_resources {
            procs.to_string()
        } else {
            ProcSet::from_ids(procs.iter().map(|p| self.resources[p as usize])).to_string()
        }
    }

    fn new_engine_id(&mut self, batsim_id: &str) -> JobId {
        if let Some((workload, name)) = batsim_id.split_once('!') {
            if self.workload_name == workload {
                if let Ok(number) = name.parse::<u64>() {
                    if number < SYNTHETIC_ID_BASE && self.used_ids.insert(number) {
                        return JobId(number);
                    }
                }
            }
        }
        loop {
            let id = self.next_synthetic;
            self.next_synthetic += 1;
            if self.used_ids.insert(id) {
                return JobId(id);
            }
        }
    }

    fn profile_delay(&self, workload: &str, profile: &str) -> Option<Time> {
        let profile = Profile::from_value(self.profiles.get(workload)?.get(profile)?)?;
        profile.delay_secs().map(Time::from_secs_f64)
    }

    fn job_submitted(
        &mut self,
        submitted: &JobSubmitted,
        at: Time,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), JobError> {
        let batsim_id = &submitted.job_id;
        if let Some(id) = self.by_batsim.get(batsim_id) {
            // The acknowledgement of a job the adapter registered itself.
            if self
                .entries
                .get(id)
                .is_some_and(|e| e.workload == DYNAMIC_WORKLOAD || e.registrations > 0)
            {
                return Ok(());
            }
            return Err(JobError::AlreadySubmitted(batsim_id.clone()));
        }
        let job = &submitted.job;
        let description = JobDescription::from_object(job).map_err(JobError::Field)?;
        let procs = u32::try_from(description.res as u64)
            .ok()
            .filter(|_| description.res >= 0.0 && description.res.fract() == 0.0)
            .ok_or(JobError::Res(description.res))?;
        let workload = batsim_id.split_once('!').map_or("", |(w, _)| w).to_string();
        let runtime = self.profile_delay(&workload, &description.profile);
        let (walltime, walltime_enforced) = match description.walltime_secs() {
            Some(secs) => (Time::from_secs_f64(secs), true),
            // Batsim's convention: missing or -1 = no walltime; plan with the
            // delay when known (as `interstice replay` reads such a workload).
            None => (runtime.unwrap_or(Time::INFINITY), false),
        };
        let kind = description.job_kind().map_err(JobError::Field)?;
        if let Some(alpha) = description
            .alpha()
            .map_err(JobError::Field)?
            .filter(|&alpha| alpha != 1.0)
        {
            return Err(JobError::Alpha {
                job: batsim_id.clone(),
                alpha,
            });
        }
        let slo = description.slo();
        // Labels matter only to a victim order (a run without one ignores them).
        let label = match &self.classes {
            Some(_) => Some(description.label().map_err(JobError::Field)?),
            None => None,
        };
        let id = self.new_engine_id(batsim_id);
        let submit = self.engine_time(at);
        if self.injector.is_none() {
            // Injection starts with the first static submission.
            self.injector = self.inject.as_ref().map(|inject| inject.injector(submit));
        }
        let engine_job = Job {
            id,
            submit,
            walltime,
            walltime_enforced,
            runtime,
            procs,
            kind,
            slo,
        };
        self.by_batsim.insert(batsim_id.clone(), id);
        let entry = Entry::waiting(batsim_id.clone(), job.clone(), workload);
        self.submit_to_engine(engine_job, entry, label.as_ref(), reply)?;
        Ok(())
    }

    /// Queue a job in the engine and track it. A job that can never run here
    /// (more processors than the platform or the area) is rejected instead of
    /// being left queued forever. Under a victim order a cloud job gets its
    /// class and tenant (`label`'s, else drawn), and the running cloud jobs
    /// are ranked first: the submission may bring the plan up to date.
    fn submit_to_engine(
        &mut self,
        job: Job,
        mut entry: Entry,
        label: Option<&JobLabel>,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), JobError> {
        let id = job.id;
        if let (Some(classes), JobKind::Cloud) = (&mut self.classes, job.kind) {
            let class = classes
                .classify(job.submit, job.procs, label)
                .map_err(|error| JobError::Label {
                    job: entry.batsim_id.clone(),
                    error: Box::new(error),
                })?;
            entry.class = Some(class);
            self.rank_victims();
        }
        // How long Batsim runs it at most: its `delay` against its walltime,
        // or, for another profile, its walltime when Batsim enforces it.
        entry.run_length = match job.runtime {
            Some(_) => crate::sim::run_length(&job).ok().map(|(length, _)| length),
            None if job.walltime_enforced && !job.walltime.is_infinite() => Some(job.walltime),
            None => None,
        };
        match self.driver.submit(job) {
            Ok(_verdict) => {}
            Err(EngineError::Unschedulable { .. }) => {
                entry.state = Tracked::Done;
                reply.push(Outgoing::RejectJob {
                    job_id: entry.batsim_id.clone(),
                });
            }
            Err(error) => {
                return Err(JobError::Refused {
                    job: entry.batsim_id,
                    error,
                })
            }
        }
        self.entries.insert(id, entry);
        Ok(())
    }

    /// Rank the running cloud jobs by the victim order at the engine's
    /// time (nothing without one).
    fn rank_victims(&mut self) {
        let Some(classes) = &self.classes else {
            return;
        };
        let entries = &self.entries;
        classes.rank(&mut self.driver, self.clock, |id| entries.get(&id)?.class);
    }

    /// When the job's current run started, relative to the others (unknown jobs last).
    fn start_order(&self, batsim_id: &str) -> u64 {
        self.by_batsim
            .get(batsim_id)
            .and_then(|id| self.entries.get(id))
            .map_or(u64::MAX, |e| e.start_order)
    }

    fn lookup(&self, batsim_id: &str) -> Result<JobId, JobError> {
        self.by_batsim
            .get(batsim_id)
            .copied()
            .ok_or_else(|| JobError::Unknown(batsim_id.to_string()))
    }

    fn job_completed(&mut self, completed: &JobCompleted, at: Time) -> Result<(), JobError> {
        let batsim_id = &completed.job_id;
        let id = self.lookup(batsim_id)?;
        // An end reported just after its expected time happened at that time
        // (SimGrid's clock rounding).
        let expected = self.entries.get(&id).and_then(|e| e.expected_end);
        let at = match expected {
            Some(end) if end <= at && at <= end + CLOCK_ROUNDING => end,
            _ => at,
        };
        if self.killing.contains_key(batsim_id) {
            // The kill's outcome: `COMPLETED_KILLED`, or the job's own end
            // when it ended before the kill reached it (then the eviction
            // was moot). `JOB_KILLED` follows.
            let reason = match completed.state {
                FinalState::Successful | FinalState::Failed => EndReason::Completed,
                FinalState::WalltimeReached => EndReason::WalltimeReached,
                FinalState::Killed | FinalState::Rejected => EndReason::Evicted,
            };
            let at = self.engine_time(at);
            return self.report_kill(batsim_id, at, reason);
        }
        let entry = self.entries.get(&id).expect("entry of a known id");
        if entry.batsim_id != *batsim_id {
            return Err(JobError::Resubmitted {
                job: batsim_id.clone(),
                current: entry.batsim_id.clone(),
            });
        }
        if self.held.iter().any(|h| h.batsim_id == *batsim_id) {
            return Err(JobError::CompletedWhileHeld(batsim_id.clone()));
        }
        let state = entry.state;
        let at = self.engine_time(at);
        let reason = match completed.state {
            FinalState::Successful | FinalState::Failed => EndReason::Completed,
            FinalState::WalltimeReached => EndReason::WalltimeReached,
            FinalState::Killed | FinalState::Rejected => EndReason::Killed,
        };
        match state {
            Tracked::Running => {
                self.driver
                    .job_ended(id, at, reason)
                    .map_err(|error| engine_error(batsim_id, error))?;
            }
            Tracked::Waiting if completed.state == FinalState::Rejected => {
                self.driver
                    .cancel(id, at)
                    .map_err(|error| engine_error(batsim_id, error))?;
            }
            Tracked::Waiting => {
                return Err(JobError::NeverStarted {
                    job: batsim_id.clone(),
                    state: completed.state,
                })
            }
            Tracked::Done => return Err(JobError::AlreadyEnded(batsim_id.clone())),
        }
        let entry = self.entries.get_mut(&id).expect("entry");
        entry.state = Tracked::Done;
        if let Some(end) = entry.expected_end.take() {
            self.expected_ends.remove(&(end, id));
        }
        Ok(())
    }

    /// Tell the engine how a job the adapter asked Batsim to kill ended
    /// (once): evicted, and re-queued if its lifecycle allows, or ended on
    /// its own before the kill.
    fn report_kill(&mut self, batsim_id: &str, at: Time, reason: EndReason) -> Result<(), JobError> {
        let Some(kill) = self.killing.get_mut(batsim_id) else {
            return Ok(());
        };
        if std::mem::replace(&mut kill.reported, true) {
            return Ok(());
        }
        let id = kill.id;
        self.driver
            .job_ended(id, at, reason)
            .map_err(|error| engine_error(batsim_id, error))?;
        if matches!(self.driver.engine().job_state(id), Some(JobState::Queued { .. })) {
            let entry = self.entries.get_mut(&id).expect("entry of a killed job");
            entry.state = Tracked::Waiting;
            entry.needs_registration = true;
        }
        Ok(())
    }

    fn job_killed(
        &mut self,
        job_ids: &[String],
        at: Time,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), JobError> {
        for batsim_id in job_ids {
            self.lookup(batsim_id)?;
            if !self.killing.contains_key(batsim_id) {
                return Err(JobError::NotKilling(batsim_id.clone()));
            }
            let at = self.engine_time(at);
            self.report_kill(batsim_id, at, EndReason::Evicted)?;
            self.killing.remove(batsim_id);
            for held in &mut self.held {
                held.waiting_for.remove(batsim_id);
            }
        }
        let (ready, still): (Vec<HeldStart>, Vec<HeldStart>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|h| h.waiting_for.is_empty());
        self.held = still;
        for held in ready {
            reply.push(Outgoing::ExecuteJob {
                job_id: held.batsim_id,
                alloc: held.alloc,
            });
        }
        Ok(())
    }

    /// Register a job in the dynamic workload with a profile of its own,
    /// named as the job: without `--enable-profile-reuse`, Batsim discards a
    /// dynamic profile once its job is gone, so profiles are never shared.
    /// Returns the job's description as registered.
    fn register_job(
        &mut self,
        name: &str,
        profile: Value,
        mut description: Map<String, Value>,
        reply: &mut Vec<Outgoing>,
    ) -> Map<String, Value> {
        let job_id = format!("{DYNAMIC_WORKLOAD}!{name}");
        reply.push(Outgoing::RegisterProfile {
            workload_name: DYNAMIC_WORKLOAD.into(),
            profile_name: name.to_string(),
            profile,
        });
        description.insert("id".into(), json!(job_id));
        description.insert("profile".into(), json!(name));
        reply.push(Outgoing::RegisterJob {
            job_id,
            job: Value::Object(description.clone()),
        });
        description
    }

    fn register_resubmission(&mut self, id: JobId, reply: &mut Vec<Outgoing>) -> Result<(), JobError> {
        let entry = self.entries.get(&id).expect("entry").clone();
        let profile_name = entry
            .description
            .get("profile")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let profile = entry
            .dynamic_profile
            .clone()
            .or_else(|| self.profiles.get(&entry.workload)?.get(&profile_name).cloned())
            .ok_or_else(|| JobError::UnknownProfile {
                job: entry.batsim_id.clone(),
                profile: profile_name.clone(),
            })?;
        let registrations = entry.registrations + 1;
        let original = entry
            .description
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or(&entry.batsim_id);
        let base = original.split('-').next().unwrap_or(original).replace('!', "_");
        let name = format!("{base}-r{registrations}");
        let mut description = entry.description.clone();
        description.insert("subtime".into(), json!(self.clock.as_secs_f64()));
        self.register_job(&name, profile.clone(), description, reply);
        let new_id = format!("{DYNAMIC_WORKLOAD}!{name}");
        self.by_batsim.insert(new_id.clone(), id);
        let entry = self.entries.get_mut(&id).expect("entry");
        entry.dynamic_profile = Some(profile);
        entry.batsim_id = new_id;
        entry.description.insert("profile".into(), json!(name));
        entry.workload = DYNAMIC_WORKLOAD.into();
        entry.registrations = registrations;
        entry.needs_registration = false;
        Ok(())
    }

    fn apply(&mut self, decisions: Vec<Decision>, reply: &mut Vec<Outgoing>) -> Result<(), JobError> {
        let mut kills = Vec::new();
        let mut starts = Vec::new();
        for decision in decisions {
            match decision {
                Decision::Evict { id } => {
                    let entry = decided_entry(&mut self.entries, id, "evicted", Some(Tracked::Running))?;
                    let batsim_id = entry.batsim_id.clone();
                    let procs = entry.procs.take().unwrap_or_default();
                    entry.state = Tracked::Done;
                    if let Some(end) = entry.expected_end.take() {
                        self.expected_ends.remove(&(end, id));
                    }
                    let kill = Kill {
                        id,
                        procs,
                        reported: false,
                    };
                    self.killing.insert(batsim_id.clone(), kill);
                    if let Some(pos) = self.held.iter().position(|h| h.batsim_id == batsim_id) {
                        // Never executed in Batsim: nothing to kill there.
                        self.held.remove(pos);
                        let clock = self.clock;
                        self.report_kill(&batsim_id, clock, EndReason::Evicted)?;
                        self.killing.remove(&batsim_id);
                    } else {
                        // The engine learns the kill's outcome from Batsim.
                        kills.push(batsim_id.clone());
                    }
                }
                Decision::Start { id, procs } => {
                    if self.entries.get(&id).is_some_and(|e| e.needs_registration) {
                        self.register_resubmission(id, reply)?;
                    }
                    let alloc = self.alloc_string(&procs);
                    let entry = decided_entry(&mut self.entries, id, "started", Some(Tracked::Waiting))?;
                    entry.state = Tracked::Running;
                    entry.procs = Some(procs.clone());
                    entry.expected_end = entry.run_length.map(|length| self.clock + length);
                    if let Some(end) = entry.expected_end {
                        self.expected_ends.insert((end, id));
                    }
                    entry.start_order = self.starts;
                    self.starts += 1;
                    let batsim_id = entry.batsim_id.clone();
                    let waiting_for: HashSet<String> = self
                        .killing
                        .iter()
                        .filter(|(_, kill)| kill.procs.intersects(&procs))
                        .map(|(kill_id, _)| kill_id.clone())
                        .collect();
                    if waiting_for.is_empty() {
                        starts.push(Outgoing::ExecuteJob {
                            job_id: batsim_id,
                            alloc,
                        });
                    } else {
                        self.held.push(HeldStart {
                            batsim_id,
                            alloc,
                            waiting_for,
                        });
                    }
                }
                Decision::Reject { id, .. } => {
                    let entry = decided_entry(&mut self.entries, id, "rejected", None)?;
                    entry.state = Tracked::Done;
                    // A re-queued evicted job has no live Batsim job to reject.
                    if !entry.needs_registration {
                        starts.push(Outgoing::RejectJob {
                            job_id: entry.batsim_id.clone(),
                        });
                    }
                    entry.needs_registration = false;
                }
            }
        }
        if !kills.is_empty() {
            reply.push(Outgoing::KillJob { job_ids: kills });
        }
        reply.extend(starts);
        Ok(())
    }

    /// The time of the next cloud job, until Batsim has no more static jobs.
    fn pending_injection(&self) -> Option<Time> {
        if self.static_done {
            return None;
        }
        self.injector.as_ref()?.next_submit()
    }

    /// Register and submit the cloud jobs due by `now`, pulled from swf's
    /// injector: cloud job `k` is `interstice!cloud<k>`.
    fn inject_due(&mut self, now: Time, reply: &mut Vec<Outgoing>) -> Result<(), JobError> {
        while self.pending_injection().is_some_and(|t| t <= now) {
            let Some(cloud) = self.injector.as_mut().and_then(Iterator::next) else {
                break;
            };
            let name = format!("cloud{}", cloud.id.0);
            let batsim_id = format!("{DYNAMIC_WORKLOAD}!{name}");
            let runtime = cloud.runtime.unwrap_or(cloud.walltime);
            let profile = json!({"type": "delay", "delay": runtime.as_secs_f64()});
            let slo = cloud.slo.unwrap_or(Time::INFINITY);
            let submit = self.engine_time(cloud.submit);
            let description = json!({
                "subtime": submit.as_secs_f64(), "walltime": cloud.walltime.as_secs_f64(),
                "res": cloud.procs, "kind": "cloud", "slo": slo.as_secs_f64(),
            });
            let description = description.as_object().cloned().unwrap_or_default();
            let description = self.register_job(&name, profile.clone(), description, reply);
            let id = self.new_engine_id(&batsim_id);
            self.by_batsim.insert(batsim_id.clone(), id);
            let job = Job { id, submit, ..cloud };
            let mut entry = Entry::waiting(batsim_id, description, DYNAMIC_WORKLOAD.into());
            entry.dynamic_profile = Some(profile);
            self.submit_to_engine(job, entry, None, reply)?;
        }
        Ok(())
    }

    /// No registration can be needed any more: static jobs are all in, no
    /// injection is pending and no evicted job may come back.
    fn registrations_over(&self) -> bool {
        if !self.static_done || !self.killing.is_empty() || !self.held.is_empty() {
            return false;
        }
        if self.pending_injection().is_some() {
            return false;
        }
        if self.entries.values().any(|e| e.needs_registration) {
            return false;
        }
        let engine = self.driver.engine();
        engine.config().lifecycle.max_resubmissions == 0 || engine.running(JobKind::Cloud) == 0
    }
}
