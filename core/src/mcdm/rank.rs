//! The one entry point for ranking: alternatives scored on weighted criteria
//! by the [`Method`] the caller chooses, best first.
//!
//! Alternatives are given as one row-major slice of values, one row per
//! alternative and one column per [`Criterion`], so that callers keep their
//! candidates in one allocation however many criteria they score.

use super::criterion::Criterion;
use super::{ahp, topsis};

/// How alternatives are ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Analytic Hierarchy Process: per criterion, every pair of alternatives
    /// compared on Saaty's scale, local priorities by the normalised matrix's
    /// row means, the global priority their weighted sum ([`ahp::priorities`]).
    Ahp,
    /// TOPSIS: closeness to the ideal alternative and distance from the
    /// anti-ideal over vector-normalised, weighted criteria ([`topsis::closeness`]).
    Topsis,
}

crate::job::named_options!(Method, "ranking method", "ahp or topsis", {
    Ahp => "ahp",
    Topsis => "topsis",
});

/// Each alternative's score under `method`, higher is better: TOPSIS's
/// closeness in `[0, 1]`, AHP's global priority (summing to the weights'
/// sum). `values` holds one row of `criteria.len()` finite values per
/// alternative.
///
/// # Panics
/// If `criteria` is empty or `values.len()` is not a multiple of it (a
/// caller's bug, not an input: callers build the rows).
pub fn scores(method: Method, values: &[f64], criteria: &[Criterion]) -> Vec<f64> {
    assert!(
        !criteria.is_empty() && values.len() % criteria.len() == 0,
        "{} values do not make rows of {} criteria",
        values.len(),
        criteria.len()
    );
    match method {
        Method::Ahp => ahp::priorities(values, criteria),
        Method::Topsis => topsis::closeness(values, criteria),
    }
}

/// The alternatives' indices, best first; ties keep the order given (callers
/// put their default preference first).
pub fn rank(method: Method, values: &[f64], criteria: &[Criterion]) -> Vec<usize> {
    let n = values.len() / criteria.len().max(1);
    best(method, values, criteria, n)
}

/// The first `k` of [`rank`] (all if fewer), found by selection:
/// `O(n + k log k)` beyond the scoring.
pub fn best(method: Method, values: &[f64], criteria: &[Criterion], k: usize) -> Vec<usize> {
    best_of(&scores(method, values, criteria), k)
}

/// The `k` highest of `score`, best first, ties by index.
pub(crate) fn best_of(score: &[f64], k: usize) -> Vec<usize> {
    let order = |a: &usize, b: &usize| score[*b].total_cmp(&score[*a]).then(a.cmp(b));
    let mut idx: Vec<usize> = (0..score.len()).collect();
    let k = k.min(idx.len());
    if k == 0 {
        return Vec::new();
    }
    if k < idx.len() {
        idx.select_nth_unstable_by(k - 1, order);
        idx.truncate(k);
    }
    idx.sort_unstable_by(order);
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_methods_agree_on_a_dominating_alternative() {
        // Residual CPU (more), residual RAM (more), fragmentation (less).
        let criteria = [
            Criterion::benefit(0.4),
            Criterion::benefit(0.4),
            Criterion::cost(0.2),
        ];
        let values = [
            4.0, 16.0, 0.5, //
            20.0, 200.0, 0.1, // dominates the others
            8.0, 64.0, 0.3,
        ];
        for method in [Method::Ahp, Method::Topsis] {
            assert_eq!(
                rank(method, &values, &criteria),
                vec![1, 2, 0],
                "{}",
                method.name()
            );
            assert_eq!(best(method, &values, &criteria, 1), vec![1]);
        }
    }

    #[test]
    fn ties_keep_the_order_given() {
        let criteria = [Criterion::cost(1.0)];
        for method in [Method::Ahp, Method::Topsis] {
            assert_eq!(rank(method, &[3.0, 3.0, 3.0], &criteria), vec![0, 1, 2]);
            assert!(rank(method, &[], &criteria).is_empty());
        }
    }

    #[test]
    fn methods_parse_by_name() {
        assert_eq!("ahp".parse::<Method>().unwrap(), Method::Ahp);
        assert_eq!("topsis".parse::<Method>().unwrap(), Method::Topsis);
        assert!("electre".parse::<Method>().is_err());
    }
}
