//! The batch system's jobs the engine knows ([`HpcMirror`]), by the batch
//! system's id, and the engine ids they get ([`HPC_ID_BASE`] up). The actor
//! keeps them in step with the engine in `hpc`.

use interstice_core::{JobId, Time};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Engine ids of HPC jobs start here; cloud jobs use their daemon id below it.
pub(super) const HPC_ID_BASE: u64 = 1 << 62;

/// The batch system's jobs the engine knows, by the batch system's id.
#[derive(Debug)]
pub(super) struct HpcMirror {
    pub(super) jobs: HashMap<String, HpcJob>,
    pub(super) names: HashMap<JobId, String>,
    /// When simulated jobs (embedded replay) end by themselves.
    pub(super) simulated_ends: BinaryHeap<Reverse<(Time, JobId)>>,
    pub(super) next_id: u64,
}

#[derive(Debug)]
pub(super) struct HpcJob {
    pub(super) engine_id: JobId,
    /// Simulated run time (embedded replay): the job ends this long after it starts.
    pub(super) runtime: Option<Time>,
}

impl Default for HpcMirror {
    fn default() -> Self {
        HpcMirror {
            jobs: HashMap::new(),
            names: HashMap::new(),
            simulated_ends: BinaryHeap::new(),
            next_id: HPC_ID_BASE,
        }
    }
}

impl HpcMirror {
    /// How many HPC jobs the engine knows.
    pub(super) fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Is `id` one of the mirrored HPC jobs?
    pub(super) fn knows(&self, id: JobId) -> bool {
        self.names.contains_key(&id)
    }

    /// The engine started HPC job `id`: a simulated one gets its end due.
    /// True when it is simulated (the daemon starts and ends it itself, so
    /// no batch system tells of its start).
    pub(super) fn started(&mut self, id: JobId, now: Time) -> bool {
        let runtime = self
            .names
            .get(&id)
            .and_then(|name| self.jobs.get(name))
            .and_then(|job| job.runtime);
        if let Some(runtime) = runtime {
            self.simulated_ends.push(Reverse((now + runtime, id)));
        }
        runtime.is_some()
    }
}
