//! The rules of each [`Eviction`] policy, and only here: the order of the
//! pending queue, whether a pending request may preempt a running one, which
//! running instance goes first, and what preempting a set of instances
//! costs (to choose among hosts that all need preemptions).
//!
//! Cases the seeds leave open, decided here:
//! - ties (equal `Q`, equal priority, equal excess): the most recently
//!   admitted instance is preempted first, the earliest admitted pending
//!   request is served first (the seeds choose at random);
//! - the overhead limiter (seed 001 §3.5.2) applies to every rule of
//!   qos-driven, the relaxation included: an instance whose `C_k` exceeds
//!   its class's limit is never preempted for a request of its own class;
//!   under restart, `C_k` counts the discarded run time as overhead too
//!   ([`super::Ledger::overhead_ratio`]), else a job restarted from scratch
//!   at no allocation cost could be preempted without end;
//! - the preemption cost (seed 001 §4.1.3) of a class with no victim is −∞
//!   in its `s₋` entry and 0 in `s₊` (no victim is the cheapest), and its
//!   classes are ordered by decreasing importance, then definition order;
//! - owner-share on hosts: a victim must belong to a tenant that stays at
//!   or above its share after the preemption, and the preempting request's
//!   tenant must stay at or below its share, so neither can preempt back
//!   (no ping-pong). Among hosts, the one whose victims' tenant is the most
//!   over its share wins, then the least run time lost.

use crate::qos::config::{Eviction, QosConfig, Request};
use crate::qos::ledger::{qos_key, qos_metric, Ledger};
use crate::time::Time;
use std::cmp::Ordering;

/// What the rules see of an instance at the scheduler's run.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Admission rank (earlier admitted = smaller).
    pub order: u64,
    /// Its class index.
    pub class: usize,
    /// Its tenant index.
    pub tenant: usize,
    /// Its slots.
    pub procs: u32,
    /// `Q` at the run, seconds.
    pub q: f64,
    /// `K = Q + now` ([`super::qos_key`]): constant while it waits.
    pub key: f64,
    /// `C_k` at the run.
    pub overhead: f64,
    /// Run time so far.
    pub ran: Time,
}

impl Candidate {
    /// What the rules see at `now` of request `req`, admitted `order`-th,
    /// whose accounts are `ledger`: the one place `Q`, `K`, `C_k` and the
    /// run time are read for a decision (the simulated platforms, and the
    /// daemon's running Slurm jobs).
    pub fn of(req: &Request, order: u64, ledger: &Ledger, now: Time, cfg: &QosConfig) -> Candidate {
        let e = ledger.ran(now);
        let slo = cfg.classes[req.class].slo;
        Candidate {
            order,
            class: req.class,
            tenant: req.tenant,
            procs: req.procs,
            q: qos_metric(e, req.submit, now, slo, cfg.expected_allocation()),
            key: qos_key(e, req.submit, slo, cfg.expected_allocation()),
            overhead: ledger.overhead_ratio(now),
            ran: e,
        }
    }
}

/// What a shell knows of a cloud job running in its engine, for the victim
/// order an HPC start follows ([`crate::Driver::rank_running_cloud`]: the
/// daemon's engine, the Batsim adapter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunningCloud {
    /// Admission rank (earlier admitted = smaller; among equal keys the
    /// most recently admitted gives way first).
    pub order: u64,
    /// Its first arrival: it has been in the system since then.
    pub submitted: Time,
    /// Its processors.
    pub procs: u32,
    /// Its class index.
    pub class: usize,
    /// Its tenant index.
    pub tenant: usize,
}

impl RunningCloud {
    /// What the rules see of it at `now`, its current run started at
    /// `start`: pending from its first arrival, running since `start` (an
    /// earlier run an eviction threw away counts in neither `Q` nor the
    /// victim order; the engine restarts an evicted job from scratch).
    pub fn candidate(&self, start: Time, now: Time, cfg: &QosConfig) -> Candidate {
        let ledger = Ledger::running_since(self.submitted, start);
        let request = Request {
            id: self.order,
            submit: self.submitted,
            procs: self.procs,
            duration: None,
            class: self.class,
            tenant: self.tenant,
        };
        Candidate::of(&request, self.order, &ledger, now, cfg)
    }
}

/// `f64` in a total order (`f64::total_cmp`), equality included.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ordered(pub(super) f64);

impl PartialEq for Ordered {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ordered {}

impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// A sort key: compared lexicographically in the order of [`Ordered`],
/// smaller first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key(Vec<Ordered>);

impl From<Vec<f64>> for Key {
    fn from(values: Vec<f64>) -> Key {
        Key(values.into_iter().map(Ordered).collect())
    }
}

impl Key {
    /// Its `i`-th component.
    pub fn get(&self, i: usize) -> f64 {
        self.0[i].0
    }

