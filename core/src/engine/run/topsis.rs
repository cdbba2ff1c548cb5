//! [`State::topsis_pick`]: a cloud job's processors chosen by TOPSIS
//! ([`crate::placement`]) among those free over its window.

use super::State;
use crate::bits::Bits;
use crate::placement::{self, Scores, Weights};
use crate::plan::Profile;
use crate::time::Time;

impl State {
    /// `k` processors of `cand` (all free in the `all` layer over
    /// `[s, s + wt)`) for cloud job `idx`, best TOPSIS closeness first.
    ///
    /// Every processor of `cand` is a candidate. At one start, completion
    /// and slack are the same for all of them (they separate none, and
    /// TOPSIS gives them no say); what differs is
    /// - the **margin**: how long after the job's end the HPC layer next
    ///   plans work on the processor (an HPC plan that moves earlier, or new
    ///   HPC work, takes such a processor back first); a processor with no
    ///   HPC work planned after the job scores the largest margin seen plus
    ///   the job's walltime, safer than any;
    /// - the **fragmentation** left: the idle gap between the job's end and
    ///   the next cloud work planned on the processor, 0 when HPC work or
    ///   nothing comes next (a snug fit strands no idle time; a gap before
    ///   HPC work is the margin, not counted twice).
    ///
    /// Ties keep first fit's order (highest ids first, away from where HPC
    /// work lands), so TOPSIS departs from it only where the criteria differ.
    ///
    /// Cost: one sweep per layer over the plan's breakpoints after the end,
    /// `O(B·W)`, plus `O(c + k log k)` for the `c` candidates.
    pub(super) fn topsis_pick(&self, weights: &Weights, idx: usize, cand: &Bits, s: Time) -> Bits {
        let job = self.job(idx);
        let end = s.saturating_add(job.walltime);
        // Highest ids first: first fit's preference, kept on ties.
        let procs: Vec<u32> = cand.iter().rev().collect();
        let hpc_next = next_busy(&self.hpc, cand, end);
        let any_next = next_busy(self.all(), cand, end);
        let lookup = |table: &[(u32, Time)], p: u32| {
            table
                .binary_search_by_key(&p, |&(q, _)| q)
                .ok()
                .map(|i| table[i].1)
        };
        let secs = |t: Time| t.as_secs_f64();
        let next_hpc: Vec<Option<Time>> = procs.iter().map(|&p| lookup(&hpc_next, p)).collect();
        let margins = placement::margins(
            &next_hpc
                .iter()
                .map(|t| t.map(|t| secs(t) - secs(end)))
                .collect::<Vec<_>>(),
            secs(job.walltime),
        );
        let (completion, slack) = placement::time_criteria(self.now, end, job.deadline());
        let scores: Vec<Scores> = procs
            .iter()
            .zip(&next_hpc)
            .zip(margins)
            .map(|((&p, &hpc), margin)| {
                // Only a gap before the next *cloud* work strands idle time;
                // a gap before HPC work is the margin, not counted twice.
                let fragmentation = match lookup(&any_next, p) {
                    Some(next) if hpc.map_or(true, |h| next < h) => secs(next) - secs(end),
                    _ => 0.0,
                };
                [completion, slack, margin, fragmentation]
            })
            .collect();
        let mut bits = Bits::empty(self.width);
        for i in placement::best(&scores, weights, job.procs as usize) {
            bits.set(procs[i]);
        }
        bits
    }
}

/// For each processor of `cand` that `profile` next plans busy at or after
/// `from`, `(processor, when)`, sorted by processor.
fn next_busy(profile: &Profile, cand: &Bits, from: Time) -> Vec<(u32, Time)> {
    let mut out = Vec::new();
    let mut remaining = cand.clone();
    for (t, free) in profile.segments_from(from) {
        let busy = remaining.andnot(free);
        if busy.count() > 0 {
            out.extend(busy.iter().map(|p| (p, t.max(from))));
            remaining.and_assign(free);
            if remaining.count() == 0 {
                break;
            }
        }
    }
    out.sort_unstable_by_key(|&(p, _)| p);
    out
}
