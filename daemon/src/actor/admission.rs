//! Answers to clients: submit (admit or reject with a counter-offer, and
//! queue), predict, cancel, and the read-only views (slots, jobs). The
//! admission verdict is the engine's (`Engine::submit`, `Admission::rejects`);
//! this module checks the request's shape, records the answer in SQLite
//! before sending it, and counts it.

use super::cloud_job::{engine_job, CloudJob, KillReason, Phase};
use super::command::{ApiError, ErrorKind, Owner};
use super::job_pages::{JobsPage, PageBuilder};
use super::seconds::{finite_secs, secs};
use super::state::Actor;
use crate::config::OnBehalfOf;
use crate::exec::Denied;
use crate::store::NewJob;
use interstice_api::wire::{
    decision_name, JobList, JobView, NearestRequest, PredictRequest, PredictResponse, PredictorVerdicts,
    RefusalView, SlotsResponse, SubmitRequest, SubmitResponse,
};
use interstice_core::{EndReason, EngineError, JobId, Prediction, Predictor, Refusal, Time};
use std::collections::BTreeMap;

impl Actor {
    /// `POST /v1/jobs`: the engine's verdict on the job, written to SQLite
    /// before it is returned; an admitted job is queued for the supervisor.
    pub(super) fn submit(
        &mut self,
        request: SubmitRequest,
        owner: Owner,
    ) -> Result<SubmitResponse, ApiError> {
        let (caller, owner, run_as) = self.submitter(&request, owner)?;
        let now = self.now();
        self.ready(now)?;
        let (walltime, slo) = self.check_shape(request.procs, request.walltime, request.slo, true)?;
        let class = self.class_of(request.class.as_deref())?;
        self.check_backoff(caller, now)?;
        let env = request.env.clone().unwrap_or_default();
        let program = check_argv(&request.argv)?;
        check_env(&env)?;
        check_size(&request, self.quota.max_job_text_bytes)?;
        self.check_active(caller)?;
        check_memory(request.memory_mb, self.executor.memory_ceiling_mb())?;
        self.check_paths(&request, &env, program, run_as.as_ref(), caller, now)?;
        let now = self.now();
        let id = self.next_job_id;
        self.next_job_id += 1;
        let job = engine_job(id, request.procs, walltime, now, Some(slo));
        let deadline = job.deadline().expect("the job has an SLO");
        // Submitting brings the plan up to date: HPC work may start (and evict) now.
        self.rank_victims(now);
        // Its work counts against its user's share of the regulator.
        let verdict = self.driver.submit_as(job, caller).map_err(engine_error)?;
        let rejected = verdict.is_rejected();
        let refusal = self.driver.engine().refusal_of(JobId(id)).cloned();
        let verdicts = predictor_verdicts(self.driver.engine(), id);
        // A cloud job always gets its admission prediction with the verdict.
        let Some(prediction) = verdict.into_prediction() else {
            return Err(ApiError::internal(
                "the engine gave a cloud job no admission prediction",
            ));
        };
        let decisions = self.pass(now);
        let decision = decision_name(rejected);
        let counter_offer = if rejected {
            prediction.counter_offer_slo
        } else {
            None
        };
        let (argv_json, env_json, features_json) = stored_json(&request)?;
        let row = NewJob {
            id,
            owner_uid: owner.uid,
            owner_pid: owner.pid,
            run_as: run_as.as_ref(),
            procs: request.procs,
            walltime: request.walltime,
            slo: request.slo,
            argv_json: &argv_json,
            env_json: env_json.as_deref(),
            workdir: request.workdir.as_deref(),
            class: request.class.as_deref(),
            submitted_at: secs(now),
            decision,
            predicted_start: finite_secs(prediction.start),
            predicted_completion: finite_secs(prediction.completion),
            violation_seconds: prediction.violation_seconds,
            predicts_violation: prediction.predicts_violation,
            verdicts,
            violation_probability: Some(prediction.probability),
            counter_offer_slo: counter_offer.map(secs),
            state: if rejected { "rejected" } else { "queued" },
            features_json: features_json.as_deref(),
            memory_mb: request.memory_mb,
        };
        // Durable before the answer: if the row cannot be written, the job is withdrawn.
        if let Err(err) = self.store.insert_job(&row) {
            if !rejected {
                let _ = self.driver.cancel(JobId(id), now);
            }
            self.dirty = true;
            self.apply(decisions, now, Some(id));
            // The state cannot be written at all: answer as every admission
            // after this one will, until a write succeeds again.
            self.ready(now)?;
            return Err(ApiError::internal(format!("cannot record the job: {err}")));
        }
        self.count_admission(prediction.probability, refusal.as_ref(), now);
        if rejected {
            self.keep_rejected_quota(owner.uid);
            if counter_offer.is_some() {
                self.metrics.counter_offers.inc();
            }
        } else {
            // The plan changed: a data center member publishes it at the next tick.
            self.tuple_stale = true;
            if let Some(class) = class {
                self.job_classes.insert(id, class);
            }
            self.jobs.insert(
                id,
                CloudJob {
                    owner_uid: owner.uid,
                    run_as,
                    procs: request.procs,
                    walltime,
                    submitted: now,
                    deadline,
                    argv: request.argv,
                    env,
                    workdir: request.workdir,
                    predicts_violation: prediction.predicts_violation,
                    verdicts,
                    engine_procs: None,
                    phase: Phase::Queued,
                    slo_violated: None,
                    memory_mb: request.memory_mb,
                },
            );
        }
        self.apply(decisions, now, Some(id));
        Ok(SubmitResponse {
            refusal: refusal.as_ref().map(refusal_view),
            ..submitted(id, rejected, &prediction, counter_offer)
        })
    }

