//! Interstice's engine: a pure, deterministic scheduler for the cloud-HPC
//! convergence area.
//!
//! No I/O, no clock, no threads: time is a parameter ([`Time`]) and the same
//! calls give the same decisions. Every shell (built-in replay, Batsim
//! adapter, daemon, Slurm plugin) drives an [`Engine`].
//!
//! # Tour
//!
//! * [`time`] — [`Time`], integer microseconds for instants and durations.
//! * [`job`] — [`Job`] (`J_j = (wt_j, h_j, SLO_j)` plus arrival), [`JobKind`].
//! * [`procset`] — [`ProcSet`], Batsim interval sets (`"0-3 8"`).
//! * [`engine`] — [`Engine`]: the event API (`submit`, `job_ended`,
//!   `cancel`, `schedule`, `next_wakeup`), [`Decision`]s, [`Prediction`]s
//!   (Algorithm 1's `F^σ`, `F^C` with λ, `F^V`, `F^SLO` with τ) and the idle
//!   [`Slots`] (`W_immediate`, `W_future`).
//! * [`driver`] — [`Driver`]: an engine with the rules of when to pass
//!   (events, due wake-ups, passing again after a productive pass, the
//!   livelock bound [`Livelock`]), which every shell drives.
//! * [`depth`] — [`ReservationDepth`]: how many queued jobs hold a
//!   reservation (Maui's `RESERVATIONDEPTH`, Slurm's `bf_max_job_test`).
//! * [`metrics`] — per-job [`JobRecord`]s and the run's [`Summary`]
//!   (violations, evictions, the prediction's confusion matrix and the
//!   thesis's own accuracy/precision).
//! * `plan` (private) — the availability profile: free processor *sets*
//!   over time (bitsets per breakpoint), earliest fit with a sliding-window
//!   intersection, reserve/release. Its module docs list each operation's cost.
//!
//! # Design
//!
//! **Two layers.** HPC work is planned on a layer that contains only HPC work,
//! so cloud jobs can never delay an HPC job: with or without cloud traffic the
//! HPC decisions (times *and* processors) are identical (a property test checks
//! it for every policy). Cloud jobs are planned on a second layer (HPC work +
//! cloud work) and only inside the area `0..conv_procs`: each admitted cloud
//! job is reserved at its earliest fit there, i.e. in the holes HPC work
//! leaves, at exactly the slot its prediction used.
//!
//! **Or one queue** ([`Scheduling::SharedQueue`], the thesis's §5.3.1):
//! HPC and cloud jobs wait in one FCFS queue and the policy plans them
//! together on one layer (cloud jobs on the area only); nothing is evicted,
//! so cloud work can delay HPC work. The rest of this section is about the
//! default, [`Scheduling::HpcFirst`]; the thesis's own predictor
//! ([`Predictor::Thesis`]) and maintenance windows ([`Maintenance`]) work
//! under both (`docs/thesis-model.md` maps every thesis rule to the code).
//!
//! **Processor choice** (deterministic): HPC jobs take processors outside the
//! area first, then inside, lowest ids first (with the whole platform in the
//! area, as by default, that is "lowest free ids", which reproduces Batsim's
//! reference FCFS allocations). Cloud jobs take the *highest* free ids of the
//! area, so that the two kinds meet as late as possible and evictions stay
//! rare. The convergence policy replaces "lowest ids" by its stage rule (see
//! [`Policy::Convergence`]).
//!
//! **Evictions.** When HPC work needs processors a cloud job holds: a queued
//! cloud reservation is simply re-planned; a running cloud job is evicted
//! ([`Decision::Evict`], before the start that needs its processors) when the
//! HPC job starts now, or scheduled for eviction when a future HPC reservation
//! reaches it (cancelled if that reservation moves away). Evictions are counted
//! with the work lost (processors × time run). After the shell acknowledges the
//! kill (`job_ended(.., EndReason::Evicted)`) the job is re-queued (same id,
//! queue position = the resubmission time) if [`Lifecycle`] allows, else it ends
//! and counts as violated.
//!
//! **Prediction consistency.** A prediction is the earliest fit of the job on
//! the current cloud layer, after bringing the plan up to date with the
//! events already applied at this instant; admission then reserves the job at
//! exactly that slot. A prediction can only be wrong because of what happens
//! later: HPC arrivals or compression evicting/displacing it (later than
//! predicted), early ends (earlier), or λ ≠ 1. (In overload, a job that
//! joins the backlog gets a tail estimate instead; see "Overload" below.)
//!
//! **Scheduling points.** The shell applies all events of one timestamp
//! (completions first, then submissions), then calls [`Engine::schedule`]
//! once, and wakes up at [`Engine::next_wakeup`] if nothing else happens
//! before (reserved starts and planned evictions are time-triggered);
//! shells do so through a [`Driver`], which owns these rules.
//! Passes are driven by events only: a `schedule` call with no event since
//! the previous pass and nothing due (`next_wakeup` later than `now`) is a
//! no-op, and later decisions are exactly those of a run without it (a
//! property test checks it for every policy), so a shell need not mirror
//! another shell's call timing. The HPC part of a pass runs only after an
//! HPC event (arrival, end, cancellation) or at a due HPC reservation: in
//! between, the HPC layer's free processors only shrink as time passes, so
//! it could start nothing new. (This assumes what every shell does: a
//! running job's end is reported no later than its walltime.)
//!
//! **Overload: the cloud reservation window.** When the area gets more
//! cloud work than it can serve (admit-all, a cloud job every few seconds),
//! the cloud queue grows without bound. Only the first `K` queued cloud jobs
//! (the *window*, [`Engine::DEFAULT_CLOUD_WINDOW`] = 64, or the
//! reservation depth when it is smaller, see [`depth`] and
//! [`Engine::set_cloud_window`]) hold a reservation in the plan; later ones
//! wait in a FIFO *backlog* without one and are promoted into the window, at
//! their earliest fit at that moment, as window jobs start or leave. A
//! cloud job arriving while the backlog is non-empty (or the window full)
//! joins the backlog's tail, even if a hole would fit it: once the area is
//! overloaded, cloud jobs are served in arrival order. So the plan never
//! holds more than `K` cloud reservations (`O(K)` of its breakpoints): an
//! earliest-fit query (a prediction, a promotion) scans `O(K + H)`
//! breakpoints (`H` from HPC work), a cloud compression (after an early
//! end, a cancellation, or HPC work moving) re-plans the `K` window jobs,
//! whatever the backlog's length; the backlog itself costs `O(1)` per job.
//!
//! A backlog job's prediction (`F^σ`) is a fluid tail estimate on the plan:
//! the work of the backlog jobs ahead of it (`B`, processors × walltime) is
//! poured into the area's free capacity (the plan with HPC work and the
//! window's reservations) from the window's last reserved start on, and the
//! job is predicted to start when `B` is served and enough processors are
//! free (after the plan's last breakpoint the whole area serves). It costs
//! `O(log S + S')` for the `S'` breakpoints after the window (HPC ends and
//! reservations, capped at 4,096), whatever the backlog's length. Below
//! saturation (backlog empty, window not full) predictions are exact
//! earliest fits as before. The estimate ignores fragmentation and packs
//! work as a fluid, so a start is typically off by a fraction of a
//! walltime; backlog jobs wait behind at least `K` others and are almost
//! always predicted (and actually) in violation, so the confusion matrix is
//! essentially that of the exact plan (on KTH with a 20-processor area it is
//! identical, and the mean absolute error of `F^C` is lower: the exact plan
//! of a long queue is itself over-optimistic, as later HPC arrivals push it back).

