//! The platform's state and one run of its scheduler (Algorithm 1 of seeds
//! 000/001): take the pending queue in the policy's order, then for each
//! pending request check every host's feasibility (free slots, or slots the
//! policy lets it take by preemption), rank the feasible hosts (hosts
//! needing no preemption first, by the allocation score; else by the
//! policy's preemption cost, then the allocation score), preempt and
//! allocate.
//!
//! The queue is never sorted: it is kept in lanes ([`super::queue`]) whose
//! heads are merged, and a lane goes straight to its next request that asks
//! for no more slots than a host could offer it ([`Rules::reach`]); after
//! an allocation every lane goes on from there. The requests skipped are
//! exactly requests the run as written would examine and leave waiting, so
//! the decisions are the same (tested against the run as written), and a
//! run costs what it allocates and examines, not the queue's length.

use crate::qos::config::{Eviction, HostSpec, Needs, OnPreempt, QosConfig, Request, TieBreak};
use crate::qos::hosts::{Ask, Freed, Hosts};
use crate::qos::ledger::{qos_metric_instances, Ledger};
use crate::qos::policy::{Candidate, Key, Rules};
use crate::qos::queue::PendingQueue;
use crate::rng::SplitMix64;
use crate::time::Time;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

/// Where a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum At {
    Pending,
    /// On `host`, running from `ready` (after the allocation time).
    Allocating {
        host: usize,
        ready: Time,
    },
    Running {
        host: usize,
    },
    Done,
}

/// What the rules see of each request in the system at one run.
type Views = HashMap<usize, Candidate>;

/// One instance of a request in the run (a request of one instance is
/// one `Live`).
#[derive(Clone, Debug)]
pub(super) struct Live {
    pub(super) req: Request,
    /// Its request's index in [`Platform::groups`].
    pub(super) group: usize,
    /// The hosts it has run on (its next allocation there is hot).
    warm: Vec<usize>,
    pub(super) ledger: Ledger,
    pub(super) at: At,
    /// Admission rank.
    order: u64,
    /// Bumped at every allocation and preemption: a wake-up of an older
    /// attempt is stale.
    pub(super) attempt: u64,
    /// Times preempted. A request waits only after its admission or a
    /// preemption, so every allocation but the first follows one (and is
    /// overhead for `C_k`).
    pub(super) preemptions: u32,
    pub(super) end: Option<Time>,
}

/// A request and its instances.
#[derive(Clone, Debug)]
pub(super) struct Group {
    pub(super) needs: Needs,
    /// Its instances' indices in [`Platform::live`], in admission order.
    pub(super) members: Range<usize>,
}

/// A wake-up the run needs: the instance of `idx` (attempt `attempt`) is
/// ready to run, or completes, at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Wake {
    pub(super) at: Time,
    pub(super) idx: usize,
    pub(super) attempt: u64,
}

/// One preemption, as the scheduler decided it.
#[derive(Clone, Debug, PartialEq)]
pub struct Preemption {
    /// When.
    pub at: Time,
    /// The preempted request's id.
    pub victim: u64,
    /// The victim's `Q` at the decision, seconds.
    pub victim_q: f64,
    /// The victim's `C_k` at the decision.
    pub victim_overhead: f64,
    /// The victim's tenant's slots before the preemption, and its share.
    pub victim_tenant_load: (u32, u32),
    /// For whom: a pending request, or the host's owner taking slots back.
    pub by: PreemptedFor,
}

/// Why an instance was preempted.
#[derive(Clone, Debug, PartialEq)]
pub enum PreemptedFor {
    /// For a pending request, as the policy allows.
    Request {
        /// Its id.
        id: u64,
        /// Of the victim's class.
        same_class: bool,
        /// Its `Q` at the decision, seconds.
        q: f64,
        /// Its tenant's slots before, and the tenant's share.
        tenant_load: (u32, u32),
    },
    /// The host's capacity shrank (HPC work took processors of the area):
    /// the policy only chose which instances go.
    Capacity,
    /// The host failed: every instance on it went.
    Failure,
}

