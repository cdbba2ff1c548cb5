//! `summary.json`: [`interstice_core::Summary`] plus the engine config,
//! serialized from the wire structs of this module, whose names and order are
//! the file's (core's `serde` feature is only for a sweep's stored cells,
//! never for a result file). Same inputs give byte-identical files: field
//! order is fixed, floats go through `serde_json`, and non-finite values
//! become `null`.
//!
//! The top-level metrics are over all jobs, as they always were; `hpc` and
//! `cloud` split them by kind, so that what cloud jobs cost the HPC work
//! (`hpc.mean_wait`, and `hpc.change` against the same run without cloud
//! jobs when the run computed one) is read without a second look at
//! `jobs.csv`.

use interstice_core::placement::Criterion;
use interstice_core::{
    CandidateRules, EngineConfig, PredictionQuality, PredictorQualities, ReservationDepth, Summary, Time,
};
use serde::Serialize;

/// `summary.json` as a wire struct: the metrics, then the config.
#[derive(Serialize)]
pub(crate) struct SummaryWire<'a> {
    workload_name: &'a str,
    jobs: u64,
    hpc_jobs: u64,
    cloud_jobs: u64,
    makespan: Option<f64>,
    hpc_makespan: Option<f64>,
    mean_wait: Option<f64>,
    mean_bounded_slowdown: Option<f64>,
    utilization: Option<f64>,
    violations: u64,
    violation_percent: Option<f64>,
    evictions: u64,
    lost_work: Option<f64>,
    rejected: u64,
    /// The HPC jobs alone.
    hpc: HpcWire,
    /// The cloud jobs alone.
    cloud: CloudWire,
    prediction: PredictionWire,
    predictors: PredictorsWire,
    /// Violations HPC work submitted after the job's prediction caused.
    unforeseeable_violations: u64,
    /// `predictors` over the other cloud jobs, the foreseeable ones.
    predictors_foreseeable: PredictorsWire,
    config: ConfigWire,
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) classes: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) qos: Option<&'a serde_json::Value>,
}

/// The HPC jobs' metrics, and what they were without the cloud jobs.
#[derive(Serialize)]
struct HpcWire {
    jobs: u64,
    /// Makespan, mean wait and mean bounded slowdown, written inline.
    #[serde(flatten)]
    metrics: HpcMetricsWire,
    /// The same run without its cloud jobs (`null`: not computed, e.g. no
    /// cloud job, a sweep's cell or a Batsim run).
    without_cloud: Option<HpcMetricsWire>,
    /// These metrics minus `without_cloud`'s (`null` with it).
    change: Option<HpcMetricsWire>,
}

/// Makespan, mean wait (seconds) and mean bounded slowdown of HPC jobs.
#[derive(Clone, Copy, Serialize)]
struct HpcMetricsWire {
    makespan: Option<f64>,
    mean_wait: Option<f64>,
    mean_bounded_slowdown: Option<f64>,
}

impl HpcMetricsWire {
    fn of(summary: &Summary) -> HpcMetricsWire {
        HpcMetricsWire {
            makespan: finite(summary.hpc_makespan),
            mean_wait: summary.hpc_mean_wait.and_then(finite),
            mean_bounded_slowdown: summary.hpc_mean_bounded_slowdown.and_then(finite),
        }
    }

    /// `self − base`, field by field (`null` where either is).
    fn minus(self, base: HpcMetricsWire) -> HpcMetricsWire {
        let diff = |a: Option<f64>, b: Option<f64>| Some(a? - b?);
        HpcMetricsWire {
            makespan: diff(self.makespan, base.makespan),
            mean_wait: diff(self.mean_wait, base.mean_wait),
            mean_bounded_slowdown: diff(self.mean_bounded_slowdown, base.mean_bounded_slowdown),
        }
    }
}

/// The cloud jobs' outcome, with both denominators of the violation rate named.
#[derive(Serialize)]
struct CloudWire {
    /// Cloud jobs submitted.
    jobs: u64,
    admitted: u64,
    rejected: u64,
    violations: u64,
    /// violations / submitted × 100 (the top-level `violation_percent`).
    violation_percent_of_submitted: Option<f64>,
    /// violations / admitted × 100.
    violation_percent_of_admitted: Option<f64>,
    evictions: u64,
    lost_work: Option<f64>,
    /// Of `rejected`, the jobs outside the candidate rules; written only
    /// when the run has candidate rules (a run without them keeps its bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    rejected_not_candidate: Option<u64>,
    /// Of `rejected`, the jobs the submission-rate regulator refused;
    /// written only when the run regulates.
    #[serde(skip_serializing_if = "Option::is_none")]
    rejected_regulated: Option<u64>,
}

#[derive(Serialize)]
struct PredictionWire {
    tp: u64,
    fp: u64,
    #[serde(rename = "fn")]
    fn_: u64,
    tn: u64,
    precision: Option<f64>,
    recall: Option<f64>,
    accuracy: Option<f64>,
    f1: Option<f64>,
    thesis_accuracy: Option<f64>,
    thesis_precision: Option<f64>,
    brier: Option<f64>,
}

