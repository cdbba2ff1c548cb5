//! Means with their 95 % confidence intervals (Student's t), as seed 001
//! reports its fairness metrics (Fig. 9) and QoS deficits (Fig. 7).

/// A sample's mean and the half-width of its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanCi {
    /// Values in the sample.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// `t(0.975, n − 1) · s / √n`; `None` with one value (no spread to estimate).
    pub half_width: Option<f64>,
}

/// Student's t quantile 0.975 for 1–30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// Student's t quantile 0.975 for `df ≥ 1` degrees of freedom: the table up
/// to 30, then the Cornish–Fisher expansion around the normal quantile
/// 1.959964 (within 10⁻⁴ of the exact value from 30 on).
pub fn t975(df: usize) -> f64 {
    if (1..=T975.len()).contains(&df) {
        return T975[df - 1];
    }
    let z = 1.959_964f64;
    let v = df.max(1) as f64;
    z + (z.powi(3) + z) / (4.0 * v) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * v * v)
}

/// The mean of `values` and its 95 % confidence interval; `None` for no value.
pub fn mean_ci(values: &[f64]) -> Option<MeanCi> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let half_width = (n > 1).then(|| {
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64;
        t975(n - 1) * (var / n as f64).sqrt()
    });
    Some(MeanCi { n, mean, half_width })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_confidence_interval_by_hand() {
        // 2, 4, 6: mean 4, s = 2, t(0.975, 2) = 4.303: 4.303 · 2 / √3 = 4.9687.
        let ci = mean_ci(&[2.0, 4.0, 6.0]).unwrap();
        assert_eq!((ci.n, ci.mean), (3, 4.0));
        assert!((ci.half_width.unwrap() - 4.303 * 2.0 / 3f64.sqrt()).abs() < 1e-12);
        assert_eq!(mean_ci(&[]), None);
        assert_eq!(mean_ci(&[0.5]).unwrap().half_width, None);
        assert_eq!(mean_ci(&[7.0; 5]).unwrap().half_width, Some(0.0));
    }

    #[test]
    fn the_quantile_joins_the_table_and_tends_to_the_normal() {
        assert_eq!(t975(1), 12.706);
        assert!((t975(31) - 2.0395).abs() < 2e-4, "{}", t975(31));
        assert!((t975(60) - 2.0003).abs() < 2e-4, "{}", t975(60));
        assert!((t975(120) - 1.9799).abs() < 2e-4, "{}", t975(120));
        assert!((t975(1_000_000) - 1.96).abs() < 1e-3);
    }
}
