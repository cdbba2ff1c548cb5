//! The built-in discrete-event simulator behind `interstice replay`.
//!
//! It plays the part Batsim plays for the adapter, on a zero-latency
//! platform, with the semantics of Batsim's `delay` profile (see
//! [`delay_reaches_walltime`]): a job started at `t` whose run time is below
//! its walltime ends at `t + runtime` with [`EndReason::Completed`]; one whose
//! run time is equal to or above its walltime is killed at `t + walltime` with
//! [`EndReason::WalltimeReached`]. A job without a run time runs its walltime
//! and is killed there (Interstice writes it to Batsim as a delay equal to the
//! walltime).
//!
//! At each timestamp the loop applies every completion first
//! ([`Engine::job_ended`]), then every arrival ([`Engine::submit`]), then calls
//! [`Engine::schedule`] once and carries out its decisions: an eviction ends
//! the run now ([`EndReason::Evicted`], reported back to the engine after the
//! pass's decisions, as Batsim reports kills in its next message; the engine
//! may re-queue the job), a start books the run's end event, a rejection only
//! shows in the records. When to pass without an event (the engine's
//! wake-up, again at the same timestamp after a pass that decided something,
//! e.g. a re-queued evicted job) and the livelock bound are
//! [`Driver`]'s rules.
//!
//! Completions live in a binary heap keyed by (time, booking order); every
//! run of a job has a run number, so the end event of a run that was evicted
//! is recognised as stale and dropped.

pub mod area_qos;
pub mod datacenter;
mod ends;
pub mod synthetic;

use ends::{earliest, Ends, RunState};
use interstice_core::{
    Decision, Driver, EndReason, Engine, EngineConfig, EngineError, IdMap, Job, JobId, JobRecord, Livelock,
    Summary, Time,
};
use std::collections::HashSet;

/// A simulation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The engine refused the config.
    #[error("cannot build the engine")]
    Config(#[source] EngineError),
    /// The engine refused an event; `job` is the job concerned, if any.
    #[error("the engine refused an event at t={time}s{}", job.map(|id| format!(" (job {id})")).unwrap_or_default())]
    Engine {
        /// Simulated time of the event.
        time: Time,
        /// The job concerned.
        job: Option<JobId>,
        /// The engine's error.
        #[source]
        source: EngineError,
    },
    /// A job has neither a run time nor a finite walltime: it would never end.
    #[error("job {0} has no run time and no walltime: it would never end (give it a walltime)")]
    EndlessJob(JobId),
    /// A job id appears twice in the workload.
    #[error("job id {0} appears twice in the workload: job ids must be unique")]
    DuplicateJob(JobId),
    /// A streamed workload was not in submission order.
    #[error("job {job} is submitted at t={submit}s, before an earlier job (t={previous}s): a streamed workload must come in submission order")]
    Unsorted {
        /// The job out of order.
        job: JobId,
        /// Its submission time.
        submit: Time,
        /// The submission time it follows.
        previous: Time,
    },
    /// The sink could not take a record (e.g. `jobs.csv` could not be written).
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// The engine named a job the simulator does not know.
    #[error("the engine decided on job {0}, which is not in the workload")]
    UnknownJob(JobId),
    /// The engine asked to start a running job or to evict one that is not running.
    #[error("inconsistent decision at t={time}s: {what}")]
    BadDecision {
        /// Simulated time.
        time: Time,
        /// What was wrong.
        what: String,
    },
    /// The engine kept deciding at one timestamp without time advancing.
    #[error(transparent)]
    Livelock(#[from] Livelock),
    /// The data center refused an event or its config.
    #[error(transparent)]
    Datacenter(#[from] interstice_core::datacenter::DatacenterError),
}

/// Knobs of a simulation run that do not change its outcome.
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    /// Keep every decision with its time in [`SimResult::decisions`] (for
    /// cross-checking against the Batsim adapter; costs memory on big runs).
    pub log_decisions: bool,
}

/// One decision, with the simulated time at which it was carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedDecision {
    /// When.
    pub time: Time,
    /// What.
    pub decision: Decision,
}

/// Counters of the simulation loop itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Distinct timestamps processed.
    pub timestamps: u64,
    /// Calls to [`Engine::schedule`].
    pub schedule_passes: u64,
    /// Decisions carried out.
    pub decisions: u64,
    /// End events dropped because their run had been evicted.
    pub stale_ends: u64,
    /// Jobs still queued when nothing was left to happen (never started).
    pub never_started: u64,
    /// Time of the last event processed.
    pub end_time: Time,
    /// Most jobs the engine held at once (queued, running, or final and not
    /// handed over yet): what the run's memory follows.
    pub peak_held: u64,
}

