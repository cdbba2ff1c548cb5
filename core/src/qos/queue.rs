//! The pending queue, kept in lanes so that a scheduler run never sorts it:
//! a lane holds the requests whose order among themselves never changes
//! while they wait (a class, by `K` under qos-driven or by admission under
//! priority; a tenant by admission under owner-share), grouped by the slots
//! they ask for, so that a run can go straight to a lane's next request
//! that asks for no more than a host could offer ([`super::policy::Rules::reach`]).

use crate::qos::policy::Ordered;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;

/// A waiting request in its lane: (key within the lane, admission rank, index).
pub(super) type Entry = (Ordered, u64, usize);

/// Slots asked → the lane's requests that ask that many.
type Lane = BTreeMap<u32, BTreeSet<Entry>>;

/// The pending queue.
pub(super) struct PendingQueue {
    lanes: Vec<Lane>,
    /// Where each waiting request is: its lane, entry and slots.
    place: HashMap<usize, (usize, Entry, u32)>,
}

impl PendingQueue {
    pub(super) fn new(lanes: usize) -> PendingQueue {
        PendingQueue {
            lanes: (0..lanes).map(|_| Lane::new()).collect(),
            place: HashMap::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.place.len()
    }

    pub(super) fn lanes(&self) -> usize {
        self.lanes.len()
    }

    /// Every waiting request (in no particular order).
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.place.keys().copied()
    }

    /// Request `idx` waits in `lane` at `within` (its key in the lane).
    pub(super) fn insert(&mut self, idx: usize, lane: usize, within: f64, order: u64, procs: u32) {
        let entry = (Ordered(within), order, idx);
        self.lanes[lane].entry(procs).or_default().insert(entry);
        self.place.insert(idx, (lane, entry, procs));
    }

    /// Does request `idx` wait?
    pub(super) fn contains(&self, idx: usize) -> bool {
        self.place.contains_key(&idx)
    }

    /// Request `idx` no longer waits.
    pub(super) fn remove(&mut self, idx: usize) {
        let Some((lane, entry, procs)) = self.place.remove(&idx) else {
            return;
        };
        let l = &mut self.lanes[lane];
        if let Some(set) = l.get_mut(&procs) {
            set.remove(&entry);
            if set.is_empty() {
                l.remove(&procs);
            }
        }
    }

    /// The fewest slots a request of `lane` asks (`u32::MAX` when it is empty).
    pub(super) fn min_procs(&self, lane: usize) -> u32 {
        self.lanes[lane].keys().next().copied().unwrap_or(u32::MAX)
    }

    /// The first request of `lane` asking at most `max_procs` slots whose
    /// place in the whole queue comes after `after` (the place of the
    /// request a run is at, `None` before the first). A place is
    /// `(primary, rank)`: `primary` is the lane's own when it has one
    /// (`lane_primary`), else the request's key in the lane.
    pub(super) fn first_after(
        &self,
        lane: usize,
        lane_primary: Option<f64>,
        after: Option<(f64, u64)>,
        max_procs: u32,
    ) -> Option<usize> {
        let from = match after {
            None => Bound::Unbounded,
            Some((at, rank)) => match lane_primary {
                Some(p) => match p.total_cmp(&at) {
                    Ordering::Less => return None,
                    Ordering::Greater => Bound::Unbounded,
                    Ordering::Equal => Bound::Excluded((Ordered(0.0), rank, usize::MAX)),
                },
                None => Bound::Excluded((Ordered(at), rank, usize::MAX)),
            },
        };
        self.lanes[lane]
            .range(..=max_procs)
            .filter_map(|(_, set)| set.range((from, Bound::Unbounded)).next())
            .min()
            .map(|e| e.2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_resume_after_a_place() {
        let mut q = PendingQueue::new(2);
        q.insert(10, 0, 5.0, 1, 2);
        q.insert(11, 0, 7.0, 2, 1);
        q.insert(12, 1, 0.0, 3, 4);
        assert_eq!(q.min_procs(0), 1);
        let any = u32::MAX;
        // A lane keyed by its requests: resume strictly after (6.0, 9).
        assert_eq!(q.first_after(0, None, Some((6.0, 9)), any), Some(11));
        assert_eq!(q.first_after(0, None, Some((5.0, 1)), any), Some(11));
        assert_eq!(q.first_after(0, None, None, any), Some(10));
        // Only requests asking at most one slot.
        assert_eq!(q.first_after(0, None, None, 1), Some(11));
        assert_eq!(q.first_after(1, None, None, 3), None);
        // A lane with its own primary: all before, all after, or by rank.
        assert_eq!(q.first_after(1, Some(-2.0), Some((-1.0, 0)), any), None);
        assert_eq!(q.first_after(1, Some(-2.0), Some((-3.0, 9)), any), Some(12));
        assert_eq!(q.first_after(1, Some(-2.0), Some((-2.0, 2)), any), Some(12));
        assert_eq!(q.first_after(1, Some(-2.0), Some((-2.0, 3)), any), None);
        q.remove(11);
        assert_eq!(q.min_procs(0), 2);
        assert_eq!(q.len(), 2);
        q.remove(10);
        assert_eq!(q.min_procs(0), u32::MAX);
    }
}