/// The platform: requests, hosts and the tenants' loads.
pub(super) struct Platform<'a> {
    cfg: &'a QosConfig,
    pub(super) live: Vec<Live>,
    /// The requests, in admission order.
    pub(super) groups: Vec<Group>,
    /// The requests of several instances still in the system: their
    /// waiting instances are re-keyed at every run, as their `Q` does not
    /// fall at the rate of the clock (`K` is not constant) once one of
    /// their instances runs.
    dirty: BTreeSet<usize>,
    hosts: Hosts,
    /// The run's draws (overheads, random ties).
    rng: SplitMix64,
    /// Per host, the requests allocated there.
    on_host: Vec<Vec<usize>>,
    /// Per tenant, the slots its requests hold.
    load: Vec<u32>,
    pending: PendingQueue,
    pub(super) preemptions: Vec<Preemption>,
    /// Allocations and preemptions so far (did a run change anything?).
    pub(super) changes: u64,
}

impl<'a> Platform<'a> {
    pub(super) fn new(cfg: &'a QosConfig) -> Platform<'a> {
        Platform {
            cfg,
            live: Vec::new(),
            groups: Vec::new(),
            dirty: BTreeSet::new(),
            hosts: Hosts::new(cfg),
            rng: SplitMix64::new(cfg.seed),
            on_host: vec![Vec::new(); cfg.hosts.len()],
            load: vec![0; cfg.tenants.len()],
            pending: PendingQueue::new(Rules::new(cfg).lanes()),
            preemptions: Vec::new(),
            changes: 0,
        }
    }

    pub(super) fn has_pending(&self) -> bool {
        self.pending.len() > 0
    }

    /// `idx` waits from `now`: into its lane, at its key there.
    fn enqueue(&mut self, idx: usize, now: Time) {
        let rules = Rules::new(self.cfg);
        let c = self.candidate(idx, now);
        let lane = rules.lane(c.class, c.tenant);
        self.pending
            .insert(idx, lane, rules.lane_key(&c), c.order, c.procs);
    }

    /// Admit `req` with `needs` at `now`: its instances pending.
    pub(super) fn admit(&mut self, req: Request, needs: Needs, now: Time) {
        let group = self.groups.len();
        let first = self.live.len();
        let members = first..first + needs.instances.max(1) as usize;
        self.groups.push(Group {
            needs,
            members: members.clone(),
        });
        for idx in members.clone() {
            self.live.push(Live {
                req: req.clone(),
                group,
                warm: Vec::new(),
                ledger: Ledger::admitted(now),
                at: At::Pending,
                order: idx as u64,
                attempt: 0,
                preemptions: 0,
                end: None,
            });
        }
        for idx in members {
            self.enqueue(idx, now);
        }
        self.touched(first);
    }

    /// Instance `idx` changed state: its request's `Q` changed for its
    /// other instances (re-keyed at the next run).
    fn touched(&mut self, idx: usize) {
        let g = self.live[idx].group;
        if self.groups[g].members.len() > 1 {
            self.dirty.insert(g);
        }
    }

    /// The waiting instances of the requests of several instances, at
    /// their keys now; a request leaves the set once every instance is done.
    fn rekey(&mut self, now: Time) {
        let groups: Vec<usize> = self.dirty.iter().copied().collect();
        for g in groups {
            let members = self.groups[g].members.clone();
            for m in members.clone() {
                if self.pending.contains(m) {
                    self.pending.remove(m);
                    self.enqueue(m, now);
                }
            }
            if members.into_iter().all(|m| self.live[m].at == At::Done) {
                self.dirty.remove(&g);
            }
        }
    }

    /// What instance `idx` asks of a host.
    fn ask(&self, idx: usize) -> Ask {
        Ask {
            cpu: self.live[idx].req.procs,
            memory: self.groups[self.live[idx].group].needs.memory,
        }
    }

    /// A ready wake-up: the instance runs from `now`; returns its completion.
    pub(super) fn ready(&mut self, w: Wake) -> Option<Wake> {
        let l = &mut self.live[w.idx];
        match l.at {
            At::Allocating { host, ready } if l.attempt == w.attempt && ready == w.at => {
                l.at = At::Running { host };
                l.ledger.run(w.at);
                if self.cfg.overheads.is_some() && !l.warm.contains(&host) {
                    l.warm.push(host);
                }
                let done = Self::completion(l, w.idx, w.at);
                self.touched(w.idx);
                done
            }
            _ => None,
        }
    }

    /// A completion wake-up: the request is done if it is still that attempt.
    pub(super) fn complete(&mut self, w: Wake) -> bool {
        let l = &self.live[w.idx];
        let At::Running { host } = l.at else {
            return false;
        };
        if l.attempt != w.attempt {
            return false;
        }
        self.release(w.idx, host);
        let l = &mut self.live[w.idx];
        l.ledger.stop(w.at);
        l.at = At::Done;
        l.end = Some(w.at);
        self.touched(w.idx);
        true
    }

    fn completion(l: &Live, idx: usize, now: Time) -> Option<Wake> {
        l.req.duration.map(|d| Wake {
            at: now + l.ledger.remaining(now, d),
            idx,
            attempt: l.attempt,
        })
    }

    fn release(&mut self, idx: usize, host: usize) {
        let procs = self.live[idx].req.procs;
        self.hosts.give(host, self.ask(idx));
        self.on_host[host].retain(|&i| i != idx);
        self.load[self.live[idx].req.tenant] -= procs;
    }

    /// The requests in the system: pending, or on a host.
    pub(super) fn in_system(&self) -> impl Iterator<Item = usize> + '_ {
        self.pending.iter().chain(self.on_host.iter().flatten().copied())
    }

