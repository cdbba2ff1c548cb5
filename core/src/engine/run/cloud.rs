//! The cloud layer under hpc-first: the reservation window and its FIFO
//! backlog (with the backlog's fluid tail estimate), placing, starting and
//! compressing cloud reservations, and clearing them where HPC work lands.

use super::*;

impl State {
    /// True when a new cloud job must wait in the backlog.
    pub(super) fn window_full(&self) -> bool {
        self.backlog_len > 0 || self.cloud_queue.len() >= self.cloud_window
    }

    /// Work of a job in processor-ticks.
    pub(super) fn work_of(&self, idx: usize) -> i128 {
        let j = self.job(idx);
        j.procs as i128 * j.walltime.ticks() as i128
    }

    /// The predicted start of a cloud job of `procs` processors joining the
    /// tail of the backlog now (see the crate docs, "Overload").
    ///
    /// A fluid estimate on the plan: the backlog's work `B` ahead of the job
    /// (processor × time) is poured into the area's free capacity from the
    /// window's last reserved start on (`all` layer: HPC work and the
    /// window's cloud reservations); the job starts when `B` is served and at
    /// least `procs` processors are free. Cost `O(log S + min(S', M))` for the
    /// `S'` breakpoints after the window, at most [`TAIL_SCAN`] of them
    /// (beyond, the whole area is assumed to serve the rest), independent of
    /// the backlog's length.
    pub(super) fn tail_estimate(&self, procs: u32) -> Option<Time> {
        let from = self
            .cloud_timers
            .last()
            .map_or(self.now, |&(t, _)| t)
            .max(self.now);
        let need = self.backlog_work;
        let area = self.area.count().max(1);
        let mut served: i128 = 0;
        let mut segs = self.all().area_counts_from(from).take(TAIL_SCAN).peekable();
        let mut at = from;
        while let Some((a, free)) = segs.next() {
            let Some(&(b, _)) = segs.peek() else {
                at = a;
                break;
            };
            let len = (b - a).ticks() as i128;
            if free >= procs {
                if served >= need {
                    return Some(a);
                }
                let cap = free as i128 * len;
                if served + cap >= need {
                    return Some(a + ticks_ceil(need - served, free as i128));
                }
            }
            served += free as i128 * len;
            at = b;
        }
        // The last segment (everything ends) or the scan limit: the whole area.
        Some(at.saturating_add(ticks_ceil((need - served).max(0), area as i128)))
    }

    /// Queue a cloud job: in the window at its earliest fit `fit`, or at the
    /// tail of the backlog when the window is full (or the backlog non-empty).
    /// Under `shared-queue`, the job joins the one queue instead, planned by
    /// the policy at the next HPC phase like an HPC job.
    pub(super) fn enqueue_cloud(
        &mut self,
        cfg: &EngineConfig,
        idx: usize,
        fit: Option<(Time, Bits)>,
        backlog: bool,
    ) {
        if self.shared {
            self.jobs[idx].st = St::Pending;
            let k = self.qkey(idx);
            let shape = queue::Shape::of(self.job(idx));
            self.hpc_queue.insert(k, shape);
            self.new_hpc.push(idx);
            self.hpc_changed = true;
            return;
        }
        self.jobs[idx].st = St::Queued;
        if backlog {
            self.jobs[idx].in_backlog = true;
            self.backlog.push_back(idx);
            self.backlog_len += 1;
            self.backlog_work += self.work_of(idx);
        } else {
            let k = self.qkey(idx);
            self.cloud_queue.insert(k);
            self.place_cloud(cfg, idx, fit);
        }
    }

    /// Move backlog jobs into the window while it has room, each reserved
    /// at its earliest fit from now.
    pub(super) fn promote(&mut self, cfg: &EngineConfig) {
        while self.cloud_queue.len() < self.cloud_window {
            let Some(idx) = self.backlog.pop_front() else {
                break;
            };
            // Lazily deleted: the job left the backlog (and may have been handed over since).
            if !self.jobs.get(idx).is_some_and(|entry| entry.in_backlog) {
                continue;
            }
            self.jobs[idx].in_backlog = false;
            self.backlog_len -= 1;
            self.backlog_work -= self.work_of(idx);
            let k = self.qkey(idx);
            self.cloud_queue.insert(k);
            let job = self.job(idx);
            let fit = self
                .all()
                .earliest_fit(job.procs, job.walltime, self.now, Mask::Area);
            self.place_cloud(cfg, idx, fit);
        }
    }

