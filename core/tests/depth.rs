//! The reservation depth (`core/src/depth.rs`): a hand-computed scenario,
//! and properties on random workloads through the simulator in `common`
//! (which checks its own invariants: no processor used twice, capacity,
//! cloud jobs in the area, every job ends).

mod common;
use common::*;
use interstice_core::{
    Decision, EndReason, Engine, EngineConfig, Job, JobId, JobKind, JobState, Policy, ReservationDepth,
    Scheduling, Time,
};
use proptest::prelude::*;

fn depth(k: usize) -> ReservationDepth {
    k.to_string().parse().expect("a positive depth")
}

fn config(
    procs: u32,
    conv: u32,
    policy: Policy,
    scheduling: Scheduling,
    d: ReservationDepth,
) -> EngineConfig {
    let mut cfg = EngineConfig::new(procs, policy);
    cfg.conv_procs = conv;
    cfg.scheduling = scheduling;
    cfg.reservation_depth = d;
    cfg
}

fn start_of(t: &Trace, id: u64) -> i64 {
    t.starts[&JobId(id)].0.ticks() / Time::from_secs(1).ticks()
}

/// Three processors. At 0: A (1 processor, 100 s) and B (1, 30 s) start on
/// processors 0 and 1; J2 (3, 100 s) is reserved at 100; J3 (2, 70 s) fits
/// the hole of processors 1–2 over [30, 100). At 1, J4 (1, 60 s) arrives.
///
/// Unlimited: J3 holds [30, 100) on processors 1–2, so J4 cannot start on
/// processor 2 now (it would run to 61); it goes after J2, at 200.
/// Depth 1: only J2 is reserved; J4 fits now on processor 2 without
/// touching J2 (it ends at 61 ≤ 100) and starts at 1; J3, beyond the depth,
/// finds no two processors free for 70 s before 100 and is reserved at 200,
/// once J2 started and it became the head. Depth 2 reserves J3: unlimited's
/// decisions.
#[test]
fn a_job_beyond_the_depth_is_backfilled_and_may_delay_an_unreserved_one() {
    let jobs = vec![
        hpc(1, 0, 100, 100, 1),
        hpc(2, 0, 30, 30, 1),
        hpc(3, 0, 100, 100, 3),
        hpc(4, 0, 70, 70, 2),
        hpc(5, 1, 60, 60, 1),
    ];
    let run_at = |d| {
        run(
            config(3, 3, Policy::Conservative, Scheduling::HpcFirst, d),
            jobs.clone(),
        )
        .1
    };
    let exact = run_at(ReservationDepth::Unlimited);
    let starts = |t: &Trace| [1, 2, 3, 4, 5].map(|id| start_of(t, id));
    assert_eq!(starts(&exact), [0, 0, 100, 30, 200]);
    assert_eq!(starts(&run_at(depth(1))), [0, 0, 100, 200, 1]);
    assert_eq!(starts(&run_at(depth(2))), starts(&exact));
}

/// A queued job's planned start.
fn planned(eng: &Engine, id: u64) -> Option<Time> {
    match eng.job_state(JobId(id)) {
        Some(JobState::Queued { planned_start }) => planned_start,
        other => panic!("job {id} not queued: {other:?}"),
    }
}

/// One processor, depth 1. At 0: X (id 10, 100 s) starts; A (id 20, 10 s)
/// is the head, reserved at 100. Still at 0, B (id 1) and C (id 2), 10 s
/// each, arrive: the queue is B, C, A. Only B, the head, may hold a
/// reservation, at 100; A must lose its own. (Before the fix, `reserve_prefix` stopped at C and never
/// reached A: A kept [100, 110) and started at 100 instead of the head.)
#[test]
fn a_reserved_job_overtaken_by_two_loses_its_reservation() {
    let mut cfg = EngineConfig::new(1, Policy::Conservative);
    cfg.reservation_depth = "1".parse().unwrap();
    let mut eng = Engine::new(cfg).unwrap();
    eng.submit(hpc(10, 0, 100, 100, 1)).unwrap();
    eng.submit(hpc(20, 0, 10, 10, 1)).unwrap();
    eng.schedule(secs(0));
    assert_eq!(planned(&eng, 20), Some(secs(100)));
    eng.submit(hpc(1, 0, 10, 10, 1)).unwrap();
    eng.submit(hpc(2, 0, 10, 10, 1)).unwrap();
    eng.schedule(secs(0));
    let reserved: Vec<(u64, Option<Time>)> = [1, 2, 20].iter().map(|&id| (id, planned(&eng, id))).collect();
    eng.job_ended(JobId(10), secs(100), EndReason::Completed).unwrap();
    let at_100: Vec<JobId> = eng
        .schedule(secs(100))
        .into_iter()
        .filter_map(|d| match d {
            Decision::Start { id, .. } => Some(id),
            _ => None,
        })
        .collect();
    assert_eq!(
        reserved,
        vec![(1, Some(secs(100))), (2, None), (20, None)],
        "depth 1: only the head (job 1) may hold a reservation"
    );
    assert_eq!(at_100, vec![JobId(1)], "the head starts at 100");
}

