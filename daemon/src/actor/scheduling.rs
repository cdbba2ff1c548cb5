//! A pass of the engine and carrying out its decisions: the running cloud
//! jobs ranked by `engine.eviction`'s victim order, the pass, and each
//! decision (evict, start, reject) handed to the part that acts on it.

use super::state::Actor;
use interstice_core::qos::policy::RunningCloud;
use interstice_core::{Decision, JobId, Time};

impl Actor {
    /// Schedule at `now` and carry out the decisions; returns evicted cloud jobs.
    pub(super) fn schedule_now(&mut self, now: Time) -> Vec<u64> {
        self.last_schedule = now;
        self.dirty = false;
        let decisions = self.pass(now);
        self.apply(decisions, now, None)
    }

    /// One pass at `now`. A livelock (too many passes at one instant, e.g.
    /// while the clock stands still) is logged and decides nothing; the
    /// next tick passes again.
    pub(super) fn pass(&mut self, now: Time) -> Vec<Decision> {
        self.rank_victims(now);
        let decisions = self.driver.pass(now);
        // Final jobs as of this pass: the engine forgets them (see `start`).
        let finished: Vec<_> = self.driver.take_finished().collect();
        for record in finished {
            self.count_in_class(&record, now);
        }
        match decisions {
            Ok(decisions) => decisions,
            Err(livelock) => {
                tracing::error!("{livelock}");
                self.dirty = true;
                Vec::new()
            }
        }
    }

    /// Rank the running cloud jobs by `engine.eviction`'s victim order at
    /// `now` (nothing without it): before every pass, and before a cloud
    /// job's submission brings the plan up to date. A job whose class the
    /// config no longer has stays unranked (it gives way first).
    pub(super) fn rank_victims(&mut self, now: Time) {
        let Some(cfg) = &self.victims else {
            return;
        };
        let (jobs, classes) = (&self.jobs, &self.job_classes);
        // Admission order is the id's (the daemon numbers jobs as it admits
        // them); the Slurm backend alone knows tenants (`backend.tenants`).
        self.driver.rank_running_cloud(cfg, now, |JobId(id)| {
            let job = jobs.get(&id)?;
            Some(RunningCloud {
                order: id,
                submitted: job.submitted,
                procs: job.procs,
                class: *classes.get(&id)?,
                tenant: 0,
            })
        });
    }

    /// Carry out the engine's decisions; returns the cloud jobs evicted.
    /// `answered` is the job whose rejection the caller is answering itself.
    pub(super) fn apply(&mut self, decisions: Vec<Decision>, now: Time, answered: Option<u64>) -> Vec<u64> {
        let mut evicted = Vec::new();
        for decision in decisions {
            match decision {
                Decision::Evict { id } if self.holds.holds(id.0) => {
                    self.hold_evicted(id.0, now);
                }
                Decision::Evict { id } => {
                    if self.evict(id.0, now) {
                        evicted.push(id.0);
                    }
                }
                Decision::Start { id, procs } => {
                    if self.hpc.knows(id) {
                        self.hpc_started(id, now);
                    } else if self.jobs.contains_key(&id.0) {
                        self.start_cloud(id.0, procs, now);
                    }
                }
                Decision::Reject {
                    id,
                    counter_offer_slo,
                } => {
                    if Some(id.0) != answered && self.jobs.contains_key(&id.0) {
                        let detail = format!(
                            "rejected on resubmission (counter-offer {})",
                            counter_offer_slo.map_or("none".to_string(), |slo| slo.to_string())
                        );
                        self.finish(id.0, now, "failed", None, false, &detail);
                    }
                }
            }
        }
        evicted
    }
}
