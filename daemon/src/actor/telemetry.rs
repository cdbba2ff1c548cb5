//! Telemetry: whether the daemon can answer from a plan (readiness and
//! `/healthz`), the node samples and the gauges of `/metrics`. Counters of
//! events are incremented where the events happen.

use super::command::{ApiError, ErrorKind};
use super::seconds::secs;
use super::state::Actor;
use interstice_api::wire::HealthResponse;
use interstice_core::Time;

/// How often the idle processor-seconds gauges are recomputed.
const GAUGE_INTERVAL: Time = Time::from_secs(1);

/// How often a store that could not be written is tried again.
const STORE_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

impl Actor {
    /// See [`Readiness::check`](super::readiness::Readiness::check); and not while the state cannot be written
    /// (an admission must be durable before it is answered, so it would be
    /// a promise the next restart forgets).
    pub(super) fn ready(&self, now: Time) -> Result<(), ApiError> {
        if let Some(why) = self.store.write_failure() {
            return Err(ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "the state cannot be written ({why}); admissions are refused until a write succeeds \
                     (is the file system of state_dir full or failing?)"
                ),
            ));
        }
        self.readiness.check(now)
    }

    /// While the store cannot be written, try a small write every
    /// [`STORE_RETRY`]; one that succeeds makes the daemon ready again.
    pub(super) fn retry_store(&mut self) {
        if self.store.write_failure().is_none()
            || self
                .readiness
                .last_store_retry
                .is_some_and(|at| at.elapsed() < STORE_RETRY)
        {
            return;
        }
        self.readiness.last_store_retry = Some(std::time::Instant::now());
        if self.store.probe_write().is_ok() {
            tracing::info!("the state can be written again: admissions resume");
        }
    }

    /// `GET /healthz`: the status, or 503 with the reason the daemon is not ready.
    pub(super) fn health(&mut self) -> Result<HealthResponse, ApiError> {
        let now = self.now();
        self.ready(now)?;
        Ok(HealthResponse {
            status: "ok".to_string(),
            backend: self.readiness.backend_name.to_string(),
            now: secs(now),
            running: self.count_running() as u64,
            queued: self.count_queued() as u64,
            plan_age_seconds: self.readiness.plan_age(now).map(secs),
            version: env!("CARGO_PKG_VERSION").to_string(),
            containment: Some(self.executor.containment().describe()),
            confinement: Some(self.executor.confinement()),
        })
    }

    /// The backend has just given the plan: the daemon is ready, and the
    /// plan-age gauge gets its first sample at once (not at the next tick).
    pub(super) fn plan_updated(&mut self, now: Time) {
        self.readiness.last_plan_update = Some(now);
        self.metrics.set_plan_age(Some(0.0));
    }

    /// Job counts and plan age every tick; the idle processor-seconds
    /// within `metrics.future_window_seconds` every [`GAUGE_INTERVAL`].
    pub(super) fn update_gauges(&mut self, now: Time) {
        self.metrics.cloud_jobs_running.set(self.count_running() as i64);
        self.metrics.cloud_jobs_queued.set(self.count_queued() as i64);
        self.metrics.set_plan_age(self.readiness.plan_age(now).map(secs));
        self.metrics.class_tick(now);
        if self.last_gauges.is_some_and(|at| now - at < GAUGE_INTERVAL) {
            return;
        }
        self.last_gauges = Some(now);
        self.regulator_gauges(now);
        let horizon = now + Time::from_secs_f64(self.reloadable.metrics.future_window_seconds);
        let slots = self.driver.engine().slots(now);
        let immediate: f64 = slots
            .immediate
            .iter()
            .map(|slot| secs(slot.idle_until.min(horizon) - now))
            .sum();
        let future: f64 = slots
            .future
            .iter()
            .filter(|slot| slot.start > now && slot.start < horizon)
            .map(|slot| slot.procs.len() as f64 * secs(slot.end.min(horizon) - slot.start))
            .sum();
        self.metrics
            .idle_processor_seconds
            .with_label_values(&["immediate"])
            .set(immediate.max(0.0));
        self.metrics
            .idle_processor_seconds
            .with_label_values(&["future"])
            .set(future.max(0.0));
    }

    /// The regulator's gauges (`interstice_regulator_rate`, `_threshold`)
    /// at `now`, when `engine.regulate` is on: after each admission and at
    /// each metrics tick, as admitted work ages out of the window.
    pub(super) fn regulator_gauges(&self, now: Time) {
        let engine = self.driver.engine();
        if let (Some(rate), Some(reg)) = (engine.submission_rate(now), engine.config().regulation) {
            self.metrics.regulator_rate.set(rate);
            self.metrics.regulator_threshold.set(reg.threshold);
        }
    }

    /// Sample the node's CPU and memory every `node.sample_interval_seconds`
    /// (the node gate reads the last sample).
    pub(super) fn sample_node(&mut self, now: Time) {
        let interval = Time::from_secs_f64(self.reloadable.node.sample_interval_seconds);
        if self.last_sample.is_some_and(|at| now - at < interval) {
            return;
        }
        self.last_sample = Some(now);
        let sample = self.monitor.sample();
        self.metrics.node_cpu_usage_ratio.set(sample.cpu_usage);
        self.metrics.node_cpus.set(sample.cpus as i64);
        self.metrics.node_memory_used_bytes.set(sample.memory_used as i64);
        self.metrics
            .node_memory_total_bytes
            .set(sample.memory_total as i64);
    }
}
