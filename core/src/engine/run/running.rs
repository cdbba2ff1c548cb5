//! The running HPC jobs, as a set of job indices that a start and an end
//! change in a few instructions.
//!
//! Every HPC job joins the set when it starts and leaves it when it ends,
//! while only rare questions read it whole (a plan built from the running
//! jobs, a shell's report of a start, an eviction's blame), and they read
//! it in index order: the first in that order of those that qualify
//! ([`RunningSet::iter`] and `min`), or all of them ([`RunningSet::sorted`]).
//! A B-tree kept that order at every start and end instead.

/// Job indices, each with its slot in the member list.
#[derive(Clone, Debug, Default)]
pub(super) struct RunningSet {
    /// The members, in no order.
    members: Vec<usize>,
    /// Each job index's position in `members`; [`ABSENT`] when not a member.
    slot: Vec<u32>,
}

/// A job index not in the set.
const ABSENT: u32 = u32::MAX;

impl RunningSet {
    /// Add `idx`; false if it was in.
    pub fn insert(&mut self, idx: usize) -> bool {
        if self.contains(idx) {
            return false;
        }
        if idx >= self.slot.len() {
            self.slot.resize((idx + 1).max(2 * self.slot.len()), ABSENT);
        }
        self.slot[idx] = u32::try_from(self.members.len()).expect("fewer than 2^32 running jobs");
        self.members.push(idx);
        true
    }

    /// Take `idx` out; false if it was not in.
    pub fn remove(&mut self, idx: usize) -> bool {
        let Some(&at) = self.slot.get(idx).filter(|&&at| at != ABSENT) else {
            return false;
        };
        self.slot[idx] = ABSENT;
        self.members.swap_remove(at as usize);
        if let Some(&moved) = self.members.get(at as usize) {
            self.slot[moved] = at;
        }
        true
    }

    /// Is `idx` in?
    pub fn contains(&self, idx: usize) -> bool {
        self.slot.get(idx).is_some_and(|&at| at != ABSENT)
    }

    /// Members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// No member?
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The members, in no order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.members.iter().copied()
    }

    /// The members in index order.
    pub fn sorted(&self) -> Vec<usize> {
        let mut sorted = self.members.clone();
        sorted.sort_unstable();
        sorted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Any sequence of joins and leaves reads back as an ordered set.
        #[test]
        fn it_reads_as_an_ordered_set(steps in prop::collection::vec((any::<bool>(), 0usize..80), 0..300)) {
            let (mut set, mut plain) = (RunningSet::default(), BTreeSet::new());
            for (join, idx) in steps {
                if join {
                    prop_assert_eq!(set.insert(idx), plain.insert(idx));
                } else {
                    prop_assert_eq!(set.remove(idx), plain.remove(&idx));
                }
                prop_assert_eq!(set.len(), plain.len());
                prop_assert_eq!(set.is_empty(), plain.is_empty());
                prop_assert_eq!(set.contains(idx), plain.contains(&idx));
                prop_assert_eq!(set.sorted(), plain.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(set.iter().min(), plain.first().copied());
            }
        }
    }
}