    /// The end of the run: every account stops at `now`.
    pub(super) fn finish(&mut self, now: Time) {
        let in_system: Vec<usize> = self.in_system().collect();
        for i in in_system {
            self.live[i].ledger.stop(now);
        }
    }

    fn candidate(&self, idx: usize, now: Time) -> Candidate {
        let l = &self.live[idx];
        let mut c = Candidate::of(&l.req, l.order, &l.ledger, now, self.cfg);
        let members = self.groups[l.group].members.clone();
        if members.len() > 1 {
            // A waiting instance is seen at the key it waits at: its
            // request's `Q` as of its last re-keying (the start of this run,
            // see `rekey`), so a run keeps the queue's order as it took it
            // even when the instance's siblings are allocated during it.
            let waiting = match self.cfg.eviction {
                Eviction::QosDriven => self.pending.key_of(idx),
                _ => None,
            };
            c.key = waiting.unwrap_or_else(|| self.request_q(idx, members, now) + now.as_secs_f64());
            c.q = c.key - now.as_secs_f64();
        }
        c
    }

    /// `Q` of instance `idx`'s request over its `members` (seed 000 eqs.
    /// 3.2–3.7): `e`, `d`, `p` summed over the instances, `v^r + v^w` the
    /// instances still in the system, `c` those of the others running
    /// (the instance itself contributes nothing over `Δt`: pending, or
    /// about to be preempted).
    fn request_q(&self, idx: usize, members: Range<usize>, now: Time) -> f64 {
        let (mut e, mut d, mut p) = (Time::ZERO, Time::ZERO, Time::ZERO);
        let (mut in_system, mut contributing) = (0u32, 0u32);
        for m in members {
            let l = &self.live[m];
            let (me, md, mp) = l.ledger.at(now);
            e += me;
            d += md;
            p += mp;
            match l.at {
                At::Done => {}
                At::Running { .. } if m != idx => {
                    in_system += 1;
                    contributing += 1;
                }
                _ => in_system += 1,
            }
        }
        let slo = self.cfg.classes[self.live[idx].req.class].slo;
        qos_metric_instances(
            (e, d, p),
            in_system,
            contributing,
            slo,
            self.cfg.expected_allocation(),
        )
    }

