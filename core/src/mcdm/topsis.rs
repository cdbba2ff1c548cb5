//! TOPSIS (Hwang & Yoon; seed 003 §2.4.2, §3.8.2): vector-normalise each
//! criterion, weight it, measure each alternative's Euclidean distances `d⁺`
//! to the ideal (best value of every weighted criterion) and `d⁻` to the
//! anti-ideal (worst of every one); its closeness is `d⁻ / (d⁺ + d⁻)`.

use super::criterion::Criterion;

/// TOPSIS closeness of each alternative (rows of `criteria.len()` values in
/// `values`) to the ideal, in `[0, 1]` (1 = ideal on every weighted
/// criterion). A criterion on which every alternative scores the same
/// separates none of them and adds nothing to either distance; an
/// alternative at both the ideal and the anti-ideal (all equal) gets 1.
/// Values must be finite. Scaling a criterion by a positive factor changes
/// nothing (the normalisation removes it).
///
/// Cost: two passes over the values, `O(n · c)`, no allocation but the
/// result and three vectors of `c`.
pub fn closeness(values: &[f64], criteria: &[Criterion]) -> Vec<f64> {
    let c = criteria.len();
    if c == 0 {
        return Vec::new();
    }
    let mut norm = vec![0.0f64; c];
    for row in values.chunks_exact(c) {
        for (n, v) in norm.iter_mut().zip(row) {
            *n += v * v;
        }
    }
    // Weighted, normalised scale per criterion (0 for an all-zero column).
    let scale: Vec<f64> = norm
        .iter()
        .zip(criteria)
        .map(|(n, k)| if *n > 0.0 { k.weight / n.sqrt() } else { 0.0 })
        .collect();
    let mut best = vec![f64::NAN; c];
    let mut worst = vec![f64::NAN; c];
    for row in values.chunks_exact(c) {
        for j in 0..c {
            let v = row[j] * scale[j];
            let benefit = criteria[j].benefit;
            let better = |a: f64, b: f64| if benefit { a > b } else { a < b };
            if best[j].is_nan() || better(v, best[j]) {
                best[j] = v;
            }
            if worst[j].is_nan() || better(worst[j], v) {
                worst[j] = v;
            }
        }
    }
    values
        .chunks_exact(c)
        .map(|row| {
            let (mut plus, mut minus) = (0.0f64, 0.0f64);
            for j in 0..c {
                let v = row[j] * scale[j];
                plus += (v - best[j]) * (v - best[j]);
                minus += (v - worst[j]) * (v - worst[j]);
            }
            let (plus, minus) = (plus.sqrt(), minus.sqrt());
            if plus + minus > 0.0 {
                minus / (plus + minus)
            } else {
                1.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closeness_by_hand() {
        // Two criteria of weight 0.5, a benefit and a cost; three alternatives.
        // Column norms: sqrt(3² + 4² + 0²) = 5 and sqrt(1 + 1 + 4) = sqrt(6).
        let criteria = [Criterion::benefit(0.5), Criterion::cost(0.5)];
        let values = [3.0, 1.0, 4.0, 1.0, 0.0, 2.0];
        let c = closeness(&values, &criteria);
        // Weighted: col 1 = 0.3, 0.4, 0; col 2 = 0.5/sqrt(6) × (1, 1, 2).
        let s = 0.5 / 6f64.sqrt();
        // Ideal (0.4, s), anti-ideal (0, 2s).
        let d = |a: f64, b: f64| (a * a + b * b).sqrt();
        let expect = [d(0.3, 2.0 * s - s) / (d(0.1, 0.0) + d(0.3, s)), 1.0, 0.0];
        for (got, want) in c.iter().zip(expect) {
            assert!((got - want).abs() < 1e-12, "{c:?}");
        }
    }

    #[test]
    fn no_alternative_and_equal_alternatives() {
        let criteria = [Criterion::cost(1.0), Criterion::benefit(2.0)];
        assert!(closeness(&[], &criteria).is_empty());
        assert_eq!(closeness(&[1.0, 2.0, 1.0, 2.0], &criteria), vec![1.0, 1.0]);
    }
}
