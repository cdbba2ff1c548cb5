//! Seed 002's heterogeneous OSEP (Owner Share Enforcement Policy, chapter
//! 4) and its baseline, the original OSEP (chapter 3), as
//! [`crate::qos::Eviction::Osep`]: tenants own portions of a platform of
//! hosts of different speeds; every `period` an update runs the decision
//! algorithm, which preempts at most `maxt` tasks of the tenant most over
//! its portion for the tenant most under it; preempted work is kept in
//! whole checkpoint blocks. `docs/osep.md` is the user's guide and the
//! record of the decisions where the seed is silent.
//!
//! - [`power`]: `DifPoder`, `PR_Preemp`, `PR_Aloc` (eqs. 4.1–4.3);
//! - [`decide`]: who a free machine serves, and the decision (Algorithms
//!   2 and 3);
//! - `sim`: the run through time (Algorithm 1), block checkpointing;
//! - [`satisfaction`]: `SU_i` (eq. 4.4).

pub mod decide;
pub mod power;
pub mod satisfaction;
mod sim;
#[cfg(test)]
mod tests;

pub use sim::{kept_work, simulate_osep};
