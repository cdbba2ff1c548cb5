//! The `slurm` backend: every `bf_interval_seconds` it reads Slurm's plan
//! (`squeue`, `scontrol -o show node`, `scontrol -o show reservation`),
//! maps it onto the engine's processors ([`mirror`]) and sends it to the
//! actor as an [`HpcUpdate::Plan`], which the engine mirrors; it learns what
//! happened to the cloud jobs Slurm ran (met, violated, evicted by Slurm's
//! partition-priority preemption, failed) and exports that as metrics.
//!
//! Metrics, all in the daemon's registry: each finished cloud job feeds the
//! daemon-wide counters a locally run job feeds (`interstice_evictions_total`,
//! `interstice_lost_work_processor_seconds_total`, `interstice_slo_violations_total`
//! with its denominator `interstice_cloud_jobs_finished_total`,
//! `interstice_prediction_outcomes_total`: the admission prediction, read back
//! from the job's marker, against the outcome). What only Slurm mode has is
//! under `interstice_slurm_`: `cloud_job_outcomes_total{outcome}` (one outcome
//! per finished cloud job), `unpredicted_admissions_total` (fail-open admissions,
//! which no daemon decided), `plan_reads_total{result}`, `plan_jobs{state}`,
//! `cluster_cpus{state}` and `partition_cpus{partition,state}`. A restarted
//! daemon counts again the finished jobs Slurm still lists (`MinJobAge`): its
//! counters start from zero, and the jobs that ended while it was down are
//! counted that way.
//!
//! Every pending and running job is in the plan, cloud ones included: in
//! Slurm mode the evictable jobs are Slurm jobs in the cloud partition
//! (admitted by `job_submit/interstice`), so they hold processors in the real
//! plan, and a new cloud job's prediction must see them. Slurm's own
//! preemption does the evicting; this backend only observes.
//!
//! What the backend reads, with `SLURM_TIME_FORMAT=%s` so that times are epoch
//! seconds: `squeue -h -a -t all -o` [`SQUEUE_FORMAT`] (id, partition, state,
//! CPUs, time limit, submit, start — planned start for pending jobs, from the
//! backfill plan —, end, reason, nodes held, nodes planned, user, comment; the
//! comment last, so that a `|` in it is harmless), the nodes and the
//! reservations ([`cluster`]). Held jobs (reason `JobHeld*`) are left out of
//! the plan: they will not start on their own. The comment carries the
//! plugin's marker, `interstice:accepted slo=120 …` or `interstice:unpredicted
//! slo=120` (fail-open), from which the SLO and the deadline (submit + SLO)
//! follow, the engine's admission verdict (`predicted_violation=0|1`) and the
//! admission hold (`hold=ID`, [`Marker`]). The parsers are pure functions with
//! unit tests on captured output.
//!
//! When Slurm counts memory (`SelectTypeParameters` naming it, asked once
//! with `scontrol show config`), each read also asks each job's memory
//! (`squeue -O`, [`memory::MEMORY_FORMAT`]), and the nodes' `RealMemory`
//! and `AllocMem` count: a job fits on a node only where its memory is
//! free too ([`memory`]). When it does not, the backend counts CPUs only.
//!
//! Layout: `squeue` parses the queue and [`cluster`] the nodes and
//! reservations; [`memory`] what memory Slurm counts; `read` runs the
//! commands and parses one read into a [`SlurmState`]; [`mirror`] maps it
//! onto the engine's processors; [`evict`] is the daemon's own eviction.
//! This module keeps what the backend learns from a read (outcomes,
//! metrics) and the loop ([`run`]); none of its children uses it.

use std::collections::HashSet;
use std::time::Duration;

use interstice_api::wire::PredictorVerdicts;
use interstice_core::{violates, EndReason, Time};
use prometheus::{IntCounter, IntCounterVec, IntGaugeVec, Opts, Registry};

pub mod cluster;
pub mod evict;
pub mod memory;
pub mod mirror;
mod read;
mod squeue;

use super::{BackendError, HpcSink, HpcUpdate, PlanUpdate, Shutdown};
use crate::classes::Served;
use crate::clock::wall_clock;
use crate::config::SlurmConfig;
use crate::metrics::Metrics;
use cluster::Node;
#[cfg(doc)]
use interstice_api::slurm::Marker;
pub use mirror::{PlanCounts, PlanRead};
use read::run_command;
#[cfg(doc)]
use read::COMMAND_TIMEOUT;
pub use read::{EngineShape, SlurmOutput, SlurmState};
pub use squeue::{parse_squeue, JobStateName, ParseError, SqueueJob, SQUEUE_FORMAT};

