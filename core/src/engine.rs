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

pub use crate::depth::ReservationDepth;
use crate::job::{Job, JobId, JobKind};
pub use crate::maintenance::Maintenance;
pub use crate::metrics::EndReason;
use crate::placement::{Placement, Weights};
pub use crate::predict::{Beta, Prediction, Predictor, ThesisPrediction};
use crate::procset::ProcSet;
use crate::time::Time;
use std::fmt;

pub use crate::candidate::CandidateRules;
pub use crate::refusal::Refusal;
pub use crate::regulate::Regulation;

mod bound;
mod run;
mod stages;
mod table;

/// A scheduling policy, chosen by name. The queue is ordered by submit time,
/// then job id. The policy decides HPC jobs; cloud jobs always go to their
/// earliest fit in the area's holes (see the crate docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Start jobs strictly in queue order: the head starts when enough
    /// processors are free, nobody passes it. The head's future start is kept
    /// as a reservation only so that cloud work keeps off it.
    Fcfs,
    /// EASY backfilling (Lifka): start jobs from the head while they fit; the
    /// head then gets a reservation at the *shadow time* (the earliest time
    /// enough processors are free, running jobs ending at start + walltime),
    /// `extra` = processors free then minus its need; every other queued job,
    /// in order, starts now if it fits now and either ends by the shadow time
    /// or needs at most `extra` processors (which then shrinks by its size).
    Easy,
    /// Conservative backfilling (Mu'alem & Feitelson): every queued job holds
    /// a reservation at its earliest fit given the jobs before it; a new job
    /// is reserved at its earliest fit without moving others; when a job ends
    /// early (or is cancelled), every waiting job is re-planned in queue
    /// order (compression, which never moves a job later) and those whose
    /// start is now start. (Compression moves a job later only when its
    /// start passed with no pass, or when a job past its walltime still
    /// holds its processors: see [`Engine::overdue`].)
    Conservative,
    /// The thesis's convergence-area scheduler (chapter 5).
    ///
    /// Under [`Scheduling::SharedQueue`] it is Algorithm 3 as written
    /// (§5.3.2; the stages and the few departures the text forces are in
    /// `engine/stages.rs`): each job of the one FCFS queue is placed once, by
    /// stage 1 (idle now, longest idle first), stage 2 (a hole between
    /// planned jobs, roots in processor order) or stage 3 (after the last
    /// planned jobs, processors by earliest end, past maintenance windows);
    /// nothing is re-planned later.
    ///
    /// Under [`Scheduling::HpcFirst`] it is what the thesis's simulator CArS
    /// implements (§6.2.1, Algorithm 4), with HPC work first:
    /// * every job goes to the first idle slot, by earliest start, where it
    ///   fits, over the "negative" of the allocations; processors are chosen
    ///   by stage: idle now, those that stay idle longest first; later, by id;
    /// * as in CArS (and OAR), all planned HPC jobs are re-planned earlier at
    ///   every HPC event (arrival or end), at most once per instant, so that
    ///   cloud traffic cannot change HPC decisions (one round of queue-order
    ///   compression is not a fixpoint); queued cloud reservations are
    ///   re-planned when that moved an HPC reservation (or after an early
    ///   end or a cancellation), never merely because time passed;
    /// * HPC jobs are planned as if cloud jobs were not there and running
    ///   cloud jobs in their way are evicted, so that "no HPC makespan
    ///   change" holds by construction (the thesis queues both in one FCFS
    ///   queue: [`Scheduling::SharedQueue`]).
    Convergence,
    /// The thesis's simulator CArS (§6.2.1, p. 87, and Algorithm 4), a branch
    /// of OAR's batch scheduler: under [`Scheduling::SharedQueue`] only (one
    /// FCFS queue for HPC and cloud jobs, nothing preempted). Every
    /// scheduling session (every pass after an arrival or an end) plans the
    /// queue again from scratch, in queue order: all earlier reservations
    /// are dropped ("todas as aplicações escalonadas anteriormente são
    /// organizadas novamente, a fim de antecipar suas execuções") and each
    /// job takes the first idle slot, by start, that is at least its
    /// walltime long with at least its processors (Algorithm 4), i.e. its
    /// earliest fit given the jobs before it, on the lowest free ids.
    ///
    /// It differs from `conservative` under shared-queue in two ways: that
    /// re-plans only after an early end or a cancellation, and by
    /// compression (each job re-planned while the later ones keep their
    /// reservations, which may hold it back), where CArS re-plans at every
    /// session and from scratch (a job's plan depends only on the running
    /// jobs and the jobs ahead of it). With a bounded
    /// [`EngineConfig::reservation_depth`] only the first `K` are planned
    /// and the rest backfilled.
    Cars,
}

