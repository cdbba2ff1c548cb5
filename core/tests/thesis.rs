//! The thesis's own scheduler and predictor, checked against hand-computed
//! plans: Algorithm 3's stages under `shared-queue` convergence (§5.3.2),
//! `F^σ` with `r`, `β` and `F^γ` (§4.6.1), maintenance windows `J_o`.

mod common;

use common::{cloud, hpc, secs};
use interstice_core::{
    Beta, Decision, EndReason, Engine, EngineConfig, JobId, JobState, Maintenance, Policy, Predictor,
    ProcSet, Scheduling, ThesisPrediction, Time, WFuture,
};

fn shared(procs: u32, policy: Policy) -> Engine {
    let mut config = EngineConfig::new(procs, policy);
    config.scheduling = Scheduling::SharedQueue;
    Engine::new(config).unwrap()
}

fn planned(engine: &Engine, id: u64) -> Option<Time> {
    match engine.job_state(JobId(id)) {
        Some(JobState::Queued { planned_start }) => planned_start,
        Some(JobState::Running { start, .. }) => Some(start),
        other => panic!("job {id} is {other:?}"),
    }
}

fn started(decisions: &[Decision]) -> Vec<(u64, String)> {
    decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Start { id, procs } => Some((id.0, procs.to_string())),
            _ => None,
        })
        .collect()
}

fn predicted_start(engine: &mut Engine, job: interstice_core::Job) -> Option<Time> {
    engine.submit(job).unwrap().prediction().unwrap().start
}

/// Three processors at t = 0, every job submitted at once:
/// * A (HPC, 1 × 30 s): stage 1, all idle forever, lowest id: p0 `[0, 30)`.
/// * B (HPC, 3 × 100 s): stage 1 has 2 idle processors; stage 2 no hole
///   between two jobs; stage 3, `D` = (p1: 0, p2: 0, p0: 30): roots p1 and
///   p2 gather 2; root p0 at 30 gathers p1 and p2: `[30, 130)` on 0-2.
/// * D (cloud, 2 × 20 s): stage 1, p1 and p2 idle for `v = 30 ≥ 20`,
///   `Σv = 60 ≥ 40`: now on 1-2.
/// * E (cloud, 1 × 5 s): nothing idle now; stage 2 scans p0 (no bounded
///   hole), then p1: hole `[20, 30)`, 10 s > 5 s: root at 20 on p1.
/// * F (cloud, 2 × 5 s): stage 2, p1's hole is now `[25, 30)`, exactly
///   5 s, not strictly longer; p2's `[20, 30)` is, but no processor after
///   p2 is idle then; stage 3: every processor ends at 130, root p0 at 130
///   with p1. The earliest fit would be 25 on p1-p2: Algorithm 3 as written
///   does not find it.
#[test]
fn algorithm_3_stage_by_stage() {
    let mut engine = shared(3, Policy::Convergence);
    engine.submit(hpc(1, 0, 30, 30, 1)).unwrap();
    engine.submit(hpc(2, 0, 100, 100, 3)).unwrap();
    assert_eq!(
        predicted_start(&mut engine, cloud(4, 0, 20, 20, 2, 100)),
        Some(secs(0))
    );
    assert_eq!(
        predicted_start(&mut engine, cloud(5, 0, 5, 5, 1, 100)),
        Some(secs(20))
    );
    assert_eq!(
        predicted_start(&mut engine, cloud(6, 0, 5, 5, 2, 200)),
        Some(secs(130))
    );
    let decisions = engine.schedule(secs(0));
    assert_eq!(started(&decisions), vec![(1, "0".into()), (4, "1-2".into())]);
    assert_eq!(planned(&engine, 2), Some(secs(30)));
    assert_eq!(planned(&engine, 5), Some(secs(20)));
    assert_eq!(planned(&engine, 6), Some(secs(130)));
    // Nothing is evicted and the planned starts are kept as the jobs run.
    engine
        .job_ended(JobId(4), secs(20), EndReason::Completed)
        .unwrap();
    assert_eq!(started(&engine.schedule(secs(20))), vec![(5, "1".into())]);
    engine
        .job_ended(JobId(5), secs(25), EndReason::Completed)
        .unwrap();
    engine
        .job_ended(JobId(1), secs(30), EndReason::Completed)
        .unwrap();
    assert_eq!(started(&engine.schedule(secs(30))), vec![(2, "0-2".into())]);
    engine
        .job_ended(JobId(2), secs(130), EndReason::Completed)
        .unwrap();
    let last = engine.schedule(secs(130));
    assert_eq!(started(&last), vec![(6, "0-1".into())]);
    assert!(engine.records().all(|r| r.evictions == 0));
}

