//! The admission questions asked of a cloud job after its prediction, in
//! order: the candidate rules, the admission mode, the submission-rate
//! regulator ([`crate::refusal`]). The rules live in their own modules; this
//! is where the engine's state answers them (the plan's idle capacity, the
//! window of admitted work).

use super::{work, State};
use crate::candidate::Request;
use crate::engine::{EngineConfig, Prediction};
use crate::job::JobId;
use crate::refusal::Refusal;
use crate::regulate::{RateVerdict, Regulation};
use crate::time::Time;

impl State {
    /// Idle processor-ticks of the convergence area in the HPC layer's plan
    /// over `[now, now + window)` (the regulator's capacity).
    fn idle_area(&self, cfg: &EngineConfig, now: Time, window: Time) -> i128 {
        let total = cfg.conv_procs as i128 * window.ticks() as i128;
        (total - self.hpc_plan().area_busy(now, now.saturating_add(window))).max(0)
    }

    /// The first refusal of a cloud job `request`ed by `owner` arriving at
    /// `now` with `prediction`, or `None`: admitted.
    pub(in crate::engine) fn refusal(
        &self,
        cfg: &EngineConfig,
        request: Request,
        prediction: &Prediction,
        now: Time,
        owner: Option<u32>,
    ) -> Option<Refusal> {
        let Request { procs, walltime, slo } = request;
        if let Err(not) = cfg.candidates.check(request) {
            return Some(Refusal::NotCandidate(not));
        }
        if cfg.rejects(prediction) {
            return Some(Refusal::Predicted);
        }
        let reg: &Regulation = cfg.regulation.as_ref()?;
        let idle = self.idle_area(cfg, now, reg.window);
        let job_work = work(procs, walltime).ticks() as i128;
        match self.rate.verdict(reg, now, job_work, idle, owner) {
            RateVerdict::Within { .. } => None,
            RateVerdict::Over {
                rate,
                later_start,
                share,
            } => {
                let start = later_start.map(|later| prediction.start.map_or(later, |s| s.max(later)));
                let offer = start.and_then(|start| {
                    Prediction::from_start(Some(start), walltime, slo, now, cfg.lambda, cfg.tau)
                        .counter_offer_slo
                });
                Some(Refusal::Regulated {
                    rate,
                    window: reg.window,
                    threshold: reg.threshold,
                    later_start,
                    counter_offer_slo: offer,
                    share,
                })
            }
        }
    }

    /// Cloud job `idx` of `owner` admitted at `now`: counted in the
    /// regulator's window (when there is one).
    pub(super) fn count_admitted(&mut self, cfg: &EngineConfig, idx: usize, owner: Option<u32>, now: Time) {
        if let Some(reg) = &cfg.regulation {
            let job = self.job(idx);
            let admitted = work(job.procs, job.walltime).ticks() as i128;
            self.rate.forget(now, reg.window);
            self.rate.record(now, admitted, idx, owner);
        }
    }

    /// Job `idx` became final: what it will not run of its admitted work
    /// leaves the regulator's window (all of it if it never started, the
    /// rest of its walltime if its last run ended early).
    pub(super) fn count_unrun(&mut self, idx: usize) {
        let record = &self.records[idx];
        let job = &record.job;
        let ran = match (record.start, record.end) {
            (Some(start), Some(end)) => (end - start).clamp(Time::ZERO, job.walltime),
            _ => Time::ZERO,
        };
        let unrun = work(job.procs, job.walltime - ran).ticks() as i128;
        self.rate.unrun(idx, unrun);
    }

    /// The regulator's measured rate at `now` (`None` without one).
    pub(in crate::engine) fn submission_rate(&self, cfg: &EngineConfig, now: Time) -> Option<f64> {
        let reg = cfg.regulation.as_ref()?;
        Some(
            self.rate
                .rate(now, reg.window, self.idle_area(cfg, now, reg.window)),
        )
    }

    /// Why the job `id` was refused, while the engine holds its record.
    pub(in crate::engine) fn refusal_of(&self, id: JobId) -> Option<&Refusal> {
        self.records[self.lookup(id).ok()?].refusal.as_ref()
    }
}