impl Policy {
    /// Can the policy schedule under `scheduling`? Every one can but
    /// [`Policy::Cars`], which is the thesis's one-queue simulator and runs
    /// under [`Scheduling::SharedQueue`] only.
    pub fn allows(self, scheduling: Scheduling) -> bool {
        self != Policy::Cars || scheduling == Scheduling::SharedQueue
    }
}

crate::job::named_options!(Policy, "policy", "one of fcfs, easy, conservative, convergence, cars", {
    Fcfs => "fcfs",
    Easy => "easy",
    Conservative => "conservative",
    Convergence => "convergence",
    Cars => "cars",
});

/// What happens to a cloud job whose SLO is predicted to be violated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Admission {
    /// Place every cloud job; only record the prediction (the thesis's experiments).
    AdmitAll,
    /// Reject a predicted violation with an SLO counter-offer.
    RejectPredicted,
}

crate::job::named_options!(Admission, "admission mode", "admit-all or reject-predicted", {
    AdmitAll => "admit-all",
    RejectPredicted => "reject-predicted",
});

impl Admission {
    /// The admission rule: is a cloud job with this prediction refused?
    /// Under reject-predicted it is when a violation is predicted or, given
    /// a threshold `reject_above`, when the violation probability exceeds it.
    /// ([`Engine::submit`] applies it through [`EngineConfig::rejects`]; a
    /// shell answering a what-if question calls it rather than restating it.)
    pub fn rejects(self, prediction: &Prediction, reject_above: Option<f64>) -> bool {
        self == Admission::RejectPredicted
            && match reject_above {
                Some(threshold) => prediction.probability > threshold,
                None => prediction.predicts_violation,
            }
    }
}

/// How cloud jobs share the convergence area with HPC jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheduling {
    /// HPC work is planned on its own layer as if cloud jobs were not there;
    /// cloud jobs fill the holes and are evicted when HPC work needs their
    /// processors, so cloud work never delays HPC work (the production
    /// default).
    HpcFirst,
    /// The thesis's §5.3.1: HPC and cloud jobs wait in one FCFS queue and are
    /// planned together by the policy (cloud jobs on the area's processors
    /// only); every job is scheduled, violations are accepted and nothing is
    /// preempted, so cloud work can delay HPC work.
    SharedQueue,
}

crate::job::named_options!(Scheduling, "scheduling mode", "hpc-first or shared-queue", {
    HpcFirst => "hpc-first",
    SharedQueue => "shared-queue",
});

/// Bounds on an evicted cloud job's resubmissions (the L8 evaluator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifecycle {
    /// Maximum number of resubmissions after evictions (0 = an evicted job fails).
    pub max_resubmissions: u32,
    /// Maximum time from first arrival after which an evicted job is not resubmitted.
    pub max_time_in_system: Option<Time>,
}

impl Lifecycle {
    /// The L8 evaluator's rule: may a job evicted after `resubmissions`
    /// resubmissions, `in_system` after its first arrival, be resubmitted?
    /// (The engine's own re-queueing and the data center's Algorithm 2 both
    /// ask it.)
    pub fn allows_resubmission(&self, resubmissions: u32, in_system: Time) -> bool {
        resubmissions < self.max_resubmissions && self.max_time_in_system.map_or(true, |m| in_system < m)
    }
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
    /// How cloud jobs share the area with HPC jobs.
    pub scheduling: Scheduling,
    /// How a cloud job's start is predicted at admission.
    pub predictor: Predictor,
    /// `r` and `β` of the thesis's predictor (unused by [`Predictor::Exact`]).
    pub thesis: ThesisPrediction,
    /// Under reject-predicted, refuse a cloud job when its violation
    /// probability exceeds this (in `[0, 1]`) instead of when a violation is
    /// predicted: a site's trade between false alarms and missed violations.
    pub reject_above: Option<f64>,
    /// Maintenance reservations `J_o`: processors no job may use over a
    /// window. Every policy plans around them.
    pub maintenance: Vec<Maintenance>,
    /// Resizes of the convergence area planned ahead (`--area-schedule`),
    /// by time: at each, the engine resizes the area itself, as
    /// [`Engine::resize_area`] does. Empty: the area stays `0..conv_procs`.
    pub area_schedule: Vec<AreaChange>,
    /// How a cloud job's processors are chosen among those free at its
    /// start: by id (the policy's own order) or by TOPSIS
    /// ([`crate::placement`]). HPC work is never placed by it.
    pub placement: Placement,
    /// TOPSIS's criteria weights (used only with [`Placement::Topsis`]).
    pub placement_weights: Weights,
    /// Which running cloud jobs give way when HPC work takes processors of
    /// the area.
    pub victims: Victims,
    /// How many queued jobs hold a reservation ([`crate::depth`]): bounds
    /// conservative planning (conservative, convergence under hpc-first,
    /// conservative under shared-queue) and the cloud reservation window.
    pub reservation_depth: ReservationDepth,
    /// Which cloud jobs may be admitted to the area at all
    /// ([`crate::candidate`]; no limits by default).
    pub candidates: CandidateRules,
    /// The submission-rate regulator ([`crate::regulate`]; `None`, the
    /// default: no regulation).
    pub regulation: Option<Regulation>,
}

