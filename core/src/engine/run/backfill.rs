//! Backfilling the jobs beyond the reservation depth ([`crate::depth`]) in
//! time that does not grow with the queue.
//!
//! In queue order, a job beyond the depth starts now if it fits now: `k`
//! processors of its mask free over `[now, now + wt)`. Walking the whole
//! queue at every pass to find out is `O(queue)` per pass, quadratic in an
//! overloaded run (a month of KTH with a cloud job every 10 s queues 260,000
//! jobs in a 10-processor area). So the jobs beyond the depth are indexed by
//! shape (mask, width), each bucket in queue order with its walltimes; a
//! pass reads, once, how long each processor free now stays free
//! ([`State::free_runs_now`], longest first: `k` processors are free over
//! `[now, now + wt)` exactly when the `k`-th longest run is at least `wt`)
//! and asks each bucket whose shortest walltime fits for its first fitting
//! job. The earliest of those in queue order is the job the walk would
//! start next: a job the walk skipped cannot fit later in the same pass,
//! since starting jobs only takes processors. Debug builds check every
//! answer against the walk.

use super::{QKey, St, State};
use crate::bits::Bits;
use crate::engine::EngineConfig;
use crate::plan::Mask;
use crate::time::Time;
use std::collections::{BTreeMap, BTreeSet};

/// Queued jobs without a reservation that may be backfilled, by shape.
#[derive(Debug, Default)]
pub(super) struct Tail {
    /// By (in the area only, width).
    buckets: BTreeMap<(bool, u32), Bucket>,
}

/// The jobs of one shape: queue order, and their walltimes as a multiset.
#[derive(Debug, Default)]
struct Bucket {
    queue: BTreeSet<QKey>,
    walltimes: BTreeMap<Time, u32>,
}

impl Tail {
    fn insert(&mut self, shape: (bool, u32), key: QKey, walltime: Time) {
        let bucket = self.buckets.entry(shape).or_default();
        if bucket.queue.insert(key) {
            *bucket.walltimes.entry(walltime).or_default() += 1;
        }
    }

    fn remove(&mut self, shape: (bool, u32), key: QKey, walltime: Time) {
        let Some(bucket) = self.buckets.get_mut(&shape) else {
            return;
        };
        if !bucket.queue.remove(&key) {
            return;
        }
        if let Some(n) = bucket.walltimes.get_mut(&walltime) {
            *n -= 1;
            if *n == 0 {
                bucket.walltimes.remove(&walltime);
            }
        }
        if bucket.queue.is_empty() {
            self.buckets.remove(&shape);
        }
    }

    fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }
}

impl State {
    /// A job's shape and queue key in the tail index.
    fn tail_entry(&self, idx: usize) -> ((bool, u32), QKey, Time) {
        let job = self.job(idx);
        (
            (self.mask_of(idx) == Mask::Area, job.procs),
            self.qkey(idx),
            job.walltime,
        )
    }

    /// Index a queued job without a reservation for backfilling.
    pub(super) fn tail_insert(&mut self, idx: usize) {
        let (shape, key, walltime) = self.tail_entry(idx);
        self.tail.insert(shape, key, walltime);
    }

    /// Drop a job from the backfilling index (it got a reservation, started
    /// or left the queue); nothing if it is not there.
    pub(super) fn tail_remove(&mut self, idx: usize) {
        if self.tail.is_empty() {
            return;
        }
        let (shape, key, walltime) = self.tail_entry(idx);
        self.tail.remove(shape, key, walltime);
    }

    /// Start now, in queue order, each indexed job that fits now on the HPC
    /// layer (whose reservations it therefore delays not at all).
    pub(super) fn backfill_beyond(&mut self, cfg: &EngineConfig, now: Time, starts: &mut Vec<usize>) {
        while !self.tail.is_empty() && self.hpc.free_count_at(now, Mask::All) > 0 {
            let next = self.first_fitting(now);
            debug_assert_eq!(
                next,
                self.first_fitting_by_walk(now),
                "the index and the walk disagree"
            );
            let Some(idx) = next else {
                return;
            };
            if !self.try_start_now(cfg, idx, now) {
                debug_assert!(false, "job {idx} fits now but did not start");
                return;
            }
            starts.push(idx);
        }
    }

    /// The first indexed job, in queue order, that fits now.
    fn first_fitting(&self, now: Time) -> Option<usize> {
        let mut runs: [Option<Vec<Time>>; 2] = [None, None];
        let mut best: Option<QKey> = None;
        for (&(area, width), bucket) in &self.tail.buckets {
            let mask = if area { Mask::Area } else { Mask::All };
            if width == 0 || width > self.hpc.free_count_at(now, mask) {
                continue;
            }
            let runs =
                runs[usize::from(area)].get_or_insert_with(|| self.free_runs_now(now, self.mask_bits(mask)));
            let Some(&longest) = runs.get(width as usize - 1) else {
                continue;
            };
            if bucket
                .walltimes
                .keys()
                .next()
                .is_some_and(|&shortest| shortest > longest)
            {
                continue;
            }
            let before = best.map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded);
            let first = bucket
                .queue
                .range((std::ops::Bound::Unbounded, before))
                .find(|key| self.job(key.2).walltime <= longest);
            if let Some(&key) = first {
                best = Some(key);
            }
        }
        best.map(|key| key.2)
    }

    /// How long each processor of `mask` free at `now` stays free on the
    /// HPC layer, longest first ([`Time::INFINITY`] to the plan's end).
    fn free_runs_now(&self, now: Time, mask: &Bits) -> Vec<Time> {
        let mut segments = self.hpc.segments_from(now);
        let Some((_, first)) = segments.next() else {
            return Vec::new();
        };
        let mut alive = first.and(mask);
        let mut left = alive.count();
        let mut runs = Vec::with_capacity(left as usize);
        for (at, free) in segments {
            if left == 0 {
                break;
            }
            let gone = alive.andnot(free);
            let n = gone.count();
            if n > 0 {
                runs.extend(std::iter::repeat(at - now).take(n as usize));
                alive.andnot_assign(&gone);
                left -= n;
            }
        }
        runs.extend(std::iter::repeat(Time::INFINITY).take(left as usize));
        runs.reverse();
        runs
    }

    /// What [`State::first_fitting`] stands for: the indexed jobs walked in
    /// queue order, each asked whether it fits now (debug builds only).
    fn first_fitting_by_walk(&self, now: Time) -> Option<usize> {
        if !cfg!(debug_assertions) {
            return None;
        }
        let mut keys: Vec<QKey> = self
            .tail
            .buckets
            .values()
            .flat_map(|b| b.queue.iter().copied())
            .collect();
        keys.sort_unstable();
        keys.into_iter().map(|key| key.2).find(|&idx| {
            debug_assert!(self.jobs[idx].st == St::Queued && self.jobs[idx].res.is_none());
            let job = self.job(idx);
            let mask = self.mask_of(idx);
            let mut free = self.hpc.free_over(now, now + job.walltime);
            free.and_assign(self.mask_bits(mask));
            self.hpc.free_count_at(now, mask) >= job.procs && free.count() >= job.procs
        })
    }
}
