//! What the engine answers about cloud jobs: every predictor's start for a
//! job arriving now (exact, Algorithm 3's placement, the thesis's `F^σ`,
//! the learned correction), and the idle slots it publishes.

use super::*;
use crate::predict::WFuture;

impl State {
    /// Where Algorithm 3 (`shared-queue` convergence) places `k` processors
    /// of `mask` for `wt` from `now`.
    pub(super) fn stage_place(
        &self,
        cfg: &EngineConfig,
        mask: Mask,
        k: u32,
        wt: Time,
        now: Time,
    ) -> Option<(Time, Bits)> {
        let query = (k, wt, now, mask, self.hpc.version());
        if let Some((asked, answer)) = self.stage_cache.borrow().as_ref() {
            if *asked == query {
                return answer.clone();
            }
        }
        let ask = stages::Ask {
            plan: &self.hpc,
            mask,
            bits: self.mask_bits(mask),
            k,
            wt,
            now,
        };
        let answer = stages::place(ask, |p, s, e| in_maintenance(cfg, p, s, e));
        *self.stage_cache.borrow_mut() = Some((query, answer.clone()));
        answer
    }

    /// The exact predicted start of a cloud job arriving now: where the
    /// engine would plan it (the backlog's tail estimate in overload).
    pub(super) fn exact_start(&self, cfg: &EngineConfig, procs: u32, wt: Time, now: Time) -> Option<Time> {
        if self.shared && cfg.policy == Policy::Convergence {
            self.stage_place(cfg, Mask::Area, procs, wt, now).map(|f| f.0)
        } else if !self.shared && self.window_full() {
            self.tail_estimate(procs)
        } else {
            self.all().earliest_fit(procs, wt, now, Mask::Area).map(|f| f.0)
        }
    }