/// Which running cloud jobs an HPC start evicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Victims {
    /// Those holding the processors the policy's plan names (the thesis's
    /// model: the policy chooses processors as if there were no cloud work).
    #[default]
    Holders,
    /// Those the shell ranks first ([`Engine::rank_victims`]: an eviction
    /// policy's order), on processors the HPC job may take without any HPC
    /// decision changing: fcfs or easy, hpc-first, no maintenance windows
    /// (see `engine/run/victims.rs`).
    Ranked,
}

impl EngineConfig {
    /// A config for `procs` processors, all in the area, admit-all, λ = τ = 1,
    /// no resubmission, HPC first, the exact predictor, no maintenance.
    pub fn new(procs: u32, policy: Policy) -> EngineConfig {
        EngineConfig {
            procs,
            conv_procs: procs,
            policy,
            admission: Admission::AdmitAll,
            lambda: 1.0,
            tau: 1.0,
            lifecycle: Lifecycle {
                max_resubmissions: 0,
                max_time_in_system: None,
            },
            scheduling: Scheduling::HpcFirst,
            predictor: Predictor::Exact,
            thesis: ThesisPrediction::default(),
            reject_above: None,
            maintenance: Vec::new(),
            area_schedule: Vec::new(),
            placement: Placement::default(),
            placement_weights: Weights::default(),
            victims: Victims::default(),
            reservation_depth: ReservationDepth::Unlimited,
            candidates: CandidateRules::default(),
            regulation: None,
        }
    }

    /// TOPSIS's weights when cloud jobs are placed by TOPSIS (`None`:
    /// first fit; [`Placement::weights`]).
    pub fn topsis(&self) -> Option<&Weights> {
        self.placement.weights(&self.placement_weights)
    }

    /// Does a queued job keep the start it was placed at, never moved
    /// earlier when work ends early? Algorithm 3 as written places each job
    /// once (`convergence` under shared-queue); every other policy re-plans.
    pub(crate) fn places_once(&self) -> bool {
        self.policy == Policy::Convergence && self.scheduling == Scheduling::SharedQueue
    }

    /// The admission rule of this config ([`Admission::rejects`]).
    pub fn rejects(&self, prediction: &Prediction) -> bool {
        self.admission.rejects(prediction, self.reject_above)
    }

    /// The largest platform the engine accepts.
    pub const MAX_PROCS: u32 = 1 << 20;

    /// Why a bounded reservation depth does not apply to this policy, if
    /// it does not: FCFS and EASY reserve only the queue's head (EASY is
    /// depth 1), and Algorithm 3 (convergence under shared-queue) places
    /// each job once and never re-plans.
    pub fn depth_conflict(&self) -> Option<String> {
        let depth = self.reservation_depth;
        if depth.is_unlimited() {
            return None;
        }
        let why = match (self.policy, self.scheduling) {
            (Policy::Fcfs, _) => "fcfs reserves only the queue's head",
            (Policy::Easy, _) => "easy reserves only the queue's head (it is depth 1)",
            (Policy::Convergence, Scheduling::SharedQueue) => {
                "convergence under shared-queue is Algorithm 3, which places each job once and never re-plans"
            }
            _ => return None,
        };
        Some(format!(
            "reservation depth {depth} applies to conservative and to convergence under hpc-first: {why}; \
             drop the depth (or use `unlimited`) or choose one of those policies"
        ))
    }

    /// Why the policy cannot run under the scheduling mode, if it cannot
    /// ([`Policy::allows`]).
    pub fn scheduling_conflict(&self) -> Option<String> {
        (!self.policy.allows(self.scheduling)).then(|| {
            format!(
                "policy {} is the thesis's simulator CArS, which schedules HPC and cloud jobs in one queue: add \
                 --scheduling shared-queue (`scheduling: shared-queue` in a config)",
                self.policy
            )
        })
    }

