//! The job the crate's unit tests build their workloads from.

use interstice_core::{Job, JobId, JobKind, Time};

/// HPC job `id` submitted at `submit` seconds: 2 processors, an enforced
/// 100 s walltime, a 50 s run.
pub(crate) fn hpc_job(id: u64, submit: i64) -> Job {
    Job {
        id: JobId(id),
        submit: Time::from_secs(submit),
        walltime: Time::from_secs(100),
        walltime_enforced: true,
        runtime: Some(Time::from_secs(50)),
        procs: 2,
        kind: JobKind::Hpc,
        slo: None,
    }
}
