//! The built-in simulator on small workloads with exact expected times
//! (walltime kill, early end, eviction and resubmission), and its invariants
//! on a seeded random workload.

use interstice_batsim::sim::synthetic::{hpc_workload, SyntheticOptions};
use interstice_batsim::sim::{simulate, SimError, SimOptions, SimResult};
use interstice_core::{
    Decision, EndReason, EngineConfig, Job, JobId, JobKind, JobRecord, Lifecycle, Policy, ProcSet,
    Scheduling, Time,
};
use interstice_swf::SplitMix64;
use std::collections::HashMap;

fn secs(s: i64) -> Time {
    Time::from_secs(s)
}

fn hpc(id: u64, submit: i64, procs: u32, walltime: i64, runtime: Option<i64>) -> Job {
    Job {
        id: JobId(id),
        submit: secs(submit),
        walltime: secs(walltime),
        walltime_enforced: true,
        runtime: runtime.map(secs),
        procs,
        kind: JobKind::Hpc,
        slo: None,
    }
}

fn cloud(id: u64, submit: i64, procs: u32, walltime: i64, runtime: i64, slo: i64) -> Job {
    Job {
        id: JobId(id),
        submit: secs(submit),
        walltime: secs(walltime),
        walltime_enforced: true,
        runtime: Some(secs(runtime)),
        procs,
        kind: JobKind::Cloud,
        slo: Some(secs(slo)),
    }
}

fn run(config: EngineConfig, jobs: Vec<Job>) -> SimResult {
    simulate(config, jobs, &SimOptions { log_decisions: true }, |_, _| {}).expect("simulation runs")
}

fn record(result: &SimResult, id: u64) -> &JobRecord {
    result
        .records
        .iter()
        .find(|record| record.job.id == JobId(id))
        .expect("job has a record")
}

/// (start, end, reason) of a job's last run, in whole seconds.
fn times(result: &SimResult, id: u64) -> (Option<i64>, Option<i64>, Option<EndReason>) {
    let record = record(result, id);
    let whole = |time: Time| time.ticks() / 1_000_000;
    (record.start.map(whole), record.end.map(whole), record.end_reason)
}

#[test]
fn walltime_kill_early_end_and_unknown_runtime_follow_delay_semantics() {
    for policy in [Policy::Fcfs, Policy::Easy, Policy::Conservative] {
        let jobs = vec![
            // Runs past its walltime: killed at 0 + 100.
            hpc(1, 0, 4, 100, Some(150)),
            // Ends well before its walltime.
            hpc(2, 10, 2, 100, Some(30)),
            // No run time known: runs its whole walltime and is killed there
            // (a delay equal to the walltime in Batsim).
            hpc(3, 20, 2, 50, None),
            // Needs the whole machine: waits for 2 and 3.
            hpc(4, 30, 4, 10, Some(5)),
        ];
        let result = run(EngineConfig::new(4, policy), jobs);
        assert_eq!(
            times(&result, 1),
            (Some(0), Some(100), Some(EndReason::WalltimeReached)),
            "{policy}"
        );
        assert_eq!(
            times(&result, 2),
            (Some(100), Some(130), Some(EndReason::Completed)),
            "{policy}"
        );
        assert_eq!(
            times(&result, 3),
            (Some(100), Some(150), Some(EndReason::WalltimeReached)),
            "{policy}"
        );
        assert_eq!(
            times(&result, 4),
            (Some(150), Some(155), Some(EndReason::Completed)),
            "{policy}"
        );
        assert_eq!(record(&result, 1).procs.as_ref().map(ProcSet::len), Some(4));
        assert_eq!(result.stats.end_time, secs(155));
        assert_eq!(result.stats.never_started, 0);
        assert_eq!(result.summary.jobs, 4);
    }
}

#[test]
fn a_zero_length_job_ends_where_it_starts_and_frees_its_processors_at_once() {
    let result = run(
        EngineConfig::new(2, Policy::Fcfs),
        vec![hpc(1, 5, 2, 20, Some(0)), hpc(2, 5, 2, 20, Some(3))],
    );
    assert_eq!(times(&result, 1), (Some(5), Some(5), Some(EndReason::Completed)));
    assert_eq!(times(&result, 2), (Some(5), Some(8), Some(EndReason::Completed)));
}