/// With depth 1, a conservative plan is EASY's on this workload: the head
/// is reserved at its shadow time and later jobs start only where they do
/// not delay it.
#[test]
fn depth_one_reserves_only_the_head() {
    let jobs = vec![
        hpc(1, 0, 100, 100, 2),
        hpc(2, 0, 100, 100, 4),
        hpc(3, 0, 50, 50, 1),
        hpc(4, 0, 200, 200, 2),
        hpc(5, 0, 90, 90, 2),
    ];
    let (_, conservative) = run(
        config(4, 4, Policy::Conservative, Scheduling::HpcFirst, depth(1)),
        jobs.clone(),
    );
    let (_, easy) = run(
        config(
            4,
            4,
            Policy::Easy,
            Scheduling::HpcFirst,
            ReservationDepth::Unlimited,
        ),
        jobs,
    );
    let starts = |t: &Trace| [1, 2, 3, 4, 5].map(|id| start_of(t, id));
    // J3 (1 × 50) and J5 (2 × 90) end before the head's shadow time 100;
    // J4 (2 × 200) would delay it and waits for the head to end.
    assert_eq!(starts(&conservative), [0, 100, 0, 200, 200]);
    assert_eq!(starts(&conservative), starts(&easy));
}

#[test]
fn a_depth_is_refused_where_nothing_is_re_planned() {
    for (policy, scheduling) in [
        (Policy::Fcfs, Scheduling::HpcFirst),
        (Policy::Easy, Scheduling::SharedQueue),
        (Policy::Convergence, Scheduling::SharedQueue),
    ] {
        let err = config(4, 4, policy, scheduling, depth(3)).validate().unwrap_err();
        assert!(err.to_string().contains("reservation depth 3"), "{err}");
    }
    for (policy, scheduling) in [
        (Policy::Conservative, Scheduling::HpcFirst),
        (Policy::Conservative, Scheduling::SharedQueue),
        (Policy::Convergence, Scheduling::HpcFirst),
    ] {
        config(4, 4, policy, scheduling, depth(3))
            .validate()
            .expect("valid");
    }
}

#[derive(Debug, Clone)]
struct Case {
    procs: u32,
    conv: u32,
    jobs: Vec<Job>,
}

fn case() -> impl Strategy<Value = Case> {
    (1u32..10, 1u32..=100, 1usize..30).prop_flat_map(|(procs, conv_pct, n)| {
        let conv = (procs * conv_pct / 100).clamp(1, procs);
        let job = (
            any::<bool>(),
            0i64..100,
            1i64..60,
            1i64..80,
            1u32..=procs,
            1i64..300,
        );
        proptest::collection::vec(job, n).prop_map(move |specs| Case {
            procs,
            conv,
            jobs: specs
                .into_iter()
                .enumerate()
                .map(|(i, (is_cloud, submit, wt, rt, p, slo))| {
                    let id = i as u64 + 1;
                    if is_cloud {
                        cloud(id, submit, wt, rt, p.min(conv), slo)
                    } else {
                        hpc(id, submit, wt, rt, p)
                    }
                })
                .collect(),
        })
    })
}

/// The depth-limited policies: conservative and hpc-first convergence,
/// conservative under shared-queue.
const BOUNDED: [(Policy, Scheduling); 3] = [
    (Policy::Conservative, Scheduling::HpcFirst),
    (Policy::Convergence, Scheduling::HpcFirst),
    (Policy::Conservative, Scheduling::SharedQueue),
];

fn hpc_only(c: &Case) -> Vec<Job> {
    c.jobs
        .iter()
        .filter(|j| j.kind == JobKind::Hpc)
        .cloned()
        .collect()
}

