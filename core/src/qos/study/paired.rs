//! Paired availabilities (seed 001 §5.1, Fig. 6): each request's final
//! availability under the priority-based scheduler (`x`) and under the
//! QoS-driven one (`y`), counted in 5 % squares and in the four quadrants
//! the class's SLO draws.

use crate::qos::ledger::meets;

/// Squares per axis: 5 % each, the last holding 95 %–100 % inclusive.
pub const SQUARES: usize = 20;

/// One class's paired availabilities at one infrastructure size.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatMap {
    /// `counts[y * SQUARES + x]`: requests with priority availability in
    /// square `x` and QoS-driven availability in square `y`.
    pub counts: Vec<u64>,
    /// Requests counted.
    pub requests: u64,
    /// SLO met under both.
    pub both: u64,
    /// Met under priority only (the seed's blue, bottom right).
    pub priority_only: u64,
    /// Met under QoS-driven only (green, top left).
    pub qos_only: u64,
    /// Met under neither (red, bottom left).
    pub neither: u64,
    /// Above the identity line (`y > x`), below it, on it.
    pub above: u64,
    /// Below the identity line.
    pub below: u64,
}

/// The square of an availability in `[0, 1]`.
pub fn square(a: f64) -> usize {
    ((a.clamp(0.0, 1.0) * SQUARES as f64) as usize).min(SQUARES - 1)
}

impl Default for HeatMap {
    fn default() -> HeatMap {
        HeatMap::new()
    }
}

impl HeatMap {
    /// An empty map.
    pub fn new() -> HeatMap {
        HeatMap {
            counts: vec![0; SQUARES * SQUARES],
            requests: 0,
            both: 0,
            priority_only: 0,
            qos_only: 0,
            neither: 0,
            above: 0,
            below: 0,
        }
    }

    /// Count one request: `x` its availability under priority, `y` under
    /// QoS-driven, `slo` its class's.
    pub fn add(&mut self, x: f64, y: f64, slo: f64) {
        self.counts[square(y) * SQUARES + square(x)] += 1;
        self.requests += 1;
        match (meets(x, slo), meets(y, slo)) {
            (true, true) => self.both += 1,
            (true, false) => self.priority_only += 1,
            (false, true) => self.qos_only += 1,
            (false, false) => self.neither += 1,
        }
        if y > x {
            self.above += 1;
        } else if y < x {
            self.below += 1;
        }
    }

    /// SLO fulfilment under priority (both + priority only) and under
    /// QoS-driven (both + QoS-driven only), as fractions; `None` when empty.
    pub fn fulfilment(&self) -> Option<(f64, f64)> {
        (self.requests > 0).then(|| {
            let n = self.requests as f64;
            (
                (self.both + self.priority_only) as f64 / n,
                (self.both + self.qos_only) as f64 / n,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_and_quadrants_by_hand() {
        assert_eq!(
            (square(0.0), square(0.049), square(0.05), square(1.0)),
            (0, 0, 1, 19)
        );
        let mut m = HeatMap::new();
        m.add(1.0, 0.92, 0.9); // both
        m.add(1.0, 0.6, 0.9); // priority only, below the line
        m.add(0.3, 0.95, 0.9); // QoS-driven only, above
        m.add(0.2, 0.5, 0.9); // neither, above
        assert_eq!((m.both, m.priority_only, m.qos_only, m.neither), (1, 1, 1, 1));
        assert_eq!((m.above, m.below), (2, 2));
        assert_eq!(m.counts[18 * SQUARES + 19], 1);
        assert_eq!(m.counts[19 * SQUARES + 6], 1);
        assert_eq!(m.fulfilment(), Some((0.5, 0.5)));
        assert_eq!(HeatMap::new().fulfilment(), None);
    }
}
