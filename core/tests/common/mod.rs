//! A tiny event-driven simulator over the engine, with invariant checks.
#![allow(dead_code)]

use interstice_core::{
    Decision, Driver, EndReason, Engine, EngineConfig, Job, JobId, JobKind, JobRecord, JobState, ProcSet,
    Time,
};
use std::collections::{BTreeMap, BTreeSet};

/// What the simulator observed.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Trace {
    /// Every decision with its time, in order.
    pub decisions: Vec<(Time, Decision)>,
    /// Last start of each job (time, procs).
    pub starts: BTreeMap<JobId, (Time, ProcSet)>,
    /// First planned start each job was given after the pass following its arrival.
    pub first_plan: BTreeMap<JobId, Time>,
    /// Smallest planned start ever seen for each queued job.
    pub evictions: u64,
    /// Records taken with `take_finished` after each pass ([`Opts::hand_over`]).
    pub handed_over: Vec<JobRecord>,
}

/// Property-test cases: 96 by default; more with `INTERSTICE_PROPTEST_CASES=5000`.
pub fn cases() -> u32 {
    std::env::var("INTERSTICE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96)
}

pub fn secs(s: i64) -> Time {
    Time::from_secs(s)
}

pub fn hpc(id: u64, submit: i64, walltime: i64, runtime: i64, procs: u32) -> Job {
    Job {
        id: JobId(id),
        submit: secs(submit),
        walltime: secs(walltime),
        walltime_enforced: true,
        runtime: Some(secs(runtime)),
        procs,
        kind: JobKind::Hpc,
        slo: None,
    }
}

pub fn cloud(id: u64, submit: i64, walltime: i64, runtime: i64, procs: u32, slo: i64) -> Job {
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

/// Knobs of [`run_opts`].
#[derive(Debug, Default, Clone)]
pub struct Opts {
    /// Size of the cloud reservation window (default: the engine's).
    pub window: Option<usize>,
    /// Extra `schedule` calls at these times, made only when no event
    /// happened since the last pass and `next_wakeup` says nothing is due;
    /// each must decide nothing.
    pub extra_passes: Vec<Time>,
    /// `(k, d)`: the end of every job whose id is a multiple of `k` is
    /// reported `d` after it happens (as Batsim may report a kill at the
    /// walltime); its processors stay busy until then.
    pub late_reports: Option<(u64, Time)>,
    /// Hand finished jobs over (`Engine::hand_over_finished`) and take them
    /// after every pass; each taken record must be final.
    pub hand_over: bool,
    /// Victim ranks (`Engine::rank_victims`), set before the first event.
    pub ranks: Vec<(JobId, interstice_core::qos::policy::Key)>,
    /// `cars`: plan from scratch at every session (`Engine::plan_cars_at_every_session`).
    pub cars_every_session: bool,
    /// Submit the jobs of each instant by decreasing id (each then enters
    /// the queue ahead of those submitted before it at that instant).
    pub descending_ids: bool,
}

/// Run `jobs` to completion, checking invariants after every pass. Panics
/// (fails the test) on any violated invariant.
pub fn run(cfg: EngineConfig, jobs: Vec<Job>) -> (Engine, Trace) {
    run_opts(cfg, jobs, &Opts::default())
}

/// [`run`] with options.
pub fn run_opts(cfg: EngineConfig, mut jobs: Vec<Job>, opts: &Opts) -> (Engine, Trace) {
    let area = cfg.conv_procs;
    let m = cfg.procs;
    let mut eng = Engine::new(cfg).expect("valid config");
    if let Some(k) = opts.window {
        eng.set_cloud_window(k);
    }
    if opts.hand_over {
        eng.hand_over_finished();
    }
    eng.rank_victims(opts.ranks.iter().cloned());
    if opts.cars_every_session {
        eng.plan_cars_at_every_session();
    }
    let mut eng = Driver::new(eng);
    let mut extra: BTreeSet<Time> = opts.extra_passes.iter().copied().collect();
    jobs.sort_by_key(|j| (j.submit, j.id));
    let by_id: BTreeMap<JobId, Job> = jobs.iter().map(|j| (j.id, j.clone())).collect();
    let mut arrivals: BTreeMap<Time, Vec<Job>> = BTreeMap::new();
    for j in jobs {
        arrivals.entry(j.submit).or_default().push(j);
    }
    if opts.descending_ids {
        arrivals.values_mut().for_each(|batch| batch.reverse());
    }
    // end time -> jobs ending then
    let mut ends: BTreeSet<(Time, JobId)> = BTreeSet::new();
    let mut running: BTreeMap<JobId, (Time, ProcSet, Time)> = BTreeMap::new();
    let mut trace = Trace::default();
    let mut last_t = Time::from_ticks(i64::MIN);
    loop {
        let candidates = [
            ends.first().map(|e| e.0),
            arrivals.keys().next().copied(),
            eng.next_pass(),
        ];
        let Some(t) = candidates.into_iter().flatten().min() else {
            break;
        };
        // Extra passes strictly before the next event, while nothing is due.
        while let Some(&te) = extra.first() {
            if te >= t {
                break;
            }
            extra.remove(&te);
            // No event since the last pass (evictions are acknowledged after it).
            let quiet = !eng.events_pending();
            if quiet && te >= last_t && eng.engine().next_wakeup().map_or(true, |w| w > te) {
                let d = eng.pass(te).expect("no livelock");
                assert!(d.is_empty(), "extra pass at {te} with no event decided {d:?}");
            }
        }
        assert!(t >= last_t, "time went backwards: {t} after {last_t}");
        last_t = t;
        while let Some(&(te, id)) = ends.first() {
            if te > t {
                break;
            }
            ends.remove(&(te, id));
            let (start, _, _) = running.remove(&id).expect("ending job runs");
            let job = &by_id[&id];
            let reason = if job.runtime.map_or(te - start, |r| r) >= job.walltime {
                EndReason::WalltimeReached
            } else {
                EndReason::Completed
            };
            eng.job_ended(id, te, reason).expect("job_ended");
        }
        if let Some(batch) = arrivals.remove(&t) {
            for j in batch {
                let kind = j.kind;
                let pred = eng.submit(j).expect("submit");
                assert_eq!(pred.prediction().is_some(), kind == JobKind::Cloud);
            }
        }
        let decisions = eng.pass(t).expect("no livelock");
        for record in eng.take_finished() {
            assert!(
                record.rejected || (record.end.is_some() && !running.contains_key(&record.job.id)),
                "job {} handed over before it was final: {record:?}",
                record.job.id
            );
            trace.handed_over.push(record);
        }
        let mut seen_start = false;
        let mut evicted = Vec::new();
        for d in &decisions {
            trace.decisions.push((t, d.clone()));
            match d {
                Decision::Evict { id } => {
                    assert!(!seen_start, "evictions come before starts");
                    let (_, _, te) = running.remove(id).expect("evicted job runs");
                    assert_eq!(by_id[id].kind, JobKind::Cloud, "only cloud jobs are evicted");
                    ends.remove(&(te, *id));
                    trace.evictions += 1;
                    evicted.push(*id);
                }
                Decision::Start { id, procs } => {
                    seen_start = true;
                    let job = &by_id[id];
                    assert_eq!(
                        procs.len(),
                        job.procs,
                        "job {id} got {procs} for {} procs",
                        job.procs
                    );
                    assert!(
                        procs.max().is_some_and(|p| p < m),
                        "job {id} on {procs} beyond {m}"
                    );
                    if job.kind == JobKind::Cloud {
                        assert!(
                            procs.max().is_some_and(|p| p < area),
                            "cloud job {id} on {procs} outside area"
                        );
                    }
                    assert!(t >= job.submit, "job {id} starts before its submission");
                    for (other, (_, p, _)) in &running {
                        assert!(
                            !p.intersects(procs),
                            "job {id} on {procs} overlaps running job {other} on {p}"
                        );
                    }
                    let run = job.runtime.unwrap_or(job.walltime).min(job.walltime);
                    let late = match opts.late_reports {
                        Some((k, d)) if id.0 % k == 0 => d,
                        _ => Time::ZERO,
                    };
                    let te = t + run + late;
                    running.insert(*id, (t, procs.clone(), te));
                    ends.insert((te, *id));
                    trace.starts.insert(*id, (t, procs.clone()));
                }
                Decision::Reject { id, .. } => {
                    assert_eq!(by_id[id].kind, JobKind::Cloud);
                }
            }
        }
        let used: u32 = running.values().map(|(_, p, _)| p.len()).sum();
        assert!(used <= m, "capacity exceeded: {used} > {m}");
        for id in evicted {
            eng.job_ended(id, t, EndReason::Evicted).expect("ack eviction");
        }
        for id in by_id.keys() {
            if let Some(JobState::Queued {
                planned_start: Some(p),
            }) = eng.engine().job_state(*id)
            {
                trace.first_plan.entry(*id).or_insert(p);
            }
        }
    }
    let handed: BTreeSet<JobId> = trace.handed_over.iter().map(|record| record.job.id).collect();
    for id in by_id.keys().filter(|id| !handed.contains(id)) {
        let st = eng.engine().job_state(*id).expect("known job");
        assert!(
            matches!(st, JobState::Ended | JobState::Rejected),
            "job {id} never ended: {st:?}"
        );
    }
    let eng = eng.into_engine();
    assert_eq!(eng.queued(JobKind::Hpc) + eng.queued(JobKind::Cloud), 0);
    assert_eq!(eng.running(JobKind::Hpc) + eng.running(JobKind::Cloud), 0);
    (eng, trace)
}