/// What became of a cloud job Slurm ran (exactly one per finished job).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Completed by its deadline.
    Met,
    /// Completed late, or cancelled by Slurm at its deadline.
    Violated,
    /// Preempted by HPC work (Slurm partition-priority preemption).
    Evicted,
    /// Timed out, failed or was cancelled.
    Failed,
}

impl Outcome {
    /// Every outcome, in label order.
    pub const ALL: [Outcome; 4] = [Outcome::Met, Outcome::Violated, Outcome::Evicted, Outcome::Failed];

    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Met => "met",
            Outcome::Violated => "violated",
            Outcome::Evicted => "evicted",
            Outcome::Failed => "failed",
        }
    }
}

/// A finished cloud job, as the metrics see it.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    /// Slurm job id.
    pub id: String,
    /// Its outcome.
    pub outcome: Outcome,
    /// Whether it violated its SLO; None when no verdict applies (cancelled,
    /// submit or end time unknown, or evicted with `evictions_violate: false`).
    pub slo_violated: Option<bool>,
    /// Whether the admission predicted a violation: the engine's verdict as the
    /// marker carries it ([`Marker::predicted_violation`]); None for fail-open
    /// admissions and for markers that do not say (written by an older plugin).
    pub predicted_violation: Option<bool>,
    /// Every predictor's verdict, as the marker carries them
    /// ([`Marker::verdicts`]); None for fail-open admissions and older markers.
    pub verdicts: Option<PredictorVerdicts>,
    /// Run time thrown away: an evicted job's run (nobody reruns it).
    pub discarded: Time,
    /// Its service class, as the marker names it.
    pub class: Option<String>,
    /// CPUs.
    pub cpus: u32,
    /// Submit, start (`None`: it never ran) and end, epoch seconds.
    pub times: (Option<i64>, Option<i64>, Option<i64>),
    /// How Slurm says it ended.
    pub state: JobStateName,
    /// How its run ended, in the engine's terms.
    pub reason: EndReason,
}

impl Finished {
    /// Processor-seconds of work thrown away (CPUs × the discarded run).
    pub fn lost_processor_seconds(&self) -> f64 {
        f64::from(self.cpus) * self.discarded.as_secs_f64()
    }
}

/// What a finished cloud job means for the metrics; None while it runs or for
/// jobs without an interstice marker. The SLO verdict is core's rule
/// ([`violates`]) on how Slurm says the job ended ([`JobStateName::end_reason`]);
/// what is Slurm's own is which verdicts count: an evicted job's only when
/// `evictions_violate` (nobody reruns it, like a locally run job evicted with
/// no resubmission left), a cancelled job's never, and none without the
/// submit and end times. Whether the admission predicted a violation is read
/// from the marker, never derived again from its rounded completion.
pub fn finished(job: &SqueueJob, evictions_violate: bool) -> Option<Finished> {
    let marker = job.marker.as_ref()?;
    let reason = job.state.end_reason()?;
    let deadline = job.submit.map(|submit| submit as f64 + marker.slo_seconds);
    let verdict = deadline.zip(job.end).map(|(deadline, end)| {
        violates(
            Time::from_secs_f64(deadline),
            Some((Time::from_secs(end), reason)),
        )
    });
    // Pending and running jobs have no end reason: they returned above.
    let (outcome, slo_violated) = match job.state {
        JobStateName::Completed if verdict == Some(true) => (Outcome::Violated, verdict),
        JobStateName::Completed => (Outcome::Met, verdict),
        JobStateName::Deadline => (Outcome::Violated, verdict),
        JobStateName::Preempted => (Outcome::Evicted, verdict.filter(|_| evictions_violate)),
        JobStateName::Timeout | JobStateName::Failed => (Outcome::Failed, verdict),
        JobStateName::Cancelled | JobStateName::Pending | JobStateName::Running => (Outcome::Failed, None),
    };
    let predicted_violation = marker.predicted_violation.filter(|_| marker.predicted);
    let verdicts = marker.verdicts.filter(|_| marker.predicted);
    let discarded = match (outcome, job.start, job.end) {
        (Outcome::Evicted, Some(start), Some(end)) => Time::from_secs((end - start).max(0)),
        _ => Time::ZERO,
    };
    Some(Finished {
        id: job.id.clone(),
        outcome,
        slo_violated,
        predicted_violation,
        verdicts,
        discarded,
        class: marker.class.clone(),
        cpus: job.cpus,
        times: (job.submit, job.start, job.end),
        state: job.state,
        reason,
    })
}