    /// Check the fields; the error names the field and the fix.
    pub fn validate(&self) -> Result<(), EngineError> {
        let bad = |m: String| Err(EngineError::InvalidConfig(m));
        if self.procs == 0 {
            return bad("procs is 0: the platform needs at least one processor".into());
        }
        if self.procs > Self::MAX_PROCS {
            return bad(format!(
                "procs is {}: at most {} processors are supported",
                self.procs,
                Self::MAX_PROCS
            ));
        }
        if self.conv_procs > self.procs {
            return bad(format!(
                "conv_procs ({}) exceeds procs ({}): the convergence area is a subset of the platform",
                self.conv_procs, self.procs
            ));
        }
        if !self.lambda.is_finite() || self.lambda < 0.0 {
            return bad(format!(
                "lambda is {}: the overbooking factor must be a finite number >= 0",
                self.lambda
            ));
        }
        if !self.tau.is_finite() || self.tau < 0.0 {
            return bad(format!(
                "tau is {}: the counter-offer factor must be a finite number >= 0",
                self.tau
            ));
        }
        if self.lifecycle.max_time_in_system.is_some_and(|t| t < Time::ZERO) {
            return bad("lifecycle.max_time_in_system is negative: give a duration >= 0 or none".into());
        }
        self.thesis.validate().map_err(EngineError::InvalidConfig)?;
        if let Some(p) = self.reject_above {
            if !(0.0..=1.0).contains(&p) {
                return bad(format!(
                    "reject_above is {p}: give a violation probability between 0 and 1"
                ));
            }
        }
        if let Some(conflict) = self.ranked_victims_conflict() {
            return bad(conflict);
        }
        if let Some(conflict) = self.depth_conflict() {
            return bad(conflict);
        }
        if let Some(conflict) = self.scheduling_conflict() {
            return bad(conflict);
        }
        self.validate_area_schedule()
            .map_err(EngineError::InvalidConfig)?;
        if let Some(problem) = self.candidates.problem() {
            return bad(problem);
        }
        if let Some(problem) = self.regulation.as_ref().and_then(Regulation::problem) {
            return bad(problem);
        }
        for (i, window) in self.maintenance.iter().enumerate() {
            window
                .validate(self.procs)
                .map_err(|m| EngineError::InvalidConfig(format!("maintenance[{i}]: {m}")))?;
        }
        Ok(())
    }
}

/// A resize of the convergence area planned ahead
/// ([`EngineConfig::area_schedule`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AreaChange {
    /// When (engine time).
    pub at: Time,
    /// The area from then on: processors `0..procs`.
    pub procs: u32,
}

