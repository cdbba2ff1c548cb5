//! What happens when a member's job starts and ends: the Petri net's
//! firings, Algorithm 2's migration or resubmission of evicted jobs, the
//! class ledgers, and the attempt records.

use super::*;

impl Datacenter {
    pub(super) fn started(&mut self, scheduler: usize, id: JobId, now: Time) -> Result<(), DatacenterError> {
        let Some((ticket, _)) = self.given.get(&(scheduler, id)) else {
            return Err(self.unknown(scheduler, id));
        };
        let Some(tracked) = ticket.and_then(|t| self.tracked.get_mut(&t)) else {
            return Ok(());
        };
        if tracked.routed {
            tracked.ledger.run(now);
        }
        let transition = match self.members[scheduler].role {
            Role::Hpc => Transition::T4,
            Role::Cloud => Transition::T7,
        };
        tracked.place = self.net.fire(transition, Some(tracked.place))?;
        Ok(())
    }

    pub(super) fn unknown(&self, scheduler: usize, job: JobId) -> DatacenterError {
        DatacenterError::UnknownJob {
            scheduler: self.members[scheduler].name.clone(),
            job,
        }
    }

    /// A scheduler is done with an attempt: follow the job through the net.
    pub(super) fn finished(
        &mut self,
        scheduler: usize,
        record: JobRecord,
        now: Time,
    ) -> Result<(), DatacenterError> {
        let Some((ticket, _)) = self.given.remove(&(scheduler, record.job.id)) else {
            return Err(self.unknown(scheduler, record.job.id));
        };
        let Some(ticket) = ticket else {
            // A cloud platform's own work.
            self.done.push(Attempt::own_work(scheduler, record));
            return Ok(());
        };
        let mut tracked = self.tracked.remove(&ticket).expect("tracked job");
        let role = self.members[scheduler].role;
        let reason = record.end_reason;
        let ended = close_run(&mut tracked.ledger, &record, now);
        let mut attempt = self.attempt_of(scheduler, &tracked, record);
        use Transition::*;
        let withdrawn = attempt.record.start.is_none();
        let (first, then) = match (role, reason) {
            // Cancelled before it started.
            (Role::Hpc, _) if withdrawn => (T15, None),
            (Role::Cloud, _) if withdrawn => (T16, None),
            (Role::Hpc, Some(EndReason::Evicted)) => (T14, None),
            (Role::Hpc, _) => (T5, None),
            (Role::Cloud, Some(EndReason::Evicted)) => (T9, None),
            (Role::Cloud, Some(EndReason::Killed) | None) => (T9, Some(T10)),
            (Role::Cloud, _) => (T8, None),
        };
        tracked.place = self.net.fire(first, Some(tracked.place))?;
        if let Some(then) = then {
            tracked.place = self.net.fire(then, Some(tracked.place))?;
        }
        if tracked.place == Place::L8 {
            self.totals.evictions += 1;
            self.members[scheduler].totals.evictions += 1;
            tracked.evictions += 1;
            // Algorithm 2 at L8, run by the evicting scheduler, which
            // publishes its own plan first (it knows what evicted the job)
            // and has no latency to itself.
            self.publish(scheduler, now);
            let in_system = now - tracked.job.submit;
            let next = if self
                .lifecycle
                .allows_resubmission(tracked.resubmissions, in_system)
            {
                let request = Request {
                    procs: tracked.job.procs,
                    walltime: tracked.job.walltime,
                    slo: tracked.job.slo,
                    arrival: tracked.job.submit,
                    features: tracked.features.clone(),
                    bytes: tracked.bytes,
                };
                self.rank(&request, now, Some(scheduler)).into_iter().next()
            } else {
                None
            };
            let Some(choice) = next else {
                tracked.place = self.net.fire(T10, Some(tracked.place))?;
                self.conclude(scheduler, &tracked, &mut attempt, ended);
                self.done.push(attempt);
                return Ok(());
            };
            let to = choice.index;
            attempt.last = false;
            tracked.resubmissions += 1;
            tracked.prediction = Some(choice.prediction);
            let arrival = if to == scheduler {
                self.totals.resubmissions_in_place += 1;
                self.members[to].totals.resubmitted += 1;
                now
            } else {
                self.totals.migrations += 1;
                self.members[scheduler].totals.migrated_out += 1;
                self.members[to].totals.migrated_in += 1;
                now.saturating_add(self.latency[to].of(tracked.bytes))
            };
            let transition = match self.members[to].role {
                Role::Hpc => T3,
                Role::Cloud => T11,
            };
            self.done.push(attempt);
            self.tracked.insert(ticket, tracked);
            return self.send(ticket, to, transition, arrival);
        }
        self.conclude(scheduler, &tracked, &mut attempt, ended);
        self.done.push(attempt);
        Ok(())
    }

