//! The daemon's Prometheus metrics (prefix `interstice_`, base units, counters
//! end in `_total`). Label values come from small fixed sets, never job ids.
//! The registry also holds `interstice_build_info` and, on Linux, the
//! standard `process_*` metrics of the daemon itself.

use crate::classes::{ClassMetrics, ClassTable, Served};
use interstice_api::wire::{EventKind, MemberView, PredictorVerdicts};
use interstice_core::Refusal;
use prometheus::{
    Encoder, Gauge, GaugeVec, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec,
    Opts, Registry,
};

/// The daemon's version, the `version` label of `interstice_build_info`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The source revision the daemon was built from (`git rev-parse --short=12
/// HEAD` at build time, `$INTERSTICE_REVISION` if set, else `unknown`; see
/// `build.rs`): the `revision` label of `interstice_build_info`.
pub const REVISION: &str = env!("INTERSTICE_REVISION");

/// The `result` labels of `interstice_admission_holds_released_total`.
pub const HOLD_RESULTS: [&str; 3] = ["settled", "expired", "displaced"];

/// Why rejected submissions are deleted (`interstice_rejected_pruned_total`'s `reason`).
pub const PRUNE_REASONS: [&str; 2] = ["quota", "retention"];

/// The confusion cells, as `outcome` labels.
const OUTCOMES: [&str; 4] = ["tp", "fp", "fn", "tn"];

/// The confusion cell of a verdict against what happened.
fn outcome(predicted_violation: bool, violated: bool) -> &'static str {
    match (predicted_violation, violated) {
        (true, true) => "tp",
        (true, false) => "fp",
        (false, true) => "fn",
        (false, false) => "tn",
    }
}

/// The options of `interstice_<name>`.
fn opts(name: &str, help: &str) -> Opts {
    Opts::new(name, help).namespace("interstice")
}

/// An integer counter `interstice_<name>`.
fn counter(name: &str, help: &str) -> IntCounter {
    IntCounter::with_opts(opts(name, help)).expect("valid")
}

/// A float counter `interstice_<name>` (processor-seconds).
fn float_counter(name: &str, help: &str) -> prometheus::Counter {
    prometheus::Counter::with_opts(opts(name, help)).expect("valid")
}

/// An integer counter `interstice_<name>` per value of `labels`.
fn counter_vec(name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    IntCounterVec::new(opts(name, help), labels).expect("valid")
}

/// An integer gauge `interstice_<name>`.
fn int_gauge(name: &str, help: &str) -> IntGauge {
    IntGauge::with_opts(opts(name, help)).expect("valid")
}

/// An integer gauge `interstice_<name>` per value of `labels`.
fn int_gauge_vec(name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    IntGaugeVec::new(opts(name, help), labels).expect("valid")
}

/// A float gauge `interstice_<name>`.
fn gauge(name: &str, help: &str) -> Gauge {
    Gauge::with_opts(opts(name, help)).expect("valid")
}

/// A float gauge `interstice_<name>` per value of `labels` (none: a series
/// that can have no sample, which a plain gauge cannot).
fn gauge_vec(name: &str, help: &str, labels: &[&str]) -> GaugeVec {
    GaugeVec::new(opts(name, help), labels).expect("valid")
}

/// A histogram `interstice_<name>` over `buckets`.
fn histogram(name: &str, help: &str, buckets: Vec<f64>) -> Histogram {
    Histogram::with_opts(
        HistogramOpts::new(name, help)
            .namespace("interstice")
            .buckets(buckets),
    )
    .expect("valid")
}

