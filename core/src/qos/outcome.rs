//! What a run of a platform produced ([`Outcome`]), whichever simulation
//! made it: the event-driven platform's ([`super::simulate`]) or OSEP's
//! ([`super::osep`]).

use crate::qos::report::{ClassReport, RequestRecord, WindowStat};
use crate::qos::scheduler::{PreemptedFor, Preemption};
use crate::time::Time;

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// One per request, in admission order.
    pub records: Vec<RequestRecord>,
    /// One per class, in the config's order.
    pub classes: Vec<ClassReport>,
    /// The fairness windows.
    pub windows: Vec<WindowStat>,
    /// Every preemption, in order.
    pub preemptions: Vec<Preemption>,
    /// When the run ended.
    pub end: Time,
    /// Each tenant's satisfaction `SU_i`, percent (seed 002, eq. 4.4;
    /// `None` inside: no completed task) under osep; `None` under the
    /// other policies, whose outputs do not report it.
    pub satisfaction: Option<Vec<Option<f64>>>,
}

impl Outcome {
    /// The penalty of every class, slot-hours.
    pub fn penalty(&self) -> f64 {
        self.classes.iter().fold(0.0, |sum, c| sum + c.penalty)
    }

    /// Preemptions because HPC work (the hosts' owner) took slots back.
    pub fn preemptions_for_capacity(&self) -> usize {
        self.preemptions
            .iter()
            .filter(|p| p.by == PreemptedFor::Capacity)
            .count()
    }
}
