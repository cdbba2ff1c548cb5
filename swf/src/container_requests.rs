//! Seeded request sets for seed 003's experiments (`interstice mcdm
//! requests`, `mcdm run --generate`). The seed gives some of each set's
//! parameters and is silent on others; what is chosen here is said per set
//! and in `docs/placement.md`.

use crate::SplitMix64;
use interstice_core::mcdm::request::{Container, Request, Span, VirtualLink};

/// Which experiment's requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestSet {
    /// §4.2.2 (Table 10): 4 containers, `proc` uniform in 1..=250 events,
    /// 0 to 2 of the 4 (up to 50 %) in one pod, every pair of containers
    /// linked with a max uniform in (0, 50] Mbps and a min of half of it.
    /// The seed gives no CPU or RAM: min uniform in [0.5, 4] cores and
    /// [1, 16] GB, max 1 to 2 times the min.
    Network,
    /// Chapter 5 (Table 11): 4 containers of [0.1, 1] vCPU and [25, 1000] MB,
    /// each pair linked at one of Table 11's bandwidths (0.16, 5.09, 0,
    /// 0.71, 4.08, 2.95 Mbps, drawn uniformly, min = max), `proc` uniform
    /// in 1..=200; with deadlines, `deadline = submit + max(proc, ⌊U[0, 7]·proc⌋)`.
    Temporal,
    /// §4.2.1's Set 1 (the Borg trace scaled to 10 % of a server; the trace
    /// itself is not here): one container per request, CPU a fraction
    /// uniform in (0, 0.1] of 24 cores (min = max: the trace has one
    /// value), RAM that fraction times uniform [0.2, 0.5] of 256 GB,
    /// `proc` log-uniform in [1, 3600] events, no network.
    Quality1,
    /// §4.2.1's Set 2: as Set 1 with the fraction uniform in [0.25, 1].
    Quality2,
}

impl RequestSet {
    /// Every set.
    pub const ALL: [RequestSet; 4] = [
        RequestSet::Network,
        RequestSet::Temporal,
        RequestSet::Quality1,
        RequestSet::Quality2,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            RequestSet::Network => "network",
            RequestSet::Temporal => "temporal",
            RequestSet::Quality1 => "quality1",
            RequestSet::Quality2 => "quality2",
        }
    }
}

impl std::str::FromStr for RequestSet {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RequestSet::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = RequestSet::ALL.iter().map(|r| r.name()).collect();
                format!("{s:?} is not a request set: use one of {}", names.join(", "))
            })
    }
}

/// How many, how fast, from which seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenOptions {
    /// Requests.
    pub requests: u64,
    /// Submissions are uniform over `0..span` events.
    pub span: u64,
    /// The seed of [`SplitMix64`].
    pub seed: u64,
    /// Deadlines (the temporal set's "maximum time" stage).
    pub deadlines: bool,
}

/// Uniform integer in `lo..=hi`.
fn int(rng: &mut SplitMix64, lo: u64, hi: u64) -> u64 {
    lo + rng.below(hi - lo + 1)
}

/// Every pair of `n` containers, linked by `mbps(rng)`.
fn all_pairs(n: usize, rng: &mut SplitMix64, mbps: impl Fn(&mut SplitMix64) -> Span) -> Vec<VirtualLink> {
    let mut links = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            links.push(VirtualLink {
                a,
                b,
                mbps: mbps(rng),
            });
        }
    }
    links
}

/// The requests of `set`, ids from 1, sorted by submission.
pub fn generate(set: RequestSet, options: &GenOptions) -> Vec<Request> {
    let mut rng = SplitMix64::new(options.seed);
    let mut submits: Vec<u64> = (0..options.requests)
        .map(|_| rng.below(options.span.max(1)))
        .collect();
    submits.sort_unstable();
    submits
        .into_iter()
        .zip(1..)
        .map(|(submit, id)| one(set, id, submit, options.deadlines, &mut rng))
        .collect()
}

/// `[min, max]` rounded to hundredths (files stay readable; min ≤ max kept).
fn span(min: f64, max: f64) -> Span {
    let round = |v: f64| (v * 100.0).round() / 100.0;
    Span {
        min: round(min),
        max: round(max).max(round(min)),
    }
}

