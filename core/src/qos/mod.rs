//! Service classes and who to evict: the QoS-driven scheduler of the
//! supporting seeds 000/001 (availability SLOs, time-to-violate,
//! recoverability, the QoS metric `Q`, safety margins and their relaxation,
//! the preemption-overhead limiter, the lexicographic preemption cost), its
//! priority-based baseline, and owner shares (seed 002, OSEP), on a cloud
//! platform of hosts with slots. `docs/qos.md` is the user's guide.
//!
//! The model is the papers': a *request* asks for one instance of `procs`
//! slots on one host, belongs to a service class (an availability SLO `O_i`)
//! and a tenant. It is admitted, waits in the pending queue, is allocated to
//! a host (ready to run after the allocation time `α`), may be preempted
//! back to the pending queue, and completes once it has run `duration`
//! (a service without a duration runs until the end of the run). Its
//! availability is `A = e/(e+d+p)`: `e` the run time that counts, `d` the
//! run time discarded (under [`OnPreempt::Restart`] an attempt's run time is
//! discarded when it is preempted; under [`OnPreempt::Resume`] nothing is),
//! `p` the time pending or being allocated.
//!
//! Like the engine, this is pure: no I/O, no clock, no randomness.
//! [`simulate`] applies the events of each instant (completions, arrivals,
//! the watchdog) and runs the scheduler (Algorithm 1 of both seeds); the
//! rules of each eviction policy live in [`policy`] and nowhere else.
//!
//! Every choice the seeds make at random (ties between instances of equal
//! `Q`, between hosts of equal score) is made here by a fixed order, so the
//! same run gives the same decisions: instances by admission order (the most
//! recently admitted is preempted first), hosts by index.

mod config;
mod hosts;
mod ledger;
pub mod osep;
mod outcome;
pub mod policy;
#[cfg(test)]
mod props;
mod queue;
pub(crate) mod report;
mod scheduler;
mod simulate;
pub mod study;

pub use config::{
    Constraint, CreditTable, Draw, Eviction, HostChange, HostEvent, HostSpec, Needs, OnPreempt,
    OsepCondition, OsepRule, OsepSettings, Overheads, QosConfig, QosError, Request, Resize, ServiceClass,
    Tenant, TieBreak,
};
pub use ledger::{availability, meets, overhead_ratio, qos_key, qos_metric, qos_metric_instances, Ledger};
pub use outcome::Outcome;
pub use report::{gini, ClassReport, Delivered, Distribution, RequestRecord, WindowStat};
pub use scheduler::{PreemptedFor, Preemption};
pub use simulate::{simulate, simulate_with};