impl EngineConfig {
    /// The area schedule's rule: times increasing, from 0 on; each size at
    /// most `procs`; hpc-first only (see [`Engine::resize_area`]).
    fn validate_area_schedule(&self) -> Result<(), String> {
        let mut last: Option<Time> = None;
        for (i, change) in self.area_schedule.iter().enumerate() {
            if change.at < Time::ZERO || change.at.is_infinite() {
                return Err(format!(
                    "area_schedule[{i}]: time {} must be a finite time >= 0",
                    change.at
                ));
            }
            if last.is_some_and(|t| change.at <= t) {
                return Err(format!(
                    "area_schedule[{i}]: time {} is not after the previous change's: list the changes by increasing time",
                    change.at
                ));
            }
            if change.procs > self.procs {
                return Err(format!(
                    "area_schedule[{i}]: {} processors, the platform has {}: give at most {}",
                    change.procs, self.procs, self.procs
                ));
            }
            last = Some(change.at);
        }
        if !self.area_schedule.is_empty() && self.scheduling == Scheduling::SharedQueue {
            return Err(
                "area_schedule needs hpc-first: under shared-queue nothing is evicted, so a shrink \
                        could not clear the processors leaving the area"
                    .into(),
            );
        }
        Ok(())
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
    /// A batch system's plan cannot be mirrored ([`Engine::mirror`]); the
    /// message says why.
    Mirror(String),
    /// The convergence area cannot be resized ([`Engine::resize_area`]); the
    /// message says why and what to do.
    Resize(String),
    /// An HPC job cannot be held where the batch system says it started
    /// ([`Engine::started_on`]); the message names the job and says why.
    StartedOn(String),
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
            EngineError::UnknownJob(id) => {
                write!(f, "job {id} is not known to the engine (or already ended)")
            }
            EngineError::Unschedulable { id, reason } => write!(f, "job {id} can never run: {reason}"),
            EngineError::Mirror(why) => write!(f, "cannot mirror the plan: {why}"),
            EngineError::Resize(why) => write!(f, "cannot resize the convergence area: {why}"),
            EngineError::StartedOn(why) => write!(f, "{why}"),
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
    /// Kill this running cloud job now: HPC work needs its processors (or
    /// they left the convergence area, [`Engine::resize_area`]). The
    /// engine already counts its processors as free; the shell reports the
    /// kill with [`Engine::job_ended`] with [`EndReason::Evicted`] when done
    /// (or the job's own end, if it ended before the kill reached it).
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

/// The engine's answer to [`Engine::submit`]: the one admission rule
/// (Algorithm 1 with the configured [`Admission`] mode), so that no shell
/// re-derives it from the prediction or from the next pass's decisions.
#[derive(Clone, Debug, PartialEq)]
pub enum Submitted {
    /// An HPC job: queued, decided on at the next [`Engine::schedule`].
    Queued,
    /// A cloud job admitted with this prediction (it may still predict a
    /// violation under `admit-all`).
    Admitted(Prediction),
    /// A cloud job refused (`reject-predicted` and a predicted violation); the
    /// next pass reports it as [`Decision::Reject`]. Its prediction carries
    /// the counter-offer.
    Rejected(Prediction),
}

impl Submitted {
    /// The admission prediction (cloud jobs).
    pub fn prediction(&self) -> Option<&Prediction> {
        match self {
            Submitted::Queued => None,
            Submitted::Admitted(prediction) | Submitted::Rejected(prediction) => Some(prediction),
        }
    }

    /// The admission prediction, by value (cloud jobs).
    pub fn into_prediction(self) -> Option<Prediction> {
        match self {
            Submitted::Queued => None,
            Submitted::Admitted(prediction) | Submitted::Rejected(prediction) => Some(prediction),
        }
    }

    /// Was the job refused?
    pub fn is_rejected(&self) -> bool {
        matches!(self, Submitted::Rejected(_))
    }
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

/// What [`Engine::resize_area`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AreaResize {
    /// Processors of the area before.
    pub from: u32,
    /// Processors of the area now (`0..to`).
    pub to: u32,
    /// Running cloud jobs on processors that left the area: evicted (the
    /// next [`Engine::schedule`] returns their [`Decision::Evict`]), in
    /// submission order.
    pub evicted: Vec<JobId>,
    /// Queued cloud jobs whose reservation held processors that left the
    /// area, re-planned inside it, in queue order.
    pub replanned: Vec<JobId>,
    /// Admitted cloud jobs wider than the area now: they wait, without a
    /// reservation, until it grows back.
    pub waiting: Vec<JobId>,
}

/// The scheduling engine. Deterministic: the same calls give the same decisions.
///
/// See the crate documentation for the design (two-layer plan, processor
/// choice, eviction, prediction) and [`Policy`] for what each policy does.
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    st: run::State,
}

impl Engine {
    /// Check the config and build an empty engine at time zero.
    pub fn new(config: EngineConfig) -> Result<Engine, EngineError> {
        config.validate()?;
        let st = run::State::new(&config);
        Ok(Engine { config, st })
    }

    /// The config the engine was built with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// A job arrives at `job.submit` (which becomes the engine's time). Cloud
    /// jobs get their prediction computed on the current plan and the
    /// admission verdict returned ([`Submitted`]; the prediction is also kept
    /// in the job's record). The job is started (or its rejection reported)
    /// at the next [`Engine::schedule`].
    ///
    /// Under `admit-all` (and for a cloud job predicted to meet its SLO) the
    /// cloud job is immediately reserved at exactly the predicted slot, so the
    /// next cloud job's prediction already accounts for it; in overload (the
    /// reservation window full) it joins the FIFO backlog instead, with a
    /// tail-estimated prediction (crate docs, "Overload").
    ///
    /// A cloud job outside the candidate rules, or one the submission-rate
    /// regulator holds back, is refused too ([`Submitted::Rejected`]; why,
    /// in [`JobRecord::refusal`](crate::JobRecord::refusal) and
    /// [`Engine::refusal_of`]).
    pub fn submit(&mut self, job: Job) -> Result<Submitted, EngineError> {
        self.st.submit(&self.config, job, None)
    }

    /// [`Engine::submit`] for a user (`owner`, a uid): a cloud job's
    /// admitted work also counts against that user's share of the
    /// regulator ([`crate::Regulation::per_user_share`]).
    pub fn submit_as(&mut self, job: Job, owner: u32) -> Result<Submitted, EngineError> {
        self.st.submit(&self.config, job, Some(owner))
    }

