//! `JOB_SUBMITTED`: the arrivals applied in a canonical order, each Batsim job
//! turned into an engine job with an engine id and queued in the engine.

use super::{Arrival, Entry, JobError, Running, SessionError, Tracked, DYNAMIC_WORKLOAD, SYNTHETIC_ID_BASE};
use crate::protocol::messages::{EventKind, JobSubmitted, Message, Outgoing};
use interstice_core::{EngineError, Job, JobId, JobKind, Time};
use interstice_swf::label::JobLabel;
use interstice_swf::{JobDescription, Profile};

/// Sort key of a Batsim job id: workload, then the job number when numeric, then the text.
fn job_order_key(batsim_id: &str) -> (&str, u64, &str) {
    let (workload, name) = batsim_id.split_once('!').unwrap_or(("", batsim_id));
    (workload, name.parse::<u64>().unwrap_or(u64::MAX), name)
}

impl Running {
    /// A message's `JOB_SUBMITTED`s join the arrivals not applied yet
    /// ([`Running::apply_arrivals`] applies them once no end is due); each
    /// one's delay since its `subtime` updates the observed latency.
    pub(super) fn queue_arrivals(&mut self, message: &Message) {
        for (index, event) in message.events.iter().enumerate() {
            if let EventKind::JobSubmitted(submitted) = &event.kind {
                let at = Time::from_secs_f64(event.timestamp);
                if let Some(subtime) = JobDescription::from_object(&submitted.job)
                    .ok()
                    .and_then(|description| description.subtime)
                {
                    self.latency = self.latency.max(at - Time::from_secs_f64(subtime));
                }
                self.arrivals.push(Arrival {
                    index,
                    submitted: submitted.clone(),
                    at,
                });
            }
        }
    }

    /// Submit the waiting arrivals, in a canonical order (time, then
    /// workload and job number: Batsim sorts same-time jobs by id as text).
    pub(super) fn apply_arrivals(&mut self, reply: &mut Vec<Outgoing>) -> Result<(), SessionError> {
        let mut arrivals = std::mem::take(&mut self.arrivals);
        arrivals.sort_by(|a, b| {
            a.at.cmp(&b.at)
                .then_with(|| job_order_key(&a.submitted.job_id).cmp(&job_order_key(&b.submitted.job_id)))
        });
        for arrival in arrivals {
            self.job_submitted(&arrival.submitted, arrival.at, reply)
                .map_err(|problem| SessionError::Event {
                    index: arrival.index,
                    event_type: "JOB_SUBMITTED",
                    problem,
                })?;
        }
        Ok(())
    }

    pub(super) fn new_engine_id(&mut self, batsim_id: &str) -> JobId {
        if let Some((workload, name)) = batsim_id.split_once('!') {
            if self.workload_name == workload {
                if let Ok(number) = name.parse::<u64>() {
                    if number < SYNTHETIC_ID_BASE && self.used_ids.insert(number) {
                        return JobId(number);
                    }
                }
            }
        }
        loop {
            let id = self.next_synthetic;
            self.next_synthetic += 1;
            if self.used_ids.insert(id) {
                return JobId(id);
            }
        }
    }

    fn profile_delay(&self, workload: &str, profile: &str) -> Option<Time> {
        let profile = Profile::from_value(self.profiles.get(workload)?.get(profile)?)?;
        profile.delay_secs().map(Time::from_secs_f64)
    }

    fn job_submitted(
        &mut self,
        submitted: &JobSubmitted,
        at: Time,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), JobError> {
        let batsim_id = &submitted.job_id;
        if let Some(id) = self.by_batsim.get(batsim_id) {
            // The acknowledgement of a job the adapter registered itself.
            if self
                .entries
                .get(id)
                .is_some_and(|e| e.workload == DYNAMIC_WORKLOAD || e.registrations > 0)
            {
                return Ok(());
            }
            return Err(JobError::AlreadySubmitted(batsim_id.clone()));
        }
        let job = &submitted.job;
        let description = JobDescription::from_object(job).map_err(JobError::Field)?;
        let procs = u32::try_from(description.res as u64)
            .ok()
            .filter(|_| description.res >= 0.0 && description.res.fract() == 0.0)
            .ok_or(JobError::Res(description.res))?;
        let workload = batsim_id.split_once('!').map_or("", |(w, _)| w).to_string();
        let runtime = self.profile_delay(&workload, &description.profile);
        let (walltime, walltime_enforced) = match description.walltime_secs() {
            Some(secs) => (Time::from_secs_f64(secs), true),
            // Batsim's convention: missing or -1 = no walltime; plan with the
            // delay when known (as `interstice replay` reads such a workload).
            None => (runtime.unwrap_or(Time::INFINITY), false),
        };
        let kind = description.job_kind().map_err(JobError::Field)?;
        if let Some(alpha) = description
            .alpha()
            .map_err(JobError::Field)?
            .filter(|&alpha| alpha != 1.0)
        {
            return Err(JobError::Alpha {
                job: batsim_id.clone(),
                alpha,
            });
        }
        let slo = description.slo();
        // Labels matter only to a victim order (a run without one ignores them).
        let label = match &self.classes {
            Some(_) => Some(description.label().map_err(JobError::Field)?),
            None => None,
        };
        let id = self.new_engine_id(batsim_id);
        let submit = self.engine_time(at);
        if self.injector.is_none() {
            // Injection starts with the first static submission.
            self.injector = self.inject.as_ref().map(|inject| inject.injector(submit));
        }
        let engine_job = Job {
            id,
            submit,
            walltime,
            walltime_enforced,
            runtime,
            procs,
            kind,
            slo,
        };
        self.by_batsim.insert(batsim_id.clone(), id);
        let entry = Entry::waiting(batsim_id.clone(), job.clone(), workload);
        self.submit_to_engine(engine_job, entry, label.as_ref(), reply)?;
        Ok(())
    }

    /// Queue a job in the engine and track it. A job that can never run here
    /// (more processors than the platform or the area) is rejected instead of
    /// being left queued forever. Under a victim order a cloud job gets its
    /// class and tenant (`label`'s, else drawn), and the running cloud jobs
    /// are ranked first: the submission may bring the plan up to date.
    pub(super) fn submit_to_engine(
        &mut self,
        job: Job,
        mut entry: Entry,
        label: Option<&JobLabel>,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), JobError> {
        let id = job.id;
        if let (Some(classes), JobKind::Cloud) = (&mut self.classes, job.kind) {
            let class = classes
                .classify(job.submit, job.procs, label)
                .map_err(|error| JobError::Label {
                    job: entry.batsim_id.clone(),
                    error: Box::new(error),
                })?;
            entry.class = Some(class);
            self.rank_victims();
        }
        // How long Batsim runs it at most: its `delay` against its walltime,
        // or, for another profile, its walltime when Batsim enforces it.
        entry.run_length = match job.runtime {
            Some(_) => crate::sim::run_length(&job).ok().map(|(length, _)| length),
            None if job.walltime_enforced && !job.walltime.is_infinite() => Some(job.walltime),
            None => None,
        };
        match self.driver.submit(job) {
            Ok(_verdict) => {}
            Err(EngineError::Unschedulable { .. }) => {
                entry.state = Tracked::Done;
                reply.push(Outgoing::RejectJob {
                    job_id: entry.batsim_id.clone(),
                });
            }
            Err(error) => {
                return Err(JobError::Refused {
                    job: entry.batsim_id,
                    error,
                })
            }
        }
        self.entries.insert(id, entry);
        Ok(())
    }
}
