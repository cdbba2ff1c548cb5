//! The process supervisor: the admitted cloud jobs and their processes. It
//! starts a job when the engine says so (unless the node gate holds it),
//! stops it on eviction, cancel or walltime (SIGTERM, then SIGKILL after the
//! grace period), reaps it, tells the engine how it ended and writes its
//! final state. Processes themselves are `crate::exec`'s.

use super::cloud_job::{CloudJob, Kill, KillReason, PendingEnd, Phase};
use super::seconds::secs;
use super::state::Actor;
use crate::classes::Served;
use crate::exec::{self, Executor, Launch, RecordedEnd};
use crate::node;
use crate::store::RunLimits;
use interstice_core::{violates, EndReason, JobId, JobRecord, JobState, ProcSet, Time};
use nix::sys::signal::Signal;

/// Send SIGTERM to every process of job `id` (its cgroup and its process
/// group) and set when SIGKILL follows.
fn terminate(
    executor: &Executor,
    id: u64,
    pid: u32,
    kill: &mut Option<Kill>,
    reason: KillReason,
    now: Time,
    grace: Time,
) {
    executor.signal(id, pid, Signal::SIGTERM);
    *kill = Some(Kill {
        reason,
        sigkill_at: now + grace,
        sigkill_sent: false,
    });
}

impl Actor {
    fn grace(&self) -> Time {
        Time::from_secs_f64(self.executor.grace_seconds())
    }

    /// Start stopping running job `id` for `reason`, unless a stop is already under way.
    pub(super) fn stop(&mut self, id: u64, reason: KillReason, now: Time) {
        let grace = self.grace();
        if let Some(CloudJob {
            phase: Phase::Running { pid, kill, .. },
            ..
        }) = self.jobs.get_mut(&id)
        {
            if kill.is_none() {
                terminate(&self.executor, id, *pid, kill, reason, now, grace);
            }
        }
    }

    /// The engine started job `id` on `procs`: spawn its process, or hold
    /// it while the node is busier than the plan believes.
    pub(super) fn start_cloud(&mut self, id: u64, procs: ProcSet, now: Time) {
        if let Some(job) = self.jobs.get_mut(&id) {
            if matches!(job.phase, Phase::HandingOver { .. }) {
                // Its fate is the broker's: keep the processors, start nothing yet.
                job.engine_procs = Some(procs);
                return;
            }
        }
        let hold = self.monitor.last().and_then(|sample| {
            let job = &self.jobs[&id];
            node::hold_reason(
                &sample,
                &self.reloadable.node,
                self.planned_local_cpus(),
                job.procs,
            )
        });
        let job = self.jobs.get_mut(&id).expect("caller checked");
        job.engine_procs = Some(procs);
        if let Some(reason) = hold {
            if !matches!(job.phase, Phase::Held) {
                self.metrics.starts_deferred.inc();
                let _ = self.store.event(secs(now), Some(id), "held", &reason);
                tracing::info!(job = id, "start held: {reason}");
            }
            job.phase = Phase::Held;
            return;
        }
        // Who may run is asked again at every start: a user denied
        // (`execution.deny_users`, a SIGHUP) or removed since the submission
        // does not run, nor does a uid reassigned to someone else. A job of
        // no recorded owner (a row from before owners were required) is
        // checked as root's, so it never runs as anyone root's jobs would not.
        let owner = job.owner_uid.unwrap_or(0);
        let current = crate::identity::run_as(owner, &self.reloadable.execution);
        if current.as_ref().ok() != Some(&job.run_as) {
            let why = match current {
                Err(refused) => format!("not started: {refused}"),
                Ok(_) => "not started: the submitter's identity changed since the submission".to_string(),
            };
            tracing::warn!(job = id, "{why}");
            let _ = self.driver.job_ended(JobId(id), now, EndReason::Killed);
            self.finish(id, now, "failed", None, false, &why);
            return;
        }
        let job = self.jobs.get_mut(&id).expect("caller checked");
        // Its CPUs are those of the processors the engine gave this start
        // (after an eviction, its new ones), written anew at each start.
        let limits = self
            .executor
            .limits_for(job.procs, job.engine_procs.as_ref(), job.memory_mb);
        let launch = Launch {
            id,
            argv: &job.argv,
            env: &job.env,
            workdir: job.workdir.as_deref(),
            run_as: job.run_as.as_ref(),
            limits: &limits,
        };
        match self.executor.spawn(&launch) {
            Ok(child) => {
                let pid = child.id();
                let start_ticks = exec::process_start_ticks(pid);
                job.phase = Phase::Running {
                    pid,
                    child: Some(child),
                    start_ticks,
                    started_at: now,
                    kill: None,
                };
                let cpus = (!limits.cpus.is_empty()).then(|| crate::cgroup::cpu_list(&limits.cpus));
                let run_limits = RunLimits {
                    cpus: cpus.as_deref(),
                    memory_bytes: limits.memory_bytes,
                    pids: limits.pids,
                };
                if let Err(err) = self
                    .store
                    .job_started(id, secs(now), pid, start_ticks, &run_limits)
                {
                    tracing::error!(job = id, "cannot record start: {err}");
                }
                tracing::info!(job = id, pid, cpus = cpus.as_deref().unwrap_or("-"), procs = ?job.engine_procs, "started");
            }
            Err(err) => {
                tracing::warn!("{err}");
                let _ = self.driver.job_ended(JobId(id), now, EndReason::Killed);
                self.finish(id, now, "failed", None, false, &err.to_string());
            }
        }
    }

