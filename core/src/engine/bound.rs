//! Where a compression's earliest-fit scans may start.
//!
//! A compression re-places queued jobs in queue order: each is released,
//! then reserved at its earliest fit from now. The scan from now crosses
//! every breakpoint before the fit, and the fits of a long queue lie far
//! ahead, so compressing a queue of `Q` jobs cost `O(Q·S)`. Most of that
//! scan can be skipped, exactly:
//!
//! * when job `m` was placed in this compression, no start before its fit
//!   `f_m` suited its shape `(k_m, d_m)` in the plan of that moment;
//! * since then the plan has only lost space, except for the old
//!   reservations released after `m` (at `s_r`, those of the jobs re-placed
//!   after it, the current one included);
//! * so a job `j` whose shape dominates `m`'s (`k_j ≥ k_m`, `d_j ≥ d_m`:
//!   anything that fits `j` fits `m`) can only start before `f_m` on space
//!   one of those releases gave back, that is after `s_r − d_j`.
//!
//! Its earliest fit is therefore at or after
//! `max(now, min(f_m, min_r s_r − d_j))`, and a scan from there finds the
//! very start and processors a scan from now finds: no start in between
//! fits, and a fit found from a later instant that is not a breakpoint would
//! slide back to the breakpoint before it. The decisions do not change; only
//! the breakpoints before the bound are no longer visited.

use crate::plan::Mask;
use crate::time::Time;

/// How many earlier placements a bound looks back at (the bound stays exact
/// with any number; more only tightens it, at a cost per job).
const LOOK_BACK: usize = 16;

/// What happened so far in one compression, in order.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A job of `procs` processors of `mask` for `length` was placed at
    /// `fit` (`None`: it fits nowhere).
    Placed {
        procs: u32,
        length: Time,
        mask: Mask,
        fit: Option<Time>,
    },
    /// A reservation starting at `start` was released.
    Released { start: Time },
}

/// The steps of one compression, to bound the next job's scan (see the
/// module docs).
#[derive(Debug, Default)]
pub(super) struct CompressionBounds {
    steps: Vec<Step>,
}

impl CompressionBounds {
    /// A reservation starting at `start` was released (the job's own
    /// included, before asking for its bound).
    pub(super) fn released(&mut self, start: Time) {
        self.steps.push(Step::Released { start });
    }

    /// A job of `procs` processors of `mask` for `length` was placed at `fit`.
    pub(super) fn placed(&mut self, procs: u32, length: Time, mask: Mask, fit: Option<Time>) {
        self.steps.push(Step::Placed {
            procs,
            length,
            mask,
            fit,
        });
    }

    /// The instant from which a job of `procs` processors of `mask` for
    /// `length` may scan for its earliest fit: no start in `[now, bound)`
    /// fits it. Only placements it dominates count: fewer or as many
    /// processors, as short or shorter, and allowed on every processor it
    /// may use (a job of the whole machine is not dominated by one of the
    /// area: it may fit outside the area where the other could not).
    pub(super) fn scan_from(&self, now: Time, procs: u32, length: Time, mask: Mask) -> Time {
        self.scan_from_releasing(now, procs, length, mask, Time::INFINITY)
    }

