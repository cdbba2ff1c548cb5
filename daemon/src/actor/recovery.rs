//! Restart recovery: the jobs SQLite says were queued or running when the
//! daemon last stopped. Live processes (same pid and start time) are
//! adopted, processes that ended meanwhile get their recorded outcome, gone
//! ones are lost and resubmitted within the engine's lifecycle limits, and
//! queued ones are queued again.

use super::admission::positive_seconds;
use super::cloud_job::{engine_job, CloudJob, PendingEnd, Phase};
use super::seconds::secs;
use super::state::Actor;
use super::supervisor::recorded_outcome;
use crate::exec;
use crate::store::{StoreError, StoredJob};
use interstice_core::{violates, Decision, EndReason, Time};
use std::collections::{BTreeMap, HashMap};

/// A process found alive at restart: its pid, start ticks and start time.
type Adopted = (u32, u64, Time);

/// A stored job's times as the engine counts them: its first arrival, its
/// start (if it ran), its whole walltime and its SLO's deadline.
struct StoredTimes {
    submitted_at: Time,
    started_at: Option<Time>,
    full_walltime: Time,
    deadline: Time,
}

impl StoredTimes {
    /// The times of `view` (a bad walltime or SLO in the row counts as 1 s).
    fn of(view: &interstice_api::wire::JobView) -> StoredTimes {
        let submitted_at = Time::from_secs_f64(view.submitted_at);
        let full_walltime = positive_seconds("walltime", view.walltime).unwrap_or(Time::from_secs(1));
        let slo = positive_seconds("slo", view.slo).unwrap_or(Time::from_secs(1));
        let deadline = engine_job(view.id, view.procs, full_walltime, submitted_at, Some(slo))
            .deadline()
            .expect("the job has an SLO");
        StoredTimes {
            submitted_at,
            started_at: view.started_at.map(Time::from_secs_f64),
            full_walltime,
            deadline,
        }
    }
}

impl Actor {
    /// Put the jobs of the last run back in the engine and under supervision.
    pub(super) fn recover(&mut self) -> Result<(), StoreError> {
        let stored = self.store.jobs(true, u32::MAX)?;
        if stored.is_empty() {
            self.executor.remove_stale_work_dirs(|_| false);
            return Ok(());
        }
        let now = self.now();
        let mut adopted: HashMap<u64, Adopted> = HashMap::new();
        // Adopted jobs first, so they get their processors back before anything queued.
        let mut ordered: Vec<StoredJob> = stored;
        ordered.sort_by_key(|job| (job.view.state != "running", job.view.id));
        for stored in ordered {
            let times = StoredTimes::of(&stored.view);
            let walltime = if stored.view.state == "running" {
                match self.running_at_restart(&stored, &times, now, &mut adopted) {
                    Some(walltime) => walltime,
                    None => continue,
                }
            } else {
                times.full_walltime
            };
            self.queue_again(&stored, &times, walltime, now);
        }
        let decisions = self.pass(now);
        let rest = self.adopt(decisions, &mut adopted, now);
        self.stop_unplaced(adopted, now);
        self.apply(rest, now, None);
        self.last_schedule = now;
        self.executor
            .remove_stale_work_dirs(|id| self.jobs.contains_key(&id));
        Ok(())
    }