impl From<&PredictionQuality> for PredictionWire {
    fn from(quality: &PredictionQuality) -> PredictionWire {
        PredictionWire {
            tp: quality.tp,
            fp: quality.fp,
            fn_: quality.fn_,
            tn: quality.tn,
            precision: quality.precision.and_then(finite),
            recall: quality.recall.and_then(finite),
            accuracy: quality.accuracy.and_then(finite),
            f1: quality.f1.and_then(finite),
            thesis_accuracy: quality.thesis_accuracy.and_then(finite),
            thesis_precision: quality.thesis_precision.and_then(finite),
            brier: quality.brier.and_then(finite),
        }
    }
}

/// Every predictor's quality over the same cloud jobs.
#[derive(Serialize)]
struct PredictorsWire {
    exact: PredictionWire,
    thesis: PredictionWire,
    learned: PredictionWire,
}

impl From<&PredictorQualities> for PredictorsWire {
    fn from(qualities: &PredictorQualities) -> Self {
        PredictorsWire {
            exact: PredictionWire::from(&qualities.exact),
            thesis: PredictionWire::from(&qualities.thesis),
            learned: PredictionWire::from(&qualities.learned),
        }
    }
}

#[derive(Serialize)]
struct ConfigWire {
    policy: &'static str,
    procs: u32,
    conv: u32,
    admission: &'static str,
    scheduling: &'static str,
    /// How many queued jobs hold a reservation: a count, or `"unlimited"`.
    reservation_depth: serde_json::Value,
    predictor: &'static str,
    /// Under reject-predicted: the violation probability above which a job is refused.
    reject_above: Option<f64>,
    placement: &'static str,
    /// TOPSIS's weights by criterion name; `null` under first-fit.
    placement_weights: Option<serde_json::Map<String, serde_json::Value>>,
    lambda: Option<f64>,
    tau: Option<f64>,
    latency: f64,
    beta: serde_json::Value,
    /// The thesis predictor's `W_future`: `"holes"` (§4.5) or `"published"`.
    w_future: &'static str,
    max_resubmissions: u32,
    max_time_in_system: Option<f64>,
    maintenance: Vec<MaintenanceWire>,
    /// The area's planned resizes: `{time, procs}` (seconds; `0..procs`),
    /// written only when there are some.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    area_schedule: Vec<AreaChangeWire>,
    /// The candidate rules (`max_walltime` s, `max_width`, `min_slack`;
    /// `null` for no limit), written only when some limit is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    candidates: Option<serde_json::Value>,
    /// The regulator (`window` s, `threshold`), written only when on.
    #[serde(skip_serializing_if = "Option::is_none")]
    regulate: Option<serde_json::Value>,
}

/// A planned resize of the area.
#[derive(Serialize)]
struct AreaChangeWire {
    time: f64,
    procs: u32,
}

/// A maintenance window: seconds, and the processors as a Batsim interval set.
#[derive(Serialize)]
struct MaintenanceWire {
    start: f64,
    duration: f64,
    procs: String,
}

/// The candidate rules in JSON (`None`: no limit set).
fn candidates_json(rules: &CandidateRules) -> Option<serde_json::Value> {
    (!rules.is_unlimited()).then(|| {
        serde_json::json!({
            "max_walltime": rules.max_walltime.map(Time::as_secs_f64),
            "max_width": rules.max_width,
            "min_slack": rules.min_slack.and_then(finite),
        })
    })
}

/// A reservation depth in JSON: the count, or `"unlimited"`.
pub fn depth_json(depth: ReservationDepth) -> serde_json::Value {
    match depth.limit() {
        Some(k) => k.into(),
        None => depth.to_string().into(),
    }
}

/// A finite float, or `None` (`null` in JSON) for NaN and infinities.
pub(crate) fn finite(value: f64) -> Option<f64> {
    value.is_finite().then_some(value)
}

/// Pretty-printed, trailing newline.
pub(crate) fn render(wire: &SummaryWire) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(wire)?;
    text.push('\n');
    Ok(text)
}

/// `summary.json`'s object (the metrics, then the config), e.g. for one
/// scheduler of a data center.
pub fn summary_value(
    summary: &Summary,
    config: &EngineConfig,
    workload_name: &str,
    run: Option<&serde_json::Value>,
) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::to_value(summary_wire(summary, None, config, workload_name, run))
}

