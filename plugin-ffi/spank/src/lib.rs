//! Slurm SPANK plugin `spank_interstice`.
//!
//! - Registers `--slo=SECONDS`, `--evictable` and `--class=NAME` in every context
//!   (`spank_option_register` from `slurm_spank_init`; a static option table
//!   is ignored by sbatch).
//! - In sbatch/salloc/srun (`slurm_spank_init_post_opt`), passes them to the
//!   job as the job-control variables `SPANK_INTERSTICE_SLO`,
//!   `SPANK_INTERSTICE_CLASS` and `SPANK_INTERSTICE_EVICTABLE`
//!   (`spank_job_control_setenv`): they travel in
//!   the job description's `spank_job_env`, where `job_submit/interstice`
//!   reads them, and into the prolog/epilog environment.
//! - In `slurm_spank_job_prolog`/`slurm_spank_job_epilog` (slurmd), tells the
//!   node's `intersticed` that an HPC job takes/releases processors
//!   (`POST /v1/hpc/events` started/ended), so it can evict local cloud work
//!   first: this node's CPUs of the job and their count, found by the node's
//!   name (`SLURMD_NODENAME`) in the job's `Nodes= CPU_IDs=` groups; `%n` in
//!   `socket=` names each node's own daemon. Errors are logged and never fail
//!   the job.
//!
//! Arguments come from the `plugstack.conf` line (see [`args`]).

#![deny(missing_docs)]
#![allow(non_upper_case_globals)]

pub mod args;
mod hooks;
mod slurm;

/// `SLURM_VERSION_NUMBER` of the headers this plugin was built against (0: none).
pub const SLURM_VERSION_NUMBER: u32 =
    interstice_api::slurm::version_number(env!("INTERSTICE_SLURM_VERSION_NUMBER"));

/// Plugin name (`_SLURM_SPANK_OPTION_interstice_*` in job environments).
#[no_mangle]
#[used]
pub static plugin_name: [u8; 11] = *b"interstice\0";
/// Plugin type: every SPANK plugin says `spank`.
#[no_mangle]
#[used]
pub static plugin_type: [u8; 6] = *b"spank\0";
/// Must match the running Slurm's major.minor.
#[no_mangle]
#[used]
pub static plugin_version: u32 = SLURM_VERSION_NUMBER;
