//! The hosts of a platform as the scheduler sees them: each host's CPU
//! (slots) and memory, free and in all, its labels, whether it is up, and
//! the allocation score that ranks the hosts a request fits (seed 001
//! §4.1.2: the mean of Kubernetes' LeastRequested and
//! BalancedResourceAllocation).
//!
//! Memory is optional per host: a host without memory does not constrain
//! it (any request's memory fits) and scores on CPU alone, which is exactly
//! the one-resource platform of the seeds' validation and of the replays.

use crate::qos::config::{Constraint, HostSpec, QosConfig};

/// Kubernetes' `MaxPriority` (2019; `MaxNodeScore` later): scores are 0–10.
const MAX_SCORE: f64 = 10.0;

/// What a request asks of one host: per instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ask {
    /// CPU (slots).
    pub(super) cpu: u32,
    /// Memory (0: none).
    pub(super) memory: u32,
}

/// Resources a set of victims would give back on a host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Freed {
    pub(super) cpu: u32,
    pub(super) memory: u32,
}

/// The hosts' resources now.
#[derive(Clone, Debug)]
pub(super) struct Hosts {
    /// Each host's slots now (0 while it is down).
    pub(super) capacity: Vec<u32>,
    pub(super) free: Vec<u32>,
    /// Each host's memory (`None`: not constrained).
    memory: Vec<Option<u32>>,
    memory_free: Vec<u32>,
    labels: Vec<HostSpec>,
    /// Slots a failed host comes back with (its size when it failed, or
    /// as resized while down).
    restore: Vec<Option<u32>>,
}

impl Hosts {
    pub(super) fn new(cfg: &QosConfig) -> Hosts {
        let n = cfg.hosts.len();
        let spec = |h: usize| cfg.host_spec(h).cloned().unwrap_or_default();
        let memory: Vec<Option<u32>> = (0..n).map(|h| spec(h).memory).collect();
        Hosts {
            capacity: cfg.hosts.clone(),
            free: cfg.hosts.clone(),
            memory_free: memory.iter().map(|m| m.unwrap_or(0)).collect(),
            memory,
            labels: (0..n).map(spec).collect(),
            restore: vec![None; n],
        }
    }

    pub(super) fn len(&self) -> usize {
        self.capacity.len()
    }

    pub(super) fn is_up(&self, h: usize) -> bool {
        self.restore[h].is_none()
    }

    /// May an instance with `constraints` go on `h` at all (up, labels)?
    pub(super) fn eligible(&self, h: usize, constraints: &[Constraint]) -> bool {
        self.is_up(h) && constraints.iter().all(|c| c.holds(&self.labels[h].labels))
    }

    /// Does `ask` fit on `h` with `freed` given back by victims? Both
    /// resources must (memory only where the host has some).
    pub(super) fn fits(&self, h: usize, ask: Ask, freed: Freed) -> bool {
        self.free[h] + freed.cpu >= ask.cpu
            && self.memory[h].is_none_or(|_| self.memory_free[h] + freed.memory >= ask.memory)
    }

    /// The allocation score of `ask` on `h` once `freed` is given back
    /// (larger is better): the mean of LeastRequested and
    /// BalancedResourceAllocation, as Kubernetes' 2019 scheduler defines
    /// them (`pkg/scheduler/algorithm/priorities/least_requested.go`,
    /// `balanced_resource_allocation.go`), in real numbers rather than its
    /// integer truncation. On a host without memory, LeastRequested is the
    /// CPU's alone and BalancedResourceAllocation is 10 (one resource is
    /// balanced), except on a full host.
    pub(super) fn score(&self, h: usize, ask: Ask, freed: Freed) -> f64 {
        let cap = self.capacity[h].max(1);
        let cpu_left = self.free[h] + freed.cpu - ask.cpu;
        let cpu_fraction = f64::from(cap - cpu_left) / f64::from(cap);
        let (least, balanced) = match self.memory[h] {
            None => (
                f64::from(cpu_left) / f64::from(cap) * MAX_SCORE,
                balanced(cpu_fraction, cpu_fraction),
            ),
            Some(mem) => {
                let mem = mem.max(1);
                let mem_left = self.memory_free[h] + freed.memory - ask.memory;
                let mem_fraction = f64::from(mem - mem_left) / f64::from(mem);
                let least = (f64::from(cpu_left) / f64::from(cap) + f64::from(mem_left) / f64::from(mem))
                    * MAX_SCORE
                    / 2.0;
                (least, balanced(cpu_fraction, mem_fraction))
            }
        };
        (least + balanced) / 2.0
    }

    /// `ask` is placed on `h`.
    pub(super) fn take(&mut self, h: usize, ask: Ask) {
        self.free[h] -= ask.cpu;
        if self.memory[h].is_some() {
            self.memory_free[h] -= ask.memory;
        }
    }

    /// `ask` leaves `h`.
    pub(super) fn give(&mut self, h: usize, ask: Ask) {
        self.free[h] += ask.cpu;
        if self.memory[h].is_some() {
            self.memory_free[h] += ask.memory;
        }
    }

