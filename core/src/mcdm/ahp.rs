//! The Analytic Hierarchy Process (Saaty; seed 003 §2.4.1, §3.8.1), both of
//! its uses:
//!
//! - **weights** from a decision maker's pairwise judgements of the criteria
//!   ([`weights`]): the principal eigenvector of the reciprocal matrix, with
//!   its consistency ratio `CR = CI / RI`, `CI = (λ_max − n) / (n − 1)`,
//!   refused above [`MAX_CONSISTENCY_RATIO`];
//! - **ranking** alternatives ([`priorities`]): per criterion, every pair of
//!   alternatives compared on Saaty's 1–9 scale, the matrix's columns
//!   normalised and its rows averaged into local priorities (seed 003 eqs.
//!   3.5–3.6), the global priority the local ones weighted by the criteria.

use super::criterion::Criterion;
use std::fmt;

/// The largest consistency ratio accepted (Saaty's 10 %).
pub const MAX_CONSISTENCY_RATIO: f64 = 0.1;

/// Saaty's random consistency index `RI` of an `n × n` matrix, `n` = 1..=15
/// (index `n − 1`): the mean `CI` of random reciprocal matrices.
pub const RANDOM_INDEX: [f64; 15] = [
    0.0, 0.0, 0.58, 0.90, 1.12, 1.24, 1.32, 1.41, 1.45, 1.49, 1.51, 1.48, 1.56, 1.57, 1.59,
];

/// Why judgements were refused.
#[derive(Clone, Debug, PartialEq)]
pub enum JudgementError {
    /// No criterion at all.
    Empty,
    /// More criteria than [`RANDOM_INDEX`] knows a consistency index for.
    TooLarge {
        /// Criteria given.
        size: usize,
    },
    /// A row does not have one entry per criterion.
    NotSquare {
        /// The row (0-based).
        row: usize,
        /// Its entries.
        len: usize,
        /// The criteria.
        expected: usize,
    },
    /// An entry is not positive and finite, the diagonal is not 1, or entry
    /// `(j, i)` is not `1 / (i, j)`.
    NotReciprocal {
        /// Row (0-based).
        row: usize,
        /// Column (0-based).
        col: usize,
        /// The entry.
        value: f64,
    },
    /// The judgements contradict each other too much.
    Inconsistent {
        /// The consistency ratio `CI / RI`.
        ratio: f64,
    },
}

impl fmt::Display for JudgementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgementError::Empty => f.write_str("AHP judgements compare no criterion: give at least one"),
            JudgementError::TooLarge { size } => write!(
                f,
                "AHP judgements over {size} criteria: at most {} are supported (Saaty's random index is known up to there)",
                RANDOM_INDEX.len()
            ),
            JudgementError::NotSquare { row, len, expected } => write!(
                f,
                "AHP judgement row {} has {len} entries: the matrix must be square, {expected} entries per row",
                row + 1
            ),
            JudgementError::NotReciprocal { row, col, value } => write!(
                f,
                "AHP judgement ({}, {}) = {value} is not usable: every entry must be positive and finite, \
                 the diagonal 1 and entry (j, i) = 1 / (i, j)",
                row + 1,
                col + 1
            ),
            JudgementError::Inconsistent { ratio } => write!(
                f,
                "AHP judgements are inconsistent: consistency ratio {ratio:.3} > {MAX_CONSISTENCY_RATIO} \
                 (revise the comparisons that contradict each other)"
            ),
        }
    }
}

impl std::error::Error for JudgementError {}

/// The weights a reciprocal judgement matrix gives, and its consistency.
#[derive(Clone, Debug, PartialEq)]
pub struct Derived {
    /// The principal eigenvector, summing to 1, in the criteria's order.
    pub weights: Vec<f64>,
    /// The principal eigenvalue `λ_max` (`n` for perfectly consistent judgements).
    pub lambda_max: f64,
    /// `CR = CI / RI` (0 for one or two criteria, always consistent).
    pub ratio: f64,
}

/// Weights from `matrix` (entry `(i, j)`: how much more important criterion
/// `i` is than `j`, Saaty's 1–9 scale and reciprocals) and the consistency
/// ratio; refused when the ratio is above [`MAX_CONSISTENCY_RATIO`].
pub fn weights<R: AsRef<[f64]>>(matrix: &[R]) -> Result<(Vec<f64>, f64), JudgementError> {
    let derived = derive(matrix)?;
    if derived.ratio > MAX_CONSISTENCY_RATIO {
        return Err(JudgementError::Inconsistent { ratio: derived.ratio });
    }
    Ok((derived.weights, derived.ratio))
}

