//! The engine's view of its jobs for the shells: states, counts, and the
//! final records handed over as jobs end.

use super::*;

impl State {
    pub(in crate::engine) fn job_state(&self, id: JobId) -> Option<JobState> {
        let idx = *self.index.get(&id)?;
        let e = &self.jobs[idx];
        Some(match e.st {
            St::Pending => JobState::Queued { planned_start: None },
            St::Queued if self.counting() && self.head_res == Some(idx) => JobState::Queued {
                planned_start: self.counted_head_start(),
            },
            St::Queued => JobState::Queued {
                planned_start: e.res.as_ref().map(|r| r.0),
            },
            St::Running => JobState::Running {
                start: self.records[idx].start.unwrap_or(self.now),
                procs: self.records[idx].procs.clone().unwrap_or_default(),
            },
            St::Evicting | St::Ended => JobState::Ended,
            St::Rejected => JobState::Rejected,
        })
    }

    pub(in crate::engine) fn running_cloud_jobs(&self) -> impl Iterator<Item = (JobId, Time)> + '_ {
        self.running_cloud
            .iter()
            .map(|&idx| (self.job(idx).id, self.records[idx].start.unwrap_or(self.now)))
    }

    pub(in crate::engine) fn queued(&self, kind: JobKind) -> usize {
        if self.shared {
            return self
                .hpc_queue
                .iter()
                .filter(|k| self.job(k.2).kind == kind)
                .count();
        }
        match kind {
            JobKind::Hpc => self.hpc_queue.len(),
            JobKind::Cloud => self.cloud_queue.len() + self.backlog_len,
        }
    }

    /// Queued cloud jobs waiting in the backlog (without reservation).
    pub(in crate::engine) fn backlog_len(&self) -> usize {
        self.backlog_len
    }

    /// Give the records away (those not handed over yet), in submission order.
    pub(in crate::engine) fn into_records(self) -> Vec<JobRecord> {
        self.records.into_values().map(|record| *record).collect()
    }

    /// Start keeping the jobs that become final (ended, or rejected once
    /// reported) for [`State::take_finished`].
    pub(in crate::engine) fn set_hand_over(&mut self, on: bool) {
        self.hand_over = on;
    }

    /// Mark `idx` final: it is handed over after the pass that made it so.
    pub(super) fn finished(&mut self, idx: usize) {
        self.count_unrun(idx);
        let record = &self.records[idx];
        if let (Some(start), Some(end), Some(EndReason::Completed | EndReason::WalltimeReached)) =
            (record.start, record.end, record.end_reason)
        {
            let job = &record.job;
            self.learner
                .job_ran(job.kind, job.procs, end - start, job.walltime);
        }
        if let Some(bin) = self.jobs[idx].calibration.take() {
            if !record.rejected {
                self.learner.outcome(bin, record.violated());
            }
        }
        if self.hand_over {
            self.newly_final.push(idx);
        }
    }

    /// Hand over the records of the jobs final as of the last pass, in the
    /// order they became final, and forget those jobs (as the iterator goes;
    /// dropped early, it forgets the rest all the same).
    pub(in crate::engine) fn take_finished(&mut self) -> Finished<'_> {
        Finished { state: self, next: 0 }
    }

    /// The next final job's record, if any is left from `*next` on in
    /// `final_ready`; the job is forgotten.
    fn release_final(&mut self, next: &mut usize) -> Option<Box<JobRecord>> {
        while let Some(&idx) = self.final_ready.get(*next) {
            *next += 1;
            self.jobs.discard(idx);
            if let Some(record) = self.records.release(idx) {
                self.index.remove(&record.job.id);
                return Some(record);
            }
        }
        None
    }

    /// Jobs the engine still holds (queued, running, or final and not handed over).
    pub(in crate::engine) fn held(&self) -> usize {
        self.records.held()
    }

    pub(in crate::engine) fn running(&self, kind: JobKind) -> usize {
        match kind {
            JobKind::Hpc => self.running_hpc.len(),
            JobKind::Cloud => self.running_cloud.len(),
        }
    }
}

/// The records [`State::take_finished`] hands over, moved out one at a time
/// (no list of them is built: a replay passes hundreds of thousands of times).
pub(in crate::engine) struct Finished<'a> {
    state: &'a mut State,
    next: usize,
}

impl Iterator for Finished<'_> {
    type Item = Box<JobRecord>;

    fn next(&mut self) -> Option<Box<JobRecord>> {
        self.state.release_final(&mut self.next)
    }
}

impl Drop for Finished<'_> {
    /// The jobs not taken are forgotten too; `final_ready` keeps its room.
    fn drop(&mut self) {
        while self.next().is_some() {}
        self.state.final_ready.clear();
    }
}
