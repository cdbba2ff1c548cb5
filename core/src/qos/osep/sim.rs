//! A run of OSEP through time (seed 002, Algorithm 1): at each instant the
//! completions, then the arrivals, then every free machine given to the
//! neediest tenant's smallest ready task; at every update (each `period`
//! from the first admission) the decision algorithm, at most `maxt`
//! preemptions. A machine is one slot of a host, of its host's speed; a
//! task is a one-slot request whose `duration` is its work at speed 1.

use crate::qos::config::{OnPreempt, QosConfig, QosError, Request};
use crate::qos::ledger::Ledger;
use crate::qos::osep::decide::{Running, Swap, View};
use crate::qos::osep::satisfaction;
use crate::qos::outcome::Outcome;
use crate::qos::report::{ClassReport, RequestRecord};
use crate::qos::scheduler::{PreemptedFor, Preemption};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// Where a task is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Pending,
    Running { slot: usize, since: Time },
    Done,
}

/// One task in the run.
#[derive(Clone, Debug)]
struct Task {
    req: Request,
    ledger: Ledger,
    /// Work kept from earlier attempts, seconds at speed 1.
    saved: f64,
    state: State,
    attempt: u64,
    preemptions: u32,
    end: Option<Time>,
}

impl Task {
    /// Its size for "the smallest ready task" (a service: the largest).
    fn size(&self) -> i64 {
        self.req.duration.map_or(i64::MAX, Time::ticks)
    }
}

/// The work a preempted task keeps of `progress` (seconds of work at speed
/// 1, its saved work included) under `mode`: all of it (resume), none
/// (restart), or its whole blocks of `block` (checkpoint; the partial
/// block is lost).
pub fn kept_work(mode: OnPreempt, progress: f64, block: Time) -> f64 {
    match mode {
        OnPreempt::Resume => progress,
        OnPreempt::Restart => 0.0,
        OnPreempt::Checkpoint => {
            let b = block.as_secs_f64();
            // A microsecond of rounding does not cost a whole block.
            ((progress + 1e-6) / b).floor() * b
        }
    }
}

/// The run's state.
struct Osep<'a> {
    cfg: &'a QosConfig,
    tasks: Vec<Task>,
    /// Per machine: its power and the task on it.
    slots: Vec<(f64, Option<usize>)>,
    /// The ready tasks of each tenant: (size, rank, task).
    ready: Vec<BTreeSet<(i64, u64, usize)>>,
    /// Completions: (when, task, attempt), earliest first.
    ends: BinaryHeap<Reverse<(Time, usize, u64)>>,
    preemptions: Vec<Preemption>,
    /// The instant being (or last) processed.
    now: Time,
}

/// Run `requests` under OSEP on `cfg` (its `eviction` is osep).
pub fn simulate_osep(cfg: &QosConfig, mut requests: Vec<Request>) -> Result<Outcome, QosError> {
    cfg.validate(&requests)?;
    if let Some(r) = requests.iter().find(|r| r.procs != 1) {
        return Err(QosError(format!(
            "request {}: {} slots, but osep runs one-slot tasks (the seed's machines run one task each): \
             give procs: 1",
            r.id, r.procs
        )));
    }
    requests.sort_by_key(|r| (r.submit, r.id));
    let origin = requests.first().map_or(Time::ZERO, |r| r.submit);
    let slots = (0..cfg.hosts.len())
        .flat_map(|h| (0..cfg.hosts[h]).map(move |_| (cfg.speed(h), None)))
        .collect();
    let mut run = Osep {
        cfg,
        tasks: Vec::with_capacity(requests.len()),
        slots,
        ready: vec![BTreeSet::new(); cfg.tenants.len()],
        ends: BinaryHeap::new(),
        preemptions: Vec::new(),
        now: origin,
    };
    let mut arrivals = requests.into_iter().peekable();
    let period = cfg.osep.period;
    let stop = loop {
        let pending = run.ready.iter().any(|r| !r.is_empty());
        let next_tick = pending.then(|| {
            origin + Time::from_ticks(((run.now - origin).ticks() / period.ticks() + 1) * period.ticks())
        });
        let next = [arrivals.peek().map(|r| r.submit), run.next_end(), next_tick]
            .into_iter()
            .flatten()
            .min();
        match (next, cfg.until) {
            (Some(t), Some(until)) if t > until => break until,
            (Some(t), _) => {
                run.instant(t, &mut arrivals, (t - origin).ticks() % period.ticks() == 0);
            }
            (None, until) => break until.unwrap_or_else(|| run.last_end()),
        }
    };
    Ok(run.finish(stop))
}

