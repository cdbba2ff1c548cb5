//! A criterion's column in a ranking: its direction and its weight.

/// One criterion's column: whether more of it is better, and its weight
/// (the weights of a ranking are non-negative; they need not sum to 1, but
/// the seeds' profiles and AHP's weights do).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Criterion {
    /// More is better (a benefit); otherwise less is better (a cost).
    pub benefit: bool,
    /// The criterion's importance.
    pub weight: f64,
}

impl Criterion {
    /// A criterion where more is better.
    pub fn benefit(weight: f64) -> Criterion {
        Criterion {
            benefit: true,
            weight,
        }
    }

    /// A criterion where less is better.
    pub fn cost(weight: f64) -> Criterion {
        Criterion {
            benefit: false,
            weight,
        }
    }
}