/// What a simulation produced.
#[derive(Clone, Debug)]
pub struct SimResult {
    /// Every job's record, in submission order (from [`Engine::records`]).
    pub records: Vec<JobRecord>,
    /// The run's metrics on `config.procs` processors.
    pub summary: Summary,
    /// Every decision in order, if [`SimOptions::log_decisions`] was set.
    pub decisions: Vec<TimedDecision>,
    /// Loop counters.
    pub stats: SimStats,
}

impl SimResult {
    /// Start time and processors of each job's last run, by id (for comparing
    /// with another driver of the engine).
    pub fn starts(&self) -> impl Iterator<Item = (JobId, Time, &interstice_core::ProcSet)> + '_ {
        self.records
            .iter()
            .filter_map(|record| Some((record.job.id, record.start?, record.procs.as_ref()?)))
    }
}

/// Batsim's rule for a job with a `delay` profile: it sleeps the delay only
/// if the delay is strictly below the walltime, else it sleeps until the
/// walltime and ends `COMPLETED_WALLTIME_REACHED`. So a job whose delay equals
/// its walltime is killed, as Batsim 4.2.1 reports for `w0!10` (delay 10 s,
/// walltime 10 s) in `transcript-walltime-kills.jsonl`. An infinite walltime
/// (none) never kills.
pub fn delay_reaches_walltime(delay: Time, walltime: Time) -> bool {
    !walltime.is_infinite() && delay >= walltime
}

/// How long a run of `job` lasts and how it ends (`delay` profile semantics;
/// a walltime that is not enforced is Batsim's walltime `-1`: no kill).
/// The Batsim adapter uses it to know when Batsim will report a run's end.
pub fn run_length(job: &Job) -> Result<(Time, EndReason), SimError> {
    let walltime = if job.walltime_enforced {
        job.walltime.max(Time::ZERO)
    } else {
        Time::INFINITY
    };
    match job.runtime {
        Some(runtime) if delay_reaches_walltime(runtime.max(Time::ZERO), walltime) => {
            Ok((walltime, EndReason::WalltimeReached))
        }
        Some(runtime) => Ok((runtime.max(Time::ZERO), EndReason::Completed)),
        None if job.walltime.is_infinite() => Err(SimError::EndlessJob(job.id)),
        None if !job.walltime_enforced => Ok((job.walltime, EndReason::Completed)),
        None => Ok((walltime, EndReason::WalltimeReached)),
    }
}

/// Progress is reported every this many submissions.
const PROGRESS_EVERY: u64 = 4096;

/// Where a streamed simulation puts each job's final record.
pub trait RecordSink {
    /// The final record of the job submitted `seq`-th (0-based): it ended
    /// for good, was rejected, or (at the end of the run) never ended.
    fn record(&mut self, seq: u64, record: Box<JobRecord>) -> Result<(), SimError>;

    /// Every record still to come ends (or was rejected) at or after `now`.
    fn reached(&mut self, now: Time) -> Result<(), SimError>;
}

/// What a streamed simulation produced besides its records.
#[derive(Clone, Debug)]
pub struct SimRun {
    /// Every decision in order, if [`SimOptions::log_decisions`] was set.
    pub decisions: Vec<TimedDecision>,
    /// Loop counters.
    pub stats: SimStats,
}

/// Simulate `jobs` (any order; sorted by submission time, stably) on an engine
/// built from `config`, keeping every record. `progress(submitted, total)` is
/// called now and then.
pub fn simulate(
    config: EngineConfig,
    jobs: Vec<Job>,
    options: &SimOptions,
    mut progress: impl FnMut(usize, usize),
) -> Result<SimResult, SimError> {
    let mut jobs = jobs;
    jobs.sort_by_key(|job| job.submit);
    let mut ids = HashSet::with_capacity(jobs.len());
    for job in &jobs {
        if !ids.insert(job.id) {
            return Err(SimError::DuplicateJob(job.id));
        }
        run_length(job)?;
    }
    drop(ids);
    let total = jobs.len();
    let procs = config.procs;
    let mut collected = Collect(Vec::with_capacity(total));
    let run = simulate_stream(config, jobs, options, &mut collected, |submitted| {
        progress(submitted as usize, total)
    })?;
    let mut records = collected.0;
    records.sort_unstable_by_key(|(seq, _)| *seq);
    let records: Vec<JobRecord> = records.into_iter().map(|(_, record)| record).collect();
    let summary = Summary::compute(&records, procs);
    Ok(SimResult {
        records,
        summary,
        decisions: run.decisions,
        stats: run.stats,
    })
}

/// Keeps every record with its submission order.
struct Collect(Vec<(u64, JobRecord)>);

impl RecordSink for Collect {
    fn record(&mut self, seq: u64, record: Box<JobRecord>) -> Result<(), SimError> {
        self.0.push((seq, *record));
        Ok(())
    }