    /// Compare by one more component after the others.
    pub fn push(&mut self, value: f64) {
        self.0.push(Ordered(value));
    }
}

/// Owner-share's (and seed 002's original OSEP's) measure of a tenant:
/// the slots it holds beyond the `share` it owns (negative: below it; the
/// seed's `f = share − running` with the sign turned).
pub fn owner_excess(running: u32, share: u32) -> f64 {
    f64::from(running) - f64::from(share)
}

/// The rules of one platform's policy (osep's own decision is in
/// [`crate::qos::osep`]; on this event-driven platform, where no shell
/// should bring it, osep takes owner-share's homogeneous rules). `running[t]` is the slots tenant
/// `t` holds (running or being allocated) at the moment of the question.
pub struct Rules<'a> {
    cfg: &'a QosConfig,
}

impl<'a> Rules<'a> {
    /// The rules of `cfg.eviction`.
    pub fn new(cfg: &'a QosConfig) -> Rules<'a> {
        Rules { cfg }
    }

    fn importance(&self, c: &Candidate) -> f64 {
        f64::from(self.cfg.classes[c.class].importance)
    }

    fn excess(&self, tenant: usize, running: &[u32]) -> f64 {
        owner_excess(running[tenant], self.cfg.tenants[tenant].share)
    }

    /// Can the policy decide differently at a later time with nothing else
    /// changed? Under priority nothing a run looks at changes with time;
    /// owner-share's victim order follows run times, qos-driven's `Q` the
    /// clock. (The simulation skips the watchdog after a run that changed
    /// nothing only when it cannot.)
    pub fn changes_with_time(&self) -> bool {
        self.cfg.eviction != Eviction::Priority
    }

    /// Where a pending request stands in the queue (served smallest first).
    pub fn pending_key(&self, c: &Candidate, running: &[u32]) -> Key {
        let order = c.order as f64;
        Key::from(match self.cfg.eviction {
            Eviction::Priority => vec![-self.importance(c), order],
            // By `Q`, which is by `K` among waiting requests (computed once).
            Eviction::QosDriven => vec![self.lane_key(c), order],
            // The tenant furthest below its share first.
            Eviction::OwnerShare | Eviction::Osep => vec![self.excess(c.tenant, running), order],
        })
    }

    /// The pending queue is served lane by lane: a lane holds the requests
    /// whose place in the queue keeps its order over time (a class, or
    /// under owner-share a tenant). Lane of `c`.
    pub fn lane(&self, class: usize, tenant: usize) -> usize {
        match self.cfg.eviction {
            Eviction::Priority | Eviction::QosDriven => class,
            Eviction::OwnerShare | Eviction::Osep => tenant,
        }
    }

    /// A waiting request's key within its lane (smallest served first; ties
    /// by admission): `K` under qos-driven, nothing else otherwise.
    pub fn lane_key(&self, c: &Candidate) -> f64 {
        match self.cfg.eviction {
            Eviction::QosDriven => c.key,
            Eviction::Priority | Eviction::OwnerShare | Eviction::Osep => 0.0,
        }
    }

    /// How many lanes.
    pub fn lanes(&self) -> usize {
        match self.cfg.eviction {
            Eviction::Priority | Eviction::QosDriven => self.cfg.classes.len(),
            Eviction::OwnerShare | Eviction::Osep => self.cfg.tenants.len(),
        }
    }

    /// The first component of [`Rules::pending_key`] when it is the same
    /// for the whole lane (`None` when it is the request's own, under
    /// qos-driven). `running` as for `pending_key`.
    pub fn lane_primary(&self, lane: usize, running: &[u32]) -> Option<f64> {
        match self.cfg.eviction {
            Eviction::Priority => Some(-f64::from(self.cfg.classes[lane].importance)),
            Eviction::QosDriven => None,
            Eviction::OwnerShare | Eviction::Osep => Some(self.excess(lane, running)),
        }
    }

    /// The most slots host `h` could offer any request of `lane` from
    /// `head` on: its `free` slots plus those of every instance in
    /// `on_host` the policy might let such a request preempt. An upper
    /// bound of what [`Rules::may_preempt`] allows a request of the lane
    /// with `Q ≥ head.q` asking at least `lane_min_procs` (exact for the
    /// head under priority and qos-driven), so a request asking more cannot
    /// be allocated there.
    pub fn reach<'v>(
        &self,
        lane: usize,
        head: &Candidate,
        lane_min_procs: u32,
        free: u32,
        on_host: impl Iterator<Item = &'v Candidate>,
        running: &[u32],
    ) -> u32 {
        let tenants = &self.cfg.tenants;
        let takes = |k: &Candidate| match self.cfg.eviction {
            // The rule itself for the head: a later request of the lane has
            // the same class (priority) or a larger `Q` (qos-driven), which
            // the rule only ever refuses more.
            Eviction::Priority | Eviction::QosDriven => self.may_preempt(head, k, running),
            Eviction::OwnerShare | Eviction::Osep => {
                k.tenant != lane
                    && running[k.tenant] > tenants[k.tenant].share
                    && running[lane].saturating_add(lane_min_procs) <= tenants[lane].share
            }
        };
        on_host
            .filter(|k| takes(k))
            .fold(free, |sum, k| sum.saturating_add(k.procs))
    }

