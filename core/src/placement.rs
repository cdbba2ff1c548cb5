//! Where to place a cloud job of the convergence area among several
//! candidates: by id (first fit) or by TOPSIS over the area's own four
//! criteria, with weights derived by AHP — an adaptation of seed 003 to the
//! area's processors and the data center's destinations (seed 003's own
//! container scheduler, criteria and profiles are `crate::mcdm`'s callers').
//!
//! A candidate is scored on four [`Criterion`]s — predicted completion, slack
//! left before the SLO's deadline, eviction risk (how long after the job's end
//! HPC work next claims the resource: the longer, the safer) and fragmentation
//! left — and TOPSIS ranks the candidates by their closeness to the ideal
//! (best value of every criterion) and distance from the anti-ideal (worst of
//! every criterion), as in the seed: vector-normalise each criterion, weight
//! it, measure the Euclidean distances `d⁺` and `d⁻`, closeness
//! `d⁻ / (d⁺ + d⁻)`, best first.
//!
//! The weights come from an AHP matrix of pairwise judgements (Saaty's 1–9
//! scale) through its principal eigenvector, refused when the judgements are
//! inconsistent (consistency ratio ≥ 0.1). [`Weights::default`] is the
//! matrix in [`DEFAULT_JUDGEMENTS`], documented in `docs/placement.md`.
//!
//! This module owns the area's criteria and their default judgements; the
//! ranking rules themselves (TOPSIS, AHP's eigenvector and consistency) are
//! [`crate::mcdm`]'s. The engine's choice of processors within the
//! convergence area and the data center's `F^J'`
//! ([`crate::datacenter::rank`]) both call [`order`].

use crate::mcdm::{self, ahp};
use crate::time::Time;
use std::fmt;

/// How a cloud job's resources are chosen among the candidates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Placement {
    /// By id (the area's highest free processors) or, among destinations, by
    /// earliest predicted completion: the behaviour without TOPSIS.
    #[default]
    FirstFit,
    /// TOPSIS over the four criteria with the configured [`Weights`].
    Topsis,
}

impl Placement {
    /// `weights` when resources are placed by TOPSIS (`None`: first fit):
    /// the weights count only then (an engine's and a data center's).
    pub fn weights(self, weights: &Weights) -> Option<&Weights> {
        (self == Placement::Topsis).then_some(weights)
    }
}

/// Weights as the error messages suggest writing them.
pub const WEIGHTS_EXAMPLE: &str = "margin=0.5,completion=0.2,slack=0.2,fragmentation=0.1";

/// The [`Criterion::Completion`] and [`Criterion::Slack`] of a candidate
/// completing at `completion`, seconds: completion after `now` (TOPSIS's
/// vector normalisation is not translation-invariant, so absolute instants
/// on an epoch clock would drown every difference), slack before the SLO's
/// `deadline` (0 without one).
pub fn time_criteria(now: Time, completion: Time, deadline: Option<Time>) -> (f64, f64) {
    let secs = |t: Time| t.as_secs_f64();
    (
        secs(completion) - secs(now),
        deadline.map_or(0.0, |d| secs(d) - secs(completion)),
    )
}

crate::job::named_options!(Placement, "placement", "first-fit or topsis", {
    FirstFit => "first-fit",
    Topsis => "topsis",
});

/// A criterion of the choice and whether more of it is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Criterion {
    /// Predicted completion `F^C` (seconds; less is better).
    Completion,
    /// Slack left: the SLO's deadline minus the predicted completion
    /// (seconds; more is better; constant for jobs without an SLO).
    Slack,
    /// Eviction safety: the time between the job's end and the next HPC work
    /// planned on its resources (seconds; more is better — a short margin is
    /// a high eviction risk, since an HPC plan that moves earlier takes the
    /// resources back).
    Margin,
    /// Fragmentation left: idle capacity the placement leaves stranded
    /// (seconds of idle time cut off on a processor, or idle processors left
    /// beside the job at a destination; less is better).
    Fragmentation,
}

