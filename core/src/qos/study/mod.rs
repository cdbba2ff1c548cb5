//! Seed 001's study (§4.2–§5): both policies on several workload samples,
//! each on infrastructures of size `N` (its peak demand), `0.9N` and `0.8N`;
//! the requests' paired availabilities, the penalties, and each 10-minute
//! window's fairness by contention level, as means with 95 % confidence
//! intervals. The pieces are pure; `interstice qos study` runs them.
//!
//! - [`sizing`] — the peak on a host of infinite capacity, `N` by drawing
//!   hosts, `0.9N`/`0.8N` by removing them.
//! - [`contention`] — a window's level from the priority run.
//! - [`paired`] — 5 % squares and the SLO's quadrants (Fig. 6).
//! - [`stats`] — a mean and its 95 % interval (Student's t).
//! - [`tally`] — what the runs add up to ([`Study`]).

pub mod contention;
pub mod paired;
pub mod sizing;
pub mod stats;
pub mod tally;

pub use contention::Contention;
pub use paired::HeatMap;
pub use sizing::{Demand, Sizes, SizingError};
pub use stats::MeanCi;
pub use tally::{LevelReport, SizeReport, Study, POLICIES};

/// The infrastructure sizes of the study, in order.
pub const SIZES: [&str; 3] = ["N", "0.9N", "0.8N"];
