//! The widest path of §3.8.3: Dijkstra modified to maximise a path's
//! bottleneck (the least residual bandwidth of its links) between two
//! hosts. Among paths of equal bottleneck the one with fewer links wins
//! (it reserves bandwidth on fewer links; the seed does not say), then the
//! one found first.

use super::topology::Topology;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A path: its links from source to destination and its bottleneck, Mbps.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// Link indices, in order.
    pub links: Vec<usize>,
    /// The least residual bandwidth along them (`f64::INFINITY` for the
    /// empty path of a host to itself).
    pub bottleneck: f64,
}

/// A label in the queue: the best (bottleneck, hops) known at a node.
#[derive(PartialEq)]
struct Label {
    width: f64,
    hops: usize,
    node: usize,
}

impl Eq for Label {}

impl Ord for Label {
    fn cmp(&self, other: &Self) -> Ordering {
        self.width
            .total_cmp(&other.width)
            .then(other.hops.cmp(&self.hops))
            .then(other.node.cmp(&self.node))
    }
}

impl PartialOrd for Label {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The widest path from `from` to `to` over links whose residual bandwidth
/// (`residual[l]`, Mbps) is positive; `None` when none joins them.
pub fn widest_path(topology: &Topology, residual: &[f64], from: usize, to: usize) -> Option<Path> {
    if from == to {
        return Some(Path {
            links: Vec::new(),
            bottleneck: f64::INFINITY,
        });
    }
    let n = topology.nodes();
    let mut width = vec![0.0f64; n];
    let mut hops = vec![usize::MAX; n];
    let mut via = vec![usize::MAX; n];
    let mut done = vec![false; n];
    width[from] = f64::INFINITY;
    hops[from] = 0;
    let mut heap = BinaryHeap::new();
    heap.push(Label {
        width: f64::INFINITY,
        hops: 0,
        node: from,
    });
    while let Some(Label {
        width: w,
        hops: h,
        node,
    }) = heap.pop()
    {
        if done[node] {
            continue;
        }
        done[node] = true;
        if node == to {
            break;
        }
        for &l in topology.incident(node) {
            let next = topology.other_end(l, node);
            // Paths go through switches only: a host is an end, never a hop.
            if done[next] || residual[l] <= 0.0 || (next != to && next < topology.hosts().len()) {
                continue;
            }
            let nw = w.min(residual[l]);
            let nh = h + 1;
            if nw > width[next] || (nw == width[next] && nh < hops[next]) {
                width[next] = nw;
                hops[next] = nh;
                via[next] = l;
                heap.push(Label {
                    width: nw,
                    hops: nh,
                    node: next,
                });
            }
        }
    }
    if !done[to] {
        return None;
    }
    let mut links = Vec::with_capacity(hops[to]);
    let mut node = to;
    while node != from {
        let l = via[node];
        links.push(l);
        node = topology.other_end(l, node);
    }
    links.reverse();
    Some(Path {
        links,
        bottleneck: width[to],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcdm::topology::{Host, Link};

    fn host(name: &str) -> Host {
        Host {
            name: name.into(),
            cpu: 4.0,
            ram: 8.0,
            gpu: 0.0,
        }
    }

    /// Hosts a (0) and b (1); switches s (2), t (3), u (4), v (5).
    /// Short path a–s–b with a 100 Mbps link; long path a–t–u–v–b, 400 Mbps
    /// at worst.
    fn two_paths() -> Topology {
        let l = |a, b, mbps| Link { a, b, mbps };
        Topology::new(
            vec![host("a"), host("b")],
            vec!["s".into(), "t".into(), "u".into(), "v".into()],
            vec![
                l(0, 2, 1000.0), // 0
                l(2, 1, 100.0),  // 1
                l(0, 3, 1000.0), // 2
                l(3, 4, 400.0),  // 3
                l(4, 5, 500.0),  // 4
                l(5, 1, 1000.0), // 5
            ],
        )
        .unwrap()
    }

    #[test]
    fn the_larger_bottleneck_wins_even_if_longer() {
        let t = two_paths();
        let residual: Vec<f64> = t.links().iter().map(|l| l.mbps).collect();
        let p = widest_path(&t, &residual, 0, 1).unwrap();
        assert_eq!(p.links, vec![2, 3, 4, 5]);
        assert_eq!(p.bottleneck, 400.0);
    }

    #[test]
    fn residual_bandwidth_decides_and_ties_take_fewer_links() {
        let t = two_paths();
        let mut residual: Vec<f64> = t.links().iter().map(|l| l.mbps).collect();
        residual[3] = 50.0; // the long path now bottlenecks at 50 < 100
        let p = widest_path(&t, &residual, 0, 1).unwrap();
        assert_eq!((p.links.clone(), p.bottleneck), (vec![0, 1], 100.0));
        residual[3] = 100.0; // equal bottlenecks: the 2-link path
        assert_eq!(widest_path(&t, &residual, 0, 1).unwrap().links, vec![0, 1]);
        residual[1] = 0.0;
        residual[4] = 0.0; // both cut
        assert_eq!(widest_path(&t, &residual, 0, 1), None);
        assert_eq!(
            widest_path(&t, &residual, 1, 1).unwrap().links,
            Vec::<usize>::new()
        );
    }
}
