//! `Policy::Cars`, the thesis's simulator (§6.2.1, Algorithm 4): one queue,
//! every session plans the queue again from scratch, each job at the first
//! slot by start that holds it, nothing preempted. Hand-computed scenarios
//! through the simulator in `common`, which checks its own invariants.

mod common;
use common::*;
use interstice_core::{Decision, EngineConfig, Job, JobId, Policy, Scheduling, Time};

fn config(procs: u32, policy: Policy) -> EngineConfig {
    let mut cfg = EngineConfig::new(procs, policy);
    cfg.scheduling = Scheduling::SharedQueue;
    cfg
}

fn starts(t: &Trace, ids: &[u64]) -> Vec<i64> {
    ids.iter()
        .map(|&id| t.starts[&JobId(id)].0.ticks() / Time::from_secs(1).ticks())
        .collect()
}

/// Two processors. At 0: A (1 processor, walltime 100 s, ends at 20) starts
/// on processor 0, D (1, 40 s) on processor 1; B (2, 50 s) is planned at
/// 100; C (1, 60 s) fits the hole of processor 1 over [40, 100).
///
/// At 20 A ends early. Conservative compresses in queue order while the
/// later reservations stay: B cannot move (C holds processor 1 from 40),
/// then C moves to processor 0 and starts at once; B starts at 100. CArS
/// plans from scratch: B first, at 40 (processor 0 free from 20, processor
/// 1 from 40), then C after B, at 90 — later than its first plan (40): OAR
/// keeps no earlier reservation.
#[test]
fn every_session_plans_from_scratch_where_compression_keeps_later_reservations() {
    let jobs = vec![
        hpc(1, 0, 100, 20, 1),
        hpc(2, 0, 40, 40, 1),
        hpc(3, 0, 50, 50, 2),
        hpc(4, 0, 60, 60, 1),
    ];
    let (_, conservative) = run(config(2, Policy::Conservative), jobs.clone());
    assert_eq!(starts(&conservative, &[1, 2, 3, 4]), [0, 0, 100, 20]);
    let (_, cars) = run(config(2, Policy::Cars), jobs);
    assert_eq!(starts(&cars, &[1, 2, 3, 4]), [0, 0, 40, 90]);
    assert_eq!(
        cars.first_plan[&JobId(4)],
        Time::from_secs(40),
        "C was first planned at 40"
    );
}

/// An early end brings the next job forward at once, even when no job
/// arrives or ends early after it (every session re-plans).
#[test]
fn an_early_end_brings_the_next_job_forward() {
    let jobs = vec![hpc(1, 0, 100, 10, 2), hpc(2, 0, 50, 50, 2)];
    let (_, cars) = run(config(2, Policy::Cars), jobs);
    assert_eq!(starts(&cars, &[1, 2]), [0, 10]);
}

/// Algorithm 4: the first slot by start that is long and wide enough, on
/// the lowest free ids, whatever fits better later. Three processors: A
/// holds processor 0 over [0, 100), B processor 1 over [0, 30); C (3, 10 s)
/// is planned at 100. D (1 processor, 50 s) fits processor 2 over [0, 100)
/// and starts at once, though processor 1 over [30, 100) would fit it more
/// tightly; E (1, 70 s) then finds only processor 1 from 30 (70 s to C).
#[test]
fn a_job_takes_the_first_slot_by_start_that_holds_it() {
    let jobs = vec![
        hpc(1, 0, 100, 100, 1),
        hpc(2, 0, 30, 30, 1),
        hpc(3, 0, 10, 10, 3),
        hpc(4, 0, 50, 50, 1),
        hpc(5, 0, 70, 70, 1),
    ];
    let (_, cars) = run(config(3, Policy::Cars), jobs);
    assert_eq!(starts(&cars, &[1, 2, 3, 4, 5]), [0, 0, 100, 0, 30]);
    assert_eq!(cars.starts[&JobId(4)].1.to_string(), "2");
    assert_eq!(cars.starts[&JobId(5)].1.to_string(), "1");
}

/// Nothing is preempted: a cloud job in the one queue runs to its end even
/// when HPC work arrives behind it, and waits in queue order otherwise.
#[test]
fn nothing_is_ever_preempted() {
    let jobs: Vec<Job> = vec![
        cloud(1, 0, 100, 100, 2, 400),
        hpc(2, 1, 50, 50, 2),
        cloud(3, 2, 20, 20, 1, 400),
    ];
    let (_, cars) = run(config(2, Policy::Cars), jobs);
    assert!(cars
        .decisions
        .iter()
        .all(|(_, d)| !matches!(d, Decision::Evict { .. })));
    assert_eq!(cars.evictions, 0);
    assert_eq!(starts(&cars, &[1, 2, 3]), [0, 100, 150]);
}

#[test]
fn cars_is_refused_outside_the_one_queue() {
    let err = EngineConfig::new(4, Policy::Cars)
        .validate()
        .unwrap_err()
        .to_string();
    assert!(err.contains("add --scheduling shared-queue"), "{err}");
    config(4, Policy::Cars)
        .validate()
        .expect("valid under shared-queue");
    assert_eq!("cars".parse::<Policy>(), Ok(Policy::Cars));
}
