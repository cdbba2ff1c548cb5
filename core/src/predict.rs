//! The thesis's start prediction `F^σ` (§4.6.1), beside the engine's exact
//! earliest fit.
//!
//! The predictors ([`Predictor`]) and Algorithm 1's answer for a cloud job
//! ([`Prediction`]) live here too, below both the engine that makes
//! predictions and the metrics that record them.
//!
//! ```text
//! F^σ(J) = t0_immediate + r        if F^W(J) ⊂ W_immediate
//!        = t0_future + r + β       if F^W(J) ⊂ F^γ(W_future, J)
//!        = ∞                       otherwise
//! ```
//!
//! `F^W(J)` is the job's area, `h` processors × `wt`. It lies in
//! `W_immediate` when `h` processors idle now stay idle over
//! `[now + r, now + r + wt)`. `W_future` is read one of two ways
//! ([`WFuture`]). As §4.5 defines it (the default, `holes`): "os espaços
//! ociosos entre aplicações escalonadas e depois delas", every idle time of
//! the area after now, holes between planned jobs included. As Algorithm 3
//! publishes it (lines 17–18, `published`): the stage-1 slots (processors
//! idle now, until their next planned work) and each processor's time after
//! its last planned job (between maintenance windows), the holes left out.
//! `F^γ(W_future, J)` is its idle area before the job would be violated, up
//! to `a + SLO`; the job lies in it when some slot start `t0 > now` has `h`
//! processors idle over `[t0, t0 + wt)` inside those slots and
//! `t0 + wt ≤ a + SLO`. The earliest such `t0` is `t0_future`. `β` is the
//! thesis's "magic" backfilling time. A `β` in `0 ≤ β ≤ SLO − wt` accepts
//! `W_future`. `β = t0 + SLO` disqualifies it, and so does any `β` above
//! `SLO − wt` for this job.
//!
//! With §4.5's `W_future`, `W_immediate ∪ W_future` is all the area's idle
//! time, so with `r = β = 0` `F^σ` is the earliest fit in the current plan
//! cut at the deadline: the exact predictor of a scheduler that places each
//! job at its earliest fit (`cars`, `conservative`), and a different
//! answer from Algorithm 3's stages under `convergence`.
//!
//! The slots are those of the engine's current plan at the instant of the
//! prediction, which is the tuple a scheduler publishes after each job it
//! schedules. The exchange of slots between schedulers, with its
//! staleness, is the data center's business.

use crate::time::Time;

/// `β` of `F^σ`: how `W_future` is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beta {
    /// Accept `W_future`: the job is predicted to start this long after the
    /// future slot opens (`0 ≤ β`). For a job with `β > SLO − wt` the slot is
    /// disqualified, as the thesis bounds `β` by `SLO − wt`.
    Wait(Time),
    /// `β = t0 + SLO`: `W_future` never qualifies, only idle-now slots do.
    Disqualify,
}

/// Which idle time `F^σ`'s `W_future` holds (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WFuture {
    /// §4.5: the idle spaces between scheduled jobs and after them.
    #[default]
    Holes,
    /// Algorithm 3's lines 17–18: the stage-1 slots and each processor's
    /// time after its last planned job; holes between planned jobs left out.
    Published,
}

crate::job::named_options!(WFuture, "W_future", "holes (§4.5) or published (Algorithm 3, lines 17-18)", {
    Holes => "holes",
    Published => "published",
});

/// The parameters of the thesis's predictor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThesisPrediction {
    /// `r`, the latency until the job can start: 0 for the scheduler that
    /// analyses its own queue (the thesis's experiments).
    pub latency: Time,
    /// `β`.
    pub beta: Beta,
    /// Which idle time `W_future` holds.
    pub w_future: WFuture,
}

impl Default for ThesisPrediction {
    /// `r = 0`, `β = 0`, §4.5's `W_future`: a job that fits a future slot
    /// is predicted to start when that slot opens.
    fn default() -> Self {
        ThesisPrediction {
            latency: Time::ZERO,
            beta: Beta::Wait(Time::ZERO),
            w_future: WFuture::Holes,
        }
    }
}

