//! Hand-computed scenarios: exact start times and allocations per policy.

mod common;
use common::*;
use interstice_core::{Admission, Decision, EngineConfig, JobId, Policy, ProcSet, Summary, Time};

fn start_of(t: &Trace, id: u64) -> (i64, String) {
    let (s, p) = &t.starts[&JobId(id)];
    (s.ticks() / 1_000_000, p.to_string())
}

/// The recorded Batsim FCFS conversation's first allocations: lowest free ids in order.
#[test]
fn fcfs_takes_lowest_free_ids_in_order() {
    let jobs = vec![
        hpc(1, 0, 100, 50, 4),
        hpc(2, 0, 100, 50, 8),
        hpc(3, 0, 100, 50, 8),
        hpc(4, 1, 10, 10, 2),
    ];
    let (_, t) = run(EngineConfig::new(16, Policy::Fcfs), jobs);
    assert_eq!(start_of(&t, 1), (0, "0-3".into()));
    assert_eq!(start_of(&t, 2), (0, "4-11".into()));
    // Job 3 waits for job 1 or 2 to end: at 50 both end.
    assert_eq!(start_of(&t, 3), (50, "0-7".into()));
    // FCFS: job 4 fits at 1 (4 procs free) but must wait behind job 3.
    assert_eq!(start_of(&t, 4), (50, "8-9".into()));
}

/// EASY: a short job backfills before the head's shadow time, a long wide one does not.
#[test]
fn easy_backfills_without_delaying_head() {
    // 10 procs. Job 1 uses 6 until 100 (walltime 100). Head job 2 needs 8 -> shadow 100, extra 2.
    // Job 3 (4 procs, 50 s) ends before the shadow: backfills now.
    // Job 4 (2 procs, 500 s) ends after the shadow but fits in extra: backfills... only after job 3?
    //   free now after job 3: 0. So it waits.
    // Job 5 (1 proc, 500 s): does not fit now either.
    let jobs = vec![
        hpc(1, 0, 100, 100, 6),
        hpc(2, 1, 100, 100, 8),
        hpc(3, 2, 50, 50, 4),
        hpc(4, 3, 500, 500, 2),
    ];
    let (_, t) = run(EngineConfig::new(10, Policy::Easy), jobs);
    assert_eq!(start_of(&t, 1), (0, "0-5".into()));
    assert_eq!(start_of(&t, 3), (2, "6-9".into()));
    // At 52 job 3 ends: 4 free, shadow 100, extra = 10 - 8 = 2: job 4 (2 procs, ends 552 > 100) fits in extra.
    assert_eq!(start_of(&t, 4), (52, "6-7".into()));
    assert_eq!(start_of(&t, 2), (100, "0-5 8-9".into()));
}

/// EASY refuses a backfill that would take more than `extra` past the shadow time.
#[test]
fn easy_respects_extra() {
    let jobs = vec![
        hpc(1, 0, 100, 100, 6),
        hpc(2, 1, 100, 100, 8),
        hpc(3, 2, 500, 500, 3),
    ];
    let (_, t) = run(EngineConfig::new(10, Policy::Easy), jobs);
    assert_eq!(start_of(&t, 2), (100, "0-7".into()));
    assert_eq!(start_of(&t, 3), (200, "0-2".into()));
}

/// Conservative: every job holds a reservation; a later job backfills only where it delays none.
#[test]
fn conservative_reservations_and_compression() {
    // 4 procs. Job 1: 2 procs [0,100). Job 2: 4 procs -> reserved at 100. Job 3: 2 procs, 50 s -> now (ends 51 < 100).
    // Job 4: 2 procs, 200 s -> would cross 100: reserved after job 2, at 200.
    // Job 1 actually ends at 40: compression moves job 2 to 51 (job 3 still runs until 51)...
    let jobs = vec![
        hpc(1, 0, 100, 40, 2),
        hpc(2, 0, 100, 100, 4),
        hpc(3, 1, 50, 50, 2),
        hpc(4, 2, 200, 200, 2),
    ];
    let (_, t) = run(EngineConfig::new(4, Policy::Conservative), jobs);
    assert_eq!(start_of(&t, 1), (0, "0-1".into()));
    assert_eq!(start_of(&t, 3), (1, "2-3".into()));
    assert_eq!(t.first_plan[&JobId(2)], secs(100));
    assert_eq!(t.first_plan[&JobId(4)], secs(200));
    // Job 1 ends at 40: job 2 moves to 51 (job 3's walltime end); job 4 to 151.
    assert_eq!(start_of(&t, 2), (51, "0-3".into()));
    assert_eq!(start_of(&t, 4), (151, "0-1".into()));
}

