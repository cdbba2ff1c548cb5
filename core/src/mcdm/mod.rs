//! Multi-criteria decision making (seed 003): ranking alternatives on several
//! weighted criteria, by TOPSIS or by AHP, and AHP weights from pairwise
//! judgements; and seed 003's container scheduler, which ranks servers with
//! them.
//!
//! This module is the one owner of the ranking rules. The convergence area's
//! placement ([`crate::placement`]) ranks processors and destinations with
//! [`topsis`] on its own four criteria; seed 003's container scheduler ranks
//! servers with either method ([`rank`]).
//!
//! - [`rank`] — [`Method`], [`scores`] and [`rank`]: the one entry point;
//!   [`criterion`] — [`Criterion`], a column's direction and weight.
//! - [`topsis`] — closeness to the ideal over vector-normalised criteria.
//! - [`ahp`] — weights from judgements (principal eigenvector, consistency
//!   ratio), and AHP's ranking of alternatives by pairwise comparison.
//!
//! The container scheduler (`docs/placement.md`, "Seed 003's container
//! scheduler"):
//! - [`topology`] — the data center `G^s`: hosts, switches, links;
//!   [`fat_tree`] — the k-ary fat-tree generator.
//! - [`request`] — a request `Req(N^c, E^c)`: containers, pods, virtual links.
//! - [`queue`] — Table 6's queue orders.
//! - [`state`] — residual capacities; [`widest`] — the widest path (§3.8.3).
//! - [`place`] — Algorithms 1–3 for one request; [`choose`] — how a pod's
//!   servers are ordered (Table 7's profiles, AHP, TOPSIS, best and worst
//!   fit); [`meter`] — the metrics; [`simulate`] — the discrete-event loop,
//!   with and without resubmission.

pub mod ahp;
pub mod choose;
pub mod criterion;
pub mod fat_tree;
pub mod meter;
pub mod place;
pub mod queue;
pub mod rank;
pub mod request;
pub mod simulate;
pub mod state;
pub mod topology;
pub mod topsis;
pub mod widest;

pub use criterion::Criterion;
pub use rank::{best, rank, scores, Method};

#[cfg(test)]
mod tests;