/// How a finished Slurm cloud job spent its time, for its class's accounts:
/// one run (preemption cancels, nobody reruns it), thrown away when it was
/// preempted; completed only when it ran to its end (`COMPLETED`, or
/// `FAILED` by its own doing, as a local job's exit). `None` for a job its
/// user or an administrator cancelled (the service's doing only when Slurm
/// cancelled it at its deadline, `DEADLINE`), or without submit and end times.
pub fn served(job: &Finished, class: usize) -> Option<Served> {
    if job.state == JobStateName::Cancelled {
        return None;
    }
    let (submit, start, end) = job.times;
    let (submit, end) = (Time::from_secs(submit?), Time::from_secs(end?));
    Some(Served::of(
        class,
        job.cpus,
        submit,
        (start.map(Time::from_secs), end),
        job.discarded,
        job.reason,
    ))
}

/// Counts each cloud job once: its outcome when it ends, and whether it was admitted unpredicted.
#[derive(Debug, Default)]
pub struct OutcomeTracker {
    finished: HashSet<String>,
    seen: HashSet<String>,
}

/// New counts from one read of the queue.
#[derive(Debug, Default, PartialEq)]
pub struct Learned {
    /// Cloud jobs newly seen finished.
    pub finished: Vec<Finished>,
    /// Job ids newly seen that were admitted unpredicted (fail-open).
    pub unpredicted: Vec<String>,
}

impl OutcomeTracker {
    /// Learns from one read of the queue (jobs without an interstice marker are ignored).
    pub fn observe(&mut self, jobs: &[SqueueJob], evictions_violate: bool) -> Learned {
        let mut learned = Learned::default();
        for job in jobs {
            let Some(marker) = &job.marker else { continue };
            if self.seen.insert(job.id.clone()) && !marker.predicted {
                learned.unpredicted.push(job.id.clone());
            }
            if job.state.is_terminal() && self.finished.insert(job.id.clone()) {
                learned.finished.extend(finished(job, evictions_violate));
            }
        }
        learned
    }
}

/// The Slurm-only metrics (`interstice_slurm_*`), registered in the daemon's registry.
#[derive(Clone, Debug)]
pub struct SlurmMetrics {
    /// Cloud jobs Slurm finished, one outcome each.
    pub cloud_job_outcomes: IntCounterVec,
    /// Cloud jobs admitted without a prediction (daemon unreachable, fail-open).
    pub unpredicted_admissions: IntCounter,
    /// Reads of the plan, by result.
    pub plan_reads: IntCounterVec,
    /// Jobs in the plan, by state.
    pub plan_jobs: IntGaugeVec,
    /// CPUs of the cluster, by state (allocated, total).
    pub cluster_cpus: IntGaugeVec,
    /// CPUs of each partition, by state (allocated, total, unavailable).
    pub partition_cpus: IntGaugeVec,
    /// Cloud jobs the daemon cancelled for HPC jobs (`backend.eviction`), by result.
    pub daemon_evictions: IntCounterVec,
}

