//! Per-job records and the summary metrics of a run.
//!
//! Records and verdicts live here, and the engine depends on them, not both
//! ways: why a run stopped ([`EndReason`]) is defined here, the engine
//! re-exports it.

use crate::job::{Job, JobKind};
use crate::predict::{Prediction, Predictor};
use crate::procset::ProcSet;
use crate::time::Time;

/// What happened to one job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRecord {
    /// The job as submitted.
    pub job: Job,
    /// Start of its last (or only) run.
    pub start: Option<Time>,
    /// End of its last run.
    pub end: Option<Time>,
    /// Processors of its last run.
    pub procs: Option<ProcSet>,
    /// Why its last run stopped.
    pub end_reason: Option<EndReason>,
    /// The admission prediction (cloud jobs).
    pub prediction: Option<Prediction>,
    /// Every predictor's answer for this cloud job, by [`Predictor::index`]
    /// (the configured one's is `prediction`): what a run's per-predictor
    /// quality is counted from.
    pub verdicts: Option<[Verdict; Predictor::ALL.len()]>,
    /// Times it was evicted.
    pub evictions: u32,
    /// Processor-seconds of work lost to evictions.
    pub lost_work: Time,
    /// Rejected at admission.
    pub rejected: bool,
    /// Counter-offered SLO when rejected.
    pub counter_offer_slo: Option<Time>,
    /// Its runs an eviction ended before it was resubmitted, in order (its
    /// last run, evicted or not, is `start`..`end` on `procs`).
    pub evicted_runs: Vec<EvictedRun>,
    /// HPC work submitted after this cloud job's prediction evicted it, took
    /// the place planned for it, or (shared-queue) started ahead of it so
    /// that it started later than planned; or a resize of the convergence
    /// area did ([`crate::Engine::resize_area`]): no plan could foresee what
    /// that did to it (see [`JobRecord::unforeseeable_violation`]).
    pub hit_by_later_hpc: bool,
    /// Why it was refused at admission, when [`JobRecord::rejected`].
    pub refusal: Option<crate::refusal::Refusal>,
}

/// Why a running job stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// It finished on its own (success or failure of the job itself).
    Completed,
    /// It was killed at its walltime.
    WalltimeReached,
    /// It was killed because the engine evicted it.
    Evicted,
    /// It was killed or cancelled from outside (user, admin).
    Killed,
}

/// One predictor's answer for a cloud job: the yes/no and the probability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// A violation is predicted.
    pub predicts_violation: bool,
    /// Its probability ([`Prediction::probability`]).
    pub probability: f64,
}

impl From<&Prediction> for Verdict {
    fn from(p: &Prediction) -> Verdict {
        Verdict {
            predicts_violation: p.predicts_violation,
            probability: p.probability,
        }
    }
}

/// A run of a cloud job that an eviction ended, the job then resubmitted.
#[derive(Clone, Debug, PartialEq)]
pub struct EvictedRun {
    /// When it started.
    pub start: Time,
    /// When the kill was acknowledged.
    pub end: Time,
    /// Its processors.
    pub procs: ProcSet,
}

/// The violation rule, for every shell: a cloud job whose SLO deadline is
/// `deadline` (first arrival + SLO, also after resubmissions) and whose last
/// run ended at `end` for a reason (`None`: not ended yet) missed its SLO when
///
/// * its last run ended on its own or at its walltime after the deadline
///   (`C > a + SLO`), or
/// * its last run was evicted (no resubmission left) or killed, or it has
///   not ended.
pub fn violates(deadline: Time, end: Option<(Time, EndReason)>) -> bool {
    match end {
        Some((end, EndReason::Completed | EndReason::WalltimeReached)) => end > deadline,
        _ => true,
    }
}

/// The bound of the bounded slowdown: runs shorter than this count as this long.
pub const SLOWDOWN_BOUND: Time = Time::from_secs(10);

