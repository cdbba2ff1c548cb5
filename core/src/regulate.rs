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
//!
//! Only work that will run counts: a job cancelled while queued gives its
//! whole admitted work back to the window, and one that ends before its
//! walltime (completed early, killed, evicted for good) the rest of it, so
//! admitting and cancelling at once holds no capacity. With
//! [`Regulation::per_user_share`], each user's own admitted work must also
//! stay within that share of the threshold (a user over it is refused with
//! the start at which enough of their own work has aged out), so one user
//! cannot fill the window for everyone.

use crate::time::Time;
use std::collections::{HashMap, VecDeque};

/// The regulator's settings: the window and the threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Regulation {
    /// The window `W` over which admitted work and idle capacity are measured.
    pub window: Time,
    /// The largest rate admitted (admitted work ÷ idle capacity), above 0.
    pub threshold: f64,
    /// Each user's part of the threshold, in (0, 1] (`None`: users are not
    /// told apart): one user's admitted work may bring the rate to at most
    /// `per_user_share × threshold`, so that no user fills the window and
    /// leaves every other one refused. Applies to jobs submitted with an
    /// owner ([`crate::Engine::submit_as`]).
    pub per_user_share: Option<f64>,
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
        if let Some(share) = self
            .per_user_share
            .filter(|share| !(share.is_finite() && *share > 0.0 && *share <= 1.0))
        {
            return Some(format!(
                "regulation per-user share is {share}: give a fraction in (0, 1] of the threshold (e.g. 0.25)"
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
        /// The owner's share of the threshold, when that is what the job
        /// is over (the area's rate is within it).
        share: Option<f64>,
    },
}

/// The admitted cloud work of the trailing window, oldest first, each
/// job's entry cut by what it will not run.
#[derive(Clone, Debug, Default)]
pub(crate) struct RateWindow {
    /// In admission order.
    admitted: VecDeque<Admitted>,
    /// Entries forgotten so far (the front's sequence number).
    forgotten: u64,
    /// Each job's entry (by the engine's job index), while in the window.
    by_job: HashMap<usize, u64>,
    /// The sum of the work.
    sum: i128,
    /// The sum of each owner's work.
    by_owner: HashMap<u32, i128>,
}

/// One admission.
#[derive(Clone, Copy, Debug)]
struct Admitted {
    at: Time,
    /// Processor-ticks, less what the job will not run.
    work: i128,
    owner: Option<u32>,
    job: usize,
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
        while let Some(&entry) = self.admitted.front() {
            if entry.at > horizon {
                break;
            }
            self.take(entry.owner, entry.work);
            self.by_job.remove(&entry.job);
            self.admitted.pop_front();
            self.forgotten += 1;
        }
    }

    /// Take `work` off the sums.
    fn take(&mut self, owner: Option<u32>, work: i128) {
        self.sum -= work;
        if let Some(owner) = owner {
            if let Some(sum) = self.by_owner.get_mut(&owner) {
                *sum -= work;
                if *sum <= 0 {
                    self.by_owner.remove(&owner);
                }
            }
        }
    }

    /// Job `job` of `owner` admitted at `now` with `work` processor-ticks.
    pub(crate) fn record(&mut self, now: Time, work: i128, job: usize, owner: Option<u32>) {
        self.by_job
            .insert(job, self.forgotten + self.admitted.len() as u64);
        self.admitted.push_back(Admitted {
            at: now,
            work,
            owner,
            job,
        });
        self.sum += work;
        if let Some(owner) = owner {
            *self.by_owner.entry(owner).or_default() += work;
        }
    }

    /// Job `job` became final and will not run `unrun` processor-ticks of
    /// what it was admitted with (cancelled queued: all of it; ended early:
    /// the rest of its walltime): they no longer count against anyone.
    pub(crate) fn unrun(&mut self, job: usize, unrun: i128) {
        if self.by_job.is_empty() {
            return; // no regulator, or nothing in its window
        }
        let Some(seq) = self.by_job.remove(&job) else {
            return; // not admitted, or aged out of the window
        };
        let Some(entry) = self.admitted.get_mut((seq - self.forgotten) as usize) else {
            return;
        };
        let cut = unrun.clamp(0, entry.work);
        entry.work -= cut;
        let owner = entry.owner;
        self.take(owner, cut);
    }

    /// The work admitted in `(now − window, now]` (of `owner` alone when
    /// given), even before [`RateWindow::forget`] (a read-only question
    /// skips the stale entries).
    fn live_sum(&self, now: Time, window: Time, owner: Option<u32>) -> i128 {
        let horizon = now.saturating_sub(window);
        let stale: i128 = self
            .admitted
            .iter()
            .take_while(|entry| entry.at <= horizon)
            .filter(|entry| owner.is_none() || entry.owner == owner)
            .map(|entry| entry.work)
            .sum();
        let sum = match owner {
            None => self.sum,
            Some(owner) => self.by_owner.get(&owner).copied().unwrap_or(0),
        };
        sum - stale
    }

    /// The measured rate at `now` against `idle` processor-ticks of capacity.
    pub(crate) fn rate(&self, now: Time, window: Time, idle: i128) -> f64 {
        rate(self.live_sum(now, window, None), idle)
    }

    /// The verdict on a job of `work` processor-ticks of `owner` at `now`,
    /// against `idle` processor-ticks of capacity: the area's threshold
    /// first, then the owner's share of it ([`Regulation::per_user_share`]).
    pub(crate) fn verdict(
        &self,
        reg: &Regulation,
        now: Time,
        work: i128,
        idle: i128,
        owner: Option<u32>,
    ) -> RateVerdict {
        let all = self.verdict_of(reg, now, work, idle, None, reg.threshold);
        let (Some(share), Some(_), RateVerdict::Within { .. }) = (reg.per_user_share, owner, all) else {
            return all;
        };
        match self.verdict_of(reg, now, work, idle, owner, reg.threshold * share) {
            RateVerdict::Over {
                rate, later_start, ..
            } => RateVerdict::Over {
                rate,
                later_start,
                share: Some(share),
            },
            within => within.and_rate(all),
        }
    }

    /// The verdict against `threshold` on the work of `owner` (all when `None`).
    fn verdict_of(
        &self,
        reg: &Regulation,
        now: Time,
        work: i128,
        idle: i128,
        owner: Option<u32>,
        threshold: f64,
    ) -> RateVerdict {
        let sum = self.live_sum(now, reg.window, owner);
        let with_job = rate(sum + work, idle);
        if with_job <= threshold {
            return RateVerdict::Within { rate: with_job };
        }
        let allowed = if idle > 0 { idle as f64 * threshold } else { -1.0 };
        let horizon = now.saturating_sub(reg.window);
        let mut remaining = sum;
        let mut later_start = None;
        if (work as f64) <= allowed {
            let live = self
                .admitted
                .iter()
                .skip_while(|entry| entry.at <= horizon)
                .filter(|entry| owner.is_none() || entry.owner == owner);
            for entry in live {
                remaining -= entry.work;
                if (remaining + work) as f64 <= allowed {
                    later_start = Some((entry.at + reg.window).max(now));
                    break;
                }
            }
        }
        RateVerdict::Over {
            rate: with_job,
            later_start,
            share: None,
        }
    }
}

impl RateVerdict {
    /// A verdict within an owner's share reports the area's rate.
    fn and_rate(self, all: RateVerdict) -> RateVerdict {
        match (self, all) {
            (RateVerdict::Within { .. }, RateVerdict::Within { rate }) => RateVerdict::Within { rate },
            (own, _) => own,
        }
    }
}

#[cfg(test)]
mod tests;
