//! Property tests on random workloads, for every policy, through the tiny
//! simulator in `common` (which itself checks: no processor used twice,
//! capacity, cloud jobs in the area, no start before submission, evictions
//! before starts, every job ends).

mod common;
use common::*;
use interstice_core::{
    Admission, Decision, EngineConfig, Job, JobId, JobKind, Maintenance, Policy, Predictor, ProcSet,
    Scheduling, Time,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Case {
    procs: u32,
    conv: u32,
    jobs: Vec<Job>,
    resubmissions: u32,
    reject: bool,
    /// A maintenance window: start, duration (s), processors `lo..=hi`.
    maintenance: Option<(i64, i64, u32, u32)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        1u32..12,
        0u32..=100,
        1usize..28,
        0u32..3,
        any::<bool>(),
        proptest::option::of((0i64..150, 1i64..60, 0u32..12, 0u32..12)),
    )
        .prop_flat_map(|(procs, conv_pct, n, resub, reject, window)| {
            let maintenance =
                window.map(|(start, len, a, b)| (start, len, a.min(b) % procs, a.max(b) % procs));
            let conv = (procs * conv_pct / 100).max(1).min(procs);
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
                            cloud(id, submit, wt, rt, p.min(conv).min(4), slo)
                        } else {
                            hpc(id, submit, wt, rt, p)
                        }
                    })
                    .collect();
                Case {
                    procs,
                    conv,
                    jobs,
                    resubmissions: resub,
                    reject,
                    maintenance,
                }
            })
        })
}

fn config(c: &Case, policy: Policy) -> EngineConfig {
    let mut cfg = EngineConfig::new(c.procs, policy);
    cfg.conv_procs = c.conv;
    cfg.lifecycle.max_resubmissions = c.resubmissions;
    if c.reject {
        cfg.admission = Admission::RejectPredicted;
    }
    cfg
}

/// [`config`] with the case's maintenance window, a scheduling mode and a predictor.
fn thesis_config(c: &Case, policy: Policy, scheduling: Scheduling, predictor: Predictor) -> EngineConfig {
    let mut cfg = config(c, policy);
    cfg.scheduling = scheduling;
    cfg.predictor = predictor;
    cfg.maintenance = c
        .maintenance
        .iter()
        .map(|&(start, len, lo, hi)| Maintenance {
            start: secs(start),
            duration: secs(len),
            procs: ProcSet::range(lo.min(hi), hi.max(lo)),
        })
        .collect();
    cfg
}

/// No job is started on a processor over a maintenance window it could
/// overlap (its walltime counted from its start).
fn check_maintenance(c: &Case, t: &Trace) {
    let Some((start, len, lo, hi)) = c.maintenance else {
        return;
    };
    let (ws, we) = (secs(start), secs(start + len));
    let window = ProcSet::range(lo.min(hi), hi.max(lo));
    for j in &c.jobs {
        let Some((s, procs)) = t.starts.get(&j.id) else {
            continue;
        };
        let e = *s + j.walltime;
        assert!(
            !(procs.intersects(&window) && *s < we && ws < e),
            "job {} on {procs} over [{s}, {e}) meets the window [{ws}, {we}) on {window}",
            j.id
        );
    }
}

/// `shared-queue`: nothing is ever evicted, every job starts no later than
/// the first start it was planned at (but under CArS), runs are deterministic, maintenance
/// windows are kept free (and the harness's own invariants hold).
fn check_shared(c: &Case, policy: Policy, predictor: Predictor) {
    let cfg = || thesis_config(c, policy, Scheduling::SharedQueue, predictor);
    let (engine, t) = run(cfg(), c.jobs.clone());
    assert_eq!(t.evictions, 0, "{policy}: shared-queue evicted");
    assert!(
        t.decisions
            .iter()
            .all(|(_, d)| !matches!(d, Decision::Evict { .. })),
        "{policy}: shared-queue evicted"
    );
    assert!(engine.records().all(|r| r.evictions == 0));
    // CArS plans from scratch at every session, as OAR does: a job may lose
    // its slot to one ahead of it that moved earlier (core/tests/cars.rs).
    for j in c.jobs.iter().filter(|_| policy != Policy::Cars) {
        if let (Some(plan), Some((start, _))) = (t.first_plan.get(&j.id), t.starts.get(&j.id)) {
            assert!(
                start <= plan,
                "{policy}: job {} planned at {plan} started at {start}",
                j.id
            );
        }
    }
    check_maintenance(c, &t);
    let (_, again) = run(cfg(), c.jobs.clone());
    assert_eq!(t.decisions, again.decisions, "{policy}: not deterministic");
}

