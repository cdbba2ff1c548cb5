//! What the actor keeps of rejected submissions (`store:`,
//! [`crate::config::StoreConfig`]): a user's newest
//! `max_rejected_per_user`, deleted beyond it as each new one is recorded,
//! and none older than `rejected_retention_seconds`, pruned at most every
//! [`PRUNE_INTERVAL`]. Both counted in `interstice_rejected_pruned_total`.
//! Of finished jobs: a user's newest `max_finished_per_user`, none that
//! ended more than `finished_retention_seconds` ago, pruned at start and
//! every [`FINISHED_PRUNE_INTERVAL`] (`interstice_finished_pruned_total`).

use super::seconds::secs;
use super::state::Actor;
use interstice_core::Time;

/// The longest between two prunings of expired rejected submissions (shorter
/// when the retention is).
pub(super) const PRUNE_INTERVAL: Time = Time::from_secs(60);

/// How often finished jobs are pruned (and once at start).
pub(super) const FINISHED_PRUNE_INTERVAL: Time = Time::from_secs(3600);

impl Actor {
    /// A rejected submission of `uid` was just recorded: delete that user's
    /// oldest beyond the quota. A failure is logged; the submission stands.
    pub(super) fn keep_rejected_quota(&mut self, uid: Option<u32>) {
        let keep = self.store_config.max_rejected_per_user;
        match self.store.prune_rejected_of(uid, keep) {
            Ok(0) => {}
            Ok(deleted) => self.metrics.rejected_pruned("quota", deleted),
            Err(err) => tracing::warn!(?uid, "cannot prune rejected submissions beyond the quota: {err}"),
        }
    }

    /// Delete the rejected submissions older than the retention, if the
    /// last pruning is old enough.
    pub(super) fn prune_expired_rejections(&mut self, now: Time) {
        let retention = Time::from_secs_f64(self.store_config.rejected_retention_seconds);
        let interval = retention.min(PRUNE_INTERVAL);
        if self.last_prune.is_some_and(|last| now - last < interval) {
            return;
        }
        self.last_prune = Some(now);
        let cutoff = secs(now) - self.store_config.rejected_retention_seconds;
        match self.store.prune_rejected_before(cutoff) {
            Ok(0) => {}
            Ok(deleted) => {
                tracing::info!(
                    deleted,
                    "pruned rejected submissions past store.rejected_retention_seconds"
                );
                self.metrics.rejected_pruned("retention", deleted);
            }
            Err(err) => tracing::warn!("cannot prune expired rejected submissions: {err}"),
        }
    }

    /// Delete the finished jobs beyond each user's quota and those that
    /// ended before the retention, at start and then hourly. A failure is
    /// logged; the next pruning tries again.
    pub(super) fn prune_finished(&mut self, now: Time) {
        if self
            .last_finished_prune
            .is_some_and(|last| now - last < FINISHED_PRUNE_INTERVAL)
        {
            return;
        }
        self.last_finished_prune = Some(now);
        let cutoff = secs(now) - self.store_config.finished_retention_seconds;
        let keep = self.store_config.max_finished_per_user;
        let pruned = [
            ("retention", self.store.prune_finished_before(cutoff)),
            ("quota", self.store.prune_finished_beyond(keep)),
        ];
        for (reason, result) in pruned {
            match result {
                Ok(0) => {}
                Ok(deleted) => {
                    tracing::info!(deleted, reason, "pruned finished jobs");
                    self.metrics.finished_pruned(reason, deleted);
                }
                Err(err) => tracing::warn!(reason, "cannot prune finished jobs: {err}"),
            }
        }
    }
}