    /// Rank scheduler `i`'s running cloud jobs by its eviction policy's
    /// victim order at `now` (nothing when it has no policy).
    pub(super) fn rank_victims(&mut self, i: usize, now: Time) {
        let Some(cfg) = &self.members[i].policy else {
            return;
        };
        let mut candidates = Vec::new();
        // The engine's running cloud jobs are the data center's attempts there.
        for (id, _) in self.members[i].driver.engine().running_cloud() {
            let Some((Some(ticket), _)) = self.given.get(&(i, id)) else {
                continue;
            };
            let Some(tracked) = self.tracked.get(ticket) else {
                continue;
            };
            let request = tracked.request();
            candidates.push((id, Candidate::of(&request, *ticket, &tracked.ledger, now, cfg)));
        }
        let ranks = Rules::new(cfg).victim_keys(candidates);
        self.members[i].driver.rank_victims(ranks);
    }

    /// One report per class of what its cloud jobs received.
    pub(super) fn class_reports(&self) -> Vec<ClassReport> {
        match &self.classes {
            Some(book) => ClassReport::all(&book.cfg, &book.records, &book.windows.stats),
            None => Vec::new(),
        }
    }

    /// The row of an attempt of a tracked job: the job's own id, and the
    /// prediction that sent the attempt there.
    pub(super) fn attempt_of(&self, scheduler: usize, tracked: &Tracked, record: JobRecord) -> Attempt {
        let mut record = record;
        let local_id = record.job.id;
        record.job.id = tracked.job.id;
        if tracked.routed {
            record.prediction = tracked.prediction.clone();
        }
        Attempt {
            scheduler: Some(scheduler),
            attempt: tracked.attempts,
            local_id,
            record,
            routed: tracked.routed,
            last: true,
            violated: None,
        }
    }

    /// A routed job's last attempt, at `at`: its SLO verdict against its
    /// first arrival, in the totals, the scheduler's and the confusion
    /// matrix, and what it received in its class's tally.
    pub(super) fn conclude(&mut self, scheduler: usize, tracked: &Tracked, attempt: &mut Attempt, at: Time) {
        if !tracked.routed {
            return;
        }
        if let Some(ClassBook {
            cfg,
            records,
            windows,
        }) = &mut self.classes
        {
            windows.ended(tracked.service.class, &tracked.ledger, at);
            // It completed if its last run ran to its own end (or its walltime).
            let completed = attempt.record.start.is_some()
                && matches!(
                    attempt.record.end_reason,
                    Some(EndReason::Completed | EndReason::WalltimeReached)
                );
            records.push(RequestRecord::new(
                cfg,
                &tracked.request(),
                &tracked.ledger,
                completed.then_some(at),
                at,
                tracked.evictions,
            ));
        }
        let deadline = tracked
            .job
            .slo
            .map_or(Time::INFINITY, |slo| tracked.job.submit.saturating_add(slo));
        let end = attempt.record.end.zip(attempt.record.end_reason);
        let violated = violates(deadline, end);
        match tracked.place {
            Place::L9 => self.totals.failed += 1,
            place if place.is_final() => self.totals.completed += 1,
            _ => self.totals.unfinished += 1,
        }
        let totals = &mut self.members[scheduler].totals;
        totals.last_attempts += 1;
        if violated {
            totals.violations += 1;
            self.totals.violations += 1;
        }
        let predicted = tracked.admitted.as_ref().is_some_and(|p| p.predicts_violation);
        match (predicted, violated) {
            (true, true) => self.totals.true_positives += 1,
            (true, false) => self.totals.false_positives += 1,
            (false, true) => self.totals.false_negatives += 1,
            (false, false) => self.totals.true_negatives += 1,
        }
        attempt.violated = Some(violated);
    }
}
