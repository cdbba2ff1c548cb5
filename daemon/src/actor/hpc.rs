//! The batch system's jobs in the engine, so that cloud work only fills the
//! holes they leave. Reported one event at a time (embedded and plugin
//! backends), they are HPC jobs the engine plans; one reported started on
//! named CPUs (the SPANK plugin) is held on exactly those
//! (`Engine::started_on`), and the cloud jobs there are evicted at once. Read as the batch system's
//! own plan (Slurm), they are mirrored (`Engine::mirror`): the engine plans
//! no HPC job of its own, and events are only counted.

use super::admission::engine_error;
use super::cloud_job::Phase;
use super::command::ApiError;
use super::hpc_mirror::HpcJob;
use super::seconds::secs;
use super::state::Actor;
use crate::backend::{HpcEvent, HpcUpdate, PlanUpdate};
use interstice_api::wire::EventKind;
use interstice_core::{EndReason, Job, JobId, JobKind, JobState, ProcSet, Time};
use std::cmp::Reverse;

impl Actor {
    /// `POST /v1/hpc/events`: logged, then applied; returns the cloud jobs it evicted.
    pub(super) fn pushed_hpc_event(&mut self, event: HpcEvent) -> Result<Vec<u64>, ApiError> {
        let now = self.now();
        let _ = self.store.event(
            secs(now),
            None,
            "hpc_event",
            &format!(
                "{} {} procs={} walltime={}",
                event.kind, event.id, event.procs, event.walltime
            ),
        );
        self.hpc_event(event)
    }

    /// An update from the backend task; a bad event is logged and dropped.
    pub(super) fn hpc_update(&mut self, update: HpcUpdate) {
        match update {
            HpcUpdate::Event(event) => {
                if let Err(err) = self.hpc_event(event) {
                    tracing::warn!("backend event ignored: {}", err.message);
                }
            }
            HpcUpdate::Plan(update) => self.mirror_plan(update),
        }
    }

    /// The engine started HPC job `id`. A simulated cluster's start is an
    /// HPC event of its own (no batch system sends it), counted as one.
    pub(super) fn hpc_started(&mut self, id: JobId, now: Time) {
        if self.hpc.started(id, now) {
            self.metrics
                .hpc_events
                .with_label_values(&[EventKind::Started.as_str()])
                .inc();
        }
    }

    /// End the simulated HPC jobs whose run time is over by `now`.
    pub(super) fn end_simulated_hpc_jobs(&mut self, now: Time) {
        while let Some(Reverse((end, id))) = self.hpc.simulated_ends.peek().copied() {
            if end > now {
                break;
            }
            self.hpc.simulated_ends.pop();
            if let Some(name) = self.hpc.names.get(&id).cloned() {
                self.metrics
                    .hpc_events
                    .with_label_values(&[EventKind::Ended.as_str()])
                    .inc();
                self.forget_hpc(&name, end.max(self.last_now).min(now), EndReason::Completed);
            }
        }
    }

    /// The engine id of HPC job `name`, submitting it if it is new.
    fn submit_hpc(
        &mut self,
        name: &str,
        procs: u32,
        walltime: Time,
        runtime: Option<Time>,
        now: Time,
    ) -> Result<JobId, ApiError> {
        if let Some(known) = self.hpc.jobs.get(name) {
            return Ok(known.engine_id);
        }
        let engine_id = JobId(self.hpc.next_id);
        let job = Job {
            id: engine_id,
            submit: now,
            walltime,
            walltime_enforced: true,
            runtime,
            procs,
            kind: JobKind::Hpc,
            slo: None,
        };
        self.driver.submit(job).map_err(engine_error)?;
        self.hpc.next_id += 1;
        self.hpc
            .jobs
            .insert(name.to_string(), HpcJob { engine_id, runtime });
        self.hpc.names.insert(engine_id, name.to_string());
        self.dirty = true;
        Ok(engine_id)
    }

    /// HPC job `name` left the batch system: it ended (running) or was withdrawn (queued).
    fn forget_hpc(&mut self, name: &str, now: Time, reason: EndReason) {
        let Some(job) = self.hpc.jobs.remove(name) else {
            return;
        };
        self.hpc.names.remove(&job.engine_id);
        match self.driver.engine().job_state(job.engine_id) {
            Some(JobState::Running { .. }) => {
                let _ = self.driver.job_ended(job.engine_id, now, reason);
            }
            Some(JobState::Queued { .. }) => {
                let _ = self.driver.cancel(job.engine_id, now);
            }
            _ => {}
        }
        self.dirty = true;
    }