impl JobRecord {
    /// The record of a job just submitted: not started, not predicted, never evicted.
    pub fn new(job: Job) -> JobRecord {
        JobRecord {
            job,
            start: None,
            end: None,
            procs: None,
            end_reason: None,
            prediction: None,
            verdicts: None,
            evictions: 0,
            lost_work: Time::ZERO,
            rejected: false,
            counter_offer_slo: None,
            evicted_runs: Vec::new(),
            hit_by_later_hpc: false,
            refusal: None,
        }
    }

    /// Did this cloud job miss its SLO? HPC jobs, cloud jobs without an SLO
    /// and rejected cloud jobs never violate (a rejection is counted apart,
    /// see [`Summary::rejected`]); otherwise [`violates`] decides.
    pub fn violated(&self) -> bool {
        if self.job.kind != JobKind::Cloud || self.rejected {
            return false;
        }
        let Some(deadline) = self.job.deadline() else {
            return false;
        };
        violates(deadline, self.end.zip(self.end_reason))
    }

    /// Did this cloud job violate because of HPC work submitted after its
    /// prediction ([`JobRecord::hit_by_later_hpc`])? Such violations are
    /// scored apart: the foreseeable jobs are all the others.
    pub fn unforeseeable_violation(&self) -> bool {
        self.hit_by_later_hpc && self.violated()
    }

    /// Wait `start − submit` of the last run (from the first arrival).
    pub fn wait(&self) -> Option<Time> {
        self.start.map(|s| s - self.job.submit)
    }

    /// Run time `end − start` of the last run.
    pub fn run_time(&self) -> Option<Time> {
        Some(self.end? - self.start?)
    }

    /// Turnaround (response time) `end − submit`.
    pub fn turnaround(&self) -> Option<Time> {
        self.end.map(|e| e - self.job.submit)
    }

    /// Stretch `(wait + run) / run`; `None` before the end or for a zero run time.
    pub fn stretch(&self) -> Option<f64> {
        let run = self.run_time()?;
        if run <= Time::ZERO {
            return None;
        }
        Some(self.turnaround()?.as_secs_f64() / run.as_secs_f64())
    }

    /// Bounded slowdown `max(1, (wait + run) / max(run, 10 s))`; `None` before the end.
    pub fn bounded_slowdown(&self) -> Option<f64> {
        let run = self.run_time()?;
        let turnaround = self.turnaround()?;
        Some((turnaround.as_secs_f64() / run.max(SLOWDOWN_BOUND).as_secs_f64()).max(1.0))
    }
}

/// `a / b`, `None` when `b` is 0: a ratio over nothing is undefined, not 0
/// (written `null` in JSON, empty in CSV, `n/a` in text).
fn ratio(a: f64, b: f64) -> Option<f64> {
    (b != 0.0).then(|| a / b)
}

/// Shows a ratio that may be undefined: `n/a` for `None`, else the value
/// with the format's precision (`format!("{:.3}", Shown(q.precision))`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown(pub Option<f64>);

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.0, f.precision()) {
            (None, _) => f.write_str("n/a"),
            (Some(v), Some(digits)) => write!(f, "{v:.digits$}"),
            (Some(v), None) => write!(f, "{v}"),
        }
    }
}

impl PredictionQuality {
    /// Fill the derived figures from the four counts (`None` when undefined,
    /// never NaN); the Brier score is given apart (`None`: not known).
    pub fn from_counts(tp: u64, fp: u64, fn_: u64, tn: u64, brier: Option<f64>) -> PredictionQuality {
        let (tpf, fpf, fnf, tnf) = (tp as f64, fp as f64, fn_ as f64, tn as f64);
        let precision = ratio(tpf, tpf + fpf);
        let recall = ratio(tpf, tpf + fnf);
        PredictionQuality {
            tp,
            fp,
            fn_,
            tn,
            precision,
            recall,
            accuracy: ratio(tpf + tnf, tpf + fpf + fnf + tnf),
            f1: precision.zip(recall).and_then(|(p, r)| ratio(2.0 * p * r, p + r)),
            thesis_accuracy: ratio(fpf + fnf, tpf + fpf),
            thesis_precision: ratio(tpf, tpf + fnf),
            brier,
        }
    }
}

