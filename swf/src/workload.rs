//! [`Workload`]: a whole workload in memory, as [`crate::load_workload`]
//! and the Batsim JSON reader ([`crate::batsim_json`]) return it.

use crate::extract::ExtractStats;
use crate::header::Header;
use crate::label;
use crate::stats::{self, WorkloadStats};
use interstice_core::Job;

/// A whole workload in memory.
#[derive(Clone, Debug, Default)]
pub struct Workload {
    /// Jobs, sorted by submit time then id.
    pub jobs: Vec<Job>,
    /// The cloud jobs' classes and tenants a Batsim JSON gives (never an SWF's).
    pub labels: label::JobLabels,
    /// Machine size: [`ExtractOptions::machine_procs`], else the SWF header's
    /// `MaxProcs`/`MaxNodes` or the JSON's `nb_res`.
    ///
    /// [`ExtractOptions::machine_procs`]: crate::extract::ExtractOptions::machine_procs
    pub machine_procs: Option<u32>,
    /// The SWF header (`None` for Batsim JSON).
    pub header: Option<Header>,
    /// What extraction kept and skipped.
    pub stats: ExtractStats,
}

impl Workload {
    /// Statistics of this workload.
    pub fn summary(&self) -> WorkloadStats {
        stats::workload_stats(&self.jobs, &self.stats, self.machine_procs.map(u64::from))
    }
}
