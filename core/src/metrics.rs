//! Per-job records and the summary metrics of a run.

use crate::engine::{EndReason, Prediction};
use crate::job::{Job, JobKind};
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
    /// Times it was evicted.
    pub evictions: u32,
    /// Processor-seconds of work lost to evictions.
    pub lost_work: Time,
    /// Rejected at admission.
    pub rejected: bool,
    /// Counter-offered SLO when rejected.
    pub counter_offer_slo: Option<Time>,
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
    /// Fill the derived figures from the four counts (`None` when undefined, never NaN).
    pub fn from_counts(tp: u64, fp: u64, fn_: u64, tn: u64) -> PredictionQuality {
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
        }
    }
}

/// Confusion matrix of violation prediction plus the thesis's own two figures.
#[derive(Clone, Debug, Default, PartialEq)]
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
}

/// The metrics of a whole run (see `summary.json`).
#[derive(Clone, Debug, Default, PartialEq)]
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
    /// Used processor-seconds / (procs × makespan) (`None`: makespan 0).
    pub utilization: Option<f64>,
    /// Cloud jobs that violated their SLO.
    pub violations: u64,
    /// violations / cloud jobs × 100 (`None`: no cloud job).
    pub violation_percent: Option<f64>,
    /// Evictions.
    pub evictions: u64,
    /// Processor-seconds lost to evictions.
    pub lost_work: f64,
    /// Rejected cloud jobs.
    pub rejected: u64,
    /// Prediction quality.
    pub prediction: PredictionQuality,
}

impl Summary {
    /// Compute the summary of a run on `procs` processors.
    ///
    /// * `makespan` = last end of any job − first submission of any job;
    ///   `hpc_makespan` the same over HPC jobs alone (the thesis's `C_max`);
    ///   0 when no job ended.
    /// * `mean_wait` over jobs that started (all kinds), `mean_bounded_slowdown`
    ///   over jobs that ended (all kinds).
    /// * `utilization` = (processor-seconds of every run, evicted runs
    ///   included) / (`procs` × `makespan`).
    /// * `violations` per [`JobRecord::violated`]; `violation_percent` =
    ///   violations / cloud jobs × 100 (rejected jobs stay in the denominator).
    /// * `prediction` over cloud jobs with an SLO and a prediction that were
    ///   not rejected: predicted = [`Prediction::predicts_violation`],
    ///   occurred = [`JobRecord::violated`].
    pub fn compute(records: &[JobRecord], procs: u32) -> Summary {
        let mut s = Summary {
            jobs: records.len() as u64,
            ..Summary::default()
        };
        let span = |it: &mut dyn Iterator<Item = &JobRecord>| -> f64 {
            let mut first: Option<Time> = None;
            let mut last: Option<Time> = None;
            for r in it {
                first = Some(first.map_or(r.job.submit, |f| f.min(r.job.submit)));
                if let Some(e) = r.end {
                    last = Some(last.map_or(e, |l| l.max(e)));
                }
            }
            match (first, last) {
                (Some(f), Some(l)) if l > f => (l - f).as_secs_f64(),
                _ => 0.0,
            }
        };
        s.makespan = span(&mut records.iter());
        s.hpc_makespan = span(&mut records.iter().filter(|r| r.job.kind == JobKind::Hpc));
        let (mut waits, mut n_wait, mut bsld, mut n_bsld, mut used) = (0.0, 0u64, 0.0, 0u64, 0.0);
        let (mut tp, mut fp, mut fn_, mut tn) = (0u64, 0u64, 0u64, 0u64);
        for r in records {
            match r.job.kind {
                JobKind::Hpc => s.hpc_jobs += 1,
                JobKind::Cloud => s.cloud_jobs += 1,
            }
            if let Some(w) = r.wait() {
                waits += w.as_secs_f64();
                n_wait += 1;
            }
            if let Some(b) = r.bounded_slowdown() {
                bsld += b;
                n_bsld += 1;
            }
            if r.end_reason != Some(EndReason::Evicted) {
                if let Some(run) = r.run_time() {
                    used += run.as_secs_f64() * r.job.procs as f64;
                }
            }
            used += r.lost_work.as_secs_f64();
            s.evictions += r.evictions as u64;
            s.lost_work += r.lost_work.as_secs_f64();
            if r.rejected {
                s.rejected += 1;
            }
            let violated = r.violated();
            if violated {
                s.violations += 1;
            }
            if r.job.kind == JobKind::Cloud && !r.rejected && r.job.slo.is_some() {
                if let Some(p) = &r.prediction {
                    match (p.predicts_violation, violated) {
                        (true, true) => tp += 1,
                        (true, false) => fp += 1,
                        (false, true) => fn_ += 1,
                        (false, false) => tn += 1,
                    }
                }
            }
        }
        s.mean_wait = ratio(waits, n_wait as f64);
        s.mean_bounded_slowdown = ratio(bsld, n_bsld as f64);
        s.utilization = ratio(used, procs as f64 * s.makespan);
        s.violation_percent = ratio(s.violations as f64 * 100.0, s.cloud_jobs as f64);
        s.prediction = PredictionQuality::from_counts(tp, fp, fn_, tn);
        s
    }
}
