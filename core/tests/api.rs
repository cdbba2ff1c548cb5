//! Bad input gives errors, never panics; a scaled-down mixed scenario runs clean.

mod common;
use common::*;
use interstice_core::{
    EndReason, Engine, EngineConfig, EngineError, JobId, JobKind, JobState, Policy, Summary,
};

#[test]
fn bad_input_is_an_error() {
    assert!(matches!(
        Engine::new(EngineConfig::new(0, Policy::Easy)),
        Err(EngineError::InvalidConfig(_))
    ));
    let mut cfg = EngineConfig::new(4, Policy::Easy);
    cfg.conv_procs = 5;
    assert!(
        matches!(Engine::new(cfg.clone()), Err(EngineError::InvalidConfig(m)) if m.contains("conv_procs"))
    );
    cfg.conv_procs = 2;
    cfg.lambda = f64::NAN;
    assert!(matches!(Engine::new(cfg.clone()), Err(EngineError::InvalidConfig(m)) if m.contains("lambda")));
    cfg.lambda = 1.0;
    let mut e = Engine::new(cfg).unwrap();
    assert!(matches!(
        e.submit(hpc(1, 0, 10, 10, 0)),
        Err(EngineError::Unschedulable { .. })
    ));
    assert!(matches!(
        e.submit(hpc(1, 0, 10, 10, 5)),
        Err(EngineError::Unschedulable { .. })
    ));
    assert!(matches!(
        e.submit(cloud(1, 0, 10, 10, 3, 100)),
        Err(EngineError::Unschedulable { .. })
    ));
    assert!(matches!(
        e.submit(hpc(1, 0, 0, 0, 1)),
        Err(EngineError::Unschedulable { .. })
    ));
    e.submit(hpc(1, 5, 10, 10, 1)).unwrap();
    assert_eq!(
        e.submit(hpc(1, 5, 10, 10, 1)),
        Err(EngineError::DuplicateJob(JobId(1)))
    );
    assert!(matches!(
        e.submit(hpc(2, 4, 10, 10, 1)),
        Err(EngineError::TimeWentBackwards { .. })
    ));
    assert_eq!(
        e.job_ended(JobId(9), secs(6), EndReason::Completed),
        Err(EngineError::UnknownJob(JobId(9)))
    );
    assert_eq!(
        e.cancel(JobId(9), secs(6)),
        Err(EngineError::UnknownJob(JobId(9)))
    );
    assert_eq!(
        e.job_state(JobId(1)),
        Some(JobState::Queued { planned_start: None })
    );
    assert_eq!(e.schedule(secs(5)).len(), 1);
    assert!(matches!(e.job_state(JobId(1)), Some(JobState::Running { .. })));
    e.job_ended(JobId(1), secs(8), EndReason::Completed).unwrap();
    assert_eq!(
        e.job_ended(JobId(1), secs(8), EndReason::Completed),
        Err(EngineError::UnknownJob(JobId(1)))
    );
    // predict never panics on impossible shapes: it predicts ∞.
    let p = e.predict(0, secs(10), Some(secs(5)), secs(8));
    assert!(p.start.is_none() && p.predicts_violation && p.counter_offer_slo.is_none());
}

#[test]
fn cancel_frees_the_reservation() {
    let mut e = Engine::new(EngineConfig::new(2, Policy::Conservative)).unwrap();
    e.submit(hpc(1, 0, 100, 100, 2)).unwrap();
    e.submit(hpc(2, 0, 100, 100, 2)).unwrap();
    e.submit(hpc(3, 0, 100, 100, 2)).unwrap();
    e.schedule(secs(0));
    assert_eq!(
        e.job_state(JobId(3)),
        Some(JobState::Queued {
            planned_start: Some(secs(200))
        })
    );
    e.cancel(JobId(2), secs(10)).unwrap();
    e.schedule(secs(10));
    assert_eq!(
        e.job_state(JobId(3)),
        Some(JobState::Queued {
            planned_start: Some(secs(100))
        })
    );
    assert_eq!(e.queued(JobKind::Hpc), 1);
    assert_eq!(e.next_wakeup(), Some(secs(100)));
}

/// A scaled-down thesis-like mix (a cloud job every 10 s beside sparse HPC
/// jobs) through the checking simulator, for the two reserving policies.
#[test]
fn scaled_down_mixed_scenario() {
    let mut jobs = Vec::new();
    let mut x = 11u64;
    let mut rnd = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for i in 0..40u64 {
        let wt = 60 + rnd(3600) as i64;
        jobs.push(hpc(i + 1, i as i64 * 120, wt, wt / 2 + 1, 1 + rnd(24) as u32));
    }
    for i in 0..480u64 {
        jobs.push(cloud(
            10_000 + i,
            i as i64 * 10,
            180,
            30 + rnd(150) as i64,
            [1, 2, 4][rnd(3) as usize],
            360,
        ));
    }
    for policy in [Policy::Conservative, Policy::Convergence] {
        let mut cfg = EngineConfig::new(64, policy);
        cfg.conv_procs = 16;
        cfg.lifecycle.max_resubmissions = 2;
        let (eng, _) = run(cfg, jobs.clone());
        let s = Summary::compute(eng.records(), 64);
        assert_eq!((s.hpc_jobs, s.cloud_jobs), (40, 480));
        assert!(
            s.utilization.is_some_and(|u| u > 0.0 && u <= 1.0),
            "{policy}: {:?}",
            s.utilization
        );
        let q = &s.prediction;
        assert_eq!(q.tp + q.fp + q.fn_ + q.tn, 480);
        assert!(q.accuracy.is_some_and(f64::is_finite));
        // Undefined (no predicted violation) or finite, never NaN.
        assert!(q.thesis_accuracy.map_or(true, f64::is_finite));
    }
}