/// `hpc-first` with the thesis's predictor and a maintenance window: cloud
/// work still never changes an HPC decision, and the window is kept free.
fn check_hpc_first_thesis(c: &Case, policy: Policy) {
    let cfg = |case: &Case| thesis_config(case, policy, Scheduling::HpcFirst, Predictor::Thesis);
    let (_, t) = run(cfg(c), c.jobs.clone());
    check_maintenance(c, &t);
    let hpc_only = hpc_only(c);
    let (_, t2) = run(cfg(&hpc_only), hpc_only.jobs.clone());
    assert_eq!(
        hpc_starts(c, &t),
        hpc_starts(&hpc_only, &t2),
        "{policy}: cloud jobs changed HPC decisions"
    );
}

/// §4.5's `W_future` is every idle time after now, so with `r = β = 0` the
/// thesis's `F^σ` is the earliest fit in the plan cut at the deadline: under
/// a scheduler that places each job at its earliest fit its verdict is the
/// exact predictor's, for every cloud job (maintenance windows included),
/// whatever the reservation depth.
fn check_holes_thesis_is_exact(c: &Case, policy: Policy, depth: interstice_core::ReservationDepth) {
    let mut cfg = thesis_config(c, policy, Scheduling::SharedQueue, Predictor::Thesis);
    cfg.reservation_depth = depth;
    let (engine, _) = run(cfg, c.jobs.clone());
    for record in engine.records().filter(|r| r.job.kind == JobKind::Cloud) {
        let Some(verdicts) = record.verdicts else { continue };
        assert_eq!(
            verdicts[Predictor::Thesis.index()],
            verdicts[Predictor::Exact.index()],
            "{policy}: job {} thesis and exact verdicts differ",
            record.job.id
        );
    }
}

/// Every cloud job's admission prediction and every predictor's verdict, by id.
fn predictions(engine: &interstice_core::Engine) -> Vec<(JobId, String)> {
    let mut out: Vec<(JobId, String)> = engine
        .records()
        .filter(|r| r.job.kind == JobKind::Cloud)
        .map(|r| (r.job.id, format!("{:?} {:?}", r.prediction, r.verdicts)))
        .collect();
    out.sort();
    out
}

/// The learned predictor is deterministic (the same events give the same
/// decisions, predictions and probabilities); its verdict is its calibrated
/// probability at ½; and with every run time equal to its walltime its
/// start, completion, margin and counter-offer are the exact predictor's
/// for every cloud job (the verdict too until earlier outcomes of its bin
/// say otherwise: see `check_learned_verdicts`).
fn check_learned(c: &Case, policy: Policy, scheduling: Scheduling) {
    let cfg = |predictor| thesis_config(c, policy, scheduling, predictor);
    let (engine, t) = run(cfg(Predictor::Learned), c.jobs.clone());
    let (again, t2) = run(cfg(Predictor::Learned), c.jobs.clone());
    assert_eq!(
        t.decisions, t2.decisions,
        "{policy}: learned is not deterministic"
    );
    assert_eq!(
        predictions(&engine),
        predictions(&again),
        "{policy}: learned is not deterministic"
    );

    let full: Vec<Job> = c
        .jobs
        .iter()
        .map(|j| Job {
            runtime: Some(j.walltime),
            ..j.clone()
        })
        .collect();
    check_learned_verdicts(&engine);
    // Under admit-all the verdicts change no decision, so both runs plan
    // alike (under reject-predicted a calibrated verdict may refuse what
    // the plan admits, and the runs part).
    let admit_all = |predictor| EngineConfig {
        admission: Admission::AdmitAll,
        ..cfg(predictor)
    };
    let (learned, _) = run(admit_all(Predictor::Learned), full.clone());
    let (exact, _) = run(admit_all(Predictor::Exact), full);
    check_learned_verdicts(&learned);
    let point = |engine: &interstice_core::Engine| -> Vec<_> {
        let mut out: Vec<_> = engine
            .records()
            .filter(|r| r.job.kind == JobKind::Cloud)
            .map(|r| {
                let p = r.prediction.clone().expect("a cloud job is predicted");
                let exact_verdict = r.verdicts.expect("every predictor answers")[Predictor::Exact.index()];
                (
                    r.job.id,
                    p.start,
                    p.completion,
                    p.violation_seconds,
                    p.counter_offer_slo,
                    exact_verdict.predicts_violation,
                )
            })
            .collect();
        out.sort_by_key(|x| x.0);
        out
    };
    let (l, e) = (point(&learned), point(&exact));
    assert_eq!(
        l, e,
        "{policy}: full runs, learned predicted otherwise than exact"
    );
}