impl SlurmMetrics {
    /// Creates the series and registers them in `registry` (fails if they already are).
    pub fn register(registry: &Registry) -> Result<SlurmMetrics, prometheus::Error> {
        let opts = |name: &str, help: &str| Opts::new(name, help).namespace("interstice").subsystem("slurm");
        let metrics = SlurmMetrics {
            cloud_job_outcomes: IntCounterVec::new(
                opts(
                    "cloud_job_outcomes_total",
                    "Cloud jobs Slurm finished, one outcome each (met, violated, evicted, failed)",
                ),
                &["outcome"],
            )?,
            unpredicted_admissions: IntCounter::with_opts(opts(
                "unpredicted_admissions_total",
                "Cloud jobs admitted unpredicted by job_submit/interstice (daemon unreachable, fail-open)",
            ))?,
            plan_reads: IntCounterVec::new(
                opts(
                    "plan_reads_total",
                    "Reads of the Slurm plan (squeue, scontrol), by result",
                ),
                &["result"],
            )?,
            plan_jobs: IntGaugeVec::new(
                opts(
                    "plan_jobs",
                    "Jobs in the Slurm plan at the last read, by where their place comes from: running, \
                     planned (by Slurm's backfill), unplanned (placed by the engine), held (left out)",
                ),
                &["state"],
            )?,
            cluster_cpus: IntGaugeVec::new(
                opts(
                    "cluster_cpus",
                    "CPUs of the Slurm cluster at the last read, by state",
                ),
                &["state"],
            )?,
            partition_cpus: IntGaugeVec::new(
                opts(
                    "partition_cpus",
                    "CPUs of each partition's nodes at the last read, by state (total; allocated; unavailable: \
                     nodes down, drained, draining, failing or not responding)",
                ),
                &["partition", "state"],
            )?,
            daemon_evictions: IntCounterVec::new(
                opts(
                    "daemon_evictions_total",
                    "Cloud jobs the daemon cancelled for pending HPC jobs in its eviction policy's order \
                     (backend.eviction other than slurm), by result (cancelled; failed: scontrol or scancel \
                     refused, the job had likely ended)",
                ),
                &["result"],
            )?,
        };
        for outcome in Outcome::ALL {
            metrics.cloud_job_outcomes.with_label_values(&[outcome.label()]);
        }
        for result in ["ok", "error"] {
            metrics.plan_reads.with_label_values(&[result]);
        }
        for state in PLAN_STATES {
            metrics.plan_jobs.with_label_values(&[state]);
        }
        for state in ["allocated", "total"] {
            metrics.cluster_cpus.with_label_values(&[state]);
        }
        for result in ["cancelled", "failed"] {
            metrics.daemon_evictions.with_label_values(&[result]);
        }
        registry.register(Box::new(metrics.cloud_job_outcomes.clone()))?;
        registry.register(Box::new(metrics.unpredicted_admissions.clone()))?;
        registry.register(Box::new(metrics.plan_reads.clone()))?;
        registry.register(Box::new(metrics.plan_jobs.clone()))?;
        registry.register(Box::new(metrics.cluster_cpus.clone()))?;
        registry.register(Box::new(metrics.partition_cpus.clone()))?;
        registry.register(Box::new(metrics.daemon_evictions.clone()))?;
        Ok(metrics)
    }

    /// The gauges of one read: jobs by where their place comes from, CPUs
    /// of the cluster and of each partition.
    pub fn observe(&self, nodes: &[Node], counts: &mirror::PlanCounts) {
        let jobs = [counts.running, counts.planned, counts.unplanned, counts.held];
        for (state, count) in PLAN_STATES.into_iter().zip(jobs) {
            self.plan_jobs.with_label_values(&[state]).set(count as i64);
        }
        let sum = |pick: &dyn Fn(&Node) -> u32| nodes.iter().map(|n| i64::from(pick(n))).sum::<i64>();
        self.cluster_cpus
            .with_label_values(&["allocated"])
            .set(sum(&|n| n.allocated));
        self.cluster_cpus
            .with_label_values(&["total"])
            .set(sum(&|n| n.total));
        let mut partitions: std::collections::BTreeMap<&str, [i64; 3]> = Default::default();
        for node in nodes {
            for partition in &node.partitions {
                let cpus = partitions.entry(partition).or_default();
                cpus[0] += i64::from(node.total);
                cpus[1] += i64::from(node.allocated);
                cpus[2] += if node.available() {
                    0
                } else {
                    i64::from(node.total)
                };
            }
        }
        for (partition, cpus) in partitions {
            for (state, value) in ["total", "allocated", "unavailable"].into_iter().zip(cpus) {
                self.partition_cpus
                    .with_label_values(&[partition, state])
                    .set(value);
            }
        }
    }
}

/// The `state` labels of `interstice_slurm_plan_jobs`.
const PLAN_STATES: [&str; 4] = ["running", "planned", "unplanned", "held"];

