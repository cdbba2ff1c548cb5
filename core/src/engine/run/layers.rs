//! The plan's mechanics shared by every policy: HPC work occupying and
//! freeing processors on both layers (cloud work in the way gives way, a
//! doomed cloud job gets its run back when the processors stay free), the
//! `all` layer and its copy on first use, and reservations lifted.

use super::*;

impl State {
    /// Occupy `bits` over `[s, e)` with job `cause`'s HPC-layer work (both
    /// layers); cloud work in the way gives way (see the module docs).
    pub(super) fn hpc_occupy(&mut self, cause: usize, bits: &Bits, s: Time, e: Time) {
        if self.counting() {
            debug_assert!(s <= self.now, "a counted HPC layer holds running jobs only");
            self.count_change(bits, true);
            return;
        }
        self.hpc.reserve(bits, s, e);
        let Some(all) = self.cloud_layer.as_ref() else {
            return;
        };
        if !all.is_free(bits, s, e) {
            self.clear_cloud(bits, s, e, cause);
        }
        self.cloud_mut().reserve(bits, s, e);
    }

    /// The `all` layer: HPC work and cloud work.
    pub(super) fn all(&self) -> &Profile {
        match &self.cloud_layer {
            Some(all) => all,
            None => self.hpc_plan(),
        }
    }

    /// The `all` layer, to place or remove cloud work: a copy of `hpc` is
    /// made the first time (until then the two are equal).
    pub(super) fn cloud_mut(&mut self) -> &mut Profile {
        debug_assert!(!self.counting(), "cloud work materialises the HPC layer first");
        self.cloud_layer.get_or_insert_with(|| self.hpc.clone())
    }

    /// Drop both layers' history before `now` (a counted HPC layer keeps
    /// no profile: [`State::materialize`] builds it from now).
    pub(super) fn prune_plan(&mut self, now: Time) {
        if !self.counting() {
            self.hpc.prune(now);
        }
        if let Some(all) = self.cloud_layer.as_mut() {
            all.prune(now);
        }
    }

    /// The jobs of `queue` whose reservation overlaps `bits` over `[s, e)`.
    pub(super) fn reserved_in<'q>(
        &self,
        queue: impl Iterator<Item = &'q QKey>,
        bits: &Bits,
        s: Time,
        e: Time,
    ) -> Vec<usize> {
        queue
            .map(|k| k.2)
            .filter(|&i| {
                self.jobs[i].res.as_ref().is_some_and(|(rs, rb)| {
                    *rs < e && s < *rs + self.job(i).walltime && rb.and_count(bits) > 0
                })
            })
            .collect()
    }

    /// Free HPC work's `bits` over `[s, e)` (both layers); running cloud jobs
    /// scheduled for eviction get their full run back if it is free again.
    /// An overdue job (its hold cut short by that HPC work) keeps its hold up
    /// to the eviction time it had and is held again from there by
    /// [`State::hold_overdue`].
    pub(super) fn hpc_free(&mut self, bits: &Bits, s: Time, e: Time) {
        if self.counting() {
            // `stop_running` gave them back already.
            return;
        }
        self.hpc.release(bits, s, e);
        if let Some(all) = self.cloud_layer.as_mut() {
            all.release(bits, s, e);
        }
        if self.dooms.is_empty() {
            return;
        }
        let doomed: Vec<(Time, usize)> = self.dooms.iter().copied().collect();
        for (t, i) in doomed {
            let Some(b) = self.jobs[i].res.as_ref().map(|r| r.1.clone()) else {
                continue;
            };
            let full_end = (self.records[i].start.unwrap_or(t) + self.job(i).walltime).max(t);
            if full_end == t || self.all().is_free(&b, t, full_end) {
                if full_end > t {
                    self.cloud_mut().reserve(&b, t, full_end);
                }
                self.dooms.remove(&(t, i));
                let entry = &mut self.jobs[i];
                entry.occ_end = full_end;
                entry.evict_at = Time::INFINITY;
                entry.marks.doom_cause = None;
            }
        }
    }

    /// Lift the HPC-layer reservations of queued jobs that hold any of
    /// `bits` over `[s, e)`: HPC work takes those processors, and the
    /// jobs are planned again, in queue order, at the next HPC phase.
    pub(super) fn lift_hpc_reservations(&mut self, bits: &Bits, s: Time, e: Time) {
        for i in self.reserved_in(self.hpc_queue.iter(), bits, s, e) {
            self.unreserve(i);
            if self.head_res == Some(i) {
                self.head_res = None;
            }
            self.jobs[i].st = St::Pending;
            self.new_hpc.push(i);
        }
        self.hpc_changed = true;
    }

    /// Drop a queued job's reservation (if any) from the plan.
    pub(super) fn unreserve(&mut self, idx: usize) {
        if let Some((s, _)) = self.jobs[idx].res {
            self.unreserve_bits(idx, s);
        }
    }

    /// Take queued job `idx`'s reservation off the plan to re-plan it (a
    /// compression), telling `bounds` where it started: the job's processors,
    /// its walltime and the reservation it had.
    pub(super) fn lift_for_replan(
        &mut self,
        idx: usize,
        bounds: &mut CompressionBounds,
    ) -> (u32, Time, Option<(Time, Bits)>) {
        let job = self.job(idx);
        let (k, wt) = (job.procs, job.walltime);
        let prev = self.jobs[idx].res.clone();
        if let Some((s, _)) = prev {
            bounds.released(s);
        }
        self.unreserve(idx);
        (k, wt, prev)
    }

    /// Queued job `idx`, re-planned now by a compression on `plan` within
    /// `mask`, would be reserved again exactly where it is (its start,
    /// returned, and its processors), so it need not be lifted. Asked of
    /// the plan as it is ([`Profile::fits_before`]): once its reservation is
    /// lifted no start before the current one fits (`bounds` skips what
    /// earlier placements rule out), so its earliest fit is that start,
    /// where its own processors are free and are kept (they are within
    /// `mask`: after an area shrank they may not be, and then it is lifted).
    pub(super) fn stays_put(
        &self,
        plan: &Profile,
        idx: usize,
        mask: Mask,
        now: Time,
        bounds: &CompressionBounds,
    ) -> Option<Time> {
        let (start, bits) = self.jobs[idx].res.as_ref()?;
        if !bits.is_subset(self.mask_bits(mask)) {
            return None;
        }
        let job = self.job(idx);
        let (k, wt) = (job.procs, job.walltime);
        let from = bounds.scan_from_releasing(now, k, wt, mask, *start);
        (*start >= from && !plan.fits_before(k, wt, from, mask, (bits, *start))).then_some(*start)
    }

    pub(super) fn unreserve_bits(&mut self, idx: usize, s: Time) {
        let Some((_, bits)) = self.jobs[idx].res.take() else {
            return;
        };
        let e = s + self.job(idx).walltime;
        if self.on_hpc_layer(idx) {
            self.hpc_timers.remove(&(s, idx));
            self.hpc_free(&bits, s, e);
        } else {
            self.cloud_timers.remove(&(s, idx));
            self.cloud_mut().release(&bits, s, e);
        }
    }
}
