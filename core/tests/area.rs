//! A convergence area resized while the engine runs (`Engine::resize_area`):
//! hand-computed scenarios, then properties on random workloads and random
//! resize schedules.

mod common;
use common::*;
use interstice_core::{
    AreaChange, Decision, EndReason, Engine, EngineConfig, EngineError, JobId, JobKind, Policy, Scheduling,
    Time,
};
use proptest::prelude::*;

fn config(procs: u32, policy: Policy) -> EngineConfig {
    let mut cfg = EngineConfig::new(procs, policy);
    cfg.lifecycle.max_resubmissions = 3;
    cfg
}

/// Resize the area to `0..c` at each `(t, c)`.
fn resizing(schedule: &[(i64, u32)]) -> Opts {
    Opts {
        area_schedule: schedule.iter().map(|&(t, c)| (secs(t), c)).collect(),
        ..Opts::default()
    }
}

fn start_of(t: &Trace, id: u64) -> (Time, String) {
    let (s, p) = &t.starts[&JobId(id)];
    (*s, p.to_string())
}

/// Three 2-processor cloud jobs on an 8-processor area take the highest
/// ids (6-7, 4-5, 2-3). Shrinking to 0..6 at 10 s evicts only the job on
/// 6-7; re-queued, it restarts at once on the free 0-1 and ends 10 s late.
#[test]
fn shrinking_evicts_the_jobs_on_the_leaving_processors_and_requeues_them() {
    let jobs = vec![
        cloud(1, 0, 100, 50, 2, 1000),
        cloud(2, 0, 100, 50, 2, 1000),
        cloud(3, 0, 100, 50, 2, 1000),
    ];
    let (engine, t) = run_opts(config(8, Policy::Easy), jobs, &resizing(&[(10, 6)]));
    let (when, resize) = &t.resizes[0];
    assert_eq!(*when, secs(10));
    assert_eq!((resize.from, resize.to), (8, 6));
    assert_eq!(resize.evicted, vec![JobId(1)]);
    assert!(resize.replanned.is_empty() && resize.waiting.is_empty());
    assert_eq!(t.evictions, 1);
    assert_eq!(start_of(&t, 1), (secs(10), "0-1".to_string()));
    assert_eq!(start_of(&t, 2), (secs(0), "4-5".to_string()));
    assert_eq!(start_of(&t, 3), (secs(0), "2-3".to_string()));
    let r1 = engine.records().find(|r| r.job.id == JobId(1)).unwrap();
    assert_eq!((r1.evictions, r1.end), (1, Some(secs(60))));
    assert!(
        r1.hit_by_later_hpc,
        "a resize after the prediction is unforeseeable"
    );
    assert_eq!((engine.config().conv_procs, engine.area_procs()), (8, 6));
}

/// An HPC job holds all 8 processors until 100 s. A 6-wide cloud job is
/// reserved at 100 s on 2-7; a 2-wide one at 100 s on 0-1. Shrinking to 0..4
/// at 10 s: the 6-wide job no longer fits and waits without a reservation,
/// the 2-wide one keeps its reservation (0-1 stay in the area). Growing
/// back to 8 at 50 s re-plans the wide job at 100 s: nothing admitted is lost.
#[test]
fn a_job_wider_than_the_shrunken_area_waits_for_it_to_grow_back() {
    let jobs = vec![
        hpc(1, 0, 100, 100, 8),
        cloud(2, 1, 50, 50, 6, 1000),
        cloud(3, 2, 50, 50, 2, 1000),
    ];
    let (engine, t) = run_opts(
        config(8, Policy::Conservative),
        jobs,
        &resizing(&[(10, 4), (50, 8)]),
    );
    let shrink = &t.resizes[0].1;
    assert_eq!(shrink.evicted, Vec::<JobId>::new());
    assert_eq!(shrink.replanned, vec![JobId(2)]);
    assert_eq!(shrink.waiting, vec![JobId(2)]);
    let grow = &t.resizes[1].1;
    assert!(grow.evicted.is_empty() && grow.replanned.is_empty() && grow.waiting.is_empty());
    assert_eq!(t.starts[&JobId(2)].0, secs(100));
    assert_eq!(start_of(&t, 3), (secs(100), "0-1".to_string()));
    assert_eq!(t.evictions, 0);
    assert!(engine.records().all(|r| r.end.is_some()), "every job ended");
}