    /// Try again to start the jobs the node gate held back.
    pub(super) fn retry_held(&mut self, now: Time) {
        let held: Vec<(u64, ProcSet)> = self
            .jobs
            .iter()
            .filter(|(_, job)| matches!(job.phase, Phase::Held))
            .filter_map(|(id, job)| job.engine_procs.clone().map(|procs| (*id, procs)))
            .collect();
        for (id, procs) in held {
            self.start_cloud(id, procs, now);
        }
    }

    /// CPUs the plan gives the cloud jobs whose processes run.
    fn planned_local_cpus(&self) -> f64 {
        self.jobs
            .values()
            .filter(|job| matches!(job.phase, Phase::Running { .. }))
            // From +0.0: an empty float sum is -0.0, which logs as "-0.0".
            .fold(0.0, |cpus, job| cpus + job.procs as f64)
    }

    /// Start evicting a job; false if it is not running or already being evicted.
    pub(super) fn evict(&mut self, id: u64, now: Time) -> bool {
        let grace = self.grace();
        let Some(job) = self.jobs.get_mut(&id) else {
            return false;
        };
        match &mut job.phase {
            Phase::Queued => return false,
            Phase::HandingOver { .. } => {
                // The engine started it while the broker decides: give its
                // processors back; the engine's lifecycle decides again.
                if job.engine_procs.take().is_some() {
                    let _ = self.driver.job_ended(JobId(id), now, EndReason::Evicted);
                    self.dirty = true;
                }
                return false;
            }
            Phase::Held => {
                self.metrics.evictions.inc();
                let _ = self.driver.job_ended(JobId(id), now, EndReason::Evicted);
                self.after_eviction(id, now, "evicted before it started (node was busy)");
            }
            Phase::Running {
                pid,
                kill,
                started_at,
                ..
            } => {
                if kill.as_ref().is_some_and(|kill| kill.reason == KillReason::Evict) {
                    return false;
                }
                terminate(&self.executor, id, *pid, kill, KillReason::Evict, now, grace);
                self.metrics.evictions.inc();
                self.metrics
                    .lost_work_processor_seconds
                    .inc_by(job.procs as f64 * secs(now - *started_at));
                let _ = self
                    .store
                    .event(secs(now), Some(id), "evicting", "HPC work needs its processors");
                tracing::info!(job = id, "evicting");
            }
        }
        self.dirty = true;
        true
    }

    /// The engine was told about an eviction: requeued or ended, per its
    /// lifecycle, or handed to the data center's broker (`member`).
    fn after_eviction(&mut self, id: u64, now: Time, why: &str) {
        if self.hand_over(id, now, why) {
            self.dirty = true;
            return;
        }
        match self.driver.engine().job_state(JobId(id)) {
            Some(JobState::Queued { .. }) => {
                if let Some(job) = self.jobs.get_mut(&id) {
                    job.phase = Phase::Queued;
                    job.engine_procs = None;
                }
                if let Err(err) = self.store.job_requeued(id, secs(now), true, why) {
                    tracing::error!(job = id, "cannot record requeue: {err}");
                }
            }
            _ => self.end_evicted(id, now, true, &format!("{why}; no resubmission left")),
        }
        self.dirty = true;
    }

