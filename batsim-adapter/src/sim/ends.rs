//! What both simulator loops ([`super::simulate_stream`] and
//! [`super::datacenter::simulate_datacenter`]) keep of the runs they started:
//! the pending ends, earliest first, and each job's current run, so the end
//! of a run that was evicted since is recognised as stale.

use interstice_core::{EndReason, Time};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The earliest of the instants something is due at (an arrival, an end, a
/// pass the engine asked for), or `None` when nothing is left to happen.
pub(super) fn earliest<const N: usize>(due: [Option<Time>; N]) -> Option<Time> {
    due.into_iter().flatten().min()
}

/// A pending end of one run of a job; `J` names the job (its id, or its
/// scheduler and id in a data center).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct EndEvent<J> {
    /// When the run ends.
    pub time: Time,
    /// Booking order: ties end in the order the runs started.
    seq: u64,
    /// The job.
    pub job: J,
    /// The run it ends (see [`RunState`]).
    pub run: u32,
    walltime_reached: bool,
}

impl<J> EndEvent<J> {
    /// How the run ends: killed at its walltime, or completed.
    pub fn reason(&self) -> EndReason {
        if self.walltime_reached {
            EndReason::WalltimeReached
        } else {
            EndReason::Completed
        }
    }
}

/// The pending ends, in a binary heap keyed by (time, booking order).
#[derive(Debug)]
pub(super) struct Ends<J> {
    heap: BinaryHeap<Reverse<EndEvent<J>>>,
    booked: u64,
}

impl<J: Ord + Copy> Ends<J> {
    /// No end pending.
    pub fn new() -> Self {
        Ends {
            heap: BinaryHeap::new(),
            booked: 0,
        }
    }

    /// When the next end is due.
    pub fn next_time(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse(end)| end.time)
    }

    /// Book the end of `job`'s run `run` at `time`, ending with `reason`
    /// (a walltime kill or a completion).
    pub fn book(&mut self, time: Time, job: J, run: u32, reason: EndReason) {
        self.heap.push(Reverse(EndEvent {
            time,
            seq: self.booked,
            job,
            run,
            walltime_reached: reason == EndReason::WalltimeReached,
        }));
        self.booked += 1;
    }

    /// The next end due at `now`, taken off the heap (stale or not).
    pub fn pop_at(&mut self, now: Time) -> Option<EndEvent<J>> {
        match self.heap.peek() {
            Some(Reverse(end)) if end.time == now => self.heap.pop().map(|Reverse(end)| end),
            _ => None,
        }
    }
}

/// A job's runs as the simulator sees them: the current run's number
/// (incremented at every start and eviction) and whether it is running.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RunState {
    /// The current run; an end event is live only if it carries this value.
    pub run: u32,
    /// Whether the current run is running.
    pub running: bool,
}

impl RunState {
    /// Whether `end` ends the current run (not one evicted since).
    pub fn ends_current<J>(&self, end: &EndEvent<J>) -> bool {
        self.running && self.run == end.run
    }

    /// A start: a new run, running. `false` (nothing changed) if a run is
    /// already running.
    pub fn start(&mut self) -> bool {
        if self.running {
            return false;
        }
        self.running = true;
        self.run += 1;
        true
    }

    /// An eviction: the run ends now and a later end event of it is stale.
    /// `false` (nothing changed) if nothing is running.
    pub fn evict(&mut self) -> bool {
        if !self.running {
            return false;
        }
        self.running = false;
        self.run += 1;
        true
    }
}
