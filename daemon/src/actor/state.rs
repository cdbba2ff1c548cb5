//! The actor's state: the [`Actor`] struct, whose fields every part of the
//! actor reads and writes (each part's `impl Actor` is in its own module),
//! and the actor's time ([`Actor::now`], [`Actor::event_time`]). The types
//! of its fields are the leaves beside it (`cloud_job`, `hpc_mirror`,
//! `hold_table`, `batch`, `member_link`, `readiness`, `command`).

use super::batch::BatchSystem;
use super::cloud_job::CloudJob;
use super::command::Reloadable;
use super::hold_table::Holds;
use super::hpc_mirror::HpcMirror;
use super::member_link::MemberLink;
use super::readiness::Readiness;
use crate::clock::Clock;
use crate::exec::Executor;
use crate::metrics::Metrics;
use crate::node::NodeMonitor;
use crate::store::Store;
use interstice_core::qos::QosConfig;
use interstice_core::{Driver, Time};
use std::collections::HashMap;

/// The actor's state: the engine and everything whose changes must be
/// ordered with the engine's.
pub struct Actor {
    pub(super) driver: Driver,
    pub(super) store: Store,
    pub(super) metrics: Metrics,
    pub(super) executor: Executor,
    pub(super) monitor: NodeMonitor,
    pub(super) reloadable: Reloadable,
    pub(super) clock: Clock,
    /// Admitted cloud jobs not yet ended (queued, held or running).
    pub(super) jobs: HashMap<u64, CloudJob>,
    /// The class of each admitted cloud job that has one, until its final
    /// record is counted in it (`interstice_class_*`).
    pub(super) job_classes: HashMap<u64, usize>,
    /// `engine.eviction`: the classes under that policy, whose victim order
    /// ranks the running cloud jobs before each pass ([`Actor::rank_victims`]).
    pub(super) victims: Option<QosConfig>,
    pub(super) hpc: HpcMirror,
    /// Admission holds (Slurm mode).
    pub(super) holds: Holds,
    /// Who may report HPC jobs and record admissions.
    pub(super) batch: BatchSystem,
    /// The backend sends the batch system's own plan (Slurm): the engine
    /// mirrors it and plans no HPC job of its own.
    pub(super) mirrors_plan: bool,
    /// The link to the broker, when this daemon is a data center member.
    pub(super) member: Option<MemberLink>,
    pub(super) readiness: Readiness,
    pub(super) next_job_id: u64,
    /// Users whose last access check timed out, refused until then
    /// ([`CHECK_BACKOFF`](super::admission::CHECK_BACKOFF)).
    pub(super) check_backoff: HashMap<u32, Time>,
    /// The actor's time never goes back, even when the clock does.
    pub(super) last_now: Time,
    pub(super) last_sample: Option<Time>,
    pub(super) last_gauges: Option<Time>,
    pub(super) last_schedule: Time,
    /// `store:`: what is kept of rejected submissions ([`super::retention`]).
    pub(super) store_config: crate::config::StoreConfig,
    /// `quota:`: what one user may hold at a time.
    pub(super) quota: crate::config::QuotaConfig,
    /// When expired rejected submissions were last pruned.
    pub(super) last_prune: Option<Time>,
    /// When finished jobs were last pruned (`None`: not since start).
    pub(super) last_finished_prune: Option<Time>,
    /// Something changed since the last `Engine::schedule`.
    pub(super) dirty: bool,
    /// The plan changed outside a scheduling pass of the loop (an admission)
    /// since a data center member last published it.
    pub(super) tuple_stale: bool,
    pub(super) stopping: bool,
    /// Ends the store could not take yet (its disk full), oldest first.
    pub(super) pending_ends: Vec<super::cloud_job::PendingEnd>,
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
    /// The clock's time, never before the last time the actor used.
    pub(super) fn now(&mut self) -> Time {
        let now = self.clock.now().max(self.last_now);
        self.last_now = now;
        now
    }

    /// Clamp an outside event time into `[last_now, clock]`.
    pub(super) fn event_time(&mut self, time: Time) -> Time {
        let clock = self.clock.now().max(self.last_now);
        let time = time.clamp(self.last_now, clock);
        self.last_now = time;
        time
    }
}
