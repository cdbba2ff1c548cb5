//! Per-job records and the summary metrics of a run.

use crate::engine::{EndReason, Prediction};
use crate::job::Job;
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

impl JobRecord {
    /// `C > a + SLO` (a cloud job that never completed successfully also violates).
    pub fn violated(&self) -> bool {
        todo!("core helper")
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
    pub precision: f64,
    /// tp / (tp + fn).
    pub recall: f64,
    /// (tp + tn) / all.
    pub accuracy: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// The thesis's "accuracy": (fp + fn) / predicted violations (lower is better).
    pub thesis_accuracy: f64,
    /// The thesis's "precision": predicted-and-occurred / occurred.
    pub thesis_precision: f64,
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
    /// Mean wait (start − submit) of started jobs, seconds.
    pub mean_wait: f64,
    /// Mean bounded slowdown (10 s bound).
    pub mean_bounded_slowdown: f64,
    /// Used processor-seconds / (procs × makespan).
    pub utilization: f64,
    /// Cloud jobs that violated their SLO.
    pub violations: u64,
    /// violations / cloud jobs × 100.
    pub violation_percent: f64,
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
    pub fn compute(records: &[JobRecord], procs: u32) -> Summary {
        todo!("core helper")
    }
}
