//! The learned predictor on a queue of cloud jobs that end early: it drops
//! the exact predictor's false alarms without missing a violation, its
//! probability is calibrated, and a threshold on that probability is the
//! admission rule under reject-predicted.

mod common;

use common::{cloud, run};
use interstice_core::{Admission, EngineConfig, Job, Policy, Predictor, Summary};

/// One processor; a cloud job every 30 s asking 100 s, running 50 s, with an
/// SLO of 400 s: the queue grows, and the plan (every job at its walltime)
/// sees twice the wait there will be.
fn queue() -> Vec<Job> {
    (1..=60)
        .map(|i| cloud(i, 30 * i as i64, 100, 50, 1, 400))
        .collect()
}

fn summary(predictor: Predictor, admission: Admission, reject_above: Option<f64>) -> Summary {
    let mut cfg = EngineConfig::new(1, Policy::Conservative);
    cfg.predictor = predictor;
    cfg.admission = admission;
    cfg.reject_above = reject_above;
    let (engine, _) = run(cfg, queue());
    Summary::compute(engine.records(), 1)
}

#[test]
fn early_ends_are_learned_and_false_alarms_drop() {
    let s = summary(Predictor::Exact, Admission::AdmitAll, None);
    let (exact, learned) = (&s.predictors.exact, &s.predictors.learned);
    assert!(s.violations >= 10, "the queue must violate: {s:?}");
    assert!(
        exact.fp >= 5,
        "the plan at walltimes must raise false alarms: {exact:?}"
    );
    assert!(
        learned.fp * 4 <= exact.fp,
        "learned {learned:?} vs exact {exact:?}"
    );
    assert_eq!(learned.fn_, 0, "no violation may be missed: {learned:?}");
    // The admitting predictor's own row is its entry among all of them.
    assert_eq!(&s.prediction, s.predictors.of(Predictor::Exact));
    let again = summary(Predictor::Learned, Admission::AdmitAll, None);
    assert_eq!(&again.prediction, again.predictors.of(Predictor::Learned));
    // Admit-all: which predictor admits changes no decision, so no count.
    assert_eq!(again.predictors, s.predictors);
    // Exact and thesis say yes or no: their Brier score is their error rate.
    let n = (exact.tp + exact.fp + exact.fn_ + exact.tn) as f64;
    assert_eq!(exact.brier, Some((exact.fp + exact.fn_) as f64 / n));
    // The calibrated probability scores better than the learned yes/no would.
    let learned_errors = (learned.fp + learned.fn_) as f64 / n;
    assert!(learned.brier.unwrap() <= learned_errors.max(0.02), "{learned:?}");
}

#[test]
fn a_probability_threshold_is_the_admission_rule() {
    let run_with = |predictor, reject_above| {
        let mut cfg = EngineConfig::new(1, Policy::Conservative);
        cfg.predictor = predictor;
        cfg.admission = Admission::RejectPredicted;
        cfg.reject_above = reject_above;
        run(cfg, queue()).0
    };
    let summarise = |engine: &interstice_core::Engine| Summary::compute(engine.records(), 1);
    let predicted = summarise(&run_with(Predictor::Exact, None));
    assert!(predicted.rejected > 0, "{predicted:?}");
    // Yes/no predictors hold their answer as certain: any threshold below 1
    // refuses what they predict, and none exceeds 1.
    assert_eq!(summarise(&run_with(Predictor::Exact, Some(0.5))), predicted);
    assert_eq!(summarise(&run_with(Predictor::Exact, Some(1.0))).rejected, 0);
    // A job is refused exactly when its probability exceeds the threshold.
    for threshold in [0.0, 0.3, 0.9] {
        let engine = run_with(Predictor::Learned, Some(threshold));
        for r in engine.records() {
            let p = r
                .prediction
                .as_ref()
                .expect("cloud jobs are predicted")
                .probability;
            assert_eq!(
                r.rejected,
                p > threshold,
                "job {} p {p} threshold {threshold}",
                r.job.id
            );
        }
    }
    let invalid = EngineConfig {
        reject_above: Some(1.5),
        ..EngineConfig::new(1, Policy::Conservative)
    };
    let message = invalid.validate().unwrap_err().to_string();
    assert!(
        message.contains("reject_above") && message.contains("between 0 and 1"),
        "{message}"
    );
}

/// The queue of [`queue`] on one processor of a three-processor area whose
/// two others an HPC job holds throughout: that job delays no cloud job (it
/// ends after them all), so it must not water down the learned run-time
/// ratio of the cloud work the queue waits for.
#[test]
fn work_held_throughout_the_wait_is_not_work_ahead() {
    let mut jobs = queue();
    jobs.push(common::hpc(1000, 0, 20_000, 20_000, 2));
    let run_with = |predictor| {
        let mut cfg = EngineConfig::new(3, Policy::Conservative);
        cfg.predictor = predictor;
        let (engine, _) = run(cfg, jobs.clone());
        Summary::compute(engine.records(), 3)
    };
    let s = run_with(Predictor::Learned);
    let (exact, learned) = (&s.predictors.exact, &s.predictors.learned);
    assert!(s.violations >= 10, "the queue must violate: {s:?}");
    assert!(exact.fp >= 5, "{exact:?}");
    assert!(
        learned.fp * 4 <= exact.fp,
        "learned {learned:?} vs exact {exact:?}"
    );
    assert_eq!(learned.fn_, 0, "no violation may be missed: {learned:?}");
}
