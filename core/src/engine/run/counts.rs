//! The HPC layer as the processors free now, for FCFS and EASY while
//! nothing but their own rule reads the plan.
//!
//! With only running jobs in the HPC layer (FCFS and EASY reserve nothing
//! but the head, and the head's reservation is only read by cloud work and
//! by the plan's readers), every decision the two policies make depends on
//! two things: which processors are free now, and when the running jobs'
//! walltimes end (EASY's shadow time). Both are at hand without the
//! availability profile: the free set here, the walltime ends in
//! `State::deadlines`. So while the layer is *counting* a start or an end
//! costs a bitset operation instead of a pass over the profile's
//! breakpoints, and a pass places no reservation.
//!
//! The profile is materialised ([`State::materialize`]) the first time
//! anything else needs it, and the engine plans on it from then on, exactly
//! as it did before the switch: when a cloud job arrives, a batch system's
//! plan is mirrored, the area is resized, or a running job outlives its
//! walltime (its hold is a reservation in the future). Readers that only
//! look (`predict`, `slots`, `refusal`, `job_state`) get the same profile
//! built on the side and kept until the next start or end.
//!
//! Decisions are those of the profile: with only running jobs in the plan
//! the free processors never shrink over time, so the earliest fit of the
//! head is the first walltime end at which enough are free, and the
//! processors free over its whole run are those free at that end.

use super::*;
use std::borrow::Cow;

/// The counted HPC layer: the processors no running HPC job holds.
#[derive(Clone, Debug)]
pub(super) struct Counted {
    free: Bits,
    /// How many (`free.count()`, asked at every step of an EASY pass).
    n_free: u32,
}

impl State {
    /// May the HPC layer of an engine with this configuration start counted?
    /// FCFS and EASY under hpc-first, on a machine without maintenance
    /// windows or a scheduled resize, choosing processors by id.
    pub(super) fn counts_from_start(cfg: &EngineConfig) -> bool {
        matches!(cfg.policy, Policy::Fcfs | Policy::Easy)
            && cfg.scheduling == Scheduling::HpcFirst
            && cfg.maintenance.is_empty()
            && cfg.area_schedule.is_empty()
            && cfg.victims != crate::engine::Victims::Ranked
    }

    pub(super) fn new_counted(width: u32) -> Counted {
        Counted {
            free: Bits::range(width, 0, width),
            n_free: width,
        }
    }

    /// Is the HPC layer counted (no profile kept for it)?
    pub(super) fn counting(&self) -> bool {
        self.counted.is_some()
    }

    /// The processors of `mask` free now in the HPC layer. (Counted, the
    /// layer holds HPC jobs only, which may use every processor: `mask` is
    /// [`Mask::All`].)
    pub(super) fn hpc_free_now(&self, mask: Mask) -> u32 {
        match &self.counted {
            Some(c) => {
                debug_assert_eq!(mask, Mask::All, "a counted layer holds HPC jobs only");
                c.n_free
            }
            None => self.hpc.free_count_at(self.now, mask),
        }
    }