    /// Why the cloud job `id` was refused at admission (`None`: admitted,
    /// an HPC job, or handed over).
    pub fn refusal_of(&self, id: JobId) -> Option<&Refusal> {
        self.st.refusal_of(id)
    }

    /// Would a cloud job of `procs` × `walltime` with `slo`, submitted at
    /// `now` with `prediction` (from [`Engine::predict`]), be refused, and
    /// why? The same questions [`Engine::submit`] asks, without submitting.
    pub fn refusal(
        &self,
        procs: u32,
        walltime: Time,
        slo: Option<Time>,
        prediction: &Prediction,
        now: Time,
        owner: Option<u32>,
    ) -> Option<Refusal> {
        self.st.refusal(
            &self.config,
            crate::candidate::Request { procs, walltime, slo },
            prediction,
            now,
            owner,
        )
    }

    /// The regulator's measured rate at `now`: the cloud work admitted over
    /// the trailing window ÷ the area's idle capacity over the next one
    /// ([`crate::regulate`]); `None` without a regulator.
    pub fn submission_rate(&self, now: Time) -> Option<f64> {
        self.st.submission_rate(&self.config, now)
    }

    /// A running job stopped at `now` (possibly before its walltime).
    ///
    /// For a cloud job the engine evicted ([`Decision::Evict`]), this is the
    /// acknowledgement of the kill: with [`EndReason::Evicted`] (or
    /// [`EndReason::Killed`]) the job is re-queued if its [`Lifecycle`]
    /// allows, else it ends; with [`EndReason::Completed`] or
    /// [`EndReason::WalltimeReached`] the job ended on its own before the kill
    /// reached it, so the eviction is undone (not counted, no lost work, no
    /// resubmission). A queued job reported as ended is withdrawn as by
    /// [`Engine::cancel`].
    ///
    /// Until a running job's end is reported, its processors stay busy, even
    /// past its walltime (see [`Engine::overdue`]).
    pub fn job_ended(&mut self, id: JobId, now: Time, reason: EndReason) -> Result<(), EngineError> {
        self.st.job_ended(&self.config, id, now, reason)
    }

    /// The batch system started HPC job `id` at `now` on `procs`: the job
    /// (queued, or running where the engine put it) holds exactly those
    /// processors until it ends, whatever the policy would have done; the
    /// cloud jobs on them are evicted (with the next [`Engine::schedule`])
    /// and reservations in the way planned again. Refused, with nothing
    /// changed, for a cloud job, a count other than the job's, a processor
    /// the engine lacks, or one another running HPC job or a maintenance
    /// window holds.
    pub fn started_on(&mut self, id: JobId, procs: &ProcSet, now: Time) -> Result<(), EngineError> {
        self.st.started_on(&self.config, id, procs, now)
    }

    /// A queued job is withdrawn (cancelled by its owner) at `now`. On a
    /// running job this is the same as `job_ended(id, now, EndReason::Killed)`
    /// (the caller kills it).
    pub fn cancel(&mut self, id: JobId, now: Time) -> Result<(), EngineError> {
        self.st.cancel(&self.config, id, now)
    }

    /// Make processors `0..conv_procs` the convergence area at `now` (the
    /// thesis's dynamic area, §4.1; hpc-first only), `0` closing it and at
    /// most `procs`. HPC work is not touched. Shrinking evicts, in
    /// submission order, every running cloud job on a processor leaving the
    /// area (their [`Decision::Evict`] come with the next
    /// [`Engine::schedule`]; the lifecycle re-queues them as for any
    /// eviction) and re-plans inside the area, in queue order, the queued
    /// jobs reserved there; a queued job wider than the new area waits until
    /// it grows back. Growing frees the new processors for cloud work at
    /// once. The config keeps the area the engine started with
    /// ([`Engine::area_procs`] is the area now). On an error nothing changes.
    pub fn resize_area(&mut self, conv_procs: u32, now: Time) -> Result<AreaResize, EngineError> {
        self.st.resize_area(&self.config, conv_procs, now)
    }

    /// The convergence area now: processors `0..area_procs()` (the config's
    /// `conv_procs` until a resize, [`Engine::resize_area`] or
    /// [`EngineConfig::area_schedule`]).
    pub fn area_procs(&self) -> u32 {
        self.st.area_procs()
    }