fn one(set: RequestSet, id: u64, submit: u64, deadlines: bool, rng: &mut SplitMix64) -> Request {
    let mut r = Request {
        id,
        submit,
        proc: 1,
        deadline: None,
        containers: Vec::new(),
        links: Vec::new(),
    };
    match set {
        RequestSet::Network => {
            r.proc = int(rng, 1, 250);
            let pod = rng.below(3) as usize;
            r.containers = (0..4)
                .map(|i| {
                    let cpu = rng.uniform(0.5, 4.0);
                    let ram = rng.uniform(1.0, 16.0);
                    Container {
                        cpu: span(cpu, cpu * rng.uniform(1.0, 2.0)),
                        ram: span(ram, ram * rng.uniform(1.0, 2.0)),
                        gpu: Span::exactly(0.0),
                        pod: (i < pod).then_some(0),
                    }
                })
                .collect();
            r.links = all_pairs(4, rng, |rng| {
                let max = (50.0 * (1.0 - rng.next_f64())).max(0.02);
                span(max / 2.0, max)
            });
        }
        RequestSet::Temporal => {
            r.proc = int(rng, 1, 200);
            r.containers = (0..4)
                .map(|_| Container {
                    cpu: span(0.1, 1.0),
                    ram: span(0.025, 1.0),
                    gpu: Span::exactly(0.0),
                    pod: None,
                })
                .collect();
            const TABLE_11: [f64; 6] = [0.16, 5.09, 0.0, 0.71, 4.08, 2.95];
            r.links = all_pairs(4, rng, |rng| Span::exactly(TABLE_11[rng.below(6) as usize]));
            if deadlines {
                let extra = (rng.uniform(0.0, 7.0) * r.proc as f64) as u64;
                r.deadline = Some(submit + extra.max(r.proc));
            }
        }
        RequestSet::Quality1 | RequestSet::Quality2 => {
            let fraction = match set {
                RequestSet::Quality1 => 0.1 * (1.0 - rng.next_f64()),
                _ => rng.uniform(0.25, 1.0),
            };
            r.proc = rng.log_uniform(1.0, 3600.0).round().max(1.0) as u64;
            let ram = fraction * rng.uniform(0.2, 0.5) * 256.0;
            r.containers = vec![Container {
                cpu: span(fraction * 24.0, fraction * 24.0),
                ram: span(ram, ram),
                gpu: Span::exactly(0.0),
                pod: None,
            }];
        }
    }
    r
}

/// §4.1's scalability request: `containers` homogeneous small containers
/// (0.01 core, 0.01 GB each, no pod, no network), submitted at 0, 1 event.
pub fn scalability_request(containers: usize) -> Request {
    Request {
        id: 1,
        submit: 0,
        proc: 1,
        deadline: None,
        containers: vec![
            Container {
                cpu: Span::exactly(0.01),
                ram: Span::exactly(0.01),
                gpu: Span::exactly(0.0),
                pod: None,
            };
            containers
        ],
        links: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_seeded_valid_and_shaped_as_said() {
        let options = GenOptions {
            requests: 200,
            span: 50,
            seed: 7,
            deadlines: true,
        };
        for set in RequestSet::ALL {
            let a = generate(set, &options);
            assert_eq!(a, generate(set, &options), "{}", set.name());
            assert_eq!(a.len(), 200);
            for r in &a {
                assert_eq!(r.check(), Ok(()), "{} {r:?}", set.name());
                assert!(r.submit < 50);
            }
        }
        let net = generate(RequestSet::Network, &options);
        assert!(net
            .iter()
            .all(|r| r.containers.len() == 4 && r.links.len() == 6 && r.proc <= 250));
        assert!(net
            .iter()
            .flat_map(|r| &r.links)
            .all(|l| l.mbps.max <= 50.0 && (l.mbps.min - l.mbps.max / 2.0).abs() <= 0.01));
        assert!(net
            .iter()
            .all(|r| r.containers.iter().filter(|c| c.pod.is_some()).count() <= 2));
        let temporal = generate(RequestSet::Temporal, &options);
        assert!(temporal.iter().all(|r| r
            .deadline
            .is_some_and(|d| d >= r.submit + r.proc && d <= r.submit + 7 * r.proc)));
        let q1 = generate(RequestSet::Quality1, &options);
        assert!(q1.iter().all(|r| r.containers[0].cpu.max <= 2.4));
        assert_eq!("quality2".parse(), Ok(RequestSet::Quality2));
    }
}
