//! FCFS and EASY count the HPC layer (the processors free now) until
//! something else reads the plan (`core/src/engine/run/counts.rs`): on
//! random workloads they decide exactly as when they keep the plan from the
//! start, through cloud jobs arriving (the plan materialised), late end
//! reports (overdue jobs held), area resizes and a convergence area smaller
//! than the machine (processors chosen outside it first).

mod common;
use common::*;
use interstice_core::{Engine, EngineConfig, Job, Policy, Time};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Case {
    procs: u32,
    conv: u32,
    jobs: Vec<Job>,
}

/// A workload of HPC jobs, and cloud jobs only from `cloud_from` on (so
/// that the layer counts for a while first).
fn case() -> impl Strategy<Value = Case> {
    let shape = (1u32..12, 1u32..=100, 1usize..40, 0i64..200, any::<bool>());
    shape.prop_flat_map(|(procs, conv_pct, n, cloud_from, round)| {
        // Round times make jobs end together (at EASY's shadow time too).
        let round = move |t: i64| if round { (t + 9) / 10 * 10 } else { t };
        let conv = (procs * conv_pct / 100).clamp(1, procs);
        let job = (0u8..10, 0i64..200, 1i64..60, 1i64..80, 1u32..=procs, 1i64..300);
        proptest::collection::vec(job, n).prop_map(move |specs| Case {
            procs,
            conv,
            jobs: specs
                .into_iter()
                .enumerate()
                .map(|(i, (kind, submit, wt, rt, p, slo))| {
                    let id = i as u64 + 1;
                    let (submit, wt, rt) = (round(submit), round(wt), round(rt));
                    if kind == 0 && submit >= cloud_from {
                        cloud(id, submit, wt, rt.min(wt), p.min(conv), slo)
                    } else {
                        hpc(id, submit, wt, rt.min(wt), p)
                    }
                })
                .collect(),
        })
    })
}

fn config(c: &Case, policy: Policy) -> EngineConfig {
    let mut cfg = EngineConfig::new(c.procs, policy);
    cfg.conv_procs = c.conv;
    cfg
}

fn records(engine: &Engine) -> Vec<String> {
    engine.records().map(|r| format!("{r:?}")).collect()
}

proptest! {
    // Jobs ending together at the shadow time are rare in small random
    // workloads: ten times the cases of the other properties.
    #![proptest_config(ProptestConfig { cases: cases() * 10, ..ProptestConfig::default() })]

    /// The same decisions, planned starts (`job_state`) and records with
    /// the layer counted as with the plan kept from the start.
    #[test]
    fn counting_decides_as_the_plan(
        c in case(),
        late in proptest::option::of((1u64..4, 1i64..5_000_000)),
        resize in proptest::option::of((0i64..250, 1u32..12)),
    ) {
        for policy in [Policy::Fcfs, Policy::Easy] {
            let opts = |keep| Opts {
                late_reports: late.map(|(every, ticks)| (every, Time::from_ticks(ticks))),
                // A cloud job wider than the area would wait for good: never below it.
                area_schedule: resize.map(|(at, to)| (secs(at), to.clamp(c.conv, c.procs))).into_iter().collect(),
                keep_the_plan: keep,
                ..Opts::default()
            };
            let (planned_engine, planned) = run_opts(config(&c, policy), c.jobs.clone(), &opts(true));
            let (counted_engine, counted) = run_opts(config(&c, policy), c.jobs.clone(), &opts(false));
            prop_assert_eq!(&planned.decisions, &counted.decisions, "{}", policy);
            prop_assert_eq!(&planned.first_plan, &counted.first_plan, "{}", policy);
            prop_assert_eq!(records(&planned_engine), records(&counted_engine), "{}", policy);
        }
    }
}

/// EASY's shadow time counts every job ending then: two 2-processor jobs
/// end at 10, so a 3-processor head leaves 2 spare and a long 1-processor
/// job is backfilled at 1 (hand-computed).
#[test]
fn jobs_ending_together_at_the_shadow_time_all_count() {
    let jobs = vec![
        hpc(1, 0, 10, 10, 2),
        hpc(2, 0, 10, 10, 2),
        hpc(3, 1, 10, 10, 3),
        hpc(4, 1, 100, 100, 1),
    ];
    for keep in [false, true] {
        let opts = Opts {
            keep_the_plan: keep,
            ..Opts::default()
        };
        let (_, t) = run_opts(EngineConfig::new(5, Policy::Easy), jobs.clone(), &opts);
        let start = |id: u64| t.starts[&interstice_core::JobId(id)].0;
        assert_eq!((start(3), start(4)), (secs(10), secs(1)), "keep the plan: {keep}");
    }
}