/// Stage 1 is backfilling on time an early end left idle; processors are
/// taken by longest idle time first (`v_1 ≥ … ≥ v_y`), and nothing planned
/// moves earlier (no compression in Algorithm 3 as written).
#[test]
fn stage_1_takes_the_longest_idle_processors_and_nothing_is_compressed() {
    let mut engine = shared(3, Policy::Convergence);
    engine.submit(hpc(1, 0, 100, 20, 1)).unwrap(); // p0 [0, 100), ends at 20
    engine.submit(hpc(2, 0, 50, 50, 1)).unwrap(); // p1 [0, 50)
    engine.submit(hpc(3, 0, 10, 10, 3)).unwrap(); // stage 3: [100, 110) on 0-2
    assert_eq!(
        started(&engine.schedule(secs(0))),
        vec![(1, "0".into()), (2, "1".into())]
    );
    assert_eq!(planned(&engine, 3), Some(secs(100)));
    engine
        .job_ended(JobId(1), secs(20), EndReason::Completed)
        .unwrap();
    engine.schedule(secs(20));
    // Job 3 keeps its start: nothing is re-planned after the early end.
    assert_eq!(planned(&engine, 3), Some(secs(100)));
    // At 20, p0 and p2 are idle for 80 s, p1 is busy: a 1 × 60 s job
    // takes p0 (v = 80, ties to the lowest id).
    assert_eq!(
        predicted_start(&mut engine, cloud(4, 20, 60, 60, 1, 60)),
        Some(secs(20))
    );
    assert_eq!(started(&engine.schedule(secs(20))), vec![(4, "0".into())]);
}

/// `shared-queue` FCFS: a cloud job ahead of an HPC job in the one queue
/// holds it back (the HPC job waits for processors the cloud job holds),
/// where `hpc-first` would have evicted the cloud job.
#[test]
fn shared_queue_lets_cloud_work_delay_hpc_work() {
    for scheduling in [Scheduling::SharedQueue, Scheduling::HpcFirst] {
        let mut config = EngineConfig::new(2, Policy::Fcfs);
        config.scheduling = scheduling;
        let mut engine = Engine::new(config).unwrap();
        engine.submit(cloud(1, 0, 100, 100, 2, 400)).unwrap();
        assert_eq!(started(&engine.schedule(secs(0))), vec![(1, "0-1".into())]);
        engine.submit(hpc(2, 10, 50, 50, 2)).unwrap();
        let decisions = engine.schedule(secs(10));
        match scheduling {
            Scheduling::SharedQueue => {
                assert!(decisions.is_empty(), "{decisions:?}");
                engine
                    .job_ended(JobId(1), secs(100), EndReason::Completed)
                    .unwrap();
                assert_eq!(started(&engine.schedule(secs(100))), vec![(2, "0-1".into())]);
            }
            Scheduling::HpcFirst => {
                assert_eq!(decisions[0], Decision::Evict { id: JobId(1) });
                assert_eq!(started(&decisions), vec![(2, "0-1".into())]);
            }
        }
    }
}

/// Two processors, conservative, hpc-first: HPC A runs on p0 `[0, 100)`,
/// HPC B holds both `[100, 150)`; p1 is idle now until 100.
fn two_jobs_planned(thesis: ThesisPrediction) -> Engine {
    let mut config = EngineConfig::new(2, Policy::Conservative);
    config.predictor = Predictor::Thesis;
    config.thesis = thesis;
    let mut engine = Engine::new(config).unwrap();
    engine.submit(hpc(1, 0, 100, 100, 1)).unwrap();
    engine.submit(hpc(2, 0, 50, 50, 2)).unwrap();
    engine.schedule(secs(0));
    engine
}