/// Confusion matrix of violation prediction plus the thesis's own two figures.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PredictionQuality {
    /// Predicted violation, violated.
    pub tp: u64,
    /// Predicted violation, met.
    pub fp: u64,
    /// Predicted met, violated.
    pub fn_: u64,
    /// Predicted met, met.
    pub tn: u64,
    /// tp / (tp + fp).
    pub precision: Option<f64>,
    /// tp / (tp + fn).
    pub recall: Option<f64>,
    /// (tp + tn) / all.
    pub accuracy: Option<f64>,
    /// Harmonic mean of precision and recall.
    pub f1: Option<f64>,
    /// The thesis's "accuracy": (fp + fn) / predicted violations (lower is better).
    pub thesis_accuracy: Option<f64>,
    /// The thesis's "precision": predicted-and-occurred / occurred.
    pub thesis_precision: Option<f64>,
    /// Brier score: the mean squared difference between the violation
    /// probability and the outcome (0 perfect; 1 or 0 probabilities make it
    /// the error rate).
    #[cfg_attr(feature = "serde", serde(default))]
    pub brier: Option<f64>,
}

/// The prediction quality of every predictor over the same cloud jobs.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PredictorQualities {
    /// [`Predictor::Exact`].
    pub exact: PredictionQuality,
    /// [`Predictor::Thesis`].
    pub thesis: PredictionQuality,
    /// [`Predictor::Learned`].
    pub learned: PredictionQuality,
}

impl PredictorQualities {
    fn from_tallies(tallies: &[QualityTally; Predictor::ALL.len()]) -> PredictorQualities {
        PredictorQualities {
            exact: tallies[Predictor::Exact.index()].quality(),
            thesis: tallies[Predictor::Thesis.index()].quality(),
            learned: tallies[Predictor::Learned.index()].quality(),
        }
    }

    /// The quality of `predictor`.
    pub fn of(&self, predictor: Predictor) -> &PredictionQuality {
        match predictor {
            Predictor::Exact => &self.exact,
            Predictor::Thesis => &self.thesis,
            Predictor::Learned => &self.learned,
        }
    }
}

/// The metrics of a whole run (see `summary.json`).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Summary {
    /// All jobs.
    pub jobs: u64,
    /// HPC jobs.
    pub hpc_jobs: u64,
    /// Cloud jobs.
    pub cloud_jobs: u64,
    /// Last end of any job minus first submission... (see compute docs).
    pub makespan: f64,
    /// Same, HPC jobs only.
    pub hpc_makespan: f64,
    /// Mean wait (start − submit) of started jobs, seconds (`None`: none started).
    pub mean_wait: Option<f64>,
    /// Mean bounded slowdown (10 s bound; `None`: none ended).
    pub mean_bounded_slowdown: Option<f64>,
    /// Mean wait of the HPC jobs that started, seconds (`None`: none started).
    #[cfg_attr(feature = "serde", serde(default))]
    pub hpc_mean_wait: Option<f64>,
    /// Mean bounded slowdown of the HPC jobs that ended (`None`: none ended).
    #[cfg_attr(feature = "serde", serde(default))]
    pub hpc_mean_bounded_slowdown: Option<f64>,
    /// Used processor-seconds / (procs × makespan) (`None`: makespan 0).
    pub utilization: Option<f64>,
    /// Cloud jobs that violated their SLO.
    pub violations: u64,
    /// violations / cloud jobs submitted × 100, rejected ones included in
    /// the denominator (`None`: no cloud job).
    pub violation_percent: Option<f64>,
    /// Evictions.
    pub evictions: u64,
    /// Processor-seconds lost to evictions.
    pub lost_work: f64,
    /// Rejected cloud jobs, every reason ([`crate::Refusal`]) included.
    pub rejected: u64,
    /// Of `rejected`, the jobs outside the candidate rules
    /// ([`crate::candidate`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub rejected_not_candidate: u64,
    /// Of `rejected`, the jobs the submission-rate regulator refused
    /// ([`crate::regulate`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub rejected_regulated: u64,
    /// Prediction quality of the predictor that admitted.
    pub prediction: PredictionQuality,
    /// Prediction quality of every predictor, over the same jobs.
    #[cfg_attr(feature = "serde", serde(default))]
    pub predictors: PredictorQualities,
    /// Violations of cloud jobs (scored by the predictors) that HPC work
    /// submitted after their prediction caused
    /// ([`JobRecord::unforeseeable_violation`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub unforeseeable_violations: u64,
    /// Prediction quality of every predictor over the foreseeable jobs: the
    /// jobs of `predictors` without those unforeseeable violations.
    #[cfg_attr(feature = "serde", serde(default))]
    pub predictors_foreseeable: PredictorQualities,
}