    /// One run of the scheduler at `now`; returns the wake-ups of the
    /// instances it allocated.
    pub(super) fn pass(&mut self, now: Time) -> Vec<Wake> {
        self.rekey(now);
        let rules = Rules::new(self.cfg);
        let mut views: Views = self
            .on_host
            .iter()
            .flatten()
            .map(|&i| (i, self.candidate(i, now)))
            .collect();
        // The queue's order is taken as the run starts (owner-share's
        // tenants by their excess then).
        let start_load = self.load.clone();
        let lanes = self.pending.lanes();
        let primary: Vec<Option<f64>> = (0..lanes).map(|l| rules.lane_primary(l, &start_load)).collect();
        // A lane's next request after `after` that a host could take: the
        // requests it skips ask for more than any host could offer them,
        // so examining them would leave them waiting.
        let next = |me: &Self,
                    views: &Views,
                    lane: usize,
                    after: Option<(f64, u64)>|
         -> Option<(Key, usize, usize)> {
            let first = me.pending.first_after(lane, primary[lane], after, u32::MAX)?;
            let head = me.candidate(first, now);
            let min_procs = me.pending.min_procs(lane);
            let reach = (0..me.hosts.len())
                .map(|h| {
                    let on_host = me.on_host[h].iter().map(|k| &views[k]);
                    rules.reach(lane, &head, min_procs, me.hosts.free[h], on_host, &me.load)
                })
                .max()
                .unwrap_or(0);
            let j = if head.procs <= reach {
                first
            } else {
                me.pending.first_after(lane, primary[lane], after, reach)?
            };
            let key = rules.pending_key(&me.candidate(j, now), &start_load);
            Some((key, lane, j))
        };
        let place = |key: &Key| (key.get(0), key.get(1) as u64);
        let mut heads: BTreeSet<(Key, usize, usize)> =
            (0..lanes).filter_map(|l| next(self, &views, l, None)).collect();
        let mut wakes = Vec::new();
        let mut preempted = Vec::new();
        while let Some((key, lane, j)) = heads.pop_first() {
            let at = Some(place(&key));
            let vj = self.candidate(j, now);
            let Some((host, victims)) = self.choose_host(&rules, j, &vj, &views) else {
                heads.extend(next(self, &views, lane, at));
                continue;
            };
            for k in victims {
                let by = PreemptedFor::Request {
                    id: self.live[j].req.id,
                    same_class: self.live[k].req.class == self.live[j].req.class,
                    q: vj.q,
                    tenant_load: self.tenant_load(self.live[j].req.tenant),
                };
                let vk = views.remove(&k).expect("a running instance has a view");
                self.preempt(k, &vk, by, now);
                preempted.push(k);
            }
            self.pending.remove(j);
            wakes.extend(self.allocate(j, host, now));
            views.insert(j, vj);
            // What hosts can offer changed: every lane goes on from here.
            heads = (0..lanes).filter_map(|l| next(self, &views, l, at)).collect();
        }
        // The preempted wait from now on, after this run.
        for k in preempted {
            self.enqueue(k, now);
        }
        wakes
    }

    /// The run as the seeds write it: sort the whole queue, examine every
    /// request. [`Platform::pass`] must decide exactly as this does.
    #[cfg(test)]
    pub(super) fn pass_as_written(&mut self, now: Time) -> Vec<Wake> {
        self.rekey(now);
        let rules = Rules::new(self.cfg);
        let views: Views = self
            .in_system()
            .collect::<Vec<_>>()
            .into_iter()
            .map(|i| (i, self.candidate(i, now)))
            .collect();
        let mut queue: Vec<(Key, usize)> = self
            .pending
            .iter()
            .map(|i| (rules.pending_key(&views[&i], &self.load), i))
            .collect();
        queue.sort();
        let mut wakes = Vec::new();
        let mut preempted = Vec::new();
        for (_, j) in queue {
            let Some((host, victims)) = self.choose_host(&rules, j, &views[&j], &views) else {
                continue;
            };
            for k in victims {
                let by = PreemptedFor::Request {
                    id: self.live[j].req.id,
                    same_class: self.live[k].req.class == self.live[j].req.class,
                    q: views[&j].q,
                    tenant_load: self.tenant_load(self.live[j].req.tenant),
                };
                self.preempt(k, &views[&k], by, now);
                preempted.push(k);
            }
            self.pending.remove(j);
            wakes.extend(self.allocate(j, host, now));
        }
        for k in preempted {
            self.enqueue(k, now);
        }
        wakes
    }