/// Cloud jobs fill the holes of the area and are evicted when HPC work needs them.
#[test]
fn cloud_job_in_hole_is_evicted_by_compressed_hpc_job() {
    let mut cfg = EngineConfig::new(4, Policy::Conservative);
    cfg.conv_procs = 4;
    cfg.lifecycle.max_resubmissions = 1;
    // Job 1: 4 procs [0, 100) walltime 100, ends at 10. Job 2: 4 procs reserved at 100.
    // Cloud job 3 at 5 (1 proc, 50 s): no hole before 200 -> reserved at 200.
    let jobs = vec![
        hpc(1, 0, 100, 10, 4),
        hpc(2, 0, 100, 100, 4),
        cloud(3, 5, 50, 50, 1, 1000),
    ];
    let (eng, t) = run(cfg, jobs);
    assert_eq!(start_of(&t, 2), (10, "0-3".into()));
    // After compression at 10 job 2 runs [10, 110): the cloud job moves to 110.
    assert_eq!(start_of(&t, 3), (110, "3".into()));
    let pred = eng.records().nth(2).unwrap().prediction.clone().unwrap();
    assert_eq!(pred.start, Some(secs(200)));
    assert_eq!(pred.completion, Some(secs(250)));
    assert!(!pred.predicts_violation);
    assert_eq!(t.evictions, 0);
}

#[test]
fn hpc_arrival_evicts_running_cloud_job() {
    let mut cfg = EngineConfig::new(4, Policy::Fcfs);
    cfg.lifecycle.max_resubmissions = 1;
    // Cloud job 1 starts at 0 on the highest id (3). HPC job 2 at 10 needs all 4: evicts it.
    let jobs = vec![cloud(1, 0, 100, 100, 1, 1000), hpc(2, 10, 50, 50, 4)];
    let (eng, t) = run(cfg, jobs);
    assert_eq!(
        t.decisions
            .iter()
            .filter(|(_, d)| matches!(d, Decision::Evict { .. }))
            .count(),
        1
    );
    assert_eq!(start_of(&t, 2), (10, "0-3".into()));
    // Resubmitted at 10, restarted when job 2 ends at 60, ends at 160 <= 0 + 1000.
    assert_eq!(start_of(&t, 1), (60, "3".into()));
    let r = eng.records().next().unwrap();
    assert_eq!(r.evictions, 1);
    assert_eq!(r.lost_work, secs(10));
    assert!(!r.violated());
    let s = Summary::compute(eng.records(), 4);
    assert_eq!(s.evictions, 1);
    assert_eq!(s.lost_work, 10.0);
}

#[test]
fn eviction_without_resubmission_counts_as_violation() {
    let cfg = EngineConfig::new(4, Policy::Easy);
    let jobs = vec![cloud(1, 0, 100, 100, 1, 1000), hpc(2, 10, 50, 50, 4)];
    let (eng, _) = run(cfg, jobs);
    let s = Summary::compute(eng.records(), 4);
    assert_eq!((s.violations, s.evictions, s.cloud_jobs), (1, 1, 1));
    assert_eq!(s.violation_percent, Some(100.0));
    // Predicted fine, violated: a false negative.
    assert_eq!((s.prediction.tp, s.prediction.fn_), (0, 1));
}