/// Feeds what one read of the queue taught into the daemon-wide and Slurm metrics.
pub fn record(learned: &Learned, daemon: &Metrics, slurm: &SlurmMetrics) {
    slurm
        .unpredicted_admissions
        .inc_by(learned.unpredicted.len() as u64);
    for job in &learned.finished {
        slurm
            .cloud_job_outcomes
            .with_label_values(&[job.outcome.label()])
            .inc();
        if job.outcome == Outcome::Evicted {
            daemon.evictions.inc();
            daemon
                .lost_work_processor_seconds
                .inc_by(job.lost_processor_seconds());
        }
        if let Some(violated) = job.slo_violated {
            daemon.slo_verdict(violated);
        }
        if let (Some(predicted), Some(violated)) = (job.predicted_violation, job.slo_violated) {
            daemon.prediction_outcome(predicted, violated);
        }
        if let (Some(verdicts), Some(violated)) = (job.verdicts, job.slo_violated) {
            daemon.predictor_outcomes(verdicts, violated, None);
        }
        match daemon.class_index(job.class.as_deref()) {
            Ok(Some(class)) => {
                if let Some(served) = served(job, class) {
                    daemon.class_served(&served);
                }
            }
            Ok(None) => {}
            Err(err) => tracing::warn!("slurm: cloud job {} counted in no class: {err}", job.id),
        }
    }
}

/// The daemon's own eviction (`backend.eviction`, [`evict`]) between reads.
struct SelfEviction {
    policy: evict::Policy,
    evictor: evict::Evictor,
    /// scancel's `--partition=` filter: the cloud partitions.
    partition_filter: String,
}

impl SelfEviction {
    fn new(policy: evict::Policy) -> SelfEviction {
        SelfEviction {
            partition_filter: format!("--partition={}", policy.clouds().join(",")),
            policy,
            evictor: evict::Evictor::default(),
        }
    }

    /// Cancel the cloud jobs the policy picks in `state` (blocking: runs
    /// squeue, scontrol and scancel, each bounded by [`COMMAND_TIMEOUT`]).
    fn run(&mut self, config: &SlurmConfig, state: &SlurmState, now_seconds: i64, counts: &IntCounterVec) {
        let conf = config.slurm_conf.as_ref();
        let chosen = self.evictor.choose(&self.policy, state, now_seconds, |job| {
            let read = run_command(&config.squeue, &["-h", "-j", &job.id, "-o", "%j"], conf).and_then(|name| {
                let show = run_command(&config.scontrol, &["-o", "show", "job", &job.id], conf)?;
                Ok(evict::parse_need(&show, &job.id, name.strip_suffix('\n').unwrap_or(&name)))
            });
            match read {
                Ok(None) => {
                    tracing::info!(job = %job.id, "slurm: the daemon does not judge where this pending HPC job may run (named or excluded nodes, features, licenses, generic resources): Slurm starts it when the cloud jobs' limits end");
                    Ok(None)
                }
                Ok(need) => Ok(need),
                Err(err) => {
                    tracing::warn!(job = %job.id, "slurm: cannot read what a pending HPC job needs: {err}");
                    Err(())
                }
            }
        });
        for victim in chosen {
            let comment = |text: &str| {
                run_command(
                    &config.scontrol,
                    &[
                        "update",
                        &format!("JobId={}", victim.victim),
                        &format!("Comment={text}"),
                    ],
                    conf,
                )
            };
            let marked = victim
                .comment
                .as_ref()
                .map_or(Ok(String::new()), |c| comment(&c.marked));
            // Only a running job of a cloud partition: scancel checks it again.
            let result = marked.and_then(|_| {
                run_command(
                    &config.scancel,
                    &[&self.partition_filter, "--state=RUNNING", &victim.victim],
                    conf,
                )
            });
            match result {
                Ok(_) => {
                    counts.with_label_values(&["cancelled"]).inc();
                    tracing::info!(
                        job = %victim.victim,
                        for_job = %victim.for_job,
                        policy = self.policy.eviction().name(),
                        "slurm: evicted a cloud job for a pending HPC job"
                    );
                }
                Err(err) => {
                    counts.with_label_values(&["failed"]).inc();
                    self.evictor.forget(&victim.victim);
                    // Take the mark back: a later cancellation is not this eviction.
                    if let Some(c) = &victim.comment {
                        let _ = comment(&c.original);
                    }
                    tracing::warn!(job = %victim.victim, "slurm: cannot evict a cloud job: {err}");
                }
            }
        }
    }
}

