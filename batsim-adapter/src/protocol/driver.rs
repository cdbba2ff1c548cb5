//! A tiny Batsim: the REQ side of the protocol, driving any external
//! scheduler through a Batsim workload (JSON) without SimGrid.
//!
//! It behaves like Batsim 4 on a zero-latency platform: it submits each job
//! at its `subtime` (same-time jobs in one message, ordered by id as text, as
//! Batsim does), and when the scheduler executes a job it sends
//! `JOB_COMPLETED` at `start + min(run time, walltime)` with
//! `COMPLETED_SUCCESSFULLY` or `COMPLETED_WALLTIME_REACHED`, with Batsim
//! 4.2.1's rule at equality (see [`RunKind`]): a `delay` job whose delay equals
//! its walltime is killed at the walltime, a `parallel_homogeneous` job whose
//! computation takes exactly its walltime completes. It honours
//! `CALL_ME_LATER` (`REQUESTED_CALL`), `KILL_JOB` (one `JOB_KILLED` in the
//! next message, at the same time; the processors are freed only then),
//! `REJECT_JOB`, and with dynamic jobs `REGISTER_PROFILE`/`REGISTER_JOB`
//! (acknowledged with `JOB_SUBMITTED` if asked) and `NOTIFY
//! registration_finished`. All events of one instant go in one message:
//! completions and kills first, then submissions, calls and notifications.
//!
//! It checks every answer: well-formed JSON, `now` not in the past, no event
//! after `now`, known job ids in the right state, allocations of exactly `res`
//! existing resources that are free (no double booking). A violation is an
//! error naming the message. Run times: `delay` profiles use their delay,
//! `parallel_homogeneous` profiles `cpu / host speed` (communication ignored).
//!
//! It speaks the adapter's own message types ([`super::messages`]: it writes
//! [`Event`]s and reads [`Outgoing`](super::messages::Outgoing)s) and reads
//! workloads with swf's [`JobDescription`](interstice_swf::JobDescription) and
//! [`Profile`].

use super::messages::{Event, EventKind, MessageError, SimulationBegins};
use interstice_core::procset::ParseProcSetError;
use interstice_core::{ProcSet, Time};
use interstice_swf::{JobFieldError, Profile};
use serde_json::{Map, Value};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::time::Duration;

mod events;
mod reply;
mod workload;

/// One job of a Batsim workload.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadJob {
    /// Full Batsim id (`w0!7`).
    pub id: String,
    /// Submission time.
    pub subtime: Time,
    /// Walltime (`None`: none, Batsim's `-1` or missing).
    pub walltime: Option<Time>,
    /// Resources.
    pub res: u32,
    /// Profile name.
    pub profile: String,
    /// The description as sent in `JOB_SUBMITTED` (with the full id).
    pub description: Map<String, Value>,
}

/// A Batsim workload: jobs and profiles.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// Workload id (job ids are `name!…`), `w0` like Batsim's first workload.
    pub name: String,
    /// Path reported in `SIMULATION_BEGINS`.
    pub path: String,
    /// `nb_res` of the file.
    pub nb_res: u32,
    /// Jobs in file order.
    pub jobs: Vec<WorkloadJob>,
    /// Profiles by name.
    pub profiles: Map<String, Value>,
}

/// Why the tiny Batsim stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DriverError {
    /// The workload file is unusable.
    #[error("workload {path}: {problem}")]
    Workload {
        /// The file.
        path: String,
        /// What is wrong.
        problem: WorkloadError,
    },
    /// A ZeroMQ call failed.
    #[error("ZeroMQ error while {action}: {error}")]
    Zmq {
        /// What the driver was doing.
        action: &'static str,
        /// ZeroMQ's error.
        error: zmq::Error,
    },
    /// The scheduler did not answer in time.
    #[error("the scheduler did not answer message {seq} within {seconds} s")]
    Timeout {
        /// The unanswered message.
        seq: u64,
        /// The timeout.
        seconds: f64,
    },
    /// An answer breaks the protocol or the platform's rules.
    #[error("reply to message {seq} (now = {now}): {problem}; reply starts with: {excerpt}")]
    BadReply {
        /// The message answered.
        seq: u64,
        /// Its time.
        now: f64,
        /// What is wrong.
        problem: ReplyError,
        /// The reply's first bytes.
        excerpt: String,
    },
    /// Nothing is running and no call is pending, but jobs still wait for a decision.
    #[error(
        "deadlock at t = {now}: nothing is running and no call is pending, but jobs are still waiting (e.g. \
         {waiting:?})"
    )]
    Deadlock {
        /// When.
        now: f64,
        /// Some of the waiting jobs (at most 5).
        waiting: Vec<String>,
    },
    /// Every job is done, but with dynamic jobs Batsim waits for `registration_finished`.
    #[error(
        "deadlock at t = {now}: every job is done but the scheduler never sent NOTIFY registration_finished \
         (Batsim would wait forever)"
    )]
    NoRegistrationFinished {
        /// When.
        now: f64,
    },
}