    /// The processors of `mask` free in the HPC layer from now until `end`
    /// (counted: those free now, which stay free until any end).
    pub(super) fn hpc_free_until(&self, end: Time, mask: Mask) -> Cow<'_, Bits> {
        if let Some(c) = &self.counted {
            debug_assert_eq!(mask, Mask::All, "a counted layer holds HPC jobs only");
            return Cow::Borrowed(&c.free);
        }
        let mut free = self.hpc.free_over(self.now, end);
        free.and_assign(self.mask_bits(mask));
        Cow::Owned(free)
    }

    /// EASY's shadow time for a head of `k` processors of `mask` running
    /// `wt`: its earliest fit in the HPC layer from now, and how many
    /// processors of `mask` are free over the whole of that run.
    pub(super) fn shadow(&self, k: u32, wt: Time, mask: Mask) -> Option<(Time, u32)> {
        if !self.counting() {
            let (shadow, _) = self.hpc.earliest_fit(k, wt, self.now, mask)?;
            let spare = self.hpc.free_over(shadow, shadow + wt);
            return Some((shadow, spare.and_count(self.mask_bits(mask))));
        }
        let mut available = self.hpc_free_now(mask);
        if available >= k {
            return Some((self.now, available));
        }
        let mut shadow = None;
        for &(end, idx) in &self.deadlines {
            if shadow.is_some_and(|s| end > s) {
                break;
            }
            // Every job ending at the shadow time frees its processors then.
            available += self.job(idx).procs;
            if shadow.is_none() && available >= k {
                shadow = Some(end);
            }
        }
        Some((shadow?, available))
    }

    /// While counting, an HPC job takes `bits` (it starts now, `taken`) or
    /// gives them back (it ended); nothing when the layer is a profile.
    pub(super) fn count_change(&mut self, bits: &Bits, taken: bool) {
        let Some(counted) = self.counted.as_mut() else {
            return;
        };
        if taken {
            counted.n_free -= counted.free.remove_counting(bits);
        } else {
            counted.n_free += counted.free.insert_counting(bits);
        }
        self.counted_plan.take();
    }

    /// The HPC layer's plan: the profile, or while counting the one the
    /// counts stand for (built on the first read after a change).
    pub(super) fn hpc_plan(&self) -> &Profile {
        if self.counted.is_none() {
            return &self.hpc;
        }
        &self.counted_plan.get_or_init(|| self.counted_profile()).0
    }

    /// Where the head of the queue is reserved while counting (its start).
    pub(super) fn counted_head_start(&self) -> Option<Time> {
        self.counted.as_ref()?;
        self.counted_plan.get_or_init(|| self.counted_profile()).1
    }

    /// The profile the counted layer stands for: the running HPC jobs on
    /// their processors until their walltime ends, and the head of the
    /// queue at its earliest fit (as a pass on the profile leaves it); the
    /// head's start.
    fn counted_profile(&self) -> (Profile, Option<Time>) {
        let mut plan = self.running_profile();
        let mut head_start = None;
        if let Some(h) = self.head_res.filter(|&h| self.jobs[h].st == St::Queued) {
            let job = self.job(h);
            let (k, wt) = (job.procs, job.walltime);
            if let Some((s, cand)) = plan.earliest_fit(k, wt, self.now, Mask::All) {
                let bits = self.lowest_by_tier(&cand, k);
                plan.reserve(&bits, s, s + wt);
                head_start = Some(s);
            }
        }
        (plan, head_start)
    }

    /// Stop counting: the HPC layer becomes the profile it stands for, with
    /// the head's reservation placed by the engine's own path (as the last
    /// pass would have placed it: nothing the HPC layer holds changed since,
    /// or a pass is due and places it again), and every later event updates
    /// the profile.
    pub(super) fn materialize(&mut self, cfg: &EngineConfig) {
        if self.counted.take().is_none() {
            return;
        }
        self.counted_plan.take();
        self.hpc = self.running_profile();
        if let Some(h) = self.head_res.take().filter(|&h| self.jobs[h].st == St::Queued) {
            self.place_hpc(cfg, h, self.now);
            if let Some((s, _)) = self.jobs[h].res {
                self.hpc_timers.remove(&(s, h));
            }
            self.head_res = Some(h);
        }
    }

    /// See [`crate::Engine::keep_the_plan`].
    pub(in crate::engine) fn keep_the_plan(&mut self, cfg: &EngineConfig) {
        self.materialize(cfg);
    }

    /// The profile of the running HPC jobs alone (no reservation).
    fn running_profile(&self) -> Profile {
        let busy: Vec<(Bits, Time, Time)> = self
            .running_hpc
            .sorted()
            .into_iter()
            .filter_map(|idx| {
                let (_, bits) = self.jobs[idx].res.as_ref()?;
                Some((bits.clone(), self.now, self.jobs[idx].occ_end))
            })
            .collect();
        let (mut plan, _) = Profile::from_windows(self.width, self.area.clone(), &busy, Vec::new());
        plan.version_after(&self.hpc);
        plan
    }
}
