//! Admission holds (Slurm mode): an evictable job `job_submit/interstice`
//! admits is not in Slurm's queue yet when the daemon answers, and the next
//! read of the plan is up to `bf_interval_seconds` away. So that evictable
//! jobs submitted meanwhile are not all promised the same hole, the admitted
//! job becomes a cloud job of the engine that never runs here: its slot is
//! held in the plan, concurrent predictions see it, and it is released once
//! Slurm lists the job (its marker's `hold=ID`) running or planned, whose own
//! place then stands for it, or after `hold_seconds`.

use super::cloud_job::engine_job;
use super::command::ApiError;
use super::hold_table::{HOLD_IDS, HOLD_ID_BASE};
use super::state::Actor;
use interstice_api::wire::PredictorVerdicts;
use interstice_core::{JobId, Refusal, Submitted, Time};

/// An admission under a hold: the engine's verdict, the hold (admitted
/// jobs) and every predictor's verdict.
pub(super) type HeldAdmission = (Submitted, Option<u64>, Option<PredictorVerdicts>, Option<Refusal>);

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
        let refusal = self.driver.engine().refusal_of(JobId(id)).cloned();
        let hold = (!verdict.is_rejected()).then(|| {
            self.holds.standing.insert(id, (now + ttl, procs));
            id
        });
        let decisions = self.pass(now);
        self.apply(decisions, now, Some(id));
        self.tuple_stale = true;
        self.metrics.admission_holds.set(self.holds.len() as i64);
        Ok(Some((verdict, hold, verdicts, refusal)))
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
