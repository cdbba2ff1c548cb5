//! The admission holds standing ([`Holds`]), with their engine ids (a range
//! between the daemon's cloud jobs and the HPC jobs) and expiries. The actor
//! takes and releases them in `holds`.

use super::hpc_mirror::HPC_ID_BASE;
use crate::config::BackendConfig;
use interstice_core::Time;
use std::collections::BTreeMap;

/// Engine ids of holds are `HOLD_ID_BASE` plus a number below `HOLD_IDS`:
/// above the daemon's own cloud jobs, below the HPC jobs of the
/// event-driven backends.
pub(super) const HOLD_ID_BASE: u64 = 1 << 61;
pub(super) const HOLD_IDS: u64 = 1 << 60;
const _: () = assert!(HOLD_ID_BASE + HOLD_IDS <= HPC_ID_BASE);

/// The holds standing, by engine id, with when each expires.
#[derive(Debug)]
pub(super) struct Holds {
    /// How long a hold stands at most; `None`: no holds (not in Slurm mode,
    /// or `hold_seconds: 0`).
    pub(super) ttl: Option<Time>,
    /// Expiry and processors of each hold.
    pub(super) standing: BTreeMap<u64, (Time, u32)>,
    pub(super) next: u64,
}

impl Holds {
    /// The holds of a daemon with `backend`, started at `now`: its hold ids
    /// count from its start time in microseconds, so that a marker naming a
    /// hold of an earlier run of the daemon (still in Slurm's queue) never
    /// names one of this run's.
    pub(super) fn new(backend: &BackendConfig, now: Time) -> Holds {
        let ttl = match backend {
            BackendConfig::Slurm(slurm) if slurm.hold_seconds > 0.0 => {
                Some(Time::from_secs_f64(slurm.hold_seconds))
            }
            _ => None,
        };
        Holds {
            ttl,
            standing: BTreeMap::new(),
            next: HOLD_ID_BASE + now.ticks().rem_euclid(HOLD_IDS as i64) as u64,
        }
    }

    /// Whether `id` is a hold standing now.
    pub(super) fn holds(&self, id: u64) -> bool {
        self.standing.contains_key(&id)
    }

    /// Whether `id` is a hold standing now for a job of `procs` processors:
    /// a marker names a hold only for the job it was taken for (another
    /// job's comment naming it neither releases nor hides anything).
    pub(super) fn holds_for(&self, id: u64, procs: u32) -> bool {
        self.standing.get(&id).is_some_and(|&(_, held)| held == procs)
    }

    /// Whether admissions are held (Slurm mode, `hold_seconds` above 0);
    /// only the batch system's are ([`super::batch`]).
    pub(super) fn enabled(&self) -> bool {
        self.ttl.is_some()
    }

    /// Holds standing now.
    pub(super) fn len(&self) -> usize {
        self.standing.len()
    }
}