fn hpc_starts(c: &Case, t: &Trace) -> Vec<(JobId, Time, String)> {
    c.jobs
        .iter()
        .filter(|j| j.kind == JobKind::Hpc)
        .map(|j| {
            let (s, p) = &t.starts[&j.id];
            (j.id, *s, p.to_string())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// A queue never longer than the depth gives exactly the unlimited
    /// decisions (and records).
    #[test]
    fn a_depth_no_queue_reaches_is_the_exact_rule(c in case()) {
        for (policy, scheduling) in BOUNDED.into_iter().chain([(Policy::Cars, Scheduling::SharedQueue)]) {
            let cfg = |d| config(c.procs, c.conv, policy, scheduling, d);
            let (exact_engine, exact) = run(cfg(ReservationDepth::Unlimited), c.jobs.clone());
            let (bounded_engine, bounded) = run(cfg(depth(c.jobs.len())), c.jobs.clone());
            prop_assert_eq!(&exact.decisions, &bounded.decisions, "{} {}", policy, scheduling);
            let records = |e: &interstice_core::Engine| e.records().map(|r| format!("{r:?}")).collect::<Vec<_>>();
            prop_assert_eq!(records(&exact_engine), records(&bounded_engine));
        }
    }

    /// At any depth a reservation is never broken: every job starts no
    /// later than the first reservation it got, so no job started beyond
    /// the first K delayed any of theirs. (Under hpc-first, cloud
    /// reservations give way to HPC work by design: HPC jobs only.)
    #[test]
    fn no_backfilled_job_delays_a_reservation(c in case(), k in 1usize..5) {
        for (policy, scheduling) in BOUNDED {
            let (_, t) = run(config(c.procs, c.conv, policy, scheduling, depth(k)), c.jobs.clone());
            for j in c.jobs.iter().filter(|j| scheduling == Scheduling::SharedQueue || j.kind == JobKind::Hpc) {
                if let (Some(plan), Some((start, _))) = (t.first_plan.get(&j.id), t.starts.get(&j.id)) {
                    prop_assert!(start <= plan, "{} {} depth {}: job {} reserved at {} started at {}",
                        policy, scheduling, k, j.id, plan, start);
                }
            }
        }
    }

    /// `cars` skips the sessions that changed nothing its plan rests on:
    /// it decides exactly as planning from scratch at every session, at any
    /// depth, with late end reports (overdue jobs held) and with the jobs of
    /// an instant submitted by decreasing id.
    #[test]
    fn cars_decides_as_if_it_planned_at_every_session(
        c in case(),
        k in prop_oneof![Just(None), (1usize..5).prop_map(Some)],
        late in proptest::option::of((1u64..4, 1i64..5_000_000)),
        descending_ids in any::<bool>(),
    ) {
        let d = k.map_or(ReservationDepth::Unlimited, depth);
        let cfg = || config(c.procs, c.conv, Policy::Cars, Scheduling::SharedQueue, d);
        let opts = |every| Opts {
            late_reports: late.map(|(every, ticks)| (every, Time::from_ticks(ticks))),
            cars_every_session: every,
            descending_ids,
            ..Opts::default()
        };
        let (reference_engine, reference) = run_opts(cfg(), c.jobs.clone(), &opts(true));
        let (skipping_engine, skipping) = run_opts(cfg(), c.jobs.clone(), &opts(false));
        prop_assert_eq!(&reference.decisions, &skipping.decisions);
        let records = |e: &interstice_core::Engine| e.records().map(|r| format!("{r:?}")).collect::<Vec<_>>();
        prop_assert_eq!(records(&reference_engine), records(&skipping_engine));
    }

    /// Jobs of an instant submitted by decreasing id (each ahead of the
    /// ones before it in the queue; under shared-queue each cloud
    /// submission runs a pass in between): no reservation held after an
    /// instant's last pass is broken, at any depth.
    #[test]
    fn reservations_hold_when_new_jobs_enter_ahead(c in case(), k in 1usize..5) {
        let opts = Opts { descending_ids: true, ..Opts::default() };
        for (policy, scheduling) in BOUNDED {
            let (_, t) = run_opts(config(c.procs, c.conv, policy, scheduling, depth(k)), c.jobs.clone(), &opts);
            for j in c.jobs.iter().filter(|j| scheduling == Scheduling::SharedQueue || j.kind == JobKind::Hpc) {
                if let (Some(plan), Some((start, _))) = (t.first_plan.get(&j.id), t.starts.get(&j.id)) {
                    prop_assert!(start <= plan, "{} {} depth {}: job {} reserved at {} started at {}",
                        policy, scheduling, k, j.id, plan, start);
                }
            }
        }
    }

    /// Under hpc-first, cloud work changes no HPC decision at any depth.
    #[test]
    fn cloud_work_never_delays_hpc_work_at_any_depth(c in case(), k in 1usize..5) {
        for policy in [Policy::Conservative, Policy::Convergence] {
            let cfg = || config(c.procs, c.conv, policy, Scheduling::HpcFirst, depth(k));
            let (_, with_cloud) = run(cfg(), c.jobs.clone());
            let (_, without) = run(cfg(), hpc_only(&c));
            prop_assert_eq!(hpc_starts(&c, &with_cloud), hpc_starts(&c, &without), "{} depth {}", policy, k);
        }
    }
}
