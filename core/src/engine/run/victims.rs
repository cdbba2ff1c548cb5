//! Which running cloud jobs give way when HPC work takes processors of the
//! area, under [`Victims::Ranked`]: an eviction policy's order (ranks the
//! shell gives with [`super::super::Engine::rank_victims`]) instead of
//! whichever cloud jobs hold the processors the policy's plan named.
//!
//! The choice never changes an HPC decision. It applies only where every
//! processor an HPC job could take in the area has the same HPC future:
//! FCFS and EASY hold no reservation but the head's (given up at each
//! pass), so under them, without maintenance windows
//! ([`EngineConfig::validate`] refuses anything else), every processor
//! free over a job's window is free from then on, and trading one for
//! another only renames processors. Outside the area HPC work takes the
//! same processors as without ranks (cloud jobs never run there), so each
//! tier keeps its count.
//!
//! Inside the area the job takes, in this order: processors no running
//! cloud job holds past its start (free ones, and those of jobs already
//! leaving then: ending, or evicted by an earlier plan); then those of the
//! running cloud jobs in rank order (the shell's smallest rank first;
//! unranked jobs before every ranked one, the most recently submitted
//! first), as few jobs as cover the need — a job taken early that a later
//! one made unnecessary is given back.

use super::super::{EngineConfig, Victims};
use super::State;
use crate::bits::Bits;
use crate::engine::Policy;
use crate::job::JobId;
use crate::qos::policy::Key;
use crate::time::Time;
use std::cmp::Reverse;

impl State {
    /// Replace the ranks of cloud jobs (smallest evicted first).
    pub(in crate::engine) fn rank_victims(&mut self, ranks: impl IntoIterator<Item = (JobId, Key)>) {
        self.victim_ranks = ranks.into_iter().collect();
    }

    /// `k` processors of `cand` for an HPC job starting at `s`, giving way
    /// by rank (see the module docs).
    pub(super) fn choose_ranked(&self, cand: &Bits, k: u32, s: Time) -> Bits {
        let mut chosen = Bits::empty(self.width);
        let need = k - chosen.take_lowest(&cand.andnot(&self.area), k);
        if need == 0 {
            return chosen;
        }
        let inside = cand.and(&self.area);
        // Running cloud jobs holding processors of `inside` past `s`.
        let mut holders: Vec<(usize, Bits)> = self
            .running_cloud
            .iter()
            .filter(|&&i| self.jobs[i].occ_end > s)
            .filter_map(|&i| {
                let held = &self.jobs[i].res.as_ref()?.1;
                (held.and_count(&inside) > 0).then(|| (i, held.and(&inside)))
            })
            .collect();
        let mut free = inside.clone();
        for (_, bits) in &holders {
            free.andnot_assign(bits);
        }
        if free.count() >= need {
            chosen.take_lowest(&free, need);
            return chosen;
        }
        // Unranked first, then by rank; the most recently submitted first among equals.
        holders.sort_by_cached_key(|&(i, _)| (self.victim_ranks.get(&self.job(i).id).cloned(), Reverse(i)));
        let mut taken: Vec<&Bits> = Vec::new();
        let mut count = free.count();
        for (_, bits) in &holders {
            if count >= need {
                break;
            }
            count += bits.count();
            taken.push(bits);
        }
        // Give back, latest first, a victim the others already cover.
        let mut index = taken.len();
        while index > 0 {
            index -= 1;
            if count - taken[index].count() >= need {
                count -= taken[index].count();
                taken.remove(index);
            }
        }
        chosen.take_lowest(&free, need);
        for bits in taken {
            let have = chosen.count();
            if have >= k {
                break;
            }
            chosen.take_lowest(bits, k - have);
        }
        chosen
    }
}

impl EngineConfig {
    /// Why [`Victims::Ranked`] cannot go with the rest of this config, if it cannot.
    pub fn ranked_victims_conflict(&self) -> Option<String> {
        if self.victims != Victims::Ranked {
            return None;
        }
        if !matches!(self.policy, Policy::Fcfs | Policy::Easy) {
            return Some(format!(
                "evicting by an eviction policy's order needs fcfs or easy (policy is {}): under reservations \
                 which processors an HPC job takes is part of its plan",
                self.policy
            ));
        }
        if self.scheduling != crate::engine::Scheduling::HpcFirst {
            return Some(
                "evicting by an eviction policy's order needs hpc-first: shared-queue never evicts".into(),
            );
        }
        if !self.maintenance.is_empty() {
            return Some(
                "evicting by an eviction policy's order cannot go with maintenance windows: processors with a \
                 window ahead are not interchangeable"
                    .into(),
            );
        }
        None
    }
}