    /// The victim keys of every running instance of a platform, each
    /// tenant's load counted from `running` itself: what a shell that asks
    /// the engine to evict by rank hands it (the data center's schedulers,
    /// the daemon's engine and its Slurm evictor).
    pub fn victim_keys<T>(&self, running: Vec<(T, Candidate)>) -> Vec<(T, Key)> {
        let mut load = vec![0u32; self.cfg.tenants.len()];
        for (_, k) in &running {
            load[k.tenant] = load[k.tenant].saturating_add(k.procs);
        }
        running
            .into_iter()
            .map(|(item, k)| {
                let key = self.victim_key(&k, &load);
                (item, key)
            })
            .collect()
    }

    /// Which running instance is preempted first (smallest first).
    pub fn victim_key(&self, k: &Candidate, running: &[u32]) -> Key {
        let recent = -(k.order as f64);
        Key::from(match self.cfg.eviction {
            Eviction::Priority => vec![self.importance(k), recent],
            Eviction::QosDriven => vec![-k.q, recent],
            Eviction::OwnerShare | Eviction::Osep => {
                vec![-self.excess(k.tenant, running), k.ran.as_secs_f64(), recent]
            }
        })
    }

    /// May pending `j` preempt running `k`?
    pub fn may_preempt(&self, j: &Candidate, k: &Candidate, running: &[u32]) -> bool {
        match self.cfg.eviction {
            Eviction::Priority => self.importance(k) < self.importance(j),
            Eviction::QosDriven => self.qos_may_preempt(j, k),
            Eviction::OwnerShare | Eviction::Osep => {
                let (tj, tk) = (j.tenant, k.tenant);
                tj != tk
                    && running[tj].saturating_add(j.procs) <= self.cfg.tenants[tj].share
                    && running[tk].saturating_sub(k.procs) >= self.cfg.tenants[tk].share
                    && running[tk] >= k.procs
            }
        }
    }

    /// Seed 001 §3.3.1 with the relaxation and the limiter.
    fn qos_may_preempt(&self, j: &Candidate, k: &Candidate) -> bool {
        let (cj, ck) = (&self.cfg.classes[j.class], &self.cfg.classes[k.class]);
        if j.class == k.class && k.overhead > ck.overhead_limit {
            return false;
        }
        let below_k = k.q < ck.margin.as_secs_f64();
        if !below_k {
            return j.q < k.q;
        }
        let below_j = j.q < cj.margin.as_secs_f64();
        below_j && (cj.importance > ck.importance || (cj.importance == ck.importance && j.q < k.q))
    }