    /// Count a cloud job's final record in its class, if it has one. A job
    /// cancelled by its user or an administrator (`Killed`, or no run at
    /// all) is not the service's doing and is counted nowhere.
    pub(super) fn count_in_class(&mut self, record: &JobRecord, now: Time) {
        let Some(class) = self.job_classes.remove(&record.job.id.0) else {
            return;
        };
        let reason = match record.end_reason {
            None | Some(EndReason::Killed) => return,
            Some(reason) => reason,
        };
        let procs = record.job.procs.max(1);
        let discarded = Time::from_ticks(record.lost_work.ticks() / i64::from(procs));
        self.metrics.class_served(&Served::of(
            class,
            procs,
            record.job.submit,
            (record.start, record.end.unwrap_or(now)),
            discarded,
            reason,
        ));
    }

    /// Count the SLO verdict (core's rule, [`violates`]) and the prediction
    /// outcome of a job whose last run ended at `now` for `reason`.
    pub(super) fn outcome(&mut self, id: u64, now: Time, reason: EndReason) {
        let Some(job) = self.jobs.get_mut(&id) else { return };
        let violated = violates(job.deadline, Some((now, reason)));
        job.slo_violated = Some(violated);
        self.metrics.slo_verdict(violated);
        self.metrics.prediction_outcome(job.predicts_violation, violated);
        if let Some(verdicts) = job.verdicts {
            let hit = self.driver.engine().hit_by_later_hpc(JobId(id));
            self.metrics.predictor_outcomes(verdicts, violated, hit);
        }
    }

    /// End job `id` evicted for good (no resubmission here or elsewhere):
    /// its SLO verdict for an eviction at `now`, then its final state
    /// `evicted` with `why`. `count_eviction` adds one to the job's stored
    /// evictions (the eviction that ends it was not counted yet).
    pub(super) fn end_evicted(&mut self, id: u64, now: Time, count_eviction: bool, why: &str) {
        self.outcome(id, now, EndReason::Evicted);
        self.finish(id, now, "evicted", None, count_eviction, why);
    }

    /// Final state: write it (with the SLO verdict `outcome` counted, if
    /// any) and forget the job.
    pub(super) fn finish(
        &mut self,
        id: u64,
        now: Time,
        state: &str,
        exit_code: Option<i32>,
        evicted: bool,
        why: &str,
    ) {
        let job = self.jobs.remove(&id);
        // Its own working directory goes with it (a `workdir` is the user's).
        if job.as_ref().is_some_and(|job| job.workdir.is_none()) {
            self.executor.remove_work_dir(id);
        }
        let slo_violated = job.and_then(|job| job.slo_violated);
        self.store_end(PendingEnd {
            id,
            time: secs(now),
            state: state.to_string(),
            exit_code,
            evicted,
            why: why.to_string(),
            slo_violated,
        });
        self.dirty = true;
    }

    /// Walltimes and SIGKILL deadlines due at `now`.
    pub(super) fn enforce(&mut self, now: Time) {
        let grace = self.grace();
        for (id, job) in self.jobs.iter_mut() {
            if let Phase::Running {
                pid,
                started_at,
                kill,
                ..
            } = &mut job.phase
            {
                match kill {
                    None if now >= *started_at + job.walltime => {
                        terminate(&self.executor, *id, *pid, kill, KillReason::Walltime, now, grace);
                        tracing::info!(job = id, "walltime reached");
                    }
                    Some(kill) if !kill.sigkill_sent && now >= kill.sigkill_at => {
                        self.executor.kill(*id, *pid);
                        kill.sigkill_sent = true;
                    }
                    _ => {}
                }
            }
        }
    }

    /// Collect exited processes and turn them into engine events.
    pub(super) fn reap(&mut self, now: Time) {
        let mut exited = Vec::new();
        for (id, job) in self.jobs.iter_mut() {
            if let Phase::Running {
                pid,
                child,
                start_ticks,
                kill,
                ..
            } = &mut job.phase
            {
                let status = match child {
                    Some(child) => match child.try_wait() {
                        Ok(Some(status)) => Some(status.code()),
                        Ok(None) => None,
                        Err(_) => Some(None),
                    },
                    None => match start_ticks {
                        Some(ticks) if exec::same_process_alive(*pid, *ticks) => None,
                        _ => Some(None),
                    },
                };
                if let Some(code) = status {
                    exited.push((
                        *id,
                        *pid,
                        code,
                        kill.as_ref().map(|kill| kill.reason),
                        child.is_none(),
                    ));
                }
            }
        }
        for (id, pid, code, reason, adopted) in exited {
            // Read before its cgroups go: did the kernel kill it at its memory limit?
            let oom = self.executor.oom_killed(id);
            // The wrapper is gone: the job is over, and whatever is left of
            // it (a descendant that left its process group too) is killed.
            self.executor.release(id, pid);
            if oom && reason.is_none() && code != Some(0) {
                self.killed_for_memory(id, now, code);
            } else {
                self.process_exited(id, now, code, reason, adopted);
            }
        }
    }