/// Warn when a cloud partition is preemptable by Slurm: Slurm would pick
/// victims its own way before the daemon does (`PreemptMode=OFF` wanted).
fn warn_if_slurm_preempts(config: &SlurmConfig) {
    for partition in interstice_api::slurm::partition_list(&config.partition_cloud) {
        match run_command(
            &config.scontrol,
            &["-o", "show", "partition", partition],
            config.slurm_conf.as_ref(),
        ) {
            Ok(text) => match cluster::field(text.trim(), "PreemptMode") {
                Some("OFF") => {}
                mode => tracing::warn!(
                    partition,
                    "slurm: backend.eviction is the daemon's, but partition {partition} has PreemptMode={}: \
                     Slurm preempts its jobs in its own order first; set PreemptMode=OFF on the cloud partitions",
                    mode.unwrap_or("?")
                ),
            },
            Err(err) => tracing::warn!(partition, "slurm: cannot read the partition's PreemptMode: {err}"),
        }
    }
}

/// Read the plan every `bf_interval_seconds` until shutdown, counting into `daemon_metrics`.
pub async fn run(
    config: SlurmConfig,
    shape: EngineShape,
    eviction: Option<evict::Policy>,
    sink: HpcSink,
    daemon_metrics: Metrics,
    mut shutdown: Shutdown,
) -> Result<(), BackendError> {
    let metrics = SlurmMetrics::register(daemon_metrics.registry())
        .map_err(|err| BackendError::Fatal(format!("slurm backend metrics: {err}")))?;
    let mut tracker = OutcomeTracker::default();
    let mut evicting = eviction.map(SelfEviction::new);
    if evicting.is_some() {
        let reader = config.clone();
        tokio::task::spawn_blocking(move || warn_if_slurm_preempts(&reader))
            .await
            .map_err(|err| BackendError::Fatal(format!("slurm partition check panicked: {err}")))?;
    }
    let interval = Duration::from_secs_f64(config.bf_interval_seconds.max(0.05));
    let mut failures_in_a_row = 0u32;
    let mut memory: Option<bool> = None;
    tracing::info!(interval = ?interval, squeue = %config.squeue.display(), "slurm backend reading the plan");
    loop {
        let reader = config.clone();
        let known = memory;
        let read = tokio::task::spawn_blocking(move || SlurmOutput::read_learning(&reader, known))
            .await
            .map_err(|err| BackendError::Fatal(format!("slurm plan reader panicked: {err}")))?;
        let now = wall_clock();
        let now_seconds = now.ticks() / 1_000_000;
        let update = read.and_then(|(tracked, output)| {
            if memory.is_none() {
                tracing::info!(
                    memory = tracked,
                    "slurm: SelectTypeParameters {} memory: the fits count CPUs{}",
                    if tracked { "counts" } else { "does not count" },
                    if tracked { " and memory" } else { " only" }
                );
                memory = Some(tracked);
            }
            let state = output.parse()?;
            let read = state.plan(&config.partition_cloud, &config.partition_hpc, shape, now_seconds)?;
            Ok((state, read))
        });
        match update {
            Ok((state, read)) => {
                failures_in_a_row = 0;
                metrics.plan_reads.with_label_values(&["ok"]).inc();
                metrics.observe(&state.nodes, &read.counts);
                let learned = tracker.observe(&state.jobs, config.evictions_violate);
                for id in &learned.unpredicted {
                    tracing::warn!("slurm: cloud job {id} admitted unpredicted (fail-open)");
                }
                for job in &learned.finished {
                    tracing::info!("slurm: cloud job {} outcome {}", job.id, job.outcome.label());
                }
                record(&learned, &daemon_metrics, &metrics);
                let update = PlanUpdate {
                    time: now,
                    plan: read.plan,
                    unplanned_holds: read.unplanned_holds,
                    settled_holds: read.settled_holds,
                };
                if sink.send(HpcUpdate::Plan(update)).is_err() {
                    return Ok(());
                }
                if let Some(mut step) = evicting.take() {
                    let reader = config.clone();
                    let counts = metrics.daemon_evictions.clone();
                    evicting = Some(
                        tokio::task::spawn_blocking(move || {
                            step.run(&reader, &state, now_seconds, &counts);
                            step
                        })
                        .await
                        .map_err(|err| BackendError::Fatal(format!("slurm eviction panicked: {err}")))?,
                    );
                }
            }
            Err(message) => {
                failures_in_a_row += 1;
                metrics.plan_reads.with_label_values(&["error"]).inc();
                tracing::warn!(failures_in_a_row, "slurm: cannot read the plan: {message}");
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = shutdown.wait() => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