impl Summary {
    /// Compute the summary of a run on `procs` processors from its records
    /// (any order: every sum is exact, so the order never changes a digit).
    ///
    /// * `makespan` = last end of any job − first submission of any job;
    ///   `hpc_makespan` the same over HPC jobs alone (the thesis's `C_max`);
    ///   0 when no job ended.
    /// * `mean_wait` over jobs that started (all kinds), `mean_bounded_slowdown`
    ///   over jobs that ended (all kinds); `hpc_mean_wait` and
    ///   `hpc_mean_bounded_slowdown` the same over HPC jobs alone, the
    ///   numbers that say what cloud jobs cost the HPC work.
    /// * `utilization` = (processor-seconds of every run, evicted runs
    ///   included) / (`procs` × `makespan`).
    /// * `violations` per [`JobRecord::violated`]; `violation_percent` =
    ///   violations / cloud jobs × 100 (rejected jobs stay in the denominator;
    ///   [`Summary::violation_percent_of_admitted`] leaves them out).
    /// * `prediction` over cloud jobs with an SLO and a prediction that were
    ///   not rejected: predicted = [`Prediction::predicts_violation`],
    ///   occurred = [`JobRecord::violated`], the Brier score from
    ///   [`Prediction::probability`]; `predictors` the same for each
    ///   predictor's [`JobRecord::verdicts`]; `predictors_foreseeable` the
    ///   same without the `unforeseeable_violations`.
    pub fn compute<'a>(records: impl IntoIterator<Item = &'a JobRecord>, procs: u32) -> Summary {
        let mut tally = SummaryTally::default();
        for record in records {
            tally.add(record);
        }
        tally.summary(procs)
    }

    /// Cloud jobs admitted: submitted and not rejected (only cloud jobs are).
    pub fn admitted(&self) -> u64 {
        self.cloud_jobs.saturating_sub(self.rejected)
    }

    /// violations / [`Summary::admitted`] × 100 (`None`: none admitted);
    /// `violation_percent` keeps the rejected jobs in its denominator.
    pub fn violation_percent_of_admitted(&self) -> Option<f64> {
        ratio(self.violations as f64 * 100.0, self.admitted() as f64)
    }
}