    fn tenant_load(&self, t: usize) -> (u32, u32) {
        (self.load[t], self.cfg.tenants[t].share)
    }

    /// The host for instance `idx` (seen as `j`) and the victims it takes
    /// there, if any host is feasible: the hosts it fits without
    /// preemption by the allocation score, else the hosts where the policy
    /// frees enough of both resources, by the policy's cost then the
    /// allocation score; ties by host index, or at random ([`TieBreak`]).
    fn choose_host(
        &mut self,
        rules: &Rules,
        idx: usize,
        j: &Candidate,
        views: &Views,
    ) -> Option<(usize, Vec<usize>)> {
        let ask = self.ask(idx);
        let constraints = &self.groups[self.live[idx].group].needs.constraints;
        let eligible = || (0..self.hosts.len()).filter(|&h| self.hosts.eligible(h, constraints));
        // The hosts of the smallest key so far, in host order.
        type Best = Vec<(Key, usize, Vec<usize>)>;
        fn consider(best: &mut Best, key: Key, h: usize, victims: Vec<usize>) {
            match best.first() {
                Some((b, _, _)) if *b < key => {}
                Some((b, _, _)) if *b == key => best.push((key, h, victims)),
                _ => *best = vec![(key, h, victims)],
            }
        }
        let mut best: Best = Vec::new();
        for h in eligible() {
            if self.hosts.fits(h, ask, Freed::default()) {
                let key = Key::from(vec![-self.hosts.score(h, ask, Freed::default())]);
                consider(&mut best, key, h, Vec::new());
            }
        }
        if best.is_empty() {
            for h in eligible() {
                let Some((victims, freed)) = self.victims_on(rules, idx, j, h, views) else {
                    continue;
                };
                let vs: Vec<&Candidate> = victims.iter().map(|k| &views[k]).collect();
                let mut key = rules.cost(&vs, &self.load);
                key.push(-self.hosts.score(h, ask, freed));
                consider(&mut best, key, h, victims);
            }
        }
        let pick = match (self.cfg.tie_break, best.len()) {
            (_, 0) => return None,
            (TieBreak::Random, n) if n > 1 => self.rng.below(n as u64) as usize,
            _ => 0,
        };
        let (_, h, victims) = best.swap_remove(pick);
        Some((h, victims))
    }

    /// The instances on `h` the policy lets `j` (instance `idx`) preempt,
    /// in its order, until both its CPU and memory fit, with what they
    /// free; `None` if it cannot fit there.
    fn victims_on(
        &self,
        rules: &Rules,
        idx: usize,
        j: &Candidate,
        h: usize,
        views: &Views,
    ) -> Option<(Vec<usize>, Freed)> {
        let ask = self.ask(idx);
        let mut order: Vec<(Key, usize)> = self.on_host[h]
            .iter()
            .map(|&k| (rules.victim_key(&views[&k], &self.load), k))
            .collect();
        order.sort();
        let mut load = self.load.clone();
        let mut freed = Freed::default();
        let mut victims = Vec::new();
        for (_, k) in order {
            if self.hosts.fits(h, ask, freed) {
                break;
            }
            let v = &views[&k];
            if rules.may_preempt(j, v, &load) {
                load[v.tenant] -= v.procs;
                let a = self.ask(k);
                freed.cpu += a.cpu;
                freed.memory += a.memory;
                victims.push(k);
            }
        }
        self.hosts.fits(h, ask, freed).then_some((victims, freed))
    }

