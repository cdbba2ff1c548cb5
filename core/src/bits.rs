//! A fixed-width processor bitset: the plan's working representation of a
//! set of processors (one bit per processor, 64 per word).
//!
//! With 2,560 processors a set is 40 words, so intersection, union and
//! population count cost a few dozen machine operations.

use crate::procset::ProcSet;

/// A set of processor ids `0..width`, one bit each.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Bits {
    words: Box<[u64]>,
}

impl Bits {
    /// No processor, room for `width` processors.
    pub(crate) fn empty(width: u32) -> Bits {
        Bits {
            words: vec![0u64; width.div_ceil(64) as usize].into_boxed_slice(),
        }
    }

    /// A set with room for no processor, made without allocating: what a
    /// set lent out for a moment leaves in its place.
    pub(crate) fn placeholder() -> Bits {
        Bits {
            words: Box::default(),
        }
    }

    /// How many processor ids the set has room for (a multiple of 64).
    pub(crate) fn capacity(&self) -> u32 {
        self.words.len() as u32 * 64
    }

    /// No processor, room for as many as `self`.
    pub(crate) fn empty_like(&self) -> Bits {
        Bits {
            words: vec![0u64; self.words.len()].into_boxed_slice(),
        }
    }

    /// Processors `lo..hi` (half-open), room for `width`.
    pub(crate) fn range(width: u32, lo: u32, hi: u32) -> Bits {
        let mut b = Bits::empty(width);
        let hi = hi.min(width);
        let mut i = lo;
        while i < hi {
            if i % 64 == 0 && hi - i >= 64 {
                b.words[(i / 64) as usize] = u64::MAX;
                i += 64;
            } else {
                b.set(i);
                i += 1;
            }
        }
        b
    }

    /// From a [`ProcSet`]; ids at or beyond `width` are dropped.
    pub(crate) fn from_procset(width: u32, set: &ProcSet) -> Bits {
        let mut b = Bits::empty(width);
        for &(lo, hi) in set.ranges() {
            b.or_assign(&Bits::range(width, lo, hi.saturating_add(1)));
        }
        b
    }

    /// Remove processor `i`.
    pub(crate) fn unset(&mut self, i: u32) {
        self.words[(i / 64) as usize] &= !(1u64 << (i % 64));
    }

    /// Add processor `i`.
    pub(crate) fn set(&mut self, i: u32) {
        self.words[(i / 64) as usize] |= 1u64 << (i % 64);
    }

    /// Is processor `i` in the set?
    pub(crate) fn get(&self, i: u32) -> bool {
        self.words
            .get((i / 64) as usize)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// Number of processors.
    pub(crate) fn count(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// `self ∩= other`.
    pub(crate) fn and_assign(&mut self, other: &Bits) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a &= b;
        }
    }

