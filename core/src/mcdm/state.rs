//! The data center's residual capacities while requests come and go: each
//! server's free CPU, RAM and GPUs and its number of containers (`f_u`),
//! each link's free bandwidth and number of virtual links through it.

use super::topology::Topology;

/// What one placed request holds, to give back at its end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Allocation {
    /// `(server, [cpu, ram, gpu])` for each container, in container order.
    pub containers: Vec<(usize, [f64; 3])>,
    /// `(path's links, Mbps)` for each virtual link, in link order (an
    /// empty path: both containers share a server).
    pub links: Vec<(Vec<usize>, f64)>,
}

/// Residual capacities.
#[derive(Clone, Debug)]
pub struct State {
    /// Free `[cpu, ram, gpu]` per server.
    pub free: Vec<[f64; 3]>,
    /// Containers per server.
    pub containers: Vec<u32>,
    /// Free Mbps per link.
    pub bandwidth: Vec<f64>,
    /// Virtual links per link.
    pub flows: Vec<u32>,
}

/// Round-off left by adding and removing fractions is not capacity.
const EPS: f64 = 1e-9;

impl State {
    /// An empty data center.
    pub fn new(topology: &Topology) -> State {
        State {
            free: topology.hosts().iter().map(|h| [h.cpu, h.ram, h.gpu]).collect(),
            containers: vec![0; topology.hosts().len()],
            bandwidth: topology.links().iter().map(|l| l.mbps).collect(),
            flows: vec![0; topology.links().len()],
        }
    }

    /// Whether `need` fits in server `u`'s free resources.
    pub fn fits(&self, u: usize, need: [f64; 3]) -> bool {
        self.free[u]
            .iter()
            .zip(need)
            .all(|(free, need)| need <= free + EPS)
    }

    /// Take (`sign` 1) or give back (`sign` −1) a container's resources.
    pub fn host(&mut self, u: usize, res: [f64; 3], sign: f64) {
        for (free, r) in self.free[u].iter_mut().zip(res) {
            *free -= sign * r;
            if free.abs() < EPS {
                *free = 0.0;
            }
        }
        if sign > 0.0 {
            self.containers[u] += 1;
        } else {
            self.containers[u] -= 1;
        }
    }

    /// Take or give back `mbps` on every link of `path`.
    pub fn route(&mut self, path: &[usize], mbps: f64, sign: f64) {
        for &l in path {
            self.bandwidth[l] -= sign * mbps;
            if self.bandwidth[l].abs() < EPS {
                self.bandwidth[l] = 0.0;
            }
            if sign > 0.0 {
                self.flows[l] += 1;
            } else {
                self.flows[l] -= 1;
            }
        }
    }

    /// Take (`sign` 1) or give back (−1) everything `a` holds.
    pub fn apply(&mut self, a: &Allocation, sign: f64) {
        for &(u, res) in &a.containers {
            self.host(u, res, sign);
        }
        for (path, mbps) in &a.links {
            self.route(path, *mbps, sign);
        }
    }
}