    /// What preempting `victims` on one host costs (the host of smallest
    /// cost is chosen among hosts that all need preemptions). `running` is
    /// before the preemptions.
    pub fn cost(&self, victims: &[&Candidate], running: &[u32]) -> Key {
        match self.cfg.eviction {
            Eviction::Priority => {
                // Fewest victims of the most important level, then the next.
                let mut levels: Vec<u32> = self.cfg.classes.iter().map(|c| c.importance).collect();
                levels.sort_unstable_by(|a, b| b.cmp(a));
                levels.dedup();
                Key::from(
                    levels
                        .iter()
                        .map(|&l| {
                            victims
                                .iter()
                                .filter(|v| self.cfg.classes[v.class].importance == l)
                                .count() as f64
                        })
                        .collect::<Vec<f64>>(),
                )
            }
            Eviction::QosDriven => {
                let mut classes: Vec<usize> = (0..self.cfg.classes.len()).collect();
                classes.sort_by_key(|&i| std::cmp::Reverse(self.cfg.classes[i].importance));
                let slack = |v: &&Candidate| v.q - self.cfg.classes[v.class].margin.as_secs_f64();
                let mut s: Vec<f64> = classes
                    .iter()
                    .map(|&i| {
                        let below: Vec<f64> = victims
                            .iter()
                            .filter(|v| v.class == i && slack(v) < 0.0)
                            .map(slack)
                            .collect();
                        if below.is_empty() {
                            f64::NEG_INFINITY
                        } else {
                            1.0 / below.iter().sum::<f64>()
                        }
                    })
                    .collect();
                let above: Vec<f64> = victims.iter().filter(|v| slack(v) >= 0.0).map(slack).collect();
                s.push(if above.is_empty() {
                    0.0
                } else {
                    1.0 / above.iter().sum::<f64>()
                });
                Key::from(s)
            }
            Eviction::OwnerShare | Eviction::Osep => {
                let least_over = victims
                    .iter()
                    .map(|v| self.excess(v.tenant, running))
                    .fold(f64::INFINITY, f64::min);
                let lost: f64 = victims.iter().map(|v| v.ran.as_secs_f64()).sum();
                Key::from(vec![-least_over, lost, victims.len() as f64])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qos::{Eviction, QosConfig, Tenant};

    fn cand(order: u64, class: usize, q: f64) -> Candidate {
        Candidate {
            order,
            class,
            tenant: 0,
            procs: 1,
            q,
            key: q,
            overhead: 0.0,
            ran: Time::ZERO,
        }
    }

    #[test]
    fn qos_driven_preempts_larger_q_and_protects_the_margin() {
        let cfg = QosConfig::new(1, 10, Eviction::QosDriven);
        let rules = Rules::new(&cfg);
        let run = [0];
        // Silver (1) above its 10 s margin: any pending with smaller Q may take it.
        assert!(rules.may_preempt(&cand(1, 2, 5.0), &cand(0, 1, 50.0), &run));
        assert!(!rules.may_preempt(&cand(1, 2, 60.0), &cand(0, 1, 50.0), &run));
        // Below the margin: only a more important class below its own margin…
        assert!(!rules.may_preempt(&cand(1, 2, -100.0), &cand(0, 1, 5.0), &run));
        assert!(rules.may_preempt(&cand(1, 0, -100.0), &cand(0, 1, 5.0), &run));
        assert!(!rules.may_preempt(&cand(1, 0, 20.0), &cand(0, 1, 5.0), &run));
        // …or the same importance further behind.
        assert!(rules.may_preempt(&cand(1, 1, -3.0), &cand(0, 1, 5.0), &run));
        assert!(!rules.may_preempt(&cand(1, 1, 7.0), &cand(0, 1, 5.0), &run));
        // The limiter: over its overhead limit, not for its own class.
        let mut tired = cand(0, 1, 50.0);
        tired.overhead = 0.2;
        assert!(!rules.may_preempt(&cand(1, 1, -3.0), &tired, &run));
        assert!(rules.may_preempt(&cand(1, 0, -3.0), &tired, &run));
    }

    #[test]
    fn priority_preempts_only_less_important_classes_most_recent_first() {
        let cfg = QosConfig::new(1, 10, Eviction::Priority);
        let rules = Rules::new(&cfg);
        assert!(rules.may_preempt(&cand(5, 0, 0.0), &cand(0, 2, 0.0), &[0]));
        assert!(!rules.may_preempt(&cand(5, 1, 0.0), &cand(0, 1, 0.0), &[0]));
        let older = rules.victim_key(&cand(1, 2, 0.0), &[0]);
        let newer = rules.victim_key(&cand(2, 2, 0.0), &[0]);
        let silver = rules.victim_key(&cand(3, 1, 0.0), &[0]);
        assert!(newer < older && older < silver);
    }

    #[test]
    fn owner_share_takes_from_the_tenant_over_its_share_only() {
        let mut cfg = QosConfig::new(1, 10, Eviction::OwnerShare);
        cfg.tenants = vec![
            Tenant {
                name: "a".into(),
                share: 5,
            },
            Tenant {
                name: "b".into(),
                share: 5,
            },
        ];
        let rules = Rules::new(&cfg);
        let mut j = cand(9, 0, 0.0);
        let mut k = cand(1, 0, 0.0);
        k.tenant = 1;
        // a holds 2 (under), b holds 8 (over): a may take one of b's.
        assert!(rules.may_preempt(&j, &k, &[2, 8]));
        // b at its share: no.
        assert!(!rules.may_preempt(&j, &k, &[2, 5]));
        // a already at its share: no.
        assert!(!rules.may_preempt(&j, &k, &[5, 8]));
        // Never from its own tenant.
        j.tenant = 1;
        assert!(!rules.may_preempt(&j, &k, &[2, 8]));
    }

    #[test]
    fn the_preemption_cost_prefers_no_victim_below_the_margin() {
        let cfg = QosConfig::new(1, 10, Eviction::QosDriven);
        let rules = Rules::new(&cfg);
        let above = cand(0, 1, 100.0);
        let below = cand(1, 1, 0.0);
        let far_above = cand(2, 2, 1000.0);
        let a = rules.cost(&[&above], &[0]);
        let b = rules.cost(&[&below], &[0]);
        let c = rules.cost(&[&far_above], &[0]);
        assert!(a < b, "{a:?} {b:?}");
        assert!(c < a, "more slack left is cheaper: {c:?} {a:?}");
    }
}