crate::job::named_options!(Criterion, "placement criterion", "completion, slack, margin or fragmentation", {
    Completion => "completion",
    Slack => "slack",
    Margin => "margin",
    Fragmentation => "fragmentation",
});

/// How many criteria a candidate is scored on.
pub const CRITERIA: usize = 4;

impl Criterion {
    /// Whether more of this criterion is better.
    pub fn is_benefit(self) -> bool {
        matches!(self, Criterion::Slack | Criterion::Margin)
    }

    fn index(self) -> usize {
        Criterion::ALL
            .iter()
            .position(|c| *c == self)
            .expect("every criterion is listed")
    }
}

/// A candidate's scores, indexed as [`Criterion::ALL`].
pub type Scores = [f64; CRITERIA];

/// The AHP judgements behind [`Weights::default`], rows and columns in the
/// order of [`Criterion::ALL`] (completion, slack, margin, fragmentation):
/// entry `(i, j)` says how much more important `i` is than `j` on Saaty's
/// scale. An eviction throws away the work done and usually violates the
/// SLO, so the margin before HPC work returns is moderately more important
/// (3) than completion and slack, which are equally important (1); against
/// fragmentation, which only costs future jobs a little room, the margin is
/// strongly more important (5) and completion and slack moderately (3).
pub const DEFAULT_JUDGEMENTS: [[f64; CRITERIA]; CRITERIA] = [
    [1.0, 1.0, 1.0 / 3.0, 3.0],
    [1.0, 1.0, 1.0 / 3.0, 3.0],
    [3.0, 3.0, 1.0, 5.0],
    [1.0 / 3.0, 1.0 / 3.0, 1.0 / 5.0, 1.0],
];

/// Why weights or judgements were refused.
#[derive(Clone, Debug, PartialEq)]
pub enum WeightsError {
    /// A weight is negative, not finite, or all are zero.
    Invalid(Scores),
    /// The judgements are not a usable AHP matrix, or are inconsistent.
    Judgements(ahp::JudgementError),
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Invalid(values) => write!(
                f,
                "placement weights {values:?} are not usable: each must be a finite number >= 0 and at least one > 0"
            ),
            WeightsError::Judgements(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for WeightsError {}

/// The criteria's weights, non-negative and summing to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights(Scores);

impl Weights {
    /// Weights in the order of [`Criterion::ALL`], normalised to sum 1.
    pub fn new(values: Scores) -> Result<Weights, WeightsError> {
        let sum: f64 = values.iter().sum();
        if values.iter().any(|w| !w.is_finite() || *w < 0.0) || sum <= 0.0 || !sum.is_finite() {
            return Err(WeightsError::Invalid(values));
        }
        Ok(Weights(values.map(|w| w / sum)))
    }

    /// AHP: the principal eigenvector of a reciprocal judgement matrix, with
    /// its consistency ratio; refused above [`ahp::MAX_CONSISTENCY_RATIO`]
    /// ([`ahp::weights`]).
    pub fn from_judgements(m: &[[f64; CRITERIA]; CRITERIA]) -> Result<(Weights, f64), WeightsError> {
        let (v, ratio) = ahp::weights(m).map_err(WeightsError::Judgements)?;
        Ok((Weights::new(std::array::from_fn(|i| v[i]))?, ratio))
    }

    /// The weight of one criterion.
    pub fn of(&self, criterion: Criterion) -> f64 {
        self.0[criterion.index()]
    }

    /// All weights, in the order of [`Criterion::ALL`].
    pub fn values(&self) -> Scores {
        self.0
    }

    /// The four criteria as [`mcdm`] ranks them: direction and weight.
    fn criteria(&self) -> [mcdm::Criterion; CRITERIA] {
        std::array::from_fn(|c| mcdm::Criterion {
            benefit: Criterion::ALL[c].is_benefit(),
            weight: self.0[c],
        })
    }
}

impl Default for Weights {
    /// The AHP weights of [`DEFAULT_JUDGEMENTS`].
    fn default() -> Weights {
        Weights::from_judgements(&DEFAULT_JUDGEMENTS)
            .expect("the default judgements are consistent (tested)")
            .0
    }
}

impl fmt::Display for Weights {
    /// `completion=0.1998,slack=0.1998,margin=0.5222,fragmentation=0.0781`,
    /// the form `--placement-weights` reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in Criterion::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}={}", c.name(), (self.0[i] * 1e4).round() / 1e4)?;
        }
        Ok(())
    }
}