impl<'a> Osep<'a> {
    /// The next valid completion.
    fn next_end(&mut self) -> Option<Time> {
        while let Some(&Reverse((at, idx, attempt))) = self.ends.peek() {
            let t = &self.tasks[idx];
            if t.attempt == attempt && matches!(t.state, State::Running { .. }) {
                return Some(at);
            }
            self.ends.pop();
        }
        None
    }

    fn last_end(&self) -> Time {
        self.tasks
            .iter()
            .filter_map(|t| t.end)
            .max()
            .unwrap_or(Time::ZERO)
    }

    /// One instant: completions, arrivals, free machines, then the update
    /// when `tick`.
    fn instant(
        &mut self,
        now: Time,
        arrivals: &mut std::iter::Peekable<std::vec::IntoIter<Request>>,
        tick: bool,
    ) {
        self.now = now;
        while self.next_end().is_some_and(|at| at <= now) {
            let Reverse((at, idx, _)) = self.ends.pop().expect("peeked");
            self.complete(idx, at);
        }
        while let Some(req) = arrivals.next_if(|r| r.submit <= now) {
            let idx = self.tasks.len();
            self.tasks.push(Task {
                ledger: Ledger::admitted(req.submit),
                req,
                saved: 0.0,
                state: State::Pending,
                attempt: 0,
                preemptions: 0,
                end: None,
            });
            self.enqueue(idx);
        }
        self.fill(now);
        if tick {
            self.update(now);
        }
    }

    fn enqueue(&mut self, idx: usize) {
        let t = &self.tasks[idx];
        self.ready[t.req.tenant].insert((t.size(), idx as u64, idx));
    }

    fn complete(&mut self, idx: usize, at: Time) {
        let t = &mut self.tasks[idx];
        if let State::Running { slot, .. } = t.state {
            self.slots[slot].1 = None;
        }
        t.ledger.stop(at);
        t.state = State::Done;
        t.end = Some(at);
    }