/// The wire form of `summary` run under `config`; `without_cloud` is the
/// same run's summary without its cloud jobs, when one was computed.
pub(crate) fn summary_wire<'a>(
    summary: &Summary,
    without_cloud: Option<&Summary>,
    config: &'a EngineConfig,
    workload_name: &'a str,
    run: Option<&'a serde_json::Value>,
) -> SummaryWire<'a> {
    SummaryWire {
        workload_name,
        jobs: summary.jobs,
        hpc_jobs: summary.hpc_jobs,
        cloud_jobs: summary.cloud_jobs,
        makespan: finite(summary.makespan),
        hpc_makespan: finite(summary.hpc_makespan),
        mean_wait: summary.mean_wait.and_then(finite),
        mean_bounded_slowdown: summary.mean_bounded_slowdown.and_then(finite),
        utilization: summary.utilization.and_then(finite),
        violations: summary.violations,
        violation_percent: summary.violation_percent.and_then(finite),
        evictions: summary.evictions,
        lost_work: finite(summary.lost_work),
        rejected: summary.rejected,
        hpc: HpcWire {
            jobs: summary.hpc_jobs,
            metrics: HpcMetricsWire::of(summary),
            without_cloud: without_cloud.map(HpcMetricsWire::of),
            change: without_cloud.map(|base| HpcMetricsWire::of(summary).minus(HpcMetricsWire::of(base))),
        },
        cloud: CloudWire {
            jobs: summary.cloud_jobs,
            admitted: summary.admitted(),
            rejected: summary.rejected,
            violations: summary.violations,
            violation_percent_of_submitted: summary.violation_percent.and_then(finite),
            violation_percent_of_admitted: summary.violation_percent_of_admitted().and_then(finite),
            evictions: summary.evictions,
            lost_work: finite(summary.lost_work),
            rejected_not_candidate: (!config.candidates.is_unlimited())
                .then_some(summary.rejected_not_candidate),
            rejected_regulated: config.regulation.map(|_| summary.rejected_regulated),
        },
        prediction: PredictionWire::from(&summary.prediction),
        predictors: PredictorsWire::from(&summary.predictors),
        unforeseeable_violations: summary.unforeseeable_violations,
        predictors_foreseeable: PredictorsWire::from(&summary.predictors_foreseeable),
        config: ConfigWire {
            policy: config.policy.name(),
            procs: config.procs,
            conv: config.conv_procs,
            admission: config.admission.name(),
            scheduling: config.scheduling.name(),
            reservation_depth: depth_json(config.reservation_depth),
            predictor: config.predictor.name(),
            reject_above: config.reject_above,
            placement: config.placement.name(),
            placement_weights: config.topsis().map(|weights| {
                Criterion::ALL
                    .iter()
                    .map(|c| (c.name().to_string(), weights.of(*c).into()))
                    .collect()
            }),
            lambda: finite(config.lambda),
            tau: finite(config.tau),
            latency: config.thesis.latency.as_secs_f64(),
            beta: interstice_swf::beta::beta_json(config.thesis.beta),
            w_future: config.thesis.w_future.name(),
            max_resubmissions: config.lifecycle.max_resubmissions,
            max_time_in_system: config.lifecycle.max_time_in_system.map(Time::as_secs_f64),
            candidates: candidates_json(&config.candidates),
            regulate: config.regulation.map(
                |r| serde_json::json!({"window": r.window.as_secs_f64(), "threshold": finite(r.threshold)}),
            ),
            maintenance: config
                .maintenance
                .iter()
                .map(|window| MaintenanceWire {
                    start: window.start.as_secs_f64(),
                    duration: window.duration.as_secs_f64(),
                    procs: window.procs.to_string(),
                })
                .collect(),
            area_schedule: config
                .area_schedule
                .iter()
                .map(|change| AreaChangeWire {
                    time: change.at.as_secs_f64(),
                    procs: change.procs,
                })
                .collect(),
        },
        run,
        classes: None,
        qos: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use interstice_core::ProcSet;

    #[test]
    fn the_summary_echoes_the_thesis_options() {
        use interstice_core::{Beta, Maintenance, Policy, Predictor, Scheduling, Summary};
        let mut config = EngineConfig::new(8, Policy::Easy);
        config.scheduling = Scheduling::SharedQueue;
        config.predictor = Predictor::Thesis;
        config.thesis.latency = Time::from_secs_f64(1.5);
        config.thesis.beta = Beta::Disqualify;
        config.maintenance = vec![Maintenance {
            start: Time::from_secs(60),
            duration: Time::from_secs(30),
            procs: ProcSet::from_ranges([(0, 3), (6, 6)]),
        }];
        let text = render(&summary_wire(
            &Summary::compute(&[], 8),
            None,
            &config,
            "w0",
            None,
        ))
        .unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let config = &value["config"];
        assert_eq!(
            (
                &config["scheduling"],
                &config["predictor"],
                &config["latency"],
                &config["beta"]
            ),
            (
                &serde_json::json!("shared-queue"),
                &serde_json::json!("thesis"),
                &serde_json::json!(1.5),
                &serde_json::json!("disqualify")
            )
        );
        assert_eq!(
            config["maintenance"],
            serde_json::json!([{"start": 60.0, "duration": 30.0, "procs": "0-3 6"}])
        );
    }
}
