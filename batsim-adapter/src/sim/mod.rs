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
//! shows in the records. It also wakes up at [`Engine::next_wakeup`], and
//! schedules again at the same timestamp when the engine asks for it after a
//! pass that decided something (e.g. a re-queued evicted job), as Batsim would
//! call the scheduler again after `JOB_KILLED`.
//!
//! Completions live in a binary heap keyed by (time, booking order); every
//! run of a job has a run number, so the end event of a run that was evicted
//! is recognised as stale and dropped.

pub mod synthetic;

use interstice_core::{
    Decision, EndReason, Engine, EngineConfig, EngineError, Job, JobId, JobRecord, Summary, Time,
};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

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
    #[error("the engine made decisions in {passes} passes at t={time}s without time advancing")]
    Livelock {
        /// Simulated time.
        time: Time,
        /// Passes made.
        passes: u32,
    },
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

/// A pending end of one run of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct EndEvent {
    time: Time,
    /// Booking order: ties end in the order the runs started.
    seq: u64,
    job_idx: u32,
    run: u32,
    walltime_reached: bool,
}

/// The simulator's view of one job.
#[derive(Clone, Copy, Debug, Default)]
struct RunState {
    /// Incremented at every start and eviction; an end event is live only if it carries the current value.
    run: u32,
    running: bool,
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
const PROGRESS_EVERY: usize = 4096;
/// Passes at one timestamp after which the loop gives up.
const MAX_PASSES_PER_TIMESTAMP: u32 = 10_000;

/// Simulate `jobs` (any order; sorted by submission time, stably) on an engine
/// built from `config`. `progress(submitted, total)` is called now and then.
pub fn simulate(
    config: EngineConfig,
    jobs: Vec<Job>,
    options: &SimOptions,
    mut progress: impl FnMut(usize, usize),
) -> Result<SimResult, SimError> {
    let mut engine = Engine::new(config.clone()).map_err(SimError::Config)?;
    let mut jobs = jobs;
    jobs.sort_by_key(|job| job.submit);
    let total = jobs.len();
    engine.reserve(total);

    let index = IdIndex::new(&jobs)?;
    let lengths = jobs.iter().map(run_length).collect::<Result<Vec<_>, _>>()?;
    let ids: Vec<JobId> = jobs.iter().map(|job| job.id).collect();

    let mut states = vec![RunState::default(); total];
    let mut ends: BinaryHeap<Reverse<EndEvent>> = BinaryHeap::new();
    let mut decisions_log = Vec::new();
    let mut stats = SimStats::default();
    let mut next_job = 0usize;
    let mut seq = 0u64;
    // The last timestamp a pass ran at, whether that pass decided anything,
    // and how many passes ran there.
    let mut last_pass: Option<(Time, bool, u32)> = None;
    let mut pending = jobs.into_iter();
    let mut pending_job = pending.next();

    progress(0, total);
    loop {
        let next_submit = pending_job.as_ref().map(|job| job.submit);
        let next_end = ends.peek().map(|Reverse(event)| event.time);
        let next_wakeup = engine.next_wakeup().and_then(|wakeup| match last_pass {
            Some((time, productive, _)) if wakeup <= time => productive.then_some(time),
            _ => Some(wakeup),
        });
        let Some(now) = [next_submit, next_end, next_wakeup].into_iter().flatten().min() else {
            break;
        };

        // Completions first.
        while let Some(Reverse(event)) = ends.peek().copied() {
            if event.time != now {
                break;
            }
            ends.pop();
            let state = &mut states[event.job_idx as usize];
            if !state.running || state.run != event.run {
                stats.stale_ends += 1;
                continue;
            }
            state.running = false;
            let reason = if event.walltime_reached {
                EndReason::WalltimeReached
            } else {
                EndReason::Completed
            };
            let id = ids[event.job_idx as usize];
            engine
                .job_ended(id, now, reason)
                .map_err(|source| SimError::Engine {
                    time: now,
                    job: Some(id),
                    source,
                })?;
        }

        // Then arrivals.
        while pending_job.as_ref().is_some_and(|job| job.submit == now) {
            let job = pending_job.take().expect("checked above");
            let id = job.id;
            engine.submit(job).map_err(|source| SimError::Engine {
                time: now,
                job: Some(id),
                source,
            })?;
            next_job += 1;
            if next_job % PROGRESS_EVERY == 0 {
                progress(next_job, total);
            }
            pending_job = pending.next();
        }

        // One scheduling pass.
        let passes_here = match last_pass {
            Some((time, _, passes)) if time == now => passes + 1,
            _ => {
                stats.timestamps += 1;
                1
            }
        };
        if passes_here > MAX_PASSES_PER_TIMESTAMP {
            return Err(SimError::Livelock {
                time: now,
                passes: passes_here - 1,
            });
        }
        let decisions = engine.schedule(now);
        stats.schedule_passes += 1;
        stats.decisions += decisions.len() as u64;
        let productive = !decisions.is_empty();
        let mut evicted = Vec::new();
        for decision in decisions {
            match &decision {
                Decision::Evict { id } => {
                    let job_idx = index.get(*id)?;
                    let state = &mut states[job_idx as usize];
                    if !state.running {
                        return Err(SimError::BadDecision {
                            time: now,
                            what: format!("evict job {id}, which is not running"),
                        });
                    }
                    state.running = false;
                    state.run += 1;
                    evicted.push(*id);
                }
                Decision::Start { id, .. } => {
                    let job_idx = index.get(*id)?;
                    let state = &mut states[job_idx as usize];
                    if state.running {
                        return Err(SimError::BadDecision {
                            time: now,
                            what: format!("start job {id}, which is already running"),
                        });
                    }
                    state.running = true;
                    state.run += 1;
                    let (length, reason) = lengths[job_idx as usize];
                    ends.push(Reverse(EndEvent {
                        time: now + length,
                        seq,
                        job_idx,
                        run: state.run,
                        walltime_reached: reason == EndReason::WalltimeReached,
                    }));
                    seq += 1;
                }
                Decision::Reject { id, .. } => {
                    index.get(*id)?;
                }
            }
            if options.log_decisions {
                decisions_log.push(TimedDecision { time: now, decision });
            }
        }
        // Kills take effect at once; they are acknowledged after the pass's
        // decisions, as Batsim reports them in its next message.
        for id in evicted {
            engine
                .job_ended(id, now, EndReason::Evicted)
                .map_err(|source| SimError::Engine {
                    time: now,
                    job: Some(id),
                    source,
                })?;
        }
        last_pass = Some((now, productive, passes_here));
        stats.end_time = now;
    }
    progress(total, total);

    // Free the loop's own state before taking the records out of the engine.
    drop((pending, states, ends, index, lengths, ids));
    let records = engine.into_records();
    stats.never_started = records
        .iter()
        .filter(|record| record.start.is_none() && !record.rejected)
        .count() as u64;
    let summary = Summary::compute(&records, config.procs);
    Ok(SimResult {
        records,
        summary,
        decisions: decisions_log,
        stats,
    })
}

/// Job id → position in the sorted workload. Trace ids are usually dense
/// (SWF numbers, then injected ids), so a table indexed by `id - min` is used
/// when it is at most a few times larger than the workload; a hash map otherwise.
enum IdIndex {
    Dense { min: u64, slots: Vec<u32> },
    Sparse(HashMap<JobId, u32>),
}

impl IdIndex {
    const EMPTY: u32 = u32::MAX;

