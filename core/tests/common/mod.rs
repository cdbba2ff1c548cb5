//! A tiny event-driven simulator over the engine, with invariant checks.
#![allow(dead_code)]

use interstice_core::{
    AreaResize, Decision, Driver, EndReason, Engine, EngineConfig, Job, JobId, JobKind, JobRecord, JobState,
    ProcSet, Time,
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
    /// What each resize of [`Opts::area_schedule`] did.
    pub resizes: Vec<(Time, AreaResize)>,
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
    job(id, submit, walltime, runtime, procs, JobKind::Hpc, None)
}

pub fn cloud(id: u64, submit: i64, walltime: i64, runtime: i64, procs: u32, slo: i64) -> Job {
    job(
        id,
        submit,
        walltime,
        runtime,
        procs,
        JobKind::Cloud,
        Some(secs(slo)),
    )
}

/// A job of `kind` with an enforced walltime and a known run time (seconds).
fn job(
    id: u64,
    submit: i64,
    walltime: i64,
    runtime: i64,
    procs: u32,
    kind: JobKind,
    slo: Option<Time>,
) -> Job {
    Job {
        id: JobId(id),
        submit: secs(submit),
        walltime: secs(walltime),
        walltime_enforced: true,
        runtime: Some(secs(runtime)),
        procs,
        kind,
        slo,
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
    /// FCFS and EASY keep the HPC layer's plan from the start
    /// (`Engine::keep_the_plan`) instead of counting free processors.
    pub keep_the_plan: bool,
    /// Submit the jobs of each instant by decreasing id (each then enters
    /// the queue ahead of those submitted before it at that instant).
    pub descending_ids: bool,
    /// `(t, c)`: resize the convergence area to `0..c` at `t`
    /// (`Engine::resize_area`), after that instant's ends and before its
    /// arrivals; every pass then checks that no cloud job runs outside it.
    pub area_schedule: Vec<(Time, u32)>,
}

/// Run `jobs` to completion, checking invariants after every pass. Panics
/// (fails the test) on any violated invariant.
pub fn run(cfg: EngineConfig, jobs: Vec<Job>) -> (Engine, Trace) {
    run_opts(cfg, jobs, &Opts::default())
}

/// [`run`] with options.
pub fn run_opts(cfg: EngineConfig, jobs: Vec<Job>, opts: &Opts) -> (Engine, Trace) {
    let mut sim = Sim::new(cfg, jobs, opts);
    loop {
        let candidates = [
            sim.ends.first().map(|e| e.0),
            sim.arrivals.keys().next().copied(),
            sim.resizes.keys().next().copied(),
            sim.eng.next_pass(),
        ];
        let Some(t) = candidates.into_iter().flatten().min() else {
            break;
        };
        sim.extra_passes_before(t);
        assert!(t >= sim.last_t, "time went backwards: {t} after {}", sim.last_t);
        sim.last_t = t;
        sim.end_jobs_until(t);
        sim.resize_area(t);
        sim.submit_arrivals(t);
        let decisions = sim.eng.pass(t).expect("no livelock");
        sim.take_handed_over();
        let evicted = sim.carry_out(t, &decisions);
        sim.check_cloud_in_area(t);
        let used: u32 = sim.running.values().map(|(_, p, _)| p.len()).sum();
        assert!(used <= sim.m, "capacity exceeded: {used} > {}", sim.m);
        for id in evicted {
            sim.eng
                .job_ended(id, t, EndReason::Evicted)
                .expect("ack eviction");
        }
        sim.note_first_plans();
    }
    sim.finish()
}

/// The simulator's state between instants: the engine behind its driver,
/// the jobs still to arrive, those running and when they end, and what was
/// observed so far.
struct Sim<'a> {
    opts: &'a Opts,
    /// The convergence area's processors.
    area: u32,
    /// The platform's processors.
    m: u32,
    eng: Driver,
    /// Extra passes not made yet ([`Opts::extra_passes`]).
    extra: BTreeSet<Time>,
    by_id: BTreeMap<JobId, Job>,
    /// The jobs still to arrive, by arrival time, each instant's in submission order.
    arrivals: BTreeMap<Time, Vec<Job>>,
    /// `(end time, job)` of every running job.
    ends: BTreeSet<(Time, JobId)>,
    /// Each running job's start, processors and end time.
    running: BTreeMap<JobId, (Time, ProcSet, Time)>,
    trace: Trace,
    /// The instant of the last pass.
    last_t: Time,
    /// Area resizes still to come ([`Opts::area_schedule`]).
    resizes: BTreeMap<Time, u32>,
}

