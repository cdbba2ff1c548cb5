//! The one seeded pseudo-random generator of Interstice (the engine's QoS draws, and the workload tools:
//! cloud-job injection, run-time distributions, synthetic workloads):
//! SplitMix64, stable across platforms and dependency versions, so a seed
//! always gives the same jobs.

/// SplitMix64 (Steele, Lea, Flood 2014): 64-bit state, one add and three
/// xor-shift-multiplies per draw.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)` (`lo` if the range is empty).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        if hi <= lo {
            return lo;
        }
        lo + (hi - lo) * self.next_f64()
    }

    /// Log-uniform in `[lo, hi)` (both > 0).
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.uniform(lo.ln(), hi.ln()).exp()
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.next_f64()).ln()
    }

    /// Standard normal (mean 0, deviation 1), by Box–Muller from two
    /// uniform draws (the second value of the pair is not kept, so each
    /// call consumes exactly two draws).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.next_f64(); // in (0, 1]: ln is finite
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Log-normal with the given median and σ of the logarithm (σ = 0 gives
    /// the median itself).
    pub fn log_normal(&mut self, median: f64, sigma: f64) -> f64 {
        median * (sigma * self.normal()).exp()
    }

    /// Uniform integer in `0..n` (`0` if `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_values() {
        // First outputs for seed 0 from the reference implementation.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn same_seed_same_stream_and_ranges_hold() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            let x = a.uniform(2.0, 5.0);
            b.uniform(2.0, 5.0);
            assert!((2.0..5.0).contains(&x));
            let k = a.below(3);
            b.below(3);
            assert!(k < 3);
            let l = a.log_uniform(10.0, 1000.0);
            b.log_uniform(10.0, 1000.0);
            assert!((10.0..1000.0 + 1e-9).contains(&l), "{l}");
        }
        assert_ne!(SplitMix64::new(1).next_u64(), SplitMix64::new(2).next_u64());
        assert_eq!(SplitMix64::new(3).uniform(4.0, 4.0), 4.0);
        assert_eq!(SplitMix64::new(3).below(0), 0);
    }

    #[test]
    fn normal_draws_have_mean_zero_and_unit_deviation() {
        let mut r = SplitMix64::new(11);
        let n = 20_000;
        let xs: Vec<f64> = (0..n).map(|_| r.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.03, "{mean}");
        assert!((var - 1.0).abs() < 0.05, "{var}");
        assert_eq!(SplitMix64::new(5).log_normal(40.0, 0.0), 40.0);
    }
}
