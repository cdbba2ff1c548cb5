//! Interstice's engine: a pure, deterministic scheduler for the cloud-HPC
//! convergence area.
//!
//! No I/O, no clock, no threads: time is a parameter ([`Time`]) and the same
//! calls give the same decisions. Every shell (built-in replay, Batsim
//! adapter, daemon, Slurm plugin) drives an [`Engine`].
#![deny(missing_docs)]

pub mod engine;
pub mod job;
pub mod metrics;
pub mod procset;
pub mod time;

pub use engine::{
    Admission, Decision, EndReason, Engine, EngineConfig, EngineError, FutureSlot, ImmediateSlot, JobState,
    Lifecycle, Policy, Prediction, Slots,
};
pub use job::{Job, JobId, JobKind};
pub use metrics::{JobRecord, PredictionQuality, Summary};
pub use procset::ProcSet;
pub use time::Time;