/// Every metric the daemon exports.
#[derive(Clone, Debug)]
pub struct Metrics {
    registry: Registry,
    /// Idle processor-seconds of the convergence area: `window="immediate"` (idle now,
    /// up to the horizon) and `window="future"` (holes starting later, within the horizon).
    pub idle_processor_seconds: GaugeVec,
    /// Admission decisions, `decision="admitted"|"rejected"`.
    pub admissions: IntCounterVec,
    /// Rejections that came with a counter-offer.
    pub counter_offers: IntCounter,
    /// Rejections by reason, `reason="predicted"|"not-candidate"|"regulated"`
    /// ([`interstice_core::Refusal::name`]; [`Metrics::refusal`]).
    refusals: IntCounterVec,
    /// Candidate limits broken by refused jobs, `limit="walltime"|"width"|"slack"`.
    candidate_limits: IntCounterVec,
    /// The regulator's measured rate: cloud work admitted over the trailing
    /// window ÷ the area's idle capacity over the next one (set only when
    /// `engine.regulate` is on; +Inf when nothing is idle).
    pub regulator_rate: Gauge,
    /// The regulator's threshold (set only when `engine.regulate` is on).
    pub regulator_threshold: Gauge,
    /// Rejected submissions deleted from the state, `reason="quota"|"retention"`
    /// ([`Metrics::rejected_pruned`]).
    rejected_pruned: IntCounterVec,
    /// Finished jobs deleted from the state ([`Metrics::finished_pruned`]).
    finished_pruned: IntCounterVec,
    /// Admission holds standing now (Slurm mode): promised slots held in
    /// the plan until Slurm lists their job.
    pub admission_holds: IntGauge,
    /// Admission holds released, `result="settled"` (Slurm lists the job
    /// with a plan), `"expired"` (it never did within `hold_seconds`),
    /// `"displaced"` (the plan's HPC work took the slot first).
    pub admission_holds_released: IntCounterVec,
    /// Cloud jobs running on this node.
    pub cloud_jobs_running: IntGauge,
    /// Cloud jobs accepted and waiting.
    pub cloud_jobs_queued: IntGauge,
    /// Processors of the convergence area now (`engine.conv_procs`, or the
    /// last resize: `POST /v1/area`, SIGHUP).
    pub area_processors: IntGauge,
    /// Resizes of the convergence area since the daemon started.
    pub area_resizes: IntCounter,
    /// Cloud jobs evicted for HPC work (or a shrinking area).
    pub evictions: IntCounter,
    /// Processor-seconds of cloud work thrown away by evictions and lost runs.
    pub lost_work_processor_seconds: prometheus::Counter,
    /// Runs lost (process gone after a daemon crash).
    pub lost_runs: IntCounter,
    /// Cloud jobs the kernel killed at their memory limit.
    pub jobs_killed_memory: IntCounter,
    /// 1 for each limit this node enforces on cloud jobs, `limit="cpuset"|
    /// "affinity"|"memory"|"pids"|"cpu"` (0: not enforced; see the log).
    confinement: IntGaugeVec,
    /// Cloud jobs that ended after their deadline. Counted with
    /// [`Metrics::slo_verdict`], which counts the denominator too.
    pub slo_violations: IntCounter,
    /// Cloud jobs that ended with an SLO verdict, met or violated (locally
    /// run jobs, and in Slurm mode the finished cloud jobs Slurm lists): the
    /// denominator of the violation ratio.
    pub cloud_jobs_finished: IntCounter,
    /// `interstice_build_info{version,revision}`, always 1.
    build_info: IntGaugeVec,
    /// Prediction confusion counts, `outcome="tp"|"fp"|"fn"|"tn"`.
    pub prediction_outcomes: IntCounterVec,
    /// Every predictor's confusion counts over the same jobs,
    /// `predictor="exact"|"thesis"|"learned"`, `outcome="tp"|"fp"|"fn"|"tn"`.
    predictor_outcomes: IntCounterVec,
    /// The same over the foreseeable jobs: without the violations HPC work
    /// submitted after the job's prediction caused, which are counted in
    /// `unforeseeable_violations` (jobs whose cause is not known, Slurm's,
    /// are in neither).
    predictor_foreseeable_outcomes: IntCounterVec,
    unforeseeable_violations: IntCounter,
    /// The violation probability of each admission answer.
    predicted_violation_probability: Histogram,
    /// Time to answer an admission (submit or predict).
    pub admission_duration: Histogram,
    /// Seconds since the backend last updated the plan: no sample at all
    /// before the first plan (an unknown age is not 0); see
    /// [`Metrics::set_plan_age`].
    plan_age_seconds: GaugeVec,
    /// `backend.plan_stale_seconds` in force: the daemon is not ready while
    /// the plan is older. No sample for backends that read no plan; see
    /// [`Metrics::set_plan_stale_after`].
    plan_stale_after_seconds: GaugeVec,
    /// Starts held back because the node was busier than the plan believes.
    pub starts_deferred: IntCounter,
    /// Fraction of the node's CPU capacity in use (0..1).
    pub node_cpu_usage_ratio: Gauge,
    /// Node CPUs.
    pub node_cpus: IntGauge,
    /// Memory in use.
    pub node_memory_used_bytes: IntGauge,
    /// Total memory.
    pub node_memory_total_bytes: IntGauge,
    /// HPC events received.
    pub hpc_events: IntCounterVec,
    /// A broker's view of each fresh member's link, `member="<address>"`
    /// (members are a configured few): the smoothed round trip of its
    /// forwards, `F^r` for 0 bytes, the age of its tuple
    /// ([`Metrics::set_members`]). No series on a node daemon.
    member_rtt_seconds: GaugeVec,
    member_latency_seconds: GaugeVec,
    member_tuple_age_seconds: GaugeVec,
    /// Per-class accounts (`interstice_class_*`), when the config has classes.
    classes: Option<ClassMetrics>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Register every metric in a fresh registry, with every labelled
    /// series visible from the first scrape.
    pub fn new() -> Metrics {
        let metrics = Metrics::unregistered();
        metrics.register_all();
        metrics.build_info.with_label_values(&[VERSION, REVISION]).set(1);
        metrics.show_every_labelled_series();
        metrics
    }

