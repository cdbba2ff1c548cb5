//! How a pod's feasible servers are ordered: by a multi-criteria method
//! over the four criteria of [`ServerValues`] with Table 7's weights (or
//! the user's), or by the baselines of Table 10, best fit and worst fit.

use super::criterion::Criterion;
use super::place::ServerValues;
use super::rank::{rank, Method};

/// Table 7's weight profiles over (CPU, RAM, fragmentation, bandwidth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// 0.25 each.
    Flat,
    /// "Agrupamento": fragmentation 0.5, CPU and RAM 0.17, bandwidth 0.16.
    Clustering,
    /// "Rede": bandwidth 0.5, CPU and RAM 0.17, fragmentation 0.16.
    Network,
}

crate::job::named_options!(Profile, "weight profile", "flat, clustering or network", {
    Flat => "flat",
    Clustering => "clustering",
    Network => "network",
});

impl Profile {
    /// Its weights: CPU, RAM, fragmentation, bandwidth.
    pub fn weights(self) -> [f64; 4] {
        match self {
            Profile::Flat => [0.25, 0.25, 0.25, 0.25],
            Profile::Clustering => [0.17, 0.17, 0.5, 0.16],
            Profile::Network => [0.17, 0.17, 0.16, 0.5],
        }
    }
}

/// The criteria's names, in [`ServerValues`]' order (for AHP judgement files).
pub const CRITERIA: [&str; 4] = ["cpu", "ram", "fragmentation", "bandwidth"];

/// Orders a pod's candidate servers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Chooser {
    /// AHP or TOPSIS, every criterion a benefit (free CPU, free RAM, `f_u`,
    /// free bandwidth), with these weights.
    Mcdm {
        /// The method.
        method: Method,
        /// CPU, RAM, fragmentation, bandwidth.
        weights: [f64; 4],
    },
    /// The server left with the least free CPU + RAM (each over `scale`,
    /// the largest server's), ties by index.
    BestFit {
        /// Largest CPU and RAM of one server.
        scale: [f64; 2],
    },
    /// The server with the most.
    WorstFit {
        /// Largest CPU and RAM of one server.
        scale: [f64; 2],
    },
}

impl Chooser {
    /// The candidates' positions, best first.
    pub fn order(&self, values: &[ServerValues]) -> Vec<usize> {
        match *self {
            Chooser::Mcdm { method, weights } => {
                let criteria = weights.map(Criterion::benefit);
                let flat: Vec<f64> = values.iter().flatten().copied().collect();
                rank(method, &flat, &criteria)
            }
            Chooser::BestFit { scale } | Chooser::WorstFit { scale } => {
                let free = |v: &ServerValues| {
                    let part = |x: f64, s: f64| if s > 0.0 { x / s } else { 0.0 };
                    part(v[0], scale[0]) + part(v[1], scale[1])
                };
                let mut idx: Vec<usize> = (0..values.len()).collect();
                let worst = matches!(self, Chooser::WorstFit { .. });
                idx.sort_by(|&a, &b| {
                    let o = free(&values[a]).total_cmp(&free(&values[b]));
                    if worst { o.reverse() } else { o }.then(a.cmp(&b))
                });
                idx
            }
        }
    }

    /// Its name in results: `ahp`, `topsis`, `bf`, `wf`.
    pub fn name(&self) -> &'static str {
        match self {
            Chooser::Mcdm { method, .. } => method.name(),
            Chooser::BestFit { .. } => "bf",
            Chooser::WorstFit { .. } => "wf",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Server 0 already hosts containers and has 200 Mbps left on its
    /// links; server 1 is idle with 1,000 Mbps; CPU and RAM alike.
    const SERVERS: [ServerValues; 2] = [[10.0, 100.0, 1.0, 200.0], [10.0, 100.0, 0.0, 1000.0]];

    #[test]
    fn the_network_profile_picks_another_server_than_clustering() {
        for method in [Method::Topsis, Method::Ahp] {
            let pick = |p: Profile| {
                Chooser::Mcdm {
                    method,
                    weights: p.weights(),
                }
                .order(&SERVERS)[0]
            };
            // TOPSIS, clustering: f weighs 0.5 on A's side, bandwidth 0.16 on
            // B's (d⁺ = 0.126, d⁻ = 0.5 for A); network: the reverse.
            assert_eq!(pick(Profile::Clustering), 0, "{method:?}");
            assert_eq!(pick(Profile::Network), 1, "{method:?}");
        }
    }

    #[test]
    fn best_fit_packs_and_worst_fit_spreads() {
        let values = [
            [4.0, 10.0, 1.0, 0.0],
            [1.0, 50.0, 1.0, 0.0],
            [8.0, 80.0, 0.0, 0.0],
        ];
        // free/scale: 0.4 + 0.1 = 0.5, 0.1 + 0.5 = 0.6, 0.8 + 0.8 = 1.6
        let scale = [10.0, 100.0];
        assert_eq!(Chooser::BestFit { scale }.order(&values), vec![0, 1, 2]);
        assert_eq!(Chooser::WorstFit { scale }.order(&values), vec![2, 1, 0]);
        for p in Profile::ALL {
            assert!((p.weights().iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert_eq!(p.name().parse(), Ok(p));
        }
    }
}
