//! The `embedded` backend (the default): a simulated cluster replaying an SWF
//! trace (or Batsim workload) as the HPC load, `speedup` trace seconds per
//! wall-clock second; without a trace the cluster has no HPC load at all. Each trace job is submitted to the engine at its scaled arrival,
//! with its scaled walltime and run time; the daemon ends it by itself
//! `runtime` after the engine starts it (see [`super::HpcEvent::runtime`]).

use super::{BackendError, HpcEvent, HpcSink, HpcUpdate, Shutdown};
use crate::clock::wall_clock;
use crate::config::EmbeddedConfig;
use interstice_api::wire::EventKind;
use interstice_core::{Job, Time};
use interstice_swf::{ExtractOptions, Strictness};
use std::time::Duration;

/// Load the trace: its jobs sorted by arrival (none without a trace).
pub fn load(config: &EmbeddedConfig) -> Result<Vec<Job>, BackendError> {
    let Some(trace) = &config.trace else {
        return Ok(Vec::new());
    };
    let mut options = ExtractOptions::new();
    options.mode = Strictness::Lenient;
    options.clip = config.clip_procs;
    options.machine_procs = config.clip_procs;
    let workload = interstice_swf::load_workload(trace, &options)
        .map_err(|err| BackendError::Fatal(format!("backend.trace: {err}")))?;
    let skip = Time::from_secs_f64(config.skip_seconds);
    let first = workload.jobs.first().map_or(Time::ZERO, |job| job.submit);
    let jobs: Vec<Job> = workload
        .jobs
        .into_iter()
        .filter(|job| job.submit - first >= skip)
        .collect();
    if jobs.is_empty() {
        return Err(BackendError::Fatal(format!(
            "backend.trace: {} has no job after skip_seconds {}",
            trace.display(),
            config.skip_seconds
        )));
    }
    Ok(jobs)
}

/// Replay the trace until shutdown (starting over at the end if `repeat`).
pub async fn run(config: EmbeddedConfig, sink: HpcSink, mut shutdown: Shutdown) -> Result<(), BackendError> {
    let loader = config.clone();
    let jobs = tokio::task::spawn_blocking(move || load(&loader))
        .await
        .map_err(|err| BackendError::Fatal(format!("loading the trace: {err}")))??;
    if jobs.is_empty() {
        tracing::info!("embedded backend without a trace: the simulated cluster has no HPC load");
        shutdown.wait().await;
        return Ok(());
    }
    let trace = config
        .trace
        .as_deref()
        .unwrap_or_else(|| std::path::Path::new("-"));
    tracing::info!(trace = %trace.display(), jobs = jobs.len(), speedup = config.speedup, "embedded backend replaying");
    let scale = 1.0 / config.speedup;
    let mut cycle = 0u64;
    loop {
        let origin = jobs[0].submit;
        let wall_origin = wall_clock();
        for job in &jobs {
            let due = wall_origin + (job.submit - origin).mul_f64(scale);
            let wait = due - wall_clock();
            if wait > Time::ZERO {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_micros(wait.ticks() as u64)) => {}
                    _ = shutdown.wait() => return Ok(()),
                }
            }
            if shutdown.is_stopping() {
                return Ok(());
            }
            let event = HpcEvent {
                kind: EventKind::Submitted,
                id: format!("swf-{cycle}-{}", job.id),
                procs: job.procs.max(1),
                walltime: job.walltime.mul_f64(scale).max(Time::from_ticks(1)),
                time: due,
                runtime: Some(
                    job.runtime
                        .unwrap_or(job.walltime)
                        .min(job.walltime)
                        .mul_f64(scale),
                ),
                cpus: None,
            };
            if sink.send(HpcUpdate::Event(event)).is_err() {
                return Ok(());
            }
        }
        if !config.repeat {
            shutdown.wait().await;
            return Ok(());
        }
        cycle += 1;
    }
}
