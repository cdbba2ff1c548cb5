//! The reservation depth: how many queued jobs hold a reservation.
//!
//! Production schedulers bound the work of conservative planning by
//! reserving only the head of the queue: Maui/Moab's `RESERVATIONDEPTH`,
//! Slurm's backfill `bf_max_job_test` (default 500). With depth `K` the
//! first `K` queued jobs (in queue order) hold reservations and are the only
//! ones a compression re-plans; a job beyond them starts only where it fits
//! now without delaying any of the `K` reservations (it is backfilled), and
//! gets a reservation once it is among the first `K`. EASY is depth 1 and
//! conservative backfilling is depth unlimited, the default: with it every
//! decision is the exact rule's.
//!
//! The same depth bounds the cloud queue's reservation window under
//! hpc-first: the first `min(K, 64)` queued cloud jobs hold reservations,
//! the others wait in the backlog ([`crate::Engine::DEFAULT_CLOUD_WINDOW`]).

use std::fmt;
use std::num::NonZeroUsize;

/// How many queued jobs hold a reservation (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReservationDepth {
    /// The first `K` queued jobs.
    Jobs(NonZeroUsize),
    /// Every queued job: the exact conservative rule.
    #[default]
    Unlimited,
}

impl ReservationDepth {
    /// The bound, `None` when unlimited.
    pub fn limit(self) -> Option<usize> {
        match self {
            ReservationDepth::Jobs(k) => Some(k.get()),
            ReservationDepth::Unlimited => None,
        }
    }

    /// Is it the exact rule?
    pub fn is_unlimited(self) -> bool {
        self == ReservationDepth::Unlimited
    }

    /// The cloud queue's reservation window under this depth: the depth,
    /// at most `window` (the engine's default window).
    pub fn cloud_window(self, window: usize) -> usize {
        self.limit().map_or(window, |k| k.min(window))
    }
}

impl fmt::Display for ReservationDepth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReservationDepth::Jobs(k) => write!(f, "{k}"),
            ReservationDepth::Unlimited => f.write_str("unlimited"),
        }
    }
}

/// Not a reservation depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadDepth(pub String);

impl fmt::Display for BadDepth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a reservation depth: give a number of jobs from 1 (EASY-like: only the head is \
             reserved) or `unlimited` (conservative backfilling, the default)",
            self.0
        )
    }
}

impl std::error::Error for BadDepth {}

impl std::str::FromStr for ReservationDepth {
    type Err = BadDepth;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "unlimited" {
            return Ok(ReservationDepth::Unlimited);
        }
        text.parse::<NonZeroUsize>()
            .map(ReservationDepth::Jobs)
            .map_err(|_| BadDepth(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_counts_and_unlimited_and_refuses_the_rest() {
        assert_eq!("unlimited".parse(), Ok(ReservationDepth::Unlimited));
        let k: ReservationDepth = "500".parse().unwrap();
        assert_eq!(k.limit(), Some(500));
        assert_eq!(k.to_string(), "500");
        for bad in ["0", "-3", "", "many", "1.5"] {
            let err = bad.parse::<ReservationDepth>().unwrap_err();
            assert!(err.to_string().contains("unlimited"), "{err}");
        }
    }

    #[test]
    fn the_cloud_window_is_the_depth_at_most_the_default() {
        assert_eq!(ReservationDepth::Unlimited.cloud_window(64), 64);
        assert_eq!("500".parse::<ReservationDepth>().unwrap().cloud_window(64), 64);
        assert_eq!("10".parse::<ReservationDepth>().unwrap().cloud_window(64), 10);
    }
}