    /// [`CompressionBounds::scan_from`] for a job whose own reservation,
    /// starting at `own_start`, is not released yet: the bound it would
    /// have once released.
    pub(super) fn scan_from_releasing(
        &self,
        now: Time,
        procs: u32,
        length: Time,
        mask: Mask,
        own_start: Time,
    ) -> Time {
        let mut best = now;
        let mut released_since = own_start;
        let mut looked = 0;
        for step in self.steps.iter().rev() {
            match *step {
                Step::Released { start } => released_since = released_since.min(start),
                Step::Placed {
                    procs: k,
                    length: d,
                    mask: m,
                    fit,
                } => {
                    if let Some(fit) = fit.filter(|_| k <= procs && d <= length && m.includes(mask)) {
                        let bound = fit.min(released_since.saturating_sub(length));
                        best = best.max(bound);
                    }
                    looked += 1;
                    if looked == LOOK_BACK {
                        break;
                    }
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::Bits;
    use crate::plan::{Mask, Profile};

    fn t(s: i64) -> Time {
        Time::from_secs(s)
    }

    #[test]
    fn a_dominated_placement_bounds_the_scan_until_a_release_lets_space_back() {
        let mut bounds = CompressionBounds::default();
        assert_eq!(
            bounds.scan_from(t(0), 2, t(10), Mask::All),
            t(0),
            "nothing placed yet"
        );
        bounds.released(t(50));
        bounds.placed(2, t(10), Mask::All, Some(t(40)));
        // The next job's own old reservation, at 100: space from 100 - 20 on.
        bounds.released(t(100));
        assert_eq!(bounds.scan_from(t(0), 2, t(20), Mask::All), t(40));
        // Released at 45: a job of 20 s may start from 25, inside space given back.
        bounds.released(t(45));
        assert_eq!(bounds.scan_from(t(0), 2, t(20), Mask::All), t(25));
        // A narrower or shorter job is not dominated: no bound.
        assert_eq!(bounds.scan_from(t(0), 1, t(20), Mask::All), t(0));
        assert_eq!(bounds.scan_from(t(0), 2, t(5), Mask::All), t(0));
        // Never before now.
        assert_eq!(bounds.scan_from(t(30), 2, t(20), Mask::All), t(30));
    }

    /// A queued job: processors, length, the processors it may use and its
    /// reservation (start, processors).
    type Queued = (u32, Time, Mask, Option<(Time, Bits)>);

    /// Compress `queue` in order on `plan`, scanning from now or from the
    /// bound; the reservations after it, in order.
    fn compress(
        plan: &mut Profile,
        area: &Bits,
        queue: &mut [Queued],
        now: Time,
        bounded: bool,
    ) -> Vec<Option<(Time, Bits)>> {
        let mut bounds = CompressionBounds::default();
        for (k, d, mask, res) in queue.iter_mut() {
            let prev = res.take();
            if let Some((s, bits)) = &prev {
                bounds.released(*s);
                plan.release(bits, *s, *s + *d);
            }
            let from = if bounded {
                bounds.scan_from(now, *k, *d, *mask)
            } else {
                now
            };
            let fit = plan.earliest_fit(*k, *d, from, *mask);
            bounds.placed(*k, *d, *mask, fit.as_ref().map(|f| f.0));
            if let Some((s, mut cand)) = fit {
                if *mask == Mask::Area {
                    cand.and_assign(area);
                }
                // The engine keeps a job's processors when its start does not change.
                let bits = match prev {
                    Some((ps, pb)) if ps == s && pb.is_subset(&cand) => pb,
                    _ => {
                        let mut bits = Bits::empty(6);
                        bits.take_lowest(&cand, *k);
                        bits
                    }
                };
                plan.reserve(&bits, s, s + *d);
                *res = Some((s, bits));
            }
        }
        queue.iter().map(|q| q.3.clone()).collect()
    }

    proptest::proptest! {
        /// The bound never changes a compression's reservations: jobs of
        /// the machine or of the area planned in order, some running work
        /// ending early, then the queue compressed again after each end.
        #[test]
        fn bounded_compression_finds_the_same_fits(
            running in proptest::collection::vec((0u32..6, 1u32..4, 1i64..60), 0..6),
            jobs in proptest::collection::vec((1u32..7, 1i64..40, proptest::bool::ANY), 1..14),
            ends in proptest::collection::vec((0usize..6, 0i64..20), 0..4),
            area in 3u32..7,
        ) {
            let width = 6;
            let mut plan = Profile::new(width, Bits::range(width, 0, area));
            let mut held = Vec::new();
            for (lo, n, len) in running {
                let bits = Bits::range(width, lo, (lo + n).min(width));
                if plan.is_free(&bits, t(0), t(len)) {
                    plan.reserve(&bits, t(0), t(len));
                    held.push((bits, len));
                }
            }
            let mut queue: Vec<Queued> = jobs
                .into_iter()
                .map(|(k, d, in_area)| {
                    let mask = if in_area { Mask::Area } else { Mask::All };
                    (k.min(if in_area { area } else { width }), t(d), mask, None)
                })
                .collect();
            let area_bits = Bits::range(width, 0, area);
            compress(&mut plan, &area_bits, &mut queue, t(0), false);
            let mut plans: Vec<(Profile, Vec<Queued>)> = vec![(plan.clone(), queue.clone()); 2];
            let mut now = 0;
            for (i, at) in ends {
                // Some running work ends early, at `now`, then the queue is compressed.
                now = now.max(at);
                let Some((bits, len)) = held.get(i).cloned() else { continue };
                if len <= now {
                    continue;
                }
                held[i].1 = now;
                let mut results = Vec::new();
                for ((plan, queue), bounded) in plans.iter_mut().zip([false, true]) {
                    plan.release(&bits, t(now), t(len));
                    results.push(compress(plan, &area_bits, queue, t(now), bounded));
                }
                proptest::prop_assert_eq!(&results[0], &results[1]);
            }
        }
    }

    #[test]
    fn a_placement_that_fits_nowhere_bounds_nothing() {
        let mut bounds = CompressionBounds::default();
        bounds.placed(4, t(10), Mask::All, None);
        assert_eq!(bounds.scan_from(t(0), 4, t(10), Mask::All), t(0));
    }
}