/// The [`Criterion::Margin`] of each candidate from the time between its
/// end and the next HPC work on its resources (`None`: none planned): a
/// candidate never taken back scores the largest margin seen plus the job's
/// walltime, safer than any (a finite stand-in for ∞, which TOPSIS's
/// normalisation cannot take).
pub fn margins(next_hpc: &[Option<f64>], walltime: f64) -> Vec<f64> {
    let largest = next_hpc.iter().flatten().copied().fold(0.0f64, f64::max);
    next_hpc
        .iter()
        .map(|margin| margin.unwrap_or(largest + walltime))
        .collect()
}

/// TOPSIS closeness of each candidate to the ideal, in `[0, 1]`
/// ([`mcdm::topsis::closeness`] on the four criteria, in their directions).
pub fn closeness(candidates: &[Scores], weights: &Weights) -> Vec<f64> {
    mcdm::topsis::closeness(candidates.as_flattened(), &weights.criteria())
}

/// The candidates' indices, best first: by TOPSIS closeness, ties in the
/// order given (callers put their first-fit preference first, so TOPSIS
/// only departs from it when the criteria say so).
pub fn order(candidates: &[Scores], weights: &Weights) -> Vec<usize> {
    best(candidates, weights, candidates.len())
}

/// The first `k` of [`order`] (all if fewer), found by selection: `O(n + k log k)`.
pub fn best(candidates: &[Scores], weights: &Weights, k: usize) -> Vec<usize> {
    mcdm::best(
        mcdm::Method::Topsis,
        candidates.as_flattened(),
        &weights.criteria(),
        k,
    )
}

/// Reads `completion=0.2,slack=0.2,margin=0.5,fragmentation=0.1`: named
/// weights, any subset (the others 0), normalised to sum 1.
impl std::str::FromStr for Weights {
    type Err = String;

