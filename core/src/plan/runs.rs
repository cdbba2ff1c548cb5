//! Each processor's maximal free runs, kept beside a [`super::Profile`]'s
//! segments for Algorithm 3 ([`crate::engine`]'s `stages`).
//!
//! The segments answer "which processors are free at `t`"; Algorithm 3 asks
//! per processor: its holes longer than `wt` (stage 2), the end of its last
//! planned job and what follows (stage 3, the thesis predictor's published
//! slots). Sweeping the segments for that costs the whole plan at every
//! placement, which is quadratic when the plan grows (an overloaded area,
//! where every job is planned behind a backlog). This index costs
//! `O(log R)` per processor a reservation touches (`R` runs of that
//! processor) and answers stage 2 from the holes longer than `wt` alone.
//!
//! It also remembers, per job shape, the stage-2 roots that failed to
//! gather their processors ([`FailedRoots`]): in an overloaded plan the same
//! holes are tried and fail for every job of the same shape, and a root that
//! failed keeps failing until a processor is freed over its window.
//!
//! Runs that ended before the profile's history was pruned are dropped in
//! batches (amortised `O(1)` per run): queries never return runs that end at
//! or before the instant they are asked from, so what is kept does not change
//! an answer.

use crate::bits::Bits;
use crate::plan::mask::Mask;
use crate::time::Time;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound::{Excluded, Unbounded};

/// The maximal free runs of every processor: built from the segments on
/// first use, then updated by every occupy and free of the profile.
#[derive(Clone, Debug, Default)]
pub(crate) struct FreeRuns {
    built: bool,
    /// Per processor id, its runs: start → end (`end` may be
    /// [`Time::INFINITY`]). Disjoint and never touching (maximal).
    by_start: Vec<BTreeMap<Time, Time>>,
    /// Every finite run of every processor, as `(length, processor, start,
    /// end)`: stage 2 reads those longer than `wt` without touching the rest.
    /// Kept from the first time stage 2 asks ([`FreeRuns::index_lengths`]):
    /// the other readers (stage 3, the thesis predictor's slots) never pay
    /// for it.
    finite: Option<BTreeSet<(Time, u32, Time, Time)>>,
    /// Runs added since the last trim of ended runs.
    added_since_trim: usize,
    /// Stage-2 roots known to fail, per job shape (see [`FailedRoots`]).
    failed: RefCell<FailedRoots>,
}

/// A job shape as stage 2 sees it: processors, walltime, mask.
pub(crate) type Shape = (u32, Time, Mask);

/// Stage-2 roots `(start, root)` that did not gather their processors, for
/// the last few job shapes. Whether a root gathers depends only on which
/// processors are free over `[start, start + wt)`: occupying more never
/// makes it gather, so a failure stays true until a processor is freed over
/// that window, which forgets every failure whose window it meets. At most
/// [`FailedRoots::SHAPES`] shapes are kept (least recently used out).
#[derive(Clone, Debug, Default)]
pub(crate) struct FailedRoots {
    shapes: Vec<(Shape, BTreeSet<(Time, u32)>)>,
}

impl FailedRoots {
    /// Shapes remembered at once: cloud jobs come in a few shapes, HPC jobs
    /// in many, each placed once.
    const SHAPES: usize = 4;

    /// The failures of `shape`, made the most recently used.
    pub(crate) fn of(&mut self, shape: Shape) -> &mut BTreeSet<(Time, u32)> {
        let at = match self.shapes.iter().position(|(s, _)| *s == shape) {
            Some(at) => at,
            None => {
                if self.shapes.len() == Self::SHAPES {
                    self.shapes.remove(0);
                }
                self.shapes.push((shape, BTreeSet::new()));
                self.shapes.len() - 1
            }
        };
        let entry = self.shapes.remove(at);
        self.shapes.push(entry);
        let last = self.shapes.len() - 1;
        &mut self.shapes[last].1
    }

    /// A processor was freed over `[s, e)`: forget the failures whose window
    /// `[start, start + wt)` meets it.
    fn forget(&mut self, s: Time, e: Time) {
        for ((_, wt, _), failed) in &mut self.shapes {
            let from = Time::from_ticks(s.ticks().saturating_sub(wt.ticks()).saturating_add(1));
            let doomed: Vec<(Time, u32)> = failed
                .range((from, 0)..)
                .take_while(|(start, _)| *start < e)
                .copied()
                .collect();
            for root in doomed {
                failed.remove(&root);
            }
        }
    }