/// Every learned verdict is its probability at ½ (the probability counts
/// the point estimate as one observation of its bin, so a bin with no
/// outcome yet answers the point estimate).
fn check_learned_verdicts(engine: &interstice_core::Engine) {
    for r in engine.records().filter(|r| r.job.kind == JobKind::Cloud) {
        let learned = r.verdicts.expect("every predictor answers")[Predictor::Learned.index()];
        assert_eq!(
            learned.predicts_violation,
            learned.probability >= 0.5,
            "job {}: {learned:?}",
            r.job.id
        );
    }
}

/// The case without its cloud jobs.
fn hpc_only(c: &Case) -> Case {
    Case {
        jobs: c
            .jobs
            .iter()
            .filter(|j| j.kind == JobKind::Hpc)
            .cloned()
            .collect(),
        ..c.clone()
    }
}

/// HPC start times and processors.
fn hpc_starts(c: &Case, t: &Trace) -> Vec<(JobId, i64, String)> {
    c.jobs
        .iter()
        .filter(|j| j.kind == JobKind::Hpc)
        .map(|j| {
            let (s, p) = &t.starts[&j.id];
            (j.id, s.ticks(), p.to_string())
        })
        .collect()
}

fn check_policy(c: &Case, policy: Policy) {
    let (_, t) = run(config(c, policy), c.jobs.clone());
    // Reservations are never broken: an HPC job starts no later than the
    // first reservation it got (EASY/FCFS: the head's shadow time).
    for j in c.jobs.iter().filter(|j| j.kind == JobKind::Hpc) {
        if let Some(plan) = t.first_plan.get(&j.id) {
            let start = t.starts[&j.id].0;
            assert!(
                start <= *plan,
                "{policy}: job {} planned at {plan} started at {start}",
                j.id
            );
        }
    }
    // Cloud work never changes HPC decisions: same run without cloud jobs.
    let hpc_only = hpc_only(c);
    let (_, t2) = run(config(&hpc_only, policy), hpc_only.jobs.clone());
    assert_eq!(
        hpc_starts(c, &t),
        hpc_starts(&hpc_only, &t2),
        "{policy}: cloud jobs changed HPC decisions"
    );
    // Determinism.
    let (_, t3) = run(config(c, policy), c.jobs.clone());
    assert_eq!(t.decisions, t3.decisions, "{policy}: not deterministic");
    // A tiny reservation window (most cloud jobs go through the backlog):
    // the simulator's invariants hold and HPC decisions are still unchanged.
    let small = Opts {
        window: Some(1 + c.jobs.len() % 3),
        ..Opts::default()
    };
    let (_, t4) = run_opts(config(c, policy), c.jobs.clone(), &small);
    assert_eq!(
        hpc_starts(c, &t4),
        hpc_starts(&hpc_only, &t2),
        "{policy}: cloud jobs (through the backlog) changed HPC decisions"
    );
}

/// Extra `schedule` calls with no event in between decide nothing and change
/// no later decision (nor any record).
fn check_extra_passes(c: &Case, policy: Policy, window: usize, extra_ms: &[i64]) {
    let base = Opts {
        window: Some(window),
        ..Opts::default()
    };
    let with_extra = Opts {
        window: Some(window),
        extra_passes: extra_ms.iter().map(|&ms| Time::from_ticks(ms * 1000)).collect(),
        ..Opts::default()
    };
    let (e1, t1) = run_opts(config(c, policy), c.jobs.clone(), &base);
    let (e2, t2) = run_opts(config(c, policy), c.jobs.clone(), &with_extra);
    assert_eq!(
        t1.decisions, t2.decisions,
        "{policy}: extra passes changed decisions"
    );
    assert_eq!(
        e1.records().collect::<Vec<_>>(),
        e2.records().collect::<Vec<_>>(),
        "{policy}: extra passes changed records"
    );
}