    /// Host `h` fails: it offers nothing until it recovers (its instances
    /// are the caller's to preempt, before this).
    pub(super) fn fail(&mut self, h: usize) {
        self.restore[h] = Some(self.capacity[h]);
        self.capacity[h] = 0;
        self.free[h] = 0;
        self.memory_free[h] = 0;
    }

    /// Host `h` is back, empty.
    pub(super) fn recover(&mut self, h: usize) {
        let slots = self.restore[h].take().unwrap_or(0);
        self.capacity[h] = slots;
        self.free[h] = slots;
        self.memory_free[h] = self.memory[h].unwrap_or(0);
    }

    /// A host of `slots` slots, `spec`'s memory and labels joins, empty.
    pub(super) fn add(&mut self, slots: u32, spec: HostSpec) {
        self.capacity.push(slots);
        self.free.push(slots);
        self.memory.push(spec.memory);
        self.memory_free.push(spec.memory.unwrap_or(0));
        self.labels.push(spec);
        self.restore.push(None);
    }

    /// A failed host resized: it comes back with `slots`.
    pub(super) fn resize_down_host(&mut self, h: usize, slots: u32) {
        self.restore[h] = Some(slots);
    }
}

/// BalancedResourceAllocation: `10 − |cpu − memory|·10` of the fractions
/// requested after the placement, 0 when either reaches the capacity.
fn balanced(cpu_fraction: f64, memory_fraction: f64) -> f64 {
    if cpu_fraction >= 1.0 || memory_fraction >= 1.0 {
        return 0.0;
    }
    (1.0 - (cpu_fraction - memory_fraction).abs()) * MAX_SCORE
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qos::Eviction;

    /// Two hosts by hand: (cpu 10, memory 10) half used on CPU, and
    /// (cpu 10, memory 20) empty; a request of 2 CPU and 6 memory.
    #[test]
    fn the_allocation_score_by_hand() {
        let mut cfg = QosConfig::new(2, 10, Eviction::QosDriven);
        cfg.host_specs = vec![
            HostSpec {
                memory: Some(10),
                ..HostSpec::default()
            },
            HostSpec {
                memory: Some(20),
                ..HostSpec::default()
            },
        ];
        let mut hosts = Hosts::new(&cfg);
        hosts.take(0, Ask { cpu: 5, memory: 0 });
        let ask = Ask { cpu: 2, memory: 6 };
        // Host 0: CPU 7/10 requested, memory 6/10. LeastRequested
        // (3/10 + 4/10)·10/2 = 3.5; Balanced 10 − |0.7 − 0.6|·10 = 9;
        // score (3.5 + 9)/2 = 6.25.
        let s0 = hosts.score(0, ask, Freed::default());
        assert!((s0 - 6.25).abs() < 1e-9, "{s0}");
        // Host 1: CPU 2/10, memory 6/20. LeastRequested (0.8 + 0.7)·5 =
        // 7.5; Balanced 10 − 0.1·10 = 9; score 8.25.
        let s1 = hosts.score(1, ask, Freed::default());
        assert!((s1 - 8.25).abs() < 1e-9, "{s1}");
        // Filling host 0's CPU exactly: Balanced is 0.
        let full = hosts.score(0, Ask { cpu: 5, memory: 0 }, Freed::default());
        // LeastRequested (0 + 1)·10/2 = 5, Balanced 0: score 2.5.
        assert!((full - 2.5).abs() < 1e-9, "{full}");
    }

    #[test]
    fn a_request_fits_on_cpu_but_not_memory() {
        let mut cfg = QosConfig::new(1, 10, Eviction::QosDriven);
        cfg.host_specs = vec![HostSpec {
            memory: Some(4),
            ..HostSpec::default()
        }];
        let hosts = Hosts::new(&cfg);
        assert!(!hosts.fits(0, Ask { cpu: 1, memory: 5 }, Freed::default()));
        assert!(hosts.fits(0, Ask { cpu: 1, memory: 4 }, Freed::default()));
        assert!(hosts.fits(0, Ask { cpu: 1, memory: 5 }, Freed { cpu: 0, memory: 1 }));
    }

    #[test]
    fn a_constraint_excludes_a_host_and_a_failed_host_is_no_host() {
        let mut cfg = QosConfig::new(2, 10, Eviction::QosDriven);
        let x86 = |arch: &str| HostSpec {
            memory: None,
            labels: [("arch".to_string(), arch.to_string())].into(),
        };
        cfg.host_specs = vec![x86("x86"), x86("arm")];
        let mut hosts = Hosts::new(&cfg);
        let want = |equal| Constraint {
            key: "arch".into(),
            value: "arm".into(),
            equal,
        };
        assert!(!hosts.eligible(0, &[want(true)]));
        assert!(hosts.eligible(1, &[want(true)]));
        assert!(hosts.eligible(0, &[want(false)]));
        hosts.fail(1);
        assert!(!hosts.eligible(1, &[want(true)]));
        hosts.recover(1);
        assert!(hosts.eligible(1, &[want(true)]) && hosts.free[1] == 10);
    }
}
