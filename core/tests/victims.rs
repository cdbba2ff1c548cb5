//! Victims by rank (`Victims::Ranked`): when HPC work needs processors of
//! the area, the cloud jobs the shell ranks first give way, as few as
//! cover the need, and no HPC decision changes.

mod common;
use common::*;
use interstice_core::qos::policy::Key;
use interstice_core::{Decision, EngineConfig, JobId, Policy, Victims};

/// The jobs evicted at `at`, in id order.
fn evicted_at(t: &Trace, at: i64) -> Vec<u64> {
    let mut ids: Vec<u64> = t
        .decisions
        .iter()
        .filter(|(time, d)| *time == secs(at) && matches!(d, Decision::Evict { .. }))
        .map(|(_, d)| match d {
            Decision::Evict { id } => id.0,
            _ => unreachable!(),
        })
        .collect();
    ids.sort_unstable();
    ids
}

fn ranks(list: &[(u64, f64)]) -> Vec<(JobId, Key)> {
    list.iter()
        .map(|&(id, r)| (JobId(id), Key::from(vec![r])))
        .collect()
}

fn config(policy: Policy, victims: Victims) -> EngineConfig {
    let mut cfg = EngineConfig::new(4, policy);
    cfg.victims = victims;
    cfg
}

#[test]
fn the_smallest_ranks_give_way_not_the_holders_of_the_planned_processors() {
    // Four one-processor cloud jobs, then an HPC job needing two processors.
    let mut jobs: Vec<_> = (1..=4).map(|id| cloud(id, 0, 100, 100, 1, 1000)).collect();
    jobs.push(hpc(5, 10, 50, 50, 2));
    let opts = Opts {
        ranks: ranks(&[(1, 3.0), (2, 0.0), (3, 2.0), (4, 1.0)]),
        ..Opts::default()
    };
    for policy in [Policy::Fcfs, Policy::Easy] {
        let (_, holders) = run_opts(config(policy, Victims::Holders), jobs.clone(), &opts);
        let (_, ranked) = run_opts(config(policy, Victims::Ranked), jobs.clone(), &opts);
        assert_eq!(evicted_at(&ranked, 10), [2, 4], "{policy}: ranks 0 and 1");
        assert_ne!(
            evicted_at(&holders, 10),
            [2, 4],
            "{policy}: the holders differ here"
        );
        assert_eq!(holders.starts[&JobId(5)].0, ranked.starts[&JobId(5)].0);
    }
}

#[test]
fn a_victim_the_next_one_makes_unnecessary_is_given_back_and_unranked_jobs_go_first() {
    // Job 1 (1 processor) ranks before job 2 (3 processors); the HPC job
    // needs 3: job 2 alone covers it, so job 1 keeps running.
    let jobs = vec![
        cloud(1, 0, 100, 100, 1, 1000),
        cloud(2, 0, 100, 100, 3, 1000),
        hpc(3, 10, 50, 50, 3),
    ];
    let opts = Opts {
        ranks: ranks(&[(1, 0.0), (2, 1.0)]),
        ..Opts::default()
    };
    let (_, t) = run_opts(config(Policy::Fcfs, Victims::Ranked), jobs.clone(), &opts);
    assert_eq!(evicted_at(&t, 10), [2]);
    // Without a rank, job 2 goes first anyway; job 1 unranked goes first
    // when one processor is enough.
    let jobs = vec![
        cloud(1, 0, 100, 100, 1, 1000),
        cloud(2, 0, 100, 100, 1, 1000),
        cloud(3, 0, 100, 100, 1, 1000),
        cloud(4, 0, 100, 100, 1, 1000),
        hpc(5, 10, 50, 50, 1),
    ];
    let opts = Opts {
        ranks: ranks(&[(2, 0.0), (3, 0.0), (4, 0.0)]),
        ..Opts::default()
    };
    let (_, t) = run_opts(config(Policy::Fcfs, Victims::Ranked), jobs, &opts);
    assert_eq!(evicted_at(&t, 10), [1]);
}

#[test]
fn ranks_need_a_policy_whose_processors_are_interchangeable() {
    for policy in [Policy::Conservative, Policy::Convergence] {
        let e = config(policy, Victims::Ranked)
            .validate()
            .unwrap_err()
            .to_string();
        assert!(e.contains("fcfs or easy"), "{e}");
    }
    let mut cfg = config(Policy::Easy, Victims::Ranked);
    cfg.scheduling = interstice_core::Scheduling::SharedQueue;
    assert!(cfg.validate().unwrap_err().to_string().contains("hpc-first"));
    assert!(config(Policy::Easy, Victims::Ranked).validate().is_ok());
}
