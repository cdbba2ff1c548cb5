//! [`State::started_on`]: an HPC job the batch system started, held on the
//! processors it runs on.
//!
//! The engine plans HPC work on its own choice of processors. When the batch
//! system says where a job really runs (Slurm's allocated cores, reported
//! by the SPANK plugin), those processors are the truth: cloud work placed
//! there would share CPUs with HPC work, and a cloud job evicted from them
//! would be placed back on them at the next pass. So the job is held on
//! exactly those processors until it ends: cloud work on them is evicted
//! now, HPC and cloud reservations in the way are planned again elsewhere,
//! and a job the engine had started on other processors moves there. A job
//! past its enforced walltime still holding them is gone (the batch system
//! killed it at its limit; its end report was lost): it ends there.

use super::*;
use crate::procset::ProcSet;

impl State {
    /// The batch system started HPC job `id` at `now` on `procs` (see
    /// [`crate::Engine::started_on`]).
    pub(in crate::engine) fn started_on(
        &mut self,
        cfg: &EngineConfig,
        id: JobId,
        procs: &ProcSet,
        now: Time,
    ) -> Result<(), EngineError> {
        let idx = self.lookup(id)?;
        let refuse = |reason: String| {
            Err(EngineError::StartedOn(format!(
                "cannot hold job {id} where the batch system started it: {reason}"
            )))
        };
        let job = self.job(idx);
        if job.kind != JobKind::Hpc {
            return refuse("it is a cloud job: the engine places cloud work itself".into());
        }
        if let Some(max) = procs.max().filter(|&max| max >= self.width) {
            return refuse(format!(
                "processor {max} is not one of the engine's 0..{}",
                self.width
            ));
        }
        if procs.len() != job.procs {
            return refuse(format!(
                "it asks for {} processors and {} were named ({procs})",
                job.procs,
                procs.len()
            ));
        }
        let bits = Bits::from_procset(self.width, procs);
        let running = self.jobs[idx].st == St::Running;
        if running && self.jobs[idx].res.as_ref().is_some_and(|r| r.1 == bits) {
            return Ok(());
        }
        if !running && !matches!(self.jobs[idx].st, St::Pending | St::Queued) {
            return refuse("it is neither queued nor running".into());
        }
        let end = if running {
            // An overdue job (its hold not renewed yet) is held a tick at
            // least; `hold_overdue` goes on from there.
            self.jobs[idx].occ_end.max(now + Time::from_ticks(1))
        } else {
            now + job.walltime
        };
        // Jobs past their enforced walltime on these processors are gone
        // (the batch system killed them; their end report was lost).
        let overdue = self.overdue_on(idx, &bits, now);
        if let Some(reason) = self.held_otherwise(cfg, idx, &bits, &overdue, (now, end)) {
            return refuse(reason);
        }
        self.advance(now)?;
        for gone in overdue {
            let gone = self.job(gone).id;
            self.job_ended(cfg, gone, now, EndReason::WalltimeReached)?;
        }
        self.evict_running_cloud_on(cfg, &bits, idx, now);
        if running {
            self.move_running(idx, now);
            self.jobs[idx].occ_end = end;
        } else {
            if self.jobs[idx].res.is_some() {
                // Its reservation is given back: the jobs behind may move up.
                self.hpc_compress = true;
                self.cloud_compress = true;
            }
            self.unreserve(idx);
            if self.head_res == Some(idx) {
                self.head_res = None;
            }
        }
        self.lift_hpc_reservations(&bits, now, end);
        debug_assert!(bits.is_subset(&self.hpc_free_until(end, Mask::All)));
        self.hpc_occupy(idx, &bits, now, end);
        if running {
            let start = self.jobs[idx].res.as_ref().map_or(now, |r| r.0);
            self.jobs[idx].res = Some((start, bits));
            self.records[idx].procs = Some(procs.clone());
        } else {
            self.jobs[idx].res = Some((now, bits));
            self.start_hpc(idx, now);
        }
        self.hpc_changed = true;
        Ok(())
    }

