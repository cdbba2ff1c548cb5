//! The HPC layer's queue: its jobs in queue order, each with what a pass
//! reads of it before deciding anything.
//!
//! EASY reads the whole queue behind the head at every pass (which of the
//! waiting jobs fit now), so under a long queue that read is most of a
//! replay. Keeping each job's processors, walltime and mask beside its key
//! lets the read go down the queue alone, without a look-up per waiting job
//! in the job table.

use super::{mask_of_kind, QKey};
use crate::job::Job;
use crate::plan::Mask;
use crate::time::Time;
use std::collections::{BTreeMap, VecDeque};

/// What a pass reads of a queued job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// Processors.
    pub procs: u32,
    /// Walltime.
    pub walltime: Time,
    /// The processors it may use.
    pub mask: Mask,
}

impl Shape {
    /// `job`'s shape.
    pub fn of(job: &Job) -> Shape {
        Shape {
            procs: job.procs,
            walltime: job.walltime,
            mask: mask_of_kind(job.kind),
        }
    }
}

/// Queued jobs by (queue time, id, index), with their shapes.
///
/// Jobs nearly always join the queue behind every job in it (a replay
/// submits in time order), and leave it from the head (FCFS) or from
/// anywhere (EASY's backfilling), so the queue is a sorted ring of entries:
/// joining at the back is a push; leaving (found by a binary search, or at
/// the head at once) removes the entry near either end and marks it gone
/// elsewhere, and gone entries are dropped from both ends at once and from
/// the middle when they pass an eighth of the jobs.
/// A job whose key falls before the back (a job queued again with its first
/// queue time) goes to an ordered map beside it, and the two are read as one
/// sequence. Against a B-tree for everything, this saves the tree's
/// navigation and node allocation at every submission and start.
#[derive(Clone, Debug, Default)]
pub(super) struct Queue {
    /// Jobs that joined behind every other, in key order; `None` is a job
    /// gone, never at either end.
    ordered: VecDeque<(QKey, Option<Shape>)>,
    /// Jobs that joined before the back of `ordered`.
    late: BTreeMap<QKey, Shape>,
    /// Jobs in `ordered` (not gone).
    live: usize,
}

/// Entries from either end within which a leaving job's entry is removed
/// at once (moving at most that many), rather than marked gone.
const NEAR_AN_END: usize = 64;

impl Queue {
    /// Queue the job of `key` (a key not queued).
    pub fn insert(&mut self, key: QKey, shape: Shape) {
        if self.ordered.back().map_or(true, |(last, _)| *last < key) {
            self.ordered.push_back((key, Some(shape)));
            self.live += 1;
        } else {
            self.late.insert(key, shape);
        }
    }

    /// Take the job of `key` out; false if it was not queued.
    pub fn remove(&mut self, key: &QKey) -> bool {
        let at = match self.ordered.front() {
            Some((first, _)) if first == key => 0,
            _ => self.ordered.partition_point(|(k, _)| k < key),
        };
        match self.ordered.get(at) {
            Some((k, Some(_))) if k == key => {}
            _ => return self.late.remove(key).is_some(),
        }
        self.live -= 1;
        if at.min(self.ordered.len() - at) < NEAR_AN_END {
            // A few entries move: none left behind for the reads to cross.
            self.ordered.remove(at);
        } else {
            self.ordered[at].1 = None;
        }
        while self.ordered.front().is_some_and(|(_, shape)| shape.is_none()) {
            self.ordered.pop_front();
        }
        while self.ordered.back().is_some_and(|(_, shape)| shape.is_none()) {
            self.ordered.pop_back();
        }
        if self.ordered.len() > self.live + self.live / 8 + NEAR_AN_END {
            self.ordered.retain(|(_, shape)| shape.is_some());
        }
        true
    }

    /// The head's key.
    pub fn first(&self) -> Option<&QKey> {
        let ordered = self.ordered.front().map(|(key, _)| key);
        match (ordered, self.late.keys().next()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The keys, in queue order.
    pub fn iter(&self) -> impl Iterator<Item = &QKey> + '_ {
        self.entries().map(|(key, _)| key)
    }

    /// The jobs queued after `key` (queued or not), with their shapes, in
    /// queue order.
    pub fn after(&self, key: &QKey) -> Entries<'_> {
        let from = self.ordered.partition_point(|(k, _)| k <= key);
        Entries {
            ordered: self.ordered.range(from..),
            late: self
                .late
                .range((std::ops::Bound::Excluded(*key), std::ops::Bound::Unbounded))
                .peekable(),
            next_ordered: None,
        }
    }