/// What is wrong with a workload file (the `problem` of [`DriverError::Workload`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkloadError {
    /// The file cannot be read.
    #[error("cannot read: {0}")]
    Read(std::io::Error),
    /// The file is not JSON.
    #[error("not valid JSON ({0})")]
    NotJson(serde_json::Error),
    /// `nb_res` is missing or not a resource count.
    #[error("nb_res: expected a number of resources")]
    NbRes,
    /// `jobs` is missing or not an array.
    #[error("jobs: expected an array")]
    Jobs,
    /// `jobs[i]` is not an object.
    #[error("jobs[{0}]: expected an object")]
    JobNotObject(usize),
    /// `jobs[i].id` is neither a string nor a number.
    #[error("jobs[{0}].id: expected a string or a number")]
    JobId(usize),
    /// A field of `jobs[i]` cannot be used.
    #[error("jobs[{index}]: {error}")]
    JobField {
        /// Index in `jobs`.
        index: usize,
        /// The field and what is wrong with it.
        error: JobFieldError,
    },
    /// `jobs[i].subtime` is missing, negative or not finite.
    #[error("jobs[{0}].subtime: expected a non-negative number")]
    Subtime(usize),
    /// `jobs[i].res` is missing or not a resource count.
    #[error("jobs[{0}].res: expected a number of resources")]
    Res(usize),
    /// `jobs[i].profile` names no profile of the file.
    #[error("jobs[{index}].profile: no profile named {profile:?}")]
    NoProfile {
        /// Index in `jobs`.
        index: usize,
        /// The profile's name.
        profile: String,
    },
    /// A job's profile cannot be run.
    #[error("job {job}: {error}")]
    Profile {
        /// The job's full id.
        job: String,
        /// What is wrong with its profile.
        error: ProfileError,
    },
    /// Two jobs have the same full id.
    #[error("job id {0} twice")]
    DuplicateJob(String),
}

/// Why the tiny Batsim cannot run a profile.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// The workload has no profile of that name.
    #[error("unknown profile {profile:?} in workload {workload:?}")]
    Unknown {
        /// The profile's name.
        profile: String,
        /// The workload's name.
        workload: String,
    },
    /// A `delay` profile without a usable delay (the profile's name).
    #[error("profile {0:?}: delay must be a non-negative number")]
    Delay(String),
    /// A `parallel_homogeneous` profile without a usable `cpu` (the profile's name).
    #[error("profile {0:?}: cpu must be a non-negative number")]
    Cpu(String),
    /// A profile of another type, or not a profile at all (`kind`: `None`).
    #[error(
        "profile {profile:?} has type {kind:?}: the driver runs delay and parallel_homogeneous profiles"
    )]
    Unsupported {
        /// The profile's name.
        profile: String,
        /// Its `type`.
        kind: Option<String>,
    },
}

/// What is wrong with a scheduler's reply (the `problem` of [`DriverError::BadReply`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplyError {
    /// Not a well-formed reply.
    #[error("{0}")]
    Malformed(MessageError),
    /// The answer to `SIMULATION_ENDS` has events.
    #[error("the reply to SIMULATION_ENDS must have no events")]
    EventsAtEnd,
    /// The reply's `now` is before the message's.
    #[error("`now` {now} is before Batsim's now {batsim_now}")]
    NowInPast {
        /// The reply's `now`.
        now: f64,
        /// The message's.
        batsim_now: Time,
    },
    /// An event after the reply's `now`.
    #[error("events[{index}]: timestamp {at} is after the reply's now {now}")]
    AfterNow {
        /// Index in `events`.
        index: usize,
        /// Its timestamp.
        at: Time,
        /// The reply's `now`.
        now: Time,
    },
    /// `events[i]` is earlier than the event before it.
    #[error("events[{0}]: timestamps are not in ascending order")]
    NotAscending(usize),
    /// One event cannot be carried out.
    #[error("events[{index}] ({event_type}): {problem}")]
    Event {
        /// Index in `events`.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// What is wrong (boxed, to keep `DriverError` small).
        problem: Box<EventError>,
    },
}

