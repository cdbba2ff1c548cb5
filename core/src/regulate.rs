//! The cloud submission-rate regulator: the one home of its rule.
//!
//! The thesis's conclusion (§6.9) asks that the cloud submission frequency be
//! "monitored, or regulated over time by the schedulers that migrate", to
//! keep violations down: an area offered more cloud work than its holes can
//! hold queues it, and the queued jobs miss their SLOs.
//!
//! # The measured rate
//!
//! Over a window `W` ([`Regulation::window`]) the regulator divides
//!
//! * the cloud work **admitted** in the trailing window `(now − W, now]`
//!   (processors × requested walltime, in processor-seconds), by
//! * the **idle capacity** of the convergence area over the next window
//!   `[now, now + W)`: the area's processors × `W`, less what the HPC
//!   layer's plan holds there (running and reserved HPC work, maintenance).
//!
//! The capacity is read ahead in the plan, not measured behind, because it
//! is where the admitted work will run: the holes the HPC plan leaves over
//! the next window, not those it left over the last one (a long HPC job
//! starting now closes the area for the coming window whatever it was
//! before). Queued HPC work without a reservation (EASY's queue past its
//! head) is not in the plan, so the capacity is an upper bound. Under
//! `shared-queue` the one layer also holds the planned cloud work, so the
//! capacity is what that work leaves: the regulator is stricter there.
//!
//! # The decision
//!
//! A cloud job whose own work would bring the rate above
//! [`Regulation::threshold`] (1 = as much work admitted per window as the
//! area has idle) is refused with a counter-offer: the earliest start at
//! which enough of the window's admitted work has aged out for it to fit
//! (the capacity held at today's value), turned into an SLO by
//! [`crate::Prediction::from_start`]'s `F^SLO`. A job too large for the
//! threshold on an empty window is refused with no counter-offer.

use crate::time::Time;
use std::collections::VecDeque;

/// The regulator's settings: the window and the threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Regulation {
    /// The window `W` over which admitted work and idle capacity are measured.
    pub window: Time,
    /// The largest rate admitted (admitted work ÷ idle capacity), above 0.
    pub threshold: f64,
}

impl Regulation {
    /// What is wrong with the settings, naming the field and the fix; `None`
    /// when they are usable.
    pub fn problem(&self) -> Option<String> {
        if self.window <= Time::ZERO || self.window.is_infinite() {
            return Some(format!(
                "regulation window is {} s: give a positive, finite number of seconds (e.g. 3600)",
                self.window
            ));
        }
        if !(self.threshold.is_finite() && self.threshold > 0.0) {
            return Some(format!(
                "regulation threshold is {}: give a finite rate above 0 (admitted work ÷ idle capacity, e.g. 1)",
                self.threshold
            ));
        }
        None
    }
}

/// The regulator's verdict on one cloud job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RateVerdict {
    /// Within the threshold: admit (as far as the regulator is concerned).
    Within {
        /// The rate with the job admitted.
        rate: f64,
    },
    /// Over the threshold: refuse.
    Over {
        /// The rate the job would have brought.
        rate: f64,
        /// The earliest start at which the job fits under the threshold, if
        /// any (`None`: the job alone is above it).
        later_start: Option<Time>,
    },
}

/// The admitted cloud work of the trailing window, oldest first.
#[derive(Clone, Debug, Default)]
pub(crate) struct RateWindow {
    /// (admission time, processor-ticks), in admission order.
    admitted: VecDeque<(Time, i128)>,
    /// Their sum.
    sum: i128,
}

/// `work ÷ idle`, infinite when nothing is idle.
fn rate(work: i128, idle: i128) -> f64 {
    if idle <= 0 {
        f64::INFINITY
    } else {
        work as f64 / idle as f64
    }
}

impl RateWindow {
    /// Forget what was admitted at or before `now − window`.
    pub(crate) fn forget(&mut self, now: Time, window: Time) {
        let horizon = now.saturating_sub(window);
        while let Some(&(at, work)) = self.admitted.front() {
            if at > horizon {
                break;
            }
            self.sum -= work;
            self.admitted.pop_front();
        }
    }

    /// Work admitted at `now` (processor-ticks).
    pub(crate) fn record(&mut self, now: Time, work: i128) {
        self.admitted.push_back((now, work));
        self.sum += work;
    }

    /// The work admitted in `(now − window, now]`, even before
    /// [`RateWindow::forget`] (a read-only question skips the stale entries).
    fn live_sum(&self, now: Time, window: Time) -> i128 {
        let horizon = now.saturating_sub(window);
        let stale: i128 = self
            .admitted
            .iter()
            .take_while(|(at, _)| *at <= horizon)
            .map(|(_, w)| w)
            .sum();
        self.sum - stale
    }

    /// The measured rate at `now` against `idle` processor-ticks of capacity.
    pub(crate) fn rate(&self, now: Time, window: Time, idle: i128) -> f64 {
        rate(self.live_sum(now, window), idle)
    }

    /// The verdict on a job of `work` processor-ticks at `now`, against
    /// `idle` processor-ticks of capacity.
    pub(crate) fn verdict(&self, reg: &Regulation, now: Time, work: i128, idle: i128) -> RateVerdict {
        let sum = self.live_sum(now, reg.window);
        let with_job = rate(sum + work, idle);
        if with_job <= reg.threshold {
            return RateVerdict::Within { rate: with_job };
        }
        let allowed = if idle > 0 {
            idle as f64 * reg.threshold
        } else {
            -1.0
        };
        let horizon = now.saturating_sub(reg.window);
        let mut remaining = sum;
        let mut later_start = None;
        if (work as f64) <= allowed {
            for &(at, w) in self.admitted.iter().skip_while(|(at, _)| *at <= horizon) {
                remaining -= w;
                if (remaining + work) as f64 <= allowed {
                    later_start = Some((at + reg.window).max(now));
                    break;
                }
            }
        }
        RateVerdict::Over {
            rate: with_job,
            later_start,
        }
    }
}

#[cfg(test)]
mod tests;
