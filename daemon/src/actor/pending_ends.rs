//! Ends the store could not take because the state cannot be written (a
//! full disk): kept in memory and in the job's status file (whose bytes
//! were reserved at its start), and written once the store can be written
//! again. A restart before that finds the end in the status file, so a job
//! whose end was seen never runs again.

use super::cloud_job::PendingEnd;
use super::state::Actor;
use crate::exec::ObservedEnd;

impl Actor {
    /// One attempt at writing `end` to the store.
    fn write_end(&mut self, end: &PendingEnd) -> Result<(), crate::store::StoreError> {
        self.store.job_ended(
            end.id,
            end.time,
            &end.state,
            end.exit_code,
            end.evicted,
            &end.why,
            end.slo_violated,
        )
    }

    /// Store job `id`'s end; when the state cannot be written, keep it
    /// (here and in the job's status file) for [`Actor::retry_ends`].
    pub(super) fn store_end(&mut self, end: PendingEnd) {
        let result = self.write_end(&end);
        let Err(err) = result else { return };
        if self.store.write_failure().is_none() {
            // This statement was refused, not the disk: retrying would not help.
            tracing::error!(job = end.id, "cannot record end: {err}");
            return;
        }
        tracing::error!(
            job = end.id,
            "cannot record end ({err}): kept until the state can be written"
        );
        let observed = ObservedEnd {
            state: end.state.clone(),
            code: end.exit_code,
            ended_at: end.time,
        };
        if let Err(err) = self.executor.keep_observed_end(end.id, &observed) {
            tracing::warn!(
                job = end.id,
                "cannot keep the end in its status file either: {err}"
            );
        }
        self.pending_ends.push(end);
    }

    /// Once the state can be written again, store the ends kept meanwhile
    /// (in order; the first that fails keeps itself and the rest).
    pub(super) fn retry_ends(&mut self) {
        if self.pending_ends.is_empty() || self.store.write_failure().is_some() {
            return;
        }
        let pending = std::mem::take(&mut self.pending_ends);
        let mut left = pending.into_iter();
        for end in left.by_ref() {
            let stored = self.write_end(&end);
            match stored {
                Ok(()) => tracing::info!(
                    job = end.id,
                    state = end.state,
                    "end recorded now that the state can be written"
                ),
                Err(err) => {
                    tracing::warn!(job = end.id, "still cannot record end: {err}");
                    self.pending_ends.push(end);
                    break;
                }
            }
        }
        self.pending_ends.extend(left);
    }
}
