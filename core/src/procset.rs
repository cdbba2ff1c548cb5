//! Sets of processor ids, written as Batsim interval sets (`"1-3 5 7"`).

use std::fmt;

/// A set of processor ids `0..m`, stored as sorted, disjoint, non-adjacent
/// closed ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProcSet {
    ranges: Vec<(u32, u32)>,
}

impl ProcSet {
    /// The empty set.
    pub fn new() -> ProcSet {
        ProcSet::default()
    }

    /// `lo..=hi`.
    pub fn range(lo: u32, hi: u32) -> ProcSet {
        todo!("core helper")
    }

    /// From any ids, in any order, with duplicates.
    pub fn from_ids(ids: impl IntoIterator<Item = u32>) -> ProcSet {
        todo!("core helper")
    }

    /// Number of processors.
    pub fn len(&self) -> u32 {
        todo!("core helper")
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
        todo!("core helper")
    }
}

/// Error of [`ProcSet::from_str`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseProcSetError {
    /// The offending token.
    pub token: String,
}

impl fmt::Display for ParseProcSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad interval set element {:?}: expected `N` or `A-B` with A <= B", self.token)
    }
}

impl std::error::Error for ParseProcSetError {}

/// Parses any form Batsim accepts: space-separated `N` or `A-B` in any order,
/// overlapping or adjacent (`"5 2-2 7 1-3"`).
impl std::str::FromStr for ProcSet {
    type Err = ParseProcSetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        todo!("core helper")
    }
}

/// The canonical interval set: `"1-3 5 7"`.
impl fmt::Display for ProcSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!("core helper")
    }
}
