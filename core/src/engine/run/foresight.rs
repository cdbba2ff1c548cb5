//! Which violations a plan could foresee.
//!
//! A cloud job is predicted when it arrives, from the plan of the work known
//! then. HPC work submitted *after* that prediction can still make it miss its
//! SLO, and no plan could have said so: it evicts the job (hpc-first), takes
//! the place planned for it (a displaced reservation, re-planned later), or
//! (shared-queue) starts ahead of it so that it starts later than planned.
//! A resize of the convergence area after the prediction (`area`) that
//! evicts the job or moves its reservation later is such an event too.
//! Such a job is marked ([`JobRecord::hit_by_later_hpc`]); if it violates,
//! the violation is *unforeseeable* and the run scores its predictors over
//! the other, foreseeable, jobs too (`metrics`).
//!
//! Jobs are numbered in submission order, so "submitted after the cloud job's
//! prediction" is "a larger index" (also within one instant: a job submitted
//! at the same time but after the cloud job was not in the plan it was
//! predicted from).
//!
//! [`JobRecord::hit_by_later_hpc`]: crate::metrics::JobRecord::hit_by_later_hpc

use super::State;
use crate::job::JobKind;
use crate::time::Time;

/// What a job's entry remembers for the rule.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Marks {
    /// Running cloud job doomed by planned HPC work: the HPC job that will
    /// evict it when due.
    pub(super) doom_cause: Option<usize>,
    /// Queued cloud job whose reservation HPC work took: that HPC job and
    /// the start the reservation had.
    pub(super) displaced: Option<(usize, Time)>,
    /// Cloud job under shared-queue: the start its plan gave at admission.
    pub(super) planned_start: Option<Time>,
}

/// The HPC starts seen so far, for the shared-queue rule: the largest
/// index of an HPC job started before the current instant, and up to it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct HpcStarts {
    at: Time,
    before: Option<usize>,
    latest: Option<usize>,
}

impl HpcStarts {
    /// HPC job `idx` started at `now` (never before an earlier call's `now`).
    pub(super) fn started(&mut self, idx: usize, now: Time) {
        if now > self.at {
            self.before = self.latest;
            self.at = now;
        }
        self.latest = self.latest.max(Some(idx));
    }

    /// The largest index of an HPC job started strictly before `now`.
    fn latest_before(&self, now: Time) -> Option<usize> {
        if now > self.at {
            self.latest
        } else {
            self.before
        }
    }
}

impl State {
    /// HPC job `cause` evicted or delayed cloud job `victim`: mark the
    /// victim if `cause` was submitted after its prediction. Every caller
    /// passes HPC-layer work as `cause` (an HPC job: cloud jobs are on that
    /// layer only under shared-queue, where nothing clears cloud work), and
    /// it may have ended and been handed over since, so its record is not
    /// read.
    pub(super) fn blame(&mut self, victim: usize, cause: usize) {
        if cause > victim && self.job(victim).kind == JobKind::Cloud {
            self.records[victim].hit_by_later_hpc = true;
        }
    }

    /// Cloud job `idx` was evicted, or re-planned later, by a resize of the
    /// area (`area`): an event after its prediction that no plan could
    /// foresee, marked like HPC work submitted after it.
    pub(super) fn blame_resize(&mut self, idx: usize) {
        self.records[idx].hit_by_later_hpc = true;
    }

    /// Running cloud job `victim` is evicted now for `cause` (`None`: the
    /// HPC job that doomed it, else the HPC jobs running on its processors).
    pub(super) fn blame_eviction(&mut self, victim: usize, cause: Option<usize>) {
        if let Some(cause) = cause.or(self.jobs[victim].marks.doom_cause.take()) {
            return self.blame(victim, cause);
        }
        let Some(bits) = self.jobs[victim].res.as_ref().map(|r| r.1.clone()) else {
            return;
        };
        // Any later HPC job on its processors marks it: one is enough
        // (the earliest submitted, whatever the set's order).
        let later = self
            .running_hpc
            .iter()
            .filter(|&h| {
                h > victim
                    && self.jobs[h]
                        .res
                        .as_ref()
                        .is_some_and(|r| r.1.and_count(&bits) > 0)
            })
            .min();
        if let Some(h) = later {
            self.blame(victim, h);
        }
    }

    /// A displaced cloud job was re-planned: blame the HPC job that took its
    /// place if it now starts later than it would have (or not in sight).
    pub(super) fn blame_displacement(&mut self, idx: usize) {
        let Some((cause, old_start)) = self.jobs[idx].marks.displaced.take() else {
            return;
        };
        let later = self.jobs[idx].res.as_ref().map_or(true, |r| r.0 > old_start);
        if later {
            self.blame(idx, cause);
        }
    }

    /// A cloud job starts at `now` under shared-queue: later than its plan
    /// said, with an HPC job submitted after it started first, it was
    /// overtaken.
    pub(super) fn blame_overtaking(&mut self, idx: usize, now: Time) {
        let Some(planned) = self.jobs[idx].marks.planned_start else {
            return;
        };
        if now > planned {
            if let Some(h) = self.hpc_starts.latest_before(now) {
                self.blame(idx, h);
            }
        }
    }
}