    /// Who submits, and who the job runs as: the socket's peer, or for a
    /// broker (root) the user it submits for (`on_behalf_of`), if this
    /// member's `datacenter.on_behalf_of` allows it (never root nor a system
    /// user by default). Refused
    /// while shutting down, and over TCP (no peer credentials name anyone).
    fn submitter(
        &self,
        request: &SubmitRequest,
        owner: Owner,
    ) -> Result<(u32, Owner, Option<crate::identity::RunAs>), ApiError> {
        if self.stopping {
            return Err(ApiError::new(
                ErrorKind::Unavailable,
                "the daemon is shutting down; retry later",
            ));
        }
        let Some(caller) = owner.uid else {
            return Err(ApiError::new(
                ErrorKind::Forbidden,
                "submit over the Unix socket: jobs run as their submitter, whom only the socket's \
                 peer credentials name",
            ));
        };
        let caller = match (caller, request.on_behalf_of) {
            (_, None) => caller,
            (0, Some(uid)) => {
                let rule = self.member.as_ref().map(|link| &link.on_behalf_of);
                rule.unwrap_or(&OnBehalfOf::default())
                    .check(uid)
                    .map_err(|refused| ApiError::new(ErrorKind::Forbidden, refused))?;
                uid
            }
            (_, Some(_)) => {
                return Err(ApiError::new(
                    ErrorKind::Forbidden,
                    "on_behalf_of: only root (a data center's broker) may submit for another user",
                ))
            }
        };
        let run_as = crate::identity::run_as(caller, &self.reloadable.execution)
            .map_err(|refused| ApiError::new(ErrorKind::Forbidden, refused.0))?;
        let owner = Owner {
            uid: Some(caller),
            ..owner
        };
        Ok((caller, owner, run_as))
    }

    /// Refused while `caller` has `quota.max_active_per_user` accepted jobs
    /// queued or running here (429: one of them must end first).
    fn check_active(&self, caller: u32) -> Result<(), ApiError> {
        let Some(max) = self.quota.max_active_per_user else {
            return Ok(());
        };
        let active = self
            .jobs
            .values()
            .filter(|job| job.owner_uid == Some(caller))
            .count();
        if active >= max as usize {
            return Err(ApiError::new(
                ErrorKind::TooMany,
                format!(
                    "you have {active} accepted jobs queued or running here, the most one user may \
                     (quota.max_active_per_user = {max}): submit again when one of them ends"
                ),
            ));
        }
        Ok(())
    }