    /// Every predictor's answer for a cloud job of `procs` × `wt` with
    /// `slo`, arrived at `arrival`, asked at `now`, whose exact start is
    /// `exact.0` (the earliest fit in the plan when `exact.1`), by
    /// [`Predictor::index`]; and the learned answer's calibration bin.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn answers(
        &self,
        cfg: &EngineConfig,
        (exact, earliest): (Option<Time>, bool),
        procs: u32,
        wt: Time,
        slo: Option<Time>,
        arrival: Time,
        now: Time,
    ) -> ([Prediction; Predictor::ALL.len()], CalibrationBin) {
        // F^σ's slots are idle time of the same plan: when its earliest fit
        // starts later than now and ends after the deadline, no slot
        // qualifies (neither one idle now nor a future one that ends in
        // time), so F^σ is ∞ without a search.
        let deadline = slo.map(|slo| arrival.saturating_add(slo));
        let no_slot = earliest
            && exact.map_or(true, |s| {
                s > now && deadline.is_some_and(|d| s.saturating_add(wt) > d)
            });
        let thesis = if no_slot {
            None
        } else {
            self.thesis_start(cfg, procs, wt, slo, arrival, now)
        };
        let (learned, bin) = self.learned(cfg, exact, procs, wt, slo, arrival, now);
        (
            [
                prediction(cfg, exact, wt, slo, arrival),
                prediction(cfg, thesis, wt, slo, arrival),
                learned,
            ],
            bin,
        )
    }

    /// The learned predictor's answer ([`crate::learn`]) from the exact start.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn learned(
        &self,
        cfg: &EngineConfig,
        exact: Option<Time>,
        procs: u32,
        wt: Time,
        slo: Option<Time>,
        arrival: Time,
        now: Time,
    ) -> (Prediction, CalibrationBin) {
        // Under hpc-first the layers tell cloud work from HPC work ahead
        // (over the next SHARE_SEGMENTS breakpoints at most: the mix of the
        // near plan, at a bounded cost however deep the queue).
        let cloud_share = match (exact, &self.cloud_layer) {
            _ if self.shared => None,
            // Equal ratios need no mix: the share is not read.
            (Some(s), Some(all)) if s > now && self.learner.mixes_kinds() => {
                let horizon = all
                    .nth_breakpoint_after(now, SHARE_SEGMENTS)
                    .map_or(s, |t| t.min(s));
                let hpc = self.hpc_plan().area_work(now, horizon);
                let cloud = (all.area_busy(now, horizon) - hpc.busy).max(0);
                let work = cloud + hpc.passing;
                Some(if work > 0 { cloud as f64 / work as f64 } else { 0.0 })
            }
            _ => Some(0.0),
        };
        // A job placed once starts where it is placed: early ends ahead of
        // it do not bring it forward, only its own run is shorter.
        let estimate = if cfg.places_once() {
            crate::learn::LearnedStart {
                start: exact,
                run: self.learner.expected_run(procs, wt),
            }
        } else {
            self.learner.estimate(procs, wt, exact, now, cloud_share)
        };
        let mut answer = prediction(cfg, estimate.start, estimate.run, slo, arrival);
        let bin = Learner::bin_of(answer.violation_seconds, wt, exact == Some(now));
        answer.probability = self.learner.probability(bin, answer.predicts_violation);
        // The verdict is the calibrated one: the point estimate places the
        // job in its bin, the outcomes of the jobs predicted there decide
        // (an empty bin answers the point estimate).
        answer.predicts_violation = answer.probability >= 0.5;
        (answer, bin)
    }

    /// The thesis's `F^σ` ([`crate::predict`]) on the current plan's slots.
    pub(super) fn thesis_start(
        &self,
        cfg: &EngineConfig,
        procs: u32,
        wt: Time,
        slo: Option<Time>,
        arrival: Time,
        now: Time,
    ) -> Option<Time> {
        let immediate = |end: Time| self.all().free_over(now, end).and_count(&self.area) >= procs;
        let future = |deadline: Time| match cfg.thesis.w_future {
            // Every idle run that starts after now: the earliest fit from
            // the first such start is one (a fit slides back to `from` or
            // to a release), cut at the deadline.
            WFuture::Holes => {
                let plan = self.all();
                let from = plan.next_area_release_after(now)?;
                plan.earliest_fit(procs, wt, from, Mask::Area)
                    .map(|fit| fit.0)
                    .filter(|&t0| t0.saturating_add(wt) <= deadline)
            }
            WFuture::Published => {
                let ask = stages::Ask {
                    plan: self.all(),
                    mask: Mask::Area,
                    bits: &self.area,
                    k: procs,
                    wt,
                    now,
                };
                stages::published_future_fit(ask, deadline, |p, s, e| in_maintenance(cfg, p, s, e))
            }
        };
        cfg.thesis.start(now, wt, slo, arrival, immediate, future)
    }

    pub(in crate::engine) fn predict(
        &self,
        cfg: &EngineConfig,
        procs: u32,
        wt: Time,
        slo: Option<Time>,
        now: Time,
    ) -> Prediction {
        let at = now.max(self.now);
        if procs == 0 || procs > self.area.count() || wt < Time::ZERO {
            return prediction(cfg, None, wt, slo, now);
        }
        match cfg.predictor {
            Predictor::Thesis => {
                prediction(cfg, self.thesis_start(cfg, procs, wt, slo, now, at), wt, slo, now)
            }
            Predictor::Exact => prediction(cfg, self.exact_start(cfg, procs, wt, at), wt, slo, now),
            Predictor::Learned => {
                let exact = self.exact_start(cfg, procs, wt, at);
                self.learned(cfg, exact, procs, wt, slo, now, at).0
            }
        }
    }

    pub(in crate::engine) fn slots(&self, now: Time) -> Slots {
        let now = now.max(self.now);
        let mut segs = self.all().segments_from(now);
        let Some((_, first)) = segs.next() else {
            return Slots::default();
        };
        // W_immediate: processors of the area idle now and until when.
        let mut idle = first.and(&self.area);
        let mut immediate: Vec<ImmediateSlot> = Vec::new();
        // W_future: per-processor idle runs that start after now.
        let mut run_start: BTreeMap<u32, Time> = BTreeMap::new();
        let mut prev = first.and(&self.area);
        let mut groups: BTreeMap<(Time, Time), Vec<u32>> = BTreeMap::new();
        for (t, free) in segs {
            let free = free.and(&self.area);
            for p in idle.andnot(&free).iter() {
                immediate.push(ImmediateSlot {
                    proc: p,
                    idle_until: t,
                });
            }
            idle.and_assign(&free);
            for p in prev.andnot(&free).iter() {
                if let Some(s) = run_start.remove(&p) {
                    groups.entry((s, t)).or_default().push(p);
                }
            }
            for p in free.andnot(&prev).iter() {
                run_start.insert(p, t);
            }
            prev = free;
        }
        for p in idle.iter() {
            immediate.push(ImmediateSlot {
                proc: p,
                idle_until: Time::INFINITY,
            });
        }
        for (p, s) in run_start {
            groups.entry((s, Time::INFINITY)).or_default().push(p);
        }
        immediate.sort_by_key(|s| s.proc);
        let future = groups
            .into_iter()
            .map(|((start, end), ps)| FutureSlot {
                start,
                end,
                procs: crate::procset::ProcSet::from_sorted_ids(ps),
            })
            .collect();
        Slots { immediate, future }
    }
}
