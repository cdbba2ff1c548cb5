//! Sets of processor ids, written as Batsim interval sets (`"1-3 5 7"`).

use std::fmt;

/// A set of processor ids `0..m`, stored as sorted, disjoint, non-adjacent
/// closed ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProcSet {
    ranges: Ranges,
}

/// The ranges of a [`ProcSet`]: up to two kept inline, so the sets most jobs
/// get (one or two runs of processors: 92 % of LANL-CM5's under FCFS) cost no
/// allocation when they are built, cloned into a decision, and dropped.
pub(crate) type Ranges = smallvec::SmallVec<[(u32, u32); 2]>;

impl ProcSet {
    /// The empty set.
    pub fn new() -> ProcSet {
        ProcSet::default()
    }

    /// `lo..=hi`.
    /// An inverted range (`lo > hi`) gives the empty set.
    pub fn range(lo: u32, hi: u32) -> ProcSet {
        if lo > hi {
            return ProcSet::new();
        }
        ProcSet {
            ranges: smallvec::smallvec![(lo, hi)],
        }
    }

    /// From any ids, in any order, with duplicates.
    pub fn from_ids(ids: impl IntoIterator<Item = u32>) -> ProcSet {
        let mut v: Vec<u32> = ids.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        ProcSet::from_sorted_ids(v)
    }

    /// From ids already in increasing order without duplicates (cheaper than
    /// [`ProcSet::from_ids`]; out-of-order input is still handled correctly, just slower).
    pub fn from_sorted_ids(ids: impl IntoIterator<Item = u32>) -> ProcSet {
        let mut ranges = Ranges::new();
        let mut sorted = true;
        for id in ids {
            match ranges.last_mut() {
                Some((_, hi)) if *hi != u32::MAX && id == *hi + 1 => *hi = id,
                Some((_, hi)) if id <= *hi => {
                    sorted = false;
                    ranges.push((id, id));
                }
                _ => ranges.push((id, id)),
            }
        }
        if !sorted {
            return ProcSet::from_ranges(ranges);
        }
        ProcSet { ranges }
    }

    /// From closed ranges already sorted, disjoint and not touching (what
    /// [`ProcSet`] keeps).
    pub(crate) fn from_sorted_runs(ranges: Ranges) -> ProcSet {
        debug_assert!(ranges.windows(2).all(|w| w[0].1 + 1 < w[1].0));
        ProcSet { ranges }
    }

    /// From closed ranges in any order, overlapping or adjacent; inverted ranges are ignored.
    pub fn from_ranges(ranges: impl IntoIterator<Item = (u32, u32)>) -> ProcSet {
        let mut v: Vec<(u32, u32)> = ranges.into_iter().filter(|(lo, hi)| lo <= hi).collect();
        v.sort_unstable();
        let mut out = Ranges::with_capacity(v.len());
        for (lo, hi) in v {
            match out.last_mut() {
                Some((_, last_hi)) if (*last_hi as u64) + 1 >= lo as u64 => *last_hi = (*last_hi).max(hi),
                _ => out.push((lo, hi)),
            }
        }
        ProcSet { ranges: out }
    }

    /// Number of processors (saturates at `u32::MAX`).
    pub fn len(&self) -> u32 {
        self.ranges.iter().fold(0u32, |acc, &(lo, hi)| {
            acc.saturating_add((hi - lo).saturating_add(1))
        })
    }

    /// True if `id` is in the set (binary search over the ranges).
    pub fn contains(&self, id: u32) -> bool {
        let i = self.ranges.partition_point(|&(_, hi)| hi < id);
        self.ranges.get(i).is_some_and(|&(lo, _)| lo <= id)
    }

    /// The largest id, if any.
    pub fn max(&self) -> Option<u32> {
        self.ranges.last().map(|&(_, hi)| hi)
    }

    /// The union of two sets.
    pub fn union(&self, other: &ProcSet) -> ProcSet {
        ProcSet::from_ranges(self.ranges.iter().chain(other.ranges.iter()).copied())
    }

