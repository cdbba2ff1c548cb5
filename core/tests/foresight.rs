//! Which violations a plan could foresee: a cloud job made late by HPC work
//! submitted after its prediction is scored apart (unforeseeable); one made
//! late by HPC work the plan already held stays a miss of the predictors.

mod common;

use common::{cloud, hpc, run};
use interstice_core::{EngineConfig, Job, JobId, JobRecord, Policy, Summary};

/// Four processors, all of them the area, hpc-first, conservative.
fn replay(jobs: Vec<Job>) -> (Summary, Vec<JobRecord>) {
    let cfg = EngineConfig::new(4, Policy::Conservative);
    let (engine, _) = run(cfg, jobs);
    let records: Vec<JobRecord> = engine.records().cloned().collect();
    (Summary::compute(&records, 4), records)
}

fn record(records: &[JobRecord], id: u64) -> &JobRecord {
    records
        .iter()
        .find(|r| r.job.id == JobId(id))
        .expect("the job ran")
}

#[test]
fn a_job_evicted_by_hpc_work_submitted_after_its_prediction_is_unforeseeable() {
    // The cloud job fits at once and would end at 100, before its deadline
    // (150); an HPC job submitted at 10 needs every processor and evicts it;
    // it runs again from 60 and ends at 160.
    let (s, records) = replay(vec![cloud(1, 0, 100, 100, 2, 150), hpc(2, 10, 50, 50, 4)]);
    let c = record(&records, 1);
    assert_eq!(c.evictions, 1, "{c:?}");
    assert!(
        c.violated() && c.hit_by_later_hpc && c.unforeseeable_violation(),
        "{c:?}"
    );
    assert!(!c.prediction.as_ref().unwrap().predicts_violation);
    assert_eq!(s.unforeseeable_violations, 1);
    // Over all jobs every predictor missed it; over the foreseeable ones
    // there is nothing to miss.
    for (all, foreseeable) in [
        (&s.predictors.exact, &s.predictors_foreseeable.exact),
        (&s.predictors.learned, &s.predictors_foreseeable.learned),
    ] {
        assert_eq!((all.fn_, all.tp + all.fp + all.tn), (1, 0), "{all:?}");
        assert_eq!(
            (foreseeable.tp, foreseeable.fp, foreseeable.fn_, foreseeable.tn),
            (0, 0, 0, 0)
        );
    }
}

#[test]
fn a_job_evicted_by_hpc_work_already_planned_is_a_foreseeable_miss() {
    // HPC job 1 holds two processors until 100 (it ends at 10); HPC job 2,
    // submitted at 0 too, waits for all four. The cloud job (at 1) fits on
    // the other two until 51, before its deadline (101). Job 1's early end
    // lets job 2 start at 10 on every processor: the cloud job is evicted
    // by work the plan held when it was predicted, runs again after job 2
    // (110 to 160) and violates. The plan could have said so: a miss.
    let jobs = vec![
        hpc(1, 0, 100, 10, 2),
        hpc(2, 0, 100, 100, 4),
        cloud(3, 1, 50, 50, 2, 100),
    ];
    let (s, records) = replay(jobs);
    let c = record(&records, 3);
    assert_eq!(c.evictions, 1, "{c:?}");
    assert!(
        c.violated() && !c.hit_by_later_hpc && !c.unforeseeable_violation(),
        "{c:?}"
    );
    assert_eq!(s.unforeseeable_violations, 0);
    assert_eq!(s.predictors_foreseeable, s.predictors);
    assert_eq!(s.predictors_foreseeable.exact.fn_, 1);
}

#[test]
fn a_reservation_taken_by_later_hpc_work_is_unforeseeable() {
    // The cloud job (at 1) is planned at 100, after HPC job 1, and would end
    // at 150 < 201. HPC job 3, submitted at 2, is planned at 100 on every
    // processor: the cloud job's reservation moves to 200 and it violates,
    // never evicted.
    let jobs = vec![
        hpc(1, 0, 100, 100, 4),
        cloud(2, 1, 50, 50, 2, 200),
        hpc(3, 2, 100, 100, 4),
    ];
    let (s, records) = replay(jobs);
    let c = record(&records, 2);
    assert_eq!((c.evictions, c.start), (0, Some(common::secs(200))), "{c:?}");
    assert!(c.unforeseeable_violation(), "{c:?}");
    assert_eq!(s.unforeseeable_violations, 1);
    assert_eq!(s.predictors_foreseeable.exact.fn_, 0);
    assert_eq!(s.predictors.exact.fn_, 1);
}

#[test]
fn a_reservation_moved_by_planned_work_stays_foreseeable() {
    // The same, but HPC job 3 was submitted before the cloud job: the plan
    // the cloud job was predicted from already put it at 200.
    let jobs = vec![
        hpc(1, 0, 100, 100, 4),
        hpc(3, 0, 100, 100, 4),
        cloud(2, 1, 50, 50, 2, 200),
    ];
    let (s, records) = replay(jobs);
    let c = record(&records, 2);
    assert!(c.violated() && !c.hit_by_later_hpc, "{c:?}");
    assert!(c.prediction.as_ref().unwrap().predicts_violation);
    assert_eq!(s.unforeseeable_violations, 0);
    assert_eq!(s.predictors_foreseeable.exact.tp, 1);
}