fn thesis(latency: i64, beta: Beta) -> ThesisPrediction {
    ThesisPrediction {
        latency: secs(latency),
        beta,
        ..ThesisPrediction::default()
    }
}

fn wait(seconds: i64) -> Beta {
    Beta::Wait(secs(seconds))
}

#[test]
fn f_sigma_immediate_slot() {
    // F^W = 1 × 60 s lies in W_immediate (p1 idle for 100 s): σ = t0 + r.
    let engine = two_jobs_planned(thesis(0, wait(0)));
    let p = engine.predict(1, secs(60), Some(secs(200)), secs(0));
    assert_eq!((p.start, p.completion), (Some(secs(0)), Some(secs(60))));
    let engine = two_jobs_planned(thesis(30, wait(0)));
    let p = engine.predict(1, secs(60), Some(secs(200)), secs(0));
    assert_eq!(
        p.start,
        Some(secs(30)),
        "r = 30: [30, 90) still in p1's idle time"
    );
}

#[test]
fn f_sigma_future_slot_with_r_and_beta() {
    // r = 50 pushes the job past p1's idle time ([50, 110) ⊄ [0, 100)):
    // W_future's first fit opens at 150 (after B), 150 + 60 ≤ a + SLO = 300.
    let engine = two_jobs_planned(thesis(50, wait(0)));
    let p = engine.predict(1, secs(60), Some(secs(300)), secs(0));
    assert_eq!(p.start, Some(secs(200)), "σ = t0 + r + β = 150 + 50 + 0");
    assert!(!p.predicts_violation, "C = 260 ≤ 300");
    // β = 100 ≤ SLO − wt = 240: accepted, σ = 300, C = 360 > 300.
    let engine = two_jobs_planned(thesis(50, wait(100)));
    let p = engine.predict(1, secs(60), Some(secs(300)), secs(0));
    assert_eq!(p.start, Some(secs(300)));
    assert!(p.predicts_violation);
}

#[test]
fn f_sigma_is_infinite_when_no_slot_qualifies() {
    // F^γ: the future fit [150, 210) ends after a + SLO = 200.
    let engine = two_jobs_planned(thesis(50, wait(0)));
    let p = engine.predict(1, secs(60), Some(secs(200)), secs(0));
    assert_eq!((p.start, p.completion, p.counter_offer_slo), (None, None, None));
    assert!(p.predicts_violation);
    // β above SLO − wt (240) disqualifies W_future.
    let engine = two_jobs_planned(thesis(50, wait(241)));
    assert_eq!(engine.predict(1, secs(60), Some(secs(300)), secs(0)).start, None);
    // β = t0 + SLO (disqualify): only W_immediate counts.
    let engine = two_jobs_planned(thesis(50, Beta::Disqualify));
    assert_eq!(engine.predict(1, secs(60), Some(secs(300)), secs(0)).start, None);
    let engine = two_jobs_planned(thesis(0, Beta::Disqualify));
    assert_eq!(
        engine.predict(1, secs(60), Some(secs(300)), secs(0)).start,
        Some(secs(0)),
        "the immediate slot still qualifies"
    );
    // Two processors are never idle now: W_immediate cannot hold 2 × 10 s.
    let engine = two_jobs_planned(thesis(0, Beta::Disqualify));
    assert_eq!(engine.predict(2, secs(10), Some(secs(300)), secs(0)).start, None);
}

#[test]
fn exact_and_thesis_agree_where_the_thesis_has_a_slot() {
    // Exact: the earliest fit, whatever the SLO; thesis: ∞ past the deadline.
    let mut config = EngineConfig::new(2, Policy::Conservative);
    config.predictor = Predictor::Exact;
    let mut engine = Engine::new(config).unwrap();
    engine.submit(hpc(1, 0, 100, 100, 1)).unwrap();
    engine.submit(hpc(2, 0, 50, 50, 2)).unwrap();
    engine.schedule(secs(0));
    assert_eq!(
        engine.predict(2, secs(10), Some(secs(100)), secs(0)).start,
        Some(secs(150))
    );
    let engine = two_jobs_planned(ThesisPrediction::default());
    assert_eq!(engine.predict(2, secs(10), Some(secs(100)), secs(0)).start, None);
    assert_eq!(
        engine.predict(2, secs(10), Some(secs(160)), secs(0)).start,
        Some(secs(150))
    );
}