    fn reached(&mut self, _now: Time) -> Result<(), SimError> {
        Ok(())
    }
}

/// The simulator's view of a job in the system.
#[derive(Clone, Copy, Debug)]
struct Live {
    /// Submission order (0-based).
    seq: u64,
    /// Its current run, and whether it is running.
    runs: RunState,
    length: Time,
    reason: EndReason,
}

/// The engine asked to start a job whose run is still running.
fn already_running(time: Time, id: JobId) -> SimError {
    SimError::BadDecision {
        time,
        what: format!("start job {id}, which is already running"),
    }
}

/// The engine asked to evict a job that is not running.
fn not_running(time: Time, id: JobId) -> SimError {
    SimError::BadDecision {
        time,
        what: format!("evict job {id}, which is not running"),
    }
}

/// Simulate the jobs of `arrivals`, which must come in submission order,
/// pulling them one at a time, and hand each job's final record to `sink`
/// as soon as it is known (the engine forgets it): memory follows the jobs in
/// the system, not the workload. `progress(submitted)` is called now and then.
/// Decisions are those of [`simulate`] on the same jobs.
pub fn simulate_stream(
    config: EngineConfig,
    arrivals: impl IntoIterator<Item = Job>,
    options: &SimOptions,
    sink: &mut impl RecordSink,
    mut progress: impl FnMut(u64),
) -> Result<SimRun, SimError> {
    let mut engine = Engine::new(config).map_err(SimError::Config)?;
    engine.hand_over_finished();
    let mut run = Stream::new(Driver::new(engine), arrivals.into_iter(), options);
    progress(0);
    while let Some(now) = run.next_instant() {
        run.end_runs(now)?;
        run.arrive(now, &mut progress)?;
        run.pass(now)?;
        hand_over(&mut run.driver, &mut run.live, sink)?;
        // Jobs final after this pass (the evictions just acknowledged) are
        // handed over after the next one, at `now` or later: every record
        // still to come ends at `now` or later.
        sink.reached(now)?;
        run.stats.end_time = now;
    }
    progress(run.submitted);
    run.finish(sink)
}

/// One streamed simulation under way: the engine's driver, the jobs in the
/// system, the pending ends, the next arrival, and what the run keeps
/// besides its records (the decision log, the loop counters).
struct Stream<I> {
    driver: Driver,
    live: IdMap<JobId, Live>,
    ends: Ends<JobId>,
    arrivals: I,
    next_arrival: Option<Job>,
    /// Jobs submitted so far; the next one's submission order.
    submitted: u64,
    log_decisions: bool,
    decisions: Vec<TimedDecision>,
    stats: SimStats,
}

impl<I: Iterator<Item = Job>> Stream<I> {
    /// Nothing happened yet; the first arrival is pulled.
    fn new(driver: Driver, mut arrivals: I, options: &SimOptions) -> Self {
        let next_arrival = arrivals.next();
        Stream {
            driver,
            live: IdMap::default(),
            ends: Ends::new(),
            arrivals,
            next_arrival,
            submitted: 0,
            log_decisions: options.log_decisions,
            decisions: Vec::new(),
            stats: SimStats::default(),
        }
    }

    /// The next instant something happens: an arrival, an end, or a pass
    /// the driver wants; `None` when nothing is left.
    fn next_instant(&self) -> Option<Time> {
        let next_submit = self.next_arrival.as_ref().map(|job| job.submit);
        earliest([next_submit, self.ends.next_time(), self.driver.next_pass()])
    }

    /// Completions first: every run ending at `now` is reported to the
    /// engine; the end of a run evicted since (its job may be gone) is
    /// dropped and counted.
    fn end_runs(&mut self, now: Time) -> Result<(), SimError> {
        while let Some(end) = self.ends.pop_at(now) {
            let Some(state) = self
                .live
                .get_mut(&end.job)
                .filter(|state| state.runs.ends_current(&end))
            else {
                self.stats.stale_ends += 1;
                continue;
            };
            state.runs.running = false;
            self.driver
                .job_ended(end.job, now, end.reason())
                .map_err(|source| SimError::Engine {
                    time: now,
                    job: Some(end.job),
                    source,
                })?;
        }
        Ok(())
    }

