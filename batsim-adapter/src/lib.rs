//! Batsim 4 protocol over ZeroMQ, and the built-in simulator with the same
//! semantics. Both drive the same `interstice_core::Engine`, so for the same
//! workload on a zero-latency platform they make the same decisions.
//!
//! - [`sim`] — the built-in discrete-event simulator (`interstice replay`).
//! - [`output`] — `jobs.csv` (Batsim's `_jobs.csv` columns plus Interstice's)
//!   and `summary.json`, written by both the simulator and the adapter.
//! - [`protocol`] — Batsim's JSON messages and the ZeroMQ REP server
//!   (`interstice batsim`).
//! - [`sweep`] — the experiment grid of `interstice sweep`, run on threads
//!   with the simulator, and its `sweep.csv`/`sweep.json` rows.
#![deny(missing_docs)]

pub mod dc_output;
pub mod osep_eval;
pub mod output;
pub mod protocol;
pub mod qos_output;
mod row_thread;
pub mod sim;
pub mod study;
pub mod study_output;
pub mod summary_json;
pub mod sweep;
