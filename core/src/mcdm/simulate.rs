//! The discrete-event loop (§3.1, Algorithm 1 with and without
//! resubmission): at each instant the requests that end give back their
//! resources, the arrivals and due retries join the queue, and the queue is
//! tried once in the order `φ(t)`. A request not placed is, without
//! resubmission, rejected; with resubmission it waits `WAIT` events (and at
//! least until some running request ends: nothing frees before that) and
//! is tried again, while `s(t) + proc_I <= deadline_I`.

use super::meter::{mean_of, Meter, Summary};
use super::place::{network_utilities, place, request_utilities, ServerValues};
use super::queue::QueueOrder;
use super::request::Request;
use super::state::{Allocation, State};
use super::topology::Topology;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How the queue is run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunConfig {
    /// Table 6's order.
    pub order: QueueOrder,
    /// `Some(WAIT)`: the algorithm with resubmission, retrying after `WAIT`
    /// events (≥ 1); `None`: without.
    pub resubmit: Option<u64>,
}

/// What became of one request.
#[derive(Clone, Debug, PartialEq)]
pub enum Fate {
    /// Started at `start`, holding `alloc` until `start + proc`.
    Placed {
        /// `sub_I + wait_I`.
        start: u64,
        /// What it held.
        alloc: Allocation,
    },
    /// Never placed; `deadline` when the deadline is what ended its tries.
    Unplaced {
        /// Whether its deadline ruled out another try.
        deadline: bool,
    },
}

/// A run: each request's fate (in input order) and the summary.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// One per request, in input order.
    pub fates: Vec<Fate>,
    /// The metrics.
    pub summary: Summary,
}

/// The largest CPU, RAM and GPU of one server: the queue orders' scale.
pub fn resource_scale(topology: &Topology) -> [f64; 3] {
    topology.hosts().iter().fold([0.0f64; 3], |m, h| {
        [m[0].max(h.cpu), m[1].max(h.ram), m[2].max(h.gpu)]
    })
}

/// Run `requests` (checked) on `topology`, ranking servers with `order`.
pub fn simulate<F>(topology: &Topology, requests: &[Request], config: RunConfig, order: &F) -> Outcome
where
    F: Fn(&[ServerValues]) -> Vec<usize>,
{
    let scale = resource_scale(topology);
    let mut state = State::new(topology);
    let mut meter = Meter::new(topology);
    let mut fates: Vec<Option<Fate>> = vec![None; requests.len()];
    let mut arrivals: Vec<usize> = (0..requests.len()).collect();
    arrivals.sort_by_key(|&i| (requests[i].submit, i));
    let mut arrivals = arrivals.into_iter().peekable();
    let mut ends: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut retries: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut summary = Summary {
        requests: requests.len() as u64,
        ..Summary::default()
    };
    loop {
        let next = [
            arrivals.peek().map(|&i| requests[i].submit),
            ends.peek().map(|e| e.0 .0),
            retries.peek().map(|r| r.0 .0),
        ];
        let Some(now) = next.into_iter().flatten().min() else {
            break;
        };
        meter.advance(now, topology, &state);
        while let Some(&Reverse((end, i))) = ends.peek() {
            if end > now {
                break;
            }
            ends.pop();
            if let Some(Fate::Placed { alloc, .. }) = &fates[i] {
                state.apply(alloc, -1.0);
            }
        }
        let mut queue = Vec::new();
        while let Some(&i) = arrivals.peek() {
            if requests[i].submit > now {
                break;
            }
            queue.push(arrivals.next().unwrap_or(i));
        }
        while let Some(&Reverse((t, i))) = retries.peek() {
            if t > now {
                break;
            }
            retries.pop();
            queue.push(i);
        }
        if queue.is_empty() {
            continue;
        }
        summary.events += 1;
        config.order.sort(&mut queue, requests, scale);
        let mut failed = Vec::new();
        // No server has more free than this during the pass (placements only
        // take): a pod whose minimums exceed it fails without a ranking.
        let bound = most_free(&state);
        for i in queue {
            summary.attempts += 1;
            if !could_fit(&requests[i], bound) {
                failed.push(i);
                continue;
            }
            match place(topology, &mut state, &requests[i], order) {
                Ok(alloc) => {
                    ends.push(Reverse((now + requests[i].proc, i)));
                    fates[i] = Some(Fate::Placed { start: now, alloc });
                }
                Err(_) => failed.push(i),
            }
        }
        meter.observe(topology, &state);
        let first_end = ends.peek().map(|e| e.0 .0);
        for i in failed {
            let r = &requests[i];
            let retry = match (config.resubmit, first_end) {
                (Some(wait), Some(end)) => Some((now + wait.max(1)).max(end)),
                _ => None,
            };
            match retry {
                Some(t) if r.deadline.map_or(true, |d| t + r.proc <= d) => retries.push(Reverse((t, i))),
                Some(_) => fates[i] = Some(Fate::Unplaced { deadline: true }),
                None => fates[i] = Some(Fate::Unplaced { deadline: false }),
            }
        }
    }
    meter.finish(&mut summary);
    let fates: Vec<Fate> = fates
        .into_iter()
        .map(|f| f.unwrap_or(Fate::Unplaced { deadline: false }))
        .collect();
    tally(requests, &fates, &mut summary);
    Outcome { fates, summary }
}

/// The most free CPU, RAM and GPUs of any one server.
fn most_free(state: &State) -> [f64; 3] {
    state.free.iter().fold([0.0f64; 3], |m, f| {
        [m[0].max(f[0]), m[1].max(f[1]), m[2].max(f[2])]
    })
}

/// Whether every pod's minimums fit within `bound` (necessary, not
/// sufficient: [`place`] decides).
fn could_fit(request: &Request, bound: [f64; 3]) -> bool {
    request.pods().iter().all(|members| {
        (0..3).all(|r| {
            let min: f64 = members
                .iter()
                .map(|&i| {
                    let c = &request.containers[i];
                    [c.cpu, c.ram, c.gpu][r].min
                })
                .sum();
            min <= bound[r] + 1e-9
        })
    })
}

/// The per-request fields of the summary.
fn tally(requests: &[Request], fates: &[Fate], summary: &mut Summary) {
    let mut slowdowns = Vec::new();
    let mut delays = Vec::new();
    let mut u_i = Vec::new();
    let mut u_ij = Vec::new();
    for (r, fate) in requests.iter().zip(fates) {
        match fate {
            Fate::Placed { start, alloc } => {
                let wait = start - r.submit;
                delays.push(wait);
                slowdowns.push(Some((wait + r.proc) as f64 / r.proc as f64));
                u_i.extend(request_utilities(r, alloc));
                u_ij.extend(network_utilities(r, alloc));
            }
            Fate::Unplaced { deadline } => {
                summary.unplaced += 1;
                summary.unplaced_deadline += u64::from(*deadline);
            }
        }
    }
    summary.placed = delays.len() as u64;
    summary.delayed = delays.iter().filter(|&&d| d > 0).count() as u64;
    summary.total_delay = delays.iter().sum();
    summary.max_delay = delays.iter().copied().max();
    summary.mean_delay = mean_of(delays.iter().map(|&d| Some(d as f64)));
    summary.mean_slowdown = mean_of(slowdowns);
    summary.request_utility = mean_of(u_i);
    summary.network_utility = mean_of(u_ij);
}