/// `W_future` as Algorithm 3 publishes it (`published`) holds the stage-1
/// slots and the time after each processor's last planned job, not the
/// holes between planned jobs; as §4.5 defines it (`holes`, the default)
/// it holds them. Two processors: A holds both `[0, 50)`, B p0
/// `[50, 150)`, C both `[150, 200)`; p1's hole `[50, 150)` holds a 60 s job
/// from 50.
#[test]
fn w_future_holds_the_holes_between_planned_jobs_unless_published() {
    let plan = |predictor: Predictor, w_future: WFuture| {
        let mut config = EngineConfig::new(2, Policy::Conservative);
        config.predictor = predictor;
        config.thesis.w_future = w_future;
        let mut engine = Engine::new(config).unwrap();
        engine.submit(hpc(1, 0, 50, 50, 2)).unwrap();
        engine.submit(hpc(2, 0, 100, 100, 1)).unwrap();
        engine.submit(hpc(3, 0, 50, 50, 2)).unwrap();
        engine.schedule(secs(0));
        engine
    };
    let exact = plan(Predictor::Exact, WFuture::Holes);
    assert_eq!(
        exact.predict(1, secs(60), Some(secs(300)), secs(0)).start,
        Some(secs(50))
    );
    let holes = plan(Predictor::Thesis, WFuture::Holes);
    assert_eq!(
        holes.predict(1, secs(60), Some(secs(300)), secs(0)).start,
        Some(secs(50)),
        "§4.5: the hole [50, 150) is in W_future"
    );
    assert_eq!(
        holes.predict(1, secs(60), Some(secs(109)), secs(0)).start,
        None,
        "F^γ: 50 + 60 > 109"
    );
    assert_eq!(
        holes.predict(1, secs(101), Some(secs(400)), secs(0)).start,
        Some(secs(200)),
        "101 s do not fit the 100 s hole"
    );
    let published = plan(Predictor::Thesis, WFuture::Published);
    assert_eq!(
        published.predict(1, secs(60), Some(secs(300)), secs(0)).start,
        Some(secs(200))
    );
    assert_eq!(
        published.predict(1, secs(60), Some(secs(259)), secs(0)).start,
        None,
        "F^γ: 260 > 259"
    );
}

/// A maintenance window keeps every policy off its processors, and stage 3
/// of Algorithm 3 starts a job before it when the gap holds `wt`, after it
/// otherwise (`V^3`).
#[test]
fn maintenance_windows_are_planned_around() {
    let window = Maintenance {
        start: secs(100),
        duration: secs(50),
        procs: ProcSet::range(0, 1),
    };
    for policy in Policy::ALL {
        for scheduling in Scheduling::ALL.into_iter().filter(|&s| policy.allows(s)) {
            let mut config = EngineConfig::new(2, policy);
            config.scheduling = scheduling;
            config.maintenance = vec![window.clone()];
            let mut engine = Engine::new(config).unwrap();
            engine.submit(hpc(1, 0, 60, 60, 2)).unwrap(); // [0, 60)
            engine.submit(hpc(2, 0, 30, 30, 2)).unwrap(); // [60, 90): before the window
            engine.submit(hpc(3, 0, 30, 30, 1)).unwrap(); // 10 s left before it: after, at 150
            let decisions = engine.schedule(secs(0));
            assert_eq!(
                started(&decisions),
                vec![(1, "0-1".into())],
                "{policy} {scheduling}"
            );
            engine
                .job_ended(JobId(1), secs(60), EndReason::Completed)
                .unwrap();
            assert_eq!(
                started(&engine.schedule(secs(60))),
                vec![(2, "0-1".into())],
                "{policy} {scheduling}"
            );
            engine
                .job_ended(JobId(2), secs(90), EndReason::Completed)
                .unwrap();
            let at_90 = started(&engine.schedule(secs(90)));
            assert!(
                at_90.is_empty(),
                "{policy} {scheduling}: {at_90:?} runs into the window"
            );
            assert_eq!(
                engine.next_wakeup(),
                Some(secs(150)),
                "{policy} {scheduling}: the window's end"
            );
            assert_eq!(
                started(&engine.schedule(secs(150))),
                vec![(3, "0".into())],
                "{policy} {scheduling}"
            );
        }
    }
}

