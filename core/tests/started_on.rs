//! HPC work the batch system started where it chose (`Engine::started_on`,
//! what the SPANK plugin reports): held on exactly those processors, so
//! that no cloud job is ever placed on them, and a cloud job evicted from
//! them is never placed back there while the HPC job runs.

mod common;
use common::*;
use interstice_core::{
    Decision, Driver, EndReason, Engine, EngineConfig, EngineError, JobId, JobState, Policy, ProcSet,
    Scheduling,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn procs(ids: &[u32]) -> ProcSet {
    ProcSet::from_ids(ids.iter().copied())
}

fn driver(procs: u32, policy: Policy) -> Driver {
    Driver::new(Engine::new(EngineConfig::new(procs, policy)).expect("valid config"))
}

/// The starts a pass decided, by job.
fn starts(decisions: &[Decision]) -> BTreeMap<JobId, ProcSet> {
    decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Start { id, procs } => Some((*id, procs.clone())),
            _ => None,
        })
        .collect()
}

/// The reproduction: a 1-CPU HPC job reported on CPU 1, then a 1-CPU
/// cloud job. The engine's own choice for the HPC job would be CPU 0, and
/// the cloud job then went to CPU 1.
#[test]
fn a_cloud_job_is_never_placed_on_the_cpus_an_hpc_job_was_reported_on() {
    for policy in [
        Policy::Fcfs,
        Policy::Easy,
        Policy::Conservative,
        Policy::Convergence,
    ] {
        let mut eng = driver(2, policy);
        eng.submit(hpc(1, 0, 600, 600, 1)).unwrap();
        eng.started_on(JobId(1), &procs(&[1]), secs(0)).unwrap();
        assert!(
            starts(&eng.pass(secs(0)).unwrap()).is_empty(),
            "{policy:?}: the HPC start is not the engine's"
        );
        assert_eq!(
            eng.engine().job_state(JobId(1)),
            Some(JobState::Running {
                start: secs(0),
                procs: procs(&[1])
            })
        );
        eng.submit(cloud(2, 1, 60, 60, 1, 600)).unwrap();
        let started = starts(&eng.pass(secs(1)).unwrap());
        assert_eq!(started.get(&JobId(2)), Some(&procs(&[0])), "{policy:?}");
    }
}

/// A running cloud job on the reported CPU is evicted, and cloud work
/// comes back on the other CPU, not on the HPC job's.
#[test]
fn after_the_eviction_cloud_work_keeps_off_the_hpc_jobs_cpu() {
    let mut eng = driver(2, Policy::Easy);
    eng.submit(cloud(1, 0, 60, 60, 1, 600)).unwrap();
    let first = starts(&eng.pass(secs(0)).unwrap())[&JobId(1)].clone();
    eng.submit(hpc(2, 5, 600, 600, 1)).unwrap();
    eng.started_on(JobId(2), &first, secs(5)).unwrap();
    let decisions = eng.pass(secs(5)).unwrap();
    assert!(
        decisions.contains(&Decision::Evict { id: JobId(1) }),
        "{decisions:?}"
    );
    eng.job_ended(JobId(1), secs(5), EndReason::Evicted).unwrap();
    eng.submit(cloud(3, 5, 60, 60, 1, 600)).unwrap();
    let again = starts(&eng.pass(secs(5)).unwrap());
    let other = procs(&[1 - first.max().unwrap()]);
    assert_eq!(again.get(&JobId(3)), Some(&other));
}

/// A job the engine started on its own choice moves where the batch system
/// says it runs, and the processors it left are free again.
#[test]
fn a_job_the_engine_started_elsewhere_moves_to_its_reported_cpus() {
    let mut eng = driver(4, Policy::Fcfs);
    eng.submit(hpc(1, 0, 600, 600, 2)).unwrap();
    let own = starts(&eng.pass(secs(0)).unwrap())[&JobId(1)].clone();
    assert_eq!(own, procs(&[0, 1]), "the engine's own choice: lowest ids");
    eng.started_on(JobId(1), &procs(&[2, 3]), secs(3)).unwrap();
    assert_eq!(
        eng.engine().job_state(JobId(1)),
        Some(JobState::Running {
            start: secs(0),
            procs: procs(&[2, 3])
        })
    );
    eng.pass(secs(3)).unwrap();
    eng.submit(hpc(2, 4, 60, 60, 2)).unwrap();
    assert_eq!(
        starts(&eng.pass(secs(4)).unwrap()).get(&JobId(2)),
        Some(&procs(&[0, 1]))
    );
}

