//! A batch system's own plan, mirrored into the engine.
//!
//! When the HPC work is scheduled by someone else (Slurm's backfill), the
//! engine must not plan it again with its own policy: its slots and
//! predictions would then disagree with what the batch system will do. A
//! [`MirroredPlan`] says where and when the batch system runs or plans every
//! job, which processors it holds back (reservations, nodes down or
//! drained), and which pending jobs it gave no plan; [`crate::Engine::mirror`]
//! makes that the engine's HPC layer, and the cloud work the engine holds
//! (admission holds, local cloud jobs) is fitted around it.

use crate::procset::ProcSet;
use crate::time::Time;

/// Processors busy over `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occupation {
    /// The engine's processors.
    pub procs: ProcSet,
    /// First instant busy.
    pub start: Time,
    /// First instant free again ([`Time::INFINITY`]: for good).
    pub end: Time,
}

/// A pending job the batch system gave no plan (beyond its planning window,
/// or not considered yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnplannedJob {
    /// Processors.
    pub procs: u32,
    /// Requested walltime.
    pub walltime: Time,
    /// No earlier start (the batch system's own estimate, when it gives
    /// one; else any instant up to now).
    pub not_before: Time,
    /// The processors it may run on (its partitions' nodes); `None`: any.
    pub within: Option<ProcSet>,
}

/// The batch system's plan at one instant, in the engine's processors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MirroredPlan {
    /// Jobs running or planned by the batch system, busy where and when it says.
    pub jobs: Vec<Occupation>,
    /// Processors no job may use (reservations, nodes down or drained),
    /// held like maintenance windows.
    pub blocked: Vec<Occupation>,
    /// Pending jobs without a plan, in the order given (the Slurm backend:
    /// submission order): the engine queues them behind the plan, first come
    /// first served, each on the processors it may use that are free soonest
    /// for good (outside the convergence area first, then lowest ids) and
    /// clear of the blocked windows; not in the plan's holes, which the batch
    /// system's own backfill left them out of.
    pub unplanned: Vec<UnplannedJob>,
}

/// What [`crate::Engine::mirror`] made of a plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MirrorOutcome {
    /// Where each of [`MirroredPlan::unplanned`] was placed (its start);
    /// `None` if it can never fit (more processors than are ever free for good).
    pub unplanned_starts: Vec<Option<Time>>,
    /// Jobs of the plan that start on processors another job or a blocked
    /// window already holds: the batch system's plan double-books them, or
    /// the mapping to processors was approximate. They are kept (every
    /// processor is busy while any job holds it).
    pub overlapping: usize,
    /// Running cloud jobs the plan's HPC work evicted now.
    pub evicted: usize,
}
