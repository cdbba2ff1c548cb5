//! The queue orders of Table 6 (`φ(t)`): the pending requests are tried
//! smallest key first, ties by submission then id.
//!
//! The seed's `c_i^min`/`c_i^max` of a request adds resources of different
//! units (cores, GB, GPUs); here each is divided by the largest capacity of
//! that resource on one server of the data center before they are added
//! (`q_min`, `q_max`: a request's size in "servers' worth"), so no unit
//! weighs more for being counted in smaller units.

use super::request::{Request, Span};

/// One of Table 6's seven policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueOrder {
    /// First-come-first-served: `sub_I`.
    Fcfs,
    /// Smallest estimated processing time first: `proc_I`.
    Spf,
    /// Smallest lower resource requirement first: `q_min`.
    SqfMin,
    /// Smallest upper resource requirement first: `q_max`.
    SqfMax,
    /// Smallest lower "area" first: `proc_I · q_min`.
    SafMin,
    /// Smallest upper "area" first: `proc_I · q_max`.
    SafMax,
    /// Smallest "area" difference first: `proc_I · (q_max − q_min)`.
    Sdaf,
}

crate::job::named_options!(QueueOrder, "queue order", "fcfs, spf, sqf-min, sqf-max, saf-min, saf-max or sdaf", {
    Fcfs => "fcfs",
    Spf => "spf",
    SqfMin => "sqf-min",
    SqfMax => "sqf-max",
    SafMin => "saf-min",
    SafMax => "saf-max",
    Sdaf => "sdaf",
});

impl QueueOrder {
    /// `φ(t)` of `request`; `scale` is the largest CPU, RAM and GPU of one
    /// server (a resource no server has counts for nothing).
    pub fn key(self, request: &Request, scale: [f64; 3]) -> f64 {
        let proc = request.proc as f64;
        let q = |bound: fn(&Span) -> f64| -> f64 {
            request
                .containers
                .iter()
                .map(|c| {
                    [c.cpu, c.ram, c.gpu]
                        .iter()
                        .zip(scale)
                        .filter(|(_, s)| *s > 0.0)
                        .map(|(span, s)| bound(span) / s)
                        .sum::<f64>()
                })
                .sum()
        };
        let q_min = || q(|s| s.min);
        let q_max = || q(|s| s.max);
        match self {
            QueueOrder::Fcfs => request.submit as f64,
            QueueOrder::Spf => proc,
            QueueOrder::SqfMin => q_min(),
            QueueOrder::SqfMax => q_max(),
            QueueOrder::SafMin => proc * q_min(),
            QueueOrder::SafMax => proc * q_max(),
            QueueOrder::Sdaf => proc * (q_max() - q_min()),
        }
    }

    /// Sort `queue` (indices into `requests`) by this order.
    pub fn sort(self, queue: &mut [usize], requests: &[Request], scale: [f64; 3]) {
        let mut keyed: Vec<(f64, u64, u64, usize)> = queue
            .iter()
            .map(|&i| {
                let r = &requests[i];
                (self.key(r, scale), r.submit, r.id, i)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        for (slot, k) in queue.iter_mut().zip(keyed) {
            *slot = k.3;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcdm::request::Container;

    /// A request of one container `cpu` cores, `ram` GB (`[min, max]`).
    fn req(id: u64, submit: u64, proc: u64, cpu: (f64, f64), ram: (f64, f64)) -> Request {
        Request {
            id,
            submit,
            proc,
            deadline: None,
            containers: vec![Container::cpu_ram(cpu, ram, None)],
            links: vec![],
        }
    }

    /// Servers of 10 cores and 100 GB: q = cpu/10 + ram/100.
    ///
    /// | id | sub | proc | cpu     | ram      | q_min | q_max | proc·q_min | proc·q_max | proc·Δq |
    /// | 1  | 0   | 10   | [2, 4]  | [10, 20] | 0.3   | 0.6   | 3.0        | 6.0        | 3.0     |
    /// | 2  | 1   | 2    | [5, 5]  | [50, 50] | 1.0   | 1.0   | 2.0        | 2.0        | 0.0     |
    /// | 3  | 2   | 5    | [1, 8]  | [0, 0]   | 0.1   | 0.8   | 0.5        | 4.0        | 3.5     |
    /// | 4  | 3   | 1    | [4, 6]  | [30, 60] | 0.7   | 1.2   | 0.7        | 1.2        | 0.5     |
    /// | 5  | 4   | 20   | [1, 1]  | [10, 10] | 0.2   | 0.2   | 4.0        | 4.0        | 0.0     |
    #[test]
    fn each_order_on_a_fixed_queue() {
        let requests = vec![
            req(1, 0, 10, (2.0, 4.0), (10.0, 20.0)),
            req(2, 1, 2, (5.0, 5.0), (50.0, 50.0)),
            req(3, 2, 5, (1.0, 8.0), (0.0, 0.0)),
            req(4, 3, 1, (4.0, 6.0), (30.0, 60.0)),
            req(5, 4, 20, (1.0, 1.0), (10.0, 10.0)),
        ];
        let scale = [10.0, 100.0, 0.0];
        let ids = |order: QueueOrder| {
            let mut q = vec![4, 2, 0, 3, 1];
            order.sort(&mut q, &requests, scale);
            q.iter().map(|&i| requests[i].id).collect::<Vec<_>>()
        };
        assert_eq!(ids(QueueOrder::Fcfs), [1, 2, 3, 4, 5]);
        assert_eq!(ids(QueueOrder::Spf), [4, 2, 3, 1, 5]);
        assert_eq!(ids(QueueOrder::SqfMin), [3, 5, 1, 4, 2]);
        assert_eq!(ids(QueueOrder::SqfMax), [5, 1, 3, 2, 4]);
        assert_eq!(ids(QueueOrder::SafMin), [3, 4, 2, 1, 5]);
        // 3 and 5 tie at 4.0: the earlier submission first
        assert_eq!(ids(QueueOrder::SafMax), [4, 2, 3, 5, 1]);
        // 2 and 5 tie at 0: submission order
        assert_eq!(ids(QueueOrder::Sdaf), [2, 5, 4, 1, 3]);
    }

    #[test]
    fn names_round_trip() {
        for o in QueueOrder::ALL {
            assert_eq!(o.name().parse::<QueueOrder>(), Ok(o));
        }
        assert!("lifo"
            .parse::<QueueOrder>()
            .unwrap_err()
            .to_string()
            .contains("sqf-min"));
    }
}