    /// The running HPC jobs other than `idx` past their enforced walltime
    /// at `now` that hold any of `bits`.
    fn overdue_on(&self, idx: usize, bits: &Bits, now: Time) -> Vec<usize> {
        self.running_hpc
            .sorted()
            .into_iter()
            .filter(|&i| {
                let job = self.job(i);
                i != idx
                    && job.kind == JobKind::Hpc
                    && job.walltime_enforced
                    && self.records[i].start.is_some_and(|s| s + job.walltime <= now)
                    && self.jobs[i].res.as_ref().is_some_and(|r| r.1.and_count(bits) > 0)
            })
            .collect()
    }

    /// Why `bits` cannot hold HPC job `idx` over `[now, end)`: another
    /// running HPC job holds some of them (two reports of one processor),
    /// not one of `overdue` (gone), or a maintenance window does.
    fn held_otherwise(
        &self,
        cfg: &EngineConfig,
        idx: usize,
        bits: &Bits,
        overdue: &[usize],
        (now, end): (Time, Time),
    ) -> Option<String> {
        let overlap = |other: &Bits| bits.and(other).to_procset();
        let holder = self
            .running_hpc
            .iter()
            .filter(|&i| {
                i != idx
                    && self.job(i).kind == JobKind::Hpc
                    && !overdue.contains(&i)
                    && self.jobs[i].res.as_ref().is_some_and(|r| r.1.and_count(bits) > 0)
            })
            .min();
        if let Some(i) = holder {
            let held = self.jobs[i]
                .res
                .as_ref()
                .map(|r| overlap(&r.1))
                .unwrap_or_default();
            return Some(format!(
                "processors {held} are held by running HPC job {} (one processor, one HPC job: report its end first)",
                self.job(i).id
            ));
        }
        cfg.maintenance
            .iter()
            .find(|w| {
                w.start < end
                    && now < w.end()
                    && bits.and_count(&Bits::from_procset(self.width, &w.procs)) > 0
            })
            .map(|w| {
                let held = overlap(&Bits::from_procset(self.width, &w.procs));
                format!(
                    "processors {held} are in a maintenance window ({}..{} s)",
                    w.start,
                    w.end()
                )
            })
    }

    /// Evict now the running cloud jobs holding any of `bits`, for HPC job
    /// `cause`. One whose start the shell has not been told yet (under
    /// shared-queue, started by the HPC phase an admission ran) never ran:
    /// it goes back to its place in the queue instead.
    fn evict_running_cloud_on(&mut self, cfg: &EngineConfig, bits: &Bits, cause: usize, now: Time) {
        let victims: Vec<usize> = self
            .running_cloud
            .iter()
            .copied()
            .filter(|&i| self.jobs[i].res.as_ref().is_some_and(|r| r.1.and_count(bits) > 0))
            .collect();
        for victim in victims {
            if self.pending_starts.contains(&victim) {
                self.pending_starts.retain(|&i| i != victim);
                self.stop_running(victim, now);
                let record = &mut self.records[victim];
                record.start = None;
                record.procs = None;
                self.jobs[victim].res = None;
                self.enqueue_cloud(cfg, victim, None, false);
            } else {
                self.evict(victim, now, Some(cause));
            }
        }
    }

    /// Give back the processors running HPC job `idx` holds from `now` on
    /// (it moves: [`State::started_on`] holds it again where it runs).
    fn move_running(&mut self, idx: usize, now: Time) {
        let Some(old) = self.jobs[idx].res.as_ref().map(|r| r.1.clone()) else {
            return;
        };
        let occ_end = self.jobs[idx].occ_end;
        self.count_change(&old, false);
        if now < occ_end {
            self.hpc_free(&old, now, occ_end);
        }
        self.hpc_compress = true;
        self.cloud_compress = true;
    }
}