/// A [`Summary`] built one record at a time, so that a run can hand its
/// records over as jobs end and keep only this. Sums of times are kept in
/// integer ticks and bounded slowdowns in fixed point, so the result does not
/// depend on the order the records come in.
#[derive(Clone, Debug, Default)]
pub struct SummaryTally {
    jobs: u64,
    hpc_jobs: u64,
    cloud_jobs: u64,
    /// (first submission, last end) of all jobs, then of HPC jobs.
    span: (Option<Time>, Option<Time>),
    hpc_span: (Option<Time>, Option<Time>),
    /// Σ wait and how many, of all jobs then of HPC jobs.
    waits: [MeanTally; 2],
    /// Σ bounded slowdown × 2^52 (every value is ≥ 1, so exact) and how
    /// many, of all jobs then of HPC jobs.
    bslds: [MeanTally; 2],
    /// Processor-ticks used (runs and lost work).
    used_ticks: i128,
    lost_ticks: i128,
    evictions: u64,
    rejected: u64,
    /// Of them, by [`crate::Refusal`]: not candidates, regulated.
    refused: [u64; 2],
    violations: u64,
    /// The admitting predictor, then each of [`Predictor::ALL`].
    prediction: QualityTally,
    predictors: [QualityTally; Predictor::ALL.len()],
    /// The same over the foreseeable jobs, and the unforeseeable violations.
    foreseeable: [QualityTally; Predictor::ALL.len()],
    unforeseeable: u64,
}

/// An exact sum (integer ticks or fixed point) and the number of its terms.
#[derive(Clone, Copy, Debug, Default)]
struct MeanTally {
    sum: i128,
    count: u64,
}

impl MeanTally {
    fn add(&mut self, value: i128) {
        self.sum += value;
        self.count += 1;
    }

    /// The mean, with the sum turned into a float by `to_f64`; `None` over nothing.
    fn mean(&self, to_f64: impl Fn(i128) -> f64) -> Option<f64> {
        ratio(to_f64(self.sum), self.count as f64)
    }
}

/// Confusion counts and the Brier score's sum, in fixed point so that the
/// sum does not depend on the order of the jobs.
#[derive(Clone, Copy, Debug, Default)]
struct QualityTally {
    /// tp, fp, fn, tn.
    confusion: [u64; 4],
    /// Σ (probability − outcome)² × 2^(2·BRIER_BITS).
    squared_error: u128,
}

/// Fixed-point bits of a probability in the Brier sum.
const BRIER_BITS: u32 = 24;

impl QualityTally {
    fn add(&mut self, verdict: Verdict, violated: bool) {
        let cell = match (verdict.predicts_violation, violated) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (false, false) => 3,
        };
        self.confusion[cell] += 1;
        self.squared_error += squared_error(verdict.probability, violated);
    }

    fn quality(&self) -> PredictionQuality {
        let [tp, fp, fn_, tn] = self.confusion;
        let n = tp + fp + fn_ + tn;
        let mean = |sum: u128| (n > 0).then(|| sum as f64 / (1u128 << (2 * BRIER_BITS)) as f64 / n as f64);
        PredictionQuality::from_counts(tp, fp, fn_, tn, mean(self.squared_error))
    }
}

/// `(probability − outcome)²` in fixed point (2^(2·BRIER_BITS) is 1).
fn squared_error(probability: f64, violated: bool) -> u128 {
    let one = 1i64 << BRIER_BITS;
    let p = (probability.clamp(0.0, 1.0) * one as f64).round() as i64;
    let error = (p - if violated { one } else { 0 }).unsigned_abs() as u128;
    error * error
}

/// Fixed-point scale of bounded slowdowns: 2^52, so a value ≥ 1 is an integer.
const BSLD_SCALE: f64 = (1u64 << 52) as f64;

/// A sum of fixed-point bounded slowdowns as a float.
fn bsld_from_fixed(sum: i128) -> f64 {
    sum as f64 / BSLD_SCALE
}

/// Ticks to seconds, exact for whole seconds whatever the total.
fn ticks_to_secs(ticks: i128) -> f64 {
    let per_sec = Time::from_secs(1).ticks() as i128;
    ticks.div_euclid(per_sec) as f64 + ticks.rem_euclid(per_sec) as f64 / per_sec as f64
}