#[test]
fn reject_predicted_sends_counter_offer() {
    let mut cfg = EngineConfig::new(2, Policy::Conservative);
    cfg.admission = Admission::RejectPredicted;
    // HPC job holds both procs until 100. A 10 s cloud job with SLO 50 cannot make it: C' = 110.
    let jobs = vec![
        hpc(1, 0, 100, 100, 2),
        cloud(2, 0, 10, 10, 1, 50),
        cloud(3, 0, 10, 10, 1, 500),
    ];
    let (eng, t) = run(cfg, jobs);
    let rejects: Vec<_> = t
        .decisions
        .iter()
        .filter_map(|(_, d)| match d {
            Decision::Reject {
                id,
                counter_offer_slo,
            } => Some((*id, *counter_offer_slo)),
            _ => None,
        })
        .collect();
    assert_eq!(rejects, vec![(JobId(2), Some(secs(110)))]);
    // The accepted one runs at 100 on the highest id.
    assert_eq!(start_of(&t, 3), (100, "1".into()));
    let s = Summary::compute(eng.records(), 2);
    assert_eq!((s.rejected, s.violations), (1, 0));
}

#[test]
fn predict_is_consistent_with_placement() {
    let mut cfg = EngineConfig::new(8, Policy::Conservative);
    cfg.conv_procs = 4;
    let mut eng = interstice_core::Engine::new(cfg).unwrap();
    eng.submit(hpc(1, 0, 100, 100, 6)).unwrap();
    eng.schedule(secs(0));
    // HPC takes 4-7 (outside the area) then 0-1. Area free: 2-3.
    let p = eng.predict(2, secs(30), Some(secs(40)), secs(0));
    assert_eq!(p.start, Some(secs(0)));
    assert!(!p.predicts_violation);
    let p3 = eng.predict(3, secs(30), Some(secs(40)), secs(0));
    assert_eq!(p3.start, Some(secs(100)));
    assert!(p3.predicts_violation);
    assert_eq!(p3.violation_seconds, Some(90.0));
    assert_eq!(p3.counter_offer_slo, Some(secs(130)));
    let got = eng
        .submit(cloud(2, 0, 30, 30, 2, 40))
        .unwrap()
        .into_prediction()
        .unwrap();
    assert_eq!(got, p);
    let d = eng.schedule(secs(0));
    assert_eq!(
        d,
        vec![Decision::Start {
            id: JobId(2),
            procs: "2-3".parse::<ProcSet>().unwrap()
        }]
    );
    let slots = eng.slots(secs(0));
    assert!(slots.immediate.is_empty());
    assert_eq!(slots.future.len(), 2);
    assert_eq!(
        (slots.future[0].start, slots.future[0].procs.to_string()),
        (secs(30), "2-3".into())
    );
    assert_eq!(slots.future[0].end, Time::INFINITY);
}

/// Regression (found by proptest): cloud jobs must not change HPC decisions under convergence.
#[test]
fn convergence_hpc_unchanged_by_cloud_regression() {
    let hpc_jobs = vec![
        hpc(1, 0, 1, 1, 1),
        hpc(2, 100, 1, 1, 1),
        hpc(3, 72, 3, 1, 3),
        hpc(4, 100, 1, 1, 1),
        hpc(5, 48, 8, 1, 1),
        hpc(6, 72, 3, 1, 3),
        hpc(7, 0, 1, 1, 1),
        hpc(8, 0, 1, 1, 1),
        hpc(10, 37, 1, 1, 3),
        hpc(12, 48, 13, 1, 1),
        hpc(14, 30, 48, 42, 3),
        hpc(16, 48, 7, 1, 1),
        hpc(23, 0, 1, 1, 1),
        hpc(25, 37, 30, 23, 2),
        hpc(26, 30, 34, 34, 1),
    ];
    let mut all = hpc_jobs.clone();
    for id in [9, 11, 13, 15, 17, 18, 19, 20, 21, 22, 24] {
        all.push(cloud(id, 0, 1, 1, 1, 1));
    }
    all.push(cloud(27, 72, 1, 1, 1, 1));
    let mut cfg = EngineConfig::new(3, Policy::Convergence);
    cfg.conv_procs = 1;
    cfg.lifecycle.max_resubmissions = 1;
    cfg.admission = Admission::RejectPredicted;
    let (_, with) = run(cfg.clone(), all);
    let (_, without) = run(cfg, hpc_jobs.clone());
    for j in &hpc_jobs {
        assert_eq!(with.starts[&j.id], without.starts[&j.id], "job {}", j.id);
    }
}

