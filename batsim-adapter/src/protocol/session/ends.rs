//! `JOB_COMPLETED` and `JOB_KILLED`: the ends Batsim reports, applied to the
//! engine (a kill's outcome included), and the starts held back until a
//! kill has freed their processors.

use super::{HeldStart, JobError, Running, SessionError, Tracked, CLOCK_ROUNDING};
use crate::protocol::messages::{EventKind, FinalState, JobCompleted, Message, Outgoing};
use interstice_core::{EndReason, EngineError, JobId, JobState, Time};

/// The engine refused an event about Batsim job `batsim_id`.
fn engine_error(batsim_id: &str, error: EngineError) -> JobError {
    JobError::Engine {
        job: batsim_id.to_string(),
        error,
    }
}

impl Running {
    /// A message's ends: its completions in a canonical order (time, then
    /// the order the runs started, as the simulator ends same-time runs),
    /// then its kills.
    pub(super) fn apply_ends(
        &mut self,
        message: &Message,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), SessionError> {
        let mut completions: Vec<(usize, &JobCompleted, Time, u64)> = message
            .events
            .iter()
            .enumerate()
            .filter_map(|(index, event)| match &event.kind {
                EventKind::JobCompleted(completed) => Some((
                    index,
                    completed,
                    Time::from_secs_f64(event.timestamp),
                    self.start_order(&completed.job_id),
                )),
                _ => None,
            })
            .collect();
        completions.sort_by_key(|&(index, _, at, order)| (at, order, index));
        for (index, completed, at, _) in completions {
            self.job_completed(completed, at)
                .map_err(|problem| SessionError::Event {
                    index,
                    event_type: "JOB_COMPLETED",
                    problem,
                })?;
        }
        for (index, event) in message.events.iter().enumerate() {
            if let EventKind::JobKilled { job_ids } = &event.kind {
                let at = Time::from_secs_f64(event.timestamp);
                self.job_killed(job_ids, at, reply)
                    .map_err(|problem| SessionError::Event {
                        index,
                        event_type: "JOB_KILLED",
                        problem,
                    })?;
            }
        }
        Ok(())
    }

    /// When the job's current run started, relative to the others (unknown jobs last).
    pub(super) fn start_order(&self, batsim_id: &str) -> u64 {
        self.by_batsim
            .get(batsim_id)
            .and_then(|id| self.entries.get(id))
            .map_or(u64::MAX, |e| e.start_order)
    }

    fn lookup(&self, batsim_id: &str) -> Result<JobId, JobError> {
        self.by_batsim
            .get(batsim_id)
            .copied()
            .ok_or_else(|| JobError::Unknown(batsim_id.to_string()))
    }

    pub(super) fn job_completed(&mut self, completed: &JobCompleted, at: Time) -> Result<(), JobError> {
        let batsim_id = &completed.job_id;
        let id = self.lookup(batsim_id)?;
        // An end reported just after its expected time happened at that time
        // (SimGrid's clock rounding).
        let expected = self.entries.get(&id).and_then(|e| e.expected_end);
        let at = match expected {
            Some(end) if end <= at && at <= end + CLOCK_ROUNDING => end,
            _ => at,
        };
        if self.killing.contains_key(batsim_id) {
            // The kill's outcome: `COMPLETED_KILLED`, or the job's own end
            // when it ended before the kill reached it (then the eviction
            // was moot). `JOB_KILLED` follows.
            let reason = match completed.state {
                FinalState::Successful | FinalState::Failed => EndReason::Completed,
                FinalState::WalltimeReached => EndReason::WalltimeReached,
                FinalState::Killed | FinalState::Rejected => EndReason::Evicted,
            };
            let at = self.engine_time(at);
            return self.report_kill(batsim_id, at, reason);
        }
        let entry = self.entries.get(&id).expect("entry of a known id");
        if entry.batsim_id != *batsim_id {
            return Err(JobError::Resubmitted {
                job: batsim_id.clone(),
                current: entry.batsim_id.clone(),
            });
        }
        if self.held.iter().any(|h| h.batsim_id == *batsim_id) {
            return Err(JobError::CompletedWhileHeld(batsim_id.clone()));
        }
        let state = entry.state;
        let at = self.engine_time(at);
        let reason = match completed.state {
            FinalState::Successful | FinalState::Failed => EndReason::Completed,
            FinalState::WalltimeReached => EndReason::WalltimeReached,
            FinalState::Killed | FinalState::Rejected => EndReason::Killed,
        };
        match state {
            Tracked::Running => {
                self.driver
                    .job_ended(id, at, reason)
                    .map_err(|error| engine_error(batsim_id, error))?;
            }
            Tracked::Waiting if completed.state == FinalState::Rejected => {
                self.driver
                    .cancel(id, at)
                    .map_err(|error| engine_error(batsim_id, error))?;
            }
            Tracked::Waiting => {
                return Err(JobError::NeverStarted {
                    job: batsim_id.clone(),
                    state: completed.state,
                })
            }
            Tracked::Done => return Err(JobError::AlreadyEnded(batsim_id.clone())),
        }
        let entry = self.entries.get_mut(&id).expect("entry");
        entry.state = Tracked::Done;
        if let Some(end) = entry.expected_end.take() {
            self.expected_ends.remove(&(end, id));
        }
        Ok(())
    }

    /// Tell the engine how a job the adapter asked Batsim to kill ended
    /// (once): evicted, and re-queued if its lifecycle allows, or ended on
    /// its own before the kill.
    pub(super) fn report_kill(
        &mut self,
        batsim_id: &str,
        at: Time,
        reason: EndReason,
    ) -> Result<(), JobError> {
        let Some(kill) = self.killing.get_mut(batsim_id) else {
            return Ok(());
        };
        if std::mem::replace(&mut kill.reported, true) {
            return Ok(());
        }
        let id = kill.id;
        self.driver
            .job_ended(id, at, reason)
            .map_err(|error| engine_error(batsim_id, error))?;
        if matches!(self.driver.engine().job_state(id), Some(JobState::Queued { .. })) {
            let entry = self.entries.get_mut(&id).expect("entry of a killed job");
            entry.state = Tracked::Waiting;
            entry.needs_registration = true;
        }
        Ok(())
    }

    pub(super) fn job_killed(
        &mut self,
        job_ids: &[String],
        at: Time,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), JobError> {
        for batsim_id in job_ids {
            self.lookup(batsim_id)?;
            if !self.killing.contains_key(batsim_id) {
                return Err(JobError::NotKilling(batsim_id.clone()));
            }
            let at = self.engine_time(at);
            self.report_kill(batsim_id, at, EndReason::Evicted)?;
            self.killing.remove(batsim_id);
            for held in &mut self.held {
                held.waiting_for.remove(batsim_id);
            }
        }
        let (ready, still): (Vec<HeldStart>, Vec<HeldStart>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|h| h.waiting_for.is_empty());
        self.held = still;
        for held in ready {
            reply.push(Outgoing::ExecuteJob {
                job_id: held.batsim_id,
                alloc: held.alloc,
            });
        }
        Ok(())
    }
}
