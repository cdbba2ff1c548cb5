//! The reserving policies' pass (conservative; convergence): every queued
//! job holds a reservation at its earliest fit, or, with a bounded
//! reservation depth ([`crate::depth`]), only the first `K` do and the
//! others are backfilled.

use super::{St, State};
use crate::engine::bound::CompressionBounds;
use crate::engine::EngineConfig;
use crate::plan::Mask;
use crate::time::Time;
use crate::Policy;

impl State {
    /// Conservative and convergence: new jobs reserved at their earliest fit
    /// (convergence under `shared-queue`: where Algorithm 3 puts them), and
    /// with `compress` every planned job re-planned in queue order first
    /// (conservative: after an early end or a cancellation; convergence
    /// under `hpc-first`: also when an HPC job arrived, as CArS/OAR do at
    /// every scheduling event; never under `shared-queue` convergence, which
    /// is Algorithm 3 as written).
    ///
    /// Compression happens at most once per instant: one round of queue-order
    /// compression is not a fixpoint, so compressing again at the same instant
    /// (or at instants with only cloud events) could move HPC jobs, and HPC
    /// decisions must not depend on cloud traffic.
    pub(super) fn pass_reserving(
        &mut self,
        cfg: &EngineConfig,
        now: Time,
        compress: bool,
        starts: &mut Vec<usize>,
    ) {
        if let Some(depth) = cfg.reservation_depth.limit() {
            return self.pass_reserving_bounded(cfg, now, compress, depth, starts);
        }
        if compress {
            let order: Vec<usize> = self.hpc_queue.iter().map(|k| k.2).collect();
            self.compress_hpc(cfg, now, order);
        }
        self.hpc_compress = false;
        let mut new = std::mem::take(&mut self.new_hpc);
        new.retain(|&idx| self.jobs[idx].st == St::Pending);
        new.sort_by_key(|&idx| self.qkey(idx));
        self.place_in_order(cfg, now, new);
        self.start_due_hpc(cfg, now, starts);
    }

    /// The pass with reservation depth `depth`: the first `depth` queued
    /// jobs hold reservations (a compression re-plans only them; a job that
    /// moves up among them is reserved at its earliest fit then), and every
    /// later job, in queue order, starts now if it fits now without touching
    /// any reservation (found through the index of `run/backfill.rs`, which
    /// holds the queued jobs without a reservation).
    ///
    /// After a pass the reserved jobs are among the first `depth`. A job
    /// submitted since may enter the queue ahead of them (same instant, a
    /// smaller id: queue order is submission, then id), each pushing them
    /// back one position, so [`State::reserve_prefix`] looks `new` positions
    /// past the depth for reservations to drop.
    pub(super) fn pass_reserving_bounded(
        &mut self,
        cfg: &EngineConfig,
        now: Time,
        compress: bool,
        depth: usize,
        starts: &mut Vec<usize>,
    ) {
        let mut new = 0;
        for idx in std::mem::take(&mut self.new_hpc) {
            if self.jobs[idx].st == St::Pending {
                self.jobs[idx].st = St::Queued;
                self.tail_insert(idx);
                new += 1;
            }
        }
        if compress {
            let order: Vec<usize> = self
                .hpc_queue
                .iter()
                .take(depth)
                .map(|k| k.2)
                .filter(|&idx| self.jobs[idx].res.is_some())
                .collect();
            self.compress_hpc(cfg, now, order);
        }
        self.hpc_compress = false;
        // A job that starts now makes room in the prefix for the next one,
        // whose reservation may be now too.
        let mut overtaken = new;
        loop {
            self.reserve_prefix(cfg, now, depth, std::mem::take(&mut overtaken));
            let before = starts.len();
            self.start_due_hpc(cfg, now, starts);
            if starts.len() == before {
                break;
            }
        }
        self.backfill_beyond(cfg, now, starts);
    }

    /// CArS's scheduling session ([`crate::Policy::Cars`]): every
    /// reservation dropped, then the queue planned from scratch in queue
    /// order (the first `K` of it with a bounded depth, the rest
    /// backfilled), the jobs due now started.
    ///
    /// A session that changed nothing the plan rests on is not carried out
    /// again: planned from scratch, each job depends only on the running
    /// jobs and the jobs ahead of it, so the plan is already the one a
    /// session would make, but for the new jobs at the end of the queue,
    /// which are placed after the others. The plan is made again from
    /// scratch when a running job ended early or a job was cancelled
    /// (space given back), when a reservation's start passed with no
    /// pass, and when a new job enters the queue ahead of a reserved one
    /// (same instant, smaller id; or an overdue job's hold sent a reserved
    /// one back). `core/tests/cars.rs` checks that this decides exactly as
    /// planning from scratch at every session.
    pub(super) fn pass_cars(&mut self, cfg: &EngineConfig, now: Time, starts: &mut Vec<usize>) {
        let depth = cfg.reservation_depth.limit().unwrap_or(usize::MAX);
        // Reserved jobs are among the first `depth`, or pushed back by the
        // jobs queued since (see `pass_reserving_bounded`).
        let reserved: Vec<usize> = self
            .hpc_queue
            .iter()
            .take(depth.saturating_add(self.new_hpc.len()))
            .map(|k| k.2)
            .filter(|&idx| self.jobs[idx].res.is_some())
            .collect();
        let last_reserved = reserved.last().map(|&idx| self.qkey(idx));
        let again = self.cars_every_session
            || self.hpc_compress
            || self.hpc_timers.first().is_some_and(|&(t, _)| t < now)
            || self
                .new_hpc
                .iter()
                .any(|&idx| self.jobs[idx].st == St::Pending && Some(self.qkey(idx)) < last_reserved);
        if again {
            for idx in reserved {
                self.unreserve(idx);
            }
        }
        self.hpc_compress = false;
        self.pass_reserving_bounded(cfg, now, false, depth, starts);
    }