    /// Apply one HPC event; returns the cloud jobs it evicted.
    fn hpc_event(&mut self, event: HpcEvent) -> Result<Vec<u64>, ApiError> {
        if event.procs == 0 {
            return Err(ApiError::bad_request("procs: must be at least 1"));
        }
        self.metrics
            .hpc_events
            .with_label_values(&[event.kind.as_str()])
            .inc();
        let now = self.event_time(event.time);
        if self.mirrors_plan {
            // The batch system's plan has this job already (or will at its
            // next read), on the cluster's processors: counted only.
            return Ok(Vec::new());
        }
        self.plan_updated(now);
        let mut evicted = Vec::new();
        match event.kind {
            EventKind::Submitted => {
                self.submit_hpc(&event.id, event.procs, event.walltime, event.runtime, now)?;
            }
            EventKind::Started => match &event.cpus {
                None => {
                    self.submit_hpc(&event.id, event.procs, event.walltime, event.runtime, now)?;
                }
                Some(cpus) => evicted.extend(self.started_on(&event, cpus, now)?),
            },
            EventKind::Ended => self.forget_hpc(&event.id, now, EndReason::Completed),
            EventKind::Killed => self.forget_hpc(&event.id, now, EndReason::Killed),
        }
        evicted.extend(self.schedule_now(now));
        Ok(evicted)
    }

    /// HPC job `event.id` started on the node CPUs `cpus`: held on the
    /// engine's processors on those CPUs (`Engine::started_on`), so that the
    /// engine evicts the cloud work there (the pass that follows) and places
    /// none there until it ends. A job on none of this daemon's CPUs is
    /// only counted. Where the engine cannot hold it there (another HPC job
    /// within its walltime holds one of them: Slurm's `OverSubscribe`; a
    /// maintenance window; a count the engine knew otherwise), the job
    /// stays where the engine plans it, the cloud jobs on those CPUs are
    /// evicted all the same, and the daemon logs why: the HPC job is
    /// counted, and nothing runs beside it now.
    fn started_on(&mut self, event: &HpcEvent, cpus: &ProcSet, now: Time) -> Result<Vec<u64>, ApiError> {
        let on = self.executor.procs_on(cpus, self.driver.engine().config().procs);
        let known = self.hpc.jobs.contains_key(&event.id);
        if on.is_empty() && !known {
            return Ok(Vec::new());
        }
        let procs = if on.is_empty() { event.procs } else { on.len() };
        let id = self.submit_hpc(&event.id, procs, event.walltime, event.runtime, now)?;
        match self.driver.started_on(id, &on, now) {
            Ok(()) => Ok(Vec::new()),
            Err(err) => {
                tracing::warn!(job = %event.id, %cpus, "HPC job held where the engine plans it: {err}");
                Ok(self.evict_holding(&on, now))
            }
        }
    }

    /// Evict every cloud job holding one of the engine's processors `procs`
    /// (an HPC job the engine could not hold there takes them now).
    fn evict_holding(&mut self, procs: &ProcSet, now: Time) -> Vec<u64> {
        let holding: Vec<u64> = self
            .jobs
            .iter()
            .filter(|(_, job)| !matches!(job.phase, Phase::Queued))
            .filter(|(_, job)| {
                job.engine_procs
                    .as_ref()
                    .is_some_and(|held| held.intersects(procs))
            })
            .map(|(id, _)| *id)
            .collect();
        holding.into_iter().filter(|id| self.evict(*id, now)).collect()
    }

    /// The batch system's plan becomes the engine's HPC layer: the holds
    /// whose jobs it lists with a place are released first (the job's own
    /// place stands for it now), its unplanned jobs still held are left out
    /// (the hold stands for them), and local cloud work is fitted around it.
    fn mirror_plan(&mut self, update: PlanUpdate) {
        let now = self.event_time(update.time);
        self.release_holds(&update.settled_holds, now);
        let mut plan = update.plan;
        // The first job naming a hold still standing for its size is the
        // hold's own; the hold stands for it.
        let mut standing_for = std::collections::HashSet::new();
        let holds = &self.holds;
        let mut carried = update.unplanned_holds.into_iter();
        plan.unplanned.retain(|_| {
            !carried
                .next()
                .flatten()
                .is_some_and(|(hold, procs)| holds.holds_for(hold, procs) && standing_for.insert(hold))
        });
        match self.driver.mirror(now, &plan) {
            Ok(outcome) => {
                // Fresh only once mirrored: a plan the engine refused leaves
                // the daemon's plan to age (and the daemon not ready).
                self.plan_updated(now);
                if outcome.overlapping > 0 {
                    tracing::debug!(
                        overlapping = outcome.overlapping,
                        "the batch system's plan double-books processors (jobs inside reservations, or CPUs \
                         shared out unevenly over a job's nodes)"
                    );
                }
            }
            Err(err) => tracing::warn!("the batch system's plan is not mirrored: {err}"),
        }
        self.dirty = true;
        self.schedule_now(now);
    }
}