#[test]
fn sparse_job_ids_work_like_dense_ones() {
    let dense = run(
        EngineConfig::new(2, Policy::Fcfs),
        vec![hpc(1, 0, 2, 10, Some(4)), hpc(2, 1, 1, 10, Some(2))],
    );
    let sparse = run(
        EngineConfig::new(2, Policy::Fcfs),
        vec![hpc(u64::MAX - 1, 0, 2, 10, Some(4)), hpc(7, 1, 1, 10, Some(2))],
    );
    assert_eq!(times(&dense, 2), (Some(4), Some(6), Some(EndReason::Completed)));
    assert_eq!(times(&sparse, 7), times(&dense, 2));
    assert_eq!(times(&sparse, u64::MAX - 1), times(&dense, 1));
}

#[test]
fn backfilling_starts_a_small_job_early_under_easy_but_not_fcfs() {
    // 1 holds 2 of 4 processors until 100; 2 needs all 4; 3 fits beside 1 and ends before 100.
    // 1 and 2 run exactly their walltime: as in Batsim, they end killed at it.
    let jobs = vec![
        hpc(1, 0, 2, 100, Some(100)),
        hpc(2, 1, 4, 50, Some(50)),
        hpc(3, 2, 2, 50, Some(40)),
    ];
    let fcfs = run(EngineConfig::new(4, Policy::Fcfs), jobs.clone());
    assert_eq!(
        times(&fcfs, 2),
        (Some(100), Some(150), Some(EndReason::WalltimeReached))
    );
    assert_eq!(
        times(&fcfs, 3),
        (Some(150), Some(190), Some(EndReason::Completed))
    );
    let easy = run(EngineConfig::new(4, Policy::Easy), jobs);
    assert_eq!(times(&easy, 3), (Some(2), Some(42), Some(EndReason::Completed)));
    assert_eq!(
        times(&easy, 2),
        (Some(100), Some(150), Some(EndReason::WalltimeReached))
    );
    assert_eq!(times(&easy, 1).2, Some(EndReason::WalltimeReached));
}

fn eviction_config(max_resubmissions: u32) -> EngineConfig {
    let mut config = EngineConfig::new(4, Policy::Conservative);
    config.lifecycle = Lifecycle {
        max_resubmissions,
        max_time_in_system: None,
    };
    config
}

#[test]
fn an_hpc_job_evicts_a_cloud_job_and_the_resubmitted_run_ignores_the_stale_end() {
    // The cloud job holds the whole area from 0; the HPC job arriving at 10 needs it.
    let jobs = vec![cloud(1, 0, 4, 100, 80, 1000), hpc(2, 10, 4, 50, Some(50))];
    let result = run(eviction_config(1), jobs);
    let evictions: Vec<_> = result
        .decisions
        .iter()
        .filter(|timed| matches!(timed.decision, Decision::Evict { .. }))
        .map(|timed| (timed.time, timed.decision.clone()))
        .collect();
    assert_eq!(evictions, vec![(secs(10), Decision::Evict { id: JobId(1) })]);
    // The HPC job runs exactly its walltime: killed at it, as Batsim does.
    assert_eq!(
        times(&result, 2),
        (Some(10), Some(60), Some(EndReason::WalltimeReached))
    );
    // Resubmitted, restarted when the HPC job ends, and not ended by its first run's end event at 80.
    assert_eq!(
        times(&result, 1),
        (Some(60), Some(140), Some(EndReason::Completed))
    );
    assert_eq!(record(&result, 1).evictions, 1);
    assert_eq!(result.stats.stale_ends, 1);
    assert_eq!(result.summary.evictions, 1);
}