    /// Then arrivals: every job submitted at `now`, each pulled after the
    /// previous one is in; a duplicate id or a job submitted before `now`
    /// stops the run.
    fn arrive(&mut self, now: Time, progress: &mut impl FnMut(u64)) -> Result<(), SimError> {
        while self.next_arrival.as_ref().is_some_and(|job| job.submit == now) {
            let job = self.next_arrival.take().expect("checked above");
            let id = job.id;
            let (length, reason) = run_length(&job)?;
            let state = Live {
                seq: self.submitted,
                runs: RunState::default(),
                length,
                reason,
            };
            if self.live.insert(id, state).is_some() {
                return Err(SimError::DuplicateJob(id));
            }
            self.driver.submit(job).map_err(|source| SimError::Engine {
                time: now,
                job: Some(id),
                source,
            })?;
            self.submitted += 1;
            if self.submitted % PROGRESS_EVERY == 0 {
                progress(self.submitted);
            }
            self.next_arrival = self.arrivals.next();
            if let Some(next) = &self.next_arrival {
                if next.submit < now {
                    return Err(SimError::Unsorted {
                        job: next.id,
                        submit: next.submit,
                        previous: now,
                    });
                }
            }
        }
        Ok(())
    }

    /// One scheduling pass at `now`, its decisions carried out in order;
    /// the evictions are acknowledged after them.
    fn pass(&mut self, now: Time) -> Result<(), SimError> {
        if self.driver.last_pass() != Some(now) {
            self.stats.timestamps += 1;
        }
        let decisions = self.driver.pass(now)?;
        self.stats.schedule_passes += 1;
        self.stats.decisions += decisions.len() as u64;
        let mut evicted = Vec::new();
        for decision in decisions {
            self.carry_out(now, &decision, &mut evicted)?;
            if self.log_decisions {
                self.decisions.push(TimedDecision { time: now, decision });
            }
        }
        // Kills take effect at once; they are acknowledged after the pass's
        // decisions, as Batsim reports them in its next message.
        for id in evicted {
            self.driver
                .job_ended(id, now, EndReason::Evicted)
                .map_err(|source| SimError::Engine {
                    time: now,
                    job: Some(id),
                    source,
                })?;
        }
        self.stats.peak_held = self.stats.peak_held.max(self.driver.engine().jobs_held() as u64);
        Ok(())
    }

    /// One decision: an eviction ends the run now (its id joins `evicted`),
    /// a start books the run's end, a rejection only checks the job is known.
    fn carry_out(
        &mut self,
        now: Time,
        decision: &Decision,
        evicted: &mut Vec<JobId>,
    ) -> Result<(), SimError> {
        match decision {
            Decision::Evict { id } => {
                let state = self.live.get_mut(id).ok_or(SimError::UnknownJob(*id))?;
                if !state.runs.evict() {
                    return Err(not_running(now, *id));
                }
                evicted.push(*id);
            }
            Decision::Start { id, .. } => {
                let state = self.live.get_mut(id).ok_or(SimError::UnknownJob(*id))?;
                if !state.runs.start() {
                    return Err(already_running(now, *id));
                }
                self.ends
                    .book(now + state.length, *id, state.runs.run, state.reason);
            }
            Decision::Reject { id, .. } => {
                if !self.live.contains_key(id) {
                    return Err(SimError::UnknownJob(*id));
                }
            }
        }
        Ok(())
    }

    /// Nothing is left to happen: the records still held, then what never
    /// ended, last and in submission order.
    fn finish(mut self, sink: &mut impl RecordSink) -> Result<SimRun, SimError> {
        hand_over(&mut self.driver, &mut self.live, sink)?;
        sink.reached(Time::INFINITY)?;
        for record in self.driver.into_engine().into_records() {
            if record.start.is_none() && !record.rejected {
                self.stats.never_started += 1;
            }
            let state = self
                .live
                .get(&record.job.id)
                .ok_or(SimError::UnknownJob(record.job.id))?;
            sink.record(state.seq, Box::new(record))?;
        }
        Ok(SimRun {
            decisions: self.decisions,
            stats: self.stats,
        })
    }
}

/// Give the sink the records of the jobs the engine is done with.
fn hand_over(
    driver: &mut Driver,
    live: &mut IdMap<JobId, Live>,
    sink: &mut impl RecordSink,
) -> Result<(), SimError> {
    for record in driver.take_finished() {
        let state = live
            .remove(&record.job.id)
            .ok_or(SimError::UnknownJob(record.job.id))?;
        sink.record(state.seq, record)?;
    }
    Ok(())
}

/// Only the run's metrics, tallied record by record (memory does not grow
/// with the number of jobs).
impl RecordSink for interstice_core::SummaryTally {
    fn record(&mut self, _seq: u64, record: Box<JobRecord>) -> Result<(), SimError> {
        self.add(&record);
        Ok(())
    }

    fn reached(&mut self, _now: Time) -> Result<(), SimError> {
        Ok(())
    }
}

/// A run's result files, written as the run goes.
impl RecordSink for crate::output::ResultWriter<'_> {
    fn record(&mut self, seq: u64, record: Box<JobRecord>) -> Result<(), SimError> {
        Ok(self.add(seq, record)?)
    }

    fn reached(&mut self, now: Time) -> Result<(), SimError> {
        Ok(self.write_before(now)?)
    }
}