    /// Host `h` now has `slots` slots (its owner took some back, or gave
    /// them back). While it holds more than that, the instance the policy
    /// preempts first goes back to the pending queue.
    pub(super) fn resize(&mut self, h: usize, slots: u32, now: Time) {
        if !self.hosts.is_up(h) {
            self.hosts.resize_down_host(h, slots);
            return;
        }
        let used = self.hosts.capacity[h] - self.hosts.free[h];
        self.hosts.capacity[h] = slots;
        if used <= slots {
            self.hosts.free[h] = slots - used;
            return;
        }
        self.hosts.free[h] = 0;
        let order = self.in_victim_order(h, now);
        let mut over = used - slots;
        for (k, v) in order {
            if over == 0 {
                break;
            }
            over = over.saturating_sub(v.procs);
            self.preempt(k, &v, PreemptedFor::Capacity, now);
            self.enqueue(k, now);
        }
        // The victims' slots beyond the shortfall are free again.
        self.hosts.free[h] = self.hosts.capacity[h]
            - self.on_host[h]
                .iter()
                .map(|&k| self.live[k].req.procs)
                .sum::<u32>();
    }

    /// The instances on host `h` in the policy's victim order at `now`
    /// (ties by instance), each with its candidate view.
    fn in_victim_order(&self, h: usize, now: Time) -> Vec<(usize, Candidate)> {
        let rules = Rules::new(self.cfg);
        let mut order: Vec<(Key, usize, Candidate)> = self.on_host[h]
            .iter()
            .map(|&k| {
                let v = self.candidate(k, now);
                (rules.victim_key(&v, &self.load), k, v)
            })
            .collect();
        order.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        order.into_iter().map(|(_, k, v)| (k, v)).collect()
    }

    /// Host `h` fails at `now`: every instance on it is preempted (in the
    /// policy's victim order) and waits again; the host offers nothing
    /// until it recovers.
    pub(super) fn fail(&mut self, h: usize, now: Time) {
        let order = self.in_victim_order(h, now);
        for (k, v) in order {
            self.preempt(k, &v, PreemptedFor::Failure, now);
            self.enqueue(k, now);
        }
        self.hosts.fail(h);
    }

    /// Failed host `h` is back, empty.
    pub(super) fn recover(&mut self, h: usize) {
        self.hosts.recover(h);
    }

    /// A host of `slots` slots with `spec` joins.
    pub(super) fn add_host(&mut self, slots: u32, spec: HostSpec) {
        self.hosts.add(slots, spec);
        self.on_host.push(Vec::new());
    }

    fn preempt(&mut self, k: usize, view: &Candidate, by: PreemptedFor, now: Time) {
        let host = match self.live[k].at {
            At::Running { host } | At::Allocating { host, .. } => host,
            At::Pending | At::Done => return,
        };
        self.preemptions.push(Preemption {
            at: now,
            victim: self.live[k].req.id,
            victim_q: view.q,
            victim_overhead: view.overhead,
            victim_tenant_load: self.tenant_load(self.live[k].req.tenant),
            by,
        });
        self.release(k, host);
        self.touched(k);
        self.changes += 1;
        let restart = self.cfg.on_preempt == OnPreempt::Restart;
        let l = &mut self.live[k];
        l.ledger.preempt(now, restart);
        l.at = At::Pending;
        l.attempt += 1;
        l.preemptions += 1;
    }

    fn allocate(&mut self, j: usize, host: usize, now: Time) -> Option<Wake> {
        let alpha = match &self.cfg.overheads {
            None => self.cfg.allocation_time,
            Some(o) if self.live[j].warm.contains(&host) => o.hot.sample(&mut self.rng),
            Some(o) => o.cold.sample(&mut self.rng),
        };
        let procs = self.live[j].req.procs;
        self.changes += 1;
        self.touched(j);
        self.hosts.take(host, self.ask(j));
        self.on_host[host].push(j);
        self.load[self.live[j].req.tenant] += procs;
        let l = &mut self.live[j];
        l.attempt += 1;
        if l.preemptions > 0 {
            l.ledger.reallocated(alpha);
        }
        if alpha > Time::ZERO {
            let ready = now + alpha;
            l.at = At::Allocating { host, ready };
            return Some(Wake {
                at: ready,
                idx: j,
                attempt: l.attempt,
            });
        }
        l.at = At::Running { host };
        l.ledger.run(now);
        if self.cfg.overheads.is_some() && !l.warm.contains(&host) {
            l.warm.push(host);
        }
        Self::completion(l, j, now)
    }
}