    fn from_str(s: &str) -> Result<Weights, String> {
        let mut values = [0.0; CRITERIA];
        let mut seen = [false; CRITERIA];
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}` is not NAME=WEIGHT (e.g. margin=0.5)"))?;
            let criterion: Criterion = name.trim().parse().map_err(|e| format!("{e}"))?;
            let i = criterion.index();
            if seen[i] {
                return Err(format!("`{}` is given twice", criterion.name()));
            }
            seen[i] = true;
            values[i] = value
                .trim()
                .parse::<f64>()
                .map_err(|_| format!("`{value}` in `{part}` is not a number"))?;
        }
        Weights::new(values).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_default_judgements_are_consistent_and_favour_the_margin() {
        let (w, ratio) = Weights::from_judgements(&DEFAULT_JUDGEMENTS).unwrap();
        assert!(ratio < 0.02, "consistency ratio {ratio}");
        let v = w.values();
        assert!((v.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(v[2] > 0.5 && v[2] < 0.6, "{w}");
        assert!((v[0] - v[1]).abs() < 1e-9, "{w}");
        assert!(v[3] < 0.1, "{w}");
        assert_eq!(Weights::default(), w);
    }

    #[test]
    fn inconsistent_or_non_reciprocal_judgements_are_refused() {
        // margin ≫ completion ≫ fragmentation ≫ margin: a cycle.
        let mut m = [[1.0; 4]; 4];
        let mut set = |i: usize, j: usize, v: f64| {
            m[i][j] = v;
            m[j][i] = 1.0 / v;
        };
        set(2, 0, 9.0);
        set(0, 3, 9.0);
        set(3, 2, 9.0);
        assert!(matches!(
            Weights::from_judgements(&m),
            Err(WeightsError::Judgements(ahp::JudgementError::Inconsistent { .. }))
        ));
        let mut m = DEFAULT_JUDGEMENTS;
        m[0][1] = 2.0;
        assert!(matches!(
            Weights::from_judgements(&m),
            Err(WeightsError::Judgements(ahp::JudgementError::NotReciprocal {
                row: 0,
                col: 1,
                ..
            }))
        ));
    }

    #[test]
    fn weights_parse_by_name_and_refuse_nonsense() {
        let w: Weights = "margin=3, completion=1".parse().unwrap();
        assert_eq!(w.values(), [0.25, 0.0, 0.75, 0.0]);
        assert_eq!(
            w.to_string(),
            "completion=0.25,slack=0,margin=0.75,fragmentation=0"
        );
        assert_eq!(w.to_string().parse::<Weights>().unwrap(), w);
        for bad in [
            "",
            "margin=0",
            "margin=-1",
            "margin",
            "risk=1",
            "margin=1,margin=2",
            "margin=x",
        ] {
            assert!(bad.parse::<Weights>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn topsis_picks_the_safer_candidate_when_completion_ties() {
        let w = Weights::default();
        // Same completion and slack; the second has a longer margin and no
        // fragmentation: it is the ideal.
        let rows = [
            [100.0, 50.0, 10.0, 30.0],
            [100.0, 50.0, 500.0, 0.0],
            [100.0, 50.0, 200.0, 5.0],
        ];
        assert_eq!(order(&rows, &w), vec![1, 2, 0]);
        let c = closeness(&rows, &w);
        assert_eq!(c[1], 1.0);
        assert_eq!(c[0], 0.0);
    }

    #[test]
    fn a_candidate_never_taken_back_has_the_largest_margin() {
        assert_eq!(margins(&[Some(5.0), None, Some(20.0)], 100.0), [5.0, 120.0, 20.0]);
        assert_eq!(margins(&[None, None], 60.0), [60.0, 60.0]);
    }

    #[test]
    fn equal_candidates_keep_their_order() {
        let rows = [[1.0, 2.0, 3.0, 4.0]; 5];
        assert_eq!(order(&rows, &Weights::default()), vec![0, 1, 2, 3, 4]);
        assert!(closeness(&[], &Weights::default()).is_empty());
    }

    fn row() -> impl Strategy<Value = Scores> {
        prop::array::uniform4(0.0f64..1e6)
    }

    proptest! {
        /// Closeness is in [0, 1]; a candidate that dominates another (at
        /// least as good on every criterion) is at least as close to the
        /// ideal; scaling a criterion by a positive factor changes nothing.
        #[test]
        fn closeness_is_bounded_monotone_and_scale_free(
            rows in prop::collection::vec(row(), 1..40),
            weights in prop::array::uniform4(0.0f64..10.0),
            factor in 0.001f64..1000.0,
            column in 0usize..4,
        ) {
            prop_assume!(weights.iter().sum::<f64>() > 0.0);
            let w = Weights::new(weights).unwrap();
            let c = closeness(&rows, &w);
            for x in &c {
                prop_assert!((0.0..=1.0 + 1e-12).contains(x));
            }
            for a in 0..rows.len() {
                for b in 0..rows.len() {
                    let dominates = (0..CRITERIA).all(|k| {
                        if Criterion::ALL[k].is_benefit() { rows[a][k] >= rows[b][k] } else { rows[a][k] <= rows[b][k] }
                    });
                    if dominates {
                        prop_assert!(c[a] >= c[b] - 1e-9, "{:?} dominates {:?} but {} < {}", rows[a], rows[b], c[a], c[b]);
                    }
                }
            }
            let all = order(&rows, &w);
            let k = column * rows.len() / 3;
            prop_assert_eq!(&best(&rows, &w, k)[..], &all[..k]);
            let scaled: Vec<Scores> = rows.iter().map(|r| { let mut r = *r; r[column] *= factor; r }).collect();
            let c2 = closeness(&scaled, &w);
            for (x, y) in c.iter().zip(&c2) {
                prop_assert!((x - y).abs() < 1e-6, "{} vs {}", x, y);
            }
        }
    }
}