    /// One scheduling pass at `now`: the decisions to carry out, in order:
    /// rejections, then evictions, then starts (HPC first, then cloud).
    /// A `now` earlier than the engine's time is taken as the engine's time.
    ///
    /// Idempotent between events: a call with no event (`submit`,
    /// `job_ended`, `cancel`) since the previous pass and nothing due
    /// ([`Engine::next_wakeup`] later than `now`) decides nothing and leaves
    /// every later decision as if it had not been made.
    pub fn schedule(&mut self, now: Time) -> Vec<Decision> {
        self.st.schedule(&self.config, now)
    }

    /// Running jobs whose walltime has passed at `now` and whose end has not
    /// been reported with [`Engine::job_ended`] yet. Their processors stay
    /// busy until then (each pass holds them until the next tick and moves
    /// what was planned on them), so a shell that knows the end report is
    /// on its way (Batsim reports every kill at a walltime, sometimes in a
    /// later message of the same instant) may wait for it before calling
    /// [`Engine::schedule`].
    pub fn overdue(&self, now: Time) -> usize {
        self.st.overdue(now)
    }

    /// The earliest future time at which `schedule` would decide something even
    /// if no job ends or arrives (e.g. a reservation that starts on a
    /// processor freed only by a walltime). `None` if nothing is pending.
    ///
    /// It is the earliest of: a queued job's reserved start (conservative and
    /// convergence HPC jobs, every admitted cloud job), a planned eviction
    /// of a running cloud job that overlaps a future HPC reservation, and
    /// the end of a maintenance window.
    pub fn next_wakeup(&self) -> Option<Time> {
        self.st.next_wakeup(&self.config)
    }

    /// What admission would predict for a cloud job of this shape arriving at
    /// `now`, without submitting anything.
    ///
    /// Costs one earliest-fit query on the plan (`O(log S + S'·W)` for `S'`
    /// breakpoints before the fit, `W` words per processor set), or, when the
    /// job would join the cloud backlog, the `O(K)` tail estimate described
    /// in the crate docs ("Overload").
    pub fn predict(&self, procs: u32, walltime: Time, slo: Option<Time>, now: Time) -> Prediction {
        self.st.predict(&self.config, procs, walltime, slo, now)
    }

    /// Every predictor's answer for a submitted cloud job, by
    /// [`Predictor::index`] (`None`: unknown or handed-over job, or an HPC job).
    pub fn verdicts(&self, id: JobId) -> Option<[crate::metrics::Verdict; Predictor::ALL.len()]> {
        self.st.verdicts(id)
    }

    /// Whether HPC work submitted after this cloud job's prediction evicted
    /// or delayed it so far ([`crate::JobRecord::hit_by_later_hpc`]; `None`:
    /// unknown or handed-over job).
    pub fn hit_by_later_hpc(&self, id: JobId) -> Option<bool> {
        self.st.hit_by_later_hpc(id)
    }

    /// Make a batch system's plan the HPC layer at `now` ([`crate::mirror`]):
    /// its jobs busy where and when it says, its blocked processors held
    /// (with the maintenance windows of the config), its unplanned jobs
    /// queued behind it. The plan replaces the previous one; the cloud
    /// work the engine holds is fitted around it: running cloud jobs on
    /// processors the plan takes now are evicted (reported by the next
    /// [`Engine::schedule`]), those it takes later are scheduled for
    /// eviction then, queued ones are placed again in queue order.
    ///
    /// Only under `hpc-first` and with no HPC job submitted to the engine:
    /// the plan is the HPC work. Costs one sweep over the plan's windows
    /// (`O(E log E + Σ|procs| + S·W)`), `O(k log m)` per unplanned job of `k`
    /// of the `m` processors, and one earliest fit per queued cloud job.
    pub fn mirror(
        &mut self,
        now: Time,
        plan: &crate::mirror::MirroredPlan,
    ) -> Result<crate::mirror::MirrorOutcome, EngineError> {
        self.st.mirror(&self.config, now, plan)
    }

    /// `W_immediate` and `W_future` of the convergence area at `now`
    /// (computed on the full plan: HPC work and cloud work).
    pub fn slots(&self, now: Time) -> Slots {
        self.st.slots(now)
    }

    /// Where a job stands. A cloud job the engine evicted is reported
    /// [`JobState::Ended`] until [`Engine::job_ended`] acknowledges the kill
    /// (then `Queued` again if it is resubmitted).
    pub fn job_state(&self, id: JobId) -> Option<JobState> {
        self.st.job_state(id)
    }

    /// The record of every job the engine holds (submitted, started, ended,
    /// predicted, evicted), in submission order: all jobs so far, less those
    /// handed over with [`Engine::take_finished`]. Feed it to
    /// [`crate::metrics::Summary::compute`].
    pub fn records(&self) -> impl Iterator<Item = &crate::metrics::JobRecord> + '_ {
        self.st.records.iter().map(|record| &**record)
    }

