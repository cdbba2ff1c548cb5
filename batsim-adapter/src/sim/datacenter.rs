//! The built-in simulator for a data center of several schedulers
//! (`interstice replay --datacenter`): the clock and the runs around
//! [`Datacenter`], with the same `delay` semantics and event order as the
//! single-engine loop ([`super::simulate_stream`]): at each instant, ends,
//! then direct submissions and arrivals, then one pass of the data center,
//! whose decisions are carried out (an eviction ends the run now and is
//! acknowledged after the pass's decisions).

use super::{run_length, SimError};
use interstice_core::datacenter::{Attempt, Datacenter, PetriNet, SchedulerTotals, Service, Totals};
use interstice_core::qos::ClassReport;
use interstice_core::{Decision, EndReason, Job, JobId, Time};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Where the jobs of a simulated data center come from.
pub enum Source<'a> {
    /// Work submitted straight to a scheduler (its HPC trace, or a cloud
    /// platform's own work), in submission order.
    Direct {
        /// The scheduler's index.
        scheduler: usize,
        /// The jobs.
        jobs: Box<dyn Iterator<Item = Job> + 'a>,
    },
    /// Cloud jobs arriving at the data-center scheduler, in submission order.
    Cloud {
        /// Features every job of the stream requires.
        features: Vec<String>,
        /// The class and tenant of every job of the stream.
        service: Service,
        /// The jobs.
        jobs: Box<dyn Iterator<Item = Job> + 'a>,
    },
}

/// Where a data-center simulation puts each finished attempt.
pub trait AttemptSink {
    /// An attempt became final; `seq` numbers attempts in the order they did.
    fn attempt(&mut self, seq: u64, attempt: Attempt) -> Result<(), SimError>;

    /// Every attempt still to come ends (or was refused) at or after `now`.
    fn reached(&mut self, now: Time) -> Result<(), SimError>;
}

/// What the run produced besides its attempts.
#[derive(Clone, Debug)]
pub struct DatacenterRun {
    /// The data center's counters.
    pub totals: Totals,
    /// Each scheduler's counters, by index.
    pub schedulers: Vec<SchedulerTotals>,
    /// The Petri net at the end.
    pub net: PetriNet,
    /// Time of the last event.
    pub end_time: Time,
    /// Passes of the data center.
    pub passes: u64,
    /// With service classes, what each class received.
    pub classes: Vec<ClassReport>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct End {
    time: Time,
    seq: u64,
    scheduler: usize,
    job: JobId,
    run: u32,
    walltime_reached: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Live {
    run: u32,
    running: bool,
}

/// Run the data center until nothing is left to happen, handing every
/// final attempt to `sink` as it comes.
pub fn simulate_datacenter(
    mut dc: Datacenter,
    sources: Vec<Source<'_>>,
    sink: &mut impl AttemptSink,
) -> Result<DatacenterRun, SimError> {
    let mut sources: Vec<(Source<'_>, Option<Job>)> = sources
        .into_iter()
        .map(|mut source| {
            let next = match &mut source {
                Source::Direct { jobs, .. } | Source::Cloud { jobs, .. } => jobs.next(),
            };
            (source, next)
        })
        .collect();
    let mut ends: BinaryHeap<Reverse<End>> = BinaryHeap::new();
    let mut live: HashMap<(usize, JobId), Live> = HashMap::new();
    let mut seq = 0u64;
    let mut attempts = 0u64;
    let mut passes = 0u64;
    let mut end_time = Time::ZERO;
    loop {
        let next_submit = sources
            .iter()
            .filter_map(|(_, next)| next.as_ref().map(|job| job.submit))
            .min();
        let next_end = ends.peek().map(|Reverse(e)| e.time);
        let Some(now) = [next_submit, next_end, dc.next_time()]
            .into_iter()
            .flatten()
            .min()
        else {
            break;
        };

        // Ends first.
        while let Some(Reverse(end)) = ends.peek().copied() {
            if end.time != now {
                break;
            }
            ends.pop();
            let Some(state) = live
                .get_mut(&(end.scheduler, end.job))
                .filter(|state| state.running && state.run == end.run)
            else {
                continue;
            };
            state.running = false;
            let reason = if end.walltime_reached {
                EndReason::WalltimeReached
            } else {
                EndReason::Completed
            };
            dc.job_ended(end.scheduler, end.job, now, reason)?;
        }

        // Then arrivals, source by source.
        for (source, next) in &mut sources {
            while next.as_ref().is_some_and(|job| job.submit == now) {
                let job = next.take().expect("checked above");
                let (jobs, previous) = match source {
                    Source::Direct { scheduler, jobs } => {
                        run_length(&job)?;
                        dc.submit_direct(*scheduler, job)?;
                        (jobs, now)
                    }
                    Source::Cloud {
                        features,
                        service,
                        jobs,
                    } => {
                        run_length(&job)?;
                        dc.arrive_in(job, features.clone(), *service)?;
                        (jobs, now)
                    }
                };
                *next = jobs.next();
                if let Some(job) = next.as_ref().filter(|job| job.submit < previous) {
                    return Err(SimError::Unsorted {
                        job: job.id,
                        submit: job.submit,
                        previous,
                    });
                }
            }
        }

        // One pass.
        let decisions = dc.pass(now)?;
        passes += 1;
        let mut evicted = Vec::new();
        for (scheduler, decision) in decisions {
            match decision {
                Decision::Start { id, .. } => {
                    let job = dc.job(scheduler, id).ok_or(SimError::UnknownJob(id))?;
                    let (length, reason) = run_length(job)?;
                    let state = live.entry((scheduler, id)).or_default();
                    if state.running {
                        return Err(SimError::BadDecision {
                            time: now,
                            what: format!("start job {id}, which is already running"),
                        });
                    }
                    state.running = true;
                    state.run += 1;
                    seq += 1;
                    ends.push(Reverse(End {
                        time: now + length,
                        seq,
                        scheduler,
                        job: id,
                        run: state.run,
                        walltime_reached: reason == EndReason::WalltimeReached,
                    }));
                }
                Decision::Evict { id } => {
                    let state = live
                        .get_mut(&(scheduler, id))
                        .filter(|s| s.running)
                        .ok_or_else(|| SimError::BadDecision {
                            time: now,
                            what: format!("evict job {id}, which is not running"),
                        })?;
                    state.running = false;
                    state.run += 1;
                    evicted.push((scheduler, id));
                }
                Decision::Reject { .. } => {}
            }
        }
        for (scheduler, id) in evicted {
            dc.job_ended(scheduler, id, now, EndReason::Evicted)?;
        }
        for attempt in dc.take_attempts() {
            if let Some(scheduler) = attempt.scheduler {
                live.remove(&(scheduler, attempt.local_id));
            }
            attempts += 1;
            sink.attempt(attempts, attempt)?;
        }
        sink.reached(now)?;
        end_time = now;
    }
    let finished = dc.finish();
    sink.reached(Time::INFINITY)?;
    for attempt in finished.attempts {
        attempts += 1;
        sink.attempt(attempts, attempt)?;
    }
    Ok(DatacenterRun {
        totals: finished.totals,
        schedulers: finished.schedulers,
        net: finished.net,
        end_time,
        passes,
        classes: finished.classes,
    })
}
