//! Hand-computed scenarios of the candidate rules and the submission-rate
//! regulator on the engine: who is refused, why, with which counter-offer,
//! and how the summary counts it.

mod common;
use common::*;
use interstice_core::candidate::Limit;
use interstice_core::{
    CandidateRules, Decision, Engine, EngineConfig, JobId, Policy, Refusal, Regulation, Summary, Time,
};

fn engine(config: EngineConfig) -> Engine {
    Engine::new(config).expect("a valid config")
}

#[test]
fn a_long_cloud_job_is_refused_with_the_nearest_request_and_counted_as_rejected() {
    let mut config = EngineConfig::new(4, Policy::Easy);
    config.candidates = CandidateRules {
        max_walltime: Some(secs(100)),
        ..CandidateRules::default()
    };
    let mut e = engine(config.clone());
    // 200 s is over the 100 s limit: refused, no SLO counter-offer.
    let verdict = e.submit(cloud(1, 0, 200, 50, 1, 400)).unwrap();
    assert!(verdict.is_rejected());
    assert_eq!(verdict.prediction().unwrap().counter_offer_slo, None);
    let Some(Refusal::NotCandidate(not)) = e.refusal_of(JobId(1)) else {
        panic!(
            "the refusal names the candidate rule: {:?}",
            e.refusal_of(JobId(1))
        );
    };
    assert_eq!(
        not.limits,
        [Limit::Walltime {
            asked: secs(200),
            limit: secs(100)
        }]
    );
    assert_eq!(not.nearest.walltime, secs(100));
    // A job within the limit is admitted and starts now.
    assert!(!e.submit(cloud(2, 0, 100, 50, 1, 400)).unwrap().is_rejected());
    let decisions = e.schedule(secs(0));
    assert!(
        matches!(decisions[0], Decision::Reject { id: JobId(1), .. }),
        "{decisions:?}"
    );
    assert!(
        matches!(decisions[1], Decision::Start { id: JobId(2), .. }),
        "{decisions:?}"
    );
    let summary = Summary::compute(e.records(), 4);
    assert_eq!(
        (
            summary.rejected,
            summary.rejected_not_candidate,
            summary.rejected_regulated
        ),
        (1, 1, 0)
    );
    assert_eq!(summary.admitted(), 1);
    // Without limits (the default) the same job is admitted.
    let mut unlimited = engine(EngineConfig::new(4, Policy::Easy));
    assert!(!unlimited
        .submit(cloud(1, 0, 200, 50, 1, 400))
        .unwrap()
        .is_rejected());
    assert_eq!(unlimited.refusal_of(JobId(1)), None);
}

#[test]
fn candidate_rules_come_before_the_admission_mode_and_wide_jobs_are_cut() {
    let mut config = EngineConfig::new(8, Policy::Easy);
    config.candidates.max_width = Some(2);
    config.admission = interstice_core::Admission::RejectPredicted;
    let mut e = engine(config);
    // 4 processors on an empty machine: no violation predicted, but too wide.
    let verdict = e.submit(cloud(1, 0, 60, 60, 4, 120)).unwrap();
    assert!(verdict.is_rejected());
    assert!(!verdict.prediction().unwrap().predicts_violation);
    let refusal = e.refusal_of(JobId(1)).unwrap();
    assert_eq!(refusal.name(), "not-candidate");
    assert!(
        refusal
            .to_string()
            .contains("nearest acceptable request: 2 processors, walltime 60 s, SLO 120 s"),
        "{refusal}"
    );
}

/// 10 processors, all in the area; window 100 s, threshold 1: the area's
/// idle capacity over the next window is 10 × 100 = 1000 processor-s.
fn regulated(procs: u32) -> EngineConfig {
    let mut config = EngineConfig::new(procs, Policy::Easy);
    config.regulation = Some(Regulation {
        window: secs(100),
        threshold: 1.0,
        per_user_share: None,
    });
    config
}

