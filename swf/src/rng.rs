//! The one seeded pseudo-random generator, SplitMix64: it lives in the
//! engine ([`interstice_core::rng`], which also draws the QoS scheduler's
//! allocation overheads and host ties with it) and is re-exported here for
//! the workload tools (cloud-job injection, run-time distributions,
//! synthetic workloads), so a seed always gives the same jobs.

pub use interstice_core::rng::SplitMix64;
