//! FCFS and EASY: start from the head while jobs fit, EASY's shadow time
//! and backfilling, and the head's reservation that keeps cloud work off it.

use super::*;

impl State {
    /// FCFS (`backfill = false`) and EASY (`backfill = true`).
    pub(super) fn pass_fifo(
        &mut self,
        cfg: &EngineConfig,
        now: Time,
        backfill: bool,
        starts: &mut Vec<usize>,
    ) {
        if let Some(h) = self.head_res.take() {
            self.unreserve(h);
        }
        // Drained in place: the vector keeps its room for the next pass.
        for i in 0..self.new_hpc.len() {
            let idx = self.new_hpc[i];
            if self.jobs[idx].st == St::Pending {
                self.jobs[idx].st = St::Queued;
            }
        }
        self.new_hpc.clear();
        // Start from the head while jobs fit (started jobs leave the queue).
        let head = loop {
            let Some(&(_, _, idx)) = self.hpc_queue.first() else {
                return;
            };
            if !self.try_start_now(cfg, idx, now) {
                break idx;
            }
            starts.push(idx);
        };
        if backfill && self.hpc_free_now(Mask::All) > 0 {
            let (k, wt, mask) = (self.job(head).procs, self.job(head).walltime, self.mask_of(head));
            // The processors free over the head's whole run from the shadow
            // time (those free at the shadow time, unless a maintenance
            // window starts during that run).
            if let Some((shadow, spare)) = self.shadow(k, wt, mask) {
                let mut extra = spare.saturating_sub(k);
                // The queue is read a few candidates at a time, so that a
                // pass that fills the machine stops reading it there.
                let (mut order, mut after) = (Vec::with_capacity(CANDIDATES), self.qkey(head));
                loop {
                    let read_to = self.backfill_candidates(now, (shadow, extra), &after, &mut order);
                    for &idx in &order {
                        let job = self.job(idx);
                        let (kj, ends) = (job.procs, now + job.walltime);
                        if self.hpc_free_now(Mask::All) == 0 {
                            break;
                        }
                        let fits_before = ends <= shadow;
                        if !may_backfill(kj, fits_before, self.hpc_free_now(self.mask_of(idx)), extra) {
                            continue;
                        }
                        if self.try_start_now(cfg, idx, now) {
                            if !fits_before {
                                extra -= kj;
                            }
                            starts.push(idx);
                        }
                    }
                    match read_to {
                        Some(key) if self.hpc_free_now(Mask::All) > 0 => after = key,
                        _ => break,
                    }
                }
            }
        }
        self.head_res = Some(head);
        if self.counting() {
            // Only cloud work and the plan's readers read the head's
            // reservation: counted, it is placed when read (`counts`).
            return;
        }
        // The head's reservation, so that cloud work keeps off it.
        self.place_hpc(cfg, head, now);
        if let Some((s, _)) = self.jobs[head].res {
            self.hpc_timers.remove(&(s, head));
        }
    }

    /// Up to [`CANDIDATES`] queued jobs after `after` that EASY may start
    /// at `now`, in queue order, into `order`: those that fit the processors
    /// free now and either end by the `shadow` time or need at most `extra`
    /// processors. A pass only takes processors and `extra`, so a job left
    /// out here could not start later in the pass either; the pass checks
    /// the others again as it starts jobs. (A read of the queue, without
    /// copying it: under a long queue most jobs wait.) Returns the key of
    /// the last job read when the read stopped at that many candidates
    /// (`None`: it read to the end of the queue).
    fn backfill_candidates(
        &self,
        now: Time,
        (shadow, extra): (Time, u32),
        after: &QKey,
        order: &mut Vec<usize>,
    ) -> Option<QKey> {
        let free_all = self.hpc_free_now(Mask::All);
        // Cloud jobs are in this queue only under shared-queue, never
        // while the layer is counted.
        let free_area = if self.counting() {
            0
        } else {
            self.hpc_free_now(Mask::Area)
        };
        order.clear();
        for (key, job) in self.hpc_queue.after(after) {
            let free = match job.mask {
                Mask::All => free_all,
                Mask::Area => free_area,
            };
            if may_backfill(job.procs, now + job.walltime <= shadow, free, extra) {
                order.push(key.2);
                if order.len() == CANDIDATES {
                    return Some(*key);
                }
            }
        }
        None
    }

    /// Start an HPC job now if enough processors are free now and until its walltime.
    pub(super) fn try_start_now(&mut self, cfg: &EngineConfig, idx: usize, now: Time) -> bool {
        let job = self.job(idx);
        let (k, wt, mask) = (job.procs, job.walltime, self.mask_of(idx));
        if self.hpc_free_now(mask) < k {
            return false;
        }
        let cand = self.hpc_free_until(now + wt, mask);
        // Counted, the candidates are the processors free now: enough.
        if !self.counting() && cand.count() < k {
            return false;
        }
        let bits = self.choose_hpc(cfg, &cand, k, now);
        self.hpc_occupy(idx, &bits, now, now + wt);
        self.jobs[idx].res = Some((now, bits));
        self.start_hpc(idx, now);
        true
    }
}

/// Candidates EASY reads from its queue before trying them.
const CANDIDATES: usize = 8;

/// EASY's rule for a job behind the head: it starts now if its `procs` are
/// free now and it either ends by the shadow time (`fits_before`) or needs
/// at most the `extra` processors the head leaves spare.
fn may_backfill(procs: u32, fits_before: bool, free: u32, extra: u32) -> bool {
    procs <= free && (fits_before || procs <= extra)
}
