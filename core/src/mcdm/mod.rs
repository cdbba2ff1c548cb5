//! Multi-criteria decision making (seed 003) and seed 003's container
//! scheduler.
//!
//! The scheduler (`docs/placement.md`, "Seed 003's container scheduler"):
//! - [`topology`] — the data center `G^s`: hosts, switches, links;
//!   [`fat_tree`] — the k-ary fat-tree generator.
//! - [`request`] — a request `Req(N^c, E^c)`: containers, pods, virtual links.
//! - [`queue`] — Table 6's queue orders.
//! - [`state`] — residual capacities; [`widest`] — the widest path (§3.8.3).
//! - [`place`] — Algorithms 1–3 for one request; [`meter`] — the metrics;
//!   [`simulate`] — the discrete-event loop, with and without resubmission.

pub mod fat_tree;
pub mod meter;
pub mod place;
pub mod queue;
pub mod request;
pub mod simulate;
pub mod state;
pub mod topology;
pub mod widest;

#[cfg(test)]
mod tests;
