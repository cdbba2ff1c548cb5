//! The data center of the thesis's §4.3–4.6 and chapter 5: several
//! schedulers, a global database of their idle slots, the best destination
//! `F^J'`, Algorithm 1 at the data center and Algorithm 2 after evictions,
//! and the Petri net every application moves through.
//!
//! * [`database`] — the published [`Tuple`]s, `F^J'` ([`rank`]) and
//!   Algorithm 1's verdict ([`route`]): the rules, shared with the daemon's
//!   broker.
//! * [`latency`] — `F^r`, a job's latency to a destination from its bytes,
//!   the flow's latency and bandwidth and the destination's monitoring delay.
//! * [`petri`] — the places, transitions and counts of Figure 4.1.
//! * [`center`] — [`Datacenter`]: the schedulers (engines) joined by the
//!   database, driven by a shell through time.

pub mod center;
pub mod database;
pub mod latency;
pub mod petri;

pub use center::{
    Arrival, Attempt, Datacenter, DatacenterConfig, DatacenterError, Finished, Routing, SchedulerConfig,
    SchedulerTotals, Service, Totals,
};
pub use database::{rank, route, Choice, Metadata, Request, Role, Route, Tuple};
pub use latency::Latency;
pub use petri::{BadFiring, PetriNet, Place, Transition};