impl SummaryTally {
    /// Count one job's (final or current) record.
    pub fn add(&mut self, r: &JobRecord) {
        self.jobs += 1;
        let widen = |span: &mut (Option<Time>, Option<Time>)| {
            span.0 = Some(span.0.map_or(r.job.submit, |first| first.min(r.job.submit)));
            if let Some(end) = r.end {
                span.1 = Some(span.1.map_or(end, |last| last.max(end)));
            }
        };
        widen(&mut self.span);
        match r.job.kind {
            JobKind::Hpc => {
                self.hpc_jobs += 1;
                widen(&mut self.hpc_span);
            }
            JobKind::Cloud => self.cloud_jobs += 1,
        }
        let kinds = if r.job.kind == JobKind::Hpc { 2 } else { 1 };
        if let Some(wait) = r.wait() {
            for tally in &mut self.waits[..kinds] {
                tally.add(wait.ticks() as i128);
            }
        }
        if let Some(bsld) = r.bounded_slowdown() {
            for tally in &mut self.bslds[..kinds] {
                tally.add((bsld * BSLD_SCALE) as i128);
            }
        }
        if r.end_reason != Some(EndReason::Evicted) {
            if let Some(run) = r.run_time() {
                self.used_ticks += run.ticks() as i128 * r.job.procs as i128;
            }
        }
        self.used_ticks += r.lost_work.ticks() as i128;
        self.lost_ticks += r.lost_work.ticks() as i128;
        self.evictions += r.evictions as u64;
        if r.rejected {
            self.rejected += 1;
            match r.refusal {
                Some(crate::refusal::Refusal::NotCandidate(_)) => self.refused[0] += 1,
                Some(crate::refusal::Refusal::Regulated { .. }) => self.refused[1] += 1,
                _ => {}
            }
        }
        let violated = r.violated();
        if violated {
            self.violations += 1;
        }
        if r.job.kind == JobKind::Cloud && !r.rejected && r.job.slo.is_some() {
            if let Some(p) = &r.prediction {
                self.prediction.add(Verdict::from(p), violated);
            }
            if let Some(verdicts) = &r.verdicts {
                for (tally, &verdict) in self.predictors.iter_mut().zip(verdicts) {
                    tally.add(verdict, violated);
                }
                if r.unforeseeable_violation() {
                    self.unforeseeable += 1;
                } else {
                    for (tally, &verdict) in self.foreseeable.iter_mut().zip(verdicts) {
                        tally.add(verdict, violated);
                    }
                }
            }
        }
    }

    /// The summary of what was added, on `procs` processors (see [`Summary::compute`]).
    pub fn summary(&self, procs: u32) -> Summary {
        let span_secs = |span: (Option<Time>, Option<Time>)| match span {
            (Some(first), Some(last)) if last > first => (last - first).as_secs_f64(),
            _ => 0.0,
        };
        let makespan = span_secs(self.span);
        Summary {
            jobs: self.jobs,
            hpc_jobs: self.hpc_jobs,
            cloud_jobs: self.cloud_jobs,
            makespan,
            hpc_makespan: span_secs(self.hpc_span),
            mean_wait: self.waits[0].mean(ticks_to_secs),
            mean_bounded_slowdown: self.bslds[0].mean(bsld_from_fixed),
            hpc_mean_wait: self.waits[1].mean(ticks_to_secs),
            hpc_mean_bounded_slowdown: self.bslds[1].mean(bsld_from_fixed),
            utilization: ratio(ticks_to_secs(self.used_ticks), procs as f64 * makespan),
            violations: self.violations,
            violation_percent: ratio(self.violations as f64 * 100.0, self.cloud_jobs as f64),
            evictions: self.evictions,
            lost_work: ticks_to_secs(self.lost_ticks),
            rejected: self.rejected,
            rejected_not_candidate: self.refused[0],
            rejected_regulated: self.refused[1],
            prediction: self.prediction.quality(),
            predictors: PredictorQualities::from_tallies(&self.predictors),
            unforeseeable_violations: self.unforeseeable,
            predictors_foreseeable: PredictorQualities::from_tallies(&self.foreseeable),
        }
    }
}