    /// Drop the failures of roots starting before `now` (never asked again:
    /// a root starts at `now` or later).
    fn trim(&mut self, now: Time) {
        for (_, failed) in &mut self.shapes {
            if failed.first().is_some_and(|&(start, _)| start < now) {
                *failed = failed.split_off(&(now, 0));
            }
        }
    }
}

impl FreeRuns {
    /// Whether the index exists (the profile keeps it up to date only then).
    pub(crate) fn is_built(&self) -> bool {
        self.built
    }

    /// Build the index from a profile's segments `(start, free set)` in time
    /// order (the last one extends to infinity), `capacity` processor ids.
    pub(crate) fn build<'a>(&mut self, capacity: u32, segments: impl Iterator<Item = (Time, &'a Bits)>) {
        let mut runs = FreeRuns {
            built: true,
            by_start: vec![BTreeMap::new(); capacity as usize],
            ..FreeRuns::default()
        };
        let mut open: Vec<Option<Time>> = vec![None; capacity as usize];
        let mut prev: Option<Bits> = None;
        for (t, free) in segments {
            let before = prev.get_or_insert_with(|| free.empty_like());
            free.for_each_change(before, |p, joined| {
                if joined {
                    open[p as usize] = Some(t);
                } else if let Some(s) = open[p as usize].take() {
                    runs.insert(p, s, t);
                }
            });
            before.clone_from(free);
        }
        for (p, start) in open.into_iter().enumerate() {
            if let Some(s) = start {
                runs.insert(p as u32, s, Time::INFINITY);
            }
        }
        runs.added_since_trim = 0;
        *self = runs;
    }

    fn insert(&mut self, p: u32, s: Time, e: Time) {
        self.by_start[p as usize].insert(s, e);
        if let Some(finite) = self.finite.as_mut().filter(|_| !e.is_infinite()) {
            finite.insert((e - s, p, s, e));
        }
        self.added_since_trim += 1;
    }

    fn remove(&mut self, p: u32, s: Time) {
        if let Some(e) = self.by_start[p as usize].remove(&s) {
            if let Some(finite) = self.finite.as_mut().filter(|_| !e.is_infinite()) {
                finite.remove(&(e - s, p, s, e));
            }
        }
    }

    /// `p`'s last run starting before `e` (or at `e`, with `touching`).
    fn last_before(&self, p: u32, e: Time, touching: bool) -> Option<(Time, Time)> {
        let upper = if touching {
            std::ops::Bound::Included(e)
        } else {
            Excluded(e)
        };
        let runs = &self.by_start[p as usize];
        runs.range((Unbounded, upper)).next_back().map(|(&s, &e)| (s, e))
    }

    /// `p` is busy over `[s, e)` (`s < e`): the runs it overlaps lose that
    /// span, taken from the right (runs are disjoint, so the parts put back
    /// end at `s` or start at `e` and are never met again).
    pub(crate) fn occupy(&mut self, p: u32, s: Time, e: Time) {
        if p as usize >= self.by_start.len() {
            return;
        }
        while let Some((rs, re)) = self.last_before(p, e, false).filter(|&(_, re)| re > s) {
            self.remove(p, rs);
            if rs < s {
                self.insert(p, rs, s);
            }
            if e < re {
                self.insert(p, e, re);
            }
        }
    }

    /// `p` is free over `[s, e)` (`s < e`): one run with the runs it meets.
    pub(crate) fn free(&mut self, p: u32, s: Time, e: Time) {
        if p as usize >= self.by_start.len() {
            return;
        }
        self.failed.get_mut().forget(s, e);
        let (mut lo, mut hi) = (s, e);
        while let Some((rs, re)) = self.last_before(p, e, true).filter(|&(_, re)| re >= s) {
            self.remove(p, rs);
            lo = lo.min(rs);
            hi = hi.max(re);
        }
        self.insert(p, lo, hi);
    }

    /// Drop the runs that ended at or before `keep`, when enough were added
    /// since the last time to pay for a pass over every processor.
    pub(crate) fn trim(&mut self, keep: Time) {
        self.failed.get_mut().trim(keep);
        if self.added_since_trim < self.by_start.len().max(1024) {
            return;
        }
        self.added_since_trim = 0;
        for p in 0..self.by_start.len() {
            while let Some((&s, &e)) = self.by_start[p].first_key_value() {
                if e > keep {
                    break;
                }
                self.remove(p as u32, s);
            }
        }
    }

    /// The stage-2 roots known to fail, by job shape.
    pub(crate) fn failed_roots(&self) -> std::cell::RefMut<'_, FailedRoots> {
        self.failed.borrow_mut()
    }

    /// `p`'s runs that end after `t`, in time order (the first may start
    /// at or before `t`).
    pub(crate) fn from(&self, p: u32, t: Time) -> impl DoubleEndedIterator<Item = (Time, Time)> + '_ {
        static NONE: BTreeMap<Time, Time> = BTreeMap::new();
        let runs = self.by_start.get(p as usize).unwrap_or(&NONE);
        let containing = runs.range(..=t).next_back().filter(|(_, &e)| e > t);
        containing
            .into_iter()
            .chain(runs.range((Excluded(t), Unbounded)))
            .map(|(&s, &e)| (s, e))
    }

    /// Are the finite runs indexed by length ([`FreeRuns::index_lengths`])?
    pub(crate) fn has_lengths(&self) -> bool {
        self.finite.is_some()
    }

    /// Index the finite runs by length, and keep the index from now on
    /// (called once: [`super::Profile::free_runs_by_length`] asks
    /// [`FreeRuns::has_lengths`] first).
    pub(crate) fn index_lengths(&mut self) {
        let mut finite = BTreeSet::new();
        for (p, runs) in self.by_start.iter().enumerate() {
            for (&s, &e) in runs.iter().filter(|(_, e)| !e.is_infinite()) {
                finite.insert((e - s, p as u32, s, e));
            }
        }
        self.finite = Some(finite);
    }

    /// Every finite run, of any processor, idle for more than `wt` from
    /// `now` on: `(processor, max(start, now))`, in no set order. Needs the
    /// length index ([`FreeRuns::index_lengths`]).
    pub(crate) fn holes_longer_than(&self, wt: Time, now: Time) -> impl Iterator<Item = (u32, Time)> + '_ {
        debug_assert!(
            self.finite.is_some(),
            "stage 2 reads runs by length: index them first"
        );
        let shortest = Time::from_ticks(wt.ticks().saturating_add(1));
        let from = (
            shortest,
            0,
            Time::from_ticks(i64::MIN),
            Time::from_ticks(i64::MIN),
        );
        self.finite
            .iter()
            .flat_map(move |finite| finite.range(from..))
            .filter_map(move |&(_, p, s, e)| {
                let start = s.max(now);
                (e > start && e - start > wt).then_some((p, start))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Time {
        Time::from_secs(s)
    }

    /// Free runs of one processor from a boolean timeline, brute force.
    fn runs_of(timeline: &[bool]) -> Vec<(Time, Time)> {
        let mut out = Vec::new();
        let mut open = None;
        for (i, &free) in timeline.iter().enumerate() {
            match (free, open) {
                (true, None) => open = Some(i),
                (false, Some(s)) => {
                    out.push((t(s as i64), t(i as i64)));
                    open = None;
                }
                _ => {}
            }
        }
        if let Some(s) = open {
            out.push((t(s as i64), Time::INFINITY));
        }
        out
    }

    proptest::proptest! {
        /// Occupy and free keep each processor's runs maximal and equal to
        /// the timeline they describe.
        #[test]
        fn runs_follow_occupy_and_free(ops in proptest::collection::vec((proptest::bool::ANY, 0u32..3, 0i64..30, 1i64..12), 0..40)) {
            let width = 3;
            let mut timeline = vec![vec![true; 64]; width];
            let all = Bits::range(width as u32, 0, width as u32);
            let mut runs = FreeRuns::default();
            runs.build(64, std::iter::once((t(0), &all)));
            for (occupy, p, s, len) in ops {
                for cell in &mut timeline[p as usize][s as usize..(s + len) as usize] {
                    *cell = !occupy;
                }
                if occupy {
                    runs.occupy(p, t(s), t(s + len));
                } else {
                    runs.free(p, t(s), t(s + len));
                }
            }
            for (p, line) in timeline.iter().enumerate() {
                let got: Vec<_> = runs.from(p as u32, t(-1)).collect();
                proptest::prop_assert_eq!(got, runs_of(line));
            }
        }
    }
}
