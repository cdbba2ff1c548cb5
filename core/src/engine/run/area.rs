//! A convergence area resized while the engine runs (the thesis's §4.1: the
//! area is static *or dynamic*): a site grows it at night and shrinks it
//! before a big reservation. The one home of what a resize does.
//!
//! The area is always processors `0..conv_procs`. At a resize, at `now`:
//!
//! 1. HPC work is not touched: its layer, reservations and starts are the
//!    same at any area (under hpc-first HPC work never sees cloud work; only
//!    which processors a later HPC start prefers follows the area).
//! 2. Shrinking: every running cloud job holding a processor that leaves the
//!    area is evicted now, in submission order, through the usual eviction
//!    (the shell kills it and acknowledges; the lifecycle re-queues it).
//!    Then every queued cloud job whose reservation holds such a processor
//!    is re-planned inside the new area, in queue order, after the
//!    reservations that stay. A queued job wider than the new area keeps
//!    waiting, without a reservation, until the area grows back: an
//!    admitted job is never dropped. Each of those jobs that starts later
//!    than planned (or was evicted) is marked as hit by an event after its
//!    prediction (`foresight`).
//! 3. Growing: the new processors are free for cloud work at once; the next
//!    pass compresses the cloud reservations into them.
//!
//! A cloud job submitted while the area is narrower than it has been, and
//! wider than the area now, is predicted never to start (refused under
//! reject-predicted; under admit-all it waits for the area to grow back).
//! Only a job wider than the widest the area has been is unschedulable.
//!
//! Under shared-queue nothing is evicted, so a shrink could not clear the
//! processors leaving the area: a resize is refused there.

use super::{Mask, St, State};
use crate::bits::Bits;
use crate::engine::{AreaResize, EngineConfig, EngineError, Scheduling};
use crate::time::Time;

impl State {
    /// The area now: processors `0..area_procs()`.
    pub(in crate::engine) fn area_procs(&self) -> u32 {
        self.area.count()
    }

    /// Apply the scheduled resizes due at `now` ([`EngineConfig::area_schedule`];
    /// the config was checked, so they cannot fail).
    pub(super) fn apply_area_changes(&mut self, cfg: &EngineConfig, now: Time) {
        while let Some(&change) = cfg.area_schedule.get(self.next_area_change) {
            if change.at > now {
                break;
            }
            self.next_area_change += 1;
            // Checked by `EngineConfig::validate`: hpc-first, at most `procs`.
            self.resize_to(cfg, change.procs.min(self.width), now);
        }
    }

    /// Make `0..conv_procs` the convergence area at `now` (see the module
    /// docs). Errors change nothing.
    pub(in crate::engine) fn resize_area(
        &mut self,
        cfg: &EngineConfig,
        conv_procs: u32,
        now: Time,
    ) -> Result<AreaResize, EngineError> {
        if cfg.scheduling == Scheduling::SharedQueue {
            return Err(EngineError::Resize(
                "the area cannot be resized under shared-queue: nothing is evicted there, so a shrink \
                 could not clear the processors leaving the area; use hpc-first"
                    .into(),
            ));
        }
        if conv_procs > self.width {
            return Err(EngineError::Resize(format!(
                "{conv_procs} processors asked for the area, the platform has {}: give at most {}",
                self.width, self.width
            )));
        }
        self.advance(now)?;
        Ok(self.resize_to(cfg, conv_procs, now))
    }

    /// [`State::resize_area`] once checked (a scheduled change: inside a
    /// pass, so the pass stays the last event).
    fn resize_to(&mut self, cfg: &EngineConfig, conv_procs: u32, now: Time) -> AreaResize {
        self.materialize(cfg);
        let from = self.area.count();
        self.widest_area = self.widest_area.max(conv_procs);
        let area = Bits::range(self.width, 0, conv_procs);
        let leaving = self.area.andnot(&area);
        self.area = area.clone();
        self.area_count = self.area.count();
        self.hpc.set_area(area.clone());
        if let Some(all) = self.cloud_layer.as_mut() {
            all.set_area(area);
        }
        let mut resize = AreaResize {
            from,
            to: conv_procs,
            ..AreaResize::default()
        };
        if leaving.count() > 0 {
            resize.evicted = self.evict_leaving(&leaving, now);
            resize.replanned = self.replan_leaving(cfg, &leaving, now);
        }
        resize.waiting = self
            .cloud_queue
            .iter()
            .map(|k| k.2)
            .chain(
                self.backlog
                    .iter()
                    .copied()
                    .filter(|&i| self.jobs.get(i).is_some_and(|e| e.in_backlog)),
            )
            .filter(|&i| self.job(i).procs > conv_procs)
            .map(|i| self.job(i).id)
            .collect();
        // The freed or new processors: the cloud reservations move up.
        self.cloud_compress = true;
        self.promote(cfg);
        resize
    }

    /// Evict, in submission order, the running cloud jobs on `leaving`.
    fn evict_leaving(&mut self, leaving: &Bits, now: Time) -> Vec<crate::job::JobId> {
        let on_leaving: Vec<usize> = self
            .running_cloud
            .iter()
            .copied()
            .filter(|&i| {
                self.jobs[i]
                    .res
                    .as_ref()
                    .is_some_and(|r| r.1.and_count(leaving) > 0)
            })
            .collect();
        let mut evicted = Vec::with_capacity(on_leaving.len());
        for idx in on_leaving {
            self.blame_resize(idx);
            self.evict(idx, now, None);
            if self.jobs[idx].st == St::Evicting {
                evicted.push(self.job(idx).id);
            }
        }
        evicted
    }

    /// Re-plan, in queue order, the queued cloud jobs reserved on `leaving`.
    fn replan_leaving(&mut self, cfg: &EngineConfig, leaving: &Bits, now: Time) -> Vec<crate::job::JobId> {
        let moved: Vec<(usize, Time)> = self
            .cloud_queue
            .iter()
            .map(|k| k.2)
            .filter_map(|i| {
                let (start, bits) = self.jobs[i].res.as_ref()?;
                (bits.and_count(leaving) > 0).then_some((i, *start))
            })
            .collect();
        for &(idx, _) in &moved {
            self.unreserve(idx);
        }
        let mut replanned = Vec::with_capacity(moved.len());
        for (idx, old_start) in moved {
            let job = self.job(idx);
            let fit = self.all().earliest_fit(job.procs, job.walltime, now, Mask::Area);
            self.place_cloud(cfg, idx, fit);
            if self.jobs[idx].res.as_ref().map_or(true, |r| r.0 > old_start) {
                self.blame_resize(idx);
            }
            replanned.push(self.job(idx).id);
        }
        replanned
    }
}
