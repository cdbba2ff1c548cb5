//! The engine's decisions turned into the reply's events: `EXECUTE_JOB`
//! (after registering an evicted job again when needed, or held back while
//! a kill frees its processors), `KILL_JOB` and `REJECT_JOB`; and the victim
//! ranking that precedes a pass.

use super::{Entry, HeldStart, JobError, Kill, Running, Tracked, DYNAMIC_WORKLOAD};
use crate::protocol::messages::Outgoing;
use interstice_core::{Decision, EndReason, JobId};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// The entry of the job the engine `decided` about (`evicted`, …), which
/// must be in state `expected` when one is given.
fn decided_entry<'e>(
    entries: &'e mut HashMap<JobId, Entry>,
    id: JobId,
    decided: &'static str,
    expected: Option<Tracked>,
) -> Result<&'e mut Entry, JobError> {
    let entry = entries
        .get_mut(&id)
        .ok_or(JobError::UnknownDecided { decided, id })?;
    match expected {
        Some(state) if entry.state != state => Err(JobError::WrongState {
            decided,
            job: entry.batsim_id.clone(),
            expected: state.name(),
        }),
        _ => Ok(entry),
    }
}

impl Running {
    /// Rank the running cloud jobs by the victim order at the engine's
    /// time (nothing without one).
    pub(super) fn rank_victims(&mut self) {
        let Some(classes) = &self.classes else {
            return;
        };
        let entries = &self.entries;
        classes.rank(&mut self.driver, self.clock, |id| entries.get(&id)?.class);
    }

    fn register_resubmission(&mut self, id: JobId, reply: &mut Vec<Outgoing>) -> Result<(), JobError> {
        let entry = self.entries.get(&id).expect("entry").clone();
        let profile_name = entry
            .description
            .get("profile")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let profile = entry
            .dynamic_profile
            .clone()
            .or_else(|| self.profiles.get(&entry.workload)?.get(&profile_name).cloned())
            .ok_or_else(|| JobError::UnknownProfile {
                job: entry.batsim_id.clone(),
                profile: profile_name.clone(),
            })?;
        let registrations = entry.registrations + 1;
        let original = entry
            .description
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or(&entry.batsim_id);
        let base = original.split('-').next().unwrap_or(original).replace('!', "_");
        let name = format!("{base}-r{registrations}");
        let mut description = entry.description.clone();
        description.insert("subtime".into(), json!(self.clock.as_secs_f64()));
        self.register_job(&name, profile.clone(), description, reply);
        let new_id = format!("{DYNAMIC_WORKLOAD}!{name}");
        self.by_batsim.insert(new_id.clone(), id);
        let entry = self.entries.get_mut(&id).expect("entry");
        entry.dynamic_profile = Some(profile);
        entry.batsim_id = new_id;
        entry.description.insert("profile".into(), json!(name));
        entry.workload = DYNAMIC_WORKLOAD.into();
        entry.registrations = registrations;
        entry.needs_registration = false;
        Ok(())
    }

    pub(super) fn apply(
        &mut self,
        decisions: Vec<Decision>,
        reply: &mut Vec<Outgoing>,
    ) -> Result<(), JobError> {
        let mut kills = Vec::new();
        let mut starts = Vec::new();
        for decision in decisions {
            match decision {
                Decision::Evict { id } => {
                    let entry = decided_entry(&mut self.entries, id, "evicted", Some(Tracked::Running))?;
                    let batsim_id = entry.batsim_id.clone();
                    let procs = entry.procs.take().unwrap_or_default();
                    entry.state = Tracked::Done;
                    if let Some(end) = entry.expected_end.take() {
                        self.expected_ends.remove(&(end, id));
                    }
                    let kill = Kill {
                        id,
                        procs,
                        reported: false,
                    };
                    self.killing.insert(batsim_id.clone(), kill);
                    if let Some(pos) = self.held.iter().position(|h| h.batsim_id == batsim_id) {
                        // Never executed in Batsim: nothing to kill there.
                        self.held.remove(pos);
                        let clock = self.clock;
                        self.report_kill(&batsim_id, clock, EndReason::Evicted)?;
                        self.killing.remove(&batsim_id);
                    } else {
                        // The engine learns the kill's outcome from Batsim.
                        kills.push(batsim_id.clone());
                    }
                }
                Decision::Start { id, procs } => {
                    if self.entries.get(&id).is_some_and(|e| e.needs_registration) {
                        self.register_resubmission(id, reply)?;
                    }
                    let alloc = self.alloc_string(&procs);
                    let entry = decided_entry(&mut self.entries, id, "started", Some(Tracked::Waiting))?;
                    entry.state = Tracked::Running;
                    entry.procs = Some(procs.clone());
                    entry.expected_end = entry.run_length.map(|length| self.clock + length);
                    if let Some(end) = entry.expected_end {
                        self.expected_ends.insert((end, id));
                    }
                    entry.start_order = self.starts;
                    self.starts += 1;
                    let batsim_id = entry.batsim_id.clone();
                    let waiting_for: HashSet<String> = self
                        .killing
                        .iter()
                        .filter(|(_, kill)| kill.procs.intersects(&procs))
                        .map(|(kill_id, _)| kill_id.clone())
                        .collect();
                    if waiting_for.is_empty() {
                        starts.push(Outgoing::ExecuteJob {
                            job_id: batsim_id,
                            alloc,
                        });
                    } else {
                        self.held.push(HeldStart {
                            batsim_id,
                            alloc,
                            waiting_for,
                        });
                    }
                }
                Decision::Reject { id, .. } => {
                    let entry = decided_entry(&mut self.entries, id, "rejected", None)?;
                    entry.state = Tracked::Done;
                    // A re-queued evicted job has no live Batsim job to reject.
                    if !entry.needs_registration {
                        starts.push(Outgoing::RejectJob {
                            job_id: entry.batsim_id.clone(),
                        });
                    }
                    entry.needs_registration = false;
                }
            }
        }
        if !kills.is_empty() {
            reply.push(Outgoing::KillJob { job_ids: kills });
        }
        reply.extend(starts);
        Ok(())
    }
}