/// [`weights`] without the consistency verdict: what `interstice mcdm
/// weights` shows of judgements it refuses, too.
pub fn derive<R: AsRef<[f64]>>(matrix: &[R]) -> Result<Derived, JudgementError> {
    let n = matrix.len();
    if n == 0 {
        return Err(JudgementError::Empty);
    }
    if n > RANDOM_INDEX.len() {
        return Err(JudgementError::TooLarge { size: n });
    }
    let m: Vec<&[f64]> = matrix.iter().map(AsRef::as_ref).collect();
    check_reciprocal(&m)?;
    // Power iteration from the uniform vector.
    let mut v = vec![1.0 / n as f64; n];
    for _ in 0..1000 {
        let next: Vec<f64> = m.iter().map(|row| dot(row, &v)).collect();
        let sum: f64 = next.iter().sum();
        let next: Vec<f64> = next.into_iter().map(|x| x / sum).collect();
        let change: f64 = next.iter().zip(&v).map(|(a, b)| (a - b).abs()).sum();
        v = next;
        if change < 1e-12 {
            break;
        }
    }
    // λ_max = mean over i of (M·v)_i / v_i.
    let lambda_max = m.iter().zip(&v).map(|(row, x)| dot(row, &v) / x).sum::<f64>() / n as f64;
    let ratio = if n <= 2 {
        0.0
    } else {
        ((lambda_max - n as f64) / (n as f64 - 1.0) / RANDOM_INDEX[n - 1]).max(0.0)
    };
    Ok(Derived {
        weights: v,
        lambda_max,
        ratio,
    })
}

