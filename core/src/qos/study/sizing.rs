//! The infrastructure sizes of seed 001's study (§4.3): `N` from the
//! workload's peak demand on a host of infinite capacity, then `0.9N` and
//! `0.8N` by removing hosts at random.

use crate::time::Time;
use std::fmt;

/// The resources a host offers and a request asks for.
pub const RESOURCES: [&str; 2] = ["cpu", "memory"];

/// What one request holds while it runs on a host of infinite capacity:
/// all its instances from its admission on, never queued.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Demand {
    /// Admission.
    pub submit: Time,
    /// Completion (`None`: a service, to the end of the run).
    pub end: Option<Time>,
    /// CPU and memory held (instances × each instance's).
    pub amount: [f64; 2],
}

/// The largest total of each resource ever held at once (an instant's ends
/// before its admissions).
pub fn peak(demands: &[Demand]) -> [f64; 2] {
    let mut events: Vec<(Time, bool, [f64; 2])> = Vec::with_capacity(demands.len() * 2);
    for d in demands {
        events.push((d.submit, true, d.amount));
        if let Some(end) = d.end {
            events.push((end, false, d.amount));
        }
    }
    // Ends (false) sort before starts (true) at one instant.
    events.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut now, mut top) = ([0.0f64; 2], [0.0f64; 2]);
    for (_, start, amount) in events {
        for r in 0..2 {
            now[r] += if start { amount[r] } else { -amount[r] };
            top[r] = top[r].max(now[r]);
        }
    }
    top
}

/// The three infrastructures of a sample: indices into the host pool (a
/// host may be drawn more than once), each smaller one a subset of the
/// one before.
#[derive(Clone, Debug, PartialEq)]
pub struct Sizes {
    /// `N`: hosts drawn until their total of the dominant resource covers its peak.
    pub n: Vec<usize>,
    /// `0.9N`: hosts of `n` removed at random until the total is at most 90 % of the peak.
    pub n90: Vec<usize>,
    /// `0.8N`: more removed, to at most 80 %.
    pub n80: Vec<usize>,
    /// The resource with the largest peak (index into [`RESOURCES`]).
    pub dominant: usize,
    /// The peak of each resource.
    pub peak: [f64; 2],
}

/// Why a sample cannot be sized.
#[derive(Clone, Debug, PartialEq)]
pub enum SizingError {
    /// No host of the pool offers the dominant resource.
    NoCapacity {
        /// The resource.
        resource: &'static str,
    },
    /// The workload asks for nothing.
    NoDemand,
}

impl fmt::Display for SizingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizingError::NoCapacity { resource } => {
                write!(
                    f,
                    "no host of the pool offers {resource}, the resource of the largest peak"
                )
            }
            SizingError::NoDemand => f.write_str("the sample asks for no CPU and no memory: nothing to size"),
        }
    }
}

impl std::error::Error for SizingError {}