#[test]
fn without_resubmission_an_evicted_cloud_job_ends_killed() {
    let jobs = vec![cloud(1, 0, 4, 100, 80, 1000), hpc(2, 10, 4, 50, Some(50))];
    let result = run(eviction_config(0), jobs);
    assert_eq!(times(&result, 1), (Some(0), Some(10), Some(EndReason::Evicted)));
    // The HPC job runs exactly its walltime: killed at it, as Batsim does.
    assert_eq!(
        times(&result, 2),
        (Some(10), Some(60), Some(EndReason::WalltimeReached))
    );
    assert!(record(&result, 1).violated());
    assert_eq!(result.summary.violations, 1);
}

#[test]
fn bad_workloads_are_errors_not_panics() {
    let endless = Job {
        walltime: Time::INFINITY,
        walltime_enforced: true,
        ..hpc(1, 0, 1, 0, None)
    };
    let err = simulate(
        EngineConfig::new(2, Policy::Fcfs),
        vec![endless],
        &SimOptions::default(),
        |_, _| {},
    )
    .unwrap_err();
    assert!(matches!(err, SimError::EndlessJob(JobId(1))), "{err}");

    let twice = vec![hpc(7, 0, 1, 10, Some(1)), hpc(7, 5, 1, 10, Some(1))];
    let err = simulate(
        EngineConfig::new(2, Policy::Fcfs),
        twice,
        &SimOptions::default(),
        |_, _| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("job id 7 appears twice"), "{err}");

    let sparse_twice = vec![
        hpc(1_000_000_000_000, 0, 1, 10, Some(1)),
        hpc(3, 0, 1, 10, Some(1)),
        hpc(3, 1, 1, 9, None),
    ];
    let err = simulate(
        EngineConfig::new(2, Policy::Fcfs),
        sparse_twice,
        &SimOptions::default(),
        |_, _| {},
    )
    .unwrap_err();
    assert!(matches!(err, SimError::DuplicateJob(JobId(3))), "{err}");

    let too_wide = vec![hpc(1, 0, 3, 10, Some(1))];
    let err = simulate(
        EngineConfig::new(2, Policy::Fcfs),
        too_wide,
        &SimOptions::default(),
        |_, _| {},
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            SimError::Engine {
                job: Some(JobId(1)),
                ..
            }
        ),
        "{err}"
    );

    let mut bad = EngineConfig::new(4, Policy::Easy);
    bad.conv_procs = 5;
    let err = simulate(bad, vec![], &SimOptions::default(), |_, _| {}).unwrap_err();
    assert!(matches!(err, SimError::Config(_)), "{err}");
}

/// A seeded mix of HPC jobs and cloud jobs every 10 s on a small machine.
fn random_workload(seed: u64) -> Vec<Job> {
    let options = SyntheticOptions {
        procs: 32,
        jobs: 100,
        duration: secs(4 * 3600),
        utilization: 0.5,
        seed,
        first_id: 1,
    };
    let mut jobs = hpc_workload(&options);
    let mut rng = SplitMix64::new(seed ^ 0xC10D);
    for k in 0..(4 * 120) {
        let procs = [1, 2, 4][rng.below(3) as usize];
        jobs.push(cloud(
            10_000 + k,
            30 * k as i64,
            procs,
            180,
            30 + rng.below(150) as i64,
            360,
        ));
    }
    jobs
}

/// Every run of every job, rebuilt from the decision log: (id, start, end, procs).
fn runs(result: &SimResult) -> Vec<(JobId, Time, Time, ProcSet)> {
    let jobs: HashMap<JobId, &Job> = result
        .records
        .iter()
        .map(|record| (record.job.id, &record.job))
        .collect();
    let mut open: HashMap<JobId, (Time, ProcSet)> = HashMap::new();
    let mut runs = Vec::new();
    for timed in &result.decisions {
        match &timed.decision {
            Decision::Start { id, procs } => {
                assert!(
                    open.insert(*id, (timed.time, procs.clone())).is_none(),
                    "job {id} started twice"
                );
            }
            Decision::Evict { id } => {
                let (start, procs) = open.remove(id).expect("evicted job was running");
                runs.push((*id, start, timed.time, procs));
            }
            Decision::Reject { .. } => {}
        }
    }
    for (id, (start, procs)) in open {
        let job = jobs[&id];
        let length = job.runtime.unwrap_or(job.walltime).min(job.walltime);
        runs.push((id, start, start + length, procs));
    }
    runs
}

