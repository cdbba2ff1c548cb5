//! The built-in simulator for a data center of several schedulers
//! (`interstice replay --datacenter`): the clock and the runs around
//! [`Datacenter`], with the same `delay` semantics and event order as the
//! single-engine loop ([`super::simulate_stream`]): at each instant, ends,
//! then direct submissions and arrivals, then one pass of the data center,
//! whose decisions are carried out (an eviction ends the run now and is
//! acknowledged after the pass's decisions).

use super::ends::{earliest, Ends, RunState};
use super::{already_running, not_running, run_length, SimError};
use interstice_core::datacenter::{Attempt, Datacenter, PetriNet, SchedulerTotals, Service, Totals};
use interstice_core::qos::ClassReport;
use interstice_core::{Decision, EndReason, Job, JobId, Time};
use std::collections::HashMap;

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
        /// Every job's size in bytes (`F^r`'s transfer; 0: nothing to move).
        bytes: u64,
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

/// A scheduler's index and its job's id: a job of the data center.
type Key = (usize, JobId);

/// Run the data center until nothing is left to happen, handing every
/// final attempt to `sink` as it comes.
pub fn simulate_datacenter(
    dc: Datacenter,
    sources: Vec<Source<'_>>,
    sink: &mut impl AttemptSink,
) -> Result<DatacenterRun, SimError> {
    let mut run = DcRun::new(dc, sources);
    while let Some(now) = run.next_instant() {
        run.end_runs(now)?;
        run.arrive(now)?;
        run.pass(now)?;
        for attempt in run.dc.take_attempts() {
            if let Some(scheduler) = attempt.scheduler {
                run.live.remove(&(scheduler, attempt.local_id));
            }
            run.attempts += 1;
            sink.attempt(run.attempts, attempt)?;
        }
        sink.reached(now)?;
        run.end_time = now;
    }
    let finished = run.dc.finish();
    sink.reached(Time::INFINITY)?;
    for attempt in finished.attempts {
        run.attempts += 1;
        sink.attempt(run.attempts, attempt)?;
    }
    Ok(DatacenterRun {
        totals: finished.totals,
        schedulers: finished.schedulers,
        net: finished.net,
        end_time: run.end_time,
        passes: run.passes,
        classes: finished.classes,
    })
}

/// A data-center simulation under way: the data center, each source with
/// its next job, the pending ends and the runs of the jobs started.
struct DcRun<'a> {
    dc: Datacenter,
    sources: Vec<(Source<'a>, Option<Job>)>,
    ends: Ends<Key>,
    live: HashMap<Key, RunState>,
    /// Final attempts handed to the sink so far (the last one's `seq`).
    attempts: u64,
    passes: u64,
    end_time: Time,
}

impl<'a> DcRun<'a> {
    /// Nothing happened yet; each source's first job is pulled.
    fn new(dc: Datacenter, sources: Vec<Source<'a>>) -> Self {
        let sources = sources
            .into_iter()
            .map(|mut source| {
                let next = match &mut source {
                    Source::Direct { jobs, .. } | Source::Cloud { jobs, .. } => jobs.next(),
                };
                (source, next)
            })
            .collect();
        DcRun {
            dc,
            sources,
            ends: Ends::new(),
            live: HashMap::new(),
            attempts: 0,
            passes: 0,
            end_time: Time::ZERO,
        }
    }

    /// The next instant something happens: a submission from any source,
    /// an end, or the data center's own next event; `None` when nothing is left.
    fn next_instant(&self) -> Option<Time> {
        let next_submit = self
            .sources
            .iter()
            .filter_map(|(_, next)| next.as_ref().map(|job| job.submit))
            .min();
        earliest([next_submit, self.ends.next_time(), self.dc.next_time()])
    }

    /// Ends first: every current run ending at `now` is reported to its
    /// scheduler; the end of a run evicted since is dropped.
    fn end_runs(&mut self, now: Time) -> Result<(), SimError> {
        while let Some(end) = self.ends.pop_at(now) {
            let Some(state) = self
                .live
                .get_mut(&end.job)
                .filter(|state| state.ends_current(&end))
            else {
                continue;
            };
            state.running = false;
            let (scheduler, job) = end.job;
            self.dc.job_ended(scheduler, job, now, end.reason())?;
        }
        Ok(())
    }

    /// Then arrivals, source by source: direct submissions to their
    /// scheduler, cloud jobs to the data-center scheduler; a source whose
    /// next job is submitted before `now` stops the run.
    fn arrive(&mut self, now: Time) -> Result<(), SimError> {
        for (source, next) in &mut self.sources {
            while next.as_ref().is_some_and(|job| job.submit == now) {
                let job = next.take().expect("checked above");
                let (jobs, previous) = match source {
                    Source::Direct { scheduler, jobs } => {
                        run_length(&job)?;
                        self.dc.submit_direct(*scheduler, job)?;
                        (jobs, now)
                    }
                    Source::Cloud {
                        features,
                        service,
                        bytes,
                        jobs,
                    } => {
                        run_length(&job)?;
                        self.dc.arrive_in(job, features.clone(), *service, *bytes)?;
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
        Ok(())
    }

    /// One pass of the data center at `now`, its decisions carried out in
    /// order (a start books the run's end, an eviction ends the run now);
    /// the evictions are acknowledged after them.
    fn pass(&mut self, now: Time) -> Result<(), SimError> {
        let decisions = self.dc.pass(now)?;
        self.passes += 1;
        let mut evicted = Vec::new();
        for (scheduler, decision) in decisions {
            match decision {
                Decision::Start { id, .. } => {
                    let job = self.dc.job(scheduler, id).ok_or(SimError::UnknownJob(id))?;
                    let (length, reason) = run_length(job)?;
                    let state = self.live.entry((scheduler, id)).or_default();
                    if !state.start() {
                        return Err(already_running(now, id));
                    }
                    self.ends.book(now + length, (scheduler, id), state.run, reason);
                }
                Decision::Evict { id } => {
                    let evicted_now = self.live.get_mut(&(scheduler, id)).is_some_and(RunState::evict);
                    if !evicted_now {
                        return Err(not_running(now, id));
                    }
                    evicted.push((scheduler, id));
                }
                Decision::Reject { .. } => {}
            }
        }
        for (scheduler, id) in evicted {
            self.dc.job_ended(scheduler, id, now, EndReason::Evicted)?;
        }
        Ok(())
    }
}