/// The same run with and without `hand_over_finished`: same decisions, and
/// the records taken plus those left equal the records kept.
fn check_hand_over(c: &Case, policy: Policy, window: usize, late_us: i64) {
    let late_reports = (late_us > 0).then(|| (2, Time::from_ticks(late_us)));
    let keep = Opts {
        window: Some(window),
        late_reports,
        ..Opts::default()
    };
    let hand_over = Opts {
        hand_over: true,
        ..keep.clone()
    };
    let (e1, t1) = run_opts(config(c, policy), c.jobs.clone(), &keep);
    let (e2, t2) = run_opts(config(c, policy), c.jobs.clone(), &hand_over);
    assert_eq!(
        t1.decisions, t2.decisions,
        "{policy}: handing over changed decisions"
    );
    assert!(t1.handed_over.is_empty(), "nothing is handed over unless asked");
    let kept: Vec<_> = e1.records().cloned().collect();
    let held = e2.jobs_held();
    let mut taken: Vec<_> = t2.handed_over.iter().cloned().chain(e2.into_records()).collect();
    taken.sort_by_key(|record| kept.iter().position(|k| k.job.id == record.job.id));
    assert_eq!(taken, kept, "{policy}: records lost or changed by handing over");
    assert_eq!(held + t2.handed_over.len(), kept.len());
}

/// Ends reported late never let a job start on processors still in use
/// (the harness checks every start against the runs not yet reported), and
/// every job still ends.
fn check_late_reports(c: &Case, policy: Policy, every: u64, late_ticks: i64) {
    let opts = Opts {
        late_reports: Some((every, Time::from_ticks(late_ticks))),
        ..Opts::default()
    };
    run_opts(config(c, policy), c.jobs.clone(), &opts);
}