    fn new(jobs: &[Job]) -> Result<IdIndex, SimError> {
        let min = jobs.iter().map(|job| job.id.0).min().unwrap_or(0);
        let max = jobs.iter().map(|job| job.id.0).max().unwrap_or(0);
        let span = max - min;
        if span <= 4 * jobs.len() as u64 + 1024 {
            let mut slots = vec![IdIndex::EMPTY; span as usize + 1];
            for (job_idx, job) in jobs.iter().enumerate() {
                let slot = &mut slots[(job.id.0 - min) as usize];
                if *slot != IdIndex::EMPTY {
                    return Err(SimError::DuplicateJob(job.id));
                }
                *slot = job_idx as u32;
            }
            Ok(IdIndex::Dense { min, slots })
        } else {
            let mut map = HashMap::with_capacity(jobs.len());
            for (job_idx, job) in jobs.iter().enumerate() {
                if map.insert(job.id, job_idx as u32).is_some() {
                    return Err(SimError::DuplicateJob(job.id));
                }
            }
            Ok(IdIndex::Sparse(map))
        }
    }

    fn get(&self, id: JobId) -> Result<u32, SimError> {
        let found = match self {
            IdIndex::Dense { min, slots } => {
                id.0.checked_sub(*min)
                    .and_then(|offset| slots.get(usize::try_from(offset).ok()?))
                    .copied()
                    .filter(|&slot| slot != IdIndex::EMPTY)
            }
            IdIndex::Sparse(map) => map.get(&id).copied(),
        };
        found.ok_or(SimError::UnknownJob(id))
    }
}
