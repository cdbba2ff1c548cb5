//! Slurm `job_submit/interstice`: admission of evictable cloud jobs into the
//! holes of the backfill plan.
//!
//! For a job flagged evictable (`sbatch --evictable`/`--slo=SECONDS` from
//! `spank_interstice`, or submitted to a configured partition/QOS), the plugin
//! asks `intersticed` (bounded latency, default 50 ms) whether the SLO can be
//! met:
//! - accepted → the job is routed to the cloud partition/QOS, its time limit is
//!   its walltime and (optionally) its deadline is submit + SLO;
//! - predicted violation → the submission is rejected and `err_msg` names the
//!   SLO that can be met;
//! - daemon unreachable → fail-open (accept unpredicted, marked in the job
//!   comment so the daemon counts it) or fail-closed, as configured.
//!
//! Slurm's ABI is reached only through a small C shim (`csrc/shim.c`) compiled
//! against the installed `slurm.h`; see `build.rs`. Modules: [`config`]
//! (`interstice.conf`), [`admission`] (the decision, pure), `plugin` (the
//! exported symbols).

#![deny(missing_docs)]

pub mod admission;
pub mod config;
mod plugin;
mod shim;

/// `SLURM_VERSION_NUMBER` of the headers this plugin was built against (0: none).
pub const SLURM_VERSION_NUMBER: u32 =
    interstice_api::slurm::version_number(env!("INTERSTICE_SLURM_VERSION_NUMBER"));
