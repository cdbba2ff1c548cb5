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

use super::classes::{Classes, VictimOrder, VictimOrderError};
use super::error_text::error_chain;
use super::messages::{FinalState, JobSubmitted, Message, Outgoing};
use super::options::{CloudInjection, EngineOptions, OptionsError};
use crate::output::{self, BatsimNames, Naming, OutputError};
use interstice_core::qos::policy::RunningCloud;
use interstice_core::{Driver, Engine, EngineError, JobId, Livelock, ProcSet, Summary, Time};
use interstice_swf::qos::UnknownName;
use interstice_swf::{CloudJobs, JobFieldError, SwfError};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

mod begin;
mod decisions;
mod ends;
mod passes;
mod registration;
mod submission;

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

    /// Handle one message and build the reply: `SIMULATION_BEGINS` first,
    /// then the message's ends, its arrivals, its calls and notifications;
    /// unless it ends the simulation, the decisions and the wake-ups.
    pub fn handle(&mut self, message: &Message) -> Result<Reply, SessionError> {
        if self.finished {
            return Err(SessionError::AfterEnd);
        }
        self.begin_once(message)?;
        let running = self.running.as_mut().expect("begun");
        running.check_times(message)?;
        running.last_now = message.now;
        let events_before = running.driver.events();
        let now = Time::from_secs_f64(message.now);
        let mut reply = Vec::new();

        // 1. Ends: completions in a canonical order, then kills.
        running.apply_ends(message, &mut reply)?;
        // 2. Arrivals join the arrivals not applied yet (see `decide`).
        running.queue_arrivals(message);
        // 3. Calls and notifications.
        let notices = running.calls_and_notifications(message, now);
        if notices.simulation_ends {
            return self.end();
        }
        // 4. Arrivals, injections and passes, unless an end is still due.
        running.decide(now, events_before, notices.no_more_static_jobs, &mut reply)?;
        // 5. Wake-ups and the end of registrations.
        running.call_me_later(now, &mut reply);
        running.notify_registration_finished(&mut reply);
        Ok(Reply {
            events: reply,
            finished: false,
        })
    }

    /// `SIMULATION_ENDS`: the session is finished, and with an output
    /// directory `jobs.csv` and `summary.json` are written.
    fn end(&mut self) -> Result<Reply, SessionError> {
        self.finished = true;
        if let (Some(dir), Some(running)) = (&self.config.out_dir, &self.running) {
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
        Ok(Reply {
            events: Vec::new(),
            finished: true,
        })
    }
}

/// What a message's notifications say about the simulation.
#[derive(Clone, Copy, Debug, Default)]
struct Notices {
    /// `SIMULATION_ENDS`.
    simulation_ends: bool,
    /// `NOTIFY no_more_static_job_to_submit`.
    no_more_static_jobs: bool,
}

impl Running {
    /// A message's times: its `now` not before the previous message's, and
    /// its events between the previous message and this one.
    fn check_times(&self, message: &Message) -> Result<(), SessionError> {
        if message.now < self.last_now {
            return Err(SessionError::NowBackwards {
                now: message.now,
                previous: self.last_now,
            });
        }
        if let Some((index, event)) = message
            .events
            .iter()
            .enumerate()
            .find(|(_, event)| event.timestamp < self.last_now)
        {
            return Err(SessionError::EventBackwards {
                index,
                timestamp: event.timestamp,
                previous: self.last_now,
            });
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
}