/// Why the tiny Batsim cannot carry out one event of a reply.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EventError {
    /// An allocation that is not a resource set.
    #[error("alloc {alloc:?}: {error}")]
    Alloc {
        /// The allocation as sent.
        alloc: String,
        /// Why it does not parse.
        error: ParseProcSetError,
    },
    /// No job has this id.
    #[error("unknown job {0}")]
    UnknownJob(String),
    /// Executing or rejecting a job that is not waiting.
    #[error("job {job} is not waiting (state {state:?})")]
    NotWaiting {
        /// The job.
        job: String,
        /// Its state.
        state: JobState,
    },
    /// Killing a job that is neither running nor done.
    #[error("job {job} is not running (state {state:?})")]
    NotRunning {
        /// The job.
        job: String,
        /// Its state.
        state: JobState,
    },
    /// An allocation of another size than the job's `res`.
    #[error("job {job} needs {res} resources, alloc {alloc:?} has {size}")]
    AllocSize {
        /// The job.
        job: String,
        /// Its `res`.
        res: u32,
        /// The allocation as sent.
        alloc: String,
        /// The allocation's size.
        size: u32,
    },
    /// An allocation beyond the platform.
    #[error("resource {resource} does not exist (the platform has {nb_res})")]
    NoSuchResource {
        /// The resource.
        resource: u32,
        /// The platform's resources.
        nb_res: u32,
    },
    /// An allocation on a resource another job uses.
    #[error("resource {resource} is already used by job {job} (double booking)")]
    DoubleBooking {
        /// The resource.
        resource: u32,
        /// The job using it.
        job: String,
    },
    /// A `CALL_ME_LATER` before `now`.
    #[error("asks to be called at {0}, in the past")]
    CallInPast(Time),
    /// A registration while Batsim runs without dynamic jobs.
    #[error("dynamic jobs are disabled (Batsim's --enable-dynamic-jobs)")]
    DynamicJobsDisabled,
    /// A registration after `registration_finished`.
    #[error("registration_finished was already notified")]
    RegistrationFinished,
    /// A registered job's id without a workload.
    #[error("job id {0:?} is not WORKLOAD!NAME")]
    NotWorkloadName(String),
    /// A registered job's id that is taken.
    #[error("job id {0} is already used")]
    IdUsed(String),
    /// A registered job whose `job` is not an object.
    #[error("missing job object")]
    NoJobObject,
    /// A registered job's field cannot be used.
    #[error("{0}")]
    JobField(JobFieldError),
    /// A registered job's `res` is not a resource count.
    #[error("job.res: expected a number of resources, found {0}")]
    Res(f64),
    /// A registered job's profile cannot be run.
    #[error("{0}")]
    Profile(ProfileError),
    /// A `NOTIFY` of another type than `registration_finished` or `continue_registration`.
    #[error("unknown notification {0:?}")]
    UnknownNotification(String),
}

/// How the tiny Batsim runs.
#[derive(Clone, Debug)]
pub struct DriverConfig {
    /// The scheduler's endpoint to connect to.
    pub endpoint: String,
    /// Compute resources (default: the workload's `nb_res`).
    pub resources: Option<u32>,
    /// Batsim's `--enable-dynamic-jobs`.
    pub dynamic_jobs: bool,
    /// Batsim's `--acknowledge-dynamic-jobs`.
    pub acknowledge_dynamic_jobs: bool,
    /// Batsim's `--sched-cfg` string.
    pub sched_config: String,
    /// Host speed in flop/s, for `parallel_homogeneous` profiles.
    pub host_speed: f64,
    /// Give up when the scheduler does not answer within this time.
    pub timeout: Duration,
}

