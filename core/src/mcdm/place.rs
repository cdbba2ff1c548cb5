//! One request placed now, or not at all (Algorithms 1–3): each pod on the
//! best-ranked feasible server with the most it can get between its
//! containers' min and max, then each virtual link on the widest path
//! between the two servers. A request that fails anywhere leaves the state
//! as it found it.

use super::request::{Request, Span};
use super::state::{Allocation, State};
use super::topology::Topology;
use super::widest::widest_path;

/// The four criteria of a server (§3, Table 7's columns): free CPU cores,
/// free RAM (GB), `f_u` (1 when it hosts a container, 0 when idle) and
/// `bw_u`, the free bandwidth of its links (Mbps). All are benefits.
pub type ServerValues = [f64; 4];

/// The values of server `u` now.
pub fn server_values(topology: &Topology, state: &State, u: usize) -> ServerValues {
    let bw = topology.incident(u).iter().map(|&l| state.bandwidth[l]).sum();
    let active = if state.containers[u] > 0 { 1.0 } else { 0.0 };
    [state.free[u][0], state.free[u][1], active, bw]
}

/// Why a request was not placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No server holds pod `pod` (an index into [`Request::pods`]) at its minimums.
    NoServer {
        /// The pod.
        pod: usize,
    },
    /// No path has the minimum bandwidth of virtual link `link`.
    NoPath {
        /// The link's index.
        link: usize,
    },
}

/// The most a set of spans gets from `free`: the first of the seed's levels
/// (max, then 10 % of the span less each step) whose sum fits; the step, or
/// `None` when even the minimums do not fit.
fn step_that_fits(spans: &[Span], free: f64) -> Option<u32> {
    (0..=10).find(|&step| spans.iter().map(|s| s.level(step)).sum::<f64>() <= free + 1e-9)
}

/// `[cpu, ram, gpu]` spans of the containers `members`.
fn spans(request: &Request, members: &[usize]) -> [Vec<Span>; 3] {
    let c = |i: usize| &request.containers[i];
    [
        members.iter().map(|&i| c(i).cpu).collect(),
        members.iter().map(|&i| c(i).ram).collect(),
        members.iter().map(|&i| c(i).gpu).collect(),
    ]
}

/// Place `request` on `state`, ranking candidate servers with `order`
/// (given each candidate's [`ServerValues`], it returns their positions
/// best first). On success the state holds the request's resources.
pub fn place<F>(
    topology: &Topology,
    state: &mut State,
    request: &Request,
    order: &F,
) -> Result<Allocation, Failure>
where
    F: Fn(&[ServerValues]) -> Vec<usize>,
{
    let mut alloc = Allocation {
        containers: vec![(usize::MAX, [0.0; 3]); request.containers.len()],
        links: Vec::with_capacity(request.links.len()),
    };
    let mut taken: Vec<(usize, [f64; 3])> = Vec::new();
    let undo = |state: &mut State, taken: &[(usize, [f64; 3])], links: &[(Vec<usize>, f64)]| {
        for &(u, res) in taken {
            state.host(u, res, -1.0);
        }
        for (path, mbps) in links {
            state.route(path, *mbps, -1.0);
        }
    };
    for (p, members) in request.pods().iter().enumerate() {
        let spans = spans(request, members);
        let mins: [f64; 3] = std::array::from_fn(|r| spans[r].iter().map(|s| s.min).sum());
        let feasible: Vec<usize> = (0..topology.hosts().len())
            .filter(|&u| state.fits(u, mins))
            .collect();
        let values: Vec<ServerValues> = feasible
            .iter()
            .map(|&u| server_values(topology, state, u))
            .collect();
        let Some(&best) = order(&values).first() else {
            undo(state, &taken, &[]);
            return Err(Failure::NoServer { pod: p });
        };
        let u = feasible[best];
        let steps: [u32; 3] =
            std::array::from_fn(|r| step_that_fits(&spans[r], state.free[u][r]).unwrap_or(10));
        for (k, &i) in members.iter().enumerate() {
            let res: [f64; 3] = std::array::from_fn(|r| spans[r][k].level(steps[r]));
            state.host(u, res, 1.0);
            taken.push((u, res));
            alloc.containers[i] = (u, res);
        }
    }
    for (l, vlink) in request.links.iter().enumerate() {
        let (u, v) = (alloc.containers[vlink.a].0, alloc.containers[vlink.b].0);
        let path = widest_path(topology, &state.bandwidth, u, v);
        let granted = path
            .as_ref()
            .and_then(|p| step_that_fits(&[vlink.mbps], p.bottleneck).map(|s| vlink.mbps.level(s)));
        match (path, granted) {
            (Some(path), Some(mbps)) => {
                state.route(&path.links, mbps, 1.0);
                alloc.links.push((path.links, mbps));
            }
            _ if vlink.mbps.min == 0.0 => alloc.links.push((Vec::new(), 0.0)),
            _ => {
                undo(state, &taken, &alloc.links);
                return Err(Failure::NoPath { link: l });
            }
        }
    }
    Ok(alloc)
}

/// `U(i)` (Eq. 3.3) of each container: the mean, over the resources it asks
/// for (max > 0), of what it got over its max; `None` for a container that
/// asks for nothing.
pub fn request_utilities(request: &Request, alloc: &Allocation) -> Vec<Option<f64>> {
    request
        .containers
        .iter()
        .zip(&alloc.containers)
        .map(|(c, (_, got))| {
            let ratios: Vec<f64> = [c.cpu, c.ram, c.gpu]
                .iter()
                .zip(got)
                .filter(|(s, _)| s.max > 0.0)
                .map(|(s, g)| g / s.max)
                .collect();
            (!ratios.is_empty()).then(|| ratios.iter().sum::<f64>() / ratios.len() as f64)
        })
        .collect()
}

/// `U(ij)` (Eq. 3.4) of each virtual link: the bandwidth it got over its
/// max (the same on every link of its path: the seed's sum over the path
/// read as the rate carried); `None` for a link whose max is 0.
pub fn network_utilities(request: &Request, alloc: &Allocation) -> Vec<Option<f64>> {
    request
        .links
        .iter()
        .zip(&alloc.links)
        .map(|(l, (_, mbps))| (l.mbps.max > 0.0).then(|| mbps / l.mbps.max))
        .collect()
}