    /// The platform as a decision sees it at `now`.
    fn view(&self, now: Time) -> View {
        let running = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(slot, &(power, task))| {
                let task = task?;
                let t = &self.tasks[task];
                let State::Running { since, .. } = t.state else {
                    return None;
                };
                Some(Running {
                    task,
                    tenant: t.req.tenant,
                    slot,
                    power,
                    ran: now - since,
                })
            })
            .collect();
        View {
            portions: (0..self.cfg.tenants.len()).map(|t| self.cfg.portion(t)).collect(),
            shares: self.cfg.tenants.iter().map(|t| t.share).collect(),
            ready: self.ready.clone(),
            running,
        }
    }

    /// Every free machine, fastest first (ties: the first), to the
    /// neediest tenant's smallest ready task.
    fn fill(&mut self, now: Time) {
        let rule = self.cfg.osep.rule;
        let mut view = self.view(now);
        loop {
            let free = (0..self.slots.len())
                .filter(|&s| self.slots[s].1.is_none())
                .max_by(|&a, &b| self.slots[a].0.total_cmp(&self.slots[b].0).then(b.cmp(&a)));
            let (Some(slot), Some(tenant)) = (free, view.neediest(rule)) else {
                break;
            };
            let task = view.take_smallest(tenant).expect("the neediest has a ready task");
            view.running.push(Running {
                task,
                tenant,
                slot,
                power: self.slots[slot].0,
                ran: Time::ZERO,
            });
            self.place(task, slot, now);
        }
    }

    /// The update (Algorithm 1) and its decision, at most `maxt` swaps.
    fn update(&mut self, now: Time) {
        let osep = self.cfg.osep;
        let swaps = self.view(now).decide(osep.rule, osep.condition, osep.maxt);
        for s in swaps {
            self.swap(s, now);
        }
    }

    fn swap(&mut self, s: Swap, now: Time) {
        let tenant_load = |me: &Self, t: usize| {
            let held = me
                .slots
                .iter()
                .filter(|(_, k)| k.is_some_and(|k| me.tasks[k].req.tenant == t));
            (held.count() as u32, me.cfg.tenants[t].share)
        };
        let victim = &self.tasks[s.victim];
        let by = PreemptedFor::Request {
            id: self.tasks[s.task].req.id,
            same_class: victim.req.class == self.tasks[s.task].req.class,
            q: f64::NAN,
            tenant_load: tenant_load(self, s.to),
        };
        self.preemptions.push(Preemption {
            at: now,
            victim: victim.req.id,
            victim_q: f64::NAN,
            victim_overhead: 0.0,
            victim_tenant_load: tenant_load(self, victim.req.tenant),
            by,
        });
        self.preempt(s.victim, now);
        self.place(s.task, s.slot, now);
    }

    /// Task `idx` leaves its machine at `now`, keeping what its mode keeps.
    fn preempt(&mut self, idx: usize, now: Time) {
        let (mode, block) = (self.cfg.on_preempt, self.cfg.osep.block);
        let t = &mut self.tasks[idx];
        let State::Running { slot, since } = t.state else {
            return;
        };
        let power = self.slots[slot].0;
        self.slots[slot].1 = None;
        let progress = t.saved + (now - since).as_secs_f64() * power;
        let kept = kept_work(mode, progress, block);
        let lost = Time::from_secs_f64((progress - kept) / power);
        t.saved = kept;
        t.ledger.preempt_losing(now, lost);
        t.state = State::Pending;
        t.preemptions += 1;
        self.enqueue(idx);
    }

    /// Task `idx` runs on `slot` from `now` (taken off the ready set).
    fn place(&mut self, idx: usize, slot: usize, now: Time) {
        let power = self.slots[slot].0;
        self.slots[slot].1 = Some(idx);
        let t = &mut self.tasks[idx];
        self.ready[t.req.tenant].remove(&(t.size(), idx as u64, idx));
        t.ledger.run(now);
        t.state = State::Running { slot, since: now };
        t.attempt += 1;
        if let Some(d) = t.req.duration {
            let left = (d.as_secs_f64() - t.saved).max(0.0);
            self.ends
                .push(Reverse((now + Time::from_secs_f64(left / power), idx, t.attempt)));
        }
    }

    /// The run ended at `stop`: every account stopped, the records and
    /// reports (no fairness windows: they are the event-driven platform's),
    /// and each tenant's satisfaction.
    fn finish(mut self, stop: Time) -> Outcome {
        for t in &mut self.tasks {
            if t.state != State::Done {
                t.ledger.stop(stop);
            }
        }
        let records: Vec<RequestRecord> = self
            .tasks
            .iter()
            .map(|t| RequestRecord::new(self.cfg, &t.req, &t.ledger, t.end, stop, t.preemptions))
            .collect();
        let requests: Vec<&Request> = self.tasks.iter().map(|t| &t.req).collect();
        let satisfaction = satisfaction::per_tenant(self.cfg, &requests, &records);
        Outcome {
            classes: ClassReport::all(self.cfg, &records, &[]),
            records,
            windows: Vec::new(),
            preemptions: self.preemptions,
            end: stop,
            satisfaction: Some(satisfaction),
        }
    }
}
