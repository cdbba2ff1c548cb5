//! `F^J'` and Algorithm 1 across the members: publishing each scheduler's
//! tuple, ranking destinations, refusing with a counter-offer, and sending
//! a job on its way (with the destination's latency) until it is given to
//! the member's engine.

use super::*;

impl Datacenter {
    /// Scheduler `i` publishes its tuple to the database.
    pub(super) fn publish(&mut self, i: usize, now: Time) {
        self.tuples[i] = self.tuple(i, now);
        let member = &mut self.members[i];
        member.published = Some(now);
        member.behind = false;
        member.totals.publications += 1;
    }

    pub(super) fn tuple(&self, i: usize, now: Time) -> Tuple {
        let member = &self.members[i];
        let engine = member.driver.engine();
        Tuple {
            address: member.name.clone(),
            role: member.role,
            metadata: Metadata {
                procs: member.widest,
                features: self.features[i].clone(),
                overbooking: member.overbooking,
            },
            slots: engine.slots(now),
            published: now,
            latency: self.latency[i],
        }
    }

    /// `F^J'` under the configured routing, asked by `caller` (a scheduler,
    /// or `None` for the data-center scheduler).
    pub(super) fn rank(&self, request: &Request, now: Time, caller: Option<usize>) -> Vec<Choice> {
        // A fixed route keeps one destination: TOPSIS would order nothing.
        let topsis = match self.routing {
            Routing::Best => self.topsis.as_ref(),
            Routing::Fixed(_) => None,
        };
        let ranked = rank(&self.tuples, request, now, self.beta, self.tau, topsis, caller);
        match self.routing {
            Routing::Best => ranked,
            Routing::Fixed(only) => ranked.into_iter().filter(|c| c.index == only).collect(),
        }
    }

    pub(super) fn refuse(&mut self, job: Job, prediction: Option<Prediction>) -> Arrival {
        self.totals.refused += 1;
        let local_id = job.id;
        let mut record = JobRecord::new(job);
        record.rejected = true;
        record.counter_offer_slo = prediction.as_ref().and_then(|p| p.counter_offer_slo);
        record.prediction = prediction.clone();
        self.done.push(Attempt {
            scheduler: None,
            attempt: 0,
            local_id,
            record,
            routed: true,
            last: true,
            violated: None,
        });
        Arrival::Refused { prediction }
    }

    /// Fire `transition` towards `scheduler` and put the attempt in transit
    /// until `arrival`.
    pub(super) fn send(
        &mut self,
        ticket: u64,
        scheduler: usize,
        transition: Transition,
        arrival: Time,
    ) -> Result<(), DatacenterError> {
        let tracked = self.tracked.get_mut(&ticket).expect("tracked job");
        tracked.place = self.net.fire(transition, Some(tracked.place))?;
        tracked.scheduler = scheduler;
        self.next_seq += 1;
        self.transit.push(Reverse(Delivery {
            time: arrival,
            seq: self.next_seq,
            scheduler,
            ticket,
        }));
        Ok(())
    }

    /// An attempt reaches its scheduler: submitted there with the SLO left
    /// from its first arrival.
    pub(super) fn deliver(&mut self, d: Delivery) -> Result<(), DatacenterError> {
        let lambda = self.members[d.scheduler].overbooking;
        let tracked = self.tracked.get_mut(&d.ticket).expect("tracked job");
        tracked.attempts += 1;
        let original = &tracked.job;
        let deadline = original.slo.map(|slo| original.submit.saturating_add(slo));
        self.next_local += 1;
        let job = occupy(
            Job {
                id: JobId(self.next_local),
                submit: d.time,
                slo: deadline.map(|deadline| (deadline - d.time).max(Time::ZERO)),
                kind: JobKind::Cloud,
                ..original.clone()
            },
            lambda,
        );
        self.give(d.scheduler, Some(d.ticket), job)
    }

    pub(super) fn give(
        &mut self,
        scheduler: usize,
        ticket: Option<u64>,
        job: Job,
    ) -> Result<(), DatacenterError> {
        let member = &mut self.members[scheduler];
        let id = job.id;
        if self
            .given
            .insert((scheduler, id), (ticket, job.clone()))
            .is_some()
        {
            return Err(DatacenterError::Engine {
                scheduler: member.name.clone(),
                source: EngineError::DuplicateJob(id),
            });
        }
        member
            .driver
            .submit(job)
            .map_err(|source| DatacenterError::Engine {
                scheduler: member.name.clone(),
                source,
            })?;
        Ok(())
    }
}