impl DriverConfig {
    /// Defaults: no dynamic jobs, 1 Gflop/s hosts, 30 s timeout.
    pub fn new(endpoint: impl Into<String>) -> DriverConfig {
        DriverConfig {
            endpoint: endpoint.into(),
            resources: None,
            dynamic_jobs: false,
            acknowledge_dynamic_jobs: false,
            sched_config: String::new(),
            host_speed: 1e9,
            timeout: Duration::from_secs(30),
        }
    }
}

/// One run of a job, as the tiny Batsim carried it out.
#[derive(Clone, Debug, PartialEq)]
pub struct Execution {
    /// Batsim job id.
    pub job_id: String,
    /// When it was submitted (or registered).
    pub submit: Time,
    /// Start.
    pub start: Time,
    /// End (completion or kill).
    pub end: Time,
    /// Resources.
    pub alloc: ProcSet,
    /// Requested resources.
    pub res: u32,
    /// Final state (`COMPLETED_SUCCESSFULLY`, `COMPLETED_WALLTIME_REACHED`, `COMPLETED_KILLED`).
    pub state: &'static str,
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct DriverReport {
    /// Every run, in start order.
    pub executions: Vec<Execution>,
    /// Rejected job ids, in order.
    pub rejected: Vec<String>,
    /// Jobs registered by the scheduler, in order.
    pub registered: Vec<String>,
    /// Messages sent (including `SIMULATION_BEGINS` and `SIMULATION_ENDS`).
    pub messages: u64,
    /// `REQUESTED_CALL`s sent.
    pub requested_calls: u64,
    /// Simulated time of `SIMULATION_ENDS`.
    pub end_time: Time,
    /// Every reply's events, in order, when [`drive_recording`] was used.
    pub replies: Vec<Value>,
}

/// Where a job is in the tiny Batsim (errors about a job in the wrong state show it).
#[derive(Clone, Debug, PartialEq)]
pub enum JobState {
    /// Its `subtime` has not come.
    NotSubmitted,
    /// Submitted (or registered), waiting for the scheduler's decision.
    Submitted,
    /// Executing.
    Running {
        /// Start.
        start: Time,
        /// When it ends (its run time or its walltime).
        end: Time,
        /// Its resources.
        alloc: ProcSet,
        /// The final state it ends with.
        state: &'static str,
    },
    /// Ended or killed.
    Done,
    /// Rejected by the scheduler.
    Rejected,
}

/// How Batsim runs a profile, which decides the outcome when the run time
/// equals the walltime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunKind {
    /// A `delay` profile: Batsim sleeps the delay only if it is strictly below
    /// the walltime, else until the walltime, and reports
    /// `COMPLETED_WALLTIME_REACHED` ([`crate::sim::delay_reaches_walltime`]).
    Delay,
    /// A parallel task (`parallel_homogeneous`): SimGrid waits for it with the
    /// walltime as timeout, and a task that ends exactly at the timeout
    /// completes (Batsim 4.2.1 reports `w0!1010`, 10 s of computation with a
    /// 10 s walltime, `COMPLETED_SUCCESSFULLY`); it is killed only when it
    /// would run longer.
    ParallelTask,
}

impl RunKind {
    /// Batsim's final state and the run's length for this run time and walltime (`None`: no walltime).
    pub fn outcome(self, runtime: Time, walltime: Option<Time>) -> (Time, &'static str) {
        let killed = match (self, walltime) {
            (_, None) => false,
            (RunKind::Delay, Some(walltime)) => crate::sim::delay_reaches_walltime(runtime, walltime),
            (RunKind::ParallelTask, Some(walltime)) => runtime > walltime,
        };
        match walltime {
            Some(walltime) if killed => (walltime, "COMPLETED_WALLTIME_REACHED"),
            _ => (runtime, "COMPLETED_SUCCESSFULLY"),
        }
    }
}

#[derive(Clone, Debug)]
struct SimJob {
    submit: Time,
    walltime: Option<Time>,
    res: u32,
    runtime: Time,
    kind: RunKind,
    description: Map<String, Value>,
    state: JobState,
}

