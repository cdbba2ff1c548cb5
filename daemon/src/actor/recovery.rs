//! Restart recovery: the jobs SQLite says were queued or running when the
//! daemon last stopped. Live processes (same pid and start time) are
//! adopted, processes that ended meanwhile get their recorded outcome, gone
//! ones are lost and resubmitted within the engine's lifecycle limits, and
//! queued ones are queued again.

use super::admission::positive_seconds;
use super::supervisor::{engine_job, recorded_outcome, CloudJob, Phase};
use super::{secs, Actor};
use crate::exec;
use crate::store::{StoreError, StoredJob};
use interstice_core::{violates, Decision, EndReason, Time};
use std::collections::{BTreeMap, HashMap};

/// A process found alive at restart: its pid, start ticks and start time.
type Adopted = (u32, u64, Time);

impl Actor {
    /// Put the jobs of the last run back in the engine and under supervision.
    pub(super) fn recover(&mut self) -> Result<(), StoreError> {
        let stored = self.store.jobs(true, u32::MAX)?;
        if stored.is_empty() {
            return Ok(());
        }
        let now = self.now();
        let lifecycle = self.driver.engine().config().lifecycle;
        let mut adopted: HashMap<u64, Adopted> = HashMap::new();
        // Adopted jobs first, so they get their processors back before anything queued.
        let mut ordered: Vec<StoredJob> = stored;
        ordered.sort_by_key(|job| (job.view.state != "running", job.view.id));
        for stored in ordered {
            let view = &stored.view;
            let id = view.id;
            let submitted_at = Time::from_secs_f64(view.submitted_at);
            let started_at = view.started_at.map(Time::from_secs_f64);
            let full_walltime = positive_seconds("walltime", view.walltime).unwrap_or(Time::from_secs(1));
            let mut walltime = full_walltime;
            let slo = positive_seconds("slo", view.slo).unwrap_or(Time::from_secs(1));
            let deadline = engine_job(id, view.procs, full_walltime, submitted_at, Some(slo))
                .deadline()
                .expect("the job has an SLO");
            let alive = match (view.state.as_str(), view.pid, stored.pid_start_ticks) {
                ("running", Some(pid), Some(ticks)) if exec::same_process_alive(pid, ticks) => {
                    Some((pid, ticks))
                }
                _ => None,
            };
            if view.state == "running" {
                if let Some((pid, ticks)) = alive {
                    let start = started_at.unwrap_or(now);
                    walltime = (start + walltime - now).max(Time::from_secs(1));
                    adopted.insert(id, (pid, ticks, start));
                } else if let Some(end) = {
                    // Its wrapper is gone: so is anything it left behind
                    // in its cgroup (its pid may be another process's now).
                    self.executor.release_cgroup(id);
                    self.executor.ended_while_away(id)
                } {
                    // It ended while the daemon was down: its real outcome,
                    // never a second run.
                    let (state, why) = recorded_outcome(&end);
                    tracing::info!(job = id, state, "ended while the daemon was down: {why}");
                    // It ran to its end, as a job the daemon saw end does.
                    let ended = Time::from_secs_f64(end.ended_at);
                    let _ = self.store.job_ended(
                        id,
                        end.ended_at,
                        state,
                        end.code,
                        false,
                        &format!("{why} while the daemon was down"),
                        Some(violates(deadline, Some((ended, EndReason::Completed)))),
                    );
                    continue;
                } else {
                    self.metrics.lost_runs.inc();
                    if let Some(start) = started_at {
                        self.metrics
                            .lost_work_processor_seconds
                            .inc_by(view.procs as f64 * secs(now - start));
                    }
                    if !lifecycle.allows_resubmission(stored.resubmissions, now - submitted_at) {
                        let _ = self.store.job_ended(
                            id,
                            secs(now),
                            "lost",
                            None,
                            false,
                            "process gone after a daemon restart; no resubmission left",
                            None,
                        );
                        continue;
                    }
                    let _ =
                        self.store
                            .job_requeued(id, secs(now), false, "process gone after a daemon restart");
                }
            }
            let env: BTreeMap<String, String> = stored
                .env_json
                .as_deref()
                .and_then(|json| serde_json::from_str(json).ok())
                .unwrap_or_default();
            // No SLO in the engine: an accepted job must not be rejected on
            // recovery. Its SLO is still judged from its first arrival.
            let job = engine_job(id, view.procs, walltime, now, None);
            if let Err(err) = self.driver.submit(job) {
                let _ = self.store.job_ended(
                    id,
                    secs(now),
                    "failed",
                    None,
                    false,
                    &format!("cannot be planned after restart: {err}"),
                    None,
                );
                continue;
            }
            // Its class, as the config names them now (a class since removed: none).
            match self.metrics.class_index(view.class.as_deref()) {
                Ok(Some(class)) => {
                    self.job_classes.insert(id, class);
                }
                Ok(None) => {}
                Err(err) => tracing::warn!(job = id, "recovered job in no class: {err}"),
            }
            self.jobs.insert(
                id,
                CloudJob {
                    owner_uid: view.owner_uid,
                    // A row from before run_uid was recorded runs as
                    // root's jobs do (execution.user), never as the daemon.
                    run_as: stored.run_as.clone().or_else(|| {
                        crate::identity::run_as(0, &self.reloadable.execution)
                            .ok()
                            .flatten()
                    }),
                    procs: view.procs,
                    walltime: full_walltime,
                    submitted: submitted_at,
                    deadline,
                    argv: view.argv.clone(),
                    env,
                    workdir: stored.workdir.clone(),
                    predicts_violation: stored.predicts_violation,
                    verdicts: stored.verdicts,
                    engine_procs: None,
                    phase: Phase::Queued,
                    slo_violated: None,
                },
            );
        }
        let decisions = self.pass(now);
        let rest = self.adopt(decisions, &mut adopted, now);
        // Adopted processes the plan has no room for any more: stop them, run them again later.
        for (id, (pid, _, _)) in adopted {
            self.executor.kill(id, pid);
            self.executor.release(id, pid);
            let _ = self.store.job_requeued(
                id,
                secs(now),
                false,
                "no room in the plan after restart; restarted later",
            );
        }
        self.apply(rest, now, None);
        self.last_schedule = now;
        Ok(())
    }

    /// Take the engine's starts of adopted jobs as their running processes;
    /// returns the other decisions, and leaves in `adopted` the processes
    /// the engine did not start.
    fn adopt(
        &mut self,
        decisions: Vec<Decision>,
        adopted: &mut HashMap<u64, Adopted>,
        now: Time,
    ) -> Vec<Decision> {
        let mut rest = Vec::new();
        for decision in decisions {
            match decision {
                Decision::Start { id, procs } if adopted.contains_key(&id.0) => {
                    let (pid, ticks, started_at) = adopted.remove(&id.0).expect("checked");
                    if let Some(job) = self.jobs.get_mut(&id.0) {
                        job.engine_procs = Some(procs);
                        job.phase = Phase::Running {
                            pid,
                            child: None,
                            start_ticks: Some(ticks),
                            started_at,
                            kill: None,
                        };
                    }
                    let _ = self.store.event(
                        secs(now),
                        Some(id.0),
                        "adopted",
                        &format!("pid {pid} still running"),
                    );
                    tracing::info!(job = id.0, pid, "adopted running job");
                }
                other => rest.push(other),
            }
        }
        rest
    }
}
