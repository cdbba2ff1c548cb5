//! Admission holds (Slurm mode): an evictable job `job_submit/interstice`
//! admits is not in Slurm's queue yet when the daemon answers, and the next
//! read of the plan is up to `bf_interval_seconds` away. So that evictable
//! jobs submitted meanwhile are not all promised the same hole, the admitted
//! job becomes a cloud job of the engine that never runs here: its slot is
//! held in the plan, concurrent predictions see it, and it is released once
//! Slurm lists the job (its marker's `hold=ID`) running or planned, whose own
//! place then stands for it, or after `hold_seconds`.

use super::command::ApiError;
use super::supervisor::engine_job;
use super::Actor;
use crate::config::BackendConfig;
use interstice_api::wire::PredictorVerdicts;
use interstice_core::{JobId, Submitted, Time};
use std::collections::BTreeMap;

/// Engine ids of holds are `HOLD_ID_BASE` plus a number below `HOLD_IDS`:
/// above the daemon's own cloud jobs, below the HPC jobs of the
/// event-driven backends.
const HOLD_ID_BASE: u64 = 1 << 61;
const HOLD_IDS: u64 = 1 << 60;
const _: () = assert!(HOLD_ID_BASE + HOLD_IDS <= super::hpc::HPC_ID_BASE);

/// The holds standing, by engine id, with when each expires.
#[derive(Debug)]
pub(super) struct Holds {
    /// How long a hold stands at most; `None`: no holds (not in Slurm mode,
    /// or `hold_seconds: 0`).
    ttl: Option<Time>,
    /// Expiry and processors of each hold.
    standing: BTreeMap<u64, (Time, u32)>,
    next: u64,
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

/// An admission under a hold: the engine's verdict, the hold (admitted
/// jobs) and every predictor's verdict.
pub(super) type HeldAdmission = (Submitted, Option<u64>, Option<PredictorVerdicts>);

impl Actor {
    /// The admission verdict for an evictable job Slurm is about to queue,
    /// with a hold on its slot when it is admitted and holds are on; `None`
    /// when holds are off (the caller predicts without holding).
    pub(super) fn admit_held(
        &mut self,
        procs: u32,
        walltime: Time,
        slo: Time,
        now: Time,
    ) -> Result<Option<HeldAdmission>, ApiError> {
        let Some(ttl) = self.holds.ttl else {
            return Ok(None);
        };
        let id = self.holds.next;
        self.holds.next = HOLD_ID_BASE + (id - HOLD_ID_BASE + 1) % HOLD_IDS;
        let verdict = self
            .driver
            .submit(engine_job(id, procs, walltime, now, Some(slo)))
            .map_err(super::admission::engine_error)?;
        let verdicts = super::admission::predictor_verdicts(self.driver.engine(), id);
        let hold = (!verdict.is_rejected()).then(|| {
            self.holds.standing.insert(id, (now + ttl, procs));
            id
        });
        let decisions = self.pass(now);
        self.apply(decisions, now, Some(id));
        self.tuple_stale = true;
        self.metrics.admission_holds.set(self.holds.len() as i64);
        Ok(Some((verdict, hold, verdicts)))
    }

    /// Release the holds `settled` names (their jobs, of that many
    /// processors, are in Slurm's plan now), and those standing past their
    /// expiry at `now`.
    pub(super) fn release_holds(&mut self, settled: &[(u64, u32)], now: Time) {
        for &(id, procs) in settled {
            if self.holds.holds_for(id, procs) {
                self.release_hold(id, now, "settled");
            }
        }
        let expired: Vec<u64> = self
            .holds
            .standing
            .iter()
            .filter(|&(_, &(expiry, _))| expiry <= now)
            .map(|(&id, _)| id)
            .collect();
        for id in expired {
            tracing::info!(hold = id, "admission hold expired: Slurm never listed its job");
            self.release_hold(id, now, "expired");
        }
    }

    /// The engine evicted hold `id` (HPC work of the plan took its slot):
    /// acknowledged at once, and the hold is gone. False if `id` is no hold.
    pub(super) fn hold_evicted(&mut self, id: u64, now: Time) -> bool {
        self.release_hold(id, now, "displaced")
    }

    fn release_hold(&mut self, id: u64, now: Time, result: &str) -> bool {
        if self.holds.standing.remove(&id).is_none() {
            return false;
        }
        // Queued: withdrawn; started (in the engine only): ended; being
        // evicted: the kill acknowledged, then withdrawn if the engine's
        // lifecycle queued it again.
        let _ = self
            .driver
            .job_ended(JobId(id), now, interstice_core::EndReason::Killed);
        let _ = self.driver.cancel(JobId(id), now);
        self.metrics
            .admission_holds_released
            .with_label_values(&[result])
            .inc();
        self.metrics.admission_holds.set(self.holds.len() as i64);
        self.dirty = true;
        true
    }
}
