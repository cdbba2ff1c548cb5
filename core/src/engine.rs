//! The engine's public face: configuration, the event API the shells drive,
//! decisions, predictions and idle slots.
//!
//! A shell (built-in simulator, Batsim adapter, daemon) owns the clock and
//! drives the engine like this:
//!
//! 1. apply every event of one timestamp: [`Engine::job_ended`] for
//!    completions first, then [`Engine::submit`] for arrivals;
//! 2. call [`Engine::schedule`] once and carry out the decisions it returns
//!    (evictions before starts);
//! 3. wake up again at the next event, or at [`Engine::next_wakeup`] if that is
//!    earlier (nothing else will happen until then otherwise).

use crate::job::{Job, JobId, JobKind};
use crate::procset::ProcSet;
use crate::time::Time;
use std::fmt;

/// A scheduling policy, chosen by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Start jobs strictly in queue order.
    Fcfs,
    /// EASY backfilling: only the queue head holds a reservation.
    Easy,
    /// Conservative backfilling: every queued job holds a reservation.
    Conservative,
    /// The thesis's three-stage convergence-area scheduler.
    Convergence,
}

impl Policy {
    /// Every policy, in documentation order.
    pub const ALL: [Policy; 4] = [Policy::Fcfs, Policy::Easy, Policy::Conservative, Policy::Convergence];

    /// The policy's name on command lines and in configs.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Fcfs => "fcfs",
            Policy::Easy => "easy",
            Policy::Conservative => "conservative",
            Policy::Convergence => "convergence",
        }
    }
}

impl std::str::FromStr for Policy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Policy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown policy {s:?}: expected one of fcfs, easy, conservative, convergence"))
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What happens to a cloud job whose SLO is predicted to be violated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Admission {
    /// Place every cloud job; only record the prediction (the thesis's experiments).
    AdmitAll,
    /// Reject a predicted violation with an SLO counter-offer.
    RejectPredicted,
}

impl Admission {
    /// The mode's name on command lines and in configs.
    pub fn name(self) -> &'static str {
        match self {
            Admission::AdmitAll => "admit-all",
            Admission::RejectPredicted => "reject-predicted",
        }
    }
}

impl std::str::FromStr for Admission {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "admit-all" => Ok(Admission::AdmitAll),
            "reject-predicted" => Ok(Admission::RejectPredicted),
            other => Err(format!("unknown admission mode {other:?}: expected admit-all or reject-predicted")),
        }
    }
}

/// Bounds on an evicted cloud job's resubmissions (the L8 evaluator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifecycle {
    /// Maximum number of resubmissions after evictions (0 = an evicted job fails).
    pub max_resubmissions: u32,
    /// Maximum time from first arrival after which an evicted job is not resubmitted.
    pub max_time_in_system: Option<Time>,
}

/// Everything the engine needs to know before the first event.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    /// Processors `0..procs`.
    pub procs: u32,
    /// The convergence area is processors `0..conv_procs` (≤ `procs`).
    pub conv_procs: u32,
    /// Scheduling policy.
    pub policy: Policy,
    /// Admission mode for cloud jobs.
    pub admission: Admission,
    /// Overbooking risk factor λ of `F^C` (1.0 = no overbooking).
    pub lambda: f64,
    /// Counter-offer factor τ of `F^SLO` (1.0 by default).
    pub tau: f64,
    /// Resubmission bounds for evicted cloud jobs.
    pub lifecycle: Lifecycle,
}

impl EngineConfig {
    /// A config for `procs` processors, all in the area, admit-all, λ = τ = 1,
    /// no resubmission.
    pub fn new(procs: u32, policy: Policy) -> EngineConfig {
        EngineConfig {
            procs,
            conv_procs: procs,
            policy,
            admission: Admission::AdmitAll,
            lambda: 1.0,
            tau: 1.0,
            lifecycle: Lifecycle { max_resubmissions: 0, max_time_in_system: None },
        }
    }
}

/// Errors the engine reports instead of panicking.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EngineError {
    /// The configuration is inconsistent; the message says which field and why.
    InvalidConfig(String),
    /// A job id was submitted twice.
    DuplicateJob(JobId),
    /// An event names a job the engine does not know (or that already ended).
    UnknownJob(JobId),
    /// A job can never run: more processors than exist (or than the area, for cloud jobs), or zero.
    Unschedulable {
        /// The job.
        id: JobId,
        /// Why.
        reason: String,
    },
    /// Time went backwards.
    TimeWentBackwards {
        /// The engine's current time.
        now: Time,
        /// The time passed in.
        given: Time,
    },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::InvalidConfig(msg) => write!(f, "invalid engine config: {msg}"),
            EngineError::DuplicateJob(id) => write!(f, "job {id} was submitted twice"),
            EngineError::UnknownJob(id) => write!(f, "job {id} is not known to the engine (or already ended)"),
            EngineError::Unschedulable { id, reason } => write!(f, "job {id} can never run: {reason}"),
            EngineError::TimeWentBackwards { now, given } => {
                write!(f, "time went backwards: engine is at {now}, event at {given}")
            }
        }
    }
}

impl std::error::Error for EngineError {}