/// While the area is 0..2 the queued 4-wide job has no reservation and its
/// state says so. A 3-wide job submitted now is predicted never to start
/// (it waits under admit-all, refused under reject-predicted); a job wider
/// than the area has ever been is unschedulable. Growing places both again
/// where the HPC job ends.
#[test]
fn the_area_size_governs_admission_after_a_resize() {
    for reject in [false, true] {
        let mut cfg = config(8, Policy::Easy);
        if reject {
            cfg.admission = interstice_core::Admission::RejectPredicted;
        }
        let mut engine = Engine::new(cfg).unwrap();
        engine.submit(hpc(1, 0, 100, 100, 8)).unwrap();
        engine.schedule(secs(0));
        engine.submit(cloud(2, 1, 50, 50, 4, 1000)).unwrap();
        engine.schedule(secs(1));
        let resize = engine.resize_area(2, secs(5)).unwrap();
        assert_eq!(resize.waiting, vec![JobId(2)]);
        assert_eq!(
            engine.job_state(JobId(2)),
            Some(interstice_core::JobState::Queued { planned_start: None })
        );
        let submitted = engine.submit(cloud(3, 6, 50, 50, 3, 1000)).unwrap();
        let prediction = submitted.prediction().unwrap();
        assert_eq!(prediction.start, None);
        assert!(prediction.predicts_violation);
        assert_eq!(submitted.is_rejected(), reject);
        let err = engine.submit(cloud(4, 6, 50, 50, 9, 1000)).unwrap_err();
        assert!(err.to_string().contains("the convergence area has 8"), "{err}");
        engine.resize_area(8, secs(7)).unwrap();
        engine.schedule(secs(7));
        let planned = |id| engine.job_state(JobId(id));
        let at_100 = Some(interstice_core::JobState::Queued {
            planned_start: Some(secs(100)),
        });
        assert_eq!(planned(2), at_100);
        let job_3 = if reject {
            Some(interstice_core::JobState::Rejected)
        } else {
            at_100
        };
        assert_eq!(planned(3), job_3);
    }
}

#[test]
fn bad_resizes_are_refused_and_change_nothing() {
    let mut engine = Engine::new(config(8, Policy::Easy)).unwrap();
    engine.submit(cloud(1, 10, 50, 50, 2, 1000)).unwrap();
    engine.schedule(secs(10));
    let err = engine.resize_area(9, secs(20)).unwrap_err();
    assert!(matches!(err, EngineError::Resize(_)));
    assert!(err.to_string().contains("give at most 8"), "{err}");
    assert!(matches!(
        engine.resize_area(4, secs(5)),
        Err(EngineError::TimeWentBackwards { .. })
    ));
    assert_eq!(engine.area_procs(), 8);
    assert_eq!(engine.running(JobKind::Cloud), 1);
    let mut shared = config(8, Policy::Easy);
    shared.scheduling = Scheduling::SharedQueue;
    let mut engine = Engine::new(shared).unwrap();
    let err = engine.resize_area(4, secs(0)).unwrap_err();
    assert!(err.to_string().contains("use hpc-first"), "{err}");
}

/// Closing the area (0 processors) evicts every running cloud job; the
/// evictions are decided at the next pass, and acknowledged, the jobs wait.
#[test]
fn closing_the_area_evicts_every_cloud_job() {
    let mut engine = Engine::new(config(4, Policy::Easy)).unwrap();
    engine.submit(cloud(1, 0, 50, 50, 2, 1000)).unwrap();
    engine.submit(cloud(2, 0, 50, 50, 2, 1000)).unwrap();
    engine.schedule(secs(0));
    let resize = engine.resize_area(0, secs(3)).unwrap();
    assert_eq!(resize.evicted, vec![JobId(1), JobId(2)]);
    let decisions = engine.schedule(secs(3));
    assert_eq!(
        decisions,
        vec![Decision::Evict { id: JobId(1) }, Decision::Evict { id: JobId(2) }]
    );
    engine.job_ended(JobId(1), secs(3), EndReason::Evicted).unwrap();
    engine.job_ended(JobId(2), secs(3), EndReason::Evicted).unwrap();
    assert!(engine.schedule(secs(3)).is_empty());
    assert_eq!(engine.queued(JobKind::Cloud), 2);
}

// ----- properties -------------------------------------------------------------

#[derive(Debug, Clone)]
struct Case {
    procs: u32,
    jobs: Vec<interstice_core::Job>,
    /// Resizes `(t, area %)`; the last one gives the whole machine back.
    schedule: Vec<(i64, u32)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        2u32..12,
        1usize..24,
        proptest::collection::vec((0i64..200, 0u32..=100), 0..5),
    )
        .prop_flat_map(|(procs, n, resizes)| {
            let job = (
                any::<bool>(),
                0i64..120,
                1i64..60,
                1i64..80,
                1u32..=procs,
                1i64..300,
            );
            proptest::collection::vec(job, n).prop_map(move |specs| {
                let jobs = specs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (is_cloud, submit, wt, rt, p, slo))| {
                        let id = i as u64 + 1;
                        if is_cloud {
                            cloud(id, submit, wt, rt, p.min(4), slo)
                        } else {
                            hpc(id, submit, wt, rt, p)
                        }
                    })
                    .collect();
                let mut schedule: Vec<(i64, u32)> =
                    resizes.iter().map(|&(t, pct)| (t, procs * pct / 100)).collect();
                schedule.sort_by_key(|r| r.0);
                schedule.dedup_by_key(|r| r.0);
                schedule.push((250, procs));
                Case {
                    procs,
                    jobs,
                    schedule,
                }
            })
        })
}