/// Overload: beyond the reservation window, cloud jobs wait in a FIFO
/// backlog with tail-estimated predictions and are promoted as the window drains.
#[test]
fn backlog_beyond_the_window() {
    use interstice_core::{EndReason, JobKind, JobState};
    let mut eng = interstice_core::Engine::new(EngineConfig::new(2, Policy::Easy)).unwrap();
    eng.set_cloud_window(2);
    let mut starts = Vec::new();
    for id in 1..=6 {
        let p = eng
            .submit(cloud(id, 0, 10, 10, 1, 100))
            .unwrap()
            .into_prediction()
            .unwrap();
        starts.push(p.start.map(|s| s.ticks() / 1_000_000));
    }
    // Jobs 1-2 are reserved at 0 (exact fits). The window serves 20 proc-s
    // between 0 and 10 (ρ = 2 processors), so backlog job n starts at
    // 10 + (work ahead) / 2: 10, 15, 20, 25.
    assert_eq!(
        starts,
        vec![Some(0), Some(0), Some(10), Some(15), Some(20), Some(25)]
    );
    assert_eq!((eng.queued(JobKind::Cloud), eng.cloud_backlog()), (6, 4));
    assert_eq!(
        eng.job_state(JobId(3)),
        Some(JobState::Queued { planned_start: None })
    );
    // Predictions follow the same rule without submitting.
    assert_eq!(
        eng.predict(1, secs(10), Some(secs(100)), secs(0)).start,
        Some(secs(30))
    );
    eng.cancel(JobId(4), secs(0)).unwrap();
    assert_eq!(eng.cloud_backlog(), 3);
    let d = eng.schedule(secs(0));
    assert_eq!(d.len(), 2);
    // The two starts made room: jobs 3 and 5 (4 was cancelled) are promoted
    // into the window at their earliest fit.
    for id in [3, 5] {
        assert_eq!(
            eng.job_state(JobId(id)),
            Some(JobState::Queued {
                planned_start: Some(secs(10))
            })
        );
    }
    assert_eq!(eng.cloud_backlog(), 1);
    assert_eq!(eng.next_wakeup(), Some(secs(10)));
    eng.job_ended(JobId(1), secs(10), EndReason::Completed).unwrap();
    eng.job_ended(JobId(2), secs(10), EndReason::Completed).unwrap();
    let started: Vec<JobId> = eng
        .schedule(secs(10))
        .into_iter()
        .filter_map(|d| match d {
            Decision::Start { id, .. } => Some(id),
            _ => None,
        })
        .collect();
    assert_eq!(started, vec![JobId(3), JobId(5)]);
    assert_eq!(
        eng.job_state(JobId(6)),
        Some(JobState::Queued {
            planned_start: Some(secs(20))
        })
    );
    let records: Vec<_> = eng.records().cloned().collect();
    let owned = eng.into_records();
    assert_eq!(owned, records);
    assert_eq!(owned[3].end_reason, Some(EndReason::Killed));
}

/// `--placement topsis` takes the free processors whose HPC-side work (here a
/// maintenance window) comes back latest; first fit takes the highest ids.
#[test]
fn topsis_places_cloud_work_away_from_returning_hpc_work() {
    use interstice_core::placement::Placement;
    use interstice_core::Maintenance;
    let setup = |placement| {
        let mut cfg = EngineConfig::new(4, Policy::Fcfs);
        cfg.placement = placement;
        // Processor 3 is taken back at 600 (100 s after the cloud job's
        // walltime), processor 2 at 5000; 0 and 1 run HPC work until 1000.
        cfg.maintenance = vec![
            Maintenance {
                start: secs(600),
                duration: secs(100),
                procs: ProcSet::from_sorted_ids(vec![3]),
            },
            Maintenance {
                start: secs(5000),
                duration: secs(100),
                procs: ProcSet::from_sorted_ids(vec![2]),
            },
        ];
        cfg
    };
    let jobs = || vec![hpc(1, 0, 1000, 1000, 2), cloud(2, 0, 500, 500, 1, 1000)];
    let (_, first_fit) = run(setup(Placement::FirstFit), jobs());
    assert_eq!(start_of(&first_fit, 2), (0, "3".into()));
    let (_, topsis) = run(setup(Placement::Topsis), jobs());
    assert_eq!(start_of(&topsis, 2), (0, "2".into()));
}
