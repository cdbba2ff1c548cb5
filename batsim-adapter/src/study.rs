//! Seed 001's study run (`interstice qos study`): for every workload sample,
//! its peak demand on a host of infinite capacity sizes three
//! infrastructures (`N`, `0.9N`, `0.8N`, [`sizing`]); both policies run on
//! each, in parallel over the machine's cores; the runs are tallied in the
//! samples' order ([`Study`]), so the result does not depend on which run
//! finished first.

use interstice_core::qos::study::sizing::{self, Demand};
use interstice_core::qos::study::tally::{self, Pair};
use interstice_core::qos::study::{Study, SIZES};
use interstice_core::qos::{simulate_with, Eviction, HostSpec, Needs, Outcome, QosConfig, QosError, Request};
use interstice_core::rng::SplitMix64;
use interstice_core::Time;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One workload sample of a study.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Its requests, each with its memory, constraints and instances.
    pub requests: Vec<(Request, Needs)>,
    /// The machines its infrastructures are drawn from: slots, memory.
    pub pool: Vec<(u32, u32)>,
    /// The seed of the host draws.
    pub seed: u64,
    /// The end of its runs (services run until then).
    pub until: Time,
}

/// What a sample's sizing found.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleSizing {
    /// Its requests.
    pub requests: usize,
    /// Peak CPU and memory on a host of infinite capacity (slots, memory units).
    pub peak: [f64; 2],
    /// The resource with the larger peak (index into [`sizing::RESOURCES`]).
    pub dominant: usize,
    /// Hosts at each size, in [`SIZES`]' order.
    pub hosts: [usize; 3],
}

/// Why a study could not run.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// A sample cannot be sized (no demand, or no host offers the dominant resource).
    #[error("sample {sample}: {source}")]
    Sizing {
        /// 1-based.
        sample: usize,
        /// Why.
        source: sizing::SizingError,
    },
    /// A run was refused (its config or requests are not valid).
    #[error("sample {sample}, size {size}: {source}")]
    Run {
        /// 1-based.
        sample: usize,
        /// The size's name.
        size: &'static str,
        /// Why.
        source: QosError,
    },
}

/// The demand a request holds from its admission on a host of infinite
/// capacity: every instance's CPU and memory, to its completion (a service
/// to the end of the run).
fn demands(requests: &[(Request, Needs)]) -> Vec<Demand> {
    requests
        .iter()
        .map(|(r, n)| Demand {
            submit: r.submit,
            end: r.duration.map(|d| r.submit + d),
            amount: [
                f64::from(r.procs) * f64::from(n.instances),
                f64::from(n.memory) * f64::from(n.instances),
            ],
        })
        .collect()
}

/// `base` on the hosts `chosen` of the sample's pool, under `eviction`,
/// until the file's `until` or the sample's end.
fn platform(base: &QosConfig, sample: &Sample, chosen: &[usize], eviction: Eviction) -> QosConfig {
    let pool = &sample.pool;
    let mut cfg = base.clone();
    cfg.eviction = eviction;
    cfg.until = Some(base.until.unwrap_or(sample.until));
    cfg.hosts = chosen.iter().map(|&h| pool[h].0).collect();
    cfg.host_specs = chosen
        .iter()
        .map(|&h| HostSpec {
            memory: Some(pool[h].1),
            ..HostSpec::default()
        })
        .collect();
    cfg
}

/// Run the study: `on_pair(sample, size, pairs)` is called in the
/// samples' and sizes' order for each finished pair of runs (the caller
/// writes the paired availabilities), `threads` runs at once.
pub fn run(
    base: &QosConfig,
    samples: &[Sample],
    threads: usize,
    mut on_pair: impl FnMut(usize, usize, &[Pair]),
) -> Result<(Study, Vec<SampleSizing>), StudyError> {
    let mut sizings = Vec::with_capacity(samples.len());
    let mut tasks: Vec<(usize, usize, QosConfig, QosConfig)> = Vec::new();
    for (s, sample) in samples.iter().enumerate() {
        let peak = sizing::peak(&demands(&sample.requests));
        let pool: Vec<[f64; 2]> = sample
            .pool
            .iter()
            .map(|&(c, m)| [f64::from(c), f64::from(m)])
            .collect();
        let mut rng = SplitMix64::new(sample.seed);
        let sizes = sizing::size(&pool, peak, &mut |k| rng.below(k as u64) as usize).map_err(|source| {
            StudyError::Sizing {
                sample: s + 1,
                source,
            }
        })?;
        for (i, chosen) in [&sizes.n, &sizes.n90, &sizes.n80].into_iter().enumerate() {
            tasks.push((
                s,
                i,
                platform(base, sample, chosen, Eviction::Priority),
                platform(base, sample, chosen, Eviction::QosDriven),
            ));
        }
        sizings.push(SampleSizing {
            requests: sample.requests.len(),
            peak,
            dominant: sizes.dominant,
            hosts: [sizes.n.len(), sizes.n90.len(), sizes.n80.len()],
        });
    }
    type Done = Result<(Outcome, Outcome), StudyError>;
    let results: Vec<Mutex<Option<Done>>> = tasks.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, tasks.len().max(1)) {
            scope.spawn(|| loop {
                let t = next.fetch_add(1, Ordering::Relaxed);
                let Some((s, i, priority, qos)) = tasks.get(t) else {
                    break;
                };
                let requests = &samples[*s].requests;
                let one = |cfg: &QosConfig| {
                    simulate_with(cfg, requests.clone(), Vec::new()).map_err(|source| StudyError::Run {
                        sample: s + 1,
                        size: SIZES[*i],
                        source,
                    })
                };
                let done = one(priority).and_then(|p| Ok((p, one(qos)?)));
                *results[t].lock().unwrap_or_else(|e| e.into_inner()) = Some(done);
            });
        }
    });
    let mut study = Study::new(&base.classes, SIZES.len());
    for ((s, i, _, _), slot) in tasks.iter().zip(results) {
        let done = slot.into_inner().unwrap_or_else(|e| e.into_inner());
        let (p, q) = done.expect("every task ran")?;
        let paired = tally::pairs(&p, &q);
        on_pair(*s, *i, &paired);
        study.add(*i, &p, &q, &paired);
    }
    Ok((study, sizings))
}

/// The end of a sample's run when its file gives none: its horizon, or the
/// last admission or completion of its requests.
pub fn default_until(requests: &[(Request, Needs)], horizon: Option<Time>) -> Time {
    horizon.unwrap_or_else(|| {
        requests
            .iter()
            .map(|(r, _)| r.submit + r.duration.unwrap_or(Time::ZERO))
            .max()
            .unwrap_or(Time::ZERO)
    })
}
