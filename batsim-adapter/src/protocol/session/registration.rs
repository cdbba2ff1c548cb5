//! Dynamic jobs the adapter registers itself (`REGISTER_PROFILE` and
//! `REGISTER_JOB`): cloud injection, and when registrations are over
//! (`NOTIFY registration_finished`).

use super::{Entry, JobError, Running, DYNAMIC_WORKLOAD};
use crate::protocol::messages::Outgoing;
use interstice_core::{Job, JobKind, Time};
use serde_json::{json, Map, Value};

impl Running {
    /// Register a job in the dynamic workload with a profile of its own,
    /// named as the job: without `--enable-profile-reuse`, Batsim discards a
    /// dynamic profile once its job is gone, so profiles are never shared.
    /// Returns the job's description as registered.
    pub(super) fn register_job(
        &mut self,
        name: &str,
        profile: Value,
        mut description: Map<String, Value>,
        reply: &mut Vec<Outgoing>,
    ) -> Map<String, Value> {
        let job_id = format!("{DYNAMIC_WORKLOAD}!{name}");
        reply.push(Outgoing::RegisterProfile {
            workload_name: DYNAMIC_WORKLOAD.into(),
            profile_name: name.to_string(),
            profile,
        });
        description.insert("id".into(), json!(job_id));
        description.insert("profile".into(), json!(name));
        reply.push(Outgoing::RegisterJob {
            job_id,
            job: Value::Object(description.clone()),
        });
        description
    }

    /// The time of the next cloud job, until Batsim has no more static jobs.
    pub(super) fn pending_injection(&self) -> Option<Time> {
        if self.static_done {
            return None;
        }
        self.injector.as_ref()?.next_submit()
    }

    /// Register and submit the cloud jobs due by `now`, pulled from swf's
    /// injector: cloud job `k` is `interstice!cloud<k>`.
    pub(super) fn inject_due(&mut self, now: Time, reply: &mut Vec<Outgoing>) -> Result<(), JobError> {
        while self.pending_injection().is_some_and(|t| t <= now) {
            let Some(cloud) = self.injector.as_mut().and_then(Iterator::next) else {
                break;
            };
            let name = format!("cloud{}", cloud.id.0);
            let batsim_id = format!("{DYNAMIC_WORKLOAD}!{name}");
            let runtime = cloud.runtime.unwrap_or(cloud.walltime);
            let profile = json!({"type": "delay", "delay": runtime.as_secs_f64()});
            let slo = cloud.slo.unwrap_or(Time::INFINITY);
            let submit = self.engine_time(cloud.submit);
            let description = json!({
                "subtime": submit.as_secs_f64(), "walltime": cloud.walltime.as_secs_f64(),
                "res": cloud.procs, "kind": "cloud", "slo": slo.as_secs_f64(),
            });
            let description = description.as_object().cloned().unwrap_or_default();
            let description = self.register_job(&name, profile.clone(), description, reply);
            let id = self.new_engine_id(&batsim_id);
            self.by_batsim.insert(batsim_id.clone(), id);
            let job = Job { id, submit, ..cloud };
            let mut entry = Entry::waiting(batsim_id, description, DYNAMIC_WORKLOAD.into());
            entry.dynamic_profile = Some(profile);
            self.submit_to_engine(job, entry, None, reply)?;
        }
        Ok(())
    }

    /// `NOTIFY registration_finished`, once, when Batsim's dynamic jobs are
    /// on and no registration can be needed any more.
    pub(super) fn notify_registration_finished(&mut self, reply: &mut Vec<Outgoing>) {
        if self.dynamic_jobs && !self.registration_finished && self.registrations_over() {
            self.registration_finished = true;
            reply.push(Outgoing::Notify {
                notify_type: "registration_finished".into(),
            });
        }
    }

    /// No registration can be needed any more: static jobs are all in, no
    /// injection is pending and no evicted job may come back.
    fn registrations_over(&self) -> bool {
        if !self.static_done || !self.killing.is_empty() || !self.held.is_empty() {
            return false;
        }
        if self.pending_injection().is_some() {
            return false;
        }
        if self.entries.values().any(|e| e.needs_registration) {
            return false;
        }
        let engine = self.driver.engine();
        engine.config().lifecycle.max_resubmissions == 0 || engine.running(JobKind::Cloud) == 0
    }
}