    /// Refused at once for a while after this user's last submission's
    /// paths were not checked in time (a file system that does not answer).
    fn check_backoff(&self, caller: u32, now: Time) -> Result<(), ApiError> {
        match self.check_backoff.get(&caller) {
            Some(&until) if now < until => Err(ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "your last submission's workdir or argv[0] was not checked within {} s (a file system \
                     that does not answer?); submissions are refused for {} s after that: retry later, \
                     with paths on a local file system",
                    crate::exec::ACCESS_CHECK_TIMEOUT.as_secs(),
                    CHECK_BACKOFF.as_secs_f64()
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The workdir is absolute, and it and `program` are reachable by the
    /// job's user (checked as that user: a client learns nothing about
    /// paths it could not see itself). A check that times out starts the
    /// user's backoff.
    fn check_paths(
        &mut self,
        request: &SubmitRequest,
        env: &BTreeMap<String, String>,
        program: &str,
        run_as: Option<&crate::identity::RunAs>,
        caller: u32,
        now: Time,
    ) -> Result<(), ApiError> {
        if let Some(dir) = &request.workdir {
            if !std::path::Path::new(dir).is_absolute() || dir.contains('\0') {
                return Err(ApiError::bad_request(format!(
                    "workdir: {dir:?} must be an absolute path"
                )));
            }
        }
        let path = env
            .get("PATH")
            .map(String::as_str)
            .unwrap_or(&self.reloadable.execution.path);
        let who = run_as.map_or_else(
            || "the daemon's user".to_string(),
            |run_as| format!("uid {}", run_as.uid),
        );
        match self
            .executor
            .check_access(run_as, request.workdir.as_deref(), program, path)
        {
            Ok(None) => Ok(()),
            Ok(Some(Denied::Workdir)) => Err(ApiError::bad_request(format!(
                "workdir: {:?} not found or not accessible to {who}",
                request.workdir.as_deref().unwrap_or_default()
            ))),
            Ok(Some(Denied::Program)) => Err(ApiError::bad_request(format!(
                "argv[0]: {program:?} not found or not executable by {who}{}",
                if program.contains('/') {
                    String::new()
                } else {
                    format!(" in PATH {path:?}")
                }
            ))),
            Ok(Some(Denied::Timeout)) => {
                // The check held the engine for its whole timeout: this
                // user's next ones are refused at once for a while.
                self.check_backoff.retain(|_, until| *until > now);
                self.check_backoff.insert(caller, now + CHECK_BACKOFF);
                Err(ApiError::bad_request(format!(
                    "workdir or argv[0]: not checked within {} s (a file system that does not answer?); \
                     use paths on a local file system",
                    crate::exec::ACCESS_CHECK_TIMEOUT.as_secs()
                )))
            }
            Err(err) => Err(ApiError::internal(err)),
        }
    }

    /// `POST /v1/predict`: what a submission would be answered now; with
    /// `admission: true` (a plugin deciding for its batch system) it is
    /// counted and recorded like an admission, and in Slurm mode an admitted
    /// job's slot is held until Slurm lists the job ([`super::holds`]).
    /// Only the batch system may ask that ([`super::batch`]): 403 for others.
    pub(super) fn predict(
        &mut self,
        request: PredictRequest,
        owner: Owner,
    ) -> Result<PredictResponse, ApiError> {
        if request.admission {
            self.batch.check(owner, "admission: true")?;
        }
        // A batch system's admission is for a job it runs on its own nodes;
        // anyone else asks about a job this daemon would run here.
        let runs_here = !request.admission;
        let (walltime, slo) = self.check_shape(request.procs, request.walltime, request.slo, runs_here)?;
        self.class_of(request.class.as_deref())?;
        let now = self.now();
        self.ready(now)?;
        let held = if request.admission && self.holds.enabled() {
            self.admit_held(request.procs, walltime, slo, now)?
        } else {
            None
        };
        let (prediction, refusal, hold, verdicts) = match held {
            Some((verdict, hold, verdicts, refusal)) => {
                let Some(prediction) = verdict.into_prediction() else {
                    return Err(ApiError::internal(
                        "the engine gave a cloud job no admission prediction",
                    ));
                };
                (prediction, refusal, hold, verdicts)
            }
            None => {
                let engine = self.driver.engine();
                let mut prediction = engine.predict(request.procs, walltime, Some(slo), now);
                // Asked as the caller, whose share of the regulator it would use.
                let refusal = engine.refusal(request.procs, walltime, Some(slo), &prediction, now, owner.uid);
                if let Some(refusal) = &refusal {
                    prediction.counter_offer_slo = refusal.counter_offer_slo(&prediction);
                }
                (prediction, refusal, None, None)
            }
        };
        let rejected = refusal.is_some();
        let answer = PredictResponse {
            hold,
            verdicts,
            refusal: refusal.as_ref().map(refusal_view),
            ..prediction_answer(&prediction, rejected)
        };
        if request.admission {
            self.count_admission(prediction.probability, refusal.as_ref(), now);
            if rejected && answer.counter_offer_slo.is_some() {
                self.metrics.counter_offers.inc();
            }
            self.store
                .admission(
                    secs(now),
                    request.procs,
                    request.walltime,
                    request.slo,
                    &answer.decision,
                    answer.predicted_start,
                    answer.predicted_completion,
                    answer.counter_offer_slo,
                )
                .map_err(ApiError::internal)?;
        }
        Ok(answer)
    }

    /// Count an admission decision made with violation `probability`
    /// (refused when `refusal` says why), and the regulator's rate after it.
    fn count_admission(&self, probability: f64, refusal: Option<&Refusal>, now: Time) {
        self.metrics.admission(refusal.is_some(), probability);
        if let Some(refusal) = refusal {
            self.metrics.refusal(refusal);
        }
        self.regulator_gauges(now);
    }

    /// The class a job names, or the default class; a name the daemon's
    /// classes lack is a 400 listing them.
    fn class_of(&self, name: Option<&str>) -> Result<Option<usize>, ApiError> {
        self.metrics
            .class_index(name)
            .map_err(|err| ApiError::bad_request(format!("class: {err}")))
    }

    /// `GET /v1/slots`: the idle holes of the plan at the actor's now (what a
    /// data center member publishes, [`crate::datacenter::slots_view`]).
    pub(super) fn slots(&mut self) -> SlotsResponse {
        let now = self.now();
        crate::datacenter::slots_view(now, &self.driver.engine().slots(now))
    }

    /// `GET /v1/jobs`: a page ([`super::job_pages`]) of the jobs SQLite
    /// knows that the caller may see ([`Owner::sees`]: root all, a user their
    /// own, read by owner so that nobody else's jobs are loaded), ended ones
    /// included; only the rows the page keeps are read.
    pub(super) fn job_list(&self, owner: Owner, page: JobsPage) -> Result<JobList, ApiError> {
        let mut builder = PageBuilder::new(page);
        let uid = match owner.uid {
            Some(0) => None,
            Some(uid) => Some(uid),
            None => return Ok(builder.finish()),
        };
        self.store
            .jobs_newest_first(uid, page.before, |job| {
                !owner.sees(job.view.owner_uid) || builder.offer(job.view)
            })
            .map_err(ApiError::internal)?;
        Ok(builder.finish())
    }

    /// `GET /v1/jobs/{id}/output`: the end of a job's `stdout` or `stderr`
    /// (another user's job answers 404, as if absent; no output yet is empty).
    pub(super) fn job_output(
        &self,
        id: u64,
        stream: &str,
        tail: u64,
        owner: Owner,
    ) -> Result<interstice_api::wire::JobOutput, ApiError> {
        let name = match stream {
            "stdout" => crate::exec::STDOUT_NAME,
            "stderr" => crate::exec::STDERR_NAME,
            other => {
                return Err(ApiError::bad_request(format!(
                    "stream: {other:?} is neither stdout nor stderr"
                )))
            }
        };
        let job = match self.store.job(id) {
            Ok(Some(job)) if owner.sees(job.view.owner_uid) => job,
            Ok(_) => return Err(ApiError::not_found(id)),
            Err(err) => return Err(ApiError::internal(err)),
        };
        let uid = job
            .run_as
            .map_or_else(|| nix::unistd::geteuid().as_raw(), |run_as| run_as.uid);
        let (size, offset, bytes) = self
            .executor
            .read_output(id, name, uid, tail)
            .map_err(ApiError::internal)?
            .unwrap_or_default();
        Ok(interstice_api::wire::JobOutput {
            id,
            stream: stream.to_string(),
            size,
            offset,
            text: String::from_utf8_lossy(&bytes).into_owned(),
        })
    }

    /// `GET /v1/jobs/{id}`: another user's job answers 404, as if absent.
    pub(super) fn job_view(&self, id: u64, owner: Owner) -> Result<JobView, ApiError> {
        match self.store.job(id) {
            Ok(Some(job)) if owner.sees(job.view.owner_uid) => {
                let processors = self
                    .jobs
                    .get(&id)
                    .and_then(|job| job.engine_procs.as_ref())
                    .filter(|_| job.view.state == "running")
                    .map(ToString::to_string);
                Ok(JobView {
                    processors,
                    ..job.view
                })
            }
            Ok(_) => Err(ApiError::not_found(id)),
            Err(err) => Err(ApiError::internal(err)),
        }
    }

    /// `DELETE /v1/jobs/{id}`: only the owner or root (another user's job
    /// answers 404, as if absent). A queued or held job
    /// ends at once; a running one is stopped by the supervisor (SIGTERM,
    /// then SIGKILL after the grace period) and shows as `cancelling`.
    pub(super) fn cancel(&mut self, id: u64, owner: Owner) -> Result<JobView, ApiError> {
        let now = self.now();
        let Some(job) = self.jobs.get(&id).filter(|job| owner.sees(job.owner_uid)) else {
            return match self.store.job(id) {
                Ok(Some(stored)) if owner.sees(stored.view.owner_uid) => Err(ApiError::new(
                    ErrorKind::Conflict,
                    format!(
                        "job {id} already ended ({}); nothing to cancel",
                        stored.view.state
                    ),
                )),
                Ok(_) => Err(ApiError::not_found(id)),
                Err(err) => Err(ApiError::internal(err)),
            };
        };
        let why = format!("cancelled by {}", Owner::describe(owner.uid));
        match job.phase {
            Phase::Queued => {
                let _ = self.driver.cancel(JobId(id), now);
                self.finish(id, now, "cancelled", None, false, &why);
            }
            Phase::Held => {
                let _ = self.driver.job_ended(JobId(id), now, EndReason::Killed);
                self.finish(id, now, "cancelled", None, false, &why);
            }
            Phase::HandingOver { .. } => {
                return Err(ApiError::new(
                    ErrorKind::Conflict,
                    format!(
                    "job {id} was evicted and is being handed to the data center's broker; retry in a moment"
                ),
                ))
            }
            Phase::Running { .. } => {
                self.stop(id, KillReason::Cancel, now);
                let _ = self.store.event(secs(now), Some(id), "cancelling", &why);
            }
        }
        self.dirty = true;
        let mut view = self
            .store
            .job(id)
            .map_err(ApiError::internal)?
            .ok_or_else(|| ApiError::not_found(id))?
            .view;
        if view.state == "running" {
            view.state = "cancelling".to_string();
        }
        Ok(view)
    }

    /// The request's processors, walltime and SLO, checked against the area
    /// and, for a job that would run on this node (`runs_here`), against
    /// the node's CPUs: a wider one could never start.
    fn check_shape(
        &self,
        procs: u32,
        walltime: f64,
        slo: f64,
        runs_here: bool,
    ) -> Result<(Time, Time), ApiError> {
        if procs == 0 {
            return Err(ApiError::bad_request("procs: must be at least 1"));
        }
        let area = self.driver.engine().area_procs();
        if procs > area {
            return Err(ApiError::new(
                ErrorKind::Unprocessable,
                format!("procs: {procs} is more than the convergence area's {area} processors; ask for at most {area}"),
            ));
        }
        let cpus = self.monitor.cpus();
        let node = crate::node::widest_job(cpus, &self.reloadable.node);
        if runs_here && procs > node {
            return Err(ApiError::new(
                ErrorKind::Unprocessable,
                format!(
                    "procs: {procs} is more than this node's {cpus} CPUs and node.busy_margin_cpus {} allow: \
                     it would never start here; ask for at most {node}",
                    self.reloadable.node.busy_margin_cpus
                ),
            ));
        }
        let walltime = positive_seconds("walltime", walltime)?;
        let slo = positive_seconds("slo", slo)?;
        Ok((walltime, slo))
    }
}

/// A duration from the API (or the store): positive, finite and at most ~31 years.
pub(crate) fn positive_seconds(key: &str, value: f64) -> Result<Time, ApiError> {
    if !value.is_finite() || value <= 0.0 {
        return Err(ApiError::bad_request(format!(
            "{key}: {value} must be a positive number of seconds"
        )));
    }
    if value > 1e9 {
        return Err(ApiError::bad_request(format!(
            "{key}: {value} seconds is more than 31 years; use a smaller value"
        )));
    }
    Ok(Time::from_secs_f64(value))
}

/// The program named, without NUL bytes (whether it exists is checked as
/// the job's user, [`crate::exec::Executor::check_access`]).
fn check_argv(argv: &[String]) -> Result<&str, ApiError> {
    let Some(program) = argv.first() else {
        return Err(ApiError::bad_request(
            "argv: must name a program, e.g. [\"/bin/sleep\", \"5\"]",
        ));
    };
    if argv.iter().any(|arg| arg.contains('\0')) {
        return Err(ApiError::bad_request(
            "argv: arguments must not contain NUL bytes",
        ));
    }
    Ok(program)
}

/// How long a user whose access check timed out is refused submissions:
/// each check holds the engine's thread for up to
/// [`crate::exec::ACCESS_CHECK_TIMEOUT`], so one user on a file system that
/// does not answer (a hung NFS home, a FUSE mount of their own) may hold it
/// that long once per back-off, not once per request.
pub(super) const CHECK_BACKOFF: Time = Time::from_secs(30);

/// The most `PATH` entries a job may name: the program is looked up in each,
/// as the job's user, before the job is accepted.
pub(super) const MAX_PATH_ENTRIES: usize = 64;

/// The memory a job asks for: at least 1 MiB, at most the node's
/// `ceiling` (`execution.limits.max_memory_mb`, else its memory).
fn check_memory(memory_mb: Option<u64>, ceiling: Option<u64>) -> Result<(), ApiError> {
    match (memory_mb, ceiling) {
        (Some(0), _) => Err(ApiError::bad_request(
            "memory_mb: must be at least 1 (MiB), or absent for the node's default",
        )),
        (Some(asked), Some(ceiling)) if asked > ceiling => Err(ApiError::bad_request(format!(
            "memory_mb: {asked} MiB is more than the {ceiling} MiB a job may have on this node \
             (execution.limits.max_memory_mb, else the node's memory); ask for less"
        ))),
        _ => Ok(()),
    }
}

/// A submission's text is at most `max_bytes` (`quota.max_job_text_bytes`), its `PATH` at most
/// [`MAX_PATH_ENTRIES`] entries.
fn check_size(request: &SubmitRequest, max_bytes: u64) -> Result<(), ApiError> {
    let env = request.env.iter().flatten();
    let bytes = request.argv.iter().map(String::len).sum::<usize>()
        + env.map(|(name, value)| name.len() + value.len()).sum::<usize>()
        + request.workdir.as_ref().map_or(0, String::len)
        + request.features.iter().map(String::len).sum::<usize>();
    if bytes as u64 > max_bytes {
        return Err(ApiError::bad_request(format!(
            "argv, env, workdir and features: {bytes} bytes together, more than the {max_bytes} a job may carry \
             (quota.max_job_text_bytes); pass large inputs in a file"
        )));
    }
    let path_entries = request
        .env
        .as_ref()
        .and_then(|env| env.get("PATH"))
        .map_or(0, |path| path.split(':').count());
    if path_entries > MAX_PATH_ENTRIES {
        return Err(ApiError::bad_request(format!(
            "env: PATH has {path_entries} entries, more than {MAX_PATH_ENTRIES}"
        )));
    }
    Ok(())
}

/// Variable names an `execve` environment can carry.
fn check_env(env: &BTreeMap<String, String>) -> Result<(), ApiError> {
    for (name, value) in env {
        if name.is_empty() || name.contains('=') || name.contains('\0') || value.contains('\0') {
            return Err(ApiError::bad_request(format!(
                "env: {name:?} is not a valid variable name (no '=', no NUL, not empty)"
            )));
        }
    }
    Ok(())
}

/// An unschedulable job is the client's problem (422); anything else is ours.
pub(super) fn engine_error(err: EngineError) -> ApiError {
    match err {
        EngineError::Unschedulable { .. } => ApiError::new(ErrorKind::Unprocessable, err.to_string()),
        other => ApiError::internal(other),
    }
}

/// The wire answer to a prediction: the one spelling of a [`Prediction`] in
/// `POST /v1/predict` answers, the daemon's and a broker's.
pub(crate) fn prediction_answer(prediction: &Prediction, rejected: bool) -> PredictResponse {
    PredictResponse {
        decision: decision_name(rejected).to_string(),
        predicted_start: finite_secs(prediction.start),
        predicted_completion: finite_secs(prediction.completion),
        violation_seconds: prediction.violation_seconds,
        predicts_violation: Some(prediction.predicts_violation),
        violation_probability: Some(prediction.probability),
        verdicts: None,
        counter_offer_slo: finite_secs(prediction.counter_offer_slo),
        hold: None,
        refusal: None,
    }
}

/// A refusal as the wire carries it: its name, its text, and a
/// non-candidate's nearest acceptable request.
pub(crate) fn refusal_view(refusal: &Refusal) -> RefusalView {
    let nearest = match refusal {
        Refusal::NotCandidate(not) => Some(NearestRequest {
            procs: not.nearest.procs,
            walltime: not.nearest.walltime.as_secs_f64(),
            slo: not.nearest.slo.map(Time::as_secs_f64),
        }),
        _ => None,
    };
    RefusalView {
        reason: refusal.name().to_string(),
        message: refusal.to_string(),
        nearest,
    }
}

/// Every predictor's verdict for the cloud job `id` the engine just admitted
/// or refused, as the wire and the Slurm marker carry them.
pub(super) fn predictor_verdicts(engine: &interstice_core::Engine, id: u64) -> Option<PredictorVerdicts> {
    let verdicts = engine.verdicts(JobId(id))?;
    let of = |predictor: Predictor| verdicts[predictor.index()].predicts_violation;
    Some(PredictorVerdicts {
        exact: of(Predictor::Exact),
        thesis: of(Predictor::Thesis),
        learned: of(Predictor::Learned),
    })
}

/// The request's argv, env and features as the store keeps them (JSON;
/// no env or features: `NULL`).
fn stored_json(request: &SubmitRequest) -> Result<(String, Option<String>, Option<String>), ApiError> {
    let argv = serde_json::to_string(&request.argv).map_err(ApiError::internal)?;
    let env = request
        .env
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(ApiError::internal)?;
    let features = if request.features.is_empty() {
        None
    } else {
        Some(serde_json::to_string(&request.features).map_err(ApiError::internal)?)
    };
    Ok((argv, env, features))
}

/// The answer to a submission: its prediction when admitted, the
/// counter-offer when rejected.
fn submitted(
    id: u64,
    rejected: bool,
    prediction: &Prediction,
    counter_offer: Option<Time>,
) -> SubmitResponse {
    SubmitResponse {
        id,
        decision: decision_name(rejected).to_string(),
        predicted_start: if rejected {
            None
        } else {
            finite_secs(prediction.start)
        },
        predicted_completion: if rejected {
            None
        } else {
            finite_secs(prediction.completion)
        },
        violation_seconds: prediction.violation_seconds,
        counter_offer_slo: counter_offer.map(secs),
        violation_probability: Some(prediction.probability),
        member: None,
        refusal: None,
    }
}