    /// Remove cloud work from `bits` over `[s, e)` in the `all` layer, for
    /// HPC-layer job `cause`.
    pub(super) fn clear_cloud(&mut self, bits: &Bits, s: Time, e: Time, cause: usize) {
        let now = self.now;
        for i in self.reserved_in(self.cloud_queue.iter(), bits, s, e) {
            if let Some((start, _)) = self.jobs[i].res {
                self.jobs[i].marks.displaced = Some((cause, start));
            }
            self.unreserve(i);
            self.displaced.push(i);
        }
        let running: Vec<usize> = self
            .running_cloud
            .iter()
            .copied()
            .filter(|&i| {
                self.jobs[i].occ_end > s && self.jobs[i].res.as_ref().is_some_and(|r| r.1.and_count(bits) > 0)
            })
            .collect();
        for i in running {
            if s <= now {
                self.evict(i, now, Some(cause));
            } else {
                let e_old = self.jobs[i].occ_end;
                let b = self.jobs[i]
                    .res
                    .as_ref()
                    .map(|r| r.1.clone())
                    .unwrap_or_else(|| Bits::empty(self.width));
                self.cloud_mut().release(&b, s, e_old);
                let entry = &mut self.jobs[i];
                entry.occ_end = s;
                entry.marks.doom_cause = Some(cause);
                let old = std::mem::replace(&mut entry.evict_at, s);
                if !old.is_infinite() {
                    self.dooms.remove(&(old, i));
                }
                self.dooms.insert((s, i));
            }
        }
    }

    /// Reserve a cloud job at `fit` (from `all.earliest_fit`), choosing its processors.
    pub(super) fn place_cloud(&mut self, cfg: &EngineConfig, idx: usize, fit: Option<(Time, Bits)>) {
        self.place_cloud_keep(cfg, idx, fit, None)
    }

    /// [`State::place_cloud`], keeping `prev`'s processors if the start is unchanged and they are free.
    pub(super) fn place_cloud_keep(
        &mut self,
        cfg: &EngineConfig,
        idx: usize,
        fit: Option<(Time, Bits)>,
        prev: Option<(Time, Bits)>,
    ) {
        let Some((s, cand)) = fit else { return };
        let job = self.job(idx);
        let (k, wt) = (job.procs, job.walltime);
        let bits = if let Some((_, pb)) = prev.filter(|(ps, pb)| *ps == s && pb.is_subset(&cand)) {
            pb
        } else if let Some(weights) = cfg.topsis() {
            self.topsis_pick(weights, idx, &cand, s)
        } else if cfg.policy == Policy::Convergence {
            self.stage_pick(self.all(), std::slice::from_ref(&cand), k, s, true)
        } else {
            let mut b = Bits::empty(self.width);
            b.take_highest(&cand, k);
            b
        };
        self.cloud_mut().reserve(&bits, s, s + wt);
        self.cloud_timers.insert((s, idx));
        self.jobs[idx].res = Some((s, bits));
    }

    pub(super) fn start_cloud(&mut self, idx: usize, now: Time) {
        let key = self.qkey(idx);
        self.cloud_queue.remove(&key);
        let wt = self.job(idx).walltime;
        let e = &mut self.jobs[idx];
        e.st = St::Running;
        e.occ_end = now + wt;
        e.evict_at = Time::INFINITY;
        e.marks.doom_cause = None;
        let bits = e
            .res
            .as_ref()
            .map(|r| r.1.clone())
            .unwrap_or_else(|| Bits::empty(self.width));
        self.cloud_running.or_assign(&bits);
        for p in bits.iter() {
            self.owner.insert(p, idx);
        }
        self.running_cloud.insert(idx);
        self.deadlines.insert((now + wt, idx));
        let r = &mut self.records[idx];
        r.start = Some(now);
        r.procs = Some(bits.to_procset());
        r.end = None;
        r.end_reason = None;
    }

    /// Compression of the cloud layer: every queued cloud job, in queue
    /// order, moves to its earliest fit (never later than before).
    ///
    /// Bounded: only the reservation window (at most `cloud_window` jobs)
    /// holds reservations; the backlog has none to compress.
    pub(super) fn replan_cloud(&mut self, cfg: &EngineConfig, now: Time) {
        let queued: Vec<usize> = self.cloud_queue.iter().map(|k| k.2).collect();
        let mut bounds = CompressionBounds::default();
        for idx in queued {
            if self.jobs[idx].res.as_ref().is_some_and(|r| r.0 <= now) {
                continue;
            }
            if let Some(start) = self.stays_put(self.all(), idx, Mask::Area, now, &bounds) {
                let job = self.job(idx);
                bounds.placed(job.procs, job.walltime, Mask::Area, Some(start));
                continue;
            }
            let (k, wt, prev) = self.lift_for_replan(idx, &mut bounds);
            let from = bounds.scan_from(now, k, wt, Mask::Area);
            let fit = self.all().earliest_fit(k, wt, from, Mask::Area);
            bounds.placed(k, wt, Mask::Area, fit.as_ref().map(|f| f.0));
            self.place_cloud_keep(cfg, idx, fit, prev);
        }
    }
}
