//! Which processors a query of the plan may use: the whole machine or the
//! convergence area. The plan and its free runs both take one.

/// Which processors a query may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mask {
    /// Every processor.
    All,
    /// Only the convergence area.
    Area,
}

impl Mask {
    /// May a job of `self` use every processor a job of `other` may use
    /// (the area is part of the machine)?
    pub(crate) fn includes(self, other: Mask) -> bool {
        self == Mask::All || other == Mask::Area
    }
}