    /// Every metric, created but not registered yet, family by family:
    /// admission, cloud jobs, SLO and prediction, the HPC plan, the node. A
    /// flat table: one entry per metric, its name, help and labels.
    fn unregistered() -> Metrics {
        Metrics {
            registry: Registry::new(),
            // Admission: the decisions, their holds and how long they take.
            idle_processor_seconds: gauge_vec(
                "idle_processor_seconds",
                "Idle processor-seconds of the convergence area within the metrics horizon",
                &["window"],
            ),
            admissions: counter_vec("admissions_total", "Cloud job admission decisions", &["decision"]),
            counter_offers: counter(
                "slo_counteroffers_total",
                "Rejections that came with an SLO counter-offer",
            ),
            refusals: counter_vec(
                "admission_refusals_total",
                "Cloud job rejections by reason: predicted (the admission mode), not-candidate (engine.candidates), regulated (engine.regulate)",
                &["reason"],
            ),
            candidate_limits: counter_vec(
                "candidate_limits_broken_total",
                "Candidate limits broken by refused cloud jobs (a job may break several): walltime, width, slack",
                &["limit"],
            ),
            regulator_rate: gauge(
                "regulator_rate",
                "Cloud work admitted over the regulator's window divided by the area's idle capacity over the next window",
            ),
            regulator_threshold: gauge(
                "regulator_threshold",
                "The regulator's threshold on interstice_regulator_rate (engine.regulate.threshold)",
            ),
            rejected_pruned: counter_vec(
                "rejected_pruned_total",
                "Rejected submissions deleted from the state: beyond store.max_rejected_per_user (quota) or older than store.rejected_retention_seconds (retention)",
                &["reason"],
            ),
            finished_pruned: counter_vec(
                "finished_pruned_total",
                "Finished jobs deleted from the state: beyond store.max_finished_per_user (quota) or ended before store.finished_retention_seconds (retention)",
                &["reason"],
            ),
            admission_holds: int_gauge(
                "admission_holds",
                "Admission holds standing: slots promised to evictable jobs Slurm does not list with a plan yet",
            ),
            admission_holds_released: counter_vec(
                "admission_holds_released_total",
                "Admission holds released: settled (Slurm lists the job with a plan), expired, displaced",
                &["result"],
            ),
            admission_duration: histogram(
                "admission_duration_seconds",
                "Time to decide an admission or prediction",
                vec![0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
            ),
            // Cloud jobs: running, waiting, evicted and lost.
            cloud_jobs_running: int_gauge("cloud_jobs_running", "Cloud jobs running on this node"),
            cloud_jobs_queued: int_gauge("cloud_jobs_queued", "Cloud jobs accepted and waiting to start"),
            area_processors: int_gauge(
                "area_processors",
                "Processors of the convergence area now (engine.conv_procs, or the last resize)",
            ),
            area_resizes: counter(
                "area_resizes_total",
                "Resizes of the convergence area (POST /v1/area, SIGHUP) since the daemon started",
            ),
            evictions: counter(
                "evictions_total",
                "Cloud jobs evicted for HPC work or because their processors left the convergence area",
            ),
            lost_work_processor_seconds: float_counter(
                "lost_work_processor_seconds_total",
                "Processor-seconds of cloud work thrown away by evictions and lost runs",
            ),
            lost_runs: counter("lost_runs_total", "Cloud job runs found gone after a daemon restart"),
            jobs_killed_memory: counter(
                "cloud_jobs_killed_memory_total",
                "Cloud jobs the kernel killed at their memory limit (ended failed, reason memory)",
            ),
            confinement: int_gauge_vec(
                "confinement_enforced",
                "1 if this node enforces the limit on cloud jobs (cpuset, affinity, memory, pids, cpu), else 0",
                &["limit"],
            ),
            starts_deferred: counter(
                "starts_deferred_total",
                "Cloud job starts held back because the node was busier than the plan believes",
            ),
            // SLO and prediction: verdicts against what happened.
            slo_violations: counter("slo_violations_total", "Cloud jobs that completed after their deadline"),
            cloud_jobs_finished: counter(
                "cloud_jobs_finished_total",
                "Cloud jobs that ended with an SLO verdict, met or violated (the violation ratio's denominator)",
            ),
            prediction_outcomes: counter_vec(
                "prediction_outcomes_total",
                "Violation predictions against outcomes (tp, fp, fn, tn)",
                &["outcome"],
            ),
            predictor_outcomes: counter_vec(
                "predictor_outcomes_total",
                "Every predictor's violation predictions against outcomes, over the same cloud jobs",
                &["predictor", "outcome"],
            ),
            predictor_foreseeable_outcomes: counter_vec(
                "predictor_foreseeable_outcomes_total",
                "Every predictor's violation predictions against outcomes, over the cloud jobs this daemon \
                 placed, without the violations HPC work submitted after the prediction caused",
                &["predictor", "outcome"],
            ),
            unforeseeable_violations: counter(
                "unforeseeable_violations_total",
                "SLO violations of cloud jobs this daemon placed that HPC work submitted after their \
                 prediction caused (evicted them or took their place)",
            ),
            predicted_violation_probability: histogram(
                "predicted_violation_probability",
                "The violation probability of each admission (calibrated by the learned predictor; 0 or 1 \
                 from the others)",
                vec![0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99],
            ),
            // The HPC plan: its age, its staleness bound, the events behind it.
            plan_age_seconds: gauge_vec(
                "plan_age_seconds",
                "Seconds since the backend last updated the HPC plan (absent before the first plan)",
                &[],
            ),
            plan_stale_after_seconds: gauge_vec(
                "plan_stale_after_seconds",
                "backend.plan_stale_seconds: the daemon is not ready while its plan is older than this \
                 (absent for backends that read no plan)",
                &[],
            ),
            hpc_events: counter_vec(
                "hpc_events_total",
                "HPC job events: received from the batch system, or those of the embedded backend's simulated cluster",
                &["type"],
            ),
            // The node and the daemon's build.
            node_cpu_usage_ratio: gauge(
                "node_cpu_usage_ratio",
                "CPU use of the node as seen by the daemon (0 to 1)",
            ),
            node_cpus: int_gauge("node_cpus", "CPUs of the node"),
            node_memory_used_bytes: int_gauge("node_memory_used_bytes", "Memory in use on the node"),
            node_memory_total_bytes: int_gauge("node_memory_total_bytes", "Memory of the node"),
            build_info: int_gauge_vec(
                "build_info",
                "The daemon's version and source revision, as labels; always 1",
                &["version", "revision"],
            ),
            // A broker's members.
            member_rtt_seconds: gauge_vec(
                "datacenter_member_rtt_seconds",
                "A broker's smoothed round-trip time of its forwards to each member (absent until one was \
                 answered): the link of the member's F^r",
                &["member"],
            ),
            member_latency_seconds: gauge_vec(
                "datacenter_member_latency_seconds",
                "The latency r = F^r a broker adds for a job of 0 bytes sent to each member (the measured \
                 round trip, else engine.latency, plus datacenter.monitoring_seconds)",
                &["member"],
            ),
            member_tuple_age_seconds: gauge_vec(
                "datacenter_member_tuple_age_seconds",
                "Seconds since the broker received each fresh member's latest tuple",
                &["member"],
            ),
            classes: None,
        }
    }

    /// Create every labelled series up front (zero), so that the first
    /// scrape lists each label value the daemon can report.
    fn show_every_labelled_series(&self) {
        for window in ["immediate", "future"] {
            self.idle_processor_seconds.with_label_values(&[window]).set(0.0);
        }
        for decision in ["admitted", "rejected"] {
            self.admissions.with_label_values(&[decision]);
        }
        for outcome in OUTCOMES {
            self.prediction_outcomes.with_label_values(&[outcome]);
            for predictor in PredictorVerdicts::NAMES {
                self.predictor_outcomes.with_label_values(&[predictor, outcome]);
                self.predictor_foreseeable_outcomes
                    .with_label_values(&[predictor, outcome]);
            }
        }
        for result in HOLD_RESULTS {
            self.admission_holds_released.with_label_values(&[result]);
        }
        for reason in Refusal::NAMES {
            self.refusals.with_label_values(&[reason]);
        }
        for limit in interstice_core::candidate::Limit::NAMES {
            self.candidate_limits.with_label_values(&[limit]);
        }
        for reason in PRUNE_REASONS {
            self.rejected_pruned.with_label_values(&[reason]);
            self.finished_pruned.with_label_values(&[reason]);
        }
        for kind in EventKind::ALL {
            self.hpc_events.with_label_values(&[kind.as_str()]);
        }
    }

    fn register_all(&self) {
        let collectors: Vec<Box<dyn prometheus::core::Collector>> = vec![
            Box::new(self.idle_processor_seconds.clone()),
            Box::new(self.admissions.clone()),
            Box::new(self.counter_offers.clone()),
            Box::new(self.refusals.clone()),
            Box::new(self.candidate_limits.clone()),
            Box::new(self.regulator_rate.clone()),
            Box::new(self.regulator_threshold.clone()),
            Box::new(self.rejected_pruned.clone()),
            Box::new(self.finished_pruned.clone()),
            Box::new(self.admission_holds.clone()),
            Box::new(self.admission_holds_released.clone()),
            Box::new(self.cloud_jobs_running.clone()),
            Box::new(self.cloud_jobs_queued.clone()),
            Box::new(self.area_processors.clone()),
            Box::new(self.area_resizes.clone()),
            Box::new(self.evictions.clone()),
            Box::new(self.lost_work_processor_seconds.clone()),
            Box::new(self.lost_runs.clone()),
            Box::new(self.jobs_killed_memory.clone()),
            Box::new(self.confinement.clone()),
            Box::new(self.slo_violations.clone()),
            Box::new(self.cloud_jobs_finished.clone()),
            Box::new(self.build_info.clone()),
            Box::new(self.prediction_outcomes.clone()),
            Box::new(self.predictor_outcomes.clone()),
            Box::new(self.predictor_foreseeable_outcomes.clone()),
            Box::new(self.unforeseeable_violations.clone()),
            Box::new(self.predicted_violation_probability.clone()),
            Box::new(self.admission_duration.clone()),
            Box::new(self.plan_age_seconds.clone()),
            Box::new(self.plan_stale_after_seconds.clone()),
            Box::new(self.starts_deferred.clone()),
            Box::new(self.node_cpu_usage_ratio.clone()),
            Box::new(self.node_cpus.clone()),
            Box::new(self.node_memory_used_bytes.clone()),
            Box::new(self.node_memory_total_bytes.clone()),
            Box::new(self.hpc_events.clone()),
            Box::new(self.member_rtt_seconds.clone()),
            Box::new(self.member_latency_seconds.clone()),
            Box::new(self.member_tuple_age_seconds.clone()),
        ];
        for collector in collectors {
            self.registry
                .register(collector)
                .expect("metric names are unique");
        }
        // The daemon's own CPU seconds, resident memory, open fds and start
        // time (`process_*`, read from /proc/self at each scrape).
        #[cfg(target_os = "linux")]
        self.registry
            .register(Box::new(
                prometheus::process_collector::ProcessCollector::for_self(),
            ))
            .expect("process metric names are unique");
    }

    /// A broker's fresh members as `GET /v1/datacenter/members` lists them:
    /// one series per member and gauge; a member no longer fresh loses its
    /// series.
    pub fn set_members(&self, members: &[MemberView]) {
        self.member_rtt_seconds.reset();
        self.member_latency_seconds.reset();
        self.member_tuple_age_seconds.reset();
        for member in members {
            let label = [member.address.as_str()];
            if let Some(rtt) = member.rtt_seconds {
                self.member_rtt_seconds.with_label_values(&label).set(rtt);
            }
            self.member_latency_seconds
                .with_label_values(&label)
                .set(member.latency_seconds);
            self.member_tuple_age_seconds
                .with_label_values(&label)
                .set(member.age_seconds);
        }
    }

    /// Count one cloud job that ended with an SLO verdict: the violation
    /// ratio's denominator (`interstice_cloud_jobs_finished_total`) always,
    /// its numerator (`interstice_slo_violations_total`) when `violated`.
    /// The one place both are counted, for locally run jobs and the cloud
    /// jobs Slurm ran alike, so the ratio stays within 0..1.
    pub fn slo_verdict(&self, violated: bool) {
        self.cloud_jobs_finished.inc();
        if violated {
            self.slo_violations.inc();
        }
    }

    /// Seconds since the last plan update; `None` (no plan yet) leaves the
    /// series without a sample.
    pub fn set_plan_age(&self, seconds: Option<f64>) {
        match seconds {
            Some(seconds) => self.plan_age_seconds.with_label_values(&[]).set(seconds),
            None => self.plan_age_seconds.reset(),
        }
    }

    /// The staleness bound of the backend's plan (`None`: the backend reads
    /// no plan, and the series has no sample).
    pub fn set_plan_stale_after(&self, seconds: Option<f64>) {
        match seconds {
            Some(seconds) => self.plan_stale_after_seconds.with_label_values(&[]).set(seconds),
            None => self.plan_stale_after_seconds.reset(),
        }
    }

    /// Export per-class accounts for `table`'s classes (`interstice_class_*`).
    pub fn set_classes(&mut self, table: ClassTable) -> Result<(), prometheus::Error> {
        self.classes = Some(ClassMetrics::register(&self.registry, table)?);
        Ok(())
    }

    /// The configured classes, if any.
    pub fn classes(&self) -> Option<&ClassTable> {
        self.classes.as_ref().map(ClassMetrics::table)
    }

    /// The class a job names, or the default class (`Ok(None)`: no classes,
    /// or none named and no default); a name the classes lack is an error
    /// listing them.
    pub fn class_index(&self, name: Option<&str>) -> Result<Option<usize>, String> {
        self.classes().map_or(Ok(None), |table| table.index(name))
    }

    /// Count a finished cloud job in its class (nothing without classes).
    pub fn class_served(&self, served: &Served) {
        if let Some(classes) = &self.classes {
            classes.observe(served);
        }
    }

    /// Close the per-class Gini window the clock has left (nothing without classes).
    pub fn class_tick(&self, now: interstice_core::Time) {
        if let Some(classes) = &self.classes {
            classes.tick(now);
        }
    }

    /// The registry every daemon metric lives in. Backends register their own
    /// series here (e.g. the Slurm backend's `interstice_slurm_*`).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Count one cloud job's violation prediction against its outcome
    /// (`prediction_outcomes_total`: tp, fp, fn, tn; positive = SLO violated).
    pub fn prediction_outcome(&self, predicted_violation: bool, violated: bool) {
        self.prediction_outcomes
            .with_label_values(&[outcome(predicted_violation, violated)])
            .inc();
    }

    /// Count `deleted` rejected submissions pruned for `reason` (one of [`PRUNE_REASONS`]).
    pub fn rejected_pruned(&self, reason: &str, deleted: u64) {
        self.rejected_pruned.with_label_values(&[reason]).inc_by(deleted);
    }

    /// Count finished jobs deleted for `reason` (`quota` or `retention`).
    pub fn finished_pruned(&self, reason: &str, deleted: u64) {
        self.finished_pruned.with_label_values(&[reason]).inc_by(deleted);
    }

    /// Count an admission decision (`interstice_admissions_total`) and the
    /// violation probability it was made with.
    pub fn admission(&self, rejected: bool, probability: f64) {
        let decision = if rejected { "rejected" } else { "admitted" };
        self.admissions.with_label_values(&[decision]).inc();
        self.predicted_violation_probability.observe(probability);
    }

    /// Count a rejection's reason (`interstice_admission_refusals_total`)
    /// and, for a non-candidate, each limit it broke.
    pub fn refusal(&self, refusal: &Refusal) {
        self.refusals.with_label_values(&[refusal.name()]).inc();
        if let Refusal::NotCandidate(not) = refusal {
            for limit in &not.limits {
                self.candidate_limits.with_label_values(&[limit.name()]).inc();
            }
        }
    }

    /// Count every predictor's verdict for a job that ended, `violated` or not.
    ///
    /// `hit_by_later_hpc`: whether HPC work submitted after the job's
    /// prediction evicted or delayed it (`None`: not known, as for Slurm's
    /// jobs). Known, the job counts in the foreseeable series too, or, if it
    /// violated because of that work, as an unforeseeable violation.
    pub fn predictor_outcomes(
        &self,
        verdicts: PredictorVerdicts,
        violated: bool,
        hit_by_later_hpc: Option<bool>,
    ) {
        let foreseeable = match hit_by_later_hpc {
            None => false,
            Some(true) if violated => {
                self.unforeseeable_violations.inc();
                false
            }
            Some(_) => true,
        };
        for (predictor, predicted) in PredictorVerdicts::NAMES.into_iter().zip(verdicts.each()) {
            let labels = [predictor, outcome(predicted, violated)];
            self.predictor_outcomes.with_label_values(&labels).inc();
            if foreseeable {
                self.predictor_foreseeable_outcomes
                    .with_label_values(&labels)
                    .inc();
            }
        }
    }

    /// The limits this node enforces on cloud jobs (once, at start).
    pub fn set_confinement(&self, confinement: &interstice_api::wire::Confinement) {
        for (limit, enforced) in [
            ("cpuset", confinement.cpuset),
            ("affinity", confinement.affinity),
            ("memory", confinement.memory),
            ("pids", confinement.pids),
            ("cpu", confinement.cpu),
        ] {
            self.confinement
                .with_label_values(&[limit])
                .set(i64::from(enforced));
        }
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut buffer = Vec::new();
        let encoder = prometheus::TextEncoder::new();
        if encoder.encode(&self.registry.gather(), &mut buffer).is_err() {
            return String::new();
        }
        String::from_utf8(buffer).unwrap_or_default()
    }
}

/// The value of `series` (`name{labels}` as rendered) in a scrape (tests).
#[cfg(test)]
pub(crate) fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("{series} missing in\n{text}"))
        .parse::<f64>()
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prediction_outcomes_are_labelled_by_confusion_cell() {
        let metrics = Metrics::new();
        metrics.prediction_outcome(false, false);
        metrics.prediction_outcome(false, true);
        metrics.prediction_outcome(false, true);
        metrics.prediction_outcome(true, true);
        let text = metrics.render();
        assert!(
            text.contains("interstice_prediction_outcomes_total{outcome=\"tn\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("interstice_prediction_outcomes_total{outcome=\"fn\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("interstice_prediction_outcomes_total{outcome=\"tp\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("interstice_prediction_outcomes_total{outcome=\"fp\"} 0"),
            "{text}"
        );
    }

    #[test]
    fn only_the_daemon_registry_is_rendered() {
        let stray = IntCounter::new("interstice_test_default_registry_total", "not ours").unwrap();
        prometheus::register(Box::new(stray.clone())).unwrap();
        stray.inc();
        let text = Metrics::new().render();
        assert!(!text.contains("interstice_test_default_registry_total"), "{text}");
        assert!(text.contains("interstice_evictions_total 0"), "{text}");
    }

    #[test]
    fn slo_verdicts_count_the_ratio_and_its_denominator() {
        let metrics = Metrics::new();
        let text = metrics.render();
        assert!(text.contains("interstice_cloud_jobs_finished_total 0"), "{text}");
        metrics.slo_verdict(false);
        metrics.slo_verdict(true);
        metrics.slo_verdict(false);
        assert_eq!(metrics.cloud_jobs_finished.get(), 3);
        assert_eq!(metrics.slo_violations.get(), 1);
    }

    #[test]
    fn build_info_names_version_and_revision() {
        assert!(!REVISION.is_empty());
        assert!(
            REVISION == "unknown" || REVISION.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "{REVISION}"
        );
        let text = Metrics::new().render();
        let line = format!("interstice_build_info{{revision=\"{REVISION}\",version=\"{VERSION}\"}} 1");
        assert!(text.contains(&line), "{line} not in\n{text}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn process_metrics_are_in_the_daemon_registry() {
        let text = Metrics::new().render();
        for name in [
            "process_cpu_seconds_total",
            "process_resident_memory_bytes",
            "process_open_fds",
            "process_start_time_seconds",
        ] {
            assert!(
                text.lines().any(|line| line.starts_with(name)),
                "{name} missing in\n{text}"
            );
        }
    }

    #[test]
    fn plan_age_has_no_sample_until_a_plan_arrived() {
        let metrics = Metrics::new();
        let text = metrics.render();
        assert!(!text.contains("interstice_plan_age_seconds"), "{text}");
        metrics.set_plan_age(Some(2.5));
        assert!(metrics.render().contains("interstice_plan_age_seconds 2.5"));
        metrics.set_plan_age(None);
        assert!(!metrics.render().contains("interstice_plan_age_seconds"));
        assert!(!metrics.render().contains("interstice_plan_stale_after_seconds"));
        metrics.set_plan_stale_after(Some(15.0));
        assert!(metrics
            .render()
            .contains("interstice_plan_stale_after_seconds 15\n"));
    }
}