#[test]
fn a_maintenance_window_outside_the_platform_is_refused() {
    let mut config = EngineConfig::new(2, Policy::Easy);
    config.maintenance = vec![Maintenance {
        start: secs(0),
        duration: secs(10),
        procs: ProcSet::range(1, 2),
    }];
    let err = Engine::new(config).unwrap_err().to_string();
    assert!(
        err.contains("maintenance[0]") && err.contains("processor 2"),
        "{err}"
    );
}

fn with_windows(procs: u32, policy: Policy, scheduling: Scheduling, windows: &[(i64, i64, u32)]) -> Engine {
    let mut config = EngineConfig::new(procs, policy);
    config.scheduling = scheduling;
    config.maintenance = windows
        .iter()
        .map(|&(start, end, proc)| Maintenance {
            start: secs(start),
            duration: secs(end - start),
            procs: ProcSet::range(proc, proc),
        })
        .collect();
    Engine::new(config).unwrap()
}

/// An overdue cloud job whose hold a moved HPC reservation gave back is
/// held again before a cloud reservation is placed on its processor.
#[test]
fn an_overdue_cloud_job_is_held_again_when_a_window_moves_the_hpc_head() {
    for policy in [Policy::Fcfs, Policy::Easy] {
        let mut engine = with_windows(2, policy, Scheduling::HpcFirst, &[(60, 100, 0)]);
        engine.submit(hpc(1, 0, 10, 10, 1)).unwrap(); // p0 [0, 10), end reported at 30
        engine.submit(cloud(2, 0, 5, 5, 1, 100)).unwrap(); // p1 [0, 5), still running at 30
        engine.schedule(secs(0));
        engine.submit(hpc(3, 1, 40, 40, 2)).unwrap(); // the head: [10, 50) on 0-1
        engine.schedule(secs(1));
        engine.submit(cloud(4, 2, 60, 60, 1, 1000)).unwrap();
        engine.schedule(secs(2));
        engine
            .job_ended(JobId(1), secs(30), EndReason::WalltimeReached)
            .unwrap();
        let decisions = engine.schedule(secs(30));
        let on_p1 = started(&decisions).into_iter().any(|(_, procs)| procs == "1");
        let running = matches!(engine.job_state(JobId(2)), Some(JobState::Running { .. }));
        assert!(
            !(on_p1 && running),
            "{policy}: job 4 started on p1 beside job 2: {decisions:?}"
        );
    }
}

/// A maintenance window is not HPC work: an overdue cloud job running into
/// it is held through it, not evicted.
#[test]
fn an_overdue_cloud_job_is_not_evicted_by_a_window() {
    for scheduling in Scheduling::ALL {
        let mut engine = with_windows(1, Policy::Conservative, scheduling, &[(20, 30, 0)]);
        engine.submit(cloud(1, 0, 10, 10, 1, 100)).unwrap();
        engine.schedule(secs(0));
        engine.submit(cloud(2, 18, 5, 5, 1, 100)).unwrap();
        engine.schedule(secs(18));
        let decisions = engine.schedule(secs(20));
        assert!(
            !decisions.contains(&Decision::Evict { id: JobId(1) }),
            "{scheduling}: {decisions:?}"
        );
    }
}

/// Windows that overlap or follow each other are one maintenance time to
/// stage 3 (`V^3`): a job that fits before them starts before them.
#[test]
fn back_to_back_windows_are_one_maintenance_time() {
    for windows in [
        vec![(10, 50, 0)],
        vec![(10, 30, 0), (20, 50, 0)],
        vec![(10, 30, 0), (30, 50, 0)],
    ] {
        let mut engine = with_windows(1, Policy::Convergence, Scheduling::SharedQueue, &windows);
        engine.submit(hpc(1, 0, 5, 5, 1)).unwrap();
        assert_eq!(
            predicted_start(&mut engine, cloud(2, 0, 5, 5, 1, 100)),
            Some(secs(5)),
            "{windows:?}"
        );
        engine.schedule(secs(0));
        assert_eq!(planned(&engine, 2), Some(secs(5)), "{windows:?}");
    }
}