/// Each HPC job's start time, and its processors when `procs` is set.
fn hpc_starts(t: &Trace, jobs: &[interstice_core::Job], procs: bool) -> Vec<(JobId, Time, Option<String>)> {
    jobs.iter()
        .filter(|j| j.kind == JobKind::Hpc)
        .map(|j| {
            let (s, p) = &t.starts[&j.id];
            (j.id, *s, procs.then(|| p.to_string()))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// At any resize schedule, under every policy:
    /// - HPC decisions (starts and processors) are exactly those of the same
    ///   schedule with no cloud job at all: cloud work never delays HPC work,
    ///   resizes included;
    /// - under FCFS and EASY, HPC start times are those of the run without
    ///   resizes (they start only now, on any free processors). The
    ///   reserving policies plan with processor identity: a resize changes
    ///   which processors later HPC work prefers (those outside the area
    ///   now), and a different choice can move a later reservation, as a
    ///   different static area does;
    /// - no cloud job ever runs outside the area (the harness checks after
    ///   every pass), and every admitted job ends (the last resize gives the
    ///   whole machine back).
    #[test]
    fn resizes_leave_hpc_work_alone_and_keep_cloud_work_in_the_area(c in case()) {
        let opts = Opts {
            area_schedule: c.schedule.iter().map(|&(t, a)| (secs(t), a)).collect(),
            ..Opts::default()
        };
        let hpc_only: Vec<_> = c.jobs.iter().filter(|j| j.kind == JobKind::Hpc).cloned().collect();
        for policy in [Policy::Fcfs, Policy::Easy, Policy::Conservative, Policy::Convergence, Policy::Cars] {
            let mut cfg = config(c.procs, policy);
            cfg.lifecycle.max_resubmissions = 100;
            if !policy.allows(cfg.scheduling) {
                continue;
            }
            let (engine, resized) = run_opts(cfg.clone(), c.jobs.clone(), &opts);
            let (_, no_cloud) = run_opts(cfg.clone(), hpc_only.clone(), &opts);
            prop_assert_eq!(hpc_starts(&resized, &c.jobs, true), hpc_starts(&no_cloud, &c.jobs, true), "{}", policy);
            if matches!(policy, Policy::Fcfs | Policy::Easy) {
                let (_, plain) = run(cfg.clone(), c.jobs.clone());
                prop_assert_eq!(hpc_starts(&plain, &c.jobs, false), hpc_starts(&resized, &c.jobs, false), "{}", policy);
            }
            prop_assert!(engine.records().all(|r| r.end.is_some()), "{}: a job never ended", policy);
            let resize_evictions: usize = resized.resizes.iter().map(|(_, r)| r.evicted.len()).sum();
            prop_assert!(resized.evictions as usize >= resize_evictions);
            // The same schedule planned ahead in the config decides the same.
            cfg.area_schedule = c.schedule.iter().map(|&(t, a)| AreaChange { at: secs(t), procs: a }).collect();
            let (planned, scheduled) = run(cfg, c.jobs.clone());
            prop_assert_eq!(&scheduled.decisions, &resized.decisions, "{}", policy);
            prop_assert_eq!(planned.area_procs(), c.procs);
        }
    }
}

#[test]
fn a_bad_area_schedule_is_refused_naming_the_change() {
    let change = |t: i64, procs: u32| AreaChange { at: secs(t), procs };
    let refuse = |schedule: Vec<AreaChange>, shared: bool, says: &str| {
        let mut cfg = config(8, Policy::Easy);
        cfg.area_schedule = schedule;
        if shared {
            cfg.scheduling = Scheduling::SharedQueue;
        }
        let err = Engine::new(cfg).unwrap_err().to_string();
        assert!(err.contains(says), "{err}");
    };
    refuse(
        vec![change(10, 4), change(10, 6)],
        false,
        "area_schedule[1]: time 10 is not after",
    );
    refuse(
        vec![change(10, 9)],
        false,
        "area_schedule[0]: 9 processors, the platform has 8",
    );
    refuse(vec![change(-1, 4)], false, "area_schedule[0]: time");
    refuse(vec![change(10, 4)], true, "needs hpc-first");
}
