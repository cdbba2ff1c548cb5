//! Which processors an HPC-layer job takes (lowest ids by tier, Algorithm
//! 3's stages, or the ranks of `Victims::Ranked`) and its reservation at
//! its earliest fit.

use super::*;

impl State {
    /// Processor preference of the convergence policy, applied to `tiers` in
    /// order: stage 1 (start now) takes the processors that stay idle longest
    /// first (the thesis's `v_1 ≥ … ≥ v_y`); later stages (holes between and
    /// after reservations) take them by id. Ties go to the lowest ids, or to
    /// the highest with `high_first` (cloud work), so that cloud and HPC work
    /// start from opposite ends of the area.
    ///
    /// Cost: `O(B·W)` for the `B` breakpoints until fewer than `k` of the
    /// candidates are still idle, no sorting.
    pub(super) fn stage_pick(
        &self,
        profile: &Profile,
        tiers: &[Bits],
        k: u32,
        s: Time,
        high_first: bool,
    ) -> Bits {
        let mut out = Bits::empty(self.width);
        let mut need = k;
        let take = |out: &mut Bits, from: &Bits, n: u32| {
            if high_first {
                out.take_highest(from, n)
            } else {
                out.take_lowest(from, n)
            }
        };
        for tier in tiers {
            if need == 0 {
                break;
            }
            if s > self.now {
                need -= take(&mut out, tier, need);
                continue;
            }
            // Sweep while at least `need` candidates are still idle.
            let mut remaining = tier.clone();
            let mut dropped: Option<Bits> = None;
            for (_, free) in profile.segments_from(s).skip(1) {
                let next = remaining.and(free);
                if next.count() < need {
                    dropped = Some(remaining.andnot(&next));
                    remaining = next;
                    break;
                }
                remaining = next;
            }
            need -= take(&mut out, &remaining, need);
            if let Some(d) = dropped {
                need -= take(&mut out, &d, need);
            }
        }
        out
    }

    /// Choose `k` processors for HPC work starting at `s` from `cand` (all
    /// free in the HPC layer): outside the area first, then inside, lowest ids
    /// first (convergence: its stage order inside each of the two groups).
    ///
    /// The choice deliberately ignores cloud work, so HPC decisions are
    /// exactly those the policy makes with no cloud job at all. Cloud jobs
    /// take the *highest* free ids of the area, away from where HPC work lands.
    pub(super) fn choose_hpc(&self, cfg: &EngineConfig, cand: &Bits, k: u32, s: Time) -> Bits {
        if cfg.victims == crate::engine::Victims::Ranked {
            return self.choose_ranked(cand, k, s);
        }
        if cfg.policy == Policy::Convergence {
            let tiers = [cand.andnot(&self.area), cand.and(&self.area)];
            return self.stage_pick(&self.hpc, &tiers, k, s, false);
        }
        self.lowest_by_tier(cand, k)
    }

    /// `k` of `cand`: those outside the area first, then inside, lowest ids
    /// first in each (FCFS, EASY, conservative).
    pub(super) fn lowest_by_tier(&self, cand: &Bits, k: u32) -> Bits {
        let mut b = Bits::empty(self.width);
        if self.area_count == self.width {
            // One tier: the lowest free ids.
            b.take_lowest(cand, k);
            return b;
        }
        let mut need = k;
        for t in [cand.andnot(&self.area), cand.and(&self.area)] {
            if need == 0 {
                break;
            }
            need -= b.take_lowest(&t, need);
        }
        b
    }

    /// Reserve an HPC job at its earliest fit from `now` (conservative/convergence).
    pub(super) fn place_hpc(&mut self, cfg: &EngineConfig, idx: usize, now: Time) {
        self.place_hpc_from(cfg, idx, now, None)
    }

    /// Reserve an HPC job at its earliest fit from `from`: now, or later when
    /// a compression knows that no start in `[now, from)` fits (see
    /// [`CompressionBounds`]).
    ///
    /// `prev` is the job's previous reservation when it is re-planned: if the
    /// start does not change and its processors are still free, it keeps them
    /// (so a re-plan that moves nothing changes nothing).
    ///
    /// Under `shared-queue` this plans cloud jobs too (on the area), and
    /// `convergence` places by Algorithm 3 ([`stages`]).
    pub(super) fn place_hpc_from(
        &mut self,
        cfg: &EngineConfig,
        idx: usize,
        from: Time,
        prev: Option<(Time, Bits)>,
    ) {
        let job = self.job(idx);
        let (k, wt) = (job.procs, job.walltime);
        let mask = self.mask_of(idx);
        let (s, bits) = if self.shared && cfg.policy == Policy::Convergence {
            let Some(placed) = self.stage_place(cfg, mask, k, wt, from) else {
                return;
            };
            placed
        } else {
            let Some((s, mut cand)) = self.hpc.earliest_fit(k, wt, from, mask) else {
                return;
            };
            cand.and_assign(self.mask_bits(mask));
            match prev {
                Some((ps, pb)) if ps == s && pb.is_subset(&cand) => (s, pb),
                _ => (s, self.choose_hpc(cfg, &cand, k, s)),
            }
        };
        self.hpc_occupy(idx, &bits, s, s + wt);
        self.hpc_timers.insert((s, idx));
        self.jobs[idx].res = Some((s, bits));
    }
}