/// Victims by rank: HPC jobs start exactly when they would without cloud
/// jobs (only which processors of the area they take may differ; outside
/// it, the same), and the harness's invariants hold.
fn check_ranked(c: &Case, policy: Policy, ranks: &[u8]) {
    let mut cfg = config(c, policy);
    cfg.victims = interstice_core::Victims::Ranked;
    let opts = Opts {
        ranks: c
            .jobs
            .iter()
            .zip(ranks.iter().cycle())
            .filter(|(j, r)| j.kind == JobKind::Cloud && **r < 200)
            .map(|(j, r)| {
                (
                    j.id,
                    interstice_core::qos::policy::Key::from(vec![f64::from(*r % 5)]),
                )
            })
            .collect(),
        ..Opts::default()
    };
    let (_, t) = run_opts(cfg, c.jobs.clone(), &opts);
    let hpc_only = hpc_only(c);
    let (_, t2) = run(config(&hpc_only, policy), hpc_only.jobs.clone());
    let timing = |cc: &Case, tr: &Trace| -> Vec<(JobId, i64, Vec<u32>)> {
        hpc_starts(cc, tr)
            .into_iter()
            .map(|(id, s, _)| (id, s, tr.starts[&id].1.iter().filter(|&p| p >= c.conv).collect()))
            .collect()
    };
    assert_eq!(
        timing(c, &t),
        timing(&hpc_only, &t2),
        "{policy}: ranks changed HPC decisions"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn fcfs_invariants(c in case()) { check_policy(&c, Policy::Fcfs); }

    #[test]
    fn easy_invariants(c in case()) { check_policy(&c, Policy::Easy); }

    #[test]
    fn ranked_victims_change_no_hpc_decision(c in case(), ranks in proptest::collection::vec(any::<u8>(), 1..8)) {
        check_ranked(&c, Policy::Fcfs, &ranks);
        check_ranked(&c, Policy::Easy, &ranks);
    }

    #[test]
    fn conservative_invariants(c in case()) { check_policy(&c, Policy::Conservative); }

    #[test]
    fn convergence_invariants(c in case()) { check_policy(&c, Policy::Convergence); }

    #[test]
    fn extra_passes_are_no_ops(
        c in case(),
        policy in 0usize..4,
        window in 1usize..6,
        extra in proptest::collection::vec(0i64..2_000_000, 0..60),
    ) {
        check_extra_passes(&c, Policy::ALL[policy], window, &extra);
    }

    /// Handing finished jobs over after every pass changes no decision and
    /// loses no record, also with ends reported late.
    #[test]
    fn handing_over_finished_jobs_changes_nothing(
        c in case(),
        policy in 0usize..4,
        window in 1usize..6,
        late in prop_oneof![Just(0i64), 1i64..5_000_000],
    ) {
        check_hand_over(&c, Policy::ALL[policy], window, late);
    }

    /// Ends reported up to seconds late (a fraction of the jobs).
    #[test]
    fn late_end_reports_never_double_book(
        c in case(),
        every in 1u64..4,
        late in prop_oneof![1i64..4, 1i64..5_000_000],
    ) {
        for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
            check_late_reports(&c, policy, every, late);
        }
    }

    /// `shared-queue` never evicts and keeps every reservation, under both predictors.
    #[test]
    fn shared_queue_never_evicts(c in case(), thesis in any::<bool>()) {
        let predictor = if thesis { Predictor::Thesis } else { Predictor::Exact };
        for policy in Policy::ALL {
            check_shared(&c, policy, predictor);
        }
    }

    /// With §4.5's `W_future`, `F^σ` is the earliest fit where jobs are
    /// placed at their earliest fit.
    #[test]
    fn holes_thesis_is_exact_under_earliest_fit(c in case(), depth in 1usize..4) {
        let bounded = interstice_core::ReservationDepth::Jobs(std::num::NonZeroUsize::new(depth).unwrap());
        for policy in [Policy::Conservative, Policy::Cars] {
            check_holes_thesis_is_exact(&c, policy, interstice_core::ReservationDepth::Unlimited);
            check_holes_thesis_is_exact(&c, policy, bounded);
        }
    }

    /// `hpc-first` never lets cloud work delay HPC work, with the thesis's
    /// predictor and maintenance windows too.
    #[test]
    fn hpc_first_with_thesis_predictor_and_maintenance(c in case()) {
        for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
            check_hpc_first_thesis(&c, policy);
        }
    }

    /// The learned predictor: deterministic, and the exact one while every job runs its walltime.
    #[test]
    fn learned_is_deterministic_and_exact_on_full_runs(c in case(), shared in any::<bool>()) {
        let scheduling = if shared { Scheduling::SharedQueue } else { Scheduling::HpcFirst };
        for policy in Policy::ALL.into_iter().filter(|p| p.allows(scheduling)) {
            check_learned(&c, policy, scheduling);
        }
    }

    /// FCFS starts jobs strictly in queue order.
    #[test]
    fn fcfs_is_in_order(c in case()) {
        let hpc_only: Vec<Job> = c.jobs.iter().filter(|j| j.kind == JobKind::Hpc).cloned().collect();
        let (_, t) = run(config(&c, Policy::Fcfs), hpc_only.clone());
        let mut order = hpc_only.clone();
        order.sort_by_key(|j| (j.submit, j.id));
        let starts: Vec<_> = order.iter().map(|j| t.starts[&j.id].0).collect();
        prop_assert!(starts.windows(2).all(|w| w[0] <= w[1]), "{starts:?}");
    }

    /// Every rejection carries the job's recorded counter-offer, and only in reject mode.
    #[test]
    fn rejections_match_predictions(c in case()) {
        let (eng, t) = run(config(&c, Policy::Conservative), c.jobs.clone());
        for (_, d) in &t.decisions {
            if let Decision::Reject { id, counter_offer_slo } = d {
                prop_assert!(c.reject);
                let r = eng.records().find(|r| r.job.id == *id).unwrap();
                prop_assert!(r.rejected && r.prediction.as_ref().unwrap().predicts_violation);
                prop_assert_eq!(*counter_offer_slo, r.counter_offer_slo);
            }
        }
    }
}