impl<'a> Sim<'a> {
    /// An engine of `cfg` set up by `opts`, `jobs` still to arrive.
    fn new(cfg: EngineConfig, mut jobs: Vec<Job>, opts: &'a Opts) -> Sim<'a> {
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
        if opts.keep_the_plan {
            eng.keep_the_plan();
        }
        let eng = Driver::new(eng);
        let extra: BTreeSet<Time> = opts.extra_passes.iter().copied().collect();
        jobs.sort_by_key(|j| (j.submit, j.id));
        let by_id: BTreeMap<JobId, Job> = jobs.iter().map(|j| (j.id, j.clone())).collect();
        let mut arrivals: BTreeMap<Time, Vec<Job>> = BTreeMap::new();
        for j in jobs {
            arrivals.entry(j.submit).or_default().push(j);
        }
        if opts.descending_ids {
            arrivals.values_mut().for_each(|batch| batch.reverse());
        }
        Sim {
            opts,
            area,
            m,
            eng,
            extra,
            by_id,
            arrivals,
            ends: BTreeSet::new(),
            running: BTreeMap::new(),
            trace: Trace::default(),
            last_t: Time::from_ticks(i64::MIN),
            resizes: opts.area_schedule.iter().copied().collect(),
        }
    }

    /// Extra passes strictly before the next event `t`, while nothing is due.
    fn extra_passes_before(&mut self, t: Time) {
        while let Some(&te) = self.extra.first() {
            if te >= t {
                break;
            }
            self.extra.remove(&te);
            // No event since the last pass (evictions are acknowledged after it).
            let quiet = !self.eng.events_pending();
            if quiet && te >= self.last_t && self.eng.engine().next_wakeup().map_or(true, |w| w > te) {
                let d = self.eng.pass(te).expect("no livelock");
                assert!(d.is_empty(), "extra pass at {te} with no event decided {d:?}");
            }
        }
    }

    /// Report every end up to `t`: at the walltime when the job ran it all,
    /// else completed.
    fn end_jobs_until(&mut self, t: Time) {
        while let Some(&(te, id)) = self.ends.first() {
            if te > t {
                break;
            }
            self.ends.remove(&(te, id));
            let (start, _, _) = self.running.remove(&id).expect("ending job runs");
            let job = &self.by_id[&id];
            let reason = if job.runtime.map_or(te - start, |r| r) >= job.walltime {
                EndReason::WalltimeReached
            } else {
                EndReason::Completed
            };
            self.eng.job_ended(id, te, reason).expect("job_ended");
        }
    }

    /// Resize the area if the schedule says so at `t`.
    fn resize_area(&mut self, t: Time) {
        if let Some(c) = self.resizes.remove(&t) {
            let resize = self.eng.resize_area(c, t).expect("resize");
            assert_eq!(resize.to, c);
            self.area = c;
            self.trace.resizes.push((t, resize));
        }
    }

    /// After a pass's decisions: no cloud job runs outside the area.
    fn check_cloud_in_area(&self, t: Time) {
        for (id, (_, procs, _)) in &self.running {
            if self.by_id[id].kind == JobKind::Cloud {
                assert!(
                    procs.max().is_some_and(|p| p < self.area),
                    "at {t} cloud job {id} runs on {procs}, outside the area 0..{}",
                    self.area
                );
            }
        }
    }

    /// Submit the jobs arriving at `t`; cloud jobs, and only they, get a prediction.
    fn submit_arrivals(&mut self, t: Time) {
        if let Some(batch) = self.arrivals.remove(&t) {
            for j in batch {
                let kind = j.kind;
                let pred = self.eng.submit(j).expect("submit");
                assert_eq!(pred.prediction().is_some(), kind == JobKind::Cloud);
            }
        }
    }

    /// Take the records handed over after a pass; each must be final.
    fn take_handed_over(&mut self) {
        for record in self.eng.take_finished() {
            assert!(
                record.rejected || (record.end.is_some() && !self.running.contains_key(&record.job.id)),
                "job {} handed over before it was final: {record:?}",
                record.job.id
            );
            self.trace.handed_over.push(*record);
        }
    }

    /// Carry out a pass's decisions at `t`, evictions before starts; returns
    /// the evicted jobs, whose kills are acknowledged after the pass.
    fn carry_out(&mut self, t: Time, decisions: &[Decision]) -> Vec<JobId> {
        let mut seen_start = false;
        let mut evicted = Vec::new();
        for d in decisions {
            self.trace.decisions.push((t, d.clone()));
            match d {
                Decision::Evict { id } => {
                    assert!(!seen_start, "evictions come before starts");
                    let (_, _, te) = self.running.remove(id).expect("evicted job runs");
                    assert_eq!(self.by_id[id].kind, JobKind::Cloud, "only cloud jobs are evicted");
                    self.ends.remove(&(te, *id));
                    self.trace.evictions += 1;
                    evicted.push(*id);
                }
                Decision::Start { id, procs } => {
                    seen_start = true;
                    self.start(t, *id, procs);
                }
                Decision::Reject { id, .. } => {
                    assert_eq!(self.by_id[id].kind, JobKind::Cloud);
                }
            }
        }
        evicted
    }

    /// Job `id` starts at `t` on `procs`: as many as it asked for, on the
    /// platform (a cloud job in the area), after its submission, on no
    /// running job's processors; it ends after its run time (at most its
    /// walltime), reported late by [`Opts::late_reports`].
    fn start(&mut self, t: Time, id: JobId, procs: &ProcSet) {
        let (m, area) = (self.m, self.area);
        let job = &self.by_id[&id];
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
        for (other, (_, p, _)) in &self.running {
            assert!(
                !p.intersects(procs),
                "job {id} on {procs} overlaps running job {other} on {p}"
            );
        }
        let run = job.runtime.unwrap_or(job.walltime).min(job.walltime);
        let late = match self.opts.late_reports {
            Some((k, d)) if id.0 % k == 0 => d,
            _ => Time::ZERO,
        };
        let te = t + run + late;
        self.running.insert(id, (t, procs.clone(), te));
        self.ends.insert((te, id));
        self.trace.starts.insert(id, (t, procs.clone()));
    }

    /// Each queued job's first planned start.
    fn note_first_plans(&mut self) {
        for id in self.by_id.keys() {
            if let Some(JobState::Queued {
                planned_start: Some(p),
            }) = self.eng.engine().job_state(*id)
            {
                self.trace.first_plan.entry(*id).or_insert(p);
            }
        }
    }

    /// After the last event: every job ended or was rejected (or was handed
    /// over), nothing is queued or running.
    fn finish(self) -> (Engine, Trace) {
        let handed: BTreeSet<JobId> = self
            .trace
            .handed_over
            .iter()
            .map(|record| record.job.id)
            .collect();
        for id in self.by_id.keys().filter(|id| !handed.contains(id)) {
            let st = self.eng.engine().job_state(*id).expect("known job");
            assert!(
                matches!(st, JobState::Ended | JobState::Rejected),
                "job {id} never ended: {st:?}"
            );
        }
        let eng = self.eng.into_engine();
        assert_eq!(eng.queued(JobKind::Hpc) + eng.queued(JobKind::Cloud), 0);
        assert_eq!(eng.running(JobKind::Hpc) + eng.running(JobKind::Cloud), 0);
        (eng, self.trace)
    }
}