struct Sim<'a> {
    config: &'a DriverConfig,
    nb_res: u32,
    now: Time,
    jobs: HashMap<String, SimJob>,
    static_order: Vec<String>,
    next_static: usize,
    static_notified: bool,
    busy: Vec<Option<String>>,
    ends: BinaryHeap<Reverse<(Time, String)>>,
    calls: BTreeSet<Time>,
    /// Events for the next message at `now` (kill and registration acknowledgements).
    immediate: Vec<Event>,
    /// Resources freed when the next message is sent (kills).
    to_free: Vec<ProcSet>,
    /// workload → profile name → profile.
    profiles: HashMap<String, Map<String, Value>>,
    registration_finished: bool,
    report: DriverReport,
    record_replies: bool,
}

/// Run `workload` against the scheduler at `config.endpoint`.
pub fn drive(workload: &Workload, config: &DriverConfig) -> Result<DriverReport, DriverError> {
    run(workload, config, false)
}

/// [`drive`], keeping every reply in [`DriverReport::replies`].
pub fn drive_recording(workload: &Workload, config: &DriverConfig) -> Result<DriverReport, DriverError> {
    run(workload, config, true)
}

/// Drive one simulation: the workload's static jobs known, connect to the
/// scheduler, `SIMULATION_BEGINS`, then one message per instant until
/// nothing is left to happen.
fn run(
    workload: &Workload,
    config: &DriverConfig,
    record_replies: bool,
) -> Result<DriverReport, DriverError> {
    let mut sim = Sim::new(workload, config, record_replies)?;
    let context = zmq::Context::new();
    let socket = connect(&context, config)?;
    let begins = sim.begins(workload);
    sim.exchange(&socket, vec![begins])?;
    loop {
        let Some(t) = sim.next_time() else {
            return sim.finish(&socket);
        };
        sim.now = sim.now.max(t);
        let events = sim.collect_events();
        sim.exchange(&socket, events)?;
    }
}

/// A REQ socket connected to the scheduler at `config.endpoint`, waiting
/// at most `config.timeout` for each reply.
fn connect(context: &zmq::Context, config: &DriverConfig) -> Result<zmq::Socket, DriverError> {
    let socket = context.socket(zmq::REQ).map_err(|error| DriverError::Zmq {
        action: "creating the socket",
        error,
    })?;
    let timeout_ms = config.timeout.as_millis().clamp(1, i32::MAX as u128) as i32;
    socket
        .set_rcvtimeo(timeout_ms)
        .map_err(|error| DriverError::Zmq {
            action: "setting ZMQ_RCVTIMEO",
            error,
        })?;
    socket.set_linger(0).map_err(|error| DriverError::Zmq {
        action: "setting ZMQ_LINGER",
        error,
    })?;
    socket
        .connect(&config.endpoint)
        .map_err(|error| DriverError::Zmq {
            action: "connecting",
            error,
        })?;
    Ok(socket)
}