#[test]
fn random_workloads_respect_capacity_submission_and_area_and_are_deterministic() {
    for policy in [Policy::Easy, Policy::Conservative, Policy::Convergence] {
        let mut config = EngineConfig::new(32, policy);
        config.conv_procs = 8;
        config.lifecycle = Lifecycle {
            max_resubmissions: 2,
            max_time_in_system: None,
        };
        let jobs = random_workload(5);
        let first = run(config.clone(), jobs.clone());
        assert!(
            first.summary.evictions > 0,
            "{policy}: the workload exercises evictions"
        );
        let second = run(config.clone(), jobs.clone());
        assert_eq!(
            first.records, second.records,
            "{policy}: same inputs, same records"
        );
        assert_eq!(first.decisions, second.decisions, "{policy}");
        assert_eq!(first.records.len(), jobs.len());

        let all_runs = runs(&first);
        let by_id: HashMap<JobId, &Job> = jobs.iter().map(|job| (job.id, job)).collect();
        for (id, start, _, procs) in &all_runs {
            let job = by_id[id];
            assert!(
                *start >= job.submit,
                "{policy}: job {id} started before its arrival"
            );
            assert_eq!(procs.len(), job.procs, "{policy}: job {id} got the wrong width");
            if job.kind == JobKind::Cloud {
                assert!(
                    procs.iter().all(|proc| proc < 8),
                    "{policy}: cloud job {id} outside the area: {procs}"
                );
            }
            assert!(procs.iter().all(|proc| proc < 32));
        }
        // No processor is used by two runs at once (sweep over start/end events).
        let mut events: Vec<(Time, bool, usize)> = Vec::new();
        for (run_idx, (_, start, end, _)) in all_runs.iter().enumerate() {
            if end > start {
                events.push((*start, true, run_idx));
                events.push((*end, false, run_idx));
            }
        }
        events.sort_by_key(|&(time, is_start, _)| (time, is_start));
        let mut busy = [None::<usize>; 32];
        for (_, is_start, run_idx) in events {
            for proc in all_runs[run_idx].3.iter() {
                let slot = &mut busy[proc as usize];
                if is_start {
                    assert!(slot.is_none(), "{policy}: processor {proc} booked twice");
                    *slot = Some(run_idx);
                } else if *slot == Some(run_idx) {
                    *slot = None;
                }
            }
        }
        // Every job that is not rejected ran and ended.
        for record in &first.records {
            if !record.rejected {
                assert!(
                    record.end.is_some(),
                    "{policy}: job {} never ended",
                    record.job.id
                );
            }
        }
    }
}

#[test]
fn a_job_without_walltime_runs_its_whole_run_time_and_succeeds() {
    // As Batsim runs a job with walltime -1: its delay, then success. Its
    // planning walltime (the run time, or a scaled estimate below it) is no
    // limit; a later job waits for its real end.
    let mut unlimited = hpc(1, 0, 4, 50, Some(50));
    unlimited.walltime_enforced = false;
    let mut overrun = hpc(2, 0, 4, 30, Some(60));
    overrun.walltime_enforced = false;
    let jobs = vec![unlimited, overrun, hpc(3, 1, 8, 10, Some(5))];
    for policy in Policy::ALL.into_iter().filter(|p| p.allows(Scheduling::HpcFirst)) {
        let result = run(EngineConfig::new(8, policy), jobs.clone());
        assert_eq!(
            times(&result, 1),
            (Some(0), Some(50), Some(EndReason::Completed)),
            "{policy}"
        );
        assert_eq!(
            times(&result, 2),
            (Some(0), Some(60), Some(EndReason::Completed)),
            "{policy}"
        );
        assert_eq!(
            times(&result, 3),
            (Some(60), Some(65), Some(EndReason::Completed)),
            "{policy}"
        );
    }
}