/// A decision returned by [`Engine::schedule`]. The shell carries them out in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Start the job now on exactly these processors.
    Start {
        /// The job.
        id: JobId,
        /// Its processors (`len() == procs`).
        procs: ProcSet,
    },
    /// Kill this running cloud job now: HPC work needs its processors. The
    /// engine already counts its processors as free; the shell reports the
    /// kill with [`Engine::job_ended`] with [`EndReason::Evicted`] when done.
    /// If the lifecycle allows, the engine re-queues the job itself (same id).
    Evict {
        /// The cloud job.
        id: JobId,
    },
    /// The cloud job is refused (predicted SLO violation in `reject-predicted` mode).
    Reject {
        /// The job.
        id: JobId,
        /// `F^SLO`: an SLO (seconds from arrival) the plan can meet, if any.
        counter_offer_slo: Option<Time>,
    },
}

/// Why a running job stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// It finished on its own (success or failure of the job itself).
    Completed,
    /// It was killed at its walltime.
    WalltimeReached,
    /// It was killed because the engine evicted it.
    Evicted,
    /// It was killed or cancelled from outside (user, admin).
    Killed,
}

/// The admission step's prediction for a cloud job (Algorithm 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// `F^σ`: predicted start, `None` = ∞ (no slot in sight).
    pub start: Option<Time>,
    /// `F^C`: predicted completion, `None` = ∞.
    pub completion: Option<Time>,
    /// `F^V = C' − (a + SLO)` in seconds: negative is slack, positive a predicted violation.
    /// `None` when the completion is ∞ or the job has no SLO.
    pub violation_seconds: Option<f64>,
    /// True if a violation is predicted (`F^V ≥ 0`... strictly: `C' > a + SLO`, or ∞).
    pub predicts_violation: bool,
    /// `F^SLO = (C' − a) · τ`: the SLO that can be offered; `None` when ∞.
    pub counter_offer_slo: Option<Time>,
}

/// A processor idle now, with how long it stays idle (`W_immediate`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImmediateSlot {
    /// The processor.
    pub proc: u32,
    /// Until when it stays idle ([`Time::INFINITY`] = nothing planned on it).
    pub idle_until: Time,
}

/// A hole between or after reservations (`W_future`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FutureSlot {
    /// Start of the hole.
    pub start: Time,
    /// End of the hole ([`Time::INFINITY`] after the last reservation).
    pub end: Time,
    /// Processors idle over the whole `[start, end)`.
    pub procs: ProcSet,
}

/// The idle slots of the convergence area at one instant.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Slots {
    /// `W_immediate`.
    pub immediate: Vec<ImmediateSlot>,
    /// `W_future`, sorted by start.
    pub future: Vec<FutureSlot>,
}

/// Where a job is in its life, as the engine knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobState {
    /// Waiting in the queue; `planned_start` is its reservation, if the policy gives one.
    Queued {
        /// Reserved start (conservative/convergence; the head under EASY).
        planned_start: Option<Time>,
    },
    /// Running since `start` on `procs`.
    Running {
        /// Start time.
        start: Time,
        /// Processors.
        procs: ProcSet,
    },
    /// Ended (completed, killed, evicted without resubmission).
    Ended,
    /// Rejected at admission.
    Rejected,
}

/// The scheduling engine. Deterministic: the same calls give the same decisions.
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
}

impl Engine {
    /// Check the config and build an empty engine at time zero.
    pub fn new(config: EngineConfig) -> Result<Engine, EngineError> {
        todo!("core helper")
    }

    /// The config the engine was built with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// A job arrives at `job.submit` (which becomes the engine's time). Cloud
    /// jobs get their prediction computed on the current plan and returned
    /// (also kept in the job's record). The job is decided on at the next
    /// [`Engine::schedule`].
    pub fn submit(&mut self, job: Job) -> Result<Option<Prediction>, EngineError> {
        todo!("core helper")
    }

    /// A running job stopped at `now` (possibly before its walltime).
    pub fn job_ended(&mut self, id: JobId, now: Time, reason: EndReason) -> Result<(), EngineError> {
        todo!("core helper")
    }

    /// A queued job is withdrawn (cancelled by its owner) at `now`.
    pub fn cancel(&mut self, id: JobId, now: Time) -> Result<(), EngineError> {
        todo!("core helper")
    }

    /// One scheduling pass at `now`: the decisions to carry out, evictions first.
    pub fn schedule(&mut self, now: Time) -> Vec<Decision> {
        todo!("core helper")
    }

    /// The earliest future time at which `schedule` would decide something even
    /// if no job ends or arrives (e.g. a reservation that starts on a
    /// processor freed only by a walltime). `None` if nothing is pending.
    pub fn next_wakeup(&self) -> Option<Time> {
        todo!("core helper")
    }

    /// What admission would predict for a cloud job of this shape arriving at
    /// `now`, without submitting anything.
    pub fn predict(&self, procs: u32, walltime: Time, slo: Option<Time>, now: Time) -> Prediction {
        todo!("core helper")
    }

    /// `W_immediate` and `W_future` of the convergence area at `now`.
    pub fn slots(&self, now: Time) -> Slots {
        todo!("core helper")
    }

    /// Where a job stands.
    pub fn job_state(&self, id: JobId) -> Option<JobState> {
        todo!("core helper")
    }

    /// Every job's record so far (submitted, started, ended, predicted,
    /// evicted), in submission order; feed it to [`crate::metrics::Summary::compute`].
    pub fn records(&self) -> &[crate::metrics::JobRecord] {
        todo!("core helper")
    }

    /// Number of queued jobs of a kind.
    pub fn queued(&self, kind: JobKind) -> usize {
        todo!("core helper")
    }

    /// Number of running jobs of a kind.
    pub fn running(&self, kind: JobKind) -> usize {
        todo!("core helper")
    }
}