/// Refusals change nothing: a CPU another HPC job holds, a count other than
/// the job's, a CPU the engine lacks, a cloud job.
#[test]
fn what_cannot_be_held_is_refused_and_changes_nothing() {
    let mut eng = driver(4, Policy::Easy);
    eng.submit(hpc(1, 0, 600, 600, 2)).unwrap();
    eng.started_on(JobId(1), &procs(&[0, 1]), secs(0)).unwrap();
    eng.submit(hpc(2, 0, 600, 600, 2)).unwrap();
    eng.submit(cloud(3, 0, 60, 60, 1, 600)).unwrap();
    let before = format!("{:?}", eng.engine().records().collect::<Vec<_>>());
    let refused = |eng: &mut Driver, id: u64, on: &[u32], why: &str| match eng.started_on(
        JobId(id),
        &procs(on),
        secs(0),
    ) {
        Err(EngineError::StartedOn(reason)) => assert!(reason.contains(why), "{reason}"),
        other => panic!("job {id} on {on:?}: expected a refusal naming {why:?}, got {other:?}"),
    };
    refused(&mut eng, 2, &[1, 2], "held by running HPC job 1");
    refused(&mut eng, 2, &[2], "asks for 2 processors and 1 were named");
    refused(
        &mut eng,
        2,
        &[3, 4],
        "processor 4 is not one of the engine's 0..4",
    );
    refused(&mut eng, 3, &[3], "cloud job");
    assert_eq!(
        format!("{:?}", eng.engine().records().collect::<Vec<_>>()),
        before
    );
    assert!(matches!(
        eng.started_on(JobId(9), &procs(&[3]), secs(0)),
        Err(EngineError::UnknownJob(JobId(9)))
    ));
}

#[derive(Debug, Clone)]
struct Case {
    procs: u32,
    conv: u32,
    shared: bool,
    /// `(submit, walltime, run time, processors, cloud?, CPU choice seed)`.
    jobs: Vec<(i64, i64, i64, u32, bool, u64)>,
}

fn case() -> impl Strategy<Value = Case> {
    (1u32..10, 1u32..=100, any::<bool>(), 1usize..30).prop_flat_map(|(procs, conv_pct, shared, n)| {
        let conv = (procs * conv_pct / 100).clamp(1, procs);
        let job = (0i64..150, 1i64..60, 1i64..60, 1u32..=procs, 0u8..3, any::<u64>());
        proptest::collection::vec(job, n).prop_map(move |specs| Case {
            procs,
            conv,
            shared,
            jobs: specs
                .into_iter()
                .map(|(submit, wt, rt, p, kind, seed)| {
                    let cloud = kind == 0;
                    (
                        submit,
                        wt,
                        rt.min(wt),
                        if cloud { p.min(conv) } else { p },
                        cloud,
                        seed,
                    )
                })
                .collect(),
        })
    })
}

