//! The run's metrics (§3.2, chapters 4–5): delays and slowdown of the
//! requests, utilities `U(i)` and `U(ij)`, and the data center's footprint
//! and fragmentation integrated over time. Undefined values are `None`.

use super::state::State;
use super::topology::Topology;

/// What a run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Requests in the input.
    pub requests: u64,
    /// Placed, at their submission or later.
    pub placed: u64,
    /// Placed after a wait (`wait_I > 0`).
    pub delayed: u64,
    /// Never placed: no resubmission, a deadline passed, or a request that
    /// does not fit even in an empty data center.
    pub unplaced: u64,
    /// Of the unplaced, those whose deadline could no longer be met.
    pub unplaced_deadline: u64,
    /// Placement attempts, retries included.
    pub attempts: u64,
    /// Instants at which the scheduler ran (the seed's "events").
    pub events: u64,
    /// Mean `wait_I` of the placed requests, events.
    pub mean_delay: Option<f64>,
    /// Sum of `wait_I`, events.
    pub total_delay: u64,
    /// Largest `wait_I`.
    pub max_delay: Option<u64>,
    /// Mean `(wait_I + proc_I) / proc_I` of the placed requests.
    pub mean_slowdown: Option<f64>,
    /// Allocated CPU over the data center's CPU, averaged over the run
    /// (first submission to last end).
    pub cpu_footprint: Option<f64>,
    /// Likewise RAM.
    pub ram_footprint: Option<f64>,
    /// Likewise bandwidth (reserved Mbps over the links' Mbps).
    pub bandwidth_footprint: Option<f64>,
    /// `F(N^s)` (Eq. 3.1) averaged over the run.
    pub server_fragmentation: Option<f64>,
    /// Its largest value.
    pub server_fragmentation_peak: Option<f64>,
    /// `F(E^s)` (Eq. 3.2) averaged over the run.
    pub link_fragmentation: Option<f64>,
    /// Its largest value.
    pub link_fragmentation_peak: Option<f64>,
    /// Largest CPU footprint at an instant.
    pub cpu_footprint_peak: Option<f64>,
    /// Mean `U(ij)` over the placed requests' virtual links (max > 0).
    pub network_utility: Option<f64>,
    /// Mean `U(i)` over the placed requests' containers.
    pub request_utility: Option<f64>,
    /// First submission to last end, events.
    pub span: u64,
}

/// Time integrals of the data center's use.
#[derive(Clone, Debug, Default)]
pub struct Meter {
    last: Option<u64>,
    first: Option<u64>,
    /// ∫ of [cpu, ram, bw, active servers, active links] dt.
    area: [f64; 5],
    peak_servers: f64,
    peak_links: f64,
    peak_cpu: f64,
    capacity: [f64; 5],
}

impl Meter {
    /// A meter for `topology`.
    pub fn new(topology: &Topology) -> Meter {
        let total = |f: fn(&super::topology::Host) -> f64| topology.hosts().iter().map(f).sum::<f64>();
        Meter {
            capacity: [
                total(|h| h.cpu),
                total(|h| h.ram),
                topology.links().iter().map(|l| l.mbps).sum(),
                topology.hosts().len() as f64,
                topology.links().len() as f64,
            ],
            ..Meter::default()
        }
    }

    /// What `state` uses: [cpu, ram, bw, active servers, active links].
    fn used(&self, topology: &Topology, state: &State) -> [f64; 5] {
        let mut u = [0.0; 5];
        for (h, (free, n)) in topology
            .hosts()
            .iter()
            .zip(state.free.iter().zip(&state.containers))
        {
            u[0] += h.cpu - free[0];
            u[1] += h.ram - free[1];
            u[3] += f64::from(u8::from(*n > 0));
        }
        for (l, (free, flows)) in topology
            .links()
            .iter()
            .zip(state.bandwidth.iter().zip(&state.flows))
        {
            u[2] += l.mbps - free;
            u[4] += f64::from(u8::from(*flows > 0));
        }
        u
    }

    /// The state held from the last instant until `now`; call before each
    /// change, with the state as it was.
    pub fn advance(&mut self, now: u64, topology: &Topology, state: &State) {
        if let Some(last) = self.last {
            if now > last {
                let used = self.used(topology, state);
                let dt = (now - last) as f64;
                for (a, u) in self.area.iter_mut().zip(used) {
                    *a += u * dt;
                }
            }
        }
        self.first.get_or_insert(now);
        self.last = Some(now);
    }

    /// Note the state after a pass (for the peaks).
    pub fn observe(&mut self, topology: &Topology, state: &State) {
        let used = self.used(topology, state);
        self.peak_cpu = self.peak_cpu.max(used[0]);
        self.peak_servers = self.peak_servers.max(used[3]);
        self.peak_links = self.peak_links.max(used[4]);
    }

    /// Fill the summary's data-center fields.
    pub fn finish(&self, summary: &mut Summary) {
        let span = match (self.first, self.last) {
            (Some(f), Some(l)) if l > f => l - f,
            _ => 0,
        };
        summary.span = span;
        let mean = |i: usize| {
            (span > 0 && self.capacity[i] > 0.0).then(|| self.area[i] / (self.capacity[i] * span as f64))
        };
        summary.cpu_footprint = mean(0);
        summary.ram_footprint = mean(1);
        summary.bandwidth_footprint = mean(2);
        summary.server_fragmentation = mean(3);
        summary.link_fragmentation = mean(4);
        let peak =
            |v: f64, i: usize| (self.first.is_some() && self.capacity[i] > 0.0).then(|| v / self.capacity[i]);
        summary.cpu_footprint_peak = peak(self.peak_cpu, 0);
        summary.server_fragmentation_peak = peak(self.peak_servers, 3);
        summary.link_fragmentation_peak = peak(self.peak_links, 4);
    }
}

/// The mean of the defined values, `None` if there is none.
pub fn mean_of(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let (sum, n) = values
        .into_iter()
        .flatten()
        .fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}