impl<'a> Sim<'a> {
    /// A simulation at time 0 on `config.resources` (else the workload's
    /// `nb_res`) resources, with every static job of `workload` known, not
    /// submitted yet, in submission order (time, then id).
    fn new(
        workload: &Workload,
        config: &'a DriverConfig,
        record_replies: bool,
    ) -> Result<Sim<'a>, DriverError> {
        let nb_res = config.resources.unwrap_or(workload.nb_res);
        let mut sim = Sim {
            config,
            nb_res,
            now: Time::ZERO,
            jobs: HashMap::new(),
            static_order: Vec::new(),
            next_static: 0,
            static_notified: false,
            busy: vec![None; nb_res as usize],
            ends: BinaryHeap::new(),
            calls: BTreeSet::new(),
            immediate: Vec::new(),
            to_free: Vec::new(),
            profiles: HashMap::from([(workload.name.clone(), workload.profiles.clone())]),
            registration_finished: false,
            report: DriverReport::default(),
            record_replies,
        };
        for job in &workload.jobs {
            sim.add_static_job(workload, job)?;
        }
        let jobs = &sim.jobs;
        sim.static_order
            .sort_by(|a, b| jobs[a].submit.cmp(&jobs[b].submit).then_with(|| a.cmp(b)));
        Ok(sim)
    }

    /// One job of the workload, its run time from its profile; a job id
    /// used twice is an error.
    fn add_static_job(&mut self, workload: &Workload, job: &WorkloadJob) -> Result<(), DriverError> {
        let (runtime, kind) =
            self.runtime(&workload.name, &job.profile)
                .map_err(|error| DriverError::Workload {
                    path: workload.path.clone(),
                    problem: WorkloadError::Profile {
                        job: job.id.clone(),
                        error,
                    },
                })?;
        let previous = self.jobs.insert(
            job.id.clone(),
            SimJob {
                submit: job.subtime,
                walltime: job.walltime,
                res: job.res,
                runtime,
                kind,
                description: job.description.clone(),
                state: JobState::NotSubmitted,
            },
        );
        if previous.is_some() {
            return Err(DriverError::Workload {
                path: workload.path.clone(),
                problem: WorkloadError::DuplicateJob(job.id.clone()),
            });
        }
        self.static_order.push(job.id.clone());
        Ok(())
    }

    /// `SIMULATION_BEGINS`: the resources, the dynamic-job settings, the
    /// scheduler's config, the workload and its profiles.
    fn begins(&self, workload: &Workload) -> Event {
        Event {
            timestamp: 0.0,
            kind: EventKind::SimulationBegins(SimulationBegins {
                compute_resources: (0..self.nb_res).collect(),
                dynamic_jobs_enabled: self.config.dynamic_jobs,
                dynamic_jobs_acknowledged: self.config.acknowledge_dynamic_jobs,
                sched_config: self.config.sched_config.clone(),
                workloads: vec![(workload.name.clone(), workload.path.clone())],
                profiles: self
                    .profiles
                    .iter()
                    .map(|(name, profiles)| (name.clone(), Value::Object(profiles.clone())))
                    .collect(),
            }),
        }
    }

    /// Nothing is left to happen: with every job done, `SIMULATION_ENDS`
    /// (after `registration_finished`, with dynamic jobs) and the report;
    /// with jobs still waiting, a deadlock naming a few of them.
    fn finish(mut self, socket: &zmq::Socket) -> Result<DriverReport, DriverError> {
        if !self.all_done() {
            let waiting = self
                .jobs
                .iter()
                .filter(|(_, j)| j.state == JobState::Submitted)
                .map(|(id, _)| id.clone())
                .take(5)
                .collect();
            return Err(DriverError::Deadlock {
                now: self.now.as_secs_f64(),
                waiting,
            });
        }
        if self.config.dynamic_jobs && !self.registration_finished {
            return Err(DriverError::NoRegistrationFinished {
                now: self.now.as_secs_f64(),
            });
        }
        let ends = Event {
            timestamp: self.now.as_secs_f64(),
            kind: EventKind::SimulationEnds,
        };
        let events = self.exchange(socket, vec![ends])?;
        if events > 0 {
            return Err(self.bad_reply(ReplyError::EventsAtEnd, ""));
        }
        self.report.end_time = self.now;
        Ok(self.report)
    }
}

/// The run time and run kind of a Batsim profile (`profile_name` only names
/// it in errors): a `delay` profile's delay, or a `parallel_homogeneous`
/// profile's `cpu / host_speed` seconds (communication ignored).
pub fn profile_run(
    profile_name: &str,
    profile: &Value,
    host_speed: f64,
) -> Result<(Time, RunKind), ProfileError> {
    let profile = Profile::from_value(profile);
    match profile.as_ref().map(|p| p.kind.as_str()) {
        Some("delay") => profile
            .and_then(|p| p.delay_secs())
            .map(|delay| (Time::from_secs_f64(delay), RunKind::Delay))
            .ok_or_else(|| ProfileError::Delay(profile_name.to_string())),
        Some("parallel_homogeneous") => profile
            .and_then(|p| p.cpu_flops())
            .map(|cpu| (Time::from_secs_f64(cpu / host_speed), RunKind::ParallelTask))
            .ok_or_else(|| ProfileError::Cpu(profile_name.to_string())),
        other => Err(ProfileError::Unsupported {
            profile: profile_name.to_string(),
            kind: other.map(str::to_string),
        }),
    }
}

impl Sim<'_> {
    fn runtime(&self, workload: &str, profile_name: &str) -> Result<(Time, RunKind), ProfileError> {
        let profile = self
            .profiles
            .get(workload)
            .and_then(|p| p.get(profile_name))
            .ok_or_else(|| ProfileError::Unknown {
                profile: profile_name.to_string(),
                workload: workload.to_string(),
            })?;
        profile_run(profile_name, profile, self.config.host_speed)
    }
}