/// Size the infrastructures for `peak` from `pool` (each host's CPU and
/// memory). `draw(k)` returns a uniform index below `k` (the caller's seeded
/// generator). Hosts are drawn one at a time, with replacement (a pool of
/// machine types stands for the trace's machines), until their total of the
/// dominant resource reaches its peak; then removed one at a time at random
/// until the total is at most `0.9` of the peak, then `0.8`.
pub fn size(
    pool: &[[f64; 2]],
    peak: [f64; 2],
    draw: &mut dyn FnMut(usize) -> usize,
) -> Result<Sizes, SizingError> {
    let dominant = if peak[1] > peak[0] { 1 } else { 0 };
    let target = peak[dominant];
    if target <= 0.0 {
        return Err(SizingError::NoDemand);
    }
    let offering: Vec<usize> = (0..pool.len()).filter(|&i| pool[i][dominant] > 0.0).collect();
    if offering.is_empty() {
        return Err(SizingError::NoCapacity {
            resource: RESOURCES[dominant],
        });
    }
    let mut hosts = Vec::new();
    let mut total = 0.0;
    while total < target {
        let host = offering[draw(offering.len())];
        total += pool[host][dominant];
        hosts.push(host);
    }
    let n = hosts.clone();
    let mut shrink = |fraction: f64, hosts: &mut Vec<usize>, total: &mut f64| {
        while *total > fraction * target && !hosts.is_empty() {
            let gone = hosts.swap_remove(draw(hosts.len()));
            *total -= pool[gone][dominant];
        }
        hosts.clone()
    };
    let n90 = shrink(0.9, &mut hosts, &mut total);
    let n80 = shrink(0.8, &mut hosts, &mut total);
    Ok(Sizes {
        n,
        n90,
        n80,
        dominant,
        peak,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demand(submit: i64, end: Option<i64>, cpu: f64, memory: f64) -> Demand {
        Demand {
            submit: Time::from_secs(submit),
            end: end.map(Time::from_secs),
            amount: [cpu, memory],
        }
    }

    #[test]
    fn the_peak_on_an_infinite_host() {
        // cpu: 0.5 on [0,10), 0.25 on [5,20), 0.5 from 10 (ends at 10 first): peak 0.75.
        // memory: 0.125 + 0.5 on [5,10) = 0.625, then 0.5 + 0.375 = 0.875 from 10.
        let d = [
            demand(0, Some(10), 0.5, 0.125),
            demand(5, Some(20), 0.25, 0.5),
            demand(10, None, 0.5, 0.375),
        ];
        assert_eq!(peak(&d), [0.75, 0.875]);
        assert_eq!(peak(&[]), [0.0, 0.0]);
    }

    /// Memory peaks higher, so it drives: hosts of (cpu, memory) (1, 0.5)
    /// and (0.5, 0.25), drawn in a fixed order, until 2.0 of memory.
    #[test]
    fn n_covers_the_peak_of_the_scarcest_resource_and_smaller_sizes_remove_hosts() {
        let pool = [[1.0, 0.5], [0.5, 0.25], [1.0, 0.0]];
        let mut order = [0usize, 1, 0, 0, 1, 0, 0, 0].into_iter();
        let mut draw = |k: usize| order.next().unwrap() % k;
        let s = size(&pool, [1.2, 2.0], &mut draw).unwrap();
        assert_eq!(s.dominant, 1);
        // Memory drawn: 0.5 + 0.25 + 0.5 + 0.5 + 0.25 = 2.0 ≥ 2.0 (host 2 offers no memory: never drawn).
        assert_eq!(s.n, vec![0, 1, 0, 0, 1]);
        let memory = |hosts: &[usize]| hosts.iter().map(|&h| pool[h][1]).sum::<f64>();
        assert!(memory(&s.n) >= 2.0);
        assert!(memory(&s.n90) <= 0.9 * 2.0 && memory(&s.n80) <= 0.8 * 2.0);
        // 0.9N: the first removal (host 0, 0.5) leaves 1.5 <= 1.8; that is
        // already under 0.8N's 1.6 too, so 0.8N removes nothing more.
        assert_eq!(s.n90, vec![1, 1, 0, 0]);
        assert_eq!(s.n80, s.n90);
        // Finer hosts: each size strictly smaller, each a subset of the one before.
        let fine = [[0.25, 0.25]];
        let mut i = 0usize;
        let mut turn = |k: usize| {
            i += 1;
            i % k
        };
        let s = size(&fine, [2.0, 0.0], &mut turn).unwrap();
        assert_eq!((s.n.len(), s.n90.len(), s.n80.len()), (8, 7, 6));
        for (small, big) in [(&s.n90, &s.n), (&s.n80, &s.n90)] {
            let mut left = big.clone();
            for h in small {
                let i = left.iter().position(|x| x == h).expect("a subset");
                left.remove(i);
            }
        }
        assert_eq!(size(&pool, [0.0, 0.0], &mut |_| 0), Err(SizingError::NoDemand));
        assert_eq!(
            size(&[[1.0, 0.0]], [0.1, 0.5], &mut |_| 0),
            Err(SizingError::NoCapacity { resource: "memory" })
        );
    }
}