    /// `self ∪= other`.
    pub(crate) fn or_assign(&mut self, other: &Bits) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a |= b;
        }
    }

    /// `self ∖= other`.
    pub(crate) fn andnot_assign(&mut self, other: &Bits) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a &= !b;
        }
    }

    /// `self ∖= other`; returns how many ids left `self`. Only the words
    /// where `other` has ids are counted (a job's few words, not the machine's).
    pub(crate) fn remove_counting(&mut self, other: &Bits) -> u32 {
        let mut left = 0;
        for (a, &b) in self.words.iter_mut().zip(other.words.iter()) {
            if b != 0 {
                left += ones(*a & b);
                *a &= !b;
            }
        }
        left
    }

    /// `self ∪= other`; returns how many ids joined `self` (counted as in
    /// [`Bits::remove_counting`]).
    pub(crate) fn insert_counting(&mut self, other: &Bits) -> u32 {
        let mut joined = 0;
        for (a, &b) in self.words.iter_mut().zip(other.words.iter()) {
            if b != 0 {
                joined += ones(b & !*a);
                *a |= b;
            }
        }
        joined
    }

    /// `self = a ∩ b`, in place (no allocation; the three of the same width).
    pub(crate) fn assign_and(&mut self, a: &Bits, b: &Bits) {
        for ((w, x), y) in self.words.iter_mut().zip(a.words.iter()).zip(b.words.iter()) {
            *w = x & y;
        }
    }

    /// Call `f(id, joined)` for every id in exactly one of `before` and
    /// `self`, in increasing order: `joined` is true for the ids of `self`
    /// only. Costs a word operation per word plus one call per change.
    pub(crate) fn for_each_change(&self, before: &Bits, mut f: impl FnMut(u32, bool)) {
        for (wi, (&now, &was)) in self.words.iter().zip(before.words.iter()).enumerate() {
            let mut changed = now ^ was;
            while changed != 0 {
                let bit = changed.trailing_zeros();
                changed &= changed - 1;
                f(wi as u32 * 64 + bit, now & (1u64 << bit) != 0);
            }
        }
    }

    /// `self ∩ other`.
    pub(crate) fn and(&self, other: &Bits) -> Bits {
        let mut r = self.clone();
        r.and_assign(other);
        r
    }

    /// `self ∖ other`.
    pub(crate) fn andnot(&self, other: &Bits) -> Bits {
        let mut r = self.clone();
        r.andnot_assign(other);
        r
    }

    /// `|self ∩ other|`.
    pub(crate) fn and_count(&self, other: &Bits) -> u32 {
        self.words
            .iter()
            .zip(other.words.iter())
            .map(|(a, b)| (a & b).count_ones())
            .sum()
    }

    /// `self ⊆ other`.
    pub(crate) fn is_subset(&self, other: &Bits) -> bool {
        self.words
            .iter()
            .zip(other.words.iter())
            .all(|(a, b)| a & !b == 0)
    }

    /// The words that hold at least one processor: `first..last + 1`
    /// (empty for the empty set). Operations with a job's processors touch
    /// only these words, not the machine's width.
    pub(crate) fn span(&self) -> std::ops::Range<usize> {
        let first = self.words.iter().position(|&w| w != 0);
        let last = self.words.iter().rposition(|&w| w != 0);
        match (first, last) {
            (Some(first), Some(last)) => first..last + 1,
            _ => 0..0,
        }
    }

    /// Add `other` to `self` (`add`) or remove it, over the words `span`
    /// (where `other` has all its processors, see [`Bits::span`]); returns how
    /// many processors joined or left `self`, overall and inside `area`.
    pub(crate) fn update_counted(
        &mut self,
        other: &Bits,
        span: std::ops::Range<usize>,
        area: &Bits,
        add: bool,
    ) -> (u32, u32) {
        let (mut all, mut inside) = (0, 0);
        for w in span {
            let (word, theirs) = (self.words[w], other.words[w]);
            let changed = if add { theirs & !word } else { theirs & word };
            all += ones(changed);
            inside += ones(changed & area.words[w]);
            self.words[w] = word ^ changed;
        }
        (all, inside)
    }

    /// Processor ids in increasing order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let base = wi as u32 * 64;
            BitIter { w }.map(move |b| base + b)
        })
    }

    /// Add up to `k` of the lowest ids of `from` not already in `self`; returns how many.
    pub(crate) fn take_lowest(&mut self, from: &Bits, k: u32) -> u32 {
        let mut taken = 0;
        for (mine, theirs) in self.words.iter_mut().zip(from.words.iter()) {
            if taken == k {
                break;
            }
            taken += take_word(mine, theirs & !*mine, k - taken, false);
        }
        taken
    }

    /// Like [`Bits::take_lowest`] but from the highest ids down.
    pub(crate) fn take_highest(&mut self, from: &Bits, k: u32) -> u32 {
        let mut taken = 0;
        for (mine, theirs) in self.words.iter_mut().zip(from.words.iter()).rev() {
            if taken == k {
                break;
            }
            taken += take_word(mine, theirs & !*mine, k - taken, true);
        }
        taken
    }

    /// As a [`ProcSet`]: its runs of consecutive ids, found a word at a
    /// time (a start records one for every job).
    pub(crate) fn to_procset(&self) -> ProcSet {
        let mut ranges = crate::procset::Ranges::new();
        for (wi, &word) in self.words.iter().enumerate() {
            let base = wi as u32 * 64;
            let (mut w, mut offset) = (word, 0u32);
            while w != 0 {
                let zeros = w.trailing_zeros();
                w >>= zeros;
                offset += zeros;
                let ones = w.trailing_ones();
                let (lo, hi) = (base + offset, base + offset + ones - 1);
                match ranges.last_mut() {
                    Some((_, last)) if *last + 1 == lo => *last = hi,
                    _ => ranges.push((lo, hi)),
                }
                offset += ones;
                w = w.checked_shr(ones).unwrap_or(0);
            }
        }
        ProcSet::from_sorted_runs(ranges)
    }
}

/// The ids in one word. Words wholly busy or wholly free are the common
/// case on a machine whose jobs are laid out lowest first, and need no count
/// (a count is a dozen instructions on a CPU target without `popcnt`).
#[inline]
fn ones(word: u64) -> u32 {
    match word {
        0 => 0,
        u64::MAX => 64,
        _ => word.count_ones(),
    }
}

/// Add to `mine` up to `k` bits of `avail` (lowest first, or highest with
/// `high`); returns how many.
fn take_word(mine: &mut u64, mut avail: u64, k: u32, high: bool) -> u32 {
    let n = ones(avail);
    if n <= k {
        *mine |= avail;
        return n;
    }
    for _ in 0..k {
        let bit = if high {
            1u64 << (63 - avail.leading_zeros())
        } else {
            avail & avail.wrapping_neg()
        };
        *mine |= bit;
        avail &= !bit;
    }
    k
}