    /// True if no processor.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Ids in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.ranges.iter().flat_map(|&(lo, hi)| lo..=hi)
    }

    /// The closed ranges, sorted.
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    /// True if the two sets share a processor.
    pub fn intersects(&self, other: &ProcSet) -> bool {
        let (mut i, mut j) = (0, 0);
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a, b) = (self.ranges[i], other.ranges[j]);
            if a.1 < b.0 {
                i += 1;
            } else if b.1 < a.0 {
                j += 1;
            } else {
                return true;
            }
        }
        false
    }
}

/// Error of parsing a [`ProcSet`] (its `FromStr`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseProcSetError {
    /// The offending token.
    pub token: String,
}

impl fmt::Display for ParseProcSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad interval set element {:?}: expected `N` or `A-B` with A <= B",
            self.token
        )
    }
}

impl std::error::Error for ParseProcSetError {}

/// Parses any form Batsim accepts: space-separated `N` or `A-B` in any order,
/// overlapping or adjacent (`"5 2-2 7 1-3"`).
impl std::str::FromStr for ProcSet {
    type Err = ParseProcSetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |t: &str| ParseProcSetError { token: t.to_string() };
        let mut ranges = Vec::new();
        for token in s.split_whitespace() {
            let (lo, hi) = match token.split_once('-') {
                Some((a, b)) => (
                    a.parse::<u32>().map_err(|_| bad(token))?,
                    b.parse::<u32>().map_err(|_| bad(token))?,
                ),
                None => {
                    let n = token.parse::<u32>().map_err(|_| bad(token))?;
                    (n, n)
                }
            };
            if lo > hi {
                return Err(bad(token));
            }
            ranges.push((lo, hi));
        }
        Ok(ProcSet::from_ranges(ranges))
    }
}

/// The canonical interval set: `"1-3 5 7"`.
impl fmt::Display for ProcSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(lo, hi)) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if lo == hi {
                write!(f, "{lo}")?;
            } else {
                write!(f, "{lo}-{hi}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_canonical() {
        assert_eq!(ProcSet::from_ids([7, 1, 2, 3, 5, 2]).to_string(), "1-3 5 7");
        assert_eq!(ProcSet::range(0, 3).to_string(), "0-3");
        assert_eq!(ProcSet::new().to_string(), "");
        assert_eq!(ProcSet::range(4, 4).to_string(), "4");
    }

    #[test]
    fn parse_any_form() {
        let p: ProcSet = "5 2-2 7 1-3".parse().unwrap();
        assert_eq!(p.to_string(), "1-3 5 7");
        assert_eq!(p.len(), 5);
        let q: ProcSet = "0-3 2-8 9".parse().unwrap();
        assert_eq!(q.ranges(), &[(0, 9)]);
        assert_eq!("".parse::<ProcSet>().unwrap(), ProcSet::new());
        assert_eq!("3-1".parse::<ProcSet>().unwrap_err().token, "3-1");
        assert_eq!("a".parse::<ProcSet>().unwrap_err().token, "a");
        assert_eq!("1-".parse::<ProcSet>().unwrap_err().token, "1-");
        assert!("-1".parse::<ProcSet>().is_err());
    }

    #[test]
    fn membership_and_intersection() {
        let a: ProcSet = "0-3 8-9".parse().unwrap();
        let b: ProcSet = "4-7".parse().unwrap();
        assert!(!a.intersects(&b));
        assert!(a.intersects(&"9 20".parse().unwrap()));
        assert!(a.contains(9) && a.contains(0) && !a.contains(5));
        assert_eq!(a.union(&b).to_string(), "0-9");
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![0, 1, 2, 3, 8, 9]);
        assert_eq!(ProcSet::from_sorted_ids([3, 1, 2]).to_string(), "1-3");
        assert_eq!(ProcSet::range(0, u32::MAX).len(), u32::MAX);
    }
}
