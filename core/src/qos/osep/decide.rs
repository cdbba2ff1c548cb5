//! OSEP's decisions (seed 002): which tenant a free machine serves, and
//! the decision algorithm run at every update (Algorithm 3, chapter 4,
//! and the baseline Algorithm 2, chapter 3), on a [`View`] of the
//! platform that each decision updates as it goes.

use crate::qos::config::{OsepCondition, OsepRule};
use crate::qos::osep::power::{dif_poder, pr_aloc, pr_preemp};
use crate::qos::policy::owner_excess;
use crate::time::Time;
use std::collections::BTreeSet;

/// A running task, as the decision sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Running {
    /// The task (an index of the simulation's).
    pub task: usize,
    /// Its tenant.
    pub tenant: usize,
    /// The machine (slot) it runs on.
    pub slot: usize,
    /// That machine's power (its host's speed).
    pub power: f64,
    /// How long it has run since it was last placed (the seed's `w_j`).
    pub ran: Time,
}

/// The platform as one update sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// `Porcao_t`, speed units.
    pub portions: Vec<f64>,
    /// The slots each tenant owns (the original rule's `p_t`).
    pub shares: Vec<u32>,
    /// The ready tasks of each tenant: (size, admission rank, task),
    /// smallest first.
    pub ready: Vec<BTreeSet<(i64, u64, usize)>>,
    /// The running tasks.
    pub running: Vec<Running>,
}

/// One decision: preempt `victim` (a task) on `slot`, and run `task` of
/// tenant `to` there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swap {
    /// The preempted task.
    pub victim: usize,
    /// Its machine.
    pub slot: usize,
    /// The tenant served.
    pub to: usize,
    /// Its smallest ready task, which takes the machine.
    pub task: usize,
}

impl View {
    /// `Alocado_t`: the power running tenant `t`'s tasks.
    pub fn allocated(&self, t: usize) -> f64 {
        self.running
            .iter()
            .filter(|r| r.tenant == t)
            .map(|r| r.power)
            .sum()
    }

    /// The slots tenant `t`'s tasks hold.
    pub fn held(&self, t: usize) -> u32 {
        self.running.iter().filter(|r| r.tenant == t).count() as u32
    }

    /// `DifPoder_t` (eq. 4.1).
    pub fn dif(&self, t: usize) -> f64 {
        dif_poder(self.allocated(t), self.portions[t])
    }

    /// How far tenant `t` is over what it owns under `rule` (negative:
    /// under): `DifPoder`, or the original's machines beyond its share.
    fn over(&self, rule: OsepRule, t: usize) -> f64 {
        match rule {
            OsepRule::Heterogeneous => self.dif(t),
            OsepRule::Original => owner_excess(self.held(t), self.shares[t]),
        }
    }

    /// The tenant a machine serves next: of those with ready tasks, the
    /// furthest under what it owns (ties: the first tenant); `None`
    /// when no task is ready.
    pub fn neediest(&self, rule: OsepRule) -> Option<usize> {
        (0..self.ready.len())
            .filter(|&t| !self.ready[t].is_empty())
            .min_by(|&a, &b| self.over(rule, a).total_cmp(&self.over(rule, b)).then(a.cmp(&b)))
    }

    /// The tenant most over what it owns (ties: the first tenant).
    fn most_over(&self, rule: OsepRule) -> Option<usize> {
        (0..self.ready.len())
            .max_by(|&a, &b| self.over(rule, a).total_cmp(&self.over(rule, b)).then(b.cmp(&a)))
    }

    /// Tenant `t`'s smallest ready task, taken off the ready set.
    pub fn take_smallest(&mut self, t: usize) -> Option<usize> {
        self.ready[t].pop_first().map(|(_, _, task)| task)
    }

    /// The decision algorithm with bound `maxt`: at most `maxt` swaps,
    /// each found on the view as the swaps before it left it; it stops
    /// when a round finds none (the seed's recursion would loop forever
    /// on an unchanged state).
    pub fn decide(&mut self, rule: OsepRule, condition: OsepCondition, maxt: u32) -> Vec<Swap> {
        let mut swaps = Vec::new();
        while (swaps.len() as u32) < maxt {
            let Some(swap) = self.one(rule, condition) else {
                break;
            };
            swaps.push(swap);
        }
        swaps
    }

    /// One round: the beneficiary `u_i` (the furthest under, with ready
    /// tasks, strictly under), the victim tenant `u_j` (the most over,
    /// strictly over), the victim's task by the rule; then the view is
    /// updated (the new task runs on the victim's machine, `ran` 0).
    fn one(&mut self, rule: OsepRule, condition: OsepCondition) -> Option<Swap> {
        let i = self.neediest(rule).filter(|&i| self.over(rule, i) < 0.0)?;
        let j = self.most_over(rule).filter(|&j| self.over(rule, j) > 0.0)?;
        let pick = match rule {
            OsepRule::Heterogeneous => self.heterogeneous_victim(i, j, condition),
            OsepRule::Original => self.least_run(j, |_| true),
        }?;
        let victim = self.running.remove(pick);
        let task = self.take_smallest(i).expect("u_i has a ready task");
        self.running.push(Running {
            task,
            tenant: i,
            slot: victim.slot,
            power: victim.power,
            ran: Time::ZERO,
        });
        Some(Swap {
            victim: victim.task,
            slot: victim.slot,
            to: i,
            task,
        })
    }

    /// Algorithm 3, line 3, with §4.3.1's conditions 3 and 4: among `j`'s
    /// running tasks whose machine `y` passes `condition` (by default
    /// §4.2's fairness criterion, `PR_Preemp_{j,y} > DifPoder_i`: the
    /// victim is not left below where the beneficiary is, so no swap is
    /// undone by the next, as §4.5 and §6.1 say; the seed's printed
    /// `PR_Aloc > PR_Preemp` never swaps between equal portions of equal
    /// machines and swaps back and forth, see docs/osep.md), the one of
    /// largest `PR_Preemp` (the least powerful machine), then the least run.
    fn heterogeneous_victim(&self, i: usize, j: usize, condition: OsepCondition) -> Option<usize> {
        let (alloc_i, alloc_j) = (self.allocated(i), self.allocated(j));
        let (por_i, por_j) = (self.portions[i], self.portions[j]);
        let dif_i = self.dif(i);
        let keeps = |r: &Running| {
            let (aloc, preemp) = (
                pr_aloc(alloc_i, por_i, r.power),
                pr_preemp(alloc_j, por_j, r.power),
            );
            match condition {
                OsepCondition::After => aloc <= preemp,
                OsepCondition::Before => preemp > dif_i,
                OsepCondition::Literal => aloc > preemp,
            }
        };
        let weakest = self
            .running
            .iter()
            .filter(|r| r.tenant == j && keeps(r))
            .map(|r| r.power)
            .reduce(f64::min)?;
        self.least_run(j, |r| r.power == weakest && keeps(r))
    }

    /// The running task of `j` allowed by `allowed` that has run least
    /// (ties: the most recently admitted, as owner-share's victims: a
    /// choice blind to the machine, as the original rule is), as its index
    /// in `running`.
    fn least_run(&self, j: usize, allowed: impl Fn(&Running) -> bool) -> Option<usize> {
        self.running
            .iter()
            .enumerate()
            .filter(|(_, r)| r.tenant == j && allowed(r))
            .min_by(|(_, a), (_, b)| a.ran.cmp(&b.ran).then(b.task.cmp(&a.task)))
            .map(|(k, _)| k)
    }
}
