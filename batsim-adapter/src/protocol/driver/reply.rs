//! The tiny Batsim's reply phase: one exchange with the scheduler, then
//! checking its reply (times, job states, allocations) and carrying out each
//! of its events.

use super::{DriverError, EventError, Execution, JobState, ReplyError, Sim, SimJob};
use crate::protocol::messages::{
    encode_message, parse_reply, Event, EventKind, JobSubmitted, Message, Outgoing, Reply,
};
use interstice_core::{ProcSet, Time};
use interstice_swf::JobDescription;
use serde_json::json;
use std::cmp::Reverse;
use std::collections::HashMap;

impl Sim<'_> {
    pub(super) fn bad_reply(&self, problem: ReplyError, reply: &str) -> DriverError {
        DriverError::BadReply {
            seq: self.report.messages.saturating_sub(1),
            now: self.now.as_secs_f64(),
            problem,
            excerpt: reply.chars().take(160).collect(),
        }
    }

    /// Send one message, wait for the reply and apply it; returns its number of events.
    pub(super) fn exchange(
        &mut self,
        socket: &zmq::Socket,
        events: Vec<Event>,
    ) -> Result<usize, DriverError> {
        let message = encode_message(&Message {
            now: self.now.as_secs_f64(),
            events,
        });
        socket
            .send(message.as_bytes(), 0)
            .map_err(|error| DriverError::Zmq {
                action: "sending a message",
                error,
            })?;
        self.report.messages += 1;
        let reply = match socket.recv_bytes(0) {
            Ok(bytes) => bytes,
            Err(zmq::Error::EAGAIN) => {
                return Err(DriverError::Timeout {
                    seq: self.report.messages - 1,
                    seconds: self.config.timeout.as_secs_f64(),
                })
            }
            Err(error) => {
                return Err(DriverError::Zmq {
                    action: "receiving a reply",
                    error,
                })
            }
        };
        let text = String::from_utf8_lossy(&reply).into_owned();
        let parsed = parse_reply(&reply).map_err(|e| self.bad_reply(ReplyError::Malformed(e), &text))?;
        let count = self
            .apply_reply(&parsed)
            .map_err(|problem| self.bad_reply(problem, &text))?;
        if self.record_replies {
            if let Ok(value) = serde_json::from_slice(&reply) {
                self.report.replies.push(value);
            }
        }
        Ok(count)
    }

    fn apply_reply(&mut self, reply: &Reply) -> Result<usize, ReplyError> {
        let reply_now = Time::from_secs_f64(reply.now);
        if reply_now < self.now {
            return Err(ReplyError::NowInPast {
                now: reply.now,
                batsim_now: self.now,
            });
        }
        self.now = reply_now;
        let mut last = Time::ZERO;
        for (idx, (timestamp, event)) in reply.events.iter().enumerate() {
            let at = Time::from_secs_f64(*timestamp);
            if at > reply_now {
                return Err(ReplyError::AfterNow {
                    index: idx,
                    at,
                    now: reply_now,
                });
            }
            if at < last {
                return Err(ReplyError::NotAscending(idx));
            }
            last = at;
            self.apply_event(event).map_err(|problem| ReplyError::Event {
                index: idx,
                event_type: event.type_name(),
                problem: Box::new(problem),
            })?;
        }
        Ok(reply.events.len())
    }

    /// The job `id`, which must be submitted and waiting.
    fn waiting_job<'j>(
        jobs: &'j mut HashMap<String, SimJob>,
        id: &str,
    ) -> Result<&'j mut SimJob, EventError> {
        let job = jobs
            .get_mut(id)
            .ok_or_else(|| EventError::UnknownJob(id.to_string()))?;
        if job.state != JobState::Submitted {
            return Err(EventError::NotWaiting {
                job: id.to_string(),
                state: job.state.clone(),
            });
        }
        Ok(job)
    }

    /// Carry out one event of the scheduler's reply, by kind.
    fn apply_event(&mut self, event: &Outgoing) -> Result<(), EventError> {
        match event {
            Outgoing::ExecuteJob { job_id, alloc } => self.execute_job(job_id, alloc),
            Outgoing::RejectJob { job_id } => {
                let job = Self::waiting_job(&mut self.jobs, job_id)?;
                job.state = JobState::Rejected;
                self.report.rejected.push(job_id.clone());
                Ok(())
            }
            Outgoing::KillJob { job_ids } => self.kill_jobs(job_ids),
            Outgoing::CallMeLater { at } => {
                let at = Time::from_secs_f64(*at);
                if at < self.now {
                    return Err(EventError::CallInPast(at));
                }
                self.calls.insert(at);
                Ok(())
            }
            Outgoing::RegisterProfile {
                workload_name,
                profile_name,
                profile,
            } => {
                if !self.config.dynamic_jobs {
                    return Err(EventError::DynamicJobsDisabled);
                }
                self.profiles
                    .entry(workload_name.clone())
                    .or_default()
                    .insert(profile_name.clone(), profile.clone());
                Ok(())
            }
            Outgoing::RegisterJob { job_id, job } => self.register_job(job_id, job),
            Outgoing::Notify { notify_type } => {
                match notify_type.as_str() {
                    "registration_finished" => self.registration_finished = true,
                    "continue_registration" => self.registration_finished = false,
                    other => return Err(EventError::UnknownNotification(other.to_string())),
                }
                Ok(())
            }
        }
    }

    /// `EXECUTE_JOB`: a waiting job starts now on `alloc` (exactly its `res`
    /// resources, all of them free), its end booked by its profile.
    fn execute_job(&mut self, job_id: &str, alloc: &str) -> Result<(), EventError> {
        let now = self.now;
        let id = job_id.to_string();
        let alloc_text = alloc;
        let alloc: ProcSet = alloc_text.parse().map_err(|error| EventError::Alloc {
            alloc: alloc_text.to_string(),
            error,
        })?;
        let job = Self::waiting_job(&mut self.jobs, &id)?;
        if alloc.len() != job.res {
            return Err(EventError::AllocSize {
                job: id,
                res: job.res,
                alloc: alloc_text.to_string(),
                size: alloc.len(),
            });
        }
        for p in alloc.iter() {
            match self.busy.get(p as usize) {
                None => {
                    return Err(EventError::NoSuchResource {
                        resource: p,
                        nb_res: self.nb_res,
                    })
                }
                Some(Some(other)) => {
                    return Err(EventError::DoubleBooking {
                        resource: p,
                        job: other.clone(),
                    })
                }
                Some(None) => {}
            }
        }
        for p in alloc.iter() {
            self.busy[p as usize] = Some(id.clone());
        }
        let (duration, state) = job.kind.outcome(job.runtime, job.walltime);
        let end = now + duration;
        job.state = JobState::Running {
            start: now,
            end,
            alloc,
            state,
        };
        self.ends.push(Reverse((end, id)));
        Ok(())
    }

    /// `KILL_JOB`: each running job ends now `COMPLETED_KILLED` (its
    /// resources freed after this reply), one already done is left alone;
    /// Batsim's `JOB_KILLED` for all of them is queued for the next message.
    fn kill_jobs(&mut self, job_ids: &[String]) -> Result<(), EventError> {
        let now = self.now;
        let mut killed = Vec::new();
        for id in job_ids {
            let id = id.clone();
            let job = self
                .jobs
                .get_mut(&id)
                .ok_or_else(|| EventError::UnknownJob(id.clone()))?;
            match std::mem::replace(&mut job.state, JobState::Done) {
                JobState::Running { start, alloc, .. } => {
                    self.to_free.push(alloc.clone());
                    self.report.executions.push(Execution {
                        job_id: id.clone(),
                        submit: job.submit,
                        start,
                        end: now,
                        alloc,
                        res: job.res,
                        state: "COMPLETED_KILLED",
                    });
                }
                JobState::Done => {}
                other => {
                    return Err(EventError::NotRunning {
                        job: id,
                        state: other,
                    })
                }
            }
            killed.push(id);
        }
        self.immediate.push(Event {
            timestamp: now.as_secs_f64(),
            kind: EventKind::JobKilled { job_ids: killed },
        });
        Ok(())
    }

    /// `REGISTER_JOB` (dynamic jobs, before `registration_finished`): a new
    /// job of an existing profile, submitted now; acknowledged with a
    /// `JOB_SUBMITTED` when Batsim would.
    fn register_job(&mut self, job_id: &str, job: &serde_json::Value) -> Result<(), EventError> {
        let now = self.now;
        if !self.config.dynamic_jobs {
            return Err(EventError::DynamicJobsDisabled);
        }
        if self.registration_finished {
            return Err(EventError::RegistrationFinished);
        }
        let id = job_id.to_string();
        let (workload, _) = id
            .split_once('!')
            .ok_or_else(|| EventError::NotWorkloadName(id.clone()))?;
        if self.jobs.contains_key(&id) {
            return Err(EventError::IdUsed(id));
        }
        let job = job.as_object().ok_or(EventError::NoJobObject)?;
        let parsed = JobDescription::from_object(job).map_err(EventError::JobField)?;
        let res = parsed
            .procs()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or(EventError::Res(parsed.res))?;
        let (runtime, kind) = self
            .runtime(workload, &parsed.profile)
            .map_err(EventError::Profile)?;
        let walltime = parsed.walltime_secs().map(Time::from_secs_f64);
        let mut description = job.clone();
        description.insert("subtime".into(), json!(now.as_secs_f64()));
        if self.config.acknowledge_dynamic_jobs {
            self.immediate.push(Event {
                timestamp: now.as_secs_f64(),
                kind: EventKind::JobSubmitted(JobSubmitted {
                    job_id: id.clone(),
                    job: description.clone(),
                }),
            });
        }
        self.jobs.insert(
            id.clone(),
            SimJob {
                submit: now,
                walltime,
                res,
                runtime,
                kind,
                description,
                state: JobState::Submitted,
            },
        );
        self.report.registered.push(id);
        Ok(())
    }
}
