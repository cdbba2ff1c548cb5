//! The k-ary fat-tree of seed 003's experiments (Al-Fares et al.): `k`
//! pods, each of `k/2` edge and `k/2` aggregation switches; `(k/2)²` core
//! switches; `k/2` hosts under each edge switch, `k³/4` hosts in all. Every
//! edge switch joins every aggregation switch of its pod; aggregation
//! switch `j` of each pod joins core switches `j·k/2 … (j+1)·k/2 − 1`.
//! Every link has the same bandwidth.

use super::topology::{Host, Link, Topology, TopologyError};

/// Each host's capacities and every link's bandwidth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FatTreeSpec {
    /// `k`: even, ≥ 2.
    pub k: usize,
    /// CPU cores per host.
    pub cpu: f64,
    /// RAM per host, GB.
    pub ram: f64,
    /// GPUs per host.
    pub gpu: f64,
    /// Every link's bandwidth, Mbps.
    pub mbps: f64,
}

impl FatTreeSpec {
    /// Seed 003's data center (§4.2): 24 cores, 256 GB, 1 Gbps links.
    pub fn seed(k: usize) -> FatTreeSpec {
        FatTreeSpec {
            k,
            cpu: 24.0,
            ram: 256.0,
            gpu: 0.0,
            mbps: 1000.0,
        }
    }
}

/// A `k` that is odd or below 2.
#[derive(Clone, Debug, PartialEq)]
pub struct BadK(pub usize);

/// The largest `k`: its fat-tree has k³/4 = 524,288 hosts (each a node of
/// the placement problem), beyond which the tree is refused before it is
/// allocated.
pub const MAX_K: usize = 128;

impl std::fmt::Display for BadK {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "k = {}: a fat-tree needs an even k from 2 to {MAX_K} (4, 8, 20, …; k = {MAX_K} has {} hosts)",
            self.0,
            MAX_K * MAX_K * MAX_K / 4
        )
    }
}

impl std::error::Error for BadK {}

/// Build the fat-tree. Host names are `pP-eE-hH`, switches `core-C`,
/// `pP-aggA`, `pP-edgeE`.
pub fn fat_tree(spec: &FatTreeSpec) -> Result<Topology, FatTreeError> {
    let k = spec.k;
    if !(2..=MAX_K).contains(&k) || k % 2 != 0 {
        return Err(FatTreeError::K(BadK(k)));
    }
    let half = k / 2;
    let mut hosts = Vec::with_capacity(k * half * half);
    for p in 0..k {
        for e in 0..half {
            for h in 0..half {
                hosts.push(Host {
                    name: format!("p{p}-e{e}-h{h}"),
                    cpu: spec.cpu,
                    ram: spec.ram,
                    gpu: spec.gpu,
                });
            }
        }
    }
    let n_hosts = hosts.len();
    let mut switches: Vec<String> = (0..half * half).map(|c| format!("core-{c}")).collect();
    let core = |c: usize| n_hosts + c;
    let agg = |p: usize, a: usize| n_hosts + half * half + p * k + a;
    let edge = |p: usize, e: usize| n_hosts + half * half + p * k + half + e;
    for p in 0..k {
        switches.extend((0..half).map(|a| format!("p{p}-agg{a}")));
        switches.extend((0..half).map(|e| format!("p{p}-edge{e}")));
    }
    let link = |a, b| Link {
        a,
        b,
        mbps: spec.mbps,
    };
    let mut links = Vec::with_capacity(3 * n_hosts);
    for p in 0..k {
        for e in 0..half {
            for h in 0..half {
                links.push(link((p * half + e) * half + h, edge(p, e)));
            }
            for a in 0..half {
                links.push(link(edge(p, e), agg(p, a)));
            }
        }
        for a in 0..half {
            for c in 0..half {
                links.push(link(agg(p, a), core(a * half + c)));
            }
        }
    }
    Topology::new(hosts, switches, links).map_err(FatTreeError::Topology)
}

/// Why a fat-tree could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum FatTreeError {
    /// `k` is odd or too small.
    K(BadK),
    /// A capacity is out of range.
    Topology(TopologyError),
}

impl std::fmt::Display for FatTreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FatTreeError::K(e) => e.fmt(f),
            FatTreeError::Topology(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FatTreeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k4_has_16_hosts_20_switches_48_links() {
        let t = fat_tree(&FatTreeSpec::seed(4)).unwrap();
        assert_eq!(t.hosts().len(), 16);
        assert_eq!(t.switches().len(), 20); // 4 core + 4 pods × (2 agg + 2 edge)
        assert_eq!(t.links().len(), 48); // 16 host–edge + 16 edge–agg + 16 agg–core
                                         // every host has one link, every switch k = 4
        for n in 0..t.nodes() {
            let expected = if n < 16 { 1 } else { 4 };
            assert_eq!(t.incident(n).len(), expected, "{}", t.node_name(n));
        }
        assert_eq!(t.node_name(0), "p0-e0-h0");
        assert_eq!(t.node_name(16), "core-0");
    }

    #[test]
    fn k20_counts_and_odd_k_refused() {
        let t = fat_tree(&FatTreeSpec::seed(20)).unwrap();
        assert_eq!(t.hosts().len(), 2000);
        assert_eq!(t.switches().len(), 100 + 20 * 20);
        assert_eq!(t.links().len(), 6000);
        assert_eq!(
            fat_tree(&FatTreeSpec::seed(5)).unwrap_err(),
            FatTreeError::K(BadK(5))
        );
        assert!(fat_tree(&FatTreeSpec::seed(0)).is_err());
        // Refused before anything is allocated (it was a capacity overflow panic).
        assert_eq!(
            fat_tree(&FatTreeSpec::seed(4_000_000)).unwrap_err(),
            FatTreeError::K(BadK(4_000_000))
        );
        assert!(fat_tree(&FatTreeSpec::seed(MAX_K + 2)).is_err());
    }
}