/// Iterates the set bits of one word, lowest first (and highest first from the back).
struct BitIter {
    w: u64,
}

impl Iterator for BitIter {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.w == 0 {
            return None;
        }
        let b = self.w.trailing_zeros();
        self.w &= self.w - 1;
        Some(b)
    }
}

impl DoubleEndedIterator for BitIter {
    fn next_back(&mut self) -> Option<u32> {
        if self.w == 0 {
            return None;
        }
        let b = 63 - self.w.leading_zeros();
        self.w &= !(1u64 << b);
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_count_iter() {
        let b = Bits::range(200, 3, 130);
        assert_eq!(b.count(), 127);
        assert_eq!(b.iter().next(), Some(3));
        assert_eq!(b.iter().next_back(), Some(129));
        assert!(Bits::range(200, 0, 200).get(199));
        assert!(!Bits::range(200, 0, 199).get(199));
    }

    proptest::proptest! {
        /// Word-at-a-time taking picks the ids one-at-a-time picking does.
        #[test]
        fn taking_matches_one_id_at_a_time(
            from in proptest::collection::vec(0u32..200, 0..120),
            held in proptest::collection::vec(0u32..200, 0..60),
            k in 0u32..150,
            high in proptest::bool::ANY,
        ) {
            let (mut from_bits, mut mine) = (Bits::empty(200), Bits::empty(200));
            from.iter().for_each(|&i| from_bits.set(i));
            held.iter().for_each(|&i| mine.set(i));
            let mut expected = mine.clone();
            let ids: Vec<u32> = if high { from_bits.iter().rev().collect() } else { from_bits.iter().collect() };
            let mut n = 0;
            for i in ids.into_iter().filter(|&i| !mine.get(i)).take(k as usize) {
                expected.set(i);
                n += 1;
            }
            let taken = if high { mine.take_highest(&from_bits, k) } else { mine.take_lowest(&from_bits, k) };
            proptest::prop_assert_eq!(taken, n);
            proptest::prop_assert_eq!(mine, expected);
        }

        /// Runs found a word at a time are the ranges of the ids one at a time.
        #[test]
        fn procset_runs_match_the_ids(ids in proptest::collection::vec(0u32..260, 0..200)) {
            let mut bits = Bits::empty(260);
            ids.iter().for_each(|&i| bits.set(i));
            proptest::prop_assert_eq!(bits.to_procset(), ProcSet::from_sorted_ids(bits.iter()));
        }
    }

    #[test]
    fn changes_between_two_sets_in_id_order() {
        let before = Bits::range(130, 0, 70);
        let after = Bits::range(130, 60, 130);
        let mut seen = Vec::new();
        after.for_each_change(&before, |id, joined| seen.push((id, joined)));
        let expected: Vec<(u32, bool)> = (0..60)
            .map(|i| (i, false))
            .chain((70..130).map(|i| (i, true)))
            .collect();
        assert_eq!(seen, expected);
        let mut both = Bits::empty(130);
        both.assign_and(&before, &after);
        assert_eq!(both, Bits::range(130, 60, 70));
    }

    #[test]
    fn take_lowest_and_highest() {
        let from = Bits::range(100, 10, 20);
        let mut lo = Bits::empty(100);
        assert_eq!(lo.take_lowest(&from, 3), 3);
        assert_eq!(lo.iter().collect::<Vec<_>>(), vec![10, 11, 12]);
        let mut hi = Bits::empty(100);
        assert_eq!(hi.take_highest(&from, 2), 2);
        assert_eq!(hi.iter().collect::<Vec<_>>(), vec![18, 19]);
        let mut all = Bits::empty(100);
        assert_eq!(all.take_lowest(&from, 50), 10);
    }

    #[test]
    fn set_algebra() {
        let a = Bits::range(130, 0, 70);
        let b = Bits::range(130, 60, 130);
        assert_eq!(a.and_count(&b), 10);
        assert!(Bits::range(130, 62, 65).is_subset(&a));
        assert_eq!(a.andnot(&b).count(), 60);
        assert_eq!(Bits::from_procset(130, &a.to_procset()), a);
    }

    #[test]
    fn counted_updates_touch_only_the_span_and_count_the_change() {
        let area = Bits::range(200, 0, 100);
        let job = Bits::range(200, 90, 140);
        assert_eq!(job.span(), 1..3);
        assert_eq!(Bits::empty(200).span(), 0..0);
        let mut free = Bits::range(200, 0, 200);
        assert_eq!(free.update_counted(&job, job.span(), &area, false), (50, 10));
        assert_eq!(free, Bits::range(200, 0, 200).andnot(&job));
        // Half of it already back: only the other half counts.
        free.or_assign(&Bits::range(200, 90, 115));
        assert_eq!(free.update_counted(&job, job.span(), &area, true), (25, 0));
        assert_eq!(free, Bits::range(200, 0, 200));
    }
}