    /// Job `id` failed after the kernel's OOM killer killed (some of) it at
    /// its memory limit: `failed`, for `memory`.
    fn killed_for_memory(&mut self, id: u64, now: Time, code: Option<i32>) {
        if let Err(err) = self.driver.job_ended(JobId(id), now, EndReason::Completed) {
            tracing::warn!(job = id, "engine: {err}");
        }
        self.outcome(id, now, EndReason::Completed);
        self.metrics.jobs_killed_memory.inc();
        tracing::warn!(job = id, "killed by the kernel at its memory limit");
        let why = "memory: killed by the kernel's OOM killer at the job's memory limit \
                   (ask for more with memory_mb, up to execution.limits.max_memory_mb)";
        self.finish(id, now, "failed", code, false, why);
    }

    /// Job `id`'s process is gone: tell the engine and record how it ended.
    fn process_exited(
        &mut self,
        id: u64,
        now: Time,
        code: Option<i32>,
        reason: Option<KillReason>,
        adopted: bool,
    ) {
        let engine_reason = reason.map_or(EndReason::Completed, KillReason::end_reason);
        if let Err(err) = self.driver.job_ended(JobId(id), now, engine_reason) {
            tracing::warn!(job = id, "engine: {err}");
        }
        match reason {
            Some(KillReason::Evict) => self.after_eviction(id, now, "evicted for HPC work"),
            Some(KillReason::Cancel) => {
                self.finish(id, now, "cancelled", code, false, "cancelled by its owner")
            }
            Some(KillReason::Walltime) => {
                self.outcome(id, now, EndReason::WalltimeReached);
                self.finish(id, now, "timeout", code, false, "killed at its walltime");
            }
            None => {
                self.outcome(id, now, EndReason::Completed);
                let (state, why) = match code {
                    Some(code) => exit_outcome(code),
                    None if adopted => match self.executor.ended_while_away(id) {
                        Some(end) => {
                            let (state, why) = recorded_outcome(&end);
                            self.finish(id, now, state, end.code, false, &why);
                            return;
                        }
                        None => (
                            "failed",
                            "adopted process gone without a recorded status".to_string(),
                        ),
                    },
                    None => ("failed", "killed by a signal".to_string()),
                };
                self.finish(id, now, state, code, false, &why);
            }
        }
    }

    /// Jobs whose process runs. A job the node gate holds back is not one
    /// of them: its process has not started, and `jobs` says "queued".
    pub(super) fn count_running(&self) -> usize {
        self.jobs
            .values()
            .filter(|job| matches!(job.phase, Phase::Running { .. }))
            .count()
    }

    /// Jobs waiting for their process to start (queued in the plan, or held
    /// back by the node gate).
    pub(super) fn count_queued(&self) -> usize {
        self.jobs
            .values()
            .filter(|job| matches!(job.phase, Phase::Queued | Phase::Held | Phase::HandingOver { .. }))
            .count()
    }
}

/// The state and reason of a job from its wrapper's record.
pub(super) fn recorded_outcome(end: &RecordedEnd) -> (&'static str, String) {
    if let Some(state) = end.state {
        return (
            state,
            format!("{state}, as the daemon saw it while the state could not be written"),
        );
    }
    match (end.code, end.signal) {
        (Some(code), _) => exit_outcome(code),
        (None, Some(signal)) => ("failed", format!("killed by signal {signal}")),
        (None, None) => ("failed", "ended without a status".to_string()),
    }
}

/// The state and reason of a job that exited with `code`.
fn exit_outcome(code: i32) -> (&'static str, String) {
    match code {
        0 => ("completed", "exited with status 0".to_string()),
        code => ("failed", format!("exited with status {code}")),
    }
}
