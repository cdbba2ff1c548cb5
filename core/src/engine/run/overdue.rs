//! Running jobs past their walltime whose end the shell has not reported:
//! held on their processors, and the reservations in their way moved.

use super::*;

impl State {
    /// Keep the processors of overdue jobs busy: a running job whose walltime
    /// has passed but whose end the shell has not reported yet (Batsim may
    /// report a kill at the walltime in a later message of the same instant,
    /// or microseconds later; a job without an enforced walltime may outrun
    /// its estimate) holds its processors for as long again as it has
    /// overrun (at least one tick): a late report costs a pass or two, a long
    /// overrun `O(log overrun)` passes, and the plan assumes a job that has
    /// overrun by `x` runs `x` more. Queued
    /// reservations that would start on them now move (HPC ones are planned
    /// again by this pass, cloud ones at their next earliest fit); a held
    /// cloud job in the way of HPC work is held until that work is due, and
    /// evicted then.
    ///
    /// Holding an HPC job can move an HPC reservation that had cut a cloud
    /// hold short, giving that job its hold back up to now
    /// ([`State::hpc_free`]): it is held again in the same pass. Terminates:
    /// an HPC job is held once per pass, and only HPC holds give holds back.
    pub(super) fn hold_overdue(&mut self, cfg: &EngineConfig, now: Time) {
        if self.displaced.is_empty() && self.deadlines.first().map_or(true, |&(t, _)| t > now) {
            // Nothing overdue, nothing to re-plan: the common pass.
            return;
        }
        loop {
            let due: Vec<(Time, usize)> = self
                .deadlines
                .iter()
                .take_while(|&&(t, _)| t <= now)
                .copied()
                .filter(|&(_, idx)| self.jobs[idx].occ_end <= now && self.jobs[idx].evict_at.is_infinite())
                .collect();
            if due.is_empty() {
                break;
            }
            // A hold is a reservation beyond now: the plan is needed.
            self.materialize(cfg);
            self.hold(due, now);
        }
        self.replace_displaced(cfg, now);
    }

    /// Hold each of `due` (`(deadline, job)`, overdue at `now`) as
    /// [`State::hold_overdue`] describes.
    pub(super) fn hold(&mut self, due: Vec<(Time, usize)>, now: Time) {
        for (deadline, idx) in due {
            let until = now + (now - deadline).max(Time::from_ticks(1));
            let Some(bits) = self.jobs[idx].res.as_ref().map(|r| r.1.clone()) else {
                continue;
            };
            let held_until = if self.on_hpc_layer(idx) {
                self.lift_hpc_reservations(&bits, now, until);
                self.hpc_occupy(idx, &bits, now, until);
                until
            } else {
                // HPC work planned on these processors meanwhile evicts
                // the job when it is due (as `clear_cloud` does).
                // Maintenance windows are not HPC work: the job overruns
                // into them (their release keeps them blocked).
                let hpc_at = self.hpc.first_unblocked_conflict(&bits, now, until);
                let until = hpc_at.unwrap_or(until);
                if until > now {
                    for i in self.reserved_in(self.cloud_queue.iter(), &bits, now, until) {
                        self.unreserve(i);
                        self.displaced.push(i);
                    }
                    self.cloud_mut().reserve(&bits, now, until);
                }
                if let Some(at) = hpc_at {
                    self.jobs[idx].evict_at = at;
                    self.dooms.insert((at, idx));
                }
                until
            };
            self.jobs[idx].occ_end = held_until;
        }
    }

    /// Running jobs whose walltime has passed at `now` and whose end the
    /// shell has not reported yet.
    pub(in crate::engine) fn overdue(&self, now: Time) -> usize {
        self.deadlines.iter().take_while(|&&(t, _)| t <= now).count()
    }
}