    /// A job that was running when the daemon stopped: adopted when its
    /// process is alive (same pid and start ticks), its recorded outcome
    /// when it ended meanwhile, else lost (resubmitted within the engine's
    /// lifecycle limits). The walltime to plan it with (what is left of an
    /// adopted one's, the whole of a resubmitted one's); `None` when it is
    /// over.
    fn running_at_restart(
        &mut self,
        stored: &StoredJob,
        times: &StoredTimes,
        now: Time,
        adopted: &mut HashMap<u64, Adopted>,
    ) -> Option<Time> {
        let view = &stored.view;
        let id = view.id;
        if let (Some(pid), Some(ticks)) = (view.pid, stored.pid_start_ticks) {
            if exec::same_process_alive(pid, ticks) {
                let start = times.started_at.unwrap_or(now);
                adopted.insert(id, (pid, ticks, start));
                return Some((start + times.full_walltime - now).max(Time::from_secs(1)));
            }
        }
        // Its wrapper is gone: so is anything it left behind in its cgroup
        // (its pid may be another process's now).
        self.executor.release_cgroup(id);
        if let Some(end) = self.executor.ended_while_away(id) {
            // It ended while the daemon was down: its real outcome, never a
            // second run.
            let (state, why) = recorded_outcome(&end);
            tracing::info!(job = id, state, "ended while the daemon was down: {why}");
            // It ran to its end, as a job the daemon saw end does.
            let ended = Time::from_secs_f64(end.ended_at);
            self.store_end(PendingEnd {
                id,
                time: end.ended_at,
                state: state.to_string(),
                exit_code: end.code,
                evicted: false,
                why: format!("{why} while the daemon was down"),
                slo_violated: Some(violates(times.deadline, Some((ended, EndReason::Completed)))),
            });
            return None;
        }
        self.metrics.lost_runs.inc();
        if let Some(start) = times.started_at {
            self.metrics
                .lost_work_processor_seconds
                .inc_by(view.procs as f64 * secs(now - start));
        }
        let lifecycle = self.driver.engine().config().lifecycle;
        if !lifecycle.allows_resubmission(stored.resubmissions, now - times.submitted_at) {
            let _ = self.store.job_ended(
                id,
                secs(now),
                "lost",
                None,
                false,
                "process gone after a daemon restart; no resubmission left",
                None,
            );
            return None;
        }
        let _ = self
            .store
            .job_requeued(id, secs(now), false, "process gone after a daemon restart");
        Some(times.full_walltime)
    }

    /// Submit a recovered job to the engine again (arriving now, planned
    /// with `walltime`) and put it under supervision, queued; a job the
    /// engine refuses fails.
    fn queue_again(&mut self, stored: &StoredJob, times: &StoredTimes, walltime: Time, now: Time) {
        let view = &stored.view;
        let id = view.id;
        // No SLO in the engine: an accepted job must not be rejected on
        // recovery. Its SLO is still judged from its first arrival.
        let job = engine_job(id, view.procs, walltime, now, None);
        // Without an owner: a recovered job does not count against its
        // user's share of the regulator again.
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
            return;
        }
        // Its class, as the config names them now (a class since removed: none).
        match self.metrics.class_index(view.class.as_deref()) {
            Ok(Some(class)) => {
                self.job_classes.insert(id, class);
            }
            Ok(None) => {}
            Err(err) => tracing::warn!(job = id, "recovered job in no class: {err}"),
        }
        let job = self.recovered_job(stored, times);
        self.jobs.insert(id, job);
    }

    /// The supervisor's record of a recovered job, queued.
    fn recovered_job(&self, stored: &StoredJob, times: &StoredTimes) -> CloudJob {
        let view = &stored.view;
        let env: BTreeMap<String, String> = stored
            .env_json
            .as_deref()
            .and_then(|json| serde_json::from_str(json).ok())
            .unwrap_or_default();
        CloudJob {
            owner_uid: view.owner_uid,
            // A row from before run_uid was recorded runs as root's jobs do
            // (execution.user), never as the daemon.
            run_as: stored.run_as.clone().or_else(|| {
                crate::identity::run_as(0, &self.reloadable.execution)
                    .ok()
                    .flatten()
            }),
            procs: view.procs,
            walltime: times.full_walltime,
            submitted: times.submitted_at,
            deadline: times.deadline,
            argv: view.argv.clone(),
            env,
            workdir: stored.workdir.clone(),
            predicts_violation: stored.predicts_violation,
            verdicts: stored.verdicts,
            engine_procs: None,
            phase: Phase::Queued,
            slo_violated: None,
            memory_mb: stored.memory_mb,
        }
    }

    /// Adopted processes the plan has no room for any more: stop them, run
    /// them again later.
    fn stop_unplaced(&mut self, adopted: HashMap<u64, Adopted>, now: Time) {
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