//! # Example
//!
//! ```
//! use interstice_core::{Decision, EndReason, Engine, EngineConfig, Job, JobId, JobKind, Policy, Summary, Time};
//!
//! let mut config = EngineConfig::new(4, Policy::Conservative);
//! config.conv_procs = 2; // processors 0-1 form the convergence area
//! let mut engine = Engine::new(config)?;
//! let secs = Time::from_secs;
//! engine.submit(Job {
//!     id: JobId(1), submit: secs(0), walltime: secs(100), walltime_enforced: true, runtime: None,
//!     procs: 3, kind: JobKind::Hpc, slo: None,
//! })?;
//! let prediction = engine.submit(Job {
//!     id: JobId(2), submit: secs(0), walltime: secs(30), walltime_enforced: true, runtime: None,
//!     procs: 1, kind: JobKind::Cloud, slo: Some(secs(60)),
//! })?.into_prediction().expect("cloud jobs get a prediction");
//! // The HPC job takes 2-3 (outside the area) and 0; the cloud job fits on 1 now.
//! assert_eq!(prediction.start, Some(secs(0)));
//! assert!(!prediction.predicts_violation);
//! let decisions = engine.schedule(secs(0));
//! assert_eq!(decisions.len(), 2);
//! assert!(matches!(&decisions[1], Decision::Start { id: JobId(2), procs } if procs.to_string() == "1"));
//! engine.job_ended(JobId(2), secs(20), EndReason::Completed)?;
//! engine.job_ended(JobId(1), secs(90), EndReason::Completed)?;
//! let summary = Summary::compute(engine.records(), 4);
//! assert_eq!((summary.cloud_jobs, summary.violations), (1, 0));
//! # Ok::<(), interstice_core::EngineError>(())
//! ```
#![deny(missing_docs)]

mod bits;
pub mod candidate;
pub mod datacenter;
pub mod depth;
pub mod driver;
pub mod engine;
pub mod id_map;
pub mod job;
mod learn;
mod maintenance;
pub mod mcdm;
pub mod metrics;
pub mod mirror;
pub mod placement;
mod plan;
mod predict;
pub mod procset;
pub mod qos;
pub mod refusal;
pub mod regulate;
pub mod rng;
pub mod slo;
pub mod time;

pub use candidate::{CandidateRules, NotCandidate};
pub use driver::{Driver, Livelock};
pub use engine::{
    Admission, AreaChange, AreaResize, Decision, EndReason, Engine, EngineConfig, EngineError, FutureSlot,
    ImmediateSlot, JobState, Lifecycle, Maintenance, Policy, Prediction, Predictor, ReservationDepth,
    Scheduling, Slots, Submitted, Victims,
};
pub use id_map::IdMap;
pub use job::{reconcile_walltime, valid_alpha, Job, JobId, JobKind, UnknownName};
pub use metrics::{
    violates, EvictedRun, JobRecord, PredictionQuality, PredictorQualities, Shown, Summary, SummaryTally,
    Verdict,
};
pub use mirror::{MirrorOutcome, MirroredPlan, Occupation, UnplannedJob};
pub use predict::{Beta, ThesisPrediction, WFuture};
pub use procset::ProcSet;
pub use refusal::Refusal;
pub use regulate::{RateVerdict, Regulation};
pub use slo::{slo_for, DEFAULT_SLACK};
pub use time::Time;