    /// Hand over finished jobs: from now on, a job that becomes final (ended
    /// for good, or rejected and reported by a pass) is kept only until
    /// [`Engine::take_finished`] takes it. A long simulation calls this once,
    /// before the first event, and takes the finished records after each
    /// pass, so that the engine's memory follows the jobs in the system, not
    /// every job ever submitted. Decisions are the same either way.
    pub fn hand_over_finished(&mut self) {
        self.st.set_hand_over(true);
    }

    /// The records of the jobs that were final at the end of the last
    /// [`Engine::schedule`] pass (in the order they became final), removed
    /// from the engine: they leave [`Engine::records`], [`Engine::job_state`]
    /// no longer knows their ids, and those ids may be submitted again. Empty
    /// unless [`Engine::hand_over_finished`] was called.
    /// Dropping the iterator before its end forgets the records not taken.
    pub fn take_finished(&mut self) -> impl Iterator<Item = Box<crate::metrics::JobRecord>> + '_ {
        self.st.take_finished()
    }

    /// Jobs whose state the engine holds: queued, running, or final and not
    /// taken by [`Engine::take_finished`] yet.
    pub fn jobs_held(&self) -> usize {
        self.st.held()
    }

    /// Number of queued jobs of a kind (for cloud jobs: the reservation
    /// window plus the backlog).
    pub fn queued(&self, kind: JobKind) -> usize {
        self.st.queued(kind)
    }

    /// Number of queued cloud jobs waiting in the backlog, without a
    /// reservation (see the crate docs, "Overload").
    pub fn cloud_backlog(&self) -> usize {
        self.st.backlog_len()
    }

    /// The default size of the cloud reservation window: at most this many
    /// queued cloud jobs hold a reservation in the plan, the others wait in
    /// a FIFO backlog (see the crate docs, "Overload").
    pub const DEFAULT_CLOUD_WINDOW: usize = run::CLOUD_WINDOW;

    /// Set the size of the cloud reservation window (at least 1; default
    /// the reservation depth, at most [`Engine::DEFAULT_CLOUD_WINDOW`]:
    /// [`ReservationDepth::cloud_window`]). Call it before the first event:
    /// a larger window plans further ahead (better predictions for long
    /// queues) at a cost per event that grows with it.
    pub fn set_cloud_window(&mut self, jobs: usize) {
        self.st.set_cloud_window(jobs);
    }

    /// [`Policy::Cars`]: plan from scratch at every scheduling session, as
    /// the thesis's simulator does, even those that changed nothing the plan
    /// rests on (the engine skips them: the same decisions, faster). For
    /// tests that check the two agree.
    #[doc(hidden)]
    pub fn plan_cars_at_every_session(&mut self) {
        self.st.cars_every_session = true;
    }

    /// [`Policy::Fcfs`] and [`Policy::Easy`]: keep the HPC layer's plan
    /// from the first event, as the other policies do, instead of counting
    /// the processors free now until something reads the plan (the same
    /// decisions, slower). For tests that check the two agree; call it
    /// before the first event.
    #[doc(hidden)]
    pub fn keep_the_plan(&mut self) {
        self.st.keep_the_plan(&self.config);
    }

    /// Rank cloud jobs for [`Victims::Ranked`]: when HPC work needs the
    /// processors of running ones, the smallest rank gives way first (jobs
    /// without a rank before every ranked one). Replaces the previous
    /// ranks; the shell calls it before a pass with what its eviction
    /// policy says now (ranks may change with time, as `Q` does).
    pub fn rank_victims(&mut self, ranks: impl IntoIterator<Item = (JobId, crate::qos::policy::Key)>) {
        self.st.rank_victims(ranks);
    }

    /// Consume the engine and return the records it holds (as
    /// [`Engine::records`], without copying them).
    pub fn into_records(self) -> Vec<crate::metrics::JobRecord> {
        self.st.into_records()
    }

    /// Number of running jobs of a kind.
    pub fn running(&self, kind: JobKind) -> usize {
        self.st.running(kind)
    }

    /// The cloud jobs running now and when each started: what a shell
    /// ranking victims ([`Engine::rank_victims`]) ranks.
    pub fn running_cloud(&self) -> impl Iterator<Item = (JobId, Time)> + '_ {
        self.st.running_cloud_jobs()
    }

    /// The engine's current time (the latest event or pass seen).
    pub fn now(&self) -> Time {
        self.st.now
    }
}