fn check_reciprocal(m: &[&[f64]]) -> Result<(), JudgementError> {
    let n = m.len();
    for (i, row) in m.iter().enumerate() {
        if row.len() != n {
            return Err(JudgementError::NotSquare {
                row: i,
                len: row.len(),
                expected: n,
            });
        }
    }
    for (i, row) in m.iter().enumerate() {
        for (j, &value) in row.iter().enumerate() {
            let reciprocal = (value * m[j][i] - 1.0).abs() < 1e-9;
            if !value.is_finite() || value <= 0.0 || !reciprocal || (i == j && value != 1.0) {
                return Err(JudgementError::NotReciprocal {
                    row: i,
                    col: j,
                    value,
                });
            }
        }
    }
    Ok(())
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// How far apart on Saaty's scale two alternatives are when one is better
/// than the other by the whole range of a criterion: 9, "extreme importance".
const SCALE: f64 = 9.0;

/// AHP's global priority of each alternative (rows of `criteria.len()`
/// values): `Σ_c weight_c · L_c`, `L_c` the alternative's local priority on
/// criterion `c`, which sums to 1 over the alternatives.
///
/// The seed compares alternatives on each criterion by the difference of
/// their values; here the difference is read on Saaty's scale relative to
/// the criterion's range over the alternatives: an alternative better by
/// `d` (direction-adjusted, `0 ≤ d ≤ range`) is preferred
/// `1 + (SCALE − 1)·d/range` times, the reverse comparison its reciprocal,
/// so the matrix is reciprocal and bounded by Saaty's 1–9 whatever the
/// criterion's unit. A criterion on which every alternative is equal gives
/// each `1/n`. Local priorities are the rows' means of the
/// column-normalised matrix (seed eqs. 3.5–3.6), the usual approximation
/// of the principal eigenvector.
///
/// Cost: `O(c · (n log n + k²))`, `k` the distinct values of a criterion
/// (equal alternatives share a row and a column of the matrix): `O(c·n²)`
/// for all-distinct values, as the seed's GPU kernels; a data center's
/// identical servers cost one row.
pub fn priorities(values: &[f64], criteria: &[Criterion]) -> Vec<f64> {
    let c = criteria.len();
    let n = values.len().checked_div(c).unwrap_or(0);
    let mut global = vec![0.0; n];
    if n == 0 {
        return global;
    }
    for (j, criterion) in criteria.iter().enumerate() {
        let column = values.iter().skip(j).step_by(c).copied();
        let local = local_priorities(column, criterion.benefit);
        for (g, l) in global.iter_mut().zip(local) {
            *g += criterion.weight * l;
        }
    }
    global
}

/// One criterion's local priorities, in the alternatives' order.
fn local_priorities(column: impl Iterator<Item = f64>, benefit: bool) -> Vec<f64> {
    // Direction-adjusted values: larger is better.
    let values: Vec<f64> = column.map(|v| if benefit { v } else { -v }).collect();
    let n = values.len();
    let mut distinct: Vec<f64> = values.clone();
    distinct.sort_unstable_by(f64::total_cmp);
    distinct.dedup();
    let range = distinct[distinct.len() - 1] - distinct[0];
    if range <= 0.0 || !range.is_finite() {
        return vec![1.0 / n as f64; n];
    }
    let mut count = vec![0usize; distinct.len()];
    let index = |v: f64| distinct.binary_search_by(|d| d.total_cmp(&v)).unwrap_or(0);
    for v in &values {
        count[index(*v)] += 1;
    }
    // m(a, b): how strongly the value a is preferred to the value b.
    let m = |a: f64, b: f64| {
        let d = (a - b) / range * (SCALE - 1.0);
        if d >= 0.0 {
            1.0 + d
        } else {
            1.0 / (1.0 - d)
        }
    };
    // Column sums over all n alternatives (equal ones counted `count` times).
    let column_sum: Vec<f64> = distinct
        .iter()
        .map(|&b| {
            distinct
                .iter()
                .zip(&count)
                .map(|(&a, &k)| k as f64 * m(a, b))
                .sum()
        })
        .collect();
    // Row means of the column-normalised matrix.
    let local: Vec<f64> = distinct
        .iter()
        .map(|&a| {
            distinct
                .iter()
                .zip(&count)
                .zip(&column_sum)
                .map(|((&b, &k), s)| k as f64 * m(a, b) / s)
                .sum::<f64>()
                / n as f64
        })
        .collect();
    values.iter().map(|v| local[index(*v)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_consistent_matrix_gives_back_its_ratios() {
        let w = [0.4, 0.3, 0.2, 0.1];
        let m: Vec<Vec<f64>> = (0..4).map(|i| (0..4).map(|j| w[i] / w[j]).collect()).collect();
        let (got, ratio) = weights(&m).unwrap();
        assert!(ratio < 1e-9);
        for (a, b) in got.iter().zip(w) {
            assert!((a - b).abs() < 1e-9, "{got:?}");
        }
    }

    /// Saaty's textbook 3 × 3 case, by hand: A is 3 times as important as B
    /// and 5 times as C, B 2 times as C. Its eigenvector is
    /// (0.6483, 0.2297, 0.1220), λ_max = 3.0037, CI = 0.00185, CR = 0.0032.
    #[test]
    fn saatys_three_criteria() {
        let m = [[1.0, 3.0, 5.0], [1.0 / 3.0, 1.0, 2.0], [0.2, 0.5, 1.0]];
        let d = derive(&m).unwrap();
        for (got, want) in d.weights.iter().zip([0.6483, 0.2297, 0.1220]) {
            assert!((got - want).abs() < 5e-4, "{:?}", d.weights);
        }
        assert!((d.lambda_max - 3.0037).abs() < 5e-4, "{}", d.lambda_max);
        assert!((d.ratio - 0.0032).abs() < 5e-4, "{}", d.ratio);
    }

    #[test]
    fn refusals_name_what_is_wrong() {
        // A ≫ B ≫ C ≫ A: a cycle, CR far above 0.1.
        let cycle = [
            [1.0, 9.0, 1.0 / 9.0],
            [1.0 / 9.0, 1.0, 9.0],
            [9.0, 1.0 / 9.0, 1.0],
        ];
        let Err(JudgementError::Inconsistent { ratio }) = weights(&cycle) else {
            panic!("a cycle was accepted")
        };
        assert!(ratio > 1.0, "{ratio}");
        assert_eq!(weights::<[f64; 0]>(&[]), Err(JudgementError::Empty));
        let ragged: Vec<Vec<f64>> = vec![vec![1.0, 2.0], vec![0.5]];
        assert!(matches!(
            weights(&ragged),
            Err(JudgementError::NotSquare {
                row: 1,
                len: 1,
                expected: 2
            })
        ));
        let not_reciprocal = [[1.0, 2.0], [2.0, 1.0]];
        assert!(matches!(
            weights(&not_reciprocal),
            Err(JudgementError::NotReciprocal { row: 0, col: 1, .. })
        ));
        let big = vec![vec![1.0; 16]; 16];
        assert_eq!(weights(&big), Err(JudgementError::TooLarge { size: 16 }));
        // One or two criteria are always consistent.
        assert_eq!(weights(&[[1.0]]).unwrap(), (vec![1.0], 0.0));
        let (w, r) = weights(&[[1.0, 4.0], [0.25, 1.0]]).unwrap();
        assert!((w[0] - 0.8).abs() < 1e-9 && r == 0.0, "{w:?}");
    }

    /// Three alternatives, values 0, 5, 10 of one benefit criterion: the
    /// matrix on Saaty's scale is [[1, 1/5, 1/9], [5, 1, 1/5], [9, 5, 1]]
    /// (5 = 1 + 8·5/10); column sums 15, 6.2, 1.3111; the row means of the
    /// normalised matrix are the local priorities.
    #[test]
    fn ahp_priorities_by_hand() {
        let p = priorities(&[0.0, 5.0, 10.0], &[Criterion::benefit(1.0)]);
        let s = [15.0, 6.2, 1.0 + 0.2 + 1.0 / 9.0];
        let m = [[1.0, 0.2, 1.0 / 9.0], [5.0, 1.0, 0.2], [9.0, 5.0, 1.0]];
        for (i, got) in p.iter().enumerate() {
            let want = (0..3).map(|j| m[i][j] / s[j]).sum::<f64>() / 3.0;
            assert!((got - want).abs() < 1e-12, "{p:?}");
        }
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // As a cost, the order reverses; repeated values share a priority.
        let q = priorities(&[0.0, 5.0, 10.0, 5.0], &[Criterion::cost(1.0)]);
        assert!(q[0] > q[1] && q[1] > q[2] && q[1] == q[3], "{q:?}");
        assert_eq!(priorities(&[7.0, 7.0], &[Criterion::cost(1.0)]), vec![0.5, 0.5]);
    }
}