#[test]
fn the_regulator_refuses_the_third_job_and_offers_the_start_the_window_allows() {
    let mut e = engine(regulated(10));
    // 4 × 100 = 400, then 800 of 1000: both admitted, started on 0-3 and 4-7.
    assert!(!e.submit(cloud(1, 0, 100, 100, 4, 1000)).unwrap().is_rejected());
    assert!(!e.submit(cloud(2, 0, 100, 100, 4, 1000)).unwrap().is_rejected());
    assert_eq!(e.submission_rate(secs(0)), Some(0.8));
    // A third: 1200 of 1000. The first two leave the window at 100; the plan
    // has room for 4 processors at 100 too: start 100, completion 200, so
    // F^SLO = 200 − 0 = 200 s.
    let verdict = e.submit(cloud(3, 0, 100, 100, 4, 1000)).unwrap();
    assert!(verdict.is_rejected());
    assert_eq!(verdict.prediction().unwrap().counter_offer_slo, Some(secs(200)));
    match e.refusal_of(JobId(3)) {
        Some(Refusal::Regulated {
            rate, later_start, ..
        }) => {
            assert_eq!((*rate, *later_start), (1.2, Some(secs(100))));
        }
        other => panic!("regulated, not {other:?}"),
    }
    // A 2-processor job still fits: 1000 of 1000.
    assert!(!e.submit(cloud(4, 0, 100, 100, 2, 1000)).unwrap().is_rejected());
    let record = e.records().find(|r| r.job.id == JobId(3)).unwrap();
    assert_eq!(record.counter_offer_slo, Some(secs(200)));
    let summary = Summary::compute(e.records(), 10);
    assert_eq!((summary.rejected, summary.rejected_regulated), (1, 1));
    // At 150 the jobs admitted at 0 have left the window: the rate is 0.
    e.schedule(secs(0));
    assert_eq!(e.submission_rate(secs(150)), Some(0.0));
}

#[test]
fn hpc_work_in_the_plan_shrinks_the_idle_capacity() {
    // An HPC job holds 5 of the 10 processors for the whole window: the idle
    // capacity is 1000 − 500 = 500. A 4 × 100 cloud job is admitted (0.8),
    // a second would make 1.6.
    let mut e = engine(regulated(10));
    e.submit(hpc(1, 0, 100, 100, 5)).unwrap();
    e.schedule(secs(0));
    assert!(!e.submit(cloud(2, 0, 100, 100, 4, 1000)).unwrap().is_rejected());
    assert_eq!(e.submission_rate(secs(0)), Some(0.8));
    assert!(e.submit(cloud(3, 0, 100, 100, 4, 1000)).unwrap().is_rejected());
    assert!(matches!(
        e.refusal_of(JobId(3)),
        Some(Refusal::Regulated { rate, .. }) if *rate == 1.6
    ));
}

#[test]
fn without_regulation_nothing_is_measured_or_refused() {
    let mut e = engine(EngineConfig::new(10, Policy::Easy));
    for id in 1..=5 {
        assert!(!e.submit(cloud(id, 0, 100, 100, 4, 1000)).unwrap().is_rejected());
    }
    assert_eq!(e.submission_rate(secs(0)), None);
}

#[test]
fn unusable_rules_are_refused_by_the_config_check() {
    let mut config = EngineConfig::new(4, Policy::Easy);
    config.regulation = Some(Regulation {
        window: Time::ZERO,
        threshold: 1.0,
        per_user_share: None,
    });
    let err = Engine::new(config).unwrap_err().to_string();
    assert!(err.contains("regulation window is 0 s"), "{err}");
    let mut config = EngineConfig::new(4, Policy::Easy);
    config.candidates.min_slack = Some(0.0);
    let err = Engine::new(config).unwrap_err().to_string();
    assert!(err.contains("min_slack"), "{err}");
}