/// A batch system of its own (FCFS on the processors it sees free, each job
/// on a random choice of them) starts the HPC jobs and reports each start;
/// the engine schedules the cloud jobs. Whenever the engine starts a cloud
/// job, none of its processors runs HPC work, and after every pass no
/// running cloud job shares a processor with HPC work.
fn check(c: &Case, policy: Policy) -> Result<(), TestCaseError> {
    let mut cfg = EngineConfig::new(c.procs, policy);
    cfg.conv_procs = c.conv;
    if c.shared {
        cfg.scheduling = Scheduling::SharedQueue;
    }
    let Ok(engine) = Engine::new(cfg) else {
        return Ok(()); // a combination the engine refuses (CArS under shared-queue)
    };
    let mut eng = Driver::new(engine);
    let mut hpc_queue: Vec<(u64, i64, i64, u32, u64)> = Vec::new();
    // The batch system's truth: each running HPC job's processors and end.
    let mut hpc_running: BTreeMap<u64, (ProcSet, i64)> = BTreeMap::new();
    let mut cloud_running: BTreeMap<JobId, (ProcSet, i64)> = BTreeMap::new();
    let runtime: BTreeMap<u64, i64> = c
        .jobs
        .iter()
        .enumerate()
        .map(|(i, j)| (i as u64 + 1, j.2))
        .collect();
    for t in 0..400i64 {
        let now = secs(t);
        for (id, (_, end)) in hpc_running.clone() {
            if end <= t {
                hpc_running.remove(&id);
                eng.job_ended(JobId(id), now, EndReason::Completed).unwrap();
            }
        }
        for (id, (_, end)) in cloud_running.clone() {
            if end <= t {
                cloud_running.remove(&id);
                eng.job_ended(id, now, EndReason::Completed).unwrap();
            }
        }
        for (i, &(submit, wt, rt, p, is_cloud, seed)) in c.jobs.iter().enumerate() {
            let id = i as u64 + 1;
            if submit != t {
                continue;
            }
            if is_cloud {
                eng.submit(cloud(id, t, wt, rt, p, 600)).unwrap();
            } else {
                hpc_queue.push((id, wt, rt, p, seed));
            }
        }
        // The batch system starts its jobs in order while they fit.
        while let Some(&(id, wt, rt, p, seed)) = hpc_queue.first() {
            let busy: Vec<u32> = hpc_running.values().flat_map(|(s, _)| s.iter()).collect();
            let mut free: Vec<u32> = (0..c.procs).filter(|q| !busy.contains(q)).collect();
            if (free.len() as u32) < p {
                break;
            }
            let mut state = seed;
            for k in (1..free.len()).rev() {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                free.swap(k, (state >> 33) as usize % (k + 1));
            }
            let on = ProcSet::from_ids(free[..p as usize].iter().copied());
            hpc_queue.remove(0);
            eng.submit(hpc(id, t, wt, rt, p)).unwrap();
            eng.started_on(JobId(id), &on, now)
                .map_err(|e| TestCaseError::fail(format!("t={t}: {e}")))?;
            prop_assert_eq!(
                eng.engine().job_state(JobId(id)),
                Some(JobState::Running {
                    start: now,
                    procs: on.clone()
                })
            );
            hpc_running.insert(id, (on, t + rt));
        }
        let hpc_cpus: ProcSet = ProcSet::from_ids(hpc_running.values().flat_map(|(s, _)| s.iter()));
        while eng.events_pending() || eng.due(now).is_some() {
            let decisions = eng.pass(now).expect("no livelock");
            let mut evicted = Vec::new();
            for d in decisions {
                match d {
                    Decision::Start { id, procs } => {
                        let job = eng.engine().job_state(id);
                        prop_assert!(
                            !procs.intersects(&hpc_cpus),
                            "t={}: job {} ({:?}) started on {} where HPC work runs ({})",
                            t,
                            id,
                            job,
                            procs,
                            hpc_cpus
                        );
                        let kind = c.jobs[id.0 as usize - 1].4;
                        prop_assert!(kind, "t={}: the engine started HPC job {} itself", t, id);
                        cloud_running.insert(id, (procs, t + runtime[&id.0]));
                    }
                    Decision::Evict { id } => evicted.push(id),
                    Decision::Reject { .. } => {}
                }
            }
            for id in evicted {
                cloud_running.remove(&id);
                eng.job_ended(id, now, EndReason::Evicted).unwrap();
            }
        }
        for (id, (on, _)) in &cloud_running {
            prop_assert!(
                !on.intersects(&hpc_cpus),
                "t={}: cloud job {} runs beside HPC work",
                t,
                id
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn reported_hpc_cpus_never_run_cloud_work(c in case()) {
        for policy in [Policy::Fcfs, Policy::Easy, Policy::Conservative, Policy::Cars, Policy::Convergence] {
            check(&c, policy)?;
        }
    }
}

/// A job past its enforced walltime whose end report was lost is gone (the
/// batch system killed it at its limit): a new job reported on its
/// processors replaces it, where one within its walltime is refused.
#[test]
fn a_report_replaces_a_job_past_its_walltime_on_those_processors() {
    let mut eng = driver(2, Policy::Easy);
    eng.submit(hpc(1, 0, 100, 100, 1)).unwrap();
    eng.started_on(JobId(1), &procs(&[1]), secs(0)).unwrap();
    eng.pass(secs(0)).unwrap();
    eng.submit(hpc(2, 50, 100, 100, 1)).unwrap();
    assert!(
        eng.started_on(JobId(2), &procs(&[1]), secs(50)).is_err(),
        "job 1 runs until 100"
    );
    eng.pass(secs(150)).unwrap(); // job 1 overdue, held on
    eng.started_on(JobId(2), &procs(&[1]), secs(150)).unwrap();
    assert_eq!(eng.engine().job_state(JobId(1)), Some(JobState::Ended));
    assert_eq!(
        eng.engine().job_state(JobId(2)),
        Some(JobState::Running {
            start: secs(150),
            procs: procs(&[1])
        }),
        "the pass at 150 started job 2 on the free processor 0; the report moves it to 1"
    );
    let record = eng.engine().records().find(|r| r.job.id == JobId(1)).unwrap();
    assert_eq!(record.end_reason, Some(EndReason::WalltimeReached));
    assert_eq!(record.end, Some(secs(150)));
}
