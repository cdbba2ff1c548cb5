//! Where the daemon's "now" comes from. The engine reads no clock: the daemon
//! passes it the time, and this is the one place that time is read. The
//! daemon binary runs on [`Clock::System`]; tests run the actor on a
//! [`ManualClock`] they set and advance, so that time-dependent decisions
//! (walltime enforcement, plan staleness) happen at exact instants without
//! sleeping.

use interstice_core::Time;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// The wall clock as an engine [`Time`] (epoch microseconds).
pub fn wall_clock() -> Time {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Time::from_ticks(since_epoch.as_micros() as i64)
}

/// The actor's clock.
#[derive(Clone, Debug, Default)]
pub enum Clock {
    /// The wall clock ([`wall_clock`]).
    #[default]
    System,
    /// A clock that only moves when told to; clones share the same time.
    Manual(ManualClock),
}

impl Clock {
    /// The current time, epoch-based.
    pub fn now(&self) -> Time {
        match self {
            Clock::System => wall_clock(),
            Clock::Manual(manual) => manual.now(),
        }
    }
}

/// A clock for tests: it stands still until [`ManualClock::set`] or
/// [`ManualClock::advance`] moves it. Clones share the same time, so a test
/// keeps one and gives a clone to the actor.
#[derive(Clone, Debug)]
pub struct ManualClock {
    ticks: Arc<AtomicI64>,
}

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: Time) -> ManualClock {
        ManualClock {
            ticks: Arc::new(AtomicI64::new(start.ticks())),
        }
    }

    /// The time it stands at.
    pub fn now(&self) -> Time {
        Time::from_ticks(self.ticks.load(Ordering::SeqCst))
    }

    /// Move it to `time` (also backwards: the actor never lets its own time go back).
    pub fn set(&self, time: Time) {
        self.ticks.store(time.ticks(), Ordering::SeqCst);
    }

    /// Move it forward by `by`.
    pub fn advance(&self, by: Time) {
        self.ticks.fetch_add(by.ticks(), Ordering::SeqCst);
    }
}

/// A monotonic stopwatch for durations the daemon measures (a broker's
/// round trips to its members): real elapsed time, whatever [`Clock`] the
/// decisions run on, and never moved by a change of the wall clock.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch(std::time::Instant);

impl Stopwatch {
    /// Started now.
    pub fn start() -> Stopwatch {
        Stopwatch(std::time::Instant::now())
    }

    /// The time since it started.
    pub fn elapsed(&self) -> Time {
        Time::from_ticks(i64::try_from(self.0.elapsed().as_micros()).unwrap_or(i64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told_and_clones_share_it() {
        let clock = ManualClock::new(Time::from_secs(100));
        let shared = Clock::Manual(clock.clone());
        assert_eq!(shared.now(), Time::from_secs(100));
        clock.advance(Time::from_secs(5));
        assert_eq!(shared.now(), Time::from_secs(105));
        clock.set(Time::from_secs(7));
        assert_eq!(shared.now(), Time::from_secs(7));
    }
}