impl ThesisPrediction {
    /// Check the parameters; the message names the field and the fix.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if self.latency < Time::ZERO || self.latency.is_infinite() {
            return Err(format!(
                "thesis.latency is {}: give a finite number of seconds >= 0",
                self.latency
            ));
        }
        if let Beta::Wait(beta) = self.beta {
            if beta < Time::ZERO || beta.is_infinite() {
                return Err(format!(
                    "thesis.beta is {beta}: give a finite number of seconds >= 0, or disqualify"
                ));
            }
        }
        Ok(())
    }

    /// `F^σ` for a job of walltime `wt` and SLO `slo` that arrived at
    /// `arrival`, analysed at `now`. The slots are asked through two
    /// queries on the plan: `immediate(end)`, are `h` processors idle now
    /// and until `end`; `future(deadline)`, the earliest `t0 > now` with `h`
    /// processors idle over `[t0, t0 + wt)` and `t0 + wt ≤ deadline`.
    /// `None` is ∞.
    pub(crate) fn start(
        &self,
        now: Time,
        wt: Time,
        slo: Option<Time>,
        arrival: Time,
        immediate: impl FnOnce(Time) -> bool,
        future: impl FnOnce(Time) -> Option<Time>,
    ) -> Option<Time> {
        let start = now.saturating_add(self.latency);
        if immediate(start.saturating_add(wt)) {
            return Some(start);
        }
        let Beta::Wait(beta) = self.beta else {
            return None;
        };
        if slo.is_some_and(|slo| beta > slo - wt) {
            return None;
        }
        let deadline = slo.map_or(Time::INFINITY, |slo| arrival.saturating_add(slo));
        let t0 = future(deadline)?;
        Some(t0.saturating_add(self.latency).saturating_add(beta))
    }
}

/// How a cloud job's start is predicted at admission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Predictor {
    /// The earliest fit of the job in the engine's current plan (every
    /// queued and running job at its whole walltime).
    Exact,
    /// The thesis's `F^σ` (§4.6.1) over the idle slots `W_immediate` and
    /// `W_future` published at the end of the last scheduling pass, with the
    /// latency `r` and the backfilling time `β` of [`ThesisPrediction`].
    Thesis,
    /// The exact plan corrected by what finished jobs actually ran against
    /// their walltimes, with a calibrated violation probability
    /// (`core/src/learn.rs`). Equal to [`Predictor::Exact`] while every job
    /// runs its whole walltime.
    Learned,
}

crate::job::named_options!(Predictor, "predictor", "exact, thesis or learned", {
    Exact => "exact",
    Thesis => "thesis",
    Learned => "learned",
});

impl Predictor {
    /// Its place in [`Predictor::ALL`]: the engine answers with every
    /// predictor for every cloud job, so that a run reports each one's
    /// quality whichever admits.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The admission step's prediction for a cloud job (Algorithm 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// `F^σ`: predicted start, `None` = ∞ (no slot in sight).
    pub start: Option<Time>,
    /// `F^C`: predicted completion, `None` = ∞.
    pub completion: Option<Time>,
    /// `F^V = C' − (a + SLO)` in seconds: negative is slack, positive a predicted violation.
    /// `None` when the completion is ∞ or the job has no SLO.
    pub violation_seconds: Option<f64>,
    /// True if a violation is predicted (`F^V ≥ 0`... strictly: `C' > a + SLO`, or ∞).
    pub predicts_violation: bool,
    /// `F^SLO = (C' − a) · τ`: the SLO that can be offered; `None` when ∞.
    pub counter_offer_slo: Option<Time>,
    /// The probability of a violation: calibrated on earlier outcomes for
    /// [`Predictor::Learned`]; 1 or 0 (the answer, held as certain) for the
    /// predictors that only answer yes or no.
    pub probability: f64,
}

impl Prediction {
    /// Algorithm 1's prediction from a predicted start `F^σ` (`None` = ∞),
    /// the one owner of the rules of `F^C` (`σ + wt·λ`), `F^V`
    /// (`C − (a + SLO)`, a violation when `C > a + SLO` or `C = ∞`) and
    /// `F^SLO` (`(C − a)·τ`), for the engine and the data center alike.
    pub fn from_start(
        start: Option<Time>,
        wt: Time,
        slo: Option<Time>,
        arrival: Time,
        lambda: f64,
        tau: f64,
    ) -> Prediction {
        let completion = start.map(|s| s + wt.mul_f64(lambda));
        let violation_seconds = match (completion, slo) {
            (Some(c), Some(slo)) => Some((c - (arrival + slo)).as_secs_f64()),
            _ => None,
        };
        let predicts_violation = match slo {
            None => false,
            Some(slo) => completion.map_or(true, |c| c > arrival + slo),
        };
        let counter_offer_slo = completion.map(|c| (c - arrival).mul_f64(tau));
        Prediction {
            start,
            completion,
            violation_seconds,
            predicts_violation,
            counter_offer_slo,
            probability: if predicts_violation { 1.0 } else { 0.0 },
        }
    }
}
