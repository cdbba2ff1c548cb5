//! The data center of the thesis's §4.3–4.6 and chapter 5: several
//! schedulers, a global database of their idle slots, the best destination
//! `F^J'`, Algorithm 1 at the data center and Algorithm 2 after evictions,
//! and the Petri net every application moves through.
//!
//! * [`database`] — the published [`Tuple`]s, `F^J'` ([`rank`]) and
//!   Algorithm 1's verdict ([`route`]): the rules, shared with the daemon's
//!   broker.
//! * [`petri`] — the places, transitions and counts of Figure 4.1.
//! * [`center`] — [`Datacenter`]: the schedulers (engines) joined by the
//!   database, driven by a shell through time.

pub mod center;
pub mod database;
pub mod petri;

pub use center::{
    Arrival, Attempt, Datacenter, DatacenterConfig, DatacenterError, Finished, Routing, SchedulerConfig,
    SchedulerTotals, Service, Totals,
};
pub use database::{rank, route, Choice, Metadata, Request, Role, Route, Tuple};
pub use petri::{BadFiring, PetriNet, Place, Transition};