    /// Every job's key and shape, in queue order: `ordered` and `late`
    /// merged.
    fn entries(&self) -> Entries<'_> {
        Entries {
            ordered: self.ordered.iter(),
            late: self.late.range(..).peekable(),
            next_ordered: None,
        }
    }

    /// Jobs queued.
    pub fn len(&self) -> usize {
        self.live + self.late.len()
    }

    /// Nothing queued?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// [`Queue::entries`] and [`Queue::after`]: both parts read in step, the
/// smaller key first.
pub(super) struct Entries<'q> {
    ordered: std::collections::vec_deque::Iter<'q, (QKey, Option<Shape>)>,
    late: std::iter::Peekable<std::collections::btree_map::Range<'q, QKey, Shape>>,
    /// The next live entry of `ordered`, once read and not yet given.
    next_ordered: Option<(&'q QKey, &'q Shape)>,
}

impl<'q> Iterator for Entries<'q> {
    type Item = (&'q QKey, &'q Shape);

    fn next(&mut self) -> Option<Self::Item> {
        let ordered = match self.next_ordered.take() {
            Some(entry) => Some(entry),
            None => self.ordered.find_map(|(key, shape)| Some((key, shape.as_ref()?))),
        };
        // Nearly always nothing came late: no comparison.
        let Some(&late) = self.late.peek() else {
            return ordered;
        };
        match ordered {
            Some(entry) if entry.0 < late.0 => Some(entry),
            _ => {
                self.next_ordered = ordered;
                self.late.next()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobId;
    use proptest::prelude::*;

    fn shape(procs: u32) -> Shape {
        Shape {
            procs,
            walltime: Time::from_secs(i64::from(procs)),
            mask: Mask::All,
        }
    }

    proptest! {
        /// Any sequence of joins (mostly behind every job, some before the
        /// back) and leaves (of queued jobs anywhere, or of jobs not queued)
        /// reads back as an ordered map of the same jobs, with queues long
        /// enough for entries marked gone in the middle.
        #[test]
        fn it_reads_as_an_ordered_map(steps in prop::collection::vec(
            (0u8..10, any::<u16>(), 1u32..9), 0..1500)
        ) {
            let (mut queue, mut plain) = (Queue::default(), BTreeMap::new());
            let mut next = 1000u64;
            for (what, pick, procs) in steps {
                let pick = u64::from(pick);
                let key = |at: u64| (Time::from_secs(at as i64 / 3), JobId(at), at as usize);
                match what {
                    // Join behind every job.
                    0..=4 => {
                        next += 1 + pick % 3;
                        queue.insert(key(next), shape(procs));
                        plain.insert(key(next), shape(procs));
                    }
                    // Join before the back (a key not queued).
                    5 => {
                        let k = key(pick % next);
                        if let std::collections::btree_map::Entry::Vacant(slot) = plain.entry(k) {
                            slot.insert(shape(procs));
                            queue.insert(k, shape(procs));
                        }
                    }
                    // Leave: a queued job anywhere, or a key not queued.
                    _ => {
                        let k = match plain.keys().nth(pick as usize % plain.len().max(1)) {
                            Some(&k) if what < 9 => k,
                            _ => key(pick),
                        };
                        prop_assert_eq!(queue.remove(&k), plain.remove(&k).is_some());
                    }
                }
                prop_assert_eq!(queue.len(), plain.len());
                prop_assert_eq!(queue.is_empty(), plain.is_empty());
                prop_assert_eq!(queue.first(), plain.keys().next());
                prop_assert!(queue.entries().eq(plain.iter()));
                prop_assert!(queue.iter().eq(plain.keys()));
                let from = key(pick % (next + 1));
                let after = plain.range((std::ops::Bound::Excluded(from), std::ops::Bound::Unbounded));
                prop_assert!(queue.after(&from).eq(after));
            }
            prop_assert!(queue.ordered.len() <= queue.live + queue.live / 8 + NEAR_AN_END);
        }
    }
}