    /// Re-plan `order` (queued jobs, in queue order) at their earliest fits,
    /// once per instant, flagging the cloud layer for compression if an HPC
    /// reservation moved.
    ///
    /// The cloud layer's compression (`State::replan_cloud`, `cloud.rs`) walks
    /// its window the same way, on the `all` layer within the area and placing
    /// by `place_cloud_keep`: the layers and placements differ, so the two
    /// loops stay apart; both lift each job's reservation by `lift_for_replan`.
    fn compress_hpc(&mut self, cfg: &EngineConfig, now: Time, order: Vec<usize>) {
        if self.compressed_at == Some(now) {
            return;
        }
        self.compressed_at = Some(now);
        let mut moved = false;
        let mut bounds = CompressionBounds::default();
        for idx in order {
            if self.jobs[idx].st == St::Queued {
                if let Some((k, wt, mask, start)) = self.hpc_stays_put(cfg, idx, now, &bounds) {
                    bounds.placed(k, wt, mask, Some(start));
                    continue;
                }
                let (k, wt, prev) = self.lift_for_replan(idx, &mut bounds);
                let mask = self.mask_of(idx);
                let from = bounds.scan_from(now, k, wt, mask);
                self.place_hpc_from(cfg, idx, from, prev.clone());
                bounds.placed(k, wt, mask, self.jobs[idx].res.as_ref().map(|r| r.0));
                moved |= self.jobs[idx].res != prev;
            }
        }
        // Space HPC work left may let cloud reservations move earlier.
        if moved {
            self.cloud_compress = true;
        }
    }

    /// [`State::stays_put`] on the HPC layer. Not asked where lifting has
    /// side effects a re-placement may not undo (planned evictions of cloud
    /// jobs, which a release re-plans) or where the placement is not an
    /// earliest fit (Algorithm 3's stages).
    fn hpc_stays_put(
        &self,
        cfg: &EngineConfig,
        idx: usize,
        now: Time,
        bounds: &CompressionBounds,
    ) -> Option<(u32, Time, Mask, Time)> {
        if !self.dooms.is_empty() || (self.shared && cfg.policy == Policy::Convergence) {
            return None;
        }
        let job = self.job(idx);
        let (k, wt, mask) = (job.procs, job.walltime, self.mask_of(idx));
        let start = self.stays_put(&self.hpc, idx, mask, now, bounds)?;
        Some((k, wt, mask, start))
    }

    /// Give the first `depth` queued jobs a reservation (in queue order, at
    /// their earliest fit from now) and take it from the jobs up to
    /// `overtaken` positions later (those pushed back by new jobs queued
    /// ahead of them: no other job beyond the depth holds one).
    fn reserve_prefix(&mut self, cfg: &EngineConfig, now: Time, depth: usize, overtaken: usize) {
        let mut place = Vec::new();
        let mut drop = Vec::new();
        for (position, &(_, _, idx)) in self
            .hpc_queue
            .iter()
            .take(depth.saturating_add(overtaken))
            .enumerate()
        {
            let reserved = self.jobs[idx].res.is_some();
            if position < depth && !reserved {
                place.push(idx);
            } else if position >= depth && reserved {
                drop.push(idx);
            }
        }
        for idx in drop {
            self.unreserve(idx);
            self.tail_insert(idx);
        }
        for &idx in &place {
            self.tail_remove(idx);
        }
        self.place_in_order(cfg, now, place);
    }

    /// Reserve `order` (jobs without a reservation, in queue order) each at
    /// its earliest fit from `now`. Nothing is released meanwhile, so the
    /// plan only loses space from one placement to the next and each scan
    /// may start where the placements it dominates rule out
    /// ([`CompressionBounds`]): a run of jobs of one shape (the thesis's
    /// cloud stream, planned from scratch by CArS) costs one pass over the
    /// plan, not one per job. Algorithm 3's stages place from `now`.
    fn place_in_order(&mut self, cfg: &EngineConfig, now: Time, order: Vec<usize>) {
        let stages = self.shared && cfg.policy == Policy::Convergence;
        let mut bounds = CompressionBounds::default();
        for idx in order {
            self.jobs[idx].st = St::Queued;
            let job = self.job(idx);
            let (k, wt, mask) = (job.procs, job.walltime, self.mask_of(idx));
            let from = if stages {
                now
            } else {
                bounds.scan_from(now, k, wt, mask)
            };
            self.place_hpc_from(cfg, idx, from, None);
            bounds.placed(k, wt, mask, self.jobs[idx].res.as_ref().map(|r| r.0));
        }
    }

    /// Start the HPC-layer reservations due at `now`; one whose start passed
    /// with no pass is re-planned from now first.
    fn start_due_hpc(&mut self, cfg: &EngineConfig, now: Time, starts: &mut Vec<usize>) {
        while let Some(&(t, idx)) = self.hpc_timers.first() {
            if t > now {
                break;
            }
            self.hpc_timers.remove(&(t, idx));
            if t < now {
                // Missed its start (no pass at `t`): re-plan from now.
                self.unreserve_bits(idx, t);
                self.place_hpc(cfg, idx, now);
                if self.jobs[idx].res.as_ref().is_some_and(|r| r.0 > now) {
                    continue;
                }
                self.hpc_timers.remove(&(now, idx));
            }
            self.start_hpc(idx, now);
            starts.push(idx);
        }
    }
}
