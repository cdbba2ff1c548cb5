//! Multi-criteria decision making (seed 003): ranking alternatives on several
//! weighted criteria, by TOPSIS or by AHP, and AHP weights from pairwise
//! judgements.
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

pub mod ahp;
pub mod criterion;
pub mod rank;
pub mod topsis;

pub use criterion::Criterion;
pub use rank::{best, rank, scores, Method};
