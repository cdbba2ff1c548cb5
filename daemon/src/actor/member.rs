//! A member of a data center (`datacenter: {role: member}`): the actor
//! publishes its tuple to the broker at every change of the plan and at
//! least every `publish_every_seconds`, and hands every cloud job it evicts
//! to the broker (Algorithm 2) instead of re-queueing it itself. The
//! exchanges run off the actor ([`crate::datacenter::publisher`]).
//!
//! While a job is handed over, the engine keeps the verdict of its own
//! lifecycle (re-queued or ended) and the job does not run here. When the
//! broker placed it (on any member, this one included: a new job there) it
//! ends here as `migrated`; when the broker found no member to take it, it
//! ends `evicted`. When the broker cannot be asked, the local verdict stands:
//! the job runs again here if the engine re-queued it.

use super::cloud_job::{CloudJob, Phase};
use super::seconds::secs;
use super::state::Actor;
use crate::datacenter::publisher::{hand_over, HandedOver};
use crate::datacenter::slots_view;
use interstice_api::wire::{EvictedRequest, SubmitRequest, TupleRequest};
use interstice_core::{EndReason, JobId, JobState, Time};

impl Actor {
    /// Offer the tuple to the publisher if the plan changed or the last one is
    /// `publish_every_seconds` old.
    pub(super) fn publish_tuple(&mut self, now: Time, plan_changed: bool) {
        let Some(member) = &self.member else { return };
        let due = member
            .last_publish
            .map_or(true, |at| now.saturating_sub(at) >= member.publish_every);
        if !(plan_changed || due) {
            return;
        }
        let engine = self.driver.engine();
        let tuple = TupleRequest {
            address: member.address.clone(),
            procs: engine.area_procs(),
            features: member.features.clone(),
            overbooking: engine.config().lambda,
            slots: slots_view(now, &engine.slots(now)),
        };
        member.publisher.offer(tuple);
        if let Some(member) = &mut self.member {
            member.last_publish = Some(now);
        }
    }

    /// Hand evicted job `id` to the broker; false if this daemon has no
    /// broker or the job cannot be described (then it stays with the local
    /// lifecycle).
    pub(super) fn hand_over(&mut self, id: u64, now: Time, why: &str) -> bool {
        let Some(member) = &self.member else {
            return false;
        };
        let stored = match self.store.job(id) {
            Ok(Some(stored)) => stored,
            Ok(None) => return false,
            Err(err) => {
                tracing::error!(job = id, "cannot read the job to hand it over: {err}");
                return false;
            }
        };
        let view = &stored.view;
        let request = EvictedRequest {
            member: member.address.clone(),
            job_id: id,
            job: SubmitRequest {
                procs: view.procs,
                walltime: view.walltime,
                slo: view.slo,
                argv: view.argv.clone(),
                env: stored
                    .env_json
                    .as_deref()
                    .and_then(|json| serde_json::from_str(json).ok()),
                workdir: stored.workdir.clone(),
                class: view.class.clone(),
                features: stored.features.clone(),
                // Wherever it goes next, it runs as the user it belongs to.
                on_behalf_of: view.owner_uid.filter(|&uid| uid != 0),
                memory_mb: stored.memory_mb,
                // A member keeps no job size: the broker's F^r moves 0 bytes.
                bytes: None,
            },
            arrival: view.submitted_at,
            resubmissions: stored.resubmissions,
        };
        if let Err(err) = hand_over(member.broker.clone(), request, member.done_tx.clone()) {
            tracing::error!(job = id, "cannot start handing the job over: {err}");
            return false;
        }
        if let Some(job) = self.jobs.get_mut(&id) {
            job.phase = Phase::HandingOver { why: why.to_string() };
            job.engine_procs = None;
        }
        if let Err(err) = self.store.job_handing_over(id, secs(now), why) {
            tracing::error!(job = id, "cannot record the hand-over: {err}");
        }
        tracing::info!(job = id, "evicted; handing it to the broker");
        true
    }

    /// Take the broker's answers to finished hand-overs.
    pub(super) fn collect_hand_overs(&mut self, now: Time) {
        let Some(member) = &self.member else { return };
        let answers: Vec<HandedOver> = member.done_rx.try_iter().collect();
        for answer in answers {
            self.handed_over(answer, now);
        }
    }

    fn handed_over(&mut self, done: HandedOver, now: Time) {
        let id = done.id;
        let Some(CloudJob {
            phase: Phase::HandingOver { why },
            ..
        }) = self.jobs.get(&id)
        else {
            return;
        };
        let why = why.clone();
        match done.answer {
            Ok(answer) if answer.accepted() => {
                self.withdraw(id, now);
                let member = answer.member.as_deref().unwrap_or("a member");
                let detail = format!(
                    "{why}; the broker placed it on {member} (broker job {})",
                    answer.id
                );
                tracing::info!(job = id, "{detail}");
                self.finish(id, now, "migrated", None, false, &detail);
            }
            Ok(answer) => {
                self.withdraw(id, now);
                let offer = answer
                    .counter_offer_slo
                    .map_or(String::new(), |slo| format!(", counter-offer {slo:.0} s"));
                self.end_evicted(
                    id,
                    now,
                    false,
                    &format!("{why}; the broker resubmitted it nowhere (no resubmission left, or no member takes it{offer})"),
                );
            }
            Err(err) => {
                tracing::warn!(
                    job = id,
                    "cannot hand the evicted job to the broker, keeping it here: {err}"
                );
                self.keep_locally(id, now, &why);
            }
        }
        self.dirty = true;
    }

    /// Take job `id` out of the engine: the broker placed it, or decided it ends.
    fn withdraw(&mut self, id: u64, now: Time) {
        let result = match self.driver.engine().job_state(JobId(id)) {
            Some(JobState::Queued { .. }) => self.driver.cancel(JobId(id), now),
            Some(JobState::Running { .. }) => self.driver.job_ended(JobId(id), now, EndReason::Killed),
            _ => Ok(()),
        };
        if let Err(err) = result {
            tracing::warn!(job = id, "engine: {err}");
        }
    }

    /// The broker could not be asked: the engine's own lifecycle decides.
    fn keep_locally(&mut self, id: u64, now: Time, why: &str) {
        let Some(job) = self.jobs.get_mut(&id) else { return };
        let started = job.engine_procs.take();
        match self.driver.engine().job_state(JobId(id)) {
            Some(JobState::Queued { .. } | JobState::Running { .. }) => {
                job.phase = Phase::Queued;
                if let Err(err) =
                    self.store
                        .job_requeued(id, secs(now), false, &format!("{why}; broker unreachable"))
                {
                    tracing::error!(job = id, "cannot record requeue: {err}");
                }
                if let Some(procs) = started {
                    self.start_cloud(id, procs, now);
                }
            }
            _ => self.end_evicted(
                id,
                now,
                false,
                &format!("{why}; broker unreachable and no resubmission left"),
            ),
        }
    }
}
