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

use crate::time::Time;

/// How many earlier placements a bound looks back at (the bound stays exact
/// with any number; more only tightens it, at a cost per job).
const LOOK_BACK: usize = 16;

/// What happened so far in one compression, in order.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A job of `procs` processors for `length` was placed at `fit`
    /// (`None`: it fits nowhere).
    Placed {
        procs: u32,
        length: Time,
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

    /// A job of `procs` processors for `length` was placed at `fit`.
    pub(super) fn placed(&mut self, procs: u32, length: Time, fit: Option<Time>) {
        self.steps.push(Step::Placed { procs, length, fit });
    }

    /// The instant from which a job of `procs` processors for `length` may
    /// scan for its earliest fit: no start in `[now, bound)` fits it.
    pub(super) fn scan_from(&self, now: Time, procs: u32, length: Time) -> Time {
        let mut best = now;
        let mut released_since = Time::INFINITY;
        let mut looked = 0;
        for step in self.steps.iter().rev() {
            match *step {
                Step::Released { start } => released_since = released_since.min(start),
                Step::Placed {
                    procs: k,
                    length: d,
                    fit,
                } => {
                    if let Some(fit) = fit.filter(|_| k <= procs && d <= length) {
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
        assert_eq!(bounds.scan_from(t(0), 2, t(10)), t(0), "nothing placed yet");
        bounds.released(t(50));
        bounds.placed(2, t(10), Some(t(40)));
        // The next job's own old reservation, at 100: space from 100 - 20 on.
        bounds.released(t(100));
        assert_eq!(bounds.scan_from(t(0), 2, t(20)), t(40));
        // Released at 45: a job of 20 s may start from 25, inside space given back.
        bounds.released(t(45));
        assert_eq!(bounds.scan_from(t(0), 2, t(20)), t(25));
        // A narrower or shorter job is not dominated: no bound.
        assert_eq!(bounds.scan_from(t(0), 1, t(20)), t(0));
        assert_eq!(bounds.scan_from(t(0), 2, t(5)), t(0));
        // Never before now.
        assert_eq!(bounds.scan_from(t(30), 2, t(20)), t(30));
    }

    /// A queued job: processors, length, reservation (start, processors).
    type Queued = (u32, Time, Option<(Time, Bits)>);

    /// Compress `queue` in order on `plan`, scanning from now or from the
    /// bound; the fits found, in order.
    fn compress(
        plan: &mut Profile,
        queue: &mut [Queued],
        now: Time,
        bounded: bool,
    ) -> Vec<Option<(Time, Bits)>> {
        let mut bounds = CompressionBounds::default();
        let mut fits = Vec::new();
        for (k, d, res) in queue.iter_mut() {
            if let Some((s, bits)) = res.take() {
                bounds.released(s);
                plan.release(&bits, s, s + *d);
            }
            let from = if bounded {
                bounds.scan_from(now, *k, *d)
            } else {
                now
            };
            let fit = plan.earliest_fit(*k, *d, from, Mask::All);
            bounds.placed(*k, *d, fit.as_ref().map(|f| f.0));
            if let Some((s, cand)) = &fit {
                let mut bits = Bits::empty(6);
                bits.take_lowest(cand, *k);
                plan.reserve(&bits, *s, *s + *d);
                *res = Some((*s, bits));
            }
            fits.push(fit);
        }
        fits
    }

    proptest::proptest! {
        /// The bound never changes a compression's fits: jobs planned in
        /// order, some running work ending early, then the queue compressed.
        #[test]
        fn bounded_compression_finds_the_same_fits(
            running in proptest::collection::vec((0u32..6, 1u32..4, 1i64..60), 0..6),
            jobs in proptest::collection::vec((1u32..7, 1i64..40), 1..14),
            ends in proptest::collection::vec(0usize..6, 0..4),
            now in 0i64..20,
        ) {
            let width = 6;
            let mut plan = Profile::new(width, Bits::range(width, 0, width));
            let mut held = Vec::new();
            for (lo, n, len) in running {
                let bits = Bits::range(width, lo, (lo + n).min(width));
                if plan.is_free(&bits, t(0), t(len)) {
                    plan.reserve(&bits, t(0), t(len));
                    held.push((bits, len));
                }
            }
            let mut queue: Vec<Queued> =
                jobs.into_iter().map(|(k, d)| (k, t(d), None)).collect();
            compress(&mut plan, &mut queue, t(0), false);
            // Some running work ends early, at `now`.
            for i in ends {
                if let Some((bits, len)) = held.get(i).cloned() {
                    if len > now {
                        plan.release(&bits, t(now), t(len));
                        held[i].1 = now;
                    }
                }
            }
            let (mut plan_b, mut queue_b) = (plan.clone(), queue.clone());
            let reference = compress(&mut plan, &mut queue, t(now), false);
            let bounded = compress(&mut plan_b, &mut queue_b, t(now), true);
            proptest::prop_assert_eq!(reference, bounded);
        }
    }

    #[test]
    fn a_placement_that_fits_nowhere_bounds_nothing() {
        let mut bounds = CompressionBounds::default();
        bounds.placed(4, t(10), None);
        assert_eq!(bounds.scan_from(t(0), 4, t(10)), t(0));
    }
}
